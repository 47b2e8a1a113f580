#!/bin/bash
# fsiter-pin audit and list: each kind of drift is detected, with the
# documented exit codes and JSON. Runs as root inside the test VM.
# Usage: audit-tests.sh BUILD_DIR [TEST...]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/vm/lib.sh
. "$here/lib.sh"

suite_init "$@"
t=/run/au
policy=$t/policy.conf
mkdir -p $t/mnt
# audit_is KIND PIN: the last audit reported KIND for PIN
audit_is() { grep -Eq "^$1 +$2: " <<<"$out"; }
audit() { out=$("$tool" audit $policy 2>&1); rc=$?; echo "$out"; }

echo data >$t/file
echo data >$t/other
truncate -s 320M $t/xfs.img && mkfs.xfs -q $t/xfs.img && mount -o loop $t/xfs.img $t/mnt
echo data >$t/mnt/f
cat >$policy <<'P'
set grant-traverse others
cache  c-file   /run/au/file    0440 root fsreaders
inode  i-file   /run/au/file    0400 root root g:fsreaders:r
cache  c-other  /run/au/other   0444
mount  m-run    /run/au         0444
cache  c-xfs    /run/au/mnt/f   0444
P

test_apply() {
	check "apply" "$tool" apply $policy
}

test_clean() {
	needs test_apply
	echo "== clean"
	audit
	check_eq "exit 0 when clean" "$rc" 0
	check "says clean" has "^clean: 5 pins match $policy$"
	out=$("$tool" audit --json $policy); rc=$?
	check_eq "--json: exit 0" "$rc" 0
	check_eq "--json: clean" "$(jq -r .clean <<<"$out")" true
	check_eq "--json: version 1" "$(jq -r .version <<<"$out")" 1
	check_eq "--json: no findings" "$(jq '.findings | length' <<<"$out")" 0
	check_eq "--json: the pins" "$(jq -r '[.pins[].name] | join(" ")' <<<"$out")" "c-file c-other c-xfs i-file m-run"
	check_eq "--json: path recorded at apply" "$(jq -r '.pins[] | select(.name == "i-file") | .path' <<<"$out")" /run/au/file
	check_eq "--json: source" "$(jq -r '.pins[] | select(.name == "i-file") | .source' <<<"$out")" "$policy:3"
	check_eq "--json: readers" "$(jq -r '.pins[] | select(.name == "i-file") | .readers | join(",")' <<<"$out")" "u:root,g:fsreaders"
	check_eq "--json: inode target" "$(jq -r '.pins[] | select(.name == "i-file") | .target.ino' <<<"$out")" "$(stat -c %i $t/file)"
	check_eq "--json: mount target" "$(jq -r '.pins[] | select(.name == "m-run") | .target.mount_point' <<<"$out")" /run
}

test_list() {
	needs test_apply
	echo "== list"
	out=$("$tool" list); echo "$out"
	check "list: path, owner:group, mode, readers" has "^i-file \+inode \+[0-9:]\+ ino [0-9]\+ \+/run/au/file \+root \+root \+0440 \+u:root,g:fsreaders "
	check "list: everyone" has "^c-other .* root \+root \+0444 \+u:root,g:root,o "
	check_eq "list --json is the same pins" "$("$tool" list --json | jq -r '[.[].name] | join(" ")')" "c-file c-other c-xfs i-file m-run"
}

test_perms_drift() {
	needs test_apply
	echo "== drift, one kind at a time"
	chmod 0444 $pins/c-file
	audit
	check_eq "exit 1 on drift" "$rc" 1
	check "mode changed by hand" audit_is mode c-file
	check "with the policy line" has "mode 0444, the policy says 0440 ($policy:2)"
	chown fsa $pins/c-file
	audit
	check "owner changed by hand" audit_is owner c-file
	setfacl -m u:fsb:r $pins/c-other
	audit
	check "ACL changed by hand" audit_is acl c-other
	"$tool" apply $policy >/dev/null
	audit
	check_eq "apply repairs it" "$rc" 0
}

test_missing_extra() {
	needs test_apply
	echo "== drift: a missing pin, an extra one"
	rm $pins/c-other
	audit
	check "a missing pin" audit_is missing c-other
	"$ktool" pin "$views/cache.bpf.o" fsiter_cache $t/file $pins/stray
	audit
	check "a pin not in the policy" audit_is extra stray
	rm $pins/stray
	"$tool" apply $policy >/dev/null
}

