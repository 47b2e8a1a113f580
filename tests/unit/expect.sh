#!/bin/sh
# expect.sh CODE REGEX [--root-only] [--unless-btf FUNC] CMD...: run CMD;
# pass if it exits with CODE, its output (stdout and stderr, newlines
# joined) matches the extended REGEX, and it holds no raw control byte
# but newlines and tabs. Exit 77 (skipped) when not root with
# --root-only, or when the kernel's BTF has FUNC with --unless-btf.
code=$1 regex=$2
shift 2
if [ "$1" = --root-only ]; then
	shift
	[ "$(id -u)" -eq 0 ] || { echo "expect.sh: skipped: needs root"; exit 77; }
fi
if [ "$1" = --unless-btf ]; then
	if grep -aq "$2" /sys/kernel/btf/vmlinux 2>/dev/null; then
		echo "expect.sh: skipped: this kernel has $2"
		exit 77
	fi
	shift 2
fi
out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out"
flat=$(printf '%s' "$out" | tr '\n' ' ')
if [ "$rc" -ne "$code" ]; then
	echo "expect.sh: exit code $rc, want $code" >&2
	exit 1
fi
if printf '%s' "$out" | LC_ALL=C grep -q "$(printf '[\001-\010\013-\037\177]')"; then
	echo "expect.sh: a raw control byte in the output" >&2
	exit 1
fi
if ! printf '%s' "$flat" | grep -Eq -- "$regex"; then
	echo "expect.sh: output does not match: $regex" >&2
	exit 1
fi
