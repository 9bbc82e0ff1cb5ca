# t0012-malformed.sh — the malformed-input suite: one broken file per rule, default and --strict modes
# tier: fast
# The malformed-input suite: every rule of "bad input" (issue 2, item 3), one broken file each.
# Each broken file holds valid sentences around one bad one, so default mode must keep the
# valid rest and quarantine the bad one; --strict must keep nothing from the file.
. tests/cli/lib.sh
M=tests/data/malformed

# file | line | expected message part | repairable
cases='columns.conllu|9|expected 10 tab-separated fields, got 9|no
fewcols.conllu|9|expected 10 tab-separated fields, got 6|no
idseq.conllu|10|expected word ID 2, got 3|no
utf8.conllu|9|UTF-8|no
headrange.conllu|9|HEAD 9 out of range|yes
multiroot.conllu|10|exactly one root|yes
cycle.conllu|9|cycle|yes
selfloop.conllu|9|points to itself|yes
headtext.conllu|9|not an integer|yes
unbalanced.mrg|2|unbalanced parentheses|no
emptynode.mrg|2|has no children|no
mixed.mrg|2|mixes a word and subtrees|no
allnone.mrg|2|empty after removing -NONE-|no
headrange.dp|7|HEAD 99 out of range|yes
columns.dp|6|tab-separated fields|no'

while IFS='|' read f line msg repairable; do
    db=$TMP/$f.db
    err=$($SP ingest --db $db $M/$f 2>&1 >/dev/null) && rc=0 || rc=$?
    expect_eq "$f: default mode exits 0 (valid sentences ingested)" "$rc" 0
    case "$err" in *"$M/$f:$line: "*"$msg"*) ok "$f: message names file:line and the problem";;
                   *) not_ok "$f: message '$err' lacks '$M/$f:$line: ... $msg'";; esac
    expect_eq "$f: bad sentence quarantined with its raw text" \
        "$(sqlite3 $db "select count(*), min(length(raw) > 0), min(line) from quarantine")" "1|1|$line"
    n_ok=$(sqlite3 $db "select count(*) from sentence")
    check "$f: the valid sentences are kept ($n_ok)" test "$n_ok" -ge 1
    $SP ingest --db $TMP/$f.strict.db --strict $M/$f >/dev/null 2>&1 && rc=0 || rc=$?
    expect_eq "$f: --strict exits 1" "$rc" 1
    expect_eq "$f: --strict keeps nothing from the file" \
        "$(sqlite3 $TMP/$f.strict.db "select (select count(*) from sentence) + (select count(*) from source) + (select count(*) from quarantine)")" 0
    if [ "$repairable" = yes ]; then
        $SP ingest --db $TMP/$f.repair.db --repair $M/$f >/dev/null 2>&1 && rc=0 || rc=$?
        expect_eq "$f: --repair keeps every sentence, with a warning recorded" \
            "$(sqlite3 $TMP/$f.repair.db "select count(*), sum(warn != 0), sum(warnings is not null) from sentence")" "$((n_ok + 1))|1|1"
    fi
done <<EOF_CASES
$cases
EOF_CASES

# file-level problems: one clear message each, exit 1, nothing stored
for spec in "binary.conllu|binary data" "empty.conllu|empty file" "prose.txt|unknown format" "no-such-file.conllu|cannot open"; do
    f=${spec%%|*}; msg=${spec#*|}
    err=$($SP ingest --db $TMP/file.db $M/$f 2>&1 >/dev/null) && rc=0 || rc=$?
    expect_eq "$f: exits 1" "$rc" 1
    case "$err" in *"$M/$f: "*"$msg"*) ok "$f: says '$msg'";; *) not_ok "$f: message was '$err'";; esac
done
expect_eq "file-level failures store nothing" "$(sqlite3 $TMP/file.db 'select count(*) from source')" 0
$SP ingest --db $TMP/fmt.db --format ptb $M/columns.conllu >/dev/null 2>&1 && rc=0 || rc=$?
expect_eq "--format ptb on a CoNLL-U file: nothing ingested, exit 1" "$rc" 1

# a .dp whose words differ from the .mrg of the same stem: error names both files
err=$($SP ingest --db $TMP/pair.db $M/pair/doc.mrg $M/pair/doc.dp 2>&1 >/dev/null) || true
case "$err" in *"$M/pair/doc.dp:6: doc.2: words differ from $M/pair/doc.mrg:2"*) ok "mrg/dp word mismatch names both files and lines";;
               *) not_ok "mrg/dp mismatch message: $err";; esac
expect_eq "the matching sentence still gets both trees" \
    "$(sqlite3 $TMP/pair.db "select count(*) from sentence where dep_source_id is not null and const_source_id is not null")" 1

# a different file reusing a sent_id: error names both files
err=$($SP ingest --db $TMP/dup.db $M/dup/one.conllu $M/dup/two.conllu 2>&1 >/dev/null) || true
case "$err" in *"$M/dup/two.conllu:"*"g1: sent_id already used in this corpus by $M/dup/one.conllu:1"*) ok "duplicate sent_id names both files";;
               *) not_ok "duplicate sent_id message: $err";; esac
expect_eq "duplicate: the new sentence of the second file is kept" "$(sqlite3 $TMP/dup.db 'select group_concat(sent_id) from sentence')" "g1,g2"
$SP ingest --db $TMP/dup2.db --strict $M/dup/one.conllu $M/dup/two.conllu >/dev/null 2>&1 && rc=0 || rc=$?
expect_eq "duplicate under --strict: exit 1, second file absent" "$rc|$(sqlite3 $TMP/dup2.db 'select count(*) from source')" "1|1"
done_testing
