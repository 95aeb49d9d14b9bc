# SPDX-License-Identifier: GPL-2.0-only
#
# bpftune: make, make install (DESTDIR, PREFIX), make test, make check,
# make clean.  Everything is built under build/.

VERSION		:= 0.1.0
PREFIX		?= /usr/local
SBINDIR		?= $(PREFIX)/sbin
BINDIR		?= $(PREFIX)/bin
LIBDIR		?= $(PREFIX)/lib
PLUGINDIR	?= $(LIBDIR)/bpftune
INCLUDEDIR	?= $(PREFIX)/include
PKGCONFIGDIR	?= $(LIBDIR)/pkgconfig
UNITDIR		?= $(PREFIX)/lib/systemd/system
MANDIR		?= $(PREFIX)/share/man

CC		?= gcc
CLANG		?= clang
BPFTOOL		?= bpftool
ARCH		:= $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/' -e 's/ppc64le/powerpc/' -e 's/s390x/s390/')

B		:= build
CFLAGS		?= -O2 -g
WARN		:= -Wall -Wextra -Werror
CPPFLAGS	+= -D_GNU_SOURCE -Iinclude -Isrc/lib -I$(B)/skel \
		   -DBPFTUNE_VERSION=\"$(VERSION)\" \
		   -DBPFTUNE_PLUGIN_DIR=\"$(PLUGINDIR)\"
ALL_CFLAGS	= $(CFLAGS) $(WARN) -fPIC $(CPPFLAGS)
BPF_CFLAGS	:= -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -Wall -Werror \
		   -Iinclude -I$(B)
LIBS		:= -lbpf -lelf -lcap -ldl
LIBS		+= -lz	# rollback journal checksums
LIBS		+= -lsqlite3 -lsystemd -lpthread	# telemetry
LIBS		+= -lm	# correlation.c

