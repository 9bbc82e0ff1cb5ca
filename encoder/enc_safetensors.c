/* encoder/enc_safetensors.c — a general safetensors reader (Hugging Face checkpoints).
 *
 * Format: u64 little-endian header length N, N bytes of JSON {name: {dtype, shape,
 * data_offsets: [begin, end]}, "__metadata__": {...}}, then the data section; offsets are
 * relative to the start of the data section. enc_sft_open reads and checks the whole header
 * before any data: the file must be a regular file (common/util.c: a device or FIFO is refused),
 * the header length must fit the file's size as fstat gives it (and 100 MiB); every entry must
 * have a known dtype, a shape of non-negative integers (JSON integers, read exactly: 1.5, 1e3, a
 * string or a negative number is refused naming header["NAME"].shape[k]) and offsets whose
 * length is exactly the shape's element count times the dtype's size and that lie inside the
 * file, so a truncated file is reported at open, naming the first tensor that does not fit. The
 * byte count is multiplied with overflow checks: a shape whose bytes pass 2^64, or exceed the
 * data section while the offsets disagree with it, is "shape too large" (never wrapped to a
 * small size); a number beyond 2^63-1 is refused by the JSON parser, with its position. As the format requires
 * ("the byte buffer needs to be entirely indexed, and cannot contain holes"), the tensors,
 * sorted by offset, must tile the data section exactly: two that overlap, a gap between two,
 * and bytes after the last are each refused, naming the tensors. Every read is then bounded by
 * these sizes, in chunks that look at the stop flag (sp_read_exact).
 * Data is read on request (enc_sft_read_f32) for F32 tensors, and for F16 and BF16 ones, which
 * are widened to float32 exactly (SPEC-models M3.2); other dtypes are listed (so callers can name
 * and ignore them) but cannot be read as floats.
 *
 * Not done: F64 or integer tensors as floats, big-endian hosts, mmap (tensors are read with
 * fread). */
#include "encoder/encoder_int.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>

/* element size of a safetensors dtype; 0 if unknown */
static size_t dtype_size(const char *dt)
{
    static const struct { const char *name; size_t size; } tab[] = {
        { "F64", 8 }, { "F32", 4 }, { "F16", 2 }, { "BF16", 2 }, { "I64", 8 }, { "I32", 4 }, { "I16", 2 },
        { "I8", 1 }, { "U64", 8 }, { "U32", 4 }, { "U16", 2 }, { "U8", 1 }, { "BOOL", 1 },
        { "F8_E4M3", 1 }, { "F8_E5M2", 1 },
    };
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++) if (!strcmp(dt, tab[i].name)) return tab[i].size;
    return 0;
}

static int host_is_le(void) { const uint16_t x = 1; return *(const uint8_t *)&x == 1; }

void enc_sft_close(struct enc_sft *s)
{
    if (!s) return;
    if (s->f) fclose(s->f);
    for (int i = 0; i < s->n; i++) free(s->t[i].name);
    free(s->t);
    free(s->path);
    memset(s, 0, sizeof *s);
}

