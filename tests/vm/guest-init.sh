#!/bin/bash
# PID 1 of the fsiter-pin test VM, started by tests/vm/run-vm.sh through the
# kernel command line (init=/abs/path/tests/vm/guest-init.sh).
#
# The root filesystem is the host's / over virtio-9p, read-only. This script
# mounts the pseudo filesystems and tmpfs scratch space, makes /etc writable
# (tmpfs overlay), adds the test users, mounts the read-write results share,
# runs $results/cmd.sh (written by run-vm.sh), stores its exit status and the
# kernel log in the results share, and reboots (QEMU runs with -no-reboot, so
# a reboot ends QEMU).
#
# Kernel command line parameters read here (from /proc/cmdline):
#   fsiter.results=PATH   where to mount the results share
#   fsiter.tag=TAG        9p mount tag of the results share
#
# Every exec costs ~0.05-0.3 s under TCG: this script prefers bash builtins.
# No `set -e`: whatever fails, the VM must still report and shut down.
set -uo pipefail
# The script is one { } block that ends in exit: bash parses it whole before
# running it, so editing the file while it runs cannot break that run.
{

export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8
umask 022

say() { echo "fsiter-vm: $*"; }

# Reboot = QEMU exit (-no-reboot). sysrq needs no userspace and no ACPI.
halt_vm() {
	sync
	echo b >/proc/sysrq-trigger 2>/dev/null
	# Still here (no /proc?): exiting PID 1 panics, and panic=-1 reboots.
	sleep 5
	exit 1
}

must() {
	"$@" && return 0
	say "setup failed: $*"
	halt_vm
}

# --- Kernel command line.
mount -t proc -o nosuid,nodev,noexec proc /proc || halt_vm
results=/run/fsiter/results
tag=fsiter-results
read -r -a cmdline </proc/cmdline
for w in "${cmdline[@]}"; do
	case "$w" in
		fsiter.results=*) results=${w#*=} ;;
		fsiter.tag=*) tag=${w#*=} ;;
	esac
done

# --- Filesystems, in one `mount -a` (devtmpfs is already on /dev).
must mount -t tmpfs -o nosuid,nodev,mode=0755 tmpfs /run
fstab=/run/fsiter/fstab
must mkdir -p /run/fsiter /run/lock
cat_fstab() {
	# A view of the host root that the tmpfs mounts below don't hide.
	echo "/ /run/fsiter/hostroot none bind,X-mount.mkdir 0 0"
	echo "sysfs /sys sysfs nosuid,nodev,noexec 0 0"
	echo "devpts /dev/pts devpts nosuid,noexec,gid=5,mode=0620,ptmxmode=0666,X-mount.mkdir 0 0"
	echo "tmpfs /dev/shm tmpfs nosuid,nodev,mode=1777,X-mount.mkdir 0 0"
	echo "tmpfs /tmp tmpfs nosuid,nodev,mode=1777 0 0"
	echo "tmpfs /var/tmp tmpfs nosuid,nodev,mode=1777 0 0"
	echo "tmpfs /root tmpfs nosuid,nodev,mode=0700 0 0"
	# bpffs as systemd mounts it (0700); debugfs and tracefs for BPF/tracing.
	echo "bpf /sys/fs/bpf bpf nosuid,nodev,noexec,mode=0700 0 0"
	echo "debugfs /sys/kernel/debug debugfs nosuid,nodev,noexec 0 0"
	echo "tracefs /sys/kernel/tracing tracefs nosuid,nodev,noexec 0 0"
	# The read-write results share.
	echo "$tag $results 9p trans=virtio,version=9p2000.L,msize=262144,X-mount.mkdir 0 0"
}
cat_fstab >"$fstab"
must mount -a -T "$fstab"

# --- Writable /etc: tmpfs overlay on the read-only one (a copy if no
# overlayfs: slow, ~10 s under TCG).
mkdir -p /run/fsiter/etc-upper /run/fsiter/etc-work
if ! mount -t overlay -o lowerdir=/etc,upperdir=/run/fsiter/etc-upper,workdir=/run/fsiter/etc-work \
	overlay /etc; then
	say "no overlayfs: copying /etc"
	must cp -a /etc/. /run/fsiter/etc-upper/
	must mount --bind /run/fsiter/etc-upper /etc
fi

# --- Test users and groups (ids are fixed: tests rely on them).
#   fsa 2001 (groups fsa 2001, fsreaders 2100)
#   fsb 2002 (groups fsb 2002, fsother 2101)
drop='^(fsa|fsb|fsreaders|fsother):|^[^:]*:[^:]*:(2001|2002|2100|2101):'
for f in passwd group shadow gshadow; do
	[[ -f /etc/$f ]] || continue
	mapfile -t lines <"/etc/$f"
	for l in "${lines[@]}"; do
		[[ $l =~ $drop ]] || printf '%s\n' "$l"
	done >"/etc/$f"
done
printf '%s\n' \
	"fsa:x:2001:2001:fsiter test user A:/tmp/home/fsa:/bin/bash" \
	"fsb:x:2002:2002:fsiter test user B:/tmp/home/fsb:/bin/bash" >>/etc/passwd
printf '%s\n' fsa:x:2001: fsb:x:2002: fsreaders:x:2100:fsa fsother:x:2101:fsb >>/etc/group
[[ -f /etc/shadow ]] && printf '%s:!:19000:0:99999:7:::\n' fsa fsb >>/etc/shadow
[[ -f /etc/gshadow ]] && printf '%s\n' 'fsa:!::' 'fsb:!::' 'fsreaders:!::fsa' 'fsother:!::fsb' >>/etc/gshadow
# shellcheck disable=SC2174  # -m 0700 for the homes only is what we want
mkdir -p -m 0700 /tmp/home/fsa /tmp/home/fsb
chown 2001:2001 /tmp/home/fsa
chown 2002:2002 /tmp/home/fsb

# --- Host name, loopback.
echo fsiter-vm >/proc/sys/kernel/hostname
echo fsiter-vm >/etc/hostname
printf '127.0.0.1\tlocalhost\n127.0.1.1\tfsiter-vm\n::1\tlocalhost\n' >/etc/hosts
if [[ -x /usr/sbin/ip || -x /sbin/ip || -x /usr/bin/ip ]]; then
	ip link set lo up || say "warning: could not bring up lo"
fi

# --- The command's cwd, if a tmpfs above hides it: bind the host's copy.
cwd=/
[[ -f "$results/cwd" ]] && cwd=$(<"$results/cwd")
for top in /tmp /var/tmp /root /run; do
	case "$cwd" in
		"$top"/?*)
			if [[ -d "/run/fsiter/hostroot$cwd" ]]; then
				if ! { mkdir -p "$cwd" && mount --bind "/run/fsiter/hostroot$cwd" "$cwd"; }; then
					say "warning: could not expose $cwd"
				fi
			fi
			;;
	esac
