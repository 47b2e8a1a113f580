#!/usr/bin/env bash
# Boot the test kernel with systemd as PID 1 on the host's Debian userland
# (its / over virtio-9p under a tmpfs overlay), with fsiter-pin installed
# from its .deb, and check what a real machine does: the boot, a login
# session, a disk hot-added and hot-removed through QEMU's monitor, a storm
# of ten, a reload, the metrics timer, and the shutdown (systemd-guest.sh
# runs the checks in the guest; this script does the monitor's part and
# checks the shutdown on the console).
#
#   tests/vm/systemd-boot.sh --kernel-dir DIR --deb FILE [--timeout SEC] [--keep]
#                            [--tests test_a,test_b]
#
# DIR is kernel/build.sh's output; its config must have what systemd needs
# (kernel/config/fsiter.config). FILE is fsiter-pin_*.deb, built against
# DIR (tests/deb/run.sh with FSITER_DEB_DIR). The last line is "N passed,
# N failed", the guest's checks and this script's together. --tests runs
# only those of systemd-guest.sh (and what they need), then the shutdown;
# --keep keeps the disks, the console log and the guest's journal.
set -euo pipefail
# One { } block that ends in exit: editing the file cannot break a run.
{

prog=systemd-boot.sh
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
log() { printf '%s: %s\n' "$prog" "$*" >&2; }
die() { log "error: $*"; exit 2; }

kernel_dir='' deb='' timeout=1200 keep=0 tests=''
while [[ $# -gt 0 ]]; do
	case "$1" in
		--kernel-dir) kernel_dir=${2:?}; shift 2 ;;
		--deb) deb=${2:?}; shift 2 ;;
		--timeout) timeout=${2:?}; shift 2 ;;
		--keep) keep=1; shift ;;
		--tests) tests=${2:?}; shift 2 ;;
		*) die "unknown argument '$1' (see the header of $0)" ;;
	esac
done
kernel_dir=$(realpath -e "${kernel_dir:?--kernel-dir is required}")
deb=$(realpath -e "${deb:?--deb is required}")
[[ -f $kernel_dir/bzImage ]] || die "no bzImage in $kernel_dir"
grep -q '^CONFIG_CGROUPS=y' "$kernel_dir/config" ||
	die "$kernel_dir was built without CONFIG_CGROUPS: systemd cannot run on it"
grep -q '^CONFIG_HOTPLUG_PCI_PCIE=y' "$kernel_dir/config" ||
	die "$kernel_dir was built without CONFIG_HOTPLUG_PCI_PCIE: no disk can be hot-added"
"$repo/scripts/deps.sh" --vm

