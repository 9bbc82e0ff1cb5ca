# t2080-encode-messages.sh — encode's messages: nothing encoded, reused run names, unknown names
# tier: fast
# Encode's messages (issue #11): nothing encoded is said and why; a run
# name reused by another encoder names both encoders; an unknown --corpus / --task suggests the
# nearest name and lists what exists; --task A,B encodes several inputs in one command.
# Expected values come from the demo files (32 sentences, the shortest 7 words: counted here
# with awk, not by synprobe) and from the names this script gives.
. tests/cli/lib.sh
need_numpy
D=$TMP/demo
"$SP" demo --out "$D" --ingest-only >/dev/null 2>&1
DB=$D/demo.db
C=encoder/configs
N=$(grep -c '^$' demo/demo.conllu)
MIN=$(awk -F'\t' '/^[0-9]+\t/ { n++ } /^$/ { if (min == "" || n < min) min = n; n = 0 } END { print min }' demo/demo.conllu)
q() { $PY -c "import sqlite3,sys; r=sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone(); print(r[0] if r else '')" "$1" "$2"; }
jline() { $PY -c "import json,sys; l=sys.stdin.read().splitlines(); d=json.loads(l[int(sys.argv[1])]); print(d[sys.argv[2]])" "$1" "$2"; }

# ---- every sentence over --max-tokens: not a silent success
M=$((MIN - 1))
rc=0; "$SP" encode --db "$DB" --corpus demo --encoder $C/san.json --run short --max-tokens $M --quiet --json \
    >"$TMP/short.json" 2>"$TMP/err" || rc=$?
expect_eq "all over --max-tokens: exit 1" "$rc" 1
check "all over --max-tokens: says nothing was encoded, how many and why" \
    grep -q "nothing was encoded: all $N sentences of corpus 'demo' were skipped: $N over --max-tokens $M\$" "$TMP/err"
check "--max-tokens $MIN: some encoded, no 'nothing was encoded'" sh -c \
    "'$SP' encode --db '$DB' --corpus demo --encoder $C/san.json --run short2 --max-tokens $MIN 2>'$TMP/err2' && ! grep -q 'nothing was encoded' '$TMP/err2'"

# ---- every item lacking structure (an imported task has no parses; ms-san needs heads)
printf 'tr\t1\tThe cat sat .\nva\t0\tA dog .\nte\t1\tThe cat sat .\n' >"$TMP/task.txt"
"$SP" tasks import --db "$DB" --name TreeDepth "$TMP/task.txt" >/dev/null
"$SP" tasks import --db "$DB" --name BShift "$TMP/task.txt" >/dev/null
rc=0; "$SP" encode --db "$DB" --task TreeDepth --encoder $C/ms-san.json --run nostruct --quiet 2>"$TMP/err" || rc=$?
check "all lacking structure: says nothing was encoded and which structure" \
    grep -q "nothing was encoded: all 3 items of task 'TreeDepth' were skipped: 3 lacking the dependency tree ms-san needs" "$TMP/err"
expect_eq "all lacking structure: exit 1" "$rc" 1

# ---- a run name made by another encoder: both encoders named (kind and config file)
"$SP" encode --db "$DB" --corpus demo --encoder $C/san.json --run taken --quiet
rc=0; "$SP" encode --db "$DB" --corpus demo --encoder $C/ms-san.json --run taken --quiet 2>"$TMP/err" || rc=$?
expect_eq "run name reused by another encoder: exit 1" "$rc" 1
check "names the run's encoder: san from its config file" grep -q "run 'taken' was made by encoder san from $C/san.json" "$TMP/err"
check "names this encoder: ms-san from its config file" grep -q "this encoder is ms-san from $C/ms-san.json" "$TMP/err"
expect_eq "the refused run keeps its items" "$(q "$DB" "SELECT count(*) FROM run_item JOIN run USING (run_id) WHERE name = 'taken'")" "$N"

# ---- unknown names: the nearest one, and what exists
rc=0; "$SP" encode --db "$DB" --corpus demmo --encoder $C/san.json --run x 2>"$TMP/err" || rc=$?
expect_eq "unknown --corpus: exit 1" "$rc" 1
check "unknown --corpus: suggests and lists" \
    grep -q "no corpus 'demmo' in $DB; did you mean 'demo'? the store has: demo\$" "$TMP/err"
rc=0; "$SP" encode --db "$DB" --task Tredepth --encoder $C/san.json --run x 2>"$TMP/err" || rc=$?
expect_eq "unknown --task: exit 1" "$rc" 1
check "unknown --task: suggests and lists" \
    grep -q "no task 'Tredepth' in $DB; did you mean 'TreeDepth'? the store has: BShift, TreeDepth\$" "$TMP/err"
rc=0; "$SP" encode --db "$DB" --task BShift,Nope --encoder $C/san.json --run x 2>"$TMP/err" || rc=$?
expect_eq "one unknown among several: exit 1 before encoding" "$rc:$(q "$DB" "SELECT count(*) FROM run WHERE name LIKE 'x%'")" "1:0"

# ---- several inputs in one command: a run and a JSON line each
rc=0; "$SP" encode --db "$DB" --task TreeDepth,BShift --encoder $C/san.json --run m --json 2>"$TMP/err" >"$TMP/m.json" || rc=$?
expect_eq "--task A,B: exit 0" "$rc" 0
expect_eq "--task A,B: one JSON line per input" "$(wc -l <"$TMP/m.json" | tr -d ' ')" 2
expect_eq "--task A,B: runs m-TreeDepth and m-BShift, 3 items each" \
    "$(jline 0 run <"$TMP/m.json") $(jline 0 items <"$TMP/m.json") $(jline 1 run <"$TMP/m.json") $(jline 1 items <"$TMP/m.json")" \
    "m-TreeDepth 3 m-BShift 3"
expect_eq "--task A,B: the second input's identical items are cached" "$(jline 1 cached <"$TMP/m.json")" 3
expect_eq "--task A,B: the encoder opened once" "$(grep -c '^encoder: san on' "$TMP/err")" 1
expect_eq "--task A,B: a summary line per run" "$(grep -c '^run m-' "$TMP/err")" 2
expect_eq "--task A,B: each run's manifest names its own task" \
    "$(q "$DB" "SELECT group_concat(json_extract(manifest, '\$.source.task'), ' ') FROM (SELECT manifest FROM run WHERE name LIKE 'm-%' ORDER BY name)")" \
    "BShift TreeDepth"
"$SP" encode --db "$DB" --task TreeDepth --encoder $C/san.json --run single --json --quiet >"$TMP/s.json"
expect_eq "one input: the run keeps its name, one JSON line" "$(wc -l <"$TMP/s.json" | tr -d ' ') $(jline 0 run <"$TMP/s.json")" "1 single"
rc=0; "$SP" encode --db "$DB" --corpus demo --task BShift --encoder $C/san.json --run y 2>/dev/null || rc=$?
expect_eq "--corpus with --task: usage exit 2" "$rc" 2
done_testing
