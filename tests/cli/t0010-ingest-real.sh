# t0010-ingest-real.sh — ingest of the real treebanks: counts and structures from docs/spec/structures.md
# tier: fast
# Ingest the real treebanks of ../shared/data; counts and structures from docs/spec/structures.md §2, §3.7, §4.
. tests/cli/lib.sh
need_data
EWT=$DATA/ud-ewt/en_ewt-ud-dev.conllu
DB=$TMP/t.db
q() { sqlite3 "$DB" "$1"; }

check "ingest EWT dev" $SP ingest --db $DB --corpus ewt --split dev --quiet $EWT
# the first load into a new store runs with a rollback journal (st_bulk_begin) and ends in WAL
expect_eq "a new store is in WAL mode after its first ingest" "$(q "pragma journal_mode")" wal
check "no rollback journal is left beside it" test ! -e $DB-journal
expect_eq "EWT: 2,001 sentences, 25,147 words" "$(q "select count(*), sum(n_words) from sentence")" "2001|25147"
expect_eq "EWT: 359 MWT lines, 4 empty nodes" "$(q "select sum(kind='mwt'), sum(kind='empty') from extra_line")" "359|4"
expect_eq "EWT: 31 non-projective, max depth 10, max length 75" \
    "$(q "select sum(not projective), max(max_depth), max(n) from dep_structure")" "31|10|75"
$SP export --db $DB --corpus ewt --format conllu > $TMP/ewt.conllu
check "EWT CoNLL-U round trip is byte-identical" cmp -s $TMP/ewt.conllu $EWT
rc=0; out=$($SP ingest --db $DB --corpus ewt $EWT 2>&1) || rc=$?
expect_eq "re-ingesting the same bytes exits 0" "$rc" 0
case "$out" in *"1 unchanged"*) ok "re-ingest reported as unchanged";; *) not_ok "re-ingest: $out";; esac
expect_eq "re-ingest adds nothing" "$(q "select count(*) from sentence")" 2001

check "ingest PTB .mrg + .dp with 2 workers" $SP ingest --db $DB --corpus ptb --workers 2 --quiet \
    $DATA/ptb-sample/combined $DATA/ptb-sample/dependency
P="join corpus c using (corpus_id) where c.name='ptb'"
expect_eq "PTB: 3,914 sentences, 94,084 words" "$(q "select count(*), sum(n_words) from sentence $P")" "3914|94084"
expect_eq "PTB: every sentence has both trees" \
    "$(q "select count(*) from sentence $P and dep_source_id is not null and const_source_id is not null")" 3914
expect_eq "PTB: TreeDepth min 3 max 30" \
    "$(q "select min(tree_depth), max(tree_depth) from const_structure join sentence using (sentence_id) $P")" "3|30"
expect_eq "PTB: TreeDepth mode 11 (424 trees)" \
    "$(q "select tree_depth, count(*) from const_structure group by 1 order by 2 desc limit 1")" "11|424"
expect_eq "PTB: TopConst NP_VP_. on 1,765 trees" \
    "$(q "select count(*) from const_structure where top_const = 'NP_VP_.'")" 1765
expect_eq "PTB: max depth 22, max length 249, all projective" \
    "$(q "select max(max_depth), max(n), sum(not projective) from dep_structure join sentence using (sentence_id) $P")" "22|249|0"

# TV-6 / TV-8 / TV-10 (wsj_0001 sentence 2) through the JSONL export, checked in Python
$SP export --db $DB --corpus ptb --what structures --format jsonl > $TMP/ptb.jsonl
expect_eq "JSONL has one object per sentence" "$(wc -l < $TMP/ptb.jsonl | tr -d ' ')" 3914
$PY - $TMP/ptb.jsonl <<'PYEOF' && ok "TV-6/TV-8/TV-10 values in the JSONL export" || not_ok "TV-6/TV-8/TV-10 values in the JSONL export"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
s = rows[1]
assert s["sent_id"] == "wsj_0001.2", s["sent_id"]
assert s["heads"] == [2,3,0,3,4,7,12,12,12,12,12,5,3]
assert s["depth"] == [2,1,0,1,2,5,4,4,4,4,4,3,1]
assert s["abs_pos"] == s["depth"]
assert s["distance"][2] == s["depth"]
assert s["distance"][11] == [5,4,3,2,1,2,1,1,1,1,1,0,4]
assert [j for j, v in enumerate(s["ancestors"][11]) if v] == [2,3,4,11]
assert [j for j, v in enumerate(s["ancestors"][5]) if v] == [2,3,4,5,6,11]
assert s["rel_pos"][3] == [-3,-2,1,0,-1,-4,-3,-3,-3,-3,-3,-2,2]
assert s["phrases"] == [[0,0,1,1,1,1,1,1,1,1,1,1,2],[0,0,1,2,2,2,2,2,2,2,2,2,3],[0,0,1,2,3,3,3,3,3,3,3,3,4]]
assert s["tree_depth"] == 8 and s["top_const"] == "NP_VP_."
assert rows[0]["tree_depth"] == 7
keys = set(rows[0])
assert keys == {"sent_id","words","heads","depth","distance","ancestors","abs_pos","rel_pos","phrases","tree_depth","top_const"}, keys
PYEOF
$SP export --db $DB --corpus ewt --what sentences --format csv > $TMP/s.csv
expect_eq "sentences CSV: header + 2,001 rows" "$(wc -l < $TMP/s.csv | tr -d ' ')" 2002
expect_eq "sentences CSV parses, split and text kept" "$($PY -c 'import csv,sys; r=list(csv.reader(open(sys.argv[1]))); print(len(r[1]), r[1][1], r[1][2][:17])' $TMP/s.csv)" "3 dev From the AP comes"
done_testing
