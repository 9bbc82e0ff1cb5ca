/* tests/unit/store_blob.c — the structure BLOB codec (store/blob.h, schemas/README.md), wide and
 * narrow forms of depth / distance / rel_pos.
 *
 * Expected bytes are written out by hand: docs/spec/structures.md §3.7 TV-5 (`Two kids at a ballgame wash
 * their hands`, depth / D / rel matrices printed there), serialised per schemas/README.md. Chains
 * give the boundaries: in a right chain (word k's head is k−1) depth[k] = k, D[i][j] = |i − j| and,
 * every pair being vertical, rel[i][j] = depth[i] − depth[j] = i − j; in a left chain (word k's head
 * is k+1) rel[i][j] = j − i. So a 256-word chain has max distance 255 (narrow) and a 257-word one 256
 * (wide); rel[0][n−1] = −(n−1) is narrow up to n = 129, and +(n−1) in a left chain up to n = 128.
 * The SQL extension (build/synprobe_sql.so, next to this program's directory) is loaded into an
 * in-memory database and queried on both forms of TV-5 when it has been built. */
#include <libgen.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/sp.h"
#include "store/blob.h"
#include "store/st_derive.h"
#include "t_harness.h"

#define N5 8
static const int tv5_head[N5] = { 1, 5, 4, 4, 1, -1, 7, 5 };   /* 1-based [2,6,5,5,2,0,8,6] */
static const int tv5_depth[N5] = { 2, 1, 3, 3, 2, 0, 2, 1 };
static const int tv5_D[N5][N5] = {
    { 0, 1, 3, 3, 2, 2, 4, 3 }, { 1, 0, 2, 2, 1, 1, 3, 2 }, { 3, 2, 0, 2, 1, 3, 5, 4 }, { 3, 2, 2, 0, 1, 3, 5, 4 },
    { 2, 1, 1, 1, 0, 2, 4, 3 }, { 2, 1, 3, 3, 2, 0, 2, 1 }, { 4, 3, 5, 5, 4, 2, 0, 1 }, { 3, 2, 4, 4, 3, 1, 1, 0 },
};
static const int tv5_rel[N5][N5] = {
    { 0, 1, 5, 5, 4, 2, 4, 3 },         { -1, 0, -2, -2, -1, 1, 3, 2 },   { -5, 2, 0, 6, 1, 3, 5, 4 },
    { -5, 2, -6, 0, 1, 3, 5, 4 },       { -4, 1, -1, -1, 0, 2, 4, 3 },    { -2, -1, -3, -3, -2, 0, -2, -1 },
    { -4, -3, -5, -5, -4, 2, 0, 1 },    { -3, -2, -4, -4, -3, 1, -1, 0 },
};

/* schemas/README.md example, by hand from the matrices above (upper triangle, row by row) */
static const uint8_t tv5_depth8[] = { 9, 1, 8, 0, 2, 1, 3, 3, 2, 0, 2, 1 };
static const uint8_t tv5_depth16[] = { 1, 1, 8, 0, 2, 0, 1, 0, 3, 0, 3, 0, 2, 0, 0, 0, 2, 0, 1, 0 };
static const uint8_t tv5_dist8[] = {
    7, 1, 8, 0,
    1, 3, 3, 2, 2, 4, 3,   2, 2, 1, 1, 3, 2,   2, 1, 3, 5, 4,   1, 3, 5, 4,   2, 4, 3,   2, 1,   1,
};
static const uint8_t tv5_rel8[] = {
    8, 1, 8, 0,
    0x01, 0x05, 0x05, 0x04, 0x02, 0x04, 0x03,   0xfe, 0xfe, 0xff, 0x01, 0x03, 0x02,   0x06, 0x01, 0x03, 0x05, 0x04,
    0x01, 0x03, 0x05, 0x04,   0x02, 0x04, 0x03,   0xfe, 0xff,   0x01,
};
/* The wide forms as an older store holds them: the same values as u16 / i16 little-endian. */
static const uint8_t tv5_dist16[] = {
    2, 1, 8, 0,
    1, 0, 3, 0, 3, 0, 2, 0, 2, 0, 4, 0, 3, 0,   2, 0, 2, 0, 1, 0, 1, 0, 3, 0, 2, 0,   2, 0, 1, 0, 3, 0, 5, 0, 4, 0,
    1, 0, 3, 0, 5, 0, 4, 0,   2, 0, 4, 0, 3, 0,   2, 0, 1, 0,   1, 0,
};
static const uint8_t tv5_rel16[] = {
    4, 1, 8, 0,
    1, 0, 5, 0, 5, 0, 4, 0, 2, 0, 4, 0, 3, 0,   0xfe, 0xff, 0xfe, 0xff, 0xff, 0xff, 1, 0, 3, 0, 2, 0,
    6, 0, 1, 0, 3, 0, 5, 0, 4, 0,   1, 0, 3, 0, 5, 0, 4, 0,   2, 0, 4, 0, 3, 0,   0xfe, 0xff, 0xff, 0xff,   1, 0,
};

