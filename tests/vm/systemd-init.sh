#!/bin/bash
# PID 1 of the systemd test guest until systemd takes over
# (tests/vm/systemd-boot.sh: init=/abs/path/tests/vm/systemd-init.sh).
#
# The kernel mounted the host's / over virtio-9p, read-only. This script
# puts a tmpfs overlay on it, so that the guest can write anywhere and the
# host sees none of it, with empty tmpfs on /tmp and /var/tmp; adds the test users and the policy; installs
# fsiter-pin from its .deb with dpkg (as on an image: enabled, not
# started); keeps only the units the test needs enabled; then moves the
# overlay to / and executes systemd there, as switch_root does.
#
# Kernel command line: fsiter.deb=PATH (the package), fsiter.top=PATH (the
# repository, for the in-guest checks).
set -uo pipefail
# One { } block that ends in exit: editing the file cannot break a run.
{

export PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8
say() { echo "fsiter-sd: $*"; }
halt_vm() {
	say "setup failed: $*"
	echo b >/proc/sysrq-trigger
	sleep 5
	exit 1
}

mount -t proc proc /proc || halt_vm "mount /proc"
deb='' top=''
read -r -a cmdline </proc/cmdline
for w in "${cmdline[@]}"; do
	case "$w" in
		fsiter.deb=*) deb=${w#*=} ;;
		fsiter.top=*) top=${w#*=} ;;
	esac
done
[[ -f $deb && -d $top ]] || halt_vm "fsiter.deb='$deb' fsiter.top='$top'"

# --- The root: a tmpfs overlay on the host's /, with the API filesystems.
s=/run/fsiter-sd
r=$s/root
mount -t tmpfs -o mode=0755 tmpfs /run || halt_vm "tmpfs on /run"
mkdir -p $s/upper $s/work $r
mount -t overlay -o lowerdir=/,upperdir=$s/upper,workdir=$s/work overlay $r ||
	halt_vm "overlay on /"
umount /proc
mount -t proc -o nosuid,nodev,noexec proc $r/proc || halt_vm "proc"
mount -t sysfs -o nosuid,nodev,noexec sysfs $r/sys || halt_vm "sysfs"
mount -t devtmpfs -o nosuid,mode=0755 devtmpfs $r/dev || halt_vm "devtmpfs"
mount -t tmpfs -o nosuid,nodev,mode=0755 tmpfs $r/run || halt_vm "tmpfs on /run"
# The guest's own, empty scratch space: what the overlay shows there is the
# host's, and the boot's cleaners (tmpfiles.d's "D /tmp", "R! /var/tmp/...")
# would walk all of it over 9p, and copy up a whiteout for each entry.
for d in tmp var/tmp; do
	mount -t tmpfs -o nosuid,nodev,mode=1777 tmpfs $r/$d || halt_vm "tmpfs on /$d"
done
# The repository and the package may be in the host's /tmp (a clone there,
# as CI may make): show those two through, and nothing else of it.
for d in "$top" "${deb%/*}"; do
	case $d in
		/tmp/?* | /var/tmp/?*)
			mkdir -p "$r$d" && mount --bind "$d" "$r$d" || halt_vm "bind $d" ;;
	esac
done

