#!/bin/bash
# Runs every test: builds both kernels, 6.1 and 6.12, each with its series
# (cached by kernel/build.sh), builds the user space once, runs the host
# tests (ctest: the policy parser, the engine, the command line), and
# again on builds under ASan+UBSan and TSan (cmake/sanitize.cmake),
# checkpatch on both series, shellcheck on every script
# (tests/shellcheck.sh), then boots each kernel in QEMU and runs every VM
# suite on it (kernel, bpffs ACLs, fsiter-pin, whole-filesystem views).
#
#   tests/run.sh [--full] [--debug | --debug-only]
#
# --full   also runs the tier that CI leaves out for time (docs/testing.md
#          lists each step and why): the 6.1 copies of the suites that
#          test fsiter-pin rather than the kernel, the second kernel's
#          copy of the 200,000-file stress suite, a longer soak of
#          concurrent readers, and the million-inode suite
# --debug  also builds the debug kernels (kernel/config/debug.config:
#          KASAN, kmemleak) and runs the kernel suite, a minute of
#          concurrent readers and the two whole-filesystem suites on each,
#          the two kernels at once, after the rest;
#          under TCG that takes about three times as long, so CI does not
# --debug-only  only the debug tier: builds both kernels (cached) and the
#          user space they need, then the debug lanes as --debug runs them;
#          for a tree whose main tier has passed (CI runs it on every push)
#
# Two lanes run at once, one per kernel: a VM under TCG keeps about one
# core busy, so the 6.1 kernel builds, and then its suites run, beside the
# 6.12 suites; a lane that is done takes the 6.12 VM steps the other has
# not begun (vstep), so that neither core waits at the end. Each step's output is printed whole when it ends, between
# "=== NAME" and "=== NAME: ok (N s)"; at the end comes a table of the
# steps by time, and a warning for each step that took more than a third
# longer than in the fresh-machine table of docs/testing.md (a warning
# only: the time moves with the machine's load).
#
# Exits non-zero if anything failed; the last line is "N passed, N failed"
# over the steps.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2

build=${FSITER_BUILD_DIR:-$top/build}
full=0 debug=0 main=1
usage="usage: tests/run.sh [--full] [--debug | --debug-only]"
for arg in "$@"; do
	case "$arg" in
		--full) full=1 ;;
		--debug) debug=1 ;;
		--debug-only) debug=1 main=0 ;;
		*) echo "run.sh: unknown argument '$arg' ($usage)" >&2
		   exit 2 ;;
	esac
done
if ((full && !main)); then
	echo "run.sh: --full and --debug-only do not go together ($usage)" >&2
	exit 2
fi

scripts/deps.sh --kernel --vm --build || exit 2

# The run's bookkeeping: each step's result (steps.tsv), the lanes'
# hand-offs (files that say a kernel or the user space is ready), and the
# lock that keeps two steps' output apart.
runlog=$(mktemp -d "${TMPDIR:-/tmp}/fsiter-run.XXXXXX") || exit 2
trap 'rm -rf "$runlog"' EXIT
: >"$runlog/steps.tsv"
t_start=$SECONDS

# say TEXT: one line of output, never inside another step's.
say() { { flock 8; printf '%s\n' "$*"; } 8>>"$runlog/out.lock"; }

# step NAME CMD...: runs CMD, its output to a file that is printed whole
# when it ends; records the verdict and the wall time.
step() {
	local name=$1 t0=$SECONDS rc=0 verdict=ok out
	shift
	out=$(mktemp "$runlog/out.XXXXXX")
	say "=== $name: started"
	"$@" >"$out" 2>&1 </dev/null || rc=$?
	((rc == 0)) || verdict=FAILED
	{
		flock 8
		echo "=== $name"
		cat "$out"
		echo "=== $name: $verdict ($((SECONDS - t0)) s)"
	} 8>>"$runlog/out.lock"
	printf '%s\t%s\t%s\n' "$verdict" $((SECONDS - t0)) "$name" >>"$runlog/steps.tsv"
	rm -f "$out"
	return "$rc"
}

