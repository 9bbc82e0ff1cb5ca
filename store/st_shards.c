/* store/st_shards.c — shard stores and their merge (store/st_shards.h). */
#include <sqlite3.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/sp.h"
#include "store/st_shards.h"
#include "store/st_int.h"

#define MERGE_GROUP 9        /* shards attached at once: SQLite's default limit is 10 attached */

/* Run formatted SQL (sqlite3_mprintf: %w an identifier, %Q a quoted string) with no result rows. */
static int xsql(struct st_db *db, char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *sql = sqlite3_vmprintf(fmt, ap);
    va_end(ap);
    int rc = sqlite3_exec(db->h, sql, NULL, NULL, NULL);
    sqlite3_free(sql);
    return rc == SQLITE_OK ? SP_OK : st_sqlerr(db, "merge", err, errlen);
}

/* The first row of a formatted query: *q stepped to it (SQLITE_ROW) or done (SQLITE_DONE).
 * Returns the sqlite3_step code, or -1 when it did not prepare (err filled). */
static int xrow(struct st_db *db, sqlite3_stmt **q, char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *sql = sqlite3_vmprintf(fmt, ap);
    va_end(ap);
    int rc = sqlite3_prepare_v2(db->h, sql, -1, q, NULL);
    sqlite3_free(sql);
    if (rc != SQLITE_OK) { st_sqlerr(db, "merge", err, errlen); *q = NULL; return -1; }
    rc = sqlite3_step(*q);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) { st_sqlerr(db, "merge", err, errlen); sqlite3_finalize(*q); *q = NULL; return -1; }
    return rc;
}

/* One integer (the first column of the first row; 0 when no row). */
static int xint(struct st_db *db, long long *v, char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *sql = sqlite3_vmprintf(fmt, ap);
    va_end(ap);
    sqlite3_stmt *q;
    int rc = sqlite3_prepare_v2(db->h, sql, -1, &q, NULL);
    sqlite3_free(sql);
    if (rc != SQLITE_OK) return st_sqlerr(db, "merge", err, errlen);
    rc = sqlite3_step(q);
    *v = rc == SQLITE_ROW ? sqlite3_column_int64(q, 0) : 0;
    sqlite3_finalize(q);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? SP_OK : st_sqlerr(db, "merge", err, errlen);
}

static const char *col(sqlite3_stmt *q, int i)
{
    const char *s = (const char *)sqlite3_column_text(q, i);
    return s ? s : "";
}

int st_shard_self(struct st_db *db, int *k, int *n, char *err, size_t errlen)
{
    sqlite3_stmt *q;
    *k = *n = 0;
    int rc = xrow(db, &q, err, errlen, "SELECT k, n FROM shard WHERE role = 'self'");
    if (rc < 0) return SP_ESTORE;
    if (rc == SQLITE_ROW) { *k = sqlite3_column_int(q, 0); *n = sqlite3_column_int(q, 1); }
    sqlite3_finalize(q);
    return SP_OK;
}

int st_shard_mark(struct st_db *db, int k, int n, char *err, size_t errlen)
{
    int sk, sn, rc;
    if (st_begin_write(db, err, errlen)) return SP_ESTORE;
    rc = st_shard_self(db, &sk, &sn, err, errlen);
    long long merged = 0, sentences = 0;
    if (!rc && sn && (sk != k || sn != n)) {
        snprintf(err, errlen, "%s is shard %d/%d of its job, not %d/%d: each shard writes its own store", db->path, sk, sn, k, n);
        rc = SP_EUSAGE;
    }
    if (!rc && !sn) rc = xint(db, &merged, err, errlen, "SELECT count(*) FROM shard WHERE role = 'merged'");
    if (!rc && !sn) rc = xint(db, &sentences, err, errlen, "SELECT count(*) FROM sentence");
    if (!rc && !sn && merged) {
        snprintf(err, errlen, "%s is a merged store (synprobe merge), not a shard store", db->path);
        rc = SP_EUSAGE;
    } else if (!rc && !sn && sentences) {
        snprintf(err, errlen, "%s holds %lld sentences but is no shard store: a shard writes a store of its own", db->path,
                 sentences);
        rc = SP_EUSAGE;
    }
    if (!rc && !sn)
        rc = xsql(db, err, errlen, "INSERT INTO shard (role, k, n, store) VALUES ('self', %d, %d, %Q)", k, n, db->path);
    if (!rc) rc = st_exec(db, "COMMIT", err, errlen);
    if (rc) sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
    return rc;
}

