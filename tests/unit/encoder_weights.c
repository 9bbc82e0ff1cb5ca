/* tests/unit/encoder_weights.c — safetensors round trip and error cases (wrong shape, missing and
 * extra tensors, unsupported dtype, truncated data, garbage), seeded init, and the word-embedding
 * loader (GloVe / word2vec text, case fallback, OOV buckets, seeded random vectors, bad lines);
 * a stop request ends both loads (SP_ESTOPPED); enc_weights_expected and enc_weights_check agree
 * with what enc_save_weights writes for every SAN kind. */
#include "common/sp.h"
#include "encoder/encoder.h"
#include "tests/unit/encoder_fixture.h"
#include "tests/unit/t_harness.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "common/stop.h"

static char err[4096];
static char dir[] = "/tmp/sp-encw-XXXXXX";

static const char *tmp(const char *name)
{
    static char buf[4][512];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}

static enc_t *open_json(const char *json, const char *weights)
{
    struct enc_config c;
    if (enc_config_parse(json, "t.json", &c, err, sizeof err)) { fprintf(stderr, "%s\n", err); return NULL; }
    enc_t *e = NULL;
    if (enc_open(&c, ENC_DEVICE_CPU, weights, 0, &e, err, sizeof err)) return NULL;
    return e;
}

/* sentence vectors + token vectors of the fixture batch */
static float *encode(enc_t *e, size_t *len)
{
    struct fx_sent f[FX_B];
    fx_batch(f, enc_get_config(e)->d_input, 42);
    struct enc_sentence s[FX_B];
    size_t dim = (size_t)enc_dim(e), td = (size_t)enc_tok_dim(e), total = FX_B * dim;
    for (int b = 0; b < FX_B; b++) { s[b] = f[b].s; total += (size_t)f[b].s.n * td; }
    float *v = sp_xcalloc(total, sizeof(float)), *tok[FX_B];
    size_t at = FX_B * dim;
    for (int b = 0; b < FX_B; b++) { tok[b] = v + at; at += (size_t)f[b].s.n * td; }
    struct enc_batch in = { FX_B, s, NULL, 0, 0 };
    struct enc_output out = { v, tok, NULL, 0 };
    int rc = enc_forward(e, &in, &out, err, sizeof err);
    if (rc) fprintf(stderr, "%s\n", err);
    T_EQ_INT(rc, SP_OK);
    for (int b = 0; b < FX_B; b++) fx_free(&f[b]);
    *len = total;
    return v;
}

static long file_bytes(const char *p, char **data)
{
    FILE *f = fopen(p, "rb");
    if (!f) return -1;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    *data = sp_xmalloc((size_t)n + 1);
    if (fread(*data, 1, (size_t)n, f) != (size_t)n) n = -1;
    fclose(f);
    return n;
}

static void put_bytes(const char *p, const char *data, long n)
{
    FILE *f = fopen(p, "wb");
    fwrite(data, 1, (size_t)n, f);
    fclose(f);
}

#define SAN "{\"kind\":\"san\",\"d_model\":16,\"heads\":4,\"layers\":2,\"d_ff\":24,\"rel_pos\":\"struct\",\"position\":\"seq+struct\",\"seed\":%d}"

