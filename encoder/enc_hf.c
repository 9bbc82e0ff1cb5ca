/* encoder/enc_hf.c — the Hugging Face encoder families of kind "hf" (and "bert"): one table row
 * per model_type that is a BertModel variant, and the config.json reader the rows drive
 * (docs/spec/models.md M10).
 *
 * How it works: config.json's "model_type" picks the row (absent: an old BERT config); the row
 * says which keys hold the sizes (DistilBERT's "dim", "n_layers", ...), whether the family has
 * token types, RoBERTa's positions (from pad_token_id + 1), ELECTRA's factorised embeddings, and
 * the tensor names of its checkpoint. enc_bert.c registers and runs every row with one graph
 * (the tensors by these names, the embeddings by these variations). A model_type without a row
 * is refused with the list of the rows, never approximated.
 *
 * Adding a BertModel variant is one row here, its fixture in tests/reference/hf_family_fixtures.py
 * and its row in docs/encoders-and-models.md; a family with another graph needs its own fields here and in enc_bert.c's
 * build and forward (MPNet's relative attention bias: rel_bias; ALBERT's factorised embeddings and
 * shared layers: factorised 2, shared_layers; DeBERTa-v2's disentangled attention: dis and
 * read_deberta), or its own family file (encoder/README.md "Model families"). */
#include "encoder/encoder_int.h"
#include "encoder/tokenizer.h"

#include "encoder/tokjson.h"
#include "encoder/spm.h"

#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <string.h>
#include <sys/stat.h>

/* every family's heads and buffers: read by nobody here (after the family prefix is stripped) */
static const char *const bert_heads[] = { "pooler.", "cls.", "embeddings.position_ids", "embeddings.token_type_ids",
                                          "classifier.", "qa_outputs.", NULL };
static const char *const roberta_heads[] = { "pooler.", "lm_head.", "embeddings.position_ids", "embeddings.token_type_ids",
                                             "classifier.", "qa_outputs.", NULL };
static const char *const distilbert_heads[] = { "vocab_transform.", "vocab_layer_norm.", "vocab_projector.",
                                                "embeddings.position_ids", "pre_classifier.", "classifier.",
                                                "qa_outputs.", NULL };
static const char *const albert_heads[] = { "pooler.", "predictions.", "sop_classifier.", "embeddings.position_ids",
                                            "embeddings.token_type_ids", "classifier.", "qa_outputs.", NULL };
static const char *const mpnet_heads[] = { "pooler.", "lm_head.", "embeddings.position_ids", "classifier.", "qa_outputs.",
                                           NULL };
static const char *const deberta_heads[] = { "pooler.", "lm_predictions.", "mask_predictions.", "cls.",
                                             "embeddings.position_ids", "classifier.", "qa_outputs.", NULL };
/* (transformers' DebertaV2PreTrainedModel ignores "position_embeddings" on load: v3 checkpoints without
 * position_biased_input may keep the table) */
static const char *const deberta_heads_no_pos[] = { "pooler.", "lm_predictions.", "mask_predictions.", "cls.",
                                                    "embeddings.position_ids", "classifier.", "qa_outputs.",
                                                    "embeddings.position_embeddings.", NULL };
static const struct enc_hf_disentangled deberta_dis = { "encoder.rel_embeddings.weight", "encoder.LayerNorm",
                                                        "attention.self.pos_key_proj", "attention.self.pos_query_proj",
                                                        deberta_heads_no_pos };
static const char *const electra_heads[] = { "discriminator_predictions.", "generator_predictions.", "generator_lm_head.",
                                             "embeddings.position_ids", "embeddings.token_type_ids", "classifier.",
                                             "qa_outputs.", NULL };

#define BERT_KEYS "hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size", "hidden_act", \
                  "type_vocab_size", "layer_norm_eps"
#define BERT_EMB "embeddings.word_embeddings.weight", "embeddings.position_embeddings.weight", \
                 "embeddings.token_type_embeddings.weight", "embeddings.LayerNorm"
#define BERT_LAYER "encoder.layer.%d.", "attention.self.query", "attention.self.key", "attention.self.value", \
                   "attention.output.dense", "attention.output.LayerNorm", "intermediate.dense", "output.dense", \
                   "output.LayerNorm"

/* the table, sorted by model_type (the list a refused folder is told) */
static const struct enc_hf_arch arches[] = {
    { "albert", "albert.", BERT_KEYS, 0, 2, BERT_EMB, "encoder.embedding_hidden_mapping_in",
      "encoder.albert_layer_groups.%d.albert_layers.0.", "attention.query", "attention.key", "attention.value",
      "attention.dense", "attention.LayerNorm", "ffn", "ffn_output", "full_layer_layer_norm", albert_heads, NULL, 1, NULL },
    { "bert", "bert.", BERT_KEYS, 0, 0, BERT_EMB, NULL, BERT_LAYER, bert_heads, NULL, 0, NULL },
    { "camembert", "roberta.", BERT_KEYS, 1, 0, BERT_EMB, NULL, BERT_LAYER, roberta_heads, NULL, 0, NULL },
    /* DeBERTa-v2/v3: its own keys read by read_deberta (type_vocab_size may be 0, embedding_size defaults
     * to hidden_size); embed_proj has no bias and comes before the LayerNorm */
    { .model_type = "deberta-v2", .prefix = "deberta.", .k_hidden = "hidden_size", .k_layers = "num_hidden_layers",
      .k_heads = "num_attention_heads", .k_inter = "intermediate_size", .k_act = "hidden_act", .k_eps = "layer_norm_eps",
      .emb_word = "embeddings.word_embeddings.weight", .emb_pos = "embeddings.position_embeddings.weight",
      .emb_type = "embeddings.token_type_embeddings.weight", .emb_ln = "embeddings.LayerNorm", .emb_proj = "embeddings.embed_proj",
      .layer = "encoder.layer.%d.", .q = "attention.self.query_proj", .k = "attention.self.key_proj",
      .v = "attention.self.value_proj", .o = "attention.output.dense", .ln1 = "attention.output.LayerNorm",
      .ff1 = "intermediate.dense", .ff2 = "output.dense", .ln2 = "output.LayerNorm", .heads = deberta_heads,
      .dis = &deberta_dis },
    { "distilbert", "distilbert.", "dim", "n_layers", "n_heads", "hidden_dim", "activation", NULL, NULL, 0, 0,
      "embeddings.word_embeddings.weight", "embeddings.position_embeddings.weight", NULL, "embeddings.LayerNorm", NULL,
      "transformer.layer.%d.", "attention.q_lin", "attention.k_lin", "attention.v_lin", "attention.out_lin",
      "sa_layer_norm", "ffn.lin1", "ffn.lin2", "output_layer_norm", distilbert_heads, NULL, 0, NULL },
    { "electra", "electra.", BERT_KEYS, 0, 1, BERT_EMB, "embeddings_project", BERT_LAYER, electra_heads, NULL, 0, NULL },
    { "mpnet", "mpnet.", "hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size", "hidden_act", NULL,
      "layer_norm_eps", 2, 0, "embeddings.word_embeddings.weight", "embeddings.position_embeddings.weight", NULL,
      "embeddings.LayerNorm", NULL, "encoder.layer.%d.", "attention.attn.q", "attention.attn.k", "attention.attn.v",
      "attention.attn.o", "attention.LayerNorm", "intermediate.dense", "output.dense", "output.LayerNorm", mpnet_heads,
      "encoder.relative_attention_bias.weight", 0, NULL },
    { "roberta", "roberta.", BERT_KEYS, 1, 0, BERT_EMB, NULL, BERT_LAYER, roberta_heads, NULL, 0, NULL },
    { "xlm-roberta", "roberta.", BERT_KEYS, 1, 0, BERT_EMB, NULL, BERT_LAYER, roberta_heads, NULL, 0, NULL },
};
#define N_ARCHES (sizeof arches / sizeof arches[0])

const struct enc_hf_arch *enc_hf_arch_find(const char *model_type)
{
    for (size_t i = 0; i < N_ARCHES; i++)
        if (!strcmp(arches[i].model_type, model_type)) return &arches[i];
    return NULL;
}

const char *enc_hf_arch_list(char *text, size_t cap)
{
    size_t len = 0;
    text[0] = 0;
    for (size_t i = 0; i < N_ARCHES && len < cap; i++)
        len += (size_t)snprintf(text + len, cap - len, "%s%s", i ? ", " : "", arches[i].model_type);
    return text;
}

static int json_load_flags(const char *path, size_t flags, json_t **root, char *err, size_t errlen)
{
    size_t len;
    char *text = sp_read_file(path, &len, err, errlen);
    if (!text) return SP_EIO;
    json_error_t je;
    *root = json_loadb(text, len, JSON_REJECT_DUPLICATES | flags, &je);
    free(text);
    if (!*root) { snprintf(err, errlen, "%s:%d: not valid JSON: %s", path, je.line, je.text); return SP_EPARSE; }
    return SP_OK;
}

int enc_hf_json_load(const char *path, json_t **root, char *err, size_t errlen)
{
    return json_load_flags(path, 0, root, err, errlen);
}

