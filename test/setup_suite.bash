# SPDX-License-Identifier: GPL-2.0-only
# Once per suite: install bpftune into a scratch prefix and build the
# out-of-tree sample tuner against that installation, as a tuner author would.

setup_suite() {
	local repo prefix
	# test/run-tests.sh installed once for its two bats runs
	[ "${BPFTUNE_SUITE_SHARED:-0}" = 1 ] && return 0
	repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
	# one prefix per run: concurrent suites must not remove each other's
	if [ -n "${BPFTUNE_SUITE_PREFIX:-}" ]; then
		prefix="$BPFTUNE_SUITE_PREFIX"
		rm -rf "$prefix"
		mkdir -p "$prefix"
	else
		prefix="$(mktemp -d /run/bpftune-suite.XXXXXX)"
	fi
	export BPFTUNE_SUITE_PREFIX="$prefix"
	chmod 0755 "$prefix"
	# make test-asan: the sanitizer build is what gets installed
	make -s -C "$repo" install PREFIX="$prefix" ${BPFTUNE_SAN:+SAN=$BPFTUNE_SAN} \
		>"$prefix.install.log" 2>&1 || {
		cat "$prefix.install.log" >&2
		return 1
	}
	make -s -C "$repo/sample_tuner" clean >/dev/null 2>&1 || true
	PKG_CONFIG_PATH="$prefix/lib/pkgconfig" \
		make -C "$repo/sample_tuner" install >"$prefix/sample-build.log" 2>&1 || {
		cat "$prefix/sample-build.log" >&2
		return 1
	}
}

teardown_suite() {
	[ "${BPFTUNE_SUITE_SHARED:-0}" = 1 ] && return 0
	[ -n "${BPFTUNE_SUITE_PREFIX:-}" ] || return 0
	rm -rf "$BPFTUNE_SUITE_PREFIX" "$BPFTUNE_SUITE_PREFIX.install.log"
}
