/* probes/classifier.c — logistic regression and one-hidden-layer MLP trained like SentEval's
 * PyTorch classifier (docs/spec/probing.md §1.4), in float32 on synprobe's own GEMM (common/gemm.h).
 *
 * HOW IT WORKS. One training step on a batch of B rows (gathered into xb):
 *   logreg  logits = xb·Wᵀ + b                       (one product, calling thread)
 *           dlogits = (softmax − onehot)/B
 *           for each fixed column chunk of W: dW[:,chunk] = dlogitsᵀ·xb[:,chunk], then the
 *           optimizer update of that chunk                        (parallel over chunks)
 *   MLP     for each panel of 32 hidden units: z = xb·W1ᵀ + b1, dropout, sigmoid (parallel)
 *           logits = h·W2ᵀ + b2; dlogits; dW2 = dlogitsᵀ·h; dh = dlogits·W2   (calling thread)
 *           dz = dh·h(1−h)·mask/(1−p), db1                          (calling thread)
 *           for each fixed column chunk of W1: dW1[:,chunk] = dzᵀ·xb[:,chunk], then the
 *           optimizer update of that chunk; then b1's                (parallel)
 *           update W2, b2                                          (calling thread)
 * Every product evaluates common/gemm.h's contract, one FMA chain per element with k in order (a
 * row's bits do not depend on the chunk, the thread or SP_GEMM_KERNEL): the MLP's forward through
 * sp_gemm on W1ᵀ, kept packed across the steps of prb_clf_fit (each update repacks the columns it
 * changed), the products with a side of the class count or of the batch (dW1, dW, W2's three, the
 * logreg forward) through sp_small_gemm (common/small_gemm.h), unpacked; every other sum runs in a fixed order, so
 * results do not depend on the number of threads.
 *
 * The pool (common/pool.c, sp_pool_new_spin) has its workers spin briefly between jobs (a
 * training step issues a few jobs every ~100 µs, too often for condition-variable wake-ups) and
 * then sleep on a condition variable. */
#include "probes/classifier.h"

#ifdef __SSE2__
#include <immintrin.h>
#endif
#include <math.h>
#include <string.h>

#include "common/expf.h"
#include "common/gemm.h"
#include "common/pool.h"
#include "common/small_gemm.h"

#define MCHUNK 64          /* input columns per MLP backward chunk: whole panels of the packed xb */
_Static_assert(MCHUNK % SP_GEMM_NR == 0, "an MLP chunk reads whole panels of the packed batch");
#define DCHUNK 128         /* input columns per logreg backward chunk: whole panels of the packed xb */
_Static_assert(DCHUNK % SP_GEMM_NR == 0, "a logreg chunk reads whole panels of the packed batch");
#define EVROWS 256         /* rows per evaluation chunk */

/* ---- thread pool (common/pool.c, spinning between jobs) ---- */

#define POOL_SPIN 20000    /* pauses a worker polls for the next job before it sleeps */

/* flops: rough size of the whole job. Small jobs run on the calling thread: handing them out
 * costs more than it saves, and who runs a chunk never changes its result. */
#define POOL_MIN_FLOPS 4e6
static void pool_run(struct sp_pool *p, int nchunks, sp_pool_fn fn, void *ctx, double flops)
{
    if (p && sp_pool_size(p) > 1 && nchunks > 1 && flops >= POOL_MIN_FLOPS && sp_pool_try_run(p, nchunks, fn, ctx))
        return;
    for (int i = 0; i < nchunks; i++) fn(ctx, i, 0);
}

/* ---- configuration ---- */

void prb_train_cfg_default(struct prb_train_cfg *c)
{
    memset(c, 0, sizeof *c);
    c->batch_size = 64;
    c->tenacity = 5;
    c->epoch_size = 4;
    c->max_epoch = 200;
    c->seed = 1111;
    c->threads = 1;
    c->optim.kind = PRB_OPT_ADAM;
    c->optim.lr = 1e-3;
    c->optim.beta1 = 0.9;
    c->optim.beta2 = 0.999;
    c->optim.alpha = 0.99;
    c->optim.eps = 1e-8;
}

