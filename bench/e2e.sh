#!/bin/sh
# bench/e2e.sh — the researcher's whole job (issue 26 item 2): on the first N sentences of UD EWT
# dev, ingest the treebank, encode it with MiniLM keeping every layer (embeddings + 6), train
# Hewitt & Manning's distance and depth probes on every layer, UPOS and DEPREL token probes with
# their control tasks on every layer, and the SentEval-style sentence tasks the corpus gives, on
# every layer; done two ways, each in a fresh folder, interleaved A B A B ... ROUNDS times:
#   A  synprobe, the commands a user types: ingest; tasks build --split resplit; encode --layers
#      all --token-vectors (the corpus) and encode --layers all (the task items); structprobe
#      --layer all; tokprobe --layer all --task upos, --task deprel; probe --task ... --layer all
#      --no-control
#   B  the same work in Python as a researcher writes it (bench/peer_e2e.py, one script per
#      step, each a process of its own): own CoNLL-U reader + tree distances (pickle); HF
#      `tokenizers` + the PyTorch MiniLM forward of bench/peer_bert.py + mean word pooling +
#      HDF5 (h5py); the probes in PyTorch with the same epochs, ranks, batch sizes and stopping
#      rules (H&M's regimen with the Gram-form distances; SentEval's classifier protocol for the
#      token probes and the sentence tasks). The task files are given to B as SentEval
#      distributes its data (`synprobe tasks export`, before the rounds, untimed); A builds them
#      inside its timed "tasks" step.
# Steps timed from the shell (a step's wall = its processes' walls, startup and imports
# included): ingest, encode, structprobe, tokprobe, tasks; the table gives median (min–max) per
# side, the ratio B/A of the medians and the issue's floor (whole job >= 6x). Both sides compute
# the same things on the same sentences (the same 80/10/10 split, seed 1): the script prints the
# largest difference between B's word vectors and synprobe's (`export --what tokens`) and, per
# layer, UUAS / root accuracy / UPOS / DEPREL / mean task accuracy of both sides (the probes draw
# from different RNGs, so these agree up to seed noise, not to the bit). Not a test: no assertions.
#
#   sh bench/e2e.sh
#   env: BENCH_N (500 sentences, at most 2001), ROUNDS (3), BENCH_THREADS (2: OPENBLAS/OMP/MKL
#        threads of both sides and synprobe's --threads), PEER_TORCH_THREADS (torch intra-op
#        threads of B; default 1: with OpenBLAS at 2 threads, torch at 2 intra-op threads made
#        B's encode 4x slower on the 2-core VM, 41 s vs 9.9 s, 2026-11-28), SP_DATA
#        (../shared/data), SP_MODELS (models; needs all-MiniLM-L6-v2: make models), SP_BUILD
#        (build), PEER_PY (the Python of B; default build/e2e-venv/bin/python when present,
#        else /usr/bin/python3), KEEP=1 keeps the work folder.
# B needs torch + numpy (Debian python3-torch), h5py (apt-get install python3-h5py) and HF
# tokenizers (not in Debian 12: /usr/bin/python3 -m venv --system-site-packages build/e2e-venv &&
# build/e2e-venv/bin/pip install tokenizers); without one of them B is skipped with a SKIP line
# and A alone is timed.
set -eu
export LC_ALL=C
DATA=$(cd "${SP_DATA:-../shared/data}" 2>/dev/null && pwd) || { echo "SKIP bench/e2e.sh: ${SP_DATA:-../shared/data} not present"; exit 0; }
[ -z "${SP_MODELS:-}" ] || SP_MODELS=$(cd "$SP_MODELS" && pwd)
cd "$(dirname "$0")/.."
. bench/bench_lib.sh
SP=$(cd "${SP_BUILD:-build}" && pwd)/synprobe
MODEL=$(cd "${SP_MODELS:-models}/all-MiniLM-L6-v2" 2>/dev/null && pwd) || { echo "SKIP bench/e2e.sh: ${SP_MODELS:-models}/all-MiniLM-L6-v2 not present (make models)"; exit 0; }
N=${BENCH_N:-500}
ROUNDS=${ROUNDS:-3}
TH=${BENCH_THREADS:-2}
PTT=${PEER_TORCH_THREADS:-1}
EWT=$DATA/ud-ewt/en_ewt-ud-dev.conllu
[ -x "$SP" ] || { echo "bench/e2e.sh: $SP not built (make)" >&2; exit 2; }
[ -f "$EWT" ] || { echo "SKIP bench/e2e.sh: $EWT not present"; exit 0; }
if [ -n "${PEER_PY:-}" ]; then PY=$PEER_PY
elif [ -x build/e2e-venv/bin/python ]; then PY=$(pwd)/build/e2e-venv/bin/python
else PY=/usr/bin/python3; fi
PEER=$(pwd)/bench/peer_e2e.py
export OPENBLAS_NUM_THREADS="$TH" OMP_NUM_THREADS="$TH" MKL_NUM_THREADS="$TH"
TMP=$(mktemp -d /tmp/sp_bench_e2e.XXXXXX); trap '[ -n "${KEEP:-}" ] || rm -rf "$TMP"' EXIT

