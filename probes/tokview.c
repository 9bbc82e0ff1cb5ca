/* probes/tokview.c — the word-level probes over a corpus's rows (probes/tokview.h). */
#include "probes/tokview.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/gemm.h"
#include "common/sp.h"
#include "common/strmap.h"
#include "probes/structprobe_metrics.h"
#include "probes/structprobe_train.h"

static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

void prb_toktask_build(const struct prb_tokview *w, const int *spart, const char **lab, struct prb_toktask *t)
{
    memset(t, 0, sizeof *t);
    struct sp_strmap m;
    struct sp_arena a;
    sp_strmap_init(&m);
    sp_arena_init(&a);
    long cap = 16;
    t->cls = sp_xmalloc(sizeof *t->cls * (size_t)cap);
    for (int s = 0; s < w->n_sent; s++) {
        if (spart[s] < 0) continue;
        for (long i = w->first[s]; i < w->first[s + 1]; i++) {
            if (!lab[i] || sp_strmap_get(&m, lab[i])) continue;
            sp_strmap_add(&m, &a, lab[i], 1);
            if (t->k == cap) t->cls = sp_xrealloc(t->cls, sizeof *t->cls * (size_t)(cap *= 2));
            t->cls[t->k++] = lab[i];
        }
    }
    qsort(t->cls, (size_t)t->k, sizeof *t->cls, cmp_str);
    sp_strmap_free(&m);
    sp_strmap_init(&m);
    for (int c = 0; c < t->k; c++) sp_strmap_add(&m, &a, t->cls[c], c + 1);
    t->y = sp_xmalloc(sizeof *t->y * (size_t)(w->n_tok + 1));
    for (int p = 0; p < 3; p++) t->rows[p] = sp_xmalloc(sizeof *t->rows[p] * (size_t)(w->n_tok + 1));
    for (long i = 0; i < w->n_tok; i++) t->y[i] = lab[i] ? sp_strmap_get(&m, lab[i]) - 1 : -1;
    for (int s = 0; s < w->n_sent; s++) {
        if (spart[s] < 0 || spart[s] > 2) continue;
        for (long i = w->first[s]; i < w->first[s + 1]; i++)
            if (t->y[i] >= 0) t->rows[spart[s]][t->n[spart[s]]++] = (int)i;
    }
    long *cnt = sp_xcalloc((size_t)(t->k + 1), sizeof *cnt);
    for (int i = 0; i < t->n[0]; i++) cnt[t->y[t->rows[0][i]]]++;
    for (int c = 1; c < t->k; c++) if (cnt[c] > cnt[t->major]) t->major = c;
    long hit = 0;
    for (int i = 0; i < t->n[2]; i++) hit += t->y[t->rows[2][i]] == t->major;
    t->majority = t->n[2] ? 100.0 * (double)hit / t->n[2] : NAN;
    free(cnt);
    sp_strmap_free(&m);
    /* the class names outlive the arena: they point into the walk's labels */
    sp_arena_free(&a);
}

void prb_toktask_free(struct prb_toktask *t)
{
    free(t->cls); free(t->y);
    for (int p = 0; p < 3; p++) free(t->rows[p]);
}

/* The probe of docs/spec/probing.md §1.4 (logistic regression): trained on the train rows, early-stopped
 * on dev, test accuracy in percent; *dev: the best dev accuracy in percent; correct (may be NULL;
 * [t->n[2]]): 1 where the probe labelled test row i right. */
double prb_toktask_probe(const float *X, int d, const struct prb_toktask *t, const struct prb_train_cfg *cfg, double *dev,
                    uint8_t *correct)
{
    struct prb_clf c;
    if (t->k < 2 || !t->n[0] || !t->n[1] || !t->n[2] || prb_clf_init(&c, d, t->k, cfg)) {
        *dev = NAN;
        return NAN;
    }
    struct prb_fit_info info;
    prb_clf_fit(&c, X, t->y, t->rows[0], t->n[0], t->rows[1], t->n[1], &info);
    *dev = 100.0 * info.best_dev;
    int *pred = sp_xmalloc(sizeof *pred * (size_t)t->n[2]);
    prb_clf_predict(&c, X, t->rows[2], t->n[2], pred);
    long ok = 0;
    for (int i = 0; i < t->n[2]; i++) {
        int hit = pred[i] == t->y[t->rows[2][i]];
        ok += hit;
        if (correct) correct[i] = (uint8_t)hit;
    }
    free(pred);
    prb_clf_free(&c);
    return 100.0 * (double)ok / t->n[2];
}

