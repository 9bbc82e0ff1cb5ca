/* store/sqlext.c — synprobe_sql.so, a loadable SQLite extension over the cached structure BLOBs.
 *
 *   .load ./build/synprobe_sql
 *   SELECT sp_distance(d.distance, 0, 5), sp_is_ancestor(d.ancestors, 4, 2), sp_depth(d.depth, 3)
 *     FROM dep_structure d WHERE sentence_id = 1;
 *   SELECT p.* FROM dep_structure d, sp_pairs(d.distance, d.ancestors, d.rel_pos) p WHERE d.sentence_id = 1;
 *
 * Scalar functions (word indices are 0-based, as in the token table; out of range → NULL):
 *   sp_n(blob)                    number of words the BLOB describes
 *   sp_depth(depth, i)            dependency depth of word i (root = 0)
 *   sp_distance(distance, i, j)   tree distance between words i and j
 *   sp_is_ancestor(ancestors, i, j)  1 if j is i or an ancestor of i (SDOI mask row i, column j)
 *   sp_rel_pos(rel_pos, i, j)     P2 relative structural position (unclipped)
 *   sp_phrase(phrases, level, i)  PSAN phrase id of word i at division level 1..T
 * Table-valued function sp_pairs(distance [, ancestors [, rel_pos]]): one row per ordered pair
 *   i != j with columns i, j, word_distance, tree_distance, is_ancestor, rel_pos, rel_bucket
 *   (clip 16 → 0..32); columns of an omitted argument are NULL.
 *
 * HOW IT WORKS. The BLOBs carry a 4-byte header (kind, levels, n) — see schemas/README.md —
 * so every function checks the kind and size before reading and returns NULL on a mismatch.
 * depth, distance and rel_pos come in a wide (u16/i16) and a narrow (u8/i8) form (kinds 1/9,
 * 2/7, 4/8); st_blob_check accepts either for the logical kind and the element readers
 * dispatch on the kind byte, so every function gives the same answer for both forms.
 * sp_pairs is an eponymous virtual table with three HIDDEN argument columns; xBestIndex
 * requires the distance argument and accepts the other two when given. */
#include <sqlite3ext.h>
#include <string.h>

#include "store/blob.h"

SQLITE_EXTENSION_INIT1

static const uint8_t *arg_blob(sqlite3_value *v, enum st_blob_kind kind, int *n, int *k)
{
    if (sqlite3_value_type(v) != SQLITE_BLOB) return NULL;
    const uint8_t *b = sqlite3_value_blob(v);
    int nn = st_blob_check(b, (size_t)sqlite3_value_bytes(v), kind, k);
    if (nn < 0) return NULL;
    *n = nn;
    return b;
}

static int arg_index(sqlite3_value *v, int n, int *out)
{
    if (sqlite3_value_type(v) != SQLITE_INTEGER) return 0;
    sqlite3_int64 x = sqlite3_value_int64(v);
    if (x < 0 || x >= n) return 0;
    *out = (int)x;
    return 1;
}

static void fn_n(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    if (sqlite3_value_type(argv[0]) != SQLITE_BLOB || sqlite3_value_bytes(argv[0]) < ST_BLOB_HDR) return;
    const uint8_t *b = sqlite3_value_blob(argv[0]);
    int n = -1;
    /* the six logical kinds; st_blob_check maps the narrow kinds 7..9 onto 2, 4, 1 */
    for (int kind = ST_BLOB_DEPTH; kind <= ST_BLOB_SPANS && n < 0; kind++)
        n = st_blob_check(b, (size_t)sqlite3_value_bytes(argv[0]), (enum st_blob_kind)kind, NULL);
    if (n >= 0) sqlite3_result_int(ctx, n);
}

static void fn_depth(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    int n, i;
    const uint8_t *b = arg_blob(argv[0], ST_BLOB_DEPTH, &n, NULL);
    if (b && arg_index(argv[1], n, &i)) sqlite3_result_int(ctx, st_blob_depth_at(b, i));
}

static void fn_distance(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    int n, i, j;
    const uint8_t *b = arg_blob(argv[0], ST_BLOB_DISTANCE, &n, NULL);
    if (b && arg_index(argv[1], n, &i) && arg_index(argv[2], n, &j)) sqlite3_result_int(ctx, st_blob_distance_at(b, n, i, j));
}

static void fn_is_ancestor(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    int n, i, j;
    const uint8_t *b = arg_blob(argv[0], ST_BLOB_ANCESTORS, &n, NULL);
    if (b && arg_index(argv[1], n, &i) && arg_index(argv[2], n, &j)) sqlite3_result_int(ctx, st_blob_ancestor_at(b, n, i, j));
}

