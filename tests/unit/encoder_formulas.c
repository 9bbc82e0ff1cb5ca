/* tests/unit/encoder_formulas.c — encoder/enc_formulas.h, the per-element formulas both backends
 * call, checked on their own against hand computations (the CPU backend's ops are covered by
 * encoder_tv.c; the same functions are compiled as device code by make check-cuda).
 * Expected values: GELU(1) = Φ(1) = 0.8413447461, ELU(-1) = e^-1 - 1 = -0.6321205588,
 * σ(0) = 1/2, σ(2) = 0.8807970780; buckets and direction ranges by the definitions of
 * encoder_int.h (clip to [-clip, clip], shift by clip; FWD = keys <= i, ...).
 * The tanh GELU ("gelu_new") against 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))) in double
 * (Python's math: 0.8411919906 at 1, -0.1588080094 at -1, 2.4849157339 at 2.5, -0.0036373921 at
 * -3). MPNet's buckets (enc_f_t5_bucket) against what transformers 4.40.2 gives for relative
 * positions -300..300 (tests/data/hf/mpnet/ref/buckets.npy, written by
 * tests/reference/hf_family_fixtures.py; read from the repository root), and the bias lookup
 * by offset (enc_f_pos_bias) by its definition. DeBERTa-v2's buckets (enc_f_deberta_bucket) against
 * transformers' make_log_bucket_position on -512..512 (tests/data/hf/deberta-v3/ref/buckets.npy,
 * the same script), and the c2p/p2c rows and their table by offset by their definition.
 * Decoders (issue 38): SiLU(x) = x·σ(x) (SiLU(1) = 0.7310585786, SiLU(-2) = -0.2384058440), the
 * SwiGLU gate mode SiLU(pre)·a; RMSNorm's g·x/sqrt(mean x² + eps) on a row worked by hand
 * ([3, 4]: mean x² 12.5, so 3/√12.5 = 0.8485281374) and the CPU op on rows against the double
 * formula; RoPE's rotate_half form against the rotation of (lo, hi) by θ (cos θ, sin θ), and the
 * CPU op on two rows of two heads against it; grouped-query attention's key/value column of a query
 * head (enc_f_kv_off: h / (H / kv_heads), by its definition). */
#include "encoder/encoder_int.h"
#include "encoder/enc_formulas.h"
#include "tests/unit/t_harness.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* an int32 .npy of n values (version 1 header) into out; 0 when it is not one */
static int read_npy_i32(const char *path, int32_t *out, int n)
{
    FILE *f = fopen(path, "rb");
    unsigned char h[10];
    int ok = 0;
    if (f && fread(h, 1, 10, f) == 10 && !memcmp(h, "\x93NUMPY", 6) && h[6] == 1) {
        const long hl = h[8] | (long)h[9] << 8;
        char hdr[512] = "";
        ok = hl < (long)sizeof hdr && fread(hdr, 1, (size_t)hl, f) == (size_t)hl && strstr(hdr, "'<i4'") &&
             fread(out, sizeof(int32_t), (size_t)n, f) == (size_t)n;
    }
    if (f) fclose(f);
    return ok;
}

static void dir_range(int dir, int i, int n, int want_lo, int want_hi)
{
    int lo, hi;
    enc_f_dir_range(dir, i, n, &lo, &hi);
    T_EQ_INT(lo, want_lo);
    T_EQ_INT(hi, want_hi);
}

