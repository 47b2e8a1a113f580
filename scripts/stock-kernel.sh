#!/usr/bin/env bash
# Debian's own 6.12 kernel, without the fsiter-pin series, made bootable by
# tests/vm/run-vm.sh: the stock kernel of tests/vm/stock-tests.sh.
#
#   scripts/stock-kernel.sh
#
# Downloads (apt-get download: nothing is installed, /boot is not touched)
# the newest linux-image-6.12.*+debN-amd64-unsigned that apt knows, and
# busybox-static, unpacks both with dpkg-deb -x in a temp dir and makes:
#   bzImage        the package's vmlinuz
#   initrd.img     an initramfs (newc cpio, gzip): the static busybox, the
#                  modules the guest needs (see $want_modules below) with
#                  their dependencies from modules.dep (depmod -b on the
#                  unpacked tree: the package ships none), decompressed so
#                  that busybox insmod loads them, and tests/vm/stock-init.sh
#                  as /init: it loads them, mounts the host's / over 9p as
#                  run-vm.sh's kernel command line says, and switch_root's
#                  into tests/vm/guest-init.sh, as our own kernels boot
#   kernelrelease, config (Debian's), inputs.txt (the key's inputs:
#   packages and versions, script hashes), modules.txt (load order)
# run-vm.sh passes initrd.img with -initrd when the kernel dir has one.
#
# Prints the cache directory as the last line of stdout; everything else
# goes to stderr:
#   skdir=$(scripts/stock-kernel.sh | tail -n1)
#
# The cache key is the sha256 of: the kernel package's name and version,
# busybox-static's version, this script and tests/vm/stock-init.sh. A
# cached entry returns at once (apt-cache only, no download).
#
# Environment:
#   FSITER_CACHE=DIR          cache root (default /var/cache/fsiter-pin);
#                             entries go to DIR/stock/<key>, the 2 most
#                             recently used are kept
#   FSITER_STOCK_PACKAGE=PKG  this kernel package instead of the newest
set -euo pipefail
# The script is one { } block that ends in exit: bash parses it whole before
# running it, so editing the file while it runs cannot break that run.
{

prog=stock-kernel.sh
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
self="$repo/scripts/stock-kernel.sh"
init_script="$repo/tests/vm/stock-init.sh"
cache_root="${FSITER_CACHE:-/var/cache/fsiter-pin}/stock"
keep_entries=2

# The modules the guest needs that Debian builds as modules, in load order
# (their dependencies come first, from modules.dep): 9p and its virtio
# transport for the root and results shares, overlay for guest-init.sh's
# writable /etc, virtio_blk and xfs for a --disk scratch disk. crc32c_generic
# is libcrc32c's soft dependency (xfs needs it; without modprobe in the
# initramfs nobody would load it). A module built in is skipped.
want_modules=(9pnet_virtio 9p overlay virtio_blk crc32c_generic xfs)

log() { printf '%s: %s\n' "$prog" "$*" >&2; }
die() { log "error: $*"; exit 1; }
# usage: the header comment of this file.
usage() { awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$self" >&2; exit 2; }

for arg in "$@"; do
	case "$arg" in
		-h | --help) usage ;;
		*) log "unknown argument: $arg"; usage ;;
	esac
done

"$repo/scripts/deps.sh" --vm

sha() { sha256sum "$1" | cut -c1-64; }
# candidate PKG: the version apt would install, or nothing.
candidate() {
	apt-cache policy "$1" 2>/dev/null | awk '$1 == "Candidate:" && $2 != "(none)" { print $2 }'
}

# --- The package: the newest 6.12 amd64 image apt knows (its name carries
# the ABI, so a newer one is a new name, not a new version).
pkg=${FSITER_STOCK_PACKAGE:-}
if [[ -z "$pkg" ]]; then
	pkg=$(apt-cache pkgnames linux-image-6.12. 2>/dev/null |
		grep -E '^linux-image-6\.12\.[0-9]+\+deb[0-9]+-amd64-unsigned$' | sort -V | tail -n1 || true)
	[[ -n "$pkg" ]] ||
		die "apt knows no linux-image-6.12.*-amd64-unsigned (Debian 12: bookworm-security in sources.list; then apt-get update)"
