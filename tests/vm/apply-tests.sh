#!/bin/bash
# fsiter-pin apply, list and remove from end to end, as root inside the
# test VM, with the readers fsa (group fsreaders) and fsb (group fsother).
# A test's policies that replace one another, each in a file of its own,
# are versions of one policy: the next takes the pin directory over from
# the last with --force (fsiter-pin(8), apply, step 1), which does
# nothing else where nothing but pins is in the pin directory.
# Usage: apply-tests.sh BUILD_DIR [TEST...]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/vm/lib.sh
. "$here/lib.sh"

suite_init "$@"
t=/run/t
policy=$t/policy.conf

# reads USER PIN: the user's cat succeeds
reads() { as "$1" cat "$2" >/dev/null 2>&1; }
# refused USER PIN: the user's cat fails with EACCES
refused() {
	local e
	e=$(as "$1" cat "$2" 2>&1 >/dev/null) && return 1
	[[ $e == *"Permission denied"* ]]
}
# state: everything an apply could change, to compare before and after
state() {
	ls -ln --time-style=+ $pins 2>&1
	getfacl -Rp /sys/fs/bpf 2>&1 | grep -v '^# file' || true
	bpftool link show 2>&1 | grep -c iter || true
}

mkdir -p $t
dd if=/dev/urandom of=$t/report.db bs=1M count=8 status=none
chown fsa:fsa $t/report.db
dd if=$t/report.db of=/dev/null bs=1M count=4 status=none
mkfifo $t/fifo
ln -s $t/report.db $t/link

cat >$policy <<'POLICY'
# the readers: fsa through group fsreaders, fsb through named entries
cache     report-cache  /run/t/report.db  0440  root  fsreaders
inode     report-inode  /run/t/report.db  0400  root  root   g:fsreaders:r
inode-raw report-raw    /run/t/report.db
mount     run-mnt       /run/t            0400  root  root   u:fsb:r,g:fsreaders:r
cache     fifo          /run/t/fifo       0440  root  fsreaders
cache     absent        /run/t/absent     0444  -     -      -    nofail
POLICY

test_unreachable() {
	echo "== readers who cannot reach the pins: those entries fail, the others apply"
	out=$("$tool" apply $policy 2>&1); rc=$?
	echo "$out"
	check_eq "some entries fail while /sys/fs/bpf is 0700" "$rc" 3
	check "it names the entry, the group and the directory" \
		has "policy.conf:2: 'report-cache' grants group 'fsreaders' read access, but /sys/fs/bpf (mode 1700) does not let it through"
	check "it names user fsb too" has "grants user 'fsb' read access"
	check "it says how to fix it" has "hint: let it through with 'setfacl -m g:fsreaders:x /sys/fs/bpf', or put 'set grant-traverse yes' in the policy"
	check "and each entry that failed" has "policy.conf:2: 'report-cache' failed: pinned, but a reader it grants cannot reach it (said above)"
	check "an entry for root alone is not held up" test -e $pins/report-raw
	check "the stopped ones are pinned, as the policy says" test -e $pins/report-cache
	"$tool" remove --all >/dev/null
}

test_grant_traverse() {
	echo "== grant-traverse from a drop-in, then apply"
	mkdir $t/policy.d
	echo "set grant-traverse yes" >$t/policy.d/10-traverse.conf
	out=$("$tool" apply $policy 2>&1); rc=$?
	echo "$out"
	check_eq "apply succeeds" "$rc" 0
	check "absent path skipped (nofail)" has "'absent': /run/t/absent does not exist; skipped (nofail)"
	check "summary" has "^5 created, 0 replaced, 0 removed, 0 unchanged, 1 skipped (nofail)$"
	check "x for fsreaders on /sys/fs/bpf" bash -c "getfacl -p /sys/fs/bpf | grep -qx 'group:fsreaders:--x'"
	check "x for fsb on /sys/fs/bpf" bash -c "getfacl -p /sys/fs/bpf | grep -qx 'user:fsb:--x'"
	check_eq "/sys/fs/bpf stays closed to others" "$(getfacl -p /sys/fs/bpf 2>/dev/null | sed -n 's/^other:://p')" "---"
	check_eq "pin dir" "$(stat -c '%a %U' $pins)" "755 root"
	check_eq "work dir is root's alone" "$(stat -c '%a %U' ${pins}_staging)" "700 root"
	check_eq "the work directory is empty" "$(ls -A ${pins}_staging | wc -l)" 0
}

test_perms() {
	needs test_grant_traverse
	echo "== owner, mode and ACL"
	check_eq "report-cache" "$(stat -c '%a %U %G' $pins/report-cache)" "440 root fsreaders"
	check_eq "report-inode mode shows the mask" "$(stat -c '%a %U %G' $pins/report-inode)" "440 root root"
	check "report-inode ACL" bash -c "getfacl -p $pins/report-inode | grep -qx 'group:fsreaders:r--'"
	check_eq "report-raw is root's" "$(stat -c '%a %U %G' $pins/report-raw)" "400 root root"
	check "run-mnt ACL names fsb" bash -c "getfacl -p $pins/run-mnt | grep -qx 'user:fsb:r--'"
}

