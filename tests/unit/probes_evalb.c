/* tests/unit/probes_evalb.c — the EVALB scoring core on small hand-computed cases (docs/spec/probing.md §4.3,
 * §4.5, §4.6), the parser's errors, a very deep tree, and the indexed matching/crossing paths checked
 * against the quadratic transcription of §4.3 steps 6-7 on random trees. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "probes/evalb.h"
#include "t_harness.h"

static struct prb_evalb_sent score(const struct prb_evalb_params *p, const char *g, const char *t)
{
    struct prb_evalb_sent s;
    char err[SP_ERRLEN];
    memset(&s, 0xff, sizeof s);
    enum sp_err rc = prb_evalb_score_str(p, g, t, &s, err, sizeof err);
    if (rc) fprintf(stderr, "unexpected parse error: %s\n", err);
    T_EQ_INT(rc, SP_OK);
    return s;
}

#define EXPECT(s, st, m, gb, tb, cr, w, tg) do { T_EQ_INT((s).status, st); T_EQ_INT((s).match, m); \
        T_EQ_INT((s).gold, gb); T_EQ_INT((s).test, tb); T_EQ_INT((s).crossing, cr); \
        T_EQ_INT((s).words, w); T_EQ_INT((s).correct_tags, tg); } while (0)

static void test_crossing(void)
{
    struct prb_evalb_params p;
    prb_evalb_params_init(&p);
    /* gold S[0,4) A[0,2) B[2,4); test S[0,4) C[1,3): C crosses A (0<1<2<3) and B (1<2<3<4), counted once */
    struct prb_evalb_sent s = score(&p, "(S (A (a x) (b y)) (B (c z) (d w)))", "(S (a x) (C (b y) (c z)) (d w))");
    EXPECT(s, 0, 1, 3, 2, 1, 4, 4);
    T_EQ_INT(s.length, 4);
    /* X[0,3) contains A (no crossing) but crosses B[2,4) */
    s = score(&p, "(S (A (a x) (b y)) (B (c z) (d w)))", "(S (X (a x) (b y) (c z)) (d w))");
    EXPECT(s, 0, 1, 3, 2, 1, 4, 4);
    /* nested, no crossing; one tag wrong */
    s = score(&p, "(S (A (a x) (b y)) (B (c z) (d w)))", "(S (A (a x) (b y)) (c z) (e w))");
    EXPECT(s, 0, 2, 3, 2, 0, 4, 3);
    prb_evalb_params_free(&p);
}

static void test_deleted_labels(void)
{
    struct prb_evalb_params p;
    prb_evalb_params_init(&p);
    prb_evalb_params_collins(&p);
    /* TOP removed as a bracket, "." removed as a terminal but counted in the length (5) */
    const char *g = "(TOP (S (NP-SBJ (PRP It)) (VP (VBZ is) (NP (DT a) (NN test))) (. .)))";
    struct prb_evalb_sent s = score(&p, g, "(S (NP (PRP It)) (VP (VBZ is) (NP (DT a) (NN test)) (. .)))");
    EXPECT(s, 0, 4, 4, 4, 0, 4, 4);
    T_EQ_INT(s.length, 5);
    /* a bracket over punctuation only has an empty span after deletion: removed */
    s = score(&p, g, "(S (NP (PRP It)) (VP (VBZ is) (NP (DT a) (NN test))) (X (. .)))");
    EXPECT(s, 0, 4, 4, 4, 0, 4, 4);
    /* a bracket over a word plus punctuation becomes a single-word bracket (§5.2) */
    s = score(&p, g, "(S (NP (PRP It)) (VP (VBZ is) (NP (DT a) (Y (NN test) (. .)))))");
    EXPECT(s, 0, 4, 4, 5, 0, 4, 4);
    /* -NONE- terminals do not count in the length; function tags and "=" indices are cut */
    s = score(&p, "(S (NP-SBJ-1 (-NONE- *)) (NP=2 (D a)) (VP-PRD (V b)))", "(S (NP (D a)) (VP (V b)))");
    EXPECT(s, 0, 3, 3, 3, 0, 2, 2);
    T_EQ_INT(s.length, 2);
    /* deletion of a bracket label goes through EQ_LABEL: PRT deleted, so ADVP too */
    char err[SP_ERRLEN];
    T_EQ_INT(prb_evalb_params_set(&p, "DELETE_LABEL", "PRT", err, sizeof err), SP_OK);
    s = score(&p, "(S (VP (VB look) (PRT (RP up))))", "(S (VP (VB look) (ADVP (RB up))))");
    EXPECT(s, 0, 2, 2, 2, 0, 2, 1);
    prb_evalb_params_free(&p);
}

