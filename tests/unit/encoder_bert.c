/* tests/unit/encoder_bert.c — kind "bert" (docs/spec/models.md M3, M2):
 *   TV-M3 (M3.6): the toy model with formula weights, token types 0 (every printed matrix of the
 *     forward that the API exposes: X^0, X^1, P_0, P_1) and token types 1 (X^0, X^1), tol 1e-5;
 *     the same checkpoint written with a "bert." prefix and LayerNorm.gamma/.beta names; ignored
 *     pooler.* and int64 embeddings.position_ids; the model opened through a synprobe config
 *     {"kind": "bert", "model": DIR};
 *   batch invariance: a sentence alone and inside a batch gives the same bytes;
 *   TV-M2a (M2.5): word pooling mean/first/last and sentence pooling mean/cls/max;
 *   TV-M2b (M2.5): word-level attention from piece attention, and the head mean (M2.4);
 *   BF16 checkpoints (bit-equal to F32 ones of the truncated values) and exact F16 reads;
 *   errors: truncated safetensors, F64 tensor, missing / unexpected / misshapen tensor, bad
 *     config.json (missing key, heads not dividing, hidden_act, bad JSON), bad ids;
 *   the tiny random BERT of tests/reference/make_tiny_bert.py (2 layers, d 8, 2 heads) against
 *     the independent NumPy forward tests/reference/bert_ref.py (float64): hidden states and
 *     attention within 1e-5 absolute (skipped visibly without /usr/bin/python3 + numpy). */
#include "common/npy.h"
#include "common/sp.h"
#include "encoder/encoder.h"
#include "encoder/encoder_int.h"   /* enc_sft_*: the safetensors reader */
#include "tests/unit/t_harness.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char err[4096];
static char dir[] = "/tmp/sp-bert-XXXXXX";

static const char *path(const char *a, const char *b)
{
    static char buf[4][1024];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s%s%s", dir, a, b ? "/" : "", b ? b : "");
    return buf[k];
}

static void write_text(const char *p, const char *s)
{
    FILE *f = fopen(p, "w");
    if (!f) { perror(p); exit(2); }
    fputs(s, f);
    fclose(f);
}

/* ---- a safetensors writer of our own (the format is 3 lines of spec) ---- */

struct tensor {
    char name[96];
    const char *dtype;         /* "F32", "F16", "I64" */
    int ndim, shape[2];
    size_t bytes;
    void *data;
};

static void write_sft(const char *p, const struct tensor *t, int n, long cut)
{
    char *hdr = sp_xmalloc(65536);
    size_t h = 0, off = 0;
    h += (size_t)sprintf(hdr + h, "{\"__metadata__\":{\"format\":\"pt\"}");
    for (int i = 0; i < n; i++) {
        h += (size_t)sprintf(hdr + h, ",\"%s\":{\"dtype\":\"%s\",\"shape\":[", t[i].name, t[i].dtype);
        for (int k = 0; k < t[i].ndim; k++) h += (size_t)sprintf(hdr + h, "%s%d", k ? "," : "", t[i].shape[k]);
        h += (size_t)sprintf(hdr + h, "],\"data_offsets\":[%zu,%zu]}", off, off + t[i].bytes);
        off += t[i].bytes;
    }
    hdr[h++] = '}';
    while (h % 8) hdr[h++] = ' ';
    FILE *f = fopen(p, "wb");
    uint64_t hl = h;
    fwrite(&hl, 8, 1, f);
    fwrite(hdr, 1, h, f);
    for (int i = 0; i < n; i++) fwrite(t[i].data, 1, t[i].bytes, f);
    long size = ftell(f);
    fclose(f);
    if (cut > 0 && truncate(p, size - cut) != 0) { perror("truncate"); exit(2); }
    free(hdr);
}

/* ---- the TV-M3 toy model (M3.6) ---- */

enum { V = 6, D = 4, H = 2, F = 8, P = 8, TV = 2 };
static const char *toy_config =
    "{\"architectures\": [\"BertModel\"], \"model_type\": \"bert\", \"vocab_size\": 6, \"hidden_size\": 4,\n"
    " \"num_hidden_layers\": 1, \"num_attention_heads\": 2, \"intermediate_size\": 8,\n"
    " \"max_position_embeddings\": 8, \"type_vocab_size\": 2, \"layer_norm_eps\": 1e-12,\n"
    " \"hidden_act\": \"gelu\", \"hidden_dropout_prob\": 0.1, \"position_embedding_type\": \"absolute\"}\n";

struct toy_opts {
    int prefix_bert;           /* "bert." before every name */
    int gamma_beta;            /* LayerNorm.gamma / .beta */
    int extras;                /* + pooler.dense.*, embeddings.position_ids (I64) */
    const char *drop;          /* leave this tensor out */
    const char *unexpected;    /* add this [4] tensor */
    const char *misshape;      /* write this tensor with a wrong shape */
    const char *f64;           /* write this tensor as F64 (unsupported) */
    int bf16;                  /* 1: every tensor as BF16 (the top half of each float); 2: as F32
                                  with the same truncated values */
    long truncate;             /* cut the file short by this many bytes */
};

