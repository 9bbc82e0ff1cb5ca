/* encoder/encoder.h — syntax-aware self-attention sentence encoders, forward pass only
 * (docs/spec/structures.md §5). Public API; no CUDA or BLAS type appears here.
 *
 * Kinds (enc_config.kind):
 *   ENC_SAN     vanilla Transformer encoder stack (§5.1), post- or pre-LN, ReLU/GELU,
 *               optional structural position encodings (§5.6): absolute seq/struct PE and
 *               Shaw relative positions (struct and/or seq tables, clip 16).
 *   ENC_MSSAN   MS-SAN (§5.2): 2h heads with direction masks (Q1) and WORD/DEP/NONE distance
 *               priors, α, fusion gate, FFN + LN, attentive + max pooling -> 2·d.
 *   ENC_SGNET   SG-Net (§5.3): a SAN stack, then one SDOI BERT layer, aggregated with fixed
 *               α = 0.5 or the code form γ·(w0·H + w1·H'), w = softmax(agg.w).
 *   ENC_PSAN    PSAN (§5.4): per-level multi-dimensional phrase attention computed per phrase
 *               block, gated memory update (Q16 order, Q19 psan_highway_carry), summarisation.
 *   ENC_SSAN    selective SAN (§5.5): pre-LN stack whose `selective_layers` carry the selector;
 *               inference A = [E_s > 0], stable form.
 *
 * Which per-sentence structures each kind needs (enc_needs() returns these bits; a sentence
 * lacking one is rejected by enc_forward with its index, so e.g. callers skip sentences without
 * a constituency tree for PSAN):
 *   SAN/SSAN/SG-Net base:  nothing beyond embeddings, plus DEPTH if position has "struct",
 *                          REL if rel_pos has "struct".
 *   SG-Net:                ANC (SDOI mask, token level per §3.6, supplied by the caller).
 *   MS-SAN:                DIST if any head uses the DEP distance.
 *   PSAN:                  PID for levels 1..T (contiguous phrases, pid 0,1,2.. left to right).
 * Subword/special-token expansion (§3.6, EOS depth, SDOI of specials) is the caller's job: the
 * encoder sees token-level structures only.
 *
 * Sentence vectors (enc_dim): SAN/SSAN/SG-Net: pooling over the final token vectors, `mean`
 * (default), `max` or `first` -> d; MS-SAN: [attentive; max] -> 2·d; PSAN: summary -> d.
 * Token vectors (enc_tok_dim = d): SAN/SSAN final layer (after the final LN for pre-LN),
 * SG-Net H̄, MS-SAN U of the last layer, PSAN M^(T).
 * Attention maps: mean over heads of the post-softmax (post-selection for SSAN) weights of
 * one attention layer: SAN/SSAN layer l; SG-Net l < layers = base layer, l == layers = SDOI
 * layer; MS-SAN layer l; PSAN memory step l (0..T-1), mean over the d features.
 *
 * Ownership: enc_config_* fill caller-owned structs (no heap inside). enc_open returns a handle
 * owned by the caller and released by enc_close. Output arrays are caller-allocated.
 * Thread safety: one handle per thread (enc_forward uses per-handle scratch). */
#ifndef ENC_ENCODER_H
#define ENC_ENCODER_H

#include <stddef.h>
#include <stdint.h>
#include "common/log.h"

#define ENC_MAX_HEADS 64
#define ENC_MAX_LAYERS 64
#define ENC_MAX_LEVELS 8

enum enc_kind { ENC_SAN = 1, ENC_MSSAN, ENC_SGNET, ENC_PSAN, ENC_SSAN, ENC_BERT, ENC_HF };
enum enc_norm { ENC_POST_LN = 0, ENC_PRE_LN };
enum enc_act { ENC_ACT_RELU = 0, ENC_ACT_GELU, ENC_ACT_ELU, ENC_ACT_TANH, ENC_ACT_SIGMOID,
               ENC_ACT_GELU_TANH /* "gelu_new": the tanh approximation (ALBERT) */ };
