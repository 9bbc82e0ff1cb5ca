/* tests/unit/ingest_dep.c — 3-column dependency reader (docs/spec/structures.md §2.2): columns, the
 * optional DEPREL column, BOM/CRLF, blank lines, errors and HEAD repair in every mode, and
 * the sample's counts (3,914 sentences, 94,084 words, every tree valid). */
#include "tests/unit/t_harness.h"
#include "tests/unit/ingest_t.h"

#include "common/sp.h"

static void test_basic(void)
{
    struct ing_batch *b = t_parse(SP_FMT_DEP, SP_MODE_DEFAULT,
        "\xEF\xBB\xBFPierre\tNNP\t2\r\nVinken\tNNP\t0\r\n\r\n\r\n#\t#\t2\tdep\n1\\/2\tCD\t0\troot\n");
    T_EQ_INT(b->n_items, 2);
    if (b->n_items != 2) return;
    struct sp_sentence *s = &b->item[0].s;
    T_CHECK(b->item[0].error == NULL);
    T_EQ_INT(s->n, 2);
    T_EQ_STR(s->col[SP_FORM][0], "Pierre");
    T_EQ_STR(s->col[SP_XPOS][1], "NNP");
    T_EQ_STR(s->col[SP_DEPREL][0], "_");
    T_EQ_STR(s->col[SP_UPOS][0], "_");
    T_EQ_STR(s->col[SP_LEMMA][1], "_");
    T_EQ_INT(s->head[0], 1);
    T_EQ_INT(s->head[1], -1);
    T_EQ_INT(s->line, 1);
    T_CHECK(s->comments == NULL && s->sent_id == NULL && s->extra == NULL && s->tree == NULL);
    s = &b->item[1].s;
    T_CHECK(b->item[1].error == NULL);
    T_EQ_INT(s->line, 5);
    T_EQ_STR(s->col[SP_FORM][0], "#");                  /* '#' is a word here, not a comment */
    T_EQ_STR(s->col[SP_DEPREL][0], "dep");
    T_EQ_STR(s->col[SP_DEPREL][1], "root");
    T_EQ_STR(s->col[SP_FORM][1], "1\\/2");
    T_EQ_INT(s->head[0], 1);
    T_EQ_INT((long long)b->item[1].raw_len, (long long)strlen("#\t#\t2\tdep\n1\\/2\tCD\t0\troot\n"));
}

static void expect(const char *in, const char *e_def, const char *e_strict, const char *e_rep, long eline)
{
    const char *want[3] = { e_def, e_strict, e_rep };
    for (int m = 0; m < 3; m++) {
        struct ing_batch *b = t_parse(SP_FMT_DEP, (enum sp_mode)m, in);
        T_EQ_INT(b->n_items, 1);
        if (b->n_items < 1) continue;
        if (want[m]) {
            T_EQ_STR(b->item[0].error, want[m]);
            T_EQ_INT(b->item[0].error_line, eline);
        } else {
            if (b->item[0].error) fprintf(stderr, "  mode %d: unexpected error: %s\n", m, b->item[0].error);
            T_CHECK(b->item[0].error == NULL);
        }
    }
}