static int get_int(json_t *root, const char *path, const char *key, int min, int *out, char *err, size_t errlen)
{
    json_t *v = json_object_get(root, key);
    if (!v) { snprintf(err, errlen, "%s: %s: missing (expected an integer >= %d)", path, key, min); return -1; }
    if (!json_is_integer(v) || json_integer_value(v) < min || json_integer_value(v) > (1 << 30)) {
        snprintf(err, errlen, "%s: %s: expected an integer >= %d", path, key, min);
        return -1;
    }
    *out = (int)json_integer_value(v);
    return 0;
}

/* "\"x\"" or "a non-string value", for messages */
static const char *quoted(json_t *v, char *buf, size_t n)
{
    if (json_is_string(v)) snprintf(buf, n, "\"%s\"", json_string_value(v));
    else snprintf(buf, n, "a non-string value");
    return buf;
}

/* the row of root's model_type: want (kind bert) or any of the table */
static const struct enc_hf_arch *pick(json_t *root, const char *path, const char *want, char *err, size_t errlen)
{
    json_t *v = json_object_get(root, "model_type");
    char q[96], list[256];
    if (!v) {                          /* absent in some old BERT configs: a BertModel, unless it says otherwise */
        json_t *a = json_array_get(json_object_get(root, "architectures"), 0);
        if (a && (!json_is_string(a) || strncmp(json_string_value(a), "Bert", 4))) {
            snprintf(err, errlen, "%s: model_type: missing, and architectures[0] %s is no BertModel (synprobe has: %s)", path,
                     quoted(a, q, sizeof q), enc_hf_arch_list(list, sizeof list));
            return NULL;
        }
        return enc_hf_arch_find("bert");
    }
    if (want) {
        if (json_is_string(v) && !strcmp(json_string_value(v), want)) return enc_hf_arch_find(want);
        snprintf(err, errlen, "%s: model_type: %s is not supported (only BERT-family checkpoints, model_type \"bert\"; "
                 "\"kind\": \"hf\" reads %s)", path, quoted(v, q, sizeof q), enc_hf_arch_list(list, sizeof list));
        return NULL;
    }
    const struct enc_hf_arch *a = json_is_string(v) ? enc_hf_arch_find(json_string_value(v)) : NULL;
    if (!a) {
        json_t *ar = json_array_get(json_object_get(root, "architectures"), 0);
        char aq[96] = "";
        if (json_is_string(ar)) snprintf(aq, sizeof aq, " (%s)", json_string_value(ar));
        char dl[160];
        snprintf(err, errlen, "%s: model_type: %s%s is not a family synprobe has (encoders: %s; decoders: %s)", path,
                 quoted(v, q, sizeof q), aq, enc_hf_arch_list(list, sizeof list), enc_dec_arch_list(dl, sizeof dl));
    }
    return a;
}

/* a JSON boolean key, def when absent */
static int get_bool(json_t *root, const char *path, const char *key, int def, int *out, char *err, size_t errlen)
{
    json_t *v = json_object_get(root, key);
    *out = def;
    if (!v) return 0;
    if (!json_is_boolean(v)) { snprintf(err, errlen, "%s: %s: expected true or false", path, key); return -1; }
    *out = json_is_true(v);
    return 0;
}

/* an integer key that may be negative (DeBERTa's -1 = "unset"), def when absent */
static int get_int_any(json_t *root, const char *path, const char *key, int def, int *out, char *err, size_t errlen)
{
    json_t *v = json_object_get(root, key);
    *out = def;
    if (!v) return 0;
    if (!json_is_integer(v) || json_integer_value(v) < -(1 << 30) || json_integer_value(v) > (1 << 30)) {
        snprintf(err, errlen, "%s: %s: expected an integer", path, key);
        return -1;
    }
    *out = (int)json_integer_value(v);
    return 0;
}

/* one entry of DeBERTa's pos_att_type (a list, or a "p2c|c2p" string lowercased by DebertaV2Config) */
static int deberta_att_type(const char *path, const char *t, struct enc_bert_config *c, char *err, size_t errlen)
{
    if (!strcmp(t, "c2p")) c->rp_c2p = 1;
    else if (!strcmp(t, "p2c")) c->rp_p2c = 1;
    else {
        snprintf(err, errlen, "%s: pos_att_type: \"%s\" is not supported (only \"c2p\" and \"p2c\", DeBERTa-v2's; \"p2p\" "
                 "is DeBERTa v1's)", path, t);
        return -1;
    }
    return 0;
}

/* DebertaV2Config's keys (transformers 4.40.2 modeling_deberta_v2.py): embeddings, relative
 * attention and what synprobe does not run (ConvLayer, another attention_head_size) */
static int read_deberta(json_t *root, const char *path, struct enc_bert_config *c, char *err, size_t errlen)
{
    json_t *v;
    int rel, pos_input, conv = 0, ahs = c->hidden_size / c->heads;
    if (get_int_any(root, path, "conv_kernel_size", 0, &conv, err, errlen)) return -1;
    if (conv > 0) {
        snprintf(err, errlen, "%s: conv_kernel_size: %d is not supported (the ConvLayer after the first layer, "
                 "deberta-v2-xlarge's; only 0 or absent)", path, conv);
        return -1;
    }
    if ((v = json_object_get(root, "attention_head_size")) && !json_is_null(v) &&
        (!json_is_integer(v) || json_integer_value(v) != ahs)) {
        snprintf(err, errlen, "%s: attention_head_size: only hidden_size / num_attention_heads (%d) is supported", path, ahs);
        return -1;
    }
    c->type_vocab_size = 0;
    if ((v = json_object_get(root, "type_vocab_size")) && get_int(root, path, "type_vocab_size", 0, &c->type_vocab_size, err, errlen))
        return -1;
    if ((v = json_object_get(root, "embedding_size")) && !json_is_null(v) &&
        get_int(root, path, "embedding_size", 1, &c->embedding_size, err, errlen))
        return -1;
    c->emb_ln_after_proj = 1;
    if (get_bool(root, path, "position_biased_input", 1, &pos_input, err, errlen) ||
        get_bool(root, path, "relative_attention", 0, &rel, err, errlen) ||
        get_bool(root, path, "share_att_key", 0, &c->rp_share, err, errlen) ||
        get_int_any(root, path, "max_relative_positions", -1, &c->rp_maxpos, err, errlen) ||
        get_int_any(root, path, "position_buckets", -1, &c->rp_buckets, err, errlen))
        return -1;
    c->no_pos_input = !pos_input;
    if ((v = json_object_get(root, "pos_att_type")) && json_is_string(v)) {   /* "p2c|c2p" */
        char buf[128], *save = NULL;
        snprintf(buf, sizeof buf, "%s", json_string_value(v));
        for (char *p = buf; *p; p++) if (*p >= 'A' && *p <= 'Z') *p = (char)(*p - 'A' + 'a');
        for (char *t = strtok_r(buf, "|", &save); t; t = strtok_r(NULL, "|", &save)) {
            while (*t == ' ') t++;
            for (size_t L = strlen(t); L && t[L - 1] == ' '; L--) t[L - 1] = 0;
            if (*t && deberta_att_type(path, t, c, err, errlen)) return -1;
        }
    } else if (v && json_is_array(v)) {
        size_t i;
        json_t *x;
        json_array_foreach(v, i, x) {
            if (!json_is_string(x)) { snprintf(err, errlen, "%s: pos_att_type[%zu]: expected \"c2p\" or \"p2c\"", path, i); return -1; }
            if (deberta_att_type(path, json_string_value(x), c, err, errlen)) return -1;
        }
    } else if (v && !json_is_null(v)) {
        snprintf(err, errlen, "%s: pos_att_type: expected a list of \"c2p\" and \"p2c\" (or a \"p2c|c2p\" string)", path);
        return -1;
    }
    if ((v = json_object_get(root, "norm_rel_ebd")) && !json_is_null(v)) {    /* "layer_norm" among its |-parts */
        if (!json_is_string(v)) { snprintf(err, errlen, "%s: norm_rel_ebd: expected a string (\"layer_norm\" or \"none\")", path); return -1; }
        char buf[128], *save = NULL;
        snprintf(buf, sizeof buf, "%s", json_string_value(v));
        for (char *p = buf; *p; p++) if (*p >= 'A' && *p <= 'Z') *p = (char)(*p - 'A' + 'a');
        for (char *t = strtok_r(buf, "|", &save); t; t = strtok_r(NULL, "|", &save)) {
            while (*t == ' ') t++;
            size_t L = strlen(t);
            while (L && t[L - 1] == ' ') t[--L] = 0;
            if (!strcmp(t, "layer_norm")) c->rp_ln = 1;
        }
    }
    if (c->rp_maxpos < 1) c->rp_maxpos = c->max_positions;
    c->rp_span = !rel ? 0 : c->rp_buckets > 0 ? c->rp_buckets : c->rp_maxpos;
    if (rel && c->rp_buckets > 0 && c->rp_buckets < 4) {       /* mid − 1 >= 1 keeps the log's denominator non-zero */
        snprintf(err, errlen, "%s: position_buckets: %d is too few (expected <= 0 for none, or >= 4)", path, c->rp_buckets);
        return -1;
    }
    if (rel && c->rp_buckets > 0 && c->rp_maxpos - 1 <= c->rp_buckets / 2) {
        snprintf(err, errlen, "%s: max_relative_positions: %d must exceed position_buckets / 2 + 1 (%d)", path, c->rp_maxpos,
                 c->rp_buckets / 2 + 1);
        return -1;
    }
    return 0;
}

