# t2153-task-token-vectors.sh — task runs keep token vectors only when asked: a job's "token-vectors" serves its corpus runs
# tier: fast
# Issue 24 item 7. The sentence probes read a task run's sentence vectors only, so a job's encoder
# entry with "token-vectors": true keeps them for its corpus runs (the structural and token
# probes' input) and not for its task runs; `encode --task T` keeps none unless given
# --token-vectors. Expected values: the spec (run.token_vectors, vector.tokens NULL).
. tests/cli/lib.sh
J=$TMP/job
mkdir -p $J
cp demo/demo.conllu $J/
cat >$J/tiny.json <<'JSON'
{"kind": "san", "d_model": 64, "heads": 4, "layers": 2, "d_ff": 128, "norm": "post", "activation": "relu",
 "ln_eps": 1e-6, "position": "seq", "emb_scale": true, "rel_pos": "none", "pooling": "mean", "seed": 1}
JSON
cat >$J/job.json <<'JSON'
{"store": "s.db", "out": "out",
 "corpora": [{"name": "demo", "paths": ["demo.conllu"]}],
 "tasks": [{"tasks": ["BShift", "SOMO"], "seed": 1, "split": "resplit"}],
 "encoders": [{"config": "tiny.json", "run": "t", "inputs": ["demo", "BShift", "SOMO"], "token-vectors": true}],
 "probes": [{"classifier": ["logreg"], "seed": [1], "preset": "senteval-fast"}],
 "tokprobes": [{"task": "upos"}]}
JSON
DB=$J/s.db
rc=0; $SP run $J/job.json >$TMP/run.out 2>&1 || rc=$?
expect_eq "the job runs (exit 0)" "$rc" 0
expect_eq "the corpus run keeps token vectors, the task runs do not" \
    "$(sqlite3 $DB "select group_concat(name || '=' || token_vectors, ' ') from (select name, token_vectors from run order by name)")" \
    "t=1 t-BShift=0 t-SOMO=0"
# SOMO's items replace a word: inputs of their own, not rows of the corpus run
own="select i.text_hash from run_item i join run r using (run_id) where r.name = 't-SOMO' and i.text_hash not in
     (select text_hash from run_item j join run c using (run_id) where c.name = 't')"
check "SOMO has items of its own (not corpus sentences)" sh -c "[ \$(sqlite3 $DB \"select count(*) from ($own)\") -gt 0 ]"
expect_eq "... whose rows hold no token vectors" "$(sqlite3 $DB "select count(*) from vector where tokens is not null and text_hash in ($own)")" 0
expect_eq "the corpus run's rows all hold token vectors" \
    "$(sqlite3 $DB "select count(*) from run_item i join run r using (run_id) join vector v on v.encoder_id = r.encoder_id and v.text_hash = i.text_hash where r.name = 't' and v.tokens is null")" 0
expect_eq "the sentence probes ran on both task runs, the token probe on the corpus run" \
    "$(sqlite3 $DB "select group_concat(x, ' ') from (select r.name || ':' || p.task_name x from probe_result p join run r using (run_id) order by 1)")" \
    "t-BShift:BShift t-SOMO:SOMO t:token:upos"
# the command line: nothing unless asked
$SP encode --db $DB --task SOMO --encoder $J/tiny.json --seed 7 --run plain --quiet
expect_eq "encode --task without --token-vectors: none kept" \
    "$(sqlite3 $DB "select r.token_vectors || ' ' || count(v.tokens) from run r join run_item i using (run_id) join vector v on v.encoder_id = r.encoder_id and v.text_hash = i.text_hash where r.name = 'plain'")" "0 0"
$SP encode --db $DB --task SOMO --encoder $J/tiny.json --seed 7 --run asked --token-vectors --quiet
expect_eq "encode --task --token-vectors: kept for every item" \
    "$(sqlite3 $DB "select r.token_vectors || ' ' || (count(v.tokens) = count(*)) from run r join run_item i using (run_id) join vector v on v.encoder_id = r.encoder_id and v.text_hash = i.text_hash where r.name = 'asked'")" "1 1"
done_testing