/* every reader on a blob that should hold TV-5 */
static void check_tv5_readers(const uint8_t *dep, size_t dep_len, const uint8_t *dist, size_t dist_len,
                              const uint8_t *rel, size_t rel_len)
{
    int lv = -7;
    T_EQ_INT(st_blob_check(dep, dep_len, ST_BLOB_DEPTH, &lv), N5);
    T_EQ_INT(lv, 1);
    T_EQ_INT(st_blob_check(dist, dist_len, ST_BLOB_DISTANCE, NULL), N5);
    T_EQ_INT(st_blob_check(rel, rel_len, ST_BLOB_RELPOS, NULL), N5);
    int bad = 0;
    for (int i = 0; i < N5; i++) bad += st_blob_depth_at(dep, i) != tv5_depth[i];
    T_EQ_INT(bad, 0);
    int m[N5 * N5];
    bad = 0;
    for (int i = 0; i < N5; i++)
        for (int j = 0; j < N5; j++)
            bad += st_blob_distance_at(dist, N5, i, j) != tv5_D[i][j] || st_blob_relpos_at(rel, N5, i, j) != tv5_rel[i][j];
    T_EQ_INT(bad, 0);
    memset(m, 0x55, sizeof m);
    st_blob_get_distance(dist, N5, m);
    T_CHECK(!memcmp(m, tv5_D, sizeof m));
    memset(m, 0x55, sizeof m);
    st_blob_get_relpos(rel, N5, m);
    T_CHECK(!memcmp(m, tv5_rel, sizeof m));
}

static void test_tv5_put(void)
{
    /* capacity = the wide size (blob.h); poison the tail to see the narrow writer stops short */
    uint8_t buf[4 + 2 * 28 + 8];
    T_EQ_INT(st_blob_size(ST_BLOB_DISTANCE, N5, 1), 60);
    T_EQ_INT(st_blob_size(ST_BLOB_DISTANCE8, N5, 1), 32);
    T_EQ_INT(st_blob_size(ST_BLOB_RELPOS8, N5, 1), 32);
    T_EQ_INT(st_blob_size(ST_BLOB_DEPTH8, N5, 1), 12);

    memset(buf, 0xcc, sizeof buf);
    T_EQ_INT(st_blob_put_depth(buf, N5, tv5_depth), sizeof tv5_depth8);
    T_CHECK(!memcmp(buf, tv5_depth8, sizeof tv5_depth8));
    T_EQ_INT(buf[sizeof tv5_depth8], 0xcc);

    memset(buf, 0xcc, sizeof buf);
    T_EQ_INT(st_blob_put_distance(buf, N5, &tv5_D[0][0]), sizeof tv5_dist8);
    T_CHECK(!memcmp(buf, tv5_dist8, sizeof tv5_dist8));
    T_EQ_INT(buf[sizeof tv5_dist8], 0xcc);

    memset(buf, 0xcc, sizeof buf);
    T_EQ_INT(st_blob_put_relpos(buf, N5, &tv5_rel[0][0]), sizeof tv5_rel8);
    T_CHECK(!memcmp(buf, tv5_rel8, sizeof tv5_rel8));
    T_EQ_INT(buf[sizeof tv5_rel8], 0xcc);
}

