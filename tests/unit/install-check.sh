#!/bin/sh
# install-check.sh BUILD DESTDIR [--noviews]: cmake --install into DESTDIR,
# then check that each installed file is there, and that the units and the
# rule parse. With --noviews (a -DFSITER_BPF=OFF build), fsiter-pin, its
# man pages, completion and example policy, and no units or rule: they
# would run apply, which that build refuses.
set -eu
build=$1 dest=$2 noviews=${3:-}
rm -rf "$dest"
DESTDIR=$dest cmake --install "$build" --prefix /usr >/dev/null
fail=0
units="lib/systemd/system/fsiter-pin.service
	lib/systemd/system/fsiter-pin-refresh.service
	lib/systemd/system/fsiter-pin-metrics.service
	lib/systemd/system/fsiter-pin-metrics.timer
	lib/udev/rules.d/70-fsiter-pin.rules"
files="usr/sbin/fsiter-pin usr/share/man/man8/fsiter-pin.8
	usr/share/man/man5/fsiter-policy.conf.5 usr/share/man/man7/fsiter-views.7
	etc/fsiter/example.conf
	usr/share/bash-completion/completions/fsiter-pin"
[ "$noviews" = --noviews ] || files="$files $units"
for f in $files; do
	if [ -e "$dest/$f" ]; then echo "installed: /$f"; else echo "MISSING: /$f"; fail=1; fi
done
[ -d "$dest/etc/fsiter/policy.d" ] || { echo "MISSING: /etc/fsiter/policy.d"; fail=1; }
"$dest/usr/sbin/fsiter-pin" --version | grep -q '^fsiter-pin [0-9]' || fail=1
if [ "$noviews" = --noviews ]; then
	for f in $units; do
		[ ! -e "$dest/$f" ] || { echo "installed, but no use without the views: /$f"; fail=1; }
	done
	"$dest/usr/sbin/fsiter-pin" --version | grep -q 'without the views' || fail=1
	bash -n "$dest/usr/share/bash-completion/completions/fsiter-pin" || fail=1
	exit $fail
fi
# The units' commands are the installed binary.
grep -q '^ExecStart=/usr/sbin/fsiter-pin apply /etc/fsiter/policy.conf$' \
	"$dest/lib/systemd/system/fsiter-pin.service" || { echo "bad ExecStart"; fail=1; }
if command -v systemd-analyze >/dev/null; then
	systemd-analyze verify --man=no "$dest/lib/systemd/system/fsiter-pin.service" 2>&1 |
		grep -v 'Command /usr/sbin/fsiter-pin is not executable\|not found' || true
fi
bash -n "$dest/usr/share/bash-completion/completions/fsiter-pin" || fail=1
exit $fail
