/* Unit tests for common/dtype.c: float -> f16 / bf16 against bit patterns computed by hand from
 * the IEEE 754 binary16 layout (1 sign, 5 exponent bits biased 15, 10 fraction bits) and the
 * bfloat16 layout (the top half of a binary32), every rounding case of round-to-nearest-even
 * (below, above and on the tie, with an even and an odd last bit), subnormals, the overflow
 * threshold, inf and NaN; then every half and every bf16 pattern widened and narrowed back to
 * itself; then, where the compiler has _Float16 (its conversion is libgcc's, an implementation
 * independent of this one), 2^24 floats spread over the whole range against it. The NumPy
 * comparison is tests/cli/t2150-store-dtype.sh (tests/reference/dtype_ref.py). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "common/dtype.h"
#include "t_harness.h"

static float f_of(uint32_t x) { float f; memcpy(&f, &x, 4); return f; }
static uint32_t bits(float f) { uint32_t x; memcpy(&x, &f, 4); return x; }

static void f16_patterns(void)
{
    T_EQ_INT(sp_f32_to_f16(1.0f), 0x3c00);            /* 2^0: exponent 15, fraction 0 */
    T_EQ_INT(sp_f32_to_f16(-2.0f), 0xc000);           /* sign, exponent 16 */
    T_EQ_INT(sp_f32_to_f16(0.0f), 0x0000);
    T_EQ_INT(sp_f32_to_f16(-0.0f), 0x8000);
    T_EQ_INT(sp_f32_to_f16(0.5f), 0x3800);
    /* 0.1 = 1.6 * 2^-4: exponent 11 (0x2c00), fraction 0.6 * 1024 = 614.4 -> 614 = 0x266 */
    T_EQ_INT(sp_f32_to_f16(0.1f), 0x2e66);
    /* 1/3 = 1.333.. * 2^-2: exponent 13 (0x3400), fraction 341.33 -> 341 = 0x155 */
    T_EQ_INT(sp_f32_to_f16(1.0f / 3.0f), 0x3555);
    /* ties: 1 + 2^-11 lies halfway between 0x3c00 (even) and 0x3c01: down; 1 + 3*2^-11 between
     * 0x3c01 and 0x3c02 (even): up; a hair above the first tie: up */
    T_EQ_INT(sp_f32_to_f16(1.0f + 0x1p-11f), 0x3c00);
    T_EQ_INT(sp_f32_to_f16(1.0f + 3 * 0x1p-11f), 0x3c02);
    T_EQ_INT(sp_f32_to_f16(f_of(bits(1.0f + 0x1p-11f) + 1)), 0x3c01);
    T_EQ_INT(sp_f32_to_f16(f_of(bits(1.0f + 0x1p-11f) - 1)), 0x3c00);
    /* the top: 65504 = 0x7bff (exponent 30, fraction 1023); 65520 is the tie with 65536 (inf):
     * 0x7bff is odd, so inf; just below 65520: 65504 */
    T_EQ_INT(sp_f32_to_f16(65504.0f), 0x7bff);
    T_EQ_INT(sp_f32_to_f16(65519.996f), 0x7bff);
    T_EQ_INT(sp_f32_to_f16(65520.0f), 0x7c00);
    T_EQ_INT(sp_f32_to_f16(-1e6f), 0xfc00);
    T_EQ_INT(sp_f32_to_f16(INFINITY), 0x7c00);
    T_EQ_INT(sp_f32_to_f16(-INFINITY), 0xfc00);
    /* NaN: exponent 31 and a non-zero fraction, whatever the payload (even one the top 10
     * fraction bits drop); the sign kept */
    uint16_t n1 = sp_f32_to_f16(NAN), n2 = sp_f32_to_f16(f_of(0xff800001u));
    T_CHECK((n1 & 0x7c00) == 0x7c00 && (n1 & 0x3ff) != 0);
    T_CHECK((n2 & 0x7c00) == 0x7c00 && (n2 & 0x3ff) != 0 && (n2 & 0x8000));
    /* subnormals, units of 2^-24: 2^-14 is the smallest normal 0x0400; 2^-24 is 0x0001; 2^-25 the
     * tie between 0 (even) and 0x0001: 0; 1.5 * 2^-24 the tie between 1 and 2 (even): 2; a
     * hair above 2^-25: 1; 1023.5 * 2^-24 the tie between 0x03ff and 0x0400 (even): the normal */
    T_EQ_INT(sp_f32_to_f16(0x1p-14f), 0x0400);
    T_EQ_INT(sp_f32_to_f16(0x1p-24f), 0x0001);
    T_EQ_INT(sp_f32_to_f16(-0x1p-24f), 0x8001);
    T_EQ_INT(sp_f32_to_f16(0x1p-25f), 0x0000);
    T_EQ_INT(sp_f32_to_f16(f_of(bits(0x1p-25f) + 1)), 0x0001);
    T_EQ_INT(sp_f32_to_f16(1.5f * 0x1p-24f), 0x0002);
    T_EQ_INT(sp_f32_to_f16(2.5f * 0x1p-24f), 0x0002);
    T_EQ_INT(sp_f32_to_f16(1023.0f * 0x1p-24f), 0x03ff);
    T_EQ_INT(sp_f32_to_f16(1023.5f * 0x1p-24f), 0x0400);
    T_EQ_INT(sp_f32_to_f16(1e-10f), 0x0000);
    T_EQ_INT(sp_f32_to_f16(0x1p-15f), 0x0200);         /* 2^-15 = 512 units */
    /* widening is exact */
    T_CHECK(sp_f16_to_f32(0x0001) == 0x1p-24f);
    T_CHECK(sp_f16_to_f32(0x03ff) == 1023.0f * 0x1p-24f);
    T_CHECK(sp_f16_to_f32(0x0400) == 0x1p-14f);
    T_CHECK(sp_f16_to_f32(0x7bff) == 65504.0f);
    T_CHECK(sp_f16_to_f32(0x3555) == 0.333251953125f);
    T_CHECK(sp_f16_to_f32(0xc000) == -2.0f);
    T_CHECK(isinf(sp_f16_to_f32(0xfc00)) && sp_f16_to_f32(0xfc00) < 0);
    T_CHECK(isnan(sp_f16_to_f32(0x7e00)) && isnan(sp_f16_to_f32(0x7c01)));
    T_EQ_INT(bits(sp_f16_to_f32(0x8000)), 0x80000000u);
}

