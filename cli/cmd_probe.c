/* cli/cmd_probe.c — synprobe probe: SentEval probing classifiers on a task + vectors (stages/probe). */
#include <jansson.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "cli/layer_loop.h"
#include "stages/probe.h"

const struct cli_doc cmd_probe_doc = {
    .name = "probe",
    .purpose = "train SentEval-style probing classifiers",
    .synopsis = "(--task-file [--save] | --db --task [--no-save]) (--vectors | --run [--layer]) [options]",
    .prose =
        "Train SentEval probing classifiers (docs/spec/probing.md §1) and report dev/test accuracy.\n"
        "Several stored tasks (--task A,B) are probed in turn with the same vectors or run, which must\n"
        "align with each of them.\n"
        "\n"
        "Every result includes the majority-class baseline, the control task (labels shuffled within\n"
        "each partition, seed recorded) with selectivity = test - control test, per-class precision /\n"
        "recall / F1 and the confusion matrix (test partition; dev if there is no test partition).\n"
        "Stored results (one probe_result row per task x classifier x seed, all in one transaction at the\n"
        "end) carry the printed JSON plus \"manifest\": options, protocol knobs, data sha256 (float32 X,\n"
        "labels, splits), task and vector sources, versions, timestamp. See `synprobe report`.\n"
        "With --layer L|all and --run NAME made by `encode --layers`, each layer's run NAME-L<k>[-TASK] is\n"
        "probed in turn: one row per layer, task, classifier and seed (--json: an array with \"layer\").\n"
        "Exit status: 0 ok, 1 bad input, 2 usage.\n",
};

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

/* " %7.2f" of a JSON number, "       -" for null or absent */
static void num(const json_t *j)
{
    if (json_is_number(j)) printf(" %7.2f", json_number_value(j));
    else printf(" %7s", "-");
}

/* --layer: the probe on one layer run (of one task), one row per classifier and seed. */
static int probe_layer(struct stg_ctx *ctx, const struct stg_layer_run *l, json_t *rows, void *arg)
{
    const struct cli_layer_arg *a = arg;
    struct stg_probe_opts ol = *(const struct stg_probe_opts *)a->opts;
    ol.run = l->run;
    const char *task = l->input;        /* this task only (the loop's input) */
    if (task) ol.task = (struct sp_strlist){ &task, 1 };
    struct stg_probe_result r;
    int rc = stg_probe(ctx, &ol, &r);
    cli_progress_clear(a->c);
    for (int k = 0; rc == SP_OK && k < r.n; k++) {
        json_t *j = r.runs[k].json;
        int first = !json_array_size(rows);
        json_array_append(rows, j);
        if (a->c->common.json) continue;
        if (first) printf("%-5s  %-24s %-16s %-10s %6s %7s %7s %7s %7s\n", "layer", "run", "task", "classifier", "seed",
                          "dev", "test", "control", "select");
        json_t *ct = json_object_get(json_object_get(j, "baselines"), "control");
        printf("%-5d  %-24s %-16s %-10s %6lld", l->layer, l->run, r.runs[k].task,
               json_string_value(json_object_get(j, "classifier")), (long long)json_integer_value(json_object_get(j, "seed")));
        num(json_object_get(j, "devacc"));
        num(json_object_get(j, "acc"));
        num(json_object_get(ct, "acc"));
        num(json_object_get(ct, "selectivity"));
        putchar('\n');
        fflush(stdout);
    }
    stg_probe_result_free(&r);
    return rc;
}

int cmd_probe(int argc, char **argv)
{
    struct stg_probe_opts o = { 0 };
    struct cli c;
    struct stg_layer_opt lay = { 0 };
    const struct sp_optbind b[] = { { stg_probe_options, &o }, { stg_layer_options, &lay }, { cli_json_option, &c.common } };
    int rc = cli_parse(&c, &cmd_probe_doc, b, 3, argc, argv, 0);
    if (rc >= 0) return rc;
    o.command = c.command;
    if (lay.layer && (!o.run || !o.db || o.task_file))
        return cli_done(&c, cli_fail(SP_EXIT_USAGE, "probe", "--layer needs --db DB --task T --run NAME (the --run name "
                                     "given to encode --layers)"));
    if (lay.layer)
        return cli_done(&c, cli_layers(&c, o.db, o.run, lay.layer, &o.task, probe_layer, &o,
                                       JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10), 1));

    struct stg_probe_result r;
    rc = stg_probe(&c.ctx, &o, &r);
    if (rc == SP_EUSAGE) cli_usage(stderr, &c);
    if (rc == SP_OK) {
        cli_progress_clear(&c);
        print_result(&r, c.common.json);
        fflush(stdout);
    }
    rc = cli_finish_stage(&c, rc);
    stg_probe_result_free(&r);
    return cli_done(&c, rc);
}
