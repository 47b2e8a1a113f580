#!/bin/bash
# The end of tests/run.sh: the steps of a run by wall time, as a Markdown
# table (what docs/testing.md keeps of a fresh run), then a warning for
# each step that took more than a third longer than in that table.
#
#   tests/step-times.sh STEPS.TSV REFERENCE.md TOTAL_SECONDS
#
# STEPS.TSV has one line per step: verdict, seconds, name (tab-separated).
# REFERENCE.md holds the reference table between the lines
# "<!-- step-times:begin -->" and "<!-- step-times:end -->", one row per
# step: "| name | seconds |" (the rows of this script's own output). Steps
# under a minute are not compared: their time is mostly noise. It never
# fails on time; it exits non-zero only on bad arguments.
set -euo pipefail
[[ $# -eq 3 && -f $1 && $3 =~ ^[0-9]+$ ]] ||
	{ echo "usage: tests/step-times.sh STEPS.TSV REFERENCE.md TOTAL_SECONDS" >&2; exit 2; }
steps=$1 ref=$2 total=$3

echo "=== steps by wall time (the lanes run at once: they add up to more than the total)"
echo "| step | s | |"
echo "| --- | ---: | --- |"
sort -t $'\t' -k2,2nr "$steps" | awk -F '\t' '{ printf "| %s | %d | %s |\n", $3, $2, $1 }'
printf '| **total (wall)** | **%d** | |\n' "$total"

[[ -f $ref ]] || { echo "step-times: no $ref to compare with" >&2; exit 0; }
awk -F '\t' -v ref="$ref" '
	BEGIN {
		while ((getline line < ref) > 0) {
			if (line ~ /<!-- step-times:begin -->/) { in_table = 1; continue }
			if (line ~ /<!-- step-times:end -->/) break
			if (!in_table || line !~ /^\|/) continue
			n = split(line, f, "|")
			name = f[2]; secs = f[3]
			gsub(/^ +| +$/, "", name); gsub(/[ *]/, "", secs)
			if (secs ~ /^[0-9]+$/) was[name] = secs
		}
	}
	{
		if (!($3 in was)) { new[++n_new] = $3; next }
		if ($2 >= 60 && $2 * 3 > was[$3] * 4)
			printf "warning: step grew by more than a third: %s: %d s, against %d s in %s\n",
				$3, $2, was[$3], ref
	}
	END {
		for (i = 1; i <= n_new; i++)
			printf "note: step not in %s: %s\n", ref, new[i]
	}' "$steps"
