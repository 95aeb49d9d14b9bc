#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# make test-asan, before the suite: proves the run can see what it claims
# to check.  Fails unless (1) the daemon, the shipper, libbpftune and every
# plugin under test carry the ASan/UBSan instrumentation, and (2) a report
# of each kind (ASan, UBSan, LeakSanitizer at exit) from a process started
# with the suite's environment lands in the reports directory.
# usage: test/san-check.sh BUILD REPORTS_DIR   (ASAN_OPTIONS etc. exported)
set -u
build="$1" reports="$2"
bad=0

# (1) instrumented: calls into the runtime (plugins, the library) or the
# runtime itself (executables: clang links it into them)
for f in "$build/bin/bpftune" "$build/bin/bpftune-ship"; do
	if ! nm -D "$f" 2>/dev/null | grep -q ' T __asan_init$'; then
		echo "san-check: $f has no ASan runtime: not a sanitizer build" >&2
		bad=1
	fi
done
for f in "$build/lib/libbpftune.so" "$build"/lib/bpftune/*.so "$build"/test/plugins/*.so; do
	if ! nm -D --undefined-only "$f" 2>/dev/null | grep -q '__asan_report_load' ||
	   ! nm -D --undefined-only "$f" 2>/dev/null | grep -q '__ubsan_handle_'; then
		echo "san-check: $f is not built with ASan and UBSan" >&2
		bad=1
	fi
done

# (2) one report per deliberate fault, where the suite's reports go
canary="$build/test/san_canary"
moved="$reports.canary"
mkdir -p "$moved"
for kind in asan:heap-buffer-overflow ubsan:'signed integer overflow' \
	    leak:'detected memory leaks'; do
	what="${kind%%:*}" expect="${kind#*:}"
	"$canary" "$what" >/dev/null 2>&1
	mapfile -t new < <(find "$reports" -type f)
	if [ "${#new[@]}" -ne 1 ] || ! grep -q "$expect" "${new[0]}"; then
		echo "san-check: san_canary $what: expected one report saying" \
		     "'$expect' in $reports, found ${#new[@]}" >&2
		bad=1
	fi
	[ "${#new[@]}" -eq 0 ] || mv "${new[@]}" "$moved/"
	[ "$bad" -eq 0 ] && rm -f "$moved"/*
done
rmdir "$moved" 2>/dev/null
[ "$bad" -eq 0 ] && echo "san-check: instrumented build; ASan, UBSan and leak reports reach $reports"
exit "$bad"