# B's dependencies, each missing one named
skip_b=""
for m in numpy torch h5py tokenizers; do
    "$PY" -c "import $m" 2>/dev/null || skip_b="$skip_b $m"
done
[ -z "$skip_b" ] || echo "SKIP the Python side (B): $PY cannot import:$skip_b (see the header of bench/e2e.sh)"

# the data: the first N sentences, the encoder config with the model's absolute path
awk -v n="$N" 'BEGIN { RS = ""; ORS = "\n\n" } NR <= n' "$EWT" >"$TMP/ewt.conllu"
printf '{"kind": "bert", "model": "%s"}\n' "$MODEL" >"$TMP/minilm.json"
# the tasks the corpus gives with train, dev and test items (the protocol needs all three)
mkdir -p "$TMP/prep" "$TMP/tasks"
"$SP" ingest --db "$TMP/prep/s.db" --corpus ewt "$TMP/ewt.conllu" --quiet >/dev/null
"$SP" tasks build --db "$TMP/prep/s.db" --corpus ewt --split resplit --seed 1 --quiet >/dev/null 2>&1
TASKS=$("$SP" tasks list --db "$TMP/prep/s.db" | awk 'NF == 5 && $3 > 0 && $4 > 0 && $5 > 0 && $3 ~ /^[0-9]+$/ { print $1 }' | paste -sd, -)
[ -n "$TASKS" ] || { echo "bench/e2e.sh: no task with train, dev and test items on $N sentences" >&2; exit 2; }
for t in $(echo "$TASKS" | tr , ' '); do "$SP" tasks export --db "$TMP/prep/s.db" --name "$t" --out "$TMP/tasks/$t.txt"; done
n_sent=$(grep -c '^# sent_id' "$TMP/ewt.conllu" || true)
# --threads where the probe commands have it (main may not have it yet)
thr() { if "$SP" "$1" --help 2>/dev/null | grep -q -- '--threads'; then echo "--threads $TH"; fi; }
SP_THR=$(thr structprobe); TP_THR=$(thr tokprobe)

