/* Unit tests for probes/tasks: the per-sentence rules on hand-made trees, the counts of
 * docs/spec/probing.md §2.3 and the worked examples of §2.4 on the NLTK PTB sample, EWT dev bounds,
 * and the invariants of the built tasks (determinism, balance, form-disjoint partitions).
 * Expected numbers come from the spec only (or, for the hand-made trees, by hand). */
#include <ctype.h>
#include <dirent.h>
#include <stdlib.h>

#include "ingest/readers.h"
#include "probes/task_derive.h"
#include "treeops/treeops.h"
#include "t_harness.h"

/* ---- helpers ---- */

static void parse_str(enum sp_format fmt, const char *text, struct ing_batch *b)
{
    char err[SP_ERRLEN];
    int rc = ing_parse_chunk(fmt, SP_MODE_DEFAULT, text, strlen(text), 1, 1, b, err, sizeof err);
    T_EQ_INT(rc, SP_OK);
}

/* sentences of a batch (rejected and merged items left out) into a fresh array */
static struct sp_sentence *sentences(const struct ing_batch *b, int *n)
{
    struct sp_sentence *s = malloc(((size_t)b->n_items + 1) * sizeof *s);
    *n = 0;
    for (int i = 0; i < b->n_items; i++)
        if (!b->item[i].error) s[(*n)++] = b->item[i].s;
    return s;
}

static int cmp_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* every file of dir ending in ext, sorted by name, loaded into b; returns the file count */
static int load_dir(const char *dir, const char *ext, struct ing_batch *b)
{
    DIR *d = opendir(dir);
    if (!d) return 0;
    char *names[512];
    int k = 0;
    for (struct dirent *e; (e = readdir(d)) && k < 512;) {
        size_t l = strlen(e->d_name), el = strlen(ext);
        if (l > el && !strcmp(e->d_name + l - el, ext)) names[k++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, k, sizeof *names, cmp_name);
    char path[1024], err[SP_ERRLEN];
    for (int i = 0; i < k; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        int rc = prb_load_file(path, SP_FMT_AUTO, b, NULL, err, sizeof err);
        if (rc != SP_OK) fprintf(stderr, "%s\n", err);
        T_EQ_INT(rc, SP_OK);
        free(names[i]);
    }
    return k;
}

static char *words(const struct sp_sentence *s)
{
    static char buf[4096];
    size_t len = 0;
    buf[0] = 0;
    for (int i = 0; i < s->n && len + 64 < sizeof buf; i++)
        len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s", i ? " " : "", s->col[SP_FORM][i]);
    return buf;
}

static int find(const struct sp_sentence *s, int n, const char *text)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(words(&s[i]), text)) return i;
    return -1;
}

static const char *form_of(const struct sp_sentence *s, int i) { return i >= 0 ? s->col[SP_FORM][i] : "(none)"; }
static const char *tag_of(const struct sp_sentence *s, int i) { return i >= 0 ? s->col[SP_XPOS][i] : "(none)"; }

/* ---- hand-made trees (no data needed) ---- */

