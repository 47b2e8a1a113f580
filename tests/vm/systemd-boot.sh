#!/usr/bin/env bash
# Boot the test kernel with systemd as PID 1 on the host's Debian userland
# (its / over virtio-9p under a tmpfs overlay), with fsiter-pin installed
# from its .deb, and check what a real machine does: the boot, a login
# session, a disk hot-added and hot-removed through QEMU's monitor, a
# reload, the metrics timer, and the shutdown (tests/vm/systemd-guest.sh
# runs the checks in the guest; this script does the monitor's part and
# checks the shutdown on the console).
#
#   tests/vm/systemd-boot.sh --kernel-dir DIR --deb FILE [--timeout SEC] [--keep]
#
# DIR is kernel/build.sh's output; its config must have what systemd needs
# (kernel/config/fsiter.config). FILE is fsiter-pin_*.deb, built against
# DIR (tests/deb/run.sh with FSITER_DEB_DIR). The last line is "N passed,
# N failed", the guest's checks and this script's together.
set -euo pipefail
# One { } block that ends in exit: editing the file cannot break a run.
{

prog=systemd-boot.sh
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
log() { printf '%s: %s\n' "$prog" "$*" >&2; }
die() { log "error: $*"; exit 2; }

kernel_dir='' deb='' timeout=1200 keep=0
while [[ $# -gt 0 ]]; do
	case "$1" in
		--kernel-dir) kernel_dir=${2:?}; shift 2 ;;
		--deb) deb=${2:?}; shift 2 ;;
		--timeout) timeout=${2:?}; shift 2 ;;
		--keep) keep=1; shift ;;
		*) die "unknown argument '$1' (see the header of $0)" ;;
	esac
done
kernel_dir=$(realpath -e "${kernel_dir:?--kernel-dir is required}")
deb=$(realpath -e "${deb:?--deb is required}")
[[ -f $kernel_dir/bzImage ]] || die "no bzImage in $kernel_dir"
grep -q '^CONFIG_CGROUPS=y' "$kernel_dir/config" ||
	die "$kernel_dir was built without CONFIG_CGROUPS: systemd cannot run on it"
"$repo/scripts/deps.sh" --vm

tmp=$(mktemp -d "${TMPDIR:-/tmp}/fsiter-sd.XXXXXX")
results=$tmp/results
mkdir -m 0755 "$results"
qpid=
# shellcheck disable=SC2317  # invoked by the EXIT trap
cleanup() {
	[[ -z $qpid ]] || kill "$qpid" 2>/dev/null || true
	if ((keep)); then log "kept $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT

# --- Two XFS disks with a file each (mkfs.xfs -p: no mount needed here).
printf 'a file on a disk\n' >"$tmp/file"
printf '/dev/null\n0 0\nd--755 0 0\nfile ---644 2001 2001 %s\n$\n' "$tmp/file" >"$tmp/proto"
for d in fsdata fshot; do
	truncate -s 320M "$tmp/$d.img"
	mkfs.xfs -q -L "$d" -p "$tmp/proto" "$tmp/$d.img"
done

# --- The monitor: one HMP command, its answer on stdout.
mon() {
	python3 - "$tmp/mon.sock" "$1" <<-'PY'
		import socket, sys, time
		s = socket.socket(socket.AF_UNIX)
		s.connect(sys.argv[1])
		time.sleep(0.3)
		s.recv(65536)
		s.sendall((sys.argv[2] + "\n").encode())
		time.sleep(1)
		print(s.recv(65536).decode(errors="replace"))
	PY
}
# The guest's requests (systemd-guest.sh's ask), until QEMU exits.
serve() {
	local req
	while kill -0 "$1" 2>/dev/null; do
		if [[ -f $results/request ]]; then
			req=$(<"$results/request")
			rm -f "$results/request"
			log "the guest asks: $req"
			case $req in
				hot-add)
					mon "drive_add 0 if=none,id=hot,format=raw,cache=unsafe,file=$tmp/fshot.img"
					mon "device_add virtio-blk-pci,drive=hot,id=hotdisk,bus=hp1" ;;
				hot-remove) mon "device_del hotdisk" ;;
			esac
			: >"$results/done-$req"
		fi
		sleep 1
	done
}

# shellcheck disable=SC2054  # commas are QEMU's and the kernel's syntax
append=(
	console=ttyS0 8250.nr_uarts=1 loglevel=5 norandmaps panic=-1
	root=root rootfstype=9p ro rootflags=trans=virtio,version=9p2000.L,msize=262144,cache=loose
	init="$here/systemd-init.sh" fsiter.deb="$deb" fsiter.top="$repo"
	systemd.journald.forward_to_console=1 systemd.journald.max_level_console=warning
)
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
	-device pcie-root-port,id=hp1,chassis=1,slot=1
	-monitor "unix:$tmp/mon.sock,server=on,wait=off"
)
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
shutdown_log=$(sed -n '/fsiter-sd: rebooting/,$p' "$tmp/console.log")
if [[ -z $shutdown_log ]]; then
	host_check "the guest got to its reboot" false
else
	host_check "the guest rebooted" grep -q 'reboot: Restarting system' <<<"$shutdown_log"
	host_check "shutdown remounted / read-only" \
		grep -qE "Remounting '/' read-only|All filesystems unmounted" <<<"$shutdown_log"
	host_check "no EBUSY, nothing left mounted" \
		lacks "busy|Failed to remount|Could not (unmount|remount)" "$shutdown_log"
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
