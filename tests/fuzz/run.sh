#!/bin/bash
# Fuzz the policy parser with libFuzzer, ASan and UBSan.
#
#   tests/fuzz/run.sh [SECONDS]   fuzz for SECONDS (default 600); new
#                                 crashers are saved in tests/fuzz/corpus
#   tests/fuzz/run.sh --check     run every file of the corpus once (ctest)
#
# The corpus (tests/fuzz/corpus) holds the seeds and every input that ever
# crashed: --check replays them as regression tests.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=${FSITER_FUZZ_DIR:-$top/build/fuzz}
mkdir -p "$out"

src=(diag view_table policy policy_fields policy_load policy_validate)
files=()
for s in "${src[@]}"; do files+=("$top/src/$s.c"); done
clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	-D_GNU_SOURCE -I"$top/src" "$here/fuzz_policy.c" "${files[@]}" -lacl \
	-o "$out/fuzz_policy"

if [[ ${1:-} == --check ]]; then
	exec "$out/fuzz_policy" -runs=0 "$here/corpus"
fi
secs=${1:-600}
mkdir -p "$out/corpus"
# New inputs go to the scratch corpus; crashes to the kept one.
exec "$out/fuzz_policy" -max_total_time="$secs" -max_len=4096 -timeout=10 \
	-artifact_prefix="$here/corpus/crash-" -print_final_stats=1 \
	"$out/corpus" "$here/corpus"
