/* common/sha256.c — FIPS 180-4 SHA-256, used for source content hashes and run fingerprints.
 *
 * Two compression functions: the portable C one, and one using the x86 SHA extensions
 * (SHA-NI, about 10x faster), chosen once at start-up from CPUID. Ingest hashes every file
 * before parsing it, so on a CPU with SHA-NI the hash pass costs a few percent instead of a
 * fifth of the ingest. Both are tested against the FIPS 180-4 examples (tests/unit/common_sha256.c). */
#include "common/sp.h"

#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <immintrin.h>
#define SP_SHA_X86 1
#endif

static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

#define ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void compress_one(uint32_t h[8], const unsigned char *p)
{
    uint32_t w[64];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
    for (int i = 0; i < 64; i++) {
        uint32_t t1 = k + (ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i];
        uint32_t t2 = (ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        k = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
    }
    h[0] += a; h[1] += b; h[2] += c; h[3] += d; h[4] += e; h[5] += f; h[6] += g; h[7] += k;
}

static void compress_portable(uint32_t h[8], const unsigned char *p, size_t nblocks)
{
    for (; nblocks; nblocks--, p += 64) compress_one(h, p);
}

#ifdef SP_SHA_X86
/* The state lives in two registers as ABEF and CDGH (the order sha256rnds2 wants); each
 * group of 4 rounds adds K to 4 schedule words and runs two sha256rnds2. Schedule words
 * 16.. come from sha256msg1/msg2 over the previous four groups (Intel's SHA extensions
 * white paper, 2013). */
__attribute__((target("sha,sse4.1")))
static void compress_shani(uint32_t h[8], const unsigned char *p, size_t nblocks)
{
    const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
    __m128i t = _mm_loadu_si128((const __m128i *)&h[0]);       /* DCBA (lane 0 = A) */
    __m128i s1 = _mm_loadu_si128((const __m128i *)&h[4]);      /* HGFE */
    t = _mm_shuffle_epi32(t, 0xB1);                             /* CDAB */
    s1 = _mm_shuffle_epi32(s1, 0x1B);                           /* EFGH */
    __m128i s0 = _mm_alignr_epi8(t, s1, 8);                     /* ABEF */
    s1 = _mm_blend_epi16(s1, t, 0xF0);                          /* CDGH */
    for (; nblocks; nblocks--, p += 64) {
        __m128i save0 = s0, save1 = s1, m[4];
#pragma GCC unroll 16
        for (int g = 0; g < 16; g++) {
            __m128i w;
            if (g < 4) {
                w = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 16 * g)), bswap);
            } else {
                /* W[t-16] + s0(W[t-15]), + W[t-7], then + s1(W[t-2]) word by word */
                w = _mm_sha256msg1_epu32(m[g & 3], m[(g + 1) & 3]);
                w = _mm_add_epi32(w, _mm_alignr_epi8(m[(g + 3) & 3], m[(g + 2) & 3], 4));
                w = _mm_sha256msg2_epu32(w, m[(g + 3) & 3]);
            }
            m[g & 3] = w;
            __m128i wk = _mm_add_epi32(w, _mm_loadu_si128((const __m128i *)&K[4 * g]));
            s1 = _mm_sha256rnds2_epu32(s1, s0, wk);
            s0 = _mm_sha256rnds2_epu32(s0, s1, _mm_shuffle_epi32(wk, 0x0E));
        }
        s0 = _mm_add_epi32(s0, save0);
        s1 = _mm_add_epi32(s1, save1);
    }
    t = _mm_shuffle_epi32(s0, 0x1B);                            /* FEBA */
    s1 = _mm_shuffle_epi32(s1, 0xB1);                           /* DCHG */
    s0 = _mm_blend_epi16(t, s1, 0xF0);                          /* DCBA */
    s1 = _mm_alignr_epi8(s1, t, 8);                             /* HGFE */
    _mm_storeu_si128((__m128i *)&h[0], s0);
    _mm_storeu_si128((__m128i *)&h[4], s1);
}

/* SHA (CPUID.7.0:EBX bit 29) plus SSSE3 and SSE4.1 (CPUID.1:ECX bits 9 and 19) for the
 * shuffles and blends; gcc 12's __builtin_cpu_supports does not know "sha". */
static int cpu_has_shani(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 9)) || !(c & (1u << 19))) return 0;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return 0;
    return (b >> 29) & 1;
}
#endif

static void (*compress)(uint32_t h[8], const unsigned char *p, size_t nblocks) = compress_portable;

/* Chosen before main(), so threads never race on the pointer. */
__attribute__((constructor)) static void pick_backend(void) { sp_sha256_backend(0); }

const char *sp_sha256_backend(int force_portable)
{
#ifdef SP_SHA_X86
    if (!force_portable && cpu_has_shani()) { compress = compress_shani; return "sha-ni"; }
#endif
    compress = compress_portable;
    return "portable";
}

void sp_sha256_init(struct sp_sha256 *c)
{
    static const uint32_t iv[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                    0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };
    memcpy(c->h, iv, sizeof iv);
    c->nbytes = 0;
    c->nblk = 0;
}

void sp_sha256_update(struct sp_sha256 *c, const void *data, size_t n)
{
    const unsigned char *p = data;
    c->nbytes += n;
    if (c->nblk) {
        size_t take = 64 - c->nblk < n ? 64 - c->nblk : n;
        memcpy(c->blk + c->nblk, p, take);
        c->nblk += take; p += take; n -= take;
        if (c->nblk < 64) return;
        compress(c->h, c->blk, 1);
        c->nblk = 0;
    }
    if (n >= 64) {
        compress(c->h, p, n / 64);
        p += n / 64 * 64;
        n %= 64;
    }
    memcpy(c->blk, p, n);
    c->nblk = n;
}

void sp_sha256_hex(struct sp_sha256 *c, char out[65])
{
    uint64_t bits = c->nbytes * 8;
    unsigned char pad = 0x80, zero = 0, len[8];
    uint64_t nb = c->nbytes;
    sp_sha256_update(c, &pad, 1);
    while (c->nblk != 56) sp_sha256_update(c, &zero, 1);
    for (int i = 0; i < 8; i++) len[i] = (unsigned char)(bits >> (56 - 8 * i));
    sp_sha256_update(c, len, 8);
    c->nbytes = nb;
    for (int i = 0; i < 8; i++) snprintf(out + 8 * i, 9, "%08x", c->h[i]);
}
