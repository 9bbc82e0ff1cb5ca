/* tests/unit/store_runs.c — encoders, runs and cached outputs (store/st_runs.h): upsert by
 * fingerprint, run reuse and conflicts, batched writes all-or-nothing, read-back in ordinal
 * order with vectors, token vectors and attention maps, cache lookups, finish/drop; an f16 and
 * a bf16 encoder's outputs stored at 2 bytes an element and read back widened (values exactly
 * representable in each type, and 1/3: its half and bfloat16 roundings, from their bit patterns
 * 0x3555 and 0x3eab), and one fingerprint never of two types. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "common/sp.h"
#include "store/st_runs.h"
#include "t_harness.h"

struct seen { int n; int64_t ord[16]; float v0[16], t_last[16], a_diag[16]; int ntok[16]; int has_tok, has_attn; };

static int collect(void *ctx, const struct st_run_item *it)
{
    struct seen *s = ctx;
    if (s->n >= 16) return 1;
    s->ord[s->n] = it->ordinal;
    s->ntok[s->n] = it->n_tokens;
    s->v0[s->n] = it->vec ? it->vec[0] : -1;
    if (it->tok) { s->has_tok = 1; s->t_last[s->n] = it->tok[(size_t)it->n_tokens * it->tok_dim - 1]; }
    if (it->attn) { s->has_attn = 1; s->a_diag[s->n] = it->attn[(size_t)(it->n_tokens - 1) * it->n_tokens + it->n_tokens - 1]; }
    s->n++;
    return 0;
}

/* ctx float[2]: the item's head count and the last cell of its second head */
static int heads_of(void *ctx, const struct st_run_item *it)
{
    float *g = ctx;
    size_t nn = (size_t)it->n_tokens * (size_t)it->n_tokens;
    g[0] = (float)it->n_heads;
    g[1] = it->n_heads >= 2 ? it->attn_heads[2 * nn - 1] : -1;
    return 0;
}

/* ctx float[3]: the sentence vector's first two values and the last cell of the last head */
static int narrow_of(void *ctx, const struct st_run_item *it)
{
    float *g = ctx;
    size_t nn = (size_t)it->n_tokens * (size_t)it->n_tokens;
    g[0] = it->vec[0];
    g[1] = it->vec[1];
    g[2] = it->attn_heads[(size_t)it->n_heads * nn - 1];
    return 0;
}

static int stop_at_two(void *ctx, const struct st_run_item *it)
{
    (void)it;
    return ++*(int *)ctx == 2 ? 42 : 0;
}

