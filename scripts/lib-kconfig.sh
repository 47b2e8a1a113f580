# shellcheck shell=bash
# Kconfig helpers shared by kernel/build.sh and scripts/kernel-deb.sh.
# Source it; it defines functions only.

# check_config CONFIG FRAGMENT...: every CONFIG_X=... and "# CONFIG_X is not
# set" of the fragments (the last one wins) must be in CONFIG as asked:
# olddefconfig silently drops options whose dependencies are not met.
# Prints the dropped ones on stderr and returns 1 if there are any.
check_config() {
	local cfg=$1 line sym got
	shift
	local -A want=()
	local -a order=()
	while IFS= read -r line; do
		if [[ $line =~ ^(CONFIG_[A-Za-z0-9_]+)=.*$ || $line =~ ^#\ (CONFIG_[A-Za-z0-9_]+)\ is\ not\ set$ ]]; then
			sym=${BASH_REMATCH[1]}
			[[ -v "want[$sym]" ]] || order+=("$sym")
			want[$sym]=$line
		fi
	done < <(cat "$@")
	local -a dropped=()
	for sym in "${order[@]}"; do
		line=${want[$sym]}
		got=$(grep -E "^$sym=|^# $sym is not set\$" "$cfg" || true)
		if [[ $line == "# "* ]]; then
			[[ -z "$got" || "$got" == "$line" ]] && continue
		else
			[[ "$got" == "$line" ]] && continue
		fi
		dropped+=("  wanted: $line   got: ${got:-(absent: dependencies not met)}")
	done
	if [[ ${#dropped[@]} -gt 0 ]]; then
		printf '%s: olddefconfig did not keep these fragment options:\n' "${prog:-kconfig}" >&2
		printf '%s\n' "${dropped[@]}" >&2
		return 1
	fi
}
