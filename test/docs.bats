#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# The documentation cannot drift from the program: every option of
# bpftune --help is in bpftune(8) and in the README, every tuner has its
# page, every page renders.

load helpers

# the options of --help: "-a", "--allow", "--telemetry-dir", ...
help_options() {
	"$BPFTUNE" --help | grep -oE '^ +(-[A-Za-z], )?--[a-z][a-z-]*' |
		tr -d ' ' | tr ',' '\n' | sed '/^$/d' | sort -u
}

# missing_options MAN README: the options of --help that either lacks
missing_options() {
	local opt
	while read -r opt; do
		# man/bpftune.8.scd writes options as *--name*
		grep -qF -- "*$opt*" "$1" || echo "$(basename "$1"): $opt"
		grep -qE -- "(^|[ ,\`])$opt([ ,\`=]|\$)" "$2" || echo "$(basename "$2"): $opt"
	done < <(help_options)
}

@test "docs: every option of --help is in bpftune(8) and in the README" {
	[ "$(help_options | wc -l)" -gt 30 ]
	run missing_options "$REPO/man/bpftune.8.scd" "$REPO/README.md"
	echo "$output"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

@test "docs: the check catches an option missing from either" {
	sed 's/\*--sample-netns\*//' "$REPO/man/bpftune.8.scd" > "$BATS_TEST_TMPDIR/bpftune.8.scd"
	grep -v -- '--telemetry-keep N' "$REPO/README.md" > "$BATS_TEST_TMPDIR/README.md"
	run missing_options "$BATS_TEST_TMPDIR/bpftune.8.scd" "$BATS_TEST_TMPDIR/README.md"
	[ "$output" = "bpftune.8.scd: --sample-netns
README.md: --telemetry-keep" ]
}

@test "docs: every in-tree tuner has its man page, and bpftune(8) points to it" {
	local t page
	for t in "$REPO"/src/tuners/*/*_tuner.c; do
		t="$(basename "$t" _tuner.c)"
		page="bpftune-${t//_/-}"
		[ -f "$REPO/man/$page.8.scd" ] || { echo "no man/$page.8.scd"; false; }
		grep -qF "*$page*(8)" "$REPO/man/bpftune.8.scd" || { echo "bpftune.8 lacks $page"; false; }
	done
}

@test "docs: every man page renders without warnings and is installed" {
	local src page
	command -v scdoc >/dev/null || skip "scdoc not installed"
	for src in "$REPO"/man/*.scd; do
		page="$(basename "$src" .scd)"
		[ -s "$REPO/build/man/$page" ]
		run bash -c "MANWIDTH=80 man --warnings -l '$REPO/build/man/$page' 2>&1 >/dev/null"
		[ -z "$output" ] || { echo "$page: $output"; false; }
		[ -f "$SUITE_PREFIX/share/man/man${page##*.}/$page" ]
	done
}

@test "docs: every query of -q help is in bpftune(8) and the README" {
	local q
	for q in $(sed -n 's/^\t\[BPFTUNE_Q_[A-Z]*\] = { "\([a-z]*\)".*/\1/p' "$REPO/src/lib/ops/control_proto.c"); do
		grep -qF "*$q*" "$REPO/man/bpftune.8.scd" || { echo "bpftune.8 lacks query $q"; false; }
		grep -qF "| \`$q\` |" "$REPO/README.md" || { echo "README lacks query $q"; false; }
	done
}

# the commands of bpftune-telemetry and, for each, the options of its --help
telemetry_words() {
	local tool="$REPO/tools/bpftune-telemetry" cmd
	for cmd in export "dataset build" plot graphs runs perf-list collect all \
		   "fleet hosts" "fleet job" "fleet dump" "fleet summary"; do
		# shellcheck disable=SC2086 # "dataset build" is two words
		"$tool" $cmd --help | grep -oE '^  (-[a-z], )?--[a-z][a-z-]*' |
			grep -oE -- '--[a-z][a-z-]*' | grep -vx -- --help |
			sed "s|^|$cmd |"
		echo "$cmd"
	done
}

# missing_telemetry MAN: the commands and options bpftune-telemetry(1) lacks
missing_telemetry() {
	local cmd opt
	while read -r line; do
		opt="${line##* }"
		cmd="${line% --*}"
		if [[ "$opt" == --* ]]; then
			grep -qF -- "*$opt*" "$1" || echo "$cmd: $opt"
		elif ! grep -qF -- "*$line*" "$1"; then
			# "fleet job" is written *fleet* ... *job*
			for word in $line; do
				grep -qF -- "*$word*" "$1" || { echo "$line"; break; }
			done
		fi
	done < <(telemetry_words)
}

@test "docs: every command and option of bpftune-telemetry is in bpftune-telemetry(1)" {
	[ "$(telemetry_words | wc -l)" -gt 40 ]
	run missing_telemetry "$REPO/man/bpftune-telemetry.1.scd"
	echo "$output"
	[ -z "$output" ]
	# and the check sees a missing one
	sed 's/\*--by\*//g; s/\*graphs\*//g' "$REPO/man/bpftune-telemetry.1.scd" > "$BATS_TEST_TMPDIR/t.1.scd"
	run missing_telemetry "$BATS_TEST_TMPDIR/t.1.scd"
	[ "$output" = "graphs: --by
graphs" ]
}
