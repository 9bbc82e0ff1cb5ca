/* Unit tests for probes/classifier and probes/senteval (docs/spec/probing.md §1.4–§1.5, §6 item 4).
 *
 * Expected values come from the spec (counter semantics, tie-breaking), from hand computation
 * (Adam/RMSprop steps; numbers worked out in double precision from the update formulas of §1.4,
 * see the comments), from Python's round() (quoted), or from an independent double-precision
 * forward pass written here (gradient checks by central finite differences). */
#include <math.h>

#include "probes/classifier.h"
#include "probes/senteval_protocol.h"
#include "t_harness.h"

/* ---- §6.4: counter semantics ---- */

static void test_stopper(void)
{
    struct prb_stopper s;
    prb_stopper_init(&s, 5);
    double acc[12] = { 0.50, 0.60, 0.70, 0.65, 0.70, 0.69, 0.60, 0.70, 0.70, 0.71, 0.72, 0.73 };
    int stopped_after = 0;
    for (int e = 0; e < 12 && !s.stop; e++) {
        int imp = prb_stopper_update(&s, acc[e]);
        T_EQ_INT(imp, e < 3);
        if (s.stop) stopped_after = e + 1;
    }
    T_EQ_INT(stopped_after, 9);      /* improvement at 1-3, none after: stop after evaluation 9 */
    T_EQ_INT(s.best_eval, 3);
    T_NEAR(s.best, 0.70, 0);

    /* never reset: improvements in between do not restart the count */
    prb_stopper_init(&s, 5);
    double acc2[] = { 0.5, 0.4, 0.4, 0.6, 0.5, 0.5, 0.7, 0.6, 0.6, 0.8, 0.7 };
    int n = 0;
    for (; n < 11 && !s.stop; n++) prb_stopper_update(&s, acc2[n]);
    T_EQ_INT(n, 9);                  /* non-improving: 2,3,5,6,8,9 -> the 6th (eval 9) stops */
    T_CHECK(s.stop);
    T_EQ_INT(s.best_eval, 7);
}

/* ---- §6.4: L2 selection tie-breaking after rounding ---- */

static void test_rounding_and_ties(void)
{
    /* Python 3: round(100*x, 2) for these x gives 87.65, 87.65, 87.65, 90.01, 12.35, 100.0, 0.12, 0.38 */
    T_NEAR(prb_round_pct(0.87654), 87.65, 0);
    T_NEAR(prb_round_pct(0.876549), 87.65, 0);
    T_NEAR(prb_round_pct(0.8765), 87.65, 0);
    T_NEAR(prb_round_pct(0.90006), 90.01, 0);
    T_NEAR(prb_round_pct(0.12345), 12.35, 0);
    T_NEAR(prb_round_pct(0.99995), 100.0, 0);
    T_NEAR(prb_round_pct(0.00125), 0.12, 0);   /* exact tie 0.125 -> even */
    T_NEAR(prb_round_pct(0.00375), 0.38, 0);   /* exact tie 0.375 -> even */

    /* l2 = 1e-5, 1e-4, 1e-3, 1e-2: raw dev accuracies differ, rounded ones tie -> the first */
    double raw[4] = { 0.876541, 0.876549, 0.876548, 0.87001 };
    double rounded[4];
    for (int i = 0; i < 4; i++) rounded[i] = prb_round_pct(raw[i]);
    T_EQ_INT(prb_select_first_max(rounded, 4), 0);
    /* a later value that is larger after rounding wins */
    double raw2[4] = { 0.90001, 0.90004, 0.90006, 0.90006 };
    for (int i = 0; i < 4; i++) rounded[i] = prb_round_pct(raw2[i]);
    T_EQ_INT(prb_select_first_max(rounded, 4), 2);
}

/* ---- independent double-precision forward pass (for the gradient checks) ---- */

