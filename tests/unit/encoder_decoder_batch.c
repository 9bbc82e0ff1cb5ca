/* tests/unit/encoder_decoder_batch.c — the determinism contract (README "Determinism") for the
 * decoder family (encoder/enc_decoder.c): a sentence's sentence vector, word vectors of every
 * layer and word-level attention map are the same bytes encoded alone or in one batch with all
 * the others (the CPU runs a batch as groups of at most 512 pieces: crossed here), at any
 * position, on 1 or 3 threads. On tests/data/hf-dec's gpt2 (learned positions), llama (RoPE,
 * grouped-query attention) and mistral (its sliding window's mask on the longer sentences), with
 * sentences of 1..14 words drawn from a fixed word list (run from the repository root). */
#include "common/sp.h"
#include "encoder/encoder.h"
#include "tests/unit/t_harness.h"

#include <stdlib.h>
#include <string.h>

#define NS 90
static char err[4096];
static const char *const vocab[] = { "The", "dog", "barked", "at", "a", "cat", ".", "and", "then", "it", "ran", "away",
                                     "from", "the", "old", "house", ",", "while", "children", "played", "outside", "today" };

struct res { float **sent, **tok, **attn; };

static void encode(enc_t *e, const struct enc_sentence *s, const int *idx, int count, const int *layers, int nl, struct res *r)
{
    struct enc_sentence *b = sp_xcalloc((size_t)count, sizeof *b);
    struct enc_output *out = sp_xcalloc((size_t)nl, sizeof *out);
    const int d = enc_dim(e);
    for (int k = 0; k < count; k++) b[k] = s[idx[k]];
    for (int l = 0; l < nl; l++) {
        out[l].sent = sp_xcalloc((size_t)count * d, sizeof(float));
        out[l].tok = sp_xcalloc((size_t)count, sizeof *out[l].tok);
        out[l].attn = l == nl - 1 ? sp_xcalloc((size_t)count, sizeof *out[l].attn) : NULL;
        out[l].attn_layer = -1;
        for (int k = 0; k < count; k++) {
            out[l].tok[k] = r->tok[(size_t)idx[k] * nl + l];
            if (out[l].attn) out[l].attn[k] = r->attn[idx[k]];
        }
    }
    struct enc_batch in = { count, b, NULL, 0, 0 };
    int rc = enc_forward_layers(e, &in, nl, layers, out, NULL, err, sizeof err);
    if (rc) fprintf(stderr, "%s\n", err);
    T_EQ_INT(rc, SP_OK);
    for (int l = 0; l < nl; l++) {
        for (int k = 0; k < count; k++) memcpy(r->sent[(size_t)idx[k] * nl + l], out[l].sent + (size_t)k * d, sizeof(float) * d);
        free(out[l].sent); free(out[l].tok); free(out[l].attn);
    }
    free(out);
    free(b);
}

static void res_init(struct res *r, const struct enc_sentence *s, int nl, int d)
{
    r->sent = sp_xcalloc((size_t)NS * nl, sizeof *r->sent);
    r->tok = sp_xcalloc((size_t)NS * nl, sizeof *r->tok);
    r->attn = sp_xcalloc(NS, sizeof *r->attn);
    for (int k = 0; k < NS; k++) {
        for (int l = 0; l < nl; l++) {
            r->sent[(size_t)k * nl + l] = sp_xcalloc((size_t)d, sizeof(float));
            r->tok[(size_t)k * nl + l] = sp_xcalloc((size_t)s[k].n * d, sizeof(float));
        }
        r->attn[k] = sp_xcalloc((size_t)s[k].n * s[k].n, sizeof(float));
    }
}

static void res_free(struct res *r, int nl)
{
    for (int k = 0; k < NS; k++) {
        for (int l = 0; l < nl; l++) { free(r->sent[(size_t)k * nl + l]); free(r->tok[(size_t)k * nl + l]); }
        free(r->attn[k]);
    }
    free(r->sent); free(r->tok); free(r->attn);
}

