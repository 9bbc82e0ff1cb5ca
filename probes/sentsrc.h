/* probes/sentsrc.h — walk the sentences of a corpus, in corpus order, from a store or
 * straight from treebank files, for the evaluation commands (trees, structprobe).
 *
 * Files: each path is a file or a directory (its files with the format's extension, in
 * file-name order, strcmp); files are read in chunks that end on sentence boundaries
 * (ing_chunk_end) and parsed with ing_parse_chunk in default mode. Rejected sentences are
 * reported on stderr as "file:line: reason" and skipped (they have no ordinal), and counted
 * in *n_rejected, so the caller's summary can say how many it skipped and why.
 * Store: the corpus's sentences through st_iter, with the structures asked for.
 * The callback sees one sentence at a time; the sentence is valid only during the call.
 * A non-zero return from the callback stops the walk and is returned. */
#ifndef PRB_SENTSRC_H
#define PRB_SENTSRC_H

#include <stddef.h>

#include "ingest/readers.h"
#include "ingest/sentence.h"

struct prb_source {
    /* store (db != NULL) ... */
    const char *db;
    const char *corpus;
    unsigned want;              /* ST_WANT_* bits */
    /* ... or files */
    enum sp_format fmt;         /* SP_FMT_CONLLU | SP_FMT_PTB | SP_FMT_DEP */
    int n_paths;
    const char *const *paths;
    long *n_rejected;           /* files: where to count the sentences rejected when read (may be NULL) */
};

typedef int (*prb_sentence_fn)(const struct sp_sentence *s, long ordinal, void *ctx);

/* Returns SP_OK, an SP_E* code with a message in err, or the callback's non-zero value
 * (err then untouched; the callback reports its own problem). */
int prb_source_each(const struct prb_source *src, prb_sentence_fn fn, void *ctx, char *err, size_t errlen);

#endif
