/* tests/unit/probes_determinism.c — trained structural probes are the same bits for any thread
 * count and every GEMM kernel (avx512, avx2, c), and a sentence's loss does not depend on where
 * it sits in a batch (issue 26: probe training on synprobe's own GEMM, common/gemm.h). The Adam
 * step gives the bits of the update written out in plain scalar C, under every kernel.
 * The shapes are chosen so that the products split across threads (a batch's rows x d x k is
 * above the GEMM's 2M multiply-adds), k is no multiple of the 32-column panel, and the Adam step
 * has more than one chunk (d·k > 16384). The SentEval classifier (logreg and MLP, the products
 * of the token probes and `probe`) likewise: its parameters after prb_clf_fit are the same bits
 * for 1-3 threads and every kernel. */
#include "common/gemm.h"
#include "common/sp.h"
#include "probes/classifier.h"
#include "probes/structprobe_train.h"
#include "tests/unit/t_harness.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define D 160
#define K 120

/* n_sent sentences of 2..41 words, random trees, vectors = a fixed random image of each word's
 * path-to-root indicator plus noise (so the probes learn something) */
struct synth { int n_sent; float *X; long *off; int *head; };

static void synth_make(struct synth *s, int n_sent, uint64_t seed)
{
    struct sp_splitmix r;
    sp_splitmix_seed(&r, seed);
    s->n_sent = n_sent;
    s->off = malloc((size_t)(n_sent + 1) * sizeof *s->off);
    s->off[0] = 0;
    for (int i = 0; i < n_sent; i++) s->off[i + 1] = s->off[i] + 2 + (long)sp_splitmix_below(&r, 40);
    long total = s->off[n_sent];
    s->X = malloc((size_t)total * D * sizeof *s->X);
    s->head = malloc((size_t)total * sizeof *s->head);
    static float C[48 * D];
    struct sp_splitmix rc;
    sp_splitmix_seed(&rc, 77);
    for (int e = 0; e < 48 * D; e++) C[e] = (float)(sp_splitmix_unif(&rc) - 0.5);
    for (int i = 0; i < n_sent; i++) {
        int n = (int)(s->off[i + 1] - s->off[i]);
        int *h = s->head + s->off[i];
        int order[48];
        for (int w = 0; w < n; w++) order[w] = w;
        int root = (int)sp_splitmix_below(&r, (uint64_t)n);
        order[0] = root; order[root] = 0;
        h[root] = -1;
        for (int k = 1; k < n; k++) h[order[k]] = order[sp_splitmix_below(&r, (uint64_t)k)];
        for (int w = 0; w < n; w++) {
            float *x = s->X + (size_t)(s->off[i] + w) * D;
            for (int c = 0; c < D; c++) x[c] = (float)(0.3 * (sp_splitmix_unif(&r) - 0.5));
            for (int a = w; h[a] >= 0; a = h[a])
                for (int c = 0; c < D; c++) x[c] += C[a * D + c];
        }
    }
}

static void synth_free(struct synth *s) { free(s->X); free(s->off); free(s->head); }

static struct prb_sp_set as_set(const struct synth *s)
{
    struct prb_sp_set set = { s->n_sent, D, s->X, s->off, s->head, NULL };
    return set;
}

struct outcome { float *proj; double dev[4]; int epochs; long steps; };

static void train(const struct prb_sp_set *tr, const struct prb_sp_set *dv, enum prb_sprobe_kind kind, struct outcome *o)
{
    struct prb_sptrain_cfg cfg;
    prb_sptrain_cfg_default(&cfg);
    cfg.kind = kind;
    cfg.rank = K;
    cfg.max_epochs = 4;
    cfg.seed = 9;
    struct prb_sptrain_info info = { .dev_mean = o->dev };
    struct prb_sprobe p;
    char err[256];
    T_EQ_INT(prb_sprobe_train(&p, &cfg, tr, dv, &info, err, sizeof err), 0);
    o->proj = malloc((size_t)D * K * sizeof *o->proj);
    memcpy(o->proj, p.proj, (size_t)D * K * sizeof *o->proj);
    o->epochs = info.epochs;
    o->steps = info.steps;
    prb_sprobe_free(&p);
}

