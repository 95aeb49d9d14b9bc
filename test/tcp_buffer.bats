#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# bats file_tags=kernel
# The tcp_buffer tuner on this machine's kernel, with real traffic (iperf3)
# between network namespaces joined by veth pairs.  Addresses live only
# inside the namespaces made here.  Starting values are set before the
# daemon starts: a write while it runs is an admin override.

load helpers
load telemetry_helpers

# global sysctls a test may change, restored in teardown
GLOBALS="net.ipv4.tcp_rmem net.ipv4.tcp_wmem net.ipv4.tcp_mem net.core.high_order_alloc_disable
	net.ipv4.tcp_no_metrics_save net.ipv4.tcp_no_ssthresh_metrics_save net.core.rmem_max"

setup() {
	command -v iperf3 >/dev/null || skip "iperf3 is not installed"
	make_plugin_dir tcp_buffer
	save_globals $GLOBALS
	PAIR_N=0
}

teardown() {
	local pid
	log_on_failure "tcp_buffer|error|warning" 60
	for pid in ${IPERF_PIDS:-}; do
		kill "$pid" 2>/dev/null || true
	done
	IPERF_PIDS=
	common_teardown
	restore_globals
}

# make_pair: two namespaces joined by a veth pair: $CLI (192.168.N.1)
# and $SRV (192.168.N.2); N is per pair so several pairs do not clash.
make_pair() {
	PAIR_N=$((PAIR_N + 1))
	CLI="$(make_netns)"
	SRV="$(make_netns)"
	ip link add tbc netns "$CLI" type veth peer name tbs netns "$SRV"
	ip -n "$CLI" addr add "192.168.$((90 + PAIR_N)).1/24" dev tbc
	ip -n "$SRV" addr add "192.168.$((90 + PAIR_N)).2/24" dev tbs
	ip -n "$CLI" link set tbc up
	ip -n "$SRV" link set tbs up
	SRV_IP="192.168.$((90 + PAIR_N)).2"
}

# make_bloated_path: $CLI -- $RTR -- $SRV with a 1 Gbit/s bottleneck and a
# deep queue in $RTR: a sender that puts more in flight only adds delay.
make_bloated_path() {
	CLI="$(make_netns)"
	RTR="$(make_netns)"
	SRV="$(make_netns)"
	ip link add tbc netns "$CLI" type veth peer name tbrc netns "$RTR"
	ip link add tbs netns "$SRV" type veth peer name tbrs netns "$RTR"
	ip -n "$CLI" addr add 192.168.88.1/24 dev tbc
	ip -n "$RTR" addr add 192.168.88.254/24 dev tbrc
	ip -n "$SRV" addr add 192.168.89.2/24 dev tbs
	ip -n "$RTR" addr add 192.168.89.254/24 dev tbrs
	ip -n "$CLI" link set tbc up
	ip -n "$RTR" link set tbrc up
	ip -n "$RTR" link set tbrs up
	ip -n "$SRV" link set tbs up
	ip -n "$CLI" route add default via 192.168.88.254
	ip -n "$SRV" route add default via 192.168.89.254
	ip netns exec "$RTR" sysctl -qw net.ipv4.ip_forward=1
	ip netns exec "$RTR" tc qdisc add dev tbrs root tbf rate "${1:-1gbit}" \
		burst 256kb limit 100mb
	# a loss-based sender fills the queue (reno is always allowed)
	ip netns exec "$CLI" sysctl -qw net.ipv4.tcp_congestion_control=reno
	SRV_IP=192.168.89.2
}

# wait_listening NS PORT: until a TCP listener is up ("-": global netns)
wait_listening() {
	local i
	for i in $(seq 1 100); do
		in_ns "$1" ss -Hltn "sport = :$2" | grep -q . && return 0
		sleep 0.1
	done
	return 1
}

# iperf NS_CLIENT NS_SERVER IP SECONDS [STREAMS]: one run, waits for it
iperf() {
	local cli="$1" srv="$2" ip="$3" secs="$4" streams="${5:-1}"
	local port=$((5300 + RANDOM % 500)) ok=0
	pressure_iperf_server "$srv" "$ip" "$port" || ok=$?
	IPERF_PIDS="${IPERF_PIDS:-} $PRESSURE_PID"
	[ "$ok" -eq 0 ]
	ip netns exec "$cli" iperf3 -c "$ip" -p "$port" -t "$secs" -P "$streams" \
		-f m >"$BATS_TEST_TMPDIR/iperf.out" 2>&1
}

# iperf_bg: the same in the background, for a test that waits on the log
# while traffic runs (slow qemu guests need longer to reach a state)
iperf_bg() {
	iperf "$@" &
	IPERF_PIDS="${IPERF_PIDS:-} $!"
}

# stop_traffic: end an iperf_bg run, the receiver ($SRV) first: closed
# with data unread, its sockets reset the sender's, which would otherwise
# linger as orphans holding a full send queue against tcp_mem
stop_traffic() {
	netns_pids "$SRV" | xargs -r kill 2>/dev/null || true
	netns_pids "$CLI" | xargs -r kill 2>/dev/null || true
}

