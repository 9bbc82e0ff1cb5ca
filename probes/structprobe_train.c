/* probes/structprobe_train.c — trained structural probes (docs/spec/models.md M4), see
 * structprobe_train.h. Mirrors structural-probes probe.py (TwoWordPSDProbe, OneWordPSDProbe),
 * loss.py (L1DistanceLoss, L1DepthLoss) and regimen.py (Adam, ReduceLROnPlateau, the
 * checkpoint rule), with the initialisation and shuffles drawn from SplitMix64. */
#include "probes/structprobe_train.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/gemm.h"
#include "common/small_gemm.h"
#include "common/sp.h"
#include "treeops/treeops.h"

int prb_sprobe_kind_parse(const char *name, enum prb_sprobe_kind *out)
{
    if (!strcmp(name, "distance")) { *out = PRB_SPROBE_DISTANCE; return 0; }
    if (!strcmp(name, "depth")) { *out = PRB_SPROBE_DEPTH; return 0; }
    return -1;
}

static void ws_free(struct prb_sprobe *p);

int prb_sprobe_init(struct prb_sprobe *p, enum prb_sprobe_kind kind, int d, int k, struct sp_splitmix *rng)
{
    memset(p, 0, sizeof *p);
    if (k <= 0) k = d;
    if (d <= 0) return -1;
    p->kind = kind;
    p->d = d;
    p->k = k;
    size_t np = (size_t)d * k;
    p->proj = sp_xmalloc(np * sizeof *p->proj);
    p->grad = sp_xcalloc(np, sizeof *p->grad);
    p->m = sp_xcalloc(np, sizeof *p->m);
    p->v = sp_xcalloc(np, sizeof *p->v);
    for (size_t e = 0; e < np; e++) p->proj[e] = (float)(-0.05 + 0.1 * sp_splitmix_unif(rng));
    return 0;
}

void prb_sprobe_free(struct prb_sprobe *p)
{
    free(p->proj); free(p->grad); free(p->m); free(p->v);
    ws_free(p);
    memset(p, 0, sizeof *p);
}

int prb_sprobe_target(enum prb_sprobe_kind kind, int n, const int *head, float *target)
{
    if (n <= 0) return 0;
    int *order = sp_xmalloc((size_t)n * sizeof *order);
    int *depth = sp_xmalloc((size_t)n * sizeof *depth);
    int rc = tops_depth(n, head, order, depth);
    if (rc == 0 && kind == PRB_SPROBE_DEPTH) {
        for (int i = 0; i < n; i++) target[i] = (float)depth[i];
    } else if (rc == 0) {
        int *dist = sp_xmalloc((size_t)n * n * sizeof *dist);
        tops_distance(n, head, order, dist);
        for (size_t e = 0; e < (size_t)n * n; e++) target[e] = (float)dist[e];
        free(dist);
    }
    free(depth);
    free(order);
    return rc;
}

/* ---- scratch ---- */

/* one worker's scratch for a sentence: Gram matrix, A, A·T, and Tᵀ (zero-padded) */
struct prb_sp_wk {
    int n;                    /* longest sentence it holds room for */
    float *G, *A, *AT, *tt;
};

static void wk_grow(struct prb_sp_wk *w, int n, int k)
{
    if (n <= w->n) return;
    free(w->G); free(w->A); free(w->AT); free(w->tt);
    w->G = sp_xmalloc((size_t)n * n * sizeof *w->G);
    w->A = sp_xmalloc((size_t)n * n * sizeof *w->A);
    w->AT = sp_xmalloc((size_t)n * k * sizeof *w->AT);
    w->tt = sp_xmalloc((size_t)k * (size_t)sp_transpose_ld(n) * sizeof *w->tt);
    w->n = n;
}

static void ws_grow(struct prb_sprobe *p, long rows, int nb)
{
    if (rows > p->ws_rows) {
        free(p->ws_t); free(p->ws_xr); free(p->pk_m);
        /* slack: a sentence's T is the right operand of a small product, read in whole blocks */
        p->ws_t = sp_xmalloc(((size_t)rows * p->k + SP_SMALL_CB) * sizeof *p->ws_t);
        p->ws_xr = sp_xmalloc((size_t)rows * sizeof *p->ws_xr);
        p->pk_m = sp_gemm_alloc(sp_gemm_packed_floats((int)rows, p->k));
        p->ws_rows = rows;
    }
    if (nb > p->ws_nb) {
        free(p->ws_loss);
        p->ws_loss = sp_xmalloc((size_t)nb * sizeof *p->ws_loss);
        p->ws_nb = nb;
    }
    int nw = sp_gemm_threads();
    if (nw > p->n_wk) {
        p->wk = sp_xrealloc(p->wk, (size_t)nw * sizeof *p->wk);
        memset(p->wk + p->n_wk, 0, (size_t)(nw - p->n_wk) * sizeof *p->wk);
        p->n_wk = nw;
    }
    if (!p->pk_proj) p->pk_proj = sp_gemm_alloc(sp_gemm_packed_floats(p->d, p->k));
}

