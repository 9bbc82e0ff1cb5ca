#!/bin/sh
# bench/treeops.sh — the dependency structures stage alone (docs/spec/structures.md §3: depth, the
# all-pairs tree distance D; our own row adds the ancestor matrix and P2's relative positions)
# against scipy.sparse.csgraph on the same trees: the PTB sample's dependency trees (.dp) and
# UD EWT dev. No CLI command times structures alone (ingest's "parse + structures" stage also
# parses and encodes BLOBs), so bench/treeops_bench.c, linked against build/lib/libsp_*.a,
# calls tops_dep_all as ingest does.
#   prep, once: our readers write each corpus's heads to a plain file (one sentence a line,
#     0-based heads, -1 = root); both sides read that file, and reading it is timed apart
#     (not in the rates); the peer's fastest shortest_path method on this data is picked by
#     a calibration run (bench/peer_treeops.py --calibrate: FW, D, BF, J, best of two passes).
#   rounds, interleaved A B B' C A B B' C ..., ROUNDS times, per corpus:
#     A  ours, depth + D: tops_dep_all, REPS passes over every sentence
#     B  peer, depth + D: per sentence the undirected tree as a CSR matrix,
#        scipy.sparse.csgraph.shortest_path(unweighted=True), depth = D[root]; PEER_REPS passes
#        (the peer is two orders of magnitude slower, so it makes fewer passes over the same
#        trees; rates are per sentence)
#     B' peer, the same with the CSR graphs built before the clock: shortest_path alone
#     C  ours, every structure ingest caches (depth, D, ancestors, rel): our own row
# Prints per side the median and min–max of sentences/s and tokens/s, the ratio A/B of the
# medians, the load average before and after, and the check: the sum of every distance, the
# sum of per-sentence maximum depths and a per-sentence fingerprint, from both sides.
# Not a test: no assertions. Output: a markdown block on stdout (for bench/RESULTS.md).
#   sh bench/treeops.sh
#   env: SP_DATA (../shared/data), SP_BUILD (build), ROUNDS (3), REPS (500), PEER_REPS (5),
#        CORPORA ("ptb ewt"), PEER_PY (a python with scipy; default: a venv made under
#        ${XDG_CACHE_HOME:-$HOME/.cache}/synprobe-bench/venv with pip's scipy and numpy)
set -eu
export LC_ALL=C
DATA=${SP_DATA:-../shared/data}
BUILD=${SP_BUILD:-build}
ROUNDS=${ROUNDS:-3}; REPS=${REPS:-500}; PEER_REPS=${PEER_REPS:-5}; CORPORA=${CORPORA:-"ptb ewt"}
[ -d "$DATA/ptb-sample" ] && [ -d "$DATA/ud-ewt" ] || { echo "SKIP bench/treeops.sh: $DATA (ptb-sample, ud-ewt) not present"; exit 0; }
for l in treeops ingest common; do
    [ -f "$BUILD/lib/libsp_$l.a" ] || { echo "bench/treeops.sh: $BUILD/lib/libsp_$l.a not built (make)" >&2; exit 2; }
done
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
cc -std=c11 -D_GNU_SOURCE -O2 -I. -o "$TMP/drv" bench/treeops_bench.c \
    "$BUILD/lib/libsp_treeops.a" "$BUILD/lib/libsp_ingest.a" "$BUILD/lib/libsp_common.a" -lutf8proc -lz -lpthread -lm

# the peer's threads pinned before Python starts (shortest_path is single-threaded; no BLAS used)
pin() { OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 "$@"; }
peer_python() {   # prints a python that imports scipy, or fails
    if [ -n "${PEER_PY:-}" ]; then "$PEER_PY" -c 'import scipy.sparse.csgraph' 2>/dev/null && echo "$PEER_PY"; return; fi
    v=${XDG_CACHE_HOME:-$HOME/.cache}/synprobe-bench/venv
    [ -x "$v/bin/python" ] || /usr/bin/python3 -m venv "$v" >/dev/null 2>&1 || return 1
    "$v/bin/python" -c 'import scipy.sparse.csgraph' 2>/dev/null || "$v/bin/pip" install -q scipy numpy >/dev/null 2>&1 || return 1
    "$v/bin/python" -c 'import scipy.sparse.csgraph' 2>/dev/null && echo "$v/bin/python"
}
PY=$(peer_python) || PY=""
PEER_VER=""
[ -z "$PY" ] || PEER_VER=$(pin "$PY" -c 'import scipy, numpy, sys; print("scipy %s, numpy %s, Python %s" % (scipy.__version__, numpy.__version__, sys.version.split()[0]))')

field() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
# median, min, max of the numbers on stdin
stats() { sort -n | awk '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.0f %.0f %.0f", m, v[1], v[NR] }'; }

LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
for c in $CORPORA; do
    "$TMP/drv" heads --data "$DATA" --corpus "$c" "$TMP/$c.heads" >"$TMP/$c.prep"
    if [ -n "$PY" ]; then pin "$PY" bench/peer_treeops.py --calibrate "$TMP/$c.heads" >"$TMP/$c.cal"; fi
done

