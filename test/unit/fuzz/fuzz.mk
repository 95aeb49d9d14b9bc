# SPDX-License-Identifier: GPL-2.0-only
#
# Fuzz targets (libFuzzer + ASan + UBSan, clang); included by the top-level
# Makefile, so paths are relative to the top of the tree.
#
#   make fuzz                     build every test/unit/fuzz/fuzz_*.c and run
#                                 each for FUZZ_SECS (default 60)
#   make fuzz FUZZ_SECS=30        the CI variant is make fuzz-ci
#   make fuzz FUZZ_TARGETS=journal   some targets only
#   make fuzz-build               build them only
#
# Every test/unit/fuzz/fuzz_<name>.c is a target.  It is linked with the
# sources in FUZZ_SRCS_<name> and the libraries in FUZZ_LIBS_<name>:
# adding a target is a new fuzz_<name>.c, its two lines below and a seed
# corpus in test/unit/fuzz/corpus/<name>/ (see test/unit/fuzz/README.md).

FUZZ_CC		?= $(CLANG)
FUZZ_SECS	?= 60
FUZZ_CFLAGS	:= -g -O1 -fsanitize=fuzzer,address,undefined \
		   -fno-sanitize-recover=all -fno-omit-frame-pointer \
		   -D_GNU_SOURCE -Iinclude -Isrc/lib -I$(B) -Wall -Wextra -Werror
FUZZ_ALL	:= $(patsubst test/unit/fuzz/fuzz_%.c,%,$(wildcard test/unit/fuzz/fuzz_*.c))
FUZZ_TARGETS	?= $(FUZZ_ALL)

# ---- per-target sources and libraries (keep alphabetical) ----------------
# the in-place kernel BTF reader and the CO-RE records of BPF objects
FUZZ_SRCS_btf		:= src/lib/btf/kbtf.c src/lib/btf/core_relo.c
FUZZ_LIBS_btf		:= -lelf
# control socket requests and JSON replies
FUZZ_SRCS_control	:= src/lib/ops/control_proto.c
# rollback journal records read back after a crash
FUZZ_SRCS_journal	:= src/lib/ops/journal_record.c src/lib/core/appendf.c
FUZZ_LIBS_journal	:= -lz
# the config file (/etc/bpftune/bpftune.conf and its drop-ins)
FUZZ_SRCS_config	:= src/lib/ops/config_parse.c src/lib/ops/config_eval.c
FUZZ_LIBS_config	:= -linih
# /proc parsers of the tuner kit (the one family, in telemetry_proc.c)
FUZZ_SRCS_proc		:= src/lib/core/sysctl_value.c src/lib/telemetry/telemetry_proc.c
FUZZ_LIBS_proc		:= -lm
# bpftune-ship's run-file reader: SQLite files, maybe damaged
FUZZ_SRCS_runfile	:= tools/ship/runfile.c tools/ship/encode.c tools/ship/url.c
FUZZ_LIBS_runfile	:= -lsqlite3 -lm
# bpftune-ship: its Redis URL, watermark files and stream values
FUZZ_SRCS_ship		:= tools/ship/url.c tools/ship/watermark.c tools/ship/encode.c \
			   src/lib/core/file_replace.c
FUZZ_LIBS_ship		:= -lm
# sysctl values and names
FUZZ_SRCS_sysctl	:= src/lib/core/sysctl_value.c
# tcp_conn's learned model files (bpftune-telemetry learn)
FUZZ_SRCS_tcp_conn_model := src/tuners/tcp_conn/tcp_conn_model.c
# plugins' telemetry declarations (ops->telemetry); the in-tree ones too
FUZZ_SRCS_telemetry_decl := $(SCHEMA_SRCS) $(TABLES_SRCS)
$(B)/fuzz/fuzz_telemetry_decl: $(DECLARERS)
# the /proc files the telemetry sampler reads, by a declaration's key
FUZZ_SRCS_telemetry_proc := src/lib/telemetry/telemetry_proc.c
FUZZ_LIBS_telemetry_proc := -lm

# --------------------------------------------------------------------------
FUZZ_BINS	:= $(patsubst %,$(B)/fuzz/fuzz_%,$(FUZZ_ALL))

.PHONY: fuzz fuzz-ci fuzz-build
.SECONDEXPANSION:
$(B)/fuzz/fuzz_%: test/unit/fuzz/fuzz_%.c $$(FUZZ_SRCS_$$*) $(LIB_HDRS) \
		  $(wildcard include/bpftune/*.h) test/unit/fuzz/fuzz.mk
	@mkdir -p $(@D)
	@[ -n "$(FUZZ_SRCS_$*)" ] || { echo "fuzz: $<: no FUZZ_SRCS_$* in test/unit/fuzz/fuzz.mk" >&2; exit 1; }
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $< $(FUZZ_SRCS_$*) $(FUZZ_LIBS_$*)

fuzz-build: $(patsubst %,$(B)/fuzz/fuzz_%,$(FUZZ_TARGETS))

fuzz: fuzz-build
	test/unit/fuzz/run.sh -b $(B)/fuzz -s $(FUZZ_SECS) $(FUZZ_TARGETS)

# CI: 20 s each (a dozen targets: 4 min of one CPU in .ci/run)
fuzz-ci: FUZZ_SECS := 20
fuzz-ci: fuzz