# sysctl_in NS NAME: value with single spaces ("-" for the global netns)
sysctl_in() {
	in_ns "$1" sysctl -n "$2" | tr -s '\t ' ' '
}

max_of() {
	sysctl_in "$1" "$2" | awk '{print $3}'
}

# global_kept SYSCTL VALUE NS_VALUE: a namespace's growth stayed there.  The
# global value is VALUE still, or the log explains its change by a socket of
# the global netns (a shared host's own traffic may grow it while a test
# runs); no change in the global netns ever started from the namespace's
# NS_VALUE.
global_kept() {
	local now
	now="$(sysctl_in - "$1")"
	if [ "$now" != "$2" ]; then
		grep -q "$1 $2 -> .* in global netns: a socket's" "$LOG" ||
			{ echo "global $1 $2 -> $now, no global-netns reason logged" >&3; return 1; }
	fi
	! grep -q "$1 $3 -> .* in global netns" "$LOG"
}

@test "tcp_buffer starts on this kernel with its caps logged" {
	start_daemon
	grep -q "tuner tcp_buffer started" "$LOG"
	grep -q "tuner tcp_buffer: caps: tcp_rmem/tcp_wmem max 67108864 bytes, tcp_mem [0-9]* pages (a quarter of RAM), tcp_max_syn_backlog 65536" "$LOG"
}

# bats test_tags=hooks
@test "a low tcp_rmem max in a netns grows there with traffic, not globally" {
	local global
	make_pair
	ip netns exec "$SRV" sysctl -qw net.ipv4.tcp_rmem="4096 131072 262144"
	global="$(sysctl_in - net.ipv4.tcp_rmem)"
	start_daemon
	# traffic until the raise (a loaded guest's buffers grow slowly)
	iperf_bg "$CLI" "$SRV" "$SRV_IP" 3600
	wait_for_log "receive buffer near tcp_rmem max: net.ipv4.tcp_rmem 4096 131072 262144 -> 4096 131072 327680 in netns $SRV \(cookie [0-9]+\): a socket's receive buffer \([0-9]+ bytes\) came within 25% of the tcp_rmem max" 300
	stop_traffic
	[ "$(max_of "$SRV" net.ipv4.tcp_rmem)" -gt 327679 ]
	[ "$(sysctl_in "$SRV" net.ipv4.tcp_rmem | awk '{print $1, $2}')" = "4096 131072" ]
	global_kept net.ipv4.tcp_rmem "$global" "4096 131072 262144"
	# the client's namespace did not need it
	! grep -q "tcp_rmem .* in netns $CLI " "$LOG"
}

# A connection's window scale is fixed at its SYN, from the larger of
# tcp_rmem[2] and rmem_max then: with both below 128 kB it is 1, and its
# window never exceeds 131070 bytes, whatever the max grows to after.
# The max it runs under then is 300000: a buffer within 25 % of it
# (225000) is well inside what the kernel's autotuning reaches with a
# 131070-byte window (about 450000), so the raise is certain; its first
# raise (375000, a window of 187500) is already past what it can use.
# Autotuning grows a buffer only when a round trip delivers more than any
# before: the sender is held at 1 Mbit/s until the max is up and the
# daemon runs, then let go (else a connection already at its old max may
# wait minutes, in a slow guest, for a round trip above its best).
# bats test_tags=hooks
@test "a receiver bound by the window scale its SYN chose before a raise is named once" {
	local i
	make_pair
	sysctl -qw net.core.rmem_max=131071
	ip netns exec "$SRV" sysctl -qw net.ipv4.tcp_rmem="4096 65536 131071"
	ip netns exec "$CLI" tc qdisc add dev tbc root tbf rate 1mbit burst 16kb latency 1s
	# one connection for the whole test, set up under those values: it
	# runs until the test has seen what it needs (a loaded qemu guest
	# can take longer than any fixed run to start the daemon)
	iperf_bg "$CLI" "$SRV" "$SRV_IP" 3600
	for i in $(seq 1 600); do
		ip netns exec "$SRV" ss -Htin state established "sport >= :5300" |
			grep -qE "wscale:[0-9]+,1 " && break
		sleep 0.1
	done
	ip netns exec "$SRV" ss -Htin state established "sport >= :5300" | grep -qE "wscale:[0-9]+,1 "
	# then the max goes up (before the daemon starts: not an admin
	# override); the next raise is past what its window can use
	ip netns exec "$SRV" sysctl -qw net.ipv4.tcp_rmem="4096 65536 300000"
	local t0=$SECONDS t1
	start_daemon
	t1=$SECONDS
	ip netns exec "$CLI" tc qdisc del dev tbc root
	wait_for_log "tuner tcp_buffer: a receiver in netns $SRV \(cookie [0-9]+\) is bound by its window scale: scale 1, fixed at its SYN under a smaller tcp_rmem max, caps its window at 131070 bytes, below the [0-9]+ bytes a max of [0-9]+ allows; the raise helps connections set up from now on \(scale [2-9]\)" 300
	grep -qE "net.ipv4.tcp_rmem 4096 65536 300000 -> 4096 65536 [0-9]+ in netns $SRV " "$LOG"
	# the same connection runs on: a later raise says nothing new
	local t2=$SECONDS
	wait_count "net.ipv4.tcp_rmem 4096 65536 [0-9]+ -> .* in netns $SRV " 2 300
	stop_traffic
	echo "# seconds: connection up at $t0, daemon running +$((t1 - t0)), note +$((t2 - t1)), second raise +$((SECONDS - t2))" >&3
	barrier
	[ "$(grep -c "is bound by its window scale" "$LOG")" -eq 1 ]
	stop_daemon
	# the decisions record the receiver's scale with each tcp_rmem raise
	[ "$(sql "SELECT count(*) FROM decisions_tcp_buffer_grow_near_limit WHERE tunable = 'net.ipv4.tcp_rmem' AND decided = 'raise' AND rcv_wscale = 1")" -ge 1 ]
	[ "$(sql "SELECT count(*) FROM decisions_tcp_buffer_grow_near_limit WHERE tunable = 'net.ipv4.tcp_rmem' AND rcv_wscale IS NULL")" -eq 0 ]
}

