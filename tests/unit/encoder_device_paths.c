/* tests/unit/encoder_device_paths.c — the graph's device-only paths, run on the CPU.
 *
 * A device backend gets ops the CPU backend does not have, and the graphs take other routes for
 * it: BERT's embeddings summed by the backend from (id, type, position) triples (embed_sum), every
 * layer's hidden states and per-head maps delivered by download_pieces_later (complete only at
 * sync), the maps through a device buffer instead of the caller's arrays, and the SAN family's
 * input rows gathered by ids from a device copy of a fixed embedding table (gather_rows). Without
 * a GPU those routes would go unchecked between lent machines. Here a handle opened on the CPU is
 * switched to a "device" made of the CPU ops plus those three (host memory marked as device
 * memory): the same per-element work through the device routes, so every output must be the same
 * bytes as the plain CPU handle's. The fake download_pieces_later copies src aside at once and
 * poisons the destinations with NaN until sync, as the contract allows: an output read before
 * sync, or a piece never delivered, shows. MiniLM from models/ (skipped visibly when absent). */
#include "common/sp.h"
#include "encoder/encoder.h"
#include "encoder/encoder_int.h"   /* struct enc, struct enc_backend_ops: the ops are swapped */
#include "tests/unit/encoder_fixture.h"
#include "tests/unit/t_harness.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char err[4096];

/* ---- the fake device: the CPU ops + the device-only ones ---- */

struct pending { int count; void **dst; size_t *bytes; char *copy; };
static struct pending *pend;
static int n_pend, cap_pend, n_later;

static void later(struct enc_backend *be, int count, void *const *dst, const size_t *bytes, const void *src)
{
    (void)be;
    size_t total = 0;
    for (int i = 0; i < count; i++) total += bytes[i];
    if (n_pend == cap_pend) { cap_pend = cap_pend ? 2 * cap_pend : 16; pend = sp_xrealloc(pend, sizeof *pend * (size_t)cap_pend); }
    struct pending *p = &pend[n_pend++];
    p->count = count;
    p->dst = sp_xmalloc(sizeof *p->dst * (size_t)(count ? count : 1));
    p->bytes = sp_xmalloc(sizeof *p->bytes * (size_t)(count ? count : 1));
    memcpy(p->dst, dst, sizeof *dst * (size_t)count);
    memcpy(p->bytes, bytes, sizeof *bytes * (size_t)count);
    p->copy = sp_xmalloc(total ? total : 1);
    memcpy(p->copy, src, total);                           /* src may change after the call */
    for (int i = 0; i < count; i++) if (dst[i]) memset(dst[i], 0xff, bytes[i]);   /* NaN until sync */
    n_later++;
}

static int fake_sync(struct enc_backend *be, char *e, size_t n)
{
    for (int k = 0; k < n_pend; k++) {
        struct pending *p = &pend[k];
        size_t at = 0;
        for (int i = 0; i < p->count; at += p->bytes[i++]) if (p->dst[i]) memcpy(p->dst[i], p->copy + at, p->bytes[i]);
        free(p->dst); free(p->bytes); free(p->copy);
    }
    n_pend = 0;
    return enc_cpu_ops.sync(be, e, n);
}

static int n_gather, n_embed;

static void gather(struct enc_backend *be, int N, int d, const float *table, const int32_t *ids, float *out)
{
    (void)be;
    for (int r = 0; r < N; r++) memcpy(out + (size_t)r * d, table + (size_t)ids[r] * d, sizeof(float) * (size_t)d);
    n_gather++;
}

static void embed(struct enc_backend *be, int N, int d, const float *word, const float *type, const float *pos,
                  const int32_t *idx, float *out)
{
    (void)be;
    for (int r = 0; r < N; r++)
        for (int k = 0; k < d; k++)
            out[(size_t)r * d + k] = (word[(size_t)idx[3 * r] * d + k] + type[(size_t)idx[3 * r + 1] * d + k]) + pos[(size_t)idx[3 * r + 2] * d + k];
    n_embed++;
}

