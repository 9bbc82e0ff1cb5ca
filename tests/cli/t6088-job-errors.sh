# t6088-job-errors.sh — malformed job files are refused before anything is written, with the JSON path
# tier: fast
# Issue 12: malformed job files are refused before anything is written, with the JSON path of the
# problem in the message. Each case: exit 1, the expected path and words in stderr, and the job's
# folder holds nothing new (no store, no output folder).
. tests/cli/lib.sh
J=$TMP/job
mkdir -p $J
cp demo/demo.conllu demo/demo.mrg encoder/configs/san.json $J/
C='"corpora": [{"name": "demo", "paths": ["demo.conllu"]}]'
T='"tasks": [{"tasks": ["Tense"], "split": "resplit"}]'
case_() {  # description, expected text in the message, job JSON
    printf '%s\n' "$3" >$J/bad.json
    before=$(ls $J | sort | tr '\n' ' ')
    $SP run $J/bad.json >$TMP/out 2>$TMP/err && rc=0 || rc=$?
    after=$(ls $J | sort | tr '\n' ' ')
    if [ "$rc" = 1 ] && grep -qF -- "$2" $TMP/err && [ "$before" = "$after" ]; then ok "$1"
    else not_ok "$1 (exit $rc, stderr: $(cat $TMP/err); files before '$before' after '$after')"; fi
}
case_ "not JSON" "bad.json:2:0: not JSON" '{"store": '
case_ "top level not an object" "(top level): expected an object" '[1, 2]'
case_ "store missing" "store: is required" "{$C}"
case_ "store of the wrong type" "store: expected a non-empty string" '{"store": 5}'
case_ "unknown top-level key, nearest name" "encodres: unknown key; did you mean 'encoders'?" '{"store": "s.db", "encodres": []}'
case_ "section not an array" "corpora: expected an array" '{"store": "s.db", "corpora": {}}'
case_ "entry not an object" "corpora[0]: expected an object" '{"store": "s.db", "corpora": ["demo"]}'
case_ "corpus without a name" 'corpora[0]: "name" is required' '{"store": "s.db", "corpora": [{"paths": ["demo.conllu"]}]}'
case_ "missing corpus file" "corpora[0].paths[1]: $J/nope.conllu: no such file" '{"store": "s.db", "corpora": [{"name": "d", "paths": ["demo.conllu", "nope.conllu"]}]}'
case_ "unknown option in a section, nearest flag" "corpora[0].workrs: no such option; did you mean 'workers'?" '{"store": "s.db", "corpora": [{"name": "d", "paths": ["demo.conllu"], "workrs": 2}]}'
case_ "wrong type for a number option" "corpora[0].workers: expected a whole number, got an array" '{"store": "s.db", "corpora": [{"name": "d", "paths": ["demo.conllu"], "workers": [2]}]}'
case_ "flag given a string" "corpora[0].strict: expected true or false" '{"store": "s.db", "corpora": [{"name": "d", "paths": ["demo.conllu"], "strict": "yes"}]}'
case_ "db inside a section" "tasks[0].db: the store is set once" "{\"store\": \"s.db\", $C, \"tasks\": [{\"db\": \"x.db\"}]}"
case_ "unknown probing task" "tasks[0].tasks[0]: 'Tens' is no probing task of this job; did you mean 'Tense'?" "{\"store\": \"s.db\", $C, \"tasks\": [{\"tasks\": [\"Tens\"]}]}"
case_ "tasks from a corpus the job lacks" "tasks[0].corpus[0]: 'ptb' is no corpus of this job" "{\"store\": \"s.db\", $C, \"tasks\": [{\"corpus\": [\"ptb\"]}]}"
case_ "encoder config missing" "encoders[0].config: $J/nope.json: no such file" "{\"store\": \"s.db\", $C, \"encoders\": [{\"config\": \"nope.json\", \"inputs\": [\"demo\"]}]}"
case_ "encoder without inputs" "encoders[0].inputs: expected a non-empty array" "{\"store\": \"s.db\", $C, \"encoders\": [{\"config\": \"san.json\"}]}"
case_ "encoder input naming no corpus or task" "encoders[0].inputs[1]: 'Tensee' names no corpus or task of this job; did you mean 'Tense'?" \
    "{\"store\": \"s.db\", $C, $T, \"encoders\": [{\"config\": \"san.json\", \"inputs\": [\"demo\", \"Tensee\"]}]}"