static void test_rules_handmade(void)
{
    struct ing_batch b;
    ing_batch_init(&b);
    parse_str(SP_FMT_PTB,
        "( (S (NP-SBJ (DT The) (NNS dogs)) (VP (VBD barked) (PP (IN at) (NP (DT the) (NN cat)))) (. .)) )\n"
        "( (S (NP-SBJ (PRP I)) (VP (VBP like) (NP (NP (NNP Ann) (POS 's)) (NN bike))) (. .)) )\n"
        "( (S (S (NP-SBJ (PRP I)) (VP (VBD ran))) (, ,) (CC and) (S (NP-SBJ (NNS dogs)) (VP (VBD slept))) (. .)) )\n"
        "( (S (NP-SBJ (NN rain)) (VP (VBZ has) (VP (VBN fallen))) (. .)) )\n"
        "( (S (NP-SBJ (NP (NNS cats)) (CC and) (NP (NNS dogs))) (VP (VBP play) (NP-TMP (NN today))) (. .)) )\n",
        &b);
    int n;
    struct sp_sentence *s = sentences(&b, &n);
    T_EQ_INT(n, 5);
    if (n == 5) {
        int w = -1;
        /* 0: past lexical verb; subject head = right-most nominal of NP-SBJ; object: none (PP) */
        T_EQ_INT(prb_tense(&s[0], 0, &w), 1);
        T_EQ_STR(form_of(&s[0], w), "barked");
        T_EQ_STR(form_of(&s[0], prb_subject_head(&s[0])), "dogs");
        T_EQ_INT(prb_object_head(&s[0]), -1);
        char seq[256];
        T_EQ_INT(prb_topconst_seq(&s[0], 0, seq, sizeof seq), 1);
        T_EQ_STR(seq, "NP_VP_.");
        /* 1: object NP whose first child is a possessive NP: recursion ends at POS -> no head */
        T_EQ_INT(prb_tense(&s[1], 0, &w), 2);
        T_EQ_STR(form_of(&s[1], w), "like");
        T_EQ_STR(tag_of(&s[1], prb_subject_head(&s[1])), "PRP");
        T_EQ_INT(prb_object_head(&s[1]), -1);
        /* 2: coordination frame S , CC S .: spans [0,1] and [4,5]; inversion keeps "I" upper-case */
        struct prb_coord c;
        T_EQ_INT(prb_coord_frame(&s[2], &c), 1);
        T_EQ_INT(c.a0, 0); T_EQ_INT(c.a1, 1); T_EQ_INT(c.b0, 4); T_EQ_INT(c.b1, 5); T_EQ_INT(c.cc, 3);
        struct sp_arena a;
        sp_arena_init(&a);
        T_EQ_STR(prb_coord_invert(&s[2], &c, &a), "Dogs slept , and I ran .");
        sp_arena_free(&a);
        T_EQ_INT(prb_topconst_seq(&s[2], 0, seq, sizeof seq), 0);      /* internal comma */
        T_EQ_INT(prb_topconst_seq(&s[2], 1, seq, sizeof seq), 1);
        T_EQ_STR(seq, "S_CC_S_.");
        /* 3: auxiliary chain -> no Tense item (A12); be/have/do irrelevant here */
        T_EQ_INT(prb_tense(&s[3], 1, &w), 0);
        T_EQ_STR(form_of(&s[3], prb_object_head(&s[3])), "(none)");
        /* 4: coordinated subject -> no head; NP-TMP is not an object */
        T_EQ_INT(prb_subject_head(&s[4]), -1);
        T_EQ_INT(prb_object_head(&s[4]), -1);
    }
    T_EQ_INT(prb_sentlen_bin(4), -1);
    T_EQ_INT(prb_sentlen_bin(5), 0);
    T_EQ_INT(prb_sentlen_bin(8), 0);
    T_EQ_INT(prb_sentlen_bin(9), 1);
    T_EQ_INT(prb_sentlen_bin(25), 4);
    T_EQ_INT(prb_sentlen_bin(28), 5);
    T_EQ_INT(prb_sentlen_bin(29), -1);
    free(s);
    ing_batch_free(&b);

    unsigned m;
    char err[256];
    T_EQ_INT(prb_task_parse_list("Tense,subjnum,odd_man_out", &m, err, sizeof err), 0);
    T_EQ_INT(m, (1u << PRB_TENSE) | (1u << PRB_SUBJNUM) | (1u << PRB_SOMO));
    T_EQ_INT(prb_task_parse_list("all", &m, err, sizeof err), 0);
    T_EQ_INT(m, PRB_ALL_TASKS);
    T_EQ_INT(prb_task_parse_list("Tense,Nope", &m, err, sizeof err), -1);
}

/* ---- §2.4 worked examples ---- */

