/* tests/unit/encoder_sft_shapes.c — the safetensors reader's shapes and offsets (issue 40 item 8):
 * hand-made headers whose shapes multiply past 2^64 ([2^32, 2^32] once wrapped to 0 bytes and was
 * accepted, [2^32, 2^32, 16] said "need 0", [2^62, 4] "expected a non-negative integer") are
 * "shape too large" naming the tensor and header["NAME"].shape; a dim is a JSON integer read
 * exactly (2^53 + 1 is not rounded to 2^53), and 1.5, 1e3, -1 or a string is refused naming
 * header["NAME"].shape[k]; a dim of 0 makes an empty tensor; offsets past the end, overlapping
 * or with begin > end are refused naming the tensor. Expected words are the header's own numbers
 * (hand computation), never the reader's output. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "encoder/encoder_int.h"
#include "tests/unit/t_harness.h"

static char dir[] = "/tmp/sp-sfts-XXXXXX";
static char err[SP_ERRLEN];
static int n_files;

/* u64 LE header length, the header, then n data bytes */
static const char *file_with(const char *header, size_t n)
{
    static char p[256];
    snprintf(p, sizeof p, "%s/%d.st", dir, n_files++);
    FILE *f = fopen(p, "wb");
    uint64_t hl = strlen(header);
    for (int k = 0; k < 8; k++) fputc((int)(hl >> (8 * k)) & 0xff, f);
    fputs(header, f);
    for (size_t i = 0; i < n; i++) fputc(0, f);
    fclose(f);
    return p;
}

/* open must fail with SP_EPARSE and a message holding every one of want[] (NULL-ended) */
static void refused(const char *name, const char *header, size_t n, const char *const *want)
{
    struct enc_sft s;
    int rc = enc_sft_open(file_with(header, n), &s, err, sizeof err);
    T_EQ_INT(rc, SP_EPARSE);
    for (int i = 0; want[i]; i++) {
        if (!strstr(err, want[i])) fprintf(stderr, "FAIL %s: \"%s\" does not hold \"%s\"\n", name, err, want[i]);
        T_CHECK(strstr(err, want[i]) != NULL);
    }
    if (rc == SP_OK) enc_sft_close(&s);
}
#define REFUSED(name, header, n, ...) refused(name, header, n, (const char *const[]){ __VA_ARGS__, NULL })

#define T(name, shape, b, e) "\"" name "\":{\"dtype\":\"F32\",\"shape\":" shape ",\"data_offsets\":[" #b "," #e "]}"

static void too_large(void)
{
    /* 2^32 * 2^32 = 2^64 elements: wrapped to 0 bytes, which [0, 0] "held" */
    REFUSED("2^32 x 2^32", "{" T("w", "[4294967296,4294967296]", 0, 0) "}", 0,
            "tensor w: header[\"w\"].shape [4294967296, 4294967296]: shape too large", "more than 2^64 bytes");
    /* 2^68 elements: wrapped to 0 as well, once "need 0" */
    REFUSED("2^32 x 2^32 x 16", "{" T("big.weight", "[4294967296,4294967296,16]", 0, 8) "}", 8,
            "tensor big.weight: header[\"big.weight\"].shape [4294967296, 4294967296, 16]: shape too large");
    /* 2^62 * 4 = 2^64 elements (and 2^66 bytes): once "expected a non-negative integer" */
    REFUSED("2^62 x 4", "{" T("e", "[4611686018427387904,4]", 0, 4) "}", 4,
            "header[\"e\"].shape [4611686018427387904, 4]: shape too large");
    /* 2^62 elements of 4 bytes: the element count fits 64 bits, the bytes do not */
    REFUSED("2^62 floats", "{" T("f", "[4611686018427387904]", 0, 4) "}", 4, "tensor f: ", "shape too large");
    /* fits 64 bits, but 2^50 bytes the 16-byte data section cannot hold (offsets disagree) */
    REFUSED("2^40 x 2^8 floats", "{" T("g", "[1099511627776,256]", 0, 16) "}", 16,
            "tensor g: data_offsets [0, 16] hold 16 bytes, but shape and dtype F32 need 1125899906842624; "
            "header[\"g\"].shape [1099511627776, 256]: shape too large (the data section has 16 bytes)");
    /* 2^53 + 1: read as that integer, not rounded to a double (2^53 would print ...992) */
    REFUSED("2^53 + 1", "{" T("h", "[9007199254740993]", 0, 4) "}", 4,
            "need 36028797018963972; header[\"h\"].shape [9007199254740993]: shape too large");
    /* beyond 2^63 - 1: the JSON parser's own refusal, with where */
    REFUSED("2^64", "{" T("i", "[18446744073709551616]", 0, 4) "}", 4, "too big integer", "column", "shape too large");
}

