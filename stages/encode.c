/* stages/encode.c — the encode stage: options, the store and its inputs, the encoder and its
 * embeddings, then one run per input (stages/encode_batch.c does the encoding) with its
 * manifest. The fingerprint and the input names are in stages/encode_ident.c. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/gemm.h"
#include "stages/encode.h"
#include "stages/names.h"
#include "stages/encode_ident.h"
#include "stages/encode_int.h"
#include "stages/layers.h"
#include "stages/manifest.h"
#include "store/blob.h"
#include "store/st_encoded.h"

const struct sp_opt stg_encode_options[] = {
#define O(f) offsetof(struct stg_encode_opts, f)
    { "db", SP_OPT_PATH, O(db), .metavar = "DB", .help = "the store", .flags = SP_OPTF_REQUIRED },
    { "corpus", SP_OPT_LIST, O(corpus), .metavar = "C", .help = "corpora to encode (a,b: one run each, RUN-a and RUN-b)" },
    { "task", SP_OPT_LIST, O(task), .metavar = "T", .help = "probing tasks to encode (a,b: one run each, RUN-a and RUN-b)" },
    { "encoder", SP_OPT_PATH, O(encoder), .metavar = "CFG.json", .help = "the encoder's config", .flags = SP_OPTF_REQUIRED },
    { "run", SP_OPT_STR, O(run), .metavar = "R", .help = "the run's name", .flags = SP_OPTF_REQUIRED },
    { "weights", SP_OPT_PATH, O(weights), .metavar = "W.safetensors",
      .help = "safetensors weights (default: seeded Glorot init from the config's seed)" },
    { "save-weights", SP_OPT_PATH, O(save_weights), .metavar = "W.safetensors",
      .help = "write the weights used (e.g. the seeded init) to this file", .flags = SP_OPTF_OUTPUT },
    { "embeddings", SP_OPT_PATH, O(embeddings), .metavar = "GLOVE.txt",
      .help = "GloVe/word2vec text file of width d_input (default: seeded random vector per word)" },
    { "token-vectors", SP_OPT_FLAG, O(token_vectors), .help = "cache token vectors too (export --what tokens)" },
    { "store-dtype", SP_OPT_CHOICE, O(store_dtype), "f32", .choices = SP_STYPE_CHOICES,
      .help = "element type of the cached sentence vectors, token vectors and attention maps: f32 (as computed), "
              "f16 (IEEE half) or bf16 (bfloat16), both half the bytes, rounded to nearest even; readers widen to "
              "float. Part of the encoder's fingerprint: runs of one model in two types share no rows" },
    { "store-overflow", SP_OPT_CHOICE, O(store_overflow), "error", .choices = "error|saturate",
      .help = "a finite value beyond --store-dtype's range (f16: |x| >= 65520, which would round to inf; bf16: near float's "
              "max): error (exit 1 naming the input and the layer; the run is not kept) or saturate (clamped to +-65504 for "
              "f16, counted in the summary and the manifest; part of the fingerprint)" },
    { "attention", SP_OPT_INT, O(attention), "-1", .lo = 0, .hi = ENC_MAX_LAYERS, .metavar = "LAYER", .flags = SP_OPTF_NODEF,
      .help = "cache the head-averaged attention map of this layer (export --what attention)" },
    { "layer", SP_OPT_INT, O(layer), "-2", .lo = -1, .hi = 64, .metavar = "K", .flags = SP_OPTF_NODEF,
      .help = "bert configs: the layer whose vectors are stored (0 = embeddings, -1 = the last; default the config's)" },
    { "layers", SP_OPT_STR, O(layers), .metavar = "all|K,K,...",
      .help = "bert configs: one forward pass keeps these layers (0 = embeddings), each stored as its own run R-L<k> "
              "(R-L<k>-INPUT for several inputs; a {layer} in --run is replaced instead), cached as --layer k would be" },
    { "heads", SP_OPT_FLAG, O(heads),
      .help = "bert configs, with --attention or --layer-attention: also cache each head's word-level map (export --what "
              "attention --heads, trees --head H)" },
    { "layer-attention", SP_OPT_FLAG, O(layer_attention),
      .help = "with --layers: each layer run R-L<k> (k >= 1) also caches the head-averaged attention map of encoder layer k "
              "(the layer that made its vectors: --attention k-1), for trees --run R-L<k> and export --what attention" },
    { "seed", SP_OPT_INT, O(seed), "-1", .lo = 0, .hi = 0x7fffffffffffffffLL, .metavar = "N", .flags = SP_OPTF_NODEF,
      .help = "overrides the config's seed (weights init and random embeddings)" },
    { "threads", SP_OPT_INT, O(threads), "0", .lo = 1, .hi = 1024, .metavar = "K", .flags = SP_OPTF_NODEF,
      .help = "CPU threads of the encoder (default: the encoder's choice)" },
    { "gemm", SP_OPT_CHOICE, O(gemm), "own", .choices = "own|blas",
      .help = "the CPU's matrix products: own (common/gemm.c: a sentence's vectors are the same bytes in any batch and "
              "with any thread count) or blas (OpenBLAS: for comparison; no such guarantee, equal to own within float "
              "rounding)" },
    { "device", SP_OPT_CHOICE, O(device), "auto", .choices = "auto|cpu|cuda",
      .help = "where the encoder runs (auto: CUDA when a GPU opens, else the CPU)" },
    { "batch-tokens", SP_OPT_INT, O(batch_tokens), "8192", .lo = 1, .hi = 1L << 30, .metavar = "N",
      .help = "padded tokens (sentences x longest) per batch; the encoder runs a batch as one forward step; "
              "halved on out-of-memory" },
    { "max-tokens", SP_OPT_INT, O(max_tokens), "512", .lo = 1, .hi = ST_BLOB_MAX_WORDS, .metavar = "N",
      .help = "longer sentences are skipped and reported" },
    { "max-workspace", SP_OPT_SIZE, O(max_workspace), .lo = 64 << 10, .metavar = "SIZE",
      .help = "cap the encoder's working memory (e.g. 512M, 2G; default none): a batch over it is halved like a "
              "CUDA out-of-memory; a sentence alone over it is skipped" },
    { "on-missing", SP_OPT_CHOICE, O(on_missing), "skip", .choices = "skip|fail",
      .help = "a sentence lacking the structure the encoder needs: skip and count it, or fail" },
    { "perturbed", SP_OPT_CHOICE, O(perturbed), "keep-parse", .choices = "keep-parse|no-parse",
      .help = "task items whose words differ from their sentence's (BShift, SOMO, CoordInv): keep-parse gives them "
              "the original sentence's structures when the word counts agree; no-parse treats them as lacking "
              "structure (--on-missing)" },
#undef O
    { 0 },
};

static const char *const device_names[] = { "auto", "cpu", "cuda" };

/* One input: its name, ids, and its run's name. */
struct input {
    const char *name;
    int is_task;
    int64_t corpus_id, task_id, task_corpus;
    char *run;
};

