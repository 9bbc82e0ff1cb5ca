/* cli/main.c — the synprobe binary: subcommand dispatch, --help and --version. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "store/store.h"
#include "stages/manifest.h"

static const struct command {
    const char *name;
    sp_cmd_fn fn;
    const char *summary;
} commands[] = {
    { "demo",        cmd_demo,        "run the pipeline on the embedded demo corpus" },
    { "ingest",      cmd_ingest,      "parse treebanks (.conllu .mrg .dp) into a store, with cached structures" },
    { "export",      cmd_export,      "write sentences, structures, CoNLL-U or vectors out of a store" },
    { "info",        cmd_info,        "summarise what a store holds" },
    { "tasks",       cmd_tasks,       "build, import and export probing tasks" },
    { "encode",      cmd_encode,      "run an encoder over a corpus or task, caching vectors" },
    { "weights",     cmd_weights,     "check a safetensors file against an encoder config; list the tensors it reads" },
    { "probe",       cmd_probe,       "train SentEval-style probing classifiers" },
    { "trees",       cmd_trees,       "extract constituency trees from attention and score them" },
    { "evalb",       cmd_evalb,       "EVALB-compatible bracket scorer" },
    { "structprobe", cmd_structprobe, "structural-probe metrics (UUAS, DSpr, root accuracy, NSpr)" },
    { "tokprobe", cmd_tokprobe, "word-level probes (UPOS, dependency relation) with control tasks" },
    { "erase", cmd_erase, "erase a word property from a run (LEACE, INLP) and probe what is left" },
    { "run",         cmd_run,         "run a job file: the whole pipeline of an experiment, resumable" },
    { "report",      cmd_report,      "probing results as JSON or CSV" },
    { "daemon",      cmd_daemon,      "serve a store's job queue (submit, status, cancel, logs)" },
    { "submit",      cmd_submit,      "add a job file to a store's queue; prints the job id" },
    { "status",      cmd_status,      "the queue's jobs: state, step, progress, times, errors" },
    { "cancel",      cmd_cancel,      "cancel a queued or running job" },
    { "logs",        cmd_logs,        "print a queued job's log" },
    { "merge",       cmd_merge,       "combine the shard stores of `run --shard K/N` into one store" },
    { "slurm",       cmd_slurm,       "write sbatch scripts that run a job as shards on a Slurm cluster" },
};
#define N_COMMANDS (sizeof commands / sizeof commands[0])

/* `synprobe help --man`: the man page, in roff, on stdout. Each command's section is its --help
 * written from the same option tables (cli_help_as_man), so the page lists what the binary
 * takes; `make man` writes it to build/man/synprobe.1. */
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
        printf(".TP\n.B %s\n", commands[i].name);
        sp_roff_text(stdout, commands[i].summary, strlen(commands[i].summary));
        putchar('\n');
    }
    puts(".SH OPTIONS\nEvery command takes \\fB\\-\\-help\\fR, \\fB\\-\\-quiet\\fR and \\fB\\-\\-verbose\\fR. "
         "A job file's keys are the same names without the dashes.");
    fflush(stdout);
    cli_help_as_man(1);
    for (size_t i = 0; i < N_COMMANDS; i++) {
        char *av[] = { (char *)commands[i].name, "--help", NULL };
        int rc = commands[i].fn(2, av);
        fflush(stdout);
        if (rc != SP_EXIT_OK) {
            fprintf(stderr, "synprobe help --man: '%s --help' failed (exit %d)\n", commands[i].name, rc);
            return SP_EXIT_INPUT;
        }
    }
    cli_help_as_man(0);
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

static void usage(FILE *f)
{
    fprintf(f, "usage: synprobe <command> [options]   (synprobe <command> --help for details)\n\ncommands:\n");
    for (size_t i = 0; i < N_COMMANDS; i++)
        fprintf(f, "  %-12s %s\n", commands[i].name, commands[i].summary);
}

int main(int argc, char **argv)
{
    st_library_init();
    if (argc < 2) { usage(stderr); return SP_EXIT_USAGE; }
    if (!strcmp(argv[1], "help") && argc == 3 && !strcmp(argv[2], "--man")) return man_page();
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return SP_EXIT_OK;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("synprobe %s (%s)\n", SP_VERSION, stg_build_info());
        return SP_EXIT_OK;
    }
    for (size_t i = 0; i < N_COMMANDS; i++) {
        if (strcmp(argv[1], commands[i].name)) continue;
        return commands[i].fn(argc - 1, argv + 1);
    }
    const char *names[N_COMMANDS];
    for (size_t i = 0; i < N_COMMANDS; i++) names[i] = commands[i].name;
    char sugg[256];
    sp_suggest(sugg, sizeof sugg, argv[1], names, N_COMMANDS);
    fprintf(stderr, "synprobe: unknown command '%s'%s%s\n", argv[1], sugg[0] ? "; " : "", sugg);
    usage(stderr);
    return SP_EXIT_USAGE;
}
