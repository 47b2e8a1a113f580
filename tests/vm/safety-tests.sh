#!/bin/bash
# The kernel series' safety rules, seen from user space, run as root inside
# the test VM (tests/run.sh boots it). Usage: safety-tests.sh BUILD_DIR [TEST...]
#
# - A pin lets go of a deleted file: the blocks are freed while the pin
#   exists, remount read-only works, and a read fails with ESTALE.
# - The kernel withholds page-cache state from readers who may not see it,
#   whatever program runs, unless the link was attached to expose it.
# - shmem's dirty pages, which carry no dirty mark, are still counted.
# - A read of a huge sparse file ends without a stall (run-vm.sh fails the
#   run on any RCU stall or lockup report in the kernel log).
# - Pins made under a default ACL in bpffs keep a private base mode.
# - A reader stuck on a filesystem that stopped answering holds up no
#   one it need not: another reader can be killed, link info answers,
#   and umount -f frees it.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/vm/lib.sh
. "$here/lib.sh"

suite_init "$@"

view() { "$ktool" read "$views/$1.bpf.o" "fsiter_${1//-/_}" "${@:2}"; }
pinv() { "$ktool" pin "$views/$1.bpf.o" "fsiter_${1//-/_}" "${@:2}"; }
avail_kib() { df --output=avail -k "$1" | tail -n1 | tr -d ' '; }
# retry SECONDS CMD...: CMD until it succeeds, for at most SECONDS. The
# dentry of a deleted file is let go of by a worker right after the unlink.
retry() {
	local end=$((SECONDS + $1))
	shift
	until "$@" 2>/dev/null; do
		(( SECONDS < end )) || return 1
		sleep 0.1
	done
}
estale() { ! cat "$1" >/dev/null 2>/tmp/err && grep -q "Stale file handle" /tmp/err; }

bpffs=/run/fsiter-st/bpffs

# setup: a bpffs of the suite's own, for its pins.
setup() {
	mkdir -p $bpffs && mount -t bpf -o mode=0755 bpf $bpffs
	check "bpffs for the suite's pins" mountpoint -q $bpffs
}

test_deleted_file() {
	needs setup
	echo "== a pin lets go of a deleted file"
	lt=/run/fsiter-st/xfs
	img=/tmp/st.img
	truncate -s 512M $img && mkfs.xfs -q -f $img && mkdir -p $lt && mount -o loop $img $lt
	check "mount xfs" mountpoint -q $lt
	dd if=/dev/zero of=$lt/big bs=1M count=128 status=none && sync
	pinv cache $lt/big $bpffs/big
	pinv inode $lt/big $bpffs/big-inode
	check_eq "pin reads before the unlink" "$(field cache.cached <$bpffs/big)" 32768
	before=$(avail_kib $lt)
	rm $lt/big
	check "remount read-only with a pin on a deleted file" retry 5 mount -o remount,ro $lt
	mount -o remount,rw $lt
	after=$(avail_kib $lt)
	check_ge "blocks freed while the pin exists (KiB)" "$((after - before))" $((120 * 1024))
	check "pins still exist" test -e $bpffs/big -a -e $bpffs/big-inode
	check "read after the unlink: ESTALE" estale $bpffs/big
	check "inode view too: ESTALE" estale $bpffs/big-inode
	rm -f $bpffs/big $bpffs/big-inode

	echo "hello" >$lt/a && ln $lt/a $lt/b && sync
	pinv cache $lt/a $bpffs/a
	rm $lt/a
	check_eq "a hard link is left: the pin reads" "$(field cache.cached <$bpffs/a)" 1
	rm $lt/b
	check "the last link goes: ESTALE" retry 5 estale $bpffs/a
	rm -f $bpffs/a

	echo "old" >$lt/target && echo "new" >$lt/new && sync
	pinv cache $lt/target $bpffs/target
	mv $lt/new $lt/target
	check "renamed over: ESTALE" retry 5 estale $bpffs/target
	check "remount read-only after the rename" retry 5 mount -o remount,ro $lt
	mount -o remount,rw $lt
	rm -f $bpffs/target
	umount $lt && rm -f $img
}

test_withheld() {
	needs setup
	echo "== the kernel withholds the page cache"
	vis=/run/fsiter-st/vis
	mkdir -p $vis && chmod 0755 $vis
	dd if=/dev/zero of=$vis/f bs=4k count=16 status=none && chmod 0644 $vis/f
	pinv cache $vis/f $bpffs/vis && chmod 0444 $bpffs/vis
	"$ktool" pin --expose-cache "$views/cache.bpf.o" fsiter_cache $vis/f $bpffs/vis-exposed
	chmod 0444 $bpffs/vis-exposed
	check "fsa is refused" bash -c "setpriv --reuid=fsa --regid=fsa --init-groups cat $bpffs/vis | grep -q '^cache.withheld '"
	check_eq "root sees it" "$(field cache.cached <$bpffs/vis)" 16
	check_eq "expose-cache: fsa sees it" "$(as fsa cat $bpffs/vis-exposed | field cache.cached)" 16
	rm -f $bpffs/vis $bpffs/vis-exposed
}

test_shmem_dirty() {
	needs setup
	echo "== tmpfs: dirty pages without a dirty mark"
	t=/tmp/st-shmem
	dd if=/dev/urandom of=$t bs=4k count=256 status=none
	out=$(view cache $t)
	check_eq "tmpfs: cached" "$(field cache.cached <<<"$out")" 256
	check_eq "tmpfs: dirty (the folio's own flag)" "$(field cache.dirty <<<"$out")" 256
	check_eq "tmpfs: inode view's dirty folios" \
		"$(view inode $t | awk '$1 == "folio" && / dirty/ { n += 2 ^ $3 } END { print n + 0 }')" 256
	rm -f $t
}

