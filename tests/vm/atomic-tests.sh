#!/bin/bash
# apply is all or nothing, but for an entry that fails alone: fault
# injection at every step (in the work directory and the exchange: no pin
# changes; in one entry's attach, pin or perms: that entry fails, the
# others apply), kill -9 at every step and at random points, and
# concurrent applies. Runs as root inside the test VM.
# Its policies are versions of one, each in a file of its own, and the
# pin directory belongs to the one applied last (fsiter-pin(8), apply,
# step 1): each apply takes it over with --force, which does nothing else
# here, as nothing but pins is ever in the pin directory.
# Usage: atomic-tests.sh BUILD_DIR [TEST...]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/vm/lib.sh
. "$here/lib.sh"

suite_init "$@"
work=${pins}_staging
t=/run/at
mkdir -p $t

# snap: the exact state, link ids included
snap() {
	local p f
	for p in "$pins"/*; do
		[[ -e $p ]] || continue
		f=${p##*/}
		printf '%s %s %s %s\n' "$f" "$(stat -c '%a %u %g' $pins/$f)" \
			"$(getfacl -cp $pins/$f 2>/dev/null | tr '\n' ' ')" \
			"$(bpftool link show pinned $pins/$f | awk 'NR == 1 { print $1 }')"
	done
}
# same: the state up to link ids (what a policy decides), with contents
same() {
	local p f
	for p in "$pins"/*; do
		[[ -e $p ]] || continue
		f=${p##*/}
		printf '%s %s %s %s\n' "$f" "$(stat -c '%a %u %g' $pins/$f)" \
			"$(getfacl -cp $pins/$f 2>/dev/null | tr '\n' ' ')" \
			"$(md5sum <$pins/$f)"
	done
}

cat >$t/a.conf <<'P'
set grant-traverse others
cache keepme   /etc/passwd   0444
cache changeme /etc/group    0440 root fsreaders
cache dropme   /etc/hostname 0444
P
cat >$t/b.conf <<'P'
set grant-traverse others
cache keepme   /etc/passwd   0444
cache changeme /etc/group    0400 root root g:fsother:r
inode newone   /etc/passwd   0444
P

"$tool" apply --force $t/b.conf >/dev/null && same_b=$(same)
"$tool" remove --all >/dev/null
"$tool" apply --force $t/a.conf >/dev/null && same_a=$(same)
check "a and b differ" test "$same_a" != "$same_b"

test_faults() {
	echo "== a fault in the work directory or the exchange leaves the old pins exactly as they were"
	for point in gen swap; do
		"$tool" apply --force $t/a.conf >/dev/null
		before=$(snap)
		inode=$(stat -c %i $pins)
		out=$(FSITER_FAULT=$point "$tool" apply --force $t/b.conf 2>&1); rc=$?
		check_eq "$point: apply fails" "$rc" 1
		check "$point: says so" grep -q "fault injected at $point" <<<"$out"
		check "$point: and that no pin changed" grep -q "b.conf: nothing was changed$" <<<"$out"
		check_eq "$point: state unchanged, link ids included" "$(snap)" "$before"
		check_eq "$point: the same pin directory" "$(stat -c %i $pins)" "$inode"
		check_eq "$point: nothing left in the work directory" "$(ls -A $work | wc -l)" 0
	done
}

# without NAME: the state of b.conf but the pin NAME
without() { grep -v "^$1 " <<<"$same_b"; }