/* one header entry into *t; 0 or -1 with err naming the tensor */
static int parse_entry(const struct enc_sft *s, const char *key, json_t *v, struct enc_sft_tensor *t, char *err, size_t errlen)
{
    if (!json_is_object(v)) { snprintf(err, errlen, "%s: tensor %s: header entry is not an object", s->path, key); return -1; }
    const char *dt = json_string_value(json_object_get(v, "dtype"));
    if (!dt) { snprintf(err, errlen, "%s: tensor %s: dtype missing or not a string", s->path, key); return -1; }
    size_t es = dtype_size(dt);
    if (!es) { snprintf(err, errlen, "%s: tensor %s: unknown dtype \"%s\"", s->path, key, dt); return -1; }
    snprintf(t->dtype, sizeof t->dtype, "%s", dt);
    t->elem_size = es;
    json_t *sh = json_object_get(v, "shape"), *of = json_object_get(v, "data_offsets");
    if (!json_is_array(sh) || json_array_size(sh) > ENC_SFT_MAXDIM) {
        snprintf(err, errlen, "%s: tensor %s: shape must be an array of at most %d integers", s->path, key, ENC_SFT_MAXDIM);
        return -1;
    }
    t->ndim = (int)json_array_size(sh);
    uint64_t count = 1, bytes = 0;
    int wraps = 0;
    for (int k = 0; k < t->ndim; k++) {
        json_t *x = json_array_get(sh, (size_t)k);
        if (!json_is_integer(x) || json_integer_value(x) < 0) {   /* jansson reads integers exactly (no double) */
            char *got = json_dumps(x, JSON_ENCODE_ANY);
            snprintf(err, errlen, "%s: tensor %s: header[\"%s\"].shape[%d]: expected a non-negative integer, got %.40s%s",
                     s->path, key, key, k, got ? got : "?", got && strlen(got) > 40 ? "..." : "");
            free(got);
            return -1;
        }
        t->shape[k] = (int64_t)json_integer_value(x);
        wraps |= __builtin_mul_overflow(count, (uint64_t)t->shape[k], &count);
    }
    for (int k = 0; k < t->ndim; k++) if (!t->shape[k]) count = 0, wraps = 0;   /* no elements, whatever the others */
    wraps |= __builtin_mul_overflow(count, (uint64_t)es, &bytes);
    t->count = count;
    if (!json_is_array(of) || json_array_size(of) != 2 || !json_is_integer(json_array_get(of, 0)) ||
        !json_is_integer(json_array_get(of, 1))) {
        snprintf(err, errlen, "%s: tensor %s: data_offsets: expected [begin, end]", s->path, key);
        return -1;
    }
    json_int_t b0 = json_integer_value(json_array_get(of, 0)), b1 = json_integer_value(json_array_get(of, 1));
    char dims[ENC_SFT_MAXDIM * 24 + 4] = "[";
    for (int k = 0; k < t->ndim; k++)
        snprintf(dims + strlen(dims), sizeof dims - strlen(dims), "%s%lld", k ? ", " : "", (long long)t->shape[k]);
    strcat(dims, "]");
    if (wraps) {                       /* its bytes pass 2^64: never wrapped to a small size */
        snprintf(err, errlen, "%s: tensor %s: header[\"%s\"].shape %s: shape too large (elements of %s, %zu bytes each: more than "
                 "2^64 bytes; the data section has %llu)", s->path, key, key, dims, dt, es, (unsigned long long)s->data_len);
        return -1;
    }
    if (b0 < 0 || b1 < b0) {
        snprintf(err, errlen, "%s: tensor %s: header[\"%s\"].data_offsets [%lld, %lld]: expected 0 <= begin <= end",
                 s->path, key, key, (long long)b0, (long long)b1);
        return -1;
    }
    if ((uint64_t)(b1 - b0) != bytes) {   /* offsets that agree with the shape, past the end: truncated, below */
        char more[SP_ERRLEN / 2] = "";
        if (bytes > s->data_len)
            snprintf(more, sizeof more, "; header[\"%s\"].shape %s: shape too large (the data section has %llu bytes)", key, dims,
                     (unsigned long long)s->data_len);
        snprintf(err, errlen, "%s: tensor %s: data_offsets [%lld, %lld] hold %lld bytes, but shape and dtype %s need %llu%s",
                 s->path, key, (long long)b0, (long long)b1, (long long)(b1 - b0), dt, (unsigned long long)bytes, more);
        return -1;
    }
    if ((uint64_t)b1 > s->data_len) {
        snprintf(err, errlen, "%s: tensor %s: data ends at byte %lld of the data section, which has only %llu bytes (truncated file?)",
                 s->path, key, (long long)b1, (unsigned long long)s->data_len);
        return -1;
    }
    t->offset = (uint64_t)b0;
    return 0;
}

static int by_offset(const void *a, const void *b)
{
    const struct enc_sft_tensor *x = *(const struct enc_sft_tensor *const *)a, *y = *(const struct enc_sft_tensor *const *)b;
    uint64_t xe = x->offset + x->count * x->elem_size, ye = y->offset + y->count * y->elem_size;
    if (x->offset != y->offset) return x->offset < y->offset ? -1 : 1;
    return xe < ye ? -1 : xe > ye;
}

