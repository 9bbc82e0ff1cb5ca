# t6192-trained-vs-random.sh — contrib/jobs/trained-vs-random.sh trains on the train files only, records how, skips what is trained, and its job file checks
# tier: fast
# Issue 25 item 4. The script, in a copy of the checkout's layout (so that it writes nowhere in
# the tree): one kind, one seed, 3 steps, RUN=0. Checked against facts computed here: the training
# store holds exactly the sentences of PTB-sample files wsj_0001-0119 (counted from the .dp files),
# the record names the objective, steps and seed and the SHA-256 of the corpus export, synprobe
# accepts the weights (weights check), a second call trains nothing, and the committed job file
# passes run --check with weights in place (its 36 encoders, the three PTB partitions, the pairs).
. tests/cli/lib.sh
need_data
$PY -c 'import torch' 2>/dev/null || skip_rest "/usr/bin/python3 has no torch (python3-torch)"
[ -e "$MODELS/glove-6b-50d" ] || skip_rest "$MODELS/glove-6b-50d not present (make models)"
ROOT=$TMP/root
mkdir -p $ROOT/contrib/jobs $ROOT/build
cp -r contrib/jobs/trained-vs-random.sh contrib/jobs/trained-vs-random.job.json contrib/jobs/trained-vs-random $ROOT/contrib/jobs/
ln -s "$(pwd)/python" $ROOT/python
ln -s "$(cd "$MODELS" && pwd)" $ROOT/models
ln -s "$(cd "$DATA/.." && pwd)" $TMP/shared
S=$(cd "$(dirname $SP)" && pwd)/synprobe
env KINDS=ms-san SEEDS=2 STEPS=3 RUN=0 SYNPROBE=$S sh $ROOT/contrib/jobs/trained-vs-random.sh >$TMP/out 2>$TMP/err && rc=0 || rc=$?
expect_eq "the script trains one model and stops (RUN=0)" "$rc" 0
W=$ROOT/synprobe-tvr/weights/ms-san-s2
count() { i=$1; c=0; while [ $i -le $2 ]; do c=$((c + $(awk 'NF{b=1} !NF&&b{n++;b=0} END{print n+b}' $DATA/ptb-sample/dependency/wsj_$(printf '%04d' $i).dp))); i=$((i + 1)); done; echo $c; }
expect_eq "the training store holds the sentences of files wsj_0001-0119 and no other" \
    "$(sqlite3 $ROOT/synprobe-tvr/lm.db "SELECT count(*), min(doc), max(doc) FROM sentence")" "$(count 1 119)|wsj_0001|wsj_0119"
expect_eq "train.json: objective, steps, seed, corpus" \
    "$($PY -c "import json; r=json.load(open('$W/train.json')); print(r['objective'], r['steps'], r['seed'], r['corpus'], r['sentences'])")" \
    "mlm 3 2 ptb-lm $(count 1 119)"
expect_eq "train.json: the data hash is the SHA-256 of the corpus's structures export" \
    "$($PY -c "import json; print(json.load(open('$W/train.json'))['data_hash'])")" \
    "sha256:$($SP export --db $ROOT/synprobe-tvr/lm.db --corpus ptb-lm --what structures --format jsonl | sha256sum | cut -d' ' -f1)"
$SP weights check $ROOT/contrib/jobs/trained-vs-random/ms-san.json $W/weights.safetensors >$TMP/wc 2>&1 && rc=0 || rc=$?
expect_eq "synprobe accepts the trained weights for the job's config (weights check)" "$rc" 0
env KINDS=ms-san SEEDS=2 STEPS=3 RUN=0 SYNPROBE=$S sh $ROOT/contrib/jobs/trained-vs-random.sh >$TMP/out2 2>&1
check "a second call trains nothing" sh -c "grep -q '^trained already: ms-san seed 2' $TMP/out2 && grep -q '^training 0 models' $TMP/out2"
env KINDS=ms-san SEEDS=2 STEPS=4 RUN=0 SYNPROBE=$S sh $ROOT/contrib/jobs/trained-vs-random.sh >$TMP/out3 2>&1
expect_eq "another budget trains it again" "$(grep -c '^training 1 models' $TMP/out3) $($PY -c "import json; print(json.load(open('$W/train.json'))['steps'])")" "1 4"
# the job file: every encoder's weights in place (this one model under every name), then run --check
for k in san san-structpe ms-san sg-net psan ssan; do for s in 1 2 3; do
    [ -e $ROOT/synprobe-tvr/weights/$k-s$s ] || ln -s $W $ROOT/synprobe-tvr/weights/$k-s$s
done; done
$SP run --check $ROOT/contrib/jobs/trained-vs-random.job.json >$TMP/check 2>&1 && rc=0 || rc=$?
check "run --check passes once the weights are in place" sh -c "[ $rc -eq 0 ] || { cat $TMP/check; false; }"
expect_eq "36 encoders (6 kinds x trained/random x 3 seeds) over the corpus and 3 tasks" "$(grep -c '^  encoders\[' $TMP/check)" 144
expect_eq "3 ingest steps (train, dev, test files)" "$(grep -c '^  corpora\[' $TMP/check)" 3
check "the comparisons: each trained kind vs the trained SAN, and vs its random init" \
    sh -c "grep -q \"compare 'san-structpe-trained-s\*','san-trained-s\*'\" $TMP/check && grep -q \"'psan-trained-s\*','psan-random-s\*'\" $TMP/check"
done_testing
