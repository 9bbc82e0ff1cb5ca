/* encoder/enc_decoder.c — decoder-only language models under kind "hf" (issue 38): the forward
 * graph of every row of enc_hf.c's decoder table (gpt2, gpt_neox, opt, phi, and llama with its
 * variants gemma, mistral, qwen2), written once on the backend ops, and the family slots
 * (tokenizer + model + pooling) behind enc_t.
 *
 * How it works: config.json's model_type picks the row (enc_dec_config_read); the row's tensors go
 * into the parameter registry under their names (a Linear [out, in] held transposed as bert's;
 * GPT-2's Conv1D is already [in, out]). Matrices stay in the file's dtype (views): the CPU packs
 * them from the mapping (f16/bf16 panels widened inside the product), a device gets f32 copies.
 * q/k/v are one product with a [d, d + 2·dkv] weight (dkv: the kv_heads' width; GPT-NeoX's fused
 * query_key_value, [heads, 3, dk], regrouped into q | k | v); the attention op's kv_heads maps each
 * query head on its group's key/value head (grouped-query attention: transformers' repeat_kv
 * without the copies or the repeated products).
 *
 * The graph (pre-norm): x⁰ = the embeddings (GPT-2, OPT: + learned positions, OPT's from row 2;
 * Gemma: × sqrt(hidden)); per block
 *   x += o(attn_causal(qkv(norm1(x)) with RoPE on q and k));  x += mlp(norm2(x))
 * with MLP = down(act(up)) or down(glu(gate)·up) (SwiGLU, Gemma's GeGLU). GPT-NeoX's parallel
 * residual is x = (mlp(norm2(x)) + o(...)) + x, Phi's the same with norm1 feeding both; GPT-NeoX
 * and Phi rotate only the first rope_rot columns of each head; Gemma's RMSNorm multiplies by
 * (1 + w) (the weights so changed once at open). The attention op runs with every head's
 * direction ENC_DIR_FWD: query i sees keys 0..i (the causal mask); Mistral's sliding window
 * (query i sees keys i − window .. i: transformers 4.40.2's eager mask, window + 1 keys) is the
 * op's allow mask of each sentence longer than that.
 *
 * RoPE: each row's cos/sin are computed on the host as transformers 4.40.2 does in float32
 * (inv_freq = 1 / θ^(2k/rot); linear scaling divides the position; dynamic NTK rescales θ by the
 * SENTENCE's length when it exceeds max_position_embeddings — transformers uses the padded
 * batch's and keeps the last θ it computed: synprobe is what transformers gives for the sentence
 * alone on a fresh model; llama3's bands by the published rule, which 4.40.2 lacks) and
 * uploaded, [rows, rot]; ops->rope rotates in place.
 *
 * Layers out (the "stream" config option, enum enc_dec_stream): layer 0 = the embeddings, layer l
 * = the residual stream after block l; by default the last one through the final norm (ln_f /
 * norm), exactly transformers' output_hidden_states; "residual": no norm anywhere; "post-norm": the
 * final norm on every layer (0..L).
 *
 * Words: a word's pieces are those running text gives it (enc_hf_tokenizer_open_text: the
 * leading-space rule), pooled by "word_pool" (default "last": a left-to-right model's word is
 * complete at its last piece); the sentence is "sent_pool" of the words ("mean" default, "last":
 * the final word's). A BOS the post-processor adds (add_bos: default as it does; true/false
 * forces it) belongs to no word: word-level attention drops its column and renormalises each row
 * (the attention sink); "drop_sink" drops the first piece's column whatever it is (a model without
 * BOS: its first word's first piece).
 *
 * Gemma's head_dim may differ from hidden / heads (gemma-7b): q and the attention's output are
 * heads·head_dim wide, o maps them back to hidden.
 *
 * Not done (each refused naming its key): Qwen2's use_sliding_window, GPT-NeoX's and Phi's rope_scaling, Phi's qk_layernorm, OPT's post-LN
 * and projections; a workspace cap. */
#include "encoder/encoder_int.h"
#include "encoder/enc_formulas.h"
#include "encoder/tokenizer.h"

#include <limits.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>

struct dec_layer {
    struct enc_ln ln1, ln2;     /* b -1: RMSNorm */
    struct enc_lin q, k, v, o, gate, up, down;   /* GPT-2: q is c_attn [d, 3d] (GPT-NeoX: query_key_value);
                                                  * k, v, gate w -1 where there are none */
    float *wqkv, *bqkv;         /* all but GPT-2: the fused [d, d + 2·dkv] weight (with ops->pack_weight only its
                                 * key) and bias (backend; NULL: none) */
};

struct enc_dec {
    struct enc e;               /* registry + backend */
    struct enc_dec_config c;
    const struct enc_dec_arch *arch;
    struct enc_sft sft;
    char *dir;
    int emb, pos;               /* param indices (pos -1: none) */
    struct enc_ln fn;           /* the final norm */
    struct dec_layer *layer;
    /* workspace */
    size_t cap_rows, cap_nn;
    float *x, *h, *qkv, *ctx, *t, *zg, *zu, *ho, *amap, *cs;   /* backend */
    float *hE, *hcs, *row;      /* host: embeddings, cos/sin, one widened row */
    uint8_t *allow, *hallow;    /* sliding window: the masks of the long sentences (backend; host), cap_allow bytes */
    size_t cap_allow;
    struct enc_attn_args *args, *hargs;
    int cap_args, cap_hargs;
    void **pdst;
    size_t *pbytes;
};

/* ---- the tensor map ---- */

static int add(struct enc_dec *b, const char *name, int rows, int cols, int transposed, int view)
{
    int i = enc_param_add(&b->e, name, rows, cols, ENC_INIT_ZERO);
    b->e.param[i].transposed = (uint8_t)transposed;
    b->e.param[i].view = (uint8_t)view;
    return i;
}

/* "pfx.weight" (+ "pfx.bias" when bias): a Linear [out, in] (conv 0) or a Conv1D [in, out] (conv 1), held [in, out] */
static struct enc_lin add_lin(struct enc_dec *b, const char *lp, const char *pfx, int in, int out, int bias, int conv)
{
    char nm[160];
    struct enc_lin L;
    snprintf(nm, sizeof nm, "%s%s.weight", lp, pfx);
    L.w = add(b, nm, in, out, !conv, 1);
    snprintf(nm, sizeof nm, "%s%s.bias", lp, pfx);
    L.b = bias ? add(b, nm, out, 0, 0, 0) : -1;
    return L;
}

