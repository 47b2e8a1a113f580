#!/bin/bash
# Hostile paths: what apply does with symlinks swapped in while it runs,
# bind mounts over a component, FIFOs and devices, very deep paths,
# files under /proc and /sys, and names that try to forge a view's lines.
# It must do what docs/security.md says, follow no symlink, and never
# block. Runs as root inside the test VM.
# A test's policies that replace one another are versions of one policy:
# each apply of the next takes the pin directory over (--force; nothing
# but pins is ever in it here).
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
	check "read as its inode, not its contents" bash -c "cat $pins/proc-status | grep -q '^fs.type proc$'"
	apply1 "cache self /proc/self/status 0444"
	check_eq "/proc/self is a symlink: refused" "$rc" 3
	check "saying so" has "a component is a symbolic link"
	apply1 "cache fd /proc/1/fd/0 0444"
	check_eq "magic links are refused" "$rc" 3
	apply1 "inode btf /sys/kernel/btf/vmlinux 0444"
	check_eq "a /sys file" "$rc" 0
	check_eq "sysfs" "$(cat $pins/btf | field fs.type)" sysfs
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
	out=$(timeout 60 "$tool" apply --force $t/pe2.conf 2>&1); rc=$?
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
	out=$(timeout 60 "$tool" apply --force $t/pe3.conf 2>&1); rc=$?
	echo "$out"
	check_eq "still failing" "$rc" 3
	check "a grant that changed while the path is missing: the pin goes" test ! -e $pins/pe-moved
	check "the others stay" test -e $pins/pe-ghost -a -e $pins/pe-keep -a -e $pins/pe-new
	"$tool" remove --all >/dev/null
}

# newcomer_reads: uid 2050 reads ru-ghost, with /sys/fs/bpf searchable by
# all for the moment (as on a site that opened it up): grant-traverse has
# taken back the search permission it gave the deleted user, and the
# question is what the pin itself grants.
newcomer_reads() {
	local mode rc
	mode=$(stat -c %a /sys/fs/bpf)
	chmod o+x /sys/fs/bpf
	setpriv --reuid=2050 --regid=2050 --clear-groups cat $pins/ru-ghost
	rc=$?
	chmod "$mode" /sys/fs/bpf
	return $rc
}

# A pin held while its entry's user does not resolve is kept only while
# no id on it names someone else, and keeps only the entry's ids: a new
# user given the deleted one's uid, before or after the next apply, must
# not inherit the grant (perms_held_narrow(), docs/security.md).
test_reused_uid() {
	echo "== a deleted user's uid, given to a new user, does not inherit a held pin"
	"$tool" remove --all >/dev/null 2>&1
	echo "ghost:x:2050:2050::/:/bin/false" >>/etc/passwd
	printf 'set grant-traverse others\ninode  ru-ghost  /etc/group  0400 root root u:ghost:r\n' >$t/ru.conf
	out=$(timeout 60 "$tool" apply $t/ru.conf 2>&1); rc=$?
	check_eq "applies" "$rc" 0
	check "ghost reads it" setpriv --reuid=2050 --regid=2050 --clear-groups cat $pins/ru-ghost
	sed -i '/^ghost:/d' /etc/passwd
	out=$(timeout 60 "$tool" apply $t/ru.conf 2>&1); rc=$?
	echo "$out"
	check_eq "ghost is gone: its entry fails" "$rc" 3
	check "its pin is held" test -e $pins/ru-ghost
	check "without uid 2050, which names no one" \
		test -z "$(getfacl -cn $pins/ru-ghost | grep 2050)"
	check "and says so" has "ru-ghost: its last pin is kept without u:2050 (ids that name no one now"
	# useradd between two applies: nothing runs, and nothing is granted.
	echo "newcomer:x:2050:2050::/:/bin/false" >>/etc/passwd
	check "the newcomer given uid 2050 cannot read it" not newcomer_reads
	out=$(timeout 60 "$tool" apply $t/ru.conf 2>&1); rc=$?
	echo "$out"
	check_eq "the entry still fails" "$rc" 3
	check "the pin, which names no one, is still held" test -e $pins/ru-ghost
	check "and the newcomer still cannot read it" not newcomer_reads
	# A grant of the old uid put back by hand (or left by an older
	# fsiter-pin): it names the newcomer now, so the pin goes.
	setfacl -m u:2050:r $pins/ru-ghost
	out=$(timeout 60 "$tool" apply $t/ru.conf 2>&1); rc=$?
	echo "$out"
	check_eq "uid 2050 on it is newcomer's: the entry still fails" "$rc" 3
	check "and says why" has "ru.conf:2: 'ru-ghost': its last pin is not kept: its ACL names a user or group the entry does not grant"
	check "the pin goes" test ! -e $pins/ru-ghost
	# ghost back: the grant is whole again.
	sed -i 's/^newcomer:/ghost:/' /etc/passwd
	out=$(timeout 60 "$tool" apply $t/ru.conf 2>&1); rc=$?
	check_eq "ghost is back: applies" "$rc" 0
	check "ghost reads it again" setpriv --reuid=2050 --regid=2050 --clear-groups cat $pins/ru-ghost
	sed -i '/^ghost:/d' /etc/passwd
	"$tool" remove --all >/dev/null
}

