# t5243-report-rows-agree.sh — one store's results give the same numbers in every output: JSON, CSV, HTML, run summary, demo table
# tier: fast
# Issue 37 item 1: every output formats the typed rows of one results model (report/rows.h), so
# the same result is the same number wherever it is printed. The demo's store (three encoders,
# three tasks, constituency trees and baselines) is reported by one job in JSON, CSV and HTML; the
# run prints its summary and the demo its results table. Python reads the JSON (the stored values,
# whole) and checks each other output against it at that output's precision: the CSV's aggregate
# rows (%.10g), the HTML's probing cells (one decimal), the summary's best encoder per task and its
# baselines (two decimals), the demo's per-seed lines and its tree lines (two decimals).
# (t5165 checks LaTeX, Markdown and text against the JSON cell by cell.)
# Then the tree rows: a store of two layer runs of one encoder (tok-L0, tok-L1) over the demo
# corpus, each with a trained structural probe and constituency and dependency trees from its
# attention, with the right-branching, right-chain, adjacent and linear baselines. Python checks
# every figure of every tree evaluation and structural probe in the CSV (%.10g), the text report
# (two and four decimals), the Markdown tables (one decimal; correlations two; the by-layer table
# against the runs' own probes) and the HTML tables (one decimal; correlations three) against the
# stored JSON.
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

# ---- trees and structural probes ----
T=$TMP/t.db
{
    $SP ingest --db $T --corpus demo demo/demo.conllu demo/demo.mrg &&
    for k in 0 1; do
        cfg=san; [ $k = 1 ] && cfg=ms-san
        $SP encode --db $T --corpus demo --encoder encoder/configs/$cfg.json --run tok-L$k --token-vectors --attention 0 --quiet &&
        $SP structprobe --db $T --corpus demo --run tok-L$k --rank 16 &&
        $SP trees --db $T --corpus demo --run tok-L$k &&
        $SP trees --db $T --corpus demo --run tok-L$k --dependency || exit 1
    done &&
    $SP trees --db $T --corpus demo --baseline right &&
    $SP trees --db $T --corpus demo --baseline right --dependency &&
    $SP trees --db $T --corpus demo --baseline adjacent --dependency &&
    $SP structprobe --db $T --corpus demo --baseline linear
} >$TMP/t.out 2>&1
expect_eq "a store of two layer runs with trees, structural probes and baselines: made" "$?" 0
for f in json csv text md; do $SP report --db $T --format $f >$TMP/t.$f 2>>$TMP/t.err; done
$SP report --db $T --format html --out $TMP/th 2>>$TMP/t.err
expect_eq "its reports: no message beyond the counts" "$(grep -vc '^report: ' $TMP/t.err)" 0
$PY - $TMP/t.json $TMP/t.csv $TMP/t.text $TMP/t.md $TMP/th/report.html >$TMP/tchk <<'PY'
import csv, json, re, sys
j = json.load(open(sys.argv[1]))
rows = list(csv.DictReader(open(sys.argv[2])))
text = open(sys.argv[3]).read().splitlines()
md = open(sys.argv[4]).read().splitlines()
html = open(sys.argv[5], encoding="utf-8").read()
bad, n = [], 0
def agree(what, got, want):
    global n
    n += 1
    if got != want: bad.append(f"{what}: {got!r}, expected {want!r}")
def fmt(v, spec, none):
    if v is None: return none
    s = format(v, spec)
    return s[1:] if s.startswith("-") and set(s[1:]) <= set("0.") else s   # no "-0.0"
def get(r, path):
    for k in path.split("."):
        r = r.get(k) if isinstance(r, dict) else None
    return r
trees = j["tree_evals"]
sp = [t for t in trees if t["method"].startswith("structprobe:")]
dep = [t for t in trees if t["method"].startswith("dependency:")]
const = [t for t in trees if t not in sp and t not in dep]
# CSV: every figure of every evaluation, by id
csv_v = {(r["id"], r["subset"], r["metric"]): r["value"] for r in rows if r["kind"] == "tree"}
for t in trees:
    r, i = t["result"], str(t["id"])
    want = [("", "n_sentences", r.get("n_sentences"))]
    if t in sp:
        want += [("", k, r.get(k)) for k in ("uuas", "dspr", "root_acc", "nspr")]
    else:
        want += [(s, "A_" + m, get(r, f"protocol_a.{s}.{m}")) for s in ("all", "le40") for m in ("recall", "precision", "fmeasure")]
        want += [(s, f"B_{k}_f1", get(r, f"protocol_b.{k}_f1.{s}")) for s in ("all", "le40", "le10") for k in ("sentence", "corpus")]
        for b in get(r, "protocol_b.sentence_f1_by_length") or []:
            sub = f"len{b['lo']}-{b['hi']}" if "hi" in b and b["hi"] is not None else f"len{b['lo']}+"
            want += [(sub, "B_sentence_f1", b.get("f1")), (sub, "n_sentences", b.get("n"))]
    for sub, metric, v in want:
        agree(f"CSV tree {i} {sub} {metric}", csv_v.get((i, sub, metric)), "" if v is None else str(v) if isinstance(v, int) else f"{v:.10g}")
