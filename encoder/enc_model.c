/* encoder/enc_model.c — model layout and forward graph of every encoder kind, written once in
 * terms of the backend ops (encoder_int.h), plus enc_open/enc_close/enc_forward.
 *
 * How it works: enc_model_build registers the tensors of the configured kind (names are the
 * contract of schemas/encoder-weights.md). enc_forward runs one sentence at a time (no padding:
 * every reduction sees exactly the n real tokens, which is what §0's padding rules require):
 * the host gathers the embedding rows and builds the small integer structures, uploads them,
 * and the graph calls ops on backend buffers. The backend never sees a config; the graph never
 * dereferences a backend buffer.
 *
 * Shapes in comments: n = tokens of the sentence, d = d_model, H heads, dk = d/H. */
#include "encoder/encoder_int.h"

#include <math.h>
#include <string.h>

/* ---- layout ---- */

static struct enc_lin lin(struct enc *e, const char *pfx, const char *nm, int rows, int cols, int bias)
{
    char b[96];
    struct enc_lin l;
    snprintf(b, sizeof b, "%s.%s.weight", pfx, nm);
    l.w = enc_param_add(e, b, rows, cols, ENC_INIT_GLOROT);
    l.b = -1;
    if (bias) { snprintf(b, sizeof b, "%s.%s.bias", pfx, nm); l.b = enc_param_add(e, b, cols, 0, ENC_INIT_ZERO); }
    return l;
}

static struct enc_ln lnorm(struct enc *e, const char *pfx, const char *nm, int d)
{
    char b[96];
    struct enc_ln l;
    snprintf(b, sizeof b, "%s.%s.weight", pfx, nm);
    l.g = enc_param_add(e, b, d, 0, ENC_INIT_ONE);
    snprintf(b, sizeof b, "%s.%s.bias", pfx, nm);
    l.b = enc_param_add(e, b, d, 0, ENC_INIT_ZERO);
    return l;
}

static void san_layer(struct enc *e, struct enc_san_layer *L, const char *pfx, int selective)
{
    const struct enc_config *c = &e->cfg;
    int d = c->d_model, dk = d / c->heads;
    char b[96];
    L->q = lin(e, pfx, "attn.q", d, d, 1);
    L->k = lin(e, pfx, "attn.k", d, d, 1);
    L->v = lin(e, pfx, "attn.v", d, d, 1);
    L->o = lin(e, pfx, "attn.o", d, d, 1);
    L->sel = (struct enc_lin){ -1, -1 };
    if (selective) L->sel = lin(e, pfx, "attn.sel", d, 2 * d, 1);
    L->rel_k = L->rel_v = L->seq_k = L->seq_v = -1;
    if (c->rel_struct) {
        snprintf(b, sizeof b, "%s.attn.rel_k_struct", pfx); L->rel_k = enc_param_add(e, b, 2 * c->rel_clip + 1, dk, ENC_INIT_GLOROT);
        snprintf(b, sizeof b, "%s.attn.rel_v_struct", pfx); L->rel_v = enc_param_add(e, b, 2 * c->rel_clip + 1, dk, ENC_INIT_GLOROT);
    }
    if (c->rel_seq) {
        snprintf(b, sizeof b, "%s.attn.rel_k_seq", pfx); L->seq_k = enc_param_add(e, b, 2 * c->rel_seq_clip + 1, dk, ENC_INIT_GLOROT);
        snprintf(b, sizeof b, "%s.attn.rel_v_seq", pfx); L->seq_v = enc_param_add(e, b, 2 * c->rel_seq_clip + 1, dk, ENC_INIT_GLOROT);
    }
    L->ln1 = lnorm(e, pfx, "ln1", d);
    L->ff1 = lin(e, pfx, "ffn.w1", d, c->d_ff, 1);
    L->ff2 = lin(e, pfx, "ffn.w2", c->d_ff, d, 1);
    L->ln2 = lnorm(e, pfx, "ln2", d);
}

