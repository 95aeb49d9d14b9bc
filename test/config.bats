#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# The config file (bpftune.conf(5)): admin bounds, touch = no, netns scope,
# SIGHUP with a valid and an invalid file, -q config and its sources, the
# command line over the file, and an invalid file at start-up.  The
# route_table tuner is the vehicle: net.ipv6.route.max_size is per netns
# and grows as soon as a netns has more IPv6 routes than it (see
# route_table.bats).

load helpers

setup() {
	[ -r /proc/sys/net/ipv6/route/max_size ] || skip "no IPv6 on this kernel"
	make_plugin_dir sample route_table
	CONF="$BATS_TEST_TMPDIR/bpftune.conf"
	SOCK="$BATS_TEST_TMPDIR/bpftune.sock"
	: > "$CONF"
}

teardown() {
	if [ -z "${BATS_TEST_COMPLETED:-}" ] && [ -n "${LOG:-}" ] && [ -f "$LOG" ]; then
		grep -E "config|route_table|error|warning" "$LOG" | tail -40 | sed 's/^/# log: /' >&3
	fi
	common_teardown
	[ -z "${RUN_DIR:-}" ] || rm -rf "$RUN_DIR"
}

max_size_in() {
	ip netns exec "$1" cat /proc/sys/net/ipv6/route/max_size
}

# a netns with max_size 128, a veth with a /64 and COUNT routes through it
routed_netns() {
	local ns
	ns="$(make_netns)"
	ip -n "$ns" link add rt0 type veth peer name rt1
	ip -n "$ns" link set rt1 up
	ip -n "$ns" link set rt0 up
	ip -n "$ns" -6 addr add 2001:db8:ff::1/64 dev rt0 nodad
	ip netns exec "$ns" sysctl -qw net.ipv6.route.max_size=128
	echo "$ns"
}

add_routes() {	# add_routes NS COUNT
	local i
	for ((i = 1; i <= $2; i++)); do
		printf 'route add 2001:db8:%x::/64 via 2001:db8:ff::2 dev rt0\n' "$i"
	done > "$BATS_TEST_TMPDIR/routes.$1"
	ip -force -n "$1" -6 -batch "$BATS_TEST_TMPDIR/routes.$1" 2>/dev/null || true
}

# lookups in each NS until CHECK (a command) succeeds
lookups_until_check() {
	local check="$1" i ns
	shift
	for ((i = 0; i < 300; i++)); do
		eval "$check" && return 0
		for ns in "$@"; do
			ip -n "$ns" -6 route get 2001:db8:ff::2 >/dev/null
		done
		sleep 0.1
	done
	return 1
}

# lookups in each NS until PATTERN is in the log
lookups_until() {
	local pattern="$1"
	shift
	lookups_until_check 'grep -qE -- "$pattern" "$LOG"' "$@"
}

# -q status counts at least N writes held at a bound (or refused)
status_count_at_least() {	# status_count_at_least N held|refused
	local n
	n="$(query status | sed -n "s/.*admin config:.*; \([0-9]*\) writes\{0,1\} held at a bound, \([0-9]*\) refused/\1 \2/p" | head -n 1)"
	[ -n "$n" ] || return 1
	if [ "$2" = held ]; then n="${n% *}"; else n="${n#* }"; fi
	[ "$n" -ge "$1" ]
}

start() {
	start_daemon --config "$CONF" --socket "$SOCK" "$@"
}

query() {
	"$BPFTUNE" --socket "$SOCK" -q "$@"
}

