/* store/blob.c — see blob.h and schemas/README.md. */
#include "store/blob.h"

static inline size_t tri_index(int n, int i, int j)  /* i < j */
{
    return (size_t)i * (size_t)n - (size_t)i * (size_t)(i + 1) / 2 + (size_t)(j - i - 1);
}

static inline void put_u16(uint8_t *p, unsigned v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static inline unsigned get_u16(const uint8_t *p) { return (unsigned)p[0] | (unsigned)p[1] << 8; }

static void put_header(uint8_t *out, enum st_blob_kind kind, int levels, int n)
{
    out[0] = (uint8_t)kind;
    out[1] = (uint8_t)levels;
    put_u16(out + 2, (unsigned)n);
}

/* the logical kind a narrow kind stands for (wide kinds map to themselves) */
static enum st_blob_kind wide_kind(unsigned kind)
{
    switch (kind) {
    case ST_BLOB_DISTANCE8: return ST_BLOB_DISTANCE;
    case ST_BLOB_RELPOS8:   return ST_BLOB_RELPOS;
    case ST_BLOB_DEPTH8:    return ST_BLOB_DEPTH;
    default:                return (enum st_blob_kind)kind;
    }
}

size_t st_blob_size(enum st_blob_kind kind, int n, int k)
{
    size_t nn = (size_t)n, tri = nn * (nn ? nn - 1 : 0) / 2;
    switch (kind) {
    case ST_BLOB_DEPTH:     return ST_BLOB_HDR + 2 * nn;
    case ST_BLOB_DISTANCE:  return ST_BLOB_HDR + 2 * tri;
    case ST_BLOB_ANCESTORS: return ST_BLOB_HDR + (nn * nn + 7) / 8;
    case ST_BLOB_RELPOS:    return ST_BLOB_HDR + 2 * tri;
    case ST_BLOB_PHRASES:   return ST_BLOB_HDR + 2 * nn * (size_t)k;
    case ST_BLOB_SPANS:     return ST_BLOB_HDR + 4 * (size_t)k;
    case ST_BLOB_DISTANCE8: return ST_BLOB_HDR + tri;
    case ST_BLOB_RELPOS8:   return ST_BLOB_HDR + tri;
    case ST_BLOB_DEPTH8:    return ST_BLOB_HDR + nn;
    }
    return 0;
}

/* The narrow/wide choice scans the values once before writing: the triangle is at most
 * n(n-1)/2 ints, already hot in cache from the treeops pass that filled it. */
size_t st_blob_put_depth(uint8_t *out, int n, const int *depth)
{
    int narrow = 1;
    for (int i = 0; i < n; i++) narrow &= depth[i] <= 255;
    uint8_t *p = out + ST_BLOB_HDR;
    if (narrow) {
        put_header(out, ST_BLOB_DEPTH8, 1, n);
        for (int i = 0; i < n; i++) p[i] = (uint8_t)depth[i];
        return st_blob_size(ST_BLOB_DEPTH8, n, 1);
    }
    put_header(out, ST_BLOB_DEPTH, 1, n);
    for (int i = 0; i < n; i++) put_u16(p + 2 * i, (unsigned)depth[i]);
    return st_blob_size(ST_BLOB_DEPTH, n, 1);
}

size_t st_blob_put_distance(uint8_t *out, int n, const int *dist)
{
    int narrow = 1;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) narrow &= dist[i * n + j] <= 255;
    uint8_t *p = out + ST_BLOB_HDR;
    if (narrow) {
        put_header(out, ST_BLOB_DISTANCE8, 1, n);
        for (int i = 0; i < n; i++)
            for (int j = i + 1; j < n; j++) *p++ = (uint8_t)dist[i * n + j];
        return st_blob_size(ST_BLOB_DISTANCE8, n, 1);
    }
    put_header(out, ST_BLOB_DISTANCE, 1, n);
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++, p += 2) put_u16(p, (unsigned)dist[i * n + j]);
    return st_blob_size(ST_BLOB_DISTANCE, n, 1);
}

size_t st_blob_put_ancestors(uint8_t *out, int n, const uint8_t *anc)
{
    put_header(out, ST_BLOB_ANCESTORS, 1, n);
    size_t nbits = (size_t)n * (size_t)n;
    uint8_t *p = out + ST_BLOB_HDR;
    for (size_t k = 0; k < (nbits + 7) / 8; k++) p[k] = 0;
    for (size_t k = 0; k < nbits; k++)
        if (anc[k]) p[k >> 3] |= (uint8_t)(1u << (k & 7));
    return st_blob_size(ST_BLOB_ANCESTORS, n, 1);
}

size_t st_blob_put_relpos(uint8_t *out, int n, const int *rel)
{
    int narrow = 1;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) narrow &= rel[i * n + j] >= -128 && rel[i * n + j] <= 127;
    uint8_t *p = out + ST_BLOB_HDR;
    if (narrow) {   /* unclipped: a value outside [-128, 127] keeps the wide form */
        put_header(out, ST_BLOB_RELPOS8, 1, n);
        for (int i = 0; i < n; i++)
            for (int j = i + 1; j < n; j++) *p++ = (uint8_t)(int8_t)rel[i * n + j];
        return st_blob_size(ST_BLOB_RELPOS8, n, 1);
    }
    put_header(out, ST_BLOB_RELPOS, 1, n);
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++, p += 2) put_u16(p, (unsigned)(uint16_t)(int16_t)rel[i * n + j]);
    return st_blob_size(ST_BLOB_RELPOS, n, 1);
}

