#!/bin/bash
# sanitizer-canary.sh CANARY DIR MODE...: run CANARY (sanitizer_canary.c)
# with each MODE, its reports going to DIR rather than where the other
# tests' go; each must exit 66 (cmake/sanitize.cmake) and leave a report
# that names its bug: in DIR/MODE.*, or in its output (UBSan beside ASan
# writes to stderr whatever log_path says), kept in DIR/MODE.out.
set -uo pipefail
canary=$1 dir=$2
shift 2
declare -A want=([heap]='heap-buffer-overflow' [leak]='detected memory leaks'
	[ub]='signed integer overflow' [race]='data race')
rm -rf "$dir"
mkdir -p "$dir"
fail=0
for m in "$@"; do
	# Later flags win: the same options as every test, but this log_path.
	opt=":log_path=$dir/$m"
	ASAN_OPTIONS="${ASAN_OPTIONS:-}$opt" LSAN_OPTIONS="${LSAN_OPTIONS:-}$opt" \
		UBSAN_OPTIONS="${UBSAN_OPTIONS:-}$opt" TSAN_OPTIONS="${TSAN_OPTIONS:-}$opt" \
		"$canary" "$m" >"$dir/$m.out" 2>&1
	rc=$?
	if ((rc != 66)); then
		echo "sanitizer-canary.sh: $m: exit code $rc, want 66"
		fail=1
	elif ! grep -q "${want[$m]}" "$dir/$m".*; then
		echo "sanitizer-canary.sh: $m: no report saying '${want[$m]}' in $dir"
		fail=1
	else
		echo "sanitizer-canary.sh: $m: caught (${want[$m]})"
	fi
done
exit "$fail"