static double ref_loss(const struct prb_clf *c, const double *P, const float *X, const int *y, int B,
                       const unsigned char *mask, double scale)
{
    int d = c->d, K = c->k, H = c->nhid;
    double loss = 0;
    for (int b = 0; b < B; b++) {
        const float *x = X + (size_t)b * d;
        double logit[16] = { 0 };
        if (H == 0) {
            for (int k = 0; k < K; k++) {
                double s = P[K * d + k];
                for (int j = 0; j < d; j++) s += P[k * d + j] * x[j];
                logit[k] = s;
            }
        } else {
            double h[64];
            for (int u = 0; u < H; u++) {
                double s = P[H * d + u];
                for (int j = 0; j < d; j++) s += P[u * d + j] * x[j];
                if (mask) s = mask[b * H + u] ? s * scale : 0.0;
                h[u] = 1.0 / (1.0 + exp(-s));
            }
            const double *W2 = P + H * d + H, *b2 = W2 + K * H;
            for (int k = 0; k < K; k++) {
                double s = b2[k];
                for (int u = 0; u < H; u++) s += W2[k * H + u] * h[u];
                logit[k] = s;
            }
        }
        double mx = logit[0], z = 0;
        for (int k = 1; k < K; k++) if (logit[k] > mx) mx = logit[k];
        for (int k = 0; k < K; k++) z += exp(logit[k] - mx);
        loss += -(logit[y[b]] - mx - log(z));
    }
    return loss / B;
}

static void fill_data(struct sp_rng *r, float *X, int *y, int B, int d, int K)
{
    for (int i = 0; i < B * d; i++) X[i] = (float)(2 * sp_rng_uniform(r) - 1);
    for (int b = 0; b < B; b++) y[b] = (int)sp_rng_below(r, (uint64_t)K);
}

static void grad_check(int nhid, double dropout)
{
    enum { B = 5, D = 7, K = 3 };
    struct prb_train_cfg cfg;
    prb_train_cfg_default(&cfg);
    cfg.nhid = nhid;
    cfg.dropout = dropout;
    cfg.batch_size = 8;
    struct prb_clf c;
    T_EQ_INT(prb_clf_init(&c, D, K, &cfg), 0);
    struct sp_rng r;
    sp_rng_seed(&r, 99);
    float X[B * D];
    int y[B];
    fill_data(&r, X, y, B, D, K);
    /* bigger weights than the default init so the sigmoid is not in its linear range */
    for (size_t i = 0; i < c.nparam; i++) c.param[i] = (float)(1.5 * (2 * sp_rng_uniform(&r) - 1));
    double loss = prb_clf_loss_grad(&c, X, y, B, dropout > 0);
    const unsigned char *mask = dropout > 0 ? c.mask : NULL;
    double scale = dropout > 0 ? 1.0 / (1.0 - dropout) : 1.0;
    double *P = malloc(c.nparam * sizeof *P);
    for (size_t i = 0; i < c.nparam; i++) P[i] = c.param[i];
    T_NEAR(loss, ref_loss(&c, P, X, y, B, mask, scale), 1e-5);
    double maxerr = 0;
    for (size_t i = 0; i < c.nparam; i++) {
        double h = 1e-5, keep = P[i];
        P[i] = keep + h;
        double lp = ref_loss(&c, P, X, y, B, mask, scale);
        P[i] = keep - h;
        double lm = ref_loss(&c, P, X, y, B, mask, scale);
        P[i] = keep;
        double fd = (lp - lm) / (2 * h), e = fabs(fd - c.grad[i]) / (1e-3 + fabs(fd));
        if (e > maxerr) maxerr = e;
    }
    /* float32 analytic vs double finite differences: agreement to ~1e-6 relative expected */
    T_NEAR(maxerr, 0, 1e-4);
    if (maxerr > 1e-4) fprintf(stderr, "  gradient check nhid %d dropout %g: max rel err %g\n", nhid, dropout, maxerr);
    free(P);
    prb_clf_free(&c);
}

/* ---- optimizer steps by hand ---- */

