#!/bin/bash
# The main job on the embedded default: build our kernel (cached), boot it
# in QEMU, pin views of a few files as root, and read them as unprivileged
# users. Usage: scripts/demo.sh
#
# Until `fsiter-pin apply` exists ([apply]), the guest pins the views with
# the test helper fsiter-ktool and sets their modes by hand.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
build=${FSITER_BUILD_DIR:-$top/build}

scripts/deps.sh --kernel --vm --build
kdir=$(kernel/build.sh | tail -n1)
cmake -S . -B "$build" -DFSITER_KERNEL_DIR="$kdir" >/dev/null
cmake --build "$build" -j "$(nproc)" >/dev/null
exec tests/vm/run-vm.sh --kernel-dir "$kdir" --timeout 900 --disk 1G -- \
	tests/vm/demo-guest.sh "$build"
