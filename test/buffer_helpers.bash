# SPDX-License-Identifier: GPL-2.0-only
# Helpers for the buffer tuners' tests (net_buffer.bats, udp_buffer.bats):
# a tuner whose sysctls are global, tested with UDP between two network
# namespaces joined by a veth pair.  Load after helpers.bash.

# buffer_setup TUNER GLOBAL...: only TUNER in the
# plugin directory, the global sysctls saved (restored by buffer_teardown)
buffer_setup() {
	BUFFER_TUNER=$1
	shift
	make_plugin_dir admin_override "$BUFFER_TUNER"
	save_globals "$@"
	PIDS=
}

# buffer_teardown: the log on failure, the test's processes ($PIDS)
# stopped, the daemon and namespaces gone, the globals restored
buffer_teardown() {
	local pid
	log_on_failure "$BUFFER_TUNER|error|warning"
	for pid in $PIDS; do
		kill "$pid" 2>/dev/null || true
	done
	PIDS=
	common_teardown
	restore_globals
}

# start_tuner [daemon args]: the daemon with this tuner (and the core mechanisms)
start_tuner() {
	start_daemon -a admin_override -a "$BUFFER_TUNER" "$@"
}

# veth_pair CLI_DEV SRV_DEV NET: $CLI (NET.1) -- veth -- $SRV (NET.2 =
# $SRV_IP), NET the first three bytes of a /24
veth_pair() {
	CLI="$(make_netns)"
	SRV="$(make_netns)"
	ip link add "$1" netns "$CLI" type veth peer name "$2" netns "$SRV"
	ip -n "$CLI" addr add "$3.1/24" dev "$1"
	ip -n "$SRV" addr add "$3.2/24" dev "$2"
	ip -n "$CLI" link set "$1" up
	ip -n "$SRV" link set "$2" up
	SRV_IP="$3.2"
}

# blast_tool: $BATS_TEST_TMPDIR/blast.py IP PORT SECS [COUNT [SIZE]] sends
# SIZE-byte datagrams (default 1400) as fast as it can for SECS seconds,
# to COUNT ports (default 1) from PORT in turn
blast_tool() {
	cat >"$BATS_TEST_TMPDIR/blast.py" <<'PY'
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