/* What every input's pass shares. With --layers, each layer is an encoder of its own (the
 * fingerprint --layer k gives) and each input has one run per layer. */
struct shared {
    struct st_db *db;
    enc_t *e;
    enc_t *base;
    enc_embed_t *emb;
    struct enc_ident id;
    int64_t encoder_id;
    int n_layers;                       /* 0: no --layers */
    int layers[ENC_MAX_LAYERS + 1];
    struct enc_ident lid[ENC_MAX_LAYERS + 1];
    int64_t lenc[ENC_MAX_LAYERS + 1];
    int attn_of[ENC_MAX_LAYERS + 1];   /* each layer run's attention layer (-1: none) */
};

/* A store error: SP_EUSAGE from the store means a bad store or name, not a bad command line. */
static int store_fail(struct stg_ctx *ctx, int rc, const char *err)
{
    return stg_fail(ctx, rc == SP_EUSAGE ? SP_EPARSE : rc, "%s", err);
}

int stg_encode_check_config(struct stg_ctx *ctx, const struct stg_encode_opts *o, const struct enc_config *cfg)
{
    const char *kind = enc_kind_name(cfg->kind);
    struct enc_caps caps;              /* per-layer outputs and per-head maps come with layer_outputs */
    enc_config_caps(cfg, &caps);
    if (!caps.layer_outputs) {
        const char *flag = o->layer >= -1 ? "layer" : o->heads ? "heads" : o->layers ? "layers" : NULL;
        if (flag) return stg_fail(ctx, SP_EUSAGE, "--%s applies to bert configs (%s is %s)", flag, o->encoder, kind);
    }
    if (o->embeddings && cfg->base[0])
        return stg_fail(ctx, SP_EUSAGE, "--embeddings: this config's input is its base's word vectors");
    if (o->save_weights && caps.model_dir)
        return stg_fail(ctx, SP_EUSAGE, "--save-weights: a %s model's weights are the files of %s already", kind, caps.model_dir);
    return SP_OK;
}