tmp=$(mktemp -d "${TMPDIR:-/tmp}/fsiter-sd.XXXXXX")
results=$tmp/results
mkdir -m 0755 "$results"
qpid='' clutter=''
# shellcheck disable=SC2317  # invoked by the EXIT trap
cleanup() {
	[[ -z $qpid ]] || kill "$qpid" 2>/dev/null || true
	[[ -z $clutter ]] || rm -rf "$clutter"
	if ((keep)); then log "kept $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT

# --- XFS disks with a file each (mkfs.xfs -p: no mount needed here): one
# at boot, one hot-added, and the storm's ten (sparse: 320M is XFS's
# minimum, few blocks are written).
storm=10
printf 'a file on a disk\n' >"$tmp/file"
printf '/dev/null\n0 0\nd--755 0 0\nfile ---644 2001 2001 %s\n$\n' "$tmp/file" >"$tmp/proto"
for d in fsdata fshot $(seq -f 'fsstorm%g' "$storm"); do
	truncate -s 320M "$tmp/$d.img"
	mkfs.xfs -q -L "$d" -p "$tmp/proto" "$tmp/$d.img"
done

# --- A cluttered host /tmp: the guest must not see it (systemd-guest.sh's
# test_scratch). 50,000 entries: over 9p, the boot's "D /tmp" took minutes
# for them.
clutter=$(mktemp -d /tmp/fsiter-sd-clutter.XXXXXX)
(cd "$clutter" && seq -f 'f%g' 50000 | xargs touch)

# --- The monitor: HMP commands, one connection, each answered (its
# prompt) before the next. Prints what QEMU answered.
mon() {
	python3 - "$tmp/mon.sock" "$@" <<-'PY'
		import socket, sys
		s = socket.socket(socket.AF_UNIX)
		s.connect(sys.argv[1])
		s.settimeout(30)
		def answer():
		    buf = b""
		    while not buf.endswith(b"(qemu) "):
		        chunk = s.recv(65536)
		        if not chunk:
		            break
		        buf += chunk
		    return buf.decode(errors="replace")
		answer()
		for cmd in sys.argv[2:]:
		    s.sendall((cmd + "\n").encode())
		    out = answer().replace("(qemu) ", "")
		    # (Less the monitor's echo of the command, its line editing.)
		    lines = [l.strip() for l in out.splitlines()
		             if l.strip() and "\x1b" not in l and l.strip() != cmd]
		    print("monitor: %s%s" % (cmd, "".join("\n  " + l for l in lines)))
	PY
}
# The guest's requests (systemd-guest.sh's ask), until QEMU exits. A
# request's done-file holds how long its devices took to come or go
# through the monitor, in ms.
serve() {
	local req t0 i drives=() devs=()
	while kill -0 "$1" 2>/dev/null; do
		if [[ -f $results/request ]]; then
			req=$(<"$results/request")
			rm -f "$results/request"
			log "the guest asks: $req"
			drives=() devs=()
			case $req in
				hot-add)
					drives=("drive_add 0 if=none,id=hot,format=raw,cache=unsafe,file=$tmp/fshot.img")
					devs=("device_add virtio-blk-pci,drive=hot,id=hotdisk,bus=hp1") ;;
				hot-remove) devs=("device_del hotdisk") ;;
				# The storm: the ten disks' backends first (the guest sees
				# nothing of them), then the ten devices, back to back.
				storm-add)
					for ((i = 1; i <= storm; i++)); do
						drives+=("drive_add 0 if=none,id=st$i,format=raw,cache=unsafe,file=$tmp/fsstorm$i.img")
						devs+=("device_add virtio-blk-pci,drive=st$i,id=stdisk$i,bus=sp$i")
					done ;;
				storm-remove)
					for ((i = 1; i <= storm; i++)); do devs+=("device_del stdisk$i"); done ;;
				*) log "unknown request '$req'" ;;
			esac
			((${#drives[@]} == 0)) || mon "${drives[@]}" >&2
			t0=$(date +%s%N)
			((${#devs[@]} == 0)) || mon "${devs[@]}" >&2
			echo $((($(date +%s%N) - t0) / 1000000)) >"$results/done-$req"
		fi
		sleep 1
	done
}

# no_timer_check: as in run-vm.sh, a loaded host must not panic the boot.
# shellcheck disable=SC2054  # commas are QEMU's and the kernel's syntax
append=(
	console=ttyS0 8250.nr_uarts=1 loglevel=5 norandmaps panic=-1 no_timer_check
	root=root rootfstype=9p ro rootflags=trans=virtio,version=9p2000.L,msize=262144,cache=loose
	init="$here/systemd-init.sh" fsiter.deb="$deb" fsiter.top="$repo"
	fsiter.clutter="$clutter"
	systemd.journald.forward_to_console=1 systemd.journald.max_level_console=warning
)
[[ -z $tests ]] || append+=("fsiter.tests=$tests")
# shellcheck disable=SC2054
qemu=(
	qemu-system-x86_64 -machine q35 -accel tcg,thread=multi -cpu max -m 2048 -smp 2
	-nodefaults -nographic -no-reboot -serial stdio
	-kernel "$kernel_dir/bzImage" -append "${append[*]}"
	-virtfs local,path=/,mount_tag=root,security_model=none,readonly=on,multidevs=remap
	-virtfs "local,path=$results,mount_tag=fsiter-results,security_model=none,multidevs=remap"
	-device virtio-rng-pci
	-drive "file=$tmp/fsdata.img,if=none,id=data,format=raw,cache=unsafe"
	-device virtio-blk-pci,drive=data
	-monitor "unix:$tmp/mon.sock,server=on,wait=off"
	# Empty PCIe root ports for the hot-added disks: hp1, and sp1... for
	# the storm. QEMU's q35 would have the firmware's ACPI do their
	# hotplug; off, it is the ports' own (PCIe native hotplug: the guest's
	# pciehp, whose removal waits 5 s for the attention button). No I/O
	# window: a virtio disk on PCIe has none to map.
	-global ICH9-LPC.acpi-pci-hotplug-with-bridge-support=off
	-device pcie-root-port,id=hp1,chassis=1,slot=1,io-reserve=0
)
for ((i = 1; i <= storm; i++)); do
	qemu+=(-device "pcie-root-port,id=sp$i,chassis=$((i + 1)),slot=$((i + 1)),io-reserve=0")
done
log "booting $kernel_dir/bzImage with systemd (TCG, timeout ${timeout}s)"
start=$SECONDS
timeout --kill-after=10 "$timeout" nice -n 10 "${qemu[@]}" </dev/null 2>&1 |
	sed -u 's/\r$//; s/\x1b\[[0-9;?]*[A-Za-z]//g' | tee "$tmp/console.log" &
qpid=$!
sleep 2
serve "$qpid" &
wait "$qpid" || true
qpid=
log "the VM ran $((SECONDS - start)) s"

# --- The guest's checks, then the shutdown's, from the console.
passed=0 failed=0
if [[ -f $results/status ]]; then
	grep -E '^(ok|FAIL): ' "$results/guest.log" || true
	passed=$(grep -c '^ok: ' "$results/guest.log" || true)
	failed=$(grep -c '^FAIL: ' "$results/guest.log" || true)
else
	log "the guest reported no status"
	failed=1
fi
# lacks ERE TEXT: no line of TEXT matches.
lacks() { ! grep -qE -- "$1" <<<"$2"; }
host_check() {
	if "${@:2}"; then passed=$((passed + 1)); echo "ok: $1"; else failed=$((failed + 1)); echo "FAIL: $1"; fi
}
# The shutdown: the guest set the console's log level to 7 and systemd's
# log target to kmsg just before `systemctl reboot`, so systemd-shutdown's
# info messages are on the console; its hook (systemd-init.sh) then said
# how / was mounted and which pins there were, once all was unmounted.
shutdown_log=$(sed -n '/fsiter-sd: rebooting/,$p' "$tmp/console.log")
hook=$(grep -a 'fsiter-sd-hook:' <<<"$shutdown_log" || true)
if [[ -z $shutdown_log ]]; then
	host_check "the guest got to its reboot" false
else
	host_check "the guest rebooted" grep -q 'reboot: Restarting system' <<<"$shutdown_log"
	host_check "systemd-shutdown remounted / read-only" \
		grep -q "Remounting '/' read-only" <<<"$shutdown_log"
	host_check "/ was read-only at the end of the shutdown" \
		grep -qx "fsiter-sd-hook: / ro" <<<"$hook"
	# (doomed-*: on files deleted before the reboot, on / and on the data
	# disk, which the shutdown unmounted.)
	for p in granted doomed-root doomed-data; do
		host_check "pin $p was still there" grep -qx "fsiter-sd-hook: pin $p" <<<"$hook"
	done
	host_check "no EBUSY, nothing left mounted" \
		lacks "busy|Failed to (remount|unmount)|Could not (unmount|remount)|Not all file systems" "$shutdown_log"
	host_check "no error from fsiter-pin during the shutdown" \
		lacks "fsiter-pin.*(error|failed|Failed)" "$shutdown_log"
fi
if ((keep)); then
	cp "$tmp/console.log" "$results/"
fi
echo "$passed passed, $failed failed"
((failed == 0))
exit
}
