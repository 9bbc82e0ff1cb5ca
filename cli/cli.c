/* cli/cli.c — what every command shares: flag parsing and --help from the option tables, the
 * stderr logger, the progress line, SIGINT/SIGTERM as a stop flag, exit statuses. */
#include <jansson.h>
#include <signal.h>
#include <stdlib.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "common/stop.h"

const struct sp_opt cli_common_options[] = {
    { "quiet", SP_OPT_FLAG, offsetof(struct cli_common, quiet), .help = "say nothing but errors and warnings",
      .flags = SP_OPTF_CLI },
    { "verbose", SP_OPT_FLAG, offsetof(struct cli_common, verbose), .help = "say more: each step, its choices and timings",
      .flags = SP_OPTF_CLI },
    { "help", SP_OPT_FLAG, offsetof(struct cli_common, help), .help = "print this help and exit", .flags = SP_OPTF_CLI },
    { 0 },
};

const struct sp_opt cli_json_option[] = {
    { "json", SP_OPT_FLAG, offsetof(struct cli_common, json), .help = "print the result as JSON on stdout",
      .flags = SP_OPTF_CLI },
    { 0 },
};

void cli_print_json(struct cli *c, const json_t *j, size_t flags)
{
    cli_progress_clear(c);
    char *txt = json_dumps(j, flags);
    if (txt) printf("%s\n", txt);
    free(txt);
}

int cli_fail(int code, const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "synprobe %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return code;
}

/* ---- stop flag: the handlers only set it (docs/style.md §3.9) ---- */

/* the process's stop flag (common/stop.h): the stages see it through ctx->stop, the long reads
 * of the lower layers directly */
static void on_stop_signal(int sig)
{
    atomic_store(&sp_stop_signal, sig);
    signal(sig, SIG_DFL);            /* a second Ctrl-C ends the process at once */
}

/* ---- logger and progress line ---- */

void cli_progress_clear(struct cli *c)
{
    if (c->progress_shown) {
        fputs("\r\033[K", stderr);
        c->progress_shown = 0;
    }
}

static void log_write(void *arg, enum sp_log_level level, const char *line)
{
    struct cli *c = arg;
    flockfile(stderr);        /* clearing the progress line and the line itself are one: run's status
                               * line is redrawn from a thread of its own (cli/cmd_run.c) */
    cli_progress_clear(c);
    if (level == SP_LOG_ERROR) fprintf(stderr, "synprobe %s: %s\n", c->name, line);
    else if (level == SP_LOG_WARN) fprintf(stderr, "synprobe %s: warning: %s\n", c->name, line);
    else fprintf(stderr, "%s\n", line);
    funlockfile(stderr);
}

