#!/bin/bash
# The benchmarks, in one command: build our kernel (cached) and the user
# space, boot the kernel in QEMU, run bench/guest.sh, print its table, and
# plot the read times to build/bench/reads.png (gnuplot).
#
#   bench/run.sh
#
# Times are medians of repeated in-process runs (bench_read), under QEMU
# TCG: compare the ratios, not the absolute numbers. Nothing here asserts
# a time; docs/performance.md records a run.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
build=${FSITER_BUILD_DIR:-$top/build}
out=$build/bench

scripts/deps.sh --kernel --vm --build gnuplot-nox
kdir=$(kernel/build.sh | tail -n1)
cmake -S . -B "$build" -DFSITER_KERNEL_DIR="$kdir" >/dev/null
cmake --build "$build" -j "$(nproc)" >/dev/null
mkdir -p "$out"
tests/vm/run-vm.sh --kernel-dir "$kdir" --timeout 3000 --mem 4096 --disk 4G \
	--log "$out/console.log" -- bench/guest.sh "$build" | grep -v '^CSV,' || true
grep -a '^CSV,' "$out/console.log" | tr -d '\r' >"$out/results.csv"

# read,SIZE,cache_ns,mincore_ns,inode_ns,folios,cached
awk -F, '$2 == "read" && $3 ~ /^[0-9]+$/ { printf "%s %s %s %s\n", $3, $4 / 1e6, $5 / 1e6, $6 / 1e6 }' \
	"$out/results.csv" >"$out/reads.dat"
if [[ -s $out/reads.dat ]]; then
	gnuplot <<G
set terminal png size 900,600
set output "$out/reads.png"
set title "Reading a fully cached file's page-cache state (QEMU TCG, median)"
set xlabel "file size (MiB)"
set ylabel "time (ms)"
set logscale xy
set key top left
set grid
plot "$out/reads.dat" using 1:2 with linespoints title "cache view", \
     "$out/reads.dat" using 1:3 with linespoints title "fincore (mincore)", \
     "$out/reads.dat" using 1:4 with linespoints title "inode view (every folio)"
G
	echo "bench: plot in $out/reads.png, numbers in $out/results.csv"
fi
