#!/bin/sh
# bench/ingest.sh — ingest throughput on the shared treebanks repeated to >= 1M tokens.
# Three stages (parse only; parse + every structure in memory; full ingest into SQLite),
# 1 and 2 workers, tokens/s and sentences/s; figures appended to bench/RESULTS.md.
# Peer: the Python `conllu` package (pip), where installable. Not a test: no assertions.
# SP_RESULTS=FILE appends the section there instead of bench/RESULTS.md (trial runs).
set -eu
export LC_ALL=C
SP=${SP_BUILD:-build}/synprobe
DATA=${SP_DATA:-../shared/data}
[ -d "$DATA" ] || { echo "SKIP bench/ingest.sh: $DATA not present"; exit 0; }
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
REPS=${REPS:-40}

# EWT dev x REPS as one file (sent_ids made unique per copy): 25,147 x 40 = 1.0M tokens
i=0; while [ $i -lt $REPS ]; do sed "s/^# sent_id = /# sent_id = r$i-/" $DATA/ud-ewt/en_ewt-ud-dev.conllu; i=$((i+1)); done > $TMP/ewt.conllu
# PTB .mrg + .dp x 11 (1.03M tokens): copies under new stems so they pair and do not collide
for f in $DATA/ptb-sample/combined/*.mrg; do s=$(basename $f .mrg); i=0; while [ $i -lt 11 ]; do
    # i trailing newlines make each copy's bytes (and content hash) distinct
    { cat $f; printf "%${i}s" "" | tr ' ' '\n'; } > $TMP/r${i}_$s.mrg
    { cat $DATA/ptb-sample/dependency/$s.dp; printf "%${i}s" "" | tr ' ' '\n'; } > $TMP/r${i}_$s.dp
    i=$((i+1)); done; done
mkdir $TMP/ptb; mv $TMP/*.mrg $TMP/*.dp $TMP/ptb/

# a store that already holds another corpus: ingest into it stays in WAL mode throughout
# (a new store is bulk-loaded under a rollback journal, st_bulk_begin)
$SP ingest --quiet --db $TMP/seed.db --corpus seed $DATA/ud-ewt/en_ewt-ud-dev.conllu > /dev/null

run() {   # label workers args...
    label=$1; w=$2; shift 2
    rm -f $TMP/b.db $TMP/b.db-wal $TMP/b.db-shm $TMP/b.db-journal
    case "$label" in *"existing store"*) cp $TMP/seed.db $TMP/b.db;; esac
    $SP ingest --json --quiet --workers $w "$@" > $TMP/out.json
    tok=$(python3 -c "import json,sys;d=json.load(open(sys.argv[1]))['totals'];print(d['tokens_parsed'])" $TMP/out.json)
    sec=$(python3 -c "import json,sys;d=json.load(open(sys.argv[1]))['totals'];print(d['seconds'])" $TMP/out.json)
    sent=$(python3 -c "import json,sys;d=json.load(open(sys.argv[1]))['totals'];print(d['sentences']+d['attached']+d['rejected'])" $TMP/out.json)
    python3 -c "import sys;t,s,n=float(sys.argv[1]),float(sys.argv[2]),float(sys.argv[3]);print('| %-34s | %d | %9d | %6.2f | %11.0f | %9.0f |'%(sys.argv[4],int(sys.argv[5]),t,s,t/s,n/s))" \
        $tok $sec $sent "$label" $w | tee -a $TMP/table
}
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)   # others' work on a shared machine shows here
{
echo "| stage | workers | tokens | seconds | tokens/s | sentences/s |"
echo "|---|---|---|---|---|---|"
} > $TMP/table
cat $TMP/table
for corpus in ewt ptb; do
    if [ $corpus = ewt ]; then in=$TMP/ewt.conllu; else in=$TMP/ptb; fi
    for w in 1 2; do
        run "$corpus: parse only" $w --dry-run --no-structures $in
        run "$corpus: parse + structures (memory)" $w --dry-run $in
        run "$corpus: full ingest into SQLite" $w --db $TMP/b.db $in
        run "$corpus: full, existing store (WAL)" $w --db $TMP/b.db $in
    done
done

peer=""
if python3 -c 'import conllu' 2>/dev/null || pip install -q conllu >/dev/null 2>&1; then
    peer=$(python3 - $TMP/ewt.conllu <<'PYEOF'
import sys, time, conllu
t = time.time(); n = 0
with open(sys.argv[1], encoding="utf-8") as f:
    for s in conllu.parse_incr(f): n += sum(1 for tok in s if isinstance(tok["id"], int))
dt = time.time() - t
print(f"{n / dt:.0f}")
PYEOF
)
fi
{
    echo
    echo "## ingest ($(date -u +%Y-%m-%d), $(nproc) cores, $(uname -m), load average before: $LOAD0, after: $(cut -d' ' -f1-3 /proc/loadavg))"
    echo
    echo "EWT dev x $REPS and the PTB sample (.mrg + .dp) x 11; tokens/s over wall time including the hashing pass."
    echo "\"full ingest into SQLite\": into a new store (bulk-loaded, rollback journal, ends in WAL);"
    echo "\"full, existing store (WAL)\": into a copy of a store that already holds EWT dev as another corpus."
    echo
    cat $TMP/table
    if [ -n "$peer" ]; then
        ours=$(grep 'ewt: parse only' $TMP/table | head -1 | awk -F'|' '{print $6}' | tr -d ' ')
        echo
        echo "Peer: Python \`conllu\` parse_incr on the same EWT file: $peer tokens/s; synprobe parse-only (1 worker) is $(python3 -c "print('%.1f' % ($ours / $peer))")x faster."
    else
        echo; echo "Peer: Python conllu not installable here; no ratio."
    fi
} > $TMP/section
cat $TMP/section
RESULTS=${SP_RESULTS:-bench/RESULTS.md}
[ -f "$RESULTS" ] || printf '# Benchmark results\n\nAppended by bench/*.sh; newest last.\n' > "$RESULTS"
cat $TMP/section >> "$RESULTS"