static int make_toy(const char *sub, const struct toy_opts *o)
{
    static const struct { const char *name; int rows, cols; } spec[21] = {
        { "embeddings.word_embeddings.weight", V, D }, { "embeddings.position_embeddings.weight", P, D },
        { "embeddings.token_type_embeddings.weight", TV, D }, { "embeddings.LayerNorm.weight", D, 0 },
        { "embeddings.LayerNorm.bias", D, 0 },
        { "encoder.layer.0.attention.self.query.weight", D, D }, { "encoder.layer.0.attention.self.query.bias", D, 0 },
        { "encoder.layer.0.attention.self.key.weight", D, D }, { "encoder.layer.0.attention.self.key.bias", D, 0 },
        { "encoder.layer.0.attention.self.value.weight", D, D }, { "encoder.layer.0.attention.self.value.bias", D, 0 },
        { "encoder.layer.0.attention.output.dense.weight", D, D }, { "encoder.layer.0.attention.output.dense.bias", D, 0 },
        { "encoder.layer.0.attention.output.LayerNorm.weight", D, 0 }, { "encoder.layer.0.attention.output.LayerNorm.bias", D, 0 },
        { "encoder.layer.0.intermediate.dense.weight", F, D }, { "encoder.layer.0.intermediate.dense.bias", F, 0 },
        { "encoder.layer.0.output.dense.weight", D, F }, { "encoder.layer.0.output.dense.bias", D, 0 },
        { "encoder.layer.0.output.LayerNorm.weight", D, 0 }, { "encoder.layer.0.output.LayerNorm.bias", D, 0 },
    };
    struct tensor t[32];
    int n = 0;
    if (mkdir(path(sub, NULL), 0755) && access(path(sub, NULL), F_OK)) return -1;
    write_text(path(sub, "config.json"), toy_config);
    for (int k = 1; k <= 21; k++) {
        const char *nm = spec[k - 1].name;
        if (o->drop && !strcmp(o->drop, nm)) continue;
        struct tensor *x = &t[n++];
        int rows = spec[k - 1].rows, cols = spec[k - 1].cols;
        size_t cnt = (size_t)rows * (size_t)(cols ? cols : 1);
        float *v = sp_xmalloc(cnt * sizeof(float));
        int is_g = strstr(nm, "LayerNorm.weight") != NULL;
        for (int i = 0; i < rows; i++)
            for (int j = 0; j < (cols ? cols : 1); j++)
                v[(size_t)i * (cols ? cols : 1) + j] = cols ? (float)sin(7.0 * i + 3.0 * j + k)
                                                          : is_g ? (float)(1 + sin(7.0 * i + k) / 2) : (float)sin(7.0 * i + k);
        char name[96];
        snprintf(name, sizeof name, "%s%s", o->prefix_bert ? "bert." : "", nm);
        if (o->gamma_beta && strstr(name, "LayerNorm.")) {
            char *dot = strstr(name, "LayerNorm.") + 10;
            strcpy(dot, !strcmp(dot, "weight") ? "gamma" : "beta");
        }
        snprintf(x->name, sizeof x->name, "%s", name);
        x->dtype = "F32"; x->data = v; x->bytes = cnt * 4;
        x->ndim = cols ? 2 : 1; x->shape[0] = rows; x->shape[1] = cols;
        if (o->misshape && !strcmp(o->misshape, nm)) { x->shape[0] = cols ? cols : rows; x->shape[1] = rows; x->ndim = 2; if (!cols) x->shape[1] = 1; }
        if (o->f64 && !strcmp(o->f64, nm)) {
            double *w = sp_xmalloc(cnt * sizeof(double));
            for (size_t q = 0; q < cnt; q++) w[q] = v[q];
            free(v);
            x->data = w; x->dtype = "F64"; x->bytes = cnt * 8;
        }
        if (o->bf16) {
            uint32_t *u = (uint32_t *)(void *)v;
            uint16_t *hh = (uint16_t *)(void *)v;
            for (size_t q = 0; q < cnt; q++) u[q] &= 0xffff0000u;
            if (o->bf16 == 1) {
                for (size_t q = 0; q < cnt; q++) hh[q] = (uint16_t)(u[q] >> 16);   /* forward: reads stay ahead of writes */
                x->dtype = "BF16"; x->bytes = cnt * 2;
            }
        }
    }
    static float pool_w[D * D], pool_b[D], extra[D];
    static int64_t pos_ids[P];
    for (int i = 0; i < P; i++) pos_ids[i] = i;
    if (o->extras) {
        t[n++] = (struct tensor){ "pooler.dense.weight", "F32", 2, { D, D }, sizeof pool_w, pool_w };
        t[n++] = (struct tensor){ "pooler.dense.bias", "F32", 1, { D, 0 }, sizeof pool_b, pool_b };
        t[n++] = (struct tensor){ "embeddings.position_ids", "I64", 2, { 1, P }, sizeof pos_ids, pos_ids };
    }
    if (o->unexpected) {
        t[n] = (struct tensor){ "", "F32", 1, { D, 0 }, sizeof extra, extra };
        snprintf(t[n].name, sizeof t[n].name, "%s", o->unexpected);
        n++;
    }
    write_sft(path(sub, "model.safetensors"), t, n, o->truncate);
    for (int i = 0; i < n; i++) if (t[i].data != pool_w && t[i].data != pool_b && t[i].data != pos_ids && t[i].data != extra) free(t[i].data);
    return 0;
}

/* TV-M3 printed values */
static const float X0_t0[3][4] = { { -0.420926f, -0.979369f, 0.849663f, -0.265083f },
                                   { -1.58252f, -0.0349262f, 0.772326f, -0.168251f },
                                   { -0.910266f, -0.583281f, 1.03614f, -0.548527f } };
static const float X1_t0[3][4] = { { 1.46291f, 0.40276f, 0.957085f, -2.40311f },
                                   { -1.03935f, 1.5791f, 0.913156f, -1.52204f },
                                   { 0.535529f, 1.00966f, 1.09826f, -2.29767f } };
static const float P0[3][3] = { { 0.439051f, 0.163248f, 0.397701f }, { 0.491385f, 0.119284f, 0.389331f },
                                { 0.409066f, 0.206488f, 0.384446f } };
static const float P1[3][3] = { { 0.125265f, 0.623321f, 0.251414f }, { 0.370188f, 0.281893f, 0.347919f },
                                { 0.157303f, 0.568889f, 0.273808f } };
static const float X0_t1[3][4] = { { -0.461073f, -0.946991f, 0.879628f, -0.310046f },
                                   { -1.76707f, 0.122805f, -0.189471f, 1.25258f },
                                   { -1.8019f, 0.14644f, 0.386583f, 0.399389f } };
static const float X1_t1[3][4] = { { 0.23751f, 0.273261f, 1.56171f, -1.98805f },
                                   { -1.26483f, 2.31515f, -0.445699f, -0.848603f },
                                   { -1.38044f, 1.84147f, 0.461134f, -1.14073f } };

