# t5190-report-compare-pooled.sh — report --compare takes pairs and shell patterns that pool several encoders (training seeds) into one side
# tier: fast
# Issue 25 item 4: the trained-vs-random job compares each trained kind with the trained SAN and
# with its own random init, three training seeds pooled per side. `--compare A,B,C,D` gives one
# table per pair; a name may be a shell pattern ("ms-san-s*"): every run it matches is a member of
# that side, as the seeds of one encoder are. The pooled paired bootstrap is recomputed here
# independently (Python, SplitMix64 resamples of tests/reference/stats_ref.py).
. tests/cli/lib.sh
need_numpy
mkdir -p $TMP/j
cp demo/demo.conllu demo/demo.mrg encoder/configs/san.json encoder/configs/ms-san.json $TMP/j/
cat >$TMP/j/job.json <<'J'
{
  "store": "out/store.db", "out": "out",
  "corpora": [{"name": "demo", "paths": ["demo.conllu", "demo.mrg"]}],
  "tasks": [{"tasks": ["Tense", "BShift"], "seed": 1, "split": "resplit"}],
  "encoders": [{"config": "san.json", "run": "san-s1", "seed": 1, "inputs": ["Tense", "BShift"], "attention": 0},
               {"config": "san.json", "run": "san-s2", "seed": 2, "inputs": ["Tense", "BShift"], "attention": 0},
               {"config": "ms-san.json", "run": "ms-san-s1", "seed": 1, "inputs": ["Tense", "BShift"], "attention": 0},
               {"config": "ms-san.json", "run": "ms-san-s2", "seed": 2, "inputs": ["Tense", "BShift"], "attention": 0}],
  "probes": [{"classifier": ["logreg"], "seed": [1, 2], "preset": "senteval-fast"}]
}
J
$SP run $TMP/j/job.json >$TMP/out 2>&1 && rc=0 || rc=$?
expect_eq "the job runs" "$rc" 0
R=$TMP/j/out
$SP report --db $R/store.db --compare 'ms-san-s*,san-s*,san-s1,san-s2' --format json --out $TMP/cmp.json 2>$TMP/cmp.err && rc=0 || rc=$?
expect_eq "report --compare 'ms-san-s*,san-s*,san-s1,san-s2': exit 0" "$rc" 0
cat >$TMP/cmp.py <<'P'
import fnmatch, json, sys
sys.path.insert(0, "tests/reference")
from stats_ref import resamples
rep = json.load(open(sys.argv[1]))
def side(pat, task, clf):
    return sorted((p["run"], p["result"]["metrics"]["item_correct"]) for p in rep["probe_results"]
                  if fnmatch.fnmatchcase(p["run"][: -len(task) - 1], pat) and p["task"] == task and p["classifier"] == clf)
out = []
for c in rep["comparisons"]:
    A, B = side(c["a"], c["task"], c["classifier"]), side(c["b"], c["task"], c["classifier"])
    encs = lambda S, t: sorted(set(r[: -len(t) - 1] for r, _ in S))
    A_runs, B_runs = encs(A, c["task"]), encs(B, c["task"])
    A, B = [x for _, x in A], [x for _, x in B]
    n = len(A[0])
    stat = lambda S, idx: sum(sum(s[i] == "1" for i in idx) / len(idx) for s in S) / len(S)
    full = list(range(n))
    d = stat(A, full) - stat(B, full)
    ds = sorted(stat(A, idx) - stat(B, idx) for idx in resamples(n))
    ok = (abs(c["delta"] - 100 * d) < 1e-9 and abs(c["lo"] - 100 * ds[24]) < 1e-9 and abs(c["hi"] - 100 * ds[975]) < 1e-9
          and sorted(c["encoders_a"]) == A_runs and sorted(c["encoders_b"]) == B_runs
          and c["n_seeds_a"] == len(A) and c["n_seeds_b"] == len(B))
    if not ok:
        print("mismatch", c, d, ds[24], ds[975], A_runs, B_runs, file=sys.stderr)
    out.append("%s|%s|%s|%d|%d|%s" % (c["a"], c["b"], c["task"], len(A), len(B), "ok" if ok else "BAD"))
print(" ".join(out))
P
expect_eq "4 comparisons in the pairs' order; the patterns pool 2 runs x 2 probe seeds a side; each equal to the independent paired bootstrap" \
    "$($PY $TMP/cmp.py $TMP/cmp.json)" \
    "ms-san-s*|san-s*|Tense|4|4|ok ms-san-s*|san-s*|BShift|4|4|ok san-s1|san-s2|Tense|2|2|ok san-s1|san-s2|BShift|2|2|ok"
$SP report --db $R/store.db --compare 'ms-san-s*,san-s*,san-s1,san-s2' >$TMP/cmp.txt 2>&1
expect_eq "text: one table per pair" "$(grep -c '^[^ ].* vs .*: difference of test accuracy' $TMP/cmp.txt)" 2
check "text: the pooled side names its encoders" grep -q '^  ms-san-s\* pools 2 encoders: ms-san-s1, ms-san-s2$' $TMP/cmp.txt
$SP report --db $R/store.db --compare 'ms-san-s*,san-s*,san-s1,san-s2' --format html --out $TMP/html 2>/dev/null
expect_eq "html: one table per pair under one Comparisons section" \
    "$(sed -n '/<section id="compare">/,/<\/section>/p' $TMP/html/report.html | grep -o '<h3>[^<]*</h3>' | tr '\n' ' ')" "<h3>ms-san-s* vs san-s*</h3> <h3>san-s1 vs san-s2</h3> "
$SP report --db $R/store.db --compare 'ms-san-s*,san-s*,san-s1,san-s2' --format md >$TMP/cmp.md 2>/dev/null
expect_eq "md: two comparison tables, the pooled one saying so (its * escaped)" "$(grep -c 'difference of test accuracy' $TMP/cmp.md) $(grep -cF 'ms-san-s\* pools 2 encoders: ms-san-s1, ms-san-s2' $TMP/cmp.md)" "2 1"
$SP report --db $R/store.db --compare 'san-s*,san-s1' --format json --out $TMP/ov.json 2>/dev/null
expect_eq "an encoder on both sides: no comparison, the reason instead" \
    "$($PY -c "import json; print(set(c.get('error') for c in json.load(open('$TMP/ov.json'))['comparisons']))")" \
    "{'an encoder is on both sides: no paired comparison'}"
$SP report --db $R/store.db --compare 'san-s1,san-s2,ms-san-s1' >/dev/null 2>$TMP/e3 && rc=0 || rc=$?
expect_eq "three names: exit 2 (usage)" "$rc" 2
check "... the message says pairs" grep -q 'expected pairs of encoders or runs (A,B\[,C,D...\]), got 3 names' $TMP/e3
$SP report --db $R/store.db --compare 'san-s1,san-s2,gru-*,san-s1' >/dev/null 2>$TMP/e4 && rc=0 || rc=$?
check "a pattern that matches nothing: an error naming the pair" sh -c "[ $rc -ne 0 ] && grep -q 'compare gru-\*,san-s1: no task and classifier has results of both' $TMP/e4"
done_testing