enum enc_pooling { ENC_POOL_MEAN = 0, ENC_POOL_MAX, ENC_POOL_FIRST, ENC_POOL_ATT };
enum enc_dist { ENC_DIST_NONE = 0, ENC_DIST_WORD, ENC_DIST_DEP };
enum enc_position { ENC_POS_NONE = 0, ENC_POS_SEQ, ENC_POS_STRUCT, ENC_POS_SEQ_STRUCT };
enum enc_fabs { ENC_FABS_TANH = 0, ENC_FABS_SUM };
enum enc_device { ENC_DEVICE_AUTO = 0, ENC_DEVICE_CPU, ENC_DEVICE_CUDA };

/* Structure bits returned by enc_needs(). */
#define ENC_NEED_DEPTH (1u << 0)
#define ENC_NEED_DIST  (1u << 1)
#define ENC_NEED_ANC   (1u << 2)
#define ENC_NEED_REL   (1u << 3)
#define ENC_NEED_PID   (1u << 4)

/* Every field below is a JSON key of the same name (schemas/encoder.schema.json); every
 * ambiguity of docs/spec/structures.md §1 that touches the forward pass is one of them. */
struct enc_config {
    enum enc_kind kind;        /* "kind": san | ms-san | sg-net | psan | ssan */
    int d_model;               /* width d */
    int d_input;               /* embedding width; != d_model adds input.proj (default d_model) */
    int heads;                 /* total heads (MS-SAN: 2h, even) */
    int layers;                /* attention layers (SG-Net: base layers, SDOI layer extra) */
    int d_ff;                  /* FFN width (MS-SAN d_h, Q3: default d_model) */
    enum enc_norm norm;        /* "norm": post | pre */
    enum enc_act activation;   /* "activation": relu | gelu (FFNs) */
    float ln_eps;              /* LayerNorm ε */
    enum enc_pooling pooling;  /* "pooling": mean | max | first (SAN, SSAN, SG-Net) */
    uint64_t seed;             /* weight init seed (Glorot-uniform, sp_rng) */
    int emb_scale;             /* "emb_scale": multiply embeddings by sqrt(d) (§5.6) */
    enum enc_position position;/* "position": none | seq | struct | seq+struct */
    enum enc_fabs f_abs;       /* "f_abs": tanh | sum (Q13) */
    int rel_struct;            /* "rel_pos": none | struct | seq | struct+seq (Q14: tables summed) */
    int rel_seq;
    int rel_clip;              /* struct relative clip k (16): 2k+1 rows */
    int rel_seq_clip;          /* sequential relative clip k_s (16) */
    /* MS-SAN */
    float alpha;               /* Q2, 1.0 */
    enum enc_dist dist[ENC_MAX_HEADS / 2]; /* "distances": per head pair r (length heads/2) */
    int n_dist;                /* entries given (0: default cycle word, dep, none, word, ...) */
    int strict_direction;      /* "direction_mask": inclusive (Q1, default) | strict (DiSAN j<i) */
    int pool_d_h;              /* pooling FFN width (default d_model) */
    /* SG-Net */
    float sgnet_alpha;         /* Q7, 0.5 */
    int sgnet_code_agg;        /* "sgnet_aggregation": fixed | code */
    /* PSAN */
    int levels;                /* T (3) */
    int min_phrase_len;        /* m_min (4): for the caller's phrase division (tops_phrases) */
    int psan_coarse_first;     /* "psan_order": fine-to-coarse (Q16 default) | coarse-to-fine */
    int psan_highway_carry;    /* Q19, false */
    /* SSAN */
    uint8_t selective[ENC_MAX_LAYERS]; /* "selective_layers": [0] */
    /* "base": a bert encoder config whose word vectors are this encoder's input embeddings
     * (instead of GloVe/random; the caller runs the base, see stages/encode_batch.c); "" none */
    char base[1024];
    /* BERT ("kind": "bert"): a Hugging Face BertModel directory run through enc_bert (below);
     * "kind": "hf": any encoder folder save_pretrained wrote, its family (bert, roberta, ...) from
     * its config.json's model_type (encoder/enc_hf.c). d_model, layers, heads come from the
     * config.json when the encoder opens. */
    char bert_model[1024];     /* "model": the directory (relative to the config file) */
    int bert_layer;            /* "layer": 0 = embeddings .. L; -1 (default) = the last (M2.1) */
    int word_pool;             /* "word_pool": mean | first | last (enum enc_word_pool) */
    int sent_pool;             /* "sent_pool": mean | cls | max (enum enc_sent_pool) */
    int token_type;            /* "token_type": 0 (HF default) | 1 (H&M parity; D2) */
    int wordpiece_only;        /* "tokenizer_mode": basic+wordpiece | wordpiece-only (D1) */
    int lower_case;            /* "lower_case": true (uncased vocabularies) */
    int ptb_unescape;          /* "ptb_unescape": false (D5; true for .mrg/.dp input) */
    /* decoder LMs (kind hf, enc_decoder.c; encoder/README.md "Decoder families") */
    int word_pool_set;         /* "word_pool" was given (else a decoder pools a word's last piece) */
    int add_bos;               /* "add_bos": -1 (default) as the tokenizer's post-processor does, 0, 1 */
    int dec_stream;            /* "stream": enum enc_dec_stream */
    int drop_sink;             /* "drop_sink": word-level maps leave out attention to the first piece */
};
/* which vectors a decoder's layers give: transformers' output_hidden_states (the residual stream
 * after each block, the last one through the final norm), the residual stream throughout, or
 * every layer through the final norm */