static void ws_free(struct prb_sprobe *p)
{
    free(p->ws_t); free(p->ws_xr); free(p->pk_m); free(p->pk_proj); free(p->ws_loss);
    for (int w = 0; w < p->n_wk; w++) { free(p->wk[w].G); free(p->wk[w].A); free(p->wk[w].AT); free(p->wk[w].tt); }
    free(p->wk);
}

/* Rows [r0, r1) of a row-major (K, N) matrix W into its packed operand (common/gemm.h's layout:
 * [ceil(N/NR)][K][NR], zero-padded): what sp_gemm_pack writes for those rows, so that row
 * blocks can be packed side by side. */
static void pack_rows(float *pk, int K, int N, const float *W, int r0, int r1)
{
    for (int p0 = 0; p0 < N; p0 += SP_GEMM_NR) {
        float *dst = pk + (size_t)(p0 / SP_GEMM_NR) * K * SP_GEMM_NR;
        int w = N - p0 < SP_GEMM_NR ? N - p0 : SP_GEMM_NR;
        if (w == SP_GEMM_NR) {      /* a fixed-length copy (a variable-length memcpy of 128 bytes is not cheap) */
            for (int r = r0; r < r1; r++) {
                float *dr = dst + (size_t)r * SP_GEMM_NR;
                const float *sr = W + (size_t)r * N + p0;
                memcpy(dr, sr, SP_GEMM_NR * sizeof(float));    /* constant size: inlined vector moves */
            }
            continue;
        }
        for (int r = r0; r < r1; r++) {
            memcpy(dst + (size_t)r * SP_GEMM_NR, W + (size_t)r * N + p0, sizeof(float) * w);
            for (int j = w; j < SP_GEMM_NR; j++) dst[(size_t)r * SP_GEMM_NR + j] = 0.0f;
        }
    }
}

static struct sp_gemm_b packed(int K, int N, float *pk, const float *W)
{
    struct sp_gemm_b b = { K, N, pk, W, N, 0, SP_GEMM_F32, NULL };
    return b;
}

static float dist_hat(const float *T, int k, int i, int j)
{
    const float *a = T + (size_t)i * k, *b = T + (size_t)j * k;
    float s = 0.0f;
    for (int r = 0; r < k; r++) { float x = a[r] - b[r]; s += x * x; }
    return s;
}

/* sum_r t_i[r]^2 in a fixed order: 16 partial sums (r mod 16, each in increasing r), added
 * pairwise (0+8, 1+9, ..., then 0+4, ...); plain IEEE operations, so every build vectorises it
 * to the same bits */
#define DLANES 16
static float depth_hat(const float *T, int k, int i)
{
    const float *a = T + (size_t)i * k;
    float acc[DLANES] = { 0 };
    int r = 0;
    for (; r + DLANES <= k; r += DLANES)
        for (int l = 0; l < DLANES; l++) acc[l] += a[r + l] * a[r + l];
    for (int l = 0; r + l < k; l++) acc[l] += a[r + l] * a[r + l];
    for (int h = DLANES / 2; h >= 1; h /= 2)
        for (int l = 0; l < h; l++) acc[l] += acc[l + h];
    return acc[0];
}

static signed char sgn(float x) { return x > 0.0f ? 1 : x < 0.0f ? -1 : 0; }

/* Where a sentence's gradient factor M goes: its rows of the batch's packed M (common/gemm.h's
 * layout, [ceil(k/NR)][rows][NR], zero-padded), written in place: no unpacked copy to pack. */
struct mdst { float *pk; long rows, r0; };

