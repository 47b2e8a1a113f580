#!/bin/bash
# The whole-filesystem views (iter/fs_sb) under load:
#   - many: 200,000 cached files on tmpfs (FSITER_SB_STRESS_FILES): the
#     totals of cache-summary and cache-top are the known ones, and a
#     walk split over thousands of read()s (the kernel selftest's dump_sb,
#     one line per inode, read 512 bytes at a time; cache-summary read
#     with dd bs=64) shows each inode exactly once;
#   - interrupt: a reader of the 200,000 inodes killed with SIGINT or
#     SIGTERM midway is gone at once, not at the end of its walk; and
#     interrupt_ext4: the same on ext4 (60,000 clean cached files on a
#     loop device), where the counts walk no folios and only the walk
#     itself can see the signal;
#   - churn: readers of cache-summary and cache-top while files are
#     created and deleted, while drop_caches runs in a loop, and while
#     the filesystem is unmounted (normal, then lazy): every read ends
#     (within 60 s) with a complete result or a clean error, never a hang
#     or a truncated result;
#   - kernel_log: no warning, lockup or splat in the kernel log (run-vm.sh
#     checks it too).
#
# On a kernel without the fs_sb target (no bpf_iter_fs_sb in its BTF)
# the suite says SKIP and passes. Needs --mem 4096 (the tmpfs holds
# about 800 MiB). Takes about 5-10 minutes under TCG.
# Usage: sb-stress-tests.sh BUILD_DIR [TEST...]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/vm/lib.sh
. "$here/lib.sh"

suite_init "$@"
t=/run/sbs
nfiles=${FSITER_SB_STRESS_FILES:-200000}

if ! grep -qa bpf_iter_fs_sb /sys/kernel/btf/vmlinux; then
	echo "SKIP: this kernel ($(uname -r)) has no iter/fs_sb target (no bpf_iter_fs_sb in its BTF): nothing to test"
	finish
	exit
