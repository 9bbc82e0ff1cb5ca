/* probes/control.c — control tasks and selectivity (docs/spec/models.md M5), see control.h.
 * Mirrors control-tasks/task.py (CorruptedPartOfSpeechLabelTask: one label per type over the
 * train ∪ dev ∪ test vocabulary, drawn from the training label distribution) and reporter.py
 * (label_accuracy, oov_label_accuracy), with the draw pinned to SplitMix64 in integers. */
#include "probes/control.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/pool.h"
#include "common/sp.h"

int prb_tok_task_parse(const char *name, enum prb_tok_task *out)
{
    if (!strcmp(name, "upos")) { *out = PRB_TASK_UPOS; return 0; }
    if (!strcmp(name, "deprel")) { *out = PRB_TASK_DEPREL; return 0; }
    return -1;
}

const char *prb_tok_label(struct sp_arena *a, const struct sp_sentence *s, int i, enum prb_tok_task t,
                          int strip_subtype)
{
    if (t == PRB_TASK_UPOS) {
        const char *u = s->col[SP_UPOS][i];
        return strcmp(u, "_") ? u : s->col[SP_XPOS][i];
    }
    const char *r = s->col[SP_DEPREL][i];
    const char *colon = strip_subtype ? strchr(r, ':') : NULL;
    return colon ? sp_arena_strndup(a, r, (size_t)(colon - r)) : r;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int map_id(const struct sp_strmap *m, const char *k) { return sp_strmap_get(m, k) - 1; }

int prb_control_build(struct prb_control *c, const struct prb_tok_split *train, const struct prb_tok_split *dev,
                      const struct prb_tok_split *test, uint64_t control_seed, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    sp_arena_init(&c->arena);
    sp_strmap_init(&c->label_ids);
    sp_strmap_init(&c->type_ids);
    if (train->n <= 0) {
        snprintf(err, errlen, "control task: the training split has no tokens, expected at least one");
        return -1;
    }
    const struct prb_tok_split *sp[3] = { train, dev, test };
    static const char *const what[3] = { "training", "dev", "test" };
    for (int k = 0; k < 3; k++)
        for (int i = 0; sp[k] && i < sp[k]->n; i++)
            if (!sp[k]->form[i] || !sp[k]->label[i]) {
                snprintf(err, errlen, "control task: %s token %d has no %s, expected a string",
                         what[k], i + 1, sp[k]->form[i] ? "label" : "form");
                return -1;
            }
    /* training label counts; the map's values count occurrences */
    struct sp_strmap cnt;
    sp_strmap_init(&cnt);
    for (int i = 0; i < train->n; i++) sp_strmap_add(&cnt, &c->arena, train->label[i], 1);
    c->n_labels = (int)cnt.n;
    c->label = sp_arena_alloc(&c->arena, (size_t)c->n_labels * sizeof *c->label);
    c->cum = sp_arena_alloc(&c->arena, (size_t)c->n_labels * sizeof *c->cum);
    int nl = 0;
    for (size_t s = 0; s < cnt.cap; s++)
        if (cnt.key[s]) c->label[nl++] = cnt.key[s];
    qsort(c->label, (size_t)nl, sizeof *c->label, cmp_str);
    long run = 0;
    for (int k = 0; k < nl; k++) {
        run += sp_strmap_get(&cnt, c->label[k]);
        c->cum[k] = run;
        sp_strmap_add(&c->label_ids, &c->arena, c->label[k], k + 1);
    }
    sp_strmap_free(&cnt);
    /* types in first-occurrence order, train then dev then test */
    int cap = 0;
    for (int k = 0; k < 3; k++) cap += sp[k] ? sp[k]->n : 0;
    c->type = sp_arena_alloc(&c->arena, (size_t)cap * sizeof *c->type);
    c->type_label = sp_arena_alloc(&c->arena, (size_t)cap * sizeof *c->type_label);
    c->type_in_train = sp_arena_alloc(&c->arena, (size_t)cap);
    struct sp_splitmix rng;
    sp_splitmix_seed(&rng, control_seed);
    for (int k = 0; k < 3; k++)
        for (int i = 0; sp[k] && i < sp[k]->n; i++) {
            const char *f = sp[k]->form[i];
            int id = map_id(&c->type_ids, f);
            if (id >= 0) continue;
            id = c->n_types++;
            sp_strmap_add(&c->type_ids, &c->arena, f, id + 1);
            c->type[id] = c->type_ids.key[sp_strmap_slot(&c->type_ids, f)];
            c->type_in_train[id] = k == 0;
            uint64_t t = sp_splitmix_below(&rng, (uint64_t)run);
            int l = 0;
            while (t >= (uint64_t)c->cum[l]) l++;
            c->type_label[id] = l;
        }
    return 0;
}

void prb_control_free(struct prb_control *c)
{
    sp_strmap_free(&c->label_ids);
    sp_strmap_free(&c->type_ids);
    sp_arena_free(&c->arena);
    memset(c, 0, sizeof *c);
}

int prb_control_label_id(const struct prb_control *c, const char *label) { return map_id(&c->label_ids, label); }
int prb_control_type_id(const struct prb_control *c, const char *form) { return map_id(&c->type_ids, form); }

int prb_control_of(const struct prb_control *c, const char *form)
{
    int t = prb_control_type_id(c, form);
    return t < 0 ? -1 : c->type_label[t];
}

void prb_control_ids(const struct prb_control *c, const struct prb_tok_split *s, int *task, int *control)
{
    for (int i = 0; i < s->n; i++) {
        if (task) task[i] = prb_control_label_id(c, s->label[i]);
        if (control) control[i] = prb_control_of(c, s->form[i]);
    }
}

double prb_label_accuracy(int n, const int *gold, const int *pred, const uint8_t *mask)
{
    long ok = 0, tot = 0;
    for (int i = 0; i < n; i++) {
        if (mask && !mask[i]) continue;
        tot++;
        ok += gold[i] >= 0 && pred[i] == gold[i];
    }
    return tot ? 100.0 * (double)ok / (double)tot : NAN;
}

/* One classifier of prb_tokprobe_run (the probe or its control): trained on rows [0, ntr),
 * stopped on [ntr, ntr+ndv), scored on the test rows after them */
struct tok_fit {
    const float *X;
    int d, n_labels;
    const int *y, *rows;             /* y: labels in token order (train, dev, test); rows: X row of each */
    const int *yrow;                   /* the same labels by X row (what the classifier reads) */
    int ntr, ndv, nte;
    struct prb_train_cfg cfg;
    const uint8_t *oov, *np;
    struct prb_fit_info fi;
    double acc, acc_oov, acc_np;
    uint8_t *correct;                  /* per test row: predicted right */
    int rc;
};

static void tok_fit_run(struct tok_fit *f)
{
    struct prb_clf clf;
    if (prb_clf_init(&clf, f->d, f->n_labels, &f->cfg) != 0) { f->rc = -1; return; }
    int *pred = sp_xmalloc((size_t)f->nte * sizeof *pred);
    const int *yte = f->y + f->ntr + f->ndv;
    prb_clf_fit(&clf, f->X, f->yrow, f->rows, f->ntr, f->rows + f->ntr, f->ndv, &f->fi);
    prb_clf_predict(&clf, f->X, f->rows + f->ntr + f->ndv, f->nte, pred);
    f->acc = prb_label_accuracy(f->nte, yte, pred, NULL);
    f->acc_oov = prb_label_accuracy(f->nte, yte, pred, f->oov);
    f->acc_np = prb_label_accuracy(f->nte, yte, pred, f->np);
    f->correct = sp_xmalloc((size_t)f->nte);
    for (int i = 0; i < f->nte; i++) f->correct[i] = pred[i] == yte[i];
    free(pred);
    prb_clf_free(&clf);
}

static void tok_fit_item(void *arg, int item, int worker)
{
    (void)worker;
    tok_fit_run((struct tok_fit *)arg + item);
}

int prb_tokprobe_run(const float *X, const int *xrow, int d, const struct prb_tok_split *train, const struct prb_tok_split *dev,
                     const struct prb_tok_split *test, const struct prb_train_cfg *cfg, uint64_t control_seed,
                     struct prb_tokprobe_result *r, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    if (dev->n <= 0 || test->n <= 0) {
        snprintf(err, errlen, "token probe: the %s split has no tokens, expected at least one",
                 dev->n <= 0 ? "dev" : "test");
        return -1;
    }
    struct prb_control c;
    if (prb_control_build(&c, train, dev, test, control_seed, err, errlen) != 0) {
        prb_control_free(&c);
        return -1;
    }
    int ntr = train->n, ndv = dev->n, nte = test->n, ntot = ntr + ndv + nte;
    int *ytask = sp_xmalloc((size_t)ntot * sizeof *ytask);
    int *yctl = sp_xmalloc((size_t)ntot * sizeof *yctl);
    int *rows = sp_xmalloc((size_t)ntot * sizeof *rows);
    uint8_t *oov = sp_xmalloc((size_t)nte);
    uint8_t *np = sp_xmalloc((size_t)nte);
    for (int i = 0; i < nte; i++) np[i] = test->punct ? !test->punct[i] : 0;
    prb_control_ids(&c, train, ytask, yctl);
    prb_control_ids(&c, dev, ytask + ntr, yctl + ntr);
    prb_control_ids(&c, test, ytask + ntr + ndv, yctl + ntr + ndv);
    for (int i = 0; i < ntot; i++) rows[i] = xrow ? xrow[i] : i;
    /* the labels by X row, for the classifier (rows no token uses: -1, never read) */
    int nrow = ntot;
    for (int i = 0; xrow && i < ntot; i++) if (xrow[i] >= nrow) nrow = xrow[i] + 1;
    int *ytask_row = ytask, *yctl_row = yctl;
    if (xrow) {
        ytask_row = sp_xmalloc((size_t)nrow * sizeof *ytask_row);
        yctl_row = sp_xmalloc((size_t)nrow * sizeof *yctl_row);
        for (int i = 0; i < nrow; i++) ytask_row[i] = yctl_row[i] = -1;
        for (int i = 0; i < ntot; i++) { ytask_row[rows[i]] = ytask[i]; yctl_row[rows[i]] = yctl[i]; }
    }
    for (int i = 0; i < nte; i++) oov[i] = !c.type_in_train[prb_control_type_id(&c, test->form[i])];
    r->n_labels = c.n_labels;
    r->n_test = nte;
    for (int i = 0; i < nte; i++) r->n_oov += oov[i];
    struct tok_fit f[2];
    for (int run = 0; run < 2; run++)
        f[run] = (struct tok_fit){ .X = X, .d = d, .n_labels = c.n_labels, .y = run == 0 ? ytask : yctl, .rows = rows,
                                   .yrow = run == 0 ? ytask_row : yctl_row,
                                   .ntr = ntr, .ndv = ndv, .nte = nte, .cfg = *cfg, .oov = oov, .np = np };
    /* the probe and its control side by side, each with half the threads (a fit's result does
     * not depend on its thread count: the figures are those of one thread) */
    if (cfg->threads >= 2) f[0].cfg.threads = f[1].cfg.threads = cfg->threads / 2;
    sp_pool_run_once(cfg->threads >= 2 ? 2 : 1, 2, tok_fit_item, f);
    int rc = 0;
    for (int run = 0; run < 2 && rc == 0; run++)
        if (f[run].rc) {
            snprintf(err, errlen, "token probe: bad classifier configuration (d %d, %d labels)", d, c.n_labels);
            rc = -1;
        }
    if (rc == 0) {
        r->test_correct = f[0].correct;
        f[0].correct = NULL;
        r->acc_task = f[0].acc; r->acc_oov_task = f[0].acc_oov; r->acc_np_task = f[0].acc_np;
        r->dev_task = 100.0 * f[0].fi.best_dev;
        r->fit_task = f[0].fi;
        r->acc_control = f[1].acc; r->acc_oov_control = f[1].acc_oov; r->acc_np_control = f[1].acc_np;
        r->dev_control = 100.0 * f[1].fi.best_dev;
        r->fit_control = f[1].fi;
    }
    free(f[0].correct); free(f[1].correct);
    r->selectivity = r->acc_task - r->acc_control;
    if (xrow) { free(ytask_row); free(yctl_row); }
    free(np); free(oov); free(rows); free(yctl); free(ytask);
    prb_control_free(&c);
    return rc;
}
