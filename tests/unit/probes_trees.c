/* Unit tests for probes/trees: baseline trees, gold binarisation, bracket lines, Protocol A
 * (through the EVALB core) and Protocol B on a hand-checked sentence, and the §5.4 table of
 * docs/spec/probing.md on the NLTK PTB sample (files in file-name order, trees in file order).
 * Expected values: hand computation (noted inline) or the spec's table. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ingest/readers.h"
#include "probes/sentsrc.h"
#include "probes/tree_scoring.h"
#include "t_harness.h"

#define T_ROUNDS(x, decimals, expect) do { char _b[32]; snprintf(_b, sizeof _b, "%.*f", decimals, (double)(x)); \
        T_EQ_STR(_b, expect); } while (0)

static int has_span(int ns, const int *sp, int a, int b)
{
    for (int k = 0; k < ns; k++) if (sp[2 * k] == a && sp[2 * k + 1] == b) return 1;
    return 0;
}

/* A binary tree over n words: n-1 distinct spans of length >= 2, laminar, whole sentence first. */
static int is_binary_tree(int n, int ns, const int *sp)
{
    if (ns != n - 1 || (n >= 2 && (sp[0] != 0 || sp[1] != n - 1))) return 0;
    for (int x = 0; x < ns; x++) {
        if (sp[2 * x] < 0 || sp[2 * x + 1] >= n || sp[2 * x + 1] <= sp[2 * x]) return 0;
        for (int y = 0; y < ns; y++) {
            if (x == y) continue;
            int a = sp[2 * x], b = sp[2 * x + 1], c = sp[2 * y], d = sp[2 * y + 1];
            if (a == c && b == d) return 0;
            if ((a < c && c <= b && b < d) || (c < a && a <= d && d < b)) return 0;   /* crossing */
        }
    }
    return 1;
}

static void test_baselines(void)
{
    int sp[64];
    T_EQ_INT(prb_tree_right(4, sp), 3);
    T_CHECK(has_span(3, sp, 0, 3) && has_span(3, sp, 1, 3) && has_span(3, sp, 2, 3));
    T_EQ_INT(prb_tree_left(4, sp), 3);
    T_CHECK(has_span(3, sp, 0, 3) && has_span(3, sp, 0, 2) && has_span(3, sp, 0, 1));
    T_EQ_INT(prb_tree_right(1, sp), 0);
    T_EQ_INT(prb_tree_left(0, sp), 0);
    struct sp_rng r1, r2;
    sp_rng_seed(&r1, 3);
    sp_rng_seed(&r2, 3);
    int ok = 1, same = 1, sp2[64];
    for (int n = 1; n <= 30; n++) {
        int a = prb_tree_random(n, &r1, sp), b = prb_tree_random(n, &r2, sp2);
        ok &= is_binary_tree(n, a, sp);
        same &= a == b && !memcmp(sp, sp2, 2 * (size_t)a * sizeof *sp);
    }
    T_CHECK(ok);
    T_CHECK(same);
    /* n = 2 and 3 have one and two possible trees; the splits must reach both of the latter */
    int seen_left = 0, seen_right = 0;
    for (int k = 0; k < 64; k++) {
        prb_tree_random(3, &r1, sp);
        seen_left |= has_span(2, sp, 0, 1);
        seen_right |= has_span(2, sp, 1, 2);
    }
    T_CHECK(seen_left && seen_right);
    /* random over the words: token spans start and end on words, never on punctuation */
    const char *tag[6] = { "``", "DT", "NN", ",", "VBD", "." };
    int nw = prb_tree_random_words(6, tag, &r1, sp);
    T_EQ_INT(nw, 2);                                            /* 3 words -> 2 brackets */
    T_CHECK(has_span(nw, sp, 1, 4));
    T_CHECK(has_span(nw, sp, 1, 2) || has_span(nw, sp, 2, 4));
}

/* One PTB tree parsed by the ingest reader. */
static const struct sp_sentence *parse_one(struct ing_batch *b, const char *text)
{
    char err[256];
    ing_batch_init(b);
    if (ing_parse_chunk(SP_FMT_PTB, SP_MODE_DEFAULT, text, strlen(text), 1, 1, b, err, sizeof err) != SP_OK
        || b->n_items != 1 || b->item[0].error) return NULL;
    return &b->item[0].s;
}

