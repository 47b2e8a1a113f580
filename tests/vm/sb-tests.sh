#!/bin/bash
# The views of a whole filesystem (iter/fs_sb): cache-summary and
# cache-top through fsiter-pin, on tmpfs, ext4 and XFS, as root and as
# the unprivileged users fsa and fsb: each sees by name only the files it
# owns or may write and could reach from the mount's root; the others are
# summed only with expose-totals, and without it the totals read "-" (to
# root too); expose-cache shows all; top=N;
# concurrent readers get their own results; paths relative to the
# mount's root. Counts are checked against fincore(1); on ext4 and XFS,
# dirty pages of a file not yet written back are counted too.
#
# On a kernel without the fs_sb target (no bpf_iter_fs_sb in its BTF)
# the suite says SKIP and passes: there is nothing to test.
# Usage: sb-tests.sh BUILD_DIR [TEST...]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/vm/lib.sh
. "$here/lib.sh"

suite_init "$@"
t=/run/sb
policy=$t/policy.conf

if ! grep -qa bpf_iter_fs_sb /sys/kernel/btf/vmlinux; then
	echo "SKIP: this kernel ($(uname -r)) has no iter/fs_sb target (no bpf_iter_fs_sb in its BTF): nothing to test"
	finish
	exit
fi

mkdir -p $t
# pages FILE: its pages in the page cache, as fincore(1) counts them.
pages() { fincore -n -b -o PAGES "$1" | tr -d ' '; }
# mkfile USER FILE PAGES [MODE]: FILE owned by USER, PAGES pages of data,
# all in the page cache.
mkfile() {
	dd if=/dev/urandom of="$2" bs=4096 count="$3" status=none
	chown "$1:$1" "$2"
	chmod "${4:-0644}" "$2"
}
# read_pin USER PIN: the pin as USER reads it, into $out.
read_pin() { out=$(as "$1" cat "$pins/$2" 2>&1); }
# file_line PATH: the last read's "file" line of PATH: "CACHED DIRTY WB INO".
file_line() {
	awk -v p="$1" '$1 == "file" { n = $6; for (i = 7; i <= NF; i++) n = n " " $i
		if (n == p) { print $2, $3, $4, $5; exit } }' <<<"$out"
}
# files: the paths of the last read's "file" lines, in order, one line.
files() { awk '$1 == "file" { n = $6; for (i = 7; i <= NF; i++) n = n " " $i; print n }' <<<"$out" | paste -sd' '; }
# sums KEY: the last read's "rest" or "other" line, without the key.
sums() { awk -v k="$1" '$1 == k { print $2, $3, $4, $5 }' <<<"$out"; }
# keys: the keys of the last read's lines, in order, one line.
keys() { awk '{ print $1 }' <<<"$out" | paste -sd' '; }
# The keys of cache-summary, every one printed whether the totals are
# withheld or not.
sum_keys="fs.type fs.dev cache.inodes cache.cached cache.dirty cache.writeback observed.inodes observed.cached observed.dirty observed.writeback observed.share"
# apply [POLICY]: the suite's policy, or another that replaces it (a
# version of the same policy in a file of its own: it takes the pin
# directory over, with --force, which does nothing else here)
apply() {
	out=$("$tool" apply --force "${1:-$policy}" 2>&1); rc=$?
	echo "$out"
	return $rc
}

# --- tmpfs: four owners' files, sizes all different.
#   a1 fsa 400, a2 fsa 100, b1 fsb 300, r1 root 200, w1 root 0666 50
tmp=$t/tmp
# audit_accepts_path WHAT: $tmp/a is fsa's, in the sticky $tmp, so fsa
# decides what tmp-top3's path names (an unsafe path transition; the views
# on a user's directory are the point). apply warns of it and records it in
# the manifest, so audit, with the path unchanged since, is clean.
audit_accepts_path() {
	check "$1: apply warned of tmp-top3's path" has "path '$tmp/a': $tmp may be changed by every user"
	out=$("$tool" audit $policy 2>&1); rc=$?
	echo "$out"
	check_eq "$1: exit 0" "$rc" 0
	check "$1: clean" has "^clean: 8 pins match $policy"
}