test_target_replaced() {
	needs test_apply
	echo "== drift: a path that names another inode"
	mv $t/file $t/file.old && echo new >$t/file
	audit
	check "the path names another inode now" audit_is target-replaced c-file
	check "for each view on it" audit_is target-replaced i-file
	rm $t/file && mv $t/file.old $t/file
	audit
	check_eq "back: clean" "$rc" 0
}

test_programs() {
	needs test_apply
	echo "== drift: programs that are not the policy's"
	rm $pins/c-other
	"$ktool" pin "$build/tests/kernel/bpf_iter_fs.bpf.o" dump_raw_inode $t/other $pins/c-other
	audit
	check "a program that is not ours" audit_is foreign c-other
	rm $pins/c-other
	"$ktool" pin "$views/inode-raw.bpf.o" fsiter_inode_raw $t/other $pins/c-other
	audit
	check "another view" audit_is view c-other
	rm $pins/c-other
	"$ktool" pin --expose-cache "$views/cache.bpf.o" fsiter_cache $t/other $pins/c-other
	audit
	check "the expose-cache flag where the policy has none" audit_is expose-cache c-other
	rm $pins/c-other
	# The same view built another way (-mcpu=v3): same program name, another tag,
	# as a pin left by an older fsiter-pin would be.
	kdir=$(sed -n 's/^FSITER_KERNEL_DIR:PATH=//p' "$build/CMakeCache.txt")
	top=$(cd "$here/../.." && pwd)
	clang -g -O2 -mcpu=v3 -target bpf -D__TARGET_ARCH_x86 -I"$kdir" -I"$top/bpf" \
		-c "$top/bpf/cache.bpf.c" -o $t/old-cache.bpf.o
	"$ktool" pin $t/old-cache.bpf.o fsiter_cache $t/other $pins/c-other
	audit
	check "a program that changed" audit_is program-changed c-other
	"$tool" apply $policy >/dev/null
}

# fsiter-pin without the views (-DFSITER_BPF=OFF), as the build makes it
# for its tests: audit compares all but the programs, list lists, apply
# refuses and changes nothing.
test_noviews() {
	needs test_apply
	local nv=$build/src/fsiter-pin-noviews
	echo "== a build without the views"
	out=$("$nv" audit $policy 2>&1); rc=$?; echo "$out"
	check_eq "audit: exit 0 when clean" "$rc" 0
	check "audit: clean" has "^clean: 5 pins match $policy$"
	check "audit: says what it does not compare" has "this build has no views (built with FSITER_BPF=OFF): the pins' programs are not compared"
	chmod 0444 $pins/c-file
	rm $pins/c-other
	"$ktool" pin "$views/inode-raw.bpf.o" fsiter_inode_raw $t/other $pins/c-other
	out=$("$nv" audit $policy 2>&1); rc=$?; echo "$out"
	check_eq "audit: exit 1 on drift" "$rc" 1
	check "audit: a mode changed by hand" audit_is mode c-file
	check "audit: another view" audit_is view c-other
	out=$("$nv" list 2>&1); rc=$?; echo "$out"
	check_eq "list: exit 0" "$rc" 0
	check "list: the pins" has "^i-file \+inode \+[0-9:]\+ ino [0-9]\+ \+/run/au/file "
	out=$("$nv" apply $policy 2>&1); rc=$?; echo "$out"
	check_eq "apply: exit 1" "$rc" 1
	check "apply: refused, saying why" has "^fsiter-pin: apply: this build has no views (built with FSITER_BPF=OFF)$"
	check_eq "apply: nothing changed" "$(stat -c %a $pins/c-file)" 444
	"$tool" apply $policy >/dev/null
	audit
	check_eq "fsiter-pin repairs it" "$rc" 0
}

test_target_gone() {
	needs test_apply
	echo "== drift: a target unmounted"
	umount $t/mnt
	audit
	check "a target unmounted" audit_is target-gone c-xfs
	mount -o loop $t/xfs.img $t/mnt
	"$tool" apply $policy >/dev/null
}