fi
version=$(candidate "$pkg")
[[ -n "$version" ]] || die "$pkg: apt has no version of it to download"
bb_version=$(candidate busybox-static)
[[ -n "$bb_version" ]] || die "busybox-static: apt has no version of it to download"

manifest() {
	echo "fsiter-pin stock kernel inputs"
	echo "kernel $pkg $version"
	echo "busybox-static $bb_version"
	echo "stock-kernel.sh $(sha "$self")"
	echo "stock-init.sh $(sha "$init_script")"
}
key=$(manifest | sha256sum | cut -c1-64)
entry="$cache_root/$key"

complete_entry() {
	[[ -f "$1/bzImage" && -f "$1/initrd.img" && -f "$1/kernelrelease" && -f "$1/config" ]]
}
fast_path() {
	if complete_entry "$entry"; then
		touch "$entry"      # most recently used: survives pruning
		log "cached: $entry ($pkg $version)"
		echo "$entry"
		exit 0
	fi
}
fast_path

# --- One build at a time (per cache).
mkdir -p "$cache_root"
exec 9>"$cache_root/.lock"
if ! flock -n 9; then
	log "waiting for another stock kernel build to finish (lock $cache_root/.lock)"
	flock 9
fi
fast_path   # built by whoever held the lock?

# Leftovers of builds that were killed (we hold the lock: nobody owns them).
find "$cache_root" -mindepth 1 -maxdepth 1 -name 'tmp.*' -exec rm -rf {} +

tmp=$(mktemp -d "$cache_root/tmp.XXXXXX")
# shellcheck disable=SC2317  # invoked by the EXIT trap
cleanup() { rm -rf "$tmp"; }
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
start=$SECONDS

# --- Download. apt drops root to _apt for the download: let it write.
dl="$tmp/dl"
mkdir -p "$dl"
chmod 0755 "$tmp"
chown _apt "$dl" 2>/dev/null || true
download() { (cd "$dl" && apt-get download -q "$pkg=$version" "busybox-static=$bb_version") >&2; }
log "downloading $pkg $version and busybox-static $bb_version"
if ! download; then
	# The mirror may have dropped that version since the last update.
	log "download failed; apt-get update, then once more"
	apt-get update -q >&2 || true
	version=$(candidate "$pkg")
	bb_version=$(candidate busybox-static)
	[[ -n "$version" && -n "$bb_version" ]] || die "$pkg or busybox-static: gone from apt after the update"
	download || die "apt-get download $pkg failed"
	key=$(manifest | sha256sum | cut -c1-64)
	entry="$cache_root/$key"