enum enc_dec_stream { ENC_STREAM_HIDDEN_STATES = 0, ENC_STREAM_RESIDUAL, ENC_STREAM_POST_NORM };

/* Defaults for one kind (papers' sizes; see schemas/encoder.schema.json). */
void enc_config_defaults(struct enc_config *cfg, enum enc_kind kind);

/* Parse and validate JSON text. `name` prefixes messages ("ms-san.json"). On error returns
 * SP_EPARSE and writes one line per bad field into err ("ms-san.json: heads: expected a positive
 * integer dividing d_model"). */
int enc_config_parse(const char *json, const char *name, struct enc_config *cfg, char *err, size_t errlen);
/* Same from a file; name = basename of path. SP_EIO if unreadable. */
int enc_config_load(const char *path, struct enc_config *cfg, char *err, size_t errlen);
/* Check an already-filled struct (used by parse; callers that build a config in C call it too). */
int enc_config_check(const struct enc_config *cfg, const char *name, char *err, size_t errlen);
const char *enc_kind_name(enum enc_kind kind);
/* The float32 parameters a valid config implies (every tensor of schemas/encoder-weights.md),
 * counted in double so that no product of widths overflows. */
double enc_config_n_params(const struct enc_config *cfg);
/* The memory the encoder needs at the least, in bytes: its parameters (4 bytes each) plus the
 * workspace of one ENC_MEM_EST_TOKENS-token sentence. enc_config_check refuses a config whose
 * figure exceeds the machine's physical memory, naming both. */
#define ENC_MEM_EST_TOKENS 512
double enc_config_mem_bytes(const struct enc_config *cfg);

/* ---- input batch ---- */

/* One sentence (token level). Unused structure pointers may be NULL (see enc_needs). */
struct enc_sentence {
    int n;                     /* tokens */
    const float *emb;          /* [n, d_input] embedding rows, or NULL to use ids */
    const int32_t *ids;        /* [n] rows of enc_batch.table (enc_embed_id) */
    const int32_t *depth;      /* [n] §3.1 (abs, §3.5) */
    const int32_t *dist;       /* [n*n] tree distance §3.2 */
    const uint8_t *anc;        /* [n*n] ancestor/SDOI, row = query §3.3 */
    const int32_t *rel;        /* [n*n] P2 relative positions §3.5 (raw or clipped; clipped here) */
    const int32_t *pid;        /* [n_levels*n]: pid[(t-1)*n + i], levels t = 1..T from the root */
    int n_levels;
    const char *const *words;  /* [n] word forms: what the bert kind tokenizes (emb/ids unused) */
};

struct enc_batch {
    int n_sent;
    const struct enc_sentence *sent;
    const float *table;        /* [table_rows, d_input] for ids (enc_embed_table), or NULL */
    int table_rows;
    /* 1: the table's contents stay the same in every call that passes this pointer and row count
     * (a stage's embedding table): a device backend keeps a copy and gathers the ids' rows there
     * instead of uploading every batch's rows. 0: the rows are gathered on the host each call. */
    int table_fixed;
};

