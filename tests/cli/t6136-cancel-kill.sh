# t6136-cancel-kill.sh — a job that does not stop at SIGTERM is killed after the daemon's --grace (issue 22 item 7)
# tier: fast
# The hang is a real one: a corpus FIFO whose writer never writes, so the job's ingest blocks in
# read() and never reaches a safe point. `synprobe cancel` marks it cancelled; the daemon sends
# SIGTERM, and --grace 2 s later SIGKILL: the process is gone within grace + slack, the queue row
# and the job's log say it was killed and why, and the worker slot (--workers 1) and the store's
# job lock are free again: the next job on the same store runs to the end. Then a drain (SIGTERM
# to the daemon) with such a job running finishes within grace + slack, exit 0, the job queued
# again with the reason recorded.
. tests/cli/lib.sh
Q=$TMP/q.db
wait_for() {  # wait_for SECONDS CMD...: until CMD succeeds; 1 on timeout
    t=$1; shift; i=0
    while ! "$@" 2>/dev/null; do i=$((i+1)); [ $i -le $((t*10)) ] || return 1; sleep 0.1; done
}
field() { sqlite3 $Q "select $2 from queue_job where job_id = $1"; }
running_with_pid() { [ "$(field $1 state)" = running ] && [ -n "$(field $1 pid)" ]; }
gone() { [ -n "${1:-}" ] && ! kill -0 "$1" 2>/dev/null; }
is_state() { [ "$(field $1 state)" = "$2" ]; }
# the job's process has the FIFO open and sleeps (its read blocked): before that, a SIGTERM finds
# it at a safe point and it stops cleanly (no SIGKILL to test; under load a job can take a while
# to get there)
blocked_on() { ls -l /proc/$1/fd 2>/dev/null | grep -q "$2" && [ "$(awk '{ print $3 }' /proc/$1/stat 2>/dev/null)" = S ]; }

mkdir $TMP/j
cp demo/demo.conllu $TMP/j/
mkfifo $TMP/j/silent1.conllu $TMP/j/silent2.conllu
echo '{"store": "st.db", "corpora": [{"name": "hang", "paths": ["silent1.conllu"]}]}' >$TMP/j/hang1.json
echo '{"store": "st.db", "corpora": [{"name": "hang", "paths": ["silent2.conllu"]}]}' >$TMP/j/hang2.json
echo '{"store": "st.db", "corpora": [{"name": "demo", "paths": ["demo.conllu"]}]}' >$TMP/j/demo.json
# writers that hold the FIFOs open and never write: the job's read blocks for good (opened
# read-write, so a writer never waits for its reader; nothing of the test's output is held)
sleep 120 1<>$TMP/j/silent1.conllu </dev/null 2>/dev/null & w1=$!
sleep 120 1<>$TMP/j/silent2.conllu </dev/null 2>/dev/null & w2=$!

$SP submit --db $Q $TMP/j/hang1.json $TMP/j/demo.json >/dev/null
$SP daemon --db $Q --log $TMP/d.log --workers 1 --grace 2 & dpid=$!
check "job 1 runs (its ingest blocked on the silent FIFO)" wait_for 20 running_with_pid 1
jpid=$(field 1 pid)
check "... blocked in its read of the FIFO" wait_for 20 blocked_on "$jpid" silent1.conllu
expect_eq "job 2 waits: the only worker slot is job 1's" "$(field 2 state)" queued
$SP cancel --db $Q 1 >/dev/null
t0=$(date +%s)
check "cancel: job 1's process is gone within grace 2 s + 6 s" wait_for 8 gone "$jpid"
expect_eq "... and not before the grace period (>= 2 s)" "$(( $(date +%s) - t0 >= 2 ))" 1
expect_eq "the row stays cancelled" "$(field 1 state)" cancelled
check "the row says it was killed and why" sh -c "sqlite3 $Q 'select error from queue_job where job_id = 1' |
    grep -q 'killed with SIGKILL: still running 2 s after SIGTERM (the job was cancelled)'"
expect_eq "... and the step it was in" "$(field 1 error_step)" "corpora[0]"
check "the job's log says so" sh -c "$SP logs --db $Q 1 | grep -q 'synprobe daemon: killed with SIGKILL'"
check "the daemon's log says so" grep -q 'job 1: still running 2 s after SIGTERM (the job was cancelled): SIGKILL' $TMP/d.log
check "the slot and the store's job lock are free: job 2 (same store) runs to the end" wait_for 20 is_state 2 done
expect_eq "... and stored its sentences" "$(sqlite3 $TMP/j/st.db "select count(*) > 0 from sentence")" 1

# a drain with a job that ignores SIGTERM
$SP submit --db $Q $TMP/j/hang2.json >/dev/null
check "job 3 runs" wait_for 20 running_with_pid 3
jpid=$(field 3 pid)
check "... blocked in its read of the FIFO" wait_for 20 blocked_on "$jpid" silent2.conllu
kill -TERM $dpid
check "the drain finishes within grace 2 s + 6 s" wait_for 8 gone $dpid
kill -9 $dpid 2>/dev/null || true
rc=0; wait $dpid || rc=$?
expect_eq "the daemon exits 0" "$rc" 0
check "job 3's process is gone" gone "$jpid"
expect_eq "job 3 is queued again" "$(field 3 state)" queued
check "its row says it was killed while the daemon drained" sh -c "sqlite3 $Q 'select error from queue_job where job_id = 3' |
    grep -q 'killed with SIGKILL: still running 2 s after SIGTERM (the daemon is draining)'"
expect_eq "... in the step it was in" "$(field 3 error_step)" "corpora[0]"
expect_eq "the store is intact" "$(sqlite3 $TMP/j/st.db 'pragma integrity_check')" ok
for w in $w1 $w2; do kill $w 2>/dev/null || true; done
wait 2>/dev/null || true
done_testing
