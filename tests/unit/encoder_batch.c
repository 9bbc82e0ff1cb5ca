/* tests/unit/encoder_batch.c — enc_forward packs the sentences of a batch into one row block
 * (groups of up to 4096 tokens); a sentence's outputs must not depend on the batch it is in:
 * every sentence encoded alone, all of them in one batch (crossing a group boundary), and the
 * batch in reverse order give bit-identical sentence vectors, token vectors and attention maps,
 * for every kind, with 1 and 2 BLAS threads. */
#include "common/sp.h"
#include "encoder/encoder.h"
#include "tests/unit/encoder_fixture.h"
#include "tests/unit/t_harness.h"

#include <string.h>

static char err[4096];

static const char *const configs[] = {
    "{\"kind\":\"san\",\"d_model\":64,\"heads\":4,\"layers\":2,\"d_ff\":96,\"rel_pos\":\"struct+seq\",\"position\":\"seq+struct\",\"seed\":5}",
    "{\"kind\":\"san\",\"d_model\":48,\"d_input\":40,\"heads\":2,\"layers\":1,\"d_ff\":64,\"norm\":\"pre\",\"position\":\"seq\",\"emb_scale\":true,\"seed\":5}",
    "{\"kind\":\"ms-san\",\"d_model\":60,\"heads\":6,\"d_ff\":80,\"seed\":5}",
    "{\"kind\":\"ms-san\",\"d_model\":36,\"heads\":4,\"d_ff\":40,\"direction_mask\":\"strict\",\"distances\":[\"dep\",\"word\"],\"seed\":5}",
    "{\"kind\":\"sg-net\",\"d_model\":32,\"heads\":4,\"layers\":1,\"d_ff\":64,\"sgnet_aggregation\":\"code\",\"seed\":5}",
    "{\"kind\":\"psan\",\"d_model\":32,\"seed\":5}",
    "{\"kind\":\"ssan\",\"d_model\":32,\"heads\":4,\"layers\":2,\"d_ff\":64,\"seed\":5}",
};

#define NS 190          /* 190 sentences, lengths 1..46: about 4,400 tokens, more than one group */

struct res { float *sent, **tok, **attn; };

static void encode(enc_t *e, const struct enc_sentence *s, const int *idx, int count, struct res *r)
{
    struct enc_sentence *b = sp_xcalloc((size_t)count, sizeof *b);
    float **tok = sp_xcalloc((size_t)count, sizeof *tok), **attn = sp_xcalloc((size_t)count, sizeof *attn);
    float *sent = sp_xcalloc((size_t)count * enc_dim(e), sizeof(float));
    for (int k = 0; k < count; k++) { b[k] = s[idx[k]]; tok[k] = r->tok[idx[k]]; attn[k] = r->attn[idx[k]]; }
    struct enc_batch in = { count, b, NULL, 0 };
    struct enc_output out = { sent, tok, attn, -1 };
    int rc = enc_forward(e, &in, &out, err, sizeof err);
    if (rc) fprintf(stderr, "%s\n", err);
    T_EQ_INT(rc, SP_OK);
    for (int k = 0; k < count; k++) memcpy(r->sent + (size_t)idx[k] * enc_dim(e), sent + (size_t)k * enc_dim(e), sizeof(float) * enc_dim(e));
    free(b); free(tok); free(attn); free(sent);
}

static void res_init(struct res *r, enc_t *e, const struct enc_sentence *s)
{
    r->sent = sp_xcalloc((size_t)NS * enc_dim(e), sizeof(float));
    r->tok = sp_xcalloc(NS, sizeof *r->tok);
    r->attn = sp_xcalloc(NS, sizeof *r->attn);
    for (int k = 0; k < NS; k++) {
        r->tok[k] = sp_xcalloc((size_t)s[k].n * enc_tok_dim(e), sizeof(float));
        r->attn[k] = sp_xcalloc((size_t)s[k].n * s[k].n, sizeof(float));
    }
}