int prb_optim_parse(const char *s, struct prb_optim *o, char *err, size_t errlen)
{
    char buf[256];
    if (!s || strlen(s) >= sizeof buf) { snprintf(err, errlen, "optimizer string too long"); return -1; }
    strcpy(buf, s);
    char *save = NULL, *tok = strtok_r(buf, ",", &save);
    memset(o, 0, sizeof *o);
    o->beta1 = 0.9; o->beta2 = 0.999; o->alpha = 0.99; o->eps = 1e-8;
    int have_lr = 0;
    if (!tok) { snprintf(err, errlen, "empty optimizer string"); return -1; }
    if (!strcmp(tok, "adam")) { o->kind = PRB_OPT_ADAM; o->lr = 1e-3; }
    else if (!strcmp(tok, "rmsprop")) { o->kind = PRB_OPT_RMSPROP; o->lr = 1e-2; }
    else if (!strcmp(tok, "sgd")) { o->kind = PRB_OPT_SGD; }
    else { snprintf(err, errlen, "unknown optimizer '%s' (expected adam, rmsprop or sgd)", tok); return -1; }
    while ((tok = strtok_r(NULL, ",", &save))) {
        char *eq = strchr(tok, '=');
        if (!eq) { snprintf(err, errlen, "expected key=value in optimizer string, got '%s'", tok); return -1; }
        *eq = 0;
        char *end;
        double v = strtod(eq + 1, &end);
        if (*end || end == eq + 1 || !(v >= 0)) { snprintf(err, errlen, "bad value for optimizer '%s'", tok); return -1; }
        if (!strcmp(tok, "lr")) { o->lr = v; have_lr = 1; }
        else if (!strcmp(tok, "beta1") && o->kind == PRB_OPT_ADAM) o->beta1 = v;
        else if (!strcmp(tok, "beta2") && o->kind == PRB_OPT_ADAM) o->beta2 = v;
        else if (!strcmp(tok, "alpha") && o->kind == PRB_OPT_RMSPROP) o->alpha = v;
        else if (!strcmp(tok, "eps") && o->kind != PRB_OPT_SGD) o->eps = v;
        else { snprintf(err, errlen, "unknown optimizer parameter '%s'", tok); return -1; }
    }
    if (o->kind == PRB_OPT_SGD && !have_lr) { snprintf(err, errlen, "sgd needs lr=..."); return -1; }
    return 0;
}

/* ---- init / free ---- */

static void init_uniform(struct sp_rng *r, float *w, size_t n, int fan_in)
{
    double bound = 1.0 / sqrt((double)fan_in);
    for (size_t i = 0; i < n; i++) w[i] = (float)((2.0 * sp_rng_uniform(r) - 1.0) * bound);
}

int prb_clf_init(struct prb_clf *c, int d, int k, const struct prb_train_cfg *cfg)
{
    memset(c, 0, sizeof *c);
    if (d < 1 || k < 1 || cfg->nhid < 0 || cfg->batch_size < 1 || cfg->epoch_size < 1 || cfg->tenacity < 0 ||
        cfg->max_epoch < 0 || !(cfg->dropout >= 0 && cfg->dropout < 1) || !(cfg->l2 >= 0) || cfg->threads < 1)
        return -1;
    c->d = d;
    c->k = k;
    c->nhid = cfg->nhid;
    c->cfg = *cfg;
    int h = cfg->nhid;
    size_t nW1 = (size_t)(h ? h : k) * (size_t)d, nb1 = (size_t)(h ? h : k);
    size_t nW2 = h ? (size_t)k * (size_t)h : 0, nb2 = h ? (size_t)k : 0;
    c->nparam = nW1 + nb1 + nW2 + nb2;
    c->param = sp_xcalloc(c->nparam + SP_SMALL_CB, sizeof(float));    /* slack: small products read whole blocks */
    c->grad = sp_xcalloc(c->nparam, sizeof(float));
    c->m = sp_xcalloc(c->nparam, sizeof(float));
    c->v = sp_xcalloc(c->nparam, sizeof(float));
    c->W1 = c->param;
    c->b1 = c->W1 + nW1;
    c->W2 = h ? c->b1 + nb1 : NULL;
    c->b2 = h ? c->W2 + nW2 : NULL;

    /* nn.Linear default init, drawn in layer order: W1, b1, W2, b2 */
    sp_rng_seed(&c->rng, cfg->seed);
    init_uniform(&c->rng, c->W1, nW1, d);
    init_uniform(&c->rng, c->b1, nb1, d);
    if (h) {
        init_uniform(&c->rng, c->W2, nW2, h);
        init_uniform(&c->rng, c->b2, nb2, h);
    }

    int B = cfg->batch_size;
    int hh = h ? h : 1;
    c->xb = sp_xcalloc((size_t)B * (size_t)d + SP_SMALL_CB, sizeof(float));
    c->z = sp_xcalloc((size_t)B * (size_t)hh + SP_SMALL_CB, sizeof(float));
    c->dz = sp_xmalloc((size_t)B * (size_t)hh * sizeof(float));
    c->mask = sp_xmalloc((size_t)B * (size_t)hh);
    c->logits = sp_xmalloc((size_t)B * (size_t)k * sizeof(float));
    int T = cfg->threads;
    c->evbuf = sp_xmalloc((size_t)T * EVROWS * ((size_t)d + (size_t)hh) * sizeof(float));
    int wk = h > k ? h : k;
    c->pk_w1 = sp_gemm_alloc(sp_gemm_packed_floats(d, wk));
    c->pk_w2 = sp_gemm_alloc(sp_gemm_packed_floats(hh, k));
    c->lt = sp_xmalloc((size_t)k * (size_t)B * sizeof(float));
    c->wt = sp_xmalloc((size_t)(d > hh ? d : hh) * (size_t)sp_transpose_ld(k) * sizeof(float));
    c->dzt = sp_xmalloc((size_t)hh * (size_t)B * sizeof(float));
    c->pool = T > 1 ? sp_pool_new_spin(T, POOL_SPIN) : NULL;
    c->avx512 = !strcmp(sp_gemm_kernel(), "avx512");
    return 0;
}

