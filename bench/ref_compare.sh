#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Same-run comparison with the reference daemon (Oracle's bpftune, built by
# bench/ref_build.sh) in a qemu guest (test/vm; default the 6.12 kernel, full
# mode): bench/cost.sh with the cases iperf (iperf3 over a veth pair) and
# qperf (tcp_lat), configurations baseline (no daemon), all (ours, all
# tuners, --observe), notel (the same without telemetry, which the
# reference does not record) and the reference (its own command line, AB_CMD),
# in blocks whose order is rotated per block.  The guest's buffer limits
# are raised first (REF_BUFMAX) so that neither daemon has anything to
# tune: what is measured is what watching costs.  The reference has no
# observe mode; whatever it writes is shown (the guest's net.* sysctls
# before and after the run).  Reported by bench/cost_report.py: each
# daemon's throughput, latency and CPU cost per unit against no daemon,
# and ours against the reference, with 95 % intervals paired over blocks.
#
# Usage (root, from the top of the tree, after make and bench/ref_build.sh):
#   REF_DIR=DEST bench/ref_compare.sh [KERNEL]     (default 6.12)
# Knobs: REF_BLOCKS=12, REF_RUNS=2 (runs per case and block),
#   REF_CONFIGS="baseline all notel" (ours; the reference is added),
#   REF_IPERF_BYTES=64M (about 4 s at the 6.12 TCG guest's 120 Mbit/s),
#   REF_QPERF_SECS=2, REF_TIMEOUT=2700 (the guest's, s), REF_DEADLINE (no
#   block starts after it, guest s; default REF_TIMEOUT - 400), REF_BUFMAX=67108864 (bytes), AB_SETTLE (default
#   from DEST/ab.env; ours gets the same calm time, BENCH_SETTLE)
# Results: bench/results/ref-<kernel>-<time>.{log,csv,info,md,png}, and
# ref-<kernel>.* in the commit's results (bench/commit_dir.sh, or
# REPORT_DIR), which make bench-report takes into its report
set -eu
cd "$(dirname "$0")/.."

die() {
	echo "ref_compare: $*" >&2
	exit 1
}

# ---- inside the guest ---------------------------------------------------
if [ "${1:-}" = --guest ]; then
	# it raises global limits and leaves them: only in a throw-away guest
	[ -n "${BPFTUNE_VM_KERNEL:-}" ] || die "--guest runs only inside a test/vm guest"
	max="${REF_BUFMAX:-67108864}"
	sysctl -qw net.core.rmem_max="$max" net.core.wmem_max="$max" \
		net.ipv4.tcp_rmem="4096 131072 $max" net.ipv4.tcp_wmem="4096 16384 $max"
	tmp="$(mktemp -d)"
	sysctl -a 2>/dev/null | grep '^net\.' | grep -v -e _count -e random >"$tmp/before"
	rc=0
	# both daemons measured after the same calm time since their last
	# BPF program was loaded (AB_SETTLE; the reference needs it anyway)
	COST_OUT="$tmp/cost" CASES="iperf qperf" CONFIGS="${REF_CONFIGS:-baseline all notel}" STATS_RUNS=0 \
		BLOCKS="${REF_BLOCKS:-12}" RUNS="${REF_RUNS:-2}" BENCH_SETTLE="${AB_SETTLE:-0}" \
		WL_IPERF_BYTES="${REF_IPERF_BYTES:-64M}" WL_QPERF_SECS="${REF_QPERF_SECS:-2}" \
		COST_DEADLINE="${REF_DEADLINE:-2300}" bench/cost.sh >/dev/null || rc=1
	sysctl -a 2>/dev/null | grep '^net\.' | grep -v -e _count -e random >"$tmp/after"
	echo "=== sysctl changes during the run (net.*, $AB_NAME has no observe mode) ==="
	diff "$tmp/before" "$tmp/after" | grep '^[<>]' || echo "(none)"
	echo "=== $AB_NAME's log, last block: changes it reported ==="
	grep -E "changed from|Scenario" "$tmp/cost-$AB_NAME.log" 2>/dev/null ||
		echo "(none in its last block's log; the sysctl diff above covers the run)"
	for f in info csv; do
		echo "=== cost $f begin ==="
		cat "$tmp/cost.$f" 2>/dev/null || rc=1
		echo "=== cost $f end ==="
	done
	exit $rc