static void test_worked_examples(const struct sp_sentence *s, int n)
{
    char seq[256];
    int w;
    struct sp_arena a;
    sp_arena_init(&a);

    int e1 = find(s, n, "Pierre Vinken , 61 years old , will join the board as a nonexecutive director Nov. 29 .");
    T_CHECK(e1 >= 0);
    if (e1 >= 0) {
        const struct sp_sentence *x = &s[e1];
        T_EQ_INT(x->n, 18);
        T_EQ_INT(prb_sentlen_bin(x->n), 3);
        T_EQ_INT(tops_tree_depth(x->tree), 7);
        T_EQ_INT(prb_topconst_seq(x, 0, seq, sizeof seq), 1);
        T_EQ_STR(seq, "NP_VP_.");
        T_EQ_INT(prb_tense(x, 1, &w), 0);                       /* finite verb "will" is MD */
        T_EQ_STR(form_of(x, prb_subject_head(x)), "Vinken");
        T_EQ_STR(tag_of(x, prb_subject_head(x)), "NNP");        /* -> excluded from SubjNum */
        T_EQ_STR(form_of(x, prb_object_head(x)), "board");
        T_EQ_STR(tag_of(x, prb_object_head(x)), "NN");
        struct prb_coord c;
        T_EQ_INT(prb_coord_frame(x, &c), 0);
    }
    int e1b = find(s, n, "Mr. Vinken is chairman of Elsevier N.V. , the Dutch publishing group .");
    T_CHECK(e1b >= 0);
    if (e1b >= 0) {
        const struct sp_sentence *x = &s[e1b];
        T_EQ_INT(x->n, 13);
        T_EQ_INT(tops_tree_depth(x->tree), 8);
        T_EQ_INT(prb_topconst_seq(x, 0, seq, sizeof seq), 1);
        T_EQ_STR(seq, "NP_VP_.");
        T_EQ_INT(prb_tense(x, 0, &w), 0);                       /* "is": a form of be (A12) */
        T_EQ_STR(tag_of(x, prb_subject_head(x)), "NNP");
        T_EQ_INT(prb_object_head(x), -1);                       /* NP-PRD is a predicate */
    }
    int e2 = find(s, n, "In July , the Environmental Protection Agency imposed a gradual ban on virtually all uses of asbestos .");
    T_CHECK(e2 >= 0);
    if (e2 >= 0) {
        const struct sp_sentence *x = &s[e2];
        T_EQ_INT(x->n, 18);
        T_EQ_INT(prb_sentlen_bin(x->n), 3);
        T_EQ_INT(tops_tree_depth(x->tree), 8);
        T_EQ_INT(prb_topconst_seq(x, 0, seq, sizeof seq), 0);   /* PP_,_NP_VP_. excluded */
        T_EQ_INT(prb_topconst_seq(x, 1, seq, sizeof seq), 1);
        T_EQ_STR(seq, "PP_NP_VP_.");
        T_EQ_INT(prb_tense(x, 0, &w), 1);                       /* PAST */
        T_EQ_STR(form_of(x, w), "imposed");
        T_EQ_STR(form_of(x, prb_subject_head(x)), "Agency");
        T_EQ_STR(tag_of(x, prb_subject_head(x)), "NNP");
        T_EQ_STR(form_of(x, prb_object_head(x)), "ban");
        T_EQ_STR(tag_of(x, prb_object_head(x)), "NN");
    }
    int e3 = find(s, n, "Private construction spending was down , but government building activity was up .");
    T_CHECK(e3 >= 0);
    if (e3 >= 0) {
        const struct sp_sentence *x = &s[e3];
        T_EQ_INT(x->n, 13);
        T_EQ_INT(prb_sentlen_bin(x->n), 2);
        T_EQ_INT(tops_tree_depth(x->tree), 6);
        T_EQ_INT(prb_topconst_seq(x, 0, seq, sizeof seq), 0);
        T_EQ_INT(prb_topconst_seq(x, 1, seq, sizeof seq), 1);
        T_EQ_STR(seq, "S_CC_S_.");
        T_EQ_INT(prb_tense(x, 1, &w), 0);                       /* main clause has no VP child */
        T_EQ_INT(prb_subject_head(x), -1);
        T_EQ_INT(prb_object_head(x), -1);
        struct prb_coord c;
        T_EQ_INT(prb_coord_frame(x, &c), 1);
        T_EQ_INT(c.a1 - c.a0 + 1, 5);                           /* "equal" stratum: 5 and 5 */
        T_EQ_INT(c.b1 - c.b0 + 1, 5);
        T_EQ_STR(form_of(x, c.cc), "but");
        T_EQ_STR(prb_coord_invert(x, &c, &a),
                 "Government building activity was up , but private construction spending was down .");
    }
    sp_arena_free(&a);
}

/* ---- §2.3 counts ---- */

static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

