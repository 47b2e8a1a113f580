#!/bin/bash
# The units' system call filters (SystemCallFilter= in udev/*.service) allow
# every system call fsiter-pin makes: apply (creating, replacing, removing
# pins, and mounting bpffs), watch and audit --output run under strace, and
# each call they made must be in the filter of the unit that runs them, as
# the host's systemd-analyze expands it. Runs as root inside the test VM.
# Usage: syscall-tests.sh BUILD_DIR [TEST...]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/vm/lib.sh
. "$here/lib.sh"

suite_init "$@"
top=$(cd "$here/../.." && pwd)
t=/run/sc
policy=$t/policy.conf
mkdir -p $t/prom
echo data >$t/a
echo data >$t/b
cat >$policy <<'P'
set grant-traverse others
cache  c  /run/sc/a     0444
inode  i  /run/sc/a     0440 root fsreaders g:fsreaders:r
mount  m  /run/sc/a     0444
inode  n  /run/sc/none  0444 - - - nofail
P

# calls FILE: the system calls of an strace -f log, one a line.
calls() { sed -E 's/^[0-9]+ +//; s/\(.*//' "$1" | grep -E '^[a-z_0-9]+$' | sort -u; }
# allowed UNIT: the system calls its SystemCallFilter= allows.
allowed() {
	local w
	for w in $(sed -n 's/^SystemCallFilter=//p' "$top/udev/$1"); do
		expand "$w"
	done | sort -u
}
expand() {
	local x
	case $1 in
		@*)
			for x in $(systemd-analyze syscall-filter --no-pager "$1" | sed -n 's/^    \([-@a-z_0-9]*\)$/\1/p'); do
				expand "$x"
			done ;;
		*) echo "$1" ;;
	esac
}
# check_calls UNIT LOG...: every call in the LOGs is in UNIT's filter.
# (Files, not <(...): the guest has no /dev/fd.)
check_calls() {
	local unit=$1 missing
	shift
	cat "$@" >$t/all.log
	calls $t/all.log >$t/calls
	allowed "$unit" >$t/allowed
	missing=$(comm -23 $t/calls $t/allowed | tr '\n' ' ')
	check_eq "$unit allows every call ($(wc -l <$t/calls) distinct)" "$missing" ""
}
st() { local log=$1; shift; strace -f -qq -o "$t/$log" "$@"; }

test_apply() {
	echo "== apply: create, replace, remove, and mount bpffs"
	umount /sys/fs/bpf 2>/dev/null
	check "apply, mounting bpffs" st apply1 "$tool" apply $policy
	sed -i 's|^cache  c .*|cache  c  /run/sc/b  0444|; /^mount/d' $policy
	check "apply, replacing and removing" st apply2 "$tool" apply $policy
	check "watch" st watch "$tool" watch --timeout 1 $policy
	check_calls fsiter-pin.service $t/apply1 $t/apply2
	check_calls fsiter-pin-refresh.service $t/watch
}

test_audit() {
	needs test_apply
	echo "== audit --format=prometheus --output"
	check "audit" st audit "$tool" audit --format=prometheus --output $t/prom/x.prom $policy
	check "wrote the file" test -s $t/prom/x.prom
	check_calls fsiter-pin-metrics.service $t/audit
}

run_tests
"$tool" remove --all >/dev/null
finish
