#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# bats file_tags=kernel
# The kernel BTF at load time (src/lib/loader/bpf_btf.c, btf_min.c): each
# object gets the minimal BTF its CO-RE relocations need, which must
# relocate it exactly as the kernel's whole BTF does; and where no
# program needs the kernel BTF to attach (no fentry), libbpf never parses
# it (5.5 MB read and copied per object otherwise).

load helpers

setup() {
	CHECK="$REPO/build/test/btf_min_check"
	[ -x "$CHECK" ] || skip "build/test/btf_min_check not built (make test)"
}

teardown() {
	common_teardown
}

@test "each object's minimal BTF relocates it as the kernel's BTF does" {
	local objs=("$REPO"/build/bpf/tuners/*/*.bpf.o "$REPO"/build/bpf/fixtures/*.bpf.o)

	run "$CHECK" "${objs[@]}"
	echo "$output"
	[ "$status" -eq 0 ]
	# every object with relocations compared at least one program
	! grep -q "(0 programs compared" <<<"$output"
	[ "$(grep -c 'same instructions' <<<"$output")" -ge 9 ]
}

@test "a minimal BTF with wrong offsets fails the comparison" {
	run "$CHECK" --perturb "$REPO"/build/bpf/tuners/tcp_buffer/tcp_buffer_tuner.bpf.o
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" != *"same instructions"* ]]
}

@test "all tuners load without libbpf parsing the kernel BTF where fentry is not used" {
	local so
	[ "$(objects_kind)" = legacy ] || skip "fentry programs need the kernel BTF to attach"
	CG="$(make_cgroup)" || skip "no cgroup2 hierarchy"
	rm -f "$PLUGIN_DIR"/*.so 2>/dev/null || true
	make_plugin_dir
	for so in "$BUILD_PLUGINS"/*_tuner.so; do
		cp "$so" "$PLUGIN_DIR/"
	done
	start_daemon -d -c "$CG" --no-telemetry
	grep -q "bpftune running with $(ls "$PLUGIN_DIR"/*.so | wc -l) tuners" "$LOG"
	! grep -q "loading kernel BTF" "$LOG"
	! grep -q "no minimal BTF" "$LOG"
	# and the minimal BTF was used: the kernel's was read (a sysfs pread
	# gives a page at most: a reader that took a short read for the end
	# found no kernel BTF, and loaded without either)
	[ "$(grep -c "legacy object relocated against a minimal BTF" "$LOG")" -ge \
		"$(ls "$PLUGIN_DIR"/*.so | wc -l)" ]
}
