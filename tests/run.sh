#!/bin/bash
# Runs every test: builds our kernel (cached by kernel/build.sh), builds the
# user space against it, runs the host tests (ctest), checkpatch on the
# series, then boots the kernel in QEMU and runs the VM suites.
#
#   tests/run.sh [--keep-going]
#
# Exits non-zero if anything failed; the last line is "N passed, N failed"
# over the suites.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2

build=${FSITER_BUILD_DIR:-$top/build}
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
step "checkpatch --strict" kernel/checkpatch.sh
step "kernel tests in the VM" tests/vm/run-vm.sh --kernel-dir "$kdir" \
	--timeout 2400 --mem 4096 --disk 4G -- tests/vm/kernel-tests.sh "$build"
step "bpffs ACL tests in the VM" tests/vm/run-vm.sh --kernel-dir "$kdir" \
	--timeout 900 -- tests/vm/acl-tests.sh "$build"

echo "$passed passed, $failed failed"
(( failed == 0 ))
