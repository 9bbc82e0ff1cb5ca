/* probes/task_derive.c — building the 10 probing tasks from sentences (docs/spec/probing.md §2.1, §2.3).
 *
 * HOW IT WORKS. Each task first collects candidates (one per usable sentence: label, split
 * key, possibly altered text), then applies one of two split schemes of §2.1:
 *   - keyless tasks (SentLen, WC, TreeDepth, TopConst, BShift, CoordInv): stratified random
 *     split 80/10/10 inside each stratum (label, or a finer cell where balance matters);
 *   - lexical tasks (Tense, SubjNum, ObjNum, SOMO): group by key, cap each group at C,
 *     put whole groups into the partition with the lowest fill ratio, balance classes
 *     inside each partition (form-disjoint partitions, A13).
 * Then items are ordered tr, va, te and shuffled within each partition. Every task draws from
 * its own sp_rng, seeded from (opts.seed, task id); candidate lists are built in input order,
 * so the output is a deterministic function of (sentences, options).
 *
 * It does NOT read files or the store; see tasks_io.c for loading and writing. */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/strmap.h"
#include "ingest/senteval_file.h"
#include "probes/task_derive.h"
#include "treeops/treeops.h"

static const struct {
    const char *name, *file, *stem;
} task_info[PRB_NTASKS] = {
    { "SentLen",   "sentence_length.txt",        "sentence_length" },
    { "WC",        "word_content.txt",           "word_content" },
    { "TreeDepth", "tree_depth.txt",             "tree_depth" },
    { "TopConst",  "top_constituents.txt",       "top_constituents" },
    { "BShift",    "bigram_shift.txt",           "bigram_shift" },
    { "Tense",     "past_present.txt",           "past_present" },
    { "SubjNum",   "subj_number.txt",            "subj_number" },
    { "ObjNum",    "obj_number.txt",             "obj_number" },
    { "SOMO",      "odd_man_out.txt",            "odd_man_out" },
    { "CoordInv",  "coordination_inversion.txt", "coordination_inversion" },
};

const char *prb_task_name(enum prb_task_id id) { return id < PRB_NTASKS ? task_info[id].name : "?"; }
const char *prb_task_file(enum prb_task_id id) { return id < PRB_NTASKS ? task_info[id].file : "?"; }
const char *prb_split_name(enum prb_split s) { return s == PRB_TR ? "tr" : s == PRB_VA ? "va" : "te"; }

int prb_task_lookup(const char *name)
{
    for (int k = 0; k < PRB_NTASKS; k++)
        if (!strcasecmp(name, task_info[k].name) || !strcasecmp(name, task_info[k].stem) ||
            !strcasecmp(name, task_info[k].file))
            return k;
    return -1;
}

int prb_task_parse_list(const char *list, unsigned *mask, char *err, size_t errlen)
{
    *mask = 0;
    if (!list || !strcasecmp(list, "all")) { *mask = PRB_ALL_TASKS; return 0; }
    char name[64];
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ',');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        if (l == 0 || l >= sizeof name) { snprintf(err, errlen, "bad task list '%s'", list); return -1; }
        memcpy(name, p, l);
        name[l] = '\0';
        int id = prb_task_lookup(name);
        if (id < 0) {
            snprintf(err, errlen, "unknown task '%s' (expected one of SentLen WC TreeDepth TopConst BShift "
                     "Tense SubjNum ObjNum SOMO CoordInv, or all)", name);
            return -1;
        }
        *mask |= 1u << id;
        p = e ? e + 1 : p + l;
    }
    return 0;
}

void prb_opts_default(struct prb_opts *o)
{
    memset(o, 0, sizeof *o);
    o->seed = 1;
    o->tasks = PRB_ALL_TASKS;
    o->min_len = 5;
    o->max_len = 28;
    o->cap = 20;
    o->wc_k = 50;
    o->wc_rank = 100;
    o->depth_lo = 7;
    o->depth_hi = 10;
    o->topconst_min_train = 30;
    o->topconst_max_classes = 19;
    o->share[0] = 0.8; o->share[1] = 0.1; o->share[2] = 0.1;
}

/* ---- candidates and the split schemes of §2.1 ---- */

struct cand {
    int sent;
    int cls;                 /* task-local class number (index into the label table) */
    int stratum;             /* cell for the stratified split */
    const char *key;         /* lexical split key or NULL */
    const char *text;
    int split;               /* PRB_TR.. or -1 (dropped) */
};

struct clist { int n, cap; struct cand *c; };

static struct cand *cl_push(struct clist *l)
{
    if (l->n == l->cap) { l->cap = l->cap ? 2 * l->cap : 256; l->c = sp_xrealloc(l->c, l->cap * sizeof *l->c); }
    struct cand *c = &l->c[l->n++];
    memset(c, 0, sizeof *c);
    c->split = PRB_TR;
    return c;
}

static void shuffle(int *a, int n, struct sp_rng *r)
{
    for (int i = n - 1; i > 0; i--) {
        int j = (int)sp_rng_below(r, (uint64_t)i + 1), t = a[i];
        a[i] = a[j]; a[j] = t;
    }
}

static int cmp_int(const void *a, const void *b) { int x = *(const int *)a, y = *(const int *)b; return (x > y) - (x < y); }

/* indices of live candidates whose `field` equals v, in input order */
static int collect(const struct clist *l, int by_stratum, int v, int split, int *out)
{
    int k = 0;
    for (int i = 0; i < l->n; i++) {
        const struct cand *c = &l->c[i];
        if (c->split < 0 || (split >= 0 && c->split != split)) continue;
        if ((by_stratum ? c->stratum : c->cls) == v) out[k++] = i;
    }
    return k;
}

/* distinct values of stratum (or cls) among live candidates, ascending */
static int distinct(const struct clist *l, int by_stratum, int *out)
{
    int k = 0;
    for (int i = 0; i < l->n; i++)
        if (l->c[i].split >= 0) out[k++] = by_stratum ? l->c[i].stratum : l->c[i].cls;
    qsort(out, k, sizeof *out, cmp_int);
    int u = 0;
    for (int i = 0; i < k; i++)
        if (u == 0 || out[u - 1] != out[i]) out[u++] = out[i];
    return u;
}

/* Official partitions (o->official): every live candidate goes where its sentence is; those of
 * sentences in no partition are dropped. */
