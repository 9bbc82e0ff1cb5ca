/* stages/tokprobe.c — the token-probe stage (see stages/tokprobe.h). */
#include "stages/tokprobe.h"

#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "probes/control.h"
#include "probes/structprobe_metrics.h"
#include "stages/manifest.h"
#include "stages/names.h"
#include "stages/partition.h"
#include "store/st_results.h"
#include "store/st_runs.h"
#include "store/store.h"

const struct sp_opt stg_tokprobe_options[] = {
#define O(f) offsetof(struct stg_tokprobe_opts, f)
    { "db", SP_OPT_PATH, O(db), .metavar = "DB", .help = "the store", .flags = SP_OPTF_REQUIRED },
    { "corpus", SP_OPT_STR, O(corpus), .metavar = "C", .help = "the corpus whose words are labelled", .flags = SP_OPTF_REQUIRED },
    { "run", SP_OPT_STR, O(run), .metavar = "R", .help = "a run of the corpus encoded with --token-vectors",
      .flags = SP_OPTF_REQUIRED },
    { "task", SP_OPT_CHOICE, O(task), "upos", .choices = "upos|deprel",
      .help = "the label of each word: UPOS (XPOS where UPOS is absent) or the relation of its arc" },
    { "strip-subtype", SP_OPT_FLAG, O(strip_subtype), .help = "deprel: nmod:poss counts as nmod" },
    { "classifier", SP_OPT_CHOICE, O(classifier), "logreg", .choices = "logreg|mlp", .help = "the probe" },
    { "nhid", SP_OPT_INT, O(nhid), "100", .lo = 1, .hi = 100000, .metavar = "H", .help = "mlp: hidden units" },
    { "seed", SP_OPT_INT, O(seed), "1111", .lo = 0, .hi = LONG_MAX, .metavar = "N", .help = "the probe's seed" },
    { "control-seed", SP_OPT_INT, O(control_seed), "1", .lo = 0, .hi = LONG_MAX, .metavar = "N",
      .help = "the control labels' seed (M5.2)" },
    { "split-seed", SP_OPT_INT, O(split_seed), "1", .lo = 0, .hi = LONG_MAX, .metavar = "N",
      .help = "the re-split of a corpus without train/dev/test" },
    { "max-epoch", SP_OPT_INT, O(max_epoch), "200", .lo = 1, .hi = 100000, .metavar = "N", .help = "the most epochs" },
    { "threads", SP_OPT_INT, O(threads), "0", .lo = 1, .hi = 256, .metavar = "K", .flags = SP_OPTF_NODEF,
      .help = "threads that train the probe and its control (default: the CPUs it may run on; K >= 2: the two side by "
              "side, each with K/2 threads; "
              "with --layer, two layers at a time); results do not depend on K" },
    { "no-save", SP_OPT_FLAG, O(no_save), .help = "do not store the result" },
#undef O
    { 0 },
};

struct tok { const char *form, *label; uint8_t punct; int part; };
struct twalk {
    struct stg_ctx *ctx;
    const struct stg_tokprobe_opts *o;
    struct sp_arena a;
    int n_sent, cap;
    long *first;                /* [n_sent + 1] first token of each sentence */
    int *len;                   /* [n_sent] */
    const char **split;
    long n_tok, tcap;
    struct tok *t;
    float *X;                   /* [n_tok][d] */
    int d;
    uint8_t *have;              /* [n_sent] the run gave its vectors */
    long n_mismatch;
};

