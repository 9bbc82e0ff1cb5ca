# t2103-bert-encode.sh — `encode` with a bert config (MiniLM) equals an independent NumPy computation
# tier: fast
# Issue 13 items 1-3 end to end: `synprobe encode` with {"kind": "bert", "model": MiniLM, "layer": K}
# gives, for every word of the demo corpus, the mean of its pieces' vectors at layer K and, for
# every sentence, the mean of its words (M2), equal to an independent computation
# (tests/reference/bert_encode_ref.py: the Python tokenizer reference and the NumPy float64 forward,
# written from docs/spec/models.md M1-M3) within 1e-4 (M3.4's float32 tolerance for hidden states).
# Also: the layer gives a different encoder (fingerprint), the fingerprint follows the model's
# files, and errors of bad bert configs. Needs the real model (make models); skips visibly.
. tests/cli/lib.sh
need_numpy
need_models
M=$(cd $MODELS/all-MiniLM-L6-v2 && pwd)
DB=$TMP/b.db
$SP ingest --db $DB --corpus demo demo/demo.conllu >/dev/null 2>&1
for k in 0 3 6; do printf '{"kind": "bert", "model": "%s", "layer": %s}\n' "$M" $k >$TMP/L$k.json; done
$SP encode --db $DB --corpus demo --encoder $TMP/L3.json --run L3 --token-vectors >$TMP/out 2>&1 && rc=0 || rc=$?
expect_eq "encode with MiniLM, layer 3: exit 0" "$rc" 0
check "... 32 sentences encoded, 384-dim" grep -q 'run L3 (bert on cpu, 384-dim): 0 cached, 32 encoded' $TMP/out
$SP export --db $DB --run L3 --what tokens --format npy --out $TMP/tok.npy >/dev/null 2>&1
$SP export --db $DB --run L3 --what vectors --format npy --out $TMP/sent.npy >/dev/null 2>&1
$PY -c "
import sys
for block in open('demo/demo.conllu', encoding='utf-8').read().strip().split('\n\n'):
    w = [l.split('\t')[1] for l in block.split('\n') if l and not l.startswith('#') and l.split('\t')[0].isdigit()]
    print(' '.join(w))" >$TMP/sents.txt
$PY tests/reference/bert_encode_ref.py $M 3 $TMP/sents.txt $TMP/ref
expect_eq "word vectors (mean of pieces, layer 3) and sentence vectors equal the reference within 1e-4" \
    "$($PY -c "
import numpy as np
t, s = np.load('$TMP/tok.npy'), np.load('$TMP/sent.npy')
rt, rs = np.load('$TMP/ref/tokens.npy'), np.load('$TMP/ref/sent.npy')
print(t.shape == rt.shape, s.shape == rs.shape, float(abs(t - rt).max()) < 1e-4, float(abs(s - rs).max()) < 1e-4)")" "True True True True"
$SP encode --db $DB --corpus demo --encoder $TMP/L6.json --run L6 >/dev/null 2>&1
$SP encode --db $DB --corpus demo --encoder $TMP/L3.json --run L3b >$TMP/out2 2>&1
check "the same config again: every sentence cached" grep -q '32 cached, 0 encoded' $TMP/out2
expect_eq "layers 3 and 6: two encoders" "$(sqlite3 $DB "select count(distinct encoder_id) from run where name in ('L3', 'L6')")" 2
# errors
printf '{"kind": "bert", "model": "%s", "layer": 9}\n' "$M" >$TMP/bad1.json
$SP encode --db $DB --corpus demo --encoder $TMP/bad1.json --run x >/dev/null 2>$TMP/e1 && rc=0 || rc=$?
check "layer 9 of a 6-layer model: exit 1, says the layers" sh -c "[ $rc = 1 ] && grep -q 'layer 9: the model has layers 0..6' $TMP/e1"
printf '{"kind": "bert", "model": "%s", "pool": "max"}\n' "$M" >$TMP/bad2.json
$SP encode --db $DB --corpus demo --encoder $TMP/bad2.json --run x >/dev/null 2>$TMP/e2 && rc=0 || rc=$?
check "an unknown key: exit 1, names it and the known ones" sh -c "[ $rc = 1 ] && grep -q 'pool: unknown field for kind bert' $TMP/e2"
printf '{"kind": "bert", "model": "no/such/dir"}\n' >$TMP/bad3.json
$SP encode --db $DB --corpus demo --encoder $TMP/bad3.json --run x >/dev/null 2>$TMP/e3 && rc=0 || rc=$?
check "a missing model directory: exit 1, names the file it looked for" sh -c "[ $rc = 1 ] && grep -q 'no/such/dir/config.json' $TMP/e3"
done_testing