/* The test items for the report's interval (report/agg.c), as tokprobe gives them: one per test
 * sentence in corpus order (the order of t->rows[2]), its words and how many the probe got right */
json_t *prb_toktask_test_items(const struct prb_tokview *w, const int *spart, const struct prb_toktask *t, const uint8_t *correct)
{
    json_t *rows = json_array(), *tok = json_array(), *cnt = json_array();
    int i = 0;
    for (int k = 0; k < w->n_sent; k++) {
        if (spart[k] != 2) continue;
        long n = 0, c = 0;
        while (i < t->n[2] && t->rows[2][i] < w->first[k + 1]) { n++; c += correct[i]; i++; }
        if (!n) continue;
        json_array_append_new(rows, json_integer(k));
        json_array_append_new(tok, json_integer(n));
        json_array_append_new(cnt, json_integer(c));
    }
    return json_pack("{s:s, s:o, s:o, s:o}", "split", "test", "item_rows", rows, "item_tokens", tok, "item_correct_count", cnt);
}

/* ---- the structural probe (--uuas) ---- */

/* A partition's sentences with one tree, as a prb_sp_set over the vectors X (gathered). */
struct tset { struct prb_sp_set set; long *off; int *head; uint8_t *punct; float *X; };

static void gather(const struct prb_tokview *w, const int *spart, int part, const float *X, struct tset *o)
{
    long nw = 0;
    int ns = 0;
    for (int k = 0; k < w->n_sent; k++) if (spart[k] == part && w->tree[k]) { ns++; nw += w->len[k]; }
    o->off = sp_xmalloc(sizeof *o->off * (size_t)(ns + 1));
    o->head = sp_xmalloc(sizeof *o->head * (size_t)(nw + 1));
    o->punct = sp_xmalloc((size_t)nw + 1);
    o->X = sp_xmalloc(sizeof *o->X * ((size_t)nw * (size_t)w->d + 1));
    long at = 0;
    int j = 0;
    for (int k = 0; k < w->n_sent; k++) {
        if (spart[k] != part || !w->tree[k]) continue;
        long f = w->first[k], n = w->len[k];
        o->off[j++] = at;
        memcpy(o->head + at, w->head + f, sizeof *o->head * (size_t)n);
        memcpy(o->punct + at, w->punct + f, (size_t)n);
        memcpy(o->X + (size_t)at * (size_t)w->d, X + (size_t)f * (size_t)w->d, sizeof(float) * (size_t)n * (size_t)w->d);
        at += n;
    }
    o->off[j] = at;
    o->set = (struct prb_sp_set){ ns, w->d, o->X, o->off, o->head, o->punct };
}

static void tset_free(struct tset *o) { free(o->off); free(o->head); free(o->punct); free(o->X); }

/* Test UUAS (percent) of the distance probe trained on train, checkpointed on dev; NaN when a
 * partition has no tree or training fails (said in the log). */
double prb_tokview_uuas(const struct prb_tokview *w, const int *spart, const float *X, uint64_t seed, int threads,
                        char *err, size_t errlen)
{
    struct tset t[3];
    for (int p = 0; p < 3; p++) gather(w, spart, p, X, &t[p]);
    double u = NAN;
    if (t[0].set.n_sent && t[1].set.n_sent && t[2].set.n_sent) {
        struct prb_sptrain_cfg cfg;
        prb_sptrain_cfg_default(&cfg);
        cfg.seed = seed;
        struct prb_sprobe p;
        struct prb_sptrain_info in = { 0 };
        struct prb_sp_acc acc;
        prb_sp_init(&acc);
        int threads0 = sp_gemm_threads();
        sp_gemm_set_threads(threads);
        if (prb_sprobe_train(&p, &cfg, &t[0].set, &t[1].set, &in, err, errlen) == 0 &&
            prb_sprobe_eval(&p, &t[2].set, &acc, err, errlen) == 0) {
            struct prb_sp_result r;
            prb_sp_result(&acc, &r);
            u = r.uuas;
        }
        sp_gemm_set_threads(threads0);
        prb_sprobe_free(&p);
        prb_sp_free(&acc);
    }
    for (int p = 0; p < 3; p++) tset_free(&t[p]);
    return u;
}