/* row i of the sentence's M = (float)(c · src[r]) for r < k */
static void m_row(const struct mdst *d, int k, int i, double c, const float *src)
{
    for (int p0 = 0; p0 < k; p0 += SP_GEMM_NR) {
        float *dst = d->pk + ((size_t)(p0 / SP_GEMM_NR) * (size_t)d->rows + (size_t)(d->r0 + i)) * SP_GEMM_NR;
        const int w = k - p0 < SP_GEMM_NR ? k - p0 : SP_GEMM_NR;
        for (int j = 0; j < w; j++) dst[j] = (float)(c * (double)src[p0 + j]);
        for (int j = w; j < SP_GEMM_NR; j++) dst[j] = 0.0f;
    }
}

/* L_s of one sentence from its projections T (n, k); when M is not NULL, writes the gradient's
 * right factor, gscale · dL_s/dT-like rows, so that dL_s/dproj · gscale = Hᵀ M. w: this
 * worker's scratch. */
static double sent_loss_t(const struct prb_sprobe *p, struct prb_sp_wk *w, int n, const float *T, const float *target,
                          const struct mdst *M, double gscale)
{
    int k = p->k;
    double sum = 0.0;
    if (p->kind == PRB_SPROBE_DISTANCE) {
        wk_grow(w, n, k);
        /* small products (a side of n words: packing cost more than they do), sp_gemm's chains */
        int ld = sp_transpose_pad(T, n, k, w->tt);
        sp_small_gemm(n, n, k, T, k, w->tt, ld, w->G, n);     /* G = T Tᵀ */
        const float *G = w->G;
        /* D^ = G_ii + G_jj - 2 G_ij, |D^ - d| summed, A = diag(rowsum S) - S, in one pass */
        for (int i = 0; i < n; i++) {
            const float gii = G[(size_t)i * n + i];
            const float *gi = G + (size_t)i * n, *ti = target + (size_t)i * n;
            float *ai = w->A + (size_t)i * n;
            int rs = 0;
            for (int j = 0; j < n; j++) {
                float diff = ((gii + G[(size_t)j * n + j]) - 2.0f * gi[j]) - ti[j];
                sum += fabs((double)diff);
                signed char s = sgn(diff);
                rs += s;
                ai[j] = (float)-s;
            }
            ai[i] += (float)rs;
        }
        sum /= (double)n * n;
        if (!M) return sum;
        double c = gscale * 4.0 / ((double)n * n);
        sp_small_gemm(n, k, n, w->A, n, T, k, w->AT, k);     /* A T, exact terms (T has slack) */
        for (int i = 0; i < n; i++) m_row(M, k, i, c, w->AT + (size_t)i * k);
    } else {
        wk_grow(w, n, 1);
        signed char *sg = (signed char *)w->A;   /* n signs (A has room for n*n floats) */
        for (int i = 0; i < n; i++) {
            float diff = depth_hat(T, k, i) - target[i];
            sum += fabs((double)diff);
            sg[i] = sgn(diff);
        }
        sum /= (double)n;
        if (!M) return sum;
        double c = gscale * 2.0 / (double)n;
        for (int i = 0; i < n; i++) m_row(M, k, i, c * sg[i], T + (size_t)i * k);
    }
    return sum;
}

/* ---- Adam: element-wise, the same C compiled for each kernel (IEEE operations, no
 * contraction: every build gives the same bits) ---- */

#define ADAM_BODY                                                                   \
    const float b1 = 0.9f, b2 = 0.999f, eps = 1e-8f;                                \
    for (size_t e = e0; e < e1; e++) {                                              \
        float g = grad[e];                                                          \
        float mm = b1 * m[e] + (1.0f - b1) * g;                                     \
        float vv = b2 * v[e] + (1.0f - b2) * g * g;                                 \
        m[e] = mm;                                                                  \
        v[e] = vv;                                                                  \
        float denom = __builtin_sqrtf(vv) / bc2_sqrt + eps;                         \
        proj[e] -= step_size * (mm / denom);                                        \
    }

