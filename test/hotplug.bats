#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# Plugin hot plug: plugins added to or removed from the plugin directory
# while the daemon runs, with the trust checks and the -a allow-list.

load helpers
load operate_helpers

setup() {
	operate_setup
}

teardown() {
	operate_teardown
}

loaded() {
	bq jtuners | python3 -c 'import json, sys; print(" ".join(sorted(t["name"] for t in json.load(sys.stdin)["tuners"])))'
}

@test "a plugin copied in is loaded and tunes; removed, it is unloaded and -R still restores its changes" {
	local ns progs p
	ns="$(make_netns)"
	ip netns exec "$ns" sysctl -qw net.core.somaxconn=128
	make_plugin_dir alt
	start_daemon --socket "$SOCK" -R --journal "$JOURNAL"
	[ "$(loaded)" = alt ]
	cp "$SAMPLE_SO" "$PLUGIN_DIR/"
	wait_for_log "hot plug: tuner sample loaded from $PLUGIN_DIR/sample_tuner.so"
	[ "$(loaded)" = "alt sample" ]
	listen_backlog "$ns" 2048
	wait_for_log "somaxconn 128 -> 2048 in netns $ns"
	progs="$(prog_ids_of "$DAEMON_PID")"
	rm "$PLUGIN_DIR/sample_tuner.so"
	wait_for_log "hot plug: sample_tuner.so was removed: tuner sample unloaded"
	[ "$(loaded)" = alt ]
	# its BPF programs are gone with it: only alt's remain
	[ "$(prog_ids_of "$DAEMON_PID" | wc -l)" -lt "$(wc -l <<<"$progs")" ]
	stop_daemon
	[ "$(somaxconn_in "$ns")" -eq 128 ]
	grep -q "rollback: restored net.core.somaxconn to 128 in netns $ns" "$LOG"
}

@test "an untrusted plugin is refused, then loaded once it is made trusted" {
	make_plugin_dir alt
	start_daemon --socket "$SOCK" -d
	# written under a name that is not a plugin's, then renamed into place
	cp "$SAMPLE_SO" "$PLUGIN_DIR/incoming.tmp"
	chmod 0666 "$PLUGIN_DIR/incoming.tmp"
	mv "$PLUGIN_DIR/incoming.tmp" "$PLUGIN_DIR/sample_tuner.so"
	wait_for_log "plugin $PLUGIN_DIR/sample_tuner.so refused: file sample_tuner.so is writable by others"
	[ "$(loaded)" = alt ]
	chown 65534 "$PLUGIN_DIR/sample_tuner.so"
	chmod 0755 "$PLUGIN_DIR/sample_tuner.so"
	wait_for_log "plugin $PLUGIN_DIR/sample_tuner.so refused: file sample_tuner.so is owned by uid 65534, not root"
	[ "$(loaded)" = alt ]
	chown 0 "$PLUGIN_DIR/sample_tuner.so"
	wait_for_log "hot plug: tuner sample loaded from $PLUGIN_DIR/sample_tuner.so"
	[ "$(loaded)" = "alt sample" ]
	# a symlink is never followed (renamed into place, as a package
	# manager would, so that the daemon looks at it)
	ln -s "$SAMPLE_SO" "$PLUGIN_DIR/.other.tmp"
	mv "$PLUGIN_DIR/.other.tmp" "$PLUGIN_DIR/other_tuner.so"
	wait_for_log "plugin $PLUGIN_DIR/other_tuner.so refused: is a symlink"
	! grep -q "other_tuner.so loaded" "$LOG"
}

@test "a plugin not in the -a allow-list is not loaded" {
	make_plugin_dir alt
	start_daemon --socket "$SOCK" -a alt -a strategy
	cp "$SAMPLE_SO" "$PLUGIN_DIR/"
	wait_for_log "plugin sample_tuner.so not loaded: not in the -a allow-list"
	cp "$FIXTURE_PLUGINS/strategy_tuner.so" "$PLUGIN_DIR/"
	wait_for_log "hot plug: tuner strategy loaded from $PLUGIN_DIR/strategy_tuner.so"
	[ "$(loaded)" = "alt strategy" ]
}

@test "temporary files are ignored; a package manager's rename loads, a second one reloads" {
	make_plugin_dir alt
	start_daemon --socket "$SOCK" -d
	cp "$SAMPLE_SO" "$PLUGIN_DIR/sample_tuner.so.dpkg-new"
	cp "$SAMPLE_SO" "$PLUGIN_DIR/.sample_tuner.so.swp"
	cp "$SAMPLE_SO" "$PLUGIN_DIR/sample_tuner.so~"
	cp "$SAMPLE_SO" "$PLUGIN_DIR/.#sample_tuner.so"
	echo x > "$PLUGIN_DIR/4913"
	wait_for_log "hot plug: ignoring 4913 \(not a plugin name\)"
	grep -q "hot plug: ignoring sample_tuner.so.dpkg-new (not a plugin name)" "$LOG"
	grep -q "hot plug: ignoring .sample_tuner.so.swp (not a plugin name)" "$LOG"
	grep -q "hot plug: ignoring sample_tuner.so~ (not a plugin name)" "$LOG"
	! grep -qE "refused|hot plug: tuner sample loaded" "$LOG"
	[ "$(loaded)" = alt ]
	mv "$PLUGIN_DIR/sample_tuner.so.dpkg-new" "$PLUGIN_DIR/sample_tuner.so"
	wait_for_log "hot plug: tuner sample loaded from $PLUGIN_DIR/sample_tuner.so"
	[ "$(loaded)" = "alt sample" ]
	# an upgrade renames the new file over the old one
	cp "$SAMPLE_SO" "$PLUGIN_DIR/sample_tuner.so.dpkg-new"
	mv "$PLUGIN_DIR/sample_tuner.so.dpkg-new" "$PLUGIN_DIR/sample_tuner.so"
	wait_for_log "hot plug: sample_tuner.so was replaced: tuner sample unloaded"
	for i in $(seq 1 50); do
		[ "$(count_log "hot plug: tuner sample loaded")" -eq 2 ] && break
		sleep 0.1
	done
	[ "$(count_log "hot plug: tuner sample loaded")" -eq 2 ]
	[ "$(loaded)" = "alt sample" ]
}

@test "a plugin truncated while written in place is refused, and the daemon goes on" {
	make_plugin_dir alt
	start_daemon --socket "$SOCK"
	head -c 20000 "$SAMPLE_SO" > "$PLUGIN_DIR/sample_tuner.so"
	wait_for_log "plugin $PLUGIN_DIR/sample_tuner.so refused: (truncated or corrupt ELF file|not an ELF shared object)"
	kill -0 "$DAEMON_PID"
	[ "$(loaded)" = alt ]
	# the complete file, written over it, loads
	cat "$SAMPLE_SO" > "$PLUGIN_DIR/sample_tuner.so"
	wait_for_log "hot plug: tuner sample loaded from $PLUGIN_DIR/sample_tuner.so"
}
