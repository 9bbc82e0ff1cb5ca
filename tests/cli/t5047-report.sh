# t5047-report.sh — results in the store: probe/trees/structprobe --db and `report` as text, JSON, CSV
# tier: fast
# Results in the store: `probe --db --task` / `--save`, `trees --db`,
# `structprobe --db`, and `report` as text, JSON and tidy CSV.
# Expectations come from the inputs, not from our own output: item counts of the hand-made task
# file, the data hash recomputed by numpy + hashlib from the documented scheme, the numbers the
# same command printed with --json, the CSV header documented in `report --help`.
. tests/cli/lib.sh
need_numpy
count() { $PY -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])" "$1" "$2"; }

# ---- a 3-class synthetic task (labels with a comma and a quote) + vectors, file order ----
$PY - "$TMP" <<'PY'
import sys, numpy as np
d = sys.argv[1]
rng = np.random.default_rng(11)
n, dim = 300, 10
y = rng.integers(0, 3, n)
centers = rng.normal(0, 2, (3, dim))
X = (centers[y] + rng.normal(0, 1, (n, dim))).astype(np.float32)
np.save(d + "/X.npy", X)
np.save(d + "/Xshort.npy", X[:-1])
names = ["alpha", "beta,b", 'ga"mma']
tags = ["tr"] * 180 + ["va"] * 60 + ["te"] * 60
with open(d + "/syn.txt", "w") as f:
    for i in range(n):
        f.write("%s\t%s\tsentence number %d .\n" % (tags[i], names[y[i]], i))
# a bigger one, slow enough to be interrupted
n2, d2 = 4000, 64
y2 = rng.integers(0, 4, n2)
X2 = (rng.normal(0, 1, (4, d2))[y2] * 0.3 + rng.normal(0, 1, (n2, d2))).astype(np.float32)
np.save(d + "/X2.npy", X2)
tags2 = ["tr"] * 3200 + ["va"] * 400 + ["te"] * 400
with open(d + "/big.txt", "w") as f:
    for i in range(n2):
        f.write("%s\tc%d\ts %d .\n" % (tags2[i], y2[i], i))
PY
DB=$TMP/r.db
"$SP" tasks import --db "$DB" --name syn "$TMP/syn.txt" >/dev/null
"$SP" tasks import --db "$DB" --name big "$TMP/big.txt" >/dev/null

# ---- empty store ----
"$SP" report --db "$DB" >"$TMP/empty.txt" 2>&1 && rc=0 || rc=$?
expect_eq "empty store: text exit 0" "$rc" 0
check "empty store: text says so" grep -q "no probe results or tree evaluations" "$TMP/empty.txt"
"$SP" report --db "$DB" --format json >"$TMP/empty.json" 2>/dev/null && rc=0 || rc=$?
expect_eq "empty store: json exit 0" "$rc" 0
expect_eq "empty store: json is the empty document" \
    "$($PY -c "import json,sys; print(json.load(open(sys.argv[1])))" "$TMP/empty.json")" "{'aggregates': [], 'probe_results': [], 'tree_evals': []}"
"$SP" report --db "$DB" --format csv >"$TMP/empty.csv" 2>/dev/null
expect_eq "empty store: csv is the header only" "$(cat "$TMP/empty.csv")" \
    "kind,id,run,encoder,layer,vectors,task,classifier,seed,method,corpus,split,subset,metric,class,pred_class,value"
check "report --help documents the CSV header" \
    grep -q "kind,id,run,encoder,layer,vectors,task,classifier,seed,method,corpus,split,subset,metric,class,pred_class,value" \
    "$("$SP" report --help >"$TMP/rhelp"; echo "$TMP/rhelp")"

# ---- probe --db --task stores one row ----
"$SP" probe --db "$DB" --task syn --vectors "$TMP/X.npy" --json --quiet >"$TMP/p1.json" 2>"$TMP/p1.err" && rc=0 || rc=$?
expect_eq "probe --db --task: exit 0" "$rc" 0
expect_eq "probe --db --task: one probe_result row" "$(count "$DB" "SELECT count(*) FROM probe_result")" 1
expect_eq "row: task_id of the stored task" \
    "$(count "$DB" "SELECT p.task_id = t.task_id FROM probe_result p, task t WHERE t.name = 'syn'")" 1
