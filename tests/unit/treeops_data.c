/* Corpus checks of treeops on ../shared/data (skipped visibly when it is absent):
 *  - PTB sample .dp and EWT dev: every sentence through tops_dep_all and the reference
 *    functions (must agree), plus the properties of docs/spec/structures.md §3 (D symmetric and equal
 *    to the LCA formula, SDOI rows with depth+1 ones, rel antisymmetric, |rel| >= D with
 *    equality iff vertical or the LCA is the root) and the corpus facts of §2.2/§7
 *    (sentence/word counts, max depth 22 / 10, 31 non-projective EWT trees);
 *  - PTB sample .mrg: TreeDepth distribution (min 3, max 30, mode 11 with 424 trees), TopConst
 *    counts (NP_VP_. 1,765, PP_,_NP_VP_. 270, S_,_NP_VP_. 154), PSAN statistics (4.11 / 6.58 /
 *    8.78 phrases per sentence, 5.86 / 3.65 / 2.74 words per phrase, 52 / 61 / 65 % single-word
 *    phrases), levels refining each other, brackets inside the sentence.
 * Trees are read twice: with the test-local reader t_ptb.h and with ing_parse_chunk, and the
 * two must give the same node arrays. Dependency files are read by small local readers. */
#include <dirent.h>
#include <stdint.h>
#include <stdlib.h>

#include "common/sp.h"
#include "ingest/readers.h"
#include "treeops/treeops.h"
#include "t_harness.h"
#include "t_ptb.h"

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* sorted file names in dir ending in ext */
static int list_dir(const char *dir, const char *ext, char ***out)
{
    DIR *d = opendir(dir);
    if (!d) return 0;
    int n = 0, cap = 256;
    char **v = sp_xmalloc((size_t)cap * sizeof(char *));
    struct dirent *e;
    size_t el = strlen(ext);
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l <= el || strcmp(e->d_name + l - el, ext)) continue;
        if (n == cap) v = sp_xrealloc(v, (size_t)(cap *= 2) * sizeof(char *));
        v[n++] = sp_xstrdup(e->d_name);
    }
    closedir(d);
    qsort(v, (size_t)n, sizeof(char *), cmp_str);
    *out = v;
    return n;
}

/* ---- dependency side ---- */

struct dep_stats {
    long sents, words, max_depth, max_len, nonproj, bad, disagree;
    double seconds;                 /* time spent in tops_dep_all only */
};

struct dep_work {
    int cap;
    int *depth, *order, *dist, *rel, *depth2, *dist2, *rel2;
    uint8_t *anc, *anc2;
    void *scratch;
};

static void work_grow(struct dep_work *w, int n)
{
    if (n <= w->cap) return;
    free(w->depth); free(w->order); free(w->dist); free(w->rel); free(w->depth2);
    free(w->dist2); free(w->rel2); free(w->anc); free(w->anc2); free(w->scratch);
    w->cap = n;
    size_t nn = (size_t)n * n;
    w->depth = sp_xmalloc(n * sizeof(int)); w->order = sp_xmalloc(n * sizeof(int));
    w->depth2 = sp_xmalloc(n * sizeof(int));
    w->dist = sp_xmalloc(nn * sizeof(int)); w->rel = sp_xmalloc(nn * sizeof(int));
    w->dist2 = sp_xmalloc(nn * sizeof(int)); w->rel2 = sp_xmalloc(nn * sizeof(int));
    w->anc = sp_xmalloc(nn); w->anc2 = sp_xmalloc(nn);
    w->scratch = sp_xmalloc(tops_dep_scratch_bytes(n));
}

static void work_free(struct dep_work *w)
{
    free(w->depth); free(w->order); free(w->dist); free(w->rel); free(w->depth2);
    free(w->dist2); free(w->rel2); free(w->anc); free(w->anc2); free(w->scratch);
}