int stg_encode_check(struct stg_ctx *ctx, const struct stg_encode_opts *o)
{
    if (!o->db) return stg_fail(ctx, SP_EUSAGE, "--db is required");
    if (!o->corpus.n == !o->task.n) return stg_fail(ctx, SP_EUSAGE, "exactly one of --corpus or --task is required");
    if (!o->encoder) return stg_fail(ctx, SP_EUSAGE, "--encoder CONFIG.json is required");
    if (!o->run || !*o->run) return stg_fail(ctx, SP_EUSAGE, "--run NAME is required");
    if (o->layers && o->layer != -2) return stg_fail(ctx, SP_EUSAGE, "--layers and --layer exclude each other");
    if (o->layer_attention && !o->layers) return stg_fail(ctx, SP_EUSAGE, "--layer-attention needs --layers");
    if (o->heads && o->attention < 0 && !o->layer_attention)
        return stg_fail(ctx, SP_EUSAGE, "--heads needs --attention LAYER or --layer-attention (the layer whose heads are kept)");
    if (o->layer_attention && o->attention >= 0)
        return stg_fail(ctx, SP_EUSAGE, "--layer-attention and --attention exclude each other (--layer-attention: each layer "
                        "run its own layer's map)");
    if ((uint64_t)o->max_workspace > (uint64_t)SIZE_MAX)
        return stg_fail(ctx, SP_EUSAGE, "--max-workspace: more than this machine can address");
    return SP_OK;
}

/* The inputs by name, checked against the store (a typo should not wait for a large model). */
static int resolve_inputs(struct stg_ctx *ctx, const struct stg_encode_opts *o, struct st_db *db, struct input *in, int n)
{
    int is_task = o->task.n > 0;
    const struct sp_strlist *names = is_task ? &o->task : &o->corpus;
    char err[SP_ERRLEN];
    for (int i = 0; i < n; i++) {
        in[i].name = names->v[i];
        in[i].is_task = is_task;
        for (int j = 0; j < i; j++)
            if (!strcmp(in[j].name, in[i].name))
                return stg_fail(ctx, SP_EUSAGE, "--%s: '%s' is named twice", is_task ? "task" : "corpus", in[i].name);
        int rc = stg_known_name(ctx, db, o->db, is_task ? STG_NAME_TASK : STG_NAME_CORPUS, in[i].name);
        if (rc) return rc;
        rc = is_task ? st_task_source(db, in[i].name, &in[i].task_id, &in[i].task_corpus, err, sizeof err)
                     : st_corpus_id(db, in[i].name, 0, &in[i].corpus_id, err, sizeof err);
        if (rc) return store_fail(ctx, rc, err);
        size_t len = strlen(o->run) + strlen(in[i].name) + 2;
        in[i].run = sp_xmalloc(len);
        if (n == 1) snprintf(in[i].run, len, "%s", o->run);
        else snprintf(in[i].run, len, "%s-%s", o->run, in[i].name);
    }
    return SP_OK;
}

int stg_encode_open_base(struct enc_config *cfg, const char *name, int device, const struct sp_logger *log, enc_t **base,
                         char *err, size_t errlen)
{
    struct enc_config bc;
    enc_t *b = NULL;
    int rc;
    if (base) *base = NULL;
    if ((rc = enc_config_load(cfg->base, &bc, err, errlen))) return SP_EPARSE;
    if ((rc = enc_open(&bc, (enum enc_device)device, NULL, log, &b, err, errlen))) return rc == SP_EUSAGE ? SP_EPARSE : rc;
    int bd = enc_tok_dim(b);
    rc = SP_OK;
    if (cfg->d_input != bd && cfg->d_input != cfg->d_model) {
        snprintf(err, errlen, "%s: d_input %d, but its base gives %d-dim word vectors", name, cfg->d_input, bd);
        rc = SP_EPARSE;
    } else cfg->d_input = bd;   /* d_input != d_model adds the input projection */
    if (base) *base = b;
    else enc_close(b);
    return rc;
}

/* The encoder, its workspace cap, the --attention check and --save-weights. */
static int open_encoder(struct stg_ctx *ctx, const struct stg_encode_opts *o, struct shared *s)
{
    static const enum enc_device dev[] = { ENC_DEVICE_AUTO, ENC_DEVICE_CPU, ENC_DEVICE_CUDA };
    if (o->threads) enc_set_threads((int)o->threads);
    sp_gemm_set_impl(o->gemm == STG_GEMM_BLAS ? SP_GEMM_BLAS : SP_GEMM_OWN);
    int rc;
    if (s->id.cfg.base[0]) {       /* the base first: its width is this encoder's input width */
        if ((rc = stg_encode_open_base(&s->id.cfg, o->encoder, dev[o->device], ctx->log, &s->base, ctx->err, sizeof ctx->err)))
            return rc;
        enc_set_group_tokens(s->base, (int)o->batch_tokens);
    }
    rc = enc_open(&s->id.cfg, dev[o->device], o->weights, ctx->log, &s->e, ctx->err, sizeof ctx->err);
    if (rc) return rc == SP_EUSAGE ? SP_EPARSE : rc;
    enc_set_workspace_limit(s->e, (size_t)o->max_workspace);
    enc_set_group_tokens(s->e, (int)o->batch_tokens);   /* each batch of encode_batch.c is one forward step */
    if (o->attention >= enc_attn_layers(s->e))
        return stg_fail(ctx, SP_EUSAGE, "--attention %ld: this %s config has attention layers 0..%d", o->attention,
                        enc_kind_name(s->id.cfg.kind), enc_attn_layers(s->e) - 1);
    if (o->save_weights && (rc = enc_save_weights(s->e, o->save_weights, ctx->err, sizeof ctx->err)))
        return rc == SP_EUSAGE ? SP_EPARSE : rc;
    return SP_OK;
}

