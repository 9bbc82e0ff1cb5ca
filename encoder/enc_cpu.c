/* encoder/enc_cpu.c — the CPU backend: the reference ("oracle") implementation of every op in
 * struct enc_backend_ops (encoder_int.h).
 *
 * How it works: buffers are plain host memory (host_memory = 1, so weights are used in place).
 * Matrix products go through the project's own GEMM (common/gemm.h); everything else is a plain
 * loop with shape comments (llm.c style). Attention runs per head: S = Q_h K_hᵀ and out_h = P V_h
 * are products of one sentence, the masks, priors and the safe softmax of docs/spec/structures.md §0 (a fully
 * masked row gives zeros) are a loop per query row in between.
 *
 * Determinism: the graph packs the rows of many sentences into one product, so a row's result
 * must not depend on how many rows share the call, where it sits, or how many threads run it.
 * common/gemm.c guarantees exactly that (every output element is one FMA chain over k in order,
 * on every kernel), and every other op here is row- or sentence-local with reductions in a fixed
 * order. OpenBLAS could not: its Haswell/Zen kernels sum a row differently by its position in
 * the register block (tests/unit/encoder_batch.c and encoder_determinism.c check the contract).
 * Weights are packed for the GEMM on first use and kept per handle until the encoder uploads
 * new ones (params_changed).
 *
 * What it does not do: no hand-written SIMD but BERT's plain attention (AVX-512), no training
 * path (the Gumbel selector of §5.5 is only provided as a scalar helper for TV-18). */
#include "encoder/encoder_int.h"
#include "encoder/enc_formulas.h"   /* the per-element formulas, shared with enc_cuda.cu */
#include "encoder/enc_pieces.h"     /* download_pieces' walk, shared with enc_cuda.cu */

#include "common/gemm.h"
#include "common/small_gemm.h"

#include <math.h>
#include <stdatomic.h>
#include <string.h>

/* AVX-512 and AVX2 builds of the element-wise loops beside the baseline, picked at load time (GCC
 * on x86-64; elsewhere the baseline alone). -std=c11 keeps fp-contract off, so no clone fuses a
 * multiply-add and all of them give the same bits. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define CPU_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define CPU_CLONES
#endif

/* ---- memory ---- */

/* per-handle scratch (one handle per thread, encoder.h), grown on demand; one set per GEMM
 * worker, so the sentences of a batch can run their attention on the GEMM's threads */
enum { SC_BPACK, SC_S, SC_P, SC_E, SC_R, SC_PB, SC_ROW, SC_BK, SC_OK, SC_RP, SC_N };
struct scr { void *buf[SC_N]; size_t cap[SC_N]; };

/* a weight matrix packed for the GEMM, found by the pointer and shape the graph passes */
struct packed_w { const float *w; int K, N, ldw; struct sp_gemm_b b; };

struct cpu_state {
    struct scr *w; int n_w;    /* [n_w] scratch sets, w[0] the caller's */
    struct packed_w *pw; int n_pw, cap_pw;
};

static void *scratch(struct scr *sc, int slot, size_t bytes)
{
    if (bytes > sc->cap[slot]) {
        free(sc->buf[slot]);
        sc->buf[slot] = sp_gemm_alloc((bytes + sizeof(float) - 1) / sizeof(float));   /* 64-byte aligned */
        sc->cap[slot] = bytes;
    }
    return sc->buf[slot];
}

/* at least n scratch sets (called on the caller's thread before a parallel op) */
static struct scr *scratch_sets(struct cpu_state *st, int n)
{
    if (n > st->n_w) {
        st->w = sp_xrealloc(st->w, sizeof *st->w * (size_t)n);
        memset(st->w + st->n_w, 0, sizeof *st->w * (size_t)(n - st->n_w));
        st->n_w = n;
    }
    return st->w;
}

static int cpu_open(struct enc_backend *be, char *err, size_t n)
{
    be->host_memory = 1;
    be->state = sp_xcalloc(1, sizeof(struct cpu_state));
    scratch_sets(be->state, 1);
    return SP_OK;
}
static void cpu_params_changed(struct enc_backend *be)
{
    struct cpu_state *st = be->state;
    for (int i = 0; i < st->n_pw; i++) { free(st->pw[i].b.p); free(st->pw[i].b.h); }
    st->n_pw = 0;
}

static void cpu_close(struct enc_backend *be)
{
    struct cpu_state *st = be->state;
    if (!st) return;
    cpu_params_changed(be);
    free(st->pw);
    for (int w = 0; w < st->n_w; w++)
        for (int i = 0; i < SC_N; i++) free(st->w[w].buf[i]);
    free(st->w);
    free(st);
    be->state = NULL;
}
static void *cpu_alloc(struct enc_backend *be, size_t bytes) { return calloc(1, bytes ? bytes : 1); }
static void cpu_free(struct enc_backend *be, void *p) { free(p); }
static void cpu_copy(struct enc_backend *be, void *dst, const void *src, size_t bytes) { if (bytes) memcpy(dst, src, bytes); }

/* the walk of the CUDA backend's chunked copy with one chunk: the whole of src */
static void cpu_copy_pieces(struct enc_backend *be, int count, void *const *dst, const size_t *bytes, const void *src)
{
    size_t total = 0;
    for (int i = 0; i < count; i++) total += bytes[i];
    struct enc_pieces_walk w = { count, 0, 0, dst, bytes };
    enc_pieces_chunk(&w, 0, src, total);
}
static int cpu_sync(struct enc_backend *be, char *err, size_t n) { return SP_OK; }

/* ---- dense ---- */