void prb_clf_free(struct prb_clf *c)
{
    sp_pool_free(c->pool);
    free(c->param); free(c->grad); free(c->m); free(c->v);
    free(c->xb); free(c->z); free(c->dz); free(c->mask); free(c->logits); free(c->evbuf);
    free(c->pk_w1); free(c->pk_w2); free(c->lt); free(c->dzt); free(c->wt);
    memset(c, 0, sizeof *c);
}

/* ---- optimizer ---- */

struct opt_scalars { float lr, wd, b1, b2, omb1, omb2, step_size, bc2_sqrt, eps, alpha, oma; };

static void opt_scalars(const struct prb_clf *c, struct opt_scalars *s)
{
    const struct prb_optim *o = &c->cfg.optim;
    double t = (double)c->step;
    s->lr = (float)o->lr;
    s->wd = (float)c->cfg.l2;
    s->b1 = (float)o->beta1;
    s->b2 = (float)o->beta2;
    s->omb1 = (float)(1.0 - o->beta1);
    s->omb2 = (float)(1.0 - o->beta2);
    s->step_size = (float)(o->lr / (1.0 - pow(o->beta1, t)));
    s->bc2_sqrt = (float)sqrt(1.0 - pow(o->beta2, t));
    s->eps = (float)o->eps;
    s->alpha = (float)o->alpha;
    s->oma = (float)(1.0 - o->alpha);
}

/* PyTorch's update rules (torch.optim, single-tensor path) on param[off .. off+n).
 * On x86-64 the Adam and RMSprop loops use SSE by hand: gcc will not vectorise sqrtf under
 * -fmath-errno. The SSE operations are the same IEEE single-precision operations in the same
 * order as the scalar loop, so the bits are the same; only the speed changes. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define OPT_X86 1
/* Adam's loop 16 lanes at a time: the SSE loop's operations, in its order, on wider registers
 * (the same IEEE single-precision operations: the same bits) */
__attribute__((target("avx512f")))
static size_t adam_avx512(float *restrict p, float *restrict m, float *restrict v, const float *restrict g, size_t n,
                          const struct opt_scalars *s)
{
    const __m512 vwd = _mm512_set1_ps(s->wd), vb1 = _mm512_set1_ps(s->b1), vb2 = _mm512_set1_ps(s->b2);
    const __m512 vomb1 = _mm512_set1_ps(s->omb1), vomb2 = _mm512_set1_ps(s->omb2), veps = _mm512_set1_ps(s->eps);
    const __m512 vstep = _mm512_set1_ps(s->step_size), vbc2 = _mm512_set1_ps(s->bc2_sqrt);
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m512 pi = _mm512_loadu_ps(p + i);
        __m512 gi = _mm512_add_ps(_mm512_loadu_ps(g + i), _mm512_mul_ps(vwd, pi));
        __m512 mi = _mm512_add_ps(_mm512_mul_ps(_mm512_loadu_ps(m + i), vb1), _mm512_mul_ps(vomb1, gi));
        __m512 vi = _mm512_add_ps(_mm512_mul_ps(_mm512_loadu_ps(v + i), vb2), _mm512_mul_ps(_mm512_mul_ps(vomb2, gi), gi));
        _mm512_storeu_ps(m + i, mi);
        _mm512_storeu_ps(v + i, vi);
        __m512 den = _mm512_add_ps(_mm512_div_ps(_mm512_sqrt_ps(vi), vbc2), veps);
        _mm512_storeu_ps(p + i, _mm512_sub_ps(pi, _mm512_mul_ps(vstep, _mm512_div_ps(mi, den))));
    }
    return i;
}
#endif

