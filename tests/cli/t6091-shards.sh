# t6091-shards.sh — `run --shard K/N` + `merge` + `run` gives the one-machine result
# tier: full
# Issue 12 item 5: `synprobe run --shard K/N` + `synprobe merge` + `synprobe run` on the merged store
# gives the one-machine result (sentences, tokens, structures, vectors bit for bit, runs, tasks,
# probe and tree results); the split is the documented hash (checked with Python's hashlib); merge
# is idempotent and refuses shards that disagree; bad --shard values are usage errors.
. tests/cli/lib.sh
. tests/cli/shards.sh

# the one-machine run
mkjob $TMP/one
$SP run $TMP/one/job.json >$TMP/one.out 2>&1 && rc=0 || rc=$?
expect_eq "one machine: exit 0" "$rc" 0
ONE=$TMP/one/out/store.db

# three shards
mkjob $TMP/sh
$SP run --check --shard 0/3 $TMP/sh/job.json >$TMP/check0 2>&1 || true
for k in 0 1 2; do
    $SP run --shard $k/3 $TMP/sh/job.json >$TMP/shard$k.out 2>&1 && rc=0 || rc=$?
    expect_eq "shard $k/3: exit 0" "$rc" 0
done
expect_eq "a shard runs only ingest and encode (its step lines: no probe, tasks, trees, report step)" \
    "$(grep -cE '^\[[0-9]+/[0-9]+\] ' $TMP/shard0.out) $(grep -cE '^\[[0-9]+/[0-9]+\] (ingest|encode) ' $TMP/shard0.out)" \
    "$(grep -c ' synprobe ' $TMP/check0) $(grep -c ' synprobe ' $TMP/check0)"
check "the shard store is in the output folder, named after the job's store" test -s $TMP/sh/out/store.shard-1-of-3.db
expect_eq "shard stores hold no tasks, probe results or ledger rows" \
    "$(sqlite3 $TMP/sh/out/store.shard-0-of-3.db 'select (select count(*) from task) + (select count(*) from probe_result) + (select count(*) from job_step)')" 0