# vstep NAME CMD...: a VM step that either lane may run: the first lane to
# claim NAME runs it, the other goes on to the next (see "Sharing the VM
# work" below).
vstep() {
	mkdir "$runlog/claim.${1//\//_}" 2>/dev/null || return 0
	step "$@"
}

# skip NAME WHY: a step that could not run counts as failed.
skip() {
	say "=== $1: FAILED (not run: $2)"
	printf 'FAILED\t0\t%s\n' "$1" >>"$runlog/steps.tsv"
}

# ready WHAT [ok|failed] / wait_ready WHAT: one lane tells another that
# WHAT (a kernel, the user space) is built, or could not be.
ready() { echo "$2" >"$runlog/ready-$1.tmp" && mv "$runlog/ready-$1.tmp" "$runlog/ready-$1"; }
wait_ready() {
	while [[ ! -f $runlog/ready-$1 ]]; do sleep 2; done
	[[ $(<"$runlog/ready-$1") == ok ]]
}

# kbuild NAME VAR CMD...: CMD (kernel/build.sh ARGS) as a step; the cache
# dir it prints last goes to the file $runlog/VAR.
kbuild() {
	local name=$1 var=$2
	shift 2
	# shellcheck disable=SC2016  # expanded by the inner bash
	step "$name" bash -c 'd=$("${@:2}" | tail -n1) && [[ -f $d/bzImage ]] &&
		echo "$d" >"$1"' kbuild "$runlog/$var" "$@"
}
kdir() { cat "$runlog/$1"; }

vm() { tests/vm/run-vm.sh "$@"; }

# locked CMD...: CMD with the build directory to itself (the lanes' cmake
# and ctest steps; the VM suites only read what is built).
locked() { flock "$runlog/build.lock" "$@"; }

# sanitized NAME SANITIZERS CMAKE_ARG...: the host code built under
# SANITIZERS (cmake/sanitize.cmake) in $build/NAME, and its ctest, every
# command at nice 19: these steps run beside the kernel builds and the
# VMs, which are the run's critical path.
sanitized() {
	local dir=$build/$1 san=$2
	shift 2
	nice -n 19 cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
		-DFSITER_FAULT_INJECTION=ON -DFSITER_SANITIZE="$san" "$@" &&
		nice -n 19 cmake --build "$dir" -j "$(nproc)" &&
		nice -n 19 ctest --test-dir "$dir" --output-on-failure
}

# vm_kernel_suites VER KDIR: the suites that test the kernel (its series,
# its selftests, the bpffs ACLs, the fs_sb target), on one kernel.
vm_kernel_suites() {
	local v=$1 k=$2
	# memmap=: 64 MiB of the guest's RAM as a pmem device (test_dax).
	vstep "[$v] kernel tests in the VM" vm --kernel-dir "$k" \
		--append 'memmap=64M!1G' \
		--timeout 2400 --mem 4096 --disk 4G -- tests/vm/kernel-tests.sh "$build"
	vstep "[$v] bpffs ACL tests in the VM" vm --kernel-dir "$k" \
		--append lsm=smack --timeout 900 -- tests/vm/acl-tests.sh "$build"
	vstep "[$v] kernel safety rules in the VM" vm --kernel-dir "$k" \
		--timeout 1500 --mem 4096 -- tests/vm/safety-tests.sh "$build"
	vstep "[$v] concurrent readers under churn, 30 s, in the VM" vm \
		--kernel-dir "$k" --timeout 900 -- tests/vm/stress-tests.sh "$build" 30
	# Says SKIP (and passes) on a kernel without the fs_sb target.
	vstep "[$v] whole-filesystem views (fs_sb): cache-summary, cache-top, in the VM" \
		vm --kernel-dir "$k" --timeout 900 -- tests/vm/sb-tests.sh "$build"
}

