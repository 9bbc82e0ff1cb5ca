# t0072-reader-silent.sh — reader inputs that used to be accepted without a word now warn or fail
# tier: fast
# Issue 10, item 14 (reader parts): input that was accepted without a word. Each file holds a
# valid sentence (g1, lines 1-5), the case (from line 7), and another valid one (g2).
#   CoNLL-U: overlapping multiword ranges and a multiword line after its first word quarantine
#   the sentence (t0140); --repair drops them with W_MWT and a note naming the line (docs/spec/structures.md §2.1);
#   an empty FORM, an empty sent_id and a whitespace-only line inside a sentence reject the
#   sentence (the whole of it: it used to be split and its first part kept as valid).
#   .dp: an empty FORM rejects the sentence.
. tests/cli/lib.sh
M=tests/data/malformed

# file | line | message part
rejected='emptyform.conllu|9|empty FORM
emptysentid.conllu|7|empty sent_id
wsline.conllu|10|whitespace-only line inside a sentence
emptyform.dp|5|empty FORM'
while IFS='|' read f line msg; do
    db=$TMP/$f.db
    err=$($SP ingest --db $db $M/$f 2>&1 >/dev/null) && rc=0 || rc=$?
    expect_eq "$f: exit 0 (the valid sentences ingested)" "$rc" 0
    case "$err" in *"$M/$f:$line: "*"$msg"*) ok "$f: message names file:line and the problem";;
                   *) not_ok "$f: message '$err' lacks '$M/$f:$line: ... $msg'";; esac
    expect_eq "$f: quarantined at line $line, the two valid sentences kept" \
        "$(sqlite3 $db "select count(*) || '|' || min(line) || '|' || (select count(*) from sentence) from quarantine")" "1|$line|2"
    $SP ingest --db $TMP/$f.strict.db --strict $M/$f >/dev/null 2>&1 && rc=0 || rc=$?
    expect_eq "$f: --strict exits 1" "$rc" 1
done <<EOF_CASES
$rejected
EOF_CASES

# the whitespace-only line: the whole sentence is quarantined, its part after the line included
expect_eq "wsline: no part of the broken sentence stored as a sentence" \
    "$(sqlite3 $TMP/wsline.conllu.db "select group_concat(sent_id) from sentence")" "g1,g2"
expect_eq "wsline: its raw text runs past the whitespace-only line" \
    "$(sqlite3 $TMP/wsline.conllu.db "select raw like '%2	b%3	c%' from quarantine")" 1
# the same in 1 KiB chunks (the chunk cutter must not cut at that line either)
{ for i in $(seq 1 40); do cat $M/wsline.conllu; done; } | sed 's/sent_id = \(g[12]\|bad\)$/sent_id = \1-XX/' | awk '/sent_id/ { sub("XX", NR) } { print }' > $TMP/many.conllu
$SP ingest --db $TMP/many.db --chunk-kb 1 $TMP/many.conllu >/dev/null 2>&1 || true
expect_eq "wsline x40 in 1 KiB chunks: 80 sentences, 40 quarantined" \
    "$(sqlite3 $TMP/many.db "select (select count(*) from sentence) || '|' || count(*) from quarantine")" "80|40"

# a whitespace-only line between sentences still separates them (docs/spec/structures.md §2.1, lenient)
$SP ingest --db $TMP/sep.db $M/wssep.conllu >/dev/null 2>&1 || true
expect_eq "whitespace-only separators: 3 sentences" "$(sqlite3 $TMP/sep.db 'select count(*) from sentence')" 3

# multiword ranges (t0140): quarantined at the range's line by default; under --repair the sentence
# is kept, the bad range dropped with W_MWT (8) and a note naming it
for spec in "mwt-overlap.conllu|10|line 10: dropped multiword token 2-3 (overlaps the multiword token before it)|1" \
            "mwt-late.conllu|9|line 9: dropped multiword token 1-2 (expected its line right before word 1)|0"; do
    f=${spec%%|*}; rest=${spec#*|}; line=${rest%%|*}; rest=${rest#*|}; note=${rest%|*}; kept=${rest##*|}
    $SP ingest --db $TMP/$f.db $M/$f >/dev/null 2>&1 || true
    expect_eq "$f: quarantined at line $line, the two valid sentences kept" \
        "$(sqlite3 $TMP/$f.db "select count(*) || '|' || min(line) || '|' || (select count(*) from sentence) from quarantine")" "1|$line|2"
    $SP ingest --db $TMP/$f.repair.db --repair $M/$f >/dev/null 2>&1 || true
    expect_eq "$f --repair: sentence kept with W_MWT and the note" \
        "$(sqlite3 $TMP/$f.repair.db "select warn & 8, warnings from sentence where sent_id = 'bad'")" "8|$note"
    expect_eq "$f --repair: multiword lines kept" \
        "$(sqlite3 $TMP/$f.repair.db "select count(*) from extra_line e join sentence s using (sentence_id) where s.sent_id = 'bad'")" "$kept"
done
done_testing