/* W [K, N] (row stride ldw) packed for the GEMM: weights are packed once and kept */
static const struct sp_gemm_b *packed_weight(struct enc_backend *be, int K, int N, const float *W, int ldw)
{
    struct cpu_state *st = be->state;
    for (int i = 0; i < st->n_pw; i++)
        if (st->pw[i].w == W && st->pw[i].K == K && st->pw[i].N == N && st->pw[i].ldw == ldw) return &st->pw[i].b;
    if (st->n_pw == st->cap_pw) {
        st->cap_pw = st->cap_pw ? 2 * st->cap_pw : 32;
        st->pw = sp_xrealloc(st->pw, sizeof *st->pw * (size_t)st->cap_pw);
    }
    struct packed_w *p = &st->pw[st->n_pw++];
    p->w = W; p->K = K; p->N = N; p->ldw = ldw;
    sp_gemm_pack(&p->b, K, N, W, ldw, 0, sp_gemm_alloc(sp_gemm_packed_floats(K, N)));
    return &p->b;
}

/* a weight as the file holds it (f32, f16 or bf16; [out, in] parts side by side), packed in its
 * dtype and kept under key: the f16/bf16 panels are widened inside the product (common/gemm.h),
 * so the weight is never held as f32 */
static int cpu_pack_weight(struct enc_backend *be, const float *key, int K, int N, const struct enc_wpart *parts, int n_parts)
{
    struct cpu_state *st = be->state;
    struct sp_gemm_part gp8[8], *gp = n_parts <= 8 ? gp8 : sp_xmalloc(sizeof *gp * (size_t)n_parts);   /* a decoder's q | k, v heads */
    SP_ASSERT(n_parts >= 1);
    int dt = parts[0].dtype;
    for (int i = 0; i < n_parts; i++) {
        SP_ASSERT(parts[i].dtype >= ENC_DT_F32 && parts[i].dtype <= ENC_DT_BF16);
        gp[i] = (struct sp_gemm_part){ parts[i].w, parts[i].dtype == ENC_DT_F16 ? SP_GEMM_F16 : parts[i].dtype == ENC_DT_BF16 ? SP_GEMM_BF16 : SP_GEMM_F32,
                                       parts[i].cols, parts[i].ldw, parts[i].trans };
        if (parts[i].dtype != dt) dt = ENC_DT_F32;           /* mixed: widened */
    }
    const int gdt = dt == ENC_DT_F16 ? SP_GEMM_F16 : dt == ENC_DT_BF16 ? SP_GEMM_BF16 : SP_GEMM_F32;
    if (st->n_pw == st->cap_pw) {
        st->cap_pw = st->cap_pw ? 2 * st->cap_pw : 32;
        st->pw = sp_xrealloc(st->pw, sizeof *st->pw * (size_t)st->cap_pw);
    }
    struct packed_w *p = &st->pw[st->n_pw++];
    p->w = key; p->K = K; p->N = N; p->ldw = N;
    sp_gemm_pack_parts(&p->b, K, N, gp, n_parts, gdt, sp_gemm_alloc((sp_gemm_packed_bytes(K, N, gdt) + 3) / sizeof(float)));
    if (gp != gp8) free(gp);
    return SP_OK;
}

static void cpu_linear(struct enc_backend *be, int M, int K, int N, const float *X, int ldx,
                       const float *W, int ldw, const float *b, float *Y, int ldy, int accumulate)
{
    if (M <= 0 || N <= 0) return;
    sp_gemm(M, X, ldx, packed_weight(be, K, N, W, ldw), b, accumulate, Y, ldy);
}

/* the activation on each finished tile of the product, while it is in cache (element-wise: the
 * same bits as linear, then act) */
static void act_rows(enum enc_act a, size_t n, float *x);
static void act_post(void *arg, float *Y, int rows, int cols, int ldy)
{
    const enum enc_act a = *(const enum enc_act *)arg;
    for (int r = 0; r < rows; r++) act_rows(a, (size_t)cols, Y + (size_t)r * ldy);
}

static void cpu_linear_act(struct enc_backend *be, int M, int K, int N, const float *X, int ldx,
                           const float *W, int ldw, const float *b, float *Y, int ldy, enum enc_act a)
{
    if (M <= 0 || N <= 0) return;
    sp_gemm_post(M, X, ldx, packed_weight(be, K, N, W, ldw), b, 0, Y, ldy, act_post, &a);
}

/* residual + LayerNorm on each finished block of the product's rows while they are in cache (the
 * residual rows and Y were read from L3 by a separate pass), on whichever thread finished it. Only
 * for a block of whole rows: where the product split the columns among threads it leaves every
 * block and the caller runs the pass. The same arithmetic as add_layer_norm, so the same bits. */
static void ln_serial(int rows, int d, const float *x, const float *res, const float *g, const float *b, float eps, float *out);
struct resln { const float *Y0; int N; const float *res, *g, *b; float eps; float *out; atomic_int missed; };
static void resln_post(void *arg, float *Y, int rows, int cols, int ldy)
{
    struct resln *r = arg;
    const size_t off = (size_t)(Y - r->Y0);
    if (cols != r->N || ldy != r->N || off % (size_t)r->N) { atomic_store_explicit(&r->missed, 1, memory_order_relaxed); return; }
    const size_t r0 = off / (size_t)r->N;
    ln_serial(rows, r->N, Y, r->res + r0 * r->N, r->g, r->b, r->eps, r->out + r0 * r->N);
}

static void cpu_add_layer_norm(struct enc_backend *be, int rows, int d, const float *x, const float *res, const float *g,
                               const float *b, float eps, float *out);
static void cpu_linear_add_layer_norm(struct enc_backend *be, int M, int K, int N, const float *X, int ldx, const float *W,
                                      int ldw, const float *b, float *Y, const float *res, const float *g,
                                      const float *beta, float eps, float *out)
{
    if (M <= 0 || N <= 0) return;
    struct resln r = { Y, N, res, g, beta, eps, out, 0 };
    sp_gemm_post(M, X, ldx, packed_weight(be, K, N, W, ldw), b, 0, Y, N, resln_post, &r);
    /* the columns were split among threads (an item held part of each row): the second pass */
    if (atomic_load(&r.missed)) cpu_add_layer_norm(be, M, N, Y, res, g, beta, eps, out);
}

