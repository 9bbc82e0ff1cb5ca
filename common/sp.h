/* common/sp.h — the few things every layer shares: error codes, an arena, small helpers.
 *
 * Error tiers (docs/style.md §3.3): programmer errors abort through SP_ASSERT; runtime failures
 * return an enum sp_err and fill a caller-supplied message buffer; only main() exits. */
#ifndef SP_H
#define SP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>

enum sp_err {
    SP_OK = 0,
    SP_EIO,      /* a file could not be read or written */
    SP_EPARSE,   /* malformed input */
    SP_ESTORE,   /* SQLite failed */
    SP_ENOMEM,
    SP_EUSAGE,   /* bad arguments */
    SP_EGPU,     /* CUDA / cuBLAS failure or no device */
    SP_EEXIST,   /* conflicting data already present */
    SP_ESTOPPED, /* asked to stop (a signal, a cancelled job) before the end */
};

#define SP_ERRLEN 512

#define SP_ASSERT(c) do { if (!(c)) { fprintf(stderr, "%s:%d: assertion failed: %s\n", \
        __FILE__, __LINE__, #c); abort(); } } while (0)

/* malloc that aborts on failure: out-of-memory is not a recoverable input error here */
void *sp_xmalloc(size_t n);
void *sp_xcalloc(size_t n, size_t size);
void *sp_xrealloc(void *p, size_t n);
char *sp_xstrdup(const char *s);

