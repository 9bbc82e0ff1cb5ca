#!/bin/sh
# bench/ingest.sh — ingest throughput on the shared treebanks repeated to >= 1M tokens, and
# reading CoNLL-U against peers that read the same file.
#   inputs: EWT dev x REPS as one CoNLL-U file (sent_ids made unique per copy; 40 x 25,147 =
#     1.0M tokens) and the PTB sample (.mrg + .dp) x PTB_REPS (11: 4,378 files, 1.03M words;
#     tokens here are words parsed, so each PTB sentence counts in its .mrg and its .dp: 2.07M)
#   our stages, each with 1 and 2 workers (WORKERS): parse only (--dry-run --no-structures);
#     parse + every structure in memory (--dry-run); full ingest into a new SQLite store;
#     full ingest into a store that already holds another corpus (stays in WAL mode)
#   peers, on the EWT file only (they read CoNLL-U; no peer does the rest of ingest), 1 thread,
#     compared with our "parse only" on 1 worker, like with like:
#     B  UDPipe 1 (PyPI ufal.udpipe 1.4.0.1): InputFormat "conllu" + a Sentence loop over the file
#     C  the `conllu` package (pip): parse_incr
#     both from bench/peer_conllu_read.py, timed from opening the file to the end of the loop,
#     as `synprobe ingest --json` times its own run (process start and imports left out)
#   ROUNDS rounds; each round runs every row once, in table order, so A (ours) B C alternate and
#   every stage of ours is spread over the run too. Prints per row the median and min–max of the
#   seconds and of tokens/s, the ratio of medians against the peers, the load average before and
#   after, and the check that every reader saw the same sentences and tokens.
# Not a test: no assertions. Output: a markdown block on stdout (for bench/RESULTS.md);
# SP_RESULTS=FILE also appends it to FILE.
#   sh bench/ingest.sh
#   env: SP_DATA (../shared/data), SP_BUILD (build), ROUNDS (3), REPS (40), PTB_REPS (11),
#        WORKERS ("1 2"), PEERS ("udpipe conllu"), PEER_PY (a python with ufal.udpipe and/or
#        conllu; default: a venv made under ${XDG_CACHE_HOME:-$HOME/.cache}/synprobe-bench/venv)
set -eu
export LC_ALL=C
SP=${SP_BUILD:-build}/synprobe
DATA=${SP_DATA:-../shared/data}
ROUNDS=${ROUNDS:-3}; REPS=${REPS:-40}; PTB_REPS=${PTB_REPS:-11}; WORKERS=${WORKERS:-"1 2"}
PEERS=${PEERS:-"udpipe conllu"}
[ -d "$DATA/ud-ewt" ] && [ -d "$DATA/ptb-sample" ] || { echo "SKIP bench/ingest.sh: $DATA (ud-ewt, ptb-sample) not present"; exit 0; }
[ -x "$SP" ] || { echo "bench/ingest.sh: $SP not built (make)" >&2; exit 2; }
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT

