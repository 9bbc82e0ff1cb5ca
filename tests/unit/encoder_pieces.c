/* tests/unit/encoder_pieces.c — download_pieces' walk (encoder/enc_pieces.h), which the CUDA
 * backend runs over its page-locked chunks: for random piece sizes (zero-length and skipped pieces
 * included) and chunk sizes from 1 byte to the whole, every wanted piece gets exactly its bytes of
 * src and every skipped piece's buffer is untouched; the same when 1-8 threads' ranges
 * (enc_pieces_range, cut at random, done in any order) copy the image out. The expected bytes
 * are src's own slices. */
#include "encoder/enc_pieces.h"
#include "tests/unit/t_harness.h"

#include <stdint.h>
#include <stdlib.h>

static uint64_t rng = 88172645463325252ull;
static unsigned next(unsigned m) { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return (unsigned)(rng % m); }

static void one(int count, size_t chunk, int parts)
{
    size_t bytes[64], total = 0;
    void *dst[64];
    char *buf[64];
    for (int i = 0; i < count; i++) {
        bytes[i] = next(5) == 0 ? 0 : next(700);
        total += bytes[i];
        buf[i] = malloc(bytes[i] + 1);
        memset(buf[i], 0x5a, bytes[i] + 1);                /* + a guard byte past the end */
        dst[i] = next(4) == 0 ? NULL : buf[i];
    }
    char *src = malloc(total + 1);
    for (size_t k = 0; k < total; k++) src[k] = (char)(next(251) + 1);
    struct enc_pieces_walk w = { count, 0, 0, dst, bytes };
    if (parts) {                                           /* enc_pieces_range: parts at random cuts, any order */
        size_t cut[9];
        cut[0] = 0; cut[parts] = total;
        for (int p = 1; p < parts; p++) cut[p] = total ? next((unsigned)total + 1) : 0;
        for (int p = 1; p < parts; p++)                    /* sorted */
            for (int q = p + 1; q < parts; q++) if (cut[q] < cut[p]) { size_t t = cut[p]; cut[p] = cut[q]; cut[q] = t; }
        for (int p = parts - 1; p >= 0; p--) enc_pieces_range(count, dst, bytes, src, cut[p], cut[p + 1] - cut[p]);
        w.piece = count;
    } else
        for (size_t off = 0; off < total; off += chunk)
            enc_pieces_chunk(&w, off, src + off, total - off < chunk ? total - off : chunk);
    int ok = 1;
    size_t at = 0;
    for (int i = 0; i < count; at += bytes[i++]) {
        if (dst[i]) ok &= memcmp(buf[i], src + at, bytes[i]) == 0;
        else for (size_t k = 0; k < bytes[i]; k++) ok &= buf[i][k] == 0x5a;
        ok &= buf[i][bytes[i]] == 0x5a;
        free(buf[i]);
    }
    T_CHECK(ok);
    T_CHECK(total == 0 || w.piece_at + (w.piece < count ? bytes[w.piece] : 0) >= total || w.piece == count);
    free(src);
}

int main(void)
{
    static const size_t chunks[] = { 1, 3, 64, 700, 4096, 1u << 20 };
    for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++)
        for (int r = 0; r < 200; r++) one(1 + (int)next(64), chunks[c], 0);
    one(1, 5, 0);
    for (int parts = 1; parts <= 8; parts++)               /* the CUDA backend's parallel copy-out */
        for (int r = 0; r < 200; r++) one(1 + (int)next(64), 0, parts);
    return T_DONE();
}
