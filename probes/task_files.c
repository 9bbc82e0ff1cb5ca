/* probes/task_files.c — loading treebank files for task building (CLI `tasks build
 * --corpus-files`, tests), and pairing .dp heads with their .mrg twins.
 *
 * HOW IT WORKS. A file is read in 1 MiB blocks; ing_chunk_end finds the last sentence
 * boundary, that prefix goes to ing_parse_chunk, the rest is kept for the next block. All
 * sentences of all files land in one ing_batch (one arena), which is what the derivation
 * wants: it looks at the whole corpus at once (frequencies, balancing). It does NOT name
 * sentences or keep rejected ones; the store's ingest does that. */
#include <errno.h>
#include <string.h>

#include "probes/task_derive.h"

int prb_load_file(const char *path, enum sp_format fmt, struct ing_batch *b, int *n_rejected,
                  char *err, size_t errlen)
{
    FILE *f = sp_fopen_input(path, err, errlen);
    if (!f) return SP_EIO;
    size_t cap = 1u << 20, len = 0;
    char *buf = sp_xmalloc(cap);
    long line = 1;
    int first = 1, eof = 0, rc = SP_OK;
    char msg[SP_ERRLEN];
    while (!eof || len) {
        if (!eof) {
            if (cap - len < (1u << 19)) { cap *= 2; buf = sp_xrealloc(buf, cap); }
            size_t got = fread(buf + len, 1, cap - len, f);
            if (got == 0) {
                if (ferror(f)) { snprintf(err, errlen, "%s: read error", path); rc = SP_EIO; break; }
                eof = 1;
            }
            len += got;
        }
        if (fmt == SP_FMT_AUTO) {
            fmt = ing_detect_format(path, buf, len);
            if (fmt == SP_FMT_AUTO) {
                snprintf(err, errlen, "%s:1: unknown format (expected .conllu, .mrg or .dp content)", path);
                rc = SP_EPARSE;
                break;
            }
        }
        size_t cut = ing_chunk_end(fmt, buf, len, eof, first);
        if (cut == 0) continue;                     /* no boundary yet: read more */
        int before = b->n_items;
        rc = ing_parse_chunk(fmt, SP_MODE_DEFAULT, buf, cut, line, first, b, msg, sizeof msg);
        if (rc != SP_OK) { snprintf(err, errlen, "%s:%s", path, msg); break; }
        for (int i = before; i < b->n_items; i++)
            if (b->item[i].error && n_rejected) (*n_rejected)++;
        for (size_t i = 0; i < cut; i++) line += buf[i] == '\n';
        memmove(buf, buf + cut, len - cut);
        len -= cut;
        first = 0;
    }
    free(buf);
    fclose(f);
    return rc;
}

static int same_words(const struct sp_sentence *x, const struct sp_sentence *y)
{
    if (x->n != y->n) return 0;
    for (int i = 0; i < x->n; i++)
        if (strcmp(x->col[SP_FORM][i], y->col[SP_FORM][i])) return 0;
    return 1;
}

int prb_merge_heads(struct ing_batch *b, int from)
{
    /* .dp and .mrg of the NLTK sample align sentence by sentence, so a forward cursor over the
     * tree sentences finds every twin in one pass; a miss restarts the search from the top */
    int merged = 0, cur = 0;
    for (int i = from; i < b->n_items; i++) {
        struct ing_item *d = &b->item[i];
        if (d->error || d->s.tree || !d->s.head) continue;
        int found = -1;
        for (int pass = 0; pass < 2 && found < 0; pass++)
            for (int k = pass ? 0 : cur; k < (pass ? cur : from); k++) {
                struct ing_item *t = &b->item[k];
                if (!t->error && t->s.tree && !t->s.head && same_words(&t->s, &d->s)) { found = k; break; }
            }
        if (found < 0) continue;
        b->item[found].s.head = d->s.head;
        d->error = "merged";
        cur = found + 1;
        merged++;
    }
    return merged;
}

struct sp_sentence prb_sentence_copy(struct sp_arena *a, const struct sp_sentence *s)
{
    struct sp_sentence c = { 0 };
    c.sent_id = s->sent_id ? sp_arena_strdup(a, s->sent_id) : NULL;
    c.line = s->line;
    c.n = s->n;
    for (int k = 0; k < SP_NCOLS; k++) {
        if (!s->col[k]) continue;
        c.col[k] = sp_arena_alloc(a, ((size_t)s->n + 1) * sizeof *c.col[k]);
        for (int i = 0; i < s->n; i++) c.col[k][i] = sp_arena_strdup(a, s->col[k][i] ? s->col[k][i] : "_");
    }
    if (s->head) {
        c.head = sp_arena_alloc(a, ((size_t)s->n + 1) * sizeof *c.head);
        memcpy(c.head, s->head, (size_t)s->n * sizeof *c.head);
    }
    if (s->tree) {
        struct sp_ctree *t = sp_arena_alloc(a, sizeof *t);
        t->n_nodes = s->tree->n_nodes;
        t->node = sp_arena_alloc(a, ((size_t)t->n_nodes + 1) * sizeof *t->node);
        for (int k = 0; k < t->n_nodes; k++) {
            t->node[k] = s->tree->node[k];
            t->node[k].label = sp_arena_strdup(a, s->tree->node[k].label ? s->tree->node[k].label : "");
        }
        c.tree = t;
    }
    return c;
}
