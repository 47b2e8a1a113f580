#!/bin/bash
# Guest side of bench/run.sh: measure, in one run, the views against their
# baselines, and apply against the bare system calls. Prints a table, and
# "CSV,..." lines that run.sh plots. Runs as root in the test VM, with a
# scratch disk of at least 3 GiB on /dev/vda.
# Usage: guest.sh BUILD_DIR
#
# FSITER_BENCH_SPARSE: size of the sparse file fincore is timed on (default
# 64G). Under QEMU TCG mincore() costs about 3.5 us a page, so fincore on
# the full 1T takes about 16 minutes; the views are also timed on a 1T file.
set -uo pipefail
sparse_size=${FSITER_BENCH_SPARSE:-64G}
build=$(cd "${1:?usage: guest.sh BUILD_DIR}" && pwd)
br=$build/bench/bench_read
tool=$build/src/fsiter-pin
ktool=$build/tests/kernel/fsiter-ktool
rfc=$build/tests/kernel/bpf_iter_fs.bpf.o
walk=$build/bench/folio_walk.bpf.o
empty=$build/bench/empty_iter.bpf.o
pins=/sys/fs/bpf/fsiter
rfcpins=/sys/fs/bpf/bench
d=/run/b/xfs
mkdir -p $d $rfcpins
mkfs.xfs -q -f /dev/vda && mount /dev/vda $d

ns() { awk '{ print $2 }'; }           # "ns N ..." -> N
val() { awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }'; }
key() { awk -v k="$1" '$1 == k { print $2 }'; }   # a view's "KEY VALUE" line -> VALUE
csv() { echo "CSV,$*"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a > 0 && b > 0) printf "%.3g", a / b; else print "-" }'; }
ms() { awk -v n="$1" 'BEGIN { printf "%.3f", n / 1e6 }'; }
slab_kb() { awk '$1 == "Slab:" { print $2 }' /proc/meminfo; }
# The files are named by size: 1, 64, 1024 (MiB), sparse and tera.
file_of() { case $1 in sparse | tera) echo $d/$1 ;; *) echo $d/f$1 ;; esac; }
label_of() { case $1 in sparse) echo "$sparse_size sparse" ;; tera) echo "1T sparse" ;; *) echo "$1 MiB" ;; esac; }
# Repetitions per timing: fewer as the file grows.
reps_of() { case $1 in 1) echo 21 ;; 64) echo 11 ;; 1024) echo 5 ;; *) echo 3 ;; esac; }

echo "== files: fully cached 1 MiB, 64 MiB, 1 GiB; sparse files of $sparse_size and 1 TiB with 64 MiB cached"
for s in 1 64 1024; do
	dd if=/dev/urandom of=$d/f$s bs=1M count=$s status=none