/* Y[M,N] (+)= X[M,K]·op(W) for an operand of this call only (trans: W is [N, K]) */
static void product(struct scr *sc, int M, int K, int N, const float *X, int ldx,
                    const float *W, int ldw, int trans, int accumulate, float *Y, int ldy)
{
    struct sp_gemm_b b;
    sp_gemm_pack(&b, K, N, W, ldw, trans, scratch(sc, SC_BPACK, sizeof(float) * sp_gemm_packed_floats(K, N)));
    sp_gemm(M, X, ldx, &b, NULL, accumulate, Y, ldy);
}

/* GELU with a vectorisable erf: Abramowitz & Stegun 7.1.26 (|error| <= 1.5e-7 on erf) over
 * sp_exp_nonpos, so the loop runs 8 lanes wide instead of calling libm's erff per element
 * (erff was 11% of a BERT forward). The result is within 3 float ulp of enc_f_gelu (tests/unit/
 * encoder_formulas.c checks it over [-12, 12]); the CUDA twin keeps erff. Same bits on every
 * clone: -std=c11 keeps fp-contract off. */
#define GELU_BLOCK 64
CPU_CLONES
static void act_gelu(size_t n, float *x)
{
    /* three short loops per block of 64 instead of one long one: the long body's dependency chain
     * (divide, two polynomials, exponent bits) filled the out-of-order window with one or two
     * vectors; split, it runs about 2x faster. Every element gets the same operations either way. */
    float e[GELU_BLOCK], t[GELU_BLOCK];
    for (size_t i0 = 0; i0 < n; i0 += GELU_BLOCK) {
        const size_t m = n - i0 < GELU_BLOCK ? n - i0 : GELU_BLOCK;
        float *y = x + i0;
        for (size_t i = 0; i < m; i++) {
            const float z = fabsf(y[i]) * 0.70710678118654752440f;
            e[i] = sp_exp_nonpos(-z * z);
        }
        for (size_t i = 0; i < m; i++) t[i] = 1.0f / (1.0f + 0.3275911f * (fabsf(y[i]) * 0.70710678118654752440f));
        for (size_t i = 0; i < m; i++) {
            const float p = ((((1.061405429f * t[i] - 1.453152027f) * t[i] + 1.421413741f) * t[i] - 0.284496736f) * t[i]
                             + 0.254829592f) * t[i];
            const float er = 1.0f - p * e[i];                 /* erf(|x|/√2) */
            y[i] = 0.5f * y[i] * (1.0f + (y[i] < 0.0f ? -er : er));
        }
    }
}

float enc_cpu_gelu(float x) { act_gelu(1, &x); return x; }

static void act_serial(enum enc_act a, size_t n, float *x)
{
    switch (a) {                                  /* one loop per kind: ReLU vectorises */
    case ENC_ACT_RELU: for (size_t i = 0; i < n; i++) x[i] = enc_f_relu(x[i]); break;
    case ENC_ACT_GELU: act_gelu(n, x); break;
    case ENC_ACT_ELU: for (size_t i = 0; i < n; i++) x[i] = enc_f_elu(x[i]); break;
    case ENC_ACT_TANH: for (size_t i = 0; i < n; i++) x[i] = tanhf(x[i]); break;
    case ENC_ACT_SIGMOID: for (size_t i = 0; i < n; i++) x[i] = enc_f_sigmoid(x[i]); break;
    case ENC_ACT_GELU_TANH: for (size_t i = 0; i < n; i++) x[i] = enc_f_gelu_tanh(x[i]); break;
    }
}

static void act_rows(enum enc_act a, size_t n, float *x) { act_serial(a, n, x); }

static void add_serial(size_t n, const float *a, const float *b, float *out)
{
    for (size_t i = 0; i < n; i++) out[i] = a[i] + b[i];
}

static void cpu_axpby(struct enc_backend *be, size_t n, float alpha, const float *a, float beta, const float *b, float *out)
{
    for (size_t i = 0; i < n; i++) out[i] = alpha * a[i] + beta * b[i];
}

/* LN over the last axis, biased variance, two passes in double (stable for large residuals).
 * Each row's sums run in k order, one double chain per row; LN_ROWS rows side by side, so the
 * chains overlap instead of each waiting on its adds' latency (the same bits as one row at a
 * time). res (optional): the row is x + res (one float add per element, as cpu_add), made in
 * out first. */
#define LN_ROWS 8
CPU_CLONES
static void ln_serial(int rows, int d, const float *x, const float *res, const float *g, const float *b, float eps, float *out)
{
    for (int r0 = 0; r0 < rows; r0 += LN_ROWS) {
        const int h = rows - r0 < LN_ROWS ? rows - r0 : LN_ROWS;
        const float *xr[LN_ROWS];
        for (int r = 0; r < h; r++) {
            const float *xi = x + (size_t)(r0 + r) * d;
            if (res) {
                const float *ri = res + (size_t)(r0 + r) * d;
                float *o = out + (size_t)(r0 + r) * d;
                for (int k = 0; k < d; k++) o[k] = xi[k] + ri[k];
                xi = o;
            }
            xr[r] = xi;
        }
        double mu[LN_ROWS] = { 0 }, var[LN_ROWS] = { 0 }, inv[LN_ROWS];
        if (h == LN_ROWS) {
            for (int k = 0; k < d; k++)
                for (int r = 0; r < LN_ROWS; r++) mu[r] += xr[r][k];
            for (int r = 0; r < LN_ROWS; r++) mu[r] /= d;
            for (int k = 0; k < d; k++)
                for (int r = 0; r < LN_ROWS; r++) { double t = xr[r][k] - mu[r]; var[r] += t * t; }
        } else {
            for (int r = 0; r < h; r++) {
                for (int k = 0; k < d; k++) mu[r] += xr[r][k];
                mu[r] /= d;
                for (int k = 0; k < d; k++) { double t = xr[r][k] - mu[r]; var[r] += t * t; }
            }
        }
        for (int r = 0; r < h; r++) {
            inv[r] = 1.0 / sqrt(var[r] / d + (double)eps);
            const float *xi = xr[r];
            float *o = out + (size_t)(r0 + r) * d;
            const double m = mu[r], iv = inv[r];
            for (int k = 0; k < d; k++) o[k] = (float)((xi[k] - m) * iv) * g[k] + b[k];
        }
    }
}

