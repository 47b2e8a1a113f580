#!/bin/bash
# Guest side of bench/sb.sh: the whole-filesystem views (iter/fs_sb)
# against the tools that answer the same question file by file. On a
# scratch XFS (/dev/vda, at least 3 GiB), a tree of files of mixed sizes
# grows in steps (FSITER_SB_STEPS, default 10000 25000 50000 100000
# files), all cached; at each step, in one run, it times:
#   - a read of a cache-top pin (pinned by fsiter-pin apply; bench_read,
#     median of in-process reads),
#   - find DIR -type f -print0 | xargs -0 fincore (median of wall times),
#   - vmtouch DIR (median of wall times).
# Then the same 100k tree with only every 10th file cached, big files
# against small ones, and the kernel's Slab across 20 reads. Prints a
# table, and "CSV,..." lines that sb.sh plots. No time is asserted.
# Usage: sb-guest.sh BUILD_DIR
set -uo pipefail
build=$(cd "${1:?usage: sb-guest.sh BUILD_DIR}" && pwd)
br=$build/bench/bench_read
tool=$build/src/fsiter-pin
pins=/sys/fs/bpf/fsiter
read -r -a steps <<<"${FSITER_SB_STEPS:-10000 25000 50000 100000}"
d=/run/sb/xfs
tree=$d/tree

if ! grep -qa bpf_iter_fs_sb /sys/kernel/btf/vmlinux; then
	echo "SKIP: this kernel ($(uname -r)) has no iter/fs_sb target"
	exit 0
fi
command -v vmtouch >/dev/null || echo "note: no vmtouch on the host (scripts/deps.sh vmtouch); not timed"
mkdir -p $d
mkfs.xfs -q -f /dev/vda && mount /dev/vda $d || { echo "cannot mount the scratch disk"; exit 1; }
mkdir -p $tree

