#!/bin/bash
# Boot and hotplug integration, run as root inside the test VM. The VM has
# no systemd and no udevd, so this runs what they would, from the shipped
# files themselves: the ExecStart= lines of udev/fsiter-pin.service (at
# "boot") and udev/fsiter-pin-refresh.service (when the rule fires), and
# `udevadm test` to show that udev/70-fsiter-pin.rules fires for a loop
# device with XFS on it, on add and on remove.
# Usage: integration-tests.sh BUILD_DIR [TEST...]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/vm/lib.sh
. "$here/lib.sh"

suite_init "$@"
top=$(cd "$here/../.." && pwd)
t=/run/hp
mkdir -p $t/usb /etc/fsiter

# exec_start UNIT: the unit's command, with our build's fsiter-pin
exec_start() {
	local cmd
	cmd=$(sed -n 's/^ExecStart=//p' "$top/udev/$1")
	echo "${cmd//\/usr\/sbin\/fsiter-pin/$tool}"
}
# wait_for TEST...: up to 60 s under TCG
wait_for() {
	for _ in $(seq 1 120); do "$@" && return 0; sleep 0.5; done
	return 1
}

cat >/etc/fsiter/policy.conf <<'P'
set grant-traverse others
cache  hostname   /etc/hostname     0444
cache  usb-data   /run/hp/usb/data  0444 root fsreaders - nofail
inode  usb-inode  /run/hp/usb/data  0400 root root g:fsreaders:r nofail
P

test_boot() {
	echo "== boot: fsiter-pin.service"
	boot=$(exec_start fsiter-pin.service)
	check_eq "its command" "${boot#"$tool" }" "apply /etc/fsiter/policy.conf"
	out=$($boot 2>&1); rc=$?; echo "$out"
	check_eq "applies at boot" "$rc" 0
	check "pins what is there" test -e $pins/hostname
	check "skips the disk that is not there yet" test ! -e $pins/usb-data
	check_eq "fsa reads a pin (not its file: withheld)" "$(as fsa cat $pins/hostname | cut -d" " -f1)" "cache.withheld"
}

test_hotplug() {
	needs test_boot
	echo "== a disk that appears later: a loop device with XFS"
	truncate -s 320M $t/usb.img && mkfs.xfs -q $t/usb.img
	mount -o loop $t/usb.img $t/usb && echo hello >$t/usb/data && chown fsa $t/usb/data
	umount $t/usb
	dev=$(losetup -f --show $t/usb.img)
	name=${dev#/dev/}
	mkdir -p /run/udev/rules.d && cp "$top/udev/70-fsiter-pin.rules" /run/udev/rules.d/
	out=$(udevadm test --action=add /sys/class/block/$name 2>&1)
	check "udev: the device has a filesystem" grep -q "^ID_FS_USAGE=filesystem" <<<"$out"
	check "udev: the rule starts the refresh service on add" \
		grep -q "run: '/bin/systemctl --no-block start fsiter-pin-refresh.service'" <<<"$out"

	refresh=$(exec_start fsiter-pin-refresh.service)
	check_eq "the refresh service's command" "${refresh#"$tool" }" "watch --timeout 60 /etc/fsiter/policy.conf"
	# As systemd would start it for the rule; a shorter quiet time for the test.
	${refresh/--timeout 60/--timeout 8} >$t/watch.log 2>&1 &
	watcher=$!
	sleep 2
	mount $dev $t/usb
	check "mounted: its pins appear" wait_for test -e $pins/usb-inode
	check "the owner reads its page cache" \
		bash -c "setpriv --reuid=fsa --regid=fsa --init-groups cat $pins/usb-data | grep -q '^cache.cached [0-9]'"
	check_eq "the inode view shows XFS" "$(as fsa cat $pins/usb-inode | field fs.type)" xfs
	check "fsb is refused" bash -c "! setpriv --reuid=fsb --regid=fsb --init-groups cat $pins/usb-inode 2>/dev/null"
	check "boot's pins stay" test -e $pins/hostname

	umount $t/usb
	check "unmounted: its pins go" wait_for test ! -e $pins/usb-data
	check "both" test ! -e $pins/usb-inode
	out=$(udevadm test --action=remove /sys/class/block/$name 2>&1)
	check "udev: the rule fires on remove too" \
		grep -q "run: '/bin/systemctl --no-block start fsiter-pin-refresh.service'" <<<"$out"
	losetup -d $dev
	wait $watcher; rc=$?
	cat $t/watch.log
	check_eq "the watcher stops once quiet, with success" "$rc" 0
	check "it applied on each change" bash -c "[[ \$(grep -c 'the mount table changed' $t/watch.log) -ge 2 ]]"
}

run_tests
"$tool" remove --all >/dev/null
finish
