# t6128-daemon-queue-rows.sh — the daemon fails a hand-made queue row it cannot run (relative path, no text) with the reason
# tier: fast
# Issue 22 item 10 (part). `synprobe submit` records the job file's absolute path and its text; a
# row inserted by hand (sqlite3) may hold a relative path, against which the daemon would resolve
# the job's paths from its own folder (computing the folder from a NULL pointer), or no text.
# Such a job ends 'failed' with a message saying what is wrong with the row, nothing is written
# in the daemon's folder, and the daemon goes on with the next job.
. tests/cli/lib.sh
Q=$TMP/q.db
wait_for() {  # wait_for SECONDS CMD...: until CMD succeeds; 1 on timeout
    t=$1; shift; i=0
    while ! "$@" 2>/dev/null; do i=$((i+1)); [ $i -le $((t*20)) ] || return 1; sleep 0.05; done
}
all_final() { [ "$(sqlite3 $Q "select count(*) from queue_job where state in ('queued','running')")" = 0 ]; }
field() { sqlite3 $Q "select $2 from queue_job where job_id = $1"; }
mkdir -p $TMP/j $TMP/cwd
cp demo/demo.conllu $TMP/j/
echo '{"store": "a.db", "corpora": [{"name": "demo", "paths": ["demo.conllu"]}]}' >$TMP/j/a.json
# rows by hand: a relative path, a path with no folder at all, an empty text; then a submitted job
JOB='{"store": "rel.db", "corpora": [{"name": "demo", "paths": ["'$TMP'/j/demo.conllu"]}]}'
$SP submit --db $Q $TMP/j/a.json >/dev/null
sqlite3 $Q "delete from queue_job"
sqlite3 $Q "insert into queue_job (path, text, sha256, submitted_at) values ('sub/job.json', '$JOB', '', 1);
            insert into queue_job (path, text, sha256, submitted_at) values ('job.json', '$JOB', '', 2);
            insert into queue_job (path, text, sha256, submitted_at) values ('$TMP/j/empty.json', '', '', 3)"
$SP submit --db $Q $TMP/j/a.json >/dev/null
SPA=$(cd "$(dirname "$SP")" && pwd)/$(basename "$SP")
(cd $TMP/cwd && exec "$SPA" daemon --db $Q --log $TMP/d.log --lease 3 --backoff 1) &
dpid=$!
check "every job ends" wait_for 30 all_final
kill -TERM $dpid; rc=0; wait $dpid || rc=$?
expect_eq "the daemon drains: exit 0" "$rc" 0
expect_eq "the row with a relative path: failed" "$(field 1 state)" failed
check "... its error says the path is not absolute" sh -c "sqlite3 $Q 'select error from queue_job where job_id = 1' | grep -q \"job file path 'sub/job.json' is not absolute\""
expect_eq "the row with a bare file name: failed" "$(field 2 state)" failed
check "... its error says so" sh -c "sqlite3 $Q 'select error from queue_job where job_id = 2' | grep -q \"job file path 'job.json' is not absolute\""
expect_eq "the row with no text: failed, saying so" "$(field 3 state) $(field 3 error)" \
    "failed the queue row holds no job file text (synprobe submit records the file's content)"
expect_eq "the submitted job after them: done" "$(field 4 state)" done
expect_eq "nothing was written in the daemon's folder" "$(ls -A $TMP/cwd | wc -l | tr -d ' ')" 0
check "the daemon's log names the failed rows" grep -q "job 1: failed: the queue row's job file path 'sub/job.json' is not absolute" $TMP/d.log
done_testing
