# t5098-ptb-report.sh — the shipped PTB-sample job runs and its reports agree in every format
# tier: full
# Issue 14, done-when: the shipped PTB-sample job (contrib/jobs/ptb-sample.job.json: three encoders,
# five seeds, all ten tasks, attention trees and baselines) runs and its reports agree: the HTML
# page renders in headless Chromium with no console message, and the text, CSV and HTML carry the
# same aggregates as the JSON. The job is run as shipped, with its store and output folder moved
# into the scratch folder. Skips visibly without the PTB sample.
. tests/cli/lib.sh
need_data
need_numpy
case "$SP_BUILD" in
    */san|*/san/) skip_rest "the sanitizer build: the same stages run under it in t5095 and t5097; this 5-minute job runs once, in the normal build" ;;
esac
[ -d "$DATA/ptb-sample/combined" ] || skip_rest "$DATA/ptb-sample not present"
$PY - contrib/jobs/ptb-sample.job.json "$TMP" "$(cd "$DATA/.." && pwd)" <<'P'
import json, os, sys
src, tmp, shared_parent = sys.argv[1], sys.argv[2], sys.argv[3]
j = json.load(open(src))
here = os.path.dirname(os.path.abspath(src))
fix = lambda p: os.path.normpath(os.path.join(here, p))
for c in j["corpora"]: c["paths"] = [fix(p) for p in c["paths"]]
for e in j["encoders"]: e["config"] = fix(e["config"])
j["store"], j["out"] = tmp + "/ptb/ptb.db", tmp + "/ptb"
j["reports"].append({"format": "json", "out": "results.json"})
json.dump(j, open(tmp + "/job.json", "w"))
P
$SP run --quiet $TMP/job.json >$TMP/run.out 2>&1 && rc=0 || rc=$?
[ "$rc" = 0 ] || tail -5 $TMP/run.out
expect_eq "the PTB-sample job runs" "$rc" 0
R=$TMP/ptb
expect_eq "30 aggregates (3 encoders x 10 tasks), 5 seeds each, 150 probe results" \
    "$($PY -c "import json; r=json.load(open('$R/results.json')); a=r['aggregates']; print(len(a), sorted(set(x['n_seeds'] for x in a)), len(r['probe_results']))")" \
    "30 [5] 150"
cat >$TMP/same.py <<'P'
import csv, json, re, sys
R = sys.argv[1]
agg = json.load(open(R + "/results.json"))["aggregates"]
rows = {(r["run"], r["task"], r["metric"]): r["value"] for r in csv.DictReader(open(R + "/results.csv"))
        if r["kind"] == "aggregate" and r["split"] == "test"}
text = open(R + "/report.txt", encoding="utf-8").read()
html = open(R + "/report/report.html", encoding="utf-8").read()
bad = 0
for a in agg:
    m, lo, hi = a["test_acc"]["mean"], a["test_acc"]["ci95"]["lo"], a["test_acc"]["ci95"]["hi"]
    k = (a["encoder"], a["task"])
    ok = abs(float(rows[k + ("accuracy_mean",)]) - m) < 1e-6 and abs(float(rows[k + ("accuracy_ci_lo",)]) - lo) < 1e-6
    line = re.search(r"^%s\s+%s\s+logreg\s.*$" % (re.escape(a["encoder"]), re.escape(a["task"])), text, re.M)
    ok = ok and line is not None and ("%.2f" % m) in line.group(0) and ("[%.2f, %.2f]" % (lo, hi)) in line.group(0)
    ok = ok and ("<b>%.1f</b>" % m) in html and ("[%.1f, %.1f]" % (lo, hi)) in html   # the page: one decimal
    if not ok:
        bad += 1
        print("differs:", a["encoder"], a["task"], file=sys.stderr)
print(bad)
P
expect_eq "text, CSV and HTML carry the JSON's means and intervals" "$($PY $TMP/same.py $R)" 0
check "the comparison page has a row per task" sh -c "[ \$(grep -o '<td class=\"l\">logreg</td>' $R/compare/report.html | wc -l) -eq 10 ]"
check "tree extraction: attention and the three baselines" sh -c "grep -q '>right (baseline)<' $R/report/report.html && grep -q '>left (baseline)<' $R/report/report.html && grep -q '>random (baseline)<' $R/report/report.html && grep -q 'title=\"attention:run:ms-san' $R/report/report.html"
CHROME=$(command -v chromium || true)
if [ -n "$CHROME" ]; then
    timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --enable-logging=stderr --v=0 --user-data-dir=$TMP/chrome \
        --window-size=1200,3000 --screenshot=$TMP/shot.png "file://$R/report/report.html" >/dev/null 2>$TMP/chrome.err || true
    expect_eq "Chromium renders the PTB page without a console message" "$(grep -a -c CONSOLE $TMP/chrome.err || true)" 0
    check "... and takes its screenshot" test -s $TMP/shot.png
    echo "# PTB-sample report: $(wc -c <$R/report/report.html) bytes of HTML"
else
    skip "chromium not installed"
fi
done_testing
