# t2106-bert-layer-pass.sh — `encode --layers`: every layer of one forward pass stored as its own run
# tier: fast
# Issue 13 item 3, layer by layer in one pass: `encode --layers all|K,...` keeps every requested
# layer of ONE forward pass, each stored as its own run (NAME-L<k>) with the fingerprint a
# `--layer k` run has, so the vectors are the same bytes as separate --layer k encodes (compared
# across two stores, blob by blob), a re-run or a later --layer k run encodes nothing; `export
# --layers` gives [n, layers, dim] arrays whose [:, k, :] is the single-layer export; probe,
# structprobe and tokprobe --layer L|all give one result per layer; the refusals; and a stopped
# encode keeps whole batches of every layer, which a re-run reuses (needs ../shared/data).
# Needs the real model (make models); skips visibly.
. tests/cli/lib.sh
need_numpy
need_models
M=$(cd $MODELS/all-MiniLM-L6-v2 && pwd)
printf '{"kind": "bert", "model": "%s"}\n' "$M" >$TMP/m.json
A=$TMP/a.db B=$TMP/b.db
for db in $A $B; do $SP ingest --db $db --corpus ud demo/demo.conllu >/dev/null 2>&1; done
$SP ingest --db $A --corpus demo demo/demo.conllu demo/demo.mrg >/dev/null 2>&1
$SP tasks build --split resplit --db $A --corpus demo --tasks Tense --seed 1 >/dev/null 2>&1

# one pass, seven runs
$SP encode --db $A --corpus ud --encoder $TMP/m.json --layers all --run lw --token-vectors --json >$TMP/e.json 2>$TMP/e.err && rc=0 || rc=$?
expect_eq "encode --layers all: exit 0, one run per layer (0..6), each 32 sentences encoded" \
    "$rc $($PY -c "
import json
r = [json.loads(l) for l in open('$TMP/e.json')]
print(' '.join(x['run'] for x in r), set((x['encoded'], x['items']) for x in r))")" \
    "0 lw-L0 lw-L1 lw-L2 lw-L3 lw-L4 lw-L5 lw-L6 {(32, 32)}"
check "... says it is one pass" grep -q 'layers 0,1,2,3,4,5,6 in one pass' $TMP/e.err
# the same layers one forward pass each, in another store
for k in 0 3 6; do
    $SP encode --db $B --corpus ud --encoder $TMP/m.json --layer $k --run one-$k --token-vectors --quiet >/dev/null 2>&1
done
expect_eq "each layer run has the fingerprint of --layer k (layers 0, 3, 6)" \
    "$(for k in 0 3 6; do printf '%s ' "$(sqlite3 $A "select e.fingerprint = b.fingerprint from run r join encoder e using (encoder_id), (select fingerprint from b.run rb join b.encoder using (encoder_id) where rb.name = 'one-$k') b where r.name = 'lw-L$k'" -cmd "attach '$B' as b")"; done)" "1 1 1 "
expect_eq "... and byte-identical sentence and token vectors (32 sentences x 3 layers, sqlite blobs)" \
    "$(sqlite3 -cmd "attach '$B' as b" $A "select count(*) from run r join encoder e using (encoder_id) join vector v on v.encoder_id = e.encoder_id
        join b.encoder eb on eb.fingerprint = e.fingerprint join b.vector vb on vb.encoder_id = eb.encoder_id and vb.text_hash = v.text_hash
        where r.name in ('lw-L0', 'lw-L3', 'lw-L6') and vb.data = v.data and vb.tokens = v.tokens and v.tokens is not null")" 96
$SP encode --db $A --corpus ud --encoder $TMP/m.json --layers all --run lw --token-vectors --json >$TMP/e2.json 2>/dev/null && rc=0 || rc=$?
expect_eq "a re-run encodes nothing: every layer run's 32 sentences cached" \
    "$rc $($PY -c "
import json
print(set((x['cached'], x['encoded']) for x in map(json.loads, open('$TMP/e2.json'))))")" "0 {(32, 0)}"
$SP encode --db $A --corpus ud --encoder $TMP/m.json --layer 4 --run four --token-vectors --json >$TMP/e3.json 2>/dev/null
expect_eq "a later --layer 4 run finds its layer cached" "$($PY -c "
import json; x = json.load(open('$TMP/e3.json')); print(x['cached'], x['encoded'])")" "32 0"

# export
$SP export --db $A --run lw --layers all --what tokens --out $TMP/tok.npy 2>/dev/null
$SP export --db $A --run lw --layers all --what vectors --out $TMP/vec.npy 2>/dev/null
$SP export --db $A --run lw --layers 3,6 --what vectors --out $TMP/v36.npy 2>/dev/null
$SP export --db $B --run one-3 --what tokens --out $TMP/t3.npy 2>/dev/null
$SP export --db $B --run one-6 --what vectors --out $TMP/v6.npy 2>/dev/null
expect_eq "export --layers: tokens (352, 7, 384) + lengths, vectors (32, 7, 384); [:, k, :] equals the single-layer export" \
    "$($PY -c "
