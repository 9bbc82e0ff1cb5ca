# t6155-run-step-lines.sh — `run` off a terminal: one "[k/N] what: result (Ss)" line per step, each with its figures
# tier: fast
# Issue 24 item 5: off a terminal (here a pipe) `synprobe run` prints exactly one line per step,
# "[k/N] WHAT: RESULT (SECONDS s)", numbered 1..N where N is the step count `run --check` lists,
# and no \r. Each line carries its result, and the figures in it are the stored ones: the probe's
# test accuracy, majority and control accuracy, selectivity and n; the trees' EVALB F1 or UAS
# (attention and baselines alike); the structural probe's UUAS, DSpr and root accuracy; the token
# probe's accuracy, control and selectivity; the encode's items encoded + cached (= the run's items
# in the store) and dtype; the ingest's sentences; the report's file. Expected values: read by
# Python from `report --format json` and sqlite3, matched by the result/evaluation id each line names.
. tests/cli/lib.sh
J=$TMP/j
mkdir -p $J
cp demo/demo.conllu demo/demo.mrg encoder/configs/san.json encoder/configs/ms-san.json $J/
cat >$J/job.json <<'JOB'
{"store": "out/s.db", "out": "out",
 "corpora": [{"name": "demo", "paths": ["demo.conllu", "demo.mrg"]}],
 "tasks": [{"tasks": ["Tense", "SubjNum", "SOMO"], "seed": 1, "split": "resplit"}],
 "encoders": [{"config": "san.json", "inputs": ["demo", "Tense", "SubjNum", "SOMO"], "token-vectors": true, "attention": 0},
              {"config": "ms-san.json", "inputs": ["demo", "Tense", "SubjNum"], "attention": 0}],
 "probes": [{"classifier": ["logreg"], "seed": [1], "preset": "senteval-fast"}],
 "trees": [{}, {"baseline": "right"}, {"dependency": true}, {"baseline": "left", "dependency": true},
           {"baseline": "adjacent", "dependency": true}],
 "structprobes": [{"rank": 16, "max-epochs": 5}, {"baseline": "linear"}],
 "tokprobes": [{"task": "upos", "max-epoch": 20}],
 "reports": [{"format": "json", "out": "r.json"}, {"format": "csv", "out": "r.csv"}]}
JOB
rc=0; $SP run --check $J/job.json >$TMP/check 2>&1 || rc=$?
N=$(grep -c ' synprobe ' $TMP/check)
expect_eq "run --check: exit 0, 26 steps" "$rc $N" "0 26"
rc=0; $SP run $J/job.json >$TMP/out 2>$TMP/err || rc=$?
expect_eq "run through a pipe: exit 0" "$rc" 0
check "no carriage return and no escape sequence in stdout or stderr" sh -c "! grep -q \"\$(printf '[\\r\\033]')\" $TMP/out $TMP/err"
expect_eq "exactly N step lines, numbered 1..N in order, each ending in its time" \
    "$(grep -E '^\[[0-9]+/[0-9]+\] ' $TMP/out | sed -E 's/^\[([0-9]+)\/([0-9]+)\] [^:]+: .+ \([0-9]+\.[0-9]s\)$/\1 \2/' | tr '\n' ' ')" \
    "$(seq 1 $N | sed "s/\$/ $N/" | tr '\n' ' ')"
expect_eq "no command lines ('\$ synprobe') and no stage lines off a terminal" \
    "$(grep -c '\$ synprobe' $TMP/out) $(grep -vc 'warning' $TMP/err)" "0 0"
$PY - $TMP/out $J/out/r.json $J/out/s.db $J >$TMP/chk <<'PY'
import json, re, sqlite3, sys, os
lines = [l.rstrip("\n") for l in open(sys.argv[1]) if re.match(r"^\[\d+/\d+\] ", l)]
r = json.load(open(sys.argv[2]))
db = sqlite3.connect(sys.argv[3])
probes = {p["id"]: p for p in r["probe_results"]}
trees = {t["id"]: t for t in r["tree_evals"]}
f2 = lambda v: "-" if v is None else "%.2f" % v
seen = {}
def bad(msg, line):
    print("BAD", msg, "|", line)
