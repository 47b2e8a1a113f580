# shellcheck shell=bash
# What every in-guest suite shares: its preamble (suite_init), how its
# tests run (run_tests, needs), and small assertion helpers. Each check
# prints "ok" or "FAIL" with its name; finish prints "N passed, N failed"
# and sets the exit status.
#
# A suite is a set of test_* functions, run in the order the file defines
# them, or only those named after BUILD_DIR:
#   tests/vm/run-vm.sh --kernel-dir K -- tests/vm/audit-tests.sh BUILD test_drift
# A test that needs what another one leaves behind (pins, mounts) starts
# with `needs test_other`, which runs that one first unless it ran already.
#
# A suite runs on after a failed check, on purpose: there is no set -e,
# and a check only counts. One boot of the VM takes minutes under TCG, so
# a run should report every check that fails, not just the first; each
# test sets up what it relies on, so a failure does not hide the checks
# after it.

T_PASSED=0
T_FAILED=0
T_ONLY=()
declare -A T_RAN=()

# suite_init BUILD_DIR [TEST...]: refuses to run outside the test VM; sets
# build, tool (fsiter-pin), ktool (fsiter-ktool), views (the directory of
# the compiled views), pins (the default pin directory), kbpftool (the
# bpftool that kernel/build.sh built from the patched tree, next to the
# booted kernel; empty if there is none), and the tests to run.
# shellcheck disable=SC2034  # the suites use what this sets
suite_init() {
	local me
	me=$(basename "$0")
	[[ ${FSITER_IN_VM:-} == 1 ]] || { echo "$me: run me inside the test VM" >&2; exit 2; }
	[[ -n ${1:-} && -d $1 ]] || { echo "usage: $me BUILD_DIR [TEST...]" >&2; exit 2; }
	build=$(cd "$1" && pwd)
	shift
	T_ONLY=("$@")
	tool=$build/src/fsiter-pin
	ktool=$build/tests/kernel/fsiter-ktool
	views=$build/bpf
	pins=/sys/fs/bpf/fsiter
	kbpftool=
	[[ ! -x ${FSITER_VM_KERNEL_DIR:-}/bpftool ]] || kbpftool=$FSITER_VM_KERNEL_DIR/bpftool
}

# needs TEST: run TEST now, unless it ran already.
needs() {
	[[ -z ${T_RAN[$1]:-} ]] || return 0
	T_RAN[$1]=1
	echo "=== $1"
	"$1"
}

