/* common/npy.c — NumPy .npy reader and writer (format versions 1.0/2.0/3.0).
 *
 * HOW IT WORKS. A .npy file is: the magic "\x93NUMPY", a major and minor version byte, the
 * header length (uint16 LE for 1.0, uint32 LE for 2.0/3.0), a header that is a Python dict
 * literal {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), } padded with spaces and a
 * final '\n', then the raw data. The header is parsed with a small scanner that accepts the
 * three keys in any order with either quote style, which covers what numpy and other writers
 * produce; it is not a general Python literal parser.
 *
 * The writer reproduces numpy.save (numpy >= 1.23): keys sorted, the spare "growth" spaces
 * numpy adds after the dict (21 minus the digits of shape[0]), padding so that the data
 * starts at a multiple of 64 bytes. */
#include "common/npy.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>

#define NPY_MAGIC "\x93NUMPY"
#define NPY_MAGIC_LEN 6
#define NPY_ALIGN 64
#define NPY_GROWTH_DIGITS 21

size_t sp_dtype_size(enum sp_dtype t) { return t == SP_DT_F64 ? 8 : 4; }

const char *sp_dtype_name(enum sp_dtype t)
{
    switch (t) {
    case SP_DT_F32: return "float32";
    case SP_DT_F64: return "float64";
    case SP_DT_I32: return "int32";
    }
    return "?";
}

static int fail(char *err, size_t errlen, int code, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static int fail(char *err, size_t errlen, int code, const char *name, const char *fmt, ...)
{
    if (err && errlen) {
        int n = snprintf(err, errlen, "%s: ", name);
        if (n < 0) n = 0;
        if ((size_t)n < errlen) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
            va_end(ap);
        }
    }
    return code;
}

void sp_npy_free(struct sp_npy *a)
{
    free(a->data);
    memset(a, 0, sizeof *a);
}

/* ---- header scanner ---- */

struct scan { const char *p, *e; };

