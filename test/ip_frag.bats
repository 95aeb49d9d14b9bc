#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# bats file_tags=kernel
# The ip_frag tuner on this machine's kernel: large fragmented datagrams
# (IPv4 and IPv6) over a veth pair, into a netns and into the global netns.  The
# thresholds are per netns; the global test saves and restores the
# global ones and loads only this tuner (-a).

load helpers

GLOBALS="net.ipv4.ipfrag_high_thresh net.ipv4.ipfrag_low_thresh net.ipv6.ip6frag_high_thresh net.ipv6.ip6frag_low_thresh"

setup() {
	make_plugin_dir admin_override ip_frag
	save_globals $GLOBALS
	GLOBAL_LINK=
}

teardown() {
	log_on_failure "ip_frag|error|warning"
	common_teardown
	[ -n "$GLOBAL_LINK" ] && ip link del "$GLOBAL_LINK" 2>/dev/null
	# high thresholds first: a low one may not exceed its high one
	restore_globals
}

start_tuner() {
	start_daemon -a admin_override -a ip_frag "$@"
}

# thresholds NS LOW HIGH: both families ("-": global netns)
thresholds() {
	local exec=()
	[ "$1" = - ] || exec=(ip netns exec "$1")
	"${exec[@]}" sysctl -qw net.ipv4.ipfrag_low_thresh="$2" net.ipv6.ip6frag_low_thresh="$2"
	"${exec[@]}" sysctl -qw net.ipv4.ipfrag_high_thresh="$3" net.ipv6.ip6frag_high_thresh="$3"
}

high_in() {
	if [ "$1" = - ]; then
		sysctl -n "$2"
	else
		ip netns exec "$1" sysctl -n "$2"
	fi
}

# $CLI -- veth -- $SRV, IPv4 192.168.73.0/24 and IPv6 fd00:73::/64
make_pair() {
	CLI="$(make_netns)"
	SRV="$(make_netns)"
	ip link add ifc netns "$CLI" type veth peer name ifs netns "$SRV"
	ip -n "$CLI" addr add 192.168.73.1/24 dev ifc
	ip -n "$SRV" addr add 192.168.73.2/24 dev ifs
	ip -n "$CLI" addr add fd00:73::1/64 dev ifc nodad
	ip -n "$SRV" addr add fd00:73::2/64 dev ifs nodad
	ip -n "$CLI" link set ifc up
	ip -n "$SRV" link set ifs up
}

# big_pings NS DST PATTERN [TRIES]: 30000-byte datagrams, fragmented by the
# sender and reassembled by DST's netns (pressure_frags), until the log
# shows PATTERN
big_pings() {
	local ns="$1" dst="$2" pattern="$3" i
	for i in $(seq 1 "${4:-40}"); do
		pressure_frags "$ns" "$dst"
		grep -qE -- "$pattern" "$LOG" && return 0
	done
	return 1
}

@test "ip_frag starts in every mode with its caps logged" {
	start_tuner
	grep -q "tuner ip_frag started" "$LOG"
	grep -q "tuner ip_frag: caps: ipfrag_high_thresh and ip6frag_high_thresh 33554432 bytes per netns" "$LOG"
}

# bats test_tags=hooks
@test "IPv4 and IPv6 thresholds at 8 KB in a netns grow with large fragmented datagrams, there only" {
	local g4 g6
	make_pair
	thresholds "$SRV" 4096 8192
	g4="$(high_in - net.ipv4.ipfrag_high_thresh)"
	g6="$(high_in - net.ipv6.ip6frag_high_thresh)"
	start_tuner
	big_pings "$CLI" 192.168.73.2 "net.ipv4.ipfrag_high_thresh 8192 -> 10240 in netns $SRV"
	grep -qE "reassembly memory near its limit: net.ipv4.ipfrag_high_thresh 8192 -> 10240 in netns $SRV \(cookie [0-9]+\): IPv4 fragments awaiting reassembly hold [0-9]+ bytes, within 25% of the threshold" "$LOG"
	big_pings "$CLI" fd00:73::2 "net.ipv6.ip6frag_high_thresh 8192 -> 10240 in netns $SRV"
	grep -qE "reassembly memory near its limit: net.ipv6.ip6frag_high_thresh 8192 -> 10240 in netns $SRV \(cookie [0-9]+\): IPv6 fragments awaiting reassembly" "$LOG"
	[ "$(high_in "$SRV" net.ipv4.ipfrag_high_thresh)" -ge 10240 ]
	[ "$(high_in "$SRV" net.ipv6.ip6frag_high_thresh)" -ge 10240 ]
	# the sender's netns and the global one were not touched
	[ "$(high_in "$CLI" net.ipv4.ipfrag_high_thresh)" -eq 4194304 ]
	[ "$(high_in - net.ipv4.ipfrag_high_thresh)" -eq "$g4" ]
	[ "$(high_in - net.ipv6.ip6frag_high_thresh)" -eq "$g6" ]
}

