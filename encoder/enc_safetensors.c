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
 * The file is memory-mapped (read-only, MAP_PRIVATE) once the header is checked: a tensor is a
 * typed view into the mapping (enc_sft_view: F32, F16 or BF16, its shape and its bytes), so a
 * model keeps its weights in the file's dtype, and pages it copied elsewhere (packed for the
 * GEMM) can be given back (enc_sft_release). enc_sft_read_f32 copies a tensor out widened to
 * float32 exactly (docs/spec/models.md M3.2); other dtypes are listed (so callers can name and ignore
 * them) but never read as floats.
 *
 * A model folder (enc_sft_open_model): model.safetensors, or a sharded checkpoint, whose
 * model.safetensors.index.json maps every tensor name to a shard file ("weight_map"); each shard
 * is opened once, and each name must be in the shard the index says and in no other, each shard
 * a plain file name in the folder (no '/' or ".."); the errors name the JSON path
 * (weight_map["NAME"]). A folder with PyTorch pickles only (pytorch_model.bin, *.bin, *.pt) is
 * refused with the one line that converts it: a pickle can run code when loaded.
 *
 * Not done: F64 or integer tensors as floats, big-endian hosts; a file truncated by someone else
 * while it is mapped ends the process with SIGBUS (a read would have failed). */
#include "encoder/encoder_int.h"
#include "common/stop.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <string.h>
#include <dirent.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

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

static enum enc_dtype dtype_of(const char *dt)
{
    return !strcmp(dt, "F32") ? ENC_DT_F32 : !strcmp(dt, "F16") ? ENC_DT_F16 : !strcmp(dt, "BF16") ? ENC_DT_BF16 : ENC_DT_OTHER;
}

void enc_sft_close(struct enc_sft *s)
{
    if (!s) return;
    for (int i = 0; i < s->n_shard; i++) {
        if (s->shard[i].map) munmap(s->shard[i].map, s->shard[i].len);
        free(s->shard[i].path);
    }
    free(s->shard);
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
    t->dt = dtype_of(dt);
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
    FILE *f = sp_fopen_input(path, err, errlen);
    if (!f) { enc_sft_close(s); return SP_EIO; }
    int rc = SP_EPARSE;
    char *hs = NULL;
    json_t *hdr = NULL;
    uint8_t hl8[8];
    struct stat st;
    if (fstat(fileno(f), &st) != 0) { snprintf(err, errlen, "%s: cannot stat: %s", path, strerror(errno)); rc = SP_EIO; goto out; }
    off_t fsz = st.st_size;
    if (fsz < 8 || fread(hl8, 1, 8, f) != 8) { snprintf(err, errlen, "%s: not a safetensors file (shorter than 8 bytes)", path); goto out; }
    uint64_t hl = 0;
    for (int k = 7; k >= 0; k--) hl = hl << 8 | hl8[k];
    if (hl < 2 || hl > (uint64_t)fsz - 8 || hl > (100u << 20)) {
        snprintf(err, errlen, "%s: header length %llu does not fit the %lld-byte file (not a safetensors file, or truncated)",
                 path, (unsigned long long)hl, (long long)fsz);
        goto out;
    }
    hs = sp_xmalloc(hl + 1);
    if ((rc = sp_read_exact(f, hs, hl, path, err, errlen))) goto out;
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
    /* the whole file mapped: the tensors are views into it */
    s->shard = sp_xcalloc(1, sizeof *s->shard);
    s->n_shard = 1;
    s->shard[0].path = sp_xstrdup(path);
    s->shard[0].len = (size_t)fsz;
    void *map = mmap(NULL, (size_t)fsz, PROT_READ, MAP_PRIVATE, fileno(f), 0);
    if (map == MAP_FAILED) { snprintf(err, errlen, "%s: cannot map: %s", path, strerror(errno)); rc = SP_EIO; goto out; }
    s->shard[0].map = map;
    for (int i = 0; i < s->n; i++) s->t[i].data = (const char *)map + s->data_start + s->t[i].offset;
    rc = SP_OK;
out:
    fclose(f);
    free(hs);
    if (hdr) json_decref(hdr);
    if (rc != SP_OK) enc_sft_close(s);
    return rc;
}

const char *enc_sft_file(const struct enc_sft *s, const struct enc_sft_tensor *t)
{
    return t->shard >= 0 && t->shard < s->n_shard ? s->shard[t->shard].path : s->path;
}

int enc_sft_view(const struct enc_sft *s, const struct enc_sft_tensor *t, struct enc_tview *v, char *err, size_t errlen)
{
    memset(v, 0, sizeof *v);
    if (t->dt == ENC_DT_OTHER) {
        snprintf(err, errlen, "%s: tensor %s: dtype %s is not supported (F32, F16 and BF16 tensors can be read as weights)",
                 enc_sft_file(s, t), t->name, t->dtype);
        return SP_EPARSE;
    }
    v->name = t->name;
    v->dt = t->dt;
    v->ndim = t->ndim;
    memcpy(v->shape, t->shape, sizeof v->shape);
    v->count = t->count;
    v->p = t->data;
    return SP_OK;
}

