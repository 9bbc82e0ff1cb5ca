/* tests/unit/encoder_family.c — the model-family interface (encoder/README.md "Model families",
 * "Batch budgets"):
 *   - every kind has a family, and the capabilities of a config (enc_config_caps) are the ones
 *     encoder/README.md's family table gives (input, layer outputs, model files);
 *   - enc_config_layers reads L from a bert model's config.json without opening it, and refuses
 *     a config without layer outputs;
 *   - kind hf: the family from the folder's config.json (tests/data/hf), the capabilities of an
 *     open one (attention, not causal, max positions; RoBERTa's less pad_token_id + 1);
 *   - kind hf on a decoder folder (tests/data/hf-dec): the decoder family, causal before and after
 *     opening, L from its config.json, GPT-2's learned positions as max_positions (Llama's RoPE:
 *     none), the pooling defaults of a decoder (a word's last piece) and the config's options;
 *   - an open SAN-family encoder's enc_caps agree with the single getters and with the values of
 *     docs/spec/structures.md §5 worked out by hand (MS-SAN 2·d, SG-Net layers + 1 maps, PSAN T maps, the
 *     structures each config needs), and enc_forward_layers is refused;
 *   - the forward step (enc_set_group_tokens) is the products' row count: a batch of more than
 *     4096 tokens with the step at 8192 is one step of all its tokens (the workspace message names
 *     them), a step of 100 tokens is at most 100; and the step size changes no bit of any output
 *     (docs/reproducibility.md). */
#include "t_harness.h"
#include "encoder_fixture.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char err[4 * SP_ERRLEN];

static void open_config(const char *json, struct enc_config *cfg, enc_t **e)
{
    *e = NULL;
    if (enc_config_parse(json, "t.json", cfg, err, sizeof err) || enc_open(cfg, ENC_DEVICE_CPU, NULL, 0, e, err, sizeof err))
        fprintf(stderr, "%s: %s\n", json, err);
}

/* ---- capabilities from the config alone ---- */

static void test_config_caps(void)
{
    static const char *const san_kinds[] = { "san", "ms-san", "sg-net", "psan", "ssan" };
    for (size_t i = 0; i < sizeof san_kinds / sizeof san_kinds[0]; i++) {
        char json[128];
        struct enc_config cfg;
        struct enc_caps caps;
        snprintf(json, sizeof json, "{\"kind\":\"%s\"}", san_kinds[i]);
        T_EQ_INT(enc_config_parse(json, "t.json", &cfg, err, sizeof err), SP_OK);
        memset(&caps, 0x5a, sizeof caps);                      /* every field is written */
        enc_config_caps(&cfg, &caps);
        T_EQ_INT(caps.input, ENC_INPUT_ROWS);
        T_EQ_INT(caps.layer_outputs, 0);
        T_CHECK(caps.model_dir == NULL && caps.model_files == NULL);
        T_EQ_INT(caps.layers, 0);
        int L = -1;
        T_EQ_INT(enc_config_layers(&cfg, &L, err, sizeof err), SP_EUSAGE);
        T_EQ_INT(L, 0);
    }
    struct enc_config cfg;
    struct enc_caps caps;
    T_EQ_INT(enc_config_parse("{\"kind\":\"bert\",\"model\":\"/nowhere/minilm\"}", "t.json", &cfg, err, sizeof err), SP_OK);
    enc_config_caps(&cfg, &caps);                              /* no file is read */
    T_EQ_INT(caps.input, ENC_INPUT_WORDS);
    T_EQ_INT(caps.layer_outputs, 1);
    T_EQ_STR(caps.model_dir, "/nowhere/minilm");
    T_CHECK(caps.model_files && caps.model_files[0] && caps.model_files[1] && caps.model_files[2] && !caps.model_files[3]);
    if (caps.model_files) {
        T_EQ_STR(caps.model_files[0], "config.json");
        T_EQ_STR(caps.model_files[1], "model.safetensors");
        T_EQ_STR(caps.model_files[2], "vocab.txt");
    }
    int L = -1;
    T_CHECK(enc_config_layers(&cfg, &L, err, sizeof err) != SP_OK);     /* no config.json there */
    T_CHECK(strstr(err, "/nowhere/minilm/config.json") != NULL);
}