static struct enc_ln add_norm(struct enc_dec *b, const char *lp, const char *pfx, int d)
{
    char nm[160];
    struct enc_ln L;
    snprintf(nm, sizeof nm, "%s%s.weight", lp, pfx);
    L.g = add(b, nm, d, 0, 0, 0);
    snprintf(nm, sizeof nm, "%s%s.bias", lp, pfx);
    L.b = b->c.norm == ENC_DEC_LAYERNORM ? add(b, nm, d, 0, 0, 0) : -1;
    return L;
}

static void build(struct enc_dec *b)
{
    const struct enc_dec_config *c = &b->c;
    const struct enc_dec_arch *a = b->arch;
    const int d = c->hidden_size, F = c->intermediate_size, dq = c->head_dim * c->heads, dkv = c->head_dim * c->kv_heads,
              g = a->gpt2;
    b->emb = add(b, a->emb, c->vocab_size, d, 0, 1);
    b->pos = a->pos ? add(b, a->pos, c->max_positions + c->pos_offset, d, 0, 1) : -1;
    b->layer = sp_xcalloc((size_t)c->layers, sizeof *b->layer);
    for (int l = 0; l < c->layers; l++) {
        struct dec_layer *L = &b->layer[l];
        char lp[96];
        snprintf(lp, sizeof lp, a->layer, l);
        L->ln1 = add_norm(b, lp, a->ln1, d);
        if (g || a->neox) {                /* GPT-2's c_attn (Conv1D), GPT-NeoX's query_key_value (Linear, interleaved) */
            L->q = add_lin(b, lp, a->q, d, 3 * d, g || c->attn_bias, g);
            L->k = L->v = (struct enc_lin){ -1, -1 };
        } else {
            L->q = add_lin(b, lp, a->q, d, dq, c->attn_bias, 0);
            L->k = add_lin(b, lp, a->k, d, dkv, c->attn_bias, 0);
            L->v = add_lin(b, lp, a->v, d, dkv, c->attn_bias, 0);
        }
        L->o = add_lin(b, lp, a->o, dq, d, c->o_bias, g);
        L->ln2 = a->ln2 ? add_norm(b, lp, a->ln2, d) : (struct enc_ln){ -1, -1 };   /* Phi: ln1's output feeds the MLP too */
        L->gate = a->ff_gate ? add_lin(b, lp, a->ff_gate, d, F, c->mlp_bias, g) : (struct enc_lin){ -1, -1 };
        L->up = add_lin(b, lp, a->ff_up, d, F, c->mlp_bias, g);
        L->down = add_lin(b, lp, a->ff_down, F, d, c->mlp_bias, g);
    }
    b->fn = add_norm(b, "", a->final_norm, d);
}

/* buffers some checkpoints keep that nobody reads: GPT-2's and GPT-NeoX's causal masks (h.N.attn.bias,
 * .masked_bias; layers.N.attention.bias, .masked_bias), rotary_emb.inv_freq */
static int dec_ignored(const char *nm)
{
    size_t L = strlen(nm);
    static const char *const tails[] = { ".attn.bias", ".attn.masked_bias", ".attention.bias", ".attention.masked_bias",
                                         ".rotary_emb.inv_freq" };
    for (size_t i = 0; i < sizeof tails / sizeof tails[0]; i++) {
        size_t t = strlen(tails[i]);
        if (L >= t && !strcmp(nm + L - t, tails[i])) return 1;
    }
    return 0;
}

static void dec_rules(struct enc_weights_rules *r, const struct enc_dec_arch *a, const struct enc_dec_config *c)
{
    memset(r, 0, sizeof *r);
    r->widen = 1;
    r->prefix = a->prefix;
    r->ignore = a->heads;
    r->ignored = dec_ignored;
    snprintf(r->what, sizeof r->what, "a %s model with this config.json: %d layers", a->model_type, c->layers);
}

static int load(struct enc_dec *b, const struct sp_logger *log, char *err, size_t errlen)
{
    struct enc_sft s;
    int rc = enc_sft_open_model(b->dir, &s, err, errlen);
    if (rc) return rc;
    struct enc_weights_rules rules;
    struct enc_weights_report r = { 0 };
    dec_rules(&rules, b->arch, &b->c);
    rc = enc_weights_match_read(&b->e, &s, &rules, b->e.host_block, 0, &r, err, errlen);
    if (rc == SP_OK) enc_weights_bind_views(&b->e, &s, &rules);
    if (rc == SP_OK && r.n_ignored)
        sp_log(log, SP_LOG_INFO, "%s: %s: ignoring %d tensor%s not used for encoding (%s, ...)", b->c.model_type, s.path,
               r.n_ignored, r.n_ignored == 1 ? "" : "s", r.ignored[0]);
    enc_weights_report_free(&r);
    if (rc == SP_OK) b->sft = s;
    else enc_sft_close(&s);
    return rc;
}

/* a view parameter as a part of a packed weight: its columns j0..j0+cols-1 */
static struct enc_wpart wpart_cols(const struct enc_param *p, int j0, int cols)
{
    const size_t es = p->dtype == ENC_DT_F32 ? 4 : 2;
    if (p->transposed)                     /* the file's [out, in]: column j is the file's row j */
        return (struct enc_wpart){ (const char *)p->src + (size_t)j0 * p->shape[0] * es, p->dtype, cols, p->shape[0], 1 };
    return (struct enc_wpart){ (const char *)p->src + (size_t)j0 * es, p->dtype, cols, p->shape[1], 0 };
}

static void release(struct enc_dec *b, const struct enc_param *p)
{
    for (int i = 0; i < b->sft.n; i++)
        if (b->sft.t[i].data == p->src) { enc_sft_release(&b->sft, &b->sft.t[i]); return; }
}

/* the column blocks of the fused [d, d + 2·dkv] q|k|v weight: Llama's q, k, v as they are (k and v
 * hold the kv_heads heads: the attention op's kv_heads maps each query head on its group's);
 * GPT-NeoX's query_key_value regrouped */
static int qkv_parts(const struct enc_dec *b, const struct dec_layer *L, struct enc_wpart *parts)
{
    const struct enc *e = &b->e;
    const int H = b->c.heads, dk = b->c.head_dim;
    int n = 0;
    if (b->arch->neox) {                   /* query_key_value's outputs are [heads, 3, dk]: q heads, k heads, v heads */
        for (int p = 0; p < 3; p++)
            for (int h = 0; h < H; h++) parts[n++] = wpart_cols(&e->param[L->q.w], (3 * h + p) * dk, dk);
        return n;
    }
    parts[n++] = wpart_cols(&e->param[L->q.w], 0, dk * H);
    parts[n++] = wpart_cols(&e->param[L->k.w], 0, dk * b->c.kv_heads);
    parts[n++] = wpart_cols(&e->param[L->v.w], 0, dk * b->c.kv_heads);
    return n;
}