size_t st_blob_put_phrases(uint8_t *out, int n, int levels, const int *pid)
{
    put_header(out, ST_BLOB_PHRASES, levels, n);
    for (int k = 0; k < n * levels; k++) put_u16(out + ST_BLOB_HDR + 2 * k, (unsigned)pid[k]);
    return st_blob_size(ST_BLOB_PHRASES, n, levels);
}

size_t st_blob_put_spans(uint8_t *out, int n, int m, const int *span)
{
    put_header(out, ST_BLOB_SPANS, 1, n);
    for (int k = 0; k < 2 * m; k++) put_u16(out + ST_BLOB_HDR + 2 * k, (unsigned)span[k]);
    return st_blob_size(ST_BLOB_SPANS, n, m);
}

int st_blob_check(const uint8_t *b, size_t len, enum st_blob_kind kind, int *k)
{
    if (!b || len < ST_BLOB_HDR || wide_kind(b[0]) != wide_kind(kind)) return -1;
    kind = (enum st_blob_kind)b[0];   /* the exact length below is that of the stored form */
    int n = (int)get_u16(b + 2), levels = b[1];
    if (kind == ST_BLOB_SPANS) {
        if ((len - ST_BLOB_HDR) % 4) return -1;
        if (k) *k = (int)((len - ST_BLOB_HDR) / 4);
        return n;
    }
    if (kind == ST_BLOB_PHRASES ? levels < 1 : levels != 1) return -1;
    if (len != st_blob_size(kind, n, levels)) return -1;
    if (k) *k = levels;
    return n;
}

int st_blob_depth_at(const uint8_t *b, int i)
{
    if (b[0] == ST_BLOB_DEPTH8) return b[ST_BLOB_HDR + i];
    return (int)get_u16(b + ST_BLOB_HDR + 2 * i);
}

int st_blob_distance_at(const uint8_t *b, int n, int i, int j)
{
    if (i == j) return 0;
    if (i > j) { int t = i; i = j; j = t; }
    size_t k = tri_index(n, i, j);
    if (b[0] == ST_BLOB_DISTANCE8) return b[ST_BLOB_HDR + k];
    return (int)get_u16(b + ST_BLOB_HDR + 2 * k);
}

int st_blob_ancestor_at(const uint8_t *b, int n, int i, int j)
{
    size_t k = (size_t)i * (size_t)n + (size_t)j;
    return (b[ST_BLOB_HDR + (k >> 3)] >> (k & 7)) & 1;
}

int st_blob_relpos_at(const uint8_t *b, int n, int i, int j)
{
    if (i == j) return 0;
    int sign = 1;
    if (i > j) { int t = i; i = j; j = t; sign = -1; }
    size_t k = tri_index(n, i, j);
    if (b[0] == ST_BLOB_RELPOS8) return sign * (int8_t)b[ST_BLOB_HDR + k];
    return sign * (int16_t)get_u16(b + ST_BLOB_HDR + 2 * k);
}

int st_blob_phrase_at(const uint8_t *b, int n, int level, int i)
{
    return (int)get_u16(b + ST_BLOB_HDR + 2 * ((size_t)(level - 1) * (size_t)n + (size_t)i));
}

/* Dense decoders: one tight loop per element width, chosen once per blob (they run per
 * sentence in the encoder feeders). */
void st_blob_get_distance(const uint8_t *b, int n, int *dist)
{
    const uint8_t *p = b + ST_BLOB_HDR;
    if (b[0] == ST_BLOB_DISTANCE8) {
        for (int i = 0; i < n; i++) {
            dist[i * n + i] = 0;
            for (int j = i + 1; j < n; j++, p++) dist[i * n + j] = dist[j * n + i] = *p;
        }
        return;
    }
    for (int i = 0; i < n; i++) {
        dist[i * n + i] = 0;
        for (int j = i + 1; j < n; j++, p += 2) dist[i * n + j] = dist[j * n + i] = (int)get_u16(p);
    }
}

void st_blob_get_ancestors(const uint8_t *b, int n, uint8_t *anc)
{
    size_t nbits = (size_t)n * (size_t)n;
    for (size_t k = 0; k < nbits; k++) anc[k] = (b[ST_BLOB_HDR + (k >> 3)] >> (k & 7)) & 1;
}

void st_blob_get_relpos(const uint8_t *b, int n, int *rel)
{
    const uint8_t *p = b + ST_BLOB_HDR;
    if (b[0] == ST_BLOB_RELPOS8) {
        for (int i = 0; i < n; i++) {
            rel[i * n + i] = 0;
            for (int j = i + 1; j < n; j++, p++) {
                int v = (int8_t)*p;
                rel[i * n + j] = v;
                rel[j * n + i] = -v;
            }
        }
        return;
    }
    for (int i = 0; i < n; i++) {
        rel[i * n + i] = 0;
        for (int j = i + 1; j < n; j++, p += 2) {
            int v = (int16_t)get_u16(p);
            rel[i * n + j] = v;
            rel[j * n + i] = -v;
        }
    }
}
