/* cli/main.c — the synprobe binary: subcommand dispatch, --help and --version. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "store/store.h"
#include "stages/manifest.h"

/* The commands in the order `synprobe --help` lists them; each one's name, purpose, synopsis and
 * prose are its cli_doc, declared next to it (cli/cmd_<name>.c). */
static const struct command {
    sp_cmd_fn fn;
    const struct cli_doc *doc;
} commands[] = {
    { cmd_demo, &cmd_demo_doc },   { cmd_ingest, &cmd_ingest_doc },   { cmd_export, &cmd_export_doc },
    { cmd_info, &cmd_info_doc },   { cmd_tasks, &cmd_tasks_doc },     { cmd_encode, &cmd_encode_doc },
    { cmd_weights, &cmd_weights_doc }, { cmd_probe, &cmd_probe_doc }, { cmd_trees, &cmd_trees_doc },
    { cmd_evalb, &cmd_evalb_doc }, { cmd_structprobe, &cmd_structprobe_doc }, { cmd_tokprobe, &cmd_tokprobe_doc },
    { cmd_mdl, &cmd_mdl_doc },     { cmd_erase, &cmd_erase_doc },
    { cmd_run, &cmd_run_doc },     { cmd_report, &cmd_report_doc },   { cmd_daemon, &cmd_daemon_doc },
    { cmd_submit, &cmd_submit_doc }, { cmd_status, &cmd_status_doc }, { cmd_cancel, &cmd_cancel_doc },
    { cmd_logs, &cmd_logs_doc },   { cmd_merge, &cmd_merge_doc },     { cmd_slurm, &cmd_slurm_doc },
};
#define N_COMMANDS (sizeof commands / sizeof commands[0])

/* Each command's --help in form (its section of the page), on stdout. */
static int sections(enum cli_help_form form, const char *what)
{
    fflush(stdout);
    cli_help_form(form, stdout);
    for (size_t i = 0; i < N_COMMANDS; i++) {
        char *av[] = { (char *)commands[i].doc->name, "--help", NULL };
        int rc = commands[i].fn(2, av);
        fflush(stdout);
        if (rc != SP_EXIT_OK) {
            fprintf(stderr, "synprobe help %s: '%s --help' failed (exit %d)\n", what, commands[i].doc->name, rc);
            return SP_EXIT_INPUT;
        }
    }
    cli_help_form(CLI_HELP_TEXT, NULL);
    return SP_EXIT_OK;
}

/* `synprobe help --man`: the man page, in roff, on stdout. Each command's section is its --help
 * written from its doc and option tables (CLI_HELP_MAN), so the page lists what the binary takes;
 * `make docs` writes it to docs/synprobe.1, `make man` to build/man/synprobe.1. */
static int man_page(void)
{
    printf(".TH SYNPROBE 1 \"\" \"synprobe %s\" \"User Commands\"\n", SP_VERSION);
    puts(".SH NAME\nsynprobe \\- probe how much syntax sentence encoders capture\n"
         ".SH SYNOPSIS\n.B synprobe\n\\fICOMMAND\\fR [\\fIoptions\\fR] [\\fIARGUMENTS\\fR]\n.br\n"
         ".B synprobe\n\\fICOMMAND\\fR \\fB\\-\\-help\\fR\n.br\n.B synprobe \\-\\-version\n"
         ".SH DESCRIPTION\n"
         "synprobe ingests treebanks (CoNLL\\-U, Penn Treebank, 3\\-column dependencies) into a SQLite store with "
         "cached tree structures, runs sentence encoders over them (CPU, or CUDA through a plugin), trains "
         "SentEval\\-style probing classifiers and structural probes, extracts trees from attention and writes "
         "reports. A job file runs a whole experiment (\\fBsynprobe run\\fR).\n"
         ".SH COMMANDS");
    for (size_t i = 0; i < N_COMMANDS; i++) {
        printf(".TP\n.B %s\n", commands[i].doc->name);
        sp_roff_text(stdout, commands[i].doc->purpose, strlen(commands[i].doc->purpose));
        putchar('\n');
    }
    puts(".SH OPTIONS\nEvery command takes \\fB\\-\\-help\\fR, \\fB\\-\\-quiet\\fR and \\fB\\-\\-verbose\\fR. "
         "A job file's keys are the same names without the dashes.");
    if (sections(CLI_HELP_MAN, "--man")) return SP_EXIT_INPUT;
    puts(".SH EXIT STATUS\n"
         "0 success; 1 bad input or a failed step (the message names the file and line or the JSON path); "
         "2 usage error; 130 or 143 stopped by SIGINT or SIGTERM at a safe point (run the command again to resume).\n"
         ".SH ENVIRONMENT\n"
         ".TP\n.B SYNPROBE_CUDA_PLUGIN\n"
         "the CUDA plugin to load instead of the first \\fIsynprobe_cuda.so\\fR found next to the executable, "
         "one folder up, in \\fI../lib/synprobe\\fR from the executable's folder, or in the folder compiled in "
         "by \\fBmake install\\fR.\n"
         ".TP\n.B SP_GEMM_KERNEL\n"
         "avx512, avx2 or c: forces the CPU encoder's matrix kernel (picked from the CPU otherwise); "
         "the vectors are the same bytes whichever runs.\n"
         ".SH FILES\n"
         ".TP\n.I PREFIX/lib/synprobe/synprobe_cuda.so\n"
         "the CUDA backend, loaded on the first \\fB\\-\\-device cuda\\fR or \\fBauto\\fR encode.\n"
         ".TP\n.I PREFIX/lib/synprobe/synprobe_sql.so\n"
         "a SQLite extension over the store's structure BLOBs: \\fBsqlite3 STORE \\(aq.load "
         "PREFIX/lib/synprobe/synprobe_sql\\(aq\\fR.\n"
         ".TP\n.I PREFIX/share/synprobe/schemas\n"
         "the job file and encoder configuration JSON schemas, the store's SQL schema and migrations.\n"
         ".TP\n.I PREFIX/share/synprobe/examples\n"
         "encoder configurations and a job file.\n"
         ".TP\n.I /etc/synprobe/jobs/NAME.json\n"
         "the job file \\fBsynprobe\\-run@NAME.timer\\fR runs nightly (\\fBsynprobe\\-run@.service\\fR).\n"
         ".SH SEE ALSO\n"
         ".BR sqlite3 (1),\n.BR systemd.timer (5),\n.BR crontab (5),\n.BR sbatch (1)");
    return SP_EXIT_OK;
}

