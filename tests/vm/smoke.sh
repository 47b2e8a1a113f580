#!/usr/bin/env bash
# Smoke test of the VM harness; runs inside the guest:
#   tests/vm/run-vm.sh --kernel-dir "$(kernel/build.sh | tail -1)" -- tests/vm/smoke.sh
set -euo pipefail

passed=0
failed=0
ok() { echo "ok: $*"; passed=$((passed + 1)); }
not_ok() { echo "FAIL: $*"; failed=$((failed + 1)); }
# check NAME CMD...: run CMD, pass if it succeeds.
check() {
	local name=$1
	shift
	if "$@"; then ok "$name"; else not_ok "$name"; fi
}

if [[ "${FSITER_IN_VM:-}" != 1 ]]; then
	echo "smoke.sh: not in the test VM (run it with tests/vm/run-vm.sh)" >&2
	echo "0 passed, 1 failed"
	exit 1
fi

release=$(uname -r)
if [[ $release == 6.1.* ]]; then ok "uname -r is 6.1 ($release)"; else not_ok "uname -r is 6.1 (got $release)"; fi
check "running as root" test "$(id -u)" = 0
check "/sys/fs/bpf is bpffs" test "$(stat -f -c %T /sys/fs/bpf)" = bpf_fs
bpfmode=$(stat -c %a /sys/fs/bpf)   # bpffs adds the sticky bit: 1700
check "/sys/fs/bpf mode 0700 (got $bpfmode)" test "${bpfmode: -3}" = 700
check "/tmp is writable tmpfs" test "$(stat -f -c %T /tmp)" = tmpfs
check "/etc is writable" bash -c 'touch /etc/.fsiter-smoke && rm /etc/.fsiter-smoke'
check "id fsa" id fsa
check "fsa in fsreaders" bash -c 'id -nG fsa | grep -qw fsreaders'
check "fsb in fsother" bash -c 'id -nG fsb | grep -qw fsother'

uid=$(setpriv --reuid=fsa --regid=fsa --init-groups id -u 2>&1 || true)
check "setpriv to fsa: id -u = 2001 (got $uid)" test "$uid" = 2001
groups=$(setpriv --reuid=fsa --regid=fsa --init-groups id -G 2>&1 || true)
check "setpriv to fsa: groups 2001 2100 (got $groups)" test "$groups" = "2001 2100"

check "hostname" test "$(cat /proc/sys/kernel/hostname)" = fsiter-vm
check "python3 runs" python3 -c 'import os, socket; os.urandom(16); socket.socket(socket.AF_UNIX)'

# XFS on a loop device, with ACLs, flock and fincore.
img=/tmp/smoke-xfs.img
mnt=/tmp/smoke-xfs
mkdir -p "$mnt"
if truncate -s 300M "$img" && mkfs.xfs -q "$img" && mount -o loop "$img" "$mnt"; then
	ok "mkfs.xfs + mount -o loop"
	check "xfs type" test "$(stat -f -c %T "$mnt")" = xfs
	check "write + read on xfs" bash -c "echo hello > $mnt/f && grep -q hello $mnt/f"
	check "setfacl/getfacl on xfs" bash -c \
		"setfacl -m u:fsa:r $mnt/f && getfacl -p $mnt/f | grep -q '^user:fsa:r--'"
	check "fsa reads via ACL" setpriv --reuid=fsa --regid=fsa --init-groups cat "$mnt/f"
	check "flock on xfs" flock -n "$mnt/f" true
	check "fincore on xfs" fincore "$mnt/f"
	check "umount xfs" umount "$mnt"
else
	not_ok "mkfs.xfs + mount -o loop"
fi
rm -f "$img"
check "setfacl/getfacl on tmpfs" bash -c \
	"touch /tmp/acl && setfacl -m g:fsreaders:r /tmp/acl && getfacl -p /tmp/acl | grep -q '^group:fsreaders:r--'"

if [[ -b /dev/vda ]]; then
	check "scratch disk /dev/vda: mkfs.xfs" mkfs.xfs -q -f /dev/vda
fi

check "bpftool prog show" bpftool prog show
check "vmlinux BTF present" test -s /sys/kernel/btf/vmlinux
check "bpftool btf dump vmlinux" bash -c 'bpftool btf dump file /sys/kernel/btf/vmlinux format c | grep -q "struct task_struct {"'
check "bpf JIT enabled" test "$(cat /proc/sys/net/core/bpf_jit_enable)" = 1

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
