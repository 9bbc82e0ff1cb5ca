# t5166-report-latex-out.sh — `report --format latex|md`: --out written atomically, job-file report entries, --compare, empty stores
# tier: fast
# Issue 24 item 6: the paper tables go where the other formats go: `report --out FILE` (a temporary
# file renamed into place; a filter that matches nothing leaves FILE as it was), a job's
# "reports" entries with "format": "latex" / "md" (the same bytes as the command), a bad format
# refused at `run --check` with its JSON path; a job's tables name the job file and its SHA-256.
# The --compare table carries the JSON's comparison (difference, interval, p, mdd80) with the
# stated precision; a store without results gives a fragment that says so.
. tests/cli/lib.sh
DB=$TMP/s.db
$SP ingest --db $DB --corpus demo demo/demo.conllu demo/demo.mrg >/dev/null 2>&1
$SP tasks build --db $DB --corpus demo --tasks Tense --split resplit >/dev/null 2>&1
for e in san ms-san; do
    $SP encode --db $DB --task Tense --encoder encoder/configs/$e.json --run $e-Tense --quiet
    $SP probe --db $DB --task Tense --run $e-Tense --seed 1,2 >/dev/null 2>&1
done

# --out: atomic, and kept when a filter matches nothing
rc=0; $SP report --db $DB --format latex --out $TMP/t.tex 2>/dev/null || rc=$?
expect_eq "report --format latex --out FILE: exit 0" "$rc" 0
$SP report --db $DB --format latex >$TMP/stdout.tex 2>/dev/null
check "... the file is what stdout gets" cmp -s $TMP/t.tex $TMP/stdout.tex
cp $TMP/t.tex $TMP/keep.tex
rc=0; $SP report --db $DB --format latex --task NoSuchTask --out $TMP/t.tex 2>$TMP/e1 || rc=$?
check "a filter that matches nothing: exit 1, says nothing was written" sh -c "[ $rc = 1 ] && grep -q 'nothing written' $TMP/e1"
check "... and the file is as it was, no temporary file left" sh -c \
    "cmp -s $TMP/t.tex $TMP/keep.tex && [ \$(ls $TMP | grep -c '^t.tex') = 1 ]"
rc=0; $SP report --db $DB --format md --out $TMP/t.md 2>/dev/null || rc=$?
expect_eq "report --format md --out FILE: exit 0" "$rc" 0
check "... a Markdown pipe table, its head row" grep -q '^| encoder | Tense |$' $TMP/t.md
rc=0; $SP report --db $DB --format pdf >/dev/null 2>$TMP/e2 || rc=$?
check "--format pdf: usage error naming the formats" sh -c "[ $rc = 2 ] && grep -q 'latex' $TMP/e2 && grep -q 'md' $TMP/e2"
check "report --help names latex and md" sh -c "$SP report --help 2>&1 | grep -q -- '--format latex' && $SP report --help 2>&1 | grep -q -- '--format md'"

# job-file entries
mkdir -p $TMP/j
cat >$TMP/j/job.json <<J
{"store": "$DB", "out": "$TMP/j/out",
 "reports": [{"format": "latex", "out": "tables/t.tex"}, {"format": "md", "out": "t.md"}]}
J
rc=0; $SP run --check $TMP/j/job.json >$TMP/check 2>&1 || rc=$?
check "run --check: the two report steps as commands" sh -c \
    "[ $rc = 0 ] && grep -q -- '--format latex --out $TMP/j/out/tables/t.tex' $TMP/check && grep -q -- '--format md --out $TMP/j/out/t.md' $TMP/check"
rc=0; $SP run $TMP/j/job.json >$TMP/run.out 2>&1 || rc=$?
expect_eq "run: exit 0" "$rc" 0
check "... the job's LaTeX is the command's" cmp -s $TMP/j/out/tables/t.tex $TMP/t.tex
check "... the job's Markdown is the command's" cmp -s $TMP/j/out/t.md $TMP/t.md
printf '{"store": "%s", "reports": [{"format": "tex", "out": "x"}]}\n' "$DB" >$TMP/j/bad.json
rc=0; $SP run --check $TMP/j/bad.json >/dev/null 2>$TMP/e3 || rc=$?
check "a job's unknown report format: refused at --check with its JSON path" sh -c \
    "[ $rc != 0 ] && grep -q \"reports\[0\].format: expected text, json, csv, html, latex or md, got 'tex'\" $TMP/e3"