static void adam_c(float *restrict proj, float *restrict m, float *restrict v, const float *restrict grad, size_t e0,
                   size_t e1, float step_size, float bc2_sqrt)
{
    ADAM_BODY
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define ADAM_X86 1
__attribute__((target("avx2")))
static void adam_avx2(float *restrict proj, float *restrict m, float *restrict v, const float *restrict grad, size_t e0,
                      size_t e1, float step_size, float bc2_sqrt)
{
    ADAM_BODY
}

__attribute__((target("avx512f")))
static void adam_avx512(float *restrict proj, float *restrict m, float *restrict v, const float *restrict grad, size_t e0,
                        size_t e1, float step_size, float bc2_sqrt)
{
    ADAM_BODY
}
#endif

typedef void (*adam_fn)(float *restrict, float *restrict, float *restrict, const float *restrict, size_t, size_t, float, float);

static adam_fn adam_kernel(void)
{
#ifdef ADAM_X86
    const char *kn = sp_gemm_kernel();
    if (!strcmp(kn, "avx512")) return adam_avx512;
    if (!strcmp(kn, "avx2")) return adam_avx2;
#endif
    return adam_c;
}

/* the step's scalars: bias corrections in float64 (PyTorch computes them as Python floats) */
static void adam_scalars(long step, double lr, float *step_size, float *bc2_sqrt)
{
    double bc1 = 1.0 - pow(0.9, (double)step), bc2 = 1.0 - pow(0.999, (double)step);
    *step_size = (float)(lr / bc1);
    *bc2_sqrt = (float)sqrt(bc2);
}

/* ---- one batch, in two parallel passes ----
 * pass 1, items = groups of consecutive sentences: T = X·proj for their rows (X read where the
 *   word vectors lie, ws_xr: no gathered copy), each sentence's loss (ws_loss[b]) and gradient
 *   factor M, written straight into its rows of the packed M;
 * pass 2, items = blocks of proj's rows: those rows of the gradient, Xᵀ[rows]·M (one chain per
 *   entry over the batch's words, in order; Xᵀ packed straight from the word vectors, no
 *   transposed copy), then Adam on them and their rows of the packed proj.
 * Every item writes only its own outputs and nothing depends on which thread runs it or on how
 * the work is cut; the losses are added in batch order afterwards. */

struct batch {
    struct prb_sprobe *p;
    int nb;
    const float *const *X;    /* each sentence's word vectors */
    const int *n;             /* its words */
    const float *const *tgt;  /* its targets */
    long *r0;                 /* its first row in the batch */
    long rows;
    double gscale;            /* 0: loss only */
    int n_groups;
    int *g0;                  /* group g = sentences g0[g] .. g0[g+1]-1 */
    struct sp_gemm_b projb, mb;
    int n_blocks;             /* pass 2 */
    int accumulate;           /* pass 2: add to grad (1) or write it (0) */
    adam_fn adam;             /* pass 2: NULL = no step */
    float step_size, bc2_sqrt;
};

static void pass1_item(void *arg, int g, int worker)
{
    struct batch *B = arg;
    struct prb_sprobe *p = B->p;
    const int k = p->k;
    const int s0 = B->g0[g], s1 = B->g0[g + 1];
    if (s0 >= s1) return;
    const long R0 = B->r0[s0], R1 = B->r0[s1 - 1] + B->n[s1 - 1];
    if (R1 > R0) {
        struct sp_gemm_a xa = { p->ws_xr + R0, 0, 0 };
        sp_gemm_rows((int)(R1 - R0), &xa, &B->projb, NULL, 0, p->ws_t + (size_t)R0 * k, k);
    }
    for (int b = s0; b < s1; b++) {
        const struct mdst M = { p->pk_m, B->rows, B->r0[b] };
        p->ws_loss[b] = B->n[b] == 0 ? 0.0
                        : sent_loss_t(p, &p->wk[worker], B->n[b], p->ws_t + (size_t)B->r0[b] * k, B->tgt[b],
                                      B->gscale != 0.0 ? &M : NULL, B->gscale);
    }
}

static void pass2_item(void *arg, int q, int worker)
{
    (void)worker;
    struct batch *B = arg;
    struct prb_sprobe *p = B->p;
    const int d = p->d, k = p->k;
    const int i0 = (int)((long)d * q / B->n_blocks), i1 = (int)((long)d * (q + 1) / B->n_blocks);
    if (i0 >= i1) return;
    struct sp_gemm_a xta = { p->ws_xr, 1, i0 };        /* rows i0..i1 of Xᵀ */
    sp_gemm_rows(i1 - i0, &xta, &B->mb, NULL, B->accumulate, p->grad + (size_t)i0 * k, k);
    if (!B->adam) return;
    B->adam(p->proj, p->m, p->v, p->grad, (size_t)i0 * k, (size_t)i1 * k, B->step_size, B->bc2_sqrt);
    pack_rows(p->pk_proj, d, k, p->proj, i0, i1);
}

/* Sets up B for nb sentences: rows, groups (balanced by words), scratch; the packed proj is
 * p->pk_proj (packed by the caller) */
static void batch_init(struct batch *B, struct prb_sprobe *p, int nb, const float *const *X, const int *n,
                       const float *const *tgt, double gscale)
{
    memset(B, 0, sizeof *B);
    B->p = p;
    B->nb = nb;
    B->X = X;
    B->n = n;
    B->tgt = tgt;
    B->gscale = gscale;
    B->r0 = sp_xmalloc((size_t)(nb + 1) * sizeof *B->r0);
    for (int b = 0; b < nb; b++) { B->r0[b] = B->rows; B->rows += n[b]; }
    B->r0[nb] = B->rows;
    ws_grow(p, B->rows > 0 ? B->rows : 1, nb > 0 ? nb : 1);
    for (int b = 0; b < nb; b++)
        for (int i = 0; i < n[b]; i++) p->ws_xr[B->r0[b] + i] = X[b] + (size_t)i * p->d;
    int th = sp_gemm_threads();
    B->n_groups = th;
    if (B->n_groups > nb) B->n_groups = nb > 0 ? nb : 1;
    B->g0 = sp_xmalloc((size_t)(B->n_groups + 1) * sizeof *B->g0);
    /* group g starts at the first sentence whose first row is at or past g·rows/n_groups */
    int s = 0;
    for (int g = 0; g < B->n_groups; g++) {
        long at = B->rows * g / B->n_groups;
        while (s < nb && B->r0[s] < at) s++;
        B->g0[g] = s;
    }
    B->g0[B->n_groups] = nb;
    B->n_blocks = th;
    B->projb = packed(p->d, p->k, p->pk_proj, p->proj);
    B->mb = packed(B->rows > 0 ? (int)B->rows : 0, p->k, p->pk_m, NULL);   /* no unpacked M: own path only */
}

static void batch_free(struct batch *B) { free(B->r0); free(B->g0); }

/* the batch's losses, summed in batch order, after pass 1 (and pass 2 when gscale != 0) */
static double batch_run(struct batch *B)
{
    struct prb_sprobe *p = B->p;
    if (B->rows == 0) return 0.0;
    /* the own GEMM whatever this thread was set to: the bits are the contract's, and the packed
     * M has no unpacked twin for the BLAS path to read (pool workers run the own path) */
    const enum sp_gemm_impl impl0 = sp_gemm_get_impl();
    sp_gemm_set_impl(SP_GEMM_OWN);
    sp_gemm_parallel(B->n_groups, pass1_item, B, p->n_wk);
    if (B->gscale != 0.0) sp_gemm_parallel(B->n_blocks, pass2_item, B, p->n_wk);
    sp_gemm_set_impl(impl0);
    double sum = 0.0;
    for (int b = 0; b < B->nb; b++) sum += p->ws_loss[b];
    return sum;
}

static void pack_proj(struct prb_sprobe *p)
{
    ws_grow(p, 1, 1);
    pack_rows(p->pk_proj, p->d, p->k, p->proj, 0, p->d);
}

double prb_sprobe_sent_loss(struct prb_sprobe *p, int n, const float *X, const float *target, double gscale)
{
    if (n <= 0) return 0.0;
    pack_proj(p);
    struct batch B;
    batch_init(&B, p, 1, &X, &n, &target, gscale);
    B.accumulate = 1;
    double l = batch_run(&B);
    batch_free(&B);
    return l;
}

/* Sum of L_s over the sentences idx[0..nb) of set (targets at tgt + toff[s]); with lr > 0, the
 * batch's gradient (each sentence's at gscale) and one Adam step on it. proj must be packed. */
static double batch_step(struct prb_sprobe *p, const struct prb_sp_set *set, const float *tgt, const long *toff,
                         const int *idx, int nb, double gscale, double lr)
{
    const float **X = sp_xmalloc((size_t)nb * sizeof *X), **tg = sp_xmalloc((size_t)nb * sizeof *tg);
    int *n = sp_xmalloc((size_t)nb * sizeof *n);
    for (int b = 0; b < nb; b++) {
        int s = idx[b];
        n[b] = (int)(set->off[s + 1] - set->off[s]);
        X[b] = set->X + (size_t)set->off[s] * p->d;
        tg[b] = tgt + toff[s];
    }
    struct batch B;
    batch_init(&B, p, nb, X, n, tg, gscale);
    if (gscale != 0.0) {
        B.accumulate = 0;
        B.adam = adam_kernel();
        p->step++;
        adam_scalars(p->step, lr, &B.step_size, &B.bc2_sqrt);
    }
    double sum = batch_run(&B);
    batch_free(&B);
    free(X); free(tg); free(n);
    return sum;
}

void prb_sprobe_zero_grad(struct prb_sprobe *p)
{
    memset(p->grad, 0, (size_t)p->d * p->k * sizeof *p->grad);
}

struct adam_job { struct prb_sprobe *p; adam_fn fn; float step_size, bc2_sqrt; };
#define ADAM_CHUNK 16384

static void adam_item(void *arg, int item, int worker)
{
    (void)worker;
    const struct adam_job *j = arg;
    size_t np = (size_t)j->p->d * j->p->k;
    size_t e0 = (size_t)item * ADAM_CHUNK, e1 = e0 + ADAM_CHUNK < np ? e0 + ADAM_CHUNK : np;
    j->fn(j->p->proj, j->p->m, j->p->v, j->p->grad, e0, e1, j->step_size, j->bc2_sqrt);
}

void prb_sprobe_adam_step(struct prb_sprobe *p, double lr)
{
    p->step++;
    struct adam_job j = { p, adam_kernel(), 0, 0 };
    adam_scalars(p->step, lr, &j.step_size, &j.bc2_sqrt);
    size_t np = (size_t)p->d * p->k;
    sp_gemm_parallel((int)((np + ADAM_CHUNK - 1) / ADAM_CHUNK), adam_item, &j, sp_gemm_threads());
}

void prb_sprobe_predict(struct prb_sprobe *p, int n, const float *X, double *out)
{
    if (n <= 0) return;
    pack_proj(p);
    ws_grow(p, n, 1);
    struct sp_gemm_b b = packed(p->d, p->k, p->pk_proj, p->proj);
    sp_gemm(n, X, p->d, &b, NULL, 0, p->ws_t, p->k);
    if (p->kind == PRB_SPROBE_DISTANCE) {
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) out[(size_t)i * n + j] = dist_hat(p->ws_t, p->k, i, j);
    } else {
        for (int i = 0; i < n; i++) out[i] = depth_hat(p->ws_t, p->k, i);
    }
}

