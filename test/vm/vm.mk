# SPDX-License-Identifier: GPL-2.0-only
#
# Kernel matrix in qemu TCG guests; included by the top-level Makefile, so
# paths are relative to the top of the tree.  See test/vm/README.md.
#
#   make test-matrix               bpftune -S + bats (full, legacy) + the
#                                  packages under systemd, per kernel
#   make test-matrix VM_KERNELS=6.12
#   make test-matrix-ci            the CI subset: each kernel once, each mode once
#   make test-matrix-selftest      a broken legacy kprobe must fail the matrix
#   make test-systemd              the package under systemd as PID 1 (make deb)
#   make vm-fetch                  download/prepare kernels, busybox, kmod, qemu
#   make vm-clean                  remove test/vm/cache

VM_KERNELS	?= 6.1 6.12
# the steps per kernel of make test-matrix (matrix.sh): systemd is
# test/vm/systemd.bats on the packages, in a guest with systemd as PID 1
VM_MODES	?= full legacy systemd
export VM_MODES
# CI: 6.1 with kprobes (-L), then the packages under systemd; 6.12 with
# fentry and the daemon, library and plugins built with ASan/UBSan (make
# SAN=1): every kernel and every mode is exercised once, and the sanitizers
# see the event paths of real hooks
VM_CI_MATRIX	?= 6.1:legacy,systemd 6.12:full-asan
# a systemd step builds the packages first (make deb: lintian included);
# VM_DEB=0 uses build/deb as it is (.ci/run builds them in a step of its own)
VM_DEB		?= 1
# only the tests tagged hooks: what a kernel and a mode can show that the
# host cannot (each hook type attached and delivering events, each tuner's
# main scenario, netem); user-space logic runs on the host
VM_CI_BATS_ARGS	?= --timing --filter-tags hooks,!slow test/
VM_QEMU_PKG	:= qemu-system-x86

.PHONY: test-matrix test-matrix-ci test-matrix-selftest vm-fetch vm-clean test-systemd

# bpftune under systemd as PID 1 in a guest: the packages of make deb
# installed, started, reloaded, killed and purged (test/vm/systemd.bats);
# bpftune-ship.service shipping to Redis (test/vm/systemd_ship.bats)
VM_SYSTEMD_KERNEL	?= 6.12
VM_SYSTEMD_TIMEOUT	?= 2100
test-systemd: deb vm-fetch
	test/vm/run-in-vm.sh --systemd -t $(VM_SYSTEMD_TIMEOUT) $(VM_SYSTEMD_KERNEL) -- \
		bats --timing test/vm/systemd.bats test/vm/systemd_ship.bats

test-matrix: all fixtures vm-fetch
	$(if $(and $(filter 1,$(VM_DEB)),$(findstring systemd,$(VM_MODES))),$(MAKE) deb)
	test/vm/matrix.sh $(VM_KERNELS)

test-matrix-ci: all fixtures vm-fetch
	$(if $(findstring asan,$(VM_CI_MATRIX)),$(MAKE) SAN=1 all fixtures build/asan/test/unit_tests build/asan/test/san_canary)
	$(if $(and $(filter 1,$(VM_DEB)),$(findstring systemd,$(VM_CI_MATRIX))),$(MAKE) deb)
	VM_BATS_ARGS="$(VM_CI_BATS_ARGS)" test/vm/matrix.sh $(VM_CI_MATRIX)

test-matrix-selftest: vm-fetch
	test/vm/selftest-broken-legacy.sh $(lastword $(VM_KERNELS))

vm-fetch:
	@if ! command -v qemu-system-x86_64 >/dev/null; then \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
			echo "vm-fetch: installing $(VM_QEMU_PKG)"; \
			DEBIAN_FRONTEND=noninteractive apt-get -q install -y \
				--no-install-recommends $(VM_QEMU_PKG) || \
			{ apt-get -q update && DEBIAN_FRONTEND=noninteractive \
				apt-get -q install -y --no-install-recommends \
				$(VM_QEMU_PKG); } || exit 1; \
		else \
			echo "vm-fetch: qemu-system-x86_64 missing: install $(VM_QEMU_PKG)" >&2; \
			exit 1; \
		fi; \
	fi
	test/vm/run-in-vm.sh --fetch $(VM_KERNELS)

vm-clean:
	rm -rf test/vm/cache
