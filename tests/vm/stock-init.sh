#!/bin/sh
# /init of the stock kernel's initramfs, which scripts/stock-kernel.sh
# builds: busybox (static, applets in /bin), the modules Debian's config
# builds as modules and the guest needs (in /lib/modules, decompressed,
# loaded in the order of /lib/modules/load.list), and this script.
#
# It loads the modules, mounts the root that tests/vm/run-vm.sh's kernel
# command line names (root=, rootfstype=, rootflags=, ro: the host's / over
# virtio-9p), moves devtmpfs into it and switch_root's to init= (our
# tests/vm/guest-init.sh): from there on the guest runs as on our kernels.
#
# On any error it says what failed and reboots, which ends QEMU
# (-no-reboot): run-vm.sh then reports that the guest gave no status.
# shellcheck shell=sh
PATH=/bin
export PATH

say() { echo "stock-init: $*"; }
halt() {
	say "error: $*"
	echo b >/proc/sysrq-trigger
	sleep 5
	exit 1
}

mount -t devtmpfs -o nosuid,mode=0755 devtmpfs /dev || halt "cannot mount devtmpfs"
mount -t proc -o nosuid,nodev,noexec proc /proc || halt "cannot mount /proc"

while read -r mod; do
	[ -n "$mod" ] || continue
	insmod "/lib/modules/$mod" || halt "insmod $mod failed"
done </lib/modules/load.list

root='' fstype='' flags='' mode=ro init=/sbin/init
set -f
# shellcheck disable=SC2013  # words, not lines
for w in $(cat /proc/cmdline); do
	case "$w" in
		root=*) root=${w#root=} ;;
		rootfstype=*) fstype=${w#rootfstype=} ;;
		rootflags=*) flags=${w#rootflags=} ;;
		init=*) init=${w#init=} ;;
		ro | rw) mode=$w ;;
	esac
done
set +f
[ -n "$root" ] && [ -n "$fstype" ] || halt "no root= and rootfstype= on the kernel command line"

mkdir -p /newroot
mount -t "$fstype" -o "$mode${flags:+,$flags}" "$root" /newroot ||
	halt "cannot mount $root ($fstype, $mode${flags:+,$flags})"
[ -x "/newroot$init" ] || halt "no $init in the root filesystem"
mount -o move /dev /newroot/dev || halt "cannot move /dev into the root"
umount /proc
exec switch_root /newroot "$init"