# a job that probes: its tables name the job file and the SHA-256 of its text (sha256sum here)
mkdir -p $TMP/k
cp demo/demo.conllu demo/demo.mrg encoder/configs/san.json $TMP/k/
cat >$TMP/k/job.json <<'J'
{"store": "out/s.db", "out": "out", "corpora": [{"name": "demo", "paths": ["demo.conllu", "demo.mrg"]}],
 "tasks": [{"tasks": ["Tense"], "seed": 1, "split": "resplit"}], "encoders": [{"config": "san.json", "inputs": ["Tense"]}],
 "probes": [{"classifier": ["logreg"], "seed": [1], "preset": "senteval-fast"}],
 "reports": [{"format": "latex", "out": "t.tex"}, {"format": "md", "out": "t.md"}]}
J
rc=0; $SP run --quiet $TMP/k/job.json >/dev/null 2>&1 || rc=$?
H=$(sha256sum $TMP/k/job.json | cut -d' ' -f1)
check "a job's tables: the LaTeX comment and the Markdown header name the job file and its sha256" sh -c \
    "[ $rc = 0 ] && grep -qx '% job: $TMP/k/job.json (sha256 $H)' $TMP/k/out/t.tex && grep -q 'Job: .*job.json (sha256 $H)' $TMP/k/out/t.md"

# --compare: the JSON's comparison, one decimal for points, three for p
$SP report --db $DB --compare san,ms-san --format json >$TMP/c.json 2>/dev/null
$SP report --db $DB --compare san,ms-san --format latex >$TMP/c.tex 2>/dev/null
$SP report --db $DB --compare san,ms-san --format md >$TMP/c.md 2>/dev/null
$PY - $TMP/c.json $TMP/c.tex $TMP/c.md <<'P' >$TMP/cmp
import json, sys
sys.path.insert(0, "tests/reference")
from report_tables_ref import parse_latex, parse_md, fmt
c = json.load(open(sys.argv[1]))["comparisons"][0]
t = [x for x in parse_latex(open(sys.argv[2], encoding="utf-8").read()) if x["id"] == "compare"][0]
m = [x for x in parse_md(open(sys.argv[3], encoding="utf-8").read()) if x["caption"].startswith("san vs ms-san")][0]
d = fmt(c["delta"])
want = ["Tense", "logreg", str(c["n_test"]), ("+" + d) if c["delta"] > 0 and d != "0.0" else d,
        "[%s, %s]" % (fmt(c["lo"]), fmt(c["hi"])), ("< " + fmt(c["p_floor"], 3)) if c.get("p_floor") else fmt(c["p"], 3),
        fmt(c["mdd80"])]
print("ok" if t["rows"] == [want] and m["rows"] == [want] and not t["problems"] else "%s %s %s" % (t["rows"], m["rows"], want))
P
expect_eq "--compare: the comparison table (LaTeX and Markdown) carries the JSON's figures" "$(cat $TMP/cmp)" "ok"

# a store without results
E=$TMP/e.db
$SP ingest --db $E --corpus demo demo/demo.conllu >/dev/null 2>&1
rc=0; $SP report --db $E --format latex >$TMP/e.tex 2>/dev/null || rc=$?
check "no results: exit 0, a fragment that says there are no tables" sh -c \
    "[ $rc = 0 ] && grep -q '^% no probe results or tree evaluations: no tables' $TMP/e.tex && ! grep -q 'begin{table}' $TMP/e.tex"
rc=0; $SP report --db $E --format md >$TMP/e.md 2>/dev/null || rc=$?
check "... and in Markdown" sh -c "[ $rc = 0 ] && grep -q '^No probe results or tree evaluations: no tables' $TMP/e.md"
done_testing
