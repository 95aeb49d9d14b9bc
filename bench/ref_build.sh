#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build the reference daemon (Oracle's bpftune) for a same-run A/B, outside
# this tree: from a source tree or a git directory already on the machine
# (nothing is downloaded here; e.g. a mirror of github.com/oracle/bpftune),
# into DEST, which must not lie inside this tree.  Its binary gets an rpath
# to its own libbpftune, and its plugin directory is compiled in as
# DEST/inst/lib/bpftune, so it runs from there without being installed
# (it never touches /usr, /etc or ldconfig).  Written for benchmarking only.
#
# Usage: bench/ref_build.sh SRC DEST
#   SRC   the reference's source: a tree with src/Makefile and
#         src/bpftune.c, or a git directory (bare or not; REF_REV, default
#         HEAD, is exported from it)
#   DEST  build directory (created; DEST/src is replaced on every run)
# Knobs: REF_REV=HEAD, REF_JOBS=2
# Result: DEST/inst/sbin/bpftune, DEST/inst/lib/{libbpftune.so*,bpftune/},
# and DEST/ab.env: AB_CMD, AB_READY, AB_SETTLE, AB_NAME and REF_COMMIT for
# bench/cost.sh and bench/ref_compare.sh (source it, export, run).
set -eu

die() {
	echo "ref_build: $*" >&2
	exit 1
}

[ $# -eq 2 ] || die "usage: $0 SRC DEST"
SRC="$1"
DEST="$2"
REV="${REF_REV:-HEAD}"
TOP="$(cd "$(dirname "$0")/.." && pwd)"

[ -e "$SRC" ] || die "source $SRC does not exist (fetch the reference first)"
mkdir -p "$DEST"
DEST="$(cd "$DEST" && pwd)"
case "$DEST/" in
"$TOP"/*) die "DEST $DEST is inside this tree: build the reference outside it" ;;
esac

rm -rf "$DEST/src"
mkdir -p "$DEST/src"
if git --git-dir="$SRC" rev-parse --verify -q "$REV^{commit}" >/dev/null 2>&1; then
	GITDIR="$SRC"
elif git -C "$SRC" rev-parse --verify -q "$REV^{commit}" >/dev/null 2>&1 &&
	[ "$(git -C "$SRC" rev-parse --show-toplevel 2>/dev/null)" = "$(cd "$SRC" && pwd)" ]; then
	GITDIR="$(git -C "$SRC" rev-parse --absolute-git-dir)"
else
	GITDIR=""
fi
if [ -n "$GITDIR" ]; then
	COMMIT="$(git --git-dir="$GITDIR" rev-parse "$REV^{commit}")"
	git --git-dir="$GITDIR" archive "$COMMIT" | tar -x -C "$DEST/src"
elif [ -f "$SRC/src/Makefile" ]; then
	COMMIT="unknown (a source tree without git)"
	cp -a "$SRC/." "$DEST/src/"
else
	die "$SRC is neither a git directory with $REV nor a source tree"
fi
if [ ! -f "$DEST/src/src/Makefile" ] || [ ! -f "$DEST/src/src/bpftune.c" ]; then
	die "$SRC has no src/Makefile and src/bpftune.c: not the reference daemon's source"
fi

for t in make clang bpftool cc pkg-config; do
	command -v "$t" >/dev/null || die "$t is missing"
done

INST="$DEST/inst"
rm -rf "$INST"
mkdir -p "$INST/sbin" "$INST/lib/bpftune"
echo "ref_build: building ${COMMIT:0:12} in $DEST/src" >&2
# prefix/libdir make its plugin directory INST/lib/bpftune (it also looks
# in INST/local/lib/bpftune, absent: not an error for it)
LDFLAGS="-Wl,-rpath,$INST/lib" make -C "$DEST/src/src" -j"${REF_JOBS:-2}" \
	prefix="$INST" libdir=lib BPFTUNE_VERSION="ref-${COMMIT:0:12}" \
	>"$DEST/build.log" 2>&1 ||
	{ tail -30 "$DEST/build.log" >&2; die "build failed (log: $DEST/build.log)"; }

cp "$DEST/src/src/bpftune" "$INST/sbin/"
cp -P "$DEST/src/src"/libbpftune.so* "$INST/lib/"
cp "$DEST/src/src"/*_tuner.so "$INST/lib/bpftune/"
chmod 0755 "$INST" "$INST/lib" "$INST/lib/bpftune" "$INST/lib/bpftune"/*.so
"$INST/sbin/bpftune" -V >/dev/null 2>&1 || die "the built daemon does not run: $INST/sbin/bpftune -V"

# Its cgroup option mounts a cgroup2 hierarchy on the directory it is
# given (not ours to hand it): it keeps its default, under /var/run/bpftune.
# It prints "bpftune works fully" (or "... in legacy mode") after its
# support probe, before it loads its tuners: AB_SETTLE waits for those.
cat >"$DEST/ab.env" <<EOF
# written by bench/ref_build.sh $(date -u '+%Y-%m-%d %H:%M UTC')
REF_COMMIT=$COMMIT
AB_NAME=oracle
AB_CMD="$INST/sbin/bpftune -s"
AB_READY="bpftune works"
AB_SETTLE=\${AB_SETTLE:-10}
EOF
echo "ref_build: $INST/sbin/bpftune ($(find "$INST/lib/bpftune" -name '*.so' | wc -l) tuners); settings in $DEST/ab.env" >&2