test_entry_faults() {
	echo "== a fault while one entry is staged fails that entry alone"
	# b.conf's changes, in order: changeme is replaced (line 3), newone
	# created (line 4), dropme removed; keepme is kept. The first fault
	# hits changeme, the second newone.
	local point n name line why
	for point in attach attach:2 pin pin:2 perms perms:2; do
		n=${point#*:}; [[ $n == "$point" ]] && n=1
		if (( n == 1 )); then name=changeme line=3 why="its pin is removed"
		else name=newone line=4 why="not pinned"; fi
		"$tool" apply --force $t/a.conf >/dev/null
		keep_before=$(snap | grep '^keepme ')
		out=$(FSITER_FAULT=$point "$tool" apply --force $t/b.conf 2>&1); rc=$?
		echo "$out"
		check_eq "$point: some entries failed" "$rc" 3
		case ${point%:*} in
		attach) check "$point: $name's error, with its line" \
			grep -q "b.conf:$line: '$name': cannot attach view '[a-z]*' to /etc/[a-z]*: Input/output error" <<<"$out" ;;
		pin) check "$point: $name's error, with its line" \
			grep -q "b.conf:$line: '$name': cannot pin it: Input/output error" <<<"$out" ;;
		perms) check "$point: $name's error, with its line" \
			grep -q "b.conf:$line: '$name': cannot set its owner, mode and ACL: Input/output error" <<<"$out" ;;
		esac
		check "$point: named at the end" grep -q "b.conf:$line: '$name' failed: $why$" <<<"$out"
		check "$point: the others applied" grep -q "b.conf: 1 entry failed; the others were applied$" <<<"$out"
		check_eq "$point: b's state but $name" "$(same)" "$(without $name)"
		check_eq "$point: keepme kept, its link too" "$(snap | grep '^keepme ')" "$keep_before"
		check "$point: dropme removed" test ! -e $pins/dropme
		check_eq "$point: nothing left in the work directory" "$(ls -A $work | wc -l)" 0
	done
	check "the removal is said" grep -q "^removed dropme: not in the policy$" <<<"$out"

	echo "== the failed entry's old pin is revoked like any other that goes"
	"$tool" apply --force $t/a.conf >/dev/null
	hold ef $pins/changeme
	check_eq "before: fsa re-opens changeme" "$(probe ef)" read
	out=$(FSITER_FAULT=perms "$tool" apply --force $t/b.conf 2>&1); rc=$?
	check_eq "perms on changeme: some entries failed" "$rc" 3
	check "it says the pin went" grep -q "^removed changeme: its entry failed$" <<<"$out"
	check_eq "after: re-open fails" "$(probe ef)" "Permission denied"
	unhold ef

	echo "== when every change fails, the pin directory is not exchanged"
	"$tool" apply --force $t/a.conf >/dev/null
	printf '%s\n' "$(cat $t/a.conf)" "inode extra /etc/passwd 0444" >$t/a-extra.conf
	before=$(snap)
	inode=$(stat -c %i $pins)
	out=$(FSITER_FAULT=attach "$tool" apply --force $t/a-extra.conf 2>&1); rc=$?
	echo "$out"
	check_eq "the one new entry fails" "$rc" 3
	check "named" grep -q "a-extra.conf:5: 'extra' failed: not pinned$" <<<"$out"
	check "counted, not 'nothing to do'" grep -q "^0 created, 0 replaced, 0 removed, 3 unchanged, 1 failed$" <<<"$out"
	check_eq "state unchanged, link ids included" "$(snap)" "$before"
	check_eq "the same pin directory" "$(stat -c %i $pins)" "$inode"
	check_eq "nothing left in the work directory" "$(ls -A $work | wc -l)" 0
}

test_fault_after_switch() {
	echo "== a fault after the switch: the new pins stand, the next run cleans up"
	"$tool" apply --force $t/a.conf >/dev/null
	out=$(FSITER_FAULT=cleanup "$tool" apply --force $t/b.conf 2>&1); rc=$?
	check_eq "cleanup: apply succeeds" "$rc" 0
	check_eq "cleanup: the state is b's" "$(same)" "$same_b"
	check "cleanup: the old pins are left in the work directory" test -n "$(ls -A $work)"
	check_eq "cleanup: they are out of reach" "$(stat -c %a $work)" 700
	"$tool" list >/dev/null
	check_eq "cleanup: list emptied the work directory" "$(ls -A $work | wc -l)" 0
}

test_kill_at_each_step() {
	echo "== kill -9 at each step: the old state, or the new one after the switch"
	for point in gen keep attach pin perms swap cleanup; do
		"$tool" apply --force $t/a.conf >/dev/null
		before=$(snap)
		FSITER_FAULT="$point!" "$tool" apply --force $t/b.conf >/dev/null 2>&1; rc=$?
		check_eq "$point!: killed" "$rc" 137
		if [[ $point == cleanup ]]; then
			check_eq "$point!: the state is b's" "$(same)" "$same_b"
		else
			check_eq "$point!: state unchanged, link ids included" "$(snap)" "$before"
		fi
		"$tool" list >/dev/null
		check_eq "$point!: the next run empties the work directory" "$(ls -A $work | wc -l)" 0
	done
}

