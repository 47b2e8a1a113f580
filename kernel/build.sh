#!/usr/bin/env bash
# Build the fsiter-pin test kernel: Debian's linux-source-VER with the series
# kernel/patches/VER/.
#
#   kernel/build.sh [--kernel 6.1|6.12] [--debug | --bench] [--print-dir]
#
#   --kernel VER which kernel: 6.1 (the default) or 6.12, each with its own
#                series and its own cache key
#   --debug      also merge kernel/config/debug.config (KASAN, kmemleak)
#   --bench      also merge kernel/config/bench.config (no lockdep, no
#                PROVE_RCU: what bench/run.sh and bench/sb.sh time on)
#   --print-dir  print the cache dir for the current inputs and exit without
#                building: exit 0 if it is built, 1 if not
#
# Prints the cache directory (bzImage, vmlinux.h, config, System.map,
# include/linux/bpf.h, the series' selftests under selftests/, and bpftool,
# built from the patched tree: its `link show` reports the fs iterators'
# link info) as the last line of stdout; everything else goes to stderr:
#   kdir=$(kernel/build.sh | tail -1)
#
# Before the build it compiles the files the series touches, in a second
# tree configured with kernel/config/compile-check.config merged last (no
# POSIX ACLs, no fsnotify): the series must build without them too.
#
# The cache key is the sha256 of: kernel/patches/VER/series and the patches
# it lists, the config fragments, the linux-source-VER package version, the
# gcc/clang/pahole/bpftool versions and this script. Cached builds return at
# once.
#
# Environment:
#   FSITER_CACHE=DIR   cache root (default /var/cache/fsiter-pin); entries go
#                      to DIR/kernel/<key>, the 3 most recently used are kept
#   FSITER_KSRC=TREE   developer mode: build the already patched, clean source
#                      tree TREE incrementally with O= in DIR/ksrc-obj/<id>,
#                      no patches applied, no fast path; the artifacts go to
#                      DIR/kernel/ksrc-<id>
set -euo pipefail
# The script is one { } block that ends in exit: bash parses it whole before
# running it, so editing the file while it runs cannot break that run.
{

prog=build.sh
kernel_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$kernel_dir/.." && pwd)
self="$kernel_dir/build.sh"
cache_base=${FSITER_CACHE:-/var/cache/fsiter-pin}
cache_root="$cache_base/kernel"
keep_entries=4

log() { printf '%s: %s\n' "$prog" "$*" >&2; }
die() { log "error: $*"; exit 1; }
# usage: the header comment of this file.
usage() { awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$self" >&2; exit 2; }

debug=0
bench=0
print_dir=0
kver=6.1
while [[ $# -gt 0 ]]; do
	case "$1" in
		--kernel)
			[[ $# -ge 2 ]] || { log "--kernel needs a version (6.1 or 6.12)"; usage; }
			kver=$2
			shift ;;
		--kernel=*) kver=${1#--kernel=} ;;
		--debug) debug=1 ;;
		--bench) bench=1 ;;
		--print-dir) print_dir=1 ;;
		-h | --help) usage ;;
		*) log "unknown argument: $1"; usage ;;
	esac
	shift
done
[[ $debug -eq 1 && $bench -eq 1 ]] && { log "--debug and --bench do not go together"; usage; }
case "$kver" in
	6.1 | 6.12) ;;
	*) die "--kernel $kver: unsupported version (6.1 or 6.12)" ;;
esac
tarball=/usr/src/linux-source-$kver.tar.xz
series="$kernel_dir/patches/$kver/series"

if [[ $print_dir -eq 0 ]]; then
	"$repo/scripts/deps.sh" --kernel
fi

sha() { sha256sum "$1" | cut -c1-64; }
self_sha=$(sha "$self")

# --- Inputs. Once the build lock is held they are copied into the build
# dir and the key is computed again from the copies: a patch edited during
# a (long) build cannot end up under a key that doesn't describe it.
patch_dir="$kernel_dir/patches/$kver"
fragments=("$kernel_dir/config/fsiter.config")
# Options only one kernel version has (check_config fails on a missing one).
[[ -f "$kernel_dir/config/fsiter-$kver.config" ]] &&
	fragments+=("$kernel_dir/config/fsiter-$kver.config")