static void gate_serial(enum enc_gate mode, size_t n, const float *pre, const float *a, const float *b, float *out)
{
    for (size_t i = 0; i < n; i++) out[i] = enc_f_gate(mode, pre[i], a[i], b ? b[i] : 0.0f, b != NULL);
}

/* Element-wise ops on the GEMM's threads, in chunks (each element or row is computed by the
 * same code whichever thread takes its chunk: the same bits for any thread count). Small
 * arrays stay on the caller. */
#define EW_CHUNK 16384                     /* floats per item */
enum { EW_ACT, EW_ADD, EW_LN, EW_GATE };
struct ew_job {
    int op; enum enc_act act; enum enc_gate gate;
    const float *pre;                      /* gate */
    size_t n; int d;                       /* elements (act, add) or rows of d (LN) */
    float *x; const float *a, *b, *g, *res; float eps;
    size_t per;                            /* elements or rows per item */
};

static void ew_item(void *arg, int item, int worker)
{
    const struct ew_job *j = arg;
    const size_t i0 = (size_t)item * j->per, m = j->n - i0 < j->per ? j->n - i0 : j->per;
    switch (j->op) {
    case EW_ACT: act_serial(j->act, m, j->x + i0); break;
    case EW_ADD: add_serial(m, j->a + i0, j->b + i0, j->x + i0); break;
    case EW_GATE: gate_serial(j->gate, m, j->pre + i0, j->a + i0, j->b ? j->b + i0 : NULL, j->x + i0); break;
    case EW_LN: ln_serial((int)m, j->d, j->a + i0 * j->d, j->res ? j->res + i0 * j->d : NULL, j->g, j->b, j->eps, j->x + i0 * j->d); break;
    }
}

static void ew_run(struct ew_job *j, size_t floats_per_unit)
{
    j->per = EW_CHUNK / floats_per_unit ? EW_CHUNK / floats_per_unit : 1;
    const size_t items = (j->n + j->per - 1) / j->per;
    if (items < 2 || sp_gemm_threads() < 2) { j->per = j->n; ew_item(j, 0, 0); return; }
    sp_gemm_parallel((int)items, ew_item, j, 1 << 30);
}

static void cpu_act(struct enc_backend *be, enum enc_act a, size_t n, float *x)
{
    struct ew_job j = { .op = EW_ACT, .act = a, .n = n, .x = x };
    ew_run(&j, 1);
}

static void cpu_add(struct enc_backend *be, size_t n, const float *a, const float *b, float *out)
{
    struct ew_job j = { .op = EW_ADD, .n = n, .x = out, .a = a, .b = b };
    ew_run(&j, 1);
}

static void cpu_layer_norm(struct enc_backend *be, int rows, int d, const float *x, const float *g,
                           const float *b, float eps, float *out)
{
    if (rows <= 0) return;
    struct ew_job j = { .op = EW_LN, .n = (size_t)rows, .d = d, .x = out, .a = x, .g = g, .b = b, .eps = eps };
    ew_run(&j, (size_t)(d > 0 ? d : 1));
}

/* LN(x + res): the residual add and the norm in one pass over the rows (the same bits as add, then LN) */
static void cpu_add_layer_norm(struct enc_backend *be, int rows, int d, const float *x, const float *res, const float *g,
                               const float *b, float eps, float *out)
{
    if (rows <= 0) return;
    struct ew_job j = { .op = EW_LN, .n = (size_t)rows, .d = d, .x = out, .a = x, .res = res, .g = g, .b = b, .eps = eps };
    ew_run(&j, (size_t)(d > 0 ? d : 1));
}

static void cpu_gate(struct enc_backend *be, enum enc_gate mode, size_t n, const float *pre,
                     const float *a, const float *b, float *out)
{
    struct ew_job j = { .op = EW_GATE, .gate = mode, .n = n, .x = out, .pre = pre, .a = a, .b = b };
    ew_run(&j, 1);
}

/* RMSNorm: one row at a time, Σ x² in double in k order (the same bits for any thread count) */
static void rms_rows(int rows, int d, const float *x, const float *g, float eps, float *out)
{
    for (int r = 0; r < rows; r++) {
        const float *xi = x + (size_t)r * d;
        float *o = out + (size_t)r * d;
        double ss = 0;
        for (int k = 0; k < d; k++) ss += (double)xi[k] * xi[k];
        const double inv = enc_f_rms_inv(ss, d, eps);
        for (int k = 0; k < d; k++) o[k] = enc_f_rms_scale(xi[k], inv, g[k]);
    }
}

static void cpu_rms_norm(struct enc_backend *be, int rows, int d, const float *x, const float *g, float eps, float *out)
{
    if (rows > 0) rms_rows(rows, d, x, g, eps, out);
}

static void cpu_rope(struct enc_backend *be, int rows, int heads, int dk, int rot, float *x, int ldx, const float *cs)
{
    const int h2 = rot / 2;
    for (int r = 0; r < rows; r++) {
        const float *c = cs + (size_t)r * rot, *sn = c + h2;
        for (int h = 0; h < heads; h++) {
            float *xh = x + (size_t)r * ldx + (size_t)h * dk;
            for (int k = 0; k < h2; k++) {
                const float lo = xh[k], hi = xh[k + h2];
                xh[k] = enc_f_rope_lo(lo, hi, c[k], sn[k]);
                xh[k + h2] = enc_f_rope_hi(lo, hi, c[k], sn[k]);
            }
        }
    }
}

