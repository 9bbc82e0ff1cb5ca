/* ingest/batch.c — batches of parsed items, and the helpers every reader uses to fill them
 * (new items, the length limit, the "_" column). Called by the readers and ingest.c; calls
 * nothing of theirs. */
#include "ingest/readers.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/ing_int.h"

void ing_batch_init(struct ing_batch *b)
{
    sp_arena_init(&b->arena);
    b->n_items = b->cap = 0;
    b->item = NULL;
    b->skip = NULL;
    b->n_skip = b->skip_cap = 0;
    b->max_words = 0;
    b->max_words_option = NULL;
}

void ing_batch_reset(struct ing_batch *b)
{
    sp_arena_reset(&b->arena);
    b->n_items = 0;
    b->n_skip = 0;
}

void ing_batch_free(struct ing_batch *b)
{
    sp_arena_free(&b->arena);
    free(b->item);
    b->item = NULL;
    b->n_items = b->cap = 0;
    free(b->skip);
    b->skip = NULL;
    b->n_skip = b->skip_cap = 0;
}

void ing__skipped(struct ing_batch *b, long line, int n_lines)
{
    if (b->n_skip == b->skip_cap) {
        b->skip_cap = b->skip_cap ? b->skip_cap * 2 : 16;
        b->skip = sp_xrealloc(b->skip, (size_t)b->skip_cap * sizeof *b->skip);
    }
    b->skip[b->n_skip++] = (struct ing_skip){ line, n_lines };
}

struct ing_item *ing__new_item(struct ing_batch *b)
{
    if (b->n_items == b->cap) {
        b->cap = b->cap ? b->cap * 2 : 256;
        b->item = sp_xrealloc(b->item, (size_t)b->cap * sizeof *b->item);
    }
    struct ing_item *it = &b->item[b->n_items++];
    memset(it, 0, sizeof *it);
    return it;
}

int ing__too_long(const struct ing_batch *b, int n, char *msg, size_t cap)
{
    int max = b->max_words > 0 && b->max_words <= ING_MAX_WORDS_LIMIT ? b->max_words : ING_MAX_WORDS_DEFAULT;
    if (n <= max) return 0;
    if (n > ING_MAX_WORDS_LIMIT)
        snprintf(msg, cap, "sentence of %d words is longer than the %d words a stored sentence can have "
                 "(its structures need memory quadratic in its length)", n, ING_MAX_WORDS_LIMIT);
    else if (b->max_words_option)
        snprintf(msg, cap, "sentence of %d words is longer than %s %d (its structures need memory "
                 "quadratic in its length; raise %s to accept it)", n, b->max_words_option, max, b->max_words_option);
    else
        snprintf(msg, cap, "sentence of %d words is longer than the %d words read from a file here (its structures "
                 "need memory quadratic in its length; `synprobe ingest --max-words %d` stores it, then read it with --db)",
                 n, max, n);
    return 1;
}

const char ing__underscore[] = "_";

const char **ing__underscores(struct ing_batch *b, int n)
{
    const char **a = sp_arena_alloc(&b->arena, (size_t)(n > 0 ? n : 1) * sizeof *a);
    for (int i = 0; i < n; i++) a[i] = ing__underscore;
    return a;
}