fi

# ---- on the host ------------------------------------------------------------
[ -n "${REF_DIR:-}" ] || die "REF_DIR is not set: the reference's build directory (bench/ref_build.sh SRC DEST)"
[ -f "$REF_DIR/ab.env" ] ||
	die "$REF_DIR/ab.env is missing: build the reference first (bench/ref_build.sh SRC $REF_DIR)"
settle="${AB_SETTLE:-}"
# shellcheck disable=SC1091
. "$REF_DIR/ab.env"
[ -z "$settle" ] || AB_SETTLE="$settle"
read -r ref_bin _ <<<"$AB_CMD"
[ -x "$ref_bin" ] || die "the reference daemon $ref_bin is not an executable (rebuild: bench/ref_build.sh)"
[ "$(id -u)" -eq 0 ] || die "run as root"
[ -x build/bin/bpftune ] || die "build/bin/bpftune is missing: run make first"

KERNEL="${1:-6.12}"
STAMP="$(date -u +%Y%m%dT%H%M%SZ)"
OUT="bench/results/ref-$KERNEL-$STAMP"
TIMEOUT="${REF_TIMEOUT:-2700}"
mkdir -p bench/results
echo "ref_compare: kernel $KERNEL, reference ${REF_COMMIT:0:12}, ours $(git rev-parse --short=12 HEAD) -> $OUT.md" >&2
set +e
test/vm/run-in-vm.sh -t "$TIMEOUT" \
	-e "AB_CMD=$AB_CMD" -e "AB_READY=$AB_READY" -e "AB_SETTLE=$AB_SETTLE" -e "AB_NAME=$AB_NAME" \
	-e "REF_BLOCKS=${REF_BLOCKS:-12}" -e "REF_RUNS=${REF_RUNS:-2}" -e "REF_CONFIGS=${REF_CONFIGS:-baseline all notel}" \
	-e "REF_IPERF_BYTES=${REF_IPERF_BYTES:-64M}" -e "REF_QPERF_SECS=${REF_QPERF_SECS:-2}" \
	-e "REF_DEADLINE=${REF_DEADLINE:-$((TIMEOUT - 400))}" -e "REF_BUFMAX=${REF_BUFMAX:-67108864}" \
	"$KERNEL" -- bench/ref_compare.sh --guest 2>&1 | tee "$OUT.log"
st=${PIPESTATUS[0]}
set -e
for f in info csv; do
	sed -n "/^=== cost $f begin ===/,/^=== cost $f end ===/p" "$OUT.log" | sed '1d;$d' |
		tr -d '\r' >"$OUT.$f"
done
{
	echo "# reference: $AB_NAME ${REF_COMMIT}"
	echo "# ours: $(git rev-parse HEAD)$(git diff --quiet HEAD || echo ' (modified)')"
	echo "# guest kernel: $(sed -n 's/^vm: \([^:]*\): guest ready.*/\1/p' "$OUT.log" | head -1)"
} >>"$OUT.info"
[ -s "$OUT.csv" ] || die "no results came back from the guest (exit status $st; log $OUT.log)"
python3 bench/cost_report.py "$OUT.csv" "$OUT" >/dev/null
# and in the commit's results, where make bench-report picks it up (its
# directory, named when it started: the tree may change meanwhile)
dir="${REPORT_DIR:-$(bench/commit_dir.sh)}"
mkdir -p "$dir"
cp "$OUT.csv" "$dir/ref-$KERNEL.csv"
cp "$OUT.info" "$dir/ref-$KERNEL.info"
python3 bench/cost_report.py "$dir/ref-$KERNEL.csv" "$dir/ref-$KERNEL" >/dev/null
echo "ref_compare: $OUT.md, and $dir/ref-$KERNEL.md (guest exit status $st)" >&2
exit "$st"