static void cpu_absdiff_mul(struct enc_backend *be, size_t n, const float *a, const float *b, float *absdiff, float *prod)
{
    for (size_t i = 0; i < n; i++) { absdiff[i] = fabsf(a[i] - b[i]); prod[i] = a[i] * b[i]; }
}

/* ---- attention ---- */

static void attention_one(struct scr *sc, const struct enc_attn_args *a)
{
    const int n = a->n, H = a->H, dk = a->dk, ldo = H * dk;
    const int nrk = a->rel_k ? 2 * a->rel_clip + 1 : 0;     /* struct buckets */
    const int nsk = a->seq_k ? 2 * a->seq_clip + 1 : 0;     /* seq buckets */
    const int nbk = nrk + nsk;
    const size_t nn = (size_t)n * n;
    float *S = scratch(sc, SC_S, sizeof(float) * nn);       /* q·k of one head */
    float *P = scratch(sc, SC_P, sizeof(float) * nn);       /* softmax of one head (0 = masked) */
    float *E = a->sel_q ? scratch(sc, SC_E, sizeof(float) * nn) : NULL;       /* SSAN E_s */
    float *R = nbk ? scratch(sc, SC_R, sizeof(float) * (size_t)n * nbk) : NULL;   /* q·w^K per bucket */
    float *PB = nbk ? scratch(sc, SC_PB, sizeof(float) * (size_t)n * nbk) : NULL; /* P per bucket */
    double *sr = scratch(sc, SC_ROW, sizeof(double) * (size_t)n);              /* scores of one row */
    uint8_t *ok = scratch(sc, SC_OK, (size_t)n);
    int32_t *bk = nrk ? scratch(sc, SC_BK, sizeof(int32_t) * nn) : NULL;       /* struct bucket of (i, j) */
    /* DeBERTa: q_i·k^P[r] (c2p) and k_j·q^P[r] (p2c) of every row r once per head, then gathered */
    const int nrp = a->rp_k || a->rp_q ? a->rp_rows : 0;
    float *C2P = nrp ? scratch(sc, SC_RP, sizeof(float) * 2 * (size_t)n * nrp) : NULL, *P2C = C2P ? C2P + (size_t)n * nrp : NULL;
    if (a->attn_mean) memset(a->attn_mean, 0, sizeof(float) * nn);
    for (size_t t = 0; nrk && t < nn; t++) bk[t] = enc_f_rel_bucket(a->rel[t], a->rel_clip);
    const float invH = 1.0f / (float)H;
    for (int h = 0; h < H; h++) {
        const int off = h * dk, koff = enc_f_kv_off(h, H, a->kv_heads, dk), dir = a->dir[h], dis = a->dis[h];
        /* BERT's heads (and SAN's): the softmax in float with the vectorisable exp (within 2 ulp of
         * expf; as the CUDA backend, in float); the general path below scores in double */
        const int plain = !a->allow && !E && !nbk && !nrp && dis == ENC_DIST_NONE;
        product(sc, n, dk, n, a->q + off, a->ld_qkv, a->k + koff, a->ld_qkv, 1, 0, S, n);
        if (E) product(sc, n, dk, n, a->sel_q + off, a->ld_sel, a->sel_k + off, a->ld_sel, 1, 0, E, n);
        /* R = q_i (w^K)ᵀ once per row; the score term is then a gather (§5.6 efficient form) */
        if (nrk) product(sc, n, dk, nrk, a->q + off, a->ld_qkv, a->rel_k, dk, 1, 0, R, nbk);
        if (nsk) product(sc, n, dk, nsk, a->q + off, a->ld_qkv, a->seq_k, dk, 1, 0, R + nrk, nbk);
        if (nbk) memset(PB, 0, sizeof(float) * (size_t)n * nbk);
        if (a->rp_k) product(sc, n, dk, nrp, a->q + off, a->ld_qkv, a->rp_k + off, a->rp_ld, 1, 0, C2P, nrp);
        if (a->rp_q) product(sc, n, dk, nrp, a->k + koff, a->ld_qkv, a->rp_q + off, a->rp_ld, 1, 0, P2C, nrp);
        for (int i = 0; i < n; i++) {
            /* direction masks as a key range */
            int lo, hi;
            enc_f_dir_range(dir, i, n, &lo, &hi);
            const float *Si = S + (size_t)i * n, *Ri = R ? R + (size_t)i * nbk : NULL;
            float *Pi = P + (size_t)i * n, *PBi = PB ? PB + (size_t)i * nbk : NULL;
            memset(Pi, 0, sizeof(float) * n);
            if (plain) {                              /* no mask, prior or bucket: float softmax */
                if (lo > hi) continue;
                float *f = (float *)sr, mf = -INFINITY, zf = 0.0f;
                if (a->pos_bias)                      /* MPNet: + its head's bias, after the scale */
                    for (int j = lo; j <= hi; j++) {
                        f[j] = Si[j] * a->scale + enc_f_pos_bias(a->pos_bias, a->pos_ld, a->pos_clip, h, i, j);
                        mf = f[j] > mf ? f[j] : mf;
                    }
                else
                    for (int j = lo; j <= hi; j++) { f[j] = Si[j] * a->scale; mf = f[j] > mf ? f[j] : mf; }
                for (int j = lo; j <= hi; j++) f[j] = sp_exp_nonpos(f[j] - mf);
                for (int j = lo; j <= hi; j++) zf += f[j];
                const float izf = 1.0f / zf;
                for (int j = lo; j <= hi; j++) Pi[j] = f[j] * izf;
                if (a->attn_mean) { float *am = a->attn_mean + (size_t)i * n; for (int j = lo; j <= hi; j++) am[j] += Pi[j] * invH; }
                continue;
            }
            double m = -INFINITY;
            int any = 0;
            for (int j = lo; j <= hi; j++) {
                int allowed = !a->allow || a->allow[(size_t)i * n + j];
                if (allowed && E) allowed = enc_f_sel_allows(E[(size_t)i * n + j]);   /* SSAN: A = [E_s > 0] */
                ok[j] = (uint8_t)allowed;
                if (!allowed) continue;
                float t = Si[j];
                if (nrk) t += Ri[bk[(size_t)i * n + j]];
                if (nsk) t += Ri[nrk + enc_f_rel_bucket(j - i, a->seq_clip)];
                double sc = enc_f_score_d(t, a->scale, dis, a->alpha, i, j, a->dist ? a->dist + (size_t)i * n + j : NULL);
                if (a->pos_bias) sc += enc_f_pos_bias(a->pos_bias, a->pos_ld, a->pos_clip, h, i, j);
                if (nrp) {                            /* DeBERTa: c2p of (i, j) + p2c of (j, i), scaled */
                    int c2, p2;
                    enc_f_rp_cols(a->rp_idx, a->rp_max, i, j, &c2, &p2);
                    sc += enc_f_rp_score(a->rp_k ? C2P[(size_t)i * nrp + c2] : 0.0f, a->rp_q ? P2C[(size_t)j * nrp + p2] : 0.0f, a->scale);
                }
                sr[j] = sc;
                if (sc > m) m = sc;
                any = 1;
            }
            if (!any) continue;                       /* safe softmax: empty row -> zeros */
            double z = 0;
            for (int j = lo; j <= hi; j++) if (ok[j]) { sr[j] = enc_f_masked_exp_d(1, sr[j], m); z += sr[j]; }
            const double iz = 1.0 / z;
            for (int j = lo; j <= hi; j++) if (ok[j]) Pi[j] = (float)(sr[j] * iz);
            if (nrk) for (int j = lo; j <= hi; j++) PBi[bk[(size_t)i * n + j]] += Pi[j];
            if (nsk) for (int j = lo; j <= hi; j++) PBi[nrk + enc_f_rel_bucket(j - i, a->seq_clip)] += Pi[j];
            if (a->attn_mean) { float *am = a->attn_mean + (size_t)i * n; for (int j = lo; j <= hi; j++) am[j] += Pi[j] * invH; }
        }
        /* out_h = P V_h (+ bucket masses times w^V, the scatter form of the value term) */
        product(sc, n, n, dk, P, n, a->v + koff, a->ld_qkv, 0, 0, a->out + off, ldo);
        if (nrk) product(sc, n, nrk, dk, PB, nbk, a->rel_v, dk, 0, 1, a->out + off, ldo);
        if (nsk) product(sc, n, nsk, dk, PB + nrk, nbk, a->seq_v, dk, 0, 1, a->out + off, ldo);
    }
}

