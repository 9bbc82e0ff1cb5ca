#!/bin/sh
# bench/probe.sh — the SentEval probing protocol (senteval-default: l2 grid 1e-5..1e-2, adam,
# batch 64, epoch_size 4, tenacity 5, max_epoch 200) on a synthetic 7-class task
# (bench/gen_probe_data.py: BENCH_NTRAIN x BENCH_DIM train rows, a tenth of that for dev and for
# test), with logreg and with one MLP cell (nhid BENCH_NHID, dropout BENCH_DROPOUT), no control task.
#
# Part 1, synprobe vs SentEval's own code: for each classifier, A = `synprobe probe --threads 1`,
# B = bench/peer_senteval.py, a thin driver around SentEval's senteval/probing.py (loader),
# senteval/tools/validation.py (SplitClassifier: the l2 grid, selection, its re-fit) and
# senteval/tools/classifier.py (MLP), torch on 1 thread, on the same .npy; ROUNDS rounds A B A B.
# SentEval re-fits the chosen l2 once more (5 fits), synprobe keeps the selected fit's model
# (4 fits, docs/spec/probing.md §1.5): wall time compares the protocol as each runs it, example-passes/s
# (training rows x passes over every fit, over the protocol time each side reports, startup and
# loading excluded) compares the training speed. Accuracies (dev and test) must agree within 3
# binomial standard errors of the split, 300*sqrt(p(1-p)/n) points: the two sides draw initial
# weights, shuffles and dropout masks from different RNGs, so they train different models of the
# same quality, and their accuracies differ by seed noise only. Measured with synprobe over 8 seeds
# (10,000 x 200 train, 1,000 test rows) that noise is 0.2-0.5 points s.d. (<= 0.55 s.e.), so the
# difference of two seeds has s.d. <= 0.8 s.e.: 3 s.e. is about 4 s.d., while a side that trains
# or selects wrongly is off by far more. The chosen l2 is printed, not checked (neighbouring l2
# values often tie within that noise).
# Part 2, threads: `probe --threads 2` vs `--threads 1`, interleaved, ROUNDS rounds, both
# classifiers; the issue's floor is >= 1.6x on the MLP; the results must be identical.
#
# Prints a markdown block (heading with the UTC time, machine, load before/after, tables, checks)
# to paste into bench/RESULTS.md. Not a test: no assertions. The default size (20,000 train rows,
# 3 rounds) keeps a full run at about 5 minutes on the project's 2-core VM when it is quiet (one
# round at 25,000 rows took 5.8 minutes with the load at 3-6); the SentEval peer's MLP is most of
# it. BENCH_NTRAIN=100000 is the size of the released SentEval tasks (about 5x longer).
#   SENTEVAL_DIR=/path/to/SentEval sh bench/probe.sh
#   env: SENTEVAL_DIR (the folder containing the `senteval` package; unset: the peer is skipped),
#        ROUNDS (3), BENCH_NTRAIN (20000), BENCH_DIM (600), BENCH_NHID (50), BENCH_DROPOUT (0.1),
#        BENCH_CLASSIFIERS ("logreg mlp"), BENCH_THREADS (2; compared with 1; 0 skips part 2),
#        BENCH_DIR (data folder, kept and reused; default a temporary one), SP_BUILD (build)
set -eu
export LC_ALL=C
# paths given relative to the caller's folder
[ -z "${SENTEVAL_DIR:-}" ] || [ ! -d "$SENTEVAL_DIR" ] || SENTEVAL_DIR=$(cd "$SENTEVAL_DIR" && pwd)
[ -z "${BENCH_DIR:-}" ] || { mkdir -p "$BENCH_DIR" && BENCH_DIR=$(cd "$BENCH_DIR" && pwd); }
cd "$(dirname "$0")/.."
SP=$(cd "${SP_BUILD:-build}" && pwd)/synprobe
PY=/usr/bin/python3
ROUNDS=${ROUNDS:-3}
NTR=${BENCH_NTRAIN:-20000}
DIM=${BENCH_DIM:-600}
NHID=${BENCH_NHID:-50}
DROP=${BENCH_DROPOUT:-0.1}
CLFS=${BENCH_CLASSIFIERS:-logreg mlp}
TH=${BENCH_THREADS:-2}
NDV=$((NTR / 10))
[ -x "$SP" ] || { echo "bench/probe.sh: $SP not built (make)" >&2; exit 2; }
if ! $PY -c 'import numpy' 2>/dev/null; then echo "SKIP bench/probe.sh: /usr/bin/python3 with numpy needed to make the data"; exit 0; fi
TMP=$(mktemp -d /tmp/sp_bench_probe.XXXXXX); trap 'rm -rf "$TMP"' EXIT
D=${BENCH_DIR:-$TMP/data}
[ -f "$D/X.npy" ] || $PY bench/gen_probe_data.py "$D" "$NTR" "$NDV" "$NDV" "$DIM" 7 7 3.0