static void split_official(struct clist *l, const signed char *official)
{
    for (int i = 0; i < l->n; i++)
        if (l->c[i].split >= 0) l->c[i].split = official[l->c[i].sent] >= 0 ? official[l->c[i].sent] : -1;
}

/* Stratified random split: inside each stratum, shuffle, then round(0.8 m) to tr, round(0.1 m)
 * to va, the rest to te (tr first so that every class seen anywhere is in train). With official
 * partitions: those instead. */
static void split_stratified(struct clist *l, const struct prb_opts *o, struct sp_rng *r)
{
    if (o->official) { split_official(l, o->official); return; }
    const double *share = o->share;
    int *vals = sp_xmalloc(((size_t)l->n + 1) * sizeof *vals), *idx = sp_xmalloc(((size_t)l->n + 1) * sizeof *idx);
    int nv = distinct(l, 1, vals);
    for (int v = 0; v < nv; v++) {
        int m = collect(l, 1, vals[v], -1, idx);
        shuffle(idx, m, r);
        int ntr = (int)floor(share[0] * m + 0.5), nva = (int)floor(share[1] * m + 0.5);
        if (ntr < 1 && m > 0) ntr = 1;
        if (ntr + nva > m) nva = m - ntr;
        for (int i = 0; i < m; i++) l->c[idx[i]].split = i < ntr ? PRB_TR : i < ntr + nva ? PRB_VA : PRB_TE;
    }
    free(vals); free(idx);
}

/* Down-sample every class to the smallest one, inside each partition (split >= 0) or over
 * all live candidates (within_split == 0). ncls = number of classes that must all be present. */
static void balance(struct clist *l, int ncls, int within_split, struct sp_rng *r)
{
    int *idx = sp_xmalloc(((size_t)l->n + 1) * sizeof *idx);
    for (int sp = 0; sp < (within_split ? 3 : 1); sp++) {
        int want = within_split ? sp : -1, m = -1;
        for (int k = 0; k < ncls; k++) {
            int c = collect(l, 0, k, want, idx);
            if (m < 0 || c < m) m = c;
        }
        for (int k = 0; k < ncls; k++) {
            int c = collect(l, 0, k, want, idx);
            shuffle(idx, c, r);
            for (int i = m; i < c; i++) l->c[idx[i]].split = -1;
        }
    }
    free(idx);
}

static _Thread_local const struct clist *sort_list;   /* qsort has no context argument in C11; one per
                                                     * thread: stages run side by side (the daemon, stages_concurrent) */
static int cmp_by_key(const void *a, const void *b)
{
    const struct cand *x = &sort_list->c[*(const int *)a], *y = &sort_list->c[*(const int *)b];
    int c = strcmp(x->key, y->key);
    return c ? c : (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b);
}

/* Form-disjoint split (§2.1 steps 1–4): group by key, cap each group at `cap` by seeded
 * sampling, shuffle the groups and put each whole group into the partition with the lowest
 * fill ratio (items / share; ties to the earlier partition), then balance classes inside
 * each partition. With official partitions, each item goes where its sentence is, and a group
 * found in several keeps only its items of the earliest (train, then dev, then test), so that a
 * form still occurs in one partition only. */
static void split_disjoint(struct clist *l, int ncls, const struct prb_opts *o, struct sp_rng *r)
{
    int cap = o->cap;
    const double *share = o->share;
    int n = 0, *idx = sp_xmalloc(((size_t)l->n + 1) * sizeof *idx);
    for (int i = 0; i < l->n; i++)
        if (l->c[i].split >= 0) idx[n++] = i;
    sort_list = l;
    qsort(idx, n, sizeof *idx, cmp_by_key);
    /* groups: [gs[g], gs[g+1]) in idx, ordered by first occurrence for determinism */
    int ng = 0, *gs = sp_xmalloc(((size_t)n + 2) * sizeof *gs), *gfirst = sp_xmalloc(((size_t)n + 1) * sizeof *gfirst);
    for (int i = 0; i < n; i++)
        if (i == 0 || strcmp(l->c[idx[i]].key, l->c[idx[i - 1]].key)) { gfirst[ng] = idx[i]; gs[ng++] = i; }
    gs[ng] = n;
    /* order groups by first input position (idx inside a group is ascending) */
    int *order = sp_xmalloc(((size_t)ng + 1) * sizeof *order);
    for (int g = 0; g < ng; g++) order[g] = g;
    for (int g = 1; g < ng; g++) {            /* insertion sort by gfirst; ng is small */
        int x = order[g], j = g;
        while (j > 0 && gfirst[order[j - 1]] > gfirst[x]) { order[j] = order[j - 1]; j--; }
        order[j] = x;
    }
    for (int q = 0; q < ng; q++) {
        int g = order[q], m = gs[g + 1] - gs[g];
        shuffle(idx + gs[g], m, r);
        for (int i = cap; i < m; i++) l->c[idx[gs[g] + i]].split = -1;
    }
    shuffle(order, ng, r);
    if (o->official) {
        for (int q = 0; q < ng; q++) {
            int g = order[q], m = gs[g + 1] - gs[g], kept = m < cap ? m : cap, first = 3;
            for (int i = 0; i < kept; i++) {
                int sp = o->official[l->c[idx[gs[g] + i]].sent];
                if (sp >= 0 && sp < first) first = sp;
            }
            for (int i = 0; i < kept; i++) {
                struct cand *c = &l->c[idx[gs[g] + i]];
                c->split = o->official[c->sent] == first ? first : -1;
            }
        }
        free(idx); free(gs); free(gfirst); free(order);
        balance(l, ncls, 1, r);
        return;
    }
    double fill[3] = { 0, 0, 0 };
    for (int q = 0; q < ng; q++) {
        int g = order[q], m = gs[g + 1] - gs[g], kept = m < cap ? m : cap, best = 0;
        for (int sp = 1; sp < 3; sp++)
            if (fill[sp] / share[sp] < fill[best] / share[best]) best = sp;
        for (int i = 0; i < kept; i++) l->c[idx[gs[g] + i]].split = best;
        fill[best] += kept;
    }
    free(idx); free(gs); free(gfirst); free(order);
    balance(l, ncls, 1, r);
}

/* ---- finishing a task: order, shuffle, class table, counts ---- */

static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

