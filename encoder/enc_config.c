/* encoder/enc_config.c — encoder configuration: per-kind defaults, JSON parsing (jansson) and
 * validation against the documented fields (schemas/encoder.schema.json).
 *
 * How it works: "kind" is read first and selects the defaults; every other key is looked up in
 * one table of known names, type-checked and stored; unknown keys are errors. Range and
 * cross-field checks (heads dividing d_model, distances length, selective layer indices, ...)
 * run afterwards in enc_config_check, so they see the final values whatever the key order.
 * Every bad field yields exactly one line "<name>: <field>: <what was expected>"; a field that
 * already failed its type check is not checked again. */
#include "encoder/encoder_int.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

/* The one table of kinds: their names in configs, in messages and in the store; the list a config
 * with an unknown kind is told (kinds_text) comes from here, so a new kind is named everywhere. */
static const struct { enum enc_kind kind; const char *name; } kinds[] = {
    { ENC_SAN, "san" }, { ENC_MSSAN, "ms-san" }, { ENC_SGNET, "sg-net" }, { ENC_PSAN, "psan" }, { ENC_SSAN, "ssan" },
    { ENC_BERT, "bert" }, { ENC_HF, "hf" },
};
#define N_KINDS (sizeof kinds / sizeof kinds[0])

const char *enc_kind_name(enum enc_kind k)
{
    for (size_t i = 0; i < N_KINDS; i++)
        if (kinds[i].kind == k) return kinds[i].name;
    return "?";
}

/* "\"san\", \"ms-san\", ... or \"bert\"": every kind of the table, into text (returned) */
static const char *kinds_text(char *text, size_t cap)
{
    size_t len = 0;
    text[0] = 0;
    for (size_t i = 0; i < N_KINDS && len < cap; i++)
        len += (size_t)snprintf(text + len, cap - len, "%s\"%s\"", !i ? "" : i + 1 < N_KINDS ? ", " : " or ", kinds[i].name);
    return text;
}

void enc_config_defaults(struct enc_config *c, enum enc_kind kind)
{
    memset(c, 0, sizeof *c);
    c->kind = kind;
    c->seed = 1;
    c->ln_eps = 1e-6f;
    c->pooling = ENC_POOL_MEAN;
    c->f_abs = ENC_FABS_TANH;
    c->rel_clip = 16;
    c->rel_seq_clip = 16;
    c->alpha = 1.0f;
    c->sgnet_alpha = 0.5f;
    c->levels = 3;
    c->min_phrase_len = 4;
    for (int r = 0; r < ENC_MAX_HEADS / 2; r++)          /* P0: [WORD, DEP, NONE], cycled */
        c->dist[r] = r % 3 == 0 ? ENC_DIST_WORD : r % 3 == 1 ? ENC_DIST_DEP : ENC_DIST_NONE;
    switch (kind) {
    case ENC_BERT: case ENC_HF:          /* shapes come from the model's config.json */
        c->bert_layer = -1; c->lower_case = 1; c->add_bos = -1;
        break;
    case ENC_SAN: case ENC_SSAN:         /* Transformer-base (THUMT for SSAN: pre-LN) */
        c->d_model = 512; c->heads = 8; c->layers = 6; c->d_ff = 2048;
        c->norm = kind == ENC_SSAN ? ENC_PRE_LN : ENC_POST_LN;
        c->activation = ENC_ACT_RELU; c->position = ENC_POS_SEQ; c->emb_scale = 1;
        if (kind == ENC_SSAN) c->selective[0] = 1;
        break;
    case ENC_SGNET:                       /* BERT-base layer shapes, GELU, ε = 1e-12 */
        c->d_model = 768; c->heads = 12; c->layers = 12; c->d_ff = 3072;
        c->norm = ENC_POST_LN; c->activation = ENC_ACT_GELU; c->ln_eps = 1e-12f;
        c->position = ENC_POS_SEQ;
        break;
    case ENC_MSSAN:                       /* P0: d_e 300, h = 3 per direction, one layer */
        c->d_model = 300; c->heads = 6; c->layers = 1; c->d_ff = 300;
        c->norm = ENC_POST_LN; c->activation = ENC_ACT_RELU; c->position = ENC_POS_NONE;
        break;
    case ENC_PSAN:                        /* P3: d 300, T 3 */
        c->d_model = 300; c->heads = 1; c->layers = 1; c->d_ff = 300;
        c->activation = ENC_ACT_ELU; c->position = ENC_POS_NONE;
        break;
    }
    c->d_input = c->d_model;
    c->pool_d_h = c->d_model;
}

#define SP_STR_(x) #x
#define SP_STR(x) SP_STR_(x)

/* ---- error collection ---- */

struct cerr { char *buf; size_t cap, len; int n; const char *name; };