/* ---- schedule (regimen.py + ReduceLROnPlateau) ---- */

void prb_sp_regimen_init(struct prb_sp_regimen *r, double lr)
{
    r->lr = lr;
    r->best_s = INFINITY;
    r->best_m = HUGE_VAL;
    r->best_e = -1;
}

int prb_sp_regimen_epoch(struct prb_sp_regimen *r, int e, double dev_sum, double dev_mean, int *save)
{
    *save = 0;
    /* scheduler on dev_sum, relative threshold 1e-4, factor 0.1, eps 1e-8 */
    if (dev_sum < r->best_s * (1.0 - 1e-4)) {
        r->best_s = dev_sum;
    } else {
        double lr_new = r->lr * 0.1;
        if (r->lr - lr_new > 1e-8) r->lr = lr_new;
    }
    /* checkpoint / stop on dev_mean, absolute threshold 1e-4 (NaN compares false: no save) */
    if (dev_mean < r->best_m - 0.0001) {
        *save = 1;
        r->best_m = dev_mean;
        r->best_e = e;
        return 0;
    }
    return r->best_e < e - 4;
}

/* ---- training ---- */

void prb_sptrain_cfg_default(struct prb_sptrain_cfg *c)
{
    memset(c, 0, sizeof *c);
    c->kind = PRB_SPROBE_DISTANCE;
    c->rank = 0;
    c->batch_size = 20;
    c->max_epochs = 40;
    c->lr = 1e-3;
    c->seed = 1;
}