int st_shards_unmerged(struct st_db *db, int *n, int **ks, int *n_missing, char *err, size_t errlen)
{
    long long nn = 0;
    *n = *n_missing = 0;
    *ks = NULL;
    int rc = xint(db, &nn, err, errlen, "SELECT coalesce(max(n), 0) FROM shard WHERE role = 'merged'");
    *n = (int)nn;
    if (rc || !nn) return rc;
    sqlite3_stmt *q;
    rc = xrow(db, &q, err, errlen,
              "WITH RECURSIVE ks(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM ks WHERE k + 1 < %lld) "
              "SELECT k FROM ks WHERE k NOT IN (SELECT k FROM shard WHERE role = 'merged') ORDER BY k", nn);
    if (rc < 0) return SP_ESTORE;
    while (rc == SQLITE_ROW) {
        *ks = sp_xrealloc(*ks, sizeof **ks * (size_t)(*n_missing + 1));
        (*ks)[(*n_missing)++] = sqlite3_column_int(q, 0);
        rc = sqlite3_step(q);
    }
    sqlite3_finalize(q);
    return rc == SQLITE_DONE ? SP_OK : st_sqlerr(db, "shards", err, errlen);
}

/* ---- checks ---- */

/* A shard is read only when SQLite finds it intact: integrity_check (not only quick_check: a
 * row whose bytes changed shows as a row missing from its index, which quick_check does not
 * look for; it costs 0.05 s on a 7 MB shard against quick_check's 0.03 s, less than reading it
 * for the merge). SP_ESTORE naming the shard and the check's first message. */
static int shard_intact(struct st_db *s, const char *path, char *err, size_t errlen)
{
    sqlite3_stmt *q;
    char why[SP_ERRLEN];
    int rc = xrow(s, &q, why, sizeof why, "PRAGMA main.integrity_check(1)");
    if (rc < 0) {
        snprintf(err, errlen, "%s: the shard store cannot be checked (%s); nothing was merged", path, why);
        return SP_ESTORE;
    }
    rc = rc == SQLITE_ROW && strcmp(col(q, 0), "ok") ? SP_ESTORE : SP_OK;
    if (rc) snprintf(err, errlen, "%s: the shard store fails SQLite's integrity check (%s); nothing was merged", path, col(q, 0));
    sqlite3_finalize(q);
    return rc;
}

/* Sources (corpus, file stem, SHA-256, format, mode) in schema a and not in b: the first, as
 * words, into what. 1 when there is one, 0 when none, -1 on error. */
static int source_diff(struct st_db *db, const char *a, const char *b, char *what, size_t n, char *err, size_t errlen)
{
    sqlite3_stmt *q;
    int rc = xrow(db, &q, err, errlen,
                  "SELECT c.name, s.stem, s.sha256, s.format, s.mode FROM %w.source s JOIN %w.corpus c USING (corpus_id) "
                  "EXCEPT SELECT c.name, s.stem, s.sha256, s.format, s.mode FROM %w.source s JOIN %w.corpus c USING (corpus_id) "
                  "ORDER BY 1, 2", a, a, b, b);
    if (rc < 0) return -1;
    if (rc == SQLITE_ROW)
        snprintf(what, n, "corpus '%s', file '%s' (%s, %s ingest, SHA-256 %.12s…)", col(q, 0), col(q, 1), col(q, 3),
                 col(q, 4), col(q, 2));
    sqlite3_finalize(q);
    return rc == SQLITE_ROW;
}

/* Encoders in a and not in b: the first into what. */
static int encoder_diff(struct st_db *db, const char *a, const char *b, char *what, size_t n, char *err, size_t errlen)
{
    sqlite3_stmt *q;
    int rc = xrow(db, &q, err, errlen,
                  "SELECT fingerprint, kind FROM %w.encoder EXCEPT SELECT fingerprint, kind FROM %w.encoder ORDER BY 1", a, b);
    if (rc < 0) return -1;
    if (rc == SQLITE_ROW) snprintf(what, n, "encoder %.12s… (%s)", col(q, 0), col(q, 1));
    sqlite3_finalize(q);
    return rc == SQLITE_ROW;
}

/* Store a (schema sa, shown as pa) against store b: the same sources; encoders the same, or
 * (subset_ok, a = the target) b's a subset of a's. */