test_kill_at_random() {
	echo "== kill -9 at random points"
	bad=0
	for i in $(seq 1 16); do
		if (( i % 2 )); then p=$t/b.conf; else p=$t/a.conf; fi
		"$tool" apply --force $p >/dev/null 2>&1 &
		pid=$!
		sleep "0.$(( RANDOM % 60 ))"
		kill -9 $pid 2>/dev/null
		wait $pid 2>/dev/null
		"$tool" list >/dev/null 2>&1
		s=$(same)
		if [[ $s != "$same_a" && $s != "$same_b" ]]; then
			bad=$((bad + 1)); echo "run $i: neither a nor b:"; echo "$s"
		fi
	done
	check_eq "16 killed applies each left a or b" "$bad" 0
}

test_concurrent() {
	echo "== 8 concurrent applies of 8 policies end in exactly one of them"
	"$tool" remove --all >/dev/null
	for i in $(seq 1 8); do
		{
			echo "set grant-traverse others"
			echo "cache p$i-a /etc/passwd 0444"
			echo "cache p$i-b /etc/group 0440 root fsreaders"
			echo "inode shared /etc/passwd 0400 root root u:fsa:r"
		} >$t/c$i.conf
	done
	pids=()
	for i in $(seq 1 8); do
		"$tool" apply --force $t/c$i.conf >$t/c$i.out 2>&1 &
		pids+=($!)
	done
	fails=0
	for pid in "${pids[@]}"; do wait $pid || fails=$((fails + 1)); done
	check_eq "all 8 succeed, one after another" "$fails" 0
	names=$(ls $pins | tr '\n' ' ')
	winner=$(sed -n 's/^p\([0-9]\)-a .*/\1/p' <<<"$(ls $pins | sed 's/$/ /')" | head -1)
	check_eq "the pins are one policy's" "$names" "p$winner-a p$winner-b shared "
	out=$("$tool" apply --force $t/c$winner.conf 2>&1)
	check "and match it exactly" grep -q "^nothing to do: 3 pins match the policy$" <<<"$out"
	check_eq "no pin left from another" "$(bpftool link show | grep -c iter)" 3
}

# hold NAME PATH [FILE]: as fsa, hold an O_PATH fd on PATH (holdfd.py);
# probe NAME [chmod|setfacl] then re-opens through it (or FILE under the
# held directory), first widening the file's mode or ACL through the fd
# if asked, and prints "read" or why not. unhold NAME stops it.
hold() {
	local d=$t/hold-$1
	rm -rf "$d" && mkdir -m 0777 "$d"
	as fsa python3 "$here/holdfd.py" "${@:2}" "$d" &
	# A minute: python3 starts slowly under TCG on a loaded host, and a
	# holder that is not ready yet would take its fd after what the test
	# does next.
	for _ in $(seq 1 600); do [[ -e $d/ready ]] && break; sleep 0.1; done
	check "the holder $1 has its fd" test -e "$d/ready"
	echo 0 >"$d/n"
}
probe() {
	local d=$t/hold-$1 n
	n=$(( $(cat "$d/n") + 1 ))
	echo $n >"$d/n"
	echo "${2:-}" >"$d/go.$n"
	for _ in $(seq 1 600); do [[ -s $d/res.$n ]] && break; sleep 0.1; done
	cat "$d/res.$n" 2>/dev/null || echo "no answer"
}
unhold() { touch "$t/hold-$1/stop"; }
# take_link NAME PIN [writable]: as fsa, PIN's owner, take an fd on PIN's
# link itself (holdlink.py; with "writable" PIN stays u+w); its ready
# file is empty, or says why not. probe NAME then walks the link anew and
# prints its first line, "empty", or why not; unhold NAME stops it.
take_link() {
	local d=$t/hold-$1
	rm -rf "$d" && mkdir -m 0777 "$d"
	as fsa python3 "$here/holdlink.py" "${@:2:1}" "$d" "${@:3}" &
	for _ in $(seq 1 200); do [[ -e $d/ready ]] && break; sleep 0.1; done
	echo 0 >"$d/n"
}

