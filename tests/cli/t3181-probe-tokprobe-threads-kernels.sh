# t3181-probe-tokprobe-threads-kernels.sh — probe and tokprobe: the same figures for any --threads, SP_GEMM_KERNEL and OPENBLAS_CORETYPE
# tier: fast
# Issue 26 item 1: the SentEval classifiers (`probe`) and the token probes (`tokprobe`) train on
# synprobe's own GEMM (common/gemm.h), not OpenBLAS, so their results are the same bytes with
# --threads 1 and 2, under every kernel this CPU runs (avx512, avx2, c) and whatever OpenBLAS
# kernel OPENBLAS_CORETYPE picks (OpenBLAS's kernels round differently). Compared: the whole
# JSON result less "seconds" and "threads" (how it ran). The shapes are big enough for the
# products to split across threads (the classifier's pool takes jobs of >= 4 MFLOP).
. tests/cli/lib.sh
need_numpy
T=$TMP
# 3 overlapping classes, 800 train, 200 dev, 200 test rows, d = 700
$PY - "$T" <<'PY'
import sys, numpy as np
d = sys.argv[1]
rng = np.random.default_rng(11)
n, dim = 1200, 700
y = rng.integers(0, 3, n)
C = rng.normal(0, 1, (3, dim))
X = (0.08 * C[y] + rng.normal(0, 1, (n, dim))).astype(np.float32)
np.save(d + "/X.npy", X)
tags = ["tr"] * 800 + ["va"] * 200 + ["te"] * 200
with open(d + "/task.txt", "w") as f:
    for i in range(n):
        f.write("%s\tc%d\tsentence %d .\n" % (tags[i], y[i], i))
PY
# the result less how it ran
norm() { $PY -c "
import json, sys
def strip(o):
    if isinstance(o, dict): return {k: strip(v) for k, v in o.items() if k not in ('seconds', 'threads')}
    if isinstance(o, list): return [strip(v) for v in o]
    return o
print(json.dumps(strip(json.load(open(sys.argv[1]))), sort_keys=True))" "$1"; }
for clf in logreg mlp; do
    extra=""
    [ $clf = mlp ] && extra="--nhid 50 --dropout 0.1"
    for kn in avx512 avx2 c; do
        for th in 1 2; do
            # shellcheck disable=SC2086
            SP_GEMM_KERNEL=$kn $SP probe --task-file $T/task.txt --vectors $T/X.npy --classifier $clf $extra --noreg \
                --max-epoch 4 --threads $th --json --quiet >$T/p-$clf-$kn-$th.json 2>$T/p.err && rc=0 || rc=$?
            [ "$rc" = 0 ] || cat $T/p.err
            expect_eq "probe $clf SP_GEMM_KERNEL=$kn --threads $th: exit 0" "$rc" 0
            norm $T/p-$clf-$kn-$th.json >$T/n-$clf-$kn-$th
        done
    done
    # shellcheck disable=SC2086
    OPENBLAS_CORETYPE=Haswell $SP probe --task-file $T/task.txt --vectors $T/X.npy --classifier $clf $extra --noreg \
        --max-epoch 4 --threads 2 --json --quiet >$T/p-$clf-hw.json 2>/dev/null
    norm $T/p-$clf-hw.json >$T/n-$clf-hw
    check "probe $clf: it learned something (test accuracy above the majority class)" $PY -c "
import json; r = json.load(open('$T/p-$clf-c-1.json')); assert r['acc'] > r['baselines']['majority']['acc'] + 5, r['acc']"
    for v in avx512-1 avx512-2 avx2-1 avx2-2 c-2 hw; do
        check "probe $clf $v: the same result as kernel c, 1 thread" cmp -s $T/n-$clf-$v $T/n-$clf-c-1
    done
done

DB=$T/t.db
$SP ingest --db $DB --corpus demo demo/demo.conllu >/dev/null 2>&1
$SP encode --db $DB --corpus demo --encoder encoder/configs/san.json --run san --token-vectors --quiet >/dev/null 2>&1
# --threads 2: the probe and its control side by side, one thread each; 4: two each, the products split
for kn in avx512 avx2 c; do
    for th in 1 2 4; do
        SP_GEMM_KERNEL=$kn $SP tokprobe --db $DB --corpus demo --run san --classifier mlp --nhid 64 --max-epoch 8 \
            --threads $th --json --no-save >$T/t-$kn-$th.json 2>$T/t.err && rc=0 || rc=$?
        [ "$rc" = 0 ] || cat $T/t.err
        expect_eq "tokprobe mlp SP_GEMM_KERNEL=$kn --threads $th: exit 0" "$rc" 0
        norm $T/t-$kn-$th.json >$T/tn-$kn-$th
    done
done
OPENBLAS_CORETYPE=Haswell $SP tokprobe --db $DB --corpus demo --run san --classifier mlp --nhid 64 --max-epoch 8 \
    --threads 2 --json --no-save >$T/t-hw.json 2>/dev/null
norm $T/t-hw.json >$T/tn-hw
for v in avx512-1 avx512-2 avx512-4 avx2-1 avx2-2 avx2-4 c-2 c-4 hw; do
    check "tokprobe $v: the same result as kernel c, 1 thread" cmp -s $T/tn-$v $T/tn-c-1
done
$SP tokprobe --db $DB --corpus demo --run san --threads 0 >/dev/null 2>$T/e0 && rc=0 || rc=$?
check "tokprobe --threads 0: usage error naming the option" sh -c "[ $rc = 2 ] && grep -q -- '--threads' $T/e0"
done_testing
