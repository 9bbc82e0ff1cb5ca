/* cli/cmd_export_encoded.c — `synprobe export --what vectors|tokens|attention --run R`:
 * an encoder run's cached outputs as NumPy files (cmd_export.c calls export_encoded).
 *
 * Rows are the run's items in ordinal order: corpus order for --corpus runs, task file order
 * for --task runs. Sentences the encode skipped have no row (a warning says how many).
 *   --what vectors    float32 (n_items, dim)
 *   --what tokens     float32 (total_tokens, tok_dim): the items' token vectors one after the
 *                     other, plus FILE.lengths.npy (FILE without its .npy) int32 (n_items,) with
 *                     each item's token count. Flat rather than padded (n, L, d): a padded array
 *                     grows with the longest sentence (PTB: ~6x the data at d = 512); numpy
 *                     gets per-sentence blocks with np.split(tok, np.cumsum(lengths)[:-1]).
 *   --what attention  float32 (n_items, L, L), L = the longest item, zero-padded: the layout
 *                     `synprobe trees --attention` reads (row = query word, column = key).
 * Files are written as a stream (two passes over the run: sizes, then data), so memory stays at
 * one item whatever the run's size; the header is numpy.save's (version 1.0, 64-byte aligned). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/npy.h"
#include "common/sp.h"
#include "cli/cli.h"
#include "cli/export.h"
#include "store/runs.h"
#include "store/store.h"

#define CMD "export"

static int put_f32(FILE *f, const float *v, size_t n) { return fwrite(v, 4, n, f) == n ? 0 : -1; }

struct pass {
    int what;                  /* 1 vectors, 2 tokens, 3 attention */
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