/* Every matrix ready for the products: on a packing backend (the CPU) each packed from the
 * mapping under its key (Llama's q|k|v fused), elsewhere uploaded f32 by enc_param_upload and
 * the fused q|k|v built on the host. The fused bias, on the backend. */
static int prepare_weights(struct enc_dec *b, char *err, size_t errlen)
{
    struct enc *e = &b->e;
    const struct enc_dec_config *c = &b->c;
    const int d = c->hidden_size, H = c->heads, dk = c->head_dim, dq = dk * H, dkv = dk * c->kv_heads;
    const size_t d3 = (size_t)dq + 2 * (size_t)dkv;    /* the fused q | k | v width */
    const int pack = e->be.ops->pack_weight != NULL;
    struct enc_wpart *parts = sp_xmalloc(sizeof *parts * (size_t)(1 + 3 * H));
    float *w = pack ? NULL : sp_xmalloc(sizeof(float) * (size_t)d * d3), *src = pack ? NULL : sp_xmalloc(sizeof(float) * (size_t)d * dq);
    float *bias = sp_xmalloc(sizeof(float) * d3);
    int rc = SP_OK;
    for (int l = 0; l < c->layers && rc == SP_OK; l++) {
        struct dec_layer *L = &b->layer[l];
        if (!b->arch->gpt2) {              /* q | k, v heads repeated per group */
            if (pack) {
                L->wqkv = (float *)(void *)&L->wqkv;   /* the key: never read */
                rc = e->be.ops->pack_weight(&e->be, L->wqkv, d, (int)d3, parts, qkv_parts(b, L, parts));
            } else if (b->arch->neox) {       /* [d, 3d] with head h's q, k, v at columns (3h + p)·dk */
                float *all = sp_xmalloc(sizeof(float) * (size_t)d * d3);
                enc_param_widen(&e->param[L->q.w], all);
                for (int i = 0; i < d; i++)
                    for (int p = 0; p < 3; p++)
                        for (int h = 0; h < H; h++)
                            memcpy(w + (size_t)i * d3 + (size_t)p * d + (size_t)h * dk, all + (size_t)i * d3 + (size_t)(3 * h + p) * dk,
                                   sizeof(float) * (size_t)dk);
                free(all);
                if (!(L->wqkv = e->be.ops->alloc(&e->be, sizeof(float) * (size_t)d * d3))) rc = SP_ENOMEM;
                else e->be.ops->upload(&e->be, L->wqkv, w, sizeof(float) * (size_t)d * d3);
            } else {
                const struct enc_lin pr[3] = { L->q, L->k, L->v };
                for (int p = 0, at = 0; p < 3; at += p ? dkv : dq, p++) {
                    const int out = p ? dkv : dq;
                    enc_param_widen(&e->param[pr[p].w], src);          /* [d, out] */
                    for (int i = 0; i < d; i++) memcpy(w + (size_t)i * d3 + at, src + (size_t)i * out, sizeof(float) * (size_t)out);
                }
                if (!(L->wqkv = e->be.ops->alloc(&e->be, sizeof(float) * (size_t)d * d3))) rc = SP_ENOMEM;
                else e->be.ops->upload(&e->be, L->wqkv, w, sizeof(float) * (size_t)d * d3);
            }
            if (rc == SP_OK && L->q.b >= 0) {
                if (b->arch->neox) {
                    const float *bqkv = e->param[L->q.b].host;
                    for (int p = 0; p < 3; p++)
                        for (int h = 0; h < H; h++)
                            memcpy(bias + (size_t)p * d + (size_t)h * dk, bqkv + (size_t)(3 * h + p) * dk, sizeof(float) * (size_t)dk);
                } else {
                    memcpy(bias, e->param[L->q.b].host, sizeof(float) * (size_t)dq);
                    memcpy(bias + dq, e->param[L->k.b].host, sizeof(float) * (size_t)dkv);
                    memcpy(bias + dq + dkv, e->param[L->v.b].host, sizeof(float) * (size_t)dkv);
                }
                if (!(L->bqkv = e->be.ops->alloc(&e->be, sizeof(float) * d3))) rc = SP_ENOMEM;
                else e->be.ops->upload(&e->be, L->bqkv, bias, sizeof(float) * d3);
            }
            if (pack && rc == SP_OK) {
                release(b, &e->param[L->q.w]);
                if (L->k.w >= 0) { release(b, &e->param[L->k.w]); release(b, &e->param[L->v.w]); }
            }
        }
        if (!pack) continue;
        const struct enc_lin one[5] = { b->arch->gpt2 ? L->q : (struct enc_lin){ -1, -1 }, L->o, L->gate, L->up, L->down };
        for (int k = 0; k < 5 && rc == SP_OK; k++) {
            if (one[k].w < 0) continue;
            struct enc_param *p = &e->param[one[k].w];
            const struct enc_wpart wp = wpart_cols(p, 0, p->shape[1]);
            p->dev = (float *)(uintptr_t)p->src;       /* the key: never read as floats */
            rc = e->be.ops->pack_weight(&e->be, p->dev, p->shape[0], p->shape[1], &wp, 1);
            if (rc == SP_OK) release(b, p);
        }
    }
    free(parts);
    free(w);
    free(src);
    free(bias);
    if (rc != SP_OK) {
        snprintf(err, errlen, "%s: cannot prepare the layers' weights on %s", c->model_type, e->be.ops->name);
        return rc;
    }
    return e->be.ops->sync(&e->be, err, errlen);
}

/* ---- open / close ---- */

static void dec_close(struct enc_dec *b)
{
    if (!b) return;
    struct enc *e = &b->e;
    if (e->be.ops) {
        float *bufs[] = { b->x, b->h, b->qkv, b->ctx, b->t, b->zg, b->zu, b->ho, b->amap, b->cs };
        for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) if (bufs[i]) e->be.ops->free(&e->be, bufs[i]);
        for (int l = 0; b->layer && l < b->c.layers; l++) {
            if (b->layer[l].bqkv) e->be.ops->free(&e->be, b->layer[l].bqkv);
            if (!e->be.ops->pack_weight && b->layer[l].wqkv) e->be.ops->free(&e->be, b->layer[l].wqkv);
        }
        if (!e->be.host_memory)
            for (int i = 0; i < e->n_param; i++) if (e->param[i].dev) e->be.ops->free(&e->be, e->param[i].dev);
        if (b->allow) e->be.ops->free(&e->be, b->allow);
        e->be.ops->close(&e->be);
    }
    free(e->param);
    free(e->host_block);
    enc_sft_close(&b->sft);
    free(b->hE); free(b->hcs); free(b->row); free(b->hallow);
    free(b->args); free(b->hargs); free(b->pdst); free(b->pbytes);
    free(b->layer);
    free(b->dir);
    free(b);
}

