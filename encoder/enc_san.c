/* encoder/enc_san.c — the SAN model family (san, ms-san, sg-net, psan, ssan, with structural
 * position encodings): model layout and forward graph, written once in terms of the backend ops
 * (encoder_int.h), behind the family table (struct enc_family, enc_san_family at the end).
 *
 * How it works: model_build registers the tensors of the configured kind (names are the
 * contract of schemas/encoder-weights.md). san_forward packs the sentences of a batch row-wise
 * (no padding: every reduction sees exactly the n real tokens, which is what §0's padding rules
 * require): row-wise ops see all tokens of a group at once, attention/psa/pool work per sentence
 * on offsets, every sentence of the group in one op call (see "workspace" below). The host
 * gathers the embedding rows and concatenates the small integer structures, uploads them once
 * per group, and the graph calls ops on backend buffers. The backend never sees a config; the
 * graph never dereferences a backend buffer.
 *
 * Shapes in comments: n = tokens of the sentence, d = d_model, H heads, dk = d/H. */
#include "encoder/encoder_int.h"

#include <math.h>
#include <string.h>

/* ---- layout ---- */

struct enc_san_layer {         /* also the SDOI layer of SG-Net and MS-SAN's attention part */
    struct enc_lin q, k, v, o, ff1, ff2, sel;
    struct enc_ln ln1, ln2;
    int rel_k, rel_v, seq_k, seq_v;             /* -1 when absent */
    struct enc_lin gi, go, g1, g2;              /* MS-SAN fusion gate: W_I, W_O, W_1, W_2 (+b on g1) */
};

struct enc_psa_level { struct enc_lin a1, a2, c; };   /* a2.b = b^a */

/* The family's state (e->fam_state): the model layout (parameter indices into e's registry) and
 * the forward's workspace. */
struct san_model {
    struct enc_lin in_proj, pos_fuse;
    struct enc_san_layer layer[ENC_MAX_LAYERS];
    struct enc_san_layer sdoi;
    int agg_w, agg_gamma;
    struct enc_ln final_ln;
    struct enc_lin pool1, pool2;                         /* MS-SAN FFN_p */
    struct enc_psa_level psa[ENC_MAX_LEVELS];
    struct enc_lin mem_g, mem_m, sum1, sum2;
    struct ws *ws;             /* scratch (backend buffers), grown to the longest group seen */
    /* a device backend's copy of the caller's embedding table (enc_batch.table_fixed): the ids'
     * rows are gathered there instead of uploaded a group at a time */
    float *dtab;
    const float *dtab_src;
    int dtab_rows;
};

static struct san_model *M(const struct enc *e) { return e->fam_state; }


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

