# t6193-daemon-log-links.sh — the daemon never writes a job's log, nor `logs` prints one, through a link (issue 40 item 1)
# tier: fast
# A job's log is STORE.logs/ID-T.log, T the row's submit time in whole microseconds (docs/guarantees.md,
# the daemon's job logs; computed here from the queue row with Python, not by synprobe). Planted at that name
# before the daemon runs: a symlink to a text file, to another job's store, to a path that does
# not exist, a hard link to a text file, a FIFO with a reader waiting, a folder: each job fails
# with an error naming the log's path and saying what it is, nothing is written to the target
# (same bytes, no file made, the FIFO's reader gets nothing), and the next clean job runs. A
# symlink at the old name (ID.log, the audit's repro) is never touched. The logs folder: a
# symlink or one writable by others is refused at the daemon's start (nothing made), and one
# swapped for a symlink under a running daemon fails the next job. `synprobe logs` refuses to
# print through a symlink or a hard link, naming the path, and prints a clean log.
. tests/cli/lib.sh
Q=$TMP/q.db
sum() { sha256sum "$1" | cut -d' ' -f1; }
wait_for() {  # wait_for SECONDS CMD...: until CMD succeeds; 1 on timeout
    t=$1; shift; i=0
    while ! "$@" 2>/dev/null; do i=$((i+1)); [ $i -le $((t*20)) ] || return 1; sleep 0.05; done
}
field() { sqlite3 $Q "select $2 from queue_job where job_id = $1"; }
none_open() { [ "$(sqlite3 $Q "select count(*) from queue_job where state in ('queued','running')")" = 0 ]; }
# the log's name by the documented rule, from the row's REAL submit time
logname() { $PY -c "import sqlite3,sys; t=sqlite3.connect(sys.argv[1]).execute('select submitted_at from queue_job where job_id=?',(int(sys.argv[2]),)).fetchone()[0]; print('%s-%d.log' % (sys.argv[2], int(t*1e6)))" $Q $1; }

mkdir $TMP/j
cp demo/demo.conllu $TMP/j/
echo '{"store": "st.db", "corpora": [{"name": "demo", "paths": ["demo.conllu"]}]}' >$TMP/j/job.json
printf 'precious notes\nline two\n' >$TMP/notes.txt
$SP ingest --db $TMP/other.db --corpus other --quiet $TMP/j/demo.conllu >/dev/null
notes0=$(sum $TMP/notes.txt); other0=$(sum $TMP/other.db)

for i in 1 2 3 4 5 6; do $SP submit --db $Q $TMP/j/job.json >/dev/null; done
umask 002                                   # a group-writable default: the folder must still be 0750
mkdir -m 0750 $Q.logs
ln -s $TMP/notes.txt $Q.logs/1.log          # the audit's repro: the old name, no longer a log's
ln -s $TMP/notes.txt $Q.logs/$(logname 1)
ln -s $TMP/other.db $Q.logs/$(logname 2)
ln -s $TMP/made-by-link.txt $Q.logs/$(logname 3)
ln $TMP/notes.txt $Q.logs/$(logname 4)
mkfifo $Q.logs/$(logname 5)
mkdir $Q.logs/$(logname 6)
cat $Q.logs/$(logname 5) >$TMP/fifo.out & freader=$!

$SP daemon --db $Q --log $TMP/d.log --workers 2 & dpid=$!
check "the six jobs end" wait_for 30 none_open
for i in 1 2 3 4 5 6; do expect_eq "job $i: failed" "$(field $i state)" failed; done
err_has() {  # job, text
    case "$(field $1 error)" in *"$2"*) ok "job $1: the error says '$2'";; *) not_ok "job $1: error '$(field $1 error)' lacks '$2'";; esac
}
err_has 1 "$Q.logs/$(logname 1): a symbolic link: a job's log must be a regular file; refusing to write to it"
err_has 2 "$Q.logs/$(logname 2): a symbolic link"
err_has 3 "$Q.logs/$(logname 3): a symbolic link"
err_has 4 "$Q.logs/$(logname 4): has 2 hard links (another name for the same file)"
err_has 5 "$Q.logs/$(logname 5): a FIFO"
err_has 6 "$Q.logs/$(logname 6): a directory"
expect_eq "the text file behind the symlinks and the hard link: same bytes" "$(sum $TMP/notes.txt)" "$notes0"
expect_eq "the other job's store: same bytes" "$(sum $TMP/other.db)" "$other0"
check "the dangling link's target was not made" test ! -e $TMP/made-by-link.txt
kill $freader 2>/dev/null || true; wait $freader 2>/dev/null || true
expect_eq "the FIFO's reader got nothing" "$(wc -c <$TMP/fifo.out)" 0
check "the daemon's log names the path of a refused log" grep -q "job 4: the daemon could not start the job: $Q.logs/$(logname 4): has 2 hard links" $TMP/d.log
check "no job ran: the job's store was never made" test ! -e $TMP/j/st.db

