/* daemon/ingest_job.h — files through the ingest pipeline:
 *   reader (caller's thread) → N worker threads (parse + structures) → 1 writer thread (SQLite).
 * Memory is bounded by the chunks in flight (about 2 per worker), never by the file. */
#ifndef SP_INGEST_JOB_H
#define SP_INGEST_JOB_H

#include "ingest/ingest.h"
#include "store/store.h"

struct ingest_opts {
    enum sp_format fmt;       /* SP_FMT_AUTO: detect per file */
    enum sp_mode mode;
    const char *split;
    int workers;              /* parse/structure threads, >= 1 */
    int levels;               /* PSAN division levels T */
    int structures;           /* compute structures (off only for benchmarks) */
    size_t chunk_bytes;       /* read size; a chunk holds whole sentences */
    int max_messages;         /* rejection messages printed per file (all go to the quarantine) */
    int quiet;                /* print no rejection messages */
    int max_words;            /* longer sentences are rejected (0: ING_MAX_WORDS_DEFAULT) */
    const char *stdin_name;   /* the name "-" (standard input) is recorded and reported under;
                               * NULL: "<stdin>". Its extension, if any, decides the format. */
};
void ingest_opts_default(struct ingest_opts *o);

enum ingest_status { INGEST_DONE, INGEST_UNCHANGED, INGEST_FAILED };

struct ingest_result {
    enum ingest_status status;
    enum sp_format fmt;
    struct st_file_summary sum;
    long tokens_parsed;       /* words of every parsed sentence (accepted or not) */
    int sentences_parsed;
    char error[SP_ERRLEN];    /* INGEST_FAILED: why */
};

/* A path is a regular file, a FIFO or pipe, "-" (standard input) or a gzip file ("*.gz",
 * decompressed; standard input is decompressed when it is gzip). Each is read once; the
 * SHA-256 stored for it is that of the bytes parsed (after decompression).
 * db == NULL: parse (and compute structures) without storing: the benchmark path. */
int ingest_file(struct st_db *db, int64_t corpus_id, const char *path, const struct ingest_opts *o,
                struct ingest_result *r);

/* Several files through one pipeline: file k+1 is read and parsed while file k is written,
 * each still in its own transaction. done(k, paths[k], result, ctx) runs once per file, in
 * file order, on the writer thread, as soon as the file is committed (or failed, or found
 * unchanged). Returns the number of failed files. */
typedef void (*ingest_done_fn)(int k, const char *path, const struct ingest_result *r, void *ctx);
int ingest_files(struct st_db *db, int64_t corpus_id, char *const *paths, int n, const struct ingest_opts *o,
                 ingest_done_fn done, void *ctx);

#endif
