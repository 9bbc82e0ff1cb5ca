/* Unit tests for common/: SHA-256 (FIPS 180-4 examples), UTF-8 validation, PRNG determinism. */
#include "common/sp.h"
#include "t_harness.h"

static void sha(const char *s, char out[65])
{
    struct sp_sha256 c;
    sp_sha256_init(&c);
    sp_sha256_update(&c, s, strlen(s));
    sp_sha256_hex(&c, out);
}

int main(void)
{
    char h[65];
    sha("abc", h);
    T_EQ_STR(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    sha("", h);
    T_EQ_STR(h, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    sha("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", h);
    T_EQ_STR(h, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"); /* FIPS 180-4 B.2 */
    /* streaming in odd pieces equals one shot */
    struct sp_sha256 c;
    sp_sha256_init(&c);
    const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    for (size_t i = 0; i < strlen(m); i += 7) sp_sha256_update(&c, m + i, strlen(m) - i < 7 ? strlen(m) - i : 7);
    sp_sha256_hex(&c, h);
    T_EQ_STR(h, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");

    T_CHECK(sp_utf8_valid("caf\xc3\xa9", 5));
    T_CHECK(!sp_utf8_valid("\xc3", 1));             /* truncated */
    T_CHECK(!sp_utf8_valid("\xc0\xaf", 2));         /* overlong */
    T_CHECK(!sp_utf8_valid("\xed\xa0\x80", 3));     /* surrogate */
    T_CHECK(!sp_utf8_valid("\xff", 1));

    struct sp_rng a, b;
    sp_rng_seed(&a, 42); sp_rng_seed(&b, 42);
    int same = 1;
    for (int i = 0; i < 100; i++) same &= sp_rng_next(&a) == sp_rng_next(&b);
    T_CHECK(same);
    for (int i = 0; i < 1000; i++) { uint64_t x = sp_rng_below(&a, 7); T_CHECK(x < 7); }

    /* SplitMix64: the check values of docs/spec/models.md M7.1 */
    struct sp_splitmix sm;
    sp_splitmix_seed(&sm, 0);
    T_CHECK(sp_splitmix_next(&sm) == 0xe220a8397b1dcdafull);
    T_CHECK(sp_splitmix_next(&sm) == 0x6e789e6aa1b965f4ull);
    T_CHECK(sp_splitmix_next(&sm) == 0x06c45d188009454full);
    sp_splitmix_seed(&sm, 1111);
    T_CHECK(sp_splitmix_next(&sm) == 0x0fe323b2abddd8a7ull);
    T_CHECK(sp_splitmix_next(&sm) == 0xcb6c7ffab2094263ull);
    T_CHECK(sp_splitmix_next(&sm) == 0xe888cdc3a226411cull);
    /* below(10) of seed 1111: the first resample of TV-M7 (M7.7) */
    sp_splitmix_seed(&sm, 1111);
    int first[10], want[10] = { 0, 7, 9, 9, 5, 2, 0, 5, 3, 3 }, eq = 1;
    for (int i = 0; i < 10; i++) eq &= (first[i] = (int)sp_splitmix_below(&sm, 10)) == want[i];
    T_CHECK(eq);
    sp_splitmix_seed(&sm, 0);
    T_CHECK(sp_splitmix_unif(&sm) == (double)(0xe220a8397b1dcdafull >> 11) * 0x1.0p-53);

    struct sp_arena ar;
    sp_arena_init(&ar);
    for (int i = 0; i < 10000; i++) { char *s = sp_arena_printf(&ar, "w%d", i); T_CHECK(s[0] == 'w'); }
    sp_arena_free(&ar);
    /* the first non-finite value: its index and kind, -1 when there is none */
    const float fin[3] = { 1.0f, -2.5f, 0.0f }, nan_at2[4] = { 0.0f, 1e38f, NAN, INFINITY }, inf_at0[2] = { -INFINITY, NAN };
    T_EQ_INT(sp_first_nonfinite(fin, 3), -1);
    T_EQ_INT(sp_first_nonfinite(fin, 0), -1);
    T_EQ_INT(sp_first_nonfinite(nan_at2, 4), 2);
    T_EQ_INT(sp_first_nonfinite(inf_at0, 2), 0);
    T_EQ_STR(sp_nonfinite_kind(nan_at2[2]), "NaN");
    T_EQ_STR(sp_nonfinite_kind(inf_at0[0]), "infinite");
    return T_DONE();
}
