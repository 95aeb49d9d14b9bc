#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# bats file_tags=nosan,offline
# The comparison with the reference daemon (bench/ref_build.sh,
# bench/ref_compare.sh) stops with a clear error when what it needs is
# missing (the reference's source, its build, a guest); the cost report
# gives the speed ratios (iperf3 throughput, qperf latency) with their
# intervals; an A/B daemon's start-up waits until its BPF programs settle;
# make bench-report turns a comparison left in the commit's results into
# target lines (ours against the reference, same run), or says none ran.
# Needs no daemon, no guest, no network.

load helpers

@test "bench_ref: ref_build.sh fails clearly without the reference's source" {
	local d="$BATS_TEST_TMPDIR"
	run "$REPO/bench/ref_build.sh"
	[ "$status" -ne 0 ]
	[[ "$output" == *"usage: "*"ref_build.sh SRC DEST"* ]]
	run "$REPO/bench/ref_build.sh" "$d/absent" "$d/out"
	[ "$status" -ne 0 ]
	[[ "$output" == *"source $d/absent does not exist (fetch the reference first)"* ]]
	mkdir "$d/empty"
	run "$REPO/bench/ref_build.sh" "$d/empty" "$d/out"
	[ "$status" -ne 0 ]
	[[ "$output" == *"$d/empty is neither a git directory with HEAD nor a source tree"* ]]
	# a git repository of something else
	git init -q "$d/other"
	echo x >"$d/other/README"
	git -C "$d/other" add README
	git -C "$d/other" -c user.name=t -c user.email=t@t commit -qm x
	run "$REPO/bench/ref_build.sh" "$d/other" "$d/out"
	[ "$status" -ne 0 ]
	[[ "$output" == *"has no src/Makefile and src/bpftune.c: not the reference daemon's source"* ]]
	run env REF_REV=nosuchrev "$REPO/bench/ref_build.sh" "$d/other" "$d/out"
	[ "$status" -ne 0 ]
	[[ "$output" == *"neither a git directory with nosuchrev nor a source tree"* ]]
	# never into our own tree
	run "$REPO/bench/ref_build.sh" "$d/other" "$REPO/build/ref-test-$$"
	[ "$status" -ne 0 ]
	[[ "$output" == *"is inside this tree: build the reference outside it"* ]]
	[ ! -e "$REPO/build/ref-test-$$/src" ]
	rmdir "$REPO/build/ref-test-$$"
}

@test "bench_ref: ref_compare.sh fails clearly without the reference's build" {
	local d="$BATS_TEST_TMPDIR"
	run env -u REF_DIR "$REPO/bench/ref_compare.sh"
	[ "$status" -ne 0 ]
	[[ "$output" == *"REF_DIR is not set"* ]]
	mkdir "$d/ref"
	run env REF_DIR="$d/ref" "$REPO/bench/ref_compare.sh"
	[ "$status" -ne 0 ]
	[[ "$output" == *"$d/ref/ab.env is missing: build the reference first"* ]]
	printf 'AB_NAME=oracle\nAB_CMD="%s -s"\nAB_READY=x\n' "$d/ref/none" >"$d/ref/ab.env"
	run env REF_DIR="$d/ref" "$REPO/bench/ref_compare.sh"
	[ "$status" -ne 0 ]
	[[ "$output" == *"the reference daemon $d/ref/none is not an executable"* ]]
	# the guest half raises global buffer limits: never outside a guest
	run env -u BPFTUNE_VM_KERNEL "$REPO/bench/ref_compare.sh" --guest
	[ "$status" -ne 0 ]
	[[ "$output" == *"--guest runs only inside a test/vm guest"* ]]
}

