# SPDX-License-Identifier: GPL-2.0-only
# Once per suite: install bpftune into a scratch prefix and build the
# out-of-tree sample tuner against that installation, as a tuner author would.

setup_suite() {
	local repo prefix
	repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
	prefix="${BPFTUNE_SUITE_PREFIX:-/run/bpftune-suite}"
	export BPFTUNE_SUITE_PREFIX="$prefix"
	rm -rf "$prefix"
	mkdir -p "$prefix"
	chmod 0755 "$prefix"
	make -s -C "$repo" install PREFIX="$prefix" >"$prefix.install.log" 2>&1 || {
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
	rm -rf "${BPFTUNE_SUITE_PREFIX:-/run/bpftune-suite}" \
		"${BPFTUNE_SUITE_PREFIX:-/run/bpftune-suite}.install.log"
}
