/* encoder/enc_api.c — the public encoder entry points (encoder.h), the same for every model
 * family: they find the family of the config's kind in the table below and call its slots
 * (struct enc_family, encoder_int.h). Nothing here knows a kind; adding a family is its file
 * and one row of `families` (encoder/README.md "Model families"). */
#include "encoder/encoder_int.h"

#include <string.h>
#include <sys/stat.h>

static const struct enc_family *const families[] = {
    &enc_san_family,           /* enc_san.c: san, ms-san, sg-net, psan, ssan */
    &enc_decoder_family,       /* enc_decoder.c: hf, a decoder LM's folder (it claims those) */
    &enc_bert_family,          /* enc_bert.c: bert, hf */
};

const struct enc_family *enc_family_of(const struct enc_config *cfg)
{
    for (size_t i = 0; i < sizeof families / sizeof families[0]; i++)
        if (families[i]->has_kind(cfg->kind) && (!families[i]->claims || families[i]->claims(cfg))) return families[i];
    return NULL;
}

void enc_config_caps(const struct enc_config *cfg, struct enc_caps *caps)
{
    const struct enc_family *f = enc_family_of(cfg);
    memset(caps, 0, sizeof *caps);
    if (f) f->config_caps(cfg, caps);
}

int enc_config_layers(const struct enc_config *cfg, int *layers, char *err, size_t errlen)
{
    const struct enc_family *f = enc_family_of(cfg);
    *layers = 0;
    if (!f || !f->config_layers) {
        snprintf(err, errlen, "encoder: a %s config has no outputs of several layers", enc_kind_name(cfg->kind));
        return SP_EUSAGE;
    }
    return f->config_layers(cfg, layers, err, errlen);
}

int enc_open(const struct enc_config *cfg, enum enc_device device, const char *weights_path,
             const struct sp_logger *log, enc_t **out, char *err, size_t errlen)
{
    *out = NULL;
    int rc = enc_config_check(cfg, "config", err, errlen);
    if (rc) return rc;
    const struct enc_family *f = enc_family_of(cfg);
    SP_ASSERT(f);                           /* enc_config_check refuses a kind no family has */
    struct enc *e = sp_xcalloc(1, sizeof *e);
    e->cfg = *cfg;
    e->fam = f;
    e->group_tokens = ENC_GROUP_TOKENS;
    if ((rc = f->open(e, device, weights_path, log, err, errlen)) != SP_OK) { enc_close(e); return rc; }
    *out = e;
    return SP_OK;
}

void enc_close(enc_t *e)
{
    if (!e) return;
    e->fam->close(e);
    free(e);
}

void enc_caps(const enc_t *e, struct enc_caps *caps)
{
    memset(caps, 0, sizeof *caps);
    e->fam->caps(e, caps);
    if (caps->attn_layers > 0) caps->attention = 1;    /* causal: the family says (decoders) */
}

int enc_forward(enc_t *e, const struct enc_batch *in, struct enc_output *out, char *err, size_t errlen)
{
    return e->fam->forward(e, in, 1, NULL, out, NULL, err, errlen);
}

int enc_forward_layers(enc_t *e, const struct enc_batch *in, int n_layers, const int *layers, struct enc_output *outs,
                       float **const *heads, char *err, size_t errlen)
{
    struct enc_caps caps;
    enc_caps(e, &caps);
    if (!caps.layer_outputs) {
        snprintf(err, errlen, "encoder: outputs of several layers apply to encoders with layer outputs (bert, hf; this one is %s)", enc_kind_name(e->cfg.kind));
        return SP_EUSAGE;
    }
    return e->fam->forward(e, in, n_layers, layers, outs, heads, err, errlen);
}

int enc_fits(const enc_t *e, const char *const *words, int n) { return e->fam->fits ? e->fam->fits(e, words, n) : 1; }

/* the single capabilities, for callers that want one */
int enc_hidden_layers(const enc_t *e) { struct enc_caps c; enc_caps(e, &c); return c.layer_outputs ? c.layers : 0; }
int enc_dim(const enc_t *e) { struct enc_caps c; enc_caps(e, &c); return c.dim; }
int enc_tok_dim(const enc_t *e) { struct enc_caps c; enc_caps(e, &c); return c.tok_dim; }
int enc_attn_layers(const enc_t *e) { struct enc_caps c; enc_caps(e, &c); return c.attn_layers; }
unsigned enc_needs(const enc_t *e) { struct enc_caps c; enc_caps(e, &c); return c.needs; }
const char *enc_backend_name(const enc_t *e) { return e->fam->backend_name(e); }
const struct enc_config *enc_get_config(const enc_t *e) { return &e->cfg; }

void enc_set_workspace_limit(enc_t *e, size_t bytes) { e->ws_limit = bytes; }
void enc_set_group_tokens(enc_t *e, int tokens) { e->group_tokens = tokens > 0 ? tokens : ENC_GROUP_TOKENS; }

/* ---- weights files: what a config reads (the family's own registration) ---- */

/* a bare handle holding cfg's tensors (no backend, no values); NULL with err on failure */
static struct enc *weights_layout(const struct enc_config *cfg, struct enc_weights_rules *rules, char *err, size_t errlen)
{
    if (enc_config_check(cfg, "config", err, errlen)) return NULL;
    const struct enc_family *f = enc_family_of(cfg);
    SP_ASSERT(f && f->weights_layout);
    struct enc *e = sp_xcalloc(1, sizeof *e);
    e->cfg = *cfg;
    e->fam = f;
    if (f->weights_layout(e, rules, err, errlen) != SP_OK) {
        free(e->param);
        free(e);
        return NULL;
    }
    return e;
}

static void weights_layout_free(struct enc *e)
{
    if (!e) return;
    free(e->param);
    free(e);
}

int enc_weights_expected(const struct enc_config *cfg, struct enc_tensor_spec **out, int *n, char *err, size_t errlen)
{
    *out = NULL;
    *n = 0;
    struct enc_weights_rules rules;
    struct enc *e = weights_layout(cfg, &rules, err, errlen);
    if (!e) return SP_EPARSE;
    struct enc_tensor_spec *t = sp_xcalloc((size_t)e->n_param + 1, sizeof *t);
    for (int i = 0; i < e->n_param; i++) {
        const struct enc_param *p = &e->param[i];
        snprintf(t[i].name, sizeof t[i].name, "%s", p->name);
        t[i].ndim = p->ndim;
        t[i].shape[0] = p->transposed ? p->shape[1] : p->shape[0];
        t[i].shape[1] = p->transposed ? p->shape[0] : p->shape[1];
    }
    *out = t;
    *n = e->n_param;
    weights_layout_free(e);
    return SP_OK;
}

int enc_weights_check(const struct enc_config *cfg, const char *path, struct enc_weights_report *r, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    struct enc_weights_rules rules;
    struct enc *e = weights_layout(cfg, &rules, err, errlen);
    if (!e) return SP_EPARSE;
    struct enc_sft s;
    struct stat st;                      /* a model folder: its file, or its shards */
    int rc = stat(path, &st) == 0 && S_ISDIR(st.st_mode) ? enc_sft_open_model(path, &s, err, errlen) : enc_sft_open(path, &s, err, errlen);
    if (rc == SP_OK) rc = enc_weights_match_read(e, &s, &rules, NULL, 1, r, err, errlen);
    enc_sft_close(&s);
    weights_layout_free(e);
    return rc;
}