static int read_sizes(json_t *root, const char *path, const struct enc_hf_arch *a, struct enc_bert_config *c, char *err,
                      size_t errlen)
{
    if (get_int(root, path, "vocab_size", 1, &c->vocab_size, err, errlen) ||
        get_int(root, path, a->k_hidden, 1, &c->hidden_size, err, errlen) ||
        get_int(root, path, a->k_layers, 1, &c->layers, err, errlen) ||
        get_int(root, path, a->k_heads, 1, &c->heads, err, errlen) ||
        get_int(root, path, a->k_inter, 1, &c->intermediate_size, err, errlen) ||
        get_int(root, path, "max_position_embeddings", 1, &c->max_positions, err, errlen) ||
        (a->k_types && get_int(root, path, a->k_types, 1, &c->type_vocab_size, err, errlen)))
        return -1;
    if (c->hidden_size % c->heads) {
        snprintf(err, errlen, "%s: %s: %d does not divide %s %d", path, a->k_heads, c->heads, a->k_hidden, c->hidden_size);
        return -1;
    }
    /* layers 0..L (0 = embeddings) must fit the 64 bits of enc_bert_forward's layer masks */
    if (c->layers > ENC_BERT_MAX_LAYERS || c->heads > ENC_MAX_HEADS) {
        int many = c->layers > ENC_BERT_MAX_LAYERS;
        snprintf(err, errlen, "%s: %s: at most %d supported", path, many ? a->k_layers : a->k_heads,
                 many ? ENC_BERT_MAX_LAYERS : ENC_MAX_HEADS);
        return -1;
    }
    c->embedding_size = c->hidden_size;
    if (a->factorised) {               /* ElectraConfig's and AlbertConfig's default embedding_size is 128 */
        json_t *v = json_object_get(root, "embedding_size");
        c->embedding_size = 128;
        if (v && get_int(root, path, "embedding_size", 1, &c->embedding_size, err, errlen)) return -1;
    }
    c->max_pieces = c->max_positions;
    c->pad_positions = -1;
    if (a->roberta_positions) {        /* RobertaConfig's default pad_token_id is 1; MPNet's padding_idx is 1 */
        json_t *v = json_object_get(root, "pad_token_id");
        c->pad_positions = 1;
        if (a->roberta_positions == 1 && v && get_int(root, path, "pad_token_id", 0, &c->pad_positions, err, errlen)) return -1;
        c->max_pieces = c->max_positions - c->pad_positions - 1;
        if (c->max_pieces < 1) {
            snprintf(err, errlen, "%s: max_position_embeddings: %d leaves no position after pad_token_id %d + 1", path,
                     c->max_positions, c->pad_positions);
            return -1;
        }
    }
    if (a->rel_bias) {                 /* MPNet buckets with 32 whatever the table has (MPNetEncoder) */
        json_t *v = json_object_get(root, "relative_attention_num_buckets");
        c->rel_buckets = 32;
        if (v && get_int(root, path, "relative_attention_num_buckets", 32, &c->rel_buckets, err, errlen)) return -1;
    }
    if (a->dis && read_deberta(root, path, c, err, errlen)) return -1;
    if (a->shared_layers) {            /* AlbertConfig: num_hidden_groups 1, inner_group_num 1 */
        json_t *v = json_object_get(root, "num_hidden_groups");
        int inner = 1;
        c->layer_groups = 1;
        if (v && get_int(root, path, "num_hidden_groups", 1, &c->layer_groups, err, errlen)) return -1;
        if ((v = json_object_get(root, "inner_group_num")) && get_int(root, path, "inner_group_num", 1, &inner, err, errlen))
            return -1;
        if (inner != 1) {
            snprintf(err, errlen, "%s: inner_group_num: %d is not supported (only 1, every released ALBERT's)", path, inner);
            return -1;
        }
        if (c->layer_groups > c->layers || c->layers % c->layer_groups) {
            snprintf(err, errlen, "%s: num_hidden_groups: %d does not divide %s %d", path, c->layer_groups, a->k_layers,
                     c->layers);
            return -1;
        }
    }
    return 0;
}

static int read_kinds(json_t *root, const char *path, const struct enc_hf_arch *a, struct enc_bert_config *c, char *err,
                      size_t errlen)
{
    char q[96];
    c->ln_eps = a->dis ? 1e-7f : 1e-12f;   /* HF's default (DebertaV2Config's 1e-7), and DistilBERT's fixed value */
    json_t *v = a->k_eps ? json_object_get(root, a->k_eps) : NULL;
    if (v) {
        if (!json_is_number(v) || !(json_number_value(v) > 0) || json_number_value(v) > 1) {
            snprintf(err, errlen, "%s: %s: expected a number in (0, 1]", path, a->k_eps);
            return -1;
        }
        c->ln_eps = (float)json_number_value(v);
    }
    v = json_object_get(root, a->k_act);                      /* HF default "gelu" (ALBERT's "gelu_new") */
    c->act = a->shared_layers ? ENC_ACT_GELU_TANH : ENC_ACT_GELU;
    if (v && json_is_string(v) && !strcmp(json_string_value(v), "gelu")) c->act = ENC_ACT_GELU;
    else if (v && json_is_string(v) && !strcmp(json_string_value(v), "gelu_new")) c->act = ENC_ACT_GELU_TANH;
    else if (v) {
        snprintf(err, errlen, "%s: %s: %s is not supported (only \"gelu\", the exact erf GELU of BERT, and \"gelu_new\", "
                 "its tanh approximation)", path, a->k_act, quoted(v, q, sizeof q));
        return -1;
    }
    v = json_object_get(root, "position_embedding_type");
    if (v && (!json_is_string(v) || strcmp(json_string_value(v), "absolute"))) {
        snprintf(err, errlen, "%s: position_embedding_type: only \"absolute\" is supported", path);
        return -1;
    }
    return 0;
}

int enc_hf_config_read(const char *path, const char *want, struct enc_bert_config *c, const struct enc_hf_arch **arch,
                       char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    *arch = NULL;
    json_t *root = NULL;
    int rc = enc_hf_json_load(path, &root, err, errlen);
    if (rc) return rc;
    rc = SP_EPARSE;
    const struct enc_hf_arch *a = NULL;
    if (!json_is_object(root)) snprintf(err, errlen, "%s: expected a JSON object", path);
    else if ((a = pick(root, path, want, err, errlen)) && !read_sizes(root, path, a, c, err, errlen) &&
             !read_kinds(root, path, a, c, err, errlen)) {
        snprintf(c->model_type, sizeof c->model_type, "%s", a->model_type);
        *arch = a;
        rc = SP_OK;
    }
    json_decref(root);
    return rc;
}

int enc_bert_config_load(const char *path, struct enc_bert_config *cfg, char *err, size_t errlen)
{
    const struct enc_hf_arch *a;
    return enc_hf_config_read(path, "bert", cfg, &a, err, errlen);
}

int enc_hf_config_load(const char *path, struct enc_bert_config *cfg, char *err, size_t errlen)
{
    const struct enc_hf_arch *a;
    return enc_hf_config_read(path, NULL, cfg, &a, err, errlen);
}

/* ---- the decoder families (kind "hf"; enc_decoder.c builds and runs every row) ---- */

static const char *const gpt2_heads[] = { "lm_head.", "score.", NULL };
static const char *const llama_heads[] = { "lm_head.", "score.", NULL };
static const char *const neox_heads[] = { "embed_out.", "score.", NULL };

#define LLAMA_NAMES .emb = "embed_tokens.weight", .layer = "layers.%d.", .ln1 = "input_layernorm", .q = "self_attn.q_proj", \
    .k = "self_attn.k_proj", .v = "self_attn.v_proj", .o = "self_attn.o_proj", .ln2 = "post_attention_layernorm", \
    .ff_gate = "mlp.gate_proj", .ff_up = "mlp.up_proj", .ff_down = "mlp.down_proj", .final_norm = "norm", .heads = llama_heads

/* the table, sorted by model_type. GPT-2's per-layer attention buffers (h.N.attn.bias, .masked_bias)
 * are ignored by enc_decoder.c's rules. */