test_sparse_read() {
	needs setup
	echo "== a huge sparse file, read in one go"
	sp=/tmp/st-sparse
	truncate -s 1T $sp
	# One byte every 256 MiB: 4096 cached pages spread over 1 TiB.
	python3 -c 'import os, sys; fd = os.open(sys.argv[1], os.O_WRONLY); [os.pwrite(fd, b"x", i << 28) for i in range(4096)]' $sp
	# (Not fincore: its mincore() over 1 TiB takes many minutes under TCG.)
	check_eq "1 TiB sparse: written, as the cache view counts" "$(view cache $sp | field cache.cached)" 4096
	out=$(view inode $sp); rc=$?
	check_eq "1 TiB sparse: read ends (exit)" "$rc" 0
	check_eq "1 TiB sparse: every folio listed" "$(grep -c '^folio ' <<<"$out")" 4096
	check_eq "1 TiB sparse: no error line" "$(grep -c '^folios.error' <<<"$out")" 0
	chmod 0644 $sp
	pinv inode $sp $bpffs/sparse && chmod 0444 $bpffs/sparse
	check_eq "withheld: one run, no folio" "$(as fsa cat $bpffs/sparse | grep -c -e '^folio' -e '^cache.withheld')" 1
	rm -f $bpffs/sparse $sp
}

test_pin_modes() {
	needs setup
	echo "== bpffs: pins under a default ACL"
	acl=$bpffs/acl
	mkdir -m 0755 $acl && setfacl -d -m g:fsreaders:r $acl
	pinv cache /etc/hostname $acl/link
	bpftool map create $acl/map type array key 4 value 4 entries 1 name st_map
	check_eq "iterator link: 0440" "$(stat -c %a $acl/link)" 440
	check_eq "map: 0600" "$(stat -c %a $acl/map)" 600
	check "named group inherits read" bash -c "getfacl -p $acl/link | grep -qx 'group:fsreaders:r--'"
	check "others get nothing" bash -c "getfacl -p $acl/link | grep -qx 'other::---'"
	check "fsb (not in fsreaders) is refused" bash -c "! setpriv --reuid=fsb --regid=fsb --init-groups cat $acl/link 2>/dev/null"
	rm -rf $acl
}

# gone_within SECONDS PID: PID (a child of this shell) ended within
# SECONDS; the shell does not wait longer, however stuck it is.
gone_within() {
	local end=$((SECONDS + $1))
	while [[ -e /proc/$2 ]] && (( SECONDS < end )); do
		# A zombie is gone for this purpose: reap it.
		[[ $(awk '{ print $3 }' /proc/"$2"/stat 2>/dev/null) != Z ]] || break
		sleep 0.1
	done
	[[ ! -e /proc/$2 || $(awk '{ print $3 }' /proc/"$2"/stat 2>/dev/null) == Z ]]
}

test_stuck_reader() {
	needs setup
	echo "== a reader stuck on a FUSE server that stopped answering"
	if ! grep -qw fuse /proc/filesystems; then
		fail "this kernel has no FUSE"
		return
	fi
	local fdir=/run/fsiter-st/fuse fuse a b info
	mkdir -p $fdir
	"$build/tests/unit/fuse-hang" --file $fdir >/tmp/st-fuse.out 2>&1 &
	fuse=$!
	for _ in $(seq 100); do grep -q ready /tmp/st-fuse.out && break; sleep 0.1; done
	check "fuse-hang --file is up" grep -q ready /tmp/st-fuse.out
	"$ktool" pin --opath "$views/cache.bpf.o" fsiter_cache $fdir/f $bpffs/stuck &&
		chmod 0444 $bpffs/stuck
	# fsa may write the 0666 file: the rule asks the server (attributes
	# are never cached, default_permissions) at every read.
	check "fsa reads the pin while the server answers" as fsa cat $bpffs/stuck
	kill -USR1 $fuse
	as fsa cat $bpffs/stuck >/dev/null 2>&1 &
	a=$!
	sleep 2
	check "the first reader waits on the server, holding the target" test -e /proc/$a
	as fsb cat $bpffs/stuck >/dev/null 2>&1 &
	b=$!
	sleep 1
	check "a second reader waits for it" test -e /proc/$b
	kill -KILL $b
	check "the second reader is killed at once (not in D state)" gone_within 3 $b
	# Link info of every link, that of the stuck target too (fdinfo asks
	# the same question of the target: whether it is gone).
	${kbpftool:-bpftool} link show >/tmp/st-links.out 2>&1 &
	info=$!
	check "link info answers while a read is stuck" gone_within 10 $info
	# umount -f aborts the connection first (->umount_begin()), which
	# answers the stuck request; whether that umount then finds the mount
	# busy (the server's own teardown races it) is FUSE's business.
	timeout 30 umount -f $fdir
	echo "umount -f: status $?"
	check "umount -f aborts the server and frees the first reader" gone_within 10 $a
	check "the mount goes" bash -c "! mountpoint -q $fdir || timeout 30 umount $fdir"
	wait $a $b $info 2>/dev/null
	kill $fuse 2>/dev/null
	wait $fuse 2>/dev/null
	umount -l $fdir 2>/dev/null
	rm -f $bpffs/stuck
	check_kernel_log
}

run_tests
finish