/* The tensors, sorted by [begin, end), must tile the data section: each begins where the one
 * before ends (an empty tensor takes no bytes, so it may sit at that point too), and the last
 * ends at the end of the file. 0, or -1 with err naming the tensors. */
static int check_tiling(const struct enc_sft *s, char *err, size_t errlen)
{
    const struct enc_sft_tensor **by = sp_xcalloc((size_t)s->n + 1, sizeof *by);
    for (int i = 0; i < s->n; i++) by[i] = &s->t[i];
    qsort(by, (size_t)s->n, sizeof *by, by_offset);
    uint64_t at = 0;
    int bad = 0;
    for (int i = 0; i < s->n && !bad; i++) {
        const struct enc_sft_tensor *t = by[i];
        uint64_t end = t->offset + t->count * t->elem_size;
        if (t->offset < at) {
            snprintf(err, errlen, "%s: tensor %s: data_offsets [%llu, %llu] overlap those of tensor %s, which end at %llu", s->path,
                     t->name, (unsigned long long)t->offset, (unsigned long long)end, by[i - 1]->name, (unsigned long long)at);
            bad = 1;
        } else if (t->offset > at) {
            if (i) snprintf(err, errlen, "%s: tensor %s: data_offsets begin at %llu, but tensor %s ends at %llu: %llu bytes belong to no tensor",
                            s->path, t->name, (unsigned long long)t->offset, by[i - 1]->name, (unsigned long long)at,
                            (unsigned long long)(t->offset - at));
            else snprintf(err, errlen, "%s: tensor %s: data_offsets begin at %llu: the first %llu bytes of the data section belong to no tensor",
                          s->path, t->name, (unsigned long long)t->offset, (unsigned long long)t->offset);
            bad = 1;
        }
        at = end;
    }
    if (!bad && at != s->data_len) {
        if (s->n) snprintf(err, errlen, "%s: the data section has %llu bytes after tensor %s (which ends at %llu); they belong to no tensor",
                           s->path, (unsigned long long)(s->data_len - at), by[s->n - 1]->name, (unsigned long long)at);
        else snprintf(err, errlen, "%s: no tensors, but a %llu-byte data section", s->path, (unsigned long long)s->data_len);
        bad = 1;
    }
    free(by);
    return bad ? -1 : 0;
}

int enc_sft_open(const char *path, struct enc_sft *s, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    s->path = sp_xstrdup(path);
    if (!host_is_le()) { snprintf(err, errlen, "%s: big-endian hosts are not supported", path); enc_sft_close(s); return SP_EIO; }
    s->f = sp_fopen_input(path, err, errlen);
    if (!s->f) { enc_sft_close(s); return SP_EIO; }
    int rc = SP_EPARSE;
    char *hs = NULL;
    json_t *hdr = NULL;
    uint8_t hl8[8];
    struct stat st;
    if (fstat(fileno(s->f), &st) != 0) { snprintf(err, errlen, "%s: cannot stat: %s", path, strerror(errno)); rc = SP_EIO; goto out; }
    off_t fsz = st.st_size;
    if (fsz < 8 || fread(hl8, 1, 8, s->f) != 8) { snprintf(err, errlen, "%s: not a safetensors file (shorter than 8 bytes)", path); goto out; }
    uint64_t hl = 0;
    for (int k = 7; k >= 0; k--) hl = hl << 8 | hl8[k];
    if (hl < 2 || hl > (uint64_t)fsz - 8 || hl > (100u << 20)) {
        snprintf(err, errlen, "%s: header length %llu does not fit the %lld-byte file (not a safetensors file, or truncated)",
                 path, (unsigned long long)hl, (long long)fsz);
        goto out;
    }
    hs = sp_xmalloc(hl + 1);
    if ((rc = sp_read_exact(s->f, hs, hl, path, err, errlen))) goto out;
    rc = SP_EPARSE;
    hs[hl] = 0;
    json_error_t je;
    hdr = json_loadb(hs, hl, JSON_REJECT_DUPLICATES, &je);
    if (!hdr || !json_is_object(hdr)) {
        if (hdr) snprintf(err, errlen, "%s: header is not a JSON object", path);
        else snprintf(err, errlen, "%s: header is not a JSON object: %s (header line %d, column %d)%s", path, je.text, je.line,
                      je.column, strstr(je.text, "too big integer") ? ": beyond 2^63-1, so shape too large" : "");
        goto out;
    }
    s->data_start = 8 + hl;
    s->data_len = (uint64_t)fsz - s->data_start;
    s->t = sp_xcalloc(json_object_size(hdr) + 1, sizeof *s->t);
    const char *key;
    json_t *v;
    json_object_foreach(hdr, key, v) {
        if (!strcmp(key, "__metadata__")) continue;
        struct enc_sft_tensor *t = &s->t[s->n];
        if (parse_entry(s, key, v, t, err, errlen)) goto out;
        t->name = sp_xstrdup(key);
        s->n++;
    }
    if (check_tiling(s, err, errlen)) goto out;
    rc = SP_OK;
out:
    free(hs);
    if (hdr) json_decref(hdr);
    if (rc != SP_OK) enc_sft_close(s);
    return rc;
}

