/* probes/senteval_protocol.c — SentEval's probing protocol on arrays (see senteval.h), with the
 * majority and control-task baselines and the per-class report.
 *
 * Ownership in the JSON writer: jansson's *_new values are stolen by json_object_set_new /
 * json_array_append_new, so only the root is decref'd by the caller. */
#include "probes/senteval_protocol.h"
#include "common/pool.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- labels -> classes (§1.2) ---- */

static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

static int find_class(const char **names, int k, const char *s)
{
    int lo = 0, hi = k - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2, c = strcmp(s, names[mid]);
        if (!c) return mid;
        if (c < 0) hi = mid - 1; else lo = mid + 1;
    }
    return -1;
}

int prb_label_map(int n, const char *const *labels, const unsigned char *split, int *y_out,
                  int *k_out, const char ***names_out, int *bad_row, char *err, size_t errlen)
{
    const char **tmp = sp_xmalloc((size_t)(n > 0 ? n : 1) * sizeof *tmp);
    int nt = 0;
    for (int i = 0; i < n; i++) if (split[i] == PRB_SPLIT_TRAIN) tmp[nt++] = labels[i];
    if (nt == 0) {
        free(tmp);
        snprintf(err, errlen, "no training instances (partition tr)");
        if (bad_row) *bad_row = -1;
        return SP_EPARSE;
    }
    qsort(tmp, (size_t)nt, sizeof *tmp, cmp_str);       /* strcmp = byte-wise order */
    int k = 0;
    for (int i = 0; i < nt; i++) if (k == 0 || strcmp(tmp[i], tmp[k - 1])) tmp[k++] = tmp[i];
    if (k < 2) {          /* every classifier would score 100%: nothing is being measured */
        snprintf(err, errlen, "the training partition has one class only ('%s'); a probing task needs at least two",
                 tmp[0]);
        if (bad_row) *bad_row = -1;
        free(tmp);
        return SP_EPARSE;
    }
    for (int i = 0; i < n; i++) {
        int c = find_class(tmp, k, labels[i]);
        if (c < 0) {
            snprintf(err, errlen, "label '%s' of a %s instance does not occur in the training partition", labels[i],
                     split[i] == PRB_SPLIT_DEV ? "dev" : "test");
            if (bad_row) *bad_row = i;
            free(tmp);
            return SP_EPARSE;
        }
        y_out[i] = c;
    }
    *k_out = k;
    *names_out = tmp;
    return SP_OK;
}

/* ---- presets ---- */

int prb_protocol_preset(struct prb_protocol *p, const char *name, enum prb_clf_kind kind)
{
    memset(p, 0, sizeof *p);
    prb_train_cfg_default(&p->train);
    if (!strcmp(name, "senteval-default")) {
        p->preset = "senteval-default";
    } else if (!strcmp(name, "senteval-fast")) {
        /* README "prototyping config": rmsprop (PyTorch defaults, lr 0.01), batch 128, tenacity 3, epoch_size 2 */
        p->preset = "senteval-fast";
        p->train.optim.kind = PRB_OPT_RMSPROP;
        p->train.optim.lr = 1e-2;
        p->train.batch_size = 128;
        p->train.tenacity = 3;
        p->train.epoch_size = 2;
    } else {
        return -1;
    }
    p->classifier = kind;
    p->n_l2 = 4;
    for (int t = 0; t < 4; t++) p->l2[t] = pow(10.0, -5 + t);   /* 10**t, t = -5..-2 */
    if (kind == PRB_MLP) {
        p->n_nhid = 3; p->nhid[0] = 50; p->nhid[1] = 100; p->nhid[2] = 200;
        p->n_dropout = 3; p->dropout[0] = 0.0; p->dropout[1] = 0.1; p->dropout[2] = 0.2;
    } else {
        p->n_nhid = 1; p->nhid[0] = 0;
        p->n_dropout = 1; p->dropout[0] = 0.0;
    }
    p->control = 1;
    p->control_seed = p->train.seed;
    return 0;
}

/* ---- helpers ---- */

double prb_round_pct(double acc)
{
    /* printf's %.2f rounds the exact binary value correctly (ties to even), as Python's round() */
    char buf[64];
    snprintf(buf, sizeof buf, "%.2f", 100.0 * acc);
    return strtod(buf, NULL);
}

int prb_select_first_max(const double *v, int n)
{
    int best = 0;
    for (int i = 1; i < n; i++) if (v[i] > v[best]) best = i;
    return best;
}

static int is_word_content(const char *task)
{
    if (!task) return 0;
    const char *b = strrchr(task, '/');
    b = b ? b + 1 : task;
    return !strncmp(b, "word_content", 12) || !strcmp(b, "WordContent") || !strcmp(b, "WC");
}

struct split_rows { int *tr, *dv, *te; int ntr, ndv, nte; };