test_readers() {
	needs test_grant_traverse
	echo "== each reader gets exactly what the policy grants"
	check "fsa reads report-cache" reads fsa $pins/report-cache
	check "fsa reads report-inode" reads fsa $pins/report-inode
	check "fsa reads run-mnt" reads fsa $pins/run-mnt
	check "fsa reads fifo (and it does not block)" timeout 20 setpriv --reuid=fsa --regid=fsa --init-groups cat $pins/fifo
	check "fsa refused report-raw" refused fsa $pins/report-raw
	check "fsb refused report-cache" refused fsb $pins/report-cache
	check "fsb refused report-inode" refused fsb $pins/report-inode
	check "fsb refused fifo" refused fsb $pins/fifo
	check "fsb refused report-raw" refused fsb $pins/report-raw
	check "fsb reads run-mnt" reads fsb $pins/run-mnt
	cached=$(as fsa cat $pins/report-cache | field cache.cached)
	check_eq "report-cache counts what fincore counts" "$cached" "$(fincore -nb -o PAGES $t/report.db | tr -d ' ')"
	check_eq "report-inode is the file" "$(as fsa cat $pins/report-inode | field inode.ino)" "$(stat -c %i $t/report.db)"
	check_eq "run-mnt is the mount of /run/t" "$(as fsb cat $pins/run-mnt | field mnt.point)" "/run"
	check "root reads report-raw" bash -c "cat $pins/report-raw | grep -q i_ino"
}

test_views_once() {
	needs test_grant_traverse
	echo "== views are loaded once"
	out=$("$tool" list -n -r -o VIEW,PROG)
	check_eq "two cache pins" "$(awk '$1 == "cache"' <<<"$out" | wc -l)" 2
	check_eq "both cache pins run one program" "$(awk '$1 == "cache" { print $2 }' <<<"$out" | sort -u | wc -l)" 1
}

test_reapply() {
	needs test_grant_traverse
	echo "== the same policy again changes nothing, and says so"
	before=$(state)
	out=$("$tool" apply $policy 2>&1); rc=$?
	echo "$out"
	check_eq "apply succeeds" "$rc" 0
	check "nothing to do" has "^nothing to do: 5 pins match the policy$"
	check_eq "state unchanged" "$(state)" "$before"
}

test_dry_run() {
	needs test_grant_traverse
	before=$(state)
	echo "== --dry-run of a changed policy changes nothing"
	cat >$t/policy2.conf <<'POLICY'
set grant-traverse others
cache     report-cache  /run/t/report.db  0444  root  fsreaders
inode     report-inode  /run/t/report.db  0400  root  root   u:fsb:r
inode-raw report-raw    /run/t/report.db
mount     run-mnt       /run/t            0400  root  root   u:fsb:r,g:fsreaders:r
cache     passwd        /etc/passwd       0444
cache     devnull       /dev/null         0444
cache     report-open   /run/t/report.db  0444  -     -      -    expose-cache
POLICY
	out=$("$tool" apply --dry-run --force $t/policy2.conf 2>&1); rc=$?
	echo "$out"
	check_eq "dry run succeeds" "$rc" 0
	check "would replace report-cache (mode)" has "^would replace report-cache: cache of /run/t/report.db (mode differs)$"
	check "would replace report-inode (ACL)" has "^would replace report-inode: inode of /run/t/report.db (ACL differs)$"
	check "would create passwd" has "^would create passwd: cache of /etc/passwd$"
	check "would create report-open" has "^would create report-open: cache of /run/t/report.db$"
	check "would remove fifo" has "^would remove fifo: not in the policy$"
	check "dry-run summary" has "^dry run, nothing changed: 3 created, 2 replaced, 1 removed, 2 unchanged$"
	check_eq "state unchanged by --dry-run" "$(state)" "$before"
}

test_apply_changed() {
	needs test_dry_run
	echo "== apply the changed policy"
	out=$("$tool" apply --force $t/policy2.conf 2>&1); rc=$?
	echo "$out"
	check_eq "apply succeeds" "$rc" 0
	check "summary" has "^3 created, 2 replaced, 1 removed, 2 unchanged$"
	check "fifo is gone" test ! -e $pins/fifo
	check "fsb now reads report-cache (0444)" reads fsb $pins/report-cache
	check_eq "but fsb neither owns nor may write report.db: withheld" \
		"$(as fsb cat $pins/report-cache)" "cache.withheld the reader neither owns nor may write this file"
	check_eq "fsa owns it and sees the counts" "$(as fsa cat $pins/report-cache | field cache.cached)" \
		"$(fincore -nb -o PAGES $t/report.db | tr -d ' ')"
	check_eq "expose-cache shows fsb the counts" "$(as fsb cat $pins/report-open | field cache.cached)" \
		"$(fincore -nb -o PAGES $t/report.db | tr -d ' ')"
	check "fsb now reads report-inode (u:fsb:r)" reads fsb $pins/report-inode
	check "fsa no longer reads report-inode" refused fsa $pins/report-inode
	check "fsa reads passwd" reads fsa $pins/passwd
	check "fsb reads devnull" reads fsb $pins/devnull
	check_eq "the work directory is empty" "$(ls -A ${pins}_staging | wc -l)" 0
}

test_bad_input() {
	needs test_apply_changed
	echo "== bad input changes nothing"
	before=$(state)
	# A bad entry fails alone: the rest of the policy (policy2's) applies.
	n=$(( $(wc -l <$t/policy2.conf) + 1 ))
	{ cat $t/policy2.conf; printf 'cache sym /run/t/link 0444\n'; } >$t/bad1.conf
	out=$("$tool" apply --force $t/bad1.conf 2>&1); rc=$?
	echo "$out"
	check_eq "a symlink is refused, alone" "$rc" 3
	check "with file, line and why" has "bad1.conf:$n: path '/run/t/link': a component is a symbolic link; write the path it points to"
	check "and named at the end" has "bad1.conf:$n: 'sym' failed: not pinned"
	printf 'cache x /run/t/report.db\ninod y /etc/passwd\ncache z /etc/passwd 0446\n' >$t/bad2.conf
	out=$("$tool" apply $t/bad2.conf 2>&1); rc=$?
	echo "$out"
	check_eq "a bad policy is refused" "$rc" 1
	check "the view named" has "bad2.conf:2: unknown view 'inod'"
	check "the mode named" has "bad2.conf:3: mode '0446': world-writable"
	{ cat $t/policy2.conf; printf 'cache x /run/t/nope 0444\n'; } >$t/bad3.conf
	out=$("$tool" apply --force $t/bad3.conf 2>&1); rc=$?
	check_eq "a missing path without nofail is an error" "$rc" 3
	check "named" has "bad3.conf:$n: path '/run/t/nope': no such file or directory"
	check_eq "state unchanged by bad input" "$(state)" "$before"
	out=$(as fsa "$tool" apply $t/policy2.conf 2>&1); rc=$?
	check_eq "an unprivileged apply fails" "$rc" 1
	check "and names the capability it lacks" has "missing capability cap_bpf"
}