static double maxdiff(const float *a, const float *b, size_t n)
{
    double m = 0;
    for (size_t i = 0; i < n; i++) { double x = fabs((double)a[i] - b[i]); if (!(x <= m)) m = x; }
    return m;
}

static void check_tv_m3(enc_bert_t *b, const char *what)
{
    static const int32_t ids[3] = { 2, 5, 3 }, ones[3] = { 1, 1, 1 };
    float hid[2 * 3 * 4], att[2 * 3 * 3], *hp = hid, *ap = att;
    struct enc_bert_input in = { 3, ids, NULL };
    int rc = enc_bert_forward(b, 1, &in, &hp, ENC_BERT_ALL_LAYERS, &ap, ENC_BERT_ALL_LAYERS, err, sizeof err);
    if (rc) fprintf(stderr, "%s: %s\n", what, err);
    T_EQ_INT(rc, SP_OK);
    T_NEAR(maxdiff(hid, &X0_t0[0][0], 12), 0, 1e-5);
    T_NEAR(maxdiff(hid + 12, &X1_t0[0][0], 12), 0, 1e-5);
    T_NEAR(maxdiff(att, &P0[0][0], 9), 0, 1e-5);
    T_NEAR(maxdiff(att + 9, &P1[0][0], 9), 0, 1e-5);
    in.types = ones;                                   /* D2: H&M's token type 1 */
    rc = enc_bert_forward(b, 1, &in, &hp, ENC_BERT_ALL_LAYERS, NULL, ENC_BERT_ALL_LAYERS, err, sizeof err);
    T_EQ_INT(rc, SP_OK);
    T_NEAR(maxdiff(hid, &X0_t1[0][0], 12), 0, 1e-5);
    T_NEAR(maxdiff(hid + 12, &X1_t1[0][0], 12), 0, 1e-5);
}

static int capture_n;
static char captured[2048];
static void capture(void *ctx, enum sp_log_level lv, const char *msg)
{
    (void)ctx; (void)lv;
    capture_n++;
    size_t L = strlen(captured);
    snprintf(captured + L, sizeof captured - L, "%s\n", msg);
}

static void test_tv_m3(void)
{
    struct toy_opts o = { 0 };
    o.extras = 1;
    T_EQ_INT(make_toy("toy", &o), 0);
    struct sp_logger lg = { SP_LOG_INFO, capture, NULL };
    enc_bert_t *b = NULL;
    int rc = enc_bert_open(path("toy", NULL), ENC_DEVICE_CPU, &lg, &b, err, sizeof err);
    if (rc) fprintf(stderr, "%s\n", err);
    T_EQ_INT(rc, SP_OK);
    if (!b) return;
    T_CHECK(strstr(captured, "ignoring 3 tensors") != NULL);
    T_CHECK(strstr(captured, "pooler.dense.weight") && strstr(captured, "embeddings.position_ids"));
    const struct enc_bert_config *c = enc_bert_get_config(b);
    T_EQ_INT(c->hidden_size, 4); T_EQ_INT(c->layers, 1); T_EQ_INT(c->heads, 2); T_EQ_INT(c->intermediate_size, 8);
    T_EQ_STR(enc_bert_backend_name(b), "cpu");
    check_tv_m3(b, "toy");

    /* batch invariance: [x, toy, y] gives toy's bytes; sentences with other lengths around it */
    static const int32_t ids[3] = { 2, 5, 3 }, a[5] = { 0, 1, 2, 3, 4 }, z[2] = { 5, 5 };
    float solo[2 * 12], sa[2 * 20], st[2 * 12], sz[2 * 8], *ps = solo;
    float sat[2 * 25], stt[2 * 9], szt[2 * 4], solo_att[2 * 9], *pa = solo_att;
    struct enc_bert_input one = { 3, ids, NULL };
    T_EQ_INT(enc_bert_forward(b, 1, &one, &ps, ENC_BERT_ALL_LAYERS, &pa, ENC_BERT_ALL_LAYERS, err, sizeof err), SP_OK);
    struct enc_bert_input three[3] = { { 5, a, NULL }, { 3, ids, NULL }, { 2, z, NULL } };
    float *hs[3] = { sa, st, sz }, *as[3] = { sat, stt, szt };
    T_EQ_INT(enc_bert_forward(b, 3, three, hs, ENC_BERT_ALL_LAYERS, as, ENC_BERT_ALL_LAYERS, err, sizeof err), SP_OK);
    T_CHECK(memcmp(solo, st, sizeof st) == 0);
    T_CHECK(memcmp(solo_att, stt, sizeof stt) == 0);
    /* every attention row sums to 1 */
    double worst = 0;
    for (int r = 0; r < 2 * 5; r++) { double s = 0; for (int j = 0; j < 5; j++) s += sat[r * 5 + j]; if (fabs(s - 1) > worst) worst = fabs(s - 1); }
    T_NEAR(worst, 0, 1e-6);

    /* bad inputs name the sentence and piece */
    static const int32_t bad[3] = { 2, 6, 3 }, badt[3] = { 0, 2, 0 };
    struct enc_bert_input x = { 3, bad, NULL };
    T_EQ_INT(enc_bert_forward(b, 1, &x, &ps, ENC_BERT_ALL_LAYERS, NULL, ENC_BERT_ALL_LAYERS, err, sizeof err), SP_EUSAGE);
    T_CHECK(strstr(err, "sentence 0, piece 1: id 6 outside the vocabulary 0..5") != NULL);
    x.ids = ids; x.types = badt;
    T_EQ_INT(enc_bert_forward(b, 1, &x, &ps, ENC_BERT_ALL_LAYERS, NULL, ENC_BERT_ALL_LAYERS, err, sizeof err), SP_EUSAGE);
    T_CHECK(strstr(err, "token type 2") != NULL);
    static int32_t nine[9];
    x.ids = nine; x.types = NULL; x.n = 9;
    T_EQ_INT(enc_bert_forward(b, 1, &x, &ps, ENC_BERT_ALL_LAYERS, NULL, ENC_BERT_ALL_LAYERS, err, sizeof err), SP_EUSAGE);
    T_CHECK(strstr(err, "9 pieces (expected 1..8") != NULL);
    enc_bert_close(b);

    /* the same weights under BertForPreTraining names: "bert." prefix, gamma/beta */
    struct toy_opts o2 = { 0 };
    o2.prefix_bert = 1; o2.gamma_beta = 1;
    make_toy("toy2", &o2);
    rc = enc_bert_open(path("toy2", NULL), ENC_DEVICE_CPU, NULL, &b, err, sizeof err);
    if (rc) fprintf(stderr, "%s\n", err);
    T_EQ_INT(rc, SP_OK);
    if (b) { check_tv_m3(b, "toy2"); enc_bert_close(b); }

    /* a synprobe encoder config naming the directory (relative to the config's folder) */
    write_text(path("bert.json", NULL), "{\"kind\": \"bert\", \"model\": \"toy\", \"comment\": \"TV-M3\"}\n");
    rc = enc_bert_open(path("bert.json", NULL), ENC_DEVICE_CPU, NULL, &b, err, sizeof err);
    T_EQ_INT(rc, SP_OK);
    if (b) {
        T_EQ_STR(enc_bert_model_dir(b), path("toy", NULL));
        check_tv_m3(b, "bert.json");
        enc_bert_close(b);
    }
    write_text(path("bad-kind.json", NULL), "{\"kind\": \"san\", \"model\": \"toy\"}\n");
    T_CHECK(enc_bert_open(path("bad-kind.json", NULL), ENC_DEVICE_CPU, NULL, &b, err, sizeof err) != SP_OK);
    T_CHECK(strstr(err, "kind: expected \"bert\"") != NULL);
    write_text(path("bad-key.json", NULL), "{\"kind\": \"bert\", \"model\": \"toy\", \"layers\": 3}\n");
    T_CHECK(enc_bert_open(path("bad-key.json", NULL), ENC_DEVICE_CPU, NULL, &b, err, sizeof err) != SP_OK);
    T_CHECK(strstr(err, "layers: unknown key") != NULL);
    write_text(path("bad-dir.json", NULL), "{\"kind\": \"bert\", \"model\": \"nowhere\"}\n");
    T_CHECK(enc_bert_open(path("bad-dir.json", NULL), ENC_DEVICE_CPU, NULL, &b, err, sizeof err) != SP_OK);
    T_CHECK(strstr(err, "nowhere is not a directory") != NULL);
}

