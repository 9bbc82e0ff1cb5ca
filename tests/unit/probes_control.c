/* probes_control: control tasks (docs/spec/models.md M5): TV-M5 (label order and counts, SplitMix64
 * draws, control labels per type, test labels, accuracy and selectivity), label helpers on a
 * parsed CoNLL-U-like sentence, and a token-probe run on seeded synthetic vectors (task beats
 * control, control labels are a function of the type, same seed same result). */
#include "t_harness.h"

#include <stdint.h>
#include <stdlib.h>

#include "probes/control.h"
#include "common/sp.h"

/* TV-M5 splits */
static const char *const TRF[] = { "the", "dog", "runs", ".", "the", "cat", "runs", "fast", ".", "a", "dog", "sleeps", "." };
static const char *const TRL[] = { "DET", "NOUN", "VERB", "PUNCT", "DET", "NOUN", "VERB", "ADV", "PUNCT", "DET", "NOUN", "VERB", "PUNCT" };
static const char *const DVF[] = { "the", "bird", "sings", "." };
static const char *const DVL[] = { "DET", "NOUN", "VERB", "PUNCT" };
static const char *const TEF[] = { "a", "cat", "sings", "loudly", "." };
static const char *const TEL[] = { "DET", "NOUN", "VERB", "ADV", "PUNCT" };

static void t_m5(void)
{
    struct prb_tok_split tr = { 13, TRF, TRL, NULL }, dv = { 4, DVF, DVL, NULL }, te = { 5, TEF, TEL, NULL };
    struct prb_control c;
    char err[200];
    T_EQ_INT(prb_control_build(&c, &tr, &dv, &te, 7, err, sizeof err), 0);
    T_EQ_INT(c.n_labels, 5);
    static const char *const lab[5] = { "ADV", "DET", "NOUN", "PUNCT", "VERB" };
    static const long cum[5] = { 1, 4, 7, 10, 13 };
    for (int k = 0; k < 5; k++) {
        T_EQ_STR(c.label[k], lab[k]);
        T_EQ_INT(c.cum[k], cum[k]);
    }
    /* the raw stream and the draws below(13) */
    struct sp_splitmix r;
    sp_splitmix_seed(&r, 7);
    T_CHECK(sp_splitmix_next(&r) == 0x63cbe1e459320dd7ULL);
    T_CHECK(sp_splitmix_next(&r) == 0x044c3cd7f43c661cULL);
    T_CHECK(sp_splitmix_next(&r) == 0xe6984080bab12a02ULL);
    static const char *const types[11] = { "the", "dog", "runs", ".", "cat", "fast", "a", "sleeps", "bird", "sings", "loudly" };
    static const int draws[11] = { 5, 0, 11, 7, 5, 3, 6, 4, 1, 5, 1 };
    static const char *const ctl[11] = { "NOUN", "ADV", "VERB", "PUNCT", "NOUN", "DET", "NOUN", "NOUN", "DET", "NOUN", "DET" };
    sp_splitmix_seed(&r, 7);
    T_EQ_INT(c.n_types, 11);
    for (int t = 0; t < 11; t++) {
        T_EQ_INT(sp_splitmix_below(&r, 13), draws[t]);
        T_EQ_STR(c.type[t], types[t]);
        T_EQ_STR(c.label[c.type_label[t]], ctl[t]);
        T_EQ_INT(c.type_in_train[t], t < 8);
    }
    /* test gold and control labels */
    int task[5], cl[5];
    prb_control_ids(&c, &te, task, cl);
    static const char *const tctl[5] = { "NOUN", "NOUN", "NOUN", "DET", "PUNCT" };
    for (int i = 0; i < 5; i++) {
        T_EQ_STR(c.label[task[i]], TEL[i]);
        T_EQ_STR(c.label[cl[i]], tctl[i]);
    }
    /* example outputs: task 4/5, control 3/5, selectivity 20 points */
    int pt[5], pc[5];
    static const char *const ptask[5] = { "DET", "NOUN", "NOUN", "ADV", "PUNCT" };
    static const char *const pctl[5] = { "NOUN", "NOUN", "VERB", "NOUN", "PUNCT" };
    for (int i = 0; i < 5; i++) {
        pt[i] = prb_control_label_id(&c, ptask[i]);
        pc[i] = prb_control_label_id(&c, pctl[i]);
    }
    double at = prb_label_accuracy(5, task, pt, NULL), ac = prb_label_accuracy(5, cl, pc, NULL);
    T_NEAR(at, 80.0, 1e-12);
    T_NEAR(ac, 60.0, 1e-12);
    T_NEAR(at - ac, 20.0, 1e-12);
    /* acc_oov: test types absent from training are sings, loudly (tokens 2, 3) */
    uint8_t oov[5];
    for (int i = 0; i < 5; i++) oov[i] = !c.type_in_train[prb_control_type_id(&c, TEF[i])];
    T_EQ_INT(oov[0] + oov[1] + oov[2] + oov[3] + oov[4], 2);
    T_CHECK(oov[2] && oov[3]);
    T_NEAR(prb_label_accuracy(5, task, pt, oov), 50.0, 1e-12);
    /* lookups */
    T_EQ_INT(prb_control_label_id(&c, "X"), -1);
    T_EQ_INT(prb_control_type_id(&c, "The"), -1);   /* case-sensitive */
    T_EQ_INT(prb_control_of(&c, "never"), -1);
    prb_control_free(&c);

    /* a gold label absent from training never counts as correct */
    static const char *const odd[5] = { "DET", "NOUN", "VERB", "SYM", "PUNCT" };
    struct prb_tok_split te2 = { 5, TEF, odd, NULL };
    T_EQ_INT(prb_control_build(&c, &tr, &dv, &te2, 7, err, sizeof err), 0);
    prb_control_ids(&c, &te2, task, NULL);
    T_EQ_INT(task[3], -1);
    int same[5] = { task[0], task[1], task[2], -1, task[4] };   /* even a -1 prediction misses */
    T_NEAR(prb_label_accuracy(5, task, same, NULL), 80.0, 1e-12);
    prb_control_free(&c);
    /* errors */
    struct prb_tok_split empty = { 0, NULL, NULL, NULL };
    T_EQ_INT(prb_control_build(&c, &empty, &dv, &te, 7, err, sizeof err), -1);
    T_CHECK(strstr(err, "training split has no tokens") != NULL);
    prb_control_free(&c);
    static const char *const nolab[4] = { "DET", NULL, "VERB", "PUNCT" };
    struct prb_tok_split bad = { 4, DVF, nolab, NULL };
    T_EQ_INT(prb_control_build(&c, &tr, &bad, &te, 7, err, sizeof err), -1);
    T_CHECK(strstr(err, "dev token 2 has no label") != NULL);
    prb_control_free(&c);
}