/* Targets of every sentence, concatenated; toff[s] = offset of sentence s. */
static int set_targets(enum prb_sprobe_kind kind, const struct prb_sp_set *set, const char *what,
                       float **out, long **toff_out, char *err, size_t errlen)
{
    long *toff = sp_xmalloc((size_t)(set->n_sent + 1) * sizeof *toff);
    toff[0] = 0;
    for (int s = 0; s < set->n_sent; s++) {
        long n = set->off[s + 1] - set->off[s];
        toff[s + 1] = toff[s] + (kind == PRB_SPROBE_DISTANCE ? n * n : n);
    }
    float *t = sp_xmalloc((size_t)(toff[set->n_sent] > 0 ? toff[set->n_sent] : 1) * sizeof *t);
    for (int s = 0; s < set->n_sent; s++) {
        int n = (int)(set->off[s + 1] - set->off[s]);
        if (prb_sprobe_target(kind, n, set->head + set->off[s], t + toff[s]) != 0) {
            snprintf(err, errlen, "%s sentence %d: gold heads are not one tree", what, s + 1);
            free(t);
            free(toff);
            return -1;
        }
    }
    *out = t;
    *toff_out = toff;
    return 0;
}

/* One training run: its inputs, the gold targets, scratch and the regimen's state */
struct sp_fit {
    const struct prb_sptrain_cfg *cfg;
    const struct prb_sp_set *train, *dev;
    struct sp_splitmix rng;
    float *ttr, *tdv;                /* gold targets of train and dev ... */
    long *otr, *odv;                 /* ... and each sentence's offset into them */
    float *best;                     /* the projection of the best epoch so far */
    size_t np;
    int *perm, *dvidx;               /* the epoch's training order; dev in order */
    struct prb_sp_regimen reg;
    struct prb_sptrain_info inf;
};

