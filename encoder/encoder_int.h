/* encoder/encoder_int.h — private to encoder/: the backend vtable (docs/style.md §3.5), the op argument
 * structs, the parameter registry and the handle.
 *
 * Split: a model family (enc_san.c, enc_bert.c; struct enc_family below) holds the forward graph
 * of its kinds, written once in terms of the ops below; a backend (enc_cpu.c, and enc_cuda.cu in the CUDA plugin) implements the ops on its own
 * buffers, with the per-element formulas of enc_formulas.h.
 * All float/int pointers passed to an op are BACKEND buffers (from ops->alloc); host code may do
 * pointer arithmetic on them but never dereferences them. Small per-op tables (head direction
 * and distance types) travel by value inside the argument structs. All matrices are row-major,
 * row = query / token. An op never fails: argument errors are programmer errors (SP_ASSERT);
 * device errors are latched in the backend and reported by ops->sync (tier 2, docs/style.md §3.3). */
#ifndef ENC_ENCODER_INT_H
#define ENC_ENCODER_INT_H

#include "common/sp.h"
#include "encoder/encoder.h"

#include <stdio.h>

/* gate modes */
enum enc_gate {
    ENC_GATE_FUSION = 0,       /* out = σ(pre)⊙a + (1−σ(pre))⊙b                       (MS-SAN Eq. 8–9) */
    ENC_GATE_PSAN,             /* out = σ(pre)⊙ELU(a)  (+ (1−σ(pre))⊙b when b != NULL)   (PSAN Eq. 4, Q19) */
    ENC_GATE_SILU,             /* out = SiLU(pre)⊙a = pre·σ(pre)⊙a, b unused      (SwiGLU: Llama's MLP) */
    ENC_GATE_GELU_TANH,        /* out = GELU_tanh(pre)⊙a, b unused                 (GeGLU: Gemma's MLP) */
};

/* direction of one attention head (MS-SAN; other kinds use ENC_DIR_ALL) */
enum enc_dir { ENC_DIR_ALL = 0, ENC_DIR_FWD, ENC_DIR_BWD, ENC_DIR_FWD_STRICT, ENC_DIR_BWD_STRICT };

/* One sentence, all heads (ops->attention takes an array of these, one per sentence): S_h = q_h·(k_h + aK)·scale + α·Mdis_h (+ B_h: pos_bias) (+ DeBERTa's rp terms) (+ structural/direction masks,
 * selection); P_h = safe_softmax(S_h) over allowed keys (an empty row gives zeros, §0);
 * out_h = Σ_j P_h[i][j]·(v_h[j] + aV_ij). Head h uses columns h*dk..h*dk+dk-1 of q/k/v/out. */
struct enc_attn_args {
    int n, H, dk;
    const float *q, *k, *v;    /* [n, ld_qkv] */
    int ld_qkv;
    float *out;                /* [n, H*dk] */
    float scale;               /* 1/sqrt(dk) */
    int8_t dir[ENC_MAX_HEADS];  /* enum enc_dir per head */
    int8_t dis[ENC_MAX_HEADS];  /* enum enc_dist per head */
    float alpha;               /* distance prior weight */
    const int16_t *dist;       /* [n*n] tree distance (needed if any dis == DEP); int16: half the
                                * upload and cache of int32 (enc_san.c checks the values fit) */
    const uint8_t *allow;      /* [n*n] structural mask (SDOI), NULL = all allowed */
    const float *sel_q, *sel_k;/* SSAN selector halves [n, ld_sel] (head h at h*dk), or NULL */
    int ld_sel;
    const int16_t *rel;        /* [n*n] structural relative positions (raw), or NULL (int16 as dist) */
    int rel_clip;
    const float *rel_k, *rel_v;/* [2*rel_clip+1, dk] (both or neither) */
    int seq_clip;
    const float *seq_k, *seq_v;/* [2*seq_clip+1, dk], or NULL */
    const float *pos_bias;     /* [2*pos_clip+1, pos_ld], or NULL: head h's score of key j for query i
                                * gets + pos_bias[(clip(j − i) + pos_clip)·pos_ld + h] after the scale
                                * (enc_f_pos_bias; MPNet's relative attention bias) */
    int pos_clip, pos_ld;
    /* DeBERTa's disentangled terms (enc_f_rp_cols): head h's score of key j for query i gets
     * + (q_i·rp_k[c] + k_j·rp_q[p])·scale, c and p rp_idx's columns of offset i − j (clipped to
     * ±rp_max); rp_k / rp_q [rows, rp_ld] with head h at column h*dk, either NULL */
    const float *rp_k, *rp_q;
    int rp_rows, rp_ld, rp_max;
    const int32_t *rp_idx;     /* [2*rp_max+1][2]: the c2p and p2c row of offset −rp_max..rp_max */
    int kv_heads;              /* grouped-query attention: 0 (or H): head h reads the key and value columns
                                * h·dk..; else (dividing H) those of key/value head h / (H / kv_heads)
                                * (enc_f_kv_off): k and v then hold kv_heads heads */
    float *attn_mean;          /* OUT (optional): [n*n] mean over heads of P */
};

