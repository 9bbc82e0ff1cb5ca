/* store/st_runs.c — encoders, runs, cached vectors/token vectors/attention maps (store/st_runs.h). */
#include <stdlib.h>
#include <string.h>

#include "common/sp.h"
#include "store/st_runs.h"
#include "store/st_int.h"

static int prep(struct st_db *db, const char *sql, sqlite3_stmt **q, const char *what, char *err, size_t errlen)
{
    if (sqlite3_prepare_v2(db->h, sql, -1, q, NULL) != SQLITE_OK) return st_sqlerr(db, what, err, errlen);
    return SP_OK;
}

int st_encoder_upsert(struct st_db *db, const struct st_encoder *enc, int64_t *id, char *err, size_t errlen)
{
    sqlite3_stmt *q = NULL;
    *id = 0;
    if (st_no_read_open(db, err, errlen)) return SP_ESTORE;
    /* DO UPDATE (a no-op) rather than DO NOTHING so RETURNING yields the existing row's id too */
    if (prep(db, "INSERT INTO encoder (fingerprint, kind, config, dim, store_dtype) VALUES (?1, ?2, ?3, ?4, ?5) "
                 "ON CONFLICT (fingerprint) DO UPDATE SET fingerprint = excluded.fingerprint RETURNING encoder_id, store_dtype",
             &q, "encoder", err, errlen))
        return SP_ESTORE;
    sqlite3_bind_text(q, 1, enc->fingerprint, -1, SQLITE_STATIC);
    sqlite3_bind_text(q, 2, enc->kind, -1, SQLITE_STATIC);
    sqlite3_bind_text(q, 3, enc->config, -1, SQLITE_STATIC);
    sqlite3_bind_int(q, 4, enc->dim);
    sqlite3_bind_text(q, 5, sp_stype_name(enc->dtype), -1, SQLITE_STATIC);
    int r = sqlite3_step(q), rc = SP_OK;
    if (r == SQLITE_ROW) {
        *id = sqlite3_column_int64(q, 0);
        const char *had = (const char *)sqlite3_column_text(q, 1);
        if (had && strcmp(had, sp_stype_name(enc->dtype))) {   /* one row, one element type: never mixed */
            snprintf(err, errlen, "%s: encoder %s stores its vectors as %s, not %s", db->path, enc->fingerprint, had,
                     sp_stype_name(enc->dtype));
            *id = 0;
            rc = SP_EEXIST;
        }
    } else {
        rc = st_sqlerr(db, "encoder", err, errlen);
    }
    sqlite3_finalize(q);
    return rc;
}

/* name of a corpus or task by id, for messages */
static void source_name(struct st_db *db, int64_t corpus_id, int64_t task_id, char *out, size_t len)
{
    sqlite3_stmt *q = NULL;
    snprintf(out, len, "?");
    const char *sql = corpus_id ? "SELECT 'corpus ' || name FROM corpus WHERE corpus_id = ?1"
                                : "SELECT 'task ' || name FROM task WHERE task_id = ?1";
    if (sqlite3_prepare_v2(db->h, sql, -1, &q, NULL) != SQLITE_OK) return;
    sqlite3_bind_int64(q, 1, corpus_id ? corpus_id : task_id);
    if (sqlite3_step(q) == SQLITE_ROW) snprintf(out, len, "%s", (const char *)sqlite3_column_text(q, 0));
    sqlite3_finalize(q);
}

/* The error for run spec->name made by another encoder: both fingerprints (old_fp: the run's) */
static int other_encoder(struct st_db *db, const struct st_run_spec *spec, const char *old_fp, char *err, size_t errlen)
{
    sqlite3_stmt *f = NULL;
    char new_fp[80] = "?";
    if (sqlite3_prepare_v2(db->h, "SELECT fingerprint FROM encoder WHERE encoder_id = ?1", -1, &f, NULL) == SQLITE_OK) {
        sqlite3_bind_int64(f, 1, spec->encoder_id);
        if (sqlite3_step(f) == SQLITE_ROW) snprintf(new_fp, sizeof new_fp, "%s", (const char *)sqlite3_column_text(f, 0));
        sqlite3_finalize(f);
    }
    snprintf(err, errlen, "%s: run '%s' was made by encoder %s; this encoder is %s "
             "(choose another --run name)", db->path, spec->name, old_fp, new_fp);
    return SP_EEXIST;
}