static void opt_update(struct prb_clf *c, const struct opt_scalars *s, size_t off, size_t n)
{
    float *restrict p = c->param + off, *restrict m = c->m + off, *restrict v = c->v + off;
    const float *restrict g = c->grad + off;
    const float wd = s->wd, lr = s->lr, eps = s->eps;
    size_t i = 0;
    switch (c->cfg.optim.kind) {
    case PRB_OPT_ADAM: {
        const float b1 = s->b1, b2 = s->b2, omb1 = s->omb1, omb2 = s->omb2;
        const float step_size = s->step_size, bc2_sqrt = s->bc2_sqrt;
#ifdef OPT_X86
        if (c->avx512) i = adam_avx512(p, m, v, g, n, s);
#endif
#ifdef __SSE2__
        const __m128 vwd = _mm_set1_ps(wd), vb1 = _mm_set1_ps(b1), vb2 = _mm_set1_ps(b2);
        const __m128 vomb1 = _mm_set1_ps(omb1), vomb2 = _mm_set1_ps(omb2), veps = _mm_set1_ps(eps);
        const __m128 vstep = _mm_set1_ps(step_size), vbc2 = _mm_set1_ps(bc2_sqrt);
        for (; i + 4 <= n; i += 4) {
            __m128 pi = _mm_loadu_ps(p + i);
            __m128 gi = _mm_add_ps(_mm_loadu_ps(g + i), _mm_mul_ps(vwd, pi));
            __m128 mi = _mm_add_ps(_mm_mul_ps(_mm_loadu_ps(m + i), vb1), _mm_mul_ps(vomb1, gi));
            __m128 vi = _mm_add_ps(_mm_mul_ps(_mm_loadu_ps(v + i), vb2), _mm_mul_ps(_mm_mul_ps(vomb2, gi), gi));
            _mm_storeu_ps(m + i, mi);
            _mm_storeu_ps(v + i, vi);
            __m128 den = _mm_add_ps(_mm_div_ps(_mm_sqrt_ps(vi), vbc2), veps);
            _mm_storeu_ps(p + i, _mm_sub_ps(pi, _mm_mul_ps(vstep, _mm_div_ps(mi, den))));
        }
#endif
        for (; i < n; i++) {
            float gi = g[i] + wd * p[i];
            float mi = m[i] * b1 + omb1 * gi;
            float vi = v[i] * b2 + omb2 * gi * gi;
            m[i] = mi;
            v[i] = vi;
            p[i] -= step_size * (mi / (sqrtf(vi) / bc2_sqrt + eps));
        }
        break;
    }
    case PRB_OPT_RMSPROP: {
        const float alpha = s->alpha, oma = s->oma;
#ifdef __SSE2__
        const __m128 vwd = _mm_set1_ps(wd), val = _mm_set1_ps(alpha), voma = _mm_set1_ps(oma);
        const __m128 veps = _mm_set1_ps(eps), vlr = _mm_set1_ps(lr);
        for (; i + 4 <= n; i += 4) {
            __m128 pi = _mm_loadu_ps(p + i);
            __m128 gi = _mm_add_ps(_mm_loadu_ps(g + i), _mm_mul_ps(vwd, pi));
            __m128 mi = _mm_add_ps(_mm_mul_ps(_mm_loadu_ps(m + i), val), _mm_mul_ps(_mm_mul_ps(voma, gi), gi));
            _mm_storeu_ps(m + i, mi);
            __m128 den = _mm_add_ps(_mm_sqrt_ps(mi), veps);
            _mm_storeu_ps(p + i, _mm_sub_ps(pi, _mm_mul_ps(vlr, _mm_div_ps(gi, den))));
        }
#endif
        for (; i < n; i++) {
            float gi = g[i] + wd * p[i];
            float mi = m[i] * alpha + oma * gi * gi;
            m[i] = mi;
            p[i] -= lr * (gi / (sqrtf(mi) + eps));
        }
        break;
    }
    case PRB_OPT_SGD:
        for (; i < n; i++) p[i] -= lr * (g[i] + wd * p[i]);
        break;
    }
}

/* ---- one batch: forward, loss, backward, optional update ---- */

struct step_ctx {
    struct prb_clf *c;
    int B;
    int update;
    float scale;                         /* 1/(1-p) */
    int dropout;
    struct opt_scalars s;
    struct sp_gemm_b w1t;                /* W1ᵀ (d, h or k), kept packed by the update */
    int hc;                              /* hidden units per forward chunk */
};

/* columns [c0, c0+w) of W1 (n × d) into its packed transpose (K = d, N = n): what
 * sp_gemm_pack(trans 1) writes there; the padding columns keep their zeros */
static void repack_w1t(float *pk, const float *W1, int d, int n, int c0, int w)
{
    enum { NR = SP_GEMM_NR };
    for (int p0 = 0; p0 < n; p0 += NR) {
        float *dst = pk + (size_t)(p0 / NR) * d * NR;
        int jw = n - p0 < NR ? n - p0 : NR;
        for (int j = 0; j < jw; j++) {
            const float *src = W1 + (size_t)(p0 + j) * d;
            for (int cc = c0; cc < c0 + w; cc++) dst[(size_t)cc * NR + j] = src[cc];
        }
    }
}

