/* tests/unit/encoder_tv.c — docs/spec/structures.md test vectors TV-12 … TV-19 on the CPU backend's
 * internal ops (encoder_int.h), plus the safe-softmax empty-row rule of §0 and a naive check of
 * the gather/scatter relative-position form. Expected values are the spec's printed numbers
 * (tolerance 1e-5 absolute, §7) or hand computations written next to them. */
#include "encoder/encoder_int.h"
#include "tests/unit/t_harness.h"

#include <math.h>
#include <string.h>

static struct enc_backend be;
#define OPS enc_cpu_ops
#define TOL 1e-5
static const int three = 3;           /* one sentence of 3 rows, from row 0, for the pooling op */
static const size_t zero_off = 0;

static void near_vec(const float *got, const double *exp_, int n, const char *what)
{
    for (int i = 0; i < n; i++) {
        t_run++;
        if (!(fabs(got[i] - exp_[i]) <= TOL)) {
            t_fail++;
            fprintf(stderr, "FAIL %s[%d] = %.7f, expected %.7f\n", what, i, got[i], exp_[i]);
        }
    }
}

/* one head, L = 3, d_k = 2, Q = K = V = [[1,0],[0,1],[1,1]] */
static void run_tv12(int dir, int dis, const int16_t *dist, float *P, float *PV)
{
    static const float X[6] = { 1, 0, 0, 1, 1, 1 };
    struct enc_attn_args a;
    memset(&a, 0, sizeof a);
    a.n = 3; a.H = 1; a.dk = 2; a.q = a.k = a.v = X; a.ld_qkv = 2;
    a.out = PV; a.scale = 1.0f / sqrtf(2.0f); a.alpha = 1.0f; a.dist = dist; a.attn_mean = P;
    a.dir[0] = (int8_t)dir; a.dis[0] = (int8_t)dis;
    OPS.attention(&be, 1, &a);
}

static void tv12(void)
{
    float P[9], PV[6];
    run_tv12(ENC_DIR_FWD, ENC_DIST_WORD, NULL, P, PV);
    near_vec(P, (double[]){ 1, 0, 0, 0.153539, 0.846461, 0, 0.053464, 0.145331, 0.801205 }, 9, "TV-12 fwd+WORD P");
    near_vec(PV, (double[]){ 1, 0, 0.153539, 0.846461, 0.854669, 0.946536 }, 6, "TV-12 fwd+WORD PV");
    static const int16_t D[9] = { 0, 1, 2, 1, 0, 1, 2, 1, 0 };    /* heads [2,0,2] (1-based) */
    run_tv12(ENC_DIR_BWD, ENC_DIST_DEP, D, P, PV);
    near_vec(P, (double[]){ 0.759460, 0.137758, 0.102782, 0, 0.731059, 0.268941, 0, 0, 1 }, 9, "TV-12 bwd+DEP P");
    near_vec(PV, (double[]){ 0.862242, 0.240540, 0.268941, 1, 1, 1 }, 6, "TV-12 bwd+DEP PV");
    run_tv12(ENC_DIR_FWD, ENC_DIST_NONE, NULL, P, PV);
    near_vec(P, (double[]){ 1, 0, 0, 0.330238, 0.669762, 0, 0.248255, 0.248255, 0.503490 }, 9, "TV-12 fwd+NONE P");
    /* strict DiSAN mask: the first word's forward row is empty -> zeros (§5.2, §0) */
    run_tv12(ENC_DIR_FWD_STRICT, ENC_DIST_NONE, NULL, P, PV);
    near_vec(P, (double[]){ 0, 0, 0 }, 3, "strict fwd row 0 P");
    near_vec(PV, (double[]){ 0, 0 }, 2, "strict fwd row 0 PV");
    T_NEAR(P[3], 1.0, TOL);                         /* row 1 sees only word 0 */
}