/* The run of that name, if any (*id, else 0): it must be of the same encoder and source */
static int find_run(struct st_db *db, const struct st_run_spec *spec, int64_t *id, char *err, size_t errlen)
{
    sqlite3_stmt *q = NULL;
    int rc = prep(db, "SELECT r.run_id, r.encoder_id, e.fingerprint, coalesce(r.corpus_id, 0), coalesce(r.task_id, 0) "
                      "FROM run r JOIN encoder e ON e.encoder_id = r.encoder_id WHERE r.name = ?1",
                  &q, "run lookup", err, errlen);
    if (rc) return rc;
    sqlite3_bind_text(q, 1, spec->name, -1, SQLITE_STATIC);
    int r = sqlite3_step(q);
    if (r == SQLITE_ROW) {
        *id = sqlite3_column_int64(q, 0);
        int64_t old_enc = sqlite3_column_int64(q, 1), old_c = sqlite3_column_int64(q, 3), old_t = sqlite3_column_int64(q, 4);
        if (old_enc != spec->encoder_id) {
            char *old_fp = sp_xstrdup((const char *)sqlite3_column_text(q, 2));
            rc = other_encoder(db, spec, old_fp, err, errlen);
            free(old_fp);
        } else if (old_c != spec->corpus_id || old_t != spec->task_id) {
            char a[300], b[300];
            source_name(db, old_c, old_t, a, sizeof a);
            source_name(db, spec->corpus_id, spec->task_id, b, sizeof b);
            snprintf(err, errlen, "%s: run '%s' encodes %s, not %s (choose another --run name)",
                     db->path, spec->name, a, b);
            rc = SP_EEXIST;
        }
    } else if (r != SQLITE_DONE) {
        rc = st_sqlerr(db, "run lookup", err, errlen);
    }
    sqlite3_finalize(q);
    return rc;
}

/* An existing run records what this encoding caches (token vectors, attention layer) */
static int update_run(struct st_db *db, const struct st_run_spec *spec, int64_t id, char *err, size_t errlen)
{
    sqlite3_stmt *q = NULL;
    int rc = prep(db, "UPDATE run SET token_vectors = ?2, attn_layer = ?3 WHERE run_id = ?1", &q, "run update", err, errlen);
    if (rc) return rc;
    sqlite3_bind_int64(q, 1, id);
    sqlite3_bind_int(q, 2, spec->token_vectors != 0);
    if (spec->attn_layer >= 0) sqlite3_bind_int(q, 3, spec->attn_layer); else sqlite3_bind_null(q, 3);
    if (sqlite3_step(q) != SQLITE_DONE) rc = st_sqlerr(db, "run update", err, errlen);
    sqlite3_finalize(q);
    return rc;
}

static int insert_run(struct st_db *db, const struct st_run_spec *spec, int64_t *id, int *created, char *err, size_t errlen)
{
    sqlite3_stmt *q = NULL;
    int rc = prep(db, "INSERT INTO run (name, encoder_id, corpus_id, task_id, token_vectors, attn_layer) "
                      "VALUES (?1, ?2, ?3, ?4, ?5, ?6)", &q, "create run", err, errlen);
    if (rc) return rc;
    sqlite3_bind_text(q, 1, spec->name, -1, SQLITE_STATIC);
    sqlite3_bind_int64(q, 2, spec->encoder_id);
    if (spec->corpus_id) sqlite3_bind_int64(q, 3, spec->corpus_id); else sqlite3_bind_null(q, 3);
    if (spec->task_id) sqlite3_bind_int64(q, 4, spec->task_id); else sqlite3_bind_null(q, 4);
    sqlite3_bind_int(q, 5, spec->token_vectors != 0);
    if (spec->attn_layer >= 0) sqlite3_bind_int(q, 6, spec->attn_layer); else sqlite3_bind_null(q, 6);
    if (sqlite3_step(q) != SQLITE_DONE) rc = st_sqlerr(db, "create run", err, errlen);
    else { *id = sqlite3_last_insert_rowid(db->h); *created = 1; }
    sqlite3_finalize(q);
    return rc;
}

int st_run_begin(struct st_db *db, const struct st_run_spec *spec, int64_t *run_id, int *created,
                 char *err, size_t errlen)
{
    *run_id = 0;
    *created = 0;
    if (!spec->corpus_id == !spec->task_id) {
        snprintf(err, errlen, "%s: run '%s': exactly one of a corpus or a task", db->path, spec->name);
        return SP_EUSAGE;
    }
    if (st_begin_write(db, err, errlen)) return SP_ESTORE;
    int64_t id = 0;
    int rc = find_run(db, spec, &id, err, errlen);
    if (!rc && id) rc = update_run(db, spec, id, err, errlen);
    else if (!rc) rc = insert_run(db, spec, &id, created, err, errlen);
    if (!rc && sqlite3_exec(db->h, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) rc = st_sqlerr(db, "commit", err, errlen);
    if (rc) { sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL); *created = 0; return rc; }
    *run_id = id;
    return SP_OK;
}

