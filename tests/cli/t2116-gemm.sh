# t2116-gemm.sh — `encode --gemm own|blas`: own GEMM bit-identical across threads, BLAS within rounding
# tier: fast
# `synprobe encode --gemm own|blas` (issue 15 item 1). The own path (default) gives the same
# bytes on 1 and 2 threads; the OpenBLAS path gives the same vectors within float rounding (the
# tolerance of tests/unit/common_gemm.c scaled to the encoder: 1e-4 absolute on vectors of
# magnitude ~1) but makes no bit promise; the manifest records the choice; a bad value is a usage
# error naming the choices. Expected values: the own path's own output (the relation between the
# two paths, not their values, is under test; their values are tested by t2050/t55).
. tests/cli/lib.sh
need_numpy
D=$TMP/demo
"$SP" demo --out "$D" --ingest-only >/dev/null 2>&1
DB=$D/demo.db
C=encoder/configs/ms-san.json
for v in "own 1" "own 2" "blas 1" "blas 2"; do
    set -- $v
    cp "$DB" "$TMP/$1$2.db"      # a store each: one store would serve the second run from its cache
    "$SP" encode --db "$TMP/$1$2.db" --corpus demo --encoder $C --run "$1$2" --gemm "$1" --threads "$2" --token-vectors >"$TMP/o$1$2" 2>&1 && rc=0 || rc=$?
    expect_eq "--gemm $1 --threads $2: exit 0" "$rc" 0
    check "... every sentence encoded" grep -q ' 0 cached, 32 encoded' "$TMP/o$1$2"
    "$SP" export --db "$TMP/$1$2.db" --run "$1$2" --what tokens --format npy --out "$TMP/$1$2.npy" >/dev/null 2>&1
done
expect_eq "own path: 1 and 2 threads give the same bytes" "$(cmp "$TMP/own1.npy" "$TMP/own2.npy" >/dev/null && echo same)" same
expect_eq "blas path, 1 and 2 threads: within 1e-4 of the own path" "$($PY -c "
import numpy as np
o = np.load('$TMP/own1.npy')
print(all(np.load('$TMP/blas%d.npy' % t).shape == o.shape and float(abs(np.load('$TMP/blas%d.npy' % t) - o).max()) < 1e-4 for t in (1, 2)))")" True
check "the manifest records gemm blas" sh -c "sqlite3 '$TMP/blas1.db' \"select manifest from run where name = 'blas1'\" | grep -q '\"gemm\": *\"blas\"'"
"$SP" encode --db "$DB" --corpus demo --encoder $C --run x --gemm mkl >/dev/null 2>"$TMP/e" && rc=0 || rc=$?
check "--gemm mkl: exit 2, names the choices" sh -c "[ $rc = 2 ] && grep -q 'expected own or blas' '$TMP/e'"
done_testing
