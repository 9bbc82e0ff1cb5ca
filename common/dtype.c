/* common/dtype.c — float <-> f16 / bf16 by bit manipulation (common/dtype.h). Plain C on the
 * bit patterns, so the result is the same on every host and compiler (no _Float16, no F16C). */
#include <string.h>

#include "common/dtype.h"

const char *sp_stype_name(enum sp_stype t)
{
    return t == SP_STYPE_F16 ? "f16" : t == SP_STYPE_BF16 ? "bf16" : "f32";
}

int sp_stype_parse(const char *name, enum sp_stype *t)
{
    static const enum sp_stype all[] = { SP_STYPE_F32, SP_STYPE_F16, SP_STYPE_BF16 };
    for (size_t i = 0; name && i < sizeof all / sizeof *all; i++)
        if (!strcmp(name, sp_stype_name(all[i]))) { *t = all[i]; return 0; }
    return -1;
}

size_t sp_stype_size(enum sp_stype t)
{
    return t == SP_STYPE_F32 ? 4 : 2;
}

static uint32_t bits_of(float f) { uint32_t x; memcpy(&x, &f, 4); return x; }
static float float_of(uint32_t x) { float f; memcpy(&f, &x, 4); return f; }

uint16_t sp_f32_to_f16(float f)
{
    uint32_t x = bits_of(f);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
    uint32_t ax = x & 0x7fffffffu;
    if (ax >= 0x7f800000u)                       /* inf, or NaN: quiet, top payload bits kept */
        return ax == 0x7f800000u ? sign | 0x7c00u : sign | 0x7e00u | (uint16_t)((ax >> 13) & 0x3ffu);
    if (ax >= 0x477ff000u) return sign | 0x7c00u; /* >= 65520: the tie above 65504 rounds to even, inf */
    if (ax < 0x38800000u) {                      /* below 2^-14: a subnormal half (units of 2^-24) */
        if (ax < 0x33000000u) return sign;       /* below 2^-25: 0 */
        uint32_t e = ax >> 23, m = (ax & 0x7fffffu) | 0x800000u;
        unsigned shift = 126u - e;               /* 14 (e = 112) .. 24 (e = 102) */
        uint32_t r = m >> shift, rem = m & ((1u << shift) - 1u), half = 1u << (shift - 1u);
        if (rem > half || (rem == half && (r & 1u))) r++;   /* may carry into the smallest normal: right */
        return sign | (uint16_t)r;
    }
    uint32_t r = ax - 0x38000000u;               /* exponent rebiased 127 -> 15 */
    r += 0xfffu + ((r >> 13) & 1u);              /* round to nearest, ties to even, on the 13 dropped bits */
    return sign | (uint16_t)(r >> 13);
}

float sp_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    if (e == 31) return float_of(sign | 0x7f800000u | (m << 13));
    if (e == 0) {
        if (!m) return float_of(sign);
        int k = 1;                               /* subnormal: normalise */
        while (!(m & 0x400u)) { m <<= 1; k--; }
        return float_of(sign | ((uint32_t)(k + 112) << 23) | ((m & 0x3ffu) << 13));
    }
    return float_of(sign | ((e + 112u) << 23) | (m << 13));
}

uint16_t sp_f32_to_bf16(float f)
{
    uint32_t x = bits_of(f);
    if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x0040u);   /* NaN stays NaN */
    x += 0x7fffu + ((x >> 16) & 1u);             /* ties to even; the largest floats round to inf */
    return (uint16_t)(x >> 16);
}

float sp_bf16_to_f32(uint16_t h)
{
    return float_of((uint32_t)h << 16);
}

float sp_stype_max(enum sp_stype t)
{
    return t == SP_STYPE_F16 ? 65504.0f : t == SP_STYPE_BF16 ? float_of(0x7f7f0000u) : float_of(0x7f7fffffu);
}

size_t sp_stype_overflow(enum sp_stype t, float *v, size_t n, int saturate, size_t *first)
{
    if (t == SP_STYPE_F32) return 0;
    size_t k = 0;
    float top = sp_stype_max(t);
    for (size_t i = 0; i < n; i++) {
        uint32_t ax = bits_of(v[i]) & 0x7fffffffu;
        if (ax >= 0x7f800000u) continue;          /* inf or NaN: not an overflow of the narrowing */
        uint16_t h = t == SP_STYPE_F16 ? sp_f32_to_f16(v[i]) : sp_f32_to_bf16(v[i]);
        if ((h & 0x7fffu) != (t == SP_STYPE_F16 ? 0x7c00u : 0x7f80u)) continue;
        if (!k++ && first) *first = i;
        if (saturate) v[i] = v[i] < 0 ? -top : top;
    }
    return k;
}

void sp_stype_pack(enum sp_stype t, const float *v, size_t n, void *out)
{
    unsigned char *o = out;
    if (t == SP_STYPE_F32) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        memcpy(out, v, 4 * n);
        return;
#endif
        for (size_t i = 0; i < n; i++) {
            uint32_t x = bits_of(v[i]);
            o[4 * i] = (unsigned char)x; o[4 * i + 1] = (unsigned char)(x >> 8);
            o[4 * i + 2] = (unsigned char)(x >> 16); o[4 * i + 3] = (unsigned char)(x >> 24);
        }
        return;
    }
    for (size_t i = 0; i < n; i++) {
        uint16_t h = t == SP_STYPE_F16 ? sp_f32_to_f16(v[i]) : sp_f32_to_bf16(v[i]);
        o[2 * i] = (unsigned char)h;
        o[2 * i + 1] = (unsigned char)(h >> 8);
    }
}

void sp_stype_unpack(enum sp_stype t, const void *in, size_t n, float *out)
{
    const unsigned char *p = in;
    if (t == SP_STYPE_F32) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        memcpy(out, in, 4 * n);
        return;
#endif
        for (size_t i = 0; i < n; i++)
            out[i] = float_of((uint32_t)p[4 * i] | (uint32_t)p[4 * i + 1] << 8 | (uint32_t)p[4 * i + 2] << 16 |
                              (uint32_t)p[4 * i + 3] << 24);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        uint16_t h = (uint16_t)(p[2 * i] | p[2 * i + 1] << 8);
        out[i] = t == SP_STYPE_F16 ? sp_f16_to_f32(h) : sp_bf16_to_f32(h);
    }
}
