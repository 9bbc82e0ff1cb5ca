# t6160-split-stop.sh — a job over UD dev+test alone stops at run --check; the re-split runs only when asked
# tier: fast
# Issue 24 item 4 ("defaults that mislead"): given UD dev and test files but no train, tasks were
# re-split 80/10/10 silently (only task.params said so). Now `run --check` and `run` refuse the job
# before anything runs, naming the corpus, the splits its files give and the opt-in; with
# "split": "resplit" in the tasks entry the job runs, prints the re-split (corpus, 80/10/10, seed)
# and stores it as params.partition = {"kind": "resplit", "seed": N, "text": ...}.
# Independent expectations: the split of each file from its UD name (xx-ud-dev -> dev); a
# re-split puts dev sentences and test sentences into every partition (an official split could
# not), counted in SQL over the stored items.
. tests/cli/lib.sh
need_data
mkdir -p $TMP/j
# EWT dev cut into two UD-named files: 1000 sentences "dev", 1001 "test"
$PY - $DATA/ud-ewt/en_ewt-ud-dev.conllu $TMP/j <<'P'
import sys
s = open(sys.argv[1], encoding="utf-8").read().strip("\n").split("\n\n")
open(sys.argv[2] + "/xx-ud-dev.conllu", "w", encoding="utf-8").write("\n\n".join(s[:1000]) + "\n\n")
open(sys.argv[2] + "/xx-ud-test.conllu", "w", encoding="utf-8").write("\n\n".join(s[1000:]) + "\n\n")
P
cp encoder/configs/san.json $TMP/j/
job() {   # $1: extra keys of the tasks entry
    cat <<J
{"store": "out/s.db", "out": "out",
 "corpora": [{"name": "xx", "paths": ["xx-ud-dev.conllu", "xx-ud-test.conllu"]}],
 "tasks": [{"tasks": ["SentLen", "BShift"], "seed": 3$1}],
 "encoders": [{"config": "san.json", "inputs": ["BShift"]}],
 "probes": [{"classifier": ["logreg"], "preset": "senteval-fast"}]}
J
}
job "" >$TMP/j/plain.json
job ', "split": "resplit"' >$TMP/j/resplit.json
job ', "split": "auto"' >$TMP/j/auto.json

rc=0; $SP run --check $TMP/j/plain.json >$TMP/out 2>$TMP/err || rc=$?
expect_eq "dev+test alone: run --check exits 1" "$rc" 1
check "... naming the entry and the corpus" grep -q "tasks\[0\]: corpus 'xx' has no official train/test partitions: no train split" $TMP/err
check "... the splits its files give (dev 1, test 1)" grep -q "(files: dev 1, test 1)" $TMP/err
check "... and the opt-in" grep -q 'add "split": "resplit" to this tasks entry' $TMP/err
check "... and lists no steps" test ! -s $TMP/out
rc=0; $SP run $TMP/j/plain.json >$TMP/out 2>$TMP/err || rc=$?
expect_eq "run exits 1 as well" "$rc" 1
check "... before anything runs: no store, no output folder" test ! -e $TMP/j/out
rc=0; $SP run --check $TMP/j/auto.json >/dev/null 2>$TMP/err || rc=$?
check "\"split\": \"auto\" (the old default's name) re-splits no more: exit 1 (got $rc)" sh -c "[ $rc = 1 ] && grep -q \"corpus 'xx' has no official\" $TMP/err"

rc=0; $SP run --check $TMP/j/resplit.json >$TMP/out 2>&1 || rc=$?
expect_eq "with \"split\": \"resplit\": run --check exits 0" "$rc" 0
check "... and lists the tasks step with --split resplit" grep -q "synprobe tasks build .*--split resplit" $TMP/out
rc=0; $SP run $TMP/j/resplit.json >$TMP/out 2>&1 || rc=$?
expect_eq "the job runs: exit 0" "$rc" 0
check "the re-split is printed: one line with 80/10/10, the seed and the corpus" \
    grep -q "tasks re-split 80/10/10 with seed 3, as asked (--split resplit): corpus 'xx' has no official partitions: no train split; sentences: dev 1000, test 1001" $TMP/out
DB=$TMP/j/out/s.db
expect_eq "it is stored: partition kind and seed in every task's params" \
    "$(sqlite3 $DB "select group_concat(name || ':' || json_extract(params, '$.partition.kind') || ':' || json_extract(params, '$.partition.seed'), ' ') from (select * from task order by name)")" \
    "BShift:resplit:3 SentLen:resplit:3"
expect_eq "... a re-split indeed: test items from dev sentences and train items from test sentences" \
    "$(sqlite3 $DB "select count(distinct i.split || s.split) from task_item i join sentence s using (sentence_id) where (i.split = 'te' and s.split = 'dev') or (i.split = 'tr' and s.split = 'test')")" 2
expect_eq "the probe ran on the re-split task" "$(sqlite3 $DB "select count(*) from probe_result")" 1

# a folder of UD-named files: each file records its name's split (the folder used to be one input
# with none), so the same stop; with a train file beside them the job passes
mkdir -p $TMP/j/ud && cp $TMP/j/xx-ud-dev.conllu $TMP/j/xx-ud-test.conllu $TMP/j/ud/
sed 's|"paths": \["xx-ud-dev.conllu", "xx-ud-test.conllu"\]|"paths": ["ud"]|' $TMP/j/plain.json >$TMP/j/folder.json
rc=0; $SP run --check $TMP/j/folder.json >/dev/null 2>$TMP/err || rc=$?
check "a folder of dev+test files: run --check exits 1 (got $rc), files: dev 1, test 1" \
    sh -c "[ $rc = 1 ] && grep -q \"corpus 'xx' has no official train/test partitions: no train split (files: dev 1, test 1)\" $TMP/err"
head -n 40 $TMP/j/xx-ud-dev.conllu | $PY -c 'import sys; print(sys.stdin.read().split("\n\n")[0] + "\n")' >$TMP/j/ud/xx-ud-train.conllu
rc=0; $SP run --check $TMP/j/folder.json >$TMP/out 2>$TMP/err || rc=$?
expect_eq "... with xx-ud-train.conllu beside them: exit 0, one ingest step per file's split" \
    "$rc $(grep -o 'ingest .*--split [a-z]*' $TMP/out | sed 's/.*--split //' | tr '\n' ' ')" "0 dev test train "

# by hand: tasks build on the same store stops too, and names the command-line opt-in
rc=0; $SP tasks build --db $DB --corpus xx --tasks SentLen --prefix h- >/dev/null 2>$TMP/err || rc=$?
expect_eq "tasks build --db (no --split): exit 1" "$rc" 1
check "... naming the corpus, its sentences' splits and --split resplit" \
    sh -c "grep -q \"corpus 'xx' has no official train/test partitions: no train split (sentences: dev 1000, test 1001)\" $TMP/err && grep -q -- '--split resplit for a seeded 80/10/10 re-split' $TMP/err"
expect_eq "... and stores nothing" "$(sqlite3 $DB "select count(*) from task where name like 'h-%'")" 0
done_testing
