/* daemon/step_tasks.c — the step kinds "tasks build" and "tasks import": a job's "tasks" entries
 * (daemon/step.h). The task names they make are what encoders' inputs and probes may name. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "daemon/job_int.h"
#include "probes/task_derive.h"
#include "stages/probe.h"
#include "stages/splits.h"
#include "stages/tasks.h"

static int add_task(struct dmn_parse *P, const char *where, const char *name)
{
    if (dmn_jp_find_name(P->tasks, P->n_tasks, name) >= 0) return dmn_jp_fail(P, "%s: task '%s' is made twice", where, name);
    P->doomed = sp_xrealloc(P->doomed, sizeof *P->doomed * (size_t)(P->n_tasks + 1));
    P->doomed[P->n_tasks] = NULL;
    dmn_jp_push_name(&P->tasks, &P->n_tasks, name);
    return SP_OK;
}

/* The files a tasks build reads, tallied (its corpus-files, or the files the job ingests into its
 * corpora); who: "its corpus-files", "corpus 'a'", "corpora 'a', 'b'". */
static void build_tally(struct dmn_parse *P, const struct stg_tasks_build_opts *o, struct stg_split_tally *t, struct sp_buf *who)
{
    memset(t, 0, sizeof *t);
    if (o->corpus_files.n) {
        for (int i = 0; i < o->corpus_files.n; i++) stg_split_tally_path(t, o->corpus_files.v[i], NULL, 1);
        sp_buf_puts(who, "its corpus-files");
        return;
    }
    sp_buf_puts(who, o->corpus.n == 1 ? "corpus " : "corpora ");
    for (int i = 0; i < o->corpus.n; i++) {
        stg_split_tally_sum(t, &P->splits[dmn_jp_find_name(P->corpora, P->n_corpora, o->corpus.v[i])]);
        sp_buf_printf(who, "%s'%s'", i ? ", " : "", o->corpus.v[i]);
    }
}

/* A tasks build without "split": "resplit" needs the official partitions of its corpora, known
 * from the files the job ingests into them (UD names, the entry's "split", WSJ sections: the
 * rule tasks build applies to the stored sentences, stages/splits.h); without them the job is
 * refused now, before any step runs, as the tasks step would stop after the ingest. */
static int official_or_stop(struct dmn_parse *P, const struct stg_tasks_build_opts *o, const char *where)
{
    struct stg_split_tally t;
    struct sp_buf who = { 0 };
    build_tally(P, o, &t, &who);
    sp_buf_puts(&who, o->corpus_files.n || o->corpus.n > 1 ? " have" : " has");
    const char *why;
    int rc = SP_OK;
    if (stg_split_decide(&t, &why) == STG_SPLIT_NONE) {
        char has[256];
        stg_split_describe(&t, "file", has, sizeof has);
        rc = dmn_jp_fail(P, "%s: %s no official train/test partitions: %s (%s); tasks are not re-split unasked: add "
                  "\"split\": \"resplit\" to this tasks entry for a seeded 80/10/10 re-split (synprobe tasks build "
                  "--split resplit), or give the corpus its train and test files (UD names *-ud-train|dev|test.conllu; \"split\" "
                  "of the corpus entry)",
                  where, who.p, why, has);
    }
    sp_buf_free(&who);
    return rc;
}

/* tasks build (the default: from corpora) or tasks import (an entry with "file") */
static int task_entry(struct dmn_parse *P, json_t *e, const char *where)
{
    json_t *c = dmn_jp_entry(P, e, where);
    if (!c) return SP_EUSAGE;
    int imp = json_object_get(c, "file") != NULL, rc;
    struct dmn_step *s = dmn_jp_new_step(P, imp ? DMN_TASKS_IMPORT : DMN_TASKS_BUILD, where);
    rc = dmn_jp_fill(P, s, c, where, NULL);
    json_decref(c);
    if (rc) return rc;
    if (imp) {
        struct stg_tasks_import_opts *o = s->opts;
        return o->name ? add_task(P, where, o->name) : dmn_jp_fail(P, "%s: \"name\" is required with \"file\"", where);
    }
    struct stg_tasks_build_opts *o = s->opts;
    if (!o->corpus.n && !o->corpus_files.n) {
        if (!P->n_corpora) return dmn_jp_fail(P, "%s.corpus: the job has no corpora to build tasks from", where);
        const char **v = sp_arena_alloc(&P->job->arena, sizeof *v * (size_t)(P->n_corpora + 1));
        memcpy(v, P->corpora, sizeof *v * (size_t)P->n_corpora);   /* P->corpora dies with the parse */
        o->corpus = (struct sp_strlist){ v, P->n_corpora };
    }
    for (int i = 0; i < o->corpus.n; i++)
        if (dmn_jp_find_name(P->corpora, P->n_corpora, o->corpus.v[i]) < 0)
            return dmn_jp_fail_name(P, sp_arena_printf(&P->job->arena, "%s.corpus[%d]", where, i), o->corpus.v[i], "corpus",
                             P->corpora, P->n_corpora);
    const char *names[PRB_NTASKS];
    for (int t = 0; t < PRB_NTASKS; t++) names[t] = prb_task_name((enum prb_task_id)t);
    int all = !o->tasks.n;
    for (int i = 0; i < o->tasks.n; i++) all |= !strcasecmp(o->tasks.v[i], "all");
    for (int i = 0; !all && i < o->tasks.n; i++)
        if (dmn_jp_find_name(names, PRB_NTASKS, o->tasks.v[i]) < 0)
            return dmn_jp_fail_name(P, sp_arena_printf(&P->job->arena, "%s.tasks[%d]", where, i), o->tasks.v[i], "probing task",
                             names, PRB_NTASKS);
    struct stg_split_tally t;
    struct sp_buf who = { 0 };
    build_tally(P, o, &t, &who);
    for (int i = 0; i < (all ? PRB_NTASKS : o->tasks.n); i++) {
        const char *t_name = all ? names[i] : o->tasks.v[i];
        const char *name = sp_arena_printf(&P->job->arena, "%s%s", o->prefix ? o->prefix : "", t_name);
        if ((rc = add_task(P, where, name))) break;
        /* TreeDepth/TopConst from files without constituency trees: skipped when built, so no step may read them */
        int id = prb_task_lookup(t_name);
        if (!t.trees && t.n && (id == PRB_TREEDEPTH || id == PRB_TOPCONST))
            P->doomed[P->n_tasks - 1] = sp_arena_printf(&P->job->arena, "%s builds no %s: it needs constituency trees "
                                                        "(.mrg files), and %s %s none (dependency corpora, UD "
                                                        "CoNLL-U, have none)", where, prb_task_name((enum prb_task_id)id),
                                                        who.p, o->corpus_files.n || o->corpus.n > 1 ? "have" : "has");
    }
    sp_buf_free(&who);
    return rc;
}