@test "IPv4 and IPv6 thresholds at 8 KB in the global netns grow with large fragmented datagrams" {
	CLI="$(make_netns)"
	GLOBAL_LINK="ifg$$"
	ip link add "$GLOBAL_LINK" type veth peer name ifp netns "$CLI"
	ip addr add 192.168.74.1/24 dev "$GLOBAL_LINK"
	ip addr add fd00:74::1/64 dev "$GLOBAL_LINK" nodad
	ip -n "$CLI" addr add 192.168.74.2/24 dev ifp
	ip -n "$CLI" addr add fd00:74::2/64 dev ifp nodad
	ip link set "$GLOBAL_LINK" up
	ip -n "$CLI" link set ifp up
	thresholds - 4096 8192
	start_tuner
	big_pings "$CLI" 192.168.74.1 "net.ipv4.ipfrag_high_thresh 8192 -> 10240 in global netns: IPv4 fragments awaiting reassembly"
	big_pings "$CLI" fd00:74::1 "net.ipv6.ip6frag_high_thresh 8192 -> 10240 in global netns: IPv6 fragments awaiting reassembly"
	[ "$(high_in - net.ipv4.ipfrag_high_thresh)" -ge 10240 ]
	[ "$(high_in - net.ipv6.ip6frag_high_thresh)" -ge 10240 ]
}

@test "the threshold cap holds: a flood of fragments that never complete stops it at 32 MiB" {
	make_pair
	thresholds "$SRV" 3145728 30000000
	cat >"$BATS_TEST_TMPDIR/fragflood.py" <<'PY'
# first fragments (MF set) that are never completed, N distinct ids
import socket, struct, sys
dst, n = sys.argv[1], int(sys.argv[2])
s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
payload = b'x' * 1400
for i in range(n):
    ip = struct.pack('!BBHHHBBH4s4s', 0x45, 0, 20 + len(payload), i & 0xffff,
                     0x2000, 64, 17, 0, socket.inet_aton('192.168.73.1'),
                     socket.inet_aton(dst))
    s.sendto(ip + payload, (dst, 0))
PY
	start_tuner
	ip netns exec "$CLI" python3 "$BATS_TEST_TMPDIR/fragflood.py" 192.168.73.2 30000
	wait_for_log "net.ipv4.ipfrag_high_thresh 30000000 -> 33554432 in netns $SRV \(cookie [0-9]+\): IPv4 fragments awaiting reassembly hold [0-9]+ bytes, within 25% of the threshold \(held at the tunable's cap\)"
	# more of it: at the cap nothing more is written
	ip netns exec "$CLI" python3 "$BATS_TEST_TMPDIR/fragflood.py" 192.168.73.2 30000
	[ "$(high_in "$SRV" net.ipv4.ipfrag_high_thresh)" -eq 33554432 ]
	stop_daemon
	[ "$(grep -c 'net.ipv4.ipfrag_high_thresh [0-9]* -> ' "$LOG")" -eq 1 ]
}

# frag_gate_line: the receive hook's gate in -q status
frag_gate_line() {
	gate_status rcv__tp
}

# wait_frag_gate STATE SECONDS: until -q status says "now STATE" (an ERE)
wait_frag_gate() {
	wait_gate_status rcv__tp "now $1" "$2"
}

# bats test_tags=hooks
@test "netif_receive_skb's program is attached only while fragments are dropped or reassembled" {
	make_pair
	thresholds "$SRV" 4096 8192
	start_tuner
	# where inet_frag_find() can be hooked, only fragments run a program
	grep -q "tuner ip_frag: hook rcv__tp gated by fragments dropped + Ip/Ip6 ReasmReqds (event gate, 1 program)" "$LOG" ||
		skip "rcv__tp not loaded in this mode: nothing to gate"
	# nothing fragments: detached (a shared host's own fragments may open
	# it: then 10 calm s close it)
	wait_frag_gate detached 60
	# asleep once calm for the calm period (gate.h, wake): the first
	# packet of the burst wakes it
	wait_frag_gate ".*asleep now, woken on netif_receive_skb" 120
	# a burst from calm: the drop over the threshold reports itself and
	# opens the gate
	big_pings "$CLI" 192.168.73.2 "net.ipv4.ipfrag_high_thresh 8192 -> 10240 in netns $SRV"
	wait_for_log "tuner ip_frag: hook rcv__tp attached: the reading moved" 10
	"$BPFTUNE" --socket "$CTL_SOCK" -q metrics |
		grep -qE '^bpftune_gate_attaches_total\{tuner="ip_frag",hook="rcv__tp",gated_by="fragments dropped \+ Ip/Ip6 ReasmReqds"\} [1-9]'
	# calm again: detached after the calm period
	wait_for_log "tuner ip_frag: hook rcv__tp detached: calm for the calm period" 60
	wait_frag_gate detached 5
	frag_gate_line | grep -qE "attached [0-9.]+ % of the time, now detached \([1-9][0-9]* attach"
}

