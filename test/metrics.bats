#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# Metrics: Prometheus text format from bpftune -q metrics and in a
# node_exporter textfile directory, replaced atomically.

load helpers
load operate_helpers

setup() {
	operate_setup
	PROM_DIR="$RUN_DIR/textfile"
	mkdir -m 0755 "$PROM_DIR"
}

teardown() {
	[ -n "${WATCHER:-}" ] && kill "$WATCHER" 2>/dev/null
	operate_teardown
}

# A strict reader of the text exposition format: every sample belongs to
# a family declared by HELP and TYPE before it, names and labels are
# well-formed, values are numbers, counters are not negative.
check_prom() {
	python3 -c '
import re, sys
name = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
label = r"[a-zA-Z_][a-zA-Z0-9_]*=\"(?:[^\"\\\\\n]|\\\\[\\\\\"n])*\""
sample = re.compile(r"^(%s)(\{%s(?:,%s)*\})? (-?[0-9]+(?:\.[0-9]+)?(?:e[+-]?[0-9]+)?|NaN|[+-]Inf)$" % (name, label, label))
helps, types, seen = {}, {}, set()
text = sys.stdin.read()
assert text.endswith("\n"), "no final newline"
for n, line in enumerate(text.splitlines(), 1):
    m = re.match(r"^# HELP (%s) (.+)$" % name, line)
    if m:
        assert m.group(1) not in helps, "HELP twice: %s" % line
        helps[m.group(1)] = m.group(2)
        continue
    m = re.match(r"^# TYPE (%s) (counter|gauge|untyped)$" % name, line)
    if m:
        assert m.group(1) in helps and m.group(1) not in types, line
        types[m.group(1)] = m.group(2)
        continue
    m = sample.match(line)
    assert m, "line %d: %r" % (n, line)
    fam = m.group(1)
    assert fam in types, "sample before its TYPE: %s" % line
    assert (fam, m.group(2)) not in seen, "duplicate sample: %s" % line
    seen.add((fam, m.group(2)))
    if types[fam] == "counter":
        assert float(m.group(3)) >= 0, line
assert len(types) >= 10, types
print("%d families, %d samples" % (len(types), len(seen)))
'
}

@test "-q metrics: every family well-formed, with the values of a change" {
	local ns
	ns="$(make_netns)"
	ip netns exec "$ns" sysctl -qw net.core.somaxconn=128
	make_plugin_dir sample strategy
	start_daemon --socket "$SOCK"
	listen_backlog "$ns" 2048
	wait_for_log "somaxconn 128 -> 2048 in netns $ns"
	run bq metrics
	[ "$status" -eq 0 ]
	check_prom <<<"$output"
	grep -qx "bpftune_tunable_value{tuner=\"sample\",sysctl=\"net.core.somaxconn\",netns=\"$ns\",index=\"0\"} 2048" <<<"$output"
	grep -qx "bpftune_tunable_value{tuner=\"sample\",sysctl=\"net.core.somaxconn\",netns=\"global\",index=\"0\"} $SAVED_SOMAXCONN" <<<"$output"
	grep -qE '^bpftune_changes_total\{tuner="sample",scenario="listen backlog truncated"\} [1-9][0-9]*$' <<<"$output"
	grep -qE '^bpftune_events_total\{tuner="sample"\} [1-9][0-9]*$' <<<"$output"
	grep -qE '^bpftune_sampler_calls_total\{tuner="sample",hook="listen_sampler"\} [1-9][0-9]*$' <<<"$output"
	grep -qE '^bpftune_sampler_sampled_total\{tuner="sample",hook="listen_sampler"\} [1-9][0-9]*$' <<<"$output"
	grep -qx 'bpftune_ringbuf_lost_total{tuner="sample"} 0' <<<"$output"
	grep -qx 'bpftune_learning_rate 4' <<<"$output"
	grep -qx 'bpftune_tuner_active{tuner="sample"} 1' <<<"$output"
	grep -qE '^bpftune_strategy_active\{tuner="strategy",strategy="a"\} [01]$' <<<"$output"
	grep -qE '^bpftune_cpu_seconds_total\{mode="user"\} [0-9]+\.[0-9]{6}$' <<<"$output"
	grep -qE '^bpftune_resident_memory_bytes [1-9][0-9]{5,}$' <<<"$output"
	# live: a value changed behind the daemon's back shows at once
	ip netns exec "$ns" sysctl -qw net.core.somaxconn=999
	bq metrics | grep -qx "bpftune_tunable_value{tuner=\"sample\",sysctl=\"net.core.somaxconn\",netns=\"$ns\",index=\"0\"} 999"
}