# a clean job runs; its log is a regular file of the daemon's user, the folder not group-writable
id=$($SP submit --db $Q $TMP/j/job.json)
check "a clean job runs to the end" wait_for 30 sh -c "[ \"\$(sqlite3 $Q 'select state from queue_job where job_id = $id')\" = done ]"
check "... its log is STORE.logs/ID-T.log, a regular file" test -f $Q.logs/$(logname $id) -a ! -h $Q.logs/$(logname $id)
expect_eq "... the log is not group- or world-writable (umask 002)" "$(stat -c %a $Q.logs/$(logname $id))" 640
check "... synprobe logs prints it" sh -c "$SP logs --db $Q $id | grep -q '^==== job $id, attempt 1'"

# the folder swapped for a symlink under the running daemon: the next job fails, nothing written there
mkdir $TMP/elsewhere
mv $Q.logs $TMP/logs.moved
ln -s $TMP/elsewhere $Q.logs
id=$($SP submit --db $Q $TMP/j/job.json)
check "folder swapped for a symlink: the next job fails" wait_for 30 sh -c "[ \"\$(sqlite3 $Q 'select state from queue_job where job_id = $id')\" = failed ]"
err_has $id "$Q.logs: a symbolic link, not a folder: the job logs' folder must be a real folder"
expect_eq "... nothing written in the link's target" "$(ls -A $TMP/elsewhere | wc -l)" 0
kill -TERM $dpid; rc=0; wait $dpid || rc=$?
expect_eq "the daemon drains: exit 0" "$rc" 0

# a symlinked or writable-by-others folder: refused at the daemon's start, nothing made
for variant in symlink 0770 0777 0752; do
    rm -rf $Q.logs
    if [ $variant = symlink ]; then ln -s $TMP/elsewhere $Q.logs; want="$Q.logs: a symbolic link, not a folder"
    else mkdir $Q.logs; chmod $variant $Q.logs
        case $variant in 0770) want="writable by its group (mode 0770)";; *) want="writable by everyone (mode $variant)";; esac
    fi
    rc=0; timeout 20 $SP daemon --db $Q --log $TMP/d2.log >/dev/null 2>$TMP/e || rc=$?
    expect_eq "logs folder $variant: the daemon refuses to start (exit 1)" "$rc" 1
    check "... naming the folder and why" grep -q "$want" $TMP/e
done
expect_eq "... nothing made in the symlink's target" "$(ls -A $TMP/elsewhere | wc -l)" 0
rm -rf $Q.logs
mv $TMP/logs.moved $Q.logs

# synprobe logs: never through a link
rm $Q.logs/$(logname 1)
ln -s $TMP/notes.txt $Q.logs/$(logname 1)
rc=0; $SP logs --db $Q 1 >$TMP/o 2>$TMP/e || rc=$?
expect_eq "logs through a symlink: exit 1" "$rc" 1
check "... names the path and refuses" grep -q "$Q.logs/$(logname 1): a symbolic link: a job's log must be a regular file; refusing to print it" $TMP/e
check "... prints nothing of the target" test ! -s $TMP/o
rc=0; $SP logs --db $Q 4 >$TMP/o 2>$TMP/e || rc=$?
expect_eq "logs through a hard link: exit 1" "$rc" 1
check "... names the path" grep -q "$Q.logs/$(logname 4): has 2 hard links" $TMP/e
check "... prints nothing of it" test ! -s $TMP/o
mv $Q.logs $TMP/logs.real; ln -s $TMP/logs.real $Q.logs
rc=0; $SP logs --db $Q 7 >$TMP/o 2>$TMP/e || rc=$?
expect_eq "logs with a symlinked folder: exit 1" "$rc" 1
check "... names the folder" grep -q "$Q.logs: a symbolic link, not a folder" $TMP/e
done_testing