/* the partitions after the options' rules: an option error is what a user fixes first */
static int check_job_tasks(struct dmn_parse *P, const struct dmn_step *s)
{
    const struct stg_tasks_build_opts *o = s->opts;
    return o->split == STG_SPLIT_RESPLIT ? SP_OK : official_or_stop(P, o, s->where);
}

static int run_tasks_import(const struct dmn_run_opts *ro, const struct dmn_step *s, struct dmn_step_out *so)
{
    struct stg_tasks_import_result r;
    int rc = stg_tasks_import(ro->ctx, s->opts, &r);
    snprintf(so->summary, sizeof so->summary, "%d items imported", rc ? 0 : r.n_items);
    return rc;
}
static int run_tasks_build(const struct dmn_run_opts *ro, const struct dmn_step *s, struct dmn_step_out *so)
{
    const struct stg_tasks_build_opts *o = s->opts;
    if (o->out) dmn_run_make_parents(o->out, 1);
    struct stg_tasks_build_result r;
    int rc = stg_tasks_build(ro->ctx, o, &r);
    dmn_run_log_json(ro->log, r.summary);
    struct sp_buf b = { 0 };
    sp_buf_printf(&b, "%d tasks built, %d stored", r.n_built, r.n_stored);
    /* what the build knows now and the probes would find out after the encodes: said here */
    json_t *unfit = NULL;
    struct stg_ctx c = *ro->ctx;
    if (rc == SP_OK && o->db && stg_probe_unfit_tasks_at(&c, o->db, &unfit) == SP_OK) {
        int k = 0;
        for (int id = 0; id < PRB_NTASKS; id++) {
            if (!r.ts.task[id].built) continue;
            char name[512];
            snprintf(name, sizeof name, "%s%s", o->prefix ? o->prefix : "", prb_task_name((enum prb_task_id)id));
            const char *why = json_string_value(json_object_get(unfit, name));
            if (why) sp_buf_printf(&b, "%s%s (%s)", k++ ? ", " : "; the probing protocol cannot run on ", name, why);
        }
        if (k) sp_buf_printf(&b, ": %s encodes and probes are skipped", k == 1 ? "its" : "their");
    }
    json_decref(unfit);
    snprintf(so->summary, sizeof so->summary, "%s", b.p);
    sp_buf_free(&b);
    stg_tasks_build_result_free(&r);
    return rc;
}

static void what_tasks_build(json_t *o, struct sp_buf *b)
{
    struct sp_buf t = { 0 };
    const char *corpus = dmn_step_opt_text(o, "corpus", &t);
    if (corpus) sp_buf_printf(b, " %s", corpus);
    sp_buf_free(&t);
}

static int check_build(struct stg_ctx *ctx, const void *opts) { return stg_tasks_build_check(ctx, opts); }
static int check_import(struct stg_ctx *ctx, const void *opts) { return stg_tasks_import_check(ctx, opts); }

/* "tasks" entries: tasks build (from corpora), or tasks import (an entry with "file") */
const struct dmn_step_def dmn_step_tasks_build = {
    .words = "tasks build", .section = "tasks", .table = stg_tasks_build_options,
    .size = sizeof(struct stg_tasks_build_opts), .entry = task_entry, .check = check_build,
    .check_job = check_job_tasks, .run = run_tasks_build, .what = what_tasks_build, .flags = DMN_STEP_LEDGER,
};

const struct dmn_step_def dmn_step_tasks_import = {
    .words = "tasks import", .table = stg_tasks_import_options, .size = sizeof(struct stg_tasks_import_opts),
    .check = check_import, .run = run_tasks_import, .flags = DMN_STEP_LEDGER,
};