/* BF16 checkpoints are widened exactly (M3.2): the same outputs, bit for bit, as an F32
 * checkpoint of the truncated values; F16 values (subnormal, max, signed zero) read exactly */
static void test_half(void)
{
    struct toy_opts o = { 0 };
    o.bf16 = 1; make_toy("bf16", &o);
    o.bf16 = 2; make_toy("trunc", &o);
    enc_bert_t *a = NULL, *b = NULL;
    T_EQ_INT(enc_bert_open(path("bf16", NULL), ENC_DEVICE_CPU, NULL, &a, err, sizeof err), SP_OK);
    T_EQ_INT(enc_bert_open(path("trunc", NULL), ENC_DEVICE_CPU, NULL, &b, err, sizeof err), SP_OK);
    if (a && b) {
        static const int32_t ids[5] = { 2, 5, 3, 0, 1 };
        float ha[2 * 5 * 4], hb[2 * 5 * 4], aa[2 * 25], ab[2 * 25], *pa = ha, *pb = hb, *qa = aa, *qb = ab;
        struct enc_bert_input in = { 5, ids, NULL };
        T_EQ_INT(enc_bert_forward(a, 1, &in, &pa, ENC_BERT_ALL_LAYERS, &qa, ENC_BERT_ALL_LAYERS, err, sizeof err), SP_OK);
        T_EQ_INT(enc_bert_forward(b, 1, &in, &pb, ENC_BERT_ALL_LAYERS, &qb, ENC_BERT_ALL_LAYERS, err, sizeof err), SP_OK);
        T_CHECK(memcmp(ha, hb, sizeof ha) == 0 && memcmp(aa, ab, sizeof aa) == 0);
        T_NEAR(maxdiff(ha + 20, &X1_t0[0][0], 12), 0, 0.25);     /* and still near TV-M3 (bf16 keeps 8 bits) */
    }
    enc_bert_close(a);
    enc_bert_close(b);
    static const uint16_t h16[6] = { 0x3c00, 0xc100, 0x7bff, 0x0001, 0x8000, 0x3555 };
    static const float want[6] = { 1.0f, -2.5f, 65504.0f, 5.9604644775390625e-08f, -0.0f, 0.333251953125f };
    struct tensor t = { "x", "F16", 1, { 6, 0 }, sizeof h16, (void *)h16 };
    write_sft(path("half.safetensors", NULL), &t, 1, 0);
    struct enc_sft s;
    T_EQ_INT(enc_sft_open(path("half.safetensors", NULL), &s, err, sizeof err), SP_OK);
    float got[6];
    T_EQ_INT(enc_sft_read_f32(&s, enc_sft_find(&s, "x"), got, err, sizeof err), SP_OK);
    T_CHECK(memcmp(got, want, sizeof got) == 0);
    enc_sft_close(&s);
    static const uint16_t inf16 = 0x7c00;
    t = (struct tensor){ "y", "F16", 1, { 1, 0 }, 2, (void *)&inf16 };
    write_sft(path("half.safetensors", NULL), &t, 1, 0);
    T_EQ_INT(enc_sft_open(path("half.safetensors", NULL), &s, err, sizeof err), SP_OK);
    T_EQ_INT(enc_sft_read_f32(&s, enc_sft_find(&s, "y"), got, err, sizeof err), SP_EPARSE);
    T_CHECK(strstr(err, "tensor y: element 0 (flat index) is") != NULL);
    enc_sft_close(&s);
}

