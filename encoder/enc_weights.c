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
    size_t total = 0, held = 0;        /* view parameters stay in the file: not in host_block */
    for (int i = 0; i < e->n_param; i++) {
        total += e->param[i].count;
        if (!e->param[i].view) held += e->param[i].count;
    }
    e->n_floats = total;
    e->host_block = sp_xcalloc(held ? held : 1, sizeof(float));
    size_t off = 0;
    for (int i = 0; i < e->n_param; i++) {
        struct enc_param *p = &e->param[i];
        if (p->view) { p->host = NULL; continue; }
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

void enc_param_widen(const struct enc_param *p, float *dst)
{
    if (!p->transposed) { enc_dt_widen((enum enc_dtype)p->dtype, p->src, 0, p->count, dst); return; }
    const int in = p->shape[0], out = p->shape[1];      /* file [out, in] -> registry [in, out] */
    float *row = sp_xmalloc(sizeof *row * (size_t)in + 1);
    for (int o = 0; o < out; o++) {
        enc_dt_widen((enum enc_dtype)p->dtype, p->src, (uint64_t)o * in, (size_t)in, row);
        for (int j = 0; j < in; j++) dst[(size_t)j * out + o] = row[j];
    }
    free(row);
}

int enc_param_upload(struct enc *e, char *err, size_t errlen)
{
    float *tmp = NULL;
    for (int i = 0; i < e->n_param; i++) {
        struct enc_param *p = &e->param[i];
        if (e->be.host_memory) { p->dev = p->host; continue; }   /* a view: the family packs it (ops->pack_weight) */
        if (!p->dev) {
            p->dev = e->be.ops->alloc(&e->be, p->count * sizeof(float));
            if (!p->dev) { free(tmp); snprintf(err, errlen, "encoder: %s: cannot allocate %zu bytes on %s", p->name, p->count * 4, e->be.ops->name); return SP_ENOMEM; }
        }
        const float *from = p->host;
        if (p->view) {             /* widened on the host one tensor at a time; the device holds f32 */
            tmp = sp_xrealloc(tmp, p->count * sizeof(float) + 1);
            enc_param_widen(p, tmp);
            from = tmp;
            e->be.ops->upload(&e->be, p->dev, from, p->count * sizeof(float));
            continue;
        }
        e->be.ops->upload(&e->be, p->dev, from, p->count * sizeof(float));
    }
    free(tmp);
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

/* ---- matching a file against the registry (the loaders and `synprobe weights check`) ---- */

void enc_weights_rules_plain(const struct enc *e, struct enc_weights_rules *rules)
{
    memset(rules, 0, sizeof *rules);
    snprintf(rules->what, sizeof rules->what, "a %s encoder with this config", enc_kind_name(e->cfg.kind));
}

const char *enc_wproblem_name(enum enc_wproblem k)
{
    static const char *const names[] = { "missing", "unexpected", "shape", "dtype", "twice", "nonfinite" };
    return (unsigned)k < sizeof names / sizeof names[0] ? names[k] : "?";
}

static void dims_text(char *out, size_t n, int ndim, const long long *d)
{
    size_t k = (size_t)snprintf(out, n, "[");
    for (int i = 0; i < ndim && k < n; i++) k += (size_t)snprintf(out + k, n - k, "%s%lld", i ? "," : "", d[i]);
    if (k < n) snprintf(out + k, n - k, "]");
}

void enc_weights_problem_text(const char *path, const struct enc_weights_report *r, const struct enc_weights_problem *p,
                              char *out, size_t n)
{
    char want[64], got[192];
    const long long w[2] = { p->want[0], p->want[1] };
    dims_text(want, sizeof want, p->want_ndim, w);
    dims_text(got, sizeof got, p->got_ndim, p->got);
    const char *pp = path ? path : "", *sep = path ? ": " : "";
    switch (p->kind) {
    case ENC_WP_MISSING:
        snprintf(out, n, "%s%stensor %s: missing tensor (expected shape %s)", pp, sep, p->name, want);
        break;
    case ENC_WP_UNEXPECTED:
        snprintf(out, n, "%s%stensor %s: unexpected tensor (%s %s; not read by %s)", pp, sep, p->name, p->got_dtype, got,
                 r && r->what[0] ? r->what : "this encoder");
        break;
    case ENC_WP_SHAPE:
        snprintf(out, n, "%s%stensor %s: shape %s, expected %s", pp, sep, p->name, got, want);
        break;
    case ENC_WP_DTYPE:
        snprintf(out, n, "%s%stensor %s: dtype %s is not supported (expected %s)", pp, sep, p->name, p->got_dtype, p->want_dtype);
        break;
    case ENC_WP_TWICE:
        snprintf(out, n, "%s%stensor %s: given twice (as %s after renaming)", pp, sep, p->name, p->detail);
        break;
    case ENC_WP_NONFINITE:
        snprintf(out, n, "%s%stensor %s: element %s; weights must be finite", pp, sep, p->name, p->detail);
        break;
    }
}

void enc_weights_report_free(struct enc_weights_report *r)
{
    if (!r) return;
    for (int i = 0; i < r->n_ignored; i++) free(r->ignored[i]);
    free(r->ignored);
    free(r->p);
    memset(r, 0, sizeof *r);
}

static struct enc_weights_problem *problem(struct enc_weights_report *r, struct enc_weights_problem *one, enum enc_wproblem k,
                                           const char *name)
{
    struct enc_weights_problem *p = one;
    if (r) {
        r->p = sp_xrealloc(r->p, sizeof *r->p * (size_t)(r->n + 1));
        p = &r->p[r->n++];
    }
    memset(p, 0, sizeof *p);
    p->kind = k;
    snprintf(p->name, sizeof p->name, "%s", name);
    return p;
}

static void want_shape(struct enc_weights_problem *q, const struct enc_param *p)
{
    q->want_ndim = p->ndim;
    q->want[0] = p->transposed ? p->shape[1] : p->shape[0];
    q->want[1] = p->transposed ? p->shape[0] : p->shape[1];
}

static void got_shape(struct enc_weights_problem *q, const struct enc_sft_tensor *t)
{
    q->got_ndim = t->ndim;
    for (int d = 0; d < t->ndim && d < 8; d++) q->got[d] = (long long)t->shape[d];
}

/* read t into dst (p's registry layout), widened and transposed; a non-finite element -> *bad
 * (its [row,col] in the file) and 1 */
static int read_one(struct enc_sft *s, const struct enc_sft_tensor *t, const struct enc_param *p, float *dst, float *scratch,
                    char *bad, size_t badlen, int *rc, char *err, size_t errlen)
{
    float *into = p->transposed ? scratch : dst;
    *rc = enc_sft_read_widen(s, t, into, err, errlen);
    if (*rc) return 0;
    if (p->transposed) {                     /* file [out, in] -> registry [in, out] */
        const int in = p->shape[0], outw = p->shape[1];
        for (int o = 0; o < outw; o++)
            for (int j = 0; j < in; j++) dst[(size_t)j * outw + o] = scratch[(size_t)o * in + j];
    }
    /* a NaN or infinite weight poisons every vector it touches, silently */
    long b = sp_first_nonfinite(dst, p->count);
    if (b < 0) return 0;
    const char *kind = sp_nonfinite_kind(dst[b]);
    if (p->ndim == 1) snprintf(bad, badlen, "[%ld] is %s", b, kind);
    else if (p->transposed) snprintf(bad, badlen, "[%ld,%ld] is %s", b % p->shape[1], b / p->shape[1], kind);
    else snprintf(bad, badlen, "[%ld,%ld] is %s", b / p->shape[1], b % p->shape[1], kind);
    return 1;
}

/* A file tensor's name as the registry names it (the family's prefix taken off, the rules'
 * normalisation) into nm; 1 when the rules ignore it (a head, a buffer) */
static int param_name(const struct enc_weights_rules *rules, const char *name, char *nm, size_t n)
{
    if (rules->prefix && !strncmp(name, rules->prefix, strlen(rules->prefix))) name += strlen(rules->prefix);
    if (rules->normalise) rules->normalise(name, nm, n);
    else snprintf(nm, n, "%s", name);
    int ign = rules->ignored && rules->ignored(nm);
    for (int h = 0; !ign && rules->ignore && rules->ignore[h]; h++) ign = !strncmp(nm, rules->ignore[h], strlen(rules->ignore[h]));
    return ign;
}

int enc_weights_match_read(const struct enc *e, struct enc_sft *s, const struct enc_weights_rules *rules, float *block, int all,
                           struct enc_weights_report *r, char *err, size_t errlen)
{
    SP_ASSERT(r || !all);
    struct enc_weights_problem one;
    struct enc_weights_report *R = all ? r : NULL;            /* a load keeps the first problem only */
    const struct enc_sft_tensor **of = sp_xcalloc((size_t)e->n_param + 1, sizeof *of);   /* the file's tensor of each param */
    int rc = SP_OK, n_prob = 0;
    if (r) {
        r->n_expected = e->n_param;
        r->n_file = s->n;
        snprintf(r->what, sizeof r->what, "%s", rules->what);
    }
    for (int k = 0; k < s->n && (all || !n_prob); k++) {
        const struct enc_sft_tensor *t = &s->t[k];
        char nm[256];
        if (param_name(rules, t->name, nm, sizeof nm)) {
            if (r) {
                r->ignored = sp_xrealloc(r->ignored, sizeof *r->ignored * (size_t)(r->n_ignored + 1));
                r->ignored[r->n_ignored++] = sp_xstrdup(t->name);
            }
            continue;
        }
        int i = strlen(nm) < sizeof e->param[0].name ? enc_param_find(e, nm) : -1;
        if (i < 0) {
            struct enc_weights_problem *q = problem(R, &one, ENC_WP_UNEXPECTED, t->name);
            got_shape(q, t);
            snprintf(q->got_dtype, sizeof q->got_dtype, "%s", t->dtype);
            n_prob++;
            continue;
        }
        const struct enc_param *p = &e->param[i];
        if (of[i]) {
            snprintf(problem(R, &one, ENC_WP_TWICE, t->name)->detail, sizeof one.detail, "%s", nm);
            n_prob++;
            continue;
        }
        of[i] = t;
        int dtype_ok = !strcmp(t->dtype, "F32") || (rules->widen && (!strcmp(t->dtype, "F16") || !strcmp(t->dtype, "BF16")));
        if (!dtype_ok) {
            struct enc_weights_problem *q = problem(R, &one, ENC_WP_DTYPE, t->name);
            snprintf(q->got_dtype, sizeof q->got_dtype, "%s", t->dtype);
            snprintf(q->want_dtype, sizeof q->want_dtype, "%s", rules->widen ? "F32, F16 or BF16" : "F32");
            n_prob++;
            if (!all) break;
        }
        const int64_t w0 = p->transposed ? p->shape[1] : p->shape[0], w1 = p->transposed ? p->shape[0] : p->shape[1];
        if (!(t->ndim == p->ndim && t->shape[0] == w0 && (p->ndim == 1 || t->shape[1] == w1))) {
            struct enc_weights_problem *q = problem(R, &one, ENC_WP_SHAPE, t->name);
            got_shape(q, t);
            want_shape(q, p);
            n_prob++;
        }
    }
    for (int i = 0; i < e->n_param && (all || !n_prob); i++)
        if (!of[i]) { want_shape(problem(R, &one, ENC_WP_MISSING, e->param[i].name), &e->param[i]); n_prob++; }
    /* the data: tensors whose name, dtype and shape fit (a load reads only when all do) */
    float *scratch = NULL, *dst_own = NULL;
    size_t off = 0;
    for (int i = 0; i < e->n_param && rc == SP_OK && (all || !n_prob); off += block && e->param[i].view ? 0 : e->param[i].count, i++) {
        const struct enc_param *p = &e->param[i];
        const struct enc_sft_tensor *t = of[i];
        if (!t || t->ndim != p->ndim) continue;
        if (block && p->view) {      /* stays in the file: checked there, not copied */
            long b = enc_dt_first_nonfinite(t->dt, t->data, t->count);
            if (b >= 0) {
                const long cols = t->ndim == 2 ? (long)t->shape[1] : 1;
                float x;
                enc_dt_widen(t->dt, t->data, (uint64_t)b, 1, &x);
                struct enc_weights_problem *q = problem(R, &one, ENC_WP_NONFINITE, t->name);
                if (t->ndim == 1) snprintf(q->detail, sizeof q->detail, "[%ld] is %s", b, sp_nonfinite_kind(x));
                else snprintf(q->detail, sizeof q->detail, "[%ld,%ld] is %s", b / cols, b % cols, sp_nonfinite_kind(x));
                n_prob++;
            }
            continue;
        }
        int fits = 1;
        for (int k = 0; k < (all ? r->n : 0); k++)
            if (r->p[k].kind != ENC_WP_MISSING && r->p[k].kind != ENC_WP_UNEXPECTED && !strcmp(r->p[k].name, t->name)) fits = 0;
        if (!fits) continue;
        float *dst = block ? block + off : (dst_own = sp_xrealloc(dst_own, p->count * sizeof(float) + 1));
        if (p->transposed) scratch = sp_xrealloc(scratch, p->count * sizeof(float) + 1);
        char bad[64];
        if (read_one(s, t, p, dst, scratch, bad, sizeof bad, &rc, err, errlen)) {
            snprintf(problem(R, &one, ENC_WP_NONFINITE, t->name)->detail, sizeof one.detail, "%s", bad);
            n_prob++;
        }
    }
    free(scratch);
    free(dst_own);
    free(of);
    if (rc == SP_OK && !all && n_prob) {
        struct enc_weights_report words = { 0 };     /* r may be NULL: the "unexpected" wording needs what */
        snprintf(words.what, sizeof words.what, "%s", rules->what);
        enc_weights_problem_text(s->path, &words, &one, err, errlen);
        rc = SP_EPARSE;
    }
    return rc;
}

void enc_weights_bind_views(struct enc *e, const struct enc_sft *s, const struct enc_weights_rules *rules)
{
    for (int k = 0; k < s->n; k++) {
        const struct enc_sft_tensor *t = &s->t[k];
        char nm[256];
        if (param_name(rules, t->name, nm, sizeof nm)) continue;
        int i = strlen(nm) < sizeof e->param[0].name ? enc_param_find(e, nm) : -1;
        if (i < 0 || !e->param[i].view) continue;
        e->param[i].src = t->data;
        e->param[i].dtype = (uint8_t)t->dt;
    }
}

/* The file is read and checked by the safetensors reader (enc_safetensors.c: a regular file,
 * sizes bounded by the file's, tensors tiling the data section); here it must hold exactly this
 * encoder's tensors, F32, of its shapes, all finite (enc_weights_match_read). */
int enc_load_weights(enc_t *e, const char *path, char *err, size_t errlen)
{
    struct enc_sft s;
    int rc = enc_sft_open(path, &s, err, errlen);
    if (rc) return rc;
    struct enc_weights_rules rules;
    enc_weights_rules_plain(e, &rules);
    /* read into a copy: a failed load leaves the current weights untouched */
    float *tmp = sp_xmalloc(e->n_floats * sizeof(float) + 1);
    rc = enc_weights_match_read(e, &s, &rules, tmp, 0, NULL, err, errlen);
    if (rc == SP_OK) {
        memcpy(e->host_block, tmp, e->n_floats * sizeof(float));
        rc = enc_param_upload(e, err, errlen);
    }
    free(tmp);
    enc_sft_close(&s);
    return rc;
}