# speed_csv FILE: bench/cost.sh rows, 4 blocks x 2 runs of iperf (128 MiB)
# and qperf; "all" takes 10 % longer per iperf run and adds 5 % latency,
# "oracle" 25 % and 20 %, each with a per-block wobble of +-1 %; with a
# second argument "notel", also that config (ours without telemetry: 5 %
# and 2 %), listed before oracle as bench/cost.sh lists them
speed_csv() {
	python3 - "$1" "${2:-}" <<'PY'
import sys
rows = ["block,config,case,run,metric,unit,value"]
slow = {"baseline": (1.0, 1.0), "all": (1.10, 1.05)}
if sys.argv[2] == "notel":
    slow["notel"] = (1.05, 1.02)
slow["oracle"] = (1.25, 1.20)
for blk in range(1, 5):
    wob = 1 + (0.01 if blk % 2 else -0.01)
    for cfg, (t, l) in slow.items():
        w = wob if cfg != "baseline" else 1.0
        for run in (1, 2):
            rows.append("%d,%s,iperf,%d,cpu,us,%d" % (blk, cfg, run, 900000))
            rows.append("%d,%s,iperf,%d,work,packet,%d" % (blk, cfg, run, 100000))
            rows.append("%d,%s,iperf,%d,wall,ms,%.3f" % (blk, cfg, run, 1000 * t * w))
            rows.append("%d,%s,iperf,%d,bytes,-,134217728" % (blk, cfg, run))
            rows.append("%d,%s,qperf,%d,cpu,us,%d" % (blk, cfg, run, 500000))
            rows.append("%d,%s,qperf,%d,work,transaction,%d" % (blk, cfg, run, 20000))
            rows.append("%d,%s,qperf,%d,wall,ms,2000" % (blk, cfg, run))
            rows.append("%d,%s,qperf,%d,latency_us,-,%.3f" % (blk, cfg, run, 50 * l * w))
open(sys.argv[1], "w").write("\n".join(rows) + "\n")
PY
}

@test "bench_ref: the cost report gives throughput and latency ratios with intervals" {
	local d="$BATS_TEST_TMPDIR"
	speed_csv "$d/c.csv"
	printf '# date: fixture\n' >"$d/c.info"
	run python3 "$REPO/bench/cost_report.py" "$d/c.csv" "$d/c"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"## Speed: iperf3 throughput and qperf tcp_lat latency"* ]]
	# 128 MiB in 1 s: 1073.7 Mbit/s; all: 1/1.1, oracle: 1/1.25; the
	# +-1 % wobble over 4 blocks makes the t interval (sd of the logs
	# 0.0115, t(0.975, 3) = 3.18: +-1.8 %); all / oracle moves together
	[[ "$output" == *"| iperf | throughput Mbit/s | 1074 (1074-1074) | 0.909 [0.893-0.926] | 4 | 0.800 [0.785-0.815] | 4 | 1.136 [1.136-1.136] | 4 |"* ]]
	[[ "$output" == *"| qperf | latency us | 50 (50-50) | 1.050 [1.031-1.069] | 4 | 1.200 [1.178-1.222] | 4 | 0.875 [0.875-0.875] | 4 |"* ]]
	tr -d '\r' <"$d/c-summary.csv" >"$d/s.csv"
	grep -q "^iperf,throughput_ratio,oracle/baseline,0.8" "$d/s.csv"
	grep -q "^qperf,latency_ratio,all/oracle,0.875" "$d/s.csv"
}

@test "bench_ref: the cost report gives the interrupts of the workload's CPU" {
	local d="$BATS_TEST_TMPDIR" blk run
	speed_csv "$d/c.csv"
	# iperf: baseline 10 + blk IPIs a run, all 40 + blk; 3 device ones
	# each; qperf has no interrupt rows (a CSV from before them)
	for blk in 1 2 3 4; do
		for run in 1 2; do
			echo "$blk,baseline,iperf,$run,ipi,count,$((10 + blk))"
			echo "$blk,baseline,iperf,$run,devirq,count,3"
			echo "$blk,all,iperf,$run,ipi,count,$((40 + blk))"
			echo "$blk,all,iperf,$run,devirq,count,3"
		done
	done >>"$d/c.csv"
	printf '# date: fixture\n' >"$d/c.info"
	run python3 "$REPO/bench/cost_report.py" "$d/c.csv" "$d/c"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"(No IPI cost measured: "* ]]
	[[ "$output" == *"| iperf | baseline | 12.5 | 3 | - |"* ]]
	[[ "$output" == *"| iperf | all | 42.5 | 3 | - |"* ]]
	[[ "$output" != *"| qperf | baseline |"* ]]
	# with ipi_cost's output, pairs at 8.5, 10 and 11.5 us: the median 10,
	# the mean's interval 10 +- 4.303 * 1.5 / sqrt(3); 30 more IPIs a
	# run at 10 us of the baseline's 900 ms a run are 0.033 %
	for us in 8.50 10.00 11.50; do
		echo "pair 1: quiet 100.0 ms, with IPIs 300.0 ms, 20000 calls: $us us per IPI"
	done >"$d/c-ipi.txt"
	run python3 "$REPO/bench/cost_report.py" "$d/c.csv" "$d/c"
	[ "$status" -eq 0 ]
	[[ "$output" == *"One IPI costs the task it interrupts 10 us [6.27 - 13.7] here"* ]]
	[[ "$output" == *"| iperf | all | 42.5 | 3 | 0.033 % |"* ]]
	# a damaged file: the cost is left out, the report still comes
	printf 'pair 1: quiet 1 ms, with IPIs 2 ms, 3 calls: ten us per IPI\n' >"$d/c-ipi.txt"
	run python3 "$REPO/bench/cost_report.py" "$d/c.csv" "$d/c"
	[ "$status" -eq 0 ]
	[[ "$output" == *"| iperf | all | 42.5 | 3 | - |"* ]]
}

