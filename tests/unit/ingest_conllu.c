/* tests/unit/ingest_conllu.c — CoNLL-U reader (docs/spec/structures.md §2.1): TV-1, TV-2, whole-file
 * counts on EWT dev read in chunks of several sizes, BOM, CRLF, blank-line rules, every error
 * kind in every mode, chunk boundaries and format detection. Expected values are from the spec
 * or worked by hand on the small inputs written here. */
#include "tests/unit/t_harness.h"
#include "tests/unit/ingest_t.h"

#include "common/sp.h"

/* a CoNLL-U word line with the given ID, FORM and HEAD */
#define W(id, form, head) id "\t" form "\t_\tX\tX\t_\t" head "\tdep\t_\t_\n"

static void test_tv1(void)
{
    const char *s =
        "# sent_id = email-enronsent23_14-0002\n"
        "# newpar id = email-enronsent23_14-p0002\n"
        "# text = I'm in\n"
        "1-2\tI'm\t_\t_\t_\t_\t_\t_\t_\t_\n"
        "1\tI\tI\tPRON\tPRP\tCase=Nom|Number=Sing|Person=1|PronType=Prs\t3\tnsubj\t3:nsubj\t_\n"
        "2\t'm\tbe\tAUX\tVBP\tMood=Ind|Number=Sing|Person=1|Tense=Pres|VerbForm=Fin\t3\tcop\t3:cop\t_\n"
        "3\tin\tin\tADV\tRB\t_\t0\troot\t0:root\t_\n"
        "\n";
    struct ing_batch *b = t_parse(SP_FMT_CONLLU, SP_MODE_DEFAULT, s);
    T_EQ_INT(b->n_items, 1);
    if (b->n_items != 1) return;
    struct ing_item *it = &b->item[0];
    T_CHECK(it->error == NULL);
    T_EQ_INT(it->s.n, 3);
    T_EQ_STR(it->s.col[SP_FORM][0], "I");
    T_EQ_STR(it->s.col[SP_FORM][1], "'m");
    T_EQ_STR(it->s.col[SP_FORM][2], "in");
    T_EQ_STR(it->s.col[SP_LEMMA][1], "be");
    T_EQ_STR(it->s.col[SP_UPOS][1], "AUX");
    T_EQ_STR(it->s.col[SP_XPOS][1], "VBP");
    T_EQ_STR(it->s.col[SP_FEATS][2], "_");
    T_EQ_STR(it->s.col[SP_DEPREL][1], "cop");
    T_EQ_STR(it->s.col[SP_DEPS][1], "3:cop");
    T_EQ_STR(it->s.col[SP_MISC][2], "_");
    T_CHECK(it->s.head != NULL);
    if (it->s.head) { T_EQ_INT(it->s.head[0], 2); T_EQ_INT(it->s.head[1], 2); T_EQ_INT(it->s.head[2], -1); }
    T_EQ_INT(it->s.n_extra, 1);
    if (it->s.n_extra == 1) {
        T_EQ_INT(it->s.extra[0].kind, SP_EXTRA_MWT);
        T_EQ_INT(it->s.extra[0].first, 0);
        T_EQ_INT(it->s.extra[0].last, 1);
        T_EQ_INT(it->s.extra[0].pos, 0);
        T_EQ_STR(it->s.extra[0].line, "1-2\tI'm\t_\t_\t_\t_\t_\t_\t_\t_");
    }
    T_EQ_STR(it->s.sent_id, "email-enronsent23_14-0002");
    T_EQ_STR(it->s.text, "I'm in");
    T_EQ_STR(it->s.comments, "# sent_id = email-enronsent23_14-0002\n# newpar id = email-enronsent23_14-p0002\n# text = I'm in");
    T_EQ_INT(it->s.line, 1);
    T_EQ_INT(it->s.warn, 0);
    T_CHECK(it->s.warnings == NULL);
    T_CHECK(it->s.tree == NULL);
    T_EQ_INT((long long)it->raw_len, (long long)strlen(s) - 1);   /* everything but the blank line */
    T_CHECK(it->raw && memcmp(it->raw, s, it->raw_len) == 0);
}

static struct ing_item *find_sent(struct ing_batch *b, const char *id)
{
    for (int i = 0; i < b->n_items; i++)
        if (b->item[i].s.sent_id && strcmp(b->item[i].s.sent_id, id) == 0) return &b->item[i];
    return NULL;
}

