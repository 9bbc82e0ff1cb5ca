/* store/st_encoded.h — what the encode stage and the export of its outputs read besides runs.h:
 * the words an embeddings file is filtered by, and how many sentences a corpus has (to say
 * which run rows are missing). The SQL lives in store/st_encoded.c. */
#ifndef ST_ENCODED_H
#define ST_ENCODED_H

#include <stdint.h>

#include "store/store.h"

/* fn(ctx, form) for every distinct form of the corpus's tokens (any order). A non-zero return
 * of fn stops the walk and is returned. SP_ESTORE with err on a store error. */
int st_corpus_forms(struct st_db *db, int64_t corpus_id, int (*fn)(void *ctx, const char *form), void *ctx,
                    char *err, size_t errlen);

/* fn(ctx, text) for the text of every item of the task (tokens separated by spaces). */
int st_task_texts(struct st_db *db, int64_t task_id, int (*fn)(void *ctx, const char *text), void *ctx,
                  char *err, size_t errlen);

/* Number of sentences of the corpus. */
int st_corpus_sentence_count(struct st_db *db, int64_t corpus_id, int64_t *n, char *err, size_t errlen);

#endif