test_list() {
	needs test_apply_changed
	echo "== list"
	out=$("$tool" list); echo "$out"
	check_eq "one line per pin, plus the header" "$(wc -l <<<"$out")" 8
	check "list marks the expose-cache program" has "^report-open \+cache:all "
	check "list shows view, path, owner, mode and readers" has "^report-inode \+inode .* /run/t/report.db \+root \+root \+0440 \+u:root,u:fsb "
	check "list shows the mount point" has "^run-mnt \+mount \+mnt [0-9]\+ /run "
}

test_remove() {
	needs test_apply_changed
	echo "== remove"
	out=$("$tool" remove report-cache nosuch 2>&1); rc=$?
	check_eq "remove with an unknown name fails" "$rc" 1
	check "naming it" has "no pin 'nosuch'"
	check "and removes nothing" test -e $pins/report-cache
	check "remove one" "$tool" remove report-cache
	check "it is gone" test ! -e $pins/report-cache
	check "the others stay and still read" reads fsb $pins/report-inode
	check "remove --all" "$tool" remove --all
	check_eq "nothing left" "$(ls $pins | wc -l)" 0
	check_eq "no iterator links left" "$(bpftool link show | grep -c iter)" 0
}

# try NAME LINE...: apply $t/NAME.conf, made of the LINEs; its output in
# $out (and printed), its status in $rc
try() {
	printf '%s\n' "${@:2}" >"$t/$1.conf"
	out=$("$tool" apply "$t/$1.conf" 2>&1); rc=$?
	echo "$out"
}

# acl_of WHAT: the permissions of /sys/fs/bpf's ACL entry WHAT ("other::")
acl_of() { getfacl -p /sys/fs/bpf 2>/dev/null | sed -n "s/^$1//p"; }

test_traverse_scope() {
	echo "== grant-traverse: yes adds no o+x and raises no mask; both are taken back"
	"$tool" remove --all >/dev/null 2>&1
	setfacl -b /sys/fs/bpf && chmod go-rwx /sys/fs/bpf
	rm -f /run/fsiter-pin/.grant-traverse.json
	try tv "set grant-traverse yes" "cache tv-o /etc/passwd 0444"
	check_eq "yes: a pin for everyone fails (exit 3)" "$rc" 3
	check "the hint names 'others'" has "put 'set grant-traverse others' in the policy"
	check_eq "o stays ---" "$(acl_of other::)" ---
	setfacl -b /sys/fs/bpf && chmod go-rwx /sys/fs/bpf
	setfacl -m g:fsother:x,m::- /sys/fs/bpf
	try tv "set grant-traverse yes" "cache tv-u /etc/passwd 0400 root root u:fsa:r"
	check_eq "yes: a mask without x is not raised: the entry fails (exit 3)" "$rc" 3
	check_eq "the mask stays ---" "$(acl_of mask::)" ---
	setfacl -b /sys/fs/bpf
	try tv "set grant-traverse others" "cache tv-o /etc/passwd 0444" \
		"cache tv-u /etc/group 0400 root root u:fsb:r"
	check_eq "others: applies" "$rc" 0
	check_eq "o+x" "$(acl_of other::)" --x
	# The readers are checked in order, each on the ACL as grant-traverse
	# has changed it so far: o+x, given for everyone, lets fsb through.
	check_eq "u:fsb: no entry of its own, o+x lets it through" "$(acl_of user:fsb:)" ""
	check "fsb reads" reads fsb $pins/tv-u
	try tv "set grant-traverse others" "cache tv-x /etc/passwd 0400"
	check_eq "a policy without those readers applies" "$rc" 0
	check "it says what it took back" has "^fsiter-pin: took back search permission on /sys/fs/bpf from o (grant-traverse added it; no reader needs it now)$"
	check "and the mask it made" has "^fsiter-pin: removed the ACL mask of /sys/fs/bpf (grant-traverse made it; no named entry is left)$"
	check_eq "o+x taken back" "$(acl_of other::)" ---
	check_eq "u:fsb taken back" "$(acl_of user:fsb:)" ""
	check_eq "and the mask it made" "$(acl_of mask::)" ""
	"$tool" remove --all >/dev/null
}

# fresh NAME LINE: nothing pinned, then $t/NAME.conf (grant-traverse
# others and LINE) applied
fresh() {
	"$tool" remove --all >/dev/null 2>&1
	try "$1" "set grant-traverse others" "$2" >/dev/null
}

