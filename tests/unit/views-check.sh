#!/bin/bash
# views-check.sh TOP VIEW...: the views CMake builds (read from
# src/views.def) are the views there are: one bpf/VIEW.bpf.c each, and
# nothing else in bpf/ but stub.bpf.c; each has its section in
# docs/output.md and its paragraph in fsiter-policy.conf(5). And the
# stubs a revoked link runs (bpf/stub.bpf.c) are one per target kind,
# each in its target's section and named as src/target_kind.c says.
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
	[[ $v == stub || " $* " == *" $v "* ]] || no "bpf/$v.bpf.c: no row in src/views.def"
done

# The stubs: in target_kind.c, each kind's row ends with its stub's name;
# in fsiter_uapi.h, each kind has its section. Both tables list the kinds
# in the order of enum view_target.
stub=$top/bpf/stub.bpf.c
mapfile -t names < <(grep -oE '_brief, "[a-z_]+" },' "$top/src/target_kind.c" | cut -d'"' -f2)
mapfile -t sections < <(grep -oE '"iter/[a-z_]+"' "$top/include/fsiter_uapi.h" | tr -d '"')
(( ${#names[@]} == 3 )) || no "src/target_kind.c: ${#names[@]} stub names, not one per target kind"
(( ${#names[@]} == ${#sections[@]} )) || no "${#names[@]} stubs for ${#sections[@]} target sections"
for i in "${!names[@]}"; do
	n=${names[$i]} sec=${sections[$i]:-}
	(( ${#n} <= 15 )) || no "stub '$n': longer than a program name (15)"
	# SEC("iter/...") on the line before the program's.
	grep -B1 -E "^int $n\(" "$stub" | grep -qxF "SEC(\"$sec\")" ||
		no "stub '$n': no program in section $sec in bpf/stub.bpf.c"
done
(( $(grep -c '^SEC("iter/' "$stub") == ${#names[@]} )) ||
	no "bpf/stub.bpf.c: programs that are not one stub per target kind"

# The README's samples of what users read: every key they show is a key
# of the views (src/view_keys.def, which fsiter-views(7) documents: a
# sample left behind by a renamed key fails here), and so is every JSON
# member of a show --json sample. Keys are the first word of a line in a
# code block (dotted, or a record's: folio, file, rest, other, top).
inblock=0 samples=0
while IFS= read -r line; do
	[[ $line == '```'* ]] && { inblock=$((!inblock)); continue; }
	((inblock)) || continue
	k=
	if [[ $line =~ ^([a-z]+(\.[a-z_]+)+)( |$) || $line =~ ^(folio|file|rest|other|top)\  ]]; then
		k=${BASH_REMATCH[1]}
	elif [[ $line =~ ^\ +\"([a-z]+)\":\ \{(.*)\} ]]; then
		# "  \"cache\": { \"cached\": 2304, ... }" of show --json
		parent=${BASH_REMATCH[1]}
		for m in $(grep -oE '"[a-z_]+":' <<<"${BASH_REMATCH[2]}" | tr -d '":'); do
			grep -qF "KEY(\"$parent.$m\"," "$top/src/view_keys.def" ||
				no "README.md: JSON sample member '$parent.$m' is not a key of the views"
			samples=$((samples + 1))
		done
	fi
	[[ -n $k ]] || continue
	samples=$((samples + 1))
	grep -qF "KEY(\"$k\"," "$top/src/view_keys.def" ||
		no "README.md: sample key '$k' is not a key of the views (src/view_keys.def)"
done <"$top/README.md"
((samples >= 10)) || no "README.md: $samples sample keys, fewer than 10: the samples moved?"
exit "$fail"
