#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# Strategies (test fixture strategy_tuner: two strategies that take turns)
# and the learning rate: the same Delta on the BPF side and in userspace,
# and the documented step sizes.

load helpers
load operate_helpers

setup() {
	operate_setup
}

teardown() {
	operate_teardown
}

@test "two strategies take turns; only the active one's programs are attached" {
	local ns i
	ns="$(make_netns)"
	make_plugin_dir strategy
	STRATEGY_TIMEOUT_MS=1500 start_daemon --socket "$SOCK"
	grep -q "tuner strategy: 2 strategies; a active (1 program) for 1500 ms" "$LOG"
	wait_for_log "strategy a timed out \(score 0\); switching to strategy b \(score 1\)" 10
	wait_for_log "strategy b timed out \(score 0\); switching to strategy a \(score 1\)" 10
	# events while strategies come and go, until each strategy has had
	# some: every one comes from the program of the strategy that is
	# active when it is handled
	for i in $(seq 1 100); do
		close_conn "$ns"
		grep -q "event via strategy a" "$LOG" && grep -q "event via strategy b" "$LOG" && break
		sleep 0.4
	done
	grep -q "event via strategy a" "$LOG"
	grep -q "event via strategy b" "$LOG"
	grep "event via strategy" "$LOG"
	! grep -E "event via strategy a \(active: b\)|event via strategy b \(active: a\)" "$LOG"
	run bq tuners
	[[ "$output" == *"strategy a: "*"active "*" time"* ]]
	[[ "$output" == *"strategy b: "*"active "*" time"* ]]
	bq jtuners | python3 -c '
import json, sys
t = [t for t in json.load(sys.stdin)["tuners"] if t["name"] == "strategy"][0]
assert t["strategy_switches"] >= 2, t
assert sum(s["active"] for s in t["strategies"]) == 1, t
assert all(s["activations"] >= 1 for s in t["strategies"]), t
'
}

start_daemon_with() {
	make_plugin_dir "$@"
	start_daemon --socket "$SOCK"
}

# names of the programs behind the BPF links a process holds
linked_progs_of() {
	local f id
	for f in /proc/"$1"/fdinfo/*; do
		grep -q '^link_type:' "$f" 2>/dev/null || continue
		id="$(awk '/^prog_id:/ {print $2}' "$f")"
		bpftool prog show id "$id" -j | python3 -c 'import json, sys; print(json.load(sys.stdin)["name"])'
	done
}

# the active strategy and how many switches so far
active_strategy() {
	bq jtuners | python3 -c '
import json, sys
t = [t for t in json.load(sys.stdin)["tuners"] if t["name"] == "strategy"][0]
print([s["name"] for s in t["strategies"] if s["active"]][0], t["strategy_switches"])'
}

@test "an inactive strategy's program is detached from the kernel" {
	local progs
	# one long turn (operate_setup): no switch while we look
	start_daemon_with strategy
	[ "$(active_strategy)" = "a 0" ]
	progs="$(prog_ids_of "$DAEMON_PID" | wc -l)"
	# both strategies' programs are loaded, only a's is attached
	[ "$progs" -ge 2 ]
	[ "$(linked_progs_of "$DAEMON_PID" | grep -E '^[ab]_close')" = a_close__tp ]
}

@test "a tuner the admin takes over everywhere stops switching strategies" {
	make_plugin_dir admin_override strategy
	STRATEGY_TIMEOUT_MS=1500 start_daemon --socket "$SOCK"
	wait_for_log "switching to strategy b" 10
	# an admin write in the global netns stops the tuner in every netns
	sysctl -qw net.unix.max_dgram_qlen="$SAVED_QLEN"
	wait_for_log "tuner strategy stopped in every netns"
	local n
	n="$(count_log "switching to strategy")"
	sleep 4
	[ "$(count_log "switching to strategy")" -eq "$n" ]
	bq jtuners | python3 -c '
import json, sys
t = [t for t in json.load(sys.stdin)["tuners"] if t["name"] == "strategy"][0]
assert t["state"] == "manual" and not any(s["active"] for s in t["strategies"]), t
'
}

# step in a netns from 1024 at learning rate $1: the log line and the value
step_at_rate() {
	local rate="$1" want="$2" bpf="$3" ns
	ns="$(make_netns)"
	set_qlen "$ns" 1024
	make_plugin_dir strategy
	start_daemon --socket "$SOCK" -r "$rate"
	close_conn "$ns"
	wait_for_log "max_dgram_qlen 1024 -> $want in netns $ns"
	grep -q "one learning-rate step (delta $((want - 1024)) of 1024)" "$LOG"
	[ "$(qlen_in "$ns")" -eq "$want" ]
	# the BPF programs computed the same delta as the daemon
	grep -q "delta of 1048576: bpf $bpf, userspace $bpf" "$LOG"
	! grep -E "delta of 1048576: bpf ([0-9]+), userspace" "$LOG" | grep -v "bpf $bpf, userspace $bpf"
}

@test "-r 4: steps of 25%" {
	step_at_rate 4 1280 262144
}

@test "-r 2: steps of 6.25%" {
	step_at_rate 2 1088 65536
}

@test "-r 0: steps of 1.5625%" {
	step_at_rate 0 1040 16384
}

@test "-r outside 0..4 is refused" {
	run "$BPFTUNE" -r 5 -l /nonexistent
	[ "$status" -eq 1 ]
	[[ "$output" == *"-r takes a learning rate from 0 to 4, not '5'"* ]]
}