test_foreign() {
	echo "== objects that are not pins in the pin directory: named, kept, --force"
	fresh fo "cache fo-a /etc/passwd 0444"
	mkdir -p $pins/fo-dir/sub
	bpftool map create $pins/fo-map type array key 4 value 4 entries 1 name fo_map
	map_ino=$(stat -c %i $pins/fo-map)
	try fo "set grant-traverse others" "cache fo-a /etc/passwd 0444" \
		"cache fo-b /etc/group 0444" "cache fo-map /etc/hosts 0444"
	check_eq "apply applies the rest, and says what it kept (exit 3)" "$rc" 3
	check "naming the directory" has "$pins/fo-dir: a directory, not a pin of fsiter-pin's; it is kept as it is (--force removes it)"
	check "naming the map" has "$pins/fo-map: a BPF map"
	check "the entry of the map's name fails" has "fo.conf:4: 'fo-map': $pins/fo-map is not a pin of fsiter-pin's, and it is kept (--force replaces it)"
	check "the last line counts them" has "fo.conf: 2 objects in $pins that are not fsiter-pin's were kept as they are (--force removes them)"
	check "the others are pinned" test -e $pins/fo-a -a -e $pins/fo-b
	check "both stay, the directory with what it holds" test -d $pins/fo-dir/sub -a -e $pins/fo-map
	check_eq "the map is the same object" "$(stat -c %i $pins/fo-map)" "$map_ino"
	# The same policy, one entry more.
	{ cat $t/fo.conf; echo "cache fo-c /etc/hostname 0400"; } >$t/fo2.conf
	mv $t/fo2.conf $t/fo.conf
	out=$(FSITER_FAULT=swap "$tool" apply $t/fo.conf 2>&1); rc=$?
	echo "$out"
	check_eq "a failed switch" "$rc" 1
	check "it failed at the switch" has "cannot switch to the new pins"
	check "puts the directory back" test -d $pins/fo-dir/sub
	check_eq "nothing left in the work directory" "$(ls -A ${pins}_staging | wc -l)" 0
	# Killed after the directory was moved into the next pin directory,
	# before the switch: the next run moves it back, never empties it.
	FSITER_FAULT='swap!' "$tool" apply $t/fo.conf >/dev/null 2>&1
	check "killed: the directory waits in the work directory" test -d ${pins}_staging/next/fo-dir/sub
	out=$("$tool" list 2>&1); rc=$?
	echo "$out"
	check "the next run moves it back, with what it holds" test -d $pins/fo-dir/sub
	check "and says so" has "$pins/fo-dir: moved back from the work directory, where a killed run left it"
	check_eq "and empties the rest" "$(ls -A ${pins}_staging | wc -l)" 0
	out=$("$tool" remove --all 2>&1); rc=$?
	echo "$out"
	check_eq "remove --all: exit 1 for what it kept" "$rc" 1
	check "it names them" has "$pins/fo-dir: a directory, not a pin of fsiter-pin's; it is kept (--force removes it)"
	check "and removes every pin of ours" test ! -e $pins/fo-a -a ! -e $pins/fo-b
	check "not theirs" test -d $pins/fo-dir/sub -a -e $pins/fo-map
	out=$("$tool" apply --force $t/fo.conf 2>&1); rc=$?
	echo "$out"
	check_eq "apply --force" "$rc" 0
	check "removes them" test ! -e $pins/fo-dir -a -e $pins/fo-a
	check "and pins the entry of the map's name" test -e $pins/fo-map
	check_eq "the work directory is empty" "$(ls -A ${pins}_staging | wc -l)" 0
	mkdir -p $pins/fo-dir2/a/b
	check "remove --force removes a directory tree" "$tool" remove --force fo-dir2
	check "it is gone" test ! -e $pins/fo-dir2
	"$tool" remove --all >/dev/null
}

test_pin_dir_mode() {
	echo "== the pin directory: root's 0755, or 0711 by the policy; audit notices a change, apply restores it"
	fresh pm "cache pm-a /etc/passwd 0444
cache pm-fsa /etc/group 0440 root fsreaders
cache pm-root /etc/hosts 0400"
	check_eq "0755 by default" "$(stat -c '%a %U' $pins)" "755 root"
	check_eq "fsb lists the names" "$(as fsb ls $pins | tr '\n' ' ')" "pm-a pm-fsa pm-root "
	# What the mission promises a user: cat of every pin, the ones they
	# may read printed, a refusal for each other.
	out=$(cd / && as fsb bash -c "cat $pins/*" 2>&1); rc=$?
	echo "$out"
	check_eq "cat $pins/* as fsb: some refused" "$rc" 1
	check "prints the pin fsb may read" has "^cache.withheld \\|^cache.cached "
	check "refuses pm-fsa" has "cat: $pins/pm-fsa: Permission denied"
	check "refuses pm-root" has "cat: $pins/pm-root: Permission denied"
	check_eq "and nothing else is refused" "$(grep -c 'Permission denied' <<<"$out")" 2
	check "fsa reads its group's pin" reads fsa $pins/pm-fsa
	check_eq "show, as fsb: the pins fsb may read" "$(cd / && as fsb "$tool" show | xargs)" "pm-a"
	check_eq "show, as fsa: its group's too" "$(cd / && as fsa "$tool" show | xargs)" "pm-a pm-fsa"
	out=$(cd / && as fsb "$tool" show pm-root 2>&1); rc=$?
	check_eq "show pm-root as fsb: the kernel's EACCES" "$rc $out" \
		"1 fsiter-pin: show: $pins/pm-root: Permission denied"
	chmod 0711 $pins && setfacl -m u:fsb:rwx $pins
	out=$("$tool" audit $t/pm.conf 2>&1); rc=$?
	echo "$out"
	check_eq "audit: drift" "$rc" 1
	check "names the pin directory" has "^pin-dir  *$pins: access ACL entries"
	out=$("$tool" apply $t/pm.conf 2>&1); rc=$?
	echo "$out"
	check_eq "apply with nothing else to do" "$rc" 0
	check "says it restored it" has "^restored $pins: root's, mode 0755, no ACL entries"
	check_eq "0755 again" "$(stat -c '%a %U' $pins)" "755 root"
	check "no ACL entries" bash -c "! getfacl -cp $pins | grep -q '^user:fsb'"
	out=$("$tool" audit $t/pm.conf 2>&1); rc=$?
	check_eq "audit: clean" "$rc" 0
	# set pin-dir-mode 0711: the names are hidden, the pins still read.
	try pm "set grant-traverse others" "set pin-dir-mode 0711" "cache pm-a /etc/passwd 0444"
	check_eq "apply with 0711" "$rc" 0
	check "says it restored it to the policy's mode" has "^restored $pins: root's, mode 0711, no ACL entries"
	check_eq "0711" "$(stat -c '%a %U' $pins)" "711 root"
	check "fsb may not list it" not as fsb ls $pins
	check "but reads the pin it was told" reads fsb $pins/pm-a
	chmod 0755 $pins
	out=$("$tool" audit $t/pm.conf 2>&1); rc=$?
	echo "$out"
	check_eq "audit: 0755 is drift under 0711" "$rc" 1
	check "names the mode" has "^pin-dir  *$pins: mode 0755; fsiter-pin's pin directory is root's, mode 0711"
	try pm "set pin-dir-mode 0700" "cache pm-a /etc/passwd 0444"
	check_eq "another mode: refused" "$rc" 1
	check "naming the line and the choices" has "pm.conf:1: pin-dir-mode '0700': expected 0755 (users list the pin names) or 0711 (names hidden)"
	check_eq "nothing changed" "$(stat -c '%a %U' $pins)" "755 root"
	"$tool" remove --all >/dev/null
}