static void test_ewt(void)
{
    const char *dir = t_data_dir();
    if (!dir) { T_SKIP("../shared/data absent: EWT whole-file checks skipped"); return; }
    char path[512];
    snprintf(path, sizeof path, "%s/ud-ewt/en_ewt-ud-dev.conllu", dir);
    size_t len;
    char *buf = t_read_file(path, &len);
    T_CHECK(buf != NULL);
    if (!buf) return;
    T_EQ_INT(ing_detect_format(path, buf, len), SP_FMT_CONLLU);
    T_EQ_INT(ing_detect_format("noext", buf, len), SP_FMT_CONLLU);

    static const size_t chunks[] = { 4096, 1u << 20, 1000, 65537, 0 };
    int ref_n[2001];
    for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
        size_t chunk = chunks[c] ? chunks[c] : len;
        struct ing_batch b;
        ing_batch_init(&b);
        int nch = t_parse_chunked(SP_FMT_CONLLU, SP_MODE_DEFAULT, buf, len, chunk, &b);
        T_CHECK(nch > 0);
        if (chunk == 4096) T_CHECK(nch > 100);
        long words = 0, mwt = 0, empty = 0, errors = 0, ids = 0;
        for (int i = 0; i < b.n_items; i++) {
            struct ing_item *it = &b.item[i];
            if (it->error) { errors++; if (errors < 4) fprintf(stderr, "  %ld: %s\n", it->error_line, it->error); continue; }
            words += it->s.n;
            ids += it->s.sent_id != NULL && it->s.text != NULL && it->s.head != NULL;
            for (int k = 0; k < it->s.n_extra; k++) {
                mwt += it->s.extra[k].kind == SP_EXTRA_MWT;
                empty += it->s.extra[k].kind == SP_EXTRA_EMPTY;
            }
            if (i < 2001) {
                if (c == 0) ref_n[i] = it->s.n;
                else if (ref_n[i] != it->s.n) T_EQ_INT(it->s.n, ref_n[i]);
            }
        }
        T_EQ_INT(b.n_items, 2001);
        T_EQ_INT(errors, 0);
        T_EQ_INT(words, 25147);
        T_EQ_INT(mwt, 359);
        T_EQ_INT(empty, 4);
        T_EQ_INT(ids, 2001);
        if (b.n_items > 0) T_EQ_INT(b.item[0].s.line, 1);

        /* TV-1 from the file */
        struct ing_item *it = find_sent(&b, "email-enronsent23_14-0002");
        T_CHECK(it != NULL);
        if (it) {
            T_EQ_INT(it->s.n, 3);
            T_EQ_INT(it->s.line, 6354);
            T_EQ_INT(it->s.head[0], 2); T_EQ_INT(it->s.head[1], 2); T_EQ_INT(it->s.head[2], -1);
            T_EQ_INT(it->s.n_extra, 1);
            T_EQ_INT(it->s.extra[0].first, 0); T_EQ_INT(it->s.extra[0].last, 1);
        }
        /* TV-2 */
        it = find_sent(&b, "answers-20101109081414AAZ3hSI_ans-0002");
        T_CHECK(it != NULL);
        if (it) {
            T_EQ_INT(it->s.n, 23);
            T_EQ_STR(it->s.col[SP_FORM][10], "kind");
            T_EQ_STR(it->s.col[SP_FORM][11], "food");
            T_EQ_INT(it->s.head[11], 10);
            T_EQ_INT(it->s.n_extra, 1);
            T_EQ_INT(it->s.extra[0].kind, SP_EXTRA_EMPTY);
            T_EQ_INT(it->s.extra[0].pos, 11);
            T_EQ_INT(it->s.extra[0].first, -1);
            T_EQ_STR(it->s.extra[0].line, "11.1\t_\tof\tADP\tIN\tTypo=Yes\t_\t_\t12:case\tCorrectForm=of");
            for (int k = 0; k < it->s.n; k++) T_CHECK(strcmp(it->s.col[SP_FORM][k], "_") != 0);
        }
        ing_batch_free(&b);
    }

    /* the same file with a BOM and CRLF line ends gives the same sentences, field for field */
    {
        struct sp_buf crlf = { 0 };
        sp_buf_put(&crlf, "\xEF\xBB\xBF", 3);
        for (size_t i = 0; i < len; i++) {
            if (buf[i] == '\n') sp_buf_put(&crlf, "\r", 1);
            sp_buf_put(&crlf, buf + i, 1);
        }
        struct ing_batch b1, b2;
        ing_batch_init(&b1);
        ing_batch_init(&b2);
        t_parse_chunked(SP_FMT_CONLLU, SP_MODE_DEFAULT, buf, len, 1u << 20, &b1);
        t_parse_chunked(SP_FMT_CONLLU, SP_MODE_STRICT, crlf.p, crlf.len, 4096, &b2);
        T_EQ_INT(b2.n_items, 2001);
        long diff = 0;
        for (int i = 0; i < b1.n_items && i < b2.n_items; i++) {
            struct sp_sentence *x = &b1.item[i].s, *y = &b2.item[i].s;
            if (b2.item[i].error || x->n != y->n || x->line != y->line || strcmp(x->sent_id, y->sent_id) ||
                strcmp(x->comments, y->comments) || x->n_extra != y->n_extra) { diff++; continue; }
            for (int k = 0; k < x->n; k++) {
                for (int c = 0; c < SP_NCOLS; c++) diff += strcmp(x->col[c][k], y->col[c][k]) != 0;
                diff += x->head[k] != y->head[k];
            }
            for (int k = 0; k < x->n_extra; k++) diff += strcmp(x->extra[k].line, y->extra[k].line) != 0;
        }
        T_EQ_INT(diff, 0);
        ing_batch_free(&b1);
        ing_batch_free(&b2);
        sp_buf_free(&crlf);
    }

    /* parse rate, one thread, whole file as one chunk (informational: no threshold here) */
    struct ing_batch b;
    ing_batch_init(&b);
    int reps = 20;
    double t0 = sp_now();
    for (int r = 0; r < reps; r++) {
        ing_batch_reset(&b);
        ing_parse_chunk(SP_FMT_CONLLU, SP_MODE_DEFAULT, buf, len, 1, 1, &b, t_err, sizeof t_err);
    }
    double dt = sp_now() - t0;
    printf("ingest_conllu: EWT dev parse rate %.2f M tokens/s (%.1f MB/s), one thread\n",
           25147.0 * reps / dt / 1e6, (double)len * reps / dt / 1e6);
    ing_batch_free(&b);
    free(buf);
}

