#!/bin/bash
# The main job on the embedded default: build our kernel (cached), boot it
# in QEMU, apply policy/example.conf with fsiter-pin as root, and read the
# pins as unprivileged users, ending with what they see: cat of each view,
# the refusals, show --json, list and audit. Prints its own time.
# Usage: scripts/demo.sh
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
build=${FSITER_BUILD_DIR:-$top/build}

scripts/deps.sh --kernel --vm --build
kdir=$(kernel/build.sh | tail -n1)
cmake -S . -B "$build" -DFSITER_KERNEL_DIR="$kdir" >/dev/null
cmake --build "$build" -j "$(nproc)" >/dev/null
rc=0
tests/vm/run-vm.sh --kernel-dir "$kdir" --timeout 900 --disk 1G -- \
	tests/vm/demo-guest.sh "$build" || rc=$?
echo "demo: $((SECONDS / 60)) min $((SECONDS % 60)) s, exit $rc"
exit "$rc"