/* the CPU ops of decoders (rms_norm, rope) against double formulas */
static void decoder_ops(void)
{
    struct enc_backend be = { &enc_cpu_ops, NULL, 1 };
    float x[2][4] = { { 3, 4, 0, 0 }, { -1, 2, 0.5f, 7 } }, g[4] = { 1, 0.5f, 2, -1 }, o[2][4];
    enc_cpu_ops.rms_norm(&be, 2, 4, &x[0][0], g, 1e-6f, &o[0][0]);
    double worst = 0;
    for (int r = 0; r < 2; r++) {
        double ss = 0;
        for (int k = 0; k < 4; k++) ss += (double)x[r][k] * x[r][k];
        for (int k = 0; k < 4; k++) {
            const double ref = g[k] * x[r][k] / sqrt(ss / 4 + 1e-6);
            if (fabs(o[r][k] - ref) > worst) worst = fabs(o[r][k] - ref);
        }
    }
    T_CHECK(worst <= 1e-6);
    T_NEAR(o[0][0], 3.0 / sqrt(25.0 / 4 + 1e-6), 1e-6);
    /* rope: rows of 2 heads of dk 4 (pairs (0, 2), (1, 3)), row stride 10, cos/sin of each row */
    float q[2][10], q0[2][10], cs[2][4];
    for (int r = 0; r < 2; r++) {
        for (int c = 0; c < 10; c++) q[r][c] = q0[r][c] = (float)(r * 10 + c) * 0.1f - 0.7f;
        const double th[2] = { 0.3 + r, 0.05 * (r + 1) };
        for (int k = 0; k < 2; k++) { cs[r][k] = (float)cos(th[k]); cs[r][2 + k] = (float)sin(th[k]); }
    }
    enc_cpu_ops.rope(&be, 2, 2, 4, 4, &q[0][0], 10, &cs[0][0]);
    worst = 0;
    for (int r = 0; r < 2; r++)
        for (int c = 0; c < 10; c++) {
            double ref = q0[r][c];
            if (c < 8) {
                const int h = c / 4, k = c % 4 % 2, hi = c % 4 >= 2;
                const double lo = q0[r][h * 4 + k], up = q0[r][h * 4 + k + 2], C = cs[r][k], S = cs[r][2 + k];
                ref = hi ? up * C + lo * S : lo * C - up * S;   /* (lo + i·up)·e^{iθ} */
            }
            if (fabs(q[r][c] - ref) > worst) worst = fabs(q[r][c] - ref);
        }
    T_CHECK(worst <= 1e-6);                                 /* columns 8, 9 (no head) untouched: exact */
    /* partial rotary (GPT-NeoX): rot 2 of dk 4, pair (0, 1) by row 0's angle, columns 2, 3 untouched */
    float p4[4] = { 0.5f, -0.25f, 3, 4 }, pc[2] = { (float)cos(0.4), (float)sin(0.4) };
    enc_cpu_ops.rope(&be, 1, 1, 4, 2, p4, 4, pc);
    T_NEAR(p4[0], 0.5 * cos(0.4) + 0.25 * sin(0.4), 1e-6);
    T_NEAR(p4[1], -0.25 * cos(0.4) + 0.5 * sin(0.4), 1e-6);
    T_NEAR(p4[2], 3, 0);
    T_NEAR(p4[3], 4, 0);
}