# A pin held while one of its readers does not resolve still serves the
# readers who do: grant-traverse keeps their way to it (plan.c,
# resolved_part()).
test_held_reach() {
	echo "== a held pin's readers who still resolve keep their way to it"
	"$tool" remove --all >/dev/null 2>&1
	setfacl -b /sys/fs/bpf && chmod go-rwx /sys/fs/bpf
	echo "ghost:x:2051:2051::/:/bin/false" >>/etc/passwd
	printf 'set grant-traverse yes\ninode hr-pin /etc/group 0400 root root u:fsa:r,u:ghost:r\n' >$t/hr.conf
	out=$(timeout 60 "$tool" apply $t/hr.conf 2>&1); rc=$?
	echo "$out"
	check_eq "applies" "$rc" 0
	check "fsa reads it" as fsa cat $pins/hr-pin
	sed -i '/^ghost:/d' /etc/passwd
	out=$(timeout 60 "$tool" apply $t/hr.conf 2>&1); rc=$?
	echo "$out"
	check_eq "ghost is gone: the entry fails" "$rc" 3
	check "its pin is held" has "'hr-pin' failed: its last good pin stays"
	check "grant-traverse takes nothing back from fsa" \
		not grep -q "took back search permission on /sys/fs/bpf from u:$(id -u fsa)," <<<"$out"
	check "fsa still searches /sys/fs/bpf" \
		bash -c "getfacl -cp /sys/fs/bpf | grep -q '^user:fsa:--x'"
	check "and reads the held pin" as fsa cat $pins/hr-pin
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
	out=$(FSITER_OPEN_TIMEOUT=2 FSITER_FAULT='open:2~' timeout 60 "$tool" apply --force $t/so.conf 2>&1); rc=$?
	echo "$out"
	check_eq "apply returns, the entry failed" "$rc" 3
	check "naming it and the bound" has "so.conf:3: path '/etc/group': no answer from its filesystem, and none from any other path for 2 s"
	check "the other entry is pinned" test -e $pins/so-a
	check "within the bound" test $((SECONDS - start)) -lt 30
	check "the helper that hung is gone" test -z "$(pgrep -x fsiter-pin-open)"
}

# gone_within PID MS: wait until process PID is gone, not just its main
# thread (a thread stuck in the kernel keeps a process), at most MS ms;
# its time in $gone_ms, counted from $start_ns. True if it is gone.
gone_within() {
	while [[ -e /proc/$1 ]] && (( ($(date +%s%N) - start_ns) / 1000000 < $2 )); do
		sleep 0.1
	done
	gone_ms=$(( ($(date +%s%N) - start_ns) / 1000000 ))
	[[ ! -e /proc/$1 ]]
}

