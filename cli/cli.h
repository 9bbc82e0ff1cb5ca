/* cli/cli.h — the command line: one cmd_<name>.c per subcommand, on top of stages/.
 *
 * A command file does three things: declares what it is (a struct cli_doc: its purpose, the shape
 * of its command line, its prose), parses its flags through the option tables (its stage's, plus
 * cli_common_options), calls the stage, and prints the stage's result. It holds no algorithm, no
 * SQL and no second copy of an option: its synopsis, --help, the man page (docs/synprobe.1) and
 * docs/commands.md are written from the doc and the tables (`make docs`; `make check-docs` fails
 * when the committed files differ).
 * Each returns the process exit status: 0 success, 1 bad input or failure (the message names
 * file, line and problem), 2 usage error, 130/143 stopped by SIGINT/SIGTERM. */
#ifndef SP_CLI_H
#define SP_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "common/guard.h"
#include "common/log.h"
#include "common/opt.h"
#include "stages/stage.h"

#define SP_EXIT_OK 0
#define SP_EXIT_INPUT 1
#define SP_EXIT_USAGE 2

typedef int (*sp_cmd_fn)(int argc, char **argv);

/* What a command is, declared once next to it (cmd_<name>.c); main.c's table of commands lists
 * them. The synopsis is written from `synopsis`, a shape that names options without their values:
 *   --name      an option of the command's tables, shown as its --help shows it ("--rank K",
 *               "--format auto|conllu|ptb|dep", "--mrg FILE|DIR..."); the name must be one of
 *               the tables' (--help fails, exit 1, naming it, when it is not)
 *   [ ] ( ) |   optional, a group, alternatives (a '|' between blanks; "FILE|DIR" is one word)
 *   [options]   every option of the tables the shape does not name, in table order, each as
 *               "[--name VALUE]" ("--name VALUE" when the table marks it required); a shape
 *               without it gets them at the end of its first form
 *   WORD        anything else: an operand, as typed ("JOB.json", "FILE|DIR|-...")
 *   ;           separates the forms of a command with several ("usage:", then "   or:")
 * --quiet, --verbose and --help are left to the list of options. An option marked required may
 * not stand inside [ ]. */
struct cli_sub;
struct cli_doc {
    const char *name;                /* "ingest", "tasks build" */
    const char *purpose;             /* one line, lower case, no period: synprobe --help, the man page */
    const char *synopsis;            /* the shape above; NULL for a command made of subcommands */
    const char *prose;               /* the rest of --help: paragraphs; indented lines kept as typed */
    const struct cli_sub *subs;      /* a command made of subcommands (tasks, weights): each one's doc */
    size_t n_subs;
};

/* A subcommand: its function (called with argv from the subcommand's name) and its doc. */
struct cli_sub { sp_cmd_fn fn; const struct cli_doc *doc; };

extern const struct cli_doc cmd_demo_doc, cmd_ingest_doc, cmd_export_doc, cmd_info_doc, cmd_tasks_doc, cmd_encode_doc,
    cmd_weights_doc, cmd_probe_doc, cmd_trees_doc, cmd_evalb_doc, cmd_structprobe_doc, cmd_tokprobe_doc, cmd_mdl_doc, cmd_erase_doc, cmd_run_doc,
    cmd_report_doc, cmd_daemon_doc, cmd_submit_doc, cmd_status_doc, cmd_cancel_doc, cmd_logs_doc, cmd_merge_doc,
    cmd_slurm_doc;