static void bf16_patterns(void)
{
    T_EQ_INT(sp_f32_to_bf16(1.0f), 0x3f80);            /* 0x3f800000: its top half */
    T_EQ_INT(sp_f32_to_bf16(-2.0f), 0xc000);
    /* pi = 0x40490fdb: the dropped half 0x0fdb < 0x8000, down */
    T_EQ_INT(sp_f32_to_bf16(3.14159265f), 0x4049);
    /* ties: 0x3f808000 between 0x3f80 (even) and 0x3f81: down; 0x3f818000 between 0x3f81 and
     * 0x3f82 (even): up; 0x3f808001: up */
    T_EQ_INT(sp_f32_to_bf16(f_of(0x3f808000u)), 0x3f80);
    T_EQ_INT(sp_f32_to_bf16(f_of(0x3f818000u)), 0x3f82);
    T_EQ_INT(sp_f32_to_bf16(f_of(0x3f808001u)), 0x3f81);
    T_EQ_INT(sp_f32_to_bf16(f_of(0x3f807fffu)), 0x3f80);
    /* the largest float rounds up to inf (0x7f7fffff: dropped half 0xffff) */
    T_EQ_INT(sp_f32_to_bf16(f_of(0x7f7fffffu)), 0x7f80);
    T_EQ_INT(sp_f32_to_bf16(INFINITY), 0x7f80);
    T_EQ_INT(sp_f32_to_bf16(-INFINITY), 0xff80);
    T_EQ_INT(sp_f32_to_bf16(-0.0f), 0x8000);
    /* subnormal floats keep their top half the same way: 0x00018000 (tie, odd 0x0001): 0x0002 */
    T_EQ_INT(sp_f32_to_bf16(f_of(0x00018000u)), 0x0002);
    /* a NaN whose payload lies in the dropped half only would round to inf: it stays a NaN */
    uint16_t n = sp_f32_to_bf16(f_of(0x7f800001u)), m = sp_f32_to_bf16(f_of(0xffffffffu));
    T_CHECK((n & 0x7f80) == 0x7f80 && (n & 0x7f) != 0);
    T_CHECK((m & 0x7f80) == 0x7f80 && (m & 0x7f) != 0 && (m & 0x8000));
    T_EQ_INT(bits(sp_bf16_to_f32(0x4049)), 0x40490000u);
    T_CHECK(isnan(sp_bf16_to_f32(0x7fc0)));
}

/* every pattern widened then narrowed is itself (NaNs: still NaN) */
static void round_trips(void)
{
    int bad16 = 0, badb = 0;
    for (uint32_t h = 0; h < 0x10000u; h++) {
        int nan16 = (h & 0x7c00) == 0x7c00 && (h & 0x3ff), nanb = (h & 0x7f80) == 0x7f80 && (h & 0x7f);
        uint16_t a = sp_f32_to_f16(sp_f16_to_f32((uint16_t)h)), b = sp_f32_to_bf16(sp_bf16_to_f32((uint16_t)h));
        if (nan16 ? !((a & 0x7c00) == 0x7c00 && (a & 0x3ff)) : a != h) bad16++;
        if (nanb ? !((b & 0x7f80) == 0x7f80 && (b & 0x7f)) : b != h) badb++;
    }
    T_EQ_INT(bad16, 0);
    T_EQ_INT(badb, 0);
}