int st_vector_cached(struct st_db *db, int64_t encoder_id, const char *hash, int attn_layer, unsigned *have,
                     char *err, size_t errlen)
{
    sqlite3_stmt *q = NULL;
    *have = 0;
    if (prep(db, "SELECT tokens IS NOT NULL, (SELECT count(*) FROM attention a WHERE a.encoder_id = v.encoder_id "
                 "AND a.text_hash = v.text_hash AND a.layer = ?3), (SELECT count(*) FROM attention a WHERE "
                 "a.encoder_id = v.encoder_id AND a.text_hash = v.text_hash AND a.layer = ?4) "
                 "FROM vector v WHERE v.encoder_id = ?1 AND v.text_hash = ?2",
             &q, "vector lookup", err, errlen))
        return SP_ESTORE;
    sqlite3_bind_int64(q, 1, encoder_id);
    sqlite3_bind_text(q, 2, hash, -1, SQLITE_STATIC);
    sqlite3_bind_int(q, 3, attn_layer);
    sqlite3_bind_int(q, 4, ST_ATTN_HEADS_KEY(attn_layer));
    int r = sqlite3_step(q);
    if (r == SQLITE_ROW) {
        *have = ST_RUN_VEC;
        if (sqlite3_column_int(q, 0)) *have |= ST_RUN_TOK;
        if (attn_layer >= 0 && sqlite3_column_int(q, 1)) *have |= ST_RUN_ATTN;
        if (attn_layer >= 0 && sqlite3_column_int(q, 2)) *have |= ST_RUN_HEADS;
    }
    sqlite3_finalize(q);
    if (r != SQLITE_ROW && r != SQLITE_DONE) return st_sqlerr(db, "vector lookup", err, errlen);
    return SP_OK;
}

/* n floats bound as a blob of the encoder's element type (little-endian); f32 on a
 * little-endian host is bound as it is */
static void bind_vec(sqlite3_stmt *q, int col, enum sp_stype t, const float *v, size_t n, void **tmp)
{
    size_t bytes = sp_stype_size(t) * n;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (t == SP_STYPE_F32) { sqlite3_bind_blob64(q, col, v, (sqlite3_uint64)bytes, SQLITE_TRANSIENT); return; }
#endif
    *tmp = sp_xmalloc(bytes ? bytes : 1);
    sp_stype_pack(t, v, n, *tmp);
    sqlite3_bind_blob64(q, col, *tmp, (sqlite3_uint64)bytes, SQLITE_TRANSIENT);
    free(*tmp);
    *tmp = NULL;
}

/* One attention row (layer key `layer`, count n x n maps) through the prepared qa */
static int put_attention(sqlite3_stmt *qa, int64_t encoder_id, enum sp_stype t, const char *hash, int layer, int n_tokens,
                         const float *data, size_t count, void **tmp)
{
    sqlite3_reset(qa);
    sqlite3_bind_int64(qa, 1, encoder_id);
    sqlite3_bind_text(qa, 2, hash, -1, SQLITE_STATIC);
    sqlite3_bind_int(qa, 3, layer);
    sqlite3_bind_int(qa, 4, n_tokens);
    bind_vec(qa, 5, t, data, count, tmp);
    return sqlite3_step(qa) != SQLITE_DONE;
}

/* One input's vector (and token vectors, attention map, per-head maps when it has them) */
static int put_vector(struct st_db *db, sqlite3_stmt *qv, sqlite3_stmt *qa, int64_t encoder_id, enum sp_stype t,
                      const struct st_vector_put *v, void **tmp, char *err, size_t errlen)
{
    sqlite3_reset(qv);
    sqlite3_bind_int64(qv, 1, encoder_id);
    sqlite3_bind_text(qv, 2, v->hash, -1, SQLITE_STATIC);
    sqlite3_bind_int(qv, 3, v->dim);
    bind_vec(qv, 4, t, v->vec, (size_t)v->dim, tmp);
    if (v->tok) {
        bind_vec(qv, 5, t, v->tok, (size_t)v->n_tokens * (size_t)v->tok_dim, tmp);
        sqlite3_bind_int(qv, 7, v->tok_dim);
    } else {
        sqlite3_bind_null(qv, 5);
        sqlite3_bind_null(qv, 7);
    }
    sqlite3_bind_int(qv, 6, v->n_tokens);
    if (sqlite3_step(qv) != SQLITE_DONE) return st_sqlerr(db, "write vectors", err, errlen);
    size_t nn = (size_t)v->n_tokens * (size_t)v->n_tokens;
    if (v->attn && put_attention(qa, encoder_id, t, v->hash, v->attn_layer, v->n_tokens, v->attn, nn, tmp))
        return st_sqlerr(db, "write attention", err, errlen);
    if (v->attn_heads && v->n_heads > 0 &&
        put_attention(qa, encoder_id, t, v->hash, ST_ATTN_HEADS_KEY(v->attn_layer), v->n_tokens, v->attn_heads,
                      (size_t)v->n_heads * nn, tmp))
        return st_sqlerr(db, "write attention heads", err, errlen);
    return 0;
}