import numpy as np
t, v, v36 = np.load('$TMP/tok.npy'), np.load('$TMP/vec.npy'), np.load('$TMP/v36.npy')
print(t.shape, v.shape, v36.shape, int(np.load('$TMP/tok.lengths.npy').sum()),
      np.array_equal(t[:, 3, :], np.load('$TMP/t3.npy')), np.array_equal(v[:, 6, :], np.load('$TMP/v6.npy')),
      np.array_equal(v36, v[:, [3, 6], :]))")" \
    "(352, 7, 384) (32, 7, 384) (32, 2, 384) 352 True True True"

# probes per layer
$SP encode --db $A --task Tense --encoder $TMP/m.json --layers all --run tl --quiet >/dev/null 2>&1
$SP probe --db $A --task Tense --run tl --layer all --preset senteval-fast --seed 1 >$TMP/p.txt 2>/dev/null && rc=0 || rc=$?
expect_eq "probe --layer all: exit 0, a header and one row per layer" "$rc $(wc -l <$TMP/p.txt) $(awk 'NR > 1 {printf "%s:%s ", $1, $2}' $TMP/p.txt)" \
    "0 8 0:tl-L0 1:tl-L1 2:tl-L2 3:tl-L3 4:tl-L4 5:tl-L5 6:tl-L6 "
expect_eq "... stored per layer run (report reads them)" \
    "$(sqlite3 $A "select count(distinct r.name) from probe_result p join run r using (run_id) where r.name like 'tl-L%'")" 7
$SP structprobe --db $A --corpus ud --run lw --layer all --rank 16 --max-epochs 3 --json >$TMP/s.json 2>/dev/null && rc=0 || rc=$?
expect_eq "structprobe --layer all: exit 0, one trained result per layer, each stored" \
    "$rc $($PY -c "
import json; print([r['layer'] for r in json.load(open('$TMP/s.json'))])") $(sqlite3 $A "select count(*) from tree_eval where method like 'structprobe:trained:run=lw-L%'")" \
    "0 [0, 1, 2, 3, 4, 5, 6] 7"
$SP tokprobe --db $A --corpus ud --run lw --layer 0,6 --no-save >$TMP/k.txt 2>/dev/null && rc=0 || rc=$?
expect_eq "tokprobe --layer 0,6: exit 0, two rows" "$rc $(awk 'NR > 1 {printf "%s:%s ", $1, $2}' $TMP/k.txt)" "0 0:lw-L0 6:lw-L6 "
# --threads 2: two layers side by side (issue 26); the same figures, rows and stored order as one thread
$SP structprobe --db $A --corpus ud --run lw --layer all --rank 16 --max-epochs 3 --threads 2 --json >$TMP/s2.json 2>/dev/null && rc=0 || rc=$?
expect_eq "structprobe --layer all --threads 2: exit 0, the rows of --threads 1 byte for byte" "$rc $(cmp -s $TMP/s.json $TMP/s2.json && echo same)" "0 same"
expect_eq "... stored in layer order: the newest seven rows by id are layers 6..0" \
    "$(sqlite3 $A "select group_concat(m, ',') from (select substr(method, -1) m from tree_eval where method like 'structprobe:trained:run=lw-L%' order by eval_id desc limit 7)")" \
    "6,5,4,3,2,1,0"
$SP tokprobe --db $A --corpus ud --run lw --layer all --max-epoch 4 --threads 1 >$TMP/k1.txt 2>$TMP/k1.err && rc1=0 || rc1=$?
$SP tokprobe --db $A --corpus ud --run lw --layer all --max-epoch 4 --threads 2 >$TMP/k2.txt 2>$TMP/k2.err && rc2=0 || rc2=$?
expect_eq "tokprobe --layer all --threads 1 and 2: exit 0, the same table" "$rc1 $rc2 $(cmp -s $TMP/k1.txt $TMP/k2.txt && echo same) $(wc -l <$TMP/k2.txt)" "0 0 same 8"
expect_eq "... the stored results announced in layer order" \
    "$(sed 's/.*stored result \([0-9]*\) .*/\1/' $TMP/k2.err | tr '\n' ' ')" \
    "$(sed 's/.*stored result \([0-9]*\) .*/\1/' $TMP/k1.err | awk '{ printf "%d ", $1 + 7 }')"

$SP export --db $A --run 'tl-L{layer}' --layers 2,4 --what vectors --out $TMP/tp.npy 2>/dev/null && rc=0 || rc=$?
expect_eq "export --run with {layer}: the runs it names (task runs tl-L2, tl-L4)" \
    "$rc $($PY -c "import numpy as np; print(np.load('$TMP/tp.npy').shape[1:])")" "0 (2, 384)"

