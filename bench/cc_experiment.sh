#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The learned congestion-control experiment (issue 25, docs/learning.md):
# does a tree trained on tcp_conn's own outcomes, without ever seeing a
# kind of path, choose well on it?
#
# Two namespaces over veth, netem on both sides (delay each way; loss,
# rate and queue limit on the client's egress, where the data goes), path
# categories with seeded parameter draws (bench/cc_conn.py plan): long RTT,
# random loss, a shallow bottleneck queue, many short RPCs, a competing
# bulk flow.  The server answers on a whole /16 (AnyIP), so every run of
# connections goes to a destination the daemon has never seen.
#   1. collect: per category the daemon (tcp_conn only, the epsilon-greedy
#      bandit, --label CATEGORY) over CC_COLLECT_DESTS destinations of each
#      draw, CC_COLLECT_CONNS connections each: its run files.
#   2. learn: bpftune-telemetry learn on every category but one -> one
#      model per held-out category (and its offline scores).
#   3. evaluate: CC_REPS repetitions; in each, for each category and draw,
#      the arms in a random order (seeded), each to a new destination:
#      CC_CONNS connections for the arms that learn per destination (the
#      bandit, the model), CC_CONNS_STATIC for those that do not: static
#      cubic, bbr, htcp (set on the socket, the
#      daemon not involved), random (one of the three per connection), the
#      hand rule (the daemon, every connection to a new destination: only
#      the 1 % retransmit rule acts, no exploration), the bandit (the
#      daemon's epsilon-greedy), the model (the daemon with the tree
#      trained without this category; SIGHUP swaps it in and out).
# Needs netem, bbr and htcp: run it in the 6.12 guest (--vm).
#
# Usage (root, from the top of the tree, after make):
#   bench/cc_experiment.sh --vm [KERNEL]   in a qemu guest (default 6.12);
#                                          results come back in CC_OUT
#   bench/cc_experiment.sh                 here (a kernel with netem)
# Knobs: CC_SEED=25 CC_DRAWS=2 CC_CATEGORIES (default all) CC_REPS=10
#   CC_CONNS=20 CC_CONNS_STATIC=5 CC_COLLECT_DESTS=4 CC_COLLECT_CONNS=CC_CONNS
#   CC_DEPTH=3
#   CC_MIN_LEAF=5 CC_ARMS="cubic bbr htcp random hand bandit model"
#   CC_UNTIL=0 (epoch seconds: no new repetition that would end after it,
#   judged by the last one's length; 0: no limit)
#   CC_EST_CONN_S=1.0 (seconds per connection, for the printed estimate)
#   CC_OUT=DIR (results; default bench/results/cc-<time>)
#   CC_VM_TIMEOUT=3600 (--vm: the guest's limit, s)
# Results in CC_OUT: eval.csv (rep,category,draw,arm,conn,dest,metric,value),
# collect.csv, choices.csv (the daemon's choice per destination), paths.txt,
# learn-*.txt, models/*.model, logs; then bench/cc_report.py CC_OUT writes
# report.md and cc_experiment.png.
set -eu
cd "$(dirname "$0")/.."

CC_SEED="${CC_SEED:-25}"
CC_DRAWS="${CC_DRAWS:-2}"
CC_CATEGORIES="${CC_CATEGORIES:-}"
CC_REPS="${CC_REPS:-10}"
CC_CONNS="${CC_CONNS:-20}"
CC_CONNS_STATIC="${CC_CONNS_STATIC:-5}"
CC_COLLECT_DESTS="${CC_COLLECT_DESTS:-4}"
# as many as the evaluation makes: the model's hist feature stays in range
CC_COLLECT_CONNS="${CC_COLLECT_CONNS:-$CC_CONNS}"
CC_DEPTH="${CC_DEPTH:-3}"
CC_MIN_LEAF="${CC_MIN_LEAF:-5}"
CC_ARMS="${CC_ARMS:-cubic bbr htcp random hand bandit model}"
CC_UNTIL="${CC_UNTIL:-0}"
CC_EST_CONN_S="${CC_EST_CONN_S:-1.0}"
KNOBS="CC_SEED CC_DRAWS CC_CATEGORIES CC_REPS CC_CONNS CC_CONNS_STATIC CC_COLLECT_DESTS CC_COLLECT_CONNS CC_DEPTH CC_MIN_LEAF CC_ARMS CC_UNTIL CC_EST_CONN_S"