static void test_bom_crlf_blank(void)
{
    /* BOM at file start: skipped when bom_ok */
    struct ing_batch *b = t_parse(SP_FMT_CONLLU, SP_MODE_DEFAULT, "\xEF\xBB\xBF# sent_id = a\n" W("1", "x", "0") "\n");
    T_EQ_INT(b->n_items, 1);
    T_CHECK(b->item[0].error == NULL);
    T_EQ_STR(b->item[0].s.sent_id, "a");
    T_EQ_STR(b->item[0].s.comments, "# sent_id = a");
    /* ... but not in a later chunk (bom_ok = 0): the line is then neither a comment nor 10 fields */
    ing_batch_reset(&t_b);
    const char *bs = "\xEF\xBB\xBF# sent_id = a\n" W("1", "x", "0");
    ing_parse_chunk(SP_FMT_CONLLU, SP_MODE_DEFAULT, bs, strlen(bs), 1, 0, &t_b, t_err, sizeof t_err);
    T_EQ_INT(t_b.n_items, 1);
    T_EQ_STR(t_b.item[0].error, "expected 10 tab-separated fields, got 1");

    /* CRLF: one \r stripped per line, a "\r\n" line is blank */
    b = t_parse(SP_FMT_CONLLU, SP_MODE_DEFAULT,
                "# sent_id = c1\r\n# text = x y\r\n1\tx\t_\tX\tX\t_\t0\troot\t_\tSpaceAfter=No\r\n2\ty\t_\tX\tX\t_\t1\tdep\t_\t_\r\n\r\n"
                "1\tz\t_\tX\tX\t_\t0\troot\t_\t_\r\n");
    T_EQ_INT(b->n_items, 2);
    T_CHECK(b->item[0].error == NULL && b->item[1].error == NULL);
    T_EQ_STR(b->item[0].s.sent_id, "c1");
    T_EQ_STR(b->item[0].s.text, "x y");
    T_EQ_STR(b->item[0].s.comments, "# sent_id = c1\n# text = x y");
    T_EQ_STR(b->item[0].s.col[SP_MISC][0], "SpaceAfter=No");
    T_EQ_STR(b->item[0].s.col[SP_MISC][1], "_");
    T_EQ_STR(b->item[1].s.col[SP_MISC][0], "_");
    T_EQ_INT(b->item[1].s.line, 6);
    T_EQ_INT(b->item[0].s.head[1], 0);

    /* no final blank line, no final newline: the last sentence is flushed */
    b = t_parse(SP_FMT_CONLLU, SP_MODE_DEFAULT, W("1", "a", "0") "\n" W("1", "b", "2") "2\tc\t_\tX\tX\t_\t0\troot\t_\t_");
    T_EQ_INT(b->n_items, 2);
    T_CHECK(b->item[1].error == NULL);
    T_EQ_INT(b->item[1].s.n, 2);
    T_EQ_STR(b->item[1].s.col[SP_MISC][1], "_");
    T_EQ_INT(b->item[1].s.line, 3);

    /* comment-only block skipped, and recorded (line, count); several blank lines; leading blank lines */
    b = t_parse(SP_FMT_CONLLU, SP_MODE_DEFAULT, "\n\n# newdoc\n# global.columns = X\n\n\n# sent_id = s\n" W("1", "a", "0") "\n\n");
    T_EQ_INT(b->n_items, 1);
    T_EQ_INT(b->n_skip, 1);
    if (b->n_skip == 1) { T_EQ_INT(b->skip[0].line, 3); T_EQ_INT(b->skip[0].n_lines, 2); }
    T_EQ_STR(b->item[0].s.sent_id, "s");
    T_EQ_STR(b->item[0].s.comments, "# sent_id = s");
    T_EQ_INT(b->item[0].s.line, 7);
    T_CHECK(b->item[0].s.text == NULL);

    /* whitespace-only line: blank in DEFAULT and REPAIR, rejected in STRICT */
    const char *ws = W("1", "a", "0") " \t\n" W("1", "b", "0");
    b = t_parse(SP_FMT_CONLLU, SP_MODE_DEFAULT, ws);
    T_EQ_INT(b->n_items, 2);
    T_CHECK(b->item[0].error == NULL && b->item[1].error == NULL);
    b = t_parse(SP_FMT_CONLLU, SP_MODE_STRICT, ws);
    T_EQ_INT(b->n_items, 2);
    T_EQ_STR(b->item[0].error, "whitespace-only line (expected an empty line between sentences)");
    T_EQ_INT(b->item[0].error_line, 2);
    T_CHECK(b->item[1].error == NULL);

    /* a whitespace-only line after a sentence's comments is inside it (not a blank line leaving
     * a block of comments to skip): the sentence is rejected there, in every mode */
    for (int m = 0; m < 3; m++) {
        b = t_parse(SP_FMT_CONLLU, (enum sp_mode)m, "# sent_id = s\n\t\t\t\n\n" W("1", "a", "0"));
        T_EQ_INT(b->n_items, 2);
        T_EQ_INT(b->n_skip, 0);
        T_EQ_STR(b->item[0].error, "whitespace-only line inside a sentence (3 tabs; expected a word line of 10 "
                                   "tab-separated fields, or an empty line between sentences)");
        T_EQ_INT(b->item[0].error_line, 2);
        T_EQ_STR(b->item[0].s.sent_id, "s");
        T_CHECK(b->item[1].error == NULL);
        b = t_parse(SP_FMT_CONLLU, (enum sp_mode)m, "# sent_id = s\n \n" W("1", "a", "0"));
        T_EQ_INT(b->n_items, 1);
        T_EQ_INT(b->item[0].error_line, 2);
    }

    /* first_line offsets every line number */
    ing_batch_reset(&t_b);
    const char *two = W("1", "a", "0") "\n" W("1", "b", "0") W("3", "c", "1");
    ing_parse_chunk(SP_FMT_CONLLU, SP_MODE_DEFAULT, two, strlen(two), 100, 0, &t_b, t_err, sizeof t_err);
    T_EQ_INT(t_b.n_items, 2);
    T_EQ_INT(t_b.item[0].s.line, 100);
    T_EQ_INT(t_b.item[1].s.line, 102);
    T_EQ_STR(t_b.item[1].error, "expected word ID 2, got 3");
    T_EQ_INT(t_b.item[1].error_line, 103);
    /* raw text of the second item: its two lines exactly */
    const char *r2 = W("1", "b", "0") W("3", "c", "1");
    T_EQ_INT((long long)t_b.item[1].raw_len, (long long)strlen(r2));
    T_CHECK(memcmp(t_b.item[1].raw, r2, strlen(r2)) == 0);

    /* extras: positions reproduce the line order */
    b = t_parse(SP_FMT_CONLLU, SP_MODE_DEFAULT,
                "1-2\tab\t_\t_\t_\t_\t_\t_\t_\t_\n" W("1", "a", "0") W("2", "b", "1")
                "2.1\te\t_\t_\t_\t_\t_\t_\t1:dep\t_\n" W("3", "c", "1") "3.1\tf\t_\t_\t_\t_\t_\t_\t1:dep\t_\n");
    T_CHECK(b->item[0].error == NULL);
    T_EQ_INT(b->item[0].s.n_extra, 3);
    if (b->item[0].s.n_extra == 3) {
        T_EQ_INT(b->item[0].s.extra[0].pos, 0);
        T_EQ_INT(b->item[0].s.extra[1].pos, 2);
        T_EQ_INT(b->item[0].s.extra[1].kind, SP_EXTRA_EMPTY);
        T_EQ_INT(b->item[0].s.extra[2].pos, 3);
        T_EQ_STR(b->item[0].s.extra[2].line, "3.1\tf\t_\t_\t_\t_\t_\t_\t1:dep\t_");
    }
    /* all HEADs "_": no dependency tree, valid in every mode */
    for (int m = 0; m < 3; m++) {
        b = t_parse(SP_FMT_CONLLU, (enum sp_mode)m, W("1", "a", "_") W("2", "b", "_"));
        T_CHECK(b->item[0].error == NULL);
        T_CHECK(b->item[0].s.head == NULL);
        T_EQ_INT(b->item[0].s.n, 2);
    }
    /* FORM with spaces: split on TAB only */
    b = t_parse(SP_FMT_CONLLU, SP_MODE_DEFAULT, W("1", "New York", "0"));
    T_EQ_STR(b->item[0].s.col[SP_FORM][0], "New York");
}