static void res_free(struct res *r)
{
    for (int k = 0; k < NS; k++) { free(r->tok[k]); free(r->attn[k]); }
    free(r->tok); free(r->attn); free(r->sent);
}

static int same(enc_t *e, const struct enc_sentence *s, const struct res *a, const struct res *b, const char *what)
{
    int bad = 0;
    for (int k = 0; k < NS; k++) {
        if (memcmp(a->sent + (size_t)k * enc_dim(e), b->sent + (size_t)k * enc_dim(e), sizeof(float) * enc_dim(e))
            || memcmp(a->tok[k], b->tok[k], sizeof(float) * (size_t)s[k].n * enc_tok_dim(e))
            || memcmp(a->attn[k], b->attn[k], sizeof(float) * (size_t)s[k].n * s[k].n)) {
            if (!bad) fprintf(stderr, "%s: %s: sentence %d (n %d) differs (sent %d tok %d attn %d)\n", enc_kind_name(enc_get_config(e)->kind), what, k, s[k].n, memcmp(a->sent + (size_t)k * enc_dim(e), b->sent + (size_t)k * enc_dim(e), sizeof(float) * enc_dim(e)) != 0, memcmp(a->tok[k], b->tok[k], sizeof(float) * (size_t)s[k].n * enc_tok_dim(e)) != 0, memcmp(a->attn[k], b->attn[k], sizeof(float) * (size_t)s[k].n * s[k].n) != 0);
            bad++;
        }
    }
    return bad == 0;
}

int main(void)
{
    for (size_t c = 0; c < sizeof configs / sizeof configs[0]; c++) {
        struct enc_config cfg;
        enc_t *e = NULL;
        if (enc_config_parse(configs[c], "t.json", &cfg, err, sizeof err) || enc_open(&cfg, ENC_DEVICE_CPU, NULL, 0, &e, err, sizeof err)) {
            fprintf(stderr, "%s\n", err);
            T_CHECK(!"open");
            continue;
        }
        struct fx_sent *f = sp_xcalloc(NS, sizeof *f);
        struct enc_sentence *s = sp_xcalloc(NS, sizeof *s);
        int head[64], idx[NS];
        long tokens = 0;
        for (int k = 0; k < NS; k++) {
            int n = 1 + (k * 7) % 46;
            for (int i = 0; i < n; i++) head[i] = i == 0 ? -1 : (int)((i * 2654435761u + (unsigned)k) % (unsigned)i);   /* a tree rooted at 0 */
            fx_make(&f[k], n, head, cfg.d_input, 1000 + (uint64_t)k, cfg.kind == ENC_PSAN ? cfg.levels : 3);
            for (int t = 0; t < f[k].s.n_levels; t++)   /* contiguous phrase ids also for n < t + 2 */
                for (int i = 0; i < n; i++) f[k].pid[t * n + i] = (int32_t)((long)i * (n < t + 2 ? n : t + 2) / n);
            s[k] = f[k].s;
            tokens += n;
            idx[k] = k;
        }
        T_CHECK(tokens > 4096);
        struct res one, all, rev;
        res_init(&one, e, s); res_init(&all, e, s); res_init(&rev, e, s);
        for (int th = 1; th <= 2; th++) {
            enc_set_threads(th);
            for (int k = 0; k < NS; k++) encode(e, s, &idx[k], 1, &one);
            encode(e, s, idx, NS, &all);
            int ridx[NS];
            for (int k = 0; k < NS; k++) ridx[k] = NS - 1 - k;
            encode(e, s, ridx, NS, &rev);
            T_CHECK(same(e, s, &one, &all, "alone vs one batch"));
            T_CHECK(same(e, s, &one, &rev, "alone vs reversed batch"));
            for (size_t i = 0; i < (size_t)NS * enc_dim(e); i++) if (!isfinite(all.sent[i])) { T_CHECK(!"non-finite"); break; }
        }
        enc_set_threads(1);
        res_free(&one); res_free(&all); res_free(&rev);
        for (int k = 0; k < NS; k++) fx_free(&f[k]);
        free(f); free(s);
        enc_close(e);
    }
    return T_DONE();
}