static void test_adam_by_hand(void)
{
    /* logreg d=1, K=2, parameters 0, one sample x=1, y=0, l2=0.1, Adam defaults.
     * Step 1: logits (0,0), p=(.5,.5), grad W=(-.5,.5), b=(-.5,.5); L2 adds 0.1*0.
     *   m = 0.1 g, v = 0.001 g^2, mhat = g, vhat = g^2 -> theta = -1e-3 * g/(|g| + 1e-8)
     *   = ±9.9999998e-4.
     * Step 2: logits (±0.002 ± 0.002) -> p0 = sigmoid(0.004); g_W0 = p0 - 1 + 0.1*theta_W0, etc.;
     *   m = 0.9 m + 0.1 g; v = 0.999 v + 0.001 g^2; theta -= 1e-3/(1-0.9^2) * m/(sqrt(v)/sqrt(1-0.999^2) + 1e-8)
     *   = ±1.9999419461e-3 (worked in double precision). */
    struct prb_train_cfg cfg;
    prb_train_cfg_default(&cfg);
    cfg.l2 = 0.1;
    struct prb_clf c;
    T_EQ_INT(prb_clf_init(&c, 1, 2, &cfg), 0);
    memset(c.param, 0, c.nparam * sizeof(float));
    float x = 1.0f;
    int y = 0;
    double l = prb_clf_step(&c, &x, &y, 1);
    T_NEAR(l, log(2.0), 1e-6);
    T_NEAR(c.W1[0], 9.9999998e-4, 1e-9);
    T_NEAR(c.W1[1], -9.9999998e-4, 1e-9);
    T_NEAR(c.b1[0], 9.9999998e-4, 1e-9);
    T_NEAR(c.b1[1], -9.9999998e-4, 1e-9);
    prb_clf_step(&c, &x, &y, 1);
    T_NEAR(c.W1[0], 1.9999419461e-3, 2e-9);
    T_NEAR(c.W1[1], -1.9999419461e-3, 2e-9);
    T_NEAR(c.b1[0], 1.9999419461e-3, 2e-9);
    T_NEAR(c.b1[1], -1.9999419461e-3, 2e-9);
    T_EQ_INT(c.step, 2);
    prb_clf_free(&c);

    /* RMSprop (lr 0.01, alpha 0.99): step 1 from 0 with g = -.5 gives
     * v = 0.01*0.25 = 0.0025, theta = 0.01 * 0.5/(0.05 + 1e-8) = 0.0999999800 */
    prb_train_cfg_default(&cfg);
    cfg.optim.kind = PRB_OPT_RMSPROP;
    cfg.optim.lr = 0.01;
    T_EQ_INT(prb_clf_init(&c, 1, 2, &cfg), 0);
    memset(c.param, 0, c.nparam * sizeof(float));
    prb_clf_step(&c, &x, &y, 1);
    T_NEAR(c.W1[0], 0.09999998, 1e-8);
    T_NEAR(c.b1[1], -0.09999998, 1e-8);
    prb_clf_free(&c);

    struct prb_optim o;
    char err[SP_ERRLEN];
    T_EQ_INT(prb_optim_parse("adam,lr=0.0005,beta2=0.99", &o, err, sizeof err), 0);
    T_EQ_INT(o.kind, PRB_OPT_ADAM);
    T_NEAR(o.lr, 0.0005, 0);
    T_NEAR(o.beta2, 0.99, 0);
    T_EQ_INT(prb_optim_parse("rmsprop", &o, err, sizeof err), 0);
    T_NEAR(o.lr, 0.01, 0);
    T_EQ_INT(prb_optim_parse("adagrad", &o, err, sizeof err), -1);
    T_EQ_INT(prb_optim_parse("sgd", &o, err, sizeof err), -1);
}

static void test_init(void)
{
    struct prb_train_cfg cfg;
    prb_train_cfg_default(&cfg);
    cfg.nhid = 50;
    struct prb_clf c;
    T_EQ_INT(prb_clf_init(&c, 400, 5, &cfg), 0);
    double b1 = 1 / sqrt(400.0), b2 = 1 / sqrt(50.0), mx1 = 0, mx2 = 0, sum = 0;
    size_t n1 = (size_t)50 * 400 + 50;
    for (size_t i = 0; i < n1; i++) { mx1 = fmax(mx1, fabs(c.param[i])); sum += c.param[i]; }
    for (size_t i = n1; i < c.nparam; i++) mx2 = fmax(mx2, fabs(c.param[i]));
    T_CHECK(mx1 <= b1 && mx1 > 0.99 * b1);   /* U(-1/sqrt(fan_in), +1/sqrt(fan_in)) */
    T_CHECK(mx2 <= b2 && mx2 > 0.9 * b2);
    T_NEAR(sum / n1, 0, 0.002);
    prb_clf_free(&c);
}

/* ---- synthetic tasks ---- */

/* two Gaussian blobs at ±mu on every coordinate */
static void make_blobs(int n, int d, int K, double mu, uint64_t seed, float *X, int *y)
{
    struct sp_rng r;
    sp_rng_seed(&r, seed);
    for (int i = 0; i < n; i++) {
        y[i] = (int)sp_rng_below(&r, (uint64_t)K);
        for (int j = 0; j < d; j++) {
            double u1 = sp_rng_uniform(&r) + 1e-12, u2 = sp_rng_uniform(&r);
            double g = sqrt(-2 * log(u1)) * cos(6.283185307179586 * u2);
            double m = K == 2 ? (y[i] ? mu : -mu) : ((j % K) == y[i] ? mu : 0.0);
            X[(size_t)i * d + j] = (float)(m + g);
        }
    }
}