static const struct enc_dec_arch dec_arches[] = {
    { .model_type = "gemma", .prefix = "model.", .gemma = 1, .k_attn_bias = "attention_bias", LLAMA_NAMES },
    { .model_type = "gpt2", .prefix = "transformer.", .gpt2 = 1,
      .emb = "wte.weight", .pos = "wpe.weight", .layer = "h.%d.", .ln1 = "ln_1", .q = "attn.c_attn", .o = "attn.c_proj",
      .ln2 = "ln_2", .ff_up = "mlp.c_fc", .ff_down = "mlp.c_proj", .final_norm = "ln_f", .heads = gpt2_heads },
    { .model_type = "gpt_neox", .prefix = "gpt_neox.", .neox = 1, .emb = "embed_in.weight", .layer = "layers.%d.",
      .ln1 = "input_layernorm", .q = "attention.query_key_value", .o = "attention.dense", .ln2 = "post_attention_layernorm",
      .ff_up = "mlp.dense_h_to_4h", .ff_down = "mlp.dense_4h_to_h", .final_norm = "final_layer_norm", .heads = neox_heads },
    { .model_type = "llama", .prefix = "model.", .k_attn_bias = "attention_bias", LLAMA_NAMES },
    { .model_type = "mistral", .prefix = "model.", .window = 1, LLAMA_NAMES },
    { .model_type = "opt", .prefix = "model.", .opt = 1, .emb = "decoder.embed_tokens.weight",
      .pos = "decoder.embed_positions.weight", .layer = "decoder.layers.%d.", .ln1 = "self_attn_layer_norm",
      .q = "self_attn.q_proj", .k = "self_attn.k_proj", .v = "self_attn.v_proj", .o = "self_attn.out_proj",
      .ln2 = "final_layer_norm", .ff_up = "fc1", .ff_down = "fc2", .final_norm = "decoder.final_layer_norm", .heads = llama_heads },
    { .model_type = "phi", .prefix = "model.", .phi = 1, .emb = "embed_tokens.weight", .layer = "layers.%d.",
      .ln1 = "input_layernorm", .q = "self_attn.q_proj", .k = "self_attn.k_proj", .v = "self_attn.v_proj",
      .o = "self_attn.dense", .ff_up = "mlp.fc1", .ff_down = "mlp.fc2", .final_norm = "final_layernorm", .heads = llama_heads },
    { .model_type = "qwen2", .prefix = "model.", .qkv_bias = 1, LLAMA_NAMES },
};
#define N_DEC_ARCHES (sizeof dec_arches / sizeof dec_arches[0])

const struct enc_dec_arch *enc_dec_arch_find(const char *model_type)
{
    for (size_t i = 0; i < N_DEC_ARCHES; i++)
        if (!strcmp(dec_arches[i].model_type, model_type)) return &dec_arches[i];
    return NULL;
}

const char *enc_dec_arch_list(char *text, size_t cap)
{
    size_t len = 0;
    text[0] = 0;
    for (size_t i = 0; i < N_DEC_ARCHES && len < cap; i++)
        len += (size_t)snprintf(text + len, cap - len, "%s%s", i ? ", " : "", dec_arches[i].model_type);
    return text;
}

int enc_hf_is_decoder(const char *dir)
{
    char p[4096], err[64];
    json_t *root = NULL;
    snprintf(p, sizeof p, "%s/config.json", dir);
    if (enc_hf_json_load(p, &root, err, sizeof err)) return 0;
    const char *mt = json_string_value(json_object_get(root, "model_type"));
    const int dec = mt && enc_dec_arch_find(mt) != NULL;
    json_decref(root);
    return dec;
}

/* a positive number key, def when absent (or null) */
static int get_num(json_t *root, const char *path, const char *key, double def, double max, double *out, char *err, size_t errlen)
{
    json_t *v = json_object_get(root, key);
    *out = def;
    if (!v || json_is_null(v)) return 0;
    if (!json_is_number(v) || !(json_number_value(v) > 0) || json_number_value(v) > max) {
        snprintf(err, errlen, "%s: %s: expected a number in (0, %g]", path, key, max);
        return -1;
    }
    *out = json_number_value(v);
    return 0;
}

/* GPT2Config's keys (transformers 4.40.2): n_inner null = 4·n_embd; activation_function */
static int read_gpt2(json_t *root, const char *path, struct enc_dec_config *c, char *err, size_t errlen)
{
    char q[96];
    double eps;
    json_t *v;
    if (get_int(root, path, "n_embd", 1, &c->hidden_size, err, errlen) || get_int(root, path, "n_layer", 1, &c->layers, err, errlen) ||
        get_int(root, path, "n_head", 1, &c->heads, err, errlen) || get_int(root, path, "n_positions", 1, &c->max_positions, err, errlen))
        return -1;
    c->intermediate_size = 4 * c->hidden_size;
    if ((v = json_object_get(root, "n_inner")) && !json_is_null(v) &&
        get_int(root, path, "n_inner", 1, &c->intermediate_size, err, errlen))
        return -1;
    if (get_num(root, path, "layer_norm_epsilon", 1e-5, 1, &eps, err, errlen)) return -1;
    c->eps = (float)eps;
    c->act = ENC_ACT_GELU_TANH;
    v = json_object_get(root, "activation_function");
    if (v && json_is_string(v) && !strcmp(json_string_value(v), "gelu")) c->act = ENC_ACT_GELU;
    else if (v && json_is_string(v) && !strcmp(json_string_value(v), "relu")) c->act = ENC_ACT_RELU;
    else if (v && json_is_string(v) && !strcmp(json_string_value(v), "tanh")) c->act = ENC_ACT_TANH;
    else if (v && (!json_is_string(v) || (strcmp(json_string_value(v), "gelu_new") && strcmp(json_string_value(v), "gelu_pytorch_tanh")))) {
        snprintf(err, errlen, "%s: activation_function: %s is not supported (\"gelu_new\", \"gelu_pytorch_tanh\", \"gelu\", "
                 "\"relu\", \"tanh\")", path, quoted(v, q, sizeof q));
        return -1;
    }
    if (get_bool(root, path, "scale_attn_weights", 1, &c->scale_attn, err, errlen) ||
        get_bool(root, path, "scale_attn_by_inverse_layer_idx", 0, &c->scale_inv_layer, err, errlen))
        return -1;
    int cross;
    if (get_bool(root, path, "add_cross_attention", 0, &cross, err, errlen)) return -1;
    if (cross) { snprintf(err, errlen, "%s: add_cross_attention: true is not supported (an encoder-decoder's)", path); return -1; }
    c->kv_heads = c->heads;
    c->attn_bias = c->o_bias = c->mlp_bias = 1;
    c->norm = ENC_DEC_LAYERNORM;
    return 0;
}

/* GPTNeoXConfig's keys (transformers 4.40.2): rotary_pct, rotary_emb_base, use_parallel_residual,
 * attention_bias, hidden_act (gelu, gelu_new, relu); rope_scaling is refused (not done) */
static int read_neox(json_t *root, const char *path, struct enc_dec_config *c, char *err, size_t errlen)
{
    char q[96];
    double x;
    json_t *v;
    if (get_int(root, path, "hidden_size", 1, &c->hidden_size, err, errlen) ||
        get_int(root, path, "num_hidden_layers", 1, &c->layers, err, errlen) ||
        get_int(root, path, "num_attention_heads", 1, &c->heads, err, errlen) ||
        get_int(root, path, "intermediate_size", 1, &c->intermediate_size, err, errlen) ||
        get_int(root, path, "max_position_embeddings", 1, &c->max_positions, err, errlen) ||
        get_bool(root, path, "use_parallel_residual", 1, &c->parallel, err, errlen) ||
        get_bool(root, path, "attention_bias", 1, &c->attn_bias, err, errlen))
        return -1;
    if (c->hidden_size % c->heads) {
        snprintf(err, errlen, "%s: num_attention_heads: %d does not divide hidden_size %d", path, c->heads, c->hidden_size);
        return -1;
    }
    if (get_num(root, path, "rotary_pct", 0.25, 1, &x, err, errlen)) return -1;
    c->rope_rot = (int)(c->hidden_size / c->heads * x);          /* int(head_size * rotary_pct) */
    if (c->rope_rot % 2 || c->rope_rot < 2) {
        snprintf(err, errlen, "%s: rotary_pct: %g of the head size %d gives %d rotated columns (expected an even number >= 2)",
                 path, x, c->hidden_size / c->heads, c->rope_rot);
        return -1;
    }
    if (get_num(root, path, "rotary_emb_base", 10000.0, 1e12, &x, err, errlen)) return -1;
    c->rope_theta = x;
    c->rope = ENC_ROPE_PLAIN;
    c->rope_factor = 1;
    if ((v = json_object_get(root, "rope_scaling")) && !json_is_null(v)) {
        snprintf(err, errlen, "%s: rope_scaling: not supported for gpt_neox yet (only null)", path);
        return -1;
    }
    if (get_num(root, path, "layer_norm_eps", 1e-5, 1, &x, err, errlen)) return -1;
    c->eps = (float)x;
    c->act = ENC_ACT_GELU;
    v = json_object_get(root, "hidden_act");
    if (v && json_is_string(v) && !strcmp(json_string_value(v), "gelu_new")) c->act = ENC_ACT_GELU_TANH;
    else if (v && json_is_string(v) && !strcmp(json_string_value(v), "relu")) c->act = ENC_ACT_RELU;
    else if (v && (!json_is_string(v) || strcmp(json_string_value(v), "gelu"))) {
        snprintf(err, errlen, "%s: hidden_act: %s is not supported (\"gelu\", \"gelu_new\", \"relu\")", path, quoted(v, q, sizeof q));
        return -1;
    }
    c->kv_heads = c->heads;
    c->o_bias = c->attn_bias;
    c->mlp_bias = 1;
    c->norm = ENC_DEC_LAYERNORM;
    c->scale_attn = 1;
    return 0;
}