static void rows_by_split(const struct prb_dataset *ds, struct split_rows *s)
{
    memset(s, 0, sizeof *s);
    size_t n = (size_t)(ds->n > 0 ? ds->n : 1);
    s->tr = sp_xmalloc(n * sizeof(int));
    s->dv = sp_xmalloc(n * sizeof(int));
    s->te = sp_xmalloc(n * sizeof(int));
    for (int i = 0; i < ds->n; i++) {
        if (ds->split[i] == PRB_SPLIT_TRAIN) s->tr[s->ntr++] = i;
        else if (ds->split[i] == PRB_SPLIT_DEV) s->dv[s->ndv++] = i;
        else s->te[s->nte++] = i;
    }
}

static void rows_free(struct split_rows *s) { free(s->tr); free(s->dv); free(s->te); }

static double acc_of(const int *pred, const int *y, const int *rows, int n)
{
    if (n <= 0) return NAN;
    long ok = 0;
    for (int i = 0; i < n; i++) ok += pred[i] == y[rows[i]];
    return (double)ok / n;
}

/* ---- the protocol ---- */

/* one fit of the grid: its settings in, its model, figures and time out */
struct grid_fit {
    const struct prb_dataset *ds;
    const struct split_rows *s;
    struct prb_train_cfg tc;
    struct prb_clf c;
    struct prb_fit_info info;
    double seconds;
    int init_failed;
};

static void grid_fit_one(void *arg, int item, int worker)
{
    (void)worker;
    struct grid_fit *g = &((struct grid_fit *)arg)[item];
    double f0 = sp_now();
    if (prb_clf_init(&g->c, g->ds->d, g->ds->k, &g->tc)) { g->init_failed = 1; return; }
    prb_clf_fit(&g->c, g->ds->X, g->ds->y, g->s->tr, g->s->ntr, g->s->dv, g->s->ndv, &g->info);
    g->seconds = sp_now() - f0;
}

static int check_dataset(const struct prb_dataset *ds, char *err, size_t errlen)
{
    if (ds->n < 1 || ds->d < 1 || ds->k < 1) { snprintf(err, errlen, "empty data set"); return SP_EUSAGE; }
    if (ds->k < 2) { snprintf(err, errlen, "one class only: a probing task needs at least two"); return SP_EUSAGE; }
    for (int i = 0; i < ds->n; i++) {
        if (ds->y[i] < 0 || ds->y[i] >= ds->k) { snprintf(err, errlen, "row %d: class %d out of range", i, ds->y[i]); return SP_EUSAGE; }
        if (ds->split[i] > PRB_SPLIT_TEST) { snprintf(err, errlen, "row %d: bad split %d", i, ds->split[i]); return SP_EUSAGE; }
    }
    return SP_OK;
}

/* What the result says about its data and settings before anything is fitted */
static void result_header(struct prb_result *r, const struct prb_dataset *ds, const struct prb_protocol *p,
                          const struct split_rows *s)
{
    r->task = ds->task ? ds->task : "";
    snprintf(r->preset, sizeof r->preset, "%s", p->preset ? p->preset : "custom");
    r->n_train = s->ntr; r->n_dev = s->ndv; r->n_test = s->nte;
    r->d = ds->d; r->k = ds->k;
    r->class_names = ds->class_names;
    r->classifier = p->classifier;
    r->seed = p->train.seed;
    r->threads = p->train.threads;
}

/* The grid's axes: hidden sizes, dropouts and L2 penalties tried, in this order (§1.5) */
struct grid_axes {
    int n_nhid, n_drop, nl2;
    const int *nhid;
    const double *drop, *l2;
};

static const int zero_nhid[1] = { 0 };
static const double zero_drop[1] = { 0.0 };
static const double l2_noreg[1] = { 1e-9 };

/* The protocol's axes, with one hidden size 0 and no dropout for logistic regression (asked for,
 * or forced for WordContent, which r records) */
static void grid_axes_of(struct grid_axes *ax, const struct prb_dataset *ds, const struct prb_protocol *p,
                         struct prb_result *r)
{
    ax->n_nhid = p->n_nhid; ax->n_drop = p->n_dropout;
    ax->nhid = p->nhid; ax->drop = p->dropout;
    int logreg = p->classifier == PRB_LOGREG || ax->n_nhid < 1;
    if (!logreg && is_word_content(ds->task)) {
        /* §1.6: SentEval silently switches WordContent to logistic regression; we say so */
        r->wc_forced_logreg = 1;
        sp_log(p->log, SP_LOG_DEBUG, "probe: %s is WordContent: using logistic regression (SentEval §1.6)", ds->task);
        logreg = 1;
    }
    if (logreg) { ax->n_nhid = 1; ax->nhid = zero_nhid; ax->n_drop = 1; ax->drop = zero_drop; }
    if (ax->n_drop < 1) { ax->n_drop = 1; ax->drop = zero_drop; }
    ax->nl2 = p->n_l2 > 0 ? p->n_l2 : 1;
    ax->l2 = p->n_l2 > 0 ? p->l2 : l2_noreg;
}