static void round_trip(void)
{
    char j3[512], j4[512];
    snprintf(j3, sizeof j3, SAN, 3);
    snprintf(j4, sizeof j4, SAN, 4);
    enc_t *a = open_json(j3, NULL), *b = open_json(j4, NULL);
    T_CHECK(a && b);
    if (!a || !b) return;
    size_t na, nb;
    float *va = encode(a, &na), *vb = encode(b, &nb);
    T_CHECK(na == nb && memcmp(va, vb, na * sizeof(float)) != 0);      /* seeds differ -> vectors differ */
    T_EQ_INT(enc_save_weights(a, tmp("a.safetensors"), err, sizeof err), SP_OK);
    T_EQ_INT(enc_load_weights(b, tmp("a.safetensors"), err, sizeof err), SP_OK);
    float *vb2 = encode(b, &nb);
    T_CHECK(memcmp(va, vb2, na * sizeof(float)) == 0);                 /* bit-identical after load */
    T_EQ_INT(enc_save_weights(b, tmp("b.safetensors"), err, sizeof err), SP_OK);
    char *da, *db;
    long la = file_bytes(tmp("a.safetensors"), &da), lb = file_bytes(tmp("b.safetensors"), &db);
    T_CHECK(la > 8 && la == lb && memcmp(da, db, (size_t)la) == 0);    /* save(load(x)) == x */
    /* header: 8-byte aligned data section, F32, our names */
    uint64_t hl = 0;
    memcpy(&hl, da, 8);
    T_EQ_INT((8 + hl) % 8, 0);
    T_CHECK(strstr(da + 8, "\"layers.1.attn.rel_k_struct\":{\"dtype\":\"F32\",\"shape\":[33,4]") != NULL);
    T_CHECK(strstr(da + 8, "\"pos.fuse.weight\":{\"dtype\":\"F32\",\"shape\":[32,16]") != NULL);
    /* open with a weights path */
    enc_t *c = open_json(j4, tmp("a.safetensors"));
    T_CHECK(c != NULL);
    if (c) { size_t nc; float *vc = encode(c, &nc); T_CHECK(memcmp(va, vc, na * sizeof(float)) == 0); free(vc); enc_close(c); }
    /* Glorot bound and fixed inits, read back from the file through a second handle's view */
    T_EQ_INT((long)enc_n_params(a) * 4 + 8 + (long)hl, la);

    /* ---- error cases: each names the tensor; a failed load leaves the weights unchanged ---- */
    char jd[512];
    snprintf(jd, sizeof jd, "{\"kind\":\"san\",\"d_model\":16,\"heads\":4,\"layers\":2,\"d_ff\":20,\"rel_pos\":\"struct\",\"position\":\"seq+struct\"}");
    enc_t *w = open_json(jd, NULL);
    T_EQ_INT(enc_save_weights(w, tmp("dff20.safetensors"), err, sizeof err), SP_OK);
    enc_close(w);
    T_EQ_INT(enc_load_weights(b, tmp("dff20.safetensors"), err, sizeof err), SP_EPARSE);
    T_CHECK(strstr(err, "layers.0.ffn.w1.weight: shape [16,20], expected [16,24]") != NULL);
    snprintf(jd, sizeof jd, "{\"kind\":\"san\",\"d_model\":16,\"heads\":4,\"layers\":1,\"d_ff\":24,\"rel_pos\":\"struct\",\"position\":\"seq+struct\"}");
    w = open_json(jd, NULL);
    T_EQ_INT(enc_save_weights(w, tmp("l1.safetensors"), err, sizeof err), SP_OK);
    T_EQ_INT(enc_load_weights(b, tmp("l1.safetensors"), err, sizeof err), SP_EPARSE);
    T_CHECK(strstr(err, "layers.1.attn.q.weight: missing tensor") != NULL);
    T_EQ_INT(enc_load_weights(w, tmp("a.safetensors"), err, sizeof err), SP_EPARSE);   /* 2-layer file into 1 layer */
    T_CHECK(strstr(err, "layers.1.") != NULL && strstr(err, "unexpected tensor") != NULL);
    enc_close(w);
    /* dtype: same-length edit of the first "F32" in the header */
    char *p = strstr(da + 8, "\"F32\"");
    T_CHECK(p != NULL);
    if (p) {
        memcpy(p, "\"F16\"", 5);
        put_bytes(tmp("f16.safetensors"), da, la);
        memcpy(p, "\"F32\"", 5);
        T_EQ_INT(enc_load_weights(b, tmp("f16.safetensors"), err, sizeof err), SP_EPARSE);
        /* the header now says 2-byte elements for 4-byte data: the safetensors reader refuses the
         * size before the dtype is looked at */
        T_CHECK(strstr(err, "shape and dtype F16 need") != NULL);
        T_CHECK(strstr(err, "__metadata__") == NULL);
    }
    put_bytes(tmp("trunc.safetensors"), da, la - 4);                    /* last tensor cut short */
    T_EQ_INT(enc_load_weights(b, tmp("trunc.safetensors"), err, sizeof err), SP_EPARSE);
    T_CHECK(strstr(err, "data ends at byte") != NULL && strstr(err, "(truncated file?)") != NULL);
    put_bytes(tmp("garbage.safetensors"), "\xff\xff\xff\xff\xff\xff\xff\x7f hello", 14);
    T_EQ_INT(enc_load_weights(b, tmp("garbage.safetensors"), err, sizeof err), SP_EPARSE);
    T_CHECK(strstr(err, "does not fit the 14-byte file") != NULL);
    T_EQ_INT(enc_load_weights(b, tmp("none.safetensors"), err, sizeof err), SP_EIO);
    float *vb3 = encode(b, &nb);
    T_CHECK(memcmp(va, vb3, na * sizeof(float)) == 0);                 /* unchanged after failures */
    free(va); free(vb); free(vb2); free(vb3); free(da); free(db);
    enc_close(a); enc_close(b);
}

