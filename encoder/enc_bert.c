/* encoder/enc_bert.c — kind "bert": a Hugging Face BertModel (docs/spec/models.md M3) run for inference,
 * and the piece -> word -> sentence pooling and word-level attention of M2.
 *
 * How it works: the model's tensors go into the same parameter registry as the other kinds
 * (enc_weights.c), under their HF names; linear weights, stored [out, in] by HF, are transposed
 * into the registry's [in, out] layout when loaded, so the graph calls ops->linear exactly like
 * enc_san.c does. The forward packs every sentence of a batch row-wise into one matrix for the
 * products; attention runs per sentence, so no sentence ever sees another's pieces (the padding
 * mask of M3.4 without padding). Embedding rows are gathered and summed on the host in HF order
 * ((word + token type) + position), uploaded, then normalised on the backend.
 * The query, key and value products of a layer are one product with a fused [d, 3d] weight
 * (each output element is the same FMA chain either way, common/gemm.h).
 * Attention maps: the all-heads attention op gives the context; when maps are asked for, each
 * head is run once more on its own (H = 1), whose head mean is that head's P_h.
 *
 * Determinism: the CPU backend's products are row-local (common/gemm.h) and the other ops
 * row- or sentence-local, so a sentence's vectors are the same bytes alone or in any batch.
 *
 * DeBERTa-v2's disentangled attention: its position keys and queries are computed at open
 * (rp_tables) and the attention op adds q_i·k^P[c2p(i − j)] + k_j·q^P[p2c(i − j)] to each score.
 *
 * Not done: hidden_act other than "gelu"/"gelu_new", DeBERTa's ConvLayer,
 * a workspace cap (enc_set_workspace_limit applies to the other kinds only). */
#include "encoder/encoder_int.h"
#include "encoder/enc_formulas.h"   /* enc_f_t5_bucket, enc_f_rp_c2p */
#include "encoder/tokenizer.h"

#include <jansson.h>
#include <libgen.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>

struct bert_layer {
    struct enc_lin q, k, v, o, ff1, ff2;
    struct enc_ln ln1, ln2;
    float *wqkv, *bqkv;        /* backend: [d, 3d] = [W_qᵀ | W_kᵀ | W_vᵀ] and [3d], one product; with
                                * ops->pack_weight wqkv is only the key of the packed weight */
    int shared;                /* ALBERT: an earlier layer's tensors, wqkv and bqkv (that layer owns them) */
    struct enc_lin pk, pq;     /* DeBERTa (share_att_key false): pos_key_proj, pos_query_proj (w -1: none) */
    float *rpk, *rpq;          /* DeBERTa: backend [2·att_span, d] the relative positions' keys (c2p) and
                                * queries (p2c) of this layer, or NULL (rp_tables) */
};

/* MPNet's buckets (MPNetEncoder.compute_position_bias): 32 of them, logarithmic up to distance 128,
 * constant beyond: the bias table by offset needs the offsets -128..128 only */
#define ENC_REL_NBUCKETS 32
#define ENC_REL_MAXD 128

struct enc_bert {
    struct enc e;              /* registry + backend (e.cfg is unused) */
    struct enc_bert_config c;
    const struct enc_hf_arch *arch;   /* the family's names and variations (enc_hf.c) */
    struct enc_sft sft;        /* the weights file(s), mapped: the view parameters point into it */
    float *erow;               /* host: [3, embedding_size] embedding rows widened from the file's dtype */
    char *dir;
    int word, pos, type;       /* embedding tables (param indices; type -1: the family has none) */
    struct enc_ln emb_ln;
    struct enc_lin proj;       /* ELECTRA's embeddings_project, ALBERT's embedding_hidden_mapping_in (w -1: none) */
    int rel;                   /* MPNet's relative attention bias [rel_buckets, heads] (param index; -1: none) */
    float *pbias;              /* (rel) backend: [2·ENC_REL_MAXD + 1, heads] its rows by offset j − i */
    int rel_emb;               /* DeBERTa: rel_embeddings [2·att_span, d] (param index; -1: none) */
    struct enc_ln rel_ln;      /* DeBERTa: encoder.LayerNorm on it (norm_rel_ebd "layer_norm"; g -1: none) */
    int32_t *rpidx;            /* DeBERTa: backend [2·rp_max + 1][2] c2p and p2c rows by offset i − j */
    int rp_max;
    float *ztype;              /* a family without token types (or positions): one zero row [embedding_size] (backend; host) */
    float *hztype;
    struct bert_layer *layer;  /* [c.layers] */
    /* workspace (backend buffers), grown only */
    size_t cap_rows, cap_nn;
    int cap_dh;
    float *x, *y, *qkv, *ctx, *t, *z, *ho, *amap;   /* qkv: [rows, 3d] */
    float *hE;                 /* host: embedding sums (or, with ops->embed_sum, idx's staging) */
    int32_t *idx;              /* backend (ops->embed_sum): [cap_rows, 3] word id, token type, position */
    void **pdst;               /* [cap_args·heads] download_pieces' destinations and sizes */
    size_t *pbytes;
    struct enc_attn_args *args;/* [cap_args] one per sentence of a batch */
    int cap_args;
    struct enc_attn_args *hargs;/* [cap_hargs] one per sentence and head (per-head maps) */
    int cap_hargs;
};

/* config.json (M3.1) is read by enc_hf.c (enc_hf_config_read): the family's row of its table. */

/* ---- the tensor map (M3.2) ---- */

static int add(struct enc_bert *b, const char *name, int rows, int cols, int transposed)
{
    int i = enc_param_add(&b->e, name, rows, cols, ENC_INIT_ZERO);
    b->e.param[i].transposed = (uint8_t)transposed;   /* stored [out, in] in the file */
    return i;
}

/* a Linear "pfx.weight" [out, in] (+ "pfx.bias" [out] unless no_bias), held as [in, out] */
static struct enc_lin add_lin_b(struct enc_bert *b, const char *pfx, int in, int out, int no_bias)
{
    char nm[128];
    struct enc_lin L;
    snprintf(nm, sizeof nm, "%s.weight", pfx);
    L.w = add(b, nm, in, out, 1);
    b->e.param[L.w].view = 1;          /* kept in the file's dtype until the GEMM packs it */
    snprintf(nm, sizeof nm, "%s.bias", pfx);
    L.b = no_bias ? -1 : add(b, nm, out, 0, 0);
    return L;
}

static struct enc_lin add_lin(struct enc_bert *b, const char *pfx, int in, int out) { return add_lin_b(b, pfx, in, out, 0); }

static struct enc_ln add_ln(struct enc_bert *b, const char *pfx, int d)
{
    char nm[128];
    struct enc_ln L;
    snprintf(nm, sizeof nm, "%s.weight", pfx);
    L.g = add(b, nm, d, 0, 0);
    snprintf(nm, sizeof nm, "%s.bias", pfx);
    L.b = add(b, nm, d, 0, 0);
    return L;
}

static void build(struct enc_bert *b)
{
    const struct enc_bert_config *c = &b->c;
    const struct enc_hf_arch *a = b->arch;
    const int d = c->hidden_size, F = c->intermediate_size, E = c->embedding_size;
    b->word = add(b, a->emb_word, c->vocab_size, E, 0);
    b->pos = c->no_pos_input ? -1 : add(b, a->emb_pos, c->max_positions, E, 0);   /* DeBERTa-v3: none */
    b->type = a->emb_type && (a->k_types || c->type_vocab_size > 0) ? add(b, a->emb_type, c->type_vocab_size, E, 0) : -1;
    b->e.param[b->word].view = 1;      /* rows widened when gathered */
    if (b->pos >= 0) b->e.param[b->pos].view = 1;
    if (b->type >= 0) b->e.param[b->type].view = 1;
    if (c->emb_ln_after_proj) {        /* DeBERTa: embed_proj (no bias) when E != d, then the LayerNorm over d */
        b->proj = a->emb_proj && E != d ? add_lin_b(b, a->emb_proj, E, d, 1) : (struct enc_lin){ -1, -1 };
        b->emb_ln = add_ln(b, a->emb_ln, d);
    } else {
        b->emb_ln = add_ln(b, a->emb_ln, E);
        b->proj = a->emb_proj && (E != d || a->factorised == 2) ? add_lin(b, a->emb_proj, E, d) : (struct enc_lin){ -1, -1 };
    }
    b->rel = a->rel_bias ? add(b, a->rel_bias, c->rel_buckets, c->heads, 0) : -1;
    b->rel_emb = a->dis && c->rp_span > 0 ? add(b, a->dis->rel_emb, 2 * c->rp_span, d, 0) : -1;
    b->rel_ln = a->dis && c->rp_ln ? add_ln(b, a->dis->rel_ln, d) : (struct enc_ln){ -1, -1 };
    b->layer = sp_xcalloc((size_t)c->layers, sizeof *b->layer);
    const int per_group = c->layer_groups > 0 ? c->layers / c->layer_groups : 1;
    for (int l = 0; l < c->layers; l++) {
        struct bert_layer *L = &b->layer[l];
        if (c->layer_groups > 0 && l % per_group) {   /* ALBERT: the group's tensors, registered once */
            *L = b->layer[l - 1];
            L->shared = 1;
            continue;
        }
        char p[128], lp[96];
        snprintf(lp, sizeof lp, a->layer, c->layer_groups > 0 ? l / per_group : l);
#define PFX(s) (snprintf(p, sizeof p, "%s%s", lp, s), p)
        L->q = add_lin(b, PFX(a->q), d, d);
        L->k = add_lin(b, PFX(a->k), d, d);
        L->v = add_lin(b, PFX(a->v), d, d);
        L->o = add_lin(b, PFX(a->o), d, d);
        L->ln1 = add_ln(b, PFX(a->ln1), d);
        L->ff1 = add_lin(b, PFX(a->ff1), d, F);
        L->ff2 = add_lin(b, PFX(a->ff2), F, d);
        L->ln2 = add_ln(b, PFX(a->ln2), d);
        const int own_pos = c->rp_span > 0 && !c->rp_share;   /* DeBERTa: separate position projections */
        L->pk = own_pos && c->rp_c2p ? add_lin(b, PFX(a->dis->pos_k), d, d) : (struct enc_lin){ -1, -1 };
        L->pq = own_pos && c->rp_p2c ? add_lin(b, PFX(a->dis->pos_q), d, d) : (struct enc_lin){ -1, -1 };
#undef PFX
    }
}

