#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# bats file_tags=nosan,offline
# (nosan: no program of the build under test runs here; make test-asan
# leaves these out, as running them again adds nothing)
# The benchmark tooling's pictures open: a flame graph rendered by
# bench/flamegraph.py from a fixed folded-stacks fixture whose names hold
# '&', '<', '"', quotes, a control character and non-ASCII parses as XML,
# converts to PNG with rsvg-convert and renders in headless Chromium (not
# its "This page contains the following errors" page); the report fails
# loudly when a picture it promises is missing; an A/B daemon given as
# AB_CMD runs its own command line; the reaction report's p50, p95 and
# bound from a fixed CSV.  Needs no daemon.

load helpers

FOLDED="$REPO/test/fixtures/flame.folded"

render() {
	python3 "$REPO/bench/flamegraph.py" --folded \
		--title 'fixture: a && b < "c" > d' "$FOLDED" "$BATS_TEST_TMPDIR/f.svg"
}

# screenshot SVG PNG: headless Chromium's picture of the file
screenshot() {
	# as root Chromium needs --no-sandbox; no GPU, no /dev/shm in a small VM
	timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
		--hide-scrollbars --window-size=1200,400 --user-data-dir="$BATS_TEST_TMPDIR/chromium" \
		--screenshot="$2" "file://$1" >"$BATS_TEST_TMPDIR/chromium.log" 2>&1
	[ -s "$2" ] || { cat "$BATS_TEST_TMPDIR/chromium.log"; false; }
}

# tiny_png FILE: a 1x1 white PNG
tiny_png() {
	python3 - "$1" <<'EOF'
import struct, sys, zlib
def chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)) + \
    chunk(b"IDAT", zlib.compress(b"\0\xff\xff\xff")) + chunk(b"IEND", b"")
open(sys.argv[1], "wb").write(png)
EOF
}

@test "bench_tools: the flame graph is well-formed XML and keeps every name" {
	render
	run python3 - "$BATS_TEST_TMPDIR/f.svg" <<'EOF'
import sys, xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
titles = [t.text for t in root.iter(ns + "title")]
for want in ('policy<&&>check', '"quoted" name & co', "a && b < c \" d",
             "std::vector<int>::push_back", "'single' > greater", "ctrl\ufffdchar",
             "caf\u00e9_\u00fcnicode"):
    if not any(t.startswith(want + " (") for t in titles):
        sys.exit("no frame titled %r" % want)
print(len(titles), "frames")
EOF
	echo "$output"
	[ "$status" -eq 0 ]
	# "all", the 2 threads and the 25 distinct frames under them
	[ "$output" = "28 frames" ]
}