struct enc_output {
    float *sent;               /* OUT: [n_sent, enc_dim] (required) */
    float **tok;               /* OUT: tok[b] -> [n_b, enc_tok_dim], or NULL (skip) */
    float **attn;              /* OUT: attn[b] -> [n_b, n_b], or NULL (skip) */
    int attn_layer;            /* which layer's map (see above); -1 = last */
};

typedef struct enc enc_t;

/* Open an encoder: weights from a safetensors file, or seeded Glorot init when weights_path is
 * NULL. device AUTO picks CUDA when the backend is built and a device opens, else CPU. Through
 * log (NULL: silent), at INFO: the kind and backend, and for AUTO without a GPU the one line "no
 * GPU found: using the CPU" (at DEBUG with the CUDA runtime's reason instead), or the reason when
 * a GPU or the CUDA plugin is there but unusable (e.g. a stale plugin). CUDA that cannot open
 * (no CUDA build, no device, stale plugin) -> SP_EGPU with the reason in err. */
int enc_open(const struct enc_config *cfg, enum enc_device device, const char *weights_path,
             const struct sp_logger *log, enc_t **out, char *err, size_t errlen);
void enc_close(enc_t *e);

int enc_forward(enc_t *e, const struct enc_batch *in, struct enc_output *out, char *err, size_t errlen);

/* ---- capabilities: what an encoder takes and gives, asked instead of its kind ----
 *
 * Every kind belongs to one model family (encoder/README.md "Model families"): the SAN family
 * (san, ms-san, sg-net, psan, ssan) and bert. Callers decide by these capabilities, never by the
 * kind, so a new family needs no change outside encoder/. */
enum enc_input {
    ENC_INPUT_ROWS = 0,        /* enc_sentence.emb or .ids: word vectors from the caller (GloVe, random, a base) */
    ENC_INPUT_WORDS,           /* enc_sentence.words: the model tokenizes the words itself (can be a "base") */
};
struct enc_caps {
    enum enc_input input;
    int layer_outputs;         /* 1: enc_forward_layers gives layers 0..layers in one pass, with per-head
                                * maps; the config's "layer" picks enc_forward's (--layer/--layers/--heads) */
    const char *model_dir;     /* the weights are this directory's model_files (hashed as the weights);
                                * --weights and enc_save_weights do not apply. NULL: seeded init or a
                                * weights file */
    const char *const *model_files;   /* NULL-terminated, relative to model_dir */
    /* known once open (enc_caps; enc_config_caps leaves them 0): */
    int layers;                /* layer_outputs: L, the outputs are layers 0..L (0 = embeddings) */
    int own_layer;             /* layer_outputs: the layer enc_forward gives */
    int dim, tok_dim;          /* as enc_dim, enc_tok_dim */
    int attn_layers;           /* as enc_attn_layers */
    unsigned needs;            /* as enc_needs */
    int attention;             /* 1: the encoder has attention maps (attn_layers of them) */
    int causal;                /* 1: a position attends only to itself and those before it */
    int max_positions;         /* ENC_INPUT_WORDS: the most pieces a sentence may have; 0: no limit */
};
/* From the config alone (no file is read): input, layer_outputs, model_dir, model_files. */
void enc_config_caps(const struct enc_config *cfg, struct enc_caps *caps);
/* layer_outputs configs: L from the model's own files without opening it (a job file's
 * "layers": "all"); SP_EUSAGE for a config without layer outputs, SP_EPARSE/SP_EIO naming the file. */
int enc_config_layers(const struct enc_config *cfg, int *layers, char *err, size_t errlen);
void enc_caps(const enc_t *e, struct enc_caps *caps);

/* layer_outputs encoders only: ONE forward pass of the batch, the outputs of several layers: outs[i] receives what
 * enc_forward gives for a config with "layer" = layers[i] (0 = embeddings .. L; the same bytes),
 * its attention map (when outs[i].attn) from its own attn_layer. heads (NULL: none): heads[i]
 * (NULL: none) [b] -> [heads, n_b, n_b], the word-level map of each head of outs[i].attn_layer
 * (M2.4 with one head, each row renormalised). Others: SP_EUSAGE. */
