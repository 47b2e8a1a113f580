#!/bin/bash
# The checks of the systemd test guest, run by fsiter-boot-test.service once
# multi-user.target is reached (tests/vm/systemd-boot.sh boots it). It asks
# the host for the disk's hot-add and hot-remove through files in the
# results share, and ends with `systemctl reboot`, whose shutdown the host
# checks on the console.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/vm/lib.sh
. "$here/lib.sh"

results=/run/fsiter-results
pins=/sys/fs/bpf/fsiter
mkdir -p $results
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 fsiter-results $results ||
	{ echo "systemd-guest.sh: no results share"; systemctl reboot; exit 1; }
exec > >(tee $results/guest.log) 2>&1

# wait_for SEC CMD...: until CMD succeeds, at most SEC seconds.
wait_for() {
	local n=$(($1 * 2))
	shift
	for ((; n > 0; n--)); do "$@" && return 0; sleep 0.5; done
	return 1
}
# ask WHAT: have the host do WHAT (hot-add, hot-remove), and wait for it.
ask() {
	echo "$1" >$results/request.tmp && mv $results/request.tmp $results/request
	wait_for 120 test -e "$results/done-$1"
}
# mono UNIT: when UNIT became active, in µs since boot.
mono() { systemctl show -P ActiveEnterTimestampMonotonic "$1"; }
# login USER CMD: CMD in a login session of USER (PAM, as at a console).
login() { local u=$1; shift; runuser -l "$u" -c "$*"; }

test_boot() {
	echo "== fsiter-pin.service at boot"
	systemctl status --no-pager -l -n 30 fsiter-pin.service fsiter-pin-refresh.service
	check_eq "fsiter-pin.service is active" "$(systemctl is-active fsiter-pin.service)" active
	check_eq "it succeeded" "$(systemctl show -P Result fsiter-pin.service)" success
	for p in hostname granted secret; do
		check "pin $p exists" test -e $pins/$p
	done
	# /srv/data is nofail: local-fs.target does not wait for it, so its pin
	# may come from fsiter-pin-refresh.service, which udev's coldplug of
	# the disk started.
	check "pin data exists once /srv/data is mounted" wait_for 120 test -e $pins/data
	local pin target
	pin=$(mono fsiter-pin.service) target=$(mono multi-user.target)
	check "active ($pin µs) before multi-user.target ($target µs)" \
		test "$pin" -gt 0 -a "$pin" -le "$target"
	check "ordered before multi-user.target" \
		grep -qw multi-user.target <<<"$(systemctl show -P Before fsiter-pin.service)"
	check "the pin on the data disk reads, after the service exited" \
		bash -c "grep -q . $pins/data"
	out=$(fsiter-pin audit /etc/fsiter/policy.conf 2>&1); echo "$out"
	check "audit is clean: the service's mounts were the system's" has "^clean: "
}

# The guest's /tmp and /var/tmp are its own: systemd-boot.sh filled a
# directory of the host's /tmp (fsiter.clutter= on the command line), and
# the boot's cleaners must neither see nor walk it.
test_scratch() {
	echo "== /tmp and /var/tmp are the guest's own"
	local d clutter='' t0 t1
	for w in $(</proc/cmdline); do
		case $w in fsiter.clutter=*) clutter=${w#*=} ;; esac
	done
	for d in /tmp /var/tmp; do
		check_eq "$d is a tmpfs" "$(findmnt -no FSTYPE "$d")" tmpfs
	done
	check "the host's clutter ($clutter) is not in the guest's /tmp" \
		test -n "$clutter" -a ! -e "$clutter"
	t0=$(systemctl show -P ExecMainStartTimestampMonotonic systemd-tmpfiles-setup.service)
	t1=$(systemctl show -P ExecMainExitTimestampMonotonic systemd-tmpfiles-setup.service)
	echo "systemd-tmpfiles-setup.service ran $(((t1 - t0) / 1000)) ms;" \
		"multi-user.target at $(($(mono multi-user.target) / 1000)) ms"
	# Over the host's /tmp, its 50,000 entries took minutes.
	check "systemd-tmpfiles-setup.service took under 30 s" \
		test "$t0" -gt 0 -a $((t1 - t0)) -lt 30000000
}

