/* report/tab.c — the tables for papers (see report/tab.h): built from the rows
 * report.c collects; rendered by report_latex.c and report_md.c. Nothing here writes a file. */
#include "report/tab.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/stats.h"
#include "stages/layers.h"
#include "report/agg.h"
#include "report/rows.h"


/* ---- numbers and cells ---- */

const char *rpt_tab_num(char *buf, size_t n, double v, int prec)
{
    if (isnan(v)) { if (n) buf[0] = 0; return buf; }
    char fmt[16];
    snprintf(fmt, sizeof fmt, "%%.%df", prec);
    return rpt_fmt_num(buf, n, fmt, v);             /* the reports' one formatter: "-0.0" -> "0.0" */
}

static const char *const flag_legend[RPT_TAB_NFLAGS] = {
    "fewer than 97 test items: too few to tell a 10-point difference from chance; not a finding",
    "the 95% interval is wider than 10 points: differences smaller than about half its width cannot be resolved",
    "no interval: the results carry no per-item record, or their seeds were scored on different items",
};

const char *rpt_tab_flag_legend(int flag)
{
    for (int i = 0; i < RPT_TAB_NFLAGS; i++)
        if (flag == 1 << i) return flag_legend[i];
    return "";
}

/* a signed number: the style's minus (or plus) and the magnitude */
static void put_num(struct sp_buf *b, double v, int prec, int with_plus, const struct rpt_tab_style *st)
{
    char t[64];
    rpt_tab_num(t, sizeof t, v, prec);
    if (!t[0]) { sp_buf_puts(b, st->none); return; }
    if (t[0] == '-') { sp_buf_puts(b, st->minus); sp_buf_puts(b, t + 1); return; }
    if (with_plus && strpbrk(t, "123456789")) sp_buf_puts(b, st->plus);
    sp_buf_puts(b, t);
}

void rpt_tab_cell_text(struct sp_buf *b, const struct rpt_tab_cell *c, const struct rpt_tab_style *st)
{
    if (c->bold && c->kind != RPT_CELL_EMPTY) sp_buf_puts(b, st->bold_open);
    switch (c->kind) {
    case RPT_CELL_EMPTY: break;
    case RPT_CELL_TEXT: st->escape(b, c->text ? c->text : ""); break;
    case RPT_CELL_NUM: put_num(b, c->v, c->prec, 0, st); break;
    case RPT_CELL_SIGNED: put_num(b, c->v, c->prec, 1, st); break;
    case RPT_CELL_MEANSD:
        put_num(b, c->v, c->prec, 0, st);
        if (!isnan(c->v) && !isnan(c->sd)) { sp_buf_puts(b, st->pm); put_num(b, c->sd, c->prec, 0, st); }
        break;
    case RPT_CELL_INTERVAL:
        if (isnan(c->lo) || isnan(c->hi)) { sp_buf_puts(b, st->none); break; }
        sp_buf_puts(b, st->iv_open);
        put_num(b, c->lo, c->prec, 0, st);
        sp_buf_puts(b, st->iv_sep);
        put_num(b, c->hi, c->prec, 0, st);
        sp_buf_puts(b, st->iv_close);
        break;
    case RPT_CELL_COUNT:
        if (isnan(c->lo)) { sp_buf_puts(b, st->none); break; }
        sp_buf_printf(b, "%.0f", c->lo);
        if (c->hi > c->lo) { sp_buf_puts(b, st->range); sp_buf_printf(b, "%.0f", c->hi); }
        break;
    }
    if (c->bold && c->kind != RPT_CELL_EMPTY) sp_buf_puts(b, st->bold_close);
    for (int i = 0; i < RPT_TAB_NFLAGS; i++)
        if (c->flags & (1 << i)) sp_buf_puts(b, st->mark[i]);
}

/* ---- building a table ---- */

static struct rpt_tab *tab_new(struct rpt_tab_set *s, const char *id, int ncol)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 8;
        s->t = sp_xrealloc(s->t, sizeof *s->t * (size_t)s->cap);
    }
    struct rpt_tab *t = &s->t[s->n++];
    memset(t, 0, sizeof *t);
    /* the id: [a-z0-9-] of the given text, made unique in the set with -2, -3, ... */
    struct sp_buf b = { 0 };
    for (const char *p = id; *p; p++) {
        char ch = *p >= 'A' && *p <= 'Z' ? (char)(*p - 'A' + 'a') : *p;
        if ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9')) sp_buf_put(&b, &ch, 1);
        else if (b.len && b.p[b.len - 1] != '-') sp_buf_put(&b, "-", 1);
    }
    while (b.len && b.p[b.len - 1] == '-') b.len--;
    sp_buf_put(&b, "", 1);
    size_t base_len = b.len - 1;
    for (int k = 2;; k++) {
        int dup = 0;
        for (int i = 0; i < s->n - 1; i++) dup |= !strcmp(s->t[i].id, b.p);
        if (!dup) break;
        b.len = base_len;
        sp_buf_printf(&b, "-%d", k);
    }
    t->id = b.p;
    t->ncol = ncol;
    t->align = sp_xmalloc((size_t)ncol + 1);
    memset(t->align, 'r', (size_t)ncol);
    t->align[0] = 'l';
    t->align[ncol] = 0;
    return t;
}