/* one error case in all three modes: expected error (NULL = accepted) per mode */
static void expect(const char *in, const char *e_def, const char *e_strict, const char *e_rep, long eline)
{
    const char *want[3] = { e_def, e_strict, e_rep };
    for (int m = 0; m < 3; m++) {
        struct ing_batch *b = t_parse(SP_FMT_CONLLU, (enum sp_mode)m, in);
        T_EQ_INT(b->n_items, 1);
        if (b->n_items < 1) continue;
        struct ing_item *it = &b->item[0];
        if (want[m]) {
            T_EQ_STR(it->error, want[m]);
            if (eline) T_EQ_INT(it->error_line, eline);
            T_CHECK(it->raw != NULL && it->raw_len > 0);
        } else {
            if (it->error) fprintf(stderr, "  mode %d: unexpected error: %s\n", m, it->error);
            T_CHECK(it->error == NULL);
        }
    }
}

static void test_errors(void)
{
    /* E_COLUMNS */
    const char *nine = W("1", "a", "0") "2\tb\t_\tX\tX\t_\t1\tdep\t_\n";
    expect(nine, "expected 10 tab-separated fields, got 9", "expected 10 tab-separated fields, got 9", NULL, 2);
    struct ing_batch *b = t_parse(SP_FMT_CONLLU, SP_MODE_REPAIR, nine);
    T_EQ_INT(b->item[0].s.warn, SP_W_COLUMNS);
    T_EQ_STR(b->item[0].s.col[SP_MISC][1], "_");
    T_EQ_STR(b->item[0].s.col[SP_DEPS][1], "_");
    T_EQ_STR(b->item[0].s.warnings, "line 2: padded 1 missing field with _");
    const char *eleven = W("1", "a", "0") "2\tb\t_\tX\tX\t_\t1\tdep\t_\tM\textra\n";
    expect(eleven, "expected 10 tab-separated fields, got 11", "expected 10 tab-separated fields, got 11", NULL, 2);
    b = t_parse(SP_FMT_CONLLU, SP_MODE_REPAIR, eleven);
    T_EQ_INT(b->item[0].s.warn, SP_W_COLUMNS);
    T_EQ_STR(b->item[0].s.col[SP_MISC][1], "M");
    const char *six = W("1", "a", "0") "2\tb\t_\tX\tX\t_\n";
    expect(six, "expected 10 tab-separated fields, got 6", "expected 10 tab-separated fields, got 6",
           "expected 10 tab-separated fields, got 6", 2);

    /* E_IDSEQ */
    const char *gap = W("1", "a", "0") W("2", "b", "1") W("4", "c", "1");
    expect(gap, "expected word ID 3, got 4", "expected word ID 3, got 4", "expected word ID 3, got 4", 3);
    expect(W("0", "a", "0"), "expected word ID 1, got 0", "expected word ID 1, got 0", "expected word ID 1, got 0", 1);
    expect(W("x", "a", "0"), "expected word ID 1, got x", "expected word ID 1, got x", "expected word ID 1, got x", 1);
    expect(W("1", "a", "0") W("1", "b", "1"), "expected word ID 2, got 1", "expected word ID 2, got 1",
           "expected word ID 2, got 1", 2);

    /* E_UTF8 (a lone continuation byte, an overlong form, a surrogate) */
    const char *bad8[] = { W("1", "a\x80", "0"), W("1", "\xC0\xAF", "0"), W("1", "\xED\xA0\x80", "0") };
    for (int i = 0; i < 3; i++)
        expect(bad8[i], "invalid UTF-8 (expected UTF-8 text)", "invalid UTF-8 (expected UTF-8 text)",
               "invalid UTF-8 (expected UTF-8 text)", 1);
    expect(W("1", "caf\xC3\xA9", "0"), NULL, NULL, NULL, 0);          /* valid 2-byte sequence */

    /* HEAD out of range: TV-3's heads */
    const char *tv3 = W("1", "a", "2") W("2", "b", "3") W("3", "c", "2") W("4", "d", "0") W("5", "e", "0") W("6", "f", "9");
    expect(tv3, "HEAD 9 out of range 0..6 for word 6", "HEAD 9 out of range 0..6 for word 6", NULL, 6);
    b = t_parse(SP_FMT_CONLLU, SP_MODE_REPAIR, tv3);
    T_EQ_INT(b->item[0].s.warn, SP_W_BADHEAD | SP_W_MULTIROOT | SP_W_CYCLE);
    static const int tv3_out[6] = { 1, 3, 1, -1, 3, 3 };     /* [2,4,2,0,4,4] 0-based */
    for (int k = 0; k < 6; k++) T_EQ_INT(b->item[0].s.head[k], tv3_out[k]);
    T_EQ_STR(b->item[0].s.warnings,
             "repaired HEADs (bad HEAD, several roots, cycle): word 2 3->4, word 5 0->4, word 6 9->4");

    /* several roots */
    const char *mr = W("1", "a", "0") W("2", "b", "1") W("3", "c", "0");
    expect(mr, "expected exactly one root (HEAD 0), got 2: words 1 and 3",
           "expected exactly one root (HEAD 0), got 2: words 1 and 3", NULL, 3);
    b = t_parse(SP_FMT_CONLLU, SP_MODE_REPAIR, mr);
    T_EQ_INT(b->item[0].s.warn, SP_W_MULTIROOT);
    T_EQ_INT(b->item[0].s.head[0], -1); T_EQ_INT(b->item[0].s.head[1], 0); T_EQ_INT(b->item[0].s.head[2], 0);

    /* cycle */
    const char *cy = W("1", "a", "0") W("2", "b", "3") W("3", "c", "2");
    expect(cy, "HEAD cycle through words 2 -> 3 -> 2 (expected a tree)", "HEAD cycle through words 2 -> 3 -> 2 (expected a tree)",
           NULL, 2);
    b = t_parse(SP_FMT_CONLLU, SP_MODE_REPAIR, cy);
    T_EQ_INT(b->item[0].s.warn, SP_W_CYCLE);
    T_EQ_INT(b->item[0].s.head[1], 0); T_EQ_INT(b->item[0].s.head[2], 1);

    /* self loop: step 1 makes it a second root, step 2 hangs it from the first */
    const char *sl = W("1", "a", "0") W("2", "b", "2");
    expect(sl, "HEAD 2 of word 2 points to itself (expected another word or 0)",
           "HEAD 2 of word 2 points to itself (expected another word or 0)", NULL, 2);
    b = t_parse(SP_FMT_CONLLU, SP_MODE_REPAIR, sl);
    T_EQ_INT(b->item[0].s.warn, SP_W_BADHEAD | SP_W_MULTIROOT);
    T_EQ_INT(b->item[0].s.head[1], 0);

    /* no root: the cycle 1<->2 is broken at word 1, which becomes the root */
    const char *nr = W("1", "a", "2") W("2", "b", "1");
    expect(nr, "no root: expected exactly one word with HEAD 0, got none", "no root: expected exactly one word with HEAD 0, got none",
           NULL, 1);
    b = t_parse(SP_FMT_CONLLU, SP_MODE_REPAIR, nr);
    T_EQ_INT(b->item[0].s.warn, SP_W_CYCLE);
    T_EQ_INT(b->item[0].s.head[0], -1); T_EQ_INT(b->item[0].s.head[1], 0);

    /* non-integer HEAD, and "_" mixed with integers */
    const char *ni = W("1", "a", "0") W("2", "b", "x");
    expect(ni, "HEAD 'x' of word 2 is not an integer (expected 0..2)", "HEAD 'x' of word 2 is not an integer (expected 0..2)",
           NULL, 2);
    b = t_parse(SP_FMT_CONLLU, SP_MODE_REPAIR, ni);
    T_EQ_INT(b->item[0].s.warn, SP_W_BADHEAD | SP_W_MULTIROOT);
    T_EQ_INT(b->item[0].s.head[1], 0);
    T_EQ_STR(b->item[0].s.warnings, "repaired HEADs (bad HEAD, several roots): word 2 x->1");
    expect(W("1", "a", "0") W("2", "b", "_"), "HEAD '_' of word 2 is not an integer (expected 0..2)",
           "HEAD '_' of word 2 is not an integer (expected 0..2)", NULL, 2);
    expect(W("1", "a", "0") W("2", "b", "-1"), "HEAD -1 out of range 0..2 for word 2", "HEAD -1 out of range 0..2 for word 2",
           NULL, 2);
    expect(W("1", "a", "0") W("2", "b", "99999999999999"), "HEAD 99999999999999 out of range 0..2 for word 2",
           "HEAD 99999999999999 out of range 0..2 for word 2", NULL, 2);

    /* MWT ranges outside 1..n or with a >= b: the sentence rejected at the range's line; --repair
     * drops each such line with W_MWT and a note naming it (nothing dropped without a record) */
    const char *mw = "3-4\tcd\t_\t_\t_\t_\t_\t_\t_\t_\n" W("1", "a", "0") W("2", "b", "1") "2-2\tbb\t_\t_\t_\t_\t_\t_\t_\t_\n"
                     W("3", "c", "1");
    const char *mw_err = "multiword token 3-4: range outside 1..3 or not a<b (--repair drops the line with a warning)";
    expect(mw, mw_err, mw_err, NULL, 1);
    b = t_parse(SP_FMT_CONLLU, SP_MODE_REPAIR, mw);
    T_EQ_INT(b->item[0].s.warn, SP_W_MWT);
    T_EQ_INT(b->item[0].s.n_extra, 0);
    T_EQ_STR(b->item[0].s.warnings, "line 1: dropped multiword token 3-4 (range outside 1..3 or not a<b); "
                                    "line 4: dropped multiword token 2-2 (range outside 1..3 or not a<b)");
    /* reversed, out of range (saturating), overlapping: rejected at that line */
    expect("5-2\tx\t_\t_\t_\t_\t_\t_\t_\t_\n" W("1", "a", "0") W("2", "b", "1"),
           "multiword token 5-2: range outside 1..2 or not a<b (--repair drops the line with a warning)",
           "multiword token 5-2: range outside 1..2 or not a<b (--repair drops the line with a warning)", NULL, 1);
    expect("1-999999999999\tx\t_\t_\t_\t_\t_\t_\t_\t_\n" W("1", "a", "0") W("2", "b", "1"),
           "multiword token 1-999999999999: range outside 1..2 or not a<b (--repair drops the line with a warning)",
           "multiword token 1-999999999999: range outside 1..2 or not a<b (--repair drops the line with a warning)", NULL, 1);
    expect("1-2\tx\t_\t_\t_\t_\t_\t_\t_\t_\n" W("1", "a", "0") "2-3\ty\t_\t_\t_\t_\t_\t_\t_\t_\n" W("2", "b", "1") W("3", "c", "1"),
           "multiword token 2-3: overlaps the multiword token before it (--repair drops the line with a warning)",
           "multiword token 2-3: overlaps the multiword token before it (--repair drops the line with a warning)", NULL, 3);
    /* token lines but no word */
    expect("1-2\tab\t_\t_\t_\t_\t_\t_\t_\t_\n", "no word lines (expected at least one line with an integer ID)",
           "no word lines (expected at least one line with an integer ID)",
           "no word lines (expected at least one line with an integer ID)", 1);

    /* one bad sentence does not disturb its neighbours */
    b = t_parse(SP_FMT_CONLLU, SP_MODE_DEFAULT, W("1", "a", "0") "\n" W("2", "b", "0") "\n" W("1", "c", "0"));
    T_EQ_INT(b->n_items, 3);
    T_CHECK(b->item[0].error == NULL && b->item[1].error != NULL && b->item[2].error == NULL);
    T_EQ_INT(b->item[2].s.line, 5);

    /* binary data is a chunk-level error */
    ing_batch_reset(&t_b);
    const char bin[] = "1\ta\t_\tX\tX\t_\t0\troot\t_\t_\n\n1\tb\0c";
    int rc = ing_parse_chunk(SP_FMT_CONLLU, SP_MODE_DEFAULT, bin, sizeof bin - 1, 1, 1, &t_b, t_err, sizeof t_err);
    T_EQ_INT(rc, SP_EPARSE);
    T_EQ_STR(t_err, "line 3: binary data (NUL byte), expected a text file");
}