test_login() {
	echo "== users in login sessions"
	check "fsa (fsreaders) reads a granted pin" login fsa "cat $pins/granted >/dev/null"
	check "fsb is refused the granted pin" bash -c "! runuser -l fsb -c 'cat $pins/granted' 2>/dev/null"
	check "fsa is refused a root-only pin" bash -c "! runuser -l fsa -c 'cat $pins/secret' 2>/dev/null"
	check_eq "the session is a login shell" "$(login fsa 'shopt -q login_shell && echo yes')" yes
}

test_hotplug() {
	echo "== a virtio disk with XFS, hot-added and hot-removed"
	check "no pin before the disk" test ! -e $pins/hot
	local hot_since
	hot_since=$(date +%s)
	check "the host hot-added the disk" ask hot-add
	check "systemd mounts its nofail entry" wait_for 120 findmnt -n /srv/hot
	check "its pins appear" wait_for 120 test -e $pins/hot -a -e $pins/hot-mnt
	check "fsiter-pin-refresh.service was started" \
		journalctl -b -q -u fsiter-pin-refresh.service --since "@$hot_since" -g .
	local pid
	pid=$(systemctl show -P MainPID fsiter-pin-refresh.service)
	if [[ $pid -gt 0 ]]; then
		check_eq "the refresh service runs in the system's mount namespace" \
			"$(readlink /proc/"$pid"/ns/mnt)" "$(readlink /proc/1/ns/mnt)"
	fi
	check_eq "fsa reads the disk's file through its pin" \
		"$(login fsa "cat $pins/hot" | field fs.type)" xfs
	check "the host hot-removed the disk" ask hot-remove
	check "systemd unmounts it" wait_for 120 bash -c "! findmnt -n /srv/hot"
	check "its pins go" wait_for 120 test ! -e $pins/hot -a ! -e $pins/hot-mnt
	check "the others stay" test -e $pins/granted
}

# The storm's disks: LABEL=fsstormN on /srv/stormN, pinned as stormN
# (inode) and stormN-mnt (mount) by the policy.
storm=10
storm_pins() { for ((i = 1; i <= storm; i++)); do echo "storm$i"; echo "storm$i-mnt"; done | sort; }
storm_mounted() { for ((i = 1; i <= storm; i++)); do findmnt -n "/srv/storm$i" >/dev/null || return 1; done; }
storm_unmounted() { for ((i = 1; i <= storm; i++)); do ! findmnt -n "/srv/storm$i" >/dev/null || return 1; done; }
storm_pinned() { for p in $(storm_pins); do test -e "$pins/$p" || return 1; done; }
storm_unpinned() { ! compgen -G "$pins/storm*" >/dev/null; }
# Each pin is on its own disk: stormN's superblock and stormN-mnt's mount
# are those of /srv/stormN.
storm_consistent() {
	local i dev pdev point
	for ((i = 1; i <= storm; i++)); do
		dev=$(mountpoint -d "/srv/storm$i") || return 1
		pdev=$(field fs.dev <"$pins/storm$i")
		point=$(field mnt.point <"$pins/storm$i-mnt")
		[[ $pdev == "$dev" && $point == "/srv/storm$i" ]] ||
			{ echo "storm$i: /srv/storm$i is $dev, its pins say $pdev and $point"; return 1; }
	done
}
# Since $1 (epoch seconds), fsiter-pin's units said no warning or error
# (quiet_journal, below) and none of them failed.
quiet_since() {
	local out
	out=$(journalctl -b -q -o cat --since "@$1" -u fsiter-pin.service \
		-u fsiter-pin-refresh.service 2>&1)
	quiet_journal || return 1
	! systemctl is-failed -q fsiter-pin.service fsiter-pin-refresh.service
}