void enc_model_build(struct enc *e)
{
    const struct enc_config *c = &e->cfg;
    const int d = c->d_model;
    char p[64];
    e->in_proj = e->pos_fuse = e->pool1 = e->pool2 = (struct enc_lin){ -1, -1 };
    e->final_ln = (struct enc_ln){ -1, -1 };
    e->agg_w = e->agg_gamma = -1;
    if (c->d_input != d) e->in_proj = lin(e, "input", "proj", c->d_input, d, 1);
    switch (c->kind) {
    case ENC_SAN: case ENC_SSAN: case ENC_SGNET:
        if (c->position == ENC_POS_SEQ_STRUCT && c->f_abs == ENC_FABS_TANH) e->pos_fuse = lin(e, "pos", "fuse", 2 * d, d, 1);
        for (int l = 0; l < c->layers; l++) {
            snprintf(p, sizeof p, "layers.%d", l);
            san_layer(e, &e->layer[l], p, c->kind == ENC_SSAN && c->selective[l]);
        }
        if (c->norm == ENC_PRE_LN) e->final_ln = lnorm(e, "final", "ln", d);
        if (c->kind == ENC_SGNET) {
            san_layer(e, &e->sdoi, "sdoi", 0);
            if (c->sgnet_code_agg) {
                e->agg_w = enc_param_add(e, "sdoi.agg.w", 2, 0, ENC_INIT_HALF);
                e->agg_gamma = enc_param_add(e, "sdoi.agg.gamma", 1, 0, ENC_INIT_ONE);
            }
        }
        break;
    case ENC_MSSAN:
        for (int l = 0; l < c->layers; l++) {
            struct enc_san_layer *L = &e->layer[l];
            memset(L, 0xff, sizeof *L);                 /* every index -1 unless set */
            snprintf(p, sizeof p, "layers.%d", l);
            L->q = lin(e, p, "attn.q", d, d, 0);        /* Eq. 2: no biases */
            L->k = lin(e, p, "attn.k", d, d, 0);
            L->v = lin(e, p, "attn.v", d, d, 0);
            L->o = lin(e, p, "attn.o", d, d, 0);
            L->gi = lin(e, p, "gate.in", d, d, 0);      /* Î = I W_I */
            L->go = lin(e, p, "gate.out", d, d, 0);     /* Ô = O W_O */
            L->g1 = lin(e, p, "gate.w1", d, d, 1);      /* f = σ(Î W_1 + Ô W_2 + b) */
            L->g2 = lin(e, p, "gate.w2", d, d, 0);
            L->ff1 = lin(e, p, "ffn.w1", d, c->d_ff, 1);
            L->ff2 = lin(e, p, "ffn.w2", c->d_ff, d, 1);
            L->ln1 = lnorm(e, p, "ln", d);
        }
        e->pool1 = lin(e, "pool", "w1", d, c->pool_d_h, 1);
        e->pool2 = lin(e, "pool", "w2", c->pool_d_h, d, 1);
        break;
    case ENC_PSAN:
        for (int t = 1; t <= c->levels; t++) {
            struct enc_psa_level *P = &e->psa[t - 1];
            snprintf(p, sizeof p, "psa.%d", t);
            P->a1 = lin(e, p, "a1", d, d, 0);
            P->a2 = lin(e, p, "a2", d, d, 0);
            char b[96];
            snprintf(b, sizeof b, "%s.a.bias", p);
            P->a2.b = enc_param_add(e, b, d, 0, ENC_INIT_ZERO);
            P->c = lin(e, p, "c", 2 * d, d, 1);
        }
        e->mem_g = lin(e, "mem", "g", 2 * d, d, 1);
        e->mem_m = lin(e, "mem", "m", 2 * d, d, 1);
        e->sum1 = lin(e, "sum", "e1", d, d, 1);
        e->sum2 = lin(e, "sum", "e2", d, d, 1);
        break;
    }
}

/* ---- workspace ---- */

struct ws {
    float *x, *y, *q, *k, *v, *att, *t1, *t2, *z, *sel, *pe1, *pe2, *hb, *amap, *vec;
    int32_t *dist, *rel, *pid;
    uint8_t *anc;
};

static void ws_free(struct enc *e)
{
    struct ws *w = e->ws;
    if (!w) return;
    void *ptrs[] = { w->x, w->y, w->q, w->k, w->v, w->att, w->t1, w->t2, w->z, w->sel, w->pe1, w->pe2,
                     w->hb, w->amap, w->vec, w->dist, w->rel, w->pid, w->anc };
    for (size_t i = 0; i < sizeof ptrs / sizeof ptrs[0]; i++) if (ptrs[i]) e->be.ops->free(&e->be, ptrs[i]);
    free(w);
    e->ws = NULL;
    e->cap_n = 0;
}