int cmd_demo(int argc, char **argv);
int cmd_ingest(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_tasks(int argc, char **argv);
int cmd_encode(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_trees(int argc, char **argv);
int cmd_evalb(int argc, char **argv);
int cmd_structprobe(int argc, char **argv);
int cmd_tokprobe(int argc, char **argv);
int cmd_mdl(int argc, char **argv);
int cmd_erase(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_daemon(int argc, char **argv);
int cmd_submit(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_cancel(int argc, char **argv);
int cmd_logs(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_slurm(int argc, char **argv);
int cmd_weights(int argc, char **argv);

/* The flags every command takes. */
struct cli_common { int quiet, verbose, help, json; };
extern const struct sp_opt cli_common_options[];
/* --json, for the commands that print their result as JSON on stdout (bound to cli.common) */
extern const struct sp_opt cli_json_option[];

/* One command invocation: its name, parsed flags, the logger and progress line it hands its
 * stage, and the stop flag SIGINT/SIGTERM set. */
struct cli {
    const char *name;              /* "ingest" */
    const struct cli_doc *doc;     /* its synopsis and prose */
    const struct sp_optbind *binds; /* its tables, for the synopsis of a usage error */
    int nbinds;
    struct cli_common common;
    struct sp_strlist operands;    /* arguments that are not options */
    struct sp_strlist command;     /* "synprobe", argv...: what the manifest records */
    struct sp_arena arena;         /* option values live here */
    struct sp_logger log;          /* stderr: "synprobe <cmd>: " before errors and warnings */
    struct stg_ctx ctx;            /* handed to the stage: log, stop flag, progress line */
    int tty;                       /* stderr is a terminal: draw the progress line */
    double progress_t0, progress_last;
    int progress_shown;
    struct sp_guard guard;         /* the store and the inputs: no output may be one (installed for sp_out_open) */
};

/* Parse argv against the command's tables (cli_common_options is added). Returns -1 to go on,
 * or the exit status to return now: 0 after --help (printed to stdout, or as cli_help_form says;
 * 1 when the doc's synopsis names no option of the tables), 2 after a usage error (printed after
 * the synopsis). Operands are refused unless operands_ok. Then every output option
 * (SP_OPTF_OUTPUT) is checked against the store ("db"), the other path options and the operands,
 * by identity (common/guard.h): a clash is a usage error (2) before anything runs, and the guard
 * stays installed for sp_out_open until cli_done. b must outlive c. */
int cli_parse(struct cli *c, const struct cli_doc *doc, const struct sp_optbind *b, int nb, int argc, char **argv,
              int operands_ok);

/* The synopsis ("usage: synprobe NAME ...", one line a form, wrapped at 100 columns), to f: what
 * a command prints before a usage error of its own. */
void cli_usage(FILE *f, const struct cli *c);

/* Help for the command: the synopsis, its purpose, its prose, then each table's options. 0, or -1
 * (the problem on stderr) when the doc's synopsis names an option none of b's tables has. */
int cli_help(FILE *f, const struct cli *c, const struct sp_optbind *b, int nb);

/* What --help writes from now on, and where (NULL: stdout): the text, the synopsis alone
 * (`tasks --help` lists its subcommands' so), the command's man page section (roff; `synprobe
 * help --man`) or its section of docs/commands.md (`synprobe help --markdown`). A command made
 * of subcommands answers --help in the last two with each subcommand's section. */
enum cli_help_form { CLI_HELP_TEXT, CLI_HELP_USAGE, CLI_HELP_MAN, CLI_HELP_MARKDOWN };
void cli_help_form(enum cli_help_form form, FILE *f);

/* A command made of subcommands (tasks, weights; doc->subs): argv[1] names one, which runs with
 * argv from it; --help prints every subcommand's synopsis and the list; no name or an unknown one
 * prints the synopses on stderr and is a usage error naming the nearest subcommand. */
int cli_subcommands(const struct cli_doc *doc, int argc, char **argv);

/* Release what cli_parse allocated; returns rc. */
int cli_done(struct cli *c, int rc);

/* The exit status for a stage's return code (printing ctx.err for a failure):
 * SP_OK 0, SP_EUSAGE 2, SP_ESTOPPED 130 or 143 (the signal), anything else 1. */
int cli_finish_stage(struct cli *c, int sp_rc);

/* The exit status for a stage's return code, printing nothing (the demo reports it). */
int cli_exit_status(int sp_rc);

/* Print "synprobe <cmd>: <message>" to stderr; returns code (for `return cli_fail(...)`). */
int cli_fail(int code, const char *cmd, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* A result as JSON on stdout (json_dumps flags), after clearing the progress line. */
void cli_print_json(struct cli *c, const struct json_t *j, size_t flags);

/* Clear the progress line (before printing a result). */
void cli_progress_clear(struct cli *c);

#endif