/* BERT's attention (every head plain: no mask, prior, selector, bucket or map; MPNet's additive
 * position bias allowed) without the GEMM:
 * the products of one head are n×dk×n and n×n×dk, too small for common/gemm.c's packing and
 * padded edge tiles (they were 12% of a MiniLM forward, attention_one's loops and packing most of
 * it). The same arithmetic, so the same bits as attention_one on every kernel: S[i][j] is one FMA
 * chain over k = 0..dk-1 from +0 (k[j][k]·q[i][k]: the product commutes), the softmax the same
 * float loops in the same order, out[i][c] one FMA chain over j = 0..n-1 from +0 (P[i][j]·v[j][c])
 * — common/gemm.h's contract, which attention_one's products keep.
 * The scores are kept transposed, Sᵀ[j][i] (key j, sixteen queries in the lanes): each query's
 * softmax then runs over j in order in its own lane, sixteen queries at a time (row by row, its max
 * and its float sum were scalar chains: 43% of this function). AVX-512, dk a multiple of 16 up to 64. */
#ifdef __x86_64__
#include <immintrin.h>
#define ATT_FAST 1
#define ATT_RK 8                               /* key rows per score block */
#define ATT_RV 4                               /* context rows per block */
__attribute__((target("avx512f")))
static void attention_plain_avx512(struct scr *sc, const struct enc_attn_args *a)
{
    const int n = a->n, H = a->H, dk = a->dk, ldo = H * dk, ld = a->ld_qkv, np = (n + 15) & ~15, nv = dk / 16;
    const int d = H * dk, nk = (n + ATT_RK - 1) / ATT_RK * ATT_RK;
    float *Qt = scratch(sc, SC_BPACK, sizeof(float) * ((size_t)d * np + (size_t)nk * d));   /* Qᵀ [d][np], then K [nk][d] */
    float *St = scratch(sc, SC_S, sizeof(float) * (size_t)nk * np);        /* Sᵀ, then Pᵀ [nk][np] */
    float *Kc = Qt + (size_t)d * np;
    /* one pass over the sentence's query and key rows, whole (per head and column, every access
     * missed the cache: the batch's Q|K|V is past L2): Q transposed (zero past query n), K
     * contiguous (zero rows past key n, so a score block is always whole) */
    sp_transpose_strided(a->q, ld, n, d, Qt, np);
    for (int j = 0; j < n; j++) memcpy(Kc + (size_t)j * d, a->k + (size_t)j * ld, sizeof(float) * d);
    memset(Kc + (size_t)n * d, 0, sizeof(float) * (size_t)(nk - n) * d);
    /* MPNet's bias by offset: bb[j − i + np − 1] for key j, query i < np (lanes past n included) */
    float *bb = a->pos_bias ? scratch(sc, SC_ROW, sizeof(float) * (size_t)(n + np)) : NULL;
    for (int h = 0; h < H; h++) {
        const int off = h * dk;
        const float *qt = Qt + (size_t)off * np, *kh = Kc + off, *v = a->v + off;
        for (int t = 0; bb && t < n + np - 1; t++) bb[t] = enc_f_pos_bias(a->pos_bias, a->pos_ld, a->pos_clip, h, 0, t - (np - 1));
        /* Sᵀ = K_h Q_hᵀ: ATT_RK keys × 16 queries, one chain per element over k in order */
        for (int j0 = 0; j0 < nk; j0 += ATT_RK) {
            const float *kr[ATT_RK];
            for (int r = 0; r < ATT_RK; r++) kr[r] = kh + (size_t)(j0 + r) * d;
            for (int i0 = 0; i0 < np; i0 += 16) {
                __m512 c[ATT_RK];
                for (int r = 0; r < ATT_RK; r++) c[r] = _mm512_setzero_ps();
                for (int kk = 0; kk < dk; kk++) {
                    const __m512 qv = _mm512_loadu_ps(qt + (size_t)kk * np + i0);
                    for (int r = 0; r < ATT_RK; r++) c[r] = _mm512_fmadd_ps(_mm512_set1_ps(kr[r][kk]), qv, c[r]);
                }
                for (int r = 0; r < ATT_RK; r++) _mm512_storeu_ps(St + (size_t)(j0 + r) * np + i0, c[r]);
            }
        }
        /* each query's softmax as attention_one's plain path (float, the max and the sum in key
         * order), a lane per query; the loops over the lanes vectorise */
        for (int i0 = 0; i0 < np; i0 += 16) {
            float mf[16], zf[16], izf[16];
            for (int l = 0; l < 16; l++) { mf[l] = -INFINITY; zf[l] = 0.0f; }
            if (bb)                            /* + the bias of (i0 + l, j): bb[j − i0 − l + np − 1] */
                for (int j = 0; j < n; j++) {
                    float *f = St + (size_t)j * np + i0;
                    const float *bj = bb + (j - i0 + np - 1);
                    for (int l = 0; l < 16; l++) { f[l] = f[l] * a->scale + bj[-l]; mf[l] = f[l] > mf[l] ? f[l] : mf[l]; }
                }
            else
                for (int j = 0; j < n; j++) {
                    float *f = St + (size_t)j * np + i0;
                    for (int l = 0; l < 16; l++) { f[l] = f[l] * a->scale; mf[l] = f[l] > mf[l] ? f[l] : mf[l]; }
                }
            for (int j = 0; j < n; j++) {
                float *f = St + (size_t)j * np + i0;
                for (int l = 0; l < 16; l++) f[l] = sp_exp_nonpos(f[l] - mf[l]);
            }
            for (int j = 0; j < n; j++) {
                const float *f = St + (size_t)j * np + i0;
                for (int l = 0; l < 16; l++) zf[l] += f[l];
            }
            for (int l = 0; l < 16; l++) izf[l] = 1.0f / zf[l];
            for (int j = 0; j < n; j++) {
                float *f = St + (size_t)j * np + i0;
                for (int l = 0; l < 16; l++) f[l] = f[l] * izf[l];
            }
        }
        /* out_h = P V_h: ATT_RV queries × dk, one chain per element over j in order (P[i][j] = Pᵀ[j][i]) */
        for (int i0 = 0; i0 < n; i0 += ATT_RV) {
            const int rows = n - i0 < ATT_RV ? n - i0 : ATT_RV;
            __m512 c[ATT_RV][4];
            for (int r = 0; r < ATT_RV; r++)
                for (int u = 0; u < 4; u++) c[r][u] = _mm512_setzero_ps();
            const float *pc = St + i0;         /* lanes past query n hold finite values, never stored */
            if (nv == 2) {
                for (int j = 0; j < n; j++) {
                    const float *vr = v + (size_t)j * ld, *pj = pc + (size_t)j * np;
                    const __m512 v0 = _mm512_loadu_ps(vr), v1 = _mm512_loadu_ps(vr + 16);
                    for (int r = 0; r < ATT_RV; r++) {
                        const __m512 pv = _mm512_set1_ps(pj[r]);
                        c[r][0] = _mm512_fmadd_ps(pv, v0, c[r][0]);
                        c[r][1] = _mm512_fmadd_ps(pv, v1, c[r][1]);
                    }
                }
            } else {
                for (int j = 0; j < n; j++)
                    for (int u = 0; u < nv; u++) {
                        const __m512 vv = _mm512_loadu_ps(v + (size_t)j * ld + 16 * u);
                        for (int r = 0; r < ATT_RV; r++) c[r][u] = _mm512_fmadd_ps(_mm512_set1_ps(pc[(size_t)j * np + r]), vv, c[r][u]);
                    }
            }
            for (int r = 0; r < rows; r++)
                for (int u = 0; u < nv; u++) _mm512_storeu_ps(a->out + (size_t)(i0 + r) * ldo + off + 16 * u, c[r][u]);
        }
    }
}
#endif