# vm_tool_suites VER KDIR: the suites that test fsiter-pin over the kernel.
vm_tool_suites() {
	local v=$1 k=$2
	vstep "[$v] fsiter-pin apply, list, remove in the VM" vm --kernel-dir "$k" \
		--timeout 900 -- tests/vm/apply-tests.sh "$build"
	vstep "[$v] apply is atomic: faults, kill -9, concurrency, in the VM" vm \
		--kernel-dir "$k" --timeout 900 -- tests/vm/atomic-tests.sh "$build"
	vstep "[$v] fsiter-pin audit and list in the VM" vm --kernel-dir "$k" \
		--timeout 900 -- tests/vm/audit-tests.sh "$build"
	vstep "[$v] boot and hotplug integration in the VM" vm --kernel-dir "$k" \
		--timeout 900 -- tests/vm/integration-tests.sh "$build"
	vstep "[$v] hostile paths in the VM" vm --kernel-dir "$k" \
		--timeout 900 -- tests/vm/hostile-tests.sh "$build"
}

sb_stress() {
	local v=$1 k=$2
	vstep "[$v] whole-filesystem views under load: 200,000 files, split reads, signals, churn, umount" \
		vm --kernel-dir "$k" --timeout 1200 --mem 4096 -- tests/vm/sb-stress-tests.sh "$build"
}

# --- A stock kernel: Debian's own 6.12, without the series, downloaded and
# given an initramfs by scripts/stock-kernel.sh (cached). apply must refuse
# at once, naming each missing piece (tests/vm/stock-tests.sh).
stock_kernel_tests() {
	local skdir
	skdir=$(scripts/stock-kernel.sh | tail -n1) || return 1
	vm --kernel-dir "$skdir" --timeout 900 -- tests/vm/stock-tests.sh "$build"
}

# --- systemd as PID 1 on 6.12, fsiter-pin installed from the package of the
# "Debian package" step: boot, login, hotplug, a storm of ten hot-added
# disks, reload, metrics, shutdown (tests/vm/systemd-boot.sh,
# docs/systemd.md). Once is enough: the units are the same on both kernels.
systemd_boot_tests() {
	wait_ready deb || { echo "run.sh: the Debian package step failed" >&2; return 1; }
	local debs=("$build"/deb/fsiter-pin_*_amd64.deb)
	[[ -f ${debs[0]} ]] || { echo "run.sh: no package in $build/deb" >&2; return 1; }
	tests/vm/systemd-boot.sh --kernel-dir "$1" --deb "${debs[0]}" --timeout 1800
}

# --- Lane 6.12: its kernel, the user space (built against it), the host
# tests, the package, every VM suite on 6.12, the units, the stock kernel.
lane_612() {
	local k
	if kbuild "kernel 6.12: build (cached if built)" kdir612 kernel/build.sh --kernel 6.12; then
		ready k612 ok
	else
		ready k612 failed
		ready userspace failed
		return
	fi
	k=$(kdir kdir612)
	# The views and fsiter-pin build once, against 6.12's BTF, and run on
	# both kernels (CO-RE); the selftests build for each kernel from its
	# own series: 6.1's once its kernel is built (lane_61).
	# The VM suites inject faults (FSITER_FAULT): a test build.
	if step "build" locked cmake -S . -B "$build" -DFSITER_KERNEL_DIR="$k" \
		-DFSITER_SELFTEST_KERNEL_DIRS="$k" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
		-DFSITER_FAULT_INJECTION=ON &&
		step "compile" locked cmake --build "$build" -j "$(nproc)"; then
		ready userspace ok
	else
		ready userspace failed
		return
	fi
	step "host tests (ctest)" locked ctest --test-dir "$build" --output-on-failure
	# The package stays in $build/deb for the systemd guest (below).
	if step "Debian package: build, lintian, contents" \
		env FSITER_DEB_DIR="$build/deb" tests/deb/run.sh "$k"; then
		ready deb ok
	else
		ready deb failed
	fi
	vm_612_suites "$k"
}

