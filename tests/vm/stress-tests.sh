#!/bin/bash
# Many concurrent readers of every view, while the files change, the page
# cache is dropped and apply swaps the pins, for a while; then no read may
# have failed, and kmemleak (on the debug kernel) must find nothing. The
# harness fails the run on any KASAN, lockdep or WARNING line. Runs as root
# inside the test VM. Usage: stress-tests.sh BUILD_DIR [SECONDS] [TEST...]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/vm/lib.sh
. "$here/lib.sh"

secs=60
if [[ ${2:-} =~ ^[0-9]+$ ]]; then
	secs=$2
	set -- "$1" "${@:3}"
fi
suite_init "$@"
t=/run/st
mkdir -p $t
dd if=/dev/urandom of=$t/big bs=1M count=64 status=none
chown fsa $t/big
echo small >$t/small

for v in a b; do
	{
		echo "set grant-traverse others"
		echo "inode  big-inode  $t/big    0444 - - - expose-cache"
		echo "cache  big-cache  $t/big    0444"
		echo "cache  small      $t/small  0444 - - - expose-cache"
		echo "mount  run        $t        0444"
		echo "inode-raw raw     $t/small  0400"
		[[ $v == b ]] && echo "inode  extra  $t/small  0444"
	} >$t/$v.conf
done

test_readers_under_churn() {
	echo "== readers while the files change and apply swaps the pins"
	cp $t/a.conf $t/live.conf
	"$tool" apply $t/live.conf >/dev/null || { fail "apply"; finish; exit; }

	end=$((SECONDS + secs))
	reader() { # reader USER: read every pin until the end; count failures
		local n=0 bad=0 f
		while (( SECONDS < end )); do
			for f in big-inode big-cache small run; do
				if setpriv --reuid="$1" --regid="$1" --init-groups cat $pins/$f >/dev/null 2>>$t/err.$BASHPID; then
					n=$((n + 1))
				else
					bad=$((bad + 1))
				fi
			done
			cat $pins/raw >/dev/null 2>>$t/err.$BASHPID || bad=$((bad + 1))
		done
		echo "$n $bad" >$t/result.$BASHPID
	}
	local readers=(fsa fsb fsa fsb root root fsa fsb)
	for u in "${readers[@]}"; do reader $u & done
	# Churn: rewrite part of the file, drop caches, swap the pins.
	churn=0
	while (( SECONDS < end )); do
		dd if=/dev/urandom of=$t/big bs=1M count=4 seek=$((RANDOM % 60)) conv=notrunc status=none
		(( churn % 3 )) || echo 3 >/proc/sys/vm/drop_caches
		# b and a: versions of one policy, so into one file (the pin
		# directory is the policy file's whose apply made its pins)
		cp "$t/$([[ $((churn % 2)) == 0 ]] && echo b || echo a).conf" $t/live.conf
		"$tool" apply $t/live.conf >/dev/null 2>>$t/apply.err ||
			echo "apply failed" >>$t/apply.err
		churn=$((churn + 1))
	done
	wait
	reads=0 fails=0 least=
	for r in $t/result.*; do
		read -r n b <$r
		reads=$((reads + n)); fails=$((fails + b))
		if [[ -z $least ]] || ((n < least)); then least=$n; fi
	done
	cat $t/err.* 2>/dev/null | sort | uniq -c | head
	echo "$reads reads, $fails failed, $churn rounds of churn in ${secs}s; the slowest reader: $least reads"
	# Progress, not speed (a KASAN kernel under TCG on a busy host reads
	# less than once a second): every reader got through its four pins at
	# least once, and the pins were swapped under them at least once. A
	# read that hangs keeps its reader from writing its result at all.
	check_eq "every reader wrote its result" "$(ls $t/result.* | wc -l)" ${#readers[@]}
	check_ge "every reader read each pin at least once" "${least:-0}" 4
	check_ge "the pins were swapped under the readers" "$churn" 1
	check_eq "no read failed" "$fails" 0
	check_eq "no apply failed" "$(wc -l <$t/apply.err)" 0
	"$tool" remove --all >/dev/null
}

test_kmemleak() {
	needs test_readers_under_churn
	echo "== kmemleak"
	if [[ -w /sys/kernel/debug/kmemleak ]]; then
		# kmemleak reports objects unreferenced for a while: scan twice.
		echo scan >/sys/kernel/debug/kmemleak; sleep 6
		echo scan >/sys/kernel/debug/kmemleak
		leaks=$(grep -c '^unreferenced object' /sys/kernel/debug/kmemleak)
		check_eq "kmemleak: no leaks" "$leaks" 0
		(( leaks == 0 )) || head -40 /sys/kernel/debug/kmemleak
	else
		echo "(no kmemleak in this kernel)"
	fi
}

test_fd_limit() {
	echo "== 5000 entries under systemd's default soft limit of 1024 open files"
	mkdir -p $t/fd
	for i in $(seq 1 5000); do
		: >$t/fd/f$i
		echo "cache f$i $t/fd/f$i 0400"
	done >$t/fd.conf
	# as systemd starts a service: soft 1024, hard 524288
	out=$(ulimit -Hn 524288 && ulimit -Sn 1024 && "$tool" apply $t/fd.conf 2>&1); rc=$?
	grep -v "^created " <<<"$out" | sed -n "1,4p;\$p"
	check_eq "apply succeeds" "$rc" 0
	check_eq "5000 pins" "$(find $pins -mindepth 1 | wc -l)" 5000
	"$tool" remove --all >/dev/null
}

run_tests
finish