static void tab_caption(struct rpt_tab *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void tab_caption(struct rpt_tab *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    t->caption = sp_xmalloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(t->caption, (size_t)n + 1, fmt, ap);
    va_end(ap);
}

/* a new row of kind; its cells (ncol, empty, span 1), or NULL for a rule */
static struct rpt_tab_cell *row_add(struct rpt_tab *t, int kind)
{
    if (t->nrow == t->caprow) {
        t->caprow = t->caprow ? 2 * t->caprow : 16;
        t->row = sp_xrealloc(t->row, sizeof *t->row * (size_t)t->caprow);
    }
    struct rpt_tab_row *r = &t->row[t->nrow++];
    r->kind = kind;
    r->cell = NULL;
    if (kind == RPT_ROW_RULE) return NULL;
    r->cell = sp_xcalloc((size_t)t->ncol, sizeof *r->cell);
    for (int i = 0; i < t->ncol; i++) {
        r->cell[i].span = 1;
        r->cell[i].v = r->cell[i].sd = r->cell[i].lo = r->cell[i].hi = NAN;
    }
    return r->cell;
}

static void rule(struct rpt_tab *t)
{
    if (t->nrow && t->row[t->nrow - 1].kind != RPT_ROW_RULE) row_add(t, RPT_ROW_RULE);
}

static void c_text(struct rpt_tab_cell *c, const char *s) { c->kind = RPT_CELL_TEXT; free(c->text); c->text = sp_xstrdup(s); }
static void c_num(struct rpt_tab_cell *c, double v, int prec) { c->kind = RPT_CELL_NUM; c->v = v; c->prec = prec; }
static void c_meansd(struct rpt_tab_cell *c, double m, double sd, int prec)
{
    c->kind = RPT_CELL_MEANSD; c->v = m; c->sd = sd; c->prec = prec;
}
static void c_count(struct rpt_tab_cell *c, double lo, double hi) { c->kind = RPT_CELL_COUNT; c->lo = lo; c->hi = hi; }

/* the table's flags: the union of its cells' */
static void tab_finish(struct rpt_tab *t)
{
    for (int r = 0; r < t->nrow; r++)
        for (int i = 0; t->row[r].cell && i < t->ncol; i++) t->flags |= t->row[r].cell[i].flags;
    if (t->nrow && t->row[t->nrow - 1].kind == RPT_ROW_RULE) t->nrow--;   /* no rule before \bottomrule */
}

/* ---- reading the rows ---- */

/* the aggregates of the results model (report/rows.h) */
static int any_agg(const struct rpt_row *r, const char *clf) { (void)clf; return rpt_is_agg(r); }
static int token_of_classifier(const struct rpt_row *r, const char *clf)
{
    return rpt_is_agg(r) && r->kind == RPT_K_TOKEN && !strcmp(r->method, clf);
}
static int sentence_of_classifier(const struct rpt_row *r, const char *clf)
{
    return rpt_is_agg(r) && r->kind == RPT_K_PROBE && !strcmp(r->method, clf);
}
static const char *f_encoder(const struct rpt_row *r) { return r->encoder; }
static const char *f_task(const struct rpt_row *r) { return r->task; }
static const char *f_method(const struct rpt_row *r) { return r->method; }

/* the 95% interval of an aggregate's test accuracy, flagged when wide or missing */
static void c_interval_of(struct rpt_tab_cell *c, const struct rpt_row *a)
{
    if (!(a->flags & RPT_F_NOCI)) {
        c->kind = RPT_CELL_INTERVAL;
        c->lo = a->lo;
        c->hi = a->hi;
        c->prec = RPT_TAB_PCT;
        if (a->flags & RPT_F_WIDE) c->flags |= RPT_FLAG_WIDE;
    } else {
        c_num(c, NAN, RPT_TAB_PCT);
        c->flags |= RPT_FLAG_NOCI;
    }
}

/* the range of counts (NAN when none: a count < 0 is none) and whether any test set is small */
struct nrange { double lo, hi; int small; };
static void nrange_add(struct nrange *r, const struct rpt_row *a, long count)
{
    if (!a || count < 0) return;
    double v = (double)count;
    if (isnan(r->lo) || v < r->lo) r->lo = v;
    if (isnan(r->hi) || v > r->hi) r->hi = v;
    if (a->flags & RPT_F_SMALL) r->small = 1;
}

/* Under a rule, the rows "n ..." and "seeds": per task the range over the encoders (the task's
 * first cell at column 1 + stride·task), n flagged when a test set is too small. */
static void n_seeds_rows(struct rpt_tab *t, const struct rpt_table *rows, struct rpt_names encs, struct rpt_names tasks, const char *clf,
                         const char *n_label, int stride)
{
    rule(t);
    struct rpt_tab_cell *n = row_add(t, RPT_ROW_BODY), *sd = row_add(t, RPT_ROW_BODY);
    c_text(&n[0], n_label);
    c_text(&sd[0], "seeds");
    for (size_t ti = 0; ti < tasks.n; ti++) {
        struct rpt_tab_cell *cn = &n[1 + (size_t)stride * ti], *cs = &sd[1 + (size_t)stride * ti];
        struct nrange rn = { NAN, NAN, 0 }, rs = { NAN, NAN, 0 };
        for (size_t ei = 0; ei < encs.n; ei++) {
            const struct rpt_row *a = rpt_find_agg(rows, encs.v[ei], tasks.v[ti], clf);
            nrange_add(&rn, a, a ? a->n : -1);
            nrange_add(&rs, a, a ? a->n_seeds : -1);
        }
        c_count(cn, rn.lo, rn.hi);
        if (rn.small) cn->flags |= RPT_FLAG_SMALL;
        c_count(cs, rs.lo, rs.hi);
    }
}

/* ---- probing: encoders × tasks, one table per classifier ---- */

static void probing_tables(struct rpt_tab_set *s, const struct rpt_table *rows)
{
    struct rpt_names clfs = rpt_rows_distinct(rows, f_method, any_agg, NULL);
    for (size_t ci = 0; ci < clfs.n; ci++) {
        const char *clf = clfs.v[ci];
        struct rpt_names encs = rpt_rows_distinct(rows, f_encoder, sentence_of_classifier, clf),
                     tasks = rpt_rows_distinct(rows, f_task, sentence_of_classifier, clf);
        size_t nt = tasks.n;
        if (!nt) { free(encs.v); free(tasks.v); continue; }
        char id[64];
        snprintf(id, sizeof id, "probing-%s", clf);
        struct rpt_tab *t = tab_new(s, id, 1 + (int)nt);
        tab_caption(t, "Probing tasks, classifier %s: test accuracy (%%, one decimal), mean ± sd over seeds; under each "
                       "encoder the 95%% percentile bootstrap interval over the test items (B = %d, seed %d) and the "
                       "selectivity (accuracy minus that of the same probe trained on shuffled labels, the control task, "
                       "in points). Baselines: the majority class of the training set; the same probe on sentence "
                       "length alone. n: test items; seeds: runs of each probe.", clf, PRB_BOOT_B, PRB_BOOT_SEED);
        struct rpt_tab_cell *c = row_add(t, RPT_ROW_HEAD);
        c_text(&c[0], "encoder");
        for (size_t ti = 0; ti < nt; ti++) c_text(&c[1 + ti], tasks.v[ti]);
        rule(t);
        static const char *const bl_name[2] = { "majority class", "sentence length only" };
        for (int b = 0; b < 2; b++) {
            /* a baseline does not depend on the encoder: the first encoder's that has it */
            double *v = sp_xmalloc(sizeof *v * (nt + 1));
            int any = 0;
            for (size_t ti = 0; ti < nt; ti++) {
                v[ti] = NAN;
                for (size_t ei = 0; ei < encs.n; ei++) {
                    const struct rpt_row *a = rpt_find_agg(rows, encs.v[ei], tasks.v[ti], clf);
                    double x = a ? (b ? a->base.length : a->base.majority) : NAN;
                    if (!isnan(x)) { v[ti] = x; any = 1; break; }
                }
            }
            if (any) {
                c = row_add(t, RPT_ROW_BODY);
                c_text(&c[0], bl_name[b]);
                for (size_t k = 0; k < nt; k++) c_num(&c[1 + k], v[k], RPT_TAB_PCT);
            }
            free(v);
        }
        rule(t);
        int any_sel = 0;
        for (size_t ei = 0; ei < encs.n; ei++)
            for (size_t ti = 0; ti < nt; ti++) {
                const struct rpt_row *a = rpt_find_agg(rows, encs.v[ei], tasks.v[ti], clf);
                if (a && !isnan(a->base.selectivity)) any_sel = 1;
            }
        for (size_t ei = 0; ei < encs.n; ei++) {
            struct rpt_tab_cell *m = row_add(t, RPT_ROW_BODY), *iv = row_add(t, RPT_ROW_SUB),
                                *sel = any_sel ? row_add(t, RPT_ROW_SUB) : NULL;
            c_text(&m[0], encs.v[ei]);
            c_text(&iv[0], "95% interval");
            if (sel) c_text(&sel[0], "selectivity");
            for (size_t ti = 0; ti < nt; ti++) {
                const struct rpt_row *a = rpt_find_agg(rows, encs.v[ei], tasks.v[ti], clf);
                if (!a) { c_num(&m[1 + ti], NAN, RPT_TAB_PCT); continue; }
                c_meansd(&m[1 + ti], a->value, a->sd, RPT_TAB_PCT);
                c_interval_of(&iv[1 + ti], a);
                if (sel) c_num(&sel[1 + ti], a->base.selectivity, RPT_TAB_PCT);
            }
        }
        n_seeds_rows(t, rows, encs, tasks, clf, "n (test items)", 1);
        tab_finish(t);
        free(encs.v);
        free(tasks.v);
    }
    free(clfs.v);
}

/* ---- by layer: runs NAME-L<k>, tasks × layers, one table per (NAME, classifier) ---- */

static int layered(const struct rpt_row *r, const char *key);

/* "NAME\tclf" of a layer run's aggregate */
static void layer_key(struct sp_buf *key, const struct rpt_row *a)
{
    char *base = sp_xstrdup(a->encoder);
    stg_layer_of_run(a->encoder, base, strlen(a->encoder) + 1);
    key->len = 0;
    sp_buf_printf(key, "%s\t%s", base, a->method);
    free(base);
}

static int layered(const struct rpt_row *r, const char *key)
{
    if (!rpt_is_agg(r) || r->layer < 0) return 0;
    if (!key) return 1;
    struct sp_buf k = { 0 };
    layer_key(&k, r);
    int same = !strcmp(k.p, key);
    sp_buf_free(&k);
    return same;
}

static void layer_tables(struct rpt_tab_set *s, const struct rpt_table *rows)
{
    struct sp_buf key = { 0 };
    char **order = sp_xmalloc(sizeof *order * (rows->n + 1));   /* the distinct "NAME\tclf", first appearance */
    size_t n_order = 0;
    for (size_t i = 0; i < rows->n; i++) {
        if (!layered(&rows->v[i], NULL)) continue;
        layer_key(&key, &rows->v[i]);
        size_t k = 0;
        while (k < n_order && strcmp(order[k], key.p)) k++;
        if (k == n_order) order[n_order++] = sp_xstrdup(key.p);
    }
    for (size_t gi = 0; gi < n_order; gi++) {
        const char *g = order[gi];
        char *name = sp_xstrdup(g), *clf = strchr(name, '\t');
        *clf++ = 0;
        int max_layer = 0;
        for (size_t k = 0; k < rows->n; k++)
            if (layered(&rows->v[k], g) && rows->v[k].layer > max_layer) max_layer = rows->v[k].layer;
        int nl = max_layer + 1;
        struct rpt_names tasks = rpt_rows_distinct(rows, f_task, layered, g);
        key.len = 0;
        sp_buf_printf(&key, "layers-%s-%s", name, clf);
        struct rpt_tab *t = tab_new(s, key.p, 1 + nl + 2);
        tab_caption(t, "%s by layer, classifier %s: test accuracy (%%, one decimal) of the probe on each layer's vectors "
                       "(runs %s-L<k>; layer 0 = the embeddings), mean over seeds, the best layer of each task in bold; "
                       "under it the selectivity against the control task (points). majority: the majority class; n: "
                       "test items. Intervals and sd: the probing table.", name, clf, name);
        struct rpt_tab_cell *h1 = row_add(t, RPT_ROW_HEAD), *h2 = row_add(t, RPT_ROW_HEAD);
        c_text(&h1[1], "layer");
        h1[1].span = nl;
        c_text(&h2[0], "task");
        for (int l = 0; l < nl; l++) {
            char lab[16];
            snprintf(lab, sizeof lab, "%d", l);
            c_text(&h2[1 + l], lab);
        }
        c_text(&h2[1 + nl], "majority");
        c_text(&h2[2 + nl], "n");
        rule(t);
        for (size_t ti = 0; ti < tasks.n; ti++) {
            struct rpt_tab_cell *m = row_add(t, RPT_ROW_BODY), *sel = NULL;
            c_text(&m[0], tasks.v[ti]);
            struct nrange rn = { NAN, NAN, 0 };
            double maj = NAN;
            for (int l = 0; l < nl; l++) c_num(&m[1 + l], NAN, RPT_TAB_PCT);
            for (size_t k = 0; k < rows->n; k++) {
                const struct rpt_row *x = &rows->v[k];
                if (!layered(x, g) || strcmp(x->task, tasks.v[ti])) continue;
                int l = x->layer;
                c_num(&m[1 + l], x->value, RPT_TAB_PCT);
                if (!isnan(x->base.selectivity)) {
                    if (!sel) {
                        sel = row_add(t, RPT_ROW_SUB);
                        c_text(&sel[0], "selectivity");
                        for (int j = 0; j < nl; j++) c_num(&sel[1 + j], NAN, RPT_TAB_PCT);
                    }
                    c_num(&sel[1 + l], x->base.selectivity, RPT_TAB_PCT);
                }
                if (isnan(maj)) maj = x->base.majority;
                nrange_add(&rn, x, x->n);
            }
            /* bold: the cells whose rounded value is the largest rounded value */
            char best[64] = "", cur[64];
            double bv = NAN;
            for (int l = 0; l < nl; l++)
                if (!isnan(m[1 + l].v) && (isnan(bv) || m[1 + l].v > bv)) bv = m[1 + l].v;
            rpt_tab_num(best, sizeof best, bv, RPT_TAB_PCT);
            for (int l = 0; best[0] && l < nl; l++)
                m[1 + l].bold = !strcmp(rpt_tab_num(cur, sizeof cur, m[1 + l].v, RPT_TAB_PCT), best);
            c_num(&m[1 + nl], maj, RPT_TAB_PCT);
            c_count(&m[2 + nl], rn.lo, rn.hi);
            if (rn.small) m[2 + nl].flags |= RPT_FLAG_SMALL;
        }
        tab_finish(t);
        free(tasks.v);
        free(name);
    }
    for (size_t gi = 0; gi < n_order; gi++) free(order[gi]);
    free(order);
    sp_buf_free(&key);
}

/* ---- token probes: accuracy, control, selectivity per encoder and token task ---- */

static void token_tables(struct rpt_tab_set *s, const struct rpt_table *rows)
{
    struct rpt_names clfs = rpt_rows_distinct(rows, f_method, any_agg, NULL);
    for (size_t ci = 0; ci < clfs.n; ci++) {
        const char *clf = clfs.v[ci];
        struct rpt_names encs = rpt_rows_distinct(rows, f_encoder, token_of_classifier, clf),
                         tasks = rpt_rows_distinct(rows, f_task, token_of_classifier, clf);
        size_t nt = tasks.n;
        if (!nt) { free(encs.v); free(tasks.v); continue; }
        char id[64];
        snprintf(id, sizeof id, "token-%s", clf);
        struct rpt_tab *t = tab_new(s, id, 1 + 3 * (int)nt);
        tab_caption(t, "Token probes, classifier %s: accuracy on the test words (%%, one decimal), mean ± sd over seeds, "
                       "under it its 95%% percentile bootstrap interval over the test items (B = %d, seed %d); control: "
                       "the same probe trained on the control task (a random label per word type, Hewitt and Liang "
                       "2019), mean over seeds; selectivity: accuracy minus control (points). n: test words; seeds: runs "
                       "of each probe.", clf, PRB_BOOT_B, PRB_BOOT_SEED);
        struct rpt_tab_cell *h1 = row_add(t, RPT_ROW_HEAD), *h2 = row_add(t, RPT_ROW_HEAD);
        c_text(&h2[0], "encoder");
        for (size_t ti = 0; ti < nt; ti++) {
            c_text(&h1[1 + 3 * ti], tasks.v[ti]);
            h1[1 + 3 * ti].span = 3;
            c_text(&h2[1 + 3 * ti], "accuracy");
            c_text(&h2[2 + 3 * ti], "control");
            c_text(&h2[3 + 3 * ti], "selectivity");
        }
        rule(t);
        for (size_t ei = 0; ei < encs.n; ei++) {
            struct rpt_tab_cell *c = row_add(t, RPT_ROW_BODY), *iv = row_add(t, RPT_ROW_SUB);
            c_text(&c[0], encs.v[ei]);
            c_text(&iv[0], "95% interval");
            for (size_t ti = 0; ti < nt; ti++) {
                const struct rpt_row *a = rpt_find_agg(rows, encs.v[ei], tasks.v[ti], clf);
                c_meansd(&c[1 + 3 * ti], a ? a->value : NAN, a ? a->sd : NAN, RPT_TAB_PCT);
                c_num(&c[2 + 3 * ti], a ? a->base.control : NAN, RPT_TAB_PCT);
                c_num(&c[3 + 3 * ti], a ? a->base.selectivity : NAN, RPT_TAB_PCT);
                if (a) c_interval_of(&iv[1 + 3 * ti], a);
            }
        }
        n_seeds_rows(t, rows, encs, tasks, clf, "n (test words)", 3);
        tab_finish(t);
        free(encs.v);
        free(tasks.v);
    }
    free(clfs.v);
}

/* ---- trees: structural probes, tree extraction, dependency trees ---- */

static int is_structprobe(const struct rpt_row *r) { return r->kind == RPT_K_STRUCTPROBE; }
static int is_dependency(const struct rpt_row *r) { return !rpt_is_probe(r) && !strncmp(r->method, "dependency:", 11); }
static int is_constituency(const struct rpt_row *r) { return !rpt_is_probe(r) && !is_structprobe(r) && !is_dependency(r); }

static size_t count_rows(const struct rpt_table *rows, int (*keep)(const struct rpt_row *))
{
    size_t n = 0;
    for (size_t i = 0; i < rows->n; i++) n += keep(&rows->v[i]);
    return n;
}

struct col { int fig; int prec; };   /* enum rpt_tfig; prec < 0: a count */

/* one body row of a tree evaluation: label, corpus, then its figures (fig + off: the linear
 * baseline's in place of the probe's) */
static void result_row(struct rpt_tab *t, const struct rpt_row *r, const char *label, int off, const struct col *col, int ncol)
{
    struct rpt_tab_cell *c = row_add(t, RPT_ROW_BODY);
    c_text(&c[0], label);
    c_text(&c[1], r->corpus);
    for (int k = 0; k < ncol; k++) {
        double v = r->fig[col[k].fig + off];
        if (col[k].prec < 0) c_count(&c[2 + k], v, v);
        else c_num(&c[2 + k], v, col[k].prec);
    }
}

static void structprobe_table(struct rpt_tab_set *s, const struct rpt_table *rows)
{
    if (!count_rows(rows, is_structprobe)) return;
    static const struct col cols[] = { { RPT_T_NSENT, -1 }, { RPT_T_UUAS, RPT_TAB_PCT }, { RPT_T_DSPR, RPT_TAB_CORR },
                                       { RPT_T_ROOT, RPT_TAB_PCT }, { RPT_T_NSPR, RPT_TAB_CORR } };
    const int lin = RPT_T_LIN_NSENT - RPT_T_NSENT;   /* the linear baseline's figures, in the same order */
    struct rpt_tab *t = tab_new(s, "structural-probes", 7);
    t->align[1] = 'l';
    tab_caption(t, "Structural probes (Hewitt and Manning 2019) on the test sentences: UUAS and root accuracy (%%, one "
                   "decimal), DSpr and NSpr (Spearman correlations averaged over sentences of 5 to 50 words, two "
                   "decimals). Baselines, listed last: the linear baseline (distance |i - j|, depth i), on the same "
                   "test sentences as the trained probes of that corpus, and on a whole corpus.");
    struct rpt_tab_cell *h = row_add(t, RPT_ROW_HEAD);
    static const char *const head[7] = { "probe", "corpus", "sentences", "UUAS", "DSpr", "root acc.", "NSpr" };
    for (int k = 0; k < 7; k++) c_text(&h[k], head[k]);
    rule(t);
    for (size_t i = 0; i < rows->n; i++) {
        const struct rpt_row *r = &rows->v[i];
        if (is_structprobe(r) && strcmp(r->method, "structprobe:linear")) result_row(t, r, r->method + 12, 0, cols, 5);
    }
    rule(t);
    for (size_t i = 0; i < rows->n; i++) {   /* per corpus, the first trained probe's linear baseline */
        const struct rpt_row *r = &rows->v[i];
        if (!is_structprobe(r) || !(r->flags & RPT_F_LINEAR)) continue;
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++)
            seen = is_structprobe(&rows->v[j]) && (rows->v[j].flags & RPT_F_LINEAR) && !strcmp(rows->v[j].corpus, r->corpus);
        if (!seen) result_row(t, r, "linear baseline (the trained probes' test sentences)", lin, cols, 5);
    }
    for (size_t i = 0; i < rows->n; i++) {
        const struct rpt_row *r = &rows->v[i];
        if (is_structprobe(r) && !strcmp(r->method, "structprobe:linear"))
            result_row(t, r, "linear baseline (whole corpus)", 0, cols, 5);
    }
    tab_finish(t);
}