/* M3.2 name rules: the family prefix ("bert.", "roberta.", ...) is stripped by the rules,
 * LayerNorm.gamma/.beta -> .weight/.bias */
static void normalise_name(const char *in, char *out, size_t n)
{
    snprintf(out, n, "%s", in);
    size_t L = strlen(out);
    if (L >= 15 && !strcmp(out + L - 15, "LayerNorm.gamma")) snprintf(out + L - 5, n - (L - 5), "weight");
    else if (L >= 14 && !strcmp(out + L - 14, "LayerNorm.beta")) snprintf(out + L - 4, n - (L - 4), "bias");
}

/* how the family's checkpoint maps onto the registry (M3.2): its prefix stripped, its heads ignored */
static void bert_rules(struct enc_weights_rules *r, const struct enc_hf_arch *a, const struct enc_bert_config *c)
{
    memset(r, 0, sizeof *r);
    r->widen = 1;
    r->normalise = normalise_name;
    r->prefix = a->prefix;
    r->ignore = a->heads;
    if (a->dis && c->no_pos_input) r->ignore = a->dis->heads_no_pos;   /* DeBERTa-v3: a position table nobody reads */
    const int layers = c->layers;
    if (!strcmp(a->model_type, "bert")) snprintf(r->what, sizeof r->what, "a BertModel with this config.json: %d layers", layers);
    else snprintf(r->what, sizeof r->what, "a %s model with this config.json: %d layers", a->model_type, layers);
}

static int load(struct enc_bert *b, const char *dir, const struct sp_logger *log, char *err, size_t errlen)
{
    struct enc_sft s;
    int rc = enc_sft_open_model(dir, &s, err, errlen);   /* model.safetensors, or shards and their index */
    if (rc) return rc;
    const char *path = s.path;
    struct enc_weights_rules rules;
    struct enc_weights_report r = { 0 };
    bert_rules(&rules, b->arch, &b->c);
    rc = enc_weights_match_read(&b->e, &s, &rules, b->e.host_block, 0, &r, err, errlen);
    if (rc == SP_OK) enc_weights_bind_views(&b->e, &s, &rules);
    if (rc == SP_OK && r.n_ignored) {
        char ign[512] = "";
        for (int i = 0; i < r.n_ignored && i < 6; i++) {
            size_t L = strlen(ign);
            snprintf(ign + L, sizeof ign - L, "%s%s", L ? ", " : "", r.ignored[i]);
        }
        sp_log(log, SP_LOG_INFO, "%s: %s: ignoring %d tensor%s not used for encoding: %s%s", b->c.model_type, path, r.n_ignored,
               r.n_ignored == 1 ? "" : "s", ign, r.n_ignored > 6 ? ", ..." : "");
    }
    enc_weights_report_free(&r);
    if (rc == SP_OK) b->sft = s;       /* the views point into it: kept until close */
    else enc_sft_close(&s);
    return rc;
}

/* a view parameter (a Linear's weight, [out, in] in the file) as a part of a packed weight */
static struct enc_wpart wpart(const struct enc_param *p)
{
    return (struct enc_wpart){ p->src, p->dtype, p->shape[1], p->shape[0], 1 };
}

/* its pages of the mapping given back once packed (read again from the file if ever touched) */
static void release(struct enc_bert *b, const struct enc_param *p)
{
    for (int i = 0; i < b->sft.n; i++)
        if (b->sft.t[i].data == p->src) { enc_sft_release(&b->sft, &b->sft.t[i]); return; }
}

/* On a backend that packs weights itself (the CPU): every Linear packed from the file's tensors
 * in their dtype (an f16/bf16 model's weights stay halves, common/gemm.h), Q|K|V as one
 * [d, 3d] weight from its three parts; the bias of Q|K|V on the backend. */
static int pack_weights(struct enc_bert *b, char *err, size_t errlen)
{
    struct enc *e = &b->e;
    const int d = b->c.hidden_size;
    for (int l = 0; l < b->c.layers; l++) {
        struct bert_layer *L = &b->layer[l];
        if (L->shared) { L->wqkv = L[-1].wqkv; L->bqkv = L[-1].bqkv; continue; }   /* ALBERT: packed once */
        const struct enc_lin part[3] = { L->q, L->k, L->v };
        const struct enc_wpart qkv[3] = { wpart(&e->param[L->q.w]), wpart(&e->param[L->k.w]), wpart(&e->param[L->v.w]) };
        L->wqkv = (float *)(void *)&L->wqkv;           /* the key: never read */
        int rc = e->be.ops->pack_weight(&e->be, L->wqkv, d, 3 * d, qkv, 3);
        const struct enc_lin one[3] = { L->o, L->ff1, L->ff2 };
        for (int k = 0; rc == SP_OK && k < 3; k++) {
            struct enc_param *p = &e->param[one[k].w];
            const struct enc_wpart w = wpart(p);
            p->dev = (float *)(uintptr_t)p->src;       /* the key: never read as floats */
            rc = e->be.ops->pack_weight(&e->be, p->dev, p->shape[0], p->shape[1], &w, 1);
        }
        if (rc != SP_OK) { snprintf(err, errlen, "bert: layer %d: cannot pack the weights", l); return rc; }
        L->bqkv = sp_xmalloc(sizeof(float) * 3 * (size_t)d);
        for (int p = 0; p < 3; p++) memcpy(L->bqkv + (size_t)p * d, e->param[part[p].b].host, sizeof(float) * (size_t)d);
        for (int p = 0; p < 3; p++) release(b, &e->param[part[p].w]);
        for (int k = 0; k < 3; k++) release(b, &e->param[one[k].w]);
    }
    if (b->proj.w >= 0) {                              /* ELECTRA's embeddings_project (ALBERT's mapping), E -> d */
        struct enc_param *p = &e->param[b->proj.w];
        const struct enc_wpart w = wpart(p);
        p->dev = (float *)(uintptr_t)p->src;
        if (e->be.ops->pack_weight(&e->be, p->dev, p->shape[0], p->shape[1], &w, 1) != SP_OK) {
            snprintf(err, errlen, "%s: embeddings_project: cannot pack the weights", b->c.model_type);
            return SP_ENOMEM;
        }
        release(b, p);
    }
    return SP_OK;
}