static void skip_ws(struct scan *s)
{
    while (s->p < s->e && (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r')) s->p++;
}

static int eat(struct scan *s, char c)
{
    skip_ws(s);
    if (s->p < s->e && *s->p == c) { s->p++; return 1; }
    return 0;
}

/* a quoted string into buf; 0 on failure */
static int scan_str(struct scan *s, char *buf, size_t cap)
{
    skip_ws(s);
    if (s->p >= s->e || (*s->p != '\'' && *s->p != '"')) return 0;
    char q = *s->p++;
    size_t n = 0;
    while (s->p < s->e && *s->p != q) {
        if (n + 1 >= cap) return 0;
        buf[n++] = *s->p++;
    }
    if (s->p >= s->e) return 0;
    s->p++;
    buf[n] = 0;
    return 1;
}

static int scan_word(struct scan *s, const char *w)
{
    skip_ws(s);
    size_t n = strlen(w);
    if ((size_t)(s->e - s->p) >= n && !memcmp(s->p, w, n)) { s->p += n; return 1; }
    return 0;
}

static int parse_header(const char *name, const char *h, size_t hlen, struct sp_npy *out, int *swap, int *fortran_out,
                        char *err, size_t errlen)
{
    struct scan s = { h, h + hlen };
    int have_descr = 0, have_fortran = 0, have_shape = 0, fortran = 0;
    char descr[32];
    if (!eat(&s, '{')) return fail(err, errlen, SP_EPARSE, name, "bad header: expected '{'");
    for (;;) {
        if (eat(&s, '}')) break;
        char key[32];
        if (!scan_str(&s, key, sizeof key))
            return fail(err, errlen, SP_EPARSE, name, "bad header: expected a quoted key");
        if (!eat(&s, ':')) return fail(err, errlen, SP_EPARSE, name, "bad header: expected ':' after '%s'", key);
        if (!strcmp(key, "descr")) {
            if (!scan_str(&s, descr, sizeof descr))
                return fail(err, errlen, SP_EPARSE, name,
                            "unsupported dtype (a structured dtype?): expected float32, float64 or int32");
            have_descr = 1;
        } else if (!strcmp(key, "fortran_order")) {
            if (scan_word(&s, "True")) fortran = 1;
            else if (scan_word(&s, "False")) fortran = 0;
            else return fail(err, errlen, SP_EPARSE, name, "bad header: fortran_order must be True or False");
            have_fortran = 1;
        } else if (!strcmp(key, "shape")) {
            if (!eat(&s, '(')) return fail(err, errlen, SP_EPARSE, name, "bad header: shape must be a tuple");
            out->ndim = 0;
            for (;;) {
                if (eat(&s, ')')) break;
                skip_ws(&s);
                if (s.p >= s.e || *s.p < '0' || *s.p > '9')
                    return fail(err, errlen, SP_EPARSE, name, "bad header: shape must hold non-negative integers");
                if (out->ndim == SP_NPY_MAXDIM)
                    return fail(err, errlen, SP_EPARSE, name, "more than %d dimensions", SP_NPY_MAXDIM);
                size_t v = 0;
                while (s.p < s.e && *s.p >= '0' && *s.p <= '9') {
                    if (v > (SIZE_MAX - 9) / 10)
                        return fail(err, errlen, SP_EPARSE, name, "bad header: dimension too large");
                    v = v * 10 + (size_t)(*s.p++ - '0');
                }
                if (s.p < s.e && *s.p == 'L') s.p++;          /* Python 2 long suffix */
                out->shape[out->ndim++] = v;
                if (eat(&s, ')')) break;
                if (!eat(&s, ',')) return fail(err, errlen, SP_EPARSE, name, "bad header: expected ',' in shape");
            }
            have_shape = 1;
        } else {
            return fail(err, errlen, SP_EPARSE, name, "bad header: unexpected key '%s'", key);
        }
        if (eat(&s, '}')) break;
        if (!eat(&s, ',')) return fail(err, errlen, SP_EPARSE, name, "bad header: expected ',' between entries");
    }
    if (!have_descr || !have_fortran || !have_shape)
        return fail(err, errlen, SP_EPARSE, name, "bad header: missing '%s'",
                    !have_descr ? "descr" : !have_fortran ? "fortran_order" : "shape");
    if (fortran && out->ndim > 2)   /* 1-D: the same bytes; 2-D: transposed into C order on read */
        return fail(err, errlen, SP_EPARSE, name,
                    "fortran_order is True with %d dimensions; only C-order arrays of more than 2 dimensions are "
                    "supported (save np.ascontiguousarray(a))", out->ndim);
    *fortran_out = fortran && out->ndim == 2;

    /* descr: byte order + kind + size */
    char bo = descr[0], *t = descr + 1;
    if (bo != '<' && bo != '>' && bo != '=' && bo != '|') { bo = '='; t = descr; }
    int big = bo == '>';
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    int native_big = 1;
#else
    int native_big = 0;
#endif
    if (bo == '=' || bo == '|') big = native_big;
    if (!strcmp(t, "f4")) out->dtype = SP_DT_F32;
    else if (!strcmp(t, "f8")) out->dtype = SP_DT_F64;
    else if (!strcmp(t, "i4")) out->dtype = SP_DT_I32;
    else
        return fail(err, errlen, SP_EPARSE, name, "unsupported dtype '%s': expected float32 ('<f4'), float64 ('<f8') or int32 ('<i4')",
                    descr);
    *swap = big != native_big;
    return SP_OK;
}

int sp_npy_parse(const char *name, const void *buf, size_t len, struct sp_npy *out, char *err, size_t errlen)
{
    const unsigned char *b = buf;
    memset(out, 0, sizeof *out);
    if (len < NPY_MAGIC_LEN || memcmp(b, NPY_MAGIC, NPY_MAGIC_LEN))
        return fail(err, errlen, SP_EPARSE, name, "not a .npy file (bad magic: expected \\x93NUMPY)");
    if (len < 10) return fail(err, errlen, SP_EPARSE, name, "truncated header");
    int major = b[6];
    size_t hlen, hstart;
    if (major == 1) {
        hlen = (size_t)b[8] | (size_t)b[9] << 8;
        hstart = 10;
    } else if (major == 2 || major == 3) {
        if (len < 12) return fail(err, errlen, SP_EPARSE, name, "truncated header");
        hlen = (size_t)b[8] | (size_t)b[9] << 8 | (size_t)b[10] << 16 | (size_t)b[11] << 24;
        hstart = 12;
    } else {
        return fail(err, errlen, SP_EPARSE, name, "unsupported .npy format version %d.%d (expected 1.0, 2.0 or 3.0)",
                    major, b[7]);
    }
    if (hlen > len - hstart)
        return fail(err, errlen, SP_EPARSE, name, "truncated header: %zu header bytes announced, %zu present",
                    hlen, len - hstart);
    int swap = 0, fortran = 0;
    int rc = parse_header(name, (const char *)b + hstart, hlen, out, &swap, &fortran, err, errlen);
    if (rc) { memset(out, 0, sizeof *out); return rc; }

    size_t count = 1, esz = sp_dtype_size(out->dtype);
    for (int i = 0; i < out->ndim; i++) {
        if (out->shape[i] && count > SIZE_MAX / esz / out->shape[i]) {
            memset(out, 0, sizeof *out);
            return fail(err, errlen, SP_EPARSE, name, "shape too large");
        }
        count *= out->shape[i];
    }
    size_t have = len - hstart - hlen, need = count * esz;
    if (have < need) {
        memset(out, 0, sizeof *out);
        return fail(err, errlen, SP_EPARSE, name, "truncated data: expected %zu bytes of %s for the shape, found %zu",
                    need, sp_dtype_name(out->dtype), have);
    }
    if (have > need) {
        memset(out, 0, sizeof *out);
        return fail(err, errlen, SP_EPARSE, name, "%zu unexpected bytes after the %zu data bytes", have - need, need);
    }
    out->count = count;
    out->data = sp_xmalloc(need ? need : 1);
    if (fortran) {   /* column-major [r][c] at c*R + r -> row-major */
        size_t R = out->shape[0], C = out->shape[1];
        const unsigned char *src = b + hstart + hlen;
        unsigned char *dst = out->data;
        for (size_t r = 0; r < R; r++)
            for (size_t c = 0; c < C; c++) memcpy(dst + (r * C + c) * esz, src + (c * R + r) * esz, esz);
    } else {
        memcpy(out->data, b + hstart + hlen, need);
    }
    if (swap) {
        unsigned char *d = out->data;
        for (size_t i = 0; i < count; i++, d += esz)
            for (size_t k = 0; k < esz / 2; k++) {
                unsigned char t = d[k];
                d[k] = d[esz - 1 - k];
                d[esz - 1 - k] = t;
            }
    }
    return SP_OK;
}

int sp_npy_read(const char *path, struct sp_npy *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    /* a regular file, read to the size fstat gives (the header's shape is checked against it) */
    FILE *f = sp_fopen_input(path, err, errlen);
    if (!f) return SP_EIO;
    struct stat st;
    if (fstat(fileno(f), &st) != 0) { fclose(f); return fail(err, errlen, SP_EIO, path, "cannot stat: %s", strerror(errno)); }
    size_t n = (size_t)st.st_size;
    char *buf = sp_xmalloc(n + 1);
    int rc = sp_read_exact(f, buf, n, path, err, errlen);
    fclose(f);
    if (rc == SP_OK) rc = sp_npy_parse(path, buf, n, out, err, errlen);
    free(buf);
    return rc;
}

int sp_npy_write_header(FILE *f, enum sp_dtype dtype, int ndim, const size_t *shape)
{
    if (ndim < 0 || ndim > SP_NPY_MAXDIM) return -1;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    const char bo = '>';
#else
    const char bo = '<';
#endif
    const char *kind = dtype == SP_DT_F32 ? "f4" : dtype == SP_DT_F64 ? "f8" : "i4";
    struct sp_buf h = { 0 };
    sp_buf_printf(&h, "{'descr': '%c%s', 'fortran_order': False, 'shape': (", bo, kind);
    for (int i = 0; i < ndim; i++) sp_buf_printf(&h, i ? ", %zu" : "%zu", shape[i]);
    sp_buf_puts(&h, ndim == 1 ? ",), }" : "), }");
    if (ndim > 0) {                     /* numpy's spare room for growing axis 0 in place */
        char digits[32];
        int nd = snprintf(digits, sizeof digits, "%zu", shape[0]);
        for (int i = nd; i < NPY_GROWTH_DIGITS; i++) sp_buf_put(&h, " ", 1);
    }
    size_t hl = h.len + 1;                /* + '\n' */
    /* like numpy: try version 1.0, use 2.0 when the padded header overflows uint16; a
     * remainder of 0 still pads a full 64 bytes (numpy's formula) */
    size_t pre = NPY_MAGIC_LEN + 2 + 2;
    size_t pad = NPY_ALIGN - (pre + hl) % NPY_ALIGN;
    int v2 = hl + pad > 65535;
    if (v2) {
        pre = NPY_MAGIC_LEN + 2 + 4;
        pad = NPY_ALIGN - (pre + hl) % NPY_ALIGN;
    }
    for (size_t i = 0; i < pad; i++) sp_buf_put(&h, " ", 1);
    sp_buf_put(&h, "\n", 1);

    unsigned char head[12];
    memcpy(head, NPY_MAGIC, NPY_MAGIC_LEN);
    head[6] = v2 ? 2 : 1;
    head[7] = 0;
    size_t L = h.len;
    head[8] = (unsigned char)(L & 0xff);
    head[9] = (unsigned char)(L >> 8 & 0xff);
    if (v2) { head[10] = (unsigned char)(L >> 16 & 0xff); head[11] = (unsigned char)(L >> 24 & 0xff); }
    int ok = fwrite(head, 1, pre, f) == pre && fwrite(h.p, 1, h.len, f) == h.len;
    sp_buf_free(&h);
    return ok ? 0 : -1;
}

int sp_npy_write(const char *path, enum sp_dtype dtype, int ndim, const size_t *shape, const void *data,
                 char *err, size_t errlen)
{
    if (ndim < 0 || ndim > SP_NPY_MAXDIM) return fail(err, errlen, SP_EUSAGE, path, "bad number of dimensions %d", ndim);
    size_t count = 1;
    for (int i = 0; i < ndim; i++) count *= shape[i];
    struct sp_out o;
    int orc = sp_out_open(&o, path, err, errlen);
    if (orc) return orc;
    int ok = sp_npy_write_header(o.f, dtype, ndim, shape) == 0;
    size_t nbytes = count * sp_dtype_size(dtype);
    if (ok && nbytes) ok = fwrite(data, 1, nbytes, o.f) == nbytes;
    if (!ok) {
        int e = errno;
        sp_out_abort(&o);
        return fail(err, errlen, SP_EIO, path, "write error: %s", strerror(e));
    }
    return sp_out_commit(&o, err, errlen);
}

void sp_npy_to_f32(struct sp_npy *a)
{
    if (a->dtype == SP_DT_F32) return;
    float *o = sp_xmalloc(a->count * sizeof(float));
    if (a->dtype == SP_DT_F64) {
        const double *s = a->data;
        for (size_t i = 0; i < a->count; i++) o[i] = (float)s[i];
    } else {
        const int32_t *s = a->data;
        for (size_t i = 0; i < a->count; i++) o[i] = (float)s[i];
    }
    free(a->data);
    a->data = o;
    a->dtype = SP_DT_F32;
}