static int ws_reserve(struct enc *e, int n, char *err, size_t errlen)
{
    if (n <= e->cap_n) return SP_OK;
    ws_free(e);
    const struct enc_config *c = &e->cfg;
    size_t d = (size_t)c->d_model, nn = (size_t)n;
    size_t wide = (size_t)c->d_ff;
    if ((size_t)c->pool_d_h > wide) wide = (size_t)c->pool_d_h;
    if (2 * d > wide) wide = 2 * d;
    if ((size_t)c->d_input > wide) wide = (size_t)c->d_input;
    struct ws *w = sp_xcalloc(1, sizeof *w);
    e->ws = w;
    int fail = 0;
#define A(ptr, bytes) do { ptr = e->be.ops->alloc(&e->be, (bytes)); if (!ptr) fail = 1; } while (0)
    A(w->x, nn * d * 4); A(w->y, nn * d * 4); A(w->q, nn * d * 4); A(w->k, nn * d * 4); A(w->v, nn * d * 4);
    A(w->att, nn * d * 4); A(w->t1, nn * wide * 4); A(w->t2, nn * d * 4); A(w->z, nn * d * 4);
    A(w->sel, nn * 2 * d * 4); A(w->pe1, nn * d * 4); A(w->pe2, nn * d * 4); A(w->hb, nn * d * 4);
    A(w->amap, nn * nn * 4); A(w->vec, 2 * d * 4);
    A(w->dist, nn * nn * 4); A(w->rel, nn * nn * 4); A(w->pid, nn * 4); A(w->anc, nn * nn);
#undef A
    if (fail) { ws_free(e); snprintf(err, errlen, "encoder: cannot allocate workspace for %d tokens on %s", n, e->be.ops->name); return SP_ENOMEM; }
    e->cap_n = n;
    return SP_OK;
}

/* ---- graph pieces ---- */

#define OPS (e->be.ops)
#define BE (&e->be)

/* Y[n, cols(W)] = X W + b for a registered linear */
static void linear(struct enc *e, int n, const float *X, int ldx, struct enc_lin L, float *Y)
{
    const struct enc_param *W = &e->param[L.w];
    OPS->linear(BE, n, W->shape[0], W->shape[1], X, ldx, W->dev, W->shape[1], enc_w(e, L.b), Y, W->shape[1], 0);
}

/* Y = [A; B] W + b with W: [2d, d] split into its top and bottom halves (no concat buffer) */
static void linear_cat(struct enc *e, int n, const float *A, const float *B, struct enc_lin L, float *Y)
{
    const struct enc_param *W = &e->param[L.w];
    int d = W->shape[1], dh = W->shape[0] / 2;
    OPS->linear(BE, n, dh, d, A, dh, W->dev, d, enc_w(e, L.b), Y, d, 0);
    OPS->linear(BE, n, dh, d, B, dh, W->dev + (size_t)dh * d, d, NULL, Y, d, 1);
}

static void layer_norm(struct enc *e, int n, const float *x, struct enc_ln L, float *out)
{
    OPS->layer_norm(BE, n, e->cfg.d_model, x, enc_w(e, L.g), enc_w(e, L.b), e->cfg.ln_eps, out);
}

/* per-sentence structures on the backend */
struct sent_dev { const int32_t *dist, *rel; const uint8_t *anc; };