/* The settings must fit the data; p is initialised (from the seed) once the dimensions agree */
static int check_and_init(struct prb_sprobe *p, struct sp_fit *F, char *err, size_t errlen)
{
    const struct prb_sptrain_cfg *cfg = F->cfg;
    const struct prb_sp_set *train = F->train, *dev = F->dev;
    if (train->d != dev->d || train->d <= 0) {
        snprintf(err, errlen, "structural probe: train and dev vectors have dimensions %d and %d, expected "
                 "the same positive number", train->d, dev->d);
        return -1;
    }
    prb_sprobe_init(p, cfg->kind, train->d, cfg->rank, &F->rng);
    if (train->n_sent <= 0 || dev->n_sent <= 0) {
        snprintf(err, errlen, "structural probe: %s split is empty, expected at least one sentence",
                 train->n_sent <= 0 ? "the training" : "the dev");
        return -1;
    }
    if (cfg->batch_size < 1 || cfg->max_epochs < 1) {
        snprintf(err, errlen, "structural probe: batch size %d and max epochs %d, expected both >= 1",
                 cfg->batch_size, cfg->max_epochs);
        return -1;
    }
    return 0;
}

/* A shuffled pass over the training sentences in minibatches (empty sentences only fill a batch);
 * returns the sum of the batches' mean losses */
static double train_pass(struct prb_sprobe *p, struct sp_fit *F)
{
    const struct prb_sp_set *train = F->train;
    int N = train->n_sent, bs = F->cfg->batch_size;
    for (int i = 0; i < N; i++) F->perm[i] = i;
    for (int i = N - 1; i >= 1; i--) {
        int j = (int)sp_splitmix_below(&F->rng, (uint64_t)i + 1);
        int x = F->perm[i]; F->perm[i] = F->perm[j]; F->perm[j] = x;
    }
    double tsum = 0.0;
    for (int b0 = 0; b0 < N; b0 += bs) {
        int b1 = b0 + bs < N ? b0 + bs : N;
        int nb = 0;
        for (int b = b0; b < b1; b++)
            if (train->off[F->perm[b] + 1] > train->off[F->perm[b]]) nb++;
        if (nb == 0) continue;
        tsum += batch_step(p, train, F->ttr, F->otr, F->perm + b0, b1 - b0, 1.0 / nb, F->reg.lr);
        F->inf.steps++;
    }
    return tsum;
}

/* The summed dev loss, in batches of 20 sentences, without gradients */
static double dev_loss(struct prb_sprobe *p, const struct sp_fit *F)
{
    const struct prb_sp_set *dev = F->dev;
    double dsum = 0.0;
    for (int s0 = 0; s0 < dev->n_sent; s0 += 20)
        dsum += batch_step(p, dev, F->tdv, F->odv, F->dvidx + s0, dev->n_sent - s0 < 20 ? dev->n_sent - s0 : 20, 0.0, 0.0);
    return dsum;
}

/* Epoch e: train, then the regimen on the dev loss (keeping the best projection); 1 to stop */
static int run_epoch(struct prb_sprobe *p, struct sp_fit *F, int e)
{
    double tsum = train_pass(p, F);
    double dsum = dev_loss(p, F);
    double dmean = dsum / F->dev->n_sent;
    if (F->inf.train_mean) F->inf.train_mean[e] = tsum / F->train->n_sent;
    if (F->inf.dev_mean) F->inf.dev_mean[e] = dmean;
    F->inf.epochs = e + 1;
    int save = 0;
    int stop = prb_sp_regimen_epoch(&F->reg, e, dsum, dmean, &save);
    if (save) memcpy(F->best, p->proj, F->np * sizeof *F->best);
    if (stop) F->inf.early_stopped = 1;
    return stop;
}