static int put_item(struct st_db *db, sqlite3_stmt *qi, int64_t run_id, const struct st_run_item_put *it,
                    char *err, size_t errlen)
{
    sqlite3_reset(qi);
    sqlite3_bind_int64(qi, 1, run_id);
    sqlite3_bind_int64(qi, 2, it->ordinal);
    if (it->sentence_id) sqlite3_bind_int64(qi, 3, it->sentence_id); else sqlite3_bind_null(qi, 3);
    if (it->task_ordinal) sqlite3_bind_int64(qi, 4, it->task_ordinal); else sqlite3_bind_null(qi, 4);
    sqlite3_bind_text(qi, 5, it->hash, -1, SQLITE_STATIC);
    return sqlite3_step(qi) != SQLITE_DONE ? st_sqlerr(db, "write run items", err, errlen) : 0;
}

/* The element type the encoder's outputs are stored in (its row's store_dtype) */
static int encoder_dtype(struct st_db *db, int64_t encoder_id, enum sp_stype *t, char *err, size_t errlen)
{
    sqlite3_stmt *q = NULL;
    *t = SP_STYPE_F32;
    if (prep(db, "SELECT store_dtype FROM encoder WHERE encoder_id = ?1", &q, "encoder type", err, errlen)) return SP_ESTORE;
    sqlite3_bind_int64(q, 1, encoder_id);
    int r = sqlite3_step(q), rc = SP_OK;
    if (r == SQLITE_ROW && sp_stype_parse((const char *)sqlite3_column_text(q, 0), t)) {
        snprintf(err, errlen, "%s: encoder %lld: unknown store_dtype '%s'", db->path, (long long)encoder_id,
                 (const char *)sqlite3_column_text(q, 0));
        rc = SP_EPARSE;
    } else if (r == SQLITE_DONE) {
        snprintf(err, errlen, "%s: no encoder %lld", db->path, (long long)encoder_id);
        rc = SP_EPARSE;
    } else if (r != SQLITE_ROW) {
        rc = st_sqlerr(db, "encoder type", err, errlen);
    }
    sqlite3_finalize(q);
    return rc;
}

/* the writes of st_run_write inside the caller's transaction */
static int run_write_body(struct st_db *db, int64_t run_id, int64_t encoder_id,
                          const struct st_vector_put *vecs, int n_vecs,
                          const struct st_run_item_put *items, int n_items, char *err, size_t errlen)
{
    sqlite3_stmt *qv = NULL, *qa = NULL, *qi = NULL;
    enum sp_stype t;
    int trc = encoder_dtype(db, encoder_id, &t, err, errlen);
    if (trc) return trc;
    /* a fresh vector replaces the cached one; fresh token vectors replace cached ones, absent
     * ones keep what is there (same encoder + same input: the same numbers) */
    int rc = prep(db, "INSERT INTO vector (encoder_id, text_hash, dim, data, tokens, n_tokens, tok_dim) "
                      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT (encoder_id, text_hash) DO UPDATE SET "
                      "dim = excluded.dim, data = excluded.data, n_tokens = excluded.n_tokens, "
                      "tokens = coalesce(excluded.tokens, tokens), tok_dim = coalesce(excluded.tok_dim, tok_dim)",
                  &qv, "write vectors", err, errlen);
    if (!rc) rc = prep(db, "INSERT OR REPLACE INTO attention (encoder_id, text_hash, layer, n, data) VALUES (?1, ?2, ?3, ?4, ?5)",
                       &qa, "write attention", err, errlen);
    if (!rc) rc = prep(db, "INSERT OR REPLACE INTO run_item (run_id, ordinal, sentence_id, task_ordinal, text_hash) "
                           "VALUES (?1, ?2, ?3, ?4, ?5)", &qi, "write run items", err, errlen);
    void *tmp = NULL;
    for (int i = 0; !rc && i < n_vecs; i++) rc = put_vector(db, qv, qa, encoder_id, t, &vecs[i], &tmp, err, errlen);
    for (int i = 0; !rc && i < n_items; i++) rc = put_item(db, qi, run_id, &items[i], err, errlen);
    sqlite3_finalize(qv);
    sqlite3_finalize(qa);
    sqlite3_finalize(qi);
    return rc;
}

int st_run_write(struct st_db *db, int64_t run_id, int64_t encoder_id,
                 const struct st_vector_put *vecs, int n_vecs,
                 const struct st_run_item_put *items, int n_items, char *err, size_t errlen)
{
    struct st_run_write_part p = { run_id, encoder_id, vecs, n_vecs, items, n_items };
    return st_run_write_many(db, &p, 1, err, errlen);
}