# share_report DIR NS...: the cost report of a fixture whose statistics
# pass of iperf under "all" has one run per NS (the BPF ns per packet of
# that run, 100000 packets each; the baseline 9000 ns a packet), then the
# targets of a report made of it (DIR/report); the last output is the
# targets'
share_report() {
	local d=$1 r="$1/report" run=0 ns
	shift
	speed_csv "$d/c.csv"
	printf '# date: fixture\n' >"$d/c.info"
	for ns in "$@"; do
		run=$((run + 1))
		echo "stats,all,iperf,$run,work,packet,100000"
		echo "stats,all,iperf,$run,bpf:tcp_buffer/probe__send,run_cnt,1000"
		echo "stats,all,iperf,$run,bpf:tcp_buffer/probe__send,run_time_ns,$((ns * 100000))"
	done >>"$d/c.csv"
	python3 "$REPO/bench/cost_report.py" "$d/c.csv" "$d/c" >"$d/cost.out" || return 1
	mkdir -p "$r"
	printf 'commit: fixture\n' >"$r/info.txt"
	tr -d '\r' <"$d/c-summary.csv" | sed 's/^/cost,/' >"$r/cost-summary.csv"
	python3 "$REPO/bench/report_md.py" "$r"
}

@test "bench_ref: the BPF share is judged by the mean of the runs, not one run" {
	local d="$BATS_TEST_TMPDIR"
	# 9, 18 and 27 ns are 0.1, 0.2 and 0.3 % of 9000: mean 0.2, t(0.975,
	# 2) 4.303 x 0.1 / sqrt(3) = 0.248, the lower end held at 0
	run share_report "$d" 9 18 27
	echo "$output"
	cat "$d/cost.out"
	[ "$status" -eq 0 ]
	grep -qF "### all, iperf: 18 [9-27] BPF ns per packet = 0.200 % of the kernel's 9000 ns; per run 0.200 % [0.000 - 0.448] (mean of 3 runs, 95 % CI)" "$d/cost.out"
	grep -q "^cost,iperf,bpf_share_pct,all,0.2," "$d/report/cost-summary.csv"
	[[ "$output" == *"| iperf: BPF time per packet < 1 % of the kernel's own (mean of the statistics runs) | 0.2 % [0-0.448] | met |"* ]]
	# one run of three at 1.5 % (a window open through it) no longer
	# decides: 0.5, 0.5, 1.5 % give 0.833 [0 - 2.27], not resolved
	run share_report "$d" 45 45 135
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"(mean of the statistics runs) | 0.833 % [0-2.27] | not resolved: the interval spans 1 % |"* ]]
	# every run over it: missed
	run share_report "$d" 180 189 198
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"(mean of the statistics runs) | 2.1 % ["*"] | **missed** |"* ]]
}

@test "bench_ref: each of ours is compared with the reference, listed last" {
	local d="$BATS_TEST_TMPDIR"
	speed_csv "$d/c.csv" notel
	printf '# date: fixture\n' >"$d/c.info"
	run python3 "$REPO/bench/cost_report.py" "$d/c.csv" "$d/c"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"| all / oracle [95 % CI] | n | notel / oracle [95 % CI] | n |"* ]]
	[[ "$output" != *"all / notel"* ]]
	tr -d '\r' <"$d/c-summary.csv" >"$d/s.csv"
	# 1.05 / 1.25 = 0.84 of the time: 1.190 of the throughput
	grep -q "^iperf,throughput_ratio,notel/oracle,1.19" "$d/s.csv"
	grep -q "^qperf,latency_ratio,notel/oracle,0.85" "$d/s.csv"
}