/* seeded init: Glorot bound, biases 0, LN gamma 1 */
static void init_values(void)
{
    enc_t *e = open_json("{\"kind\":\"psan\",\"d_model\":10,\"seed\":9}", NULL);
    T_CHECK(e != NULL);
    if (!e) return;
    T_EQ_INT(enc_save_weights(e, tmp("p.safetensors"), err, sizeof err), SP_OK);
    char *d;
    long n = file_bytes(tmp("p.safetensors"), &d);
    uint64_t hl;
    memcpy(&hl, d, 8);
    /* tensor order = registry order: psa.1.a1.weight [10,10] comes first */
    const float *w = (const float *)(d + 8 + hl);
    double bound = sqrt(6.0 / 20.0), mx = 0;
    for (int k = 0; k < 100; k++) if (fabs(w[k]) > mx) mx = fabs(w[k]);
    T_CHECK(mx <= bound && mx > 0.8 * bound);
    T_CHECK(strstr(d + 8, "\"psa.1.a1.weight\":{\"dtype\":\"F32\",\"shape\":[10,10],\"data_offsets\":[0,400]}") != NULL);
    T_CHECK(n > 0);
    free(d);
    enc_close(e);
}

static void embeddings(void)
{
    FILE *f = fopen(tmp("glove.txt"), "w");
    fputs("the 0.1 0.2 0.3\nThe 1 2 3\ncat 0.5 -0.5 0.25\nNew York 7 8 9\n", f);
    fclose(f);
    enc_embed_t *m = NULL, *m2 = NULL;
    T_EQ_INT(enc_embed_open(tmp("glove.txt"), 3, 5, &m, err, sizeof err), SP_OK);
    if (!m) return;
    T_EQ_INT(enc_embed_vocab_size(m), 4);
    T_EQ_INT(enc_embed_id(m, "the"), 0);
    T_EQ_INT(enc_embed_id(m, "The"), 1);                   /* exact match first */
    T_EQ_INT(enc_embed_id(m, "CAT"), 2);                   /* then lower case */
    T_EQ_INT(enc_embed_id(m, "New York"), 3);              /* words with spaces survive */
    int32_t oov = enc_embed_id(m, "dog");
    T_CHECK(oov >= 4 && oov < 4 + ENC_OOV_BUCKETS);
    T_EQ_INT(enc_embed_id(m, "dog"), oov);
    float v[3], v2[3];
    T_EQ_INT(enc_embed_vector(m, "cat", v), 1);
    T_NEAR(v[1], -0.5, 0);
    T_EQ_INT(enc_embed_vector(m, "dog", v), 0);
    int rows;
    const float *tab = enc_embed_table(m, &rows);
    T_EQ_INT(rows, 4 + ENC_OOV_BUCKETS);
    T_CHECK(memcmp(v, tab + (size_t)oov * 3, sizeof v) == 0);
    T_CHECK(fabs(v[0]) <= sqrt(3.0 / 3) && (v[0] != 0 || v[1] != 0));
    /* word2vec header + same seed -> same OOV rows; another seed -> other rows */
    f = fopen(tmp("w2v.txt"), "w");
    fputs("2 3\nthe 0.1 0.2 0.3\ncat 0.5 -0.5 0.25\n", f);
    fclose(f);
    T_EQ_INT(enc_embed_open(tmp("w2v.txt"), 0, 5, &m2, err, sizeof err), SP_OK);
    if (m2) {
        T_EQ_INT(enc_embed_dim(m2), 3);
        T_EQ_INT(enc_embed_vocab_size(m2), 2);
        enc_embed_vector(m2, "dog", v2);
        T_CHECK(memcmp(v, v2, sizeof v) == 0);             /* bucket rows depend on seed only */
        enc_embed_close(m2);
    }
    T_EQ_INT(enc_embed_open(tmp("w2v.txt"), 0, 6, &m2, err, sizeof err), SP_OK);
    if (m2) { enc_embed_vector(m2, "dog", v2); T_CHECK(memcmp(v, v2, sizeof v) != 0); enc_embed_close(m2); }
    /* ids + table give the same vectors as embedding rows */
    enc_t *e = open_json("{\"kind\":\"ms-san\",\"d_model\":4,\"d_input\":3,\"heads\":2,\"distances\":[\"word\"]}", NULL);
    T_CHECK(e != NULL);
    if (e) {
        const char *words[3] = { "the", "cat", "dog" };
        int32_t ids[3];
        float emb[9], o1[8], o2[8];
        for (int i = 0; i < 3; i++) { ids[i] = enc_embed_id(m, words[i]); enc_embed_vector(m, words[i], emb + 3 * i); }
        struct enc_sentence s1 = { .n = 3, .emb = emb }, s2 = { .n = 3, .ids = ids };
        struct enc_batch b1 = { 1, &s1, NULL, 0, 0 }, b2 = { 1, &s2, tab, rows, 1 };
        struct enc_output out1 = { o1, NULL, NULL, 0 }, out2 = { o2, NULL, NULL, 0 };
        T_EQ_INT(enc_forward(e, &b1, &out1, err, sizeof err), SP_OK);
        T_EQ_INT(enc_forward(e, &b2, &out2, err, sizeof err), SP_OK);
        T_CHECK(memcmp(o1, o2, sizeof o1) == 0);
        ids[1] = rows;                                     /* out of the table */
        T_EQ_INT(enc_forward(e, &b2, &out2, err, sizeof err), SP_EUSAGE);
        T_CHECK(strstr(err, "sentence 0: token 1: id") != NULL);
        enc_close(e);
    }
    enc_embed_close(m);
    /* errors: file:line */
    f = fopen(tmp("bad.txt"), "w");
    fputs("the 0.1 0.2 0.3\ncat 0.5 x 0.25\n", f);
    fclose(f);
    T_EQ_INT(enc_embed_open(tmp("bad.txt"), 3, 1, &m, err, sizeof err), SP_EPARSE);
    T_CHECK(strstr(err, "bad.txt:2: field 3: expected a number, got \"x\"") != NULL);
    T_EQ_INT(enc_embed_open(tmp("glove.txt"), 5, 1, &m, err, sizeof err), SP_EPARSE);
    T_CHECK(strstr(err, "glove.txt:1: expected a word and 5 numbers, got 4 fields") != NULL);
    T_EQ_INT(enc_embed_open(tmp("w2v.txt"), 4, 1, &m, err, sizeof err), SP_EPARSE);
    T_CHECK(strstr(err, "w2v.txt:1: header says dimension 3, expected 4") != NULL);
    T_EQ_INT(enc_embed_open(tmp("missing.txt"), 3, 1, &m, err, sizeof err), SP_EIO);
    /* no file: seeded random vectors, stable per word */
    T_EQ_INT(enc_embed_open(NULL, 4, 7, &m, err, sizeof err), SP_OK);
    float r1[4], r2[4], r3[4];
    enc_embed_vector(m, "tree", r1);
    enc_embed_vector(m, "tree", r2);
    enc_embed_vector(m, "trees", r3);
    T_CHECK(memcmp(r1, r2, sizeof r1) == 0 && memcmp(r1, r3, sizeof r1) != 0);
    T_EQ_INT(enc_embed_id(m, "tree"), -1);
    enc_embed_close(m);
}