static void test_hand_sentence(void)
{
    struct ing_batch b;
    const struct sp_sentence *s = parse_one(&b,
        "( (S (NP-SBJ (DT The) (NN cat)) (VP (VBD sat) (PP-LOC (IN on) (NP (DT the) (NN mat)))) (. .)) )\n");
    T_CHECK(s != NULL);
    if (!s) { ing_batch_free(&b); return; }
    T_EQ_INT(s->n, 7);
    const char *tag[7];
    T_EQ_INT(prb_gold_tags(s, tag), 0);
    T_EQ_STR(tag[6], ".");

    /* binarised gold: S over 3 children right-factored -> (NP (X VP .)) */
    int sp[32];
    int ng = prb_tree_gold(s->tree, 7, sp);
    T_EQ_INT(ng, 6);
    T_CHECK(is_binary_tree(7, ng, sp));
    T_CHECK(has_span(ng, sp, 0, 6) && has_span(ng, sp, 0, 1) && has_span(ng, sp, 2, 6) &&
            has_span(ng, sp, 2, 5) && has_span(ng, sp, 3, 5) && has_span(ng, sp, 4, 5));

    struct sp_buf line = { 0 };
    int nr = prb_tree_right(7, sp);
    prb_tree_line(s, tag, nr, sp, &line);
    sp_buf_put(&line, "", 1);
    T_EQ_STR(line.p, "(TOP (X (DT The) (X (NN cat) (X (VBD sat) (X (IN on) (X (DT the) (X (NN mat) (. .))))))))");
    line.len = 0;
    prb_gold_line(s, &line);
    sp_buf_put(&line, "", 1);
    T_EQ_STR(line.p, "(TOP (S (NP-SBJ (DT The) (NN cat)) (VP (VBD sat) (PP-LOC (IN on) (NP (DT the) (NN mat)))) (. .)))");
    sp_buf_free(&line);

    /* Protocol B, right-branching. Words without "." : m = 6.
     * P = {(1,5),(2,5),(3,5),(4,5)} ((0,6) is the whole sentence, (5,6) one word);
     * G = {(0,1),(2,5),(3,5),(4,5)} (S dropped as the whole sentence); |P∩G| = 3, F1 = 6/8. */
    struct prb_protb_sent pb;
    prb_protb_sentence(7, tag, s->tree, nr, sp, &pb);
    T_EQ_INT(pb.m, 6);
    T_EQ_INT(pb.scored, 1);
    T_EQ_INT(pb.n_pred, 4);
    T_EQ_INT(pb.n_gold, 4);
    T_EQ_INT(pb.n_match, 3);
    T_NEAR(pb.f1, 0.75, 1e-12);

    /* Protocol A, right-branching: "." deleted; gold brackets S[0,6) NP[0,2) VP[2,6) PP[3,6)
     * NP[4,6) = 5; test X[0,6) X[1,6) X[2,6) X[3,6) X[4,6) X[5,6) = 6 (the last one covered
     * "mat ." and is now a one-word bracket); matched S, VP, PP, NP[4,6) = 4.
     * R = 80, P = 66.67, F = 2*0.8*(2/3)/(0.8+2/3) = 72.73. Protocol B adds F1 75. */
    struct prb_trees_acc *acc = prb_trees_new(0);
    char err[256];
    T_EQ_INT(prb_trees_add(acc, s, nr, sp, err, sizeof err), 0);
    struct prb_trees_result r;
    prb_trees_result(acc, &r);
    T_NEAR(r.a_all.recall, 80.0, 1e-9);
    T_NEAR(r.a_all.precision, 400.0 / 6.0, 1e-9);
    T_NEAR(r.a_all.fmeasure, 100.0 * 2 * 0.8 * (2.0 / 3.0) / (0.8 + 2.0 / 3.0), 1e-9);
    T_EQ_INT(r.a_le40.n_valid, 1);
    T_NEAR(r.b_sent_f1[PRB_SUB_ALL], 75.0, 1e-9);
    T_NEAR(r.b_sent_f1[PRB_SUB_LE10], 75.0, 1e-9);
    T_NEAR(r.b_corpus_f1[PRB_SUB_ALL], 75.0, 1e-9);
    T_EQ_INT(r.n_sentences, 1);
    /* a bracket outside the sentence is refused */
    int badsp[2] = { 0, 7 };
    T_EQ_INT(prb_trees_add(acc, s, 1, badsp, err, sizeof err), -1);
    prb_trees_delete(acc);

    /* a_max_words: the 7-word sentence is left out of Protocol A only */
    acc = prb_trees_new(5);
    T_EQ_INT(prb_trees_add(acc, s, nr, sp, err, sizeof err), 0);
    prb_trees_result(acc, &r);
    T_EQ_INT(r.a_skipped_long, 1);
    T_EQ_INT(r.a_all.n_valid, 0);
    T_EQ_INT(r.b_n[PRB_SUB_ALL], 1);
    prb_trees_delete(acc);
    ing_batch_free(&b);

    /* fewer than 3 words after punctuation removal: not scored by Protocol B */
    s = parse_one(&b, "( (S (NP (PRP It)) (VP (VBZ is)) (. .)) )");
    T_CHECK(s != NULL);
    if (s) {
        const char *t3[3];
        T_EQ_INT(prb_gold_tags(s, t3), 0);
        nr = prb_tree_right(3, sp);
        prb_protb_sentence(3, t3, s->tree, nr, sp, &pb);
        T_EQ_INT(pb.m, 2);
        T_EQ_INT(pb.scored, 0);
    }
    ing_batch_free(&b);
}

