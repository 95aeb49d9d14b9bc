# SPDX-License-Identifier: GPL-2.0-only
# Helpers for the tests of operating the daemon (control.bats, rollback.bats,
# strategy.bats, metrics.bats, hotplug.bats).  Load after helpers.bash.
#
# Each test gets its own root-only run directory for the control socket,
# the rollback journal and the metrics file, so tests running at the same
# time (and daemons other tests start) do not share them.

STRATEGY_PORT=47998

# usage: make_run_dir; then start_daemon --socket "$SOCK" --journal "$JOURNAL" ...
make_run_dir() {
	RUN_DIR="$(mktemp -d /run/bpftune-run.XXXXXX)"
	SOCK="$RUN_DIR/bpftune.sock"
	JOURNAL="$RUN_DIR/journal"
}

# bq QUERY [--json]: ask the daemon of this test
bq() {
	"$BPFTUNE" --socket "$SOCK" -q "$@"
}

# wait until the control socket of this test answers
wait_for_socket() {
	local i
	for i in $(seq 1 50); do
		bq help >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	return 1
}

# close_conn NS|-: one TCP connection to the strategy fixture's port closes
close_conn() {
	local py="import socket
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(('127.0.0.1', $STRATEGY_PORT)); s.listen(1)
c = socket.create_connection(('127.0.0.1', $STRATEGY_PORT)); a, _ = s.accept()
c.close(); a.close(); s.close()"
	in_ns "$1" python3 -c "$py"
}

qlen_in() {
	in_ns "$1" cat /proc/sys/net/unix/max_dgram_qlen
}

set_qlen() {
	in_ns "$1" sh -c "echo $2 > /proc/sys/net/unix/max_dgram_qlen"
}

# count_log PATTERN: lines of $LOG matching (grep -E)
count_log() {
	grep -cE -- "$1" "$LOG" || true
}

operate_setup() {
	# the strategy fixture keeps one strategy unless a test wants turns:
	# an event that comes while strategies switch is not seen
	export STRATEGY_TIMEOUT_MS=600000
	SAVED_SOMAXCONN="$(cat /proc/sys/net/core/somaxconn)"
	SAVED_QLEN="$(cat /proc/sys/net/unix/max_dgram_qlen)"
	make_run_dir
}

operate_teardown() {
	common_teardown
	[ -n "${SAVED_QLEN:-}" ] && echo "$SAVED_QLEN" > /proc/sys/net/unix/max_dgram_qlen
	[ -n "${RUN_DIR:-}" ] && rm -rf "$RUN_DIR"
	RUN_DIR=
}
