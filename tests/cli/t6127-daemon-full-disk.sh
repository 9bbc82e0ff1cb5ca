# t6127-daemon-full-disk.sh — a job's end that cannot be recorded (full disk) is recorded once space is back
# tier: fast
# Issue 22 item 10 (part). The queue store lies on a small tmpfs of its own (a mount namespace
# of this test's own where unshare allows it; skipped where tmpfs cannot be mounted). Two jobs
# wait for their stores' job locks, which the test holds; then the test fills the tmpfs and lets
# them go: job A (its store on the normal disk) succeeds, job B (its store on the full tmpfs)
# fails. Neither end can be written to the queue (SQLite: disk full). The daemon must not leave
# them 'running' for good: once the test frees the space, A is 'done' and B 'failed' with its
# reason recorded, and the daemon's log says what happened; each row shows the step it ended in
# (issue 40: the step lines sent while the disk was full are written before the end).
if [ -z "${T127_NS:-}" ] && command -v unshare >/dev/null 2>&1 && unshare -m --propagation private true 2>/dev/null; then
    T127_NS=1 exec unshare -m --propagation private sh "$0" "$@"
fi
. tests/cli/lib.sh
M=$TMP/q
mkdir -p $M
mount -t tmpfs -o size=8m tmpfs $M 2>/dev/null || skip_rest "cannot mount a tmpfs here (needs root)"
dpid=
trap 't127_rc=$?; [ -n "$dpid" ] && kill $dpid 2>/dev/null && wait $dpid 2>/dev/null; touch $TMP/release; umount $M 2>/dev/null; (exit $t127_rc); t_exit' EXIT
Q=$M/queue.db
wait_for() {  # wait_for SECONDS CMD...: until CMD succeeds; 1 on timeout
    t=$1; shift; i=0
    while ! "$@" 2>/dev/null; do i=$((i+1)); [ $i -le $((t*20)) ] || return 1; sleep 0.05; done
}
state() { sqlite3 $Q "select state from queue_job where job_id = $1"; }
state_is() { [ "$(state $1)" = "$2" ]; }

mkdir -p $TMP/j $M/b
cp demo/demo.conllu $TMP/j/
echo '{"store": "a.db", "corpora": [{"name": "demo", "paths": ["demo.conllu"]}]}' >$TMP/j/a.json
echo "{\"store\": \"$M/b/b.db\", \"corpora\": [{\"name\": \"demo\", \"paths\": [\"demo.conllu\"]}]}" >$TMP/j/b.json
$SP submit --db $Q $TMP/j/a.json $TMP/j/b.json >/dev/null
# the stores' job locks, held until $TMP/release appears (the daemon's job waits for them)
for l in $TMP/j/a.db.run.lock $M/b/b.db.run.lock; do
    (flock 9; touch $l.held; while [ ! -e $TMP/release ]; do sleep 0.05; done) 9>$l &
done
check "the test holds both stores' job locks" wait_for 10 sh -c "test -e $TMP/j/a.db.run.lock.held && test -e $M/b/b.db.run.lock.held"
$SP daemon --db $Q --log $TMP/d.log --lease 3 --backoff 1 --workers 2 &
dpid=$!
check "both jobs start and wait for their locks" wait_for 20 sh -c "[ \$(grep -c 'waiting for the store' $Q.logs/1-*.log $Q.logs/2-*.log | grep -c ':1') = 2 ]"
dd if=/dev/zero of=$M/fill bs=4k 2>/dev/null || true
expect_eq "the tmpfs is full" "$(df -P $M | awk 'NR == 2 {print $4}')" 0
touch $TMP/release
check "the daemon could not record the jobs' ends (its log says so)" \
    wait_for 30 sh -c "[ \$(grep -c 'recording its end: .*full' $TMP/d.log) -ge 2 ]"
expect_eq "... both are still 'running' meanwhile (what the queue holds)" "$(state 1) $(state 2)" "running running"
rm -f $M/fill
check "space back: job A is recorded 'done'" wait_for 10 state_is 1 done
check "... job B 'failed'" wait_for 10 state_is 2 failed
check "... with its reason (the full disk) recorded" sh -c "sqlite3 $Q 'select error from queue_job where job_id = 2' | grep -q 'full'"
check "... and the daemon's log says the ends are recorded now" \
    sh -c "grep -q 'job 1: its end is recorded now -> done' $TMP/d.log && grep -q 'job 2: its end is recorded now -> failed' $TMP/d.log"
# issue 40 item 8: the step lines the jobs sent while the disk was full were not written; the
# rows must not show a stale step: each ended in corpora[0], its only step
expect_eq "job A's row: the step it ended in, 1 of 1 done (written before its end)" \
    "$(sqlite3 $Q "select step || ' ' || steps_done || '/' || steps_total from queue_job where job_id = 1")" "corpora[0] 1/1"
expect_eq "job B's row: the step it failed in" "$(sqlite3 $Q "select step || ' ' || error_step from queue_job where job_id = 2")" \
    "corpora[0] corpora[0]"
check "status says so too" sh -c "$SP status --db $Q 1 | grep -q 'step  *corpora\[0\] (1 of 1 steps done)'"
kill -TERM $dpid; rc=0; wait $dpid || rc=$?; dpid=
expect_eq "the daemon drains: exit 0" "$rc" 0
expect_eq "job A's store holds the corpus (32 sentences)" "$(sqlite3 $TMP/j/a.db 'select count(*) from sentence')" 32
[ "$t_fail" = 0 ] && [ -z "${T127_SHOW:-}" ] || sed "s|^|# daemon log: |" $TMP/d.log
done_testing
