#!/bin/sh
# bench/structprobe.sh — trained structural probes on every MiniLM layer against the all-layer
# encode of the same sentences (issue 26 item 1).
#
# The first SENTS sentences of UD EWT dev are ingested once. Each round, interleaved A B C:
#   A = synprobe encode --layers all --token-vectors --threads TH (all-MiniLM-L6-v2, layers 0..6,
#       into a fresh copy of the ingested store),
#   B = synprobe structprobe --run m --layer all --threads TH --no-save (distance and depth probe
#       trained on each of the 7 layer runs, H&M's regimen, full rank 384; 80/10/10 re-split),
#   C = the same as B with --threads 1.
# Times: wall and CPU (user + sys) of each process (/usr/bin/time), medians (min–max) over ROUNDS.
# Prints the ratio of the medians B/A (the issue's floor: at most 1.5) and B's CPU/wall (floor:
# at least 1.6 at 2 threads), C/B (the 2-thread speed-up), and whether B and C printed the same
# figures in every round (they must: the training's bits do not depend on the threads).
# Also the arithmetic that bounds B: multiply-adds of the probes' products (counted from the
# training's steps, as the stored manifest records them) against those of the encode.
#
# Prints a markdown block for bench/RESULTS.md. Not a test: no assertions.
#   sh bench/structprobe.sh
#   env: SP_BUILD (build), SP_DATA (../shared/data), SP_MODELS (models), ROUNDS (3), SENTS (500),
#        TH (2), BENCH_DIR (a folder to keep the stores in; default a temporary one)
set -eu
export LC_ALL=C
[ -z "${BENCH_DIR:-}" ] || { mkdir -p "$BENCH_DIR" && BENCH_DIR=$(cd "$BENCH_DIR" && pwd); }
cd "$(dirname "$0")/.."
. bench/bench_lib.sh
SP=$(cd "${SP_BUILD:-build}" && pwd)/synprobe
DATA=${SP_DATA:-../shared/data}
MODEL=$(cd "${SP_MODELS:-models}/all-MiniLM-L6-v2" 2>/dev/null && pwd) || { echo "SKIP bench/structprobe.sh: no all-MiniLM-L6-v2 (make models)"; exit 0; }
EWT=$DATA/ud-ewt/en_ewt-ud-dev.conllu
ROUNDS=${ROUNDS:-3}
SENTS=${SENTS:-500}
TH=${TH:-2}
[ -x "$SP" ] || { echo "bench/structprobe.sh: $SP not built (make)" >&2; exit 2; }
[ -f "$EWT" ] || { echo "SKIP bench/structprobe.sh: $EWT absent"; exit 0; }
[ -x /usr/bin/time ] || { echo "SKIP bench/structprobe.sh: /usr/bin/time needed"; exit 0; }
TMP=$(mktemp -d /tmp/sp_bench_structprobe.XXXXXX); trap 'rm -rf "$TMP"' EXIT
D=${BENCH_DIR:-$TMP}

# the sentences, the ingested store, the encoder config
awk -v n="$SENTS" 'BEGIN { RS = ""; ORS = "\n\n" } NR <= n' "$EWT" >"$D/ewt.conllu"
printf '{"kind": "bert", "model": "%s", "layer": 6, "word_pool": "mean", "sent_pool": "mean"}\n' "$MODEL" >"$D/minilm.json"
rm -f "$D/base.db" "$D/enc.db"
"$SP" ingest --db "$D/base.db" --corpus ewt "$D/ewt.conllu" >/dev/null 2>&1
# the store the probes read, encoded once
cp "$D/base.db" "$D/enc.db"
"$SP" encode --db "$D/enc.db" --corpus ewt --encoder "$D/minilm.json" --run m --layers all --token-vectors --threads "$TH" \
    --quiet >/dev/null 2>&1

# one timed process: LABEL CMD... -> "wall cpu" appended to $TMP/LABEL.t, stdout to $TMP/LABEL.out.N
n_run=0
timed() {
    label=$1; shift
    n_run=$((n_run + 1))
    /usr/bin/time -f '%e %U %S' -o "$TMP/time" "$@" >"$TMP/$label.out.$n_run" 2>"$TMP/$label.err" || {
        echo "bench/structprobe.sh: $label failed:" >&2; tail -5 "$TMP/$label.err" >&2; exit 1; }
    awk '{ printf "%.3f %.3f\n", $1, $2 + $3 }' "$TMP/time" >>"$TMP/$label.t"
}

echo "### structural probes on every MiniLM layer vs the all-layer encode (bench/structprobe.sh) — $(date -u '+%Y-%m-%d %H:%M UTC')"
echo
echo "machine: $(machine); load before: $(load)"
n_words=$(awk -F'\t' 'NF >= 10 && $1 ~ /^[0-9]+$/' "$D/ewt.conllu" | wc -l)
echo "data: the first $SENTS sentences of UD EWT dev ($n_words words); all-MiniLM-L6-v2, layers 0..6; $ROUNDS rounds A B C interleaved"
echo