static void t_labels(void)
{
    static const char *form[3] = { "Dogs", "bark", "." };
    static const char *upos[3] = { "NOUN", "_", "PUNCT" };
    static const char *xpos[3] = { "NNS", "VBP", "." };
    static const char *rel[3] = { "nsubj:pass", "root", "punct" };
    struct sp_sentence s;
    memset(&s, 0, sizeof s);
    s.n = 3;
    s.col[SP_FORM] = form; s.col[SP_UPOS] = upos; s.col[SP_XPOS] = xpos; s.col[SP_DEPREL] = rel;
    struct sp_arena a;
    sp_arena_init(&a);
    T_EQ_STR(prb_tok_label(&a, &s, 0, PRB_TASK_UPOS, 0), "NOUN");
    T_EQ_STR(prb_tok_label(&a, &s, 1, PRB_TASK_UPOS, 0), "VBP");
    T_EQ_STR(prb_tok_label(&a, &s, 0, PRB_TASK_DEPREL, 0), "nsubj:pass");
    T_EQ_STR(prb_tok_label(&a, &s, 0, PRB_TASK_DEPREL, 1), "nsubj");
    T_EQ_STR(prb_tok_label(&a, &s, 1, PRB_TASK_DEPREL, 1), "root");
    sp_arena_free(&a);
    enum prb_tok_task t;
    T_EQ_INT(prb_tok_task_parse("deprel", &t), 0);
    T_EQ_INT(t, PRB_TASK_DEPREL);
    T_EQ_INT(prb_tok_task_parse("pos", &t), -1);
}

/* Synthetic corpus: 60 types, each with a fixed label among 4 and a fixed random "type vector";
 * a token's vector = label direction (strong, shared by all types of the label) + type vector
 * (weak) + noise. The gold task is then linear and generalises to unseen types; the control
 * task can only be memorised from the weak type vectors, and not at all on unseen types. */