static void test_eq_and_labels(void)
{
    struct prb_evalb_params p;
    prb_evalb_params_init(&p);
    prb_evalb_params_collins(&p);
    /* EQ_LABEL ADVP PRT both ways; RP/RB tags differ */
    struct prb_evalb_sent s = score(&p, "(S (VP (VB look) (PRT (RP up))))", "(S (VP (VB look) (ADVP (RB up))))");
    EXPECT(s, 0, 3, 3, 3, 0, 2, 1);
    s = score(&p, "(S (VP (VB look) (ADVP (RP up))))", "(S (VP (VB look) (PRT (RP up))))");
    EXPECT(s, 0, 3, 3, 3, 0, 2, 2);
    /* labeled vs unlabeled */
    const char *g = "(S (NP (D a)) (VP (V b) (N c)))", *t = "(S (X (D a)) (Y (V b) (N c)))";
    s = score(&p, g, t);
    EXPECT(s, 0, 1, 3, 3, 0, 3, 3);
    p.labeled = 0;
    s = score(&p, g, t);
    EXPECT(s, 0, 3, 3, 3, 0, 3, 3);
    p.labeled = 1;
    /* multiset: A[0,1) twice in gold, once in test -> 1 match for that span */
    s = score(&p, "(S (A (A (x a))) (y b))", "(S (A (x a)) (y b))");
    EXPECT(s, 0, 2, 3, 2, 0, 2, 2);
    /* EQ_WORD */
    s = score(&p, "(S (A (x This)) (y b))", "(S (A (x this)) (y b))");
    T_EQ_INT(s.status, PRB_EVALB_ERROR);
    T_EQ_INT(s.errkind, PRB_EVALB_EWORDS);
    char err[SP_ERRLEN];
    T_EQ_INT(prb_evalb_params_set(&p, "EQ_WORD", "This this", err, sizeof err), SP_OK);
    s = score(&p, "(S (A (x This)) (y b))", "(S (A (x this)) (y b))");
    EXPECT(s, 0, 2, 2, 2, 0, 2, 2);
    prb_evalb_params_free(&p);
}

static void test_errors_and_skip(void)
{
    struct prb_evalb_params p;
    prb_evalb_params_init(&p);
    struct prb_evalb_sent s = score(&p, "(S (A a) (B b))", "(S (A a))");
    T_EQ_INT(s.status, PRB_EVALB_ERROR);
    T_EQ_INT(s.errkind, PRB_EVALB_ELENGTH);
    T_EQ_INT(s.n_gold_words, 2);
    T_EQ_INT(s.n_test_words, 1);
    T_EQ_INT(s.length, 2);
    EXPECT(s, 1, 0, 0, 0, 0, 0, 0);
    s = score(&p, "(S (A a) (B b))", "(S (A a) (B c))");
    T_EQ_INT(s.errkind, PRB_EVALB_EWORDS);
    T_CHECK(s.n_gold_word == 1 && s.gold_word[0] == 'b' && s.test_word[0] == 'c');
    s = score(&p, "(S (A a) (B b))", "");
    EXPECT(s, 2, 0, 0, 0, 0, 0, 0);
    s = score(&p, "(S (A a) (B b))", "   \n");
    T_EQ_INT(s.status, PRB_EVALB_SKIP);
    /* top-level terminals without a bracket (sample.tst line 7) */
    s = score(&p, "(S (A a) (B b))", "(A a) (B b)");
    EXPECT(s, 0, 0, 1, 0, 0, 2, 2);

    /* totals: 2 valid (3/4/4 and 1/2/1), 1 error, 1 skip */
    struct prb_evalb_acc acc;
    prb_evalb_acc_init(&acc, 3);
    struct prb_evalb_sent a = { .status = 0, .length = 3, .match = 3, .gold = 4, .test = 4, .crossing = 1, .words = 3, .correct_tags = 3 };
    struct prb_evalb_sent b = { .status = 0, .length = 5, .match = 1, .gold = 2, .test = 1, .crossing = 3, .words = 5, .correct_tags = 4 };
    struct prb_evalb_sent c = { .status = 1, .length = 2 }, d = { .status = 2, .length = 9 };
    prb_evalb_acc_add(&acc, &a); prb_evalb_acc_add(&acc, &b);
    prb_evalb_acc_add(&acc, &c); prb_evalb_acc_add(&acc, &d);
    struct prb_evalb_summary m;
    prb_evalb_summarize(&acc.all, &m);
    T_EQ_INT(m.n_sentences, 4); T_EQ_INT(m.n_error, 1); T_EQ_INT(m.n_skip, 1); T_EQ_INT(m.n_valid, 2);
    T_NEAR(m.recall, 100.0 * 4 / 6, 1e-12);
    T_NEAR(m.precision, 100.0 * 4 / 5, 1e-12);
    T_NEAR(m.fmeasure, 2 * (400.0 / 6) * 80.0 / (400.0 / 6 + 80.0), 1e-9);
    T_NEAR(m.complete_match, 0.0, 0);
    T_NEAR(m.avg_crossing, 2.0, 1e-12);
    T_NEAR(m.no_crossing, 0.0, 0);
    T_NEAR(m.le2_crossing, 50.0, 1e-12);
    T_NEAR(m.tagging_accuracy, 100.0 * 7 / 8, 1e-12);
    prb_evalb_summarize(&acc.cut, &m);     /* lengths <= 3: a and c */
    T_EQ_INT(m.n_sentences, 2); T_EQ_INT(m.n_valid, 1);
    T_NEAR(m.recall, 75.0, 1e-12);
    T_NEAR(m.complete_match, 0.0, 0);
    /* nothing valid: F is 0/0 = NaN, as EVALB */
    struct prb_evalb_totals z = { .sent = 1, .error = 1 };
    prb_evalb_summarize(&z, &m);
    T_CHECK(isnan(m.fmeasure));
    T_NEAR(m.recall, 0.0, 0);
    prb_evalb_params_free(&p);
}