static int read_corpus(struct twalk *w, struct st_db *db, int64_t cid)
{
    struct st_iter *it;
    int rc = st_iter_open(db, cid, 0, &it, w->ctx->err, sizeof w->ctx->err);
    if (rc != SP_OK) return rc;
    for (;;) {
        const struct st_row *row;
        int k = st_iter_next(it, &row);
        if (k == 0) break;
        if (k < 0) { rc = stg_fail(w->ctx, SP_ESTORE, "%s", st_iter_error(it)); break; }
        if (w->n_sent == w->cap) {
            w->cap = w->cap ? 2 * w->cap : 4096;
            w->first = sp_xrealloc(w->first, sizeof *w->first * (size_t)(w->cap + 1));
            w->len = sp_xrealloc(w->len, sizeof *w->len * (size_t)w->cap);
            w->split = sp_xrealloc(w->split, sizeof *w->split * (size_t)w->cap);
        }
        int n = row->s.n;
        w->first[w->n_sent] = w->n_tok;
        w->len[w->n_sent] = n;
        w->split[w->n_sent] = row->split ? sp_arena_strdup(&w->a, row->split) : NULL;
        w->n_sent++;
        if (w->n_tok + n > w->tcap) {
            while (w->n_tok + n > w->tcap) w->tcap = w->tcap ? 2 * w->tcap : 65536;
            w->t = sp_xrealloc(w->t, sizeof *w->t * (size_t)w->tcap);
        }
        uint8_t pm[n > 0 ? n : 1];
        prb_punct_mask(&row->s, PRB_PUNCT_XPOS, pm);
        for (int i = 0; i < n; i++) {
            const char *lab = prb_tok_label(&w->a, &row->s, i, (enum prb_tok_task)w->o->task, w->o->strip_subtype);
            w->t[w->n_tok + i] = (struct tok){ sp_arena_strdup(&w->a, row->s.col[SP_FORM][i]),
                                               lab && strcmp(lab, "_") ? sp_arena_strdup(&w->a, lab) : NULL, pm[i], -1 };
        }
        w->n_tok += n;
    }
    w->first[w->n_sent] = w->n_tok;
    st_iter_close(it);
    return rc;
}

static int on_item(void *ctx, const struct st_run_item *it)
{
    struct twalk *w = ctx;
    long k = (long)it->ordinal - 1;
    if (k < 0 || k >= w->n_sent || !it->tok) return 0;
    if (!w->d) {
        w->d = it->tok_dim;
        w->X = sp_xmalloc(sizeof *w->X * ((size_t)w->n_tok * (size_t)w->d + 1));
    }
    if (it->n_tokens != w->len[k] || it->tok_dim != w->d) { w->n_mismatch++; return 0; }
    memcpy(w->X + (size_t)w->first[k] * (size_t)w->d, it->tok, sizeof(float) * (size_t)w->len[k] * (size_t)w->d);
    w->have[k] = 1;
    return 0;
}

/* One partition's tokens (corpus order) into a split and the matching rows of X at xo. */
static void take(const struct twalk *w, int part, const int *spart, struct prb_tok_split *sp, const char **form,
                 const char **label, uint8_t *punct, int *xrow, long *n_out)
{
    long n = 0;
    for (int k = 0; k < w->n_sent; k++) {
        if (spart[k] != part) continue;
        for (long i = w->first[k]; i < w->first[k + 1]; i++) {
            form[n] = w->t[i].form;
            label[n] = w->t[i].label;
            punct[n] = w->t[i].punct;
            xrow[n] = (int)i;              /* its vector: row i of w->X, read there (no copy) */
            n++;
        }
    }
    *sp = (struct prb_tok_split){ (int)n, form, label, punct };
    *n_out = n;
}

static json_t *num_json(double v) { return isnan(v) ? json_null() : json_real(v); }

/* The corpus's words and labels, then the run's token vectors */
static int load_walk(struct stg_ctx *ctx, struct st_db *db, const struct stg_tokprobe_opts *o, int64_t cid,
                     struct twalk *w)
{
    int rc = read_corpus(w, db, cid);
    if (rc != SP_OK) return rc;
    w->have = sp_xcalloc((size_t)w->n_sent + 1, 1);
    return st_run_items(db, o->run, ST_RUN_TOK, on_item, w, ctx->err, sizeof ctx->err);
}

/* Each sentence's partition (0 train, 1 dev, 2 test, else left out) among the usable ones:
 * the run has the sentence's vectors and every word a label. how: the partition rule. */
