#!/bin/sh
# bench/encode_ab.sh — two builds of the encoder side by side, for before/after figures that a
# busy or drifting machine cannot flatter: the same driver (bench/encode_bench.c, public API only)
# is linked against each build's libraries, then for every config and thread count the two run
# interleaved, A B A B ..., ROUNDS times, on the same sentences. Prints per cell the median and
# min–max of tokens/s (wall) and of tokens per user-CPU-second, the ratio B/A of the medians, and
# the load average before and after. Not a test: no assertions.
#
#   sh bench/encode_ab.sh A_BUILD B_BUILD      build folders made by `make` (lib/libsp_*.a)
#   e.g. before/after a change:
#     git worktree add /tmp/before HEAD~3 && make -C /tmp/before CUDA=0 all
#     sh bench/encode_ab.sh /tmp/before/build build
#   env: SP_DATA (../shared/data), ROUNDS (3), LIMIT (20000 tokens, 0 = all), BUDGET (4096),
#        KINDS ("ms-san san psan"), CORPUS (ptb), THREADS ("1 2")
set -eu
export LC_ALL=C
. "$(dirname "$0")/bench_lib.sh"
[ $# -eq 2 ] || { echo "usage: sh bench/encode_ab.sh A_BUILD B_BUILD" >&2; exit 2; }
A=$1; B=$2
DATA=${SP_DATA:-../shared/data}
ROUNDS=${ROUNDS:-3}; LIMIT=${LIMIT:-20000}; BUDGET=${BUDGET:-4096}
KINDS=${KINDS:-"ms-san san psan"}; CORPUS=${CORPUS:-ptb}; THREADS=${THREADS:-"1 2"}
[ -d "$DATA/ptb-sample" ] || { echo "SKIP bench/encode_ab.sh: $DATA not present"; exit 0; }
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
for side in A B; do
    eval dir=\$$side
    # shellcheck disable=SC2046
    cc -std=c11 -D_GNU_SOURCE -O2 -I. -o "$TMP/drv_$side" bench/encode_bench.c $(bench_libs "$dir") $(bench_ldx)
done

echo "A = $A, B = $B; machine: $(machine)"
echo "corpus $CORPUS, first $LIMIT tokens, length-sorted batches of $BUDGET tokens; $ROUNDS rounds A B A B ...; load before: $(load)"
echo
echo "| kind | threads | A tokens/s median (min–max) | B tokens/s median (min–max) | B/A | A tok/user-s | B tok/user-s | B/A (user) |"
echo "|---|---|---|---|---|---|---|---|"
for k in $KINDS; do
    for th in $THREADS; do
        : >"$TMP/A.w"; : >"$TMP/B.w"; : >"$TMP/A.u"; : >"$TMP/B.u"
        r=0
        while [ $r -lt "$ROUNDS" ]; do
            for side in A B; do
                out=$("$TMP/drv_$side" --data "$DATA" --corpus "$CORPUS" --threads "$th" --budget "$BUDGET" --limit "$LIMIT" encoder/configs/$k.json)
                field "$out" tok_s >>"$TMP/$side.w"
                field "$out" tok_per_user_s >>"$TMP/$side.u"
            done
            r=$((r + 1))
        done
        set -- $(stats <"$TMP/A.w") $(stats <"$TMP/B.w") $(stats <"$TMP/A.u") $(stats <"$TMP/B.u")
        printf "| %s | %s | %s (%s–%s) | %s (%s–%s) | %.3f | %s | %s | %.3f |\n" "$k" "$th" "$1" "$2" "$3" "$4" "$5" "$6" \
            "$(echo "$4 / $1" | bc -l)" "$7" "${10}" "$(echo "${10} / $7" | bc -l)"
    done
done
echo
echo "load after: $(load)"
