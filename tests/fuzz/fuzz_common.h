/* tests/fuzz/fuzz_common.h — the body shared by the three libFuzzer targets: cut the input
 * into chunks with ing_chunk_end (windows of a size chosen by the first byte, so partial
 * windows and "no boundary yet" are exercised), parse every chunk in all three modes, and
 * check the invariants every consumer relies on (abort on violation, so libFuzzer reports it). */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/sp.h"
#include "ingest/ingest.h"

#define FZ_CHECK(c) do { if (!(c)) { fprintf(stderr, "invariant failed: %s (%s:%d)\n", #c, __FILE__, __LINE__); abort(); } } while (0)

static void fz_check_item(const struct ing_item *it, const char *chunk, size_t clen)
{
    FZ_CHECK(it->raw != NULL || it->raw_len == 0);
    FZ_CHECK(it->raw_len <= clen);
    (void)chunk;
    if (it->error) { FZ_CHECK(strlen(it->error) > 0); return; }
    const struct sp_sentence *s = &it->s;
    FZ_CHECK(s->n > 0);
    for (int c = 0; c < SP_NCOLS; c++)
        for (int i = 0; i < s->n; i++) FZ_CHECK(s->col[c][i] != NULL);
    if (s->head) {
        int root = 0;
        int *h1 = malloc((size_t)s->n * sizeof *h1);
        for (int i = 0; i < s->n; i++) {
            FZ_CHECK(s->head[i] >= -1 && s->head[i] < s->n && s->head[i] != i);
            root += s->head[i] == -1;
            h1[i] = s->head[i] + 1;
        }
        FZ_CHECK(root == 1);
        FZ_CHECK(ing_heads_valid(s->n, h1, NULL));
        free(h1);
    }
    for (int k = 0; k < s->n_extra; k++) {
        const struct sp_extra *e = &s->extra[k];
        FZ_CHECK(e->pos >= 0 && e->pos <= s->n && e->line != NULL);
        if (k) FZ_CHECK(e->pos >= s->extra[k - 1].pos);
        if (e->kind == SP_EXTRA_MWT) FZ_CHECK(e->first >= 0 && e->first < e->last && e->last < s->n);
    }
    if (s->tree) {
        const struct sp_ctree *t = s->tree;
        FZ_CHECK(t->n_nodes >= 2 && t->node[0].parent == -1);
        FZ_CHECK(t->node[0].start == 0 && t->node[0].end == s->n - 1 && t->node[0].n_children == 1);
        int words = 0;
        for (int j = 0; j < t->n_nodes; j++) {
            const struct sp_cnode *c = &t->node[j];
            FZ_CHECK(c->label != NULL);
            if (j) FZ_CHECK(c->parent >= 0 && c->parent < j);
            FZ_CHECK(c->start <= c->end && c->start >= 0 && c->end < s->n);
            if (c->word >= 0) {
                FZ_CHECK(c->word == words && c->first_child == -1 && c->n_children == 0);
                FZ_CHECK(c->start == c->word && c->end == c->word);
                words++;
            } else {
                FZ_CHECK(c->first_child == j + 1 && c->n_children >= 1);
                int cnt = 0, prev_end = c->start - 1;
                for (int ch = c->first_child; ch >= 0; ch = t->node[ch].next_sibling) {
                    FZ_CHECK(t->node[ch].parent == j && t->node[ch].start == prev_end + 1);
                    prev_end = t->node[ch].end;
                    cnt++;
                }
                FZ_CHECK(cnt == c->n_children && prev_end == c->end);
            }
        }
        FZ_CHECK(words == s->n);
    }
}

static int fz_run(enum sp_format fmt, const uint8_t *data, size_t size)
{
    static struct ing_batch b;
    static int init;
    if (!init) { ing_batch_init(&b); init = 1; }
    size_t window = size ? 1 + (size_t)(data[0] % 64) * 8 : 1;
    char err[SP_ERRLEN];
    for (int m = 0; m < 3; m++) {
        size_t pos = 0;
        long line = 1;
        ing_batch_reset(&b);
        while (pos < size) {
            size_t win = window < size - pos ? window : size - pos, cut;
            for (;;) {
                cut = ing_chunk_end(fmt, (const char *)data + pos, win, pos + win == size);
                if (cut) break;
                win = win * 2 < size - pos ? win * 2 : size - pos;
            }
            FZ_CHECK(cut <= win);
            int before = b.n_items;
            int rc = ing_parse_chunk(fmt, (enum sp_mode)m, (const char *)data + pos, cut, line, pos == 0, &b, err, sizeof err);
            FZ_CHECK(rc == SP_OK || rc == SP_EPARSE);
            if (rc == SP_OK)
                for (int i = before; i < b.n_items; i++) fz_check_item(&b.item[i], (const char *)data + pos, cut);
            for (size_t i = 0; i < cut; i++) line += data[pos + i] == '\n';
            pos += cut;
        }
    }
    return 0;
}

#endif
