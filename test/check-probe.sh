#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make check's probe step: bpftune -S (the support probe, and opening and
# loading every plugin) under the sanitizers.  The build tree may sit in a
# directory the daemon rightly refuses plugins from (a clone under /tmp),
# so the plugins are copied into a trusted directory under /run first.
# Fails unless the probe ran, exited with a support level, and listed every
# plugin as loaded ("will run" or "skipped: <why the kernel cannot>"): a
# check that could not do its work is not clean.
#
# Usage: test/check-probe.sh DAEMON PLUGIN_DIR
set -u -o pipefail

daemon=$1
plugins=$2
if [ "$(id -u)" -ne 0 ]; then
	echo "check-probe: the support probe loads BPF programs: run make check as root" >&2
	exit 1
fi
mapfile -t sos < <(cd "$plugins" && ls -- *_tuner.so 2>/dev/null)
if [ ${#sos[@]} -eq 0 ]; then
	echo "check-probe: no plugins in $plugins" >&2
	exit 1
fi
dir=$(mktemp -d /run/bpftune-check.XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT
chmod 0755 "$dir"
cp -- "${sos[@]/#/$plugins/}" "$dir/"
chmod 0755 "$dir"/*.so

out=$(ASAN_OPTIONS=exitcode=99:detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	"$daemon" -S -l "$dir" 2>&1)
rc=$?
fail() {
	echo "$out"
	echo "check-probe: FAILED: $*" >&2
	exit 1
}
case $rc in
0|2|3|4) ;;
99) fail "sanitizer report" ;;
*) fail "bpftune -S exit status $rc (want a support level: 0, 2, 3 or 4)" ;;
esac
grep -qE 'AddressSanitizer|LeakSanitizer|runtime error' <<<"$out" && fail "sanitizer report"
grep -q 'refused' <<<"$out" && fail "a plugin or the plugin directory was refused"
listed=$(grep -cE '^  [a-z0-9_]+ +(will run|skipped: .+)$' <<<"$out")
[ "$listed" -eq ${#sos[@]} ] ||
	fail "${#sos[@]} plugins in $plugins, $listed listed as loaded"
run=$(grep -cE '^  [a-z0-9_]+ +will run$' <<<"$out")
echo "check-probe: bpftune -S under ASan/UBSan: support level exit $rc, ${#sos[@]} plugins loaded, $run will run"
