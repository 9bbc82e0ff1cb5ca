/* tests/unit/ingest_ptb.c — PTB bracket reader (docs/spec/structures.md §2.3): TV-4 (by hand and from
 * wsj_0049.mrg), base labels, wrapper rules, errors in every mode, empty trees, a 10,000-deep
 * tree, the 3,914-tree sample in chunks, and .mrg vs .dp word/POS equality (§2.2 facts). */
#include "tests/unit/t_harness.h"
#include "tests/unit/ingest_t.h"

#include "common/sp.h"

static void check_tv4(const struct ing_item *it)
{
    T_CHECK(it->error == NULL);
    if (it->error) return;
    const struct sp_sentence *s = &it->s;
    T_EQ_INT(s->n, 4);
    static const char *words[4] = { "ABORTION", "RULING", "UPHELD", ":" };
    static const char *pos[4] = { "NN", "NN", "VBN", ":" };
    for (int i = 0; i < 4 && i < s->n; i++) {
        T_EQ_STR(s->col[SP_FORM][i], words[i]);
        T_EQ_STR(s->col[SP_XPOS][i], pos[i]);
        T_EQ_STR(s->col[SP_LEMMA][i], "_");
        T_EQ_STR(s->col[SP_MISC][i], "_");
    }
    T_CHECK(s->head == NULL);
    T_CHECK(s->tree != NULL);
    if (!s->tree) return;
    /* pre-order: wrapper, S-HLN, NP-SBJ-1, NN, NN, VP, VBN, : */
    static const struct { const char *label; int parent, first, next, nch, start, end, word; } want[8] = {
        { "", -1, 1, -1, 1, 0, 3, -1 },
        { "S-HLN", 0, 2, -1, 3, 0, 3, -1 },
        { "NP-SBJ-1", 1, 3, 5, 2, 0, 1, -1 },
        { "NN", 2, -1, 4, 0, 0, 0, 0 },
        { "NN", 2, -1, -1, 0, 1, 1, 1 },
        { "VP", 1, 6, 7, 1, 2, 2, -1 },
        { "VBN", 5, -1, -1, 0, 2, 2, 2 },
        { ":", 1, -1, -1, 0, 3, 3, 3 },
    };
    T_EQ_INT(s->tree->n_nodes, 8);
    for (int k = 0; k < 8 && k < s->tree->n_nodes; k++) {
        const struct sp_cnode *c = &s->tree->node[k];
        T_EQ_STR(c->label, want[k].label);
        T_EQ_INT(c->parent, want[k].parent);
        T_EQ_INT(c->first_child, want[k].first);
        T_EQ_INT(c->next_sibling, want[k].next);
        T_EQ_INT(c->n_children, want[k].nch);
        T_EQ_INT(c->start, want[k].start);
        T_EQ_INT(c->end, want[k].end);
        T_EQ_INT(c->word, want[k].word);
    }
}

static void test_tv4_labels(void)
{
    struct ing_batch *b = t_parse(SP_FMT_PTB, SP_MODE_DEFAULT,
        "( (S-HLN (NP-SBJ-1 (NN ABORTION) (NN RULING)) (VP (VBN UPHELD) (NP (-NONE- *-1))) (: :)))");
    T_EQ_INT(b->n_items, 1);
    if (b->n_items == 1) check_tv4(&b->item[0]);

    static const char *lab[][2] = {
        { "NP-SBJ-1", "NP" }, { "PP-LOC-CLR", "PP" }, { "S-TPC-1", "S" }, { "NP=2", "NP" }, { "PP-LOC=2", "PP" },
        { "S-HLN", "S" }, { "PRP$", "PRP$" }, { ",", "," }, { "ADVP|PRT", "ADVP" }, { "-NONE-", "-NONE-" },
        { "-LRB-", "-LRB-" }, { "-RCB-", "-RCB-" }, { "NP", "NP" }, { "", "" }, { "WHNP-1", "WHNP" },
    };
    char buf[32];
    for (size_t i = 0; i < sizeof lab / sizeof lab[0]; i++) T_EQ_STR(ing_base_label(lab[i][0], buf, sizeof buf), lab[i][1]);
    T_EQ_STR(ing_base_label("ADJP-PRD", buf, 3), "AD");          /* truncated to cap */
}