/* the fused [d, 3d] query/key/value weights of every layer, on the backend */
static int fuse_qkv(struct enc_bert *b, char *err, size_t errlen)
{
    struct enc *e = &b->e;
    if (e->be.ops->pack_weight) return pack_weights(b, err, errlen);
    const size_t d = (size_t)b->c.hidden_size, d3 = 3 * d;
    float *w = sp_xmalloc(sizeof(float) * d * d3), *bias = sp_xmalloc(sizeof(float) * d3), *src = sp_xmalloc(sizeof(float) * d * d);
    int rc = SP_OK;
    for (int l = 0; l < b->c.layers && rc == SP_OK; l++) {
        struct bert_layer *L = &b->layer[l];
        if (L->shared) { L->wqkv = L[-1].wqkv; L->bqkv = L[-1].bqkv; continue; }   /* ALBERT: uploaded once */
        const struct enc_lin part[3] = { L->q, L->k, L->v };
        for (int p = 0; p < 3; p++) {
            enc_param_widen(&e->param[part[p].w], src);          /* [d, d] = W_pᵀ */
            for (size_t i = 0; i < d; i++) memcpy(w + i * d3 + (size_t)p * d, src + i * d, sizeof(float) * d);
            memcpy(bias + (size_t)p * d, e->param[part[p].b].host, sizeof(float) * d);
        }
        L->wqkv = e->be.ops->alloc(&e->be, sizeof(float) * d * d3);
        L->bqkv = e->be.ops->alloc(&e->be, sizeof(float) * d3);
        if (!L->wqkv || !L->bqkv) {
            snprintf(err, errlen, "bert: layer %d: cannot allocate %zu bytes on %s", l, sizeof(float) * (d * d3 + d3), e->be.ops->name);
            rc = SP_ENOMEM;
            break;
        }
        e->be.ops->upload(&e->be, L->wqkv, w, sizeof(float) * d * d3);
        e->be.ops->upload(&e->be, L->bqkv, bias, sizeof(float) * d3);
    }
    free(w);
    free(bias);
    free(src);
    return rc == SP_OK ? e->be.ops->sync(&e->be, err, errlen) : rc;
}

/* MPNet: the relative attention bias of every offset j − i in -ENC_REL_MAXD..ENC_REL_MAXD, rows
 * [2·ENC_REL_MAXD + 1, heads] on the backend: row r + ENC_REL_MAXD is the table's row of r's bucket
 * (enc_f_t5_bucket; the bucket is the same for every farther offset, so the attention op clips) */
static int rel_bias_table(struct enc_bert *b, char *err, size_t errlen)
{
    struct enc *e = &b->e;
    const int H = b->c.heads, rows = 2 * ENC_REL_MAXD + 1;
    const float *w = e->param[b->rel].host;                    /* [rel_buckets, H], f32 (not a view) */
    float *t = sp_xmalloc(sizeof(float) * (size_t)rows * H);
    for (int r = -ENC_REL_MAXD; r <= ENC_REL_MAXD; r++) {
        const int bk = enc_f_t5_bucket(r, ENC_REL_NBUCKETS, ENC_REL_MAXD);
        SP_ASSERT(bk >= 0 && bk < b->c.rel_buckets);
        memcpy(t + (size_t)(r + ENC_REL_MAXD) * H, w + (size_t)bk * H, sizeof(float) * (size_t)H);
    }
    b->pbias = e->be.ops->alloc(&e->be, sizeof(float) * (size_t)rows * H);
    if (b->pbias) e->be.ops->upload(&e->be, b->pbias, t, sizeof(float) * (size_t)rows * H);
    free(t);
    if (!b->pbias) {
        snprintf(err, errlen, "%s: cannot allocate %zu bytes on %s", b->c.model_type, sizeof(float) * (size_t)rows * H, e->be.ops->name);
        return SP_ENOMEM;
    }
    return e->be.ops->sync(&e->be, err, errlen);
}

/* DeBERTa: what the layers' disentangled terms read, computed once at open on the host from the
 * weights alone: R = rel_embeddings (LayerNorm'd when norm_rel_ebd says so), then per layer the
 * positions' keys R·W_kᵀ + b_k (c2p; pos_key_proj, or key_proj with share_att_key) and queries
 * R·W_qᵀ + b_q (p2c; pos_query_proj or query_proj), [2·att_span, d] each on the backend (the
 * attention op takes their products with each query and key row); and the c2p and p2c rows of
 * every offset i − j of a sentence (enc_f_rp_c2p / enc_f_rp_p2c), [2·rp_max + 1][2] */
static int rp_tables(struct enc_bert *b, char *err, size_t errlen)
{
    struct enc *e = &b->e;
    const struct enc_bert_config *c = &b->c;
    const int d = c->hidden_size, rows = 2 * c->rp_span;
    const size_t rd = (size_t)rows * d;
    float *R = sp_xmalloc(sizeof(float) * rd), *W = sp_xmalloc(sizeof(float) * (size_t)d * d), *P = sp_xmalloc(sizeof(float) * rd);
    memcpy(R, e->param[b->rel_emb].host, sizeof(float) * rd);
    if (b->rel_ln.g >= 0) {                                    /* LayerNorm(rel_embeddings), as torch: biased variance */
        const float *g = e->param[b->rel_ln.g].host, *bb = e->param[b->rel_ln.b].host;
        for (int r = 0; r < rows; r++) {
            float *x = R + (size_t)r * d;
            double m = 0, v = 0;
            for (int k = 0; k < d; k++) m += x[k];
            m /= d;
            for (int k = 0; k < d; k++) v += (x[k] - m) * (x[k] - m);
            const double inv = 1.0 / sqrt(v / d + (double)c->ln_eps);
            for (int k = 0; k < d; k++) x[k] = (float)((x[k] - m) * inv * g[k] + bb[k]);
        }
    }
    int rc = SP_OK;
    for (int l = 0; l < c->layers && rc == SP_OK; l++) {
        struct bert_layer *L = &b->layer[l];
        for (int t = 0; t < 2 && rc == SP_OK; t++) {          /* t 0: keys (c2p), 1: queries (p2c) */
            if (!(t ? c->rp_p2c : c->rp_c2p)) continue;
            const struct enc_lin lw = c->rp_share ? (t ? L->q : L->k) : (t ? L->pq : L->pk);
            enc_param_widen(&e->param[lw.w], W);               /* [d, d] = Wᵀ */
            const float *bias = e->param[lw.b].host;
            for (int r = 0; r < rows; r++)
                for (int o = 0; o < d; o++) {
                    double acc = 0;
                    for (int k = 0; k < d; k++) acc += (double)R[(size_t)r * d + k] * W[(size_t)k * d + o];
                    P[(size_t)r * d + o] = (float)(acc + bias[o]);
                }
            float **dst = t ? &L->rpq : &L->rpk;
            if (!(*dst = e->be.ops->alloc(&e->be, sizeof(float) * rd))) rc = SP_ENOMEM;
            else e->be.ops->upload(&e->be, *dst, P, sizeof(float) * rd);
        }
    }
    b->rp_max = c->max_pieces > 1 ? c->max_pieces - 1 : 1;
    const size_t ni = 2 * (size_t)(2 * b->rp_max + 1);
    int32_t *idx = sp_xmalloc(sizeof(int32_t) * ni);
    for (int o = -b->rp_max; o <= b->rp_max; o++) {           /* query i = o, key j = 0 */
        idx[2 * (o + b->rp_max)] = enc_f_rp_c2p(o, 0, c->rp_span, c->rp_buckets, c->rp_maxpos);
        idx[2 * (o + b->rp_max) + 1] = enc_f_rp_p2c(o, 0, c->rp_span, c->rp_buckets, c->rp_maxpos);
    }
    if (rc == SP_OK && !(b->rpidx = e->be.ops->alloc(&e->be, sizeof(int32_t) * ni))) rc = SP_ENOMEM;
    if (rc == SP_OK) e->be.ops->upload(&e->be, b->rpidx, idx, sizeof(int32_t) * ni);
    free(idx);
    free(R);
    free(W);
    free(P);
    if (rc != SP_OK) {
        snprintf(err, errlen, "%s: cannot allocate the relative position tables (%zu bytes a layer) on %s", c->model_type,
                 sizeof(float) * rd * 2, e->be.ops->name);
        return rc;
    }
    return e->be.ops->sync(&e->be, err, errlen);
}

/* ---- open / close ---- */

void enc_bert_close(enc_bert_t *b)
{
    if (!b) return;
    struct enc *e = &b->e;
    if (e->be.ops) {
        void *bufs[] = { b->x, b->y, b->qkv, b->ctx, b->t, b->z, b->ho, b->amap, b->idx };
        for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) if (bufs[i]) e->be.ops->free(&e->be, bufs[i]);
        for (int l = 0; b->layer && l < b->c.layers; l++) {
            if (b->layer[l].shared) continue;             /* ALBERT: its owner frees them */
            if (b->layer[l].rpk) e->be.ops->free(&e->be, b->layer[l].rpk);
            if (b->layer[l].rpq) e->be.ops->free(&e->be, b->layer[l].rpq);
            if (e->be.ops->pack_weight) { free(b->layer[l].bqkv); continue; }   /* wqkv: a key (pack_weights) */
            if (b->layer[l].wqkv) e->be.ops->free(&e->be, b->layer[l].wqkv);
            if (b->layer[l].bqkv) e->be.ops->free(&e->be, b->layer[l].bqkv);
        }
        if (!e->be.host_memory)
            for (int i = 0; i < e->n_param; i++) if (e->param[i].dev) e->be.ops->free(&e->be, e->param[i].dev);
        if (b->ztype && b->ztype != b->hztype) e->be.ops->free(&e->be, b->ztype);
        if (b->pbias) e->be.ops->free(&e->be, b->pbias);
        if (b->rpidx) e->be.ops->free(&e->be, b->rpidx);
        e->be.ops->close(&e->be);
    }
    free(e->param);
    free(e->host_block);
    enc_sft_close(&b->sft);
    free(b->erow);
    free(b->hE);
    free(b->hztype);
    free(b->pdst);
    free(b->pbytes);
    free(b->hargs);
    free(b->args);
    free(b->layer);
    free(b->dir);
    free(b);
}

