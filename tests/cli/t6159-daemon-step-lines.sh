# t6159-daemon-step-lines.sh — a daemon job's log: each step's command, its "[k/N] what: result (Ss)" line, the summary
# tier: fast
# Issue 24 item 5: jobs the daemon runs (like Slurm's, whose output is a file) get the form for off
# a terminal: the job's log (synprobe logs) has, for every step 1..N, the command that would do it
# and then one "[k/N] WHAT: RESULT (Ss)" line carrying the result (a probe's test accuracy and
# baselines, the trees' F1), the stages' own lines between them (a log is read after the fact),
# no \r, and the summary read back from the store at the end. Expected: N from `run --check`; the
# figures from `report --format json`, matched by id.
. tests/cli/lib.sh
Q=$TMP/q.db
J=$TMP/j
mkdir -p $J
cp demo/demo.conllu demo/demo.mrg encoder/configs/san.json $J/
cat >$J/job.json <<'JOB'
{"store": "out/s.db", "out": "out",
 "corpora": [{"name": "demo", "paths": ["demo.conllu", "demo.mrg"]}],
 "tasks": [{"tasks": ["Tense", "SubjNum"], "seed": 1, "split": "resplit"}],
 "encoders": [{"config": "san.json", "inputs": ["demo", "Tense", "SubjNum"], "attention": 0}],
 "probes": [{"classifier": ["logreg"], "seed": [1], "preset": "senteval-fast"}],
 "trees": [{}, {"baseline": "right"}],
 "reports": [{"format": "json", "out": "r.json"}]}
JOB
N=$($SP run --check $J/job.json | grep -c ' synprobe ')
expect_eq "the job has 10 steps" "$N" 10
expect_eq "submit: job 1" "$($SP submit --db $Q $J/job.json)" 1
$SP daemon --db $Q --log $TMP/d.log --lease 3 &
dpid=$!
i=0
while [ $i -lt 1200 ] && [ "$(sqlite3 $Q "select state from queue_job where job_id = 1" 2>/dev/null)" != done ]; do sleep 0.05; i=$((i+1)); done
kill -TERM $dpid
rc=0; wait $dpid || rc=$?
expect_eq "the job is done; the daemon drains (exit 0)" "$(sqlite3 $Q "select state from queue_job where job_id = 1") $rc" "done 0"
$SP logs --db $Q 1 >$TMP/log
expect_eq "the log: N step lines, numbered 1..N in order" \
    "$(grep -oE '^\[[0-9]+/10\] ' $TMP/log | tr -d '[] ' | tr '\n' ' ')" "$(seq 1 $N | sed "s/\$/\/$N/" | tr '\n' ' ')"
expect_eq "... each after its command (the line before a step's line, its stage lines aside, is '\$ synprobe ...')" \
    "$(awk '/^\$ synprobe /{cmd=$3} /^\[[0-9]+\/10\] /{split($2,w,":"); if (w[1] == cmd) n++} END{print n}' $TMP/log)" "$N"
check "... the stages' own lines are kept (the encoder's)" grep -q '^run san (san on cpu, 512-dim)' $TMP/log
check "... no carriage return" sh -c "! grep -q \"\$(printf '\\r')\" $TMP/log"
$PY - $TMP/log $J/out/r.json >$TMP/chk <<'PY'
import json, re, sys
r = json.load(open(sys.argv[2]))
probes = {p["id"]: p for p in r["probe_results"]}
trees = {t["id"]: t for t in r["tree_evals"]}
for l in open(sys.argv[1]):
    m = re.match(r"^\[\d+/10\] probe .*\(result #(\d+)\)", l)
    if m:
        p = probes[int(m.group(1))]
        w = "%s: test %.2f%%, majority %.2f%%" % (p["task"], p["test_acc"], p["result"]["baselines"]["majority"]["acc"])
        print("ok" if w in l else "BAD want " + w + " in " + l.strip())
    m = re.match(r"^\[\d+/10\] trees .*\(evaluation #(\d+)\)", l)
    if m:
        w = "F1 %.2f (EVALB)" % trees[int(m.group(1))]["result"]["protocol_a"]["all"]["fmeasure"]
        print("ok" if w in l else "BAD want " + w + " in " + l.strip())
PY
expect_eq "... the probe and trees lines carry the stored figures (2 probes, the attention trees, the right-branching baseline)" \
    "$(grep -c '^ok' $TMP/chk) $(grep -c BAD $TMP/chk)" "4 0"
expect_eq "... and the log ends with the summary, then the closing line" \
    "$(grep -c '^summary: ' $TMP/log) $(grep -cE '^trees +demo/const +san +F1 ' $TMP/log) $(tail -1 $TMP/log | cut -c1-20)" \
    "1 1 synprobe run: done: "
done_testing