done
# 64 x 1 MiB, spread over the whole file
sparse_mib=$(( $(numfmt --from=iec "$sparse_size") >> 20 ))
for f in sparse:$sparse_mib tera:$((1 << 20)); do
	truncate -s $(( ${f#*:} << 20 )) $d/${f%:*}
	for i in $(seq 0 63); do
		dd if=/dev/urandom of=$d/${f%:*} bs=1M count=1 conv=notrunc status=none \
			seek=$(( i * (${f#*:} / 64) + RANDOM % (${f#*:} / 64 - 1) ))
	done
done
sync && echo 3 >/proc/sys/vm/drop_caches
for s in 1 64 1024; do cat $d/f$s >/dev/null; done	# readahead: large folios
cat >/run/b/policy.conf <<P
cache c1 $d/f1 0400
inode i1 $d/f1 0400
cache c64 $d/f64 0400
inode i64 $d/f64 0400
cache c1024 $d/f1024 0400
inode i1024 $d/f1024 0400
cache csparse $d/sparse 0400
inode isparse $d/sparse 0400
cache ctera $d/tera 0400
inode itera $d/tera 0400
mount mxfs $d 0400
P
"$tool" apply /run/b/policy.conf >/dev/null || { echo "apply failed"; exit 1; }
# The sparse file: re-read its written ranges so that 64 MiB are cached.
for f in sparse tera; do python3 - "$d/$f" <<'PY'
import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
pos = 0
while True:
    try:
        pos = os.lseek(fd, pos, os.SEEK_DATA)
    except OSError:
        break
    end = os.lseek(fd, pos, os.SEEK_HOLE)
    while pos < end:
        pos += len(os.pread(fd, 1 << 20, pos)) or end
os.close(fd)
PY
done
for s in 1 64 1024; do
	"$ktool" pin "$rfc" dump_inode $d/f$s $rfcpins/r$s 2>/dev/null
done

echo
printf '%-14s %10s %10s %10s %8s | %10s %10s %8s %10s | %10s %s\n' file cached \
	"cache ms" "fincore ms" ratio "inode ms" folios "ns/folio" "vs cache" "rfc ms" ""
for s in 1 64 1024 sparse tera; do
	reps=$(reps_of $s)
	f=$(file_of $s)
	c=$("$br" pin $pins/c$s $reps)
	i=$("$br" pin $pins/i$s $reps)
	if [[ $s == tera ]]; then
		m="ns 0 resident -"	# see FSITER_BENCH_SPARSE
	else
		m=$("$br" mincore $f "$([[ $s == sparse ]] && echo 1 || echo $reps)")
	fi
	cached=$(cat $pins/c$s | key cache.cached)
	folios=$(val folios <<<"$i")
	if [[ -e $rfcpins/r$s ]] && r=$("$br" pin $rfcpins/r$s $reps 2>&1); then
		rt=$(ms "$(ns <<<"$r")")
	else
		rt="-"; [[ -e $rfcpins/r$s ]] && rt="fails"
	fi
	per=$(awk -v t="$(ns <<<"$i")" -v n="$folios" 'BEGIN { if (n) printf "%.0f", t / n; else print "-" }')
	printf '%-14s %10s %10s %10s %8s | %10s %10s %8s %10s | %10s\n' \
		"$(label_of $s)" "$cached" \
		"$(ms "$(ns <<<"$c")")" "$(ms "$(ns <<<"$m")")" "$(ratio "$(ns <<<"$m")" "$(ns <<<"$c")")x" \
		"$(ms "$(ns <<<"$i")")" "$folios" "$per" "$(ratio "$(ns <<<"$i")" "$(ns <<<"$c")")x" "$rt"
	[[ $s == tera || $(val resident <<<"$m") == "$cached" ]] ||
		echo "  note: fincore counted $(val resident <<<"$m") pages"
	csv "read,$s,$(ns <<<"$c"),$(ns <<<"$m"),$(ns <<<"$i"),$folios,$cached"
done
echo "(ratio: fincore time / cache view time; vs cache: inode view time / cache view time;"
echo " rfc: the RFC's dump_inode, which lists folios with one find_present per folio in one run)"

echo
echo "== folio walk: the RFC's find_present + get_order per folio (loop) against"
echo "   bpf_filemap_get_folios(), one walk per batch of 16 folios (batch), window by"
echo "   window as the inode view walks"
printf '%-14s %8s | %10s %10s %8s | %10s %10s %8s | %s\n' file folios \
	"loop ms" "batch ms" "ratio" "walk-only" "walk-only" "ratio" "same"
printf '%-14s %8s | %10s %10s %8s | %10s %10s %8s |\n' "" "" "(prints)" "(prints)" "" \
	"loop ms" "batch ms" ""
for s in 1 64 1024 sparse tera; do
	reps=$(reps_of $s)
	f=$(file_of $s)
	t=()
	for p in walk_loop walk_batch count_loop count_batch; do
		"$ktool" pin "$walk" $p "$f" $rfcpins/$p$s ||
			{ echo "cannot pin $p on $f"; continue 2; }
		t+=("$("$br" pin $rfcpins/$p$s $reps | ns)")
	done
	# The two walks must list the same folios, and count as many.
	# (The loop's lines have no dirty or writeback flags: compare the rest.)
	same=no
	for p in walk_loop walk_batch; do cut -d' ' -f1-3 $rfcpins/$p$s >/run/b/$p; done
	cmp -s /run/b/walk_loop /run/b/walk_batch &&
		[[ $(awk '{ n += $4 } END { print n }' $rfcpins/count_loop$s) == \
		   $(awk '{ n += $4 } END { print n }' $rfcpins/count_batch$s) ]] && same=yes
	folios=$(grep -c '^folio ' $rfcpins/walk_batch$s)
	printf '%-14s %8s | %10s %10s %8s | %10s %10s %8s | %s\n' \
		"$(label_of $s)" \
		"$folios" "$(ms "${t[0]}")" "$(ms "${t[1]}")" "$(ratio "${t[0]}" "${t[1]}")x" \
		"$(ms "${t[2]}")" "$(ms "${t[3]}")" "$(ratio "${t[2]}" "${t[3]}")x" "$same"
	csv "walk,$s,$folios,${t[0]},${t[1]},${t[2]},${t[3]},$same"
	rm -f $rfcpins/{walk,count}_{loop,batch}$s
done
echo "(ratio: loop time / batch time; walk-only: one line per window instead of one per"
echo " folio; same: both walks listed the same folios. The inode view uses the batch.)"

echo
mnt=$(cat $pins/mxfs | awk '$1 == "mnt.id" { print $2 }')
mv=$("$br" pin $pins/mxfs 51)
mi=$("$br" mountinfo "$mnt" 51)
printf 'mount view: %s ms; its line of /proc/self/mountinfo: %s ms (%s lines); ratio %sx\n' \
	"$(ms "$(ns <<<"$mv")")" "$(ms "$(ns <<<"$mi")")" "$(val lines <<<"$mi")" \
	"$(ratio "$(ns <<<"$mv")" "$(ns <<<"$mi")")"
csv "mount,$(ns <<<"$mv"),$(ns <<<"$mi")"

# cachestat(2) (6.5) and statmount(2) (6.8): on 6.12, the syscalls that do
# what the cache and mount views do, timed the same way.
if "$br" statmount $d 1 >/dev/null 2>&1; then
	echo
	echo "== the cache view against cachestat(2): open the pin, read, close against open"
	echo "   the file, cachestat() over all of it, close"
	printf '%-14s %10s %12s %14s %8s
' file cached "cache ms" "cachestat ms" ratio
	for s in 1 64 1024 sparse tera; do
		reps=$(reps_of $s)
		reps=$((reps < 11 ? 11 : reps))
		c=$("$br" pin $pins/c$s $reps)
		k=$("$br" cachestat "$(file_of $s)" $reps)
		[[ $(val resident <<<"$k") == $(cat $pins/c$s | key cache.cached) ]] ||
			echo "  note: cachestat counted $(val resident <<<"$k") pages"
		printf '%-14s %10s %12s %14s %8s\n' "$(label_of $s)" "$(val resident <<<"$k")" \
			"$(ms "$(ns <<<"$c")")" "$(ms "$(ns <<<"$k")")" \
			"$(ratio "$(ns <<<"$c")" "$(ns <<<"$k")")x"
		csv "cachestat,$s,$(ns <<<"$c"),$(ns <<<"$k")"
	done
	echo "(ratio: cache view time / cachestat time)"
	echo
	sm=$("$br" statmount $d 51)
	sp=$("$br" statx-statmount $d 51)
	"$ktool" pin "$empty" fsiter_empty $d $rfcpins/empty
	em=$("$br" pin $rfcpins/empty 51)
	printf 'mount view: %s ms; statmount(2) of the same mount: %s ms; ratio %sx\n' \
		"$(ms "$(ns <<<"$mv")")" "$(ms "$(ns <<<"$sm")")" \
		"$(ratio "$(ns <<<"$mv")" "$(ns <<<"$sm")")"
	printf 'mount view: %s ms; statx(2) of the path, then statmount(2): %s ms; ratio %sx\n' \
		"$(ms "$(ns <<<"$mv")")" "$(ms "$(ns <<<"$sp")")" \
		"$(ratio "$(ns <<<"$mv")" "$(ns <<<"$sp")")"
	printf 'an fs_mnt program that prints nothing, pinned: %s ms; against statmount(2): %sx\n' \
		"$(ms "$(ns <<<"$em")")" "$(ratio "$(ns <<<"$em")" "$(ns <<<"$sm")")"
	# What a reader pays to reach any file by name, view or not: open(2)
	# and close(2) of the pin, and of a file on the XFS (as deep a path).
	eo=$("$br" open $rfcpins/empty 51)
	fo=$("$br" open "$(file_of 1)" 51)
	printf 'of that, open(2) and close(2) of the pin alone: %s ms; of a file on the XFS: %s ms\n' \
		"$(ms "$(ns <<<"$eo")")" "$(ms "$(ns <<<"$fo")")"
	csv "statmount,$(ns <<<"$mv"),$(ns <<<"$sm")"
	csv "open-close,$(ns <<<"$eo"),$(ns <<<"$fo")"
	csv "empty-iter,$(ns <<<"$em"),$(ns <<<"$sm")"
	csv "statx-statmount,$(ns <<<"$mv"),$(ns <<<"$sp")"
fi

echo
echo "== memory while reading: kernel slab before and after 20 reads of the 1 GiB inode view"
s0=$(slab_kb)
for _ in $(seq 1 20); do cat $pins/i1024 >/dev/null; done
s1=$(slab_kb)
echo "Slab: $s0 kB -> $s1 kB ($((s1 - s0)) kB)"
csv "slab,$s0,$s1"

echo
echo "== apply N entries against the bare system calls (link create, pin, chown, chmod, setfacl)"
"$tool" remove --all >/dev/null
printf '%6s %12s %12s %12s %8s %10s %8s\n' N "apply ms" "per entry" "bare/entry" ratio "maxrss kB" programs
mkdir -p /run/b/many
for n in 1 100 1000; do
	files=()
	for i in $(seq 1 $n); do
		[[ -e /run/b/many/f$i ]] || echo $i >/run/b/many/f$i
		files+=("/run/b/many/f$i")
	done
	{
		echo "set grant-traverse yes"
		for i in $(seq 1 $n); do echo "cache e$i /run/b/many/f$i 0440 root fsreaders u:fsb:r"; done
	} >/run/b/many.conf
	"$tool" remove --all >/dev/null 2>&1
	out=$(python3 - "$tool" /run/b/many.conf <<'PY'
import resource, subprocess, sys, time
t0 = time.monotonic_ns()
r = subprocess.run([sys.argv[1], "apply", sys.argv[2]], stdout=subprocess.DEVNULL)
t = time.monotonic_ns() - t0
print(t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, r.returncode)
PY
)
	read -r at rss rc <<<"$out"
	[[ $rc == 0 ]] || echo "apply of $n entries failed"
	progs=$("$tool" list --json | jq '[.[].prog_id] | unique | length')
	rm -rf $rfcpins/bare && mkdir $rfcpins/bare
	bare=$("$build/bench/bare_pin" "$build/bpf/cache.bpf.o" $rfcpins/bare "${files[@]}" | ns)
	printf '%6s %12s %12s %12s %8s %10s %8s\n' $n "$(ms $at)" "$(ms $((at / n)))" \
		"$(ms $((bare / n)))" "$(ratio $((at / n)) $((bare / n)))x" "$rss" "$progs"
	csv "apply,$n,$at,$bare,$rss,$progs,$rc"
done
echo "(apply includes starting the process and loading the views; programs: distinct"
echo " programs behind the pins, 1 if the view is loaded once)"
s2=$(slab_kb)
"$tool" remove --all >/dev/null; rm -rf $rfcpins/bare
echo "Slab with 1000 pins: $s2 kB; after removing them: $(slab_kb) kB"
umount $d 2>/dev/null || true
