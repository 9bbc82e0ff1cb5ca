/* stages/layers.c — layer runs: the spec, the names, the runs of a store and the loop over them
 * (see layers.h). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stages/layers.h"

#include <stdatomic.h>

#include "common/pool.h"
#include "stages/names.h"
#include "store/st_runs.h"
#include "store/store.h"

const struct sp_opt stg_layer_options[] = {
    { "layer", SP_OPT_STR, offsetof(struct stg_layer_opt, layer), .metavar = "L|all",
      .help = "with --run NAME made by encode --layers: run on each layer's run NAME-L<k> (or NAME-L<k>-INPUT), all or "
              "K,K,...; one row per layer, results stored per layer run" },
    { 0 },
};

/* ---- the spec ---- */

/* "layer TEXT is out of range", in the words of opt and model */
static int out_of_range(const char *opt, const char *text, int max, const char *model, char *err, size_t errlen)
{
    if (model) snprintf(err, errlen, "%s %s: the model %s has layers 0..%d (0 = embeddings)", opt, text, model, max);
    else snprintf(err, errlen, "%s: layer %s is not one of 0..%d (0 = embeddings)", opt, text, max);
    return SP_EUSAGE;
}

int stg_layer_add(struct stg_layer_list *l, long long k, int max, const char *opt, const char *model, char *err,
                  size_t errlen)
{
    if (max > ENC_MAX_LAYERS) max = ENC_MAX_LAYERS;   /* l->k holds ENC_MAX_LAYERS + 1 */
    char text[24];
    snprintf(text, sizeof text, "%lld", k);
    if (k < 0 || k > max) return out_of_range(opt, text, max, model, err, errlen);
    for (int i = 0; i < l->n; i++)
        if (l->k[i] == k) { snprintf(err, errlen, "%s: layer %lld is named twice", opt, k); return SP_EUSAGE; }
    l->k[l->n++] = (int)k;     /* at most max + 1 <= STG_MAX_LAYER_RUNS distinct layers */
    return SP_OK;
}

/* the number the digits p..q spell; -1 when there are none or not all are digits, -2 when there
 * are more than 9 (out of any layer range, and of a long) */
static long long number(const char *p, const char *q)
{
    if (q == p) return -1;
    for (const char *c = p; c < q; c++) if (*c < '0' || *c > '9') return -1;
    if (q - p > 9) return -2;
    return strtoll(p, NULL, 10);
}

int stg_layer_spec(const char *opt, const char *spec, int max, const char *model, struct stg_layer_list *l, char *err,
                   size_t errlen)
{
    memset(l, 0, sizeof *l);
    if (max > ENC_MAX_LAYERS) max = ENC_MAX_LAYERS;
    if (!strcmp(spec, "all")) {
        l->all = 1;
        for (int k = 0; k <= max; k++) l->k[l->n++] = k;
        return SP_OK;
    }
    for (const char *p = spec;;) {
        const char *q = strchr(p, ',');
        if (!q) q = p + strlen(p);
        long long k = number(p, q);
        if (k == -1) {
            snprintf(err, errlen, "%s: expected all or layer numbers K,K,... (0 = embeddings), got '%s'", opt, spec);
            return SP_EUSAGE;
        }
        if (k == -2) {
            char text[48];
            snprintf(text, sizeof text, "%.*s", (int)(q - p < 40 ? q - p : 40), p);
            return out_of_range(opt, text, max, model, err, errlen);
        }
        int rc = stg_layer_add(l, k, max, opt, model, err, errlen);
        if (rc || !*q) return rc;
        p = q + 1;
    }
}

int stg_layer_count(const char *encoder_config, int *last, const char **kind, char *err, size_t errlen)
{
    struct enc_config ec;
    struct enc_caps caps;
    *last = -1;
    int rc = enc_config_load(encoder_config, &ec, err, errlen);
    if (rc) return rc;
    *kind = enc_kind_name(ec.kind);
    enc_config_caps(&ec, &caps);
    if (!caps.layer_outputs) return SP_OK;    /* one output: no layer runs */
    return enc_config_layers(&ec, last, err, errlen);
}