static char *note_add(struct sp_arena *a, const char *old, const char *add)
{
    return old ? sp_arena_printf(a, "%s; %s", old, add) : sp_arena_strdup(a, add);
}

static void finish(struct prb_taskset *ts, struct prb_task *t, struct clist *l, const char *const *label,
                   struct sp_rng *r)
{
    struct sp_arena *a = &ts->arena;
    int *idx = sp_xmalloc(((size_t)l->n + 1) * sizeof *idx), n = 0;
    t->item = sp_arena_alloc(a, ((size_t)l->n + 1) * sizeof *t->item);
    /* SentEval fails on a dev/test label absent from train: drop such items (and say so) */
    int ncls = 0;
    for (int i = 0; i < l->n; i++) if (l->c[i].cls + 1 > ncls) ncls = l->c[i].cls + 1;
    char *intr = sp_xcalloc((size_t)ncls + 1, 1);
    for (int i = 0; i < l->n; i++) if (l->c[i].split == PRB_TR) intr[l->c[i].cls] = 1;
    int dropped = 0;
    for (int i = 0; i < l->n; i++)
        if (l->c[i].split > PRB_TR && !intr[l->c[i].cls]) { l->c[i].split = -1; dropped++; }
    free(intr);
    if (dropped)
        t->note = note_add(a, t->note, sp_arena_printf(a, "%d dev/test items dropped: label absent from train", dropped));
    for (int sp = 0; sp < 3; sp++) {
        int m = 0;
        for (int i = 0; i < l->n; i++) if (l->c[i].split == sp) idx[m++] = i;
        shuffle(idx, m, r);
        for (int i = 0; i < m; i++) {
            const struct cand *c = &l->c[idx[i]];
            struct prb_item *it = &t->item[n++];
            it->split = (enum prb_split)sp;
            it->label = label[c->cls];
            it->text = c->text;
            it->sent = c->sent;
            it->key = c->key;
        }
        if (m == 0 && l->n > 0)
            t->note = note_add(a, t->note, sp_arena_printf(a, "partition %s is empty", prb_split_name(sp)));
    }
    t->n_items = n;
    /* class table: distinct labels, byte-wise sorted (SentEval §1.2) */
    const char **cls = sp_arena_alloc(a, ((size_t)n + 1) * sizeof *cls);
    int k = 0;
    for (int i = 0; i < n; i++) cls[k++] = t->item[i].label;
    qsort(cls, k, sizeof *cls, cmp_str);
    int u = 0;
    for (int i = 0; i < k; i++)
        if (u == 0 || strcmp(cls[u - 1], cls[i])) cls[u++] = cls[i];
    t->n_classes = u;
    t->cls = cls;
    t->count = sp_arena_alloc(a, ((size_t)u + 1) * sizeof *t->count);
    for (int i = 0; i < n; i++) {
        const char **p = bsearch(&t->item[i].label, cls, u, sizeof *cls, cmp_str);
        t->count[p - cls][t->item[i].split]++;
    }
    int n_test = 0;
    for (int i = 0; i < n; i++) n_test += t->item[i].split == PRB_TE;
    t->built = n > 0 && u >= 2 && n_test > 0;
    if (!t->built)      /* a task without test items gives no test accuracy: skipped, not stored */
        t->reason = n == 0 ? sp_arena_printf(a, "no items left after balancing (%d candidates)", t->n_candidates)
                  : u < 2  ? sp_arena_strdup(a, "only one class left after balancing")
                  : ts->opts.official
                      ? sp_arena_printf(a, "no test items: none of its %d items (%d classes) comes from a test sentence", n, u)
                      : sp_arena_printf(a, "no test items: its %d items (%d classes, %d a class) are too few for the "
                                        "80/10/10 split to put any in test%s",
                                        n, u, n / u, t->id == PRB_WC ? " (fewer targets, --wc-k, or a larger corpus)" : "");
    free(idx);
}

/* ---- helpers on sentences ---- */

static int in_window(const struct prb_opts *o, const struct sp_sentence *s) { return s->n >= o->min_len && s->n <= o->max_len; }

static const char *form(const struct sp_sentence *s, int i) { return s->col[SP_FORM][i]; }
static const char *tag(const struct sp_sentence *s, int i)
{
    return s->col[SP_XPOS] && s->col[SP_XPOS][i] ? s->col[SP_XPOS][i] : "_";
}

/* tokens joined by single spaces; whitespace inside a token becomes '_' so the SentEval
 * reader's split on whitespace sees the same tokens (TAB would break the file) */
static char *join(struct sp_arena *a, const struct sp_sentence *s, int swap_at, int repl_at, const char *repl)
{
    size_t len = 1;
    for (int i = 0; i < s->n; i++) len += strlen(i == repl_at ? repl : form(s, i)) + 1;
    char *out = sp_arena_alloc(a, len), *p = out;
    for (int i = 0; i < s->n; i++) {
        int j = i == swap_at ? i + 1 : i == swap_at + 1 && swap_at >= 0 ? i - 1 : i;
        const char *w = j == repl_at ? repl : form(s, j);
        if (i) *p++ = ' ';
        for (; *w; w++) *p++ = isspace((unsigned char)*w) ? '_' : *w;
    }
    *p = '\0';
    return out;
}

static char *lower(struct sp_arena *a, const char *w)
{
    char *s = sp_arena_strdup(a, w);
    for (char *p = s; *p; p++) *p = (char)tolower((unsigned char)*p);
    return s;
}

static int alpha_word(const char *w)
{
    if (!*w) return 0;
    for (; *w; w++) if (!isalpha((unsigned char)*w)) return 0;
    return 1;
}

static int has_quotes(const struct sp_sentence *s)
{
    for (int i = 0; i < s->n; i++) {
        const char *w = form(s, i), *t = tag(s, i);
        if (!strcmp(w, "\"") || !strcmp(w, "``") || !strcmp(w, "''") || !strcmp(t, "``") || !strcmp(t, "''"))
            return 1;
    }
    return 0;
}

static int has_tags(const struct sp_sentence *s)
{
    return s->n > 0 && s->col[SP_XPOS] && strcmp(tag(s, 0), "_") != 0;
}

/* ---- the tasks ---- */

struct ctx {
    struct prb_taskset *ts;
    const struct sp_sentence *s;
    int n;
    const struct prb_opts *o;
    int n_tree, n_rel, n_tags, n_heads;   /* sentences with a tree / UD relations / tags / dependency heads */
};