# The helper processes a hung run left: none may hold anything in bpffs
# (the pin directory, its lock).
check_helpers_hold_nothing() {
	local pid f held=
	# A helper's threads share its fd table: /proc/PID/fd is all of it
	# (one look per thread of every process took minutes once 33 of them
	# hung, under TCG).
	for pid in $(pgrep -x fsiter-pin-open); do
		for f in /proc/"$pid"/fd/*; do
			[[ $(readlink "$f" 2>/dev/null) == /sys/fs/bpf* ]] && held+="$f "
		done
	done
	echo "helpers left: $(pgrep -x fsiter-pin-open | wc -l)"
	check "$1: the helpers left hold nothing in bpffs" test -z "$held"
}

test_hung_fuse() {
	echo "== six paths on a FUSE mount that never answers: one bound for all, and the process exits"
	if ! grep -qw fuse /proc/filesystems; then
		echo "note: skipped: this kernel has no FUSE (CONFIG_FUSE_FS)"
		return 0
	fi
	local fuse pid i base_ms
	mkdir -p $t/fuse
	"$build/tests/unit/fuse-hang" $t/fuse >$t/fuse.out 2>&1 &
	fuse=$!
	for i in $(seq 100); do grep -q ready $t/fuse.out && break; sleep 0.1; done
	check "fuse-hang is up" grep -q ready $t/fuse.out
	printf 'set grant-traverse others\ncache hf-a /etc/passwd 0444\ncache hf-b /etc/group 0444\n' >$t/hf0.conf
	start_ns=$(date +%s%N)
	"$tool" apply --force $t/hf0.conf >/dev/null 2>&1
	base_ms=$(( ($(date +%s%N) - start_ns) / 1000000 ))
	{
		echo 'set grant-traverse others'
		echo 'cache hf-a /etc/passwd 0444'
		for i in 1 2 3 4 5 6; do echo "cache hf-$i $t/fuse/f$i 0444"; done
		echo 'cache hf-b /etc/group 0444'
	} >$t/hf.conf
	echo "an apply without the hung paths takes $base_ms ms"
	start_ns=$(date +%s%N)
	FSITER_OPEN_TIMEOUT=3 "$tool" apply --force $t/hf.conf >$t/hf.out 2>&1 &
	pid=$!
	check "apply exits within the bound and its own time" gone_within $pid $((base_ms + 3000 + 5000))
	echo "apply gone after $gone_ms ms"
	check_helpers_hold_nothing apply
	check "and nothing else of it stays" test -z "$(pgrep -x fsiter-pin)"
	[[ -e /proc/$pid ]] && kill $fuse	# unblock what is stuck, to go on
	wait $pid; rc=$?
	out=$(cat $t/hf.out)
	echo "$out"
	check_eq "the hung entries failed" "$rc" 3
	for i in 1 2 3 4 5 6; do
		check "naming f$i and the bound" has "hf.conf:$((i + 2)): path '$t/fuse/f$i': no answer from its filesystem, and none from any other path for 3 s"
	done
	check "the others are pinned" test -e $pins/hf-a -a -e $pins/hf-b
	out=$(FSITER_LOCK_TIMEOUT=2 timeout 60 "$tool" apply --force $t/hf0.conf 2>&1); rc=$?
	check_eq "the lock is free: apply again" "$rc" 0
	# 33 hung paths: every thread of the open helper hangs, and the path
	# after them is never tried; its unchanged entry keeps its pin.
	{
		echo 'set grant-traverse others'
		echo 'cache hf-a /etc/passwd 0444'
		for i in $(seq 1 33); do echo "cache hm-$i $t/fuse/m$i 0444"; done
		echo 'cache hf-b /etc/group 0444'
	} >$t/hm.conf
	out=$(FSITER_OPEN_TIMEOUT=3 timeout 120 "$tool" apply --force $t/hm.conf 2>&1); rc=$?
	echo "$out" | tail -5
	check_eq "33 hung entries: apply fails them" "$rc" 3
	check "the entry behind them, never tried, keeps its pin" test -e $pins/hf-b
	check "and says so" has "kept hf-b: its last good pin"
	# watch takes no --force: hm.conf goes, and with it its claim on the
	# pin directory, so that hf.conf's watch may take it.
	rm $t/hm.conf
	start_ns=$(date +%s%N)
	FSITER_OPEN_TIMEOUT=3 "$tool" watch --timeout 1 $t/hf.conf >$t/hf.out 2>&1 &
	pid=$!
	check "watch exits too" gone_within $pid $((base_ms + 3000 + 1000 + 5000))
	echo "watch gone after $gone_ms ms"
	check_helpers_hold_nothing watch
	kill $fuse
	wait $pid
	wait $fuse
	sleep 1
	check "once the daemon is gone, so are the helpers" test -z "$(pgrep -x fsiter-pin-open)"
	umount -l $t/fuse 2>/dev/null
	"$tool" remove --all >/dev/null
}

test_watch_settle() {
	echo "== watch settles at most 5 s, however the mount table keeps changing"
	"$tool" remove --all >/dev/null 2>&1	# another policy's pins: watch would be refused
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

# Names that try to break a view's lines, and each as every view prints
# it (docs/output.md, "Names and paths"): a forged line after a newline,
# a tab, a backslash (and one before digits, which must not read as an
# escape), a control byte, invalid UTF-8, a space before "(deleted)" and
# valid UTF-8.
hn_raw=($'x\nfile 99999 0 0 1 forged' $'tab\there' 'back\slash' 'lit\012' $'ctl\001x'
	$'bad\xffutf8' 'x (deleted)' $'caf\xc3\xa9')
hn_esc=('x\012file\04099999\0400\0400\0401\040forged' 'tab\011here' 'back\134slash'
	'lit\134012' 'ctl\001x' 'bad\377utf8' 'x\040(deleted)' 'caf\303\251')
# Those of them that mountinfo escapes alike (it leaves other bytes raw).
hn_mountinfo=(0 1 2 3 6)
# pesc STRING: STRING as a policy may write it, every byte as \xNN.
pesc() { printf '%s' "$1" | od -An -v -tx1 | tr -d ' \n' | sed 's/../\\x&/g'; }
# hex: the bytes of stdin, in hex.
hex() { od -An -v -tx1 | tr -d ' \n'; }
# check_bytes NAME ESCAPED RAW: ESCAPED, as a view prints it, decodes to RAW.
check_bytes() { check_eq "$1" "$("$build/tests/unit/view-unescape" "$2" | hex)" "$(printf '%s' "$3" | hex)"; }
# check_text NAME: $out is printable ASCII lines and nothing else.
check_text() { check_eq "$1: printable ASCII only" "$(LC_ALL=C grep -c '[^ -~]' <<<"$out")" 0; }
# check_long NAME GOT WANT: check_eq for values too long to print whole.
check_long() {
	if [[ $2 == "$3" ]]; then pass "$1 (${#2} bytes)"; else fail "$1: got ${#2} bytes, want ${#3}: '${2:0:60}...'"; fi
}
# rest KEY: the rest of the line of KEY in $out, after "KEY ".
rest() { LC_ALL=C awk -v k="$1" 'index($0, k " ") == 1 { print substr($0, length(k) + 2) }' <<<"$out"; }

test_hostile_names() {
	echo "== names that forge lines: every view prints one object per line"
	local d=$t/names i n esc id want one plain long
	"$tool" remove --all >/dev/null 2>&1
	mkdir -p $d
	mount -t tmpfs -o mode=1777 hn $d
	mkdir -p $d/m
	# A user makes the files; root makes the mount points.
	for i in "${!hn_raw[@]}"; do
		as fsa sh -c 'printf x >"$1"' - "$d/${hn_raw[i]}"
		# The name is the mount's source too (mnt.source).
		mkdir "$d/m/${hn_raw[i]}" && mount -t tmpfs "${hn_raw[i]}" "$d/m/${hn_raw[i]}"
	done
	as fsa sh -c 'printf x >"$1"; mkdir "$2" && printf x >"$2/f"' - $d/plain "$d/"$'dir\nx'
	as fsa sh -c 'printf x >"$1"' - "$d/$(printf '\001%.0s' $(seq 1 60))"
	long=$(printf '\377%.0s' $(seq 1 255))
	as fsa sh -c 'printf x >"$1"' - "$d/$long"
	{
		echo "set grant-traverse others"
		echo "inode hn-plain $d/plain 0444"
		echo "inode hn-long $(pesc "$d/$long") 0444"
		for i in "${!hn_raw[@]}"; do
			echo "inode hn-i$i $(pesc "$d/${hn_raw[i]}") 0444"
			echo "mount hn-m$i $(pesc "$d/m/${hn_raw[i]}") 0444"
		done
		echo "cache-top hn-top $d 0444"
	} >$t/hn.conf
	out=$(timeout 120 "$tool" apply $t/hn.conf 2>&1); rc=$?
	echo "$out"
	check_eq "hostile names: apply" "$rc" 0

	plain=$(cat $pins/hn-plain | wc -l)
	for i in "${!hn_raw[@]}"; do
		out=$(cat $pins/hn-i$i)
		check_text "inode $i"
		check_eq "inode $i: as many lines as for a plain name" "$(wc -l <<<"$out")" "$plain"
		check_eq "inode $i: inode.name" "$(rest inode.name)" "${hn_esc[i]}"
		check_bytes "inode $i: inode.name decodes to the name" "$(rest inode.name)" "${hn_raw[i]}"

		out=$(cat $pins/hn-m$i)
		check_text "mount $i"
		check_eq "mount $i: 12 lines" "$(wc -l <<<"$out")" 12
		check_eq "mount $i: mnt.point" "$(rest mnt.point)" "$d/m/${hn_esc[i]}"
		check_eq "mount $i: mnt.source" "$(rest mnt.source)" "${hn_esc[i]}"
		check_bytes "mount $i: mnt.source decodes to the source" "$(rest mnt.source)" "${hn_raw[i]}"
		# show --json, as a user: the names decoded (not UTF-8: as printed).
		if [[ $i != 5 ]]; then
			check_eq "show --json hn-i$i: inode.name" \
				"$(as fsb "$tool" show --json hn-i$i | jq -r .inode.name | hex)" \
				"$(printf '%s\n' "${hn_raw[i]}" | hex)"
			check_eq "show --json hn-m$i: mnt.point" \
				"$(as fsb "$tool" show --json hn-m$i | jq -r .mnt.point | hex)" \
				"$(printf '%s\n' "$d/m/${hn_raw[i]}" | hex)"
		else
			check_eq "show --json hn-i$i: not UTF-8, as printed" \
				"$(as fsb "$tool" show --json hn-i$i | jq -r .inode.name)" "${hn_esc[i]}"
		fi
		check_bytes "mount $i: mnt.point decodes to the mount point" "$(rest mnt.point)" "$d/m/${hn_raw[i]}"
		if [[ " ${hn_mountinfo[*]} " == *" $i "* ]]; then
			id=$(rest mnt.id)
			check_eq "mount $i: mnt.point is mountinfo's field 5" "$(rest mnt.point)" \
				"$(LC_ALL=C awk -v id="$id" '$1 == id { print $5 }' /proc/self/mountinfo)"
		fi
	done
	out=$(cat $pins/hn-long)
	check_text "inode, a name of 255 bytes 0xff"
	check_long "inode, a name of 255 bytes 0xff: escaped whole" "$(rest inode.name)" "${long//$'\377'/\\377}"

	# fsiter-pin's own account of them, from its manifest and mountinfo
	out=$("$tool" list --json)
	for i in "${!hn_raw[@]}"; do
		[[ $i == 5 ]] && continue	# not UTF-8: jq would replace the byte
		check_eq "list --json: hn-i$i path" "$(jq -r ".[] | select(.name == \"hn-i$i\") | .path" <<<"$out" | hex)" \
			"$(printf '%s\n' "$d/${hn_raw[i]}" | hex)"
		check_eq "list --json: hn-m$i mount_point" "$(jq -r ".[] | select(.name == \"hn-m$i\") | .target.mount_point" <<<"$out" | hex)" \
			"$(printf '%s\n' "$d/m/${hn_raw[i]}" | hex)"
	done

	if grep -qa bpf_iter_fs_sb /sys/kernel/btf/vmlinux; then
		out=$(cat $pins/hn-top)
		echo "$out"
		check_text "cache-top"
		n=$((${#hn_raw[@]} + 4))	# and plain, dir\nx/f and the two long names
		check_eq "cache-top: a file line per file" "$(grep -c '^file ' <<<"$out")" "$n"
		check_eq "cache-top: no other line" "$(wc -l <<<"$out")" $((n + 5))
		check_eq "cache-top: no forged line" "$(grep -c '^file 99999 ' <<<"$out")" 0
		check_eq "cache-top: nothing reads as deleted" "$(grep -c ' (deleted)$' <<<"$out")" 0
		for i in "${!hn_raw[@]}"; do
			esc=$(LC_ALL=C awk -v ino="$(stat -c %i "$d/${hn_raw[i]}")" '$1 == "file" && $5 == ino { print $6 }' <<<"$out")
			check_eq "cache-top $i: path" "$esc" "${hn_esc[i]}"
			check_bytes "cache-top $i: path decodes to the name" "$esc" "${hn_raw[i]}"
		done
		check "cache-top: a directory's newline" has '^file [0-9 ]* dir\\012x/f$'
		check_eq "cache-top: names whose escapes do not fit 224 bytes show as ..." \
			"$(grep -c '^file [0-9 ]* \.\.\.$' <<<"$out")" 2
	else
		echo "note: no iter/fs_sb on this kernel: cache-top not checked"
	fi

	echo "== a mount point whose escapes do not fit: its outer names make way for ..."
	out=$(python3 - "$d" "$ktool" "$views/mount.bpf.o" <<-'PY'
	import ctypes, os, subprocess, sys
	libc = ctypes.CDLL(None, use_errno=True)
	os.chdir(sys.argv[1])
	n = b"\x01" * 255
	for _ in range(32):	# deeper than PATH_MAX: each step relative
	    os.mkdir(n)
	    os.chdir(n)
	os.mkdir(n)
	if libc.mount(b"hn", n, b"tmpfs", 0, None):
	    sys.exit("mount: %s" % os.strerror(ctypes.get_errno()))
	r = subprocess.run([sys.argv[2], "read", sys.argv[3], "fsiter_mount", n])
	libc.umount2(n, 0)
	sys.exit(r.returncode)
	PY
	); rc=$?
	check_eq "deep mount: read" "$rc" 0
	check_text "deep mount"
	one=$(printf '\\001%.0s' $(seq 1 255))
	want=...
	for i in $(seq 1 18); do want+=/$one; done
	check_long "deep mount: ... and the last 18 names, escaped" "$(rest mnt.point)" "$want"

	"$tool" remove --all >/dev/null
	for i in "${!hn_raw[@]}"; do umount "$d/m/${hn_raw[i]}"; done
	umount $d
}

run_tests
"$tool" remove --all >/dev/null
finish