# run_tests: run the suite's tests, all or those named.
run_tests() {
	# Locals are seen by the tests it calls (dynamic scope): names no test uses.
	local _test _tests
	# (A here-string: the guest has no /dev/fd for a process substitution.)
	mapfile -t _tests <<<"$(grep -oE '^test_[A-Za-z0-9_]+\(\)' "$0" | tr -d '()')"
	[[ -n ${_tests[0]} ]] || { echo "$(basename "$0"): no test_* functions" >&2; exit 2; }
	for _test in "${T_ONLY[@]}"; do
		[[ " ${_tests[*]} " == *" $_test "* ]] && continue
		echo "$(basename "$0"): no test '$_test'; there are: ${_tests[*]}" >&2
		exit 2
	done
	(( ${#T_ONLY[@]} == 0 )) || _tests=("${T_ONLY[@]}")
	for _test in "${_tests[@]}"; do
		needs "$_test"
	done
}

pass() { T_PASSED=$((T_PASSED + 1)); echo "ok: $*"; }
fail() { T_FAILED=$((T_FAILED + 1)); echo "FAIL: $*"; }

# check NAME CMD...: passes when CMD succeeds.
check() {
	local name=$1
	shift
	if "$@"; then pass "$name"; else fail "$name (command: $*)"; fi
}

# not CMD...: succeeds when CMD fails (check NAME not CMD...).
not() { ! "$@"; }

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
# shellcheck disable=SC2154  # out is the suite's
has() { grep -q -- "$1" <<<"$out"; }

# field KEY: the value of the first "KEY value" line on stdin.
field() { awk -v k="$1" '$1 == k { print $2; exit }'; }

# word KEY: in a "k1 v1 k2 v2 ..." line on stdin, the value after KEY.
word() { awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) { print $(i + 1); exit } }'; }

# check_killed PIN SIG: the checks of one kill_reader.
check_killed() {
	local pin=$1 sig=$2
	echo "$pin: a full read takes $full_ms ms; SIG$sig: gone after $gone_ms ms, status $rc"
	check_eq "$pin SIG$sig: killed by it" "$rc" $((128 + $(kill -l "$sig")))
	check "$pin SIG$sig: gone within 3 s ($gone_ms ms)" test "$gone_ms" -lt 3000
	if ((full_ms >= 500)); then
		check "$pin SIG$sig: gone before the walk would have ended ($gone_ms < $((full_ms / 2)) ms)" \
			test "$gone_ms" -lt $((full_ms / 2))
	else
		echo "note: a full read takes $full_ms ms: too short to tell an interrupted walk"
	fi
}

# kill_reader SIG PIN: start cat on PIN, send SIG after a quarter of a
# full read's time; sets gone_ms (signal to exit), full_ms and rc.
# A read that ended before the signal came (status 0: a loaded host made
# this one faster than the first) tested nothing: it is tried again with
# a shorter delay, twice at most; the checks of check_killed stay as they are.
kill_reader() {
	local sig=$1 pin=$2 t0 pid delay try
	# $EPOCHREALTIME, not date(1): a fork under a loaded TCG guest can
	# take longer than the kill it would time.
	t0=${EPOCHREALTIME/[.,]/}
	cat "$pin" >/dev/null
	full_ms=$(((${EPOCHREALTIME/[.,]/} - t0) / 1000))
	delay=$((full_ms / 4))
	for try in 1 2 3; do
		# (An asynchronous command of a script ignores SIGINT: restore it.)
		python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execvp("cat", ["cat", sys.argv[1]])' "$pin" >/dev/null &
		pid=$!
		# The signal is for cat in its read, not for python starting
		# (slow under TCG, and with SIGINT still ignored): wait for the exec.
		for _ in $(seq 1 100); do
			[[ $(cat /proc/$pid/comm 2>/dev/null) != cat ]] || break
			sleep 0.05
		done
		sleep "$(awk -v m="$delay" 'BEGIN { printf "%.3f", m / 1000 }')"
		kill_timed "$sig" $pid
		((rc == 0)) || return 0
		echo "note: try $try: the read ended before SIG$sig ($delay ms): again, sooner"
		delay=$((delay / 4))
	done
}

# kill_timed SIG PID: send SIG to PID, a child of this shell, and wait for
# it; sets rc (its exit status) and gone_ms (signal to exit). A watchdog
# ends, after 30 s, a process that the signal did not stop: gone_ms is
# then 99999.
kill_timed() {
	local sig=$1 pid=$2 t1 t2 dog
	t1=${EPOCHREALTIME/[.,]/}
	kill -"$sig" "$pid" 2>/dev/null   # (gone already: wait gives its status)
	# wait returns as soon as the process is gone.
	( sleep 30; kill -KILL "$pid" 2>/dev/null ) &
	dog=$!
	wait "$pid"
	rc=$?
	t2=${EPOCHREALTIME/[.,]/}
	kill $dog 2>/dev/null
	wait $dog 2>/dev/null
	gone_ms=$(((t2 - t1) / 1000))
	((rc != 137)) || gone_ms=99999
}

# check_kernel_log: no warning, lockup, lockdep, KASAN or UBSAN report in
# the kernel log so far (run-vm.sh checks the whole log at the end too).
check_kernel_log() {
	local log re='WARNING:|BUG:|Oops|soft lockup|hard LOCKUP|INFO: task .* blocked|rcu: INFO:|possible recursive locking|possible circular locking|inconsistent lock state|sleeping function called from invalid context|Busy inodes after unmount|KASAN:|UBSAN:'
	log=$(dmesg | grep -E "$re")
	[[ -z $log ]] || echo "$log"
	check_eq "no warning, lockup or splat" "$(grep -c . <<<"$log")" 0
}

# cached_files DIR N: N files under DIR, 1000 a directory (dNNNN/fI),
# cached: every 1000th of 16 pages, the others of one page. Prints how
# long it took. The pages of all of them: N + (N + 999) / 1000 * 15.
cached_files() {
	local t0=$SECONDS
	python3 - "$1" "$2" <<-'PY'
	import os, sys
	top, n = sys.argv[1], int(sys.argv[2])
	buf = b"y" * (16 * 4096)
	for i in range(n):
	    if i % 1000 == 0:
	        os.mkdir("%s/d%04d" % (top, i // 1000))
	    fd = os.open("%s/d%04d/f%d" % (top, i // 1000, i), os.O_WRONLY | os.O_CREAT, 0o644)
	    os.write(fd, buf if i % 1000 == 0 else buf[:4096])
	    os.close(fd)
	PY
	echo "created $2 files in $((SECONDS - t0)) s"
}

finish() {
	echo "$T_PASSED passed, $T_FAILED failed"
	(( T_FAILED == 0 ))
}
