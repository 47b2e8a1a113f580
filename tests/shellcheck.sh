#!/bin/bash
# Runs shellcheck on every shell script of the project (the kernel series
# aside), with no error and no warning allowed. tests/run.sh runs it.
#
#   tests/shellcheck.sh
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

scripts=(.ci/run completion/fsiter-pin)
while IFS= read -r f; do
	scripts+=("$f")
done < <(find . -name '*.sh' -not -path './kernel/patches/*' -not -path './build*' | sed 's|^\./||' | sort)
# -x follows the `. lib.sh` of the VM suites (their source= directives
# are relative to the top).
exec shellcheck -x -S warning "${scripts[@]}"
