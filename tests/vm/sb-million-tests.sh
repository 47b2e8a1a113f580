#!/bin/bash
# The whole-filesystem views past the kernel's limit of a million objects
# in one read(): bpf_seq_read() gives up a read() that ran the program a
# million times without output with EAGAIN, and cache-summary and
# cache-top print only at the end (docs/kernel.md, "Limits").
#   - eagain: on tmpfs with 1,050,000 cached files, the first read() of
#     cache-summary fails with EAGAIN, and reading the same open file
#     again goes on from the cursor and gives the exact totals: no inode
#     lost or counted twice across the EAGAIN;
#   - top: cache-top, read the same way, names the 16-page files and its
#     named and "rest" lines add up to every file and page;
#   - kernel_log: no warning, lockup or splat.
#
# Not a step of tests/run.sh: it needs --mem 8192 (the tmpfs holds about
# 4.3 GiB) and about 10 minutes under TCG, most of it creating the files.
#   tests/vm/run-vm.sh --kernel-dir K --mem 8192 --timeout 2400 -- \
#       tests/vm/sb-million-tests.sh BUILD
# Usage: sb-million-tests.sh BUILD_DIR [TEST...]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/vm/lib.sh
. "$here/lib.sh"

suite_init "$@"
t=/run/sbm
big=$t/big
nfiles=1050000
# every 1000th file of 16 pages, the others of one page.
want_pages=$((nfiles + (nfiles + 999) / 1000 * 15))

if ! grep -qa bpf_iter_fs_sb /sys/kernel/btf/vmlinux; then
	echo "SKIP: this kernel ($(uname -r)) has no iter/fs_sb target: nothing to test"
	finish
	exit
fi

# read_again PIN OUT: read PIN to the end on one open file, reading again
# after EAGAIN; the text to OUT, "eagain N" (how many reads failed so) to
# stdout.
read_again() {
	python3 - "$1" >"$2" <<-'PY'
	import errno, os, sys
	fd = os.open(sys.argv[1], os.O_RDONLY)
	eagain, chunks = 0, []
	while True:
	    try:
	        b = os.read(fd, 65536)
	    except OSError as e:
	        if e.errno != errno.EAGAIN or eagain > 10:
	            raise
	        eagain += 1
	        continue
	    if not b:
	        break
	    chunks.append(b)
	sys.stdout.write(b"".join(chunks).decode())
	sys.stderr.write("eagain %d\n" % eagain)
	PY
}

make_files() {
	mkdir -p $t $big
	mountpoint -q $big || mount -t tmpfs -o size=5G,nr_inodes=1200k sbm $big
	cached_files $big $nfiles
	cat >$t/policy.conf <<-P
	cache-summary  m-sum  $big  0400
	cache-top      m-top  $big  0400 - - - top=5
	P
	"$tool" apply $t/policy.conf >/dev/null
}

test_eagain() {
	echo "== cache-summary over $nfiles cached inodes"
	make_files || { fail "apply on the million files"; return; }
	local out err
	# cat gives up at the first EAGAIN: what the documentation says.
	err=$(cat $pins/m-sum 2>&1 >/dev/null)
	check "cat fails with EAGAIN" grep -q "Resource temporarily unavailable" <<<"$err"
	err=$(read_again $pins/m-sum $t/sum 2>&1) || { fail "read again: $err"; return; }
	out=$(cat $t/sum)
	echo "$out"
	echo "$err"
	check "the first read() failed with EAGAIN, and the next ones went on" \
		grep -Eq "^eagain [1-9]" <<<"$err"
	check_eq "inodes, one per file, none lost or twice across EAGAIN" \
		"$(field inodes <<<"$out")" "$nfiles"
	check_eq "cached pages, as written" "$(field cached <<<"$out")" "$want_pages"
	check_eq "root observes all" "$(field observed.inodes <<<"$out")" "$nfiles"
}

test_top() {
	echo "== cache-top over $nfiles cached inodes"
	[[ -e $pins/m-top ]] || needs test_eagain
	local out err
	err=$(read_again $pins/m-top $t/top 2>&1) || { fail "read again: $err"; return; }
	out=$(cat $t/top)
	echo "$out"
	check_eq "cache-top: the 16-page files first" \
		"$(awk '$1 == "file" { print $2 }' <<<"$out" | sort -u)" 16
	check_eq "cache-top: files named + rest = every file" \
		"$(awk '$1 == "file" { n++ } $1 == "rest" { n += $2 } END { print n }' <<<"$out")" "$nfiles"
	check_eq "cache-top: pages named + rest = all pages" \
		"$(awk '$1 == "file" { n += $2 } $1 == "rest" { n += $3 } END { print n }' <<<"$out")" "$want_pages"
}

test_kernel_log() {
	echo "== the kernel log"
	check_kernel_log
}

run_tests
finish