static int compare(struct st_db *db, const char *sa, const char *pa, const char *sb, const char *pb, int subset_ok, char *err,
                   size_t errlen)
{
    char w1[512] = "", w2[512] = "";
    int d1 = source_diff(db, sa, sb, w1, sizeof w1, err, errlen), d2 = d1 < 0 ? -1 : source_diff(db, sb, sa, w2, sizeof w2, err, errlen);
    if (d1 < 0 || d2 < 0) return SP_ESTORE;
    if (d1 || d2) {
        snprintf(err, errlen, "%s and %s disagree on the corpus contents: %s%s%s%s%s%s (shards of one job ingest the same files)", pa, pb,
                 d1 ? w1 : "", d1 ? " is in " : "", d1 ? pa : "", d1 && d2 ? " only; " : d1 ? " only" : "", d2 ? w2 : "",
                 d2 ? " is in the other only" : "");
        return SP_EUSAGE;
    }
    d1 = subset_ok ? 0 : encoder_diff(db, sa, sb, w1, sizeof w1, err, errlen);
    d2 = d1 < 0 ? -1 : encoder_diff(db, sb, sa, w2, sizeof w2, err, errlen);
    if (d1 < 0 || d2 < 0) return SP_ESTORE;
    if (d1 || d2) {
        snprintf(err, errlen, "%s and %s disagree on the encoders' fingerprints: %s%s%s%s%s%s%s (a different config, seed, weights or "
                 "embeddings)", pa, pb, d1 ? pa : "", d1 ? " has " : "", d1 ? w1 : "", d1 && d2 ? ", " : "", d2 ? pb : "",
                 d2 ? " has " : "", d2 ? w2 : "");
        if (d1 && !d2) snprintf(err + strlen(err), errlen - strlen(err), "; %s has none that %s lacks", pb, pa);
        return SP_EUSAGE;
    }
    return SP_OK;
}

/* Sentences of shard schema s that clash with the target's: another sentence at the same
 * place, or the same sent_id at another place. Needs temp.m_corpus. */
static int sentence_clash(struct st_db *db, const char *s, const char *ps, const char *out, char *err, size_t errlen)
{
    sqlite3_stmt *q;
    int rc = xrow(db, &q, err, errlen,
                  "SELECT x.doc, x.position, x.sent_id, y.sent_id, (SELECT name FROM main.corpus WHERE corpus_id = m.new) "
                  "FROM %w.sentence x JOIN temp.m_corpus m ON m.old = x.corpus_id JOIN main.sentence y ON y.corpus_id = m.new "
                  "AND y.doc = x.doc AND y.position = x.position WHERE x.sent_id <> y.sent_id OR x.text <> y.text "
                  "OR x.n_words <> y.n_words LIMIT 1", s);
    if (rc < 0) return SP_ESTORE;
    if (rc == SQLITE_ROW) {
        snprintf(err, errlen, "%s and %s hold different sentences at corpus '%s', %s:%d ('%s' and '%s')", ps, out, col(q, 4),
                 col(q, 0), sqlite3_column_int(q, 1), col(q, 2), col(q, 3));
        sqlite3_finalize(q);
        return SP_EUSAGE;
    }
    sqlite3_finalize(q);
    rc = xrow(db, &q, err, errlen,
              "SELECT x.sent_id, x.doc, x.position, y.doc, y.position FROM %w.sentence x JOIN temp.m_corpus m ON m.old = x.corpus_id "
              "JOIN main.sentence y ON y.corpus_id = m.new AND y.sent_id = x.sent_id AND (y.doc <> x.doc OR y.position <> x.position) "
              "LIMIT 1", s);
    if (rc < 0) return SP_ESTORE;
    if (rc == SQLITE_ROW) {
        snprintf(err, errlen, "sent_id '%s' is at %s:%d in %s and at %s:%d in %s: a sent_id names one sentence of a corpus",
                 col(q, 0), col(q, 1), sqlite3_column_int(q, 2), ps, col(q, 3), sqlite3_column_int(q, 4), out);
        sqlite3_finalize(q);
        return SP_EUSAGE;
    }
    sqlite3_finalize(q);
    return SP_OK;
}

/* ---- copying ---- */

