/* tests/tools/encoder_bert_run.c — driver for the NumPy reference comparison of kind "bert"
 * (tests/reference/bert_ref.py, tests/cli/t2051-bert-ref.sh) and of every family of kind "hf"
 * against transformers (tests/reference/hf_family_fixtures.py, tests/cli/t2236-hf-families.sh):
 * MODEL is opened with enc_hf_open, so any family's folder. Public encoder API only.
 *
 *   encoder_bert_run MODEL REFDIR [THREADS [REPEAT]]
 *
 * Reads REFDIR/ids_S.npy and types_S.npy (int32 [T], S = 0, 1, ... until one is missing),
 * encodes all of them as one batch on the CPU and writes REFDIR/c_hidden_S.npy (float32
 * [layers+1, T, d]) and REFDIR/c_attn_S.npy (float32 [layers, heads, T, T]). Then, without
 * attention maps, encodes the batch REPEAT times (default 1) and prints one line
 * "pieces N threads K seconds X pieces_per_s Y", then "peak_rss_kb N" (VmHWM of /proc/self/status:
 * the model's weights in memory and one batch's work). Exit 0, or 1 with the error. */
#include "common/npy.h"
#include "common/sp.h"
#include "encoder/encoder.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_SENT 4096

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    if (argc < 3) { fprintf(stderr, "usage: encoder_bert_run MODEL REFDIR [THREADS [REPEAT]]\n"); return argc == 1 ? 0 : 1; }
    const char *model = argv[1], *dir = argv[2];
    int threads = argc > 3 ? atoi(argv[3]) : 1, repeat = argc > 4 ? atoi(argv[4]) : 1;
    char err[SP_ERRLEN * 4], f[4096];
    enc_set_threads(threads);
    enc_bert_t *b = NULL;
    if (enc_hf_open(model, ENC_DEVICE_CPU, NULL, &b, err, sizeof err)) { fprintf(stderr, "%s\n", err); return 1; }
    const struct enc_bert_config *c = enc_bert_get_config(b);
    const size_t L = (size_t)c->layers, H = (size_t)c->heads, d = (size_t)c->hidden_size;
    static struct sp_npy ids[MAX_SENT], types[MAX_SENT];
    static struct enc_bert_input in[MAX_SENT];
    static float *hid[MAX_SENT], *att[MAX_SENT];
    int n = 0;
    long pieces = 0;
    for (; n < MAX_SENT; n++) {
        snprintf(f, sizeof f, "%s/ids_%d.npy", dir, n);
        if (access(f, F_OK)) break;
        if (sp_npy_read(f, &ids[n], err, sizeof err)) { fprintf(stderr, "%s\n", err); return 1; }
        snprintf(f, sizeof f, "%s/types_%d.npy", dir, n);
        if (sp_npy_read(f, &types[n], err, sizeof err)) { fprintf(stderr, "%s\n", err); return 1; }
        if (ids[n].dtype != SP_DT_I32 || types[n].dtype != SP_DT_I32 || ids[n].count != types[n].count) {
            fprintf(stderr, "%s/ids_%d.npy: expected int32 ids and types of one length\n", dir, n);
            return 1;
        }
        size_t T = ids[n].count;
        in[n] = (struct enc_bert_input){ (int)T, ids[n].data, types[n].data };
        hid[n] = sp_xmalloc(sizeof(float) * (L + 1) * T * d);
        att[n] = sp_xmalloc(sizeof(float) * L * H * T * T);
        pieces += (long)T;
    }
    if (enc_bert_forward(b, n, in, hid, ENC_BERT_ALL_LAYERS, att, ENC_BERT_ALL_LAYERS, err, sizeof err)) { fprintf(stderr, "%s\n", err); return 1; }
    for (int s = 0; s < n; s++) {
        size_t T = (size_t)in[s].n, sh[4] = { L + 1, T, d, 0 }, sa[4] = { L, H, T, T };
        snprintf(f, sizeof f, "%s/c_hidden_%d.npy", dir, s);
        if (sp_npy_write(f, SP_DT_F32, 3, sh, hid[s], err, sizeof err)) { fprintf(stderr, "%s\n", err); return 1; }
        snprintf(f, sizeof f, "%s/c_attn_%d.npy", dir, s);
        if (sp_npy_write(f, SP_DT_F32, 4, sa, att[s], err, sizeof err)) { fprintf(stderr, "%s\n", err); return 1; }
    }
    double t0 = now();
    for (int r = 0; r < repeat; r++)
        if (enc_bert_forward(b, n, in, hid, ENC_BERT_ALL_LAYERS, NULL, ENC_BERT_ALL_LAYERS, err, sizeof err)) { fprintf(stderr, "%s\n", err); return 1; }
    double dt = now() - t0;
    printf("pieces %ld threads %d seconds %.3f pieces_per_s %.1f\n", pieces * repeat, threads, dt, dt > 0 ? pieces * repeat / dt : 0.0);
    FILE *st = fopen("/proc/self/status", "r");
    char line[256];
    while (st && fgets(line, sizeof line, st))
        if (!strncmp(line, "VmHWM:", 6)) printf("peak_rss_kb %ld\n", strtol(line + 6, NULL, 10));
    if (st) fclose(st);
    for (int s = 0; s < n; s++) { free(hid[s]); free(att[s]); sp_npy_free(&ids[s]); sp_npy_free(&types[s]); }
    enc_bert_close(b);
    return 0;
}
