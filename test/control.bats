#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# The control socket and bpftune -q: every query in text and JSON, live
# values, the learning rate on both sides, permissions, and robustness
# against empty, huge, binary, half-written and concurrent requests.

load helpers
load operate_helpers

setup() {
	operate_setup
}

teardown() {
	operate_teardown
}

# a change in a netns by the sample tuner: somaxconn 128 -> 2048
change_in_netns() {
	NS="$(make_netns)"
	ip netns exec "$NS" sysctl -qw net.core.somaxconn=128
	make_plugin_dir sample strategy
	start_daemon --socket "$SOCK" "$@"
	listen_backlog "$NS" 2048
	wait_for_log "somaxconn 128 -> 2048 in netns $NS"
}

json_ok() {
	python3 -m json.tool >/dev/null
}

@test "every query answers in text and in JSON once a tuner has made a change" {
	change_in_netns
	local q mode=full
	mode="$(objects_kind)"

	run bq help
	[ "$status" -eq 0 ]
	for q in help tuners tunables status summary rollback metrics; do
		[[ "$output" == *"  $q "* ]]
	done

	run bq tuners
	[ "$status" -eq 0 ]
	[[ "$output" == *"learning rate 4: delta 25% of the value ($mode BPF objects)"* ]]
	[[ "$output" == *"sample: active, $mode objects, 1 hook, "*" events (0 ignored), file sample_tuner.so"* ]]
	[[ "$output" == *"learning rate: 4 here, 4 in its BPF programs"* ]]
	[[ "$output" == *"strategy a: "* ]]

	run bq tunables
	[ "$status" -eq 0 ]
	[[ "$output" == *"sample net.core.somaxconn: integer, 1 value, per netns; cap 128..65535: an accept queue longer than 64K"* ]]
	[[ "$output" == *"strategy net.unix.max_dgram_qlen: integer, 1 value, per netns; cap 10..65536"* ]]

	run bq status
	[ "$status" -eq 0 ]
	[[ "$output" == *"tuner sample (active)"* ]]
	[[ "$output" == *"    global netns: $SAVED_SOMAXCONN"* ]]
	[[ "$output" == *"    netns $NS (cookie "*"): 2048 (bpftune set 2048, was 128; 1 change)"* ]]

	run bq summary
	[ "$status" -eq 0 ]
	[[ "$output" == *"tuner sample, scenario 'listen backlog truncated': net.core.somaxconn changed 1 time in netns $NS (cookie "*"): 128 -> 2048"* ]]
	[[ "$output" =~ tuner\ sample:\ [1-9][0-9]*\ events,\ 0\ ignored ]]

	run bq rollback
	[ "$status" -eq 0 ]
	# other tests' namespaces may show up too: the daemon sees every netns
	grep -qx "ip netns exec $NS sysctl -w net.core.somaxconn=\"128\"" <<<"$output"

	# JSON: both spellings, all valid, with the same facts
	for q in help tuners tunables status summary rollback; do
		bq "$q" --json | json_ok
		bq "j$q" | json_ok
		[ "$(bq "$q" --json)" = "$(bq "j$q")" ]
	done
	bq jstatus | NS="$NS" python3 -c '
import json, os, sys
d = json.load(sys.stdin)
assert d["learning_rate"] == 4, d
t = [t for t in d["tuners"] if t["name"] == "sample"][0]
ns = t["tunables"][0]["netns"]
assert ns[0]["netns"] == "global", ns
mine = [n for n in ns if n["netns"] == os.environ["NS"]][0]
assert mine["value"] == [2048] and mine["original"] == [128], mine
assert mine["set"] == [2048] and mine["changes"] == 1 and not mine["changed_since"], mine
'
	bq jrollback | NS="$NS" python3 -c '
import json, os, sys
r = [x for x in json.load(sys.stdin)["rollback"] if x["netns"] == os.environ["NS"]]
assert len(r) == 1 and r[0]["value"] == [128] and r[0]["note"] is None, r
assert r[0]["command"] == "ip netns exec %s sysctl -w net.core.somaxconn=\"128\"" % os.environ["NS"]
'
	bq jtuners | python3 -c '
import json, sys
d = json.load(sys.stdin)
s = [t for t in d["tuners"] if t["name"] == "sample"][0]
assert s["state"] == "active" and s["events"] >= 1 and s["bpf_learning_rate"] == 4, s
st = [t for t in d["tuners"] if t["name"] == "strategy"][0]
assert [x["name"] for x in st["strategies"]] == ["a", "b"], st
assert sum(x["active"] for x in st["strategies"]) == 1, st
'
	bq jtunables | python3 -c '
import json, sys
t = json.load(sys.stdin)["tunables"]
s = [x for x in t if x["sysctl"] == "net.core.somaxconn"][0]
assert s["min"] == 128 and s["max"] == 65535 and s["namespaced"] and s["type"] == "integer", s
'
	bq jsummary | NS="$NS" python3 -c '
import json, os, sys
c = [x for x in json.load(sys.stdin)["changes"] if x["netns"] == os.environ["NS"]]
assert len(c) == 1 and c[0]["old"] == [128] and c[0]["new"] == [2048] and c[0]["count"] == 1, c
'
	# metrics has no JSON form: a clear error, exit status 1
	run bq metrics --json
	[ "$status" -eq 1 ]
	[[ "$output" == "error: metrics has no JSON form" ]]
}

