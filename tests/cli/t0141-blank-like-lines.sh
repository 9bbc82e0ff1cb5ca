# t0141-blank-like-lines.sh — lines of tabs and comment-only blocks are recorded, never lost
# tier: fast
# Issue 22, item 9. A line of 100,000 tabs after a sentence's '# sent_id' counted as a blank
# line, which left a block of comments that was skipped: the sentence vanished with 0 rejected.
# Now a whitespace-only line ends a sentence only after a word line of it; after the comments
# alone it is inside the sentence, which is quarantined at that line (also when the file is read
# in chunks smaller than the line). A word line with 100,000 extra tabs is quarantined for its
# field count (--repair drops the fields, counted as repaired). A block of comments with no word
# line (docs/spec/structures.md §2.1 skips it) is named with file:line and counted in the summary.
. tests/cli/lib.sh

row() { printf '%s\t%s\t%s\tX\tX\t_\t%s\tdep\t_\t_\n' "$1" "$2" "$2" "$3"; }
tabs() { $PY -c "import sys; sys.stdout.write('\t' * $1)"; }

# s1 (lines 1-2), s2's comment (line 4) and a line of 100,000 tabs (line 5), s3 (lines 7-8)
{ printf '# sent_id = s1\n'; row 1 a 0; printf '\n# sent_id = s2\n'; tabs 100000; printf '\n\n# sent_id = s3\n'; row 1 c 0; printf '\n'; } > $TMP/tabs.conllu
err=$($SP ingest --db $TMP/tabs.db $TMP/tabs.conllu 2>&1 >$TMP/tabs.out) && rc=0 || rc=$?
expect_eq "tabs after the comments: exit 0" "$rc" 0
case "$err" in *"$TMP/tabs.conllu:5: s2: whitespace-only line inside a sentence (100000 tabs; expected a word line of 10 tab-separated fields"*)
    ok "tabs after the comments: message names file:line and what was expected";;
    *) not_ok "tabs after the comments: message '$err'";; esac
expect_eq "tabs after the comments: s2 quarantined at line 5, s1 and s3 kept" \
    "$(sqlite3 $TMP/tabs.db "select count(*), min(line), min(sent_id), (select group_concat(sent_id) from sentence) from quarantine")" "1|5|s2|s1,s3"
expect_eq "tabs after the comments: summary says 1 rejected" "$(grep -c ', 1 rejected, ' $TMP/tabs.out)" 1

# the same ten times over, read in 1 KiB chunks (the chunker grows its buffer past the line)
for i in 1 2 3 4 5 6 7 8 9 10; do sed "s/sent_id = s\([123]\)/sent_id = s\1-$i/" $TMP/tabs.conllu; done > $TMP/tabs10.conllu
$SP ingest --db $TMP/tabs10.db --chunk-kb 1 $TMP/tabs10.conllu >/dev/null 2>&1 || true
expect_eq "x10 in 1 KiB chunks: 20 sentences, 10 quarantined, each at its tab line" \
    "$(sqlite3 $TMP/tabs10.db "select (select count(*) from sentence), count(*), sum(line % 9 = 5) from quarantine")" "20|10|10"

# tabs between the comments and the words: the whole sentence is quarantined (its name is not
# passed on to the words after the line)
{ printf '# sent_id = s1\n'; row 1 a 0; printf '\n# sent_id = s2\n'; tabs 100000; printf '\n'; row 1 b 0; row 2 c 1; printf '\n'; } > $TMP/mid.conllu
$SP ingest --db $TMP/mid.db $TMP/mid.conllu >/dev/null 2>&1 || true
expect_eq "tabs before the words: s2 quarantined whole at line 5, only s1 stored" \
    "$(sqlite3 $TMP/mid.db "select count(*), min(line), min(sent_id), instr(min(raw), '2' || char(9) || 'c') > 0, (select group_concat(sent_id) from sentence) from quarantine")" "1|5|s2|1|s1"

# a word line with 100,000 more tabs: the field count, quarantined; --repair drops the fields
{ printf '# sent_id = s1\n'; row 1 a 0; printf '\n# sent_id = s2\n'; row 1 b 0 | tr -d '\n'; tabs 100000; printf '\n\n'; } > $TMP/wide.conllu
err=$($SP ingest --db $TMP/wide.db $TMP/wide.conllu 2>&1 >/dev/null) || true
case "$err" in *"$TMP/wide.conllu:5: s2: expected 10 tab-separated fields, got 100010"*) ok "wide line: quarantined for its field count";;
    *) not_ok "wide line: message '$err'";; esac
expect_eq "wide line: in the quarantine at line 5" "$(sqlite3 $TMP/wide.db "select count(*), min(line) from quarantine")" "1|5"
out=$($SP ingest --db $TMP/wide.repair.db --repair $TMP/wide.conllu 2>/dev/null) || true
case "$out" in *", 1 repaired with warnings, "*) ok "wide line --repair: counted as repaired";; *) not_ok "wide line --repair: '$out'";; esac
expect_eq "wide line --repair: the note names the line and the fields dropped" \
    "$(sqlite3 $TMP/wide.repair.db "select warn & 16, warnings from sentence where sent_id = 's2'")" "16|line 5: dropped 100000 extra fields"

# comment lines with no word line after them: skipped (docs/spec/structures.md §2.1) but named and counted
{ printf '# global.columns = ID FORM LEMMA UPOS XPOS FEATS HEAD DEPREL DEPS MISC\n\n# sent_id = s1\n'; row 1 a 0
  printf '\n# end of document\n# (two comment lines)\n'; } > $TMP/com.conllu
out=$($SP ingest --db $TMP/com.db $TMP/com.conllu 2>$TMP/com.err) && rc=0 || rc=$?
expect_eq "comment-only blocks: exit 0, s1 stored" "$rc|$(sqlite3 $TMP/com.db 'select group_concat(sent_id) from sentence')" "0|s1"
expect_eq "comment-only blocks: each named with file:line" \
    "$(grep -c -e "com.conllu:1: 1 comment line with no word line after it skipped" -e "com.conllu:6: 2 comment lines with no word line after them skipped" $TMP/com.err)" 2
case "$out" in *", 0 rejected, 3 comment lines without a sentence skipped, "*) ok "comment-only blocks: the summary counts their lines";;
    *) not_ok "comment-only blocks: summary '$out'";; esac
done_testing