# bats test_tags=hooks
@test "a low tcp_wmem max in a netns grows there with traffic, not globally" {
	local global
	make_pair
	ip netns exec "$CLI" sysctl -qw net.ipv4.tcp_wmem="4096 16384 262144"
	global="$(sysctl_in - net.ipv4.tcp_wmem)"
	start_daemon
	iperf_bg "$CLI" "$SRV" "$SRV_IP" 3600
	wait_for_log "send buffer near tcp_wmem max: net.ipv4.tcp_wmem 4096 16384 262144 -> 4096 16384 327680 in netns $CLI \(cookie [0-9]+\): a socket's send buffer" 300
	stop_traffic
	[ "$(max_of "$CLI" net.ipv4.tcp_wmem)" -gt 327679 ]
	global_kept net.ipv4.tcp_wmem "$global" "4096 16384 262144"
	! grep -q "tcp_wmem .* in netns $SRV " "$LOG"
}

# The send sample (probe) is behind a window gate: from calm, with the
# gate closed between windows, a sender at its limit is seen in the next
# window, which then stays attached (open, where the link is kept) while
# the hook reports; without that hold it would close 200 ms after opening.
# The config bounds tcp_wmem at the first raise, so the sender stays at
# its max and the hook keeps reporting: unbounded, the max could outgrow
# what a slow sender wants (an emulated guest) and the gate rightly close.
# Where the receiver is CPU-bound (an emulated guest: RTT +71 %,
# throughput -21 % seen), the latency guard may take the raise back; the
# sender is then at its max again, and the hook reports on.
# bats test_tags=hooks
@test "the send sample's window gate: a sender at its tcp_wmem max from calm is seen, and the window held" {
	local i conf max
	make_pair
	ip netns exec "$CLI" sysctl -qw net.ipv4.tcp_wmem="4096 16384 262144"
	conf="$BATS_TEST_TMPDIR/bpftune.conf"
	printf '[tunable net.ipv4.tcp_wmem]\nmax = 4096 16384 327680\n' >"$conf"
	start_daemon --config "$conf"
	gate_status probe | grep -q "gated by a 200 ms window every 1 s (window gate)"
	# calm: a window has come and gone with nothing to see
	wait_gate_status probe "now (detached|closed) .*last: the window saw nothing" 60
	iperf_bg "$CLI" "$SRV" "$SRV_IP" 3600
	wait_for_log "send buffer near tcp_wmem max: net.ipv4.tcp_wmem 4096 16384 262144 -> 4096 16384 327680 in netns $CLI " 300
	# a report that came just after its window's last check reopens the
	# gate at once (the check runs when the loop next turns); from then
	# on it is held for the calm period (10 checks) after each report,
	# so open at every look over more than one window period
	wait_gate_status probe "now (attached|open) " 10
	for i in 1 2 3 4 5 6 7 8; do
		gate_status probe | grep -qE "now (attached|open) "
		sleep 0.2
	done
	stop_traffic
	# the config's bound held; below it only by the guard's step back
	max="$(max_of "$CLI" net.ipv4.tcp_wmem)"
	[ "$max" -eq 327680 ] ||
		grep -qE "net.ipv4.tcp_wmem 4096 16384 327680 -> 4096 16384 $max in netns $CLI .*RTT rose with the tcp_wmem max" "$LOG"
}

@test "tcp_rmem and tcp_wmem in the global netns grow with loopback traffic" {
	local port=$((5800 + RANDOM % 100))
	sysctl -qw net.ipv4.tcp_rmem="4096 131072 262144"
	sysctl -qw net.ipv4.tcp_wmem="4096 16384 262144"
	start_daemon
	iperf3 -s -1 -B 127.0.0.1 -p "$port" >/dev/null 2>&1 &
	IPERF_PIDS="$!"
	wait_listening - "$port"
	iperf3 -c 127.0.0.1 -p "$port" -t 3 -f m >"$BATS_TEST_TMPDIR/iperf.out"
	wait_for_log "net.ipv4.tcp_rmem 4096 131072 262144 -> 4096 131072 327680 in global netns"
	wait_for_log "net.ipv4.tcp_wmem 4096 16384 262144 -> 4096 16384 327680 in global netns"
	[ "$(max_of - net.ipv4.tcp_rmem)" -gt 327679 ]
	[ "$(max_of - net.ipv4.tcp_wmem)" -gt 327679 ]
}

