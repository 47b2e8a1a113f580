#!/bin/bash
# The kernel tests of the fs iterator series, run as root inside the test VM
# (tests/run.sh boots it). Usage: kernel-tests.sh BUILD_DIR [TEST...]
#
# Every value is checked against an independent source: fincore (mincore),
# sync, posix_fadvise, stat, and the kernel's own refusals.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/vm/lib.sh
. "$here/lib.sh"

suite_init "$@"

view() { "$ktool" read "$views/$1.bpf.o" "fsiter_${1//-/_}" "${@:2}"; }
cache_field() { view cache "$2" | field "cache.$1"; }
fincore_pages() { fincore --noheadings --raw --output PAGES "$1"; }
drop_caches() { sync; echo 3 >/proc/sys/vm/drop_caches; }
fadvise_dontneed() {
	python3 -c 'import os,sys; fd=os.open(sys.argv[1], os.O_RDONLY); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)' "$1"
}

# cachestat_all FILE: the five counts of cachestat(2) for the whole file,
# named (x86_64 syscall 451; struct cachestat_range, struct cachestat).
cachestat_all() {
	python3 - "$1" <<'PY'
import ctypes, os, sys
class Range(ctypes.Structure):
    _fields_ = [("off", ctypes.c_uint64), ("len", ctypes.c_uint64)]
class Stat(ctypes.Structure):
    _fields_ = [(n, ctypes.c_uint64) for n in
                ("nr_cache", "nr_dirty", "nr_writeback", "nr_evicted",
                 "nr_recently_evicted")]
libc = ctypes.CDLL(None, use_errno=True)
fd = os.open(sys.argv[1], os.O_RDONLY)
r, cs = Range(0, 0), Stat()
if libc.syscall(451, fd, ctypes.byref(r), ctypes.byref(cs), 0) != 0:
    sys.exit("cachestat: " + os.strerror(ctypes.get_errno()))
print(" ".join("%s %d" % (n, getattr(cs, n)) for n, _ in Stat._fields_))
PY
}

# cachestat FILE: "nr_cache nr_dirty" of cachestat(2) for the whole file.
cachestat() {
	local out
	out=$(cachestat_all "$1") || return
	awk '{ print $2, $4 }' <<<"$out"
}

test_selftests() {
	local ver st
	ver=$(uname -r | grep -oE '^[0-9]+\.[0-9]+')
	st=$build/tests/kernel/test_fs_iters-$ver
	echo "== selftests of the $ver series (prog_tests/bpf_iter_fs_*.c)"
	[[ -x $st ]] || { fail "no selftests built for Linux $ver ($st)"; return; }
	if "$st"; then pass "selftests"; else fail "selftests"; fi
}