int main(void)
{
    char path[] = "/tmp/sp-store-runs-XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    unlink(path);
    char err[SP_ERRLEN];
    struct st_db *db;
    T_CHECK(st_open(path, ST_OPEN_CREATE, &db, err, sizeof err) == SP_OK);
    int64_t corpus, other;
    T_CHECK(st_corpus_id(db, "c", 1, &corpus, err, sizeof err) == SP_OK);
    T_CHECK(st_corpus_id(db, "d", 1, &other, err, sizeof err) == SP_OK);

    /* encoders: same fingerprint -> same id */
    const char *fa = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    const char *fb = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
    struct st_encoder ea = { fa, "san", "{\"kind\":\"san\"}", 3, SP_STYPE_F32 }, eb = { fb, "psan", "{}", 2, SP_STYPE_F32 };
    int64_t ida, ida2, idb;
    T_CHECK(st_encoder_upsert(db, &ea, &ida, err, sizeof err) == SP_OK);
    T_CHECK(st_encoder_upsert(db, &eb, &idb, err, sizeof err) == SP_OK);
    T_CHECK(st_encoder_upsert(db, &ea, &ida2, err, sizeof err) == SP_OK);
    T_EQ_INT(ida2, ida);
    T_CHECK(ida != idb);

    /* runs: create, reuse, conflicts name both fingerprints / both sources */
    struct st_run_spec spec = { "r1", ida, corpus, 0, 1, 0 };
    int64_t run, run2;
    int created;
    T_CHECK(st_run_begin(db, &spec, &run, &created, err, sizeof err) == SP_OK);
    T_EQ_INT(created, 1);
    T_CHECK(st_run_begin(db, &spec, &run2, &created, err, sizeof err) == SP_OK);
    T_EQ_INT(created, 0);
    T_EQ_INT(run2, run);
    struct st_run_spec bad = spec;
    bad.encoder_id = idb;
    T_EQ_INT(st_run_begin(db, &bad, &run2, &created, err, sizeof err), SP_EEXIST);
    T_CHECK(strstr(err, fa) && strstr(err, fb) && strstr(err, "'r1'"));
    bad = spec;
    bad.corpus_id = other;
    T_EQ_INT(st_run_begin(db, &bad, &run2, &created, err, sizeof err), SP_EEXIST);
    T_CHECK(strstr(err, "corpus c") && strstr(err, "corpus d"));
    bad.corpus_id = 0;
    T_EQ_INT(st_run_begin(db, &bad, &run2, &created, err, sizeof err), SP_EUSAGE);

    /* two batches written out of order; items come back in ordinal order */
    float v1[3] = { 1, 2, 3 }, v2[3] = { 4, 5, 6 }, v3[3] = { 7, 8, 9 };
    float t1[2 * 2] = { .1f, .2f, .3f, .4f }, t2[1 * 2] = { .5f, .6f }, t3[3 * 2] = { 1, 1, 1, 1, 1, 9 };
    float a1[4] = { .5f, .5f, .25f, .75f }, a2[1] = { 1 }, a3[9] = { 0, 0, 1, 0, 0, 1, 0, 0, 1 };
    struct st_vector_put b2v[] = { { "h3", 3, v3, 3, 2, t3, 0, a3, 0, NULL } };
    struct st_run_item_put b2i[] = { { 5, 0, 0, "h3" } };
    T_CHECK(st_run_write(db, run, ida, b2v, 1, b2i, 1, err, sizeof err) == SP_OK);
    struct st_vector_put b1v[] = { { "h1", 3, v1, 2, 2, t1, 0, a1, 0, NULL }, { "h2", 3, v2, 1, 2, t2, 0, a2, 0, NULL } };
    struct st_run_item_put b1i[] = { { 2, 0, 0, "h2" }, { 1, 0, 0, "h1" } };
    T_CHECK(st_run_write(db, run, ida, b1v, 2, b1i, 2, err, sizeof err) == SP_OK);

    struct seen s = { 0 };
    T_EQ_INT(st_run_items(db, "r1", ST_RUN_VEC | ST_RUN_TOK | ST_RUN_ATTN, collect, &s, err, sizeof err), SP_OK);
    T_EQ_INT(s.n, 3);
    T_EQ_INT(s.ord[0], 1);
    T_EQ_INT(s.ord[1], 2);
    T_EQ_INT(s.ord[2], 5);
    T_NEAR(s.v0[0], 1, 0);
    T_NEAR(s.v0[1], 4, 0);
    T_NEAR(s.v0[2], 7, 0);
    T_EQ_INT(s.ntok[0], 2);
    T_EQ_INT(s.ntok[2], 3);
    T_NEAR(s.t_last[0], .4f, 0);
    T_NEAR(s.t_last[2], 9, 0);
    T_NEAR(s.a_diag[0], .75f, 0);
    T_NEAR(s.a_diag[2], 1, 0);
    struct seen m = { 0 };
    T_EQ_INT(st_run_items(db, "r1", 0, collect, &m, err, sizeof err), SP_OK);
    T_EQ_INT(m.n, 3);
    T_NEAR(m.v0[0], -1, 0);               /* metadata only: no vector handed over */
    T_CHECK(!m.has_tok && !m.has_attn);
    int calls = 0;
    T_EQ_INT(st_run_items(db, "r1", ST_RUN_VEC, stop_at_two, &calls, err, sizeof err), 42);

    struct st_run_info info;
    T_EQ_INT(st_run_info(db, "r1", &info, err, sizeof err), SP_OK);
    T_EQ_INT(info.count, 3);
    T_EQ_INT(info.dim, 3);
    T_EQ_INT(info.max_tokens, 3);
    T_EQ_INT(info.attn_layer, 0);
    T_EQ_INT(info.token_vectors, 1);
    T_EQ_STR(info.fingerprint, fa);
    T_EQ_STR(info.kind, "san");
    T_EQ_STR(info.corpus, "c");
    T_CHECK(info.task == NULL);
    st_run_info_free(&info);
    T_EQ_INT(st_run_info(db, "nope", &info, err, sizeof err), SP_EPARSE);
    T_CHECK(strstr(err, "no run 'nope'") != NULL);

    /* cache lookups */
    unsigned have;
    T_CHECK(st_vector_cached(db, ida, "h1", 0, &have, err, sizeof err) == SP_OK);
    T_EQ_INT(have, ST_RUN_VEC | ST_RUN_TOK | ST_RUN_ATTN);
    T_CHECK(st_vector_cached(db, ida, "h1", 1, &have, err, sizeof err) == SP_OK);
    T_EQ_INT(have, ST_RUN_VEC | ST_RUN_TOK);
    T_CHECK(st_vector_cached(db, idb, "h1", 0, &have, err, sizeof err) == SP_OK);
    T_EQ_INT(have, 0);

    /* a fresh vector without token vectors keeps the cached ones */
    float v1b[3] = { 1, 2, 3 };
    struct st_vector_put keep = { "h1", 3, v1b, 2, 0, NULL, 0, NULL, 0, NULL };
    T_CHECK(st_run_write(db, run, ida, &keep, 1, NULL, 0, err, sizeof err) == SP_OK);
    T_CHECK(st_vector_cached(db, ida, "h1", 0, &have, err, sizeof err) == SP_OK);
    T_EQ_INT(have, ST_RUN_VEC | ST_RUN_TOK | ST_RUN_ATTN);

    /* a batch is all or nothing: an item naming a sentence that does not exist (foreign key)
     * rolls back the vectors written before it in the same batch */
    float v4[3] = { 0 };
    struct st_vector_put b3v[] = { { "h4", 3, v4, 1, 0, NULL, 0, NULL, 0, NULL } };
    struct st_run_item_put b3i[] = { { 6, 0, 0, "h4" }, { 7, 999999, 0, "h4" } };
    T_CHECK(st_run_write(db, run, ida, b3v, 1, b3i, 2, err, sizeof err) == SP_ESTORE);
    T_CHECK(st_vector_cached(db, ida, "h4", -1, &have, err, sizeof err) == SP_OK);
    T_EQ_INT(have, 0);
    s.n = 0;
    T_EQ_INT(st_run_items(db, "r1", 0, collect, &s, err, sizeof err), SP_OK);
    T_EQ_INT(s.n, 3);

    /* finish: manifest stored, dropped ordinals gone */
    int64_t drop[] = { 2 };
    T_CHECK(st_run_finish(db, run, "{\"x\":1}", drop, 1, err, sizeof err) == SP_OK);
    T_EQ_INT(st_run_info(db, "r1", &info, err, sizeof err), SP_OK);
    T_EQ_STR(info.manifest, "{\"x\":1}");
    T_EQ_INT(info.count, 2);
    st_run_info_free(&info);

    /* a run without token vectors / attention says how to get them */
    struct st_run_spec plain = { "r2", ida, corpus, 0, 0, -1 };
    T_CHECK(st_run_begin(db, &plain, &run2, &created, err, sizeof err) == SP_OK);
    T_EQ_INT(st_run_items(db, "r2", ST_RUN_TOK, collect, &s, err, sizeof err), SP_EPARSE);
    T_CHECK(strstr(err, "--token-vectors") != NULL);
    T_EQ_INT(st_run_items(db, "r2", ST_RUN_ATTN, collect, &s, err, sizeof err), SP_EPARSE);
    T_CHECK(strstr(err, "--attention") != NULL);

    /* per-head maps beside the averaged one, and several runs in one transaction */
    float hm[2 * 2 * 2] = { 1, 0, .5f, .5f, 0, 1, .25f, .75f };
    struct st_vector_put hv = { "h1", 3, v1, 2, 2, t1, 0, a1, 2, hm };
    struct st_run_item_put hi = { 1, 0, 0, "h1" };
    struct st_run_spec s3 = { "r3", idb, corpus, 0, 1, 0 };
    int64_t run3;
    T_CHECK(st_run_begin(db, &s3, &run3, &created, err, sizeof err) == SP_OK);
    struct st_run_write_part parts[2] = { { run, ida, &hv, 1, &hi, 1 }, { run3, idb, &hv, 1, &hi, 1 } };
    T_CHECK(st_run_write_many(db, parts, 2, err, sizeof err) == SP_OK);
    T_CHECK(st_vector_cached(db, idb, "h1", 0, &have, err, sizeof err) == SP_OK);
    T_EQ_INT(have, ST_RUN_VEC | ST_RUN_TOK | ST_RUN_ATTN | ST_RUN_HEADS);
    T_CHECK(st_vector_cached(db, idb, "h1", 1, &have, err, sizeof err) == SP_OK);
    T_EQ_INT(have, ST_RUN_VEC | ST_RUN_TOK);
    float got[2] = { 0 };
    T_EQ_INT(st_run_items(db, "r3", ST_RUN_HEADS | ST_RUN_ATTN, heads_of, got, err, sizeof err), SP_OK);
    T_NEAR(got[0], 2, 0);
    T_NEAR(got[1], .75f, 0);
    T_EQ_INT(st_run_items(db, "r2", ST_RUN_HEADS, heads_of, got, err, sizeof err), SP_EPARSE);
    T_CHECK(strstr(err, "--heads") != NULL);
    float v5[3] = { 5, 5, 5 };
    struct st_vector_put v5p = { "h5", 3, v5, 1, 0, NULL, 0, NULL, 0, NULL };
    struct st_run_item_put bad_i = { 9, 999999, 0, "h1" };
    struct st_run_write_part parts2[2] = { { run3, idb, &v5p, 1, NULL, 0 }, { run, ida, NULL, 0, &bad_i, 1 } };
    T_CHECK(st_run_write_many(db, parts2, 2, err, sizeof err) == SP_ESTORE);
    T_CHECK(st_vector_cached(db, idb, "h5", -1, &have, err, sizeof err) == SP_OK);
    T_EQ_INT(have, 0);                    /* the first run's part rolled back with the second's */

    /* f16 and bf16 encoders: blobs of 2 bytes an element, widened on read */
    const char *fh = "cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc";
    const char *fz = "dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd";
    struct st_encoder eh = { fh, "san", "{}", 3, SP_STYPE_F16 }, ez = { fz, "san", "{}", 3, SP_STYPE_BF16 };
    int64_t idh, idz;
    T_CHECK(st_encoder_upsert(db, &eh, &idh, err, sizeof err) == SP_OK);
    T_CHECK(st_encoder_upsert(db, &ez, &idz, err, sizeof err) == SP_OK);
    eh.dtype = SP_STYPE_F32;                  /* the same fingerprint of another type: refused */
    T_EQ_INT(st_encoder_upsert(db, &eh, &ida2, err, sizeof err), SP_EEXIST);
    T_CHECK(strstr(err, "stores its vectors as f16, not f32") != NULL);
    float third[3] = { 1.0f / 3.0f, -2.5f, 0.125f };
    struct st_vector_put nv = { "n1", 3, third, 2, 2, t1, 0, a1, 2, hm };
    struct st_run_item_put ni = { 1, 0, 0, "n1" };
    struct st_run_spec sh = { "rh", idh, corpus, 0, 1, 0 }, sz = { "rz", idz, corpus, 0, 1, 0 };
    int64_t runh, runz;
    T_CHECK(st_run_begin(db, &sh, &runh, &created, err, sizeof err) == SP_OK);
    T_CHECK(st_run_begin(db, &sz, &runz, &created, err, sizeof err) == SP_OK);
    struct st_run_write_part np[2] = { { runh, idh, &nv, 1, &ni, 1 }, { runz, idz, &nv, 1, &ni, 1 } };
    T_CHECK(st_run_write_many(db, np, 2, err, sizeof err) == SP_OK);
    float gh[3] = { 0 }, gz[3] = { 0 };
    T_EQ_INT(st_run_items(db, "rh", ST_RUN_VEC | ST_RUN_HEADS, narrow_of, gh, err, sizeof err), SP_OK);
    T_EQ_INT(st_run_items(db, "rz", ST_RUN_VEC | ST_RUN_HEADS, narrow_of, gz, err, sizeof err), SP_OK);
    /* 0x3555 = 2^-2 x (1 + 341/1024); 0x3eab = 2^-2 x (1 + 43/128) */
    T_CHECK(gh[0] == 0.25f * (1.0f + 341.0f / 1024.0f) && gh[1] == -2.5f && gh[2] == .75f);
    T_CHECK(gz[0] == 0.25f * (1.0f + 43.0f / 128.0f) && gz[1] == -2.5f && gz[2] == .75f);
    struct st_run_info ih;
    T_EQ_INT(st_run_info(db, "rh", &ih, err, sizeof err), SP_OK);
    T_EQ_INT(ih.dtype, SP_STYPE_F16);
    st_run_info_free(&ih);
    sqlite3 *h = NULL;                         /* the bytes on disk: 2 per element */
    T_CHECK(sqlite3_open(path, &h) == SQLITE_OK);
    sqlite3_stmt *q = NULL;
    T_CHECK(sqlite3_prepare_v2(h, "SELECT length(v.data), length(v.tokens), length(a.data) FROM vector v JOIN attention a "
                                  "USING (encoder_id, text_hash) WHERE v.encoder_id = ?1 AND a.layer = 0", -1, &q, NULL) == SQLITE_OK);
    sqlite3_bind_int64(q, 1, idz);
    T_CHECK(sqlite3_step(q) == SQLITE_ROW);
    T_EQ_INT(sqlite3_column_int(q, 0), 3 * 2);
    T_EQ_INT(sqlite3_column_int(q, 1), 2 * 2 * 2);
    T_EQ_INT(sqlite3_column_int(q, 2), 2 * 2 * 2);
    sqlite3_finalize(q);
    sqlite3_close(h);

    /* task source lookups */
    int64_t tid, tcorp;
    T_EQ_INT(st_task_source(db, "missing", &tid, &tcorp, err, sizeof err), SP_EPARSE);

    st_close(db);
    unlink(path);
    char side[sizeof path + 8];
    snprintf(side, sizeof side, "%s-wal", path);
    unlink(side);
    snprintf(side, sizeof side, "%s-shm", path);
    unlink(side);
    return T_DONE();
}
