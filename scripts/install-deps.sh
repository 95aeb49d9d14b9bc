#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Install what bpftune needs to build and test.
#   scripts/install-deps.sh        build + host test suite
#   scripts/install-deps.sh --vm   also the qemu kernel matrix (make test-matrix) and
#                                  the packages under systemd (make deb, make test-systemd)
#   scripts/install-deps.sh --deb  also Debian packaging (make deb)
#   scripts/install-deps.sh --bench  also the benchmarks (make bench): qperf,
#                                  stress-ng, perf, gnuplot, rsvg-convert, and
#                                  headless Chromium (test/bench_tools.bats
#                                  screenshots the flame graph with it)
#
# Debian/Ubuntu: installed with apt-get.  On Fedora/RHEL the same packages are:
#   dnf install gcc make clang llvm bpftool libbpf-devel elfutils-libelf-devel \
#       zlib-devel libcap-devel systemd-devel libcmocka-devel libnl3-devel \
#       pkgconf-pkg-config inih-devel scdoc \
#       iproute bats python3 cppcheck xz binutils procps-ng iperf3 strace \
#       sqlite-devel sqlite python3-pandas python3-matplotlib python3-scikit-learn \
#       qperf rt-tests sysbench \
#       hiredis-devel python3-redis python3-hiredis redis
#   (--vm: qemu-system-x86 busybox cpio; make deb is Debian-only)
#   (--bench: qperf stress-ng perf gnuplot librsvg2-tools chromium)
set -eu

APT_PKGS="build-essential clang llvm libbpf-dev bpftool libelf-dev zlib1g-dev \
libcap-dev libsystemd-dev libcmocka-dev libnl-3-dev libnl-route-3-dev pkg-config \
iproute2 bats python3 cppcheck xz-utils binutils procps iperf3 systemd ethtool \
libinih-dev scdoc strace"
# telemetry: SQLite for the daemon, pandas/matplotlib for bpftune-telemetry plot,
# scikit-learn for bpftune-telemetry learn (docs/learning.md), and the
# workloads bpftune-telemetry collect runs when they are there (qperf;
# hackbench from rt-tests; sysbench)
APT_PKGS="$APT_PKGS libsqlite3-dev sqlite3 python3-pandas python3-matplotlib python3-sklearn"
APT_PKGS="$APT_PKGS qperf rt-tests sysbench"
# fleet: bpftune-ship (hiredis), bpftune-telemetry fleet (python3-redis, and
# python3-hiredis, its fast reply parser), the tests' redis-server
APT_PKGS="$APT_PKGS libhiredis-dev python3-redis python3-hiredis redis-server redis-tools"
VM_PKGS="qemu-system-x86 busybox-static cpio"
# make deb: Debian's packaging tools and lintian
DEB_PKGS="dpkg-dev debhelper fakeroot lintian"
# benchmarks: linux-perf is Debian's perf (Ubuntu: linux-tools-*)
# (the flame graph is drawn by bench/flamegraph.py: no renderer to install)
BENCH_PKGS="qperf stress-ng linux-perf gnuplot-nox librsvg2-bin time chromium"

for arg in "$@"; do
	case "$arg" in
	--vm) APT_PKGS="$APT_PKGS $VM_PKGS $DEB_PKGS" ;;
	--deb) APT_PKGS="$APT_PKGS $DEB_PKGS" ;;
	--bench) APT_PKGS="$APT_PKGS $BENCH_PKGS" ;;
	*) echo "usage: $0 [--vm] [--deb] [--bench]" >&2; exit 1 ;;
	esac
done

if [ "$(id -u)" -ne 0 ]; then
	echo "run as root (sudo $0)" >&2
	exit 1
fi

if command -v apt-get >/dev/null 2>&1; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	# Ubuntu ships bpftool in linux-tools: fall back to it
	if ! apt-cache show bpftool >/dev/null 2>&1; then
		APT_PKGS="$(echo "$APT_PKGS" | sed 's/bpftool/linux-tools-common linux-tools-generic/')"
	fi
	# Ubuntu has no linux-perf package
	if ! apt-cache show linux-perf >/dev/null 2>&1; then
		APT_PKGS="$(echo "$APT_PKGS" | sed 's/linux-perf/linux-tools-common linux-tools-generic/')"
	fi
	# shellcheck disable=SC2086
	apt-get install -y -q --no-install-recommends $APT_PKGS
elif command -v dnf >/dev/null 2>&1; then
	echo "dnf detected: install the packages listed at the top of $0" >&2
	exit 1
else
	echo "no apt-get: install the packages listed at the top of $0 by hand" >&2
	exit 1
fi