/* (R, C) row-major -> (C, R) */
static void transpose(const float *src, int R, int C, int lds, float *dst)
{
    for (int r = 0; r < R; r++)
        for (int j = 0; j < C; j++) dst[(size_t)j * R + r] = src[(size_t)r * lds + j];
}

static float sigmoidf(float x) { return 1.0f / (1.0f + expf(-x)); }

/* MLP forward for hidden units [hc·chunk, ...): whole panels of the packed W1ᵀ */
static void mlp_fwd_chunk(void *vctx, int chunk, int tid)
{
    struct step_ctx *x = vctx;
    struct prb_clf *c = x->c;
    int H = c->nhid, d = c->d, B = x->B;
    int h0 = chunk * x->hc, w = H - h0 < x->hc ? H - h0 : x->hc;
    struct sp_gemm_b v = x->w1t;
    v.p += (size_t)(h0 / SP_GEMM_NR) * d * SP_GEMM_NR;
    v.N = w;
    v.w += (size_t)h0 * d;
    sp_gemm(B, c->xb, d, &v, NULL, 0, c->z + h0, H);
    for (int b = 0; b < B; b++) {
        float *zr = c->z + (size_t)b * H;
        const unsigned char *mr = c->mask + (size_t)b * H;
        for (int j = h0; j < h0 + w; j++) {
            float a = zr[j] + c->b1[j];
            if (x->dropout) a = mr[j] ? a * x->scale : 0.0f;
            zr[j] = sigmoidf(a);
        }
    }
}

/* dz = dL/dh · h(1−h) · mask/(1−p) and db1, on the calling thread; c->dz holds dL/dh on entry,
 * c->dzt gets dzᵀ (H, B) */
static void mlp_dz(struct step_ctx *x)
{
    struct prb_clf *c = x->c;
    int H = c->nhid, d = c->d, B = x->B;
    float *gb1 = c->grad + (size_t)H * d;
    for (int b = 0; b < B; b++) {
        float *dr = c->dz + (size_t)b * H;
        const float *hr = c->z + (size_t)b * H;
        const unsigned char *mr = c->mask + (size_t)b * H;
        for (int j = 0; j < H; j++) {
            float g = dr[j] * hr[j] * (1.0f - hr[j]);
            if (x->dropout) g = mr[j] ? g * x->scale : 0.0f;
            dr[j] = g;
        }
    }
    for (int j = 0; j < H; j++) {
        float s = 0.0f;
        for (int b = 0; b < B; b++) s += c->dz[(size_t)b * H + j];
        gb1[j] = s;
    }
    transpose(c->dz, B, H, H, c->dzt);
}

/* MLP backward + update for a column chunk of W1: dW1[:, chunk] = dzᵀ·xb[:, chunk] */
static void mlp_bwd_chunk(void *vctx, int chunk, int tid)
{
    struct step_ctx *x = vctx;
    struct prb_clf *c = x->c;
    int H = c->nhid, d = c->d, B = x->B;
    int c0 = chunk * MCHUNK, w = d - c0 < MCHUNK ? d - c0 : MCHUNK;
    sp_small_gemm(H, w, B, c->dzt, B, c->xb + c0, d, c->grad + c0, d);   /* xb has SP_SMALL_CB floats of slack */
    if (x->update) {
        for (int h = 0; h < H; h++) opt_update(c, &x->s, (size_t)h * d + (size_t)c0, (size_t)w);
        repack_w1t(c->pk_w1, c->W1, d, H, c0, w);
    }
}

/* logreg backward + update for a column chunk of W; c->logits holds dL/dlogits */
static void lr_bwd_chunk(void *vctx, int chunk, int tid)
{
    struct step_ctx *x = vctx;
    struct prb_clf *c = x->c;
    int d = c->d, K = c->k, B = x->B;
    int c0 = chunk * DCHUNK, w = d - c0 < DCHUNK ? d - c0 : DCHUNK;
    sp_small_gemm(K, w, B, c->lt, B, c->xb + c0, d, c->grad + c0, d);   /* xb has SP_SMALL_CB floats of slack */
    if (x->update)
        for (int k = 0; k < K; k++) opt_update(c, &x->s, (size_t)k * d + (size_t)c0, (size_t)w);
}