@test "bench_ref: start-up waits until the daemon's BPF programs settle" {
	run bash -c '. "$1/bench/lib.sh"; sleep 30 & p=$!; t=$SECONDS
		bench_settle "$p" 2 20; rc=$?; bench_bpf_progs "$p"
		echo "rc=$rc waited=$((SECONDS - t)) progs=$BPF_PROGS"
		kill "$p"' _ "$REPO"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" =~ rc=0\ waited=[23]\ progs=0 ]]
	# a daemon that died is not settled
	run bash -c '. "$1/bench/lib.sh"; true & p=$!; wait "$p"; bench_settle "$p" 1 5' _ "$REPO"
	[ "$status" -ne 0 ]
	# one whose programs keep changing is not either: MAX ends the wait
	run bash -c '. "$1/bench/lib.sh"; p=$$; n=0
		bench_bpf_progs() { n=$((n + 1)); BPF_PROGS=$n; }
		t=$SECONDS; bench_settle "$p" 2 3; echo "rc=$? waited=$((SECONDS - t))"' _ "$REPO"
	echo "$output"
	[[ "$output" =~ rc=1\ waited=[34] ]]
	# the last change is timed (when the programs were all loaded), not
	# the end of the calm time after it: changes for 1 s, then 1 s calm
	run bash -c '. "$1/bench/lib.sh"; p=$$; n=0; t0=$(date +%s%N)
		bench_bpf_progs() {
			[ $(($(date +%s%N) - t0)) -ge 1000000000 ] || n=$((n + 1))
			BPF_PROGS=$n
		}
		bench_settle "$p" 1 20; echo "rc=$? loaded=$(((PROGS_CHANGED_NS - t0) / 1000000))"' _ "$REPO"
	echo "$output"
	[[ "$output" =~ rc=0\ loaded=([0-9]+)$ ]]
	[ "${BASH_REMATCH[1]}" -lt 1000 ]
}

# ref_summary DIR KERNEL OURS/REF-LO OURS/REF HI: a ref-KERNEL part as
# bench/ref_compare.sh leaves it in a commit's results (summary and report)
ref_summary() {
	cat >"$1/ref-$2-summary.csv" <<CSV
case,metric,config,value,lo,hi,n
iperf,cost_ratio,notel/baseline,1.01,0.99,1.03,10
iperf,cost_ratio,all/baseline,1.02,1.0,1.04,10
iperf,cost_ratio,oracle/baseline,1.08,1.05,1.11,10
iperf,cost_ratio,all/oracle,0.94,0.92,0.96,10
iperf,cost_ratio,notel/oracle,$3,$4,$5,10
daemon,cpu_ms_per_s,notel,2.2,1.4,5.6,10
daemon,cpu_ms_per_s,oracle,4.2,2.4,5.6,10
CSV
	printf '# ref-%s\n\ncommit: fixture\n' "$2" >"$1/ref-$2.md"
}

@test "bench_ref: make bench-report puts the reference comparison in the targets" {
	local d="$BATS_TEST_TMPDIR/report"
	mkdir -p "$d"
	printf 'commit: fixture\n' >"$d/info.txt"
	printf 'source,case,metric,config,value,lo,hi,n\n' >"$d/cost-summary.csv"
	run python3 "$REPO/bench/report_md.py" "$d"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"| against the reference daemon, same run: ours costs less | not run for this commit"* ]]
	# ours without telemetry is compared where it ran, not "all"
	ref_summary "$d" 6.12 0.935 0.91 0.96
	ref_summary "$d" 6.1 1.05 1.02 1.08
	run python3 "$REPO/bench/report_md.py" "$d"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"| ref-6.12: iperf CPU per packet, notel / oracle (ours / none 1.01 [0.99-1.03], oracle / none 1.08 [1.05-1.11]) | 0.935 [0.91-0.96] | met: ours costs less"* ]]
	[[ "$output" == *"| ref-6.1: iperf CPU per packet, notel / oracle"*"| 1.05 [1.02-1.08] | **missed**: ours costs more"* ]]
	[[ "$output" == *"| ref-6.12: daemon CPU ms/s, notel / oracle (median over blocks [range]) | 2.2 [1.4-5.6] / 4.2 [2.4-5.6] | met: ours less |"* ]]
	[[ "$output" != *"not run for this commit"* ]]
	grep -q "^# ref-6.12" "$d/report.md"
	grep -q "^ref-6.1,iperf,cost_ratio,notel/oracle,1.05" "$d/summary.csv"
	# an interval across 1 resolves nothing
	ref_summary "$d" 6.1 0.99 0.95 1.03
	run python3 "$REPO/bench/report_md.py" "$d"
	[[ "$output" == *"| ref-6.1: iperf CPU per packet"*"| not resolved: the interval spans 1 (+-4.04 %) |"* ]]
}
