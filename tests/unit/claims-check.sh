#!/bin/bash
# claims-check.sh FSITER_PIN FAKE_PIN DIR: apply refuses a pin directory
# whose manifest names another policy that still names it and whose pins
# are there, --dry-run too, naming both and changing nothing; not for the
# policy the manifest names, one that is gone, or once the pins are
# removed; --force takes it over; audit of a deleted policy reports the
# pins it left (text and metrics). The host's kernel lacks the series:
# apply stops at its kernel check, which comes after the refusal (the VM
# suites go on from there). In a mount namespace of its own, with a bpffs
# on /sys/fs/bpf and a tmpfs on /run, so /run/fsiter-pin is its own too.
# Needs root and unshare; 77 (skipped) otherwise.
set -u
pin=$1 fake=$2 d=$3
[[ $(id -u) == 0 ]] || { echo "claims-check.sh: skipped: needs root"; exit 77; }
if grep -aq bpf_iter_fs_inode /sys/kernel/btf/vmlinux 2>/dev/null; then
	echo "claims-check.sh: skipped: this kernel has the series (the VM suites test it)"
	exit 77
fi
if [[ -z ${CLAIMS_NS:-} ]]; then
	CLAIMS_NS=1 unshare -m --propagation private "$0" "$@"
	rc=$?
	[[ $rc != 99 ]] || { echo "claims-check.sh: skipped: no mount namespace here"; exit 77; }
	exit $rc
fi
mount -t bpf -o mode=0700 bpf /sys/fs/bpf && mount -t tmpfs -o mode=0755 tmpfs /run ||
	exit 99
mkdir -m 0700 /run/fsiter-pin
rm -rf "$d" && mkdir -p "$d" && chmod 0755 "$d" || exit 2
shared=/sys/fs/bpf/shared
printf '# a\nset pin-dir %s\n' $shared >"$d/a.conf"
printf '# b\nset pin-dir %s\n' $shared >"$d/b.conf"
chmod 0644 "$d/a.conf" "$d/b.conf"
mkdir -m 0711 $shared && mkdir -m 0700 ${shared}_staging
"$fake" $shared/x
rc=$?
[[ $rc == 0 ]] || exit $rc
# The manifest a.conf's apply wrote.
man=/run/fsiter-pin/sys-fs-bpf-shared.json
printf '{ "pin_dir": "%s", "policy": "%s", "pins": { } }\n' $shared "$d/a.conf" >$man
chmod 0600 $man

failed=0
# expect NAME CODE REGEX CMD...: CMD exits with CODE, its output
# (newlines as spaces) matches REGEX; or NAME fails.
expect() {
	local name=$1 code=$2 regex=$3 rc
	shift 3
	out=$("$@" 2>&1)
	rc=$?
	echo "\$ ${*##*/}"
	echo "$out"
	if [[ $rc != "$code" ]] || ! tr '\n' ' ' <<<"$out" | grep -Eq -- "$regex"; then
		echo "FAIL: $name (exit $rc, want $code; want output matching: $regex)"
		failed=1
	else
		echo "ok: $name"
	fi
}
unchanged() {
	[[ $(stat -c '%u %a' $shared/x) == "2001 440" ]] ||
		{ echo "FAIL: $1: $shared/x changed"; failed=1; }
}

refused="$d/b.conf:2: pin-dir $shared belongs to $d/a.conf \\(its manifest\\); remove its pins first \\('fsiter-pin remove --pin-dir $shared --all'\\), or take it over with --force"
expect "apply refuses the other policy's pin-dir" 1 "$refused.* $d/b.conf: nothing was changed" \
	"$pin" apply "$d/b.conf"
unchanged "apply refused"
expect "so does --dry-run" 1 "$refused" "$pin" apply --dry-run "$d/b.conf"
unchanged "--dry-run"
expect "--force takes it over" 1 "warning: $d/b.conf:2: pin-dir $shared belongs to $d/a.conf \\(its manifest\\); taken over \\(--force\\): its 1 pin goes" \
	"$pin" apply --force "$d/b.conf"
expect "the policy the manifest names is not refused" 1 "lacks what the policy needs" "$pin" apply "$d/a.conf"
grep -q "belongs to" <<<"$out" && { echo "FAIL: a.conf was refused"; failed=1; }
mv "$d/a.conf" "$d/a.conf.old"
gone="warning: $d/a.conf: the policy is gone, and deleting it revoked nothing: the 1 pin it made in $shared still lets its readers in; 'fsiter-pin remove --pin-dir $shared --all' revokes it"
expect "audit of the deleted policy reports its pins" 1 "$gone.*orphaned +$shared/x: made by $d/a.conf, which no longer exists.*1 finding: $d/a.conf does not exist" \
	"$pin" audit "$d/a.conf"
expect "its metrics count them" 1 "fsiter_pin_audit_success\\{[^}]*\\} 1 .*kind=\"orphaned\"\\} 1 " \
	"$pin" audit --format=prometheus "$d/a.conf"
expect "nor one whose policy is gone" 1 "pin-dir $shared: its 1 pin was made by $d/a.conf, which no longer exists .*; this apply replaces it" \
	"$pin" apply "$d/b.conf"
mv "$d/a.conf.old" "$d/a.conf"
rm $shared/x
expect "nor once its pins are removed" 1 "lacks what the policy needs" "$pin" apply "$d/b.conf"
grep -q "belongs to" <<<"$out" && { echo "FAIL: refused with no pins"; failed=1; }
expect "audit of a policy never applied, nothing orphaned: missing" 2 "$d/nope.conf: No such file or directory" \
	"$pin" audit "$d/nope.conf"
exit $failed
