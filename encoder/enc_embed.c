/* encoder/enc_embed.c — word embeddings: GloVe / word2vec text loader, vocabulary, OOV hashing,
 * and seeded random vectors when there is no file.
 *
 * How it works: the file is read line by line; a first line of exactly two integers is a
 * word2vec "count dim" header and is skipped. Each data line holds a word and `dim` numbers;
 * the numbers are the LAST dim fields, so words containing spaces (present in GloVe 840B)
 * survive. Rows go into one growing table; an open-addressing hash (FNV-1a) maps word -> row;
 * a repeated word keeps its first row. After the V file rows come ENC_OOV_BUCKETS rows drawn
 * from sp_rng(seed ^ 0x4f4f56) (PSAN hashes OOV words to 128 random vectors): an OOV word uses
 * row V + fnv1a(word) % 128. Without a file, a word's vector comes from sp_rng(fnv1a(word) ^ seed).
 * Random values are uniform in ±sqrt(3/dim) (unit expected norm).
 *
 * Lookup: exact form, then ASCII lower-case. Callers unescape PTB forms (-LRB- -> "(") first
 * when the vocabulary uses raw characters (docs/spec/structures.md §2.3). */
#include "encoder/encoder_int.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>

#include "common/npy.h"
#include "common/stop.h"

/* a stop request (common/stop.h) is looked at every this many lines: GloVe's 400,000 lines take
 * seconds to parse */
#define STOP_CHECK_LINES 4096

struct enc_embed {
    int dim, V;
    long file_rows;            /* data lines read (kept or not) */
    uint64_t seed;
    float *table;              /* [(V + ENC_OOV_BUCKETS), dim] */
    char **word;               /* [V] */
    int32_t *slot;             /* hash slots -> row, -1 empty */
    size_t nslot;
    struct sp_arena arena;
};

static void rand_vec(uint64_t seed, int dim, float *out)
{
    struct sp_rng r;
    sp_rng_seed(&r, seed);
    double a = sqrt(3.0 / dim);
    for (int k = 0; k < dim; k++) out[k] = (float)(a * (2.0 * sp_rng_uniform(&r) - 1.0));
}

static int32_t find(const struct enc_embed *m, const char *w)
{
    if (!m->nslot) return -1;
    size_t h = (size_t)enc_fnv1a(w, 0) & (m->nslot - 1);
    while (m->slot[h] >= 0) {
        if (!strcmp(m->word[m->slot[h]], w)) return m->slot[h];
        h = (h + 1) & (m->nslot - 1);
    }
    return -1;
}

static void insert(struct enc_embed *m, int32_t row)
{
    size_t h = (size_t)enc_fnv1a(m->word[row], 0) & (m->nslot - 1);
    while (m->slot[h] >= 0) h = (h + 1) & (m->nslot - 1);
    m->slot[h] = row;
}

static void rehash(struct enc_embed *m, size_t nslot)
{
    free(m->slot);
    m->nslot = nslot;
    m->slot = sp_xmalloc(sizeof(int32_t) * nslot);
    memset(m->slot, 0xff, sizeof(int32_t) * nslot);
    for (int32_t r = 0; r < m->V; r++) insert(m, r);
}

/* A file row: kept unless its word is there already (the first row of a word wins). */
static void add_row(struct enc_embed *m, const char *word, const float *vals, size_t *rows_cap)
{
    if ((size_t)(m->V + 1) * 2 > m->nslot) rehash(m, m->nslot ? m->nslot * 2 : 1024);
    if (find(m, word) >= 0) return;
    if ((size_t)m->V == *rows_cap) {
        *rows_cap = *rows_cap ? *rows_cap * 2 : 1024;
        m->table = sp_xrealloc(m->table, sizeof(float) * *rows_cap * (size_t)m->dim);
        m->word = sp_xrealloc(m->word, sizeof(char *) * *rows_cap);
    }
    memcpy(m->table + (size_t)m->V * m->dim, vals, sizeof(float) * (size_t)m->dim);
    m->word[m->V] = sp_arena_strdup(&m->arena, word);
    insert(m, m->V);
    m->V++;
}