setup_tmpfs() {
	mkdir -p $tmp
	mountpoint -q $tmp || mount -t tmpfs -o size=64M,mode=1777 sbtmp $tmp
	mkdir -p $tmp/a $tmp/b
	chown fsa:fsa $tmp/a
	chown fsb:fsb $tmp/b
	mkfile fsa $tmp/a/a1 400
	mkfile fsa $tmp/a/a2 100
	mkfile fsb $tmp/b/b1 300
	mkfile root $tmp/r1 200
	mkfile root $tmp/w1 50 0666
	"$tool" remove --all >/dev/null 2>&1
	cat >$policy <<-P
	set grant-traverse others
	cache-top      tmp-top     $tmp      0444
	cache-top      tmp-top3    $tmp/a    0444 - - - top=3
	cache-top      tmp-top1    $tmp      0444 - - - top=1
	cache-summary  tmp-sum     $tmp      0444
	cache-top      tmp-all     $tmp      0444 - - - expose-cache
	cache-summary  tmp-all-sum $tmp      0444 - - - expose-cache
	cache-top      tmp-tot     $tmp      0444 - - - expose-totals
	cache-summary  tmp-tot-sum $tmp      0444 - - - expose-totals
	P
}

test_apply() {
	setup_tmpfs
	echo "== apply, list, audit"
	check "apply" apply
	applied=$out
	out=$("$tool" list); echo "$out"
	check "list: the sb target, tmpfs" has "^tmp-top \+cache-top \+sb [0-9]\+:[0-9]\+ tmpfs \+$tmp "
	out=$("$tool" list --json)
	check_eq "--json: target type sb" "$(jq -r '.[] | select(.name == "tmp-top") | .target.type' <<<"$out")" sb
	check_eq "--json: fs_type tmpfs" "$(jq -r '.[] | select(.name == "tmp-top") | .target.fs_type' <<<"$out")" tmpfs
	check_eq "--json: magic" "$(jq -r '.[] | select(.name == "tmp-top") | .target.magic' <<<"$out")" 0x1021994
	check_eq "--json: dev, as stat says" "$(jq -r '.[] | select(.name == "tmp-top") | .target.dev' <<<"$out")" \
		"$(stat -c '%Hd:%Ld' $tmp)"
	check_eq "--json: top, default 20" "$(jq -r '.[] | select(.name == "tmp-top") | .top' <<<"$out")" 20
	check_eq "--json: top=3" "$(jq -r '.[] | select(.name == "tmp-top3") | .top' <<<"$out")" 3
	check_eq "--json: top=1" "$(jq -r '.[] | select(.name == "tmp-top1") | .top' <<<"$out")" 1
	check_eq "--json: no top for cache-summary" "$(jq -r '.[] | select(.name == "tmp-sum") | .top' <<<"$out")" null
	check_eq "three programs for three N" \
		"$(jq -r '[.[] | select(.view == "cache-top") | .prog_id] | unique | length' <<<"$out")" 3
	check_eq "--json: expose_totals, from the link's flags" \
		"$(jq -r '[.[] | select(.expose_totals) | .name] | join(" ")' <<<"$out")" "tmp-tot tmp-tot-sum"
	check_eq "--json: expose-cache links without it" \
		"$(jq -r '[.[] | select(.expose_cache) | "\(.name) \(.expose_totals)"] | join(" ")' <<<"$out")" \
		"tmp-all false tmp-all-sum false"
	out=$("$tool" list)
	check "list: :totals" has "^tmp-tot \+cache-top:totals "
	check "list: :totals on cache-summary" has "^tmp-tot-sum \+cache-summary:totals "
	check "list: no :totals without it" has "^tmp-sum \+cache-summary \+sb "
	out=$applied
	audit_accepts_path "audit"
}