static void tv13(void)
{
    /* fusion gate, d = 1: Î = I W_I = 1, Ô = O W_O = 4, f = σ(Î W_1 + Ô W_2 + b) = σ(5) */
    float I = 1, O = 2, WI = 1, WO = 2, W1 = 1, W2 = 1, b = 0, Ih, Oh, pre, G;
    OPS.linear(&be, 1, 1, 1, &I, 1, &WI, 1, NULL, &Ih, 1, 0);
    OPS.linear(&be, 1, 1, 1, &O, 1, &WO, 1, NULL, &Oh, 1, 0);
    OPS.linear(&be, 1, 1, 1, &Ih, 1, &W1, 1, &b, &pre, 1, 0);
    OPS.linear(&be, 1, 1, 1, &Oh, 1, &W2, 1, NULL, &pre, 1, 1);
    T_NEAR(pre, 5.0, TOL);
    float f = pre;
    OPS.act(&be, ENC_ACT_SIGMOID, 1, &f);
    T_NEAR(f, 0.993307, TOL);
    OPS.gate(&be, ENC_GATE_FUSION, 1, &pre, &Ih, &Oh, &G);
    T_NEAR(G, 1.020079, TOL);
    /* FFN block on x = [1,3], identity W1', W2', zero biases, then LN(x + FFN(x)) */
    float x[2] = { 1, 3 }, Id[4] = { 1, 0, 0, 1 }, z2[2] = { 0, 0 }, h[2], y[2], s[2], out[2], g1[2] = { 1, 1 };
    OPS.linear(&be, 1, 2, 2, x, 2, Id, 2, z2, h, 2, 0);
    OPS.act(&be, ENC_ACT_RELU, 2, h);
    OPS.linear(&be, 1, 2, 2, h, 2, Id, 2, z2, y, 2, 0);
    near_vec(y, (double[]){ 1, 3 }, 2, "TV-13 FFN");
    OPS.add(&be, 2, x, y, s);
    OPS.layer_norm(&be, 1, 2, s, g1, z2, 1e-6f, out);
    near_vec(out, (double[]){ -1.0, 1.0 }, 2, "TV-13 LN");
    /* pooling: U = [[1,-1],[2,0],[3,1]], FFN_p = identity function (E = U) */
    float U[6] = { 1, -1, 2, 0, 3, 1 }, att[2], mx[2];
    OPS.pool(&be, ENC_POOL_ATT, 1, &three, &zero_off, 2, U, U, att, 2);
    OPS.pool(&be, ENC_POOL_MAX, 1, &three, &zero_off, 2, U, NULL, mx, 2);
    near_vec(att, (double[]){ 2.575210, 0.575210 }, 2, "TV-13 att pool");
    near_vec(mx, (double[]){ 3, 1 }, 2, "TV-13 max pool");
    /* the per-feature weights a[:,k] = softmax([1,2,3]): read them off by pooling one-hot rows */
    float oh[6] = { 1, 0, 0, 0, 0, 0 }, wgt[2];
    OPS.pool(&be, ENC_POOL_ATT, 1, &three, &zero_off, 2, oh, U, wgt, 2);
    T_NEAR(wgt[0], 0.090031, TOL);
    /* two sentences in one call ([U0; U1] and [U2], out rows 3 apart) = one call each */
    const int n2[2] = { 2, 1 };
    const size_t off2[2] = { 0, 2 };
    float both[6], one0[2], one1[2];
    memset(both, 0x7f, sizeof both);
    OPS.pool(&be, ENC_POOL_ATT, 2, n2, off2, 2, U, U, both, 3);
    OPS.pool(&be, ENC_POOL_ATT, 1, &n2[0], &zero_off, 2, U, U, one0, 2);
    OPS.pool(&be, ENC_POOL_ATT, 1, &n2[1], &zero_off, 2, U + 4, U + 4, one1, 2);
    T_CHECK(memcmp(both, one0, sizeof one0) == 0 && memcmp(both + 3, one1, sizeof one1) == 0);
    T_CHECK(both[2] == both[2] && both[2] > 1e38f);   /* the gap between rows is not written */
    near_vec(one1, (double[]){ 3, 1 }, 2, "pool of one row");
}

