#!/bin/bash
# Hostile paths: what apply does with symlinks swapped in while it runs,
# bind mounts over a component, FIFOs and devices, very deep paths, and
# files under /proc and /sys. It must do what docs/security.md says,
# follow no symlink, and never block. Runs as root inside the test VM.
# Usage: hostile-tests.sh BUILD_DIR [TEST...]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/vm/lib.sh
. "$here/lib.sh"

suite_init "$@"
t=/run/ho
mkdir -p $t/real $t/decoy
echo real >$t/real/file
echo decoy >$t/decoy/file
apply1() { # apply1 LINE: apply a one-entry policy, output in $out
	printf 'set grant-traverse others\n%s\n' "$1" >$t/p.conf
	out=$(timeout 60 "$tool" apply $t/p.conf 2>&1); rc=$?
}

test_symlink_swap() {
	echo "== a symlink swapped in for a directory while apply runs"
	# $t/sw/dir flips between a real directory and a symlink to the decoy.
	mkdir -p $t/sw/dir && echo real >$t/sw/dir/file
	real_ino=$(stat -c %i $t/sw/dir/file)
	decoy_ino=$(stat -c %i $t/decoy/file)
	(
		while :; do
			mv $t/sw/dir $t/sw/away && ln -s $t/decoy $t/sw/dir
			rm $t/sw/dir && mv $t/sw/away $t/sw/dir
		done
	) 2>/dev/null &
	flipper=$!
	pinned_real=0 refused=0 wrong=0
	for _ in $(seq 1 30); do
		apply1 "cache sw $t/sw/dir/file 0444"
		if (( rc == 0 )); then
			ino=$(cat $pins/sw >/dev/null && "$tool" list --json | jq -r '.[] | select(.name == "sw") | .target.ino')
			if [[ $ino == "$real_ino" ]]; then
				pinned_real=$((pinned_real + 1))
			else
				wrong=$((wrong + 1)); echo "pinned inode $ino"
			fi
		elif grep -q "a component is a symbolic link\|no such file" <<<"$out"; then
			refused=$((refused + 1))
		else
			wrong=$((wrong + 1)); echo "$out"
		fi
	done
	kill $flipper; wait $flipper 2>/dev/null
	echo "pinned the real file $pinned_real times, refused $refused times"
	check_eq "never pinned through the symlink (decoy inode $decoy_ino)" "$wrong" 0
	check "it was refused at least once" test "$refused" -gt 0
}

test_bind_mount() {
	echo "== a bind mount over a path component"
	mkdir -p $t/bind/dir && echo under >$t/bind/dir/file
	mount --bind $t/real $t/bind/dir
	apply1 "cache bind $t/bind/dir/file 0444"
	check_eq "apply follows the mount, as the path does" "$rc" 0
	check_eq "the pin is the file on top" "$("$tool" list --json | jq -r '.[0].target.ino')" "$(stat -c %i $t/real/file)"
	umount $t/bind/dir
	out=$("$tool" audit $t/p.conf 2>&1); rc=$?
	check_eq "audit: drift once the mount is gone" "$rc" 1
	check "audit: the pin's mount was torn down" has "^target-gone  *bind: "
	check "and the path names another inode" bash -c "[[ $(stat -c %i $t/bind/dir/file) != $(stat -c %i $t/real/file) ]]"
}

test_fifo_devices() {
	echo "== FIFOs and devices: nothing is opened, nothing blocks"
	mkfifo $t/fifo
	apply1 "cache fifo $t/fifo 0444"
	check_eq "a FIFO with no writer" "$rc" 0
	check "its pin reads without blocking" timeout 20 cat $pins/fifo
	apply1 "inode tty /dev/ttyS0 0444"
	check_eq "a character device" "$rc" 0
	check_eq "the pin shows the device node" "$(cat $pins/tty | field inode.mode)" "$(printf '0%o' "0x$(stat -c %f /dev/ttyS0)")"
	mknod $t/blk b 7 200
	apply1 "cache blk $t/blk 0444"
	check_eq "a block device with nothing behind it" "$rc" 0
	check "its pin reads" timeout 20 cat $pins/blk
}

