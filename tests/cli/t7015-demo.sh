# t7015-demo.sh — `synprobe demo`: the embedded corpus into a fresh store, with a readable summary
# tier: fast
# synprobe demo: the embedded corpus through ingest into a fresh store, with a readable summary.
. tests/cli/lib.sh
out=$($SP demo --out $TMP/demo 2>&1) && rc=0 || rc=$?
expect_eq "demo exits 0" "$rc" 0
case "$out" in *"corpus demo:"*"sentences"*) ok "demo prints a summary";; *) not_ok "demo output: $out";; esac
n_conllu=$(grep -c '^# sent_id' demo/demo.conllu)
n_trees=$(grep -c '^( ' demo/demo.mrg)
expect_eq "every demo sentence stored, trees attached by position" \
    "$(sqlite3 $TMP/demo/demo.db "select count(*), sum(const_source_id is not null), (select count(*) from quarantine) from sentence")" \
    "$n_conllu|$n_trees|0"
check "demo corpus files were written out" test -s $TMP/demo/corpus/demo.conllu
$SP export --db $TMP/demo/demo.db --corpus demo --format conllu > $TMP/rt.conllu
check "demo CoNLL-U round trip is byte-identical" cmp -s $TMP/rt.conllu demo/demo.conllu
# the pipeline: tasks -> encode (4 kinds) -> probe -> trees -> results.json (counts from the demo
# design: 3 tasks x 3 encoders without PSAN, 4 attention runs + right + random trees)
check "demo configs were written out" test -s $TMP/demo/configs/ms-san.json
case "$out" in *"Probing accuracy"*"Trees from attention"*) ok "demo prints the results tables";; *) not_ok "demo tables: $out";; esac
$PY - "$TMP/demo/results.json" <<'PYEOF' && ok "results.json: 9 probe results, 6 tree evaluations, every encoder" || not_ok "results.json content"
import json, sys
d = json.load(open(sys.argv[1]))
p, t = d["probe_results"], d["tree_evals"]
assert len(p) == 9 and len(t) == 6, (len(p), len(t))
assert sorted({r["task"] for r in p}) == ["SOMO", "SubjNum", "Tense"]
assert {r["run"].rsplit("-", 1)[0] for r in p} == {"san", "ms-san", "sg-net"}
assert {x["method"] for x in t} >= {"attention:run:%s:layer0:mean" % e for e in ("san", "ms-san", "sg-net", "psan")} | {"right", "random"}
for r in p:
    assert 0 <= r["test_acc"] <= 100 and r["result"]["manifest"]["vectors"]["source"] == "run"
for x in t:
    assert x["result"]["n_sentences"] == 12
PYEOF
# the right-branching row is the same number `trees --baseline right` prints from the files
r_db=$(sqlite3 $TMP/demo/demo.db "select printf('%.2f', json_extract(result, '\$.protocol_a.all.fmeasure')) from tree_eval where method='right'")
r_files=$($SP trees --mrg demo/demo.mrg --baseline right --json | $PY -c "import json,sys; print('%.2f' % json.load(sys.stdin)['protocol_a']['all']['fmeasure'])")
expect_eq "demo right-branching row equals trees --mrg" "$r_db" "$r_files"
out2=$($SP demo --out $TMP/demo --force 2>&1) && rc=0 || rc=$?
expect_eq "running the demo twice with --force starts from a fresh store" "$rc|$(sqlite3 $TMP/demo/demo.db 'select count(*) from source')" "0|2"
done_testing