test_pin_dir_symlink() {
	echo "== a pin-dir below a symbolic link in bpffs: refused, nothing made outside"
	rm -rf /run/elsewhere && mkdir -p /run/elsewhere
	ln -sfn /run/elsewhere /sys/fs/bpf/lnk
	try sl "set pin-dir /sys/fs/bpf/lnk/sub/fsiter" "cache sl-a /etc/passwd 0444"
	check_eq "apply fails" "$rc" 1
	# Refused by the check of the pin-dir's existing part; a link that
	# comes after that check fails mkdir_parents()' O_NOFOLLOW walk.
	check "names the link" has "pin-dir /sys/fs/bpf/lnk/sub/fsiter: /sys/fs/bpf/lnk is not on bpffs"
	check "made nothing through the link" test ! -e /run/elsewhere/sub
	rm -f /sys/fs/bpf/lnk
	rm -rf /run/elsewhere
}

test_unsafe_paths() {
	echo "== unsafe path transitions and hard links"
	"$tool" remove --all >/dev/null 2>&1
	rm -rf $t/up && mkdir -p $t/up/grp $t/up/user
	chgrp fsreaders $t/up/grp && chmod 2775 $t/up/grp && echo a >$t/up/grp/f
	chown fsa $t/up/user && echo b >$t/up/user/f
	echo c >$t/up/safe && ln $t/up/safe $t/up/safe-link
	cat >$t/up.conf <<P
set grant-traverse others
cache up-grp   $t/up/grp/f     0444
cache up-user  $t/up/user/f    0400 - - - expose-cache
cache up-link  $t/up/safe      0444
cache up-link2 $t/up/safe-link 0444 - - - hardlinks
P
	out=$("$tool" apply $t/up.conf 2>&1); rc=$?
	echo "$out"
	check_eq "some entries fail" "$rc" 3
	check "a group-writable directory: a warning" \
		has "warning: $t/up.conf:2: path '$t/up/grp/f': $t/up/grp may be changed by its group"
	check "and the pin" test -e $pins/up-grp
	check "with expose-cache: refused" \
		has "up.conf:3: path '$t/up/user/f': $t/up/user may be changed by its owner, uid 2001, .*refused with expose-cache"
	check "no pin" test ! -e $pins/up-user
	check "a file with two names: refused" has "up.conf:4: path '$t/up/safe': a file with 2 names"
	check "no pin" test ! -e $pins/up-link
	check "unless the entry says 'hardlinks'" test -e $pins/up-link2
	"$tool" remove --all >/dev/null
}

# last_line: the last line of $out
last_line() { tail -n1 <<<"$out"; }
# bpffs_mounted: /sys/fs/bpf is a bpffs mount point
bpffs_mounted() { [[ $(findmnt -n -o FSTYPE /sys/fs/bpf) == bpf ]]; }

test_says_mount() {
	echo "== apply says it mounted bpffs, only when it did, and what a failure left"
	"$tool" remove --all >/dev/null 2>&1
	rm -f /run/fsiter-pin/.grant-traverse.json
	umount /sys/fs/bpf
	printf '%s\n' "cache sm-a /etc/passwd 0440 root fsreaders" >$t/sm.conf
	out=$(FSITER_FAULT=mount "$tool" apply $t/sm.conf 2>&1); rc=$?
	echo "$out"
	check_eq "a mount that fails: apply fails" "$rc" 1
	check "saying so" has "^fsiter-pin: cannot mount bpffs on /sys/fs/bpf: "
	check "and not that it mounted" bash -c "! grep -q 'mounted bpffs' <<<\"\$1\"" - "$out"
	check_eq "then: nothing was changed" "$(last_line)" "fsiter-pin: $t/sm.conf: nothing was changed"
	check "and bpffs is not mounted" bash -c "! findmnt -n /sys/fs/bpf"
	out=$(FSITER_FAULT=gen "$tool" apply $t/sm.conf 2>&1); rc=$?
	echo "$out"
	check_eq "a fault after the mount: apply fails" "$rc" 1
	check "it says it mounted bpffs" has "^fsiter-pin: mounted bpffs on /sys/fs/bpf (mode 0700, as systemd does)$"
	check "it is mounted" bpffs_mounted
	check "and the last line says what changed" bash -c 'grep -q "^fsiter-pin: $1: no pin was changed, but bpffs was mounted on /sys/fs/bpf and " <<<"$2"' - "$t/sm.conf" "$(last_line)"
	check "no pin" test ! -e $pins/sm-a
	out=$(FSITER_FAULT=gen "$tool" apply $t/sm.conf 2>&1); rc=$?
	check_eq "again: it fails" "$rc" 1
	check "without mounting" bash -c "! grep -q 'mounted bpffs' <<<\"\$1\"" - "$out"
	check_eq "and nothing was changed" "$(last_line)" "fsiter-pin: $t/sm.conf: nothing was changed"
	umount /sys/fs/bpf
	printf '%s\n' "set grant-traverse yes" "cache sm-a /etc/passwd 0440 root fsreaders" >$t/sm2.conf
	out=$("$tool" apply $t/sm2.conf 2>&1); rc=$?
	echo "$out"
	check_eq "with grant-traverse: applies" "$rc" 0
	check "it says it mounted bpffs" has "^fsiter-pin: mounted bpffs on /sys/fs/bpf (mode 0700, as systemd does)$"
	check "and what grant-traverse gave" has "^fsiter-pin: gave search permission on /sys/fs/bpf to group 'fsreaders' (grant-traverse: g:fsreaders:x, with a new ACL mask)$"
	check "fsa reads" reads fsa $pins/sm-a
	check_eq "/sys/fs/bpf is 1700 but for that entry (the mask)" "$(stat -c %a /sys/fs/bpf)" 1710
}

