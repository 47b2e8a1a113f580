#!/bin/bash
# Runs scripts/checkpatch.pl --strict on every patch of both series,
# kernel/patches/6.1/series with 6.1's checkpatch and
# kernel/patches/6.12/series with 6.12's. Exits non-zero if any patch has
# an error, a warning or a check.
#
#   kernel/checkpatch.sh [6.1|6.12]...   (default: both)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
versions=("$@")
if [[ ${#versions[@]} -eq 0 ]]; then
	for v in 6.1 6.12; do
		[[ -f "$top/kernel/patches/$v/series" ]] && versions+=("$v")
	done
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
rc=0
for v in "${versions[@]}"; do
	"$top/scripts/deps.sh" "linux-source-$v" perl xz-utils >&2
	mkdir -p "$work/$v"
	tar -xJf "/usr/src/linux-source-$v.tar.xz" -C "$work/$v" --wildcards \
		--strip-components=1 '*/scripts/checkpatch.pl' \
		'*/scripts/spelling.txt' '*/scripts/const_structs.checkpatch'
	while read -r p; do
		[[ -z $p || $p == \#* ]] && continue
		# --no-signoff: the series carries no author and no sign-off,
		# which are the poster's (docs/upstream.md). FILE_PATH_CHANGES:
		# no MAINTAINERS entry names anyone who has not agreed to it.
		# UNKNOWN_COMMIT_ID: Fixes: names a mainline commit, and there
		# is no kernel history here to look it up in.
		if out=$(perl "$work/$v/scripts/checkpatch.pl" --strict --no-tree \
			--no-signoff \
			--ignore FILE_PATH_CHANGES,UNKNOWN_COMMIT_ID \
			--terse --show-types "$top/kernel/patches/$v/$p"); then
			echo "checkpatch: $v/$p: clean"
		else
			echo "checkpatch: $v/$p:"; echo "$out"; rc=1
		fi
	done <"$top/kernel/patches/$v/series"
done
exit $rc