int st_run_write_many(struct st_db *db, const struct st_run_write_part *parts, int n_parts, char *err, size_t errlen)
{
    if (st_begin_write(db, err, errlen)) return SP_ESTORE;
    int rc = SP_OK;
    for (int i = 0; !rc && i < n_parts; i++)
        rc = run_write_body(db, parts[i].run_id, parts[i].encoder_id, parts[i].vecs, parts[i].n_vecs, parts[i].items,
                            parts[i].n_items, err, errlen);
    if (!rc && sqlite3_exec(db->h, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) rc = st_sqlerr(db, "commit", err, errlen);
    if (rc) sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
    return rc;
}

int st_run_finish(struct st_db *db, int64_t run_id, const char *manifest,
                  const int64_t *dropped, int n_dropped, char *err, size_t errlen)
{
    sqlite3_stmt *q = NULL;
    if (st_begin_write(db, err, errlen)) return SP_ESTORE;
    int rc = prep(db, "UPDATE run SET manifest = ?2 WHERE run_id = ?1", &q, "run manifest", err, errlen);
    if (!rc) {
        sqlite3_bind_int64(q, 1, run_id);
        sqlite3_bind_text(q, 2, manifest ? manifest : "{}", -1, SQLITE_STATIC);
        if (sqlite3_step(q) != SQLITE_DONE) rc = st_sqlerr(db, "run manifest", err, errlen);
        sqlite3_finalize(q);
        q = NULL;
    }
    if (!rc && n_dropped) {
        rc = prep(db, "DELETE FROM run_item WHERE run_id = ?1 AND ordinal = ?2", &q, "drop run items", err, errlen);
        for (int i = 0; !rc && i < n_dropped; i++) {
            sqlite3_reset(q);
            sqlite3_bind_int64(q, 1, run_id);
            sqlite3_bind_int64(q, 2, dropped[i]);
            if (sqlite3_step(q) != SQLITE_DONE) rc = st_sqlerr(db, "drop run items", err, errlen);
        }
        sqlite3_finalize(q);
    }
    if (!rc && sqlite3_exec(db->h, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) rc = st_sqlerr(db, "commit", err, errlen);
    if (rc) sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
    return rc;
}

int st_run_discard(struct st_db *db, const int64_t *run_ids, int n, char *err, size_t errlen)
{
    if (st_begin_write(db, err, errlen)) return SP_ESTORE;
    static const char *const sql[2] = { "DELETE FROM run_item WHERE run_id = ?1", "DELETE FROM run WHERE run_id = ?1" };
    int rc = SP_OK;
    for (int s = 0; !rc && s < 2; s++) {
        sqlite3_stmt *q = NULL;
        rc = prep(db, sql[s], &q, "discard run", err, errlen);
        for (int i = 0; !rc && i < n; i++) {
            sqlite3_reset(q);
            sqlite3_bind_int64(q, 1, run_ids[i]);
            if (sqlite3_step(q) != SQLITE_DONE) rc = st_sqlerr(db, "discard run", err, errlen);
        }
        sqlite3_finalize(q);
    }
    if (!rc && sqlite3_exec(db->h, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) rc = st_sqlerr(db, "commit", err, errlen);
    if (rc) sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
    return rc;
}

static char *col_dup(sqlite3_stmt *q, int c)
{
    return sqlite3_column_type(q, c) == SQLITE_NULL ? NULL : sp_xstrdup((const char *)sqlite3_column_text(q, c));
}

int st_run_info(struct st_db *db, const char *name, struct st_run_info *info, char *err, size_t errlen)
{
    sqlite3_stmt *q = NULL;
    memset(info, 0, sizeof *info);
    info->attn_layer = -1;
    if (prep(db, "SELECT r.run_id, r.name, r.encoder_id, e.fingerprint, e.kind, e.config, e.dim, "
                 "coalesce(r.corpus_id, 0), c.name, coalesce(r.task_id, 0), t.name, r.token_vectors, r.attn_layer, "
                 "r.manifest, r.created, "
                 "(SELECT count(*) FROM run_item i WHERE i.run_id = r.run_id), "
                 "(SELECT coalesce(max(v.n_tokens), 0) FROM run_item i JOIN vector v ON v.encoder_id = r.encoder_id "
                 " AND v.text_hash = i.text_hash WHERE i.run_id = r.run_id), e.store_dtype "
                 "FROM run r JOIN encoder e ON e.encoder_id = r.encoder_id LEFT JOIN corpus c ON c.corpus_id = r.corpus_id "
                 "LEFT JOIN task t ON t.task_id = r.task_id WHERE r.name = ?1", &q, "run lookup", err, errlen))
        return SP_ESTORE;
    sqlite3_bind_text(q, 1, name, -1, SQLITE_STATIC);
    int r = sqlite3_step(q);
    if (r != SQLITE_ROW) {
        sqlite3_finalize(q);
        if (r != SQLITE_DONE) return st_sqlerr(db, "run lookup", err, errlen);
        snprintf(err, errlen, "%s: no run '%s'", db->path, name);
        return SP_EPARSE;
    }
    info->run_id = sqlite3_column_int64(q, 0);
    info->name = col_dup(q, 1);
    info->encoder_id = sqlite3_column_int64(q, 2);
    info->fingerprint = col_dup(q, 3);
    info->kind = col_dup(q, 4);
    info->config = col_dup(q, 5);
    info->dim = sqlite3_column_int(q, 6);
    info->corpus_id = sqlite3_column_int64(q, 7);
    info->corpus = col_dup(q, 8);
    info->task_id = sqlite3_column_int64(q, 9);
    info->task = col_dup(q, 10);
    info->token_vectors = sqlite3_column_int(q, 11);
    info->attn_layer = sqlite3_column_type(q, 12) == SQLITE_NULL ? -1 : sqlite3_column_int(q, 12);
    info->manifest = col_dup(q, 13);
    info->created = col_dup(q, 14);
    info->count = sqlite3_column_int64(q, 15);
    info->max_tokens = sqlite3_column_int(q, 16);
    const char *dt = (const char *)sqlite3_column_text(q, 17);
    int bad_dt = sp_stype_parse(dt, &info->dtype);
    if (bad_dt) snprintf(err, errlen, "%s: run '%s': its encoder's store_dtype '%s' is none of " SP_STYPE_CHOICES,
                         db->path, name, dt ? dt : "NULL");
    sqlite3_finalize(q);
    if (bad_dt) { st_run_info_free(info); return SP_EPARSE; }
    return SP_OK;
}

void st_run_info_free(struct st_run_info *info)
{
    if (!info) return;
    free(info->name);
    free(info->fingerprint);
    free(info->kind);
    free(info->config);
    free(info->corpus);
    free(info->task);
    free(info->manifest);
    free(info->created);
    memset(info, 0, sizeof *info);
}

/* a blob of n elements of type t widened to an aligned native-order float array; -1 if the
 * size is not n elements */
static int blob_vec(sqlite3_stmt *q, int c, enum sp_stype t, size_t n, float **buf, size_t *cap)
{
    if (sqlite3_column_type(q, c) == SQLITE_NULL) return -1;
    const void *p = sqlite3_column_blob(q, c);
    if ((size_t)sqlite3_column_bytes(q, c) != sp_stype_size(t) * n) return -1;
    if (*cap < n) { free(*buf); *cap = n + n / 2 + 16; *buf = sp_xmalloc(4 * *cap); }
    sp_stype_unpack(t, p, n, *buf);
    return 0;
}

/* The run holds what `what` asks for (token vectors, attention maps); else an error */
static int run_has(struct st_db *db, const char *run, unsigned what, const struct st_run_info *info,
                   char *err, size_t errlen)
{
    if ((what & ST_RUN_TOK) && !info->token_vectors) {
        snprintf(err, errlen, "%s: run '%s' has no token vectors: re-run encode with --token-vectors", db->path, run);
        return SP_EPARSE;
    }
    if ((what & ST_RUN_ATTN) && info->attn_layer < 0) {
        snprintf(err, errlen, "%s: run '%s' has no attention maps: re-run encode with --attention LAYER", db->path, run);
        return SP_EPARSE;
    }
    if ((what & ST_RUN_HEADS) && info->attn_layer < 0) {
        snprintf(err, errlen, "%s: run '%s' has no attention maps: re-run encode with --attention LAYER --heads", db->path, run);
        return SP_EPARSE;
    }
    return SP_OK;
}

/* The query of a run's items; the blobs are selected only when asked, so a metadata walk reads
 * no vector pages */
static void items_sql(unsigned what, char *sql, size_t cap)
{
    snprintf(sql, cap,
             "SELECT i.ordinal, coalesce(i.sentence_id, 0), coalesce(i.task_ordinal, 0), i.text_hash, v.n_tokens, v.dim, "
             "%s, v.tok_dim, %s, %s, %s FROM run_item i "
             "LEFT JOIN vector v ON v.encoder_id = ?2 AND v.text_hash = i.text_hash "
             "LEFT JOIN attention a ON a.encoder_id = ?2 AND a.text_hash = i.text_hash AND a.layer = ?3 "
             "%s WHERE i.run_id = ?1 ORDER BY i.ordinal",
             what & ST_RUN_VEC ? "v.data" : "NULL", what & ST_RUN_TOK ? "v.tokens" : "NULL",
             what & ST_RUN_ATTN ? "a.data" : "NULL", what & ST_RUN_HEADS ? "ah.data" : "NULL",
             what & ST_RUN_HEADS ? "LEFT JOIN attention ah ON ah.encoder_id = ?2 AND ah.text_hash = i.text_hash AND ah.layer = ?4"
                                 : "");
}

/* The arrays an item's blobs are decoded into, reused from item to item */
struct item_bufs { float *vb, *tb, *ab, *hb; size_t vc, tc, ac, hc; };

/* The asked-for arrays of the item at row q into B and it; what is missing, or NULL */
static const char *decode_item(sqlite3_stmt *q, unsigned what, enum sp_stype t, struct st_run_item *it, struct item_bufs *B)
{
    if (sqlite3_column_type(q, 5) == SQLITE_NULL) return "no cached vector";
    if ((what & ST_RUN_VEC) && blob_vec(q, 6, t, (size_t)it->dim, &B->vb, &B->vc)) return "sentence vector of the wrong size";
    if ((what & ST_RUN_TOK) && blob_vec(q, 8, t, (size_t)it->n_tokens * (size_t)it->tok_dim, &B->tb, &B->tc))
        return "token vectors missing (re-run encode with --token-vectors)";
    if ((what & ST_RUN_ATTN) && blob_vec(q, 9, t, (size_t)it->n_tokens * (size_t)it->n_tokens, &B->ab, &B->ac))
        return "attention map missing (re-run encode with --attention)";
    if (what & ST_RUN_HEADS) {
        size_t nn = (size_t)it->n_tokens * (size_t)it->n_tokens, bytes = (size_t)sqlite3_column_bytes(q, 10);
        size_t map = sp_stype_size(t) * nn;
        it->n_heads = sqlite3_column_type(q, 10) == SQLITE_NULL || !nn || bytes % map ? 0 : (int)(bytes / map);
        if (!it->n_heads || blob_vec(q, 10, t, (size_t)it->n_heads * nn, &B->hb, &B->hc))
            return "per-head attention maps missing (re-run encode with --heads)";
    }
    if (what & ST_RUN_VEC) it->vec = B->vb;
    if (what & ST_RUN_TOK) it->tok = B->tb;
    if (what & ST_RUN_ATTN) it->attn = B->ab;
    if (what & ST_RUN_HEADS) it->attn_heads = B->hb;
    return NULL;
}

/* The layer of a run's vectors, for messages: "layer":K of its encoder's canonical JSON (bert,
 * --layer/--layers), else "layers":N (the encoder's last layer, its output); "" when neither */
static void config_layer(const char *config, char *out, size_t len)
{
    const char *p = config ? strstr(config, "\"layer\":") : NULL, *q = config ? strstr(config, "\"layers\":") : NULL;
    if (p) snprintf(out, len, ", layer %d", atoi(p + 8));
    else if (q) snprintf(out, len, ", layer %d (the encoder's last)", atoi(q + 9));
    else out[0] = 0;
}

/* The first NaN or infinite value of what the item holds: SP_EPARSE with err naming the run, its
 * layer, the item and its sentence, the array and the element; else SP_OK. Whatever wrote it (a
 * store from before encode checked its outputs, an f16 store of a version that let overflow
 * become inf, a merged shard, a hand edit), no reader computes on it. */
static int item_finite(struct st_db *db, const struct st_run_info *info, const struct st_run_item *it, char *err, size_t errlen)
{
    size_t nn = (size_t)it->n_tokens * (size_t)it->n_tokens;
    const struct { const char *name; const float *v; size_t len, w; } arr[4] = {
        { "sentence vector", it->vec, (size_t)it->dim, 0 },
        { "token vectors", it->tok, (size_t)it->n_tokens * (size_t)it->tok_dim, (size_t)it->tok_dim },
        { "attention map", it->attn, nn, (size_t)it->n_tokens },
        { "per-head attention maps", it->attn_heads, (size_t)it->n_heads * nn, (size_t)it->n_tokens },
    };
    for (int k = 0; k < 4; k++) {
        long bad = arr[k].v ? sp_first_nonfinite(arr[k].v, arr[k].len) : -1;
        if (bad < 0) continue;
        char el[96], sent[160] = "", layer[48];
        size_t b = (size_t)bad;
        if (k == 0) snprintf(el, sizeof el, "component %zu", b);
        else if (k == 1) snprintf(el, sizeof el, "token %zu, component %zu", b / arr[k].w, b % arr[k].w);
        else if (k == 2) snprintf(el, sizeof el, "[%zu][%zu]", b / arr[k].w, b % arr[k].w);
        else snprintf(el, sizeof el, "head %zu, [%zu][%zu]", b / nn, b % nn / arr[k].w, b % arr[k].w);
        sqlite3_stmt *q = NULL;
        if (it->sentence_id && sqlite3_prepare_v2(db->h, "SELECT sent_id FROM sentence WHERE sentence_id = ?1", -1, &q, NULL) == SQLITE_OK) {
            sqlite3_bind_int64(q, 1, it->sentence_id);
            if (sqlite3_step(q) == SQLITE_ROW) snprintf(sent, sizeof sent, " (sentence %s)", (const char *)sqlite3_column_text(q, 0));
        }
        sqlite3_finalize(q);
        config_layer(info->config, layer, sizeof layer);
        snprintf(err, errlen, "%s: run '%s'%s (%s of %s %s), item %lld%s: %s %s (0-based) is %s; vectors must be finite "
                 "(re-encode the run)", db->path, info->name, layer, info->dtype == SP_STYPE_F32 ? "f32" : sp_stype_name(info->dtype),
                 info->corpus ? "corpus" : "task", info->corpus ? info->corpus : info->task ? info->task : "?",
                 (long long)it->ordinal, sent, arr[k].name, el, sp_nonfinite_kind(arr[k].v[bad]));
        return SP_EPARSE;
    }
    return SP_OK;
}

/* fn on every item of the bound query q in order; stops at fn's first non-zero return */
static int walk_items(struct st_db *db, const struct st_run_info *info, unsigned what, sqlite3_stmt *q,
                      int (*fn)(void *ctx, const struct st_run_item *item), void *ctx, char *err, size_t errlen)
{
    const char *run = info->name;
    enum sp_stype t = info->dtype;
    struct item_bufs B = { 0 };
    int rc = 0, r;
    while ((r = sqlite3_step(q)) == SQLITE_ROW) {
        struct st_run_item it = {
            .ordinal = sqlite3_column_int64(q, 0),
            .sentence_id = sqlite3_column_int64(q, 1),
            .task_ordinal = sqlite3_column_int64(q, 2),
            .hash = (const char *)sqlite3_column_text(q, 3),
            .n_tokens = sqlite3_column_int(q, 4),
            .dim = sqlite3_column_int(q, 5),
            .tok_dim = sqlite3_column_int(q, 7),
        };
        const char *bad = decode_item(q, what, t, &it, &B);
        if (bad) {
            snprintf(err, errlen, "%s: run '%s', item %lld: %s", db->path, run, (long long)it.ordinal, bad);
            rc = SP_EPARSE;
            break;
        }
        if ((rc = item_finite(db, info, &it, err, errlen)) != SP_OK) break;
        if ((rc = fn(ctx, &it)) != 0) break;
    }
    if (!rc && r != SQLITE_DONE) rc = st_sqlerr(db, "run items", err, errlen);
    free(B.vb);
    free(B.tb);
    free(B.ab);
    free(B.hb);
    return rc;
}

int st_run_items(struct st_db *db, const char *run, unsigned what,
                 int (*fn)(void *ctx, const struct st_run_item *item), void *ctx, char *err, size_t errlen)
{
    struct st_run_info info;
    int rc = st_run_info(db, run, &info, err, errlen);
    if (rc) return rc;
    rc = run_has(db, run, what, &info, err, errlen);
    if (rc) { st_run_info_free(&info); return rc; }
    sqlite3_stmt *q = NULL;
    char sql[1280];
    items_sql(what, sql, sizeof sql);
    rc = prep(db, sql, &q, "run items", err, errlen);
    if (!rc) {
        sqlite3_bind_int64(q, 1, info.run_id);
        sqlite3_bind_int64(q, 2, info.encoder_id);
        sqlite3_bind_int(q, 3, info.attn_layer);
        if (what & ST_RUN_HEADS) sqlite3_bind_int(q, 4, ST_ATTN_HEADS_KEY(info.attn_layer));
        rc = walk_items(db, &info, what, q, fn, ctx, err, errlen);
    }
    sqlite3_finalize(q);
    st_run_info_free(&info);
    return rc;
}

int st_task_source(struct st_db *db, const char *task, int64_t *task_id, int64_t *corpus_id,
                   char *err, size_t errlen)
{
    sqlite3_stmt *q = NULL;
    *task_id = *corpus_id = 0;
    if (prep(db, "SELECT task_id, coalesce(corpus_id, 0) FROM task WHERE name = ?1", &q, "task lookup", err, errlen))
        return SP_ESTORE;
    sqlite3_bind_text(q, 1, task, -1, SQLITE_STATIC);
    int r = sqlite3_step(q);
    if (r == SQLITE_ROW) { *task_id = sqlite3_column_int64(q, 0); *corpus_id = sqlite3_column_int64(q, 1); }
    sqlite3_finalize(q);
    if (r == SQLITE_ROW) return SP_OK;
    if (r != SQLITE_DONE) return st_sqlerr(db, "task lookup", err, errlen);
    snprintf(err, errlen, "%s: no task '%s'", db->path, task);
    return SP_EPARSE;
}