fi
shopt -s nullglob
debs=("$dl"/linux-image-*.deb)
bbdebs=("$dl"/busybox-static_*.deb)
shopt -u nullglob
[[ ${#debs[@]} -eq 1 && ${#bbdebs[@]} -eq 1 ]] || die "apt-get download left no .deb files in $dl"

log "unpacking ${debs[0]##*/}"
pkgroot="$tmp/pkg"
dpkg-deb -x "${debs[0]}" "$pkgroot" || die "dpkg-deb -x ${debs[0]##*/} failed"
dpkg-deb -x "${bbdebs[0]}" "$tmp/busybox" || die "dpkg-deb -x ${bbdebs[0]##*/} failed"
rm -rf "$dl"

kdirs=("$pkgroot"/lib/modules/*/)
[[ ${#kdirs[@]} -eq 1 && -d "${kdirs[0]}" ]] || die "$pkg: expected one lib/modules/<release>/ directory"
kmods=${kdirs[0]%/}
krel=${kmods##*/}
for f in "$pkgroot/boot/vmlinuz-$krel" "$pkgroot/boot/config-$krel"; do
	[[ -f "$f" ]] || die "$pkg: no ${f#"$pkgroot"/}"
done

# --- Modules: dependencies from modules.dep (depmod, as the package's
# postinst would run it, but on the unpacked tree). The package's
# System.map is a stub (the real one is in the -dbg package): not used.
if [[ ! -f "$kmods/modules.dep" ]]; then
	log "depmod -b (the package ships no modules.dep)"
	depmod -b "$pkgroot" "$krel" ||
		die "depmod failed on $kmods"
fi
declare -A dep_of=() path_of=()
# name PATH: the module name of a .ko path, "-" as "_" (as the kernel does).
name() {
	local n=${1##*/}
	n=${n%%.ko*}
	printf '%s' "${n//-/_}"
}
while IFS= read -r line; do
	mod=${line%%:*}
	n=$(name "$mod")
	path_of[$n]=$mod
	dep_of[$n]=${line#*:}
done <"$kmods/modules.dep"

order=()
declare -A seen=()
# visit NAME: NAME's dependencies, then NAME, onto $order (once each).
visit() {
	local n=$1 d
	[[ -z "${seen[$n]:-}" ]] || return 0
	seen[$n]=1
	for d in ${dep_of[$n]:-}; do
		visit "$(name "$d")"
	done
	order+=("$n")
}
for m in "${want_modules[@]}"; do
	m=${m//-/_}
	if [[ -n "${path_of[$m]:-}" ]]; then
		visit "$m"
	elif grep -qE "/${m//_/[-_]}\.ko$" "$kmods/modules.builtin"; then
		log "$m is built in"
	else
		die "$pkg has no module $m"
	fi
done

# --- The initramfs.
ird="$tmp/initramfs"
mkdir -p "$ird"/{bin,dev,proc,sys,newroot,lib/modules}
cp "$tmp/busybox/bin/busybox" "$ird/bin/busybox"
# In /bin only: the kernel's request_module() runs /sbin/modprobe, which
# must not exist here (the modules it would look for are not here).
for applet in $("$ird/bin/busybox" --list); do
	[[ "$applet" == busybox ]] || ln -s busybox "$ird/bin/$applet"
done
install -m 0755 "$init_script" "$ird/init"
# The kernel's built-in initramfs has one too; ours, in case it has not.
mknod -m 0600 "$ird/dev/console" c 5 1 2>/dev/null ||
	log "warning: cannot mknod dev/console; relying on the kernel's built-in one"
: >"$ird/lib/modules/load.list"
for n in "${order[@]}"; do
	src="$kmods/${path_of[$n]}"
	dst="$ird/lib/modules/$n.ko"
	case "$src" in
		*.ko) cp "$src" "$dst" ;;
		*.ko.xz) xz -dc "$src" >"$dst" ;;
		*.ko.zst) zstd -qdc "$src" >"$dst" ;;
		*.ko.gz) gzip -dc "$src" >"$dst" ;;
		*) die "$src: unknown module compression" ;;
	esac || die "cannot decompress $src"
	echo "$n.ko" >>"$ird/lib/modules/load.list"
done
log "initramfs: busybox $bb_version, modules ${order[*]}"

out="$tmp/out"
mkdir -p "$out"
(cd "$ird" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) |
	gzip -9n >"$out/initrd.img" || die "cannot make the initramfs"
cp "$pkgroot/boot/vmlinuz-$krel" "$out/bzImage"
cp "$pkgroot/boot/config-$krel" "$out/config"
echo "$krel" >"$out/kernelrelease"
printf '%s\n' "${order[@]}" >"$out/modules.txt"
manifest >"$out/inputs.txt"

rm -rf "$entry"
mv -T "$out" "$entry"
log "made $krel ($pkg $version) in $((SECONDS - start))s: $entry"

# Keep the most recently used entries only.
find "$cache_root" -mindepth 1 -maxdepth 1 -type d ! -name 'tmp.*' -printf '%T@ %p\n' |
	sort -rn | tail -n +$((keep_entries + 1)) | cut -d' ' -f2- |
	while IFS= read -r old; do
		log "pruning old cache entry $old"
		rm -rf "$old"
	done

echo "$entry"
exit
}