@test "an admin write to ipfrag_high_thresh in a netns stops the tuner there and only there" {
	local admin_srv admin_cli
	make_pair
	admin_cli="$CLI" admin_srv="$SRV"
	thresholds "$SRV" 4096 8192
	start_tuner
	ip netns exec "$admin_srv" sysctl -qw net.ipv4.ipfrag_high_thresh=9000
	wait_for_log "tuner ip_frag stopped in netns $admin_srv"
	# traffic there changes nothing now
	big_pings "$admin_cli" 192.168.73.2 "will not match: only traffic" 5 || true
	[ "$(high_in "$admin_srv" net.ipv4.ipfrag_high_thresh)" -eq 9000 ]
	! grep -q "ipfrag_high_thresh .* in netns $admin_srv (" "$LOG"
	stop_daemon
	grep -qE "summary: tuner ip_frag: [0-9]+ events, [1-9][0-9]* ignored" "$LOG"
}

# slow in a TCG guest and not kernel-dependent beyond the rest of the
# file: make test-matrix runs it, the CI subset skips it
# bats test_tags=slow
@test "raised thresholds step back once reassembly memory stays low for 30 s, never below the low threshold" {
	make_pair
	thresholds "$SRV" 4096 8192
	# fragments left incomplete by the small threshold expire in 2 s
	ip netns exec "$SRV" sysctl -qw net.ipv4.ipfrag_time=2 net.ipv6.ip6frag_time=2
	start_tuner
	big_pings "$CLI" 192.168.73.2 "net.ipv4.ipfrag_high_thresh 8192 -> 10240 in netns $SRV"
	big_pings "$CLI" fd00:73::2 "net.ipv6.ip6frag_high_thresh 8192 -> 10240 in netns $SRV"
	# the admin raises the IPv4 low threshold (not a tunable of ours): the
	# high one may not go below it
	ip netns exec "$SRV" sysctl -qw net.ipv4.ipfrag_low_thresh=9000
	wait_for_log "reassembly memory no longer needed: net.ipv6.ip6frag_high_thresh [0-9]+ -> 8192 in netns $SRV \(cookie [0-9]+\): IPv6 reassembly holds [0-9]+ bytes and has needed no more for [0-9]+ s: one step back toward 8192" 150
	wait_for_log "reassembly memory no longer needed: net.ipv4.ipfrag_high_thresh [0-9]+ -> 9000 in netns $SRV \(cookie [0-9]+\): IPv4 reassembly holds [0-9]+ bytes and has needed no more for [0-9]+ s: one step back toward 8192" 30
	[ "$(high_in "$SRV" net.ipv6.ip6frag_high_thresh)" -eq 8192 ]
	[ "$(high_in "$SRV" net.ipv4.ipfrag_high_thresh)" -eq 9000 ]
	# one more round of the timer: nothing goes below the low threshold
	sleep 6
	stop_daemon
	[ "$(high_in "$SRV" net.ipv4.ipfrag_high_thresh)" -eq 9000 ]
	! grep -qE "net.ipv4.ipfrag_high_thresh 9000 -> " "$LOG"
	# every step came after the quiet period, and none went below the start
	grep "reassembly memory no longer needed: " "$LOG" > "$BATS_TEST_TMPDIR/shrinks"
	while read -r line; do
		[[ "$line" =~ needed\ no\ more\ for\ ([0-9]+)\ s ]]
		[ "${BASH_REMATCH[1]}" -ge 30 ]
		[[ "$line" =~ high_thresh\ [0-9]+\ -\>\ ([0-9]+)\ in ]]
		[ "${BASH_REMATCH[1]}" -ge 8192 ]
	done < "$BATS_TEST_TMPDIR/shrinks"
}

