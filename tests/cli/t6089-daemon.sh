# t6089-daemon.sh — `synprobe daemon|submit|status|cancel|logs`: jobs, retries, cancel, signals
# tier: fast
# Issue 12 item 3: synprobe daemon / submit / status / cancel / logs. A bad job file is refused at
# submit time (its JSON path named, nothing written); jobs run and keep their logs; a failing job
# keeps its error and the step it failed in, and --retry N runs it N more times after a backoff;
# cancel stops a running job; SIGHUP reopens the log; SIGTERM drains (exit 0, the running job
# queued again and finished by the next daemon); two daemons on one store share the queue, no job
# running twice; unknown job ids are refused.
. tests/cli/lib.sh
Q=$TMP/q.db
wait_for() {  # wait_for SECONDS CMD...: until CMD succeeds; 1 on timeout
    t=$1; shift; i=0
    while ! "$@" 2>/dev/null; do i=$((i+1)); [ $i -le $((t*20)) ] || return 1; sleep 0.05; done
}
state_is() { [ "$($SP status --db $Q --json $1 | sed -n 's/^  "state": "\(.*\)",$/\1/p')" = "$2" ]; }
all_final() { [ "$(sqlite3 $Q "select count(*) from queue_job where state in ('queued','running')")" = 0 ]; }
start_daemon() {  # log file; more flags
    log=$1; shift
    $SP daemon --db $Q --log $log --lease 3 --backoff 1 "$@" &
    dpid=$!
}

mkdir -p $TMP/j
cp demo/demo.conllu demo/demo.mrg encoder/configs/san.json encoder/configs/ms-san.json $TMP/j/
echo '{"store": "small.db", "reports": [{"format": "json", "out": "r.json"}]}' >$TMP/j/small.json
cat >$TMP/j/demo.json <<'J'
{"store": "out/store.db", "out": "out",
 "corpora": [{"name": "demo", "paths": ["demo.conllu", "demo.mrg"], "strict": true}],
 "tasks": [{"tasks": ["Tense", "SubjNum", "SOMO"], "seed": 1, "split": "resplit"}],
 "encoders": [{"config": "san.json", "inputs": ["demo", "Tense", "SubjNum", "SOMO"], "attention": 0},
              {"config": "ms-san.json", "inputs": ["demo", "Tense", "SubjNum", "SOMO"], "attention": 0}],
 "probes": [{"classifier": ["logreg", "mlp"], "seed": [1, 2], "preset": "senteval-fast"}],
 "trees": [{}, {"baseline": "right"}],
 "reports": [{"format": "json", "out": "results.json"}]}
J
# a job that passes the checks at submit time and fails each time it runs: its report's filter
# matches nothing (an output path that is a folder is refused at submit now, issue 40)
echo '{"store": "bad.db", "reports": [{"format": "json", "out": "r.json", "classifier": "nosuch"}]}' >$TMP/j/fails.json
echo '{"store": "x.db", "encoders": [{"config": "nosuch.json", "inputs": ["demo"]}]}' >$TMP/j/invalid.json

# ---- submit-time checks: nothing written ----
rc=0; $SP submit --db $Q $TMP/j/invalid.json >$TMP/o 2>$TMP/e || rc=$?
expect_eq "an invalid job file: exit 1" "$rc" 1
check "... the message names the JSON path" grep -q 'encoders\[0\].config: .*nosuch.json: no such file' $TMP/e
check "... and the queue store was not even created" test ! -e $Q
rc=0; $SP submit --db $Q $TMP/j/small.json $TMP/j/invalid.json >/dev/null 2>$TMP/e || rc=$?
expect_eq "a valid and an invalid file together: exit 1, none queued (no store)" "$rc $(test -e $Q && echo store || echo none)" "1 none"
rc=0; $SP submit --db $Q $TMP/j/missing.json >/dev/null 2>$TMP/e || rc=$?
expect_eq "a job file that does not exist: exit 1" "$rc" 1
rc=0; $SP submit --db $Q >/dev/null 2>$TMP/e || rc=$?
expect_eq "submit without a job file: exit 2" "$rc" 2

# ---- queued, then run ----
expect_eq "submit prints the job id" "$($SP submit --db $Q $TMP/j/small.json)" 1
expect_eq "a second job: id 2" "$($SP submit --db $Q --retry 1 $TMP/j/fails.json)" 2
check "status JOB: queued before any daemon runs" state_is 1 queued
check "status lists both jobs" sh -c "$SP status --db $Q | grep -c 'queued' | grep -qx 2"
expect_eq "logs of a job that has not run" "$($SP logs --db $Q 1)" "job 1 (queued) has no log yet: it has not run"
for args in "status --db $Q 99" "cancel --db $Q 99" "logs --db $Q 99"; do
    rc=0; $SP $args >/dev/null 2>$TMP/e || rc=$?
    expect_eq "$args: exit 1, 'no job 99'" "$rc $(grep -c 'no job 99 in the queue' $TMP/e)" "1 1"