@test "bench_tools: flamegraph.py reads perf script output and refuses bad folded input" {
	cat >"$BATS_TEST_TMPDIR/perf.txt" <<'EOF'
bpftune 100 [000] 1.000: 250000 cpu-clock:
	ffffffff81000000 do_epoll_wait+0x10 ([kernel.kallsyms])
	5555 event_loop+0x20 (/usr/bin/bpftune)
	5556 main+0x30 (/usr/bin/bpftune)

bpftune 100 [000] 1.001: 250000 cpu-clock:
	5557 policy<&&>check+0x1 (/usr/bin/bpftune)
	5556 main+0x30 (/usr/bin/bpftune)

EOF
	python3 "$REPO/bench/flamegraph.py" --fold-out "$BATS_TEST_TMPDIR/out.folded" \
		"$BATS_TEST_TMPDIR/perf.txt" "$BATS_TEST_TMPDIR/p.svg"
	python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' \
		"$BATS_TEST_TMPDIR/p.svg"
	run cat "$BATS_TEST_TMPDIR/out.folded"
	[ "$output" = "bpftune;main;event_loop;do_epoll_wait 1
bpftune;main;policy<&&>check 1" ]
	printf 'a;b;c twelve\n' >"$BATS_TEST_TMPDIR/bad.folded"
	run python3 "$REPO/bench/flamegraph.py" --folded "$BATS_TEST_TMPDIR/bad.folded" \
		"$BATS_TEST_TMPDIR/bad.svg"
	[ "$status" -ne 0 ]
	[[ "$output" == *"bad.folded:1: not a folded stack"* ]]
	[ ! -e "$BATS_TEST_TMPDIR/bad.svg" ]
}

@test "bench_tools: rsvg-convert makes a PNG of the flame graph" {
	command -v rsvg-convert >/dev/null || skip "rsvg-convert not installed (scripts/install-deps.sh --bench)"
	render
	rsvg-convert -w 1200 -b white "$BATS_TEST_TMPDIR/f.svg" -o "$BATS_TEST_TMPDIR/f.png"
	run python3 "$REPO/bench/png_stats.py" --min-coloured 20 --max-error-pink 1 \
		"$BATS_TEST_TMPDIR/f.png"
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "bench_tools: headless Chromium renders the flame graph, not an XML error page" {
	command -v chromium >/dev/null || skip "chromium not installed (scripts/install-deps.sh --bench)"
	render
	screenshot "$BATS_TEST_TMPDIR/f.svg" "$BATS_TEST_TMPDIR/shot.png"
	run python3 "$REPO/bench/png_stats.py" --min-coloured 10 --max-error-pink 1 \
		"$BATS_TEST_TMPDIR/shot.png"
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "bench_tools: the screenshot check catches Chromium's error page for a broken SVG" {
	command -v chromium >/dev/null || skip "chromium not installed (scripts/install-deps.sh --bench)"
	render
	# what the npm renderer wrote: a raw '&&' inside an attribute
	sed 's/<text class="title"/<text class="title" data-x="a \&\& b"/' \
		"$BATS_TEST_TMPDIR/f.svg" >"$BATS_TEST_TMPDIR/bad.svg"
	run python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' \
		"$BATS_TEST_TMPDIR/bad.svg"
	[ "$status" -ne 0 ]
	screenshot "$BATS_TEST_TMPDIR/bad.svg" "$BATS_TEST_TMPDIR/bad.png"
	run python3 "$REPO/bench/png_stats.py" --min-coloured 10 --max-error-pink 1 \
		"$BATS_TEST_TMPDIR/bad.png"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"not a rendered flame graph"* ]]
}

@test "bench_tools: the report fails and names a promised picture that is missing" {
	local d="$BATS_TEST_TMPDIR/report"
	mkdir -p "$d"
	printf 'commit: fixture\n' >"$d/info.txt"
	printf 'source,case,metric,config,value,lo,hi,n\n' >"$d/cost-summary.csv"
	printf '## cost\n\n![cost plot](cost.png)\n' >"$d/cost.md"
	printf '## profile\n\nFlame graph: [profile-flame.svg](profile-flame.svg)\n\n![flame graph](profile-flame.png)\n' \
		>"$d/profile.md"
	run python3 "$REPO/bench/report_md.py" "$d"
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"missing picture: cost.png"* ]]
	[[ "$output" == *"missing picture: profile-flame.svg"* ]]
	[[ "$output" == *"missing picture: profile-flame.png"* ]]
	# an SVG that does not parse, or a PNG that is not one, is as missing as none
	printf '<svg>&&</svg>' >"$d/profile-flame.svg"
	printf 'not a PNG' >"$d/cost.png"
	tiny_png "$d/profile-flame.png"
	run python3 "$REPO/bench/report_md.py" "$d"
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"missing picture: profile-flame.svg (not well-formed XML"* ]]
	[[ "$output" == *"missing picture: cost.png (not a PNG)"* ]]
	[[ "$output" != *"profile-flame.png"* ]]
	# a plot gnuplot could not draw is a missing picture too
	tiny_png "$d/cost.png"
	printf '## cost\n\n(no gnuplot: no plot)\n' >"$d/cost.md"
	run python3 "$REPO/bench/report_md.py" "$d"
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"missing picture: a plot (no gnuplot: no plot)"* ]]
	printf '## cost\n\n![cost plot](cost.png)\n' >"$d/cost.md"
	render
	cp "$BATS_TEST_TMPDIR/f.svg" "$d/profile-flame.svg"
	run python3 "$REPO/bench/report_md.py" "$d"
	echo "$output"
	[ "$status" -eq 0 ]
	[ -s "$d/report.md" ]
}