# --- What the host enabled is not ours to start: only what the test needs.
rm -rf $r/etc/systemd/system/*.wants $r/etc/systemd/system/dbus-org.freedesktop.timesync1.service
mkdir -p $r/etc/systemd/system/multi-user.target.wants
ln -s /etc/systemd/system/fsiter-boot-test.service \
	$r/etc/systemd/system/multi-user.target.wants/fsiter-boot-test.service
sed "s|@TOP@|$top|" "$top/tests/vm/fsiter-boot-test.service" \
	>$r/etc/systemd/system/fsiter-boot-test.service
# No getty on the console: agetty hangs the serial line up, and the
# checks' output to the console would go with it.
ln -sf /dev/null $r/etc/systemd/system/serial-getty@ttyS0.service
echo fsiter-sd >$r/etc/hostname
# A host that is a container has /.dockerenv: systemd would take the guest
# for a Docker container, and its shutdown would then neither unmount nor
# remount anything read-only (systemd-detect-virt -c).
rm -f $r/.dockerenv
printf '127.0.0.1\tlocalhost\n127.0.1.1\tfsiter-sd\n' >$r/etc/hosts

# --- Users: fsa (2001, in fsreaders 2100) and fsb (2002), with homes.
drop='^(fsa|fsb|fsreaders):|^[^:]*:[^:]*:(2001|2002|2100):'
for f in passwd group shadow gshadow; do
	[[ -f $r/etc/$f ]] || continue
	grep -Ev "$drop" "$r/etc/$f" >"$s/$f"
	cat "$s/$f" >"$r/etc/$f"
done
printf '%s\n' "fsa:x:2001:2001::/home/fsa:/bin/bash" "fsb:x:2002:2002::/home/fsb:/bin/bash" >>$r/etc/passwd
printf '%s\n' fsa:x:2001: fsb:x:2002: fsreaders:x:2100:fsa >>$r/etc/group
printf '%s:!:19000:0:99999:7:::\n' fsa fsb >>$r/etc/shadow
printf '%s\n' 'fsa:!::' 'fsb:!::' 'fsreaders:!::fsa' >>$r/etc/gshadow
# (Numbers: the names are the guest's, not this root's.)
mkdir -p $r/home/fsa $r/home/fsb
chmod 0700 $r/home/fsa $r/home/fsb
chown 2001:2001 $r/home/fsa
chown 2002:2002 $r/home/fsb

# --- Disks (systemd-boot.sh made them): one at boot, one hot-added later,
# ten hot-added at once (the storm). A nofail entry is mounted when its
# disk appears during the boot's wait for it (90 s), not after; for the
# disks plugged in later, the device unit wants the mount
# (x-systemd.wanted-by=, as a mount unit's WantedBy=dev-....device would).
printf '%s\n' "LABEL=fsdata /srv/data xfs defaults,nofail 0 0" >$r/etc/fstab
for d in hot $(seq -f 'storm%g' 10); do
	printf 'LABEL=fs%s /srv/%s xfs defaults,nofail,x-systemd.wanted-by=%s 0 0\n' \
		"$d" "$d" 'dev-disk-by\x2dlabel-fs'"$d"'.device' >>$r/etc/fstab
	mkdir -p $r/srv/$d
done
mkdir -p $r/srv/data

# --- After its unmounts and remounts, systemd-shutdown runs this: it says
# on the console how / is mounted and which pins there are
# (systemd-boot.sh checks it).
hook=$r/usr/lib/systemd/system-shutdown/fsiter-sd-hook
mkdir -p "${hook%/*}"
cat >"$hook" <<'EOF'
#!/bin/sh
{
	awk '$2 == "/" { o = $4 } END { split(o, a, ","); print "fsiter-sd-hook: / " a[1] }' /proc/self/mounts
	for p in /sys/fs/bpf/fsiter/*; do echo "fsiter-sd-hook: pin ${p##*/}"; done
} >/dev/console 2>&1
EOF
chmod 0755 "$hook"

# --- fsiter-pin, from its package, and the policy.
chroot $r dpkg -i --no-triggers "$deb" || halt_vm "dpkg -i $deb"
mkdir -p $r/etc/fsiter-boot
echo granted >$r/etc/fsiter-boot/granted
echo secret >$r/etc/fsiter-boot/secret
cp "$top/tests/vm/systemd-policy.conf" $r/etc/fsiter/policy.conf
chmod 0644 $r/etc/fsiter/policy.conf

# --- systemd, on the overlay as /.
cd $r || halt_vm "cd $r"
mount --move . / || halt_vm "move the root"
# shellcheck disable=SC2093  # the line after runs only if exec fails
exec chroot . /lib/systemd/systemd --log-target=console
# shellcheck disable=SC2317  # reached only if exec fails
halt_vm "exec systemd"

}