case_ "two encoders making one run" "encoders[1]: run 'san' is made twice" \
    "{\"store\": \"s.db\", $C, \"encoders\": [{\"config\": \"san.json\", \"inputs\": [\"demo\"]}, {\"config\": \"san.json\", \"inputs\": [\"demo\"]}]}"
case_ "probe of a task the job lacks" "probes[0].task[0]: 'SOMO' is no task of this job" \
    "{\"store\": \"s.db\", $C, $T, \"encoders\": [{\"config\": \"san.json\", \"inputs\": [\"Tense\"]}], \"probes\": [{\"task\": [\"SOMO\"]}]}"
case_ "bad choice value" "reports[0].format: expected" "{\"store\": \"s.db\", $C, \"reports\": [{\"format\": \"xml\"}]}"
case_ "report path escaping with .." "reports[0].out: '../r.json' leaves the output folder" "{\"store\": \"s.db\", $C, \"reports\": [{\"out\": \"../r.json\"}]}"
case_ "report path absolute" "reports[0].out: '/tmp/r.json' leaves the output folder" "{\"store\": \"s.db\", $C, \"reports\": [{\"out\": \"/tmp/r.json\"}]}"
case_ "trees output escaping through a folder" "trees[0].out: 'a/../../t.txt' leaves the output folder" "{\"store\": \"s.db\", $C, \"trees\": [{\"baseline\": \"right\", \"out\": \"a/../../t.txt\"}]}"
case_ "trees of a corpus the job lacks" "trees[0].corpus: 'wsj' is no corpus of this job" "{\"store\": \"s.db\", $C, \"trees\": [{\"corpus\": \"wsj\"}]}"
E='"encoders": [{"config": "san.json", "inputs": ["demo"]}]'
EV='"encoders": [{"config": "san.json", "inputs": ["demo"], "token-vectors": true}]'
case_ "structural probes with no run keeping token vectors" "structprobes[0]: no corpus run of this job keeps token vectors to train structural probes on" \
    "{\"store\": \"s.db\", $C, $E, \"structprobes\": [{}]}"
case_ "structural probes of a corpus the job lacks" "structprobes[0].corpus: 'wsj' is no corpus of this job" \
    "{\"store\": \"s.db\", $C, $EV, \"structprobes\": [{\"corpus\": \"wsj\"}]}"
case_ "structural probe rank of the wrong type" "structprobes[0].rank: expected a whole number, got a string" \
    "{\"store\": \"s.db\", $C, $EV, \"structprobes\": [{\"rank\": \"full\"}]}"
case_ "token probes with no run keeping token vectors" "tokprobes[0]: no corpus run of this job keeps token vectors to probe" \
    "{\"store\": \"s.db\", $C, $E, \"tokprobes\": [{\"task\": \"upos\"}]}"
case_ "token probe task not a choice" "tokprobes[0].task: expected" \
    "{\"store\": \"s.db\", $C, $EV, \"tokprobes\": [{\"task\": \"xpos\"}]}"
case_ "token probe option misspelt, nearest flag" "tokprobes[0].clasifier: no such option; did you mean 'classifier'?" \
    "{\"store\": \"s.db\", $C, $EV, \"tokprobes\": [{\"clasifier\": \"mlp\"}]}"
case_ "token probes of a corpus the job lacks" "tokprobes[0].corpus: 'wsj' is no corpus of this job" \
    "{\"store\": \"s.db\", $C, $EV, \"tokprobes\": [{\"corpus\": \"wsj\"}]}"
case_ "tokprobes not an array" "tokprobes: expected an array of objects" "{\"store\": \"s.db\", $C, $EV, \"tokprobes\": {}}"
case_ "trees with no run keeping attention" "trees[0]: no corpus run of this job keeps attention maps" \
    "{\"store\": \"s.db\", $C, $E, \"trees\": [{}]}"
case_ "a job with no steps" "the job has no steps" '{"store": "s.db"}'
check "the store was never created" test ! -e $J/s.db
done_testing
