#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# bpftune under a real systemd: runs in a qemu guest whose PID 1 is the
# host's systemd (make test-systemd: test/vm/run-in-vm.sh --systemd).  The
# packages of make deb are installed with dpkg -i, the unit is started,
# stopped, reloaded and killed with systemctl, and the packages are purged.
# The tests run in order and build on each other, like an operator would.
#
# The tuning scenario is route_table's (see test/route_table.bats): a netns
# with net.ipv6.route.max_size 128 and 400 IPv6 routes through a gateway.

REPO="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
DEBS="$REPO/build/deb"
NS=sd-blue
DROPIN=/etc/bpftune/bpftune.conf.d/50-test.conf

setup_file() {
	[ "$(cat /proc/1/comm)" = systemd ] ||
		{ echo "# not under systemd: run with make test-systemd" >&3; return 1; }
	ls "$DEBS"/bpftune_*.deb >/dev/null || { echo "# no packages: make deb" >&3; return 1; }
}

teardown() {
	if [ -z "${BATS_TEST_COMPLETED:-}" ]; then
		journalctl -u bpftune --no-pager -n 40 -o short-monotonic 2>&1 | sed 's/^/# journal: /' >&3
		systemctl status bpftune --no-pager 2>&1 | sed 's/^/# status: /' >&3
	fi
}

max_size() {	# max_size [NS]
	if [ -n "${1:-}" ]; then
		ip netns exec "$1" cat /proc/sys/net/ipv6/route/max_size
	else
		cat /proc/sys/net/ipv6/route/max_size
	fi
}

# routed NS: a veth with a /64 in NS (- for the initial one), max_size 128,
# and 400 routes through a gateway on it
routed() {
	local ns=$1 ipn=() i
	if [ "$ns" != - ]; then
		ip netns add "$ns"
		ip -n "$ns" link set lo up
		ipn=(-n "$ns")
	fi
	ip "${ipn[@]}" link add rt0 type veth peer name rt1
	ip "${ipn[@]}" link set rt1 up
	ip "${ipn[@]}" link set rt0 up
	ip "${ipn[@]}" -6 addr add 2001:db8:ff::1/64 dev rt0 nodad
	routes "$ns" add
	if [ "$ns" = - ]; then
		sysctl -qw net.ipv6.route.max_size=128
	else
		ip netns exec "$ns" sysctl -qw net.ipv6.route.max_size=128
	fi
}

# routes NS add|del: the 400 routes through the gateway
routes() {
	local ipn=() i
	[ "$1" = - ] || ipn=(-n "$1")
	for ((i = 1; i <= 400; i++)); do
		printf 'route %s 2001:db8:%x::/64 via 2001:db8:ff::2 dev rt0\n' "$2" "$i"
	done > "$BATS_FILE_TMPDIR/routes"
	ip "${ipn[@]}" -6 -batch "$BATS_FILE_TMPDIR/routes"
}

# this run of the unit's journal (its invocation), messages only
unit_log() {
	journalctl --no-pager -o cat \
		_SYSTEMD_INVOCATION_ID="$(systemctl show -p InvocationID --value bpftune)"
}

# lookups in NS until PATTERN is in this run's journal
lookups_until() {
	local ns=$1 pattern=$2 i ipn=()
	[ "$ns" = - ] || ipn=(-n "$ns")
	for ((i = 0; i < 300; i++)); do
		unit_log | grep -qE -- "$pattern" && return 0
		ip "${ipn[@]}" -6 route get 2001:db8:ff::2 >/dev/null
		sleep 0.2
	done
	return 1
}

# until the unit's main process is a new one, active: the restart after a crash
wait_restarted() {	# wait_restarted OLD_PID
	local i pid
	for ((i = 0; i < 300; i++)); do
		pid="$(systemctl show -p MainPID --value bpftune)"
		if [ "$pid" != 0 ] && [ "$pid" != "$1" ] &&
		   [ "$(systemctl is-active bpftune)" = active ]; then
			return 0
		fi
		sleep 0.2
	done
	return 1
}

