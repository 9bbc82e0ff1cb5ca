/* encoder/enc_cpu.c — the CPU backend: the reference ("oracle") implementation of every op in
 * struct enc_backend_ops (encoder_int.h).
 *
 * How it works: buffers are plain host memory (host_memory = 1, so weights are used in place).
 * Matrix products go through OpenBLAS cblas_sgemm; everything else is a plain loop with shape
 * comments (llm.c style). Attention is computed one (head, query row) at a time, so a fully
 * masked row is handled exactly as the safe softmax of SPEC §0 says (zeros). Reductions run in a
 * fixed order and the only threading is inside sgemm, which partitions output blocks, so results
 * do not depend on the thread count (tests/unit/encoder_determinism.c checks this).
 *
 * What it does not do: no SIMD, no batching across sentences, no training path (the Gumbel
 * selector of §5.5 is only provided as a scalar helper for TV-18). */
#include "encoder/encoder_int.h"

#include <cblas.h>
#include <math.h>
#include <string.h>

/* ---- memory ---- */

static int cpu_open(struct enc_backend *be, char *err, size_t n) { be->host_memory = 1; be->state = NULL; return SP_OK; }
static void cpu_close(struct enc_backend *be) { (void)be; }
static void *cpu_alloc(struct enc_backend *be, size_t bytes) { return calloc(1, bytes ? bytes : 1); }
static void cpu_free(struct enc_backend *be, void *p) { free(p); }
static void cpu_copy(struct enc_backend *be, void *dst, const void *src, size_t bytes) { if (bytes) memcpy(dst, src, bytes); }
static int cpu_sync(struct enc_backend *be, char *err, size_t n) { return SP_OK; }

/* ---- dense ---- */

static void cpu_linear(struct enc_backend *be, int M, int K, int N, const float *X, int ldx,
                       const float *W, int ldw, const float *b, float *Y, int ldy, int accumulate)
{
    if (M <= 0 || N <= 0) return;
    float beta = accumulate ? 1.0f : 0.0f;
    if (b) {
        /* Y (+)= b first, then Y += X·W: the bias is added before the product in both modes */
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++) Y[(size_t)i * ldy + j] = (accumulate ? Y[(size_t)i * ldy + j] : 0.0f) + b[j];
        beta = 1.0f;
    }
    if (K <= 0) { if (!b && !accumulate) for (int i = 0; i < M; i++) memset(Y + (size_t)i * ldy, 0, sizeof(float) * N); return; }
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0f, X, ldx, W, ldw, beta, Y, ldy);
}

static inline float elu(float x) { return x > 0 ? x : expm1f(x); }
static inline float sigm(float x) { return 1.0f / (1.0f + expf(-x)); }

static void cpu_act(struct enc_backend *be, enum enc_act a, size_t n, float *x)
{
    for (size_t i = 0; i < n; i++) {
        float v = x[i];
        switch (a) {
        case ENC_ACT_RELU: x[i] = v > 0 ? v : 0.0f; break;
        case ENC_ACT_GELU: x[i] = 0.5f * v * (1.0f + erff(v * (float)M_SQRT1_2)); break;
        case ENC_ACT_ELU: x[i] = elu(v); break;
        case ENC_ACT_TANH: x[i] = tanhf(v); break;
        case ENC_ACT_SIGMOID: x[i] = sigm(v); break;
        }
    }
}

static void cpu_add(struct enc_backend *be, size_t n, const float *a, const float *b, float *out)
{
    for (size_t i = 0; i < n; i++) out[i] = a[i] + b[i];
}

static void cpu_axpby(struct enc_backend *be, size_t n, float alpha, const float *a, float beta, const float *b, float *out)
{
    for (size_t i = 0; i < n; i++) out[i] = alpha * a[i] + beta * b[i];
}

/* LN over the last axis, biased variance, two passes in double (stable for large residuals) */
static void cpu_layer_norm(struct enc_backend *be, int rows, int d, const float *x, const float *g,
                           const float *b, float eps, float *out)
{
    for (int r = 0; r < rows; r++) {
        const float *xr = x + (size_t)r * d;
        float *o = out + (size_t)r * d;
        double mu = 0, var = 0;
        for (int k = 0; k < d; k++) mu += xr[k];
        mu /= d;
        for (int k = 0; k < d; k++) { double t = xr[k] - mu; var += t * t; }
        var /= d;
        double inv = 1.0 / sqrt(var + (double)eps);
        for (int k = 0; k < d; k++) o[k] = (float)((xr[k] - mu) * inv) * g[k] + b[k];
    }
}

static void cpu_gate(struct enc_backend *be, enum enc_gate mode, size_t n, const float *pre,
                     const float *a, const float *b, float *out)
{
    for (size_t i = 0; i < n; i++) {
        float f = sigm(pre[i]);
        if (mode == ENC_GATE_FUSION) out[i] = f * a[i] + (1.0f - f) * b[i];
        else out[i] = f * elu(a[i]) + (b ? (1.0f - f) * b[i] : 0.0f);
    }
}

