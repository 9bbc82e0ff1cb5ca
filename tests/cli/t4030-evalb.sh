# t4030-evalb.sh — `synprobe evalb` against EVALB's sample output and hand-made files
# tier: fast
# `synprobe evalb` against EVALB (docs/spec/probing.md §4, §6 item 1).
# Expected outputs come from the shipped sample.rsl plus the differences §4.8 documents for the
# current evalb (Words 0 on error/skip rows, totals crossing 1, FMeasure lines), from the numbers of
# §4.8, and from hand computation for the hand-written files in tests/data/evalb/. The row and
# summary layouts are evalb.c's printf formats.
. tests/cli/lib.sh
T=tests/data/evalb
D=$DATA/evalb
tmp=$TMP

row() { printf '%4d  %3d    %d  %6.2f %6.2f   %3d    %3d  %3d    %3d   %4d  %4d   %6.2f\n' "$@"; }
totals() { printf '                %6.2f %6.2f %6d %5d %5d  %5d  %5d %5d   %6.2f\n' "$@"; }
# block TITLE n err skip valid R P F complete avgcross nocross le2 tagging
block() {
    printf '\n-- %s --\n' "$1"
    printf 'Number of sentence        = %6d\n' "$2"
    printf 'Number of Error sentence  = %6d\n' "$3"
    printf 'Number of Skip  sentence  = %6d\n' "$4"
    printf 'Number of Valid sentence  = %6d\n' "$5"
    printf 'Bracketing Recall         = %6.2f\n' "$6"
    printf 'Bracketing Precision      = %6.2f\n' "$7"
    printf 'Bracketing FMeasure       = %6.2f\n' "$8"
    printf 'Complete match            = %6.2f\n' "$9"
    shift 9
    printf 'Average crossing          = %6.2f\n' "$1"
    printf 'No crossing               = %6.2f\n' "$2"
    printf '2 or less crossing        = %6.2f\n' "$3"
    printf 'Tagging accuracy          = %6.2f\n' "$4"
}
head3() { printf '  Sent.                        Matched  Bracket   Cross        Correct Tag\n ID  Len.  Stat. Recal  Prec.  Bracket gold test Bracket Words  Tags Accracy\n============================================================================\n'; }
rule() { echo "============================================================================"; }