static const char *const num_labels[] = { "0", "1", "2", "3", "4", "5" };

static void task_sentlen(struct ctx *x, struct prb_task *t, struct sp_rng *r)
{
    struct clist l = { 0 };
    for (int i = 0; i < x->n; i++) {
        int b = prb_sentlen_bin(x->s[i].n);
        if (b < 0 || !in_window(x->o, &x->s[i])) continue;
        struct cand *c = cl_push(&l);
        c->sent = i; c->cls = b; c->stratum = b;
        c->text = join(&x->ts->arena, &x->s[i], -1, -1, NULL);
    }
    t->n_candidates = l.n;
    balance(&l, 6, 0, r);
    split_stratified(&l, x->o, r);
    t->note = "bins 5-8/9-12/13-16/17-20/21-25/26-28, balanced to the smallest bin, stratified 80/10/10";
    finish(x->ts, t, &l, num_labels, r);
    free(l.c);
}

/* WC (§2.3, A7): K targets from frequency rank wc_rank on among lower-cased alphabetic types of
 * >= 4 letters (ties by first occurrence); sentences with exactly one target occurrence. */
static void task_wc(struct ctx *x, struct prb_task *t, struct sp_rng *r)
{
    struct sp_arena *a = &x->ts->arena;
    struct sp_strmap f;
    sp_strmap_init(&f);
    char buf[256];
    for (int i = 0; i < x->n; i++)
        for (int j = 0; j < x->s[i].n; j++) {
            const char *w = form(&x->s[i], j);
            size_t l = strlen(w);
            if (l < 4 || l >= sizeof buf || !alpha_word(w)) continue;
            for (size_t q = 0; q <= l; q++) buf[q] = (char)tolower((unsigned char)w[q]);
            sp_strmap_add(&f, a, buf, 1);
        }
    /* rank: count desc, then first occurrence */
    int nt = 0, *ord = sp_xmalloc((f.n + 1) * sizeof *ord);
    size_t *slot = sp_xmalloc((f.n + 1) * sizeof *slot);
    for (size_t i = 0; i < f.cap; i++) if (f.key[i]) slot[f.first[i]] = i;
    for (size_t i = 0; i < f.n; i++) ord[nt++] = (int)i;
    for (int i = 1; i < nt; i++) {            /* stable insertion by count (first order kept) */
        int v = ord[i], j = i;
        while (j > 0 && f.val[slot[ord[j - 1]]] < f.val[slot[v]]) { ord[j] = ord[j - 1]; j--; }
        ord[j] = v;
    }
    int k = x->o->wc_k, from = x->o->wc_rank;
    if (from + k > nt) {
        t->reason = sp_arena_printf(a, "only %d alphabetic types of >= 4 letters; WC needs ranks %d..%d", nt, from, from + k - 1);
        sp_strmap_free(&f); free(ord); free(slot);
        return;
    }
    /* target table: label index = rank - from */
    const char **label = sp_arena_alloc(a, (size_t)k * sizeof *label);
    struct sp_strmap tg;
    sp_strmap_init(&tg);
    for (int q = 0; q < k; q++) {
        label[q] = f.key[slot[ord[from + q]]];
        sp_strmap_add(&tg, a, label[q], q + 1);    /* value = index + 1 (0 = absent) */
    }
    int lo = f.val[slot[ord[from + k - 1]]], hi = f.val[slot[ord[from]]];
    struct clist l = { 0 };
    for (int i = 0; i < x->n; i++) {
        const struct sp_sentence *s = &x->s[i];
        if (!in_window(x->o, s)) continue;
        int hits = 0, which = -1;
        for (int j = 0; j < s->n && hits < 2; j++) {
            const char *w = form(s, j);
            size_t l2 = strlen(w);
            if (l2 < 4 || l2 >= sizeof buf) continue;
            for (size_t q = 0; q <= l2; q++) buf[q] = (char)tolower((unsigned char)w[q]);
            int v = sp_strmap_get(&tg, buf);
            if (v) { hits++; which = v - 1; }
        }
        if (hits != 1) continue;
        struct cand *c = cl_push(&l);
        c->sent = i; c->cls = which; c->stratum = which; c->key = label[which];
        c->text = join(a, s, -1, -1, NULL);
    }
    t->n_candidates = l.n;
    balance(&l, k, 0, r);
    split_stratified(&l, x->o, r);
    t->note = sp_arena_printf(a, "K = %d targets from frequency rank %d (frequencies %d-%d), classes balanced, "
                              "stratified 80/10/10", k, from, lo, hi);
    finish(x->ts, t, &l, label, r);
    sp_strmap_free(&f); sp_strmap_free(&tg); free(ord); free(slot); free(l.c);
}

/* TreeDepth (A9, §2.3): depths in [lo, hi], crossed with the SentLen bins; inside each bin every
 * depth cell is down-sampled to the bin's smallest cell, so depth is independent of the bin. */
static void task_treedepth(struct ctx *x, struct prb_task *t, struct sp_rng *r)
{
    struct sp_arena *a = &x->ts->arena;
    int lo = x->o->depth_lo, hi = x->o->depth_hi, nd = hi - lo + 1;
    const char **label = sp_arena_alloc(a, (size_t)nd * sizeof *label);
    for (int d = 0; d < nd; d++) label[d] = sp_arena_printf(a, "%d", lo + d);
    struct clist l = { 0 };
    for (int i = 0; i < x->n; i++) {
        const struct sp_sentence *s = &x->s[i];
        int b = prb_sentlen_bin(s->n);
        if (!s->tree || b < 0 || !in_window(x->o, s)) continue;
        int d = tops_tree_depth(s->tree);
        if (d < lo || d > hi) continue;
        struct cand *c = cl_push(&l);
        c->sent = i; c->cls = d - lo; c->stratum = b * nd + (d - lo);
        c->text = join(a, s, -1, -1, NULL);
    }
    t->n_candidates = l.n;
    int *idx = sp_xmalloc(((size_t)l.n + 1) * sizeof *idx);
    for (int b = 0; b < 6; b++) {
        int m = -1;
        for (int d = 0; d < nd; d++) { int c = collect(&l, 1, b * nd + d, -1, idx); if (m < 0 || c < m) m = c; }
        for (int d = 0; d < nd; d++) {
            int c = collect(&l, 1, b * nd + d, -1, idx);
            shuffle(idx, c, r);
            for (int i = m; i < c; i++) l.c[idx[i]].split = -1;
        }
    }
    free(idx);
    split_stratified(&l, x->o, r);
    t->note = sp_arena_printf(a, "depths %d-%d; in every SentLen bin each depth cell down-sampled to the bin's "
                              "smallest (decorrelated from length); report a length-only baseline", lo, hi);
    finish(x->ts, t, &l, label, r);
    free(l.c);
}

