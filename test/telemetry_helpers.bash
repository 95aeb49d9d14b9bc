# SPDX-License-Identifier: GPL-2.0-only
# Helpers of the telemetry tests: the run's file, SQL on it as a user
# would (python3's sqlite3), and namespace pairs.

# The run's file, from the daemon's log line.
tel_db() {
	sed -n 's/.*telemetry: writing to \([^ ]*\)$/\1/p' "$LOG" | tail -1
}

# sql QUERY [DB]: one line per row, columns separated by '|'.
sql() {
	python3 - "${2:-$(tel_db)}" "$1" <<'EOF'
import sqlite3, sys
db = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
for row in db.execute(sys.argv[2]):
    print("|".join("" if v is None else str(v) for v in row))
EOF
}

# Every table: seq runs 1..N without a gap, ts_uptime_us never goes back
# (in seq order) and lies within the run; prints what is wrong.
check_clock_and_seq() {
	python3 - "$(tel_db)" <<'EOF'
import sqlite3, sys
db = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
start, end = db.execute("SELECT ts_uptime_us, end_ts_uptime_us FROM runs").fetchone()
tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
bad = 0
for t in tables:
    if t == "meta":
        continue
    rows = db.execute("SELECT seq, ts_uptime_us FROM %s ORDER BY seq" % t).fetchall()
    if [r[0] for r in rows] != list(range(1, len(rows) + 1)):
        print("%s: seq is not 1..%d" % (t, len(rows))); bad += 1
    for (s1, t1), (s2, t2) in zip(rows, rows[1:]):
        if t2 < t1:
            print("%s: ts goes back at seq %d" % (t, s2)); bad += 1
    for s, ts in rows:
        if ts < start or (end is not None and ts > end):
            print("%s: seq %d ts %d outside the run [%d, %s]" % (t, s, ts, start, end)); bad += 1
sys.exit(1 if bad else 0)
EOF
}

# pair NAME: two namespaces joined by a veth pair, $1-s 10.78.N.1 and $1-c .2
make_veth_pair() {
	SRV="$(make_netns)"
	CLI="$(make_netns)"
	ip link add tlc netns "$CLI" type veth peer name tls netns "$SRV"
	ip -n "$SRV" addr add 10.78.0.1/24 dev tls
	ip -n "$CLI" addr add 10.78.0.2/24 dev tlc
	ip -n "$SRV" link set tls up
	ip -n "$CLI" link set tlc up
}

# cookie of a netns as the daemon logs it ("netns NAME (cookie N)")
netns_cookie_of() {
	ip netns exec "$1" python3 -c 'import socket; s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); print(int.from_bytes(s.getsockopt(socket.SOL_SOCKET, 71, 8), "little"))'
}

