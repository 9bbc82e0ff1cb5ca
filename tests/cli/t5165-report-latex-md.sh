# t5165-report-latex-md.sh — `report --format latex|md`: every table's numbers = text = JSON = CSV, cell by cell
# tier: fast
# Issue 24 item 6: tables for papers. A store with every kind of result (two encoders over two
# tasks and two seeds, one named with every LaTeX and Markdown special character, starting with a
# [ that the \\ ending the row above would take as its argument; runs toy-L0..L2
# for the layer table; token probes with control tasks; trained and linear structural probes;
# constituency trees from attention against right/random; a dependency tree and its baseline) is
# reported in the five formats, and tests/reference/report_tables_ref.py parses each on its own:
# LaTeX (booktabs, balanced braces, one cell per column, no bare special character) and Markdown
# (equal column counts) give the same cells; those cells are the means and sds computed in Python
# from the per-seed results in the JSON (one decimal, "-0.0" as "0.0"), the intervals and flags of
# the JSON, the trees' stored figures; the text report's (two decimals) and the CSV's agree too.
. tests/cli/lib.sh
DB=$TMP/t.db
C=encoder/configs
W='[a_b&c%~^{x}\$#|<y>--z*'
$SP ingest --db $DB --corpus demo demo/demo.conllu demo/demo.mrg >/dev/null 2>&1
$SP tasks build --db $DB --corpus demo --tasks Tense,SubjNum --split resplit >/dev/null 2>&1
for t in Tense SubjNum; do
    $SP encode --db $DB --task $t --encoder $C/san.json --run san-$t --quiet
    $SP encode --db $DB --task $t --encoder $C/ms-san.json --run "$W-$t" --quiet
    $SP encode --db $DB --task $t --encoder $C/san.json --run toy-L0-$t --quiet
    $SP encode --db $DB --task $t --encoder $C/ms-san.json --run toy-L1-$t --quiet
    $SP encode --db $DB --task $t --encoder $C/sg-net.json --run toy-L2-$t --quiet
    for r in san "$W" toy-L0 toy-L1 toy-L2; do $SP probe --db $DB --task $t --run "$r-$t" --seed 1,2 >/dev/null 2>&1; done
done
$SP encode --db $DB --corpus demo --encoder $C/san.json --run tok-L0 --token-vectors --attention 0 --quiet
$SP encode --db $DB --corpus demo --encoder $C/ms-san.json --run tok-L1 --token-vectors --attention 0 --quiet
for r in tok-L0 tok-L1; do
    for s in 1 2; do $SP tokprobe --db $DB --corpus demo --run $r --seed $s >/dev/null 2>&1; done
    $SP structprobe --db $DB --corpus demo --run $r --rank 16 >/dev/null 2>&1
    $SP trees --db $DB --corpus demo --run $r >/dev/null 2>&1
done
$SP trees --db $DB --corpus demo --baseline right >/dev/null 2>&1
$SP trees --db $DB --corpus demo --baseline random >/dev/null 2>&1
$SP structprobe --db $DB --corpus demo --baseline linear >/dev/null 2>&1
$SP trees --db $DB --corpus demo --run tok-L0 --dependency >/dev/null 2>&1
$SP trees --db $DB --corpus demo --baseline right --dependency >/dev/null 2>&1

for f in text json csv latex md; do
    rc=0; $SP report --db $DB --format $f --out $TMP/r.$f 2>$TMP/err.$f || rc=$?
    expect_eq "report --format $f --out: exit 0" "$rc" 0
done
$PY tests/reference/report_tables_ref.py $TMP/r.json $TMP/r.text $TMP/r.csv $TMP/r.latex $TMP/r.md >$TMP/cmp 2>&1 || true
sed 's/^/# /' $TMP/cmp | grep -v '^# cells' | head -20
expect_eq "LaTeX = Markdown = Python's numbers from the JSON = text = CSV, cell by cell: no mismatch" \
    "$(tail -1 $TMP/cmp | sed 's/cells [0-9]* //')" "mismatches 0"
check "... over at least 200 cells" sh -c "[ $(tail -1 $TMP/cmp | awk '{print $2}') -ge 200 ]"
expect_eq "tables: probing, layers (toy, tok), token probes, structural probes and by layer, trees, dependency trees" \
    "$(grep -o 'label{tab:synprobe-[a-z0-9-]*' $TMP/r.latex | sed 's/.*synprobe-//' | tr '\n' ' ')" \
    "probing-logreg layers-toy-logreg layers-tok-logreg token-logreg structural-probes structural-probes-by-layer tree-extraction dependency-trees "
check "the LaTeX starts with a comment naming booktabs and the store" sh -c \
    "head -3 $TMP/r.latex | grep -q '^% Needs .usepackage{booktabs}' && grep -q '^% store: $DB\$' $TMP/r.latex"
check "booktabs rules, no vertical rules or hlines" sh -c \
    "[ \$(grep -c '^.toprule\$' $TMP/r.latex) = 8 ] && [ \$(grep -c '^.bottomrule\$' $TMP/r.latex) = 8 ] && ! grep -q 'hline' $TMP/r.latex && ! grep -q 'begin{tabular}{[^}]*|' $TMP/r.latex"
$PY - "$W" $TMP/r.latex $TMP/r.md <<'P' >$TMP/esc
import sys
sys.path.insert(0, "tests/reference")
from report_tables_ref import latex_escape, md_escape
w, tex, md = sys.argv[1], open(sys.argv[2], encoding="utf-8").read(), open(sys.argv[3], encoding="utf-8").read()
print(tex.count("\n" + latex_escape(w, first_cell=True) + " & "), md.count("| " + md_escape(w) + " |"))
P
expect_eq "the run named $W: escaped in LaTeX and in Markdown (its row in the probing table)" "$(cat $TMP/esc)" "1 1"
check "the precision is stated in every caption" sh -c \
    "[ \$(grep -c '^.caption{.*one decimal' $TMP/r.latex) = 8 ] && [ \$(grep -c '^\*\*Table [0-9]*\.\*\* .*one decimal' $TMP/r.md) = 8 ]"
check "the flags' legend under the tables that use them" sh -c \
    "grep -q '^\$^{.dagger}\$ fewer than 97 test items' $TMP/r.latex && grep -q '^† fewer than 97 test items' $TMP/r.md"
if command -v pdflatex >/dev/null 2>&1; then
    printf '\\documentclass{article}\n\\usepackage{booktabs}\n\\begin{document}\n\\input{r.latex}\n\\end{document}\n' >$TMP/doc.tex
    rc=0; (cd $TMP && pdflatex -interaction=nonstopmode -halt-on-error doc.tex >pdflatex.log 2>&1) || rc=$?
    expect_eq "the fragment compiles in an article with booktabs (pdflatex)" "$rc" 0
else
    skip "pdflatex not installed (texlive-latex-base): the LaTeX is checked by parsing only"
fi
done_testing
