#!/bin/bash
# fsiter-pin on a kernel without the series: Debian's own 6.12 kernel, as
# scripts/stock-kernel.sh makes it bootable. apply must fail at once with
# one message that names each missing piece, print no verifier dump and
# change nothing; audit must fail the same way, list must report that
# nothing is pinned; the only file a refused apply writes is the record
# of its result, for the metrics. Runs as root inside the test VM:
#   tests/vm/run-vm.sh --kernel-dir "$(scripts/stock-kernel.sh | tail -n1)" \
#       --timeout 900 -- tests/vm/stock-tests.sh BUILD_DIR [TEST...]
# The messages are matched on the pieces they name, not on the patches
# they point to.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/vm/lib.sh
. "$here/lib.sh"

suite_init "$@"
t=/run/st
policy=$t/policy.conf
example=$(cd "$here/../.." && pwd)/policy/example.conf
# "At once": apply reads the kernel's BTF and gives up; under TCG that
# takes well under a second. Every command is killed after $limit s.
limit=20

# What the policy below needs of the series, as fsiter-pin names it:
# the targets of its views (inode, cache: fs_inode; mount: fs_mnt), the
# cache view's folio walk, the link info, and ACLs for its grants.
pieces=(
	"the iter/fs_inode target"
	"the one-pass folio walk"
	"the iter/fs_mnt target"
	"link info for fs iterators"
	"POSIX ACLs in bpffs"
)
# The one message that names them all, and where the patches are.
lacks="lacks what the policy needs: "
series="of kernel/patches/6.12/ provide it"
nothing="nothing was changed"
# A verifier log, or anything else libbpf says while it loads a program.
dump_re='processed [0-9]+ insns|BEGIN PROG LOAD LOG|^R[0-9]+[ _=]|^[0-9]+: \([0-9a-f]{2}\)|^libbpf: '

mkdir -p $t
echo data >$t/file
chown fsa:fsa $t/file
cat >$policy <<'P'
set grant-traverse yes
cache  c-file  /run/st/file  0440  root  fsreaders
inode  i-file  /run/st/file  0400  root  root  g:fsreaders:r
mount  m-run   /run/st       0400  root  root  u:fsb:r,g:fsreaders:r
P

# fsiter ARGS...: run fsiter-pin, bounded by $limit s; sets rc, ms (its wall
# time), stdout and stderr, and out (both, for `has`).
fsiter() {
	local t0=${EPOCHREALTIME/./}
	timeout "$limit" "$tool" "$@" >$t/stdout 2>$t/stderr
	rc=$?
	ms=$(( (${EPOCHREALTIME/./} - t0) / 1000 ))
	stdout=$(<$t/stdout)
	stderr=$(<$t/stderr)
	out=$(cat $t/stdout $t/stderr)
	echo "\$ fsiter-pin $* (exit $rc, ${ms} ms)"
	echo "$out"
}
# once PHRASE: exactly one line of $out has PHRASE.
once() { [[ $(grep -cF -- "$1" <<<"$out") == 1 ]]; }
# state: what an apply could change. The record of the last apply, which
# a refused apply writes for the metrics, is checked on its own.
state() {
	stat -c '%a %U:%G' /sys/fs/bpf
	find /sys/fs/bpf -mindepth 1 2>&1
	find /run/fsiter-pin -mindepth 1 ! -name '*.last-apply' 2>/dev/null
}
record=/run/fsiter-pin/run-st-policy.conf.last-apply
# failed_record: the last apply of $policy is recorded, and as failed.
failed_record() {
	[[ $(jq -r '.policy, (.result < 0)' $record) == "$policy"$'\n'true ]]
}
# one_line N: the first N pieces are all named in the one line that says
# what the kernel lacks, which also names this kernel's series.
one_line() {
	local line p
	line=$(grep -F -- "$lacks" <<<"$out") || return 1
	[[ $(wc -l <<<"$line") == 1 && $line == *"$series"* ]] || return 1
	for p in "${pieces[@]:0:$1}"; do
		[[ $line == *"$p"* ]] || return 1
	done
}
# last_is PHRASE: the last line of stderr ends with PHRASE.
last_is() { [[ $(tail -n1 <<<"$stderr") == *"$1" ]]; }
# unchanged BEFORE: state is still BEFORE.
unchanged() { [[ $(state) == "$1" ]]; }
no_dump() { ! grep -Eq -- "$dump_re" <<<"$out"; }
# one_message: stderr is fsiter-pin's alone: each line starts with
# "fsiter-pin: " (or continues the one before, indented).
one_message() { ! grep -Evq '^(fsiter-pin: |[[:space:]])' <<<"$stderr"; }