csv() { echo "CSV,$*"; }
ms() { awk -v n="$1" 'BEGIN { printf "%.1f", n / 1e6 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a > 0 && b > 0) printf "%.3g", a / b; else print "-" }'; }
slab_kb() { awk '$1 == "Slab:" { print $2 }' /proc/meminfo; }
now() { date +%s%N; }
# median N...: of integers
median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# wall REPS CMD...: median wall time of CMD in ns, its output thrown away.
wall() {
	local reps=$1 i t0 ts=()
	shift
	for ((i = 0; i < reps; i++)); do
		t0=$(now)
		"$@" >/dev/null 2>&1
		ts+=($(($(now) - t0)))
	done
	median "${ts[@]}"
}
fincore_tree() { find "$1" -type f -print0 | xargs -0 fincore -n -b -o PAGES; }
fincore_pages() { find "$1" -type f -print0 | xargs -0 fincore -n -b -o PAGES | awk '{ n += $1 } END { print n + 0 }'; }
top_ns() { "$br" pin $pins/sbtop "$1" | awk '{ print $2 }'; }
field() { awk -v k="$1" '$1 == k { print $2; exit }'; }
# grow FROM TO: files FROM..TO-1 under $tree, 1000 a directory. Most are
# one page, every 10th 8 pages, every 100th 64 pages (2.3 pages a file).
grow() {
	python3 - "$tree" "$1" "$2" <<'PY'
import os, sys
top, a, b = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
buf = b"x" * (64 * 4096)
for i in range(a, b):
    sub = "%s/d%03d" % (top, i // 1000)
    if i % 1000 == 0 or not os.path.isdir(sub):
        os.makedirs(sub, exist_ok=True)
    n = 64 if i % 100 == 0 else 8 if i % 10 == 0 else 1
    fd = os.open("%s/f%d" % (sub, i), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.write(fd, buf[: n * 4096])
    os.close(fd)
PY
}
# reps for a tree of N files: the per-file tools are slow under TCG.
wreps() { if (($1 <= 10000)); then echo 3; else echo 1; fi; }

# sbsum gives the counts of the tables: its totals need expose-totals
# (without, they read "-", even to root).
cat >/run/sb/policy.conf <<P
cache-top      sbtop  $d  0400 - - - top=20
cache-summary  sbsum  $d  0400 - - - expose-totals
P
"$tool" apply /run/sb/policy.conf >/dev/null || { echo "apply failed"; exit 1; }

echo "== a tree of files on XFS, all cached: time against number of files"
printf '%8s %9s %9s | %10s %12s %12s | %9s %9s\n' files "cached" "pages" \
	"top ms" "fincore ms" "vmtouch ms" "fincore/" "vmtouch/"
printf '%8s %9s %9s | %10s %12s %12s | %9s %9s\n' "" inodes "" "" "" "" top top
have=0
for n in "${steps[@]}"; do
	grow "$have" "$n"
	have=$n
	sync
	find $tree -type f -print0 | xargs -0 cat >/dev/null	# all cached
	sum=$(cat $pins/sbsum)
	inodes=$(field cache.inodes <<<"$sum")
	pages=$(field cache.cached <<<"$sum")
	fp=$(fincore_pages $tree)
	t=$(top_ns 11)
	f=$(wall "$(wreps "$n")" fincore_tree $tree)
	v=-
	command -v vmtouch >/dev/null && v=$(wall "$(wreps "$n")" vmtouch $tree)
	printf '%8s %9s %9s | %10s %12s %12s | %9s %9s\n' "$n" "$inodes" "$pages" \
		"$(ms "$t")" "$(ms "$f")" "$([[ $v == - ]] && echo - || ms "$v")" \
		"$(ratio "$f" "$t")x" "$(ratio "$v" "$t")x"
	[[ $fp == "$pages" ]] || echo "  note: fincore counted $fp pages, cache-summary $pages"
	csv "sb,$n,$inodes,$pages,$t,$f,$v,$fp"
done
echo "(cached inodes and pages: cache-summary's; ratios within this run)"

echo
echo "== the $have-file tree with every 10th file cached, against all cached"
sync && echo 3 >/proc/sys/vm/drop_caches
find $tree -type f -name 'f*0' -print0 | xargs -0 cat >/dev/null
sum=$(cat $pins/sbsum)
inodes=$(field cache.inodes <<<"$sum")
pages=$(field cache.cached <<<"$sum")
t=$(top_ns 11)
f=$(wall 1 fincore_tree $tree)
v=-
command -v vmtouch >/dev/null && v=$(wall 1 vmtouch $tree)
printf '%8s %9s %9s | %10s %12s %12s | %9s %9s\n' "$have/10" "$inodes" "$pages" \
	"$(ms "$t")" "$(ms "$f")" "$([[ $v == - ]] && echo - || ms "$v")" \
	"$(ratio "$f" "$t")x" "$(ratio "$v" "$t")x"
csv "part,$have,$inodes,$pages,$t,$f,$v"

echo
echo "== memory: Slab before and after 20 reads of cache-top, 20 of cache-summary"
find $tree -type f -print0 | xargs -0 cat >/dev/null
cat $pins/sbtop >/dev/null
s0=$(slab_kb)
for _ in $(seq 1 20); do cat $pins/sbtop >/dev/null; cat $pins/sbsum >/dev/null; done
s1=$(slab_kb)
echo "Slab: $s0 kB -> $s1 kB ($((s1 - s0)) kB), $(field cache.inodes <$pins/sbsum) cached inodes"
csv "slab,$s0,$s1"

echo
echo "== big files against small: 16 files of 32 MiB, the tree removed"
rm -rf $tree
sync && echo 3 >/proc/sys/vm/drop_caches
mkdir -p $d/big
for i in $(seq 1 16); do
	dd if=/dev/zero of="$d/big/b$i" bs=1M count=32 status=none
done
sync
cat $d/big/* >/dev/null
sum=$(cat $pins/sbsum)
inodes=$(field cache.inodes <<<"$sum")
pages=$(field cache.cached <<<"$sum")
t=$(top_ns 11)
f=$(wall 3 fincore_tree $d/big)
v=-
command -v vmtouch >/dev/null && v=$(wall 3 vmtouch $d/big)
printf '%8s %9s %9s | %10s %12s %12s | %9s %9s\n' "16 big" "$inodes" "$pages" \
	"$(ms "$t")" "$(ms "$f")" "$([[ $v == - ]] && echo - || ms "$v")" \
	"$(ratio "$f" "$t")x" "$(ratio "$v" "$t")x"
csv "big,16,$inodes,$pages,$t,$f,$v"
"$tool" remove --all >/dev/null
umount $d
