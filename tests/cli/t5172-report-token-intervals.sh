# t5172-report-token-intervals.sh — token probes carry a 95% interval that resamples test sentences
# tier: fast
# Issue 24 ("no intervals for token probes"): a token probe records, per test sentence, its tokens
# and how many the probe labelled right; the report's interval (docs/spec/models.md M7.3, a ratio metric)
# resamples sentences, not tokens of one sentence as if independent. Checked against the
# independent SplitMix64 resampling of tests/reference/stats_ref.py on the stored per-sentence
# counts, and the counts against the stored accuracy. The first 300 sentences of UD EWT dev,
# a seeded random-init SAN's token vectors.
. tests/cli/lib.sh
need_data
need_numpy
awk 'BEGIN{n=0} {print} /^$/{n++; if (n >= 300) exit}' $DATA/ud-ewt/en_ewt-ud-dev.conllu >$TMP/ewt300.conllu
$SP ingest --db $TMP/s.db --corpus ewt $TMP/ewt300.conllu >$TMP/out 2>&1
$SP encode --db $TMP/s.db --corpus ewt --encoder encoder/configs/san.json --run san --token-vectors >>$TMP/out 2>&1
rc=0; $SP tokprobe --db $TMP/s.db --corpus ewt --run san --task upos --seed 1 >>$TMP/out 2>&1 || rc=$?
expect_eq "tokprobe upos: exit 0" "$rc" 0
$SP report --db $TMP/s.db --format json --out $TMP/r.json
$SP report --db $TMP/s.db --format html --out $TMP/h
cat >$TMP/check.py <<'P'
import json, sys
sys.path.insert(0, "tests/reference")
from stats_ref import resamples
rep = json.load(open(sys.argv[1]))
p = [x for x in rep["probe_results"] if x["task"] == "token:upos"][0]
m = p["result"]["metrics"]
tok, cnt = m["item_tokens"], m["item_correct_count"]
n = len(tok)
acc_ok = abs(100.0 * sum(cnt) / sum(tok) - p["test_acc"]) < 1e-9 and sum(tok) == p["result"]["ntest"]
vals = sorted(sum(cnt[i] for i in idx) / sum(tok[i] for i in idx) for idx in resamples(n))
k = max(1, int((1000 + 1) * 0.025))
lo, hi = 100 * vals[k - 1], 100 * vals[1000 - k]
a = [x for x in rep["aggregates"] if x["task"] == "token:upos"][0]
iv = a["test_acc"]["ci95"]
print(n > 10, acc_ok, abs(iv["lo"] - lo) < 1e-9 and abs(iv["hi"] - hi) < 1e-9, iv["n_items"] == n, iv["lo"] < iv["hi"])
P
expect_eq "per-sentence counts (over 10 test sentences) sum to the stored accuracy; the interval equals the independent resampling of sentences" \
    "$($PY $TMP/check.py $TMP/r.json)" "True True True True True"
check "the page shows the token probe's interval (no 'no interval' caveat)" sh -c "! grep -q 'carry no interval' $TMP/h/report.html"
done_testing