static struct enc_backend_ops fake;

/* e's backend becomes the fake device (or back to the CPU before closing: a device handle frees
 * its parameters' device copies, which on the CPU are the host block) */
static void as_device(struct enc *e, int on)
{
    fake = enc_cpu_ops;
    fake.name = "fake-device";
    fake.sync = fake_sync;
    fake.download_pieces_later = later;
    fake.gather_rows = gather;
    fake.embed_sum = embed;
    e->be.ops = on ? &fake : &enc_cpu_ops;
    e->be.host_memory = !on;
}

static int same(const float *a, const float *b, size_t n) { return memcmp(a, b, sizeof(float) * n) == 0; }

/* A CPU handle keeps its embedding tables as views of the file (its dtype; no host or device
 * copy: the CPU gathers rows from the file), where a real device gets widened copies at upload
 * (enc_param_upload): the fake device gets them here, and gives them back before the close. */
static void device_copies(struct enc *e, int on)
{
    for (int i = 0; i < e->n_param; i++) {
        struct enc_param *p = &e->param[i];
        if (!p->view) continue;
        if (on && !p->host && !p->dev) {
            float *w = sp_xmalloc(sizeof(float) * p->count);
            enc_param_widen(p, w);
            p->dev = w;
            p->host = w;                                   /* marks it ours, for the way back */
        } else if (!on && p->host && p->host == p->dev) {
            free(p->dev);
            p->dev = p->host = NULL;
        }
    }
}

/* ---- bert: hidden states and per-head maps of every layer ---- */