/* the layer of a trained structural probe of a run NAME-L<k> (over a corpus: NAME-L<k>-CORPUS) into
 * *k, NAME into base (whole); 0 when it is none */
static int sp_layer(const struct rpt_row *r, struct sp_buf *label, struct sp_buf *base, int *k)
{
    const char *m = r->method;
    if (!is_structprobe(r) || strncmp(m, "structprobe:trained:run=", 24)) return 0;
    size_t cap = strlen(m) + 1;
    label->len = base->len = 0;
    sp_buf_put(label, m, cap);
    sp_buf_put(base, m, cap);
    rpt_run_label(m + 24, r->corpus, label->p, cap);
    return (*k = stg_layer_of_run(label->p, base->p, cap)) >= 0;
}

/* trained structural probes of runs NAME-L<k> (over a corpus: NAME-L<k>-CORPUS): UUAS and DSpr by layer */
static void structprobe_layer_table(struct rpt_tab_set *s, const struct rpt_table *rows)
{
    int max_layer = -1, k;
    struct sp_buf label = { 0 }, base = { 0 };
    for (size_t i = 0; i < rows->n; i++)
        if (sp_layer(&rows->v[i], &label, &base, &k) && k > max_layer) max_layer = k;
    if (max_layer >= 0) {
        int nl = max_layer + 1;
        /* groups (NAME, corpus) in first-appearance order, each its row per layer (the last one stored) */
        struct grp { char *name; const char *corpus; const struct rpt_row **at; } *g = sp_xmalloc(sizeof *g * (rows->n + 1));
        size_t ng = 0;
        for (size_t i = 0; i < rows->n; i++) {
            const struct rpt_row *r = &rows->v[i];
            if (!sp_layer(r, &label, &base, &k)) continue;
            size_t x = 0;
            while (x < ng && (strcmp(g[x].name, base.p) || strcmp(g[x].corpus, r->corpus))) x++;
            if (x == ng) g[ng++] = (struct grp){ sp_xstrdup(base.p), r->corpus, calloc((size_t)nl, sizeof *g->at) };
            g[x].at[k] = r;
        }
        struct rpt_tab *t = tab_new(s, "structural-probes-by-layer", 3 + nl + 1);
        t->align[1] = t->align[2] = 'l';
        tab_caption(t, "Structural probes by layer (runs NAME-L<k>; layer 0 = the embeddings): UUAS (%%, one decimal) and "
                       "DSpr (two decimals) of the distance probe on the test sentences, the best layer in bold, against "
                       "the linear baseline of the same sentences.");
        struct rpt_tab_cell *h1 = row_add(t, RPT_ROW_HEAD), *h2 = row_add(t, RPT_ROW_HEAD);
        c_text(&h1[3], "layer");
        h1[3].span = nl;
        c_text(&h2[0], "probe");
        c_text(&h2[1], "corpus");
        c_text(&h2[2], "metric");
        for (int l = 0; l < nl; l++) {
            char lab[16];
            snprintf(lab, sizeof lab, "%d", l);
            c_text(&h2[3 + l], lab);
        }
        c_text(&h2[3 + nl], "linear");
        rule(t);
        for (size_t x = 0; x < ng; x++) {
            static const int metric[2] = { RPT_T_UUAS, RPT_T_DSPR }, linear[2] = { RPT_T_LIN_UUAS, RPT_T_LIN_DSPR };
            static const char *const mname[2] = { "UUAS", "DSpr" };
            for (int mi = 0; mi < 2; mi++) {
                int prec = mi ? RPT_TAB_CORR : RPT_TAB_PCT;
                struct rpt_tab_cell *c = row_add(t, RPT_ROW_BODY);
                c_text(&c[0], g[x].name);
                c_text(&c[1], g[x].corpus);
                c_text(&c[2], mname[mi]);
                double lin = NAN, bv = NAN;
                for (int l = 0; l < nl; l++) {
                    const struct rpt_row *r = g[x].at[l];
                    c_num(&c[3 + l], r ? r->fig[metric[mi]] : NAN, prec);
                    if (!isnan(c[3 + l].v) && (isnan(bv) || c[3 + l].v > bv)) bv = c[3 + l].v;
                    if (r && isnan(lin)) lin = r->fig[linear[mi]];
                }
                char best[64], cur[64];
                rpt_tab_num(best, sizeof best, bv, prec);
                for (int l = 0; best[0] && l < nl; l++)
                    c[3 + l].bold = !strcmp(rpt_tab_num(cur, sizeof cur, c[3 + l].v, prec), best);
                c_num(&c[3 + nl], lin, prec);
            }
            free(g[x].name);
            free(g[x].at);
        }
        free(g);
        tab_finish(t);
    }
    sp_buf_free(&label); sp_buf_free(&base);
}

