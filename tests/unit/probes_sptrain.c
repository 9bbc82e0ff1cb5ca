/* probes_sptrain: trained structural probes (docs/spec/models.md M4): the initialisation check of
 * M4.2, the worked example TV-M4a (targets, predictions, losses, gradients, one Adam step,
 * Spearman, UUAS, root), the schedule trace TV-M4b, and a short training run on seeded
 * synthetic data (dev loss falls, the same seed gives the same bits, errors are reported). */
#include "t_harness.h"

#include <stdint.h>
#include <stdlib.h>

#include "probes/structprobe_metrics.h"
#include "probes/structprobe_train.h"

static void t_init(void)
{
    struct sp_splitmix r;
    struct prb_sprobe p;
    sp_splitmix_seed(&r, 42);
    T_EQ_INT(prb_sprobe_init(&p, PRB_SPROBE_DISTANCE, 3, 2, &r), 0);
    T_NEAR(p.proj[0], 0.0241565, 5e-8);
    T_NEAR(p.proj[1], -0.0340090, 5e-8);
    T_NEAR(p.proj[2], -0.0221399, 5e-8);
    for (int e = 0; e < 6; e++) T_CHECK(p.proj[e] >= -0.05f && p.proj[e] < 0.05f);
    prb_sprobe_free(&p);
    sp_splitmix_seed(&r, 1);
    T_EQ_INT(prb_sprobe_init(&p, PRB_SPROBE_DEPTH, 4, 0, &r), 0);
    T_EQ_INT(p.k, 4);
    prb_sprobe_free(&p);
}

/* TV-M4a: "Dogs bark loudly .", heads 2 0 2 2 (1-based) */
static const float X4[12] = { 1, 0, 2, 0, 1, 1, 2, 1, 0, 1, 1, 1 };
static const int H4[4] = { 1, -1, 1, 1 };
static const float P4[6] = { 0.5f, 0, 0, 1, 0.5f, -0.5f };

static void t_m4a(void)
{
    struct sp_splitmix r;
    sp_splitmix_seed(&r, 0);
    struct prb_sprobe p, q;
    prb_sprobe_init(&p, PRB_SPROBE_DISTANCE, 3, 2, &r);
    prb_sprobe_init(&q, PRB_SPROBE_DEPTH, 3, 2, &r);
    memcpy(p.proj, P4, sizeof P4);
    memcpy(q.proj, P4, sizeof P4);

    float td[16], tq[4];
    T_EQ_INT(prb_sprobe_target(PRB_SPROBE_DISTANCE, 4, H4, td), 0);
    T_EQ_INT(prb_sprobe_target(PRB_SPROBE_DEPTH, 4, H4, tq), 0);
    static const float gd[16] = { 0, 1, 2, 2, 1, 0, 1, 1, 2, 1, 0, 2, 2, 1, 2, 0 };
    static const float gq[4] = { 1, 0, 1, 1 };
    T_CHECK(!memcmp(td, gd, sizeof gd));
    T_CHECK(!memcmp(tq, gq, sizeof gq));

    double D[16], dq[4];
    prb_sprobe_predict(&p, 4, X4, D);
    static const double wantD[16] = { 0, 3.25, 4.25, 2.5, 3.25, 0, 0.5, 0.25, 4.25, 0.5, 0, 0.25, 2.5, 0.25, 0.25, 0 };
    for (int e = 0; e < 16; e++) T_NEAR(D[e], wantD[e], 0);
    prb_sprobe_predict(&q, 4, X4, dq);
    static const double wantq[4] = { 3.25, 0.5, 2, 1.25 };
    for (int e = 0; e < 4; e++) T_NEAR(dq[e], wantq[e], 0);

    /* losses, and the gradients of a batch of this one sentence */
    prb_sprobe_zero_grad(&p);
    T_NEAR(prb_sprobe_sent_loss(&p, 4, X4, td, 1.0), 1.0, 0);
    static const float wantg[6] = { -0.25f, -0.25f, -0.5f, 1.25f, 0.75f, -1.5f };
    for (int e = 0; e < 6; e++) T_NEAR(p.grad[e], wantg[e], 1e-7);
    prb_sprobe_zero_grad(&q);
    T_NEAR(prb_sprobe_sent_loss(&q, 4, X4, tq, 1.0), 1.0, 0);
    static const float wantgq[6] = { 2.25f, 0.75f, 1.25f, 1, 2.25f, -0.5f };
    for (int e = 0; e < 6; e++) T_NEAR(q.grad[e], wantgq[e], 1e-7);
    /* batch of two: this sentence (L 1) at scale 1/2 gives half the gradient */
    prb_sprobe_zero_grad(&q);
    T_NEAR(prb_sprobe_sent_loss(&q, 4, X4, tq, 0.5), 1.0, 0);
    T_NEAR(q.grad[0], 1.125, 1e-7);

    /* one Adam step on the distance loss */
    prb_sprobe_zero_grad(&p);
    prb_sprobe_sent_loss(&p, 4, X4, td, 1.0);
    prb_sprobe_adam_step(&p, 1e-3);
    static const float wantp[6] = { 0.501f, 0.001f, 0.001f, 0.999f, 0.499f, -0.499f };
    for (int e = 0; e < 6; e++) T_NEAR(p.proj[e], wantp[e], 1e-6);
    T_EQ_INT(p.step, 1);

    /* Spearman rows and NSpr (scipy values), UUAS and root through structprobe.c */
    double gold[16];
    for (int e = 0; e < 16; e++) gold[e] = gd[e];
    static const double rows[4] = { 0.632456, 0.774597, 0.632456, 0.833333 };
    for (int i = 0; i < 4; i++) T_NEAR(prb_spearman(4, wantD + 4 * i, gold + 4 * i), rows[i], 1e-6);
    double gq64[4] = { 1, 0, 1, 1 };
    T_NEAR(prb_spearman(4, wantq, gq64), 0.774597, 1e-6);
    const uint8_t punct[4] = { 0, 0, 0, 1 };
    struct prb_sp_acc acc;
    struct prb_sp_sent s;
    char err[200];
    prb_sp_init(&acc);
    T_EQ_INT(prb_sp_add(&acc, 4, H4, punct, wantD, wantq, &s, err, sizeof err), 0);
    T_EQ_INT(s.uuas_correct, 2); T_EQ_INT(s.uuas_total, 2);
    T_EQ_INT(s.pred_root, 1); T_EQ_INT(s.gold_root, 1);
    struct prb_sp_result res;
    prb_sp_result(&acc, &res);
    T_NEAR(res.uuas, 100, 0);
    T_NEAR(res.root_acc, 100, 0);
    T_CHECK(isnan(res.dspr) && isnan(res.nspr));   /* n = 4: outside 5..50, null */
    prb_sp_free(&acc);
    prb_sprobe_free(&p);
    prb_sprobe_free(&q);
}

