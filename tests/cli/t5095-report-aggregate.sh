# t5095-report-aggregate.sh — probe results over seeds: mean, sd and bootstrap interval against Python
# tier: fast
# Issue 14 item 1: probe results of the same (encoder, task, classifier) are reported over seeds as
# mean ± sd with a 95% bootstrap interval over test items (docs/spec/models.md M7), n items and the number
# of seeds, flagged when the test set is too small. The expected aggregates are recomputed here by
# an independent implementation (Python: SplitMix64, cluster bootstrap, order statistics) from the
# per-seed results in the JSON report.
. tests/cli/lib.sh
need_numpy
mkdir -p $TMP/j
cp demo/demo.conllu demo/demo.mrg encoder/configs/san.json encoder/configs/ms-san.json $TMP/j/
cat >$TMP/j/job.json <<'J'
{
  "store": "out/store.db", "out": "out",
  "corpora": [{"name": "demo", "paths": ["demo.conllu", "demo.mrg"]}],
  "tasks": [{"tasks": ["Tense", "BShift"], "seed": 1, "split": "resplit"}],
  "encoders": [{"config": "san.json", "inputs": ["Tense", "BShift"], "attention": 0},
               {"config": "ms-san.json", "inputs": ["Tense", "BShift"], "attention": 0}],
  "probes": [{"classifier": ["logreg", "mlp"], "seed": [1, 2, 3], "preset": "senteval-fast"}],
  "reports": [{"format": "json", "out": "r.json"}, {"format": "text", "out": "r.txt"}, {"format": "csv", "out": "r.csv"}]
}
J
$SP run $TMP/j/job.json >$TMP/out 2>&1 && rc=0 || rc=$?
expect_eq "the job runs" "$rc" 0
R=$TMP/j/out
expect_eq "8 aggregates (2 encoders x 2 tasks x 2 classifiers) of 3 seeds each" \
    "$($PY -c "import json; a=json.load(open('$R/r.json'))['aggregates']; print(len(a), sorted(set(x['n_seeds'] for x in a)))")" "8 [3]"
cat >$TMP/check.py <<'P'
import json, math, sys
sys.path.insert(0, "tests/reference")
from stats_ref import resamples
rep = json.load(open(sys.argv[1]))
groups = {}
for p in rep["probe_results"]:
    run, task = p["run"], p["task"]
    enc = run[: -len(task) - 1] if run.endswith("-" + task) else run
    groups.setdefault((enc, task, p["classifier"]), []).append(p)
bad = 0
for a in rep["aggregates"]:
    mem = groups[(a["encoder"], a["task"], a["classifier"])]
    acc = [m["test_acc"] for m in mem]
    mean = sum(acc) / len(acc)
    sd = math.sqrt(sum((x - mean) ** 2 for x in acc) / (len(acc) - 1))
    corr = [m["result"]["metrics"]["item_correct"] for m in mem]
    n = len(corr[0])
    vals = [sum(sum(c[i] == "1" for i in idx) / n for c in corr) / len(corr) for idx in resamples(n)]
    vals.sort()
    k = max(1, int((1000 + 1) * 0.025))
    lo, hi = 100 * vals[k - 1], 100 * vals[1000 - k]
    t = a["test_acc"]
    ok = (abs(t["mean"] - mean) < 1e-9 and abs(t["sd"] - sd) < 1e-9 and abs(t["ci95"]["lo"] - lo) < 1e-9
          and abs(t["ci95"]["hi"] - hi) < 1e-9 and a["n_test"] == n and a["small_test"] == (n < 97)
          and t["ci95"]["wide_ci"] == (hi - lo > 10))
    if not ok:
        bad += 1
        print("mismatch", a["encoder"], a["task"], a["classifier"], t, mean, sd, lo, hi, n, file=sys.stderr)
print(bad)
P
expect_eq "every aggregate: mean, sd, interval, n and flags equal the independent computation" "$($PY $TMP/check.py $R/r.json)" 0
check "the text report has the aggregate table" grep -q '^test accuracy over seeds: mean ± sd, 95% interval' $R/r.txt
check "... with the small-test note (the demo's tasks have a few test items)" grep -q '^! fewer than 97 test items' $R/r.txt
expect_eq "the CSV has the same means (san, Tense, logreg)" \
    "$(grep '^aggregate,,san,san,,,Tense,logreg,,,,test,,accuracy_mean,' $R/r.csv | cut -d, -f17)" \
    "$($PY -c "import json; print('%.10g' % [a for a in json.load(open('$R/r.json'))['aggregates'] if a['encoder']=='san' and a['task']=='Tense' and a['classifier']=='logreg'][0]['test_acc']['mean'])")"
# --compare: the paired bootstrap (M7.4) recomputed independently on the same items
$SP report --db $R/store.db --compare san,ms-san --format json --out $TMP/cmp.json 2>$TMP/cmp.err && rc=0 || rc=$?
expect_eq "report --compare san,ms-san: exit 0" "$rc" 0
cat >$TMP/cmp.py <<'P'
import json, math, sys
sys.path.insert(0, "tests/reference")
from stats_ref import resamples
rep = json.load(open(sys.argv[1]))
def side(enc, task, clf):
    return [p["result"]["metrics"]["item_correct"] for p in rep["probe_results"]
            if p["run"] == enc + "-" + task and p["classifier"] == clf]
bad, n_cmp = 0, 0
for c in rep["comparisons"]:
    A, B = side("san", c["task"], c["classifier"]), side("ms-san", c["task"], c["classifier"])
    n = len(A[0])
    stat = lambda S, idx: sum(sum(s[i] == "1" for i in idx) / len(idx) for s in S) / len(S)
    full = list(range(n))
    d = stat(A, full) - stat(B, full)
    ds = [stat(A, idx) - stat(B, idx) for idx in resamples(n)]
    sg = 1 if d > 0 else -1
    cnt = sum(1 for x in ds if x * sg <= 0)
    p = 1.0 if d == 0 else min(1.0, 2 * cnt / 1000)
    ds.sort()
    lo, hi = 100 * ds[24], 100 * ds[975]
    ok = abs(c["delta"] - 100 * d) < 1e-9 and abs(c["lo"] - lo) < 1e-9 and abs(c["hi"] - hi) < 1e-9 and abs(c["p"] - p) < 1e-12
    n_cmp += 1
    if not ok:
        bad += 1
        print("mismatch", c, d, lo, hi, p, file=sys.stderr)
print(n_cmp, bad)
P
expect_eq "4 comparisons (2 tasks x 2 classifiers), each equal to the independent paired bootstrap" "$($PY $TMP/cmp.py $TMP/cmp.json)" "4 0"
$SP report --db $R/store.db --compare san >/dev/null 2>$TMP/e1 && rc=0 || rc=$?
expect_eq "--compare with one name: exit 2 (usage)" "$rc" 2
check "... it says pairs are expected" grep -q 'expected pairs of encoders or runs (A,B\[,C,D...\]), got 1 name$' $TMP/e1
$SP report --db $R/store.db --compare san,nosuch >/dev/null 2>$TMP/e2 && rc=0 || rc=$?
check "--compare with an unknown encoder: an error naming it" sh -c "[ $rc -ne 0 ] && grep -q 'compare san,nosuch: no task and classifier has results of both' $TMP/e2"
done_testing