static void model_build(struct enc *e)
{
    const struct enc_config *c = &e->cfg;
    const int d = c->d_model;
    char p[64];
    M(e)->in_proj = M(e)->pos_fuse = M(e)->pool1 = M(e)->pool2 = (struct enc_lin){ -1, -1 };
    M(e)->final_ln = (struct enc_ln){ -1, -1 };
    M(e)->agg_w = M(e)->agg_gamma = -1;
    if (c->d_input != d) M(e)->in_proj = lin(e, "input", "proj", c->d_input, d, 1);
    switch (c->kind) {
    case ENC_SAN: case ENC_SSAN: case ENC_SGNET:
        if (c->position == ENC_POS_SEQ_STRUCT && c->f_abs == ENC_FABS_TANH) M(e)->pos_fuse = lin(e, "pos", "fuse", 2 * d, d, 1);
        for (int l = 0; l < c->layers; l++) {
            snprintf(p, sizeof p, "layers.%d", l);
            san_layer(e, &M(e)->layer[l], p, c->kind == ENC_SSAN && c->selective[l]);
        }
        if (c->norm == ENC_PRE_LN) M(e)->final_ln = lnorm(e, "final", "ln", d);
        if (c->kind == ENC_SGNET) {
            san_layer(e, &M(e)->sdoi, "sdoi", 0);
            if (c->sgnet_code_agg) {
                M(e)->agg_w = enc_param_add(e, "sdoi.agg.w", 2, 0, ENC_INIT_HALF);
                M(e)->agg_gamma = enc_param_add(e, "sdoi.agg.gamma", 1, 0, ENC_INIT_ONE);
            }
        }
        break;
    case ENC_MSSAN:
        for (int l = 0; l < c->layers; l++) {
            struct enc_san_layer *L = &M(e)->layer[l];
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
        M(e)->pool1 = lin(e, "pool", "w1", d, c->pool_d_h, 1);
        M(e)->pool2 = lin(e, "pool", "w2", c->pool_d_h, d, 1);
        break;
    case ENC_PSAN:
        for (int t = 1; t <= c->levels; t++) {
            struct enc_psa_level *P = &M(e)->psa[t - 1];
            snprintf(p, sizeof p, "psa.%d", t);
            P->a1 = lin(e, p, "a1", d, d, 0);
            P->a2 = lin(e, p, "a2", d, d, 0);
            char b[96];
            snprintf(b, sizeof b, "%s.a.bias", p);
            P->a2.b = enc_param_add(e, b, d, 0, ENC_INIT_ZERO);
            P->c = lin(e, p, "c", 2 * d, d, 1);
        }
        M(e)->mem_g = lin(e, "mem", "g", 2 * d, d, 1);
        M(e)->mem_m = lin(e, "mem", "m", 2 * d, d, 1);
        M(e)->sum1 = lin(e, "sum", "e1", d, d, 1);
        M(e)->sum2 = lin(e, "sum", "e2", d, d, 1);
        break;
    default:                                            /* not this family's (san_has_kind) */
        break;
    }
}

/* ---- what a config needs ---- */

static unsigned san_needs(const struct enc_config *c)
{
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

static int san_attn_layers(const struct enc_config *c)
{
    switch (c->kind) {
    case ENC_SGNET: return c->layers + 1;
    case ENC_PSAN: return c->levels;
    default: return c->layers;
    }
}

/* ---- workspace ---- */

/* Sentences of one batch are processed in groups: the rows of every sentence of a group are
 * packed into one [N, ·] block (N = Σ n_b, no padding), so every row-wise op (linear, LN, act,
 * add, gates, FFNs) runs once per group with M = N rows; attention, psa and pool work per
 * sentence on pointer offsets into the same buffers, one op call for the group's sentences (the
 * CPU spreads them over the GEMM's threads, CUDA launches once). A group holds whole sentences up to
 * e->group_tokens tokens (enc_set_group_tokens: `encode` passes --batch-tokens, so each of its
 * batches is one group; ENC_GROUP_TOKENS otherwise; a longer sentence forms a group of its own),
 * which bounds the workspace for callers that pass a whole corpus as one batch. Row results do not depend on the grouping:
 * on the CPU every element of a product is one FMA chain in a fixed order whatever M, the row's
 * position or the threads (common/gemm.h), and every other op is row- or sentence-local. */

struct ws {
    /* backend buffers: [cap_tok, ·] rows, [cap_nn] pair entries, [cap_sent, ·] vectors */
    float *x, *y, *q, *k, *v, *att, *t1, *t2, *z, *sel, *pe1, *pe2, *hb, *amap, *vec;
    int16_t *dist, *rel;       /* pair arrays as int16 (check_sentence: the values fit) */
    int32_t *pid, *ids;        /* ids: a group's token ids (device table only) */
    uint8_t *anc;
    int cap_tok, cap_sent;
    size_t cap_nn;
    /* host staging (one upload per array and group) */
    float *hx, *hp;
    int32_t *hi;
    uint8_t *h8;
    /* sinusoid table PE(0..pe_rows-1), [pe_rows, d], computed once per handle (§5.6) */
    float *pe_tab;
    int pe_rows;
};

static void ws_free_dev(struct enc *e, struct ws *w)
{
    void *ptrs[] = { w->x, w->y, w->q, w->k, w->v, w->att, w->t1, w->t2, w->z, w->sel, w->pe1, w->pe2,
                     w->hb, w->amap, w->vec, w->dist, w->rel, w->pid, w->anc, w->ids };
    for (size_t i = 0; i < sizeof ptrs / sizeof ptrs[0]; i++) if (ptrs[i]) e->be.ops->free(&e->be, ptrs[i]);
    free(w->hx); free(w->hp); free(w->hi); free(w->h8);
    float *pe = w->pe_tab;
    int pr = w->pe_rows;
    memset(w, 0, sizeof *w);
    w->pe_tab = pe; w->pe_rows = pr;
}

static void ws_free(struct enc *e)
{
    struct ws *w = M(e)->ws;
    if (!w) return;
    ws_free_dev(e, w);
    free(w->pe_tab);
    free(w);
    M(e)->ws = NULL;
}

/* Every buffer of a group's workspace: allocated when w != NULL, else only sized. Returns the
 * bytes (backend + host); *fail is set when a backend allocation failed. */
static size_t ws_layout(struct enc *e, struct ws *w, size_t nt, size_t nn, size_t ns, int want_attn, int *fail)
{
    const struct enc_config *c = &e->cfg;
    const unsigned need = san_needs(&e->cfg);
    size_t d = (size_t)c->d_model, total = 0;
    size_t wide = (size_t)c->d_ff;
    if ((size_t)c->pool_d_h > wide) wide = (size_t)c->pool_d_h;
    if (2 * d > wide) wide = 2 * d;
    if ((size_t)c->d_input > wide) wide = (size_t)c->d_input;
    int selective = 0;
    for (int l = 0; l < c->layers; l++) if (c->kind == ENC_SSAN && c->selective[l]) selective = 1;
    int pos = c->kind != ENC_MSSAN && c->kind != ENC_PSAN && c->position != ENC_POS_NONE;
    size_t levels = (size_t)(c->levels > 0 ? c->levels : 1);
#define A(ptr, bytes) do { size_t b_ = (bytes); total += b_; \
        if (w) { ptr = e->be.ops->alloc(&e->be, b_); if (!ptr) *fail = 1; } } while (0)
    A(w->x, nt * d * 4); A(w->y, nt * d * 4); A(w->q, nt * d * 4); A(w->k, nt * d * 4); A(w->v, nt * d * 4);
    A(w->att, nt * d * 4); A(w->t1, nt * wide * 4); A(w->t2, nt * d * 4); A(w->z, nt * d * 4);
    if (selective) A(w->sel, nt * 2 * d * 4);
    if (pos) { A(w->pe1, nt * d * 4); A(w->pe2, nt * d * 4); }
    if (c->kind == ENC_SGNET) A(w->hb, nt * d * 4);
    if (want_attn) A(w->amap, nn * 4);
    A(w->vec, ns * 2 * d * 4);
    if (need & ENC_NEED_DIST) A(w->dist, nn * 2);
    if (need & ENC_NEED_REL) A(w->rel, nn * 2);
    if (need & ENC_NEED_ANC) A(w->anc, nn);
    if (need & ENC_NEED_PID) A(w->pid, levels * nt * 4);
    if (!e->be.host_memory && e->be.ops->gather_rows) A(w->ids, nt * 4);
#undef A
    /* host staging: input rows, PE rows, int pair arrays / phrase ids, byte pair arrays */
    size_t hx_w = (size_t)c->d_input > d ? (size_t)c->d_input : d;
    size_t hi = nn > nt * levels ? nn : nt * levels;
    total += 4 * nt * hx_w + 4 * nt * d + 4 * hi + nn;
    if (w) {
        w->hx = sp_xmalloc(sizeof(float) * nt * hx_w);
        w->hp = sp_xmalloc(sizeof(float) * nt * d);
        w->hi = sp_xmalloc(sizeof(int32_t) * hi);
        w->h8 = sp_xmalloc(nn);
    }
    return total;
}

/* Room for a group of `tok` tokens, `nn` = Σ n_b² pair entries, `ns` sentences. Grows only.
 * Over the handle's workspace limit (enc_set_workspace_limit) it fails with SP_ENOMEM, exactly
 * like a device out of memory, so a caller's batch halving also bounds host memory. */
static int ws_reserve(struct enc *e, int tok, size_t nn_need, int ns, int want_attn, char *err, size_t errlen)
{
    struct ws *w = M(e)->ws;
    if (!w) w = M(e)->ws = sp_xcalloc(1, sizeof *w);
    if (tok <= w->cap_tok && nn_need <= w->cap_nn && ns <= w->cap_sent && (!want_attn || w->amap)) return SP_OK;
    want_attn = want_attn || w->amap != NULL;
    size_t exact_nt = (size_t)tok, exact_nn = nn_need ? nn_need : 1, exact_ns = (size_t)ns;
    /* grow geometrically so a run of growing groups does not reallocate every time */
    if (tok < w->cap_tok) tok = w->cap_tok; else if (tok < 2 * w->cap_tok) tok = 2 * w->cap_tok;
    if (nn_need < w->cap_nn) nn_need = w->cap_nn; else if (nn_need < 2 * w->cap_nn) nn_need = 2 * w->cap_nn;
    if (ns < w->cap_sent) ns = w->cap_sent; else if (ns < 2 * w->cap_sent) ns = 2 * w->cap_sent;
    size_t nt = (size_t)tok, nn = nn_need ? nn_need : 1;
    if (e->ws_limit) {
        int unused = 0;
        if (ws_layout(e, NULL, nt, nn, (size_t)ns, want_attn, &unused) > e->ws_limit) {   /* no headroom: exact */
            nt = exact_nt; nn = exact_nn; ns = (int)exact_ns;
            size_t need = ws_layout(e, NULL, nt, nn, (size_t)ns, want_attn, &unused);
            if (need > e->ws_limit) {
                snprintf(err, errlen, "encoder: %zu tokens need %.1f MiB of workspace, over the limit of %.1f MiB",
                         nt, need / 1048576.0, e->ws_limit / 1048576.0);
                return SP_ENOMEM;
            }
        }
    }
    ws_free_dev(e, w);
    int fail = 0;
    ws_layout(e, w, nt, nn, (size_t)ns, want_attn, &fail);
    if (fail) {
        ws_free(e);
        snprintf(err, errlen, "encoder: cannot allocate workspace for %zu tokens on %s", nt, e->be.ops->name);
        return SP_ENOMEM;
    }
    w->cap_tok = (int)nt; w->cap_nn = nn; w->cap_sent = ns;
    return SP_OK;
}


/* PE rows 0..rows-1 in the cached host table */
static const float *pe_table(struct enc *e, int rows)
{
    struct ws *w = M(e)->ws;
    const int d = e->cfg.d_model;
    if (rows > w->pe_rows) {
        int nr = rows < 2 * w->pe_rows ? 2 * w->pe_rows : rows;
        w->pe_tab = sp_xrealloc(w->pe_tab, sizeof(float) * (size_t)nr * d);
        for (int p = w->pe_rows; p < nr; p++) enc_sinusoid(p, d, w->pe_tab + (size_t)p * d);
        w->pe_rows = nr;
    }
    return w->pe_tab;
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

/* One group of sentences packed row-wise: sentence b has n[b] rows starting at row off[b] and
 * its [n,n] structures at entry off2[b] of the pair buffers. */
struct group {
    int nb, N;                 /* sentences, total rows */
    const int *n;
    const size_t *off, *off2;
    int has_dist, has_rel, has_anc;
};

/* One SAN layer (§5.1) in place on w->x (all rows of the group). sdoi: use the SDOI mask. */
static void san_forward(struct enc *e, const struct enc_san_layer *L, const struct group *g, int post, enum enc_act act,
                        float eps, int sdoi, float *amap)
{
    struct ws *w = M(e)->ws;
    const struct enc_config *c = &e->cfg;
    const int d = c->d_model, H = c->heads, dk = d / H, N = g->N;
    const size_t nd = (size_t)N * d;
    const float *src = w->x;
    if (!post) {                                            /* pre-LN: Z = LN1(X) */
        OPS->layer_norm(BE, N, d, w->x, enc_w(e, L->ln1.g), enc_w(e, L->ln1.b), eps, w->z);
        src = w->z;
    }
    linear(e, N, src, d, L->q, w->q);                       /* [N, d] each */
    linear(e, N, src, d, L->k, w->k);
    linear(e, N, src, d, L->v, w->v);
    if (L->sel.w >= 0) linear(e, N, src, d, L->sel, w->sel);   /* SSAN selector [N, 2d] = [Q_s | K_s] */
    struct enc_attn_args *aa = sp_xcalloc((size_t)(g->nb > 0 ? g->nb : 1), sizeof *aa);
    for (int b = 0; b < g->nb; b++) {                       /* each sentence's attention */
        const size_t r0 = g->off[b] * (size_t)d, p0 = g->off2[b];
        struct enc_attn_args a;
        memset(&a, 0, sizeof a);
        a.n = g->n[b]; a.H = H; a.dk = dk; a.q = w->q + r0; a.k = w->k + r0; a.v = w->v + r0; a.ld_qkv = d;
        a.out = w->att + r0; a.scale = 1.0f / sqrtf((float)dk);
        a.allow = sdoi && g->has_anc ? w->anc + p0 : NULL;
        a.attn_mean = amap ? amap + p0 : NULL;
        if (L->sel.w >= 0) { a.sel_q = w->sel + 2 * r0; a.sel_k = w->sel + 2 * r0 + d; a.ld_sel = 2 * d; }
        if (L->rel_k >= 0) { a.rel = w->rel + p0; a.rel_clip = c->rel_clip; a.rel_k = enc_w(e, L->rel_k); a.rel_v = enc_w(e, L->rel_v); }
        if (L->seq_k >= 0) { a.seq_clip = c->rel_seq_clip; a.seq_k = enc_w(e, L->seq_k); a.seq_v = enc_w(e, L->seq_v); }
        aa[b] = a;
    }
    OPS->attention(BE, g->nb, aa);                          /* all sentences in one call */
    free(aa);
    linear(e, N, w->att, d, L->o, w->t2);                   /* MHA output [N, d] */
    const struct enc_param *F1 = &e->param[L->ff1.w];
    const int dff = F1->shape[1];
    if (post) {
        OPS->add(BE, nd, w->x, w->t2, w->t2);
        OPS->layer_norm(BE, N, d, w->t2, enc_w(e, L->ln1.g), enc_w(e, L->ln1.b), eps, w->x);   /* X1 */
        linear(e, N, w->x, d, L->ff1, w->t1);
        OPS->act(BE, act, (size_t)N * dff, w->t1);
        linear(e, N, w->t1, dff, L->ff2, w->t2);
        OPS->add(BE, nd, w->x, w->t2, w->t2);
        OPS->layer_norm(BE, N, d, w->t2, enc_w(e, L->ln2.g), enc_w(e, L->ln2.b), eps, w->x);
    } else {
        OPS->add(BE, nd, w->x, w->t2, w->x);                /* X1 = X + MHA(LN(X)) */
        OPS->layer_norm(BE, N, d, w->x, enc_w(e, L->ln2.g), enc_w(e, L->ln2.b), eps, w->z);
        linear(e, N, w->z, d, L->ff1, w->t1);
        OPS->act(BE, act, (size_t)N * dff, w->t1);
        linear(e, N, w->t1, dff, L->ff2, w->t2);
        OPS->add(BE, nd, w->x, w->t2, w->x);
    }
}

/* MS-SAN layer (§5.2) in place on w->x */
static void mssan_forward(struct enc *e, const struct enc_san_layer *L, const struct group *g, float *amap)
{
    struct ws *w = M(e)->ws;
    const struct enc_config *c = &e->cfg;
    const int d = c->d_model, H = c->heads, h = H / 2, dk = d / H, N = g->N;
    const size_t nd = (size_t)N * d;
    linear(e, N, w->x, d, L->q, w->q);
    linear(e, N, w->x, d, L->k, w->k);
    linear(e, N, w->x, d, L->v, w->v);
    struct enc_attn_args a;
    memset(&a, 0, sizeof a);
    a.H = H; a.dk = dk; a.ld_qkv = d; a.scale = 1.0f / sqrtf((float)dk); a.alpha = c->alpha;
    for (int m = 0; m < H; m++) {                           /* heads 0..h-1 forward, h..2h-1 backward (Q1) */
        int fwd = m < h;
        a.dir[m] = (int8_t)(c->strict_direction ? (fwd ? ENC_DIR_FWD_STRICT : ENC_DIR_BWD_STRICT) : (fwd ? ENC_DIR_FWD : ENC_DIR_BWD));
        a.dis[m] = (int8_t)c->dist[m % h];
    }
    struct enc_attn_args *aa = sp_xcalloc((size_t)(g->nb > 0 ? g->nb : 1), sizeof *aa);
    for (int b = 0; b < g->nb; b++) {
        const size_t r0 = g->off[b] * (size_t)d, p0 = g->off2[b];
        a.n = g->n[b]; a.q = w->q + r0; a.k = w->k + r0; a.v = w->v + r0; a.out = w->att + r0;
        a.dist = g->has_dist ? w->dist + p0 : NULL;
        a.attn_mean = amap ? amap + p0 : NULL;
        aa[b] = a;
    }
    OPS->attention(BE, g->nb, aa);                          /* all sentences in one call */
    free(aa);
    linear(e, N, w->att, d, L->o, w->t2);                   /* O = MM-MH(I) */
    linear(e, N, w->x, d, L->gi, w->q);                     /* Î */
    linear(e, N, w->t2, d, L->go, w->k);                    /* Ô */
    linear(e, N, w->q, d, L->g1, w->v);                     /* Î W_1 + b */
    const struct enc_param *G2 = &e->param[L->g2.w];
    OPS->linear(BE, N, d, d, w->k, d, G2->dev, d, NULL, w->v, d, 1);   /* + Ô W_2 */
    OPS->gate(BE, ENC_GATE_FUSION, nd, w->v, w->q, w->k, w->z);        /* G */
    const int dff = c->d_ff;
    linear(e, N, w->z, d, L->ff1, w->t1);
    OPS->act(BE, c->activation, (size_t)N * dff, w->t1);
    linear(e, N, w->t1, dff, L->ff2, w->t2);
    OPS->add(BE, nd, w->z, w->t2, w->t2);
    layer_norm(e, N, w->t2, L->ln1, w->x);                  /* U = LN(G + FFN(G)) */
}

/* PSAN (§5.4): memory steps on w->x (pid levels already uploaded as [T, N]), summary per sentence */
static void psan_forward(struct enc *e, const struct group *g, int attn_step, float *amap)
{
    struct ws *w = M(e)->ws;
    const struct enc_config *c = &e->cfg;
    const int d = c->d_model, T = c->levels, N = g->N;
    const size_t nd = (size_t)N * d;
    struct enc_psa_args *pa = sp_xcalloc((size_t)(g->nb > 0 ? g->nb : 1), sizeof *pa);
    for (int s = 1; s <= T; s++) {
        int t = c->psan_coarse_first ? s : T - s + 1;       /* Q16: fine -> coarse by default */
        const struct enc_psa_level *P = &M(e)->psa[t - 1];
        linear(e, N, w->x, d, P->a1, w->q);                 /* Pm W^{a1} */
        linear(e, N, w->x, d, P->a2, w->k);                 /* Pm W^{a2} + b^a */
        for (int b = 0; b < g->nb; b++) {                   /* p̃ per sentence, all in one call */
            const size_t r0 = g->off[b] * (size_t)d;
            pa[b] = (struct enc_psa_args){ g->n[b], d, w->q + r0, w->k + r0, w->x + r0,
                                           w->pid + (size_t)(t - 1) * N + g->off[b], w->v + r0,
                                           s - 1 == attn_step && amap ? amap + g->off2[b] : NULL };
        }
        OPS->psa(BE, g->nb, pa);
        OPS->absdiff_mul(BE, nd, w->x, w->v, w->att, w->z);
        linear_cat(e, N, w->att, w->z, P->c, w->t2);
        OPS->act(BE, ENC_ACT_ELU, nd, w->t2);               /* C */
        linear_cat(e, N, w->x, w->t2, M(e)->mem_g, w->q);      /* gate pre-activation */
        linear_cat(e, N, w->x, w->t2, M(e)->mem_m, w->k);
        OPS->gate(BE, ENC_GATE_PSAN, nd, w->q, w->k, c->psan_highway_carry ? w->x : NULL, w->y);
        float *tmp = w->x; w->x = w->y; w->y = tmp;
    }
    free(pa);
    linear(e, N, w->x, d, M(e)->sum1, w->t1);
    OPS->act(BE, ENC_ACT_ELU, nd, w->t1);
    linear(e, N, w->t1, d, M(e)->sum2, w->t2);
    OPS->pool(BE, ENC_POOL_ATT, g->nb, g->n, g->off, d, w->x, w->t2, w->vec, d);
}

/* ---- results back to the caller ---- */

/* dst[b] (NULL, or dst NULL: not wanted) = sentence b's piece of src: n[b] rows of d floats
 * from row off[b] (pair: n[b]² entries from off[b]); the pieces are consecutive in src, so one
 * download_pieces copies them all with one wait */
static void download_group(struct enc *e, int nb, float **dst, const float *src, const size_t *off, const int *n, int d, int pair)
{
    if (!dst) return;
    void **to = sp_xmalloc(sizeof *to * (size_t)nb);
    size_t *bytes = sp_xmalloc(sizeof *bytes * (size_t)nb);
    for (int b = 0; b < nb; b++) {
        to[b] = dst[b];
        bytes[b] = sizeof(float) * (size_t)n[b] * (pair ? (size_t)n[b] : (size_t)d);
    }
    OPS->download_pieces(BE, nb, to, bytes, src + (pair ? off[0] : off[0] * (size_t)d));
    free(to);
    free(bytes);
}

/* ---- what a config gives ---- */

static int san_has_kind(enum enc_kind k)
{
    return k == ENC_SAN || k == ENC_MSSAN || k == ENC_SGNET || k == ENC_PSAN || k == ENC_SSAN;
}

/* word vectors in, seeded or file weights, one output (the last layer's) */
static void san_config_caps(const struct enc_config *c, struct enc_caps *caps)
{
    (void)c;
    memset(caps, 0, sizeof *caps);
    caps->input = ENC_INPUT_ROWS;
}

static void san_caps(const struct enc *e, struct enc_caps *caps)
{
    const struct enc_config *c = &e->cfg;
    san_config_caps(c, caps);
    caps->dim = c->kind == ENC_MSSAN ? 2 * c->d_model : c->d_model;
    caps->tok_dim = c->d_model;
    caps->attn_layers = san_attn_layers(c);
    caps->needs = san_needs(c);
}

static const char *san_backend_name(const struct enc *e) { return e->be.ops->name; }

/* ---- open / close ---- */

static int san_open(struct enc *e, enum enc_device device, const char *weights_path, const struct sp_logger *log,
                    char *err, size_t errlen)
{
    e->fam_state = sp_xcalloc(1, sizeof(struct san_model));
    int rc = enc_backend_select(e, device, log, err, errlen);
    if (rc != SP_OK) return rc;
    sp_log(log, SP_LOG_INFO, "encoder: %s on %s", enc_kind_name(e->cfg.kind), e->be.ops->name);
    model_build(e);
    enc_param_alloc_init(e);
    rc = enc_param_upload(e, err, errlen);
    if (rc == SP_OK && weights_path) rc = enc_load_weights(e, weights_path, err, errlen);
    return rc;
}

/* the tensors open registers (model_build), without a backend or values */
static int san_weights_layout(struct enc *e, struct enc_weights_rules *rules, char *err, size_t errlen)
{
    (void)err; (void)errlen;
    e->fam_state = sp_xcalloc(1, sizeof(struct san_model));
    model_build(e);
    free(e->fam_state);
    e->fam_state = NULL;
    enc_weights_rules_plain(e, rules);
    return SP_OK;
}

static void san_close(struct enc *e)
{
    if (!M(e)) return;
    ws_free(e);
    if (M(e)->dtab) e->be.ops->free(&e->be, M(e)->dtab);
    if (!e->be.host_memory)
        for (int i = 0; i < e->n_param; i++) if (e->param[i].dev) e->be.ops->free(&e->be, e->param[i].dev);
    if (e->be.ops) e->be.ops->close(&e->be);
    free(e->param);
    free(e->host_block);
    free(M(e));
    e->fam_state = NULL;
}

/* ---- forward ---- */

/* validate one sentence against what the kind needs */
static int check_sentence(const struct enc *e, const struct enc_batch *in, int b, char *err, size_t errlen)
{
    const struct enc_sentence *s = &in->sent[b];
    unsigned need = san_needs(&e->cfg);
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
    /* the pair arrays go to the backend as int16 (half the upload and cache of int32) */
    const int32_t *pair[2] = { need & ENC_NEED_DIST ? s->dist : NULL, need & ENC_NEED_REL ? s->rel : NULL };
    for (int a = 0; a < 2; a++)
        for (size_t k = 0, nn = (size_t)s->n * s->n; pair[a] && k < nn; k++)
            if (pair[a][k] < INT16_MIN || pair[a][k] > INT16_MAX) {
                snprintf(err, errlen, "encoder: sentence %d: %s[%zu][%zu] = %d outside %d..%d (a sentence of %d tokens; the encoder keeps tree "
                         "distances and relative positions as int16)", b, a ? "rel" : "dist", k / s->n, k % s->n, (int)pair[a][k], INT16_MIN,
                         INT16_MAX, s->n);
                return SP_EUSAGE;
            }
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

/* SG-Net's aggregation H̄ = agg[0]·H + agg[1]·H': γ·softmax(w) (code form) or α, 1 − α */
static void sgnet_agg(struct enc *e, float agg[2])
{
    const struct enc_config *c = &e->cfg;
    if (!c->sgnet_code_agg) { agg[0] = c->sgnet_alpha; agg[1] = 1.0f - c->sgnet_alpha; return; }
    float w[3];                                              /* w0, w1, γ */
    OPS->download(BE, w, enc_w(e, M(e)->agg_w), 2 * sizeof(float));
    OPS->download(BE, w + 2, enc_w(e, M(e)->agg_gamma), sizeof(float));
    double m = w[0] > w[1] ? w[0] : w[1], e0 = exp(w[0] - m), e1 = exp(w[1] - m);
    agg[0] = (float)(w[2] * e0 / (e0 + e1));
    agg[1] = (float)(w[2] * e1 / (e0 + e1));
}

/* The group from sentence b0: whole sentences up to e->group_tokens rows (at least one). Fills
 * n/off/off2 (g's arrays, owned by the caller), g->nb, g->N; *nn = Σ n², *maxn the longest. */
static void next_group(const struct enc *e, const struct enc_batch *in, int b0, struct group *g, int *n, size_t *off,
                       size_t *off2, size_t *nn, int *maxn)
{
    int nb = 0, N = 0;
    *nn = 0; *maxn = 0;
    while (b0 + nb < in->n_sent && (nb == 0 || N + in->sent[b0 + nb].n <= e->group_tokens)) {
        const struct enc_sentence *s = &in->sent[b0 + nb];
        n[nb] = s->n; off[nb] = (size_t)N; off2[nb] = *nn;
        N += s->n; *nn += (size_t)s->n * s->n;
        if (s->n > *maxn) *maxn = s->n;
        nb++;
    }
    *g = (struct group){ nb, N, n, off, off2, 0, 0, 0 };
}

/* 1 when the batch's ids can take their rows from a device copy of its table (uploaded here
 * when the caller's fixed table is new to this handle); 0: gather on the host */
static int device_table(struct enc *e, const struct enc_batch *in, int b0, const struct group *g)
{
    struct san_model *m = M(e);
    if (e->be.host_memory || !OPS->gather_rows || !in->table || !in->table_fixed || in->table_rows <= 0) return 0;
    for (int b = 0; b < g->nb; b++) if (in->sent[b0 + b].emb) return 0;
    if (m->dtab && m->dtab_src == in->table && m->dtab_rows == in->table_rows) return 1;
    if (m->dtab) OPS->free(BE, m->dtab);
    const size_t bytes = sizeof(float) * (size_t)in->table_rows * e->cfg.d_input;
    m->dtab_src = NULL;
    if (!(m->dtab = OPS->alloc(BE, bytes))) return 0;                  /* no room: rows from the host */
    OPS->upload(BE, m->dtab, in->table, bytes);
    m->dtab_src = in->table;
    m->dtab_rows = in->table_rows;
    return 1;
}

/* the group's input rows [N, din] into w->x (through input.proj when d_input != d_model) */
static void upload_rows(struct enc *e, const struct enc_batch *in, int b0, const struct group *g)
{
    struct ws *w = M(e)->ws;
    const int din = e->cfg.d_input;
    float *rows = M(e)->in_proj.w >= 0 ? w->t1 : w->x;
    if (device_table(e, in, b0, g)) {                                   /* ids up, rows gathered there */
        for (int b = 0; b < g->nb; b++) memcpy(w->hi + g->off[b], in->sent[b0 + b].ids, sizeof(int32_t) * (size_t)g->n[b]);
        OPS->upload(BE, w->ids, w->hi, sizeof(int32_t) * (size_t)g->N);
        OPS->gather_rows(BE, g->N, din, M(e)->dtab, w->ids, rows);
        if (rows == w->t1) linear(e, g->N, w->t1, din, M(e)->in_proj, w->x);
        return;
    }
    for (int b = 0; b < g->nb; b++) {
        const struct enc_sentence *s = &in->sent[b0 + b];
        float *dst = w->hx + g->off[b] * (size_t)din;
        if (s->emb) memcpy(dst, s->emb, sizeof(float) * (size_t)s->n * din);
        else for (int i = 0; i < s->n; i++) memcpy(dst + (size_t)i * din, in->table + (size_t)s->ids[i] * din, sizeof(float) * din);
    }
    if (M(e)->in_proj.w >= 0) {
        OPS->upload(BE, w->t1, w->hx, sizeof(float) * (size_t)g->N * din);
        linear(e, g->N, w->t1, din, M(e)->in_proj, w->x);
    } else {
        OPS->upload(BE, w->x, w->hx, sizeof(float) * (size_t)g->N * e->cfg.d_model);
    }
}

/* int32 pair entries that check_sentence found inside int16 */
static void narrow16(int16_t *dst, const int32_t *src, size_t n)
{
    for (size_t k = 0; k < n; k++) dst[k] = (int16_t)src[k];
}

/* the structures the config needs, concatenated: [Σ n²] pair arrays (int16), [T, N] phrase ids */
static void upload_structures(struct enc *e, const struct enc_batch *in, int b0, struct group *g, size_t nn)
{
    struct ws *w = M(e)->ws;
    const unsigned need = san_needs(&e->cfg);
    const int nb = g->nb, N = g->N, T = e->cfg.levels, *gn = g->n;
    const size_t *goff = g->off, *goff2 = g->off2;
    int16_t *h16 = (int16_t *)w->hi;                          /* the int32 staging holds nn int16 */
    if (need & ENC_NEED_DIST) {
        for (int b = 0; b < nb; b++) narrow16(h16 + goff2[b], in->sent[b0 + b].dist, (size_t)gn[b] * gn[b]);
        OPS->upload(BE, w->dist, h16, sizeof(int16_t) * nn);
        g->has_dist = 1;
    }
    if (need & ENC_NEED_REL) {
        for (int b = 0; b < nb; b++) narrow16(h16 + goff2[b], in->sent[b0 + b].rel, (size_t)gn[b] * gn[b]);
        OPS->upload(BE, w->rel, h16, sizeof(int16_t) * nn);
        g->has_rel = 1;
    }
    if (need & ENC_NEED_ANC) {
        for (int b = 0; b < nb; b++) memcpy(w->h8 + goff2[b], in->sent[b0 + b].anc, (size_t)gn[b] * gn[b]);
        OPS->upload(BE, w->anc, w->h8, nn);
        g->has_anc = 1;
    }
    if (need & ENC_NEED_PID) {
        for (int t = 0; t < T; t++)
            for (int b = 0; b < nb; b++)
                memcpy(w->hi + (size_t)t * N + goff[b], in->sent[b0 + b].pid + (size_t)t * gn[b], sizeof(int32_t) * (size_t)gn[b]);
        OPS->upload(BE, w->pid, w->hi, sizeof(int32_t) * (size_t)T * N);
    }
}

/* §5.6 absolute positions added to w->x: rows of the cached PE table by position and/or depth */
static void add_positions(struct enc *e, const struct enc_batch *in, int b0, const struct group *g, int maxn)
{
    struct ws *w = M(e)->ws;
    const struct enc_config *c = &e->cfg;
    const int d = c->d_model, nb = g->nb, *gn = g->n;
    const size_t nd = (size_t)g->N * d, *goff = g->off;
    int seq = c->position == ENC_POS_SEQ || c->position == ENC_POS_SEQ_STRUCT;
    int str = c->position == ENC_POS_STRUCT || c->position == ENC_POS_SEQ_STRUCT;
    int maxdepth = 0;
    if (str)
        for (int b = 0; b < nb; b++)
            for (int i = 0; i < gn[b]; i++) if (in->sent[b0 + b].depth[i] + 1 > maxdepth) maxdepth = in->sent[b0 + b].depth[i] + 1;
    const float *pe = pe_table(e, maxn > maxdepth ? maxn : maxdepth);
    if (seq) {
        for (int b = 0; b < nb; b++) memcpy(w->hp + goff[b] * (size_t)d, pe, sizeof(float) * (size_t)gn[b] * d);
        OPS->upload(BE, w->pe1, w->hp, sizeof(float) * nd);
    }
    if (str) {
        for (int b = 0; b < nb; b++)
            for (int i = 0; i < gn[b]; i++)
                memcpy(w->hp + (goff[b] + (size_t)i) * d, pe + (size_t)in->sent[b0 + b].depth[i] * d, sizeof(float) * d);
        OPS->upload(BE, w->pe2, w->hp, sizeof(float) * nd);
    }
    if (seq && str && c->f_abs == ENC_FABS_TANH) {
        linear_cat(e, g->N, w->pe1, w->pe2, M(e)->pos_fuse, w->t2);
        OPS->act(BE, ENC_ACT_TANH, nd, w->t2);
        OPS->add(BE, nd, w->x, w->t2, w->x);
    } else {
        if (seq) OPS->add(BE, nd, w->x, w->pe1, w->x);
        if (str) OPS->add(BE, nd, w->x, w->pe2, w->x);
    }
}

/* The kind's stack on w->x, then its sentence vectors into w->vec ([nb, dim]); attention map of
 * layer al into amap (NULL: none); agg: SG-Net's aggregation (sgnet_agg). */
static void stack_forward(struct enc *e, const struct enc_batch *in, int b0, const struct group *g, int maxn, int al,
                          float *amap, const float *agg)
{
    struct ws *w = M(e)->ws;
    const struct enc_config *c = &e->cfg;
    const int d = c->d_model, dim = c->kind == ENC_MSSAN ? 2 * d : d, N = g->N;
    const size_t nd = (size_t)N * d;
    switch (c->kind) {
    case ENC_SAN: case ENC_SSAN: case ENC_SGNET: {
        if (c->emb_scale) OPS->axpby(BE, nd, sqrtf((float)d), w->x, 0.0f, w->x, w->x);
        if (c->position != ENC_POS_NONE) add_positions(e, in, b0, g, maxn);
        int post = c->norm == ENC_POST_LN;
        for (int l = 0; l < c->layers; l++)
            san_forward(e, &M(e)->layer[l], g, post, c->activation, c->ln_eps, 0, l == al ? amap : NULL);
        if (!post) { layer_norm(e, N, w->x, M(e)->final_ln, w->y); float *t = w->x; w->x = w->y; w->y = t; }
        if (c->kind == ENC_SGNET) {
            OPS->axpby(BE, nd, 1.0f, w->x, 0.0f, w->x, w->hb);   /* H */
            san_forward(e, &M(e)->sdoi, g, 1, c->activation, c->ln_eps, 1, al == c->layers ? amap : NULL);
            OPS->axpby(BE, nd, agg[0], w->hb, agg[1], w->x, w->x); /* H̄ = α H + (1-α) H' */
        }
        OPS->pool(BE, c->pooling, g->nb, g->n, g->off, d, w->x, NULL, w->vec, dim);
        break;
    }
    case ENC_MSSAN:
        for (int l = 0; l < c->layers; l++) mssan_forward(e, &M(e)->layer[l], g, l == al ? amap : NULL);
        linear(e, N, w->x, d, M(e)->pool1, w->t1);             /* E = FFN_p(U) */
        OPS->act(BE, c->activation, (size_t)N * c->pool_d_h, w->t1);
        linear(e, N, w->t1, c->pool_d_h, M(e)->pool2, w->t2);
        OPS->pool(BE, ENC_POOL_ATT, g->nb, g->n, g->off, d, w->x, w->t2, w->vec, dim);        /* [att | max] */
        OPS->pool(BE, ENC_POOL_MAX, g->nb, g->n, g->off, d, w->x, NULL, w->vec + d, dim);
        break;
    case ENC_PSAN:
        psan_forward(e, g, al, amap);
        break;
    default:                                            /* not this family's (san_has_kind) */
        break;
    }
}

/* The family's forward: one output (enc_api.c refuses several layers for this family), the
 * batch in groups (steps) of e->group_tokens tokens. */
static int family_forward(struct enc *e, const struct enc_batch *in, int n_out, const int *layers, struct enc_output *out,
                          float **const *heads, char *err, size_t errlen)
{
    SP_ASSERT(n_out == 1 && !layers && !heads);
    const struct enc_config *c = &e->cfg;
    const int d = c->d_model, dim = c->kind == ENC_MSSAN ? 2 * d : d;
    for (int b = 0; b < in->n_sent; b++) {
        int rc = check_sentence(e, in, b, err, errlen);
        if (rc) return rc;
    }
    int al = out->attn_layer < 0 ? san_attn_layers(c) - 1 : out->attn_layer;
    if (out->attn && al >= san_attn_layers(c)) {
        snprintf(err, errlen, "encoder: attn_layer %d: expected -1 or 0..%d", out->attn_layer, san_attn_layers(c) - 1);
        return SP_EUSAGE;
    }
    float agg[2] = { 0 };
    if (c->kind == ENC_SGNET) sgnet_agg(e, agg);             /* once per call: it downloads */
    const int want_attn = out->attn != NULL;
    int *gn = sp_xmalloc(sizeof(int) * (size_t)(in->n_sent + 1));
    size_t *goff = sp_xmalloc(sizeof(size_t) * (size_t)(in->n_sent + 1)), *goff2 = sp_xmalloc(sizeof(size_t) * (size_t)(in->n_sent + 1));
    int rc = SP_OK;
    for (int b0 = 0; b0 < in->n_sent && rc == SP_OK;) {
        struct group g;
        size_t nn;
        int maxn;
        next_group(e, in, b0, &g, gn, goff, goff2, &nn, &maxn);
        rc = ws_reserve(e, g.N, nn, g.nb, want_attn, err, errlen);
        if (rc) break;
        struct ws *w = M(e)->ws;
        upload_rows(e, in, b0, &g);
        upload_structures(e, in, b0, &g, nn);
        stack_forward(e, in, b0, &g, maxn, al, want_attn ? w->amap : NULL, agg);
        OPS->download(BE, out->sent + (size_t)b0 * dim, w->vec, sizeof(float) * (size_t)g.nb * dim);
        download_group(e, g.nb, out->tok ? out->tok + b0 : NULL, w->x, goff, gn, d, 0);
        download_group(e, g.nb, out->attn ? out->attn + b0 : NULL, w->amap, goff2, gn, d, 1);
        rc = OPS->sync(BE, err, errlen);
        b0 += g.nb;
    }
    free(gn); free(goff); free(goff2);
    return rc;
}

const struct enc_family enc_san_family = {
    .name = "san",
    .has_kind = san_has_kind,
    .config_caps = san_config_caps,
    .config_layers = NULL,
    .open = san_open,
    .caps = san_caps,
    .forward = family_forward,
    .fits = NULL,
    .backend_name = san_backend_name,
    .close = san_close,
    .weights_layout = san_weights_layout,
};