now() { date +%s.%N; }
# CMD...: run CMD, its messages to the round folder's log (shown, and the script stopped, if it fails)
q() { "$@" 2>>log.txt || { echo "bench/e2e.sh: failed: $*" >&2; cat log.txt >&2; exit 1; }; }
STEPS="ingest encode structprobe tokprobe tasks"
# STEP SIDE R CMD...: run CMD in the side's folder, add its wall seconds to the step's file
t_begin() { T0=$(now); }
t_end() { echo "$(now) - $T0" | bc -l >>"$TMP/$2.$1.part$3"; }
record() {  # SIDE R: each step's parts summed into SIDE.STEP, the round's total into SIDE.total,
            # ingest + encode + structprobe (the job the issue measured) into SIDE.scope
    tot=0; scope=0
    for s in $STEPS; do
        v=$(awk '{ s += $1 } END { printf "%.4f", s }' "$TMP/$1.$s.part$2")
        echo "$v" >>"$TMP/$1.$s"; tot=$(echo "$tot + $v" | bc -l)
        case $s in ingest|encode|structprobe) scope=$(echo "$scope + $v" | bc -l) ;; esac
    done
    echo "$tot" >>"$TMP/$1.total"
    echo "$scope" >>"$TMP/$1.scope"
}
side_a() {  # R
    d=$TMP/A$1; mkdir -p "$d"; cd "$d"
    t_begin; q "$SP" ingest --db s.db --corpus ewt "$TMP/ewt.conllu" --quiet >/dev/null; t_end ingest A "$1"
    t_begin; q "$SP" tasks build --db s.db --corpus ewt --split resplit --seed 1 --quiet >/dev/null; t_end tasks A "$1"
    t_begin
    q "$SP" encode --db s.db --corpus ewt --encoder "$TMP/minilm.json" --run m --layers all --token-vectors --threads "$TH" --quiet
    q "$SP" encode --db s.db --task "$TASKS" --encoder "$TMP/minilm.json" --run t --layers all --threads "$TH" --quiet
    t_end encode A "$1"
    # shellcheck disable=SC2086
    { t_begin; q "$SP" structprobe --db s.db --corpus ewt --run m --layer all $SP_THR --json --quiet >sp.json; t_end structprobe A "$1"; }
    t_begin
    # shellcheck disable=SC2086
    q "$SP" tokprobe --db s.db --corpus ewt --run m --layer all --task upos $TP_THR --json --quiet >upos.json
    # shellcheck disable=SC2086
    q "$SP" tokprobe --db s.db --corpus ewt --run m --layer all --task deprel $TP_THR --json --quiet >deprel.json
    t_end tokprobe A "$1"
    t_begin; q "$SP" probe --db s.db --task "$TASKS" --run t --layer all --no-control --threads "$TH" --json --quiet >tasks.json; t_end tasks A "$1"
    cd - >/dev/null
}
side_b() {  # R
    d=$TMP/B$1; mkdir -p "$d"; cd "$d"
    o="--threads $TH --torch-threads $PTT"
    # shellcheck disable=SC2086
    { t_begin; q "$PY" "$PEER" ingest "$TMP/ewt.conllu" ing.pkl $o >>steps.log; t_end ingest B "$1"; }
    # shellcheck disable=SC2086
    { t_begin; q "$PY" "$PEER" encode ing.pkl "$TMP/tasks" "$MODEL" vec.h5 $o >>steps.log; t_end encode B "$1"; }
    # shellcheck disable=SC2086
    { t_begin; q "$PY" "$PEER" structprobe ing.pkl vec.h5 sp.json $o >>steps.log; t_end structprobe B "$1"; }
    # shellcheck disable=SC2086
    { t_begin; q "$PY" "$PEER" tokprobe ing.pkl vec.h5 tok.json $o >>steps.log; t_end tokprobe B "$1"; }
    # shellcheck disable=SC2086
    { t_begin; q "$PY" "$PEER" tasks "$TMP/tasks" vec.h5 tasks.json $o >>steps.log; t_end tasks B "$1"; }
    cd - >/dev/null
}

echo "### e2e (bench/e2e.sh) — $(date -u '+%Y-%m-%d %H:%M UTC')"
echo
echo "machine: $(machine); load before: $(load)"
echo "job: the first $n_sent sentences of EWT dev; MiniLM (all-MiniLM-L6-v2) all 7 layers; on every layer distance + depth probes (rank 384, batch 20, <= 40 epochs),"
echo "UPOS + DEPREL token probes with control tasks, sentence tasks $TASKS (logreg, l2 grid of 4); 80/10/10 re-split, seed 1"
echo "threads: OPENBLAS/OMP/MKL_NUM_THREADS=$TH on both sides; A: --threads $TH (encode, probe${SP_THR:+, structprobe}${TP_THR:+, tokprobe}); B: torch intra-op $PTT; $ROUNDS rounds A B A B ..."
[ -n "$skip_b" ] || echo "B: $("$PY" -c 'import sys, torch, tokenizers, h5py, numpy; print("Python %d.%d, torch %s, tokenizers %s, h5py %s, numpy %s" % (sys.version_info[:2] + (torch.__version__, tokenizers.__version__, h5py.__version__, numpy.__version__)))')"
if [ -z "$skip_b" ]; then
    t_begin; "$PY" -c 'import torch, h5py, tokenizers, numpy' ; imp=$(echo "$(now) - $T0" | bc -l)
    printf 'B: interpreter start + imports (torch, h5py, tokenizers) %.2f s a process, 5 processes a round (in B'"'"'s figures)\n' "$imp"
