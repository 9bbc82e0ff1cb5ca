/* tests/unit/encoder_batch.c — the determinism contract (docs/reproducibility.md): enc_forward packs
 * the sentences of a batch into one row block (groups of up to 4096 tokens), yet a sentence's
 * sentence vector, token vectors and attention maps must be the same bytes
 *   - encoded alone or in one batch with all the others (crossing a group boundary),
 *   - at any position (reversed and shuffled batches),
 *   - in any split of the corpus into batches (what --batch-tokens and --max-workspace halving do),
 *   - on 1, 2 or 3 threads,
 *   - with every GEMM kernel this CPU runs (AVX-512, AVX2, plain C),
 * whatever OPENBLAS_CORETYPE says (the encoder does not use OpenBLAS; .ci/run sweeps it).
 * A failure names the property, the kind, the sentence, the GEMM kernel and the core type. */
#include "common/gemm.h"
#include "common/sp.h"
#include "encoder/encoder.h"
#include "tests/unit/encoder_fixture.h"
#include "tests/unit/t_harness.h"

#include <stdint.h>
#include <stdlib.h>
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
    struct enc_batch in = { count, b, NULL, 0, 0 };
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
        const size_t dim = (size_t)enc_dim(e), tn = (size_t)s[k].n * enc_tok_dim(e), an = (size_t)s[k].n * s[k].n;
        const int ds = memcmp(a->sent + k * dim, b->sent + k * dim, sizeof(float) * dim) != 0;
        const int dt = memcmp(a->tok[k], b->tok[k], sizeof(float) * tn) != 0;
        const int da = memcmp(a->attn[k], b->attn[k], sizeof(float) * an) != 0;
        if (ds || dt || da) {
            const char *ct = getenv("OPENBLAS_CORETYPE");
            if (!bad) fprintf(stderr, "determinism broken: %s: kind %s, sentence %d (n %d) differs in its%s%s%s; "
                              "gemm kernel %s, %d threads, OPENBLAS_CORETYPE=%s\n", what, enc_kind_name(enc_get_config(e)->kind),
                              k, s[k].n, ds ? " sentence vector" : "", dt ? " token vectors" : "", da ? " attention map" : "",
                              sp_gemm_kernel(), sp_gemm_threads(), ct && *ct ? ct : "(unset)");
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
        struct res one, all, other;
        res_init(&one, e, s); res_init(&all, e, s); res_init(&other, e, s);
        const char *kernel0 = sp_gemm_kernel();
        enc_set_threads(1);
        for (int k = 0; k < NS; k++) encode(e, s, &idx[k], 1, &one);   /* the reference: each alone */
        for (int th = 1; th <= 3; th++) {
            char what[96];
            enc_set_threads(th);
            encode(e, s, idx, NS, &all);
            snprintf(what, sizeof what, "alone vs one batch of all (%d threads)", th);
            T_CHECK(same(e, s, &one, &all, what));
            int ridx[NS];
            for (int k = 0; k < NS; k++) ridx[k] = NS - 1 - k;
            encode(e, s, ridx, NS, &other);
            snprintf(what, sizeof what, "alone vs reversed batch (%d threads)", th);
            T_CHECK(same(e, s, &one, &other, what));
            /* a shuffled corpus cut into batches of 1..300 sentences, as token budgets and
             * workspace halving cut it */
            uint64_t r = 0x9e3779b97f4a7c15ull * (uint64_t)(th + 7 * c);
            for (int k = NS - 1; k > 0; k--) {
                r = r * 6364136223846793005ull + 1442695040888963407ull;
                int j = (int)((r >> 33) % (uint64_t)(k + 1)), t = ridx[k]; ridx[k] = ridx[j]; ridx[j] = t;
            }
            for (int k0 = 0; k0 < NS;) {
                r = r * 6364136223846793005ull + 1442695040888963407ull;
                int cnt = 1 + (int)((r >> 33) % 300);
                if (cnt > NS - k0) cnt = NS - k0;
                encode(e, s, ridx + k0, cnt, &other);
                k0 += cnt;
            }
            snprintf(what, sizeof what, "alone vs shuffled batches of random size (%d threads)", th);
            T_CHECK(same(e, s, &one, &other, what));
            for (size_t i = 0; i < (size_t)NS * enc_dim(e); i++) if (!isfinite(all.sent[i])) { T_CHECK(!"non-finite"); break; }
        }
        /* every other GEMM kernel the CPU runs gives the same bytes */
        static const char *const kernels[] = { "avx512", "avx2", "c" };
        enc_set_threads(2);
        for (int kn = 0; kn < 3; kn++) {
            if (!strcmp(kernels[kn], kernel0) || sp_gemm_use_kernel(kernels[kn]) != 0) continue;
            char what[96];
            encode(e, s, idx, NS, &other);
            snprintf(what, sizeof what, "gemm kernel %s vs %s", kernels[kn], kernel0);
            T_CHECK(same(e, s, &one, &other, what));
        }
        sp_gemm_use_kernel(kernel0);
        enc_set_threads(1);
        res_free(&one); res_free(&all); res_free(&other);
        for (int k = 0; k < NS; k++) fx_free(&f[k]);
        free(f); free(s);
        enc_close(e);
    }
    return T_DONE();
}