static void test_quote_repair(void)
{
    struct prb_evalb_params p;
    prb_evalb_params_init(&p);
    char err[SP_ERRLEN];
    prb_evalb_params_set(&p, "DELETE_LABEL", "''", err, sizeof err);
    /* Without QUOTE_LABEL: gold loses its quote, test keeps "NN" -> length error (2|3) */
    const char *g = "(S (NP (NN a)) ('' \") (VP (VB b)))", *t = "(S (NP (NN a)) (NN \") (VP (VB b)))";
    struct prb_evalb_sent s = score(&p, g, t);
    T_EQ_INT(s.errkind, PRB_EVALB_ELENGTH);
    T_EQ_INT(s.n_gold_words, 2);
    T_EQ_INT(s.n_test_words, 3);
    /* With QUOTE_LABEL '' NN: the gold quote is re-inserted at word 1, S grows to [0,3), VP moves to
     * [2,3), NP [0,1) stays; 3/3/3 matched, the quote's tag ('' vs NN) is wrong: 2 of 3 tags. */
    prb_evalb_params_set(&p, "QUOTE_LABEL", "''", err, sizeof err);
    prb_evalb_params_set(&p, "QUOTE_LABEL", "NN", err, sizeof err);
    s = score(&p, g, t);
    EXPECT(s, 0, 3, 3, 3, 0, 3, 2);
    T_EQ_INT(s.length, 3);
    /* the other direction: the test side lost its quote */
    s = score(&p, t, g);
    EXPECT(s, 0, 3, 3, 3, 0, 3, 2);
    /* quote inside a bracket that also holds later words: (VP '' b) -> VP [1,3) after repair */
    s = score(&p, "(S (NP (NN a)) (VP ('' \") (VB b)))", "(S (NP (NN a)) (VP (NN \") (VB b)))");
    EXPECT(s, 0, 3, 3, 3, 0, 3, 2);
    /* a quote word with a tag that is not a QUOTE_LABEL is not repaired */
    s = score(&p, g, "(S (NP (NN a)) (CD \") (VP (VB b)))");
    T_EQ_INT(s.status, PRB_EVALB_ERROR);
    prb_evalb_params_free(&p);
}

static void parse_err(const char *s, const char *needle)
{
    struct prb_evalb_params p;
    struct prb_evalb_tree t;
    char err[SP_ERRLEN] = "";
    prb_evalb_params_init(&p);
    prb_evalb_tree_init(&t);
    T_EQ_INT(prb_evalb_parse(&t, &p, s, strlen(s), err, sizeof err), SP_EPARSE);
    if (!strstr(err, needle)) fprintf(stderr, "message for \"%s\": %s\n", s, err);
    T_CHECK(strstr(err, needle) != NULL);
    prb_evalb_tree_free(&t);
}

