#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# Crash consistency: SIGKILL at a random moment while tuners change values
# in several namespaces, then bpftune --restore (odd rounds) or a restart
# with -R (even rounds): every namespace back to its original values,
# every round.  CRASH_ROUNDS rounds (default 12, six of each restore path;
# a soak takes more), CRASH_SEED for the random moments (default: random,
# printed).

load helpers
load operate_helpers

setup() {
	operate_setup
	TRAFFIC=()
}

teardown() {
	stop_traffic
	stop_daemon
	operate_teardown
}

# keep test connections closing in NS, in the background
traffic() {
	(
		while :; do
			close_conn "$1" 2>/dev/null || sleep 0.05
		done
	) &
	TRAFFIC+=($!)
}

stop_traffic() {
	local p
	for p in "${TRAFFIC[@]}"; do
		pkill -P "$p" 2>/dev/null || :
		kill "$p" 2>/dev/null || :
		wait "$p" 2>/dev/null || :	# 143: killed, as asked
	done
	TRAFFIC=()
}

changes_made() {
	count_log "max_dgram_qlen [0-9]+ -> [0-9]+ in "
}

@test "SIGKILL at random moments while tuning 3 namespaces and the global one: every round restored" {
	local rounds="${CRASH_ROUNDS:-12}" seed="${CRASH_SEED:-$RANDOM}" r ns i
	local -a nss orig
	local mid=0 total=0
	RANDOM=$seed
	echo "# $rounds rounds, CRASH_SEED=$seed" >&3
	for i in 0 1 2; do
		nss[i]="$(make_netns)"
	done
	make_plugin_dir strategy
	for r in $(seq 1 "$rounds"); do
		# fresh originals each round: a value left from a round shows
		for i in 0 1 2; do
			orig[i]=$((10 + RANDOM % 50))
			set_qlen "${nss[i]}" "${orig[i]}"
		done
		orig[3]=$((100 + RANDOM % 50))
		set_qlen - "${orig[3]}"
		start_daemon --socket "$SOCK" --journal "$JOURNAL" -R --no-telemetry
		for i in 0 1 2; do
			traffic "${nss[i]}"
		done
		traffic -
		wait_for_log "max_dgram_qlen [0-9]+ -> [0-9]+ in " 30
		# then a random moment within the next 2 s of changes
		sleep "$((RANDOM % 2)).$((RANDOM % 1000))"
		kill_daemon
		stop_traffic
		total=$((total + $(changes_made)))
		# the daemon left changes behind (else the round shows nothing)
		local moved=0
		for i in 0 1 2; do
			[ "$(qlen_in "${nss[i]}")" -ne "${orig[i]}" ] && moved=$((moved + 1))
		done
		[ "$(qlen_in -)" -ne "${orig[3]}" ] && moved=$((moved + 1))
		[ "$moved" -gt 0 ] && mid=$((mid + 1))
		if [ $((r % 2)) -eq 1 ]; then
			run "$BPFTUNE" --restore --journal "$JOURNAL"
			[ "$status" -eq 0 ] || { echo "round $r: --restore: $output" >&3; false; }
		else
			start_daemon --socket "$SOCK" --journal "$JOURNAL" -R --no-telemetry
			stop_daemon
			[ "$DAEMON_STATUS" -eq 0 ]
		fi
		for i in 0 1 2; do
			[ "$(qlen_in "${nss[i]}")" -eq "${orig[i]}" ] ||
				{ echo "round $r: netns ${nss[i]}: $(qlen_in "${nss[i]}"), want ${orig[i]}" >&3; false; }
		done
		[ "$(qlen_in -)" -eq "${orig[3]}" ] ||
			{ echo "round $r: global: $(qlen_in -), want ${orig[3]}" >&3; false; }
		[ ! -s "$JOURNAL" ]
	done
	echo "# $rounds rounds: $mid killed with changes in place, $total changes made, all restored" >&3
	# most rounds were killed mid-tuning: the test tested something
	[ "$mid" -ge $((rounds / 2)) ]
}