static void one_dep_sentence(int n, const int *head, struct dep_work *w, struct dep_stats *st)
{
    work_grow(w, n);
    st->sents++;
    st->words += n;
    if (n > st->max_len) st->max_len = n;
    double t0 = sp_now();
    int rc = tops_dep_all(n, head, w->depth2, w->dist2, w->anc2, w->rel2, w->scratch);
    st->seconds += sp_now() - t0;
    if (rc != 0 || tops_depth(n, head, w->order, w->depth) != 0) { st->bad++; return; }
    tops_distance(n, head, w->order, w->dist);
    tops_ancestors(n, head, w->anc);
    tops_rel_pos(n, w->depth, w->anc, w->rel);
    size_t nn = (size_t)n * n;
    st->disagree += memcmp(w->depth, w->depth2, n * sizeof(int)) != 0
                 || memcmp(w->dist, w->dist2, nn * sizeof(int)) != 0
                 || memcmp(w->anc, w->anc2, nn) != 0
                 || memcmp(w->rel, w->rel2, nn * sizeof(int)) != 0;
    int root = -1;
    for (int i = 0; i < n; i++) {
        if (head[i] < 0) root = i;
        if (w->depth[i] > st->max_depth) st->max_depth = w->depth[i];
    }
    long bad = 0;
    for (int i = 0; i < n; i++) {
        int ones = 0;
        for (int j = 0; j < n; j++) {
            size_t ij = (size_t)i * n + j, ji = (size_t)j * n + i;
            /* brute-force LCA by walking both chains */
            int a = i, b = j;
            while (w->depth[a] > w->depth[b]) a = head[a];
            while (w->depth[b] > w->depth[a]) b = head[b];
            while (a != b) { a = head[a]; b = head[b]; }
            int D = w->dist[ij];
            bad += D != w->depth[i] + w->depth[j] - 2 * w->depth[a];
            bad += D != w->dist[ji];
            bad += w->anc[ij] != (a == j);
            ones += w->anc[ij];
            bad += w->rel[ij] != -w->rel[ji];
            int r = abs(w->rel[ij]);
            bad += r < D;
            bad += (r == D) != (a == i || a == j || a == root);
        }
        bad += ones != w->depth[i] + 1;
    }
    st->bad += bad != 0;
    /* non-projective: some word strictly between a dependent and its head is not a
     * descendant of that head (Anc[k][head] = 0) */
    int np = 0;
    for (int d = 0; d < n && !np; d++) {
        int h = head[d];
        if (h < 0) continue;
        int lo = d < h ? d : h, hi = d < h ? h : d;
        for (int k = lo + 1; k < hi; k++)
            if (!w->anc[(size_t)k * n + h]) { np = 1; break; }
    }
    st->nonproj += np;
}

/* .dp: FORM TAB POS TAB HEAD, blank lines between sentences */
static void read_dp(const char *buf, struct dep_work *w, struct dep_stats *st)
{
    int cap = 512, n = 0;
    int *head = sp_xmalloc((size_t)cap * sizeof(int));
    const char *p = buf;
    for (;;) {
        const char *e = strchr(p, '\n');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        if (l && p[l - 1] == '\r') l--;
        if (l == 0) {
            if (n) one_dep_sentence(n, head, w, st);
            n = 0;
        } else {
            const char *t2 = memchr(p, '\t', l);
            const char *t3 = t2 ? memchr(t2 + 1, '\t', l - (size_t)(t2 + 1 - p)) : NULL;
            if (n == cap) head = sp_xrealloc(head, (size_t)(cap *= 2) * sizeof(int));
            head[n++] = t3 ? atoi(t3 + 1) - 1 : -3;
        }
        if (!e) break;
        p = e + 1;
    }
    if (n) one_dep_sentence(n, head, w, st);
    free(head);
}