static int *partition_sentences(struct stg_ctx *ctx, const struct stg_tokprobe_opts *o, const struct twalk *w,
                                char *how, size_t howlen)
{
    uint8_t *usable = sp_xcalloc((size_t)w->n_sent + 1, 1);
    long unlabelled = 0;
    for (int k = 0; k < w->n_sent; k++) {
        int ok = w->have[k] && w->len[k] > 0;
        for (long i = w->first[k]; ok && i < w->first[k + 1]; i++) ok = w->t[i].label != NULL;
        if (w->have[k] && !ok) unlabelled++;
        usable[k] = (uint8_t)ok;
    }
    int *spart = sp_xmalloc(sizeof *spart * (size_t)(w->n_sent + 1));
    stg_partition(w->n_sent, w->split, usable, (uint64_t)o->split_seed, spart, how, howlen);
    if (unlabelled)
        sp_log(ctx->log, SP_LOG_WARN, "%ld sentences have words without a %s label, left out", unlabelled,
               o->task ? "dependency relation" : "part-of-speech");
    free(usable);
    return spart;
}

/* The tokens of the three partitions, one after the other, and their vectors */
struct tok_data {
    const char **form, **label;
    uint8_t *punct;
    int *xrow;                       /* each token's row in the walk's vectors (w->X) */
    struct prb_tok_split s[3];       /* train, dev, test: views into the arrays above */
    long ntr, ndv, nte;
};

static void gather_tokens(const struct twalk *w, const int *spart, struct tok_data *td)
{
    long tot = w->n_tok ? w->n_tok : 1, ntr, ndv;
    td->form = sp_xmalloc(sizeof *td->form * (size_t)tot);
    td->label = sp_xmalloc(sizeof *td->label * (size_t)tot);
    td->punct = sp_xmalloc((size_t)tot);
    td->xrow = sp_xmalloc(sizeof *td->xrow * (size_t)tot);
    take(w, 0, spart, &td->s[0], td->form, td->label, td->punct, td->xrow, &td->ntr);
    ntr = td->ntr;
    take(w, 1, spart, &td->s[1], td->form + ntr, td->label + ntr, td->punct + ntr, td->xrow + ntr, &td->ndv);
    ndv = td->ndv;
    take(w, 2, spart, &td->s[2], td->form + ntr + ndv, td->label + ntr + ndv, td->punct + ntr + ndv, td->xrow + ntr + ndv,
         &td->nte);
}

static void free_tokens(struct tok_data *td) { free(td->form); free(td->label); free(td->punct); free(td->xrow); }

/* The probe and its control on the gathered tokens; every partition needs some */
static int train_probe(struct stg_ctx *ctx, const struct stg_tokprobe_opts *o, const float *X, const struct tok_data *td,
                       int d, const char *how, struct prb_tokprobe_result *tr)
{
    if (!td->ntr || !td->ndv || !td->nte)
        return stg_fail(ctx, SP_EPARSE, "%s: train %ld, dev %ld, test %ld tokens with vectors and labels: every partition "
                        "needs some", how, td->ntr, td->ndv, td->nte);
    struct prb_train_cfg cfg;
    prb_train_cfg_default(&cfg);
    cfg.nhid = o->classifier ? (int)o->nhid : 0;
    cfg.seed = (uint64_t)o->seed;
    cfg.max_epoch = (int)o->max_epoch;
    cfg.threads = o->threads > 0 ? (int)o->threads : sp_cpu_count();
    char err[SP_ERRLEN];
    if (stg_stopping(ctx)) return stg_stopped(ctx);
    if (prb_tokprobe_run(X, td->xrow, d, &td->s[0], &td->s[1], &td->s[2], &cfg, (uint64_t)o->control_seed, tr, err, sizeof err))
        return stg_fail(ctx, SP_EPARSE, "%s", err);
    return SP_OK;
}

/* The test items for the report's interval (report/agg.c): one per test sentence, in corpus
 * order (take() gathers the test tokens so), with its tokens and how many the probe got right */
