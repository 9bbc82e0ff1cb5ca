/* store/st_info.c — the store summary behind `synprobe info` (store/st_info.h). */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "common/sp.h"
#include "store/st_info.h"
#include "store/st_int.h"

/* One row of numbers per corpus, columns in enum st_info_col order after the name. */
static const char *const sql_corpora =
    "SELECT c.name, "
    " (SELECT count(*) FROM source s WHERE s.corpus_id = c.corpus_id), "
    " (SELECT count(*) FROM sentence s WHERE s.corpus_id = c.corpus_id), "
    " (SELECT coalesce(sum(n_words), 0) FROM sentence s WHERE s.corpus_id = c.corpus_id), "
    " (SELECT count(*) FROM sentence s JOIN dep_structure d USING (sentence_id) WHERE s.corpus_id = c.corpus_id), "
    " (SELECT count(*) FROM sentence s JOIN const_structure k USING (sentence_id) WHERE s.corpus_id = c.corpus_id), "
    " (SELECT count(*) FROM sentence s WHERE s.corpus_id = c.corpus_id AND s.dep_source_id IS NOT NULL "
    "      AND s.const_source_id IS NOT NULL), "
    " (SELECT count(*) FROM quarantine q JOIN source s USING (source_id) WHERE s.corpus_id = c.corpus_id), "
    " (SELECT max(max_depth) FROM sentence s JOIN dep_structure d USING (sentence_id) WHERE s.corpus_id = c.corpus_id), "
    " (SELECT count(*) FROM sentence s JOIN dep_structure d USING (sentence_id) WHERE s.corpus_id = c.corpus_id AND NOT d.projective), "
    " (SELECT min(tree_depth) FROM sentence s JOIN const_structure k USING (sentence_id) WHERE s.corpus_id = c.corpus_id), "
    " (SELECT max(tree_depth) FROM sentence s JOIN const_structure k USING (sentence_id) WHERE s.corpus_id = c.corpus_id), "
    " (SELECT max(n_words) FROM sentence s WHERE s.corpus_id = c.corpus_id), "
    " (SELECT count(*) FROM sentence s WHERE s.corpus_id = c.corpus_id AND s.warn != 0) "
    "FROM corpus c WHERE ?1 IS NULL OR c.name = ?1 ORDER BY c.corpus_id";

static const char *const sql_counts =
    "SELECT (SELECT count(*) FROM task), (SELECT count(*) FROM run), "
    "(SELECT count(*) FROM probe_result), (SELECT count(*) FROM tree_eval)";

static const char *const sql_runs =
    "SELECT r.name, e.kind, coalesce('corpus ' || c.name, 'task ' || t.name, '?'), "
    "(SELECT count(*) FROM run_item i WHERE i.run_id = r.run_id), "
    "coalesce(json_extract(r.manifest, '$.device'), '?'), r.created "
    "FROM run r JOIN encoder e USING (encoder_id) LEFT JOIN corpus c ON c.corpus_id = r.corpus_id "
    "LEFT JOIN task t ON t.task_id = r.task_id ORDER BY r.run_id";

/* Each table's pages with its indexes' (an index's dbstat row names the index; sqlite_schema
 * says its table; sqlite_schema itself has no row there). Aggregate mode: one row per b-tree. */
static const char *const sql_tables =
    "SELECT coalesce(m.tbl_name, d.name) AS t, sum(d.pgsize) FROM dbstat('main', 1) d "
    "LEFT JOIN sqlite_schema m ON m.name = d.name GROUP BY t ORDER BY 2 DESC, 1";

static const char *const sql_vectors =
    "SELECT e.store_dtype, e.dim, count(DISTINCT e.encoder_id), count(*), coalesce(sum(length(v.data)), 0), "
    "coalesce(sum(CASE WHEN v.tokens IS NOT NULL THEN v.n_tokens END), 0), coalesce(sum(length(v.tokens)), 0), "
    "(SELECT coalesce(sum(length(a.data)), 0) FROM attention a JOIN encoder x USING (encoder_id) "
    " WHERE x.store_dtype = e.store_dtype AND x.dim = e.dim) "
    "FROM vector v JOIN encoder e USING (encoder_id) GROUP BY e.store_dtype, e.dim ORDER BY e.store_dtype DESC, e.dim";

