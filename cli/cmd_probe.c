/* cli/cmd_probe.c — synprobe probe: SentEval probing classifiers on a task + vectors (stages/probe). */
#include <jansson.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "stages/probe.h"

static const char usage[] =
    "usage: synprobe probe (--task-file TASK.txt [--save DB] | --db DB --task NAME[,NAME...] [--no-save])\n"
    "                      (--vectors X.npy | --run R) [options]\n"
    "\n"
    "Train SentEval probing classifiers (SPEC-probing §1) and report dev/test accuracy.\n"
    "Several stored tasks (--task A,B) are probed in turn with the same vectors or run, which must\n"
    "align with each of them.\n"
    "\n"
    "Every result includes the majority-class baseline, the control task (labels shuffled within\n"
    "each partition, seed recorded) with selectivity = test - control test, per-class precision /\n"
    "recall / F1 and the confusion matrix (test partition; dev if there is no test partition).\n"
    "Stored results (one probe_result row per task x classifier x seed, all in one transaction at the\n"
    "end) carry the printed JSON plus \"manifest\": options, protocol knobs, data sha256 (float32 X,\n"
    "labels, splits), task and vector sources, versions, timestamp. See `synprobe report`.\n"
    "Exit status: 0 ok, 1 bad input, 2 usage.\n";

static void print_result(const struct stg_probe_result *r, int json)
{
    if (!json) {
        for (int i = 0; i < r->n; i++) {
            if (i) fputc('\n', stdout);
            fputs(r->runs[i].text, stdout);
        }
        return;
    }
    json_t *all = r->n == 1 ? json_incref(r->runs[0].json) : json_array();
    for (int i = 0; r->n > 1 && i < r->n; i++) json_array_append(all, r->runs[i].json);
    char *s = json_dumps(all, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
    if (s) { fputs(s, stdout); fputc('\n', stdout); free(s); }
    json_decref(all);
}

int cmd_probe(int argc, char **argv)
{
    struct stg_probe_opts o = { 0 };
    struct cli c;
    const struct sp_optbind b[] = { { stg_probe_options, &o }, { cli_json_option, &c.common } };
    int rc = cli_parse(&c, "probe", usage, b, 2, argc, argv, 0);
    if (rc >= 0) return rc;
    o.command = c.command;

    struct stg_probe_result r;
    rc = stg_probe(&c.ctx, &o, &r);
    if (rc == SP_EUSAGE) fputs(usage, stderr);
    if (rc == SP_OK) {
        cli_progress_clear(&c);
        print_result(&r, c.common.json);
        fflush(stdout);
    }
    rc = cli_finish_stage(&c, rc);
    stg_probe_result_free(&r);
    return cli_done(&c, rc);
}