test_storm() {
	echo "== a hot-add storm: ten disks within 5 s, then all removed"
	local since ms
	check "no storm pin before" storm_unpinned
	ls $pins | sort >/run/pins.before
	storm_pins | sort -m - /run/pins.before >/run/pins.want
	since=$(date +%s)
	check "the host hot-added ten disks" ask storm-add
	ms=$(cat $results/done-storm-add 2>/dev/null)
	check "the ten devices were added within 5 s (${ms:-?} ms)" test "${ms:-99999}" -le 5000
	check "systemd mounts all ten" wait_for 180 storm_mounted
	check "their pins appear" wait_for 180 storm_pinned
	# The refresh service applies the policy again at each change of the
	# mount table; let it settle before checking what it left.
	sleep 5
	ls $pins | sort >/run/pins.after
	check "exactly the expected pins, no more, no less" diff /run/pins.want /run/pins.after
	check "each pin is on its own disk" storm_consistent
	out=$(fsiter-pin audit /etc/fsiter/policy.conf 2>&1); echo "$out"
	check "audit is clean" has "^clean: "
	check "no unit failed, nothing in the journal" quiet_since "$since"
	check_eq "fsa reads a pin of the storm" "$(login fsa "cat $pins/storm7" | field fs.type)" xfs
	since=$(date +%s)
	check "the host hot-removed the ten disks" ask storm-remove
	check "systemd unmounts them" wait_for 180 storm_unmounted
	check "their pins go" wait_for 180 storm_unpinned
	ls $pins | sort >/run/pins.after
	check "the others stay" diff /run/pins.before /run/pins.after
	out=$(fsiter-pin audit /etc/fsiter/policy.conf 2>&1); echo "$out"
	check "audit is clean" has "^clean: "
	check "no unit failed, nothing in the journal" quiet_since "$since"
}

test_reload() {
	echo "== systemctl reload fsiter-pin"
	echo extra >/etc/fsiter-boot/extra
	echo "inode  extra  /etc/fsiter-boot/extra  0444" >>/etc/fsiter/policy.conf
	check "reload" systemctl reload fsiter-pin.service
	check "the new entry is pinned" test -e $pins/extra
	check_eq "still active" "$(systemctl is-active fsiter-pin.service)" active
}

test_metrics() {
	echo "== fsiter-pin-metrics.service"
	local prom=/var/lib/prometheus/node-exporter/fsiter-pin.prom
	mkdir -p /var/lib/prometheus/node-exporter
	check "the timer is active" test "$(systemctl is-active fsiter-pin-metrics.timer)" = active
	check "the service runs" systemctl start fsiter-pin-metrics.service
	check "it wrote the collector's file" test -s $prom
	# It names every pin and reader: not every user's to read.
	check_eq "mode 0640" "$(stat -c %a $prom)" 640
	check "node_exporter's group may read it" bash -c "getfacl -n $prom | grep -qx 'group:$(getent group prometheus | cut -d: -f3):r--'"
	check "another user may not" bash -c "! setpriv --reuid=fsa --regid=fsa --init-groups cat $prom"
	out=$(cat $prom 2>/dev/null)
	check "audit succeeded" has '^fsiter_pin_audit_success{policy="/etc/fsiter/policy.conf"} 1$'
	check "the last apply succeeded" has '^fsiter_pin_last_apply_success{.*} 1$'
	check "no drift" bash -c "! grep -q '^fsiter_pin_drift{.*} [1-9]' $prom"
	check "fsa reads granted" has '^fsiter_pin_reader{.*pin="granted",reader="g:fsreaders"} 1$'
	if command -v promtool >/dev/null; then
		check "promtool accepts it" promtool check metrics <$prom
	fi
}

# The journal of fsiter-pin's units, in $out, has no complaint, but for
# the vanished disks: when a disk goes (the storm's ten, or the one
# hot-removed before them), the refresh service may apply while pciehp
# has removed it and systemd has not yet unmounted it; its file then
# fails (EIO on open, or the attach fails once the disk is gone), and its
# entries with it, until the next apply after the unmount
# (docs/systemd.md). Seen for the single disk too, on a loaded host
# (2026-12-07: XFS shut down at 87.10 s, EIO at 87.33 s, the unmount at
# 87.83 s). Any line that names a vanished disk's entry or path is that,
# and so is the summary that counts them: each failed entry has a line
# of its own, so one of another entry is still caught. Those lines are
# printed. (test_hotplug checks the hot disk's pins while it is there.)
vanished="'(storm[0-9]+|hot)(-mnt)?'|/srv/(storm[0-9]+|hot)[/':]|[0-9]+ entr(y|ies) failed; the others (was|were) applied"
quiet_journal() {
	local bad
	grep -E "$vanished" <<<"$out" | sed 's/^/(a vanished disk) /'
	bad=$(grep -Ev "$vanished" <<<"$out" | grep -Ei 'fsiter-pin: (warning|error)|failed|denied')
	[[ -z $bad ]] && return 0
	sed 's/^/(unexpected) /' <<<"$bad"
	return 1
}

