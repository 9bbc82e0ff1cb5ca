# t2107-bert-layer-attention.sh — `encode --layers --layer-attention --heads`: attention per layer and head
# tier: fast
# Issue 13 item 3, attention per layer and per head: `encode --layers --layer-attention` gives each
# layer run NAME-L<k> (k >= 1) the head-averaged map of the encoder layer that made it (the same
# bytes as `--layer k --attention k-1`), `--heads` keeps each head's map as well; the per-head and
# averaged maps equal an independent NumPy computation (tests/reference/bert_attention_ref.py,
# docs/spec/models.md M2.4, float64) within 1e-5 (M3.4); `trees --layer all` scores every layer's run and
# `trees --head H` one head, the same from the run as from the exported (n, H, L, L) file.
# Needs the real model (make models); skips visibly.
. tests/cli/lib.sh
need_numpy
need_models
M=$(cd $MODELS/all-MiniLM-L6-v2 && pwd)
printf '{"kind": "bert", "model": "%s"}\n' "$M" >$TMP/m.json
A=$TMP/a.db B=$TMP/b.db
for db in $A $B; do $SP ingest --db $db --corpus ud demo/demo.conllu >/dev/null 2>&1; done
$SP ingest --db $A --corpus ptb demo/demo.mrg >/dev/null 2>&1

$SP encode --db $A --corpus ud --encoder $TMP/m.json --layers all --layer-attention --heads --run la --quiet >/dev/null 2>&1 && rc=0 || rc=$?
expect_eq "encode --layers all --layer-attention --heads: exit 0; L0 has no map, L<k> the map of attention layer k-1" \
    "$rc $(sqlite3 $A "select group_concat(name || ':' || coalesce(attn_layer, '-'), ' ') from (select name, attn_layer from run order by name)")" \
    "0 la-L0:- la-L1:0 la-L2:1 la-L3:2 la-L4:3 la-L5:4 la-L6:5"
$SP encode --db $B --corpus ud --encoder $TMP/m.json --layer 3 --attention 2 --run b3 --quiet >/dev/null 2>&1
expect_eq "... la-L3's maps are byte-identical to --layer 3 --attention 2 in another store (32 sentences)" \
    "$(sqlite3 -cmd "attach '$B' as b" $A "select count(*) from run r join attention a on a.encoder_id = r.encoder_id and a.layer = 2
        join encoder e on e.encoder_id = r.encoder_id join b.encoder eb on eb.fingerprint = e.fingerprint
        join b.attention ab on ab.encoder_id = eb.encoder_id and ab.text_hash = a.text_hash and ab.layer = 2
        where r.name = 'la-L3' and ab.data = a.data")" 32
$SP encode --db $A --corpus ud --encoder $TMP/m.json --layers all --layer-attention --heads --run la --json 2>/dev/null >$TMP/e2.json
expect_eq "a re-run encodes nothing" "$($PY -c "
import json; print(set((x['cached'], x['encoded']) for x in map(json.loads, open('$TMP/e2.json'))))")" "{(32, 0)}"

$SP export --db $A --run la-L3 --what attention --heads --out $TMP/h.npy 2>/dev/null
$SP export --db $A --run la-L3 --what attention --out $TMP/a.npy 2>/dev/null
$PY -c "
for block in open('demo/demo.conllu', encoding='utf-8').read().strip().split('\n\n')[:8]:
    w = [l.split('\t')[1] for l in block.split('\n') if l and not l.startswith('#') and l.split('\t')[0].isdigit()]
    print(' '.join(w))" >$TMP/sents.txt
$PY tests/reference/bert_attention_ref.py $M 2 $TMP/sents.txt $TMP/ref
expect_eq "export --heads (32, 12, L, L); per-head and averaged maps equal the reference within 1e-5 (8 sentences)" \
    "$($PY -c "
import numpy as np
h, a = np.load('$TMP/h.npy'), np.load('$TMP/a.npy')
rh, ra = np.load('$TMP/ref/heads.npy'), np.load('$TMP/ref/mean.npy')
L = rh.shape[-1]
print(h.shape[:2], h.shape[2] == a.shape[1], float(np.abs(h[:8, :, :L, :L] - rh).max()) <= 1e-5,
      float(np.abs(a[:8, :L, :L] - ra).max()) <= 1e-5)")" "(32, 12) True True True"

$SP trees --db $A --corpus ud --run la --layer all --no-save --json >$TMP/t.json 2>$TMP/t.err && rc=0 || rc=$?
expect_eq "trees --layer all: exit 0, dependency trees of layers 1..6 (layer 0 has no attention, said so)" \
    "$rc $($PY -c "
