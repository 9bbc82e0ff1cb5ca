#!/bin/sh
# bench/leace.sh — LEACE's fit and erasure on N random rows of D floats with K classes (issue 39
# item 2: 100k × 768 under 2 s), by bench/leace_bench.c linked against build/lib/libsp_*.a: the
# fit (means, cross-covariance, the covariance in packed double tiles, the eigendecomposition, the
# map) and the erasure of every row, wall and process CPU seconds, at 1 and 2 threads, and with
# the covariance's AVX2 tile instead of the AVX-512 one where the CPU has both. The load average
# before and after says how much the wall times are worth on a shared machine.
# Prints a markdown block for bench/RESULTS.md. Not a test: no assertions.
#   sh bench/leace.sh
#   env: SP_BUILD (build), N (100000), D (768), K (17)
set -eu
export LC_ALL=C
cd "$(dirname "$0")/.."
BUILD=${SP_BUILD:-build}
N=${N:-100000}; D=${D:-768}; K=${K:-17}
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
cc -std=c11 -D_GNU_SOURCE -O2 -I. -o "$TMP/drv" bench/leace_bench.c "$BUILD/lib/libsp_probes.a" "$BUILD/lib/libsp_common.a" \
    -L/usr/lib/x86_64-linux-gnu/openblas-pthread/ -lopenblas -lpthread -lm
echo "## LEACE, $N × $D, $K classes ($(date -u +%Y-%m-%d), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'))"
echo
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| rows | dim | classes | threads | tile | rank | fit wall s | fit CPU s | erase wall s | erase CPU s | total wall s |"
echo "|---|---|---|---|---|---|--:|--:|--:|--:|--:|"
for th in 1 2; do
    for tile in best avx2; do
        if [ $tile = best ]; then line=$("$TMP/drv" "$N" "$D" "$K" $th); else line=$(SP_ERASE_TILE=avx2 "$TMP/drv" "$N" "$D" "$K" $th); fi
        echo "$line" | sed "s/^| \([0-9]*\) | \([0-9]*\) | \([0-9]*\) | \([0-9]*\) |/| \1 | \2 | \3 | \4 | $tile |/"
    done
done
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
