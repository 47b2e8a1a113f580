#!/bin/bash
# The whole-filesystem views (iter/fs_sb) against fincore and vmtouch over
# a tree of up to 100,000 files: build our bench kernel (cached; the test
# kernel without lockdep, kernel/build.sh --bench) and the user space,
# boot the kernel in QEMU with a scratch disk, run bench/sb-guest.sh, print
# its table, and plot the read times against the number of files to
# build/bench/VER/sb.png (gnuplot), the numbers in build/bench/VER/sb.csv.
#
#   bench/sb.sh [--kernel 6.1|6.12 | --kernel-dir DIR]
#
# --kernel-dir boots a kernel already built (kernel/build.sh's output
# directory) instead of building one. FSITER_SB_STEPS: the tree sizes
# (default "10000 25000 50000 100000"). Under QEMU TCG a default run takes
# about 15-25 minutes, most of it in fincore and vmtouch. Compare the
# ratios, not the absolute times; nothing here asserts a time.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
build=${FSITER_BUILD_DIR:-$top/build}

kver=6.1
kdir=
case "${1:-}" in
	--kernel) kver=${2:?bench/sb.sh: --kernel needs 6.1 or 6.12} ;;
	--kernel-dir) kdir=${2:?bench/sb.sh: --kernel-dir needs a directory}; kver=$(basename "$kdir") ;;
	"") ;;
	*) echo "bench/sb.sh: unknown argument '$1' (usage: bench/sb.sh [--kernel 6.1|6.12 | --kernel-dir DIR])" >&2; exit 2 ;;
esac
out=$build/bench/$kver

scripts/deps.sh --vm --build --bench
[[ -n $kdir ]] || { scripts/deps.sh --kernel; kdir=$(kernel/build.sh --kernel "$kver" --bench | tail -n1); }
cmake -S . -B "$build" -DFSITER_KERNEL_DIR="$kdir" >/dev/null
cmake --build "$build" -j "$(nproc)" >/dev/null
mkdir -p "$out"
tests/vm/run-vm.sh --kernel-dir "$kdir" --timeout 3000 --mem 4096 --disk 4G \
	--log "$out/sb-console.log" -- bench/sb-guest.sh "$build" | grep -v '^CSV,' || true
grep -a '^CSV,' "$out/sb-console.log" | tr -d '\r' >"$out/sb.csv"

# sb,FILES,INODES,PAGES,top_ns,fincore_ns,vmtouch_ns,fincore_pages
awk -F, '$2 == "sb" { printf "%s %s %s %s\n", $3, $6 / 1e6, $7 / 1e6, ($8 == "-" ? "NaN" : $8 / 1e6) }' \
	"$out/sb.csv" >"$out/sb.dat"
if [[ -s $out/sb.dat ]]; then
	{
		printf 'set terminal png noenhanced size 900,600\n'
		printf 'set output "%s"\n' "$out/sb.png"
		printf 'set title "Page cache of a tree of files on XFS, all cached (QEMU TCG, median)"\n'
		printf 'set xlabel "files (cached inodes)"\nset ylabel "time (ms)"\nset grid\n'
		printf 'set logscale y\nset key top left\n'
		printf 'plot "%s" using 1:2 with linespoints title "cache-top pin", \\\n' "$out/sb.dat"
		printf '     "%s" using 1:3 with linespoints title "find | xargs fincore", \\\n' "$out/sb.dat"
		printf '     "%s" using 1:4 with linespoints title "vmtouch DIR"\n' "$out/sb.dat"
	} | gnuplot
	echo "bench: plot in $out/sb.png, numbers in $out/sb.csv"
fi