test_root() {
	needs test_apply
	echo "== cache-top as root: every file by name, most cached first"
	read_pin root tmp-top
	echo "$out"
	check_eq "fs.type" "$(field fs.type <<<"$out")" tmpfs
	check_eq "fs.dev" "$(field fs.dev <<<"$out")" "$(stat -c '%Hd:%Ld' $tmp)"
	check_eq "top 20" "$(field top <<<"$out")" 20
	check_eq "the order" "$(files)" "a/a1 b/b1 r1 a/a2 w1"
	check_eq "a1: cached as fincore says" "$(file_line a/a1 | cut -d' ' -f1)" "$(pages $tmp/a/a1)"
	check_eq "b1: cached as fincore says" "$(file_line b/b1 | cut -d' ' -f1)" "$(pages $tmp/b/b1)"
	check_eq "a1: inode number" "$(file_line a/a1 | cut -d' ' -f4)" "$(stat -c %i $tmp/a/a1)"
	check_eq "nothing left over" "$(sums rest)" "0 0 0 0"
	check_eq "no sums without expose-totals, to root too" "$(sums other)" "- - - -"
	read_pin root tmp-tot
	echo "$out"
	check_eq "expose-totals: the same files" "$(files)" "a/a1 b/b1 r1 a/a2 w1"
	check_eq "expose-totals: nothing withheld from root" "$(sums other)" "0 0 0 0"
	read_pin root tmp-top1
	check_eq "top=1: one file" "$(files)" "a/a1"
	check_eq "top=1: the rest" "$(sums rest | cut -d' ' -f1,2)" "4 650"
	read_pin root tmp-top3
	echo "$out"
	check_eq "top=3 on $tmp/a: paths from the mount's root all the same" "$(files)" "a/a1 b/b1 r1"
}

test_users() {
	needs test_apply
	echo "== cache-top as fsa and fsb: their own files and the writable one by name"
	read_pin fsa tmp-top
	echo "$out"
	check_eq "fsa: a1, a2 and w1 (0666)" "$(files)" "a/a1 a/a2 w1"
	check_eq "fsa: the others neither named nor summed" "$(sums other)" "- - - -"
	check "fsa: b1 not named" test -z "$(file_line b/b1)"
	read_pin fsa tmp-tot
	echo "$out"
	check_eq "fsa, expose-totals: the same files" "$(files)" "a/a1 a/a2 w1"
	check_eq "fsa, expose-totals: b1 and r1 summed, unnamed" "$(sums other | cut -d' ' -f1,2)" \
		"2 $(($(pages $tmp/b/b1) + $(pages $tmp/r1)))"
	check "fsa, expose-totals: b1 still not named" test -z "$(file_line b/b1)"
	read_pin fsb tmp-top
	echo "$out"
	check_eq "fsb: b1 and w1" "$(files)" "b/b1 w1"
	check_eq "fsb: no sums" "$(sums other)" "- - - -"
	read_pin fsb tmp-tot
	check_eq "fsb, expose-totals: the others" "$(sums other | cut -d' ' -f1,2)" "3 700"
	read_pin fsb tmp-top1
	check_eq "fsb top=1: b1" "$(files)" "b/b1"
	check_eq "fsb top=1: w1 in the rest" "$(sums rest | cut -d' ' -f1,2)" "1 50"
}

test_summary() {
	needs test_apply
	echo "== cache-summary"
	read_pin root tmp-sum
	echo "$out"
	check_eq "root: every key" "$(keys)" "$sum_keys"
	check_eq "root: no totals without expose-totals" \
		"$(field cache.inodes <<<"$out") $(field cache.cached <<<"$out") $(field cache.dirty <<<"$out") $(field cache.writeback <<<"$out")" "- - - -"
	check_eq "root: observed all" "$(field observed.cached <<<"$out")" 1050
	check_eq "root: no share" "$(field observed.share <<<"$out")" "-"
	read_pin root tmp-tot-sum
	echo "$out"
	check_eq "root, expose-totals: inodes" "$(field cache.inodes <<<"$out")" 5
	check_eq "root, expose-totals: cached" "$(field cache.cached <<<"$out")" 1050
	check_eq "root, expose-totals: share" "$(field observed.share <<<"$out")" "1.0000"
	read_pin fsa tmp-sum
	echo "$out"
	check_eq "fsa: every key" "$(keys)" "$sum_keys"
	check_eq "fsa: no totals" \
		"$(field cache.inodes <<<"$out") $(field cache.cached <<<"$out") $(field cache.dirty <<<"$out") $(field cache.writeback <<<"$out")" "- - - -"
	check_eq "fsa: observed a1 a2 w1" "$(field observed.inodes <<<"$out") $(field observed.cached <<<"$out")" "3 550"
	check_eq "fsa: no share" "$(field observed.share <<<"$out")" "-"
	read_pin fsa tmp-tot-sum
	echo "$out"
	check_eq "fsa, expose-totals: the totals, with b1 and r1" "$(field cache.cached <<<"$out")" 1050
	check_eq "fsa, expose-totals: inodes" "$(field cache.inodes <<<"$out")" 5
	check_eq "fsa, expose-totals: observed a1 a2 w1" "$(field observed.inodes <<<"$out") $(field observed.cached <<<"$out")" "3 550"
	check_eq "fsa, expose-totals: share 550/1050" "$(field observed.share <<<"$out")" "0.5238"
	read_pin fsb tmp-sum
	check_eq "fsb: no share" "$(field observed.share <<<"$out")" "-"
	read_pin fsb tmp-tot-sum
	check_eq "fsb, expose-totals: share 350/1050" "$(field observed.share <<<"$out")" "0.3333"
}