# bats test_tags=hooks
@test "tiny tcp_mem grows under many streams, never past its cap; low-memory toggles are set, then undone" {
	local cap mem2 i set undone
	make_pair
	sysctl -qw net.core.high_order_alloc_disable=0
	sysctl -qw net.ipv4.tcp_mem="64 96 128"
	start_daemon
	cap="$(sed -n 's/.*tcp_mem \([0-9]*\) pages (a quarter of RAM).*/\1/p' "$LOG")"
	[ -n "$cap" ] || { cat "$LOG" >&3; false; }
	# eight streams until the raise and the low-memory mode are seen
	iperf_bg "$CLI" "$SRV" "$SRV_IP" 3600 8
	wait_for_log "net.ipv4.tcp_mem 64 96 128 -> 80 120 160 in global netns: TCP holds [0-9]+ pages" 300
	# the kernel refused memory: low-memory mode, then undone once calm
	wait_for_log "TCP memory exhausted: net.core.high_order_alloc_disable 0 -> 1 in global netns: low-memory mode: (the kernel refused TCP socket memory|TCP memory is near the tcp_mem hard limit)" 300
	# and until tcp_mem[1] is past 1000 pages: calm is below 3/4 of it,
	# and with no socket left the kernel's count keeps up to 256 pages a
	# CPU of per-CPU reserve (512 here, seen: 399 with tcp_mem[1] at 291)
	wait_for_log "net.ipv4.tcp_mem [0-9]+ [0-9]+ [0-9]+ -> [0-9]+ [0-9]{4,} [0-9]+ in global netns" 300
	stop_traffic
	mem2="$(max_of - net.ipv4.tcp_mem)"
	[ "$mem2" -gt 128 ]
	[ "$mem2" -le "$cap" ]
	# per netns toggles go where the refused sockets are (other tests'
	# traffic on this host can be refused too: any netns will do)
	grep -qE "TCP memory exhausted: net.ipv4.tcp_no_metrics_save 0 -> 1 in (netns|global)" "$LOG"
	wait_for_log "TCP memory pressure gone: net.core.high_order_alloc_disable 1 -> 0 in global netns" 60
	wait_for_log "TCP memory pressure gone: net.ipv4.tcp_no_metrics_save 1 -> 0 in" 60
	# any TCP on this host counts against so small a tcp_mem (other work,
	# lingering sockets) and may bring the mode back meanwhile: wait for
	# the last undo, however many rounds that takes
	for i in $(seq 1 1200); do
		set="$(grep -c 'tcp_no_metrics_save 0 -> 1\|high_order_alloc_disable 0 -> 1' "$LOG")"
		undone="$(grep -c 'tcp_no_metrics_save 1 -> 0\|high_order_alloc_disable 1 -> 0' "$LOG")"
		[ "$set" -eq "$undone" ] && break
		sleep 0.1
	done
	[ "$set" -eq "$undone" ]
	[ "$(sysctl -n net.core.high_order_alloc_disable)" -eq 0 ]
	[ "$(sysctl_in "$SRV" net.ipv4.tcp_no_metrics_save)" -eq 0 ]
	[ "$(sysctl_in "$CLI" net.ipv4.tcp_no_metrics_save)" -eq 0 ]
	# every tcp_mem value written stayed within the cap
	stop_daemon
	sed -n 's/.*net.ipv4.tcp_mem [0-9]* [0-9]* [0-9]* -> [0-9]* [0-9]* \([0-9]*\) in.*/\1/p' "$LOG" |
		while read -r v; do [ "$v" -le "$cap" ]; done
}