@test "status reads values now: a change behind the daemon's back shows" {
	# admin-override detection watches only the tasks of its cgroup (-c):
	# a write from outside it is one the daemon is not told of
	CG="$(make_cgroup)" || skip "no cgroup2 hierarchy"
	change_in_netns -c "$CG"
	ip netns exec "$NS" sysctl -qw net.core.somaxconn=777
	run bq status
	[ "$status" -eq 0 ]
	[[ "$output" == *"netns $NS (cookie "*"): 777 (bpftune set 2048, was 128; 1 change; changed since)"* ]]
	bq status --json | NS="$NS" python3 -c '
import json, os, sys
d = json.load(sys.stdin)
t = [t for t in d["tuners"] if t["name"] == "sample"][0]
mine = [n for n in t["tunables"][0]["netns"] if n["netns"] == os.environ["NS"]][0]
assert mine["value"] == [777] and mine["changed_since"], mine
'
	# a gone netns is reported, not fatal
	ip netns del "$NS"
	run bq status
	[ "$status" -eq 0 ]
	[[ "$output" == *"cannot read: netns gone"* ]] || [[ "$output" != *"$NS"* ]]
	bq jstatus | json_ok
}

@test "-r: the BPF programs and the daemon use the same learning rate" {
	make_plugin_dir sample strategy
	start_daemon --socket "$SOCK" -r 2
	run bq tuners
	[ "$status" -eq 0 ]
	[[ "$output" == *"learning rate 2: delta 6.25% of the value"* ]]
	# every plugin and core mechanism, each with BPF programs of its own
	[ "$(grep -c 'learning rate: [0-9]* here' <<<"$output")" -eq 4 ]
	[ "$(grep -c 'learning rate: 2 here, 2 in its BPF programs' <<<"$output")" -eq 4 ]
	bq jtuners | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["learning_rate"] == 2 and d["delta_percent"] == 6.25, d
for t in d["tuners"]:
    assert t["learning_rate"] == 2 and t["bpf_learning_rate"] == 2, t
'
	[[ "$(bq status)" == "learning rate 2 (delta 6.25%); values read now"* ]]
}

@test "the socket is root-only: 0600 in a 0700 directory, and other users are refused" {
	# a directory that does not exist yet is created root-only
	SOCK="$RUN_DIR/sub/bpftune.sock"
	make_plugin_dir sample
	start_daemon --socket "$SOCK"
	[ "$(stat -c %a "$RUN_DIR/sub")" = 700 ]
	[ "$(stat -c %a "$SOCK")" = 600 ]
	[ "$(stat -c %u "$SOCK")" = 0 ]
	# nobody cannot even reach it
	run setpriv --reuid=65534 --regid=65534 --clear-groups "$BPFTUNE" --socket "$SOCK" -q help
	[ "$status" -eq 1 ]
	[[ "$output" == *"Permission denied (queries need root)"* ]]
	# and if the file modes let them, the daemon checks who is asking
	chmod 0755 "$RUN_DIR" "$RUN_DIR/sub"
	chmod 0666 "$SOCK"
	run setpriv --reuid=65534 --regid=65534 --clear-groups "$BPFTUNE" --socket "$SOCK" -q help
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$output" = "error: permission denied: only root may query bpftune" ]
	wait_for_log "control: refused a query from uid 65534"
	run bq help
	[ "$status" -eq 0 ]
}

