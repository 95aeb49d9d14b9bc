#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# make check's probe step (test/check-probe.sh): it loads every plugin under
# the sanitizers from a trusted copy, wherever the build tree is, and it
# fails when it could not do that work.

load helpers

setup() {
	SCRATCH="$(mktemp -d /tmp/bpftune-checks.XXXXXX)"
	chmod 0755 "$SCRATCH"
	cp "$BUILD_PLUGINS"/*_tuner.so "$SCRATCH/"
}

teardown() {
	rm -rf "$SCRATCH"
}

@test "check-probe: plugins in a build tree under /tmp are probed from a trusted copy" {
	# the daemon itself refuses them where they are
	run "$BPFTUNE" -S -l "$SCRATCH"
	[[ "$output" == *"directory /tmp is writable by others"* ]]
	run "$REPO/test/check-probe.sh" "$BPFTUNE" "$SCRATCH"
	echo "$output"
	[ "$status" -eq 0 ]
	local n
	n="$(ls "$SCRATCH"/*_tuner.so | wc -l)"
	[[ "$output" =~ check-probe:\ .*\ $n\ plugins\ loaded,\ [0-9]+\ will\ run ]]
}

@test "check-probe: a plugin that cannot be loaded fails the check" {
	head -c 3000 "$SCRATCH/sysctl_tuner.so" > "$SCRATCH/broken_tuner.so"
	run "$REPO/test/check-probe.sh" "$BPFTUNE" "$SCRATCH"
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"check-probe: FAILED"* ]]
}

@test "check-probe: no plugins at all fails the check" {
	rm -f "$SCRATCH"/*.so
	run "$REPO/test/check-probe.sh" "$BPFTUNE" "$SCRATCH"
	[ "$status" -ne 0 ]
	[[ "$output" == *"no plugins in $SCRATCH"* ]]
}