# vm_612_suites KDIR: every VM step on 6.12, in order; both lanes walk it
# (vstep: each step runs once).
vm_612_suites() {
	local k=$1
	vm_kernel_suites 6.12 "$k"
	vm_tool_suites 6.12 "$k"
	sb_stress 6.12 "$k"
	# The units' filters are the same on both kernels; once is enough.
	vstep "[6.12] the units' system call filters, in the VM" vm \
		--kernel-dir "$k" --timeout 900 -- tests/vm/syscall-tests.sh "$build"
	vstep "[6.12] systemd as PID 1: boot, login, hotplug, storm, reload, shutdown" \
		systemd_boot_tests "$k"
}

# --- Lane 6.1: the checks that need no kernel, then the 6.1 kernel (its
# build waits for 6.12's: kernel/build.sh builds one at a time), then
# the 6.1 suites, beside 6.12's.
lane_61() {
	local k
	# Niced: the 6.12 build beside them is on the critical path.
	step "checkpatch --strict, both series" nice -n 10 kernel/checkpatch.sh
	step "shellcheck" nice -n 10 tests/shellcheck.sh
	# What a machine without our kernel builds: fsiter-pin without the
	# views, its ctest (check, cat-config, apply refusing) and install;
	# not the fuzzers' corpus again (the host tests run it).
	step "user space without the views (FSITER_BPF=OFF): build, ctest, install" \
		nice -n 10 bash -c 'cmake -S . -B "$1" -DFSITER_BPF=OFF >/dev/null &&
			cmake --build "$1" -j "$(nproc)" >/dev/null &&
			ctest --test-dir "$1" --output-on-failure -E fuzz-corpus' \
		noviews "$runlog/noviews"
	step "kernel config: 6.1 with Debian's config" \
		nice -n 10 scripts/kernel-deb.sh --kernel 6.1 --config debian --config-only
	step "kernel config: 6.12 with Debian's config" \
		nice -n 10 scripts/kernel-deb.sh --kernel 6.12 --config debian --config-only
	# The unit tests under TSan, while the 6.12 build's last, serial part
	# (vmlinux, BTF) leaves a core idle: the only threads are target_open()'s
	# (src/targets.c, test_targets), and fsiter-pin's command-line tests start
	# none, so this build needs neither the views nor a kernel (FSITER_BPF=OFF).
	step "host tests under TSan" sanitized tsan thread -DFSITER_BPF=OFF
	# Niced: from here on it shares the CPUs with the 6.12 lane's build
	# and suites, which have further to go.
	if kbuild "kernel 6.1: build (cached if built)" kdir61 nice -n 10 kernel/build.sh --kernel 6.1; then
		ready k61 ok
	else
		ready k61 failed
		return
	fi
	k=$(kdir kdir61)
	wait_ready userspace || { skip "[6.1] VM suites" "no user space build"; return; }
	# Every host test under ASan, LeakSanitizer and UBSan: fsiter-pin's
	# command line too, so it needs the views, built against 6.12 (the
	# selftests only run in the VMs: not built).
	step "host tests under ASan+UBSan" sanitized asan address,undefined \
		-DFSITER_KERNEL_DIR="$(kdir kdir612)" -DFSITER_SELFTEST_KERNEL_DIRS=
	step "compile: the 6.1 series' selftests" locked bash -c 'cmake -S . -B "$1" \
		-DFSITER_SELFTEST_KERNEL_DIRS="$2;$3" && cmake --build "$1" -j "$(nproc)"' \
		selftests "$build" "$k" "$(kdir kdir612)" || return
	vm_kernel_suites 6.1 "$k"
	step "stock Debian 6.12 kernel: apply refuses, naming each missing piece" stock_kernel_tests
	if ((full)); then
		vm_tool_suites 6.1 "$k"
		sb_stress 6.1 "$k"
	fi
	# Then the 6.12 steps that lane 6.12 has not begun.
	wait_ready k612 && vm_612_suites "$(kdir kdir612)"
}

