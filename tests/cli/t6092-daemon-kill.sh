# t6092-daemon-kill.sh — a daemon killed with SIGKILL and restarted finishes every job without duplicates
# tier: fast
# Issue 12 items 3 and 6: a daemon killed with SIGKILL at several moments and started again
# finishes every job it held, with no duplicate rows: each job's store ends with the same row
# counts in every table as the same job run once with `synprobe run` in a separate store, passes
# integrity_check, and holds no duplicate probe result; every job is done.
. tests/cli/lib.sh
Q=$TMP/q.db
wait_for() {  # wait_for SECONDS CMD...
    t=$1; shift; i=0
    while ! "$@" 2>/dev/null; do i=$((i+1)); [ $i -le $((t*20)) ] || return 1; sleep 0.05; done
}
mkjob() {
    mkdir -p $1
    cp demo/demo.conllu demo/demo.mrg encoder/configs/san.json encoder/configs/ms-san.json $1/
    cat >$1/job.json <<'J'
{"store": "out/store.db", "out": "out",
 "corpora": [{"name": "demo", "paths": ["demo.conllu", "demo.mrg"], "strict": true}],
 "tasks": [{"tasks": ["Tense", "SubjNum", "SOMO"], "seed": 1, "split": "resplit"}],
 "encoders": [{"config": "san.json", "inputs": ["demo", "Tense", "SubjNum", "SOMO"], "attention": 0},
              {"config": "ms-san.json", "inputs": ["demo", "Tense", "SubjNum", "SOMO"], "attention": 0}],
 "probes": [{"classifier": ["logreg", "mlp"], "seed": [1, 2], "preset": "senteval-fast"}],
 "trees": [{}, {"baseline": "right"}],
 "reports": [{"format": "json", "out": "results.json"}]}
J
}
counts() {  # every table's row count, "name=N ..."
    for t in $(sqlite3 $1 "select name from sqlite_schema where type = 'table' and name not like 'sqlite_%' order by name"); do
        printf '%s=%s ' $t "$(sqlite3 $1 "select count(*) from \"$t\"")"
    done
}
dups() {
    sqlite3 $1 "select (select count(*) - count(distinct run_id || '/' || task_name || '/' || classifier || '/' || seed) from probe_result)
      + (select count(*) - count(distinct sentence_id || '/' || i) from token)"
}

mkjob $TMP/ref
$SP run --quiet $TMP/ref/job.json >/dev/null 2>&1 && rc=0 || rc=$?
expect_eq "the reference: the job run once in the foreground, exit 0" "$rc" 0
ref=$(counts $TMP/ref/out/store.db)

N=3
for i in $(seq $N); do mkjob $TMP/j$i; $SP submit --db $Q $TMP/j$i/job.json >/dev/null; done
done_jobs() { sqlite3 $Q "select count(*) from queue_job where state = 'done'"; }
# kill at several moments: soon after the start (ingest/encode), in the middle (probes), later
kills=0
for at in 0.7 1.9 3.1 4.4 2.3 5.6; do
    $SP daemon --db $Q --workers 2 --lease 5 --log $TMP/d.log &
    dpid=$!
    sleep $at
    kill -KILL $dpid 2>/dev/null && kills=$((kills+1))
    wait $dpid 2>/dev/null || true
    [ "$(done_jobs)" -lt $N ] || break
done
echo "# $kills kills, $(done_jobs) of $N jobs done before the last daemon"
check "the daemon was killed at least 3 times" [ $kills -ge 3 ]
expect_eq "every kill left the queue consistent (integrity_check)" "$(sqlite3 $Q 'pragma integrity_check')" ok
n0=$(grep -c 'serving' $TMP/d.log || true)
$SP daemon --db $Q --workers 2 --lease 5 --log $TMP/d.log &
dpid=$!
# its signal handlers are in place once it logs "serving" (a SIGTERM before that is the default's)
wait_for 30 sh -c "[ \$(grep -c 'serving' $TMP/d.log) -gt $n0 ]" || true
check "the last daemon finishes every job" wait_for 300 sh -c "[ \$(sqlite3 $Q \"select count(*) from queue_job where state = 'done'\") = $N ]"
kill -TERM $dpid; rc=0; wait $dpid || rc=$?
expect_eq "... and drains with exit 0" "$rc" 0
check "some job was running when killed and resumed (attempts > 1)" \
    [ "$(sqlite3 $Q 'select count(*) from queue_job where attempts > 1')" -ge 1 ]
check "the restarted daemons re-queued the killed daemons' jobs" grep -q 'queued again' $TMP/d.log
for i in $(seq $N); do
    s=$TMP/j$i/out/store.db
    expect_eq "job $i: integrity_check" "$(sqlite3 $s 'pragma integrity_check')" ok
    expect_eq "job $i: every table's row count equals the foreground run's" "$(counts $s)" "$ref"
    expect_eq "job $i: no duplicate probe results or tokens" "$(dups $s)" 0
    expect_eq "job $i: every ledger step done" "$(sqlite3 $s "select count(*) from job_step where state <> 'done'")" 0
done
done_testing