static void test_counts(const struct sp_sentence *s, int n)
{
    /* SentLen: 2,638 sentences of 5–28 tokens, bins 188/325/485/552/718/370 */
    int bins[6] = { 0 }, tot = 0;
    for (int i = 0; i < n; i++) { int b = prb_sentlen_bin(s[i].n); if (b >= 0) { bins[b]++; tot++; } }
    T_EQ_INT(tot, 2638);
    T_EQ_INT(bins[0], 188); T_EQ_INT(bins[1], 325); T_EQ_INT(bins[2], 485);
    T_EQ_INT(bins[3], 552); T_EQ_INT(bins[4], 718); T_EQ_INT(bins[5], 370);

    /* TopConst over all 3,914 trees: 2,233 valid; NP_VP_. 1,765, NP_ADVP_VP_. 119, CC_NP_VP_. 112 */
    int valid = 0, npvp = 0, npadvp = 0, ccnp = 0, raw_npvp = 0, raw_ppnp = 0, raw_snp = 0;
    char seq[512], raw[512];
    for (int i = 0; i < n; i++) {
        tops_top_const(s[i].tree, raw, sizeof raw);
        raw_npvp += !strcmp(raw, "NP_VP_."); raw_ppnp += !strcmp(raw, "PP_,_NP_VP_."); raw_snp += !strcmp(raw, "S_,_NP_VP_.");
        if (!prb_topconst_seq(&s[i], 0, seq, sizeof seq)) continue;
        valid++;
        npvp += !strcmp(seq, "NP_VP_."); npadvp += !strcmp(seq, "NP_ADVP_VP_."); ccnp += !strcmp(seq, "CC_NP_VP_.");
    }
    T_EQ_INT(valid, 2233); T_EQ_INT(npvp, 1765); T_EQ_INT(npadvp, 119); T_EQ_INT(ccnp, 112);
    T_EQ_INT(raw_npvp, 1765); T_EQ_INT(raw_ppnp, 270); T_EQ_INT(raw_snp, 154);   /* docs/spec/structures.md §4.3 */

    /* Tense (5–28 tokens): 931 PAST / 664 PRES, 471 forms (said 310, is 132, was 70, says 58);
     * without be/have/do 810 / 435, 461 forms (said 310, says 58, rose 42); cap 20 -> 498 PAST
     * (224 forms) / 388 PRES (240 forms) */
    for (int bhd = 1; bhd >= 0; bhd--) {
        int cnt[3] = { 0 }, nf = 0, k = 0;
        const char **key = malloc((size_t)n * sizeof *key);
        int *lab = malloc((size_t)n * sizeof *lab);
        const char **lk = malloc((size_t)n * sizeof *lk);
        char (*low)[64] = malloc((size_t)n * sizeof *low);
        for (int i = 0; i < n; i++) {
            int w, v;
            if (s[i].n < 5 || s[i].n > 28 || !(v = prb_tense(&s[i], bhd, &w))) continue;
            cnt[v]++;
            snprintf(low[k], 64, "%s", s[i].col[SP_FORM][w]);
            for (char *p = low[k]; *p; p++) *p = (char)tolower((unsigned char)*p);
            lab[k] = v; key[k] = low[k]; k++;
        }
        memcpy(lk, key, (size_t)k * sizeof *lk);
        qsort(lk, k, sizeof *lk, cmp_str);
        int said = 0, is = 0, was = 0, says = 0, rose = 0;
        for (int i = 0; i < k; i++) {
            if (i == 0 || strcmp(lk[i], lk[i - 1])) nf++;
            said += !strcmp(lk[i], "said"); is += !strcmp(lk[i], "is"); was += !strcmp(lk[i], "was");
            says += !strcmp(lk[i], "says"); rose += !strcmp(lk[i], "rose");
        }
        if (bhd) {
            T_EQ_INT(cnt[1], 931); T_EQ_INT(cnt[2], 664); T_EQ_INT(nf, 471);
            T_EQ_INT(said, 310); T_EQ_INT(is, 132); T_EQ_INT(was, 70); T_EQ_INT(says, 58);
        } else {
            T_EQ_INT(cnt[1], 810); T_EQ_INT(cnt[2], 435); T_EQ_INT(nf, 461);
            T_EQ_INT(said, 310); T_EQ_INT(says, 58); T_EQ_INT(rose, 42);
            /* the cap: per form and class min(count, 20), forms counted per class */
            int capped[3] = { 0 }, forms[3] = { 0 };
            for (int v = 1; v <= 2; v++) {
                const char **kk = malloc((size_t)k * sizeof *kk);
                int m = 0;
                for (int i = 0; i < k; i++) if (lab[i] == v) kk[m++] = key[i];
                qsort(kk, m, sizeof *kk, cmp_str);
                for (int i = 0, run = 0; i < m; i++) {
                    run = i && !strcmp(kk[i], kk[i - 1]) ? run + 1 : 1;
                    if (run == 1) forms[v]++;
                    if (run <= 20) capped[v]++;
                }
                free(kk);
            }
            T_EQ_INT(capped[1], 498); T_EQ_INT(forms[1], 224);
            T_EQ_INT(capped[2], 388); T_EQ_INT(forms[2], 240);
        }
        free(key); free(lab); free(lk); free(low);
    }

    /* SubjNum 590 NN / 499 NNS; ObjNum 344 NN / 178 NNS (5–28 tokens) */
    int sn[2] = { 0 }, on[2] = { 0 };
    for (int i = 0; i < n; i++) {
        if (s[i].n < 5 || s[i].n > 28) continue;
        int h = prb_subject_head(&s[i]);
        if (h >= 0) { sn[0] += !strcmp(tag_of(&s[i], h), "NN"); sn[1] += !strcmp(tag_of(&s[i], h), "NNS"); }
        h = prb_object_head(&s[i]);
        if (h >= 0) { on[0] += !strcmp(tag_of(&s[i], h), "NN"); on[1] += !strcmp(tag_of(&s[i], h), "NNS"); }
    }
    T_EQ_INT(sn[0], 590); T_EQ_INT(sn[1], 499);
    T_EQ_INT(on[0], 344); T_EQ_INT(on[1], 178);

    /* CoordInv: 81 frames with a single CC at any length, 41 of them with 5–28 tokens */
    int cf = 0, cf528 = 0;
    for (int i = 0; i < n; i++) {
        struct prb_coord c;
        if (!prb_coord_frame(&s[i], &c)) continue;
        cf++;
        cf528 += s[i].n >= 5 && s[i].n <= 28;
    }
    T_EQ_INT(cf, 81); T_EQ_INT(cf528, 41);
}

/* ---- built tasks ---- */