static int config_path(const char *dir, char *p, size_t n, char *err, size_t errlen)
{
    struct stat st;
    snprintf(p, n, "%s/config.json", dir);
    if (stat(p, &st) != 0) {
        snprintf(err, errlen, "%s: cannot open (a model folder is what save_pretrained writes: config.json, model.safetensors)", p);
        return SP_EIO;
    }
    return SP_OK;
}

int enc_dec_open(const char *dir, enum enc_device device, const struct sp_logger *log, struct enc_dec **out, char *err,
                 size_t errlen)
{
    *out = NULL;
    char path[4200];
    int rc = config_path(dir, path, sizeof path, err, errlen);
    if (rc) return rc;
    struct enc_dec *b = sp_xcalloc(1, sizeof *b);
    b->dir = sp_xstrdup(dir);
    rc = enc_dec_config_read(path, &b->c, &b->arch, err, errlen);
    if (rc == SP_OK) rc = enc_backend_select(&b->e, device, log, err, errlen);
    if (rc == SP_OK) {
        build(b);
        enc_param_alloc_init(&b->e);
        rc = load(b, log, err, errlen);
    }
    if (rc == SP_OK && b->c.norm_plus_one) {          /* Gemma's RMSNorm multiplies by (1 + w): that, once, in float32 */
        for (int l = 0; l <= b->c.layers; l++) {
            const int gi[2] = { l < b->c.layers ? b->layer[l].ln1.g : b->fn.g, l < b->c.layers ? b->layer[l].ln2.g : -1 };
            for (int k = 0; k < 2; k++) {
                if (gi[k] < 0) continue;
                float *g = b->e.param[gi[k]].host;
                for (int j = 0; j < b->c.hidden_size; j++) g[j] = 1.0f + g[j];
            }
        }
    }
    if (rc == SP_OK) rc = enc_param_upload(&b->e, err, errlen);
    if (rc == SP_OK) rc = prepare_weights(b, err, errlen);
    if (rc != SP_OK) { dec_close(b); return rc; }
    sp_log(log, SP_LOG_INFO, "encoder: %s %s (decoder: %d layers, d %d, %d heads, %d kv heads, vocab %d) on %s", b->c.model_type, dir,
           b->c.layers, b->c.hidden_size, b->c.heads, b->c.kv_heads, b->c.vocab_size, b->e.be.ops->name);
    *out = b;
    return SP_OK;
}

void enc_dec_close(struct enc_dec *b) { dec_close(b); }
const struct enc_dec_config *enc_dec_get_config(const struct enc_dec *b) { return &b->c; }

/* ---- forward ---- */

#define OPS (e->be.ops)
#define BE (&e->be)
#define DEC_GROUP_ROWS 512

static int reserve(struct enc_dec *b, size_t rows, size_t nn, int want_attn, char *err, size_t errlen)
{
    struct enc *e = &b->e;
    const size_t d = (size_t)b->c.hidden_size, F = (size_t)b->c.intermediate_size, H = (size_t)b->c.heads;
    if (rows <= b->cap_rows && (!want_attn || (b->ho && nn <= b->cap_nn))) return SP_OK;
    if (rows < b->cap_rows) rows = b->cap_rows; else if (rows < 2 * b->cap_rows) rows = 2 * b->cap_rows;
    if (nn < b->cap_nn) nn = b->cap_nn; else if (nn < 2 * b->cap_nn) nn = 2 * b->cap_nn;
    float **bufs[] = { &b->x, &b->h, &b->qkv, &b->ctx, &b->t, &b->zg, &b->zu, &b->ho, &b->amap, &b->cs };
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) if (*bufs[i]) { OPS->free(BE, *bufs[i]); *bufs[i] = NULL; }
    b->cap_rows = b->cap_nn = 0;
    int fail = 0;
#define A(p, floats) do { if (!((p) = OPS->alloc(BE, sizeof(float) * (floats)))) fail = 1; } while (0)
    const size_t dq = (size_t)b->c.head_dim * H, ld = dq + 2 * (size_t)b->c.head_dim * b->c.kv_heads;
    A(b->x, rows * d); A(b->h, rows * d); A(b->qkv, rows * ld); A(b->ctx, rows * (dq > d ? dq : d)); A(b->t, rows * d);
    A(b->zg, rows * F); A(b->zu, rows * F);
    if (b->c.rope) A(b->cs, rows * (size_t)b->c.rope_rot);
    if (want_attn) { A(b->ho, rows * dq); if (!BE->host_memory) A(b->amap, H * nn); }
#undef A
    if (fail) {
        snprintf(err, errlen, "%s: cannot allocate the workspace for %zu pieces on %s", b->c.model_type, rows, OPS->name);
        return SP_ENOMEM;
    }
    b->hE = sp_xrealloc(b->hE, sizeof(float) * rows * d);
    if (b->c.rope) b->hcs = sp_xrealloc(b->hcs, sizeof(float) * rows * (size_t)b->c.rope_rot);
    b->cap_rows = rows;
    b->cap_nn = want_attn ? nn : 0;
    return SP_OK;
}

static void lin(struct enc *e, int n, const float *X, struct enc_lin L, float *Y)
{
    const struct enc_param *W = &e->param[L.w];
    OPS->linear(BE, n, W->shape[0], W->shape[1], X, W->shape[0], W->dev, W->shape[1], enc_w(e, L.b), Y, W->shape[1], 0);
}

static void norm(struct enc_dec *b, int n, const float *x, struct enc_ln L, float *out)
{
    struct enc *e = &b->e;
    if (b->c.norm == ENC_DEC_RMSNORM) OPS->rms_norm(BE, n, b->c.hidden_size, x, enc_w(e, L.g), b->c.eps, out);
    else OPS->layer_norm(BE, n, b->c.hidden_size, x, enc_w(e, L.g), enc_w(e, L.b), b->c.eps, out);
}

static void download_layer(struct enc_dec *b, int n_sent, const struct enc_bert_input *in, const float *x, int l, float **hidden)
{
    struct enc *e = &b->e;
    const size_t d = (size_t)b->c.hidden_size;
    for (int s = 0; s < n_sent; s++) {
        b->pdst[s] = hidden[s] + (size_t)l * in[s].n * d;
        b->pbytes[s] = sizeof(float) * (size_t)in[s].n * d;
    }
    if (OPS->download_pieces_later) OPS->download_pieces_later(BE, n_sent, b->pdst, b->pbytes, x);
    else OPS->download_pieces(BE, n_sent, b->pdst, b->pbytes, x);
}

/* RoPE's cos and sin of a sentence of n pieces, rows [n, dk] into cs (transformers 4.40.2's
 * LlamaRotaryEmbedding and its scalings, in float32) */
