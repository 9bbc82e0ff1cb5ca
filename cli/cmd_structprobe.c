/* cli/cmd_structprobe.c — synprobe structprobe: structural-probe metrics against gold
 * dependency trees (stages/structprobe). */
#include <jansson.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "cli/layer_loop.h"
#include "stages/structprobe.h"

const struct cli_doc cmd_structprobe_doc = {
    .name = "structprobe",
    .purpose = "structural-probe metrics (UUAS, DSpr, root accuracy, NSpr)",
    .synopsis = "(--db --corpus | --conllu | --dp) (--baseline | [--distances] [--depths] | --run [--layer] [--rank] [--probe-seed] [--max-epochs] [--threads]) [options]",
    .prose =
        "UUAS, DSpr, root accuracy and NSpr (docs/spec/probing.md §3.6) of the LINEAR baseline or of predicted\n"
        "distances / depths (.npy, corpus order, padded) against the gold dependency trees.\n"
        "  --json              {\"uuas\",\"dspr\",\"root_acc\",\"nspr\",\"n_sentences\"} (percent, fractions)\n"
        "  --db DB --corpus C  also stores the figures in DB (tree_eval; see synprobe report) unless --no-save\n"
        "  --run R --layer L|all  trained probes on each layer run R-L<k>[-C] of encode --layers: one row per layer\n"
        "  --threads K         --run: K threads train the probes (the two probes side by side; with --layer,\n"
        "                      two layers at a time; default: the CPUs it may run on); the figures do not depend on K\n"
        "Exit: 0 scored, 1 bad input, 2 usage errors.\n",
};

/* --layer: the trained probes on one layer run, one row. */
static int structprobe_layer(struct stg_ctx *ctx, const struct stg_layer_run *l, json_t *rows, void *arg)
{
    const struct cli_layer_arg *a = arg;
    struct stg_structprobe_opts ol = *(const struct stg_structprobe_opts *)a->opts;
    ol.run = l->run;
    if (ol.threads >= 2) ol.threads = ol.threads / 2 > 2 ? ol.threads / 2 : 2;   /* two layers side by side */
    struct stg_structprobe_result r;
    int rc = stg_structprobe(ctx, &ol, &r);
    int turn = stg_turn_take(ctx);        /* the layers before have printed (layers side by side) */
    if (rc == SP_OK) rc = turn;
    cli_progress_clear(a->c);
    if (rc == SP_OK && r.json) {
        if (!a->c->common.json) {
            if (!json_array_size(rows))
                printf("%-5s  %-24s %9s %7s %7s %9s %7s\n", "layer", "run", "sentences", "UUAS", "DSpr", "Root acc", "NSpr");
            printf("%-5d  %-24s %9ld %7.2f %7.4f %9.2f %7.4f\n", l->layer, l->run, r.res.n_sentences, r.res.uuas, r.res.dspr,
                   r.res.root_acc, r.res.nspr);
            fflush(stdout);
        }
        json_array_append(rows, r.json);
    }
    if (r.eval_id)
        fprintf(stderr, "synprobe structprobe: stored evaluation %lld (%s) in %s\n", (long long)r.eval_id, r.method, ol.db);
    stg_structprobe_result_free(&r);
    return rc;
}

int cmd_structprobe(int argc, char **argv)
{
    struct stg_structprobe_opts o = { 0 };
    struct cli c;
    struct stg_layer_opt lay = { 0 };
    const struct sp_optbind b[] = { { stg_structprobe_options, &o }, { stg_layer_options, &lay }, { cli_json_option, &c.common } };
    int rc = cli_parse(&c, &cmd_structprobe_doc, b, 3, argc, argv, 0);
    if (rc >= 0) return rc;
    o.command = c.command;
    if (lay.layer && (!o.run || !o.db || !o.corpus))
        return cli_done(&c, cli_fail(SP_EXIT_USAGE, "structprobe", "--layer needs --db DB --corpus C --run NAME (the --run name given "
                                     "to encode --layers)"));
    if (lay.layer && !o.threads) o.threads = sp_cpu_count();   /* the default: the CPUs it may run on */
    if (lay.layer)
        return cli_done(&c, cli_layers(&c, o.db, o.run, lay.layer, &(struct sp_strlist){ &o.corpus, 1 }, structprobe_layer, &o,
                                       JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10), o.threads >= 2 ? 2 : 1));

    struct stg_structprobe_result r;
    rc = stg_structprobe(&c.ctx, &o, &r);
    if (rc == SP_EUSAGE) cli_usage(stderr, &c);
    if (r.json) {               /* the figures, even when storing them failed */
        cli_progress_clear(&c);
        if (c.common.json) {
            cli_print_json(&c, r.json, JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
        } else if (!r.have_linear) {
            printf("sentences  %ld\nUUAS       %.2f %%\nDSpr       %.4f\nRoot acc   %.2f %%\nNSpr       %.4f\n",
                   r.res.n_sentences, r.res.uuas, r.res.dspr, r.res.root_acc, r.res.nspr);
        } else {                  /* a trained probe beside the linear baseline on its test sentences */
            printf("%-10s %9s %9s\nsentences  %9ld %9ld\nUUAS       %7.2f %% %7.2f %%\nDSpr       %9.4f %9.4f\n"
                   "Root acc   %7.2f %% %7.2f %%\nNSpr       %9.4f %9.4f\n", "", "probe", "linear", r.res.n_sentences,
                   r.linear.n_sentences, r.res.uuas, r.linear.uuas, r.res.dspr, r.linear.dspr, r.res.root_acc,
                   r.linear.root_acc, r.res.nspr, r.linear.nspr);
        }
        fflush(stdout);
    }
    if (r.eval_id)
        fprintf(stderr, "synprobe structprobe: stored evaluation %lld (%s) in %s\n", (long long)r.eval_id, r.method, o.db);
    rc = cli_finish_stage(&c, rc);
    stg_structprobe_result_free(&r);
    return cli_done(&c, rc);
}