/* TV-M4b: dev_mean per epoch, N_dev = 100 */
static void t_m4b(void)
{
    static const double dm[9] = { 0.9, 0.6, 0.59993, 0.55, 0.56, 0.57, 0.58, 0.59, 0.60 };
    static const double lr[9] = { 1e-3, 1e-3, 1e-3, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8 };
    static const int save[9] = { 1, 1, 0, 1, 0, 0, 0, 0, 0 };
    struct prb_sp_regimen r;
    prb_sp_regimen_init(&r, 1e-3);
    int stopped_at = -1;
    for (int e = 0; e < 9; e++) {
        int sv;
        int stop = prb_sp_regimen_epoch(&r, e, dm[e] * 100, dm[e], &sv);
        T_EQ_INT(sv, save[e]);
        T_NEAR(r.lr, lr[e], lr[e] * 1e-9);
        if (stop) { stopped_at = e; break; }
    }
    T_EQ_INT(stopped_at, 8);
    T_EQ_INT(r.best_e, 3);
    /* the floor: 1e-8 is not divided again */
    int sv;
    prb_sp_regimen_epoch(&r, 9, 61, 0.61, &sv);
    T_NEAR(r.lr, 1e-8, 1e-17);
    /* a NaN loss never saves */
    prb_sp_regimen_init(&r, 1e-3);
    prb_sp_regimen_epoch(&r, 0, NAN, NAN, &sv);
    T_EQ_INT(sv, 0);
    T_EQ_INT(r.best_e, -1);
}

/* Synthetic data: random trees over at most 10 words; word w's "tree code" p_w in R^10 is the
 * indicator of the non-root words on its path to the root, so |p_i - p_j|^2 = d(i, j) and
 * |p_w|^2 = depth(w) exactly; the word vector is p_w·C for a fixed random 10×d matrix C plus
 * small noise, so a linear map of rank 10 recovers both targets. */
struct synth { int n_sent, d, total; float *X; long *off; int *head; uint8_t *punct; };

static void synth_make(struct synth *s, int n_sent, int d, uint64_t seed)
{
    struct sp_splitmix r;
    sp_splitmix_seed(&r, seed);
    float C[10 * 32];
    struct sp_splitmix rc;
    sp_splitmix_seed(&rc, 77);             /* the same C for every split */
    for (int e = 0; e < 10 * d; e++) C[e] = (float)(sp_splitmix_unif(&rc) * 2 - 1);
    s->n_sent = n_sent; s->d = d;
    s->off = malloc((size_t)(n_sent + 1) * sizeof *s->off);
    s->off[0] = 0;
    for (int i = 0; i < n_sent; i++) s->off[i + 1] = s->off[i] + 3 + (long)sp_splitmix_below(&r, 8);
    s->total = (int)s->off[n_sent];
    s->X = malloc((size_t)s->total * d * sizeof *s->X);
    s->head = malloc((size_t)s->total * sizeof *s->head);
    s->punct = calloc((size_t)s->total, 1);
    for (int i = 0; i < n_sent; i++) {
        int n = (int)(s->off[i + 1] - s->off[i]);
        int *h = s->head + s->off[i];
        int root = (int)sp_splitmix_below(&r, (uint64_t)n);
        /* a random tree: each word but the root picks a head among the words already placed */
        int order[16];
        for (int w = 0; w < n; w++) order[w] = w;
        order[0] = root; order[root] = 0;
        h[root] = -1;
        for (int k = 1; k < n; k++) h[order[k]] = order[sp_splitmix_below(&r, (uint64_t)k)];
        for (int w = 0; w < n; w++) {
            float p[10] = { 0 };
            for (int a = w; h[a] >= 0; a = h[a]) p[a] = 1;
            float *x = s->X + (size_t)(s->off[i] + w) * d;
            for (int c = 0; c < d; c++) {
                double v = 0.02 * (sp_splitmix_unif(&r) - 0.5);
                for (int m = 0; m < 10; m++) v += p[m] * C[m * d + c];
                x[c] = (float)v;
            }
        }
        /* the last word is punctuation when it is a leaf (for the metrics only) */
        int leaf = 1;
        for (int w = 0; w < n; w++) if (h[w] == n - 1) leaf = 0;
        s->punct[s->off[i] + n - 1] = (uint8_t)(leaf && h[n - 1] >= 0);
    }
}

