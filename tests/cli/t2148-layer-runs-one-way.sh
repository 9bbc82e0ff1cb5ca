# t2148-layer-runs-one-way.sh — layer runs named, parsed and found one way: where the old copies disagreed
# tier: fast
# A job encoder with "layers" and a "run" holding {layer} now probes the runs its encode step
# makes (the job reader used to name them '<run>-L{layer}' with one {layer} replaced: 'p2-L{layer}-Tense',
# a run no encode makes, so the job failed at its first probe); `export --layers` says
# --layers in its messages (it said --layer); a layer out of range is said to be out of range
# (it was "expected all or layer numbers ..."); encode --layers refuses a tab before a number
# as it refuses a space (strtol skipped it). Needs the real model (make models); skips visibly.
. tests/cli/lib.sh
need_models
M=$(cd $MODELS/all-MiniLM-L6-v2 && pwd)
mkdir -p $TMP/j
cp demo/demo.conllu demo/demo.mrg $TMP/j/
printf '{"kind": "bert", "model": "%s"}\n' "$M" >$TMP/j/m.json
cat >$TMP/j/job.json <<'J'
{"store": "out/s.db", "out": "out", "corpora": [{"name": "demo", "paths": ["demo.conllu", "demo.mrg"]}],
 "tasks": [{"tasks": ["Tense"], "seed": 1, "split": "resplit"}],
 "encoders": [{"config": "m.json", "run": "p{layer}", "layers": [2, 4], "inputs": ["demo", "Tense"], "token-vectors": true}],
 "probes": [{"classifier": ["logreg"], "seed": [1], "preset": "senteval-fast"}],
 "structprobes": [{"max-epochs": 1, "rank": 4}]}
J
rc=0; $SP run --check $TMP/j/job.json >$TMP/check 2>&1 || rc=$?
expect_eq "run --check with \"run\": \"p{layer}\": the encode steps keep the pattern, the probes name the runs it makes" \
    "$rc $(grep -o -- "--run [^ ]*" $TMP/check | tr '\n' ' ')" \
    "0 --run 'p{layer}' --run 'p{layer}-Tense' --run p2-Tense --run p4-Tense --run p2 --run p4 "
rc=0; $SP run --quiet $TMP/j/job.json >$TMP/out 2>&1 || rc=$?
[ "$rc" = 0 ] || tail -3 $TMP/out
expect_eq "the job runs: 2 probe results (p2-Tense, p4-Tense) and 2 trained structural probes (p2, p4)" \
    "$rc $(sqlite3 $TMP/j/out/s.db "select group_concat(name, ' ') from (select r.name from probe_result p join run r using (run_id) order by r.name)") $(sqlite3 $TMP/j/out/s.db "select count(*) from tree_eval where method like 'structprobe:trained:run=p_'")" \
    "0 p2-Tense p4-Tense 2"

S=$TMP/j/out/s.db
rc=0; $SP export --db $S --corpus demo --run 'p{layer}' --layers 2,2 --what vectors --out $TMP/x.npy >/dev/null 2>$TMP/e1 || rc=$?
expect_eq "export --layers 2,2: usage error in --layers' words" "$rc $(cat $TMP/e1)" "2 synprobe export: --layers: layer 2 is named twice"
rc=0; $SP export --db $S --corpus demo --run 'p{layer}' --layers 2,x --what vectors --out $TMP/x.npy >/dev/null 2>$TMP/e2 || rc=$?
expect_eq "export --layers 2,x: usage error in --layers' words" "$rc $(cat $TMP/e2)" \
    "2 synprobe export: --layers: expected all or layer numbers K,K,... (0 = embeddings), got '2,x'"
rc=0; $SP structprobe --db $S --corpus demo --run 'p{layer}' --layer 70 --no-save >/dev/null 2>$TMP/e3 || rc=$?
expect_eq "structprobe --layer 70: usage error, out of range" "$rc $(cat $TMP/e3)" \
    "2 synprobe structprobe: --layer: layer 70 is not one of 0..64 (0 = embeddings)"
rc=0; $SP encode --db $S --corpus demo --encoder $TMP/j/m.json --layers "$(printf '2,\t3')" --run tab >/dev/null 2>$TMP/e4 || rc=$?
expect_eq "encode --layers '2,<tab>3': usage error quoting it, nothing encoded" \
    "$rc $(grep -c "synprobe encode: --layers: expected all or layer numbers K,K,... (0 = embeddings), got '2," $TMP/e4) $(sqlite3 $S "select count(*) from run where name like 'tab%'")" \
    "2 1 0"
done_testing