/* One SAN layer (§5.1) in place on w->x. allow = SDOI mask for SG-Net's layer. */
static void san_forward(struct enc *e, const struct enc_san_layer *L, int n, int post, enum enc_act act,
                        float eps, const uint8_t *allow, const struct sent_dev *sd, float *amap)
{
    struct ws *w = e->ws;
    const struct enc_config *c = &e->cfg;
    const int d = c->d_model, H = c->heads, dk = d / H;
    const size_t nd = (size_t)n * d;
    const float *src = w->x;
    if (!post) {                                            /* pre-LN: Z = LN1(X) */
        OPS->layer_norm(BE, n, d, w->x, enc_w(e, L->ln1.g), enc_w(e, L->ln1.b), eps, w->z);
        src = w->z;
    }
    linear(e, n, src, d, L->q, w->q);                       /* [n, d] each */
    linear(e, n, src, d, L->k, w->k);
    linear(e, n, src, d, L->v, w->v);
    struct enc_attn_args a;
    memset(&a, 0, sizeof a);
    a.n = n; a.H = H; a.dk = dk; a.q = w->q; a.k = w->k; a.v = w->v; a.ld_qkv = d;
    a.out = w->att; a.scale = 1.0f / sqrtf((float)dk); a.allow = allow; a.attn_mean = amap;
    if (L->sel.w >= 0) {                                    /* SSAN selector on the same input */
        linear(e, n, src, d, L->sel, w->sel);               /* [n, 2d] = [Q_s | K_s] */
        a.sel_q = w->sel; a.sel_k = w->sel + d; a.ld_sel = 2 * d;
    }
    if (L->rel_k >= 0) { a.rel = sd->rel; a.rel_clip = c->rel_clip; a.rel_k = enc_w(e, L->rel_k); a.rel_v = enc_w(e, L->rel_v); }
    if (L->seq_k >= 0) { a.seq_clip = c->rel_seq_clip; a.seq_k = enc_w(e, L->seq_k); a.seq_v = enc_w(e, L->seq_v); }
    OPS->attention(BE, &a);
    linear(e, n, w->att, d, L->o, w->t2);                   /* MHA output [n, d] */
    const struct enc_param *F1 = &e->param[L->ff1.w];
    const int dff = F1->shape[1];
    if (post) {
        OPS->add(BE, nd, w->x, w->t2, w->t2);
        OPS->layer_norm(BE, n, d, w->t2, enc_w(e, L->ln1.g), enc_w(e, L->ln1.b), eps, w->x);   /* X1 */
        linear(e, n, w->x, d, L->ff1, w->t1);
        OPS->act(BE, act, (size_t)n * dff, w->t1);
        linear(e, n, w->t1, dff, L->ff2, w->t2);
        OPS->add(BE, nd, w->x, w->t2, w->t2);
        OPS->layer_norm(BE, n, d, w->t2, enc_w(e, L->ln2.g), enc_w(e, L->ln2.b), eps, w->x);
    } else {
        OPS->add(BE, nd, w->x, w->t2, w->x);                /* X1 = X + MHA(LN(X)) */
        OPS->layer_norm(BE, n, d, w->x, enc_w(e, L->ln2.g), enc_w(e, L->ln2.b), eps, w->z);
        linear(e, n, w->z, d, L->ff1, w->t1);
        OPS->act(BE, act, (size_t)n * dff, w->t1);
        linear(e, n, w->t1, dff, L->ff2, w->t2);
        OPS->add(BE, nd, w->x, w->t2, w->x);
    }
}

/* MS-SAN layer (§5.2) in place on w->x */
static void mssan_forward(struct enc *e, const struct enc_san_layer *L, int n, const struct sent_dev *sd, float *amap)
{
    struct ws *w = e->ws;
    const struct enc_config *c = &e->cfg;
    const int d = c->d_model, H = c->heads, h = H / 2, dk = d / H;
    const size_t nd = (size_t)n * d;
    linear(e, n, w->x, d, L->q, w->q);
    linear(e, n, w->x, d, L->k, w->k);
    linear(e, n, w->x, d, L->v, w->v);
    struct enc_attn_args a;
    memset(&a, 0, sizeof a);
    a.n = n; a.H = H; a.dk = dk; a.q = w->q; a.k = w->k; a.v = w->v; a.ld_qkv = d;
    a.out = w->att; a.scale = 1.0f / sqrtf((float)dk); a.alpha = c->alpha; a.dist = sd->dist; a.attn_mean = amap;
    for (int m = 0; m < H; m++) {                           /* heads 0..h-1 forward, h..2h-1 backward (Q1) */
        int fwd = m < h;
        a.dir[m] = (int8_t)(c->strict_direction ? (fwd ? ENC_DIR_FWD_STRICT : ENC_DIR_BWD_STRICT) : (fwd ? ENC_DIR_FWD : ENC_DIR_BWD));
        a.dis[m] = (int8_t)c->dist[m % h];
    }
    OPS->attention(BE, &a);
    linear(e, n, w->att, d, L->o, w->t2);                   /* O = MM-MH(I) */
    linear(e, n, w->x, d, L->gi, w->q);                     /* Î */
    linear(e, n, w->t2, d, L->go, w->k);                    /* Ô */
    linear(e, n, w->q, d, L->g1, w->v);                     /* Î W_1 + b */
    const struct enc_param *G2 = &e->param[L->g2.w];
    OPS->linear(BE, n, d, d, w->k, d, G2->dev, d, NULL, w->v, d, 1);   /* + Ô W_2 */
    OPS->gate(BE, ENC_GATE_FUSION, nd, w->v, w->q, w->k, w->z);        /* G */
    const int dff = c->d_ff;
    linear(e, n, w->z, d, L->ff1, w->t1);
    OPS->act(BE, c->activation, (size_t)n * dff, w->t1);
    linear(e, n, w->t1, dff, L->ff2, w->t2);
    OPS->add(BE, nd, w->z, w->t2, w->t2);
    layer_norm(e, n, w->t2, L->ln1, w->x);                  /* U = LN(G + FFN(G)) */
}

