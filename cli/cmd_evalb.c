/* cli/cmd_evalb.c — `synprobe evalb`: drop-in for the EVALB program (docs/spec/probing.md §4).
 *
 *   synprobe evalb [-p PARAM.prm] [-c N] [-e N] [-d|-D] [--json] GOLD TEST
 *
 * Text mode prints exactly what evalb prints (rows, totals row, "All" and "len<=N" blocks) and its
 * "LINE : ..." messages on stderr; exit 0, or 1 when the MAX_ERROR rule aborts (no summary). -c and
 * -e override the parameter file wherever they appear. --json prints the two summary blocks only.
 * Unlike evalb: malformed trees and parameter files stop with "FILE:LINE: ..." and exit 1. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "probes/evalb.h"

const struct cli_doc cmd_evalb_doc = {
    .name = "evalb",
    .purpose = "EVALB-compatible bracket scorer",
    .synopsis = "[options] GOLD TEST",
    .prose =
        "Scores gold line k against test line k, one tree per line. The single-dash flags of EVALB\n"
        "are taken too, each for its long name:\n"
        "  -p PARAM.prm  --param: the parameter file (DEBUG MAX_ERROR CUTOFF_LEN LABELED DELETE_LABEL\n"
        "                DELETE_LABEL_FOR_LENGTH QUOTE_LABEL EQ_LABEL EQ_WORD)\n"
        "  -c N          --cutoff-len: cut-off length of the second summary (overrides CUTOFF_LEN)\n"
        "  -e N          --max-error: abort after more than N errors (overrides MAX_ERROR)\n"
        "  -d, -D        --debug, --debug-2: per-sentence debug dump (DEBUG 1)\n"
        "--json prints {\"all\": {...}, \"le40\": {...}} instead of the table.\n",
};

struct evalb_opts {
    const char *param;
    long cutoff_len, max_error;     /* -1: as the parameter file says */
    int debug;                      /* 0: as the parameter file says */
    int json;                       /* --json, from cli_json_option */
};
static const struct sp_opt evalb_options[] = {
#define O(f) offsetof(struct evalb_opts, f)
    { "param", SP_OPT_PATH, O(param), .metavar = "PARAM.prm", .help = "parameter file (-p)" },
    { "cutoff-len", SP_OPT_INT, O(cutoff_len), "-1", .lo = 0, .hi = 2147483647L, .metavar = "N", .flags = SP_OPTF_NODEF,
      .help = "cut-off length of the second summary, over CUTOFF_LEN (-c)" },
    { "max-error", SP_OPT_INT, O(max_error), "-1", .lo = 0, .hi = 2147483647L, .metavar = "N", .flags = SP_OPTF_NODEF,
      .help = "abort after more than N errors, over MAX_ERROR (-e)" },
    { "debug", SP_OPT_FLAG, O(debug), .flag_value = 1, .help = "per-sentence debug dump, DEBUG 1 (-d)" },
    { "debug-2", SP_OPT_FLAG, O(debug), .flag_value = 2, .help = "DEBUG 2 (-D; dumps as DEBUG 1)" },
#undef O
    { 0 },
};

/* EVALB's own flags are single-dash with the value attached or not (-p FILE, -pFILE, -c 40,
 * -d), which the option layer (--name value) does not read: this turns exactly those into
 * their long names, and leaves every other argument to cli_parse. words has argc + 1 room. */
static int evalb_words(int argc, char **argv, char **words)
{
    static const struct { char flag; const char *name; int value; } map[] = {
        { 'p', "--param", 1 }, { 'c', "--cutoff-len", 1 }, { 'e', "--max-error", 1 },
        { 'd', "--debug", 0 }, { 'D', "--debug-2", 0 },
    };
    int n = 0, operands_only = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        int k = -1;
        if (!operands_only && a[0] == '-' && a[1] && a[1] != '-')
            for (int m = 0; m < 5 && k < 0; m++) k = map[m].flag == a[1] && (a[2] == 0 || map[m].value) ? m : -1;
        if (!strcmp(a, "--")) operands_only = 1;
        if (k < 0) { words[n++] = argv[i]; continue; }
        words[n++] = (char *)map[k].name;
        if (map[k].value && a[2]) words[n++] = (char *)a + 2;
    }
    words[n] = NULL;
    return n;
}