/* Embeddings: only the rows the inputs can look up are loaded. */
static int open_embeddings(struct stg_ctx *ctx, const struct stg_encode_opts *o, struct shared *s,
                           const struct input *in, int n)
{
    struct enc_vocab v;
    stg_encode_vocab_init(&v);
    char err[SP_ERRLEN];
    int rc = SP_OK;
    for (int i = 0; o->embeddings && !rc && i < n; i++)
        rc = stg_encode_vocab_add(&v, s->db, in[i].corpus_id, in[i].task_id, err, sizeof err);
    if (rc) { stg_encode_vocab_free(&v); return store_fail(ctx, rc, err); }
    stg_encode_vocab_sort(&v);
    const struct enc_config *cfg = &s->id.cfg;
    rc = enc_embed_open_filtered(o->embeddings, cfg->d_input, cfg->seed, o->embeddings ? stg_encode_vocab_has : NULL, &v,
                                 &s->emb, ctx->err, sizeof ctx->err);
    stg_encode_vocab_free(&v);
    if (rc) return rc == SP_EUSAGE ? SP_EPARSE : rc;
    if (enc_embed_dim(s->emb) != cfg->d_input)
        return stg_fail(ctx, SP_EPARSE, "%s: vectors of width %d, the config's d_input is %d", o->embeddings,
                        enc_embed_dim(s->emb), cfg->d_input);
    if (o->embeddings)
        sp_log(ctx->log, SP_LOG_INFO, "%s: %d of %ld rows kept (the words of %s %s)", o->embeddings,
               enc_embed_vocab_size(s->emb), enc_embed_file_rows(s->emb), n > 1 ? "these" : "this",
               in[0].is_task ? (n > 1 ? "tasks" : "task") : (n > 1 ? "corpora" : "corpus"));
    return SP_OK;
}

/* "kind from CFG.json (seed N, fingerprint F)" of a run's manifest (an earlier encode). */
static void describe_old(char *out, size_t len, const struct st_run_info *info)
{
    json_error_t jerr;
    json_t *m = info->manifest ? json_loads(info->manifest, 0, &jerr) : NULL;
    const char *path = json_string_value(json_object_get(m, "config_path"));
    json_t *seed = json_object_get(m, "seed");
    char seed_s[32] = "?";
    if (json_is_integer(seed)) snprintf(seed_s, sizeof seed_s, "%lld", (long long)json_integer_value(seed));
    snprintf(out, len, "%s from %s (seed %s, fingerprint %s)", info->kind, path ? path : "a config not recorded",
             seed_s, info->fingerprint);
    json_decref(m);
}

/* st_run_begin said SP_EEXIST: the name is taken by another encoder (named both ways) or source. */
static int run_taken(struct stg_ctx *ctx, const struct stg_encode_opts *o, struct shared *s, const struct enc_ident *id,
                     int64_t encoder_id, const char *run, const char *store_err)
{
    struct st_run_info info = { 0 };
    char err[SP_ERRLEN];
    if (st_run_info(s->db, run, &info, err, sizeof err) || info.encoder_id == encoder_id) {
        st_run_info_free(&info);
        return stg_fail(ctx, SP_EPARSE, "%s", store_err);   /* another source: the store's words */
    }
    char old[SP_ERRLEN / 2];
    describe_old(old, sizeof old, &info);
    st_run_info_free(&info);
    return stg_fail(ctx, SP_EPARSE, "run '%s' was made by encoder %s; this encoder is %s from %s (seed %llu, fingerprint "
                    "%s): choose another --run name", run, old, enc_kind_name(id->cfg.kind), o->encoder,
                    (unsigned long long)id->cfg.seed, id->fp);
}

/* Everything needed to say how these vectors were made (the keys earlier versions wrote, which
 * report reads, plus the common manifest). */
