/* tests/tools/encoder_dump.c — driver for the NumPy reference comparison
 * (tests/reference/encoders_ref.py, tests/cli/t2050-encoder-ref.sh). It goes through the public
 * encoder API only (docs/style.md §3.6).
 *
 *   encoder_dump init CONFIG OUT.safetensors       seeded init, save the weights
 *   encoder_dump run CONFIG WEIGHTS INPUT OUTDIR L  load weights, encode INPUT, write outputs
 *   encoder_dump                                   (no arguments: nothing to do, exit 0)
 *
 * INPUT (written by encoders_ref.py), little-endian:
 *   "SPENCIN1", int32 B, int32 d_in, int32 T, then per sentence:
 *   int32 n; float32 emb[n*d_in]; int32 depth[n], dist[n*n], anc[n*n] (0/1), rel[n*n], pid[T*n]
 * OUTDIR/sent.f32: [B, enc_dim]; tok.f32: the [n_b, d] blocks in order; attn.f32: the [n_b, n_b]
 * maps of layer L in order. Raw float32 little-endian.
 * A driver, not a test: built by `make test-cli` into $(BUILD)/tools, outside the unit-test runner's
 * $(BUILD)/tests. */
#include "common/sp.h"
#include "encoder/encoder.h"

#include <stdio.h>
#include <string.h>

static int rd(FILE *f, void *p, size_t sz, size_t n) { return fread(p, sz, n, f) == n; }

static int cmd_run(const char *cfgp, const char *wp, const char *inp, const char *outd, int layer)
{
    char err[SP_ERRLEN * 4];
    struct enc_config cfg;
    if (enc_config_load(cfgp, &cfg, err, sizeof err)) { fprintf(stderr, "%s\n", err); return 1; }
    enc_t *e;
    if (enc_open(&cfg, ENC_DEVICE_CPU, wp, 0, &e, err, sizeof err)) { fprintf(stderr, "%s\n", err); return 1; }
    FILE *f = fopen(inp, "rb");
    if (!f) { fprintf(stderr, "%s: cannot open\n", inp); return 1; }
    char magic[8];
    int32_t hdr[3];
    if (!rd(f, magic, 1, 8) || memcmp(magic, "SPENCIN1", 8) || !rd(f, hdr, 4, 3)) { fprintf(stderr, "%s: bad header\n", inp); return 1; }
    int B = hdr[0], din = hdr[1], T = hdr[2];
    if (din != cfg.d_input) { fprintf(stderr, "%s: d_in %d, config wants %d\n", inp, din, cfg.d_input); return 1; }
    struct enc_sentence *s = sp_xcalloc((size_t)B, sizeof *s);
    float **tok = sp_xcalloc((size_t)B, sizeof *tok), **attn = sp_xcalloc((size_t)B, sizeof *attn);
    for (int b = 0; b < B; b++) {
        int32_t n;
        if (!rd(f, &n, 4, 1) || n <= 0) { fprintf(stderr, "%s: sentence %d: bad length\n", inp, b); return 1; }
        size_t nn = (size_t)n * n;
        float *emb = sp_xmalloc(sizeof(float) * (size_t)n * din);
        int32_t *depth = sp_xmalloc(4 * (size_t)n), *dist = sp_xmalloc(4 * nn), *ancw = sp_xmalloc(4 * nn),
                *rel = sp_xmalloc(4 * nn), *pid = sp_xmalloc(4 * (size_t)T * n + 4);
        uint8_t *anc = sp_xmalloc(nn);
        if (!rd(f, emb, 4, (size_t)n * din) || !rd(f, depth, 4, (size_t)n) || !rd(f, dist, 4, nn) || !rd(f, ancw, 4, nn)
            || !rd(f, rel, 4, nn) || (T && !rd(f, pid, 4, (size_t)T * n))) { fprintf(stderr, "%s: sentence %d: truncated\n", inp, b); return 1; }
        for (size_t k = 0; k < nn; k++) anc[k] = (uint8_t)(ancw[k] != 0);
        free(ancw);
        s[b] = (struct enc_sentence){ .n = n, .emb = emb, .depth = depth, .dist = dist, .anc = anc, .rel = rel,
                                      .pid = T ? pid : NULL, .n_levels = T };
        tok[b] = sp_xmalloc(sizeof(float) * (size_t)n * enc_tok_dim(e));
        attn[b] = sp_xmalloc(sizeof(float) * nn);
    }
    fclose(f);
    float *sent = sp_xmalloc(sizeof(float) * (size_t)B * enc_dim(e));
    struct enc_batch in = { B, s, NULL, 0, 0 };
    struct enc_output out = { sent, tok, attn, layer };
    if (enc_forward(e, &in, &out, err, sizeof err)) { fprintf(stderr, "%s\n", err); return 1; }
    char path[4096];
    const char *names[3] = { "sent.f32", "tok.f32", "attn.f32" };
    for (int w = 0; w < 3; w++) {
        snprintf(path, sizeof path, "%s/%s", outd, names[w]);
        FILE *o = fopen(path, "wb");
        if (!o) { fprintf(stderr, "%s: cannot create\n", path); return 1; }
        if (w == 0) fwrite(sent, sizeof(float), (size_t)B * enc_dim(e), o);
        for (int b = 0; w && b < B; b++) {
            if (w == 1) fwrite(tok[b], sizeof(float), (size_t)s[b].n * enc_tok_dim(e), o);
            else fwrite(attn[b], sizeof(float), (size_t)s[b].n * s[b].n, o);
        }
        if (fclose(o)) { fprintf(stderr, "%s: write error\n", path); return 1; }
    }
    for (int b = 0; b < B; b++) {
        free((void *)s[b].emb); free((void *)s[b].depth); free((void *)s[b].dist); free((void *)s[b].anc);
        free((void *)s[b].rel); free((void *)s[b].pid); free(tok[b]); free(attn[b]);
    }
    free(s); free(tok); free(attn); free(sent);
    enc_close(e);
    return 0;
}

int main(int argc, char **argv)
{
    char err[SP_ERRLEN * 4];
    if (argc == 1) { printf("encoder_dump: reference-comparison driver (used by tests/cli/t2050-encoder-ref.sh); nothing to do\n"); return 0; }
    if (argc == 4 && !strcmp(argv[1], "init")) {
        struct enc_config cfg;
        enc_t *e;
        if (enc_config_load(argv[2], &cfg, err, sizeof err) || enc_open(&cfg, ENC_DEVICE_CPU, NULL, 0, &e, err, sizeof err)
            || enc_save_weights(e, argv[3], err, sizeof err)) { fprintf(stderr, "%s\n", err); return 1; }
        enc_close(e);
        return 0;
    }
    if (argc == 7 && !strcmp(argv[1], "run")) return cmd_run(argv[2], argv[3], argv[4], argv[5], atoi(argv[6]));
    fprintf(stderr, "usage: encoder_dump init CONFIG OUT | run CONFIG WEIGHTS INPUT OUTDIR LAYER\n");
    return 2;
}
