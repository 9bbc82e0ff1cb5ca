# t6087-run.sh — `synprobe run JOB.json`: steps run once, a stopped run resumes without duplicates
# tier: fast
# Issue 12: `synprobe run JOB.json` runs a job's steps; a second run does no work; a run stopped
# by SIGTERM resumes to the same rows as an uninterrupted run, with no duplicates.
. tests/cli/lib.sh
mkjob() {  # folder: the demo corpus, the SAN config and a job over them
    mkdir -p $1
    cp demo/demo.conllu demo/demo.mrg encoder/configs/san.json encoder/configs/ms-san.json $1/
    cat >$1/job.json <<'J'
{
  "store": "out/store.db",
  "out": "out",
  "corpora": [{"name": "demo", "paths": ["demo.conllu", "demo.mrg"], "strict": true}],
  "tasks": [{"tasks": ["Tense", "SubjNum", "SOMO"], "seed": 1, "split": "resplit"}],
  "encoders": [{"config": "san.json", "inputs": ["demo", "Tense", "SubjNum", "SOMO"], "attention": 0},
               {"config": "ms-san.json", "inputs": ["demo", "Tense", "SubjNum", "SOMO"], "attention": 0}],
  "probes": [{"classifier": ["logreg", "mlp"], "seed": [1, 2], "preset": "senteval-fast"}],
  "trees": [{}, {"baseline": "right"}],
  "reports": [{"format": "json", "out": "results.json"}]
}
J
}
rows() {  # probe results, tree evaluations, ledger steps, duplicate probe results
    sqlite3 $1 "select (select count(*) from probe_result), (select count(*) from tree_eval), (select count(*) from job_step),
      (select count(*) - count(distinct run_id || '/' || task_name || '/' || classifier || '/' || seed) from probe_result)" | tr '|' ' '
}
mkjob $TMP/a
$SP run $TMP/a/job.json >$TMP/out1 2>$TMP/err1 && rc=0 || rc=$?
expect_eq "the job runs: exit 0" "$rc" 0
# by hand: 2 encoders x 3 tasks x 2 classifiers x 2 seeds = 24 probe rows; trees: 2 corpus runs + 1 baseline
# = 3 rows; ledger: tasks build + 24 probes + 3 trees + 1 report = 29 steps; no duplicates
expect_eq "rows after one run (probe, trees, ledger, duplicates)" "$(rows $TMP/a/out/store.db)" "24 3 29 0"
expect_eq "38 step lines printed, [1/38] to [38/38] (1 ingest, 1 tasks build, 8 encodes, 24 probes, 3 trees, 1 report)" \
    "$(grep -cE '^\[[0-9]+/38\] ' $TMP/out1) $(grep -oE '^\[[0-9]+/38\]' $TMP/out1 | tr -d '[]' | cut -d/ -f1 | sort -n | uniq | tr '\n' ' ')" \
    "38 $(seq 1 38 | tr '\n' ' ')"
check "the report is in the output folder" test -s $TMP/a/out/results.json
$SP run $TMP/a/job.json >$TMP/out2 2>$TMP/err2 && rc=0 || rc=$?
expect_eq "the second run: exit 0" "$rc" 0
check "the second run says it had nothing to do" grep -q 'nothing to do: all 38 steps were done before' $TMP/out2
expect_eq "the second run added no rows" "$(rows $TMP/a/out/store.db)" "24 3 29 0"

# stopped by SIGTERM once the probes have started, then resumed
mkjob $TMP/b
$SP run $TMP/b/job.json >$TMP/out3 2>&1 &
pid=$!
i=0
while [ $i -lt 600 ] && ! grep -q '^\[[0-9]*/38\] probe ' $TMP/out3 2>/dev/null; do sleep 0.05; i=$((i+1)); done
kill -TERM $pid 2>/dev/null
wait $pid && rc=0 || rc=$?
if [ "$rc" = 143 ]; then
    ok "SIGTERM mid-job: exit 143"
    check "... it says how to resume" grep -q 'run it again to resume' $TMP/out3
else
    skip "the job finished (exit $rc) before SIGTERM arrived: nothing to resume"
fi
$SP run $TMP/b/job.json >$TMP/out4 2>&1 && rc=0 || rc=$?
expect_eq "the resumed run: exit 0" "$rc" 0
expect_eq "resumed: the same rows as the uninterrupted run, no duplicates" "$(rows $TMP/b/out/store.db)" "24 3 29 0"
expect_eq "integrity_check" "$(sqlite3 $TMP/b/out/store.db 'pragma integrity_check')" ok