done
rc=0; $SP status --db $Q abc >/dev/null 2>$TMP/e || rc=$?
expect_eq "status abc: exit 2" "$rc" 2

start_daemon $TMP/d1.log --workers 2
check "the small job finishes: done" wait_for 60 state_is 1 done
check "its report was written beside the job file" test -s $TMP/j/r.json
check "logs: the step as a command and its summary" sh -c "$SP logs --db $Q 1 | grep -q '\$ synprobe report --db .*small.db'"
check "the failing job ends failed after its retry" wait_for 90 state_is 2 failed
$SP status --db $Q --json 2 >$TMP/s2.json
check "... status --json is JSON" $PY -c "import json,sys; json.load(open(sys.argv[1]))" $TMP/s2.json
expect_eq "... 2 attempts, 2 failures, 1 retry allowed" \
    "$($PY -c "import json,sys; j=json.load(open(sys.argv[1])); print(j['attempts'], j['failures'], j['max_retries'])" $TMP/s2.json)" "2 2 1"
expect_eq "... it keeps the step it failed in" \
    "$($PY -c "import json,sys; print(json.load(open(sys.argv[1]))['error_step'])" $TMP/s2.json)" "reports[0]"
check "... and the error, naming the file" sh -c "$SP status --db $Q 2 | grep -q 'error      reports\[0\]: .*bad.db: no probe results or tree evaluations match --classifier nosuch'"
expect_eq "... its log has both attempts" "$($SP logs --db $Q 2 | grep -c '^==== job 2, attempt')" 2
check "... the second attempt waited for the backoff (>= 1 s)" \
    sh -c "[ \$(sqlite3 $Q 'select started_at - (select submitted_at from queue_job where job_id = 2) >= 1 from queue_job where job_id = 2') = 1 ]"

# ---- a job with nothing to do is finished by the daemon itself ----
id=$($SP submit --db $Q $TMP/j/small.json)
check "the small job again: done" wait_for 60 state_is $id done
check "... the daemon saw that every step was done before (no process)" \
    sh -c "$SP logs --db $Q $id | grep -q 'nothing to do: all 1 steps were done before (checked by the daemon)'"
expect_eq "... steps 1/1 in status" "$($SP status --db $Q | awk -v id=$id '$1 == id { print $4 }')" "1/1"

# ---- a job whose store is the queue's own file (the daemon closes its connection across the fork) ----
# (its report went to self.json, the job file itself, until outputs were checked against the inputs: t6122)
echo '{"store": "q.db", "reports": [{"format": "json", "out": "self-report.json"}]}' >$TMP/self.json
id=$($SP submit --db $Q $TMP/self.json)
check "a job into the queue's own store: done" wait_for 60 state_is $id done
check "... its report is there" test -s $TMP/self-report.json
expect_eq "... the store holds the queue and the job's ledger" "$(sqlite3 $Q "select count(*) > 0 from queue_job; select count(*) from job_step")" "1
1"

# ---- SIGHUP reopens the log ----
mv $TMP/d1.log $TMP/d1.log.1
kill -HUP $dpid
check "SIGHUP: a new log file is opened" wait_for 10 grep -q 'SIGHUP: log file reopened' $TMP/d1.log
check "... the daemon runs on" kill -0 $dpid

# ---- cancel a running job ----
id=$($SP submit --db $Q $TMP/j/demo.json)
check "the demo job is running" wait_for 90 sh -c "$SP status --db $Q $id | grep -q 'step  *probes'"
expect_eq "cancel a running job" "$($SP cancel --db $Q $id)" "job $id cancelled (it was running; its daemon stops it at the next safe point)"
check "... its process stops" wait_for 60 grep -q "job $id: stopped (cancelled) -> cancelled" $TMP/d1.log
check "... state cancelled" state_is $id cancelled
rc=0; $SP cancel --db $Q $id >/dev/null 2>$TMP/e || rc=$?
expect_eq "cancel it again: exit 1, 'cancelled already'" "$rc $(grep -c 'cancelled already' $TMP/e)" "1 1"
rc=0; $SP cancel --db $Q 1 >/dev/null 2>$TMP/e || rc=$?
expect_eq "cancel a done job: exit 1" "$rc $(grep -c 'is done already' $TMP/e)" "1 1"

