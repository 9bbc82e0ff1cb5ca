/* Unit tests for common/sha256.c: both compression backends (portable C and SHA-NI, where the
 * CPU has it) against the FIPS 180-4 / NIST example messages, fed whole, byte by byte and in
 * uneven pieces that straddle block boundaries. */
#include <stdlib.h>

#include "common/sp.h"
#include "t_harness.h"

static void sha_pieces(const char *m, size_t n, size_t piece, char out[65])
{
    struct sp_sha256 c;
    sp_sha256_init(&c);
    for (size_t i = 0; i < n; i += piece) sp_sha256_update(&c, m + i, n - i < piece ? n - i : piece);
    sp_sha256_hex(&c, out);
}

/* NIST examples (FIPS 180-4 appendix B / the CSRC example values): expected digests are the published ones */
static const char *const abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
static const char *const empty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
static const char *const m448 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
static const char *const d448 = "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1";
static const char *const m896 = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopq"
                                "klmnopqrlmnopqrsmnopqrstnopqrstu";
static const char *const d896 = "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1";
static const char *const dmillion = "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0";

static void check_backend(const char *name, const char *million)
{
    char h[65];
    static const size_t pieces[] = { 1, 3, 63, 64, 65, 1000, 1u << 20 };
    for (size_t k = 0; k < sizeof pieces / sizeof *pieces; k++) {
        size_t p = pieces[k];
        sha_pieces("abc", 3, p, h);
        T_EQ_STR(h, abc);
        sha_pieces("", 0, p, h);
        T_EQ_STR(h, empty);
        sha_pieces(m448, strlen(m448), p, h);
        T_EQ_STR(h, d448);
        sha_pieces(m896, strlen(m896), p, h);
        T_EQ_STR(h, d896);
        if (p >= 63) {             /* one million 'a' (byte by byte is slow and adds nothing) */
            sha_pieces(million, 1000000, p, h);
            T_EQ_STR(h, dmillion);
        }
    }
    printf("sha256 backend %s checked\n", name);
}

int main(void)
{
    char *million = malloc(1000000);
    memset(million, 'a', 1000000);

    const char *best = sp_sha256_backend(0);
    T_CHECK(!strcmp(best, "sha-ni") || !strcmp(best, "portable"));
    check_backend(best, million);
    if (strcmp(best, "sha-ni")) T_SKIP("this CPU has no SHA extensions: only the portable backend was tested");

    T_EQ_STR(sp_sha256_backend(1), "portable");
    check_backend("portable", million);

    /* both backends agree on every length 0..300 of a non-repeating message */
    unsigned char *buf = malloc(300);
    for (int i = 0; i < 300; i++) buf[i] = (unsigned char)(i * 131 + 7);
    int agree = 1;
    for (size_t n = 0; n <= 300; n++) {
        char a[65], b[65];
        sp_sha256_backend(1);
        sha_pieces((const char *)buf, n, 64, a);
        sp_sha256_backend(0);
        sha_pieces((const char *)buf, n, 64, b);
        agree &= !strcmp(a, b);
    }
    T_CHECK(agree);
    sp_sha256_backend(0);
    free(buf);
    free(million);
    return T_DONE();
}
