#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The results directory of the checked-out commit, bench/results/<commit>
# (12 hex digits, "-dirty" with local changes): make bench-report writes
# there, and make bench-matrix and make bench-ref leave their guest parts
# there for the report to take up.  Run from the top of the tree.
c="$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)"
git diff --quiet HEAD 2>/dev/null || c="$c-dirty"
echo "bench/results/$c"
