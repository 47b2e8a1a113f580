#!/bin/bash
# The benchmarks, in one command: build our bench kernel (cached; the test
# kernel without lockdep, kernel/build.sh --bench) and the user space, boot
# the kernel in QEMU, run bench/guest.sh, print its table, and
# plot the read times to build/bench/reads.png and the cost per folio of
# the two folio walks to build/bench/walk.png (gnuplot).
#
#   bench/run.sh [--kernel 6.1|6.12]
#
# On 6.12 it also times the cache view against cachestat(2) and the mount
# view against statmount(2).
#
# Times are medians of repeated in-process runs (bench_read), under QEMU
# TCG: compare the ratios, not the absolute numbers. Nothing here asserts
# a time; docs/performance.md records a run.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
build=${FSITER_BUILD_DIR:-$top/build}
out=$build/bench

kver=6.1
case "${1:-}" in
	--kernel) kver=${2:?bench/run.sh: --kernel needs 6.1 or 6.12} ;;
	"") ;;
	*) echo "bench/run.sh: unknown argument '$1' (usage: bench/run.sh [--kernel 6.1|6.12])" >&2; exit 2 ;;
esac
out=$out/$kver

scripts/deps.sh --kernel --vm --build --bench
kdir=$(kernel/build.sh --kernel "$kver" --bench | tail -n1)
cmake -S . -B "$build" -DFSITER_KERNEL_DIR="$kdir" >/dev/null
cmake --build "$build" -j "$(nproc)" >/dev/null
mkdir -p "$out"
tests/vm/run-vm.sh --kernel-dir "$kdir" --timeout 3000 --mem 4096 --disk 4G \
	--log "$out/console.log" -- bench/guest.sh "$build" | grep -v '^CSV,' || true
grep -a '^CSV,' "$out/console.log" | tr -d '\r' >"$out/results.csv"

# plot PNG TITLE XLABEL YLABEL: run gnuplot on the settings and plot
# command on stdin, after what every plot here shares.
plot() {
	{
		printf 'set terminal png noenhanced size 900,600\n'
		printf 'set output "%s"\nset title "%s"\n' "$1" "$2"
		printf 'set xlabel "%s"\nset ylabel "%s"\nset grid\n' "$3" "$4"
		cat
	} | gnuplot
}

# read,SIZE,cache_ns,mincore_ns,inode_ns,folios,cached
awk -F, '$2 == "read" && $3 ~ /^[0-9]+$/ { printf "%s %s %s %s\n", $3, $4 / 1e6, $5 / 1e6, $6 / 1e6 }' \
	"$out/results.csv" >"$out/reads.dat"
if [[ -s $out/reads.dat ]]; then
	plot "$out/reads.png" "Reading a fully cached file's page-cache state (QEMU TCG, median)" \
		"file size (MiB)" "time (ms)" <<G
set logscale xy
set key top left
plot "$out/reads.dat" using 1:2 with linespoints title "cache view", \
     "$out/reads.dat" using 1:3 with linespoints title "fincore (mincore)", \
     "$out/reads.dat" using 1:4 with linespoints title "inode view (every folio)"
G
	echo "bench: plot in $out/reads.png, numbers in $out/results.csv"
fi

# walk,SIZE,folios,loop_ns,batch_ns,count_loop_ns,count_batch_ns,same
awk -F, '$2 == "walk" && $4 > 0 { printf "%s %s %s %s %s\n", $4, $5 / $4 / 1e3, $6 / $4 / 1e3, $7 / $4 / 1e3, $8 / $4 / 1e3 }' \
	"$out/results.csv" >"$out/walk.dat"
if [[ -s $out/walk.dat ]]; then
	plot "$out/walk.png" \
		"Listing folios: find_present + get_order per folio vs bpf_filemap_get_folios (QEMU TCG)" \
		"folios listed" "time per folio (us)" <<G
set logscale x
set yrange [0:*]
set key top right
plot "$out/walk.dat" using 1:2 with points pt 7 title "loop, printing", \
     "$out/walk.dat" using 1:3 with points pt 5 title "batch, printing (the inode view)", \
     "$out/walk.dat" using 1:4 with points pt 6 title "loop, walk only", \
     "$out/walk.dat" using 1:5 with points pt 4 title "batch, walk only"
G
	echo "bench: folio walks in $out/walk.png"
fi