/* CoNLL-U: integer IDs only (ranges and empty nodes skipped), HEAD in column 7 */
static void read_conllu(const char *buf, struct dep_work *w, struct dep_stats *st)
{
    int cap = 512, n = 0;
    int *head = sp_xmalloc((size_t)cap * sizeof(int));
    const char *p = buf;
    for (;;) {
        const char *e = strchr(p, '\n');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        if (l == 0) {
            if (n) one_dep_sentence(n, head, w, st);
            n = 0;
        } else if (p[0] != '#') {
            size_t k = 0;
            while (k < l && p[k] >= '0' && p[k] <= '9') k++;
            if (k < l && p[k] == '\t') {            /* a word line */
                const char *f = p;
                for (int col = 0; col < 6; col++) f = strchr(f, '\t') + 1;
                if (n == cap) head = sp_xrealloc(head, (size_t)(cap *= 2) * sizeof(int));
                head[n++] = atoi(f) - 1;
            }
        }
        if (!e) break;
        p = e + 1;
    }
    if (n) one_dep_sentence(n, head, w, st);
    free(head);
}

static void dependency_corpora(const char *dir)
{
    char path[1024];
    struct dep_work w = {0};
    struct dep_stats st = {0};
    char **names;
    snprintf(path, sizeof path, "%s/ptb-sample/dependency", dir);
    int nf = list_dir(path, ".dp", &names);
    T_EQ_INT(nf, 199);
    for (int k = 0; k < nf; k++) {
        snprintf(path, sizeof path, "%s/ptb-sample/dependency/%s", dir, names[k]);
        size_t len;
        char *buf = sp_read_file(path, &len, NULL, 0);
        T_CHECK(buf != NULL);
        if (buf) read_dp(buf, &w, &st);
        free(buf);
        free(names[k]);
    }
    free(names);
    T_EQ_INT(st.sents, 3914);
    T_EQ_INT(st.words, 94084);
    T_EQ_INT(st.max_len, 249);
    T_EQ_INT(st.max_depth, 22);
    T_EQ_INT(st.nonproj, 0);
    T_EQ_INT(st.bad, 0);
    T_EQ_INT(st.disagree, 0);
    printf("PTB .dp: %ld sentences, %ld words; tops_dep_all (depth+D+Anc+rel): %.2f M words/s\n",
           st.sents, st.words, st.words / st.seconds / 1e6);

    memset(&st, 0, sizeof st);
    snprintf(path, sizeof path, "%s/ud-ewt/en_ewt-ud-dev.conllu", dir);
    size_t len;
    char *buf = sp_read_file(path, &len, NULL, 0);
    T_CHECK(buf != NULL);
    if (buf) read_conllu(buf, &w, &st);
    free(buf);
    T_EQ_INT(st.sents, 2001);
    T_EQ_INT(st.words, 25147);
    T_EQ_INT(st.max_len, 75);
    T_EQ_INT(st.max_depth, 10);
    T_EQ_INT(st.nonproj, 31);
    T_EQ_INT(st.bad, 0);
    T_EQ_INT(st.disagree, 0);
    printf("EWT dev: %ld sentences, %ld words; tops_dep_all: %.2f M words/s\n",
           st.sents, st.words, st.words / st.seconds / 1e6);
    work_free(&w);
}

/* ---- constituency side ---- */

struct const_stats {
    long trees, words;
    long depth_hist[64];
    long phrases[3], single[3];
    long bad_levels, bad_brackets;
    /* TopConst counts: a small open-addressing table of strings */
    int n_tc;
    char *tc_key[4096];
    long tc_cnt[4096];
};

static void tc_add(struct const_stats *s, const char *seq)
{
    for (int k = 0; k < s->n_tc; k++)
        if (strcmp(s->tc_key[k], seq) == 0) { s->tc_cnt[k]++; return; }
    if (s->n_tc < 4096) {
        s->tc_key[s->n_tc] = sp_xstrdup(seq);
        s->tc_cnt[s->n_tc++] = 1;
    }
}