/* L from config.json alone (a job file's "layers": "all") */
static void test_config_layers(void)
{
    char dir[] = "/tmp/sp_family_XXXXXX", path[64], json[1200];
    if (!mkdtemp(dir)) { perror("mkdtemp"); T_CHECK(!"mkdtemp"); return; }
    snprintf(path, sizeof path, "%s/config.json", dir);
    FILE *f = fopen(path, "w");
    T_CHECK(f != NULL);
    if (!f) return;
    fputs("{\"vocab_size\": 7, \"hidden_size\": 4, \"num_hidden_layers\": 3, \"num_attention_heads\": 2,"
          " \"intermediate_size\": 8, \"max_position_embeddings\": 8, \"type_vocab_size\": 2}", f);
    fclose(f);
    struct enc_config cfg;
    snprintf(json, sizeof json, "{\"kind\":\"bert\",\"model\":\"%s\"}", dir);
    T_EQ_INT(enc_config_parse(json, "t.json", &cfg, err, sizeof err), SP_OK);
    int L = -1;
    T_EQ_INT(enc_config_layers(&cfg, &L, err, sizeof err), SP_OK);
    T_EQ_INT(L, 3);
    unlink(path);
    rmdir(dir);
}

/* kind hf: the folder's family from config.json (tests/data/hf, run from the repository root);
 * the capabilities the rest of the program asks instead of the kind */
static void test_hf_caps(void)
{
    struct enc_config cfg;
    int L = -1;
    T_EQ_INT(enc_config_parse("{\"kind\":\"hf\",\"model\":\"tests/data/hf/roberta\"}", "t.json", &cfg, err, sizeof err), SP_OK);
    T_EQ_INT(enc_config_layers(&cfg, &L, err, sizeof err), SP_OK);
    T_EQ_INT(L, 2);
    T_EQ_INT(enc_config_parse("{\"kind\":\"bert\",\"model\":\"tests/data/hf/roberta\"}", "t.json", &cfg, err, sizeof err), SP_OK);
    T_CHECK(enc_config_layers(&cfg, &L, err, sizeof err) != SP_OK);     /* kind bert: BertModel folders only */
    T_CHECK(strstr(err, "model_type: \"roberta\" is not supported") != NULL);
    static const struct { const char *dir; int maxpos; } f[] = {
        { "tests/data/hf/distilbert", 64 }, { "tests/data/hf/electra", 64 }, { "tests/data/hf/bert", 64 },
    };
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
        char json[256];
        snprintf(json, sizeof json, "{\"kind\":\"hf\",\"model\":\"%s\"}", f[i].dir);
        enc_t *e;
        open_config(json, &cfg, &e);
        T_CHECK(e != NULL);
        if (!e) continue;
        struct enc_caps caps;
        enc_caps(e, &caps);
        T_EQ_INT(caps.input, ENC_INPUT_WORDS);
        T_EQ_INT(caps.layer_outputs, 1);
        T_EQ_INT(caps.attention, 1);
        T_EQ_INT(caps.causal, 0);
        T_EQ_INT(caps.max_positions, f[i].maxpos);
        T_EQ_INT(caps.layers, 2);
        T_EQ_INT(caps.dim, 32);
        T_EQ_INT(caps.tok_dim, 32);
        T_EQ_INT(caps.attn_layers, 2);
        T_EQ_STR(caps.model_files[2], "vocab.txt");
        enc_close(e);
    }
    /* RoBERTa's positions start at pad_token_id + 1: 64 - 2 pieces (read without opening) */
    struct enc_bert_config bc;
    T_EQ_INT(enc_hf_config_load("tests/data/hf/roberta/config.json", &bc, err, sizeof err), SP_OK);
    T_EQ_INT(bc.max_pieces, 62);
    T_EQ_INT(bc.pad_positions, 1);
    T_EQ_INT(enc_hf_config_load("tests/data/hf/electra/config.json", &bc, err, sizeof err), SP_OK);
    T_EQ_INT(bc.embedding_size, 24);
    T_EQ_INT(bc.hidden_size, 32);
    T_EQ_INT(enc_hf_config_load("tests/data/hf/distilbert/config.json", &bc, err, sizeof err), SP_OK);
    T_EQ_INT(bc.type_vocab_size, 0);
    T_EQ_STR(bc.model_type, "distilbert");
}