/* PSA of one level (§5.4) computed per phrase block: for i, feature k, keys j in i's phrase,
 * j != i: a = ELU(a1[i][k] + a2[j][k]); w = softmax_j a; out[i][k] = Σ_j w·pm[j][k].
 * A word alone in its phrase gets out[i] = 0 (Q18). */
struct enc_psa_args {
    int n, d;
    const float *a1;           /* [n, d] = Pm W^{a1} */
    const float *a2;           /* [n, d] = Pm W^{a2} + b^a */
    const float *pm;           /* [n, d] */
    const int32_t *pid;        /* [n] contiguous phrase ids */
    float *out;                /* [n, d] p̃ */
    float *attn_mean;          /* OUT (optional): [n*n] mean over features of w */
};

struct enc_backend {
    const struct enc_backend_ops *ops;
    void *state;               /* backend-private (cuBLAS handle, stream, workspace, ...) */
    int host_memory;           /* 1: buffers are host memory (CPU): weights are used in place */
};

/* ops->open's answer when no GPU can be used at all (no driver, no device): --device auto falls
 * back to the CPU saying only "no GPU found"; any other failure carries its reason */
enum { ENC_ENODEV = 100 };

/* a block of columns of a weight as a file holds it: B[k][j0 + j] = w[j*ldw + k] (trans) or
 * w[k*ldw + j], j < cols, of dtype (enum enc_dtype: F32, F16, BF16) */
struct enc_wpart { const void *w; int dtype, cols, ldw, trans; };