# ---------------------------------------------------------------- shipped sample (needs ../shared/data)
if [ -f "$D/sample.rsl" ]; then
    # sample.prm: sample.rsl with the current evalb's differences (§4.8)
    awk 'NR > 3 && NR <= 27 && $3 != 0 { sub(/      4     0     0\.00$/, "      0     0     0.00") }
         NR <= 28 { print }' "$D/sample.rsl" > "$tmp/s.exp"
    totals 87.76 90.53 86 98 95 1 108 106 98.15 >> "$tmp/s.exp"
    awk 'NR > 29 { print; if ($0 ~ /^Bracketing Precision/) { n++; printf "Bracketing FMeasure       = %s\n", (n == 1 ? " 89.12" : " 83.20") } }' \
        "$D/sample.rsl" >> "$tmp/s.exp"
    printf '12 : Words unmatch (is|was)\n13 : Length unmatch (4|5)\n16 : Length unmatch (4|5)\n17 : Length unmatch (4|6)\n20 : Words unmatch (this|That)\n' > "$tmp/s.err.exp"
    rc=0; "$SP" evalb -p "$D/sample.prm" "$D/sample.gld" "$D/sample.tst" > "$tmp/s.out" 2> "$tmp/s.err" || rc=$?
    expect_eq "sample.prm: exit 0" "$rc" 0
    check "sample.prm: stdout = sample.rsl + documented §4.8 differences, byte for byte" eval "cmp -s '$tmp/s.exp' '$tmp/s.out'"
    cmp -s "$tmp/s.exp" "$tmp/s.out" || diff -u "$tmp/s.exp" "$tmp/s.out" | head -30
    check "sample.prm: stderr errors on lines 12 13 16 17 20" eval "cmp -s '$tmp/s.err.exp' '$tmp/s.err'"
    # 7 error/skip rows (Words), the totals row (crossing 1; evalb.c's newer column widths), 2 FMeasure lines
    check "sample.prm: the only differences from sample.rsl are those 10 lines" eval \
        "[ \$(diff '$D/sample.rsl' '$tmp/s.out' | grep -c '^>') -eq 10 ] && [ \$(diff '$D/sample.rsl' '$tmp/s.out' | grep -c '^<') -eq 8 ]"

    # COLLINS.prm: §4.8 command 2 (row 18 tags 3/4, row 19 an error; totals and summary of the table)
    { head3
      sed -n '4,27p' "$tmp/s.exp" | awk '
        $1 == 18 { sub(/      4     4   100\.00$/, "      4     3    75.00") }
        $1 == 19 { $0 = sprintf("%4d  %3d    %d  %6.2f %6.2f   %3d    %3d  %3d    %3d   %4d  %4d   %6.2f", 19, 4, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0) }
        { print }'
      rule
      totals 87.23 90.11 82 94 91 1 104 101 97.12
      echo "=== Summary ==="
      block All 24 6 2 16 87.23 90.11 88.65 50.00 0.06 93.75 100.00 97.12
      block 'len<=40' 23 6 2 15 80.00 84.21 82.05 46.67 0.07 93.33 100.00 95.00
    } > "$tmp/c.exp"
    printf '12 : Words unmatch (is|was)\n13 : Length unmatch (4|5)\n16 : Length unmatch (4|5)\n17 : Length unmatch (4|6)\n19 : Words unmatch (this|This)\n20 : Words unmatch (this|That)\n' > "$tmp/c.err.exp"
    rc=0; "$SP" evalb -p "$D/COLLINS.prm" "$D/sample.gld" "$D/sample.tst" > "$tmp/c.out" 2> "$tmp/c.err" || rc=$?
    expect_eq "COLLINS.prm: exit 0" "$rc" 0
    check "COLLINS.prm: rows, totals and both blocks of §4.8" eval "cmp -s '$tmp/c.exp' '$tmp/c.out'"
    cmp -s "$tmp/c.exp" "$tmp/c.out" || diff -u "$tmp/c.exp" "$tmp/c.out" | head -30
    check "COLLINS.prm: stderr adds line 19" eval "cmp -s '$tmp/c.err.exp' '$tmp/c.err'"
    "$SP" evalb -p "$D/new.prm" "$D/sample.gld" "$D/sample.tst" > "$tmp/n.out" 2> "$tmp/n.err"
    check "new.prm: identical to COLLINS.prm on the sample (§4.8)" eval "cmp -s '$tmp/c.out' '$tmp/n.out' && cmp -s '$tmp/c.err' '$tmp/n.err'"

    # --json: the §4.8 summary table
    rc=0; "$SP" evalb --json -p "$D/COLLINS.prm" "$D/sample.gld" "$D/sample.tst" > "$tmp/c.json" 2>/dev/null || rc=$?
    expect_eq "--json COLLINS.prm: exit 0" "$rc" 0
    check "--json COLLINS.prm: all / le40 values of §4.8" eval "/usr/bin/python3 - '$tmp/c.json' <<'EOF'
import json, sys
j = json.load(open(sys.argv[1]))
keys = ['n_sentences','n_error','n_skip','n_valid','recall','precision','fmeasure','complete_match',
        'avg_crossing','no_crossing','le2_crossing','tagging_accuracy']
want = {'all': [24, 6, 2, 16, 87.23, 90.11, 88.65, 50.00, 0.06, 93.75, 100.00, 97.12],
        'le40': [23, 6, 2, 15, 80.00, 84.21, 82.05, 46.67, 0.07, 93.33, 100.00, 95.00]}
sys.exit(0 if all(j[b][k] == v for b in want for k, v in zip(keys, want[b])) else 1)
EOF"
    "$SP" evalb --json -p "$D/sample.prm" "$D/sample.gld" "$D/sample.tst" > "$tmp/s.json" 2>/dev/null
    check "--json sample.prm: all / le40 values of §4.8" eval "/usr/bin/python3 - '$tmp/s.json' <<'EOF'
import json, sys
j = json.load(open(sys.argv[1]))
keys = ['n_sentences','n_error','n_skip','n_valid','recall','precision','fmeasure','complete_match',
        'avg_crossing','no_crossing','le2_crossing','tagging_accuracy']
want = {'all': [24, 5, 2, 17, 87.76, 90.53, 89.12, 52.94, 0.06, 94.12, 100.00, 98.15],
        'le40': [23, 5, 2, 16, 81.25, 85.25, 83.20, 50.00, 0.06, 93.75, 100.00, 96.88]}
