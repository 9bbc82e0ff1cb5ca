/* encoder/enc_pieces.h — the walk of download_pieces over a chunked copy: src's consecutive
 * pieces (bytes[i] each) arrive chunk by chunk (the CUDA backend's page-locked halves); each
 * chunk [off, end) is copied into the pieces it overlaps. Host code, shared by enc_cuda.cu and
 * its unit test (tests/unit/encoder_pieces.c), so the walk is checked without a GPU. */
#ifndef ENC_PIECES_H
#define ENC_PIECES_H

#include <stddef.h>
#include <string.h>

struct enc_pieces_walk {
    int count, piece;          /* pieces; the first not yet complete */
    size_t piece_at;           /* where that piece starts in src */
    void *const *dst;          /* [count] (NULL: skipped) */
    const size_t *bytes;       /* [count] */
};

/* chunk = src[off, off + len), in the order of off; returns nothing, advances w */
static inline void enc_pieces_chunk(struct enc_pieces_walk *w, size_t off, const char *chunk, size_t len)
{
    const size_t end = off + len;
    while (w->piece < w->count && w->piece_at < end) {
        const size_t p0 = w->piece_at, p1 = p0 + w->bytes[w->piece];
        const size_t a = p0 > off ? p0 : off, b = p1 < end ? p1 : end;
        if (w->dst[w->piece] && b > a) memcpy((char *)w->dst[w->piece] + (a - p0), chunk + (a - off), b - a);
        if (p1 > end) break;                                   /* continues in the next chunk */
        w->piece_at = p1;
        w->piece++;
    }
}

/* bytes [off, off + len) of src (the pieces' concatenation) into the pieces they overlap: one
 * thread's part when several copy one image out (each its own range) */
static inline void enc_pieces_range(int count, void *const *dst, const size_t *bytes, const char *src, size_t off, size_t len)
{
    struct enc_pieces_walk w = { count, 0, 0, dst, bytes };
    while (w.piece < count && w.piece_at + bytes[w.piece] <= off) w.piece_at += bytes[w.piece++];
    enc_pieces_chunk(&w, off, src + off, len);
}

#endif
