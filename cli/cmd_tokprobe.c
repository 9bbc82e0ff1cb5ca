/* cli/cmd_tokprobe.c — synprobe tokprobe: word-level probes (UPOS, dependency relation) with
 * control tasks on a corpus run's token vectors (stages/tokprobe). */
#include <jansson.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "cli/layer_loop.h"
#include "stages/tokprobe.h"

const struct cli_doc cmd_tokprobe_doc = {
    .name = "tokprobe",
    .purpose = "word-level probes (UPOS, dependency relation) with control tasks",
    .synopsis = "--db --corpus --run [--layer] [options]",
    .prose =
        "Probes every word's UPOS (or the relation of its arc) from the token vectors of run R (a run of\n"
        "corpus C encoded with --token-vectors), trained on the corpus's train partition (its recorded\n"
        "split, else a seeded 80/10/10 split of its sentences), early-stopped on dev, scored on test; and\n"
        "the same probe on Hewitt & Liang's control task (a random label per word type, the training label\n"
        "distribution; docs/spec/models.md M5). Prints test accuracy, control accuracy and selectivity (points),\n"
        "also on word types unseen in training and without punctuation; stores a probe result (task\n"
        "token:upos / token:deprel) that `synprobe report` aggregates over seeds.\n"
        "Exit: 0 scored, 1 bad input, 2 usage errors.\n",
};

/* --layer: the token probe on one layer run, one row. */
static int tokprobe_layer(struct stg_ctx *ctx, const struct stg_layer_run *l, json_t *rows, void *arg)
{
    const struct cli_layer_arg *a = arg;
    struct stg_tokprobe_opts ol = *(const struct stg_tokprobe_opts *)a->opts;
    ol.run = l->run;
    if (ol.threads >= 2) ol.threads = ol.threads / 2 > 2 ? ol.threads / 2 : 2;   /* two layers side by side */
    struct stg_tokprobe_result r;
    int rc = stg_tokprobe(ctx, &ol, &r);
    int turn = stg_turn_take(ctx);        /* the layers before have printed (layers side by side) */
    if (rc == SP_OK) rc = turn;
    cli_progress_clear(a->c);
    if (rc == SP_OK && r.json) {
        if (!a->c->common.json) {
            if (!json_array_size(rows))
                printf("%-5s  %-24s %-8s %7s %8s %11s\n", "layer", "run", "task", "test", "control", "selectivity");
            printf("%-5d  %-24s %-8s %7.2f %8.2f %11.2f\n", l->layer, l->run, json_string_value(json_object_get(r.json, "task")),
                   r.acc_task, r.acc_control, r.selectivity);
            fflush(stdout);
        }
        json_array_append(rows, r.json);
    }
    if (r.result_id) fprintf(stderr, "synprobe tokprobe: stored result %lld in %s\n", (long long)r.result_id, ol.db);
    stg_tokprobe_result_free(&r);
    return rc;
}

int cmd_tokprobe(int argc, char **argv)
{
    struct stg_tokprobe_opts o = { 0 };
    struct cli c;
    struct stg_layer_opt lay = { 0 };
    const struct sp_optbind b[] = { { stg_tokprobe_options, &o }, { stg_layer_options, &lay }, { cli_json_option, &c.common } };
    int rc = cli_parse(&c, &cmd_tokprobe_doc, b, 3, argc, argv, 0);
    if (rc >= 0) return rc;
    o.command = c.command;
    if (lay.layer && (!o.run || !o.db || !o.corpus))
        return cli_done(&c, cli_fail(SP_EXIT_USAGE, "tokprobe", "--layer needs --db DB --corpus C --run NAME (the --run name given "
                                     "to encode --layers)"));
    if (lay.layer && !o.threads) o.threads = sp_cpu_count();   /* the default: the CPUs it may run on */
    if (lay.layer)
        return cli_done(&c, cli_layers(&c, o.db, o.run, lay.layer, &(struct sp_strlist){ &o.corpus, 1 }, tokprobe_layer, &o,
                                       JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10), o.threads >= 2 ? 2 : 1));
    struct stg_tokprobe_result r;
    rc = stg_tokprobe(&c.ctx, &o, &r);
    if (rc == SP_EUSAGE) cli_usage(stderr, &c);
    if (r.json) {
        cli_progress_clear(&c);
        if (c.common.json) cli_print_json(&c, r.json, JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
        else printf("%s on run %s: test accuracy %.2f, control %.2f, selectivity %.2f points\n",
                    json_string_value(json_object_get(r.json, "task")), o.run, r.acc_task, r.acc_control, r.selectivity);
        fflush(stdout);
    }
    if (r.result_id) fprintf(stderr, "synprobe tokprobe: stored result %lld in %s\n", (long long)r.result_id, o.db);
    rc = cli_finish_stage(&c, rc);
    stg_tokprobe_result_free(&r);
    return cli_done(&c, rc);
}