/* kind hf on a decoder LM's folder: causal, its layers, its positions */
static void test_decoder_caps(void)
{
    static const struct { const char *dir; int maxpos; } f[] = { { "tests/data/hf-dec/gpt2", 64 }, { "tests/data/hf-dec/llama", 0 } };
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
        char json[256];
        struct enc_config cfg;
        struct enc_caps caps;
        int L = -1;
        snprintf(json, sizeof json, "{\"kind\":\"hf\",\"model\":\"%s\",\"stream\":\"residual\"}", f[i].dir);
        T_EQ_INT(enc_config_parse(json, "t.json", &cfg, err, sizeof err), SP_OK);
        T_EQ_INT(cfg.dec_stream, ENC_STREAM_RESIDUAL);
        T_EQ_INT(cfg.add_bos, -1);
        enc_config_caps(&cfg, &caps);
        T_EQ_INT(caps.causal, 1);
        T_EQ_INT(caps.layer_outputs, 1);
        T_EQ_INT(enc_config_layers(&cfg, &L, err, sizeof err), SP_OK);
        T_EQ_INT(L, 2);
        enc_t *e;
        open_config(json, &cfg, &e);
        T_CHECK(e != NULL);
        if (!e) continue;
        enc_caps(e, &caps);
        T_EQ_INT(caps.input, ENC_INPUT_WORDS);
        T_EQ_INT(caps.attention, 1);
        T_EQ_INT(caps.causal, 1);
        T_EQ_INT(caps.max_positions, f[i].maxpos);
        T_EQ_INT(caps.layers, 2);
        T_EQ_INT(caps.dim, 32);
        T_EQ_INT(caps.attn_layers, 2);
        T_EQ_INT(enc_get_config(e)->word_pool, ENC_WORD_POOL_LAST);   /* a decoder's default */
        enc_close(e);
    }
    struct enc_config cfg;
    T_CHECK(enc_config_parse("{\"kind\":\"hf\",\"model\":\"x\",\"stream\":\"pre-norm\"}", "t.json", &cfg, err, sizeof err) != SP_OK);
    T_CHECK(strstr(err, "stream: expected \"hidden-states\", \"residual\" or \"post-norm\"") != NULL);
    T_EQ_INT(enc_config_parse("{\"kind\":\"hf\",\"model\":\"x\",\"word_pool\":\"mean\",\"sent_pool\":\"last\",\"add_bos\":false}",
                              "t.json", &cfg, err, sizeof err), SP_OK);
    T_EQ_INT(cfg.word_pool_set, 1);
    T_EQ_INT(cfg.sent_pool, ENC_SENT_POOL_LAST);
    T_EQ_INT(cfg.add_bos, 0);
}

/* ---- capabilities of an open SAN-family encoder ---- */