test_xfs() {
	echo "== XFS on a scratch disk"
	dev=/dev/vda
	[[ -b $dev ]] || { fail "no scratch disk $dev"; finish; exit; }
	mnt=/run/fsiter-kt/xfs
	mkfs.xfs -q -f "$dev" && mkdir -p $mnt && mount "$dev" $mnt
	check "mount xfs" mountpoint -q $mnt

	f=$mnt/readahead
	dd if=/dev/zero of=$f bs=1M count=64 status=none && drop_caches
	cat $f >/dev/null
	out=$(view inode $f)
	check_eq "inode view: fs type" "$(field fs.type <<<"$out")" xfs
	check_eq "inode view: name" "$(field inode.name <<<"$out")" readahead
	check_eq "inode view: ino" "$(field inode.ino <<<"$out")" "$(stat -c %i $f)"
	check_eq "inode view: size" "$(field inode.size <<<"$out")" "$(stat -c %s $f)"
	check_eq "inode view: mode" "$(field inode.mode <<<"$out")" "0$(printf %o 0x"$(stat -c %f $f)")"
	maxorder=$(awk '$1 == "folio" && $3 > m { m = $3 } END { print m + 0 }' <<<"$out")
	check_ge "readahead made large folios (max order)" "$maxorder" 1
	pages=$(awk '$1 == "folio" { n += 2 ^ $3 } END { print n + 0 }' <<<"$out")
	check_eq "inode view: folios cover the cached pages" "$pages" "$(field cache.cached <<<"$out")"
	check_eq "cache view: cached = fincore" "$(cache_field cached $f)" "$(fincore_pages $f)"

	g=$mnt/dirty
	dd if=/dev/urandom of=$g bs=1M count=8 status=none
	check_ge "dirty pages before sync" "$(cache_field dirty $g)" 2048
	out=$(view inode $g)
	pages=$(awk '$1 == "folio" && / dirty/ { n += 2 ^ $3 } END { print n + 0 }' <<<"$out")
	check_eq "inode view: dirty folios cover the dirty pages" "$pages" "$(field cache.dirty <<<"$out")"
	sync
	check_eq "no dirty pages after sync" "$(cache_field dirty $g)" 0
	check_eq "inode view: no folio dirty after sync" "$(view inode $g | grep -c '^folio .* dirty')" 0
	check_eq "cache view: cached = fincore (after sync)" "$(cache_field cached $g)" "$(fincore_pages $g)"
	# POSIX_FADV_DONTNEED invalidates: the pages leave the cache without a
	# shadow entry, so they are not "evicted" (in 6.1 as in mainline).
	fadvise_dontneed $g
	check_eq "cached after DONTNEED = fincore" "$(cache_field cached $g)" "$(fincore_pages $g)"
	check_eq "DONTNEED leaves no shadow entries" "$(cache_field evicted $g)" 0
	# Reclaim does leave them: map the file, fault every page in, and have
	# the kernel reclaim them with MADV_PAGEOUT. Every page that left the
	# cache is then an evicted one. The pages are brought back by writing, not
	# by reading: readahead would make large folios, which MADV_PAGEOUT in 6.1
	# skips when it cannot split them.
	dd if=/dev/urandom of=$g bs=1M count=8 conv=notrunc status=none && sync
	check "MADV_PAGEOUT" python3 "$here/pageout.py" $g
	left=$(fincore_pages $g)
	check_eq "cached after reclaim = fincore" "$(cache_field cached $g)" "$left"
	check_ge "pages reclaimed by MADV_PAGEOUT" "$((2048 - left))" 1
	check_eq "evicted = pages reclaimed" "$(cache_field evicted $g)" "$((2048 - left))"
	# get_folios skips shadow entries: only cached folios are listed.
	pages=$(view inode $g | awk '$1 == "folio" { n += 2 ^ $3 } END { print n + 0 }')
	check_eq "inode view lists no evicted pages" "$pages" "$left"
}

test_other_targets() {
	needs test_xfs
	echo "== other targets"
	t=/tmp/tmpfs-file
	dd if=/dev/zero of=$t bs=1M count=4 status=none
	check_eq "tmpfs: cached = fincore" "$(cache_field cached $t)" "$(fincore_pages $t)"
	check_eq "O_PATH fd" "$("$ktool" read --opath "$views/cache.bpf.o" fsiter_cache $t | field cache.cached)" 1024
	check_eq "directory" "$(view inode $mnt | field inode.mode)" "0$(printf %o 0x"$(stat -c %f $mnt)")"

	big=$mnt/big
	if dd if=/dev/zero of=$big bs=1M count=2048 status=none && sync; then
		out=$(view inode $big); rc=$?
		check_eq "2 GiB file: whole listing read (exit)" "$rc" 0
		pages=$(awk '$1 == "folio" { n += 2 ^ $3 } END { print n + 0 }' <<<"$out")
		check_eq "2 GiB file: folios cover the cached pages" "$pages" "$(field cache.cached <<<"$out")"
		check_eq "2 GiB file: cached = fincore" "$(field cache.cached <<<"$out")" "$(fincore_pages $big)"
	else
		fail "2 GiB file: could not write it"
	fi
	rm -f $big

	# Every other page of 64 MiB: 8192 order-0 folios, so that the listing
	# outgrows the 32 KiB seq_file buffer whatever folio sizes the kernel
	# picks for a file written whole (6.12 makes them large).
	holes=$mnt/holes
	python3 -c 'import os,sys; fd=os.open(sys.argv[1], os.O_WRONLY|os.O_CREAT|os.O_TRUNC); [os.pwrite(fd, b"x" * 4096, i * 8192) for i in range(8192)]' $holes
	out=$(view inode $holes)
	check_eq "every other page: folios listed" "$(grep -c '^folio ' <<<"$out")" 8192
	check_ge "every other page: listing beyond 32 KiB" "${#out}" 32769
	rm -f $holes
}