/* every kernel the CPU runs x threads 1, 2, 3: the same bits as the first */
static void t_threads_kernels(void)
{
    struct synth a, b;
    synth_make(&a, 70, 11);
    synth_make(&b, 25, 12);
    struct prb_sp_set tr = as_set(&a), dv = as_set(&b);
    static const char *const kernels[] = { "avx512", "avx2", "c" };
    for (int kind = 0; kind < 2; kind++) {
        struct outcome ref = { 0 };
        int have_ref = 0, runs = 0;
        for (int ki = 0; ki < 3; ki++) {
            if (sp_gemm_use_kernel(kernels[ki]) != 0) {
                printf("ok # SKIP %s: this CPU does not run the %s kernel\n", __FILE__, kernels[ki]);
                continue;
            }
            for (int th = 1; th <= 3; th++) {
                sp_gemm_set_threads(th);
                struct outcome o = { 0 };
                train(&tr, &dv, kind == 0 ? PRB_SPROBE_DISTANCE : PRB_SPROBE_DEPTH, &o);
                runs++;
                if (!have_ref) { ref = o; have_ref = 1; continue; }
                int same = o.epochs == ref.epochs && o.steps == ref.steps &&
                           !memcmp(o.proj, ref.proj, (size_t)D * K * sizeof *o.proj) &&
                           !memcmp(o.dev, ref.dev, (size_t)o.epochs * sizeof *o.dev);
                if (!same) printf("# %s probe, kernel %s, %d threads: differs from kernel %s, 1 thread\n",
                                  kind == 0 ? "distance" : "depth", kernels[ki], th, sp_gemm_kernel());
                T_CHECK(same);
                free(o.proj);
            }
        }
        T_CHECK(runs >= 3);                   /* the plain C kernel runs everywhere */
        T_CHECK(ref.epochs >= 1 && ref.dev[ref.epochs - 1] < ref.dev[0]);   /* it learned something */
        free(ref.proj);
    }
    sp_gemm_set_threads(1);
    synth_free(&a);
    synth_free(&b);
}

/* the dev loss of the checkpoint, as training computed it (batches of 20 dev sentences), equals
 * the same sum of each sentence's loss computed alone: a sentence's loss does not depend on its
 * position in a batch (BLAS kernels make a row's bits depend on its position in the register
 * block) */
static void t_batch_position(void)
{
    struct synth a, b;
    synth_make(&a, 40, 21);
    synth_make(&b, 45, 22);
    struct prb_sp_set tr = as_set(&a), dv = as_set(&b);
    for (int th = 1; th <= 2; th++) {
        sp_gemm_set_threads(th);
        for (int kind = 0; kind < 2; kind++) {
            struct prb_sptrain_cfg cfg;
            prb_sptrain_cfg_default(&cfg);
            cfg.kind = kind == 0 ? PRB_SPROBE_DISTANCE : PRB_SPROBE_DEPTH;
            cfg.rank = K;
            cfg.max_epochs = 3;
            double dev[3];
            struct prb_sptrain_info info = { .dev_mean = dev };
            struct prb_sprobe p;
            char err[256];
            T_EQ_INT(prb_sprobe_train(&p, &cfg, &tr, &dv, &info, err, sizeof err), 0);
            float *tg = malloc(48 * 48 * sizeof *tg);
            double dsum = 0.0;
            for (int s0 = 0; s0 < dv.n_sent; s0 += 20) {
                double bs = 0.0;
                for (int s = s0; s < s0 + 20 && s < dv.n_sent; s++) {
                    int n = (int)(dv.off[s + 1] - dv.off[s]);
                    T_EQ_INT(prb_sprobe_target(cfg.kind, n, dv.head + dv.off[s], tg), 0);
                    bs += prb_sprobe_sent_loss(&p, n, dv.X + (size_t)dv.off[s] * D, tg, 0.0);
                }
                dsum += bs;
            }
            T_EQ_INT(info.best_epoch >= 0, 1);
            double want = dev[info.best_epoch], got = dsum / dv.n_sent;
            if (want != got) printf("# %s probe, %d threads: dev loss %.17g in batches, %.17g alone\n",
                                    kind == 0 ? "distance" : "depth", th, want, got);
            T_CHECK(want == got);
            free(tg);
            prb_sprobe_free(&p);
        }
    }
    sp_gemm_set_threads(1);
    synth_free(&a);
    synth_free(&b);
}

/* Adam: one step under each kernel and thread count equals the update written out here in scalar
 * C from docs/spec/models.md M4.4 (float32, bias corrections in float64, PyTorch's order of operations) */