static void rope_rows(const struct enc_dec_config *c, int n, float *cs)
{
    const int dk = c->rope_rot, h2 = dk / 2;    /* the rotated width (the head's, or GPT-NeoX's part of it) */
    float base = (float)c->rope_theta;
    if (c->rope == ENC_ROPE_DYNAMIC && n > c->max_positions) {   /* seq_len = max(position_ids) + 1 */
        float t = (float)c->rope_factor * (float)n;
        t = t / (float)c->max_positions;
        t = t - (float)(c->rope_factor - 1);
        base = base * powf(t, (float)((double)dk / (dk - 2)));
    }
    float inv[512];
    SP_ASSERT(h2 <= 512);
    for (int k = 0; k < h2; k++) inv[k] = 1.0f / powf(base, (float)(2 * k) / (float)dk);
    if (c->rope == ENC_ROPE_LLAMA3)            /* Llama 3.1's bands (transformers 4.43's _compute_llama3_parameters, float32) */
        for (int k = 0; k < h2; k++) {
            const float f = (float)c->rope_factor, lo = (float)c->rope_low, hi = (float)c->rope_high, old = (float)c->rope_orig;
            const float wl = (float)(2 * M_PI) / inv[k], low_wl = (float)(c->rope_orig / c->rope_low),
                        high_wl = (float)(c->rope_orig / c->rope_high);
            const float il = wl > low_wl ? inv[k] / f : inv[k];
            if (wl < high_wl || wl > low_wl) { inv[k] = il; continue; }
            const float sm = (old / wl - lo) / (hi - lo);
            inv[k] = (1 - sm) * il / f + sm * il;
        }
    for (int p = 0; p < n; p++) {
        float pos = (float)p;
        if (c->rope == ENC_ROPE_LINEAR) pos = pos / (float)c->rope_factor;
        float *row = cs + (size_t)p * dk;
        for (int k = 0; k < h2; k++) {
            const float f = inv[k] * pos;
            row[k] = cosf(f);
            row[h2 + k] = sinf(f);
        }
    }
}

/* P_h of layer l for every sentence and head, each head alone (as enc_bert.c's head_maps) */
static void head_maps(struct enc_dec *b, int n_sent, const struct enc_bert_input *in, int l, size_t nn, float **attn)
{
    struct enc *e = &b->e;
    const int H = b->c.heads, dh = b->c.head_dim;
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
            a->kv_heads = 0;
            a->q = b->args[s].q + (size_t)h * dh;
            a->k = b->args[s].k + enc_f_kv_off(h, H, b->args[s].kv_heads, dh);
            a->v = b->args[s].v + enc_f_kv_off(h, H, b->args[s].kv_heads, dh);
            a->out = b->ho + ((size_t)h * rows + r0) * dh;
            a->attn_mean = BE->host_memory ? attn[s] + ((size_t)l * H + h) * n * n : b->amap + (size_t)h * nn + p0;
        }
        r0 += n; p0 += n * n;
    }
    OPS->attention(BE, n_sent * H, b->hargs);
    if (BE->host_memory) return;
    for (int h = 0; h < H; h++)
        for (int s = 0; s < n_sent; s++) {
            const size_t n = (size_t)in[s].n;
            b->pdst[(size_t)h * n_sent + s] = attn[s] + ((size_t)l * H + h) * n * n;
            b->pbytes[(size_t)h * n_sent + s] = sizeof(float) * n * n;
        }
    if (OPS->download_pieces_later) OPS->download_pieces_later(BE, n_sent * H, b->pdst, b->pbytes, b->amap);
    else OPS->download_pieces(BE, n_sent * H, b->pdst, b->pbytes, b->amap);
}