static long tc_get(const struct const_stats *s, const char *seq)
{
    for (int k = 0; k < s->n_tc; k++)
        if (strcmp(s->tc_key[k], seq) == 0) return s->tc_cnt[k];
    return 0;
}

static void one_tree(const struct sp_ctree *t, int n, struct const_stats *s)
{
    s->trees++;
    s->words += n;
    int d = tops_tree_depth(t);
    s->depth_hist[d < 63 ? d : 63]++;
    char tc[512];
    tc_add(s, tops_top_const(t, tc, sizeof tc));
    int *pid = sp_xmalloc((size_t)3 * n * sizeof(int));
    int cnt = tops_phrases(t, n, 3, 4, pid);
    if (cnt < 1) { s->bad_levels++; free(pid); return; }
    for (int lv = 0; lv < 3; lv++) {
        const int *row = pid + (size_t)lv * n;
        int ok = row[0] == 0, run = 1;
        for (int i = 1; i <= n; i++) {
            if (i < n && row[i] == row[i - 1]) { run++; continue; }
            s->phrases[lv]++;
            s->single[lv] += run == 1;
            run = 1;
            if (i < n) ok &= row[i] == row[i - 1] + 1;       /* contiguous, left to right */
        }
        /* refinement: words together at level lv were together at level lv-1 */
        if (lv > 0)
            for (int i = 1; i < n; i++)
                ok &= row[i] != row[i - 1] || row[i - n] == row[i - 1 - n];
        s->bad_levels += !ok;
    }
    if (cnt != pid[3 * n - 1] + 1) s->bad_levels++;
    free(pid);
    int nb = tops_brackets(t, NULL, 0), phrasal = 0;
    for (int k = 1; k < t->n_nodes; k++) phrasal += t->node[k].first_child >= 0;
    int *span = sp_xmalloc((size_t)2 * (nb + 1) * sizeof(int));
    tops_brackets(t, span, nb);
    int ok = nb == phrasal && nb >= 1 && span[0] == 0 && span[1] == n - 1;
    for (int k = 0; k < nb; k++) ok &= span[2 * k] >= 0 && span[2 * k] <= span[2 * k + 1] && span[2 * k + 1] < n;
    s->bad_brackets += !ok;
    free(span);
}

static void check_const_stats(const char *what, struct const_stats *s)
{
    printf("PTB .mrg via %s: %ld trees, %ld words\n", what, s->trees, s->words);
    T_EQ_INT(s->trees, 3914);
    T_EQ_INT(s->words, 94084);
    int mn = -1, mx = -1, mode = -1;
    for (int d = 0; d < 64; d++) {
        if (!s->depth_hist[d]) continue;
        if (mn < 0) mn = d;
        mx = d;
        if (mode < 0 || s->depth_hist[d] > s->depth_hist[mode]) mode = d;
    }
    T_EQ_INT(mn, 3);
    T_EQ_INT(mx, 30);
    T_EQ_INT(mode, 11);
    T_EQ_INT(s->depth_hist[11], 424);
    long best = 0;
    const char *best_key = "";
    for (int k = 0; k < s->n_tc; k++)
        if (s->tc_cnt[k] > best) { best = s->tc_cnt[k]; best_key = s->tc_key[k]; }
    T_EQ_STR(best_key, "NP_VP_.");
    T_EQ_INT(tc_get(s, "NP_VP_."), 1765);
    T_EQ_INT(tc_get(s, "PP_,_NP_VP_."), 270);
    T_EQ_INT(tc_get(s, "S_,_NP_VP_."), 154);
    const double per_sent[3] = {4.11, 6.58, 8.78}, per_phrase[3] = {5.86, 3.65, 2.74};
    const double single[3] = {0.52, 0.61, 0.65};
    for (int lv = 0; lv < 3; lv++) {
        double ps = (double)s->phrases[lv] / s->trees, wp = (double)s->words / s->phrases[lv];
        double sg = (double)s->single[lv] / s->phrases[lv];
        printf("  level %d: %.3f phrases/sentence, %.3f words/phrase, %.1f%% single words\n",
               lv + 1, ps, wp, 100 * sg);
        T_NEAR(ps, per_sent[lv], 0.005);
        T_NEAR(wp, per_phrase[lv], 0.005);
        T_NEAR(sg, single[lv], 0.005);
    }
    T_EQ_INT(s->bad_levels, 0);
    T_EQ_INT(s->bad_brackets, 0);
    for (int k = 0; k < s->n_tc; k++) free(s->tc_key[k]);
}

