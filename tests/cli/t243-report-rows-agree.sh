# t243-report-rows-agree.sh — one store's results give the same numbers in every output: JSON, CSV, HTML, run summary, demo table
# tier: fast
# Issue 37 item 1: every output formats the typed rows of one results model (report/rows.h), so
# the same result is the same number wherever it is printed. The demo's store (three encoders,
# three tasks, constituency trees and baselines) is reported by one job in JSON, CSV and HTML; the
# run prints its summary and the demo its results table. Python reads the JSON (the stored values,
# whole) and checks each other output against it at that output's precision: the CSV's aggregate
# rows (%.10g), the HTML's probing cells (one decimal), the summary's best encoder per task and its
# baselines (two decimals), the demo's per-seed lines and its tree lines (two decimals).
# (t165 checks LaTeX, Markdown and text against the JSON cell by cell.)
. tests/cli/lib.sh
D=$TMP/d
$SP demo --out $D >$TMP/demo.out 2>$TMP/demo.err
expect_eq "demo: exit 0" "$?" 0
printf '{"store": "demo.db", "out": ".", "reports": [{"format": "json", "out": "r.json"}, {"format": "csv", "out": "r.csv"}, {"format": "html", "out": "html"}]}\n' >$D/r.job.json
rc=0; (cd $D && $SP run r.job.json) >$TMP/run.out 2>&1 || rc=$?
expect_eq "a job of three reports on the demo's store: exit 0" "$rc" 0
sed -n '/^summary: /,/^synprobe run: /p' $TMP/run.out | sed '1,2d;$d' | grep -v '^!' >$TMP/summary
sed -n '/^Probing accuracy/,/^  (the demo tasks/p' $TMP/demo.out | sed '1,2d;$d' >$TMP/demo.probes
sed -n '/^Trees from attention/,/^$/p' $TMP/demo.out | sed '1,2d' | grep . >$TMP/demo.trees
$PY - $D/r.json $D/r.csv $D/html/report.html $TMP/summary $TMP/demo.probes $TMP/demo.trees >$TMP/chk <<'PY'
import csv, json, re, sys
j = json.load(open(sys.argv[1]))
rows = list(csv.DictReader(open(sys.argv[2])))
html = open(sys.argv[3], encoding="utf-8").read()
summary = [l.split(None, 6) for l in open(sys.argv[4])]
demo_p = [l.split() for l in open(sys.argv[5])]
demo_t = [l.split() for l in open(sys.argv[6])]
bad = []
def f2(v): return "n/a" if v is None else f"{v:.2f}"
def agree(what, got, want):
    if got != want: bad.append(f"{what}: {got!r}, expected {want!r}")
aggs = j["aggregates"]
# CSV: every aggregate's statistics, as the JSON's numbers
key = lambda r: (r["run"], r["task"], r["classifier"])
csv_agg = {}
for r in rows:
    if r["kind"] == "aggregate": csv_agg[(key(r), r["split"], r["metric"])] = r["value"]
for a in aggs:
    k = (a["encoder"], a["task"], a["classifier"])
    for split, metric, v in [("test", "accuracy_mean", a["test_acc"]["mean"]), ("test", "accuracy_sd", a["test_acc"]["sd"]),
                             ("dev", "accuracy_mean", a["dev_acc"]["mean"]),
                             ("test", "majority_accuracy_mean", a["majority_acc"]["mean"]),
                             ("test", "control_accuracy_mean", a["control_acc"]["mean"]),
                             ("test", "selectivity_mean", a["control_selectivity"]["mean"]), ("test", "n", a["n_test"])]:
        got = csv_agg.get((k, split, metric))
        want = "" if v is None else (str(v) if isinstance(v, int) else f"{v:.10g}")
        agree(f"CSV {k} {split} {metric}", got, want)
# HTML: every aggregate's mean in a probing cell, one decimal
cells = re.findall(r"<td><b>([0-9.]+)</b>", html)
for a in aggs:
    m = f"{a['test_acc']['mean']:.1f}"
    if m in cells: cells.remove(m)
    else: bad.append(f"HTML: no probing cell {m} for {a['encoder']} {a['task']}")
# summary: per task the first best mean, its baselines
for t in dict.fromkeys(a["task"] for a in aggs):
    best = None
    for a in aggs:
        if a["task"] == t and a["test_acc"]["mean"] is not None and (best is None or a["test_acc"]["mean"] > best["test_acc"]["mean"]):
            best = a
    line = [l for l in summary if l[0] == "task" and l[1] == t]
    if len(line) != 1: bad.append(f"summary: {len(line)} lines for task {t}"); continue
    l = line[0]
    agree(f"summary {t} best", l[2], best["encoder"])
    agree(f"summary {t} score", l[4], f2(best["test_acc"]["mean"]))
    agree(f"summary {t} n", l[5].rstrip("!"), str(best["n_test"]))
    agree(f"summary {t} baselines", l[6].strip(),
          f"majority {f2(best['majority_acc']['mean'])}, length {f2(best['length_acc']['mean'])}, "
          f"control {f2(best['control_acc']['mean'])}, selectivity {best['control_selectivity']['mean']:+.2f}")
# demo: one line per stored probe result, by task then id; one per tree evaluation
pr = sorted(j["probe_results"], key=lambda p: (p["task"].encode(), p["id"]))
agree("demo: probe lines", len(demo_p), len(pr))
for p, l in zip(pr, demo_p):
    b = p["result"]["baselines"]
    want = [p["task"], f2(p["test_acc"]), "[" + f2(p["dev_acc"]) + "]", f2(b["majority"]["acc"]), f2(b["control"]["acc"]),
            f2(b["control"]["selectivity"])]
    got = [l[0]] + l[2:4] + l[4:]
    if len(l) == 8: got = [l[0], l[2], l[3] + l[4], l[5], l[6], l[7]]   # "[ 50.00]": the bracket apart
    agree(f"demo probe line {p['id']}", got, want)
agree("demo: tree lines", len(demo_t), len(j["tree_evals"]))
for t, l in zip(j["tree_evals"], demo_t):
    r = t["result"]
    want = [t["method"], str(r["n_sentences"]), f2(r.get("protocol_a", {}).get("all", {}).get("fmeasure")),
            f2(r.get("protocol_b", {}).get("sentence_f1", {}).get("all"))]
    agree(f"demo tree line {t['id']}", l, want)
n = 7 * len(aggs) + len(aggs) + len(set(a["task"] for a in aggs)) * 4 + len(pr) + len(j["tree_evals"])
print(f"checked {n} numbers and lines over {len(aggs)} aggregates, {len(pr)} probe results, {len(j['tree_evals'])} tree evaluations")
for b in bad: print(b)
print(f"mismatches {len(bad)}")
PY
sed 's/^/# /' $TMP/chk | head -20
expect_eq "JSON = CSV = HTML = summary = demo table, number by number: no mismatch" "$(tail -1 $TMP/chk)" "mismatches 0"
check "... over 9 aggregates, 9 probe results and 6 tree evaluations" \
    grep -q ' over 9 aggregates, 9 probe results, 6 tree evaluations$' $TMP/chk
done_testing
