#!/bin/sh
# bench/bert_ab.sh — two builds of the BERT forward side by side (before/after figures a busy
# machine cannot flatter): bench/bert_bench.c linked against each build's libraries, run
# interleaved A B A B ..., ROUNDS times per thread count, on the same sentences of EWT dev.
# Prints per thread count the median and min–max of pieces/s (wall) and of pieces per user-CPU
# second, and B/A of the medians, with the load average. Not a test: no assertions.
#   sh bench/bert_ab.sh A_BUILD B_BUILD       build folders made by `make` (lib/libsp_*.a)
#   env: SP_DATA (../shared/data), SP_MODELS (models), ROUNDS (5), SENTS (1000), BUDGET (1024), THREADS ("1 2")
set -eu
export LC_ALL=C
. "$(dirname "$0")/bench_lib.sh"
[ $# -eq 2 ] || { echo "usage: sh bench/bert_ab.sh A_BUILD B_BUILD" >&2; exit 2; }
DATA=${SP_DATA:-../shared/data}
MODEL=${SP_MODELS:-models}/all-MiniLM-L6-v2
ROUNDS=${ROUNDS:-5}; SENTS=${SENTS:-1000}; BUDGET=${BUDGET:-1024}; THREADS=${THREADS:-"1 2"}
EWT=$DATA/ud-ewt/en_ewt-ud-dev.conllu
[ -f "$EWT" ] && [ -f "$MODEL/model.safetensors" ] || { echo "SKIP bench/bert_ab.sh: $EWT or $MODEL not present"; exit 0; }
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
A=$1; B=$2
for side in A B; do
    eval dir=\$$side
    # shellcheck disable=SC2046
    cc -std=c11 -D_GNU_SOURCE -O2 -I. $(pkg-config --cflags openblas 2>/dev/null) -o "$TMP/drv_$side" bench/bert_bench.c $(bench_libs "$dir") $(bench_ldx)
done
awk -F'\t' '/^[0-9]+\t/ { s = s (s == "" ? "" : " ") $2; next } /^$/ { if (s != "") print s; s = "" } END { if (s != "") print s }' "$EWT" | head -n "$SENTS" >"$TMP/sents.txt"
echo "A = $1, B = $2; machine: $(machine); MiniLM, first $SENTS sentences of EWT dev, $ROUNDS rounds A B A B ...; load before: $(load)"
echo
echo "| threads | A pieces/s median (min–max) | B pieces/s median (min–max) | B/A | A pieces/user-s | B pieces/user-s | B/A (user) |"
echo "|---|---|---|---|---|---|---|"
for th in $THREADS; do
    : >"$TMP/A.w"; : >"$TMP/B.w"; : >"$TMP/A.u"; : >"$TMP/B.u"
    r=0
    while [ $r -lt "$ROUNDS" ]; do
        for side in A B; do
            out=$("$TMP/drv_$side" encode "$MODEL" "$TMP/sents.txt" --threads "$th" --budget "$BUDGET")
            field "$out" pieces_s >>"$TMP/$side.w"
            field "$out" pieces_user_s >>"$TMP/$side.u"
        done
        r=$((r + 1))
    done
    set -- $(stats <"$TMP/A.w") $(stats <"$TMP/B.w") $(stats <"$TMP/A.u") $(stats <"$TMP/B.u")
    printf "| %s | %s (%s–%s) | %s (%s–%s) | %s | %s | %s | %s |\n" "$th" "$1" "$2" "$3" "$4" "$5" "$6" "$(ratio "$4" "$1")" "$7" "${10}" "$(ratio "${10}" "$7")"
done
echo
echo "load after: $(load)"