struct enc_backend_ops {
    const char *name;                                           /* "cpu", "cuda" */
    int   (*open)(struct enc_backend *be, char *err, size_t n); /* SP_OK, ENC_ENODEV, SP_EGPU, SP_ENOMEM */
    void  (*close)(struct enc_backend *be);
    /* memory */
    void *(*alloc)(struct enc_backend *be, size_t bytes);       /* zeroed; NULL on failure */
    void  (*free)(struct enc_backend *be, void *p);
    void  (*upload)(struct enc_backend *be, void *dst, const void *src, size_t bytes);
    void  (*download)(struct enc_backend *be, void *dst_host, const void *src, size_t bytes);
    /* the consecutive pieces of src (bytes[i] each) into dst[i], one wait for all (a NULL dst[i]
     * skips its piece): a batch's rows or maps back to each sentence's host array */
    void  (*download_pieces)(struct enc_backend *be, int count, void *const *dst, const size_t *bytes, const void *src);
    int   (*sync)(struct enc_backend *be, char *err, size_t n); /* wait; report a latched error */
    /* Y[M,N] = X[M,K]·W[K,N] (+ b[N]) (+ Y when accumulate) */
    void  (*linear)(struct enc_backend *be, int M, int K, int N, const float *X, int ldx,
                    const float *W, int ldw, const float *b, float *Y, int ldy, int accumulate);
    void  (*act)(struct enc_backend *be, enum enc_act a, size_t n, float *x);          /* in place */
    void  (*add)(struct enc_backend *be, size_t n, const float *a, const float *b, float *out);
    void  (*axpby)(struct enc_backend *be, size_t n, float alpha, const float *a, float beta,
                   const float *b, float *out);                                     /* αa + βb */
    void  (*layer_norm)(struct enc_backend *be, int rows, int d, const float *x, const float *g,
                        const float *b, float eps, float *out);
    void  (*gate)(struct enc_backend *be, enum enc_gate mode, size_t n, const float *pre,
                  const float *a, const float *b, float *out);
    void  (*absdiff_mul)(struct enc_backend *be, size_t n, const float *a, const float *b,
                         float *absdiff, float *prod);
    /* count independent sentences' attention, a[0..count-1]; the same bits as count calls with one
     * each (the CPU spreads them over the GEMM's threads, CUDA runs them in one launch) */
    void  (*attention)(struct enc_backend *be, int count, const struct enc_attn_args *a);
    /* count independent sentences' phrase attention, a[0..count-1] (the CPU spreads them over the
     * GEMM's threads; the same bits as count calls with one each) */
    void  (*psa)(struct enc_backend *be, int count, const struct enc_psa_args *a);
    /* count sentences at once: sentence s has n[s] rows of x (and e) from row off[s]; its
     * out + s·ldo [d] = MEAN/MAX/FIRST over its rows; ATT: Σ_i softmax_i(e[·][k])[i]·x[i][k] */
    void  (*pool)(struct enc_backend *be, enum enc_pooling mode, int count, const int *n, const size_t *off,
                  int d, const float *x, const float *e, float *out, int ldo);
    /* (optional) the parameters were (re)uploaded: drop anything derived from them (packed copies) */
    void  (*params_changed)(struct enc_backend *be);
    /* (optional) fused forms, the same bits as the ops they replace (NULL: the caller runs those):
     * linear (no accumulate), then act on Y; add (x + res), then layer_norm into out */
    void  (*linear_act)(struct enc_backend *be, int M, int K, int N, const float *X, int ldx,
                        const float *W, int ldw, const float *b, float *Y, int ldy, enum enc_act a);
    void  (*add_layer_norm)(struct enc_backend *be, int rows, int d, const float *x, const float *res,
                            const float *g, const float *b, float eps, float *out);
    /* (optional) linear (no accumulate) into Y [M, N] (ldy = N), then add_layer_norm(Y, res) into out */
    void  (*linear_add_layer_norm)(struct enc_backend *be, int M, int K, int N, const float *X, int ldx,
                                   const float *W, int ldw, const float *b, float *Y, const float *res,
                                   const float *g, const float *beta, float eps, float *out);
    /* (optional) download_pieces for copies read only after the next sync (every layer of a
     * forward): returns without waiting; the ops enqueued after it may overwrite src (the backend
     * copies it aside first) while the copy runs beside them; dst[i] are complete when sync
     * returns and must be neither read nor freed before. dst and bytes are the caller's again at
     * once. NULL: the caller uses download_pieces. */
    void  (*download_pieces_later)(struct enc_backend *be, int count, void *const *dst, const size_t *bytes, const void *src);
    /* (optional, device backends) out[r] = table[ids[r]] for r < N, rows of d floats, all three
     * backend buffers (enc_batch.table_fixed: the table uploaded once) */
    void  (*gather_rows)(struct enc_backend *be, int N, int d, const float *table, const int32_t *ids, float *out);
    /* (optional, device backends) BERT's embeddings: out[r] = (word[idx[3r]] + type[idx[3r+1]]) +
     * pos[idx[3r+2]], rows of d floats, in that order (the host sum's bits); all backend buffers */
    void  (*embed_sum)(struct enc_backend *be, int N, int d, const float *word, const float *type, const float *pos,
                       const int32_t *idx, float *out);
    /* (optional, host backends) packs the weight B [K, N] = [parts[0] | parts[1] | ...] in the
     * parts' dtype when they share one (F16 / BF16 stay halves; mixed ones are widened to F32) and
     * keeps it as the weight linear* are given as key (key is only compared, never read); the
     * parts need not stay valid. NULL: the caller gives linear f32 weights in backend memory. */
    int   (*pack_weight)(struct enc_backend *be, const float *key, int K, int N, const struct enc_wpart *parts, int n_parts);
    /* (decoders) RMSNorm of rows of d: out = g ⊙ x / sqrt(mean(x²) + eps) (enc_f_rms_scale; in place safe) */
    void  (*rms_norm)(struct enc_backend *be, int rows, int d, const float *x, const float *g, float eps, float *out);
    /* (decoders) rotary position embedding in place: row r of x (stride ldx) holds heads of dk
     * columns in its first heads·dk columns; the first rot (even, <= dk) columns of each head are
     * rotated in pairs (c, c + rot/2), c < rot/2, by row r's cs[r·rot + c] (cos) and
     * cs[r·rot + rot/2 + c] (sin) (enc_f_rope_lo / _hi; cs [rows, rot]); the other columns stay
     * (GPT-NeoX's partial rotary) */
    void  (*rope)(struct enc_backend *be, int rows, int heads, int dk, int rot, float *x, int ldx, const float *cs);
};

extern const struct enc_backend_ops enc_cpu_ops;
/* the CPU backend's GELU (vectorisable erf, within 3 ulp of enc_f_gelu), for tests */
float enc_cpu_gelu(float x);
/* Defined by encoder/enc_cuda.cu, which is built into the plugin build/synprobe_cuda.so (not
 * into libsp_encoder.a); C code reaches it only through enc_cuda_backend (enc_cuda_load.c), which
 * loads the plugin on first use. It returns SP_OK with *ops set, ENC_ENODEV when there is no
 * plugin or it cannot be loaded (a build or machine without CUDA), or SP_EGPU for a plugin built
 * from other sources (see ENC_PLUGIN_ABI); the reason is in why. */
extern const struct enc_backend_ops enc_cuda_ops;
int enc_cuda_backend(const struct enc_backend_ops **ops, char *why, size_t n);