# text: the tree lines and the structural-probe lines, by id
lines = {l.split()[0]: l.split() for l in text if l.strip() and l.split()[0].isdigit()}
for t in const + dep:
    r = t["result"]
    want = [fmt(get(r, p), ".2f", "-") for p in ("protocol_a.all.fmeasure", "protocol_a.le40.fmeasure", "protocol_b.sentence_f1.all",
                                                  "protocol_b.sentence_f1.le40", "protocol_b.corpus_f1.all")]
    agree(f"text tree {t['id']}", lines.get(str(t["id"]), [])[-6:], [str(r["n_sentences"])] + want)
for t in sp:
    r = t["result"]
    want = [str(r["n_sentences"]), fmt(r.get("uuas"), ".2f", "-"), fmt(r.get("dspr"), ".4f", "-"), fmt(r.get("root_acc"), ".2f", "-"),
            fmt(r.get("nspr"), ".4f", "-")]
    agree(f"text structural probe {t['id']}", lines.get(str(t["id"]), [])[-5:], want)
# Markdown: the tables' cells
def md_rows(caption):
    out, on = [], False
    for l in md:
        if l.startswith("**Table"): on = caption in l
        elif on and l.startswith("| ") and not l.startswith("| :--"): out.append([c.strip().replace("\\_", "_") for c in l.strip("|").split(" | ")])
    return out[1:]   # less the head
def unbold(c): return c.strip("*")
got = {r[0]: r[2:] for r in md_rows("Structural probes (Hewitt")}
trained = [t for t in sp if t["method"] != "structprobe:linear"]
for t in trained:
    r = t["result"]
    agree(f"md structural probe {t['method']}", got.get(t["method"][12:]),
          [str(r["n_sentences"]), fmt(r["uuas"], ".1f", "–"), fmt(r["dspr"], ".2f", "–"), fmt(r["root_acc"], ".1f", "–"), fmt(r["nspr"], ".2f", "–")])
lb = trained[0]["result"]["linear_baseline"]
agree("md linear baseline (test sentences)", got.get("linear baseline (the trained probes' test sentences)"),
      [str(lb["n_sentences"]), fmt(lb["uuas"], ".1f", "–"), fmt(lb["dspr"], ".2f", "–"), fmt(lb["root_acc"], ".1f", "–"), fmt(lb["nspr"], ".2f", "–")])
byl = {r[2]: [unbold(c) for c in r[3:]] for r in md_rows("Structural probes by layer")}
for m, spec in (("uuas", ".1f"), ("dspr", ".2f")):
    want = [fmt(t["result"][m], spec, "–") for t in sorted(trained, key=lambda t: t["method"])] + [fmt(lb[m], spec, "–")]
    agree(f"md structural probes by layer {m}", byl.get(m.upper() if m == "uuas" else "DSpr"), want)
got = {r[0]: r[2:] for r in md_rows("Constituency trees extracted")}
for t in const:
    r = t["result"]
    agree(f"md tree {t['method']}", got.get(t["method"]), [str(r["n_sentences"])] + [fmt(get(r, p), ".1f", "–") for p in
          ("protocol_a.all.fmeasure", "protocol_a.le40.fmeasure", "protocol_b.sentence_f1.all", "protocol_b.sentence_f1.le40",
           "protocol_b.sentence_f1.le10", "protocol_b.corpus_f1.all")])
got = {r[0]: r[2:] for r in md_rows("Dependency trees from attention")}
for t in dep:
    r = t["result"]
    agree(f"md dependency {t['method']}", got.get(t["method"][11:]), [str(r["n_sentences"])] + [fmt(r.get(k), ".1f", "–") for k in ("uas", "uuas_dir", "uuas_mst")])
# HTML: the tables' cells, by the method in the row's tooltip
cells = {m: re.findall(r"<td>([^<]*)</td>", rest) for m, rest in re.findall(r'<tr><td class="l" title="([^"]*)">.*?</td><td class="l">[^<]*</td>(.*?)</tr>', html)}
for t in trees:
    r = t["result"]
    if t in sp: want = [fmt(get(r, p), f, "–") for p, f in (("n_sentences", ".0f"), ("uuas", ".1f"), ("dspr", ".3f"), ("root_acc", ".1f"),
                        ("nspr", ".3f"), ("linear_baseline.uuas", ".1f"), ("linear_baseline.dspr", ".3f"))]
    elif t in dep: want = [fmt(get(r, p), f, "–") for p, f in (("n_sentences", ".0f"), ("uas", ".1f"), ("uuas_dir", ".1f"), ("uuas_mst", ".1f"))]
    else: want = [fmt(get(r, p), ".0f" if p == "n_sentences" else ".1f", "–") for p in ("n_sentences", "protocol_a.all.fmeasure",
                  "protocol_a.le40.fmeasure", "protocol_b.sentence_f1.all", "protocol_b.sentence_f1.le40", "protocol_b.sentence_f1.le10",
                  "protocol_b.corpus_f1.all")]
    agree(f"HTML {t['method']}", cells.get(t["method"]), want)
print(f"checked {n} numbers and lines over {len(const)} constituency, {len(dep)} dependency evaluations, {len(sp)} structural probes")
for b in bad: print(b)
print(f"mismatches {len(bad)}")
PY
sed 's/^/# /' $TMP/tchk | head -20
expect_eq "trees: JSON = CSV = text = Markdown = HTML, figure by figure: no mismatch" "$(tail -1 $TMP/tchk)" "mismatches 0"
check "... over 3 constituency, 4 dependency evaluations and 3 structural probes" \
    grep -q ' over 3 constituency, 4 dependency evaluations, 3 structural probes$' $TMP/tchk
done_testing