/* attention_plain_avx512 applies: every head plain, no maps, the CPU and the GEMM kernel AVX-512
 * (SP_GEMM_KERNEL=avx2/c keep the GEMM path: the same bits, tests/unit/encoder_attn_fast.c) */
static int attention_is_plain(const struct enc_attn_args *a)
{
    if (a->allow || a->sel_q || a->rel_k || a->seq_k || a->rp_k || a->rp_q || a->attn_mean || a->dk % 16 || a->dk > 64 ||
        (a->kv_heads > 0 && a->kv_heads < a->H))
        return 0;
    for (int h = 0; h < a->H; h++) if (a->dir[h] != ENC_DIR_ALL || a->dis[h] != ENC_DIST_NONE) return 0;
    return 1;
}

/* A batch's sentences on the GEMM's threads, one sentence (args[i], size bytes each) per item,
 * each item with its worker's scratch: the same bytes as one call per sentence on any thread. */
typedef void (*sentence_fn)(struct scr *sc, const void *args);
struct sentence_job { struct scr *w; const char *args; size_t size; sentence_fn fn; };

static void sentence_item(void *arg, int item, int worker)
{
    const struct sentence_job *j = arg;
    j->fn(&j->w[worker], j->args + (size_t)item * j->size);
}

static void per_sentence(struct enc_backend *be, int n, const void *args, size_t size, sentence_fn fn)
{
    if (n == 1) { fn(&((struct cpu_state *)be->state)->w[0], args); return; }
    const int nw = sp_gemm_threads();
    struct sentence_job j = { scratch_sets(be->state, nw), args, size, fn };
    sp_gemm_parallel(n, sentence_item, &j, nw);
}