static void trees_table(struct rpt_tab_set *s, const struct rpt_table *rows)
{
    if (!count_rows(rows, is_constituency)) return;
    static const struct col cols[] = { { RPT_T_NSENT, -1 }, { RPT_T_A_F, RPT_TAB_PCT }, { RPT_T_A_F40, RPT_TAB_PCT },
                                       { RPT_T_B_SENT, RPT_TAB_PCT }, { RPT_T_B_SENT40, RPT_TAB_PCT },
                                       { RPT_T_B_SENT10, RPT_TAB_PCT }, { RPT_T_B_CORP, RPT_TAB_PCT } };
    struct rpt_tab *t = tab_new(s, "tree-extraction", 9);
    t->align[1] = 'l';
    tab_caption(t, "Constituency trees extracted from attention, against the gold trees: F1 (%%, one decimal). Protocol "
                   "A: EVALB (corpus-level, labelled brackets scored as unlabelled); Protocol B: unlabelled spans "
                   "without punctuation, the mean of sentence-level F1 over all sentences, those of at most 40 and at "
                   "most 10 words, and corpus-level F1. Baselines, listed last: the methods not named attention:... "
                   "(right- and left-branching, random trees).");
    struct rpt_tab_cell *h1 = row_add(t, RPT_ROW_HEAD), *h2 = row_add(t, RPT_ROW_HEAD);
    c_text(&h1[3], "Protocol A (EVALB)");
    h1[3].span = 2;
    c_text(&h1[5], "Protocol B: sentence F1");
    h1[5].span = 3;
    c_text(&h1[8], "B: corpus");
    static const char *const head[9] = { "method", "corpus", "sentences", "all", "≤ 40", "all", "≤ 40", "≤ 10", "all" };
    for (int k = 0; k < 9; k++) c_text(&h2[k], head[k]);
    rule(t);
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < rows->n; i++) {
            const struct rpt_row *r = &rows->v[i];
            if (!is_constituency(r) || (!strncmp(r->method, "attention:", 10)) != !pass) continue;
            result_row(t, r, r->method, 0, cols, 7);
        }
        rule(t);
    }
    tab_finish(t);
}