/* one broken checkpoint: open fails and the message holds `want` */
static void expect_fail(const char *sub, const struct toy_opts *o, const char *want)
{
    make_toy(sub, o);
    enc_bert_t *b = NULL;
    int rc = enc_bert_open(path(sub, NULL), ENC_DEVICE_CPU, NULL, &b, err, sizeof err);
    T_CHECK(rc != SP_OK && b == NULL);
    if (!strstr(err, want)) fprintf(stderr, "FAIL %s: message \"%s\" lacks \"%s\"\n", sub, err, want);
    T_CHECK(strstr(err, want) != NULL);
    enc_bert_close(b);
}

static void test_errors(void)
{
    struct toy_opts o = { 0 };
    o.truncate = 5;
    expect_fail("trunc", &o, "tensor encoder.layer.0.output.LayerNorm.bias: data ends at byte");
    memset(&o, 0, sizeof o); o.f64 = "encoder.layer.0.attention.self.key.weight";
    expect_fail("f64", &o, "tensor encoder.layer.0.attention.self.key.weight: dtype F64 is not supported (expected F32, F16 or BF16");
    memset(&o, 0, sizeof o); o.drop = "encoder.layer.0.intermediate.dense.bias";
    expect_fail("missing", &o, "tensor encoder.layer.0.intermediate.dense.bias: missing");
    memset(&o, 0, sizeof o); o.unexpected = "encoder.layer.1.output.LayerNorm.bias";
    expect_fail("unexpected", &o, "tensor encoder.layer.1.output.LayerNorm.bias: unexpected");
    memset(&o, 0, sizeof o); o.unexpected = "cls.predictions.bias.x";
    make_toy("cls", &o);                                   /* cls.* is ignored, not an error */
    enc_bert_t *b = NULL;
    T_EQ_INT(enc_bert_open(path("cls", NULL), ENC_DEVICE_CPU, NULL, &b, err, sizeof err), SP_OK);
    enc_bert_close(b);
    memset(&o, 0, sizeof o); o.misshape = "encoder.layer.0.intermediate.dense.weight";
    expect_fail("shape", &o, "tensor encoder.layer.0.intermediate.dense.weight: shape [4,8], expected [8,4]");
    memset(&o, 0, sizeof o); o.misshape = "embeddings.LayerNorm.bias";
    expect_fail("shape1", &o, "tensor embeddings.LayerNorm.bias: shape [4,1], expected [4]");

    /* garbage and a header that overruns the file */
    memset(&o, 0, sizeof o);
    make_toy("garbage", &o);
    write_text(path("garbage", "model.safetensors"), "hello");
    T_CHECK(enc_bert_open(path("garbage", NULL), ENC_DEVICE_CPU, NULL, &b, err, sizeof err) != SP_OK);
    T_CHECK(strstr(err, "model.safetensors: not a safetensors file (shorter than 8 bytes)") != NULL);
    FILE *f = fopen(path("garbage", "model.safetensors"), "wb");
    fwrite("\x40\0\0\0\0\0\0\0{}", 1, 10, f);
    fclose(f);
    T_CHECK(enc_bert_open(path("garbage", NULL), ENC_DEVICE_CPU, NULL, &b, err, sizeof err) != SP_OK);
    T_CHECK(strstr(err, "header length 64 does not fit the 10-byte file") != NULL);
    f = fopen(path("garbage", "model.safetensors"), "wb");
    fwrite("\x08\0\0\0\0\0\0\0{\"a\": 1}", 1, 16, f);
    fclose(f);
    T_CHECK(enc_bert_open(path("garbage", NULL), ENC_DEVICE_CPU, NULL, &b, err, sizeof err) != SP_OK);
    T_CHECK(strstr(err, "tensor a: header entry is not an object") != NULL);

    /* missing files and paths */
    T_CHECK(enc_bert_open(path("nowhere", NULL), ENC_DEVICE_CPU, NULL, &b, err, sizeof err) != SP_OK);
    T_CHECK(strstr(err, "nowhere: cannot open") != NULL);
    if (mkdir(path("empty", NULL), 0755) == 0) {
        T_EQ_INT(enc_bert_open(path("empty", NULL), ENC_DEVICE_CPU, NULL, &b, err, sizeof err), SP_EIO);
        T_CHECK(strstr(err, "empty/config.json: cannot open") != NULL);
        write_text(path("empty", "config.json"), toy_config);
        T_EQ_INT(enc_bert_open(path("empty", NULL), ENC_DEVICE_CPU, NULL, &b, err, sizeof err), SP_EIO);
        T_CHECK(strstr(err, "empty: no model.safetensors or model.safetensors.index.json") != NULL);
    }

    /* config.json */
    static const struct { const char *json, *want; } cfg[] = {
        { "{\"vocab_size\": 6}", "hidden_size: missing" },
        { "{\"vocab_size\": 6, \"hidden_size\": 4, \"num_hidden_layers\": 1, \"num_attention_heads\": 3, \"intermediate_size\": 8,"
          " \"max_position_embeddings\": 8, \"type_vocab_size\": 2}", "num_attention_heads: 3 does not divide hidden_size 4" },
        { "{\"vocab_size\": 6, \"hidden_size\": 4, \"num_hidden_layers\": 1, \"num_attention_heads\": 2, \"intermediate_size\": 8,"
          " \"max_position_embeddings\": 8, \"type_vocab_size\": 2, \"hidden_act\": \"gelu_fast\"}", "hidden_act: \"gelu_fast\" is not supported" },
        { "{\"vocab_size\": 6, \"hidden_size\": \"4\"}", "hidden_size: expected an integer >= 1" },
        { "{\"vocab_size\": 6, \"hidden_size\": 4, \"num_hidden_layers\": 1, \"num_attention_heads\": 2, \"intermediate_size\": 8,"
          " \"max_position_embeddings\": 8, \"type_vocab_size\": 2, \"position_embedding_type\": \"relative_key\"}",
          "position_embedding_type: only \"absolute\"" },
        { "{\"vocab_size\": 6, \"hidden_size\": 4, \"num_hidden_layers\": 1, \"num_attention_heads\": 2, \"intermediate_size\": 8,"
          " \"max_position_embeddings\": 8, \"type_vocab_size\": 2, \"layer_norm_eps\": -1}", "layer_norm_eps: expected a number" },
        { "{\"vocab_size\": 6, \"hidden_size\": 4, \"num_hidden_layers\": 1, \"num_attention_heads\": 2, \"intermediate_size\": 8,"
          " \"max_position_embeddings\": 8, \"type_vocab_size\": 2, \"model_type\": \"roberta\"}",
          "model_type: \"roberta\" is not supported (only BERT-family" },
        { "{\"vocab_size\": 6,\n \"hidden_size\": }", "config.json:2: not valid JSON" },
        { "[1]", "config.json: expected a JSON object" },
    };
    for (size_t i = 0; i < sizeof cfg / sizeof cfg[0]; i++) {
        write_text(path("toy", "config.json"), cfg[i].json);
        b = NULL;
        int rc = enc_bert_open(path("toy", NULL), ENC_DEVICE_CPU, NULL, &b, err, sizeof err);
        T_EQ_INT(rc, SP_EPARSE);
        if (!strstr(err, cfg[i].want)) fprintf(stderr, "FAIL config %zu: \"%s\" lacks \"%s\"\n", i, err, cfg[i].want);
        T_CHECK(strstr(err, cfg[i].want) != NULL);
        enc_bert_close(b);
    }
    /* a config of another size than the checkpoint: the first tensor that disagrees is named */
    write_text(path("toy", "config.json"), "{\"vocab_size\": 7, \"hidden_size\": 4, \"num_hidden_layers\": 1, \"num_attention_heads\": 2,"
               " \"intermediate_size\": 8, \"max_position_embeddings\": 8, \"type_vocab_size\": 2}");
    T_CHECK(enc_bert_open(path("toy", NULL), ENC_DEVICE_CPU, NULL, &b, err, sizeof err) != SP_OK);
    T_CHECK(strstr(err, "tensor embeddings.word_embeddings.weight: shape [6,4], expected [7,4]") != NULL);
    write_text(path("toy", "config.json"), toy_config);
}