/* PSAN (§5.4): memory steps on w->x, summary into vec */
static void psan_forward(struct enc *e, int n, const int32_t *pid_host, int attn_step, float *amap, float *vec)
{
    struct ws *w = e->ws;
    const struct enc_config *c = &e->cfg;
    const int d = c->d_model, T = c->levels;
    const size_t nd = (size_t)n * d;
    for (int s = 1; s <= T; s++) {
        int t = c->psan_coarse_first ? s : T - s + 1;       /* Q16: fine -> coarse by default */
        const struct enc_psa_level *P = &e->psa[t - 1];
        OPS->upload(BE, w->pid, pid_host + (size_t)(t - 1) * n, (size_t)n * 4);
        linear(e, n, w->x, d, P->a1, w->q);                 /* Pm W^{a1} */
        linear(e, n, w->x, d, P->a2, w->k);                 /* Pm W^{a2} + b^a */
        struct enc_psa_args pa = { n, d, w->q, w->k, w->x, w->pid, w->v, s - 1 == attn_step ? amap : NULL };
        OPS->psa(BE, &pa);                                  /* p̃ */
        OPS->absdiff_mul(BE, nd, w->x, w->v, w->att, w->z);
        linear_cat(e, n, w->att, w->z, P->c, w->t2);
        OPS->act(BE, ENC_ACT_ELU, nd, w->t2);               /* C */
        linear_cat(e, n, w->x, w->t2, e->mem_g, w->q);      /* gate pre-activation */
        linear_cat(e, n, w->x, w->t2, e->mem_m, w->k);
        OPS->gate(BE, ENC_GATE_PSAN, nd, w->q, w->k, c->psan_highway_carry ? w->x : NULL, w->y);
        float *tmp = w->x; w->x = w->y; w->y = tmp;
    }
    linear(e, n, w->x, d, e->sum1, w->t1);
    OPS->act(BE, ENC_ACT_ELU, nd, w->t1);
    linear(e, n, w->t1, d, e->sum2, w->t2);
    OPS->pool(BE, ENC_POOL_ATT, n, d, w->x, w->t2, vec);
}

/* ---- public ---- */

unsigned enc_needs(const enc_t *e)
{
    const struct enc_config *c = &e->cfg;
    unsigned m = 0;
    if (c->kind == ENC_SAN || c->kind == ENC_SSAN || c->kind == ENC_SGNET) {
        if (c->position == ENC_POS_STRUCT || c->position == ENC_POS_SEQ_STRUCT) m |= ENC_NEED_DEPTH;
        if (c->rel_struct) m |= ENC_NEED_REL;
        if (c->kind == ENC_SGNET) m |= ENC_NEED_ANC;
    }
    if (c->kind == ENC_MSSAN)
        for (int r = 0; r < c->heads / 2; r++) if (c->dist[r] == ENC_DIST_DEP) m |= ENC_NEED_DIST;
    if (c->kind == ENC_PSAN) m |= ENC_NEED_PID;
    return m;
}

