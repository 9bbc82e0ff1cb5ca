# t0205-lock-links.sh — a store's lock file is never opened through a planted link (issue 40, item 1's class)
# tier: fast
# STORE.run.lock is created beside the store by `run` and by the daemon's jobs. Planted as a
# symlink (to a text file, to another store, dangling), a FIFO or a hard link, the lock is refused:
# the job fails naming the lock path, the link's target keeps its bytes, a dangling link's target
# is not created, and nothing is written to the store. A plain leftover lock file is reused.
# The demo's log, written while it runs, is refused as a link the same way.
. tests/cli/lib.sh
cp demo/demo.conllu "$TMP/"
job() {  # job FILE STORE: an ingest-only job with a JSON report
    printf '{"store": "%s", "corpora": [{"name": "demo", "paths": ["demo.conllu"]}], "reports": [{"format": "json", "out": "%s-report.json"}]}\n' \
        "$2" "$2" >"$TMP/$1"
}
printf 'precious words\n' >"$TMP/victim.txt"
"$SP" ingest --db "$TMP/other.db" --corpus o "$TMP/demo.conllu" >/dev/null 2>&1
sum_other=$(cksum <"$TMP/other.db")

# refused NAME STORE: `run` of a job on STORE fails, says the lock, leaves no store rows
refused() {
    job "$2.job.json" "$2"
    rc=0; timeout -k 5 20 "$SP" run --quiet "$TMP/$2.job.json" >"$TMP/out" 2>"$TMP/err" || rc=$?
    check "$1: run fails, does not hang (exit $rc)" [ "$rc" -ne 0 -a "$rc" -ne 124 ]
    if grep -qF "$2.run.lock: is " "$TMP/err" "$TMP/out"; then ok "$1: the message names the lock file and what it is"
    else not_ok "$1: the message names the lock file"; sed 's/^/# /' "$TMP/err" | head -3; fi
    check "$1: no report written" [ ! -e "$TMP/$2-report.json" ]
}
ln -s victim.txt "$TMP/a.db.run.lock"
refused "symlink to a text file" a.db
expect_eq "symlink to a text file: the target keeps its bytes" "$(cat "$TMP/victim.txt")" "precious words"
ln -s other.db "$TMP/b.db.run.lock"
refused "symlink to another store" b.db
expect_eq "symlink to another store: its bytes unchanged" "$(cksum <"$TMP/other.db")" "$sum_other"
ln -s "$TMP/nowhere/made-by-lock" "$TMP/c.db.run.lock"
mkdir "$TMP/nowhere"
refused "dangling symlink" c.db
check "dangling symlink: its target is not created" [ ! -e "$TMP/nowhere/made-by-lock" ]
mkfifo "$TMP/d.db.run.lock"
refused "a FIFO (does not hang)" d.db
ln "$TMP/victim.txt" "$TMP/e.db.run.lock"
refused "hard link to a text file" e.db
expect_eq "hard link: the target keeps its bytes" "$(cat "$TMP/victim.txt")" "precious words"

# a plain leftover lock file (an earlier run's) is fine
: >"$TMP/f.db.run.lock"
job f.db.job.json f.db
rc=0; "$SP" run --quiet "$TMP/f.db.job.json" >/dev/null 2>&1 || rc=$?
expect_eq "a leftover regular lock file: run exit 0" "$rc" 0

# the daemon's job takes the same lock: a planted link fails the job, the target intact
ln -s victim.txt "$TMP/g.db.run.lock"
job g.db.job.json g.db
Q=$TMP/q.db
id=$("$SP" submit --db "$Q" "$TMP/g.db.job.json")
state() { "$SP" status --db "$Q" --json "$id" | sed -n 's/^  "state": "\(.*\)",$/\1/p'; }
"$SP" daemon --db "$Q" --log "$TMP/daemon.log" --poll 0.05 >/dev/null 2>&1 &
dpid=$!
i=0
while [ "$(state)" != done ] && [ "$(state)" != failed ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done
kill -TERM "$dpid"; wait "$dpid" || :
expect_eq "daemon: the job with a linked lock fails" "$(state)" failed
if "$SP" status --db "$Q" "$id" 2>&1 | grep -qF "g.db.run.lock: is a symbolic link"; then ok "daemon: status names the linked lock"
else not_ok "daemon: status names the linked lock"; "$SP" status --db "$Q" "$id" 2>&1 | sed 's/^/# /' | head -5; fi
expect_eq "daemon: the target keeps its bytes" "$(cat "$TMP/victim.txt")" "precious words"

# the demo's pipeline.log, written as it runs, is not opened through a link either
mkdir "$TMP/demo"
ln -s ../victim.txt "$TMP/demo/pipeline.log"
rc=0; "$SP" demo --out "$TMP/demo" --ingest-only >/dev/null 2>"$TMP/err" || rc=$?
expect_eq "demo: a linked pipeline.log is refused (exit)" "$rc" 1
check "demo: ... naming it" grep -qF "pipeline.log: is a symbolic link" "$TMP/err"
expect_eq "demo: the link's target keeps its bytes" "$(cat "$TMP/victim.txt")" "precious words"
done_testing
