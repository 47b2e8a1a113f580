#!/bin/bash
# views-check.sh TOP VIEW...: the views CMake builds (read from
# src/views.def) are the views there are: one bpf/VIEW.bpf.c each, and
# nothing else in bpf/; each has its section in docs/output.md and its
# paragraph in fsiter-policy.conf(5).
set -euo pipefail
top=$1
shift
fail=0
no() { echo "$*"; fail=1; }

for v in "$@"; do
	[[ -f $top/bpf/$v.bpf.c ]] || no "view '$v': no bpf/$v.bpf.c"
	grep -qx "## \`$v\`" "$top/docs/output.md" || no "view '$v': no section in docs/output.md"
	grep -qx ".B ${v//-/\\\\-}" "$top/docs/man/fsiter-policy.conf.5" ||
		no "view '$v': not described in fsiter-policy.conf(5)"
done
for f in "$top"/bpf/*.bpf.c; do
	v=$(basename "$f" .bpf.c)
	[[ " $* " == *" $v "* ]] || no "bpf/$v.bpf.c: no row in src/views.def"
done
exit "$fail"