# the peer: SentEval's own code, or one line saying what is missing
peer=""
if [ -z "${SENTEVAL_DIR:-}" ]; then
    peer="SentEval peer: skipped, SENTEVAL_DIR not set (git clone https://github.com/facebookresearch/SentEval; SENTEVAL_DIR=that folder sh bench/probe.sh)"
elif [ ! -f "$SENTEVAL_DIR/senteval/tools/classifier.py" ]; then
    peer="SentEval peer: skipped, $SENTEVAL_DIR/senteval/tools/classifier.py not found (SENTEVAL_DIR must be the folder containing the senteval package)"
elif ! $PY -c 'import torch' 2>/dev/null; then
    peer="SentEval peer: skipped, /usr/bin/python3 cannot import torch (apt install python3-torch)"
fi

now() { date +%s.%N; }
# median, min, max of the numbers on stdin, in printf format $1
stats() { sort -g | awk -v f="$1" '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf f " " f " " f, m, v[1], v[NR] }'; }
# one JSON result -> "rate dev test l2 fits passes" (rate: example-passes per protocol second)
summary() { $PY - "$1" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
l2 = r["chosen"]["l2reg"] if "chosen" in r else r["l2reg"]
passes = sum(g["passes"] for g in r["grid"])
print("%.0f %.2f %.2f %g %d %d" % (r["example_passes"] / r["seconds"], r["devacc"], r["acc"], l2, len(r["grid"]), passes))
EOF
}
# one run: SIDE CLASSIFIER THREADS OUTPREFIX -> OUTPREFIX.json, wall seconds appended to OUTPREFIX.wall
run_side() {
    extra=""
    [ "$2" = mlp ] && extra="--nhid $NHID --dropout $DROP"
    t0=$(now)
    if [ "$1" = peer ]; then
        OMP_NUM_THREADS=$3 OPENBLAS_NUM_THREADS=$3 MKL_NUM_THREADS=$3 $PY bench/peer_senteval.py --task-file "$D/task.txt" \
            --vectors "$D/X.npy" --classifier "$2" --nhid "$NHID" --dropout "$DROP" --threads "$3" >"$4.json"
    else
        # shellcheck disable=SC2086
        "$SP" probe --task-file "$D/task.txt" --vectors "$D/X.npy" --classifier "$2" $extra --threads "$3" \
            --no-control --json --quiet >"$4.json"
    fi
    t1=$(now)
    echo "$t1 - $t0" | bc -l >>"$4.wall"
    summary "$4.json" >>"$4.sum"
}
# ROW LABEL PREFIX: a table row from the rounds of one side; the same results in every round?
row() {
    # shellcheck disable=SC2046
    set -- "$1" "$2" $(stats '%.2f' <"$2.wall") $(cut -d' ' -f1 "$2.sum" | stats '%.0f') $(tail -n1 "$2.sum")
    printf '| %s | %s (%s–%s) | %s (%s–%s) | %s | %s | %s | %s | %s |\n' "$1" "$3" "$4" "$5" "$6" "$7" "$8" "${13}" "${14}" "${10}" "${11}" "${12}"
}
same_rounds() { [ "$(cut -d' ' -f2- "$1.sum" | sort -u | wc -l)" -eq 1 ]; }
med() { stats "$2" <"$1" | cut -d' ' -f1; }

cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')
echo "### probe (bench/probe.sh) — $(date -u '+%Y-%m-%d %H:%M UTC')"
echo
echo "machine: $(nproc) CPUs, $cpu; OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-(unset)}; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "data: synthetic 7 classes (bench/gen_probe_data.py, seed 7), ${NTR}x${DIM} train, $NDV dev, $NDV test;" \
    "senteval-default, l2 grid {1e-5, 1e-4, 1e-3, 1e-2}; mlp = one cell, nhid $NHID dropout $DROP; no control task; $ROUNDS rounds"
echo