/* ---- M2.5 TV-M2a ---- */

static void test_pooling(void)
{
    static const float X[7][2] = { { 1, 0 }, { 2, 4 }, { 4, 0 }, { 0, 2 }, { 6, -2 }, { 3, 3 }, { 9, 9 } };
    static const int32_t span[3][2] = { { 1, 3 }, { 3, 5 }, { 5, 6 } };
    static const float want_w[3][3][2] = { { { 3, 2 }, { 3, 0 }, { 3, 3 } },
                                           { { 2, 4 }, { 0, 2 }, { 3, 3 } },
                                           { { 4, 0 }, { 6, -2 }, { 3, 3 } } };
    static const float want_mean[3][2] = { { 3, 1.66667f }, { 1.66667f, 3 }, { 4.33333f, 0.333333f } };
    static const float want_max[3][2] = { { 3, 3 }, { 3, 4 }, { 6, 3 } };
    static const char *wp[3] = { "mean", "first", "last" };
    for (int m = 0; m < 3; m++) {
        float w[3][2], s[2];
        T_EQ_INT(enc_word_pool_parse(wp[m]), m);
        T_EQ_INT(enc_pool_words(7, 2, &X[0][0], 3, &span[0][0], (enum enc_word_pool)m, &w[0][0], err, sizeof err), SP_OK);
        T_NEAR(maxdiff(&w[0][0], &want_w[m][0][0], 6), 0, 0);
        enc_pool_sentence(2, &X[0][0], 3, &w[0][0], ENC_SENT_POOL_MEAN, s);
        T_NEAR(maxdiff(s, want_mean[m], 2), 0, 5e-6);
        enc_pool_sentence(2, &X[0][0], 3, &w[0][0], ENC_SENT_POOL_MAX, s);
        T_NEAR(maxdiff(s, want_max[m], 2), 0, 0);
        enc_pool_sentence(2, &X[0][0], 3, &w[0][0], ENC_SENT_POOL_CLS, s);
        T_CHECK(s[0] == 1 && s[1] == 0);
    }
    T_EQ_INT(enc_sent_pool_parse("cls"), ENC_SENT_POOL_CLS);
    T_EQ_INT(enc_sent_pool_parse("max"), ENC_SENT_POOL_MAX);
    T_EQ_INT(enc_sent_pool_parse("first"), -1);
    T_EQ_INT(enc_word_pool_parse("max"), -1);
    float w[2];
    static const int32_t cls_span[2] = { 0, 1 }, sep_span[2] = { 5, 7 }, empty[2] = { 3, 3 };
    T_EQ_INT(enc_pool_words(7, 2, &X[0][0], 1, cls_span, ENC_WORD_POOL_MEAN, w, err, sizeof err), SP_EUSAGE);
    T_CHECK(strstr(err, "word 0: piece span [0, 1)") != NULL);
    T_EQ_INT(enc_pool_words(7, 2, &X[0][0], 1, sep_span, ENC_WORD_POOL_MEAN, w, err, sizeof err), SP_EUSAGE);
    T_EQ_INT(enc_pool_words(7, 2, &X[0][0], 1, empty, ENC_WORD_POOL_MEAN, w, err, sizeof err), SP_EUSAGE);
}

