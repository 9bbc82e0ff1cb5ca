# t6156-run-summary.sh — `run` ends with a summary: per task the best layer/encoder on test, against its baselines
# tier: fast
# Issue 24 item 5: a run's closing summary, read back from the store. Per SentEval task and token
# probe, the best encoder label (MiniLM's layers minilm-L0..L6 and a SAN) by mean test accuracy
# over seeds; per corpus the best trained structural probe by UUAS and the best attention trees by
# EVALB F1 (constituency) and UAS (dependency); n test items with "!" below the report's threshold
# (97, report/agg.h). Expected values computed here by Python: the arg-max over
# `report --format csv` (probe rows, test accuracy, mean over the seeds) and over
# `report --format json`'s tree evaluations (the CSV carries no UAS).
# Needs the real model (make models); skips visibly.
. tests/cli/lib.sh
need_models
M=$(cd $MODELS/all-MiniLM-L6-v2 && pwd)
J=$TMP/j
mkdir -p $J
cp demo/demo.conllu demo/demo.mrg encoder/configs/san.json encoder/configs/ms-san.json $J/
printf '{"kind": "bert", "model": "%s"}\n' "$M" >$J/minilm.json
cat >$J/job.json <<'JOB'
{"store": "out/s.db", "out": "out",
 "corpora": [{"name": "demo", "paths": ["demo.conllu", "demo.mrg"]}],
 "tasks": [{"tasks": ["Tense", "SubjNum", "SOMO"], "seed": 1, "split": "resplit"}],
 "encoders": [{"config": "minilm.json", "layers": "all", "inputs": ["demo", "Tense", "SubjNum", "SOMO"], "token-vectors": true},
              {"config": "san.json", "inputs": ["demo", "Tense", "SubjNum", "SOMO"], "attention": 0},
              {"config": "ms-san.json", "inputs": ["demo"], "attention": 0}],
 "probes": [{"classifier": ["logreg"], "seed": [1, 2], "preset": "senteval-fast"}],
 "trees": [{}, {"baseline": "right"}, {"dependency": true}, {"baseline": "left", "dependency": true}],
 "structprobes": [{"rank": 16, "max-epochs": 5}, {"baseline": "linear"}],
 "tokprobes": [{"task": "upos", "max-epoch": 20}],
 "reports": [{"format": "json", "out": "r.json"}, {"format": "csv", "out": "r.csv"}]}
JOB
rc=0; $SP run $J/job.json >$TMP/out 2>$TMP/err || rc=$?
[ "$rc" = 0 ] || tail -5 $TMP/out $TMP/err | sed 's/^/# /'
expect_eq "the job runs: exit 0" "$rc" 0
sed -n '/^summary: /,/^synprobe run: /p' $TMP/out | sed '1,2d;$d' >$TMP/summary
sed 's/^/# /' $TMP/summary
$PY - $TMP/summary $J/out/r.csv $J/out/r.json >$TMP/chk <<'PY'
import csv, json, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip() and not l.startswith("!")]
notes = [l for l in open(sys.argv[1]) if l.startswith("!")]
got = {(r[0], r[1]): r for r in rows}
# probes: mean test accuracy per (task, encoder label) over seeds, from the CSV
acc, n = {}, {}
for r in csv.DictReader(open(sys.argv[2])):
    if r["kind"] != "probe" or r["split"] != "test": continue
    label = r["encoder"] + ("-L" + r["layer"] if r["layer"] else "")
    key = (r["task"], label)
    if r["metric"] == "accuracy": acc.setdefault(key, []).append(float(r["value"]))
    if r["metric"] == "n": n[key] = int(r["value"])
want = {}
for (task, label), v in acc.items():
    want.setdefault(task, {})[label] = sum(v) / len(v)
out = []
def judge(kind, task, scores, nn, metric):
    r = got.get((kind, task))
    if not r: out.append("BAD no line for %s %s" % (kind, task)); return
    best = max(scores.values())
    cands = sorted(l for l, s in scores.items() if s >= best - 1e-6)
    _, _, b, m, score, nstr = r[:6]
    if b not in cands: out.append("BAD %s %s: best %s, want one of %s (%.4f)" % (kind, task, b, cands, best))
    if abs(float(score) - best) > 0.0051: out.append("BAD %s %s: score %s, want %.4f" % (kind, task, score, best))
    if m != metric: out.append("BAD %s %s: metric %s, want %s" % (kind, task, m, metric))
    k = nn(b)
    if nstr != "%d%s" % (k, "!" if k < 97 else ""): out.append("BAD %s %s: n %s, want %d (! below 97)" % (kind, task, nstr, k))
for task, scores in want.items():
    kind, name = ("token", task[6:]) if task.startswith("token:") else ("task", task)
    judge(kind, name, scores, lambda b: n[(task, b)], "acc")
# structural probes and trees, from the JSON
tr = json.load(open(sys.argv[3]))["tree_evals"]
sp = {t["method"].split("run=", 1)[1]: t for t in tr if t["method"].startswith("structprobe:trained:run=")}
judge("structprobe", "demo", {k: t["result"]["uuas"] for k, t in sp.items()}, lambda b: sp[b]["result"]["n_sentences"], "UUAS")
for dep in (True, False):
    ts = {t["run"]: t for t in tr if t["run"] and not t["method"].startswith("structprobe:") and ("uas" in t["result"]) == dep}
    sc = {k: (t["result"]["uas"] if dep else t["result"]["protocol_a"]["all"]["fmeasure"]) for k, t in ts.items()}
    judge("trees", "demo/" + ("dep" if dep else "const"), sc, lambda b: ts[b]["result"]["n_sentences"], "UAS" if dep else "F1")
print("\n".join(out))
print("lines", len(rows), "kinds", " ".join(sorted(set(r[0] for r in rows))), "labels", len(want["Tense"]), "note", len(notes))
PY
grep BAD $TMP/chk | head -8 | sed 's/^/# /'
expect_eq "the summary's best per task = the arg-max from report --format csv / json, with its score, metric and n" \
    "$(grep -c BAD $TMP/chk)" 0
expect_eq "... a line per task, token probe, structural probe and tree kind; 8 encoders per task; the small-test note once" \
    "$(tail -1 $TMP/chk)" "lines 7 kinds structprobe task token trees labels 8 note 1"
expect_eq "... the tree baselines on the trees' lines (right for constituency, left for dependency)" \
    "$(grep -c '^trees .* right [0-9]' $TMP/summary) $(grep -c '^trees .* left [0-9]' $TMP/summary)" "1 1"
expect_eq "... the structural probe against the linear baseline; SentEval tasks against majority and control" \
    "$(grep -c '^structprobe .* linear [0-9]' $TMP/summary) $(grep -c '^task .* majority [0-9.]*, length [0-9.]*, control [0-9.]*, selectivity [-+]' $TMP/summary)" \
    "1 3"
done_testing