static void test_tv5_read_both_forms(void)
{
    check_tv5_readers(tv5_depth8, sizeof tv5_depth8, tv5_dist8, sizeof tv5_dist8, tv5_rel8, sizeof tv5_rel8);
    /* hand-built wide blobs, as stores written before the narrow kinds hold them */
    T_EQ_INT(sizeof tv5_dist16, 60);
    T_EQ_INT(sizeof tv5_rel16, 60);
    check_tv5_readers(tv5_depth16, sizeof tv5_depth16, tv5_dist16, sizeof tv5_dist16, tv5_rel16, sizeof tv5_rel16);
    /* mixed: each column self-describes */
    check_tv5_readers(tv5_depth16, sizeof tv5_depth16, tv5_dist8, sizeof tv5_dist8, tv5_rel16, sizeof tv5_rel16);
}

/* st_derive (what ingest stores) on TV-5's heads: the narrow bytes above, returned sizes stored */
static void test_tv5_derive(void)
{
    struct sp_sentence s;
    memset(&s, 0, sizeof s);
    s.n = N5;
    s.head = (int *)tv5_head;
    struct sp_arena a;
    sp_arena_init(&a);
    struct st_derive_scratch sc;
    st_derive_scratch_init(&sc);
    struct st_derived d;
    T_EQ_INT(st_derive(&s, 3, &a, &sc, &d), 0);
    T_EQ_INT(d.has_dep, 1);
    T_EQ_INT(d.depth.n, sizeof tv5_depth8);
    T_CHECK(d.depth.n == sizeof tv5_depth8 && !memcmp(d.depth.p, tv5_depth8, sizeof tv5_depth8));
    T_EQ_INT(d.distance.n, sizeof tv5_dist8);
    T_CHECK(d.distance.n == sizeof tv5_dist8 && !memcmp(d.distance.p, tv5_dist8, sizeof tv5_dist8));
    T_EQ_INT(d.relpos.n, sizeof tv5_rel8);
    T_CHECK(d.relpos.n == sizeof tv5_rel8 && !memcmp(d.relpos.p, tv5_rel8, sizeof tv5_rel8));
    st_derive_scratch_free(&sc);
    sp_arena_free(&a);
}

/* A chain of n words through put/check/at/get: `left` = head is the next word (root last).
 * Expects the given kinds and checks every element against the chain formulas. */