# cachestat(2) stays mainline's on shmem: it reads the dirty mark, which
# shmem never sets, and takes no reference on a folio, so it reports no
# dirty page on tmpfs. The views count shmem's dirty folios all the same.
test_shmem_dirty() {
	local d=/run/fsiter-kt/shm t out
	echo "== shmem: cachestat(2) as mainline, dirty pages in the view"
	mkdir -p $d && mount -t tmpfs tmpfs $d
	t=$d/file
	dd if=/dev/urandom of=$t bs=1M count=4 status=none
	# cachestat(2) came in 6.5: 6.1 has no syscall to keep as it is.
	if [[ $(uname -r) == 6.1.* ]]; then
		echo "no cachestat(2) on $(uname -r): the view alone"
	else
		out=$(cachestat $t)
		check_eq "tmpfs: cachestat(2) nr_cache" "${out% *}" 1024
		check_eq "tmpfs: cachestat(2) nr_dirty is mainline's 0" "${out#* }" 0
	fi
	check_eq "tmpfs: cache view: dirty" "$(cache_field dirty $t)" 1024
	check_eq "tmpfs: cache view: cached" "$(cache_field cached $t)" 1024
	umount $d
}

# DAX (review M-E): a file of an ext4 mounted -o dax on pmem has no page
# cache, and its i_pages hold DAX entries, value entries that are no
# shadow entries: the walks of the views must skip them, and count
# nothing. The VM reserves 64 MiB of its RAM as a legacy pmem device
# (memmap=64M!1G, tests/run.sh). cachestat(2) is mainline's, and counts
# each DAX entry as evicted: docs/upstream.md has the fix to send.
test_dax() {
	local d=/run/fsiter-kt/dax f out flags
	echo "== DAX: ext4 -o dax on pmem"
	[[ -b /dev/pmem0 ]] || { fail "no /dev/pmem0 (the VM boots with memmap=64M!1G)"; return; }
	mkdir -p $d
	check "mkfs.ext4 on pmem" mkfs.ext4 -q -F -b 4096 /dev/pmem0
	check "mount -o dax" mount -o dax /dev/pmem0 $d
	mountpoint -q $d || return
	f=$d/file
	dd if=/dev/urandom of=$f bs=1M count=8 status=none && sync
	# DAX entries are made by page faults, not by read(2): map the file
	# and touch every page.
	check "fault in every page through a mapping" python3 -c '
import mmap, os, sys
fd = os.open(sys.argv[1], os.O_RDWR)
m = mmap.mmap(fd, 0)
s = sum(m[i] for i in range(0, len(m), 4096))
m[0] = m[0]
m.flush()' $f
	out=$(view inode $f)
	flags=$(field inode.flags <<<"$out")
	check "the file is DAX (S_DAX in inode.flags $flags)" test $((flags & 0x2000)) -ne 0
	check_eq "DAX: inode view: cached" "$(field cache.cached <<<"$out")" 0
	check_eq "DAX: inode view: evicted" "$(field cache.evicted <<<"$out")" 0
	check_eq "DAX: inode view: no folio listed" "$(grep -c '^folio ' <<<"$out")" 0
	check_eq "DAX: cache view: evicted" "$(cache_field evicted $f)" 0
	# The whole-filesystem walk passes the DAX file over: cache-top does
	# not list it, and cache-summary's count stays below its 2048 pages
	# (ext4's own metadata inodes, which are not DAX, may hold a few).
	out=$("$ktool" read "$views/cache-top.bpf.o" fsiter_sb_top $d)
	check_eq "DAX: cache-top reads (exit)" "$?" 0
	check_eq "DAX: cache-top does not list the DAX file" \
		"$(awk '$1 == "file" && $NF ~ /(^|\/)file$/' <<<"$out" | wc -l)" 0
	out=$("$ktool" read "$views/cache-summary.bpf.o" fsiter_sb_sum $d)
	check_eq "DAX: cache-summary reads (exit)" "$?" 0
	check "DAX: cache-summary counts none of its pages ($(field observed.cached <<<"$out") cached)" \
		test "$(field observed.cached <<<"$out")" -lt 2048
	if [[ $(uname -r) != 6.1.* ]]; then
		echo "cachestat(2) on the DAX file, mainline's: $(cachestat_all $f)"
	fi
	umount $d
	check_kernel_log
}