# refusals
$SP encode --db $A --corpus ud --encoder $TMP/m.json --layers 0,9 --run bad >/dev/null 2>$TMP/r1 && rc=0 || rc=$?
check "--layers 9 on a 6-layer model: usage error naming the layers" sh -c "[ $rc = 2 ] && grep -q -- '--layers 9: the model .* has layers 0..6' $TMP/r1"
$SP encode --db $A --corpus ud --encoder encoder/configs/san.json --layers all --run bad >/dev/null 2>$TMP/r2 && rc=0 || rc=$?
check "--layers with a san config: usage error" sh -c "[ $rc = 2 ] && grep -q -- '--layers applies to bert configs' $TMP/r2"
$SP encode --db $A --corpus ud --encoder $TMP/m.json --layers all --layer 2 --run bad >/dev/null 2>$TMP/r3 && rc=0 || rc=$?
check "--layers with --layer: usage error" sh -c "[ $rc = 2 ] && grep -q -- '--layers and --layer exclude each other' $TMP/r3"
$SP encode --db $A --corpus ud --encoder $TMP/m.json --layers 1,x --run bad >/dev/null 2>$TMP/r4 && rc=0 || rc=$?
check "--layers 1,x: usage error quoting it" sh -c "[ $rc = 2 ] && grep -q -- \"--layers: expected all or layer numbers K,K,... (0 = embeddings), got '1,x'\" $TMP/r4"
$SP structprobe --db $A --corpus ud --run four --layer all >/dev/null 2>$TMP/r5 && rc=0 || rc=$?
check "--layer all on a run without layers: exit 1, says so" sh -c "[ $rc = 1 ] && grep -q \"run 'four' has no layer runs (four-L<k>\[-INPUT\], made by encode --layers)\" $TMP/r5"
$SP probe --db $A --task Tense --run lw2 --layer 3 >/dev/null 2>$TMP/r6 && rc=0 || rc=$?
check "--layer on an unknown name: exit 1" sh -c "[ $rc = 1 ] && grep -q \"name 'lw2' has no layer runs\" $TMP/r6"
$SP encode --db $A --corpus ud --encoder $TMP/m.json --layers 0,3 --run part --quiet >/dev/null 2>&1
$SP export --db $A --corpus ud --run part --layers 0,2 --what vectors --out $TMP/x.npy >/dev/null 2>$TMP/r7 && rc=0 || rc=$?
check "export --layers with a missing layer: exit 1, names the run and the layers there" \
    sh -c "[ $rc = 1 ] && grep -q 'no run part-L2-ud or part-L2: the layers of .part. there are 0,3' $TMP/r7 && [ ! -e $TMP/x.npy ]"
$SP export --db $A --run part --layers all --what tokens --out $TMP/x.npy >/dev/null 2>$TMP/r8 && rc=0 || rc=$?
check "export --layers tokens of runs without token vectors: exit 1, says how" \
    sh -c "[ $rc = 1 ] && grep -q \"run 'part-L0' has no token vectors\" $TMP/r8"

# a stop between batches leaves whole batches of every layer; a re-run encodes only the rest
need_data
$PY -c "
import sys
b = open('$DATA/ud-ewt/en_ewt-ud-dev.conllu', encoding='utf-8').read().strip().split('\n\n')[:150]
open('$TMP/e150.conllu', 'w', encoding='utf-8').write('\n\n'.join(b) + '\n\n')"
$SP ingest --db $A --corpus e150 $TMP/e150.conllu >/dev/null 2>&1
$SP encode --db $A --corpus e150 --encoder $TMP/m.json --layers all --run st --batch-tokens 64 --threads 1 --quiet >/dev/null 2>$TMP/st.err &
pid=$!
i=0; while [ $i -lt 300 ]; do
    n=$(sqlite3 $A "select count(*) from run_item i join run r using (run_id) where r.name = 'st-L6'" 2>/dev/null || echo 0)
    [ "${n:-0}" -gt 0 ] && break; sleep 0.05; i=$((i+1))
done
kill -TERM $pid
wait $pid && rc=0 || rc=$?
counts=$(sqlite3 $A "select group_concat(c, ' ') from (select count(i.ordinal) c from run r left join run_item i using (run_id) where r.name like 'st-L%' group by r.name order by r.name)")
first=${counts%% *}
expect_eq "SIGTERM mid-encode: exit 143, every layer run holds the same whole batches" \
    "$rc $(echo $counts | tr ' ' '\n' | sort -u | wc -l) $([ "$first" -gt 0 ] && [ "$first" -lt 150 ] && echo partial)" "143 1 partial"
$SP encode --db $A --corpus e150 --encoder $TMP/m.json --layers all --run st --batch-tokens 64 --json 2>/dev/null >$TMP/st.json
expect_eq "the re-run reuses them and encodes the rest: 150 items per layer run" "$($PY -c "
import json
r = [json.loads(l) for l in open('$TMP/st.json')]
print(len(r), set((x['cached'], x['encoded'], x['items']) for x in r))")" "7 {($first, $((150 - first)), 150)}"
done_testing
