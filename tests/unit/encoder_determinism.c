/* tests/unit/encoder_determinism.c — same seed -> bit-identical vectors for any thread count,
 * for a fresh handle, and whether a sentence is encoded alone or inside a batch; the structures
 * each kind needs are enforced with a message naming the sentence; attention maps are
 * well-formed (rows sum to 1, or 0 for an empty row). */
#include "common/gemm.h"
#include "common/sp.h"
#include "encoder/encoder.h"
#include "tests/unit/encoder_fixture.h"
#include "tests/unit/t_harness.h"

#include <stdlib.h>
#include <string.h>

static char err[4096];

static const char *const configs[] = {
    "{\"kind\":\"san\",\"d_model\":256,\"heads\":4,\"layers\":2,\"d_ff\":1024,\"rel_pos\":\"struct+seq\",\"position\":\"seq+struct\",\"seed\":3}",
    "{\"kind\":\"ms-san\",\"d_model\":192,\"heads\":6,\"d_ff\":512,\"seed\":3}",
    "{\"kind\":\"sg-net\",\"d_model\":128,\"heads\":4,\"layers\":2,\"d_ff\":512,\"seed\":3}",
    "{\"kind\":\"psan\",\"d_model\":128,\"seed\":3}",
    "{\"kind\":\"ssan\",\"d_model\":128,\"heads\":4,\"layers\":2,\"d_ff\":512,\"seed\":3}",
};