static void cpu_absdiff_mul(struct enc_backend *be, size_t n, const float *a, const float *b, float *absdiff, float *prod)
{
    for (size_t i = 0; i < n; i++) { absdiff[i] = fabsf(a[i] - b[i]); prod[i] = a[i] * b[i]; }
}

/* ---- attention ---- */

static int dir_allows(int dir, int i, int j)
{
    switch (dir) {
    case ENC_DIR_FWD: return j <= i;
    case ENC_DIR_BWD: return j >= i;
    case ENC_DIR_FWD_STRICT: return j < i;
    case ENC_DIR_BWD_STRICT: return j > i;
    default: return 1;
    }
}

static void cpu_attention(struct enc_backend *be, const struct enc_attn_args *a)
{
    const int n = a->n, H = a->H, dk = a->dk;
    const int nrk = a->rel_k ? 2 * a->rel_clip + 1 : 0;     /* struct buckets */
    const int nsk = a->seq_k ? 2 * a->seq_clip + 1 : 0;     /* seq buckets */
    double *s = sp_xmalloc(sizeof(double) * (size_t)n);     /* scores of one row */
    uint8_t *ok = sp_xmalloc((size_t)n);
    float *rk = sp_xmalloc(sizeof(float) * (size_t)(nrk + nsk + 1));   /* q·w^K per bucket */
    float *pb = sp_xcalloc((size_t)(nrk + nsk + 1), sizeof(float));    /* P scattered into buckets */
    if (a->attn_mean) memset(a->attn_mean, 0, sizeof(float) * (size_t)n * n);
    for (int h = 0; h < H; h++) {
        const int off = h * dk, dir = a->dir[h], dis = a->dis[h];
        for (int i = 0; i < n; i++) {
            const float *qi = a->q + (size_t)i * a->ld_qkv + off;
            float *oi = a->out + (size_t)i * H * dk + off;
            /* R = q_i (w^K)ᵀ once per row; the score term is then a gather (§5.6 efficient form) */
            for (int r = 0; r < nrk; r++) {
                float t = 0; for (int c = 0; c < dk; c++) t += qi[c] * a->rel_k[(size_t)r * dk + c]; rk[r] = t;
            }
            for (int r = 0; r < nsk; r++) {
                float t = 0; for (int c = 0; c < dk; c++) t += qi[c] * a->seq_k[(size_t)r * dk + c]; rk[nrk + r] = t;
            }
            double m = -INFINITY;
            int any = 0;
            for (int j = 0; j < n; j++) {
                int allowed = dir_allows(dir, i, j);
                if (allowed && a->allow) allowed = a->allow[(size_t)i * n + j] != 0;
                if (allowed && a->sel_q) {           /* SSAN: A = [E_s > 0], E_s unscaled */
                    const float *sq = a->sel_q + (size_t)i * a->ld_sel + off, *sk = a->sel_k + (size_t)j * a->ld_sel + off;
                    float es = 0; for (int c = 0; c < dk; c++) es += sq[c] * sk[c];
                    allowed = es > 0.0f;
                }
                ok[j] = (uint8_t)allowed;
                if (!allowed) continue;
                const float *kj = a->k + (size_t)j * a->ld_qkv + off;
                float t = 0; for (int c = 0; c < dk; c++) t += qi[c] * kj[c];
                if (nrk) t += rk[enc_rel_bucket(a->rel[(size_t)i * n + j], a->rel_clip)];
                if (nsk) t += rk[nrk + enc_rel_bucket(j - i, a->seq_clip)];
                double sc = (double)t * a->scale;
                if (dis == ENC_DIST_WORD) sc -= (double)a->alpha * abs(i - j);
                else if (dis == ENC_DIST_DEP) sc -= (double)a->alpha * a->dist[(size_t)i * n + j];
                s[j] = sc;
                if (sc > m) m = sc;
                any = 1;
            }
            memset(oi, 0, sizeof(float) * dk);
            if (!any) continue;                       /* safe softmax: empty row -> zeros */
            double z = 0;
            for (int j = 0; j < n; j++) if (ok[j]) { s[j] = exp(s[j] - m); z += s[j]; }
            if (nrk || nsk) memset(pb, 0, sizeof(float) * (size_t)(nrk + nsk));
            for (int j = 0; j < n; j++) {
                if (!ok[j]) continue;
                float p = (float)(s[j] / z);
                const float *vj = a->v + (size_t)j * a->ld_qkv + off;
                for (int c = 0; c < dk; c++) oi[c] += p * vj[c];
                if (nrk) pb[enc_rel_bucket(a->rel[(size_t)i * n + j], a->rel_clip)] += p;
                if (nsk) pb[nrk + enc_rel_bucket(j - i, a->seq_clip)] += p;
                if (a->attn_mean) a->attn_mean[(size_t)i * n + j] += p / H;
            }
            /* value term: bucket masses times w^V (scatter form) */
            for (int r = 0; r < nrk; r++) if (pb[r] != 0.0f)
                for (int c = 0; c < dk; c++) oi[c] += pb[r] * a->rel_v[(size_t)r * dk + c];
            for (int r = 0; r < nsk; r++) if (pb[nrk + r] != 0.0f)
                for (int c = 0; c < dk; c++) oi[c] += pb[nrk + r] * a->seq_v[(size_t)r * dk + c];
        }
    }
    free(s); free(ok); free(rk); free(pb);
}