/* A stop request (SIGTERM's flag, common/stop.h) ends the long loads: GloVe text is checked every
 * 4096 lines, weights between chunks; both return SP_ESTOPPED and leave nothing open. */
static void stop_in_loads(void)
{
    FILE *f = fopen(tmp("long.txt"), "w");
    for (int i = 0; i < 10000; i++) fprintf(f, "w%d 0.5 -1 2\n", i);
    fclose(f);
    enc_embed_t *m = NULL;
    T_EQ_INT(enc_embed_open(tmp("long.txt"), 3, 1, &m, err, sizeof err), SP_OK);   /* the file is fine */
    enc_embed_close(m);
    atomic_store(&sp_stop_signal, SIGTERM);
    m = NULL;
    T_EQ_INT(enc_embed_open(tmp("long.txt"), 3, 1, &m, err, sizeof err), SP_ESTOPPED);
    T_CHECK(m == NULL && strstr(err, "long.txt:4096: stopped while reading") != NULL);
    char j[512];
    snprintf(j, sizeof j, SAN, 5);          /* a.safetensors holds this config's tensors (round_trip) */
    enc_t *a = open_json(j, NULL);
    T_CHECK(a != NULL);
    if (!a) { atomic_store(&sp_stop_signal, 0); return; }
    T_EQ_INT(enc_load_weights(a, tmp("a.safetensors"), err, sizeof err), SP_ESTOPPED);
    T_CHECK(strstr(err, "stopped while reading") != NULL);
    atomic_store(&sp_stop_signal, 0);
    T_EQ_INT(enc_load_weights(a, tmp("a.safetensors"), err, sizeof err), SP_OK);
    enc_close(a);
}

