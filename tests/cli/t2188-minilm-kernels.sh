# t2188-minilm-kernels.sh — MiniLM's vectors are the same bytes on every GEMM kernel, thread count and batch size
# tier: fast
# Issue 26 item 3: the forward's fused and re-blocked paths (the AVX-512 attention of BERT's plain
# heads, bias+GELU on the product's tiles, residual+LayerNorm in one pass, the column split that
# balances threads, the packed micro-panels) keep the determinism contract (docs/reproducibility.md,
# common/gemm.h): `synprobe encode` of the demo corpus with MiniLM gives byte-identical token and
# sentence vectors under SP_GEMM_KERNEL=avx512 (where the CPU has it: the new attention path),
# avx2 and c, with --threads 1 and 2, and with --batch-tokens 64 and the default. (That these
# vectors are right is t2103's and t2051's check against the independent NumPy reference.)
. tests/cli/lib.sh
need_models
M=$(cd $MODELS/all-MiniLM-L6-v2 && pwd)
printf '{"kind": "bert", "model": "%s", "layer": 6}\n' "$M" >$TMP/L6.json
kernels="avx2 c"
grep -q avx512f /proc/cpuinfo && kernels="avx512 $kernels"
n=0
run() {   # NAME KERNEL ARGS...: encode into its own store, export tokens and sentences
    name=$1; kn=$2; shift 2
    $SP ingest --db $TMP/$name.db --corpus demo demo/demo.conllu >/dev/null 2>&1
    SP_GEMM_KERNEL=$kn $SP encode --db $TMP/$name.db --corpus demo --encoder $TMP/L6.json --run r --token-vectors "$@" >$TMP/$name.out 2>&1 || echo "encode $name failed" >>$TMP/fail
    $SP export --db $TMP/$name.db --run r --what tokens --format npy --out $TMP/$name.tok.npy >/dev/null 2>&1
    $SP export --db $TMP/$name.db --run r --what vectors --format npy --out $TMP/$name.sent.npy >/dev/null 2>&1
}
first=
for kn in $kernels; do
    for th in 1 2; do
        [ $kn = c ] && [ $th = 2 ] && continue          # the plain C kernel is slow: one run
        run "$kn-t$th" $kn --threads $th
        [ -n "$first" ] || first="$kn-t$th"
    done
done
run "b64" ${kernels%% *} --threads 2 --batch-tokens 64
expect_eq "every encode ran" "$(cat $TMP/fail 2>/dev/null)" ""
for f in $TMP/*.tok.npy; do
    nm=$(basename $f .tok.npy)
    [ "$nm" = "$first" ] && continue
    check "$nm: token and sentence vectors the same bytes as $first" \
        sh -c "cmp -s $TMP/$first.tok.npy $f && cmp -s $TMP/$first.sent.npy $TMP/$nm.sent.npy"
done
done_testing
