#!/bin/sh
# Sums the counts tests/run_unit.sh and tests/run_cli.sh appended to $1 (lines ending in
# "passed failed skipped") into the one final line `N passed, N failed, N skipped`; fails when
# anything failed or nothing was counted.
f=$1
[ -s "$f" ] || { echo "0 passed, 1 failed, 0 skipped"; echo "(no counts in $f)" >&2; exit 1; }
awk '{ p += $(NF-2); x += $(NF-1); s += $NF } END { printf "%d passed, %d failed, %d skipped\n", p, x, s; exit (x > 0) }' "$f"
