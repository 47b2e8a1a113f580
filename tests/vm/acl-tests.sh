#!/bin/bash
# POSIX ACLs on bpffs (6.1/0013, 6.12/0012), with the real getfacl/setfacl,
# run as root inside the test VM. Usage: acl-tests.sh BUILD_DIR [TEST...]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/vm/lib.sh
. "$here/lib.sh"

suite_init "$@"
cache_obj=$views/cache.bpf.o

can_read() { as "$1" cat "$2" >/dev/null 2>&1; }
pin() { "$ktool" pin "$cache_obj" fsiter_cache /etc/hostname "$1"; }

root=/sys/fs/bpf
dir=$root/fsiter
check_eq "bpffs root is 0700 (and sticky), as systemd mounts it" "$(stat -c %a $root)" 1700
mkdir -p $dir && chmod 0711 $dir

test_traverse() {
	echo "== traverse ACL on $root for one group"
	check "setfacl g:fsreaders:x on $root" setfacl -m g:fsreaders:x $root
	check_eq "$root mode for others stays 0" "$(( 0$(stat -c %a $root) & 7 ))" 0
	check "getfacl shows the entry" bash -c "getfacl -p $root | grep -qx 'group:fsreaders:--x'"
	pin $dir/p1 && chmod 0444 $dir/p1
	check "fsa (in fsreaders) reaches a 0444 pin" can_read fsa $dir/p1
	if can_read fsb $dir/p1; then fail "fsb got through a 0700 $root"; else pass "fsb stopped at $root"; fi
}

test_named_entries() {
	echo "== named user and group entries"
	setfacl -m g:fsother:x $root
	pin $dir/p2 && chmod 0600 $dir/p2
	check "setfacl u:fsb:r on a 0600 pin" setfacl -m u:fsb:r $dir/p2
	check "fsb reads through its named entry" can_read fsb $dir/p2
	if can_read fsa $dir/p2; then fail "fsa read a 0600 pin"; else pass "fsa refused a 0600 pin"; fi
	pin $dir/p3 && chmod 0644 $dir/p3
	check "setfacl u:fsb:- on a 0644 pin" setfacl -m u:fsb:- $dir/p3
	if can_read fsb $dir/p3; then fail "named deny ignored"; else pass "fsb denied by its named entry"; fi
	check "fsa still reads it (other r)" can_read fsa $dir/p3
	check "setfacl g:fsreaders:r on a 0600 pin" setfacl -m g:fsreaders:r $dir/p2
	check "fsa reads through its group entry" can_read fsa $dir/p2
}

test_mask() {
	needs test_named_entries
	echo "== the mask, and chmod after setfacl"
	check "mask ---" setfacl -m m::- $dir/p2
	if can_read fsb $dir/p2; then fail "mask ignored"; else pass "mask --- stops fsb"; fi
	check "chmod 0640" chmod 0640 $dir/p2
	check_eq "chmod set the mask" "$(getfacl -p $dir/p2 2>/dev/null | sed -n 's/^mask:://p')" "r--"
	check "fsb reads again" can_read fsb $dir/p2
	check_eq "mode shows the mask" "$(stat -c %a $dir/p2)" 640
}

test_default_acl() {
	echo "== default ACL inherited by new pins and directories"
	check "setfacl -d g:fsreaders:r" setfacl -d -m g:fsreaders:r,u::rw,g::-,o::- $dir
	pin $dir/p4
	check "new pin has the named entry" bash -c "getfacl -p $dir/p4 | grep -qx 'group:fsreaders:r--'"
	check "fsa reads the new pin, no chmod needed" can_read fsa $dir/p4
	if can_read fsb $dir/p4; then fail "fsb read p4"; else pass "fsb refused p4"; fi
	# The umask does not apply; an iterator link has a read-only base.
	check_eq "no umask under a default ACL, read-only base" "$(umask 077; pin $dir/p5; stat -c %a $dir/p5)" 440
	mkdir $dir/sub
	check "new directory inherits the default ACL" bash -c "getfacl -p -d $dir/sub | grep -qx 'group:fsreaders:r--'"
	check "listxattr lists the ACLs" python3 -c "import os,sys; n=os.listxattr(sys.argv[1]); sys.exit(0 if 'system.posix_acl_access' in n else 1)" $dir/p4
	check_eq "without a default ACL: 0600 less the umask" "$(umask 022; pin $root/plain; stat -c %a $root/plain)" 600
}

test_unprivileged() {
	needs test_default_acl
	echo "== unprivileged users cannot change ACLs"
	if as fsa setfacl -m u:fsa:rw $dir/p4 2>/dev/null; then fail "fsa changed an ACL"; else pass "fsa cannot setfacl"; fi
	if as fsa setfacl -m g:fsa:x $root 2>/dev/null; then fail "fsa changed $root's ACL"; else pass "fsa cannot setfacl $root"; fi
}