static char *manifest_text(const struct stg_encode_opts *o, const struct shared *s, const struct enc_ident *id,
                           const struct input *in, const struct enc_pass *c, double seconds)
{
    char when[32];
    time_t now = time(NULL);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    json_t *m = stg_manifest_new(NULL, o->command.n ? &o->command : NULL, stg_encode_options, o);
    json_t *add = json_pack("{s:s, s:s, s:O, s:s, s:s, s:I, s:s, s:s, s:i, s:i, s:i, s:b, s:s, s:f, s:s}",
                            "synprobe", SP_VERSION, "build", stg_build_info(), "config", id->jcfg, "config_path",
                            o->encoder, "fingerprint", id->fp, "seed", (json_int_t)id->cfg.seed, "device",
                            enc_backend_name(s->e), "device_requested", device_names[o->device], "threads", (int)o->threads,
                            "batch_tokens", (int)o->batch_tokens, "max_tokens", (int)o->max_tokens, "token_vectors",
                            o->token_vectors, "on_missing", o->on_missing ? "fail" : "skip", "seconds", seconds, "time", when);
    json_object_update(m, add);
    json_decref(add);
    json_object_set_new(m, "weights", o->weights ? json_pack("{s:s, s:s}", "path", o->weights, "sha256", s->id.w_sha)
                                                 : json_pack("{s:s}", "init", "glorot"));
    json_object_set_new(m, "embeddings", o->embeddings ? json_pack("{s:s, s:s, s:I, s:i}", "path", o->embeddings, "sha256",
                                                                   s->id.e_sha, "file_rows", (json_int_t)enc_embed_file_rows(s->emb),
                                                                   "rows_kept", enc_embed_vocab_size(s->emb))
                                                       : json_pack("{s:s}", "init", "random per word"));
    json_object_set_new(m, "store_dtype", json_string(sp_stype_name(id->dtype)));
    if (c->saturate) json_object_set_new(m, "saturated", json_integer((json_int_t)c->n_saturated));
    json_object_set_new(m, "max_workspace_bytes", o->max_workspace ? json_integer((json_int_t)o->max_workspace) : json_null());
    if (in->is_task)
        json_object_set_new(m, "perturbed", json_pack("{s:s, s:I}", "parse", o->perturbed ? "no-parse" : "keep-parse",
                                                      "items", (json_int_t)c->n_perturbed));
    int al = o->layer_attention ? id->cfg.bert_layer - 1 : (int)o->attention;
    json_object_set_new(m, "attention_layer", al >= 0 ? json_integer(al) : json_null());
    if (o->heads && al >= 0) json_object_set_new(m, "attention_heads", json_integer(enc_get_config(s->e)->heads));
    json_object_set_new(m, "source", json_pack("{s:s}", in->is_task ? "task" : "corpus", in->name));
    if (s->n_layers) {         /* one pass kept these layers, each a run of its own */
        json_t *l = json_array();
        for (int k = 0; k < s->n_layers; k++) json_array_append_new(l, json_integer(s->layers[k]));
        json_object_set_new(m, "layers", json_pack("{s:i, s:o}", "layer", id->cfg.bert_layer, "pass", l));
    }
    json_object_set_new(m, "counts", json_pack("{s:I, s:I, s:I, s:I, s:I, s:I}", "cached", (json_int_t)c->n_cached,
                        "encoded", (json_int_t)c->n_encoded, "skipped_missing_structure", (json_int_t)c->n_missing,
                        "skipped_too_long", (json_int_t)c->n_long, "skipped_out_of_memory", (json_int_t)c->n_oom,
                        "batches", (json_int_t)c->n_batches));
    char *text = json_dumps(m, JSON_SORT_KEYS | JSON_COMPACT);
    json_decref(m);
    return text;
}

/* An input with nothing to encode, or whose every item was skipped, fails with the reason (the
 * run is kept: a PTB-only corpus under ms-san is a run a later ingest of its heads fills). */
static int nothing_encoded(struct stg_ctx *ctx, const struct input *in, const struct enc_pass *c)
{
    if (c->n_cached + c->n_encoded > 0) return SP_OK;
    const char *unit = in->is_task ? "items" : "sentences", *what = in->is_task ? "task" : "corpus";
    long n = c->n_missing + c->n_long + c->n_oom;
    if (n == 0) return stg_fail(ctx, SP_EPARSE, "nothing to encode: %s '%s' has no %s", what, in->name, unit);
    char why[SP_ERRLEN] = "";
    size_t k = 0;
    if (c->n_long)
        k += (size_t)snprintf(why + k, sizeof why - k, "; %ld over --max-tokens %ld", c->n_long, c->max_tokens);
    if (c->n_oom && k < sizeof why)
        k += (size_t)snprintf(why + k, sizeof why - k, "; %ld out of memory alone (--max-workspace, --batch-tokens)", c->n_oom);
    if (c->n_missing && k < sizeof why)
        snprintf(why + k, sizeof why - k, "; %ld lacking the %s %s needs (--on-missing skip)", c->n_missing,
                 (c->caps.needs & ENC_NEED_PID) ? "constituency tree" : "dependency tree", enc_kind_name(c->cfg->kind));
    return stg_fail(ctx, SP_EPARSE, "nothing was encoded: all %ld %s of %s '%s' were skipped: %s", n, unit, what,
                    in->name, why + 2);
}