/* path is a directory, or a synprobe config {"kind": "bert" or "hf", "model": DIR}: the directory */
static char *model_dir(const char *path, char *err, size_t errlen)
{
    struct stat st;
    if (stat(path, &st) != 0) { snprintf(err, errlen, "%s: cannot open", path); return NULL; }
    if (S_ISDIR(st.st_mode)) return sp_xstrdup(path);
    json_t *root = NULL;
    if (enc_hf_json_load(path, &root, err, errlen)) return NULL;
    char *dir = NULL;
    const char *key;
    json_t *v;
    json_object_foreach(root, key, v) {
        if (strcmp(key, "kind") && strcmp(key, "model") && strcmp(key, "$schema") && strcmp(key, "comment")) {
            snprintf(err, errlen, "%s: %s: unknown key for kind bert (expected \"kind\" and \"model\"; schemas/bert.schema.json)",
                     path, key);
            goto out;
        }
    }
    const char *kind = json_string_value(json_object_get(root, "kind"));
    const char *m = json_string_value(json_object_get(root, "model"));
    if (!kind || (strcmp(kind, "bert") && strcmp(kind, "hf"))) { snprintf(err, errlen, "%s: kind: expected \"bert\" or \"hf\"", path); goto out; }
    if (!m || !*m) { snprintf(err, errlen, "%s: model: expected the path of a model directory (string)", path); goto out; }
    if (m[0] == '/') dir = sp_xstrdup(m);
    else {
        char *cp = sp_xstrdup(path);
        const char *base = dirname(cp);
        size_t n = strlen(base) + strlen(m) + 2;
        dir = sp_xmalloc(n);
        snprintf(dir, n, "%s/%s", base, m);
        free(cp);
    }
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s: model: %s is not a directory", path, dir);
        free(dir);
        dir = NULL;
    }
out:
    json_decref(root);
    return dir;
}

/* the folder's files a save_pretrained folder has: a clear word for the ones it lacks */
static int check_files(const char *dir, char *err, size_t errlen)
{
    char f[4096];
    struct stat st;
    snprintf(f, sizeof f, "%s/config.json", dir);
    if (stat(f, &st) != 0) {
        snprintf(err, errlen, "%s/config.json: cannot open (a model folder is what save_pretrained writes: config.json, "
                 "model.safetensors)", dir);
        return SP_EIO;
    }
    return SP_OK;      /* the weights (one file, shards, or pickles refused): enc_sft_open_model */
}

/* want: the model_type the folder must have ("bert": kind bert), or NULL: any family (kind hf) */
static int open_model(const char *path, const char *want, enum enc_device device, const struct sp_logger *log,
                      enc_bert_t **out, char *err, size_t errlen)
{
    *out = NULL;
    char *dir = model_dir(path, err, errlen);
    if (!dir) return SP_EPARSE;
    int rc = check_files(dir, err, errlen);
    if (rc) { free(dir); return rc; }
    struct enc_bert *b = sp_xcalloc(1, sizeof *b);
    b->dir = dir;
    size_t n = strlen(dir) + 32;
    char *f = sp_xmalloc(n);
    snprintf(f, n, "%s/config.json", dir);
    rc = enc_hf_config_read(f, want, &b->c, &b->arch, err, errlen);
    if (rc == SP_OK) rc = enc_backend_select(&b->e, device, log, err, errlen);
    if (rc == SP_OK) {
        build(b);
        enc_param_alloc_init(&b->e);
        rc = load(b, dir, log, err, errlen);
    }
    if (rc == SP_OK) rc = enc_param_upload(&b->e, err, errlen);
    if (rc == SP_OK) rc = fuse_qkv(b, err, errlen);
    if (rc == SP_OK && (b->type < 0 || b->pos < 0)) {   /* no token types: (word + 0) + position is word + position exactly;
                                                         * no positions (DeBERTa-v3): (word + type) + 0 likewise */
        const size_t E = (size_t)b->c.embedding_size;
        b->hztype = sp_xcalloc(E, sizeof(float));
        b->ztype = b->e.be.host_memory ? b->hztype : b->e.be.ops->alloc(&b->e.be, sizeof(float) * E);
        if (!b->ztype) { snprintf(err, errlen, "%s: cannot allocate %zu bytes on %s", b->c.model_type, sizeof(float) * E, b->e.be.ops->name); rc = SP_ENOMEM; }
    }
    if (rc == SP_OK && b->rel >= 0) rc = rel_bias_table(b, err, errlen);
    if (rc == SP_OK && b->rel_emb >= 0 && (b->c.rp_c2p || b->c.rp_p2c)) rc = rp_tables(b, err, errlen);
    free(f);
    if (rc != SP_OK) { enc_bert_close(b); return rc; }
    sp_log(log, SP_LOG_INFO, "encoder: %s %s (%d layers, d %d, %d heads, vocab %d) on %s", b->c.model_type, dir, b->c.layers,
           b->c.hidden_size, b->c.heads, b->c.vocab_size, b->e.be.ops->name);
    *out = b;
    return SP_OK;
}

int enc_bert_open(const char *path, enum enc_device device, const struct sp_logger *log, enc_bert_t **out,
                  char *err, size_t errlen)
{
    return open_model(path, "bert", device, log, out, err, errlen);
}

int enc_hf_open(const char *path, enum enc_device device, const struct sp_logger *log, enc_bert_t **out,
                char *err, size_t errlen)
{
    return open_model(path, NULL, device, log, out, err, errlen);
}

const struct enc_bert_config *enc_bert_get_config(const enc_bert_t *b) { return &b->c; }
const char *enc_bert_backend_name(const enc_bert_t *b) { return b->e.be.ops->name; }
const char *enc_bert_model_dir(const enc_bert_t *b) { return b->dir; }

/* ---- forward (M3.3) ---- */

#define OPS (e->be.ops)
#define BERT_GROUP_ROWS 512   /* the most pieces of one host forward (enc_bert_forward) */
#define BE (&e->be)

static int reserve(struct enc_bert *b, size_t rows, size_t nn, int want_attn, char *err, size_t errlen)
{
    struct enc *e = &b->e;
    const size_t d = (size_t)b->c.hidden_size, F = (size_t)b->c.intermediate_size, H = (size_t)b->c.heads;
    const size_t dE = d > (size_t)b->c.embedding_size ? d : (size_t)b->c.embedding_size;   /* t, y: the embeddings too */
    if (rows <= b->cap_rows && (!want_attn || (b->ho && nn <= b->cap_nn))) return SP_OK;
    /* grow geometrically, so a run of growing batches does not reallocate every time */
    if (rows < b->cap_rows) rows = b->cap_rows; else if (rows < 2 * b->cap_rows) rows = 2 * b->cap_rows;
    if (nn < b->cap_nn) nn = b->cap_nn; else if (nn < 2 * b->cap_nn) nn = 2 * b->cap_nn;
    float **bufs[] = { &b->x, &b->y, &b->qkv, &b->ctx, &b->t, &b->z, &b->ho, &b->amap };
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) if (*bufs[i]) { OPS->free(BE, *bufs[i]); *bufs[i] = NULL; }
    if (b->idx) { OPS->free(BE, b->idx); b->idx = NULL; }
    b->cap_rows = 0; b->cap_nn = 0;
    int fail = 0;
#define A(p, floats) do { if (!((p) = OPS->alloc(BE, sizeof(float) * (floats)))) fail = 1; } while (0)
    A(b->x, rows * d); A(b->y, rows * dE); A(b->qkv, rows * 3 * d);
    A(b->ctx, rows * d); A(b->t, rows * dE); A(b->z, rows * F);
    /* per-head maps: every head's context and (device backends) map of every sentence at once; a
     * host backend writes the maps straight into the caller's arrays */
    if (want_attn) { A(b->ho, rows * d); if (!BE->host_memory) A(b->amap, H * nn); }
