# t0073-ingest-flags.sh — ingest's command-line and file-level checks (flags, empty files, modes)
# tier: fast
# Issue 10, item 14 (command-line and file-level parts):
#   --strict with --repair, and an empty --corpus, are usage errors (exit 2);
#   whitespace-only, comment-only and CR-only files say "empty file" (exit 1, nothing stored);
#   bytes already ingested in another mode are not reported "unchanged" when the new mode would
#   store them differently: the message names the mode they were ingested in and how to redo it.
. tests/cli/lib.sh
M=tests/data/malformed
G=$M/headrange.conllu      # one sentence with a HEAD out of range between two valid ones

err=$($SP ingest --db $TMP/u.db --strict --repair $G 2>&1 >/dev/null) && rc=0 || rc=$?
expect_eq "--strict --repair: exit 2" "$rc" 2
case "$err" in *"--strict and --repair exclude each other"*) ok "--strict --repair: says why";; *) not_ok "--strict --repair: '$err'";; esac
$SP ingest --db $TMP/u.db --repair --strict $G >/dev/null 2>&1 && rc=0 || rc=$?
expect_eq "--repair --strict: exit 2" "$rc" 2
err=$($SP ingest --db $TMP/u.db --corpus '' $G 2>&1 >/dev/null) && rc=0 || rc=$?
expect_eq "--corpus '': exit 2" "$rc" 2
case "$err" in *"--corpus: expected a name"*) ok "--corpus '': says why";; *) not_ok "--corpus '': '$err'";; esac
expect_eq "usage errors store nothing" "$(sqlite3 $TMP/u.db 'select count(*) from source' 2>/dev/null || echo 0)" 0

for f in whitespace.conllu comments.conllu cr.conllu whitespace.mrg; do
    err=$($SP ingest --db $TMP/e.db $M/$f 2>&1 >/dev/null) && rc=0 || rc=$?
    expect_eq "$f: exit 1" "$rc" 1
    case "$err" in *"$M/$f: empty file"*) ok "$f: says 'empty file'";; *) not_ok "$f: '$err'";; esac
done
expect_eq "empty files: no source recorded" "$(sqlite3 $TMP/e.db 'select count(*) from source')" 0

# modes: ingested in default mode (1 sentence quarantined), then asked for again
$SP ingest --db $TMP/m.db $G >/dev/null 2>&1 || true
before=$(sqlite3 $TMP/m.db 'select count(*) from sentence')
for mode in repair strict; do
    err=$($SP ingest --db $TMP/m.db --$mode $G 2>&1 >/dev/null) && rc=0 || rc=$?
    expect_eq "default, then --$mode: exit 1" "$rc" 1
    case "$err" in *"$G: these bytes were already ingested in default mode (as $G)"*"to ingest them with --$mode, use another --corpus or a new store"*)
        ok "default, then --$mode: names the mode and how to redo it";; *) not_ok "default, then --$mode: '$err'";; esac
done
expect_eq "nothing changed in the store" "$(sqlite3 $TMP/m.db 'select count(*) from sentence')|$(sqlite3 $TMP/m.db 'select count(*) from source')" "$before|1"
$SP ingest --db $TMP/m.db --corpus redo --repair $G >/dev/null 2>&1 && rc=0 || rc=$?
expect_eq "the way it names works: --repair into another corpus keeps every sentence" \
    "$rc|$(sqlite3 $TMP/m.db "select count(*) from sentence join corpus using (corpus_id) where corpus.name = 'redo'")" "0|$((before + 1))"
out=$($SP ingest --db $TMP/m.db $G 2>&1) && rc=0 || rc=$?
case "$rc|$out" in "0|"*"1 unchanged"*) ok "default again: unchanged, exit 0";; *) not_ok "default again: $rc $out";; esac

# same results in the other mode: still a no-op (strict-ingested bytes are valid in every mode;
# default with nothing rejected is what --strict would store)
V=$M/dup/one.conllu
$SP ingest --db $TMP/s.db --strict $V >/dev/null 2>&1 || true
for mode in "" --repair; do
    out=$($SP ingest --db $TMP/s.db $mode $V 2>&1) && rc=0 || rc=$?
    case "$rc|$out" in "0|"*"1 unchanged"*) ok "--strict, then '${mode:-default}': unchanged";; *) not_ok "--strict, then '$mode': $rc $out";; esac
done
$SP ingest --db $TMP/d.db $V >/dev/null 2>&1 || true
out=$($SP ingest --db $TMP/d.db --strict $V 2>&1) && rc=0 || rc=$?
case "$rc|$out" in "0|"*"1 unchanged"*) ok "default with nothing rejected, then --strict: unchanged";; *) not_ok "default, then --strict: $rc $out";; esac
# the same for a file of several chunks, whose hash is only known when it has been read
if [ -f "$DATA/ud-ewt/en_ewt-ud-dev.conllu" ]; then
    cp "$DATA/ud-ewt/en_ewt-ud-dev.conllu" "$TMP/big.conllu"
    "$SP" ingest --db "$TMP/big.db" --corpus c --repair "$TMP/big.conllu" >/dev/null 2>&1
    rc=0; "$SP" ingest --db "$TMP/big.db" --corpus c "$TMP/big.conllu" >/dev/null 2>"$TMP/big.err" || rc=$?
    expect_eq "1.8 MB file ingested with --repair, again in default mode: exit 1" "$rc" 1
    check "... naming the mode it was ingested in" grep -q "already ingested in repair mode" "$TMP/big.err"
else
    skip "multi-chunk mode mismatch: $DATA/ud-ewt not present"
fi
# A file whose every sentence is rejected fails (nothing ingested), and fails again when given
# again: it is recorded (its rejections are in the quarantine), but "unchanged" must not turn a
# failed ingest into a success on a retry (a job's retry would otherwise pass).
printf '1\tfoo\tfoo\tNOUN\tNN\t_\t7\troot\t_\t_\n\n' >$TMP/allbad.conllu
for i in 1 2; do
    rc=0; $SP ingest --db $TMP/ab.db $TMP/allbad.conllu >$TMP/ab.out 2>&1 || rc=$?
    expect_eq "every sentence rejected, attempt $i: exit 1" "$rc" 1
done
check "... the retry says what the first ingest stored" grep -q "unchanged \[conllu\] (as ingested before: 0 sentences, 1 rejected" $TMP/ab.out
# the same where the hash is only known after several chunks (--chunk-kb 1)
{ for i in $(seq 1 60); do printf '# sent_id = b%d\n1\tfoo\tfoo\tNOUN\tNN\t_\t7\troot\t_\t_\n\n' $i; done; } >$TMP/allbad2.conllu
for i in 1 2; do
    rc=0; $SP ingest --db $TMP/ab2.db --chunk-kb 1 $TMP/allbad2.conllu >$TMP/ab2.out 2>&1 || rc=$?
    expect_eq "several chunks, every sentence rejected, attempt $i: exit 1" "$rc" 1
done
check "... unchanged, with the recorded counts" grep -q "as ingested before: 0 sentences, 60 rejected" $TMP/ab2.out
# a file with some sentences kept is a success again when unchanged
cat demo/demo.conllu $TMP/allbad.conllu >$TMP/somebad.conllu
$SP ingest --db $TMP/sb.db $TMP/somebad.conllu >/dev/null 2>&1 || true
rc=0; $SP ingest --db $TMP/sb.db $TMP/somebad.conllu >$TMP/sb.out 2>&1 || rc=$?
expect_eq "some sentences kept, given again: unchanged, exit 0" "$rc" 0
done_testing
