#!/bin/sh
# bench/mdl.sh — MDL probing against the accuracy probe it must stay close to (issue 39 item 1:
# "MDL on one layer costs at most 3x one accuracy probe's training").
#
# UD EWT dev is ingested and encoded once with all-MiniLM-L6-v2, layers LAYERS, token vectors.
# Each round, per layer, interleaved A B:
#   A = synprobe tokprobe --task upos --threads 1 --no-save (the accuracy probe and its control),
#   B = synprobe mdl --task upos --threads 1 --no-save (the online code of the labels and of the
#       control labels).
# Both read the same words and train two logistic regressions' worth of codes, so B/A is the
# per-probe ratio. Times: CPU (user + sys, /usr/bin/time), medians (min–max) over ROUNDS.
# Prints a markdown block for bench/RESULTS.md. Not a test: no assertions.
#   sh bench/mdl.sh
#   env: SP_BUILD (build), SP_DATA (../shared/data), SP_MODELS (models), ROUNDS (3), LAYERS (0,3,6)
set -eu
export LC_ALL=C
cd "$(dirname "$0")/.."
. bench/bench_lib.sh
SP=$(cd "${SP_BUILD:-build}" && pwd)/synprobe
DATA=${SP_DATA:-../shared/data}
MODEL=$(cd "${SP_MODELS:-models}/all-MiniLM-L6-v2" 2>/dev/null && pwd) || { echo "SKIP bench/mdl.sh: no all-MiniLM-L6-v2 (make models)"; exit 0; }
EWT=$DATA/ud-ewt/en_ewt-ud-dev.conllu
ROUNDS=${ROUNDS:-3}
LAYERS=${LAYERS:-0,3,6}
[ -x "$SP" ] || { echo "bench/mdl.sh: $SP not built (make)" >&2; exit 2; }
[ -f "$EWT" ] || { echo "SKIP bench/mdl.sh: $EWT absent"; exit 0; }
[ -x /usr/bin/time ] || { echo "SKIP bench/mdl.sh: /usr/bin/time needed"; exit 0; }
TMP=$(mktemp -d /tmp/sp_bench_mdl.XXXXXX); trap 'rm -rf "$TMP"' EXIT
printf '{"kind": "bert", "model": "%s"}\n' "$MODEL" >"$TMP/minilm.json"
"$SP" ingest --db "$TMP/e.db" --corpus ewt "$EWT" >/dev/null 2>&1
"$SP" encode --db "$TMP/e.db" --corpus ewt --encoder "$TMP/minilm.json" --run m --layers "$LAYERS" --token-vectors --quiet >/dev/null 2>&1
l0=$(load)
cpu() { /usr/bin/time -f '%U %S' -o "$TMP/t" "$@" >/dev/null 2>&1; awk '{ printf "%.2f", $1 + $2 }' "$TMP/t"; }
for L in $(echo "$LAYERS" | tr ',' ' '); do
    : >"$TMP/a$L"; : >"$TMP/b$L"
done
r=1
while [ "$r" -le "$ROUNDS" ]; do
    for L in $(echo "$LAYERS" | tr ',' ' '); do
        cpu "$SP" tokprobe --db "$TMP/e.db" --corpus ewt --run "m-L$L" --threads 1 --no-save >>"$TMP/a$L"; echo >>"$TMP/a$L"
        cpu "$SP" mdl --db "$TMP/e.db" --corpus ewt --run "m-L$L" --threads 1 --no-save >>"$TMP/b$L"; echo >>"$TMP/b$L"
    done
    r=$((r + 1))
done
echo "## mdl (bench/mdl.sh, $(date -u '+%Y-%m-%d %H:%M UTC'); $(machine); load before: $l0, after: $(load))"
echo
echo "UD EWT dev re-split 80/10/10 (20,300 training words), all-MiniLM-L6-v2, UPOS, --threads 1; CPU seconds,"
echo "median (min–max) over $ROUNDS rounds; A = tokprobe (accuracy probe + control), B = mdl (online code + control)."
echo
echo "| layer | A tokprobe CPU s | B mdl CPU s | B/A (floor: at most 3) |"
echo "|---|--:|--:|--:|"
for L in $(echo "$LAYERS" | tr ',' ' '); do
    a=$(stats %.2f <"$TMP/a$L"); b=$(stats %.2f <"$TMP/b$L")
    am=$(echo "$a" | cut -d' ' -f1); bm=$(echo "$b" | cut -d' ' -f1)
    echo "| $L | $am ($(echo "$a" | cut -d' ' -f2)–$(echo "$a" | cut -d' ' -f3)) | $bm ($(echo "$b" | cut -d' ' -f2)–$(echo "$b" | cut -d' ' -f3)) | $(ratio "$bm" "$am") |"
done