/* softmax cross-entropy: turns logits into dL/dlogits in place, returns the mean loss */
static double softmax_xent(float *logits, const int *y, int B, int K)
{
    double loss = 0.0;
    const float invB = 1.0f / (float)B;
    for (int b = 0; b < B; b++) {            /* each row less its largest logit ... */
        float *l = logits + (size_t)b * K;
        float mx = l[0];
        for (int k = 1; k < K; k++) if (l[k] > mx) mx = l[k];
        for (int k = 0; k < K; k++) l[k] -= mx;
    }
    sp_exp_nonpos_array(logits, B * K);      /* ... exponentiated in one vectorised pass (common/expf.h) */
    for (int b = 0; b < B; b++) {
        float *l = logits + (size_t)b * K;
        float sum = 0.0f;
        for (int k = 0; k < K; k++) sum += l[k];      /* in class order */
        loss -= log((double)l[y[b]] / (double)sum);
        /* (p − onehot)/B: the division and the scaling as loops of their own (they vectorise);
         * p − 0 is p, so the bits are those of (p − onehot)·(1/B) element by element */
        for (int k = 0; k < K; k++) l[k] = l[k] / sum;
        l[y[b]] -= 1.0f;
        for (int k = 0; k < K; k++) l[k] *= invB;
    }
    return loss / B;
}

/* xb already holds the batch; w1_packed: c->pk_w1 holds W1ᵀ as it is (the previous step of
 * prb_clf_fit kept it so), else it is packed here */
static double batch_pass(struct prb_clf *c, const int *y, int B, int train, int update, int w1_packed)
{
    int d = c->d, K = c->k, H = c->nhid;
    struct step_ctx x = { .c = c, .B = B, .update = update };
    if (update) {
        c->step++;
        opt_scalars(c, &x.s);
    }
    double loss;
    if (H && w1_packed) x.w1t = (struct sp_gemm_b){ d, H, c->pk_w1, c->W1, d, 1, SP_GEMM_F32, NULL };
    else if (H) sp_gemm_pack(&x.w1t, d, H, c->W1, d, 1, c->pk_w1);
    if (H == 0) {
        int ld = sp_transpose_pad(c->W1, K, d, c->wt);
        sp_small_gemm(B, K, d, c->xb, d, c->wt, ld, c->logits, K);
        for (int b = 0; b < B; b++)
            for (int k = 0; k < K; k++) c->logits[(size_t)b * K + k] += c->b1[k];
        loss = softmax_xent(c->logits, y, B, K);
        transpose(c->logits, B, K, K, c->lt);
        float *gb = c->grad + (size_t)K * d;
        for (int k = 0; k < K; k++) {
            float s = 0.0f;
            for (int b = 0; b < B; b++) s += c->logits[(size_t)b * K + k];
            gb[k] = s;
        }
        pool_run(c->pool, (d + DCHUNK - 1) / DCHUNK, lr_bwd_chunk, &x, 2.0 * B * K * d);
        if (update) opt_update(c, &x.s, (size_t)K * d, (size_t)K);
        return loss;
    }
    x.dropout = train && c->cfg.dropout > 0;
    if (x.dropout) {
        x.scale = (float)(1.0 / (1.0 - c->cfg.dropout));
        size_t n = (size_t)B * H;
        for (size_t i = 0; i < n; i++) c->mask[i] = sp_rng_uniform(&c->rng) >= c->cfg.dropout;
    }
    x.hc = c->pool ? SP_GEMM_NR : H;      /* one product on one thread: xb packed once */
    pool_run(c->pool, (H + x.hc - 1) / x.hc, mlp_fwd_chunk, &x, 2.0 * B * H * d);
    int ld2 = sp_transpose_pad(c->W2, K, H, c->wt);
    sp_small_gemm(B, K, H, c->z, H, c->wt, ld2, c->logits, K);
    for (int b = 0; b < B; b++)
        for (int k = 0; k < K; k++) c->logits[(size_t)b * K + k] += c->b2[k];
    loss = softmax_xent(c->logits, y, B, K);
    float *gW2 = c->grad + (size_t)H * d + H, *gb2 = gW2 + (size_t)K * H;
    transpose(c->logits, B, K, K, c->lt);
    sp_small_gemm(K, H, B, c->lt, B, c->z, H, gW2, H);          /* z has SP_SMALL_CB floats of slack */
    for (int k = 0; k < K; k++) {
        float s = 0.0f;
        for (int b = 0; b < B; b++) s += c->logits[(size_t)b * K + k];
        gb2[k] = s;
    }
    /* dL/dh with W2 as it was in the forward pass (it is updated last) */
    sp_small_gemm(B, H, K, c->logits, K, c->W2, H, c->dz, H);    /* param has SP_SMALL_CB floats of slack */
    mlp_dz(&x);
    pool_run(c->pool, (d + MCHUNK - 1) / MCHUNK, mlp_bwd_chunk, &x, 2.0 * B * H * d);
    if (update) opt_update(c, &x.s, (size_t)H * d, (size_t)H + (size_t)K * H + K);   /* b1, W2, b2 */
    return loss;
}