#undef A
    if (!BE->host_memory && OPS->embed_sum && !(b->idx = OPS->alloc(BE, sizeof(int32_t) * 3 * rows))) fail = 1;
    if (fail) {
        snprintf(err, errlen, "bert: cannot allocate the workspace for %zu pieces on %s", rows, OPS->name);
        return SP_ENOMEM;
    }
    b->hE = sp_xrealloc(b->hE, b->idx ? sizeof(int32_t) * 3 * rows : sizeof(float) * rows * dE);

    b->cap_rows = rows;
    b->cap_nn = want_attn ? nn : 0;
    return SP_OK;
}

static void lin(struct enc *e, int n, const float *X, struct enc_lin L, float *Y)
{
    const struct enc_param *W = &e->param[L.w];
    OPS->linear(BE, n, W->shape[0], W->shape[1], X, W->shape[0], W->dev, W->shape[1], enc_w(e, L.b), Y, W->shape[1], 0);
}

/* out = LN(x + res), fused where the backend has it (the same bits either way) */
static void residual_ln(struct enc *e, int n, int d, float *x, const float *res, struct enc_ln L, float eps, float *out)
{
    if (OPS->add_layer_norm) { OPS->add_layer_norm(BE, n, d, x, res, enc_w(e, L.g), enc_w(e, L.b), eps, out); return; }
    OPS->add(BE, (size_t)n * d, x, res, x);
    OPS->layer_norm(BE, n, d, x, enc_w(e, L.g), enc_w(e, L.b), eps, out);
}

/* out = LN(X·W + b + res), in one op where the backend has it (the same bits either way) */
static void lin_ln(struct enc *e, int n, const float *X, struct enc_lin L, float *Y, const float *res, struct enc_ln ln,
                   float eps, float *out)
{
    const struct enc_param *W = &e->param[L.w];
    if (OPS->linear_add_layer_norm) {
        OPS->linear_add_layer_norm(BE, n, W->shape[0], W->shape[1], X, W->shape[0], W->dev, W->shape[1], enc_w(e, L.b), Y,
                                   res, enc_w(e, ln.g), enc_w(e, ln.b), eps, out);
        return;
    }
    lin(e, n, X, L, Y);
    residual_ln(e, n, W->shape[1], Y, res, ln, eps, out);
}

/* pieces of src to the host, read by the caller only after the forward's sync: on a device the
 * copy runs beside the next layer (download_pieces_later) */
static void download_later(struct enc *e, int count, void *const *dst, const size_t *bytes, const void *src)
{
    if (OPS->download_pieces_later) OPS->download_pieces_later(BE, count, dst, bytes, src);
    else OPS->download_pieces(BE, count, dst, bytes, src);
}

/* rows of x into each sentence's hidden[b] at layer l */
static void download_layer(struct enc_bert *b, int n_sent, const struct enc_bert_input *in, const float *x, int l, float **hidden)
{
    struct enc *e = &b->e;
    const size_t d = (size_t)b->c.hidden_size;
    for (int s = 0; s < n_sent; s++) {
        b->pdst[s] = hidden[s] + (size_t)l * in[s].n * d;
        b->pbytes[s] = sizeof(float) * (size_t)in[s].n * d;
    }
    download_later(e, n_sent, b->pdst, b->pbytes, x);
}

/* P_h of layer l for every sentence and head: each head alone (H = 1, its mean over one head is
 * P_h), all n_sent·H of them in one attention call. The heads' contexts go to scratch (b->ho, head
 * h of sentence s at (h·rows + r0)·dh); a host backend writes the maps straight into attn[s], a
 * device backend into b->amap (head h of sentence s at h·nn + Σ_{s'<s} n²), downloaded at once. */
static void head_maps(struct enc_bert *b, int n_sent, const struct enc_bert_input *in, int l, size_t nn, float **attn)
{
    struct enc *e = &b->e;
    const int d = b->c.hidden_size, H = b->c.heads, dh = d / H;
    size_t rows = 0;
    for (int s = 0; s < n_sent; s++) rows += (size_t)in[s].n;
    if ((size_t)n_sent * H > (size_t)b->cap_hargs) {
        b->hargs = sp_xrealloc(b->hargs, sizeof *b->hargs * (size_t)n_sent * H);
        b->cap_hargs = n_sent * H;
    }
    size_t r0 = 0, p0 = 0;
    for (int s = 0; s < n_sent; s++) {
        const size_t n = (size_t)in[s].n;
        for (int h = 0; h < H; h++) {
            struct enc_attn_args *a = &b->hargs[(size_t)s * H + h];
            *a = b->args[s];
            a->H = 1;
            a->q = b->args[s].q + (size_t)h * dh; a->k = a->q + d; a->v = a->q + 2 * d;
            if (a->pos_bias) a->pos_bias += h;             /* head h's column of MPNet's bias */
            if (a->rp_k) a->rp_k += (size_t)h * dh;          /* head h's columns of DeBERTa's position keys */
            if (a->rp_q) a->rp_q += (size_t)h * dh;
            a->out = b->ho + ((size_t)h * rows + r0) * dh;
            a->attn_mean = BE->host_memory ? attn[s] + ((size_t)l * H + h) * n * n : b->amap + (size_t)h * nn + p0;
        }
        r0 += n; p0 += n * n;
    }
    OPS->attention(BE, n_sent * H, b->hargs);
    if (BE->host_memory) return;
    for (int h = 0; h < H; h++)                        /* b->amap's order: head, then sentence */
        for (int s = 0; s < n_sent; s++) {
            const size_t n = (size_t)in[s].n;
            b->pdst[(size_t)h * n_sent + s] = attn[s] + ((size_t)l * H + h) * n * n;
            b->pbytes[(size_t)h * n_sent + s] = sizeof(float) * n * n;
        }
    download_later(e, n_sent * H, b->pdst, b->pbytes, b->amap);
}

