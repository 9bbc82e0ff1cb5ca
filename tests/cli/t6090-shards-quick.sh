# t6090-shards-quick.sh — `run --shard`, `merge` and `slurm` on an ingest-only job, in seconds
# tier: fast
# The fast tier's share of t6091-shards.sh (full tier: the t6087 job with encoders, probes and trees,
# 3 and 11 shards, every refusal): two shards of a job that only ingests the demo corpus, split by
# the documented hash (recomputed with Python's hashlib), merged into a store equal to a
# one-machine run in every part; a second merge adds nothing; usage errors; `synprobe slurm`
# writes valid scripts for the array.
. tests/cli/lib.sh
. tests/cli/shards.sh
job() {  # folder: the demo corpus and a job that only ingests it
    mkdir -p $1; cp demo/demo.conllu demo/demo.mrg $1/
    echo '{"store": "out/store.db", "out": "out",
 "corpora": [{"name": "demo", "paths": ["demo.conllu", "demo.mrg"], "strict": true}]}' >$1/job.json
}
job $TMP/one
rc=0; $SP run --quiet $TMP/one/job.json >$TMP/one.out 2>&1 || rc=$?
expect_eq "one machine: exit 0" "$rc" 0
ONE=$TMP/one/out/store.db

job $TMP/sh
SH=$TMP/sh/out
for k in 0 1; do
    rc=0; $SP run --quiet --shard $k/2 $TMP/sh/job.json >$TMP/shard$k.out 2>&1 || rc=$?
    expect_eq "shard $k/2: exit 0" "$rc" 0
done
# SHA-256("synprobe-shard-1\n" + file base name + "\n" + position), first 8 bytes big-endian, mod N
sqlite3 $ONE "select doc || ' ' || position from sentence order by sentence_id" >$TMP/places
for k in 0 1; do
    want=$($PY -c '
import hashlib, sys
k = int(sys.argv[1])
for line in open(sys.argv[2]):
    doc, pos = line.split()
    h = hashlib.sha256(("synprobe-shard-1\n%s\n%s" % (doc, pos)).encode()).digest()
    if int.from_bytes(h[:8], "big") % 2 == k: print(doc, pos)' $k $TMP/places | sort)
    got=$(sqlite3 $SH/store.shard-$k-of-2.db "select doc || ' ' || position from sentence" | sort)
    expect_eq "shard $k/2 holds exactly the sentences whose hash is $k mod 2" "$got" "$want"
done

rc=0; $SP merge $SH/store.db $SH/store.shard-0-of-2.db $SH/store.shard-1-of-2.db >$TMP/merge.out 2>&1 || rc=$?
expect_eq "merge: exit 0" "$rc" 0
check "merge says it holds 2 of 2 shards: the demo's 32 sentences" grep -q 'holds 2 of 2 shards: 32 sentences' $TMP/merge.out
expect_eq "merged store: integrity_check" "$(sqlite3 $SH/store.db 'pragma integrity_check')" ok
expect_eq "merged = one machine in every part" "$(same_parts $SH/store.db $ONE)" ""
rc=0; $SP run $TMP/sh/job.json >$TMP/rest.out 2>&1 || rc=$?
expect_eq "the job on the merged store: exit 0, nothing to do" "$rc $(grep -c 'nothing to do' $TMP/rest.out)" "0 1"
sqlite3 $SH/store.db .dump >$TMP/dump1
rc=0; $SP merge $SH/store.db $SH/store.shard-1-of-2.db >$TMP/merge2.out 2>&1 || rc=$?
expect_eq "merging a shard again: exit 0, says nothing was new" "$rc $(grep -c 'merged before, nothing new' $TMP/merge2.out)" "0 1"
sqlite3 $SH/store.db .dump >$TMP/dump2
check "... the store is unchanged (sqlite3 .dump identical)" cmp -s $TMP/dump1 $TMP/dump2

rc=0; $SP merge $TMP/x.db >/dev/null 2>&1 || rc=$?
expect_eq "merge without shards: usage error (exit 2)" "$rc" 2
job $TMP/bad
rc=0; $SP run --shard 2/2 $TMP/bad/job.json >/dev/null 2>$TMP/bad.err || rc=$?
expect_eq "--shard 2/2: usage error, says what it expected, nothing written" \
    "$rc $(grep -c 'expected K/N with 0 <= K < N' $TMP/bad.err) $(test -e $TMP/bad/out && echo out)" "2 1 "

job $TMP/scr
rc=0; $SP slurm $TMP/scr/job.json --shards 2 --time 0:10:00 >$TMP/slurm.out 2>&1 || rc=$?
expect_eq "synprobe slurm: exit 0" "$rc" 0
S=$TMP/scr/out/slurm
check "it wrote shards.sbatch, final.sbatch and submit.sh, each valid sh" \
    sh -c "sh -n $S/shards.sbatch && sh -n $S/final.sbatch && sh -n $S/submit.sh"
check "shards.sbatch asks for the array 0-1" grep -q '^#SBATCH --array=0-1$' $S/shards.sbatch
# a comment block with no word line is skipped and reported once, by shard 0: every shard reads
# the whole file, so the shards' reports add up to one machine's
mkdir -p $TMP/cm; { printf '# a comment with no sentence\n\n'; cat demo/demo.conllu; } >$TMP/cm/c.conllu
echo '{"store": "out/store.db", "out": "out", "corpora": [{"name": "c", "paths": ["c.conllu"]}]}' >$TMP/cm/job.json
for k in 0 1; do
    $SP run --verbose --shard $k/2 $TMP/cm/job.json >$TMP/cm$k.out 2>&1 || true   # the reader's lines: --verbose
    n=$(grep -c "comment line with no word line after it skipped" $TMP/cm$k.out || true)
    expect_eq "shard $k/2 reports the skipped comment line $((1 - k)) time(s)" "$n" $((1 - k))
done
done_testing
