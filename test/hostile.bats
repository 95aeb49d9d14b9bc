#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# Hostile starting values, table-driven: every integer tunable of every
# in-tree tuner is set to 0, 1, its cap, above its cap, INT_MAX, and (for
# the three-value ones) a min above the max, wherever the kernel takes
# the value.  The daemon starts with every tuner, and each tunable ends
# in a sane state: outside its caps, it is named at start and left as it
# is ("left as it is until the tuner acts"), or the tuner acted on it and
# put it inside its caps; inside its caps, it is left alone or tuned
# within them.  Every original value is put back afterwards.

load helpers
load operate_helpers

setup() {
	operate_setup
	make_plugin_dir ip_frag neigh_table net_buffer netns route_table admin_override \
		tcp_buffer tcp_conn udp_buffer
	TABLE="$BATS_TEST_TMPDIR/tunables.json"
	SAVED="$BATS_TEST_TMPDIR/saved.json"
}

teardown() {
	stop_daemon
	[ -f "$SAVED" ] && python3 "$BATS_TEST_TMPDIR/hostile.py" restore "$TABLE" "$SAVED"
	operate_teardown
}

write_driver() {
	cat > "$BATS_TEST_TMPDIR/hostile.py" <<'EOF'
# hostile.py save|set|check|restore TABLE FILE [CLASS] [LOG]
import json, re, sys

INT_MAX = 2**31 - 1

def path(name):
    return "/proc/sys/" + name.replace(".", "/")

def read(name):
    with open(path(name)) as f:
        return [int(x) for x in f.read().split()]

def write(name, values):
    try:
        with open(path(name), "w") as f:
            f.write(" ".join(map(str, values)))
        return True
    except OSError:
        return False

def tunables(table):
    t = json.load(open(table))
    if isinstance(t, dict):
        t = next(v for v in t.values() if isinstance(v, list))
    seen, out = set(), []
    for d in t:
        if d["type"] != "integer" or d["sysctl"] in seen:
            continue
        seen.add(d["sysctl"])
        try:
            read(d["sysctl"])
        except OSError:
            continue
        out.append(d)
    return out

def values(d, cls):
    n, lo, hi = d["values"], d["min"], d["max"]
    v = {"0": 0, "1": 1, "cap": hi, "above": hi + max(1, hi // 4),
         "intmax": INT_MAX}.get(cls)
    if cls == "minmax":
        return [hi, max(lo, hi // 2), lo] if n == 3 else None
    return [v] * n

def outside(d, v):
    return any(x < d["min"] or x > d["max"] for x in v)

cmd, table, f = sys.argv[1:4]
if cmd == "save":
    json.dump({d["sysctl"]: read(d["sysctl"]) for d in tunables(table)}, open(f, "w"))
elif cmd == "restore":
    for name, v in json.load(open(f)).items():
        write(name, v)
elif cmd == "set":
    cls, done = sys.argv[4], {}
    for d in tunables(table):
        v = values(d, cls)
        if v is not None and write(d["sysctl"], v):
            done[d["sysctl"]] = read(d["sysctl"])
    json.dump(done, open(f + "." + cls, "w"))
    print("#", len(done), "tunables set to", cls)
elif cmd == "check":
    cls, log = sys.argv[4], open(sys.argv[5]).read()
    done, bad = json.load(open(f + "." + cls)), 0
    for d in tunables(table):
        name = d["sysctl"]
        if name not in done:
            continue
        set_to, now = done[name], read(name)
        changed = [[int(x) for x in m.group(1).split()] for m in
                   re.finditer(r": %s [-0-9 ]+ -> ([-0-9 ]+) in global netns" % re.escape(name), log)]
        named = re.search(r"tuner \S+: %s is [-0-9 ]+ at start, outside its caps .*left as it is until the tuner acts" % re.escape(name), log)
        if outside(d, set_to) and not named:
            print("%s = %s (caps %d..%d): not named at start" % (name, set_to, d["min"], d["max"])); bad += 1
        if not outside(d, set_to) and named:
            print("%s = %s: named though within its caps" % (name, set_to)); bad += 1
        # what a tuner wrote is within the caps
        for v in changed:
            if outside(d, v):
                print("%s: tuned to %s, outside %d..%d" % (name, v, d["min"], d["max"])); bad += 1
        # left as it was, or put back by -R at exit
        if now != set_to:
            print("%s: %s at the end, not %s" % (name, now, set_to)); bad += 1
    print(len(done), "checked,", bad, "wrong")
    sys.exit(1 if bad else 0)
EOF
}

@test "every tuner starts from hostile values: named and left alone, or tuned within its caps" {
	local cls n
	write_driver
	start_daemon --socket "$SOCK" --journal "$JOURNAL" -R --no-telemetry
	bq tunables --json > "$TABLE"
	stop_daemon
	python3 "$BATS_TEST_TMPDIR/hostile.py" save "$TABLE" "$SAVED"
	n="$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$SAVED")"
	echo "# $n integer tunables" >&3
	[ "$n" -ge 15 ]
	for cls in 0 1 cap above intmax minmax; do
		python3 "$BATS_TEST_TMPDIR/hostile.py" set "$TABLE" "$SAVED" "$cls" >&3
		start_daemon --socket "$SOCK" --journal "$JOURNAL" -R --no-telemetry
		# every tuner started, whatever the values
		[ "$(count_log "(tuner|core) [a-z_]+ started")" -eq 9 ] || { grep -E "skipped|started" "$LOG" >&3; false; }
		barrier
		kill -TERM "$DAEMON_PID"
		wait "$DAEMON_PID"
		DAEMON_STATUS=$?
		DAEMON_PID=
		[ "$DAEMON_STATUS" -eq 0 ]
		! grep -qE "AddressSanitizer|runtime error" "$LOG"
		# what the tuners wrote (the log) and what -R put back
		run python3 "$BATS_TEST_TMPDIR/hostile.py" check "$TABLE" "$SAVED" "$cls" "$LOG"
		echo "# class $cls: $output" >&3
		[ "$status" -eq 0 ]
		python3 "$BATS_TEST_TMPDIR/hostile.py" restore "$TABLE" "$SAVED"
	done
}