static void test_wrappers(void)
{
    struct ing_batch *b = t_parse(SP_FMT_PTB, SP_MODE_DEFAULT, "(ROOT (S (NN a)))");
    T_EQ_INT(b->item[0].s.tree->n_nodes, 3);
    T_EQ_STR(b->item[0].s.tree->node[0].label, "ROOT");
    T_EQ_STR(b->item[0].s.tree->node[1].label, "S");

    b = t_parse(SP_FMT_PTB, SP_MODE_DEFAULT, "(TOP (NN a))");
    T_EQ_INT(b->item[0].s.tree->n_nodes, 2);
    T_EQ_INT(b->item[0].s.tree->node[1].word, 0);

    /* no wrapper: one is added */
    b = t_parse(SP_FMT_PTB, SP_MODE_DEFAULT, "(S (NN a) (NN b))");
    T_EQ_INT(b->item[0].s.tree->n_nodes, 4);
    T_EQ_STR(b->item[0].s.tree->node[0].label, "");
    T_EQ_INT(b->item[0].s.tree->node[0].n_children, 1);
    T_EQ_INT(b->item[0].s.tree->node[1].parent, 0);
    T_EQ_INT(b->item[0].s.tree->node[0].end, 1);

    /* empty label but two children: not a wrapper */
    b = t_parse(SP_FMT_PTB, SP_MODE_DEFAULT, "( (NP (NN a)) (VP (VB b)) )");
    T_EQ_INT(b->item[0].s.tree->n_nodes, 6);
    T_EQ_INT(b->item[0].s.tree->node[1].n_children, 2);
    T_EQ_STR(b->item[0].s.tree->node[2].label, "NP");
    b = t_parse(SP_FMT_PTB, SP_MODE_DEFAULT, "(ROOT (NN a) (NN b))");
    T_EQ_INT(b->item[0].s.tree->n_nodes, 4);
    T_EQ_STR(b->item[0].s.tree->node[1].label, "ROOT");

    /* one child left after -NONE- removal: a wrapper */
    b = t_parse(SP_FMT_PTB, SP_MODE_DEFAULT, "( (S (NN a)) (-NONE- *) )");
    T_EQ_INT(b->item[0].s.tree->n_nodes, 3);

    /* a bare preterminal tree gets a wrapper */
    b = t_parse(SP_FMT_PTB, SP_MODE_DEFAULT, "(NN dog)");
    T_EQ_INT(b->item[0].s.n, 1);
    T_EQ_INT(b->item[0].s.tree->n_nodes, 2);
    T_EQ_STR(b->item[0].s.col[SP_FORM][0], "dog");

    /* several trees, spanning lines, no space before parentheses, escaped words kept */
    b = t_parse(SP_FMT_PTB, SP_MODE_DEFAULT,
                "\n( (S\n  (NP (-LRB- -LRB-)(CD 1\\/2)(-RRB- -RRB-))\n  (. .)))\n\n(\n(X(Y z)))\n");
    T_EQ_INT(b->n_items, 2);
    T_EQ_INT(b->item[0].s.line, 2);
    T_EQ_INT(b->item[1].s.line, 6);
    T_EQ_INT(b->item[0].s.n, 4);
    T_EQ_STR(b->item[0].s.col[SP_FORM][0], "-LRB-");
    T_EQ_STR(b->item[0].s.col[SP_FORM][1], "1\\/2");
    T_EQ_STR(b->item[0].s.col[SP_XPOS][2], "-RRB-");
    T_EQ_STR(b->item[1].s.col[SP_FORM][0], "z");
    T_EQ_INT(b->item[1].s.tree->n_nodes, 3);
    T_EQ_STR(b->item[1].s.tree->node[1].label, "X");
    const char *raw1 = "(\n(X(Y z)))";
    T_EQ_INT((long long)b->item[1].raw_len, (long long)strlen(raw1));
    T_CHECK(memcmp(b->item[1].raw, raw1, strlen(raw1)) == 0);
    /* unary chain created by removal is kept: (VP (VBN UPHELD)) */
    b = t_parse(SP_FMT_PTB, SP_MODE_DEFAULT, "( (VP (VBN UPHELD) (NP (-NONE- *-1))) )");
    T_EQ_INT(b->item[0].s.tree->n_nodes, 3);
    T_EQ_INT(b->item[0].s.tree->node[1].n_children, 1);
}