/* Every fit of the grid, in grid order (nhid, dropout, l2). Every fit is independent and
 * deterministic given its settings, so with several threads the fits run side by side, one
 * thread each (a fit's own products are too small to split well: a few MFLOP per minibatch); a
 * single fit keeps the threads for itself. The selection reads the fits in grid order either
 * way: the result does not depend on the thread count. */
static struct grid_fit *run_grid(const struct prb_dataset *ds, const struct prb_protocol *p,
                                 const struct split_rows *s, const struct grid_axes *ax, int n_fits)
{
    struct grid_fit *gf = sp_xcalloc((size_t)n_fits, sizeof *gf);
    for (int a = 0, i = 0; a < ax->n_nhid; a++)
        for (int b = 0; b < ax->n_drop; b++)
            for (int t = 0; t < ax->nl2; t++, i++) {
                gf[i].ds = ds; gf[i].s = s;
                gf[i].tc = p->train;
                gf[i].tc.nhid = ax->nhid[a];
                gf[i].tc.dropout = ax->nhid[a] ? ax->drop[b] : 0.0;
                gf[i].tc.l2 = ax->l2[t];
                if (n_fits > 1 && p->train.threads > 1) gf[i].tc.threads = 1;
            }
    sp_pool_run_once(p->train.threads, n_fits, grid_fit_one, gf);
    return gf;
}

/* A fit whose classifier could not be set up fails the run: says which, frees the others'
 * models and returns 1. */
static int grid_init_failed(struct grid_fit *gf, int n_fits, char *err, size_t errlen)
{
    for (int i = 0; i < n_fits; i++)
        if (gf[i].init_failed) {
            snprintf(err, errlen, "bad classifier settings (nhid %d, dropout %g, l2 %g)", gf[i].tc.nhid, gf[i].tc.dropout,
                     gf[i].tc.l2);
            for (int j = 0; j < n_fits; j++) if (!gf[j].init_failed) prb_clf_free(&gf[j].c);
            return 1;
        }
    return 0;
}

/* Fit g's figures as r->fits[i] and a debug line; returns its rounded dev accuracy */
static double record_fit(struct prb_result *r, const struct prb_protocol *p, const struct grid_fit *g, int i, int ntr)
{
    struct prb_fit_rec *fr = &r->fits[i];
    fr->nhid = g->tc.nhid; fr->dropout = g->tc.dropout; fr->l2 = g->tc.l2;
    fr->dev = prb_round_pct(g->info.best_dev);
    fr->info = g->info;
    fr->seconds = g->seconds;
    r->example_passes += (long)g->info.passes * ntr;
    sp_log(p->log, SP_LOG_DEBUG, "probe: nhid %d dropout %.1f l2 %g: dev %.2f (%d evaluations, %d passes, %.1fs)",
                g->tc.nhid, g->tc.dropout, g->tc.l2, fr->dev, g->info.nevals, g->info.passes, fr->seconds);
    return fr->dev;
}

/* A model chosen from the grid: a cell's (nhid, dropout) best over l2, or the best cell */
struct choice {
    struct prb_clf clf;
    struct prb_fit_info info;
    int cell, l2i;                   /* cell = nhid index * n_drop + dropout index */
    double dev;
};

/* The cell whose fits are gf[first..first+nl2) (one per l2): records each, keeps the model of
 * the first maximum of dev accuracy in *c and frees the others. l2dev: nl2 doubles of scratch. */
static void choose_in_cell(struct prb_result *r, const struct prb_protocol *p, struct grid_fit *gf, int first,
                           int nl2, int ntr, double *l2dev, struct choice *c)
{
    for (int t = 0; t < nl2; t++) {
        struct grid_fit *g = &gf[first + t];
        l2dev[t] = record_fit(r, p, g, first + t, ntr);
        /* keep the model of the first maximum of this cell's l2 row so far */
        if (prb_select_first_max(l2dev, t + 1) == t) {
            if (t > 0) prb_clf_free(&c->clf);
            c->clf = g->c;
            c->info = g->info;
        } else {
            prb_clf_free(&g->c);
        }
    }
    c->l2i = prb_select_first_max(l2dev, nl2);
    c->dev = l2dev[c->l2i];
}

/* Selected model: we keep the parameters of the best fit instead of re-fitting (§1.5): the
 * first cell with the highest dev accuracy, at its best l2. Every other model is freed. */