static void chain_case(int n, int left, int want_depth_kind, int want_dist_kind, int want_rel_kind)
{
    size_t nn = (size_t)n * n;
    int *depth = malloc(sizeof(int) * n), *D = malloc(sizeof(int) * nn), *R = malloc(sizeof(int) * nn);
    int *got = malloc(sizeof(int) * nn);
    for (int i = 0; i < n; i++) depth[i] = left ? n - 1 - i : i;
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) {
            D[i * n + j] = i < j ? j - i : i - j;
            R[i * n + j] = depth[i] - depth[j];       /* every pair of a chain is vertical */
        }
    }
    /* each buffer exactly the wide capacity blob.h asks for (ASan sees any overrun) */
    uint8_t *b = malloc(st_blob_size(ST_BLOB_DEPTH, n, 1));
    size_t len;

    len = st_blob_put_depth(b, n, depth);
    T_EQ_INT(b[0], want_depth_kind);
    T_EQ_INT(len, st_blob_size((enum st_blob_kind)want_depth_kind, n, 1));
    T_EQ_INT(st_blob_check(b, len, ST_BLOB_DEPTH, NULL), n);
    int bad = 0;
    for (int i = 0; i < n; i++) bad += st_blob_depth_at(b, i) != depth[i];
    T_EQ_INT(bad, 0);
    free(b);

    b = malloc(st_blob_size(ST_BLOB_DISTANCE, n, 1));
    len = st_blob_put_distance(b, n, D);
    T_EQ_INT(b[0], want_dist_kind);
    T_EQ_INT(len, st_blob_size((enum st_blob_kind)want_dist_kind, n, 1));
    T_EQ_INT(st_blob_check(b, len, ST_BLOB_DISTANCE, NULL), n);
    T_EQ_INT(st_blob_distance_at(b, n, 0, n - 1), n - 1);
    T_EQ_INT(st_blob_distance_at(b, n, n - 1, 0), n - 1);
    st_blob_get_distance(b, n, got);
    T_CHECK(!memcmp(got, D, sizeof(int) * nn));
    bad = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) bad += st_blob_distance_at(b, n, i, j) != D[i * n + j];
    T_EQ_INT(bad, 0);
    free(b);

    b = malloc(st_blob_size(ST_BLOB_RELPOS, n, 1));
    len = st_blob_put_relpos(b, n, R);
    T_EQ_INT(b[0], want_rel_kind);
    T_EQ_INT(len, st_blob_size((enum st_blob_kind)want_rel_kind, n, 1));
    T_EQ_INT(st_blob_check(b, len, ST_BLOB_RELPOS, NULL), n);
    T_EQ_INT(st_blob_relpos_at(b, n, 0, n - 1), left ? n - 1 : -(n - 1));   /* unclipped */
    T_EQ_INT(st_blob_relpos_at(b, n, n - 1, 0), left ? -(n - 1) : n - 1);
    st_blob_get_relpos(b, n, got);
    T_CHECK(!memcmp(got, R, sizeof(int) * nn));
    bad = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) bad += st_blob_relpos_at(b, n, i, j) != R[i * n + j];
    T_EQ_INT(bad, 0);

    free(b); free(got); free(R); free(D); free(depth);
}

static void test_chains(void)
{
    chain_case(256, 0, ST_BLOB_DEPTH8, ST_BLOB_DISTANCE8, ST_BLOB_RELPOS);   /* max D 255, rel −255 */
    chain_case(257, 0, ST_BLOB_DEPTH, ST_BLOB_DISTANCE, ST_BLOB_RELPOS);     /* D 256, depth 256 */
    chain_case(258, 0, ST_BLOB_DEPTH, ST_BLOB_DISTANCE, ST_BLOB_RELPOS);
    chain_case(129, 0, ST_BLOB_DEPTH8, ST_BLOB_DISTANCE8, ST_BLOB_RELPOS8);  /* rel −128 fits */
    chain_case(130, 0, ST_BLOB_DEPTH8, ST_BLOB_DISTANCE8, ST_BLOB_RELPOS);   /* rel −129 does not */
    chain_case(128, 1, ST_BLOB_DEPTH8, ST_BLOB_DISTANCE8, ST_BLOB_RELPOS8);  /* rel +127 fits */
    chain_case(129, 1, ST_BLOB_DEPTH8, ST_BLOB_DISTANCE8, ST_BLOB_RELPOS);   /* rel +128 does not */
    chain_case(1, 0, ST_BLOB_DEPTH8, ST_BLOB_DISTANCE8, ST_BLOB_RELPOS8);    /* empty triangle */
    chain_case(2, 1, ST_BLOB_DEPTH8, ST_BLOB_DISTANCE8, ST_BLOB_RELPOS8);
}

