#!/bin/bash
# Checks that each patch of a series builds on its own: applies
# kernel/patches/VER/series one patch at a time to a fresh Debian
# linux-source-VER tree configured as the cached test kernel is, and after
# each patch compiles the kernel objects that patch touches, and bpftool
# where it touches bpftool. Exits non-zero, naming the patch and the
# object, at the first patch that does not apply or an object that does
# not build.
#
#   kernel/build-each.sh [--kernel 6.1|6.12] [--config FILE]   (default: 6.1)
#
# Needs the test kernel of the same series built (kernel/build.sh): its
# config is the one every step compiles with; or --config, a config of
# that kernel's (a build of an earlier state of the series will do). The tree is made in a
# temporary directory under FSITER_CACHE (default /var/cache/fsiter-pin),
# removed at the end.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
kver=6.1
config=
while [[ $# -gt 0 ]]; do
	case "$1" in
		--kernel) kver=${2:?}; shift 2 ;;
		--config) config=${2:?}; shift 2 ;;
		*) echo "build-each.sh: unknown argument '$1'" >&2; exit 2 ;;
	esac
done
series=$top/kernel/patches/$kver/series
[[ -f $series ]] || { echo "build-each.sh: no series for '$kver'" >&2; exit 2; }
if [[ -z $config ]]; then
	if ! kdir=$("$top/kernel/build.sh" --kernel "$kver" --print-dir 2>/dev/null | tail -n1) ||
		[[ ! -f $kdir/config ]]; then
		echo "build-each.sh: build the $kver test kernel first (kernel/build.sh --kernel $kver), or give --config" >&2
		exit 1
	fi
	config=$kdir/config
fi
[[ -f $config ]] || { echo "build-each.sh: --config: no file '$config'" >&2; exit 2; }
cache=${FSITER_CACHE:-/var/cache/fsiter-pin}
mkdir -p "$cache"
tree=$(mktemp -d "$cache/build-each.XXXXXX")
trap 'rm -rf "$tree"' EXIT
log=$tree.log

tar -xJf "/usr/src/linux-source-$kver.tar.xz" -C "$tree" --strip-components=1
cd "$tree"
# configure TREE with the test kernel's config (patches add Kconfig
# symbols: again after each one).
configure() { cp "$config" .config && make -s olddefconfig >>"$log" 2>&1; }
configure
make -s -j "$(nproc)" prepare >>"$log" 2>&1 || { echo "build-each.sh: $kver: make prepare failed (log: $log)" >&2; exit 1; }

n=0
while read -r p; do
	[[ -z $p || $p == \#* ]] && continue
	f=$top/kernel/patches/$kver/$p
	patch -p1 -s <"$f" || { echo "build-each.sh: $kver/$p: does not apply" >&2; exit 1; }
	configure
	objs=$(sed -n 's#^+++ b/\(\(fs\|kernel\|mm\|lib\|security\)/.*\)\.c$#\1.o#p' "$f" |
		paste -sd' ')
	for o in $objs; do
		make -s -j "$(nproc)" "$o" >>"$log" 2>&1 ||
			{ echo "build-each.sh: $kver/$p: $o does not build (log: $log)" >&2; exit 1; }
	done
	if grep -q '^+++ b/tools/bpf/bpftool/' "$f"; then
		make -s -C tools/bpf/bpftool -j "$(nproc)" >>"$log" 2>&1 ||
			{ echo "build-each.sh: $kver/$p: bpftool does not build (log: $log)" >&2; exit 1; }
		objs="${objs:+$objs }bpftool"
	fi
	echo "build-each.sh: $kver/$p: builds (${objs:-no kernel object})"
	n=$((n + 1))
done <"$series"
rm -f "$log"
echo "build-each.sh: $kver: each of the $n patches builds on its own"