static void choose_model(struct prb_result *r, const struct prb_protocol *p, struct grid_fit *gf,
                         const struct grid_axes *ax, int ntr, struct choice *best)
{
    double *l2dev = sp_xmalloc((size_t)ax->nl2 * sizeof(double));
    best->cell = -1;
    for (int cell = 0; cell < ax->n_nhid * ax->n_drop; cell++) {
        struct choice c;
        choose_in_cell(r, p, gf, cell * ax->nl2, ax->nl2, ntr, l2dev, &c);
        if (best->cell < 0 || c.dev > best->dev) {
            if (best->cell >= 0) prb_clf_free(&best->clf);
            c.cell = cell;
            *best = c;
        } else {
            prb_clf_free(&c.clf);
        }
    }
    free(l2dev);
}

/* The chosen settings and their dev accuracy into r */
static void set_chosen(struct prb_result *r, const struct prb_protocol *p, const struct grid_axes *ax,
                       const struct choice *best)
{
    int a = best->cell / ax->n_drop, b = best->cell % ax->n_drop;
    r->nhid = ax->nhid[a];
    r->dropout = ax->nhid[a] ? ax->drop[b] : 0.0;
    r->l2 = ax->l2[best->l2i];
    r->train = p->train;
    r->train.nhid = r->nhid; r->train.dropout = r->dropout; r->train.l2 = r->l2;
    r->fit = best->info;
    r->dev_exact = best->info.best_dev;
    r->devacc = prb_round_pct(best->info.best_dev);
}

/* Per-class metrics, confusion and per-item correctness of predictions pred for rows[0..n) */
static void tally_eval(struct prb_result *r, const struct prb_dataset *ds, const int *rows, int n, const int *pred)
{
    int K = ds->k;
    r->per_class = sp_xcalloc((size_t)K, sizeof *r->per_class);
    r->confusion = sp_xcalloc((size_t)K * K, sizeof(long));
    r->n_eval = n;
    r->eval_rows = sp_xmalloc(sizeof(int) * (size_t)(n + 1));
    r->eval_correct = sp_xmalloc((size_t)n + 1);
    r->eval_correct[n] = 0;
    for (int i = 0; i < n; i++) {
        int g = ds->y[rows[i]], q = pred[i];
        r->eval_rows[i] = rows[i];
        r->eval_correct[i] = g == q ? '1' : '0';
        r->confusion[(size_t)g * K + q]++;
        r->per_class[g].support++;
        r->per_class[q].predicted++;
        if (g == q) r->per_class[g].correct++;
    }
    double f1sum = 0;
    for (int k = 0; k < K; k++) {
        struct prb_class_metrics *m = &r->per_class[k];
        m->precision = m->predicted ? (double)m->correct / m->predicted : 0.0;
        m->recall = m->support ? (double)m->correct / m->support : 0.0;
        m->f1 = m->precision + m->recall > 0 ? 2 * m->precision * m->recall / (m->precision + m->recall) : 0.0;
        f1sum += m->f1;
    }
    r->macro_f1 = f1sum / K;
}

/* The chosen model on the test partition (the dev one when there is no test partition):
 * accuracy, and the per-class metrics of that split */
static void evaluate_chosen(struct prb_result *r, const struct prb_dataset *ds, const struct split_rows *s,
                            struct prb_clf *best)
{
    int *pred = sp_xmalloc((size_t)(s->nte > s->ndv ? s->nte : s->ndv) * sizeof(int) + sizeof(int));
    const int *mrows = s->nte ? s->te : s->dv;
    int mn = s->nte ? s->nte : s->ndv;
    if (s->nte) {
        prb_clf_predict(best, ds->X, s->te, s->nte, pred);
        r->test_exact = acc_of(pred, ds->y, s->te, s->nte);
        r->testacc = prb_round_pct(r->test_exact);
    } else {
        prb_clf_predict(best, ds->X, s->dv, s->ndv, pred);
        r->test_exact = NAN;
        r->testacc = NAN;
    }
    r->metrics_split = s->nte ? "test" : "dev";
    tally_eval(r, ds, mrows, mn, pred);
    free(pred);
}

/* The majority class of the training partition and its dev and test accuracy */
static void majority_baseline(struct prb_result *r, const struct prb_dataset *ds, const struct split_rows *s)
{
    long *cnt = sp_xcalloc((size_t)ds->k, sizeof(long));
    for (int i = 0; i < s->ntr; i++) cnt[ds->y[s->tr[i]]]++;
    int mc = 0;
    for (int k = 1; k < ds->k; k++) if (cnt[k] > cnt[mc]) mc = k;
    r->majority_class = mc;
    long ok = 0;
    for (int i = 0; i < s->ndv; i++) ok += ds->y[s->dv[i]] == mc;
    r->majority_dev = prb_round_pct((double)ok / s->ndv);
    ok = 0;
    for (int i = 0; i < s->nte; i++) ok += ds->y[s->te[i]] == mc;
    r->majority_test = s->nte ? prb_round_pct((double)ok / s->nte) : NAN;
    free(cnt);
}

/* A copy of the labels shuffled within each partition (Fisher-Yates, in the order train, dev,
 * test, from seed) */