/* st_derive on a 300-word right chain: the wide kinds, in buffers sized by st_blob_size */
static void test_chain_derive(void)
{
    enum { N = 300 };
    static int head[N];
    for (int i = 0; i < N; i++) head[i] = i - 1;
    struct sp_sentence s;
    memset(&s, 0, sizeof s);
    s.n = N;
    s.head = head;
    struct sp_arena a;
    sp_arena_init(&a);
    struct st_derive_scratch sc;
    st_derive_scratch_init(&sc);
    struct st_derived d;
    T_EQ_INT(st_derive(&s, 3, &a, &sc, &d), 0);
    T_EQ_INT(d.distance.p[0], ST_BLOB_DISTANCE);
    T_EQ_INT(d.distance.n, 4 + (size_t)N * (N - 1));
    T_EQ_INT(d.relpos.p[0], ST_BLOB_RELPOS);
    T_EQ_INT(d.depth.p[0], ST_BLOB_DEPTH);
    T_EQ_INT(st_blob_distance_at(d.distance.p, N, 3, 299), 296);
    T_EQ_INT(st_blob_relpos_at(d.relpos.p, N, 3, 299), -296);
    T_EQ_INT(st_blob_depth_at(d.depth.p, 299), 299);
    st_derive_scratch_free(&sc);
    sp_arena_free(&a);
}

static void test_check_rejects(void)
{
    uint8_t b[64];
    /* exact length for the stored form */
    T_EQ_INT(st_blob_check(tv5_dist8, sizeof tv5_dist8 - 1, ST_BLOB_DISTANCE, NULL), -1);
    memcpy(b, tv5_dist8, sizeof tv5_dist8);
    b[sizeof tv5_dist8] = 0;
    T_EQ_INT(st_blob_check(b, sizeof tv5_dist8 + 1, ST_BLOB_DISTANCE, NULL), -1);
    T_EQ_INT(st_blob_check(tv5_rel8, sizeof tv5_rel8 - 1, ST_BLOB_RELPOS, NULL), -1);
    T_EQ_INT(st_blob_check(tv5_depth8, sizeof tv5_depth8 - 1, ST_BLOB_DEPTH, NULL), -1);
    /* narrow kind byte with the wide length, and the reverse */
    memcpy(b, tv5_dist16, sizeof tv5_dist16);
    b[0] = ST_BLOB_DISTANCE8;
    T_EQ_INT(st_blob_check(b, sizeof tv5_dist16, ST_BLOB_DISTANCE, NULL), -1);
    memcpy(b, tv5_rel8, sizeof tv5_rel8);
    b[0] = ST_BLOB_RELPOS;
    T_EQ_INT(st_blob_check(b, sizeof tv5_rel8, ST_BLOB_RELPOS, NULL), -1);
    /* wrong logical kind: same length, other column */
    T_EQ_INT(st_blob_check(tv5_dist8, sizeof tv5_dist8, ST_BLOB_RELPOS, NULL), -1);
    T_EQ_INT(st_blob_check(tv5_rel8, sizeof tv5_rel8, ST_BLOB_DISTANCE, NULL), -1);
    T_EQ_INT(st_blob_check(tv5_depth8, sizeof tv5_depth8, ST_BLOB_PHRASES, NULL), -1);
    T_EQ_INT(st_blob_check(tv5_dist8, sizeof tv5_dist8, ST_BLOB_ANCESTORS, NULL), -1);
    memcpy(b, tv5_dist8, sizeof tv5_dist8);
    b[0] = 10;                                   /* no such kind */
    T_EQ_INT(st_blob_check(b, sizeof tv5_dist8, ST_BLOB_DISTANCE, NULL), -1);
    /* levels must be 1 */
    memcpy(b, tv5_rel8, sizeof tv5_rel8);
    b[1] = 2;
    T_EQ_INT(st_blob_check(b, sizeof tv5_rel8, ST_BLOB_RELPOS, NULL), -1);
    /* truncated header */
    T_EQ_INT(st_blob_check(tv5_dist8, 3, ST_BLOB_DISTANCE, NULL), -1);
    T_EQ_INT(st_blob_check(tv5_rel8, 0, ST_BLOB_RELPOS, NULL), -1);
    T_EQ_INT(st_blob_check(NULL, 32, ST_BLOB_DISTANCE, NULL), -1);
    /* asking for the narrow kind by name also works, for either stored form */
    T_EQ_INT(st_blob_check(tv5_dist8, sizeof tv5_dist8, ST_BLOB_DISTANCE8, NULL), N5);
    T_EQ_INT(st_blob_check(tv5_dist16, sizeof tv5_dist16, ST_BLOB_DISTANCE8, NULL), N5);
    /* n = 0: header only */
    const uint8_t empty[] = { 7, 1, 0, 0 };
    T_EQ_INT(st_blob_check(empty, 4, ST_BLOB_DISTANCE, NULL), 0);
}

