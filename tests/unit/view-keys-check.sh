#!/bin/bash
# view-keys-check.sh TOP: the keys of the views, as src/view_keys.def
# lists them (one row a key: one meaning in every view that prints it),
# are the keys fsiter-views(7) documents: each row has one entry under
# KEYS, whose ".BR KEY ... \" (VIEWS)\"" line names the row's views and no
# other, and every key there has its row. No key is the dotted prefix of
# another (show --json nests them: "cache" cannot be a value and an
# object). What the views print is checked against the rows in the VM
# (show --json refuses a key without one: tests/vm/apply-tests.sh).
set -euo pipefail
top=$1
def=$top/src/view_keys.def man=$top/docs/man/fsiter-views.7
fail=0
no() { echo "$*"; fail=1; }

declare -A vname defviews manviews
while read -r id name; do vname[$id]=$name; done < <(
	sed -n 's/^VIEW(\([A-Z_]*\), "\([a-z-]*\)".*/\1 \2/p' "$top/src/views.def")
while IFS= read -r line; do
	key=$(cut -d'"' -f2 <<<"$line")
	views=$(grep -oE 'V\([A-Z_]+\)' <<<"$line" | sed 's/V(\(.*\))/\1/' |
		while read -r id; do echo "${vname[$id]:-?$id}"; done | sort | xargs)
	[[ -z ${defviews[$key]:-} ]] || no "view_keys.def: '$key' has two rows"
	defviews[$key]=$views
done < <(grep '^KEY("' "$def")
((${#defviews[@]} >= 40)) || no "view_keys.def: only ${#defviews[@]} keys read"

# The KEYS section: ".TP" then ".BR k1 \", \" k2 \" (v1, v2)\"".
while IFS= read -r line; do
	views=$(sed -n 's/.*" (\([^"]*\))"$/\1/p' <<<"$line" | tr -d ',' | xargs -n1 | sort | xargs)
	[[ -n $views ]] || { no "fsiter-views(7): '$line': no (views)"; continue; }
	for key in $(sed 's/^\.BR //; s/"[^"]*"//g' <<<"$line"); do
		[[ -z ${manviews[$key]:-} ]] || no "fsiter-views(7): '$key' is documented twice"
		manviews[$key]=$views
	done
done < <(sed -n '/^\.SH KEYS/,/^\.SH /p' "$man" | grep -A1 '^\.TP' | grep '^\.BR ')

for key in "${!defviews[@]}"; do
	if [[ -z ${manviews[$key]:-} ]]; then
		no "key '$key': not in fsiter-views(7)"
	elif [[ ${manviews[$key]} != "${defviews[$key]}" ]]; then
		no "key '$key': fsiter-views(7) says (${manviews[$key]}), view_keys.def (${defviews[$key]})"
	fi
	for other in "${!defviews[@]}"; do
		[[ $other != "$key."* ]] || no "key '$other' nests under key '$key'"
	done
done
for key in "${!manviews[@]}"; do
	[[ -n ${defviews[$key]:-} ]] || no "fsiter-views(7): key '$key' has no row in view_keys.def"
done
exit "$fail"