static int *shuffled_labels(const struct prb_dataset *ds, const struct split_rows *s, uint64_t seed)
{
    int *yc = sp_xmalloc((size_t)ds->n * sizeof(int));
    memcpy(yc, ds->y, (size_t)ds->n * sizeof(int));
    struct sp_rng rng;
    sp_rng_seed(&rng, seed);
    const int *part[3] = { s->tr, s->dv, s->te };
    int np[3] = { s->ntr, s->ndv, s->nte };
    for (int q = 0; q < 3; q++)
        for (int i = np[q] - 1; i > 0; i--) {
            int j = (int)sp_rng_below(&rng, (uint64_t)i + 1);
            int t = yc[part[q][i]]; yc[part[q][i]] = yc[part[q][j]]; yc[part[q][j]] = t;
        }
    return yc;
}

/* control task: the chosen settings fitted to labels shuffled within each partition (recorded
 * seed); selectivity = accuracy minus the control's */
static void control_task(struct prb_result *r, const struct prb_dataset *ds, const struct prb_protocol *p,
                         const struct split_rows *s)
{
    r->control = p->control;
    r->control_seed = p->control_seed;
    r->control_dev = r->control_test = r->selectivity = NAN;
    if (!p->control) return;
    int *yc = shuffled_labels(ds, s, p->control_seed);
    struct prb_clf c;
    double f0 = sp_now();
    prb_clf_init(&c, ds->d, ds->k, &r->train);
    struct prb_fit_info info;
    prb_clf_fit(&c, ds->X, yc, s->tr, s->ntr, s->dv, s->ndv, &info);
    r->example_passes += (long)info.passes * s->ntr;
    r->control_dev = prb_round_pct(info.best_dev);
    if (s->nte) {
        r->control_test = prb_round_pct(prb_clf_accuracy(&c, ds->X, yc, s->te, s->nte));
        r->selectivity = r->testacc - r->control_test;
    } else {
        r->selectivity = r->devacc - r->control_dev;
    }
    sp_log(p->log, SP_LOG_DEBUG, "probe: control task (seed %llu): dev %.2f (%d evaluations, %.1fs)",
                (unsigned long long)p->control_seed, r->control_dev, info.nevals, sp_now() - f0);
    prb_clf_free(&c);
    free(yc);
}

int prb_senteval_unfit(long ntr, long ndv, char *why, size_t whylen)
{
    if (ntr > 0 && ndv > 0) return 0;
    snprintf(why, whylen, "the protocol needs training and dev instances (have %ld train, %ld dev)", ntr, ndv);
    return 1;
}

int prb_senteval_run(const struct prb_dataset *ds, const struct prb_protocol *p, struct prb_result *r,
                     char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    double t0 = sp_now();
    int rc = check_dataset(ds, err, errlen);
    if (rc) return rc;
    struct split_rows s;
    rows_by_split(ds, &s);
    if (prb_senteval_unfit(s.ntr, s.ndv, err, errlen)) {
        rows_free(&s);
        return SP_EUSAGE;
    }
    result_header(r, ds, p, &s);

    struct grid_axes ax;
    grid_axes_of(&ax, ds, p, r);
    r->n_fits = ax.n_nhid * ax.n_drop * ax.nl2;
    r->fits = sp_xcalloc((size_t)r->n_fits, sizeof *r->fits);
    struct grid_fit *gf = run_grid(ds, p, &s, &ax, r->n_fits);
    if (grid_init_failed(gf, r->n_fits, err, errlen)) {
        free(gf);
        rows_free(&s);
        prb_result_free(r);
        return SP_EUSAGE;
    }
    struct choice best;
    choose_model(r, p, gf, &ax, s.ntr, &best);
    free(gf);
    set_chosen(r, p, &ax, &best);
    evaluate_chosen(r, ds, &s, &best.clf);
    prb_clf_free(&best.clf);

    majority_baseline(r, ds, &s);
    control_task(r, ds, p, &s);
    rows_free(&s);
    r->seconds = sp_now() - t0;
    return SP_OK;
}

void prb_result_free(struct prb_result *r)
{
    free(r->fits);
    free(r->per_class);
    free(r->confusion);
    free(r->eval_rows);
    free(r->eval_correct);
    memset(r, 0, sizeof *r);
}

/* ---- output ---- */

static json_t *num_or_null(double v) { return isnan(v) ? json_null() : json_real(v); }

static const char *optim_name(enum prb_optim_kind k)
{
    return k == PRB_OPT_ADAM ? "adam" : k == PRB_OPT_RMSPROP ? "rmsprop" : "sgd";
}

/* Class k's name: its label, or its number when the result has no names */
static json_t *class_name_json(const struct prb_result *r, int k)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%d", k);
    return json_string(r->class_names ? r->class_names[k] : buf);
}