"$SP" report --db "$DB" --format json >"$TMP/rep.json"
check "report json: numbers equal probe --json, manifest complete, hash recomputed" $PY - "$TMP/p1.json" "$TMP/rep.json" "$TMP" <<'PY'
import json, sys, hashlib, numpy as np
p = json.load(open(sys.argv[1])); r = json.load(open(sys.argv[2])); d = sys.argv[3]
assert len(r["probe_results"]) == 1 and r["tree_evals"] == []
row = r["probe_results"][0]
assert row["id"] == p["result_id"] and row["task"] == "syn" and row["classifier"] == "logreg" and row["seed"] == 1111
assert row["run"] is None and row["created"]
assert abs(row["dev_acc"] - p["devacc"]) < 1e-9 and abs(row["test_acc"] - p["acc"]) < 1e-9
res = row["result"]
def same(a, b, path="$"):
    if isinstance(a, float) or isinstance(b, float):
        assert abs(a - b) <= 1e-8 * max(1, abs(b)), (path, a, b)
    elif isinstance(a, dict):
        assert set(a) == set(b), (path, set(a) ^ set(b))
        for k in a: same(a[k], b[k], path + "." + k)
    elif isinstance(a, list):
        assert len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b)): same(x, y, "%s[%d]" % (path, i))
    else:
        assert a == b, (path, a, b)
q = dict(p); q.pop("result_id")
same({k: v for k, v in res.items() if k != "manifest"}, q)
m = res["manifest"]
pr = m["protocol"]
assert pr["preset"] == "senteval-default" and pr["classifier"] == "logreg" and pr["optim"]["kind"] == "adam"
assert (pr["batch_size"], pr["tenacity"], pr["epoch_size"], pr["max_epoch"]) == (64, 5, 4, 200)
assert pr["l2_grid"] == [1e-5, 1e-4, 1e-3, 1e-2] and pr["nhid_grid"] == [0] and pr["dropout_grid"] == [0.0]
assert pr["seed"] == 1111 and pr["control_seed"] == 1111 and pr["threads"] == min(256, len(__import__("os").sched_getaffinity(0)))  # the default: the CPUs it may use
assert m["task"]["name"] == "syn" and m["task"]["source"] == "store" and m["task"]["kind"] == "imported"
assert m["vectors"]["path"].endswith("/X.npy") and m["vectors"]["shape"] == [300, 10]
v = m["versions"]
assert v["synprobe"] and v["sqlite"].startswith("3.") and v["jansson"] and v["blas"] and v["build"]
assert m["timestamp"].endswith("Z") and m["command"][:2] == ["synprobe", "probe"]
# the data hash, from the documented scheme
X = np.load(d + "/X.npy")
h = hashlib.sha256(b"synprobe-probe-data-v1 %d %d\n" % X.shape)
h.update(X.astype("<f4").tobytes())
for line in open(d + "/syn.txt"):
    tag, label, _ = line.rstrip("\n").split("\t")
    h.update(("%s\t%s\n" % (tag, label)).encode())
assert m["data"]["sha256"] == h.hexdigest(), (m["data"]["sha256"], h.hexdigest())
PY

# ---- the same data from the file (--save) gives the same hash and numbers (ordinal = file order) ----
"$SP" probe --task-file "$TMP/syn.txt" --vectors "$TMP/X.npy" --save "$DB" --json --quiet >"$TMP/p2.json"
expect_eq "--task-file --save: a second row (rows are kept, not replaced)" "$(count "$DB" "SELECT count(*) FROM probe_result")" 2
expect_eq "--task-file --save: no task_id" "$(count "$DB" "SELECT count(*) FROM probe_result WHERE task_id IS NULL")" 1
check "file and store give the same data hash and accuracies" $PY - "$DB" <<'PY'
import json, sqlite3, sys
rows = [json.loads(r[0]) for r in sqlite3.connect(sys.argv[1]).execute("SELECT result FROM probe_result ORDER BY result_id")]
a, b = rows
assert a["manifest"]["data"]["sha256"] == b["manifest"]["data"]["sha256"]
assert b["manifest"]["task"]["source"] == "file"
assert (a["devacc"], a["acc"], a["metrics"]["confusion"]) == (b["devacc"], b["acc"], b["metrics"]["confusion"])
PY

