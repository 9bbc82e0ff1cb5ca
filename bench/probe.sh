#!/bin/sh
# bench/probe.sh — SentEval probing protocol (l2 grid 1e-5..1e-2, early stopping, senteval-default)
# on a synthetic 7-class task: 100,000 train / 10,000 dev / 10,000 test rows of dimension 600.
# Runs `synprobe probe` with logreg and with an MLP cell (nhid $BENCH_NHID, dropout $BENCH_DROPOUT),
# each with 1 and 2 threads, and prints example-passes/s (training rows x passes, over every fit)
# and wall time. The control task is left out (--no-control) so both sides run the same fits.
#
# Peer: if /usr/bin/python3 can import torch, bench/peer_senteval.py (SentEval's PyTorch classifier
# re-implemented from SPEC-probing §1) runs the same protocol on the same .npy data, 1 thread; the
# speed ratio (example-passes/s, C over PyTorch) and the dev-accuracy difference are printed.
# Floor: >= 5x faster, |dev difference| <= 0.5 points. The peer skips SentEval's final re-fit
# (--no-refit) so that both sides count the same fits.
# Results are appended to bench/RESULTS.md. Knobs: BENCH_NTRAIN, BENCH_DIM, BENCH_NHID,
# BENCH_DROPOUT, BENCH_THREADS ("1 2"), BENCH_PEER (1/0), BENCH_DIR (data dir, default mktemp).
set -eu
cd "$(dirname "$0")/.."
SP=${SP_BUILD:-build}/synprobe
PY=/usr/bin/python3
NTR=${BENCH_NTRAIN:-100000}
DIM=${BENCH_DIM:-600}
NHID=${BENCH_NHID:-50}
DROP=${BENCH_DROPOUT:-0.1}
THREADS=${BENCH_THREADS:-1 2}
PEER=${BENCH_PEER:-1}
NDV=$((NTR / 10))
[ -x "$SP" ] || { echo "bench/probe.sh: $SP not built (make)"; exit 1; }
if ! $PY -c 'import numpy' 2>/dev/null; then echo "SKIP bench/probe.sh: /usr/bin/python3 with numpy needed to make the data"; exit 0; fi
D=${BENCH_DIR:-$(mktemp -d /tmp/sp_bench_probe.XXXXXX)}
[ -n "${BENCH_DIR:-}" ] || trap 'rm -rf "$D"' EXIT
[ -f "$D/X.npy" ] || $PY bench/gen_probe_data.py "$D" "$NTR" "$NDV" "$NDV" "$DIM" 7 7 3.0
have_torch=0
if [ "$PEER" = 1 ] && $PY -c 'import torch' 2>/dev/null; then have_torch=1; fi

field() { $PY -c "import json,sys; r=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }

OUT=$D/results.txt
: >"$OUT"
host="$(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), load $(cut -d' ' -f1 /proc/loadavg)"
echo "probe bench: ${NTR}x${DIM} train, ${NDV} dev, ${NDV} test, 7 classes, senteval-default, l2 grid x4; $host"
for clf in logreg mlp; do
    extra=""
    [ $clf = mlp ] && extra="--nhid $NHID --dropout $DROP"
    for t in $THREADS; do
        $SP probe --task-file "$D/task.txt" --vectors "$D/X.npy" --classifier $clf $extra --threads "$t" \
            --no-control --json --quiet >"$D/c_${clf}_$t.json"
        f=$D/c_${clf}_$t.json
        line=$(field "$f" '"%-6s C   threads %s: %8.0f example-passes/s  %7.1f s  dev %.2f  test %.2f  l2 %g  passes %d" % (
            sys.argv[3], r["threads"], r["example_passes"] / r["seconds"], r["seconds"], r["devacc"], r["acc"],
            r["chosen"]["l2reg"], sum(g["passes"] for g in r["grid"]))' $clf)
        echo "$line" | tee -a "$OUT"
    done
    if [ $have_torch = 1 ]; then
        nh=0; [ $clf = mlp ] && nh=$NHID
        $PY bench/peer_senteval.py --task-file "$D/task.txt" --vectors "$D/X.npy" --classifier $clf \
            --nhid "$nh" --dropout "$DROP" --threads 1 --no-refit >"$D/p_$clf.json"
        line=$(field "$D/p_$clf.json" '"%-6s PyTorch threads 1: %8.0f example-passes/s  %7.1f s  dev %.2f  test %.2f  l2 %g  passes %d (%s)" % (
            sys.argv[3], r["example_passes"] / r["seconds"], r["seconds"], r["devacc"], r["acc"], r["l2reg"],
            sum(g["passes"] for g in r["grid"]), r["peer"])' $clf)
        echo "$line" | tee -a "$OUT"
        c1=$D/c_${clf}_$(echo $THREADS | cut -d' ' -f1).json
        line=$($PY - "$c1" "$D/p_$clf.json" $clf <<'EOF'
import json, sys
c, p = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
rc, rp = c["example_passes"] / c["seconds"], p["example_passes"] / p["seconds"]
ratio, dd = rc / rp, c["devacc"] - p["devacc"]
ok = ratio >= 5 and abs(dd) <= 0.5
print("%-6s ratio C/PyTorch (threads %d vs 1): %.1fx example-passes/s, %.1fx wall; dev C - PyTorch = %+.2f points -> %s"
      % (sys.argv[3], c["threads"], ratio, p["seconds"] / c["seconds"], dd, "meets floor (>=5x, <=0.5)" if ok else "BELOW FLOOR"))
EOF
)
        echo "$line" | tee -a "$OUT"
    fi
done
if [ "$PEER" != 1 ]; then echo "peer: skipped (BENCH_PEER=$PEER)" | tee -a "$OUT"
elif [ $have_torch = 0 ]; then echo "peer: /usr/bin/python3 cannot import torch; PyTorch comparison skipped" | tee -a "$OUT"; fi

R=bench/RESULTS.md
[ -f $R ] || printf '# Benchmark results\n\nAppended by bench/*.sh; newest last under each heading.\n' >$R
grep -q '^## probe' $R || printf '\n## probe (bench/probe.sh)\n' >>$R
{
    printf '\n### %s — %sx%s train, %s dev/test, 7 classes; %s\n\n```\n' "$(date -u '+%Y-%m-%d %H:%M UTC')" "$NTR" "$DIM" "$NDV" "$host"
    cat "$OUT"
    printf '```\n'
} >>$R