test_revoke() {
	echo "== a revoked reader who holds an O_PATH fd cannot re-open the pin"
	printf 'set grant-traverse yes\n%s\n%s\n' \
		"cache rv /etc/passwd 0400 root root u:fsa:r" \
		"cache rs /etc/group 0400 root root u:fsa:r" >$t/r1.conf
	printf 'set grant-traverse yes\n%s\n' "cache rv /etc/passwd 0400 root root" >$t/r2.conf
	printf '%s\n%s\n' "$(cat $t/r1.conf)" "cache rn /etc/hostname 0400" >$t/r3.conf
	"$tool" remove --all >/dev/null 2>&1
	"$tool" apply --force $t/r1.conf >/dev/null
	hold rv $pins/rv
	hold rs $pins/rs
	check_eq "granted: the fd re-opens" "$(probe rv)" read
	"$tool" apply --force $t/r3.conf >/dev/null
	check_eq "a kept pin still re-opens" "$(probe rv)" read
	check_eq "and keeps its mode (the group bits: the mask)" "$(stat -c %a $pins/rv)" 440
	"$tool" apply --force $t/r2.conf >/dev/null
	check_eq "grant dropped by apply: re-open fails" "$(probe rv)" "Permission denied"
	check_eq "entry dropped by apply: re-open fails" "$(probe rs)" "Permission denied"
	unhold rv; unhold rs

	"$tool" apply --force $t/r1.conf >/dev/null
	hold rm $pins/rv
	check_eq "before remove: the fd re-opens" "$(probe rm)" read
	"$tool" remove rv >/dev/null
	check_eq "after remove: re-open fails" "$(probe rm)" "Permission denied"
	unhold rm

	"$tool" apply --force $t/r1.conf >/dev/null
	hold dir $pins rv
	check_eq "through the directory: opens" "$(probe dir)" read
	FSITER_FAULT=cleanup "$tool" apply --force $t/r2.conf >/dev/null 2>&1
	check "the old directory is left in the work directory" test -d $work/next
	check_eq "through the old directory: refused" "$(probe dir)" "Permission denied"
	check_eq "the old directory is 0700" "$(stat -c %a $work/next)" 700
	unhold dir
	"$tool" remove --all >/dev/null
}

# The owner of an inode may chmod it and set its ACL, through a kept fd
# too: a revoked pin must be root's before its mode is cut.
test_revoke_owner() {
	echo "== a revoked pin's former owner cannot give it back to themself"
	local how
	printf 'set grant-traverse yes\n%s\n%s\n' \
		"cache ow /etc/passwd 0400 fsa root" \
		"cache ok /etc/group 0400 root root" >$t/o1.conf
	printf 'set grant-traverse yes\n%s\n' "cache ok /etc/group 0400 root root" >$t/o2.conf
	"$tool" remove --all >/dev/null 2>&1
	for how in chmod setfacl; do
		"$tool" apply --force $t/o1.conf >/dev/null
		check_eq "owner fsa" "$(stat -c %U $pins/ow)" fsa
		hold ow-$how $pins/ow
		check_eq "the owner's fd re-opens" "$(probe ow-$how)" read
		"$tool" apply --force $t/o2.conf >/dev/null
		check_eq "entry dropped by apply, then $how through the fd: refused" \
			"$(probe ow-$how $how)" "Operation not permitted"
		check_eq "and a plain re-open: refused" "$(probe ow-$how)" "Permission denied"
		unhold ow-$how
	done
	"$tool" apply --force $t/o1.conf >/dev/null
	hold ow-rm $pins/ow
	check_eq "the owner's fd re-opens" "$(probe ow-rm)" read
	"$tool" remove ow >/dev/null
	check_eq "after remove, chmod through the fd: refused" "$(probe ow-rm chmod)" "Operation not permitted"
	# EPERM (not the owner) as a rule; one CI run on 6.12 saw EACCES.
	# Either is a refusal, and the re-open below shows nothing came back.
	out=$(probe ow-rm setfacl)
	check "after remove, setfacl through the fd: refused ($out)" \
		grep -qxE "Operation not permitted|Permission denied" <<<"$out"
	check_eq "after remove, re-open: refused" "$(probe ow-rm)" "Permission denied"
	unhold ow-rm
	"$tool" apply --force $t/o1.conf >/dev/null
	hold ow-all $pins/ow
	check_eq "the owner's fd re-opens" "$(probe ow-all)" read
	"$tool" remove --all >/dev/null
	check_eq "after remove --all, chmod through the fd: refused" "$(probe ow-all chmod)" "Operation not permitted"
	check_eq "after remove --all, re-open: refused" "$(probe ow-all)" "Permission denied"
	unhold ow-all
	revoke_link
}