sys.exit(0 if all(j[b][k] == v for b in want for k, v in zip(keys, want[b])) else 1)
EOF"

    # -c overrides CUTOFF_LEN: lengths <= 4 are all but sentences 22 (44) and 24 (5)
    "$SP" evalb -p "$D/sample.prm" -c 4 "$D/sample.gld" "$D/sample.tst" > "$tmp/c4.out" 2>/dev/null
    check "-c 4: block '-- len<=4 --' with 22 sentences, 15 valid" eval \
        "grep -A4 -- '-- len<=4 --' '$tmp/c4.out' | tr -s ' ' | grep -q 'Number of sentence = 22' && grep -A4 -- '-- len<=4 --' '$tmp/c4.out' | tr -s ' ' | grep -q 'Number of Valid sentence = 15'"
else
    skip "sample checks: $D absent (the hand-written cases below still run)"
fi

# ---------------------------------------------------------------- MAX_ERROR (§4.4, §6 item 1)
head -n 11 "$T/maxerr.gld" > "$tmp/m11.gld"
head -n 11 "$T/maxerr.tst" > "$tmp/m11.tst"
rc=0; "$SP" evalb "$tmp/m11.gld" "$tmp/m11.tst" > "$tmp/m11.out" 2> "$tmp/m11.err" || rc=$?
expect_eq "MAX_ERROR 10, 11 mismatching sentences: exit 0" "$rc" 0
check "MAX_ERROR 10, 11 mismatching sentences: summary printed with 11 errors" eval \
    "grep -q '^Number of Error sentence  =     11$' '$tmp/m11.out'"
check "MAX_ERROR 10, 11 mismatching sentences: 11 messages" eval "[ \$(grep -c 'Words unmatch (b|c)' '$tmp/m11.err') -eq 11 ]"
rc=0; "$SP" evalb "$T/maxerr.gld" "$T/maxerr.tst" > "$tmp/m12.out" 2> "$tmp/m12.err" || rc=$?
expect_eq "MAX_ERROR 10, 12 mismatching sentences: exit 1" "$rc" 1
check "MAX_ERROR 10, 12 mismatching sentences: no summary, 11 rows" eval \
    "! grep -q 'Summary' '$tmp/m12.out' && [ \$(grep -c '^ *[0-9]* *2 *1 ' '$tmp/m12.out') -eq 11 ]"
check "MAX_ERROR 10, 12 mismatching sentences: 12th message printed" eval "grep -q '^12 : Words unmatch (b|c)$' '$tmp/m12.err'"
rc=0; "$SP" evalb -e 11 "$T/maxerr.gld" "$T/maxerr.tst" > "$tmp/m12e.out" 2>/dev/null || rc=$?
check "-e 11 with 12 mismatching sentences: exit 0 and summary" eval "[ $rc -eq 0 ] && grep -q '^Number of Error sentence  =     12$' '$tmp/m12e.out'"

# ---------------------------------------------------------------- quote repair (§4.6, hand-computed)
# both lines: gold quote re-inserted at word 1, 3/3/3 brackets matched, tags 2 of 3 (''/NN)
{ head3; row 1 3 0 100 100 3 3 3 0 3 2 66.67; row 2 3 0 100 100 3 3 3 0 3 2 66.67; } > "$tmp/q.exp"
"$SP" evalb -p "$T/quote.prm" "$T/quote.gld" "$T/quote.tst" > "$tmp/q.out" 2> "$tmp/q.err"
check "quote repair: rows match the hand computation" eval "head -n 5 '$tmp/q.out' | cmp -s - '$tmp/q.exp' && [ ! -s '$tmp/q.err' ]"
grep -v '^QUOTE_LABEL' "$T/quote.prm" > "$tmp/noquote.prm"
"$SP" evalb -p "$tmp/noquote.prm" "$T/quote.gld" "$T/quote.tst" > /dev/null 2> "$tmp/nq.err"
check "without QUOTE_LABEL: both sentences are Length unmatch (2|3)" eval \
    "printf '1 : Length unmatch (2|3)\n2 : Length unmatch (2|3)\n' | cmp -s - '$tmp/nq.err'"

