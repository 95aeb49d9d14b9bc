# SPDX-License-Identifier: GPL-2.0-only
# The suite's guard over the global netns's tunables.  test/run-tests.sh
# snapshots them (globals_guard_start) into BPFTUNE_GLOBALS_GUARD, a
# directory; every load of helpers.bash (each test, setup_file and
# teardown_file) then checks that what ran before it put every one back,
# names it in $BPFTUNE_GLOBALS_GUARD/leaks if not, and puts the snapshot
# back so the tests after it start from the operator's values.  Reads
# /proc with the shell's read: hundreds of loads, no process each.

GLOBAL_TUNABLES=(
	net.core.flow_limit_cpu_bitmap net.core.high_order_alloc_disable
	net.core.mem_pcpu_rsv net.core.netdev_budget net.core.netdev_budget_usecs
	net.core.netdev_max_backlog net.core.rmem_default net.core.rmem_max
	net.core.wmem_default net.core.wmem_max net.core.somaxconn
	net.ipv4.ipfrag_high_thresh net.ipv4.ipfrag_low_thresh
	net.ipv4.tcp_congestion_control net.ipv4.tcp_max_syn_backlog
	net.ipv4.tcp_mem net.ipv4.tcp_moderate_rcvbuf net.ipv4.tcp_no_metrics_save
	net.ipv4.tcp_rmem net.ipv4.tcp_wmem net.ipv4.tcp_syncookies net.ipv4.udp_mem
	net.ipv6.ip6frag_high_thresh net.ipv6.ip6frag_low_thresh
	net.ipv6.route.max_size net.unix.max_dgram_qlen
)

# one "name=value" line per tunable this kernel has
globals_snapshot() {
	local s v
	for s in "${GLOBAL_TUNABLES[@]}"; do
		[ -r "/proc/sys/${s//.//}" ] || continue
		IFS= read -r v < "/proc/sys/${s//.//}" || continue
		printf '%s=%s\n' "$s" "$v"
	done
}

# put SNAPSHOT (a file) back, twice over: a low threshold may not pass
# its high one until that one is written
globals_restore() {
	local kv cur path _
	for _ in 1 2; do
		while IFS= read -r kv; do
			path="/proc/sys/${kv%%=*}"
			path="${path//.//}"
			IFS= read -r cur < "$path" 2>/dev/null
			[ "$cur" = "${kv#*=}" ] || echo "${kv#*=}" > "$path" 2>/dev/null || true
		done < "$1"
	done
}

globals_guard_start() {
	export BPFTUNE_GLOBALS_GUARD="$1"
	mkdir -p "$1"
	globals_snapshot > "$1/saved"
	: > "$1/leaks"
	echo "the suite's start" > "$1/last"
}

# what changed since the snapshot, as "name: saved -> now" lines
globals_changed() {
	diff <(cat "$1/saved") <(globals_snapshot) | awk -F= '
		/^< / { sub(/^< /, ""); n = $1; sub(/^[^=]*=/, ""); was[n] = $0 }
		/^> / { sub(/^> /, ""); n = $1; sub(/^[^=]*=/, ""); now[n] = $0 }
		END { for (n in was) printf "%s: %s -> %s\n", n, was[n], now[n] }'
}

globals_guard() {
	local d="${BPFTUNE_GLOBALS_GUARD:-}" changed
	[ -n "$d" ] && [ -f "$d/saved" ] || return 0
	changed="$(globals_changed "$d")"
	if [ -n "$changed" ]; then
		sed "s|^|$(cat "$d/last"): |" <<<"$changed" >> "$d/leaks"
		globals_restore "$d/saved"
	fi
	if [ -n "${BATS_TEST_NAME:-}" ]; then
		# the test's name back from bats' function name: test_ dropped,
		# "_" a space, "-2d" the byte 0x2d
		local n="${BATS_TEST_NAME#test_}"
		n="${n//_/ }"
		printf '%s "%b"\n' "${BATS_TEST_FILENAME##*/}" "${n//-/\\x}" > "$d/last"
	else
		echo "${BATS_TEST_FILENAME##*/} setup_file/teardown_file" > "$d/last"
	fi
}