/* PhiConfig's keys (transformers 4.40.2): num_key_value_heads, partial_rotary_factor, rope_theta,
 * layer_norm_eps, hidden_act; qk_layernorm and rope_scaling are refused (not done) */
static int read_phi(json_t *root, const char *path, struct enc_dec_config *c, char *err, size_t errlen)
{
    char q[96];
    double x;
    json_t *v;
    int qkln;
    if (get_int(root, path, "hidden_size", 1, &c->hidden_size, err, errlen) ||
        get_int(root, path, "num_hidden_layers", 1, &c->layers, err, errlen) ||
        get_int(root, path, "num_attention_heads", 1, &c->heads, err, errlen) ||
        get_int(root, path, "intermediate_size", 1, &c->intermediate_size, err, errlen) ||
        get_int(root, path, "max_position_embeddings", 1, &c->max_positions, err, errlen) ||
        get_bool(root, path, "qk_layernorm", 0, &qkln, err, errlen))
        return -1;
    if (qkln) { snprintf(err, errlen, "%s: qk_layernorm: true is not supported (only false, phi-1/1.5/2's)", path); return -1; }
    if (c->hidden_size % c->heads) {
        snprintf(err, errlen, "%s: num_attention_heads: %d does not divide hidden_size %d", path, c->heads, c->hidden_size);
        return -1;
    }
    c->kv_heads = c->heads;
    if ((v = json_object_get(root, "num_key_value_heads")) && !json_is_null(v) &&
        get_int(root, path, "num_key_value_heads", 1, &c->kv_heads, err, errlen))
        return -1;
    if (c->heads % c->kv_heads) {
        snprintf(err, errlen, "%s: num_key_value_heads: %d does not divide num_attention_heads %d", path, c->kv_heads, c->heads);
        return -1;
    }
    if (get_num(root, path, "partial_rotary_factor", 0.5, 1, &x, err, errlen)) return -1;
    c->rope_rot = (int)(x * (c->hidden_size / c->heads));        /* int(partial_rotary_factor * head_dim) */
    if (c->rope_rot % 2 || c->rope_rot < 2) {
        snprintf(err, errlen, "%s: partial_rotary_factor: %g of the head size %d gives %d rotated columns (expected an even "
                 "number >= 2)", path, x, c->hidden_size / c->heads, c->rope_rot);
        return -1;
    }
    if (get_num(root, path, "rope_theta", 10000.0, 1e12, &x, err, errlen)) return -1;
    c->rope_theta = x;
    c->rope = ENC_ROPE_PLAIN;
    c->rope_factor = 1;
    if ((v = json_object_get(root, "rope_scaling")) && !json_is_null(v)) {
        snprintf(err, errlen, "%s: rope_scaling: not supported for phi yet (only null)", path);
        return -1;
    }
    if (get_num(root, path, "layer_norm_eps", 1e-5, 1, &x, err, errlen)) return -1;
    c->eps = (float)x;
    c->act = ENC_ACT_GELU_TANH;
    v = json_object_get(root, "hidden_act");
    if (v && json_is_string(v) && !strcmp(json_string_value(v), "gelu")) c->act = ENC_ACT_GELU;
    else if (v && json_is_string(v) && !strcmp(json_string_value(v), "relu")) c->act = ENC_ACT_RELU;
    else if (v && (!json_is_string(v) || (strcmp(json_string_value(v), "gelu_new") && strcmp(json_string_value(v), "gelu_pytorch_tanh")))) {
        snprintf(err, errlen, "%s: hidden_act: %s is not supported (\"gelu_new\", \"gelu\", \"relu\")", path, quoted(v, q, sizeof q));
        return -1;
    }
    c->attn_bias = c->o_bias = c->mlp_bias = 1;
    c->parallel = 1;
    c->norm = ENC_DEC_LAYERNORM;
    c->scale_attn = 1;
    return 0;
}

/* OPTConfig's keys (transformers 4.40.2): ffn_dim, activation_function, enable_bias; what synprobe does
 * not run is refused: post-LN (do_layer_norm_before false, opt-350m's), word_embed_proj_dim != hidden_size
 * (project_in/out), LayerNorms without weights */
static int read_opt(json_t *root, const char *path, struct enc_dec_config *c, char *err, size_t errlen)
{
    char q[96];
    json_t *v;
    int before, affine, removed;
    if (get_int(root, path, "hidden_size", 1, &c->hidden_size, err, errlen) ||
        get_int(root, path, "num_hidden_layers", 1, &c->layers, err, errlen) ||
        get_int(root, path, "num_attention_heads", 1, &c->heads, err, errlen) ||
        get_int(root, path, "ffn_dim", 1, &c->intermediate_size, err, errlen) ||
        get_int(root, path, "max_position_embeddings", 1, &c->max_positions, err, errlen))
        return -1;
    if (get_bool(root, path, "do_layer_norm_before", 1, &before, err, errlen) ||
        get_bool(root, path, "layer_norm_elementwise_affine", 1, &affine, err, errlen) ||
        get_bool(root, path, "_remove_final_layer_norm", 0, &removed, err, errlen) ||
        get_bool(root, path, "enable_bias", 1, &c->attn_bias, err, errlen))
        return -1;
    if (!before || !affine || removed) {
        snprintf(err, errlen, "%s: %s: %s is not supported (OPT with pre-LN and affine LayerNorms only)", path,
                 !before ? "do_layer_norm_before" : !affine ? "layer_norm_elementwise_affine" : "_remove_final_layer_norm",
                 !before || !affine ? "false" : "true");
        return -1;
    }
    if ((v = json_object_get(root, "word_embed_proj_dim")) && !json_is_null(v) &&
        (!json_is_integer(v) || json_integer_value(v) != c->hidden_size)) {
        snprintf(err, errlen, "%s: word_embed_proj_dim: only hidden_size (%d) is supported (no project_in/out)", path, c->hidden_size);
        return -1;
    }
    c->act = ENC_ACT_RELU;
    v = json_object_get(root, "activation_function");
    if (v && json_is_string(v) && !strcmp(json_string_value(v), "gelu")) c->act = ENC_ACT_GELU;
    else if (v && json_is_string(v) && !strcmp(json_string_value(v), "gelu_new")) c->act = ENC_ACT_GELU_TANH;
    else if (v && (!json_is_string(v) || strcmp(json_string_value(v), "relu"))) {
        snprintf(err, errlen, "%s: activation_function: %s is not supported (\"relu\", \"gelu\", \"gelu_new\")", path,
                 quoted(v, q, sizeof q));
        return -1;
    }
    c->kv_heads = c->heads;
    c->o_bias = c->mlp_bias = c->attn_bias;
    c->eps = 1e-5f;                    /* nn.LayerNorm's default */
    c->norm = ENC_DEC_LAYERNORM;
    c->scale_attn = 1;
    c->pos_offset = 2;
    return 0;
}

/* LlamaConfig's keys (transformers 4.40.2): num_key_value_heads (default the heads), rms_norm_eps,
 * rope_theta, rope_scaling {"type": "linear" | "dynamic", "factor" > 1}, attention_bias, hidden_act "silu";
 * MistralConfig's sliding_window (default 4096; null: none); Qwen2Config's use_sliding_window (false only) */