static void attention_item(struct scr *sc, const void *a)
{
#ifdef ATT_FAST
    if (attention_is_plain(a) && !strcmp(sp_gemm_kernel(), "avx512")) { attention_plain_avx512(sc, a); return; }
#endif
    attention_one(sc, a);
}

static void cpu_attention(struct enc_backend *be, int n, const struct enc_attn_args *a)
{
    per_sentence(be, n, a, sizeof *a, attention_item);
}

/* ---- PSAN phrase attention, one phrase block at a time ---- */

/* the phrase loops are cloned for AVX-512 / AVX2 (CPU_CLONES, top of the file) */

CPU_CLONES
static void psa_one(struct scr *sc, const struct enc_psa_args *a)
{
    const int n = a->n, d = a->d;
    /* W[j][k]: ELU scores then exp weights of one query row; mx/z/acc per feature */
    float *W = scratch(sc, SC_S, sizeof(float) * (size_t)(n ? n : 1) * d);
    float *mx = scratch(sc, SC_P, sizeof(float) * 3 * (size_t)d), *z = mx + d, *acc = z + d;
    if (a->attn_mean) memset(a->attn_mean, 0, sizeof(float) * (size_t)n * n);
    int s0 = 0;
    while (s0 < n) {
        int e0 = s0;                                  /* block [s0, e0] */
        while (e0 + 1 < n && a->pid[e0 + 1] == a->pid[s0]) e0++;
        for (int i = s0; i <= e0; i++) {
            float *o = a->out + (size_t)i * d;
            if (e0 == s0) { memset(o, 0, sizeof(float) * d); continue; }   /* Q18 */
            const float *ai = a->a1 + (size_t)i * d;
            for (int k = 0; k < d; k++) { mx[k] = -INFINITY; z[k] = 0.0f; acc[k] = 0.0f; }
            /* loops run over the features k (contiguous) inside the keys j */
            for (int j = s0; j <= e0; j++) {
                if (j == i) continue;
                const float *aj = a->a2 + (size_t)j * d;
                float *wj = W + (size_t)(j - s0) * d;
                for (int k = 0; k < d; k++) { wj[k] = enc_f_elu_fast(ai[k] + aj[k]); mx[k] = wj[k] > mx[k] ? wj[k] : mx[k]; }
            }
            for (int j = s0; j <= e0; j++) {
                if (j == i) continue;
                const float *pj = a->pm + (size_t)j * d;
                float *wj = W + (size_t)(j - s0) * d;
                for (int k = 0; k < d; k++) { wj[k] = sp_exp_nonpos(wj[k] - mx[k]); z[k] += wj[k]; acc[k] += wj[k] * pj[k]; }
            }
            for (int k = 0; k < d; k++) o[k] = acc[k] / z[k];
            if (a->attn_mean)
                for (int j = s0; j <= e0; j++) {
                    if (j == i) continue;
                    const float *wj = W + (size_t)(j - s0) * d;
                    double t = 0;
                    for (int k = 0; k < d; k++) t += wj[k] / z[k];
                    a->attn_mean[(size_t)i * n + j] = (float)(t / d);
                }
        }
        s0 = e0 + 1;
    }
}

static void psa_item(struct scr *sc, const void *a) { psa_one(sc, a); }

static void cpu_psa(struct enc_backend *be, int n, const struct enc_psa_args *a)
{
    per_sentence(be, n, a, sizeof *a, psa_item);
}

/* ---- pooling ---- */

static void cpu_pool(struct enc_backend *be, enum enc_pooling mode, int count, const int *n, const size_t *off, int d,
                     const float *x, const float *e, float *out, int ldo)
{
    for (int s = 0; s < count; s++) {
        const size_t r0 = off[s] * (size_t)d;
        for (int k = 0; k < d; k++) out[(size_t)s * ldo + k] = enc_f_pool(mode, n[s], d, k, x + r0, e ? e + r0 : NULL);
    }
}

const struct enc_backend_ops enc_cpu_ops = {
    .name = "cpu",
    .open = cpu_open, .close = cpu_close,
    .alloc = cpu_alloc, .free = cpu_free, .upload = cpu_copy, .download = cpu_copy,
    .download_pieces = cpu_copy_pieces, .sync = cpu_sync,
    .linear = cpu_linear, .act = cpu_act, .add = cpu_add, .axpby = cpu_axpby,
    .layer_norm = cpu_layer_norm, .gate = cpu_gate, .absdiff_mul = cpu_absdiff_mul,
    .attention = cpu_attention, .psa = cpu_psa, .pool = cpu_pool,
    .params_changed = cpu_params_changed,
    .pack_weight = cpu_pack_weight,
    .linear_act = cpu_linear_act, .add_layer_norm = cpu_add_layer_norm,
    .linear_add_layer_norm = cpu_linear_add_layer_norm,
    .rms_norm = cpu_rms_norm, .rope = cpu_rope,
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

int enc_rel_bucket(int rel, int clip) { return enc_f_rel_bucket(rel, clip); }

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

/* the GEMM's threads (process-wide); results do not depend on them (common/gemm.h) */
void enc_set_threads(int n) { sp_gemm_set_threads(n > 0 ? n : 1); }
