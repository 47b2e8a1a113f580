#!/bin/bash
# show-check.sh FSITER_PIN: "show" as an unprivileged user (nobody)
# over a pin directory of plain files: without a name, the names of those
# it may read, and no other; with one it may not read, the kernel's
# EACCES, exit 1. The directory is made in /tmp, which nobody can reach,
# and the binary copied there (a build directory may be below one it
# cannot search). Needs root (to
# become nobody): 77 otherwise.
set -uo pipefail
pin=$1
[[ $(id -u) -eq 0 ]] && command -v setpriv >/dev/null || { echo "skipped: needs root and setpriv"; exit 77; }
fail=0
dir=$(mktemp -d /tmp/fsiter-show.XXXXXX) || exit 2
trap 'rm -rf "$dir" "$dir.bin"' EXIT
chmod 0755 "$dir"
# and a copy of the binary that nobody may run, for the same reason
mkdir -m 0755 "$dir.bin" && cp "$pin" "$dir.bin/fsiter-pin" && chmod 0755 "$dir.bin/fsiter-pin" || exit 2
pin=$dir.bin/fsiter-pin
echo 'cache.cached 1' >"$dir/open" && chmod 0444 "$dir/open"
echo 'cache.cached 2' >"$dir/closed" && chmod 0400 "$dir/closed"
echo 'cache.cached 3' >"$dir/.lock" && chmod 0444 "$dir/.lock"
mkdir "$dir/sub"
as() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
as test -r "$dir/open" || { echo "skipped: nobody cannot reach $dir"; exit 77; }

got=$(as "$pin" show --pin-dir "$dir" 2>&1)
[[ $got == open ]] || { echo "list as nobody: '$got', want 'open'"; fail=1; }
got=$(as "$pin" show --pin-dir "$dir" --json 2>&1 | tr -d ' \n')
[[ $got == '["open"]' ]] || { echo "list as nobody, JSON: '$got'"; fail=1; }
got=$("$pin" show --pin-dir "$dir" 2>&1 | xargs)
[[ $got == "closed open" ]] || { echo "list as root: '$got'"; fail=1; }
got=$(as "$pin" show --pin-dir "$dir" closed 2>&1); rc=$?
[[ $rc -eq 1 && $got == "fsiter-pin: show: $dir/closed: Permission denied" ]] ||
	{ echo "closed as nobody: exit $rc, '$got'"; fail=1; }
got=$(as "$pin" show --pin-dir "$dir" --json open 2>&1 | tr -d ' \n')
[[ $got == '{"cache":{"cached":1},"pin":"open","view":null}' ]] ||
	{ echo "open as nobody, JSON: '$got'"; fail=1; }
exit "$fail"