fi
mkdir -p $t
# The kernel selftest's program: one line per observed inode.
sbprog=$(ls "$build"/tests/kernel/*/bpf_iter_fs_sb.bpf.o 2>/dev/null | head -n1)

big=$t/big
# many files: every 1000th of 16 pages, the others of one page.
want_pages=$((nfiles + (nfiles + 999) / 1000 * 15))

test_many() {
	echo "== $nfiles cached files on tmpfs"
	local t0 n
	mkdir -p $big
	mountpoint -q $big || mount -t tmpfs -o size=2G,nr_inodes=400k sbbig $big
	cached_files $big "$nfiles"
	n=$(find $big -type f | wc -l)
	check_eq "the files are there" "$n" "$nfiles"
	# The totals need expose-totals, even for root (without, "-").
	cat >$t/policy.conf <<-P
	set grant-traverse others
	cache-summary  big-sum  $big  0444 - - - expose-totals
	cache-top      big-top  $big  0444 - - - top=5
	P
	out=$("$tool" apply $t/policy.conf 2>&1) || { fail "apply: $out"; return; }
	t0=$(date +%s%N)
	out=$(cat $pins/big-sum)
	echo "$out (read in $((($(date +%s%N) - t0) / 1000000)) ms)"
	check_eq "cache-summary: inodes, one per file" "$(field cache.inodes <<<"$out")" "$nfiles"
	check_eq "cache-summary: cached pages, as written" "$(field cache.cached <<<"$out")" "$want_pages"
	check_eq "cache-summary: root observes all" "$(field observed.inodes <<<"$out")" "$nfiles"
	out=$(dd if=$pins/big-sum bs=64 status=none)
	check_eq "cache-summary read 64 bytes at a time: the same inodes" "$(field cache.inodes <<<"$out")" "$nfiles"
	check_eq "cache-summary read 64 bytes at a time: the same pages" "$(field cache.cached <<<"$out")" "$want_pages"
	out=$(cat $pins/big-top)
	echo "$out"
	check_eq "cache-top: the 16-page files first" "$(awk '$1 == "file" { print $2 }' <<<"$out" | sort -u)" 16
	check_eq "cache-top: files named + rest = every file" \
		"$(awk '$1 == "file" { n++ } $1 == "rest" { n += $2 } END { print n }' <<<"$out")" "$nfiles"
	check_eq "cache-top: pages named + rest = all pages" \
		"$(awk '$1 == "file" { n += $2 } $1 == "rest" { n += $3 } END { print n }' <<<"$out")" "$want_pages"

	echo "== a walk split over many read()s: each inode once"
	if [[ -z $sbprog ]]; then
		fail "no bpf_iter_fs_sb.bpf.o in $build/tests/kernel (the selftest program)"
		return
	fi
	# With the sums over the withheld files: dump_sb prints its "other"
	# line only when the kernel gives them.
	"$ktool" pin --withheld-sums "$sbprog" dump_sb $big /sys/fs/bpf/sbs-dump ||
		{ fail "pin dump_sb"; return; }
	python3 - /sys/fs/bpf/sbs-dump >$t/split <<-'PY'
	import os, sys
	fd = os.open(sys.argv[1], os.O_RDONLY)
	reads = 0
	chunks = []
	while True:
	    b = os.read(fd, 512)
	    if not b:
	        break
	    reads += 1
	    chunks.append(b)
	sys.stdout.write(b"".join(chunks).decode())
	sys.stderr.write("%d reads\n" % reads)
	PY
	rm -f /sys/fs/bpf/sbs-dump
	find $big -type f -printf '%i\n' | sort -n >$t/want-ino
	awk '$1 == "ino" { print $2 }' $t/split | sort -n >$t/got-ino
	check_eq "split read: as many lines as files" "$(wc -l <$t/got-ino)" "$nfiles"
	check_eq "split read: no inode twice" "$(uniq -d $t/got-ino | wc -l)" 0
	check "split read: exactly the files' inodes" cmp -s $t/want-ino $t/got-ino
	check_eq "split read: pages, as written" \
		"$(awk '$1 == "ino" { n += $4 } END { print n }' $t/split)" "$want_pages"
	check_eq "split read: nothing withheld from root" "$(awk '$1 == "other" { print $2 }' $t/split)" 0
}

test_interrupt() {
	needs test_many
	echo "== a reader of $nfiles inodes, interrupted midway"
	local sig pin
	[[ -e $pins/big-top && -e $pins/big-sum ]] || { fail "no pins on the $nfiles files"; return; }
	# Every inode's folios walked (tmpfs): cache-top is the longest read.
	for pin in big-top big-sum; do
		for sig in INT TERM; do
			kill_reader $sig $pins/$pin
			check_killed $pin $sig
		done
	done
}

# On tmpfs the counts walk each inode's folios, which check for a fatal
# signal; on ext4, clean files are counted from nrpages and the marks,
# without a walk, and only the walk of the inode list sees the signal.
test_interrupt_ext4() {
	local n=60000 img=$t/ext4.img mnt=$t/ext4 sig out
	echo "== a reader of $n clean cached files on ext4, interrupted midway"
	mkdir -p $mnt
	if ! mountpoint -q $mnt; then
		truncate -s 1G $img && mkfs.ext4 -q -F -N $((n + 1000)) $img &&
			mount -o loop $img $mnt || { fail "ext4 on a loop device"; return; }
		cached_files $mnt $n
		sync
	fi
	# The pins of test_many stay: apply makes the pin directory the policy.
	{ cat $t/policy.conf 2>/dev/null || echo "set grant-traverse others"
	  echo "cache-summary  ext4-sum  $mnt  0444 - - - expose-totals"; } >$t/ext4.conf
	# A version of policy.conf: it takes the pin directory over (--force).
	out=$("$tool" apply --force $t/ext4.conf 2>&1) || { fail "apply: $out"; return; }
	# (and the odd inode of ext4's own with pages)
	out=$(field cache.inodes <$pins/ext4-sum)
	check "ext4: every file counted ($out >= $n)" test "${out:-0}" -ge $n
	for sig in INT TERM; do
		kill_reader $sig $pins/ext4-sum
		check_killed ext4-sum $sig
	done
	"$tool" remove ext4-sum >/dev/null
	umount $mnt
}

# reader PIN OUT END: reads PIN until the time END (epoch s); counts into
# OUT: "ok" complete results, "err" clean errors, "hang" reads over 60 s,
# "bad" anything else (a truncated result, an unknown error).
reader() {
	local pin=$1 o=$2 end=$3 r rc last
	while (($(date +%s) < end)); do
		r=$(timeout 60 cat "$pin" 2>&1)
		rc=$?
		last=$(tail -n1 <<<"$r")
		if ((rc == 124)); then
			echo hang
		elif ((rc == 0)) && [[ $last == observed.share* || $last == other* ]]; then
			echo ok
		elif ((rc != 0)) && [[ $r == *"Stale file handle"* || $r == *"Interrupted"* || $r == *"Resource temporarily unavailable"* ]]; then
			echo err
		elif ((rc == 0)) && [[ $last == error* ]]; then
			echo err
		else
			echo "bad rc=$rc: $(head -c 300 <<<"$r" | tr '\n' '|')"
		fi
	done >>"$o"
}

# churn_fs DIR: an ext4 (so that drop_caches evicts its pages and
# inodes; tmpfs if the kernel has no ext4) on DIR with 2000 files, and
# pins on it.
churn_fs() {
	mkdir -p "$1"
	if grep -qw ext4 /proc/filesystems; then
		rm -f $t/churn.img
		truncate -s 256M $t/churn.img
		mkfs.ext4 -q -F $t/churn.img && mount -o loop $t/churn.img "$1"
	else
		mount -t tmpfs -o size=256M "sbs$(basename "$1")" "$1"
	fi || { fail "mount $1"; return 1; }
	mkdir -p "$1/keep" "$1/tmp"
	for i in $(seq 0 19); do
		head -c $(((i + 1) * 4096)) /dev/zero >"$1/keep/k$i"
	done
	python3 -c '
import sys
for i in range(2000):
    open("%s/keep/s%d" % (sys.argv[1], i), "w").write("x")
' "$1"
	cat >$t/churn.conf <<-P
	set grant-traverse others
	cache-summary  c-sum  $1  0444
	cache-top      c-top  $1  0444
	P
	"$tool" apply --force $t/churn.conf >/dev/null || { fail "apply on $1"; return 1; }
}

# tally FILE...: counts of ok, err, hang, bad over the readers' files.
tally() {
	cat "$@" | awk '{ c[$1]++ } END { printf "ok %d err %d hang %d bad %d\n", c["ok"], c["err"], c["hang"], c["bad"] }'
}

# start_readers SECS: two readers of each churn pin, for SECS seconds;
# sets end and pids (the caller's locals).
start_readers() {
	rm -f $t/r.*
	pids=()
	end=$(($(date +%s) + $1))
	for i in 1 2; do
		reader $pins/c-sum $t/r.sum$i $end &
		pids+=($!)
		reader $pins/c-top $t/r.top$i $end &
		pids+=($!)
	done
}

# readers_ended LABEL: the readers' tally, in out; none hung, none odd.
readers_ended() {
	out=$(tally $t/r.*)
	echo "$out"
	grep -h '^bad' $t/r.* | head -n 5
	check_eq "$1: no read hung" "$(word hang <<<"$out")" 0
	check_eq "$1: no truncated or odd result" "$(word bad <<<"$out")" 0
}

test_churn() {
	echo "== readers while files come and go and drop_caches runs"
	local c=$t/churn end pids=() p i
	churn_fs $c || return
	start_readers 40
	( while (($(date +%s) < end)); do
		for i in $(seq 1 200); do echo $i >$c/tmp/n$i; done
		cat $c/keep/* >/dev/null
		rm -f $c/tmp/n*
	done ) &
	p=$!
	( while (($(date +%s) < end)); do echo 3 >/proc/sys/vm/drop_caches; sleep 0.2; done ) &
	wait "${pids[@]}" $p $!
	readers_ended "churn"
	check_ge "churn: complete results" "$(word ok <<<"$out")" 4

	echo "== readers while the filesystem is unmounted: normal umount"
	start_readers 25
	sleep 5
	check "umount with readers on its pins" umount $c
	wait "${pids[@]}"
	readers_ended "umount"
	check_ge "umount: clean errors after it (ESTALE)" "$(word err <<<"$out")" 1
	out=$(cat $pins/c-sum 2>&1)
	check "umount: then a read fails with ESTALE" has "Stale file handle"
	"$tool" remove c-sum c-top >/dev/null

	echo "== readers while the filesystem is unmounted: lazy, with a file open in it"
	churn_fs $c || return
	exec 8<$c/keep/k19
	start_readers 25
	# From inside: it goes on in the detached filesystem after umount -l.
	( cd $c/tmp || exit; while (($(date +%s) < end)); do
		for i in $(seq 1 100); do echo $i >n$i; done
		rm -f n*
	done ) &
	p=$!
	sleep 5
	out=$(umount $c 2>&1)
	check "normal umount refused while busy" has "busy"
	check "umount -l with readers on its pins" umount -l $c
	wait "${pids[@]}" $p
	exec 8<&-
	readers_ended "lazy umount"
	check_ge "lazy umount: results or errors" $(($(word ok <<<"$out") + $(word err <<<"$out"))) 4
	out=$(timeout 60 cat $pins/c-sum 2>&1)
	rc=$?
	echo "after: status $rc: $out"
	check "lazy umount: a read after it ends, a result or ESTALE" \
		test $rc -eq 0 -o "$(grep -c 'Stale file handle' <<<"$out")" -gt 0
	"$tool" remove c-sum c-top >/dev/null
}

test_kernel_log() {
	echo "== the kernel log"
	check_kernel_log
}

run_tests
finish