# The side channel that withholding the totals closes: on a filesystem
# where one file of another user's is all the reader may not observe,
# the sums over the withheld files are that file's page-cache state, which
# the reader could not get from mincore(2) or cachestat(2).
test_one_withheld() {
	needs test_apply
	echo "== one withheld file: its page cache not shown, unless expose-totals"
	local one=$t/one secret n
	mkdir -p $one
	mountpoint -q $one || mount -t tmpfs -o size=16M,mode=0755 sbone $one
	mkdir -p $one/fsa && chown fsa:fsa $one/fsa
	mkfile fsa $one/fsa/own 30
	mkfile root $one/secret 17 0600
	cat >$t/one.conf <<-P
	set grant-traverse others
	cache-summary  one-sum  $one  0444
	cache-top      one-top  $one  0444
	cache-summary  one-tsum $one  0444 - - - expose-totals
	cache-top      one-ttop $one  0444 - - - expose-totals
	P
	apply $t/one.conf >/dev/null
	secret=$(pages $one/secret)
	read_pin fsa one-sum
	echo "$out"
	check_eq "fsa: every key" "$(keys)" "$sum_keys"
	check_eq "fsa: its own file observed" "$(field observed.cached <<<"$out")" "$(pages $one/fsa/own)"
	check_eq "fsa: no total to subtract it from" "$(field cache.cached <<<"$out")" "-"
	read_pin fsa one-top
	echo "$out"
	check_eq "fsa: other, not even summed" "$(sums other)" "- - - -"
	# The secret's pages change; what fsa reads does not.
	dd if=/dev/urandom of=$one/secret bs=4096 count=5 seek=17 conv=notrunc status=none
	n=$(as fsa cat $pins/one-top | grep '^other ')
	check_eq "fsa: still nothing of it after it grew" "$n" "other - - - -"
	secret=$(pages $one/secret)
	read_pin fsa one-ttop
	echo "$out"
	check_eq "fsa, expose-totals: the one withheld file is the sum" \
		"$(sums other | cut -d' ' -f1,2)" "1 $secret"
	read_pin fsa one-tsum
	echo "$out"
	check_eq "fsa, expose-totals: total minus observed is it too" \
		"$(($(field cache.cached <<<"$out") - $(field observed.cached <<<"$out")))" "$secret"
	apply >/dev/null	# the suite's policy again, without these pins
	umount $one
}

test_expose_cache() {
	needs test_apply
	echo "== expose-cache: every file by name, to every reader"
	read_pin fsb tmp-all
	echo "$out"
	check_eq "fsb sees every file" "$(files)" "a/a1 b/b1 r1 a/a2 w1"
	# The kernel gives the sums, of nothing, without expose-totals.
	check_eq "nothing withheld: sums of 0" "$(sums other)" "0 0 0 0"
	read_pin fsa tmp-all-sum
	check_eq "fsa: observed everything" "$(field observed.share <<<"$out")" "1.0000"
}