# refused WHAT: the checks on a refused apply, whose output is in $out.
refused() {
	local p
	check_eq "$1: exit status" "$rc" 1
	check "$1: at once (${ms} ms, limit ${limit} s)" test "$ms" -lt $((limit * 1000))
	for p in "${pieces[@]}"; do
		check "$1: names \"$p\" once" once "$p"
	done
	check "$1: all of them in one line, with this kernel's series" one_line ${#pieces[@]}
	check "$1: \"$nothing\", once" once "$nothing"
	check "$1: \"$nothing\" comes last" last_is "$nothing"
	check "$1: one message, on stderr" one_message
	check_eq "$1: nothing on stdout" "$stdout" ""
	check "$1: no verifier dump" no_dump
}

test_stock_kernel() {
	local f
	echo "== the kernel has none of the series"
	uname -rv
	check "the kernel has BTF" test -s /sys/kernel/btf/vmlinux
	for f in bpf_iter_fs_inode bpf_iter_fs_mnt bpf_filemap_get_folios; do
		check "no $f in its BTF" bash -c "! grep -qaF $f /sys/kernel/btf/vmlinux"
	done
}

test_apply() {
	local before
	echo "== apply: refused at once, naming each missing piece"
	before=$(state)
	fsiter apply $policy
	refused "apply"
	check "apply: nothing changed in /sys/fs/bpf and /run" unchanged "$before"
	check "apply: no pin directory" test ! -e $pins
	check "apply: no work directory" test ! -e "${pins}_staging"
	check_eq "apply: /run/fsiter-pin holds the record of the last apply only" \
		"$(ls -A /run/fsiter-pin)" "${record##*/}"
	check "apply: the record says it failed" failed_record
	check_eq "apply: the record is root's alone" "$(stat -c %a $record)" 600
}

test_dry_run() {
	local before
	echo "== apply --dry-run: the same refusal"
	before=$(state)
	fsiter apply --dry-run $policy
	refused "dry run"
	check "dry run: nothing changed" unchanged "$before"
}

test_example_policy() {
	local before
	echo "== the README's example policy: the same refusal, before its paths matter"
	before=$(state)
	fsiter apply "$example"
	refused "example.conf"
	check "example.conf: nothing changed" unchanged "$before"
	check "example.conf: no pin directory" test ! -e $pins
}

test_audit() {
	local before p
	echo "== audit: cannot audit (exit 2), naming the missing targets"
	before=$(state)
	fsiter audit $policy
	check_eq "audit: exit status" "$rc" 2
	check "audit: at once (${ms} ms)" test "$ms" -lt $((limit * 1000))
	for p in "${pieces[@]:0:4}"; do
		check "audit: names \"$p\" once" once "$p"
	done
	check "audit: all of them in one line, with this kernel's series" one_line 4
	check "audit: one message, on stderr" one_message
	check_eq "audit: nothing on stdout" "$stdout" ""
	check "audit: no verifier dump" no_dump
	fsiter audit --json $policy
	check_eq "audit --json: exit status" "$rc" 2
	check_eq "audit --json: no JSON" "$stdout" ""
	fsiter audit --format=prometheus $policy
	check_eq "audit --format=prometheus: exit status" "$rc" 2
	check "audit --format=prometheus: the audit failed" \
		has '^fsiter_pin_audit_success{policy="/run/st/policy.conf"} 0$'
	check "audit --format=prometheus: the last apply failed" \
		has '^fsiter_pin_last_apply_success{policy="/run/st/policy.conf"} 0$'
	check "audit: nothing changed" unchanged "$before"
}

test_list() {
	echo "== list: nothing is pinned"
	fsiter list
	check_eq "list: exit status" "$rc" 0
	check "list: says nothing is pinned" has "^fsiter-pin: $pins: nothing is pinned$"
	check_eq "list: no table" "$stdout" ""
	fsiter list --json
	check_eq "list --json: exit status" "$rc" 0
	check_eq "list --json: no pins" "$(jq length <<<"$stdout")" 0
	check "list: no pin directory" test ! -e $pins
}

run_tests
finish
