# t6122-job-outputs.sh — a job's outputs never replace its store, the queue's store, its inputs or each other, nor leave "out" through a symlink (issue 22, items 1-2)
# tier: fast
# run, run --check and submit refuse such a job before anything runs: exit 2, the message names the
# job file, the JSON path and both files; the store, the queue and the inputs stay byte-identical.
# Before the fix `"reports":[{"out":"store.db"}]` replaced the store after the report step, a job
# without "out" whose report or trees "out" was a corpus file overwrote the treebank (exit 0),
# and "out":"sub/r.json" with out/sub a symlink to another folder wrote there.
. tests/cli/lib.sh
SPA=$(cd "$(dirname "$SP")" && pwd -P)/synprobe   # the jobs are run from $TMP: relative names as a user types them
"$SP" demo --out "$TMP/d" --ingest-only >/dev/null 2>&1
J=$TMP/j
mkdir -p "$J/out" "$TMP/elsewhere"
cp "$TMP/d/corpus/demo.conllu" "$TMP/d/corpus/demo.mrg" "$J/"
ln -s ../../elsewhere "$J/out/sub"          # a folder inside "out" that points outside it
# a small real store and queue to protect
cat >"$J/ok.json" <<EOF
{"store": "s.db", "corpora": [{"name": "demo", "paths": ["demo.conllu", "demo.mrg"]}]}
EOF
"$SP" run --quiet "$J/ok.json" >/dev/null 2>&1
"$SP" submit --db "$J/queue.db" "$J/ok.json" >/dev/null

# job KEYS: a job file with the corpus, store s.db and KEYS
job() { printf '{"store": "s.db", %s"corpora": [{"name": "demo", "paths": ["demo.conllu", "demo.mrg"]}], %s}\n' "${2:-}" "$1" >"$J/job.json"; }
state() { (cd "$TMP" && find j elsewhere ! -name '*-wal' ! -name '*-shm' -print | sort &&
           find j elsewhere -type f ! -name '*-wal' ! -name '*-shm' -exec sha256sum {} + | sort); }

# refused DESC WHERE OUT SHOWN: run, run --check and submit all exit 2 naming WHERE, OUT and SHOWN; nothing changes
has() { grep -qF -- "$1" "$TMP/err"; }
names() { has "j/job.json: $1" && has "$2" && has "$3"; }
refused() {
    what=$1 where=$2 out=$3 shown=$4
    before=$(state)
    for how in "run" "run --check" "submit --db j/queue.db"; do
        rc=0; (cd "$TMP" && $SPA $how j/job.json) >"$TMP/stdout" 2>"$TMP/err" || rc=$?
        expect_eq "$what: $how: exit 2" "$rc" 2
        check "$what: $how: the message names the job, $where, $out and $shown" names "$where" "$out" "$shown"
    done
    expect_eq "$what: store, queue and inputs byte-identical" "$(state)" "$before"
}

job '"reports": [{"format": "json", "out": "s.db"}]'
refused "reports out = the store" "reports[0].out" "j/s.db:" "the same file as the store j/s.db;"
job '"reports": [{"format": "json", "out": "s.db-wal"}]'
refused "reports out = the store's -wal" "reports[0].out" "j/s.db-wal:" "the store's -wal file j/s.db-wal;"
job '"reports": [{"format": "json", "out": "demo.conllu"}]'
refused "reports out = a corpus file (no \"out\")" "reports[0].out" "j/demo.conllu:" "input corpora[0].paths j/demo.conllu;"
job '"trees": [{"baseline": "right", "out": "demo.mrg"}]'
refused "trees out = a corpus file (no \"out\")" "trees[0].out" "j/demo.mrg:" "input corpora[0].paths j/demo.mrg;"
job '"trees": [{"baseline": "right", "gold-out": "job.json"}]'
refused "trees gold-out = the job file" "trees[0].gold-out" "j/job.json:" "the job file j/job.json;"
job '"reports": [{"format": "json", "out": "queue.db"}]'
before=$(state)
rc=0; (cd "$TMP" && $SPA submit --db j/queue.db j/job.json) >/dev/null 2>"$TMP/err" || rc=$?
expect_eq "reports out = the queue's store: submit: exit 2" "$rc" 2
check "... the message names the queue's store" has "reports[0].out j/queue.db: the same file as the queue's store j/queue.db;"
expect_eq "... nothing changed" "$(state)" "$before"
job '"reports": [{"format": "json", "out": "r.json"}, {"format": "csv", "out": "./r.json"}]' '"out": "out", '
refused "two report entries, one file" "reports[1].out" "j/out/./r.json:" "output reports[0].out j/out/r.json;"
job '"reports": [{"format": "json", "out": "sub/r.json"}]' '"out": "out", '
refused "reports out through a symlinked folder in out" "reports[0].out" "j/out/sub/r.json leaves the output folder j/out" \
    "it resolves to $(cd "$TMP/elsewhere" && pwd -P)/r.json"
check "... nothing was written where the link points" test ! -e "$TMP/elsewhere/r.json"
job '"trees": [{"baseline": "right", "out": "../demo.mrg"}]' '"out": "out", '
rc=0; "$SP" run --check "$J/job.json" >/dev/null 2>"$TMP/err" || rc=$?
expect_eq "an output with '..' is refused as before (exit 1)" "$rc" 1

# a job whose outputs are new files in "out" runs
job '"reports": [{"format": "json", "out": "r.json"}]' '"out": "out", '
rc=0; "$SP" run --quiet "$J/job.json" >/dev/null 2>&1 || rc=$?
expect_eq "a job with its own outputs: exit 0" "$rc" 0
check "... wrote out/r.json" test -s "$J/out/r.json"
# a re-run: an output folder the first run made is no input folder, so an output inside it is
# still allowed (a resumed or retried job must not be refused by its own outputs)
mkdir -p $TMP/rr; cp demo/demo.conllu $TMP/rr/
echo '{"store": "out/s.db", "out": "out", "corpora": [{"name": "d", "paths": ["demo.conllu"]}],
 "tasks": [{"tasks": ["SentLen"], "out": "tk", "split": "resplit"}], "reports": [{"format": "json", "out": "tk/r.json"}]}' >$TMP/rr/job.json
rc=0; "$SP" run --check $TMP/rr/job.json >/dev/null 2>&1 || rc=$?
expect_eq "an output inside another output's folder: run --check exit 0" "$rc" 0
mkdir -p $TMP/rr/out/tk
rc=0; "$SP" run --check $TMP/rr/job.json >/dev/null 2>$TMP/rr.err || rc=$?
expect_eq "... and again once that folder exists, as on a re-run ($(cat $TMP/rr.err))" "$rc" 0
done_testing
