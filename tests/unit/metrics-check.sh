#!/bin/bash
# metrics-check.sh TEST_METRICS SRC_DIR DIR: run the unit test of
# audit --format=prometheus, then check what it wrote with promtool (Debian
# package prometheus), and that every finding kind plan_findings() reports
# has its series. Exit 77 (skipped) without promtool.
set -euo pipefail
test_metrics=$1 src=$2 dir=$3
out=$dir/metrics.prom

"$test_metrics" "$out"
fail=0
for k in $(grep -oE 'say\(&?o, "[a-z-]+"' "$src/src/plan_findings.c" | sed 's/.*"\(.*\)"/\1/' | sort -u); do
	grep -q "^fsiter_pin_drift{.*,kind=\"$k\"} " "$out" ||
		{ echo "metrics-check.sh: no series for the finding kind '$k'"; fail=1; }
done
[[ $fail -eq 0 ]] || exit 1
if ! command -v promtool >/dev/null; then
	echo "metrics-check.sh: skipped: no promtool (scripts/deps.sh --build installs it)"
	exit 77
fi
promtool check metrics <"$out" || fail=1
exit "$fail"
