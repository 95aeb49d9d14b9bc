#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# bpftune-ship.service under a real systemd (make test-systemd: a qemu
# guest whose PID 1 is systemd): the packages of make deb installed, the
# daemon's run file shipped by the unit, in its sandbox, to a redis-server
# on 127.0.0.1 (a transient unit of the test's, AOF on, an ACL user);
# Redis killed and restarted, the shipper SIGKILLed and restarted by
# systemd; the dump equals the daemon's file.  The tests run in order and
# build on each other, like an operator would.

REPO="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
DEBS="$REPO/build/deb"
TEL=/var/lib/bpftune/telemetry
STATE="$BATS_RUN_TMPDIR/redis"
PORT_FILE="$BATS_RUN_TMPDIR/redis.port"

setup_file() {
	[ "$(cat /proc/1/comm)" = systemd ] ||
		{ echo "# not under systemd: run with make test-systemd" >&3; return 1; }
	ls "$DEBS"/bpftune-ship_*.deb >/dev/null || { echo "# no packages: make deb" >&3; return 1; }
	command -v redis-server >/dev/null || { echo "# no redis-server" >&3; return 1; }
}

teardown() {
	if [ -z "${BATS_TEST_COMPLETED:-}" ]; then
		journalctl -u bpftune-ship --no-pager -n 40 -o short-monotonic 2>&1 | sed 's/^/# ship: /' >&3
		systemctl status bpftune-ship --no-pager 2>&1 | sed 's/^/# status: /' >&3
	fi
}

port() {
	cat "$PORT_FILE"
}

rcli() {
	redis-cli -p "$(port)" "$@"
}

# the test's redis-server as a transient unit, on the port of the first start
start_redis() {
	local i
	[ -f "$PORT_FILE" ] || python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' > "$PORT_FILE"
	mkdir -p "$STATE"
	# the shipper's ACL user in the configuration, as an operator keeps it
	# (ACL SETUSER alone would not survive the restart)
	printf '%s\n' "bind 127.0.0.1" "port $(port)" "dir $STATE" "appendonly yes" \
		"appendfsync everysec" 'save ""' "daemonize no" "logfile $STATE/log" \
		"user ship on >s3cret-pw resetkeys ~bpftune:* -@all +ping +xadd +eval +hset +hsetnx +hget +hmget +hincrby +zadd" \
		> "$STATE/redis.conf"
	systemd-run --unit fleet-redis --collect -q redis-server "$STATE/redis.conf"
	until_true 180 '[ "$(rcli ping 2>/dev/null)" = PONG ]' && return 0
	cat "$STATE/log" >&3
	return 1
}

# this run of the shipper's unit, messages only
ship_log() {
	journalctl --no-pager -o cat \
		_SYSTEMD_INVOCATION_ID="$(systemctl show -p InvocationID --value bpftune-ship)"
}

# until SECONDS 'CONDITION': evaluated until true, for at most SECONDS of
# wall-clock time (TCG makes every command slow: a count of tries is not)
until_true() {
	local end=$((SECONDS + $1))
	shift
	echo "# $(date +%T) waiting for: $*" >&3
	while [ "$SECONDS" -lt "$end" ]; do
		eval "$*" && return 0
		sleep 0.5
	done
	echo "# $(date +%T) timed out" >&3
	return 1
}

# ship_log_until PATTERN [SECONDS]
ship_log_until() {
	WANT="$1"
	until_true "${2:-180}" 'ship_log | grep -qE -- "$WANT"'
}

# the host the daemon writes as, once the shipper has told Redis
host_key() {
	rcli --scan --pattern 'bpftune:{*}:host' | head -1
}

acked() {	# rows of TABLE Redis acknowledged
	rcli hget "$(host_key)" "rows.$1"
}