# EWT dev x REPS as one file (sent_ids made unique per copy)
i=0; while [ $i -lt "$REPS" ]; do sed "s/^# sent_id = /# sent_id = r$i-/" "$DATA/ud-ewt/en_ewt-ud-dev.conllu"; i=$((i+1)); done >"$TMP/ewt.conllu"
# PTB .mrg + .dp x PTB_REPS: copies under new stems so they pair and do not collide
mkdir "$TMP/ptb"
for f in "$DATA"/ptb-sample/combined/*.mrg; do s=$(basename "$f" .mrg); i=0; while [ $i -lt "$PTB_REPS" ]; do
    # i trailing newlines make each copy's bytes (and content hash) distinct
    { cat "$f"; printf "%${i}s" "" | tr ' ' '\n'; } >"$TMP/ptb/r${i}_$s.mrg"
    { cat "$DATA/ptb-sample/dependency/$s.dp"; printf "%${i}s" "" | tr ' ' '\n'; } >"$TMP/ptb/r${i}_$s.dp"
    i=$((i+1)); done; done
# a store that already holds another corpus: ingest into it stays in WAL mode throughout
# (a new store is bulk-loaded under a rollback journal, st_bulk_begin)
"$SP" ingest --quiet --db "$TMP/seed.db" --corpus seed "$DATA/ud-ewt/en_ewt-ud-dev.conllu" >/dev/null

# the peers: a python that imports them (PEER_PY, or a venv in the cache folder)
peer_python() {
    if [ -n "${PEER_PY:-}" ]; then echo "$PEER_PY"; return; fi
    v=${XDG_CACHE_HOME:-$HOME/.cache}/synprobe-bench/venv
    [ -x "$v/bin/python" ] || /usr/bin/python3 -m venv "$v" >/dev/null 2>&1 || return 1
    "$v/bin/python" -c 'import ufal.udpipe' 2>/dev/null || "$v/bin/pip" install -q ufal.udpipe==1.4.0.1 >/dev/null 2>&1 || true
    "$v/bin/python" -c 'import conllu' 2>/dev/null || "$v/bin/pip" install -q conllu >/dev/null 2>&1 || true
    echo "$v/bin/python"
}
PY=$(peer_python) || PY=""
have=""; skipped=""
for p in $PEERS; do
    case $p in udpipe) mod=ufal.udpipe; pkg="ufal.udpipe==1.4.0.1";; conllu) mod=conllu; pkg=conllu;;
        *) echo "bench/ingest.sh: PEERS: expected udpipe and/or conllu, got '$p'" >&2; exit 2;; esac
    if [ -n "$PY" ] && "$PY" -c "import $mod" 2>/dev/null; then have="$have $p"
    else skipped="$skipped
peer $p skipped: ${PY:-no python for the peers (python3 -m venv failed)}${PY:+ cannot import $mod} (pip install $pkg into it, or give PEER_PY=/path/to/python that imports $mod)"; fi
done

stats() { sort -n | awk '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.3f %.3f %.3f", m, v[1], v[NR] }'; }
field() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
record() {   # key tokens seconds sentences
    echo "$3" >>"$TMP/$1.sec"
    echo "$2 / $3" | bc -l >>"$TMP/$1.tps"
    echo "$4 / $3" | bc -l >>"$TMP/$1.sps"
    echo "$4 $2" >"$TMP/$1.count"
}
ours() {   # corpus stage workers
    c=$1; st=$2; w=$3
    rm -f "$TMP"/b.db "$TMP"/b.db-wal "$TMP"/b.db-shm "$TMP"/b.db-journal
    if [ "$c" = ewt ]; then in=$TMP/ewt.conllu; else in=$TMP/ptb; fi
    case $st in
        parse) set -- --dry-run --no-structures;;
        struct) set -- --dry-run;;
        new) set -- --db "$TMP/b.db";;
        wal) cp "$TMP/seed.db" "$TMP/b.db"; set -- --db "$TMP/b.db";;
    esac
    "$SP" ingest --json --quiet --workers "$w" "$@" "$in" >"$TMP/out.json"
    set -- $(/usr/bin/python3 -c "import json,sys; d=json.load(open(sys.argv[1]))['totals']; print(d['tokens_parsed'], d['seconds'], d['sentences'] + d['attached'] + d['rejected'])" "$TMP/out.json")
    record "$c.$st.$w" "$1" "$2" "$3"
}
peer() {   # name: the BLAS/OpenMP threads pinned before Python starts
    out=$(OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 "$PY" bench/peer_conllu_read.py "$1" "$TMP/ewt.conllu")
    record "peer.$1" "$(field "$out" tokens)" "$(field "$out" seconds)" "$(field "$out" sentences)"
    field "$out" version >"$TMP/peer.$1.version"
}

LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
r=0
while [ $r -lt "$ROUNDS" ]; do
    ours ewt parse 1
    for p in $have; do peer "$p"; done
    for c in ewt ptb; do
        for w in $WORKERS; do
            for st in parse struct new wal; do
                [ "$c.$st.$w" = ewt.parse.1 ] || ours "$c" "$st" "$w"
            done
        done
    done
    r=$((r + 1))
done
LOAD1=$(cut -d' ' -f1-3 /proc/loadavg)

set -- $(cat "$TMP/ewt.parse.1.count")
ewt_s=$1; ewt_t=$2
{
echo "## ingest: reading CoNLL-U vs UDPipe and conllu; our ingest stages ($(date -u '+%Y-%m-%d %H:%M') UTC)"
echo
echo "Machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(uname -m); OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-(unset)}; load average before: $LOAD0, after: $LOAD1."
echo "Inputs: EWT dev x $REPS as one CoNLL-U file ($ewt_s sentences, $ewt_t tokens, $(($(wc -c <"$TMP/ewt.conllu") / 1048576)) MiB); the PTB sample (.mrg + .dp) x $PTB_REPS ($(ls "$TMP/ptb" | wc -l) files; tokens = words parsed, each sentence's in its .mrg and its .dp)."
echo "$ROUNDS rounds; each round runs every row once, in table order (ours and the peers alternate). Seconds: each side's own timing of"
echo "reading and parsing (synprobe: ingest --json totals, the hashing pass included; peers: open to the end of the loop); process start and imports left out."
echo
echo "### Reading the EWT file, 1 thread: our parse only vs the peers"
echo
echo "| side | sentences | tokens | seconds median (min–max) | tokens/s median (min–max) | A vs this (median) |"
echo "|---|---|---|---|---|---|"
set -- $(stats <"$TMP/ewt.parse.1.sec") $(stats <"$TMP/ewt.parse.1.tps")
a_tps=$4
printf "| A: synprobe ingest --dry-run --no-structures, 1 worker | %s | %s | %s (%s–%s) | %.0f (%.0f–%.0f) | — |\n" $(cat "$TMP/ewt.parse.1.count") "$@"
check="A $(cat "$TMP/ewt.parse.1.count")"; same=1
for p in $have; do
    case $p in udpipe) label="B: UDPipe $(cat "$TMP/peer.$p.version") (ufal.udpipe), InputFormat conllu + nextSentence";;
               conllu) label="C: conllu $(cat "$TMP/peer.$p.version") (pip), parse_incr";; esac
    set -- $(stats <"$TMP/peer.$p.sec") $(stats <"$TMP/peer.$p.tps")
    printf "| %s | %s | %s | %s (%s–%s) | %.0f (%.0f–%.0f) | %.2fx |\n" "$label" $(cat "$TMP/peer.$p.count") "$@" "$(echo "$a_tps / $4" | bc -l)"
    check="$check; $p $(cat "$TMP/peer.$p.count")"
    [ "$(cat "$TMP/peer.$p.count")" = "$(cat "$TMP/ewt.parse.1.count")" ] || same=0
done
echo
if [ -z "$have" ]; then echo "check: no peer ran"
elif [ $same = 1 ]; then echo "check: every reader saw the same sentences and tokens ($check): the same"
else echo "check: sentences and tokens DIFFER ($check)"; fi
[ -z "$skipped" ] || echo "$skipped" | sed '/^$/d'
echo
echo "### Our ingest stages (no peer does these)"
echo
echo "\"full ingest, new store\": bulk-loaded under a rollback journal, ends in WAL; \"full ingest, existing store\": into a copy of a store that already holds EWT dev as another corpus (WAL throughout)."
echo
echo "| corpus | stage | workers | tokens | seconds median (min–max) | tokens/s median (min–max) | sentences/s median |"
echo "|---|---|---|---|---|---|---|"
for c in ewt ptb; do
    for w in $WORKERS; do
        for st in parse struct new wal; do
            k=$c.$st.$w
            case $st in parse) label="parse only";; struct) label="parse + structures (memory)";;
                        new) label="full ingest, new store";; wal) label="full ingest, existing store";; esac
            set -- $(cut -d' ' -f2 "$TMP/$k.count") $(stats <"$TMP/$k.sec") $(stats <"$TMP/$k.tps") $(stats <"$TMP/$k.sps" | cut -d" " -f1)
            printf "| %s | %s | %s | %s | %s (%s–%s) | %.0f (%.0f–%.0f) | %.0f |\n" "$c" "$label" "$w" "$@"
        done
    done
done
} >"$TMP/section"
cat "$TMP/section"
if [ -n "${SP_RESULTS:-}" ]; then { echo; cat "$TMP/section"; } >>"$SP_RESULTS"; fi