int enc_forward_layers(enc_t *e, const struct enc_batch *in, int n_layers, const int *layers, struct enc_output *outs,
                       float **const *heads, char *err, size_t errlen);
/* layer_outputs encoders: L (hidden layers 0..L); others: 0 */
int enc_hidden_layers(const enc_t *e);

int enc_dim(const enc_t *e);               /* sentence vector width */
int enc_tok_dim(const enc_t *e);           /* token vector width (d_model) */
int enc_attn_layers(const enc_t *e);       /* valid attn_layer values: 0..enc_attn_layers-1 */
unsigned enc_needs(const enc_t *e);        /* ENC_NEED_* */
const char *enc_backend_name(const enc_t *e);
const struct enc_config *enc_get_config(const enc_t *e);

/* Weights (schemas/encoder-weights.md): F32 little-endian safetensors. Load checks every
 * expected tensor is present with its shape and dtype F32 and that no extra tensor is present;
 * errors name the tensor. */
int enc_save_weights(enc_t *e, const char *path, char *err, size_t errlen);
int enc_load_weights(enc_t *e, const char *path, char *err, size_t errlen);
size_t enc_n_params(const enc_t *e);

/* What a config reads from a weights file, and whether a file fits it (`synprobe weights`).
 * Both come from the code that opens the encoder (each family registers its tensors once, for
 * open and for these), so they are what enc_open / a load reads: a file enc_weights_check
 * passes loads, and one it refuses does not. bert: the model directory's config.json gives the
 * sizes; names as in a Hugging Face BertModel file. */
struct enc_tensor_spec {
    char name[128];            /* ALBERT's names are long: encoder.albert_layer_groups.0.albert_layers.0.… */
    int ndim;
    int shape[2];              /* as stored in the file */
};
/* every tensor, in registry order (the order enc_save_weights writes); *out malloc'd */
int enc_weights_expected(const struct enc_config *cfg, struct enc_tensor_spec **out, int *n, char *err, size_t errlen);

enum enc_wproblem { ENC_WP_MISSING, ENC_WP_UNEXPECTED, ENC_WP_SHAPE, ENC_WP_DTYPE, ENC_WP_TWICE, ENC_WP_NONFINITE };
struct enc_weights_problem {
    enum enc_wproblem kind;
    char name[160];            /* the tensor's name in the file (missing: the expected name) */
    int want_ndim;             /* missing, shape: the expected shape (file layout); 0 otherwise */
    int want[2];
    int got_ndim;              /* unexpected, shape: the file's shape; 0 otherwise */
    long long got[8];
    char want_dtype[24];       /* dtype: what is read ("F32", or "F32, F16 or BF16") */
    char got_dtype[12];        /* dtype, unexpected: the file's */
    char detail[160];          /* twice: the name after renaming; nonfinite: "[3] is NaN" */
};
struct enc_weights_report {
    int n_expected;            /* tensors the config reads */
    int n_file;                /* tensors in the file */
    int n_ignored;             /* the file's tensors nobody reads (bert: pooler.*, cls.*) */
    char **ignored;
    char what[112];            /* "a san encoder with this config" */
    int n;                     /* problems; 0: the file fits */
    struct enc_weights_problem *p;
};
/* SP_OK with r filled (r->n problems, every one), or an error reading the config's model or the
 * file itself (not a safetensors file, truncated: err names the file and tensor). */
int enc_weights_check(const struct enc_config *cfg, const char *path, struct enc_weights_report *r, char *err, size_t errlen);
void enc_weights_report_free(struct enc_weights_report *r);
/* one problem as the loader words it: "PATH: tensor NAME: ..." (path NULL: without it) */
void enc_weights_problem_text(const char *path, const struct enc_weights_report *r, const struct enc_weights_problem *p,
                              char *out, size_t n);
const char *enc_wproblem_name(enum enc_wproblem k);   /* "missing", "unexpected", "shape", "dtype", "twice", "nonfinite" */

