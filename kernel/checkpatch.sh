#!/bin/bash
# Runs scripts/checkpatch.pl --strict, from Debian's linux-source-6.1, on
# every patch of kernel/patches/series. Exits non-zero if any patch has an
# error, a warning or a check.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/deps.sh" linux-source-6.1 perl xz-utils >&2
tarball=/usr/src/linux-source-6.1.tar.xz
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tar -xJf "$tarball" -C "$work" --wildcards --strip-components=1 \
	'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' \
	'*/scripts/const_structs.checkpatch'
rc=0
while read -r p; do
	[[ -z $p || $p == \#* ]] && continue
	if out=$(perl "$work/scripts/checkpatch.pl" --strict --no-tree --terse \
		--show-types "$top/kernel/patches/$p"); then
		echo "checkpatch: $p: clean"
	else
		echo "checkpatch: $p:"; echo "$out"; rc=1
	fi
done <"$top/kernel/patches/series"
exit $rc
