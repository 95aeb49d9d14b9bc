#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# selftest-broken-legacy.sh: prove that the kernel matrix catches a broken
# legacy program.  A copy of the tracked tree is built with the netns
# tuner's legacy kprobe pointed at a function no kernel has; the matrix is
# then run on that copy in legacy mode (support step + the one test of
# test/support.bats that starts every tuner: the rest of the file adds
# minutes of the guest's CPU and no evidence) and must FAIL, for that
# reason: the kprobe cannot attach, the tuner is skipped, "every in-tree
# tuner starts" fails.  Exit 0 when the matrix failed as it should, 1
# otherwise.  (make test-matrix-selftest)
#
# Usage: test/vm/selftest-broken-legacy.sh [KERNEL]     (default 6.12)

set -u -o pipefail

VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
TOP=$(cd "$VM_DIR/../.." && pwd -P)
KERNEL=${1:-6.12}
# the guests' cache (make vm-fetch): VM_CACHE as for run-in-vm.sh, so that
# CI's self-test with a cache of its own does not queue behind the other
# guest on the default cache's lock (it did: 725 s instead of 123 s)
CACHE=${VM_CACHE:-$VM_DIR/cache}
# inside the cache: on the host's disk, so the guests see it over 9p
WORK=$CACHE/selftest
TREE=$WORK/tree
BAD_TARGET=bpftune_no_such_function
SRC=src/lib/core/netns_watch.bpf.c

say() { echo "selftest: $*"; }
die() { echo "selftest: $*" >&2; exit 1; }

rm -rf "$WORK"
mkdir -p "$TREE" || die "cannot create $TREE"
(cd "$TOP" && git ls-files -z | tar --null -T - -cf -) | tar -xf - -C "$TREE" ||
	die "cannot copy the tracked tree"
# and the tree's build, times kept: make then redoes only what the patched
# source feeds (one BPF object, its skeleton, the library) instead of all
# of it (minutes of the CI's guest CPU)
if [ -x "$TOP/build/bin/bpftune" ]; then
	(cd "$TOP" && tar --exclude=./build/asan --exclude=./build/fuzz \
		--exclude=./build/deb --exclude=./build/bench --exclude=./build/ci \
		-cf - ./build) | tar -xf - -C "$TREE" ||
		die "cannot copy the build of the tree"
fi

# legacy object only: the full one keeps the right target
awk -v bad="$BAD_TARGET" '
/^BPFTUNE_FN\(netns_gone__exit, proc_net_ns_exit,/ {
	line = $0
	sub(/proc_net_ns_exit/, bad, line)
	print "#ifdef BPFTUNE_LEGACY"; print line; print "#else"; print; print "#endif"
	done = 1; next
}
{ print }
END { exit !done }' "$TOP/$SRC" >"$TREE/$SRC" ||
	die "the netns_gone__exit hook is not in $SRC any more: update this script"
grep -q "$BAD_TARGET" "$TREE/$SRC" || die "patch not applied"

say "building the broken copy in $TREE"
make -s -C "$TREE" -j2 all fixtures >"$WORK/build.log" 2>&1 || {
	tail -30 "$WORK/build.log"
	die "the broken copy does not build"
}

say "running the matrix on the broken copy: $KERNEL, legacy mode"
(cd "$TREE" && VM_CACHE="$CACHE" VM_MODES=legacy \
	VM_BATS_ARGS="--timing --filter every.in-tree.tuner.starts test/support.bats" \
	VM_LOGDIR="$WORK/logs" \
	VM_MATRIX_DEADLINE=${VM_MATRIX_DEADLINE:-1200} \
	test/vm/matrix.sh "$KERNEL") >"$WORK/matrix.log" 2>&1
rc=$?
tail -8 "$WORK/matrix.log"
[ "$rc" -ne 0 ] || die "the matrix PASSED with a broken legacy program"
log="$WORK/logs/$KERNEL-bats-legacy.log"
grep -q "not ok .* every in-tree tuner starts" "$log" ||
	die "the matrix failed, but not on the in-tree tuner check (see $log)"
grep -q "cannot attach netns_gone__exit" "$log" ||
	die "the matrix failed, but the log does not show the kprobe failing (see $log)"
say "ok: the matrix failed on the broken legacy kprobe, as it must"
rm -rf "$TREE"