void enc_sft_release(const struct enc_sft *s, const struct enc_sft_tensor *t)
{
    if (t->shard < 0 || t->shard >= s->n_shard || !s->shard[t->shard].map || !t->count) return;
    const uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE), a = (uintptr_t)t->data, e = a + t->count * t->elem_size;
    const uintptr_t a1 = (a + pg - 1) / pg * pg, e1 = e / pg * pg;     /* whole pages inside the tensor only */
    if (e1 > a1) (void)madvise((void *)a1, e1 - a1, MADV_DONTNEED);
}

/* ---- a model folder: one file, or shards and their index ---- */

static int is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int ends_with(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && !strcmp(s + a - b, suf);
}

/* a folder without safetensors: the pickle it has (if any) named, and how to convert it */
static int no_safetensors(const char *dir, char *err, size_t errlen)
{
    char pick[256] = "";
    DIR *d = opendir(dir);
    struct dirent *de;
    while (d && (de = readdir(d)))
        if ((ends_with(de->d_name, ".bin") || ends_with(de->d_name, ".pt") || ends_with(de->d_name, ".pth")) &&
            (!pick[0] || !strcmp(de->d_name, "pytorch_model.bin")))
            snprintf(pick, sizeof pick, "%s", de->d_name);
    if (d) closedir(d);
    if (pick[0])
        snprintf(err, errlen, "%s/%s: PyTorch pickles are not read (loading one can run code); convert it: python3 -c \"from "
                 "transformers import AutoModel as M; M.from_pretrained('%s').save_pretrained('%s', safe_serialization=True)\"",
                 dir, pick, dir, dir);
    else snprintf(err, errlen, "%s: no model.safetensors or model.safetensors.index.json", dir);
    return SP_EIO;
}

static int open_sharded(const char *dir, const char *index, struct enc_sft *s, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    s->path = sp_xstrdup(index);
    size_t len = 0;
    char *text = sp_read_file(index, &len, err, errlen);
    if (!text) { enc_sft_close(s); return SP_EIO; }
    json_error_t je;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je), *wm = json_object_get(root, "weight_map");
    free(text);
    int rc = SP_EPARSE;
    struct enc_sft *sh = NULL;          /* each shard opened once, in the order the index names them */
    int n_sh = 0;
    if (!root) { snprintf(err, errlen, "%s: not JSON: %s (line %d, column %d)", index, je.text, je.line, je.column); goto out; }
    if (!json_is_object(wm) || !json_object_size(wm)) {
        snprintf(err, errlen, "%s: weight_map: expected an object of tensor name -> shard file, not empty", index);
        goto out;
    }
    const char *key;
    json_t *v;
    size_t total = 0;
    json_object_foreach(wm, key, v) {
        const char *f = json_string_value(v);
        if (!f || !*f) { snprintf(err, errlen, "%s: weight_map[\"%s\"]: expected a shard file name (string)", index, key); goto out; }
        if (strchr(f, '/') || strstr(f, "..")) {
            snprintf(err, errlen, "%s: weight_map[\"%s\"]: \"%s\": a shard must be a file name in the model folder (no '/' or '..')",
                     index, key, f);
            goto out;
        }
        int k = 0;
        while (k < n_sh && strcmp(sh[k].shard[0].path + strlen(dir) + 1, f)) k++;
        if (k == n_sh) {
            sh = sp_xrealloc(sh, sizeof *sh * (size_t)(n_sh + 1));
            size_t n = strlen(dir) + strlen(f) + 2;
            char *p = sp_xmalloc(n);
            snprintf(p, n, "%s/%s", dir, f);
            char e2[SP_ERRLEN];
            int r2 = enc_sft_open(p, &sh[n_sh], e2, sizeof e2);
            free(p);
            if (r2) { snprintf(err, errlen, "%s: weight_map[\"%s\"]: shard %s", index, key, e2); rc = r2; goto out; }
            total += (size_t)sh[n_sh].n;
            n_sh++;
        }
        const struct enc_sft_tensor *t = enc_sft_find(&sh[k], key);
        if (!t) {
            snprintf(err, errlen, "%s: weight_map[\"%s\"]: the shard %s has no tensor %s", index, key, f, key);
            goto out;
        }
    }
    /* every tensor of every shard must be the index's, in the shard the index says (so in one) */
    for (int k = 0; k < n_sh; k++)
        for (int i = 0; i < sh[k].n; i++) {
            const char *name = sh[k].t[i].name, *f = sh[k].shard[0].path + strlen(dir) + 1;
            const char *want = json_string_value(json_object_get(wm, name));
            if (!want) {
                snprintf(err, errlen, "%s: weight_map: has no entry for tensor %s, which the shard %s holds", index, name, f);
                goto out;
            }
            if (strcmp(want, f)) {
                snprintf(err, errlen, "%s: weight_map[\"%s\"]: tensor %s is in two shards, %s and %s", index, name, name, want, f);
                goto out;
            }
        }
    /* one enc_sft: the tensors and mappings move over, the shard files stay open (mapped) */
    s->t = sp_xcalloc(total + 1, sizeof *s->t);
    s->shard = sp_xcalloc((size_t)n_sh + 1, sizeof *s->shard);
    for (int k = 0; k < n_sh; k++) {
        for (int i = 0; i < sh[k].n; i++) {
            s->t[s->n] = sh[k].t[i];
            s->t[s->n++].shard = k;
            sh[k].t[i].name = NULL;
        }
        s->shard[k] = sh[k].shard[0];
        memset(&sh[k].shard[0], 0, sizeof sh[k].shard[0]);
        s->n_shard++;
    }
    rc = SP_OK;
