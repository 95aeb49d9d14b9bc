#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-only
# bats file_tags=nosan,offline
# (nosan: no program of the build under test runs here; make test-asan
# leaves these out, as running them again adds nothing)
# make fuzz: the runner fails a target that crashes, keeps the input that
# crashed it and says how to reproduce it; a clean target passes with its
# figures.  (No daemon, no kernel state: needs no host-kernel lock.)

load helpers

setup() {
	command -v clang >/dev/null || skip "clang is not installed"
	# make test-asan's report collection is for the build under test, not
	# for these deliberately crashing targets
	unset ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS
	FZ="$BATS_TEST_TMPDIR/fz"
	mkdir -p "$FZ/build" "$FZ/seeds/boom" "$FZ/seeds/calm"
	cat > "$FZ/boom.c" <<'C'
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	char buf[4];

	/* a heap overflow on one input: ASan must report it */
	if (n >= 3 && !memcmp(d, "BUG", 3)) {
		char *p = malloc(2);
		memcpy(buf, d, 3);
		p[buf[0] - 'B' + 2] = 1;
		free(p);
	}
	return 0;
}
C
	cat > "$FZ/calm.c" <<'C'
#include <stdint.h>
#include <stddef.h>
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	return n > 1 && d[0] == 'h' && d[1] == 'e';
}
C
	local t
	for t in boom calm; do
		clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
			-o "$FZ/build/fuzz_$t" "$FZ/$t.c"
	done
	printf 'BUG!' > "$FZ/seeds/boom/seed"
	printf 'hello' > "$FZ/seeds/calm/seed"
}

@test "fuzz runner: a crash fails the target and leaves its reproducer; a clean target passes" {
	run "$REPO/test/unit/fuzz/run.sh" -b "$FZ/build" -s 3 -c "$FZ/seeds" calm boom
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" =~ calm\ +ok\ +[0-9]+\ execs\ +[0-9]+/s\ +cov:\ [0-9]+ ]]
	[[ "$output" =~ boom\ +FAIL\ +exit\ [0-9]+\ .*reproducer:\ $FZ/build/crashes/boom/crash- ]]
	[[ "$output" == *"heap-buffer-overflow"* ]]
	local crash
	crash="$(ls "$FZ"/build/crashes/boom/crash-*)"
	[ "$(cat "$crash")" = "BUG!" ]
	[[ "$output" == *"reproduce with: $FZ/build/fuzz_boom $crash"* ]]
	# alone, the clean one passes
	run "$REPO/test/unit/fuzz/run.sh" -b "$FZ/build" -s 2 -c "$FZ/seeds" calm
	[ "$status" -eq 0 ]
}

@test "fuzz runner: a target without a seed corpus or not built fails" {
	run "$REPO/test/unit/fuzz/run.sh" -b "$FZ/build" -s 1 -c "$FZ/seeds" nosuch
	[ "$status" -ne 0 ]
	[[ "$output" == *"nosuch"*"FAIL  not built"* ]]
	rm "$FZ/seeds/calm/seed"
	run "$REPO/test/unit/fuzz/run.sh" -b "$FZ/build" -s 1 -c "$FZ/seeds" calm
	[ "$status" -ne 0 ]
	[[ "$output" == *"FAIL  no seed corpus"* ]]
}

@test "every fuzz target has a seed corpus and a source list" {
	local f name
	for f in "$REPO"/test/unit/fuzz/fuzz_*.c; do
		name="$(basename "$f" .c)"
		name="${name#fuzz_}"
		[ -n "$(ls -A "$REPO/test/unit/fuzz/corpus/$name" 2>/dev/null)" ] ||
			{ echo "no seeds for $name"; false; }
		grep -q "^FUZZ_SRCS_$name[[:space:]]*:=" "$REPO/test/unit/fuzz/fuzz.mk" ||
			{ echo "no FUZZ_SRCS_$name"; false; }
	done
}