static void test_errors(void)
{
    const char *e2 = "expected 3 or 4 tab-separated fields (FORM POS HEAD [DEPREL]), got 2";
    expect("a\tDT\t0\nb\tNN\n", e2, e2, e2, 2);
    const char *e5 = "expected 3 or 4 tab-separated fields (FORM POS HEAD [DEPREL]), got 5";
    expect("a\tDT\t0\nb\tNN\t1\tdep\tx\n", e5, e5, NULL, 2);
    struct ing_batch *b = t_parse(SP_FMT_DEP, SP_MODE_REPAIR, "a\tDT\t0\nb\tNN\t1\tdep\tx\n");
    T_EQ_INT(b->item[0].s.warn, SP_W_COLUMNS);
    T_EQ_STR(b->item[0].s.col[SP_DEPREL][1], "dep");

    const char *tv3 = "a\tX\t2\nb\tX\t3\nc\tX\t2\nd\tX\t0\ne\tX\t0\nf\tX\t9\n";
    expect(tv3, "HEAD 9 out of range 0..6 for word 6", "HEAD 9 out of range 0..6 for word 6", NULL, 6);
    b = t_parse(SP_FMT_DEP, SP_MODE_REPAIR, tv3);
    T_EQ_INT(b->item[0].s.warn, SP_W_BADHEAD | SP_W_MULTIROOT | SP_W_CYCLE);
    static const int want[6] = { 1, 3, 1, -1, 3, 3 };
    for (int k = 0; k < 6; k++) T_EQ_INT(b->item[0].s.head[k], want[k]);

    /* TV-3b through the reader */
    b = t_parse(SP_FMT_DEP, SP_MODE_REPAIR, "a\tX\t4\nb\tX\t3\nc\tX\t2\nd\tX\t5\ne\tX\t4\n");
    static const int want_b[5] = { 3, 3, 1, -1, 3 };
    T_EQ_INT(b->item[0].s.warn, SP_W_CYCLE);
    for (int k = 0; k < 5; k++) T_EQ_INT(b->item[0].s.head[k], want_b[k]);
    expect("a\tX\t4\nb\tX\t3\nc\tX\t2\nd\tX\t5\ne\tX\t4\n", "no root: expected exactly one word with HEAD 0, got none",
           "no root: expected exactly one word with HEAD 0, got none", NULL, 1);

    expect("a\tX\t0\nb\tX\tz\n", "HEAD 'z' of word 2 is not an integer (expected 0..2)",
           "HEAD 'z' of word 2 is not an integer (expected 0..2)", NULL, 2);
    expect("a\tX\t0\nb\tX\t0\n", "expected exactly one root (HEAD 0), got 2: words 1 and 2",
           "expected exactly one root (HEAD 0), got 2: words 1 and 2", NULL, 2);
    expect("a\xff\tX\t0\n", "invalid UTF-8 (expected UTF-8 text)", "invalid UTF-8 (expected UTF-8 text)",
           "invalid UTF-8 (expected UTF-8 text)", 1);
    /* all HEADs "_": no dependency tree */
    expect("a\tX\t_\nb\tX\t_\n", NULL, NULL, NULL, 0);
    b = t_parse(SP_FMT_DEP, SP_MODE_DEFAULT, "a\tX\t_\nb\tX\t_\n");
    T_CHECK(b->item[0].s.head == NULL);
    /* whitespace-only separator */
    b = t_parse(SP_FMT_DEP, SP_MODE_STRICT, "a\tX\t0\n  \nb\tX\t0\n");
    T_EQ_INT(b->n_items, 2);
    T_CHECK(b->item[0].error != NULL && b->item[1].error == NULL);
    b = t_parse(SP_FMT_DEP, SP_MODE_DEFAULT, "a\tX\t0\n  \nb\tX\t0\n");
    T_CHECK(b->item[0].error == NULL && b->item[1].error == NULL);
}

static void test_sample(void)
{
    const char *dir = t_data_dir();
    if (!dir) { T_SKIP("../shared/data absent: .dp sample checks skipped"); return; }
    char ddir[512], path[1024];
    snprintf(ddir, sizeof ddir, "%s/ptb-sample/dependency", dir);
    char **dp = NULL;
    int nd = t_list_dir(ddir, ".dp", &dp);
    T_EQ_INT(nd, 199);
    struct sp_buf all = { 0 };
    for (int f = 0; f < nd; f++) {
        size_t l = 0;
        snprintf(path, sizeof path, "%s/%s", ddir, dp[f]);
        char *p = t_read_file(path, &l);
        if (p) {
            sp_buf_put(&all, p, l);
            /* files may or may not end with a blank line: keep them separated */
            if (l && p[l - 1] != '\n') sp_buf_put(&all, "\n", 1);
            sp_buf_put(&all, "\n", 1);
        }
        free(p);
        free(dp[f]);
    }
    free(dp);
    static const size_t chunks[3] = { 4096, 1u << 20, 333 };
    for (int c = 0; c < 3; c++) {
        for (int m = 0; m < 3; m++) {
            if (c > 0 && m > 0) continue;
            struct ing_batch b;
            ing_batch_init(&b);
            T_CHECK(t_parse_chunked(SP_FMT_DEP, (enum sp_mode)m, all.p, all.len, chunks[c], &b) > 0);
            long words = 0, errors = 0, warned = 0, maxn = 0;
            for (int i = 0; i < b.n_items; i++) {
                if (b.item[i].error) { errors++; continue; }
                words += b.item[i].s.n;
                warned += b.item[i].s.warn != 0;
                if (b.item[i].s.n > maxn) maxn = b.item[i].s.n;
            }
            T_EQ_INT(b.n_items, 3914);
            T_EQ_INT(words, 94084);
            T_EQ_INT(errors, 0);
            T_EQ_INT(warned, 0);
            T_EQ_INT(maxn, 249);
            ing_batch_free(&b);
        }
    }
    sp_buf_free(&all);
}

int main(void)
{
    ing_batch_init(&t_b);
    test_basic();
    test_errors();
    test_sample();
    ing_batch_free(&t_b);
    return T_DONE();
}
