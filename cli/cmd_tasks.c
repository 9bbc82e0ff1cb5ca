/* cli/cmd_tasks.c — synprobe tasks build|import|export|list (stages/tasks). */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "probes/stats.h"
#include "stages/tasks.h"

static const struct cli_doc tasks_build_doc = {
    .name = "tasks build",
    .purpose = "derive the SentEval probing tasks from treebank sentences",
    .synopsis = "(--corpus-files | --db --corpus) [options]",
    .prose =
        "Derives the SentEval probing tasks (SentLen WC TreeDepth TopConst BShift Tense SubjNum ObjNum\n"
        "SOMO CoordInv) from treebank sentences with the small-corpus rules of docs/spec/probing.md §2: balanced\n"
        "classes, form-disjoint partitions for Tense/SubjNum/ObjNum/SOMO. The partitions are the corpus's\n"
        "own train/dev/test (UD file names *-ud-train|dev|test.conllu, ingest --split, PTB WSJ sections\n"
        "02-21/22/23); a corpus without them stops the build (exit 1) unless --split resplit asks for a\n"
        "seeded 80/10/10 re-split, which is printed and stored (params \"partition\"). Tasks the\n"
        "annotation does not allow are skipped with the reason (TreeDepth/TopConst need constituency\n"
        "trees; Tense/SubjNum/ObjNum/CoordInv need trees with function tags or UD relations; a task left\n"
        "with no test item), and test sets under 97 items are named in a warning as too small.\n"
        "With --db the built tasks are also stored (as --prefix + task name). Several corpora\n"
        "(--corpus a,b) are read in the order given and their sentences derived from as one pool;\n"
        "tasks built so belong to no single corpus, so they are stored without one (their items keep\n"
        "their sentence ids, and encoders read the items' text).\n"
        "Exit: 0 ok (skipped tasks included), 1 bad input, 2 usage.\n",
};

static const struct cli_doc tasks_import_doc = {
    .name = "tasks import",
    .purpose = "store a SentEval file as a task",
    .synopsis = "--db --name (FILE | --file)",
    .prose =
        "Stores a SentEval file (split TAB label TAB sentence) as task T; `tasks export` gives back its bytes.\n",
};

static const struct cli_doc tasks_export_doc = {
    .name = "tasks export",
    .purpose = "write a stored task as a SentEval file",
    .synopsis = "--db --name [options]",
    .prose =
        "Writes stored task T as a SentEval file (to standard output without --out).\n",
};

static const struct cli_doc tasks_list_doc = {
    .name = "tasks list",
    .purpose = "list the stored tasks",
    .synopsis = "--db",
    .prose =
        "The stored tasks: name, kind, items per split; under a task, a re-split (not the corpus's own\n"
        "partitions) and a test set too small to read (fewer than 97 items); at the end, the tasks their\n"
        "builds skipped and why.\n",
};

static void print_task(const struct prb_task *t)
{
    const char *name = prb_task_name(t->id);
    if (!t->built) {
        printf("%-9s skipped: %s\n", name, t->reason ? t->reason : "not built");
        return;
    }
    int tot[3] = { 0, 0, 0 };
    for (int c = 0; c < t->n_classes; c++)
        for (int s = 0; s < 3; s++) tot[s] += t->count[c][s];
    printf("%-9s %d items (tr %d, va %d, te %d) from %d candidates, %d classes\n", name, t->n_items, tot[0], tot[1],
           tot[2], t->n_candidates, t->n_classes);
    int shown = t->n_classes <= 12 ? t->n_classes : 6;
    for (int c = 0; c < shown; c++)
        printf("    %-22s tr %5d  va %4d  te %4d\n", t->cls[c], t->count[c][0], t->count[c][1], t->count[c][2]);
    if (shown < t->n_classes) printf("    ... %d more classes\n", t->n_classes - shown);
    if (t->note) printf("    note: %s\n", t->note);
}

static int tasks_build(int argc, char **argv)
{
    struct stg_tasks_build_opts o = { 0 };
    struct cli c;
    const struct sp_optbind b[] = { { stg_tasks_build_options, &o }, { cli_json_option, &c.common } };
    int rc = cli_parse(&c, &tasks_build_doc, b, 2, argc, argv, 0);
    if (rc >= 0) return rc;
    struct stg_tasks_build_result r;
    o.listed = 1;   /* every task's line below, skipped ones with their reason */
    rc = stg_tasks_build(&c.ctx, &o, &r);
    if (rc == SP_OK) {
        cli_progress_clear(&c);
        if (c.common.json) {
            cli_print_json(&c, r.summary, JSON_INDENT(2) | JSON_SORT_KEYS);
        } else {
            printf("%d sentences, seed %llu\npartitions: %s\n", r.ts.n_sentences, (unsigned long long)r.ts.opts.seed, r.partition);
            for (int id = 0; id < PRB_NTASKS; id++)
                if (r.ts.task[id].requested) print_task(&r.ts.task[id]);
        }
    }
    rc = cli_finish_stage(&c, rc);
    stg_tasks_build_result_free(&r);
    return cli_done(&c, rc);
}

