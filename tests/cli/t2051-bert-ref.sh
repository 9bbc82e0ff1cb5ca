# t2051-bert-ref.sh — kind "bert" agrees with the NumPy float64 forward (tiny BERT, and MiniLM if present)
# tier: fast
# Kind "bert" against the independent NumPy float64 forward (tests/reference/bert_ref.py),
# through the driver tests/tools/encoder_bert_run.c (one CPU batch of sentences of different
# lengths): the tiny synthetic BERT of tests/reference/make_tiny_bert.py (hidden states and
# attention to 1e-5), and, when present, the real all-MiniLM-L6-v2 (docs/spec/models.md M3.4: hidden
# states <= 1e-4, attention <= 1e-5). The real model is looked for in $SP_BERT_MODEL, else
# ${SP_MODELS:-models}/all-MiniLM-L6-v2 (a BertModel directory); absent: skipped visibly.
. tests/cli/lib.sh
need_numpy
DRV=${SP_BUILD:-build}/tools/encoder_bert_run
if [ ! -x "$DRV" ]; then
    make -s --no-print-directory BUILD="${SP_BUILD:-build}" "$DRV" >/dev/null 2>&1 || true
fi
check "the driver $DRV is built" test -x "$DRV"

# compare DIR N TOL_H TOL_A: the C outputs of N sentences in DIR against the reference's
compare() {
    "$PY" - "$@" <<'PY'
import sys, numpy as np
d, n, th, ta = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
wh = wa = 0.0
for s in range(n):
    h, c = np.load("%s/hidden_%d.npy" % (d, s)), np.load("%s/c_hidden_%d.npy" % (d, s))
    a, ca = np.load("%s/attn_%d.npy" % (d, s)), np.load("%s/c_attn_%d.npy" % (d, s))
    assert h.shape == c.shape and a.shape == ca.shape, (h.shape, c.shape, a.shape, ca.shape)
    wh, wa = max(wh, float(np.abs(h - c).max())), max(wa, float(np.abs(a - ca).max()))
print("# max |dh| %.3g (tol %g), max |dattn| %.3g (tol %g)" % (wh, th, wa, ta))
sys.exit(0 if wh <= th and wa <= ta else 1)
PY
}

T=$TMP/tiny
check "make_tiny_bert.py writes a BertModel dir" "$PY" tests/reference/make_tiny_bert.py "$T" 13
check "bert_ref.py runs on it" "$PY" tests/reference/bert_ref.py "$T" "$T/ref" 5 3,7,12,16,9
check "the C forward runs on the same 5 sentences" "$DRV" "$T" "$T/ref" 1
check "tiny BERT: C float32 vs NumPy float64 within 1e-5 (hidden, attention)" compare "$T/ref" 5 1e-5 1e-5
# another seed, token type 1 on the last sentence, two threads: the same agreement
check "make_tiny_bert.py, seed 99" "$PY" tests/reference/make_tiny_bert.py "$T/s99" 99
check "bert_ref.py, seed 99" "$PY" tests/reference/bert_ref.py "$T/s99" "$T/s99/ref" 7 16,2,5
check "the C forward, 2 threads" "$DRV" "$T/s99" "$T/s99/ref" 2
check "tiny BERT seed 99: within 1e-5" compare "$T/s99/ref" 3 1e-5 1e-5

M=${SP_BERT_MODEL:-${SP_MODELS:-models}/all-MiniLM-L6-v2}
if [ ! -f "$M/model.safetensors" ]; then
    skip "real model: $M/model.safetensors absent (set SP_BERT_MODEL to a BertModel directory)"
else
    check "bert_ref.py on $M (3 sentences: 12, 40, 100 pieces)" "$PY" tests/reference/bert_ref.py "$M" "$TMP/real" 5 12,40,100
    check "the C forward on $M" "$DRV" "$M" "$TMP/real" 1
    check "real model: hidden states within 1e-4, attention within 1e-5 (M3.4)" compare "$TMP/real" 3 1e-4 1e-5
    # the determinism contract (common/gemm.h): 2 threads give the same bytes as 1
    mkdir "$TMP/real2" && cp "$TMP"/real/ids_* "$TMP"/real/types_* "$TMP/real2/"
    check "the C forward on $M, 2 threads" "$DRV" "$M" "$TMP/real2" 2
    same=yes
    for f in "$TMP"/real/c_*.npy; do cmp -s "$f" "$TMP/real2/${f##*/}" || same=no; done
    expect_eq "real model: 1 and 2 threads give the same bytes" "$same" yes
fi
done_testing
