/* tests/unit/encoder_sft_bounds.c — the safetensors reader reads only what the header declares and
 * the file holds (issue 22 items 7 and 10): hand-made files whose data_offsets overlap, leave a
 * gap, leave bytes after the last tensor or reach past the file, and header lengths beyond the
 * file or absurd, are refused naming the tensor; a file that tiles its data section exactly
 * (an empty tensor included, as the format allows) is read back; a device is refused by name;
 * a stop request ends a tensor read with SP_ESTOPPED. */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/stop.h"
#include "encoder/encoder_int.h"
#include "tests/unit/t_harness.h"

static char dir[] = "/tmp/sp-sftb-XXXXXX";
static char err[SP_ERRLEN];

/* FILE = u64 LE header length, the header as given (no padding), then n data bytes 0, 1, 2, ... */
static const char *write_file(const char *name, uint64_t hl_declared, const char *header, size_t n)
{
    static char p[256];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "wb");
    uint8_t hl8[8];
    for (int k = 0; k < 8; k++) hl8[k] = (uint8_t)(hl_declared >> (8 * k));
    fwrite(hl8, 1, 8, f);
    fwrite(header, 1, strlen(header), f);
    for (size_t i = 0; i < n; i++) fputc((int)(i & 0x7f), f);
    fclose(f);
    return p;
}

static const char *file_with(const char *name, const char *header, size_t n)
{
    return write_file(name, strlen(header), header, n);
}

/* open must fail with SP_EPARSE and a message holding want */
static void refused(const char *name, const char *path, const char *want)
{
    struct enc_sft s;
    int rc = enc_sft_open(path, &s, err, sizeof err);
    T_EQ_INT(rc, SP_EPARSE);
    if (!strstr(err, want)) fprintf(stderr, "FAIL %s: \"%s\" does not hold \"%s\"\n", name, err, want);
    T_CHECK(strstr(err, want) != NULL);
    if (rc == SP_OK) enc_sft_close(&s);
}

#define F32(name, n, b, e) "\"" name "\":{\"dtype\":\"F32\",\"shape\":[" #n "],\"data_offsets\":[" #b "," #e "]}"

static void offsets(void)
{
    /* b starts inside a: bytes 4..8 would be two tensors' at once */
    refused("overlap", file_with("overlap.st", "{" F32("a", 2, 0, 8) "," F32("b", 2, 4, 12) "}", 12),
            "tensor b: data_offsets [4, 12] overlap those of tensor a, which end at 8");
    /* the same, listed the other way round: sorting by offset finds it */
    refused("overlap, reversed", file_with("overlap2.st", "{" F32("b", 2, 4, 12) "," F32("a", 2, 0, 8) "}", 12),
            "tensor b: data_offsets [4, 12] overlap those of tensor a");
    /* two names for the very same bytes */
    refused("alias", file_with("alias.st", "{" F32("a", 1, 0, 4) "," F32("b", 1, 0, 4) "}", 4), "overlap those of tensor");
    /* a hole between two tensors (the format: "cannot contain holes") */
    refused("gap", file_with("gap.st", "{" F32("a", 1, 0, 4) "," F32("b", 1, 8, 12) "}", 12),
            "tensor b: data_offsets begin at 8, but tensor a ends at 4: 4 bytes belong to no tensor");
    refused("gap before the first", file_with("gap0.st", "{" F32("a", 1, 4, 8) "}", 8),
            "tensor a: data_offsets begin at 4: the first 4 bytes of the data section belong to no tensor");
    /* bytes after the last tensor */
    refused("trailing", file_with("tail.st", "{" F32("a", 1, 0, 4) "}", 8),
            "the data section has 4 bytes after tensor a (which ends at 4)");
    /* past the end of the file */
    refused("out of range", file_with("range.st", "{" F32("a", 4, 0, 16) "}", 8),
            "tensor a: data ends at byte 16 of the data section, which has only 8 bytes");
    /* offsets that disagree with shape x dtype */
    refused("size", file_with("size.st", "{" F32("a", 3, 0, 8) "}", 8), "tensor a: data_offsets [0, 8] hold 8 bytes");
}

static void header_lengths(void)
{
    const char *h = "{" F32("a", 1, 0, 4) "}";
    refused("header beyond the file", write_file("hl.st", 1000, h, 4), "header length 1000 does not fit the");
    refused("absurd header length", write_file("hl2.st", (uint64_t)1 << 62, h, 4), "does not fit");
    refused("header length 0", write_file("hl3.st", 0, h, 4), "header length 0 does not fit");
}

static void exact_tiling_reads(void)
{
    /* b, an empty tensor at offset 4 (allowed: it takes no bytes), then c; listed out of order */
    const char *p = file_with("ok.st", "{" F32("c", 2, 4, 12) ",\"b\":{\"dtype\":\"F32\",\"shape\":[0],\"data_offsets\":[4,4]},"
                                       F32("a", 1, 0, 4) "}", 0);
    /* data: a = 1.0f, c = {2.0f, -0.5f} */
    FILE *f = fopen(p, "ab");
    const float v[3] = { 1.0f, 2.0f, -0.5f };
    fwrite(v, sizeof v[0], 3, f);
    fclose(f);
    struct enc_sft s;
    T_EQ_INT(enc_sft_open(p, &s, err, sizeof err), SP_OK);
    if (s.n != 3) { T_EQ_INT(s.n, 3); fprintf(stderr, "%s\n", err); return; }
    float got[2] = { 0, 0 };
    T_EQ_INT(enc_sft_read_f32(&s, enc_sft_find(&s, "a"), got, err, sizeof err), SP_OK);
    T_CHECK(got[0] == 1.0f);
    T_EQ_INT(enc_sft_read_f32(&s, enc_sft_find(&s, "c"), got, err, sizeof err), SP_OK);
    T_CHECK(got[0] == 2.0f && got[1] == -0.5f);
    /* a stop request (SIGTERM's flag) ends a read before it starts a chunk */
    atomic_store(&sp_stop_signal, SIGTERM);
    T_EQ_INT(enc_sft_read_f32(&s, enc_sft_find(&s, "c"), got, err, sizeof err), SP_ESTOPPED);
    T_CHECK(strstr(err, "tensor c: stopped while reading") != NULL);
    atomic_store(&sp_stop_signal, 0);
    enc_sft_close(&s);
}

static void not_regular_files(void)
{
    struct enc_sft s;
    T_EQ_INT(enc_sft_open("/dev/zero", &s, err, sizeof err), SP_EIO);
    T_CHECK(strstr(err, "/dev/zero: is a character device; expected a regular file") != NULL);
    T_EQ_INT(enc_sft_open(dir, &s, err, sizeof err), SP_EIO);
    T_CHECK(strstr(err, "is a directory; expected a regular file") != NULL);
}

int main(void)
{
    alarm(20);                     /* a reader that hangs fails instead of blocking the suite */
    if (!mkdtemp(dir)) { perror("mkdtemp"); return 1; }
    offsets();
    header_lengths();
    exact_tiling_reads();
    not_regular_files();
    static const char *const names[] = { "overlap.st", "overlap2.st", "alias.st", "gap.st", "gap0.st", "tail.st", "range.st",
                                         "size.st", "hl.st", "hl2.st", "hl3.st", "ok.st" };
    char p[256];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) { snprintf(p, sizeof p, "%s/%s", dir, names[i]); unlink(p); }
    rmdir(dir);
    return T_DONE();
}
