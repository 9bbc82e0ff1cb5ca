/* tests/fuzz/fuzz_safetensors.c — libFuzzer target for the safetensors reader (encoder/enc_safetensors.c):
 * arbitrary bytes written to a scratch file and opened with enc_sft_open must never crash, leak
 * or read outside the file, whatever the header says. An accepted file's tensors tile its data
 * section exactly (each one's bytes = its element count x dtype size with no 64-bit wrap, inside
 * the section, summing to its length), and each float tensor reads back in full; a refused one
 * always says why. Seeds: corpus/safetensors/ (small valid files, and the shapes of issue 40 item 8). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "encoder/encoder_int.h"

#define FZ_CHECK(c) do { if (!(c)) { fprintf(stderr, "invariant failed: %s (%s:%d)\n", #c, __FILE__, __LINE__); abort(); } } while (0)

static char path[64];

static void cleanup(void) { unlink(path); }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!path[0]) {
        snprintf(path, sizeof path, "%s/fuzz_sft.XXXXXX", access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
        int fd = mkstemp(path);
        if (fd < 0) { perror("mkstemp"); abort(); }
        close(fd);
        atexit(cleanup);
    }
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f)) { perror(path); abort(); }
    struct enc_sft s;
    char err[SP_ERRLEN];
    err[0] = 0;
    int rc = enc_sft_open(path, &s, err, sizeof err);
    if (rc != SP_OK) {
        FZ_CHECK(strlen(err) > strlen(path));
        return 0;
    }
    FZ_CHECK(s.data_start + s.data_len == size);
    uint64_t total = 0;
    for (int i = 0; i < s.n; i++) {
        const struct enc_sft_tensor *t = &s.t[i];
        uint64_t count = 1, bytes;
        for (int k = 0; k < t->ndim; k++) {
            FZ_CHECK(t->shape[k] >= 0);
            if (__builtin_mul_overflow(count, (uint64_t)t->shape[k], &count)) count = UINT64_MAX;
        }
        int zero = 0;
        for (int k = 0; k < t->ndim; k++) zero |= t->shape[k] == 0;
        FZ_CHECK(zero ? t->count == 0 : count == t->count);
        FZ_CHECK(!__builtin_mul_overflow(t->count, (uint64_t)t->elem_size, &bytes));
        FZ_CHECK(t->offset <= s.data_len && bytes <= s.data_len - t->offset);
        total += bytes;
        FZ_CHECK(enc_sft_find(&s, t->name) != NULL);
        if (!strcmp(t->dtype, "F32") || !strcmp(t->dtype, "F16") || !strcmp(t->dtype, "BF16")) {
            float *v = malloc(sizeof(float) * (size_t)t->count + 1);
            FZ_CHECK(enc_sft_read_widen(&s, t, v, err, sizeof err) == SP_OK);
            free(v);
        }
    }
    FZ_CHECK(total == s.data_len);               /* tiled: no hole, no overlap, nothing after */
    enc_sft_close(&s);
    return 0;
}