int enc_dim(const enc_t *e) { return e->cfg.kind == ENC_MSSAN ? 2 * e->cfg.d_model : e->cfg.d_model; }
int enc_tok_dim(const enc_t *e) { return e->cfg.d_model; }
int enc_attn_layers(const enc_t *e)
{
    switch (e->cfg.kind) {
    case ENC_SGNET: return e->cfg.layers + 1;
    case ENC_PSAN: return e->cfg.levels;
    default: return e->cfg.layers;
    }
}
const char *enc_backend_name(const enc_t *e) { return e->be.ops->name; }
const struct enc_config *enc_get_config(const enc_t *e) { return &e->cfg; }

static int backend_open(struct enc *e, const struct enc_backend_ops *ops, char *err, size_t errlen)
{
    memset(&e->be, 0, sizeof e->be);
    e->be.ops = ops;
    return ops->open(&e->be, err, errlen);
}

int enc_open(const struct enc_config *cfg, enum enc_device device, const char *weights_path,
             int verbose, enc_t **out, char *err, size_t errlen)
{
    *out = NULL;
    int rc = enc_config_check(cfg, "config", err, errlen);
    if (rc) return rc;
    struct enc *e = sp_xcalloc(1, sizeof *e);
    e->cfg = *cfg;
    const struct enc_backend_ops *cuda = &enc_cuda_ops;     /* NULL unless enc_cuda.cu is linked */
    rc = -1;
    if (device == ENC_DEVICE_CUDA || device == ENC_DEVICE_AUTO) {
        char why[SP_ERRLEN] = "this build has no CUDA backend";
        if (cuda) rc = backend_open(e, cuda, why, sizeof why);
        if (rc != SP_OK && device == ENC_DEVICE_CUDA) {
            snprintf(err, errlen, "encoder: device cuda requested: %s", why);
            free(e);
            return SP_EGPU;
        }
        if (rc != SP_OK && verbose) fprintf(stderr, "encoder: using the CPU backend (%s)\n", why);
    }
    if (rc != SP_OK && (rc = backend_open(e, &enc_cpu_ops, err, errlen)) != SP_OK) { free(e); return rc; }
    if (verbose) fprintf(stderr, "encoder: %s on %s\n", enc_kind_name(cfg->kind), e->be.ops->name);
    enc_model_build(e);
    enc_param_alloc_init(e);
    rc = enc_param_upload(e, err, errlen);
    if (rc == SP_OK && weights_path) rc = enc_load_weights(e, weights_path, err, errlen);
    if (rc != SP_OK) { enc_close(e); return rc; }
    *out = e;
    return SP_OK;
}

void enc_close(enc_t *e)
{
    if (!e) return;
    ws_free(e);
    if (!e->be.host_memory)
        for (int i = 0; i < e->n_param; i++) if (e->param[i].dev) e->be.ops->free(&e->be, e->param[i].dev);
    if (e->be.ops) e->be.ops->close(&e->be);
    free(e->param);
    free(e->host_block);
    free(e);
}