int enc_dec_forward(struct enc_dec *b, int n_sent, const struct enc_bert_input *in, float **hidden, uint64_t hidden_layers,
                    float **attn, uint64_t attn_layers, int stream, char *err, size_t errlen)
{
    struct enc *e = &b->e;
    const struct enc_dec_config *c = &b->c;
    const int d = c->hidden_size, H = c->heads, dh = c->head_dim, F = c->intermediate_size, L = c->layers, KV = c->kv_heads;
    const int dq = H * dh, ld = dq + 2 * KV * dh;   /* a row of the fused q | k | v (k and v: the kv_heads heads) */
    size_t rows = 0, nn = 0;
    for (int s = 0; s < n_sent; s++) {
        const struct enc_bert_input *x = &in[s];
        if (x->n < 1 || (b->pos >= 0 && x->n > c->max_positions)) {
            snprintf(err, errlen, "%s: sentence %d: %d pieces (expected 1..%d, the model's positions)", c->model_type, s, x->n,
                     b->pos >= 0 ? c->max_positions : INT_MAX);
            return SP_EUSAGE;
        }
        for (int p = 0; p < x->n; p++)
            if (x->ids[p] < 0 || x->ids[p] >= c->vocab_size) {
                snprintf(err, errlen, "%s: sentence %d, piece %d: id %d outside the vocabulary 0..%d", c->model_type, s, p,
                         (int)x->ids[p], c->vocab_size - 1);
                return SP_EUSAGE;
            }
        rows += (size_t)x->n;
        nn += (size_t)x->n * (size_t)x->n;
    }
    if (!attn) attn_layers = 0;
    if (!rows) return SP_OK;
    if (BE->host_memory && rows > DEC_GROUP_ROWS && n_sent > 1) {   /* as enc_bert_forward: a fixed workspace, the same bits */
        for (int s0 = 0, s1; s0 < n_sent; s0 = s1) {
            size_t r = (size_t)in[s0].n;
            for (s1 = s0 + 1; s1 < n_sent && r + (size_t)in[s1].n <= DEC_GROUP_ROWS; s1++) r += (size_t)in[s1].n;
            int rc = enc_dec_forward(b, s1 - s0, in + s0, hidden ? hidden + s0 : NULL, hidden_layers, attn ? attn + s0 : NULL,
                                     attn_layers, stream, err, errlen);
            if (rc) return rc;
        }
        return SP_OK;
    }
    int rc = reserve(b, rows, nn, attn_layers != 0, err, errlen);
    if (rc) return rc;
    if (n_sent > b->cap_args) {
        b->args = sp_xrealloc(b->args, sizeof *b->args * (size_t)n_sent);
        b->pdst = sp_xrealloc(b->pdst, sizeof *b->pdst * (size_t)n_sent * H);
        b->pbytes = sp_xrealloc(b->pbytes, sizeof *b->pbytes * (size_t)n_sent * H);
        b->cap_args = n_sent;
    }
    const int N = (int)rows;
    /* 1. the embeddings (GPT-2: + the position's row, in that order), widened from the file's dtype on the host */
    const struct enc_param *te = &e->param[b->emb], *tp = b->pos >= 0 ? &e->param[b->pos] : NULL;
    if (!b->row) b->row = sp_xmalloc(sizeof(float) * (size_t)d);
    size_t r = 0;
    for (int s = 0; s < n_sent; s++)
        for (int p = 0; p < in[s].n; p++, r++) {
            float *o = b->hE + r * d;
            enc_dt_widen((enum enc_dtype)te->dtype, te->src, (uint64_t)in[s].ids[p] * d, (size_t)d, o);
            if (tp) {
                enc_dt_widen((enum enc_dtype)tp->dtype, tp->src, (uint64_t)(p + c->pos_offset) * d, (size_t)d, b->row);
                for (int j = 0; j < d; j++) o[j] = o[j] + b->row[j];
            }
            if (c->emb_scale > 0) for (int j = 0; j < d; j++) o[j] = o[j] * c->emb_scale;   /* Gemma's normalizer */
        }
    OPS->upload(BE, b->x, b->hE, rows * d * sizeof(float));
    if (c->rope) {
        size_t off = 0;
        for (int s = 0; s < n_sent; s++) { rope_rows(c, in[s].n, b->hcs + off * c->rope_rot); off += (size_t)in[s].n; }
        OPS->upload(BE, b->cs, b->hcs, rows * c->rope_rot * sizeof(float));
    }
    /* a sliding window (Mistral): query i sees keys i − window .. i, transformers 4.40.2's eager mask; a
     * mask only for the sentences longer than window + 1 pieces (the others see every key before them) */
    size_t nallow = 0;
    for (int s = 0; c->window > 0 && s < n_sent; s++)
        if (in[s].n > c->window + 1) nallow += (size_t)in[s].n * in[s].n;
    if (nallow > b->cap_allow) {
        if (b->allow) OPS->free(BE, b->allow);
        if (!(b->allow = OPS->alloc(BE, nallow))) {
            b->cap_allow = 0;
            snprintf(err, errlen, "%s: cannot allocate the sliding window's masks (%zu bytes) on %s", c->model_type, nallow, OPS->name);
            return SP_ENOMEM;
        }
        b->hallow = sp_xrealloc(b->hallow, nallow);
        b->cap_allow = nallow;
    }
    if (nallow) {
        size_t at = 0;
        for (int s = 0; s < n_sent; s++) {
            const int n = in[s].n;
            if (n <= c->window + 1) continue;
            for (int i = 0; i < n; i++)
                for (int j = 0; j < n; j++) b->hallow[at + (size_t)i * n + j] = (uint8_t)(j <= i && i - j <= c->window);
            at += (size_t)n * n;
        }
        OPS->upload(BE, b->allow, b->hallow, nallow);
    }
    const int post = stream == ENC_STREAM_POST_NORM;
    if (hidden_layers & 1) {
        if (post) norm(b, N, b->x, b->fn, b->h);
        download_layer(b, n_sent, in, post ? b->h : b->x, 0, hidden);
    }
    /* 2. the blocks */
    for (int l = 0; l < L; l++) {
        const struct dec_layer *Ly = &b->layer[l];
        norm(b, N, b->x, Ly->ln1, b->h);
        if (Ly->wqkv) OPS->linear(BE, N, d, ld, b->h, d, Ly->wqkv, ld, Ly->bqkv, b->qkv, ld, 0);
        else lin(e, N, b->h, Ly->q, b->qkv);                           /* GPT-2's c_attn */
        if (c->rope) OPS->rope(BE, N, H + KV, dh, c->rope_rot, b->qkv, ld, b->cs);   /* the query and key heads */
        float scale = c->scale_attn ? 1.0f / sqrtf((float)dh) : 1.0f;
        if (c->scale_inv_layer) scale /= (float)(l + 1);
        size_t off = 0, at = 0;
        for (int s = 0; s < n_sent; s++) {
            struct enc_attn_args *aa = &b->args[s];
            memset(aa, 0, sizeof *aa);
            aa->n = in[s].n; aa->H = H; aa->dk = dh; aa->ld_qkv = ld; aa->kv_heads = KV;
            aa->q = b->qkv + off * ld; aa->k = aa->q + dq; aa->v = aa->k + (size_t)KV * dh;
            aa->out = b->ctx + off * dq; aa->scale = scale;
            for (int h = 0; h < H; h++) aa->dir[h] = ENC_DIR_FWD;       /* causal: keys 0..i */
            if (nallow && in[s].n > c->window + 1) { aa->allow = b->allow + at; at += (size_t)in[s].n * in[s].n; }
            off += (size_t)in[s].n;
        }
        OPS->attention(BE, n_sent, b->args);
        if (attn_layers >> l & 1) head_maps(b, n_sent, in, l, nn, attn);
        lin(e, N, b->ctx, Ly->o, b->t);                                /* the attention's output */
        if (!c->parallel) OPS->add(BE, rows * d, b->x, b->t, b->x);    /* residual + attention */
        if (Ly->ln2.g >= 0) norm(b, N, b->x, Ly->ln2, b->h);          /* (Phi: b->h is still ln1(x)) */
        if (Ly->gate.w >= 0) {                                         /* SwiGLU: down(SiLU(gate)·up) (Gemma: GELU_tanh) */
            lin(e, N, b->h, Ly->gate, b->zg);
            lin(e, N, b->h, Ly->up, b->zu);
            OPS->gate(BE, c->glu, rows * F, b->zg, b->zu, NULL, b->zg);
        } else {
            lin(e, N, b->h, Ly->up, b->zg);
            OPS->act(BE, c->act, rows * F, b->zg);
        }
        lin(e, N, b->zg, Ly->down, b->ctx);                            /* the MLP's output */
        if (c->parallel) OPS->add(BE, rows * d, b->ctx, b->t, b->ctx); /* GPT-NeoX: (mlp + attention) + residual */
        OPS->add(BE, rows * d, b->ctx, b->x, b->x);                    /* residual + MLP */
        if (hidden_layers >> (l + 1) & 1) {
            const int normed = post || (stream == ENC_STREAM_HIDDEN_STATES && l + 1 == L);
            if (normed) norm(b, N, b->x, b->fn, b->h);
            download_layer(b, n_sent, in, normed ? b->h : b->x, l + 1, hidden);
        }
    }
    return OPS->sync(BE, err, errlen);
}

/* ---- the family (struct enc_family): tokenizer + model + pooling behind enc_t ---- */

struct dec_family {
    struct enc_dec *m;
    struct enc_hf_tok *tok;
};

static int fam_has_kind(enum enc_kind k) { return k == ENC_HF; }
static int fam_claims(const struct enc_config *c) { return enc_hf_is_decoder(c->bert_model); }

