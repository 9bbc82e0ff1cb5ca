# t0070-ptb-recover.sh — one missing ')' in a .mrg file costs one tree, not the rest of the file
# tier: fast
# Issue 10, item 6: one missing ')' in a .mrg file costs one tree, not the rest of the file.
# Rule (ingest/ptb.c): a '(' that is the first byte of a line, met inside a tree that is still
# open and already has a word, starts the next tree; the open tree is quarantined.
# missing5.mrg: 5 trees, tree 2 (lines 5-10) lacks its last ')'; trees 1, 3, 4, 5 start at
# lines 1, 11, 15, 20 (counted by hand from the file).
. tests/cli/lib.sh
M=tests/data/malformed
f=$M/missing5.mrg

err=$($SP ingest --db $TMP/a.db $f 2>&1 >/dev/null) && rc=0 || rc=$?
expect_eq "missing ')': exit 0 (the other trees are ingested)" "$rc" 0
case "$err" in *"$f:5: missing5.2: unbalanced parentheses: 1 unclosed when the next tree starts at line 11"*)
    ok "message names file:line of the broken tree and where the next one starts";;
    *) not_ok "message was '$err'";; esac
expect_eq "trees 1, 3, 4, 5 stored, at their positions and lines" \
    "$(sqlite3 $TMP/a.db "select group_concat(position || ':' || const_line || ':' || text, '|') from (select * from sentence order by position)")" \
    "1:1:The cat sleeps .|3:11:Birds sing .|4:15:Mary left early .|5:20:It rained ."
expect_eq "tree 2 alone quarantined, with its line and its own text only" \
    "$(sqlite3 $TMP/a.db "select count(*), min(line), min(position), min(raw like '( (S%moon) )))%'), min(raw not like '%Birds%') from quarantine")" \
    "1|5|2|1|1"

# the same file read in small chunks: the chunk cutter follows the same rule
$SP ingest --db $TMP/b.db --chunk-kb 1 $f >/dev/null 2>&1 || true
expect_eq "--chunk-kb 1: same sentences" "$(sqlite3 $TMP/b.db 'select group_concat(position) from sentence')" "1,3,4,5"

# the same file repeated until it spans many 1 KiB chunks: every copy loses only its tree 2
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do cat $f; done > $TMP/many.mrg
$SP ingest --db $TMP/c.db --chunk-kb 1 $TMP/many.mrg >/dev/null 2>&1 || true
expect_eq "20 copies in 1 KiB chunks: 80 trees stored, 20 quarantined" \
    "$(sqlite3 $TMP/c.db 'select (select count(*) from sentence) || "|" || (select count(*) from quarantine)')" "80|20"

# trees --mrg reads PTB with the same reader: 4 trees scored, the broken one named
out=$($SP trees --mrg $f --baseline right 2>$TMP/trees.err) && rc=0 || rc=$?
expect_eq "trees --mrg: exit 0" "$rc" 0
case "$out" in *"sentences 4"*) ok "trees --mrg scores the 4 intact trees";; *) not_ok "trees --mrg output: $out";; esac
case "$(cat $TMP/trees.err)" in *"$f:5: unbalanced parentheses"*"sentence skipped"*) ok "trees --mrg names the skipped tree";;
    *) not_ok "trees --mrg stderr: $(cat $TMP/trees.err)";; esac

# a tree whose opening '(' stands alone on its line is still one tree ("(\n(S ...")
printf '(\n(S (NP (DT A) (NN b)) (. .)))\n( (S (NP (DT C) (NN d)) (. .)) )\n' > $TMP/open.mrg
$SP ingest --db $TMP/d.db $TMP/open.mrg >/dev/null 2>&1 || true
expect_eq "'(' alone on the first line of a tree: both trees kept" "$(sqlite3 $TMP/d.db 'select count(*) from sentence')" 2

# a -NONE- node with subtrees is not an empty element: rejected (issue 10, item 14)
g=$M/none-subtree.mrg
err=$($SP ingest --db $TMP/e.db $g 2>&1 >/dev/null) && rc=0 || rc=$?
case "$err" in *"$g:2: none-subtree.2: -NONE- node has subtrees"*) ok "-NONE- with subtrees: rejected with file:line";;
    *) not_ok "-NONE- with subtrees: '$err'";; esac
expect_eq "-NONE- with subtrees: the two others kept, it quarantined" \
    "$(sqlite3 $TMP/e.db 'select (select count(*) from sentence) || "|" || (select count(*) from quarantine)')" "2|1"
done_testing
