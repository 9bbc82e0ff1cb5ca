/* report/latex.c — the LaTeX tables (see report/latex.h). */
#include "report/latex.h"

#include <string.h>

#include "report/tab.h"

/* UTF-8 signs the captions and headers use, as LaTeX that any font set prints */
static const struct { const char *utf8, *tex; } signs[] = {
    { "±", "$\\pm$" }, { "≤", "$\\le$" }, { "≥", "$\\ge$" }, { "×", "$\\times$" }, { "–", "--" }, { "—", "---" },
    { "−", "$-$" }, { "†", "$\\dagger$" }, { "‡", "$\\ddagger$" }, { "↳", "$\\hookrightarrow$" },
};

void rpt_latex_escape(struct sp_buf *b, const char *s)
{
    for (const char *p = s; *p;) {
        size_t k;
        for (k = 0; k < sizeof signs / sizeof *signs; k++) {
            size_t n = strlen(signs[k].utf8);
            if (!strncmp(p, signs[k].utf8, n)) { sp_buf_puts(b, signs[k].tex); p += n; break; }
        }
        if (k < sizeof signs / sizeof *signs) continue;
        unsigned char c = (unsigned char)*p++;
        switch (c) {
        case '&': case '%': case '$': case '#': case '_': case '{': case '}':
            sp_buf_put(b, "\\", 1);
            sp_buf_put(b, &c, 1);
            break;
        case '~': sp_buf_puts(b, "\\textasciitilde{}"); break;
        case '^': sp_buf_puts(b, "\\textasciicircum{}"); break;
        case '\\': sp_buf_puts(b, "\\textbackslash{}"); break;
        case '<': sp_buf_puts(b, "\\textless{}"); break;
        case '>': sp_buf_puts(b, "\\textgreater{}"); break;
        case '|': sp_buf_puts(b, "\\textbar{}"); break;
        case '`': sp_buf_puts(b, "\\textasciigrave{}"); break;   /* `` would be a quote, ?` an inverted ? */
        case '-': sp_buf_puts(b, *p == '-' ? "-{}" : "-"); break;   /* -- and --- would be dashes */
        default:
            if (c < 0x20 || c == 0x7f) sp_buf_put(b, " ", 1);   /* a line break would end a comment or a row */
            else sp_buf_put(b, &c, 1);
        }
    }
}

static const struct rpt_tab_style tex_style = {
    .none = "--", .pm = " $\\pm$ ", .minus = "$-$", .plus = "$+$", .range = "--",
    .iv_open = "[", .iv_sep = ", ", .iv_close = "]", .bold_open = "\\textbf{", .bold_close = "}",
    .mark = { "$^{\\dagger}$", "$^{*}$", "$^{\\ddagger}$" },
    .escape = rpt_latex_escape,
};

/* a comment line: the text as is (no escape needed after %), line breaks as spaces, and ^^ apart (TeX
 * reads ^^M as a line end even in a comment) */
static void comment(FILE *f, const char *what, const char *s)
{
    fprintf(f, "%% %s", what);
    for (const char *p = s; *p; p++) {
        fputc(*p == '\n' || *p == '\r' ? ' ' : *p, f);
        if (p[0] == '^' && p[1] == '^') fputc(' ', f);
    }
    fputc('\n', f);
}