# flood_phase PHASE: one round of a fragment flood against $SRV: steady
# legitimate traffic (1000 UDP datagrams of 2000 bytes, two fragments each,
# all reassembled), then first fragments that never complete, sent until
# the tuner moves the IPv4 threshold of $SRV or a bound (about 6 times
# what the threshold holds) is reached.  The flood fills whatever memory it
# is given, so its share of the fragments grows with the threshold.
flood_phase() {
	cat >"$BATS_TEST_TMPDIR/flood_phase.py" <<'PY'
import os, socket, struct, sys, time
dst, src, phase = sys.argv[1], sys.argv[2], int(sys.argv[3])
def high():
    # fd 3: ipfrag_high_thresh of the receiving netns, opened there
    return int(os.pread(3, 32, 0))
h0 = high()
udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for _ in range(1000):
    try:
        udp.sendto(b'y' * 2000, (dst, 9))
    except OSError:
        pass
raw = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
payload, sent = b'x' * 1400, 0
# protocol 253 (for experiments): no id clash with the kernel's UDP
while high() == h0 and sent < h0 // 400:
    for _ in range(4):
        ident = (phase * 4096 + sent) & 0xffff
        ip = struct.pack('!BBHHHBBH4s4s', 0x45, 0, 20 + len(payload), ident,
                         0x2000, 64, 253, 0, socket.inet_aton(src),
                         socket.inet_aton(dst))
        raw.sendto(ip + payload, (dst, 0))
        sent += 1
    time.sleep(0.002)
print("phase %d: threshold %d -> %d after %d fragments" % (phase, h0, high(), sent))
PY
	ip netns exec "$SRV" bash -c 'exec 3</proc/sys/net/ipv4/ipfrag_high_thresh; exec ip netns exec "$1" python3 "$2" 192.168.73.2 192.168.73.1 "$3"' \
		_ "$CLI" "$BATS_TEST_TMPDIR/flood_phase.py" "$1"
}

# frags_expired NS: the incomplete fragments in NS have timed out (IPv4
# reassembly holds no memory): the kernel's ipfrag_time, not ours
frags_expired() {
	local i
	for i in $(seq 1 300); do
		ip netns exec "$1" awk '$1 == "FRAG:" && $5 == 0 {ok = 1} END {exit !ok}' /proc/net/sockstat &&
			return 0
		sleep 0.1
	done
	return 1
}

# slow in a TCG guest and not kernel-dependent beyond the rest of the
# file: make test-matrix runs it, the CI subset skips it
# bats test_tags=slow
@test "a fragment flood: failures rising with the threshold step it back one raise and hold it" {
	local phase before after held db
	make_pair
	thresholds "$SRV" 131072 262144
	# flood fragments time out (and count as failures) between phases;
	# not within one, even with a slow sender (qemu TCG, a busy host)
	ip netns exec "$SRV" sysctl -qw net.ipv4.ipfrag_time=4
	start_tuner
	for phase in $(seq 1 10); do
		flood_phase "$phase"
		grep -q "fragment flood: net.ipv4.ipfrag_high_thresh" "$LOG" && break
		frags_expired "$SRV"
	done
	grep -qE "fragment flood: net.ipv4.ipfrag_high_thresh [0-9]+ -> [0-9]+ in netns $SRV \(cookie [0-9]+\): IPv4 reassembly failures rose with the threshold \(r=[01]\.[0-9]+ over [4-8] samples at [1-8] settings, now [0-9.]+% of fragments\): the memory holds a fragment flood; stepping back and holding for 60 s" "$LOG"
	# one raise back: to the value before the last raise
	before="$(sed -n "s/.*near its limit: net.ipv4.ipfrag_high_thresh \([0-9]*\) -> [0-9]* in netns $SRV .*/\1/p" "$LOG" | tail -1)"
	after="$(sed -n "s/.*fragment flood: net.ipv4.ipfrag_high_thresh [0-9]* -> \([0-9]*\) in netns $SRV .*/\1/p" "$LOG")"
	[ "$after" -eq "$before" ]
	[ "$(high_in "$SRV" net.ipv4.ipfrag_high_thresh)" -eq "$after" ]
	# more of the flood fills the memory again: the threshold holds
	frags_expired "$SRV"
	flood_phase 99
	[ "$(high_in "$SRV" net.ipv4.ipfrag_high_thresh)" -eq "$after" ]
	stop_daemon
	[ "$(grep -c "ipfrag_high_thresh [0-9]* -> .* in netns $SRV " "$LOG")" -ge 5 ]
	! sed -n '/fragment flood: /,$p' "$LOG" | grep -q "near its limit: net.ipv4.ipfrag_high_thresh"
	# and it held because of the guard: a report came and was refused
	db="$(ls "$BATS_TEST_TMPDIR"/telemetry/*.db)"
	held="$(python3 - "$db" <<'PY'
import sqlite3, sys
db = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
print(db.execute("select count(*) from decisions where tuner = 'ip_frag' and "
                 "action = 'none: held by the flood guard'").fetchone()[0])
PY
)"
	[ "$held" -ge 1 ]
}