# --- What the debug lanes need when the main tier does not run: both
# kernels (their selftests build against them) and the user space.
debug_prep() {
	local k612 k61
	kbuild "kernel 6.12: build (cached if built)" kdir612 \
		kernel/build.sh --kernel 6.12 || return
	kbuild "kernel 6.1: build (cached if built)" kdir61 \
		kernel/build.sh --kernel 6.1 || return
	k612=$(kdir kdir612) k61=$(kdir kdir61)
	step "build" locked cmake -S . -B "$build" -DFSITER_KERNEL_DIR="$k612" \
		-DFSITER_SELFTEST_KERNEL_DIRS="$k612;$k61" \
		-DCMAKE_BUILD_TYPE=RelWithDebInfo -DFSITER_FAULT_INJECTION=ON &&
		step "compile" locked cmake --build "$build" -j "$(nproc)"
}

if ((main)); then
	lane_612 &
	lane_61 &
	wait
elif ! debug_prep; then
	debug=0
fi

if ((full)) && [[ -f $runlog/kdir612 ]]; then
	k=$(kdir kdir612)
	step "[6.12] concurrent readers under churn, 10 min, in the VM" vm \
		--kernel-dir "$k" --timeout 1800 -- tests/vm/stress-tests.sh "$build" 600
	step "[6.12] whole-filesystem views past a million inodes (8 GiB guest)" vm \
		--kernel-dir "$k" --timeout 3600 --mem 8192 -- tests/vm/sb-million-tests.sh "$build"
fi

# Each patch of both series on its own: applied one at a time, the
# objects it touches compiled (kernel/build-each.sh), with the configs of
# the kernels the lanes built.
if ((full)); then
	for v in 6.1 6.12; do
		step "[$v] each patch of the series builds on its own" \
			nice -n 10 kernel/build-each.sh --kernel "$v"
	done
fi

# debug_lane VER: the debug kernel of VER and its suites. The two lanes
# run at once, a VM each (the kernel builds take turns: build.sh builds
# one at a time, so 6.1 builds while 6.12's suites run).
debug_lane() {
	local v=$1 var=dkdir${1//./} dk
	kbuild "kernel $v: debug build (cached if built)" "$var" \
		kernel/build.sh --kernel "$v" --debug || return
	dk=$(kdir "$var")
	step "[$v] kernel tests on the KASAN/kmemleak kernel" vm \
		--kernel-dir "$dk" --append 'memmap=64M!1G' \
		--timeout 5400 --mem 6144 --disk 4G -- \
		tests/vm/kernel-tests.sh "$build"
	step "[$v] a minute of concurrent readers on the KASAN/kmemleak kernel" \
		vm --kernel-dir "$dk" --timeout 2400 --mem 6144 -- \
		tests/vm/stress-tests.sh "$build" 60
	step "[$v] whole-filesystem views (fs_sb) on the KASAN/kmemleak kernel" \
		vm --kernel-dir "$dk" --timeout 2700 --mem 6144 -- \
		tests/vm/sb-tests.sh "$build"
	step "[$v] whole-filesystem views under load on the KASAN/kmemleak kernel" \
		vm --kernel-dir "$dk" --timeout 4800 --mem 6144 -- \
		tests/vm/sb-stress-tests.sh "$build"
}

if ((debug)); then
	debug_lane 6.12 &
	debug_lane 6.1 &
	wait
fi

tests/step-times.sh "$runlog/steps.tsv" docs/testing.md $((SECONDS - t_start))
passed=$(grep -c '^ok' "$runlog/steps.tsv")
failed=$(grep -c '^FAILED' "$runlog/steps.tsv")
echo "$passed passed, $failed failed"
((failed == 0))