static int read_llama(json_t *root, const char *path, const struct enc_dec_arch *a, struct enc_dec_config *c, char *err,
                      size_t errlen)
{
    char q[96];
    double x;
    json_t *v;
    if (get_int(root, path, "hidden_size", 1, &c->hidden_size, err, errlen) ||
        get_int(root, path, "num_hidden_layers", 1, &c->layers, err, errlen) ||
        get_int(root, path, "num_attention_heads", 1, &c->heads, err, errlen) ||
        get_int(root, path, "intermediate_size", 1, &c->intermediate_size, err, errlen) ||
        get_int(root, path, "max_position_embeddings", 1, &c->max_positions, err, errlen))
        return -1;
    c->kv_heads = c->heads;
    if ((v = json_object_get(root, "num_key_value_heads")) && !json_is_null(v) &&
        get_int(root, path, "num_key_value_heads", 1, &c->kv_heads, err, errlen))
        return -1;
    if (c->heads % c->kv_heads) {
        snprintf(err, errlen, "%s: num_key_value_heads: %d does not divide num_attention_heads %d", path, c->kv_heads, c->heads);
        return -1;
    }
    if (get_num(root, path, "rms_norm_eps", 1e-6, 1, &x, err, errlen)) return -1;
    c->eps = (float)x;
    if (get_num(root, path, "rope_theta", 10000.0, 1e12, &x, err, errlen)) return -1;
    c->rope_theta = x;
    if (a->k_attn_bias && get_bool(root, path, a->k_attn_bias, 0, &c->attn_bias, err, errlen)) return -1;
    c->o_bias = c->attn_bias;
    if (a->qkv_bias) { c->attn_bias = 1; c->o_bias = 0; }
    if (a->window) {
        c->window = 4096;
        if ((v = json_object_get(root, "sliding_window")) && json_is_null(v)) c->window = 0;
        else if (v && get_int(root, path, "sliding_window", 1, &c->window, err, errlen)) return -1;
    }
    int usw;
    if (get_bool(root, path, "use_sliding_window", 0, &usw, err, errlen)) return -1;
    if (usw) {
        snprintf(err, errlen, "%s: use_sliding_window: true is not supported (Qwen2's windowed layers; only false, every "
                 "released Qwen2's)", path);
        return -1;
    }
    int mlp_bias;
    if (get_bool(root, path, "mlp_bias", 0, &mlp_bias, err, errlen)) return -1;
    if (mlp_bias) { snprintf(err, errlen, "%s: mlp_bias: true is not supported (transformers 4.40.2's Llama has none)", path); return -1; }
    c->glu = ENC_GATE_SILU;
    if (a->gemma) {                    /* GemmaMLP (4.40.2): hidden_activation, null meaning gelu_pytorch_tanh whatever hidden_act says */
        v = json_object_get(root, "hidden_activation");
        if (v && !json_is_null(v) && (!json_is_string(v) || (strcmp(json_string_value(v), "gelu_pytorch_tanh") &&
                                                              strcmp(json_string_value(v), "gelu_new")))) {
            snprintf(err, errlen, "%s: hidden_activation: %s is not supported (only \"gelu_pytorch_tanh\" or null: the tanh "
                     "GeGLU)", path, quoted(v, q, sizeof q));
            return -1;
        }
        c->glu = ENC_GATE_GELU_TANH;
        c->emb_scale = (float)sqrt((double)c->hidden_size);    /* torch.tensor(hidden_size**0.5) in float32 */
        c->norm_plus_one = 1;
    } else if ((v = json_object_get(root, "hidden_act")) && (!json_is_string(v) || strcmp(json_string_value(v), "silu"))) {
        snprintf(err, errlen, "%s: hidden_act: %s is not supported (only \"silu\": the SwiGLU MLP)", path, quoted(v, q, sizeof q));
        return -1;
    }
    if (a->gemma) {                    /* GemmaConfig's head_dim (default 256) may differ from hidden / heads (gemma-7b) */
        c->head_dim = 256;
        if ((v = json_object_get(root, "head_dim")) && get_int(root, path, "head_dim", 2, &c->head_dim, err, errlen)) return -1;
    } else if ((v = json_object_get(root, "head_dim")) && !json_is_null(v) &&
               (!json_is_integer(v) || json_integer_value(v) * c->heads != c->hidden_size)) {
        snprintf(err, errlen, "%s: head_dim: only hidden_size / num_attention_heads (%d) is supported (transformers 4.40.2's "
                 "%s)", path, c->hidden_size / c->heads, a->model_type);
        return -1;
    }
    c->rope = ENC_ROPE_PLAIN;
    c->rope_factor = 1;
    if ((v = json_object_get(root, "rope_scaling")) && !json_is_null(v)) {
        json_t *t = json_object_get(v, "type"), *f = json_object_get(v, "factor");
        if (!t) t = json_object_get(v, "rope_type");
        const char *ts = json_string_value(t);
        if (!json_is_object(v) || !ts || (strcmp(ts, "linear") && strcmp(ts, "dynamic") && strcmp(ts, "llama3"))) {
            snprintf(err, errlen, "%s: rope_scaling.type: %s is not supported (\"linear\" or \"dynamic\", transformers "
                     "4.40.2's, or \"llama3\")", path, t ? quoted(t, q, sizeof q) : "missing");
            return -1;
        }
        if (!json_is_number(f) || !(json_number_value(f) > (strcmp(ts, "llama3") ? 1 : 0))) {
            snprintf(err, errlen, "%s: rope_scaling.factor: expected a number > %d", path, strcmp(ts, "llama3") ? 1 : 0);
            return -1;
        }
        c->rope = !strcmp(ts, "linear") ? ENC_ROPE_LINEAR : !strcmp(ts, "dynamic") ? ENC_ROPE_DYNAMIC : ENC_ROPE_LLAMA3;
        c->rope_factor = json_number_value(f);
        if (c->rope == ENC_ROPE_LLAMA3) {  /* Llama 3.1's: the three bands of _compute_llama3_parameters */
            static const char *const k3[3] = { "low_freq_factor", "high_freq_factor", "original_max_position_embeddings" };
            double *dst[3] = { &c->rope_low, &c->rope_high, &c->rope_orig };
            for (int i = 0; i < 3; i++) {
                json_t *x3 = json_object_get(v, k3[i]);
                if (!json_is_number(x3) || !(json_number_value(x3) > 0)) {
                    snprintf(err, errlen, "%s: rope_scaling.%s: expected a positive number (rope_type llama3)", path, k3[i]);
                    return -1;
                }
                *dst[i] = json_number_value(x3);
            }
            if (!(c->rope_high > c->rope_low)) {
                snprintf(err, errlen, "%s: rope_scaling.high_freq_factor: must exceed low_freq_factor", path);
                return -1;
            }
        }
    }
    c->norm = ENC_DEC_RMSNORM;
    c->scale_attn = 1;
    return 0;
}

int enc_dec_config_read(const char *path, struct enc_dec_config *c, const struct enc_dec_arch **arch, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    *arch = NULL;
    json_t *root = NULL;
    int rc = enc_hf_json_load(path, &root, err, errlen);
    if (rc) return rc;
    rc = SP_EPARSE;
    const char *mt = json_string_value(json_object_get(root, "model_type"));
    const struct enc_dec_arch *a = mt ? enc_dec_arch_find(mt) : NULL;
    if (!a) {
        char q[96], l1[256], l2[160];
        snprintf(err, errlen, "%s: model_type: %s is not a family synprobe has (encoders: %s; decoders: %s)", path,
                 quoted(json_object_get(root, "model_type"), q, sizeof q), enc_hf_arch_list(l1, sizeof l1),
                 enc_dec_arch_list(l2, sizeof l2));
        goto out;
    }
    if (get_int(root, path, "vocab_size", 1, &c->vocab_size, err, errlen)) goto out;
    if (a->gpt2 ? read_gpt2(root, path, c, err, errlen) : a->opt ? read_opt(root, path, c, err, errlen)
                : a->neox ? read_neox(root, path, c, err, errlen) : a->phi ? read_phi(root, path, c, err, errlen)
                : read_llama(root, path, a, c, err, errlen))
        goto out;
    if (!c->head_dim) c->head_dim = c->hidden_size % c->heads ? 0 : c->hidden_size / c->heads;
    if (c->rope && !c->rope_rot) c->rope_rot = c->head_dim;
    if (!c->head_dim || c->head_dim % 2) {
        snprintf(err, errlen, "%s: the heads (%d) must divide the hidden size %d into even widths", path, c->heads, c->hidden_size);
        goto out;
    }
    if (c->layers > ENC_BERT_MAX_LAYERS || c->heads > ENC_MAX_HEADS) {
        snprintf(err, errlen, "%s: %s: at most %d supported", path, c->layers > ENC_BERT_MAX_LAYERS ? "layers" : "heads",
                 c->layers > ENC_BERT_MAX_LAYERS ? ENC_BERT_MAX_LAYERS : ENC_MAX_HEADS);
        goto out;
    }
    c->bos_id = -1;
    json_t *b = json_object_get(root, "bos_token_id");
    if (json_is_integer(b) && json_integer_value(b) >= 0 && json_integer_value(b) < c->vocab_size) c->bos_id = (int)json_integer_value(b);
    snprintf(c->model_type, sizeof c->model_type, "%s", a->model_type);
    *arch = a;
    rc = SP_OK;
out:
    json_decref(root);
    return rc;
}