# link_of PIN: the id of PIN's link.
link_of() { bpftool link show pinned "$pins/$1" | awk 'NR == 1 { print $1 }'; }

# The owner of a pin may give itself write permission and take an fd on
# the link itself (BPF_OBJ_GET), then start walks of it (BPF_ITER_CREATE)
# whenever it likes: a revocation gives the link a program of the same
# target that prints nothing first. One pin of each target kind.
revoke_link() {
	echo "== a revoked owner's own fd on the link walks a program that prints nothing"
	local how name out rc ok
	echo "kernel.unprivileged_bpf_disabled = $(cat /proc/sys/kernel/unprivileged_bpf_disabled)"
	echo data >$t/owned && chown fsa $t/owned && cat $t/owned >/dev/null
	printf 'set grant-traverse yes\n%s\n%s\n%s\n%s\n' \
		"cache lc $t/owned 0400 fsa root" \
		"mount lm $t 0400 fsa root" \
		"cache-summary ls $t 0400 fsa root" \
		"cache ok /etc/group 0400 root root" >$t/l1.conf
	"$tool" remove --all >/dev/null 2>&1
	for how in apply remove; do
		"$tool" apply --force $t/l1.conf >/dev/null
		ok=$(link_of ok)
		for name in lc lm ls; do
			take_link $how-$name $pins/$name
			check_eq "$name: its owner took the link" "$(cat $t/hold-$how-$name/ready)" ""
		done
		check "lc: the link walks the view" grep -q '^cache.cached [0-9]' <<<"$(probe $how-lc)"
		check "lm: the link walks the view" grep -q '^mnt.id [0-9]' <<<"$(probe $how-lm)"
		out=$(probe $how-ls)
		check "ls: the link walks the view ($out)" test "$out" != empty -a "$out" != "no answer"
		if [[ $how == apply ]]; then
			"$tool" apply --force $t/o2.conf >/dev/null
		else
			"$tool" remove lc lm ls >/dev/null
		fi
		for name in lc lm ls; do
			check_eq "$name dropped by $how: its link walks nothing" "$(probe $how-$name)" empty
			unhold $how-$name
		done
		check_eq "$how: ok kept, its link too" "$(link_of ok)" "$ok"
		check "$how: and ok still shows the view" grep -q '^cache.cached [0-9]' "$pins/ok"
	done
	# (fsa's search entry, which l1.conf's apply added, is a finding of
	# o2.conf's audit: it does not grant fsa)
	out=$("$tool" audit $t/o2.conf 2>&1); echo "$out"
	check "audit: ok's program is still the view's" bash -c '! grep -q "^[a-z-]*  *ok: " <<<"$1"' - "$out"
	check "audit: it says so of nothing else but fsa's entry" bash -c \
		'[[ $(grep -c "^[a-z-]*  " <<<"$1") == 1 ]] && grep -q "^extra-search  */sys/fs/bpf: u:fsa has" <<<"$1"' - "$out"

	echo "== a replaced pin: the old link walks nothing, the new one the view"
	"$tool" apply --force $t/l1.conf >/dev/null
	take_link rp $pins/lc writable
	check_eq "its owner made lc writable" "$(stat -c %a $pins/lc)" 600
	out=$("$tool" apply --force $t/l1.conf 2>&1)
	check "lc is replaced (its mode drifted)" grep -q "^replaced lc: .*(mode differs)$" <<<"$out"
	check_eq "the old link walks nothing" "$(probe rp)" empty
	check "the new pin shows the view to its owner" grep -q '^cache.cached [0-9]' <<<"$(as fsa cat $pins/lc)"
	unhold rp

	# Faults: a test build only.
	"$tool" --version | grep -q "a test build" || { echo "(not a test build: no faults)"; return; }
	echo "== a link that cannot be neutered: its pin is revoked and removed all the same, and it is said"
	grep -v "^cache lc " $t/l1.conf >$t/l3.conf
	"$tool" apply --force $t/l1.conf >/dev/null
	take_link nf $pins/lc
	hold nf-fd $pins/lc
	out=$(FSITER_FAULT=stub "$tool" apply --force $t/l3.conf 2>&1 >$t/nf.out); rc=$?
	echo "$out"
	check_eq "stub: apply exits 3" "$rc" 3
	check "stub: lc is removed, as said" grep -qx "removed lc: not in the policy" $t/nf.out
	check "stub: the stub's failure is said" \
		grep -q "stub 'revoked_inode': cannot load it: Input/output error" <<<"$out"
	check "stub: and the link's" grep -q "'lc': cannot neuter its link: Input/output error" <<<"$out"
	check "stub: the last message, how many" grep -qx "fsiter-pin: /sys/fs/bpf/fsiter: 1 revoked link could not be neutered: an fd on it, taken while its pin was granted, still walks the view" <<<"$(tail -n1 <<<"$out")"
	check "stub: lc removed all the same" test ! -e $pins/lc
	check_eq "stub: and revoked: a re-open through a held fd is refused" "$(probe nf-fd)" "Permission denied"
	check "stub: the link fd still walks the view, as said" grep -q '^cache.cached [0-9]' <<<"$(probe nf)"
	check_eq "stub: nothing left in the work directory" "$(ls -A $work | wc -l)" 0
	unhold nf; unhold nf-fd

	"$tool" apply --force $t/l1.conf >/dev/null
	take_link nr $pins/lm
	out=$(FSITER_FAULT=neuter "$tool" remove lm ls 2>&1); rc=$?
	echo "$out"
	check_eq "neuter: remove fails" "$rc" 1
	check "neuter: said" grep -q "'lm': cannot neuter its link: Input/output error" <<<"$out"
	check "neuter: lm removed all the same" grep -qx "removed lm" <<<"$out"
	check "neuter: and ls after it" grep -qx "removed ls" <<<"$out"
	check "neuter: and gone" test ! -e $pins/lm -a ! -e $pins/ls
	check "neuter: the link fd still walks the view" grep -q '^mnt.id [0-9]' <<<"$(probe nr)"
	unhold nr

	echo "== killed before it neutered the old links: the next run does"
	"$tool" apply --force $t/l1.conf >/dev/null
	take_link nk $pins/lc
	FSITER_FAULT='neuter!' "$tool" apply --force $t/l3.conf >/dev/null 2>&1; rc=$?
	check_eq "neuter!: killed" "$rc" 137
	check "neuter!: lc is gone from the pin directory" test ! -e $pins/lc
	check "neuter!: its link not neutered yet" grep -q '^cache.cached [0-9]' <<<"$(probe nk)"
	"$tool" list >/dev/null
	check_eq "neuter!: list emptied the work directory" "$(ls -A $work | wc -l)" 0
	check_eq "neuter!: and neutered the link first" "$(probe nk)" empty
	unhold nk
	"$tool" remove --all >/dev/null
}

