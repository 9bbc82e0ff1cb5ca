/* report/md.c — the Markdown tables (see report/md.h). */
#include "report/md.h"

#include <stdlib.h>
#include <string.h>

#include "report/tab.h"

void rpt_md_escape(struct sp_buf *b, const char *s)
{
    for (const char *p = s; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (strchr("\\`*_|<>[]~$&", c)) { sp_buf_put(b, "\\", 1); sp_buf_put(b, p, 1); }
        else if (c < 0x20 || c == 0x7f) sp_buf_put(b, " ", 1);   /* a line break would end the table */
        else sp_buf_put(b, p, 1);
    }
}

static const struct rpt_tab_style md_style = {
    .none = "–", .pm = " ± ", .minus = "-", .plus = "+", .range = "–",
    .iv_open = "[", .iv_sep = ", ", .iv_close = "]", .bold_open = "**", .bold_close = "**",
    .mark = { "†", "\\*", "‡" },
    .escape = rpt_md_escape,
};

static void put_escaped(FILE *f, struct sp_buf *b, const char *s)
{
    b->len = 0;
    rpt_md_escape(b, s);
    fwrite(b->p, 1, b->len, f);
}

static void table(FILE *f, int number, const struct rpt_tab *t, struct sp_buf *b)
{
    fprintf(f, "**Table %d.** ", number);
    put_escaped(f, b, t->caption);
    fputs("\n\n", f);
    /* one head row: per column, the texts of the head rows that cover it */
    struct sp_buf *head = sp_xcalloc((size_t)t->ncol, sizeof *head);
    int r = 0;
    for (; r < t->nrow && t->row[r].kind == RPT_ROW_HEAD; r++) {
        const struct rpt_tab_row *row = &t->row[r];
        for (int i = 0; i < t->ncol; i++) {
            const struct rpt_tab_cell *c = &row->cell[i];
            if (c->kind == RPT_CELL_EMPTY) continue;
            for (int j = i; j < i + (c->span > 1 ? c->span : 1) && j < t->ncol; j++) {
                if (head[j].len) sp_buf_put(&head[j], " ", 1);
                rpt_tab_cell_text(&head[j], c, &md_style);
            }
        }
    }
    fputc('|', f);
    for (int i = 0; i < t->ncol; i++) {
        fputc(' ', f);
        fwrite(head[i].p ? head[i].p : "", 1, head[i].len, f);
        fputs(" |", f);
        sp_buf_free(&head[i]);
    }
    free(head);
    fputs("\n|", f);
    for (int i = 0; i < t->ncol; i++) fputs(t->align[i] == 'l' ? " :-- |" : " --: |", f);
    fputc('\n', f);
    for (; r < t->nrow; r++) {
        const struct rpt_tab_row *row = &t->row[r];
        if (row->kind == RPT_ROW_RULE) continue;
        fputc('|', f);
        for (int i = 0; i < t->ncol; i++) {
            b->len = 0;
            if (i == 0 && row->kind == RPT_ROW_SUB) sp_buf_puts(b, "↳ ");
            rpt_tab_cell_text(b, &row->cell[i], &md_style);
            fputc(' ', f);
            fwrite(b->p, 1, b->len, f);
            fputs(" |", f);
        }
        fputc('\n', f);
    }
    for (int i = 0; i < RPT_TAB_NFLAGS; i++) {
        if (!(t->flags & (1 << i))) continue;
        fprintf(f, "\n%s ", md_style.mark[i]);
        put_escaped(f, b, rpt_tab_flag_legend(1 << i));
        fputs(".\n", f);
    }
}

/* the tasks without results (a job skipped them), each with its reason, as one more table */
static void unfit_table(FILE *f, json_t *unfit, struct sp_buf *b)
{
    if (!json_object_size(unfit)) return;
    const char *name;
    json_t *why;
    fputs("\n**Tasks without results.** The probing protocol cannot run on these tasks: a job skipped their encodes and "
          "probes.\n\n| task | why |\n| :-- | :-- |\n", f);
    json_object_foreach(unfit, name, why) {
        fputs("| ", f);
        put_escaped(f, b, name);
        fputs(" | skipped: ", f);
        put_escaped(f, b, json_string_value(why) ? json_string_value(why) : "");
        fputs(" |\n", f);
    }
}

void rpt_md(FILE *f, const char *db, const struct rpt_table *rows, json_t *unfit)
{
    struct rpt_tab_set s;
    rpt_tab_build(&s, db, rows);
    struct sp_buf b = { 0 };
    fprintf(f, "<!-- synprobe report: tables for papers (GitHub-flavoured Markdown), synprobe %s -->\n\n", SP_VERSION);
    fputs("Store: ", f);
    put_escaped(f, &b, s.store);
    fprintf(f, " (%zu probe results, %zu tree evaluations).", s.n_probe, s.n_tree);
    for (int i = 0; i < s.n_job && i < 3; i++) {
        fputs(i ? "; " : " Job: ", f);
        put_escaped(f, &b, s.job[i]);
    }
    if (s.n_job) fputc('.', f);
    for (int i = 0; i < s.n_made_by && i < 3; i++) {
        fputs(i ? "; " : " Made by: ", f);
        put_escaped(f, &b, s.made_by[i]);
    }
    if (s.n_made_by > 3) fprintf(f, "; and %d more commands", s.n_made_by - 3);
    fprintf(f, "%s Percentages with %d decimal, correlations with %d, p-values with %d.\n", s.n_made_by ? "." : "",
            RPT_TAB_PCT, RPT_TAB_CORR, RPT_TAB_P);
    if (!s.n) fputs("\nNo probe results or tree evaluations: no tables.\n", f);
    for (int k = 0; k < s.n; k++) {
        fputc('\n', f);
        table(f, k + 1, &s.t[k], &b);
    }
    unfit_table(f, unfit, &b);
    sp_buf_free(&b);
    rpt_tab_free(&s);
}