# A walk's state is its own: root and fsa read the same pin at once, again
# and again, each must get what it gets alone.
test_concurrent() {
	needs test_apply
	echo "== two readers of one pin at once"
	local i bad=0 want_root want_fsa
	# more inodes, so that the walks overlap
	mkdir -p $tmp/many && chown fsa:fsa $tmp/many
	for i in $(seq 1 400); do echo "$i" >$tmp/many/f$i; done
	chown fsa:fsa $tmp/many/f*
	want_root=$(cat $pins/tmp-top)
	want_fsa=$(as fsa cat $pins/tmp-top)
	check "root and fsa see different lists" test "$want_root" != "$want_fsa"
	for i in $(seq 1 20); do
		cat $pins/tmp-top >$t/r.$i &
		as fsa cat $pins/tmp-top >$t/a.$i &
		as fsa cat $pins/tmp-sum >/dev/null &
		wait
		[[ $(cat $t/r.$i) == "$want_root" && $(cat $t/a.$i) == "$want_fsa" ]] || {
			bad=$((bad + 1)); diff - $t/r.$i <<<"$want_root"; diff - $t/a.$i <<<"$want_fsa"; }
	done
	check_eq "20 rounds of concurrent readers: each its own result" "$bad" 0
	echo "== a reader that stops midway does not disturb the next"
	python3 - "$pins/tmp-top" <<-'PY' >$t/partial
	import os, sys
	fds = [os.open(sys.argv[1], os.O_RDONLY) for _ in range(3)]
	first = [os.read(fd, 7) for fd in fds]   # three walks done, two left unread
	rest = b"".join(iter(lambda: os.read(fds[1], 4096), b""))
	sys.stdout.write((first[1] + rest).decode())
	PY
	check_eq "interleaved opens: the middle one reads whole" "$(cat $t/partial)" "$want_root"
	check_eq "then a plain read" "$(cat $pins/tmp-top)" "$want_root"
	# Fewer than the 64 walks the view keeps at once.
	for i in $(seq 1 30); do cat $pins/tmp-top >$t/m.$i & done
	wait
	bad=0
	for i in $(seq 1 30); do [[ $(cat $t/m.$i) == "$want_root" ]] || bad=$((bad + 1)); done
	check_eq "30 readers at once" "$bad" 0
	rm -rf $tmp/many
}

test_top_drift() {
	needs test_apply
	echo "== top=N changed in the policy: drift, then replaced"
	sed -i 's/top=3$/top=4/' $policy
	out=$("$tool" audit $policy 2>&1); rc=$?
	echo "$out"
	check_eq "audit: drift" "$rc" 1
	check "program-changed, with the Ns" has "lists the top 3 files, the policy says top=4"
	apply
	check "apply replaces it" has "replaced tmp-top3: .*(top differs)"
	check_eq "now 4" "$("$tool" list --json | jq -r '.[] | select(.name == "tmp-top3") | .top')" 4
	audit_accepts_path "audit again"
	sed -i 's/top=4$/top=3/' $policy
	apply >/dev/null
}

# expose-totals asked for by the policy, or no longer: the link's flag
# (link info) is a drift of its own kind, and apply replaces the pin. On
# tmp-top1, which no other entry repeats either way.
test_totals_drift() {
	needs test_apply
	echo "== expose-totals given in the policy, then dropped: drift, replaced"
	sed -i 's/ top=1$/ top=1,expose-totals/' $policy
	out=$("$tool" audit $policy 2>&1); rc=$?
	echo "$out"
	check_eq "audit: drift" "$rc" 1
	check "the policy asks for the sums, the link withholds them" \
		has "^expose-totals \+tmp-top1: withholds the page-cache sums of the files a reader may not observe"
	out=$("$tool" audit --format=prometheus $policy 2>&1)
	check "its metric" has "^fsiter_pin_drift{policy=\"$policy\",kind=\"expose-totals\"} 1$"
	apply
	check "apply replaces it" has "^replaced tmp-top1: cache-top of $tmp (expose-totals differs)$"
	audit_accepts_path "audit after"
	check_eq "now with the flag" \
		"$("$tool" list --json | jq -r '.[] | select(.name == "tmp-top1") | .expose_totals')" true
	read_pin root tmp-top1
	check_eq "and the sums, of nothing withheld from root" "$(sums other)" "0 0 0 0"
	sed -i 's/ top=1,expose-totals$/ top=1/' $policy
	out=$("$tool" audit $policy 2>&1)
	echo "$out"
	check "dropped again: the link gives the sums, the policy does not ask" \
		has "^expose-totals \+tmp-top1: shows the page-cache sums"
	apply
	check "apply replaces it again" has "^replaced tmp-top1: .*(expose-totals differs)$"
	audit_accepts_path "audit at the end"
	read_pin root tmp-top1
	check_eq "no sums again" "$(sums other)" "- - - -"
}

