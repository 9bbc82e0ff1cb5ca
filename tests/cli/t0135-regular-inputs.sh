# t0135-regular-inputs.sh — every file a user names as an input must be a regular file (issue 22 item 7)
# tier: fast
# A device (/dev/zero reads forever), a FIFO nobody writes to (an open or read that never returns)
# and a directory, named as weights, an encoder config, embeddings, a job file, a task file, .npy
# vectors or gold trees, are refused at once: exit 1, a message naming the file and what it is.
# Every command runs under `timeout -k 5 20`, so a build that hangs fails (exit 124) instead of
# hanging the suite. Ingest still streams from a FIFO (docs/guarantees.md, "Inputs, read once").
. tests/cli/lib.sh
T="timeout -k 5 20"
cp demo/demo.conllu encoder/configs/san.json $TMP/
$SP ingest --db $TMP/s.db --corpus demo $TMP/demo.conllu >/dev/null 2>&1
mkfifo $TMP/fifo                  # nobody ever writes to it
mkdir $TMP/dir

# refuse NAME EXPECTED-MESSAGE CMD...: exit 1 and the message on stderr
refuse() {
    name=$1; want=$2; shift 2
    rc=0; "$@" >$TMP/out 2>$TMP/err || rc=$?
    expect_eq "$name: exit 1" "$rc" 1
    if grep -qF -- "$want" $TMP/err; then ok "$name: says '$want'"
    else not_ok "$name: says '$want'"; sed 's/^/# /' $TMP/err | head -5; fi
}
ENC="$SP encode --db $TMP/s.db --corpus demo --encoder $TMP/san.json --run r"
refuse "encode --weights /dev/zero" "/dev/zero: is a character device; expected a regular file" $T $ENC --weights /dev/zero
refuse "encode --weights FIFO" "$TMP/fifo: is a FIFO (named pipe); expected a regular file" $T $ENC --weights $TMP/fifo
refuse "encode --weights DIR" "$TMP/dir: is a directory; expected a regular file" $T $ENC --weights $TMP/dir
refuse "encode --encoder /dev/zero" "/dev/zero: is a character device" \
    $T $SP encode --db $TMP/s.db --corpus demo --encoder /dev/zero --run r
refuse "encode --encoder FIFO" "$TMP/fifo: is a FIFO" $T $SP encode --db $TMP/s.db --corpus demo --encoder $TMP/fifo --run r
refuse "encode --embeddings FIFO" "$TMP/fifo: is a FIFO" $T $ENC --embeddings $TMP/fifo
refuse "encode --embeddings /dev/zero" "/dev/zero: is a character device" $T $ENC --embeddings /dev/zero
# a bert model folder whose config.json is a FIFO
mkdir $TMP/mdir
mkfifo $TMP/mdir/config.json
: >$TMP/mdir/model.safetensors; : >$TMP/mdir/vocab.txt
echo '{"kind": "bert", "model": "mdir"}' >$TMP/bert.json
refuse "encode: a model's config.json is a FIFO" "$TMP/mdir/config.json: is a FIFO" \
    $T $SP encode --db $TMP/s.db --corpus demo --encoder $TMP/bert.json --run b
expect_eq "nothing was encoded" "$(sqlite3 $TMP/s.db 'select count(*) from run')" 0

# a job: weights from /dev/zero fail the encode step, named by its JSON path
mkdir $TMP/j
cp demo/demo.conllu encoder/configs/san.json $TMP/j/
cat >$TMP/j/job.json <<'J'
{"store": "s.db", "corpora": [{"name": "demo", "paths": ["demo.conllu"]}],
 "encoders": [{"config": "san.json", "inputs": ["demo"], "weights": "/dev/zero"}]}
J
refuse "run: a job's \"weights\": \"/dev/zero\"" "/dev/zero: is a character device; expected a regular file" $T $SP run $TMP/j/job.json
check "... the failure names the step" grep -q "encoders\[0\]" $TMP/out
refuse "run FIFO (the job file)" "$TMP/fifo: is a FIFO (named pipe); expected a regular file (the job file)" $T $SP run $TMP/fifo
refuse "submit DIR (the job file)" "$TMP/dir: is a directory; expected a regular file (the job file)" \
    $T $SP submit --db $TMP/q.db $TMP/dir

# task files, vectors, gold trees
refuse "tasks import /dev/zero" "/dev/zero: is a character device" $T $SP tasks import --db $TMP/s.db --name T /dev/zero
printf 'tr\tPRES\tThe dog runs .\n' >$TMP/task.txt
refuse "probe --task-file FIFO" "$TMP/fifo: is a FIFO" $T $SP probe --task-file $TMP/fifo --vectors $TMP/v.npy
refuse "probe --vectors FIFO" "$TMP/fifo: is a FIFO" $T $SP probe --task-file $TMP/task.txt --vectors $TMP/fifo
refuse "evalb GOLD=/dev/zero" "/dev/zero: is a character device; expected a regular file (the gold file)" \
    $T $SP evalb /dev/zero tests/data/evalb/good2.gld
refuse "evalb TEST=DIR" "$TMP/dir: is a directory; expected a regular file (the test file)" \
    $T $SP evalb tests/data/evalb/good2.gld $TMP/dir

# ingest: a device is refused, a FIFO is still read as a stream
refuse "ingest /dev/zero" "/dev/zero: is a character device; expected a regular file, a FIFO or a pipe" \
    $T $SP ingest --db $TMP/s.db --corpus z /dev/zero
mkfifo $TMP/stream.conllu
cat demo/demo.conllu >$TMP/stream.conllu &
rc=0; $T $SP ingest --db $TMP/s.db --corpus streamed $TMP/stream.conllu >/dev/null 2>$TMP/err || rc=$?
expect_eq "ingest from a FIFO: exit 0" "$rc" 0
expect_eq "... its sentences are stored" "$(sqlite3 $TMP/s.db "select count(*) from sentence s join corpus c using (corpus_id) where c.name = 'streamed'")" \
    "$(sqlite3 $TMP/s.db "select count(*) from sentence s join corpus c using (corpus_id) where c.name = 'demo'")"
done_testing