test_unreachable() {
	needs test_apply
	echo "== drift: readers who cannot reach the pins"
	# o::x was added for the 0444 pins: close it too, or fsreaders gets through
	setfacl -m o::- -x g:fsreaders /sys/fs/bpf
	audit
	check "readers who cannot reach the pins" audit_is unreachable c-file
	check "says how to fix it" has "'setfacl -m g:fsreaders:x /sys/fs/bpf' would"
	out=$("$tool" audit --json $policy); rc=$?
	check_eq "--json: exit 1 on drift" "$rc" 1
	check_eq "--json: the finding" "$(jq -r '.findings[] | select(.kind == "unreachable") | .pin' <<<"$out" | head -1)" c-file
	check_eq "--json: with its source" "$(jq -r '.findings[0].source' <<<"$out")" "$policy:2"
	out=$("$tool" list); echo "$out"
	check "list marks who cannot reach a pin" has "^c-file .* u:root,!g:fsreaders "
	"$tool" apply $policy >/dev/null
}

# finding_of KIND: the pins (or directories) of the last audit --json's KIND findings
finding_of() { jq -r --arg k "$1" '[.findings[] | select(.kind == $k) | .pin] | join(" ")' <<<"$out"; }

test_extra_search() {
	needs test_apply
	echo "== drift: search permission above the pins that no reader needs"
	audit
	check_eq "grant-traverse's own entries (g:fsreaders, o+x for the 0444 pins): clean" "$rc" 0
	setfacl -m u:fsb:x /sys/fs/bpf
	audit
	check_eq "an entry added by hand: exit 1" "$rc" 1
	check "names /sys/fs/bpf" audit_is extra-search /sys/fs/bpf
	check "and the entry, and how to take it away" has "u:fsb has search permission (x), which no reader of this policy nor of another pin directory needs; 'setfacl -x u:fsb /sys/fs/bpf' would take it away$"
	out=$("$tool" audit --json $policy); rc=$?
	check_eq "--json: exit 1" "$rc" 1
	check_eq "--json: the finding, on the directory" "$(finding_of extra-search)" /sys/fs/bpf
	check_eq "--json: no policy line" "$(jq -r '.findings[] | select(.kind == "extra-search") | .source' <<<"$out")" null
	setfacl -x u:fsb /sys/fs/bpf
	setfacl -m u:fsb:x $pins
	audit
	check "on the pin directory: pin-dir" audit_is pin-dir "$pins"
	"$tool" apply $policy >/dev/null
	# o+x that no pin for everyone asks for
	grep -v ' 0444$' $policy >$t/no-o.conf
	# A version of the policy, in a file of its own: it takes the pin
	# directory over (--force), and the policy takes it back.
	check "a policy without pins for everyone applies" "$tool" apply --force $t/no-o.conf
	check_eq "and o+x was taken back" "$(getfacl -p /sys/fs/bpf 2>/dev/null | sed -n 's/^other:://p')" ---
	chmod o+x /sys/fs/bpf
	out=$("$tool" audit $t/no-o.conf 2>&1); rc=$?
	echo "$out"
	check_eq "o+x by hand: exit 1" "$rc" 1
	check "names it" has "^extra-search  */sys/fs/bpf: every user has search permission (o+x), which no reader of this policy nor of another pin directory needs; 'chmod o-x /sys/fs/bpf' would take it away$"
	chmod o-x /sys/fs/bpf
	"$tool" apply --force $policy >/dev/null
	audit
	check_eq "back: clean" "$rc" 0
}

test_path_drift() {
	needs test_apply
	echo "== drift: the paths, as they are now"
	ln $t/file $t/file.link
	audit
	check_eq "a hard link made after the pin: exit 1" "$rc" 1
	check "names each entry on it" audit_is hardlinks c-file
	check "both" audit_is hardlinks i-file
	check "with the count" has "^hardlinks  *c-file: path '/run/au/file': a file with 2 names (hard links)"
	rm $t/file.link
	# The policy is in $t, which audit would refuse once writable: a copy.
	cp $policy /run/au-paths.conf
	chmod o+w $t
	out=$("$tool" audit --json /run/au-paths.conf); rc=$?
	check_eq "--json: a directory on the way made writable: exit 1" "$rc" 1
	check_eq "--json: every entry under it" "$(finding_of unsafe-path)" "c-file i-file c-other c-xfs"
	out=$("$tool" audit /run/au-paths.conf 2>&1); echo "$out"
	check "says who may change it" has "^unsafe-path  *c-file: path '/run/au/file': /run/au may be changed by every user so what it names is not root's to decide (an unsafe path transition) (/run/au-paths.conf:2)$"
	chmod o-w $t
	chown fsa $t
	out=$("$tool" audit /run/au-paths.conf 2>&1); echo "$out"
	check "a directory a user owns" has "^unsafe-path  *c-other: path '/run/au/other': /run/au may be changed by its owner, uid 2001, so"
	chown root $t
	rm /run/au-paths.conf
	audit
	check_eq "back: clean" "$rc" 0
}