/* The plugin's ABI. The plugin and the binary share struct enc_backend_ops, struct enc_backend,
 * the op argument structs and the enum values above: bump ENC_PLUGIN_ABI whenever any of them
 * changes. The plugin exports enc_cuda_abi(); enc_cuda_backend refuses a plugin without it, with
 * another version, or (a forgotten bump) with other struct sizes. version stays the first field. */
#define ENC_PLUGIN_ABI 9
struct enc_plugin_abi {
    uint32_t version;          /* ENC_PLUGIN_ABI when the plugin was built */
    uint32_t ops_size, backend_size, attn_args_size, psa_args_size;   /* sizeof each struct */
};
const struct enc_plugin_abi *enc_cuda_abi(void);

/* ---- parameters ---- */

enum enc_init { ENC_INIT_GLOROT = 0, ENC_INIT_ZERO, ENC_INIT_ONE, ENC_INIT_HALF };

struct enc_param {
    char name[128];
    int ndim, shape[2];
    size_t count;
    enum enc_init init;
    uint8_t transposed;        /* the file holds it [shape[1], shape[0]] (a bert Linear, [out, in]) */
    uint8_t view;              /* kept as the file holds it (its dtype and layout): src, dtype; host is
                                * NULL (not in host_block); enc_param_upload widens it for a device */
    uint8_t dtype;             /* (view) enum enc_dtype of src */
    const void *src;           /* (view) the tensor in the mapped file (enc_weights_bind_views) */
    float *host;               /* view into enc.host_block (NULL for a view parameter) */
    float *dev;                /* backend copy (== host on a host-memory backend) */
};

struct enc_lin { int w, b; };  /* parameter indices; b = -1 when absent */
struct enc_ln { int g, b; };

struct enc_sft;

/* How a family's weights file maps onto its registry (enc_weights.c matches and reads by these
 * rules, for a load and for `synprobe weights check` alike). */
struct enc_weights_rules {
    int widen;                 /* 1: F16 and BF16 tensors are read too (widened exactly); 0: F32 only */
    void (*normalise)(const char *in, char *out, size_t n);   /* the file's name -> registry name; NULL: as is */
    int (*ignored)(const char *normalised);                    /* tensors the file may hold and nobody reads; NULL: none */
    char what[112];            /* for "unexpected": "not read by <what>" */
    const char *prefix;        /* (optional) one leading prefix stripped before normalise ("roberta.") */
    const char *const *ignore; /* (optional) NULL-terminated: a normalised name starting with one of
                                * these is ignored too (heads: "lm_head.", "cls.", ...) */
};

/* ---- model families (encoder/README.md "Model families") ----
 *
 * A family is the forward graph of one or more kinds, behind this table, in one file:
 * enc_san.c (san, ms-san, sg-net, psan, ssan) and enc_bert.c (bert). enc_api.c, the public
 * entry points, finds the family of a config's kind in its table (enc_family_of) and only ever
 * calls these slots; nothing outside the family files tests a kind. */
struct enc_family {
    const char *name;                                    /* "san", "bert" */
    int  (*has_kind)(enum enc_kind kind);
    /* (optional) 1 when this family takes the config among those of its kind (kind hf: a decoder
     * folder's config.json, enc_decoder.c); NULL: every config of its kinds. families[] asks the
     * families in order, a claiming one first. */
    int  (*claims)(const struct enc_config *c);
    /* what the config alone implies (enc_config_caps): input, layer_outputs, model_dir/files */
    void (*config_caps)(const struct enc_config *c, struct enc_caps *caps);
    /* (layer_outputs families) L from the model's files without opening it; NULL otherwise */
    int  (*config_layers)(const struct enc_config *c, int *layers, char *err, size_t errlen);
    /* e->cfg is checked and set; open the backend, the weights (weights_path: a file, or NULL:
     * seeded init / the model's own), anything else the family keeps (e->fam_state). On failure
     * close is still called. */
    int  (*open)(struct enc *e, enum enc_device device, const char *weights_path, const struct sp_logger *log,
                 char *err, size_t errlen);
    /* every field of enc_caps for an open handle */
    void (*caps)(const struct enc *e, struct enc_caps *caps);
    /* outs[0..n_out-1]; layers NULL: one output, the config's own (enc_forward), else layers[i]
     * for outs[i] (layer_outputs families only); heads as enc_forward_layers (NULL: none) */
    int  (*forward)(struct enc *e, const struct enc_batch *in, int n_out, const int *layers, struct enc_output *outs,
                    float **const *heads, char *err, size_t errlen);
    /* (optional) enc_fits; NULL: every sentence fits */
    int  (*fits)(const struct enc *e, const char *const *words, int n);
    const char *(*backend_name)(const struct enc *e);
    void (*close)(struct enc *e);                        /* what open made; not e itself */
    /* e->cfg is checked and set: register the config's tensors into e's registry (e->param,
     * n_param; no backend, no values: fam_state stays NULL) by the code open runs, and say how
     * a weights file's names map onto them (enc_weights_check, enc_weights_expected) */
    int  (*weights_layout)(struct enc *e, struct enc_weights_rules *rules, char *err, size_t errlen);
};
extern const struct enc_family enc_san_family, enc_bert_family;   /* enc_decoder_family: below */

