# t5167-report-latex-demo.sh — the demo's store as LaTeX and Markdown tables: one seed, tiny test sets, every number as in text/JSON/CSV
# tier: fast
# Issue 24 item 6 on the store a new user has first (`synprobe demo`): three encoders × three tasks
# with one seed (no sd: the cell is the mean alone), two test items each (every n flagged †, the
# 0–100 intervals flagged *), four attention methods against two baselines. Each format is parsed
# on its own by tests/reference/report_tables_ref.py and compared cell by cell with the numbers
# computed in Python from the JSON's per-seed results (one decimal; text two).
. tests/cli/lib.sh
rc=0; $SP demo --out $TMP/d >$TMP/demo.out 2>&1 || rc=$?
expect_eq "synprobe demo: exit 0" "$rc" 0
for f in text json csv latex md; do
    $SP report --db $TMP/d/demo.db --format $f --out $TMP/r.$f 2>/dev/null
done
$PY tests/reference/report_tables_ref.py $TMP/r.json $TMP/r.text $TMP/r.csv $TMP/r.latex $TMP/r.md >$TMP/cmp 2>&1 || true
sed 's/^/# /' $TMP/cmp | grep -v '^# cells' | head -20
expect_eq "LaTeX = Markdown = Python's numbers from the JSON = text = CSV: no mismatch" \
    "$(tail -1 $TMP/cmp | sed 's/cells [0-9]* //')" "mismatches 0"
check "... over at least 100 cells" sh -c "[ $(tail -1 $TMP/cmp | awk '{print $2}') -ge 100 ]"
expect_eq "one seed: the encoder rows carry the mean alone (no ±)" \
    "$(grep -E '^(san|ms-san|sg-net) & ' $TMP/r.latex | grep -c 'pm')" "0"
expect_eq "two test items: every task's n flagged with the dagger, its legend once" \
    "$(grep -c '^n (test items) & 2\$^{.dagger}\$ & 2\$^{.dagger}\$ & 2\$^{.dagger}\$ ..$' $TMP/r.latex) $(grep -c '^\$^{.dagger}\$ fewer than 97' $TMP/r.latex)" "1 1"
check "the comment at the top names the demo's command" grep -q "^% made by: synprobe demo --out $TMP/d\$" $TMP/r.latex
check "the Markdown names it too" grep -q "Made by: synprobe demo --out" $TMP/r.md
done_testing