@test "a second daemon on the same socket runs without one and leaves the first one's alone" {
	make_plugin_dir sample
	start_daemon --socket "$SOCK"
	local first="$DAEMON_PID" log1="$LOG" ino
	ino="$(stat -c %i "$SOCK")"
	LOG="$BATS_TEST_TMPDIR/second.log"
	"$BPFTUNE" -s $(mode_flags) -l "$PLUGIN_DIR" --socket "$SOCK" >"$LOG" 2>&1 &
	DAEMON_PID=$!
	wait_for_log "bpftune running" 30
	grep -q "control: $SOCK is in use by another bpftune; no control socket for this one" "$LOG"
	stop_daemon
	# the first daemon's socket is still there and answers
	[ "$(stat -c %i "$SOCK")" = "$ino" ]
	run bq help
	[ "$status" -eq 0 ]
	DAEMON_PID="$first"
	LOG="$log1"
	stop_daemon
	# a clean exit removes its socket
	[ ! -e "$SOCK" ]
}

@test "empty, huge, binary, half-written and many concurrent requests: every one answered, the daemon survives" {
	make_plugin_dir sample
	start_daemon --socket "$SOCK"
	SOCK="$SOCK" timeout 60 python3 - <<'PY'
import os, socket, time

path = os.environ["SOCK"]

def conn():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)		# blocking: waits for room in the backlog
    s.settimeout(20)
    return s

def reply(s):
    out = b""
    try:
        while True:
            b = s.recv(65536)
            if not b:
                break
            out += b
    except ConnectionResetError:
        pass
    s.close()
    return out.decode("ascii", "replace")

# a request the daemon refuses from its first bytes may be closed while
# the client is still sending (EPIPE): its answer is there to read anyway
def ask(data, shut=True):
    s = conn()
    try:
        if data:
            s.sendall(data)
        if shut:
            s.shutdown(socket.SHUT_WR)
    except (BrokenPipeError, ConnectionResetError):
        pass
    return reply(s)

def expect(got, want):
    assert got.startswith(want), (got[:200], want)
    assert got.endswith("\n") and got.count("\n") == 1, got[:200]