static void dependency_table(struct rpt_tab_set *s, const struct rpt_table *rows)
{
    if (!count_rows(rows, is_dependency)) return;
    static const struct col cols[] = { { RPT_T_NSENT, -1 }, { RPT_T_UAS, RPT_TAB_PCT }, { RPT_T_UUAS_DIR, RPT_TAB_PCT },
                                       { RPT_T_UUAS_MST, RPT_TAB_PCT } };
    struct rpt_tab *t = tab_new(s, "dependency-trees", 6);
    t->align[1] = 'l';
    tab_caption(t, "Dependency trees from attention (maximum spanning arborescence over a layer's word-level attention), "
                   "against the gold trees without punctuation (%%, one decimal): UAS; UUAS of the same arcs; UUAS of "
                   "the undirected maximum spanning tree. Baselines, listed last: baseline:... (chains, adjacent words, "
                   "random trees, mean of 5 seeds).");
    struct rpt_tab_cell *h = row_add(t, RPT_ROW_HEAD);
    static const char *const head[6] = { "method", "corpus", "sentences", "UAS", "UUAS (arcs)", "UUAS (MST)" };
    for (int k = 0; k < 6; k++) c_text(&h[k], head[k]);
    rule(t);
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < rows->n; i++) {
            const struct rpt_row *r = &rows->v[i];
            if (!is_dependency(r) || (!strncmp(r->method, "dependency:baseline:", 20)) != pass) continue;
            result_row(t, r, r->method + 11, 0, cols, 4);
        }
        rule(t);
    }
    tab_finish(t);
}