static int split_count(const struct prb_task *t, const char *label, int split)
{
    for (int c = 0; c < t->n_classes; c++)
        if (!strcmp(t->cls[c], label)) return t->count[c][split];
    return -1;
}

/* keys of a lexical task live in one partition only; classes balanced in every partition */
static void check_disjoint(const struct prb_task *t)
{
    T_CHECK(t->built);
    for (int i = 0; i < t->n_items; i++)
        for (int j = i + 1; j < t->n_items; j++)
            if (!strcmp(t->item[i].key, t->item[j].key) && t->item[i].split != t->item[j].split) {
                fprintf(stderr, "%s: key %s in two partitions\n", prb_task_name(t->id), t->item[i].key);
                T_CHECK(0);
                return;
            }
    T_EQ_INT(t->n_classes, 2);
    for (int sp = 0; sp < 3; sp++) T_EQ_INT(t->count[0][sp], t->count[1][sp]);
    for (int i = 1; i < t->n_items; i++) T_CHECK(t->item[i].split >= t->item[i - 1].split);
}

static void test_build(const struct sp_sentence *s, int n)
{
    struct prb_opts o;
    prb_opts_default(&o);
    o.seed = 7;
    struct prb_taskset ts, ts2;
    char err[SP_ERRLEN];
    T_EQ_INT(prb_tasks_build(s, n, &o, &ts, err, sizeof err), SP_OK);
    for (int id = 0; id < PRB_NTASKS; id++) {
        const struct prb_task *t = &ts.task[id];
        printf("  %-9s built=%d candidates=%d items=%d classes=%d %s\n", prb_task_name(id), t->built,
               t->n_candidates, t->n_items, t->n_classes, t->built ? "" : t->reason);
    }
    /* SentLen: 6 x 188 balanced; per bin round(0.8*188)=150 / round(18.8)=19 / 19 */
    const struct prb_task *t = &ts.task[PRB_SENTLEN];
    T_EQ_INT(t->n_candidates, 2638);
    T_EQ_INT(t->n_items, 6 * 188);
    T_EQ_INT(t->n_classes, 6);
    for (int c = 0; c < 6; c++) { T_EQ_INT(t->count[c][0], 150); T_EQ_INT(t->count[c][1], 19); T_EQ_INT(t->count[c][2], 19); }
    /* TreeDepth, D = 7..10: 716 items */
    T_EQ_INT(ts.task[PRB_TREEDEPTH].n_items, 716);
    T_EQ_INT(ts.task[PRB_TREEDEPTH].n_classes, 4);
    /* Tense: 810 + 435 candidates before the cap */
    T_EQ_INT(ts.task[PRB_TENSE].n_candidates, 810 + 435);
    T_EQ_INT(ts.task[PRB_SUBJNUM].n_candidates, 590 + 499);
    T_EQ_INT(ts.task[PRB_OBJNUM].n_candidates, 344 + 178);
    T_EQ_INT(ts.task[PRB_COORDINV].n_candidates, 41);
    check_disjoint(&ts.task[PRB_TENSE]);
    check_disjoint(&ts.task[PRB_SUBJNUM]);
    check_disjoint(&ts.task[PRB_OBJNUM]);
    check_disjoint(&ts.task[PRB_SOMO]);
    /* every task built on the PTB sample, labels of va/te present in train */
    for (int id = 0; id < PRB_NTASKS; id++) {
        t = &ts.task[id];
        T_CHECK(t->built);
        for (int c = 0; c < t->n_classes; c++) T_CHECK(t->count[c][0] > 0);
    }
    /* BShift / CoordInv: O and I equal; each source sentence used once; I differs from the source */
    for (int id = PRB_BSHIFT; id <= PRB_COORDINV; id += PRB_COORDINV - PRB_BSHIFT) {
        t = &ts.task[id];
        int io[2] = { 0, 0 };
        char *used = calloc((size_t)n, 1);
        for (int i = 0; i < t->n_items; i++) {
            const struct prb_item *it = &t->item[i];
            T_CHECK(!used[it->sent]);
            used[it->sent] = 1;
            int same = !strcmp(it->text, words(&s[it->sent]));
            if (!strcmp(it->label, "O")) { io[0]++; T_CHECK(same); }
            else { io[1]++; T_CHECK(!same); }
        }
        T_EQ_INT(io[0], io[1]);
        free(used);
    }
    /* BShift: an I item is the source with exactly one adjacent pair swapped */
    t = &ts.task[PRB_BSHIFT];
    for (int i = 0; i < t->n_items; i++) {
        if (strcmp(t->item[i].label, "I")) continue;
        const struct sp_sentence *x = &s[t->item[i].sent];
        char *copy = strdup(t->item[i].text), *tok[64];
        int k = 0;
        for (char *p = strtok(copy, " "); p && k < 64; p = strtok(NULL, " ")) tok[k++] = p;
        T_EQ_INT(k, x->n);
        int diff = 0, first = -1;
        for (int j = 0; j < k && j < x->n; j++)
            if (strcmp(tok[j], x->col[SP_FORM][j])) { diff++; if (first < 0) first = j; }
        T_EQ_INT(diff, 2);
        T_CHECK(first >= 1 && !strcmp(tok[first], x->col[SP_FORM][first + 1]) && !strcmp(tok[first + 1], x->col[SP_FORM][first]));
        free(copy);
    }
    /* SOMO: a C item differs from its source in exactly one token, replaced by its key */
    t = &ts.task[PRB_SOMO];
    for (int i = 0; i < t->n_items; i++) {
        const struct sp_sentence *x = &s[t->item[i].sent];
        char *copy = strdup(t->item[i].text), *tok[64];
        int k = 0, diff = 0, ok = 1;
        for (char *p = strtok(copy, " "); p && k < 64; p = strtok(NULL, " ")) tok[k++] = p;
        for (int j = 0; j < k && j < x->n; j++)
            if (strcmp(tok[j], x->col[SP_FORM][j])) { diff++; ok &= !strcmp(tok[j], t->item[i].key); }
        T_EQ_INT(diff, !strcmp(t->item[i].label, "C") ? 1 : 0);
        T_CHECK(ok);
        free(copy);
    }
    /* CoordInv strata: O and I have the same numbers per conjunct-length stratum — checked via
     * the items' sources */
    t = &ts.task[PRB_COORDINV];
    int strat[2][3] = { { 0 } };
    for (int i = 0; i < t->n_items; i++) {
        struct prb_coord c;
        T_CHECK(prb_coord_frame(&s[t->item[i].sent], &c));
        int la = c.a1 - c.a0, lb = c.b1 - c.b0;
        strat[!strcmp(t->item[i].label, "O")][la > lb ? 0 : la < lb ? 1 : 2]++;
    }
    for (int k = 0; k < 3; k++) T_EQ_INT(strat[0][k], strat[1][k]);
    T_CHECK(strstr(t->note, "too small") != NULL);

    /* determinism: same seed, same bytes; another seed, other items */
    T_EQ_INT(prb_tasks_build(s, n, &o, &ts2, err, sizeof err), SP_OK);
    int same = 1;
    for (int id = 0; id < PRB_NTASKS; id++) {
        same &= ts.task[id].n_items == ts2.task[id].n_items;
        for (int i = 0; same && i < ts.task[id].n_items; i++)
            same &= !strcmp(ts.task[id].item[i].text, ts2.task[id].item[i].text) &&
                    !strcmp(ts.task[id].item[i].label, ts2.task[id].item[i].label) &&
                    ts.task[id].item[i].split == ts2.task[id].item[i].split;
    }
    T_CHECK(same);
    prb_taskset_free(&ts2);
    /* a task's items do not depend on the other tasks asked for */
    struct prb_opts o1 = o;
    o1.tasks = 1u << PRB_TENSE;
    T_EQ_INT(prb_tasks_build(s, n, &o1, &ts2, err, sizeof err), SP_OK);
    T_CHECK(!ts2.task[PRB_SENTLEN].requested);
    same = ts.task[PRB_TENSE].n_items == ts2.task[PRB_TENSE].n_items;
    for (int i = 0; same && i < ts.task[PRB_TENSE].n_items; i++)
        same &= !strcmp(ts.task[PRB_TENSE].item[i].text, ts2.task[PRB_TENSE].item[i].text);
    T_CHECK(same);
    prb_taskset_free(&ts2);
    o1 = o;
    o1.seed = 8;
    T_EQ_INT(prb_tasks_build(s, n, &o1, &ts2, err, sizeof err), SP_OK);
    same = 1;
    for (int i = 0; same && i < ts.task[PRB_SENTLEN].n_items; i++)
        same &= !strcmp(ts.task[PRB_SENTLEN].item[i].text, ts2.task[PRB_SENTLEN].item[i].text);
    T_CHECK(!same);
    prb_taskset_free(&ts2);
    prb_taskset_free(&ts);

    /* TreeDepth yields for other ranges: D = 6..11 -> 426, D = 5..11 -> 105 */
    o1 = o;
    o1.tasks = 1u << PRB_TREEDEPTH;
    o1.depth_lo = 6; o1.depth_hi = 11;
    T_EQ_INT(prb_tasks_build(s, n, &o1, &ts2, err, sizeof err), SP_OK);
    T_EQ_INT(ts2.task[PRB_TREEDEPTH].n_items, 426);
    prb_taskset_free(&ts2);
    o1.depth_lo = 5;
    T_EQ_INT(prb_tasks_build(s, n, &o1, &ts2, err, sizeof err), SP_OK);
    T_EQ_INT(ts2.task[PRB_TREEDEPTH].n_items, 105);
    prb_taskset_free(&ts2);

    /* WC, counted over sentences of any length (as §2.3 does): K = 50 from rank 100, frequencies
     * 43-56, 1,137 eligible sentences, 13-34 per word -> 50 x 13 after balancing */
    o1 = o;
    o1.tasks = 1u << PRB_WC;
    o1.min_len = 1; o1.max_len = 100000;
    T_EQ_INT(prb_tasks_build(s, n, &o1, &ts2, err, sizeof err), SP_OK);
    t = &ts2.task[PRB_WC];
    T_EQ_INT(t->n_candidates, 1137);
    T_EQ_INT(t->n_items, 50 * 13);
    T_EQ_INT(t->n_classes, 50);
    T_CHECK(t->note && strstr(t->note, "frequencies 43-56"));
    prb_taskset_free(&ts2);

    /* TopConst-nopunct is a different class set */
    o1 = o;
    o1.tasks = 1u << PRB_TOPCONST;
    o1.topconst_nopunct = 1;
    T_EQ_INT(prb_tasks_build(s, n, &o1, &ts2, err, sizeof err), SP_OK);
    T_CHECK(ts2.task[PRB_TOPCONST].built);
    T_CHECK(split_count(&ts2.task[PRB_TOPCONST], "PP_NP_VP_.", 0) > 0);
    prb_taskset_free(&ts2);

    /* official partitions (issue 14 item 3): sentence i in partition i % 5 -> tr tr tr va te, every
     * 7th in none. Every item sits in its sentence's partition; none of a left-out sentence; the
     * keyed tasks still keep each form in one partition only and balance classes per partition. */
    signed char *part = malloc((size_t)n);
    for (int i = 0; i < n; i++) part[i] = (signed char)(i % 7 == 6 ? -1 : i % 5 < 3 ? PRB_TR : i % 5 == 3 ? PRB_VA : PRB_TE);
    o1 = o;
    o1.tasks = (1u << PRB_TENSE) | (1u << PRB_SUBJNUM) | (1u << PRB_SENTLEN) | (1u << PRB_BSHIFT);
    o1.official = part;
    T_EQ_INT(prb_tasks_build(s, n, &o1, &ts2, err, sizeof err), SP_OK);
    int misplaced = 0, left_out = 0;
    for (int id = 0; id < PRB_NTASKS; id++) {
        const struct prb_task *t = &ts2.task[id];
        if (!t->requested) continue;
        T_CHECK(t->built);
        for (int i = 0; i < t->n_items; i++) {
            misplaced += part[t->item[i].sent] >= 0 && (int)t->item[i].split != part[t->item[i].sent];
            left_out += part[t->item[i].sent] < 0;
        }
    }
    T_EQ_INT(misplaced, 0);
    T_EQ_INT(left_out, 0);
    check_disjoint(&ts2.task[PRB_TENSE]);
    check_disjoint(&ts2.task[PRB_SUBJNUM]);
    for (int sp = 0; sp < 3; sp++) T_CHECK(ts2.task[PRB_SENTLEN].count[0][sp] > 0);
    prb_taskset_free(&ts2);
    free(part);
}