@test "bench_tools: the report's tuned / static is the median of the starts' ratios" {
	local d="$BATS_TEST_TMPDIR/report"
	mkdir -p "$d"
	printf 'commit: fixture\n' >"$d/info.txt"
	# two starts: 0.7 and 1.5 of static; the median is their mean, 1.1
	cat >"$d/effect.csv" <<-CSV
	rep,config,case,metric,unit,value
	1,static,iperf-v4-up,throughput,Mbit/s,20000
	1,tuned,iperf-v4-up,throughput,Mbit/s,14000
	2,static,iperf-v4-up,throughput,Mbit/s,10000
	2,tuned,iperf-v4-up,throughput,Mbit/s,15000
	CSV
	run python3 "$REPO/bench/report_md.py" "$d"
	echo "$output"
	[[ "$output" == *"| host: tuned / static throughput >= 0.95 | 1.1 [0.7-1.5] | met |"* ]]
	# an odd count: the middle one
	printf '3,static,iperf-v4-up,throughput,Mbit/s,10000\n3,tuned,iperf-v4-up,throughput,Mbit/s,9000\n' \
		>>"$d/effect.csv"
	run python3 "$REPO/bench/report_md.py" "$d"
	echo "$output"
	[[ "$output" == *"| host: tuned / static throughput >= 0.95 | 0.9 [0.7-1.5] | **missed** "* ]]
}

@test "bench_tools: AB_CMD runs another daemon's own command line, placeholders filled" {
	run bash -c '
		cd "$1" && . bench/lib.sh
		BENCH_CG=/sys/fs/cgroup/wl PLUGIN_DIR=/run/x/plugins BENCH_TMP=/run/x
		AB_NAME=ref AB_PLUGINS=build/lib/bpftune
		AB_CMD="/bin/true -s -c {cgroup} -l {plugins} --log \"{tmp}/a log\""
		bench_ab_init
		bench_use_build ref
		bench_daemon_argv --observe -a tcp_buffer
		printf "<%s>" "${BENCH_ARGV[@]}"; echo
		bench_ready_re
		bench_query metrics && echo queried
		bench_ab_desc
		# the other configurations still run this build, with its flags
		bench_use_build all
		bench_daemon_argv --observe
		printf "<%s>" "${BENCH_ARGV[@]}"; echo
		bench_ready_re
	' _ "$REPO"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "</bin/true><-s><-c></sys/fs/cgroup/wl><-l></run/x/plugins><--log></run/x/a log>" ]
	[ "${lines[1]}" = "bpftune running" ]
	[ "${lines[2]}" = '; ref: /bin/true -s -c {cgroup} -l {plugins} --log "{tmp}/a log"' ]
	[ "${lines[3]}" = "<build/bin/bpftune><-s><-l></run/x/plugins><--socket></run/x/bpftune.sock><--journal></run/x/journal><--observe>" ]
	[ "${lines[4]}" = "bpftune running" ]
}

@test "bench_tools: a bad A/B setting stops the benchmark with a clear error" {
	run bash -c 'cd "$1" && . bench/lib.sh && AB_CMD="/nonexistent/bpftune -s" && bench_ab_init' _ "$REPO"
	[ "$status" -ne 0 ]
	[[ "$output" == *"AB_CMD: /nonexistent/bpftune is not an executable"* ]]
	run bash -c 'cd "$1" && . bench/lib.sh && AB_CMD="/bin/true -l {plugins}" && bench_ab_init' _ "$REPO"
	[ "$status" -ne 0 ]
	[[ "$output" == *"AB_PLUGINS must name the plugin directory"* ]]
	run bash -c 'cd "$1" && . bench/lib.sh && AB_CMD="/bin/true" AB_BPFTUNE=/bin/true && bench_ab_init' _ "$REPO"
	[ "$status" -ne 0 ]
	[[ "$output" == *"AB_CMD and AB_BPFTUNE: set one or the other"* ]]
}