@test "config: a tuner stops at the admin's max and says so once: log, decision row, -q status" {
	local ns db
	cat > "$CONF" <<-EOF
	[tunable net.ipv6.route.max_size]
	max = 200        ; well below the built-in cap
	EOF
	ns="$(routed_netns)"
	add_routes "$ns" 400
	start
	lookups_until "route_table: net.ipv6.route.max_size in netns $ns \(cookie [0-9]+\): held at the admin's max 200 \($CONF:2\): wanted [0-9]+; said once" "$ns"
	[ "$(max_size_in "$ns")" -eq 200 ]
	# it keeps wanting more: held (counted), not said again
	lookups_until_check "status_count_at_least 3 held" "$ns"
	[ "$(max_size_in "$ns")" -eq 200 ]
	[ "$(grep -c "held at the admin's max" "$LOG")" -eq 1 ]
	run query status
	echo "$output"
	[[ "$output" == *"admin config: max 200 ($CONF:2); "[1-9]*" held at a bound, 0 refused"* ]]
	# JSON: "config", and the same under its old name "policy"
	query status --json | python3 -c '
import json, sys
ts = [t for tu in json.load(sys.stdin)["tuners"] for t in tu.get("tunables", [])
      if t["sysctl"] == "net.ipv6.route.max_size"]
assert ts and ts[0]["config"]["max"] == [200] and ts[0]["policy"] == ts[0]["config"], ts
'
	stop_daemon
	db="$(ls "$BATS_TEST_TMPDIR"/telemetry/*.db | head -n 1)"
	run python3 -c '
import sqlite3, sys
db = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
for r in db.execute("select tuner, tunable, policy, action, inputs from decisions where policy = ?", ("admin-policy",)):
    print("|".join(str(c) for c in r))' "$db"
	echo "$output"
	[ "${#lines[@]}" -eq 1 ]
	[[ "${lines[0]}" == "route_table|net.ipv6.route.max_size|admin-policy|hold-at-max|wanted="*" bound=max bound_value=200 source=$CONF:2" ]]
	# the same typed, in the admin-policy's own table
	run python3 -c '
import sqlite3, sys
db = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
print(db.execute("select bound, bound_value, source, decided, typeof(refused) from decisions_route_table_admin_policy").fetchall())' "$db"
	[ "$output" = "[('max', '200', '$CONF:2', 'hold-at-max', 'null')]" ]
}

@test "config: a bound wider than the built-in cap is clamped to the cap with a message" {
	cat > "$CONF" <<-EOF
	[tunable net.ipv6.route.max_size]
	max = 999999999
	EOF
	start
	grep -q "config: net.ipv6.route.max_size: 1 bound outside the built-in cap \[[0-9]*, 1048576\] clamped to it" "$LOG"
	run query config
	echo "$output"
	[[ "$output" == *"max = 1048576"*"; $CONF:2"* ]]
}

@test "config: touch = no: the tuner never writes the tunable, and says why once" {
	local ns
	printf '[tunable net.ipv6.route.max_size]\ntouch = no\n' > "$CONF"
	ns="$(routed_netns)"
	add_routes "$ns" 400
	start
	lookups_until "route_table: net.ipv6.route.max_size in netns $ns .*: not touched: touch = no \($CONF:2\)" "$ns"
	lookups_until_check "status_count_at_least 3 refused" "$ns"
	[ "$(max_size_in "$ns")" -eq 128 ]
	[ "$(grep -c "not touched: touch = no" "$LOG")" -eq 1 ]
	! grep -q "net.ipv6.route.max_size 128 -> " "$LOG"
	run query status
	[[ "$output" == *"admin config: touch = no ($CONF:2); 0 writes held at a bound, "[1-9]*" refused"* ]]
}

@test "config: [netns] skip leaves the listed namespaces alone and tunes the others" {
	local skipped tuned
	skipped="$(routed_netns)"
	tuned="$(routed_netns)"
	printf '[netns]\nskip = %s other-name\n' "$skipped" > "$CONF"
	add_routes "$skipped" 400
	add_routes "$tuned" 400
	start
	lookups_until "net.ipv6.route.max_size [0-9]+ -> [0-9]+ in netns $tuned " "$skipped" "$tuned"
	lookups_until "max_size in netns $skipped .*: not tuned: netns out of the config's scope \($CONF:2\)" "$skipped"
	[ "$(max_size_in "$skipped")" -eq 128 ]
	[ "$(max_size_in "$tuned")" -gt 128 ]
}

@test "config: [netns] only tunes the listed namespaces; global-only = yes none but the initial one" {
	local listed other
	listed="$(routed_netns)"
	other="$(routed_netns)"
	printf '[netns]\nonly = %s\n' "$listed" > "$CONF"
	add_routes "$listed" 400
	add_routes "$other" 400
	start
	lookups_until "net.ipv6.route.max_size [0-9]+ -> [0-9]+ in netns $listed " "$listed" "$other"
	lookups_until "max_size in netns $other .*: not tuned: netns out of the config's scope" "$other"
	[ "$(max_size_in "$other")" -eq 128 ]
	stop_daemon
	printf '[netns]\nglobal-only = yes\n' > "$CONF"
	ip netns exec "$listed" sysctl -qw net.ipv6.route.max_size=128
	start
	lookups_until "max_size in netns $listed .*: not tuned: netns out of the config's scope \($CONF:2\)" "$listed"
	[ "$(max_size_in "$listed")" -eq 128 ]
	run query config
	[[ "$output" == *"global-only = yes"*"; $CONF:2"* ]]
}

@test "config: SIGHUP with a valid file applies it and keeps state and journal" {
	local ns
	ns="$(routed_netns)"
	add_routes "$ns" 400
	# the journal must be in a root-only directory
	RUN_DIR="$(mktemp -d /run/bpftune-run.XXXXXX)"
	start -R --journal "$RUN_DIR/journal"
	lookups_until "net.ipv6.route.max_size 128 -> [0-9]+ in netns $ns " "$ns"
	grep -q "net.ipv6.route.max_size" "$RUN_DIR/journal"
	printf '[tunable net.ipv6.route.max_size]\ntouch = no\n' > "$CONF"
	kill -HUP "$DAEMON_PID"
	wait_for_log "config reloaded: $CONF; 1 tunable bounded"
	run query config
	[[ "$output" == *"touch = no"*"; $CONF:2"* ]]
	# what was done before the reload is still known, and still journalled
	run query status
	echo "$output"
	[[ "$output" == *"netns $ns "*"(bpftune set "*", was 128; "* ]]
	grep -q "net.ipv6.route.max_size" "$RUN_DIR/journal"
	# and the new config holds: more routes, no more writes
	add_routes "$ns" 2000
	lookups_until "max_size in netns $ns .*: not touched: touch = no" "$ns"
	# the journal still restores the original value at exit
	stop_daemon
	[ "$(max_size_in "$ns")" -eq 128 ]
}

@test "config: SIGHUP with an invalid file is refused with FILE:LINE and the old config stays" {
	printf '[tunable net.ipv6.route.max_size]\nmax = 300\n' > "$CONF"
	start
	printf '[tunable net.ipv6.route.max_size]\nmax = 300\n\n[netns]\nskipp = blue\n' > "$CONF"
	kill -HUP "$DAEMON_PID"
	wait_for_log "config: reload refused, the old config stays: $CONF:5: unknown key 'skipp' in \[netns\]"
	run query config
	[[ "$output" == *"max = 300"*"; $CONF:2"* ]]
	[[ "$output" == *"every netns is tuned"* ]]
	kill -0 "$DAEMON_PID"
	# a bound that does not fit the tunable is refused too
	printf '[tunable net.ipv6.route.max_size]\nmax = 1 2 3\n' > "$CONF"
	kill -HUP "$DAEMON_PID"
	wait_for_log "reload refused, the old config stays: $CONF:2: net.ipv6.route.max_size has 1 value"
	run query jconfig
	python3 -c 'import json,sys; d=json.loads(sys.argv[1]); t=d["tunables"][0]; assert t["max"] == [300], t' "$output"
}

@test "config: -q config shows each value and where it came from; the command line wins" {
	mkdir "$CONF.d"
	cat > "$CONF" <<-EOF
	[daemon]
	rate = 3
	tuners = route_table
	label = from-file
	EOF
	printf '[daemon]\nlabel = from-dropin\n' > "$CONF.d/50-label.conf"
	printf '[daemon]\nlabel = ignored: not .conf\n' > "$CONF.d/60-label.conf.dpkg-old"
	start -r 1 -a sample
	grep -q "tuner sample started" "$LOG"
	! grep -q "tuner route_table started" "$LOG"
	run query config
	echo "$output"
	[[ "$output" == *"; config $CONF (--config); files read, in order:"* ]]
	[[ "$output" == *";   $CONF.d/50-label.conf"* ]]
	[[ "$output" != *"60-label"* ]]
	echo "$output" | grep -qE '^  rate = 1 +; command line$'
	echo "$output" | grep -qE '^  tuners = sample +; command line$'
	echo "$output" | grep -qE "^  label = from-dropin +; $CONF.d/50-label.conf:2\$"
	echo "$output" | grep -qE '^  observe = no +; default$'
	run query jconfig
	python3 -c '
import json, sys
d = json.loads(sys.argv[1])
s = {x["key"]: x for x in d["daemon"]}
assert s["rate"]["value"] == "1" and s["rate"]["source"] == "command line", s["rate"]
assert s["label"]["source"].endswith("50-label.conf:2"), s["label"]
assert len(d["files"]) == 2, d["files"]' "$output"
	# the run records the label the config gave it
	grep -q "learning rate 1" "$LOG"
}

@test "config: a live setting changes on SIGHUP; others wait for a restart and say so" {
	printf '[daemon]\nrate = 3\n' > "$CONF"
	start
	# the file's options are the daemon's
	grep -q "starting: support level [a-z-]*, learning rate 3$" "$LOG"
	run query tuners
	[[ "$output" == "learning rate 3: "* ]]
	printf '[daemon]\nrate = 2\nobserve = yes\n' > "$CONF"
	kill -HUP "$DAEMON_PID"
	wait_for_log "config reloaded"
	grep -q "config: observe = yes ($CONF:3): tuners decide and are recorded; no tunable is written" "$LOG"
	grep -q "config: \[daemon\] rate = 2 ($CONF:2): takes effect at the next start" "$LOG"
	run query config
	echo "$output" | grep -qE "^  rate = 2 +; $CONF:2; restart needed, running with 3\$"
}

@test "config: an invalid file at start-up is an error with FILE:LINE and exit status 78" {
	printf '[daemon]\n\nrate = 7\n' > "$CONF"
	run "$BPFTUNE" -s --config "$CONF" -l "$PLUGIN_DIR"
	[ "$status" -eq 78 ]
	[[ "$output" == *"bpftune: invalid config: $CONF:3: rate takes a number from 0 to 4, not '7'"* ]]
	run "$BPFTUNE" --config "$CONF" --check-config
	[ "$status" -eq 78 ]
	run "$BPFTUNE" -s --config "$BATS_TEST_TMPDIR/missing.conf" -l "$PLUGIN_DIR"
	[ "$status" -eq 78 ]
	[[ "$output" == *"missing.conf: cannot open it: No such file or directory"* ]]
	printf '[daemon]\nrate = 2\n' > "$CONF"
	chmod 0666 "$CONF"
	run "$BPFTUNE" --config "$CONF" --check-config
	[ "$status" -eq 78 ]
	[[ "$output" == *"must be owned by root and writable by root only"* ]]
	chmod 0644 "$CONF"
	run "$BPFTUNE" --config "$CONF" --check-config
	[ "$status" -eq 0 ]
	# a bound that does not fit its tunable: known from the plugins' caps
	printf '[tunable net.ipv6.route.max_size]\nmax = 1 2\n' > "$CONF"
	run "$BPFTUNE" --config "$CONF" --check-config -l "$PLUGIN_DIR"
	[ "$status" -eq 78 ]
	[[ "$output" == *"invalid config: $CONF:2: net.ipv6.route.max_size has 1 value: give one bound for all or one per value"* ]]
	printf '[tunable net.ipv6.route.max_size]\nmin = 500\nmax = 400\n' > "$CONF"
	run "$BPFTUNE" -s --config "$CONF" -l "$PLUGIN_DIR" --no-telemetry --socket "$SOCK"
	[ "$status" -eq 78 ]
	[[ "$output" == *"invalid config: $CONF:3: net.ipv6.route.max_size: min 500 is above max 400"* ]]
}