/* ---- --compare ---- */

/* " A pools 3 encoders: x, y, z." for each side whose name matched several, into b; its text */
static const char *pooled_note(struct sp_buf *b, const struct rpt_cmp *c)
{
    const char *name[2] = { c->a, c->b };
    const char *const *enc[2] = { c->enc_a, c->enc_b };
    size_t n[2] = { c->n_enc_a, c->n_enc_b };
    for (int k = 0; k < 2; k++) {
        if (n[k] < 2) continue;
        sp_buf_printf(b, " %s pools %zu encoders:", name[k], n[k]);
        for (size_t i = 0; i < n[k]; i++) sp_buf_printf(b, "%s %s", i ? "," : "", enc[k][i]);
        sp_buf_puts(b, ".");
    }
    sp_buf_put(b, "", 1);
    return b->p;
}

static void compare_pair_table(struct rpt_tab_set *s, const struct rpt_table *rows, size_t from, size_t to)
{
    const struct rpt_cmp *c0 = &rows->cmp[from];
    struct rpt_tab *t = tab_new(s, "compare", 7);
    struct sp_buf pool = { 0 };
    t->align[1] = 'l';
    tab_caption(t, "%s vs %s: difference of test accuracy (%s − %s, points, one decimal), its 95%% paired bootstrap "
                   "interval over the same test items (B = %d, seed %d), the two-sided p-value (three decimals) and "
                   "mdd80, the smallest true difference this test set detects with 80%% power.%s", c0->a, c0->b, c0->a,
                c0->b, PRB_BOOT_B, PRB_BOOT_SEED, pooled_note(&pool, c0));
    sp_buf_free(&pool);
    struct rpt_tab_cell *h = row_add(t, RPT_ROW_HEAD);
    static const char *const head[7] = { "task", "classifier", "n", "difference", "95% interval", "p", "mdd80" };
    for (int k = 0; k < 7; k++) c_text(&h[k], head[k]);
    rule(t);
    for (size_t i = from; i < to; i++) {
        const struct rpt_cmp *x = &rows->cmp[i];
        struct rpt_tab_cell *c = row_add(t, RPT_ROW_BODY);
        c_text(&c[0], x->task);
        c_text(&c[1], x->classifier);
        if (x->error) { c_text(&c[3], x->error); continue; }
        c_count(&c[2], (double)x->n_test, (double)x->n_test);
        c[3].kind = RPT_CELL_SIGNED; c[3].v = x->delta; c[3].prec = RPT_TAB_PCT;
        c[4].kind = RPT_CELL_INTERVAL; c[4].lo = x->lo; c[4].hi = x->hi; c[4].prec = RPT_TAB_PCT;
        if (!isnan(x->p_floor)) {
            char p[64], f[32];
            snprintf(p, sizeof p, "< %s", rpt_tab_num(f, sizeof f, x->p_floor, RPT_TAB_P));
            c_text(&c[5], p);
        } else {
            c_num(&c[5], x->p, RPT_TAB_P);
        }
        c_num(&c[6], x->mdd80, RPT_TAB_PCT);
    }
    tab_finish(t);
}

