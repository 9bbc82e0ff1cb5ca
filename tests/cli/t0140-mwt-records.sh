# t0140-mwt-records.sh — bad multiword-token lines are quarantined or named, never dropped silently
# tier: fast
# Issue 22, item 9. A reversed (5-2), out-of-range (1-999999999999) or overlapping (2-4 beside 1-3)
# range line used to vanish: 0 rejected, absent from `export --what conllu`. Now the sentence is
# quarantined at that line by default (its raw text, the line included, kept there), --strict
# fails the file, and --repair stores the sentence without the line, with W_MWT (8) and a note
# naming the line, counted as repaired in the summary. Valid multiword and empty-node lines
# round-trip byte for byte.
. tests/cli/lib.sh

row() { printf '%s\t%s\t%s\tX\tX\t_\t%s\tdep\t_\t_\n' "$1" "$2" "$2" "$3"; }
range() { printf '%s\t%s\t_\t_\t_\t_\t_\t_\t_\t_\n' "$1" "$2"; }
# g1 (lines 1-4), the bad sentence from line 6 (its first range on line 8), g2
make_file() {   # make_file FILE BODY-FUNCTION
    { printf '# sent_id = g1\n# text = The cat\n'; row 1 The 2; row 2 cat 0; printf '\n'
      printf '# sent_id = bad\n# text = a b c d\n'; "$2"; printf '\n'
      printf '# sent_id = g2\n# text = Dogs\n'; row 1 Dogs 0; printf '\n'; } > "$1"
}
reversed()   { range 5-2 ab; row 1 a 0; row 2 b 1; row 3 c 1; row 4 d 1; }
outofrange() { range 1-999999999999 ab; row 1 a 0; row 2 b 1; row 3 c 1; row 4 d 1; }
overlap()    { range 1-3 abc; row 1 a 0; range 2-4 bcd; row 2 b 1; row 3 c 1; row 4 d 1; }

# case | line of the bad range | the range | reason
for spec in "reversed|8|5-2|range outside 1..4 or not a<b" \
            "outofrange|8|1-999999999999|range outside 1..4 or not a<b" \
            "overlap|10|2-4|overlaps the multiword token before it"; do
    IFS='|' read c line id why <<EOF_SPEC
$spec
EOF_SPEC
    f=$TMP/$c.conllu
    make_file $f $c
    err=$($SP ingest --db $TMP/$c.db $f 2>&1 >$TMP/$c.out) && rc=0 || rc=$?
    expect_eq "$c: default mode exits 0 (the valid sentences ingested)" "$rc" 0
    case "$err" in *"$f:$line: bad: multiword token $id: $why"*) ok "$c: message names file:line, the range and why";;
                   *) not_ok "$c: message '$err' lacks '$f:$line: bad: multiword token $id: $why'";; esac
    expect_eq "$c: summary counts it rejected" "$(grep -c ', 1 rejected, ' $TMP/$c.out)" 1
    expect_eq "$c: quarantined at line $line with its raw text, the range line included; g1 and g2 kept" \
        "$(sqlite3 $TMP/$c.db "select count(*), min(line), min(sent_id), sum(instr(raw, '$id' || char(9)) > 0),
                               (select group_concat(sent_id) from sentence) from quarantine")" "1|$line|bad|1|g1,g2"

    $SP ingest --db $TMP/$c.strict.db --strict $f >/dev/null 2>&1 && rc=0 || rc=$?
    expect_eq "$c: --strict exits 1" "$rc" 1

    out=$($SP ingest --db $TMP/$c.repair.db --repair $f 2>$TMP/$c.err) && rc=0 || rc=$?
    expect_eq "$c --repair: exit 0" "$rc" 0
    expect_eq "$c --repair: the sentence kept with W_MWT and a note naming the dropped line" \
        "$(sqlite3 $TMP/$c.repair.db "select warn & 8, warnings from sentence where sent_id = 'bad'")" \
        "8|line $line: dropped multiword token $id ($why)"
    case "$out" in *", 0 rejected, 1 repaired with warnings, "*) ok "$c --repair: summary counts 1 repaired";;
                   *) not_ok "$c --repair: summary '$out' lacks ', 0 rejected, 1 repaired with warnings, '";; esac
    case "$(cat $TMP/$c.err)" in *"$c.conllu: ingested [conllu] 3 sentences, 0 rejected, 1 repaired"*) ok "$c --repair: the file's line counts it";;
                   *) not_ok "$c --repair: file line '$(cat $TMP/$c.err)' lacks '3 sentences, 0 rejected, 1 repaired'";; esac
    # the export is the input less exactly the dropped line (the note accounts for it)
    $SP export --db $TMP/$c.repair.db --what conllu > $TMP/$c.export
    sed "${line}d" $f > $TMP/$c.want
    check "$c --repair: export = input without line $line, byte for byte" cmp -s $TMP/$c.export $TMP/$c.want
done
expect_eq "--json totals count the repaired sentence" \
    "$($SP ingest --db $TMP/j.db --repair --json $TMP/overlap.conllu 2>/dev/null | $PY -c 'import json,sys; t=json.load(sys.stdin)["totals"]; print(t["repaired"], t["rejected"])')" "1 0"

# valid multiword tokens and empty nodes, comments, CRLF-free UD layout: byte-identical round trip
{ printf '# newdoc id = d1\n# sent_id = v1\n# text = Im in\n'; range 1-2 "I'm"; row 1 I 3; row 2 "'m" 3; row 3 in 0
  printf '\n# sent_id = v2\n'; row 1 a 0; row 2 b 1; printf '2.1\te\t_\t_\t_\t_\t_\t_\t1:dep\t_\n'
  range 3-4 cd; row 3 c 1; row 4 d 1; printf '4.1\tf\t_\t_\t_\t_\t_\t_\t1:dep\t_\n\n'; } > $TMP/valid.conllu
$SP ingest --db $TMP/valid.db $TMP/valid.conllu >/dev/null 2>&1 && rc=0 || rc=$?
expect_eq "valid ranges: exit 0" "$rc" 0
$SP export --db $TMP/valid.db --what conllu > $TMP/valid.export
check "valid ranges and empty nodes: export is byte-identical" cmp -s $TMP/valid.export $TMP/valid.conllu
expect_eq "valid ranges: nothing quarantined, no warning" \
    "$(sqlite3 $TMP/valid.db "select (select count(*) from quarantine), sum(warn), count(warnings) from sentence")" "0|0|0"
done_testing
