# t0061-concurrent-create.sh — two ingests creating the same new store at once both succeed
# tier: fast
# Two ingests creating the same new store, started together (issue 10, item 11): both succeed,
# every file is in the store once, and the store is whole. Before the fix each read the store's
# version before taking the write lock and the second failed with "table corpus already exists".
# Repeated a few times (the race is about which one reaches the lock first); each pair is bounded
# by a timeout so a hang fails rather than stalls the suite.
. tests/cli/lib.sh
need_data
A=$DATA/ptb-sample/combined/wsj_0001.mrg
B=$DATA/ptb-sample/combined/wsj_0002.mrg
ROUNDS=${ROUNDS:-6}
bad=0
for r in $(seq 1 $ROUNDS); do
    DB=$TMP/new$r.db
    rc1=0; rc2=0
    timeout 60 $SP ingest --db $DB --corpus c --quiet $A >$TMP/o1 2>$TMP/e1 & p1=$!
    timeout 60 $SP ingest --db $DB --corpus c --quiet $B >$TMP/o2 2>$TMP/e2 & p2=$!
    wait $p1 || rc1=$?
    wait $p2 || rc2=$?
    if [ "$rc1:$rc2" != 0:0 ]; then
        bad=$((bad+1))
        echo "# round $r: exits $rc1 $rc2: $(cat $TMP/e1 $TMP/e2 | tr '\n' ' ')"
        continue
    fi
    n=$(sqlite3 $DB "select count(*) from source; select count(*) from corpus; pragma integrity_check" | tr '\n' ' ')
    if [ "$n" != "2 1 ok " ]; then bad=$((bad+1)); echo "# round $r: sources, corpora, integrity: $n"; fi
done
expect_eq "$ROUNDS pairs of ingests creating one new store: all succeed, both files stored once" "$bad" 0
# the same file from both: one ingests it, the other finds it there (unchanged); stored once
bad=0
for r in $(seq 1 $ROUNDS); do
    DB=$TMP/same$r.db
    rc1=0; rc2=0
    timeout 60 $SP ingest --db $DB --corpus c --quiet $A >$TMP/o1 2>$TMP/e1 & p1=$!
    timeout 60 $SP ingest --db $DB --corpus c --quiet $A >$TMP/o2 2>$TMP/e2 & p2=$!
    wait $p1 || rc1=$?
    wait $p2 || rc2=$?
    n=$(sqlite3 $DB "select count(*) from source; select count(*) from sentence" | tr '\n' ' ')
    both=$(cat $TMP/o1 $TMP/o2 | grep -c '1 files (1 ingested' || true)
    if [ "$rc1:$rc2:$n:$both" != "0:0:1 2 :1" ]; then
        bad=$((bad+1)); echo "# same file, round $r: exits $rc1 $rc2, store '$n', ingested by $both: $(cat $TMP/e1 $TMP/e2 | tr '\n' ' ')"
    fi
done
expect_eq "$ROUNDS pairs ingesting the same file into one new store: it is stored once, both exit 0" "$bad" 0
# a store both made is an ordinary store
expect_eq "the last one reads back: one corpus, 2 files, 2+1 sentences" \
    "$($SP info --db $TMP/new$ROUNDS.db --json | $PY -c 'import json,sys; d=json.load(sys.stdin); print(len(d), d[0]["files"], d[0]["sentences"])' 2>/dev/null || echo '?')" "1 2 3"
done_testing