static void pack_unpack(void)
{
    const float v[5] = { 1.0f, -2.0f, 65504.0f, 0x1p-24f, 0.1f };
    unsigned char b[20];
    float w[5];
    sp_stype_pack(SP_STYPE_F16, v, 5, b);
    static const unsigned char want16[10] = { 0x00, 0x3c, 0x00, 0xc0, 0xff, 0x7b, 0x01, 0x00, 0x66, 0x2e };   /* LE */
    T_CHECK(!memcmp(b, want16, 10));
    sp_stype_unpack(SP_STYPE_F16, b, 5, w);
    T_CHECK(w[0] == 1.0f && w[1] == -2.0f && w[2] == 65504.0f && w[3] == 0x1p-24f);
    T_NEAR(w[4], 0.1, 0.1 * 0x1p-11);
    sp_stype_pack(SP_STYPE_BF16, v, 2, b);
    static const unsigned char wantb[4] = { 0x80, 0x3f, 0x00, 0xc0 };
    T_CHECK(!memcmp(b, wantb, 4));
    sp_stype_pack(SP_STYPE_F32, v, 5, b);
    static const unsigned char want32[4] = { 0x00, 0x00, 0x80, 0x3f };
    T_CHECK(!memcmp(b, want32, 4));
    sp_stype_unpack(SP_STYPE_F32, b, 5, w);
    T_CHECK(!memcmp(w, v, sizeof v));
    enum sp_stype t = SP_STYPE_F32;
    T_CHECK(sp_stype_parse("bf16", &t) == 0 && t == SP_STYPE_BF16);
    T_CHECK(sp_stype_parse("f16", &t) == 0 && t == SP_STYPE_F16);
    T_CHECK(sp_stype_parse("fp16", &t) == -1 && sp_stype_parse(NULL, &t) == -1);
    T_EQ_STR(sp_stype_name(SP_STYPE_BF16), "bf16");
    T_EQ_INT(sp_stype_size(SP_STYPE_F16), 2);
    T_EQ_INT(sp_stype_size(SP_STYPE_F32), 4);
}

/* against the compiler's own float -> _Float16 (libgcc __truncsfhf2: round to nearest even) */
static void against_compiler(void)
{
#ifdef __FLT16_MAX__
    long bad = 0;
    for (uint64_t k = 0; k < (1u << 24); k++) {
        uint32_t x = (uint32_t)(k * 256 + (k % 251));   /* every 256th pattern, offsets varying */
        float f = f_of(x);
        if (isnan(f)) continue;
        _Float16 h = (_Float16)f;
        uint16_t hb;
        memcpy(&hb, &h, 2);
        if (sp_f32_to_f16(f) != hb && bad++ < 5) fprintf(stderr, "0x%08x: 0x%04x, compiler 0x%04x\n", x, sp_f32_to_f16(f), hb);
    }
    T_EQ_INT(bad, 0);
#else
    T_SKIP("no _Float16 in this compiler");
#endif
}

/* sp_stype_overflow: the thresholds by hand (f16: 65504 + half its last step 32 = 65520 rounds to
 * even, inf; 65519.996 rounds down to 65504), NaN and inf not counted, saturation to the type's max */
static void overflow(void)
{
    float v[8] = { 65504.0f, f_of(bits(65520.0f) - 1), 65520.0f, -1e6f, INFINITY, NAN, 1.0f, -65520.0f };
    size_t first = 99;
    T_EQ_INT((int)sp_stype_overflow(SP_STYPE_F16, v, 8, 0, &first), 3);
    T_EQ_INT((int)first, 2);
    T_CHECK(v[2] == 65520.0f);                        /* without saturate: untouched */
    T_EQ_INT((int)sp_stype_overflow(SP_STYPE_F16, v, 8, 1, &first), 3);
    T_CHECK(v[2] == 65504.0f && v[3] == -65504.0f && v[7] == -65504.0f && v[1] == f_of(bits(65520.0f) - 1));
    T_CHECK(isinf(v[4]) && isnan(v[5]) && v[6] == 1.0f);
    T_EQ_INT((int)sp_stype_overflow(SP_STYPE_F16, v, 8, 0, &first), 0);
    T_CHECK(sp_stype_max(SP_STYPE_F16) == 65504.0f);
    /* bf16: 0x7f7f8000 is the tie between 0x7f7f (odd) and inf: up; 0x7f7f7fff down */
    float b[3] = { f_of(0x7f7f7fffu), f_of(0xff7f8000u), 3e38f };
    T_EQ_INT((int)sp_stype_overflow(SP_STYPE_BF16, b, 3, 1, &first), 1);
    T_EQ_INT((int)first, 1);
    T_CHECK(bits(b[1]) == 0xff7f0000u && bits(b[0]) == 0x7f7f7fffu && b[2] == 3e38f);
    float f[1] = { f_of(0x7f7fffffu) };
    T_EQ_INT((int)sp_stype_overflow(SP_STYPE_F32, f, 1, 1, &first), 0);
}

int main(void)
{
    f16_patterns();
    bf16_patterns();
    round_trips();
    pack_unpack();
    against_compiler();
    overflow();
    return T_DONE();
}