/* Cap the forward pass's workspace (activations and staging, backend + host; 0 = no cap, the
 * default). A batch that would need more fails with SP_ENOMEM, as a device out of memory does,
 * so callers that halve their batch on SP_ENOMEM bound host memory the same way. */
void enc_set_workspace_limit(enc_t *e, size_t bytes);

/* The token budget of one forward step: enc_forward runs the sentences of a batch in groups of
 * whole sentences of at most this many tokens together (a longer sentence forms a group alone),
 * so it is the row count M of the products and bounds the workspace for callers that pass a
 * whole corpus as one batch. Default ENC_GROUP_TOKENS; `encode` sets it to --batch-tokens, so a
 * batch it forms is one group. The bits of a sentence do not depend on it (docs/reproducibility.md).
 * The bert family runs each call's batch in one step (its rows are word pieces) and ignores it. */
#define ENC_GROUP_TOKENS 4096
void enc_set_group_tokens(enc_t *e, int tokens);

/* 1 when the words fit the model's positions once tokenized (ENC_INPUT_WORDS, D6: a sentence of
 * more pieces is not encoded; callers skip and count it); encoders that take rows: 1. */
int enc_fits(const enc_t *e, const char *const *words, int n);

/* Threads of the CPU matrix products (process-wide, common/gemm.h; results are the same bytes for any count). */
void enc_set_threads(int n);

/* ---- preparing a sentence from ingest + treeops ---- */

struct sp_sentence;
struct sp_arena;
/* Word-level enc_sentence for one ingested sentence (no subwords): the structures the kind needs
 * (enc_needs) are computed with treeops (docs/spec/structures.md §3, §4.4 with T = levels, m_min = min_phrase_len)
 * into arena memory; emb or ids are attached as given. Returns SP_OK, or SP_EUSAGE with the
 * reason when the sentence lacks the dependency tree or constituency tree the kind needs, so a
 * caller can skip it (PTB .mrg sentences have no heads; .dp/.conllu ones have no tree). */
int enc_sentence_prepare(const enc_t *e, const struct sp_sentence *s, const float *emb, const int32_t *ids,
                         struct sp_arena *a, struct enc_sentence *out, char *err, size_t errlen);

/* ---- word embeddings ---- */

/* A vocabulary + table: rows 0..V-1 from a GloVe ("word v1 .. vd") or word2vec text file
 * (optional "count dim" header line), then ENC_OOV_BUCKETS seeded random rows that OOV words
 * are hashed to (as PSAN). With path NULL: no vocabulary; every word gets a seeded random
 * vector derived from (seed, word) (enc_embed_id then returns a bucket row). */
#define ENC_OOV_BUCKETS 128
typedef struct enc_embed enc_embed_t;
int enc_embed_open(const char *path, int dim, uint64_t seed, enc_embed_t **out, char *err, size_t errlen);
/* The same, keeping only the file rows whose word keep() accepts: callers pass the words their
 * corpus can look up (forms and their lower-case forms), so a 2M-word GloVe file costs only the
 * corpus vocabulary in memory and time; the numbers of skipped rows are not parsed. Lookups of
 * the words kept give exactly what enc_embed_open gives. */
int enc_embed_open_filtered(const char *path, int dim, uint64_t seed, int (*keep)(void *ctx, const char *word),
                            void *keep_ctx, enc_embed_t **out, char *err, size_t errlen);
void enc_embed_close(enc_embed_t *m);
long enc_embed_file_rows(const enc_embed_t *m);     /* data lines in the file, kept or not */
int enc_embed_dim(const enc_embed_t *m);
int enc_embed_vocab_size(const enc_embed_t *m);     /* V (0 without a file) */
/* Row for a word: exact match, then lower-cased match, else V + bucket(hash). Never fails
 * when a file was loaded; without a file returns -1 (use enc_embed_vector). */
int32_t enc_embed_id(const enc_embed_t *m, const char *word);
const float *enc_embed_table(const enc_embed_t *m, int *rows);
/* Vector of a word into out[dim]; returns 1 if in the vocabulary, 0 if OOV/random. */
int enc_embed_vector(const enc_embed_t *m, const char *word, float *out);