test_deep_paths() {
	echo "== very deep paths"
	deep=$t/d
	for _ in $(seq 1 400); do deep=$deep/d; done
	mkdir -p $deep && echo deep >$deep/file
	apply1 "cache deep $deep/file 0444"
	check_eq "400 components, within PATH_MAX" "$rc" 0
	check_eq "the right file" "$("$tool" list --json | jq -r '.[0].target.ino')" "$(stat -c %i $deep/file)"
	long=$t; for _ in $(seq 1 2100); do long=$long/d; done
	apply1 "cache long $long 0444"
	check_eq "over PATH_MAX is refused" "$rc" 1
	check "as the policy's error" has "p.conf:2: path '.*': longer than PATH_MAX"
}

test_proc_sys() {
	echo "== /proc and /sys"
	apply1 "inode proc-status /proc/1/status 0444"
	check_eq "a /proc file" "$rc" 0
	check "read as its inode, not its contents" bash -c "cat $pins/proc-status | grep -q '^sb.type proc$'"
	apply1 "cache self /proc/self/status 0444"
	check_eq "/proc/self is a symlink: refused" "$rc" 3
	check "saying so" has "a component is a symbolic link"
	apply1 "cache fd /proc/1/fd/0 0444"
	check_eq "magic links are refused" "$rc" 3
	apply1 "inode btf /sys/kernel/btf/vmlinux 0444"
	check_eq "a /sys file" "$rc" 0
	check_eq "sysfs" "$(cat $pins/btf | field sb.type)" sysfs
}

test_one_bad_entry() {
	echo "== one bad entry does not block the rest: a user renames a directory, NSS loses a user"
	"$tool" remove --all >/dev/null 2>&1
	rm -rf $t/pe && mkdir -p $t/pe/d && echo x >$t/pe/d/f && echo y >$t/pe/g
	chown -R fsa:fsa $t/pe
	echo "ghost:x:2050:2050::/:/bin/false" >>/etc/passwd
	cat >$t/pe1.conf <<P
set grant-traverse others
cache  pe-keep   /etc/passwd   0444
cache  pe-moved  $t/pe/d/f     0440 root fsreaders
inode  pe-ghost  /etc/group    0400 root root u:ghost:r
cache  pe-revoke /etc/hostname 0400 root root u:fsb:r
cache  pe-sym    $t/pe/g       0444
P
	out=$(timeout 60 "$tool" apply $t/pe1.conf 2>&1); rc=$?
	check_eq "the whole policy applies" "$rc" 0
	check "fsb reads pe-revoke" as fsb cat $pins/pe-revoke
	# fsa renames its directory and swaps a symlink in; NSS loses ghost
	as fsa mv $t/pe/d $t/pe/d2
	as fsa sh -c "mv $t/pe/g $t/pe/g2 && ln -s $t/pe/g2 $t/pe/g"
	sed -i '/^ghost:/d' /etc/passwd
	# the next policy takes fsb's grant back and adds a pin
	sed -e 's/ u:fsb:r$//' $t/pe1.conf >$t/pe2.conf
	echo "inode  pe-new    /etc/hostname 0444" >>$t/pe2.conf
	out=$(timeout 60 "$tool" apply $t/pe2.conf 2>&1); rc=$?
	echo "$out"
	check_eq "apply says some entries failed" "$rc" 3
	check "a new entry is pinned" test -e $pins/pe-new
	check "a revocation is not blocked" bash -c "! setpriv --reuid=fsb --regid=fsb --init-groups cat $pins/pe-revoke"
	check "pe-moved is named" has "pe2.conf:3: 'pe-moved' failed: its last good pin stays"
	check "pe-ghost is named" has "pe2.conf:4: 'pe-ghost' failed: its last good pin stays"
	check "pe-sym is named" has "pe2.conf:6: 'pe-sym' failed: its pin is removed"
	check "a missing path keeps its last good pin" test -e $pins/pe-moved
	check "so does a user NSS does not resolve" test -e $pins/pe-ghost
	check "a symlink on the path loses its pin" test ! -e $pins/pe-sym
	check "fsreaders still reach the pin that stays" as fsa cat $pins/pe-moved
	sed -e 's|pe/d/f     0440 root fsreaders|pe/d/f     0400 root root|' $t/pe2.conf >$t/pe3.conf
	out=$(timeout 60 "$tool" apply $t/pe3.conf 2>&1); rc=$?
	echo "$out"
	check_eq "still failing" "$rc" 3
	check "a grant that changed while the path is missing: the pin goes" test ! -e $pins/pe-moved
	check "the others stay" test -e $pins/pe-ghost -a -e $pins/pe-keep -a -e $pins/pe-new
	"$tool" remove --all >/dev/null
}