static void expect_all(const char *in, int n_items, int k, const char *err, long eline)
{
    for (int m = 0; m < 3; m++) {
        struct ing_batch *b = t_parse(SP_FMT_PTB, (enum sp_mode)m, in);
        T_EQ_INT(b->n_items, n_items);
        if (b->n_items != n_items) continue;
        T_EQ_STR(b->item[k].error, err);
        T_EQ_INT(b->item[k].error_line, eline);
        for (int i = 0; i < n_items; i++)
            if (i != k) T_CHECK(b->item[i].error == NULL);
    }
}

static void test_errors(void)
{
    expect_all("(S (NN a))\n( (S (NN b) )", 2, 1, "unbalanced parentheses: 1 unclosed", 2);
    expect_all("(S (NN a)))\n(S (NN b))", 3, 1, "unbalanced parentheses: unexpected ')' outside a tree", 1);
    expect_all("(S (NN a) ())\n(S (NN b))", 2, 0, "node (no label) has no children (expected a word or subtrees)", 1);
    expect_all("(S\n(NP))", 1, 0, "node NP has no children (expected a word or subtrees)", 2);
    expect_all("(S (NN a) b)", 1, 0, "node S mixes a word and subtrees (expected one or the other)", 1);
    expect_all("(S b (NN a)) (NN c)", 2, 0, "node S mixes a word and subtrees (expected one or the other)", 1);
    expect_all("(NP a b)", 1, 0, "node NP has more than one word (expected exactly one)", 1);
    expect_all("foo bar\n(S (NN a))", 2, 0, "expected '(' to start a tree, got 'foo'", 1);
    expect_all("(S (NN caf\xC3))", 1, 0, "invalid UTF-8 (expected UTF-8 text)", 1);

    /* a tree that is only empty elements: dropped, but still an item (positions count) */
    struct ing_batch *b = t_parse(SP_FMT_PTB, SP_MODE_DEFAULT,
                                  "( (S (NP-SBJ (-NONE- *)) (VP (-NONE- *T*-1))) )\n( (NP (NN x)) )");
    T_EQ_INT(b->n_items, 2);
    T_EQ_STR(b->item[0].error, "tree is empty after removing -NONE- elements (dropped, W_EMPTYTREE)");
    T_EQ_INT(b->item[0].s.warn, SP_W_EMPTYTREE);
    T_CHECK(b->item[1].error == NULL);
    T_EQ_INT(b->item[1].s.line, 2);

    /* binary data */
    ing_batch_reset(&t_b);
    T_EQ_INT(ing_parse_chunk(SP_FMT_PTB, SP_MODE_DEFAULT, "(S (NN \0))", 10, 1, 1, &t_b, t_err, sizeof t_err), SP_EPARSE);

    /* chunk boundaries */
    T_EQ_INT(ing_chunk_end(SP_FMT_PTB, "(a) (b", 6, 0, 0), 3);
    T_EQ_INT(ing_chunk_end(SP_FMT_PTB, "((a) (b))\n(", 11, 0, 0), 9);
    T_EQ_INT(ing_chunk_end(SP_FMT_PTB, "((a)", 4, 0, 0), 0);
    T_EQ_INT(ing_chunk_end(SP_FMT_PTB, ") x", 3, 0, 0), 1);
    T_EQ_INT(ing_chunk_end(SP_FMT_PTB, "((a)", 4, 1, 0), 4);

    /* a missing ')': a '(' in column 0 inside a tree that has a word starts the next tree
     * (issue 10, item 6); "( (A b)\n" is 8 bytes, "( (C d) )" ends at byte 17 */
    T_EQ_INT(ing_chunk_end(SP_FMT_PTB, "( (A b)\n( (C d) )\n(", 19, 0, 0), 17);
    T_EQ_INT(ing_chunk_end(SP_FMT_PTB, "( (A b)\n( (C", 13, 0, 0), 8);
    /* ... but not before the tree's first word: "(\n(X (Y z)))" is one tree (12 bytes) */
    T_EQ_INT(ing_chunk_end(SP_FMT_PTB, "(\n(X (Y z)))\n(", 14, 0, 0), 12);
    /* a label is not a word: "(S\n(" has none yet */
    T_EQ_INT(ing_chunk_end(SP_FMT_PTB, "(S\n(NP a))\n(", 12, 0, 0), 10);
    b = t_parse(SP_FMT_PTB, SP_MODE_DEFAULT, "( (A b) )\n( (B c)\n  (D e)\n( (F g) )\n");
    T_EQ_INT(b->n_items, 3);
    T_CHECK(b->item[0].error == NULL);
    T_EQ_STR(b->item[1].error, "unbalanced parentheses: 1 unclosed when the next tree starts at line 4 "
                               "(a '(' in the first column of a line starts a tree)");
    T_EQ_INT(b->item[1].error_line, 2);
    T_EQ_INT((long long)b->item[1].raw_len, (long long)strlen("( (B c)\n  (D e)\n"));
    T_CHECK(b->item[2].error == NULL);
    T_EQ_INT(b->item[2].s.line, 4);
    T_EQ_STR(b->item[2].s.col[SP_FORM][0], "g");

    /* -NONE- with subtrees is not an empty element (issue 10, item 14) */
    b = t_parse(SP_FMT_PTB, SP_MODE_DEFAULT, "( (S (-NONE- (NN x)) (NN y)) )");
    T_EQ_INT(b->n_items, 1);
    T_EQ_STR(b->item[0].error, "-NONE- node has subtrees (expected one trace word)");
}