static void bad_dims(void)
{
    REFUSED("negative", "{" T("n", "[2,-1]", 0, 8) "}", 8, "tensor n: header[\"n\"].shape[1]: expected a non-negative integer, got -1");
    REFUSED("1.5", "{" T("r", "[1.5]", 0, 4) "}", 4, "header[\"r\"].shape[0]: expected a non-negative integer, got 1.5");
    REFUSED("1e3 (a JSON real)", "{" T("x", "[1e3]", 0, 4000) "}", 4000, "header[\"x\"].shape[0]: expected a non-negative integer, got 1000");
    REFUSED("a string", "{" T("s", "[\"99999999999999999999999999999999999999999999999999999999\"]", 0, 4) "}", 4,
            "header[\"s\"].shape[0]: expected a non-negative integer, got \"999999999999999999999999999999999999999...");
    REFUSED("null", "{" T("z", "[null]", 0, 4) "}", 4, "header[\"z\"].shape[0]: expected a non-negative integer, got null");
}

static void zero_dims(void)
{
    /* a dim of 0: no elements, however large the others (nothing to wrap) */
    struct enc_sft s;
    T_EQ_INT(enc_sft_open(file_with("{" T("a", "[1]", 0, 4) "," T("z", "[0,4611686018427387904,4611686018427387904]", 4, 4) "}", 4),
                          &s, err, sizeof err), SP_OK);
    if (s.n == 2) {
        const struct enc_sft_tensor *z = enc_sft_find(&s, "z");
        T_CHECK(z && z->count == 0 && z->ndim == 3);
        enc_sft_close(&s);
    } else {
        T_EQ_INT(s.n, 2);
        fprintf(stderr, "%s\n", err);
    }
    /* an empty tensor that claims bytes */
    REFUSED("0 with bytes", "{" T("y", "[0]", 0, 4) "}", 4, "tensor y: data_offsets [0, 4] hold 4 bytes, but shape and dtype F32 need 0");
}

static void offsets(void)
{
    REFUSED("begin > end", "{" T("b", "[0]", 8, 4) "}", 8, "tensor b: header[\"b\"].data_offsets [8, 4]: expected 0 <= begin <= end");
    REFUSED("negative begin", "{" T("c", "[1]", -4, 0) "}", 4, "tensor c: header[\"c\"].data_offsets [-4, 0]: expected 0 <= begin <= end");
    REFUSED("past the end", "{" T("d", "[3]", 0, 12) "}", 8, "tensor d: data ends at byte 12 of the data section, which has only 8 bytes");
    REFUSED("overlapping", "{" T("p", "[2]", 0, 8) "," T("q", "[2]", 4, 12) "}", 12,
            "tensor q: data_offsets [4, 12] overlap those of tensor p, which end at 8");
    REFUSED("offsets a real", "{\"o\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4.0]}}", 4,
            "tensor o: data_offsets: expected [begin, end]");
}

int main(void)
{
    alarm(20);
    if (!mkdtemp(dir)) { perror("mkdtemp"); return 1; }
    too_large();
    bad_dims();
    zero_dims();
    offsets();
    char p[256];
    for (int i = 0; i < n_files; i++) { snprintf(p, sizeof p, "%s/%d.st", dir, i); unlink(p); }
    rmdir(dir);
    return T_DONE();
}