r=0
while [ "$r" -lt "$ROUNDS" ]; do
    cp "$D/base.db" "$TMP/a.db"
    timed A "$SP" encode --db "$TMP/a.db" --corpus ewt --encoder "$D/minilm.json" --run m --layers all --token-vectors \
        --threads "$TH" --quiet
    rm -f "$TMP/a.db"
    timed B "$SP" structprobe --db "$D/enc.db" --corpus ewt --run m --layer all --threads "$TH" --no-save
    timed C "$SP" structprobe --db "$D/enc.db" --corpus ewt --run m --layer all --threads 1 --no-save
    r=$((r + 1))
done

# LABEL -> "wall_med wall_min wall_max cpu_med cpu_min cpu_max util_med"
summ() {
    # shellcheck disable=SC2046
    set -- $(cut -d' ' -f1 "$TMP/$1.t" | stats %.2f) $(cut -d' ' -f2 "$TMP/$1.t" | stats %.2f) \
        $(awk '{ printf "%.3f\n", $2 / $1 }' "$TMP/$1.t" | stats %.2f)
    echo "$1 $2 $3 $4 $5 $6 $7"
}
row() {
    # shellcheck disable=SC2046
    set -- "$1" $(summ "$2")
    printf '| %s | %s (%s–%s) | %s (%s–%s) | %s |\n' "$1" "$2" "$3" "$4" "$5" "$6" "$7" "$8"
}
echo "| step | wall s median (min–max) | CPU s median (min–max) | CPU/wall median |"
echo "|---|---|---|---|"
row "A: encode --layers all --token-vectors --threads $TH" A
row "B: structprobe --layer all --threads $TH" B
row "C: structprobe --layer all --threads 1" C
echo
# shellcheck disable=SC2046
set -- $(summ A) $(summ B) $(summ C)
wa=$1; wb=$8; wc=${15}; ub=${14}
rb=$(ratio "$wb" "$wa")
echo "- B/A (median walls): ${rb}x; floor <= 1.5x: $(awk -v r="$rb" 'BEGIN { print (r + 0 <= 1.5) ? "met" : "MISSED" }')"
echo "- B's CPU/wall (median): $ub; floor >= 1.6 at 2 threads: $(floor_met "$ub" 1.6)"
echo "- C/B (median walls), the speed-up of --threads $TH: $(ratio "$wc" "$wb")x"
if [ "$(cat "$TMP"/B.out.* "$TMP"/C.out.* | sort | uniq -c | awk '{ print $1 }' | sort -u | wc -l)" -eq 1 ]; then
    echo "- B and C printed the same figures in every round (UUAS, DSpr, root accuracy, NSpr of each layer)"
else
    echo "- B and C printed DIFFERENT figures:"; for f in "$TMP"/B.out.* "$TMP"/C.out.*; do echo "  $f"; sed 's/^/    /' "$f"; done
fi
# the work: per layer, the probes' steps (from one stored run of layer 3) x 2 products of rows x 384 x 384
cp "$D/enc.db" "$TMP/w.db"
"$SP" structprobe --db "$TMP/w.db" --corpus ewt --run m-L3 --threads "$TH" >/dev/null 2>&1
sqlite3 "$TMP/w.db" "select result from tree_eval" | /usr/bin/python3 -c "
import json, sys
t = json.loads(sys.stdin.readline())['manifest']['source']['training']
print(t['train'], t['dev'], t['distance']['steps'], t['depth']['steps'], t['distance']['epochs'], t['depth']['epochs'])" >"$TMP/steps"
read -r ntr ndv sd sp ed ep <"$TMP/steps"
# multiply-adds: each epoch, every training word twice (T = X·proj, grad = Xᵀ·M) and every dev word once, x 384 x 384;
# the encode: at least one piece per word x MiniLM's 6 layers x (4·384² + 2·384·1536) weights
awk -v ntr="$ntr" -v ndv="$ndv" -v ed="$ed" -v ep="$ep" -v w="$n_words" -v s="$SENTS" 'BEGIN {
    avg = w / s; probe = (ed + ep) * (2 * ntr + ndv) * avg * 384 * 384; enc = w * 6 * (4 * 384 * 384 + 2 * 384 * 1536)
    printf "- work, layer 3: %d training and %d dev sentences; distance probe %d epochs, depth %d; about %.0f GFLOP in the probes'"'"' products (2 per step over the batch'"'"'s words, 384 x 384, plus dev), against %.0f GFLOP in the encode'"'"'s weight products for all 7 layers if it made one piece per word (it makes more, so this undercounts the encode): the 7 layers'"'"' probes are at most %.1fx the encode'"'"'s arithmetic\n", ntr, ndv, ed, ep, 2 * probe / 1e9, 2 * enc / 1e9, 7 * probe / enc }'
echo
echo "load after: $(load)"
echo
echo "B's figures (round 1):"
echo
sed 's/^/    /' "$(ls "$TMP"/B.out.* | head -n1)"
