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

/* ---- parsing ---- */

static int help_man;

void cli_help_as_man(int on) { help_man = on; }

int cli_help_is_man(void) { return help_man; }

/* "a, b or c", and the usages followed by "subcommands: a, b, c (...)" */
static void sub_names(struct sp_buf *b, const struct cli_sub *subs, size_t n, const char *sep, const char *last)
{
    for (size_t i = 0; i < n; i++) sp_buf_printf(b, "%s%s", !i ? "" : i + 1 < n ? sep : last, subs[i].name);
}

static void sub_usages(FILE *f, const char *cmd, const struct cli_sub *subs, size_t n)
{
    struct sp_buf names = { 0 };
    sub_names(&names, subs, n, ", ", ", ");
    for (size_t i = 0; i < n; i++) fprintf(f, "%s%s", i ? "\n" : "", subs[i].usage);
    fprintf(f, "\nsubcommands: %s (synprobe %s SUBCOMMAND --help for its options)\n", names.p, cmd);
    sp_buf_free(&names);
}

int cli_subcommands(const char *cmd, const struct cli_sub *subs, size_t n, int argc, char **argv)
{
    for (size_t i = 0; i < n; i++)
        if (argc >= 2 && !strcmp(argv[1], subs[i].name)) return subs[i].fn(argc - 1, argv + 1);
    if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        if (help_man) {        /* the man page: each subcommand's section */
            for (size_t i = 0; i < n; i++) {
                char *av[] = { (char *)subs[i].name, "--help", NULL };
                subs[i].fn(2, av);
            }
        } else {
            sub_usages(stdout, cmd, subs, n);
        }
        return SP_EXIT_OK;
    }
    sub_usages(stderr, cmd, subs, n);
    struct sp_buf expected = { 0 };
    sub_names(&expected, subs, n, ", ", " or ");
    int rc;
    if (argc < 2) {
        rc = cli_fail(SP_EXIT_USAGE, cmd, "a subcommand is required (%s)", expected.p);
    } else {
        const char *names[n ? n : 1];
        for (size_t i = 0; i < n; i++) names[i] = subs[i].name;
        char sugg[128];
        sp_suggest(sugg, sizeof sugg, argv[1], names, n);
        rc = cli_fail(SP_EXIT_USAGE, cmd, "unknown subcommand '%s'%s%s (expected %s)", argv[1], sugg[0] ? "; " : "", sugg,
                      expected.p);
    }
    sp_buf_free(&expected);
    return rc;
}

/* ---- the synopsis: the usage's first block, completed from the option tables ---- */

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

/* The usage text is typed by hand for its shape (alternatives, what is required); a flag of the
 * command's tables that it does not name is added after it as "[--name METAVAR]", so the synopsis
 * lists every flag by construction (tests/check_docs.sh checks the converse: no flag it names is
 * missing from the tables). The common flags (--quiet, --verbose, --help) are left to the list. */
static void synopsis_rest(struct sp_buf *out, const char *syn, size_t n, const struct sp_optbind *b, int nb)
{
    size_t indent = strcspn(syn, "-([\n"), col = 0;   /* under the first flag of the first line */
    if (indent >= n || syn[indent] == '\n') {        /* no flag there: under the first operand */
        const char *sp = n > 16 ? memchr(syn + 16, ' ', n - 16) : NULL;
        indent = sp ? (size_t)(sp - syn) + 1 : 8;
    }
    for (int i = 0; i < nb; i++)
        for (const struct sp_opt *o = b[i].table; o->name; o++) {
            if (names_flag(syn, n, o->name)) continue;
            char item[160];
            if (o->type == SP_OPT_FLAG) snprintf(item, sizeof item, "[--%s]", o->name);
            else if (o->type == SP_OPT_CHOICE) snprintf(item, sizeof item, "[--%s %s]", o->name, o->choices);
            else snprintf(item, sizeof item, "[--%s %s]", o->name, o->metavar ? o->metavar : "X");
            size_t len = strlen(item);
            if (col == 0 || col + 1 + len > 100) {
                if (col) sp_buf_puts(out, "\n");
                sp_buf_printf(out, "%*s%s", (int)indent, "", item);
                col = indent + len;
            } else {
                sp_buf_printf(out, " %s", item);
                col += 1 + len;
            }
        }
    if (col) sp_buf_puts(out, "\n");
}