/* Shard schema s (shard k) into main; counts into m. */
static int copy_shard(struct st_db *db, const char *s, const char *out, struct st_merge_shard *m, char *err, size_t errlen)
{
    long long before = 0, v = 0;
    int rc = xsql(db, err, errlen,
                  "DELETE FROM temp.m_corpus; DELETE FROM temp.m_source; DELETE FROM temp.m_sent; DELETE FROM temp.m_enc;"
                  "INSERT INTO main.corpus (name, created) SELECT name, created FROM %w.corpus "
                  "  WHERE name NOT IN (SELECT name FROM main.corpus) ORDER BY corpus_id;"
                  "INSERT INTO temp.m_corpus SELECT x.corpus_id, y.corpus_id FROM %w.corpus x JOIN main.corpus y USING (name);"
                  "INSERT INTO main.source (corpus_id, path, stem, sha256, format, mode, n_sentences, n_rejected, n_words, ingested) "
                  "  SELECT m.new, x.path, x.stem, x.sha256, x.format, x.mode, 0, 0, 0, x.ingested FROM %w.source x "
                  "  JOIN temp.m_corpus m ON m.old = x.corpus_id WHERE NOT EXISTS (SELECT 1 FROM main.source y "
                  "  WHERE y.corpus_id = m.new AND y.sha256 = x.sha256) ORDER BY x.source_id;"
                  "INSERT INTO temp.m_source SELECT x.source_id, y.source_id FROM %w.source x JOIN temp.m_corpus m ON m.old = x.corpus_id "
                  "  JOIN main.source y ON y.corpus_id = m.new AND y.sha256 = x.sha256;"
                  "INSERT INTO main.shard_source (k, source_id, n_sentences, n_rejected, n_words) "
                  "  SELECT %d, m.new, x.n_sentences, x.n_rejected, x.n_words FROM %w.source x JOIN temp.m_source m ON m.old = x.source_id "
                  "  WHERE true ON CONFLICT (k, source_id) DO UPDATE SET n_sentences = excluded.n_sentences, "
                  "  n_rejected = excluded.n_rejected, n_words = excluded.n_words WHERE n_sentences <> excluded.n_sentences "
                  "  OR n_rejected <> excluded.n_rejected OR n_words <> excluded.n_words;",
                  s, s, s, s, m->k, s);
    if (!rc) rc = sentence_clash(db, s, m->path, out, err, errlen);
    if (!rc) rc = xint(db, &before, err, errlen, "SELECT coalesce(max(sentence_id), 0) FROM main.sentence");
    if (!rc)
        rc = xsql(db, err, errlen,
                  "INSERT INTO main.sentence (corpus_id, sent_id, doc, position, split, text, comments, n_words, dep_source_id, "
                  "  dep_line, const_source_id, const_line, warn, warnings) "
                  "  SELECT m.new, x.sent_id, x.doc, x.position, x.split, x.text, x.comments, x.n_words, "
                  "  (SELECT new FROM temp.m_source WHERE old = x.dep_source_id), x.dep_line, "
                  "  (SELECT new FROM temp.m_source WHERE old = x.const_source_id), x.const_line, x.warn, x.warnings "
                  "  FROM %w.sentence x JOIN temp.m_corpus m ON m.old = x.corpus_id WHERE NOT EXISTS (SELECT 1 FROM main.sentence y "
                  "  WHERE y.corpus_id = m.new AND y.doc = x.doc AND y.position = x.position) ORDER BY x.sentence_id;"
                  "INSERT INTO temp.m_sent SELECT x.sentence_id, y.sentence_id, y.sentence_id > %lld FROM %w.sentence x "
                  "  JOIN temp.m_corpus m ON m.old = x.corpus_id JOIN main.sentence y ON y.corpus_id = m.new AND y.doc = x.doc "
                  "  AND y.position = x.position;"
                  "INSERT INTO main.token (sentence_id, i, form, lemma, upos, xpos, feats, head, deprel, deps, misc) "
                  "  SELECT m.new, t.i, t.form, t.lemma, t.upos, t.xpos, t.feats, t.head, t.deprel, t.deps, t.misc FROM %w.token t "
                  "  JOIN temp.m_sent m ON m.old = t.sentence_id AND m.fresh ORDER BY m.new, t.i;"
                  "INSERT INTO main.extra_line (sentence_id, seq, pos, kind, first, last, line) "
                  "  SELECT m.new, t.seq, t.pos, t.kind, t.first, t.last, t.line FROM %w.extra_line t "
                  "  JOIN temp.m_sent m ON m.old = t.sentence_id AND m.fresh;"
                  "INSERT INTO main.dep_structure (sentence_id, n, root, max_depth, projective, depth, distance, ancestors, rel_pos) "
                  "  SELECT m.new, t.n, t.root, t.max_depth, t.projective, t.depth, t.distance, t.ancestors, t.rel_pos "
                  "  FROM %w.dep_structure t JOIN temp.m_sent m ON m.old = t.sentence_id AND m.fresh;"
                  "INSERT INTO main.const_structure (sentence_id, tree, tree_depth, top_const, top_const_class, phrase_levels, "
                  "  phrases, n_phrases, spans) SELECT m.new, t.tree, t.tree_depth, t.top_const, t.top_const_class, "
                  "  t.phrase_levels, t.phrases, t.n_phrases, t.spans FROM %w.const_structure t "
                  "  JOIN temp.m_sent m ON m.old = t.sentence_id AND m.fresh;",
                  s, before, s, s, s, s, s);
    if (!rc) rc = xint(db, &v, err, errlen, "SELECT count(*) FROM %w.sentence", s);
    m->sentences = (long)v;
    if (!rc) rc = xint(db, &v, err, errlen, "SELECT count(*) FROM temp.m_sent WHERE fresh");
    m->new_sentences = (long)v;
    if (!rc) {
        rc = xsql(db, err, errlen,
                  "INSERT INTO main.quarantine (source_id, line, position, sent_id, reason, raw) "
                  "  SELECT m.new, x.line, x.position, x.sent_id, x.reason, x.raw FROM %w.quarantine x "
                  "  JOIN temp.m_source m ON m.old = x.source_id WHERE NOT EXISTS (SELECT 1 FROM main.quarantine y "
                  "  WHERE y.source_id = m.new AND y.position = x.position AND y.line = x.line) ORDER BY x.quarantine_id", s);
        m->new_quarantined = sqlite3_changes(db->h);
    }
    if (!rc)
        rc = xsql(db, err, errlen,
                  "INSERT INTO main.encoder (fingerprint, kind, config, dim, store_dtype) SELECT fingerprint, kind, config, dim, "
                  "  store_dtype FROM %w.encoder "
                  "  WHERE fingerprint NOT IN (SELECT fingerprint FROM main.encoder) ORDER BY encoder_id;"
                  "INSERT INTO temp.m_enc SELECT x.encoder_id, y.encoder_id FROM %w.encoder x JOIN main.encoder y USING (fingerprint);",
                  s, s);
    if (!rc) rc = xint(db, &v, err, errlen, "SELECT count(*) FROM %w.vector", s);
    m->vectors = (long)v;
    if (!rc)
        rc = xint(db, &v, err, errlen,
                  "SELECT count(*) FROM %w.vector x JOIN temp.m_enc m ON m.old = x.encoder_id JOIN main.vector y "
                  "  ON y.encoder_id = m.new AND y.text_hash = x.text_hash WHERE y.data <> x.data", s);
    m->differing_vectors = (long)v;
    /* token vectors a shard has and the target lacks for a vector it has: added */
    if (!rc)
        rc = xsql(db, err, errlen,
                  "UPDATE main.vector AS y SET tokens = x.tokens, n_tokens = x.n_tokens, tok_dim = x.tok_dim "
                  "  FROM (SELECT m.new AS e, v.text_hash, v.tokens, v.n_tokens, v.tok_dim FROM %w.vector v "
                  "  JOIN temp.m_enc m ON m.old = v.encoder_id WHERE v.tokens IS NOT NULL) AS x "
                  "  WHERE y.encoder_id = x.e AND y.text_hash = x.text_hash AND y.tokens IS NULL AND y.data = "
                  "  (SELECT data FROM %w.vector z WHERE z.encoder_id = (SELECT old FROM temp.m_enc WHERE new = x.e) "
                  "  AND z.text_hash = x.text_hash)", s, s);
    if (!rc) {
        rc = xsql(db, err, errlen,
                  "INSERT OR IGNORE INTO main.vector (encoder_id, text_hash, dim, data, tokens, attention, n_tokens, tok_dim) "
                  "  SELECT m.new, x.text_hash, x.dim, x.data, x.tokens, x.attention, x.n_tokens, x.tok_dim FROM %w.vector x "
                  "  JOIN temp.m_enc m ON m.old = x.encoder_id", s);
        m->new_vectors = sqlite3_changes(db->h);
    }
    if (!rc) {
        rc = xsql(db, err, errlen,
                  "INSERT OR IGNORE INTO main.attention (encoder_id, text_hash, layer, n, data) "
                  "  SELECT m.new, x.text_hash, x.layer, x.n, x.data FROM %w.attention x JOIN temp.m_enc m ON m.old = x.encoder_id", s);
        m->new_attention = sqlite3_changes(db->h);
    }
    if (!rc)
        rc = xsql(db, err, errlen, "INSERT INTO main.shard (role, k, n, store) VALUES ('merged', %d, %d, %Q) ON CONFLICT (role, k) "
                  "DO UPDATE SET store = excluded.store, at = excluded.at WHERE store <> excluded.store", m->k, m->n, m->real);
    return rc;
}