test_journal() {
	echo "== the journal"
	out=$(journalctl -b -o cat -u fsiter-pin.service -u fsiter-pin-refresh.service \
		-u fsiter-pin-metrics.service 2>&1)
	echo "$out" | tail -n 20
	check "no error or warning from fsiter-pin" quiet_journal
	for u in fsiter-pin fsiter-pin-refresh fsiter-pin-metrics; do
		check "$u.service did not fail" test "$(systemctl is-failed $u.service)" != failed
	done
}

test_bad_policy() {
	echo "== a policy that fails leaves the unit failed, with the reason"
	local since
	cp /etc/fsiter/policy.conf /run/policy.good
	echo "inod  typo  /etc/hostname  0444" >>/etc/fsiter/policy.conf
	since=$(date +%s)
	check "restart fails" bash -c "! systemctl restart fsiter-pin.service"
	check_eq "the unit is failed" "$(systemctl is-failed fsiter-pin.service)" failed
	out=$(systemctl status --no-pager -n 20 fsiter-pin.service 2>&1); echo "$out"
	check "systemctl status says why" has "policy.conf:[0-9]*: unknown view 'inod'"
	# The journal has fsiter-pin's errors as errors (its <3> prefixes),
	# not at the default priority, info; and no prefix is left in the text.
	out=$(journalctl -q -o cat -p err --since "@$since" -u fsiter-pin.service 2>&1); echo "$out"
	check "journalctl -p err has the error" has "^fsiter-pin: /etc/fsiter/policy.conf:[0-9]*: unknown view 'inod'"
	out=$(journalctl -q -o cat -p info --since "@$since" -u fsiter-pin.service 2>&1)
	check "no priority prefix left in the journal" bash -c "! grep -q '<[0-9]>' <<<\"\$1\"" _ "$out"
	check "the pins stay" test -e $pins/granted
	cp /run/policy.good /etc/fsiter/policy.conf
	check "fixed, it starts again" systemctl restart fsiter-pin.service
	check_eq "active" "$(systemctl is-active fsiter-pin.service)" active
}

test_shutdown_setup() {
	echo "== pins on files deleted before the reboot"
	echo doomed >/srv/data/doomed
	printf '%s\n' "inode  doomed-data  /srv/data/doomed  0444" \
		"inode  doomed-root  /etc/fsiter-boot/doomed  0444" >>/etc/fsiter/policy.conf
	echo doomed >/etc/fsiter-boot/doomed
	check "applied" systemctl reload fsiter-pin.service
	check "pinned" test -e $pins/doomed-data -a -e $pins/doomed-root
	rm /srv/data/doomed /etc/fsiter-boot/doomed
	check "their pins are still there" test -e $pins/doomed-data -a -e $pins/doomed-root
}

# fsiter.tests=test_a,test_b on the kernel's command line (systemd-boot.sh
# --tests): only those, and what the shutdown's checks need.
for w in $(</proc/cmdline); do
	case $w in
		fsiter.tests=*)
			IFS=, read -r -a T_ONLY <<<"${w#*=}"
			[[ " ${T_ONLY[*]} " == *" test_shutdown_setup "* ]] || T_ONLY+=(test_shutdown_setup) ;;
	esac
done
run_tests
finish
echo $? >$results/status.tmp && mv $results/status.tmp $results/status
journalctl -b -o short-monotonic >$results/journal.txt 2>&1
sync
# systemd-shutdown logs where PID 1 does: to the kernel's log, whose info
# messages the console then prints, every one (no rate limit), for the host
# to check that / was remounted read-only.
systemctl log-target kmsg
echo on >/proc/sys/kernel/printk_devkmsg
echo 7 >/proc/sys/kernel/printk
# (The host looks for this line on the console, where the service's own
# output does not go: to the kernel's log.)
echo "======== fsiter-sd: rebooting" | tee /dev/kmsg
systemctl reboot