static int tasks_import(int argc, char **argv)
{
    struct stg_tasks_import_opts o = { 0 };
    const struct sp_optbind b[] = { { stg_tasks_import_options, &o } };
    struct cli c;
    int rc = cli_parse(&c, &tasks_import_doc, b, 1, argc, argv, 1);
    if (rc >= 0) return rc;
    if (c.operands.n > 1 || (c.operands.n == 1 && o.file)) {
        cli_usage(stderr, &c);
        return cli_done(&c, cli_fail(SP_EXIT_USAGE, c.name, "one SentEval FILE, got another: '%s'", c.operands.v[c.operands.n - 1]));
    }
    if (c.operands.n == 1) o.file = c.operands.v[0];
    struct stg_tasks_import_result r;
    rc = stg_tasks_import(&c.ctx, &o, &r);
    if (rc == SP_OK) printf("%s: %d items from %s\n", o.name, r.n_items, o.file);
    return cli_done(&c, cli_finish_stage(&c, rc));
}

static int tasks_export(int argc, char **argv)
{
    struct stg_tasks_export_opts o = { 0 };
    const struct sp_optbind b[] = { { stg_tasks_export_options, &o } };
    struct cli c;
    int rc = cli_parse(&c, &tasks_export_doc, b, 1, argc, argv, 0);
    if (rc >= 0) return rc;
    o.to_stdout = stdout;
    struct stg_tasks_export_result r;
    return cli_done(&c, cli_finish_stage(&c, stg_tasks_export(&c.ctx, &o, &r)));
}

/* Under a listed task, what its stored params say a reader must know: a re-split (not the
 * corpus's own partitions), a test set below PRB_SMALL_TEST; the tasks its build skipped are
 * gathered into skipped ("TreeDepth: why" keys). */
static void list_notes(const char *params, long long n_test, json_t *skipped)
{
    json_t *p = params ? json_loads(params, 0, NULL) : NULL;
    json_t *part = json_object_get(p, "partition");
    const char *kind = json_string_value(json_object_get(part, "kind"));
    if (kind && !strcmp(kind, "resplit"))
        printf("    re-split 80/10/10, seed %lld (not the corpus's own partitions)\n",
               (long long)json_integer_value(json_object_get(part, "seed")));
    if (json_is_true(json_object_get(p, "small_test")))
        printf("    test set too small: %lld items, below %d\n", n_test, PRB_SMALL_TEST);
    const char *key;
    json_t *v;
    json_object_foreach(json_object_get(p, "skipped"), key, v) {
        char *line = NULL;
        if (asprintf(&line, "%s: %s", key, json_string_value(v) ? json_string_value(v) : "?") >= 0)
            json_object_set_new(skipped, line, json_true());
        free(line);
    }
    json_decref(p);
}

static int tasks_list(int argc, char **argv)
{
    struct stg_tasks_list_opts o = { 0 };
    const struct sp_optbind b[] = { { stg_tasks_list_options, &o } };
    struct cli c;
    int rc = cli_parse(&c, &tasks_list_doc, b, 1, argc, argv, 0);
    if (rc >= 0) return rc;
    struct stg_tasks_list_result r;
    rc = stg_tasks_list(&c.ctx, &o, &r);
    if (rc == SP_OK) {
        printf("%-24s %-12s %7s %6s %6s\n", "name", "kind", "tr", "va", "te");
        json_t *skipped = json_object();   /* "task: reason" once, whatever builds said it */
        for (int i = 0; i < r.n; i++) {
            printf("%-24s %-12s %7lld %6lld %6lld\n", r.rows[i].name, r.rows[i].kind, (long long)r.rows[i].n[0],
                   (long long)r.rows[i].n[1], (long long)r.rows[i].n[2]);
            list_notes(r.rows[i].params, r.rows[i].n[2], skipped);
        }
        if (json_object_size(skipped)) printf("skipped when these tasks were built:\n");
        const char *key;
        json_t *v;
        json_object_foreach(skipped, key, v) printf("    %s\n", key);
        json_decref(skipped);
    }
    stg_tasks_list_result_free(&r);
    return cli_done(&c, cli_finish_stage(&c, rc));
}

static const struct cli_sub subcommands[] = {
    { tasks_build, &tasks_build_doc }, { tasks_import, &tasks_import_doc },
    { tasks_export, &tasks_export_doc }, { tasks_list, &tasks_list_doc },
};

const struct cli_doc cmd_tasks_doc = {
    .name = "tasks",
    .purpose = "build, import, export and list probing tasks",
    .subs = subcommands,
    .n_subs = sizeof subcommands / sizeof subcommands[0],
};

int cmd_tasks(int argc, char **argv)
{
    return cli_subcommands(&cmd_tasks_doc, argc, argv);
}
