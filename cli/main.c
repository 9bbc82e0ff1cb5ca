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
    { "probe",       cmd_probe,       "train SentEval-style probing classifiers" },
    { "trees",       cmd_trees,       "extract constituency trees from attention and score them" },
    { "evalb",       cmd_evalb,       "EVALB-compatible bracket scorer" },
    { "structprobe", cmd_structprobe, "structural-probe metrics (UUAS, DSpr, root accuracy, NSpr)" },
    { "run",         cmd_run,         "run a job file: the whole pipeline of an experiment, resumable" },
    { "report",      cmd_report,      "probing results as JSON or CSV" },
    { "merge",       cmd_merge,       "combine the shard stores of `run --shard K/N` into one store" },
    { "slurm",       cmd_slurm,       "write sbatch scripts that run a job as shards on a Slurm cluster" },
};
#define N_COMMANDS (sizeof commands / sizeof commands[0])

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
