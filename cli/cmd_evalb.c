/* cli/cmd_evalb.c — `synprobe evalb`: drop-in for the EVALB program (SPEC-probing §4).
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

static void usage(FILE *f)
{
    fputs("usage: synprobe evalb [-p PARAM.prm] [-c N] [-e N] [-d|-D] [--json] GOLD TEST\n"
          "  EVALB-compatible bracket scoring: gold line k against test line k, one tree per line.\n"
          "  -p PARAM.prm  parameter file (DEBUG MAX_ERROR CUTOFF_LEN LABELED DELETE_LABEL\n"
          "                DELETE_LABEL_FOR_LENGTH QUOTE_LABEL EQ_LABEL EQ_WORD)\n"
          "  -c N          cut-off length of the second summary (overrides CUTOFF_LEN)\n"
          "  -e N          abort after more than N errors (overrides MAX_ERROR)\n"
          "  -d, -D        per-sentence debug dump (DEBUG 1)\n"
          "  --json        print {\"all\": {...}, \"le40\": {...}} instead of the table\n", f);
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

int cmd_evalb(int argc, char **argv)
{
    const char *prm = NULL, *gold = NULL, *test = NULL;
    const char *opt_c = NULL, *opt_e = NULL;
    int json = 0, debug = -1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--json")) { json = 1; continue; }
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(stdout); return SP_EXIT_OK; }
        if (!strcmp(a, "-d")) { debug = 1; continue; }
        if (!strcmp(a, "-D")) { debug = 2; continue; }
        if (a[0] == '-' && a[1] && strchr("pce", a[1]) && (!a[2] || a[1] != '-')) {
            const char *v = a[2] ? a + 2 : (i + 1 < argc ? argv[++i] : NULL);
            if (!v) {
                usage(stderr);
                return cli_fail(SP_EXIT_USAGE, "evalb", "option -%c expects a value", a[1]);
            }
            if (a[1] == 'p') prm = v; else if (a[1] == 'c') opt_c = v; else opt_e = v;
            continue;
        }
        if (a[0] == '-' && a[1]) {
            usage(stderr);
            return cli_fail(SP_EXIT_USAGE, "evalb", "unknown option '%s'", a);
        }
        if (!gold) gold = a;
        else if (!test) test = a;
        else { usage(stderr); return cli_fail(SP_EXIT_USAGE, "evalb", "unexpected argument '%s'", a); }
    }
    if (!gold || !test) {
        usage(stderr);
        return cli_fail(SP_EXIT_USAGE, "evalb", "expected GOLD and TEST files");
    }
    long c = -1, e = -1;
    if (opt_c && sp_parse_int(opt_c, 0, 2147483647L, &c))
        return cli_fail(SP_EXIT_USAGE, "evalb", "-c expects a non-negative integer, got '%s'", opt_c);
    if (opt_e && sp_parse_int(opt_e, 0, 2147483647L, &e))
        return cli_fail(SP_EXIT_USAGE, "evalb", "-e expects a non-negative integer, got '%s'", opt_e);

    struct prb_evalb_params p;
    prb_evalb_params_init(&p);
    char err[SP_ERRLEN];
    if (prm && prb_evalb_params_load(&p, prm, stderr, err, sizeof err) != SP_OK) {
        prb_evalb_params_free(&p);
        return cli_fail(SP_EXIT_INPUT, "evalb", "%s", err);
    }
    if (c >= 0) p.cutoff_len = c;
    if (e >= 0) p.max_error = e;
    if (debug >= 0) p.debug = debug;

    struct prb_evalb_acc acc;
    struct prb_evalb_run_opts o = { json ? NULL : stdout, stderr };
    int aborted = 0;
    enum sp_err rc = prb_evalb_run(&p, gold, test, &o, &acc, &aborted, err, sizeof err);
    prb_evalb_params_free(&p);
    if (rc != SP_OK) {
        fflush(stdout);
        return cli_fail(SP_EXIT_INPUT, "evalb", "%s", err);
    }
    if (aborted) return SP_EXIT_INPUT;          /* evalb: exit(1) and no summary */
    if (json) {
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