static int same(const struct enc_sentence *s, const struct res *a, const struct res *b, int nl, int d, const char *model,
                const char *what)
{
    for (int k = 0; k < NS; k++) {
        int bad = memcmp(a->attn[k], b->attn[k], sizeof(float) * (size_t)s[k].n * s[k].n) != 0;
        for (int l = 0; l < nl; l++)
            bad |= memcmp(a->sent[(size_t)k * nl + l], b->sent[(size_t)k * nl + l], sizeof(float) * d) ||
                   memcmp(a->tok[(size_t)k * nl + l], b->tok[(size_t)k * nl + l], sizeof(float) * (size_t)s[k].n * d);
        if (bad) { fprintf(stderr, "determinism broken: %s: %s: sentence %d (%d words)\n", model, what, k, s[k].n); return 0; }
    }
    return 1;
}

int main(void)
{
    static const char *const models[] = { "tests/data/hf-dec/gpt2", "tests/data/hf-dec/llama", "tests/data/hf-dec/mistral" };
    const int nv = (int)(sizeof vocab / sizeof vocab[0]);
    const char **words = sp_xcalloc((size_t)NS * 40, sizeof *words);
    struct enc_sentence s[NS];
    int idx[NS], ridx[NS];
    memset(s, 0, sizeof s);
    for (int k = 0; k < NS; k++) {
        s[k].n = 1 + (k * 13) % 14;       /* at most 64 pieces of the tiny tokenizers: gpt2's positions */
        s[k].words = words + (size_t)k * 40;
        for (int i = 0; i < s[k].n; i++) words[(size_t)k * 40 + i] = vocab[(k * 31 + i * 7 + i * i) % nv];
        idx[k] = k;
        ridx[k] = NS - 1 - k;
    }
    int words_total = 0;
    for (int k = 0; k < NS; k++) words_total += s[k].n;
    T_CHECK(words_total > 512);            /* pieces >= words: the batch crosses the 512-piece groups */
    for (size_t m = 0; m < sizeof models / sizeof models[0]; m++) {
        char json[256];
        struct enc_config cfg;
        enc_t *e = NULL;
        snprintf(json, sizeof json, "{\"kind\":\"hf\",\"model\":\"%s\"}", models[m]);
        if (enc_config_parse(json, "t.json", &cfg, err, sizeof err) || enc_open(&cfg, ENC_DEVICE_CPU, NULL, 0, &e, err, sizeof err)) {
            fprintf(stderr, "%s\n", err);
            T_CHECK(!"open");
            continue;
        }
        const int layers[3] = { 0, 1, 2 }, nl = 3, d = enc_dim(e);
        struct res one, all;
        res_init(&one, s, nl, d);
        res_init(&all, s, nl, d);
        enc_set_threads(1);
        for (int k = 0; k < NS; k++) encode(e, s, &idx[k], 1, layers, nl, &one);
        for (int th = 1; th <= 3; th += 2) {
            enc_set_threads(th);
            encode(e, s, idx, NS, layers, nl, &all);
            T_CHECK(same(s, &one, &all, nl, d, models[m], th == 1 ? "alone vs one batch (1 thread)" : "alone vs one batch (3 threads)"));
            encode(e, s, ridx, NS, layers, nl, &all);
            T_CHECK(same(s, &one, &all, nl, d, models[m], "alone vs the reversed batch"));
        }
        /* the attention maps are causal: word b after word a gets 0 */
        int upper = 0;
        for (int k = 0; k < NS; k++)
            for (int a = 0; a < s[k].n; a++)
                for (int b = a + 1; b < s[k].n; b++) upper += one.attn[k][(size_t)a * s[k].n + b] != 0.0f;
        T_EQ_INT(upper, 0);
        enc_set_threads(1);
        res_free(&one, nl);
        res_free(&all, nl);
        enc_close(e);
    }
    free(words);
    return T_DONE();
}
