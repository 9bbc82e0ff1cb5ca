# t3102-tokprobe.sh — `tokprobe`: per-word UPOS / relation probes with control task and selectivity
# tier: fast
# Issue 13 item 6, as a stage: `tokprobe` probes every word's UPOS or dependency relation from a
# corpus run's token vectors, with Hewitt & Liang's control task and selectivity (docs/spec/models.md M5;
# the control labels are checked on TV-M5 in tests/unit/probes_control.c). Here: the stage's
# plumbing on the demo corpus, determinism, storage, reporting and errors.
. tests/cli/lib.sh
DB=$TMP/t.db
$SP ingest --db $DB --corpus demo demo/demo.conllu >/dev/null 2>&1
$SP encode --db $DB --corpus demo --encoder encoder/configs/san.json --run san --token-vectors --quiet >/dev/null 2>&1
$SP encode --db $DB --corpus demo --encoder encoder/configs/ms-san.json --run notok --quiet >/dev/null 2>&1
$SP tokprobe --db $DB --corpus demo --run san --json >$TMP/a.json 2>$TMP/a.err && rc=0 || rc=$?
expect_eq "tokprobe upos: exit 0" "$rc" 0
check "... task accuracy, control accuracy and selectivity = their difference" $PY -c "
import json; r = json.load(open('$TMP/a.json'))
assert r['task'] == 'token:upos' and 0 <= r['acc'] <= 100 and 0 <= r['control_acc'] <= 100, r
assert abs(r['selectivity'] - (r['acc'] - r['control_acc'])) < 1e-6, r   # printed with 10 digits
assert r['ntrain'] > r['ndev'] > 0 and r['ntest'] > 0 and r['nclasses'] > 5, r"
expect_eq "stored as a probe result of task token:upos on run san" \
    "$(sqlite3 $DB "select task_name || ' ' || run_id || ' ' || classifier || ' ' || seed from probe_result")" "token:upos 1 logreg 1111"
check "... its manifest says how the corpus was partitioned" sh -c \
    "sqlite3 $DB \"select json_extract(result, '\$.manifest.partition') from probe_result\" | grep -q '^re-split 80/10/10 by sentence, seed 1'"
$SP tokprobe --db $DB --corpus demo --run san --json --no-save >$TMP/b.json 2>/dev/null
check "the same seeds: the same figures" cmp -s $TMP/a.json $TMP/b.json
$SP tokprobe --db $DB --corpus demo --run san --task deprel --classifier mlp --nhid 20 --seed 2 --json >$TMP/c.json 2>/dev/null && rc=0 || rc=$?
check "deprel with an MLP: exit 0, its own task" sh -c "[ $rc = 0 ] && grep -q '\"task\": \"token:deprel\"' $TMP/c.json"
$SP report --db $DB >$TMP/rep.txt 2>/dev/null
check "the report aggregates it like any probe" grep -Eq '^san +token:upos +logreg ' $TMP/rep.txt
$SP tokprobe --db $DB --corpus demo --run notok >/dev/null 2>$TMP/e1 && rc=0 || rc=$?
check "a run without token vectors: exit 1, says how to get them" sh -c "[ $rc = 1 ] && grep -q 'encode the corpus again with --token-vectors' $TMP/e1"
$SP tokprobe --db $DB --corpus demo --run nosuch >/dev/null 2>$TMP/e2 && rc=0 || rc=$?
check "an unknown run: exit 1, names the store's runs" sh -c "[ $rc = 1 ] && grep -q \"no run 'nosuch'\" $TMP/e2"
$SP tokprobe --db $DB --corpus demo >/dev/null 2>$TMP/e3 && rc=0 || rc=$?
expect_eq "--run missing: usage error" "$rc" 2
done_testing