fragments+=("$kernel_dir/config/trim.config")
[[ $debug -eq 1 ]] && fragments+=("$kernel_dir/config/debug.config")
[[ $bench -eq 1 ]] && fragments+=("$kernel_dir/config/bench.config")
check_fragment="$kernel_dir/config/compile-check.config"
# The objects of the files the series changes, for the compile-only check.
check_objects=(
	fs/bpf_fs_iter.o fs/fs_pin.o fs/namespace.o kernel/bpf/bpf_iter.o
	kernel/bpf/inode.o mm/filemap.o
)
# 6.1 lacks the kfunc filter and trusted context arguments: its series adds them.
[[ $kver == 6.1 ]] && check_objects+=(kernel/bpf/btf.o kernel/bpf/verifier.o)

# read_series: the patches of $series, in order (quilt format: one patch per
# line, "#" comments, an optional -p1), each checked to exist in $patch_dir.
read_series() {
	patches=()
	[[ -f "$series" && -z "${FSITER_KSRC:-}" ]] || return 0
	local line name opt extra
	while IFS= read -r line || [[ -n "$line" ]]; do
		line=${line%%#*}
		read -r name opt extra <<<"$line" || true
		[[ -n "${name:-}" ]] || continue
		if [[ -n "${extra:-}" || ( -n "${opt:-}" && "$opt" != -p1 ) ]]; then
			die "kernel/patches/$kver/series: unsupported line: $line"
		fi
		[[ -f "$patch_dir/$name" ]] ||
			die "kernel/patches/$kver/series lists $name, which does not exist"
		patches+=("$name")
	done <"$series"
}
read_series

# --- Cache key.
tool_version() { "$@" 2>/dev/null | head -n1 || true; }
manifest() {
	echo "fsiter-pin kernel build inputs"
	echo "linux-source-$kver $(dpkg-query -W -f='${Version}' "linux-source-$kver" 2>/dev/null || echo none)"
	echo "gcc $(tool_version gcc -dumpfullversion)"
	echo "clang $(tool_version clang --version)"
	echo "pahole $(tool_version pahole --version)"
	echo "bpftool $(tool_version bpftool version)"
	echo "build.sh $self_sha"
	local f p
	for f in "${fragments[@]}" "$check_fragment"; do
		echo "fragment ${f##*/} $(sha "$f")"
	done
	if [[ -f "$series" ]]; then
		echo "series $(sha "$series")"
	fi
	for p in "${patches[@]}"; do
		echo "patch $p $(sha "$patch_dir/$p")"
	done
}

complete_entry() {
	[[ -f "$1/bzImage" && -f "$1/vmlinux.h" && -f "$1/config" &&
	   -f "$1/include/linux/bpf.h" && -d "$1/selftests" && -x "$1/bpftool" ]]
}

if [[ -n "${FSITER_KSRC:-}" ]]; then
	ksrc=$(realpath -e "$FSITER_KSRC") || die "FSITER_KSRC=$FSITER_KSRC does not exist"
	[[ -f "$ksrc/Makefile" && -d "$ksrc/arch/x86" ]] ||
		die "FSITER_KSRC=$ksrc is not a kernel source tree"
	id=$(printf '%s\n' "$ksrc" "$debug" "$bench" | sha256sum | cut -c1-16)
	key="ksrc-$id"
	objdir="$cache_base/ksrc-obj/$id"
else
	key=$(manifest | sha256sum | cut -c1-64)
fi
entry="$cache_root/$key"

if [[ $print_dir -eq 1 ]]; then
	echo "$entry"
	complete_entry "$entry" || { log "not built yet: $entry"; exit 1; }
	exit 0
fi

fast_path() {
	if [[ -z "${FSITER_KSRC:-}" ]] && complete_entry "$entry"; then
		touch "$entry"      # most recently used: survives pruning
		log "cached: $entry"
		echo "$entry"
		exit 0
	fi
}
fast_path

# --- One build at a time (per cache).
mkdir -p "$cache_root"
exec 9>"$cache_root/.lock"
if ! flock -n 9; then
	log "waiting for another kernel build to finish (lock $cache_root/.lock)"
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
buildlog="$tmp/build.log"
out="$tmp/out"
mkdir -p "$out"
start=$SECONDS

if [[ -z "${FSITER_KSRC:-}" ]]; then
	# Snapshot the inputs (see read_series above), then re-key.
	mkdir -p "$tmp/inputs/patches" "$tmp/inputs/config"
	cp "${fragments[@]}" "$check_fragment" "$tmp/inputs/config/"
	for i in "${!fragments[@]}"; do
		fragments[i]="$tmp/inputs/config/${fragments[i]##*/}"
	done
	check_fragment="$tmp/inputs/config/${check_fragment##*/}"
	if [[ -f "$series" ]]; then
		cp "$series" "$tmp/inputs/patches/series"
		series="$tmp/inputs/patches/series"
		read_series
		for p in "${patches[@]}"; do
			cp "$patch_dir/$p" "$tmp/inputs/patches/$p"
		done
		patch_dir="$tmp/inputs/patches"
	fi
	key=$(manifest | sha256sum | cut -c1-64)
	entry="$cache_root/$key"
	fast_path
fi

export KBUILD_BUILD_USER=fsiter KBUILD_BUILD_HOST=fsiter-pin
# No variable tracking in the debug info: the location lists of local
# variables are for a debugger, which no test kernel meets; they take a
# quarter of gcc's time on each file (mm/filemap.c: 3.10 s against 2.37 s
# of CPU), and the BTF that pahole makes from the DWARF is the same, byte
# for byte, without them. (CONFIG_DEBUG_INFO_REDUCED would drop them too,
# but it also drops struct types, and BTF depends on it being off.)
export KCFLAGS=-fno-var-tracking

if [[ -n "${FSITER_KSRC:-}" ]]; then
	src="$ksrc"
	mkdir -p "$objdir"
	mk=(make -C "$src" O="$objdir")
	log "developer build of $src (objects in $objdir)"
else
	src="$tmp/src"
	objdir="$src"
	mk=(make -C "$src")
	[[ -f "$tarball" ]] || die "$tarball missing (package linux-source-$kver)"
	log "building kernel $key"
	log "unpacking $tarball"
	mkdir -p "$src"
	tar -xJf "$tarball" -C "$src" --strip-components=1
	for p in "${patches[@]}"; do
		log "applying $p"
		if ! patch -d "$src" -p1 --forward --batch -i "$patch_dir/$p" \
			>"$tmp/patch.out" 2>&1; then
			cat "$tmp/patch.out" >&2
			die "patch $p does not apply (kernel/patches/$kver/$p)"
		fi
	done
	[[ ${#patches[@]} -gt 0 ]] || log "no patches (kernel/patches/$kver/series absent or empty)"
fi

# run_make LABEL ARGS...: make with output to the build log; tail on failure.
run_make() {
	local label=$1
	shift
	run_cmd "$label" "${mk[@]}" "$@"
}

# run_cmd LABEL CMD...: CMD with output to the build log; tail on failure.
run_cmd() {
	local label=$1
	shift
	# 9>&-: make's children must not inherit (and so hold) the build lock.
	if ! "$@" >>"$buildlog" 2>&1 9>&-; then
		tail -n 60 "$buildlog" >&2
		cp "$buildlog" "$cache_root/last-failed-build.log" 2>/dev/null || true
		die "$label failed (last lines above; full log: $cache_root/last-failed-build.log)"
	fi
}

# check_config CONFIG FRAGMENT...: fails, naming them, if olddefconfig
# dropped options of the fragments (shared with scripts/kernel-deb.sh).
# shellcheck disable=SC1091  # lib-kconfig.sh is checked on its own
. "$repo/scripts/lib-kconfig.sh"

configure() {
	log "configuring: tinyconfig + ${fragments[*]##*/}"
	run_make "make tinyconfig" tinyconfig
	if ! "$src/scripts/kconfig/merge_config.sh" -m -O "$objdir" "$objdir/.config" \
		"${fragments[@]}" >>"$buildlog" 2>&1; then
		tail -n 30 "$buildlog" >&2
		die "merge_config.sh failed"
	fi
	run_make "make olddefconfig" olddefconfig
	check_config "$objdir/.config" "${fragments[@]}" ||
		die "kernel config: fragment options dropped (missing dependencies?)"
}

# compile_check: the series' files, built without the options they guard,
# in a tree of their own (O=). Done before the main build, while the
# source tree is still clean: an in-tree build would make kbuild refuse O=.
compile_check() {
	local cdir="$tmp/compile-check" mkc
	mkdir -p "$cdir"
	mkc=(make -C "$src" O="$cdir")
	log "compile-only check: ${check_fragment##*/} (${#check_objects[@]} objects)"
	if ! "${mkc[@]}" tinyconfig >>"$buildlog" 2>&1 9>&- ||
		! "$src/scripts/kconfig/merge_config.sh" -m -O "$cdir" "$cdir/.config" \
			"${fragments[@]}" "$check_fragment" >>"$buildlog" 2>&1 ||
		! "${mkc[@]}" olddefconfig >>"$buildlog" 2>&1 9>&-; then
		tail -n 30 "$buildlog" >&2
		die "compile-only check: configuring failed"
	fi
	check_config "$cdir/.config" "$check_fragment" ||
		die "compile-only check: the options are still set (selected by others?)"
	if ! "${mkc[@]}" -j"$(nproc)" "${check_objects[@]}" >>"$buildlog" 2>&1 9>&-; then
		tail -n 60 "$buildlog" >&2
		cp "$buildlog" "$cache_root/last-failed-build.log" 2>/dev/null || true
		die "compile-only check failed (full log: $cache_root/last-failed-build.log)"
	fi
	rm -rf "$cdir"
}
compile_check

if [[ -n "${FSITER_KSRC:-}" ]]; then
	cfgkey=$(manifest | sha256sum | cut -c1-64)
	if [[ ! -f "$objdir/.config" || "$(cat "$objdir/.fsiter-config-key" 2>/dev/null)" != "$cfgkey" ]]; then
		configure
		echo "$cfgkey" >"$objdir/.fsiter-config-key"
	fi
else
	configure
fi

log "make -j$(nproc) bzImage (log: $buildlog)"
run_make "kernel build" -j"$(nproc)" bzImage


log "generating vmlinux.h"
bpftool btf dump file "$objdir/vmlinux" format c >"$out/vmlinux.h" ||
	die "bpftool btf dump failed (is CONFIG_DEBUG_INFO_BTF in vmlinux?)"
cp "$objdir/arch/x86/boot/bzImage" "$out/bzImage"
# bpftool of the patched tree (the series' last patch teaches it the fs
# iterators' link info); its skeletons are built against this kernel's
# vmlinux.h, its objects go to the object dir (an FSITER_KSRC tree stays
# clean).
log "building bpftool"
mkdir -p "$objdir/bpftool-build"
run_cmd "bpftool build" make -C "$src/tools/bpf/bpftool" OUTPUT="$objdir/bpftool-build/" \
	VMLINUX_H="$out/vmlinux.h" -j"$(nproc)"
cp "$objdir/bpftool-build/bpftool" "$out/bpftool"
cp "$objdir/.config" "$out/config"
cp "$objdir/System.map" "$out/System.map"
# For user space built against this kernel: the patched UAPI (bpf.h with
# the fs iterator link info), and the series' BPF selftests with the
# selftests header their programs include.
mkdir -p "$out/include/linux" "$out/selftests/progs" "$out/selftests/prog_tests"
cp "$src/tools/include/uapi/linux/bpf.h" "$out/include/linux/bpf.h"
st="$src/tools/testing/selftests/bpf"
cp "$st/progs/bpf_iter.h" "$out/selftests/progs/"
# __failure and __msg of the verifier tests (RUN_TESTS), where the kernel has them.
[[ ! -f "$st/progs/bpf_misc.h" ]] || cp "$st/progs/bpf_misc.h" "$out/selftests/progs/"
shopt -s nullglob
for f in "$st"/progs/bpf_iter_fs*.c "$st"/prog_tests/bpf_iter_fs*.c; do
	cp "$f" "$out/selftests/${f#"$st/"}"
done
shopt -u nullglob
"${mk[@]}" -s kernelrelease >"$out/kernelrelease" 2>/dev/null || true
manifest >"$out/inputs.txt"
if [[ ${#patches[@]} -gt 0 ]]; then
	printf '%s\n' "${patches[@]}" >"$out/patches.txt"
else
	: >"$out/patches.txt"
fi
gzip -c "$buildlog" >"$out/build.log.gz"

rm -rf "$entry"
mv -T "$out" "$entry"
log "built $(cat "$entry/kernelrelease" 2>/dev/null) in $((SECONDS - start))s: $entry"

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
