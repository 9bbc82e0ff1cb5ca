# t6203-job-words.sh — job errors name the key the user wrote and each bad list element; kinds listed whole; probes default to the CPUs
# tier: fast
# Issue 40 item 8. Expected words come from the issue and the schemas (schemas/encoder.schema.json
# and bert.schema.json list the kinds, read here with Python, not from the C table); the CPU count
# from nproc. Each refused job: run --check exits 1 naming the JSON path, nothing created.
. tests/cli/lib.sh
J=$TMP/j
mkdir -p $J
cp demo/demo.conllu encoder/configs/san.json $J/
C='"corpora": [{"name": "d", "paths": ["demo.conllu"]}]'
T='"tasks": [{"tasks": ["SentLen"], "split": "resplit"}]'
E='"encoders": [{"config": "san.json", "inputs": ["d", "SentLen"], "token-vectors": true}]'
refused() {  # DESC WANT JOB-JSON: run --check exits 1, stderr holds WANT, no file created
    printf '%s\n' "$3" >$J/bad.json
    before=$(ls $J | sort | tr '\n' ' ')
    rc=0; $SP run --check $J/bad.json >/dev/null 2>$TMP/err || rc=$?
    after=$(ls $J | sort | tr '\n' ' ')
    if [ "$rc" = 1 ] && grep -qF -- "$2" $TMP/err && [ "$before" = "$after" ]; then ok "$1"
    else not_ok "$1 (exit $rc: $(cat $TMP/err))"; fi
}
passes() {  # DESC JOB-JSON
    printf '%s\n' "$2" >$J/good.json
    rc=0; $SP run --check $J/good.json >/dev/null 2>$TMP/err || rc=$?
    expect_eq "$1 ($(cat $TMP/err))" "$rc" 0
}
# the key "config" is named as written, whatever the error
refused "config of the wrong type: named config" "encoders[0].config: expected a string, got a whole number" \
    "{\"store\": \"s.db\", $C, \"encoders\": [{\"config\": 5, \"inputs\": [\"d\"]}]}"
refused "config empty" "encoders[0].config: expected a path, got an empty string" \
    "{\"store\": \"s.db\", $C, \"encoders\": [{\"config\": \"\", \"inputs\": [\"d\"]}]}"
refused "config an array" "encoders[0].config: expected a string, got an array" \
    "{\"store\": \"s.db\", $C, \"encoders\": [{\"config\": [\"san.json\"], \"inputs\": [\"d\"]}]}"
refused "config a number with layers" "encoders[0].config: expected the encoder configuration file's path, got a number" \
    "{\"store\": \"s.db\", $C, \"encoders\": [{\"config\": 3, \"inputs\": [\"d\"], \"layers\": [1]}]}"
refused "config missing" "encoders[0].config: $J/ghost.json: no such file" \
    "{\"store\": \"s.db\", $C, \"encoders\": [{\"config\": \"ghost.json\", \"inputs\": [\"d\"]}]}"
check "... no message says encoder where the user wrote config" sh -c "! grep -q 'encoders\[0\]\.encoder' $TMP/err"
refused "the option's own name, when written, is named" "encoders[0].encoder: expected a string, got true or false" \
    "{\"store\": \"s.db\", $C, \"encoders\": [{\"encoder\": true, \"inputs\": [\"d\"]}]}"
# list elements, each named by its index; empty arrays refused
P="{\"store\": \"s.db\", $C, $T, $E, \"probes\": [{"
refused "seed [1, \"2\"]: the string element" "probes[0].seed[1]: expected an integer, got the string \"2\" (write it without quotes: 2)" "$P\"seed\": [1, \"2\"]}]}"
refused "seed [3, 4, 2.5]" "probes[0].seed[2]: expected an integer, got a number" "$P\"seed\": [3, 4, 2.5]}]}"
refused "seed [\"7\"]" "probes[0].seed[0]: expected an integer, got the string \"7\" (write it without quotes: 7)" "$P\"seed\": [\"7\"]}]}"
refused "seed \"7\"" "probes[0].seed: expected an integer or an array of integers, got a string" "$P\"seed\": \"7\"}]}"
refused "seed [5, -1]" "probes[0].seed[1]: expected an integer in 0..2147483647, got -1" "$P\"seed\": [5, -1]}]}"
refused "seed []" "probes[0].seed: expected at least one integer" "$P\"seed\": []}]}"
refused "classifier []" "probes[0].classifier: expected at least one of logreg or mlp, got an empty array" "$P\"classifier\": []}]}"
refused "classifier [\"mlp\", 2]" "probes[0].classifier[1]: expected a string, got a whole number" "$P\"classifier\": [\"mlp\", 2]}]}"
refused "classifier [\"logreg\", \"svm\"]" "probes[0].classifier[1]: expected logreg or mlp, got 'svm'" "$P\"classifier\": [\"logreg\", \"svm\"]}]}"
refused "probe task []" "probes[0].task: expected at least one name" "$P\"task\": []}]}"
refused "tasks' corpus [\"d\", \"\"]" "tasks[0].corpus[1]: expected a name, got an empty string" \
    "{\"store\": \"s.db\", $C, \"tasks\": [{\"corpus\": [\"d\", \"\"], \"split\": \"resplit\"}]}"