/* the two readers give the same normalised tree? */
static int same_tree(const struct sp_ctree *a, const struct sp_ctree *b)
{
    if (a->n_nodes != b->n_nodes) return 0;
    for (int k = 0; k < a->n_nodes; k++) {
        const struct sp_cnode *x = &a->node[k], *y = &b->node[k];
        if (strcmp(x->label, y->label) || x->parent != y->parent || x->first_child != y->first_child
            || x->next_sibling != y->next_sibling || x->n_children != y->n_children
            || x->start != y->start || x->end != y->end || x->word != y->word)
            return 0;
    }
    return 1;
}

static void constituency_corpus(const char *dir)
{
    char path[1024];
    char **names;
    snprintf(path, sizeof path, "%s/ptb-sample/combined", dir);
    int nf = list_dir(path, ".mrg", &names);
    T_EQ_INT(nf, 199);
    struct const_stats *local = calloc(1, sizeof *local), *ing = calloc(1, sizeof *ing);
    long differ = 0, ing_errors = 0;
    struct ing_batch batch;
    ing_batch_init(&batch);
    for (int k = 0; k < nf; k++) {
        snprintf(path, sizeof path, "%s/ptb-sample/combined/%s", dir, names[k]);
        size_t len;
        char *buf = sp_read_file(path, &len, NULL, 0);
        T_CHECK(buf != NULL);
        if (!buf) continue;
        /* the same file through ingest (whole file = whole sentences) */
        ing_batch_reset(&batch);
        char err[SP_ERRLEN];
        int rc = ing_parse_chunk(SP_FMT_PTB, SP_MODE_DEFAULT, buf, len, 1, 1, &batch, err, sizeof err);
        if (rc != SP_OK) { fprintf(stderr, "%s: %s\n", names[k], err); ing_errors++; }
        int item = 0;
        size_t off = 0;
        for (;;) {
            struct t_ptb p;
            long used = t_ptb_parse(buf + off, len - off, &p);
            if (used <= 0) { T_CHECK(used == 0); break; }
            off += (size_t)used;
            one_tree(&p.tree, p.n_words, local);
            if (rc == SP_OK && item < batch.n_items && !batch.item[item].error
                && batch.item[item].s.tree) {
                const struct sp_sentence *s = &batch.item[item].s;
                differ += !same_tree(&p.tree, s->tree) || s->n != p.n_words;
                one_tree(s->tree, s->n, ing);
            } else {
                ing_errors++;
            }
            item++;
            t_ptb_free(&p);
        }
        if (rc == SP_OK && item != batch.n_items) ing_errors++;
        free(buf);
        free(names[k]);
    }
    free(names);
    ing_batch_free(&batch);
    check_const_stats("test-local reader", local);
    check_const_stats("ing_parse_chunk", ing);
    T_EQ_INT(ing_errors, 0);
    T_EQ_INT(differ, 0);
    free(local);
    free(ing);
}

int main(void)
{
    const char *dir = t_data_dir();
    if (!dir) {
        T_SKIP("../shared/data absent: corpus checks not run");
        return T_DONE();
    }
    dependency_corpora(dir);
    constituency_corpus(dir);
    return T_DONE();
}