/* ---- the names ---- */

char *stg_layer_pattern(const char *name)
{
    struct sp_buf b = { 0 };
    sp_buf_printf(&b, strstr(name, "{layer}") ? "%s" : "%s-L{layer}", name);
    return b.p;
}

char *stg_layer_run_name(const char *name, int k, const char *input)
{
    char *pat = stg_layer_pattern(name);
    struct sp_buf b = { 0 };
    const char *p = pat, *t;
    while ((t = strstr(p, "{layer}"))) {
        sp_buf_printf(&b, "%.*s%d", (int)(t - p), p, k);
        p = t + 7;
    }
    sp_buf_printf(&b, "%s", p);
    if (input) sp_buf_printf(&b, "-%s", input);
    free(pat);
    return b.p;
}

int stg_layer_of_run(const char *run, char *base, size_t n)
{
    const char *p = strrchr(run, '-');
    long long k = p && p[1] == 'L' ? number(p + 2, p + strlen(p)) : -1;
    if (k >= 0 && k <= ENC_MAX_LAYERS) {
        snprintf(base, n, "%.*s", (int)(p - run), run);
        char *again = stg_layer_run_name(base, (int)k, NULL);    /* "L03" is not how layer 3 is named */
        int same = !strcmp(again, run);
        free(again);
        if (same) return (int)k;
    }
    snprintf(base, n, "%s", run);
    return -1;
}

/* ---- the runs of a store ---- */

/* k when run is the name stg_layer_run_name gives layer k of name over input; else -1 */
static int layer_of(const char *run, const char *name, const char *input)
{
    for (int k = 0; k < STG_MAX_LAYER_RUNS; k++) {
        char *n = stg_layer_run_name(name, k, input);
        int same = !strcmp(n, run);
        free(n);
        if (same) return k;
    }
    return -1;
}

/* found[k]: the run of layer k among names (NAME-L<k>-INPUT first, then NAME-L<k>); 1 when any */
static int find_layers(const struct st_names *names, const char *name, const char *input, const char **found)
{
    int any = 0;
    for (int pass = input ? 0 : 1; pass < 2; pass++)
        for (int i = 0; i < names->n; i++) {
            int k = layer_of(names->v[i], name, pass == 0 ? input : NULL);
            if (k >= 0 && !found[k]) { found[k] = names->v[i]; any = 1; }
        }
    return any;
}

/* No layer runs of name: say so, and what the store has that the user may have meant. */
static int no_layer_runs(struct stg_ctx *ctx, const char *db_path, const struct st_names *names, const char *name,
                         const char *input)
{
    int plain = 0;
    const char *other = NULL;     /* NAME-L<k>-X of another input */
    size_t skip = strlen(name) + 2;     /* past "NAME-L" */
    for (int i = 0; i < names->n; i++) {
        plain |= !strcmp(names->v[i], name);
        const char *dash = strlen(names->v[i]) >= skip ? strchr(names->v[i] + skip, '-') : NULL;
        if (!other && dash && !strstr(name, "{layer}") && layer_of(names->v[i], name, dash + 1) >= 0) other = names->v[i];
    }
    char hint[SP_ERRLEN / 2] = "";
    if (plain) snprintf(hint, sizeof hint, "; it is a run of one layer");
    else if (other)
        snprintf(hint, sizeof hint, "; the store has %s: name its input (--corpus, --task, or a --run pattern such as "
                 "%s-L{layer}-INPUT)", other, name);
    return stg_fail(ctx, SP_EPARSE, "%s: %s '%s' has no layer runs (%s-L<k>%s, made by encode --layers)%s", db_path,
                    plain ? "run" : "name", name, name, input ? "[-INPUT]" : "", hint);
}