/* The usage with its first block (the synopsis) completed: into out, NUL-terminated. */
static void usage_complete(struct sp_buf *out, const char *usage, const struct sp_optbind *b, int nb)
{
    const char *blank = strstr(usage, "\n\n");
    size_t n = blank ? (size_t)(blank - usage) + 1 : strlen(usage);
    sp_buf_put(out, usage, n);
    if (n && usage[n - 1] != '\n') sp_buf_puts(out, "\n");
    synopsis_rest(out, usage, n, b, nb);
    sp_buf_puts(out, usage + n);
    sp_buf_put(out, "", 1);
    out->len--;
}

/* The command's --help as a man page section: ".SS synprobe NAME", the usage lines as a synopsis,
 * the prose as paragraphs, then the options from the same tables. */
static void help_roff(FILE *f, const struct cli *c, const struct sp_optbind *b, int nb)
{
    struct sp_buf u = { 0 };
    usage_complete(&u, c->usage, b, nb);
    fputs(".SS \"synprobe ", f);
    sp_roff_text(f, c->name, strlen(c->name));
    fputs("\"\n.nf\n", f);
    const char *p = u.p, *blank = strstr(p, "\n\n");
    size_t n = blank ? (size_t)(blank - p) + 1 : strlen(p);
    if (!strncmp(p, "usage: ", 7)) { p += 7; n -= 7; }
    sp_roff_text(f, p, n);
    fputs(".fi\n", f);
    /* the prose: a blank line starts a paragraph; indented lines (a table) are kept as typed */
    const char *q = blank ? blank + 2 : "";
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
    sp_buf_free(&u);
}

void cli_help(FILE *f, const struct cli *c, const struct sp_optbind *b, int nb)
{
    if (help_man) { help_roff(f, c, b, nb); return; }
    struct sp_buf u = { 0 };
    usage_complete(&u, c->usage, b, nb);
    fputs(u.p, f);
    sp_buf_free(&u);
    fputs("\noptions:\n", f);
    for (int i = 0; i < nb; i++) sp_opt_help(f, b[i].table);
    sp_opt_help(f, cli_common_options);
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

int cli_parse(struct cli *c, const char *name, const char *usage, const struct sp_optbind *b, int nb,
              int argc, char **argv, int operands_ok)
{
    memset(c, 0, sizeof *c);
    c->name = name;
    c->usage = usage;
    sp_arena_init(&c->arena);
    struct sp_optbind all[16];
    SP_ASSERT(nb < 16);
    memcpy(all, b, sizeof *b * (size_t)nb);
    all[nb] = (struct sp_optbind){ cli_common_options, &c->common };
    char err[SP_ERRLEN];
    int rc = sp_opt_parse_argv(all, nb + 1, argc, argv, operands_ok ? &c->operands : NULL, &c->arena, err, sizeof err);
    if (c->common.help) {           /* --help wins over everything else on the line */
        cli_help(stdout, c, b, nb);
        return cli_done(c, SP_EXIT_OK);
    }
    if (rc) {
        fputs(usage, stderr);
        fprintf(stderr, "synprobe %s: %s\n", name, err);
        return cli_done(c, SP_EXIT_USAGE);
    }
    if (c->common.quiet && c->common.verbose) {
        fprintf(stderr, "synprobe %s: --quiet and --verbose exclude each other; give one\n", name);
        return cli_done(c, SP_EXIT_USAGE);
    }
    for (int i = 0; i < nb; i++)
        if (sp_opt_check_required(b[i].table, b[i].dst, err, sizeof err)) {
            fputs(usage, stderr);
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