# paths: a deep one, a deleted one, a bind mount of a subtree.
test_paths() {
	needs test_apply
	echo "== paths: too deep, deleted, not under the mount's root"
	local d=$tmp/deep i
	mkdir -p $d
	for i in $(seq 1 40); do d=$d/d$i; done
	mkdir -p $d
	mkfile root $d/leaf 600
	mkfile root $tmp/gone 500
	exec 9<$tmp/gone
	rm $tmp/gone
	mkfile fsa $tmp/a/gonea 450
	exec 8<$tmp/a/gonea
	rm $tmp/a/gonea
	mkdir -p $t/bind
	mount --bind $tmp/a $t/bind
	cat >$t/paths.conf <<-P
	set grant-traverse others
	cache-top  p-top   $tmp     0444
	cache-top  p-bind  $t/bind  0444
	P
	apply $t/paths.conf >/dev/null
	read_pin root p-top
	echo "$out"
	check "too deep: its last 32 components after ..." has "^file 600 [0-9]* [0-9]* [0-9]* \.\.\./d10/d11/.*/d40/leaf$"
	# d_find_alias() gives no removed name of a regular file: "?".
	check "deleted, still open: no name" has "^file 500 [0-9]* [0-9]* [0-9]* ?$"
	check "fsa's deleted file too, to root" has "^file 450 [0-9]* [0-9]* [0-9]* ?$"
	read_pin fsa p-top
	echo "$out"
	check "fsa: its own deleted file, which it cannot reach, not named" \
		test -z "$(grep '^file 450 ' <<<"$out")"
	read_pin root p-bind
	echo "$out"
	check_eq "bind mount of a/: its files relative to it" "$(file_line a1 | cut -d' ' -f1)" 400
	check "outside it: from the filesystem's root, with a leading /" has "^file 300 [0-9]* [0-9]* [0-9]* /b/b1$"
	exec 9<&- 8<&-
	umount $t/bind
	rm -rf $tmp/deep
	"$tool" remove p-top p-bind >/dev/null
}

# reach: a file the reader may write but could not open, behind a
# directory it may not search, is not named; nor, to a user, a file
# outside the root of a bind mount. Before the fix, fsa saw priv/pw,
# fsb saw a/shut/sb, and fsa saw /w1 through the bind mount.
test_reach() {
	needs test_apply
	echo "== reach: only files the reader could open by a path from the mount's root"
	mkdir -p $tmp/priv $tmp/a/shut $t/rbind
	chmod 0700 $tmp/priv
	mkfile root $tmp/priv/pw 70 0666
	chown fsa:fsa $tmp/a/shut && chmod 0700 $tmp/a/shut
	mkfile fsb $tmp/a/shut/sb 80 0666
	mount --bind $tmp/a $t/rbind
	cat >$t/reach.conf <<-P
	set grant-traverse others
	cache-top  r-top   $tmp      0444 - - - expose-totals
	cache-top  r-bind  $t/rbind  0444
	P
	apply $t/reach.conf >/dev/null
	read_pin root r-top
	echo "$out"
	check "root: priv/pw by name" test -n "$(file_line priv/pw)"
	check "root: a/shut/sb by name" test -n "$(file_line a/shut/sb)"
	read_pin fsa r-top
	echo "$out"
	check "fsa: priv/pw (0666, in root's 0700 priv/) not named" test -z "$(file_line priv/pw)"
	check "fsa: a/shut/sb (0666, in fsa's own 0700 shut/) named" test -n "$(file_line a/shut/sb)"
	check_eq "fsa, expose-totals: b1, r1 and priv/pw summed, unnamed" "$(sums other | cut -d' ' -f1,2)" "3 570"
	read_pin fsb r-top
	echo "$out"
	check "fsb: its own a/shut/sb, behind fsa's 0700 shut/, not named" test -z "$(file_line a/shut/sb)"
	check_eq "fsb: b1 and w1 by name" "$(files)" "b/b1 w1"
	read_pin fsa r-bind
	echo "$out"
	check "fsa, bind mount of a/: a1 by name" test -n "$(file_line a1)"
	check "fsa, bind mount of a/: shut/sb by name" test -n "$(file_line shut/sb)"
	check "fsa, bind mount of a/: w1 (0666, outside a/) not named" test -z "$(file_line /w1)"
	read_pin root r-bind
	check "root, bind mount of a/: w1 from the filesystem's root" test -n "$(file_line /w1)"
	umount $t/rbind
	"$tool" remove r-top r-bind >/dev/null

	# A bind-mounted file is the root of its mount: reaching it must not
	# make its directory, never checked, look reached. In priv/ (root's,
	# 0700), fsa may write both files; pf is newer, so the walk meets it
	# first, then ps.
	mkfile root $tmp/priv/ps 60 0666
	mkfile root $tmp/priv/pf 40 0666
	touch $t/fbind
	mount --bind $tmp/priv/pf $t/fbind
	cat >$t/reach.conf <<-P
	set grant-traverse others
	cache-top  r-file  $t/fbind  0444
	P
	apply $t/reach.conf >/dev/null
	read_pin fsa r-file
	echo "$out"
	check "fsa, bind-mounted file: the file itself, ." test -n "$(file_line .)"
	check "fsa, bind-mounted file: its sibling priv/ps not named" \
		test -z "$(grep -E '^file 60 .*ps$' <<<"$out")"
	umount $t/fbind
	rm -f $t/fbind
	rm -rf $tmp/priv $tmp/a/shut
	"$tool" remove r-file >/dev/null
}