#define CE(str, eof) ing_chunk_end(SP_FMT_CONLLU, str, strlen(str), eof, 0)
static void test_chunk_end_detect(void)
{
    T_EQ_INT(CE("a\n\nb\n", 0), 3);
    T_EQ_INT(CE("a\n\nb\n\nc", 0), 6);
    T_EQ_INT(CE("a\nb", 0), 0);
    T_EQ_INT(CE("a\nb\n", 0), 0);
    /* a whitespace-only line is a boundary only where the next line starts a sentence (or is
     * blank); before a line not yet complete it is not one yet, before another word it never is */
    T_EQ_INT(CE("a\n \t\n1\tb\n", 0), 5);
    T_EQ_INT(CE("a\n \t\n# c\n1-2\tb\n", 0), 5);
    T_EQ_INT(CE("a\n \t\nb", 0), 0);
    T_EQ_INT(CE("a\n\n1\n \t\n2\tb\n", 0), 3);
    /* ... and only after a word line of its sentence: after comments alone it is inside it */
    T_EQ_INT(CE("# c\n \t\n\n1\tb\n", 0), 8);
    T_EQ_INT(CE("# c\n \t\n1\tb\n", 0), 0);
    T_EQ_INT(CE("a\n\n# c\n \t\n1\tb\n", 0), 3);
    /* the file's BOM is not part of its first line (the parser skips it): a comment after it is
     * still a comment, so the whitespace-only line after it is inside the sentence (fuzz-found:
     * with the BOM read as a word, the cutter cut where one parse of the whole file does not) */
    T_EQ_INT(ing_chunk_end(SP_FMT_CONLLU, "\xEF\xBB\xBF# c\n \t\n1\tb\n", 14, 0, 1), 0);
    T_EQ_INT(ing_chunk_end(SP_FMT_CONLLU, "\xEF\xBB\xBF# c\n \t\n\n1\tb\n", 15, 0, 1), 11);
    T_EQ_INT(ing_chunk_end(SP_FMT_CONLLU, "\xEF\xBB\xBF" "a\n \t\n1\tb\n", 12, 0, 1), 8);
    T_EQ_INT(CE("a\r\n\r\nb", 0), 5);
    T_EQ_INT(CE("\nb", 0), 1);
    T_EQ_INT(CE("a\nb", 1), 3);
    T_EQ_INT(CE("a\n\n", 0), 3);
    T_EQ_INT(CE("", 0), 0);
    /* a blank line without its '\n' yet is not a boundary */
    T_EQ_INT(CE("a\n\nb\n  ", 0), 3);

    T_EQ_INT(ing_detect_format("x.conllu", NULL, 0), SP_FMT_CONLLU);
    T_EQ_INT(ing_detect_format("x.CONLL", NULL, 0), SP_FMT_CONLLU);
    T_EQ_INT(ing_detect_format("a/b/wsj_0001.mrg", NULL, 0), SP_FMT_PTB);
    T_EQ_INT(ing_detect_format("t.tree", NULL, 0), SP_FMT_PTB);
    T_EQ_INT(ing_detect_format("t.ptb", NULL, 0), SP_FMT_PTB);
    T_EQ_INT(ing_detect_format("w.dp", NULL, 0), SP_FMT_DEP);
    T_EQ_INT(ing_detect_format("w.dep", NULL, 0), SP_FMT_DEP);
    const char *h1 = "\xEF\xBB\xBF\n  ( (S (NN a)))";
    T_EQ_INT(ing_detect_format("x.txt", h1, strlen(h1)), SP_FMT_PTB);
    const char *h2 = "# sent_id = 1\n# x\t\t\n1\ta\t_\t_\t_\t_\t0\troot\t_\t_\n";
    T_EQ_INT(ing_detect_format(NULL, h2, strlen(h2)), SP_FMT_CONLLU);
    const char *h3 = "\nPierre\tNNP\t2\nVinken\tNNP\t8\n";
    T_EQ_INT(ing_detect_format("x", h3, strlen(h3)), SP_FMT_DEP);
    const char *h4 = "a\tb\tc\td\n";
    T_EQ_INT(ing_detect_format("x", h4, strlen(h4)), SP_FMT_DEP);
    const char *h5 = "hello world\n";
    T_EQ_INT(ing_detect_format("x", h5, strlen(h5)), SP_FMT_AUTO);
    T_EQ_INT(ing_detect_format("x", "", 0), SP_FMT_AUTO);

    enum sp_format f;
    T_EQ_INT(ing_format_parse("conllu", &f), 0); T_EQ_INT(f, SP_FMT_CONLLU);
    T_EQ_INT(ing_format_parse("mrg", &f), 0); T_EQ_INT(f, SP_FMT_PTB);
    T_EQ_INT(ing_format_parse("ptb", &f), 0); T_EQ_INT(f, SP_FMT_PTB);
    T_EQ_INT(ing_format_parse("dp", &f), 0); T_EQ_INT(f, SP_FMT_DEP);
    T_EQ_INT(ing_format_parse("dep", &f), 0); T_EQ_INT(f, SP_FMT_DEP);
    T_EQ_INT(ing_format_parse("auto", &f), 0); T_EQ_INT(f, SP_FMT_AUTO);
    T_CHECK(ing_format_parse("xml", &f) != 0);
    T_EQ_STR(ing_format_name(SP_FMT_CONLLU), "conllu");
    T_EQ_STR(ing_format_name(SP_FMT_PTB), "ptb");
    T_EQ_STR(ing_format_name(SP_FMT_DEP), "dep");
}

int main(void)
{
    ing_batch_init(&t_b);
    test_tv1();
    test_bom_crlf_blank();
    test_errors();
    test_chunk_end_detect();
    test_ewt();
    ing_batch_free(&t_b);
    return T_DONE();
}