/* Every class name in class order */
static json_t *class_names_json(const struct prb_result *r)
{
    json_t *cls = json_array();
    for (int k = 0; k < r->k; k++) json_array_append_new(cls, class_name_json(r, k));
    return cls;
}

/* "chosen": the selected settings and how its fit went */
static json_t *chosen_json(const struct prb_result *r)
{
    json_t *hp = json_object();
    json_object_set_new(hp, "nhid", json_integer(r->nhid));
    json_object_set_new(hp, "dropout", json_real(r->dropout));
    json_object_set_new(hp, "l2reg", json_real(r->l2));
    json_object_set_new(hp, "optim", json_string(optim_name(r->train.optim.kind)));
    json_object_set_new(hp, "lr", json_real(r->train.optim.lr));
    json_object_set_new(hp, "batch_size", json_integer(r->train.batch_size));
    json_object_set_new(hp, "tenacity", json_integer(r->train.tenacity));
    json_object_set_new(hp, "epoch_size", json_integer(r->train.epoch_size));
    json_object_set_new(hp, "max_epoch", json_integer(r->train.max_epoch));
    json_object_set_new(hp, "evaluations", json_integer(r->fit.nevals));
    json_object_set_new(hp, "passes", json_integer(r->fit.passes));
    json_object_set_new(hp, "best_evaluation", json_integer(r->fit.best_eval));
    json_object_set_new(hp, "early_stopped", json_boolean(r->fit.early_stopped));
    return hp;
}

/* "grid": every fit in grid order */
static json_t *grid_json(const struct prb_result *r)
{
    json_t *grid = json_array();
    for (int i = 0; i < r->n_fits; i++) {
        const struct prb_fit_rec *f = &r->fits[i];
        json_t *g = json_object();
        json_object_set_new(g, "nhid", json_integer(f->nhid));
        json_object_set_new(g, "dropout", json_real(f->dropout));
        json_object_set_new(g, "l2reg", json_real(f->l2));
        json_object_set_new(g, "devacc", json_real(f->dev));
        json_object_set_new(g, "evaluations", json_integer(f->info.nevals));
        json_object_set_new(g, "passes", json_integer(f->info.passes));
        json_object_set_new(g, "early_stopped", json_boolean(f->info.early_stopped));
        json_object_set_new(g, "seconds", json_real(f->seconds));
        json_array_append_new(grid, g);
    }
    return grid;
}

/* "baselines": the majority class, and the control task when it ran */
static json_t *baselines_json(const struct prb_result *r)
{
    json_t *bl = json_object();
    json_t *maj = json_object();
    json_object_set_new(maj, "class", json_string(r->class_names ? r->class_names[r->majority_class] : ""));
    json_object_set_new(maj, "devacc", json_real(r->majority_dev));
    json_object_set_new(maj, "acc", num_or_null(r->majority_test));
    json_object_set_new(bl, "majority", maj);
    if (r->control) {
        json_t *ct = json_object();
        json_object_set_new(ct, "kind", json_string("labels shuffled within each partition"));
        json_object_set_new(ct, "seed", json_integer((json_int_t)r->control_seed));
        json_object_set_new(ct, "devacc", json_real(r->control_dev));
        json_object_set_new(ct, "acc", num_or_null(r->control_test));
        json_object_set_new(ct, "selectivity", num_or_null(r->selectivity));
        json_object_set_new(bl, "control", ct);
    }
    return bl;
}

/* Precision, recall, F1 and support of every class */
static json_t *per_class_json(const struct prb_result *r)
{
    json_t *pc = json_array();
    for (int k = 0; k < r->k; k++) {
        const struct prb_class_metrics *m = &r->per_class[k];
        json_t *c = json_object();
        json_object_set_new(c, "class", class_name_json(r, k));
        json_object_set_new(c, "precision", json_real(m->precision));
        json_object_set_new(c, "recall", json_real(m->recall));
        json_object_set_new(c, "f1", json_real(m->f1));
        json_object_set_new(c, "support", json_integer(m->support));
        json_array_append_new(pc, c);
    }
    return pc;
}

/* The confusion matrix: one array per gold class, one count per predicted class */
static json_t *confusion_json(const struct prb_result *r)
{
    json_t *cm = json_array();
    for (int g = 0; g < r->k; g++) {
        json_t *row = json_array();
        for (int q = 0; q < r->k; q++) json_array_append_new(row, json_integer(r->confusion[(size_t)g * r->k + q]));
        json_array_append_new(cm, row);
    }
    return cm;
}