# traverse_recs TAG: how many entries of TAG grant-traverse's record has
traverse_recs() { jq "[.added[] | select(.tag == \"$1\")] | length" /run/fsiter-pin/.grant-traverse.json; }

test_says_traverse() {
	needs test_says_mount
	echo "== apply says what grant-traverse did, only once it is done"
	# sm2.conf is applied: g:fsreaders:x is grant-traverse's
	printf '%s\n' "set grant-traverse yes" "cache sm-a /etc/passwd 0440 root fsreaders" \
		"cache sm-b /etc/group 0400 root root u:fsb:r" >$t/st1.conf
	out=$(FSITER_FAULT=traverse "$tool" apply --force $t/st1.conf 2>&1); rc=$?
	echo "$out"
	check_eq "the ACL cannot be set: apply fails" "$rc" 1
	check "saying what was not given" has "^fsiter-pin: /sys/fs/bpf: cannot set its ACL: Input/output error; search permission was not given to user 'fsb'$"
	check "and not that it was" bash -c "! grep -q 'gave search permission' <<<\"\$1\"" - "$out"
	check_eq "then: nothing was changed" "$(last_line)" "fsiter-pin: $t/st1.conf: nothing was changed"
	check_eq "no u:fsb on /sys/fs/bpf" "$(acl_of user:fsb:)" ""
	check_eq "nor in the record" "$(traverse_recs u)" 0

	# fsreaders' x and the mask are taken back (the first two ACL writes),
	# fsb's grant fails (the third)
	printf '%s\n' "set grant-traverse yes" "cache sm-b /etc/group 0400 root root u:fsb:r" >$t/st2.conf
	out=$(FSITER_FAULT=traverse:3 "$tool" apply --force $t/st2.conf 2>&1); rc=$?
	echo "$out"
	check_eq "taken back, then the grant fails: apply fails" "$rc" 1
	check "it says what it took back" has "^fsiter-pin: took back search permission on /sys/fs/bpf from g:2100, and removed the entry"
	check "and the mask" has "^fsiter-pin: removed the ACL mask of /sys/fs/bpf"
	check "and what it did not give" has "search permission was not given to user 'fsb'$"
	check_eq "the last line says what changed" "$(last_line)" \
		"fsiter-pin: $t/st2.conf: no pin was changed, but grant-traverse took back 2 ACL entries it had added"
	check_eq "g:fsreaders is gone" "$(acl_of group:fsreaders:)" ""
	check_eq "no u:fsb" "$(acl_of user:fsb:)" ""
	check "the pin stays" test -e $pins/sm-a

	# fsb's x is given, then apply fails for another reason
	out=$(FSITER_FAULT=gen "$tool" apply --force $t/st2.conf 2>&1); rc=$?
	echo "$out"
	check_eq "the next pin directory cannot be made: apply fails" "$rc" 1
	check "it says what it gave" has "^fsiter-pin: gave search permission on /sys/fs/bpf to user 'fsb' (grant-traverse: u:fsb:x, with a new ACL mask)$"
	check_eq "the last line says so" "$(last_line)" \
		"fsiter-pin: $t/st2.conf: no pin was changed, but grant-traverse gave 1 search permission"
	check_eq "u:fsb:x is there" "$(acl_of user:fsb:)" --x
	check_eq "and recorded" "$(traverse_recs u)" 1
	out=$("$tool" apply --force $t/st2.conf 2>&1); rc=$?
	check_eq "then it applies" "$rc" 0
	check "fsb reads" reads fsb $pins/sm-b

	# taking fsb's x back fails: it stays, and the next apply takes it
	printf '%s\n' "set grant-traverse yes" "cache sm-c /etc/passwd 0400" >$t/st3.conf
	out=$(FSITER_FAULT=traverse "$tool" apply --force $t/st3.conf 2>&1); rc=$?
	echo "$out"
	check_eq "a take-back that fails: apply fails" "$rc" 1
	check "saying so" has "^fsiter-pin: /sys/fs/bpf: cannot take back search permission from u:2002: Input/output error; it stays, and the next apply tries again$"
	check "and not that it took it" bash -c "! grep -q 'took back' <<<\"\$1\"" - "$out"
	check "nor the mask, which stays with it" bash -c "! grep -q 'ACL mask' <<<\"\$1\"" - "$out"
	check_eq "then: nothing was changed" "$(last_line)" "fsiter-pin: $t/st3.conf: nothing was changed"
	check_eq "u:fsb:x stays" "$(acl_of user:fsb:)" --x
	check_eq "still recorded" "$(traverse_recs u)" 1
	out=$("$tool" apply --force $t/st3.conf 2>&1); rc=$?
	echo "$out"
	check_eq "the next apply" "$rc" 0
	check "takes it back" has "^fsiter-pin: took back search permission on /sys/fs/bpf from u:2002, and removed the entry"
	check_eq "u:fsb is gone" "$(acl_of user:fsb:)" ""
	"$tool" remove --all >/dev/null
}