int enc_bert_forward(enc_bert_t *b, int n_sent, const struct enc_bert_input *in, float **hidden, uint64_t hidden_layers,
                     float **attn, uint64_t attn_layers, char *err, size_t errlen)
{
    struct enc *e = &b->e;
    const struct enc_bert_config *c = &b->c;
    const int d = c->hidden_size, H = c->heads, dh = d / H, F = c->intermediate_size;
    /* DeBERTa: the scale 1/sqrt(dh · scale_factor), scale_factor 1 + one per pos_att_type term */
    const float scale = 1.0f / sqrtf((float)(dh * (1 + c->rp_c2p + c->rp_p2c)));
    size_t rows = 0, nn = 0;
    for (int s = 0; s < n_sent; s++) {
        const struct enc_bert_input *x = &in[s];
        if (x->n < 1 || x->n > c->max_pieces) {
            snprintf(err, errlen, "%s: sentence %d: %d pieces (expected 1..%d, the model's max_position_embeddings%s)", c->model_type,
                     s, x->n, c->max_pieces, c->pad_positions >= 0 ? " less pad_token_id + 1" : "");
            return SP_EUSAGE;
        }
        if (!x->ids) { snprintf(err, errlen, "bert: sentence %d: no piece ids", s); return SP_EUSAGE; }
        for (int p = 0; p < x->n; p++) {
            if (x->ids[p] < 0 || x->ids[p] >= c->vocab_size) {
                snprintf(err, errlen, "bert: sentence %d, piece %d: id %d outside the vocabulary 0..%d", s, p, (int)x->ids[p], c->vocab_size - 1);
                return SP_EUSAGE;
            }
            if (x->types && (x->types[p] < 0 || x->types[p] >= (c->type_vocab_size > 0 ? c->type_vocab_size : 1))) {
                snprintf(err, errlen, "%s: sentence %d, piece %d: token type %d outside 0..%d", c->model_type, s, p, (int)x->types[p],
                         c->type_vocab_size > 0 ? c->type_vocab_size - 1 : 0);
                return SP_EUSAGE;
            }
        }
        rows += (size_t)x->n;
        nn += (size_t)x->n * (size_t)x->n;
    }
    if (!attn) attn_layers = 0;
    if (!rows) return SP_OK;
    /* A host backend runs a large batch as groups of sentences of at most BERT_GROUP_ROWS pieces:
     * the workspace (about 12 floats of width d a piece, for Q/K/V, the context, the feed-forward's
     * 4d, the staging rows) then stays a fixed size, where a batch's outputs (every wanted layer)
     * grow with it; the products are batch-invariant (common/gemm.h), so the bits are those of one
     * pass. A device keeps the whole batch: its throughput is in the large products. */
    if (BE->host_memory && rows > BERT_GROUP_ROWS && n_sent > 1) {
        for (int s0 = 0, s1; s0 < n_sent; s0 = s1) {
            size_t r = (size_t)in[s0].n;
            for (s1 = s0 + 1; s1 < n_sent && r + (size_t)in[s1].n <= BERT_GROUP_ROWS; s1++) r += (size_t)in[s1].n;
            int rc = enc_bert_forward(b, s1 - s0, in + s0, hidden ? hidden + s0 : NULL, hidden_layers, attn ? attn + s0 : NULL, attn_layers,
                                      err, errlen);
            if (rc) return rc;
        }
        return SP_OK;
    }
    int rc = reserve(b, rows, nn, attn_layers != 0, err, errlen);
    if (rc) return rc;
    if (n_sent > b->cap_args) {
        b->args = sp_xrealloc(b->args, sizeof *b->args * (size_t)n_sent);
        b->pdst = sp_xrealloc(b->pdst, sizeof *b->pdst * (size_t)n_sent * c->heads);
        b->pbytes = sp_xrealloc(b->pbytes, sizeof *b->pbytes * (size_t)n_sent * c->heads);
        b->cap_args = n_sent;
    }
    const int N = (int)rows;
    /* 1. E = (word + token type) + position: on a device from its copies of the tables (only the
     * indices travel), else on the host (the tables' host copies); the same sum either way. A
     * family without token types adds a zero row (exact); RoBERTa's positions count the
     * sentence's non-padding pieces from padding_idx + 1 (create_position_ids_from_input_ids). */
    const int E = c->embedding_size, pad = c->pad_positions;
    size_t r = 0;
    if (b->idx) {
        int32_t *h = (int32_t *)(void *)b->hE;
        for (int s = 0; s < n_sent; s++)
            for (int p = 0, np = 0; p < in[s].n; p++, r++) {
                h[3 * r] = in[s].ids[p];
                h[3 * r + 1] = in[s].types && b->type >= 0 ? in[s].types[p] : 0;
                h[3 * r + 2] = b->pos < 0 ? 0 : pad < 0 ? p : in[s].ids[p] == pad ? pad : pad + ++np;
            }
        OPS->upload(BE, b->idx, h, sizeof(int32_t) * 3 * rows);
        OPS->embed_sum(BE, N, E, enc_w(e, b->word), b->type >= 0 ? enc_w(e, b->type) : b->ztype,
                       b->pos >= 0 ? enc_w(e, b->pos) : b->ztype, b->idx, b->t);
    } else {
        /* the tables stay in the file's dtype: each row widened exactly (the same floats) */
        const struct enc_param *tw = &e->param[b->word], *tp = b->pos >= 0 ? &e->param[b->pos] : NULL;
        const struct enc_param *tt = b->type >= 0 ? &e->param[b->type] : NULL;
        if (!b->erow) b->erow = sp_xmalloc(sizeof(float) * 3 * (size_t)E);
        float *w = b->erow, *ty = w + E, *ps = ty + E;
        for (int s = 0; s < n_sent; s++)
            for (int p = 0, np = 0; p < in[s].n; p++, r++) {
                const int ty_i = in[s].types && tt ? in[s].types[p] : 0;
                const int pos = pad < 0 ? p : in[s].ids[p] == pad ? pad : pad + ++np;
                enc_dt_widen((enum enc_dtype)tw->dtype, tw->src, (uint64_t)in[s].ids[p] * E, (size_t)E, w);
                if (tt) enc_dt_widen((enum enc_dtype)tt->dtype, tt->src, (uint64_t)ty_i * E, (size_t)E, ty);
                else memcpy(ty, b->hztype, sizeof(float) * (size_t)E);   /* no token types: a zero row */
                if (tp) enc_dt_widen((enum enc_dtype)tp->dtype, tp->src, (uint64_t)pos * E, (size_t)E, ps);
                else memcpy(ps, b->hztype, sizeof(float) * (size_t)E);   /* no positions: a zero row */
                float *o = b->hE + r * E;
                for (int j = 0; j < E; j++) o[j] = (w[j] + ty[j]) + ps[j];
            }
        OPS->upload(BE, b->t, b->hE, rows * E * sizeof(float));
    }
    /* 2. X^0 = LN_emb(E) (ELECTRA: then embeddings_project, E -> d; DeBERTa: embed_proj first, then
     * the LayerNorm over d; its mask multiply is by ones here, every piece being real) */
    if (c->emb_ln_after_proj && b->proj.w >= 0) {
        lin(e, N, b->t, b->proj, b->y);
        OPS->layer_norm(BE, N, d, b->y, enc_w(e, b->emb_ln.g), enc_w(e, b->emb_ln.b), c->ln_eps, b->x);
    } else if (b->proj.w >= 0) {
        OPS->layer_norm(BE, N, E, b->t, enc_w(e, b->emb_ln.g), enc_w(e, b->emb_ln.b), c->ln_eps, b->y);
        lin(e, N, b->y, b->proj, b->x);
    } else
        OPS->layer_norm(BE, N, d, b->t, enc_w(e, b->emb_ln.g), enc_w(e, b->emb_ln.b), c->ln_eps, b->x);
    if (hidden_layers & 1) download_layer(b, n_sent, in, b->x, 0, hidden);
    /* 3. post-LN layers */
    for (int l = 0; l < c->layers; l++) {
        const struct bert_layer *L = &b->layer[l];
        /* Q | K | V in one product: each element is the same FMA chain as in three (common/gemm.h) */
        OPS->linear(BE, N, d, 3 * d, b->x, d, L->wqkv, 3 * d, L->bqkv, b->qkv, 3 * d, 0);
        size_t off = 0;
        for (int s = 0; s < n_sent; s++) {
            const int n = in[s].n;
            const size_t r0 = off * (size_t)d, r3 = 3 * r0;
            struct enc_attn_args *aa = &b->args[s];
            memset(aa, 0, sizeof *aa);                /* dir ALL, no distance prior, no masks */
            aa->n = n; aa->H = H; aa->dk = dh; aa->ld_qkv = 3 * d;
            aa->q = b->qkv + r3; aa->k = aa->q + d; aa->v = aa->q + 2 * d;
            aa->out = b->ctx + r0; aa->scale = scale;
            if (b->pbias) { aa->pos_bias = b->pbias; aa->pos_clip = ENC_REL_MAXD; aa->pos_ld = H; }   /* MPNet */
            if (b->rpidx) {                                                                       /* DeBERTa */
                aa->rp_k = L->rpk; aa->rp_q = L->rpq; aa->rp_rows = 2 * c->rp_span; aa->rp_ld = d;
                aa->rp_max = b->rp_max; aa->rp_idx = b->rpidx;
            }
            off += (size_t)n;
        }
        OPS->attention(BE, n_sent, b->args);          /* every sentence in one call */
        if (attn_layers >> l & 1) head_maps(b, n_sent, in, l, nn, attn);
        lin_ln(e, N, b->ctx, L->o, b->t, b->x, L->ln1, c->ln_eps, b->y);  /* LN(C·W_oᵀ + b_o + X) */
        if (OPS->linear_act) {                                          /* GELU(Y·W_1ᵀ + b_1) [N, F] */
            const struct enc_param *W = &e->param[L->ff1.w];
            OPS->linear_act(BE, N, W->shape[0], W->shape[1], b->y, W->shape[0], W->dev, W->shape[1], enc_w(e, L->ff1.b),
                            b->z, W->shape[1], c->act);
        } else {
            lin(e, N, b->y, L->ff1, b->z);
            OPS->act(BE, c->act, rows * (size_t)F, b->z);
        }
        lin_ln(e, N, b->z, L->ff2, b->t, b->y, L->ln2, c->ln_eps, b->x);  /* LN(Z·W_2ᵀ + b_2 + Y) */
        if (hidden_layers >> (l + 1) & 1) download_layer(b, n_sent, in, b->x, l + 1, hidden);
    }
    return OPS->sync(BE, err, errlen);
}

/* ---- pooling (M2.2, M2.3) ---- */

/* spans inside 1..T-2, non-empty */
static int check_spans(int T, int n_words, const int32_t *span, char *err, size_t errlen)
{
    for (int w = 0; w < n_words; w++) {
        const int s = span[2 * w], e = span[2 * w + 1];
        if (s < 1 || e <= s || e > T - 1) {
            snprintf(err, errlen, "word %d: piece span [%d, %d) is not a non-empty range inside 1..%d ([CLS] and [SEP] belong to no word)",
                     w, s, e, T - 2);
            return SP_EUSAGE;
        }
    }
    return SP_OK;
}