static char *col_str(sqlite3_stmt *q, int k)
{
    const char *s = (const char *)sqlite3_column_text(q, k);
    return sp_xstrdup(s ? s : "");
}

static int read_corpora(struct st_db *db, const char *corpus, struct st_info *out, char *err, size_t errlen)
{
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(db->h, sql_corpora, -1, &q, NULL) != SQLITE_OK) return st_sqlerr(db, "summary", err, errlen);
    if (corpus) sqlite3_bind_text(q, 1, corpus, -1, SQLITE_STATIC);
    int r, cap = 0;
    while ((r = sqlite3_step(q)) == SQLITE_ROW) {
        if (out->n_corpora == cap) {
            cap = cap ? 2 * cap : 8;
            out->corpora = sp_xrealloc(out->corpora, sizeof *out->corpora * (size_t)cap);
        }
        struct st_info_corpus *c = &out->corpora[out->n_corpora++];
        c->name = col_str(q, 0);
        for (int k = 0; k < ST_INFO_NCOLS; k++) {
            c->null[k] = sqlite3_column_type(q, k + 1) == SQLITE_NULL;
            c->v[k] = sqlite3_column_int64(q, k + 1);
        }
    }
    sqlite3_finalize(q);
    return r == SQLITE_DONE ? SP_OK : st_sqlerr(db, "summary", err, errlen);
}

static int read_work(struct st_db *db, struct st_info *out, char *err, size_t errlen)
{
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(db->h, sql_counts, -1, &q, NULL) != SQLITE_OK) return st_sqlerr(db, "counts", err, errlen);
    if (sqlite3_step(q) == SQLITE_ROW) {
        out->tasks = sqlite3_column_int64(q, 0);
        out->runs = sqlite3_column_int64(q, 1);
        out->probe_results = sqlite3_column_int64(q, 2);
        out->tree_evals = sqlite3_column_int64(q, 3);
    }
    sqlite3_finalize(q);
    if (sqlite3_prepare_v2(db->h, sql_runs, -1, &q, NULL) != SQLITE_OK) return st_sqlerr(db, "runs", err, errlen);
    int r, cap = 0;
    while ((r = sqlite3_step(q)) == SQLITE_ROW) {
        if (out->n_runs == cap) {
            cap = cap ? 2 * cap : 8;
            out->run = sp_xrealloc(out->run, sizeof *out->run * (size_t)cap);
        }
        struct st_info_run *x = &out->run[out->n_runs++];
        *x = (struct st_info_run){ col_str(q, 0), col_str(q, 1), col_str(q, 2), col_str(q, 4), col_str(q, 5),
                                   sqlite3_column_int64(q, 3) };
    }
    sqlite3_finalize(q);
    return r == SQLITE_DONE ? SP_OK : st_sqlerr(db, "runs", err, errlen);
}

static int pragma64(struct st_db *db, const char *sql, int64_t *v, char *err, size_t errlen)
{
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(db->h, sql, -1, &q, NULL) != SQLITE_OK) return st_sqlerr(db, "sizes", err, errlen);
    int r = sqlite3_step(q);
    if (r == SQLITE_ROW) *v = sqlite3_column_int64(q, 0);
    sqlite3_finalize(q);
    return r == SQLITE_ROW ? SP_OK : st_sqlerr(db, "sizes", err, errlen);
}

static int read_tables(struct st_db *db, struct st_info_sizes *z, char *err, size_t errlen)
{
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(db->h, sql_tables, -1, &q, NULL) != SQLITE_OK) return st_sqlerr(db, "dbstat", err, errlen);
    int r, cap = 0;
    while ((r = sqlite3_step(q)) == SQLITE_ROW) {
        if (z->n_tables == cap) { cap = cap ? 2 * cap : 32; z->table = sp_xrealloc(z->table, sizeof *z->table * (size_t)cap); }
        z->table[z->n_tables++] = (struct st_info_table){ col_str(q, 0), sqlite3_column_int64(q, 1) };
    }
    sqlite3_finalize(q);
    return r == SQLITE_DONE ? SP_OK : st_sqlerr(db, "dbstat", err, errlen);
}