static void fam_config_caps(const struct enc_config *c, struct enc_caps *caps)
{
    memset(caps, 0, sizeof *caps);
    caps->input = ENC_INPUT_WORDS;
    caps->layer_outputs = 1;
    caps->model_dir = c->bert_model;
    caps->model_files = enc_hf_model_files(c->bert_model);
    caps->attention = 1;
    caps->causal = 1;
}

static int fam_config_layers(const struct enc_config *c, int *layers, char *err, size_t errlen)
{
    char path[sizeof c->bert_model + 16];
    struct enc_dec_config dc;
    const struct enc_dec_arch *a;
    snprintf(path, sizeof path, "%s/config.json", c->bert_model);
    int rc = enc_dec_config_read(path, &dc, &a, err, errlen);
    *layers = rc == SP_OK ? dc.layers : 0;
    return rc;
}

static void fam_caps(const struct enc *e, struct enc_caps *caps)
{
    fam_config_caps(&e->cfg, caps);
    caps->layers = e->cfg.layers;
    caps->own_layer = e->cfg.bert_layer < 0 ? e->cfg.layers : e->cfg.bert_layer;
    caps->dim = caps->tok_dim = e->cfg.d_model;
    caps->attn_layers = e->cfg.layers;
    const struct dec_family *f = e->fam_state;
    caps->max_positions = f && f->m && f->m->pos >= 0 ? f->m->c.max_positions : 0;
}

static const char *fam_backend_name(const struct enc *e)
{
    const struct dec_family *f = e->fam_state;
    return f->m->e.be.ops->name;
}

static int fam_open(struct enc *e, enum enc_device device, const char *weights_path, const struct sp_logger *log, char *err,
                    size_t errlen)
{
    if (weights_path) {
        snprintf(err, errlen, "encoder: kind hf reads its weights from the model folder %s; --weights does not apply", e->cfg.bert_model);
        return SP_EUSAGE;
    }
    struct dec_family *f = e->fam_state = sp_xcalloc(1, sizeof *f);
    /* the config and the tokenizer first: a folder refused for them is one line, before the weights load */
    char path[sizeof e->cfg.bert_model + 16];
    struct enc_dec_config pc;
    const struct enc_dec_arch *pa;
    int rc = config_path(e->cfg.bert_model, path, sizeof path, err, errlen);
    if (rc == SP_OK) rc = enc_dec_config_read(path, &pc, &pa, err, errlen);
    if (rc != SP_OK) return rc;
    if (e->cfg.add_bos == 1 && pc.bos_id < 0) {
        snprintf(err, errlen, "encoder: add_bos: true, but %s/config.json has no bos_token_id", e->cfg.bert_model);
        return SP_EUSAGE;
    }
    if (e->cfg.wordpiece_only) {
        snprintf(err, errlen, "encoder: tokenizer_mode applies to a vocab.txt tokenizer; a decoder's tokenizer.json says how it splits");
        return SP_EUSAGE;
    }
    struct enc_tok_opts to;
    enc_tok_opts_defaults(&to);
    to.lower_case = 0;
    to.ptb_unescape = e->cfg.ptb_unescape;
    to.max_positions = pa->pos ? pc.max_positions : INT_MAX;
    if ((rc = enc_hf_tokenizer_open_text(e->cfg.bert_model, &to, &f->tok, err, errlen)) != SP_OK) return rc;
    if ((rc = enc_dec_open(e->cfg.bert_model, device, log, &f->m, err, errlen)) != SP_OK) return rc;
    const struct enc_dec_config *c = &f->m->c;
    sp_log(log, SP_LOG_INFO, "encoder: tokenizer %s/%s", e->cfg.bert_model, enc_hf_tok_what(f->tok));
    if (e->cfg.bert_layer > c->layers) {
        snprintf(err, errlen, "encoder: layer %d: the model has layers 0..%d (0 = embeddings)", e->cfg.bert_layer, c->layers);
        return SP_EUSAGE;
    }
    if (!e->cfg.word_pool_set) e->cfg.word_pool = ENC_WORD_POOL_LAST;
    e->cfg.d_model = e->cfg.d_input = c->hidden_size;
    e->cfg.layers = c->layers;
    e->cfg.heads = c->heads;
    return SP_OK;
}

static int fam_weights_layout(struct enc *e, struct enc_weights_rules *rules, char *err, size_t errlen)
{
    char path[sizeof e->cfg.bert_model + 16];
    snprintf(path, sizeof path, "%s/config.json", e->cfg.bert_model);
    struct enc_dec *b = sp_xcalloc(1, sizeof *b);
    int rc = enc_dec_config_read(path, &b->c, &b->arch, err, errlen);
    if (rc == SP_OK) {
        build(b);
        e->param = b->e.param;
        e->n_param = b->e.n_param;
        dec_rules(rules, b->arch, &b->c);
    }
    free(b->layer);
    free(b);
    return rc;
}

static void fam_close(struct enc *e)
{
    struct dec_family *f = e->fam_state;
    if (!f) return;
    dec_close(f->m);
    enc_hf_tok_close(f->tok);
    free(f);
    e->fam_state = NULL;
}

/* One sentence's pieces as the model reads them: the tokenizer's, with the BOS as add_bos says */
struct dec_sent { int T; int32_t *ids, *span; };

static int dec_tokenize(const struct enc *e, const char *const *words, int n, struct dec_sent *ds, char *err, size_t errlen)
{
    const struct dec_family *f = e->fam_state;
    struct enc_tok_sentence ts = { 0 };
    int T = enc_hf_tok_sentence(f->tok, words, n, &ts, err, errlen);
    if (T < 0) { enc_tok_sentence_free(&ts); return -T; }
    int lead = 0, bos = 0;
    if (e->cfg.add_bos == 0) lead = n > 0 ? ts.start[0] : 0;           /* drop the post-processor's leading specials */
    else if (e->cfg.add_bos == 1 && (T == 0 || ts.ids.id[0] != f->m->c.bos_id)) bos = 1;
    ds->T = T - lead + bos;
    ds->ids = sp_xmalloc(sizeof(int32_t) * (size_t)(ds->T > 0 ? ds->T : 1));
    ds->span = sp_xmalloc(sizeof(int32_t) * 2 * (size_t)(n > 0 ? n : 1));
    if (bos) ds->ids[0] = f->m->c.bos_id;
    memcpy(ds->ids + bos, ts.ids.id + lead, sizeof(int32_t) * (size_t)(T - lead));
    for (int w = 0; w < n; w++) { ds->span[2 * w] = ts.start[w] - lead + bos; ds->span[2 * w + 1] = ts.end[w] - lead + bos; }
    enc_tok_sentence_free(&ts);
    return SP_OK;
}