static void bert(const char *model)
{
    enc_bert_t *a = NULL, *b = NULL;
    T_EQ_INT(enc_bert_open(model, ENC_DEVICE_CPU, NULL, &a, err, sizeof err), SP_OK);
    T_EQ_INT(enc_bert_open(model, ENC_DEVICE_CPU, NULL, &b, err, sizeof err), SP_OK);
    if (!a || !b) { enc_bert_close(a); enc_bert_close(b); return; }
    as_device((struct enc *)b, 1);                         /* struct enc_bert starts with its struct enc */
    device_copies((struct enc *)b, 1);
    const struct enc_bert_config *c = enc_bert_get_config(a);
    const int L = c->layers, d = c->hidden_size, H = c->heads;
    enum { NS = 5 };
    static const int len[NS] = { 3, 17, 2, 40, 9 };
    struct enc_bert_input in[NS];
    float *ha[NS], *hb[NS], *aa[NS], *ab[NS];
    struct sp_rng r;
    sp_rng_seed(&r, 5);
    for (int s = 0; s < NS; s++) {
        int32_t *ids = sp_xmalloc(sizeof(int32_t) * (size_t)len[s]);
        int32_t *types = sp_xmalloc(sizeof(int32_t) * (size_t)len[s]);
        for (int p = 0; p < len[s]; p++) {
            ids[p] = p == 0 ? 101 : p == len[s] - 1 ? 102 : 1000 + (int32_t)(sp_rng_uniform(&r) * 20000);
            types[p] = c->type_vocab_size > 1 && p > len[s] / 2;      /* both token types */
        }
        in[s] = (struct enc_bert_input){ .n = len[s], .ids = ids, .types = s % 2 ? types : NULL };
        if (s % 2 == 0) free(types);
        const size_t nh = (size_t)(L + 1) * len[s] * d, na = (size_t)L * H * len[s] * len[s];
        ha[s] = sp_xcalloc(nh, sizeof(float)); hb[s] = sp_xcalloc(nh, sizeof(float));
        aa[s] = sp_xcalloc(na, sizeof(float)); ab[s] = sp_xcalloc(na, sizeof(float));
    }
    /* all layers and maps in one call; then the hidden states alone, one sentence per call */
    T_EQ_INT(enc_bert_forward(a, NS, in, ha, ENC_BERT_ALL_LAYERS, aa, ENC_BERT_ALL_LAYERS, err, sizeof err), SP_OK);
    n_later = n_embed = 0;
    T_EQ_INT(enc_bert_forward(b, NS, in, hb, ENC_BERT_ALL_LAYERS, ab, ENC_BERT_ALL_LAYERS, err, sizeof err), SP_OK);
    T_EQ_INT(n_embed, 1);
    T_EQ_INT(n_later, (L + 1) + L);                         /* every layer's states, every layer's maps */
    int ok_h = 1, ok_a = 1;
    for (int s = 0; s < NS; s++) {
        ok_h &= same(ha[s], hb[s], (size_t)(L + 1) * len[s] * d);
        ok_a &= same(aa[s], ab[s], (size_t)L * H * len[s] * len[s]);
    }
    T_CHECK(ok_h);
    T_CHECK(ok_a);
    for (int s = 0; s < NS; s++) memset(hb[s], 0, sizeof(float) * (size_t)(L + 1) * len[s] * d);
    for (int s = 0; s < NS; s++) T_EQ_INT(enc_bert_forward(b, 1, in + s, hb + s, ENC_BERT_ALL_LAYERS, NULL, 0, err, sizeof err), SP_OK);
    ok_h = 1;
    for (int s = 0; s < NS; s++) ok_h &= same(ha[s], hb[s], (size_t)(L + 1) * len[s] * d);
    T_CHECK(ok_h);
    /* layers 0 and L only: the others untouched (still zero) */
    for (int s = 0; s < NS; s++) memset(hb[s], 0, sizeof(float) * (size_t)(L + 1) * len[s] * d);
    T_EQ_INT(enc_bert_forward(b, NS, in, hb, 1ull | 1ull << L, NULL, 0, err, sizeof err), SP_OK);
    int ok_sel = 1;
    for (int s = 0; s < NS; s++) {
        const size_t one = (size_t)len[s] * d;
        ok_sel &= same(ha[s], hb[s], one) && same(ha[s] + (size_t)L * one, hb[s] + (size_t)L * one, one);
        for (size_t k = one; k < (size_t)L * one; k++) ok_sel &= hb[s][k] == 0.0f;
    }
    T_CHECK(ok_sel);
    printf("# bert (%s): %d layers, %d sentences: device routes against the CPU handle\n", model, L, NS);
    for (int s = 0; s < NS; s++) { free((void *)in[s].ids); free((void *)in[s].types); free(ha[s]); free(hb[s]); free(aa[s]); free(ab[s]); }
    device_copies((struct enc *)b, 0);
    as_device((struct enc *)b, 0);
    enc_bert_close(a);
    enc_bert_close(b);
}

/* ---- the SAN family: rows by ids from a fixed table ---- */