# netns_scale_csv FILE CPU_EXPR: a raw CSV of bench/netns_scale.sh for steps
# 10, 100, 1000, three repetitions: the daemon's CPU per connection is
# CPU_EXPR (python, of n), its VmRSS 8000 + 4 n kB (+ rep)
netns_scale_csv() {
	python3 - "$1" "$2" <<'PY'
import sys
out, expr = sys.argv[1:]
rows = ["step,rep,config,metric,unit,value"]
for n in (10, 100, 1000):
    for rep in (1, 2, 3):
        conns = 10000 + 100 * rep
        for cfg, drv in (("none", 5000), ("daemon", 5300)):
            for m, v in (("conns", conns), ("secs", 10.0), ("min", conns // n),
                         ("max", conns // n + 1), ("errors", rep - 1), ("cpu_ms", drv)):
                rows.append("%d,%d,%s,driver_%s,-,%s" % (n, rep, cfg, m, v))
        cpu = eval(expr, {"n": n})
        for m, v in (("settle_s", 3), ("daemon_cpu_ns", int(cpu * conns)),
                     ("daemon_stat_cpu_ms", int(cpu * conns / 1e6)),
                     ("daemon_rss_kb_before", 8000 + 4 * n),
                     ("daemon_rss_kb", 8000 + 4 * n + rep), ("daemon_hwm_kb", 12000)):
            rows.append("%d,%d,daemon,%s,-,%s" % (n, rep, m, v))
open(out, "w").write("\n".join(rows) + "\n")
PY
}

@test "bench_tools: the syscall workload counts the calls it makes, refuses bad counts" {
	run "$BUILD/bench/syscall_loop" 1000
	[ "$status" -eq 0 ] && [ "$output" = 1000 ]
	for bad in 0 -5 12x "" 99999999999999999999999; do
		run "$BUILD/bench/syscall_loop" "$bad"
		[ "$status" -eq 2 ]
		[[ "$output" == *"CALLS must be a positive integer"* ]]
	done
	# as cost.sh runs it: WL_UNITS is the count the loop made
	run bash -c 'cd "$1" && . bench/lib.sh && WL_RT=0 WL_CPU=0 WL_SYSCALL_OPS=5000 &&
		. bench/workloads.sh && wl_run syscall && echo "$WL_UNITS $WL_UNIT"' _ "$REPO"
	[ "$status" -eq 0 ]
	[ "${lines[-1]}" = "5000 syscall" ]
}

@test "bench_tools: cost blocks rotate their cases; the workload CPU's interrupts are counted" {
	# shellcheck disable=SC2016
	local order='cd "$1" && . bench/lib.sh && . bench/workloads.sh &&
		for b in 1 2 3 4 5; do wl_order "$b"; done'
	run env CASES="iperf qperf sock" bash -c "$order" _ "$REPO"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "iperf qperf sock" ]
	[ "${lines[1]}" = "qperf sock iperf" ]
	[ "${lines[2]}" = "sock iperf qperf" ]
	[ "${lines[3]}" = "iperf qperf sock" ]
	[ "${lines[4]}" = "qperf sock iperf" ]
	run env CASES="iperf qperf sock" CASE_ORDER=fixed bash -c "$order" _ "$REPO"
	[ "$status" -eq 0 ]
	[ "${lines[1]}" = "iperf qperf sock" ] && [ "${lines[4]}" = "iperf qperf sock" ]
	run env CASES="iperf qperf" CASE_ORDER=shuffled bash -c "$order" _ "$REPO"
	[ "$status" -ne 0 ]
	[[ "$output" == *"CASE_ORDER must be rotate or fixed, not 'shuffled'"* ]]
	# cost.sh refuses both before it sets anything up
	run env CASE_ORDER=shuffled "$REPO/bench/cost.sh"
	[ "$status" -ne 0 ] && [[ "$output" == *"CASE_ORDER must be rotate or fixed"* ]]
	run env IPI_PAIRS=ten "$REPO/bench/cost.sh"
	[ "$status" -ne 0 ] && [[ "$output" == *"IPI_PAIRS must be a number of pairs, not 'ten'"* ]]
	# two counts, IPIs and device interrupts since boot: they never go
	# down, and a CPU that has run has taken some
	run bash -c 'cd "$1" && . bench/lib.sh && WL_CPU=0 && . bench/workloads.sh &&
		wl_cpu_irqs && taskset -c 0 true && wl_cpu_irqs' _ "$REPO"
	[ "$status" -eq 0 ]
	local -a a b
	read -ra a <<<"${lines[0]}"
	read -ra b <<<"${lines[1]}"
	[ "${#a[@]}" -eq 2 ] && [ "${#b[@]}" -eq 2 ]
	[ "${b[0]}" -ge "${a[0]}" ] && [ "${b[1]}" -ge "${a[1]}" ]
	[ $((a[0] + a[1])) -gt 0 ]
}

@test "bench_tools: the IPI probe interrupts the other CPU and prints its cost" {
	for bad in 1 101 x "2 1" "2 1 1" "2 0 x" "2 -1 0"; do
		# shellcheck disable=SC2086
		run "$BUILD/bench/ipi_cost" $bad
		[ "$status" -eq 2 ]
	done
	[ "$(nproc)" -ge 2 ] || skip "one CPU: no other CPU to interrupt"
	run "$BUILD/bench/ipi_cost" 2 1 0
	echo "$output"
	[ "$status" -eq 0 ]
	# each pair sent IPIs (a pair without any is an error, exit 1); the
	# statistics over the pairs are the report's
	[ "${#lines[@]}" -eq 2 ]
	[[ "${lines[0]}" =~ ^pair\ 1:\ quiet\ [0-9.]+\ ms,\ with\ IPIs\ [0-9.]+\ ms,\ [1-9][0-9]*\ calls:\ -?[0-9.]+\ us\ per\ IPI$ ]]
	[[ "${lines[1]}" =~ ^pair\ 2:\ quiet\ [0-9.]+\ ms,\ with\ IPIs\ [0-9.]+\ ms,\ [1-9][0-9]*\ calls:\ -?[0-9.]+\ us\ per\ IPI$ ]]
}

@test "bench_tools: the netns scale report gives per-step costs and the slopes" {
	local d="$BATS_TEST_TMPDIR"
	netns_scale_csv "$d/lin.csv" "1000 + 2 * n"
	printf '# date: fixture\n' >"$d/lin.info"
	run python3 "$REPO/bench/netns_scale_report.py" "$d/lin.csv" "$d/lin"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "date: fixture"* ]]
	# driver rate, the paired ratio, failed connections (0+0, 1+1, 2+2)
	[[ "$output" == *"| 10 | 3 | 1020 [995-1045] | 1020 [995-1045] | 1 [1-1] | 6 | 1010 |"* ]]
	# CPU per connection: ns precise and from ticks; driver's ns/conn
	[[ "$output" == *"| 1000 | 3 | 3000 [3000-3000] | 2941 [2870-3013] |"* ]]
	[[ "$output" == *"| 0.306 [0.299-0.313] | 3.06 [2.99-3.13] |"* ]]
	[[ "$output" == *"| 490227 [478288-502167] | 519641 [506985-532297] | 3 |"* ]]
	[[ "$output" == *"| 100 | 3 | 8402 [8400-8404] | 84 [84-84] | 2 [-0.484-4.48] |"* ]]
	[[ "$output" == *"| daemon CPU per connection | 2 ns per netns [2 to 2] | 1000 | 1 |"* ]]
	[[ "$output" == *"| daemon VmRSS | 4 kB per netns [4 to 4] | 8002 | 1 |"* ]]
	[[ "$output" == *"- daemon CPU per connection: 2000 ns per 1,000 namespaces [2000 to 2000], 196 % of its value at 10 namespaces (1020 ns)."* ]]
	[ -s "$d/lin.md" ]
	tr -d '\r' <"$d/lin-summary.csv" >"$d/summary.csv"
	grep -qx "fit,cpu_ns_conn_slope,daemon,2.0,2.0,2.0,9" "$d/summary.csv"
	grep -qx "1000,rate_ratio,daemon/none,1.0,1.0,1.0,3" "$d/summary.csv"
	grep -q "^fit,none_drv_ns_slope,none,0.0," "$d/summary.csv"
	# growth faster than linear shows in the exponent: n^2 against n^0.5
	netns_scale_csv "$d/sq.csv" "n * n"
	run python3 "$REPO/bench/netns_scale_report.py" "$d/sq.csv" "$d/sq"
	[ "$status" -eq 0 ]
	[[ "$output" == *"| daemon CPU per connection |"*"| 2 [2-2] |"* ]]
	netns_scale_csv "$d/sqrt.csv" "n ** 0.5"
	run python3 "$REPO/bench/netns_scale_report.py" "$d/sqrt.csv" "$d/sqrt"
	[ "$status" -eq 0 ]
	[[ "$output" == *"| daemon CPU per connection |"*"| 0.5 [0.5-0.5] |"* ]]
}

