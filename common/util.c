/* common/util.c — allocation, arena, buffers, inputs a user names, UTF-8 check, non-finite scan, PRNG,
 * clock. */
#include "common/sp.h"
#include <sched.h>

#include <math.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/stop.h"

void *sp_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) { fprintf(stderr, "synprobe: out of memory (%zu bytes)\n", n); abort(); }
    return p;
}

void *sp_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) { fprintf(stderr, "synprobe: out of memory (%zu x %zu bytes)\n", n, size); abort(); }
    return p;
}

void *sp_xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q) { fprintf(stderr, "synprobe: out of memory (%zu bytes)\n", n); abort(); }
    return q;
}

char *sp_xstrdup(const char *s)
{
    size_t n = strlen(s);
    char *p = sp_xmalloc(n + 1);
    memcpy(p, s, n + 1);
    return p;
}

/* ---- arena ---- */

struct sp_arena_block {
    struct sp_arena_block *next;
    size_t cap, used;
    _Alignas(16) unsigned char data[];
};

#define SP_ARENA_MIN (64u * 1024u)

void sp_arena_init(struct sp_arena *a) { a->head = NULL; a->used_total = 0; }

void *sp_arena_alloc(struct sp_arena *a, size_t n)
{
    n = (n + 15u) & ~(size_t)15u;
    struct sp_arena_block *b = a->head;
    if (!b || b->cap - b->used < n) {
        size_t cap = n > SP_ARENA_MIN ? n : SP_ARENA_MIN;
        if (b && cap < b->cap * 2 && b->cap * 2 <= (64u << 20)) cap = b->cap * 2;
        b = sp_xmalloc(sizeof *b + cap);
        b->cap = cap;
        b->used = 0;
        b->next = a->head;
        a->head = b;
    }
    void *p = b->data + b->used;
    b->used += n;
    a->used_total += n;
    memset(p, 0, n);
    return p;
}

char *sp_arena_strndup(struct sp_arena *a, const char *s, size_t n)
{
    char *p = sp_arena_alloc(a, n + 1);
    memcpy(p, s, n);
    p[n] = 0;
    return p;
}

char *sp_arena_strdup(struct sp_arena *a, const char *s) { return sp_arena_strndup(a, s, strlen(s)); }

char *sp_arena_printf(struct sp_arena *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *p = sp_arena_alloc(a, (size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}

void sp_arena_reset(struct sp_arena *a)
{
    struct sp_arena_block *b = a->head;
    if (!b) return;
    /* keep the largest (most recent) block so steady-state batches do not malloc */
    struct sp_arena_block *rest = b->next;
    while (rest) { struct sp_arena_block *nx = rest->next; free(rest); rest = nx; }
    b->next = NULL;
    b->used = 0;
    a->used_total = 0;
}

void sp_arena_free(struct sp_arena *a)
{
    struct sp_arena_block *b = a->head;
    while (b) { struct sp_arena_block *nx = b->next; free(b); b = nx; }
    a->head = NULL;
    a->used_total = 0;
}

/* ---- buffer ---- */

static void buf_reserve(struct sp_buf *b, size_t extra)
{
    if (b->len + extra + 1 <= b->cap) return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra + 1) cap *= 2;
    b->p = sp_xrealloc(b->p, cap);
    b->cap = cap;
}

void sp_buf_put(struct sp_buf *b, const void *data, size_t n)
{
    buf_reserve(b, n);
    memcpy(b->p + b->len, data, n);
    b->len += n;
    b->p[b->len] = 0;
}

void sp_buf_puts(struct sp_buf *b, const char *s) { sp_buf_put(b, s, strlen(s)); }

void sp_buf_printf(struct sp_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    buf_reserve(b, (size_t)n);
    va_start(ap, fmt);
    vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void sp_buf_free(struct sp_buf *b) { free(b->p); b->p = NULL; b->len = b->cap = 0; }

/* ---- inputs a user names ---- */

atomic_int sp_stop_signal;

const char *sp_file_kind(mode_t m)
{
    if (S_ISLNK(m)) return "a symbolic link";
    if (S_ISREG(m)) return "a regular file";
    if (S_ISDIR(m)) return "a directory";
    if (S_ISCHR(m)) return "a character device";
    if (S_ISBLK(m)) return "a block device";
    if (S_ISSOCK(m)) return "a socket";
    if (S_ISFIFO(m)) return "a FIFO (named pipe)";
    return "not a regular file";
}

static int input_kind_ok(mode_t m, int allow_fifo) { return S_ISREG(m) || (allow_fifo && S_ISFIFO(m)); }

int sp_open_input(const char *path, int allow_fifo, char *err, size_t errlen)
{
    struct stat st;
    int fd = -1;
    if (stat(path, &st) != 0) goto fail;
    if (!input_kind_ok(st.st_mode, allow_fifo)) goto refuse;       /* a device is never opened: opening some has effects */
    /* a FIFO the caller streams waits for its writer, as a stream should; anything else opens
     * without blocking, so a path swapped for a FIFO meanwhile cannot hang here */
    fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | (S_ISFIFO(st.st_mode) ? 0 : O_NONBLOCK));
    if (fd < 0 || fstat(fd, &st) != 0) goto fail;
    if (!input_kind_ok(st.st_mode, allow_fifo)) goto refuse;
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || ((fl & O_NONBLOCK) && fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0)) goto fail;
    return fd;
fail:
    snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
    if (fd >= 0) close(fd);
    return -1;
refuse:
    snprintf(err, errlen, "%s: is %s; expected a regular file%s", path, sp_file_kind(st.st_mode),
             allow_fifo ? ", a FIFO or a pipe" : "");
    if (fd >= 0) close(fd);
    return -1;
}