/* ---- pretrained BERT-family encoders (kind "bert", docs/spec/models.md M2, M3) ----
 *
 * A Hugging Face BertModel directory: config.json (M3.1), model.safetensors (F32, or F16/BF16 widened exactly; M3.2
 * names, a leading "bert." stripped, LayerNorm.gamma/.beta renamed; pooler.*, cls.* and the
 * int64 embeddings.position_ids buffer are ignored with one INFO log line; any other tensor, a
 * missing one or a shape mismatch is an error naming it), vocab.txt (read by the tokenizer, not
 * here). The forward works on word pieces: the caller tokenizes ([CLS] ... [SEP], M1) and keeps
 * each word's piece span for pooling. It runs through the same backends as the other kinds
 * (CPU: common/gemm.h, so a sentence's vectors are the same bytes in any batch and with any
 * thread count; CUDA when the plugin is there). One handle per thread, as enc_t; the model's
 * weights stay in host memory too (the embedding rows are gathered there). */

struct enc_bert_config {
    int vocab_size, hidden_size, layers, heads, intermediate_size;
    int max_positions;         /* max_position_embeddings */
    int type_vocab_size;
    float ln_eps;              /* layer_norm_eps */
    enum enc_act act;          /* hidden_act: "gelu" (exact erf GELU) or "gelu_new" (tanh) */
    /* the family's variations on BertModel (encoder/enc_hf.c); a BertModel's values first */
    char model_type[24];       /* config.json's ("bert" when absent) */
    int embedding_size;        /* word/position/type rows and their LayerNorm (ELECTRA: projected to
                                * hidden_size by embeddings_project); = hidden_size */
    int pad_positions;         /* -1: position p is p; >= 0: RoBERTa's padding_idx (pad_token_id): a
                                * piece's position is padding_idx + its 1-based index among the
                                * sentence's non-padding pieces, a padding piece's padding_idx */
    int max_pieces;            /* the most pieces a sentence may have: max_positions (RoBERTa: less
                                * padding_idx + 1) */
    int rel_buckets;           /* MPNet: rows of the relative attention bias shared by every layer
                                * (relative_attention_num_buckets); 0: none */
    int layer_groups;          /* ALBERT: num_hidden_groups, layer l runs group l / (layers / groups);
                                * 0: every layer its own tensors */
    /* DeBERTa-v2 (disentangled attention; enc_hf.c reads them, enc_bert.c runs them) */
    int no_pos_input;          /* position_biased_input false: no absolute position embeddings */
    int emb_ln_after_proj;     /* embed_proj (no bias) before the embeddings' LayerNorm over hidden_size */
    int rp_span;               /* relative attention: att_span (position_buckets, else max_relative_positions);
                                * 0: none */
    int rp_buckets, rp_maxpos; /* make_log_bucket_position's bucket_size (<= 0: none) and max_position */
    int rp_c2p, rp_p2c;        /* pos_att_type has "c2p" / "p2c" (each also widens the scale) */
    int rp_share;              /* share_att_key: the positions through key_proj/query_proj */
    int rp_ln;                 /* norm_rel_ebd "layer_norm": encoder.LayerNorm on rel_embeddings */
};
/* config.json of a BertModel (M3.1). SP_EPARSE with "PATH: key: what was expected". */
int enc_bert_config_load(const char *path, struct enc_bert_config *cfg, char *err, size_t errlen);
/* config.json of any encoder family synprobe has (kind "hf"; model_type picks it, encoder/enc_hf.c):
 * a model_type it lacks is SP_EPARSE naming the ones it has. type_vocab_size 0: no token types. */
int enc_hf_config_load(const char *path, struct enc_bert_config *cfg, char *err, size_t errlen);

typedef struct enc_bert enc_bert_t;
/* path: the model directory, or a synprobe encoder config {"kind": "bert", "model": DIR}
 * (DIR relative to the config file's folder unless absolute). device as enc_open. */
int enc_bert_open(const char *path, enum enc_device device, const struct sp_logger *log, enc_bert_t **out,
                  char *err, size_t errlen);
/* the same for any family enc_hf_config_load reads (a directory, or a config of kind "hf" or "bert") */
int enc_hf_open(const char *path, enum enc_device device, const struct sp_logger *log, enc_bert_t **out,
                char *err, size_t errlen);