test_bad_record() {
	echo "== a grant-traverse record that is not valid stops grant-traverse alone"
	local rec=/run/fsiter-pin/.grant-traverse.json
	"$tool" remove --all >/dev/null 2>&1
	rm -f $rec
	printf '%s\n' "set grant-traverse yes" "cache br-a /etc/passwd 0400 root root u:fsb:r" \
		"cache br-b /etc/group 0400" >$t/br1.conf
	out=$("$tool" apply $t/br1.conf 2>&1); rc=$?
	check_eq "applied, u:fsb:x given" "$rc:$(acl_of user:fsb:)" "0:--x"
	cp $rec $t/br.saved
	echo '{ "added": [' >$rec
	# br-a dropped: a revocation; br-c's reader would need grant-traverse
	printf '%s\n' "set grant-traverse yes" "cache br-b /etc/group 0400" \
		"cache br-c /etc/hosts 0400 root root u:fsa:r" >$t/br2.conf
	out=$("$tool" apply --force $t/br2.conf 2>&1); rc=$?
	echo "$out"
	check_eq "apply: exit 3, not 1" "$rc" 3
	check "naming the record" has "^fsiter-pin: $rec: not a valid record of grant-traverse"
	check "and what it stopped" has "grant-traverse gave and took back nothing: its record is not valid"
	check "br-a is revoked all the same" test ! -e $pins/br-a
	check "br-c is pinned" test -e $pins/br-c
	check "and fails: fsa cannot reach it" has "'br-c' failed: pinned, but a reader it grants cannot reach it"
	check_eq "nothing given to fsa" "$(acl_of user:fsa:)" ""
	check_eq "nor taken back from fsb" "$(acl_of user:fsb:)" --x
	check_eq "the record is left as it is" "$(cat $rec)" '{ "added": ['
	cp $t/br.saved $rec
	out=$("$tool" apply --force $t/br2.conf 2>&1); rc=$?
	check_eq "repaired: the next apply" "$rc" 0
	check_eq "gives fsa" "$(acl_of user:fsa:)" --x
	check_eq "and takes back fsb's" "$(acl_of user:fsb:)" ""
	"$tool" remove --all >/dev/null
}

# held DIR PIN: fsa holds an O_PATH fd on PIN (holdfd.py), reporting in DIR
held() {
	rm -rf "$1" && mkdir -m 0777 "$1"
	as fsa python3 "$here/holdfd.py" "$2" "$1" &
	for _ in $(seq 1 600); do [[ -e $1/ready ]] && break; sleep 0.1; done
	check "fsa holds an O_PATH fd on $2" test -e "$1/ready"
}
# reopen DIR: what fsa's held fd gives when re-opened: "read" or why not
reopen() {
	echo "" >"$1/go.1"
	for _ in $(seq 1 600); do [[ -s $1/res.1 ]] && break; sleep 0.1; done
	cat "$1/res.1" 2>/dev/null || echo "no answer"
	touch "$1/stop"
}

