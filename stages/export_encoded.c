/* stages/export_encoded.c — an encoder run's cached outputs as NumPy files (see the header). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/npy.h"
#include "common/sp.h"
#include "stages/export_encoded.h"
#include "store/st_encoded.h"
#include "store/st_runs.h"
#include "store/store.h"

static int put_f32(FILE *f, const float *v, size_t n) { return fwrite(v, 4, n, f) == n ? 0 : -1; }

struct pass {
    int what;                  /* 1 vectors, 2 tokens, 3 attention */
    int heads, n_heads;        /* attention: per head (n, H, L, L) */
    /* pass 1 */
    size_t n, total_tokens, max_n;
    int64_t last_ordinal;
    int dim, tok_dim;
    /* pass 2 */
    FILE *f;
    int32_t *lengths;
    size_t k;
    float *row;
    char err[SP_ERRLEN];
};

static int sizes(void *ctx, const struct st_run_item *it)
{
    struct pass *p = ctx;
    p->last_ordinal = it->ordinal;
    if (p->n && (it->dim != p->dim || (p->what == 2 && it->tok_dim != p->tok_dim))) {
        snprintf(p->err, sizeof p->err, "item %lld: width %d/%d differs from the first item's %d/%d",
                 (long long)it->ordinal, it->dim, it->tok_dim, p->dim, p->tok_dim);
        return SP_EPARSE;
    }
    if (p->heads && p->n && it->n_heads != p->n_heads) {
        snprintf(p->err, sizeof p->err, "item %lld: %d heads, the first item %d", (long long)it->ordinal, it->n_heads, p->n_heads);
        return SP_EPARSE;
    }
    p->n_heads = it->n_heads;
    p->dim = it->dim;
    p->tok_dim = it->tok_dim;
    p->n++;
    p->total_tokens += (size_t)it->n_tokens;
    if ((size_t)it->n_tokens > p->max_n) p->max_n = (size_t)it->n_tokens;
    return 0;
}

static int rows(void *ctx, const struct st_run_item *it)
{
    struct pass *p = ctx;
    int bad = 0;
    if (p->what == 1) bad = put_f32(p->f, it->vec, (size_t)it->dim);
    else if (p->what == 2) {
        bad = put_f32(p->f, it->tok, (size_t)it->n_tokens * (size_t)it->tok_dim);
        p->lengths[p->k] = it->n_tokens;
    } else if (p->heads) {
        size_t L = p->max_n, n = (size_t)it->n_tokens;
        for (size_t h = 0; h < (size_t)p->n_heads; h++) {
            for (size_t i = 0; i < n; i++) {
                memset(p->row, 0, sizeof(float) * L);
                memcpy(p->row, it->attn_heads + (h * n + i) * n, sizeof(float) * n);
                bad |= put_f32(p->f, p->row, L);
            }
            memset(p->row, 0, sizeof(float) * L);
            for (size_t i = n; i < L && !bad; i++) bad = put_f32(p->f, p->row, L);
        }
    } else {
        size_t L = p->max_n, n = (size_t)it->n_tokens;
        for (size_t i = 0; i < n; i++) {
            memset(p->row, 0, sizeof(float) * L);
            memcpy(p->row, it->attn + i * n, sizeof(float) * n);
            bad |= put_f32(p->f, p->row, L);
        }
        memset(p->row, 0, sizeof(float) * L);
        for (size_t i = n; i < L && !bad; i++) bad = put_f32(p->f, p->row, L);
    }
    p->k++;
    if (bad) { snprintf(p->err, sizeof p->err, "write error"); return SP_EIO; }
    return 0;
}