double prb_clf_loss_grad(struct prb_clf *c, const float *X, const int *y, int B, int train)
{
    SP_ASSERT(B >= 1 && B <= c->cfg.batch_size);
    memcpy(c->xb, X, (size_t)B * c->d * sizeof(float));
    return batch_pass(c, y, B, train, 0, 0);
}

double prb_clf_step(struct prb_clf *c, const float *X, const int *y, int B)
{
    SP_ASSERT(B >= 1 && B <= c->cfg.batch_size);
    memcpy(c->xb, X, (size_t)B * c->d * sizeof(float));
    return batch_pass(c, y, B, 1, 1, 0);
}

void prb_clf_apply_grad(struct prb_clf *c)
{
    struct opt_scalars s;
    c->step++;
    opt_scalars(c, &s);
    opt_update(c, &s, 0, c->nparam);
}

/* ---- evaluation ---- */

struct eval_ctx {
    struct prb_clf *c;
    const float *X;
    const int *rows;
    int n;
    float *out;            /* n × k logits, or NULL */
    int *pred;             /* n predictions, or NULL */
    struct sp_gemm_b w1t, w2t;   /* W1ᵀ, W2ᵀ packed */
};

static void eval_chunk(void *vctx, int chunk, int tid)
{
    struct eval_ctx *e = vctx;
    struct prb_clf *c = e->c;
    int d = c->d, K = c->k, H = c->nhid, hh = H ? H : 1;
    int i0 = chunk * EVROWS, R = e->n - i0 < EVROWS ? e->n - i0 : EVROWS;
    float *xb = c->evbuf + (size_t)tid * EVROWS * ((size_t)d + hh), *hb = xb + (size_t)EVROWS * d;
    for (int r = 0; r < R; r++) {
        size_t row = e->rows ? (size_t)e->rows[i0 + r] : (size_t)(i0 + r);
        memcpy(xb + (size_t)r * d, e->X + row * d, (size_t)d * sizeof(float));
    }
    float lbuf[EVROWS * 8], *lo = e->out ? e->out + (size_t)i0 * K : (K <= 8 ? lbuf : NULL);
    float *heap = NULL;
    if (!lo) lo = heap = sp_xmalloc((size_t)R * K * sizeof(float));
    if (H == 0) {
        sp_gemm(R, xb, d, &e->w1t, NULL, 0, lo, K);
        for (int r = 0; r < R; r++)
            for (int k = 0; k < K; k++) lo[(size_t)r * K + k] += c->b1[k];
    } else {
        sp_gemm(R, xb, d, &e->w1t, NULL, 0, hb, H);
        for (int r = 0; r < R; r++)
            for (int j = 0; j < H; j++) hb[(size_t)r * H + j] = sigmoidf(hb[(size_t)r * H + j] + c->b1[j]);
        sp_gemm(R, hb, H, &e->w2t, NULL, 0, lo, K);
        for (int r = 0; r < R; r++)
            for (int k = 0; k < K; k++) lo[(size_t)r * K + k] += c->b2[k];
    }
    if (e->pred)
        for (int r = 0; r < R; r++) {
            const float *l = lo + (size_t)r * K;
            int best = 0;
            for (int k = 1; k < K; k++) if (l[k] > l[best]) best = k;
            e->pred[i0 + r] = best;
        }
    free(heap);
}

static void eval_rows(struct prb_clf *c, const float *X, const int *rows, int n, float *out, int *pred)
{
    if (n <= 0) return;
    struct eval_ctx e = { c, X, rows, n, out, pred, { 0 }, { 0 } };
    sp_gemm_pack(&e.w1t, c->d, c->nhid ? c->nhid : c->k, c->W1, c->d, 1, c->pk_w1);
    if (c->nhid) sp_gemm_pack(&e.w2t, c->nhid, c->k, c->W2, c->nhid, 1, c->pk_w2);
    pool_run(c->pool, (n + EVROWS - 1) / EVROWS, eval_chunk, &e, 2.0 * n * c->d * (c->nhid ? c->nhid : c->k));
}

void prb_clf_logits(struct prb_clf *c, const float *X, const int *rows, int n, float *out)
{
    eval_rows(c, X, rows, n, out, NULL);
}

void prb_clf_predict(struct prb_clf *c, const float *X, const int *rows, int n, int *pred)
{
    eval_rows(c, X, rows, n, NULL, pred);
}

double prb_clf_accuracy(struct prb_clf *c, const float *X, const int *y, const int *rows, int n)
{
    if (n <= 0) return 0.0;
    int *pred = sp_xmalloc((size_t)n * sizeof(int));
    prb_clf_predict(c, X, rows, n, pred);
    long ok = 0;
    for (int i = 0; i < n; i++) ok += pred[i] == y[rows ? rows[i] : i];
    free(pred);
    return (double)ok / (double)n;
}