/* The array form (e.g. GloVe 6B 50d of `make models`): FOLDER/vectors.npy (float32 [V, dim]) and
 * FOLDER/words.txt (the word of row i on line i+1), given as the folder or as the .npy file. */
static int read_npy_pair(struct enc_embed *m, const char *path, int (*keep)(void *ctx, const char *word), void *keep_ctx,
                         char *err, size_t errlen)
{
    char npy[4096], words[4096];
    size_t n = strlen(path);
    if (n > 4 && !strcmp(path + n - 4, ".npy")) {
        snprintf(npy, sizeof npy, "%s", path);
        const char *slash = strrchr(path, '/');
        snprintf(words, sizeof words, "%.*swords.txt", slash ? (int)(slash - path + 1) : 0, path);
    } else {
        snprintf(npy, sizeof npy, "%s/vectors.npy", path);
        snprintf(words, sizeof words, "%s/words.txt", path);
    }
    struct sp_npy a;
    int rc = sp_npy_read(npy, &a, err, errlen);
    if (rc != SP_OK) return rc;
    if (a.ndim != 2 || a.dtype != SP_DT_F32 || a.shape[0] == 0 || a.shape[1] == 0) {
        snprintf(err, errlen, "%s: expected a 2-D float32 array (words, dim)", npy);
        sp_npy_free(&a);
        return SP_EPARSE;
    }
    if (m->dim > 0 && (size_t)m->dim != a.shape[1]) {
        snprintf(err, errlen, "%s: vectors of width %zu, expected %d", npy, a.shape[1], m->dim);
        sp_npy_free(&a);
        return SP_EPARSE;
    }
    m->dim = (int)a.shape[1];
    char e[SP_ERRLEN];
    FILE *f = sp_fopen_input(words, e, sizeof e);
    if (!f) { snprintf(err, errlen, "%s (the words of %s, one a line)", e, npy); sp_npy_free(&a); return SP_EIO; }
    char *line = NULL;
    size_t cap = 0, rows_cap = 0;
    ssize_t len;
    const float *X = a.data;
    while (rc == SP_OK && (len = getline(&line, &cap, f)) >= 0) {
        if ((m->file_rows + 1) % STOP_CHECK_LINES == 0 && sp_stopping()) {
            snprintf(err, errlen, "%s:%ld: stopped while reading", words, m->file_rows + 1);
            rc = SP_ESTOPPED;
            break;
        }
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r')) line[--len] = 0;
        if ((size_t)m->file_rows >= a.shape[0]) {
            snprintf(err, errlen, "%s:%ld: more words than the %zu rows of %s", words, m->file_rows + 1, a.shape[0], npy);
            rc = SP_EPARSE;
            break;
        }
        const float *row = X + (size_t)m->file_rows * a.shape[1];
        m->file_rows++;
        if (!len || (keep && !keep(keep_ctx, line))) continue;
        for (size_t k = 0; k < a.shape[1]; k++)
            if (!isfinite(row[k])) {
                snprintf(err, errlen, "%s: row %ld (%s), column %zu: not a finite number", npy, m->file_rows - 1, line, k);
                rc = SP_EPARSE;
                break;
            }
        if (rc == SP_OK) add_row(m, line, row, &rows_cap);
    }
    if (rc == SP_OK && (size_t)m->file_rows != a.shape[0]) {
        snprintf(err, errlen, "%s: %ld words for the %zu rows of %s", words, m->file_rows, a.shape[0], npy);
        rc = SP_EPARSE;
    }
    free(line);
    fclose(f);
    sp_npy_free(&a);
    return rc;
}

