#!/bin/bash
# Runs every test: builds both kernels, 6.1 and 6.12, each with its series
# (cached by kernel/build.sh), builds the user space once, runs the host
# tests (ctest: the policy parser, the engine, the command line),
# checkpatch on both series, shellcheck on every script
# (tests/shellcheck.sh), then boots each kernel in QEMU and runs every VM
# suite on it (kernel, bpffs ACLs, fsiter-pin, whole-filesystem views).
#
#   tests/run.sh [--debug]
#
# --debug also builds the debug kernels (kernel/config/debug.config: KASAN,
# kmemleak) and runs the kernel suite, a minute of concurrent readers and
# the two whole-filesystem suites on each; under TCG that takes about
# three times as long, so CI does not.
#
# Exits non-zero if anything failed; the last line is "N passed, N failed"
# over the suites.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2

build=${FSITER_BUILD_DIR:-$top/build}
debug=0
case "${1:-}" in
	--debug) debug=1 ;;
	"") ;;
	*) echo "run.sh: unknown argument '$1' (usage: tests/run.sh [--debug])" >&2; exit 2 ;;
esac
passed=0 failed=0
step() {
	local name=$1
	shift
	echo "=== $name"
	if "$@"; then
		passed=$((passed + 1)); echo "=== $name: ok"
	else
		failed=$((failed + 1)); echo "=== $name: FAILED"
	fi
}

scripts/deps.sh --kernel --vm --build || exit 2
# Both kernels, each with its own series. The views and fsiter-pin build
# once, against 6.12's BTF, and run on both (CO-RE); the selftests build
# for each kernel from its own series.
kbuild() {
	local dir
	dir=$(kernel/build.sh "$@" | tail -n1) && [[ -f $dir/bzImage ]] ||
		{ echo "run.sh: kernel build failed: kernel/build.sh $*" >&2; exit 1; }
	echo "$dir"
}
kdir61=$(kbuild --kernel 6.1) || exit 1
kdir612=$(kbuild --kernel 6.12) || exit 1

step "build" cmake -S . -B "$build" -DFSITER_KERNEL_DIR="$kdir612" \
	-DFSITER_SELFTEST_KERNEL_DIRS="$kdir61;$kdir612" -DCMAKE_BUILD_TYPE=RelWithDebInfo
step "compile" cmake --build "$build" -j "$(nproc)"
step "host tests (ctest)" ctest --test-dir "$build" --output-on-failure
step "checkpatch --strict, both series" kernel/checkpatch.sh
step "shellcheck" tests/shellcheck.sh
# The package stays in $build/deb for the systemd guest (below).
step "Debian package: build, lintian, contents" \
	env FSITER_DEB_DIR="$build/deb" tests/deb/run.sh "$kdir612"
step "kernel config: 6.1 with Debian's config" scripts/kernel-deb.sh --kernel 6.1 --config debian --config-only
step "kernel config: 6.12 with Debian's config" scripts/kernel-deb.sh --kernel 6.12 --config debian --config-only