# The labels of an LSM: the suite's VM boots with lsm=smack (tests/run.sh),
# which keeps labels without a policy. security.* names must reach the
# LSM as on a bpffs without xattr handlers: set, read back and listed
# beside the ACLs, on pins and directories. Before the fix, 6.1 refused
# the setxattr with EOPNOTSUPP and both kernels left the label out of
# listxattr.
test_security_labels() {
	echo "== security labels: security.* reaches the LSM"
	if ! grep -qw smack /sys/kernel/security/lsm 2>/dev/null &&
		! grep -qx _ /proc/self/attr/smack/current 2>/dev/null &&
		! grep -qx _ /proc/self/attr/current 2>/dev/null; then
		if grep -qw lsm=smack /proc/cmdline; then
			fail "booted with lsm=smack, but Smack is not running"
		else
			# As on stock bpffs without an LSM: nothing keeps it.
			pin $dir/nolsm
			if out=$(setfattr -n security.SMACK64 -v x $dir/nolsm 2>&1); then
				fail "security.SMACK64 set with no LSM to keep it"
			else
				check "no LSM: security.* is EOPNOTSUPP" has "Operation not supported"
			fi
			rm -f $dir/nolsm
		fi
		return
	fi
	local p=$dir/lbl d=$dir/lbldir
	pin $p && mkdir -p $d
	check "setfattr security.SMACK64 on a pin" setfattr -n security.SMACK64 -v fsiter-pin $p
	check_eq "the pin's label reads back" \
		"$(getfattr --absolute-names --only-values -n security.SMACK64 $p 2>&1)" fsiter-pin
	check "setfattr security.SMACK64 on a directory" setfattr -n security.SMACK64 -v fsiter-dir $d
	check_eq "the directory's label reads back" \
		"$(getfattr --absolute-names --only-values -n security.SMACK64 $d 2>&1)" fsiter-dir
	check "getfattr -m - lists the label of a pin without an ACL" \
		bash -c "getfattr --absolute-names -m - $p 2>/dev/null | grep -qx security.SMACK64"
	check "setfacl beside the label" setfacl -m u:fsb:r $p
	out=$(getfattr --absolute-names -m - $p 2>&1)
	check "getfattr -m - lists the label and the ACL" \
		bash -c 'grep -qx security.SMACK64 <<<"$1" && grep -qx system.posix_acl_access <<<"$1"' _ "$out"
	check "listxattr with a buffer one byte short is ERANGE" python3 -c '
import ctypes, errno, os, sys
libc = ctypes.CDLL(None, use_errno=True)
p = sys.argv[1].encode()
n = libc.listxattr(p, None, 0)
buf = ctypes.create_string_buffer(n)
ok = libc.listxattr(p, buf, n) == n
short = libc.listxattr(p, buf, n - 1) == -1 and ctypes.get_errno() == errno.ERANGE
sys.exit(0 if ok and short else 1)' $p
	check_eq "the label stays the LSM's: Smack still labels the pin" \
		"$(getfattr --absolute-names --only-values -n security.SMACK64 $p 2>&1)" fsiter-pin
	rm -f $p; rmdir $d
}

# A new bpffs has no ACL: listxattr of its root names none (6.12 listed
# both ACL names of a root never given one, and getxattr of them said
# ENODATA).
# Smack decides nothing in RCU mode (MAY_NOT_BLOCK: -ECHILD), so fs_sb's
# walk up to the reader's root must decide with references instead: a user
# is still shown their own file, and not another's.
test_sb_smack() {
	needs test_traverse	# fsa may search $root
	echo "== fs_sb with Smack: a user is shown their own file, not another's"
	# securityfs is not mounted in the guest: Smack's own attribute says.
	check "Smack is the LSM" grep -qx _ /proc/self/attr/smack/current
	local m=/run/acl-sb
	mkdir -p $m && mount -t tmpfs -o mode=1777 aclsb $m
	as fsa sh -c "head -c 8192 /dev/urandom >$m/mine"
	as fsb sh -c "head -c 8192 /dev/urandom >$m/theirs"
	"$ktool" pin "$views/cache-top.bpf.o" fsiter_sb_top $m $dir/sb-top &&
		chmod 0444 $dir/sb-top
	out=$(as fsa cat $dir/sb-top 2>&1)
	echo "$out"
	check "fsa: its own file by name" grep -q '^file .* mine$' <<<"$out"
	check "fsa: not fsb's" bash -c "! grep -q theirs <<<\"\$1\"" - "$out"
	rm -f $dir/sb-top
	umount $m
}

test_root_no_acl() {
	echo "== a new bpffs: its root lists no ACL"
	local m=/run/fsiter-acl-fresh
	mkdir -p $m && mount -t bpf fresh $m
	out=$(getfattr --absolute-names -m - $m 2>&1)
	echo "$out"
	check "getfattr -m - on a new bpffs: no system.posix_acl_*" \
		bash -c '! grep -q posix_acl <<<"$1"' _ "$out"
	check_eq "getfacl: the mode only" "$(getfacl -cp $m 2>/dev/null | grep -c '^\(user\|group\|other\|mask\|default\):[^:]\+:')" 0
	umount $m && rmdir $m
}

run_tests
rm -rf $dir/sub; rm -f $dir/p* $root/plain; rmdir $dir
setfacl -b $root
finish