/* validate one sentence against what the kind needs */
static int check_sentence(const struct enc *e, const struct enc_batch *in, int b, char *err, size_t errlen)
{
    const struct enc_sentence *s = &in->sent[b];
    unsigned need = enc_needs(e);
    if (s->n <= 0) { snprintf(err, errlen, "encoder: sentence %d: no tokens", b); return SP_EUSAGE; }
    if (!s->emb && !s->ids) { snprintf(err, errlen, "encoder: sentence %d: neither embedding rows nor token ids", b); return SP_EUSAGE; }
    if (!s->emb) {
        if (!in->table) { snprintf(err, errlen, "encoder: sentence %d: token ids given but the batch has no embedding table", b); return SP_EUSAGE; }
        for (int i = 0; i < s->n; i++)
            if (s->ids[i] < 0 || s->ids[i] >= in->table_rows) { snprintf(err, errlen, "encoder: sentence %d: token %d: id %d outside the table (%d rows)", b, i, s->ids[i], in->table_rows); return SP_EUSAGE; }
    }
    const char *miss = (need & ENC_NEED_DEPTH) && !s->depth ? "depth" : (need & ENC_NEED_DIST) && !s->dist ? "dist (tree distance)"
                     : (need & ENC_NEED_ANC) && !s->anc ? "anc (SDOI mask)" : (need & ENC_NEED_REL) && !s->rel ? "rel (relative structural positions)"
                     : (need & ENC_NEED_PID) && !s->pid ? "pid (phrase ids; no constituency tree?)" : NULL;
    if (miss) { snprintf(err, errlen, "encoder: sentence %d: kind %s needs %s", b, enc_kind_name(e->cfg.kind), miss); return SP_EUSAGE; }
    if (need & ENC_NEED_PID) {
        if (s->n_levels < e->cfg.levels) { snprintf(err, errlen, "encoder: sentence %d: %d phrase levels, need %d", b, s->n_levels, e->cfg.levels); return SP_EUSAGE; }
        for (int t = 0; t < e->cfg.levels; t++) {
            const int32_t *p = s->pid + (size_t)t * s->n;
            for (int i = 0; i < s->n; i++)
                if (i == 0 ? p[0] != 0 : (p[i] != p[i - 1] && p[i] != p[i - 1] + 1)) {
                    snprintf(err, errlen, "encoder: sentence %d: level %d: phrase ids must be contiguous 0,1,2.. (word %d has %d)", b, t + 1, i, p[i]);
                    return SP_EUSAGE;
                }
        }
    }
    return SP_OK;
}