static void t_adam(void)
{
    struct sp_splitmix r;
    sp_splitmix_seed(&r, 5);
    size_t np = (size_t)D * K;
    float *g = malloc(np * sizeof *g), *m0 = malloc(np * sizeof *m0), *v0 = malloc(np * sizeof *v0),
          *p0 = malloc(np * sizeof *p0), *want = malloc(np * sizeof *want);
    for (size_t e = 0; e < np; e++) {
        g[e] = (float)(sp_splitmix_unif(&r) - 0.5) * (e % 7 == 0 ? 1e-6f : 1.0f);
        m0[e] = (float)(sp_splitmix_unif(&r) - 0.5) * 0.1f;
        v0[e] = (float)sp_splitmix_unif(&r) * 0.01f;
        p0[e] = (float)(sp_splitmix_unif(&r) - 0.5);
    }
    g[3] = 0.0f; m0[3] = 0.0f; v0[3] = 0.0f;       /* all zero: no move */
    const long step = 7;
    const double lr = 1e-3;
    double bc1 = 1.0 - pow(0.9, (double)step), bc2 = 1.0 - pow(0.999, (double)step);
    for (size_t e = 0; e < np; e++) {
        volatile float mm = 0.9f * m0[e];          /* volatile: each operation rounded on its own */
        mm = mm + (1.0f - 0.9f) * g[e];
        volatile float vv = 0.999f * v0[e];
        volatile float gg = (1.0f - 0.999f) * g[e];
        gg = gg * g[e];
        vv = vv + gg;
        volatile float den = sqrtf(vv);
        den = den / (float)sqrt(bc2);
        den = den + 1e-8f;
        volatile float q = mm / den;
        q = (float)(lr / bc1) * q;
        want[e] = p0[e] - q;
    }
    static const char *const kernels[] = { "avx512", "avx2", "c" };
    struct prb_sprobe p;
    struct sp_splitmix ri;
    sp_splitmix_seed(&ri, 1);
    T_EQ_INT(prb_sprobe_init(&p, PRB_SPROBE_DISTANCE, D, K, &ri), 0);
    for (int ki = 0; ki < 3; ki++) {
        if (sp_gemm_use_kernel(kernels[ki]) != 0) continue;
        for (int th = 1; th <= 2; th++) {
            sp_gemm_set_threads(th);
            memcpy(p.grad, g, np * sizeof *g);
            memcpy(p.m, m0, np * sizeof *m0);
            memcpy(p.v, v0, np * sizeof *v0);
            memcpy(p.proj, p0, np * sizeof *p0);
            p.step = step - 1;
            prb_sprobe_adam_step(&p, lr);
            size_t bad = 0;
            for (size_t e = 0; e < np; e++) bad += memcmp(&p.proj[e], &want[e], sizeof(float)) != 0;
            if (bad) printf("# Adam, kernel %s, %d threads: %zu of %zu entries differ from the scalar update\n", kernels[ki], th,
                            bad, np);
            T_EQ_INT(bad, 0);
            T_CHECK(p.proj[3] == p0[3]);
        }
    }
    sp_gemm_set_threads(1);
    prb_sprobe_free(&p);
    free(g); free(m0); free(v0); free(p0); free(want);
}

/* the classifier: NCLS overlapping classes, 700 rows x 300 dims (its pool takes jobs of >= 4 MFLOP:
 * an MLP step of 64 x 300 x 120 is above it), d not a multiple of 16 or 32; 3 classes (one
 * column block, rows of the backward in blocks of 2 + 1) and 37 (UD relations: 32 + 5 columns,
 * 8 + 8 + 8 + 8 + 4 + 1 rows) */
static void t_classifier(const int NCLS)
{
    enum { N = 700, DIM = 301 };
    float *X = malloc((size_t)N * DIM * sizeof *X);
    int *y = malloc(N * sizeof *y), tr[500], dv[200];
    struct sp_splitmix r;
    sp_splitmix_seed(&r, 31);
    for (int i = 0; i < N; i++) {
        y[i] = (int)sp_splitmix_below(&r, NCLS);
        for (int c = 0; c < DIM; c++)
            X[(size_t)i * DIM + c] = (float)(sp_splitmix_unif(&r) - 0.5 + (c % NCLS == y[i] ? (NCLS > 3 ? 1.0 : 0.15) : 0.0));
    }
    for (int i = 0; i < 500; i++) tr[i] = i;
    for (int i = 0; i < 200; i++) dv[i] = 500 + i;
    static const char *const kernels[] = { "avx512", "avx2", "c" };
    for (int nhid = 0; nhid <= 120; nhid += 120) {
        float *ref = NULL;
        size_t np = 0;
        struct prb_fit_info ref_info = { 0 };
        for (int ki = 0; ki < 3; ki++) {
            if (sp_gemm_use_kernel(kernels[ki]) != 0) continue;
            for (int th = 1; th <= 3; th++) {
                struct prb_train_cfg cfg;
                prb_train_cfg_default(&cfg);
                cfg.nhid = nhid;
                cfg.dropout = nhid ? 0.1 : 0.0;
                cfg.l2 = 1e-4;
                cfg.max_epoch = 8;
                cfg.threads = th;
                struct prb_clf c;
                T_EQ_INT(prb_clf_init(&c, DIM, NCLS, &cfg), 0);
                struct prb_fit_info info;
                prb_clf_fit(&c, X, y, tr, 500, dv, 200, &info);
                if (!ref) {
                    np = c.nparam;
                    ref = malloc(np * sizeof *ref);
                    memcpy(ref, c.param, np * sizeof *ref);
                    ref_info = info;
                    T_CHECK(info.best_dev > 1.5 / NCLS);  /* it learned something (chance: 1/NCLS) */
                } else {
                    int same = c.nparam == np && !memcmp(c.param, ref, np * sizeof *ref) && info.passes == ref_info.passes &&
                               info.best_dev == ref_info.best_dev;
                    if (!same) printf("# classifier %d classes, nhid %d, kernel %s, %d threads: parameters differ from the first run\n",
                                      NCLS, nhid, kernels[ki], th);
                    T_CHECK(same);
                }
                prb_clf_free(&c);
            }
        }
        free(ref);
    }
    free(X);
    free(y);
}

int main(void)
{
    t_classifier(3);
    t_classifier(37);
    t_adam();
    t_batch_position();
    t_threads_kernels();
    return T_DONE();
}