test_mountinfo() {
	echo "== mounts: the mount view against /proc/self/mountinfo"
	mt=/run/fsiter-kt/mt
	mkdir -p $mt/a $mt/b $mt/c $mt/d $mt/e $mt/f $mt/g $mt/h
	mount -t tmpfs -o nosuid,nodev tmpfs $mt/a && mount --make-shared $mt/a
	# A bind mount of a subtree: its root (field 4) is not "/".
	mkdir -p $mt/a/sub/deeper && mount --bind $mt/a/sub/deeper $mt/h
	mount --bind $mt/a $mt/b
	mount --bind $mt/a $mt/c && mount --make-slave $mt/c
	# Both shared and a slave, and unbindable: each a case of the view.
	mount --bind $mt/a $mt/f && mount --make-slave $mt/f && mount --make-shared $mt/f
	mount -t tmpfs -o noatime tmpfs $mt/g && mount --make-unbindable $mt/g
	mount -t tmpfs -o ro,sync,size=1m my-src $mt/d && mount --move $mt/d $mt/e
	mount --bind -o remount,ro,noexec $mt/b 2>/dev/null || true
	checked=0
	binds=0
	# mountinfo: id parent maj:min root point opts [optional...] - type source sopts
	while read -r id parent devno root point opts rest; do
		[[ $point$root == *\\* ]] && continue	# escaped characters: skip
		optional=$(awk '{ for (i = 1; i <= NF && $i != "-"; i++) printf "%s ", $i }' <<<"$rest")
		# (A here-string: the guest has no /dev/fd for a process substitution.)
		read -r fstype source sopts <<<"$(awk '{ for (i = 1; i < NF; i++) if ($i == "-") { print $(i + 1), $(i + 2), $(i + 3); exit } }' <<<"$rest")"
		out=$(view mount "$point" 2>/dev/null) || { fail "mount view of $point"; continue; }
		# A mount hidden by another one on the same point is not reachable.
		[[ $(field mnt.id <<<"$out") == "$id" ]] || continue
		prop=$(sed -n 's/^mnt.propagation *//p' <<<"$out")
		want_prop=$(tr ' ' '\n' <<<"$optional" | grep -E '^(shared|master):|^unbindable' | xargs)
		got="$(field mnt.parent <<<"$out") $(field fs.dev <<<"$out") $(field mnt.root <<<"$out") $(field mnt.opts <<<"$out") [$prop] $(field fs.type <<<"$out") $(field mnt.source <<<"$out") $(field mnt.point <<<"$out")"
		want="$parent $devno $root $opts [$want_prop] $fstype $source $point"
		check_eq "mount $id $point" "$got" "$want"
		# The superblock's own options come after the generic ones.
		fsopts=$(field fs.opts <<<"$out")
		check "mount $id $point: fs.opts '$fsopts' starts '$sopts'" \
			test "$sopts" = "$fsopts" -o "${sopts#"$fsopts",}" != "$sopts"
		[[ $root == / ]] || binds=$((binds + 1))
		checked=$((checked + 1))
	done </proc/self/mountinfo
	check_ge "mounts checked against mountinfo" "$checked" 10
	check_ge "bind mounts of a subtree among them" "$binds" 1
	out=$(view mount $mt/e)
	check_eq "mount: source and generic superblock options" \
		"$(field mnt.source <<<"$out") $(field fs.opts <<<"$out")" "my-src ro,sync"
}

test_mount_churn() {
	needs test_mountinfo
	echo "== mounts: readers while the mount tree changes (lockdep watches)"
	pinsd=/run/fsiter-kt/bpffs
	mkdir -p $pinsd && mount -t bpf bpf $pinsd
	"$ktool" pin "$views/mount.bpf.o" fsiter_mount $mt/b $pinsd/mnt-b
	"$ktool" pin "$views/mount.bpf.o" fsiter_mount / $pinsd/mnt-root
	# The churn goes on until the readers are done: 20 s and at least 10
	# reads, whichever comes last (a loaded host may need longer), but
	# never more than 120 s.
	end=$((SECONDS + 20)) cap=$((SECONDS + 120))
	( while [[ ! -e $mt/stop ]]; do
		mkdir -p $mt/s1 $mt/s2
		mount -t tmpfs tmpfs $mt/s1 && mount --make-shared $mt/s1
		mount --bind $mt/s1 $mt/s2 && mount --make-slave $mt/s2
		mount --move $mt/s2 $mt/e 2>/dev/null; umount $mt/e 2>/dev/null
		umount -l $mt/s2 2>/dev/null; umount $mt/s1
	done ) &
	churn=$!
	reads=0 bad=0
	while (( (SECONDS < end || reads < 10) && SECONDS < cap )); do
		for p in $pinsd/mnt-b $pinsd/mnt-root; do
			cat $p >/dev/null || bad=$((bad + 1))
			reads=$((reads + 1))
		done
	done
	touch $mt/stop
	wait $churn
	rm -f $mt/stop
	check_eq "reads during mount churn failed" "$bad" 0
	check_ge "reads during mount churn" "$reads" 10
}

