# t3046-tasks-store.sh — probing tasks in the store: `tasks import|export|list` and `tasks build --db`
# tier: fast
# Probing tasks in the store: `tasks import|export|list` and `tasks build --db`.
# The expectations are the brief's: import then export gives the same bytes (docs/spec/probing.md §1.1 files,
# including a BOM, CRLF, trailing whitespace, middle fields and a missing final newline in
# tricky.txt, all hand-written); a taken name and a malformed file are errors (exit 1) that store
# nothing; tasks built from a store corpus and stored there export to the files `--out` writes.
. tests/cli/lib.sh
T=tests/data/tasks
count() { sqlite3 "$1" "$2" 2>/dev/null || $PY -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])" "$1" "$2"; }

for f in plain tricky; do
    "$SP" tasks import --db "$TMP/t.db" --name "$f" "$T/$f.txt" >/dev/null
    "$SP" tasks export --db "$TMP/t.db" --name "$f" --out "$TMP/$f.out"
    check "$f: import + export is byte-identical" cmp -s "$T/$f.txt" "$TMP/$f.out"
    "$SP" tasks export --db "$TMP/t.db" --name "$f" --format senteval >"$TMP/$f.stdout"
    check "$f: export to stdout is byte-identical" cmp -s "$T/$f.txt" "$TMP/$f.stdout"
done
expect_eq "tricky: middle fields in task_item.extra" \
    "$(count "$TMP/t.db" "SELECT extra FROM task_item JOIN task USING (task_id) WHERE name = 'tricky' AND ordinal = 3")" "$(printf 'a\tb')"
expect_eq "imported kind" "$(count "$TMP/t.db" "SELECT kind FROM task WHERE name = 'plain'")" imported
"$SP" tasks list --db "$TMP/t.db" >"$TMP/list"
check "list: plain 2/1/1" grep -Eq '^plain +imported +2 +1 +1$' "$TMP/list"

rc=0; "$SP" tasks import --db "$TMP/t.db" --name plain "$T/tricky.txt" >/dev/null 2>"$TMP/err" || rc=$?; expect_eq "taken name -> exit 1" "$rc" 1
check "taken name: message" grep -q "task 'plain' already exists" "$TMP/err"
rc=0; "$SP" tasks import --db "$TMP/t.db" --name bad "$T/malformed.txt" >/dev/null 2>"$TMP/err" || rc=$?; expect_eq "malformed -> exit 1" "$rc" 1
check "malformed: file:line: message" grep -q "malformed.txt:3: expected partition tag" "$TMP/err"
expect_eq "malformed: nothing stored" "$(count "$TMP/t.db" "SELECT count(*) FROM task WHERE name = 'bad'")" 0
rc=0; "$SP" tasks export --db "$TMP/t.db" --name nope >/dev/null 2>&1 || rc=$?; expect_eq "unknown task -> exit 1" "$rc" 1
rc=0; "$SP" tasks import --db "$TMP/t.db" "$T/plain.txt" >/dev/null 2>&1 || rc=$?; expect_eq "import without --name -> exit 2" "$rc" 2
"$SP" tasks export --db "$TMP/t.db" --name plain --out "$TMP/p2"
check "taken name left plain unchanged" cmp -s "$T/plain.txt" "$TMP/p2"

# build --db stores the tasks; needs the PTB sample
if [ ! -d "$DATA" ]; then skip_rest "build --db part: $DATA not present"; fi
PTB=$DATA/ptb-sample
"$SP" ingest --db "$TMP/s.db" --corpus ptb --quiet "$PTB/combined" "$PTB/dependency" >/dev/null 2>&1
"$SP" tasks build --split resplit --db "$TMP/s.db" --corpus ptb --seed 5 --tasks SentLen,TreeDepth,BShift --out "$TMP/b" >/dev/null
for p in SentLen:sentence_length TreeDepth:tree_depth BShift:bigram_shift; do
    n=${p%%:*}; f=${p#*:}
    "$SP" tasks export --db "$TMP/s.db" --name "$n" --out "$TMP/$n.txt"
    check "build --db: stored $n exports to $f.txt" cmp -s "$TMP/b/$f.txt" "$TMP/$n.txt"
done
expect_eq "build --db: seed and kind stored" "$(count "$TMP/s.db" "SELECT kind || ' ' || seed FROM task WHERE name = 'TreeDepth'")" "TreeDepth 5"
expect_eq "build --db: every item has its sentence" \
    "$(count "$TMP/s.db" "SELECT count(*) FROM task_item WHERE sentence_id IS NULL")" 0
# SentLen items point at sentences of the same length bin (label from the stored sentence's words)
expect_eq "build --db: sentence ids point at the right sentences" "$(count "$TMP/s.db" \
    "SELECT count(*) FROM task_item i JOIN task t USING (task_id) JOIN sentence s USING (sentence_id) WHERE t.name = 'SentLen' AND s.n_words <> length(i.text) - length(replace(i.text, ' ', '')) + 1")" 0
rc=0; "$SP" tasks build --split resplit --db "$TMP/s.db" --corpus ptb --seed 6 --tasks SentLen >/dev/null 2>"$TMP/err" || rc=$?; expect_eq "rebuild, same name -> exit 1" "$rc" 1
check "rebuild: message names the task" grep -q "task 'SentLen' already exists" "$TMP/err"
"$SP" tasks build --split resplit --db "$TMP/s.db" --corpus ptb --seed 6 --tasks SentLen --replace --out "$TMP/c" >/dev/null
"$SP" tasks export --db "$TMP/s.db" --name SentLen --out "$TMP/SentLen6.txt"
check "--replace: the new SentLen is stored" cmp -s "$TMP/c/sentence_length.txt" "$TMP/SentLen6.txt"
"$SP" tasks build --split resplit --db "$TMP/s.db" --corpus ptb --seed 7 --tasks SentLen --prefix s7- >/dev/null
"$SP" tasks list --db "$TMP/s.db" >"$TMP/list2"
check "--prefix: s7-SentLen listed with its kind and split counts" grep -Eq '^s7-SentLen +SentLen +[0-9]+ +[0-9]+ +[0-9]+$' "$TMP/list2"
expect_eq "--prefix: 1128 items" "$(count "$TMP/s.db" "SELECT count(*) FROM task_item JOIN task USING (task_id) WHERE name = 's7-SentLen'")" 1128
done_testing