/* Sentence ids in one-machine order: by the source that created each sentence (the lower of
 * its two annotations' sources: that file was ingested first, the other attached to it), then
 * position. Quarantine rows likewise by source and position. Within the open transaction. */
static int renumber(struct st_db *db, int *changed, char *err, size_t errlen)
{
    long long moved = 0;
    int rc = xsql(db, err, errlen,
                  "DELETE FROM temp.m_order; INSERT INTO temp.m_order (old, new) SELECT sentence_id, row_number() OVER ("
                  "  ORDER BY min(coalesce(dep_source_id, 9223372036854775807), coalesce(const_source_id, 9223372036854775807)), "
                  "  position, sentence_id) FROM main.sentence");
    if (!rc) rc = xint(db, &moved, err, errlen, "SELECT count(*) FROM temp.m_order WHERE old <> new");
    *changed = moved > 0;
    if (rc || !moved) return rc;
    static const char *const tables[] = { "sentence", "token", "extra_line", "dep_structure", "const_structure", "task_item",
                                          "run_item" };
    rc = xsql(db, err, errlen, "PRAGMA defer_foreign_keys = ON");
    for (size_t i = 0; !rc && i < sizeof tables / sizeof *tables; i++)
        rc = xsql(db, err, errlen, "UPDATE main.%w SET sentence_id = -sentence_id WHERE sentence_id > 0", tables[i]);
    for (size_t i = 0; !rc && i < sizeof tables / sizeof *tables; i++)
        rc = xsql(db, err, errlen, "UPDATE main.%w SET sentence_id = (SELECT new FROM temp.m_order WHERE old = -sentence_id) "
                  "WHERE sentence_id < 0", tables[i]);
    if (!rc)
        rc = xsql(db, err, errlen,
                  "CREATE TEMP TABLE m_quar AS SELECT source_id, line, position, sent_id, reason, raw FROM main.quarantine "
                  "  ORDER BY source_id, position, quarantine_id;"
                  "DELETE FROM main.quarantine;"
                  "INSERT INTO main.quarantine (source_id, line, position, sent_id, reason, raw) SELECT * FROM temp.m_quar ORDER BY rowid;"
                  "DROP TABLE temp.m_quar");
    return rc;
}