# ---- CSV: documented header, per-class support and confusion add up to the test items ----
"$SP" report --db "$DB" --task syn --format csv --out "$TMP/rep.csv"
check "csv: parses, header, supports and confusion sum to the test items, accuracy = diagonal" $PY - "$TMP/rep.csv" "$TMP/syn.txt" "$TMP/p1.json" <<'PY'
import csv, json, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
hdr = "kind,id,run,encoder,layer,vectors,task,classifier,seed,method,corpus,split,subset,metric,class,pred_class,value".split(",")
assert rows[0] == hdr, rows[0]
recs = [dict(zip(hdr, r)) for r in rows[1:]]
assert all(len(r) == len(hdr) for r in rows)
items = [l.rstrip("\n").split("\t") for l in open(sys.argv[2])]
n_test = sum(1 for t in items if t[0] == "te")
labels = sorted({t[1] for t in items})
p = json.load(open(sys.argv[3]))
one = [r for r in recs if r["id"] == str(p["result_id"])]
assert one and all(r["kind"] == "probe" and r["task"] == "syn" for r in one)
sup = [r for r in one if r["metric"] == "support"]
assert sorted(r["class"] for r in sup) == labels, [r["class"] for r in sup]
assert sum(int(r["value"]) for r in sup) == n_test
conf = [r for r in one if r["metric"] == "confusion"]
assert len(conf) == len(labels) ** 2 and sum(int(r["value"]) for r in conf) == n_test
diag = sum(int(r["value"]) for r in conf if r["class"] == r["pred_class"])
acc = [float(r["value"]) for r in one if r["metric"] == "accuracy" and r["split"] == "test"]
assert acc and abs(100.0 * diag / n_test - acc[0]) < 0.006, (diag, acc)
for s, want in (("train", 180), ("dev", 60), ("test", 60)):
    assert [int(r["value"]) for r in one if r["metric"] == "n" and r["split"] == s] == [want]
for c in labels:
    assert sum(int(r["value"]) for r in conf if r["class"] == c) == int([r["value"] for r in sup if r["class"] == c][0])
assert len([r for r in one if r["metric"] == "grid_devacc"]) == 4
PY

# ---- text ----
"$SP" report --db "$DB" >"$TMP/rep.txt"
check "text: header and a row per result" sh -c "grep -q 'probe results (2)' '$TMP/rep.txt' && grep -Eq '^ +1 +syn +logreg +1111 ' '$TMP/rep.txt'"

# ---- several seeds and classifiers: one row each ----
"$SP" probe --db "$DB" --task syn --vectors "$TMP/X.npy" --seed 1,2 --classifier logreg,mlp --nhid 8 --dropout 0.1 --quiet >/dev/null
expect_eq "--seed 1,2 --classifier logreg,mlp: four more rows" "$(count "$DB" "SELECT count(*) FROM probe_result")" 6
expect_eq "report --classifier mlp: two rows" \
    "$("$SP" report --db "$DB" --classifier mlp --format json | $PY -c "import json,sys; d=json.load(sys.stdin); print(len(d['probe_results']), sorted(r['seed'] for r in d['probe_results']), len(d['tree_evals']))")" \
    "2 [1, 2] 0"
expect_eq "report --run unknown: nothing" \
    "$("$SP" report --db "$DB" --run nosuch --format json 2>/dev/null | $PY -c "import json,sys; d=json.load(sys.stdin); print(len(d['probe_results']) + len(d['tree_evals']))")" 0