refused "tasks' tasks []" "tasks[0].tasks: expected at least one name" \
    "{\"store\": \"s.db\", $C, \"tasks\": [{\"tasks\": [], \"split\": \"resplit\"}]}"
refused "structprobe conllu []" "structprobes[0].conllu: expected at least one path" \
    "{\"store\": \"s.db\", $C, \"structprobes\": [{\"conllu\": []}]}"
refused "trees mrg [\"a.mrg\", null]" "trees[0].mrg[1]: expected a string, got null" \
    "{\"store\": \"s.db\", $C, \"trees\": [{\"mrg\": [\"demo.conllu\", null]}]}"
refused "report run []" "reports[0].run: expected at least one name" \
    "{\"store\": \"s.db\", $C, \"reports\": [{\"run\": []}]}"
passes "seeds as integers pass" "$P\"seed\": [1, 2], \"classifier\": [\"logreg\", \"mlp\"]}]}"
passes "one seed as an integer passes" "$P\"seed\": 9}]}"
# an unknown kind lists every kind, bert too (the schemas' lists)
printf '{"kind": "transformer"}\n' >$J/odd.json
want=$($PY -c '
import json
k = json.load(open("schemas/encoder.schema.json"))["properties"]["kind"]["enum"] + json.load(open("schemas/bert.schema.json"))["properties"]["kind"]["enum"]
print(", ".join("\"%s\"" % x for x in k[:-1]) + " or \"%s\"" % k[-1])')
refused "an unknown kind: every kind named, bert too" "encoders[0].config: odd.json: kind: expected one of $want" \
    "{\"store\": \"s.db\", $C, \"encoders\": [{\"config\": \"odd.json\", \"inputs\": [\"d\"]}]}"
rc=0; $SP encode --db $TMP/e.db --corpus d --run r --encoder $J/odd.json >/dev/null 2>$TMP/err || rc=$?
check "encode says the same (exit $rc)" grep -qF "kind: expected one of $want" $TMP/err
# threads: the probes default to the CPUs, and their figures are those of one thread
for cmd in probe tokprobe structprobe; do
    check "$cmd --help: threads default to the CPUs" sh -c "$SP $cmd --help | tr -s ' \n' ' ' | grep -q 'default: the CPUs it may run on'"
done
NCPU=$(nproc)
DB=$TMP/t.db
$SP ingest --db $DB --corpus demo demo/demo.conllu >/dev/null 2>&1
$SP encode --db $DB --corpus demo --encoder encoder/configs/san.json --run san --token-vectors --quiet >/dev/null 2>&1
for th in "" "--threads 1" "--threads 2"; do
    $SP tokprobe --db $DB --corpus demo --run san --classifier mlp --nhid 16 --max-epoch 4 $th --json >$TMP/tok$(echo $th | tr -d ' -').json 2>/dev/null
    $SP structprobe --db $DB --corpus demo --run san --rank 16 --max-epochs 4 $th --json >$TMP/sp$(echo $th | tr -d ' -').json 2>/dev/null
done
for f in tok sp; do
    check "$f: the default's figures = 1 thread's = 2 threads'" sh -c "cmp -s $TMP/$f.json $TMP/${f}threads1.json && cmp -s $TMP/$f.json $TMP/${f}threads2.json"
done
expect_eq "the stored manifests record the threads used: $NCPU (nproc) by default" \
    "$(sqlite3 $DB "select json_extract(result, '\$.manifest.options.threads') from probe_result order by rowid limit 1") $(sqlite3 $DB "select json_extract(result, '\$.manifest.options.threads') from tree_eval order by rowid limit 1")" "$NCPU $NCPU"
done_testing