@test "--metrics-dir: the file is replaced atomically after changes, and at exit" {
	local ns prom="$PROM_DIR/bpftune.prom"
	ns="$(make_netns)"
	ip netns exec "$ns" sysctl -qw net.core.somaxconn=128
	make_plugin_dir sample
	# watch the directory: bpftune.prom may only ever appear by rename
	PROM_DIR="$PROM_DIR" python3 - >"$RUN_DIR/inotify" 2>&1 <<'PY' &
import ctypes, os, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
fd = libc.inotify_init()
# IN_CREATE IN_MODIFY IN_CLOSE_WRITE IN_MOVED_TO IN_MOVED_FROM IN_DELETE
libc.inotify_add_watch(fd, os.environ["PROM_DIR"].encode(), 0x100 | 0x2 | 0x8 | 0x80 | 0x40 | 0x200)
print("watching", flush=True)
names = {0x100: "CREATE", 0x2: "MODIFY", 0x8: "CLOSE_WRITE", 0x80: "MOVED_TO", 0x40: "MOVED_FROM", 0x200: "DELETE"}
while True:
    buf = os.read(fd, 65536)
    off = 0
    while off < len(buf):
        wd, mask, cookie, ln = struct.unpack_from("iIII", buf, off)
        name = buf[off + 16:off + 16 + ln].rstrip(b"\0").decode()
        off += 16 + ln
        for bit, n in names.items():
            if mask & bit:
                print(n, name, flush=True)
PY
	WATCHER=$!
	for i in $(seq 1 50); do
		grep -q watching "$RUN_DIR/inotify" 2>/dev/null && break
		sleep 0.1
	done
	start_daemon --socket "$SOCK" --metrics-dir "$PROM_DIR"
	[ -s "$prom" ]
	check_prom <"$prom"
	local ino
	ino="$(stat -c %i "$prom")"
	listen_backlog "$ns" 2048
	wait_for_log "somaxconn 128 -> 2048 in netns $ns"
	# written a moment after the change, not on a timer
	for i in $(seq 1 50); do
		grep -q "netns=\"$ns\",index=\"0\"} 2048" "$prom" && break
		sleep 0.1
	done
	grep -q "netns=\"$ns\",index=\"0\"} 2048" "$prom"
	check_prom <"$prom"
	[ "$(stat -c %i "$prom")" != "$ino" ]
	[ "$(stat -c %a "$prom")" = 644 ]
	stop_daemon
	check_prom <"$prom"
	grep -q "metrics: [0-9]* writes of $prom" "$LOG"
	# the watcher has seen every rename the daemon counted
	local writes
	writes="$(sed -n "s/.*metrics: \([0-9]*\) writes of .*/\1/p" "$LOG")"
	for i in $(seq 1 100); do
		[ "$(grep -c "MOVED_TO bpftune.prom" "$RUN_DIR/inotify")" -ge "$writes" ] && break
		sleep 0.1
	done
	cat "$RUN_DIR/inotify"
	# the file itself was only ever renamed into place
	grep -q "MOVED_TO bpftune.prom" "$RUN_DIR/inotify"
	! grep -E "(CREATE|MODIFY|CLOSE_WRITE) bpftune.prom$" "$RUN_DIR/inotify"
	# and no temporary file is left behind
	[ "$(ls -A "$PROM_DIR")" = bpftune.prom ]
}

@test "--metrics-dir that is not a directory is refused" {
	make_plugin_dir sample
	run "$BPFTUNE" -s -l "$PLUGIN_DIR" --socket "$SOCK" --metrics-dir "$RUN_DIR/nonexistent"
	[ "$status" -eq 1 ]
	[[ "$output" == *"metrics: $RUN_DIR/nonexistent is not a directory"* ]]
}