/* path opened with flags (plus O_CREAT, never following a link), as a regular file of its own;
 * what names it in messages ("lock file", "log file") */
static int open_own_file(const char *path, int flags, const char *what, int *refused, char *err, size_t errlen)
{
    struct stat st;
    *refused = 0;
    /* O_NONBLOCK: a FIFO put there opens at once (and is refused below) instead of waiting */
    int fd = open(path, flags | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0666);
    if (fd < 0) {
        int e = errno;
        if (e == ELOOP || (lstat(path, &st) == 0 && S_ISLNK(st.st_mode))) {
            *refused = 1;
            snprintf(err, errlen, "%s: is a symbolic link; expected a regular %s (not followed)", path, what);
        } else if (e == ENXIO || e == EISDIR || e == EWOULDBLOCK) {
            *refused = 1;
            snprintf(err, errlen, "%s: is not a regular file; expected a regular %s", path, what);
        } else snprintf(err, errlen, "%s: cannot open: %s", path, strerror(e));
        errno = e;
        return -1;
    }
    if (fstat(fd, &st) != 0) { snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno)); close(fd); return -1; }
    if (!S_ISREG(st.st_mode) || st.st_nlink > 1) {
        *refused = 1;
        snprintf(err, errlen, "%s: is %s; expected a regular %s", path,
                 !S_ISREG(st.st_mode) ? sp_file_kind(st.st_mode) : "a file with another hard link", what);
        close(fd);
        errno = EINVAL;
        return -1;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0) fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    return fd;
}

int sp_open_lockfile(const char *path, int *refused, char *err, size_t errlen)
{
    return open_own_file(path, O_RDWR, "lock file", refused, err, errlen);
}

FILE *sp_fopen_log(const char *path, char *err, size_t errlen)
{
    int refused;
    int fd = open_own_file(path, O_WRONLY | O_APPEND, "log file", &refused, err, errlen);
    if (fd < 0) return NULL;
    FILE *f = fdopen(fd, "a");
    if (!f) { snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno)); close(fd); }
    return f;
}

FILE *sp_fopen_input(const char *path, char *err, size_t errlen)
{
    int fd = sp_open_input(path, 0, err, errlen);
    if (fd < 0) return NULL;
    FILE *f = fdopen(fd, "rb");
    if (!f) { snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno)); close(fd); }
    return f;
}

/* large enough that the flag check costs nothing, small enough that a stop is seen at once */
#define SP_READ_CHUNK ((size_t)8 << 20)

int sp_read_exact(FILE *f, void *dst, size_t n, const char *what, char *err, size_t errlen)
{
    char *p = dst;
    for (size_t done = 0; done < n;) {
        if (sp_stopping()) { snprintf(err, errlen, "%s: stopped while reading", what); return SP_ESTOPPED; }
        size_t want = n - done < SP_READ_CHUNK ? n - done : SP_READ_CHUNK, k = fread(p + done, 1, want, f);
        done += k;
        if (k < want) {
            if (ferror(f)) snprintf(err, errlen, "%s: read error: %s", what, strerror(errno));
            else snprintf(err, errlen, "%s: truncated (%zu of %zu bytes)", what, done, n);
            return SP_EIO;
        }
    }
    return SP_OK;
}

