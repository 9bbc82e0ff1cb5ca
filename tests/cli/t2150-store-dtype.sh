# t2150-store-dtype.sh — encode --store-dtype f16|bf16: NumPy's conversions, half the bytes, widened on read, never mixed with f32 rows
# tier: fast
# Issue 24 item 7. Expected values: NumPy (numpy.float16; bfloat16 by bit manipulation on NumPy
# arrays: tests/reference/dtype_ref.py), the element sizes of IEEE binary16 / bfloat16 (2 bytes
# against float32's 4), and the spec's rules: the type is recorded with the encoder, is part of
# its fingerprint (an f16 run reuses no f32 row), a bad value is refused naming the choices.
. tests/cli/lib.sh
need_numpy
DRV=${SP_BUILD:-build}/tools/common_stype
if [ ! -x "$DRV" ]; then
    make -s --no-print-directory BUILD="${SP_BUILD:-build}" "$DRV" >/dev/null 2>&1 || true
fi
check "the driver $DRV is built" test -x "$DRV"
DB=$TMP/t.db
CFG=$TMP/tiny.json
cat >$CFG <<'JSON'
{"kind": "san", "d_model": 64, "heads": 4, "layers": 2, "d_ff": 128, "norm": "post", "activation": "relu",
 "ln_eps": 1e-6, "position": "seq", "emb_scale": true, "rel_pos": "none", "pooling": "mean", "seed": 1}
JSON
jv() { $PY -c "import json,sys; d=json.loads(sys.argv[1]); print(d[sys.argv[2]])" "$1" "$2"; }

# ---- the conversions themselves, against NumPy: specials, ties, subnormals, 300k random values
$PY tests/reference/dtype_ref.py values $TMP/v.f32
for t in f16 bf16; do
    $DRV $t <$TMP/v.f32 >$TMP/o.$t
    check "$t: every value narrowed and widened as NumPy does (ties to even, subnormals, inf, NaN)" \
        $PY tests/reference/dtype_ref.py check $t $TMP/v.f32 $TMP/o.$t
done

# ---- the store: one model, three types
$SP ingest --db $DB --corpus demo demo/demo.conllu >/dev/null 2>&1
for t in f32 f16 bf16; do
    $SP encode --db $DB --corpus demo --encoder $CFG --run r-$t --token-vectors --attention 0 --store-dtype $t \
        --json --quiet >$TMP/$t.json
done
expect_eq "f16 encodes all 32 sentences itself: the f32 rows are not reused" \
    "$(jv "$(cat $TMP/f16.json)" encoded) $(jv "$(cat $TMP/f16.json)" cached)" "32 0"
expect_eq "bf16 too" "$(jv "$(cat $TMP/bf16.json)" encoded) $(jv "$(cat $TMP/bf16.json)" cached)" "32 0"
expect_eq "three fingerprints" "$(cat $TMP/f32.json $TMP/f16.json $TMP/bf16.json | $PY -c "
import json,sys; print(len({json.loads(l)['fingerprint'] for l in sys.stdin}))")" 3
expect_eq "--json says the type" "$(jv "$(cat $TMP/bf16.json)" store_dtype)" bf16
expect_eq "the type is recorded with each encoder" \
    "$(sqlite3 $DB "select group_concat(store_dtype, ',') from (select store_dtype from encoder order by encoder_id)")" "f32,f16,bf16"
expect_eq "... and in each run's manifest" \
    "$(sqlite3 $DB "select group_concat(json_extract(manifest, '\$.store_dtype'), ',') from (select manifest from run order by run_id)")" \
    "f32,f16,bf16"
$PY tests/reference/dtype_ref.py store $DB >$TMP/store.out 2>&1 && rc=0 || rc=$?
expect_eq "every f16/bf16 blob (sentence vectors, token vectors, attention maps) is NumPy's conversion of the f32 blob, at half its size" \
    "$rc $(tail -1 $TMP/store.out)" "0 rows 192"