/* After the file rows: the ENC_OOV_BUCKETS seeded rows OOV words hash to. */
static int finish_table(struct enc_embed *m, uint64_t seed, enc_embed_t **out)
{
    m->table = sp_xrealloc(m->table, sizeof(float) * (size_t)(m->V + ENC_OOV_BUCKETS) * m->dim);
    struct sp_rng r;
    sp_rng_seed(&r, seed ^ 0x4f4f56ull);
    double a = sqrt(3.0 / m->dim);
    float *oov = m->table + (size_t)m->V * m->dim;
    for (size_t k = 0; k < (size_t)ENC_OOV_BUCKETS * m->dim; k++) oov[k] = (float)(a * (2.0 * sp_rng_uniform(&r) - 1.0));
    *out = m;
    return SP_OK;
}

int enc_embed_open(const char *path, int dim, uint64_t seed, enc_embed_t **out, char *err, size_t errlen)
{
    return enc_embed_open_filtered(path, dim, seed, NULL, NULL, out, err, errlen);
}

int enc_embed_open_filtered(const char *path, int dim, uint64_t seed, int (*keep)(void *ctx, const char *word),
                            void *keep_ctx, enc_embed_t **out, char *err, size_t errlen)
{
    *out = NULL;
    struct enc_embed *m = sp_xcalloc(1, sizeof *m);
    m->seed = seed;
    m->dim = dim;
    sp_arena_init(&m->arena);
    if (!path) {
        if (dim <= 0) { snprintf(err, errlen, "embeddings: dimension must be positive without a file"); free(m); return SP_EUSAGE; }
        *out = m;
        return SP_OK;
    }
    struct stat st;
    size_t plen = strlen(path);
    if ((stat(path, &st) == 0 && S_ISDIR(st.st_mode)) || (plen > 4 && !strcmp(path + plen - 4, ".npy"))) {
        int rc = read_npy_pair(m, path, keep, keep_ctx, err, errlen);
        if (rc == SP_OK && m->V == 0) { snprintf(err, errlen, "%s: no vectors", path); rc = SP_EPARSE; }
        if (rc) { enc_embed_close(m); return rc; }
        return finish_table(m, seed, out);
    }
    FILE *f = sp_fopen_input(path, err, errlen);
    if (!f) { free(m); return SP_EIO; }
    char *line = NULL;
    size_t cap = 0, rows_cap = 0;
    ssize_t len;
    long lineno = 0;
    int rc = SP_OK;
    float *vals = NULL;
    char **fld = NULL;
    size_t fcap = 0;
    while ((len = getline(&line, &cap, f)) > 0) {
        if (++lineno % STOP_CHECK_LINES == 0 && sp_stopping()) {
            snprintf(err, errlen, "%s:%ld: stopped while reading", path, lineno);
            rc = SP_ESTOPPED;
            break;
        }
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r')) line[--len] = 0;
        if (!len) continue;
        size_t nf = 0;                                  /* split on spaces (and tabs) */
        for (char *p = line; *p;) {
            while (*p == ' ' || *p == '\t') p++;
            if (!*p) break;
            if (nf == fcap) { fcap = fcap ? 2 * fcap : 512; fld = sp_xrealloc(fld, sizeof *fld * fcap); }
            fld[nf++] = p;
            while (*p && *p != ' ' && *p != '\t') p++;
            if (*p) *p++ = 0;
        }
        if (lineno == 1 && nf == 2) {                   /* word2vec header "count dim"? */
            char *e1, *e2;
            errno = 0;
            long cnt = strtol(fld[0], &e1, 10), dd = strtol(fld[1], &e2, 10);
            if (!*e1 && !*e2 && !errno && cnt >= 0 && dd > 0) {
                if (m->dim > 0 && dd != m->dim) { snprintf(err, errlen, "%s:1: header says dimension %ld, expected %d", path, dd, m->dim); rc = SP_EPARSE; break; }
                m->dim = (int)dd;
                continue;
            }
        }
        if (m->dim <= 0) m->dim = (int)nf - 1;         /* first data line fixes the dimension */
        if (m->dim <= 0 || nf < (size_t)m->dim + 1) {
            snprintf(err, errlen, "%s:%ld: expected a word and %d numbers, got %zu fields", path, lineno, m->dim, nf);
            rc = SP_EPARSE; break;
        }
        if (!vals) vals = sp_xmalloc(sizeof(float) * (size_t)m->dim);
        size_t w0 = nf - (size_t)m->dim;
        m->file_rows++;
        if (keep) {                                     /* decide before paying for strtof */
            for (size_t k = 1; k < w0; k++) fld[k][-1] = ' ';
            if (!keep(keep_ctx, fld[0])) continue;
        }
        for (int k = 0; k < m->dim; k++) {
            char *e;
            errno = 0;
            vals[k] = strtof(fld[w0 + k], &e);
            if (*e || e == fld[w0 + k]) { snprintf(err, errlen, "%s:%ld: field %zu: expected a number, got \"%s\"", path, lineno, w0 + k + 1, fld[w0 + k]); rc = SP_EPARSE; break; }
            /* ERANGE: an overflow is refused by name; an underflow (1e-50) is the nearest float, 0 or subnormal */
            if (errno == ERANGE && fabsf(vals[k]) == HUGE_VALF) {
                snprintf(err, errlen, "%s:%ld: field %zu: \"%s\" is beyond float32's range (+-3.4e38)", path, lineno, w0 + k + 1,
                         fld[w0 + k]);
                rc = SP_EPARSE;
                break;
            }
            if (!isfinite(vals[k])) {       /* strtof takes "nan" and "inf"; a vector must be finite */
                snprintf(err, errlen, "%s:%ld: field %zu: expected a finite number, got \"%s\"", path, lineno, w0 + k + 1, fld[w0 + k]);
                rc = SP_EPARSE;
                break;
            }
        }
        if (rc) break;
        for (size_t k = 1; k < w0; k++) fld[k][-1] = ' ';   /* re-join a word with spaces */
        add_row(m, fld[0], vals, &rows_cap);
    }
    free(line); free(vals); free(fld);
    if (!rc && ferror(f)) { snprintf(err, errlen, "%s: read error", path); rc = SP_EIO; }
    fclose(f);
    if (!rc && m->V == 0) { snprintf(err, errlen, "%s: no vectors", path); rc = SP_EPARSE; }
    if (rc) { enc_embed_close(m); return rc; }
    return finish_table(m, seed, out);
}

