# t5081-probe-report-messages.sh — probe's and report's messages for unknown tasks and runs
# tier: fast
# Issue #11 (stages): the messages of probe and report.
# An unknown --task or --run names the nearest names and lists what the store holds; report
# --run NOSUCH exits 1; --task A,B probes each task in turn (probe) and selects rows of any of
# them (report); a single-valued flag given twice is a usage error.
# Expectations come from the inputs: the names this script creates, a task imported twice under
# two names (the same data must give the same figures), row counts of what was stored.
. tests/cli/lib.sh
need_numpy
q() { $PY -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])" "$1" "$2"; }
"$SP" demo --out "$TMP/d" --ingest-only >/dev/null 2>&1
DB=$TMP/d/demo.db
for r in alpha-run beta-run; do
    "$SP" encode --db "$DB" --corpus demo --encoder encoder/configs/san.json --run $r --quiet >/dev/null 2>&1
done
# a 2-class task (8 train, 4 dev, 4 test) and vectors that separate it
$PY - "$TMP" <<'PY'
import sys, numpy as np
d = sys.argv[1]
y = [0, 1] * 8
tags = ["tr"] * 8 + ["va"] * 4 + ["te"] * 4
X = np.array([[1.0 if c == 1 else -1.0, 0.5] for c in y], np.float32)
np.save(d + "/X.npy", X)
with open(d + "/t.txt", "w") as f:
    for i, c in enumerate(y):
        f.write("%s\t%s\tsentence %d .\n" % (tags[i], "yes" if c else "no", i))
PY
for n in Tense BShift; do "$SP" tasks import --db "$DB" --name $n "$TMP/t.txt" >/dev/null; done

# ---- probe: unknown task, unknown run ----
rc=0; "$SP" probe --db "$DB" --task Tnese --vectors "$TMP/X.npy" --quiet >/dev/null 2>"$TMP/err" || rc=$?
expect_eq "probe --task Tnese: exit 1" "$rc" 1
check "probe --task Tnese: nearest name and the tasks of the store" \
    grep -q "no task 'Tnese' in $DB; did you mean 'Tense'? the store has: BShift, Tense" "$TMP/err"
rc=0; "$SP" probe --db "$DB" --task Tense --run alpah-run --quiet >/dev/null 2>"$TMP/err" || rc=$?
expect_eq "probe --run alpah-run: exit 1" "$rc" 1
check "probe --run alpah-run: nearest name and the runs of the store" \
    grep -q "no run 'alpah-run' in $DB; did you mean 'alpha-run'? the store has: alpha-run, beta-run" "$TMP/err"
expect_eq "probe with an unknown name stores nothing" "$(q "$DB" "SELECT count(*) FROM probe_result")" 0

# ---- probe --task A,B: each task in turn, one row each; one task prints as before ----
rc=0; "$SP" probe --db "$DB" --task Tense,BShift --vectors "$TMP/X.npy" --json --quiet >"$TMP/two.json" 2>"$TMP/err" || rc=$?
expect_eq "probe --task Tense,BShift: exit 0" "$rc" 0
expect_eq "probe --task Tense,BShift: two rows, one per task" \
    "$(q "$DB" "SELECT group_concat(task_name, ',') FROM (SELECT task_name FROM probe_result ORDER BY result_id)")" "Tense,BShift"
"$SP" probe --db "$DB" --task Tense --vectors "$TMP/X.npy" --json --quiet --no-save >"$TMP/one.json"
check "probe --task A,B: an array of the two results; the same data gives the same figures as one task alone" \
    $PY - "$TMP/two.json" "$TMP/one.json" <<'PY'
import json, sys
two = json.load(open(sys.argv[1])); one = json.load(open(sys.argv[2]))
assert isinstance(two, list) and [r["task_name"] for r in two] == ["Tense", "BShift"], two
assert isinstance(one, dict) and one["task_name"] == "Tense" and "result_id" not in one
for r in two:
    assert r["devacc"] == one["devacc"] and r["acc"] == one["acc"], (r["devacc"], one["devacc"])
    assert r["metrics"]["confusion"] == one["metrics"]["confusion"]
assert two[0]["result_id"] + 1 == two[1]["result_id"]
PY

# ---- report --task A,B / --run NOSUCH ----
"$SP" probe --task-file "$TMP/t.txt" --vectors "$TMP/X.npy" --save "$DB" --quiet >/dev/null
expect_eq "report --task Tense,BShift: rows of both tasks, not the task file's" \
    "$("$SP" report --db "$DB" --task Tense,BShift --format json 2>/dev/null | $PY -c "import json,sys; print(sorted(r['task'] for r in json.load(sys.stdin)['probe_results']))")" \
    "['BShift', 'Tense']"
expect_eq "report --task Tense --task Tense: its row once" \
    "$("$SP" report --db "$DB" --task Tense --task Tense --format json 2>/dev/null | $PY -c "import json,sys; print(len(json.load(sys.stdin)['probe_results']))")" 1
rc=0; "$SP" report --db "$DB" --run NOSUCH --format json >"$TMP/out" 2>"$TMP/err" || rc=$?
expect_eq "report --run NOSUCH: exit 1" "$rc" 1
check "report --run NOSUCH: the runs of the store" grep -q "no run 'NOSUCH' in $DB; the store has: alpha-run, beta-run" "$TMP/err"
rc=0; "$SP" report --db "$DB" --run beta-rnu >/dev/null 2>"$TMP/err" || rc=$?
expect_eq "report --run beta-rnu: exit 1" "$rc" 1
check "report --run beta-rnu: the nearest name" grep -q "did you mean 'beta-run'? the store has: alpha-run, beta-run" "$TMP/err"
rc=0; "$SP" report --db "$DB" --run alpha-run >/dev/null 2>&1 || rc=$?
expect_eq "report --run of a run with no results: exit 0 (the run exists)" "$rc" 0

# ---- a single-valued flag given twice ----
rc=0; "$SP" probe --db "$DB" --task Tense --vectors "$TMP/X.npy" --vectors "$TMP/X.npy" >/dev/null 2>"$TMP/err" || rc=$?
expect_eq "probe --vectors twice: usage exit 2" "$rc" 2
check "probe --vectors twice: says so" grep -q -- "--vectors given twice" "$TMP/err"
rc=0; "$SP" report --db "$DB" --format json --format csv >/dev/null 2>&1 || rc=$?
expect_eq "report --format twice: usage exit 2" "$rc" 2
expect_eq "nothing stored by the failures" "$(q "$DB" "SELECT count(*) FROM probe_result")" 3

done_testing