# ---------------------------------------------------------------- no reference limits
awk 'BEGIN { for (i = 0; i < 10000; i++) printf "(X "; printf "(T w)"; for (i = 0; i < 10000; i++) printf ")"; print "" }' > "$tmp/deep.mrg"
rc=0; "$SP" evalb "$tmp/deep.mrg" "$tmp/deep.mrg" > "$tmp/deep.out" 2> "$tmp/deep.err" || rc=$?
expect_eq "10,000-deep tree: exit 0" "$rc" 0
row 1 1 0 100 100 10000 10000 10000 0 1 1 100 > "$tmp/deep.row"
check "10,000-deep tree: 10000/10000/10000 brackets matched" eval "sed -n 4p '$tmp/deep.out' | cmp -s - '$tmp/deep.row'"
awk 'BEGIN { printf "(S"; for (i = 0; i < 3000; i++) printf " (NN word%d)", i; print ")" }' > "$tmp/long.gld"
awk 'BEGIN { printf "(S (A"; for (i = 0; i < 3000; i++) printf " (NN word%d)", i; print "))" }' > "$tmp/long.tst"
check "long line is over 5,000 bytes and 200 words" eval "[ \$(wc -c < '$tmp/long.gld') -gt 30000 ]"
rc=0; "$SP" evalb "$tmp/long.gld" "$tmp/long.tst" > "$tmp/long.out" 2>&1 || rc=$?
row 1 3000 0 100 50 1 1 2 0 3000 3000 100 > "$tmp/long.row"
check "3,000-word line: exit 0 and one row (1 of 1 gold, 1 of 2 test)" eval "[ $rc -eq 0 ] && sed -n 4p '$tmp/long.out' | cmp -s - '$tmp/long.row'"

# ---------------------------------------------------------------- malformed input
rc=0; "$SP" evalb "$T/good2.gld" "$T/bad_tree.tst" > /dev/null 2> "$tmp/bt.err" || rc=$?
expect_eq "malformed test tree: exit 1" "$rc" 1
check "malformed test tree: FILE:LINE: expected ..." eval "grep -q 'bad_tree.tst:2: column 9: expected .). after word .a. of .(N. (more than two elements in a bracket)' '$tmp/bt.err'"
rc=0; "$SP" evalb "$T/unbalanced.gld" "$T/good2.gld" > /dev/null 2> "$tmp/ub.err" || rc=$?
check "unbalanced gold tree: exit 1 with unbalanced.gld:2: expected ')' before end of line" eval \
    "[ $rc -eq 1 ] && grep -q \"unbalanced.gld:2: column [0-9]*: expected ')' before end of line\" '$tmp/ub.err'"
rc=0; "$SP" evalb -p "$T/bad_int.prm" "$T/good2.gld" "$T/good2.gld" > /dev/null 2> "$tmp/bp.err" || rc=$?
check "malformed .prm (MAX_ERROR lots): exit 1 with bad_int.prm:5:" eval \
    "[ $rc -eq 1 ] && grep -q 'bad_int.prm:5: MAX_ERROR: expected one integer' '$tmp/bp.err'"
rc=0; "$SP" evalb -p "$T/bad_eq.prm" "$T/good2.gld" "$T/good2.gld" > /dev/null 2> "$tmp/be.err" || rc=$?
check "malformed .prm (EQ_LABEL with one value): exit 1 with bad_eq.prm:2:" eval \
    "[ $rc -eq 1 ] && grep -q 'bad_eq.prm:2: EQ_LABEL: expected two values, got 1' '$tmp/be.err'"
rc=0; "$SP" evalb -p "$tmp/missing.prm" "$T/good2.gld" "$T/good2.gld" > /dev/null 2>&1 || rc=$?
expect_eq "missing .prm: exit 1" "$rc" 1
rc=0; "$SP" evalb "$T/good2.gld" "$tmp/missing.tst" > /dev/null 2>&1 || rc=$?
expect_eq "missing test file: exit 1" "$rc" 1
rc=0; "$SP" evalb "$T/good2.gld" > /dev/null 2>&1 || rc=$?
expect_eq "one file only: usage, exit 2" "$rc" 2
rc=0; "$SP" evalb -c x "$T/good2.gld" "$T/good2.gld" > /dev/null 2>&1 || rc=$?
expect_eq "-c x: usage, exit 2" "$rc" 2

# line-count mismatch: evalb's message, the extra gold line is not scored
head -n 1 "$T/good2.gld" > "$tmp/one.tst"
rc=0; "$SP" evalb "$T/good2.gld" "$tmp/one.tst" > "$tmp/lc.out" 2> "$tmp/lc.err" || rc=$?
check "gold longer than test: exit 0, message on line 2, 1 sentence" eval \
    "[ $rc -eq 0 ] && grep -q '^2 : Number of lines unmatch (too many lines in gold file)$' '$tmp/lc.err' && grep -q '^Number of sentence        =      1$' '$tmp/lc.out'"

done_testing