int enc_pool_words(int T, int d, const float *X, int n_words, const int32_t *span, enum enc_word_pool mode,
                   float *out, char *err, size_t errlen)
{
    if (check_spans(T, n_words, span, err, errlen)) return SP_EUSAGE;
    for (int w = 0; w < n_words; w++) {
        const int s = span[2 * w], e = span[2 * w + 1];
        float *o = out + (size_t)w * d;
        switch (mode) {
        case ENC_WORD_POOL_FIRST: memcpy(o, X + (size_t)s * d, sizeof(float) * (size_t)d); break;
        case ENC_WORD_POOL_LAST: memcpy(o, X + (size_t)(e - 1) * d, sizeof(float) * (size_t)d); break;
        case ENC_WORD_POOL_MEAN:
            for (int j = 0; j < d; j++) {
                double acc = 0;
                for (int p = s; p < e; p++) acc += X[(size_t)p * d + j];
                o[j] = (float)(acc / (e - s));
            }
            break;
        }
    }
    return SP_OK;
}

void enc_pool_sentence(int d, const float *X, int n_words, const float *words, enum enc_sent_pool mode, float *out)
{
    if (mode == ENC_SENT_POOL_CLS || n_words <= 0) {
        if (mode == ENC_SENT_POOL_CLS) memcpy(out, X, sizeof(float) * (size_t)d);
        else memset(out, 0, sizeof(float) * (size_t)d);
        return;
    }
    if (mode == ENC_SENT_POOL_LAST) { memcpy(out, words + (size_t)(n_words - 1) * d, sizeof(float) * (size_t)d); return; }
    for (int j = 0; j < d; j++) {
        if (mode == ENC_SENT_POOL_MAX) {
            float m = words[j];
            for (int w = 1; w < n_words; w++) if (words[(size_t)w * d + j] > m) m = words[(size_t)w * d + j];
            out[j] = m;
        } else {
            double acc = 0;
            for (int w = 0; w < n_words; w++) acc += words[(size_t)w * d + j];
            out[j] = (float)(acc / n_words);
        }
    }
}

/* ---- word-level attention (M2.4) ---- */

int enc_word_attention(int T, int n_heads, const float *R, int n_words, const int32_t *span, int renormalise,
                       float *out, char *err, size_t errlen)
{
    if (check_spans(T, n_words, span, err, errlen)) return SP_EUSAGE;
    double *row = sp_xmalloc(sizeof(double) * (size_t)(n_words > 0 ? n_words : 1));
    for (int a = 0; a < n_words; a++) {
        const int sa = span[2 * a], ea = span[2 * a + 1];
        double z = 0;
        for (int b = 0; b < n_words; b++) {
            const int sb = span[2 * b], eb = span[2 * b + 1];
            double acc = 0;
            for (int h = 0; h < n_heads; h++)
                for (int p = sa; p < ea; p++)
                    for (int q = sb; q < eb; q++) acc += R[((size_t)h * T + p) * T + q];
            row[b] = acc / ((double)(ea - sa) * n_heads);
            z += row[b];
        }
        for (int b = 0; b < n_words; b++)
            out[(size_t)a * n_words + b] = (float)(renormalise ? (z > 0 ? row[b] / z : 0.0) : row[b]);
    }
    free(row);
    return SP_OK;
}

/* ---- the bert family (struct enc_family): tokenizer + the model + M2 pooling behind enc_t ---- */

struct bert_family {
    enc_bert_t *bert;
    struct enc_hf_tok *tok;
};

static const char *const model_files[] = { "config.json", "model.safetensors", "vocab.txt", NULL };

/* "bert": a BertModel folder (model_type "bert" or none); "hf": the family its config.json names */
static int fam_has_kind(enum enc_kind k) { return k == ENC_BERT || k == ENC_HF; }
static const char *fam_want(const struct enc_config *c) { return c->kind == ENC_BERT ? "bert" : NULL; }

/* words in, the weights are the model directory's files, outputs of every layer */
static void fam_config_caps(const struct enc_config *c, struct enc_caps *caps)
{
    memset(caps, 0, sizeof *caps);
    caps->input = ENC_INPUT_WORDS;
    caps->layer_outputs = 1;
    caps->model_dir = c->bert_model;
    caps->model_files = c->kind == ENC_BERT ? model_files : enc_hf_model_files(c->bert_model);
    caps->attention = 1;
}

static int fam_config_layers(const struct enc_config *c, int *layers, char *err, size_t errlen)
{
    char path[sizeof c->bert_model + 16];
    struct enc_bert_config bc;
    const struct enc_hf_arch *a;
    snprintf(path, sizeof path, "%s/config.json", c->bert_model);
    int rc = enc_hf_config_read(path, fam_want(c), &bc, &a, err, errlen);
    *layers = rc == SP_OK ? bc.layers : 0;
    return rc;
}

static void fam_caps(const struct enc *e, struct enc_caps *caps)
{
    fam_config_caps(&e->cfg, caps);
    caps->layers = e->cfg.layers;
    caps->own_layer = e->cfg.bert_layer < 0 ? e->cfg.layers : e->cfg.bert_layer;
    caps->dim = caps->tok_dim = e->cfg.d_model;
    caps->attn_layers = e->cfg.layers;
    caps->needs = 0;                      /* the words only */
    const struct bert_family *f = e->fam_state;
    caps->max_positions = f && f->bert ? enc_bert_get_config(f->bert)->max_pieces : 0;
}

static const char *fam_backend_name(const struct enc *e)
{
    const struct bert_family *f = e->fam_state;
    return enc_bert_backend_name(f->bert);
}

static int fam_open_tokenizer(struct enc *e, struct bert_family *f, char *err, size_t errlen)
{
    const struct enc_bert_config *bc = enc_bert_get_config(f->bert);
    struct enc_tok_opts to;
    enc_tok_opts_defaults(&to);
    to.mode = e->cfg.wordpiece_only ? ENC_TOK_WORDPIECE_ONLY : ENC_TOK_BASIC_WORDPIECE;
    to.lower_case = e->cfg.lower_case;
    to.ptb_unescape = e->cfg.ptb_unescape;
    to.max_positions = bc->max_pieces;
    return enc_hf_tokenizer_open(enc_bert_model_dir(f->bert), e->cfg.kind == ENC_HF, &to, &f->tok, err, errlen);
}

static int fam_open(struct enc *e, enum enc_device device, const char *weights_path, const struct sp_logger *log,
                    char *err, size_t errlen)
{
    if (weights_path) {
        snprintf(err, errlen, "encoder: kind bert reads its weights from %s/model.safetensors; --weights does not apply",
                 e->cfg.bert_model);
        return SP_EUSAGE;
    }
    struct bert_family *f = e->fam_state = sp_xcalloc(1, sizeof *f);
    int rc = e->cfg.kind == ENC_BERT ? enc_bert_open(e->cfg.bert_model, device, log, &f->bert, err, errlen)
                                     : enc_hf_open(e->cfg.bert_model, device, log, &f->bert, err, errlen);
    if (rc != SP_OK) return rc;
    if ((rc = fam_open_tokenizer(e, f, err, errlen)) != SP_OK) return rc;
    if (e->cfg.kind == ENC_HF)
        sp_log(log, SP_LOG_INFO, "encoder: tokenizer %s/%s", e->cfg.bert_model, enc_hf_tok_what(f->tok));
    const struct enc_bert_config *bc = enc_bert_get_config(f->bert);
    if (e->cfg.bert_layer > bc->layers) {
        snprintf(err, errlen, "encoder: layer %d: the model has layers 0..%d (0 = embeddings)", e->cfg.bert_layer, bc->layers);
        return SP_EUSAGE;
    }
    e->cfg.d_model = e->cfg.d_input = bc->hidden_size;
    e->cfg.layers = bc->layers;
    e->cfg.heads = bc->heads;
    sp_log(log, SP_LOG_INFO, "encoder: %s %s (%d layers, d %d), layer %d, on %s", bc->model_type, enc_bert_model_dir(f->bert), bc->layers,
           bc->hidden_size, e->cfg.bert_layer < 0 ? bc->layers : e->cfg.bert_layer, enc_bert_backend_name(f->bert));
    return SP_OK;
}

/* the tensors of the model directory's config.json, by build (the code enc_bert_open runs) */
static int fam_weights_layout(struct enc *e, struct enc_weights_rules *rules, char *err, size_t errlen)
{
    char path[sizeof e->cfg.bert_model + 16];
    snprintf(path, sizeof path, "%s/config.json", e->cfg.bert_model);
    struct enc_bert *b = sp_xcalloc(1, sizeof *b);
    int rc = enc_hf_config_read(path, fam_want(&e->cfg), &b->c, &b->arch, err, errlen);
    if (rc == SP_OK) {
        build(b);
        e->param = b->e.param;
        e->n_param = b->e.n_param;
        bert_rules(rules, b->arch, &b->c);
    }
    free(b->layer);
    free(b);
    return rc;
}