static void test_ewt(const char *data)
{
    char path[1024], err[SP_ERRLEN];
    snprintf(path, sizeof path, "%s/ud-ewt/en_ewt-ud-dev.conllu", data);
    struct ing_batch b;
    ing_batch_init(&b);
    T_EQ_INT(prb_load_file(path, SP_FMT_AUTO, &b, NULL, err, sizeof err), SP_OK);
    int n;
    struct sp_sentence *s = sentences(&b, &n);
    T_EQ_INT(n, 2001);
    /* dev is a subset of dev+test: counts bounded by §2.3's dev+test figures (UD rule, 5–28) */
    int sn[2] = { 0 }, on[2] = { 0 }, cf = 0;
    for (int i = 0; i < n; i++) {
        if (s[i].n < 5 || s[i].n > 28) continue;
        int h = prb_subject_head(&s[i]);
        if (h >= 0) { sn[0] += !strcmp(tag_of(&s[i], h), "NN"); sn[1] += !strcmp(tag_of(&s[i], h), "NNS"); }
        h = prb_object_head(&s[i]);
        if (h >= 0) { on[0] += !strcmp(tag_of(&s[i], h), "NN"); on[1] += !strcmp(tag_of(&s[i], h), "NNS"); }
        struct prb_coord c;
        cf += prb_coord_frame(&s[i], &c);
    }
    printf("  EWT dev: SubjNum %d/%d ObjNum %d/%d CoordInv %d\n", sn[0], sn[1], on[0], on[1], cf);
    T_CHECK(sn[0] > 0 && sn[0] <= 327 && sn[1] > 0 && sn[1] <= 140);
    T_CHECK(on[0] > 0 && on[0] <= 411 && on[1] > 0 && on[1] <= 143);
    T_CHECK(cf > 0 && cf <= 168);
    struct prb_opts o;
    prb_opts_default(&o);
    struct prb_taskset ts;
    T_EQ_INT(prb_tasks_build(s, n, &o, &ts, err, sizeof err), SP_OK);
    T_CHECK(!ts.task[PRB_TREEDEPTH].built && strstr(ts.task[PRB_TREEDEPTH].reason, "constituency"));
    T_CHECK(!ts.task[PRB_TOPCONST].built && strstr(ts.task[PRB_TOPCONST].reason, "constituency"));
    T_CHECK(ts.task[PRB_SENTLEN].built && ts.task[PRB_TENSE].built && ts.task[PRB_SUBJNUM].built);
    for (int id = 0; id < PRB_NTASKS; id++) {
        const struct prb_task *t = &ts.task[id];
        printf("  EWT %-9s built=%d candidates=%d items=%d %s\n", prb_task_name(id), t->built,
               t->n_candidates, t->n_items, t->built ? "" : t->reason);
    }
    prb_taskset_free(&ts);
    free(s);
    ing_batch_free(&b);
}