# vm_suites VER KDIR: every VM suite on one kernel.
vm_suites() {
	local v=$1 k=$2
	step "[$v] kernel tests in the VM" tests/vm/run-vm.sh --kernel-dir "$k" \
		--timeout 2400 --mem 4096 --disk 4G -- tests/vm/kernel-tests.sh "$build"
	step "[$v] bpffs ACL tests in the VM" tests/vm/run-vm.sh --kernel-dir "$k" \
		--timeout 900 -- tests/vm/acl-tests.sh "$build"
	step "[$v] fsiter-pin apply, list, remove in the VM" tests/vm/run-vm.sh --kernel-dir "$k" \
		--timeout 900 -- tests/vm/apply-tests.sh "$build"
	step "[$v] apply is atomic: faults, kill -9, concurrency, in the VM" tests/vm/run-vm.sh \
		--kernel-dir "$k" --timeout 900 -- tests/vm/atomic-tests.sh "$build"
	step "[$v] fsiter-pin audit and list in the VM" tests/vm/run-vm.sh --kernel-dir "$k" \
		--timeout 900 -- tests/vm/audit-tests.sh "$build"
	step "[$v] boot and hotplug integration in the VM" tests/vm/run-vm.sh --kernel-dir "$k" \
		--timeout 900 -- tests/vm/integration-tests.sh "$build"
	step "[$v] kernel safety rules in the VM" tests/vm/run-vm.sh --kernel-dir "$k" \
		--timeout 1500 --mem 4096 -- tests/vm/safety-tests.sh "$build"
	step "[$v] hostile paths in the VM" tests/vm/run-vm.sh --kernel-dir "$k" \
		--timeout 900 -- tests/vm/hostile-tests.sh "$build"
	step "[$v] concurrent readers under churn, 30 s, in the VM" tests/vm/run-vm.sh \
		--kernel-dir "$k" --timeout 900 -- tests/vm/stress-tests.sh "$build" 30
	# Says SKIP (and passes) on a kernel without the fs_sb target.
	step "[$v] whole-filesystem views (fs_sb): cache-summary, cache-top, in the VM" \
		tests/vm/run-vm.sh --kernel-dir "$k" --timeout 900 -- tests/vm/sb-tests.sh "$build"
	step "[$v] whole-filesystem views under load: 200,000 files, split reads, signals, churn, umount" \
		tests/vm/run-vm.sh --kernel-dir "$k" --timeout 1200 --mem 4096 -- tests/vm/sb-stress-tests.sh "$build"
}
vm_suites 6.1 "$kdir61"
vm_suites 6.12 "$kdir612"
# The units' filters are the same on both kernels; once is enough.
step "[6.12] the units' system call filters, in the VM" tests/vm/run-vm.sh \
	--kernel-dir "$kdir612" --timeout 900 -- tests/vm/syscall-tests.sh "$build"

# --- A stock kernel: Debian's own 6.12, without the series, downloaded and
# given an initramfs by scripts/stock-kernel.sh (cached). apply must refuse
# at once, naming each missing piece (tests/vm/stock-tests.sh).
stock_kernel_tests() {
	local skdir
	skdir=$(scripts/stock-kernel.sh | tail -n1) || return 1
	tests/vm/run-vm.sh --kernel-dir "$skdir" --timeout 900 -- tests/vm/stock-tests.sh "$build"
}
step "stock Debian 6.12 kernel: apply refuses, naming each missing piece" stock_kernel_tests
# --- End of the stock kernel.

# --- systemd as PID 1 on 6.12, fsiter-pin installed from the package of the
# "Debian package" step: boot, login, hotplug, a storm of ten hot-added
# disks, reload, metrics, shutdown (tests/vm/systemd-boot.sh,
# docs/systemd.md). Once is enough: the units are the same on both kernels.
systemd_boot_tests() {
	local debs=("$build"/deb/fsiter-pin_*_amd64.deb)
	[[ -f ${debs[0]} ]] || { echo "run.sh: no package in $build/deb" >&2; return 1; }
	tests/vm/systemd-boot.sh --kernel-dir "$kdir612" --deb "${debs[0]}" --timeout 1800
}
step "[6.12] systemd as PID 1: boot, login, hotplug, storm, reload, shutdown" systemd_boot_tests
# --- End of the systemd guest.

if (( debug )); then
	for v in 6.1 6.12; do
		dkdir=$(kbuild --kernel "$v" --debug) || exit 1
		step "[$v] kernel tests on the KASAN/kmemleak kernel" tests/vm/run-vm.sh \
			--kernel-dir "$dkdir" --timeout 5400 --mem 6144 --disk 4G -- \
			tests/vm/kernel-tests.sh "$build"
		step "[$v] a minute of concurrent readers on the KASAN/kmemleak kernel" \
			tests/vm/run-vm.sh --kernel-dir "$dkdir" --timeout 2400 --mem 6144 -- \
			tests/vm/stress-tests.sh "$build" 60
		step "[$v] whole-filesystem views (fs_sb) on the KASAN/kmemleak kernel" \
			tests/vm/run-vm.sh --kernel-dir "$dkdir" --timeout 2700 --mem 6144 -- \
			tests/vm/sb-tests.sh "$build"
		step "[$v] whole-filesystem views under load on the KASAN/kmemleak kernel" \
			tests/vm/run-vm.sh --kernel-dir "$dkdir" --timeout 4800 --mem 6144 -- \
			tests/vm/sb-stress-tests.sh "$build"
	done
fi

echo "$passed passed, $failed failed"
(( failed == 0 ))
