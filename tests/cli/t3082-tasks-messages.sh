# t3082-tasks-messages.sh — the messages of tasks, info and export for unknown names and words
# tier: fast
# Issue #11 message fixes for tasks, info and export:
#   tasks build --corpus a,b builds from the sentences of both corpora (in the order given);
#   an unknown corpus or task names the nearest stored names and lists what the store has (exit 1);
#   an unknown task or subcommand word is a usage error that suggests the nearest (exit 2);
#   a single-valued flag given twice is a usage error (exit 2).
# The corpora are written here by hand: ewt has 3 sentences, ptb 2, so together 5 (no train/dev/test
# of their own: the builds ask for the re-split, issue 24).
. tests/cli/lib.sh
DB=$TMP/s.db

# one CoNLL-U sentence of $2 tokens, id $1 (token 1 the root, the rest attached to it)
sent() {
    printf '# sent_id = %s\n' "$1"
    i=1
    while [ $i -le "$2" ]; do
        if [ $i -eq 1 ]; then h=0; r=root; else h=1; r=dep; fi
        printf '%d\tw%d\tw%d\tNOUN\tNN\t_\t%d\t%s\t_\t_\n' $i $i $i $h $r
        i=$((i + 1))
    done
    printf '\n'
}
{ sent e1 5; sent e2 6; sent e3 7; } >"$TMP/ewt.conllu"
{ sent p1 8; sent p2 9; } >"$TMP/ptb.conllu"
$SP ingest --db "$DB" --corpus ewt --quiet "$TMP/ewt.conllu" >/dev/null
$SP ingest --db "$DB" --corpus ptb --quiet "$TMP/ptb.conllu" >/dev/null

# ---- several corpora ----
rc=0; $SP tasks build --split resplit --db "$DB" --corpus ewt,ptb --tasks SentLen --out "$TMP/two" >"$TMP/two.txt" 2>/dev/null || rc=$?
expect_eq "tasks build --corpus ewt,ptb: exit 0" "$rc" 0
expect_eq "--corpus ewt,ptb: 3 + 2 sentences" "$(head -1 "$TMP/two.txt")" "5 sentences, seed 1"
expect_eq "--corpus ewt,ptb: tasks.json source and sentences" \
    "$($PY -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["source"], d["sentences"])' "$TMP/two/tasks.json")" "ewt,ptb 5"
rc=0; $SP tasks build --split resplit --db "$DB" --corpus ptb --corpus ewt --tasks SentLen --prefix r- >"$TMP/rep.txt" 2>/dev/null || rc=$?
expect_eq "--corpus repeated (ptb then ewt): exit 0, 5 sentences" "$rc $(head -1 "$TMP/rep.txt")" "0 5 sentences, seed 1"
rc=0; $SP tasks build --split resplit --db "$DB" --corpus ewt --tasks SentLen --prefix one- >"$TMP/one.txt" 2>/dev/null || rc=$?
expect_eq "--corpus ewt alone: 3 sentences" "$rc $(head -1 "$TMP/one.txt")" "0 3 sentences, seed 1"
rc=0; err=$($SP tasks build --db "$DB" --corpus ewt,ewt --tasks SentLen 2>&1 >/dev/null) || rc=$?
expect_eq "--corpus ewt,ewt: usage exit 2" "$rc" 2
case "$err" in *"'ewt' is named twice"*) ok "--corpus ewt,ewt: says why";; *) not_ok "--corpus ewt,ewt: '$err'";; esac
rc=0; err=$($SP tasks build --corpus-files "$TMP/ewt.conllu" --corpus ewt 2>&1 >/dev/null) || rc=$?
expect_eq "--corpus without --db: usage exit 2" "$rc" 2