/* ---- Hugging Face encoder families (enc_hf.c; encoder/README.md "Hugging Face families") ----
 *
 * One row per model_type that is a BertModel variant: how its config.json names the sizes, how
 * its checkpoint names the tensors, and what it changes in the embeddings. enc_bert.c builds and
 * runs every row with one graph; the table is the only place a model_type is named. */
struct enc_hf_arch {
    const char *model_type;    /* config.json's "model_type" */
    const char *prefix;        /* the base model's prefix in a *For* checkpoint ("roberta.") */
    /* config.json keys (k_types NULL: no token type embeddings; k_eps NULL: LayerNorm eps 1e-12) */
    const char *k_hidden, *k_layers, *k_heads, *k_inter, *k_act, *k_types, *k_eps;
    int roberta_positions;     /* 1: positions from pad_token_id + 1 (RoBERTa's create_position_ids);
                                * 2: the same from a padding_idx fixed at 1 whatever pad_token_id says (MPNet) */
    int factorised;            /* embedding_size may differ from hidden_size: 1: embeddings_project when
                                * they differ (ELECTRA); 2: always (ALBERT's embedding_hidden_mapping_in) */
    /* tensor names (the layer's with "%d" for the layer) */
    const char *emb_word, *emb_pos, *emb_type, *emb_ln, *emb_proj;
    const char *layer;         /* "encoder.layer.%d." (shared_layers: %d is the group) */
    const char *q, *k, *v, *o, *ln1, *ff1, *ff2, *ln2;
    const char *const *heads;  /* name prefixes of this family's heads, ignored */
    /* (MPNet) the relative attention bias [relative_attention_num_buckets, heads] every layer adds
     * to its scores, by T5's bidirectional buckets (32, max distance 128); NULL: none */
    const char *rel_bias;
    /* (ALBERT) the layers run num_hidden_groups shared groups of one layer (inner_group_num 1) */
    int shared_layers;
    /* (DeBERTa-v2) disentangled attention's tensor names; NULL: not this family */
    const struct enc_hf_disentangled *dis;
};
/* rel_embeddings [2·att_span, hidden] and its LayerNorm, each layer's separate position
 * projections (share_att_key false; the layer's prefix before them) */
struct enc_hf_disentangled {
    const char *rel_emb, *rel_ln, *pos_k, *pos_q;
    const char *const *heads_no_pos;   /* the heads ignored without position_biased_input: the row's and the
                                        * absolute position table some checkpoints keep unused */
};
/* the row of a model_type; NULL: synprobe lacks it */
const struct enc_hf_arch *enc_hf_arch_find(const char *model_type);
/* "bert, camembert, ...": every model_type of the table, into text (returned) */
const char *enc_hf_arch_list(char *text, size_t cap);
/* config.json at path into cfg and the row that reads it; want: a model_type the file must have
 * ("bert": kind bert), or NULL: any row of the table (kind hf) */
int enc_hf_config_read(const char *path, const char *want, struct enc_bert_config *cfg, const struct enc_hf_arch **arch,
                       char *err, size_t errlen);
/* a JSON file (a regular file) into *root: SP_EIO, SP_EPARSE "PATH:LINE: not valid JSON: ..." */
struct json_t;
int enc_hf_json_load(const char *path, struct json_t **root, char *err, size_t errlen);
/* The tokenizer of a model folder. prefer_json (kind hf): tokenizer.json where the folder has one,
 * with the prefix-space rule of the tokenizer class transformers builds for it (tokenizer_config.json's
 * or config.json's "tokenizer_class", else its model_type's: tokjson.h); vocab.txt otherwise.
 * prefer_json 0 (kind bert): vocab.txt, tokenizer.json only where there is no vocab.txt. opts: the
 * BERT tokenizer's (max_positions and ptb_unescape apply to both; tokenizer_mode "wordpiece-only"
 * is refused with tokenizer.json). */
struct enc_tokenizer;
struct enc_tok_opts;
struct enc_tok_sentence;
struct enc_hf_tok;
int enc_hf_tokenizer_open(const char *dir, int prefer_json, const struct enc_tok_opts *opts, struct enc_hf_tok **out,
                          char *err, size_t errlen);
/* The same for a decoder (kind hf): tokenizer.json as running text tokenizes (the file's own
 * add_prefix_space, whatever the class; a word after the first gets the " " running text gives it
 * where the tokenizer does not mark every word's space itself: GPT-2's " dog", not "dog"). */
