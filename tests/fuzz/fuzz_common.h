/* tests/fuzz/fuzz_common.h — the body shared by the three libFuzzer targets: cut the input
 * into chunks with ing_chunk_end (windows of a size chosen by the first byte, so partial
 * windows and "no boundary yet" are exercised), parse every chunk in all three modes, and
 * check the invariants every consumer relies on (abort on violation, so libFuzzer reports it),
 * including that every line of the line formats is accounted for (fz_check_lines). */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/sp.h"
#include "ingest/readers.h"
#include "probes/tree_scoring.h"
#include "store/blob.h"
#include "store/st_derive.h"

#define FZ_CHECK(c) do { if (!(c)) { fprintf(stderr, "invariant failed: %s (%s:%d)\n", #c, __FILE__, __LINE__); abort(); } } while (0)

static void fz_check_item(const struct ing_item *it, const char *chunk, size_t clen, int max_words)
{
    FZ_CHECK(it->raw != NULL || it->raw_len == 0);
    FZ_CHECK(it->raw_len <= clen);
    (void)chunk;
    if (it->error) { FZ_CHECK(strlen(it->error) > 0); return; }
    const struct sp_sentence *s = &it->s;
    FZ_CHECK(s->n > 0 && s->n <= max_words);
    FZ_CHECK(!s->sent_id || s->sent_id[0]);
    for (int c = 0; c < SP_NCOLS; c++)
        for (int i = 0; i < s->n; i++) FZ_CHECK(s->col[c][i] != NULL);
    for (int i = 0; i < s->n; i++) FZ_CHECK(s->col[SP_FORM][i][0] != 0);
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
        if (e->kind == SP_EXTRA_MWT) {
            FZ_CHECK(e->first >= 0 && e->first < e->last && e->last < s->n);
            FZ_CHECK(e->pos == e->first);                 /* its line right before its first word */
            for (int q = 0; q < k; q++)                   /* ranges never overlap */
                if (s->extra[q].kind == SP_EXTRA_MWT) FZ_CHECK(s->extra[q].last < e->first);
        }
    }
    if (s->tree) {
        const struct sp_ctree *t = s->tree;
        FZ_CHECK(t->n_nodes >= 2 && t->node[0].parent == -1);
        FZ_CHECK(t->node[0].start == 0 && t->node[0].end == s->n - 1 && t->node[0].n_children == 1);
        int words = 0;
        for (int j = 0; j < t->n_nodes; j++) {
            const struct sp_cnode *c = &t->node[j];
            FZ_CHECK(c->label != NULL && strcmp(c->label, "-NONE-") != 0);
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

/* The structures ingest caches for a valid sentence (treeops, then the store's BLOB codec, both
 * the one-byte and the two-byte forms), checked against properties of trees rather than
 * against the code's own output: depth(i) = depth(head(i)) + 1, D symmetric with D(i, head) = 1
 * and |D(i, j) - D(head(i), j)| = 1, j an ancestor of i iff D(i, j) = depth(i) - depth(j),
 * rel_pos antisymmetric, every PSAN level a left-to-right partition refining the one above. */
static void fz_check_derived(const struct sp_sentence *s)
{
    static struct sp_arena a;
    static struct st_derive_scratch sc;
    static int init;
    if (!init) { sp_arena_init(&a); st_derive_scratch_init(&sc); init = 1; }
    sp_arena_reset(&a);
    struct st_derived d;
    const int n = s->n, T = 3;
    FZ_CHECK(st_derive(s, T, &a, &sc, &d) == 0);
    if (s->head) {
        FZ_CHECK(d.has_dep);
        FZ_CHECK(st_blob_check(d.depth.p, d.depth.n, ST_BLOB_DEPTH, NULL) == n);
        FZ_CHECK(st_blob_check(d.distance.p, d.distance.n, ST_BLOB_DISTANCE, NULL) == n);
        FZ_CHECK(st_blob_check(d.ancestors.p, d.ancestors.n, ST_BLOB_ANCESTORS, NULL) == n);
        FZ_CHECK(st_blob_check(d.relpos.p, d.relpos.n, ST_BLOB_RELPOS, NULL) == n);
        size_t nn = (size_t)n * (size_t)n;
        int *D = malloc(sizeof(int) * nn), *R = malloc(sizeof(int) * nn), *dep = malloc(sizeof(int) * (size_t)n);
        uint8_t *A = malloc(nn);
        st_blob_get_distance(d.distance.p, n, D);
        st_blob_get_relpos(d.relpos.p, n, R);
        st_blob_get_ancestors(d.ancestors.p, n, A);
        for (int i = 0; i < n; i++) dep[i] = st_blob_depth_at(d.depth.p, i);
        for (int i = 0; i < n; i++) {
            int h = s->head[i];
            if (h < 0) FZ_CHECK(dep[i] == 0 && d.root == i);
            else FZ_CHECK(dep[i] == dep[h] + 1 && D[(size_t)i * n + h] == 1 && A[(size_t)i * n + h] == 1);
            FZ_CHECK(dep[i] <= d.max_depth);
            for (int j = 0; j < n; j++) {
                size_t ij = (size_t)i * n + j, ji = (size_t)j * n + i;
                FZ_CHECK(D[ij] == D[ji] && R[ij] == -R[ji] && (D[ij] == 0) == (i == j));
                FZ_CHECK(A[ij] == (D[ij] == dep[i] - dep[j]));
                if (h >= 0) FZ_CHECK(abs(D[ij] - D[(size_t)h * n + j]) == 1);
                FZ_CHECK(st_blob_distance_at(d.distance.p, n, i, j) == D[ij]);
                FZ_CHECK(st_blob_relpos_at(d.relpos.p, n, i, j) == R[ij]);
                FZ_CHECK(st_blob_ancestor_at(d.ancestors.p, n, i, j) == A[ij]);
            }
        }
        free(D); free(R); free(dep); free(A);
    }
    if (s->tree) {
        int levels = 0, m = 0;
        FZ_CHECK(d.has_const);
        FZ_CHECK(st_blob_check(d.phrases.p, d.phrases.n, ST_BLOB_PHRASES, &levels) == n && levels == T);
        FZ_CHECK(st_blob_check(d.spans.p, d.spans.n, ST_BLOB_SPANS, &m) == n && m >= 0);   /* a lone preterminal has none */
        for (int t = 1; t <= T; t++) {
            FZ_CHECK(st_blob_phrase_at(d.phrases.p, n, t, 0) == 0);
            for (int i = 0; i + 1 < n; i++) {
                int step = st_blob_phrase_at(d.phrases.p, n, t, i + 1) - st_blob_phrase_at(d.phrases.p, n, t, i);
                FZ_CHECK(step == 0 || step == 1);
                if (t > 1 && step == 0)   /* same phrase at level t: same phrase one level up */
                    FZ_CHECK(st_blob_phrase_at(d.phrases.p, n, t - 1, i + 1) == st_blob_phrase_at(d.phrases.p, n, t - 1, i));
            }
        }
    }
}

/* What `trees` does with an accepted constituency tree (probes/tree_scoring.c walks it without
 * recursion, issue 10 item 2): the gold spans form a binary bracketing (at most n - 1 spans,
 * the first over the whole sentence, any two nested or disjoint), the gold bracket line opens
 * and closes one bracket per node, and the EVALB core takes the tree and those spans. */
static void fz_check_trees(const struct sp_sentence *s)
{
    if (!s->tree) return;
    const struct sp_ctree *t = s->tree;
    const int n = s->n;
    int *span = malloc(2 * ((size_t)n + 1) * sizeof *span);
    int k = prb_tree_gold(t, n, span);
    FZ_CHECK(k >= 0 && k <= (n > 1 ? n - 1 : 0));
    if (k) FZ_CHECK(span[0] == 0 && span[1] == n - 1);
    for (int x = 0; x < k; x++) {
        int a = span[2 * x], b = span[2 * x + 1];
        FZ_CHECK(a >= 0 && a < b && b < n);
        for (int y = 0; y < x; y++) {
            int c = span[2 * y], d = span[2 * y + 1];
            FZ_CHECK(b < c || d < a || (c <= a && b <= d) || (a <= c && d <= b));
        }
    }
    struct sp_buf line = { 0 };
    prb_gold_line(s, &line);
    long open = 0, close = 0;
    for (size_t i = 0; i < line.len; i++) { open += line.p[i] == '('; close += line.p[i] == ')'; }
    FZ_CHECK(open == t->n_nodes && close == t->n_nodes && line.len > 0 && line.p[0] == '(');
    sp_buf_free(&line);
    struct prb_trees_acc *acc = prb_trees_new(0);
    char err[SP_ERRLEN];
    int rc = prb_trees_add(acc, s, k, span, err, sizeof err);
    FZ_CHECK(rc == 0 || (rc == -1 && err[0]));
    prb_trees_delete(acc);
    free(span);
}

static int fz_blank(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r') return 0;
    return 1;
}

static long fz_count(const char *s, size_t n, const char *what)
{
    long k = 0;
    size_t w = strlen(what);
    for (const char *p = s; (size_t)(p - s) + w <= n && (p = memmem(p, n - (size_t)(p - s), what, w)); p += w) k++;
    return k;
}

/* Every non-blank line of a kept sentence is kept (a word, a multiword or empty-node line, a
 * comment) or, under --repair only, named in a note as dropped. */
static void fz_check_kept_lines(const struct ing_item *it, enum sp_format fmt, enum sp_mode mode)
{
    const struct sp_sentence *s = &it->s;
    long lines = fz_count(it->raw, it->raw_len, "\n") + (it->raw_len && it->raw[it->raw_len - 1] != '\n');
    long comments = s->comments ? 1 + fz_count(s->comments, strlen(s->comments), "\n") : 0;
    long dropped = s->warnings ? fz_count(s->warnings, strlen(s->warnings), "dropped multiword token") : 0;
    if (mode != SP_MODE_REPAIR) FZ_CHECK(s->warn == 0 && s->warnings == NULL);
    FZ_CHECK(lines == s->n + (fmt == SP_FMT_CONLLU ? s->n_extra + comments + dropped : 0));
}

/* Nothing of a line-based chunk vanishes without a record (issue 22): each line is blank, in a
 * block of comments the reader reported as skipped (b->skip), or in the raw text of an item (a
 * rejection keeps all of it; a kept sentence keeps each line, fz_check_kept_lines). Items and
 * skipped blocks come in file order from item0 and skip0 on. */
static void fz_check_lines(const struct ing_batch *b, int item0, int skip0, enum sp_format fmt, enum sp_mode mode,
                           const char *chunk, size_t clen, long line, int bom_ok)
{
    if (bom_ok && clen >= 3 && memcmp(chunk, "\xEF\xBB\xBF", 3) == 0) { chunk += 3; clen -= 3; }
    int it = item0, sk = skip0;
    size_t p = 0;
    while (p < clen) {
        if (it < b->n_items && b->item[it].s.line == line) {
            const struct ing_item *x = &b->item[it++];
            FZ_CHECK(x->raw_len > 0 && x->raw_len <= clen - p && memcmp(chunk + p, x->raw, x->raw_len) == 0);
            if (!x->error) fz_check_kept_lines(x, fmt, mode);
            line += fz_count(chunk + p, x->raw_len, "\n");
            p += x->raw_len;
            continue;
        }
        int skipped = sk < b->n_skip && b->skip[sk].line == line;
        int n_lines = skipped ? b->skip[sk++].n_lines : 1;
        FZ_CHECK(n_lines >= 1);
        for (int k = 0; k < n_lines; k++) {
            FZ_CHECK(p < clen);
            const char *nl = memchr(chunk + p, '\n', clen - p);
            size_t e = nl ? (size_t)(nl - chunk) : clen;
            FZ_CHECK(skipped ? chunk[p] == '#' : fz_blank(chunk + p, e - p));
            p = e + 1;
            line++;
        }
    }
    FZ_CHECK(it == b->n_items && sk == b->n_skip);
}

/* Chunking never changes what is read: the items of the chunked parse are those of one parse
 * of the whole input (same count, lines, verdicts and lengths), so ing_chunk_end cuts only where
 * the readers' own rules (PTB recovery at a '(' in column 0, CoNLL-U whitespace-only lines) end a
 * sentence. */
static void fz_check_same(const struct ing_batch *chunked, enum sp_format fmt, enum sp_mode mode,
                          const uint8_t *data, size_t size)
{
    static struct ing_batch w;
    static int init;
    if (!init) { ing_batch_init(&w); init = 1; }
    ing_batch_reset(&w);
    w.max_words = chunked->max_words;
    char err[SP_ERRLEN];
    if (ing_parse_chunk(fmt, mode, (const char *)data, size, 1, 1, &w, err, sizeof err) != SP_OK) return;
    FZ_CHECK(w.n_items == chunked->n_items && w.n_skip == chunked->n_skip);
    for (int i = 0; i < w.n_skip; i++)
        FZ_CHECK(w.skip[i].line == chunked->skip[i].line && w.skip[i].n_lines == chunked->skip[i].n_lines);
    for (int i = 0; i < w.n_items; i++) {
        const struct ing_item *a = &w.item[i], *c = &chunked->item[i];
        FZ_CHECK(a->s.line == c->s.line && !a->error == !c->error && a->error_line == c->error_line);
        FZ_CHECK(a->s.n == c->s.n && a->raw_len == c->raw_len);
    }
}

static int fz_run(enum sp_format fmt, const uint8_t *data, size_t size)
{
    static struct ing_batch b;
    static int init;
    if (!init) { ing_batch_init(&b); init = 1; }
    size_t window = size ? 1 + (size_t)(data[0] % 64) * 8 : 1;
    /* a small --max-words now and then, so the limit's rejection path is fuzzed too */
    int max_words = size > 1 && data[1] % 4 == 0 ? 1 + data[1] % 16 : ING_MAX_WORDS_DEFAULT;
    char err[SP_ERRLEN];
    for (int m = 0; m < 3; m++) {
        size_t pos = 0;
        long line = 1;
        int all_ok = 1;
        ing_batch_reset(&b);
        b.max_words = max_words;
        while (pos < size) {
            size_t win = window < size - pos ? window : size - pos, cut;
            for (;;) {
                cut = ing_chunk_end(fmt, (const char *)data + pos, win, pos + win == size, pos == 0);
                if (cut) break;
                win = win * 2 < size - pos ? win * 2 : size - pos;
            }
            FZ_CHECK(cut <= win);
            int before = b.n_items, skip_before = b.n_skip;
            int rc = ing_parse_chunk(fmt, (enum sp_mode)m, (const char *)data + pos, cut, line, pos == 0, &b, err, sizeof err);
            FZ_CHECK(rc == SP_OK || rc == SP_EPARSE);
            all_ok &= rc == SP_OK;
            if (rc == SP_OK) {
                for (int i = before; i < b.n_items; i++) {
                    fz_check_item(&b.item[i], (const char *)data + pos, cut, max_words);
                    if (!b.item[i].error) { fz_check_derived(&b.item[i].s); fz_check_trees(&b.item[i].s); }
                }
                if (fmt != SP_FMT_PTB)
                    fz_check_lines(&b, before, skip_before, fmt, (enum sp_mode)m, (const char *)data + pos, cut, line, pos == 0);
            }
            for (size_t i = 0; i < cut; i++) line += data[pos + i] == '\n';
            pos += cut;
        }
        if (all_ok) fz_check_same(&b, fmt, (enum sp_mode)m, data, size);
    }
    return 0;
}

#endif