char *sp_read_file(const char *path, size_t *len, char *err, size_t errlen)
{
    char e[SP_ERRLEN];
    FILE *f = sp_fopen_input(path, e, sizeof e);
    struct sp_buf b = { 0 };
    if (f) {
        char tmp[65536];
        size_t k;
        while (!sp_stopping() && (k = fread(tmp, 1, sizeof tmp, f)) > 0) sp_buf_put(&b, tmp, k);
        if (sp_stopping()) snprintf(e, sizeof e, "%s: stopped while reading", path);
        else if (ferror(f)) snprintf(e, sizeof e, "%s: read error: %s", path, strerror(errno));
        else e[0] = 0;
        fclose(f);
    }
    if (!f || e[0]) {
        if (err) snprintf(err, errlen, "%s", e);
        sp_buf_free(&b);
        return NULL;
    }
    sp_buf_put(&b, "", 1);
    if (len) *len = b.len - 1;
    return b.p;
}

int sp_text_no_nul(const char *name, const char *text, size_t len, char *err, size_t errlen)
{
    const char *nul = memchr(text, 0, len);
    if (!nul) return SP_OK;
    snprintf(err, errlen, "%s: a NUL byte at offset %zu (the file must be text)", name, (size_t)(nul - text));
    return SP_EPARSE;
}

/* ---- UTF-8 ---- */

int sp_utf8_valid(const char *str, size_t n)
{
    const unsigned char *s = (const unsigned char *)str, *e = s + n;
    while (s < e) {
        /* ASCII fast path, 8 bytes at a time: treebank text is mostly ASCII */
        while (e - s >= 8) {
            uint64_t v;
            memcpy(&v, s, 8);
            if (v & 0x8080808080808080ull) break;
            s += 8;
        }
        if (s >= e) break;
        unsigned c = *s;
        if (c < 0x80) { s++; continue; }
        int len;
        unsigned cp;
        if (c >= 0xC2 && c <= 0xDF) { len = 2; cp = c & 0x1F; }
        else if (c >= 0xE0 && c <= 0xEF) { len = 3; cp = c & 0x0F; }
        else if (c >= 0xF0 && c <= 0xF4) { len = 4; cp = c & 0x07; }
        else return 0;
        if (e - s < len) return 0;
        for (int k = 1; k < len; k++) {
            if ((s[k] & 0xC0) != 0x80) return 0;
            cp = (cp << 6) | (s[k] & 0x3F);
        }
        if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF))) return 0;
        if (cp >= 0xD800 && cp <= 0xDFFF) return 0;
        s += len;
    }
    return 1;
}

/* ---- PRNG ---- */

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

uint64_t sp_splitmix_next(struct sp_splitmix *r) { return splitmix64(&r->x); }
uint64_t sp_splitmix_below(struct sp_splitmix *r, uint64_t n)
{
    return (uint64_t)(((unsigned __int128)splitmix64(&r->x) * n) >> 64);
}
double sp_splitmix_unif(struct sp_splitmix *r) { return (double)(splitmix64(&r->x) >> 11) * 0x1.0p-53; }

void sp_rng_seed(struct sp_rng *r, uint64_t seed)
{
    uint64_t x = seed;
    for (int i = 0; i < 4; i++) r->s[i] = splitmix64(&x);
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t sp_rng_next(struct sp_rng *r)
{
    uint64_t *s = r->s;
    uint64_t out = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3];
    s[2] ^= t; s[3] = rotl(s[3], 45);
    return out;
}

double sp_rng_uniform(struct sp_rng *r) { return (double)(sp_rng_next(r) >> 11) * 0x1.0p-53; }

uint64_t sp_rng_below(struct sp_rng *r, uint64_t n)
{
    if (n <= 1) return 0;
    uint64_t lim = UINT64_MAX - UINT64_MAX % n, x;
    do x = sp_rng_next(r); while (x >= lim);
    return x % n;
}

int sp_cpu_count(void)
{
    cpu_set_t set;
    long n = 0;
    if (sched_getaffinity(0, sizeof set, &set) == 0) n = CPU_COUNT(&set);
    if (n < 1) n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 256 ? 256 : (int)n;
}

double sp_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

long sp_first_nonfinite(const float *x, size_t n)
{
    for (size_t k = 0; k < n; k++) if (!isfinite(x[k])) return (long)k;
    return -1;
}

const char *sp_nonfinite_kind(float v) { return isnan(v) ? "NaN" : "infinite"; }

int sp_mkdirs(const char *path, char *err, size_t errlen)
{
    char p[4096];
    snprintf(p, sizeof p, "%s", path);
    for (char *s = p + 1;; s++) {
        if (*s != '/' && *s) continue;
        char c = *s;
        *s = 0;
        struct stat st;
        if (mkdir(p, 0777) != 0 && (errno != EEXIST || stat(p, &st) != 0 || !S_ISDIR(st.st_mode))) {
            snprintf(err, errlen, "%s: %s", p, errno == EEXIST ? "exists and is not a folder" : strerror(errno));
            return SP_EIO;
        }
        if (!c) break;
        *s = c;
    }
    return SP_OK;
}