/* TV-M2b: one head; then the same head twice with a uniform one (head mean before renormalising) */
static void test_word_attention(void)
{
    float R[2][6][6];
    static const float rows[4][6] = { { 0.1f, 0.2f, 0.3f, 0.2f, 0.1f, 0.1f }, { 0.2f, 0.3f, 0.1f, 0.1f, 0.1f, 0.2f },
                                      { 0.1f, 0.1f, 0.1f, 0.3f, 0.2f, 0.2f }, { 0.0f, 0.4f, 0.2f, 0.2f, 0.1f, 0.1f } };
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 6; j++) { R[0][i][j] = (i >= 1 && i <= 4) ? rows[i - 1][j] : 1.0f / 6; R[1][i][j] = 1.0f / 6; }
    static const int32_t span[2][2] = { { 1, 3 }, { 3, 5 } };
    float W[4], A[4];
    T_EQ_INT(enc_word_attention(6, 1, &R[0][0][0], 2, &span[0][0], 0, W, err, sizeof err), SP_OK);
    static const float wW[4] = { 0.45f, 0.25f, 0.4f, 0.4f }, wA[4] = { 0.642857f, 0.357143f, 0.5f, 0.5f };
    T_NEAR(maxdiff(W, wW, 4), 0, 1e-6);
    T_EQ_INT(enc_word_attention(6, 1, &R[0][0][0], 2, &span[0][0], 1, A, err, sizeof err), SP_OK);
    T_NEAR(maxdiff(A, wA, 4), 0, 1e-6);
    /* two heads: W = (W_0 + W_1)/2 with W_1 = 2/6 everywhere; renormalised once */
    T_EQ_INT(enc_word_attention(6, 2, &R[0][0][0], 2, &span[0][0], 1, A, err, sizeof err), SP_OK);
    const double t = 1.0 / 3;
    T_NEAR(A[0], (0.45 + t) / (0.45 + 0.25 + 2 * t), 1e-6);
    T_NEAR(A[3], 0.5, 1e-6);
    static const int32_t bad[2][2] = { { 1, 3 }, { 3, 6 } };
    T_EQ_INT(enc_word_attention(6, 1, &R[0][0][0], 2, &bad[0][0], 1, A, err, sizeof err), SP_EUSAGE);
    T_CHECK(strstr(err, "word 1: piece span [3, 6)") != NULL);
}

/* ---- the tiny random BERT vs the NumPy reference ---- */

/* Only the wanted layers come back: with hidden_layers = {0, L} and attn_layers = {the last},
 * those layers' bytes equal the all-layers run (h, a) and every other layer keeps its sentinel. */
static void check_layer_masks(enc_bert_t *b, int n_sent, const struct enc_bert_input *in, float *const *h, float *const *a,
                              int L, int d, int H, const char *what)
{
    float *mh[8], *ma[8];
    const uint64_t hm = 1u | (uint64_t)1 << L, am = (uint64_t)1 << (L - 1);
    for (int s = 0; s < n_sent; s++) {
        const size_t T = (size_t)in[s].n;
        mh[s] = sp_xmalloc(sizeof(float) * (size_t)(L + 1) * T * d);
        ma[s] = sp_xmalloc(sizeof(float) * (size_t)L * H * T * T);
        memset(mh[s], 0xff, sizeof(float) * (size_t)(L + 1) * T * d);
        memset(ma[s], 0xff, sizeof(float) * (size_t)L * H * T * T);
    }
    int rc = enc_bert_forward(b, n_sent, in, mh, hm, ma, am, err, sizeof err);
    if (rc) fprintf(stderr, "%s\n", err);
    T_EQ_INT(rc, SP_OK);
    int same = 1, kept = 1;
    for (int s = 0; s < n_sent && rc == SP_OK; s++) {
        const size_t T = (size_t)in[s].n, lh = T * d, la = (size_t)H * T * T;
        for (int l = 0; l <= L; l++) {
            const uint32_t *got = (const uint32_t *)(mh[s] + l * lh);
            if (hm >> l & 1) same &= memcmp(got, h[s] + l * lh, sizeof(float) * lh) == 0;
            else for (size_t k = 0; k < lh; k++) kept &= got[k] == 0xffffffffu;
        }
        for (int l = 0; l < L; l++) {
            const uint32_t *got = (const uint32_t *)(ma[s] + l * la);
            if (am >> l & 1) same &= memcmp(got, a[s] + l * la, sizeof(float) * la) == 0;
            else for (size_t k = 0; k < la; k++) kept &= got[k] == 0xffffffffu;
        }
    }
    printf("# %s: layer masks {0, %d} and attention {%d}: wanted layers %s, the others %s\n", what, L, L - 1,
           same ? "identical" : "DIFFER", kept ? "untouched" : "WRITTEN");
    T_CHECK(same);
    T_CHECK(kept);
    for (int s = 0; s < n_sent; s++) { free(mh[s]); free(ma[s]); }
}