/* Skipped sentences anywhere (the last ones included): rows then do not line up with the corpus. */
static void warn_missing(struct stg_ctx *ctx, struct st_db *db, const struct st_run_info *info, size_t n)
{
    int64_t in_corpus = 0;
    char err[SP_ERRLEN];
    if (!info->corpus_id || st_corpus_sentence_count(db, info->corpus_id, &in_corpus, err, sizeof err)) return;
    if (in_corpus > (int64_t)n)
        sp_log(ctx->log, SP_LOG_WARN, "%lld of the %lld sentences of corpus %s are not in run '%s' (skipped by encode); "
               "rows do not line up with the corpus", (long long)(in_corpus - (int64_t)n), (long long)in_corpus,
               info->corpus, info->name);
}

/* Pass 1: sizes, and the "re-run encode with ..." errors before any file is created. */
static int measure(struct stg_ctx *ctx, const struct stg_export_encoded_opts *o, struct st_db *db,
                   const struct st_run_info *info, struct pass *p)
{
    char err[SP_ERRLEN];
    int rc = st_run_items(db, o->run, p->heads ? ST_RUN_HEADS : 0, sizes, p, err, sizeof err);
    if (rc) return stg_fail(ctx, rc == SP_EUSAGE ? SP_EPARSE : rc, "%s", rc == SP_EPARSE && p->err[0] ? p->err : err);
    if (p->what == 2 && !info->token_vectors)
        return stg_fail(ctx, SP_EPARSE, "%s: run '%s' has no token vectors: re-run encode with --token-vectors", o->db, o->run);
    if (p->what == 3 && info->attn_layer < 0)
        return stg_fail(ctx, SP_EPARSE, "%s: run '%s' has no attention maps: re-run encode with --attention LAYER", o->db, o->run);
    if (!p->n) return stg_fail(ctx, SP_EPARSE, "run '%s' has no items", o->run);
    return SP_OK;
}

/* Pass 2: the header and the rows into the main file. */
static int write_main(struct stg_ctx *ctx, const struct stg_export_encoded_opts *o, struct st_db *db, struct pass *p)
{
    size_t shape[4];
    int ndim = 2;
    if (p->what == 1) { shape[0] = p->n; shape[1] = (size_t)p->dim; }
    else if (p->what == 2) { shape[0] = p->total_tokens; shape[1] = (size_t)p->tok_dim; }
    else if (p->heads) { shape[0] = p->n; shape[1] = (size_t)p->n_heads; shape[2] = shape[3] = p->max_n; ndim = 4; }
    else { shape[0] = p->n; shape[1] = shape[2] = p->max_n; ndim = 3; }
    if (p->what == 2) p->lengths = sp_xmalloc(sizeof(int32_t) * p->n);
    if (p->what == 3) p->row = sp_xmalloc(sizeof(float) * (p->max_n ? p->max_n : 1));
    if (sp_npy_write_header(p->f, SP_DT_F32, ndim, shape)) return stg_fail(ctx, SP_EIO, "%s: write error", o->out);
    unsigned part = p->what == 1 ? ST_RUN_VEC : p->what == 2 ? ST_RUN_TOK : p->heads ? ST_RUN_HEADS : ST_RUN_ATTN;
    char err[SP_ERRLEN];
    int rc = st_run_items(db, o->run, part, rows, p, err, sizeof err);
    if (rc) return stg_fail(ctx, rc == SP_EUSAGE ? SP_EPARSE : rc, "%s", p->err[0] ? p->err : err);
    if (p->k != p->n) return stg_fail(ctx, SP_EPARSE, "run '%s' changed while exporting", o->run);
    return SP_OK;
}

/* FILE.lengths.npy beside FILE.npy (tokens). */
static int write_lengths(struct stg_ctx *ctx, const struct stg_export_encoded_opts *o, const struct pass *p,
                         struct sp_out *out, char **path)
{
    size_t L = strlen(o->out);
    if (L > 4 && !strcmp(o->out + L - 4, ".npy")) L -= 4;
    *path = sp_xmalloc(L + 16);
    memcpy(*path, o->out, L);
    strcpy(*path + L, ".lengths.npy");
    size_t ls = p->n;
    int orc = sp_out_open(out, *path, ctx->err, sizeof ctx->err);
    if (orc) return orc;
    if (sp_npy_write_header(out->f, SP_DT_I32, 1, &ls) || fwrite(p->lengths, sizeof(int32_t), p->n, out->f) != p->n)
        return stg_fail(ctx, SP_EIO, "%s: write error", *path);
    return SP_OK;
}