done

# --- Run the command.
read -r uptime _ </proc/uptime
cmdtext=
[[ -f "$results/cmdline.txt" ]] && cmdtext=$(<"$results/cmdline.txt")
echo "======== fsiter-vm: booted in ${uptime}s; running: $cmdtext"
bash "$results/cmd.sh" </dev/null
status=$?
read -r uptime _ </proc/uptime
echo "======== fsiter-vm: command exited with status $status (at ${uptime}s)"

# --- Collect. kmemleak (debug kernels): scan now rather than wait for the
# 10-minute auto scan; the second scan confirms what the first one found.
# After a suite that leaves hundreds of thousands of inodes cached, one
# scan takes minutes under KASAN and TCG, and kmemleak's own thread waits
# for it on scan_mutex: the hung-task detector, which watched the whole
# suite, is off for these scans, so that it does not report that wait.
if [[ -w /sys/kernel/debug/kmemleak ]]; then
	echo 0 >/proc/sys/kernel/hung_task_timeout_secs 2>/dev/null
	echo scan >/sys/kernel/debug/kmemleak
	sleep 5
	echo scan >/sys/kernel/debug/kmemleak
	cp /sys/kernel/debug/kmemleak "$results/kmemleak.txt" 2>/dev/null
fi
dmesg >"$results/dmesg" 2>&1
echo "$status" >"$results/status.tmp" && mv "$results/status.tmp" "$results/status"
sync
umount "$results" 2>/dev/null
halt_vm
# shellcheck disable=SC2317  # reached only if the line above returns
exit
}