import json; print([r['layer'] for r in json.load(open('$TMP/t.json'))])") $(grep -c 'la-L0 has no attention maps' $TMP/t.err)" \
    "0 [1, 2, 3, 4, 5, 6] 1"
$SP trees --db $A --corpus ud --run la-L3 --head 4 >/dev/null 2>&1 && rc=0 || rc=$?
expect_eq "trees --head 4 on a layer run: exit 0, stored as head 4 of layer 2" \
    "$rc $(sqlite3 $A "select count(*) from tree_eval where method = 'dependency:run:la-L3:layer2:head4:dep_to_head'")" "0 1"
$SP encode --db $A --corpus ptb --encoder $TMP/m.json --layer 3 --attention 2 --heads --run p3 --quiet >/dev/null 2>&1
$SP export --db $A --run p3 --what attention --heads --out $TMP/ph.npy 2>/dev/null
$SP trees --db $A --corpus ptb --run p3 --head 5 --no-save --json >$TMP/r1.json 2>/dev/null
$SP trees --db $A --corpus ptb --attention $TMP/ph.npy --head 5 --no-save --json >$TMP/r2.json 2>/dev/null
check "constituency trees of head 5: the same figures from the run and from the exported file" cmp -s $TMP/r1.json $TMP/r2.json
$SP trees --db $A --corpus ptb --attention $TMP/ph.npy --no-save --json >$TMP/r3.json 2>/dev/null
check "... and not those of the heads pooled" sh -c "! cmp -s $TMP/r1.json $TMP/r3.json"

# refusals
$SP encode --db $A --corpus ud --encoder $TMP/m.json --heads --run x >/dev/null 2>$TMP/r1 && rc=0 || rc=$?
check "--heads without an attention layer: usage error" sh -c "[ $rc = 2 ] && grep -q -- '--heads needs --attention LAYER or --layer-attention' $TMP/r1"
$SP encode --db $A --corpus ud --encoder encoder/configs/san.json --attention 0 --heads --run x >/dev/null 2>$TMP/r2 && rc=0 || rc=$?
check "--heads with a san config: usage error" sh -c "[ $rc = 2 ] && grep -q -- '--heads applies to bert configs' $TMP/r2"
$SP encode --db $A --corpus ud --encoder $TMP/m.json --layer-attention --run x >/dev/null 2>$TMP/r3 && rc=0 || rc=$?
check "--layer-attention without --layers: usage error" sh -c "[ $rc = 2 ] && grep -q -- '--layer-attention needs --layers' $TMP/r3"
$SP export --db $B --run b3 --what attention --heads --out $TMP/x.npy >/dev/null 2>$TMP/r4 && rc=0 || rc=$?
check "export --heads of a run without per-head maps: exit 1, says how" sh -c "[ $rc = 1 ] && grep -q 're-run encode with --heads' $TMP/r4"
$SP trees --db $A --corpus ud --run la-L3 --head 12 --no-save >/dev/null 2>$TMP/r5 && rc=0 || rc=$?
check "trees --head 12 of a 12-head model: exit 1, names the heads" sh -c "[ $rc = 1 ] && grep -q 'the model has heads 0..11' $TMP/r5"
# stored per layer, with the baselines, the HTML report draws UAS by layer: one line for the layer
# runs (layers 1..6; layer 0 has no attention), one for head 4 alone (stored above: layer 3's run),
# and a flat line per baseline with a UAS (right, left, random; adjacent trees are undirected: no UAS)
$SP trees --db $A --corpus ud --run la --layer all >/dev/null 2>&1
for b in right left adjacent random; do $SP trees --db $A --corpus ud --dependency --baseline $b >/dev/null 2>&1; done
$SP report --db $A --format html --out $TMP/html >/dev/null 2>&1
$PY - $TMP/html/report.html >$TMP/dl.chk <<'PY'
import re, sys
h = open(sys.argv[1], encoding="utf-8").read()
i = h.index('<section id="dependency">')
sec = h[i:h.index('</section>', i)]
svg = sec[sec.index("<svg"):] if "<svg" in sec else ""
names = re.findall(r"<text[^>]*>(la \(ud, [^<]*\)|[a-z]+ baseline \(ud\))</text>", svg)
print(sec.count("<svg"), svg.count("<circle"), svg.count('stroke-width="2" stroke-dasharray="6 3"'), sorted(names))
PY
expect_eq "HTML: dependency UAS by layer (6 layer points + 1 head point; 3 baselines as dashed lines)" "$(cat $TMP/dl.chk)" \
    "1 7 3 ['la (ud, dep_to_head)', 'la (ud, head4:dep_to_head)', 'left baseline (ud)', 'random baseline (ud)', 'right baseline (ud)']"
done_testing