static int export_run(struct stg_ctx *ctx, const struct stg_export_encoded_opts *o, struct st_db *db,
                      const struct st_run_info *info, struct pass *p, struct stg_export_encoded_result *r)
{
    struct sp_out o_main = { 0 }, o_len = { 0 };
    int rc = measure(ctx, o, db, info, p);
    if (rc) return rc;
    warn_missing(ctx, db, info, p->n);
    if ((rc = sp_out_open(&o_main, o->out, ctx->err, sizeof ctx->err))) goto out;
    p->f = o_main.f;
    if ((rc = write_main(ctx, o, db, p))) goto out;
    if (p->what == 2 && (rc = write_lengths(ctx, o, p, &o_len, &r->lengths_path))) goto out;
    if ((rc = sp_out_commit(&o_main, ctx->err, sizeof ctx->err))) goto out;
    if (r->lengths_path) rc = sp_out_commit(&o_len, ctx->err, sizeof ctx->err);
    r->rows = p->n;
out:
    sp_out_abort(&o_main);      /* no-ops after a commit */
    sp_out_abort(&o_len);
    return rc;
}

int stg_export_encoded(struct stg_ctx *ctx, const struct stg_export_encoded_opts *o, struct stg_export_encoded_result *r)
{
    memset(r, 0, sizeof *r);
    static const char *const names[] = { "vectors", "tokens", "attention" };
    if (!o->run) return stg_fail(ctx, SP_EUSAGE, "--what %s needs --run NAME (an encoder run)", names[o->what]);
    if (!o->out) return stg_fail(ctx, SP_EUSAGE, "--what %s needs --out FILE.npy (binary output)", names[o->what]);
    if (o->heads && o->what != STG_EXPORT_ATTENTION) return stg_fail(ctx, SP_EUSAGE, "--heads goes with --what attention");
    struct pass p = { .what = o->what + 1, .heads = o->heads };
    struct st_db *db = NULL;
    struct st_run_info info = { 0 };
    char err[SP_ERRLEN * 2];
    int rc = st_open(o->db, ST_OPEN_READONLY, &db, err, sizeof err);
    if (!rc) rc = st_run_info(db, o->run, &info, err, sizeof err);
    if (rc) rc = stg_fail(ctx, rc == SP_EUSAGE ? SP_EPARSE : rc, "%s", err);
    else if (o->corpus && (!info.corpus || strcmp(o->corpus, info.corpus)))
        rc = stg_fail(ctx, SP_EPARSE, "run '%s' encodes %s %s, not corpus %s", o->run, info.corpus ? "corpus" : "task",
                      info.corpus ? info.corpus : info.task, o->corpus);
    else
        rc = export_run(ctx, o, db, &info, &p, r);
    free(p.lengths);
    free(p.row);
    st_run_info_free(&info);
    st_close(db);
    if (rc == SP_OK)
        sp_log(ctx->log, SP_LOG_DEBUG, "export: %zu rows of run '%s' to %s", r->rows, o->run, o->out);
    return rc;
}

/* ---- several layer runs into one array, the layer axis second ---- */

struct lpass {
    struct pass p;             /* sizes of the first run; its item list */
    int n_runs, l;             /* runs; the one being read */
    int64_t *ordinal;          /* [n] the first run's items */
    char (*hash)[65];
    int32_t *ntok;
    size_t k, tok_base;        /* item and token position in the run being read */
    long hdr;                  /* bytes before the data */
    const char *run;
};

