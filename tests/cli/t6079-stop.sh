# t6079-stop.sh — a stage stops at its next safe point on SIGTERM / SIGINT and keeps what it committed
# tier: fast
# Issue 11: a stage stops at its next safe point when asked (SIGTERM, SIGINT): exit 143 / 130,
# says it stopped, keeps every file committed before, keeps nothing of the file it was in.
. tests/cli/lib.sh
need_data
EWT=$DATA/ud-ewt/en_ewt-ud-dev.conllu
G=tests/data/malformed/headrange.conllu

for sig in TERM INT; do
    want=$([ $sig = TERM ] && echo 143 || echo 130)
    rm -f $TMP/s.db* $TMP/fifo; mkfifo $TMP/fifo
    # an endless stream: reads never block, so only the stop request can end the ingest
    ( while cat $EWT 2>/dev/null; do :; done >$TMP/fifo ) &
    feeder=$!
    $SP ingest --db $TMP/s.db --corpus c $G $TMP/fifo >$TMP/out 2>$TMP/err &
    pid=$!
    # wait until the first file is committed and the stream is being parsed
    i=0; while [ $i -lt 100 ]; do
        n=$(sqlite3 $TMP/s.db 'select count(*) from source' 2>/dev/null || echo 0)
        [ "$n" = 1 ] && break; sleep 0.1; i=$((i+1))
    done
    sleep 0.5
    kill -$sig $pid
    # a build that ignores the request would run forever: give it 20 s, then kill it
    i=0; while kill -0 $pid 2>/dev/null && [ $i -lt 200 ]; do sleep 0.1; i=$((i+1)); done
    kill -9 $pid 2>/dev/null || true
    wait $pid && rc=0 || rc=$?
    kill $feeder 2>/dev/null || true; wait $feeder 2>/dev/null || true
    expect_eq "SIG$sig: exit $want" "$rc" "$want"; [ "$rc" = "$want" ] || sed "s/^/# /" $TMP/err
    check "SIG$sig: says it stopped" grep -q "stopped" $TMP/err
    expect_eq "SIG$sig: the file committed before is kept, the stream is not" \
        "$(sqlite3 $TMP/s.db "select group_concat(path) from source")" "$G"
    expect_eq "SIG$sig: only the first file's sentences" "$(sqlite3 $TMP/s.db 'select count(*) from sentence')" 2
    expect_eq "SIG$sig: store intact" "$(sqlite3 $TMP/s.db 'pragma integrity_check')" ok
done
done_testing
