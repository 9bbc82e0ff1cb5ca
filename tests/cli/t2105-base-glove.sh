# t2105-base-glove.sh — seed architectures on a MiniLM base, and GloVe 6B 50d as --embeddings
# tier: fast
# Issue 13 item 4: the seed architectures on real inputs. (a) "base": a bert config whose word
# vectors (any layer) are the encoder's input embeddings (MS-SAN, SG-Net on MiniLM); the base is
# part of the encoder's identity. (b) GloVe 6B 50d as `make models` unpacks it (vectors.npy, stored
# in Fortran order, + words.txt) as --embeddings: the rows kept are exactly the corpus's words
# found in it (counted here independently). Needs the real models; skips visibly.
. tests/cli/lib.sh
need_numpy
need_models
M=$(cd $MODELS && pwd)
DB=$TMP/b.db
$SP ingest --db $DB --corpus demo demo/demo.conllu >/dev/null 2>&1
for k in 2 4; do printf '{"kind": "bert", "model": "%s/all-MiniLM-L6-v2", "layer": %s}\n' "$M" $k >$TMP/m$k.json; done
printf '{"kind": "ms-san", "base": "m4.json"}\n' >$TMP/ms4.json
printf '{"kind": "ms-san", "base": "m2.json"}\n' >$TMP/ms2.json
printf '{"kind": "sg-net", "base": "m4.json", "layers": 1, "d_model": 384, "heads": 12, "d_ff": 1536}\n' >$TMP/sg4.json
$SP encode --db $DB --corpus demo --encoder $TMP/ms4.json --run ms4 >$TMP/o1 2>&1 && rc=0 || rc=$?
check "MS-SAN on MiniLM layer 4: exit 0, 32 sentences" sh -c "[ $rc = 0 ] && grep -q '0 cached, 32 encoded' $TMP/o1"
$SP encode --db $DB --corpus demo --encoder $TMP/ms2.json --run ms2 >/dev/null 2>&1
expect_eq "... on layer 2 instead: another encoder" "$(sqlite3 $DB "select count(distinct encoder_id) from run where name in ('ms4', 'ms2')")" 2
$SP encode --db $DB --corpus demo --encoder $TMP/sg4.json --run sg4 >$TMP/o2 2>&1 && rc=0 || rc=$?
check "SG-Net (SDOI layer, aggregation) on MiniLM layer 4: exit 0" sh -c "[ $rc = 0 ] && grep -q '0 cached, 32 encoded' $TMP/o2"
$SP encode --db $DB --corpus demo --encoder $TMP/ms4.json --embeddings $M/glove-6b-50d --run x >/dev/null 2>$TMP/e1 && rc=0 || rc=$?
check "--embeddings with a base: usage error" sh -c "[ $rc = 2 ] && grep -q 'its base' $TMP/e1"
printf '{"kind": "ms-san", "base": "%s/ms4.json"}\n' "$TMP" >$TMP/bad.json
$SP encode --db $DB --corpus demo --encoder $TMP/bad.json --run x >/dev/null 2>$TMP/e2 && rc=0 || rc=$?
check "a base that is not a bert config: exit 1" sh -c "[ $rc = 1 ] && grep -q 'a base is a bert config' $TMP/e2"
# GloVe as input: a config of input width 50
sed 's/"kind": "ms-san"/"kind": "ms-san", "d_input": 50/' encoder/configs/ms-san.json >$TMP/msg.json
$SP encode --db $DB --corpus demo --encoder $TMP/msg.json --embeddings $M/glove-6b-50d --run glove >$TMP/o3 2>&1 && rc=0 || rc=$?
want=$($PY -c "
forms = set()
for l in open('demo/demo.conllu', encoding='utf-8'):
    f = l.split('\t')
    if len(f) == 10 and f[0].isdigit(): forms.add(f[1]); forms.add(f[1].lower())
print(sum(1 for w in open('$M/glove-6b-50d/words.txt', encoding='utf-8').read().split('\n') if w in forms))")
check "GloVe 6B 50d (Fortran-order vectors.npy + words.txt): exit 0, $want of 400000 rows kept" \
    sh -c "[ $rc = 0 ] && grep -q 'glove-6b-50d: $want of 400000 rows kept' $TMP/o3"
done_testing