static void pass_init(struct enc_pass *c, struct stg_ctx *ctx, const struct stg_encode_opts *o, const struct shared *s)
{
    memset(c, 0, sizeof *c);
    c->ctx = ctx;
    c->db = s->db;
    c->e = s->e;
    c->emb = s->emb;
    c->base = s->base;
    if (o->embeddings) c->table = enc_embed_table(s->emb, &c->table_rows);
    c->cfg = enc_get_config(s->e);
    enc_caps(s->e, &c->caps);
    c->tok = o->token_vectors;
    c->attn_layer = (int)o->attention;
    c->heads = o->heads;
    c->batch_tokens = o->batch_tokens;
    c->max_tokens = o->max_tokens;
    c->on_missing_fail = o->on_missing == STG_MISSING_FAIL;
    c->perturbed_no_parse = o->perturbed == STG_PERTURBED_NO_PARSE;
    c->dtype = (enum sp_stype)o->store_dtype;
    c->saturate = o->store_overflow == STG_OVERFLOW_SATURATE;
    sp_arena_init(&c->arena);
    sp_arena_init(&c->batch_arena);
}

static void pass_free(struct enc_pass *c)
{
    free(c->u);
    free(c->dropped);
    sp_arena_free(&c->arena);
    sp_arena_free(&c->batch_arena);
}

static void input_result(struct stg_encode_input *r, const struct input *in, const char *run, const struct shared *s,
                         const struct enc_ident *id, const struct enc_pass *c, int64_t items, double seconds)
{
    r->run = sp_xstrdup(run);
    size_t len = strlen(in->name) + 8;
    r->source = sp_xmalloc(len);
    snprintf(r->source, len, "%s %s", in->is_task ? "task" : "corpus", in->name);
    memcpy(r->fingerprint, id->fp, sizeof r->fingerprint);
    r->kind = enc_kind_name(s->id.cfg.kind);
    r->device = enc_backend_name(s->e);
    r->store_dtype = sp_stype_name(id->dtype);
    r->dim = enc_dim(s->e);
    r->cached = c->n_cached;
    r->encoded = c->n_encoded;
    r->missing = c->n_missing;
    r->too_long = c->n_long;
    r->oom = c->n_oom;
    r->batches = c->n_batches;
    r->saturated = c->n_saturated;
    r->items = items;
    r->seconds = seconds;
}

/* The runs of one input (one, or one per layer with --layers): register them, encode (one pass
 * for all of them), store the manifests, count their items. r[0..n_out). */