/* ---- PSAN phrase attention, one phrase block at a time ---- */

static void cpu_psa(struct enc_backend *be, const struct enc_psa_args *a)
{
    const int n = a->n, d = a->d;
    double *w = sp_xmalloc(sizeof(double) * (size_t)(n ? n : 1));
    if (a->attn_mean) memset(a->attn_mean, 0, sizeof(float) * (size_t)n * n);
    int s0 = 0;
    while (s0 < n) {
        int e0 = s0;                                  /* block [s0, e0] */
        while (e0 + 1 < n && a->pid[e0 + 1] == a->pid[s0]) e0++;
        for (int i = s0; i <= e0; i++) {
            float *o = a->out + (size_t)i * d;
            if (e0 == s0) { memset(o, 0, sizeof(float) * d); continue; }   /* Q18 */
            for (int k = 0; k < d; k++) {
                double m = -INFINITY, z = 0, acc = 0;
                float ai = a->a1[(size_t)i * d + k];
                for (int j = s0; j <= e0; j++) {
                    if (j == i) continue;
                    w[j] = elu(ai + a->a2[(size_t)j * d + k]);
                    if (w[j] > m) m = w[j];
                }
                for (int j = s0; j <= e0; j++) if (j != i) { w[j] = exp(w[j] - m); z += w[j]; }
                for (int j = s0; j <= e0; j++) {
                    if (j == i) continue;
                    double p = w[j] / z;
                    acc += p * a->pm[(size_t)j * d + k];
                    if (a->attn_mean) a->attn_mean[(size_t)i * n + j] += (float)(p / d);
                }
                o[k] = (float)acc;
            }
        }
        s0 = e0 + 1;
    }
    free(w);
}

/* ---- pooling ---- */

static void cpu_pool(struct enc_backend *be, enum enc_pooling mode, int n, int d, const float *x,
                     const float *e, float *out)
{
    for (int k = 0; k < d; k++) {
        double acc;
        switch (mode) {
        case ENC_POOL_MEAN:
            acc = 0; for (int i = 0; i < n; i++) acc += x[(size_t)i * d + k];
            out[k] = n ? (float)(acc / n) : 0.0f;
            break;
        case ENC_POOL_MAX: {
            float m = n ? x[k] : 0.0f;
            for (int i = 1; i < n; i++) if (x[(size_t)i * d + k] > m) m = x[(size_t)i * d + k];
            out[k] = m;
            break;
        }
        case ENC_POOL_FIRST: out[k] = n ? x[k] : 0.0f; break;
        case ENC_POOL_ATT: {
            double m = -INFINITY, z = 0; acc = 0;
            for (int i = 0; i < n; i++) if (e[(size_t)i * d + k] > m) m = e[(size_t)i * d + k];
            for (int i = 0; i < n; i++) {
                double p = exp(e[(size_t)i * d + k] - m);
                z += p; acc += p * x[(size_t)i * d + k];
            }
            out[k] = n ? (float)(acc / z) : 0.0f;
            break;
        }
        }
    }
}

const struct enc_backend_ops enc_cpu_ops = {
    .name = "cpu",
    .open = cpu_open, .close = cpu_close,
    .alloc = cpu_alloc, .free = cpu_free, .upload = cpu_copy, .download = cpu_copy, .sync = cpu_sync,
    .linear = cpu_linear, .act = cpu_act, .add = cpu_add, .axpby = cpu_axpby,
    .layer_norm = cpu_layer_norm, .gate = cpu_gate, .absdiff_mul = cpu_absdiff_mul,
    .attention = cpu_attention, .psa = cpu_psa, .pool = cpu_pool,
};

/* ---- small shared helpers ---- */

void enc_sinusoid(int pos, int d, float *out)
{
    for (int c = 0; c < d; c++) {
        int k2 = c & ~1;                              /* 2k */
        double ang = pos / pow(10000.0, (double)k2 / d);
        out[c] = (float)((c & 1) ? cos(ang) : sin(ang));
    }
}

int enc_rel_bucket(int rel, int clip) { return (rel < -clip ? -clip : rel > clip ? clip : rel) + clip; }

float enc_ssan_train_select(float es, double u1, double u2, float tau)
{
    double g1 = -log(-log(u1)), g2 = -log(-log(u2));
    return (float)(1.0 / (1.0 + exp(-((es + g1 - g2) / tau))));
}

uint64_t enc_fnv1a(const char *s, uint64_t h)
{
    if (!h) h = 0xcbf29ce484222325ull;
    for (; *s; s++) { h ^= (unsigned char)*s; h *= 0x100000001b3ull; }
    return h;
}

void enc_set_threads(int n) { openblas_set_num_threads(n > 0 ? n : 1); }