# ---- unknown corpus: the nearest names and what exists (exit 1) ----
WANT="no corpus 'ewd' in $DB; did you mean 'ewt'? the store has: ewt, ptb"
rc=0; err=$($SP tasks build --db "$DB" --corpus ewd 2>&1 >/dev/null) || rc=$?
expect_eq "tasks build --corpus ewd: exit 1" "$rc" 1
expect_eq "tasks build --corpus ewd: message" "$err" "synprobe tasks build: $WANT"
rc=0; err=$($SP tasks build --db "$DB" --corpus ptb,ewd 2>&1 >/dev/null) || rc=$?
expect_eq "tasks build --corpus ptb,ewd: exit 1 naming ewd" "$rc $err" "1 synprobe tasks build: $WANT"
rc=0; err=$($SP info --db "$DB" --corpus ewd 2>&1 >/dev/null) || rc=$?
expect_eq "info --corpus ewd: exit 1" "$rc" 1
expect_eq "info --corpus ewd: message" "$err" "synprobe info: $WANT"
rc=0; out=$($SP export --db "$DB" --corpus ewd --what sentences 2>"$TMP/err") || rc=$?
expect_eq "export --corpus ewd: exit 1, nothing on stdout" "$rc|$out" "1|"
expect_eq "export --corpus ewd: message" "$(cat "$TMP/err")" "synprobe export: $WANT"
rc=0; err=$($SP export --db "$DB" --corpus zzzzzz --what conllu 2>&1 >/dev/null) || rc=$?
expect_eq "export --corpus zzzzzz (nothing close): the list only" "$rc $err" \
    "1 synprobe export: no corpus 'zzzzzz' in $DB; the store has: ewt, ptb"

# ---- unknown task ----
$SP tasks import --db "$DB" --name tense tests/data/tasks/plain.txt >/dev/null
$SP tasks import --db "$DB" --name somo tests/data/tasks/plain.txt >/dev/null
rc=0; err=$($SP tasks export --db "$DB" --name tens 2>&1 >/dev/null) || rc=$?
expect_eq "tasks export --name tens: exit 1" "$rc" 1
expect_eq "tasks export --name tens: message" "$err" \
    "synprobe tasks export: no task 'tens' in $DB; did you mean 'tense'? the store has: somo, tense"
rc=0; err=$($SP tasks build --db "$DB" --corpus ewt --tasks SentLn 2>&1 >/dev/null) || rc=$?
expect_eq "tasks build --tasks SentLn: usage exit 2" "$rc" 2
case "$err" in *"unknown task 'SentLn'; did you mean 'SentLen'?"*) ok "--tasks SentLn: suggests SentLen";; *) not_ok "--tasks SentLn: '$err'";; esac
rc=0; err=$($SP tasks biuld --db "$DB" 2>&1 >/dev/null) || rc=$?
expect_eq "tasks biuld: usage exit 2" "$rc" 2
case "$err" in *"unknown subcommand 'biuld'; did you mean 'build'?"*) ok "tasks biuld: suggests build";; *) not_ok "tasks biuld: '$err'";; esac

# ---- a store without corpora ----
$SP tasks import --db "$TMP/t.db" --name tense tests/data/tasks/plain.txt >/dev/null
rc=0; err=$($SP info --db "$TMP/t.db" --corpus ewt 2>&1 >/dev/null) || rc=$?
expect_eq "info --corpus on a store with no corpus: exit 1, says so" "$rc $err" \
    "1 synprobe info: no corpus 'ewt' in $TMP/t.db; the store has none yet (synprobe ingest adds them)"

# ---- a single-valued flag given twice ----
rc=0; err=$($SP tasks export --db "$DB" --name tense --name somo 2>&1 >/dev/null) || rc=$?
expect_eq "tasks export --name twice: usage exit 2" "$rc" 2
case "$err" in *"--name given twice"*) ok "--name twice: says so";; *) not_ok "--name twice: '$err'";; esac

# ---- real corpora: UD EWT dev (2001 sentences) and the NLTK PTB sample (3914) as one pool ----
need_data
R=$TMP/r.db
$SP ingest --db "$R" --corpus ewt --quiet "$DATA/ud-ewt/en_ewt-ud-dev.conllu" >/dev/null
$SP ingest --db "$R" --corpus ptb --quiet "$DATA/ptb-sample/combined" >/dev/null
rc=0; $SP tasks build --split resplit --db "$R" --corpus ewt,ptb --tasks SentLen --quiet >"$TMP/r.txt" || rc=$?
expect_eq "real ewt,ptb: exit 0, 2001 + 3914 sentences" "$rc $(head -1 "$TMP/r.txt")" "0 5915 sentences, seed 1"
expect_eq "real ewt,ptb: SentLen stored without a corpus, its items from both corpora" \
    "$(sqlite3 "$R" "select coalesce(corpus_id, 'none'), (select count(distinct s.corpus_id) from task_item i join sentence s using (sentence_id) where i.task_id = t.task_id) from task t where name = 'SentLen'")" "none|2"
done_testing