int export_encoded(const char *db_path, const char *corpus, const char *what, const char *fmt, const char *out_path,
                   const char *run)
{
    if (!fmt) fmt = "npy";
    struct pass p = { 0 };
    p.what = !strcmp(what, "vectors") ? 1 : !strcmp(what, "tokens") ? 2 : 3;
    if (!run) return cli_fail(SP_EXIT_USAGE, CMD, "--what %s needs --run NAME (an encoder run)", what);
    if (strcmp(fmt, "npy")) return cli_fail(SP_EXIT_USAGE, CMD, "--what %s is written as npy only, not '%s'", what, fmt);
    if (!out_path) return cli_fail(SP_EXIT_USAGE, CMD, "--what %s needs --out FILE.npy (binary output)", what);

    char err[SP_ERRLEN * 2];
    struct st_db *db = NULL;
    struct st_run_info info = { 0 };
    int status = SP_EXIT_INPUT;
    char *len_path = NULL;
    struct sp_out o_main = { 0 }, o_len = { 0 };
    if (st_open(db_path, ST_OPEN_READONLY, &db, err, sizeof err) || st_run_info(db, run, &info, err, sizeof err)) {
        cli_fail(SP_EXIT_INPUT, CMD, "%s", err);
        goto out;
    }
    if (corpus && (!info.corpus || strcmp(corpus, info.corpus))) {
        cli_fail(SP_EXIT_INPUT, CMD, "run '%s' encodes %s %s, not corpus %s", run, info.corpus ? "corpus" : "task",
                info.corpus ? info.corpus : info.task, corpus);
        goto out;
    }
    unsigned part = p.what == 1 ? ST_RUN_VEC : p.what == 2 ? ST_RUN_TOK : ST_RUN_ATTN;
    /* pass 1: sizes (and the "re-run encode with ..." errors before any file is created) */
    int rc = st_run_items(db, run, 0, sizes, &p, err, sizeof err);
    if (!rc && p.what == 2 && !info.token_vectors)
        rc = (snprintf(err, sizeof err, "%s: run '%s' has no token vectors: re-run encode with --token-vectors", db_path, run), SP_EPARSE);
    if (!rc && p.what == 3 && info.attn_layer < 0)
        rc = (snprintf(err, sizeof err, "%s: run '%s' has no attention maps: re-run encode with --attention LAYER", db_path, run), SP_EPARSE);
    if (rc) { cli_fail(SP_EXIT_INPUT, CMD, "%s", rc == SP_EPARSE && p.err[0] ? p.err : err); goto out; }
    if (!p.n) { cli_fail(SP_EXIT_INPUT, CMD, "run '%s' has no items", run); goto out; }
    if (info.corpus_id) {            /* skipped sentences anywhere, the last ones included */
        sqlite3_stmt *q;
        int64_t in_corpus = 0;
        if (sqlite3_prepare_v2(st_handle(db), "SELECT count(*) FROM sentence WHERE corpus_id = ?1", -1, &q, NULL) == SQLITE_OK) {
            sqlite3_bind_int64(q, 1, info.corpus_id);
            if (sqlite3_step(q) == SQLITE_ROW) in_corpus = sqlite3_column_int64(q, 0);
            sqlite3_finalize(q);
        }
        if (in_corpus > (int64_t)p.n)
            fprintf(stderr, "synprobe export: warning: %lld of the %lld sentences of corpus %s are not in run '%s' "
                    "(skipped by encode); rows do not line up with the corpus\n", (long long)(in_corpus - (int64_t)p.n),
                    (long long)in_corpus, info.corpus, run);
    }

    /* both files are written to temporaries and renamed into place only once both are complete */
    if (sp_out_open(&o_main, out_path, err, sizeof err)) { cli_fail(SP_EXIT_INPUT, CMD, "%s", err); goto out; }
    p.f = o_main.f;
    size_t shape[3];
    int ndim;
    if (p.what == 1) { shape[0] = p.n; shape[1] = (size_t)p.dim; ndim = 2; }
    else if (p.what == 2) { shape[0] = p.total_tokens; shape[1] = (size_t)p.tok_dim; ndim = 2; }
    else { shape[0] = p.n; shape[1] = shape[2] = p.max_n; ndim = 3; }
    if (p.what == 2) p.lengths = sp_xmalloc(sizeof(int32_t) * p.n);
    if (p.what == 3) p.row = sp_xmalloc(sizeof(float) * (p.max_n ? p.max_n : 1));
    if (sp_npy_write_header(p.f, SP_DT_F32, ndim, shape)) rc = (snprintf(err, sizeof err, "%s: write error", out_path), SP_EIO);
    if (!rc) rc = st_run_items(db, run, part, rows, &p, err, sizeof err);
    if (!rc && p.k != p.n) rc = (snprintf(err, sizeof err, "run '%s' changed while exporting", run), SP_EPARSE);
    if (rc) { cli_fail(SP_EXIT_INPUT, CMD, "%s", p.err[0] ? p.err : err); goto out; }
    if (p.what == 2) {
        size_t L = strlen(out_path);
        if (L > 4 && !strcmp(out_path + L - 4, ".npy")) L -= 4;
        len_path = sp_xmalloc(L + 16);
        memcpy(len_path, out_path, L);
        strcpy(len_path + L, ".lengths.npy");
        size_t ls = p.n;
        if (sp_out_open(&o_len, len_path, err, sizeof err)) { cli_fail(SP_EXIT_INPUT, CMD, "%s", err); goto out; }
        if (sp_npy_write_header(o_len.f, SP_DT_I32, 1, &ls) || fwrite(p.lengths, sizeof(int32_t), p.n, o_len.f) != p.n) {
            cli_fail(SP_EXIT_INPUT, CMD, "%s: write error", len_path);
            goto out;
        }
    }
    if (sp_out_commit(&o_main, err, sizeof err)) { cli_fail(SP_EXIT_INPUT, CMD, "%s", err); goto out; }
    if (len_path) {
        if (sp_out_commit(&o_len, err, sizeof err)) { cli_fail(SP_EXIT_INPUT, CMD, "%s", err); goto out; }
        fprintf(stderr, "synprobe " CMD ": sentence lengths written to %s\n", len_path);   /* a second file: say so */
    }
    status = SP_EXIT_OK;
out:
    sp_out_abort(&o_main);      /* no-ops after a commit */
    sp_out_abort(&o_len);
    free(len_path);
    free(p.lengths);
    free(p.row);
    st_run_info_free(&info);
    st_close(db);
    return status;
}
