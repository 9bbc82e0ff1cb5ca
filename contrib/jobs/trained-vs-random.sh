#!/bin/sh
# contrib/jobs/trained-vs-random.sh — the seed papers' question at small scale: trains each of the
# six encoder kinds (the small configs in trained-vs-random/) with the same budget and three
# training seeds, then runs trained-vs-random.job.json, which probes every trained encoder and its
# random-init twin (same config, same three seeds) and compares them (report --compare, paired
# bootstrap, the three seeds pooled per side).
#
# Training: python -m synprobe_torch.train (PyTorch, CPU, one thread a model, JOBS models side by
# side), masked-word objective over the words of PTB-sample files wsj_0001-0119 (corpus "ptb-lm" in
# its own store, OUT/lm.db); GloVe 6B 50d inputs (make models), kept frozen. The job splits the PTB
# sample by file: train wsj_0001-0119 (the same text), dev 0120-0139, test 0140-0199, so no encoder
# saw a sentence it is tested on. A model whose train.json and config.json record
# the same config, steps and seed is not trained again (delete OUT/weights to start over).
#
#   sh contrib/jobs/trained-vs-random.sh          (from a checkout, after make and make models)
#   env: STEPS (250 a model), JOBS (2), SYNPROBE (build/synprobe), PYTHON (/usr/bin/python3, with torch);
#        KINDS, SEEDS (train only these; the job needs all six kinds x seeds 1 2 3), RUN=0 (train only)
# Results in synprobe-tvr/ in the checkout: report/report.html, report.txt, compare.txt,
# weights/KIND-sN/ (weights.safetensors, config.json, train.json, loss.tsv).
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OUT=$ROOT/synprobe-tvr
SYNPROBE=${SYNPROBE:-$ROOT/build/synprobe}
PY=${PYTHON:-/usr/bin/python3}
STEPS=${STEPS:-250}
JOBS=${JOBS:-2}
DATA=$ROOT/../shared/data/ptb-sample
GLOVE=$ROOT/models/glove-6b-50d
KINDS=${KINDS:-san san-structpe ms-san sg-net psan ssan}
SEEDS=${SEEDS:-1 2 3}
RUN=${RUN:-1}

[ -x "$SYNPROBE" ] || { echo "$0: $SYNPROBE not built (run make)" >&2; exit 2; }
[ -d "$DATA/combined" ] || { echo "$0: $DATA not present (the PTB sample, ../shared/data/README.md)" >&2; exit 2; }
[ -e "$GLOVE" ] || { echo "$0: $GLOVE not present (run make models)" >&2; exit 2; }
"$PY" -c 'import torch' 2>/dev/null || { echo "$0: $PY cannot import torch (apt-get install python3-torch, or set PYTHON)" >&2; exit 2; }
mkdir -p "$OUT/weights"

# the training corpus: its own store, so that the job's store holds only what it probes
i=1; set --
while [ $i -le 119 ]; do
    n=$(printf '%04d' $i)
    set -- "$@" "$DATA/combined/wsj_$n.mrg" "$DATA/dependency/wsj_$n.dp"
    i=$((i + 1))
done
"$SYNPROBE" ingest --db "$OUT/lm.db" --corpus ptb-lm --quiet "$@"

# one line per model still to train: KIND SEED
todo=$OUT/weights/todo.txt
: > "$todo"
for k in $KINDS; do
    for s in $SEEDS; do
        rec=$OUT/weights/$k-s$s/train.json
        if [ -f "$rec" ] && "$PY" - "$rec" "$HERE/trained-vs-random/$k.json" "$STEPS" "$s" <<'EOF'
import json, os, sys
r = json.load(open(sys.argv[1]))
had = json.load(open(os.path.join(os.path.dirname(sys.argv[1]), "config.json")))
want = json.load(open(sys.argv[2]))
same = r.get("steps") == int(sys.argv[3]) and r.get("seed") == int(sys.argv[4]) and \
       all(had.get(key) == v for key, v in want.items() if key not in ("comment", "seed"))
sys.exit(0 if same else 1)
EOF
        then echo "trained already: $k seed $s ($rec)"; else echo "$k $s" >> "$todo"; fi
    done
done
n=$(wc -l < "$todo")
echo "training $n models ($STEPS steps each, $JOBS at a time)"
start=$(date +%s)
export PYTHONPATH="$ROOT/python${PYTHONPATH:+:$PYTHONPATH}" SYNPROBE PY OUT STEPS GLOVE HERE
# shellcheck disable=SC2016
xargs -r -P "$JOBS" -L 1 sh -c '
    k=$0 s=$1
    rm -rf "$OUT/weights/$k-s$s"
    "$PY" -m synprobe_torch.train "$HERE/trained-vs-random/$k.json" --store "$OUT/lm.db" --corpus ptb-lm --objective mlm \
        --steps "$STEPS" --seed "$s" --embeddings "$GLOVE" --threads 1 --log-every 100 --out "$OUT/weights/$k-s$s" \
        > "$OUT/weights/$k-s$s.log" 2>&1 || { echo "training $k seed $s failed: $OUT/weights/$k-s$s.log" >&2; exit 255; }
    tail -n 2 "$OUT/weights/$k-s$s.log" | head -n 1 | sed "s|^|$k seed $s: |"
' < "$todo"
rm -f "$todo"
echo "trained in $(($(date +%s) - start)) s"

[ "$RUN" = 1 ] || exit 0
"$SYNPROBE" run "$HERE/trained-vs-random.job.json"
echo "compare: $OUT/compare.txt; report: $OUT/report/report.html"