# reaction_csv OUT: two builds, five repetitions; tcp_rmem within the
# bound (1.5 s against 1 s: within 1 s of it), net_budget over it (3 s
# against 1 s: more than 2x and 1 s), ip_frag with a start that missed
reaction_csv() {
	python3 - "$1" <<'PY'
import sys
rows = ["rep,config,case,metric,unit,value"]
for rep in range(1, 6):
    for scen, this, landed in (("tcp_rmem", 1500, 1000), ("net_budget", 3000, 1000),
                               ("ip_frag", 100, 100)):
        if scen == "ip_frag" and rep == 3:
            rows.append("%d,this,%s,missed,-,1" % (rep, scen))
        else:
            rows.append("%d,this,%s,reaction_ms,ms,%d" % (rep, scen, this + rep))
        rows.append("%d,landed,%s,reaction_ms,ms,%d" % (rep, scen, landed + rep))
    rows.append("%d,this,net_budget,gate_ms,ms,%d" % (rep, 2000 + rep))
open(sys.argv[1], "w").write("\n".join(rows) + "\n")
PY
}

@test "bench_tools: the reaction report gives p50, p95, the ratio and the issue's bound" {
	local d="$BATS_TEST_TMPDIR"
	reaction_csv "$d/r.csv"
	run python3 "$REPO/bench/reaction_report.py" "$d/r.csv" "$d/r"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"| tcp_rmem | tcp_buffer | 1503 ms [1501-1505] | 1505 ms | - | 0 of 5 | 1003 ms [1001-1005] | 1005 ms | - | 0 of 5 | 1.5 ["*"] | holds (p50 ok) | within |"* ]]
	[[ "$output" == *"| net_budget | net_buffer | 3003 ms [3001-3005] | 3005 ms | 2003 ms | 0 of 5 |"*"| **fails** (p50 **over**) | over |"* ]]
	[[ "$output" == *"| ip_frag | ip_frag |"*"| 1 of 5 |"*"| **fails** (p50 ok, more misses) | within |"* ]]
	[[ "$output" == *"whichever is larger, and no more misses: **fails** (1 of 3 scenarios)."* ]]
	tr -d '\r' <"$d/r-summary.csv" >"$d/summary.csv"
	grep -qx "tcp_rmem,bound_holds,this/landed,1,,," "$d/summary.csv"
	grep -qx "net_budget,bound_holds,this/landed,0,,," "$d/summary.csv"
	grep -qx "net_budget,bound_p95_holds,this/landed,0,,," "$d/summary.csv"
	grep -qx "tcp_rmem,bound_p95_holds,this/landed,1,,," "$d/summary.csv"
	grep -qx "ip_frag,missed,this,1,,,5" "$d/summary.csv"
	grep -q "^tcp_rmem,reaction_p50_ms,this,1503" "$d/summary.csv"
	# the per-commit report's targets table takes the bound
	mkdir "$d/rep"
	cp "$d/r-summary.csv" "$d/rep/reaction-summary.csv"
	cp "$d/r.md" "$d/rep/reaction.md"
	run python3 "$REPO/bench/report_md.py" "$d/rep"
	[ "$status" -eq 0 ]
	[[ "$output" == *"| reaction: p50 within 1 s or 2x of landed's, no more misses, every scenario | 1 of 3 scenarios | **missed**: net_budget, ip_frag |"* ]]
}
