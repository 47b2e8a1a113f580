#!/bin/bash
# Guest side of scripts/demo.sh: runs as root in the test VM. Applies
# policy/example.conf with fsiter-pin, then reads the pins as the
# unprivileged users fsa (group fsreaders) and fsb.
set -euo pipefail
build=${1:?usage: demo-guest.sh BUILD_DIR}
top=$(cd "$(dirname "$0")/../.." && pwd)
tool=$build/src/fsiter-pin
policy=$top/policy/example.conf
pins=/sys/fs/bpf/fsiter

say() { printf '\n\033[1m%s\033[0m\n' "$*"; }
as() { local u=$1; shift; echo "$u\$ $*"; setpriv --reuid="$u" --regid="$u" --init-groups "$@" || true; }

say "# A file on XFS, half of it read back into the page cache"
mkfs.xfs -q -f /dev/vda && mkdir -p /run/demo/data && mount /dev/vda /run/demo/data
dd if=/dev/urandom of=/run/demo/data/report.db bs=1M count=16 status=none
sync && echo 3 >/proc/sys/vm/drop_caches
dd if=/run/demo/data/report.db of=/dev/null bs=1M count=8 status=none
chown fsa:fsa /run/demo/data/report.db

say "# root applies $(realpath --relative-to="$top" "$policy")"
grep -v '^#' "$policy" | grep .
echo "# fsiter-pin apply $policy"
"$tool" apply "$policy"
echo "# fsiter-pin list"
"$tool" list
ls -ld /sys/fs/bpf; getfacl -p /sys/fs/bpf 2>/dev/null | grep -v '^#'

say "# fsa (group fsreaders) reads the cache and inode views, and the mount"
as fsa id
as fsa cat $pins/report-cache
as fsa cat $pins/report-inode | head -n 24
echo "..."
as fsa cat $pins/data-mnt

say "# fsb may read the mount view only; nobody but root reads the raw view"
as fsb cat $pins/data-mnt | head -n 3
as fsb cat $pins/report-cache
as fsa cat $pins/report-raw
echo "root# cat $pins/report-raw | head -n 4"
cat $pins/report-raw | head -n 4

say "# What each user may read, and a view as JSON (fsiter-pin show: no privilege)"
as fsb "$tool" show
as fsa "$tool" show
as fsa "$tool" show --json report-cache

say "# root audits the pins against the policy"
echo "# fsiter-pin audit $policy"
"$tool" audit "$policy" || true

say "# Applying the same policy again changes nothing"
"$tool" apply "$policy"
"$tool" remove --all >/dev/null
umount /run/demo/data 2>/dev/null || true