/* A top node with more children than the label buffers hold (256 labels): NP VP, 254 "." and
 * NP . . Cut at 256 labels, it read NP_VP_. (a frequent class) in the no-punctuation variant;
 * whole, it is NP_VP_NP_. there, and no sequence in the other; a longer one than 1023 bytes is
 * no candidate either (no frequent class is that long). */
static void test_topconst_long(void)
{
    struct sp_buf t = { 0 };
    sp_buf_puts(&t, "( (S (NP (NN a)) (VP (VBD b))");
    for (int i = 0; i < 254; i++) sp_buf_puts(&t, " (. .)");
    sp_buf_puts(&t, " (NP (NN c)) (. .)) )\n");
    struct ing_batch b;
    ing_batch_init(&b);
    parse_str(SP_FMT_PTB, t.p, &b);
    int n;
    struct sp_sentence *s = sentences(&b, &n);
    T_EQ_INT(n, 1);
    char seq[256];
    if (n == 1) {
        int ok = prb_topconst_seq(&s[0], 1, seq, sizeof seq);
        T_CHECK(!ok || strcmp(seq, "NP_VP_.") != 0);
        T_EQ_INT(prb_topconst_seq(&s[0], 0, seq, sizeof seq), 0);
    }
    free(s);
    ing_batch_free(&b);
    sp_buf_free(&t);
}