static int check_integrity(struct st_db *db, const char *out, char *err, size_t errlen)
{
    sqlite3_stmt *q;
    int rc = xrow(db, &q, err, errlen, "PRAGMA main.foreign_key_check");
    if (rc < 0) return SP_ESTORE;
    if (rc == SQLITE_ROW) {
        snprintf(err, errlen, "%s: internal error: the merge left a row of %s (rowid %lld) without its %s row; nothing was merged",
                 out, col(q, 0), (long long)sqlite3_column_int64(q, 1), col(q, 2));
        sqlite3_finalize(q);
        return SP_ESTORE;
    }
    sqlite3_finalize(q);
    rc = xrow(db, &q, err, errlen, "PRAGMA main.integrity_check");
    if (rc < 0) return SP_ESTORE;
    if (rc == SQLITE_ROW && strcmp(col(q, 0), "ok")) {
        snprintf(err, errlen, "%s: integrity check failed after merging: %s; nothing was merged", out, col(q, 0));
        sqlite3_finalize(q);
        return SP_ESTORE;
    }
    sqlite3_finalize(q);
    return SP_OK;
}

/* One group of shards (already checked to be shard stores), attached as s0.., one transaction. */
static int merge_group(struct st_db *db, const char *out, struct st_merge_shard *g, int n, const char *ref_schema,
                       const char *ref_path, struct st_merge_result *r, char *err, size_t errlen)
{
    int rc = SP_OK, attached = 0;
    for (int i = 0; i < n && !rc; i++) {
        sqlite3_stmt *q;
        char sql[64];
        snprintf(sql, sizeof sql, "ATTACH DATABASE ?1 AS s%d", i);
        if (sqlite3_prepare_v2(db->h, sql, -1, &q, NULL) != SQLITE_OK) { rc = st_sqlerr(db, "merge", err, errlen); break; }
        sqlite3_bind_text(q, 1, g[i].path, -1, SQLITE_STATIC);
        if (sqlite3_step(q) != SQLITE_DONE) rc = st_sqlerr(db, g[i].path, err, errlen);
        else attached++;
        sqlite3_finalize(q);
    }
    if (!rc) rc = st_begin_write(db, err, errlen) ? SP_ESTORE : SP_OK;
    int in_txn = !rc;
    long long merged_before = 0, derived = 0;
    if (!rc) rc = xint(db, &merged_before, err, errlen, "SELECT count(*) FROM main.shard WHERE role = 'merged'");
    if (!rc) rc = xint(db, &derived, err, errlen, "SELECT (SELECT count(*) FROM main.task) + (SELECT count(*) FROM main.run)");
    /* the reference: the target when it holds shards already (each shard's encoders within
     * its), else the first shard of the call; then every shard against the first */
    for (int i = 0; i < n && !rc; i++) {
        char si[8];
        snprintf(si, sizeof si, "s%d", i);
        if (merged_before) rc = compare(db, "main", out, si, g[i].path, 1, err, errlen);
        if (!rc && (ref_schema || i > 0))
            rc = compare(db, ref_schema ? ref_schema : "s0", ref_schema ? ref_path : g[0].path, si, g[i].path, 0, err, errlen);
    }
    if (!rc)
        rc = xsql(db, err, errlen,
                  "CREATE TEMP TABLE IF NOT EXISTS m_corpus (old INTEGER PRIMARY KEY, new INTEGER);"
                  "CREATE TEMP TABLE IF NOT EXISTS m_source (old INTEGER PRIMARY KEY, new INTEGER);"
                  "CREATE TEMP TABLE IF NOT EXISTS m_sent (old INTEGER PRIMARY KEY, new INTEGER, fresh INTEGER);"
                  "CREATE TEMP TABLE IF NOT EXISTS m_enc (old INTEGER PRIMARY KEY, new INTEGER);"
                  "CREATE TEMP TABLE IF NOT EXISTS m_order (old INTEGER PRIMARY KEY, new INTEGER)");
    long fresh = 0;
    for (int i = 0; i < n && !rc; i++) {
        char si[8];
        snprintf(si, sizeof si, "s%d", i);
        rc = copy_shard(db, si, out, &g[i], err, errlen);
        fresh += g[i].new_sentences;
    }
    if (!rc && fresh && derived) {
        snprintf(err, errlen, "%s already holds tasks or encoder runs made from the shards merged before; %ld new sentences "
                 "would change their sentence ids: merge every shard before the job's later steps run (or into a new store)",
                 out, fresh);
        rc = SP_EUSAGE;
    }
    int changed = 0;
    if (!rc && fresh) rc = renumber(db, &changed, err, errlen);
    r->renumbered |= changed;
    if (!rc)
        rc = xsql(db, err, errlen,
                  "UPDATE main.source SET n_sentences = t.a, n_rejected = t.b, n_words = t.c FROM (SELECT source_id, "
                  "  sum(n_sentences) AS a, sum(n_rejected) AS b, sum(n_words) AS c FROM main.shard_source GROUP BY source_id) AS t "
                  "  WHERE source.source_id = t.source_id");
    if (!rc) rc = check_integrity(db, out, err, errlen);
    if (!rc) rc = st_exec(db, "COMMIT", err, errlen);
    if (rc && in_txn) sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
    for (int i = 0; i < attached; i++) {
        char sql[32];
        snprintf(sql, sizeof sql, "DETACH DATABASE s%d", i);
        sqlite3_exec(db->h, sql, NULL, NULL, NULL);
    }
    return rc;
}

