# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# Pressure fixtures: what brings a limit near from calm, shared by the
# hooks tests (test/*.bats, through their helpers) and the reaction-time
# benchmark (bench/reaction.sh).  Sourced; no state of bats or of the
# benchmark: namespaces, addresses and the directory for scratch files
# are arguments, and a process started in the background is left in
# $PRESSURE_PID for the caller to track.

# pressure_wait_listen NS PORT [SECS]: until a TCP socket listens on PORT
# in NS (10 s by default)
pressure_wait_listen() {
	local i
	for i in $(seq 1 $((${3:-10} * 10 * ${WAIT_SCALE:-1}))); do
		ip netns exec "$1" ss -Hltn "sport = :$2" | grep -q . && return 0
		sleep 0.1
	done
	return 1
}

# pressure_iperf_server NS IP PORT: one iperf3 server (-1) on IP:PORT in NS,
# in the background ($PRESSURE_PID), listening when this returns
pressure_iperf_server() {
	ip netns exec "$1" iperf3 -s -1 -B "$2" -p "$3" >/dev/null 2>&1 &
	# shellcheck disable=SC2034 # read by the caller
	PRESSURE_PID=$!
	pressure_wait_listen "$1" "$3"
}

# pressure_blast_tool DIR: DIR/blast.py IP PORT SECS [COUNT [SIZE]] sends
# SIZE-byte datagrams (default 1400) as fast as it can for SECS seconds,
# to COUNT ports (default 1) from PORT in turn
pressure_blast_tool() {
	cat >"$1/blast.py" <<'PY'
import socket, sys, time
count = int(sys.argv[4]) if len(sys.argv) > 4 else 1
size = int(sys.argv[5]) if len(sys.argv) > 5 else 1400
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
msg, end = b'x' * size, time.time() + float(sys.argv[3])
while time.time() < end:
    for i in range(200):
        try:
            s.sendto(msg, (sys.argv[1], int(sys.argv[2]) + i % count))
        except OSError:
            pass
PY
}

# pressure_slow_rx NS DEV CPU OBJ: packets received on DEV in NS are all
# steered (RPS) to CPU and held there by the slow tc classifier OBJ
# (test/bpf/slow_rx.bpf.c, 50 us each): a sender on another CPU fills
# that CPU's backlog and its receive rounds run into their limits
pressure_slow_rx() {
	ip netns exec "$1" sh -c "printf '%x' $((1 << $3)) > /sys/class/net/$2/queues/rx-0/rps_cpus"
	ip netns exec "$1" tc qdisc add dev "$2" clsact
	ip netns exec "$1" tc filter add dev "$2" ingress bpf direct-action obj "$4" sec tc
}

# pressure_frags NS DST: from NS, five 30000-byte UDP datagrams to DST (IPv4
# or IPv6) 50 ms apart, fragmented by the sender, reassembled by DST's
# netns (UDP rather than ICMP echo: the same reassembly, and ping is not
# installed everywhere)
pressure_frags() {
	ip netns exec "$1" python3 -c '
import socket, sys, time
dst = sys.argv[1]
s = socket.socket(socket.AF_INET6 if ":" in dst else socket.AF_INET, socket.SOCK_DGRAM)
for _ in range(5):
    try:
        s.sendto(b"x" * 30000, (dst, 9))
    except OSError:
        pass
    time.sleep(0.05)
' "$2"
}

# pressure_neigh_batch NS DEV NET FROM COUNT FILE: stale neighbour entries
# NET.x.y on DEV in NS (FILE: the batch); those a full table refuses fail,
# the rest go in
pressure_neigh_batch() {
	local ns="$1" dev="$2" net="$3" from="$4" n="$5" file="$6" i
	for ((i = from; i < from + n; i++)); do
		printf 'neigh replace %s.%d.%d lladdr 02:00:00:00:%02x:%02x dev %s nud stale\n' \
			"$net" $((i / 250)) $((i % 250 + 2)) $((i / 256)) $((i % 256)) "$dev"
	done >"$file"
	ip -n "$ns" -force -batch "$file" 2>/dev/null || true
}

# pressure_routed NS: link rt0 with 2001:db8:ff::1/64 in NS (a veth whose
# peer is in NS too: a kernel may have no dummy links), the gateway
# 2001:db8:ff::2 of pressure_routes behind it
pressure_routed() {
	ip -n "$1" link add rt0 type veth peer name rt1
	ip -n "$1" link set rt1 up
	ip -n "$1" link set rt0 up
	ip -n "$1" -6 addr add 2001:db8:ff::1/64 dev rt0 nodad
}

# pressure_routes NS OP FROM COUNT FILE: add or del /64 routes 2001:db8:N::
# via the gateway of pressure_routed (FILE: the batch)
pressure_routes() {
	local ns="$1" op="$2" from="$3" n="$4" file="$5" i
	for ((i = from; i < from + n; i++)); do
		printf 'route %s 2001:db8:%x::/64 via 2001:db8:ff::2 dev rt0\n' "$op" "$i"
	done >"$file"
	ip -n "$ns" -6 -batch "$file"
}