@test "ship: dpkg -i installs bpftune-ship; its unit is there, not enabled, not started" {
	rm -f /var/lib/man-db/auto-update
	run dpkg -i "$DEBS"/bpftune_*.deb "$DEBS"/bpftune-telemetry_*.deb "$DEBS"/bpftune-ship_*.deb
	echo "$output"
	[ "$status" -eq 0 ]
	[ -x /usr/sbin/bpftune-ship ]
	[ -f /usr/share/man/man8/bpftune-ship.8.gz ]
	! dpkg -S /usr/share/man/man8/bpftune-ship.8.gz | grep -q '^bpftune:'
	[ "$(systemctl is-enabled bpftune-ship)" = disabled ]
	run systemctl is-active bpftune-ship
	[ "$output" = inactive ]
	[ "$(systemctl is-active bpftune)" = active ]
	run systemd-analyze verify /lib/systemd/system/bpftune-ship.service
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "ship: enabled with its URL in ship.env, it ships the daemon's live run file" {
	local n pid
	start_redis
	umask 077
	printf 'BPFTUNE_REDIS=redis://ship:s3cret-pw@127.0.0.1:%s\nBPFTUNE_SHIP_OPTS=--interval 200\n' \
		"$(port)" > /etc/bpftune/ship.env
	systemctl enable --now bpftune-ship
	[ "$(systemctl is-active bpftune-ship)" = active ]
	ship_log_until "redis redis://ship:\*\*\*@127.0.0.1:$(port)/0: connected"
	until_true 180 '[ -n "$(host_key)" ] && [ "$(acked samples_system)" -ge 3 ] 2>/dev/null'
	# the daemon still writes it: shipped as it grows, not final
	n="$(acked samples_system)"
	until_true 180 '[ "$(acked samples_system)" -ge $((n + 3)) ]'
	# no capability at all, and the password is nowhere to be seen
	pid="$(systemctl show -p MainPID --value bpftune-ship)"
	grep -q '^CapEff:	0000000000000000$' "/proc/$pid/status"
	! tr '\0' ' ' < "/proc/$pid/cmdline" | grep -q s3cret
	! systemctl show bpftune-ship | grep -q s3cret
	! ship_log | grep -q s3cret
}

@test "ship: Redis killed and restarted, the shipper SIGKILLed: systemd restarts it, it resumes" {
	local pid p before
	systemctl kill -s KILL fleet-redis
	ship_log_until "cannot connect|connection lost|Connection reset|Server closed|Broken pipe"
	[ "$(systemctl is-active bpftune-ship)" = active ]
	start_redis
	before="$(acked samples_system)"
	until_true 300 '[ "$(acked samples_system)" -gt "$before" ]'
	pid="$(systemctl show -p MainPID --value bpftune-ship)"
	systemctl kill -s KILL bpftune-ship
	until_true 120 'p="$(systemctl show -p MainPID --value bpftune-ship)";
		[ "$p" != 0 ] && [ "$p" != "$pid" ] && [ "$(systemctl is-active bpftune-ship)" = active ]'
	[ "$(systemctl show -p NRestarts --value bpftune-ship)" -ge 1 ]
	# the watermarks in its StateDirectory survived
	ls /var/lib/bpftune-ship/ | grep -q .
	ship_log_until "connected"
}

@test "ship: the daemon stopped, its run shipped whole: fleet dump equals the file" {
	local f n=0 out="$BATS_RUN_TMPDIR/dump"
	systemctl stop bpftune
	ls -l "$TEL" | sed 's/^/# /' >&3
	# every run file of the daemon (each start makes one) done in Redis
	for f in "$TEL"/*.db; do
		RUN="$(sqlite3 -readonly "$f" "SELECT value FROM meta WHERE key = 'run_id'")"
		until_true 180 '[ "$(rcli hget "$(host_key | sed "s/:host\$/:run:$RUN/")" done)" = 1 ]'
		n=$((n + 1))
	done
	journalctl -u bpftune-ship -o cat --no-pager | grep -E "shipped completely|not shipped" |
		sed 's/^/# /' >&3
	[ "$n" -ge 1 ]
	[ "$(rcli hget "$(host_key)" pending)" -eq 0 ]
	run bpftune-telemetry fleet dump --redis "redis://127.0.0.1:$(port)" --out "$out"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" != *"not in Redis"* ]]
	for f in "$TEL"/*.db; do
		diff <(sqlite3 -readonly "$f" .dump) <(sqlite3 -readonly "$out/$(basename "$f")" .dump)
	done
	[ "$(ls "$out"/*.db | wc -l)" -eq "$n" ]
	run bpftune-telemetry fleet hosts --redis "redis://127.0.0.1:$(port)"
	echo "$output"
	[[ "$output" == *"$(uname -r) "* ]]
}

@test "ship: systemd-analyze security rates the running unit OK or better" {
	local exposure
	run systemd-analyze security bpftune-ship --no-pager
	echo "$output" | tail -3 | sed 's/^/# /' >&3
	exposure="$(echo "$output" | sed -n 's/.*Overall exposure level for bpftune-ship.service: \([0-9.]*\).*/\1/p')"
	awk -v e="$exposure" 'BEGIN { exit !(e != "" && e < 2.5) }'
}

@test "ship: dpkg --purge bpftune-ship stops and removes the unit" {
	run dpkg --purge bpftune-ship
	echo "$output"
	[ "$status" -eq 0 ]
	[ ! -e /lib/systemd/system/bpftune-ship.service ]
	[ ! -e /usr/sbin/bpftune-ship ]
	run systemctl is-active bpftune-ship
	[ "$output" != active ]
	systemctl kill -s KILL fleet-redis || true
	dpkg --purge bpftune-telemetry bpftune
}