static enc_t *open_json(const char *json)
{
    struct enc_config c;
    enc_t *e = NULL;
    if (enc_config_parse(json, "t.json", &c, err, sizeof err) || enc_open(&c, ENC_DEVICE_CPU, NULL, 0, &e, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return NULL;
    }
    return e;
}

/* encode sentences [first, first+count) of the fixture; returns sentence vectors + attention maps */
static float *run(enc_t *e, int first, int count, size_t *len)
{
    struct fx_sent f[FX_B];
    fx_batch(f, enc_get_config(e)->d_input, 77);
    struct enc_sentence s[FX_B];
    float *attn[FX_B];
    size_t dim = (size_t)enc_dim(e), total = (size_t)count * dim;
    for (int b = 0; b < count; b++) { s[b] = f[first + b].s; total += (size_t)s[b].n * s[b].n; }
    float *v = sp_xcalloc(total, sizeof(float));
    size_t at = (size_t)count * dim;
    for (int b = 0; b < count; b++) { attn[b] = v + at; at += (size_t)s[b].n * s[b].n; }
    struct enc_batch in = { count, s, NULL, 0, 0 };
    struct enc_output out = { v, NULL, attn, 0 };
    int rc = enc_forward(e, &in, &out, err, sizeof err);
    if (rc) fprintf(stderr, "%s\n", err);
    T_EQ_INT(rc, SP_OK);
    for (int b = 0; b < FX_B; b++) fx_free(&f[b]);
    *len = total;
    return v;
}

static void check_maps(enc_t *e, const float *v, int count, int first)
{
    struct fx_sent f[FX_B];
    fx_batch(f, enc_get_config(e)->d_input, 77);
    size_t at = (size_t)count * enc_dim(e);
    int kind = enc_get_config(e)->kind;
    for (int b = 0; b < count; b++) {
        int n = f[first + b].s.n;
        for (int i = 0; i < n; i++) {
            double sum = 0;
            for (int j = 0; j < n; j++) sum += v[at + (size_t)i * n + j];
            /* PSAN: a word alone in its phrase has an empty row (Q18); SSAN: a head that selects
             * no key has an empty row (docs/spec/structures.md §5.5), so the head mean is a multiple of 1/H */
            int ok = fabs(sum - 1.0) < 1e-5 || (kind == ENC_PSAN && fabs(sum) < 1e-12)
                  || (kind == ENC_SSAN && sum <= 1.0 + 1e-5 && fabs(sum * 4 - floor(sum * 4 + 0.5)) < 1e-4);
            if (!ok) { fprintf(stderr, "kind %d sentence %d row %d sums to %g\n", kind, b, i, sum); }
            T_CHECK(ok);
        }
        at += (size_t)n * n;
    }
    for (int b = 0; b < FX_B; b++) fx_free(&f[b]);
}

/* the same bytes, or a message naming the property, the kind, the GEMM kernel and the core type */
static int same_bytes(const float *a, const float *b, size_t n, const char *what, enc_t *e)
{
    if (!memcmp(a, b, n * sizeof(float))) return 1;
    const char *ct = getenv("OPENBLAS_CORETYPE");
    fprintf(stderr, "determinism broken: %s: kind %s; gemm kernel %s, OPENBLAS_CORETYPE=%s\n", what,
            enc_kind_name(enc_get_config(e)->kind), sp_gemm_kernel(), ct && *ct ? ct : "(unset)");
    return 0;
}

static void determinism(void)
{
    for (size_t k = 0; k < sizeof configs / sizeof configs[0]; k++) {
        enc_t *e = open_json(configs[k]), *e2 = open_json(configs[k]);
        T_CHECK(e && e2);
        if (!e || !e2) continue;
        size_t n1, n2, n3, n4;
        enc_set_threads(1);
        float *a = run(e, 0, FX_B, &n1);
        enc_set_threads(4);
        float *b = run(e, 0, FX_B, &n2);
        float *c = run(e2, 0, FX_B, &n3);
        T_CHECK(n1 == n2 && same_bytes(a, b, n1, "1 vs 4 threads", e));
        T_CHECK(n1 == n3 && same_bytes(a, c, n1, "fresh handle with the same seed", e));
        /* the last sentence alone equals its slot in the batch */
        float *d = run(e, 2, 1, &n4);
        size_t dim = (size_t)enc_dim(e);
        T_CHECK(same_bytes(d, a + 2 * dim, dim, "last sentence alone vs in the batch", e));
        check_maps(e, a, FX_B, 0);
        for (size_t i = 0; i < n1; i++) if (!isfinite(a[i])) { T_CHECK(!"non-finite output"); break; }
        free(a); free(b); free(c); free(d);
        enc_close(e); enc_close(e2);
    }
    enc_set_threads(1);
}

static void needs(void)
{
    struct fx_sent f[FX_B];
    float out[512];
    /* SG-Net needs anc; PSAN needs pid with >= T levels and contiguous ids; MS-SAN with DEP needs dist */
    enc_t *g = open_json(configs[2]), *p = open_json(configs[3]), *m = open_json(configs[1]);
    T_CHECK(g && p && m);
    if (!g || !p || !m) return;
    fx_batch(f, 128, 1);
    struct enc_sentence s[2] = { f[0].s, f[2].s };
    s[1].anc = NULL;
    struct enc_batch in = { 2, s, NULL, 0, 0 };
    struct enc_output o = { out, NULL, NULL, 0 };
    T_EQ_INT(enc_forward(g, &in, &o, err, sizeof err), SP_EUSAGE);
    T_EQ_STR(err, "encoder: sentence 1: kind sg-net needs anc (SDOI mask)");
    s[1] = f[2].s;
    s[1].pid = NULL;
    T_EQ_INT(enc_forward(p, &in, &o, err, sizeof err), SP_EUSAGE);
    T_EQ_STR(err, "encoder: sentence 1: kind psan needs pid (phrase ids; no constituency tree?)");
    s[1] = f[2].s;
    s[1].n_levels = 2;
    T_EQ_INT(enc_forward(p, &in, &o, err, sizeof err), SP_EUSAGE);
    T_EQ_STR(err, "encoder: sentence 1: 2 phrase levels, need 3");
    s[1] = f[2].s;
    int32_t keep = f[2].pid[20 + 5];
    f[2].pid[20 + 5] = 9;                                  /* level 2, word 5: not contiguous */
    T_EQ_INT(enc_forward(p, &in, &o, err, sizeof err), SP_EUSAGE);
    T_CHECK(strstr(err, "level 2: phrase ids must be contiguous") != NULL);
    f[2].pid[20 + 5] = keep;
    s[0].dist = NULL;
    T_EQ_INT(enc_forward(m, &in, &o, err, sizeof err), SP_EUSAGE);
    T_EQ_STR(err, "encoder: sentence 0: kind ms-san needs dist (tree distance)");
    s[0] = f[0].s;
    /* the pair arrays travel as int16: a value outside is refused, not wrapped */
    const int n0 = f[0].s.n;
    int32_t keep_d = f[0].dist[1 * n0 + 2];
    f[0].dist[1 * n0 + 2] = 40000;
    T_EQ_INT(enc_forward(m, &in, &o, err, sizeof err), SP_EUSAGE);
    T_CHECK(strstr(err, "encoder: sentence 0: dist[1][2] = 40000 outside -32768..32767") == err);
    f[0].dist[1 * n0 + 2] = -32769;
    T_EQ_INT(enc_forward(m, &in, &o, err, sizeof err), SP_EUSAGE);
    T_CHECK(strstr(err, "dist[1][2] = -32769 outside") != NULL);
    f[0].dist[1 * n0 + 2] = keep_d;
    s[0].n = 0;
    T_EQ_INT(enc_forward(m, &in, &o, err, sizeof err), SP_EUSAGE);
    T_EQ_STR(err, "encoder: sentence 0: no tokens");
    /* attn_layer out of range */
    s[0] = f[0].s;
    float *maps[2] = { out, out + 64 };
    struct enc_output o2 = { out + 256, NULL, maps, 7 };
    T_EQ_INT(enc_forward(p, &in, &o2, err, sizeof err), SP_EUSAGE);
    T_EQ_STR(err, "encoder: attn_layer 7: expected -1 or 0..2");
    for (int b = 0; b < FX_B; b++) fx_free(&f[b]);
    enc_close(g); enc_close(p); enc_close(m);
}

int main(void)
{
    determinism();
    needs();
    return T_DONE();
}