# ---- a foreground run of a job whose store a daemon job is writing waits for it (STORE.run.lock) ----
mkdir -p $TMP/k && cp $TMP/j/demo.json $TMP/j/*.conllu $TMP/j/*.mrg $TMP/j/*san.json $TMP/k/
id=$($SP submit --db $Q $TMP/k/demo.json)
check "a demo job is running" wait_for 90 sh -c "$SP status --db $Q $id | grep -q 'step  *\(probes\|encoders\)'"
rc=0; $SP run $TMP/k/demo.json >$TMP/fg.out 2>&1 || rc=$?
expect_eq "synprobe run of the same job meanwhile: exit 0" "$rc" 0
check "... it waited for the daemon's job" grep -q 'waiting for .*store.db.run.lock: another job is writing to this store' $TMP/fg.out
check "... which is done" state_is $id done
check "... and then had nothing to do" grep -q 'nothing to do: all 38 steps were done before' $TMP/fg.out

# ---- SIGTERM drains ----
rm -rf $TMP/j/out
id=$($SP submit --db $Q $TMP/j/demo.json)
check "another demo job is running" wait_for 90 sh -c "$SP status --db $Q $id | grep -q 'step  *probes'"
kill -TERM $dpid
rc=0; wait $dpid || rc=$?
expect_eq "SIGTERM: the daemon exits 0" "$rc" 0
check "... it says it drained" grep -q 'drained' $TMP/d1.log
check "... the job was stopped at a safe point and queued again" state_is $id queued
check "... the job's log says it stopped" sh -c "$SP logs --db $Q $id | grep -q 'synprobe run: stopped after'"

# ---- two daemons on one store: the drained job and 6 small jobs, each run once ----
for i in 1 2 3 4 5 6; do
    mkdir -p $TMP/s$i && echo '{"store": "s.db", "reports": [{"format": "csv", "out": "r.csv"}]}' >$TMP/s$i/job.json
done
expect_eq "six jobs submitted at once: six ids" "$($SP submit --db $Q $TMP/s[1-6]/job.json | wc -l)" 6
start_daemon $TMP/d2.log --workers 2; d2=$dpid
start_daemon $TMP/d3.log --workers 2; d3=$dpid
check "two daemons finish every job" wait_for 180 all_final
expect_eq "... the drained job is done" "$(sqlite3 $Q "select state from queue_job where job_id = $id")" done
expect_eq "... the small jobs each ran once (attempts 1)" \
    "$(sqlite3 $Q "select count(*) from queue_job where path like '%/s_/job.json' and state = 'done' and attempts = 1")" 6
expect_eq "... 7 jobs started in the two logs, none twice" \
    "$(cat $TMP/d2.log $TMP/d3.log | sed -n 's/.*: job \([0-9]*\): started.*/\1/p' | sort | uniq | wc -l) $(cat $TMP/d2.log $TMP/d3.log | grep -c ': started')" "7 7"
expect_eq "... the resumed demo job: the rows of one uninterrupted run, no duplicates (t6087's numbers)" \
    "$(sqlite3 $TMP/j/out/store.db "select (select count(*) from probe_result), (select count(*) from tree_eval),
      (select count(*) - count(distinct run_id || '/' || task_name || '/' || classifier || '/' || seed) from probe_result)" | tr '|' ' ')" "24 3 0"
# ---- the GPU token: a CUDA encode waits while another process holds QUEUE.gpu.lock; CPU jobs run on ----
cat >$TMP/j/cuda.json <<'J'
{"store": "cuda.db", "corpora": [{"name": "demo", "paths": ["demo.conllu"]}],
 "encoders": [{"config": "san.json", "inputs": ["demo"], "device": "cuda"}]}
J
flock $Q.gpu.lock sleep 6 &
holder=$!
sleep 0.3
cid=$($SP submit --db $Q $TMP/j/cuda.json)
mkdir -p $TMP/s9 && echo '{"store": "s.db", "reports": [{"format": "csv", "out": "r.csv"}]}' >$TMP/s9/job.json
sid=$($SP submit --db $Q $TMP/s9/job.json)
check "a CUDA job waits for the GPU token" wait_for 60 sh -c "$SP logs --db $Q $cid | grep -q 'encoders\[0\]: waiting for the GPU token'"
check "... while a CPU job runs to the end" wait_for 60 state_is $sid done
check "... the CUDA job is still running, in its encode step" sh -c "$SP status --db $Q $cid | grep -q 'step       encoders\[0\]'"
wait $holder
check "... once the token is free it runs its encode (done with a GPU, failed without)" \
    wait_for 60 sh -c "$SP status --db $Q --json $cid | grep -Eq '\"state\": \"(done|failed)\"'"
kill -TERM $d2 $d3
rc2=0; wait $d2 || rc2=$?; rc3=0; wait $d3 || rc3=$?
expect_eq "both daemons drain with exit 0" "$rc2 $rc3" "0 0"
expect_eq "integrity_check of the queue" "$(sqlite3 $Q 'pragma integrity_check')" ok
done_testing