static int lsizes(void *ctx, const struct st_run_item *it)
{
    struct lpass *lp = ctx;
    if (lp->l == 0) {
        int rc = sizes(&lp->p, it);
        if (rc) return rc;
        size_t k = lp->p.n - 1;
        if ((k & (k - 1)) == 0) {          /* grow at powers of two */
            size_t cap = k ? 2 * k : 1;
            lp->ordinal = sp_xrealloc(lp->ordinal, sizeof *lp->ordinal * cap);
            lp->hash = sp_xrealloc(lp->hash, sizeof *lp->hash * cap);
            lp->ntok = sp_xrealloc(lp->ntok, sizeof *lp->ntok * cap);
        }
        lp->ordinal[k] = it->ordinal;
        snprintf(lp->hash[k], sizeof lp->hash[k], "%s", it->hash);
        lp->ntok[k] = it->n_tokens;
        return 0;
    }
    size_t k = lp->k++;
    if (k >= lp->p.n || lp->ordinal[k] != it->ordinal || strcmp(lp->hash[k], it->hash) || lp->ntok[k] != it->n_tokens ||
        it->dim != lp->p.dim || (lp->p.what == 2 && it->tok_dim != lp->p.tok_dim)) {
        snprintf(lp->p.err, sizeof lp->p.err, "run '%s' does not hold the items of the first layer run (item %lld differs): "
                 "encode them with the same inputs (encode --layers)", lp->run, (long long)it->ordinal);
        return SP_EPARSE;
    }
    return 0;
}

static int lrows(void *ctx, const struct st_run_item *it)
{
    struct lpass *lp = ctx;
    struct pass *p = &lp->p;
    size_t L = (size_t)lp->n_runs, l = (size_t)lp->l;
    int bad = 0;
    if (p->what == 1) {
        bad = fseek(p->f, lp->hdr + (long)(((lp->k * L) + l) * (size_t)p->dim * 4), SEEK_SET) ||
              put_f32(p->f, it->vec, (size_t)it->dim);
    } else {
        size_t td = (size_t)p->tok_dim;
        for (size_t i = 0; !bad && i < (size_t)it->n_tokens; i++)
            bad = fseek(p->f, lp->hdr + (long)((((lp->tok_base + i) * L) + l) * td * 4), SEEK_SET) ||
                  put_f32(p->f, it->tok + i * td, td);
        if (lp->l == 0) p->lengths[lp->k] = it->n_tokens;
        lp->tok_base += (size_t)it->n_tokens;
    }
    lp->k++;
    if (bad) { snprintf(p->err, sizeof p->err, "write error"); return SP_EIO; }
    return 0;
}