/* TopConst (A10, §2.3): valid sequences only; the top-k sequences with >= min_train training
 * items become classes, the rest OTHER; classes balanced inside each partition. */
static void task_topconst(struct ctx *x, struct prb_task *t, struct sp_rng *r)
{
    struct sp_arena *a = &x->ts->arena;
    struct sp_strmap seqs;
    sp_strmap_init(&seqs);
    struct clist l = { 0 };
    char buf[1024];
    for (int i = 0; i < x->n; i++) {
        const struct sp_sentence *s = &x->s[i];
        if (!s->tree || !in_window(x->o, s)) continue;
        if (!prb_topconst_seq(s, x->o->topconst_nopunct, buf, sizeof buf)) continue;
        sp_strmap_add(&seqs, a, buf, 0);
        struct cand *c = cl_push(&l);
        c->sent = i;
        c->stratum = seqs.first[sp_strmap_slot(&seqs, buf)];
        c->key = seqs.key[sp_strmap_slot(&seqs, buf)];
        c->text = join(a, s, -1, -1, NULL);
    }
    t->n_candidates = l.n;
    split_stratified(&l, x->o, r);
    /* training counts per sequence, then the classes */
    int ns = (int)seqs.n, *trc = sp_xcalloc((size_t)ns + 1, sizeof *trc), *ord = sp_xmalloc(((size_t)ns + 1) * sizeof *ord);
    const char **sname = sp_xcalloc((size_t)ns + 1, sizeof *sname);
    for (int i = 0; i < l.n; i++) { sname[l.c[i].stratum] = l.c[i].key; if (l.c[i].split == PRB_TR) trc[l.c[i].stratum]++; }
    for (int q = 0; q < ns; q++) ord[q] = q;
    for (int q = 1; q < ns; q++) {
        int v = ord[q], j = q;
        while (j > 0 && (trc[ord[j - 1]] < trc[v] || (trc[ord[j - 1]] == trc[v] && strcmp(sname[ord[j - 1]], sname[v]) > 0))) {
            ord[j] = ord[j - 1]; j--;
        }
        ord[j] = v;
    }
    int k = 0;
    while (k < ns && k < x->o->topconst_max_classes && trc[ord[k]] >= x->o->topconst_min_train) k++;
    const char **label = sp_arena_alloc(a, ((size_t)k + 1) * sizeof *label);
    int *cls_of = sp_xmalloc(((size_t)ns + 1) * sizeof *cls_of);
    for (int q = 0; q < ns; q++) cls_of[ord[q]] = q < k ? q : k;
    for (int q = 0; q < k; q++) label[q] = sname[ord[q]];
    label[k] = "OTHER";
    int any_other = 0;
    for (int i = 0; i < l.n; i++) { l.c[i].cls = cls_of[l.c[i].stratum]; any_other |= l.c[i].cls == k; l.c[i].key = NULL; }
    if (k == 0) {
        t->reason = sp_arena_printf(a, "no TopConst sequence has %d training items (%d candidates)",
                                    x->o->topconst_min_train, l.n);
    } else {
        balance(&l, any_other ? k + 1 : k, 1, r);
        t->note = sp_arena_printf(a, "%s; %d classes with >= %d training items + OTHER, balanced in each partition",
                                  x->o->topconst_nopunct ? "TopConst-nopunct variant" :
                                  "punctuation filter (sentence-internal punctuation excluded)",
                                  k, x->o->topconst_min_train);
        finish(x->ts, t, &l, label, r);
    }
    sp_strmap_free(&seqs); free(trc); free(ord); free(sname); free(cls_of); free(l.c);
}

/* BShift (A14): swap tokens (i, i+1), 1 <= i <= n-2, both non-punctuation and different;
 * sentences with double quotes excluded; every source sentence used once (O or I). */
static void task_bshift(struct ctx *x, struct prb_task *t, struct sp_rng *r)
{
    static const char *const label[2] = { "I", "O" };
    struct sp_arena *a = &x->ts->arena;
    struct clist l = { 0 };
    int *pos = sp_xmalloc(((size_t)x->o->max_len + 2) * sizeof *pos);
    for (int i = 0; i < x->n; i++) {
        const struct sp_sentence *s = &x->s[i];
        if (!in_window(x->o, s) || !has_tags(s) || has_quotes(s)) continue;
        int np = 0;
        for (int j = 1; j + 1 < s->n; j++)
            if (!prb_is_punct(s, j) && !prb_is_punct(s, j + 1) && strcmp(form(s, j), form(s, j + 1))) np++;
        if (!np) continue;
        struct cand *c = cl_push(&l);
        c->sent = i;
    }
    t->n_candidates = l.n;
    int *idx = sp_xmalloc(((size_t)l.n + 1) * sizeof *idx);
    for (int i = 0; i < l.n; i++) idx[i] = i;
    shuffle(idx, l.n, r);
    int half = l.n / 2;
    for (int q = 0; q < l.n; q++) {
        struct cand *c = &l.c[idx[q]];
        const struct sp_sentence *s = &x->s[c->sent];
        if (q >= 2 * half) { c->split = -1; continue; }
        c->cls = c->stratum = q < half ? 0 : 1;
        int sw = -1;
        if (c->cls == 0) {
            int np = 0;
            for (int j = 1; j + 1 < s->n; j++)
                if (!prb_is_punct(s, j) && !prb_is_punct(s, j + 1) && strcmp(form(s, j), form(s, j + 1))) pos[np++] = j;
            sw = pos[sp_rng_below(r, (uint64_t)np)];
        }
        c->text = join(a, s, sw, -1, NULL);
    }
    free(idx); free(pos);
    split_stratified(&l, x->o, r);
    t->note = "half of the quote-free sentences inverted at one random non-punctuation bigram (i >= 1), stratified 80/10/10";
    finish(x->ts, t, &l, label, r);
    free(l.c);
}

