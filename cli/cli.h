/* cli/cli.h — the command line: one cmd_<name>.c per subcommand, on top of stages/.
 *
 * A command file does three things: declares its usage line and prose, parses its flags
 * through the option tables (its stage's, plus cli_common_options), calls the stage, and
 * prints the stage's result. It holds no algorithm, no SQL and no second copy of an option.
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
    const char *usage;             /* "usage: synprobe ingest --db DB [options] FILE|DIR|-...\n" + prose */
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
 * or the exit status to return now: 0 after --help (printed to stdout), 2 after a usage error
 * (printed with the usage line). Operands are refused unless operands_ok. Then every output
 * option (SP_OPTF_OUTPUT) is checked against the store ("db"), the other path options and the
 * operands, by identity (common/guard.h): a clash is a usage error (2) before anything runs,
 * and the guard stays installed for sp_out_open until cli_done. */
int cli_parse(struct cli *c, const char *name, const char *usage, const struct sp_optbind *b, int nb,
              int argc, char **argv, int operands_ok);

/* Help for the command: its usage text, then each table's options. */
void cli_help(FILE *f, const struct cli *c, const struct sp_optbind *b, int nb);

/* `synprobe help --man`: from now on --help writes the command's man page section (roff, from
 * the same option tables) instead of the text. A command with subcommands (tasks) answers
 * --help in this mode with each subcommand's section. */
void cli_help_as_man(int on);
int cli_help_is_man(void);

/* A command made of subcommands (tasks, weights): argv[1] names one, which runs with argv from it;
 * --help prints every subcommand's usage and the list (each one's man section under
 * `help --man`); no name or an unknown one prints the usages on stderr and is a usage error
 * naming the nearest subcommand. */
struct cli_sub { const char *name; sp_cmd_fn fn; const char *usage; };
int cli_subcommands(const char *cmd, const struct cli_sub *subs, size_t n, int argc, char **argv);

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
