#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# bats file_tags=kernel
# The net_buffer tuner on this machine's kernel.  Its sysctls are global
# (initial netns only): each test saves them, sets its starting values
# before the daemon starts (a write while it runs is an admin override),
# loads only this tuner (-a) and restores what changed.
#
# The scenario: UDP from one netns to another over a veth pair.  veth
# hands packets to the per-CPU backlog (netif_rx); RPS on the receiving
# veth sends them all to the last CPU while the sender runs on CPU 0, and
# a tc classifier (test/bpf/slow_rx.bpf.c) holds each packet there for
# 50 us of wall-clock time, so the backlog fills and the receive rounds
# run into their budget or time limit -- by construction, on any machine
# with two CPUs, however fast or loaded (test/bpf/rx_round.c watches the
# rounds, so a test can assert that first).

load helpers
load buffer_helpers
load telemetry_helpers

GLOBALS="net.core.netdev_max_backlog net.core.netdev_budget net.core.netdev_budget_usecs
	net.core.flow_limit_cpu_bitmap net.core.high_order_alloc_disable
	net.core.dev_weight_rx_bias"

setup() {
	[ "$(nproc)" -ge 2 ] || skip "needs two CPUs (RPS to another CPU than the sender's)"
	SLOW_OBJ="$REPO/build/test/bpf/slow_rx.bpf.o"
	FANOUT_OBJ="$REPO/build/test/bpf/fanout_rx.bpf.o"
	[ -f "$SLOW_OBJ" ] && [ -f "$FANOUT_OBJ" ] && [ -x "$REPO/build/test/rx_round" ] ||
		skip "run make fixtures first"
	buffer_setup net_buffer $GLOBALS
	RX_CPU=$(( $(nproc) - 1 ))
}

teardown() {
	buffer_teardown
}

# the kernel has flow limiting (CONFIG_NET_FLOW_LIMIT): the tuner then
# turns it on for a CPU whose backlog drops; without it, it says so
has_flow_limit() {
	[ -e /proc/sys/net/core/flow_limit_cpu_bitmap ]
}

# $CLI (192.168.76.1) -- veth -- $SRV (192.168.76.2): RPS to $RX_CPU and
# the slow classifier on the receiving side
make_slow_pair() {
	veth_pair nbc nbs 192.168.76
	pressure_slow_rx "$SRV" nbs "$RX_CPU" "$SLOW_OBJ"
	blast_tool
}

# make_fanout_pair: make_slow_pair, but the packets RPS brings to $RX_CPU
# are fanned out (test/bpf/fanout_rx.bpf.c) to 4 veth pairs inside $SRV
# whose receiving ends run in NAPI mode, each with the slow classifier.
# With a single backlog a round is one poll (the kernel polls each
# scheduled NAPI context once, then checks the time limit); here a round
# on $RX_CPU polls several contexts of up to 64 slow packets (3.2 ms)
# each, refilled by the backlog's polls of up to 512 packets
# (dev_weight_rx_bias 8), until it runs into netdev_budget_usecs.
make_fanout_pair() {
	local i
	make_slow_pair
	ip netns exec "$SRV" tc filter del dev nbs ingress
	ip netns exec "$SRV" tc filter add dev nbs ingress bpf direct-action obj "$FANOUT_OBJ" sec tc
	for i in 1 2 3 4; do
		# fanout_rx.bpf.c redirects to ifindex 101..104
		ip -n "$SRV" link add "fo$i" index $((100 + i)) type veth peer name "fi$i"
		# the peer takes redirected packets through its NAPI context
		# only from a sender without TSO (veth_skb_is_eligible_for_gro)
		ip netns exec "$SRV" ethtool -K "fo$i" tso off gso off >/dev/null
		ip netns exec "$SRV" ethtool -K "fi$i" gro on >/dev/null
		ip -n "$SRV" link set "fo$i" up
		ip -n "$SRV" link set "fi$i" up
		ip netns exec "$SRV" tc qdisc add dev "fi$i" clsact
		ip netns exec "$SRV" tc filter add dev "fi$i" ingress bpf direct-action obj "$SLOW_OBJ" sec tc
	done
	sysctl -qw net.core.dev_weight_rx_bias=8
}