static int read_vectors(struct st_db *db, struct st_info_sizes *z, char *err, size_t errlen)
{
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(db->h, sql_vectors, -1, &q, NULL) != SQLITE_OK) return st_sqlerr(db, "vector sizes", err, errlen);
    int r, cap = 0;
    while ((r = sqlite3_step(q)) == SQLITE_ROW) {
        if (z->n_vec == cap) { cap = cap ? 2 * cap : 4; z->vec = sp_xrealloc(z->vec, sizeof *z->vec * (size_t)cap); }
        struct st_info_vectors *v = &z->vec[z->n_vec++];
        memset(v, 0, sizeof *v);
        snprintf(v->dtype, sizeof v->dtype, "%s", (const char *)sqlite3_column_text(q, 0));
        v->dim = sqlite3_column_int(q, 1);
        v->encoders = sqlite3_column_int64(q, 2);
        v->sentences = sqlite3_column_int64(q, 3);
        v->vec_bytes = sqlite3_column_int64(q, 4);
        v->tokens = sqlite3_column_int64(q, 5);
        v->tok_bytes = sqlite3_column_int64(q, 6);
        v->attn_bytes = sqlite3_column_int64(q, 7);
    }
    sqlite3_finalize(q);
    return r == SQLITE_DONE ? SP_OK : st_sqlerr(db, "vector sizes", err, errlen);
}

/* The file's pages, per table when dbstat is there, and the encoded vectors' bytes */
static int read_sizes(struct st_db *db, struct st_info_sizes *z, char *err, size_t errlen)
{
    int rc = pragma64(db, "PRAGMA page_size", &z->page_size, err, errlen);
    if (!rc) rc = pragma64(db, "PRAGMA page_count", &z->pages, err, errlen);
    if (!rc) rc = pragma64(db, "PRAGMA freelist_count", &z->free_pages, err, errlen);
    z->dbstat = sqlite3_compileoption_used("ENABLE_DBSTAT_VTAB");
    if (!rc && z->dbstat) rc = read_tables(db, z, err, errlen);
    if (!rc) rc = read_vectors(db, z, err, errlen);
    return rc;
}

int st_info_summary(struct st_db *db, const char *corpus, int work, struct st_info *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    int rc = read_corpora(db, corpus, out, err, errlen);
    if (rc == SP_OK && work) rc = read_work(db, out, err, errlen);
    if (rc == SP_OK && work) rc = read_sizes(db, &out->sizes, err, errlen);
    if (rc != SP_OK) st_info_free(out);
    return rc;
}

void st_info_free(struct st_info *in)
{
    for (int i = 0; i < in->n_corpora; i++) free(in->corpora[i].name);
    for (int i = 0; i < in->n_runs; i++) {
        struct st_info_run *x = &in->run[i];
        free(x->name); free(x->encoder); free(x->source); free(x->device); free(x->created);
    }
    for (int i = 0; i < in->sizes.n_tables; i++) free(in->sizes.table[i].name);
    free(in->sizes.table);
    free(in->sizes.vec);
    free(in->corpora);
    free(in->run);
    memset(in, 0, sizeof *in);
}

int st_info_histogram(struct st_db *db, const char *corpus, enum st_hist h, int64_t *counts, int n_bins, char *err,
                      size_t errlen)
{
    static const char *const sql[] = {
        "SELECT s.n_words, count(*) FROM sentence s JOIN corpus c USING (corpus_id) WHERE c.name = ?1 GROUP BY 1",
        "SELECT d.max_depth, count(*) FROM dep_structure d JOIN sentence s USING (sentence_id) JOIN corpus c USING (corpus_id)"
        " WHERE c.name = ?1 GROUP BY 1",
    };
    sqlite3_stmt *q;
    memset(counts, 0, sizeof *counts * (size_t)n_bins);
    if (sqlite3_prepare_v2(db->h, sql[h], -1, &q, NULL) != SQLITE_OK) return st_sqlerr(db, "histogram", err, errlen);
    sqlite3_bind_text(q, 1, corpus, -1, SQLITE_TRANSIENT);
    int r;
    while ((r = sqlite3_step(q)) == SQLITE_ROW) {
        int64_t v = sqlite3_column_int64(q, 0);
        counts[v < 0 ? 0 : v >= n_bins ? n_bins - 1 : v] += sqlite3_column_int64(q, 1);
    }
    sqlite3_finalize(q);
    return r == SQLITE_DONE ? SP_OK : st_sqlerr(db, "histogram", err, errlen);
}