# ---- errors store nothing ----
"$SP" probe --db "$DB" --task nope --vectors "$TMP/X.npy" --quiet >/dev/null 2>"$TMP/nope.err" && rc=0 || rc=$?
expect_eq "unknown task: exit 1" "$rc" 1
check "unknown task: message" grep -q "no task 'nope'" "$TMP/nope.err"
"$SP" probe --db "$DB" --task syn --vectors "$TMP/Xshort.npy" --quiet >/dev/null 2>"$TMP/short.err" && rc=0 || rc=$?
expect_eq "row-count mismatch: exit 1" "$rc" 1
check "row-count mismatch: message names both" grep -q "Xshort.npy: 299 rows, but .*task 'syn' has 300 items" "$TMP/short.err"
"$SP" probe --db "$DB" --task syn --vectors "$TMP/X.npy" --no-save --quiet >/dev/null
expect_eq "errors and --no-save store nothing" "$(count "$DB" "SELECT count(*) FROM probe_result")" 6
"$SP" probe --task syn --vectors "$TMP/X.npy" >/dev/null 2>&1 && rc=0 || rc=$?
expect_eq "--task without --db: exit 2" "$rc" 2

# ---- an interrupted probe leaves no row (all rows are written at the end, in one transaction) ----
"$SP" probe --db "$DB" --task big --vectors "$TMP/X2.npy" --classifier mlp --seed 1,2,3 --quiet >/dev/null 2>&1 &
pid=$!
sleep 1
if kill -KILL "$pid" 2>/dev/null; then
    wait "$pid" 2>/dev/null || true
    expect_eq "probe killed mid-run: no row for its task" "$(count "$DB" "SELECT count(*) FROM probe_result WHERE task_name = 'big'")" 0
    expect_eq "probe killed mid-run: store still consistent" "$(count "$DB" "PRAGMA integrity_check")" ok
else
    not_ok "probe killed mid-run: it had already finished (make the big task bigger)"
fi

# ---- report errors ----
"$SP" report --db "$TMP/missing.db" >/dev/null 2>&1 && rc=0 || rc=$?
expect_eq "report on a missing store: exit 1" "$rc" 1
"$SP" report --db "$DB" --format xml >/dev/null 2>&1 && rc=0 || rc=$?
expect_eq "report --format xml: exit 2" "$rc" 2

# ---- trees --db / structprobe --db (real data) ----
if [ ! -d "$DATA" ]; then skip_rest "trees/structprobe part: $DATA not present"; fi
mkdir "$TMP/few"
for f in wsj_0001 wsj_0002 wsj_0003 wsj_0004 wsj_0005; do cp "$DATA/ptb-sample/combined/$f.mrg" "$TMP/few/"; done
"$SP" ingest --db "$DB" --corpus ptb --quiet "$TMP/few" >/dev/null 2>&1
"$SP" trees --db "$DB" --corpus ptb --baseline right --json >"$TMP/t1.json" 2>/dev/null
"$SP" trees --mrg "$TMP/few" --baseline right --json >"$TMP/t1-mrg.json" 2>/dev/null
check "trees --db: stdout unchanged (= --mrg)" cmp -s "$TMP/t1.json" "$TMP/t1-mrg.json"
expect_eq "trees --db: one tree_eval row" "$(count "$DB" "SELECT count(*) FROM tree_eval")" 1
expect_eq "trees --db: method, corpus" "$(count "$DB" "SELECT method || '/' || (SELECT name FROM corpus c WHERE c.corpus_id = e.corpus_id) FROM tree_eval e")" "right/ptb"
"$SP" trees --db "$DB" --corpus ptb --baseline left --no-save >/dev/null 2>&1
expect_eq "trees --no-save: nothing stored" "$(count "$DB" "SELECT count(*) FROM tree_eval")" 1
"$SP" trees --db "$DB" --corpus ptb --baseline random --seed 3 >/dev/null 2>&1
"$SP" report --db "$DB" --format json >"$TMP/rep2.json"
check "report json: tree_evals carry the printed figures and a manifest" $PY - "$TMP/t1.json" "$TMP/rep2.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1])); r = json.load(open(sys.argv[2]))
ev = r["tree_evals"]
assert [e["method"] for e in ev] == ["right", "random"] and all(e["corpus"] == "ptb" for e in ev)
res = ev[0]["result"]
for proto in ("protocol_a", "protocol_b"):
    for k, sub in t[proto].items():
        if isinstance(sub, list):     # sentence_f1_by_length: the same bins
            assert [b["n"] for b in sub] == [b["n"] for b in res[proto][k]], k
            continue
        for m, v in sub.items():
            assert abs(res[proto][k][m] - v) < 1e-7, (proto, k, m)