static void table(FILE *f, const struct rpt_tab *t, struct sp_buf *b)
{
    fprintf(f, "\\begin{table}[htbp]\n\\centering\n\\small\n\\caption{");
    b->len = 0;
    rpt_latex_escape(b, t->caption);
    fwrite(b->p, 1, b->len, f);
    fprintf(f, "}\n\\label{tab:synprobe-%s}\n\\begin{tabular}{%s}\n\\toprule\n", t->id, t->align);
    for (int r = 0; r < t->nrow; r++) {
        const struct rpt_tab_row *row = &t->row[r];
        if (row->kind == RPT_ROW_RULE) { fputs("\\midrule\n", f); continue; }
        struct sp_buf rules = { 0 };
        for (int i = 0; i < t->ncol; i += row->cell[i].span > 1 ? row->cell[i].span : 1) {
            const struct rpt_tab_cell *c = &row->cell[i];
            if (i) fputs(" & ", f);
            b->len = 0;
            rpt_tab_cell_text(b, c, &tex_style);
            sp_buf_put(b, "", 1);
            if (c->span > 1) {
                fprintf(f, "\\multicolumn{%d}{c}{%s}", c->span, b->p);
                sp_buf_printf(&rules, "\\cmidrule(lr){%d-%d}", i + 1, i + c->span);
            } else if (row->kind == RPT_ROW_SUB && c->kind != RPT_CELL_EMPTY) {
                fprintf(f, "%s{\\footnotesize %s}", i ? "" : "\\quad", b->p);
            } else {
                /* the \\ ending the row above would read a [ or * that starts this one as its argument */
                if (i == 0 && (b->p[0] == '[' || b->p[0] == '*')) fputs("{}", f);
                fputs(b->p, f);
            }
        }
        fputs(" \\\\\n", f);
        if (rules.len) { fwrite(rules.p, 1, rules.len, f); fputc('\n', f); }
        sp_buf_free(&rules);
    }
    fputs("\\bottomrule\n\\end{tabular}\n", f);
    if (t->flags) {
        fputs("\n\\smallskip\n{\\footnotesize\n", f);
        for (int i = 0; i < RPT_TAB_NFLAGS; i++) {
            if (!(t->flags & (1 << i))) continue;
            b->len = 0;
            rpt_latex_escape(b, rpt_tab_flag_legend(1 << i));
            fprintf(f, "%s %.*s.\\par\n", tex_style.mark[i], (int)b->len, b->p);
        }
        fputs("}\n", f);
    }
    fputs("\\end{table}\n", f);
}

/* a cell's text at the start of a row: the \\ ending the row above would read a [ or * as its argument */
static void row_start(FILE *f, const struct sp_buf *b)
{
    if (b->len && (b->p[0] == '[' || b->p[0] == '*')) fputs("{}", f);
    fwrite(b->p, 1, b->len, f);
}

/* the tasks without results (a job skipped them), each with its reason, as one more table */
static void unfit_table(FILE *f, json_t *unfit, struct sp_buf *b)
{
    if (!json_object_size(unfit)) return;
    const char *name;
    json_t *why;
    fputs("\n\\begin{table}[htbp]\n\\centering\n\\small\n\\caption{Tasks without results: the probing protocol cannot "
          "run on them, and a job skipped their encodes and probes.}\n\\label{tab:synprobe-skipped-tasks}\n"
          "\\begin{tabular}{lp{0.6\\linewidth}}\n\\toprule\nTask & Why \\\\\n\\midrule\n", f);
    json_object_foreach(unfit, name, why) {
        b->len = 0;
        rpt_latex_escape(b, name);
        row_start(f, b);
        b->len = 0;
        rpt_latex_escape(b, json_string_value(why) ? json_string_value(why) : "");
        fputs(" & skipped: ", f);
        fwrite(b->p, 1, b->len, f);
        fputs(" \\\\\n", f);
    }
    fputs("\\bottomrule\n\\end{tabular}\n\\end{table}\n", f);
}

void rpt_latex(FILE *f, const char *db, const struct rpt_table *rows, json_t *unfit)
{
    struct rpt_tab_set s;
    rpt_tab_build(&s, db, rows);
    fprintf(f, "%% synprobe report: tables for papers (LaTeX, booktabs), synprobe %s\n", SP_VERSION);
    fprintf(f, "%% Needs \\usepackage{booktabs} in the preamble; \\input this file where the tables go. A table wider than\n"
               "%% the text: wrap its tabular in \\resizebox{\\linewidth}{!}{...} (\\usepackage{graphicx}).\n");
    comment(f, "store: ", s.store);
    for (int i = 0; i < s.n_job && i < 3; i++) comment(f, i ? "     " : "job: ", s.job[i]);
    for (int i = 0; i < s.n_made_by && i < 3; i++) comment(f, i ? "         " : "made by: ", s.made_by[i]);
    if (s.n_made_by > 3) fprintf(f, "%%          and %d more commands (each result's manifest has its own)\n", s.n_made_by - 3);
    fprintf(f, "%% %zu probe results, %zu tree evaluations. Percentages with %d decimal, correlations with %d, p-values "
               "with %d.\n", s.n_probe, s.n_tree, RPT_TAB_PCT, RPT_TAB_CORR, RPT_TAB_P);
    if (!s.n) fprintf(f, "%% no probe results or tree evaluations: no tables\n");
    struct sp_buf b = { 0 };
    for (int k = 0; k < s.n; k++) {
        fputc('\n', f);
        table(f, &s.t[k], &b);
    }
    unfit_table(f, unfit, &b);
    sp_buf_free(&b);
    rpt_tab_free(&s);
}
