/* cli/cmd_mdl.c — synprobe mdl: the online codelength of a token or sentence task's labels and
 * of its control task's, given a run's vectors (stages/mdl). */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/layer_loop.h"
#include "stages/mdl.h"

const struct cli_doc cmd_mdl_doc = {
    .name = "mdl",
    .purpose = "minimum description length probing (online code) with control tasks",
    .synopsis = "--db --run [--corpus] [--task] [--layer] [options]",
    .prose =
        "Minimum description length probing (Voita & Titov 2020, the online code): the training items,\n"
        "in an order drawn from the seed, are sent in blocks ending at 0.1, 0.2, 0.4, 0.8, 1.6, 3.2, 6.25,\n"
        "12.5, 25, 50 and 100 % of them; the first block with the uniform code, each next one with a\n"
        "logistic-regression probe trained (warm-started, early-stopped on the dev cross-entropy) on every\n"
        "item before it.\n"
        "Prints the codelength in bits, the uniform codelength (n log2 K), the compression (their ratio),\n"
        "the same for the control task, and the selectivity in bits (control codelength - task codelength).\n"
        "upos / deprel: the words of corpus C's train partition, as tokprobe reads them (run R encoded with\n"
        "--token-vectors), control labels a random label per word type (Hewitt & Liang); any other task: a\n"
        "stored sentence task and run R encoding it, as probe reads them, control labels its labels\n"
        "shuffled. Stores a probe result with classifier \"mdl\" that `synprobe report` lists.\n"
        "Exit: 0 done, 1 bad input, 2 usage errors.\n",
};

static void print_head(void)
{
    printf("%-5s  %-24s %-14s %6s %12s %12s %11s %11s %13s\n", "layer", "run", "task", "labels", "codelength", "uniform",
           "compression", "control", "selectivity");
}

static void print_row(int layer, const char *run, const struct stg_mdl_result *r)
{
    json_t *j = r->json;
    char ctl[32] = "-", sel[32] = "-";
    if (!isnan(r->control_compression)) {
        snprintf(ctl, sizeof ctl, "%.2f", r->control_compression);
        snprintf(sel, sizeof sel, "%.1f", r->control_codelength - r->codelength);
    }
    if (layer >= 0) printf("%-5d  ", layer);
    else printf("%-5s  ", "-");
    printf("%-24s %-14s %6d %12.1f %12.1f %11.2f %11s %13s\n", run, json_string_value(json_object_get(j, "task")),
           (int)json_integer_value(json_object_get(j, "labels")), r->codelength,
           json_real_value(json_object_get(j, "uniform_bits")), r->compression, ctl, sel);
}

/* --layer: MDL on one layer run, one row. */
static int mdl_layer(struct stg_ctx *ctx, const struct stg_layer_run *l, json_t *rows, void *arg)
{
    const struct cli_layer_arg *a = arg;
    struct stg_mdl_opts ol = *(const struct stg_mdl_opts *)a->opts;
    ol.run = l->run;
    if (ol.threads >= 2) ol.threads = ol.threads / 2 > 2 ? ol.threads / 2 : 2;   /* two layers side by side */
    ol.dump = NULL;
    struct stg_mdl_result r;
    int rc = stg_mdl(ctx, &ol, &r);
    int turn = stg_turn_take(ctx);        /* the layers before have printed (layers side by side) */
    if (rc == SP_OK) rc = turn;
    cli_progress_clear(a->c);
    if (rc == SP_OK && r.json) {
        json_object_set_new(r.json, "layer", json_integer(l->layer));
        if (!a->c->common.json) {
            if (!json_array_size(rows)) print_head();
            print_row(l->layer, l->run, &r);
            fflush(stdout);
        }
        json_array_append(rows, r.json);
    }
    if (r.result_id) fprintf(stderr, "synprobe mdl: stored result %lld in %s\n", (long long)r.result_id, ol.db);
    stg_mdl_result_free(&r);
    return rc;
}

int cmd_mdl(int argc, char **argv)
{
    struct stg_mdl_opts o = { 0 };
    struct cli c;
    struct stg_layer_opt lay = { 0 };
    const struct sp_optbind b[] = { { stg_mdl_options, &o }, { stg_layer_options, &lay }, { cli_json_option, &c.common } };
    int rc = cli_parse(&c, &cmd_mdl_doc, b, 3, argc, argv, 0);
    if (rc >= 0) return rc;
    o.command = c.command;
    if (lay.layer && o.dump)
        return cli_done(&c, cli_fail(SP_EXIT_USAGE, "mdl", "--dump writes one run's items: give it without --layer"));
    if (lay.layer && !o.threads) o.threads = sp_cpu_count();   /* the default: the CPUs it may run on */
    /* the layer runs are NAME-L<k>-INPUT, INPUT the corpus of a token task, else the sentence task */
    int tok = !strcmp(o.task, "upos") || !strcmp(o.task, "deprel");
    struct sp_strlist in = { tok ? &o.corpus : &o.task, tok && !o.corpus ? 0 : 1 };
    if (lay.layer)
        return cli_done(&c, cli_layers(&c, o.db, o.run, lay.layer, &in, mdl_layer, &o, JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10), o.threads >= 2 ? 2 : 1));
    struct stg_mdl_result r;
    rc = stg_mdl(&c.ctx, &o, &r);
    if (rc == SP_EUSAGE) cli_usage(stderr, &c);
    if (r.json) {
        cli_progress_clear(&c);
        if (c.common.json) cli_print_json(&c, r.json, JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
        else { print_head(); print_row(-1, o.run, &r); }
        fflush(stdout);
    }
    if (r.result_id) fprintf(stderr, "synprobe mdl: stored result %lld in %s\n", (long long)r.result_id, o.db);
    rc = cli_finish_stage(&c, rc);
    stg_mdl_result_free(&r);
    return cli_done(&c, rc);
}
