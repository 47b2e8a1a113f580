#!/bin/sh
# sanitizer-reports.sh --clean DIR: empty DIR, where the sanitizers of a
# FSITER_SANITIZE build write their reports (cmake/sanitize.cmake).
# sanitizer-reports.sh DIR: print every report in DIR; fail if there is one.
if [ "$1" = --clean ]; then
	rm -rf "$2" && mkdir -p "$2"
	exit
fi
dir=$1
[ -d "$dir" ] || { echo "sanitizer-reports.sh: no $dir (did sanitizer-logs-clean run?)"; exit 1; }
n=0
for f in "$dir"/*; do
	[ -e "$f" ] || continue
	n=$((n + 1))
	echo "=== $f"
	cat "$f"
done
echo "sanitizer-reports.sh: $n report(s) in $dir"
[ "$n" -eq 0 ]