const struct enc_sft_tensor *enc_sft_find(const struct enc_sft *s, const char *name)
{
    for (int i = 0; i < s->n; i++) if (!strcmp(s->t[i].name, name)) return &s->t[i];
    return NULL;
}

/* IEEE half -> float, exact (subnormals, infinities and NaN included) */
static float half_to_float(uint16_t h)
{
    const uint32_t sign = (uint32_t)(h >> 15) << 31, ex = (h >> 10) & 0x1f, man = h & 0x3ff;
    uint32_t bits;
    if (ex == 0x1f) bits = sign | 0x7f800000u | (man << 13);             /* inf / NaN */
    else if (ex) bits = sign | ((ex + 112) << 23) | (man << 13);          /* normal: bias 15 -> 127 */
    else {
        float v = ldexpf((float)man, -24);                               /* zero / subnormal */
        memcpy(&bits, &v, 4);
        bits |= sign;
    }
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

int enc_sft_read_raw(struct enc_sft *s, const struct enc_sft_tensor *t, void *dst, char *err, size_t errlen)
{
    if (t->count && fseeko(s->f, (off_t)(s->data_start + t->offset), SEEK_SET) != 0) {
        snprintf(err, errlen, "%s: tensor %s: cannot seek: %s", s->path, t->name, strerror(errno));
        return SP_EIO;
    }
    char what[SP_ERRLEN];
    snprintf(what, sizeof what, "%s: tensor %s", s->path, t->name);
    return sp_read_exact(s->f, dst, t->count * t->elem_size, what, err, errlen);
}

int enc_sft_read_f32(struct enc_sft *s, const struct enc_sft_tensor *t, float *dst, char *err, size_t errlen)
{
    int rc = enc_sft_read_widen(s, t, dst, err, errlen);
    if (rc) return rc;
    long bad = sp_first_nonfinite(dst, t->count);
    if (bad >= 0) {
        snprintf(err, errlen, "%s: tensor %s: element %ld (flat index) is %s; weights must be finite", s->path, t->name, bad,
                 sp_nonfinite_kind(dst[bad]));
        return SP_EPARSE;
    }
    return SP_OK;
}

int enc_sft_read_widen(struct enc_sft *s, const struct enc_sft_tensor *t, float *dst, char *err, size_t errlen)
{
    const int f32 = !strcmp(t->dtype, "F32"), f16 = !strcmp(t->dtype, "F16"), bf16 = !strcmp(t->dtype, "BF16");
    if (!f32 && !f16 && !bf16) {
        snprintf(err, errlen, "%s: tensor %s: dtype %s is not supported (F32, F16 and BF16 tensors can be read as weights)",
                 s->path, t->name, t->dtype);
        return SP_EPARSE;
    }
    int rc = enc_sft_read_raw(s, t, dst, err, errlen);
    if (rc) return rc;
    if (!f32) {                /* 16-bit halves, widened in place from the back of dst */
        uint16_t *h = (uint16_t *)(void *)dst;
        for (uint64_t i = t->count; i-- > 0;) {
            const uint16_t x = h[i];
            if (bf16) { uint32_t bits = (uint32_t)x << 16; memcpy(&dst[i], &bits, 4); }
            else dst[i] = half_to_float(x);
        }
    }
    return SP_OK;
}