# unlock: stop the flock(1) at $holder and the sleep it runs, which holds
# the lock too
unlock() {
	kill $(pgrep -P "$holder") "$holder" 2>/dev/null
	wait "$holder" 2>/dev/null
}

test_lock_wait() {
	echo "== a lock held too long: apply gives up, naming the holder; readers share it"
	printf 'set grant-traverse others\ncache lw /etc/passwd 0444\n' >$t/lw.conf
	"$tool" apply $t/lw.conf >/dev/null
	flock ${pins}_staging sleep 60 &
	holder=$!
	sleep 1
	out=$(FSITER_LOCK_TIMEOUT=2 timeout 30 "$tool" apply $t/lw.conf 2>&1); rc=$?
	echo "$out"
	check_eq "apply gives up" "$rc" 1
	check "naming the holder" has "held by PID $holder (flock)"
	check "after the bound" has "still locked after 2 s, by PID $holder (flock); giving up"
	unlock
	flock -s ${pins}_staging sleep 60 &
	holder=$!
	sleep 1
	out=$(FSITER_LOCK_TIMEOUT=2 timeout 30 "$tool" list 2>&1); rc=$?
	echo "$out"
	check_eq "list shares the lock with another reader" "$rc" 0
	out=$(FSITER_LOCK_TIMEOUT=2 timeout 30 "$tool" audit $t/lw.conf 2>&1); rc=$?
	echo "$out"
	check_eq "so does audit" "$rc" 0
	unlock
}

test_slow_open() {
	echo "== a path whose filesystem does not answer: its entry fails after a bound"
	printf 'set grant-traverse others\n%s\n%s\n' "cache so-a /etc/passwd 0444" \
		"cache so-b /etc/group 0444" >$t/so.conf
	start=$SECONDS
	out=$(FSITER_FAULT='open:2~' timeout 60 "$tool" apply $t/so.conf 2>&1); rc=$?
	echo "$out"
	check_eq "apply returns, the entry failed" "$rc" 3
	check "naming it" has "so.conf:3: path '/etc/group': no answer from its filesystem in time"
	check "the other entry is pinned" test -e $pins/so-a
	check "within the bound" test $((SECONDS - start)) -lt 30
}

test_watch_settle() {
	echo "== watch settles at most 5 s, however the mount table keeps changing"
	mkdir -p $t/churn
	printf 'cache ws /etc/passwd 0400\n' >$t/ws.conf
	# mount and unmount without a pause, from one process: no gap of 300 ms
	python3 -c 'import ctypes, sys, time
libc, d = ctypes.CDLL(None), sys.argv[1].encode()
end = time.time() + 25
while time.time() < end:
	libc.mount(b"none", d, b"tmpfs", 0, None)
	libc.umount2(d, 0)' $t/churn &
	churn=$!
	sleep 3	# python starts slowly under TCG
	out=$(timeout 15 "$tool" watch --timeout 2 $t/ws.conf 2>&1)
	kill $churn; wait $churn 2>/dev/null
	umount $t/churn 2>/dev/null
	echo "$out"
	check "applied again while the mounts kept changing" has "the mount table changed: applying"
}

run_tests
"$tool" remove --all >/dev/null
finish
