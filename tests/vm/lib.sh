# shellcheck shell=bash
# Small assertion helpers for the in-VM test scripts. Each check prints
# "ok" or "FAIL" with its name; finish prints "N passed, N failed" and
# sets the exit status.

T_PASSED=0
T_FAILED=0

# suite_init BUILD_DIR: what every in-guest suite starts with. Refuses to
# run outside the test VM; sets build, ktool (fsiter-ktool) and views (the
# directory of the compiled views).
suite_init() {
	local me
	me=$(basename "$0")
	[[ ${FSITER_IN_VM:-} == 1 ]] || { echo "$me: run me inside the test VM" >&2; exit 2; }
	[[ -n ${1:-} && -d $1 ]] || { echo "usage: $me BUILD_DIR" >&2; exit 2; }
	build=$(cd "$1" && pwd)
	ktool=$build/tests/kernel/fsiter-ktool
	views=$build/bpf
}

pass() { T_PASSED=$((T_PASSED + 1)); echo "ok: $*"; }
fail() { T_FAILED=$((T_FAILED + 1)); echo "FAIL: $*"; }

# check NAME CMD...: passes when CMD succeeds.
check() {
	local name=$1
	shift
	if "$@"; then pass "$name"; else fail "$name (command: $*)"; fi
}

# check_eq NAME ACTUAL EXPECTED
check_eq() {
	if [[ "$2" == "$3" ]]; then pass "$1 ($2)"; else fail "$1: got '$2', want '$3'"; fi
}

# check_ge NAME ACTUAL MIN
check_ge() {
	if [[ "$2" =~ ^[0-9]+$ ]] && (( $2 >= $3 )); then
		pass "$1 ($2 >= $3)"
	else
		fail "$1: got '$2', want >= $3"
	fi
}

# as USER CMD...: run CMD as USER, with USER's groups.
as() { local u=$1; shift; setpriv --reuid="$u" --regid="$u" --init-groups "$@"; }

# has PATTERN: the last command's output, in $out, has a line matching it.
has() { grep -q -- "$1" <<<"$out"; }

# field KEY: the value of the first "KEY value" line on stdin.
field() { awk -v k="$1" '$1 == k { print $2; exit }'; }

# word KEY: in a "k1 v1 k2 v2 ..." line on stdin, the value after KEY.
word() { awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) { print $(i + 1); exit } }'; }

finish() {
	echo "$T_PASSED passed, $T_FAILED failed"
	(( T_FAILED == 0 ))
}
