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

# blast_tool: $BATS_TEST_TMPDIR/blast.py (pressure_blast_tool in
# test/pressure.bash)
blast_tool() {
	pressure_blast_tool "$BATS_TEST_TMPDIR"
}