void enc_bert_close(enc_bert_t *b);
const struct enc_bert_config *enc_bert_get_config(const enc_bert_t *b);
const char *enc_bert_backend_name(const enc_bert_t *b);
const char *enc_bert_model_dir(const enc_bert_t *b);

/* One sentence of T pieces: ids [T] (vocabulary ids, [CLS] first, [SEP] last), types [T] token
 * type ids (NULL: all 0; M0 D2). 1 <= T <= max_pieces. */
struct enc_bert_input {
    int n;
    const int32_t *ids;
    const int32_t *types;      /* a family without token types (DistilBERT): must be NULL or all 0 */
};
/* OUT per sentence b (caller-allocated):
 *   hidden[b] -> [layers+1, n_b, d]: layer 0 = embeddings after their LayerNorm, layer l = the
 *                output of encoder layer l (M2.1, D3); only the layers whose bit is set in
 *                hidden_layers are written (bit l = layer l), the others are left as they are;
 *   attn (NULL: not computed) attn[b] -> [layers, heads, n_b, n_b], P_h per layer and head,
 *                row = query (M3.3); only the layers whose bit is set in attn_layers (bit l =
 *                encoder layer l+1's attention, l = 0..layers-1).
 * Wanting fewer layers saves their copies (a GPU's downloads) and their per-head maps; every layer
 * is still computed. A batch is packed row-wise (no padding: each sentence attends only to its
 * own pieces, which is the padding mask of M3.4 exactly). Errors name the sentence and what is
 * wrong. */
#define ENC_BERT_MAX_LAYERS 63            /* layers 0..63 fit a 64-bit mask */
#define ENC_BERT_ALL_LAYERS UINT64_MAX
int enc_bert_forward(enc_bert_t *b, int n_sent, const struct enc_bert_input *in, float **hidden, uint64_t hidden_layers,
                     float **attn, uint64_t attn_layers, char *err, size_t errlen);

/* ---- pooling pieces into words and sentences (M2.2, M2.3) ---- */

enum enc_word_pool { ENC_WORD_POOL_MEAN = 0, ENC_WORD_POOL_FIRST, ENC_WORD_POOL_LAST };
enum enc_sent_pool { ENC_SENT_POOL_MEAN = 0, ENC_SENT_POOL_CLS, ENC_SENT_POOL_MAX, ENC_SENT_POOL_LAST /* the last word's vector */ };
/* "mean" | "first" | "last" and "mean" | "cls" | "max"; -1 if unknown */
int enc_word_pool_parse(const char *s);
int enc_sent_pool_parse(const char *s);
int enc_stream_parse(const char *s);       /* "hidden-states" | "residual" | "post-norm"; -1 if unknown */
/* X [T, d] one layer's piece vectors; span [n_words][2] half-open piece ranges [s, e) inside
 * 1..T-2 (never [CLS]/[SEP]), non-empty. out [n_words, d]. The mean is summed in double.
 * SP_EUSAGE naming the word when a span is bad. */
int enc_pool_words(int T, int d, const float *X, int n_words, const int32_t *span, enum enc_word_pool mode,
                   float *out, char *err, size_t errlen);
/* Word-level attention (M2.4, used for trees from attention): R [n_heads, T, T] piece attention
 * of one layer (row = query); W[a][b] = mean over heads of (1/|span a|) Σ_{p in a} Σ_{q in b}
 * R_h[p][q] ([CLS]/[SEP] rows and columns dropped), summed in double; with renormalise each row
 * is then divided by its sum once (a zero row stays zero). n_heads = 1 with one head's map gives
 * that head's matrix. out [n_words, n_words]. SP_EUSAGE naming the word when a span is bad. */
int enc_word_attention(int T, int n_heads, const float *R, int n_words, const int32_t *span, int renormalise,
                       float *out, char *err, size_t errlen);
/* out [d]: mean or elementwise max of the word vectors words [n_words, d], or X[0] ([CLS]) */
void enc_pool_sentence(int d, const float *X, int n_words, const float *words, enum enc_sent_pool mode, float *out);

#endif