static int export_layers(struct stg_ctx *ctx, const struct stg_export_encoded_opts *o, struct st_db *db, struct lpass *lp,
                         struct stg_export_encoded_result *r)
{
    struct pass *p = &lp->p;
    char err[SP_ERRLEN * 2];
    int rc = SP_OK;
    for (int l = 0; !rc && l < o->n_layer_runs; l++) {    /* each run: what it is, then its items */
        const char *run = o->layer_runs[l];
        struct st_run_info info = { 0 };
        if ((rc = st_run_info(db, run, &info, err, sizeof err))) rc = stg_fail(ctx, rc == SP_EUSAGE ? SP_EPARSE : rc, "%s", err);
        else if (o->corpus && (!info.corpus || strcmp(o->corpus, info.corpus)))
            rc = stg_fail(ctx, SP_EPARSE, "run '%s' encodes %s %s, not corpus %s", run, info.corpus ? "corpus" : "task",
                          info.corpus ? info.corpus : info.task, o->corpus);
        else if (p->what == 2 && !info.token_vectors)
            rc = stg_fail(ctx, SP_EPARSE, "%s: run '%s' has no token vectors: re-run encode --layers with --token-vectors",
                          o->db, run);
        if (!rc) {
            lp->l = l;
            lp->k = 0;
            lp->run = run;
            rc = st_run_items(db, run, 0, lsizes, lp, err, sizeof err);
            if (rc) rc = stg_fail(ctx, rc == SP_EUSAGE ? SP_EPARSE : rc, "%s", rc == SP_EPARSE && p->err[0] ? p->err : err);
            else if (l == 0 && !p->n) rc = stg_fail(ctx, SP_EPARSE, "run '%s' has no items", run);
            else if (l > 0 && lp->k != p->n)
                rc = stg_fail(ctx, SP_EPARSE, "run '%s' holds %zu items, the first layer run %zu: encode them with the same "
                              "inputs (encode --layers)", run, lp->k, p->n);
            if (!rc && l == 0) warn_missing(ctx, db, &info, p->n);
        }
        st_run_info_free(&info);
    }
    if (rc) return rc;
    struct sp_out o_main = { 0 }, o_len = { 0 };
    if ((rc = sp_out_open(&o_main, o->out, ctx->err, sizeof ctx->err))) goto out;
    p->f = o_main.f;
    size_t shape[3] = { p->what == 1 ? p->n : p->total_tokens, (size_t)o->n_layer_runs,
                        (size_t)(p->what == 1 ? p->dim : p->tok_dim) };
    if (p->what == 2) p->lengths = sp_xmalloc(sizeof(int32_t) * p->n);
    if (sp_npy_write_header(p->f, SP_DT_F32, 3, shape) || (lp->hdr = ftell(p->f)) < 0) {
        rc = stg_fail(ctx, SP_EIO, "%s: write error", o->out);
        goto out;
    }
    for (int l = 0; !rc && l < o->n_layer_runs; l++) {
        lp->l = l;
        lp->k = lp->tok_base = 0;
        rc = st_run_items(db, o->layer_runs[l], p->what == 1 ? ST_RUN_VEC : ST_RUN_TOK, lrows, lp, err, sizeof err);
        if (rc) rc = stg_fail(ctx, rc == SP_EUSAGE ? SP_EPARSE : rc, "%s", p->err[0] ? p->err : err);
        else if (lp->k != p->n) rc = stg_fail(ctx, SP_EPARSE, "run '%s' changed while exporting", o->layer_runs[l]);
    }
    if (!rc && p->what == 2) rc = write_lengths(ctx, o, p, &o_len, &r->lengths_path);
    if (!rc && fseek(p->f, 0, SEEK_END)) rc = stg_fail(ctx, SP_EIO, "%s: write error", o->out);
    if (!rc) rc = sp_out_commit(&o_main, ctx->err, sizeof ctx->err);
    if (!rc && r->lengths_path) rc = sp_out_commit(&o_len, ctx->err, sizeof ctx->err);
    if (!rc) r->rows = p->n;
out:
    sp_out_abort(&o_main);
    sp_out_abort(&o_len);
    return rc;
}

int stg_export_encoded_layers(struct stg_ctx *ctx, const struct stg_export_encoded_opts *o, struct stg_export_encoded_result *r)
{
    memset(r, 0, sizeof *r);
    if (o->what == STG_EXPORT_ATTENTION)
        return stg_fail(ctx, SP_EUSAGE, "--layers: --what vectors or tokens (attention is exported one run at a time)");
    if (!o->out) return stg_fail(ctx, SP_EUSAGE, "--layers needs --out FILE.npy (binary output)");
    struct lpass lp = { .p = { .what = o->what + 1 }, .n_runs = o->n_layer_runs };
    struct st_db *db = NULL;
    char err[SP_ERRLEN];
    int rc = st_open(o->db, ST_OPEN_READONLY, &db, err, sizeof err);
    if (rc) rc = stg_fail(ctx, rc == SP_EUSAGE ? SP_EPARSE : rc, "%s", err);
    else rc = export_layers(ctx, o, db, &lp, r);
    free(lp.p.lengths);
    free(lp.ordinal);
    free(lp.hash);
    free(lp.ntok);
    st_close(db);
    if (rc == SP_OK)
        sp_log(ctx->log, SP_LOG_DEBUG, "export: %zu rows of %d layer runs to %s", r->rows, o->n_layer_runs, o->out);
    return rc;
}

void stg_export_encoded_result_free(struct stg_export_encoded_result *r)
{
    free(r->lengths_path);
    r->lengths_path = NULL;
}