for col in "vector data" "vector tokens" "attention data"; do
    set -- $col
    expect_eq "$1.$2: f32 bytes = 2 x f16 bytes = 2 x bf16 bytes" \
        "$(sqlite3 $DB "select group_concat(b, ' ') from (select sum(length(x.$2)) b from $1 x join encoder e using (encoder_id) group by e.encoder_id order by e.encoder_id)")" \
        "$(sqlite3 $DB "select b || ' ' || (b / 2) || ' ' || (b / 2) from (select sum(length(x.$2)) b from $1 x where encoder_id = 1)")"
done

# ---- readers widen to float: export gives NumPy's widening of the f32 export's narrowed values
for w in vectors tokens attention; do
    for t in f32 f16 bf16; do $SP export --db $DB --run r-$t --what $w --format npy --out $TMP/$w-$t.npy --quiet 2>/dev/null; done
    check "export --what $w of the f16 and bf16 runs: float32, NumPy's f16/bf16 rounding of the f32 run's" $PY -c "
import sys; sys.path.insert(0, 'tests/reference')
import numpy as np, dtype_ref as r
a = np.load('$TMP/$w-f32.npy')
for t, conv in (('f16', r.f16_bits), ('bf16', r.bf16_bits)):
    b = np.load('$TMP/$w-' + t + '.npy')
    assert b.dtype == np.float32 and b.shape == a.shape, (b.dtype, b.shape, a.shape)
    assert np.array_equal(b, r.widen(conv(a), t)), t
    # the rounding error bound: half an ulp, 2^-11 (f16) / 2^-8 (bf16) relative, in the normal range
    big = np.abs(a) >= 2.0 ** -14
    rel = np.abs(b[big] - a[big]) / np.abs(a[big])
    assert rel.max() <= (2.0 ** -11 if t == 'f16' else 2.0 ** -8), (t, rel.max())
"
done

# ---- the cache: a re-run of a type reuses its own rows
$SP encode --db $DB --corpus demo --encoder $CFG --run r-f16 --token-vectors --attention 0 --store-dtype f16 --json --quiet >$TMP/again.json
expect_eq "f16 again: 32 cached, 0 encoded" "$(jv "$(cat $TMP/again.json)" cached) $(jv "$(cat $TMP/again.json)" encoded)" "32 0"
rc=0; $SP encode --db $DB --corpus demo --encoder $CFG --run r-f32 --store-dtype f16 --quiet 2>$TMP/mix.err || rc=$?
expect_eq "the f32 run's name with --store-dtype f16: refused (exit 1)" "$rc" 1
check "... naming the encoder that made it" grep -q "run 'r-f32' was made by encoder" $TMP/mix.err

# ---- a bad type
rc=0; $SP encode --db $DB --corpus demo --encoder $CFG --run x --store-dtype fp16 2>$TMP/bad.err >/dev/null || rc=$?
expect_eq "--store-dtype fp16: usage error (exit 2)" "$rc" 2
check "... naming the choices" grep -q -- "--store-dtype: expected f32, f16 or bf16, got 'fp16'" $TMP/bad.err
check "encode --help documents --store-dtype" sh -c "$SP encode --help | grep -q -- '--store-dtype f32|f16|bf16'"

# ---- the job key
mkdir -p $TMP/job
cp demo/demo.conllu $CFG $TMP/job/
cat >$TMP/job/job.json <<'JSON'
{"store": "s.db", "out": "out", "corpora": [{"name": "demo", "paths": ["demo.conllu"]}],
 "encoders": [{"config": "tiny.json", "inputs": ["demo"], "store-dtype": "bf16", "token-vectors": true}]}
JSON
rc=0; $SP run $TMP/job/job.json >/dev/null 2>$TMP/job.err || rc=$?
expect_eq "a job's encoder with \"store-dtype\": \"bf16\" runs (exit 0)" "$rc" 0
expect_eq "... and stores bf16" "$(sqlite3 $TMP/job/s.db "select store_dtype from encoder")" bf16
sed 's/"bf16"/"half"/' $TMP/job/job.json >$TMP/job/bad.json
rc=0; $SP run --check $TMP/job/bad.json >/dev/null 2>$TMP/jbad.err || rc=$?
check "a bad \"store-dtype\" in a job: refused, the JSON path and the choices named" \
    sh -c "[ $rc -ne 0 ] && grep -q 'encoders\[0\].store-dtype' $TMP/jbad.err && grep -q 'f32, f16 or bf16' $TMP/jbad.err"
done_testing