static void test_open_caps(void)
{
    static const struct { const char *json; int dim, attn; unsigned needs; } c[] = {
        { "{\"kind\":\"san\",\"d_model\":32,\"heads\":4,\"layers\":2,\"d_ff\":48,\"seed\":3}", 32, 2, 0 },
        { "{\"kind\":\"san\",\"d_model\":32,\"heads\":4,\"layers\":2,\"d_ff\":48,\"position\":\"struct\",\"rel_pos\":\"struct\",\"seed\":3}",
          32, 2, ENC_NEED_DEPTH | ENC_NEED_REL },
        { "{\"kind\":\"ms-san\",\"d_model\":24,\"heads\":4,\"d_ff\":24,\"distances\":[\"word\",\"dep\"],\"seed\":3}", 48, 1, ENC_NEED_DIST },
        { "{\"kind\":\"ms-san\",\"d_model\":24,\"heads\":4,\"d_ff\":24,\"distances\":[\"word\",\"none\"],\"seed\":3}", 48, 1, 0 },
        { "{\"kind\":\"sg-net\",\"d_model\":16,\"heads\":2,\"layers\":2,\"d_ff\":32,\"seed\":3}", 16, 3, ENC_NEED_ANC },
        { "{\"kind\":\"psan\",\"d_model\":16,\"levels\":2,\"seed\":3}", 16, 2, ENC_NEED_PID },
        { "{\"kind\":\"ssan\",\"d_model\":16,\"heads\":2,\"layers\":3,\"d_ff\":32,\"seed\":3}", 16, 3, 0 },
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        struct enc_config cfg;
        enc_t *e;
        open_config(c[i].json, &cfg, &e);
        T_CHECK(e != NULL);
        if (!e) continue;
        struct enc_caps caps;
        enc_caps(e, &caps);
        T_EQ_INT(caps.input, ENC_INPUT_ROWS);
        T_EQ_INT(caps.layer_outputs, 0);
        T_EQ_INT(caps.dim, c[i].dim);
        T_EQ_INT(caps.tok_dim, cfg.d_model);
        T_EQ_INT(caps.attn_layers, c[i].attn);
        T_EQ_INT(caps.needs, c[i].needs);
        T_EQ_INT(enc_dim(e), caps.dim);
        T_EQ_INT(enc_attn_layers(e), caps.attn_layers);
        T_EQ_INT(enc_needs(e), caps.needs);
        T_EQ_INT(enc_hidden_layers(e), 0);
        const char *w[1] = { "word" };
        T_EQ_INT(enc_fits(e, w, 1), 1);
        struct fx_sent f;
        static const int one[1] = { -1 };
        fx_make(&f, 1, one, cfg.d_input, 9, cfg.levels);
        float sent[64];
        struct enc_batch in = { 1, &f.s, NULL, 0, 0 };
        struct enc_output out = { sent, NULL, NULL, -1 };
        int layer = 0;
        T_EQ_INT(enc_forward_layers(e, &in, 1, &layer, &out, NULL, err, sizeof err), SP_EUSAGE);
        T_CHECK(strstr(err, "several layers") != NULL);
        fx_free(&f);
        enc_close(e);
    }
}

/* ---- the forward step ---- */

#define NS 120                 /* sentences of 10..58 words: 4,000-odd tokens, more than 4096 with the chain */

struct outs { float *sent, **tok, **attn; };

static void outs_init(struct outs *o, enc_t *e, const struct enc_sentence *s)
{
    o->sent = sp_xcalloc((size_t)NS * enc_dim(e), sizeof(float));
    o->tok = sp_xcalloc(NS, sizeof *o->tok);
    o->attn = sp_xcalloc(NS, sizeof *o->attn);
    for (int k = 0; k < NS; k++) {
        o->tok[k] = sp_xcalloc((size_t)s[k].n * enc_tok_dim(e), sizeof(float));
        o->attn[k] = sp_xcalloc((size_t)s[k].n * s[k].n, sizeof(float));
    }
}

static void outs_free(struct outs *o)
{
    for (int k = 0; k < NS; k++) { free(o->tok[k]); free(o->attn[k]); }
    free(o->tok); free(o->attn); free(o->sent);
}

static int outs_same(enc_t *e, const struct enc_sentence *s, const struct outs *a, const struct outs *b)
{
    if (memcmp(a->sent, b->sent, sizeof(float) * (size_t)NS * enc_dim(e))) return 0;
    for (int k = 0; k < NS; k++)
        if (memcmp(a->tok[k], b->tok[k], sizeof(float) * (size_t)s[k].n * enc_tok_dim(e)) ||
            memcmp(a->attn[k], b->attn[k], sizeof(float) * (size_t)s[k].n * s[k].n)) return 0;
    return 1;
}

static int run(enc_t *e, const struct enc_sentence *s, int group, struct outs *o)
{
    enc_set_group_tokens(e, group);
    struct enc_batch in = { NS, s, NULL, 0, 0 };
    struct enc_output out = { o->sent, o->tok, o->attn, -1 };
    return enc_forward(e, &in, &out, err, sizeof err);
}

/* The tokens of the first step, from the workspace-limit message ("encoder: N tokens need ...")
 * of a fresh handle whose limit nothing fits in. */
