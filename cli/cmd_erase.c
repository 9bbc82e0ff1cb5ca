/* cli/cmd_erase.c — synprobe erase: remove a word property from a corpus run's vectors (LEACE or
 * INLP), store the erased vectors as a new run, and print what the erasure did (stages/erase). */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "stages/erase.h"
#include "stages/layers.h"

const struct cli_doc cmd_erase_doc = {
    .name = "erase",
    .purpose = "erase a word property from a run (LEACE, INLP) and probe what is left",
    .synopsis = "--db --corpus --run [--layer] --property [--method] --out-run [options]",
    .prose =
        "Erases a word property (UPOS, the relation of the word's arc, or its depth in the dependency\n"
        "tree) from the token vectors of run R (a run of corpus C encoded with --token-vectors; with\n"
        "--layer L, the layer run R-L<L> of an `encode --layers` pass), or a sentence task's label from\n"
        "the sentence vectors of a run of task TASK (encode --task TASK): LEACE in closed form (Belrose et\n"
        "al. 2023) or INLP (Ravfogel et al. 2020, N logistic-regression probes projected out), fitted on\n"
        "the train partition's words or items (--fit all: every labelled one). Stores the erased token and\n"
        "sentence vectors as run NAME, which every probe reads, and a result that `synprobe report`\n"
        "lists: the property's probe accuracy before and after erasure, the majority baseline, the rank\n"
        "removed, and Elazar et al.'s control (random directions of the same rank projected out), with\n"
        "the other token task (UPOS, or deprel when erasing UPOS; none for a sentence task) under each,\n"
        "and with --uuas the test UUAS of a trained distance probe (Hewitt & Manning) under each.\n"
        "Exit: 0 erased, 1 bad input, 2 usage errors.\n",
};

struct erase_layer { const char *layer; };
static const struct sp_opt layer_option[] = {
    { "layer", SP_OPT_STR, 0, .metavar = "L", .help = "the layer run R-L<L> of an `encode --layers` pass" },
    { 0 },
};

/* --layer L: the one layer run it names */
static int layer_run(struct cli *c, struct stg_erase_opts *o, const char *spec, char **run)
{
    struct stg_layer_runs l = { 0 };
    if (!*spec || spec[strspn(spec, "0123456789")])
        return stg_fail(&c->ctx, SP_EUSAGE, "--layer %s: erase takes one layer, a number (0 = the embeddings)", spec);
    /* the layer runs of a corpus pass are NAME-L<k>[-CORPUS], of a task pass NAME-L<k>[-TASK] */
    int token = o->property && (!strcmp(o->property, "upos") || !strcmp(o->property, "deprel") ||
                                !strcmp(o->property, "depth"));
    int rc = stg_layer_runs(&c->ctx, o->db, "--layer", o->run, spec, token || !o->property ? o->corpus : o->property, &l);
    if (rc == SP_OK && l.n != 1) rc = stg_fail(&c->ctx, SP_EUSAGE, "--layer %s: erase takes one layer", spec);
    if (rc == SP_OK) *run = sp_xstrdup(l.run[0]);
    stg_layer_runs_free(&l);
    return rc;
}

int cmd_erase(int argc, char **argv)
{
    struct stg_erase_opts o = { 0 };
    struct erase_layer lay = { 0 };
    struct cli c;
    const struct sp_optbind b[] = { { stg_erase_options, &o }, { layer_option, &lay }, { cli_json_option, &c.common } };
    int rc = cli_parse(&c, &cmd_erase_doc, b, 3, argc, argv, 0);
    if (rc >= 0) return rc;
    o.command = c.command;
    if (!o.threads) o.threads = sp_cpu_count();
    char *lrun = NULL;
    rc = SP_OK;
    if (lay.layer) {
        rc = layer_run(&c, &o, lay.layer, &lrun);
        if (rc == SP_OK) o.run = lrun;
    }
    struct stg_erase_result r = { 0 };
    if (rc == SP_OK) rc = stg_erase(&c.ctx, &o, &r);
    if (rc == SP_EUSAGE) cli_usage(stderr, &c);
    if (r.json) {
        cli_progress_clear(&c);
        if (c.common.json) {
            cli_print_json(&c, r.json, JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
        } else {
            json_t *other = json_object_get(r.json, "other");
            printf("%s erased from run %s into run %s (%ld items): %d directions removed\n", o.property, o.run, o.out_run,
                   r.n_items, r.rank);
            printf("%-14s %8s %8s %8s %9s\n", "probe (test %)", "before", "after", "random", "majority");
            printf("%-14s %8.2f %8.2f %8.2f %9.2f\n", json_string_value(json_object_get(r.json, "task")) + 6, r.acc_before,
                   r.acc_after, r.acc_random, r.majority);
            if (json_is_object(other))           /* a sentence task has no other task */
                printf("%-14s %8.2f %8.2f %8.2f %9.2f\n", json_string_value(json_object_get(other, "task")),
                       json_real_value(json_object_get(other, "before")), json_real_value(json_object_get(other, "after")),
                       json_real_value(json_object_get(other, "random")), json_real_value(json_object_get(other, "majority")));
        }
        fflush(stdout);
    }
    if (r.result_id) fprintf(stderr, "synprobe erase: stored run %s and result %lld in %s\n", o.out_run, (long long)r.result_id, o.db);
    rc = cli_finish_stage(&c, rc);
    stg_erase_result_free(&r);
    free(lrun);
    return cli_done(&c, rc);
}
