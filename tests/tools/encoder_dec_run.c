/* tests/tools/encoder_dec_run.c — driver for the comparison of kind "hf" decoder LMs with
 * transformers (tests/reference/hf_decoder_fixtures.py, tests/cli/t2280-hf-decoders.sh). Uses the
 * encoder's internal API (encoder_int.h: enc_dec_open, enc_dec_forward).
 *
 *   encoder_dec_run MODEL REFDIR [STREAM [DEVICE]]
 *
 * Reads REFDIR/ids_S.npy (int32 [T], S = 0, 1, ... until one is missing), runs all of them as one
 * packed batch (DEVICE cpu, the default, or cuda) with STREAM "hidden-states" (default),
 * "residual" or "post-norm", and writes REFDIR/c_hidden_S.npy (float32 [layers+1, T, d]) and
 * REFDIR/c_attn_S.npy (float32 [layers, heads, T, T]). Exit 0, or 1 with the error. */
#include "common/npy.h"
#include "common/sp.h"
#include "encoder/encoder_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_SENT 256

int main(int argc, char **argv)
{
    if (argc < 3) { fprintf(stderr, "usage: encoder_dec_run MODEL REFDIR [STREAM [DEVICE]]\n"); return argc == 1 ? 0 : 1; }
    const char *model = argv[1], *dir = argv[2];
    const int stream = argc > 3 ? enc_stream_parse(argv[3]) : ENC_STREAM_HIDDEN_STATES;
    const enum enc_device dev = argc > 4 && !strcmp(argv[4], "cuda") ? ENC_DEVICE_CUDA : ENC_DEVICE_CPU;
    if (stream < 0) { fprintf(stderr, "%s: not a stream\n", argv[3]); return 1; }
    char err[SP_ERRLEN * 4], f[4096];
    struct enc_dec *m = NULL;
    if (enc_dec_open(model, dev, NULL, &m, err, sizeof err)) { fprintf(stderr, "%s\n", err); return 1; }
    const struct enc_dec_config *c = enc_dec_get_config(m);
    const size_t L = (size_t)c->layers, H = (size_t)c->heads, d = (size_t)c->hidden_size;
    static struct sp_npy ids[MAX_SENT];
    static struct enc_bert_input in[MAX_SENT];
    static float *hid[MAX_SENT], *att[MAX_SENT];
    int n = 0;
    for (; n < MAX_SENT; n++) {
        snprintf(f, sizeof f, "%s/ids_%d.npy", dir, n);
        if (access(f, F_OK)) break;
        if (sp_npy_read(f, &ids[n], err, sizeof err)) { fprintf(stderr, "%s\n", err); return 1; }
        if (ids[n].dtype != SP_DT_I32) { fprintf(stderr, "%s: expected int32 ids\n", f); return 1; }
        const size_t T = ids[n].count;
        in[n] = (struct enc_bert_input){ (int)T, ids[n].data, NULL };
        hid[n] = sp_xmalloc(sizeof(float) * (L + 1) * T * d);
        att[n] = sp_xmalloc(sizeof(float) * L * H * T * T);
    }
    if (enc_dec_forward(m, n, in, hid, ENC_BERT_ALL_LAYERS, att, ENC_BERT_ALL_LAYERS, stream, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    for (int s = 0; s < n; s++) {
        size_t T = (size_t)in[s].n, sh[4] = { L + 1, T, d, 0 }, sa[4] = { L, H, T, T };
        snprintf(f, sizeof f, "%s/c_hidden_%d.npy", dir, s);
        if (sp_npy_write(f, SP_DT_F32, 3, sh, hid[s], err, sizeof err)) { fprintf(stderr, "%s\n", err); return 1; }
        snprintf(f, sizeof f, "%s/c_attn_%d.npy", dir, s);
        if (sp_npy_write(f, SP_DT_F32, 4, sa, att[s], err, sizeof err)) { fprintf(stderr, "%s\n", err); return 1; }
        free(hid[s]);
        free(att[s]);
        sp_npy_free(&ids[s]);
    }
    enc_dec_close(m);
    return 0;
}