test_errors() {
	echo "== errors"
	printf 'inod x /a\n' >$t/bad.conf
	out=$("$tool" audit $t/bad.conf 2>&1); rc=$?
	check_eq "exit 2 when it cannot audit" "$rc" 2
	check "names the line" has "bad.conf:1: unknown view 'inod'"
	out=$("$tool" audit $t/nope.conf 2>&1); rc=$?
	check_eq "exit 2 for a missing policy" "$rc" 2
}

test_list_errors() {
	needs test_apply
	echo "== list: a pin it cannot read, and output it cannot write"
	out=$(FSITER_FAULT=read:2 "$tool" list 2>&1); rc=$?
	echo "$out"
	check_eq "list fails when a pin cannot be read" "$rc" 1
	check "naming it" has "^fsiter-pin: $pins/c-other: Input/output error$"
	check "and still lists the others" has "^c-file "
	out=$("$tool" list 2>&1 >/dev/full); rc=$?
	check_eq "list >/dev/full fails" "$rc" 1
	check "saying so" has "fsiter-pin: write error: No space left on device"
	out=$("$tool" audit --json $policy 2>&1 >/dev/full); rc=$?
	check "audit >/dev/full fails too" test "$rc" -ne 0
}

test_orphaned() {
	needs test_apply
	echo "== orphaned: the pins of a pin-dir whose policy was deleted, or names another"
	local od=/sys/fs/bpf/au-old
	printf '%s\n' "set grant-traverse others" "set pin-dir $od" \
		"cache o-pass /etc/passwd 0444" "cache o-group /etc/group 0444" >$t/old.conf
	check "another policy, with a pin-dir of its own" "$tool" apply $t/old.conf
	audit
	check_eq "while it names it: clean" "$rc" 0
	rm $t/old.conf
	audit
	check_eq "its policy deleted: exit 1" "$rc" 1
	check "each pin, by its path" audit_is orphaned "$od/o-group"
	check "the other" audit_is orphaned "$od/o-pass"
	check "saying why, and what revokes it" \
		has "^orphaned  *$od/o-pass: made by $t/old.conf, which no longer exists (or any user may change it), yet its owner, mode and ACL still let its readers in; 'fsiter-pin remove --pin-dir $od --all' revokes it$"
	out=$("$tool" audit --json $policy); rc=$?
	check_eq "--json: exit 1" "$rc" 1
	check_eq "--json: kind orphaned, the pin's path, source null" \
		"$(jq -r '[.findings[] | select(.kind == "orphaned") | "\(.pin) \(.source)"] | join(",")' <<<"$out")" \
		"$od/o-group null,$od/o-pass null"
	out=$("$tool" audit --format=prometheus $policy); rc=$?
	check_eq "metrics: exit 1" "$rc" 1
	check "metrics: the drift of kind orphaned" \
		has "^fsiter_pin_drift{policy=\"$policy\",kind=\"orphaned\"} 2$"
	printf '%s\n' "set pin-dir /sys/fs/bpf/au-other" >$t/old.conf
	audit
	check_eq "its policy names another pin-dir: exit 1" "$rc" 1
	check "saying which" has "^orphaned  *$od/o-pass: made by $t/old.conf, which now names pin-dir /sys/fs/bpf/au-other, yet"
	check "remove --pin-dir --all revokes them" "$tool" remove --pin-dir $od --all
	audit
	check_eq "then: clean" "$rc" 0
	out=$("$tool" audit --format=prometheus $policy)
	check "metrics: orphaned 0" has "^fsiter_pin_drift{policy=\"$policy\",kind=\"orphaned\"} 0$"
	rm $t/old.conf
}

run_tests
"$tool" remove --all >/dev/null
umount $t/mnt
finish
