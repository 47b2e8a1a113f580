#!/usr/bin/env bash
# Install the Debian packages that are missing, and only those.
#
#   scripts/deps.sh PKG...     install PKG... if not installed
#   scripts/deps.sh --kernel   what kernel/build.sh needs
#   scripts/deps.sh --vm       what tests/vm/run-vm.sh and the guest need
#   scripts/deps.sh --build    what the user space build (cmake, BPF) needs
#   scripts/deps.sh --bench    what bench/run.sh and bench/sb.sh add to those
#   scripts/deps.sh --list --kernel|--vm|--build|--bench   print the list only
#
# Runs `apt-get update` at most once, and only when something is missing.
# Must run as root to install anything (CI and dev machines are root).
set -euo pipefail

prog=deps.sh

# Kernel build: compiler and kbuild tools, objtool (libelf), pahole for BTF
# (dwarves), the source tarballs of both kernels, Debian's 6.12 config
# (scripts/kernel-deb.sh --config debian), bpftool for vmlinux.h, flock
# (util-linux), and what the patched tree's bpftool needs (clang and llvm
# for its skeletons, zlib, libcap).
kernel_pkgs=(
	bc bison build-essential cpio dwarves flex libelf-dev libssl-dev
	linux-source-6.1 linux-source-6.12 linux-config-6.12 patch xz-utils
	bpftool util-linux clang llvm zlib1g-dev libcap-dev
)

# VM harness: QEMU (TCG, virtio-9p), and what the guest runs from the host's
# root filesystem: bash, util-linux (mount, setpriv, fincore, losetup,
# dmesg), xfsprogs and e2fsprogs (the fs_sb suites), acl, attr (security
# labels on bpffs), iproute2 (lo),
# bpftool, python3 (fadvise, madvise),
# jq (checks fsiter-pin's JSON), udev (udevadm test on our rule), strace
# and systemd (syscall-tests.sh: the units' system call filters), and what
# the systemd guest boots (systemd-boot.sh): systemd, dbus, PAM's systemd
# module for login sessions. The stock kernel's initramfs
# (scripts/stock-kernel.sh): cpio, depmod (kmod), and xz and zstd for its
# modules (busybox-static is downloaded, not installed: it conflicts with
# busybox).
vm_pkgs=(
	qemu-system-x86 bash coreutils util-linux xfsprogs e2fsprogs acl attr iproute2 bpftool
	python3 jq udev strace systemd dbus libpam-systemd cpio kmod xz-utils zstd
)

# usage: the header comment of this file.
usage() { awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0" >&2; exit 2; }

# User space build: CMake project, BPF programs compiled by clang against
# vmlinux.h, skeletons by bpftool, linked with libbpf (libelf, zlib);
# fsiter-pin uses libcap, libacl, libmount, json-c and libsmartcols.
# libc6-dev-i386: BPF programs that include libc headers (the RFC's do)
# need gnu/stubs-32.h, since the BPF target is not x86_64. shellcheck:
# tests/run.sh checks every script with it. prometheus: its promtool checks
# audit --format=prometheus (ctest metrics).
build_pkgs=(
	build-essential cmake pkg-config clang llvm libbpf-dev libelf-dev
	zlib1g-dev bpftool libc6-dev-i386 libcap-dev libacl1-dev libmount-dev
	libjson-c-dev libsmartcols-dev shellcheck prometheus
)

# Benchmarks: gnuplot draws the plots on the host; vmtouch is what
# bench/sb-guest.sh times the whole-filesystem views against (the guest
# runs the host's, over 9p), with fincore (util-linux).
bench_pkgs=(gnuplot-nox vmtouch)

pkgs=()
list_only=0
for arg in "$@"; do
	case "$arg" in
		--kernel) pkgs+=("${kernel_pkgs[@]}") ;;
		--vm) pkgs+=("${vm_pkgs[@]}") ;;
		--build) pkgs+=("${build_pkgs[@]}") ;;
		--bench) pkgs+=("${bench_pkgs[@]}") ;;
		--list) list_only=1 ;;
		-h | --help) usage ;;
		-*) echo "$prog: unknown option: $arg" >&2; usage ;;
		*) pkgs+=("$arg") ;;
	esac
done
[[ ${#pkgs[@]} -gt 0 ]] || usage

if [[ $list_only -eq 1 ]]; then
	printf '%s\n' "${pkgs[@]}" | sort -u
	exit 0
fi

missing=()
for p in "${pkgs[@]}"; do
	status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
	if [[ "$status" != installed ]]; then
		case " ${missing[*]} " in *" $p "*) ;; *) missing+=("$p") ;; esac
	fi
done

[[ ${#missing[@]} -eq 0 ]] && exit 0

echo "$prog: installing missing packages: ${missing[*]}" >&2
if [[ $(id -u) -ne 0 ]]; then
	echo "$prog: error: need root to install: ${missing[*]}" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >&2
apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