/* `synprobe help --markdown`: docs/commands.md, every command's synopsis, prose and options (`make
 * docs` writes it; `make check-docs` fails when the committed file differs). */
static int markdown_page(void)
{
    puts("<!-- Written by `make docs` (synprobe help --markdown) from each command's cli_doc and option\n"
         "     tables in cli/ and stages/: edit those, then run `make docs`; do not edit this file. -->\n"
         "# synprobe commands\n\n"
         "`synprobe COMMAND [options] [ARGUMENTS]`. Every command also takes `--help` (this text),\n"
         "`--quiet` (errors and warnings only) and `--verbose` (each step, its choices and timings). A job\n"
         "file's keys are the option names without the dashes. Exit status: 0 success; 1 bad input or a\n"
         "failed step; 2 usage error; 130 or 143 stopped by SIGINT or SIGTERM (run it again to resume).\n\n"
         "| command | what it does |\n| --- | --- |");
    for (size_t i = 0; i < N_COMMANDS; i++) {
        const struct cli_doc *d = commands[i].doc;
        size_t n = d->subs ? d->n_subs : 1;
        for (size_t k = 0; k < n; k++) {
            const struct cli_doc *s = d->subs ? d->subs[k].doc : d;
            char anchor[64];
            snprintf(anchor, sizeof anchor, "synprobe-%s", s->name);
            for (char *p = anchor; *p; p++)
                if (*p == ' ') *p = '-';
            printf("| [`%s`](#%s) | %s |\n", s->name, anchor, s->purpose);
        }
    }
    putchar('\n');
    return sections(CLI_HELP_MARKDOWN, "--markdown");
}

static void usage(FILE *f)
{
    fprintf(f, "usage: synprobe <command> [options]   (synprobe <command> --help for details)\n\ncommands:\n");
    for (size_t i = 0; i < N_COMMANDS; i++)
        fprintf(f, "  %-12s %s\n", commands[i].doc->name, commands[i].doc->purpose);
}

int main(int argc, char **argv)
{
    st_library_init();
    if (argc < 2) { usage(stderr); return SP_EXIT_USAGE; }
    if (!strcmp(argv[1], "help") && argc == 3 && !strcmp(argv[2], "--man")) return man_page();
    if (!strcmp(argv[1], "help") && argc == 3 && !strcmp(argv[2], "--markdown")) return markdown_page();
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return SP_EXIT_OK;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("synprobe %s (%s)\n", SP_VERSION, stg_build_info());
        return SP_EXIT_OK;
    }
    for (size_t i = 0; i < N_COMMANDS; i++) {
        if (strcmp(argv[1], commands[i].doc->name)) continue;
        return commands[i].fn(argc - 1, argv + 1);
    }
    const char *names[N_COMMANDS];
    for (size_t i = 0; i < N_COMMANDS; i++) names[i] = commands[i].doc->name;
    char sugg[256];
    sp_suggest(sugg, sizeof sugg, argv[1], names, N_COMMANDS);
    fprintf(stderr, "synprobe: unknown command '%s'%s%s\n", argv[1], sugg[0] ? "; " : "", sugg);
    usage(stderr);
    return SP_EXIT_USAGE;
}
