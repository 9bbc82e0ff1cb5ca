/* encoder/enc_weights.c — the parameter registry, seeded Glorot-uniform initialisation and
 * safetensors load/save (schemas/encoder-weights.md).
 *
 * How it works: each family's open registers every tensor (name, shape, init rule) in a fixed
 * order; enc_param_alloc_init carves all of them out of one host block and fills them. Each
 * tensor draws from its own sp_rng seeded with fnv1a64(name) XOR seed, so adding a tensor never
 * changes the values of the others. Glorot-uniform: U(-a, a), a = sqrt(6 / (rows + cols)),
 * value = a * (2u - 1) with u = sp_rng_uniform, row-major order. Biases and LN β start at 0,
 * LN γ at 1, SG-Net agg.w at 0.5 (softmax -> 0.5/0.5) and agg.gamma at 1.
 *
 * safetensors: u64 LE header length N, N bytes of JSON {name: {dtype, shape, data_offsets}},
 * then the raw data. We write F32 little-endian, tensors in registry order, header padded with
 * spaces to a multiple of 8. Loading reads through the general reader (enc_safetensors.c), which
 * checks the file's sizes and offsets, accepts any tensor order but exactly our tensor set; a
 * failed load leaves the current weights untouched.
 *
 * Not done: other dtypes (F16/BF16) and big-endian hosts. */
#include "encoder/encoder_int.h"

#include <jansson.h>
#include <math.h>
#include <string.h>

int enc_param_add(struct enc *e, const char *name, int rows, int cols, enum enc_init init)
{
    SP_ASSERT(strlen(name) < sizeof e->param[0].name);
    SP_ASSERT(enc_param_find(e, name) < 0);
    e->param = sp_xrealloc(e->param, sizeof *e->param * (size_t)(e->n_param + 1));
    struct enc_param *p = &e->param[e->n_param];
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "%s", name);
    p->ndim = cols > 0 ? 2 : 1;
    p->shape[0] = rows;
    p->shape[1] = cols > 0 ? cols : 0;
    p->count = (size_t)rows * (size_t)(cols > 0 ? cols : 1);
    p->init = init;
    return e->n_param++;
}

int enc_param_find(const struct enc *e, const char *name)
{
    for (int i = 0; i < e->n_param; i++) if (!strcmp(e->param[i].name, name)) return i;
    return -1;
}

void enc_param_alloc_init(struct enc *e)
{
    size_t total = 0;
    for (int i = 0; i < e->n_param; i++) total += e->param[i].count;
    e->n_floats = total;
    e->host_block = sp_xcalloc(total ? total : 1, sizeof(float));
    size_t off = 0;
    for (int i = 0; i < e->n_param; i++) {
        struct enc_param *p = &e->param[i];
        p->host = e->host_block + off;
        off += p->count;
        switch (p->init) {
        case ENC_INIT_ZERO: break;
        case ENC_INIT_ONE: for (size_t k = 0; k < p->count; k++) p->host[k] = 1.0f; break;
        case ENC_INIT_HALF: for (size_t k = 0; k < p->count; k++) p->host[k] = 0.5f; break;
        case ENC_INIT_GLOROT: {
            struct sp_rng r;
            sp_rng_seed(&r, enc_fnv1a(p->name, 0) ^ e->cfg.seed);
            int fan_in = p->shape[0], fan_out = p->ndim == 2 ? p->shape[1] : p->shape[0];
            double a = sqrt(6.0 / (double)(fan_in + fan_out));
            for (size_t k = 0; k < p->count; k++) p->host[k] = (float)(a * (2.0 * sp_rng_uniform(&r) - 1.0));
            break;
        }
        }
    }
}

int enc_param_upload(struct enc *e, char *err, size_t errlen)
{
    for (int i = 0; i < e->n_param; i++) {
        struct enc_param *p = &e->param[i];
        if (e->be.host_memory) { p->dev = p->host; continue; }
        if (!p->dev) {
            p->dev = e->be.ops->alloc(&e->be, p->count * sizeof(float));
            if (!p->dev) { snprintf(err, errlen, "encoder: %s: cannot allocate %zu bytes on %s", p->name, p->count * 4, e->be.ops->name); return SP_ENOMEM; }
        }
        e->be.ops->upload(&e->be, p->dev, p->host, p->count * sizeof(float));
    }
    if (e->be.ops->params_changed) e->be.ops->params_changed(&e->be);
    return e->be.ops->sync(&e->be, err, errlen);
}

size_t enc_n_params(const enc_t *e) { return e->n_floats; }

/* ---- safetensors ---- */

static int host_is_le(void) { const uint16_t x = 1; return *(const uint8_t *)&x == 1; }