int enc_forward(enc_t *e, const struct enc_batch *in, struct enc_output *out, char *err, size_t errlen)
{
    const struct enc_config *c = &e->cfg;
    const int d = c->d_model, din = c->d_input, dim = enc_dim(e);
    int maxn = 0;
    for (int b = 0; b < in->n_sent; b++) {
        int rc = check_sentence(e, in, b, err, errlen);
        if (rc) return rc;
        if (in->sent[b].n > maxn) maxn = in->sent[b].n;
    }
    int al = out->attn_layer < 0 ? enc_attn_layers(e) - 1 : out->attn_layer;
    if (out->attn && al >= enc_attn_layers(e)) {
        snprintf(err, errlen, "encoder: attn_layer %d: expected -1 or 0..%d", out->attn_layer, enc_attn_layers(e) - 1);
        return SP_EUSAGE;
    }
    int rc = ws_reserve(e, maxn, err, errlen);
    if (rc) return rc;
    struct ws *w = e->ws;
    float *hx = sp_xmalloc(sizeof(float) * (size_t)maxn * (din > d ? din : d));
    float *hp = sp_xmalloc(sizeof(float) * (size_t)maxn * d);
    float agg[3] = { 0 };
    if (c->kind == ENC_SGNET && c->sgnet_code_agg) {        /* γ·softmax(w) as two scalars */
        OPS->download(BE, agg, enc_w(e, e->agg_w), 2 * sizeof(float));
        OPS->download(BE, agg + 2, enc_w(e, e->agg_gamma), sizeof(float));
        double m = agg[0] > agg[1] ? agg[0] : agg[1], e0 = exp(agg[0] - m), e1 = exp(agg[1] - m);
        agg[0] = (float)(agg[2] * e0 / (e0 + e1));
        agg[1] = (float)(agg[2] * e1 / (e0 + e1));
    } else if (c->kind == ENC_SGNET) {
        agg[0] = c->sgnet_alpha; agg[1] = 1.0f - c->sgnet_alpha;
    }
    for (int b = 0; b < in->n_sent && rc == SP_OK; b++) {
        const struct enc_sentence *s = &in->sent[b];
        const int n = s->n;
        const size_t nd = (size_t)n * d;
        float *amap = out->attn ? w->amap : NULL;
        /* input rows */
        for (int i = 0; i < n; i++)
            memcpy(hx + (size_t)i * din, s->emb ? s->emb + (size_t)i * din : in->table + (size_t)s->ids[i] * din, sizeof(float) * din);
        if (e->in_proj.w >= 0) {
            OPS->upload(BE, w->t1, hx, sizeof(float) * (size_t)n * din);
            linear(e, n, w->t1, din, e->in_proj, w->x);
        } else {
            OPS->upload(BE, w->x, hx, sizeof(float) * nd);
        }
        struct sent_dev sd = { NULL, NULL, NULL };
        if (s->dist && (enc_needs(e) & ENC_NEED_DIST)) { OPS->upload(BE, w->dist, s->dist, sizeof(int32_t) * (size_t)n * n); sd.dist = w->dist; }
        if (s->rel && (enc_needs(e) & ENC_NEED_REL)) { OPS->upload(BE, w->rel, s->rel, sizeof(int32_t) * (size_t)n * n); sd.rel = w->rel; }
        if (s->anc && (enc_needs(e) & ENC_NEED_ANC)) { OPS->upload(BE, w->anc, s->anc, (size_t)n * n); sd.anc = w->anc; }
        switch (c->kind) {
        case ENC_SAN: case ENC_SSAN: case ENC_SGNET: {
            if (c->emb_scale) OPS->axpby(BE, nd, sqrtf((float)d), w->x, 0.0f, w->x, w->x);
            if (c->position != ENC_POS_NONE) {                 /* §5.6 absolute */
                int seq = c->position == ENC_POS_SEQ || c->position == ENC_POS_SEQ_STRUCT;
                int str = c->position == ENC_POS_STRUCT || c->position == ENC_POS_SEQ_STRUCT;
                if (seq) { for (int i = 0; i < n; i++) enc_sinusoid(i, d, hp + (size_t)i * d); OPS->upload(BE, w->pe1, hp, sizeof(float) * nd); }
                if (str) { for (int i = 0; i < n; i++) enc_sinusoid(s->depth[i], d, hp + (size_t)i * d); OPS->upload(BE, w->pe2, hp, sizeof(float) * nd); }
                if (seq && str && c->f_abs == ENC_FABS_TANH) {
                    linear_cat(e, n, w->pe1, w->pe2, e->pos_fuse, w->t2);
                    OPS->act(BE, ENC_ACT_TANH, nd, w->t2);
                    OPS->add(BE, nd, w->x, w->t2, w->x);
                } else {
                    if (seq) OPS->add(BE, nd, w->x, w->pe1, w->x);
                    if (str) OPS->add(BE, nd, w->x, w->pe2, w->x);
                }
            }
            int post = c->norm == ENC_POST_LN;
            for (int l = 0; l < c->layers; l++)
                san_forward(e, &e->layer[l], n, post, c->activation, c->ln_eps, NULL, &sd, l == al ? amap : NULL);
            if (!post) { layer_norm(e, n, w->x, e->final_ln, w->y); float *t = w->x; w->x = w->y; w->y = t; }
            if (c->kind == ENC_SGNET) {
                OPS->axpby(BE, nd, 1.0f, w->x, 0.0f, w->x, w->hb);   /* H */
                san_forward(e, &e->sdoi, n, 1, c->activation, c->ln_eps, sd.anc, &sd, al == c->layers ? amap : NULL);
                OPS->axpby(BE, nd, agg[0], w->hb, agg[1], w->x, w->x); /* H̄ = α H + (1-α) H' */
            }
            OPS->pool(BE, c->pooling, n, d, w->x, NULL, w->vec);
            break;
        }
        case ENC_MSSAN:
            for (int l = 0; l < c->layers; l++) mssan_forward(e, &e->layer[l], n, &sd, l == al ? amap : NULL);
            linear(e, n, w->x, d, e->pool1, w->t1);             /* E = FFN_p(U) */
            OPS->act(BE, c->activation, (size_t)n * c->pool_d_h, w->t1);
            linear(e, n, w->t1, c->pool_d_h, e->pool2, w->t2);
            OPS->pool(BE, ENC_POOL_ATT, n, d, w->x, w->t2, w->vec);
            OPS->pool(BE, ENC_POOL_MAX, n, d, w->x, NULL, w->vec + d);
            break;
        case ENC_PSAN:
            psan_forward(e, n, s->pid, al, amap, w->vec);
            break;
        }
        OPS->download(BE, out->sent + (size_t)b * dim, w->vec, sizeof(float) * dim);
        if (out->tok && out->tok[b]) OPS->download(BE, out->tok[b], w->x, sizeof(float) * nd);
        if (out->attn && out->attn[b]) OPS->download(BE, out->attn[b], w->amap, sizeof(float) * (size_t)n * n);
        rc = OPS->sync(BE, err, errlen);
    }
    free(hx); free(hp);
    return rc;
}