assert res["n_sentences"] == t["n_sentences"]
m = res["manifest"]
assert m["gold"]["corpus"] == "ptb" and m["source"]["name"] == "right" and m["seeds"] is None
assert ev[1]["result"]["manifest"]["seeds"] == [3]
assert m["versions"]["sqlite"] and m["timestamp"]
PY
"$SP" report --db "$DB" --method right >"$TMP/rep2.txt"
check "report text shows the tree evaluation" sh -c "grep -q 'tree evaluations (1' '$TMP/rep2.txt' && grep -Eq '^ +1 +right +ptb ' '$TMP/rep2.txt' && ! grep -q 'probe results' '$TMP/rep2.txt'"
"$SP" report --db "$DB" --format csv >"$TMP/rep2.csv"
check "csv: tree rows with protocol A/B metrics" $PY - "$TMP/rep2.csv" "$TMP/t1.json" <<'PY'
import csv, json, sys
recs = list(csv.DictReader(open(sys.argv[1], newline="")))
t = json.load(open(sys.argv[2]))
tr = [r for r in recs if r["kind"] == "tree" and r["method"] == "right"]
got = {(r["metric"], r["subset"]): float(r["value"]) for r in tr if r["value"]}
assert abs(got[("A_fmeasure", "all")] - t["protocol_a"]["all"]["fmeasure"]) < 1e-7
assert abs(got[("B_corpus_f1", "le10")] - t["protocol_b"]["corpus_f1"]["le10"]) < 1e-7
assert got[("n_sentences", "")] == t["n_sentences"]
PY

# attention from a file: identity attention = right-branching (docs/spec/probing.md §5.1, ties -> smallest k)
"$SP" trees --mrg "$TMP/few" --baseline right --gold-out "$TMP/few.gld" >/dev/null
$PY - "$TMP/few.gld" "$TMP/eye.npy" <<'PY'
import re, sys, numpy as np
lens = [len(re.findall(r'\([^() ]+ [^() ]+\)', l)) for l in open(sys.argv[1])]
a = np.zeros((len(lens), max(lens), max(lens)), np.float32)
for k, n in enumerate(lens): a[k, :n, :n] = np.eye(n)
np.save(sys.argv[2], a)
PY
"$SP" trees --db "$DB" --corpus ptb --attention "$TMP/eye.npy" --json >"$TMP/eye.json" 2>/dev/null
expect_eq "trees --attention --db: method names file and span score" \
    "$(count "$DB" "SELECT method FROM tree_eval ORDER BY eval_id DESC LIMIT 1")" "attention:$TMP/eye.npy:mean"
check "trees --attention --db: stored figures = right-branching" $PY - "$DB" "$TMP/t1.json" <<'PY'
import json, sqlite3, sys
r = json.loads(sqlite3.connect(sys.argv[1]).execute("SELECT result FROM tree_eval ORDER BY eval_id DESC LIMIT 1").fetchone()[0])
t = json.load(open(sys.argv[2]))
assert abs(r["protocol_a"]["all"]["fmeasure"] - t["protocol_a"]["all"]["fmeasure"]) < 1e-7
assert r["manifest"]["span_score"] == "mean" and r["manifest"]["source"]["shape"][0] == t["n_sentences"]
PY

"$SP" ingest --db "$DB" --corpus ptbdep --quiet "$DATA/ptb-sample/dependency/wsj_0001.dp" >/dev/null 2>&1
"$SP" structprobe --db "$DB" --corpus ptbdep --baseline linear --json >"$TMP/sp.json" 2>/dev/null
expect_eq "structprobe --db: stored as structprobe:linear" \
    "$(count "$DB" "SELECT method FROM tree_eval ORDER BY eval_id DESC LIMIT 1")" "structprobe:linear"
"$SP" report --db "$DB" --method structprobe:linear >"$TMP/rep3.txt"
check "report text: structural probes section" grep -q "structural probes (1)" "$TMP/rep3.txt"

done_testing