static json_t *test_items_json(const struct twalk *w, const int *spart, const struct prb_tokprobe_result *tr)
{
    json_t *rows = json_array(), *tok = json_array(), *cnt = json_array();
    long t = 0;
    for (int k = 0; k < w->n_sent; k++) {
        if (spart[k] != 2) continue;
        long n = w->first[k + 1] - w->first[k], c = 0;
        for (long i = 0; i < n && t + i < tr->n_test; i++) c += tr->test_correct[t + i];
        t += n;
        json_array_append_new(rows, json_integer(k));
        json_array_append_new(tok, json_integer(n));
        json_array_append_new(cnt, json_integer(c));
    }
    return json_pack("{s:s, s:o, s:o, s:o}", "split", "test", "item_rows", rows, "item_tokens", tok, "item_correct_count", cnt);
}

/* The result as JSON, with the control task under baselines.control where the report reads it */
static json_t *result_json(const struct stg_tokprobe_opts *o, const struct twalk *w, const int *spart, const char *task,
                           const struct prb_tokprobe_result *tr,
                           const struct tok_data *td)
{
    json_t *j = json_pack("{s:s, s:s, s:s, s:i, s:I, s:I, s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:I, s:{s:{s:o, s:s, s:I}}}",
                          "task", task, "run", o->run, "classifier", o->classifier ? "mlp" : "logreg", "nclasses",
                          tr->n_labels, "ntrain", (json_int_t)td->ntr, "ndev", (json_int_t)td->ndv, "ntest", (json_int_t)td->nte,
                          "devacc", num_json(tr->dev_task), "acc", num_json(tr->acc_task), "acc_unseen_types",
                          num_json(tr->acc_oov_task), "acc_no_punct", num_json(tr->acc_np_task), "selectivity",
                          num_json(tr->selectivity), "control_acc", num_json(tr->acc_control), "control_acc_unseen_types",
                          num_json(tr->acc_oov_control), "n_unseen", (json_int_t)tr->n_oov, "baselines", "control", "acc",
                          num_json(tr->acc_control), "kind", "control task: a random label per word type (Hewitt & Liang)",
                          "seed", (json_int_t)o->control_seed);
    json_object_set_new(json_object_get(json_object_get(j, "baselines"), "control"), "selectivity",
                        num_json(tr->selectivity));
    json_object_set_new(j, "metrics", test_items_json(w, spart, tr));
    return j;
}