static void test_deep(void)
{
    int depth = 10000;
    struct sp_buf b = { 0 };
    for (int i = 0; i < depth; i++) sp_buf_puts(&b, "(X ");
    sp_buf_puts(&b, "(NN a) (-NONE- *)");
    for (int i = 0; i < depth; i++) sp_buf_puts(&b, ")");
    T_EQ_INT(ing_chunk_end(SP_FMT_PTB, b.p, b.len, 0, 0), b.len);
    struct ing_batch *r = t_parse(SP_FMT_PTB, SP_MODE_DEFAULT, b.p);
    T_EQ_INT(r->n_items, 1);
    T_CHECK(r->item[0].error == NULL);
    T_EQ_INT(r->item[0].s.n, 1);
    T_EQ_INT(r->item[0].s.tree->n_nodes, depth + 2);      /* added wrapper, 10,000 X, NN */
    T_EQ_INT(r->item[0].s.tree->node[depth + 1].word, 0);
    T_EQ_INT(r->item[0].s.tree->node[depth + 1].parent, depth);
    T_EQ_INT(r->item[0].s.tree->node[1].end, 0);
    sp_buf_free(&b);

    /* 10,000 nested nodes over one -NONE-: the whole chain is removed */
    for (int i = 0; i < depth; i++) sp_buf_puts(&b, "(X ");
    sp_buf_puts(&b, "(-NONE- *)");
    for (int i = 0; i < depth; i++) sp_buf_puts(&b, ")");
    r = t_parse(SP_FMT_PTB, SP_MODE_DEFAULT, b.p);
    T_EQ_INT(r->item[0].s.warn, SP_W_EMPTYTREE);
    sp_buf_free(&b);

    /* unclosed deep tree */
    for (int i = 0; i < depth; i++) sp_buf_puts(&b, "(X ");
    r = t_parse(SP_FMT_PTB, SP_MODE_DEFAULT, b.p);
    T_EQ_STR(r->item[0].error, "unbalanced parentheses: 10000 unclosed");
    sp_buf_free(&b);
}