# traffic_until PATTERN [TRIES [SECONDS]]: blast from CPU 0, TRIES times
# for SECONDS (default 10 times 1 s), until the log shows PATTERN
traffic_until() {
	local i
	for i in $(seq 1 "${2:-10}"); do
		ip netns exec "$CLI" taskset -c 0 python3 "$BATS_TEST_TMPDIR/blast.py" "$SRV_IP" 9 "${3:-1}" 1 64
		grep -qE -- "$1" "$LOG" && return 0
	done
	return 1
}

@test "net_buffer starts in every mode with its caps logged" {
	start_tuner
	grep -q "tuner net_buffer started" "$LOG"
	local fl=unavailable
	has_flow_limit && fl="on drops"
	# HZ from the tick, also where no kernel config file is readable
	grep -qE "tuner net_buffer: caps: netdev_max_backlog 32768, netdev_budget 3000, netdev_budget_usecs 20000; flow limit $fl; HZ $((1000000 / $(jiffy_us))); wait guard" "$LOG"
}

@test "a very low netdev_max_backlog grows when the receive backlog drops; the dropping CPU gets flow limiting" {
	local mask=$((1 << RX_CPU))
	make_slow_pair
	sysctl -qw net.core.netdev_max_backlog=16
	! has_flow_limit || sysctl -qw net.core.flow_limit_cpu_bitmap=0
	start_tuner
	traffic_until "backlog full: net.core.netdev_max_backlog 16 -> 20 in global netns"
	grep -qE "backlog full: net.core.netdev_max_backlog 16 -> 20 in global netns: [0-9]+ packets dropped with the receive backlog of CPU [0-9,]*$RX_CPU[0-9,]* full" "$LOG"
	[ "$(sysctl -n net.core.netdev_max_backlog)" -ge 20 ]
	if ! has_flow_limit; then
		grep -q "flow limit unavailable" "$LOG"
		! grep -q "flow_limit_cpu_bitmap" "$LOG"
		return 0
	fi
	grep -qE "backlog full: net.core.flow_limit_cpu_bitmap 0 -> [0-9]+ in global netns: CPU [0-9,]*$RX_CPU[0-9,]* dropped packets for a full backlog" "$LOG"
	[ $(( 0x$(sysctl -n net.core.flow_limit_cpu_bitmap | tr -d ,) & mask )) -eq "$mask" ]
}

@test "high_order_alloc_disable left on is switched off when the receive path drops" {
	make_slow_pair
	sysctl -qw net.core.netdev_max_backlog=16
	sysctl -qw net.core.high_order_alloc_disable=1
	start_tuner
	traffic_until "order-0 skb pages on a busy receive path: net.core.high_order_alloc_disable 1 -> 0 in global netns: the receive path is busy"
	[ "$(sysctl -n net.core.high_order_alloc_disable)" -eq 0 ]
}