/* The epochs, then the best epoch's projection back into p; -1 when no epoch improved */
static int fit_epochs(struct prb_sprobe *p, struct sp_fit *F, struct prb_sptrain_info *info, char *err, size_t errlen)
{
    int rc = -1;
    F->np = (size_t)p->d * p->k;
    F->best = sp_xmalloc(F->np * sizeof *F->best);
    F->perm = sp_xmalloc((size_t)F->train->n_sent * sizeof *F->perm);
    F->dvidx = sp_xmalloc((size_t)F->dev->n_sent * sizeof *F->dvidx);
    for (int s = 0; s < F->dev->n_sent; s++) F->dvidx[s] = s;
    prb_sp_regimen_init(&F->reg, F->cfg->lr);
    memset(&F->inf, 0, sizeof F->inf);
    F->inf.train_mean = info ? info->train_mean : NULL;
    F->inf.dev_mean = info ? info->dev_mean : NULL;
    F->inf.best_epoch = -1;
    pack_proj(p);                /* then kept packed by each step's Adam */
    for (int e = 0; e < F->cfg->max_epochs; e++)
        if (run_epoch(p, F, e)) break;
    F->inf.best_epoch = F->reg.best_e;
    F->inf.best_dev_mean = F->reg.best_m;
    F->inf.lr_final = F->reg.lr;
    if (F->reg.best_e < 0) {
        snprintf(err, errlen, "structural probe: no epoch improved the dev loss (NaN losses?), nothing to keep");
    } else {
        memcpy(p->proj, F->best, F->np * sizeof *F->best);
        rc = 0;
    }
    if (info) *info = F->inf;
    free(F->dvidx);
    free(F->perm);
    free(F->best);
    return rc;
}

int prb_sprobe_train(struct prb_sprobe *p, const struct prb_sptrain_cfg *cfg,
                     const struct prb_sp_set *train, const struct prb_sp_set *dev,
                     struct prb_sptrain_info *info, char *err, size_t errlen)
{
    struct sp_fit F;
    memset(&F, 0, sizeof F);
    F.cfg = cfg;
    F.train = train;
    F.dev = dev;
    sp_splitmix_seed(&F.rng, cfg->seed);
    memset(p, 0, sizeof *p);
    if (check_and_init(p, &F, err, errlen)) return -1;
    int rc = -1;
    if (set_targets(cfg->kind, train, "training", &F.ttr, &F.otr, err, errlen) == 0 &&
        set_targets(cfg->kind, dev, "dev", &F.tdv, &F.odv, err, errlen) == 0)
        rc = fit_epochs(p, &F, info, err, errlen);
    free(F.ttr); free(F.otr); free(F.tdv); free(F.odv);
    return rc;
}

int prb_sprobe_eval(struct prb_sprobe *p, const struct prb_sp_set *set, struct prb_sp_acc *acc,
                    char *err, size_t errlen)
{
    int maxn = 0;
    for (int s = 0; s < set->n_sent; s++) {
        int n = (int)(set->off[s + 1] - set->off[s]);
        if (n > maxn) maxn = n;
    }
    size_t sz = p->kind == PRB_SPROBE_DISTANCE ? (size_t)maxn * maxn : (size_t)maxn;
    double *pred = sp_xmalloc((sz > 0 ? sz : 1) * sizeof *pred);
    uint8_t *zero = sp_xcalloc((size_t)(maxn > 0 ? maxn : 1), 1);
    char e2[256];
    int rc = 0;
    for (int s = 0; s < set->n_sent && rc == 0; s++) {
        int n = (int)(set->off[s + 1] - set->off[s]);
        if (n == 0) continue;
        prb_sprobe_predict(p, n, set->X + (size_t)set->off[s] * p->d, pred);
        const uint8_t *pu = set->punct ? set->punct + set->off[s] : zero;
        if (prb_sp_add(acc, n, set->head + set->off[s], pu,
                       p->kind == PRB_SPROBE_DISTANCE ? pred : NULL,
                       p->kind == PRB_SPROBE_DEPTH ? pred : NULL, NULL, e2, sizeof e2) != 0) {
            snprintf(err, errlen, "sentence %d: %s", s + 1, e2);
            rc = -1;
        }
    }
    free(zero);
    free(pred);
    return rc;
}