static void tv14(void)
{
    /* SDOI rows {0,2}, {1,2}, {2}; scaled scores S given: Q = S, K = I, scale 1 */
    static const float S[9] = { 1, 2, 3, 0, 1, 0, 2, 2, 2 }, Id[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 };
    static const uint8_t anc[9] = { 1, 0, 1, 0, 1, 1, 0, 0, 1 };
    float P[9], out[9];
    struct enc_attn_args a;
    memset(&a, 0, sizeof a);
    a.n = 3; a.H = 1; a.dk = 3; a.q = S; a.k = Id; a.v = Id; a.ld_qkv = 3; a.out = out; a.scale = 1;
    a.allow = anc; a.attn_mean = P;
    OPS.attention(&be, 1, &a);
    near_vec(P, (double[]){ 0.119203, 0, 0.880797, 0, 0.731059, 0.268941, 0, 0, 1 }, 9, "TV-14 P");
    near_vec(out, (double[]){ 0.119203, 0, 0.880797, 0, 0.731059, 0.268941, 0, 0, 1 }, 9, "TV-14 PV (V = I)");
}

static void tv15(void)
{
    /* one phrase of 3 words, d = 2, W^{a1} = W^{a2} = I, b^a = 0 */
    float Pm[6] = { 1, 0, 0, 1, 1, 1 }, pt[6];
    int32_t pid[3] = { 0, 0, 0 };
    struct enc_psa_args a = { 3, 2, Pm, Pm, Pm, pid, pt, NULL };
    OPS.psa(&be, 1, &a);
    near_vec(pt, (double[]){ 0.731059, 1.0, 1.0, 0.731059, 0.731059, 0.731059 }, 6, "TV-15 p~");
    /* c = ELU([|p - p~| ; p ⊙ p~] W^c), W^c = [[1,0],[0,1],[-1,0],[0,-1]] */
    float ad[6], pr[6], c[6], Wc[8] = { 1, 0, 0, 1, -1, 0, 0, -1 };
    OPS.absdiff_mul(&be, 6, Pm, pt, ad, pr);
    OPS.linear(&be, 3, 2, 2, ad, 2, Wc, 2, NULL, c, 2, 0);
    OPS.linear(&be, 3, 2, 2, pr, 2, Wc + 4, 2, NULL, c, 2, 1);
    OPS.act(&be, ENC_ACT_ELU, 6, c);
    near_vec(c, (double[]){ -0.370051, 1, 1, -0.370051, -0.370051, -0.370051 }, 6, "TV-15 c");
    /* single-word phrase [1,0]: p~ = 0 (Q18), c = [1, 0] */
    float p1[2] = { 1, 0 }, t1[2] = { 9, 9 }, c1[2];
    int32_t pid1[1] = { 0 };
    struct enc_psa_args a1 = { 1, 2, p1, p1, p1, pid1, t1, NULL };
    OPS.psa(&be, 1, &a1);
    near_vec(t1, (double[]){ 0, 0 }, 2, "TV-15 single p~");
    OPS.absdiff_mul(&be, 2, p1, t1, ad, pr);
    OPS.linear(&be, 1, 2, 2, ad, 2, Wc, 2, NULL, c1, 2, 0);
    OPS.linear(&be, 1, 2, 2, pr, 2, Wc + 4, 2, NULL, c1, 2, 1);
    OPS.act(&be, ENC_ACT_ELU, 2, c1);
    near_vec(c1, (double[]){ 1, 0 }, 2, "TV-15 single c");
    /* two phrases side by side: blocks do not see each other (word 2 alone -> zeros) */
    float P3[6] = { 1, 0, 0, 1, 5, 5 }, o3[6], am[9];
    int32_t pid3[3] = { 0, 0, 1 };
    struct enc_psa_args a3 = { 3, 2, P3, P3, P3, pid3, o3, am };
    OPS.psa(&be, 1, &a3);
    near_vec(o3, (double[]){ 0, 1, 1, 0, 0, 0 }, 6, "PSA blocks");
    near_vec(am, (double[]){ 0, 1, 0, 1, 0, 0, 0, 0, 0 }, 9, "PSA attn map");
}