test_lifetime() {
	needs test_mount_churn
	echo "== lifetime: pins do not keep a filesystem busy"
	lt=/run/fsiter-kt/lt
	img=/tmp/lt.img
	truncate -s 320M $img && mkfs.xfs -q -f $img && mkdir -p $lt && mount -o loop $img $lt
	echo hello >$lt/file
	"$ktool" pin "$views/cache.bpf.o" fsiter_cache $lt/file $pinsd/lt-cache
	"$ktool" pin "$views/mount.bpf.o" fsiter_mount $lt $pinsd/lt-mount
	check "read pins on the XFS" cat $pinsd/lt-cache $pinsd/lt-mount
	check "umount with pins present" umount $lt
	if cat $pinsd/lt-cache 2>/tmp/err; then fail "read after umount"; else
		check "read after umount: ESTALE" grep -q "Stale file handle" /tmp/err; fi
	check "mount again" mount -o loop $img $lt
	"$ktool" pin "$views/cache.bpf.o" fsiter_cache $lt/file $pinsd/lt-cache2
	cat $lt/file >/dev/null
	check_eq "pin again after remount" "$(cat $pinsd/lt-cache2 | field cache.cached)" 1
	check "remount read-only with a pin" mount -o remount,ro $lt
	check_eq "pin still reads after remount ro" "$(cat $pinsd/lt-cache2 | field cache.cached)" 1
	rm -f $pinsd/lt-cache $pinsd/lt-mount $pinsd/lt-cache2
	umount $lt && rm -f $img
	umount $pinsd
	umount $mt/h $mt/e $mt/c $mt/b $mt/a 2>/dev/null
}

test_unlink_umount_race() {
	echo "== lifetime: the last unlink of a pinned file races umount"
	# 1000 rounds of: mount a tmpfs, attach to a new file, unlink it, a
	# random spin, umount; two more processes attach and destroy links
	# all along. The unlink worker must not hold the dentry past umount
	# (shrink_dcache_for_umount(): "Dentry ... still in use").
	mkdir -p /run/fsiter-kt/race
	check "1000 rounds of unlink against umount" \
		"$ktool" race "$views/cache.bpf.o" fsiter_cache /run/fsiter-kt/race 1000
	check_kernel_log
}

test_unprivileged_pins() {
	needs test_other_targets
	echo "== pins, modes and unprivileged readers"
	bpffs=/run/fsiter-kt-bpffs
	mkdir -p $bpffs && mount -t bpf -o mode=0755 bpf $bpffs
	chmod 0644 $t
	"$ktool" pin "$views/cache.bpf.o" fsiter_cache $t $bpffs/open && chmod 0444 $bpffs/open
	"$ktool" pin "$views/cache.bpf.o" fsiter_cache $t $bpffs/closed && chmod 0400 $bpffs/closed
	as_fsa() { setpriv --reuid=fsa --regid=fsa --init-groups "$@"; }
	check_eq "fsa reads a 0444 pin" "$(as_fsa cat $bpffs/open | cut -d' ' -f1)" "cache.withheld"
	if as_fsa cat $bpffs/closed >/dev/null 2>/tmp/err; then
		fail "fsa read a 0400 pin"
	else
		check "fsa refused a 0400 pin with EACCES" grep -q "Permission denied" /tmp/err
	fi
	check_eq "cat of a pin ends, twice" "$(cat $bpffs/open $bpffs/open | grep -c '^cache.cached ')" 2
}