/* Arena: many small allocations with one lifetime (a batch of sentences). */
struct sp_arena_block;
struct sp_arena {
    struct sp_arena_block *head;
    size_t used_total;
};
void  sp_arena_init(struct sp_arena *a);
void *sp_arena_alloc(struct sp_arena *a, size_t n);          /* 16-byte aligned, zeroed */
char *sp_arena_strndup(struct sp_arena *a, const char *s, size_t n);
char *sp_arena_strdup(struct sp_arena *a, const char *s);
char *sp_arena_printf(struct sp_arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void  sp_arena_reset(struct sp_arena *a);                      /* keep the first block, drop the rest */
void  sp_arena_free(struct sp_arena *a);

/* Growable byte buffer. */
struct sp_buf { char *p; size_t len, cap; };
void sp_buf_put(struct sp_buf *b, const void *data, size_t n);
void sp_buf_puts(struct sp_buf *b, const char *s);
void sp_buf_printf(struct sp_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sp_buf_free(struct sp_buf *b);
/* Inputs a user names (docs/guarantees.md: regular files, bounded reads).
 *
 * sp_open_input opens PATH for reading. It must be a regular file, or also a FIFO or pipe when
 * allow_fifo (only inputs read as streams: ingest). A directory, a device (/dev/zero would be
 * read forever) or a socket is refused without being opened, and so is a FIFO elsewhere; the
 * file is opened without blocking (a FIFO nobody writes to cannot hang the open) and its kind is
 * checked again with fstat on the opened descriptor, so a path swapped between the two is
 * caught. Returns the descriptor (O_CLOEXEC, blocking reads), or -1 with err
 * "PATH: cannot open: REASON" or "PATH: is a directory|character device|...; expected a regular
 * file". sp_fopen_input is the same for a regular file, as a stdio stream ("rb"). */
int   sp_open_input(const char *path, int allow_fifo, char *err, size_t errlen);
/* What a file of mode m is, for messages: "a directory", "a FIFO (named pipe)", "a symbolic link"
 * (from lstat), "a character device", ... */
const char *sp_file_kind(mode_t m);
FILE *sp_fopen_input(const char *path, char *err, size_t errlen);
/* A lock file beside a store (STORE.run.lock, STORE.gpu.lock), opened read-write and created if
 * missing, never through a link: a symlink planted there (or a FIFO, a folder, a device, a file
 * with a second hard link) is refused, so taking a lock never creates or opens another file.
 * Returns the descriptor (O_CLOEXEC), or -1 with errno set and err "PATH: is a symbolic link;
 * expected a regular lock file" / "PATH: cannot open: REASON". *refused is 1 when the path was
 * there but of the wrong kind (the caller fails), 0 when it could not be opened at all (a
 * read-only folder: the caller may run without the lock). */
int sp_open_lockfile(const char *path, int *refused, char *err, size_t errlen);
/* A log file appended to (a daemon's --log), opened the same way: created if missing, never
 * through a link, refused unless a regular file with no other hard link ("PATH: is a symbolic
 * link; expected a regular log file (not followed)"): a name planted in a shared folder cannot
 * make the log grow into another file, nor a FIFO hang the open. NULL with err on failure. */
FILE *sp_fopen_log(const char *path, char *err, size_t errlen);
/* Exactly n bytes from f into dst, read in chunks with the stop flag (common/stop.h) checked
 * between them: SP_OK; SP_EIO with err "WHAT: truncated (N of M bytes)" or "WHAT: read error";
 * SP_ESTOPPED with err "WHAT: stopped while reading". */
int sp_read_exact(FILE *f, void *dst, size_t n, const char *what, char *err, size_t errlen);
/* A whole regular file (sp_open_input), NUL-terminated (the NUL not counted in *len); NULL with
 * err (may be NULL) saying why when it cannot be opened or read. Caller frees. */
char *sp_read_file(const char *path, size_t *len, char *err, size_t errlen);
/* A file read whole that a parser takes as a C string (a JSON reader's json_loads): SP_EPARSE with
 * "NAME: a NUL byte at offset N (the file must be text)" when text[0..len) holds one, so that
 * the bytes after it are refused rather than silently ignored; SP_OK otherwise. */
int sp_text_no_nul(const char *name, const char *text, size_t len, char *err, size_t errlen);

/* Atomic file output (common/atomic.c): write to a temporary file in the destination's folder,
 * then sp_out_commit fsyncs it and renames it over the destination; sp_out_abort (or a failed
 * commit) unlinks it, leaving any previous file untouched. A destination that is a symlink is
 * replaced itself, never written through. Both leave *o cleared (abort is a no-op then).
 * sp_out_open refuses (SP_EUSAGE) a destination that is a file the installed guard protects
 * (common/guard.h: the store, an input). */
struct sp_out { FILE *f; char *path, *tmp; };
/* mkdir -p: the folder and every missing parent. SP_EIO with "PATH: reason" in err on failure
 * (a component that exists but is not a folder included). */
int  sp_mkdirs(const char *path, char *err, size_t errlen);
int  sp_out_open(struct sp_out *o, const char *path, char *err, size_t errlen);
int  sp_out_commit(struct sp_out *o, char *err, size_t errlen);
void sp_out_abort(struct sp_out *o);

/* Non-finite numbers are refused wherever they enter or leave a computation (docs/guarantees.md "Non-finite
 * numbers"): the index of the first NaN or infinite value of x[0..n), or -1 when all are finite;
 * and "NaN" or "infinite" for the value found, for the message. */
long sp_first_nonfinite(const float *x, size_t n);
const char *sp_nonfinite_kind(float v);

/* UTF-8 validity of n bytes (no overlongs, no surrogates, max U+10FFFF). */
int sp_utf8_valid(const char *s, size_t n);

/* SHA-256 of a byte stream. */
struct sp_sha256 { uint32_t h[8]; uint64_t nbytes; unsigned char blk[64]; size_t nblk; };
void sp_sha256_init(struct sp_sha256 *c);
void sp_sha256_update(struct sp_sha256 *c, const void *data, size_t n);
void sp_sha256_hex(struct sp_sha256 *c, char out[65]);         /* finalises */
/* Compression backend: SHA-NI where the CPU has it (picked at start-up), else portable C.
 * force_portable = 1 switches to the portable one (tests compare both); returns the name in use. */
const char *sp_sha256_backend(int force_portable);

/* Seeded, platform-independent PRNG (splitmix64 → xoshiro256**), used wherever a seed is recorded. */
struct sp_rng { uint64_t s[4]; };
void     sp_rng_seed(struct sp_rng *r, uint64_t seed);
uint64_t sp_rng_next(struct sp_rng *r);
double   sp_rng_uniform(struct sp_rng *r);                      /* [0, 1) */
uint64_t sp_rng_below(struct sp_rng *r, uint64_t n);            /* [0, n), unbiased */

/* SplitMix64 as docs/spec/models.md M7.1 defines it, draw for draw: the generator of every random choice
 * the model specs fix with test vectors (bootstrap resamples, control labels, probe init). */
struct sp_splitmix { uint64_t x; };
static inline void sp_splitmix_seed(struct sp_splitmix *r, uint64_t seed) { r->x = seed; }
uint64_t sp_splitmix_next(struct sp_splitmix *r);
uint64_t sp_splitmix_below(struct sp_splitmix *r, uint64_t n);  /* high 64 bits of next()·n */
double   sp_splitmix_unif(struct sp_splitmix *r);                /* (next() >> 11) · 2^-53 */

/* Monotonic seconds, for benchmarks and progress. */
double sp_now(void);
/* The CPUs this process may run on (sched_getaffinity; the online CPUs where that fails), at
 * least 1, at most 256: the default thread count of the probes (probe, tokprobe, structprobe),
 * whose results do not depend on it. */
int sp_cpu_count(void);

#endif
