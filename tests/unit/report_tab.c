/* tests/unit/report_tab.c — the paper tables' numbers and escapes (report/tab.h,
 * latex.h, md.h). Expected strings by hand: fixed decimals with C's rounding of the
 * binary value, no "-0.0"; LaTeX's special characters (the LaTeX manual's list: # $ % & ~ _ ^ \ { }
 * plus < > | ` that OT1 fonts print as other glyphs, and -- that is a dash); Markdown's marks that
 * format or end a table cell. A table built from two hand-made aggregate rows has the cells and flags
 * worked out here. */
#include <math.h>
#include <string.h>

#include "report/latex.h"
#include "report/md.h"
#include "report/rows.h"
#include "report/tab.h"
#include "tests/unit/t_harness.h"

static const char *tex(const char *s)
{
    static struct sp_buf b;
    b.len = 0;
    rpt_latex_escape(&b, s);
    sp_buf_put(&b, "", 1);
    return b.p;
}

static const char *md(const char *s)
{
    static struct sp_buf b;
    b.len = 0;
    rpt_md_escape(&b, s);
    sp_buf_put(&b, "", 1);
    return b.p;
}

int main(void)
{
    char b[64];
    T_EQ_STR(rpt_tab_num(b, sizeof b, 12.25, 1), "12.2");     /* 12.25 is exact: round half to even */
    T_EQ_STR(rpt_tab_num(b, sizeof b, 12.35, 1), "12.3");     /* 12.35 is 12.3499999... in binary */
    T_EQ_STR(rpt_tab_num(b, sizeof b, -0.04, 1), "0.0");      /* not "-0.0" */
    T_EQ_STR(rpt_tab_num(b, sizeof b, -0.0, 2), "0.00");
    T_EQ_STR(rpt_tab_num(b, sizeof b, -0.06, 1), "-0.1");
    T_EQ_STR(rpt_tab_num(b, sizeof b, 0.8765, 2), "0.88");
    T_EQ_STR(rpt_tab_num(b, sizeof b, NAN, 1), "");

    T_EQ_STR(tex("a_b&c%d$e#f{g}h"), "a\\_b\\&c\\%d\\$e\\#f\\{g\\}h");
    T_EQ_STR(tex("~^\\"), "\\textasciitilde{}\\textasciicircum{}\\textbackslash{}");
    T_EQ_STR(tex("<|>`"), "\\textless{}\\textbar{}\\textgreater{}\\textasciigrave{}");
    T_EQ_STR(tex("a--b-c---d"), "a-{}-b-c-{}-{}-d");
    T_EQ_STR(tex("line\nbreak"), "line break");
    T_EQ_STR(tex("± ≤ –"), "$\\pm$ $\\le$ --");
    T_EQ_STR(md("a|b*c_d`e\\f<g>[h]~$&"), "a\\|b\\*c\\_d\\`e\\\\f\\<g\\>\\[h\\]\\~\\$\\&");
    T_EQ_STR(md("50% #1 {x}"), "50% #1 {x}");
    T_EQ_STR(md("two\nlines"), "two lines");

    /* two encoders on one task, one seed each: the probing table of two aggregate rows by hand */
    static struct rpt_row agg[2] = {
        { .kind = RPT_K_PROBE, .flags = RPT_F_SMALL | RPT_F_WIDE, .encoder = "e1", .task = "T", .method = "logreg", .value = 71.25,
          .lo = 58.0, .hi = 84.0, .n = 50, .n_seeds = 1 },
        { .kind = RPT_K_PROBE, .flags = RPT_F_SMALL | RPT_F_NOCI, .encoder = "e2", .task = "T", .method = "logreg", .value = 80.0,
          .sd = 1.06, .n = 60, .n_seeds = 2 },
    };
    agg[0].sd = agg[1].lo = agg[1].hi = NAN;
    agg[0].base = (struct rpt_baselines){ 52.0, NAN, NAN, -0.04, NAN, NAN, NAN };
    agg[1].base = (struct rpt_baselines){ 52.0, NAN, NAN, 3.0, NAN, NAN, NAN };
    for (int i = 0; i < 2; i++) agg[i].corpus = "", agg[i].layer = agg[i].seed = -1, agg[i].dev = NAN;
    struct rpt_table rows = { .v = agg, .n = 2 };
    struct rpt_tab_set s;
    rpt_tab_build(&s, "x.db", &rows);
    T_EQ_INT(s.n, 1);
    if (s.n == 1) {
        const struct rpt_tab *t = &s.t[0];
        struct sp_buf c = { 0 };
        static const struct rpt_tab_style st = { "-", " +- ", "-", "+", "..", "[", ", ", "]", "<b>", "</b>", { "!", "*", "?" },
                                                 rpt_md_escape };
        /* head, rule, majority (length has no value: no row), rule, e1 + interval + selectivity,
         * e2 + interval + selectivity, rule, n, seeds */
        T_EQ_INT(t->nrow, 13);
        T_EQ_STR(t->id, "probing-logreg");
        T_EQ_INT(t->flags, RPT_FLAG_SMALL | RPT_FLAG_WIDE | RPT_FLAG_NOCI);
        static const char *const want[13] = { "T", NULL, "52.0", NULL, "71.2", "[58.0, 84.0]*", "0.0", "80.0 +- 1.1", "-?",
                                              "3.0", NULL, "50..60!", "1..2" };
        for (int r = 0; r < 13 && r < t->nrow; r++) {
            if (!want[r]) { T_EQ_INT(t->row[r].kind, RPT_ROW_RULE); continue; }
            c.len = 0;
            rpt_tab_cell_text(&c, &t->row[r].cell[1], &st);
            sp_buf_put(&c, "", 1);
            T_EQ_STR(c.p, want[r]);
        }
        sp_buf_free(&c);
    }
    rpt_tab_free(&s);
    return T_DONE();
}
