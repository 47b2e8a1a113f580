#!/bin/bash
# list-check.sh FSITER_PIN FAKE_PIN: list's table (libsmartcols) over two
# pins of a bpffs of its own: the columns in order under a header, -n
# without it, -o picks and orders them, -r one space apart, -J the table
# as JSON (PROG a number), an unknown column and --json with a table
# option refused with exit 2. In a mount namespace of its own. Needs root
# and unshare, and a kernel with the task iterator (fake-pin); 77
# (skipped) otherwise.
set -u
pin=$1 fake=$2
[[ $(id -u) == 0 ]] || { echo "list-check.sh: skipped: needs root"; exit 77; }
if [[ -z ${LIST_NS:-} ]]; then
	LIST_NS=1 unshare -m --propagation private "$0" "$@"
	rc=$?
	[[ $rc != 99 ]] || { echo "list-check.sh: skipped: no mount namespace here"; exit 77; }
	exit $rc
fi
mount -t bpf -o mode=0700 bpf /sys/fs/bpf && mount -t tmpfs -o mode=0755 tmpfs /run || exit 99
dir=/sys/fs/bpf/fsiter
mkdir -m 0755 $dir && mkdir -m 0700 ${dir}_staging || exit 2
for n in alpha beta; do
	"$fake" $dir/$n
	rc=$?
	[[ $rc == 0 ]] || exit $rc
done
fail=0
want() {	# want LABEL GOT WANT
	[[ $2 == "$3" ]] || { printf '%s:\n got: %s\nwant: %s\n' "$1" "$2" "$3"; fail=1; }
}

out=$("$pin" list 2>&1)
echo "$out"
want "header" "$(head -n1 <<<"$out" | xargs)" "NAME VIEW TARGET PATH OWNER GROUP MODE READERS PROG TAG"
want "a line a pin" "$(tail -n +2 <<<"$out" | awk '{ print $1, $2 }' | xargs)" "alpha inode beta inode"
want "-n: no header" "$("$pin" list -n | awk '{ print $1 }' | xargs)" "alpha beta"
want "-o, -r: the columns asked for, in that order" "$("$pin" list -r -o mode,NAME,owner | xargs)" \
	"MODE NAME OWNER 0440 alpha 2001 0440 beta 2001"
want "-r: one space apart" "$("$pin" list -r -n -o NAME,MODE | head -n1)" "alpha 0440"
out=$("$pin" list -J -o NAME,PROG,MODE)
echo "$out"
if command -v jq >/dev/null; then
	want "-J: the table as JSON" "$(jq -c '[.pins[] | [.name, (.prog | type), .mode]]' <<<"$out")" \
		'[["alpha","number","0440"],["beta","number","0440"]]'
else
	echo "note: no jq: -J's JSON not parsed"
fi
out=$("$pin" list -o NAME,BOGUS 2>&1); rc=$?
want "-o BOGUS" "$rc $(head -n1 <<<"$out")" "2 fsiter-pin: list: unknown column 'BOGUS' (list --help lists them)"
out=$("$pin" list --json -o NAME 2>&1); rc=$?
want "--json with -o" "$rc $(head -n1 <<<"$out")" \
	"2 fsiter-pin: list: --json prints every record whole: no --output, --raw, --noheadings or --table-json with it"
want "--json: the records, as before" "$("$pin" list --json | grep -c '"link_id"')" 2
exit "$fail"
