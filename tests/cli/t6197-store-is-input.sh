# t6197-store-is-input.sh — a store that is one of the inputs is refused before anything is written (issue 40, item 4)
# tier: fast
# `ingest --db X X`, a job whose "store" is a corpus file or the job file, and a Slurm shard's
# store named like an input passed the checks and failed late, leaving X.run.lock beside the input;
# an empty input became a SQLite database. Now: exit 2 naming the store and the input, the input
# byte-identical, no -wal, -shm, -journal or .run.lock beside it, for every way of naming the
# same file (./X, a/../X, a symlink, a hard link) and for a store whose side file is an input.
. tests/cli/lib.sh
$SP demo --out $TMP/d --ingest-only >/dev/null 2>&1
cd $TMP
mkdir a
cp d/corpus/demo.conllu tb.conllu
cp d/corpus/demo.mrg tb.mrg
: >empty.conllu
ln -s tb.conllu link.db
ln tb.mrg hard.db
sum() { sha256sum tb.conllu tb.mrg empty.conllu; }
orig=$(sum)
listing() { find . ! -name out ! -name err | sort; }
before=$(listing)

# refused DESC INPUT ARGS...: exit 2, the message names the store and INPUT, nothing written
refused() {
    what=$1 in=$2; shift 2
    rc=0; $SP "$@" >out 2>err || rc=$?
    expect_eq "$what: exit 2" "$rc" 2
    check "$what: the message says the store is the input $in" grep -q "the same file as input.* $in; a store and its side files are written" err
    expect_eq "$what: nothing written, the inputs byte-identical" "$(listing) $(sum)" "$before $orig"
}
refused "ingest --db tb.conllu tb.conllu" tb.conllu ingest --db tb.conllu tb.conllu
refused "ingest --db ./tb.conllu tb.conllu" tb.conllu ingest --db ./tb.conllu tb.conllu
refused "ingest --db a/../tb.mrg tb.mrg" tb.mrg ingest --db a/../tb.mrg tb.mrg
refused "ingest --db LINK (-> tb.conllu) tb.conllu" tb.conllu ingest --db link.db tb.conllu
refused "ingest --db HARDLINK (of tb.mrg) tb.mrg" tb.mrg ingest --db hard.db tb.mrg
refused "ingest --db $TMP/empty.conllu empty.conllu (absolute)" empty.conllu ingest --db $TMP/empty.conllu empty.conllu
check "... the empty input is still empty (no SQLite database)" test ! -s empty.conllu
cp tb.conllu s.db.run.lock
before=$(listing)
refused "ingest --db s.db s.db.run.lock (the store's lock file an input)" s.db.run.lock ingest --db s.db s.db.run.lock
rm s.db.run.lock
before=$(listing)
refused "tasks build --db tb.conllu --corpus-files tb.conllu" tb.conllu tasks build --db tb.conllu --corpus-files tb.conllu

# jobs: run --check and run
mkdir j
cp tb.conllu tb.mrg j/
: >j/void.conllu
ln -s tb.conllu j/sym.db
job() { printf '{"store": "%s", "corpora": [{"name": "c", "paths": ["tb.conllu", "void.conllu"]}, {"name": "m", "paths": ["tb.mrg"]}]}\n' "$1" >j/job.json; }
jsum() { sha256sum j/tb.conllu j/tb.mrg j/void.conllu j/job.json; }
for st in tb.conllu ./tb.mrg sub/../void.conllu sym.db job.json; do
    job "$st"
    before=$(listing)
    jorig=$(jsum)
    for how in "run --check" "run"; do
        rc=0; $SP $how j/job.json >out 2>err || rc=$?
        expect_eq "job \"store\": \"$st\": $how: exit 2" "$rc" 2
        check "job \"store\": \"$st\": $how: names the job, the store and the input" \
            sh -c "grep -q '^synprobe run: j/job.json: the store j/$st: the same file as ' err"
    done
    expect_eq "job \"store\": \"$st\": nothing written, the inputs byte-identical" "$(listing) $(jsum)" "$before $jorig"
done
check "the empty corpus file is still empty" test ! -s j/void.conllu

# a shard's store named like an input: run --shard and slurm
mkdir -p k/o
cp tb.conllu k/o/s.shard-1-of-3.db
printf '{"store": "s.db", "out": "o", "corpora": [{"name": "c", "paths": ["o/s.shard-1-of-3.db"], "format": "conllu"}]}\n' >k/job.json
before=$(listing)
ksum=$(sha256sum k/o/s.shard-1-of-3.db)
for how in "run --check --shard 1/3" "run --shard 1/3" "slurm --shards 3"; do
    rc=0; $SP $how k/job.json >out 2>err || rc=$?
    expect_eq "a shard's store = a corpus file: $how: exit 2" "$rc" 2
    check "... $how: names the shard's store and the input" \
        grep -q "s.shard-1-of-3.db: the same file as input corpora\[0\].paths k/o/s.shard-1-of-3.db" err
done
expect_eq "... nothing written, the input byte-identical" "$(listing) $(sha256sum k/o/s.shard-1-of-3.db)" "$before $ksum"
rc=0; $SP run --check --shard 0/3 k/job.json >out 2>err || rc=$?
expect_eq "... shard 0/3 (another store): run --check accepts it" "$rc" 0
rc=0; $SP slurm --shards 4 --out k/sl k/job.json >out 2>err || rc=$?
expect_eq "... slurm --shards 4 (no shard store is the input): exit 0" "$rc" 0
done_testing