# libbpftune: one folder per responsibility (see README, "Layout")
LIB_AREAS	:= core kit ops telemetry
LIB_SRCS	:= $(foreach a,$(LIB_AREAS),$(wildcard src/lib/$(a)/*.c))
LIB_HDRS	:= $(foreach a,$(LIB_AREAS),$(wildcard src/lib/$(a)/*.h))
LIB_OBJS	:= $(patsubst src/lib/%.c,$(B)/obj/lib/%.o,$(LIB_SRCS))
LIB_SO		:= $(B)/lib/libbpftune.so.$(VERSION)
LIB_SONAME	:= libbpftune.so.0
TUNERS		:= $(patsubst src/tuners/%_tuner.c,%,$(wildcard src/tuners/*_tuner.c))
TUNER_SOS	:= $(patsubst %,$(B)/lib/bpftune/%_tuner.so,$(TUNERS))
DAEMON		:= $(B)/bin/bpftune
UNIT_TEST	:= $(B)/test/unit_tests

.PHONY: all install uninstall test test-unit test-bats check clean sample fixtures FORCE
.SECONDARY:

# plain `make` builds everything (the config.stamp rule below comes first)
.DEFAULT_GOAL	:= all

# Rebuild what embeds install paths when they change.
CONFIG		:= $(PREFIX) $(LIBDIR) $(PLUGINDIR) $(INCLUDEDIR) $(SBINDIR)
$(B)/config.stamp: FORCE
	@mkdir -p $(@D)
	@echo '$(CONFIG)' | cmp -s - $@ || echo '$(CONFIG)' > $@

all: $(DAEMON) $(TUNER_SOS) $(B)/bpftune.pc

# ---- vmlinux.h: from this machine's BTF, else the checked-in copy -------
$(B)/vmlinux.h:
	@mkdir -p $(@D)
	@if [ -r /sys/kernel/btf/vmlinux ]; then \
		$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $@.tmp; \
	else \
		echo "no /sys/kernel/btf/vmlinux: using src/vmlinux/vmlinux.h.xz"; \
		xz -dc src/vmlinux/vmlinux.h.xz > $@.tmp; \
	fi && mv $@.tmp $@

# ---- BPF objects: full and legacy variant of each, and their skeletons --
BPF_HDRS := include/bpftune/bpftune.bpf.h include/bpftune/bpftune.h \
	    include/bpftune/sampling.h $(B)/vmlinux.h

$(B)/bpf/%.bpf.o: src/%.bpf.c $(BPF_HDRS)
	@mkdir -p $(@D)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(B)/bpf/%.legacy.bpf.o: src/%.bpf.c $(BPF_HDRS)
	@mkdir -p $(@D)
	$(CLANG) $(BPF_CFLAGS) -DBPFTUNE_LEGACY -c $< -o $@

$(B)/bpf/fixtures/%.bpf.o: test/fixtures/%.bpf.c $(BPF_HDRS)
	@mkdir -p $(@D)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(B)/bpf/fixtures/%.legacy.bpf.o: test/fixtures/%.bpf.c $(BPF_HDRS)
	@mkdir -p $(@D)
	$(CLANG) $(BPF_CFLAGS) -DBPFTUNE_LEGACY -c $< -o $@

$(B)/skel/%.skel.h: $(B)/bpf/%.bpf.o
	@mkdir -p $(@D)
	$(BPFTOOL) gen skeleton $< name $(subst -,_,$(notdir $*))_bpf > $@.tmp && mv $@.tmp $@

$(B)/skel/%.legacy.skel.h: $(B)/bpf/%.legacy.bpf.o
	@mkdir -p $(@D)
	$(BPFTOOL) gen skeleton $< name $(notdir $*)_bpf_legacy > $@.tmp && mv $@.tmp $@

# ---- libbpftune ----------------------------------------------------------
$(B)/obj/lib/core/support.o: $(B)/skel/support_probe.skel.h

$(B)/obj/lib/%.o: src/lib/%.c $(LIB_HDRS) $(wildcard include/bpftune/*.h)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

$(LIB_SO): $(LIB_OBJS)
	@mkdir -p $(@D)
	$(CC) -shared -Wl,-soname,$(LIB_SONAME) -o $@ $^ $(LIBS)
	ln -sf $(notdir $@) $(B)/lib/$(LIB_SONAME)
	ln -sf $(LIB_SONAME) $(B)/lib/libbpftune.so

# ---- daemon ---------------------------------------------------------------
$(DAEMON): src/bpftune.c $(LIB_SO) $(B)/config.stamp $(LIB_HDRS) $(wildcard include/bpftune/*.h)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ src/bpftune.c -L$(B)/lib -lbpftune $(LIBS) -lsystemd \
		-Wl,-rpath,'$$ORIGIN/../lib'

# ---- tuners ---------------------------------------------------------------
$(B)/obj/tuners/%_tuner.o: src/tuners/%_tuner.c $(B)/skel/tuners/%_tuner.skel.h \
			   $(B)/skel/tuners/%_tuner.legacy.skel.h \
			   $(LIB_HDRS) $(wildcard src/tuners/*.h include/bpftune/*.h)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -I$(B)/skel/tuners -c $< -o $@

$(B)/lib/bpftune/%_tuner.so: $(B)/obj/tuners/%_tuner.o $(LIB_SO)
	@mkdir -p $(@D)
	$(CC) -shared -o $@ $(filter %.o,$^) -L$(B)/lib -lbpftune -lbpf $(TUNER_LIBS)

# A tuner's telemetry declarations (<name>_tables.c) are linked into its .so
TUNER_TABLES	:= $(patsubst src/tuners/%_tables.c,%,$(wildcard src/tuners/*_tables.c))
$(B)/obj/tuners/%_tables.o: src/tuners/%_tables.c $(wildcard src/tuners/*.h include/bpftune/*.h)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -c $< -o $@
$(foreach t,$(TUNER_TABLES),$(eval $(B)/lib/bpftune/$(t)_tuner.so: $(B)/obj/tuners/$(t)_tables.o))

# Pure arithmetic shared by tuners (unit-tested): linked into those that
# use it.  A tuner that needs a library names it in TUNER_LIBS for its
# own .so only.
TUNER_POLICY	:= $(B)/obj/tuners/table_policy.o
$(TUNER_POLICY): src/tuners/table_policy.c src/tuners/table_policy.h
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -c $< -o $@
$(B)/lib/bpftune/neigh_table_tuner.so: $(TUNER_POLICY)
$(B)/lib/bpftune/neigh_table_tuner.so: TUNER_LIBS := -lmnl	# RTM_SETNEIGHTBL, RTM_GETADDR
$(B)/lib/bpftune/route_table_tuner.so: $(TUNER_POLICY)

# ---- collectors: plugins that only record tables (src/collectors/) -------
# NAME_collector.{c,bpf.c,h} + NAME_tables.c -> NAME_collector.so, loaded
# only when named by --collectors
COLLECTORS	:= $(patsubst src/collectors/%_collector.c,%,$(wildcard src/collectors/*_collector.c))
COLLECTOR_SOS	:= $(patsubst %,$(B)/lib/bpftune/%_collector.so,$(COLLECTORS))
all: $(COLLECTOR_SOS)

$(B)/obj/collectors/%_collector.o: src/collectors/%_collector.c \
			   $(B)/skel/collectors/%_collector.skel.h \
			   $(B)/skel/collectors/%_collector.legacy.skel.h \
			   $(wildcard src/collectors/*.h include/bpftune/*.h)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -I$(B)/skel/collectors -c $< -o $@
$(B)/obj/collectors/%_tables.o: src/collectors/%_tables.c \
			   $(wildcard src/collectors/*.h include/bpftune/*.h)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -c $< -o $@
$(B)/lib/bpftune/%_collector.so: $(B)/obj/collectors/%_collector.o \
				 $(B)/obj/collectors/%_tables.o $(LIB_SO)
	@mkdir -p $(@D)
	$(CC) -shared -o $@ $(filter %.o,$^) -L$(B)/lib -lbpftune -lbpf

# ---- test fixtures: plugins that exercise the loader ---------------------
FIXTURES	:= $(patsubst test/fixtures/%_tuner.c,%,$(wildcard test/fixtures/*_tuner.c))
FIXTURE_SOS	:= $(patsubst %,$(B)/test/plugins/%_tuner.so,$(FIXTURES))

$(B)/test/plugins/%_tuner.so: test/fixtures/%_tuner.c $(B)/skel/fixtures/%_tuner.skel.h \
			      $(B)/skel/fixtures/%_tuner.legacy.skel.h $(LIB_SO)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -Itest/fixtures -I$(B)/skel/fixtures -shared -o $@ $< \
		-L$(B)/lib -lbpftune -lbpf

fixtures: $(FIXTURE_SOS)

# ---- pkg-config -----------------------------------------------------------
$(B)/bpftune.pc: bpftune.pc.in Makefile $(B)/config.stamp
	@mkdir -p $(@D)
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
	    -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@PLUGINDIR@|$(PLUGINDIR)|' \
	    -e 's|@VERSION@|$(VERSION)|' $< > $@

# ---- install --------------------------------------------------------------
install: all
	install -d $(DESTDIR)$(SBINDIR) $(DESTDIR)$(LIBDIR) \
		$(DESTDIR)$(PLUGINDIR) $(DESTDIR)$(INCLUDEDIR)/bpftune \
		$(DESTDIR)$(PKGCONFIGDIR) $(DESTDIR)$(UNITDIR)
	install -m 0755 $(DAEMON) $(DESTDIR)$(SBINDIR)/bpftune
	install -m 0755 $(LIB_SO) $(DESTDIR)$(LIBDIR)/
	ln -sf $(notdir $(LIB_SO)) $(DESTDIR)$(LIBDIR)/$(LIB_SONAME)
	ln -sf $(LIB_SONAME) $(DESTDIR)$(LIBDIR)/libbpftune.so
	install -m 0755 $(TUNER_SOS) $(COLLECTOR_SOS) $(DESTDIR)$(PLUGINDIR)/
	install -m 0644 include/bpftune/*.h $(DESTDIR)$(INCLUDEDIR)/bpftune/
	install -m 0644 $(B)/vmlinux.h $(DESTDIR)$(INCLUDEDIR)/bpftune/vmlinux.h
	install -m 0644 $(B)/bpftune.pc $(DESTDIR)$(PKGCONFIGDIR)/
	sed -e 's|@SBINDIR@|$(SBINDIR)|' systemd/bpftune.service > \
		$(DESTDIR)$(UNITDIR)/bpftune.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/bpftune.service
	-[ -z "$(DESTDIR)" ] && ldconfig

uninstall:
	rm -f $(DESTDIR)$(SBINDIR)/bpftune $(DESTDIR)$(LIBDIR)/libbpftune.so*
	rm -rf $(DESTDIR)$(PLUGINDIR) $(DESTDIR)$(INCLUDEDIR)/bpftune
	rm -f $(DESTDIR)$(PKGCONFIGDIR)/bpftune.pc $(DESTDIR)$(UNITDIR)/bpftune.service

# ---- telemetry: schema tool (docs, DDL) and bpftune-telemetry -----------
TELEMETRY_SCHEMA := $(B)/bin/telemetry-schema
FLOOD		:= $(B)/test/flood
.PHONY: docs install-telemetry uninstall-telemetry

all: $(TELEMETRY_SCHEMA)

# the declarations: the core's, and every in-tree plugin's <name>_tables.c
SCHEMA_SRCS	:= $(addprefix src/lib/telemetry/,schema_core.c schema_sql.c schema_check.c schema_doc.c)
TABLES_SRCS	:= $(wildcard src/tuners/*_tables.c src/collectors/*_tables.c) \
		   sample_tuner/sample_tuner_tables.c
DECLARERS	:= $(B)/telemetry_declarers.inc
$(DECLARERS): $(TABLES_SRCS)
	@mkdir -p $(@D)
	@for f in $(TABLES_SRCS); do \
		n=$$(basename $$f _tables.c); echo "DECLARER($${n%_tuner})"; \
	done > $@.tmp && mv $@.tmp $@

$(TELEMETRY_SCHEMA): tools/telemetry_schema.c $(SCHEMA_SRCS) $(TABLES_SRCS) $(DECLARERS) \
		     src/lib/telemetry/telemetry_schema.h $(wildcard include/bpftune/*.h src/tuners/*.h)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(WARN) $(CPPFLAGS) -I$(B) -o $@ tools/telemetry_schema.c $(SCHEMA_SRCS) \
		$(TABLES_SRCS)

# docs/telemetry.md comes from the declarations; test/telemetry_tools.bats fails if it drifts
docs: $(TELEMETRY_SCHEMA)
	$(TELEMETRY_SCHEMA) --markdown > docs/telemetry.md.tmp && mv docs/telemetry.md.tmp docs/telemetry.md

install: install-telemetry
# the tool's modules go to PYTHONDIR; the launcher is told where
PYTHONDIR	?= $(PREFIX)/lib/bpftune/python
install-telemetry:
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(PYTHONDIR)/bpftune_telemetry
	install -m 0644 tools/bpftune_telemetry/*.py $(DESTDIR)$(PYTHONDIR)/bpftune_telemetry/
	sed -e 's|@PYTHONDIR@|$(PYTHONDIR)|' tools/bpftune-telemetry > \
		$(DESTDIR)$(BINDIR)/bpftune-telemetry
	chmod 0755 $(DESTDIR)$(BINDIR)/bpftune-telemetry

uninstall: uninstall-telemetry
uninstall-telemetry:
	rm -f $(DESTDIR)$(BINDIR)/bpftune-telemetry
	rm -rf $(DESTDIR)$(PYTHONDIR)/bpftune_telemetry

# floods a fixture tuner's tracepoint (test/telemetry.bats, bench/telemetry.sh)
$(FLOOD): test/fixtures/flood.c test/fixtures/flood_tuner.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(WARN) -Itest/fixtures -o $@ $<

fixtures test test-bats: $(FLOOD)

# BPF programs the tests load themselves (tc), not through the daemon
TEST_BPF	:= $(patsubst test/bpf/%.bpf.c,$(B)/test/bpf/%.bpf.o,$(wildcard test/bpf/*.bpf.c))

$(B)/test/bpf/%.bpf.o: test/bpf/%.bpf.c $(B)/vmlinux.h
	@mkdir -p $(@D)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

fixtures test test-bats: $(TEST_BPF)

# ---- tests ----------------------------------------------------------------
UNIT_SRCS := $(wildcard test/unit/*.c)
UNIT_LIB  := src/lib/core/sysctl_value.c src/lib/core/tunable_cap.c \
	     src/lib/core/plugin.c src/lib/core/plugin_dir.c src/lib/core/netns_priv.c
UNIT_LIB  += src/lib/ops/control_proto.c src/lib/ops/journal_record.c
UNIT_LIB  += $(SCHEMA_SRCS) $(TABLES_SRCS) src/lib/telemetry/telemetry_proc.c \
	     src/lib/telemetry/telemetry_retention.c
UNIT_LIB  += src/lib/kit/correlation.c src/lib/kit/proc_file.c src/lib/kit/grow.c \
	     src/lib/kit/softnet_parse.c
UNIT_LIB  += src/tuners/table_policy.c

$(UNIT_TEST): $(UNIT_SRCS) $(UNIT_LIB) $(LIB_HDRS) $(DECLARERS) $(wildcard include/bpftune/*.h src/tuners/*.h src/collectors/*.h)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(WARN) $(CPPFLAGS) -I$(B) -o $@ $(UNIT_SRCS) $(UNIT_LIB) -lcmocka -lelf -lz -lm

sample: all
	$(MAKE) -C sample_tuner

test-unit: $(UNIT_TEST)
	$(UNIT_TEST)

test-bats: all $(FIXTURE_SOS)
	bats test/

# The whole suite; prints "N passed, N failed" at the end.
test: all $(UNIT_TEST) $(FIXTURE_SOS)
	test/run-tests.sh

# ---- static analysis and sanitizers -------------------------------------
SAN_FLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer \
	     -fno-sanitize-recover=all
check: $(B)/vmlinux.h $(B)/skel/support_probe.skel.h $(DECLARERS)
	cppcheck --quiet --error-exitcode=1 --enable=warning,performance,portability \
		--inline-suppr --std=c11 -D__linux__ -Iinclude -Isrc/lib -I$(B)/skel \
		--suppress=missingIncludeSystem --library=test/unit/libbpf.cfg \
		src/bpftune.c src/lib src/tuners/*_tuner.c src/tuners/table_policy.c \
		src/tuners/*_tables.c src/collectors/*.c test/unit sample_tuner/sample_tuner.c \
		sample_tuner/sample_tuner_tables.c
	@mkdir -p $(B)/san
	$(CC) $(SAN_FLAGS) $(WARN) $(CPPFLAGS) -I$(B) -o $(B)/san/unit_tests \
		$(UNIT_SRCS) $(UNIT_LIB) -lcmocka -lelf -lz -lm
	$(B)/san/unit_tests
	@mkdir -p $(B)/san/lib
	$(CC) $(SAN_FLAGS) $(WARN) $(CPPFLAGS) -fPIC -shared -Wl,-soname,$(LIB_SONAME) \
		-o $(B)/san/lib/$(LIB_SONAME) $(LIB_SRCS) $(LIBS)
	$(CC) $(SAN_FLAGS) $(WARN) $(CPPFLAGS) -o $(B)/san/bpftune src/bpftune.c \
		-L$(B)/san/lib -l:$(LIB_SONAME) $(LIBS) -lsystemd -Wl,-rpath,'$$ORIGIN/lib'
	$(B)/san/bpftune -V
	$(B)/san/bpftune -h >/dev/null
	! $(B)/san/bpftune -r 9 2>/dev/null
	# the real probe and plugin loading path under the sanitizers
	ASAN_OPTIONS=exitcode=99 $(B)/san/bpftune -S -l $(B)/lib/bpftune >/dev/null; \
		rc=$$?; [ $$rc -ne 1 ] && [ $$rc -ne 99 ] && [ $$rc -lt 128 ]
	@echo "make check: clean"

# ---- benchmarks: they print numbers, never pass or fail -----------------
# Each bench/*.sh is run in turn (BENCHES= picks some); results go to
# bench/results/.  Knobs are environment variables, e.g. make bench N=3
# (see each script's header and docs/benchmarks.md).  Not part of make test.
BENCHES		?= $(filter-out bench/lib.sh bench/matrix.sh,$(sort $(wildcard bench/*.sh)))
.PHONY: bench bench-matrix
bench: all
	@for b in $(BENCHES); do echo "== $$b"; $$b || exit 1; done
# bench/telemetry.sh floods the flood fixture tuner
bench: fixtures
# the overhead benchmark in the qemu guests (test/vm), full and legacy
# mode, reduced cases; same-run ratios only (TCG distorts timings)
bench-matrix: all
	bench/matrix.sh $(VM_KERNELS)

clean:
	rm -rf $(B)
	-$(MAKE) -C sample_tuner clean

# Kernel matrix in qemu guests (test/vm/): make test-matrix
-include test/vm/vm.mk
