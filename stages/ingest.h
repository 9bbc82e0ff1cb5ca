/* stages/ingest.h — the ingest stage: treebank files into a store, with every cached structure.
 *
 * The files go through one pipeline: the stage's thread reads each input once → N worker
 * threads parse and compute structures → one writer thread writes SQLite, each file in its
 * own transaction, reported in the order given. Memory is bounded by the chunks in flight
 * (about 2 per worker), never by the file. A stop request ends the run after the files
 * already committed; the file in progress rolls back. */
#ifndef SP_STG_INGEST_H
#define SP_STG_INGEST_H

#include "ingest/readers.h"
#include "stages/stage.h"
#include "store/store.h"

struct stg_ingest_opts {
    const char *db;              /* the store, created if missing; NULL only with dry_run */
    const char *corpus;          /* corpus to add to */
    const char *split;           /* recorded on every sentence; NULL: none */
    int format;                  /* enum sp_format; SP_FMT_AUTO detects per file */
    long workers;                /* parse/structure threads */
    long levels;                 /* PSAN division levels T */
    long max_words;              /* longer sentences go to the quarantine */
    long chunk_kb;               /* read size */
    int mode;                    /* enum sp_mode: --strict / --repair */
    int dry_run;                 /* parse and compute without a store (benchmarks) */
    int no_structures;           /* parse only (benchmarks) */
    const char *stdin_name;      /* the name "-" is stored under; NULL: "<stdin>" */
    struct sp_strlist inputs;    /* files, folders (their treebank files, in name order), "-" */
    long shard_k, shard_n;       /* not in the table (`synprobe run --shard K/N`): store only the
                                  * sentences of shard K of N (stg_shard_of); shard_n 0: all */
};
extern const struct sp_opt stg_ingest_options[];

enum stg_ingest_status { STG_INGEST_DONE, STG_INGEST_UNCHANGED, STG_INGEST_FAILED };

struct stg_ingest_file {
    const char *path;            /* as reported and stored ("-" is the stdin name); owned */
    enum stg_ingest_status status;
    enum sp_format fmt;
    struct st_file_summary sum;
    long tokens_parsed;          /* words of every parsed sentence (accepted or not) */
    int repaired;                /* sentences stored with --repair warnings (sentence.warn != 0) */
    long skipped_lines;          /* comment lines with no word line after them (not a sentence) */
    char error[SP_ERRLEN];       /* STG_INGEST_FAILED: why */
};

struct stg_ingest_result {
    int n_files, n_done, n_unchanged, n_failed;
    long sentences, attached, rejected, kept, words, tokens;
    long repaired;                   /* sentences stored with --repair warnings */
    long skipped_lines;              /* comment lines with no word line after them */
    long unchanged_sentences;        /* what the unchanged files held when first ingested */
    double seconds;
    struct stg_ingest_file *files;   /* n_files, in the order given (folders expanded) */
};

/* SP_OK when sentences were ingested (or the unchanged files hold some); SP_EPARSE when a file
 * failed or nothing was ingested nor held by an unchanged file (each failure is also logged, and
 * in r->files); SP_ESTORE /
 * SP_EIO when the store cannot be opened; SP_ESTOPPED. r is filled in every case. */
int stg_ingest(struct stg_ctx *ctx, const struct stg_ingest_opts *o, struct stg_ingest_result *r);
/* The rules stg_ingest checks its options against before it reads anything (options that go together
 * or exclude each other): SP_EUSAGE with ctx->err, or SP_OK. A job file's steps are checked
 * with it when the job is loaded, so `run --check` refuses what the run would. */
int stg_ingest_check(struct stg_ctx *ctx, const struct stg_ingest_opts *o);

void stg_ingest_result_free(struct stg_ingest_result *r);

/* The shard (0..n-1) of the sentence at 1-based `position` of a file: the first 8 bytes, read
 * big-endian, of SHA-256("synprobe-shard-1\n" BASE "\n" POSITION) mod n, where BASE is the
 * file's name without folders, ".gz" and its last extension ("en_ewt-ud-dev" for
 * ud/en_ewt-ud-dev.conllu.gz) and POSITION is decimal. A .mrg and a .conllu of one document
 * that pair by position therefore fall into the same shard, whatever the text says. */
int stg_shard_of(const char *path, long position, long n);

/* Whether a file name is one a folder is searched for (.conllu .conll .mrg .dp .dep .ptb, and
 * those + .gz). */
int stg_ingest_is_treebank_name(const char *name);

#endif
