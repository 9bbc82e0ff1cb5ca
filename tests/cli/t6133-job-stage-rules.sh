# t6133-job-stage-rules.sh — run --check applies each stage's own rules (stg_<stage>_check) to every step of a job, before anything is written
# tier: fast
# Issue 22 (finding 8): rules a stage checks when it starts (options that exclude each other, a
# value's syntax only the stage reads, options that need a bert config) were met only when the
# step came, after ingest and encode had written. Each case: a job with one such step; run
# --check exits 1 naming the entry and the rule, and nothing is created; run likewise.
. tests/cli/lib.sh
J=$TMP/job
mkdir -p $J
cp demo/demo.conllu encoder/configs/san.json $J/
C='"corpora": [{"name": "d", "paths": ["demo.conllu"]}]'
T='"tasks": [{"tasks": ["SentLen"], "split": "resplit"}]'
E='"encoders": [{"config": "san.json", "inputs": ["d", "SentLen"], "attention": 0, "token-vectors": true}]'
case_() {  # description, expected text, job JSON
    printf '%s\n' "$3" >$J/bad.json
    before=$(ls $J | sort | tr '\n' ' ')
    for cmd in "run --check" "run"; do
        rc=0; $SP $cmd $J/bad.json >/dev/null 2>$TMP/err || rc=$?
        after=$(ls $J | sort | tr '\n' ' ')
        if [ "$rc" = 1 ] && grep -qF -- "$2" $TMP/err && [ "$before" = "$after" ]; then ok "$1 ($cmd)"
        else not_ok "$1 ($cmd: exit $rc, stderr: $(cat $TMP/err); files before '$before' after '$after')"; fi
    done
}
case_ "dropout on a logreg probe" "probes[0]: --nhid and --dropout apply to --classifier mlp only" \
    "{\"store\": \"s.db\", $C, $T, $E, \"probes\": [{\"dropout\": 0.1}]}"
case_ "an optimizer string probe cannot read" "probes[0].optim:" \
    "{\"store\": \"s.db\", $C, $T, $E, \"probes\": [{\"optim\": \"adam,lr=x\"}]}"
case_ "a trees seed without the random baseline" "trees[0]: --seed only applies to --baseline random" \
    "{\"store\": \"s.db\", $C, $T, $E, \"trees\": [{\"seed\": 3}]}"
case_ "an unknown trees baseline" "trees[0]: unknown baseline 'middle'" \
    "{\"store\": \"s.db\", $C, \"trees\": [{\"baseline\": \"middle\"}]}"
case_ "an unknown structural-probe baseline" "structprobes[0]: unknown baseline 'cubic'" \
    "{\"store\": \"s.db\", $C, \"structprobes\": [{\"baseline\": \"cubic\"}]}"
case_ "a TreeDepth range tasks build cannot read" "tasks[0]: --depth expects LO-HI" \
    "{\"store\": \"s.db\", $C, \"tasks\": [{\"tasks\": [\"TreeDepth\"], \"depth\": \"deep\"}]}"
case_ "max-len below min-len" "tasks[0]: --max-len is below --min-len" \
    "{\"store\": \"s.db\", $C, \"tasks\": [{\"tasks\": [\"SentLen\"], \"min-len\": 10, \"max-len\": 5}]}"
case_ "a comparison of three" "reports[0].compare: expected pairs of encoders or runs" \
    "{\"store\": \"s.db\", $C, \"reports\": [{\"compare\": [\"a\", \"b\", \"c\"]}]}"
case_ "heads on a san config" "encoders[0]: --heads applies to bert configs" \
    "{\"store\": \"s.db\", $C, \"encoders\": [{\"config\": \"san.json\", \"inputs\": [\"d\"], \"attention\": 0, \"heads\": true}]}"
case_ "layer on a san config" "encoders[0]: --layer applies to bert configs" \
    "{\"store\": \"s.db\", $C, \"encoders\": [{\"config\": \"san.json\", \"inputs\": [\"d\"], \"layer\": 2}]}"
case_ "layer-attention without layers" "encoders[0]: --layer-attention needs --layers" \
    "{\"store\": \"s.db\", $C, \"encoders\": [{\"config\": \"san.json\", \"inputs\": [\"d\"], \"layer-attention\": true}]}"
# the rules do not refuse what is valid: mlp with a dropout, the random baseline with a seed
cat >$TMP/valid.json <<EOF2
{"store": "$TMP/s.db", "corpora": [{"name": "d", "paths": ["$J/demo.conllu"]}], "tasks": [{"tasks": ["SentLen"], "split": "resplit"}],
 "encoders": [{"config": "$J/san.json", "inputs": ["d", "SentLen"], "attention": 0}],
 "probes": [{"classifier": "mlp", "dropout": 0.1, "nhid": 10}], "trees": [{"baseline": "random", "seed": 3}]}
EOF2
rc=0; $SP run --check $TMP/valid.json >/dev/null 2>$TMP/err || rc=$?
expect_eq "valid combinations pass run --check ($(cat $TMP/err))" "$rc" 0
# an entry for both classifiers: nhid and dropout are for its mlp steps, not refused on its logreg ones
cat >$TMP/both.json <<EOF2
{"store": "$TMP/s.db", "corpora": [{"name": "d", "paths": ["$J/demo.conllu"]}], "tasks": [{"tasks": ["SentLen"], "split": "resplit"}],
 "encoders": [{"config": "$J/san.json", "inputs": ["SentLen"]}],
 "probes": [{"classifier": ["logreg", "mlp"], "dropout": 0.1, "nhid": 10}]}
EOF2
rc=0; $SP run --check $TMP/both.json >$TMP/out 2>$TMP/err || rc=$?
expect_eq "classifier [logreg, mlp] with nhid and dropout passes run --check ($(cat $TMP/err))" "$rc" 0
check "... its logreg step (no --classifier: the default) carries neither, its mlp step both" \
    awk '/synprobe probe/ { if (/--classifier mlp/) m += /--nhid 10/ && /--dropout 0.1/; else l += !/--nhid|--dropout/; n++ }
         END { exit !(n == 2 && m == 1 && l == 1) }' $TMP/out
done_testing