/* The value as EVALB prints it with %6.2f (so JSON and text agree); NaN becomes null. */
static json_t *pct(double v)
{
    if (isnan(v) || isinf(v)) return json_null();
    char buf[64];
    snprintf(buf, sizeof buf, "%.2f", v);
    return json_real(strtod(buf, NULL));
}

static json_t *block_json(const struct prb_evalb_totals *t)
{
    struct prb_evalb_summary s;
    prb_evalb_summarize(t, &s);
    json_t *o = json_object();
    json_object_set_new(o, "n_sentences", json_integer(s.n_sentences));
    json_object_set_new(o, "n_error", json_integer(s.n_error));
    json_object_set_new(o, "n_skip", json_integer(s.n_skip));
    json_object_set_new(o, "n_valid", json_integer(s.n_valid));
    json_object_set_new(o, "recall", pct(s.recall));
    json_object_set_new(o, "precision", pct(s.precision));
    json_object_set_new(o, "fmeasure", pct(s.fmeasure));
    json_object_set_new(o, "complete_match", pct(s.complete_match));
    json_object_set_new(o, "avg_crossing", pct(s.avg_crossing));
    json_object_set_new(o, "no_crossing", pct(s.no_crossing));
    json_object_set_new(o, "le2_crossing", pct(s.le2_crossing));
    json_object_set_new(o, "tagging_accuracy", pct(s.tagging_accuracy));
    return o;
}

/* Score test against gold as EVALB does (probes/evalb.c); the exit status. */
static int run_evalb(const struct evalb_opts *f, const char *gold, const char *test)
{
    struct prb_evalb_params p;
    prb_evalb_params_init(&p);
    char err[SP_ERRLEN];
    if (f->param && prb_evalb_params_load(&p, f->param, stderr, err, sizeof err) != SP_OK) {
        prb_evalb_params_free(&p);
        return cli_fail(SP_EXIT_INPUT, "evalb", "%s", err);
    }
    if (f->cutoff_len >= 0) p.cutoff_len = f->cutoff_len;
    if (f->max_error >= 0) p.max_error = f->max_error;
    if (f->debug) p.debug = f->debug;

    struct prb_evalb_acc acc;
    struct prb_evalb_run_opts o = { f->json ? NULL : stdout, stderr };
    int aborted = 0;
    enum sp_err rc = prb_evalb_run(&p, gold, test, &o, &acc, &aborted, err, sizeof err);
    prb_evalb_params_free(&p);
    if (rc != SP_OK) {
        fflush(stdout);
        return cli_fail(SP_EXIT_INPUT, "evalb", "%s", err);
    }
    if (aborted) return SP_EXIT_INPUT;          /* evalb: exit(1) and no summary */
    if (f->json) {
        json_t *root = json_object();
        json_object_set_new(root, "all", block_json(&acc.all));
        json_object_set_new(root, "le40", block_json(&acc.cut));
        json_object_set_new(root, "cutoff_len", json_integer(acc.cutoff_len));
        char *s = json_dumps(root, JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15));
        json_decref(root);
        if (!s) return cli_fail(SP_EXIT_INPUT, "evalb", "cannot encode JSON");
        puts(s);
        free(s);
    } else {
        prb_evalb_print_total(stdout, &acc);
    }
    if (fflush(stdout) != 0) return cli_fail(SP_EXIT_INPUT, "evalb", "write error on stdout");
    return SP_EXIT_OK;
}

int cmd_evalb(int argc, char **argv)
{
    char **words = sp_xmalloc(sizeof *words * (size_t)(2 * argc + 1));   /* -pFILE becomes two words */
    struct evalb_opts f = { 0 };
    struct cli c;
    const struct sp_optbind b[] = { { evalb_options, &f }, { cli_json_option, &c.common } };
    int rc = cli_parse(&c, &cmd_evalb_doc, b, 2, evalb_words(argc, argv, words), words, 1);
    f.json = c.common.json;
    if (rc < 0 && c.operands.n != 2) {
        cli_usage(stderr, &c);
        rc = c.operands.n < 2 ? cli_fail(SP_EXIT_USAGE, "evalb", "expected GOLD and TEST files")
                              : cli_fail(SP_EXIT_USAGE, "evalb", "unexpected argument '%s'", c.operands.v[2]);
        rc = cli_done(&c, rc);
    }
    if (rc >= 0) { free(words); return rc; }
    rc = run_evalb(&f, c.operands.v[0], c.operands.v[1]);
    free(words);
    return cli_done(&c, rc);
}
