# t6137-stop-long-read.sh — SIGTERM/SIGINT end a foreground command promptly inside a long read (issue 22 item 7)
# tier: fast
# A weights file of 1 TiB (sparse: it costs no disk) takes minutes to hash for the encoder's
# fingerprint, a read that used to look at no stop flag. `synprobe run` of a job whose encode
# step names it, sent SIGTERM while it reads, exits 143 within a few seconds, says it stopped,
# and leaves nothing half-written (no run row; the ingest before it kept; the store intact);
# `synprobe encode` sent SIGINT the same way exits 130. A build that ignores the request is
# killed after 20 s and fails the checks.
. tests/cli/lib.sh
mkdir $TMP/j
cp demo/demo.conllu encoder/configs/san.json $TMP/j/
truncate -s 1T $TMP/j/big.safetensors
cat >$TMP/j/job.json <<'J'
{"store": "s.db", "corpora": [{"name": "demo", "paths": ["demo.conllu"]}],
 "encoders": [{"config": "san.json", "inputs": ["demo"], "weights": "big.safetensors"}]}
J
# stop_in_read SIGNAL LOG PATTERN CMD...: start CMD, wait until LOG holds PATTERN (at most 10 s)
# (none: no wait) and 1 s more, send SIGNAL, then give it 20 s; sets rc (its exit status) and took (seconds from
# the signal to the exit)
stop_in_read() {
    sig=$1; log=$2; pat=$3; shift 3
    "$@" >$log 2>&1 &
    pid=$!
    i=0; while [ -n "$pat" ] && [ $i -lt 100 ] && ! grep -q "$pat" $log; do sleep 0.1; i=$((i+1)); done
    sleep 1
    t0=$(date +%s)
    kill -$sig $pid
    i=0; while kill -0 $pid 2>/dev/null && [ $i -lt 200 ]; do sleep 0.1; i=$((i+1)); done
    took=$(( $(date +%s) - t0 ))
    kill -9 $pid 2>/dev/null || true
    rc=0; wait $pid || rc=$?
}
stop_in_read TERM $TMP/run.log "synprobe encode" $SP run $TMP/j/job.json
expect_eq "run, SIGTERM while hashing 1 TiB of weights: exit 143" "$rc" 143
expect_eq "... within 5 s" "$(( took <= 5 ))" 1
check "... it says it stopped" grep -q 'stopped' $TMP/run.log
[ "$rc" = 143 ] || sed 's/^/# /' $TMP/run.log | tail -5
expect_eq "nothing half-written: no encoder run stored" "$(sqlite3 $TMP/j/s.db 'select count(*) from run')" 0
expect_eq "the ingest before it is kept" "$(sqlite3 $TMP/j/s.db 'select count(*) > 0 from sentence')" 1
expect_eq "the store is intact" "$(sqlite3 $TMP/j/s.db 'pragma integrity_check')" ok

stop_in_read INT $TMP/enc.log "" $SP encode --db $TMP/j/s.db --corpus demo --encoder $TMP/j/san.json --run r \
    --weights $TMP/j/big.safetensors
expect_eq "encode, SIGINT while hashing the weights: exit 130" "$rc" 130
expect_eq "... within 5 s" "$(( took <= 5 ))" 1
check "... it says it stopped" grep -q 'stopped' $TMP/enc.log
expect_eq "still no encoder run stored" "$(sqlite3 $TMP/j/s.db 'select count(*) from run')" 0
done_testing