static void test_parse_errors(void)
{
    parse_err("(S (A a b))", "more than two elements");
    parse_err("(S (A a b))", "column 9:");
    parse_err("(S (A a)", "expected ')' before end of line");
    parse_err("(A a))", "unexpected ')'");
    parse_err("word (A a)", "expected '(' or ')'");
    parse_err("(S (A a) stray)", "found 'stray'");
    parse_err("(S (A a", "expected ')' after word 'a'");
    /* accepted: whitespace before ')', "(TAG )", label directly followed by '(' */
    struct prb_evalb_params p;
    struct prb_evalb_tree t;
    char err[SP_ERRLEN];
    prb_evalb_params_init(&p);
    prb_evalb_tree_init(&t);
    const char *ok = "( (S(NP (DT a )) (X )))";
    T_EQ_INT(prb_evalb_parse(&t, &p, ok, strlen(ok), err, sizeof err), SP_OK);
    T_EQ_INT(t.n_term, 2);
    T_EQ_INT(t.n_brk, 3);
    T_EQ_INT(t.brk[0].n_label, 0);
    T_EQ_INT(t.brk[1].n_label, 1);
    prb_evalb_tree_free(&t);
}

static void test_deep_and_long(void)
{
    struct prb_evalb_params p;
    prb_evalb_params_init(&p);
    /* 100,000 nested unary brackets over one word: would overflow a recursive reader's stack */
    const int depth = 100000;
    size_t n = (size_t)depth * 4 + 16;
    char *s = malloc(n);
    size_t k = 0;
    for (int i = 0; i < depth; i++) { memcpy(s + k, "(X ", 3); k += 3; }
    memcpy(s + k, "(T w)", 5); k += 5;
    for (int i = 0; i < depth; i++) s[k++] = ')';
    s[k] = '\0';
    struct prb_evalb_sent r = score(&p, s, s);
    EXPECT(r, 0, depth, depth, depth, 0, 1, 1);
    free(s);
    /* 5,000 words in one flat bracket plus a left-branching test (no 200-word limit) */
    const int w = 5000;
    struct sp_buf g = { 0 }, t = { 0 };
    sp_buf_puts(&g, "(S");
    for (int i = 0; i < w; i++) sp_buf_printf(&g, " (T w%d)", i);
    sp_buf_puts(&g, ")");
    for (int i = 0; i < w - 1; i++) sp_buf_puts(&t, "(S ");
    for (int i = 0; i < w; i++) sp_buf_printf(&t, "(T w%d)%s", i, i >= 1 ? ")" : " ");
    sp_buf_put(&g, "", 1);
    sp_buf_put(&t, "", 1);
    /* left-branching brackets [0,j) for j = 2..w: only [0,w) matches; none crosses the flat gold */
    r = score(&p, g.p, t.p);
    EXPECT(r, 0, 1, 1, w - 1, 0, w, w);
    T_EQ_INT(r.length, w);
    sp_buf_free(&g);
    sp_buf_free(&t);
    prb_evalb_params_free(&p);
}

/* random bracketing over n words as nested spans, printed as a tree string */
static void rand_tree(struct sp_rng *rng, struct sp_buf *b, int lo, int hi, int n_labels)
{
    if (hi - lo == 1 && sp_rng_below(rng, 2)) {
        sp_buf_printf(b, "(T w%d)", lo);
        return;
    }
    sp_buf_printf(b, "(%c ", (char)('A' + sp_rng_below(rng, (uint64_t)n_labels)));
    int i = lo;
    while (i < hi) {
        int len = 1 + (int)sp_rng_below(rng, (uint64_t)(hi - i));
        if (len == hi - lo && sp_rng_below(rng, 2)) len = 1;  /* avoid endless unary chains */
        if (len == 1 && sp_rng_below(rng, 3)) sp_buf_printf(b, "(T w%d)", i);
        else rand_tree(rng, b, i, i + len, n_labels);
        i += len;
    }
    sp_buf_puts(b, ")");
}