# A step's rows and its 'done' are one transaction (store/st_jobs.h), so SIGKILL leaves a step either
# done with its rows or 'started' without them. Every stored result names a step that is done:
orphans() {
    sqlite3 $1 "select (select count(*) from probe_result where job_step_id is null or job_step_id not in (select step_id from job_step where state = 'done'))
      + (select count(*) from tree_eval where job_step_id is null or job_step_id not in (select step_id from job_step where state = 'done'))
      + (select count(*) from task where job_step_id is null or job_step_id not in (select step_id from job_step where state = 'done'))"
}
expect_eq "every probe result, tree evaluation and task names a step that is done" "$(orphans $TMP/a/out/store.db)" 0
# A kill before the commit, made here without a race: take finished steps back to what such a kill
# leaves, 'started' and no rows of theirs (a probe, a trees step). The next run must redo exactly
# those two, to the same rows.
undo() {  # store, SQL selecting the step ids to take back
    sqlite3 $1 "pragma foreign_keys = on; create temp table undo as $2;
    delete from probe_result where job_step_id in (select step_id from undo);
    delete from tree_eval where job_step_id in (select step_id from undo);
    delete from task where job_step_id in (select step_id from undo);
    update job_step set state = 'started', summary = '' where step_id in (select step_id from undo)"
}
undo $TMP/a/out/store.db "select min(step_id) as step_id from job_step where command like 'probe %'
    union select min(step_id) from job_step where command like 'trees %'"
expect_eq "... the simulated kill took away 1 probe row and 1 tree row" "$(rows $TMP/a/out/store.db)" "23 2 29 0"
$SP run $TMP/a/job.json >$TMP/out6 2>&1 && rc=0 || rc=$?
[ "$rc" = 0 ] || tail -5 $TMP/out6
expect_eq "killed before commit: the re-run exits 0" "$rc" 0
expect_eq "... it redid the 2 unfinished steps and skipped the other 27" "$(grep -cE '^\[[0-9]+/38\] [^:]*: done before, skipped' $TMP/out6)" 27
expect_eq "... the same rows, no duplicates" "$(rows $TMP/a/out/store.db)" "24 3 29 0"
expect_eq "... every step done, every row named by one" \
    "$(sqlite3 $TMP/a/out/store.db "select count(*) from job_step where state <> 'done'") $(orphans $TMP/a/out/store.db)" "0 0"
# The same for a tasks build (stored in one transaction, all tasks or none), in a job that only
# builds tasks, so that no encoder run refers to them. (BShift and SOMO: on demo.conllu alone, Tense
# and SubjNum have no test items and are skipped since issue 24.)
mkdir -p $TMP/c && cp demo/demo.conllu $TMP/c/ && cat >$TMP/c/job.json <<'J'
{"store": "out/store.db", "out": "out", "corpora": [{"name": "demo", "paths": ["demo.conllu"]}],
 "tasks": [{"tasks": ["BShift", "SOMO"], "seed": 1, "split": "resplit"}]}
J
tasks_of() { sqlite3 $1 "select group_concat(name || ':' || (select count(*) from task_item i where i.task_id = t.task_id), ' ') from task t order by name"; }
$SP run $TMP/c/job.json >/dev/null 2>&1 && rc=0 || rc=$?
tasks_before=$(tasks_of $TMP/c/out/store.db)
expect_eq "a tasks-only job: exit 0, 2 tasks" "$rc $(sqlite3 $TMP/c/out/store.db 'select count(*) from task')" "0 2"
undo $TMP/c/out/store.db "select step_id from job_step where command like 'tasks build%'"
expect_eq "... the simulated kill took the tasks away" "$(sqlite3 $TMP/c/out/store.db 'select count(*) from task, task_item')" 0
$SP run $TMP/c/job.json >$TMP/out7 2>&1 && rc=0 || rc=$?
[ "$rc" = 0 ] || tail -5 $TMP/out7
expect_eq "... the re-run builds them again (no 'task already exists'): exit 0" "$rc" 0
expect_eq "... the same tasks with the same items" "$(tasks_of $TMP/c/out/store.db)" "$tasks_before"

# a real treebank: UD EWT dev, tasks, one encoder, probes
EWT=../shared/data/ud-ewt/en_ewt-ud-dev.conllu
if [ -f "$EWT" ]; then
    mkdir -p $TMP/r
    cp encoder/configs/san.json $TMP/r/
    cat >$TMP/r/job.json <<J
{"store": "ewt.db", "out": "out",
 "corpora": [{"name": "ewt", "paths": ["$(cd "$(dirname $EWT)" && pwd)/en_ewt-ud-dev.conllu"]}],
 "tasks": [{"tasks": ["Tense"], "split": "resplit"}],
 "encoders": [{"config": "san.json", "inputs": ["Tense"]}],
 "probes": [{}],
 "reports": [{"format": "csv", "out": "ewt.csv"}]}
J
    $SP run $TMP/r/job.json >$TMP/out5 2>&1 && rc=0 || rc=$?
    expect_eq "EWT dev job: exit 0" "$rc" 0
    expect_eq "the UD file name gave the split: every sentence is dev" \
        "$(sqlite3 $TMP/r/ewt.db "select count(distinct split) || ' ' || max(split) from sentence")" "1 dev"
    expect_eq "one probe result" "$(sqlite3 $TMP/r/ewt.db 'select count(*) from probe_result')" 1
else
    skip "real-data job: $EWT absent"
fi
done_testing