static void test_numpy_reference(void)
{
    const char *py = getenv("SP_PYTHON") ? getenv("SP_PYTHON") : "/usr/bin/python3";
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%s -c 'import numpy' 2>/dev/null", py);
    if (access(py, X_OK) != 0 || system(cmd) != 0) { T_SKIP("tiny BERT vs NumPy: no python3 with numpy"); return; }
    if (access("tests/reference/make_tiny_bert.py", R_OK) != 0) { T_SKIP("tiny BERT vs NumPy: run from the repository root"); return; }
    const char *tiny = path("tiny", NULL);
    snprintf(cmd, sizeof cmd, "%s tests/reference/make_tiny_bert.py %s && %s tests/reference/bert_ref.py %s %s/ref",
             py, tiny, py, tiny, tiny);
    int rc = system(cmd);
    T_EQ_INT(rc, 0);
    if (rc) return;
    enc_bert_t *b = NULL;
    rc = enc_bert_open(tiny, ENC_DEVICE_CPU, NULL, &b, err, sizeof err);
    if (rc) fprintf(stderr, "%s\n", err);
    T_EQ_INT(rc, SP_OK);
    if (!b) return;
    const struct enc_bert_config *c = enc_bert_get_config(b);
    const int L = c->layers, Hh = c->heads, d = c->hidden_size;
    T_EQ_INT(L, 2); T_EQ_INT(d, 8); T_EQ_INT(Hh, 2);
    /* ref/ids_S.npy, types_S.npy, hidden_S.npy [L+1, T, d], attn_S.npy [L, H, T, T] for S = 0.. */
    int n_sent = 0;
    struct sp_npy ids[8], types[8], hid[8], att[8];
    memset(ids, 0, sizeof ids); memset(types, 0, sizeof types); memset(hid, 0, sizeof hid); memset(att, 0, sizeof att);
    for (; n_sent < 8; n_sent++) {
        char f[1024];
        snprintf(f, sizeof f, "%s/ref/ids_%d.npy", tiny, n_sent);
        if (access(f, F_OK)) break;
        T_EQ_INT(sp_npy_read(f, &ids[n_sent], err, sizeof err), SP_OK);
        snprintf(f, sizeof f, "%s/ref/types_%d.npy", tiny, n_sent);
        T_EQ_INT(sp_npy_read(f, &types[n_sent], err, sizeof err), SP_OK);
        snprintf(f, sizeof f, "%s/ref/hidden_%d.npy", tiny, n_sent);
        T_EQ_INT(sp_npy_read(f, &hid[n_sent], err, sizeof err), SP_OK);
        snprintf(f, sizeof f, "%s/ref/attn_%d.npy", tiny, n_sent);
        T_EQ_INT(sp_npy_read(f, &att[n_sent], err, sizeof err), SP_OK);
        sp_npy_to_f32(&hid[n_sent]);
        sp_npy_to_f32(&att[n_sent]);
        T_EQ_INT(ids[n_sent].dtype, SP_DT_I32);
        T_EQ_INT(types[n_sent].dtype, SP_DT_I32);
    }
    T_CHECK(n_sent >= 3);
    struct enc_bert_input in[8];
    float *h[8], *a[8];
    for (int s = 0; s < n_sent; s++) {
        int T = (int)ids[s].count;
        in[s] = (struct enc_bert_input){ T, ids[s].data, types[s].data };
        h[s] = sp_xcalloc((size_t)(L + 1) * T * d, sizeof(float));
        a[s] = sp_xcalloc((size_t)L * Hh * T * T, sizeof(float));
        T_EQ_INT(hid[s].count, (size_t)(L + 1) * T * d);
        T_EQ_INT(att[s].count, (size_t)L * Hh * T * T);
    }
    rc = enc_bert_forward(b, n_sent, in, h, ENC_BERT_ALL_LAYERS, a, ENC_BERT_ALL_LAYERS, err, sizeof err);   /* one batch of different lengths */
    if (rc) fprintf(stderr, "%s\n", err);
    T_EQ_INT(rc, SP_OK);
    double wh = 0, wa = 0;
    for (int s = 0; s < n_sent && rc == SP_OK; s++) {
        double x = maxdiff(h[s], hid[s].data, hid[s].count), y = maxdiff(a[s], att[s].data, att[s].count);
        if (x > wh) wh = x;
        if (y > wa) wa = y;
    }
    printf("# tiny BERT vs NumPy (float64): %d sentences, max |dh| %.3g, max |dattn| %.3g\n", n_sent, wh, wa);
    T_NEAR(wh, 0, 1e-5);
    T_NEAR(wa, 0, 1e-5);
    T_CHECK(L >= 2);
    if (rc == SP_OK) check_layer_masks(b, n_sent, in, h, a, L, d, Hh, "tiny BERT on the CPU");
    /* the CUDA twin through the same backend interface, against the CPU (M3.4 tolerances) */
    enc_bert_t *g = NULL;
    if (enc_bert_open(tiny, ENC_DEVICE_CUDA, NULL, &g, err, sizeof err) != SP_OK) {
        char why[600];
        snprintf(why, sizeof why, "bert on CUDA: %.500s", err);
        T_SKIP(why);
    } else {
        float *gh[8], *ga[8];
        for (int s = 0; s < n_sent; s++) {
            gh[s] = sp_xcalloc(hid[s].count, sizeof(float));
            ga[s] = sp_xcalloc(att[s].count, sizeof(float));
        }
        T_EQ_INT(enc_bert_forward(g, n_sent, in, gh, ENC_BERT_ALL_LAYERS, ga, ENC_BERT_ALL_LAYERS, err, sizeof err), SP_OK);
        double dh = 0, da = 0;
        for (int s = 0; s < n_sent; s++) {
            double x = maxdiff(gh[s], h[s], hid[s].count), y = maxdiff(ga[s], a[s], att[s].count);
            if (x > dh) dh = x;
            if (y > da) da = y;
            free(gh[s]); free(ga[s]);
        }
        printf("# tiny BERT CUDA vs CPU: max |dh| %.3g, max |dattn| %.3g\n", dh, da);
        T_NEAR(dh, 0, 1e-4);
        T_NEAR(da, 0, 1e-5);
        /* the same masks on CUDA, against CUDA's own all-layers run */
        for (int s = 0; s < n_sent; s++) { gh[s] = sp_xcalloc(hid[s].count, sizeof(float)); ga[s] = sp_xcalloc(att[s].count, sizeof(float)); }
        T_EQ_INT(enc_bert_forward(g, n_sent, in, gh, ENC_BERT_ALL_LAYERS, ga, ENC_BERT_ALL_LAYERS, err, sizeof err), SP_OK);
        check_layer_masks(g, n_sent, in, gh, ga, L, d, Hh, "tiny BERT on CUDA");
        for (int s = 0; s < n_sent; s++) { free(gh[s]); free(ga[s]); }
        enc_bert_close(g);
    }
    for (int s = 0; s < n_sent; s++) { free(h[s]); free(a[s]); sp_npy_free(&ids[s]); sp_npy_free(&types[s]); sp_npy_free(&hid[s]); sp_npy_free(&att[s]); }
    enc_bert_close(b);
}

int main(void)
{
    if (!mkdtemp(dir)) { perror("mkdtemp"); return 1; }
    test_tv_m3();
    test_errors();
    test_half();
    test_pooling();
    test_word_attention();
    test_numpy_reference();
    if (!t_fail) { char cmd[256]; snprintf(cmd, sizeof cmd, "rm -rf %s", dir); if (system(cmd)) {} }
    else fprintf(stderr, "kept %s\n", dir);
    return T_DONE();
}