/* ---- early stopping and fit ---- */

void prb_stopper_init(struct prb_stopper *s, int tenacity)
{
    memset(s, 0, sizeof *s);
    s->tenacity = tenacity;
    s->best = -1.0;
}

int prb_stopper_update(struct prb_stopper *s, double acc)
{
    s->nevals++;
    if (acc > s->best) {
        s->best = acc;
        s->best_eval = s->nevals;
        return 1;
    }
    /* SentEval: test first, then count; the counter is never reset (A5) */
    if (s->counter >= s->tenacity) s->stop = 1;
    s->counter++;
    return 0;
}

/* mean cross-entropy (nats) of the rows dv with a class label, softmax in double */
static double dev_loss(struct prb_clf *c, const float *X, const int *y, const int *dv, int ndv)
{
    if (ndv <= 0) return 0.0;
    int K = c->k;
    float *lo = sp_xmalloc((size_t)ndv * (size_t)K * sizeof(float));
    prb_clf_logits(c, X, dv, ndv, lo);
    double sum = 0.0;
    long n = 0;
    for (int i = 0; i < ndv; i++) {
        int t = y[dv[i]];
        if (t < 0) continue;
        const float *l = lo + (size_t)i * K;
        double mx = l[0], z = 0.0;
        for (int k = 1; k < K; k++) if (l[k] > mx) mx = l[k];
        for (int k = 0; k < K; k++) z += exp((double)l[k] - mx);
        sum += mx + log(z) - (double)l[t];
        n++;
    }
    free(lo);
    return n ? sum / (double)n : 0.0;
}

void prb_clf_fit(struct prb_clf *c, const float *X, const int *y, const int *tr, int ntr,
                 const int *dv, int ndv, struct prb_fit_info *info)
{
    int d = c->d, B = c->cfg.batch_size;
    int *perm = sp_xmalloc((size_t)(ntr > 0 ? ntr : 1) * sizeof(int));
    int *yb = sp_xmalloc((size_t)B * sizeof(int));
    float *best = sp_xmalloc(c->nparam * sizeof(float));
    memcpy(best, c->param, c->nparam * sizeof(float));
    struct prb_stopper st;
    prb_stopper_init(&st, c->cfg.tenacity);
    if (c->cfg.select_loss) st.best = -INFINITY;      /* scores are minus a loss */
    int nepoch = 0, passes = 0, w1_packed = 0;
    while (!st.stop && nepoch <= c->cfg.max_epoch) {
        for (int e = 0; e < c->cfg.epoch_size; e++) {
            /* a fresh permutation of the training rows for every pass (np.random.permutation) */
            memcpy(perm, tr, (size_t)ntr * sizeof(int));
            for (int i = ntr - 1; i > 0; i--) {
                int j = (int)sp_rng_below(&c->rng, (uint64_t)i + 1);
                int t = perm[i]; perm[i] = perm[j]; perm[j] = t;
            }
            for (int i = 0; i < ntr; i += B) {
                int nb = ntr - i < B ? ntr - i : B;
                for (int r = 0; r < nb; r++) {
                    memcpy(c->xb + (size_t)r * d, X + (size_t)perm[i + r] * d, (size_t)d * sizeof(float));
                    yb[r] = y[perm[i + r]];
                    /* random rows are memory-latency bound: fetch the next batch's rows now */
                    if (i + B + r < ntr) {
                        const char *nx = (const char *)(X + (size_t)perm[i + B + r] * d);
                        for (size_t o = 0; o < (size_t)d * sizeof(float); o += 64) __builtin_prefetch(nx + o);
                    }
                }
                batch_pass(c, yb, nb, 1, 1, w1_packed);
                w1_packed = 1;        /* the step's update repacked what it changed */
            }
            passes++;
        }
        nepoch += c->cfg.epoch_size;
        double score = c->cfg.select_loss ? -dev_loss(c, X, y, dv, ndv) : prb_clf_accuracy(c, X, y, dv, ndv);
        if (prb_stopper_update(&st, score)) memcpy(best, c->param, c->nparam * sizeof(float));
    }
    memcpy(c->param, best, c->nparam * sizeof(float));
    if (info) {
        info->nevals = st.nevals;
        info->passes = passes;
        info->best_eval = st.best_eval;
        info->best_dev = c->cfg.select_loss ? NAN : st.best;
        info->best_dev_loss = c->cfg.select_loss ? -st.best : NAN;
        info->early_stopped = st.stop;
        info->steps = c->step;
    }
    free(perm);
    free(yb);
    free(best);
}