# The kernel counts TCP memory through per-CPU caches of mem_pcpu_rsv
# pages a CPU (256 by default): with no socket left its count can stay up
# to that many pages a CPU above zero.  With tcp_mem[1] just above the
# reserve (below 4/3 of it) "3/4 of tcp_mem[1]" may never come; calm
# allows for the reserve.  tcp_mem[0] is above the reserve too, so the
# kernel itself leaves pressure once the sockets are gone; the admin's
# max keeps tcp_mem there (it would grow past 4/3 of the reserve).
# bats test_tags=hooks
@test "low-memory mode is undone with tcp_mem[1] below 4/3 of the kernel's per-CPU reserve" {
	local rsv cpus reserve mem i set undone pages
	rsv="$(sysctl -n net.core.mem_pcpu_rsv 2>/dev/null || echo $((1048576 / $(getconf PAGESIZE))))"
	cpus="$(getconf _NPROCESSORS_CONF)"
	reserve=$((rsv * cpus))
	mem="$((reserve + 4)) $((reserve + 8)) $((reserve + 100))"
	[ $(((reserve + 8) * 3)) -lt $((reserve * 4)) ]
	make_pair
	CONF="$BATS_TEST_TMPDIR/bpftune.conf"
	printf '[tunable net.ipv4.tcp_mem]\nmax = %s\n' "$mem" >"$CONF"
	sysctl -qw net.core.high_order_alloc_disable=0
	sysctl -qw net.ipv4.tcp_mem="$mem"
	start_daemon --config "$CONF"
	# eight streams until the kernel is short and low-memory mode is on
	iperf_bg "$CLI" "$SRV" "$SRV_IP" 3600 8
	wait_for_log "TCP memory exhausted: net.core.high_order_alloc_disable 0 -> 1 in global netns: low-memory mode" 300
	stop_traffic
	wait_for_log "TCP memory pressure gone \(tcp_pages=[0-9]+ \(up to $reserve of them per-CPU reserve\) tcp_mem=${mem// /,} pressure=0\): undoing low-memory mode" 120
	pages="$(sed -n 's/.*TCP memory pressure gone (tcp_pages=\([0-9]*\) .*/\1/p' "$LOG" | head -n 1)"
	echo "# tcp_mem $mem, reserve $reserve pages: undone at $pages pages (3/4 of tcp_mem[1] is $(((reserve + 8) * 3 / 4)))" >&3
	# other TCP on this host counts against so small a tcp_mem and may
	# bring the mode back meanwhile: wait for the last undo
	for i in $(seq 1 1200); do
		set="$(grep -c 'tcp_no_metrics_save 0 -> 1\|high_order_alloc_disable 0 -> 1' "$LOG")"
		undone="$(grep -c 'tcp_no_metrics_save 1 -> 0\|high_order_alloc_disable 1 -> 0' "$LOG")"
		[ "$set" -eq "$undone" ] && break
		sleep 0.1
	done
	[ "$set" -eq "$undone" ]
	[ "$(sysctl -n net.core.high_order_alloc_disable)" -eq 0 ]
	[ "$(sysctl_in "$SRV" net.ipv4.tcp_no_metrics_save)" -eq 0 ]
	[ "$(sysctl_in "$CLI" net.ipv4.tcp_no_metrics_save)" -eq 0 ]
	# tcp_mem stayed where it was: below 4/3 of the reserve
	[ "$(sysctl_in - net.ipv4.tcp_mem)" = "$mem" ]
}

# tcp_pages: the kernel's count of TCP memory (/proc/net/protocols)
tcp_pages() {
	awk '$1 == "TCP" { print $4 }' /proc/net/protocols
}

# The same with the count held where the old calm never came: a reserve
# no CPU's cache reaches keeps every later charge and uncharge in the
# per-CPU caches, so the kernel's count stays at what it was (C, 64 to
# 600 pages, re-rolled by a second of traffic until it is) with no socket
# holding any of it.  tcp_mem is C+4 C+8 C+12: C is past 3/4 of
# tcp_mem[1] (near the pressure threshold; within delta of the hard
# limit: low-memory mode once traffic reports it) and below tcp_mem[0]
# (the kernel is not in pressure).  Calm used to need C below 3/4 of
# tcp_mem[1]: never; allowing for the reserve it is calm at once.
# bats test_tags=hooks
@test "low-memory mode is undone while the per-CPU caches hold the kernel's count above 3/4 of tcp_mem[1]" {
	local c mem i
	[ -w /proc/sys/net/core/mem_pcpu_rsv ] ||
		skip "no net.core.mem_pcpu_rsv on this kernel: the reserve cannot be raised"
	SAVED_GLOBALS+=("net.core.mem_pcpu_rsv=$(sysctl -n net.core.mem_pcpu_rsv)")
	make_pair
	for i in $(seq 1 30); do
		sysctl -qw net.core.mem_pcpu_rsv=1073741824
		c="$(tcp_pages)"
		[ "$c" -ge 64 ] && [ "$c" -le 600 ] && break
		sysctl -qw "${SAVED_GLOBALS[-1]}"
		iperf "$CLI" "$SRV" "$SRV_IP" 1
	done
	[ "$c" -ge 64 ] && [ "$c" -le 600 ]
	echo "# count held at $c pages after $i tries" >&3
	mem="$((c + 4)) $((c + 8)) $((c + 12))"
	CONF="$BATS_TEST_TMPDIR/bpftune.conf"
	printf '[tunable net.ipv4.tcp_mem]\nmax = %s\n' "$mem" >"$CONF"
	sysctl -qw net.core.high_order_alloc_disable=0
	sysctl -qw net.ipv4.tcp_mem="$mem"
	start_daemon --config "$CONF"
	iperf_bg "$CLI" "$SRV" "$SRV_IP" 3600
	wait_for_log "TCP memory exhausted: net.core.high_order_alloc_disable 0 -> 1 in global netns: low-memory mode: TCP memory is near the tcp_mem hard limit \(TCP holds $c pages" 300
	stop_traffic
	wait_for_log "TCP memory pressure gone \(tcp_pages=$c \(up to [0-9]+ of them per-CPU reserve\) tcp_mem=${mem// /,} pressure=0\): undoing low-memory mode" 60
	wait_for_log "TCP memory pressure gone: net.ipv4.tcp_no_metrics_save 1 -> 0 in netns" 10
	[ "$(sysctl -n net.core.high_order_alloc_disable)" -eq 0 ]
	[ "$(sysctl_in "$SRV" net.ipv4.tcp_no_metrics_save)" -eq 0 ]
	[ "$(sysctl_in "$CLI" net.ipv4.tcp_no_metrics_save)" -eq 0 ]
	# no socket left, the count where it was, tcp_mem too
	[ "$(tcp_pages)" -eq "$c" ]
	[ "$(sysctl_in - net.ipv4.tcp_mem)" = "$mem" ]
}