# the split: SHA-256("synprobe-shard-1\n" + file base name + "\n" + position), first 8 bytes big-endian, mod N
# (stages/ingest.h), recomputed here with hashlib over the one-machine store's sentences
sqlite3 $ONE "select doc || ' ' || position from sentence order by sentence_id" >$TMP/places
for k in 0 1 2; do
    want=$($PY -c '
import hashlib, sys
k = int(sys.argv[1])
for line in open(sys.argv[2]):
    doc, pos = line.split()
    h = hashlib.sha256(("synprobe-shard-1\n%s\n%s" % (doc, pos)).encode()).digest()
    if int.from_bytes(h[:8], "big") % 3 == k: print(doc, pos)' $k $TMP/places | sort)
    got=$(sqlite3 $TMP/sh/out/store.shard-$k-of-3.db "select doc || ' ' || position from sentence" | sort)
    expect_eq "shard $k/3 holds exactly the sentences whose hash is $k mod 3 ($(echo "$want" | grep -c .) of 32)" "$got" "$want"
done
n_all=$(for k in 0 1 2; do sqlite3 $TMP/sh/out/store.shard-$k-of-3.db 'select count(*) from sentence'; done | awk '{ s += $1 } END { print s }')
expect_eq "the shards together hold every sentence once" "$n_all" "$(sqlite3 $ONE 'select count(*) from sentence')"

# a shard's vectors are the one-machine run's, bit for bit, though their batches held other
# sentences (the CPU encoder is batch-invariant: stages/encode_batch.c, encoder/README.md)
dump_part $ONE vectors | sort >$TMP/onevec
for k in 0 1 2; do
    dump_part $TMP/sh/out/store.shard-$k-of-3.db vectors | sort >$TMP/shvec
    expect_eq "shard $k/3: its $(wc -l <$TMP/shvec) vectors are bit-identical to the one-machine run's (same encoder, input hash)" \
        "$(comm -23 $TMP/shvec $TMP/onevec | wc -l)" 0
done

# merge, then the rest of the job on the merged store
SH=$TMP/sh/out
$SP merge $SH/store.db $SH/store.shard-0-of-3.db $SH/store.shard-1-of-3.db $SH/store.shard-2-of-3.db >$TMP/merge.out 2>&1 && rc=0 || rc=$?
expect_eq "merge: exit 0" "$rc" 0
check "merge says it holds 3 of 3 shards" grep -q 'holds 3 of 3 shards: 32 sentences' $TMP/merge.out
expect_eq "merged store: integrity_check" "$(sqlite3 $SH/store.db 'pragma integrity_check')" ok
expect_eq "merged store = one machine: sentences, tokens, structures, sources, attention (before the rest)" \
    "$(for p in sentences tokens structures sources attention; do dump_part $SH/store.db $p | sha256sum; done)" \
    "$(for p in sentences tokens structures sources attention; do dump_part $ONE $p | sha256sum; done)"
# the one-machine store has more vectors: the task items that differ from every corpus sentence
# (SOMO), which the job's run on the merged store encodes
dump_part $SH/store.db vectors >$TMP/mvec; dump_part $ONE vectors >$TMP/ovec
expect_eq "... every merged vector is in the one-machine store, bit for bit ($(wc -l <$TMP/mvec) of $(wc -l <$TMP/ovec))" \
    "$(comm -23 $TMP/mvec $TMP/ovec | wc -l)" 0
$SP run $TMP/sh/job.json >$TMP/rest.out 2>&1 && rc=0 || rc=$?
expect_eq "the job on the merged store: exit 0" "$rc" 0
check "... ingest found every file there already" grep -q '2 files (2 unchanged), 0 sentences added' $TMP/rest.out
check "... the corpus runs were all cached (nothing encoded)" grep -q 'run san: 0 encoded, 32 cached' $TMP/rest.out
expect_eq "sharded = one machine in every part ($PARTS)" "$(same_parts $SH/store.db $ONE)" ""
expect_eq "... and 24 probe results, 3 tree evaluations" \
    "$(sqlite3 $SH/store.db 'select count(*) from probe_result') $(sqlite3 $SH/store.db 'select count(*) from tree_eval')" "24 3"
check "the reports are equal (times, commands and the job's folder aside)" $PY -c '
import json, sys
def norm(x, d):
    if isinstance(x, dict): return {k: norm(v, d) for k, v in x.items() if k not in ("timestamp", "created", "seconds", "command")}
    if isinstance(x, list): return [norm(v, d) for v in x]
    if isinstance(x, str): return x.replace(d, "JOB")
    return x
a = norm(json.load(open(sys.argv[1])), sys.argv[2]); b = norm(json.load(open(sys.argv[3])), sys.argv[4])
sys.exit(a != b)' $TMP/one/out/results.json $TMP/one $SH/results.json $TMP/sh

# idempotence: merging again changes nothing; one shard named twice is refused (exit 2, t6204)
sqlite3 $SH/store.db .dump >$TMP/dump1
$SP merge $SH/store.db $SH/store.shard-2-of-3.db $SH/store.shard-2-of-3.db $SH/store.shard-0-of-3.db >$TMP/merge2.out 2>&1 && rc=0 || rc=$?
expect_eq "a shard named twice: usage error (exit 2), named" "$rc $(grep -c 'store.shard-2-of-3.db is named twice' $TMP/merge2.out)" "2 1"
$SP merge $SH/store.db $SH/store.shard-2-of-3.db $SH/store.shard-0-of-3.db >$TMP/merge2.out 2>&1 && rc=0 || rc=$?
expect_eq "merging again: exit 0" "$rc" 0
check "... it says nothing was new" grep -q 'merged before, nothing new' $TMP/merge2.out
sqlite3 $SH/store.db .dump >$TMP/dump2
check "... the store is unchanged (sqlite3 .dump identical)" cmp -s $TMP/dump1 $TMP/dump2
$SP run $TMP/sh/job.json >$TMP/rest2.out 2>&1 && rc=0 || rc=$?
check "... and the job has nothing to do" grep -q 'nothing to do' $TMP/rest2.out

# incremental merge in another order (2, then 0 and 1) gives the same store
M2=$TMP/m2.db
$SP merge $M2 $SH/store.shard-2-of-3.db >/dev/null 2>$TMP/m2.err && rc=0 || rc=$?
expect_eq "merging shard 2 alone: exit 0" "$rc" 0
check "... with a note that 2 shards are missing" grep -q '2 of 3 shards are not merged yet' $TMP/m2.err
$SP merge $M2 $SH/store.shard-1-of-3.db $SH/store.shard-0-of-3.db >/dev/null 2>&1 && rc=0 || rc=$?
expect_eq "... then 1 and 0: sentences renumbered to the one-machine order" \
    "$rc $(for p in sentences tokens structures sources attention; do dump_part $M2 $p | sha256sum; done)" \
    "0 $(for p in sentences tokens structures sources attention; do dump_part $ONE $p | sha256sum; done)"

# 11 shards: more than one merge transaction (9 at a time), and shard 8 holds no sentence at all
# (its encode steps have nothing to do, which is no failure in a shard)
mkjob $TMP/eleven
rc=0
for k in 0 1 2 3 4 5 6 7 8 9 10; do $SP run --shard $k/11 $TMP/eleven/job.json >$TMP/eleven$k.out 2>&1 || rc=$?; done
expect_eq "11 shards: exit 0 each" "$rc" 0
expect_eq "... shard 8 is empty (by the hash: no position 1..32 of 'demo' maps to 8)" \
    "$(sqlite3 $TMP/eleven/out/store.shard-8-of-11.db 'select count(*) from sentence')" 0
$SP merge $TMP/eleven/out/store.db $TMP/eleven/out/store.shard-*-of-11.db >$TMP/eleven.out 2>&1 && rc=0 || rc=$?
expect_eq "... merged in two transactions: exit 0" "$rc" 0
check "... the empty shard is reported as such" grep -q 'shard 8/11 .*: an empty shard' $TMP/eleven.out
$SP run $TMP/eleven/job.json >/dev/null 2>&1 && rc=0 || rc=$?
expect_eq "... the rest: exit 0; the result is the one-machine run's in every part" \
    "$rc $(same_parts $TMP/eleven/out/store.db $ONE)" "0 "

# refusals: nothing written
refuse() {  # DESC PATTERN TARGET SHARD...: merge exits 1, says PATTERN, and the target is unchanged
    d=$1; pat=$2; t=$3; shift 3
    before=$(test -f $t && sqlite3 $t .dump | sha256sum || echo none)
    $SP merge $t "$@" >$TMP/ref.out 2>&1 && rc=0 || rc=$?
    after=$(test -f $t && sqlite3 $t .dump | sha256sum || echo none)
    if [ "$rc" = 1 ] && grep -q "$pat" $TMP/ref.out && [ "$before" = "$after" ]; then ok "$d"
    else not_ok "$d (exit $rc, target $( [ "$before" = "$after" ] && echo unchanged || echo changed)): $(cat $TMP/ref.out)"; fi
}
# another encoder config (a different seed: another fingerprint) in shard 1
mkjob $TMP/enc
sed -i 's/"seed": *[0-9]*/"seed": 77/' $TMP/enc/san.json
grep -q '"seed": 77' $TMP/enc/san.json || sed -i 's/^{/{"seed": 77,/' $TMP/enc/san.json
$SP run --shard 1/3 $TMP/enc/job.json >/dev/null 2>&1
refuse "merge refuses shards whose encoder fingerprints differ, naming both stores" \
    "store.shard-0-of-3.db and .*enc/out/store.shard-1-of-3.db disagree on the encoders' fingerprints" \
    $TMP/new1.db $SH/store.shard-0-of-3.db $TMP/enc/out/store.shard-1-of-3.db
check "... and leaves no target store behind" test ! -e $TMP/new1.db
refuse "... also into a merged store (the target against the shard)" "disagree on the encoders' fingerprints" \
    $M2 $TMP/enc/out/store.shard-1-of-3.db
# other corpus contents: one word changed in demo.conllu
mkjob $TMP/cor
awk 'BEGIN{d=0} /^1\t/ && !d {sub(/\t[^\t]*\t/, "\tChanged\t"); d=1} {print}' demo/demo.conllu >$TMP/cor/demo.conllu
$SP run --shard 1/3 $TMP/cor/job.json >/dev/null 2>&1
refuse "merge refuses shards whose corpus contents differ, naming the file" \
    "disagree on the corpus contents: corpus 'demo', file 'demo' (conllu" \
    $TMP/new2.db $SH/store.shard-0-of-3.db $TMP/cor/out/store.shard-1-of-3.db
refuse "merge refuses a store that is no shard" "is no shard store" $TMP/new3.db $ONE
refuse "merge refuses a shard as the target" "is shard 0/3 itself" $SH/store.shard-0-of-3.db $SH/store.shard-1-of-3.db
mkjob $TMP/two
$SP run --shard 0/2 $TMP/two/job.json >/dev/null 2>&1
refuse "merge refuses shards of another N" "the shards of one merge split the job the same way" \
    $TMP/new4.db $SH/store.shard-1-of-3.db $TMP/two/out/store.shard-0-of-2.db
refuse "merge refuses a shard of another N into a merged store" "holds shards of 3" $M2 $TMP/two/out/store.shard-0-of-2.db
# new sentences into a store whose tasks and runs were made from fewer shards (run and every
# writing stage refuse such a store now, t6126: the task row is made by hand, as a store from an
# older synprobe may hold one)
M3=$TMP/m3/out/store.db
mkjob $TMP/m3
mkdir -p $TMP/m3/out
$SP merge $M3 $SH/store.shard-0-of-3.db $SH/store.shard-1-of-3.db >/dev/null 2>&1
$SP run $TMP/m3/job.json >/dev/null 2>&1 && rc=0 || rc=$?
expect_eq "run on a store holding 2 of 3 shards: exit 1 (t126 has the details)" "$rc" 1
sqlite3 $M3 "insert into task (name, kind) values ('Tense', 'Tense')"
refuse "merge refuses new sentences into a store that has tasks and runs" "merge every shard before the job's later steps" \
    $M3 $SH/store.shard-2-of-3.db
refuse "merge refuses a missing shard file" "cannot open store" $TMP/new5.db $TMP/nope.db
check "... and leaves no target store behind" test ! -e $TMP/new5.db
$SP merge $TMP/x.db >/dev/null 2>&1 && rc=0 || rc=$?
expect_eq "merge without shards: usage error (exit 2)" "$rc" 2

# a store that is already another shard, or holds sentences, is refused as a shard's store
$SP run --shard 2/3 $TMP/two/job.json >/dev/null 2>$TMP/wrong.err && rc=0 || rc=$?
expect_eq "run --shard 2/3 where 0/2's store is: its store name differs, exit 0" "$rc" 0
cp $TMP/two/out/store.shard-0-of-2.db $TMP/two/out/store.shard-1-of-2.db
$SP run --shard 1/2 $TMP/two/job.json >/dev/null 2>$TMP/wrong.err && rc=0 || rc=$?
expect_eq "run --shard 1/2 into a store that is shard 0/2: exit 1" "$rc" 1
check "... saying so" grep -q 'is shard 0/2 of its job, not 1/2' $TMP/wrong.err

# bad --shard values: usage errors, nothing written
for v in 3/3 -1/3 a/b 1/0 1 0/3x /3 2/ 0/10001; do
    mkdir -p $TMP/bad; cp -r $TMP/two/job.json demo/demo.conllu demo/demo.mrg encoder/configs/san.json encoder/configs/ms-san.json $TMP/bad/
    $SP run --shard "$v" $TMP/bad/job.json >/dev/null 2>$TMP/bad.err && rc=0 || rc=$?
    if [ "$rc" = 2 ] && grep -q "expected K/N with 0 <= K < N" $TMP/bad.err && [ ! -e $TMP/bad/out ]; then ok "--shard $v: usage error, nothing written"
    else not_ok "--shard $v: exit $rc, $(cat $TMP/bad.err)"; fi
done

# the Slurm scripts, run here without Slurm (the array task's variables set by hand): the same result
mkjob $TMP/scr
$SP slurm $TMP/scr/job.json --shards 3 --gpus 1 --partition gpu --time 1:00:00 >$TMP/slurm.out 2>&1 && rc=0 || rc=$?
expect_eq "synprobe slurm: exit 0" "$rc" 0
S=$TMP/scr/out/slurm
check "it wrote shards.sbatch, final.sbatch and submit.sh, valid sh" sh -n $S/shards.sbatch
check "... final.sbatch and submit.sh are valid sh too" sh -c "sh -n $S/final.sbatch && sh -n $S/submit.sh"
expect_eq "shards.sbatch asks for the array, requeue, the signal, the GPU" \
    "$(grep '^#SBATCH' $S/shards.sbatch | cut -d' ' -f2 | sort | paste -sd' ' -)" \
    "--array=0-2 --gres=gpu:1 --open-mode=append --requeue --signal=B:USR1@60"
want_a="sbatch --parsable --job-name='synprobe-job' --output=\"\$dir/logs/shard-%a.out\" --partition='gpu' --time='1:00:00' \"\$dir/shards.sbatch\""
want_f="sbatch --parsable --job-name='synprobe-job' --output=\"\$dir/logs/final.out\" --partition='gpu' --time='1:00:00' --dependency=afterok:\$array \"\$dir/final.sbatch\""
check "submit.sh gives both jobs the name, log file, partition and time; the final job depends on the array (afterok)" \
    sh -c 'grep -qF -- "$1" "$3" && grep -qF -- "$2" "$3"' sh "$want_a" "$want_f" $S/submit.sh
check "final.sbatch merges the 3 shard stores (listed in shards.list) into the job's store, then runs the job" sh -c "
    grep -q \"merge '$TMP/scr/out/store.db' --from-list '\$(cd $S && pwd)/shards.list'\" $S/final.sbatch &&
    grep -c 'store.shard-[012]-of-3.db\$' $S/shards.list | grep -qx 3 &&
    grep -q '^run \"\$SYNPROBE\" run \"\$JOB\"' $S/final.sbatch && ! grep -q '^#SBATCH.*gres' $S/final.sbatch"
for k in 0 1 2; do
    (cd /tmp && SLURM_ARRAY_TASK_ID=$k SLURM_ARRAY_JOB_ID=1 sh $S/shards.sbatch) >$TMP/task$k.out 2>&1 || rc=$?
done
(cd /tmp && SLURM_JOB_ID=2 sh $S/final.sbatch) >$TMP/final.out 2>&1 || rc=$?
expect_eq "the scripts run by hand: exit 0" "$rc" 0
expect_eq "... the result is the one-machine run's in every part" "$(same_parts $TMP/scr/out/store.db $ONE)" ""
$SP slurm $TMP/scr/job.json >/dev/null 2>&1 && rc=0 || rc=$?
expect_eq "synprobe slurm without --shards: usage error" "$rc" 2
$SP slurm $TMP/scr/job.json --shards 0 >/dev/null 2>&1 && rc=0 || rc=$?
expect_eq "synprobe slurm --shards 0: usage error" "$rc" 2
$SP slurm $TMP/nojob.json --shards 2 >/dev/null 2>$TMP/nojob.err && rc=0 || rc=$?
expect_eq "synprobe slurm on a missing job file: exit 1" "$rc" 1

# a real treebank: UD EWT dev, encoded as a corpus and through a task drawn from it, in 2 shards
EWT=$DATA/ud-ewt/en_ewt-ud-dev.conllu
if [ -f "$EWT" ]; then
    for d in ewt1 ewt2; do
        mkdir -p $TMP/$d; cp encoder/configs/san.json $TMP/$d/
        cat >$TMP/$d/job.json <<J
{"store": "out/ewt.db", "out": "out",
 "corpora": [{"name": "ewt", "paths": ["$(cd "$(dirname $EWT)" && pwd)/en_ewt-ud-dev.conllu"]}],
 "tasks": [{"tasks": ["Tense", "BShift"], "split": "resplit"}],
 "encoders": [{"config": "san.json", "inputs": ["ewt", "Tense", "BShift"]}],
 "probes": [{}]}
J
    done
    $SP run $TMP/ewt1/job.json >/dev/null 2>&1 && rc=0 || rc=$?
    for k in 0 1; do $SP run --shard $k/2 $TMP/ewt2/job.json >/dev/null 2>&1 || rc=$?; done
    $SP merge $TMP/ewt2/out/ewt.db $TMP/ewt2/out/ewt.shard-0-of-2.db $TMP/ewt2/out/ewt.shard-1-of-2.db >$TMP/ewt-merge.out 2>&1 || rc=$?
    $SP run $TMP/ewt2/job.json >$TMP/ewt-rest.out 2>&1 || rc=$?
    expect_eq "EWT dev: one machine, 2 shards, merge, the rest: exit 0" "$rc" 0
    check "... the rest encoded no corpus sentence and no Tense item (cached by the shards)" \
        grep -q 'run san: 0 encoded, 2001 cached' $TMP/ewt-rest.out
    check "... Tense: every item cached" grep -Eq 'run san-Tense: 0 encoded, [0-9]+ cached' $TMP/ewt-rest.out
    expect_eq "EWT dev: sharded = one machine in every part" "$(same_parts $TMP/ewt2/out/ewt.db $TMP/ewt1/out/ewt.db)" ""
else
    skip "real-data shards: $EWT absent"
fi

# stopped by SIGTERM inside a shard, then resumed: the same shard store
mkjob $TMP/kill
$SP run --shard 1/3 $TMP/kill/job.json >$TMP/kill.out 2>&1 &
pid=$!
i=0
while [ $i -lt 600 ] && ! grep -q 'synprobe encode' $TMP/kill.out 2>/dev/null; do sleep 0.02; i=$((i+1)); done
kill -TERM $pid 2>/dev/null || true
wait $pid && rc=0 || rc=$?
if [ "$rc" = 143 ]; then ok "SIGTERM inside a shard: exit 143"; else skip "the shard finished (exit $rc) before SIGTERM arrived"; fi
$SP run --shard 1/3 $TMP/kill/job.json >/dev/null 2>&1 && rc=0 || rc=$?
expect_eq "... resumed: exit 0, the same sentences and vectors as the uninterrupted shard" \
    "$rc $(for p in sentences vectors attention; do dump_part $TMP/kill/out/store.shard-1-of-3.db $p | sha256sum; done)" \
    "0 $(for p in sentences vectors attention; do dump_part $SH/store.shard-1-of-3.db $p | sha256sum; done)"
done_testing
