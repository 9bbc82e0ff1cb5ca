# t0062-encode-concurrent.sh — encode beside other writers does not fail with "database is locked"
# tier: fast
# Encode beside other writers (issue 10, item 12): encode used to hold its corpus read cursor
# across the BEGIN IMMEDIATE of each batch, so SQLite could not apply the busy timeout and the
# encode failed at once with "database is locked" whenever another process had committed since
# the cursor opened. Here an ingest loop commits file after file while encodes run, first one at
# a time, then two at once: every encode and every ingest must succeed, with all items stored.
# Everything is bounded by timeouts (a hang fails, it does not stall the suite).
. tests/cli/lib.sh
need_data
DB=$TMP/s.db
N=$(grep -c '^$' $DATA/ud-ewt/en_ewt-ud-dev.conllu)
$SP ingest --db $DB --corpus ewt --quiet $DATA/ud-ewt/en_ewt-ud-dev.conllu >/dev/null
cfg() { printf '{"kind": "san", "d_model": 64, "heads": 2, "layers": 2, "d_ff": 128, "norm": "pre", "activation": "relu", "ln_eps": 1e-6, "position": "seq", "seed": %s}\n' $1 >$TMP/enc$1.json; }

# the committing neighbour: one ingest process per PTB file, each its own commit, until told to stop
: >$TMP/ingest.rc
( for f in $DATA/ptb-sample/combined/wsj_0*.mrg; do
      [ -e $TMP/stop ] && break
      rc=0; timeout 60 $SP ingest --db $DB --corpus ptb --quiet $f >/dev/null 2>>$TMP/ingest.err || rc=$?
      echo $rc >>$TMP/ingest.rc
  done ) & LOOP=$!

enc() {   # enc SEED: encode the corpus with a fresh encoder (nothing cached), items must be N
    cfg $1
    rc=0; timeout 120 $SP encode --db $DB --corpus ewt --encoder $TMP/enc$1.json --run r$1 --device cpu --quiet --json \
        >$TMP/out$1 2>$TMP/err$1 || rc=$?
    echo $rc >$TMP/rc$1
}
sleep 0.3
for s in 1 2 3; do enc $s; done
enc 4 & E4=$!; enc 5 & E5=$!; wait $E4 $E5
n_commits=$(wc -l <$TMP/ingest.rc)
touch $TMP/stop
wait $LOOP
for s in 1 2 3 4 5; do
    expect_eq "encode $s beside committing ingests: exit 0$(head -c 200 $TMP/err$s | tr '\n' ' ')" "$(cat $TMP/rc$s)" 0
    expect_eq "encode $s: all $N sentences are items of its run" \
        "$(sqlite3 $DB "select count(*) from run_item i join run r using (run_id) where r.name = 'r$s'")" "$N"
done
check "ingests committed while the encodes ran ($n_commits)" [ "$n_commits" -ge 3 ]
expect_eq "every ingest beside the encodes succeeded$(head -c 200 $TMP/ingest.err | tr '\n' ' ')" "$(sort -u $TMP/ingest.rc | tr '\n' ' ')" "0 "
done_testing