out:
    for (int k = 0; k < n_sh; k++) enc_sft_close(&sh[k]);
    free(sh);
    if (root) json_decref(root);
    if (rc != SP_OK) enc_sft_close(s);
    return rc;
}

int enc_sft_open_model(const char *dir, struct enc_sft *s, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    size_t n = strlen(dir) + 40;
    char *p = sp_xmalloc(n);
    int rc;
    snprintf(p, n, "%s/model.safetensors", dir);
    if (is_file(p)) rc = enc_sft_open(p, s, err, errlen);
    else {
        snprintf(p, n, "%s/model.safetensors.index.json", dir);
        rc = is_file(p) ? open_sharded(dir, p, s, err, errlen) : no_safetensors(dir, err, errlen);
    }
    free(p);
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
    const size_t chunk = (size_t)8 << 20, n = t->count * t->elem_size;
    for (size_t done = 0; done < n; done += chunk) {       /* a stop request is seen between chunks */
        if (sp_stopping()) { snprintf(err, errlen, "%s: tensor %s: stopped while reading", enc_sft_file(s, t), t->name); return SP_ESTOPPED; }
        memcpy((char *)dst + done, (const char *)t->data + done, n - done < chunk ? n - done : chunk);
    }
    return SP_OK;
}

int enc_sft_read_f32(struct enc_sft *s, const struct enc_sft_tensor *t, float *dst, char *err, size_t errlen)
{
    int rc = enc_sft_read_widen(s, t, dst, err, errlen);
    if (rc) return rc;
    long bad = sp_first_nonfinite(dst, t->count);
    if (bad >= 0) {
        snprintf(err, errlen, "%s: tensor %s: element %ld (flat index) is %s; weights must be finite", enc_sft_file(s, t), t->name,
                 bad, sp_nonfinite_kind(dst[bad]));
        return SP_EPARSE;
    }
    return SP_OK;
}

void enc_dt_widen(enum enc_dtype dt, const void *src, uint64_t from, size_t n, float *dst)
{
    if (dt == ENC_DT_F32) { memcpy(dst, (const float *)src + from, n * sizeof(float)); return; }
    const uint16_t *h = (const uint16_t *)src + from;
    if (dt == ENC_DT_BF16)
        for (size_t i = 0; i < n; i++) { const uint32_t bits = (uint32_t)h[i] << 16; memcpy(&dst[i], &bits, 4); }
    else
        for (size_t i = 0; i < n; i++) dst[i] = half_to_float(h[i]);
}

long enc_dt_first_nonfinite(enum enc_dtype dt, const void *src, uint64_t n)
{
    if (dt == ENC_DT_F32) return sp_first_nonfinite(src, n);
    const uint16_t *h = src, mask = dt == ENC_DT_BF16 ? 0x7f80 : 0x7c00;   /* exponent all ones: inf or NaN */
    for (uint64_t i = 0; i < n; i++) if ((h[i] & mask) == mask) return (long)i;
    return -1;
}

int enc_sft_read_widen(struct enc_sft *s, const struct enc_sft_tensor *t, float *dst, char *err, size_t errlen)
{
    struct enc_tview v;
    int rc = enc_sft_view(s, t, &v, err, errlen);
    if (rc) return rc;
    const size_t chunk = (size_t)2 << 20;
    for (uint64_t done = 0; done < t->count; done += chunk) {       /* a stop request is seen between chunks */
        if (sp_stopping()) { snprintf(err, errlen, "%s: tensor %s: stopped while reading", enc_sft_file(s, t), t->name); return SP_ESTOPPED; }
        enc_dt_widen(v.dt, v.p, done, t->count - done < chunk ? (size_t)(t->count - done) : chunk, dst + done);
    }
    return SP_OK;
}