/* ---- §5.4 on the PTB sample ---- */

enum { B_RIGHT, B_LEFT, B_RANDOM, B_GOLD };
struct run { int kind; int n_runs; struct sp_rng rng[5], rng_b[5]; struct prb_trees_acc *acc[5];
             int sp[2048], sp_b[2048]; const char *tag[1024]; };

static int run_add(const struct sp_sentence *s, long k, void *vctx)
{
    struct run *c = vctx;
    char err[256];
    if (s->n > 1024) return 1;
    for (int r = 0; r < c->n_runs; r++) {
        if (c->kind == B_RANDOM) {          /* A on trees over all tokens, B on trees over the words */
            int na = prb_tree_random(s->n, &c->rng[r], c->sp);
            if (prb_gold_tags(s, c->tag) != 0) return 3;
            int nb = prb_tree_random_words(s->n, c->tag, &c->rng_b[r], c->sp_b);
            if (prb_trees_add_ab(c->acc[r], s, na, c->sp, nb, c->sp_b, err, sizeof err) != 0) return 2;
            continue;
        }
        int ns = c->kind == B_RIGHT ? prb_tree_right(s->n, c->sp)
               : c->kind == B_LEFT ? prb_tree_left(s->n, c->sp)
               : c->kind == B_GOLD ? prb_tree_gold(s->tree, s->n, c->sp)
               : prb_tree_random(s->n, &c->rng[r], c->sp);
        if (prb_trees_add(c->acc[r], s, ns, c->sp, err, sizeof err) != 0) {
            fprintf(stderr, "sentence %ld: %s\n", k + 1, err);
            return 2;
        }
    }
    return 0;
}

static void table_row(const char *dir, int kind, struct prb_trees_result *mean)
{
    static struct run c;
    memset(&c, 0, sizeof c);
    c.kind = kind;
    c.n_runs = kind == B_RANDOM ? 5 : 1;
    for (int r = 0; r < c.n_runs; r++) {
        sp_rng_seed(&c.rng[r], (uint64_t)r + 1);
        sp_rng_seed(&c.rng_b[r], (uint64_t)r + 1);
        c.acc[r] = prb_trees_new(200);      /* as the reference binary: the 249-word sentence out of A */
    }
    const char *paths[1] = { dir };
    struct prb_source src = { .fmt = SP_FMT_PTB, .n_paths = 1, .paths = paths };
    char err[512];
    T_EQ_INT(prb_source_each(&src, run_add, &c, err, sizeof err), 0);
    memset(mean, 0, sizeof *mean);
    for (int r = 0; r < c.n_runs; r++) {
        struct prb_trees_result x;
        prb_trees_result(c.acc[r], &x);
        if (r == 0) { *mean = x; mean->a_all.fmeasure = mean->b_sent_f1[0] = mean->b_corpus_f1[0] = 0; }
        mean->a_all.fmeasure += x.a_all.fmeasure / c.n_runs;
        mean->b_sent_f1[0] += x.b_sent_f1[0] / c.n_runs;
        mean->b_corpus_f1[0] += x.b_corpus_f1[0] / c.n_runs;
        prb_trees_delete(c.acc[r]);
    }
    printf("  kind %d: %ld sents, A all %.4f/%.4f/%.4f (%ld valid, %ld long) le40 F %.4f; "
           "B sent %.4f/%.4f/%.4f (%ld/%ld/%ld) corpus %.4f/%.4f/%.4f\n", kind, mean->n_sentences,
           mean->a_all.recall, mean->a_all.precision, mean->a_all.fmeasure, mean->a_all.n_valid,
           mean->a_skipped_long, mean->a_le40.fmeasure, mean->b_sent_f1[0], mean->b_sent_f1[1],
           mean->b_sent_f1[2], mean->b_n[0], mean->b_n[1], mean->b_n[2], mean->b_corpus_f1[0],
           mean->b_corpus_f1[1], mean->b_corpus_f1[2]);
}