static void fn_rel_pos(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    int n, i, j;
    const uint8_t *b = arg_blob(argv[0], ST_BLOB_RELPOS, &n, NULL);
    if (b && arg_index(argv[1], n, &i) && arg_index(argv[2], n, &j)) sqlite3_result_int(ctx, st_blob_relpos_at(b, n, i, j));
}

static void fn_phrase(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    int n, levels, i;
    const uint8_t *b = arg_blob(argv[0], ST_BLOB_PHRASES, &n, &levels);
    if (!b || sqlite3_value_type(argv[1]) != SQLITE_INTEGER) return;
    sqlite3_int64 level = sqlite3_value_int64(argv[1]);
    if (level >= 1 && level <= levels && arg_index(argv[2], n, &i)) sqlite3_result_int(ctx, st_blob_phrase_at(b, n, (int)level, i));
}

/* ---- sp_pairs ---- */

#define PAIR_I 0
#define PAIR_J 1
#define PAIR_WORD_DIST 2
#define PAIR_TREE_DIST 3
#define PAIR_IS_ANC 4
#define PAIR_REL 5
#define PAIR_BUCKET 6
#define PAIR_ARG_DIST 7
#define PAIR_ARG_ANC 8
#define PAIR_ARG_REL 9

typedef struct pairs_cursor {
    sqlite3_vtab_cursor base;      /* must be first */
    unsigned char *dist, *anc, *rel; /* copies of the argument BLOBs (NULL when not given) */
    int n, i, j;
    sqlite3_int64 rowid;
} pairs_cursor;

static int pairs_connect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out, char **err)
{
    int rc = sqlite3_declare_vtab(db, "CREATE TABLE x(i, j, word_distance, tree_distance, is_ancestor, rel_pos, "
                                      "rel_bucket, distance HIDDEN, ancestors HIDDEN, rel_pos_arg HIDDEN)");
    if (rc != SQLITE_OK) return rc;
    sqlite3_vtab *t = sqlite3_malloc(sizeof *t);
    if (!t) return SQLITE_NOMEM;
    memset(t, 0, sizeof *t);
    sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS);
    *out = t;
    return SQLITE_OK;
}

static int pairs_disconnect(sqlite3_vtab *t) { sqlite3_free(t); return SQLITE_OK; }

static int pairs_open(sqlite3_vtab *t, sqlite3_vtab_cursor **out)
{
    pairs_cursor *c = sqlite3_malloc(sizeof *c);
    if (!c) return SQLITE_NOMEM;
    memset(c, 0, sizeof *c);
    *out = &c->base;
    return SQLITE_OK;
}

static void pairs_reset(pairs_cursor *c)
{
    sqlite3_free(c->dist);
    sqlite3_free(c->anc);
    sqlite3_free(c->rel);
    c->dist = c->anc = c->rel = NULL;
    c->n = c->i = c->j = 0;
}

static int pairs_close(sqlite3_vtab_cursor *cur)
{
    pairs_reset((pairs_cursor *)cur);
    sqlite3_free(cur);
    return SQLITE_OK;
}

static unsigned char *copy_blob(sqlite3_value *v, enum st_blob_kind kind, int n_expected, int *n_out)
{
    int n;
    const uint8_t *b = arg_blob(v, kind, &n, NULL);
    if (!b || (n_expected >= 0 && n != n_expected)) return NULL;
    int len = sqlite3_value_bytes(v);
    unsigned char *p = sqlite3_malloc(len);
    if (p) memcpy(p, b, (size_t)len);
    if (n_out) *n_out = n;
    return p;
}

static void pairs_advance_to_valid(pairs_cursor *c)
{
    while (c->i < c->n && (c->j >= c->n || c->j == c->i)) {
        if (c->j >= c->n) { c->i++; c->j = 0; }
        else c->j++;
    }
}

/* idxNum bit 1: distance given, bit 2: ancestors given, bit 4: rel_pos given; argv in that order */
static int pairs_filter(sqlite3_vtab_cursor *cur, int idx_num, const char *idx_str, int argc, sqlite3_value **argv)
{
    pairs_cursor *c = (pairs_cursor *)cur;
    pairs_reset(c);
    int k = 0, n = 0;
    if (idx_num & 1) c->dist = copy_blob(argv[k++], ST_BLOB_DISTANCE, -1, &n);
    if (!c->dist) return SQLITE_OK;          /* not a distance BLOB: no rows */
    if (idx_num & 2) c->anc = copy_blob(argv[k++], ST_BLOB_ANCESTORS, n, NULL);
    if (idx_num & 4) c->rel = copy_blob(argv[k++], ST_BLOB_RELPOS, n, NULL);
    c->n = n;
    c->i = 0;
    c->j = 1;
    c->rowid = 1;
    pairs_advance_to_valid(c);
    return SQLITE_OK;
}