/* The result, with its manifest, as a probe_result row */
static int save_result(struct stg_ctx *ctx, struct st_db *db, const struct stg_tokprobe_opts *o,
                       struct stg_tokprobe_result *r, const char *task, const char *how,
                       const struct prb_tokprobe_result *tr)
{
    int rc = stg_turn_take(ctx);            /* layers side by side: the ids in layer order */
    if (rc != SP_OK) return rc;
    json_t *full = json_deep_copy(r->json);
    json_t *man = stg_manifest_new(ctx, &o->command, stg_tokprobe_options, o);
    json_object_set_new(man, "partition", json_string(how));
    json_object_set_new(man, "control", json_pack("{s:s, s:I}", "rule", "docs/spec/models.md M5.2", "seed", (json_int_t)o->control_seed));
    json_object_set_new(man, "punct", json_string("H&M XPOS list (acc_no_punct)"));
    json_object_set_new(full, "manifest", man);
    char *txt = json_dumps(full, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
    struct st_probe_result row = { .run = o->run, .task_id = 0, .task_name = task, .classifier = o->classifier ? "mlp" : "logreg",
                                   .seed = o->seed, .has_dev = !isnan(tr->dev_task), .dev_acc = tr->dev_task,
                                   .has_test = !isnan(tr->acc_task), .test_acc = tr->acc_task, .result = txt };
    rc = st_probe_results_put(db, &row, 1, &r->result_id, ctx->err, sizeof ctx->err);
    free(txt);
    json_decref(full);
    return rc;
}

static void w_mismatch_warn(struct stg_ctx *ctx, const struct twalk *w)
{
    if (w->n_mismatch) sp_log(ctx->log, SP_LOG_WARN, "%ld run items do not match their sentence's words, left out", w->n_mismatch);
}

static void free_walk(struct twalk *w)
{
    free(w->first); free(w->len); free(w->split); free(w->t); free(w->X); free(w->have);
    sp_arena_free(&w->a);
}

/* ---- the token set for other stages (stages/mdl.c) ---- */

struct tokset_priv { struct twalk w; int *spart; struct tok_data td; };

int stg_tokset_load(struct stg_ctx *ctx, struct st_db *db, const struct stg_tokprobe_opts *o, int64_t cid,
                    struct stg_tokset *ts)
{
    memset(ts, 0, sizeof *ts);
    struct tokset_priv *p = sp_xcalloc(1, sizeof *p);
    ts->priv = p;
    p->w = (struct twalk){ .ctx = ctx, .o = o };
    sp_arena_init(&p->w.a);
    int rc = load_walk(ctx, db, o, cid, &p->w);
    w_mismatch_warn(ctx, &p->w);
    if (rc != SP_OK) return rc;
    p->spart = partition_sentences(ctx, o, &p->w, ts->how, sizeof ts->how);
    gather_tokens(&p->w, p->spart, &p->td);
    ts->X = p->w.X;
    ts->d = p->w.d;
    ts->xrow = p->td.xrow;
    for (int i = 0; i < 3; i++) ts->s[i] = p->td.s[i];
    ts->n[0] = p->td.ntr; ts->n[1] = p->td.ndv; ts->n[2] = p->td.nte;
    return SP_OK;
}

void stg_tokset_free(struct stg_tokset *ts)
{
    struct tokset_priv *p = ts->priv;
    if (p) {
        free_tokens(&p->td);
        free(p->spart);
        free_walk(&p->w);
        free(p);
    }
    memset(ts, 0, sizeof *ts);
}

int stg_tokprobe(struct stg_ctx *ctx, const struct stg_tokprobe_opts *o, struct stg_tokprobe_result *r)
{
    memset(r, 0, sizeof *r);
    struct twalk w = { .ctx = ctx, .o = o };
    sp_arena_init(&w.a);
    struct st_db *db = NULL;
    int64_t cid = 0;
    int rc = stg_open_store(ctx, o->db, o->no_save ? ST_OPEN_READONLY : 0, &db);
    if (rc == SP_OK) rc = stg_corpus_id(ctx, db, o->db, o->corpus, &cid);
    if (rc == SP_OK) rc = stg_known_name(ctx, db, o->db, STG_NAME_RUN, o->run);
    if (rc == SP_OK) rc = stg_corpus_run_check(ctx, db, o->run, cid, o->corpus, "tokprobe");
    if (rc == SP_OK) rc = load_walk(ctx, db, o, cid, &w);
    int *spart = NULL;
    char how[256] = "";
    if (rc == SP_OK) spart = partition_sentences(ctx, o, &w, how, sizeof how);
    struct tok_data td = { 0 };
    struct prb_tokprobe_result tr = { 0 };
    if (rc == SP_OK) {
        gather_tokens(&w, spart, &td);
        rc = train_probe(ctx, o, w.X, &td, w.d, how, &tr);
        free_tokens(&td);
    }
    const char *task = o->task ? "token:deprel" : "token:upos";
    if (rc == SP_OK) {
        r->acc_task = tr.acc_task;
        r->acc_control = tr.acc_control;
        r->selectivity = tr.selectivity;
        r->json = result_json(o, &w, spart, task, &tr, &td);
    }
    if (rc == SP_OK && !o->no_save) rc = save_result(ctx, db, o, r, task, how, &tr);
    w_mismatch_warn(ctx, &w);
    free(tr.test_correct);
    free(spart);
    free_walk(&w);
    if (db) st_close(db);
    return rc;
}

void stg_tokprobe_result_free(struct stg_tokprobe_result *r)
{
    json_decref(r->json);
    r->json = NULL;
}