@test "a tiny netdev_budget grows when receive rounds use it all, never past its cap" {
	make_slow_pair
	sysctl -qw net.core.netdev_budget=8
	start_tuner
	traffic_until "receive budget exhausted: net.core.netdev_budget 8 -> 10 in global netns: a receive round on CPU [0-9]+ processed [0-9]+ packets, its whole budget"
	traffic_until "net.core.netdev_budget 10 -> 12 in global netns" 5
	[ "$(sysctl -n net.core.netdev_budget)" -ge 12 ]
	[ "$(sysctl -n net.core.netdev_budget)" -le 3000 ]
	stop_daemon
	sed -n 's/.*net.core.netdev_budget [0-9]* -> \([0-9]*\) in.*/\1/p' "$LOG" |
		while read -r v; do [ "$v" -le 3000 ]; done
	# the wait guard was fed: from the second raise on, each saw how fast
	# tasks waited for a CPU since the one before (its decision unit-tested)
	grep -q "wait guard unavailable" "$LOG" && return 0
	[ "$(python3 - "$(ls "$BATS_TEST_TMPDIR"/telemetry/*.db)" <<'PY'
import sqlite3, sys
db = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
print(db.execute("select count(*) from decisions where tuner = 'net_buffer' and "
                 "policy = 'grow-budget' and action = 'raise' and "
                 "inputs like '% wait_per_ms=% guard_samples=%'").fetchone()[0])
PY
)" -ge 1 ]
}

# watch_rounds LONG_US: follow the NET_RX rounds of $RX_CPU in the
# background (test/bpf/rx_round.c), counting those of LONG_US or more
watch_rounds() {
	local i
	ROUNDS="$BATS_TEST_TMPDIR/rounds"
	"$REPO/build/test/rx_round" "$RX_CPU" "$1" >"$ROUNDS" 2>&1 &
	PIDS="$PIDS $!"
	for i in $(seq 1 300); do
		grep -q "^watching cpu" "$ROUNDS" && return 0
		sleep 0.1
	done
	cat "$ROUNDS" >&3
	return 1
}

# rounds_field NAME: NAME=N of the watcher's last report
rounds_field() {
	tail -1 "$ROUNDS" | tr ' ' '\n' | sed -n "s/^$1=//p"
}

# time_squeezes CPU: the kernel's count of rounds stopped early on CPU
time_squeezes() {
	local cols
	read -r -a cols < <(sed -n "$(($1 + 1))p" /proc/net/softnet_stat)
	echo $((16#${cols[2]}))
}

# the kernel's tick in us (its time limit is whole jiffies), as the tuner
# reads it: the resolution of CLOCK_MONOTONIC_COARSE (6), one jiffy
jiffy_us() {
	python3 -c 'import time; print(round(time.clock_getres(6) * 1e6))'
}

@test "the budget_usecs cap holds: rounds that run out of time stop it at 20 ms" {
	local long squeezed
	make_fanout_pair
	# rounds of 4 polls x 3.2 ms run into an 18 ms limit; 3000 packets per
	# round would take 150 ms
	sysctl -qw net.core.netdev_max_backlog=1000
	sysctl -qw net.core.netdev_budget_usecs=18000
	sysctl -qw net.core.netdev_budget=3000
	# the kernel ends a round at the first poll past its whole-jiffy limit
	long=$((18000 - $(jiffy_us)))
	watch_rounds "$long"
	squeezed="$(time_squeezes "$RX_CPU")"
	start_tuner
	traffic_until "receive time exhausted: net.core.netdev_budget_usecs 18000 -> 20000 in global netns" 20 2 || true
	# the precondition first: the fixture made rounds that ran into the limit
	echo "# round time reached $(rounds_field max_round_us) us in $(rounds_field polls) NAPI polls ($(rounds_field long_rounds) of $(rounds_field rounds) rounds >= $long us; time squeezes on CPU $RX_CPU: $(( $(time_squeezes "$RX_CPU") - squeezed )))" >&3
	[ "$(rounds_field long_rounds)" -ge 1 ]
	[ "$(time_squeezes "$RX_CPU")" -gt "$squeezed" ]
	# then the tuner's reaction
	grep -qE "receive time exhausted: net.core.netdev_budget_usecs 18000 -> 20000 in global netns: a receive round on CPU [0-9]+ ran [0-9]+ us in [0-9]+ NAPI polls, into its time limit, with more waiting .*\(held at the tunable's cap\)" "$LOG"
	traffic_until "will not match: keep the rounds squeezed at the cap" 3 || true
	[ "$(sysctl -n net.core.netdev_budget_usecs)" -eq 20000 ]
	stop_daemon
	[ "$(grep -c 'net.core.netdev_budget_usecs [0-9]* -> ' "$LOG")" -eq 1 ]
}

# came_back NAME START: NAME stepped back to START; it is still there,
# unless the log shows a later raise from there (the limits are global:
# traffic of other tests on this host may need them again) and the last
# value logged is the value now.
came_back() {
	local name="$1" start="$2" now last
	grep -qE "receive limits no longer needed: $name [0-9a-f,]+ -> $start in global netns" "$LOG"
	now="$(sysctl -n "$name" | tr -d ,)"
	last="$(sed -n "s/.* $name [0-9a-f,]* -> \([0-9a-f,]*\) in global netns.*/\1/p" "$LOG" | tail -1 | tr -d ,)"
	[ "$last" = "$now" ]
	[ "$now" = "$start" ] && return 0
	sed -n "/receive limits no longer needed: $name [0-9a-f,]* -> $start in/,\$p" "$LOG" |
		grep -qE ": $name $start -> [0-9a-f,]+ in global netns"
}

# wait_shrink PATTERN SECONDS: wait_for_log, but give up (skip) when
# someone else on this host wrote one of these global sysctls meanwhile:
# the tuner rightly hands them to that "admin" and stops.
wait_shrink() {
	local i
	for i in $(seq 1 "$2"); do
		grep -qE -- "$1" "$LOG" && return 0
		if grep -q "tuner net_buffer stopped in every netns: .* by pid" "$LOG"; then
			grep "tuner net_buffer stopped" "$LOG" | sed 's/^/# /' >&3
			skip "another process on this host wrote a net_buffer sysctl during the test"
		fi
		sleep 1
	done
	return 1
}

# slow in a TCG guest and not kernel-dependent beyond the rest of the
# file: make test-matrix runs it, the CI subset skips it
# bats test_tags=slow
@test "raised receive limits step back to their start values once no drop or squeeze has needed them for 30 s" {
	local line
	make_slow_pair
	sysctl -qw net.core.netdev_max_backlog=16
	! has_flow_limit || sysctl -qw net.core.flow_limit_cpu_bitmap=0
	sysctl -qw net.core.netdev_budget=8
	start_tuner
	# short bursts: few raises, so few steps back
	traffic_until "net.core.netdev_max_backlog 16 -> 20 in global netns" 20 0.1
	traffic_until "net.core.netdev_budget 8 -> 10 in global netns" 20 0.1
	! has_flow_limit || grep -qE "net.core.flow_limit_cpu_bitmap 0 -> [0-9a-f,]+ in global netns" "$LOG"
	# no traffic now: after 30 quiet seconds (checked every 5 s) one step
	# at a time back toward what was there before the first raise
	wait_shrink "receive limits no longer needed: net.core.netdev_max_backlog [0-9]+ -> 16 in global netns: no drop or squeeze has needed it for [0-9]+ s: one step back toward 16" 150
	wait_shrink "receive limits no longer needed: net.core.netdev_budget [0-9]+ -> 8 in global netns: no drop or squeeze has needed it for [0-9]+ s: one step back toward 8" 60
	! has_flow_limit ||
		wait_shrink "receive limits no longer needed: net.core.flow_limit_cpu_bitmap [0-9a-f,]+ -> 0 in global netns: no drop or squeeze has needed it for [0-9]+ s: back to 0" 30
	stop_daemon
	came_back net.core.netdev_max_backlog 16
	came_back net.core.netdev_budget 8
	! has_flow_limit || came_back net.core.flow_limit_cpu_bitmap 0
	# every step came after the quiet period, and none went below the start
	grep "receive limits no longer needed: " "$LOG" > "$BATS_TEST_TMPDIR/shrinks"
	[ "$(grep -c . "$BATS_TEST_TMPDIR/shrinks")" -ge "$(has_flow_limit && echo 3 || echo 2)" ]
	while read -r line; do
		[[ "$line" =~ needed\ it\ for\ ([0-9]+)\ s ]]
		[ "${BASH_REMATCH[1]}" -ge 30 ]
	done < "$BATS_TEST_TMPDIR/shrinks"
	sed -n 's/.*net.core.netdev_max_backlog [0-9]* -> \([0-9]*\) in.*/\1/p' "$LOG" |
		while read -r v; do [ "$v" -ge 16 ]; done
	sed -n 's/.*net.core.netdev_budget [0-9]* -> \([0-9]*\) in.*/\1/p' "$LOG" |
		while read -r v; do [ "$v" -ge 8 ]; done
}

# linked NAME: the daemon holds a BPF link of its program NAME
linked() {
	local ids
	ids="$(bpftool prog show -j | python3 -c '
import json, sys
print(" ".join(str(p["id"]) for p in json.load(sys.stdin) if p.get("name") == sys.argv[1]))' "$1")"
	grep -l '^link_id:' /proc/"$DAEMON_PID"/fdinfo/* 2>/dev/null |
		xargs -r grep -h '^prog_id:' | awk '{print $2}' |
		grep -qxF -f <(tr ' ' '\n' <<<"$ids")
}

# gate_line: the receive-round hooks' gate in -q status
gate_line() {
	gate_status "rx_entry rx_poll"
}

# gate_detached_unless_pinned: the hooks are not linked, unless the gate
# keeps its links and gates with the flag (then they are)
gate_detached_unless_pinned() {
	if gate_line | grep -q "link kept, gated in the program"; then
		linked rx_entry
		linked rx_poll
	else
		! linked rx_entry || return 1
		! linked rx_poll || return 1
	fi
}

# wait_gate STATE SECONDS: until -q status says "now STATE" (an ERE)
wait_gate() {
	wait_gate_status "rx_entry rx_poll" "now $1" "$2"
}

@test "the receive-round hooks are attached only while softnet_stat counts squeezes or drops" {
	make_slow_pair
	sysctl -qw net.core.netdev_budget=8
	start_tuner
	grep -q "tuner net_buffer: hook rx_entry rx_poll gated by softnet_stat time_squeeze+dropped (counter gate, 2 programs)" "$LOG"
	"$BPFTUNE" -S -l "$PLUGIN_DIR" $(mode_flags) | grep -q "hook rx_entry rx_poll: gated by softnet_stat time_squeeze+dropped (counter gate)"
	# calm (a shared host's own squeezes may open it: then 10 calm s close
	# it); where a cycle costs more than the budget (an emulated kernel)
	# the first one pins the links and the flag gates them from then on
	wait_gate "(detached|closed)" 60
	gate_detached_unless_pinned
	# and asleep once calm for the calm period (gate.h, wake): the first
	# packet of the pressure wakes it
	wait_gate ".*asleep now, woken on netif_receive_skb" 120
	# pressure opens it, the hooks see the squeezes and the tuner reacts
	traffic_until "tuner net_buffer: hook rx_entry rx_poll attached: the reading moved" 20
	traffic_until "receive budget exhausted: net.core.netdev_budget 8 -> 10 in global netns" 20
	if gate_line | grep -qE "now (attached|open)"; then
		linked rx_entry
		linked rx_poll
	fi
	"$BPFTUNE" --socket "$CTL_SOCK" -q metrics |
		grep -qE '^bpftune_gate_attaches_total\{tuner="net_buffer",hook="rx_entry rx_poll",gated_by="softnet_stat time_squeeze\+dropped"\} [1-9]'
	# calm again: detached (or its flag closed) after the calm period
	wait_for_log "tuner net_buffer: hook rx_entry rx_poll detached: calm for the calm period" 60
	# (a squeeze of the guest's own may have opened it again: then the
	# next calm period closes it)
	wait_gate "(detached|closed)" 60
	gate_detached_unless_pinned
	gate_line | grep -qE "(attached [0-9.]+ % of the time, now detached \([1-9][0-9]* attach|open [0-9.]+ % of the time, now closed \([1-9][0-9]* opening.*: link kept, gated in the program)"
	"$BPFTUNE" --socket "$CTL_SOCK" -q metrics |
		grep -qE '^bpftune_gate_attached\{tuner="net_buffer",hook="rx_entry rx_poll",.*\} 0$'
	"$BPFTUNE" --socket "$CTL_SOCK" --json -q status | python3 -c '
import json, sys
t = [t for t in json.load(sys.stdin)["tuners"] if t["name"] == "net_buffer"][0]
g = t["gates"][0]
assert g["hook"] == "rx_entry rx_poll" and g["kind"] == "counter", g
assert g["attaches"] >= 1 and g["detaches"] >= 1 and 0 < g["attached_percent"] < 100, g'
	# every transition has its row in the library's gates table: attached
	# when the reading moved, detached when calm, counts and time rising
	stop_daemon
	sql "SELECT action, reason, reading IS NOT NULL, attaches, detaches, attached_ms
	     FROM gates WHERE tuner = 'net_buffer' AND hook = 'rx_entry rx_poll' AND
	     kind = 'counter' AND gated_by = 'softnet_stat time_squeeze+dropped'
	     ORDER BY seq" > "$BATS_TEST_TMPDIR/gates"
	cat "$BATS_TEST_TMPDIR/gates" >&3
	python3 - "$BATS_TEST_TMPDIR/gates" <<'PY'
import sys
rows = [l.strip().split("|") for l in open(sys.argv[1]) if l.strip()]
assert rows, "no gates rows"
att = det = 0
last_ms = 0
pins = [r for r in rows if r[1] == "pinned"]
# pinned once at most, at the end of a cycle (the links kept from then on)
assert len(pins) <= 1 and all(r[0] == "detached" for r in pins), rows
rows = [r for r in rows if r[1] != "pinned"]
for action, reason, has_reading, a, d, ms in rows:
    a, d, ms = int(a), int(d), int(ms)
    if action == "attached":
        att += 1
        assert reason in ("moved", "error"), rows
    else:
        assert action == "detached" and reason == "calm", rows
        det += 1
    assert has_reading == ("1" if reason != "error" else "0"), rows
    assert (a, d) == (att, det), rows
    assert ms >= last_ms, rows
    last_ms = ms
moved = [r for r in rows if r[:2] == ["attached", "moved"]]
calm = [r for r in rows if r[:2] == ["detached", "calm"]]
assert moved and calm and int(calm[-1][5]) > 0, rows
PY
}