static void test_separable_task(void)
{
    /* §6.4: well-separated 2-class task, LogReg path: >= 99% dev, stops by the early-stopping rule */
    enum { NTR = 2000, NDV = 500, NTE = 500, N = NTR + NDV + NTE, D = 16 };
    float *X = malloc((size_t)N * D * sizeof(float));
    int *y = malloc(N * sizeof(int));
    unsigned char *split = malloc(N);
    make_blobs(N, D, 2, 1.0, 7, X, y);
    for (int i = 0; i < N; i++) split[i] = i < NTR ? PRB_SPLIT_TRAIN : i < NTR + NDV ? PRB_SPLIT_DEV : PRB_SPLIT_TEST;

    /* classifier level */
    int tr[NTR], dv[NDV];
    for (int i = 0; i < NTR; i++) tr[i] = i;
    for (int i = 0; i < NDV; i++) dv[i] = NTR + i;
    struct prb_train_cfg cfg;
    prb_train_cfg_default(&cfg);
    cfg.l2 = 1e-5;
    struct prb_clf c;
    prb_clf_init(&c, D, 2, &cfg);
    struct prb_fit_info info;
    prb_clf_fit(&c, X, y, tr, NTR, dv, NDV, &info);
    T_CHECK(info.best_dev >= 0.99);
    T_CHECK(info.early_stopped);
    T_CHECK(info.nevals < 51);
    T_CHECK(info.nevals - info.best_eval >= 6);   /* at least 6 non-improving evaluations after the best */
    T_EQ_INT(info.passes, 4 * info.nevals);
    T_NEAR(prb_clf_accuracy(&c, X, y, dv, NDV), info.best_dev, 0);   /* best parameters restored */
    prb_clf_free(&c);

    /* protocol level, plus determinism across runs and thread counts */
    const char *names[2] = { "A", "B" };
    struct prb_dataset ds = { .n = N, .d = D, .k = 2, .X = X, .y = y, .split = split, .class_names = names, .task = "blobs" };
    struct prb_protocol p;
    T_EQ_INT(prb_protocol_preset(&p, "senteval-default", PRB_LOGREG), 0);
    struct prb_result r1, r2;
    char err[SP_ERRLEN];
    T_EQ_INT(prb_senteval_run(&ds, &p, &r1, err, sizeof err), SP_OK);
    T_CHECK(r1.devacc >= 99.0);
    T_CHECK(r1.testacc >= 98.0);
    T_CHECK(r1.fit.early_stopped);
    T_EQ_INT(r1.n_fits, 4);
    T_CHECK(r1.majority_dev > 40 && r1.majority_dev < 60);
    T_CHECK(r1.control_dev < 60 && r1.control_test < 60);
    T_NEAR(r1.selectivity, r1.testacc - r1.control_test, 1e-9);
    long tot = 0, diag = 0;
    for (int g = 0; g < 2; g++) for (int q = 0; q < 2; q++) { tot += r1.confusion[g * 2 + q]; if (g == q) diag += r1.confusion[g * 2 + q]; }
    T_EQ_INT(tot, NTE);
    T_NEAR(100.0 * diag / NTE, r1.test_exact * 100, 1e-9);
    T_EQ_INT(r1.per_class[0].support + r1.per_class[1].support, NTE);
    p.train.threads = 3;
    T_EQ_INT(prb_senteval_run(&ds, &p, &r2, err, sizeof err), SP_OK);
    T_NEAR(r2.dev_exact, r1.dev_exact, 0);
    T_NEAR(r2.test_exact, r1.test_exact, 0);
    T_NEAR(r2.control_dev, r1.control_dev, 0);
    int same = 1;
    for (int i = 0; i < r1.n_fits; i++) same &= r1.fits[i].dev == r2.fits[i].dev && r1.fits[i].info.nevals == r2.fits[i].info.nevals;
    T_CHECK(same);
    prb_result_free(&r1);
    prb_result_free(&r2);
    /* an MLP grid (2 x 2 cells x 4 l2): with threads the fits run side by side, one thread each;
     * the same fits, the same selection, the same numbers as one thread */
    T_EQ_INT(prb_protocol_preset(&p, "senteval-fast", PRB_MLP), 0);
    p.n_nhid = 2; p.n_dropout = 2;
    p.train.threads = 1;
    T_EQ_INT(prb_senteval_run(&ds, &p, &r1, err, sizeof err), SP_OK);
    p.train.threads = 2;
    T_EQ_INT(prb_senteval_run(&ds, &p, &r2, err, sizeof err), SP_OK);
    T_EQ_INT(r1.n_fits, 16);
    T_NEAR(r2.dev_exact, r1.dev_exact, 0);
    T_NEAR(r2.test_exact, r1.test_exact, 0);
    T_NEAR(r2.control_dev, r1.control_dev, 0);
    T_EQ_INT(r2.nhid, r1.nhid);
    T_NEAR(r2.dropout, r1.dropout, 0);
    same = 1;
    for (int i = 0; i < r1.n_fits; i++)
        same &= r1.fits[i].dev == r2.fits[i].dev && r1.fits[i].info.nevals == r2.fits[i].info.nevals &&
                r1.fits[i].info.passes == r2.fits[i].info.passes && r1.fits[i].nhid == r2.fits[i].nhid;
    T_CHECK(same);
    prb_result_free(&r1);
    prb_result_free(&r2);
    free(X); free(y); free(split);
}

