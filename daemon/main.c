/* daemon/main.c — the synprobe binary: subcommand dispatch, --help and --version. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sqlite3.h>
#include <string.h>

#include "daemon/cli.h"

/* Commands not yet linked in resolve to NULL (weak), so the table can name them all. */
#pragma weak cmd_demo
#pragma weak cmd_ingest
#pragma weak cmd_export
#pragma weak cmd_tasks
#pragma weak cmd_encode
#pragma weak cmd_probe
#pragma weak cmd_trees
#pragma weak cmd_evalb
#pragma weak cmd_structprobe
#pragma weak cmd_report
#pragma weak cmd_info

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
    { "report",      cmd_report,      "probing results as JSON or CSV" },
};
#define N_COMMANDS (sizeof commands / sizeof commands[0])

int sp_fail(int code, const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "synprobe %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return code;
}

int sp_parse_int(const char *s, long lo, long hi, long *out)
{
    char *end;
    /* digits only (an optional '-'): strtol alone would skip blanks, take '+', and clamp a
     * value beyond 64 bits to LONG_MAX with only errno saying so */
    if (!s || !(isdigit((unsigned char)s[0]) || (s[0] == '-' && isdigit((unsigned char)s[1])))) return -1;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno == ERANGE || *end || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

int sp_parse_size(const char *s, uint64_t min, uint64_t *out)
{
    if (!s || !isdigit((unsigned char)s[0])) return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno == ERANGE) return -1;
    int shift = !*end ? 0 : !strcmp(end, "K") ? 10 : !strcmp(end, "M") ? 20 : !strcmp(end, "G") ? 30
              : !strcmp(end, "T") ? 40 : -1;
    if (shift < 0 || v > (UINT64_MAX >> shift)) return -1;
    v <<= shift;
    if (v < min) return -1;
    *out = v;
    return 0;
}

int sp_collect_paths(int argc, char **argv, int *i, const char ***paths, int *n_paths)
{
    int start = *i + 1, end = start;
    while (end < argc && strncmp(argv[end], "--", 2) != 0) end++;
    if (end == start) return -1;
    *paths = (const char **)(argv + start);
    *n_paths = end - start;
    *i = end - 1;
    return 0;
}

const char *sp_build_info(void)
{
#ifdef SP_HAVE_CUDA
    return "CUDA yes (cuBLAS), BLAS openblas";
#else
    return "CUDA no, BLAS openblas";
#endif
}

static void usage(FILE *f)
{
    fprintf(f, "usage: synprobe <command> [options]   (synprobe <command> --help for details)\n\ncommands:\n");
    for (size_t i = 0; i < N_COMMANDS; i++)
        if (commands[i].fn) fprintf(f, "  %-12s %s\n", commands[i].name, commands[i].summary);
}

int main(int argc, char **argv)
{
    /* SQLite's malloc statistics take a global mutex on every allocation; we never read them */
    sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
    if (argc < 2) { usage(stderr); return SP_EXIT_USAGE; }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return SP_EXIT_OK;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("synprobe %s (%s)\n", SP_VERSION, sp_build_info());
        return SP_EXIT_OK;
    }
    for (size_t i = 0; i < N_COMMANDS; i++) {
        if (strcmp(argv[1], commands[i].name)) continue;
        if (!commands[i].fn)
            return sp_fail(SP_EXIT_USAGE, argv[1], "not available in this build");
        return commands[i].fn(argc - 1, argv + 1);
    }
    fprintf(stderr, "synprobe: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return SP_EXIT_USAGE;
}