@test "tcp_mem far above its cap under pressure: the max brought down to the cap, thresholds raised, no low-memory mode" {
	local cap want
	make_pair
	sysctl -qw net.core.high_order_alloc_disable=0
	sysctl -qw net.ipv4.tcp_mem="50 100 2000000000"
	start_daemon -R
	cap="$(sed -n 's/.*tcp_mem \([0-9]*\) pages (a quarter of RAM).*/\1/p' "$LOG")"
	[ -n "$cap" ] && [ "$cap" -lt 2000000000 ]
	grep -q "net.ipv4.tcp_mem is 50 100 2000000000 at start, outside its caps" "$LOG"
	# TCP holds far more than 100 pages with 8 streams: pressure
	iperf "$CLI" "$SRV" "$SRV_IP" 3 8
	want="$((cap / 2)) $((cap / 3 * 2)) $cap"
	wait_for_log "net.ipv4.tcp_mem 50 100 2000000000 -> $want in global netns: TCP holds [0-9]+ pages and tcp_mem 50 100 2000000000 is above its cap of $cap pages"
	[ "$(sysctl_in - net.ipv4.tcp_mem)" = "$want" ]
	barrier
	# "cannot grow" was not taken for TCP being short of memory
	! grep -E "low-memory mode|high_order_alloc_disable 0 -> 1|tcp_no_metrics_save 0 -> 1" "$LOG"
	[ "$(sysctl -n net.core.high_order_alloc_disable)" -eq 0 ]
	# -R puts the operator's value back at exit
	stop_daemon
	[ "$DAEMON_STATUS" -eq 0 ]
	[ "$(sysctl_in - net.ipv4.tcp_mem)" = "50 100 2000000000" ]
}

@test "an admin write to tcp_rmem in a netns stops the tuner there and only there (-a tcp_buffer: admin override is core)" {
	local admin_ns tuned_ns admin_ip tuned_ip admin_cli tuned_cli
	make_pair
	admin_cli="$CLI" admin_ns="$SRV" admin_ip="$SRV_IP"
	make_pair
	tuned_cli="$CLI" tuned_ns="$SRV" tuned_ip="$SRV_IP"
	ip netns exec "$admin_ns" sysctl -qw net.ipv4.tcp_rmem="4096 131072 262144"
	ip netns exec "$tuned_ns" sysctl -qw net.ipv4.tcp_rmem="4096 131072 262144"
	local sock="$BATS_TEST_TMPDIR/bpftune.sock" i
	# only tcp_buffer is selected: admin-override detection runs anyway
	start_daemon -a tcp_buffer --socket "$sock"
	grep -q "core admin_override started" "$LOG"
	ip netns exec "$admin_ns" sysctl -qw net.ipv4.tcp_rmem="4096 131072 200000"
	wait_for_log "tuner tcp_buffer stopped in netns $admin_ns"
	grep -q "net.ipv4.tcp_rmem was set to '4096.131072.200000' by pid [0-9]* (sysctl) in netns $admin_ns" "$LOG"
	# traffic there until its reports arrive and are ignored (a loaded
	# machine may need more than one run for the buffer to near its max)
	for i in 1 2 3; do
		iperf "$admin_cli" "$admin_ns" "$admin_ip" 3
		"$BPFTUNE" --socket "$sock" -q tuners |
			grep -qE "^tcp_buffer: .* events \([1-9][0-9]* ignored\)" && break
	done
	# and in the other netns until the tuner raises it there (a loaded
	# machine may need more than one run)
	for i in 1 2 3 4 5; do
		iperf "$tuned_cli" "$tuned_ns" "$tuned_ip" 2
		wait_for_log "tcp_rmem 4096 131072 262144 -> 4096 131072 327680 in netns $tuned_ns" 5 && break
	done
	grep -q "tcp_rmem 4096 131072 262144 -> 4096 131072 327680 in netns $tuned_ns" "$LOG"
	[ "$(max_of "$admin_ns" net.ipv4.tcp_rmem)" -eq 200000 ]
	! grep -q "tcp_rmem .* in netns $admin_ns (" "$LOG"
	stop_daemon
	grep -qE "summary: tuner tcp_buffer: [0-9]+ events, [1-9][0-9]* ignored" "$LOG"
}