for l in lines:
    kind = l.split("] ", 1)[1].split(" ", 1)[0]
    res = l.split(": ", 1)[1]
    seen[kind] = seen.get(kind, 0) + 1
    if kind == "probe":
        m = re.search(r"\(result #(\d+)\)", res)
        p = probes[int(m.group(1))]
        b = p["result"]["baselines"]
        want = "%s: test %s%%, majority %s%%, control %s%% (selectivity %+.2f), n %d (result #%d)" % (
            p["task"], f2(p["test_acc"]), f2(b["majority"]["acc"]), f2(b["control"]["acc"]), b["control"]["selectivity"],
            p["result"]["ntest"], p["id"])
        if want not in res: bad("probe: want " + want, l)
    elif kind == "tokprobe":
        m = re.search(r"\(result #(\d+)\)", res)
        p = probes[int(m.group(1))]["result"]
        want = "accuracy %.2f, control %.2f, selectivity %.2f points, n %d" % (p["acc"], p["control_acc"], p["selectivity"], p["ntest"])
        if want not in res: bad("tokprobe: want " + want, l)
    elif kind == "trees":
        m = re.search(r"\(evaluation #(\d+)\)", res)
        t = trees[int(m.group(1))]["result"]
        if "uas" in t:
            want = "UAS %s" % f2(t["uas"])
            if t["uuas_mst"] is not None: want += ", UUAS (MST) %.2f" % t["uuas_mst"]
        else:
            want = "F1 %.2f (EVALB)" % t["protocol_a"]["all"]["fmeasure"]
        want += " on %d sentences" % t["n_sentences"]
        if want not in res: bad("trees: want " + want, l)
    elif kind == "structprobe":
        m = re.search(r"\(evaluation #(\d+)\)", res)
        t = trees[int(m.group(1))]["result"]
        want = "UUAS %.2f, DSpr %.4f, root acc %.2f" % (t["uuas"], t["dspr"], t["root_acc"])
        if want not in res: bad("structprobe: want " + want, l)
        if "linear_baseline" in t:
            lb = t["linear_baseline"]
            want = "linear baseline there UUAS %.2f, DSpr %.4f, root acc %.2f" % (lb["uuas"], lb["dspr"], lb["root_acc"])
            if want not in res: bad("structprobe baseline: want " + want, l)
    elif kind == "encode":
        m = re.search(r"run (\S+): (\d+) encoded, (\d+) cached, (\d+)-dim (\S+) \(", res)
        if not m: bad("encode: no counts", l); continue
        n = db.execute("select count(*) from run_item join run using (run_id) where name = ?", (m.group(1),)).fetchone()[0]
        if int(m.group(2)) + int(m.group(3)) != n or m.group(5) != "f32": bad("encode: want %d items, f32" % n, l)
    elif kind == "ingest":
        n = db.execute("select count(*) from sentence").fetchone()[0]
        if "%d sentences added" % n not in res: bad("ingest: want %d sentences" % n, l)
    elif kind == "report":
        m = re.search(r"-> (\S+) \(", res)
        if not m or not os.path.getsize(m.group(1)): bad("report: no file", l)
    elif kind == "tasks":
        n = db.execute("select count(*) from task").fetchone()[0]
        if "%d stored" % n not in res: bad("tasks: want %d stored" % n, l)
    else:
        bad("unknown step", l)
print(" ".join("%s=%d" % (k, seen[k]) for k in sorted(seen)))
PY
expect_eq "every step line carries the stored figures (report --format json, the store)" "$(grep -c BAD $TMP/chk)" 0
grep BAD $TMP/chk | head -5 | sed 's/^/# /'
expect_eq "... one line of each step kind: 1 ingest, 1 tasks, 7 encodes, 5 probes, 7 trees, 2 structprobes, 1 tokprobe, 2 reports" \
    "$(tail -1 $TMP/chk)" "encode=7 ingest=1 probe=5 report=2 structprobe=2 tasks=1 tokprobe=1 trees=7"
# a second run: every line still carries its result (the job ledger keeps it), as "done before"
rc=0; $SP run $J/job.json >$TMP/out2 2>$TMP/err2 || rc=$?
sed -nE 's/^(\[[0-9]+\/26\] (probe|trees|structprobe|tokprobe|report|tasks) [^:]*: )(.*) \([0-9.]+s\)$/\1done before, skipped (\3)/p' $TMP/out >$TMP/want2
sed -nE 's/^(\[[0-9]+\/26\] [^:]*: done before, .*) \([0-9.]+s\)$/\1/p' $TMP/out2 >$TMP/got2
expect_eq "a second run: exit 0, N step lines, the 18 ledger steps 'done before' with the first run's result" \
    "$rc $(grep -cE '^\[[0-9]+/26\] ' $TMP/out2) $(wc -l <$TMP/want2) $(cmp -s $TMP/want2 $TMP/got2 && echo same)" "0 26 18 same"
done_testing
