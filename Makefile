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
LLVM_STRIP	?= llvm-strip
ARCH		:= $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/' -e 's/ppc64le/powerpc/' -e 's/s390x/s390/')

B		:= build
CFLAGS		?= -O2 -g
# make SAN=1: everything (daemon, libbpftune, plugins, fixtures, unit
# tests) built with ASan + UBSan in build/asan (make test-asan, make check)
SAN_FLAGS	:= -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer \
		   -fno-sanitize-recover=all
ifeq ($(SAN),1)
B		:= build/asan
# clang: its ASan and UBSan share one runtime, so both honour log_path
CC		:= $(CLANG)
CFLAGS		:= $(SAN_FLAGS)
LDFLAGS		+= -fsanitize=address,undefined
# clang links the sanitizer runtime into executables only: a library's
# __asan_* references are resolved by the daemon and the unit tests
LIB_NO_UNDEFINED :=
else
LIB_NO_UNDEFINED := -Wl,--no-undefined
endif
WARN		:= -Wall -Wextra -Werror
# the caller's preprocessor flags (e.g. dpkg-buildflags' -D_FORTIFY_SOURCE=2),
# before the library's own include paths: plugins get only these
USER_CPPFLAGS	:= $(CPPFLAGS)
CPPFLAGS	+= -D_GNU_SOURCE -Iinclude -Isrc/lib -I$(B)/skel \
		   -DBPFTUNE_VERSION=\"$(VERSION)\" \
		   -DBPFTUNE_PLUGIN_DIR=\"$(PLUGINDIR)\"
ALL_CFLAGS	= $(CFLAGS) $(WARN) -fPIC $(CPPFLAGS)
BPF_CFLAGS	:= -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -Wall -Werror \
		   -Iinclude -I$(B)
LIBS		:= -lbpf -lelf -lcap -ldl
LIBS		+= -lz	# rollback journal checksums
LIBS		+= -lsqlite3 -lpthread	# telemetry
LIBS		+= -lm	# correlation.c
# the kit's rtnetlink (kit/netlink.c)
NL_CFLAGS	:= $(shell pkg-config --cflags libnl-route-3.0 2>/dev/null || echo -I/usr/include/libnl3)
LIBS		+= -lnl-route-3 -lnl-3
LIBS		+= -linih	# the config file (ops/config_parse.c)