static void test_sample(void)
{
    const char *dir = t_data_dir();
    if (!dir) { T_SKIP("../shared/data absent: PTB sample checks skipped"); return; }
    char cdir[512], ddir[512], path[1024];
    snprintf(cdir, sizeof cdir, "%s/ptb-sample/combined", dir);
    snprintf(ddir, sizeof ddir, "%s/ptb-sample/dependency", dir);
    char **mrg = NULL, **dp = NULL;
    int nm = t_list_dir(cdir, ".mrg", &mrg), nd = t_list_dir(ddir, ".dp", &dp);
    T_EQ_INT(nm, 199);
    T_EQ_INT(nd, 199);
    if (nm != 199 || nd != 199) return;

    struct sp_buf all = { 0 };
    long trees[2] = { 0, 0 }, words[2] = { 0, 0 }, errors = 0, dp_sents = 0, dp_words = 0, mismatch = 0;
    int tv4_seen = 0;
    for (int f = 0; f < nm; f++) {
        size_t lm = 0, ld = 0;
        snprintf(path, sizeof path, "%s/%s", cdir, mrg[f]);
        char *bm = t_read_file(path, &lm);
        snprintf(path, sizeof path, "%s/%.8s.dp", ddir, mrg[f]);
        char *bd = t_read_file(path, &ld);
        T_CHECK(bm && bd);
        if (!bm || !bd) continue;
        if (f == 0) T_EQ_INT(ing_detect_format("x", bm, lm), SP_FMT_PTB);
        if (f == 0) T_EQ_INT(ing_detect_format("x", bd, ld), SP_FMT_DEP);
        sp_buf_put(&all, bm, lm);
        struct ing_batch B[2], D;
        static const size_t chunk[2] = { 4096, 1u << 20 };
        for (int c = 0; c < 2; c++) {
            ing_batch_init(&B[c]);
            T_CHECK(t_parse_chunked(SP_FMT_PTB, SP_MODE_DEFAULT, bm, lm, chunk[c], &B[c]) > 0);
            trees[c] += B[c].n_items;
            for (int i = 0; i < B[c].n_items; i++) {
                if (B[c].item[i].error) { errors++; continue; }
                words[c] += B[c].item[i].s.n;
            }
        }
        ing_batch_init(&D);
        T_CHECK(t_parse_chunked(SP_FMT_DEP, SP_MODE_DEFAULT, bd, ld, 4096, &D) > 0);
        dp_sents += D.n_items;
        if (D.n_items != B[0].n_items) mismatch++;
        for (int i = 0; i < D.n_items && i < B[0].n_items; i++) {
            struct sp_sentence *d = &D.item[i].s, *m = &B[0].item[i].s;
            if (D.item[i].error) { errors++; continue; }
            dp_words += d->n;
            int bad = d->n != m->n || !d->head;
            for (int k = 0; !bad && k < d->n; k++)
                bad = strcmp(d->col[SP_FORM][k], m->col[SP_FORM][k]) || strcmp(d->col[SP_XPOS][k], m->col[SP_XPOS][k]);
            mismatch += bad;
            if (m->n == 4 && strcmp(m->col[SP_FORM][0], "ABORTION") == 0) { check_tv4(&B[0].item[i]); tv4_seen = 1; }
        }
        ing_batch_free(&B[0]);
        ing_batch_free(&B[1]);
        ing_batch_free(&D);
        free(bm);
        free(bd);
        free(mrg[f]);
        free(dp[f]);
    }
    free(mrg);
    free(dp);
    T_EQ_INT(trees[0], 3914);
    T_EQ_INT(trees[1], 3914);
    T_EQ_INT(words[0], 94084);
    T_EQ_INT(words[1], 94084);
    T_EQ_INT(errors, 0);
    T_EQ_INT(dp_sents, 3914);
    T_EQ_INT(dp_words, 94084);
    T_EQ_INT(mismatch, 0);
    T_CHECK(tv4_seen);

    /* all 199 files as one stream, in 64 KB windows */
    struct ing_batch b;
    ing_batch_init(&b);
    double t0 = sp_now();
    T_CHECK(t_parse_chunked(SP_FMT_PTB, SP_MODE_DEFAULT, all.p, all.len, 65536, &b) > 10);
    double dt = sp_now() - t0;
    long w = 0;
    for (int i = 0; i < b.n_items; i++) w += b.item[i].error ? 0 : b.item[i].s.n;
    T_EQ_INT(b.n_items, 3914);
    T_EQ_INT(w, 94084);
    printf("ingest_ptb: PTB sample parse rate %.2f M words/s, one thread\n", (double)w / dt / 1e6);
    ing_batch_free(&b);
    sp_buf_free(&all);
}

int main(void)
{
    ing_batch_init(&t_b);
    test_tv4_labels();
    test_wrappers();
    test_errors();
    test_deep();
    test_sample();
    ing_batch_free(&t_b);
    return T_DONE();
}