/* enc_weights_expected is what enc_save_weights writes (names, shapes, order) for every SAN
 * kind, and enc_weights_check passes that file; one tensor less and one more give two problems */
static void expected_is_saved(void)
{
    static const char *const cfgs[] = {
        "{\"kind\":\"san\",\"d_model\":8,\"heads\":2,\"layers\":2,\"d_ff\":12,\"rel_pos\":\"struct+seq\",\"rel_clip\":2,\"position\":\"seq+struct\",\"norm\":\"pre\"}",
        "{\"kind\":\"ssan\",\"d_model\":8,\"heads\":2,\"layers\":2,\"d_ff\":12,\"selective_layers\":[1]}",
        "{\"kind\":\"sg-net\",\"d_model\":8,\"heads\":2,\"layers\":1,\"d_ff\":12,\"sgnet_aggregation\":\"code\"}",
        "{\"kind\":\"ms-san\",\"d_model\":12,\"heads\":6,\"layers\":1,\"d_ff\":10,\"pool_d_h\":5}",
        "{\"kind\":\"psan\",\"d_model\":8,\"d_input\":6,\"levels\":2}",
    };
    for (size_t k = 0; k < sizeof cfgs / sizeof cfgs[0]; k++) {
        struct enc_config c;
        T_EQ_INT(enc_config_parse(cfgs[k], "t.json", &c, err, sizeof err), SP_OK);
        enc_t *e = open_json(cfgs[k], NULL);
        T_CHECK(e != NULL);
        if (!e) continue;
        T_EQ_INT(enc_save_weights(e, tmp("x.safetensors"), err, sizeof err), SP_OK);
        struct enc_tensor_spec *t = NULL;
        int n = 0;
        T_EQ_INT(enc_weights_expected(&c, &t, &n, err, sizeof err), SP_OK);
        char *data;
        long len = file_bytes(tmp("x.safetensors"), &data);
        T_CHECK(len > 8 && n > 0);
        size_t total = 0;
        const char *at = data + 8;
        for (int i = 0; i < n; i++) {           /* in the header, in this order, with this shape */
            char want[160];
            if (t[i].ndim == 2) snprintf(want, sizeof want, "\"%s\":{\"dtype\":\"F32\",\"shape\":[%d,%d]", t[i].name, t[i].shape[0], t[i].shape[1]);
            else snprintf(want, sizeof want, "\"%s\":{\"dtype\":\"F32\",\"shape\":[%d]", t[i].name, t[i].shape[0]);
            const char *p = strstr(at, want);
            T_CHECK(p != NULL);
            if (p) at = p;
            total += (size_t)t[i].shape[0] * (size_t)(t[i].ndim == 2 ? t[i].shape[1] : 1);
        }
        T_EQ_INT((long)total, (long)enc_n_params(e));
        struct enc_weights_report r;
        T_EQ_INT(enc_weights_check(&c, tmp("x.safetensors"), &r, err, sizeof err), SP_OK);
        T_EQ_INT(r.n, 0);
        T_EQ_INT(r.n_expected, n);
        enc_weights_report_free(&r);
        free(t);
        free(data);
        enc_close(e);
    }
    /* a 1-layer file for a 2-layer config: every tensor of layer 1 missing, none unexpected */
    struct enc_config c2;
    T_EQ_INT(enc_config_parse("{\"kind\":\"san\",\"d_model\":8,\"heads\":2,\"layers\":2,\"d_ff\":12}", "t.json", &c2, err, sizeof err), SP_OK);
    enc_t *one = open_json("{\"kind\":\"san\",\"d_model\":8,\"heads\":2,\"layers\":1,\"d_ff\":12}", NULL);
    T_CHECK(one != NULL);
    if (one) {
        T_EQ_INT(enc_save_weights(one, tmp("x.safetensors"), err, sizeof err), SP_OK);
        struct enc_weights_report r;
        T_EQ_INT(enc_weights_check(&c2, tmp("x.safetensors"), &r, err, sizeof err), SP_OK);
        T_EQ_INT(r.n, 16);                      /* q,k,v,o (w+b), ln1, ffn.w1, ffn.w2, ln2 (w+b): 16 */
        int missing = 0;
        for (int i = 0; i < r.n; i++) missing += r.p[i].kind == ENC_WP_MISSING && !strncmp(r.p[i].name, "layers.1.", 9);
        T_EQ_INT(missing, 16);
        enc_weights_report_free(&r);
        enc_close(one);
    }
}

int main(void)
{
    if (!mkdtemp(dir)) { perror("mkdtemp"); return 1; }
    round_trip(); init_values(); embeddings(); stop_in_loads(); expected_is_saved();
    const char *names[] = { "a.safetensors", "b.safetensors", "dff20.safetensors", "l1.safetensors", "f16.safetensors",
                            "trunc.safetensors", "garbage.safetensors", "p.safetensors", "x.safetensors", "glove.txt", "w2v.txt", "bad.txt", "long.txt" };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) unlink(tmp(names[i]));
    rmdir(dir);
    return T_DONE();
}