# ---- learn: one model per held-out category (no netns, no root) ------------
# learn_models OUT: OUT/runs/CATEGORY/*.db -> OUT/models/CATEGORY.model
# (trained on every other category), OUT/learn-*.txt
learn_models() {
	local out="$1" cat c others d

	mkdir -p "$out/models"
	tools/bpftune-telemetry learn --depth "$CC_DEPTH" --min-leaf "$CC_MIN_LEAF" \
		--out "$out/models/all.model" "$out"/runs/* >"$out/learn-all.txt" 2>&1 || true
	for d in "$out"/runs/*/; do
		cat="$(basename "$d")"
		others=()
		for c in "$out"/runs/*/; do
			[ "$c" = "$d" ] || others+=("$c")
		done
		if ! tools/bpftune-telemetry learn --depth "$CC_DEPTH" --min-leaf "$CC_MIN_LEAF" \
			--out "$out/models/$cat.model" "${others[@]}" >"$out/learn-$cat.txt" 2>&1; then
			echo "cc_experiment: no model without $cat: $(tail -1 "$out/learn-$cat.txt")" >&2
		fi
	done
}

# ---- on the host: the phases in guests, learn here -----------------------------
# in_guest OUT KERNEL PHASE [VAR=VALUE...]: bench/cc_experiment.sh in a
# guest for PHASE, its results unpacked into OUT
in_guest() {
	local out="$1" kernel="$2" phase="$3" k st
	local envs=(-e CC_PRINT=1 -e "CC_PHASES=$phase")

	shift 3
	for k in $KNOBS; do
		envs+=(-e "$k=${!k}")
	done
	for k in "$@"; do
		envs+=(-e "$k")
	done
	set +e
	test/vm/run-in-vm.sh -t "${CC_VM_TIMEOUT:-3600}" "${envs[@]}" \
		"$kernel" -- bench/cc_experiment.sh >"$out/guest-$phase.log" 2>&1
	st=$?
	set -e
	grep -v '^[A-Za-z0-9+/=]\{60,\}$' "$out/guest-$phase.log" | grep -v '^=== cc' >&2 || true
	if ! grep -q '^=== cc results begin ===' "$out/guest-$phase.log"; then
		echo "cc_experiment: no results from the guest ($phase, status $st): $out/guest-$phase.log" >&2
		return 1
	fi
	sed -n '/^=== cc results begin ===/,/^=== cc results end ===/p' "$out/guest-$phase.log" |
		sed '1d;$d' | tr -d '\r' | base64 -d | tar xzf - -C "$out"
	return "$st"
}

if [ "${1:-}" = --vm ]; then
	[ "$(id -u)" -eq 0 ] || { echo "run as root" >&2; exit 1; }
	[ -x build/bin/bpftune ] || { echo "run make first" >&2; exit 1; }
	OUT="${CC_OUT:-bench/results/cc-$(date -u +%Y%m%dT%H%M%SZ)}"
	mkdir -p "$OUT"
	OUT="$(cd "$OUT" && pwd)"
	t0=$SECONDS
	in_guest "$OUT" "${2:-6.12}" collect
	echo "cc_experiment: collected in $((SECONDS - t0)) s; learning here" >&2
	learn_models "$OUT"
	in_guest "$OUT" "${2:-6.12}" eval "CC_MODELS=$OUT/models"
	echo "cc_experiment: done in $((SECONDS - t0)) s; results in $OUT" >&2
	python3 bench/cc_report.py "$OUT"
	exit 0
fi

# ---- where netem is ---------------------------------------------------------
. bench/lib.sh
bench_need tc python3 sqlite3 ethtool
bench_init
OUT="${CC_OUT:-$RESULTS/cc-$STAMP}"
[ "${CC_PRINT:-0}" = 1 ] && OUT="$BENCH_TMP/out"
mkdir -p "$OUT/models" "$OUT/logs"
CC_PHASES="${CC_PHASES:-collect learn eval}"
phase() {
	[[ " $CC_PHASES " == *" $1 "* ]]
}
PORT=5301
CONN=bench/cc_conn.py
# Debian's python3 where there is one: a pyenv shim costs seconds per start under TCG
PY="$(command -v /usr/bin/python3 || command -v python3)"

for m in sch_netem tcp_bbr tcp_htcp; do
	modprobe -q "$m" 2>/dev/null || true
done
bench_netns_pair x 192.168.95
# netem counts packets: no 64 KiB GSO super-packets
ip netns exec "$CLI" ethtool -K bxc tso off gso off gro off >/dev/null 2>&1 || true
ip netns exec "$SRV" ethtool -K bxs tso off gso off gro off >/dev/null 2>&1 || true
ip netns exec "$CLI" tc qdisc add dev bxc root netem delay 1ms 2>/dev/null ||
	bench_die "no netem on this kernel (bench/cc_experiment.sh --vm runs it in a guest)"
ip -n "$SRV" route add local 10.80.0.0/16 dev lo
ip -n "$CLI" route add 10.80.0.0/16 via "$SRV4"
ip netns exec "$CLI" sysctl -qw net.ipv4.tcp_congestion_control=cubic
ip netns exec "$SRV" "$PY" "$CONN" server "$PORT" >/dev/null 2>&1 &
BENCH_PIDS+=($!)
bench_wait_listen "$SRV" "$PORT" || bench_die "the server did not start"
bench_cgroup
bench_plugin_dir tcp_conn

"$PY" "$CONN" plan --seed "$CC_SEED" --draws "$CC_DRAWS" \
	${CC_CATEGORIES:+--categories "$CC_CATEGORIES"} >"$OUT/paths.txt"
CATS="$(awk '{print $1}' "$OUT/paths.txt" | uniq | tr '\n' ' ')"

# the collection's destinations: 10.80.0.10 on, a new one each
DEST_N=10
next_dest() {
	NEXT_DEST="10.80.0.$DEST_N"
	DEST_N=$((DEST_N + 1))
}

# path_set LINE: the netem of one plan line; P_* its parameters
path_set() {
	local half
	read -r P_CAT P_DRAW P_RTT P_LOSS P_RATE P_LIMIT P_RPCS P_KB P_CAP P_COMPETE <<<"$1"
	half="$(awk -v r="$P_RTT" 'BEGIN {printf "%.1f", r / 2}')"
	ip netns exec "$CLI" tc qdisc replace dev bxc root netem delay "${half}ms" \
		loss "${P_LOSS}%" rate "${P_RATE}mbit" limit "$P_LIMIT"
	ip netns exec "$SRV" tc qdisc replace dev bxs root netem delay "${half}ms" limit 10000
}

COMPETE_PID=""
compete_start() {
	[ "$P_COMPETE" = 1 ] || return 0
	ip netns exec "$CLI" "$PY" "$CONN" bulk --dest 10.80.255.1 --port "$PORT" --secs 3600 &
	COMPETE_PID=$!
	# established, then one more second: past its slow start
	for _ in $(seq 1 100); do
		ip netns exec "$CLI" ss -Htn state established dst 10.80.255.1 | grep -q . && break
		sleep 0.1
	done
	sleep 1
}
compete_stop() {
	[ -n "$COMPETE_PID" ] || return 0
	kill "$COMPETE_PID" 2>/dev/null || true
	wait "$COMPETE_PID" 2>/dev/null || true
	COMPETE_PID=""
}
bench_on_exit compete_stop

# client TAG CSV ARGS...: connections of the current path from the
# daemon's cgroup, their rows into CSV
client() {
	local tag="$1" csv="$2"
	shift 2
	bench_in_cg ip netns exec "$CLI" "$PY" "$CONN" client --port "$PORT" --rpcs "$P_RPCS" \
		--size-kb "$P_KB" --cap-s "$P_CAP" --tag "$tag" "$@" >>"$csv"
}

{
	echo "# cc experiment: categories $CATS; $CC_DRAWS draws each (seed $CC_SEED)"
	echo "# collect: $CC_COLLECT_DESTS destinations x $CC_COLLECT_CONNS connections per draw; learn --depth $CC_DEPTH --min-leaf $CC_MIN_LEAF"
	echo "# evaluate: $CC_REPS repetitions x $CC_CONNS connections (bandit, model) or $CC_CONNS_STATIC (the others) per arm: $CC_ARMS"
	echo "# machine: $(bench_machine)"
	echo "# commit: $(git rev-parse --short HEAD 2>/dev/null || echo -)$(git diff --quiet HEAD 2>/dev/null || echo ' (modified)')"
	echo "# date: $(date -u '+%Y-%m-%d %H:%M UTC')"
} | tee "$OUT/info.txt" >&2
npaths="$(wc -l <"$OUT/paths.txt")"
narms="$(wc -w <<<"$CC_ARMS")"
nlearn="$(grep -ow 'bandit\|model' <<<"$CC_ARMS" | wc -l)"
awk -v p="$npaths" -v a="$narms" -v l="$nlearn" -v r="$CC_REPS" -v c="$CC_CONNS" \
	-v cs="$CC_CONNS_STATIC" -v s="$CC_EST_CONN_S" \
	-v cd="$CC_COLLECT_DESTS" -v cc="$CC_COLLECT_CONNS" 'BEGIN {
	col = p * cd * cc * s; ev = p * r * (l * c + (a - l) * cs) * s
	printf "cc_experiment: estimate at %.1f s per connection: collect %.0f s, evaluate %.0f s (%.0f s per repetition)\n", s, col, ev, ev / r
}' >&2
echo "cc_experiment: paths:" >&2
cat "$OUT/paths.txt" >&2
start=$SECONDS

# ---- 1. collect ----------------------------------------------------------------
if phase collect; then
	echo "rep,category,draw,arm,conn,dest,metric,value" >"$OUT/collect.csv"
	for cat in $CATS; do
		echo "collect $cat ($((SECONDS - start)) s)" >&2
		bench_daemon_start -c "$BENCH_CG" --label "$cat" --telemetry-dir "$OUT/runs/$cat"
		while read -r line; do
			path_set "$line"
			compete_start
			for d in $(seq 1 "$CC_COLLECT_DESTS"); do
				next_dest
				client "0,$P_CAT,$P_DRAW,collect$d" "$OUT/collect.csv" \
					--first "$NEXT_DEST" --conns "$CC_COLLECT_CONNS" --cc none
			done
			compete_stop
		done < <(awk -v c="$cat" '$1 == c' "$OUT/paths.txt")
		bench_daemon_stop "$OUT/logs/collect-$cat.log"
	done
	# the rows learn reads, for the record
	hdr=-header
	for db in "$OUT"/runs/*/*.db; do
		sqlite3 -csv $hdr "$db" "SELECT * FROM tcp_conn_outcomes" 2>/dev/null && hdr=
	done >"$OUT/outcomes.csv" || true
fi

# ---- 2. learn --------------------------------------------------------------------
if phase learn; then
	learn_models "$OUT"
	echo "learned ($((SECONDS - start)) s)" >&2
fi

# ---- 3. evaluate ---------------------------------------------------------------
if phase eval; then
	# the models: here, or learnt elsewhere (CC_MODELS); the daemon takes
	# only files owned by root and writable by root only
	MODELS="$BENCH_TMP/models"
	mkdir -p "$MODELS"
	cp "${CC_MODELS:-$OUT/models}"/*.model "$MODELS/" 2>/dev/null || true
	chmod 0644 "$MODELS"/*.model 2>/dev/null || true
	CONF="$BENCH_TMP/bpftune.conf"
	echo "# cc experiment: no model" >"$CONF"
	chmod 0644 "$CONF"
	bench_daemon_start -c "$BENCH_CG" --label eval --config "$CONF" \
		--telemetry-dir "$BENCH_TMP/eval-runs"

	echo "rep,category,draw,arm,conn,dest,metric,value" >"$OUT/eval.csv"
	: >"$OUT/dests.csv"
	npaths="$(wc -l <"$OUT/paths.txt")"
	last=0
	for rep in $(seq 1 "$CC_REPS"); do
		if [ "$CC_UNTIL" -gt 0 ] && [ $(($(date +%s) + last)) -gt "$CC_UNTIL" ]; then
			echo "cc_experiment: CC_UNTIL: $((rep - 1)) repetitions" >&2
			break
		fi
		echo "rep $rep/$CC_REPS ($((SECONDS - start)) s)" >&2
		t_rep=$SECONDS
		pidx=0
		while read -r line; do
			pidx=$((pidx + 1))
			path_set "$line"
			compete_start
			seed=$((CC_SEED * 100000 + rep * 1000 + P_DRAW * 10))
			# the arms in a random order, seeded; the block's destinations
			# in a /24 of their own
			# shellcheck disable=SC2086
			arms="$("$PY" -c 'import random, sys; a = sys.argv[2:]
random.Random(sys.argv[1]).shuffle(a); print(" ".join(a))' "$seed-$P_CAT" $CC_ARMS)"
			"$PY" "$CONN" arms --netns "$CLI" --port "$PORT" \
				--net "10.80.$(((rep - 1) * npaths + pidx))" --arms "$arms" \
				--tag "$rep,$P_CAT,$P_DRAW" --conns "$CC_CONNS" \
				--conns-static "$CC_CONNS_STATIC" --rpcs "$P_RPCS" --size-kb "$P_KB" \
				--cap-s "$P_CAP" --seed "$seed" --cg "$BENCH_CG" --daemon-pid "$DAEMON_PID" \
				--daemon-log "$DAEMON_LOG" --config "$CONF" --models "$MODELS" \
				--dests "$OUT/dests.csv" >>"$OUT/eval.csv" ||
				echo "cc_experiment: block $rep $P_CAT $P_DRAW failed" >&2
			compete_stop
		done <"$OUT/paths.txt"
		last=$((SECONDS - t_rep))
	done
	bench_daemon_stop "$OUT/logs/eval.log"
	# how the daemon placed each connection, by destination
	for db in "$BENCH_TMP"/eval-runs/*.db; do
		sqlite3 -csv "$db" "SELECT dest, choice, cc, count(*) FROM tcp_conn_outcomes GROUP BY dest, choice, cc"
	done >"$OUT/choices.csv" 2>/dev/null || true
fi
echo "done in $((SECONDS - start)) s" >&2

if [ "${CC_PRINT:-0}" = 1 ]; then
	echo "=== cc results begin ==="
	tar czf - -C "$OUT" . | base64
	echo "=== cc results end ==="
else
	python3 bench/cc_report.py "$OUT"
fi