expect(ask(b""), "error: empty request")
expect(ask(b"\n"), "error: empty request")
expect(ask(b"   \r\n"), "error: empty request")
expect(ask(b"A" * 100000), "error: request too long (at most 256 bytes)")
# 1 MiB, text and binary: refused after the first bytes, never buffered
expect(ask(b"status " * ((1 << 20) // 7)), "error: request too long (at most 256 bytes)")
expect(ask(b"\x00\xff" * (1 << 19)), "error: request too long (at most 256 bytes)")
expect(ask(os.urandom(1 << 20).replace(b"\n", b"x")), "error: request too long (at most 256 bytes)")
expect(ask(b"help" + b" " * 300 + b"\n"), "error: request too long")
expect(ask(b"\x00\xffhelp\n"), "error: request is not one line of text (byte 0x00 at offset 0)")
expect(ask(bytes(range(1, 10)) * 100), "error: request too long")
expect(ask(b"\xde\xad\xbe\xef\n"), "error: request is not one line of text")
assert ask(b"help\nhelp\n").startswith("queries (bpftune -q")
expect(ask(b"status --yaml\n"), "error: unknown option '--yaml'; only --json")
expect(ask(b"rm -rf /\n"), "error: too many words")
expect(ask(b"nosuchquery\n"), "error: unknown query 'nosuchquery'; try 'help'")
# the first line is the request; what follows it is not read
assert ask(b"help\ngarbage\x00\xff").startswith("queries (bpftune -q")
# a request without a newline is complete when the client stops sending
assert ask(b"help").startswith("queries (bpftune -q")

# half-written: the daemon gives up after its request timeout (2 s), and
# meanwhile answers everyone else
half = conn()
half.sendall(b"sta")
t0 = time.monotonic()
for i in range(5):
    assert ask(b"help\n").startswith("queries (bpftune -q")
got = reply(half)
assert got == "error: timed out waiting for a complete request line\n", got
assert 1 < time.monotonic() - t0 < 15, time.monotonic() - t0

# a client that connects and says nothing at all, then leaves
s = conn(); s.close()

# many at once: all connected before any request is sent
socks = [conn() for _ in range(100)]
for s in socks:
    try:
        s.sendall(b"tuners\n")
    except (BrokenPipeError, ConnectionResetError):
        pass	# turned away as busy before it could ask
answers = [reply(s) for s in socks]
ok = [a for a in answers if a.startswith("learning rate")]
# busy: every slot taken by clients younger than the grace time;
# dropped: an idle one made room for a newer one (a slow machine)
busy = [a for a in answers if a.startswith("error: busy") or a.startswith("error: dropped")]
assert len(ok) + len(busy) == 100, [a[:60] for a in answers if a not in ok + busy]
assert len(ok) >= 32, (len(ok), len(busy))

# idle connections beyond the limit: a new one takes an idle one's place
idle = [conn() for _ in range(40)]
time.sleep(0.5)
s = conn()
s.sendall(b"help\n")
late = reply(s)
assert late.startswith("queries (bpftune -q"), late
for s in idle:
    s.close()
PY
	# still alive, still answering
	kill -0 "$DAEMON_PID"
	run bq help
	[ "$status" -eq 0 ]
	[[ "$output" == "queries (bpftune -q QUERY [--json]; JSON also as jQUERY):"* ]]
	run bq "$(printf 'x%.0s' $(seq 1 300))"
	[ "$status" -eq 1 ]
	[[ "$output" == *"query too long"* ]]
}

@test "idle clients holding every slot cannot lock the operator out" {
	make_plugin_dir sample
	start_daemon --socket "$SOCK"
	SOCK="$SOCK" BPFTUNE="$BPFTUNE" timeout 120 python3 - <<'PY'
import os, socket, subprocess, time

path = os.environ["SOCK"]
idle, dropped = [], []

def top_up():
    """32 clients that connect and never finish a request, as soon as one goes"""
    for s in list(idle):
        s.setblocking(False)
        try:
            b = s.recv(4096)
        except BlockingIOError:
            continue
        except ConnectionResetError:
            b = b""
        idle.remove(s)
        s.close()
        if b:
            dropped.append(b.decode("ascii", "replace"))
    while len(idle) < 32:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(path)
        if len(idle) % 2:
            s.sendall(b"sta")	# half a request
        idle.append(s)

for i in range(10):
    top_up()
    time.sleep(0.3)		# older than the grace time
    t0 = time.monotonic()
    r = subprocess.run([os.environ["BPFTUNE"], "--socket", path, "-q", "status"],
                       capture_output=True, text=True, timeout=30)
    took = time.monotonic() - t0
    assert r.returncode == 0, (i, r.stdout[:200], r.stderr[:200])
    assert not r.stderr and "tuner" in r.stdout, (i, r.stdout[:200], r.stderr[:200])
    assert took < 5, (i, took)
top_up()
assert dropped, "no idle client was dropped"
for d in dropped:
    assert d.startswith("error: dropped: no complete request after ") or \
           d == "error: timed out waiting for a complete request line\n", d
print("operator answered 10 of 10 times; idle clients dropped:", len(dropped))
PY
	stop_daemon
	grep -qE "control: .* [1-9][0-9]* idle clients dropped for others" "$LOG"
}

@test "neither the control socket, the journal nor hot plug wakes an idle daemon" {
	local quiet=
	# telemetry samples on a timer by design: leave it out here
	"$BPFTUNE" -h | grep -q -- --no-telemetry && quiet=--no-telemetry
	# a tuner that sees only test connections to one port
	make_plugin_dir alt
	start_daemon -d --socket "$SOCK" -R --journal "$JOURNAL" $quiet
	# a query arms the client timeout; the reply disarms it
	bq status >/dev/null
	idle_window "$DAEMON_PID"
}
