# t6109-job-structprobes.sh — a job's "structprobes" and "tokprobes" sections, crossed with its runs
# tier: fast
# Issue 12 item 1 (structural probes, token probes) with issue 13 items 5 and 6: a job's
# "structprobes" and "tokprobes" sections. An entry without "run" (or a baseline / prediction
# files) is crossed with every corpus run of the job that keeps token vectors, every layer run of
# a "layers" encoder included; "trees" entries are crossed with the runs that keep attention.
# Each crossed step is one ledger step: a second run does no work and adds no row.
. tests/cli/lib.sh
J=$TMP/j
mkdir -p $J
cp demo/demo.conllu demo/demo.mrg encoder/configs/san.json encoder/configs/ms-san.json $J/
cat >$J/job.json <<'JOB'
{"store": "out/s.db", "out": "out",
 "corpora": [{"name": "demo", "paths": ["demo.conllu", "demo.mrg"]}],
 "encoders": [{"config": "san.json", "inputs": ["demo"], "token-vectors": true, "attention": 0},
              {"config": "ms-san.json", "inputs": ["demo"], "attention": 0},
              {"config": "san.json", "run": "plain", "inputs": ["demo"]}],
 "trees": [{}],
 "structprobes": [{"rank": 16, "max-epochs": 5}, {"baseline": "linear"}],
 "tokprobes": [{"task": "upos", "max-epoch": 20}, {"task": "deprel", "max-epoch": 20, "run": "san"}],
 "reports": [{"format": "json", "out": "r.json"}]}
JOB
$SP run --check $J/job.json >$TMP/check 2>&1 && rc=0 || rc=$?
expect_eq "run --check: exit 0" "$rc" 0
expect_eq "structprobes[0]: one step, on the one run with token vectors" \
    "$(grep 'structprobes\[0\]' $TMP/check | grep -c -- '--corpus demo --run san --rank 16 --max-epochs 5')" 1
expect_eq "structprobes[1]: the linear baseline, on the job's corpus" "$(grep -c 'structprobes\[1\].*--corpus demo --baseline linear' $TMP/check)" 1
expect_eq "tokprobes: upos crossed with the run with token vectors, deprel as written" \
    "$(grep 'tokprobes' $TMP/check | sed 's/.*--corpus/--corpus/')" \
    "--corpus demo --run san --max-epoch 20
--corpus demo --run san --task deprel --max-epoch 20"
expect_eq "trees: crossed with the two runs with attention maps (not 'plain')" \
    "$(grep 'trees\[0\]' $TMP/check | sed 's/.*--run //' | tr '\n' ' ')" "san ms-san "
$SP run $J/job.json >$TMP/out1 2>$TMP/err1 && rc=0 || rc=$?
[ "$rc" = 0 ] || tail -5 $TMP/out1 $TMP/err1
expect_eq "the job runs: exit 0" "$rc" 0
rows() { sqlite3 $J/out/s.db "select (select count(*) from tree_eval where method like 'structprobe:%'),
    (select count(*) from probe_result where task_name like 'token:%'), (select count(*) from tree_eval), (select count(*) from job_step)" | tr '|' ' '; }
# by hand: structprobe trained + linear = 2 rows; tokprobe upos + deprel = 2; tree_eval: 2 structprobe + 2 trees = 4;
# ledger: 2 trees + 2 structprobes + 2 tokprobes + 1 report = 7
expect_eq "rows: 2 structural probes, 2 token probes, 4 tree evaluations, 7 ledger steps" "$(rows)" "2 2 4 7"
check "the trained probe is stored under its method" test "$(sqlite3 $J/out/s.db "select count(*) from tree_eval where method = 'structprobe:trained:run=san'")" = 1
$PY - $J/out/r.json <<'PY' >$TMP/r.chk
import json, sys
r = json.load(open(sys.argv[1]))
print(sorted(set(p["task"] for p in r["probe_results"] if p["task"].startswith("token:"))))
PY
expect_eq "the report carries the token probes" "$(cat $TMP/r.chk)" "['token:deprel', 'token:upos']"
$SP run $J/job.json >$TMP/out2 2>$TMP/err2 && rc=0 || rc=$?
expect_eq "a second run: exit 0" "$rc" 0
expect_eq "... every structprobe, tokprobe and trees step done before, skipped" \
    "$(grep -cE '^\[[0-9]+/[0-9]+\] (structprobe|tokprobe|trees) [^:]*: done before, skipped' $TMP/out2)" 6
expect_eq "... and no new row" "$(rows)" "2 2 4 7"
# a "layers" encoder: one structprobe / tokprobe step per layer run (checked only: no model needed)
mkdir -p $J/m
printf '{"kind": "bert", "model": "m"}\n' >$J/bert.json
cat >$J/layers.json <<'JOB'
{"store": "out/l.db", "out": "out",
 "corpora": [{"name": "demo", "paths": ["demo.conllu"]}],
 "encoders": [{"config": "bert.json", "layers": [0, 2, 5], "inputs": ["demo"], "token-vectors": true}],
 "structprobes": [{}], "tokprobes": [{"task": "upos"}]}
JOB
$SP run --check $J/layers.json >$TMP/lcheck 2>&1 && rc=0 || rc=$?
expect_eq "layers [0, 2, 5]: a structprobe and a tokprobe step per layer run" \
    "$rc $(grep 'synprobe structprobe' $TMP/lcheck | sed 's/.*--run //' | tr '\n' ' ')/$(grep 'synprobe tokprobe' $TMP/lcheck | sed 's/.*--run //' | tr '\n' ' ')" \
    "0 bert-L0 bert-L2 bert-L5 /bert-L0 bert-L2 bert-L5 "
done_testing