static long first_step_tokens(const char *json, const struct enc_sentence *s, int group)
{
    struct enc_config cfg;
    enc_t *e;
    open_config(json, &cfg, &e);
    if (!e) return -1;
    enc_set_workspace_limit(e, 1);
    struct outs o;
    outs_init(&o, e, s);
    long n = -1;
    if (run(e, s, group, &o) == SP_ENOMEM && !strncmp(err, "encoder: ", 9)) n = strtol(err + 9, NULL, 10);
    outs_free(&o);
    enc_close(e);
    return n;
}

static void test_step(void)
{
    static const char *const configs[] = {
        "{\"kind\":\"san\",\"d_model\":16,\"heads\":2,\"layers\":1,\"d_ff\":24,\"position\":\"seq+struct\",\"rel_pos\":\"struct\",\"seed\":7}",
        "{\"kind\":\"ms-san\",\"d_model\":16,\"heads\":4,\"d_ff\":16,\"seed\":7}",
        "{\"kind\":\"sg-net\",\"d_model\":16,\"heads\":2,\"layers\":1,\"d_ff\":24,\"seed\":7}",
        "{\"kind\":\"psan\",\"d_model\":16,\"seed\":7}",
        "{\"kind\":\"ssan\",\"d_model\":16,\"heads\":2,\"layers\":2,\"d_ff\":24,\"seed\":7}",
    };
    struct fx_sent *f = sp_xcalloc(NS, sizeof *f);
    struct enc_sentence *s = sp_xcalloc(NS, sizeof *s);
    int head[64];
    long total = 0;
    for (int k = 0; k < NS; k++) {
        int n = k == 0 ? 64 : 10 + (k * 13) % 49;
        for (int i = 0; i < n; i++) head[i] = i - 1;             /* a chain */
        fx_make(&f[k], n, head, 16, 500 + (uint64_t)k, 3);
        for (int t = 0; t < 3; t++)                              /* contiguous phrase ids */
            for (int i = 0; i < n; i++) f[k].pid[t * n + i] = (int32_t)((long)i * (t + 2) / n);
        s[k] = f[k].s;
        total += n;
    }
    T_CHECK(total > 4096);
    for (size_t c = 0; c < sizeof configs / sizeof configs[0]; c++) {
        /* the step is what the caller set: all the batch's tokens at 8192, at most 100 at 100 */
        T_EQ_INT(first_step_tokens(configs[c], s, 8192), total);
        long small = first_step_tokens(configs[c], s, 100);
        T_CHECK(small > 0 && small <= 100);
        T_EQ_INT(first_step_tokens(configs[c], s, 1), s[0].n);   /* a longer sentence is a step alone */
        /* and no bit depends on it */
        struct enc_config cfg;
        enc_t *e;
        open_config(configs[c], &cfg, &e);
        T_CHECK(e != NULL);
        if (!e) continue;
        struct outs ref, got;
        outs_init(&ref, e, s);
        outs_init(&got, e, s);
        T_EQ_INT(run(e, s, ENC_GROUP_TOKENS, &ref), SP_OK);
        static const int steps[] = { 1, 57, 1000, 8192, 1 << 20 };
        for (size_t k = 0; k < sizeof steps / sizeof steps[0]; k++) {
            for (int b = 0; b < NS; b++) memset(got.tok[b], 0xff, sizeof(float) * (size_t)s[b].n * enc_tok_dim(e));
            T_EQ_INT(run(e, s, steps[k], &got), SP_OK);
            if (!outs_same(e, s, &ref, &got))
                fprintf(stderr, "# %s: step %d tokens: outputs differ from step %d\n", configs[c], steps[k], ENC_GROUP_TOKENS);
            T_CHECK(outs_same(e, s, &ref, &got));
        }
        outs_free(&ref);
        outs_free(&got);
        enc_close(e);
    }
    for (int k = 0; k < NS; k++) fx_free(&f[k]);
    free(f);
    free(s);
}

int main(void)
{
    test_config_caps();
    test_config_layers();
    test_hf_caps();
    test_decoder_caps();
    test_open_caps();
    test_step();
    return T_DONE();
}