static void test_table(const char *data)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/ptb-sample/combined", data);
    struct prb_trees_result r;

    table_row(dir, B_RIGHT, &r);
    T_EQ_INT(r.n_sentences, 3914);
    T_EQ_INT(r.a_skipped_long, 1);
    T_EQ_INT(r.a_all.n_valid, 3913);
    T_EQ_INT(r.b_n[PRB_SUB_ALL], 3880);
    T_EQ_INT(r.b_n[PRB_SUB_LE40], 3730);
    T_EQ_INT(r.b_n[PRB_SUB_LE10], 521);
    T_ROUNDS(r.a_all.recall, 2, "38.78");
    T_ROUNDS(r.a_all.precision, 2, "31.69");
    T_ROUNDS(r.a_all.fmeasure, 2, "34.88");
    T_ROUNDS(r.a_le40.fmeasure, 2, "36.67");
    T_ROUNDS(r.b_sent_f1[PRB_SUB_ALL], 2, "39.38");
    T_ROUNDS(r.b_sent_f1[PRB_SUB_LE40], 2, "39.94");
    T_ROUNDS(r.b_sent_f1[PRB_SUB_LE10], 2, "55.90");
    T_ROUNDS(r.b_corpus_f1[PRB_SUB_ALL], 2, "35.75");
    /* the length bins partition the scored sentences: bin 3-10 is the le10 subset, bins up to 31-40
     * the le40 subset, and the n-weighted mean of the bins is the mean over all */
    long nb = 0, nb40 = 0;
    double wsum = 0;
    for (int k = 0; k < PRB_N_LENBIN; k++) {
        nb += r.b_bin_n[k];
        if (k < 4) nb40 += r.b_bin_n[k];
        if (r.b_bin_n[k]) wsum += r.b_bin_f1[k] * (double)r.b_bin_n[k];
    }
    T_EQ_INT(nb, 3880);
    T_EQ_INT(nb40, 3730);
    T_EQ_INT(r.b_bin_n[0], 521);
    T_ROUNDS(r.b_bin_f1[0], 2, "55.90");
    T_NEAR(wsum / (double)nb, r.b_sent_f1[PRB_SUB_ALL], 1e-9);
    T_CHECK(prb_lenbin(2) == -1 && prb_lenbin(3) == 0 && prb_lenbin(10) == 0 && prb_lenbin(11) == 1 && prb_lenbin(50) == 4 &&
            prb_lenbin(51) == 5 && prb_lenbin(500) == 5 && prb_lenbin_lo(0) == 3 && prb_lenbin_lo(5) == 51);

    table_row(dir, B_LEFT, &r);
    T_ROUNDS(r.a_all.recall, 2, "11.50");
    T_ROUNDS(r.a_all.precision, 2, "9.38");
    T_ROUNDS(r.a_all.fmeasure, 2, "10.33");
    T_ROUNDS(r.a_le40.fmeasure, 2, "11.11");
    T_ROUNDS(r.b_sent_f1[PRB_SUB_ALL], 2, "7.82");
    T_ROUNDS(r.b_sent_f1[PRB_SUB_LE40], 2, "7.98");
    T_ROUNDS(r.b_sent_f1[PRB_SUB_LE10], 2, "13.91");
    T_ROUNDS(r.b_corpus_f1[PRB_SUB_ALL], 2, "6.36");

    table_row(dir, B_GOLD, &r);
    T_ROUNDS(r.a_all.recall, 2, "81.32");
    T_ROUNDS(r.a_all.precision, 2, "66.47");
    T_ROUNDS(r.a_all.fmeasure, 2, "73.15");
    T_ROUNDS(r.b_sent_f1[PRB_SUB_ALL], 2, "84.27");
    T_ROUNDS(r.b_corpus_f1[PRB_SUB_ALL], 2, "84.63");

    /* Random: the spec's values come from another generator, so only the magnitude can be
     * compared. Tolerance 0.3 points: the mean of 5 seeds over ~3,900 sentences moves by about
     * 0.1 between generators, while drawing the Protocol-B tree over all tokens instead of
     * over the words (see prb_tree_random_words) moves it by 1.6. */
    table_row(dir, B_RANDOM, &r);
    T_NEAR(r.a_all.fmeasure, 20.66, 0.3);
    T_NEAR(r.b_sent_f1[PRB_SUB_ALL], 17.30, 0.3);
    T_NEAR(r.b_corpus_f1[PRB_SUB_ALL], 15.46, 0.3);
}

int main(void)
{
    test_baselines();
    test_hand_sentence();
    const char *data = t_data_dir();
    if (!data) {
        T_SKIP("../shared/data absent: docs/spec/probing.md §5.4 table not checked");
        return T_DONE();
    }
    test_table(data);
    return T_DONE();
}