static void test_paths_agree(void)
{
    struct prb_evalb_params pn, pf;
    prb_evalb_params_init(&pn);
    prb_evalb_params_init(&pf);
    char err[SP_ERRLEN];
    prb_evalb_params_set(&pn, "EQ_LABEL", "A B", err, sizeof err);
    prb_evalb_params_set(&pf, "EQ_LABEL", "A B", err, sizeof err);
    prb_evalb_params_set(&pn, "DELETE_LABEL", "C", err, sizeof err);
    prb_evalb_params_set(&pf, "DELETE_LABEL", "C", err, sizeof err);
    pn.algo = 1;
    pf.algo = 2;
    struct sp_rng rng;
    sp_rng_seed(&rng, 12345);
    int agree = 1, nonzero_cross = 0;
    for (int it = 0; it < 2000; it++) {
        int n = 1 + (int)sp_rng_below(&rng, 30);
        struct sp_buf g = { 0 }, t = { 0 };
        rand_tree(&rng, &g, 0, n, 4);
        rand_tree(&rng, &t, 0, n, 4);
        sp_buf_put(&g, "", 1);
        sp_buf_put(&t, "", 1);
        for (int lab = 0; lab < 2; lab++) {
            pn.labeled = pf.labeled = lab;
            struct prb_evalb_sent a = score(&pn, g.p, t.p), b = score(&pf, g.p, t.p);
            if (a.match != b.match || a.crossing != b.crossing || a.gold != b.gold || a.test != b.test) {
                if (agree) fprintf(stderr, "paths differ on\n  %s\n  %s\n", g.p, t.p);
                agree = 0;
            }
            nonzero_cross += a.crossing > 0;
        }
        sp_buf_free(&g);
        sp_buf_free(&t);
    }
    T_CHECK(agree);
    T_CHECK(nonzero_cross > 100);
    prb_evalb_params_free(&pn);
    prb_evalb_params_free(&pf);
}

static void test_params(void)
{
    struct prb_evalb_params p;
    char err[SP_ERRLEN] = "";
    prb_evalb_params_init(&p);
    T_EQ_INT(p.max_error, 10);
    T_EQ_INT(p.cutoff_len, 40);
    T_EQ_INT(p.labeled, 1);
    const char *ok = "# comment\nDEBUG 0\n\nMAX_ERROR 5\nCUTOFF_LEN 20\nLABELED 0   \n"
                     "DELETE_LABEL TOP\nDELETE_LABEL_FOR_LENGTH -NONE-\nQUOTE_LABEL POS\n"
                     "EQ_LABEL ADVP PRT\nEQ_WORD  This this\nab\n";
    T_EQ_INT(prb_evalb_params_parse(&p, ok, strlen(ok), "ok.prm", NULL, err, sizeof err), SP_OK);
    T_EQ_INT(p.max_error, 5);
    T_EQ_INT(p.cutoff_len, 20);
    T_EQ_INT(p.labeled, 0);
    T_EQ_INT(p.delete_label.n, 1);
    T_EQ_STR(p.delete_label.v[0].s, "TOP");
    T_EQ_INT(p.eq_word.n, 1);
    T_EQ_STR(p.eq_word.v[0].b.s, "this");
    prb_evalb_params_free(&p);

    const char *bad[][2] = {
        { "DEBUG 0\nMAX_ERROR ten\n", "bad.prm:2: MAX_ERROR: expected one integer" },
        { "LABELED 2\n", "bad.prm:1: LABELED: expected one integer in [0, 1]" },
        { "\n\nEQ_LABEL A\n", "bad.prm:3: EQ_LABEL: expected two values, got 1" },
        { "DELETE_LABEL A B\n", "bad.prm:1: DELETE_LABEL: expected exactly one label" },
        { "CUTOFF_LEN\n", "bad.prm:1: expected a value after 'CUTOFF_LEN'" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        prb_evalb_params_init(&p);
        err[0] = '\0';
        T_EQ_INT(prb_evalb_params_parse(&p, bad[i][0], strlen(bad[i][0]), "bad.prm", NULL, err, sizeof err), SP_EPARSE);
        if (strncmp(err, bad[i][1], strlen(bad[i][1]))) fprintf(stderr, "got: %s\n", err);
        T_CHECK(strncmp(err, bad[i][1], strlen(bad[i][1])) == 0);
        prb_evalb_params_free(&p);
    }
    /* unknown keys only warn (as EVALB) */
    prb_evalb_params_init(&p);
    FILE *w = tmpfile();
    T_EQ_INT(prb_evalb_params_parse(&p, "FOO 1\nLABELED 1\n", 16, "u.prm", w, err, sizeof err), SP_OK);
    char line[256] = "";
    rewind(w);
    T_CHECK(fgets(line, sizeof line, w) != NULL);
    T_CHECK(strstr(line, "u.prm:1: warning: unknown keyword 'FOO'") != NULL);
    fclose(w);
    prb_evalb_params_free(&p);
}

int main(void)
{
    test_crossing();
    test_deleted_labels();
    test_eq_and_labels();
    test_errors_and_skip();
    test_quote_repair();
    test_parse_errors();
    test_deep_and_long();
    test_paths_agree();
    test_params();
    return T_DONE();
}
