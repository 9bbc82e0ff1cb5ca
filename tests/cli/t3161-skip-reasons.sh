# t3161-skip-reasons.sh — a skipped task says why, at build time (tasks build, run) and stored (tasks list)
# tier: fast
# Issue 24 item 4: TreeDepth/TopConst/WC were skipped on UD without a reason in what a job printed
# or stored. Now: `tasks build` says why each is skipped (TreeDepth/TopConst: a dependency corpus
# has no constituency trees; WC on EWT dev: 2 items a target word leave no test items, so the task
# is skipped instead of stored without a test set), a job's run prints the same lines, and every
# stored task of the build records the skipped ones (params.skipped), which `tasks list` shows;
# run --check refuses a job that would encode a TreeDepth its CoNLL-U corpus cannot give.
# Independent expectations: EWT (CoNLL-U) has no constituency trees; WC's items per class come
# from its 50 targets balanced to the rarest (100 items: 2 a class), too few for 80/10/10 to
# put any in test (round(0.8*2) = 2 go to train).
. tests/cli/lib.sh
need_data
EWT=$DATA/ud-ewt/en_ewt-ud-dev.conllu
$SP ingest --db $TMP/s.db --corpus ewt --quiet $EWT >/dev/null 2>&1
rc=0; $SP tasks build --db $TMP/s.db --corpus ewt --split resplit >$TMP/out 2>$TMP/err || rc=$?
expect_eq "tasks build on EWT dev: exit 0" "$rc" 0
check "TreeDepth skipped: no constituency trees in a UD (CoNLL-U) corpus" \
    grep -q '^TreeDepth skipped: needs constituency trees (PTB .mrg); none of the 2001 sentences has one: dependency corpora (UD CoNLL-U) have no constituency trees$' $TMP/out
check "TopConst skipped, the same reason" grep -q '^TopConst  skipped: needs constituency trees .*dependency corpora (UD CoNLL-U) have no constituency trees$' $TMP/out
check "WC skipped: no test items, 100 items in 50 classes, 2 a class" \
    grep -q '^WC        skipped: no test items: its 100 items (50 classes, 2 a class) are too few for the 80/10/10 split to put any in test (fewer targets, --wc-k, or a larger corpus)$' $TMP/out
expect_eq "WC is not stored without a test set; the 7 other tasks are" \
    "$(sqlite3 $TMP/s.db "select count(*), sum(name = 'WC') from task")" "7|0"
expect_eq "every stored task records the three skipped and why" \
    "$(sqlite3 $TMP/s.db "select count(*) from task where json_extract(params, '$.skipped.TreeDepth') like 'needs constituency trees%'
        and json_extract(params, '$.skipped.TopConst') like 'needs constituency trees%' and json_extract(params, '$.skipped.WC') like 'no test items%'")" 7
$SP tasks list --db $TMP/s.db >$TMP/list
check "tasks list: the skipped tasks with their reasons, once each" sh -c "
    grep -q '^skipped when these tasks were built:\$' $TMP/list &&
    [ \$(grep -c '^    TreeDepth: needs constituency trees' $TMP/list) = 1 ] &&
    [ \$(grep -c '^    TopConst: needs constituency trees' $TMP/list) = 1 ] &&
    [ \$(grep -c '^    WC: no test items' $TMP/list) = 1 ]"

# in a job: the run prints each skip and its reason (a note for "all" tasks, a warning when named)
mkdir -p $TMP/j && cp $EWT $TMP/j/
cat >$TMP/j/job.json <<'J'
{"store": "s.db", "corpora": [{"name": "ewt", "paths": ["en_ewt-ud-dev.conllu"]}],
 "tasks": [{"tasks": ["SentLen", "TreeDepth"], "split": "resplit"}]}
J
rc=0; $SP run $TMP/j/job.json >$TMP/run 2>&1 || rc=$?
expect_eq "a job naming TreeDepth on EWT: exit 0" "$rc" 0
check "... its run warns that TreeDepth is skipped, and why" \
    grep -q 'synprobe run: warning: task TreeDepth skipped: needs constituency trees (PTB .mrg); none of the 2001 sentences has one: dependency corpora (UD CoNLL-U) have no constituency trees' $TMP/run
# ... and run --check refuses a job whose encoder reads TreeDepth from CoNLL-U files alone, before
# the encode step would fail on a task that was never stored
cp encoder/configs/san.json $TMP/j/
cat >$TMP/j/enc.json <<'J'
{"store": "s2.db", "corpora": [{"name": "ewt", "paths": ["en_ewt-ud-dev.conllu"]}],
 "tasks": [{"split": "resplit"}], "encoders": [{"config": "san.json", "inputs": ["SentLen", "TreeDepth"]}]}
J
rc=0; $SP run --check $TMP/j/enc.json >/dev/null 2>$TMP/err || rc=$?
expect_eq "an encoder input TreeDepth over CoNLL-U files: run --check exits 1" "$rc" 1
expect_eq "... saying why the task will not exist" "$(cat $TMP/err)" \
    "synprobe run: $TMP/j/enc.json: encoders[0].inputs[1]: task 'TreeDepth' will not exist: tasks[0] builds no TreeDepth: it needs constituency trees (.mrg files), and corpus 'ewt' has none (dependency corpora, UD CoNLL-U, have none); leave it out of the inputs"
done_testing