@test "systemd: the guest's modules and kmod do not depend on where the checkout is" {
	# the checkout may be under /tmp or /home, which the unit's PrivateTmp=
	# and ProtectHome= hide: nothing a service uses may point into it
	local kver p
	kver="$(uname -r)"
	for p in "/lib/modules/$kver" "/lib/modules/$kver/modules.dep" \
		 "$(command -v modprobe)" "$(cat /proc/sys/kernel/modprobe)"; do
		echo "$p -> $(readlink -f "$p")"
		[ -e "$p" ]
		[[ "$(readlink -f "$p")" != "$REPO"/* ]]
	done
	# and a unit sandboxed like bpftune's sees them
	run systemd-run --wait --pipe --quiet -p PrivateTmp=yes -p ProtectHome=yes \
		-p ProtectSystem=strict -p PrivateMounts=yes \
		modprobe --dry-run --show-depends tcp_htcp
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *tcp_htcp.ko* ]]
}

@test "systemd: dpkg -i installs the packages; the unit is enabled and started" {
	# man-db's trigger would index every page of the host (minutes under TCG)
	rm -f /var/lib/man-db/auto-update
	run dpkg -i "$DEBS"/bpftune_*.deb "$DEBS"/libbpftune-dev_*.deb \
		"$DEBS"/bpftune-telemetry_*.deb "$DEBS"/bpftune-ship_*.deb
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(systemctl is-enabled bpftune)" = enabled ]
	[ "$(systemctl is-active bpftune)" = active ]
	# the shipper has no Redis to ship to yet: installed, not enabled, not run
	[ "$(systemctl is-enabled bpftune-ship)" = disabled ]
	run systemctl is-active bpftune-ship
	[ "$output" = inactive ]
	[ -f /usr/share/man/man8/bpftune-ship.8.gz ]
	bpftune-ship -V
	[ -f /etc/bpftune/bpftune.conf ]
	grep -qx 'rollback = yes' /etc/bpftune/bpftune.conf
	[ -f /usr/share/man/man5/bpftune.conf.5.gz ]
	[ -f /usr/share/man/man8/bpftune-tcp-buffer.8.gz ]
	bpftune-telemetry runs /var/lib/bpftune/telemetry
	pkg-config --exists bpftune
	[ -f /usr/share/doc/libbpftune-dev/examples/sample_tuner/sample_tuner.c ]
}

@test "systemd: systemctl start returns once every tuner is loaded (Type=notify)" {
	local n plugins
	plugins="$(ls /usr/lib/bpftune/*_tuner.so | wc -l)"
	systemctl stop bpftune
	systemctl start bpftune
	# no waiting: start returned, so the daemon said READY=1, which it
	# does once every tuner runs and the control socket answers
	[ "$(systemctl is-active bpftune)" = active ]
	# (the list also has the core mechanisms, kind "core": not plugins)
	[ "$(bpftune -q jtuners | python3 -c 'import json,sys; print(sum(t["kind"] == "tuner" for t in json.load(sys.stdin)["tuners"]))')" -eq "$plugins" ]
	# the journal says the same (it may get the lines a little later)
	for _ in $(seq 50); do
		unit_log | grep -q '^bpftune running with' && break
		sleep 0.2
	done
	unit_log > "$BATS_FILE_TMPDIR/start.log"
	n="$(sed -n 's/^bpftune running with \([0-9]*\) tuners$/\1/p' "$BATS_FILE_TMPDIR/start.log")"
	echo "running with $n tuners, $plugins plugins"
	[ "$n" -eq "$plugins" ]
	[ "$(grep -c '^tuner [a-z_]* started' "$BATS_FILE_TMPDIR/start.log")" -eq "$plugins" ]
	! grep -q '^tuner [a-z_]* skipped' "$BATS_FILE_TMPDIR/start.log"
	# the sandbox leaves the kernel's modules visible: tcp_conn can have bbr
	! grep -q 'this kernel has no modules to load' "$BATS_FILE_TMPDIR/start.log"
}

@test "systemd: a tuning scenario works under the unit's sandbox" {
	# set up with the daemon stopped: a write it sees is an admin's
	systemctl stop bpftune
	routed "$NS"
	systemctl start bpftune
	lookups_until "$NS" "net.ipv6.route.max_size 128 -> [0-9]+ in netns $NS "
	[ "$(max_size "$NS")" -gt 400 ]
	bpftune -q status | grep -q "netns $NS (cookie [0-9]*): [0-9]* (bpftune set [0-9]*, was 128"
	# the journal (StateDirectory) holds the original value
	grep -q "net.ipv6.route.max_size" /var/lib/bpftune/journal
}

@test "systemd: systemctl stop restores what the config says" {
	# rollback = yes (the packaged config): every original value comes back
	mkdir -p "$(dirname "$DROPIN")"
	systemctl stop bpftune
	[ "$(max_size "$NS")" -eq 128 ]
	# rollback = no: the tuned value stays
	printf '[daemon]\nrollback = no\n' > "$DROPIN"
	systemctl start bpftune
	lookups_until "$NS" "net.ipv6.route.max_size 128 -> [0-9]+ in netns $NS "
	bpftune -q config | grep -qE "^  rollback = no +; $DROPIN:2\$"
	systemctl stop bpftune
	[ "$(max_size "$NS")" -gt 128 ]
	rm -f "$DROPIN"
	ip netns exec "$NS" sysctl -qw net.ipv6.route.max_size=128
	# no routes for the next test to start from: nothing to tune yet
	routes "$NS" del
	systemctl start bpftune
}

@test "systemd: systemctl reload applies a changed config, refuses an invalid one" {
	local pid
	pid="$(systemctl show -p MainPID --value bpftune)"
	printf '[tunable net.ipv6.route.max_size]\nmax = 200\n' > "$DROPIN"
	systemctl reload bpftune
	# the reload is a signal: wait until the daemon has applied it
	for _ in $(seq 100); do
		bpftune -q config | grep -qE "^  max = 200 +; $DROPIN:2\$" && break
		sleep 0.2
	done
	bpftune -q config | grep -qE "^  max = 200 +; $DROPIN:2\$"
	# now the routes: the tuner wants 400 and more, the config says 200
	[ "$(max_size "$NS")" -eq 128 ]
	routes "$NS" add
	lookups_until "$NS" "max_size in netns $NS .*: held at the admin's max 200 \\($DROPIN:2\\)"
	[ "$(max_size "$NS")" -eq 200 ]
	[ "$(systemctl show -p MainPID --value bpftune)" = "$pid" ]
	# an invalid file: the reload fails and says where, the old config stays
	printf '[tunable net.ipv6.route.max_size]\nmax = 200\nmax = 300\n' > "$DROPIN"
	run systemctl reload bpftune
	[ "$status" -ne 0 ]
	journalctl -u bpftune --no-pager -o cat | grep -q "invalid config: $DROPIN:3: max set twice (first at line 2)"
	[ "$(systemctl is-active bpftune)" = active ]
	bpftune -q config | grep -qE "^  max = 200 +; $DROPIN:2\$"
	# the daemon itself refuses it too, when signalled directly
	kill -HUP "$pid"
	for _ in $(seq 100); do
		unit_log | grep -q "reload refused, the old config stays: $DROPIN:3" && break
		sleep 0.2
	done
	unit_log | grep -q "reload refused, the old config stays: $DROPIN:3"
	rm -f "$DROPIN"
	systemctl reload bpftune
}

@test "systemd: an invalid config at start-up fails the unit, visibly" {
	printf '[daemon]\nrate = 11\n' > "$DROPIN"
	run systemctl restart bpftune
	[ "$status" -ne 0 ]
	# what the daemon printed reaches the journal, and the status, soon
	for _ in $(seq 50); do
		run systemctl status bpftune --no-pager -n 20
		[[ "$output" == *"invalid config: $DROPIN:2: rate takes a number from 0 to 4, not '11'"* ]] && break
		sleep 0.2
	done
	echo "$output"
	[[ "$output" == *"invalid config: $DROPIN:2: rate takes a number from 0 to 4, not '11'"* ]]
	[[ "$output" == *"status=78/CONFIG"* ]]
	# no restart loop on it
	[ "$(systemctl is-active bpftune)" = failed ]
	rm -f "$DROPIN"
	systemctl reset-failed bpftune || true
	systemctl restart bpftune
	[ "$(systemctl is-active bpftune)" = active ]
}

@test "systemd: systemd-analyze security bpftune is reported" {
	local exposure
	run systemd-analyze security bpftune --no-pager
	echo "$output" | sed 's/^/# /' >&3
	exposure="$(echo "$output" | sed -n 's/.*Overall exposure level for bpftune.service: \([0-9.]*\).*/\1/p')"
	echo "exposure $exposure"
	# 5.0 before the system-call filter and the other tightening; 3.3 after
	awk -v e="$exposure" 'BEGIN { exit !(e != "" && e <= 3.5) }'
	echo "$output" | grep -q "✓ SystemCallFilter=~@mount"
	echo "$output" | grep -q "✓ SystemCallFilter=~@module"
	echo "$output" | grep -q "✓ SystemCallFilter=~@reboot"
}

@test "systemd: after a crash (SIGKILL) systemd restarts it and the journal restores" {
	local pid
	lookups_until "$NS" "net.ipv6.route.max_size 128 -> [0-9]+ in netns $NS "
	[ "$(max_size "$NS")" -gt 128 ]
	pid="$(systemctl show -p MainPID --value bpftune)"
	systemctl kill -s KILL bpftune
	wait_restarted "$pid"
	unit_log | grep -qE "journal: /var/lib/bpftune/journal holds [1-9][0-9]* values? to restore"
	# the original is back: 128, unless the new daemon has raised it
	# again since (the routes are still there: its first route event
	# sees them near the max; seen once, 13 ms after it was running)
	local i
	for ((i = 0; i < 50; i++)); do
		[ "$(max_size "$NS")" -eq 128 ] && break
		unit_log | grep -qE "max_size 128 -> [0-9]+ in netns $NS " && break
		sleep 0.2
	done
	unit_log | grep -qE "rollback: restored net.ipv6.route.max_size to 128 in netns $NS "
	[ "$(max_size "$NS")" -eq 128 ] ||
		unit_log | grep -qE "max_size 128 -> [0-9]+ in netns $NS "
	[ "$(systemctl show -p NRestarts --value bpftune)" -ge 1 ]
}

@test "systemd: dpkg --purge removes state and leaves the sysctls as they were before install" {
	local names
	# the tunables bpftune manages, while it runs
	names="$(bpftune -q jtunables | python3 -c '
import json, sys
print("\n".join(sorted({t["sysctl"] for t in json.load(sys.stdin)["tunables"]})))')"
	[ -n "$names" ]
	dpkg --purge bpftune-ship bpftune-telemetry libbpftune-dev bpftune
	ip netns exec "$NS" sysctl -qw net.ipv6.route.max_size=128
	# before install: the initial netns tuned as well (max_size 128 below
	# 400 routes), and the values of every managed tunable
	routed -
	echo "$names" | while read -r n; do sysctl -n "$n" 2>/dev/null | tr -s ' \t' ' ' | sed "s|^|$n = |"; done > "$BATS_FILE_TMPDIR/before"
	max_size "$NS" >> "$BATS_FILE_TMPDIR/before"
	dpkg -i "$DEBS"/bpftune_*.deb
	[ "$(systemctl is-active bpftune)" = active ]
	lookups_until - "net.ipv6.route.max_size 128 -> [0-9]+ in global netns"
	lookups_until "$NS" "net.ipv6.route.max_size 128 -> [0-9]+ in netns $NS "
	[ "$(max_size)" -gt 128 ]
	run dpkg --purge bpftune
	echo "$output"
	[ "$status" -eq 0 ]
	echo "$names" | while read -r n; do sysctl -n "$n" 2>/dev/null | tr -s ' \t' ' ' | sed "s|^|$n = |"; done > "$BATS_FILE_TMPDIR/after"
	max_size "$NS" >> "$BATS_FILE_TMPDIR/after"
	diff "$BATS_FILE_TMPDIR/before" "$BATS_FILE_TMPDIR/after"
	[ "$(max_size)" -eq 128 ]
	[ ! -e /var/lib/bpftune ]
	[ ! -e /etc/bpftune ]
	[ ! -e /lib/systemd/system/bpftune.service ]
	run systemctl is-enabled bpftune
	[ "$status" -ne 0 ]
	! dpkg -s bpftune >/dev/null 2>&1
}