static void bad(struct cerr *ce, const char *field, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void bad(struct cerr *ce, const char *field, const char *fmt, ...)
{
    ce->n++;
    if (!ce->buf || ce->len + 1 >= ce->cap) return;
    int w = snprintf(ce->buf + ce->len, ce->cap - ce->len, "%s%s: %s: ", ce->len ? "\n" : "", ce->name, field);
    if (w < 0) return;
    ce->len += (size_t)w < ce->cap - ce->len ? (size_t)w : ce->cap - ce->len - 1;
    va_list ap;
    va_start(ap, fmt);
    w = vsnprintf(ce->buf + ce->len, ce->cap - ce->len, fmt, ap);
    va_end(ap);
    if (w > 0) ce->len += (size_t)w < ce->cap - ce->len ? (size_t)w : ce->cap - ce->len - 1;
}

/* fields, for "already reported" bits */
enum fid {
    F_KIND, F_D_MODEL, F_D_INPUT, F_HEADS, F_LAYERS, F_D_FF, F_NORM, F_ACT, F_EPS, F_POOLING, F_SEED,
    F_EMB_SCALE, F_POSITION, F_FABS, F_REL, F_REL_CLIP, F_REL_SEQ_CLIP, F_ALPHA, F_DIST, F_DIRMASK,
    F_POOL_DH, F_SG_ALPHA, F_SG_AGG, F_LEVELS, F_MINLEN, F_ORDER, F_CARRY, F_SELECTIVE, F_COMMENT, F_N
};
static const char *const fname[F_N] = {
    "kind", "d_model", "d_input", "heads", "layers", "d_ff", "norm", "activation", "ln_eps", "pooling", "seed",
    "emb_scale", "position", "f_abs", "rel_pos", "rel_clip", "rel_seq_clip", "alpha", "distances", "direction_mask",
    "pool_d_h", "sgnet_alpha", "sgnet_aggregation", "levels", "min_phrase_len", "psan_order", "psan_highway_carry",
    "selective_layers", "comment",
};

/* which kinds a field applies to (bit per enum enc_kind); 0 = all */
#define K(k) (1u << (k))
static unsigned field_kinds(enum fid f)
{
    const unsigned sanlike = K(ENC_SAN) | K(ENC_SSAN) | K(ENC_SGNET);
    switch (f) {
    case F_POOLING: case F_EMB_SCALE: case F_POSITION: case F_FABS: case F_REL: case F_REL_CLIP:
    case F_REL_SEQ_CLIP: case F_NORM: return sanlike;
    case F_ALPHA: case F_DIST: case F_DIRMASK: case F_POOL_DH: return K(ENC_MSSAN);
    case F_SG_ALPHA: case F_SG_AGG: return K(ENC_SGNET);
    case F_LEVELS: case F_MINLEN: case F_ORDER: case F_CARRY: return K(ENC_PSAN);
    case F_SELECTIVE: return K(ENC_SSAN);
    case F_HEADS: case F_LAYERS: case F_D_FF: case F_ACT: case F_EPS: return ~K(ENC_PSAN);
    default: return 0;
    }
}

static int pick(const char *s, const char *const *names, int n)
{
    for (int i = 0; i < n; i++) if (!strcmp(s, names[i])) return i;
    return -1;
}

/* ---- memory estimate ---- */

/* One base-stack layer (san_layer in enc_san.c): q/k/v/o with biases, the optional selective
 * projection and relative tables, two LayerNorms, the FFN. */
static double san_layer_params(const struct enc_config *c, int selective)
{
    double d = c->d_model, ff = c->d_ff, dk = c->heads > 0 ? d / c->heads : d;
    double n = 4 * (d * d + d) + 2 * d + (d * ff + ff) + (ff * d + d) + 2 * d;
    if (selective) n += d * 2 * d + 2 * d;
    if (c->rel_struct) n += 2 * (2.0 * c->rel_clip + 1) * dk;
    if (c->rel_seq) n += 2 * (2.0 * c->rel_seq_clip + 1) * dk;
    return n;
}

double enc_config_n_params(const struct enc_config *c)
{
    double d = c->d_model, ff = c->d_ff, n = 0;
    if (c->d_input != c->d_model) n += (double)c->d_input * d + d;
    switch (c->kind) {
    case ENC_SAN: case ENC_SSAN: case ENC_SGNET:
        if (c->position == ENC_POS_SEQ_STRUCT && c->f_abs == ENC_FABS_TANH) n += 2 * d * d + d;
        for (int l = 0; l < c->layers && l < ENC_MAX_LAYERS; l++)
            n += san_layer_params(c, c->kind == ENC_SSAN && c->selective[l]);
        if (c->norm == ENC_PRE_LN) n += 2 * d;
        if (c->kind == ENC_SGNET) n += san_layer_params(c, 0) + (c->sgnet_code_agg ? 3 : 0);
        break;
    case ENC_MSSAN:      /* q k v o, gate in/out/w1(+b)/w2, FFN, LN; then the pooling FFN */
        n += c->layers * (8 * d * d + d + (d * ff + ff) + (ff * d + d) + 2 * d);
        n += (d * c->pool_d_h + c->pool_d_h) + ((double)c->pool_d_h * d + d);
        break;
    case ENC_PSAN:       /* per level a1, a2, a.bias, c; shared mem.g, mem.m, sum.e1, sum.e2 */
        n += c->levels * (2 * d * d + d + 2 * d * d + d);
        n += 2 * (2 * d * d + d) + 2 * (d * d + d);
        break;
    case ENC_BERT: case ENC_HF:   /* the model's own, not known from the config */
        break;
    }
    return n;
}

double enc_config_mem_bytes(const struct enc_config *c)
{
    /* workspace of one sentence (enc_san.c ws_layout): about ten d-wide float rows per token,
     * the widest intermediate (FFN, pooling, input) and the host staging rows, plus the n x n
     * pair arrays (attention map, distances, relative positions, ancestors) */
    double d = c->d_model, nt = ENC_MEM_EST_TOKENS, nn = nt * nt;
    double wide = c->d_ff;
    if (c->pool_d_h > wide) wide = c->pool_d_h;
    if (2 * d > wide) wide = 2 * d;
    if (c->d_input > wide) wide = c->d_input;
    double per_token = 14 * d + wide + (c->d_input > d ? c->d_input : d) + (c->levels > 0 ? c->levels : 1);
    return 4 * enc_config_n_params(c) + 4 * nt * per_token + 17 * nn + 8 * d;
}

/* Physical memory in bytes, 0 if unknown. */
static double phys_mem_bytes(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? (double)pages * (double)page : 0;
}

/* ---- checks on the final values ---- */

#define SKIP(f) (done & (1ull << (f)))   /* field f already reported: not checked again */

/* The layer shapes: widths, heads (dividing d_model; an even count for ms-san), and for
 * every stacked kind layers, d_ff, activation and ln_eps */
static void check_shapes(const struct enc_config *c, struct cerr *ce, uint64_t done)
{
    if (!SKIP(F_D_MODEL) && (c->d_model <= 0 || c->d_model > 65536))
        bad(ce, "d_model", "expected a positive integer (at most 65536)");
    if (!SKIP(F_D_INPUT) && (c->d_input <= 0 || c->d_input > 65536))
        bad(ce, "d_input", "expected a positive integer (at most 65536)");
    if (c->kind == ENC_MSSAN) {
        if (!SKIP(F_HEADS) && (c->heads <= 0 || c->heads % 2 || c->heads > ENC_MAX_HEADS || c->d_model <= 0 || c->d_model % c->heads))
            bad(ce, "heads", "expected a positive integer dividing d_model (even: 2h heads, forward + backward%s)",
                c->heads > ENC_MAX_HEADS ? "; at most " SP_STR(ENC_MAX_HEADS) : "");
    } else if (c->kind != ENC_PSAN) {
        if (!SKIP(F_HEADS) && (c->heads <= 0 || c->heads > ENC_MAX_HEADS || c->d_model <= 0 || c->d_model % c->heads))
            bad(ce, "heads", "expected a positive integer dividing d_model%s",
                c->heads > ENC_MAX_HEADS ? " (at most " SP_STR(ENC_MAX_HEADS) ")" : "");
    }
    if (c->kind != ENC_PSAN) {
        if (!SKIP(F_LAYERS) && (c->layers <= 0 || c->layers > ENC_MAX_LAYERS))
            bad(ce, "layers", "expected an integer in 1..%d", ENC_MAX_LAYERS);
        if (!SKIP(F_D_FF) && (c->d_ff <= 0 || c->d_ff > 1 << 20))
            bad(ce, "d_ff", "expected a positive integer");
        if (!SKIP(F_ACT) && c->activation != ENC_ACT_RELU && c->activation != ENC_ACT_GELU)
            bad(ce, "activation", "expected \"relu\" or \"gelu\"");
        if (!SKIP(F_EPS) && !(c->ln_eps > 0 && c->ln_eps < 1))
            bad(ce, "ln_eps", "expected a number in (0, 1)");
    }
}

/* The fields of one kind: relative-position clips, ms-san's alpha / distances / pooling
 * width, sg-net's alpha, psan's levels, ssan's selective layers; positions only where the
 * kind has them */
static void check_kind_fields(const struct enc_config *c, struct cerr *ce, uint64_t done)
{
    if (!SKIP(F_REL_CLIP) && (c->rel_clip <= 0 || c->rel_clip > 1024))
        bad(ce, "rel_clip", "expected an integer in 1..1024");
    if (!SKIP(F_REL_SEQ_CLIP) && (c->rel_seq_clip <= 0 || c->rel_seq_clip > 1024))
        bad(ce, "rel_seq_clip", "expected an integer in 1..1024");
    if (c->kind == ENC_MSSAN) {
        if (!SKIP(F_ALPHA) && !(c->alpha >= 0 && isfinite(c->alpha)))
            bad(ce, "alpha", "expected a finite number >= 0");
        if (!SKIP(F_DIST) && !SKIP(F_HEADS) && c->n_dist && c->n_dist != c->heads / 2)
            bad(ce, "distances", "expected %d entries (heads/2), got %d", c->heads / 2, c->n_dist);
        if (!SKIP(F_POOL_DH) && (c->pool_d_h <= 0 || c->pool_d_h > 1 << 20))
            bad(ce, "pool_d_h", "expected a positive integer");
    }
    if (c->kind == ENC_SGNET && !SKIP(F_SG_ALPHA) && !(c->sgnet_alpha >= 0 && c->sgnet_alpha <= 1))
        bad(ce, "sgnet_alpha", "expected a number in [0, 1]");
    if (c->kind == ENC_PSAN) {
        if (!SKIP(F_LEVELS) && (c->levels <= 0 || c->levels > ENC_MAX_LEVELS))
            bad(ce, "levels", "expected an integer in 1..%d", ENC_MAX_LEVELS);
        if (!SKIP(F_MINLEN) && c->min_phrase_len < 2)
            bad(ce, "min_phrase_len", "expected an integer >= 2");
    }
    if (c->kind == ENC_SSAN && !SKIP(F_SELECTIVE) && !SKIP(F_LAYERS)) {
        for (int l = c->layers > 0 ? c->layers : 0; l < ENC_MAX_LAYERS; l++)
            if (c->selective[l]) { bad(ce, "selective_layers", "expected layer indices in 0..%d (layers-1), got %d", c->layers - 1, l); break; }
    }
    if (c->kind != ENC_SAN && c->kind != ENC_SSAN && c->kind != ENC_SGNET) {
        if (!SKIP(F_POSITION) && c->position != ENC_POS_NONE)
            bad(ce, "position", "not supported by kind %s (expected \"none\")", enc_kind_name(c->kind));
        if (!SKIP(F_REL) && (c->rel_struct || c->rel_seq))
            bad(ce, "rel_pos", "not supported by kind %s (expected \"none\")", enc_kind_name(c->kind));
    }
}
#undef SKIP

static int check(const struct enc_config *c, struct cerr *ce, uint64_t done)
{
    const int n0 = ce->n;
    check_shapes(c, ce, done);
    check_kind_fields(c, ce, done);
    /* only a config that is otherwise valid has meaningful widths to multiply */
    if (ce->n == n0) {
        double need = enc_config_mem_bytes(c), have = phys_mem_bytes();
        if (have > 0 && need > have)
            bad(ce, "d_model/d_ff/layers", "the encoder needs about %.1f GiB (%.3g parameters of 4 bytes, plus the "
                "workspace of one %d-token sentence), more than this machine's %.1f GiB of memory",
                need / 1073741824.0, enc_config_n_params(c), ENC_MEM_EST_TOKENS, have / 1073741824.0);
    }
    return ce->n - n0;
}

int enc_config_check(const struct enc_config *cfg, const char *name, char *err, size_t errlen)
{
    struct cerr ce = { err, errlen, 0, 0, name ? name : "config" };
    if (err && errlen) err[0] = 0;
    if (cfg->kind == ENC_BERT || cfg->kind == ENC_HF) {   /* the model directory is checked when it opens */
        if (!cfg->bert_model[0]) { bad(&ce, "model", "expected the path of a BertModel directory"); return SP_EPARSE; }
        return SP_OK;
    }
    if (!strcmp(enc_kind_name(cfg->kind), "?")) {
        char k[256];
        bad(&ce, "kind", "expected one of %s", kinds_text(k, sizeof k));
        return SP_EPARSE;
    }
    return check(cfg, &ce, 0) ? SP_EPARSE : SP_OK;
}

/* ---- JSON ---- */

static int get_int(json_t *v, long lo, long hi, long *out)
{
    if (!json_is_integer(v)) return -1;
    json_int_t x = json_integer_value(v);
    if (x < lo || x > hi) return -1;
    *out = (long)x;
    return 0;
}

static const char *get_str(json_t *v) { return json_is_string(v) ? json_string_value(v) : NULL; }

/* the pooling names of "word_pool" and "sent_pool" (encoder.h) */
int enc_word_pool_parse(const char *s)
{
    return !strcmp(s, "mean") ? ENC_WORD_POOL_MEAN : !strcmp(s, "first") ? ENC_WORD_POOL_FIRST
         : !strcmp(s, "last") ? ENC_WORD_POOL_LAST : -1;
}

int enc_sent_pool_parse(const char *s)
{
    return !strcmp(s, "mean") ? ENC_SENT_POOL_MEAN : !strcmp(s, "cls") ? ENC_SENT_POOL_CLS
         : !strcmp(s, "max") ? ENC_SENT_POOL_MAX : !strcmp(s, "last") ? ENC_SENT_POOL_LAST : -1;
}

int enc_stream_parse(const char *s)
{
    return !strcmp(s, "hidden-states") ? ENC_STREAM_HIDDEN_STATES : !strcmp(s, "residual") ? ENC_STREAM_RESIDUAL
         : !strcmp(s, "post-norm") ? ENC_STREAM_POST_NORM : -1;
}

/* "kind": "bert": the model directory and the M1/M2 choices; every other key is refused. */
static int parse_bert(json_t *root, struct cerr *ce, enum enc_kind kind, struct enc_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->kind = kind;
    cfg->bert_layer = -1;
    cfg->lower_case = 1;
    cfg->add_bos = -1;
    const char *key;
    json_t *v;
    int bad_n = 0;
    json_object_foreach(root, key, v) {
        long x;
        const char *sv = get_str(v);
        if (!strcmp(key, "kind") || !strcmp(key, "comment") || !strcmp(key, "$schema")) continue;
        if (!strcmp(key, "model")) {
            if (!sv || !*sv || strlen(sv) >= sizeof cfg->bert_model) { bad(ce, "model", "expected the path of a BertModel directory"); bad_n++; }
            else snprintf(cfg->bert_model, sizeof cfg->bert_model, "%s", sv);
        } else if (!strcmp(key, "layer")) {
            if (get_int(v, -1, ENC_MAX_LAYERS, &x)) { bad(ce, "layer", "expected -1 (the last) or a layer 0..%d (0 = embeddings)", ENC_MAX_LAYERS); bad_n++; }
            else cfg->bert_layer = (int)x;
        } else if (!strcmp(key, "word_pool")) {
            int m = sv ? enc_word_pool_parse(sv) : -1;
            if (m < 0) { bad(ce, "word_pool", "expected \"mean\", \"first\" or \"last\""); bad_n++; } else { cfg->word_pool = m; cfg->word_pool_set = 1; }
        } else if (!strcmp(key, "sent_pool")) {
            int m = sv ? enc_sent_pool_parse(sv) : -1;
            if (m < 0) { bad(ce, "sent_pool", "expected \"mean\", \"cls\", \"max\" or \"last\""); bad_n++; } else cfg->sent_pool = m;
        } else if (!strcmp(key, "stream")) {
            int m = sv ? enc_stream_parse(sv) : -1;
            if (m < 0) { bad(ce, "stream", "expected \"hidden-states\", \"residual\" or \"post-norm\" (a decoder's layers)"); bad_n++; }
            else cfg->dec_stream = m;
        } else if (!strcmp(key, "add_bos")) {
            if (!json_is_boolean(v)) { bad(ce, key, "expected true or false"); bad_n++; }
            else cfg->add_bos = json_is_true(v);
        } else if (!strcmp(key, "drop_sink")) {
            if (!json_is_boolean(v)) { bad(ce, key, "expected true or false"); bad_n++; }
            else cfg->drop_sink = json_is_true(v);
        } else if (!strcmp(key, "token_type")) {
            if (get_int(v, 0, 1, &x)) { bad(ce, "token_type", "expected 0 or 1"); bad_n++; } else cfg->token_type = (int)x;
        } else if (!strcmp(key, "tokenizer_mode")) {
            if (!sv || (strcmp(sv, "basic+wordpiece") && strcmp(sv, "wordpiece-only"))) {
                bad(ce, "tokenizer_mode", "expected \"basic+wordpiece\" or \"wordpiece-only\""); bad_n++;
            } else cfg->wordpiece_only = !strcmp(sv, "wordpiece-only");
        } else if (!strcmp(key, "lower_case") || !strcmp(key, "ptb_unescape")) {
            if (!json_is_boolean(v)) { bad(ce, key, "expected true or false"); bad_n++; }
            else if (key[0] == 'l') cfg->lower_case = json_is_true(v);
            else cfg->ptb_unescape = json_is_true(v);
        } else {
            bad(ce, key, "unknown field for kind %s (model, layer, word_pool, sent_pool, token_type, tokenizer_mode, "
                "lower_case, ptb_unescape, add_bos, stream, drop_sink)", enc_kind_name(kind));
            bad_n++;
        }
    }
    if (!bad_n && !cfg->bert_model[0]) { bad(ce, "model", "missing: the path of a BertModel directory"); bad_n++; }
    return bad_n ? SP_EPARSE : SP_OK;
}

/* What the fields read so far have said: fields already reported (or kind), and which widths
 * that default to d_model were given */
struct seen { uint64_t done; int have_dff, have_din, have_pdh; };

/* Number, integer and boolean fields (and "comment"): stores v; 0 when it is not a valid value */
static int read_scalar_field(json_t *v, enum fid f, struct enc_config *cfg, struct seen *sn)
{
    long x;
    int ok = 1;
    switch (f) {
    case F_D_MODEL: if ((ok = !get_int(v, 1, 65536, &x))) cfg->d_model = (int)x; break;
    case F_D_INPUT: if ((ok = !get_int(v, 1, 65536, &x))) { cfg->d_input = (int)x; sn->have_din = 1; } break;
    case F_HEADS: if ((ok = !get_int(v, 1, ENC_MAX_HEADS, &x))) cfg->heads = (int)x; break;
    case F_LAYERS: if ((ok = !get_int(v, 1, ENC_MAX_LAYERS, &x))) cfg->layers = (int)x; break;
    case F_D_FF: if ((ok = !get_int(v, 1, 1 << 20, &x))) { cfg->d_ff = (int)x; sn->have_dff = 1; } break;
    case F_POOL_DH: if ((ok = !get_int(v, 1, 1 << 20, &x))) { cfg->pool_d_h = (int)x; sn->have_pdh = 1; } break;
    case F_SEED: if ((ok = json_is_integer(v) && json_integer_value(v) >= 0)) cfg->seed = (uint64_t)json_integer_value(v); break;
    case F_REL_CLIP: if ((ok = !get_int(v, 1, 1024, &x))) cfg->rel_clip = (int)x; break;
    case F_REL_SEQ_CLIP: if ((ok = !get_int(v, 1, 1024, &x))) cfg->rel_seq_clip = (int)x; break;
    case F_LEVELS: if ((ok = !get_int(v, 1, ENC_MAX_LEVELS, &x))) cfg->levels = (int)x; break;
    case F_MINLEN: if ((ok = !get_int(v, 2, 1 << 20, &x))) cfg->min_phrase_len = (int)x; break;
    case F_EPS: if ((ok = json_is_number(v) && json_number_value(v) > 0 && json_number_value(v) < 1)) cfg->ln_eps = (float)json_number_value(v); break;
    case F_ALPHA: if ((ok = json_is_number(v) && json_number_value(v) >= 0)) cfg->alpha = (float)json_number_value(v); break;
    case F_SG_ALPHA: if ((ok = json_is_number(v) && json_number_value(v) >= 0 && json_number_value(v) <= 1)) cfg->sgnet_alpha = (float)json_number_value(v); break;
    case F_EMB_SCALE: if ((ok = json_is_boolean(v))) cfg->emb_scale = json_is_true(v); break;
    case F_CARRY: if ((ok = json_is_boolean(v))) cfg->psan_highway_carry = json_is_true(v); break;
    case F_COMMENT: ok = json_is_string(v); break;
    default: break;
    }
    return ok;
}

/* The index of the string v among names[0..n), or -1 */
static int pick_json(json_t *v, const char *const *names, int n)
{
    const char *s = get_str(v);
    return s ? pick(s, names, n) : -1;
}

/* Fields whose value is one of a few names: stores v; 0 when it is not one of them */
static int read_name_field(json_t *v, enum fid f, struct enc_config *cfg)
{
    static const char *const norm[] = { "post", "pre" }, *const act[] = { "relu", "gelu" };
    static const char *const pooling[] = { "mean", "max", "first" };
    static const char *const position[] = { "none", "seq", "struct", "seq+struct" };
    static const char *const fabs_[] = { "tanh", "sum" }, *const rel[] = { "none", "struct", "seq", "struct+seq" };
    static const char *const dirmask[] = { "inclusive", "strict" }, *const agg[] = { "fixed", "code" };
    static const char *const order[] = { "fine-to-coarse", "coarse-to-fine" };
    int i;
    switch (f) {
    case F_NORM: if ((i = pick_json(v, norm, 2)) < 0) return 0; cfg->norm = (enum enc_norm)i; break;
    case F_ACT: if ((i = pick_json(v, act, 2)) < 0) return 0; cfg->activation = i ? ENC_ACT_GELU : ENC_ACT_RELU; break;
    case F_POOLING: if ((i = pick_json(v, pooling, 3)) < 0) return 0; cfg->pooling = (enum enc_pooling)i; break;
    case F_POSITION: if ((i = pick_json(v, position, 4)) < 0) return 0; cfg->position = (enum enc_position)i; break;
    case F_FABS: if ((i = pick_json(v, fabs_, 2)) < 0) return 0; cfg->f_abs = (enum enc_fabs)i; break;
    case F_REL:
        if ((i = pick_json(v, rel, 4)) < 0) return 0;
        cfg->rel_struct = i == 1 || i == 3; cfg->rel_seq = i == 2 || i == 3;
        break;
    case F_DIRMASK: if ((i = pick_json(v, dirmask, 2)) < 0) return 0; cfg->strict_direction = i; break;
    case F_SG_AGG: if ((i = pick_json(v, agg, 2)) < 0) return 0; cfg->sgnet_code_agg = i; break;
    case F_ORDER: if ((i = pick_json(v, order, 2)) < 0) return 0; cfg->psan_coarse_first = i; break;
    default: break;
    }
    return 1;
}

/* "distances": one of "none", "word", "dep" per head pair; 0 when v is not such an array
 * (the entries before the bad one are kept) */
static int read_distances(json_t *v, struct enc_config *cfg)
{
    static const char *const o[] = { "none", "word", "dep" };
    int ok = json_is_array(v) && json_array_size(v) >= 1 && json_array_size(v) <= ENC_MAX_HEADS / 2;
    for (size_t i = 0; ok && i < json_array_size(v); i++) {
        int t = pick_json(json_array_get(v, i), o, 3);
        if (t < 0) ok = 0; else cfg->dist[i] = (enum enc_dist)t;
    }
    if (ok) cfg->n_dist = (int)json_array_size(v);
    return ok;
}

/* "selective_layers": the layer indices whose attention is selective; 0 when v is not an array
 * of layer indices (the indices before the bad one are kept) */
static int read_selective(json_t *v, struct enc_config *cfg)
{
    long x;
    int ok = json_is_array(v);
    memset(cfg->selective, 0, sizeof cfg->selective);
    for (size_t i = 0; ok && i < json_array_size(v); i++) {
        if (get_int(json_array_get(v, i), 0, ENC_MAX_LAYERS - 1, &x)) ok = 0; else cfg->selective[x] = 1;
    }
    return ok;
}

/* Field f's value v into cfg; 0 when it is not a valid value */
static int read_field(json_t *v, enum fid f, struct enc_config *cfg, struct seen *sn)
{
    switch (f) {
    case F_NORM: case F_ACT: case F_POOLING: case F_POSITION: case F_FABS: case F_REL: case F_DIRMASK:
    case F_SG_AGG: case F_ORDER:
        return read_name_field(v, f, cfg);
    case F_DIST: return read_distances(v, cfg);
    case F_SELECTIVE: return read_selective(v, cfg);
    default: return read_scalar_field(v, f, cfg, sn);
    }
}

/* The one line for a field whose value read_field refused: what was expected */
static void bad_value(struct cerr *ce, const char *key, enum fid f, enum enc_kind kind)
{
    switch (f) {
    case F_HEADS: bad(ce, key, kind == ENC_MSSAN ? "expected a positive integer dividing d_model (even: 2h heads, forward + backward)"
                                                 : "expected a positive integer dividing d_model"); break;
    case F_NORM: bad(ce, key, "expected \"post\" or \"pre\""); break;
    case F_ACT: bad(ce, key, "expected \"relu\" or \"gelu\""); break;
    case F_POOLING: bad(ce, key, "expected \"mean\", \"max\" or \"first\""); break;
    case F_POSITION: bad(ce, key, "expected \"none\", \"seq\", \"struct\" or \"seq+struct\""); break;
    case F_FABS: bad(ce, key, "expected \"tanh\" or \"sum\""); break;
    case F_REL: bad(ce, key, "expected \"none\", \"struct\", \"seq\" or \"struct+seq\""); break;
    case F_DIRMASK: bad(ce, key, "expected \"inclusive\" or \"strict\""); break;
    case F_SG_AGG: bad(ce, key, "expected \"fixed\" or \"code\""); break;
    case F_ORDER: bad(ce, key, "expected \"fine-to-coarse\" or \"coarse-to-fine\""); break;
    case F_DIST: bad(ce, key, "expected an array of \"word\", \"dep\" or \"none\" (one per head pair)"); break;
    case F_SELECTIVE: bad(ce, key, "expected an array of layer indices (0-based integers)"); break;
    case F_D_MODEL: case F_D_INPUT: case F_D_FF: case F_POOL_DH: bad(ce, key, "expected a positive integer"); break;
    case F_LAYERS: bad(ce, key, "expected an integer in 1..%d", ENC_MAX_LAYERS); break;
    case F_SEED: bad(ce, key, "expected a non-negative integer"); break;
    case F_REL_CLIP: case F_REL_SEQ_CLIP: bad(ce, key, "expected an integer in 1..1024"); break;
    case F_LEVELS: bad(ce, key, "expected an integer in 1..%d", ENC_MAX_LEVELS); break;
    case F_MINLEN: bad(ce, key, "expected an integer >= 2"); break;
    case F_EPS: bad(ce, key, "expected a number in (0, 1)"); break;
    case F_ALPHA: bad(ce, key, "expected a finite number >= 0"); break;
    case F_SG_ALPHA: bad(ce, key, "expected a number in [0, 1]"); break;
    case F_EMB_SCALE: case F_CARRY: bad(ce, key, "expected true or false"); break;
    case F_COMMENT: bad(ce, key, "expected a string"); break;
    default: bad(ce, key, "bad value"); break;
    }
}

static int field_id(const char *key)
{
    for (int i = 0; i < F_N; i++) if (!strcmp(key, fname[i])) return i;
    return -1;
}

/* Every key of root but "kind": known, used by this kind and of a valid value, or one line
 * saying what is wrong (and its bit in sn->done) */
static void read_fields(json_t *root, struct cerr *ce, struct enc_config *cfg, struct seen *sn)
{
    const char *key;
    json_t *v;
    json_object_foreach(root, key, v) {
        int f = field_id(key);
        if (f == F_KIND) continue;
        if (f < 0) {
            if (!strcmp(key, "$schema")) continue;
            bad(ce, key, "unknown field (see schemas/encoder.schema.json)");
            continue;
        }
        unsigned kk = field_kinds((enum fid)f);
        if (kk && !(kk & K(cfg->kind))) {
            bad(ce, key, "not used by kind %s", enc_kind_name(cfg->kind));
            sn->done |= 1ull << f;
            continue;
        }
        if (!read_field(v, (enum fid)f, cfg, sn)) {
            sn->done |= 1ull << f;
            bad_value(ce, key, (enum fid)f, cfg->kind);
        }
    }
}

/* "base": a bert config whose word vectors are the input; taken out of root. 0, or -1 when it
 * is not a usable path. */
static int read_base(json_t *root, struct cerr *ce, struct enc_config *cfg)
{
    json_t *base = json_object_get(root, "base");
    if (!base) return 0;
    const char *b = get_str(base);
    if (!b || !*b || strlen(b) >= sizeof cfg->base) {
        bad(ce, "base", "expected the path of a bert encoder config");
        return -1;
    }
    snprintf(cfg->base, sizeof cfg->base, "%s", b);
    json_object_del(root, "base");
    return 0;
}

/* A config object: "kind" picks bert (its own reader) or the defaults of a trained kind, which
 * the other fields then override; the final values are checked together. */
static int parse_object(json_t *root, struct cerr *ce, struct enc_config *cfg)
{
    const char *ks = get_str(json_object_get(root, "kind"));
    int ki = -1;
    for (size_t i = 0; ks && i < N_KINDS && ki < 0; i++)
        if (!strcmp(ks, kinds[i].name)) ki = (int)i;
    if (ki < 0) {
        char k[256];
        bad(ce, "kind", "expected one of %s", kinds_text(k, sizeof k));
        return SP_EPARSE;
    }
    if (kinds[ki].kind == ENC_BERT || kinds[ki].kind == ENC_HF)   /* a pretrained model (schemas/bert.schema.json) */
        return parse_bert(root, ce, kinds[ki].kind, cfg);
    enc_config_defaults(cfg, kinds[ki].kind);
    if (read_base(root, ce, cfg)) return SP_EPARSE;
    struct seen sn = { 1ull << F_KIND, 0, 0, 0 };
    read_fields(root, ce, cfg, &sn);
    /* widths that default to d_model (Q3) follow a d_model given in the file */
    if (!sn.have_din) cfg->d_input = cfg->d_model;
    if (!sn.have_pdh) cfg->pool_d_h = cfg->d_model;
    if (!sn.have_dff) cfg->d_ff = (cfg->kind == ENC_MSSAN || cfg->kind == ENC_PSAN) ? cfg->d_model : 4 * cfg->d_model;
    check(cfg, ce, sn.done);
    return ce->n ? SP_EPARSE : SP_OK;
}

int enc_config_parse(const char *json, const char *name, struct enc_config *cfg, char *err, size_t errlen)
{
    struct cerr ce = { err, errlen, 0, 0, name ? name : "config" };
    if (err && errlen) err[0] = 0;
    json_error_t je;
    json_t *root = json_loads(json, JSON_REJECT_DUPLICATES, &je);
    if (!root) {
        snprintf(err, errlen, "%s:%d: %s", ce.name, je.line, je.text);
        return SP_EPARSE;
    }
    int rc;
    if (!json_is_object(root)) { bad(&ce, "(top level)", "expected a JSON object"); rc = SP_EPARSE; }
    else rc = parse_object(root, &ce, cfg);
    json_decref(root);
    return rc;
}

int enc_config_load(const char *path, struct enc_config *cfg, char *err, size_t errlen)
{
    size_t len;
    char *text = sp_read_file(path, &len, err, errlen);
    if (!text) return SP_EIO;
    const char *base = strrchr(path, '/');
    /* the parser reads a C string: bytes after a NUL would be ignored */
    int rc = sp_text_no_nul(path, text, len, err, errlen);
    if (rc) { free(text); memset(cfg, 0, sizeof *cfg); return rc; }
    rc = enc_config_parse(text, base ? base + 1 : path, cfg, err, errlen);
    free(text);
    /* paths in the config are relative to its file */
    char *rel[2] = { cfg->kind == ENC_BERT || cfg->kind == ENC_HF ? cfg->bert_model : NULL, cfg->base[0] ? cfg->base : NULL };
    for (int i = 0; rc == SP_OK && base && i < 2; i++) {
        if (!rel[i] || rel[i][0] == '/') continue;
        char full[sizeof cfg->bert_model];
        if (snprintf(full, sizeof full, "%.*s/%s", (int)(base - path), path, rel[i]) >= (int)sizeof full) {
            snprintf(err, errlen, "%s: %s: path too long", path, i ? "base" : "model");
            return SP_EPARSE;
        }
        memcpy(rel[i], full, sizeof full);
    }
    return rc;
}