static int encode_input(struct stg_ctx *ctx, const struct stg_encode_opts *o, struct shared *s, const struct input *in,
                        int n_inputs, struct stg_encode_input *r)
{
    char err[SP_ERRLEN * 2];
    const int no = s->n_layers ? s->n_layers : 1;
    int64_t run_ids[ENC_MAX_LAYERS + 1], enc_ids[ENC_MAX_LAYERS + 1];
    char *names[ENC_MAX_LAYERS + 1] = { 0 };
    const struct enc_ident *ids[ENC_MAX_LAYERS + 1];
    int created[ENC_MAX_LAYERS + 1] = { 0 }, rc = SP_OK;
    for (int k = 0; k < no; k++) {
        names[k] = s->n_layers ? stg_layer_run_name(o->run, s->layers[k], n_inputs > 1 ? in->name : NULL) : sp_xstrdup(in->run);
        enc_ids[k] = s->n_layers ? s->lenc[k] : s->encoder_id;
        ids[k] = s->n_layers ? &s->lid[k] : &s->id;
    }
    for (int k = 0; !rc && k < no; k++) {
        struct st_run_spec spec = { names[k], enc_ids[k], in->corpus_id, in->task_id, o->token_vectors,
                                    s->n_layers ? s->attn_of[k] : (int)o->attention };
        if ((rc = st_run_begin(s->db, &spec, &run_ids[k], &created[k], err, sizeof err)))
            rc = rc == SP_EEXIST ? run_taken(ctx, o, s, ids[k], enc_ids[k], names[k], err) : store_fail(ctx, rc, err);
    }
    if (rc) goto out;
    struct enc_pass c;
    pass_init(&c, ctx, o, s);
    c.n_out = no;
    c.layers = s->n_layers ? s->layers : NULL;
    c.encoder_ids = enc_ids;
    c.attn_of = s->n_layers ? s->attn_of : NULL;
    c.run_ids = run_ids;
    c.run_names = names;
    char source[300];
    snprintf(source, sizeof source, "%s %s", in->is_task ? "task" : "corpus", in->name);
    c.source = source;
    double t0 = sp_now();
    int64_t total = 0;          /* progress: a task pass counts its items itself */
    if (!in->is_task) rc = st_corpus_sentence_count(s->db, in->corpus_id, &total, err, sizeof err);
    c.n_total = (uint64_t)total;
    if (!rc) rc = in->is_task ? stg_encode_task_pass(&c, in->name, in->task_corpus) : stg_encode_corpus_pass(&c, in->corpus_id);
    if (rc == SP_EPARSE && c.err[0]) {   /* its data (an output beyond the store's range...): no part of a new run is kept */
        int64_t gone[ENC_MAX_LAYERS + 1];
        int ng = 0;
        for (int k = 0; k < no; k++) if (created[k]) gone[ng++] = run_ids[k];
        char derr[SP_ERRLEN];
        if (ng && st_run_discard(s->db, gone, ng, derr, sizeof derr))
            sp_log(ctx->log, SP_LOG_ERROR, "%s", derr);
        else if (ng)
            snprintf(c.err + strlen(c.err), sizeof c.err - strlen(c.err), "; run%s %s%s not kept", ng > 1 ? "s" : "",
                     names[0], ng > 1 ? " ..." : "");
    }
    if (rc) {
        rc = rc == SP_ESTOPPED ? stg_stopped(ctx) : stg_fail(ctx, rc == SP_EUSAGE ? SP_EPARSE : rc, "%s", c.err[0] ? c.err : err);
        pass_free(&c);
        goto out;
    }
    double seconds = sp_now() - t0;
    for (int k = 0; !rc && k < no; k++) {
        char *mtext = manifest_text(o, s, ids[k], in, &c, seconds);
        rc = st_run_finish(s->db, run_ids[k], mtext, c.dropped, c.n_dropped, err, sizeof err);
        free(mtext);
        struct st_run_info info = { 0 };
        if (!rc) rc = st_run_info(s->db, names[k], &info, err, sizeof err);
        if (rc) { st_run_info_free(&info); rc = store_fail(ctx, rc, err); break; }
        input_result(&r[k], in, names[k], s, ids[k], &c, info.count, seconds);
        st_run_info_free(&info);
        if (k == 0 && c.n_saturated)
            sp_log(ctx->log, SP_LOG_WARN, "%s: %ld values beyond %s's range clamped to +-%g (--store-overflow saturate)",
                   no > 1 ? "these runs" : names[k], c.n_saturated, sp_stype_name(c.dtype), (double)sp_stype_max(c.dtype));
        sp_log(ctx->log, SP_LOG_INFO, "run %s (%s on %s, %d-dim%s%s): %ld cached, %ld encoded, %ld skipped (%ld lacking structure, "
               "%ld over --max-tokens, %ld out of memory); %lld items in %.2fs", r[k].run, r[k].kind, r[k].device, r[k].dim,
               ids[k]->dtype != SP_STYPE_F32 ? ", stored " : "", ids[k]->dtype != SP_STYPE_F32 ? r[k].store_dtype : "",
               r[k].cached, r[k].encoded, r[k].missing + r[k].too_long + r[k].oom, r[k].missing, r[k].too_long, r[k].oom,
               (long long)r[k].items, seconds);
    }
    if (!rc) {
        rc = o->empty_ok && c.n_cached + c.n_encoded + c.n_missing + c.n_long + c.n_oom == 0 ? SP_OK : nothing_encoded(ctx, in, &c);
        for (int k = 0; k < no; k++) r[k].nothing_encoded = rc != SP_OK;
    }
    pass_free(&c);
out:
    for (int k = 0; k < no; k++) free(names[k]);
    return rc;
}

/* --layers: the list (all = 0..L), checked against the model; an encoder row per layer with the
 * fingerprint --layer k gives. */
