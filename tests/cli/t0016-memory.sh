# t0016-memory.sh — ingest streams: a 290 MB file ingests with a peak RSS under 600 MB
# tier: fast
# Ingest streams: memory is bounded by the chunks in flight and the writer's page
# cache (256 MiB), not by the file. A 290 MB CoNLL-U file (EWT dev x 160, 4.0M tokens; its store is
# about 650 MB) must ingest with a peak resident set under 600 MB; reading the file whole, or
# keeping its sentences, would need well over that. Skipped under AddressSanitizer (its shadow
# memory and quarantine change the figure).
. tests/cli/lib.sh
need_data
if nm "$SP" 2>/dev/null | grep -q __asan_init; then skip_rest "sanitizer build"; fi
EWT=$DATA/ud-ewt/en_ewt-ud-dev.conllu
$PY - "$EWT" "$TMP/big.conllu" <<'PYEOF'
import sys
src = open(sys.argv[1], encoding="utf-8").read()
with open(sys.argv[2], "w", encoding="utf-8") as f:
    for k in range(160):
        f.write(src.replace("# sent_id = ", "# sent_id = m%d-" % k))
PYEOF
size=$(wc -c <"$TMP/big.conllu")
check "the input is over 250 MB ($size bytes)" test "$size" -gt 250000000
rss=$($PY - "$SP" "$TMP/m.db" "$TMP/big.conllu" <<'PYEOF'
import resource, subprocess, sys
subprocess.run([sys.argv[1], "ingest", "--db", sys.argv[2], "--workers", "2", "--quiet", sys.argv[3]], check=True, stdout=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)   # KiB -> MiB
PYEOF
)
check "peak resident memory ${rss} MiB < 600 MiB" test "$rss" -lt 600
expect_eq "every sentence stored" "$(sqlite3 "$TMP/m.db" 'select count(*) from sentence')" $((2001 * 160))
done_testing
