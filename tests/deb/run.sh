#!/bin/bash
# Build the fsiter-pin Debian package from this tree, run lintian on it, and
# check what it installs and what its maintainer scripts do.
#
#   tests/deb/run.sh [KERNEL_DIR]
#
# KERNEL_DIR has the vmlinux.h of a kernel with the series (default:
# $FSITER_KERNEL_DIR, else the output of kernel/build.sh). The tree's source
# files (git ls-files: tracked and untracked, not ignored) are copied to a
# temporary directory and built there with `dpkg-buildpackage -us -uc -b`,
# so the work tree gets no build output; FSITER_DEB_DIR=DIR builds in DIR
# instead and keeps it. The last line is "N passed, N failed".
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 2

scripts/deps.sh --build dpkg-dev debhelper lintian || exit 2
kdir=${1:-${FSITER_KERNEL_DIR:-}}
if [[ -z $kdir ]]; then
	kdir=$(kernel/build.sh | tail -n1) || { echo "run.sh: kernel build failed" >&2; exit 1; }
fi
[[ -f $kdir/vmlinux.h ]] || { echo "run.sh: no vmlinux.h in '$kdir'" >&2; exit 2; }

if [[ -n ${FSITER_DEB_DIR:-} ]]; then
	work=$FSITER_DEB_DIR
	rm -rf "$work"
	mkdir -p "$work"
else
	work=$(mktemp -d /tmp/fsiter-deb.XXXXXX)
	trap 'rm -rf "$work"' EXIT
fi

passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok: $*"; }
fail() { failed=$((failed + 1)); echo "FAILED: $*"; }
# lacks REGEX FILE: no line of FILE matches REGEX.
lacks() { ! grep -q -- "$1" "$2"; }
check() {
	local what=$1
	shift
	if "$@"; then ok "$what"; else fail "$what"; fi
}

mkdir -p "$work/src"
git ls-files -z --cached --others --exclude-standard |
	tar -c --null -T - --ignore-failed-read 2>/dev/null | tar -x -C "$work/src"

echo "=== dpkg-buildpackage -us -uc -b (log: $work/build.log)"
if (cd "$work/src" && FSITER_KERNEL_DIR=$kdir nice -n 10 dpkg-buildpackage -us -uc -b) \
	>"$work/build.log" 2>&1; then
	ok "dpkg-buildpackage"
else
	tail -n 40 "$work/build.log"
	fail "dpkg-buildpackage"
	echo "$passed passed, $failed failed"
	exit 1
fi

version=$(dpkg-parsechangelog -l debian/changelog -S Version)
deb=$work/fsiter-pin_${version}_amd64.deb
changes=$work/fsiter-pin_${version}_amd64.changes
check "fsiter-pin_${version}_amd64.deb and .changes exist" test -f "$deb" -a -f "$changes"
# debian/changelog and CMake's project() give the same version.
check "debian/changelog's version is CMakeLists.txt's" \
	grep -q "^project(fsiter-pin VERSION ${version%%-*} " CMakeLists.txt

echo "=== lintian"
# The .changes file lists the .deb (and the -dbgsym one): lintian checks
# them all, and the .changes itself.
if lintian --fail-on error,warning --display-info "$changes"; then
	ok "lintian: no error, no warning"
else
	fail "lintian: errors or warnings above"
fi

echo "=== contents"
dpkg-deb -c "$deb" | awk '{ print $6 }' | sed 's|^\./|/|' >"$work/contents"
for f in /usr/sbin/fsiter-pin \
	/lib/systemd/system/fsiter-pin.service \
	/lib/systemd/system/fsiter-pin-refresh.service \
	/lib/systemd/system/fsiter-pin-metrics.service \
	/lib/systemd/system/fsiter-pin-metrics.timer \
	/lib/udev/rules.d/70-fsiter-pin.rules \
	/usr/share/man/man8/fsiter-pin.8.gz \
	/usr/share/man/man5/fsiter-policy.conf.5.gz \
	/usr/share/man/man7/fsiter-views.7.gz \
	/usr/share/bash-completion/completions/fsiter-pin \
	/usr/share/doc/fsiter-pin/examples/example.conf \
	/usr/share/doc/fsiter-pin/copyright \
	/usr/share/doc/fsiter-pin/changelog.gz \
	/usr/share/doc/fsiter-pin/NEWS.Debian.gz \
	/usr/share/doc/fsiter-pin/README.md.gz \
	/usr/share/doc/fsiter-pin/security.md.gz \
	/etc/fsiter/policy.d/; do
	check "installs $f" grep -qxF "$f" "$work/contents"
done
# The example is documentation, not a file in /etc; the package ships no
# policy, so the service does nothing until the administrator writes one.
check "no policy in /etc/fsiter" lacks '^/etc/fsiter/.*\.conf$' "$work/contents"

mkdir -p "$work/x" "$work/ctl"
dpkg-deb -x "$deb" "$work/x"
dpkg-deb -e "$deb" "$work/ctl"
"$work/x/usr/sbin/fsiter-pin" --version >"$work/version" 2>&1
check "the binary runs and says its version" grep -q "^fsiter-pin ${version%%-*}" "$work/version"
check "the example policy is the tree's" cmp -s policy/example.conf "$work/x/usr/share/doc/fsiter-pin/examples/example.conf"
check "the units start /usr/sbin/fsiter-pin" \
	grep -q '^ExecStart=/usr/sbin/fsiter-pin apply /etc/fsiter/policy.conf$' \
	"$work/x/lib/systemd/system/fsiter-pin.service"

echo "=== maintainer scripts"
# dh_installsystemd: fsiter-pin.service and the metrics timer are enabled
# and started; the metrics service, started by the timer, is neither; the
# refresh service, started by udev, is neither, but is stopped on upgrade
# (preinst) and on removal (debian/fsiter-pin.prerm).
check "postinst enables fsiter-pin.service" \
	grep -q "deb-systemd-helper unmask 'fsiter-pin.service'" "$work/ctl/postinst"
check "postinst starts fsiter-pin.service" \
	grep -q "deb-systemd-invoke \$_dh_action .*'fsiter-pin.service'" "$work/ctl/postinst"
check "postinst neither enables nor starts fsiter-pin-refresh.service" \
	lacks fsiter-pin-refresh "$work/ctl/postinst"
check "postinst enables and starts fsiter-pin-metrics.timer" \
	grep -q "deb-systemd-invoke \$_dh_action .*'fsiter-pin-metrics.timer'" "$work/ctl/postinst"
check "postinst neither enables nor starts fsiter-pin-metrics.service" \
	lacks "fsiter-pin-metrics.service" "$work/ctl/postinst"
check "preinst stops fsiter-pin-refresh.service on upgrade" \
	grep -q "deb-systemd-invoke stop .*'fsiter-pin-refresh.service'" "$work/ctl/preinst"
check "prerm stops fsiter-pin-refresh.service on removal" \
	grep -q "deb-systemd-invoke stop 'fsiter-pin-refresh.service'" "$work/ctl/prerm"

echo "$passed passed, $failed failed"
((failed == 0))
