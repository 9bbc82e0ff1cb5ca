# t2104-bert-layers.sh — a job's bert encoder with "layers": "all": one pass, probed and reported per layer
# tier: fast
# Issue 13 item 3 in a job: an encoder entry with "layers": "all" on a bert config becomes one
# encode --layers step per input (one forward pass; runs NAME-L<k>-INPUT), probed and reported per layer: the HTML report's
# accuracy-by-layer chart has one point per layer. Also `encode --layer K` on the command line.
# Needs the real model (make models); skips visibly.
. tests/cli/lib.sh
need_numpy
need_models
M=$(cd $MODELS/all-MiniLM-L6-v2 && pwd)
mkdir -p $TMP/j
cp demo/demo.conllu demo/demo.mrg $TMP/j/
printf '{"kind": "bert", "model": "%s"}\n' "$M" >$TMP/j/minilm.json
cat >$TMP/j/job.json <<'J'
{"store": "out/s.db", "out": "out", "corpora": [{"name": "demo", "paths": ["demo.conllu", "demo.mrg"]}],
 "tasks": [{"tasks": ["Tense", "SubjNum"], "seed": 1, "split": "resplit"}],
 "encoders": [{"config": "minilm.json", "layers": "all", "inputs": ["Tense", "SubjNum"]}],
 "probes": [{"classifier": ["logreg"], "seed": [1], "preset": "senteval-fast"}],
 "reports": [{"format": "html", "out": "html"}, {"format": "json", "out": "r.json"}]}
J
$SP run --check $TMP/j/job.json >$TMP/check 2>&1 && rc=0 || rc=$?
expect_eq "run --check: 2 encode steps (one pass per task keeps all 7 layers), 14 probe steps" \
    "$rc $(grep -c 'synprobe encode' $TMP/check) $(grep -c 'synprobe probe' $TMP/check)" "0 2 14"
check "... each with its layers and run names" grep -q -- "--run 'minilm-L{layer}-Tense' --layers 0,1,2,3,4,5,6" $TMP/check
check "... probes of each layer's run" grep -q -- '--run minilm-L6-SubjNum' $TMP/check
$SP run --quiet $TMP/j/job.json >$TMP/out 2>&1 && rc=0 || rc=$?
[ "$rc" = 0 ] || tail -5 $TMP/out
expect_eq "the job runs" "$rc" 0
expect_eq "14 probe results, aggregated as 7 layers x 2 tasks" \
    "$($PY -c "import json; r=json.load(open('$TMP/j/out/r.json')); print(len(r['probe_results']), sorted(set(a['encoder'] for a in r['aggregates'])))")" \
    "14 ['minilm-L0', 'minilm-L1', 'minilm-L2', 'minilm-L3', 'minilm-L4', 'minilm-L5', 'minilm-L6']"
$PY - $TMP/j/out/html/report.html >$TMP/L.chk <<'PY'
import sys
h = open(sys.argv[1], encoding="utf-8").read()
sec = h[h.index('<section id="layers">'):h.index('</section>', h.index('<section id="layers">'))]
print(sec.count('fill="none" stroke-width="2"'), sec.count("<circle"))
PY
expect_eq "the layer chart: one line per task, a point per layer" "$(cat $TMP/L.chk)" "2 14"
expect_eq "layers differ: L0 and L6 vectors of the same item are not equal" \
    "$(sqlite3 $TMP/j/out/s.db "select count(*) from run_item a join run_item b on a.text_hash = b.text_hash and a.ordinal = b.ordinal
        join run ra on ra.run_id = a.run_id join run rb on rb.run_id = b.run_id
        join vector va on va.encoder_id = ra.encoder_id and va.text_hash = a.text_hash
        join vector vb on vb.encoder_id = rb.encoder_id and vb.text_hash = b.text_hash
        where ra.name = 'minilm-L0-Tense' and rb.name = 'minilm-L6-Tense' and va.data = vb.data")" 0
# the command line
$SP ingest --db $TMP/c.db --corpus demo demo/demo.conllu >/dev/null 2>&1
$SP encode --db $TMP/c.db --corpus demo --encoder $TMP/j/minilm.json --layer 2 --run two >$TMP/e.out 2>&1 && rc=0 || rc=$?
check "encode --layer 2: exit 0, says the layer" sh -c "[ $rc = 0 ] && grep -q 'layer 2, on cpu' $TMP/e.out"
$SP encode --db $TMP/c.db --corpus demo --encoder encoder/configs/san.json --layer 2 --run x >/dev/null 2>$TMP/e2 && rc=0 || rc=$?
check "--layer on a san config: usage error" sh -c "[ $rc = 2 ] && grep -q -- '--layer applies to bert configs' $TMP/e2"
done_testing
