/* store/blob.h — compact little-endian BLOB codecs for cached structures.
 * Byte layouts are documented in schemas/README.md; this file and that page change together.
 *
 * Every BLOB starts with a 4-byte header: kind (u8), levels (u8, 1 except for phrases),
 * n (u16 LE, the number of words). Pure functions: used by the ingest writer, the export
 * path, the encoder feeders and the SQLite extension (which links only this file). */
#ifndef ST_BLOB_H
#define ST_BLOB_H

#include <stddef.h>
#include <stdint.h>

enum st_blob_kind {
    ST_BLOB_DEPTH     = 1,   /* u16[n] */
    ST_BLOB_DISTANCE  = 2,   /* u16 strict upper triangle, i<j, row-major: n(n-1)/2 */
    ST_BLOB_ANCESTORS = 3,   /* bits of the n×n matrix, row-major, LSB first */
    ST_BLOB_RELPOS    = 4,   /* i16 strict upper triangle (rel[j][i] = -rel[i][j], diagonal 0) */
    ST_BLOB_PHRASES   = 5,   /* u16[levels][n] phrase ids */
    ST_BLOB_SPANS     = 6,   /* u16[m][2] (start, end) brackets in pre-order; m from the size */
    /* Narrow forms, same layout with 1-byte elements. The writer picks one whenever every
     * value fits (almost every sentence), which halves the bytes SQLite has to write. */
    ST_BLOB_DISTANCE8 = 7,   /* u8 strict upper triangle, as kind 2: every D[i][j] <= 255 */
    ST_BLOB_RELPOS8   = 8,   /* i8 strict upper triangle, as kind 4: every rel in [-128, 127] */
    ST_BLOB_DEPTH8    = 9,   /* u8[n], as kind 1: every depth <= 255 */
};

#define ST_BLOB_HDR 4
#define ST_BLOB_MAX_WORDS 65535

/* Encoded sizes (header included) of that exact kind. For DEPTH, DISTANCE and RELPOS the
 * wide size is also the capacity to allocate before calling the put function: it bounds the
 * narrow form too. */
size_t st_blob_size(enum st_blob_kind kind, int n, int levels_or_m);

/* Encoders write into out (st_blob_size(wide kind) bytes) and return the size written, which
 * for depth, distance and rel_pos is the narrow size when the writer chose the narrow kind
 * (7, 8, 9): store that returned size, never st_blob_size (store/st_derive.c does). */
size_t st_blob_put_depth(uint8_t *out, int n, const int *depth);      /* kind 9 if max <= 255, else 1 */
size_t st_blob_put_distance(uint8_t *out, int n, const int *dist);     /* dist: n*n, symmetric; kind 7 or 2 */
size_t st_blob_put_ancestors(uint8_t *out, int n, const uint8_t *anc); /* anc: n*n of 0/1 */
size_t st_blob_put_relpos(uint8_t *out, int n, const int *rel);        /* rel: n*n, antisymmetric; kind 8 or 4 */
size_t st_blob_put_phrases(uint8_t *out, int n, int levels, const int *pid);
size_t st_blob_put_spans(uint8_t *out, int n, int m, const int *span);

/* Header check: returns n (>= 0) if b is a well-formed blob of that kind, else -1.
 * levels_or_m receives the level count (phrases) or bracket count (spans) when not NULL.
 * Asking for DEPTH, DISTANCE or RELPOS accepts both the wide and the narrow kind (the kind
 * byte self-describes, so stores written before the narrow kinds existed read unchanged);
 * the length must be exact for whichever kind b[0] says. */
int st_blob_check(const uint8_t *b, size_t len, enum st_blob_kind kind, int *levels_or_m);

/* Element access on a checked blob; i, j are 0-based word indices < n. The depth, distance
 * and rel_pos readers dispatch on the kind byte, so they read both forms. */
int st_blob_depth_at(const uint8_t *b, int i);
int st_blob_distance_at(const uint8_t *b, int n, int i, int j);
int st_blob_ancestor_at(const uint8_t *b, int n, int i, int j);
int st_blob_relpos_at(const uint8_t *b, int n, int i, int j);
int st_blob_phrase_at(const uint8_t *b, int n, int level, int i);   /* level 1..levels */

/* Whole-matrix decoders (n*n outputs) for consumers that want dense arrays. */
void st_blob_get_distance(const uint8_t *b, int n, int *dist);
void st_blob_get_ancestors(const uint8_t *b, int n, uint8_t *anc);
void st_blob_get_relpos(const uint8_t *b, int n, int *rel);

#endif