static void fam_close(struct enc *e)
{
    struct bert_family *f = e->fam_state;
    if (!f) return;
    enc_bert_close(f->bert);
    enc_hf_tok_close(f->tok);
    free(f);
    e->fam_state = NULL;
}

static int fam_fits(const struct enc *e, const char *const *words, int n)
{
    const struct bert_family *f = e->fam_state;
    struct enc_tok_sentence ts = { 0 };
    char err[SP_ERRLEN];              /* a sentence the tokenizer refuses: forward says why */
    int fits = enc_hf_tok_sentence(f->tok, words, n, &ts, err, sizeof err) < 0 || !ts.too_long;
    enc_tok_sentence_free(&ts);
    return fits;
}

/* One forward's per-sentence pieces: the tokenized words, the model's input and outputs. */
struct fam_batch {
    int ns;
    struct enc_tok_sentence *ts;
    struct enc_bert_input *bi;
    float **hid, **att;        /* [ns] -> [L+1, T, d] and [L, H, T, T] (att NULL: no maps wanted) */
    int32_t **types;
};

static void fam_batch_free(struct fam_batch *fb)
{
    for (int b = 0; b < fb->ns; b++) {
        enc_tok_sentence_free(&fb->ts[b]);
        free(fb->hid[b]);
        if (fb->att) free(fb->att[b]);
        free(fb->types[b]);
    }
    free(fb->ts); free(fb->bi); free(fb->hid); free(fb->att); free(fb->types);
}

/* The layer masks the outputs want (only these come back from the model); SP_EUSAGE naming a
 * layer or attention layer the model does not have. */
static int fam_masks(int L, int n_out, const int *layers, const struct enc_output *outs, float **const *heads,
                     uint64_t *hid_mask, uint64_t *att_mask, char *err, size_t errlen)
{
    *hid_mask = *att_mask = 0;
    for (int i = 0; i < n_out; i++) {
        if (layers[i] < 0 || layers[i] > L) {
            snprintf(err, errlen, "encoder: layer %d: the model has layers 0..%d (0 = embeddings)", layers[i], L);
            return SP_EUSAGE;
        }
        *hid_mask |= (uint64_t)1 << layers[i];
        if (!outs[i].attn && !(heads && heads[i])) continue;
        int al = outs[i].attn_layer < 0 ? L - 1 : outs[i].attn_layer;
        if (al >= L) {
            snprintf(err, errlen, "encoder: attn_layer %d: expected -1 or 0..%d", outs[i].attn_layer, L - 1);
            return SP_EUSAGE;
        }
        *att_mask |= (uint64_t)1 << al;
    }
    return SP_OK;
}

/* Tokenize every sentence and allocate its outputs. */
static int fam_tokenize(const struct enc *e, const struct enc_batch *in, int want_attn, struct fam_batch *fb,
                        char *err, size_t errlen)
{
    const struct bert_family *f = e->fam_state;
    const struct enc_bert_config *bc = enc_bert_get_config(f->bert);
    const int ns = in->n_sent, d = bc->hidden_size, L = bc->layers, H = bc->heads;
    const size_t cap = (size_t)(ns > 0 ? ns : 1);
    *fb = (struct fam_batch){ ns, sp_xcalloc(cap, sizeof *fb->ts), sp_xcalloc(cap, sizeof *fb->bi),
                              sp_xcalloc(cap, sizeof *fb->hid), want_attn ? sp_xcalloc(cap, sizeof *fb->att) : NULL,
                              sp_xcalloc(cap, sizeof *fb->types) };
    for (int b = 0; b < ns; b++) {
        const struct enc_sentence *s = &in->sent[b];
        if (!s->words || s->n <= 0) { snprintf(err, errlen, "encoder: sentence %d: kind bert needs its words", b); return SP_EUSAGE; }
        int T = enc_hf_tok_sentence(f->tok, s->words, s->n, &fb->ts[b], err, errlen);
        if (T < 0) return -T;
        if (fb->ts[b].too_long) {
            snprintf(err, errlen, "encoder: sentence %d: %d pieces, more than the model's %d positions", b, T, bc->max_positions);
            return SP_EUSAGE;
        }
        if (e->cfg.token_type) {
            fb->types[b] = sp_xmalloc(sizeof(int32_t) * (size_t)T);
            for (int p = 0; p < T; p++) fb->types[b][p] = 1;
        }
        fb->bi[b] = (struct enc_bert_input){ T, fb->ts[b].ids.id, fb->types[b] };
        fb->hid[b] = sp_xmalloc(sizeof(float) * (size_t)(L + 1) * (size_t)T * (size_t)d);
        if (fb->att) fb->att[b] = sp_xmalloc(sizeof(float) * (size_t)L * H * (size_t)T * (size_t)T);
    }
    return SP_OK;
}

/* Sentence b's output i: layer layers[i] pooled into words and the sentence (M2.2, M2.3), the
 * heads of attention layer out->attn_layer averaged into a word-level map (M2.4), and each head's
 * own word-level map when heads[i][b] is wanted. */
static int fam_pool(const struct enc *e, const struct fam_batch *fb, int b, int n, const int32_t *span, int layer,
                    struct enc_output *out, float *const *head_maps, char *err, size_t errlen)
{
    const struct bert_family *f = e->fam_state;
    const struct enc_bert_config *bc = enc_bert_get_config(f->bert);
    const int d = bc->hidden_size, L = bc->layers, H = bc->heads, T = fb->bi[b].n;
    const float *X = fb->hid[b] + (size_t)layer * T * d;
    float *words = out->tok ? out->tok[b] : sp_xmalloc(sizeof(float) * (size_t)n * d);
    int rc = enc_pool_words(T, d, X, n, span, (enum enc_word_pool)e->cfg.word_pool, words, err, errlen);
    if (rc == SP_OK) enc_pool_sentence(d, X, n, words, (enum enc_sent_pool)e->cfg.sent_pool, out->sent + (size_t)b * d);
    const int al = out->attn_layer < 0 ? L - 1 : out->attn_layer;
    if (rc == SP_OK && out->attn && out->attn[b])
        rc = enc_word_attention(T, H, fb->att[b] + (size_t)al * H * T * T, n, span, 1, out->attn[b], err, errlen);
    if (rc == SP_OK && head_maps && head_maps[b])
        for (int h = 0; rc == SP_OK && h < H; h++)
            rc = enc_word_attention(T, 1, fb->att[b] + ((size_t)al * H + h) * T * T, n, span, 1,
                                    head_maps[b] + (size_t)h * n * n, err, errlen);
    if (!out->tok) free(words);
    return rc;
}

/* Tokenize, run the model once for the batch, and pool each requested output (M2). layers NULL:
 * the config's own layer. */
static int fam_forward(struct enc *e, const struct enc_batch *in, int n_out, const int *layers, struct enc_output *outs,
                       float **const *heads, char *err, size_t errlen)
{
    const struct bert_family *f = e->fam_state;
    const int L = enc_bert_get_config(f->bert)->layers;
    const int own = e->cfg.bert_layer < 0 ? L : e->cfg.bert_layer;
    if (!layers) layers = &own;
    uint64_t hid_mask, att_mask;
    int rc = fam_masks(L, n_out, layers, outs, heads, &hid_mask, &att_mask, err, errlen);
    if (rc != SP_OK) return rc;
    struct fam_batch fb;
    rc = fam_tokenize(e, in, att_mask != 0, &fb, err, errlen);
    if (rc == SP_OK) rc = enc_bert_forward(f->bert, fb.ns, fb.bi, fb.hid, hid_mask, fb.att, att_mask, err, errlen);
    int32_t *span = NULL;
    for (int b = 0; b < fb.ns && rc == SP_OK; b++) {
        const int n = in->sent[b].n;
        span = sp_xrealloc(span, sizeof(int32_t) * 2 * (size_t)n);
        for (int w = 0; w < n; w++) { span[2 * w] = fb.ts[b].start[w]; span[2 * w + 1] = fb.ts[b].end[w]; }
        for (int i = 0; i < n_out && rc == SP_OK; i++)
            rc = fam_pool(e, &fb, b, n, span, layers[i], &outs[i], heads ? heads[i] : NULL, err, errlen);
    }
    free(span);
    fam_batch_free(&fb);
    return rc;
}

const struct enc_family enc_bert_family = {
    .name = "bert",
    .has_kind = fam_has_kind,
    .config_caps = fam_config_caps,
    .config_layers = fam_config_layers,
    .open = fam_open,
    .caps = fam_caps,
    .forward = fam_forward,
    .fits = fam_fits,
    .backend_name = fam_backend_name,
    .close = fam_close,
    .weights_layout = fam_weights_layout,
};