# expose-cache names every file, reached or not: attaching with it needs
# CAP_DAC_READ_SEARCH as well as CAP_FOWNER. So does the flag of
# expose-totals, the sums over what a reader may not see, and only fs_sb
# takes it.
test_expose_needs_search() {
	needs test_apply
	local flag cap
	for flag in --expose-cache --withheld-sums; do
		for cap in dac_read_search fowner; do
			echo "== $flag: refused without CAP_${cap^^}"
			out=$(setpriv --bounding-set -$cap "$ktool" read $flag \
				"$views/cache-summary.bpf.o" fsiter_sb_sum $tmp 2>&1); rc=$?
			echo "$out"
			check_eq "$flag: root without CAP_${cap^^}: refused" "$rc" 1
			check "$flag: the error is EPERM" has "Operation not permitted"
		done
		check "$flag: root with both: attached" "$ktool" read $flag \
			"$views/cache-summary.bpf.o" fsiter_sb_sum $tmp
	done
	out=$("$ktool" read --withheld-sums "$views/cache-summary.bpf.o" fsiter_sb_sum $tmp 2>&1)
	echo "$out"
	check "--withheld-sums: totals, a number" grep -qx 'cache.cached [0-9]\+' <<<"$out"
	check_eq "--withheld-sums: root observes them all" "$(field cache.cached <<<"$out")" \
		"$(field observed.cached <<<"$out")"
	out=$("$ktool" read --withheld-sums "$views/cache.bpf.o" fsiter_cache $tmp/r1 2>&1); rc=$?
	echo "$out"
	check_eq "--withheld-sums on fs_inode: refused" "$rc" 1
	check "the error is EINVAL" has "Invalid argument"
}