static int is_file(const char *dir, const char *name)
{
    char p[4096];
    struct stat st;
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* ---- the tokenizer of a model folder ---- */

/* the SentencePiece model of a folder that has no tokenizer.json, as save_pretrained names it, or NULL */
static const char *spm_file(const char *dir)
{
    static const char *const names[] = { "spiece.model", "sentencepiece.bpe.model", "spm.model" };
    if (is_file(dir, "tokenizer.json")) return NULL;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (is_file(dir, names[i])) return names[i];
    return NULL;
}

struct enc_hf_tok {
    struct enc_tokenizer *wp;  /* vocab.txt (BERT's basic + WordPiece) */
    struct enc_tokjson *tj;    /* or tokenizer.json */
    int max_positions, ptb_unescape;
    int space_words;           /* (running text) words after the first get " " in front (a byte-level BPE) */
    char what[160];
};

/* The tokenizer class transformers' AutoTokenizer builds for the folder: tokenizer_config.json's
 * "tokenizer_class", else config.json's, else the one of config.json's model_type. */
static int tok_class(const char *dir, char *cls, size_t n, char *err, size_t errlen)
{
    static const char *const by_type[][2] = {
        { "bert", "BertTokenizerFast" }, { "camembert", "CamembertTokenizerFast" },
        { "deberta-v2", "DebertaV2TokenizerFast" },
        { "distilbert", "DistilBertTokenizerFast" }, { "electra", "ElectraTokenizerFast" },
        { "roberta", "RobertaTokenizerFast" }, { "xlm-roberta", "XLMRobertaTokenizerFast" },
        { "albert", "AlbertTokenizerFast" }, { "deberta-v2", "DebertaV2TokenizerFast" }, { "t5", "T5TokenizerFast" },
    };
    static const char *const files[] = { "tokenizer_config.json", "config.json" };
    cls[0] = 0;
    for (int f = 0; f < 2 && !cls[0]; f++) {
        if (!is_file(dir, files[f])) continue;
        char p[4096];
        json_t *root = NULL;
        snprintf(p, sizeof p, "%s/%s", dir, files[f]);
        /* integers as reals: save_pretrained writes model_max_length 1000000000000000019884624838656 */
        int rc = json_load_flags(p, JSON_DECODE_INT_AS_REAL, &root, err, errlen);
        if (rc) return rc;
        json_t *v = json_object_get(root, "tokenizer_class");
        if (v && !json_is_null(v) && !json_is_string(v)) {
            snprintf(err, errlen, "%s: tokenizer_class: expected a string (a transformers tokenizer class)", p);
            json_decref(root);
            return SP_EPARSE;
        }
        if (v && !json_is_null(v)) snprintf(cls, n, "%s", json_string_value(v));
        else if (f == 1 && json_is_string(json_object_get(root, "model_type")))
            for (size_t i = 0; i < sizeof by_type / sizeof by_type[0]; i++)
                if (!strcmp(by_type[i][0], json_string_value(json_object_get(root, "model_type"))))
                    snprintf(cls, n, "%s", by_type[i][1]);
        json_decref(root);
    }
    return SP_OK;
}

/* BertTokenizerFast and its kin (transformers 4.40.2, tokenization_*_fast.py) rebuild tokenizer.json's
 * BertNormalizer with tokenizer_config.json's do_lower_case (default true), strip_accents (null) and
 * tokenize_chinese_chars (true; MPNet's leaves it) when one of them differs from the file's
 * (a key the normalizer does not have never differs). *text: the document so changed, or NULL
 * when nothing changes (or the class is another). */
static int bert_case(const char *dir, const char *cls, const char *path, char **text, char *err, size_t errlen)
{
    static const char *const kin[] = { "BertTokenizer", "ConvBertTokenizer", "DistilBertTokenizer", "ElectraTokenizer",
        "FunnelTokenizer", "LayoutLMTokenizer", "LxmertTokenizer", "MobileBertTokenizer", "RealmTokenizer",
        "RoFormerTokenizer", "SqueezeBertTokenizer", "MPNetTokenizer" };
    *text = NULL;
    size_t n = strlen(cls), k = 0;
    if (n > 4 && !strcmp(cls + n - 4, "Fast")) n -= 4;
    while (k < sizeof kin / sizeof kin[0] && (strlen(kin[k]) != n || strncmp(kin[k], cls, n))) k++;
    if (k == sizeof kin / sizeof kin[0]) return SP_OK;
    const int mpnet = !strcmp(kin[k], "MPNetTokenizer");
    json_t *cfg = NULL, *root = NULL, *want[3] = { json_true(), json_null(), json_true() };
    static const char *const cfg_key[3] = { "do_lower_case", "strip_accents", "tokenize_chinese_chars" };
    static const char *const nz_key[3] = { "lowercase", "strip_accents", "handle_chinese_chars" };
    char p[4096];
    int rc = SP_OK;
    snprintf(p, sizeof p, "%s/tokenizer_config.json", dir);
    if (is_file(dir, "tokenizer_config.json")) {
        if ((rc = json_load_flags(p, JSON_DECODE_INT_AS_REAL, &cfg, err, errlen))) goto out;
        for (int i = 0; i < 3; i++) {
            json_t *v = json_object_get(cfg, cfg_key[i]);
            if (!v) continue;
            if (!json_is_boolean(v) && !(i == 1 && json_is_null(v))) {
                snprintf(err, errlen, "%s: %s: expected true or false%s", p, cfg_key[i], i == 1 ? " or null" : "");
                rc = SP_EPARSE;
                goto out;
            }
            want[i] = v;
        }
    }
    if ((rc = json_load_flags(path, 0, &root, err, errlen))) goto out;
    json_t *nz = json_object_get(root, "normalizer");
    int differ = 0;
    for (int i = 0; i < 3 - mpnet && json_is_object(nz); i++) {
        json_t *v = json_object_get(nz, nz_key[i]);
        if (v && !json_equal(v, want[i])) differ = 1;
    }
    if (differ) {
        for (int i = 0; i < 3 - mpnet; i++) json_object_set(nz, nz_key[i], want[i]);
        if (!(*text = json_dumps(root, JSON_COMPACT | JSON_REAL_PRECISION(17)))) {
            snprintf(err, errlen, "%s: out of memory", path);
            rc = SP_ENOMEM;
        }
    }
out:
    json_decref(cfg);
    json_decref(root);
    return rc;
}

/* tokenizer_config.json's do_lower_case: *v 0 or 1, -1 when there is none */
static int cfg_lower_case(const char *dir, int *v, char *err, size_t errlen)
{
    char p[4096];
    json_t *cfg = NULL;
    *v = -1;
    if (!is_file(dir, "tokenizer_config.json")) return SP_OK;
    snprintf(p, sizeof p, "%s/tokenizer_config.json", dir);
    int rc = json_load_flags(p, JSON_DECODE_INT_AS_REAL, &cfg, err, errlen);
    if (rc) return rc;
    json_t *x = json_object_get(cfg, "do_lower_case");
    if (x && !json_is_boolean(x)) {
        snprintf(err, errlen, "%s: do_lower_case: expected true or false", p);
        rc = SP_EPARSE;
    } else if (x) *v = json_is_true(x);
    json_decref(cfg);
    return rc;
}

/* Running text's leading-space rule (enc_hf_tokenizer_open_text): the piece of the word "a" alone
 * starts with a space mark ("▁" of SentencePiece's Metaspace/Prepend, "Ġ" of a ByteLevel with
 * add_prefix_space) when the tokenizer gives every word its space itself; otherwise (a byte-level
 * BPE as GPT-2's) a word after the first needs the " " running text has before it. */
static int needs_space(const struct enc_tokjson *tj)
{
    struct enc_pieces p = { 0 };
    char err[SP_ERRLEN];
    int space = 0;
    if (enc_tokjson_word(tj, "a", 1, &p, err, sizeof err) >= 1 && p.id[0] != enc_tokjson_unk_id(tj)) {
        const char *pc = enc_tokjson_piece(tj, p.id[0]);
        space = pc && strncmp(pc, "\xe2\x96\x81", 3) && strncmp(pc, "\xc4\xa0", 2) && pc[0] != ' ';
    }
    enc_pieces_free(&p);
    return space;
}

static int tok_open(const char *dir, int prefer_json, int running, const struct enc_tok_opts *opts, struct enc_hf_tok **out,
                    char *err, size_t errlen);

int enc_hf_tokenizer_open(const char *dir, int prefer_json, const struct enc_tok_opts *opts, struct enc_hf_tok **out,
                          char *err, size_t errlen)
{
    return tok_open(dir, prefer_json, 0, opts, out, err, errlen);
}

int enc_hf_tokenizer_open_text(const char *dir, const struct enc_tok_opts *opts, struct enc_hf_tok **out, char *err, size_t errlen)
{
    return tok_open(dir, 1, 1, opts, out, err, errlen);
}

static int tok_open(const char *dir, int prefer_json, int running, const struct enc_tok_opts *opts, struct enc_hf_tok **out,
                    char *err, size_t errlen)
{
    *out = NULL;
    struct enc_hf_tok *t = sp_xcalloc(1, sizeof *t);
    t->max_positions = opts->max_positions;
    t->ptb_unescape = opts->ptb_unescape;
    char path[4096];
    int rc;
    if (is_file(dir, "tokenizer.json") && (prefer_json || !is_file(dir, "vocab.txt"))) {
        if (opts->mode == ENC_TOK_WORDPIECE_ONLY) {
            snprintf(err, errlen, "%s: tokenizer_mode \"wordpiece-only\" applies to a vocab.txt tokenizer; this folder's "
                     "tokenizer.json says how it splits", dir);
            free(t);
            return SP_EUSAGE;
        }
        char cls[128];
        if ((rc = tok_class(dir, cls, sizeof cls, err, errlen))) { free(t); return rc; }
        /* the byte-level classes take words only with add_prefix_space=True (tokjson.h) */
        struct enc_tokjson_opts to = { !running && enc_tokjson_class_prefix_space(cls) ? ENC_TOKJSON_PREFIX_ON : ENC_TOKJSON_PREFIX_FILE };
        snprintf(path, sizeof path, "%s/tokenizer.json", dir);
        char *text;
        if ((rc = bert_case(dir, cls, path, &text, err, errlen))) { free(t); return rc; }
        t->tj = text ? enc_tokjson_load_mem(text, strlen(text), path, &to, err, errlen) : enc_tokjson_load(path, &to, err, errlen);
        const int recased = text != NULL;
        free(text);
        if (!t->tj) { free(t); return SP_EPARSE; }
        t->space_words = running && needs_space(t->tj);
        snprintf(t->what, sizeof t->what, "tokenizer.json (%s%s%s%s)", cls[0] ? cls : "PreTrainedTokenizerFast",
                 to.prefix_space == ENC_TOKJSON_PREFIX_ON ? ", add_prefix_space=True" : "",
                 recased ? ", BertNormalizer from tokenizer_config.json" : "",
                 running ? (t->space_words ? ", running text: a space before each word after the first" : ", running text") : "");
        *out = t;
        return SP_OK;
    }
    if (running) {                     /* a decoder: its tokenizer.json only (no converter for LlamaTokenizer's .model yet) */
        snprintf(err, errlen, "%s/tokenizer.json: cannot open (a decoder's tokenizer is read from tokenizer.json%s; "
                 "AutoTokenizer.from_pretrained(DIR).save_pretrained(DIR) writes it)", dir,
                 is_file(dir, "tokenizer.model") ? ", and tokenizer.model alone is not converted" : "");
        free(t);
        return SP_EIO;
    }
    /* no tokenizer.json: a SentencePiece model converted as AutoTokenizer does (spm.h) */
    const char *spm = spm_file(dir);
    if (spm && (prefer_json || !is_file(dir, "vocab.txt"))) {
        char cls[128];
        if ((rc = tok_class(dir, cls, sizeof cls, err, errlen))) { free(t); return rc; }
        const char *want = enc_spm_class_file(cls);
        if (!want || !is_file(dir, want)) {
            if (want) snprintf(err, errlen, "%s: tokenizer class \"%s\" reads %s; the folder has %s", dir, cls, want, spm);
            else snprintf(err, errlen, "%s: %s is a SentencePiece model and tokenizer class \"%s\" has no converter here "
                          "(supported: %s; or add the folder's tokenizer.json)", dir, spm, cls[0] ? cls : "(none)", ENC_SPM_CLASSES);
            free(t);
            return SP_EPARSE;
        }
        if (opts->mode == ENC_TOK_WORDPIECE_ONLY) {
            snprintf(err, errlen, "%s: tokenizer_mode \"wordpiece-only\" applies to a vocab.txt tokenizer; this folder's "
                     "%s says how it splits", dir, want);
            free(t);
            return SP_EUSAGE;
        }
        if (!(t->tj = enc_spm_load(dir, cls, err, errlen))) { free(t); return SP_EPARSE; }
        snprintf(t->what, sizeof t->what, "%s (%s, converted)", want, cls);
        *out = t;
        return SP_OK;
    }
    /* kind hf: transformers converts vocab.txt with tokenizer_config.json's do_lower_case */
    struct enc_tok_opts vo = *opts;
    int cfg_case = -1;
    if (prefer_json && (rc = cfg_lower_case(dir, &cfg_case, err, errlen))) { free(t); return rc; }
    if (cfg_case >= 0) vo.lower_case = cfg_case;
    snprintf(path, sizeof path, "%s/vocab.txt", dir);
    if ((rc = enc_tok_open(path, &vo, &t->wp, err, errlen)) != SP_OK) { free(t); return rc; }
    snprintf(t->what, sizeof t->what, "vocab.txt%s", cfg_case < 0 ? "" : cfg_case ? " (do_lower_case=True)" : " (do_lower_case=False)");
    *out = t;
    return SP_OK;
}

void enc_hf_tok_close(struct enc_hf_tok *t)
{
    if (!t) return;
    enc_tok_close(t->wp);
    enc_tokjson_free(t->tj);
    free(t);
}

const char *enc_hf_tok_what(const struct enc_hf_tok *t) { return t->what; }

int enc_hf_tok_sentence(const struct enc_hf_tok *t, const char *const *words, int n, struct enc_tok_sentence *s,
                        char *err, size_t errlen)
{
    if (t->wp) return enc_tok_sentence(t->wp, words, n, s);
    const char **w = (const char **)words;
    char **unesc = NULL;
    if ((t->ptb_unescape || t->space_words) && n > 0) {   /* M1.2, as the vocab.txt tokenizer does it; running text's spaces */
        unesc = sp_xcalloc((size_t)n, sizeof *unesc);
        w = sp_xcalloc((size_t)n, sizeof *w);
        for (int i = 0; i < n; i++) {
            size_t len = strlen(words[i]);
            char *u = t->ptb_unescape ? enc_tok_ptb_unescape(words[i], len, &len) : sp_xstrdup(words[i]);
            if (t->space_words && i > 0) {
                char *sp = sp_xmalloc(len + 2);
                sp[0] = ' ';
                memcpy(sp + 1, u, len + 1);
                free(u);
                u = sp;
            }
            w[i] = unesc[i] = u;
        }
    }
    int T = enc_tokjson_sentence(t->tj, w, n, s, err, errlen);
    if (unesc) {
        for (int i = 0; i < n; i++) free(unesc[i]);
        free(unesc);
        free(w);
    }
    if (T >= 0) s->too_long = T > t->max_positions;
    return T;
}

/* ---- the files of a model folder that are its weights ---- */

/* the shard files model.safetensors.index.json names (sorted, each once), appended to v; the
 * index itself is hashed, so a malformed one still changes the fingerprint (opening says what is wrong) */
static void shard_files(const char *dir, const char ***v, int *n)
{
    char p[4096], err[256];
    json_t *root = NULL;
    snprintf(p, sizeof p, "%s/model.safetensors.index.json", dir);
    if (enc_hf_json_load(p, &root, err, sizeof err)) return;
    const char *key;
    json_t *val;
    const int first = *n;
    json_object_foreach(json_object_get(root, "weight_map"), key, val) {
        const char *f = json_string_value(val);
        if (!f || strchr(f, '/') || !is_file(dir, f)) continue;
        int k = first;
        while (k < *n && strcmp((*v)[k], f) < 0) k++;
        if (k < *n && !strcmp((*v)[k], f)) continue;
        *v = sp_xrealloc(*v, sizeof **v * (size_t)(*n + 2));
        memmove(*v + k + 1, *v + k, sizeof **v * (size_t)(*n - k));
        (*v)[k] = sp_xstrdup(f);
        (*n)++;
    }
    json_decref(root);
}

/* The lists handed out, kept for the life of the process (callers hold them in enc_caps): one per
 * distinct list, so a folder asked about again costs nothing new. */
static pthread_mutex_t lists_lock = PTHREAD_MUTEX_INITIALIZER;
static struct hf_list { struct hf_list *next; const char **files; } *lists;

static const char *const *intern(const char **v, int n)
{
    pthread_mutex_lock(&lists_lock);
    struct hf_list *l;
    for (l = lists; l; l = l->next) {
        int i = 0;
        while (i < n && l->files[i] && !strcmp(l->files[i], v[i])) i++;
        if (i == n && !l->files[n]) break;
    }
    if (!l) {
        l = sp_xcalloc(1, sizeof *l);
        l->files = sp_xcalloc((size_t)n + 1, sizeof *l->files);
        for (int i = 0; i < n; i++) l->files[i] = sp_xstrdup(v[i]);
        l->next = lists;
        lists = l;
    }
    pthread_mutex_unlock(&lists_lock);
    return l->files;
}

const char *const *enc_hf_model_files(const char *dir)
{
    const char **v = sp_xcalloc(2, sizeof *v);
    int n = 0, own = 0;
    v[n++] = "config.json";
    /* a folder with pytorch_model.bin only is hashed as it is, so that opening it says how to convert it */
    if (is_file(dir, "model.safetensors") || (!is_file(dir, "model.safetensors.index.json") && !is_file(dir, "pytorch_model.bin")))
        v[n++] = "model.safetensors";
    else if (is_file(dir, "model.safetensors.index.json")) {
        v[n++] = "model.safetensors.index.json";
        own = n;
        shard_files(dir, &v, &n);
    } else v[n++] = "pytorch_model.bin";
    const int shards_end = n;
    /* the tokenizer's files, as enc_hf_tokenizer_open reads them for kind hf: tokenizer.json (with
     * tokenizer_config.json for its class) where there is one, else a SentencePiece model (with
     * tokenizer_config.json and special_tokens_map.json; vocab.txt too where there is one, which
     * kind bert reads first), else vocab.txt */
    const int json = is_file(dir, "tokenizer.json"), dec = enc_hf_is_decoder(dir);
    const char *spm = dec ? NULL : spm_file(dir);
    v = sp_xrealloc(v, sizeof *v * (size_t)(n + 4));
    /* a decoder reads tokenizer.json only: a folder without one is refused when it opens, saying so */
    if (json || !dec) v[n++] = json ? "tokenizer.json" : spm ? spm : "vocab.txt";
    if (spm && is_file(dir, "vocab.txt")) v[n++] = "vocab.txt";
    if ((json || spm) && is_file(dir, "tokenizer_config.json")) v[n++] = "tokenizer_config.json";
    if (spm && is_file(dir, "special_tokens_map.json")) v[n++] = "special_tokens_map.json";
    const char *const *r = intern(v, n);
    for (int i = own; own && i < shards_end; i++) free((char *)v[i]);
    free(v);
    return r;
}
