#!/usr/bin/env bash
# Build Debian kernel packages (make bindeb-pkg) with the fsiter-pin series.
#
#   scripts/kernel-deb.sh [--kernel 6.1|6.12] [--config debian|test]
#                         [--config-only] [--out DIR]
#
#   --kernel VER     the source: /usr/src/linux-source-VER.tar.xz (default 6.1)
#   --config debian  Debian's own amd64 config, from linux-config-VER
#                    (/usr/src/linux-config-VER/config.amd64_none_amd64.xz),
#                    with kernel/config/fsiter.config merged in, less the
#                    options that only shape the test VM (see below) (default)
#   --config test    the test kernel's config, as kernel/build.sh makes it:
#                    tinyconfig + kernel/config/fsiter.config
#   --config-only    stop once the config is made and checked (CI runs this)
#   --out DIR        work and output directory (default
#                    $FSITER_CACHE/kernel-deb/VER-CONFIG, FSITER_CACHE
#                    defaulting to /var/cache/fsiter-pin); emptied first
#
# The series is kernel/patches/VER/series.
# A kernel with no series cannot be packaged; --config-only still checks its
# config, without patches, and says so.
#
# After olddefconfig, every option of the fragment must be in .config as the
# fragment says (check_config, scripts/lib-kconfig.sh), or the script fails
# and names the dropped ones. With --config debian, these test-VM options of
# the fragment are not merged and Debian's values stay:
#   CONFIG_NR_CPUS (8: the VM's size; Debian's MAXSMP needs 8192),
#   CONFIG_PROVE_LOCKING, CONFIG_PROVE_RCU, CONFIG_DEBUG_ATOMIC_SLEEP,
#   CONFIG_LOCKDEP_*_BITS (lockdep: a debugging cost on every lock),
#   CONFIG_RCU_CPU_STALL_TIMEOUT (TCG slack),
#   CONFIG_FUSE_FS (built in for a test; Debian's is a module).
#
# Prints DIR as the last line of stdout; everything else goes to stderr. DIR
# holds config (the checked .config), fragment.config (what was merged),
# build.log, and with --config debian config.debian (Debian's own). Without
# --config-only also src/ (the tree), the linux-image-*.deb and
# linux-headers-*.deb packages and vmlinux.h (the kernel's BTF as C:
# FSITER_KERNEL_DIR=DIR for the fsiter-pin package); --config-only removes
# src/ when it is done.
set -euo pipefail
# The script is one { } block that ends in exit: bash parses it whole before
# running it, so editing the file while it runs (for hours) cannot break it.
{

prog=kernel-deb.sh
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck disable=SC1091  # lib-kconfig.sh is checked on its own
. "$repo/scripts/lib-kconfig.sh"

log() { printf '%s: %s\n' "$prog" "$*" >&2; }
die() { log "error: $*"; exit 1; }
# usage: the header comment of this file.
usage() { awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0" >&2; exit 2; }

kver=6.1
config=debian
config_only=0
out=
while [[ $# -gt 0 ]]; do
	case "$1" in
		--kernel) [[ $# -ge 2 ]] || usage; kver=$2; shift ;;
		--config) [[ $# -ge 2 ]] || usage; config=$2; shift ;;
		--config-only) config_only=1 ;;
		--out) [[ $# -ge 2 ]] || usage; out=$2; shift ;;
		-h | --help) usage ;;
		*) log "unknown argument: $1"; usage ;;
	esac
	shift
done
case "$kver" in 6.1 | 6.12) ;; *) die "--kernel $kver: expected 6.1 or 6.12" ;; esac
case "$config" in debian | test) ;; *) die "--config $config: expected debian or test" ;; esac

fragment="$repo/kernel/config/fsiter.config"
# Options only this kernel version has, merged after fsiter.config.
version_fragment="$repo/kernel/config/fsiter-$kver.config"
# Options of the fragment that only make sense in the test VM (see above).
test_vm_only='CONFIG_NR_CPUS|CONFIG_PROVE_LOCKING|CONFIG_PROVE_RCU|CONFIG_DEBUG_ATOMIC_SLEEP|CONFIG_LOCKDEP_[A-Z_]*BITS|CONFIG_RCU_CPU_STALL_TIMEOUT|CONFIG_FUSE_FS'
tarball=/usr/src/linux-source-$kver.tar.xz
debian_config=/usr/src/linux-config-$kver/config.amd64_none_amd64.xz

# --- The series: kernel/patches/VER/series.
patch_dir=
if [[ -f "$repo/kernel/patches/$kver/series" ]]; then
	patch_dir="$repo/kernel/patches/$kver"
