# t4083-trees-messages.sh — the messages of trees and structprobe on unsuitable corpora and names
# tier: fast
# Issue #11 message fixes for trees / structprobe (hand-made inputs,
# expected texts from the issue: "no corpus 'ewd' in DB; did you mean 'ewt'? the store
# has: ewt, ptb"):
#   trees on a corpus without constituency trees says so once, exits 1, stores nothing;
#   a corpus with some trees missing gets one summary line, not one line per sentence;
#   an unknown --corpus / --run suggests the nearest name and lists what the store has;
#   a repeated single-valued flag is a usage error.
. tests/cli/lib.sh
DB=$TMP/s.db
q() { $PY -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])" "$1" "$2"; }

# two CoNLL-U sentences (no constituency trees) and two PTB trees
printf '1\tThe\tthe\tDET\tDT\t_\t2\tdet\t_\t_\n2\tcat\tcat\tNOUN\tNN\t_\t3\tnsubj\t_\t_\n3\tsat\tsit\tVERB\tVBD\t_\t0\troot\t_\t_\n\n' >"$TMP/a.conllu"
printf '1\tDogs\tdog\tNOUN\tNNS\t_\t2\tnsubj\t_\t_\n2\tbark\tbark\tVERB\tVBP\t_\t0\troot\t_\t_\n\n' >>"$TMP/a.conllu"
printf '(TOP (S (NP (DT The) (NN cat)) (VP (VBD sat))))\n(TOP (S (NP (NNS Dogs)) (VP (VBP bark))))\n' >"$TMP/b.mrg"
$SP ingest --db "$DB" --corpus ewt --quiet "$TMP/a.conllu" >/dev/null
$SP ingest --db "$DB" --corpus ptb --quiet "$TMP/b.mrg" >/dev/null

# ---- a corpus without constituency trees (UD): dependency trees instead (issue 13 item 7) ----
rc=0; $SP trees --db "$DB" --corpus ewt --baseline right >"$TMP/out" 2>"$TMP/err" || rc=$?
expect_eq "trees on a CoNLL-U-only corpus: exit 0" "$rc" 0
check "trees on a CoNLL-U-only corpus: says it scores its dependency trees instead" \
    grep -q "corpus 'ewt' has dependency trees and no constituency trees: scoring dependency trees" "$TMP/err"
check "trees on a CoNLL-U-only corpus: the dependency figures on stdout" grep -q "UAS" "$TMP/out"
expect_eq "trees on a CoNLL-U-only corpus: one dependency evaluation stored" \
    "$(q "$DB" "SELECT group_concat(method) FROM tree_eval")" "dependency:baseline:right"

# the corpus with constituency trees: scored and stored as before
rc=0; $SP trees --db "$DB" --corpus ptb --baseline right --json >"$TMP/out" 2>/dev/null || rc=$?
expect_eq "trees on the PTB corpus: exit 0" "$rc" 0
expect_eq "trees on the PTB corpus: one more tree_eval row" "$(q "$DB" "SELECT count(*) FROM tree_eval")" 2

# ---- some sentences without trees: one summary line ----
cp "$TMP/a.conllu" "$TMP/c.conllu"
$SP ingest --db "$DB" --corpus mix --quiet "$TMP/b.mrg" "$TMP/c.conllu" >/dev/null
rc=0; $SP trees --db "$DB" --corpus mix --baseline right --no-save >/dev/null 2>"$TMP/err" || rc=$?
expect_eq "trees on a mixed corpus: exit 0" "$rc" 0
expect_eq "trees on a mixed corpus: one line about the missing trees" "$(grep -c "constituency tree" "$TMP/err")" 1
check "trees on a mixed corpus: 2 of 4 sentences have no tree" \
    grep -q "^synprobe trees: warning: 2 of 4 sentences have no constituency tree, skipped$" "$TMP/err"

# ---- unknown names ----
rc=0; $SP trees --db "$DB" --corpus ewd --baseline right >/dev/null 2>"$TMP/err" || rc=$?
expect_eq "trees --corpus ewd: exit 1" "$rc" 1
expect_eq "trees --corpus ewd: suggests ewt, lists the corpora" "$(cat "$TMP/err")" \
    "synprobe trees: no corpus 'ewd' in $DB; did you mean 'ewt'? the store has: ewt, mix, ptb"
rc=0; $SP structprobe --db "$DB" --corpus ewd --baseline linear >/dev/null 2>"$TMP/err" || rc=$?
expect_eq "structprobe --corpus ewd: exit 1 and the same message" "$rc $(cat "$TMP/err")" \
    "1 synprobe structprobe: no corpus 'ewd' in $DB; did you mean 'ewt'? the store has: ewt, mix, ptb"
rc=0; $SP trees --db "$DB" --corpus ptb --run base >/dev/null 2>"$TMP/err" || rc=$?
expect_eq "trees --run in a store without runs: exit 1, says there are none" "$rc $(cat "$TMP/err")" \
    "1 synprobe trees: no run 'base' in $DB; the store has none yet (synprobe encode adds them)"
if $SP encode --db "$DB" --corpus ptb --encoder encoder/configs/san.json --run base --attention 0 --quiet >/dev/null 2>&1; then
    rc=0; $SP trees --db "$DB" --corpus ptb --run bsae >/dev/null 2>"$TMP/err" || rc=$?
    expect_eq "trees --run bsae: exit 1, suggests base" "$rc $(cat "$TMP/err")" \
        "1 synprobe trees: no run 'bsae' in $DB; did you mean 'base'? the store has: base"
else
    not_ok "encode --run base (needed for the --run check) failed"
fi
expect_eq "failed look-ups store nothing" "$(q "$DB" "SELECT count(*) FROM tree_eval")" 2

# ---- a repeated single-valued flag ----
rc=0; $SP trees --mrg "$TMP/b.mrg" --baseline right --baseline left >/dev/null 2>"$TMP/err" || rc=$?
expect_eq "trees --baseline twice: exit 2" "$rc" 2
check "trees --baseline twice: says so" grep -q "^synprobe trees: --baseline given twice" "$TMP/err"

done_testing