static int pairs_next(sqlite3_vtab_cursor *cur)
{
    pairs_cursor *c = (pairs_cursor *)cur;
    c->j++;
    c->rowid++;
    pairs_advance_to_valid(c);
    return SQLITE_OK;
}

static int pairs_eof(sqlite3_vtab_cursor *cur)
{
    pairs_cursor *c = (pairs_cursor *)cur;
    return c->i >= c->n;
}

static int pairs_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
    pairs_cursor *c = (pairs_cursor *)cur;
    int i = c->i, j = c->j, n = c->n;
    switch (col) {
    case PAIR_I: sqlite3_result_int(ctx, i); break;
    case PAIR_J: sqlite3_result_int(ctx, j); break;
    case PAIR_WORD_DIST: sqlite3_result_int(ctx, i < j ? j - i : i - j); break;
    case PAIR_TREE_DIST: sqlite3_result_int(ctx, st_blob_distance_at(c->dist, n, i, j)); break;
    case PAIR_IS_ANC: if (c->anc) sqlite3_result_int(ctx, st_blob_ancestor_at(c->anc, n, i, j)); break;
    case PAIR_REL: if (c->rel) sqlite3_result_int(ctx, st_blob_relpos_at(c->rel, n, i, j)); break;
    case PAIR_BUCKET:
        if (c->rel) {
            int r = st_blob_relpos_at(c->rel, n, i, j);
            sqlite3_result_int(ctx, (r < -16 ? -16 : r > 16 ? 16 : r) + 16);
        }
        break;
    default: break;                          /* hidden argument columns read back as NULL */
    }
    return SQLITE_OK;
}

static int pairs_rowid(sqlite3_vtab_cursor *cur, sqlite_int64 *rowid)
{
    *rowid = ((pairs_cursor *)cur)->rowid;
    return SQLITE_OK;
}

static int pairs_best_index(sqlite3_vtab *t, sqlite3_index_info *info)
{
    int where[3] = { -1, -1, -1 };
    for (int k = 0; k < info->nConstraint; k++) {
        const struct sqlite3_index_constraint *cn = &info->aConstraint[k];
        if (cn->iColumn < PAIR_ARG_DIST) continue;
        if (!cn->usable) return SQLITE_CONSTRAINT;
        if (cn->op != SQLITE_INDEX_CONSTRAINT_EQ) continue;
        where[cn->iColumn - PAIR_ARG_DIST] = k;
    }
    if (where[0] < 0) {
        sqlite3_free(t->zErrMsg);
        t->zErrMsg = sqlite3_mprintf("sp_pairs(distance [, ancestors [, rel_pos]]) needs the distance BLOB argument");
        return SQLITE_ERROR;
    }
    int argi = 1, idx = 0;
    for (int a = 0; a < 3; a++) {
        if (where[a] < 0) continue;
        idx |= 1 << a;
        info->aConstraintUsage[where[a]].argvIndex = argi++;
        info->aConstraintUsage[where[a]].omit = 1;
    }
    info->idxNum = idx;
    info->estimatedCost = 1000;
    info->estimatedRows = 1000;
    return SQLITE_OK;
}

static sqlite3_module pairs_module = {
    .iVersion = 0,
    .xCreate = 0,                  /* eponymous only: no CREATE VIRTUAL TABLE */
    .xConnect = pairs_connect,
    .xBestIndex = pairs_best_index,
    .xDisconnect = pairs_disconnect,
    .xOpen = pairs_open,
    .xClose = pairs_close,
    .xFilter = pairs_filter,
    .xNext = pairs_next,
    .xEof = pairs_eof,
    .xColumn = pairs_column,
    .xRowid = pairs_rowid,
};

#ifdef _WIN32
__declspec(dllexport)
#endif
int sqlite3_synprobesql_init(sqlite3 *db, char **err, const sqlite3_api_routines *api)
{
    SQLITE_EXTENSION_INIT2(api);
    const int flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS;
    int rc = SQLITE_OK;
    if (!rc) rc = sqlite3_create_function(db, "sp_n", 1, flags, 0, fn_n, 0, 0);
    if (!rc) rc = sqlite3_create_function(db, "sp_depth", 2, flags, 0, fn_depth, 0, 0);
    if (!rc) rc = sqlite3_create_function(db, "sp_distance", 3, flags, 0, fn_distance, 0, 0);
    if (!rc) rc = sqlite3_create_function(db, "sp_is_ancestor", 3, flags, 0, fn_is_ancestor, 0, 0);
    if (!rc) rc = sqlite3_create_function(db, "sp_rel_pos", 3, flags, 0, fn_rel_pos, 0, 0);
    if (!rc) rc = sqlite3_create_function(db, "sp_phrase", 3, flags, 0, fn_phrase, 0, 0);
    if (!rc) rc = sqlite3_create_module(db, "sp_pairs", &pairs_module, 0);
    return rc;
}