int main(void)
{
    /* decoders: SiLU, SwiGLU, RMSNorm, RoPE */
    T_NEAR(enc_f_silu(1.0f), 0.7310585786, 1e-7);
    T_NEAR(enc_f_silu(-2.0f), -0.2384058440, 1e-7);
    T_NEAR(enc_f_gate(ENC_GATE_SILU, 1.0f, 2.0f, 99.0f, 1), 2 * 0.7310585786, 2e-7);
    T_NEAR(enc_f_rms_scale(3.0f, enc_f_rms_inv(25.0, 2, 0.0f), 1.0f), 0.8485281374, 1e-7);
    {
        const float lo = 0.6f, hi = -1.2f, th = 0.7f;
        T_NEAR(enc_f_rope_lo(lo, hi, cosf(th), sinf(th)), lo * cos(th) - hi * sin(th), 1e-6);
        T_NEAR(enc_f_rope_hi(lo, hi, cosf(th), sinf(th)), hi * cos(th) + lo * sin(th), 1e-6);
    }
    decoder_ops();
    /* grouped-query attention: 8 query heads on 2 key/value heads of 16 columns; 0 or H: each its own */
    T_EQ_INT(enc_f_kv_off(0, 8, 2, 16), 0);
    T_EQ_INT(enc_f_kv_off(3, 8, 2, 16), 0);
    T_EQ_INT(enc_f_kv_off(4, 8, 2, 16), 16);
    T_EQ_INT(enc_f_kv_off(7, 8, 2, 16), 16);
    T_EQ_INT(enc_f_kv_off(5, 8, 0, 16), 80);
    T_EQ_INT(enc_f_kv_off(5, 8, 8, 16), 80);

    /* activations */
    T_NEAR(enc_f_relu(-1.5f), 0.0, 0);
    T_NEAR(enc_f_relu(2.5f), 2.5, 0);
    T_NEAR(enc_f_gelu(1.0f), 0.8413447461, 1e-6);
    T_NEAR(enc_f_gelu(-1.0f), -0.1586552539, 1e-6);
    /* the CPU backend's vectorisable GELU against the double-precision formula (libm erf) on a
     * grid of [-12, 12]: A&S 7.1.26 errs by <= 1.5e-7 on erf, so by <= 0.75e-7·|x| on GELU, plus
     * float rounding of a value <= |x| (6e-8·|x|): bound 1e-7 + 2e-7·|x| */
    double gworst = 0;
    for (int k = -12 * 1024; k <= 12 * 1024; k++) {
        const float x = (float)k / 1024.0f;
        const double ref = 0.5 * x * (1.0 + erf(x / sqrt(2.0)));
        const double e = fabs(enc_cpu_gelu(x) - ref) / (1e-7 + 2e-7 * fabs(x));
        if (e > gworst) gworst = e;
    }
    printf("# enc_cpu_gelu: worst error %.3f of the bound\n", gworst);
    T_CHECK(gworst <= 1.0);
    T_NEAR(enc_f_elu(-1.0f), -0.6321205588, 1e-7);
    T_NEAR(enc_f_elu(3.0f), 3.0, 0);
    T_NEAR(enc_f_sigmoid(0.0f), 0.5, 0);
    T_NEAR(enc_f_sigmoid(2.0f), 0.8807970780, 1e-7);
    T_NEAR(enc_f_act(ENC_ACT_TANH, 0.5f), 0.4621171573, 1e-7);
    T_NEAR(enc_f_act(ENC_ACT_ELU, -1.0f), -0.6321205588, 1e-7);
    T_NEAR(enc_f_gelu_tanh(1.0f), 0.8411919906, 1e-6);
    T_NEAR(enc_f_gelu_tanh(-1.0f), -0.1588080094, 1e-6);
    T_NEAR(enc_f_act(ENC_ACT_GELU_TANH, 2.5f), 2.4849157339, 2e-6);
    T_NEAR(enc_f_act(ENC_ACT_GELU_TANH, -3.0f), -0.0036373921, 1e-7);

    /* MPNet's buckets: every relative position of -300..300 as transformers gives it */
    static int32_t want_bk[601];
    T_CHECK(read_npy_i32("tests/data/hf/mpnet/ref/buckets.npy", want_bk, 601));
    int bk_bad = 0;
    for (int r = -300; r <= 300; r++)
        if (enc_f_t5_bucket(r, 32, 128) != want_bk[r + 300]) {
            if (bk_bad++ < 5) printf("# relative position %d: bucket %d, transformers %d\n", r, enc_f_t5_bucket(r, 32, 128), want_bk[r + 300]);
        }
    T_EQ_INT(bk_bad, 0);
    T_EQ_INT(enc_f_t5_bucket(0, 32, 128), 0);
    T_EQ_INT(enc_f_t5_bucket(-1, 32, 128), 1);      /* a key before the query: the first half */
    T_EQ_INT(enc_f_t5_bucket(1, 32, 128), 17);      /* after: the second half */
    /* DeBERTa-v2's log buckets: -512..512 as transformers gives them, for the fixture's (8, 16) and
     * deberta-v3-base's (256, 512); then the c2p / p2c rows and their table by offset */
    static int32_t want_db[2 * 1025];
    T_CHECK(read_npy_i32("tests/data/hf/deberta-v3/ref/buckets.npy", want_db, 2 * 1025));
    static const int db_cfg[2][2] = { { 8, 16 }, { 256, 512 } };
    int db_bad = 0;
    for (int c = 0; c < 2; c++)
        for (int r = -512; r <= 512; r++) {
            const int got = enc_f_deberta_bucket(r, db_cfg[c][0], db_cfg[c][1]);
            if (got != want_db[c * 1025 + r + 512] && db_bad++ < 5)
                printf("# deberta (%d, %d): relative position %d: bucket %d, transformers %d\n", db_cfg[c][0], db_cfg[c][1], r, got,
                       want_db[c * 1025 + r + 512]);
        }
    T_EQ_INT(db_bad, 0);
    T_EQ_INT(enc_f_deberta_bucket(37, -1, 16), 37);      /* no buckets: the position itself */
    /* span 8, buckets (8, 16): query 30, key 0 is bucket 8, c2p row 8 + 8 = 16 clamped to 15; p2c
     * row −bucket(0 − 30) + 8 = 16 -> 15; query 0, key 30: rows 0 and 0; query 5, key 3: 10 and 10 */
    T_EQ_INT(enc_f_rp_c2p(30, 0, 8, 8, 16), 15);
    T_EQ_INT(enc_f_rp_p2c(30, 0, 8, 8, 16), 15);
    T_EQ_INT(enc_f_rp_c2p(0, 30, 8, 8, 16), 0);
    T_EQ_INT(enc_f_rp_p2c(0, 30, 8, 8, 16), 0);
    T_EQ_INT(enc_f_rp_c2p(5, 3, 8, 8, 16), 10);
    T_EQ_INT(enc_f_rp_p2c(5, 3, 8, 8, 16), 10);
    static const int32_t rp_tab[10] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9 };   /* offsets -2..2, (c2p, p2c) each */
    int c2, p2;
    enc_f_rp_cols(rp_tab, 2, 3, 2, &c2, &p2);            /* offset 1 */
    T_EQ_INT(c2 * 10 + p2, 67);
    enc_f_rp_cols(rp_tab, 2, 0, 9, &c2, &p2);            /* offset -9, clipped to -2 */
    T_EQ_INT(c2 * 10 + p2, 1);
    T_NEAR(enc_f_rp_score(2.0f, 6.0f, 0.25f), 2.0, 0);

    /* the bias by offset, clip 2, ld 3: row clip(j − i) + 2, column h */
    static const float tab[15] = { 0, 1, 2, 10, 11, 12, 20, 21, 22, 30, 31, 32, 40, 41, 42 };
    T_NEAR(enc_f_pos_bias(tab, 3, 2, 1, 5, 5), 21.0, 0);
    T_NEAR(enc_f_pos_bias(tab, 3, 2, 2, 0, 9), 42.0, 0);
    T_NEAR(enc_f_pos_bias(tab, 3, 2, 0, 9, 0), 0.0, 0);
    T_NEAR(enc_f_pos_bias(tab, 3, 2, 0, 3, 2), 10.0, 0);

    /* gates: pre = 0 gives f = 1/2 */
    T_NEAR(enc_f_gate(ENC_GATE_FUSION, 0.0f, 2.0f, 4.0f, 1), 3.0, 1e-7);
    T_NEAR(enc_f_gate(ENC_GATE_PSAN, 0.0f, -1.0f, 4.0f, 1), 0.5 * -0.6321205588 + 2.0, 1e-6);
    T_NEAR(enc_f_gate(ENC_GATE_PSAN, 0.0f, -1.0f, 4.0f, 0), 0.5 * -0.6321205588, 1e-7);

    /* relative buckets, clip 2: -5 -> 0, -2 -> 0, 0 -> 2, 1 -> 3, 7 -> 4 */
    T_EQ_INT(enc_f_rel_bucket(-5, 2), 0);
    T_EQ_INT(enc_f_rel_bucket(-2, 2), 0);
    T_EQ_INT(enc_f_rel_bucket(0, 2), 2);
    T_EQ_INT(enc_f_rel_bucket(1, 2), 3);
    T_EQ_INT(enc_f_rel_bucket(7, 2), 4);
    T_EQ_INT(enc_rel_bucket(7, 2), 4);              /* the exported twin */

    /* direction ranges, query 2 of 5 words; strict at the ends gives an empty range */
    dir_range(ENC_DIR_ALL, 2, 5, 0, 4);
    dir_range(ENC_DIR_FWD, 2, 5, 0, 2);
    dir_range(ENC_DIR_BWD, 2, 5, 2, 4);
    dir_range(ENC_DIR_FWD_STRICT, 2, 5, 0, 1);
    dir_range(ENC_DIR_BWD_STRICT, 2, 5, 3, 4);
    dir_range(ENC_DIR_FWD_STRICT, 0, 5, 0, -1);
    dir_range(ENC_DIR_BWD_STRICT, 4, 5, 5, 4);

    /* SSAN selection and the score: t·scale − α·d */
    T_CHECK(enc_f_sel_allows(1e-30f) && !enc_f_sel_allows(0.0f) && !enc_f_sel_allows(-1.0f));
    const int16_t d3 = 3;
    T_NEAR(enc_f_score_d(2.0f, 0.5f, ENC_DIST_NONE, 0.25f, 1, 4, NULL), 1.0, 0);
    T_NEAR(enc_f_score_d(2.0f, 0.5f, ENC_DIST_WORD, 0.25f, 1, 4, NULL), 1.0 - 0.75, 0);
    T_NEAR(enc_f_score_d(2.0f, 0.5f, ENC_DIST_DEP, 0.25f, 1, 4, &d3), 1.0 - 0.75, 0);
    T_NEAR(enc_f_score_f(2.0f, 0.5f, ENC_DIST_WORD, 0.25f, 4, 1, NULL), 1.0 - 0.75, 0);

    /* masked softmax numerator */
    T_NEAR(enc_f_masked_exp_d(1, 1.0, 1.0), 1.0, 0);
    T_NEAR(enc_f_masked_exp_d(0, 1.0, 1.0), 0.0, 0);
    T_NEAR(enc_f_masked_exp_f(1, -1.0f, 0.0f), 0.3678794412, 1e-7);

    /* pooling over 3 rows, d = 2: x = [[1,4],[2,5],[6,0]] */
    static const float x[6] = { 1, 4, 2, 5, 6, 0 }, e0[6] = { 0 }, e1[6] = { 0, 0, 0, 0, 0, 1e4f };
    T_NEAR(enc_f_pool(ENC_POOL_MEAN, 3, 2, 0, x, NULL), 3.0, 1e-7);
    T_NEAR(enc_f_pool(ENC_POOL_MAX, 3, 2, 1, x, NULL), 5.0, 0);
    T_NEAR(enc_f_pool(ENC_POOL_FIRST, 3, 2, 1, x, NULL), 4.0, 0);
    T_NEAR(enc_f_pool(ENC_POOL_ATT, 3, 2, 1, x, e0), 3.0, 1e-6);   /* equal scores: the mean */
    T_NEAR(enc_f_pool(ENC_POOL_ATT, 3, 2, 1, x, e1), 0.0, 1e-6);   /* one score dominates: its row */
    T_NEAR(enc_f_pool(ENC_POOL_MEAN, 0, 2, 0, x, NULL), 0.0, 0);

    /* the CPU PSA's e^x (x <= 0): within 2 float ulp of exp over [-86.9, 0] (below -87 it is clamped,
     * as documented); positive x gives 1 */
    double worst = 0;
    for (int k = 0; k <= 86900; k++) {
        float xv = -0.001f * (float)k, got = sp_exp_nonpos(xv);
        double ref = exp((double)xv), ulp = nextafterf((float)ref, INFINITY) - (float)ref;
        double err = fabs(got - ref) / ulp;
        if (err > worst) worst = err;
    }
    T_CHECK(worst <= 2.0);
    T_NEAR(sp_exp_nonpos(3.0f), 1.0, 0);
    /* a NaN (the scores of weights that overflow) stays NaN, so the non-finite check names it; and
     * no undefined float-to-int conversion on its way (the sanitizer build runs this) */
    T_CHECK(isnan(sp_exp_nonpos(NAN)));
    T_CHECK(isnan(enc_f_elu_fast(NAN)));
    T_CHECK(sp_exp_nonpos(-INFINITY) >= 0.0f && sp_exp_nonpos(-INFINITY) < 1e-37f);
    T_NEAR(enc_f_elu_fast(-1.0f), -0.6321205588, 1e-7);
    T_NEAR(enc_f_elu_fast(2.0f), 2.0, 0);
    return T_DONE();
}
