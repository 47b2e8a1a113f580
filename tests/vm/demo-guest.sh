#!/bin/bash
# Guest side of scripts/demo.sh: runs as root in the test VM.
set -euo pipefail
build=${1:?usage: demo-guest.sh BUILD_DIR}
ktool=$build/tests/kernel/fsiter-ktool
views=$build/bpf
pins=/sys/fs/bpf/fsiter

say() { printf '\n\033[1m%s\033[0m\n' "$*"; }

say "# A file on XFS, half of it read back into the page cache"
mkfs.xfs -q -f /dev/vda && mkdir -p /run/demo/data && mount /dev/vda /run/demo/data
dd if=/dev/urandom of=/run/demo/data/report.db bs=1M count=16 status=none
sync && echo 3 >/proc/sys/vm/drop_caches
dd if=/run/demo/data/report.db of=/dev/null bs=1M count=8 status=none
chown fsa:fsa /run/demo/data/report.db

say "# root pins three views under $pins"
mkdir -p $pins
"$ktool" pin "$views/cache.bpf.o" fsiter_cache /run/demo/data/report.db $pins/report-cache
"$ktool" pin "$views/inode.bpf.o" fsiter_inode /run/demo/data/report.db $pins/report-inode
"$ktool" pin "$views/inode-raw.bpf.o" fsiter_inode_raw /run/demo/data/report.db $pins/report-raw
# /sys/fs/bpf stays 0700: an ACL lets the group fsreaders through, and
# another grants it the two views (bpffs ACLs: kernel patch 0011).
setfacl -m g:fsreaders:x /sys/fs/bpf
setfacl -m g:fsreaders:r $pins/report-cache $pins/report-inode
ls -ld /sys/fs/bpf; ls -l $pins
getfacl -p $pins/report-cache

say "# fsa (in group fsreaders) reads the pins"
setpriv --reuid=fsa --regid=fsa --init-groups id
setpriv --reuid=fsa --regid=fsa --init-groups cat $pins/report-cache
setpriv --reuid=fsa --regid=fsa --init-groups cat $pins/report-inode | head -n 30
echo "..."

say "# fsb (not in fsreaders) is refused, and so is fsa for the raw view"
setpriv --reuid=fsb --regid=fsb --init-groups cat $pins/report-cache || true
setpriv --reuid=fsa --regid=fsa --init-groups cat $pins/report-raw || true
umount /run/demo/data 2>/dev/null || true