/* Tense / SubjNum / ObjNum (§2.2, A12, A13): label + lower-cased key, form-disjoint split. */
static void task_lexical(struct ctx *x, struct prb_task *t, struct sp_rng *r)
{
    static const char *const tense_label[2] = { "PAST", "PRES" }, *const num_label[2] = { "NN", "NNS" };
    struct sp_arena *a = &x->ts->arena;
    struct clist l = { 0 };
    for (int i = 0; i < x->n; i++) {
        const struct sp_sentence *s = &x->s[i];
        if (!in_window(x->o, s)) continue;
        int w = -1, cls;
        if (t->id == PRB_TENSE) {
            int v = prb_tense(s, 0, &w);
            if (!v) continue;
            cls = v - 1;
        } else {
            w = t->id == PRB_SUBJNUM ? prb_subject_head(s) : prb_object_head(s);
            if (w < 0) continue;
            const char *tg = tag(s, w);
            if (!strcmp(tg, "NN")) cls = 0;
            else if (!strcmp(tg, "NNS")) cls = 1;
            else continue;
        }
        struct cand *c = cl_push(&l);
        c->sent = i; c->cls = cls;
        c->key = lower(a, form(s, w));
        c->text = join(a, s, -1, -1, NULL);
    }
    t->n_candidates = l.n;
    split_disjoint(&l, 2, x->o, r);
    t->note = sp_arena_printf(a, "%s; per-form cap %d, form-disjoint partitions, classes balanced in each partition",
                              t->id == PRB_TENSE ? "finite lexical main verb only, be/have/do excluded" :
                              t->id == PRB_SUBJNUM ? "head noun of the subject (NP-SBJ / nsubj), NN or NNS" :
                              "head noun of the direct object (plain NP of the lexical VP / obj), NN or NNS",
                              x->o->cap);
    finish(x->ts, t, &l, t->id == PRB_TENSE ? tense_label : num_label, r);
    free(l.c);
}

/* CoordInv (A15): frame S (,) CC S ., one CC; O and I hold the same numbers of items with the
 * first conjunct longer, the second longer, equal (strata); each sentence used once. */
static void task_coordinv(struct ctx *x, struct prb_task *t, struct sp_rng *r)
{
    static const char *const label[2] = { "I", "O" };
    struct sp_arena *a = &x->ts->arena;
    struct clist l = { 0 };
    struct prb_coord *fr = sp_xmalloc(((size_t)x->n + 1) * sizeof *fr);
    for (int i = 0; i < x->n; i++) {
        const struct sp_sentence *s = &x->s[i];
        struct prb_coord cf;
        if (!in_window(x->o, s) || !prb_coord_frame(s, &cf)) continue;
        int la = cf.a1 - cf.a0, lb = cf.b1 - cf.b0;
        fr[l.n] = cf;
        struct cand *c = cl_push(&l);
        c->sent = i;
        c->stratum = la > lb ? 0 : la < lb ? 1 : 2;
    }
    t->n_candidates = l.n;
    int *idx = sp_xmalloc(((size_t)l.n + 1) * sizeof *idx);
    for (int st = 0; st < 3; st++) {
        int m = collect(&l, 1, st, -1, idx), half = m / 2;
        shuffle(idx, m, r);
        for (int q = 0; q < m; q++) {
            struct cand *c = &l.c[idx[q]];
            if (q >= 2 * half) { c->split = -1; continue; }
            c->cls = q < half ? 0 : 1;
            c->stratum = 10 + st * 2 + c->cls;   /* >= 10: not revisited by this loop */
            c->text = c->cls == 0 ? prb_coord_invert(&x->s[c->sent], &fr[idx[q]], a)
                                  : join(a, &x->s[c->sent], -1, -1, NULL);
        }
    }
    free(idx); free(fr);
    split_stratified(&l, x->o, r);
    t->note = "half of the frames inverted (A15), O/I matched on conjunct-length strata";
    if (l.n < 200)
        t->note = sp_arena_printf(a, "%s; only %d candidates: too small for a stable estimate (pool corpora, "
                                  "report a bootstrap interval)", t->note, l.n);
    finish(x->ts, t, &l, label, r);
    free(l.c);
}

/* ---- SOMO ---- */

struct somo_type { const char *form; const char *lemma; int freq; };
struct somo_tag { const char *tag; int n, cap; struct somo_type *t; };

static int cmp_type(const void *a, const void *b)
{
    const struct somo_type *x = a, *y = b;
    return x->freq != y->freq ? (x->freq > y->freq) - (x->freq < y->freq) : strcmp(x->form, y->form);
}

static const char *const somo_tags[] = { "NN", "NNS", "VB", "VBD", "VBG", "VBN", "VBP", "VBZ" };
#define N_SOMO_TAGS 8

static int somo_tag(const char *tg)
{
    for (int k = 0; k < N_SOMO_TAGS; k++) if (!strcmp(tg, somo_tags[k])) return k;
    return -1;
}

static int aux_form(const char *low)
{
    static const char *const f[] = { "am", "is", "are", "was", "were", "be", "been", "being", "have", "has",
                                     "had", "having", "do", "does", "did", "done", "doing" };
    for (size_t k = 0; k < sizeof f / sizeof f[0]; k++) if (!strcmp(low, f[k])) return 1;
    return 0;
}

/* What SOMO draws replacements from: counts over the whole pool of sentences and the
 * replaceable word types of each tag */
struct somo {
    struct sp_strmap uni, bi, seen;   /* lowercased unigram and bigram ("a\tb") counts; form\ttag types */
    struct somo_tag tags[N_SOMO_TAGS];  /* per tag: alphabetic non-auxiliary types, by frequency */
    struct sp_buf b;                  /* scratch for keys */
    const char **pool, **pref;        /* one position's candidates, and those with attested bigrams */
    int pool_cap;
};

/* A sentence's lemma of word j, or NULL when it has none */
static const char *lemma_of(const struct sp_sentence *s, int j)
{
    return s->col[SP_LEMMA] && s->col[SP_LEMMA][j] && strcmp(s->col[SP_LEMMA][j], "_") ? s->col[SP_LEMMA][j] : NULL;
}

