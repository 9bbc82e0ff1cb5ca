# t6194-daemon-queue-replaced.sh — a daemon whose queue store is deleted or replaced stops with an error; logs never mix queues (issue 40 item 6)
# tier: fast
# The daemon serves the file it opened; when the path names no file (rm) or another one (a store
# renamed over it, a symlink repointed) it must not go on serving the old file while jobs
# submitted at that path wait for ever: it stops (its running job too) and exits 1, naming the
# store and what happened, in its log and on stderr. A job submitted to the new store at that path
# stays queued for a daemon started on it, which runs it. Job ids restart at 1 in a new store:
# job 1's log is a new file (STORE.logs/ID-T.log, T the submit time), the old job 1's log keeps its
# bytes, and `logs 1` shows only the new job's attempt.
. tests/cli/lib.sh
Q=$TMP/q.db
sum() { sha256sum "$1" | cut -d' ' -f1; }
wait_for() {  # wait_for SECONDS CMD...: until CMD succeeds; 1 on timeout
    t=$1; shift; i=0
    while ! "$@" 2>/dev/null; do i=$((i+1)); [ $i -le $((t*20)) ] || return 1; sleep 0.05; done
}
state_of() { sqlite3 $2 "select state from queue_job where job_id = $1"; }
is_state() { [ "$(state_of $1 $2)" = "$3" ]; }
gone() { ! kill -0 "$1" 2>/dev/null; }
start_daemon() {  # store, daemon log, more flags
    db=$1; dl=$2; shift 2
    $SP daemon --db $db --log $dl --lease 3 "$@" 2>$dl.err &
    dpid=$!
}
stops_with() {  # what; text the message has: the daemon exits 1 within 15 s, saying text in its log and on stderr
    if wait_for 15 gone $dpid; then ok "$1: the daemon stops"; else not_ok "$1: the daemon still runs after 15 s"; kill -9 $dpid; fi
    rc=0; wait $dpid || rc=$?
    expect_eq "$1: exit 1" "$rc" 1
    check "$1: stderr says '$2'" grep -qF "$2" $dl.err
    check "$1: its log says so" grep -qF "error: $2" $dl
}

mkdir $TMP/j
cp demo/demo.conllu $TMP/j/
echo '{"store": "first.db", "corpora": [{"name": "first", "paths": ["demo.conllu"]}]}' >$TMP/j/first.json
echo '{"store": "second.db", "corpora": [{"name": "second", "paths": ["demo.conllu"]}]}' >$TMP/j/second.json
echo '{"store": "third.db", "corpora": [{"name": "third", "paths": ["demo.conllu"]}]}' >$TMP/j/third.json

# ---- deleted under an idle daemon, a new queue at the same path ----
$SP submit --db $Q $TMP/j/first.json >/dev/null
start_daemon $Q $TMP/d1.log
check "queue 1: job 1 runs" wait_for 30 is_state 1 $Q done
old_log=$(ls $Q.logs)
old_sum=$(sum $Q.logs/$old_log)
rm $Q
stops_with "store deleted" "$Q: the queue's store was deleted under the daemon (no file at that path now)"
check "... the old store's -wal and -shm are removed" test ! -e $Q-wal -a ! -e $Q-shm
expect_eq "a new queue at the path: job ids restart at 1" "$($SP submit --db $Q $TMP/j/second.json)" 1
sleep 0.5
expect_eq "... the job waits for a daemon (nothing served it)" "$(state_of 1 $Q)" queued
echo 'not this queue' >$Q.logs/1.log   # an older synprobe's name for job 1's log
check "logs 1 before it runs: no log, the old-style name not shown" sh -c "$SP logs --db $Q 1 | grep -q 'has no log yet' &&
    $SP logs --db $Q 1 | grep -qF '$Q.logs/1.log is named by the job id alone' && ! $SP logs --db $Q 1 | grep -q 'not this queue'"
start_daemon $Q $TMP/d2.log
check "a daemon on the new store runs it" wait_for 30 is_state 1 $Q done
kill -TERM $dpid; rc=0; wait $dpid || rc=$?
expect_eq "... and drains: exit 0" "$rc" 0
expect_eq "the new job 1 has a log of its own: two ID-T logs for job 1" "$(ls $Q.logs | grep -c '^1-[0-9]*\.log$')" 2
expect_eq "the old job 1's log: same bytes" "$(sum $Q.logs/$old_log)" "$old_sum"
$SP logs --db $Q 1 >$TMP/l
expect_eq "logs 1: one attempt, the new job's" "$(grep -c '^==== job 1, attempt' $TMP/l)" 1
check "... the new job file's" grep -q 'second.json' $TMP/l
check "... nothing of the old job 1" sh -c "! grep -q 'first' $TMP/l"

# ---- another store renamed over it: its queued job is not served by the old daemon ----
Q2=$TMP/r.db
$SP submit --db $Q2 $TMP/j/first.json >/dev/null
start_daemon $Q2 $TMP/d3.log
check "queue r: job 1 runs" wait_for 30 is_state 1 $Q2 done
$SP submit --db $TMP/new.db $TMP/j/third.json $TMP/j/third.json >/dev/null
mv $TMP/new.db $Q2
stops_with "store replaced by a rename" "$Q2: the queue's store was replaced under the daemon: the path names another file now"
expect_eq "... the new store's jobs are still queued" "$(sqlite3 $Q2 "select group_concat(state) from queue_job")" "queued,queued"
check "... and their job store was never made" test ! -e $TMP/j/third.db

# ---- a symlinked store repointed ----
$SP submit --db $TMP/a.db $TMP/j/first.json >/dev/null
$SP submit --db $TMP/b.db $TMP/j/second.json >/dev/null
ln -s a.db $TMP/link.db
start_daemon $TMP/link.db $TMP/d4.log
check "through a symlink: job 1 of a.db runs" wait_for 30 is_state 1 $TMP/a.db done
ln -sfn b.db $TMP/link.db
stops_with "symlink repointed" "$TMP/link.db: the queue's store was replaced under the daemon"
expect_eq "... b.db's job is not served by it" "$(state_of 1 $TMP/b.db)" queued

# ---- deleted while a job runs: the job is stopped too ----
Q3=$TMP/busy.db
mkfifo $TMP/j/silent.conllu
echo '{"store": "hang.db", "corpora": [{"name": "hang", "paths": ["silent.conllu"]}]}' >$TMP/j/hang.json
sleep 60 1<>$TMP/j/silent.conllu </dev/null 2>/dev/null & writer=$!
$SP submit --db $Q3 $TMP/j/hang.json >/dev/null
start_daemon $Q3 $TMP/d5.log --grace 1
check "the job runs (blocked on its FIFO)" wait_for 30 sh -c "[ -n \"\$(sqlite3 $Q3 'select pid from queue_job where job_id = 1')\" ]"
jpid=$(sqlite3 $Q3 'select pid from queue_job where job_id = 1')
rm $Q3
stops_with "deleted with a job running" "$Q3: the queue's store was deleted under the daemon"
check "... the job's process is gone" gone $jpid
check "... the daemon's log says it stopped the job" grep -q 'stopping 1 running job at their next safe point' $TMP/d5.log
kill $writer 2>/dev/null || true
done_testing