/* ---- the SQL extension on both forms ---- */

static char *sql_one(sqlite3 *db, const char *q)
{
    sqlite3_stmt *st = NULL;
    char *out = NULL;
    if (sqlite3_prepare_v2(db, q, -1, &st, NULL) != SQLITE_OK) {
        fprintf(stderr, "sql: %s: %s\n", q, sqlite3_errmsg(db));
        return strdup("(error)");
    }
    if (sqlite3_step(st) == SQLITE_ROW) {
        const unsigned char *t = sqlite3_column_text(st, 0);
        out = strdup(t ? (const char *)t : "(null)");
    }
    sqlite3_finalize(st);
    return out ? out : strdup("(no row)");
}

static void hex(char *out, const uint8_t *b, size_t n)
{
    for (size_t k = 0; k < n; k++) sprintf(out + 2 * k, "%02x", b[k]);
}

static void sql_expect(sqlite3 *db, const char *q, const char *want)
{
    char *got = sql_one(db, q);
    T_EQ_STR(got, want);
    if (strcmp(got, want)) fprintf(stderr, "  query: %s\n", q);
    free(got);
}

static void test_sql(const char *argv0)
{
    char *dup = strdup(argv0), path[4096];
    snprintf(path, sizeof path, "%s/../synprobe_sql.so", dirname(dup));
    free(dup);
    FILE *f = fopen(path, "rb");
    if (!f) { T_SKIP("build/synprobe_sql.so not built yet: SQL checks skipped"); return; }
    fclose(f);
    sqlite3 *db;
    T_EQ_INT(sqlite3_open(":memory:", &db), SQLITE_OK);
    sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 1, NULL);
    char *err = NULL;
    int rc = sqlite3_load_extension(db, path, "sqlite3_synprobesql_init", &err);
    T_EQ_INT(rc, SQLITE_OK);
    if (rc) { fprintf(stderr, "load %s: %s\n", path, err ? err : "?"); sqlite3_free(err); sqlite3_close(db); return; }

    T_EQ_INT(sqlite3_exec(db, "create table k(value); insert into k values (0),(1),(2),(3),(4),(5),(6),(7)",
                          NULL, NULL, NULL), SQLITE_OK);
    /* TV-5 rows and sums, identical for both forms */
    const uint8_t *forms[2][3] = { { tv5_depth8, tv5_dist8, tv5_rel8 }, { tv5_depth16, tv5_dist16, tv5_rel16 } };
    const size_t lens[2][3] = { { sizeof tv5_depth8, sizeof tv5_dist8, sizeof tv5_rel8 },
                                { sizeof tv5_depth16, sizeof tv5_dist16, sizeof tv5_rel16 } };
    for (int w = 0; w < 2; w++) {
        char h[3][256], q[2048];
        for (int c = 0; c < 3; c++) hex(h[c], forms[w][c], lens[w][c]);
        snprintf(q, sizeof q, "create table t%d(depth blob, distance blob, rel_pos blob);"
                 "insert into t%d values (x'%s', x'%s', x'%s')", w, w, h[0], h[1], h[2]);
        T_EQ_INT(sqlite3_exec(db, q, NULL, NULL, NULL), SQLITE_OK);
        snprintf(q, sizeof q, "select sp_n(depth) || ',' || sp_n(distance) || ',' || sp_n(rel_pos) from t%d", w);
        sql_expect(db, q, "8,8,8");
        snprintf(q, sizeof q, "select group_concat(sp_depth(depth, value), ',') from t%d, k", w);
        sql_expect(db, q, "2,1,3,3,2,0,2,1");
        snprintf(q, sizeof q, "select group_concat(sp_distance(distance, 4, value), ',') from t%d, k", w);
        sql_expect(db, q, "2,1,1,1,0,2,4,3");
        snprintf(q, sizeof q, "select group_concat(sp_rel_pos(rel_pos, 5, value), ',') from t%d, k", w);
        sql_expect(db, q, "-2,-1,-3,-3,-2,0,-2,-1");
        snprintf(q, sizeof q, "select group_concat(sp_rel_pos(rel_pos, value, 5), ',') from t%d, k", w);
        sql_expect(db, q, "2,1,3,3,2,0,2,1");
        /* out of range / wrong column → NULL */
        snprintf(q, sizeof q, "select coalesce(sp_distance(distance, 0, 8), 'null') || ',' || "
                 "coalesce(sp_distance(rel_pos, 0, 1), 'null') || ',' || coalesce(sp_rel_pos(distance, 0, 1), 'null') || ',' || "
                 "coalesce(sp_depth(distance, 0), 'null') from t%d", w);
        sql_expect(db, q, "null,null,null,null");
        /* sp_pairs: 56 ordered pairs; D summed over the table of docs/spec/structures.md §3.7, row by row 18+12+20+20+14+14+24+18 = 140;
         * rel sums to 0 (antisymmetric); bucket = clip(rel)+16 sums to 56·16 = 896 (every |rel| <= 6);
         * D = 1 with word distance >= 4 is only the arc wash→kids (1,5), in both orders */
        snprintf(q, sizeof q, "select count(*) || ',' || sum(tree_distance) || ',' || sum(p.rel_pos) || ',' || sum(rel_bucket) || ',' || "
                 "sum(tree_distance = 1 and word_distance >= 4) from t%d, sp_pairs(t%d.distance, null, t%d.rel_pos) p", w, w, w);
        sql_expect(db, q, "56,140,0,896,2");
        snprintf(q, sizeof q, "select group_concat(p.rel_pos, ',') from t%d, sp_pairs(t%d.distance, null, t%d.rel_pos) p where p.i = 2", w, w, w);
        sql_expect(db, q, "-5,2,6,1,3,5,4");
    }
    /* a wide rel_pos outside [-128, 127] reads unclipped: a 130-word right chain has rel[0][129] = −129 */
    {
        enum { N = 130 };
        static int R[N * N];
        for (int i = 0; i < N; i++)
            for (int j = 0; j < N; j++) R[i * N + j] = i - j;
        static uint8_t b[4 + N * (N - 1)];
        size_t len = st_blob_put_relpos(b, N, R);
        sqlite3_stmt *st;
        T_EQ_INT(sqlite3_prepare_v2(db, "select sp_rel_pos(?1, 0, 129), sp_rel_pos(?1, 129, 0), sp_n(?1)", -1, &st, NULL), SQLITE_OK);
        sqlite3_bind_blob(st, 1, b, (int)len, SQLITE_STATIC);
        T_EQ_INT(sqlite3_step(st), SQLITE_ROW);
        T_EQ_INT(sqlite3_column_int(st, 0), -129);
        T_EQ_INT(sqlite3_column_int(st, 1), 129);
        T_EQ_INT(sqlite3_column_int(st, 2), N);
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
}

int main(int argc, char **argv)
{
    test_tv5_put();
    test_tv5_read_both_forms();
    test_tv5_derive();
    test_chains();
    test_chain_derive();
    test_check_rejects();
    test_sql(argv[0]);
    return T_DONE();
}