int main(void)
{
    test_rules_handmade();
    test_topconst_long();
    const char *data = t_data_dir();
    if (!data) {
        T_SKIP("../shared/data absent: PTB sample counts, worked examples, EWT not checked");
        return T_DONE();
    }
    char dir[1024];
    struct ing_batch b;
    ing_batch_init(&b);
    snprintf(dir, sizeof dir, "%s/ptb-sample/combined", data);
    T_EQ_INT(load_dir(dir, ".mrg", &b), 199);
    int n_mrg = b.n_items;
    T_EQ_INT(n_mrg, 3914);
    /* the .dp twins: heads attach to the trees, nothing left over */
    snprintf(dir, sizeof dir, "%s/ptb-sample/dependency", data);
    T_EQ_INT(load_dir(dir, ".dp", &b), 199);
    T_EQ_INT(prb_merge_heads(&b, n_mrg), 3914);
    int n;
    struct sp_sentence *s = sentences(&b, &n);
    T_EQ_INT(n, 3914);
    int with_heads = 0, words = 0;
    for (int i = 0; i < n; i++) { with_heads += s[i].head && s[i].tree; words += s[i].n; }
    T_EQ_INT(with_heads, 3914);
    T_EQ_INT(words, 94084);
    test_worked_examples(s, n);
    test_counts(s, n);
    test_build(s, n);
    /* .dp alone: heads, no trees, no relations -> the structure tasks are skipped */
    {
        struct ing_batch d;
        ing_batch_init(&d);
        load_dir(dir, ".dp", &d);
        int nd;
        struct sp_sentence *sd = sentences(&d, &nd);
        struct prb_opts o;
        prb_opts_default(&o);
        struct prb_taskset ts;
        char err[SP_ERRLEN];
        T_EQ_INT(prb_tasks_build(sd, nd, &o, &ts, err, sizeof err), SP_OK);
        T_CHECK(ts.task[PRB_SENTLEN].built && ts.task[PRB_BSHIFT].built);
        T_CHECK(!ts.task[PRB_TOPCONST].built && !ts.task[PRB_TENSE].built && !ts.task[PRB_SUBJNUM].built &&
                !ts.task[PRB_COORDINV].built);
        prb_taskset_free(&ts);
        free(sd);
        ing_batch_free(&d);
    }
    free(s);
    ing_batch_free(&b);
    test_ewt(data);
    return T_DONE();
}