@test "the buffer caps hold: tcp_rmem and tcp_wmem stop at 64 MiB" {
	# a socket must come within 25 % of a 60 MB max: a TCG guest's sender
	# is CPU-bound long before that (its cwnd stops growing); the cap is
	# the library's clamp, the same on every kernel (and unit-tested)
	[ "$MODE" = host ] || skip "needs 45 MB socket buffers, beyond a qemu TCG guest's throughput"
	make_bloated_path 1gbit
	ip netns exec "$CLI" sysctl -qw net.ipv4.tcp_wmem="4096 16384 60000000"
	ip netns exec "$SRV" sysctl -qw net.ipv4.tcp_rmem="4096 131072 60000000"
	start_daemon
	# up to 20 s of traffic: under qemu TCG the buffers take longer to fill
	iperf_bg "$CLI" "$SRV" "$SRV_IP" 20
	# the bound from the measured BDP may take a step below the cap first
	wait_for_log "net.ipv4.tcp_wmem 4096 16384 [0-9]+ -> 4096 16384 67108864 in netns $CLI .*\(held at the tunable's cap\)" 30
	wait_for_log "net.ipv4.tcp_rmem 4096 131072 [0-9]+ -> 4096 131072 67108864 in netns $SRV .*\(held at the tunable's cap\)" 30
	[ "$(max_of "$CLI" net.ipv4.tcp_wmem)" -eq 67108864 ]
	[ "$(max_of "$SRV" net.ipv4.tcp_rmem)" -eq 67108864 ]
	# at the cap, later reports change nothing and log nothing
	stop_daemon
	[ "$(grep -c "net.ipv4.tcp_wmem 4096 16384 [0-9]* -> 4096 16384 67108864 in netns $CLI " "$LOG")" -eq 1 ]
	! grep -q "net.ipv4.tcp_wmem 4096 16384 67108864 -> .* in netns $CLI " "$LOG"
	! grep -q "net.ipv4.tcp_rmem 4096 131072 67108864 -> .* in netns $SRV " "$LOG"
	[ "$(grep -c "net.ipv4.tcp_rmem 4096 131072 [0-9]* -> 4096 131072 67108864 in netns $SRV " "$LOG")" -eq 1 ]
}

@test "latency guard: when RTT rises with tcp_wmem on a bloated path, the tuner steps back and holds" {
	local peak
	make_bloated_path 100mbit
	ip netns exec "$CLI" sysctl -qw net.ipv4.tcp_wmem="4096 16384 1048576"
	ip netns exec "$SRV" sysctl -qw net.ipv4.tcp_rmem="4096 131072 67108864"
	start_daemon
	iperf "$CLI" "$SRV" "$SRV_IP" 4
	wait_for_log "buffer growth raised latency: net.ipv4.tcp_wmem 4096 16384 [0-9]+ -> 4096 16384 [0-9]+ in netns $CLI \(cookie [0-9]+\): RTT rose with the tcp_wmem max \(r=[0-9.]+ over [0-9]+ samples at [0-9]+ settings; line fitted across them: RTT \+[0-9]+%(, throughput [-+][0-9]+%)? of the mean\): more buffer only added queueing; stepping back and holding for 60 s"
	# stepped back below the highest value it had raised to
	peak="$(sed -n "s/.*send buffer near tcp_wmem max: net.ipv4.tcp_wmem 4096 16384 [0-9]* -> 4096 16384 \([0-9]*\) in netns $CLI .*/\1/p" "$LOG" | sort -n | tail -1)"
	[ "$(max_of "$CLI" net.ipv4.tcp_wmem)" -lt "$peak" ]
	# and holds: no raise in that netns after the step back (the global
	# netns may see other traffic on a shared host)
	! sed -n '/buffer growth raised latency/,$p' "$LOG" | grep -q "send buffer near tcp_wmem max: net.ipv4.tcp_wmem .* in netns $CLI "
}

@test "receive autotuning switched off by hand is switched back on for a buffer-limited receiver" {
	make_pair
	ip netns exec "$SRV" sysctl -qw net.ipv4.tcp_moderate_rcvbuf=0
	start_daemon
	iperf "$CLI" "$SRV" "$SRV_IP" 2
	wait_for_log "receive autotuning off: net.ipv4.tcp_moderate_rcvbuf 0 -> 1 in netns $SRV .*: a receiver's queue filled its fixed buffer while receive autotuning was off"
	[ "$(sysctl_in "$SRV" net.ipv4.tcp_moderate_rcvbuf)" -eq 1 ]
}