test_may_observe() {
	needs test_unprivileged_pins
	echo "== who may see page-cache state: bpf_filemap_may_observe (mincore's rule)"
	as_fsb() { setpriv --reuid=fsb --regid=fsb --init-groups "$@"; }
	vis=/run/fsiter-kt-vis
	mkdir -p $vis && chmod 0755 $vis
	for f in owned groupw aclw rootonly; do
		dd if=/dev/zero of=$vis/$f bs=4k count=64 status=none
	done
	chown fsa $vis/owned && chmod 0400 $vis/owned		# fsa owns it
	chgrp fsreaders $vis/groupw && chmod 0664 $vis/groupw	# fsa may write it (group)
	chmod 0644 $vis/aclw && setfacl -m u:fsb:rw $vis/aclw	# fsb may write it (ACL)
	chmod 0644 $vis/rootonly				# nobody but root
	for f in owned groupw aclw rootonly; do
		"$ktool" pin "$views/cache.bpf.o" fsiter_cache $vis/$f $bpffs/vis-$f
		"$ktool" pin "$views/inode.bpf.o" fsiter_inode $vis/$f $bpffs/visi-$f
		"$ktool" pin --expose-cache "$views/cache.bpf.o" fsiter_cache $vis/$f $bpffs/visall-$f
		chmod 0444 $bpffs/vis-$f $bpffs/visi-$f $bpffs/visall-$f
	done
	sees() { [[ $("$@" | field cache.cached) == 64 ]]; }
	withheld() { "$@" | grep -qx "cache.withheld the reader neither owns nor may write this file"; }
	check "owner sees its file" sees as_fsa cat $bpffs/vis-owned
	check "a group member who may write sees it" sees as_fsa cat $bpffs/vis-groupw
	check "a user an ACL lets write sees it" sees as_fsb cat $bpffs/vis-aclw
	check "root sees a file it does not own" sees cat $bpffs/vis-owned
	check "a reader who may not write is refused" withheld as_fsb cat $bpffs/vis-owned
	check "... nor through group write bits of another group" withheld as_fsb cat $bpffs/vis-groupw
	check "... nor when an ACL grants write to someone else" withheld as_fsa cat $bpffs/vis-aclw
	check "... nor on a plain 0644 file" withheld as_fsa cat $bpffs/vis-rootonly
	check "the inode view withholds too" withheld as_fsb cat $bpffs/visi-owned
	check_eq "and shows the inode lines only" \
		"$(as_fsb cat $bpffs/visi-owned | grep -v '^cache\.withheld ' | grep -c -e '^folio' -e '^cache\.' -e '^mapping\.')" 0
	check_eq "with the inode" "$(as_fsb cat $bpffs/visi-owned | field inode.ino)" "$(stat -c %i $vis/owned)"
	check "the inode view lists folios for the owner" bash -c "setpriv --reuid=fsa --regid=fsa --init-groups cat $bpffs/visi-owned | grep -q '^folio 0 '"
	check "expose-cache shows anyone the pin lets in" sees as_fsb cat $bpffs/visall-rootonly
	rm -f $bpffs/vis-* $bpffs/visi-* $bpffs/visall-*
	umount $bpffs
}

