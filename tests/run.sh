#!/bin/bash
# Runs every test: builds our kernel (cached by kernel/build.sh), builds the
# user space against it, runs the host tests (ctest: the policy parser, the
# engine, the command line), checkpatch on the series, shellcheck on every
# script (tests/shellcheck.sh), then boots the kernel in QEMU and runs the
# VM suites (kernel, bpffs ACLs, fsiter-pin).
#
#   tests/run.sh [--debug]
#
# --debug also builds the debug kernel (kernel/config/debug.config: KASAN,
# kmemleak) and runs the kernel suite and a minute of concurrent readers
# on it; under TCG that takes about three times as long, so CI does not.
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
kdir=$(kernel/build.sh | tail -n1) || { echo "run.sh: kernel build failed" >&2; exit 1; }
[[ -f $kdir/bzImage ]] || { echo "run.sh: no bzImage in '$kdir'" >&2; exit 1; }

step "build" cmake -S . -B "$build" -DFSITER_KERNEL_DIR="$kdir" -DCMAKE_BUILD_TYPE=RelWithDebInfo
step "compile" cmake --build "$build" -j "$(nproc)"
step "host tests (ctest)" ctest --test-dir "$build" --output-on-failure
step "checkpatch --strict" kernel/checkpatch.sh
step "shellcheck" tests/shellcheck.sh
step "Debian package: build, lintian, contents" tests/deb/run.sh "$kdir"
step "kernel config: 6.1 with Debian's config" scripts/kernel-deb.sh --kernel 6.1 --config debian --config-only
step "kernel config: 6.12 with Debian's config" scripts/kernel-deb.sh --kernel 6.12 --config debian --config-only
step "kernel tests in the VM" tests/vm/run-vm.sh --kernel-dir "$kdir" \
	--timeout 2400 --mem 4096 --disk 4G -- tests/vm/kernel-tests.sh "$build"
step "bpffs ACL tests in the VM" tests/vm/run-vm.sh --kernel-dir "$kdir" \
	--timeout 900 -- tests/vm/acl-tests.sh "$build"
step "fsiter-pin apply, list, remove in the VM" tests/vm/run-vm.sh --kernel-dir "$kdir" \
	--timeout 900 -- tests/vm/apply-tests.sh "$build"
step "apply is atomic: faults, kill -9, concurrency, in the VM" tests/vm/run-vm.sh \
	--kernel-dir "$kdir" --timeout 900 -- tests/vm/atomic-tests.sh "$build"
step "fsiter-pin audit and list in the VM" tests/vm/run-vm.sh --kernel-dir "$kdir" \
	--timeout 900 -- tests/vm/audit-tests.sh "$build"
step "the units' system call filters, in the VM" tests/vm/run-vm.sh --kernel-dir "$kdir" \
	--timeout 900 -- tests/vm/syscall-tests.sh "$build"
step "boot and hotplug integration in the VM" tests/vm/run-vm.sh --kernel-dir "$kdir" \
	--timeout 900 -- tests/vm/integration-tests.sh "$build"
step "kernel safety rules in the VM" tests/vm/run-vm.sh --kernel-dir "$kdir" \
	--timeout 1500 --mem 4096 -- tests/vm/safety-tests.sh "$build"
step "hostile paths in the VM" tests/vm/run-vm.sh --kernel-dir "$kdir" \
	--timeout 900 -- tests/vm/hostile-tests.sh "$build"
step "concurrent readers under churn, 30 s, in the VM" tests/vm/run-vm.sh --kernel-dir "$kdir" \
	--timeout 900 -- tests/vm/stress-tests.sh "$build" 30

if (( debug )); then
	dkdir=$(kernel/build.sh --debug | tail -n1) || { echo "run.sh: debug kernel build failed" >&2; exit 1; }
	step "kernel tests on the KASAN/kmemleak kernel" tests/vm/run-vm.sh --kernel-dir "$dkdir" \
		--timeout 5400 --mem 6144 --disk 4G -- tests/vm/kernel-tests.sh "$build"
	step "a minute of concurrent readers on the KASAN/kmemleak kernel" tests/vm/run-vm.sh \
		--kernel-dir "$dkdir" --timeout 2400 --mem 6144 -- tests/vm/stress-tests.sh "$build" 60
fi

echo "$passed passed, $failed failed"
(( failed == 0 ))
