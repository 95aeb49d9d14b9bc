#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# bats file_tags=kernel,hooks
# bpftune -S, -L and command-line handling.

load helpers

setup() {
	make_plugin_dir sample alt fentry_only
}

teardown() {
	common_teardown
}

@test "-S reports the support level with its exit status" {
	run "$BPFTUNE" -S $(mode_flags) -l "$PLUGIN_DIR"
	echo "$output"
	case "$MODE" in
	host)
		# this machine: fentry load gives EPERM and there are no kprobes
		[ "$status" -eq 3 ]
		[[ "$output" == *"support level: tracepoint-only"* ]]
		[[ "$output" == *"reason: fentry: program load failed: Operation not permitted"* ]]
		[[ "$output" == *"kprobe: kernel has no kprobes"* ]]
		;;
	full|legacy)
		[ "$status" -eq 0 ]
		[[ "$output" == *"support level: full"* ]]
		;;
	esac
	[[ "$output" =~ netns\ cookie:\ +supported ]]
	[[ "$output" =~ tp_btf\ +yes ]]
	[[ "$output" =~ cgroup/sysctl\ +yes ]]
}

@test "-S prints one line per installed tuner: will run or skipped with the reason" {
	run "$BPFTUNE" -S $(mode_flags) -l "$PLUGIN_DIR"
	# the core mechanisms, though no file installs them
	[[ "$output" =~ admin_override\ +will\ run:\ admin-override\ detection ]]
	[[ "$output" =~ netns\ +will\ run:\ netns\ tracking ]]
	[[ "$output" =~ sample\ +will\ run ]]
	[[ "$output" =~ alt\ +will\ run ]]
	if [ "$MODE" = host ]; then
		# no fentry here: the legacy objects, whose function hook is a kprobe
		[[ "$output" =~ fentry_only\ +skipped:\ hook\ sendmsg\ needs\ kprobe\ \(kernel\ has\ no\ kprobes ]]
	else
		[[ "$output" =~ fentry_only\ +will\ run ]]
	fi
	[ "$(grep -cE '^  [a-z_]+ +(will run|skipped)' <<<"$output")" -eq 5 ]
}

@test "-L fails with a clear message where the kernel has no kprobes" {
	[ "$MODE" = host ] || skip "kprobes exist on this kernel"
	run "$BPFTUNE" -s -L -l "$PLUGIN_DIR"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"legacy mode (-L) needs kprobes"* ]]
	[[ "$output" == *"kernel has no kprobes"* ]]
	[[ "$output" != *"Segmentation"* ]]
}

@test "-L on a kernel with kprobes runs the legacy objects" {
	[ "$MODE" != host ] || skip "this kernel has no kprobes"
	start_daemon -L -a sample
	grep -q "core admin_override started (legacy objects" "$LOG"
	grep -q "core netns started (legacy objects" "$LOG"
	grep -q "tuner sample started (legacy objects" "$LOG"
}

@test "bad command lines are refused with a message, not a crash" {
	run "$BPFTUNE" -r 9
	[ "$status" -eq 1 ]
	[[ "$output" == *"-r takes a learning rate from 0 to 4, not '9'"* ]]
	run "$BPFTUNE" -r abc
	[ "$status" -eq 1 ]
	run "$BPFTUNE" -r ""
	[ "$status" -eq 1 ]
	run "$BPFTUNE" --no-such-option
	[ "$status" -eq 1 ]
	[[ "$output" == *"Usage: bpftune"* ]]
	run "$BPFTUNE" stray-argument
	[ "$status" -eq 1 ]
	[[ "$output" == *"unexpected argument 'stray-argument'"* ]]
	run "$BPFTUNE" -a ""
	[ "$status" -eq 1 ]
	run "$BPFTUNE" -s -l /nonexistent/dir
	[ "$status" -eq 1 ]
	[[ "$output" == *"plugin directory /nonexistent/dir refused"* ]]
}

@test "-h and -V" {
	run "$BPFTUNE" -h
	[ "$status" -eq 0 ]
	for opt in -h -V -d -s -D -S -L -a -l -r -R -c; do
		[[ "$output" == *"  $opt, "* ]]
	done
	run "$BPFTUNE" -V
	[ "$status" -eq 0 ]
	[[ "$output" =~ ^bpftune\ [0-9]+\.[0-9]+\.[0-9]+ ]]
}

@test "the daemon exits when no tuner can run" {
	[ "$MODE" = host ] || skip "fentry_only runs on this kernel"
	rm -f "$PLUGIN_DIR"/*.so
	cp "$FIXTURE_PLUGINS/fentry_only_tuner.so" "$PLUGIN_DIR/"
	run "$BPFTUNE" -s -l "$PLUGIN_DIR"
	[ "$status" -eq 1 ]
	[[ "$output" == *"tuner fentry_only skipped: hook sendmsg needs kprobe"* ]]
	[[ "$output" == *"no tuner can run on this system"* ]]
}

# The kernel-matrix guard: in every mode, every tuner built in this tree
# must start, from the objects of that mode, with each hook on a program
# type of that mode.  A legacy program with a wrong kprobe target fails to
# attach, which skips its tuner, which fails this test.
@test "every in-tree tuner starts, each hook on a program of this mode" {
	local so t names=() kind=full
	CG="$(make_cgroup)" || skip "no cgroup2 hierarchy"
	rm -f "$PLUGIN_DIR"/*.so
	for so in "$BUILD_PLUGINS"/*_tuner.so; do
		t="$(basename "$so" _tuner.so)"
		names+=("$t")
		cp "$so" "$PLUGIN_DIR/"
	done
	[ "${#names[@]}" -ge 4 ]
	start_daemon -d -c "$CG" --no-telemetry
	kind="$(objects_kind)"
	# the core mechanisms too
	grep -q "core admin_override started ($kind objects" "$LOG"
	grep -q "core netns started ($kind objects" "$LOG"
	for t in "${names[@]}"; do
		wait_for_log "tuner $t (started \($kind objects|skipped)" 20 || {
			cat "$LOG"
			false
		}
		if ! grep -q "tuner $t started ($kind objects" "$LOG"; then
			grep "tuner $t" "$LOG"
			false
		fi
	done
	case "$MODE" in
	full)	! grep -E "hook .*: using (kprobe|raw_tp) program" "$LOG" ;;
	legacy)	! grep -E "hook .*: using (fentry|tp_btf) program" "$LOG"
		# on a kprobe kernel, the legacy objects' function hooks are kprobes
		grep -qE "hook .*: using kprobe program" "$LOG" ;;
	host)	# tracepoints only: raw_tp (legacy objects) where fentry fails
		! grep -E "hook .*: using (fentry|kprobe) program" "$LOG"
		[ "$kind" = full ] || ! grep -E "hook .*: using tp_btf program" "$LOG" ;;
	esac
	! grep -E "cannot attach|BPF load failed" "$LOG"
}