test_isolated_failures() {
	echo "== a view that does not load, a pin that cannot be read or kept: that entry alone"
	local out rc
	"$tool" apply --force $t/a.conf >/dev/null
	keep_before=$(snap | grep '^keepme ')
	out=$(FSITER_FAULT=keep "$tool" apply --force $t/b.conf 2>&1); rc=$?
	echo "$out"
	check_eq "keep: a kept pin that cannot be linked is made anew" "$rc" 0
	check "keep: said" grep -q "^fsiter-pin: keepme: made anew, as its pin could not be kept$" <<<"$out"
	check "keep: a new link" test "$(snap | grep '^keepme ')" != "$keep_before"
	check_eq "keep: otherwise b's state" "$(same)" "$same_b"

	"$tool" apply --force $t/a.conf >/dev/null
	out=$(FSITER_FAULT=inspect "$tool" apply --force $t/a.conf 2>&1); rc=$?
	echo "$out"
	check_eq "inspect: a pin that cannot be read is replaced" "$rc" 0
	check "inspect: said" grep -q "cannot read it (Input/output error); it is replaced" <<<"$out"
	check_eq "inspect: a's state" "$(same)" "$same_a"

	"$tool" apply --force $t/a.conf >/dev/null
	out=$(FSITER_FAULT=load "$tool" apply --force $t/b.conf 2>&1); rc=$?
	echo "$out"
	check_eq "load: the entries of that view fail" "$rc" 3
	check "load: each named" grep -q "b.conf:[0-9]*: '[a-z]*': view '[a-z-]*' did not load" <<<"$out"
	check "load: the others applied" grep -q "b.conf: [0-9]* entr[a-z]* failed; the others were applied$" <<<"$out"
	check "load: dropme removed all the same" test ! -e $pins/dropme
	check_eq "nothing left in the work directory" "$(ls -A $work | wc -l)" 0
	"$tool" remove --all >/dev/null
}