static int setup_layers(struct stg_ctx *ctx, const struct stg_encode_opts *o, struct shared *s)
{
    struct stg_layer_list l;
    char err[SP_ERRLEN];
    if (stg_layer_spec("--layers", o->layers, enc_hidden_layers(s->e), s->id.cfg.bert_model, &l, err, sizeof err))
        return stg_fail(ctx, SP_EUSAGE, "%s", err);
    int n = l.n;
    memcpy(s->layers, l.k, sizeof l.k);
    for (int k = 0; k < n; k++) {
        if (stg_encode_ident_layer(&s->id, s->layers[k], &s->lid[k])) return stg_fail(ctx, SP_ENOMEM, "out of memory");
        s->n_layers = k + 1;
        s->attn_of[k] = o->layer_attention ? s->layers[k] - 1 : (int)o->attention;
        struct st_encoder se = { s->lid[k].fp, enc_kind_name(s->id.cfg.kind), s->lid[k].canon, enc_dim(s->e), s->lid[k].dtype };
        int rc = st_encoder_upsert(s->db, &se, &s->lenc[k], err, sizeof err);
        if (rc) return store_fail(ctx, rc, err);
    }
    struct sp_buf b = { 0 };
    for (int k = 0; k < n; k++) sp_buf_printf(&b, "%s%d", k ? "," : "", s->layers[k]);
    sp_log(ctx->log, SP_LOG_INFO, "encode: layers %s in one pass, each its own run", b.p);
    sp_buf_free(&b);
    return SP_OK;
}

/* The store, the inputs, the encoder, its embeddings: what every input's run shares. */
static int setup(struct stg_ctx *ctx, const struct stg_encode_opts *o, struct shared *s, struct input *in, int n)
{
    char err[SP_ERRLEN];
    int rc = stg_encode_ident(ctx, o->encoder, o->seed, o->layer, o->weights, o->embeddings, (enum sp_stype)o->store_dtype,
                              o->store_overflow == STG_OVERFLOW_SATURATE, &s->id);
    if (rc == SP_OK) rc = stg_encode_check_config(ctx, o, &s->id.cfg);   /* the config ident read */
    if (rc) return rc;
    struct enc_caps caps;
    enc_config_caps(&s->id.cfg, &caps);
    if ((rc = st_open(o->db, 0, &s->db, err, sizeof err))) return store_fail(ctx, rc, err);
    if ((rc = stg_every_shard_merged(ctx, s->db, o->db))) return rc;
    if ((rc = resolve_inputs(ctx, o, s->db, in, n)) || (rc = open_encoder(ctx, o, s)) ||
        (caps.input == ENC_INPUT_ROWS && !s->base && (rc = open_embeddings(ctx, o, s, in, n))))
        return rc;
    struct st_encoder se = { s->id.fp, enc_kind_name(s->id.cfg.kind), s->id.canon, enc_dim(s->e), s->id.dtype };
    if (o->layers) return setup_layers(ctx, o, s);     /* no row for the config's own layer */
    if ((rc = st_encoder_upsert(s->db, &se, &s->encoder_id, err, sizeof err))) return store_fail(ctx, rc, err);
    return SP_OK;
}

int stg_encode(struct stg_ctx *ctx, const struct stg_encode_opts *o, struct stg_encode_result *r)
{
    memset(r, 0, sizeof *r);
    int rc = stg_encode_check(ctx, o);
    if (rc) return rc;
    int n = o->task.n ? o->task.n : o->corpus.n;
    struct input *in = sp_xcalloc((size_t)n, sizeof *in);
    r->in = sp_xcalloc((size_t)n * (ENC_MAX_LAYERS + 1), sizeof *r->in);
    struct shared s = { 0 };
    double t0 = sp_now();
    rc = setup(ctx, o, &s, in, n);
    int nothing = 0;                      /* an input encoded nothing: the others still run */
    char nothing_err[sizeof ctx->err] = "";
    for (int i = 0; !rc && i < n; i++) {
        if (stg_stopping(ctx)) { rc = stg_stopped(ctx); break; }
        int no = s.n_layers ? s.n_layers : 1;
        struct stg_encode_input *ri = &r->in[r->n];
        rc = encode_input(ctx, o, &s, &in[i], n, ri);
        for (int k = 0; k < no && ri[k].run; k++) r->n++;
        if (rc && ri[0].nothing_encoded) {
            if (!nothing++) memcpy(nothing_err, ctx->err, sizeof nothing_err);
            else sp_log(ctx->log, SP_LOG_ERROR, "%s", ctx->err);
            rc = SP_OK;
        }
    }
    if (!rc && nothing) rc = stg_fail(ctx, SP_EPARSE, "%s", nothing_err);
    if (!rc && n > 1)
        sp_log(ctx->log, SP_LOG_DEBUG, "encode: %d inputs in %.2fs", n, sp_now() - t0);
    for (int i = 0; i < n; i++) free(in[i].run);
    free(in);
    stg_encode_ident_free(&s.id);
    for (int k = 0; k < s.n_layers; k++) stg_encode_ident_free(&s.lid[k]);
    st_close(s.db);
    enc_embed_close(s.emb);
    enc_close(s.e);
    enc_close(s.base);
    return rc;
}

void stg_encode_result_free(struct stg_encode_result *r)
{
    for (int i = 0; r->in && i < r->n; i++) { free(r->in[i].run); free(r->in[i].source); }
    free(r->in);
    memset(r, 0, sizeof *r);
}
