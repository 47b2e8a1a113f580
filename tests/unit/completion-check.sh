#!/bin/bash
# completion-check.sh FSITER_PIN COMPLETION: the bash completion offers
# every command and every option that FSITER_PIN's help lists; the help is
# made from the table of commands (src/commands.h).
set -euo pipefail
pin=$1 completion=$2
fail=0

# The words of a compgen -W list in the completion: all of them, joined.
offered=$(tr '\n\t' '  ' <"$completion" | grep -o "compgen -W '[^']*'" |
	sed "s/compgen -W '//; s/'$//" | tr -s ' ' '\n')
offered+=$'\n'$(grep -oE '^[[:space:]]+[a-z |-]+\) cmd=' "$completion" | tr -d ' \t)' |
	sed 's/cmd=//' | tr '|' '\n')

want() {
	grep -qx -- "$1" <<<"$offered" || { echo "completion lacks '$1' ($2)"; fail=1; }
}

commands=$("$pin" --help | awk '/^ fsiter-pin \[-v\] / { print $3 }')
[[ -n $commands ]] || { echo "no commands in '$pin --help'"; exit 1; }
for c in $commands; do
	want "$c" command
	for o in $("$pin" "$c" --help | awk '/^Options:/ { on = 1; next } on { print $1 }'); do
		want "$o" "option of $c"
	done
done
for o in $("$pin" --help | awk '/^Options:/ { on = 1; next } on && /^ -/ { print $1, $2 }' | tr -d ,); do
	want "$o" "global option"
done
exit "$fail"