# libbpftune: one folder per responsibility (see README, "Layout")
LIB_AREAS	:= btf base netns loader core write plugin kit ops telemetry
LIB_SRCS	:= $(filter-out %.bpf.c,$(foreach a,$(LIB_AREAS),$(wildcard src/lib/$(a)/*.c)))
LIB_HDRS	:= $(foreach a,$(LIB_AREAS),$(wildcard src/lib/$(a)/*.h))
LIB_OBJS	:= $(patsubst src/lib/%.c,$(B)/obj/lib/%.o,$(LIB_SRCS))
LIB_SO		:= $(B)/lib/libbpftune.so.$(VERSION)
LIB_SONAME	:= libbpftune.so.0
# a plugin is a folder: src/tuners/NAME/, src/collectors/NAME/
TUNERS		:= $(patsubst src/tuners/%/,%,$(wildcard src/tuners/*/))
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
# The DWARF clang writes for -g is for humans; libbpf reads only .BTF and
# .BTF.ext.  Stripped (as libbpf-tools does), each object is about 5x
# smaller, and so is every plugin that embeds two of them.
BPF_HDRS := include/bpftune/bpftune.bpf.h include/bpftune/bpftune.h \
	    include/bpftune/sampling.h include/bpftune/tick_gate.bpf.h $(B)/vmlinux.h
# and each object's own headers (a tuner's .h shared with its userspace
# part), as clang finds them: object.d beside the object
BPF_DEPS := -MMD -MP
-include $(shell find $(B)/bpf $(B)/test/bpf -name '*.d' 2>/dev/null)

$(B)/bpf/%.bpf.o: src/%.bpf.c $(BPF_HDRS)
	@mkdir -p $(@D)
	$(CLANG) $(BPF_CFLAGS) $(BPF_DEPS) -c $< -o $@
	$(LLVM_STRIP) -g $@

$(B)/bpf/%.legacy.bpf.o: src/%.bpf.c $(BPF_HDRS)
	@mkdir -p $(@D)
	$(CLANG) $(BPF_CFLAGS) $(BPF_DEPS) -DBPFTUNE_LEGACY -c $< -o $@
	$(LLVM_STRIP) -g $@

$(B)/bpf/fixtures/%.bpf.o: test/fixtures/%.bpf.c $(BPF_HDRS)
	@mkdir -p $(@D)
	$(CLANG) $(BPF_CFLAGS) $(BPF_DEPS) -c $< -o $@

$(B)/bpf/fixtures/%.legacy.bpf.o: test/fixtures/%.bpf.c $(BPF_HDRS)
	@mkdir -p $(@D)
	$(CLANG) $(BPF_CFLAGS) $(BPF_DEPS) -DBPFTUNE_LEGACY -c $< -o $@

$(B)/skel/%.skel.h: $(B)/bpf/%.bpf.o
	@mkdir -p $(@D)
	$(BPFTOOL) gen skeleton $< name $(subst -,_,$(notdir $*))_bpf > $@.tmp && mv $@.tmp $@

$(B)/skel/%.legacy.skel.h: $(B)/bpf/%.legacy.bpf.o
	@mkdir -p $(@D)
	$(BPFTOOL) gen skeleton $< name $(notdir $*)_bpf_legacy > $@.tmp && mv $@.tmp $@

# ---- libbpftune ----------------------------------------------------------
$(B)/obj/lib/loader/support.o: $(B)/skel/support_probe.skel.h
# the core mechanisms' BPF objects are built into the library, in both
# variants but for those with one for every kernel (raw_tp only)
CORE_BPF	:= $(patsubst src/lib/core/%.bpf.c,%,$(wildcard src/lib/core/*.bpf.c))
CORE_BPF_ONE	:= gate_wake
$(foreach c,$(CORE_BPF),$(eval $(B)/obj/lib/core/$(c).o: $(B)/skel/lib/core/$(c).skel.h \
	$(if $(filter $(c),$(CORE_BPF_ONE)),,$(B)/skel/lib/core/$(c).legacy.skel.h)))
$(B)/obj/lib/core/%.o: CPPFLAGS += -I$(B)/skel/lib/core

$(B)/obj/lib/%.o: src/lib/%.c $(LIB_HDRS) $(wildcard include/bpftune/*.h)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -fvisibility=hidden -c $< -o $@

$(B)/obj/lib/kit/netlink.o: CPPFLAGS += $(NL_CFLAGS)

# Sealed (scripts/seal.sh, CONTRIBUTING.md "The sealed library"): built
# with -fvisibility=hidden, the version script exports what
# include/bpftune/ declares (BPFTUNE_2), nothing else.  The daemon
# (src/bpftune.c, src/daemon/) is part of the library: it shares the
# library's state with the plugins it loads, and needs nothing exported.
SEAL		:= $(B)/seal
# -aux-info lists the public headers' prototypes: a GCC option
SEAL_CC		?= gcc
DAEMON_SRCS	:= src/bpftune.c $(wildcard src/daemon/*.c)
DAEMON_OBJS	:= $(patsubst src/%.c,$(B)/obj/%.o,$(DAEMON_SRCS))
LIB_OBJS	+= $(DAEMON_OBJS)

$(SEAL)/public.syms: $(wildcard include/bpftune/*.h) scripts/seal.sh
	@mkdir -p $(@D)
	scripts/seal.sh public $(SEAL_CC) > $@.tmp && mv $@.tmp $@

$(SEAL)/libbpftune.map: $(SEAL)/public.syms
	scripts/seal.sh map $^ > $@.tmp && mv $@.tmp $@

$(LIB_SO): $(LIB_OBJS) $(SEAL)/libbpftune.map
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -shared -Wl,-soname,$(LIB_SONAME) -Wl,--version-script=$(SEAL)/libbpftune.map \
		$(LIB_NO_UNDEFINED) -o $@ $(LIB_OBJS) $(LIBS)
	ln -sf $(notdir $@) $(B)/lib/$(LIB_SONAME)
	ln -sf $(LIB_SONAME) $(B)/lib/libbpftune.so

# ---- daemon ---------------------------------------------------------------
$(DAEMON_OBJS): $(B)/obj/%.o: src/%.c $(B)/config.stamp $(LIB_HDRS) \
		 $(wildcard include/bpftune/*.h src/daemon/*.h)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -fvisibility=hidden -c $< -o $@

$(B)/obj/main.o: src/main.c include/bpftune/daemon.h
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

# build/bin/bpftune finds build/lib; a package installs the library where
# ld.so looks and builds with DAEMON_RPATH= (no RPATH)
DAEMON_RPATH	?= -Wl,-rpath,'$$ORIGIN/../lib'
$(DAEMON): $(B)/obj/main.o $(LIB_SO)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $(B)/obj/main.o -L$(B)/lib -lbpftune $(DAEMON_RPATH)

# ---- tuners ---------------------------------------------------------------
# A tuner is a folder, src/tuners/NAME/: NAME_tuner.c, NAME_tuner.bpf.c and,
# when it is split, its other .c files (tcp_buffer: one file per scenario
# and its pure decisions); every .c of the folder goes into NAME_tuner.so.
# Collectors (below) are built the same way from src/collectors/NAME/.
# $(1): tuners or collectors, $(2): NAME, $(3): tuner or collector
plugin_objs	= $(patsubst src/%.c,$(B)/obj/%.o,$(filter-out %.bpf.c,$(wildcard src/$(1)/$(2)/*.c)))

# Sealed: a plugin sees include/ and its own folder, nothing of src/lib/,
# and exports nothing but its descriptor.
PLUGIN_CFLAGS	= $(CFLAGS) $(USER_CPPFLAGS) $(WARN) -fPIC -fvisibility=hidden -D_GNU_SOURCE -Iinclude
PLUGIN_HDRS	:= $(wildcard src/tuners/*/*.h src/collectors/*/*.h include/bpftune/*.h)

$(B)/obj/tuners/%.o: src/tuners/%.c $(PLUGIN_HDRS)
	@mkdir -p $(@D)
	$(CC) $(PLUGIN_CFLAGS) -I$(<D) -I$(patsubst src/%,$(B)/skel/%,$(<D)) -c $< -o $@

define plugin_rules
$(call plugin_objs,$(1),$(2)): $(B)/skel/$(1)/$(2)/$(2)_$(3).skel.h \
	$(B)/skel/$(1)/$(2)/$(2)_$(3).legacy.skel.h
$(B)/lib/bpftune/$(2)_$(3).so: $(call plugin_objs,$(1),$(2))
endef
$(foreach t,$(TUNERS),$(eval $(call plugin_rules,tuners,$(t),tuner)))

$(B)/lib/bpftune/%_tuner.so: $(LIB_SO)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -shared -o $@ $(filter %.o,$^) -L$(B)/lib -lbpftune -lbpf $(TUNER_LIBS)

# what make check holds to the plugin rules: tuners, collectors, fixtures,
# the sample
PLUGIN_SRCS	= $(wildcard src/tuners/*/*.[ch] src/collectors/*/*.[ch] \
			     test/fixtures/*_tuner.[ch] test/fixtures/*_collector.[ch] \
			     sample_tuner/*.[ch])

# ---- collectors: plugins that only record tables (src/collectors/) -------
# src/collectors/NAME/ (NAME_collector.{c,bpf.c,h}, NAME_tables.c, ...) ->
# NAME_collector.so, loaded only when named by --collectors
COLLECTORS	:= $(patsubst src/collectors/%/,%,$(wildcard src/collectors/*/))
COLLECTOR_SOS	:= $(patsubst %,$(B)/lib/bpftune/%_collector.so,$(COLLECTORS))
all: $(COLLECTOR_SOS)

$(B)/obj/collectors/%.o: src/collectors/%.c $(PLUGIN_HDRS)
	@mkdir -p $(@D)
	$(CC) $(PLUGIN_CFLAGS) -I$(<D) -I$(patsubst src/%,$(B)/skel/%,$(<D)) -c $< -o $@
$(foreach c,$(COLLECTORS),$(eval $(call plugin_rules,collectors,$(c),collector)))
$(B)/lib/bpftune/%_collector.so: $(LIB_SO)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -shared -o $@ $(filter %.o,$^) -L$(B)/lib -lbpftune -lbpf

# ---- test fixtures: plugins that exercise the loader ---------------------
FIXTURES	:= $(patsubst test/fixtures/%_tuner.c,%,$(wildcard test/fixtures/*_tuner.c))
FIXTURE_SOS	:= $(patsubst %,$(B)/test/plugins/%_tuner.so,$(FIXTURES))
FIXTURE_SOS	+= $(patsubst test/fixtures/%.c,$(B)/test/plugins/%.so,$(wildcard test/fixtures/*_collector.c))

$(B)/test/plugins/%_tuner.so: test/fixtures/%_tuner.c $(B)/skel/fixtures/%_tuner.skel.h \
			      $(B)/skel/fixtures/%_tuner.legacy.skel.h $(LIB_SO)
	@mkdir -p $(@D)
	$(CC) $(PLUGIN_CFLAGS) -Itest/fixtures -I$(B)/skel/fixtures -shared -o $@ $< \
		-L$(B)/lib -lbpftune -lbpf

$(B)/test/plugins/%_collector.so: test/fixtures/%_collector.c $(B)/skel/fixtures/%_collector.skel.h \
				  $(B)/skel/fixtures/%_collector.legacy.skel.h $(LIB_SO)
	@mkdir -p $(@D)
	$(CC) $(PLUGIN_CFLAGS) -Itest/fixtures -I$(B)/skel/fixtures -shared -o $@ $< \
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
SCHEMA_SRCS	:= $(addprefix src/lib/telemetry/,schema_core.c schema_sql.c schema_check.c schema_doc.c \
		   schema_policy.c schema_outcome.c) src/lib/core/appendf.c
TABLES_SRCS	:= $(wildcard src/tuners/*/*_tables.c src/collectors/*/*_tables.c) \
		   sample_tuner/sample_tuner_tables.c
DECLARERS	:= $(B)/telemetry_declarers.inc
$(DECLARERS): $(TABLES_SRCS)
	@mkdir -p $(@D)
	@for f in $(TABLES_SRCS); do \
		n=$$(basename $$f _tables.c); echo "DECLARER($${n%_tuner})"; \
	done > $@.tmp && mv $@.tmp $@

$(TELEMETRY_SCHEMA): tools/telemetry_schema.c $(SCHEMA_SRCS) $(TABLES_SRCS) $(DECLARERS) \
		     src/lib/telemetry/telemetry_schema.h $(PLUGIN_HDRS)
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
	sed -e 's|@VERSION@|$(VERSION)|' -e "s|@COMMIT@|$$(git rev-parse HEAD 2>/dev/null || echo unknown)|" \
		tools/bpftune_telemetry/version.py > $(DESTDIR)$(PYTHONDIR)/bpftune_telemetry/version.py
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

# LD_PRELOAD fault injection for test/faults.bats: never linked into the daemon
FAULT_INJECT	:= $(B)/test/fault_inject.so
$(FAULT_INJECT): test/fixtures/fault_inject.c
	@mkdir -p $(@D)
	$(CC) -O2 -g $(WARN) -D_GNU_SOURCE -fPIC -shared -o $@ $< -ldl

fixtures test test-bats: $(FAULT_INJECT)

# BPF programs the tests load themselves (tc), not through the daemon
TEST_BPF	:= $(patsubst test/bpf/%.bpf.c,$(B)/test/bpf/%.bpf.o,$(wildcard test/bpf/*.bpf.c))

$(B)/test/bpf/%.bpf.o: test/bpf/%.bpf.c $(B)/vmlinux.h
	@mkdir -p $(@D)
	$(CLANG) $(BPF_CFLAGS) $(BPF_DEPS) -c $< -o $@

fixtures test test-bats: $(TEST_BPF)

# ---- man pages: man/NAME.SECTION.scd, rendered by scdoc ------------------
# Every source in man/ is built and installed into MANDIR/manSECTION: a new
# page (e.g. man/bpftune-ship.8.scd) needs no rule of its own.
SCDOC		?= scdoc
MAN_SRCS	:= $(wildcard man/*.scd)
MAN_PAGES	:= $(patsubst man/%.scd,$(B)/man/%,$(MAN_SRCS))
.PHONY: man install-man uninstall-man

all: man
man: $(MAN_PAGES)

$(B)/man/%: man/%.scd
	@mkdir -p $(@D)
	$(SCDOC) < $< > $@.tmp && mv $@.tmp $@

install: install-man
install-man: man
	@for p in $(MAN_PAGES); do \
		s=$${p##*.}; \
		install -d $(DESTDIR)$(MANDIR)/man$$s && \
		install -m 0644 $$p $(DESTDIR)$(MANDIR)/man$$s/ || exit 1; \
	done

uninstall: uninstall-man
uninstall-man:
	for p in $(notdir $(MAN_PAGES)); do rm -f $(DESTDIR)$(MANDIR)/man$${p##*.}/$$p; done

# ---- Debian packages: make deb -> build/deb/*.deb, checked by lintian ------
# Built with dpkg-buildpackage from a copy of the tree (build/deb/src), so
# that the package's PREFIX=/usr build does not touch build/.
DEB_DIR		:= $(B)/deb
.PHONY: deb
deb:
	rm -rf $(DEB_DIR) && mkdir -p $(DEB_DIR)/src
	if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then \
		git ls-files -z --cached --others --exclude-standard | \
			xargs -0 -I{} sh -c 'test -e "{}" && printf "%s\0" "{}"' | \
			tar -cf - --null -T - | tar -xf - -C $(DEB_DIR)/src; \
	else \
		tar -cf - --exclude=./build --exclude=./debian/.debhelper . | \
			tar -xf - -C $(DEB_DIR)/src; \
	fi
	cd $(DEB_DIR)/src && dpkg-buildpackage -b -us -uc
	lintian -I --pedantic --fail-on error,warning,info,pedantic \
		$(DEB_DIR)/*.changes
	@ls -l $(DEB_DIR)/*.deb

# rx_round: watches a CPU's NET_RX rounds, so that net_buffer.bats can
# assert what its slow receive path produced (a skeleton user, like a tool)
RX_ROUND	:= $(B)/test/rx_round
$(B)/test/skel/rx_round.skel.h: $(B)/test/bpf/rx_round.bpf.o
	@mkdir -p $(@D)
	$(BPFTOOL) gen skeleton $< name rx_round_bpf > $@.tmp && mv $@.tmp $@
$(B)/test/bpf/rx_round.bpf.o: test/bpf/rx_round.h
$(RX_ROUND): test/bpf/rx_round.c test/bpf/rx_round.h $(B)/test/skel/rx_round.skel.h
	$(CC) $(CFLAGS) $(WARN) -Itest/bpf -I$(B)/test/skel -o $@ $< -lbpf
fixtures test test-bats: $(RX_ROUND)
# loads every object with its minimal BTF and with the kernel's, compares
# (test/btf_min.bats)
BTF_MIN_CHECK	:= $(B)/test/btf_min_check
BTF_MIN_SRCS	:= src/lib/btf/btf_min.c src/lib/btf/kbtf.c src/lib/btf/core_relo.c
$(BTF_MIN_CHECK): test/btf_min_check.c $(BTF_MIN_SRCS) $(wildcard src/lib/btf/*.h)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(WARN) $(CPPFLAGS) -o $@ $< $(BTF_MIN_SRCS) -lbpf -lelf

fixtures test test-bats: $(BTF_MIN_CHECK)

# ---- bpftune-ship (tools/ship/): run files' rows to Redis Streams ------
SHIP		:= $(B)/bin/bpftune-ship
# the atomic file replace is the library's own, compiled in (a leaf)
SHIP_SRCS	:= $(wildcard tools/ship/*.c) src/lib/core/file_replace.c
# the parts that parse what comes from outside: unit-tested and fuzzed
SHIP_PURE	:= tools/ship/url.c tools/ship/encode.c tools/ship/watermark.c \
		   src/lib/core/file_replace.c
SHIP_LIBS	:= -lhiredis -lsqlite3 -lm
.PHONY: install-ship uninstall-ship

all: $(SHIP)

$(SHIP): $(SHIP_SRCS) $(wildcard tools/ship/*.h) src/lib/core/file_replace.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(WARN) $(CPPFLAGS) $(LDFLAGS) -o $@ $(SHIP_SRCS) $(SHIP_LIBS)

install: install-ship
install-ship: $(SHIP)
	install -d $(DESTDIR)$(SBINDIR) $(DESTDIR)$(UNITDIR)
	install -m 0755 $(SHIP) $(DESTDIR)$(SBINDIR)/bpftune-ship
	sed -e 's|@SBINDIR@|$(SBINDIR)|' systemd/bpftune-ship.service > \
		$(DESTDIR)$(UNITDIR)/bpftune-ship.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/bpftune-ship.service

# the shipper under ASan/UBSan: make check builds it (make SAN=1) and runs
# what needs no Redis; BPFTUNE_SHIP=build/asan/bin/bpftune-ship bats
# test/fleet.bats runs the Redis tests with it
# (a sanitizer report exits 86, not the shipper's 1 for a refused input)
.PHONY: check-ship
check: check-ship
check-ship: export ASAN_OPTIONS = exitcode=86
check-ship: export UBSAN_OPTIONS = halt_on_error=1:print_stacktrace=1:exitcode=86
check-ship:
	$(MAKE) -s SAN=1 $(SAN_B)/bin/bpftune-ship
	$(SAN_B)/bin/bpftune-ship -V
	$(SAN_B)/bin/bpftune-ship -h >/dev/null
	$(SAN_B)/bin/bpftune-ship --redis 'redis://u:%zz@h' 2>/dev/null; test $$? -eq 1
	$(SAN_B)/bin/bpftune-ship --redis redis://127.0.0.1:1 --dir /nonexistent \
		--state $(SAN_B)/ship-state --once --give-up 0 2>/dev/null; test $$? -eq 1

uninstall: uninstall-ship
uninstall-ship:
	rm -f $(DESTDIR)$(SBINDIR)/bpftune-ship $(DESTDIR)$(UNITDIR)/bpftune-ship.service

# ---- tests ----------------------------------------------------------------
UNIT_SRCS := $(wildcard test/unit/*.c)
UNIT_LIB  := src/lib/core/sysctl_value.c src/lib/core/tunable_cap.c src/lib/write/refusal.c \
	     src/lib/core/kind.c src/lib/core/netns_priv.c src/lib/core/observer.c src/lib/core/gate_step.c
UNIT_LIB  += src/lib/plugin/plugin.c src/lib/plugin/plugin_dir.c src/lib/plugin/trusted_file.c
UNIT_LIB  += src/lib/ops/control_proto.c src/lib/ops/journal_record.c src/daemon/notify.c
UNIT_LIB  += $(SCHEMA_SRCS) $(TABLES_SRCS) src/lib/telemetry/telemetry_proc.c \
	     src/lib/telemetry/telemetry_retention.c src/lib/telemetry/ids.c \
	     src/lib/telemetry/gauge_window.c
UNIT_LIB  += src/lib/kit/correlation.c src/lib/kit/proc_file.c src/lib/kit/grow.c \
	     src/lib/kit/netlink.c
UNIT_LIB  += src/tuners/tcp_buffer/tcp_buffer_policy.c src/tuners/tcp_buffer/tcp_buffer_mem_plan.c \
	     src/tuners/tcp_conn/tcp_conn_policy.c src/tuners/tcp_conn/tcp_conn_model.c \
	     src/tuners/udp_buffer/udp_buffer_policy.c \
	     src/tuners/ip_frag/ip_frag_policy.c \
	     src/tuners/net_buffer/net_buffer_policy.c \
	     src/tuners/route_table/route_table_policy.c \
	     src/tuners/neigh_table/neigh_table_policy.c
UNIT_LIB  += src/lib/ops/config_parse.c src/lib/ops/config_eval.c
UNIT_LIB  += src/lib/btf/kbtf.c src/lib/btf/btf_min.c src/lib/btf/core_relo.c \
	     src/lib/loader/bpf_btf.c src/lib/core/collector_opts.c
UNIT_LIB  += $(SHIP_PURE)

$(UNIT_TEST): $(UNIT_SRCS) $(wildcard test/unit/*.h) $(UNIT_LIB) $(LIB_HDRS) $(DECLARERS) $(PLUGIN_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(WARN) $(CPPFLAGS) $(NL_CFLAGS) -I$(B) $(LDFLAGS) -o $@ $(UNIT_SRCS) \
		$(UNIT_LIB) -lcmocka -lbpf -lelf -lz -lm -linih -lnl-route-3 -lnl-3

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
SAN_B	:= build/asan
check: $(B)/vmlinux.h $(B)/skel/support_probe.skel.h $(DECLARERS) $(LIB_SO) $(TUNER_SOS) \
       $(COLLECTOR_SOS) $(FIXTURE_SOS)
	# the seal: exports, plugins' imports and includes; file and function sizes
	# (old_abi_tuner is a plugin of ABI 1 on purpose: it needs a function gone since)
	scripts/seal.sh check $(LIB_SO) $(SEAL)/public.syms \
		$(TUNER_SOS) $(COLLECTOR_SOS) $(filter-out %/old_abi_tuner.so,$(FIXTURE_SOS))
	scripts/seal.sh includes $(PLUGIN_SRCS)
	# the library's layers: core calls nothing above it (CONTRIBUTING.md)
	scripts/check-layers.sh $(B)
	scripts/check-size.py $(shell find src include sample_tuner tools test -name '*.[ch]' \
		-not -path 'test/vm/cache/*' -not -path 'sample_tuner/build/*')
	cppcheck --quiet --error-exitcode=1 --enable=warning,performance,portability \
		--inline-suppr --std=c11 -D__linux__ -Iinclude -Isrc/lib -I$(B)/skel \
		--suppress=missingIncludeSystem --library=test/unit/libbpf.cfg \
		$(DAEMON_SRCS) $(LIB_SRCS) $(filter-out %.bpf.c,$(wildcard src/tuners/*/*.c src/collectors/*/*.c)) \
		src/main.c test/unit sample_tuner/sample_tuner.c sample_tuner/sample_tuner_tables.c tools/ship
	$(MAKE) -s SAN=1 all $(SAN_B)/test/unit_tests
	$(SAN_B)/test/unit_tests
	$(SAN_B)/bin/bpftune -V
	$(SAN_B)/bin/bpftune -h >/dev/null
	! $(SAN_B)/bin/bpftune -r 9 2>/dev/null
	# the real probe and plugin loading path under the sanitizers: fails
	# unless every plugin was loaded from a trusted copy of the directory
	test/check-probe.sh $(SAN_B)/bin/bpftune $(SAN_B)/lib/bpftune
	@echo "make check: clean"

# trips each sanitizer on purpose: test/san-check.sh proves with it that
# reports reach the directory test-asan counts
SAN_CANARY	:= $(SAN_B)/test/san_canary
$(SAN_CANARY): test/fixtures/san_canary.c
	@mkdir -p $(@D)
	$(CLANG) $(SAN_FLAGS) $(WARN) -o $@ $<

# The whole bats suite against the ASan/UBSan build (build/asan): any
# sanitizer report, leaks at exit included, fails the run.  TESTS= runs
# some bats files only (e.g. TESTS="test/netns.bats test/crash.bats").
.PHONY: test-asan
test-asan: $(TEST_BPF) $(RX_ROUND)
	$(MAKE) SAN=1 all fixtures $(SAN_B)/test/unit_tests $(SAN_CANARY)
	BPFTUNE_BUILD=$(SAN_B) BPFTUNE_SAN=1 test/run-tests.sh $(TESTS)

# ---- benchmarks: they print numbers, never pass or fail -----------------
# Each bench/*.sh is run in turn (BENCHES= picks some); results go to
# bench/results/.  Knobs are environment variables, e.g. make bench N=3
# (see each script's header and docs/benchmarks.md).  Not part of make test.
# (not: the shared shell, the guest matrix, the netem path and the cc
# experiment that need a guest, the per-commit report that runs others;
# bench/netns_scale.sh, about 8 minutes, runs here but not in bench-ci)
BENCHES		?= $(filter-out bench/lib.sh bench/workloads.sh bench/matrix.sh \
		   bench/netem_effect.sh bench/cc_experiment.sh bench/report.sh \
		   bench/ref_build.sh bench/ref_compare.sh,$(sort $(wildcard bench/*.sh)))
.PHONY: bench bench-matrix bench-report bench-ci bench-ref
bench: all
	@for b in $(BENCHES); do echo "== $$b"; $$b || exit 1; done
# bench/telemetry.sh floods the flood fixture tuner, and runs the writer
# alone: linked with the library's objects, since it drives internals
# (a tuner without a plugin, the writer without the daemon) the sealed
# libbpftune.so does not export
BENCH_WRITER	:= $(B)/bench/telemetry_writer
$(BENCH_WRITER): bench/telemetry_writer.c bench/writer_bench.c bench/writer_bench.h $(LIB_OBJS)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $(filter %.c %.o,$^) $(LIBS)
# the sched collector's rows through the writer, without BPF
BENCH_SCHED_WRITER := $(B)/bench/sched_writer
SCHED_ROWS_SRCS	:= src/collectors/sched/sched_rows.c src/collectors/sched/sched_tables.c
$(BENCH_SCHED_WRITER): bench/sched_writer.c bench/writer_bench.c bench/writer_bench.h \
		       $(SCHED_ROWS_SRCS) $(LIB_OBJS)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -Isrc/collectors/sched $(LDFLAGS) -o $@ $(filter %.c %.o,$^) $(LIBS)
# the cost benchmark's "syscall" case (bench/workloads.sh)
BENCH_SYSCALL	:= $(B)/bench/syscall_loop
$(BENCH_SYSCALL): bench/syscall_loop.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $<
# what one IPI costs the task it interrupts (bench/cost.sh, its report)
BENCH_IPI	:= $(B)/bench/ipi_cost
$(BENCH_IPI): bench/ipi_cost.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -pthread -o $@ $<
fixtures test test-bats: $(BENCH_SYSCALL) $(BENCH_IPI)
bench: fixtures $(BENCH_WRITER) $(BENCH_SCHED_WRITER) $(BENCH_SYSCALL) $(BENCH_IPI)
# the overhead benchmark in the qemu guests (test/vm), full and legacy
# mode, reduced cases; same-run ratios only (TCG distorts timings)
bench-matrix: all
	bench/matrix.sh $(VM_KERNELS)
# the per-commit report: bench/results/<commit>/report.md (about 14 min);
# BASE=<results dir> compares; bench-ci: the reduced set (about 3 min),
# printed, never failing on a number.  Its reaction part slows a CPU's
# receive path with a test fixture (build/test/bpf/slow_rx.bpf.o)
bench-report: all fixtures $(BENCH_SYSCALL) $(BENCH_IPI)
	bench/report.sh
# the same-run comparison with the reference daemon (Oracle's bpftune) in
# a guest: REF_SRC its source or git directory, REF_DIR a build directory
# outside this tree (docs/benchmarks.md, "Against the reference daemon")
REF_KERNEL	?= 6.12
bench-ref: all $(BENCH_SYSCALL) $(BENCH_IPI)
	@[ -n "$(REF_SRC)" ] && [ -n "$(REF_DIR)" ] || \
		{ echo "make bench-ref: set REF_SRC (the reference's source) and REF_DIR (its build)" >&2; exit 1; }
	bench/ref_build.sh $(REF_SRC) $(REF_DIR)
	REF_DIR=$(REF_DIR) bench/ref_compare.sh $(REF_KERNEL)
bench-ci: all $(BENCH_SYSCALL) $(BENCH_IPI)
	bench/report.sh --ci

clean:
	rm -rf $(B)
	-$(MAKE) -C sample_tuner clean

# Kernel matrix in qemu guests (test/vm/): make test-matrix
-include test/vm/vm.mk

# libFuzzer targets (test/unit/fuzz/): make fuzz, make fuzz-ci
include test/unit/fuzz/fuzz.mk

# Churn soak: 1,000 namespaces over 10 minutes (SOAK_SECS, SOAK_NETNS);
# prints fds, RSS, per-netns state and telemetry rows; not in make test.
# Run it under the host-kernel lock like the suite.
.PHONY: soak
soak: all
	test/soak.sh