/* Word j (lowercased: w) of s as a type of tag k, once per form and tag */
static void somo_add_type(struct somo *S, struct sp_arena *a, const struct sp_sentence *s, int j, char *w, int k)
{
    S->b.len = 0;
    sp_buf_printf(&S->b, "%s\t%s", w, somo_tags[k]);
    if (sp_strmap_get(&S->seen, S->b.p)) return;
    sp_strmap_add(&S->seen, a, S->b.p, 1);
    struct somo_tag *g = &S->tags[k];
    if (g->n == g->cap) { g->cap = g->cap ? 2 * g->cap : 256; g->t = sp_xrealloc(g->t, g->cap * sizeof *g->t); }
    const char *lem = lemma_of(s, j) ? lower(a, lemma_of(s, j)) : w;
    g->t[g->n++] = (struct somo_type){ w, lem, 0 };
}

/* Unigram and bigram counts and the types of every tag over all sentences, each tag's types
 * then sorted by frequency */
static void somo_count(struct ctx *x, struct somo *S)
{
    struct sp_arena *a = &x->ts->arena;
    for (int i = 0; i < x->n; i++) {
        const struct sp_sentence *s = &x->s[i];
        for (int j = 0; j < s->n; j++) {
            char *w = lower(a, form(s, j));
            sp_strmap_add(&S->uni, a, w, 1);
            if (j + 1 < s->n) {
                S->b.len = 0;
                sp_buf_printf(&S->b, "%s\t%s", w, form(s, j + 1));
                for (size_t q = 0; q < S->b.len; q++) S->b.p[q] = (char)tolower((unsigned char)S->b.p[q]);
                sp_strmap_add(&S->bi, a, S->b.p, 1);
            }
            int k = somo_tag(tag(s, j));
            if (k < 0 || !alpha_word(w) || aux_form(w)) continue;
            somo_add_type(S, a, s, j, w, k);
        }
    }
    for (int k = 0; k < N_SOMO_TAGS; k++) {
        struct somo_tag *g = &S->tags[k];
        for (int q = 0; q < g->n; q++) g->t[q].freq = sp_strmap_get(&S->uni, g->t[q].form);
        if (g->n > 1) qsort(g->t, g->n, sizeof *g->t, cmp_type);
    }
}

/* 1 when both bigrams of form between left and right are attested */
static int somo_fits(struct somo *S, const char *left, const char *form_, const char *right)
{
    S->b.len = 0; sp_buf_printf(&S->b, "%s\t%s", left, form_);
    int okl = sp_strmap_get(&S->bi, S->b.p) > 0;
    S->b.len = 0; sp_buf_printf(&S->b, "%s\t%s", form_, right);
    return okl && sp_strmap_get(&S->bi, S->b.p) > 0;
}

/* A replacement for word j of s: a type of its tag within +-0.5 log2 of its frequency, of
 * another form and lemma, drawn among those with attested bigrams when there are any; NULL
 * when the word is not replaceable or has no such type */
static const char *somo_replacement(struct ctx *x, struct somo *S, const struct sp_sentence *s, int j, struct sp_rng *r)
{
    struct sp_arena *a = &x->ts->arena;
    struct somo_tag *g = &S->tags[somo_tag(tag(s, j))];
    char *w = lower(a, form(s, j));
    if (!alpha_word(w) || aux_form(w)) return NULL;
    const char *lem = lemma_of(s, j) ? lemma_of(s, j) : w;
    double f = sp_strmap_get(&S->uni, w), flo = f / sqrt(2.0), fhi = f * sqrt(2.0);
    /* first type with freq >= flo (types sorted by freq) */
    int lo = 0, hi = g->n;
    while (lo < hi) { int m = (lo + hi) / 2; if (g->t[m].freq < flo - 1e-9) lo = m + 1; else hi = m; }
    int npool = 0, npref = 0;
    char *left = lower(a, form(s, j - 1)), *right = lower(a, form(s, j + 1));
    for (int m = lo; m < g->n && g->t[m].freq <= fhi + 1e-9; m++) {
        const struct somo_type *ty = &g->t[m];
        if (!strcmp(ty->form, w) || !strcasecmp(ty->lemma, lem)) continue;
        if (npool >= S->pool_cap) {
            S->pool_cap = S->pool_cap ? 2 * S->pool_cap : 256;
            S->pool = sp_xrealloc(S->pool, S->pool_cap * sizeof *S->pool);
            S->pref = sp_xrealloc(S->pref, S->pool_cap * sizeof *S->pref);
        }
        S->pool[npool++] = ty->form;
        if (somo_fits(S, left, ty->form, right)) S->pref[npref++] = ty->form;
    }
    if (!npool) return NULL;
    return npref ? S->pref[sp_rng_below(r, (uint64_t)npref)] : S->pool[sp_rng_below(r, (uint64_t)npool)];
}

/* Candidates: per sentence in the window, the first of its nouns and verbs (position 1..n-2,
 * in a random order) that has a replacement; repl_at: the position replaced, per candidate */
static void somo_candidates(struct ctx *x, struct somo *S, struct clist *l, int *repl_at, struct sp_rng *r)
{
    int *pos = sp_xmalloc(((size_t)x->o->max_len + 2) * sizeof *pos);
    for (int i = 0; i < x->n; i++) {
        const struct sp_sentence *s = &x->s[i];
        if (!in_window(x->o, s) || !has_tags(s)) continue;
        int np = 0;
        for (int j = 1; j + 1 < s->n; j++) if (somo_tag(tag(s, j)) >= 0) pos[np++] = j;
        shuffle(pos, np, r);
        for (int q = 0; q < np; q++) {
            const char *rep = somo_replacement(x, S, s, pos[q], r);
            if (!rep) continue;
            repl_at[l->n] = pos[q];
            struct cand *c = cl_push(l);
            c->sent = i;
            c->key = rep;
            break;
        }
    }
    free(pos);
}

/* Half of the candidates (in a random order) get their replacement (class O), the other half
 * stay as they are (C); an odd one out is left out */
static void somo_classes(struct ctx *x, struct clist *l, const int *repl_at, struct sp_rng *r)
{
    struct sp_arena *a = &x->ts->arena;
    int *idx = sp_xmalloc(((size_t)l->n + 1) * sizeof *idx);
    for (int i = 0; i < l->n; i++) idx[i] = i;
    shuffle(idx, l->n, r);
    int half = l->n / 2;
    for (int q = 0; q < l->n; q++) {
        struct cand *c = &l->c[idx[q]];
        if (q >= 2 * half) { c->split = -1; continue; }
        c->cls = q < half ? 0 : 1;
        c->text = join(a, &x->s[c->sent], -1, c->cls == 0 ? repl_at[idx[q]] : -1, c->key);
    }
    free(idx);
}