/* Layer k is wanted but the store has no run of it: name the run looked for and the layers there are. */
static int missing_layer(struct stg_ctx *ctx, const char *db_path, const char *name, const char *input, int k,
                         const char **found)
{
    char have[512];
    size_t len = 0;
    have[0] = 0;
    for (int j = 0; j < STG_MAX_LAYER_RUNS && len < sizeof have - 8; j++)
        if (found[j]) len += (size_t)snprintf(have + len, sizeof have - len, "%s%d", len ? "," : "", j);
    char *run = stg_layer_run_name(name, k, NULL);
    int rc = input ? stg_fail(ctx, SP_EPARSE, "%s: no run %s-%s or %s: the layers of '%s' there are %s", db_path, run, input,
                              run, name, have)
                   : stg_fail(ctx, SP_EPARSE, "%s: no run %s: the layers of '%s' there are %s", db_path, run, name, have);
    free(run);
    return rc;
}

/* out: the runs found of the layers in want, each with its attention layer */
static int take_runs(struct stg_ctx *ctx, struct st_db *db, const struct stg_layer_list *want, const char **found,
                     struct stg_layer_runs *out)
{
    for (int k = 0; k < STG_MAX_LAYER_RUNS; k++) {
        int take = 0;
        for (int i = 0; i < want->n; i++) take |= want->k[i] == k && found[k];
        if (!take) continue;
        struct st_run_info info = { 0 };
        char err[SP_ERRLEN];
        int rc = st_run_info(db, found[k], &info, err, sizeof err);
        if (rc) { st_run_info_free(&info); return stg_fail(ctx, rc == SP_EUSAGE ? SP_EPARSE : rc, "%s", err); }
        out->layer[out->n] = k;
        out->attn_layer[out->n] = info.attn_layer;
        out->run[out->n++] = sp_xstrdup(found[k]);
        st_run_info_free(&info);
    }
    return SP_OK;
}

int stg_layer_runs(struct stg_ctx *ctx, const char *db_path, const char *opt, const char *name, const char *spec,
                   const char *input, struct stg_layer_runs *out)
{
    memset(out, 0, sizeof *out);
    struct stg_layer_list want;
    char err[SP_ERRLEN];
    int rc = stg_layer_spec(opt, spec, ENC_MAX_LAYERS, NULL, &want, err, sizeof err);
    if (rc) return stg_fail(ctx, rc, "%s", err);
    struct st_db *db;
    if ((rc = stg_open_store(ctx, db_path, ST_OPEN_READONLY, &db))) return rc;
    struct st_names names = { 0 };
    if ((rc = st_run_names(db, &names, err, sizeof err))) { st_close(db); return stg_fail(ctx, SP_ESTORE, "%s", err); }
    const char *found[STG_MAX_LAYER_RUNS] = { 0 };
    if (strstr(name, "{layer}")) input = NULL;            /* the pattern names the runs */
    if (!find_layers(&names, name, input, found)) {
        rc = no_layer_runs(ctx, db_path, &names, name, input);
    } else {
        for (int i = 0; !rc && !want.all && i < want.n; i++)
            if (!found[want.k[i]]) rc = missing_layer(ctx, db_path, name, input, want.k[i], found);
        if (!rc) rc = take_runs(ctx, db, &want, found, out);
    }
    st_names_free(&names);
    st_close(db);
    return rc;
}

void stg_layer_runs_free(struct stg_layer_runs *l)
{
    for (int i = 0; i < l->n; i++) free(l->run[i]);
    memset(l, 0, sizeof *l);
}

/* ---- the loop ---- */

/* the layers side by side: workers take the next layer run, run the stage on it with a context
 * of their own (no progress reports: they would interleave), and write and print in layer order
 * (the turn each stage takes before it writes, then the loop's own turn for the rows) */