fi
patches=()
if [[ -n "$patch_dir" ]]; then
	# quilt format: one patch per line, "#" comments, an optional -p1.
	while IFS= read -r line || [[ -n "$line" ]]; do
		line=${line%%#*}
		read -r name opt extra <<<"$line" || true
		[[ -n "${name:-}" ]] || continue
		[[ -z "${extra:-}" && ( -z "${opt:-}" || "$opt" == -p1 ) ]] ||
			die "$patch_dir/series: unsupported line: $line"
		[[ -f "$patch_dir/$name" ]] || die "$patch_dir/series lists $name, which does not exist"
		patches+=("$patch_dir/$name")
	done <"$patch_dir/series"
fi
if [[ ${#patches[@]} -eq 0 ]]; then
	if [[ $config_only -eq 0 ]]; then
		die "no fsiter-pin series for Linux $kver (kernel/patches/$kver/series): nothing to package; --config-only checks the config alone"
	fi
	log "no fsiter-pin series for Linux $kver (kernel/patches/$kver/series): checking the config WITHOUT the series"
fi

# --- Packages: what kernel/build.sh needs, this source, Debian's config,
# and what bindeb-pkg runs (dpkg-buildpackage, fakeroot for 6.1, the
# Build-Depends of the kernel's own debian/control).
pkgs=("linux-source-$kver")
[[ $config == debian ]] && pkgs+=("linux-config-$kver")
[[ $config_only -eq 0 ]] && pkgs+=(dpkg-dev fakeroot kmod rsync debhelper)
"$repo/scripts/deps.sh" --kernel "${pkgs[@]}"
[[ -f "$tarball" ]] || die "$tarball missing (package linux-source-$kver)"
if [[ $config == debian ]]; then
	[[ -f "$debian_config" ]] || die "$debian_config missing (package linux-config-$kver)"
fi

out=${out:-${FSITER_CACHE:-/var/cache/fsiter-pin}/kernel-deb/$kver-$config}
mkdir -p "$out"
out=$(cd "$out" && pwd)
src="$out/src"
buildlog="$out/build.log"
log "working in $out (log: $buildlog)"
# A previous run's tree and packages go: DIR holds one build.
rm -rf "$src" "$out"/*.deb "$out"/*.buildinfo "$out"/*.changes "$out/config" "$out/vmlinux.h"
: >"$buildlog"
start=$SECONDS

# run LABEL CMD...: CMD's output to the build log; its tail on failure.
run() {
	local label=$1
	shift
	if ! "$@" >>"$buildlog" 2>&1; then
		tail -n 40 "$buildlog" >&2
		die "$label failed (last lines above; full log: $buildlog)"
	fi
}

log "unpacking $tarball"
mkdir -p "$src"
tar -xJf "$tarball" -C "$src" --strip-components=1
for p in "${patches[@]}"; do
	log "applying ${p#"$repo/"}"
	run "patch ${p##*/}" patch -d "$src" -p1 --forward --batch -i "$p"
done

export KBUILD_BUILD_USER=fsiter KBUILD_BUILD_HOST=fsiter-pin
mk=(make -C "$src")
frag="$out/fragment.config"
if [[ $config == debian ]]; then
	log "configuring: Debian's $debian_config + fsiter.config without the test-VM options"
	xz -dc "$debian_config" >"$src/.config"
	cp "$src/.config" "$out/config.debian"
	grep -Ev "^(# )?($test_vm_only)[= ]" "$fragment" >"$frag"
	[[ ! -f "$version_fragment" ]] || cat "$version_fragment" >>"$frag"
	grep -E "^(# )?($test_vm_only)[= ]" "$fragment" | sed 's/^/  not merged (test VM only): /' >&2 || true
else
	log "configuring: tinyconfig + fsiter.config"
	cp "$fragment" "$frag"
	[[ ! -f "$version_fragment" ]] || cat "$version_fragment" >>"$frag"
	run "make tinyconfig" "${mk[@]}" tinyconfig
fi
run "merge_config.sh" "$src/scripts/kconfig/merge_config.sh" -m -O "$src" "$src/.config" "$frag"
run "make olddefconfig" "${mk[@]}" olddefconfig
cp "$src/.config" "$out/config"
check_config "$out/config" "$frag" ||
	die "kernel config: fragment options dropped (missing dependencies?)"
log "config checked: every option of the fragment is kept (${#patches[@]} patches applied)"
if [[ $config == debian ]]; then
	# What the fragment changes in Debian's config, for the record.
	changed=()
	while IFS= read -r sym; do
		before=$(grep -E "^$sym=|^# $sym is not set\$" "$out/config.debian" || true)
		after=$(grep -E "^$sym=|^# $sym is not set\$" "$out/config" || true)
		[[ "$before" == "$after" ]] || changed+=("  ${before:-(absent)} -> ${after:-(absent)}")
	done < <(sed -nE 's/^(# )?(CONFIG_[A-Za-z0-9_]+)( is not set|=).*/\2/p' "$frag" | sort -u)
	log "the fragment changes ${#changed[@]} options of Debian's config:"
	[[ ${#changed[@]} -eq 0 ]] || printf '%s\n' "${changed[@]}" >&2
fi

if [[ $config_only -eq 1 ]]; then
	rm -rf "$src"   # 1.5 GiB that only a build needs
	log "--config-only: done in $((SECONDS - start))s: $out/config"
	echo "$out"
	exit 0
fi

log "make -j$(nproc) bindeb-pkg (log: $buildlog)"
run "make bindeb-pkg" "${mk[@]}" -j"$(nproc)" bindeb-pkg
log "generating vmlinux.h"
bpftool btf dump file "$src/vmlinux" format c >"$out/vmlinux.h" ||
	die "bpftool btf dump failed (is CONFIG_DEBUG_INFO_BTF in vmlinux?)"
"${mk[@]}" -s kernelrelease >"$out/kernelrelease" 2>/dev/null || true
shopt -s nullglob
debs=("$out"/*.deb)
[[ ${#debs[@]} -gt 0 ]] || die "make bindeb-pkg made no package in $out"
log "built $(cat "$out/kernelrelease") in $((SECONDS - start))s:"
printf '  %s\n' "${debs[@]##*/}" >&2
echo "$out"
exit
}