fi
echo
r=0
while [ "$r" -lt "$ROUNDS" ]; do
    side_a "$r"; record A "$r"
    if [ -z "$skip_b" ]; then side_b "$r"; record B "$r"; fi
    r=$((r + 1))
done

label() { case $1 in total) echo "**total**" ;; scope) echo "ingest + encode + structprobe (the issue's 2.3x job)" ;; *) echo "$1" ;; esac; }
echo "| step | A synprobe: s median (min–max) | B Python: s median (min–max) | B/A |"
echo "|---|---|---|---|"
for s in $STEPS total scope; do
    # shellcheck disable=SC2046
    set -- $(stats %.2f <"$TMP/A.$s")
    if [ -z "$skip_b" ]; then
        # shellcheck disable=SC2046
        set -- "$@" $(stats %.2f <"$TMP/B.$s")
        printf '| %s | %s (%s–%s) | %s (%s–%s) | %s |\n' "$(label "$s")" "$1" "$2" "$3" "$4" "$5" "$6" "$(ratio "$4" "$1")"
    else
        printf '| %s | %s (%s–%s) | – | – |\n' "$(label "$s")" "$1" "$2" "$3"
    fi
done
echo
last=$((ROUNDS - 1))
if [ -z "$skip_b" ]; then
    a=$(stats %.4f <"$TMP/A.total" | cut -d' ' -f1); b=$(stats %.4f <"$TMP/B.total" | cut -d' ' -f1)
    echo "whole job: B/A = $(ratio "$b" "$a")x (the issue's floor: >= 6x: $(floor_met "$(ratio "$b" "$a")" 6))"
    # the same vectors? B's word vectors against synprobe's, every layer, every word
    (cd "$TMP/A$last" && "$SP" export --db s.db --run m --layers all --what tokens --format npy --out tok.npy --quiet 2>/dev/null)
    echo "same vectors: $("$PY" "$PEER" check "$TMP/B$last/ing.pkl" "$TMP/B$last/vec.h5" "$TMP/A$last/tok.npy" | sed 's/^STEP check seconds=[0-9.]* threads=[0-9]* //') (B's word vectors vs synprobe export --what tokens, all layers)"
    echo
    echo "the same work, round $ROUNDS, test partition (probes seeded differently on the two sides: equal up to seed noise):"
    echo
    "$PY" - "$TMP/A$last" "$TMP/B$last" <<'EOF'
import json, sys
A, B = sys.argv[1], sys.argv[2]
sa, sb = json.load(open(A + "/sp.json")), json.load(open(B + "/sp.json"))
ua, da = json.load(open(A + "/upos.json")), json.load(open(A + "/deprel.json"))
tb = json.load(open(B + "/tok.json"))
ta, tsb = json.load(open(A + "/tasks.json")), json.load(open(B + "/tasks.json"))
tokb = {(r["layer"], r["label"]): r for r in tb}
def mean(xs):
    return sum(xs) / len(xs) if xs else float("nan")
print("| layer | UUAS A / B | root % A / B | UPOS A / B (control) | DEPREL A / B (control) | tasks mean acc A / B |")
print("|---|---|---|---|---|---|")
for L in range(len(sa)):
    a, b = sa[L], sb[L]
    up, dp = ua[L], da[L]
    bu, bd = tokb[(L, "upos")], tokb[(L, "deprel")]
    tma = mean([r["acc"] for r in ta if r["layer"] == L])
    tmb = mean([r["acc"] for r in tsb if r["layer"] == L])
    print("| %d | %.1f / %.1f | %.0f / %.0f | %.1f / %.1f (%.1f / %.1f) | %.1f / %.1f (%.1f / %.1f) | %.1f / %.1f |" % (
        L, a["uuas"], b["uuas"], a["root_acc"], b["root_acc"], up["acc"], bu["acc"], up["control_acc"], bu["control_acc"],
        dp["acc"], bd["acc"], dp["control_acc"], bd["control_acc"], tma, tmb))
print()
print("test items: %d sentences (structural probes), %d words (token probes); tasks: %s" % (
    sa[0]["n_sentences"], ua[0]["ntest"], ", ".join("%s %d" % (t, sum(1 for l in open(B + "/../tasks/" + t + ".txt") if l.startswith("te")))
                                                   for t in sorted({r["task"] for r in tsb}))))
EOF
fi
echo
echo "load after: $(load)"