static void tv16(void)
{
    /* d = 1: M = 0.5, C = 1, W^g = [1, 1], W^m = [1, -1], zero biases */
    float M = 0.5f, C = 1, Wg[2] = { 1, 1 }, Wm[2] = { 1, -1 }, zero = 0, g, z, out;
    OPS.linear(&be, 1, 1, 1, &M, 1, &Wg[0], 1, &zero, &g, 1, 0);
    OPS.linear(&be, 1, 1, 1, &C, 1, &Wg[1], 1, NULL, &g, 1, 1);
    OPS.linear(&be, 1, 1, 1, &M, 1, &Wm[0], 1, &zero, &z, 1, 0);
    OPS.linear(&be, 1, 1, 1, &C, 1, &Wm[1], 1, NULL, &z, 1, 1);
    float G = g;
    OPS.act(&be, ENC_ACT_SIGMOID, 1, &G);
    T_NEAR(G, 0.817574, TOL);
    float el = z;
    OPS.act(&be, ENC_ACT_ELU, 1, &el);
    T_NEAR(el, -0.393469, TOL);
    OPS.gate(&be, ENC_GATE_PSAN, 1, &g, &z, NULL, &out);
    T_NEAR(out, -0.321690, TOL);
    OPS.gate(&be, ENC_GATE_PSAN, 1, &g, &z, &M, &out);
    T_NEAR(out, -0.230478, TOL);
    /* summary: m = [1,2,3], W^{e1} = W^{e2} = 1: e = ELU(m) = m; v = Σ softmax(e)·m */
    float m[3] = { 1, 2, 3 }, e[3], one = 1, v;
    OPS.linear(&be, 3, 1, 1, m, 1, &one, 1, &zero, e, 1, 0);
    OPS.act(&be, ENC_ACT_ELU, 3, e);
    OPS.pool(&be, ENC_POOL_ATT, 1, &three, &zero_off, 1, m, e, &v, 1);
    T_NEAR(v, 2.575210, TOL);
}

static void tv17(void)
{
    /* one query row: S = [2, 1, 0.5, -1], E_s = [0.3, -0.2, 1.5, 0.0] -> A = [1,0,1,0] */
    float q[16] = { 2, 1, 0.5f, -1 }, sq[16] = { 0.3f, -0.2f, 1.5f, 0.0f }, Id[16] = { 0 }, out[16], P[16];
    for (int i = 0; i < 4; i++) Id[i * 4 + i] = 1;
    struct enc_attn_args a;
    memset(&a, 0, sizeof a);
    a.n = 4; a.H = 1; a.dk = 4; a.q = q; a.k = Id; a.v = Id; a.ld_qkv = 4; a.out = out; a.scale = 1;
    a.sel_q = sq; a.sel_k = Id; a.ld_sel = 4; a.attn_mean = P;
    OPS.attention(&be, 1, &a);
    near_vec(P, (double[]){ 0.8175745, 0, 0.1824255, 0 }, 4, "TV-17 weights");
    /* rows 1..3 have E_s = 0 everywhere -> nothing selected -> zero rows */
    near_vec(P + 4, (double[]){ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }, 12, "TV-17 empty rows");
    near_vec(out + 4, (double[]){ 0, 0, 0, 0 }, 4, "TV-17 empty row output");
}

static void tv18(void)
{
    float y = enc_ssan_train_select(0.5f, 0.3, 0.8, 0.5f);
    T_NEAR(y, 0.085401, TOL);
    T_CHECK(!(y > 0.5f));                           /* training sample: A = 0; inference: E_s > 0 -> 1 */
}

static void tv19(void)
{
    float pe[4];
    enc_sinusoid(0, 4, pe); near_vec(pe, (double[]){ 0, 1, 0, 1 }, 4, "PE(0)");
    enc_sinusoid(1, 4, pe); near_vec(pe, (double[]){ 0.841471, 0.540302, 0.010000, 0.999950 }, 4, "PE(1)");
    enc_sinusoid(2, 4, pe); near_vec(pe, (double[]){ 0.909297, -0.416147, 0.019999, 0.999800 }, 4, "PE(2)");
    enc_sinusoid(3, 4, pe); near_vec(pe, (double[]){ 0.141120, -0.989992, 0.029996, 0.999550 }, 4, "PE(3)");
    T_EQ_INT(enc_rel_bucket(-5, 16), 11);           /* query `at`, key `Two` in TV-5 */
    T_EQ_INT(enc_rel_bucket(-20, 16), 0);
    T_EQ_INT(enc_rel_bucket(5, 16), 21);
    T_EQ_INT(enc_rel_bucket(40, 16), 32);
}