/* "metrics": per-class figures, confusion and per-item correctness on the evaluation split */
static json_t *metrics_json(const struct prb_result *r)
{
    json_t *met = json_object();
    json_object_set_new(met, "split", json_string(r->metrics_split));
    json_object_set_new(met, "per_class", per_class_json(r));
    json_object_set_new(met, "macro_f1", json_real(r->macro_f1));
    json_object_set_new(met, "confusion", confusion_json(r));
    /* the rows' and columns' classes (the order of "classes") */
    json_object_set_new(met, "confusion_labels", class_names_json(r));
    if (r->eval_correct) {
        json_t *rows = json_array();
        for (int i = 0; i < r->n_eval; i++) json_array_append_new(rows, json_integer(r->eval_rows[i]));
        json_object_set_new(met, "item_rows", rows);
        json_object_set_new(met, "item_correct", json_string(r->eval_correct));
    }
    return met;
}

json_t *prb_result_json(const struct prb_result *r)
{
    json_t *o = json_object();
    json_object_set_new(o, "task", json_string(r->task));
    json_object_set_new(o, "protocol", json_string("senteval"));
    json_object_set_new(o, "preset", json_string(r->preset));
    json_object_set_new(o, "classifier", json_string(r->classifier == PRB_MLP ? "mlp" : "logreg"));
    if (r->wc_forced_logreg) json_object_set_new(o, "wc_forced_logreg", json_true());
    json_object_set_new(o, "seed", json_integer((json_int_t)r->seed));
    json_object_set_new(o, "threads", json_integer(r->threads));
    json_object_set_new(o, "ntrain", json_integer(r->n_train));
    json_object_set_new(o, "ndev", json_integer(r->n_dev));
    json_object_set_new(o, "ntest", json_integer(r->n_test));
    json_object_set_new(o, "dim", json_integer(r->d));
    json_object_set_new(o, "nclasses", json_integer(r->k));
    json_object_set_new(o, "classes", class_names_json(r));
    json_object_set_new(o, "devacc", json_real(r->devacc));
    json_object_set_new(o, "acc", num_or_null(r->testacc));
    json_object_set_new(o, "chosen", chosen_json(r));
    json_object_set_new(o, "grid", grid_json(r));
    json_object_set_new(o, "baselines", baselines_json(r));
    json_object_set_new(o, "metrics", metrics_json(r));
    json_object_set_new(o, "seconds", json_real(r->seconds));
    json_object_set_new(o, "example_passes", json_integer(r->example_passes));
    return o;
}

/* The order classes are shown in: numerically when every name is a number (TreeDepth's "10"
 * after "9"), else the class order (byte-wise, SentEval's numbering). */
static const struct prb_result *order_of;   /* qsort has no context argument in C11 */
static int cmp_class_value(const void *a, const void *b)
{
    double x = strtod(order_of->class_names[*(const int *)a], NULL), y = strtod(order_of->class_names[*(const int *)b], NULL);
    return (x > y) - (x < y);
}

static void display_order(const struct prb_result *r, int *ord)
{
    int numeric = r->class_names != NULL;
    for (int k = 0; k < r->k; k++) {
        ord[k] = k;
        char *end;
        if (numeric) { strtod(r->class_names[k], &end); numeric = *r->class_names[k] && !*end; }
    }
    if (numeric) { order_of = r; qsort(ord, (size_t)r->k, sizeof *ord, cmp_class_value); }
}