# syn_tools: write the SYN flooder, the listener and the connecting
# client used by the SYN tests into $BATS_TEST_TMPDIR.
syn_tools() {
	cat >"$BATS_TEST_TMPDIR/synflood.py" <<'PY'
# raw SYNs from spoofed peers PREFIX.100-199 that never answer
import random, socket, struct, sys, time
dst, port, secs, prefix = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
def csum(b):
    if len(b) % 2:
        b += b'\0'
    s = sum(struct.unpack('!%dH' % (len(b) // 2), b))
    s = (s >> 16) + (s & 0xffff)
    s += s >> 16
    return ~s & 0xffff
s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
end, i = time.time() + secs, 0
while time.time() < end:
    src = prefix + str(100 + i % 100)
    tcp = struct.pack('!HHIIBBHHH', 20000 + i % 40000, port,
                      random.getrandbits(32), 0, 5 << 4, 0x02, 64240, 0, 0)
    pseudo = struct.pack('!4s4sBBH', socket.inet_aton(src),
                         socket.inet_aton(dst), 0, 6, len(tcp))
    tcp = tcp[:16] + struct.pack('!H', csum(pseudo + tcp)) + tcp[18:]
    ip = struct.pack('!BBHHHBBH4s4s', 0x45, 0, 20 + len(tcp), i & 0xffff, 0,
                     64, 6, 0, socket.inet_aton(src), socket.inet_aton(dst))
    s.sendto(ip + tcp, (dst, 0))
    i += 1
    if i % 50 == 0:
        time.sleep(0.05)
PY
	cat >"$BATS_TEST_TMPDIR/listener.py" <<'PY'
# accept everything for SECS seconds
import socket, sys, time
s = socket.socket()
s.bind((sys.argv[1], int(sys.argv[2])))
s.listen(int(sys.argv[3]))
s.settimeout(0.2)
end, conns = time.time() + float(sys.argv[4]), []
while time.time() < end:
    try:
        conns.append(s.accept()[0])
    except socket.timeout:
        pass
PY
	cat >"$BATS_TEST_TMPDIR/connect.py" <<'PY'
# N connections at once, then wait up to SECS for them; prints how many made it
import select, socket, sys, time
dst, port, n, secs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
socks, done = [], set()
for _ in range(n):
    c = socket.socket()
    c.setblocking(False)
    c.connect_ex((dst, port))
    socks.append(c)
end = time.time() + secs
while time.time() < end and len(done) < n:
    _, w, _ = select.select([], [c for c in socks if c not in done], [], 0.2)
    done.update(c for c in w if c.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == 0)
print(len(done))
PY
}

# bats test_tags=hooks
@test "a SYN flood from peers that never answer turns syncookies on without growing the SYN backlog, and off again once it is over" {
	make_pair
	syn_tools
	ip netns exec "$SRV" sysctl -qw net.ipv4.tcp_syncookies=0
	ip netns exec "$SRV" sysctl -qw net.ipv4.tcp_max_syn_backlog=128
	# half-open requests give up after two resends: the test ends sooner
	ip netns exec "$SRV" sysctl -qw net.ipv4.tcp_synack_retries=2
	ip netns exec "$SRV" python3 "$BATS_TEST_TMPDIR/listener.py" "$SRV_IP" 7000 1024 40 &
	IPERF_PIDS="$!"
	start_daemon -d
	wait_listening "$SRV" 7000
	ip netns exec "$CLI" python3 "$BATS_TEST_TMPDIR/synflood.py" "$SRV_IP" 7000 4 \
		"${SRV_IP%.*}."
	wait_for_log "SYN flood: net.ipv4.tcp_syncookies 0 -> 1 in netns $SRV \(cookie [0-9]+\): SYN flood on port 7000: [0-9]+ SYNs dropped or left half-open against 0 completed handshakes" 10
	[ "$(sysctl_in "$SRV" net.ipv4.tcp_syncookies)" -eq 1 ]
	[ "$(sysctl_in "$SRV" net.ipv4.tcp_max_syn_backlog)" -eq 128 ]
	! grep -q "tcp_max_syn_backlog 128 ->" "$LOG"
	# the flood is over: cookies go back to what they were
	wait_for_log "SYN flood over: net.ipv4.tcp_syncookies 1 -> 0 in netns $SRV .*the flood is over" 30
	[ "$(sysctl_in "$SRV" net.ipv4.tcp_syncookies)" -eq 0 ]
	! grep -q "tcp_max_syn_backlog 128 ->" "$LOG"
}

@test "legitimate SYN load (slow handshakes that complete) grows tcp_max_syn_backlog; syncookies stay off" {
	make_pair
	syn_tools
	ip netns exec "$SRV" sysctl -qw net.ipv4.tcp_syncookies=0
	ip netns exec "$SRV" sysctl -qw net.ipv4.tcp_max_syn_backlog=128
	# a slow return path: SYN-ACKs take seconds, the handshakes complete
	ip netns exec "$SRV" tc qdisc add dev tbs root tbf rate 20kbit burst 1600 limit 1mb
	ip netns exec "$SRV" python3 "$BATS_TEST_TMPDIR/listener.py" "$SRV_IP" 7000 4096 120 &
	IPERF_PIDS="$!"
	start_daemon -d
	wait_listening "$SRV" 7000
	# the client keeps every connection open until all 300 have completed:
	# one that gave up would leave SYN-ACKs unanswered, which is what a
	# flood looks like (a starved client must not turn this into one)
	local done="$BATS_TEST_TMPDIR/connected"
	ip netns exec "$CLI" python3 "$BATS_TEST_TMPDIR/connect.py" "$SRV_IP" 7000 300 100 \
		>"$done.tmp" && mv "$done.tmp" "$done" &
	IPERF_PIDS="$IPERF_PIDS $!"
	wait_for_log "SYN queue near its limit: net.ipv4.tcp_max_syn_backlog 128 -> 160 in netns $SRV \(cookie [0-9]+\): listener on port 7000: [0-9]+ half-open requests, [0-9]+ SYNs dropped past 3/4 of tcp_max_syn_backlog, and the handshakes complete .*: legitimate load" 60
	for _ in $(seq 1 1000); do
		[ -s "$done" ] && break
		sleep 0.1
	done
	[ "$(cat "$done")" -eq 300 ]
	barrier
	[ "$(sysctl_in "$SRV" net.ipv4.tcp_max_syn_backlog)" -ge 160 ]
	[ "$(sysctl_in "$SRV" net.ipv4.tcp_syncookies)" -eq 0 ]
	! grep -q "SYN flood:" "$LOG"
}