/* One argument of a merge by identity: what stat finds at it (a symlink followed). */
struct merge_arg { dev_t dev; ino_t ino; int i; };

static int merge_arg_cmp(const void *a, const void *b)
{
    const struct merge_arg *x = a, *y = b;
    if (x->dev != y->dev) return x->dev < y->dev ? -1 : 1;
    if (x->ino != y->ino) return x->ino < y->ino ? -1 : 1;
    return x->i - y->i;
}

int st_merge_distinct(const char *out, const char *const *paths, int n, char *err, size_t errlen)
{
    struct merge_arg *a = sp_xcalloc((size_t)(n ? n : 1), sizeof *a);
    struct stat st, so;
    int m = 0, rc = SP_OK, have_out = stat(out, &so) == 0;
    for (int i = 0; i < n && !rc; i++) {
        if (stat(paths[i], &st)) continue;      /* missing: opening it says so, before the target is made */
        if (have_out && st.st_dev == so.st_dev && st.st_ino == so.st_ino) {
            if (!strcmp(out, paths[i]))
                snprintf(err, errlen, "%s is named as the target and as a shard; a store cannot be merged into itself: merge "
                         "into another store", out);
            else
                snprintf(err, errlen, "the target %s and shard %s are one file (the same device and inode: a hard link, a "
                         "symlink or another spelling of one path); a store cannot be merged into itself: merge into another "
                         "store", out, paths[i]);
            rc = SP_EUSAGE;
        }
        a[m++] = (struct merge_arg){ st.st_dev, st.st_ino, i };
    }
    if (!rc) qsort(a, (size_t)m, sizeof *a, merge_arg_cmp);
    /* the pair with the earliest second argument: what a reader finds first going left to right */
    int bi = -1, bj = -1;
    for (int k = 1; k < m && !rc; k++)
        if (a[k].dev == a[k - 1].dev && a[k].ino == a[k - 1].ino) {
            int first = k - 1;
            while (first > 0 && a[first - 1].dev == a[k].dev && a[first - 1].ino == a[k].ino) first--;
            if (bj < 0 || a[k].i < bj) { bi = a[first].i; bj = a[k].i; }
        }
    if (!rc && bj >= 0) {
        if (!strcmp(paths[bi], paths[bj]))
            snprintf(err, errlen, "shard %s is named twice (arguments %d and %d of the shards): name each shard once",
                     paths[bi], bi + 1, bj + 1);
        else
            snprintf(err, errlen, "shards %s and %s are one file (the same device and inode: a hard link, a symlink or another "
                     "spelling of one path; arguments %d and %d of the shards): name each shard once", paths[bi], paths[bj],
                     bi + 1, bj + 1);
        rc = SP_EUSAGE;
    }
    free(a);
    return rc;
}