one() {   # corpus side -> appends rates and the RESULT line
    c=$1; s=$2
    case $s in
        A) out=$("$TMP/drv" time --what dist --reps "$REPS" "$TMP/$c.heads") ;;
        C) out=$("$TMP/drv" time --what all --reps "$REPS" "$TMP/$c.heads") ;;
        B|G) [ $s = B ] && set -- || set -- --prebuilt
           out=$(pin "$PY" bench/peer_treeops.py "$@" --method "$(sed -n 's/^method=\([A-Za-z]*\).*/\1/p' "$TMP/$c.cal")" \
                     --reps "$PEER_REPS" "$TMP/$c.heads") ;;
    esac
    sec=$(field "$out" seconds); reps=$(field "$out" reps)
    echo "$(field "$out" sentences) * $reps / $sec" | bc -l >>"$TMP/$c.$s.sps"
    echo "$(field "$out" tokens) * $reps / $sec" | bc -l >>"$TMP/$c.$s.tps"
    field "$out" read_s >>"$TMP/$c.$s.read"
    echo "$out" >"$TMP/$c.$s.last"
}
sides="A C"; [ -z "$PY" ] || sides="A B G C"
r=0
while [ $r -lt "$ROUNDS" ]; do
    for c in $CORPORA; do for s in $sides; do one "$c" "$s"; done; done
    r=$((r + 1))
done
LOAD1=$(cut -d' ' -f1-3 /proc/loadavg)

echo "## treeops: dependency structures vs scipy.sparse.csgraph ($(date -u '+%Y-%m-%d %H:%M') UTC)"
echo
echo "Machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-(unset)}; load average before: $LOAD0, after: $LOAD1."
echo "$ROUNDS rounds, interleaved $(echo "$sides" | sed "s/G/B'/") per corpus; rates over compute time only (reading the heads file is timed apart, below); 1 thread each side."
echo "A: ours, depth + tree distance D (tops_dep_all), passes: $REPS; C: ours, depth + D + ancestor matrix + relative positions (what ingest caches), passes: $REPS."
if [ -n "$PY" ]; then
    echo "B: peer, $PEER_VER: per sentence a CSR graph of the tree, shortest_path(directed=False, unweighted=True), depth = D[root], passes: $PEER_REPS; B': the same with the CSR graphs built before the clock (shortest_path alone); the method picked by a calibration run:"
    for c in $CORPORA; do echo "$c: $(cat "$TMP/$c.cal")"; done
else
    if [ -n "${PEER_PY:-}" ]; then echo "peer skipped: PEER_PY=$PEER_PY cannot import scipy.sparse.csgraph (pip install scipy numpy into it)"
    else echo "peer skipped: no python with scipy (python3 -m venv + pip install scipy numpy into ${XDG_CACHE_HOME:-$HOME/.cache}/synprobe-bench/venv failed; give one with PEER_PY=/path/to/python that imports scipy)"; fi
fi
echo
echo "| corpus | side | sentences, tokens | sentences/s median (min–max) | tokens/s median (min–max) | vs B (median) | vs B' (median) |"
echo "|---|---|---|---|---|---|---|"
for c in $CORPORA; do
    ns=$(field "$(cat "$TMP/$c.prep")" sentences); nt=$(field "$(cat "$TMP/$c.prep")" tokens)
    bmed=""; gmed=""
    [ -z "$PY" ] || { bmed=$(stats <"$TMP/$c.B.sps" | cut -d' ' -f1); gmed=$(stats <"$TMP/$c.G.sps" | cut -d' ' -f1); }
    for s in $sides; do
        case $s in A) label="A: ours, depth + D";; B) label="B: scipy csgraph, depth + D";;
                    G) label="B': scipy, shortest_path alone";; C) label="C: ours, all structures";; esac
        set -- $(stats <"$TMP/$c.$s.sps") $(stats <"$TMP/$c.$s.tps")
        rb="—"; rg="—"
        if [ -n "$bmed" ] && [ "$s" != B ] && [ "$s" != G ]; then
            rb=$(printf '%.1fx' "$(echo "$1 / $bmed" | bc -l)"); rg=$(printf '%.1fx' "$(echo "$1 / $gmed" | bc -l)"); fi
        printf "| %s | %s | %s, %s | %s (%s–%s) | %s (%s–%s) | %s | %s |\n" "$c" "$label" "$ns" "$nt" "$1" "$2" "$3" "$4" "$5" "$6" "$rb" "$rg"
    done
done
echo
printf "reading the heads file, seconds (median, not in the rates):"
for c in $CORPORA; do
    printf " %s:" "$c"
    for s in $sides; do printf " %s %s" "$(echo $s | sed "s/G/B'/")" "$(sort -n "$TMP/$c.$s.read" | awk '{ v[NR] = $1 } END { printf "%.4f", v[int((NR + 1) / 2)] }')"; done
    printf ";"
done
echo
echo
for c in $CORPORA; do
    a=$(cat "$TMP/$c.A.last")
    want="sum_dist=$(field "$a" sum_dist) sum_maxdepth=$(field "$a" sum_maxdepth) fingerprint=$(field "$a" fingerprint)"
    ok=1
    for s in $sides; do
        o=$(cat "$TMP/$c.$s.last")
        [ "sum_dist=$(field "$o" sum_dist) sum_maxdepth=$(field "$o" sum_maxdepth) fingerprint=$(field "$o" fingerprint)" = "$want" ] || ok=0
    done
    if [ $ok = 1 ]; then echo "check $c (sum of all distances, sum of per-sentence max depths, per-sentence fingerprint): the same on sides $(echo "$sides" | sed "s/G/B'/"): $want"
    else echo "check $c: DIFFER: $(for s in $sides; do printf '%s: %s; ' "$s" "$(cat "$TMP/$c.$s.last")"; done)"; fi
done