# disk_fs TYPE: a loop image of TYPE mounted on $t/TYPE, with files of fsa
# and fsb, synced; then the views as root and as fsa.
disk_fs() {
	local fs=$1 mnt=$t/$1 img=$t/$1.img
	truncate -s 320M $img
	case $fs in
		ext4) mkfs.ext4 -q -F $img ;;
		xfs) mkfs.xfs -q -f $img ;;
	esac || { fail "mkfs.$fs"; return; }
	mkdir -p $mnt
	mount -o loop $img $mnt || { fail "mount $fs"; return; }
	mkdir -p $mnt/data/a $mnt/data/b
	chown fsa:fsa $mnt/data/a
	chown fsb:fsb $mnt/data/b
	mkfile fsa $mnt/data/a/big 700
	mkfile fsa $mnt/data/a/small 30
	mkfile fsb $mnt/data/b/mid 250
	sync
	cat >$t/$fs.conf <<-P
	set grant-traverse others
	cache-top      $fs-top  $mnt/data   0444 - - - top=2,expose-totals
	cache-summary  $fs-sum  $mnt/data   0444 - - - expose-totals
	cache-summary  $fs-plain $mnt/data  0444
	P
	check "$fs: apply" apply $t/$fs.conf
	check "$fs: list names it" has "created $fs-top"
	out=$("$tool" list --json)
	check_eq "$fs: fs_type" "$(jq -r ".[] | select(.name == \"$fs-top\") | .target.fs_type" <<<"$out")" $fs
	read_pin root $fs-top
	echo "$out"
	check_eq "$fs: fs.type" "$(field fs.type <<<"$out")" $fs
	check_eq "$fs: root: top 2, paths from the mount's root" "$(files)" "data/a/big data/b/mid"
	check_eq "$fs: big as fincore says, synced" "$(file_line data/a/big)" "$(pages $mnt/data/a/big) 0 0 $(stat -c %i $mnt/data/a/big)"
	check_eq "$fs: root observes all" "$(sums other | cut -d' ' -f1)" 0
	read_pin fsa $fs-top
	echo "$out"
	check_eq "$fs: fsa: its own" "$(files)" "data/a/big data/a/small"
	# ext4 may hold a few pages of its own in an inode nobody owns: at least.
	check_ge "$fs: fsa: mid summed, unnamed" "$(sums other | cut -d' ' -f2)" "$(pages $mnt/data/b/mid)"
	check "$fs: fsa: mid not named" test -z "$(file_line data/b/mid)"
	read_pin fsb $fs-sum
	echo "$out"
	check_eq "$fs: fsb: observed mid" "$(field observed.cached <<<"$out")" "$(pages $mnt/data/b/mid)"
	check_ge "$fs: totals at least the three files" "$(field cache.cached <<<"$out")" 980
	read_pin fsb $fs-plain
	echo "$out"
	check_eq "$fs: fsb, without expose-totals: observed mid" "$(field observed.cached <<<"$out")" "$(pages $mnt/data/b/mid)"
	check_eq "$fs: fsb, without expose-totals: no totals" "$(field cache.cached <<<"$out") $(field observed.share <<<"$out")" "- -"
	# Dirty pages are counted on the marks of the page cache, where a
	# clean file has none: write one and look before the flusher runs.
	# With the periodic flusher off, something can still write it back
	# in between (seen once, on a loaded 6.1 KASAN guest: 0 of 40).
	# /proc/vmstat's nr_written tells: then the file is synced and the
	# check tried again with a new one, twice at most.
	local wb try w0 w1 n
	wb=$(cat /proc/sys/vm/dirty_writeback_centisecs)
	echo 0 >/proc/sys/vm/dirty_writeback_centisecs
	for try in 1 2 3; do
		w0=$(field nr_written </proc/vmstat)
		mkfile fsb $mnt/data/b/dirty$try 40
		read_pin fsb $fs-sum
		w1=$(field nr_written </proc/vmstat)
		echo "$out"
		n=$(awk '$1 ~ /^observed\.(dirty|writeback)$/ { n += $2 } END { print n + 0 }' <<<"$out")
		((w1 != w0)) || break
		echo "note: try $try: $((w1 - w0)) pages written back meanwhile, $n of 40 seen: again"
		sync
	done
	check_ge "$fs: fsb: its 40 new pages dirty or under writeback" "$n" 40
	echo "$wb" >/proc/sys/vm/dirty_writeback_centisecs
	echo "== $fs: umount with the pins in place"
	check "$fs: umount succeeds" umount $mnt
	out=$(cat $pins/$fs-top 2>&1)
	check "$fs: a read after umount fails with ESTALE" has "Stale file handle"
	"$tool" remove $fs-top $fs-sum $fs-plain >/dev/null
	rm -f $img
}

test_ext4() {
	echo "== ext4"
	if ! grep -qw ext4 /proc/filesystems; then
		echo "SKIP: this kernel has no ext4 (CONFIG_EXT4_FS)"
		return
	fi
	disk_fs ext4
}

test_xfs() {
	echo "== XFS"
	if ! command -v mkfs.xfs >/dev/null || ! grep -qw xfs /proc/filesystems; then
		echo "SKIP: no mkfs.xfs or no XFS in this kernel"
		return
	fi
	disk_fs xfs
}

run_tests
finish