int enc_save_weights(enc_t *e, const char *path, char *err, size_t errlen)
{
    if (!host_is_le()) { snprintf(err, errlen, "%s: big-endian hosts are not supported", path); return SP_EIO; }
    /* jansson setters steal references: build the tree with *_new, decref only the root */
    json_t *hdr = json_object();
    json_t *meta = json_object();
    json_object_set_new(meta, "format", json_string("synprobe-encoder"));
    json_object_set_new(meta, "kind", json_string(enc_kind_name(e->cfg.kind)));
    json_object_set_new(hdr, "__metadata__", meta);
    size_t off = 0;
    for (int i = 0; i < e->n_param; i++) {
        struct enc_param *p = &e->param[i];
        json_t *t = json_object(), *sh = json_array(), *of = json_array();
        for (int k = 0; k < p->ndim; k++) json_array_append_new(sh, json_integer(p->shape[k]));
        json_array_append_new(of, json_integer((json_int_t)off));
        json_array_append_new(of, json_integer((json_int_t)(off + p->count * 4)));
        json_object_set_new(t, "dtype", json_string("F32"));
        json_object_set_new(t, "shape", sh);
        json_object_set_new(t, "data_offsets", of);
        json_object_set_new(hdr, p->name, t);
        off += p->count * 4;
    }
    char *js = json_dumps(hdr, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(hdr);
    size_t n = strlen(js), pad = (8 - (8 + n) % 8) % 8;
    uint64_t hl = n + pad;
    struct sp_out o;              /* a temporary renamed over path once complete */
    int orc = sp_out_open(&o, path, err, errlen);
    if (orc) { free(js); return orc; }
    FILE *f = o.f;
    int ok = fwrite(&hl, 8, 1, f) == 1 && fwrite(js, 1, n, f) == n;
    for (size_t k = 0; ok && k < pad; k++) ok = fputc(' ', f) != EOF;
    free(js);
    float *tmp = NULL;
    for (int i = 0; ok && i < e->n_param; i++) {
        struct enc_param *p = &e->param[i];
        const float *src = p->host;
        if (!e->be.host_memory) {   /* the device copy is the truth after a load or an update */
            tmp = sp_xrealloc(tmp, p->count * sizeof(float));
            e->be.ops->download(&e->be, tmp, p->dev, p->count * sizeof(float));
            src = tmp;
        }
        ok = fwrite(src, sizeof(float), p->count, f) == p->count;
    }
    free(tmp);
    if (!ok) { sp_out_abort(&o); snprintf(err, errlen, "%s: write error", path); return SP_EIO; }
    return sp_out_commit(&o, err, errlen);
}

/* t's shape as JSON-ish text "[a,b]" for messages */
static void shape_text(const struct enc_sft_tensor *t, char *out, size_t n)
{
    size_t k = (size_t)snprintf(out, n, "[");
    for (int d = 0; d < t->ndim && k < n; d++) k += (size_t)snprintf(out + k, n - k, "%s%lld", d ? "," : "", (long long)t->shape[d]);
    if (k < n) snprintf(out + k, n - k, "]");
}

/* The file is read and checked by the safetensors reader (enc_safetensors.c: a regular file,
 * sizes bounded by the file's, tensors tiling the data section); here it must hold exactly this
 * encoder's tensors, F32, of its shapes, all finite. */
int enc_load_weights(enc_t *e, const char *path, char *err, size_t errlen)
{
    struct enc_sft s;
    int rc = enc_sft_open(path, &s, err, errlen);
    if (rc) return rc;
    const struct enc_sft_tensor **of = sp_xcalloc((size_t)e->n_param + 1, sizeof *of);   /* the file's tensor of each param */
    rc = SP_EPARSE;
    for (int k = 0; k < s.n; k++) {
        const struct enc_sft_tensor *t = &s.t[k];
        int i = enc_param_find(e, t->name);
        if (i < 0) { snprintf(err, errlen, "%s: %s: unexpected tensor (not part of a %s encoder with this config)", path, t->name, enc_kind_name(e->cfg.kind)); goto out; }
        struct enc_param *p = &e->param[i];
        if (strcmp(t->dtype, "F32")) { snprintf(err, errlen, "%s: %s: unsupported dtype %s (expected F32)", path, t->name, t->dtype); goto out; }
        int shape_ok = t->ndim == p->ndim;
        for (int d = 0; shape_ok && d < p->ndim; d++) shape_ok = t->shape[d] == p->shape[d];
        if (!shape_ok) {
            char got[96];
            shape_text(t, got, sizeof got);
            if (p->ndim == 2) snprintf(err, errlen, "%s: %s: shape %s, expected [%d,%d]", path, t->name, got, p->shape[0], p->shape[1]);
            else snprintf(err, errlen, "%s: %s: shape %s, expected [%d]", path, t->name, got, p->shape[0]);
            goto out;
        }
        of[i] = t;
    }
    for (int i = 0; i < e->n_param; i++)
        if (!of[i]) { snprintf(err, errlen, "%s: %s: missing tensor", path, e->param[i].name); goto out; }
    /* read into a copy: a failed load leaves the current weights untouched */
    float *tmp = sp_xmalloc(e->n_floats * sizeof(float) + 1);
    for (int i = 0; i < e->n_param; i++) {
        struct enc_param *p = &e->param[i];
        float *dst = tmp + (p->host - e->host_block);
        if ((rc = enc_sft_read_raw(&s, of[i], dst, err, errlen))) break;
        /* a NaN or infinite weight poisons every vector it touches, silently */
        long bad = sp_first_nonfinite(dst, p->count);
        if (bad >= 0) {
            const char *kind = sp_nonfinite_kind(dst[bad]);
            if (p->ndim == 2)
                snprintf(err, errlen, "%s: %s: element [%ld,%ld] is %s; weights must be finite", path, p->name,
                         bad / p->shape[1], bad % p->shape[1], kind);
            else
                snprintf(err, errlen, "%s: %s: element [%ld] is %s; weights must be finite", path, p->name, bad, kind);
            rc = SP_EPARSE;
            break;
        }
    }
    if (rc == SP_OK) {
        memcpy(e->host_block, tmp, e->n_floats * sizeof(float));
        rc = enc_param_upload(e, err, errlen);
    }
    free(tmp);
out:
    free(of);
    enc_sft_close(&s);
    return rc;
}