test_pin_dir_moved() {
	echo "== set pin-dir changes: the pins of the old pin-dir are revoked, audit is clean"
	local old=/sys/fs/bpf/mv-old new=/sys/fs/bpf/mv-new
	"$tool" remove --all >/dev/null 2>&1
	setfacl -b /sys/fs/bpf && chmod go-rwx /sys/fs/bpf
	rm -f /run/fsiter-pin/.grant-traverse.json
	try mv "set grant-traverse yes" "set pin-dir $old" \
		"cache mv-a /etc/passwd 0400 root root u:fsa:r" "cache mv-b /etc/group 0440 root fsreaders"
	check_eq "applied in $old" "$rc" 0
	check "fsa reads mv-a" reads fsa $old/mv-a
	check_eq "grant-traverse let fsa through" "$(acl_of user:fsa:)" --x
	held $t/hold-mv $old/mv-a
	try mv "set grant-traverse yes" "set pin-dir $new" "cache mv-c /etc/hosts 0400"
	check_eq "apply of the moved policy: exit 0" "$rc" 0
	check "says each pin it revoked in the old pin-dir" \
		has "^removed $old/mv-a: the policy's pin-dir is now $new$"
	check "both of them" has "^removed $old/mv-b: the policy's pin-dir is now $new$"
	check "and counts them" has "^1 created, 0 replaced, 2 removed, 0 unchanged$"
	check "the new pin is there" test -e $new/mv-c
	check_eq "nothing is left in the old pin-dir" "$(ls -A $old | wc -l)" 0
	check_eq "fsa's fd on the old pin cannot open it again" "$(reopen $t/hold-mv)" "Permission denied"
	check_eq "grant-traverse took back what only its readers needed" "$(acl_of user:fsa:)" ""
	check_eq "the old pin-dir's manifest is gone" \
		"$(grep -l "\"pin_dir\": \"$old\"" /run/fsiter-pin/*.json | wc -l)" 0
	out=$("$tool" audit $t/mv.conf 2>&1); rc=$?
	echo "$out"
	check_eq "audit: clean" "$rc" 0
	# What cannot be revoked there fails the apply alone (exit 3).
	bpftool map create $new/mv-map type array key 4 value 4 entries 1 name mv_map
	try mv "set pin-dir $old" "cache mv-a /etc/passwd 0400"
	check_eq "moved back, with a map in $new: exit 3" "$rc" 3
	check "the pin there goes" has "^removed $new/mv-c: the policy's pin-dir is now $old$"
	check "the map is named and kept" has "$new/mv-map: a BPF map"
	check "the last lines say what failed" \
		has "^fsiter-pin: $t/mv.conf: the pins it made in $new, its pin-dir before, could not all be revoked (said above); the next apply tries again$"
	check "the rest is applied" test -e $old/mv-a
	"$tool" remove --force --pin-dir $new --all >/dev/null
	try mv "set pin-dir $old" "cache mv-a /etc/passwd 0400"
	check_eq "once it is removed: exit 0" "$rc" 0
	"$tool" remove --pin-dir $old --all >/dev/null
}

test_pin_dir_claimed() {
	echo "== two policies, one pin-dir: the second is refused; --force takes it over"
	"$tool" remove --all >/dev/null 2>&1
	try cl1 "set grant-traverse others" "cache cl-a /etc/passwd 0444"
	check_eq "cl1 applies" "$rc" 0
	before=$(state)
	try cl2 "set grant-traverse others" "cache cl-b /etc/group 0444"
	check_eq "cl2, the same pin-dir: refused (exit 1)" "$rc" 1
	check "naming both" has "^fsiter-pin: $t/cl2.conf: pin-dir $pins (the default) belongs to $t/cl1.conf (its manifest); remove its pins first ('fsiter-pin remove --pin-dir $pins --all'), or take it over with --force$"
	check "nothing was changed" has "^fsiter-pin: $t/cl2.conf: nothing was changed$"
	check_eq "state unchanged" "$(state)" "$before"
	out=$("$tool" apply --dry-run $t/cl2.conf 2>&1); rc=$?
	check_eq "--dry-run: refused too" "$rc" 1
	out=$("$tool" apply --force $t/cl2.conf 2>&1); rc=$?
	echo "$out"
	check_eq "--force takes it over" "$rc" 0
	check "with a warning naming both" \
		has "^fsiter-pin: warning: $t/cl2.conf: pin-dir $pins (the default) belongs to $t/cl1.conf (its manifest); taken over (--force): its 1 pin goes"
	check "cl1's pin is revoked" has "^removed cl-a: not in the policy$"
	out=$("$tool" apply $t/cl1.conf 2>&1); rc=$?
	echo "$out"
	check_eq "then cl1 is the one refused" "$rc" 1
	check "naming cl2" has "belongs to $t/cl2.conf (its manifest)"
	rm $t/cl2.conf
	out=$("$tool" apply $t/cl1.conf 2>&1); rc=$?
	echo "$out"
	check_eq "cl2 deleted: cl1 takes it back without --force" "$rc" 0
	check "and says so" \
		has "^fsiter-pin: pin-dir $pins: its 1 pin was made by $t/cl2.conf, which no longer exists (or any user may change it); this apply replaces it$"
	"$tool" remove --all >/dev/null
}

test_show() {
	echo "== show --json: every key of every view is one of fsiter-views(7), typed"
	local d=/run/fsiter-show p v n
	mkdir -p $d && mount -t tmpfs -o size=64m show-src $d
	mkdir -p $d/sub && mount --bind $d/sub $d/sub
	head -c 1M /dev/urandom >$d/sub/f && chown fsa $d/sub/f
	fresh sh "inode sh-inode $d/sub/f 0444
cache sh-cache $d/sub/f 0444
inode-raw sh-raw $d/sub/f 0400
mount sh-mount $d/sub 0444
cache-summary sh-sum $d 0444 - - - expose-totals
cache-top sh-top $d 0444 - - - top=5,expose-totals"
	for p in inode:sh-inode cache:sh-cache mount:sh-mount cache-summary:sh-sum cache-top:sh-top; do
		v=${p%%:*} n=${p#*:}
		out=$("$tool" show --json $n 2>&1); rc=$?
		echo "$out" | head -n 20
		check_eq "$v: show --json as root" "$rc" 0
		check_eq "$v: the view its keys say" "$(jq -r .view <<<"$out")" "$v"
		# As a user the pin lets in, and who owns the file.
		out=$(cd / && as fsa "$tool" show --json $n 2>&1); rc=$?
		echo "$out" | head -n 3
		check_eq "$v: show --json as fsa" "$rc" 0
	done
	out=$("$tool" show --json sh-inode)
	check_eq "inode: a count is a number" "$(jq '.cache.cached | type' <<<"$out")" '"number"'
	check_eq "inode: its folios, an array that adds up to cache.cached" \
		"$(jq '[.folio[] | pow(2; .order)] | add' <<<"$out")" "$(jq .cache.cached <<<"$out")"
	check_eq "inode: the name" "$(jq -r .inode.name <<<"$out")" f
	out=$("$tool" show --json sh-mount)
	check_eq "mount: source, root, fs.type" \
		"$(jq -r '[.mnt.source, .mnt.root, .fs.type] | join(" ")' <<<"$out")" "show-src /sub tmpfs"
	check_eq "mount: fs.dev as stat says" "$(jq -r .fs.dev <<<"$out")" \
		"$(stat -c '%Hd:%Ld' $d/sub/f)"
	out=$("$tool" show --json sh-top)
	check_eq "cache-top: the file, its path and pages" \
		"$(jq -r '.file[0] | "\(.path) \(.cached) \(.deleted)"' <<<"$out")" "sub/f 256 false"
	check_eq "cache-summary: a share is a number from 0 to 1" \
		"$("$tool" show --json sh-sum | jq '.observed.share | type == "number" and . >= 0 and . <= 1')" true
	out=$("$tool" show --json sh-raw 2>&1); rc=$?
	check_eq "inode-raw: refused, it has no keys" "$rc" 1
	check "and says so" has "a BTF dump (view inode-raw) has no keys"
	out=$(cd / && as fsb "$tool" show --json sh-inode 2>&1); rc=$?
	check_eq "fsb, not the owner: exit" "$rc" 0
	check_eq "fsb: withheld, a reason" "$(jq -r .cache.withheld <<<"$out")" \
		"the reader neither owns nor may write this file"
	"$tool" remove --all >/dev/null
	umount $d/sub; umount $d
}

run_tests
finish