int enc_hf_tokenizer_open_text(const char *dir, const struct enc_tok_opts *opts, struct enc_hf_tok **out, char *err, size_t errlen);
void enc_hf_tok_close(struct enc_hf_tok *t);
/* "vocab.txt" or "tokenizer.json (RobertaTokenizerFast, add_prefix_space=True)", for the log */
const char *enc_hf_tok_what(const struct enc_hf_tok *t);
/* One sentence as enc_tok_sentence (too_long: more than max_positions pieces); T, or -SP_E* with
 * err (a tokenizer.json word that gets no piece where the tokenizer has no unknown token). */
int enc_hf_tok_sentence(const struct enc_hf_tok *t, const char *const *words, int n, struct enc_tok_sentence *s,
                        char *err, size_t errlen);
/* the files of a model folder that are its weights (hashed into the fingerprint), for kind hf:
 * config.json, model.safetensors (or model.safetensors.index.json and its shards, sorted), and
 * the tokenizer's files (tokenizer.json and tokenizer_config.json, or vocab.txt). The list lives
 * as long as the process. */
const char *const *enc_hf_model_files(const char *dir);
/* ---- Hugging Face decoder families (enc_hf.c's second table; enc_decoder.c; encoder/README.md
 * "Decoder families") ----
 *
 * One row per model_type of a decoder-only LM: its tensor names and which graph runs it (GPT-2's:
 * learned positions, LayerNorm, a fused Conv1D c_attn held [in, out]; or Llama's: RMSNorm, RoPE,
 * separate q/k/v (grouped-query), SwiGLU). enc_dec_config_read reads a row's config.json keys. */
enum enc_dec_norm { ENC_DEC_LAYERNORM = 0, ENC_DEC_RMSNORM };
enum enc_dec_rope { ENC_ROPE_NONE = 0, ENC_ROPE_PLAIN, ENC_ROPE_LINEAR, ENC_ROPE_DYNAMIC, ENC_ROPE_LLAMA3 };
struct enc_dec_arch {
    const char *model_type;    /* config.json's "model_type" */
    const char *prefix;        /* the base model's prefix in a *ForCausalLM checkpoint ("transformer.", "model.") */
    int gpt2;                  /* 1: GPT-2's graph; 0: Llama's */
    int qkv_bias;              /* 1: q/k/v always have biases, o none (Qwen2); 0: attention_bias says (Llama; Mistral: none) */
    int window;                /* 1: config.json's sliding_window masks keys further back (Mistral) */
    const char *k_attn_bias;   /* the key of attention_bias (Llama's), or NULL: no such key */
    int opt;                   /* 1: OPT's keys and graph (learned positions offset by 2, pre-LN, separate q/k/v) */
    int gemma;                 /* 1: Gemma's keys on Llama's graph: embeddings × sqrt(hidden), RMSNorm by (1 + w), GeGLU */
    int phi;                   /* 1: Phi's keys and graph: separate q/k/v (GQA) with biases, partial rotary, one
                                * LayerNorm for the parallel attention and MLP (ln2 NULL) */
    int neox;                  /* 1: GPT-NeoX's keys and graph: q is the fused query_key_value, interleaved per head
                                * ([heads, 3, dk] of its outputs), partial rotary, parallel residual */
    /* tensor names: embeddings, learned positions (NULL: none), the layer's prefix ("%d"), then the
     * layer's (q: GPT-2's fused c_attn; k, v NULL there), the MLP (ff_gate NULL: no gate), the final norm */
    const char *emb, *pos, *layer, *ln1, *q, *k, *v, *o, *ln2, *ff_gate, *ff_up, *ff_down, *final_norm;
    const char *const *heads;  /* name prefixes of the heads, ignored (lm_head.) */
};
struct enc_dec_config {
    char model_type[24];
    int vocab_size, hidden_size, layers, heads, kv_heads, intermediate_size;
    int head_dim;              /* the width of a head (hidden_size / heads; Gemma's head_dim may differ) */
    int max_positions;         /* n_positions / max_position_embeddings */
    float eps;                 /* layer_norm_epsilon / rms_norm_eps */
    enum enc_act act;          /* GPT-2's MLP activation */
    enum enc_dec_norm norm;
    enum enc_dec_rope rope;
    double rope_theta, rope_factor;
    double rope_low, rope_high, rope_orig;   /* llama3: low_freq_factor, high_freq_factor, original_max_position_embeddings */
    int attn_bias, o_bias, mlp_bias;   /* q/k/v biases, the output projection's, the MLP's */
    int scale_attn, scale_inv_layer;   /* GPT-2: scale_attn_weights, scale_attn_by_inverse_layer_idx */
    int bos_id;                /* bos_token_id, -1: none */
    int window;                /* sliding window: query i sees keys i − window .. i; 0: all before it */
    int pos_offset;            /* learned positions: piece p reads row p + pos_offset (OPT: 2) */
    int rope_rot;              /* RoPE: the rotated columns of each head (GPT-NeoX: dk·rotary_pct; else dk) */
    int parallel;              /* GPT-NeoX's use_parallel_residual: x + attn(ln1(x)) + mlp(ln2(x)) */
    enum enc_gate glu;         /* a gated MLP's activation: ENC_GATE_SILU (SwiGLU), ENC_GATE_GELU_TANH (Gemma's GeGLU) */
    float emb_scale;           /* the embeddings times this (Gemma: float32 sqrt(hidden)); 0: none */
    int norm_plus_one;         /* RMSNorm by (1 + w) (Gemma) */
};
const struct enc_dec_arch *enc_dec_arch_find(const char *model_type);
const char *enc_dec_arch_list(char *text, size_t cap);
int enc_dec_config_read(const char *path, struct enc_dec_config *c, const struct enc_dec_arch **arch, char *err, size_t errlen);
/* 1 when DIR/config.json names a decoder family's model_type (kind hf then opens enc_decoder_family) */
int enc_hf_is_decoder(const char *dir);
extern const struct enc_family enc_decoder_family;
/* The decoder model of a folder (enc_decoder.c), for the family and the reference driver
 * (tests/tools/encoder_dec_run.c): the same layer and attention masks and outputs as
 * enc_bert_forward (in[s].types unused); stream: enum enc_dec_stream. */
