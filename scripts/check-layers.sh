#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The library's layers (CONTRIBUTING.md, "The library's layers"): an area may include the
# headers of, and call functions defined in, its own area and the areas
# below it, never one above.  Lower areas tell higher ones what happens
# through the observer bus (src/lib/core/observer.h) instead.
#
#   daemon     src/bpftune.c, src/daemon/
#   ops        src/lib/ops/          kit  src/lib/kit/   (side by side)
#   telemetry  src/lib/telemetry/
#   write      src/lib/write/        plugin  src/lib/plugin/   (side by side)
#   core       src/lib/core/
#   loader     src/lib/loader/       (BPF objects loaded, kernel support probed)
#   netns      src/lib/netns/        (the netns cache, finding a netns again)
#   base       src/lib/base/         (logging, capabilities)
#   btf        src/lib/btf/          (BTF read in place and minimised: a leaf)
#
# Usage: scripts/check-layers.sh [BUILD_DIR]   (default build)
# Checks the sources' #include "area/..." lines, and, when the objects are
# built, each object's undefined symbols against the areas defining them
# (nm).  Prints every violation and exits 1 if there is one.
set -eu

B=${1:-build}
cd "$(dirname "$0")/.."

# the areas each area must not use
forbidden() {
	case $1 in
	btf) echo "base netns loader core write plugin telemetry kit ops daemon" ;;
	base) echo "btf netns loader core write plugin telemetry kit ops daemon" ;;
	netns) echo "loader core write plugin telemetry kit ops daemon" ;;
	loader) echo "core write plugin telemetry kit ops daemon" ;;
	core) echo "write plugin telemetry kit ops daemon" ;;
	write) echo "plugin telemetry kit ops daemon" ;;
	plugin) echo "write telemetry kit ops daemon" ;;
	telemetry) echo "kit ops daemon" ;;
	kit) echo "ops daemon" ;;
	ops) echo "kit daemon" ;;
	*) echo "" ;;
	esac
}

# the library's areas, lowest first
AREAS="btf base netns loader core write plugin telemetry kit ops"

# Allowed on purpose, with the reason, one file at a time ("source header"
# and "object symbol" pairs): none.  Keep the lists for the day a reason
# is real; say it here.
ALLOWED_INCLUDES=""
ALLOWED_SYMBOLS=""

fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

area_of_src() {
	case $1 in
	src/lib/*/*) echo "$1" | cut -d/ -f3 ;;
	src/bpftune.c|src/daemon/*) echo daemon ;;
	esac
}

# ---- includes --------------------------------------------------------------
for f in src/lib/*/*.c src/lib/*/*.h src/bpftune.c src/daemon/*.c src/daemon/*.h; do
	[ -e "$f" ] || continue
	printf '%s %s %s\n' "$f" "$(area_of_src "$f")" "$(forbidden "$(area_of_src "$f")" | tr ' ' ,)"
done > "$tmp/files"
while read -r f from bad; do
	[ -n "$bad" ] || continue
	awk -v f="$f" -v from="$from" -v bad=",$bad," -v allowed="$ALLOWED_INCLUDES" '
		BEGIN { n = split(allowed, w, " ")
			for (i = 1; i + 1 <= n; i += 2) ok[w[i] " " w[i + 1]] = 1 }
		/^[ \t]*#[ \t]*include[ \t]*"[a-z_]+\// {
			hdr = $0
			sub(/^[^"]*"/, "", hdr); sub(/".*/, "", hdr)
			to = hdr; sub(/\/.*/, "", to)
			if (index(bad, "," to ",") && !((f " " hdr) in ok))
				printf "check-layers: %s (%s) includes %s (%s, a higher area)\n", f, from, hdr, to
		}' "$f"
done < "$tmp/files" > "$tmp/includes"
cat "$tmp/includes"
cat "$tmp/includes" >> "$tmp/fail"

# ---- calls (needs the objects) -------------------------------------------------
if [ -d "$B/obj/lib/core" ]; then
	for a in $AREAS; do
		for o in "$B"/obj/lib/$a/*.o; do
			[ -e "$o" ] || continue
			nm --defined-only -g "$o" | awk -v a="$a" '$2 ~ /[TDBRC]/ { print $3, a }'
		done
	done > "$tmp/defs"
	for o in "$B"/obj/bpftune.o "$B"/obj/daemon/*.o; do
		[ -e "$o" ] || continue
		nm --defined-only -g "$o" | awk '$2 ~ /[TDBRC]/ { print $3, "daemon" }'
	done >> "$tmp/defs"
	for a in $AREAS; do
		for o in "$B"/obj/lib/$a/*.o; do
			[ -e "$o" ] || continue
			nm -u "$o" | awk -v o="$o" -v a="$a" -v bad=" $(forbidden "$a") " \
				'{ print o, a, bad, $2 }'
		done
	done > "$tmp/uses"
	# a symbol defined in the own area or a lower one is fine; one defined
	# only in forbidden areas is an up-call
	awk -v allowed="$ALLOWED_SYMBOLS" '
		BEGIN { n = split(allowed, w, " ")
			for (i = 1; i + 1 <= n; i += 2) ok[w[i] " " w[i + 1]] = 1 }
		FNR == NR { where[$1] = where[$1] " " $2; next }
		{
			sym = $NF; o = $1; a = $2; bad = " "
			for (i = 3; i < NF; i++) bad = bad $i " "
			base = o; sub(/.*\/obj\//, "", base)
			if (!(sym in where) || ((base " " sym) in ok))
				next
			m = split(where[sym], d, " "); up = 1
			for (i = 1; i <= m; i++)
				if (index(bad, " " d[i] " ") == 0)
					up = 0
			if (up)
				printf "check-layers: %s (%s) calls %s, defined in%s (a higher area)\n", o, a, sym, where[sym]
		}' "$tmp/defs" "$tmp/uses" > "$tmp/calls"
	cat "$tmp/calls"
	cat "$tmp/calls" >> "$tmp/fail"
else
	echo "check-layers: $B/obj/lib not built: checked the includes only"
fi

if [ -s "$tmp/fail" ]; then
	echo "check-layers: $(wc -l < "$tmp/fail") violation(s) of the layers (CONTRIBUTING.md, \"The library's layers\")"
	exit 1
fi
echo "check-layers: the layers hold (btf, base < netns < loader < core < write, plugin < telemetry < kit, ops < daemon)"