/* SOMO ([rec] of §2.3): replace one noun/verb (position 1..n-2) by a word with the same tag,
 * |log2 f' - log2 f| <= 0.5, a different lemma (form when there are no lemmas), preferring words
 * whose bigrams with both neighbours are attested; key = replacement, form-disjoint split. */
static void task_somo(struct ctx *x, struct prb_task *t, struct sp_rng *r)
{
    static const char *const label[2] = { "C", "O" };
    struct somo S;
    memset(&S, 0, sizeof S);
    sp_strmap_init(&S.uni); sp_strmap_init(&S.bi); sp_strmap_init(&S.seen);
    somo_count(x, &S);
    struct clist l = { 0 };
    int *repl_at = sp_xmalloc(((size_t)x->n + 1) * sizeof *repl_at);
    somo_candidates(x, &S, &l, repl_at, r);
    t->n_candidates = l.n;
    somo_classes(x, &l, repl_at, r);
    split_disjoint(&l, 2, x->o, r);
    t->note = sp_arena_printf(&x->ts->arena, "no frequency band (A13); same-tag replacement within +-0.5 log2 unigram "
                              "frequency, attested neighbour bigrams preferred; replacement-disjoint partitions, cap %d",
                              x->o->cap);
    finish(x->ts, t, &l, label, r);
    for (int k = 0; k < N_SOMO_TAGS; k++) free(S.tags[k].t);
    free(repl_at); free(S.pool); free(S.pref); free(l.c); sp_buf_free(&S.b);
    sp_strmap_free(&S.uni); sp_strmap_free(&S.bi); sp_strmap_free(&S.seen);
}

/* ---- entry points ---- */

void prb_taskset_free(struct prb_taskset *ts)
{
    sp_arena_free(&ts->arena);
    memset(ts, 0, sizeof *ts);
}

int prb_tasks_build(const struct sp_sentence *s, int n, const struct prb_opts *o,
                    struct prb_taskset *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    sp_arena_init(&out->arena);
    out->opts = *o;
    if (!out->opts.tasks) out->opts.tasks = PRB_ALL_TASKS;
    o = &out->opts;
    out->n_sentences = n;
    if (o->min_len < 1 || o->max_len < o->min_len || o->cap < 1 || o->wc_k < 2 || o->wc_rank < 0 ||
        o->depth_lo < 1 || o->depth_hi <= o->depth_lo || o->topconst_min_train < 1 || o->topconst_max_classes < 1 ||
        o->share[0] <= 0 || o->share[1] <= 0 || o->share[2] <= 0) {
        snprintf(err, errlen, "bad task options (length window, cap, WC K/rank, depth range, TopConst or shares)");
        return SP_EUSAGE;
    }
    struct ctx x = { out, s, n, o, 0, 0, 0, 0 };
    for (int i = 0; i < n; i++) {
        x.n_tree += s[i].tree != NULL;
        x.n_rel += !s[i].tree && s[i].head && s[i].n > 0 && s[i].col[SP_DEPREL] &&
                   strcmp(s[i].col[SP_DEPREL][0] ? s[i].col[SP_DEPREL][0] : "_", "_") != 0;
        x.n_tags += has_tags(&s[i]);
        x.n_heads += s[i].head != NULL && s[i].n > 0;
    }
    struct sp_arena *a = &out->arena;
    for (int id = 0; id < PRB_NTASKS; id++) {
        struct prb_task *t = &out->task[id];
        t->id = (enum prb_task_id)id;
        t->requested = (o->tasks >> id) & 1;
        if (!t->requested) continue;
        struct sp_rng r;
        sp_rng_seed(&r, o->seed ^ (0xD1B54A32D192ED69ull * (uint64_t)(id + 1)));
        switch (id) {
        case PRB_TREEDEPTH:
        case PRB_TOPCONST:
            if (!x.n_tree) {
                t->reason = x.n_heads == n
                    ? sp_arena_printf(a, "needs constituency trees (PTB .mrg); none of the %d sentences has one: "
                                      "dependency corpora (UD CoNLL-U) have no constituency trees", n)
                    : sp_arena_printf(a, "needs constituency trees (PTB .mrg); none of the %d sentences has one", n);
                continue;
            }
            break;
        case PRB_TENSE: case PRB_SUBJNUM: case PRB_OBJNUM: case PRB_COORDINV:
            if (!x.n_tree && !x.n_rel) {
                t->reason = sp_arena_printf(a, "needs constituency trees with function tags or UD relations (DEPREL) "
                                            "to find the main verb, subject and object; none of the %d sentences has "
                                            "either (dependency heads alone do not mark them)", n);
                continue;
            }
            break;
        case PRB_BSHIFT: case PRB_SOMO:
            if (!x.n_tags) {
                t->reason = sp_arena_printf(a, "needs part-of-speech tags; none of the %d sentences has them", n);
                continue;
            }
            break;
        default:
            break;
        }
        switch (id) {
        case PRB_SENTLEN:   task_sentlen(&x, t, &r); break;
        case PRB_WC:        task_wc(&x, t, &r); break;
        case PRB_TREEDEPTH: task_treedepth(&x, t, &r); break;
        case PRB_TOPCONST:  task_topconst(&x, t, &r); break;
        case PRB_BSHIFT:    task_bshift(&x, t, &r); break;
        case PRB_TENSE: case PRB_SUBJNUM: case PRB_OBJNUM: task_lexical(&x, t, &r); break;
        case PRB_SOMO:      task_somo(&x, t, &r); break;
        case PRB_COORDINV:  task_coordinv(&x, t, &r); break;
        }
    }
    return SP_OK;
}

/* ---- writing ---- */

int prb_task_write_senteval(const struct prb_task *t, FILE *f)
{
    struct ing_senteval_file sf;
    ing_senteval_init(&sf);
    for (int i = 0; i < t->n_items; i++)
        ing_senteval_add(&sf, (enum ing_part)t->item[i].split, t->item[i].label, t->item[i].text);
    int rc = ing_senteval_write_fp(f, &sf);
    ing_senteval_free(&sf);
    return rc;
}