int st_merge(const char *out, const char **paths, int n, struct st_merge_result *r, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    r->n = n;
    r->shard = sp_xcalloc((size_t)(n ? n : 1), sizeof *r->shard);
    /* one file named twice, or the target among the shards: refused before anything is opened
     * (SQLite cannot attach one file twice; through two names it waits for its own lock) */
    int rc = st_merge_distinct(out, paths, n, err, errlen);
    if (rc) return rc;
    /* each shard: a synprobe store (migrated when older), marked as a shard, all of one N */
    for (int i = 0; i < n && !rc; i++) {
        struct st_db *s;
        r->shard[i].path = paths[i];
        if (!strcmp(paths[i], out)) {
            snprintf(err, errlen, "%s is both the target and a shard", out);
            return SP_EUSAGE;
        }
        if ((rc = st_open(paths[i], 0, &s, err, errlen))) return rc == SP_EUSAGE ? SP_EUSAGE : rc;
        if (!realpath(paths[i], r->shard[i].real)) snprintf(r->shard[i].real, sizeof r->shard[i].real, "%s", paths[i]);
        rc = shard_intact(s, paths[i], err, errlen);
        if (!rc) rc = st_shard_self(s, &r->shard[i].k, &r->shard[i].n, err, errlen);
        st_close(s);
        if (rc) return rc;
        if (!r->shard[i].n) {
            snprintf(err, errlen, "%s is no shard store (it was not written by `synprobe run --shard K/N`)", paths[i]);
            return SP_EUSAGE;
        }
        if (i && r->shard[i].n != r->shard[0].n) {
            snprintf(err, errlen, "%s is shard %d/%d but %s is shard %d/%d: the shards of one merge split the job the same way",
                     paths[i], r->shard[i].k, r->shard[i].n, paths[0], r->shard[0].k, r->shard[0].n);
            return SP_EUSAGE;
        }
    }
    r->shard_n = n ? r->shard[0].n : 0;
    struct st_db *db;
    int existed = access(out, F_OK) == 0;
    if ((rc = st_open(out, ST_OPEN_CREATE, &db, err, errlen))) return rc;
    int sk, sn;
    long long mn = 0;
    rc = st_shard_self(db, &sk, &sn, err, errlen);
    if (!rc && sn) {
        snprintf(err, errlen, "%s is shard %d/%d itself: merge into another store", out, sk, sn);
        rc = SP_EUSAGE;
    }
    if (!rc) rc = xint(db, &mn, err, errlen, "SELECT n FROM shard WHERE role = 'merged' LIMIT 1");
    if (!rc && mn && mn != r->shard_n) {
        snprintf(err, errlen, "%s holds shards of %lld but %s is shard %d/%d", out, mn, paths[0], r->shard[0].k, r->shard[0].n);
        rc = SP_EUSAGE;
    }
    if (!rc && !mn) {
        long long any = 0;
        rc = xint(db, &any, err, errlen, "SELECT (SELECT count(*) FROM sentence) + (SELECT count(*) FROM encoder)");
        if (!rc && any) {
            snprintf(err, errlen, "%s holds sentences or encoders that no merge put there: merge shards into a new store", out);
            rc = SP_EUSAGE;
        }
    }
    /* groups of MERGE_GROUP; the groups after the first compare with the target */
    for (int i = 0; i < n && !rc; i += MERGE_GROUP) {
        int m = n - i < MERGE_GROUP ? n - i : MERGE_GROUP;
        rc = merge_group(db, out, r->shard + i, m, NULL, NULL, r, err, errlen);
    }
    long long v = 0;
    if (!rc) rc = xint(db, &v, err, errlen, "SELECT count(*) FROM shard WHERE role = 'merged'");
    r->n_merged = (int)v;
    if (!rc) rc = xint(db, &v, err, errlen, "SELECT count(*) FROM sentence");
    r->sentences = (long)v;
    if (!rc) rc = xint(db, &v, err, errlen, "SELECT count(*) FROM vector");
    r->vectors = (long)v;
    st_close(db);
    if (rc && !existed) {   /* a refused merge into a new store leaves no store behind */
        char p[PATH_MAX + 8];
        unlink(out);
        snprintf(p, sizeof p, "%s-wal", out);
        unlink(p);
        snprintf(p, sizeof p, "%s-shm", out);
        unlink(p);
    }
    return rc;
}

void st_merge_result_free(struct st_merge_result *r)
{
    free(r->shard);
    r->shard = NULL;
}