void enc_embed_close(enc_embed_t *m)
{
    if (!m) return;
    free(m->table); free(m->word); free(m->slot);
    sp_arena_free(&m->arena);
    free(m);
}

int enc_embed_dim(const enc_embed_t *m) { return m->dim; }
int enc_embed_vocab_size(const enc_embed_t *m) { return m->V; }
long enc_embed_file_rows(const enc_embed_t *m) { return m->file_rows; }

const float *enc_embed_table(const enc_embed_t *m, int *rows)
{
    if (rows) *rows = m->table ? m->V + ENC_OOV_BUCKETS : 0;
    return m->table;
}

static int32_t lookup(const enc_embed_t *m, const char *word, int *in_vocab)
{
    int32_t r = find(m, word);
    if (r < 0) {
        char low[256];
        size_t n = strlen(word);
        if (n < sizeof low) {
            for (size_t k = 0; k <= n; k++) low[k] = (char)tolower((unsigned char)word[k]);
            r = find(m, low);
        }
    }
    *in_vocab = r >= 0;
    return r >= 0 ? r : m->V + (int32_t)(enc_fnv1a(word, 0) % ENC_OOV_BUCKETS);
}

int32_t enc_embed_id(const enc_embed_t *m, const char *word)
{
    int iv;
    return m->table ? lookup(m, word, &iv) : -1;
}

int enc_embed_vector(const enc_embed_t *m, const char *word, float *out)
{
    if (!m->table) { rand_vec(enc_fnv1a(word, 0) ^ m->seed, m->dim, out); return 0; }
    int iv;
    int32_t r = lookup(m, word, &iv);
    memcpy(out, m->table + (size_t)r * m->dim, sizeof(float) * (size_t)m->dim);
    return iv;
}