void prb_result_print(FILE *f, const struct prb_result *r)
{
    int *ord = sp_xmalloc(sizeof *ord * (size_t)(r->k > 0 ? r->k : 1));
    display_order(r, ord);
    fprintf(f, "task %s: %d train, %d dev, %d test, dim %d, %d classes\n", r->task && r->task[0] ? r->task : "(arrays)",
            r->n_train, r->n_dev, r->n_test, r->d, r->k);
    fprintf(f, "protocol senteval, preset %s, classifier %s%s, seed %llu\n", r->preset,
            r->classifier == PRB_MLP ? "mlp" : "logreg", r->wc_forced_logreg ? " (WordContent: logreg)" : "",
            (unsigned long long)r->seed);
    fprintf(f, "chosen: nhid %d, dropout %.1f, l2reg %g (%s, %d evaluations, %d passes, %s)\n", r->nhid, r->dropout,
            r->l2, optim_name(r->train.optim.kind), r->fit.nevals, r->fit.passes,
            r->fit.early_stopped ? "stopped by tenacity" : "max_epoch reached");
    if (isnan(r->testacc)) fprintf(f, "devacc %.2f  acc (test) n/a\n", r->devacc);
    else fprintf(f, "devacc %.2f  acc (test) %.2f\n", r->devacc, r->testacc);
    fprintf(f, "majority (%s): dev %.2f", r->class_names ? r->class_names[r->majority_class] : "?", r->majority_dev);
    if (!isnan(r->majority_test)) fprintf(f, ", test %.2f", r->majority_test);
    fputc('\n', f);
    if (r->control) {
        fprintf(f, "control (shuffled labels, seed %llu): dev %.2f", (unsigned long long)r->control_seed, r->control_dev);
        if (!isnan(r->control_test)) fprintf(f, ", test %.2f", r->control_test);
        fprintf(f, "; selectivity %.2f\n", r->selectivity);
    }
    fprintf(f, "grid:");
    for (int i = 0; i < r->n_fits; i++) {
        const struct prb_fit_rec *g = &r->fits[i];
        if (r->classifier == PRB_MLP && !r->wc_forced_logreg) fprintf(f, "%s h%d/p%.1f/l2 %g: %.2f", i ? "," : "", g->nhid, g->dropout, g->l2, g->dev);
        else fprintf(f, "%s l2 %g: %.2f", i ? "," : "", g->l2, g->dev);
    }
    fputc('\n', f);
    fprintf(f, "per class (%s):\n  %-16s %9s %9s %9s %8s\n", r->metrics_split, "class", "precision", "recall", "f1", "support");
    for (int kk = 0; kk < r->k; kk++) {
        int k = ord[kk];
        const struct prb_class_metrics *m = &r->per_class[k];
        char buf[32];
        snprintf(buf, sizeof buf, "%d", k);
        fprintf(f, "  %-16s %9.4f %9.4f %9.4f %8ld\n", r->class_names ? r->class_names[k] : buf, m->precision,
                m->recall, m->f1, m->support);
    }
    fprintf(f, "  macro F1 %.4f\n", r->macro_f1);
    if (r->k <= 20) {
        fprintf(f, "confusion (%s; rows gold, columns predicted):\n  %-16s", r->metrics_split, "");
        char buf[32];
        for (int q = 0; q < r->k; q++) {
            snprintf(buf, sizeof buf, "%d", ord[q]);
            fprintf(f, " %7.7s", r->class_names ? r->class_names[ord[q]] : buf);
        }
        fputc('\n', f);
        for (int g = 0; g < r->k; g++) {
            snprintf(buf, sizeof buf, "%d", ord[g]);
            fprintf(f, "  %-16.16s", r->class_names ? r->class_names[ord[g]] : buf);
            for (int q = 0; q < r->k; q++) fprintf(f, " %7ld", r->confusion[(size_t)ord[g] * r->k + ord[q]]);
            fputc('\n', f);
        }
    } else {
        fprintf(f, "confusion matrix: %d x %d, in the JSON output\n", r->k, r->k);
    }
    fprintf(f, "time %.2fs\n", r->seconds);
    free(ord);
}

/* ---- the protocol as a manifest records it ---- */

static json_t *optim_json(const struct prb_optim *op)
{
    json_t *opt = json_object();
    json_object_set_new(opt, "kind", json_string(optim_name(op->kind)));
    json_object_set_new(opt, "lr", json_real(op->lr));
    if (op->kind == PRB_OPT_ADAM) {
        json_object_set_new(opt, "beta1", json_real(op->beta1));
        json_object_set_new(opt, "beta2", json_real(op->beta2));
    }
    if (op->kind == PRB_OPT_RMSPROP) json_object_set_new(opt, "alpha", json_real(op->alpha));
    if (op->kind != PRB_OPT_SGD) json_object_set_new(opt, "eps", json_real(op->eps));
    return opt;
}

json_t *prb_protocol_json(const struct prb_protocol *p)
{
    const struct prb_train_cfg *t = &p->train;
    json_t *o = json_object(), *l2 = json_array(), *nh = json_array(), *dr = json_array();
    json_object_set_new(o, "name", json_string("senteval"));
    json_object_set_new(o, "preset", json_string(p->preset ? p->preset : "custom"));
    json_object_set_new(o, "classifier", json_string(p->classifier == PRB_MLP ? "mlp" : "logreg"));
    json_object_set_new(o, "optim", optim_json(&t->optim));
    json_object_set_new(o, "batch_size", json_integer(t->batch_size));
    json_object_set_new(o, "tenacity", json_integer(t->tenacity));
    json_object_set_new(o, "epoch_size", json_integer(t->epoch_size));
    json_object_set_new(o, "max_epoch", json_integer(t->max_epoch));
    for (int i = 0; i < p->n_l2; i++) json_array_append_new(l2, json_real(p->l2[i]));
    json_object_set_new(o, "l2_grid", l2);
    int mlp = p->classifier == PRB_MLP;
    for (int i = 0; i < (mlp ? p->n_nhid : 1); i++) json_array_append_new(nh, json_integer(mlp ? p->nhid[i] : 0));
    for (int i = 0; i < (mlp ? p->n_dropout : 1); i++) json_array_append_new(dr, json_real(mlp ? p->dropout[i] : 0.0));
    json_object_set_new(o, "nhid_grid", nh);
    json_object_set_new(o, "dropout_grid", dr);
    json_object_set_new(o, "seed", json_integer((json_int_t)t->seed));
    json_object_set_new(o, "control", json_boolean(p->control));
    json_object_set_new(o, "control_seed", p->control ? json_integer((json_int_t)p->control_seed) : json_null());
    json_object_set_new(o, "threads", json_integer(t->threads));
    return o;
}
