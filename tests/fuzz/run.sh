#!/bin/bash
# Fuzz the policy parser and loader with libFuzzer, ASan and UBSan.
#
#   tests/fuzz/run.sh [--target policy|dir] [SECONDS]
#        fuzz each target (both by default, one after the other) for
#        SECONDS (default 600); new crashers are saved in the target's
#        kept corpus
#   tests/fuzz/run.sh --check
#        run every file of both kept corpora once (ctest)
#
# Targets: fuzz_policy (the parser and validator on one buffer, kept
# corpus tests/fuzz/corpus) and fuzz_policy_dir (policy_load() of a file
# and drop-ins written to a temporary directory, tests/fuzz/corpus-dir).
# The kept corpora hold the seeds and every input that ever crashed:
# --check replays them as regression tests. Each target runs as one
# process, under nice -n ${FSITER_FUZZ_NICE:-15}.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=${FSITER_FUZZ_DIR:-$top/build/fuzz}
mkdir -p "$out"

check=0 targets=(policy dir)
while (($#)); do
	case $1 in
	--check) check=1 ;;
	--target) targets=("$2"); shift ;;
	*) break ;;
	esac
	shift
done
secs=${1:-600}

# fuzz_policy_dir writes its files under TMPDIR: tmpfs if there is one,
# and removed however the fuzzer ends.
base=/dev/shm
[[ -w $base ]] || base=${TMPDIR:-/tmp}
TMPDIR=$(mktemp -d "$base/fsiter-fuzz.XXXXXX")
export TMPDIR
trap 'rm -rf "$TMPDIR"' EXIT

src=(diag view_table policy policy_fields policy_load policy_validate policy_pin_dir)
files=()
for s in "${src[@]}"; do files+=("$top/src/$s.c"); done

corpus_of() { [[ $1 == policy ]] && echo "$here/corpus" || echo "$here/corpus-$1"; }
bin_of() { [[ $1 == policy ]] && echo "$out/fuzz_policy" || echo "$out/fuzz_policy_$1"; }

for t in "${targets[@]}"; do
	src_file=$here/$(basename "$(bin_of "$t")").c
	clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
		-D_GNU_SOURCE -I"$top/src" "$src_file" "${files[@]}" -lacl \
		-o "$(bin_of "$t")"
done

if ((check)); then
	for t in "${targets[@]}"; do
		"$(bin_of "$t")" -runs=0 -artifact_prefix="$out/" "$(corpus_of "$t")"
	done
	exit 0
fi
for t in "${targets[@]}"; do
	mkdir -p "$out/corpus-$t"
	# New inputs go to the scratch corpus; crashes to the kept one.
	nice -n "${FSITER_FUZZ_NICE:-15}" "$(bin_of "$t")" -max_total_time="$secs" \
		-max_len=4096 -timeout=10 \
		-artifact_prefix="$(corpus_of "$t")/crash-" -print_final_stats=1 \
		"$out/corpus-$t" "$(corpus_of "$t")"
done