static void t_probe(void)
{
    enum { NT = 60, D = 16, NTR = 1500, NDV = 300, NTE = 300 };
    static char names[NT][8];
    static const char *const L[4] = { "ADJ", "DET", "NOUN", "VERB" };
    float tv[NT][D], ld[4][D];
    struct sp_splitmix r;
    sp_splitmix_seed(&r, 99);
    for (int k = 0; k < 4; k++)
        for (int c = 0; c < D; c++) ld[k][c] = (float)(sp_splitmix_unif(&r) * 4 - 2);
    for (int t = 0; t < NT; t++) {
        snprintf(names[t], sizeof names[t], "w%d", t);
        for (int c = 0; c < D; c++) tv[t][c] = (float)(sp_splitmix_unif(&r) - 0.5);
    }
    int ntot = NTR + NDV + NTE;
    float *X = malloc((size_t)ntot * D * sizeof *X);
    const char **form = malloc((size_t)ntot * sizeof *form), **lab = malloc((size_t)ntot * sizeof *lab);
    for (int i = 0; i < ntot; i++) {
        /* types 50..59 appear only in test */
        int t = i < NTR + NDV ? (int)sp_splitmix_below(&r, 50) : (int)sp_splitmix_below(&r, NT);
        form[i] = names[t];
        lab[i] = L[t % 4];
        for (int c = 0; c < D; c++)
            X[(size_t)i * D + c] = ld[t % 4][c] + tv[t][c] + (float)(0.3 * (sp_splitmix_unif(&r) - 0.5));
    }
    /* label ADJ plays punctuation in the test split, for the no-punctuation accuracies */
    uint8_t *pu = malloc((size_t)NTE);
    for (int i = 0; i < NTE; i++) pu[i] = !strcmp(lab[NTR + NDV + i], "ADJ");
    struct prb_tok_split tr = { NTR, form, lab, NULL }, dv = { NDV, form + NTR, lab + NTR, NULL },
                         te = { NTE, form + NTR + NDV, lab + NTR + NDV, pu };
    struct prb_train_cfg cfg;
    prb_train_cfg_default(&cfg);
    cfg.max_epoch = 40;
    cfg.seed = 3;
    struct prb_tokprobe_result res, res2;
    char err[200];
    T_EQ_INT(prb_tokprobe_run(X, NULL, D, &tr, &dv, &te, &cfg, 11, &res, err, sizeof err), 0);
    T_EQ_INT(res.n_labels, 4);
    T_EQ_INT(res.n_test, NTE);
    T_CHECK(res.n_oov > 0 && res.n_oov < NTE);
    T_CHECK(res.acc_task > 95.0);
    T_CHECK(res.acc_oov_task > 90.0);
    T_CHECK(res.acc_control < res.acc_task);
    T_CHECK(res.acc_oov_control < 60.0);                  /* near chance on unseen types */
    T_NEAR(res.selectivity, res.acc_task - res.acc_control, 1e-12);
    T_CHECK(res.selectivity > 5.0);
    T_CHECK(res.acc_np_task > 95.0);
    T_CHECK(!isnan(res.acc_np_control));
    T_EQ_INT(prb_tokprobe_run(X, NULL, D, &tr, &dv, &te, &cfg, 11, &res2, err, sizeof err), 0);
    T_NEAR(res2.acc_task, res.acc_task, 0);
    T_NEAR(res2.acc_control, res.acc_control, 0);
    /* the per-token record the report's interval resamples: its share right is the accuracy */
    long right = 0;
    for (int i = 0; i < NTE; i++) right += res.test_correct[i];
    T_NEAR(100.0 * (double)right / NTE, res.acc_task, 1e-9);
    /* the same tokens with their vectors scattered (X rows in another order, two rows no token
     * uses, named through xrow): the same fits and figures, per test token too */
    {
        int nrow = ntot + 2, *xrow = malloc((size_t)ntot * sizeof *xrow);
        float *Xs = malloc((size_t)nrow * D * sizeof *Xs);
        for (int i = 0; i < nrow * D; i++) Xs[i] = 1e6f;              /* the unused rows: poison */
        for (int i = 0; i < ntot; i++) {
            xrow[i] = (int)(((long)i * 7919 + 3) % ntot);           /* a permutation (7919 prime, ntot not its multiple) */
            if (xrow[i] >= ntot / 2) xrow[i] += 2;                  /* skip two rows */
            memcpy(Xs + (size_t)xrow[i] * D, X + (size_t)i * D, D * sizeof *Xs);
        }
        struct prb_tokprobe_result rs;
        T_EQ_INT(prb_tokprobe_run(Xs, xrow, D, &tr, &dv, &te, &cfg, 11, &rs, err, sizeof err), 0);
        T_NEAR(rs.acc_task, res.acc_task, 0);
        T_NEAR(rs.acc_control, res.acc_control, 0);
        T_NEAR(rs.acc_oov_task, res.acc_oov_task, 0);
        T_NEAR(rs.dev_task, res.dev_task, 0);
        T_EQ_INT(rs.fit_task.passes, res.fit_task.passes);
        T_EQ_INT(memcmp(rs.test_correct, res.test_correct, (size_t)NTE), 0);
        free(rs.test_correct);
        free(xrow);
        free(Xs);
    }
    free(res.test_correct);
    free(res2.test_correct);
    printf("# synthetic token probe: task %.1f%% (oov %.1f%%), control %.1f%% (oov %.1f%%), selectivity %.1f\n",
           res.acc_task, res.acc_oov_task, res.acc_control, res.acc_oov_control, res.selectivity);
    struct prb_tok_split none = { 0, NULL, NULL, NULL };
    T_EQ_INT(prb_tokprobe_run(X, NULL, D, &tr, &none, &te, &cfg, 11, &res2, err, sizeof err), -1);
    T_CHECK(strstr(err, "dev split has no tokens") != NULL);
    free(X); free(form); free(lab); free(pu);
}

int main(void)
{
    t_m5();
    t_labels();
    t_probe();
    return T_DONE();
}
