# t2179-torch-train.sh — python -m synprobe_torch.train: masked-word training, its record, reproducible, loads in synprobe
# tier: fast
# Issue 25 item 3. A small selective SAN trained 60 steps on the demo corpus's words: the loss
# falls (mean of the last 10 steps below the first 10), the record holds the objective, steps,
# seed and the data hash (SHA-256 of the corpus's structures export, computed here with sha256sum),
# the same arguments give the same weights byte for byte, and synprobe encode with the files the
# training wrote gives the twin's vectors (tests/torch/parity.py, 1e-5). With `make models`, a
# d_input 50 config takes GloVe 6B 50d rows (checked against vectors.npy read here). Bad input:
# usage errors exit 2, a corpus without the structures a kind needs exits 1 naming them.
. tests/cli/lib.sh
need_numpy
$PY -c 'import torch' 2>/dev/null || skip_rest "/usr/bin/python3 has no torch (python3-torch)"
SYNPROBE=$(cd "$(dirname "$SP")" && pwd)/synprobe; export SYNPROBE
TRAIN="env PYTHONPATH=python OPENBLAS_NUM_THREADS=1 $PY -m synprobe_torch.train"
$SP ingest --db $TMP/d.db --corpus demo demo/demo.conllu demo/demo.mrg >/dev/null 2>&1
$SP ingest --db $TMP/d.db --corpus dep demo/demo.conllu >/dev/null 2>&1
C=tests/torch/configs/ssan.json
$TRAIN $C --store $TMP/d.db --corpus demo --objective mlm --steps 60 --seed 5 --batch-tokens 256 --out $TMP/a >$TMP/o1 2>&1 && rc=0 || rc=$?
check "train: exit 0, every file written" sh -c "[ $rc = 0 ] && for f in weights.safetensors config.json embeddings.txt train.json loss.tsv; do [ -s $TMP/a/\$f ] || exit 1; done"
expect_eq "loss.tsv: one loss a step" "$(tail -n +2 $TMP/a/loss.tsv | wc -l)" 60
check "the loss falls: mean of steps 51-60 below that of steps 1-10" \
    awk 'NR > 1 && NR <= 11 { a += $2 } NR > 51 { b += $2 } END { exit !(b < a) }' $TMP/a/loss.tsv
want=$($SP export --db $TMP/d.db --corpus demo --what structures --format jsonl | sha256sum | cut -d' ' -f1)
got=$($PY -c "import json; r = json.load(open('$TMP/a/train.json')); print(r['objective'], r['steps'], r['seed'], r['data_hash'])")
expect_eq "train.json: objective, steps, seed, data hash" "$got" "mlm 60 5 sha256:$want"
check "config.json: synprobe's config, its comment the record" sh -c "grep -q '\"kind\": \"ssan\"' $TMP/a/config.json && grep -q 'sha256:$want' $TMP/a/config.json"
$TRAIN $C --store $TMP/d.db --corpus demo --objective mlm --steps 60 --seed 5 --batch-tokens 256 --out $TMP/b >/dev/null 2>&1
check "the same arguments: the same weights, byte for byte" cmp -s $TMP/a/weights.safetensors $TMP/b/weights.safetensors
$TRAIN $C --store $TMP/d.db --corpus demo --objective mlm --steps 60 --seed 6 --batch-tokens 256 --out $TMP/c >/dev/null 2>&1
check "another seed: other weights" sh -c "! cmp -s $TMP/a/weights.safetensors $TMP/c/weights.safetensors"
out=$($PY tests/torch/parity.py $TMP/a/config.json $TMP/d.db $TMP/p --corpus demo --weights $TMP/a/weights.safetensors \
    --embeddings $TMP/a/embeddings.txt 2>&1) && rc=0 || rc=$?
echo "# $out" | tail -1
check "synprobe encode with the trained files: the twin's vectors, tokens, attention (1e-5)" sh -c "[ $rc = 0 ]"
# bad input
$TRAIN $C --store $TMP/d.db --corpus demo --objective nmt --steps 5 --out $TMP/x >/dev/null 2>$TMP/e1 && rc=0 || rc=$?
check "--objective nmt: exit 2, the choices named" sh -c "[ $rc = 2 ] && grep -q \"choose from 'mlm'\" $TMP/e1"
$TRAIN $C --store $TMP/d.db --corpus demo --steps 0 --out $TMP/x >/dev/null 2>$TMP/e2 && rc=0 || rc=$?
check "--steps 0: exit 2" sh -c "[ $rc = 2 ] && grep -q 'steps: expected a positive number' $TMP/e2"
$TRAIN tests/torch/configs/psan.json --store $TMP/d.db --corpus dep --steps 5 --out $TMP/x >/dev/null 2>$TMP/e3 && rc=0 || rc=$?
check "PSAN on a corpus without constituency trees: exit 1, the structure named" sh -c "[ $rc = 1 ] && grep -q 'needs (pid)' $TMP/e3"
$TRAIN $C --store $TMP/d.db --corpus nosuch --steps 5 --out $TMP/x >/dev/null 2>$TMP/e4 && rc=0 || rc=$?
check "an unknown corpus: exit 1, synprobe's message" sh -c "[ $rc = 1 ] && grep -q \"no corpus 'nosuch'\" $TMP/e4"
# GloVe inputs where the config asks (d_input 50)
if [ -f "$MODELS/glove-6b-50d/vectors.npy" ]; then
    sed 's/"kind": "ssan"/"kind": "ssan", "d_input": 50/' $C >$TMP/g.json
    SP_MODELS=$MODELS $TRAIN $TMP/g.json --store $TMP/d.db --corpus demo --steps 3 --seed 1 --out $TMP/g >$TMP/o5 2>&1 && rc=0 || rc=$?
    check "d_input 50: GloVe 6B 50d inputs (exit 0, said)" sh -c "[ $rc = 0 ] && grep -q 'glove-6b-50d' $TMP/o5"
    d=$($PY -c "
import numpy as np
v = np.load('$MODELS/glove-6b-50d/vectors.npy'); w = open('$MODELS/glove-6b-50d/words.txt', encoding='utf-8').read().split('\n')
e = {l.split(' ')[0]: np.array(l.split(' ')[1:], dtype=np.float32) for l in open('$TMP/g/embeddings.txt', encoding='utf-8')}
print('%.1e' % max(np.abs(e[x] - v[w.index(x)]).max() for x in ('market', 'farmer', 'the')))")
    expect_eq "embeddings.txt: GloVe's rows for market, farmer, the" "$d" "0.0e+00"
else
    skip "GloVe 6B 50d: $MODELS has no glove-6b-50d (make models)"
    skip "GloVe rows"
fi
done_testing