struct enc_dec;
int enc_dec_open(const char *dir, enum enc_device device, const struct sp_logger *log, struct enc_dec **out, char *err,
                 size_t errlen);
void enc_dec_close(struct enc_dec *m);
const struct enc_dec_config *enc_dec_get_config(const struct enc_dec *m);
struct enc_bert_input;
int enc_dec_forward(struct enc_dec *m, int n_sent, const struct enc_bert_input *in, float **hidden, uint64_t hidden_layers,
                    float **attn, uint64_t attn_layers, int stream, char *err, size_t errlen);

/* the family that opens cfg: the first of its kind that claims it (NULL: no family has the kind) */
const struct enc_family *enc_family_of(const struct enc_config *cfg);

struct enc {
    struct enc_config cfg;
    const struct enc_family *fam;
    void *fam_state;           /* the family's own: its model layout and workspace (enc_san.c), or its
                                * model and tokenizer (enc_bert.c) */
    int group_tokens;          /* enc_set_group_tokens */
    size_t ws_limit;           /* enc_set_workspace_limit; 0 = none */
    /* the parameter registry and backend (the SAN family's; bert keeps its own inside enc_bert_t) */
    struct enc_backend be;
    int n_param;
    struct enc_param *param;
    float *host_block;
    size_t n_floats;
};

/* parameter registry (enc_weights.c) */
int  enc_param_add(struct enc *e, const char *name, int rows, int cols, enum enc_init init);
int  enc_param_find(const struct enc *e, const char *name);
void enc_param_alloc_init(struct enc *e);          /* host block + seeded init */
int  enc_param_upload(struct enc *e, char *err, size_t errlen);
/* a view parameter's values as floats in the registry layout ([in, out] for a transposed one), widened exactly */
void enc_param_widen(const struct enc_param *p, float *dst);
/* after enc_weights_match_read succeeded: every view parameter's src and dtype from s (the
 * mapping must outlive the registry) */
void enc_weights_bind_views(struct enc *e, const struct enc_sft *s, const struct enc_weights_rules *rules);
/* the rules of a registry whose file names are its own names, F32 only (the SAN family) */
void enc_weights_rules_plain(const struct enc *e, struct enc_weights_rules *rules);
/* Every tensor of e's registry from s, by the rules: each of s's tensors matched (name, dtype,
 * shape), then the matched ones read into block (floats laid out in registry order, as
 * enc_param_alloc_init lays out host_block; file [out, in] transposed) and checked finite.
 * all = 0 (a load): stops at the first problem, whose message (path: tensor NAME: ...) goes
 * to err, SP_EPARSE. all = 1 (the check): block may be NULL (each tensor read into scratch); every
 * problem goes into r, SP_OK. SP_EIO / SP_ESTOPPED from reading, either way. r may be NULL when
 * all = 0; r->ignored lists the ignored names either way when given. */
int enc_weights_match_read(const struct enc *e, struct enc_sft *s, const struct enc_weights_rules *rules, float *block, int all,
                           struct enc_weights_report *r, char *err, size_t errlen);

static inline const float *enc_w(const struct enc *e, int idx) { return idx < 0 ? NULL : e->param[idx].dev; }