static void compare_table(struct rpt_tab_set *s, const struct rpt_table *rows)
{
    for (size_t i = 0, j; i < rows->n_cmp; i = j) {
        j = rpt_pair_end(rows, i);
        compare_pair_table(s, rows, i, j);
    }
}

/* ---- the set ---- */

/* text once into *list, unless it is in either of the set's lists already */
static void add_distinct(struct rpt_tab_set *s, char ***list, int *n, const char *text)
{
    for (int i = 0; i < s->n_job; i++)
        if (!strcmp(s->job[i], text)) return;
    for (int i = 0; i < s->n_made_by; i++)
        if (!strcmp(s->made_by[i], text)) return;
    *list = sp_xrealloc(*list, sizeof **list * (size_t)(*n + 1));
    (*list)[(*n)++] = sp_xstrdup(text);
}

/* the jobs and commands that made the results, from their manifests */
static void made_by(struct rpt_tab_set *s, const struct rpt_table *rows)
{
    for (int l = 0; l < 2; l++)   /* the probe results, then the tree evaluations */
        for (size_t i = 0; i < rows->n; i++) {
            const struct rpt_row *r = &rows->v[i];
            if (l ? rpt_is_probe(r) : !(rpt_is_probe(r) && (r->flags & RPT_F_SEED))) continue;
            if (l) s->n_tree++; else s->n_probe++;
            if (r->job_file && *r->job_file) {
                struct sp_buf j = { 0 };
                sp_buf_printf(&j, "%s%s%s%s", r->job_file, *r->job_sha256 ? " (sha256 " : "", r->job_sha256,
                              *r->job_sha256 ? ")" : "");
                add_distinct(s, &s->job, &s->n_job, j.p);
                sp_buf_free(&j);
            }
            if (!(r->flags & RPT_F_COMMAND)) continue;
            struct sp_buf b = { 0 };
            for (size_t k = 0; k < r->n_command; k++) {
                if (k) sp_buf_put(&b, " ", 1);
                sp_buf_puts(&b, r->command[k] ? r->command[k] : "?");
            }
            sp_buf_put(&b, "", 1);
            add_distinct(s, &s->made_by, &s->n_made_by, b.p);
            sp_buf_free(&b);
        }
}

void rpt_tab_build(struct rpt_tab_set *s, const char *db, const struct rpt_table *rows)
{
    memset(s, 0, sizeof *s);
    s->store = sp_xstrdup(db ? db : "");
    made_by(s, rows);
    probing_tables(s, rows);
    compare_table(s, rows);
    layer_tables(s, rows);
    token_tables(s, rows);
    structprobe_table(s, rows);
    structprobe_layer_table(s, rows);
    trees_table(s, rows);
    dependency_table(s, rows);
}

void rpt_tab_free(struct rpt_tab_set *s)
{
    for (int k = 0; k < s->n; k++) {
        struct rpt_tab *t = &s->t[k];
        for (int r = 0; r < t->nrow; r++) {
            for (int i = 0; t->row[r].cell && i < t->ncol; i++) free(t->row[r].cell[i].text);
            free(t->row[r].cell);
        }
        free(t->row); free(t->id); free(t->caption); free(t->align);
    }
    for (int i = 0; i < s->n_made_by; i++) free(s->made_by[i]);
    for (int i = 0; i < s->n_job; i++) free(s->job[i]);
    free(s->made_by);
    free(s->job);
    free(s->t);
    free(s->store);
    memset(s, 0, sizeof *s);
}