/* relative positions: the gather/scatter op equals the direct Shaw formula
 * S = q·(k + aK)/sqrt(dk), O = Σ P (v + aV), computed here naively on TV-5's rel matrix */
static void rel_naive(void)
{
    enum { N = 8, DK = 3, C = 2, R = 2 * C + 1 };
    static const int16_t rel[N * N] = {
        0, 1, 5, 5, 4, 2, 4, 3,   -1, 0, -2, -2, -1, 1, 3, 2,   -5, 2, 0, 6, 1, 3, 5, 4,   -5, 2, -6, 0, 1, 3, 5, 4,
        -4, 1, -1, -1, 0, 2, 4, 3,   -2, -1, -3, -3, -2, 0, -2, -1,   -4, -3, -5, -5, -4, 2, 0, 1,   -3, -2, -4, -4, -3, 1, -1, 0 };
    float q[N * DK], k[N * DK], v[N * DK], rk[R * DK], rv[R * DK], sk[7 * DK], sv[7 * DK], out[N * DK];
    struct sp_rng r;
    sp_rng_seed(&r, 7);
    float *all[] = { q, k, v, rk, rv, sk, sv };
    int cnt[] = { N * DK, N * DK, N * DK, R * DK, R * DK, 7 * DK, 7 * DK };
    for (int t = 0; t < 7; t++) for (int i = 0; i < cnt[t]; i++) all[t][i] = (float)(2 * sp_rng_uniform(&r) - 1);
    struct enc_attn_args a;
    memset(&a, 0, sizeof a);
    a.n = N; a.H = 1; a.dk = DK; a.q = q; a.k = k; a.v = v; a.ld_qkv = DK; a.out = out; a.scale = 1.0f / sqrtf(DK);
    a.rel = rel; a.rel_clip = C; a.rel_k = rk; a.rel_v = rv; a.seq_clip = 3; a.seq_k = sk; a.seq_v = sv;
    OPS.attention(&be, 1, &a);
    double maxerr = 0;
    for (int i = 0; i < N; i++) {
        double s[N], m = -1e300, z = 0, o[DK] = { 0 };
        for (int j = 0; j < N; j++) {
            int bi = rel[i * N + j] < -C ? 0 : rel[i * N + j] > C ? 2 * C : rel[i * N + j] + C;
            int d = j - i, bs = (d < -3 ? -3 : d > 3 ? 3 : d) + 3;
            s[j] = 0;
            for (int c = 0; c < DK; c++) s[j] += q[i * DK + c] * (k[j * DK + c] + rk[bi * DK + c] + sk[bs * DK + c]);
            s[j] /= sqrt(DK);
            if (s[j] > m) m = s[j];
        }
        for (int j = 0; j < N; j++) { s[j] = exp(s[j] - m); z += s[j]; }
        for (int j = 0; j < N; j++) {
            int bi = rel[i * N + j] < -C ? 0 : rel[i * N + j] > C ? 2 * C : rel[i * N + j] + C;
            int d = j - i, bs = (d < -3 ? -3 : d > 3 ? 3 : d) + 3;
            for (int c = 0; c < DK; c++) o[c] += s[j] / z * (v[j * DK + c] + rv[bi * DK + c] + sv[bs * DK + c]);
        }
        for (int c = 0; c < DK; c++) if (fabs(o[c] - out[i * DK + c]) > maxerr) maxerr = fabs(o[c] - out[i * DK + c]);
    }
    T_CHECK(maxerr < 1e-6);
}

int main(void)
{
    char err[SP_ERRLEN];
    SP_ASSERT(enc_cpu_ops.open(&be, err, sizeof err) == SP_OK);
    be.ops = &enc_cpu_ops;
    tv12(); tv13(); tv14(); tv15(); tv16(); tv17(); tv18(); tv19(); rel_naive();
    return T_DONE();
}