static void san(const char *config, int d_input)
{
    struct enc_config cfg;
    T_EQ_INT(enc_config_load(config, &cfg, err, sizeof err), SP_OK);
    if (d_input) cfg.d_input = d_input;                    /* with the input projection */
    enc_t *a = NULL, *b = NULL;
    T_EQ_INT(enc_open(&cfg, ENC_DEVICE_CPU, NULL, NULL, &a, err, sizeof err), SP_OK);
    T_EQ_INT(enc_open(&cfg, ENC_DEVICE_CPU, NULL, NULL, &b, err, sizeof err), SP_OK);
    if (!a || !b) { enc_close(a); enc_close(b); return; }
    as_device(b, 1);
    const int din = cfg.d_input, rows = 50;
    struct fx_sent f[FX_B];
    fx_batch(f, din, 31);
    float *table = sp_xmalloc(sizeof(float) * (size_t)rows * din), *table2 = sp_xmalloc(sizeof(float) * (size_t)rows * din);
    struct sp_rng r;
    sp_rng_seed(&r, 9);
    for (int k = 0; k < rows * din; k++) table[k] = (float)(2 * sp_rng_uniform(&r) - 1);
    for (int k = 0; k < rows * din; k++) table2[k] = -table[k];
    struct enc_sentence s[FX_B];
    int32_t *ids[FX_B];
    for (int i = 0; i < FX_B; i++) {
        s[i] = f[i].s;
        s[i].emb = NULL;
        ids[i] = sp_xmalloc(sizeof(int32_t) * (size_t)s[i].n);
        for (int t = 0; t < s[i].n; t++) ids[i][t] = (int32_t)(sp_rng_uniform(&r) * rows);
        s[i].ids = ids[i];
    }
    const size_t dim = (size_t)enc_dim(a), dt = (size_t)enc_tok_dim(a);
    float *va = sp_xcalloc(FX_B * dim, sizeof(float)), *vb = sp_xcalloc(FX_B * dim, sizeof(float));
    float *ta[FX_B], *tb[FX_B];
    for (int i = 0; i < FX_B; i++) { ta[i] = sp_xcalloc((size_t)s[i].n * dt, sizeof(float)); tb[i] = sp_xcalloc((size_t)s[i].n * dt, sizeof(float)); }
    int ok = 1;
    const float *tabs[3] = { table, table, table2 };       /* new, the same again (kept), another */
    for (int call = 0; call < 3; call++) {
        struct enc_batch ina = { FX_B, s, tabs[call], rows, 0 }, inb = { FX_B, s, tabs[call], rows, 1 };
        struct enc_output oa = { va, ta, NULL, -1 }, ob = { vb, tb, NULL, -1 };
        n_gather = 0;
        T_EQ_INT(enc_forward(a, &ina, &oa, err, sizeof err), SP_OK);
        T_EQ_INT(enc_forward(b, &inb, &ob, err, sizeof err), SP_OK);
        T_CHECK(n_gather >= 1);                            /* the device route was taken */
        ok &= same(va, vb, FX_B * dim);
        for (int i = 0; i < FX_B; i++) ok &= same(ta[i], tb[i], (size_t)s[i].n * dt);
    }
    T_CHECK(ok);
    /* a sentence given by rows takes the host route on the device too (and agrees) */
    s[1].emb = f[1].emb; s[1].ids = NULL;
    struct enc_batch ina = { FX_B, s, table, rows, 0 }, inb = { FX_B, s, table, rows, 1 };
    struct enc_output oa = { va, ta, NULL, -1 }, ob = { vb, tb, NULL, -1 };
    n_gather = 0;
    T_EQ_INT(enc_forward(a, &ina, &oa, err, sizeof err), SP_OK);
    T_EQ_INT(enc_forward(b, &inb, &ob, err, sizeof err), SP_OK);
    T_EQ_INT(n_gather, 0);
    T_CHECK(same(va, vb, FX_B * dim));
    printf("# %s (d_input %d): rows by ids from the device table against the host gather\n", config, din);
    for (int i = 0; i < FX_B; i++) { free(ids[i]); free(ta[i]); free(tb[i]); fx_free(&f[i]); }
    free(va); free(vb); free(table); free(table2);
    as_device(b, 0);
    enc_close(a);
    enc_close(b);
}

int main(void)
{
    san("encoder/configs/ms-san.json", 0);
    san("encoder/configs/san-structpe.json", 96);
    const char *models = getenv("SP_MODELS") ? getenv("SP_MODELS") : "models";
    char model[4096];
    snprintf(model, sizeof model, "%s/all-MiniLM-L6-v2", models);
    char probe[4200];
    snprintf(probe, sizeof probe, "%s/model.safetensors", model);
    if (access(probe, R_OK) == 0) bert(model);
    else printf("# SKIP bert: %s absent (make models)\n", probe);
    return T_DONE();
}