static int fam_fits(const struct enc *e, const char *const *words, int n)
{
    const struct dec_family *f = e->fam_state;
    struct dec_sent ds = { 0 };
    char err[SP_ERRLEN];
    if (dec_tokenize(e, words, n, &ds, err, sizeof err) != SP_OK) return 1;   /* forward says why */
    const int fits = f->m->pos < 0 || ds.T <= f->m->c.max_positions;
    free(ds.ids);
    free(ds.span);
    return fits;
}

/* word a's pieces' rows summed over the pieces of word b, mean over the heads and a's pieces (M2.4
 * over any span: a BOS belongs to no word and is dropped), each row renormalised (a zero row stays
 * zero); sink: the first piece's column is left out too (drop_sink: the attention sink of a model
 * without BOS is its first piece) */
static void word_attention(int T, int n_heads, const float *R, int n, const int32_t *span, int sink, float *out)
{
    double *row = sp_xmalloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    for (int a = 0; a < n; a++) {
        const int sa = span[2 * a], ea = span[2 * a + 1];
        double z = 0;
        for (int b = 0; b < n; b++) {
            double acc = 0;
            for (int h = 0; h < n_heads; h++)
                for (int p = sa; p < ea; p++)
                    for (int q = span[2 * b] < sink ? sink : span[2 * b]; q < span[2 * b + 1]; q++)   /* sink: from piece 1 */
                        acc += R[((size_t)h * T + p) * T + q];
            row[b] = acc / ((double)(ea - sa) * n_heads);
            z += row[b];
        }
        for (int b = 0; b < n; b++) out[(size_t)a * n + b] = (float)(z > 0 ? row[b] / z : 0.0);
    }
    free(row);
}

static void pool_words(int d, const float *X, int n, const int32_t *span, int mode, float *out)
{
    for (int w = 0; w < n; w++) {
        const int s = span[2 * w], e = span[2 * w + 1];
        float *o = out + (size_t)w * d;
        if (mode == ENC_WORD_POOL_FIRST) memcpy(o, X + (size_t)s * d, sizeof(float) * (size_t)d);
        else if (mode == ENC_WORD_POOL_LAST) memcpy(o, X + (size_t)(e - 1) * d, sizeof(float) * (size_t)d);
        else
            for (int j = 0; j < d; j++) {
                double acc = 0;
                for (int p = s; p < e; p++) acc += X[(size_t)p * d + j];
                o[j] = (float)(acc / (e - s));
            }
    }
}

static int fam_forward(struct enc *e, const struct enc_batch *in, int n_out, const int *layers, struct enc_output *outs,
                       float **const *heads, char *err, size_t errlen)
{
    const struct dec_family *f = e->fam_state;
    const struct enc_dec_config *c = &f->m->c;
    const int L = c->layers, H = c->heads, d = c->hidden_size, ns = in->n_sent;
    const int own = e->cfg.bert_layer < 0 ? L : e->cfg.bert_layer;
    if (!layers) layers = &own;
    uint64_t hid_mask = 0, att_mask = 0;
    for (int i = 0; i < n_out; i++) {
        if (layers[i] < 0 || layers[i] > L) {
            snprintf(err, errlen, "encoder: layer %d: the model has layers 0..%d (0 = embeddings)", layers[i], L);
            return SP_EUSAGE;
        }
        hid_mask |= (uint64_t)1 << layers[i];
        if (!outs[i].attn && !(heads && heads[i])) continue;
        const int al = outs[i].attn_layer < 0 ? L - 1 : outs[i].attn_layer;
        if (al >= L) { snprintf(err, errlen, "encoder: attn_layer %d: expected -1 or 0..%d", outs[i].attn_layer, L - 1); return SP_EUSAGE; }
        att_mask |= (uint64_t)1 << al;
    }
    const size_t cap = (size_t)(ns > 0 ? ns : 1);
    struct dec_sent *ds = sp_xcalloc(cap, sizeof *ds);
    struct enc_bert_input *bi = sp_xcalloc(cap, sizeof *bi);
    float **hid = sp_xcalloc(cap, sizeof *hid), **att = att_mask ? sp_xcalloc(cap, sizeof *att) : NULL;
    int rc = SP_OK;
    for (int b = 0; b < ns && rc == SP_OK; b++) {
        const struct enc_sentence *s = &in->sent[b];
        if (!s->words || s->n <= 0) { snprintf(err, errlen, "encoder: sentence %d: kind hf needs its words", b); rc = SP_EUSAGE; break; }
        if ((rc = dec_tokenize(e, s->words, s->n, &ds[b], err, errlen)) != SP_OK) break;
        if (f->m->pos >= 0 && ds[b].T > c->max_positions) {
            snprintf(err, errlen, "encoder: sentence %d: %d pieces, more than the model's %d positions", b, ds[b].T, c->max_positions);
            rc = SP_EUSAGE;
            break;
        }
        bi[b] = (struct enc_bert_input){ ds[b].T, ds[b].ids, NULL };
        hid[b] = sp_xmalloc(sizeof(float) * (size_t)(L + 1) * ds[b].T * d);
        if (att) att[b] = sp_xmalloc(sizeof(float) * (size_t)L * H * ds[b].T * ds[b].T);
    }
    if (rc == SP_OK) rc = enc_dec_forward(f->m, ns, bi, hid, hid_mask, att, att_mask, e->cfg.dec_stream, err, errlen);
    for (int b = 0; b < ns && rc == SP_OK; b++) {
        const int n = in->sent[b].n, T = ds[b].T;
        for (int i = 0; i < n_out; i++) {
            struct enc_output *out = &outs[i];
            const float *X = hid[b] + (size_t)layers[i] * T * d;
            float *words = out->tok ? out->tok[b] : sp_xmalloc(sizeof(float) * (size_t)n * d);
            pool_words(d, X, n, ds[b].span, e->cfg.word_pool, words);
            enc_pool_sentence(d, X, n, words, (enum enc_sent_pool)e->cfg.sent_pool, out->sent + (size_t)b * d);
            const int al = out->attn_layer < 0 ? L - 1 : out->attn_layer;
            const int sink = e->cfg.drop_sink;
            if (out->attn && out->attn[b]) word_attention(T, H, att[b] + (size_t)al * H * T * T, n, ds[b].span, sink, out->attn[b]);
            if (heads && heads[i] && heads[i][b])
                for (int h = 0; h < H; h++)
                    word_attention(T, 1, att[b] + ((size_t)al * H + h) * T * T, n, ds[b].span, sink, heads[i][b] + (size_t)h * n * n);
            if (!out->tok) free(words);
        }
    }
    for (int b = 0; b < ns; b++) { free(ds[b].ids); free(ds[b].span); free(hid[b]); if (att) free(att[b]); }
    free(ds); free(bi); free(hid); free(att);
    return rc;
}

const struct enc_family enc_decoder_family = {
    .name = "decoder",
    .has_kind = fam_has_kind,
    .claims = fam_claims,
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
