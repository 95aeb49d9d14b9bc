#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# Plugins run as root: only trusted files in trusted directories load.

load helpers

# alt, a fixture that runs in every mode, is the trusted plugin here
setup() {
	make_plugin_dir alt
	UNTRUSTED_USER=nobody
}

teardown() {
	common_teardown
	rm -rf "${EXTRA_DIR:-/nonexistent}" "${LINK:-/nonexistent}"
}

# Run -S and the daemon against $1 and expect the plugin refusal $2.
expect_refused() {
	run "$BPFTUNE" -S -l "$1"
	echo "$output"
	[[ "$output" == *"$2"* ]]
}

@test "a group-writable plugin directory is refused" {
	chmod g+w "$PLUGIN_DIR"
	run "$BPFTUNE" -s -l "$PLUGIN_DIR"
	[ "$status" -eq 1 ]
	[[ "$output" == *"plugin directory $PLUGIN_DIR refused: directory $PLUGIN_DIR is writable by its group"* ]]
	[ "$(grep -c refused <<<"$output")" -eq 1 ]
}

@test "an other-writable parent directory is refused" {
	EXTRA_DIR="$(mktemp -d /run/bpftune-parent.XXXXXX)"
	chmod 0757 "$EXTRA_DIR"
	mkdir -m 0755 "$EXTRA_DIR/plugins"
	cp "$FIXTURE_PLUGINS/alt_tuner.so" "$EXTRA_DIR/plugins/"
	run "$BPFTUNE" -s -l "$EXTRA_DIR/plugins"
	[ "$status" -eq 1 ]
	[[ "$output" == *"directory $EXTRA_DIR is writable by others"* ]]
}

@test "a symlink anywhere in the plugin directory path is refused" {
	LINK="/run/bpftune-link.$$"
	ln -s "$PLUGIN_DIR" "$LINK"
	run "$BPFTUNE" -s -l "$LINK"
	[ "$status" -eq 1 ]
	[[ "$output" == *"refused: $LINK is a symlink"* ]]
	run "$BPFTUNE" -s -l "$LINK/."
	[ "$status" -eq 1 ]
	[[ "$output" == *"is a symlink"* ]]
}

@test "a symlinked plugin file is refused, the others load" {
	cp "$FIXTURE_PLUGINS/alt_tuner.so" "/run/bpftune-real-$$.so"
	LINK="/run/bpftune-real-$$.so"
	mv "$PLUGIN_DIR/alt_tuner.so" "$PLUGIN_DIR/keep_tuner.so.off"
	ln -s "$LINK" "$PLUGIN_DIR/alt_tuner.so"
	cp "$SAMPLE_SO" "$PLUGIN_DIR/"
	start_daemon
	grep -q "plugin $PLUGIN_DIR/alt_tuner.so refused: is a symlink" "$LOG"
	grep -q "tuner sample started" "$LOG"
	! grep -q "tuner alt started" "$LOG"
}

@test "a plugin file not owned by root is refused" {
	cp "$SAMPLE_SO" "$PLUGIN_DIR/"
	chown "$UNTRUSTED_USER" "$PLUGIN_DIR/sample_tuner.so"
	start_daemon
	grep -q "plugin $PLUGIN_DIR/sample_tuner.so refused: file sample_tuner.so is owned by uid $(id -u $UNTRUSTED_USER), not root" "$LOG"
	! grep -q "tuner sample started" "$LOG"
	grep -q "tuner alt started" "$LOG"
}

@test "a group- or other-writable plugin file is refused" {
	cp "$SAMPLE_SO" "$PLUGIN_DIR/"
	chmod o+w "$PLUGIN_DIR/sample_tuner.so"
	expect_refused "$PLUGIN_DIR" "sample_tuner.so refused: file sample_tuner.so is writable by others"
	chmod o-w,g+w "$PLUGIN_DIR/sample_tuner.so"
	expect_refused "$PLUGIN_DIR" "sample_tuner.so refused: file sample_tuner.so is writable by its group"
}

@test "a plugin directory owned by another user is refused" {
	chown "$UNTRUSTED_USER" "$PLUGIN_DIR"
	run "$BPFTUNE" -s -l "$PLUGIN_DIR"
	[ "$status" -eq 1 ]
	[[ "$output" == *"directory $PLUGIN_DIR is owned by uid $(id -u $UNTRUSTED_USER), not root"* ]]
}

@test "names must end in _tuner.so; other files are ignored" {
	cp "$SAMPLE_SO" "$PLUGIN_DIR/sample.so"
	cp "$SAMPLE_SO" "$PLUGIN_DIR/sample_tuner.so.dpkg-new"
	echo "notes" > "$PLUGIN_DIR/README"
	start_daemon
	grep -q "plugin $PLUGIN_DIR/sample.so refused: name does not match <name>_tuner.so" "$LOG"
	! grep -q "dpkg-new" "$LOG"
	! grep -q "README" "$LOG"
	! grep -q "tuner sample started" "$LOG"
}

@test "files that are not bpftune tuners are refused, not crashed on" {
	echo "not an ELF file" > "$PLUGIN_DIR/text_tuner.so"
	cp "$(ldconfig -p | awk '/libz.so.1 / {print $NF; exit}')" "$PLUGIN_DIR/libz_tuner.so"
	head -c 3000 "$FIXTURE_PLUGINS/alt_tuner.so" > "$PLUGIN_DIR/truncated_tuner.so"
	chmod 0644 "$PLUGIN_DIR"/*.so
	start_daemon
	grep -q "text_tuner.so refused: not an ELF shared object" "$LOG"
	grep -q "libz_tuner.so refused: no bpftune_tuner_ops symbol: not a bpftune tuner" "$LOG"
	grep -q "truncated_tuner.so refused: truncated or corrupt ELF file" "$LOG"
	grep -q "tuner alt started" "$LOG"
}
