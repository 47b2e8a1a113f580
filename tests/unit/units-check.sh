#!/bin/bash
# units-check.sh BUILD DIR: install into DIR/root beside a copy of the
# host's systemd units, then `systemd-analyze verify` every unit we ship
# (any message fails), and `systemd-analyze security` each service, which
# must not score worse than docs/systemd.md says. Exit 77 (skipped)
# without systemd-analyze.
set -euo pipefail
build=$1 dir=$2
root=$dir/root
# The exposure scores of docs/systemd.md, times ten (--threshold).
declare -A max=([fsiter-pin.service]=41 [fsiter-pin-refresh.service]=41
	[fsiter-pin-metrics.service]=38)

command -v systemd-analyze >/dev/null ||
	{ echo "units-check.sh: skipped: no systemd-analyze"; exit 77; }
rm -rf "$root"
mkdir -p "$root/lib/systemd" "$root/etc"
cp -a /lib/systemd/system "$root/lib/systemd/"
DESTDIR=$root cmake --install "$build" --prefix /usr >/dev/null
fail=0
units=$(cd "$root/lib/systemd/system" && ls fsiter-pin*)
[[ $(wc -w <<<"$units") -eq 4 ]] || { echo "expected 4 units, got: $units"; fail=1; }
for u in $units; do
	out=$(systemd-analyze verify --man=no --root="$root" "$u" 2>&1) || fail=1
	if [[ -n $out ]]; then
		printf 'verify %s:\n%s\n' "$u" "$out"
		fail=1
	else
		echo "verify $u: ok"
	fi
done
for u in "${!max[@]}"; do
	out=$(systemd-analyze security --offline=true --root="$root" --no-pager \
		--threshold="${max[$u]}" "$u" 2>&1) || { echo "$out"; fail=1; }
	grep 'Overall exposure level' <<<"$out"
done
exit "$fail"