static void synth_free(struct synth *s) { free(s->X); free(s->off); free(s->head); free(s->punct); }

static struct prb_sp_set as_set(const struct synth *s)
{
    struct prb_sp_set set = { s->n_sent, s->d, s->X, s->off, s->head, s->punct };
    return set;
}

static void t_train(void)
{
    struct synth tr, dv;
    synth_make(&tr, 60, 16, 101);
    synth_make(&dv, 20, 16, 202);
    struct prb_sp_set a = as_set(&tr), b = as_set(&dv);
    for (int kind = 0; kind < 2; kind++) {
        struct prb_sptrain_cfg cfg;
        prb_sptrain_cfg_default(&cfg);
        cfg.kind = kind == 0 ? PRB_SPROBE_DISTANCE : PRB_SPROBE_DEPTH;
        cfg.rank = 10;
        cfg.max_epochs = 30;
        cfg.lr = 1e-2;
        cfg.seed = 5;
        double tm[30], dm[30], tm2[30], dm2[30];
        struct prb_sptrain_info info = { .train_mean = tm, .dev_mean = dm };
        struct prb_sprobe p, p2;
        char err[200];
        T_EQ_INT(prb_sprobe_train(&p, &cfg, &a, &b, &info, err, sizeof err), 0);
        T_CHECK(info.epochs >= 5);
        T_CHECK(info.best_dev_mean < 0.5 * dm[0]);
        T_CHECK(info.best_epoch >= 0 && info.best_epoch < info.epochs);
        T_NEAR(info.best_dev_mean, dm[info.best_epoch], 0);
        /* evaluation through the metrics: the probe beats chance by far */
        struct prb_sp_acc acc;
        struct prb_sp_result res;
        prb_sp_init(&acc);
        T_EQ_INT(prb_sprobe_eval(&p, &b, &acc, err, sizeof err), 0);
        prb_sp_result(&acc, &res);
        if (kind == 0) T_CHECK(res.uuas > 60);
        else T_CHECK(res.root_acc > 60);
        prb_sp_free(&acc);
        /* same seed, same bits */
        struct prb_sptrain_info info2 = { .train_mean = tm2, .dev_mean = dm2 };
        T_EQ_INT(prb_sprobe_train(&p2, &cfg, &a, &b, &info2, err, sizeof err), 0);
        T_CHECK(!memcmp(p.proj, p2.proj, (size_t)p.d * p.k * sizeof *p.proj));
        T_CHECK(!memcmp(dm, dm2, (size_t)info.epochs * sizeof *dm));
        prb_sprobe_free(&p2);
        /* another seed, other bits */
        cfg.seed = 6;
        T_EQ_INT(prb_sprobe_train(&p2, &cfg, &a, &b, NULL, err, sizeof err), 0);
        T_CHECK(memcmp(p.proj, p2.proj, (size_t)p.d * p.k * sizeof *p.proj) != 0);
        prb_sprobe_free(&p2);
        prb_sprobe_free(&p);
    }
    /* bad heads are named; an empty dev split is refused */
    struct prb_sptrain_cfg cfg;
    prb_sptrain_cfg_default(&cfg);
    struct prb_sprobe p;
    char err[200];
    int saved = tr.head[tr.off[2]];
    tr.head[tr.off[2]] = 1;     /* sentence 3: the root word now has a head -> no root */
    tr.head[tr.off[2] + 1] = 0;
    T_EQ_INT(prb_sprobe_train(&p, &cfg, &a, &b, NULL, err, sizeof err), -1);
    T_CHECK(strstr(err, "training sentence 3") != NULL);
    prb_sprobe_free(&p);
    tr.head[tr.off[2]] = saved;
    struct prb_sp_set empty = b;
    empty.n_sent = 0;
    T_EQ_INT(prb_sprobe_train(&p, &cfg, &a, &empty, NULL, err, sizeof err), -1);
    T_CHECK(strstr(err, "dev split is empty") != NULL);
    prb_sprobe_free(&p);
    synth_free(&tr);
    synth_free(&dv);
}

int main(void)
{
    t_init();
    t_m4a();
    t_m4b();
    t_train();
    return T_DONE();
}