struct layers_par {
    struct stg_ctx *ctx;
    const struct stg_layer_runs *lr;
    const char *input;
    stg_layer_fn fn;
    void *arg;
    json_t *rows;
    size_t tagged;                 /* rows before this index have their "layer" and "run" */
    struct stg_turn turn;
    atomic_int next_layer;
    int rc;                        /* the first failure in layer order */
};

static void layer_worker(void *arg, int item, int worker)
{
    (void)item; (void)worker;
    struct layers_par *P = arg;
    for (;;) {
        int i = atomic_fetch_add(&P->next_layer, 1);
        if (i >= P->lr->n) return;
        struct stg_ctx wc = *P->ctx;
        wc.progress = NULL;
        wc.turn = &P->turn;
        wc.turn_no = i;
        wc.err[0] = 0;
        struct stg_layer_run l = { P->lr->layer[i], P->lr->run[i], P->lr->attn_layer[i], P->input };
        pthread_mutex_lock(&P->turn.mu);
        int failed = P->turn.failed;
        pthread_mutex_unlock(&P->turn.mu);
        int rc = failed ? SP_ESTOPPED : P->fn(&wc, &l, P->rows, P->arg);
        int ok = stg_turn_take(&wc) == SP_OK;         /* this layer's turn (the stage may have it already) */
        pthread_mutex_lock(&P->turn.mu);
        if (ok && rc != SP_OK) {
            P->turn.failed = 1;
            P->rc = rc;
            memcpy(P->ctx->err, wc.err, sizeof wc.err);
        }
        for (; ok && P->tagged < json_array_size(P->rows); P->tagged++) {
            json_object_set_new(json_array_get(P->rows, P->tagged), "layer", json_integer(l.layer));
            json_object_set_new(json_array_get(P->rows, P->tagged), "run", json_string(l.run));
        }
        P->turn.next++;
        pthread_cond_broadcast(&P->turn.cv);
        pthread_mutex_unlock(&P->turn.mu);
    }
}

static int layers_side_by_side(struct stg_ctx *ctx, const struct stg_layer_runs *lr, const char *input, stg_layer_fn fn,
                               void *arg, json_t *rows, int workers)
{
    struct layers_par P = { .ctx = ctx, .lr = lr, .input = input, .fn = fn, .arg = arg, .rows = rows,
                            .tagged = json_array_size(rows), .rc = SP_OK };
    pthread_mutex_init(&P.turn.mu, NULL);
    pthread_cond_init(&P.turn.cv, NULL);
    atomic_init(&P.next_layer, 0);
    sp_pool_run_once(workers, workers, layer_worker, &P);
    pthread_cond_destroy(&P.turn.cv);
    pthread_mutex_destroy(&P.turn.mu);
    return P.rc;
}

int stg_layers_each(struct stg_ctx *ctx, const char *db_path, const char *name, const char *spec, const char *input,
                    stg_layer_fn fn, void *arg, json_t *rows, int workers)
{
    struct stg_layer_runs lr;
    int rc = stg_layer_runs(ctx, db_path, "--layer", name, spec, input, &lr);
    if (rc == SP_OK && workers > 1 && lr.n > 1) {
        rc = layers_side_by_side(ctx, &lr, input, fn, arg, rows, workers < lr.n ? workers : lr.n);
        stg_layer_runs_free(&lr);
        return rc;
    }
    for (int i = 0; rc == SP_OK && i < lr.n; i++) {
        size_t before = json_array_size(rows);
        struct stg_layer_run l = { lr.layer[i], lr.run[i], lr.attn_layer[i], input };
        rc = fn(ctx, &l, rows, arg);
        for (size_t j = before; j < json_array_size(rows); j++) {
            json_object_set_new(json_array_get(rows, j), "layer", json_integer(l.layer));
            json_object_set_new(json_array_get(rows, j), "run", json_string(l.run));
        }
    }
    stg_layer_runs_free(&lr);
    return rc;
}