static void fmt_duration(char *out, size_t n, double s)
{
    long t = (long)(s + 0.5);
    if (t >= 3600) snprintf(out, n, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
    else snprintf(out, n, "%ld:%02ld", t / 60, t % 60);
}

/* On a terminal: "encode: 1,234/5,000 sentences  310/s  ETA 0:12", redrawn at most 5 times a
 * second. Off a terminal the stage's closing log line says the same once. */
static void progress(void *arg, const char *unit, uint64_t done, uint64_t total)
{
    struct cli *c = arg;
    if (!c->tty || c->common.quiet) return;
    double now = sp_now();
    if (c->progress_t0 == 0) c->progress_t0 = now;
    if (now - c->progress_last < 0.2 && done != total) return;
    c->progress_last = now;
    double el = now - c->progress_t0, rate = el > 0 ? (double)done / el : 0;
    char eta[32] = "";
    if (total && rate > 0 && done < total) {
        char d[16];
        fmt_duration(d, sizeof d, (double)(total - done) / rate);
        snprintf(eta, sizeof eta, "  ETA %s", d);
    }
    if (total)
        fprintf(stderr, "\r\033[K%s: %llu/%llu %s  %.0f/s%s", c->name, (unsigned long long)done,
                (unsigned long long)total, unit, rate, eta);
    else
        fprintf(stderr, "\r\033[K%s: %llu %s  %.0f/s", c->name, (unsigned long long)done, unit, rate);
    fflush(stderr);
    c->progress_shown = 1;
}

/* ---- the synopsis, from the command's doc and option tables ---- */

#define SYN_WIDTH 100
#define SYN_NBSP '\x01'          /* a blank inside one item ("--rank K"): never broken there */
#define SYN_UNIT '\x02'          /* between two top-level items: the place to break a line */

static struct { enum cli_help_form form; FILE *f; } help_as;

static void buf_putc(struct sp_buf *b, char c) { sp_buf_put(b, &c, 1); }

void cli_help_form(enum cli_help_form form, FILE *f)
{
    help_as.form = form;
    help_as.f = f;
}

/* s names --name as a whole flag ("--run" is not named by "--run-id") */
static int names_flag(const char *s, size_t n, const char *name)
{
    size_t k = strlen(name);
    for (const char *p = s; (p = memmem(p, (size_t)(s + n - p), "--", 2)) != NULL; p += 2) {
        if ((size_t)(s + n - p) < k + 2 || strncmp(p + 2, name, k)) continue;
        char c = p + 2 + k < s + n ? p[2 + k] : ' ';
        if (!(c == '-' || c == '_' || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) return 1;
    }
    return 0;
}

static const struct sp_opt *find_opt(const struct sp_optbind *b, int nb, const char *name, size_t n)
{
    for (int i = 0; i <= nb; i++)
        for (const struct sp_opt *o = i < nb ? b[i].table : cli_common_options; o->name; o++)
            if (strlen(o->name) == n && !strncmp(o->name, name, n)) return o;
    return NULL;
}

/* "--name VALUE" as --help shows it, its blanks unbreakable */
static void put_item(struct sp_buf *out, const struct sp_opt *o, int optional)
{
    char head[200], text[1024];
    sp_opt_describe(o, head, sizeof head, text, sizeof text);
    for (char *p = head; *p; p++)
        if (*p == ' ') *p = SYN_NBSP;
    sp_buf_printf(out, optional ? "[%s]" : "%s", head);
}

/* One form of the shape (s, n bytes) into out: items, SYN_UNIT between top-level ones. rest: expand
 * the options the whole shape does not name here (at [options], else at the end). A problem is
 * appended to err; returns their number. */
static int render_form(struct sp_buf *out, const char *s, size_t n, const char *shape, int rest,
                       const struct sp_optbind *b, int nb, struct sp_buf *err)
{
    int depth = 0, square = 0, sep = 0, bad = 0;
    char stack[32];
    for (size_t i = 0; i <= n;) {
        int at_options = i + 9 <= n && !strncmp(s + i, "[options]", 9);
        if (i == n ? rest : at_options) {      /* every option the shape does not name */
            for (int t = 0; t < nb; t++)
                for (const struct sp_opt *o = b[t].table; o->name; o++) {
                    if (names_flag(shape, strlen(shape), o->name)) continue;
                    if (sep) buf_putc(out, depth ? ' ' : SYN_UNIT);
                    put_item(out, o, !(o->flags & SP_OPTF_REQUIRED));
                    sep = 1;
                }
            rest = 0;
        }
        if (i == n) break;
        if (at_options) { i += 9; continue; }
        char ch = s[i];
        if (ch == ' ' || ch == '\n') { i++; continue; }
        if (ch == '(' || ch == '[') {
            if (sep) buf_putc(out, depth ? ' ' : SYN_UNIT);
            buf_putc(out, ch);
            if (depth < (int)sizeof stack) stack[depth] = ch;
            depth++;
            square += ch == '[';
            sep = 0;
            i++;
            continue;
        }
        if (ch == ')' || ch == ']') {
            if (!depth || (depth <= (int)sizeof stack && stack[depth - 1] != (ch == ')' ? '(' : '['))) {
                sp_buf_printf(err, "an unmatched '%c'\n", ch);
                bad++;
            } else {
                depth--;
                square -= ch == ']';
            }
            buf_putc(out, ch);
            sep = 1;
            i++;
            continue;
        }
        size_t w = i;
        while (w < n && !strchr(" \n()[]", s[w])) w++;
        if (sep) buf_putc(out, depth ? ' ' : SYN_UNIT);
        if (w - i > 2 && !strncmp(s + i, "--", 2)) {
            const struct sp_opt *o = find_opt(b, nb, s + i + 2, w - i - 2);
            if (!o) {
                sp_buf_printf(err, "%.*s: no option of its tables\n", (int)(w - i), s + i);
                bad++;
                sp_buf_put(out, s + i, w - i);
            } else {
                if (square && (o->flags & SP_OPTF_REQUIRED)) {
                    sp_buf_printf(err, "--%s: required, but inside [ ]\n", o->name);
                    bad++;
                }
                put_item(out, o, 0);
            }
        } else {
            sp_buf_put(out, s + i, w - i);         /* an operand, or the '|' of alternatives */
        }
        sep = 1;
        i = w;
    }
    if (depth) {
        sp_buf_printf(err, "%d unclosed bracket%s\n", depth, depth == 1 ? "" : "s");
        bad++;
    }
    return bad;
}

/* lead, then the items of form (SYN_UNIT between top-level ones), wrapped at width columns under
 * the first item; a top-level item goes whole onto the next line when it does not fit */
static void wrap_form(struct sp_buf *out, const char *lead, const char *form, size_t width)
{
    size_t indent = strlen(lead), col = indent;
    sp_buf_puts(out, lead);
    int line_empty = 1;
    for (const char *p = form; *p;) {
        size_t ul = strcspn(p, "\x02");
        if (!line_empty && col + 1 + ul > width && indent + ul <= width) {
            sp_buf_printf(out, "\n%*s", (int)indent, "");
            col = indent;
            line_empty = 1;
        }
        for (const char *q = p; q < p + ul;) {     /* the words of the item, broken at its blanks */
            size_t wl = strcspn(q, " \x02");
            if (wl > (size_t)(p + ul - q)) wl = (size_t)(p + ul - q);
            if (!line_empty && col + 1 + wl > width) {
                sp_buf_printf(out, "\n%*s", (int)indent, "");
                col = indent;
                line_empty = 1;
            }
            if (!line_empty) { buf_putc(out, ' '); col++; }
            for (size_t k = 0; k < wl; k++) buf_putc(out, q[k] == SYN_NBSP ? ' ' : q[k]);
            col += wl;
            line_empty = 0;
            q += wl;
            if (q < p + ul && *q == ' ') q++;
        }
        p += ul;
        if (*p) p++;
    }
    sp_buf_puts(out, "\n");
}

/* The synopsis of doc against b's tables, each form on its lines: "usage: synprobe NAME ..." and
 * "   or: synprobe NAME ..." (labels), or "synprobe NAME ..." (no labels: the man page, the
 * Markdown; broken where the labelled lines break). Problems of the shape go to err; returns
 * their number. */
static int synopsis(struct sp_buf *out, const struct cli_doc *doc, const struct sp_optbind *b, int nb, int labels,
                    struct sp_buf *err)
{
    const char *shape = doc->synopsis ? doc->synopsis : "";
    int rest = !strstr(shape, "[options]"), bad = 0, k = 0;
    for (const char *p = shape;; k++) {
        size_t n = strcspn(p, ";");
        struct sp_buf form = { 0 };
        bad += render_form(&form, p, n, shape, rest && !k, b, nb, err);
        buf_putc(&form, 0);
        char lead[96];
        snprintf(lead, sizeof lead, "%ssynprobe %s ", !labels ? "" : k ? "   or: " : "usage: ", doc->name);
        wrap_form(out, lead, form.p, labels ? SYN_WIDTH : SYN_WIDTH - 7);
        sp_buf_free(&form);
        if (!p[n]) break;
        p += n + 1;
    }
    buf_putc(out, 0);
    out->len--;
    return bad;
}

void cli_usage(FILE *f, const struct cli *c)
{
    struct sp_buf u = { 0 }, err = { 0 };
    synopsis(&u, c->doc, c->binds, c->nbinds, 1, &err);
    fputs(u.p, f);
    sp_buf_free(&u);
    sp_buf_free(&err);
}

/* ---- subcommands ---- */

static const char *sub_name(const struct cli_sub *s)
{
    const char *sp = strrchr(s->doc->name, ' ');
    return sp ? sp + 1 : s->doc->name;
}

/* "a, b or c" */
static void sub_names(struct sp_buf *b, const struct cli_doc *doc, const char *sep, const char *last)
{
    for (size_t i = 0; i < doc->n_subs; i++)
        sp_buf_printf(b, "%s%s", !i ? "" : i + 1 < doc->n_subs ? sep : last, sub_name(&doc->subs[i]));
}

/* each subcommand's synopsis (its --help in CLI_HELP_USAGE), then "subcommands: a, b (...)" */
static void sub_usages(FILE *f, const struct cli_doc *doc)
{
    struct { enum cli_help_form form; FILE *f; } was = { help_as.form, help_as.f };
    fflush(stdout);
    for (size_t i = 0; i < doc->n_subs; i++) {
        char *av[] = { (char *)sub_name(&doc->subs[i]), "--help", NULL };
        cli_help_form(CLI_HELP_USAGE, f);
        doc->subs[i].fn(2, av);
    }
    cli_help_form(was.form, was.f);
    struct sp_buf names = { 0 };
    sub_names(&names, doc, ", ", ", ");
    fprintf(f, "subcommands: %s (synprobe %s SUBCOMMAND --help for its options)\n", names.p, doc->name);
    sp_buf_free(&names);
}

int cli_subcommands(const struct cli_doc *doc, int argc, char **argv)
{
    const char *cmd = doc->name;
    for (size_t i = 0; i < doc->n_subs; i++)
        if (argc >= 2 && !strcmp(argv[1], sub_name(&doc->subs[i]))) return doc->subs[i].fn(argc - 1, argv + 1);
    if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        if (help_as.form == CLI_HELP_MAN || help_as.form == CLI_HELP_MARKDOWN) {   /* each subcommand's section */
            for (size_t i = 0; i < doc->n_subs; i++) {
                char *av[] = { (char *)sub_name(&doc->subs[i]), "--help", NULL };
                int rc = doc->subs[i].fn(2, av);
                if (rc != SP_EXIT_OK) return rc;
            }
        } else {
            sub_usages(help_as.f ? help_as.f : stdout, doc);
        }
        return SP_EXIT_OK;
    }
    sub_usages(stderr, doc);
    struct sp_buf expected = { 0 };
    sub_names(&expected, doc, ", ", " or ");
    int rc;
    if (argc < 2) {
        rc = cli_fail(SP_EXIT_USAGE, cmd, "a subcommand is required (%s)", expected.p);
    } else {
        size_t n = doc->n_subs;
        const char *names[n ? n : 1];
        for (size_t i = 0; i < n; i++) names[i] = sub_name(&doc->subs[i]);
        char sugg[128];
        sp_suggest(sugg, sizeof sugg, argv[1], names, n);
        rc = cli_fail(SP_EXIT_USAGE, cmd, "unknown subcommand '%s'%s%s (expected %s)", argv[1], sugg[0] ? "; " : "", sugg,
                      expected.p);
    }
    sp_buf_free(&expected);
    return rc;
}

/* ---- --help: text, roff, Markdown ---- */

/* the purpose as a sentence: "Parse treebanks ... store." */
static void put_purpose(struct sp_buf *out, const char *purpose)
{
    if (!purpose || !*purpose) return;
    sp_buf_printf(out, "%c%s.\n", purpose[0] >= 'a' && purpose[0] <= 'z' ? purpose[0] - 'a' + 'A' : purpose[0], purpose + 1);
}

/* The command's --help as a man page section: ".SS synprobe NAME", the synopsis, the purpose and
 * the prose as paragraphs (indented lines kept as typed), then the options from the same tables. */
static void help_roff(FILE *f, const char *syn, const struct cli_doc *doc, const struct sp_optbind *b, int nb)
{
    fputs(".SS \"synprobe ", f);
    sp_roff_text(f, doc->name, strlen(doc->name));
    fputs("\"\n.nf\n", f);
    sp_roff_text(f, syn, strlen(syn));
    fputs(".fi\n", f);
    struct sp_buf pp = { 0 };
    put_purpose(&pp, doc->purpose);
    if (pp.len) {
        fputs(".PP\n", f);
        sp_roff_text(f, pp.p, pp.len);
    }
    sp_buf_free(&pp);
    const char *q = doc->prose ? doc->prose : "";
    int as_typed = 0;
    if (*q) fputs(".PP\n", f);
    while (*q) {
        const char *nl = strchr(q, '\n');
        size_t len = nl ? (size_t)(nl - q) : strlen(q);
        int indented = len && (*q == ' ' || *q == '\t');
        if (indented != as_typed) { fputs(indented ? ".nf\n" : ".fi\n", f); as_typed = indented; }
        if (!len) fputs(".PP\n", f);
        else { sp_roff_text(f, q, len); fputc('\n', f); }
        q += len + (nl != NULL);
    }
    if (as_typed) fputs(".fi\n", f);
    for (int i = 0; i < nb; i++) sp_opt_man(f, b[i].table);
    sp_opt_man(f, cli_common_options);
}

/* Markdown text: the characters that would mark it up escaped (code spans in backquotes kept);
 * line_start: what would start a heading, a list or a quote there too; in_table: '|' too; *code:
 * inside `a code span` (it may go on from the line before), taken as typed */
static void md_text(FILE *f, const char *s, size_t n, int line_start, int in_table, int *code)
{
    if (line_start && n && (strchr("#+=>", s[0]) || (s[0] == '-' && n > 1 && s[1] == ' '))) fputc('\\', f);
    for (size_t i = 0; i < n && s[i]; i++) {
        if (s[i] == '`') *code = !*code;
        if ((!*code && strchr("\\*_<[]", s[i])) || (in_table && s[i] == '|')) fputc('\\', f);
        fputc(s[i], f);
    }
}

/* The command's section of docs/commands.md: "## synprobe NAME", the purpose, the synopsis as a
 * text block, the prose (paragraphs as typed, indented lines as a text block), the options as a
 * table. */
static void help_md(FILE *f, const char *syn, const struct cli_doc *doc, const struct sp_optbind *b, int nb)
{
    fprintf(f, "## synprobe %s\n\n", doc->name);
    struct sp_buf pp = { 0 };
    put_purpose(&pp, doc->purpose);
    if (pp.len) {
        int code = 0;
        md_text(f, pp.p, pp.len, 1, 0, &code);
        fputc('\n', f);
    }
    sp_buf_free(&pp);
    fprintf(f, "```text\n%s```\n", syn);
    const char *q = doc->prose ? doc->prose : "";
    int state = 0, code = 0;     /* state: 0 between paragraphs, 1 in one, 2 in a text block */
    while (*q) {
        const char *nl = strchr(q, '\n');
        size_t len = nl ? (size_t)(nl - q) : strlen(q);
        int indented = len && (*q == ' ' || *q == '\t');
        if (state == 2 && !indented) { fputs("```\n", f); state = 0; }
        if (!len) {
            state = 0;
        } else if (indented) {
            if (state != 2) fputs("\n```text\n", f);
            fprintf(f, "%.*s\n", (int)len, q);
            state = 2;
        } else {
            if (state == 0) {
                fputc('\n', f);
                code = 0;
            }
            md_text(f, q, len, 1, 0, &code);
            fputc('\n', f);
            state = 1;
        }
        q += len + (nl != NULL);
    }
    if (state == 2) fputs("```\n", f);
    int any = 0;
    for (int i = 0; i < nb; i++)
        for (const struct sp_opt *o = b[i].table; o->name; o++) {
            char head[200], text[1024];
            sp_opt_describe(o, head, sizeof head, text, sizeof text);
            if (!any++) fputs("\n| option | what it does |\n| --- | --- |\n", f);
            fputs("| `", f);
            for (const char *h = head; *h; h++) fputs(*h == '|' ? "\\|" : (char[2]){ *h, 0 }, f);
            fputs("` | ", f);
            int code = 0;
            md_text(f, text, strlen(text), 0, 1, &code);
            fputs(" |\n", f);
        }
    fputc('\n', f);
}

int cli_help(FILE *f, const struct cli *c, const struct sp_optbind *b, int nb)
{
    const struct cli_doc *doc = c->doc;
    struct sp_buf syn = { 0 }, err = { 0 };
    int labels = help_as.form == CLI_HELP_TEXT || help_as.form == CLI_HELP_USAGE;
    if (synopsis(&syn, doc, b, nb, labels, &err)) {
        /* a broken declaration: no page is written from it */
        for (const char *p = err.p; p && *p;) {
            size_t n = strcspn(p, "\n");
            fprintf(stderr, "synprobe %s: the synopsis in its cli_doc: %.*s\n", doc->name, (int)n, p);
            p += n + (p[n] == '\n');
        }
        sp_buf_free(&syn);
        sp_buf_free(&err);
        return -1;
    }
    switch (help_as.form) {
    case CLI_HELP_USAGE: fputs(syn.p, f); break;
    case CLI_HELP_MAN: help_roff(f, syn.p, doc, b, nb); break;
    case CLI_HELP_MARKDOWN: help_md(f, syn.p, doc, b, nb); break;
    case CLI_HELP_TEXT: {
        struct sp_buf pp = { 0 };
        put_purpose(&pp, doc->purpose);
        fprintf(f, "%s\n%s", syn.p, pp.len ? pp.p : "");
        if (doc->prose && *doc->prose) fprintf(f, "\n%s", doc->prose);
        sp_buf_free(&pp);
        fputs("\noptions:\n", f);
        for (int i = 0; i < nb; i++) sp_opt_help(f, b[i].table);
        sp_opt_help(f, cli_common_options);
        break;
    }
    }
    sp_buf_free(&syn);
    sp_buf_free(&err);
    return 0;
}

/* The store, the inputs (path options and operands) into c->guard; the store checked against the
 * inputs, every output against them and against each other. SP_OK, or SP_EUSAGE with the clash in
 * err. */
static int guard_outputs(struct cli *c, const struct sp_optbind *b, int nb, char *err, size_t errlen)
{
    for (int i = 0; i < nb; i++) sp_guard_protect_options(&c->guard, b[i].table, b[i].dst, "--");
    for (int i = 0; i < c->operands.n; i++) sp_guard_protect(&c->guard, c->operands.v[i], "input");
    struct sp_guard outs = { 0 };
    int rc = sp_guard_check_stores(&c->guard, err, errlen);   /* `ingest --db X X`: X is no store */
    for (int i = 0; i < nb && rc == SP_OK; i++) rc = sp_guard_check_options(&c->guard, &outs, b[i].table, b[i].dst, "--", err, errlen);
    sp_guard_free(&outs);
    return rc;
}

int cli_parse(struct cli *c, const struct cli_doc *doc, const struct sp_optbind *b, int nb, int argc, char **argv,
              int operands_ok)
{
    memset(c, 0, sizeof *c);
    c->name = doc->name;
    c->doc = doc;
    c->binds = b;
    c->nbinds = nb;
    const char *name = doc->name;
    sp_arena_init(&c->arena);
    struct sp_optbind all[16];
    SP_ASSERT(nb < 16);
    memcpy(all, b, sizeof *b * (size_t)nb);
    all[nb] = (struct sp_optbind){ cli_common_options, &c->common };
    char err[SP_ERRLEN];
    int rc = sp_opt_parse_argv(all, nb + 1, argc, argv, operands_ok ? &c->operands : NULL, &c->arena, err, sizeof err);
    if (c->common.help) {           /* --help wins over everything else on the line */
        rc = cli_help(help_as.f ? help_as.f : stdout, c, b, nb);
        return cli_done(c, rc ? SP_EXIT_INPUT : SP_EXIT_OK);
    }
    if (rc) {
        cli_usage(stderr, c);
        fprintf(stderr, "synprobe %s: %s\n", name, err);
        return cli_done(c, SP_EXIT_USAGE);
    }
    if (c->common.quiet && c->common.verbose) {
        fprintf(stderr, "synprobe %s: --quiet and --verbose exclude each other; give one\n", name);
        return cli_done(c, SP_EXIT_USAGE);
    }
    for (int i = 0; i < nb; i++)
        if (sp_opt_check_required(b[i].table, b[i].dst, err, sizeof err)) {
            cli_usage(stderr, c);
            fprintf(stderr, "synprobe %s: %s\n", name, err);
            return cli_done(c, SP_EXIT_USAGE);
        }
    if (guard_outputs(c, b, nb, err, sizeof err)) {
        fprintf(stderr, "synprobe %s: %s\n", name, err);
        return cli_done(c, SP_EXIT_USAGE);
    }
    sp_guard_install(&c->guard);
    /* the manifest's "command": synprobe and the words as typed */
    const char **words = sp_arena_alloc(&c->arena, sizeof *words * (size_t)(argc + 2));
    words[0] = "synprobe";
    for (int i = 0; i < argc; i++) words[i + 1] = argv[i];
    c->command = (struct sp_strlist){ words, argc + 1 };

    c->tty = isatty(STDERR_FILENO);
    c->log = (struct sp_logger){ c->common.quiet ? SP_LOG_WARN : c->common.verbose ? SP_LOG_DEBUG : SP_LOG_INFO, log_write, c };
    c->ctx = (struct stg_ctx){ .log = &c->log, .stop = &sp_stop_signal, .progress = progress, .progress_arg = c };
    atomic_store(&sp_stop_signal, 0);
    signal(SIGINT, on_stop_signal);
    signal(SIGTERM, on_stop_signal);
    return -1;
}

int cli_done(struct cli *c, int rc)
{
    cli_progress_clear(c);
    if (sp_guard_installed() == &c->guard) sp_guard_install(NULL);
    sp_guard_free(&c->guard);
    sp_arena_free(&c->arena);
    return rc;
}

int cli_exit_status(int sp_rc)
{
    if (sp_rc == SP_OK) return SP_EXIT_OK;
    if (sp_rc == SP_EUSAGE) return SP_EXIT_USAGE;
    if (sp_rc == SP_ESTOPPED) {
        int sig = atomic_load(&sp_stop_signal);
        return 128 + (sig ? sig : SIGINT);
    }
    return SP_EXIT_INPUT;
}

int cli_finish_stage(struct cli *c, int sp_rc)
{
    cli_progress_clear(c);
    switch (sp_rc) {
    case SP_OK: return SP_EXIT_OK;
    case SP_EUSAGE:
        fprintf(stderr, "synprobe %s: %s\n", c->name, c->ctx.err);
        return SP_EXIT_USAGE;
    case SP_ESTOPPED: {
        int sig = atomic_load(&sp_stop_signal);
        fprintf(stderr, "synprobe %s: %s\n", c->name, c->ctx.err);
        return 128 + (sig ? sig : SIGINT);
    }
    default:
        fprintf(stderr, "synprobe %s: %s\n", c->name, c->ctx.err);
        return SP_EXIT_INPUT;
    }
}
