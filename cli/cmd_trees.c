/* cli/cmd_trees.c — synprobe trees: trees from attention or a baseline scored against gold
 * constituency trees (stages/trees). */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/layer_loop.h"
#include "stages/trees.h"

const struct cli_doc cmd_trees_doc = {
    .name = "trees",
    .purpose = "extract constituency or dependency trees from attention and score them",
    .synopsis = "(--db --corpus | --mrg) (--baseline [--seed] | (--attention | --run [--layer]) [--head] [--span-score]) [--dependency [--arc]] [options]",
    .prose =
        "Scores binary trees against the gold constituency trees: Protocol A (EVALB, COLLINS.prm with\n"
        "LABELED 0) and Protocol B (unlabeled spans without punctuation), docs/spec/probing.md §5.\n"
        "  --baseline random   without --seed: every figure is the mean over seeds 1..5\n"
        "  --attention A.npy   (n_sentences, L, L) or (n_sentences, H, L, L) word-level attention, corpus order\n"
        "  --run R             the attention maps of encoder run R over corpus C\n"
        "                      (`synprobe encode --corpus C --attention LAYER --run R`)\n"
        "  --out / --gold-out  write predicted / gold trees one per line, for `synprobe evalb`\n"
        "  --json              {\"protocol_a\":{\"all\":{recall,precision,fmeasure},\"le40\":{...}},\n"
        "                       \"protocol_b\":{\"sentence_f1\":{all,le40,le10},\"corpus_f1\":{...}},\"n_sentences\":N}\n"
        "  --db DB --corpus C  also stores the evaluation in DB (tree_eval; see synprobe report) unless --no-save\n"
        "  --run R --layer L|all  each layer run R-L<k>[-C] of `encode --layers --layer-attention` in turn\n"
        "Exit: 0 scored, 1 bad input (an unknown corpus or run, no trees, an attention file that does not fit),\n"
        "2 usage errors.\n",
};

static double jnum(json_t *j, const char *k)
{
    json_t *v = json_object_get(j, k);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static void print_text(const struct stg_trees_result *r)
{
    const struct prb_trees_result *m = &r->m;
    if (json_object_get(r->json, "uas")) {      /* dependency trees */
        printf("%s: %ld sentences, punctuation excluded\n", r->method, m->n_sentences);
        const char *name[3] = { "UAS", "UUAS (its arcs)", "UUAS (undirected MST)" }, *key[3] = { "uas", "uuas_dir", "uuas_mst" };
        for (int i = 0; i < 3; i++) {
            double v = jnum(r->json, key[i]);
            if (isnan(v)) printf("  %s      -", name[i]);
            else printf("  %s %6.2f", name[i], v);
        }
        putchar('\n');
        return;
    }
    printf("sentences %ld%s\n", m->n_sentences, r->n_runs > 1 ? " (random: mean of seeds 1..5)" : "");
    printf("Protocol A (EVALB, COLLINS.prm, LABELED 0)  recall  precision  F\n");
    printf("  all    (%5ld valid)                      %6.2f  %9.2f  %6.2f\n", m->a_all.n_valid,
           m->a_all.recall, m->a_all.precision, m->a_all.fmeasure);
    printf("  len<=40 (%5ld valid)                     %6.2f  %9.2f  %6.2f\n", m->a_le40.n_valid,
           m->a_le40.recall, m->a_le40.precision, m->a_le40.fmeasure);
    printf("Protocol B (unlabeled spans, no punctuation)  all    <=40   <=10\n");
    printf("  sentence F1                                %6.2f %6.2f %6.2f\n", m->b_sent_f1[0], m->b_sent_f1[1], m->b_sent_f1[2]);
    printf("  corpus F1                                  %6.2f %6.2f %6.2f\n", m->b_corpus_f1[0], m->b_corpus_f1[1],
           m->b_corpus_f1[2]);
    printf("  sentences scored                           %6ld %6ld %6ld\n", m->b_n[0], m->b_n[1], m->b_n[2]);
}

/* --layer: the trees of one layer run's attention, one block; with --layer all, a run without
 * attention maps (layer 0, the embeddings) is left out. */
static int trees_layer(struct stg_ctx *ctx, const struct stg_layer_run *l, json_t *rows, void *arg)
{
    const struct cli_layer_arg *a = arg;
    if (l->attn_layer < 0 && !strcmp(a->spec, "all")) {
        sp_log(&a->c->log, SP_LOG_INFO, "run %s has no attention maps: layer %d left out", l->run, l->layer);
        return SP_OK;
    }
    struct stg_trees_opts ol = *(const struct stg_trees_opts *)a->opts;
    ol.run = l->run;
    struct stg_trees_result r;
    int rc = stg_trees(ctx, &ol, &r);
    cli_progress_clear(a->c);
    if (rc == SP_OK && r.json) {
        if (!a->c->common.json) {
            printf("%slayer %d (run %s)\n", json_array_size(rows) ? "\n" : "", l->layer, l->run);
            print_text(&r);
            fflush(stdout);
        }
        json_array_append(rows, r.json);
    }
    if (r.eval_id) fprintf(stderr, "synprobe trees: stored evaluation %lld (%s) in %s\n", (long long)r.eval_id, r.method, ol.db);
    stg_trees_result_free(&r);
    return rc;
}

int cmd_trees(int argc, char **argv)
{
    struct stg_trees_opts o = { 0 };
    struct cli c;
    struct stg_layer_opt lay = { 0 };
    const struct sp_optbind b[] = { { stg_trees_options, &o }, { stg_layer_options, &lay }, { cli_json_option, &c.common } };
    int rc = cli_parse(&c, &cmd_trees_doc, b, 3, argc, argv, 0);
    if (rc >= 0) return rc;
    o.command = c.command;
    if (lay.layer && (!o.run || !o.db || !o.corpus))
        return cli_done(&c, cli_fail(SP_EXIT_USAGE, "trees", "--layer needs --db DB --corpus C --run NAME (the --run name given "
                                     "to encode --layers --layer-attention)"));
    if (lay.layer)
        return cli_done(&c, cli_layers(&c, o.db, o.run, lay.layer, &(struct sp_strlist){ &o.corpus, 1 }, trees_layer, &o,
                                       JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10), 1));

    struct stg_trees_result r;
    rc = stg_trees(&c.ctx, &o, &r);
    if (rc == SP_EUSAGE) cli_usage(stderr, &c);
    if (r.json) {               /* the figures, even when storing them failed */
        cli_progress_clear(&c);
        if (c.common.json) {
            cli_print_json(&c, r.json, JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
        } else {
            print_text(&r);
        }
        fflush(stdout);
    }
    if (r.eval_id)
        fprintf(stderr, "synprobe trees: stored evaluation %lld (%s) in %s\n", (long long)r.eval_id, r.method, o.db);
    rc = cli_finish_stage(&c, rc);
    stg_trees_result_free(&r);
    return cli_done(&c, rc);
}