# wait_for_lock FILE: until the apply whose messages go to FILE waits for
# the pin directory's lock (it has read its policy by then).
wait_for_lock() {
	for _ in $(seq 1 300); do
		grep -q "waiting up to .* for the lock" "$1" && return 0
		sleep 0.1
	done
	return 1
}

# acl_of PIN: its ACL, on one line.
acl_of() { getfacl -cp "$pins/$1" 2>/dev/null | tr '\n' ' '; }

test_stale_policy() {
	echo "== a policy read before the lock and changed since is not committed"
	local conf=$t/sp.conf holder a b rc
	printf 'set grant-traverse yes\ncache sp /etc/passwd 0400 root root u:fsa:r\n' >$t/sp-v1
	printf 'set grant-traverse yes\ncache sp /etc/passwd 0400 root root\n' >$t/sp-v2
	"$tool" remove --all >/dev/null 2>&1
	install -m 0600 $t/sp-v1 $conf
	"$tool" apply --force $conf >/dev/null
	check "v1 grants fsa" grep -q "user:fsa:r" <<<"$(acl_of sp)"

	# The refresh watch's case: it reads v1, waits for the lock; the
	# admin writes v2, which revokes fsa; the watch must commit v2.
	flock ${pins}_staging sleep 60 &
	holder=$!
	sleep 0.5
	"$tool" apply --force $conf >$t/sp-a.out 2>&1 &
	a=$!
	check "the apply waits for the lock" wait_for_lock $t/sp-a.out
	install -m 0600 $t/sp-v2 $conf
	unlock
	wait $a; rc=$?
	cat $t/sp-a.out
	check_eq "it succeeds" "$rc" 0
	check "what it committed is v2: fsa has no grant" \
		bash -c '! grep -q "user:fsa" <<<"$1"' _ "$(acl_of sp)"

	# Two applies, both read before the lock: one of v1, one of v2
	# (written in between). Whichever takes the lock last, v2 stays.
	install -m 0600 $t/sp-v1 $conf
	"$tool" apply --force $conf >/dev/null
	flock ${pins}_staging sleep 60 &
	holder=$!
	sleep 0.5
	"$tool" apply --force $conf >$t/sp-a.out 2>&1 &
	a=$!
	wait_for_lock $t/sp-a.out
	install -m 0600 $t/sp-v2 $conf
	"$tool" apply --force $conf >$t/sp-b.out 2>&1 &
	b=$!
	check "both wait for the lock" wait_for_lock $t/sp-b.out
	unlock
	wait $a; rc=$?
	check_eq "the first succeeds" "$rc" 0
	wait $b; rc=$?
	check_eq "the second succeeds" "$rc" 0
	check "v2 is what stays: fsa has no grant" \
		bash -c '! grep -q "user:fsa" <<<"$1"' _ "$(acl_of sp)"
	"$tool" remove --all >/dev/null
}

# unlock: stop the flock(1) at $holder and the sleep it runs.
unlock() {
	kill $(pgrep -P "$holder") "$holder" 2>/dev/null
	wait "$holder" 2>/dev/null
}

run_tests
"$tool" remove --all >/dev/null
finish