/* shared numeric helpers (enc_cpu.c), also used by tests */
void  enc_sinusoid(int pos, int d, float *out);               /* §5.6 PE(pos) */
int   enc_rel_bucket(int rel, int clip);                      /* clip(rel)+clip */
float enc_ssan_train_select(float es, double u1, double u2, float tau); /* TV-18: y (A = y > 0.5) */
uint64_t enc_fnv1a(const char *s, uint64_t h);

/* ---- safetensors reader (enc_safetensors.c) ---- */

#define ENC_SFT_MAXDIM 8
/* the dtypes a weight may have: F32, or F16 / BF16 kept as they are until a GEMM packs them */
enum enc_dtype { ENC_DT_F32 = 0, ENC_DT_F16, ENC_DT_BF16, ENC_DT_OTHER };
struct enc_sft_tensor {
    char *name;                /* as in the header */
    char dtype[12];            /* "F32", "I64", ... */
    enum enc_dtype dt;         /* ENC_DT_OTHER: listed, never read as floats */
    size_t elem_size;
    int ndim;
    int64_t shape[ENC_SFT_MAXDIM];
    uint64_t count;            /* product of shape */
    uint64_t offset;           /* in the data section */
    const void *data;          /* its bytes in the (read-only) mapping of its file */
    int shard;                 /* which of enc_sft.shard holds it */
};
struct enc_sft_shard { char *path; void *map; size_t len; };
struct enc_sft {
    char *path;                /* the file, or a sharded checkpoint's model.safetensors.index.json */
    uint64_t data_start, data_len;   /* (one file) the data section in the file */
    int n;
    struct enc_sft_tensor *t;  /* header order (sharded: each shard's, in the order the index names them) */
    int n_shard;
    struct enc_sft_shard *shard;/* the files, each mapped once (MAP_PRIVATE, PROT_READ) */
};
/* A tensor's data as it is in the file: dtype, shape and the bytes (little-endian, row-major) */
struct enc_tview {
    const char *name;
    enum enc_dtype dt;
    int ndim;
    int64_t shape[ENC_SFT_MAXDIM];
    uint64_t count;
    const void *p;
};
/* Reads and checks the header (see enc_safetensors.c) and maps the file; err names the file and the tensor. */
int enc_sft_open(const char *path, struct enc_sft *s, char *err, size_t errlen);
/* A model folder's weights as one enc_sft: DIR/model.safetensors, else the shards that
 * DIR/model.safetensors.index.json names (each opened once and checked against the index). A
 * folder with only PyTorch pickles (*.bin, *.pt) is refused with the one line that converts it. */
int enc_sft_open_model(const char *dir, struct enc_sft *s, char *err, size_t errlen);
/* the file the tensor is in (a shard's path, or s->path) */
const char *enc_sft_file(const struct enc_sft *s, const struct enc_sft_tensor *t);
const struct enc_sft_tensor *enc_sft_find(const struct enc_sft *s, const char *name);
/* the typed view of t: F32, F16 or BF16; any other dtype is refused naming the tensor and dtype
 * (SP_EPARSE) */
int enc_sft_view(const struct enc_sft *s, const struct enc_sft_tensor *t, struct enc_tview *v, char *err, size_t errlen);
/* drops t's pages from memory (they are read again from the file if touched): after a copy was made */
void enc_sft_release(const struct enc_sft *s, const struct enc_sft_tensor *t);
/* t's bytes as stored (t->count * t->elem_size into dst): SP_OK, SP_EIO, SP_ESTOPPED (a stop
 * request, seen between chunks) */
int enc_sft_read_raw(struct enc_sft *s, const struct enc_sft_tensor *t, void *dst, char *err, size_t errlen);
/* dst holds t->count floats; F32, or F16/BF16 widened exactly; refuses other dtypes and non-finite values */
int enc_sft_read_f32(struct enc_sft *s, const struct enc_sft_tensor *t, float *dst, char *err, size_t errlen);
/* the same without the finiteness check (the caller checks, naming the element its own way) */
int enc_sft_read_widen(struct enc_sft *s, const struct enc_sft_tensor *t, float *dst, char *err, size_t errlen);
/* n elements of a typed array (F32, F16 or BF16) from element `from` widened into dst, exactly */
void enc_dt_widen(enum enc_dtype dt, const void *src, uint64_t from, size_t n, float *dst);
/* the first non-finite element of a typed array, or -1 (without widening it) */
long enc_dt_first_nonfinite(enum enc_dtype dt, const void *src, uint64_t n);
void enc_sft_close(struct enc_sft *s);   /* safe on a zeroed or closed struct */

/* Opens e->be for `device` as enc_open does (AUTO: CUDA when usable, else the CPU with one log
 * line; CUDA: SP_EGPU with the reason). enc_backend.c; used by every family's open. */
int enc_backend_select(struct enc *e, enum enc_device device, const struct sp_logger *log, char *err, size_t errlen);

#endif