test_bpftool_link() {
	echo "== bpftool link show: the fs iterator link info (bpftool of the series)"
	[[ -n $kbpftool ]] || { fail "no bpftool of the patched tree in '${FSITER_VM_KERNEL_DIR:-}'"; return; }
	local bl=/run/fsiter-kt-bt f g mnt_id dev maj_min ino
	mkdir -p $bl/mnt $bl/bpffs && mount -t tmpfs tmpfs $bl/mnt && mount -t bpf bpf $bl/bpffs
	f=$bl/mnt/file g=$bl/mnt/doomed
	echo data >$f && echo data >$g
	"$ktool" pin "$views/cache.bpf.o" fsiter_cache $f $bl/bpffs/plain
	"$ktool" pin --expose-cache "$views/cache.bpf.o" fsiter_cache $f $bl/bpffs/exposed
	"$ktool" pin "$views/cache.bpf.o" fsiter_cache $g $bl/bpffs/doomed
	"$ktool" pin "$views/mount.bpf.o" fsiter_mount $bl/mnt $bl/bpffs/mnt
	mnt_id=$(awk -v p=$bl/mnt '$5 == p { id = $1 } END { print id }' /proc/self/mountinfo)
	dev=$(stat -c %d $f) ino=$(stat -c %i $f)
	# st_dev as new_encode_dev() makes it: the major in bits 8-19.
	maj_min="$(( (dev >> 8) & 0xfff )):$(( (dev & 0xff) | ((dev >> 12) & 0xfff00) ))"
	show() { "$kbpftool" link show pinned "$bl/bpffs/$1"; }
	json() { "$kbpftool" --json link show pinned "$bl/bpffs/$1"; }
	lacks() { ! grep -qwE -- "$1" <<<"$2"; }
	jqe() { jq -e "$@" >/dev/null; }
	# (Here-strings, not < <(...): the guest has no /dev/fd.)

	out=$(show exposed)
	echo "$out"
	check_eq "exposed: target" "$(word target_name <<<"$out")" fs_inode
	check_eq "exposed: mnt_id" "$(word mnt_id <<<"$out")" "$mnt_id"
	check_eq "exposed: dev" "$(word dev <<<"$out")" "$maj_min"
	check_eq "exposed: ino" "$(word ino <<<"$out")" "$ino"
	check "exposed: expose_cache reported" grep -qw expose_cache <<<"$out"
	check "exposed: not gone" lacks gone "$out"
	out=$(show plain)
	echo "$out"
	check_eq "plain: target" "$(word target_name <<<"$out")" fs_inode
	check_eq "plain: ino" "$(word ino <<<"$out")" "$ino"
	check "plain: no expose_cache" lacks expose_cache "$out"
	out=$(show mnt)
	echo "$out"
	check_eq "fs_mnt: target" "$(word target_name <<<"$out")" fs_mnt
	check_eq "fs_mnt: mnt_id" "$(word mnt_id <<<"$out")" "$mnt_id"
	check "fs_mnt: no dev, ino or flags" lacks "dev|ino|expose_cache|flags" "$out"

	json exposed
	check "JSON, exposed" jqe --argjson m "$mnt_id" --argjson d "$dev" --argjson i "$ino" \
		'.target_name == "fs_inode" and .mnt_id == $m and .dev == $d and .ino == $i
		 and .flags == 1 and .expose_cache == true and .gone == false' <<<"$(json exposed)"
	check "JSON, plain" jqe --argjson i "$ino" \
		'.ino == $i and .flags == 0 and .expose_cache == false' <<<"$(json plain)"
	check "JSON, fs_mnt" jqe --argjson m "$mnt_id" \
		'.target_name == "fs_mnt" and .mnt_id == $m and (has("dev") or has("ino") | not)
		 and .expose_cache == false and .gone == false' <<<"$(json mnt)"
	check "JSON of every link parses, with the fs iterators" jqe \
		'[.[] | select(.target_name == "fs_inode" or .target_name == "fs_mnt")] | length >= 4' \
		<<<"$("$kbpftool" --json link show)"

	# fs_sb (where the series has it): the superblock by dev and s_magic.
	local sb=0
	if grep -qa bpf_iter_fs_sb /sys/kernel/btf/vmlinux; then
		sb=1
		"$ktool" pin "$views/cache-summary.bpf.o" fsiter_sb_sum $f $bl/bpffs/sb
		out=$(show sb)
		echo "$out"
		check_eq "fs_sb: target" "$(word target_name <<<"$out")" fs_sb
		check_eq "fs_sb: mnt_id" "$(word mnt_id <<<"$out")" "$mnt_id"
		check_eq "fs_sb: dev" "$(word dev <<<"$out")" "$maj_min"
		check_eq "fs_sb: magic (tmpfs)" "$(word magic <<<"$out")" 0x1021994
		check "fs_sb: no ino" lacks "ino" "$out"
		check "JSON, fs_sb" jqe --argjson m "$mnt_id" --argjson d "$dev" \
			'.target_name == "fs_sb" and .mnt_id == $m and .dev == $d
			 and .magic == 16914836 and (has("ino") | not) and .gone == false' <<<"$(json sb)"
	fi

	# Deleted: the kernel lets go of the file from a work item.
	rm $g
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		show doomed | grep -qw gone && break
		sleep 0.5
	done
	check "deleted file: gone" grep -qw gone <<<"$(show doomed)"
	check "deleted file: gone in JSON" jqe '.gone == true' <<<"$(json doomed)"
	check "the others are not" jqe '.gone == false' <<<"$(json plain)"
	# Torn down: umount succeeds with pins present, every link on it is gone.
	check "umount with pins" umount $bl/mnt
	check "umount: fs_mnt gone" grep -qw gone <<<"$(show mnt)"
	check "umount: fs_inode gone, the flag still reported" \
		jqe '.gone == true and .expose_cache == true' <<<"$(json exposed)"
	[[ $sb == 0 ]] || check "umount: fs_sb gone" grep -qw gone <<<"$(show sb)"
	umount $bl/bpffs
}

run_tests
[[ -z ${mnt:-} ]] || umount $mnt
finish