if [ -z "$peer" ]; then
    echo "A = synprobe probe --threads 1 (4 fits, keeps the selected one), B = SentEval's SplitClassifier + MLP ($SENTEVAL_DIR), torch 1 thread, CPU (4 fits + its re-fit); interleaved A B A B"
    echo
    echo "| classifier / side | wall s median (min–max) | example-passes/s median (min–max) | fits | passes | dev | test | l2 |"
    echo "|---|---|---|---|---|---|---|---|"
    for clf in $CLFS; do
        r=0
        while [ "$r" -lt "$ROUNDS" ]; do
            run_side synprobe "$clf" 1 "$TMP/A_$clf"
            run_side peer "$clf" 1 "$TMP/B_$clf"
            r=$((r + 1))
        done
        row "$clf A synprobe" "$TMP/A_$clf"
        row "$clf B SentEval" "$TMP/B_$clf"
    done
    echo
    for clf in $CLFS; do
        wa=$(med "$TMP/A_$clf.wall" %.4f); wb=$(med "$TMP/B_$clf.wall" %.4f)
        ra=$(cut -d' ' -f1 "$TMP/A_$clf.sum" | stats %.0f | cut -d' ' -f1)
        rb=$(cut -d' ' -f1 "$TMP/B_$clf.sum" | stats %.0f | cut -d' ' -f1)
        # shellcheck disable=SC2046
        set -- $(tail -n1 "$TMP/A_$clf.sum") $(tail -n1 "$TMP/B_$clf.sum")
        # $2 $3: A dev test; $8 $9: B dev test
        chk=$(awk -v da="$2" -v ta="$3" -v db="$8" -v tb="$9" -v n="$NDV" 'BEGIN {
            pd = (da + db) / 200; pt = (ta + tb) / 200
            tol_d = 300 * sqrt(pd * (1 - pd) / n); tol_t = 300 * sqrt(pt * (1 - pt) / n)
            dd = da - db; dt = ta - tb
            ok = (dd <= tol_d && -dd <= tol_d && dt <= tol_t && -dt <= tol_t)
            printf "dev A - B = %+.2f (tolerance %.2f), test A - B = %+.2f (tolerance %.2f) -> %s", dd, tol_d, dt, tol_t, ok ? "agree" : "DISAGREE" }')
        printf -- '- %s: ratio of medians: wall B/A = %.2fx, example-passes/s A/B = %.2fx; accuracy check (3 binomial s.e. of %d rows): %s; l2 A %s, B %s\n' \
            "$clf" "$(echo "$wb / $wa" | bc -l)" "$(echo "$ra / $rb" | bc -l)" "$NDV" "$chk" "$4" "${10}"
        for s in A B; do
            same_rounds "$TMP/${s}_$clf" || echo "- $clf $s: results differ between rounds: $(cut -d' ' -f2- "$TMP/${s}_$clf.sum" | sort -u | tr '\n' ';')"
        done
    done
else
    echo "$peer"
fi

if [ "$TH" != 0 ]; then
    echo
    echo "threads: synprobe probe --threads $TH vs --threads 1, interleaved (1 $TH 1 $TH ...)"
    echo
    echo "| classifier / threads | wall s median (min–max) | example-passes/s median (min–max) | fits | passes | dev | test | l2 |"
    echo "|---|---|---|---|---|---|---|---|"
    for clf in $CLFS; do
        r=0
        while [ "$r" -lt "$ROUNDS" ]; do
            run_side synprobe "$clf" 1 "$TMP/T1_$clf"
            run_side synprobe "$clf" "$TH" "$TMP/T${TH}_$clf"
            r=$((r + 1))
        done
        row "$clf --threads 1" "$TMP/T1_$clf"
        row "$clf --threads $TH" "$TMP/T${TH}_$clf"
    done
    echo
    for clf in $CLFS; do
        w1=$(med "$TMP/T1_$clf.wall" %.4f); wt=$(med "$TMP/T${TH}_$clf.wall" %.4f)
        sp=$(echo "$w1 / $wt" | bc -l)
        floor=""
        [ "$clf" = mlp ] && [ "$TH" = 2 ] && floor=$(awk -v s="$sp" 'BEGIN { print (s >= 1.6 ? "; floor >= 1.6x: met" : "; floor >= 1.6x: NOT met") }')
        if [ "$(cut -d' ' -f2- "$TMP/T1_$clf.sum" "$TMP/T${TH}_$clf.sum" | sort -u | wc -l)" -eq 1 ]; then
            same="identical results at 1 and $TH threads in every round ($(tail -n1 "$TMP/T1_$clf.sum" | cut -d' ' -f2-4 | awk '{ printf "dev %s, test %s, l2 %s", $1, $2, $3 }'))"
        else
            same="results DIFFER: 1 thread: $(cut -d' ' -f2- "$TMP/T1_$clf.sum" | sort -u | tr '\n' ';') $TH threads: $(cut -d' ' -f2- "$TMP/T${TH}_$clf.sum" | sort -u | tr '\n' ';')"
        fi
        printf -- '- %s: speed-up, ratio of median walls --threads 1 / --threads %s = %.2fx%s; %s\n' "$clf" "$TH" "$sp" "$floor" "$same"
    done
fi
echo
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