/* same seed -> identical parameters, with 1 and 3 threads; MLP with dropout */
static void test_determinism(void)
{
    enum { N = 700, D = 40, K = 4 };
    float *X = malloc((size_t)N * D * sizeof(float));
    int *y = malloc(N * sizeof(int));
    make_blobs(N, D, K, 0.6, 11, X, y);
    int tr[500], dv[200];
    for (int i = 0; i < 500; i++) tr[i] = i;
    for (int i = 0; i < 200; i++) dv[i] = 500 + i;
    for (int nh = 0; nh <= 37; nh += 37) {
        float *ref = NULL;
        size_t np = 0;
        for (int run = 0; run < 3; run++) {
            struct prb_train_cfg cfg;
            prb_train_cfg_default(&cfg);
            cfg.nhid = nh;
            cfg.dropout = nh ? 0.2 : 0.0;
            cfg.l2 = 1e-4;
            cfg.max_epoch = 12;
            cfg.threads = run == 2 ? 3 : 1;
            struct prb_clf c;
            prb_clf_init(&c, D, K, &cfg);
            struct prb_fit_info info;
            prb_clf_fit(&c, X, y, tr, 500, dv, 200, &info);
            if (!ref) {
                np = c.nparam;
                ref = malloc(np * sizeof(float));
                memcpy(ref, c.param, np * sizeof(float));
                T_CHECK(info.best_dev > 0.5);
            } else {
                T_CHECK(c.nparam == np && !memcmp(ref, c.param, np * sizeof(float)));
            }
            prb_clf_free(&c);
        }
        free(ref);
    }
    free(X); free(y);
}

static void test_label_map(void)
{
    /* §1.2: byte-wise order of the train labels: "10" < "11" < "5" < "9" */
    const char *lab[6] = { "9", "10", "5", "11", "10", "7" };
    unsigned char split[6] = { 0, 0, 0, 0, 1, 2 };
    int y[6], k = 0, bad = -2;
    const char **names = NULL;
    char err[SP_ERRLEN];
    T_EQ_INT(prb_label_map(6, lab, split, y, &k, &names, &bad, err, sizeof err), SP_EPARSE);
    T_EQ_INT(bad, 5);                                  /* "7" is not a training label */
    T_CHECK(strstr(err, "label '7'") != NULL);
    split[5] = 0;
    T_EQ_INT(prb_label_map(6, lab, split, y, &k, &names, &bad, err, sizeof err), SP_OK);
    T_EQ_INT(k, 5);
    T_EQ_STR(names[0], "10");
    T_EQ_STR(names[1], "11");
    T_EQ_STR(names[2], "5");
    T_EQ_STR(names[4], "9");
    T_EQ_INT(y[0], 4);
    T_EQ_INT(y[4], 0);
    free(names);
}

int main(void)
{
    test_stopper();
    test_rounding_and_ties();
    grad_check(0, 0.0);
    grad_check(20, 0.0);
    grad_check(37, 0.3);
    test_adam_by_hand();
    test_init();
    test_label_map();
    test_separable_task();
    test_determinism();
    return T_DONE();
}
