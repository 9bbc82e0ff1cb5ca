/* tests/unit/stages_concurrent.c — the stage contract (stages/stage.h) on the demo corpus:
 *   - two pipelines (ingest → tasks build → encode → trees, encode → probe) run at once in two
 *     threads of one process, each with its own context and store, give exactly the numbers the
 *     same pipeline gives alone (stages keep no global state; the encoder's results do not depend
 *     on what else runs);
 *   - a stage asked to stop before it starts returns SP_ESTOPPED and stores nothing: the same
 *     stage run afterwards does all the work (nothing was half-written, nothing was skipped). */
#include <pthread.h>
#include <jansson.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stages/encode.h"
#include "stages/ingest.h"
#include "stages/probe.h"
#include "stages/tasks.h"
#include "stages/trees.h"
#include "t_harness.h"

struct outcome {
    int rc;                      /* the first failure, SP_OK when all went through */
    const char *step;
    double trees_f, probe_acc;
    long encoded;
    char err[SP_ERRLEN];
};

struct pipeline {
    char db[512];
    struct stg_ctx ctx;
    struct sp_arena arena;
    struct outcome out;
};

static struct sp_strlist one(struct pipeline *p, const char *s)
{
    const char **v = sp_arena_alloc(&p->arena, 2 * sizeof *v);
    v[0] = s;
    return (struct sp_strlist){ v, 1 };
}

static int fail(struct pipeline *p, const char *step, int rc)
{
    p->out.rc = rc;
    p->out.step = step;
    snprintf(p->out.err, sizeof p->out.err, "%s", p->ctx.err);
    return rc;
}

static int run_ingest(struct pipeline *p)
{
    struct stg_ingest_opts o = { 0 };
    sp_opt_defaults(stg_ingest_options, &o, &p->arena);
    o.db = p->db;
    o.corpus = "demo";
    const char **v = sp_arena_alloc(&p->arena, 3 * sizeof *v);
    v[0] = "demo/demo.conllu";
    v[1] = "demo/demo.mrg";
    o.inputs = (struct sp_strlist){ v, 2 };
    struct stg_ingest_result r;
    int rc = stg_ingest(&p->ctx, &o, &r);
    stg_ingest_result_free(&r);
    return rc ? fail(p, "ingest", rc) : SP_OK;
}

static int run_tasks(struct pipeline *p)
{
    struct stg_tasks_build_opts o = { 0 };
    sp_opt_defaults(stg_tasks_build_options, &o, &p->arena);
    o.db = p->db;
    o.corpus = one(p, "demo");
    o.tasks = one(p, "Tense");
    o.split = STG_SPLIT_RESPLIT;   /* the demo corpus has no train/dev/test of its own */
    struct stg_tasks_build_result r;
    int rc = stg_tasks_build(&p->ctx, &o, &r);
    stg_tasks_build_result_free(&r);
    return rc ? fail(p, "tasks build", rc) : SP_OK;
}

static int run_encode(struct pipeline *p, const char *corpus, const char *task, const char *run)
{
    struct stg_encode_opts o = { 0 };
    sp_opt_defaults(stg_encode_options, &o, &p->arena);
    o.db = p->db;
    if (corpus) { o.corpus = one(p, corpus); o.attention = 0; }
    if (task) o.task = one(p, task);
    o.encoder = "encoder/configs/ms-san.json";
    o.run = run;
    struct stg_encode_result r;
    int rc = stg_encode(&p->ctx, &o, &r);
    if (rc == SP_OK) p->out.encoded += r.in[0].encoded;
    stg_encode_result_free(&r);
    return rc ? fail(p, "encode", rc) : SP_OK;
}

static int run_trees(struct pipeline *p)
{
    struct stg_trees_opts o = { 0 };
    sp_opt_defaults(stg_trees_options, &o, &p->arena);
    o.db = p->db;
    o.corpus = "demo";
    o.run = "ms";
    struct stg_trees_result r;
    int rc = stg_trees(&p->ctx, &o, &r);
    if (rc == SP_OK) p->out.trees_f = r.m.a_all.fmeasure;
    stg_trees_result_free(&r);
    return rc ? fail(p, "trees", rc) : SP_OK;
}

static int run_probe(struct pipeline *p)
{
    struct stg_probe_opts o = { 0 };
    sp_opt_defaults(stg_probe_options, &o, &p->arena);
    o.db = p->db;
    o.task = one(p, "Tense");
    o.run = "ms-Tense";
    struct stg_probe_result r;
    int rc = stg_probe(&p->ctx, &o, &r);
    if (rc == SP_OK && r.n == 1) p->out.probe_acc = json_number_value(json_object_get(r.runs[0].json, "acc"));
    stg_probe_result_free(&r);
    return rc ? fail(p, "probe", rc) : SP_OK;
}

static void *pipeline_main(void *arg)
{
    struct pipeline *p = arg;
    if (run_ingest(p) || run_tasks(p) || run_encode(p, "demo", NULL, "ms") || run_trees(p) ||
        run_encode(p, NULL, "Tense", "ms-Tense") || run_probe(p))
        fprintf(stderr, "pipeline %s: %s: %s\n", p->db, p->out.step, p->out.err);
    return NULL;
}

static void pipeline_init(struct pipeline *p, const char *dir, const char *name, const atomic_int *stop)
{
    memset(p, 0, sizeof *p);
    snprintf(p->db, sizeof p->db, "%s/%s.db", dir, name);
    p->ctx.stop = stop;
    sp_arena_init(&p->arena);
}

static void check_same(const struct outcome *a, const struct outcome *b, const char *what)
{
    T_EQ_INT(a->rc, SP_OK);
    T_EQ_INT(b->rc, SP_OK);
    T_EQ_INT(b->encoded, a->encoded);
    T_CHECK(memcmp(&a->trees_f, &b->trees_f, sizeof a->trees_f) == 0);     /* the same bits */
    T_CHECK(memcmp(&a->probe_acc, &b->probe_acc, sizeof a->probe_acc) == 0);
    if (a->trees_f != b->trees_f || a->probe_acc != b->probe_acc)
        fprintf(stderr, "%s: trees F %.17g vs %.17g, probe acc %.17g vs %.17g\n", what, a->trees_f, b->trees_f,
                a->probe_acc, b->probe_acc);
}

int main(void)
{
    char dir[] = "/tmp/stages_concurrent.XXXXXX";
    if (!mkdtemp(dir)) { perror("mkdtemp"); return 1; }

    /* alone */
    struct pipeline alone, a, b;
    pipeline_init(&alone, dir, "alone", NULL);
    pipeline_main(&alone);
    T_EQ_INT(alone.out.rc, SP_OK);
    T_EQ_INT(alone.out.encoded, 32);               /* every demo sentence; the Tense items are those sentences: cached */
    T_CHECK(alone.out.trees_f > 0 && alone.out.trees_f <= 100);
    T_CHECK(alone.out.probe_acc >= 0 && alone.out.probe_acc <= 100);

    /* two at once, one process */
    pipeline_init(&a, dir, "a", NULL);
    pipeline_init(&b, dir, "b", NULL);
    pthread_t ta, tb;
    pthread_create(&ta, NULL, pipeline_main, &a);
    pthread_create(&tb, NULL, pipeline_main, &b);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    check_same(&alone.out, &a.out, "thread a");
    check_same(&alone.out, &b.out, "thread b");

    /* asked to stop before starting: SP_ESTOPPED, nothing stored, so the next run does it all */
    atomic_int stop = 1;
    struct pipeline s;
    pipeline_init(&s, dir, "stopped", &stop);
    T_EQ_INT(run_ingest(&s), SP_ESTOPPED);
    s.ctx.stop = NULL;
    T_EQ_INT(run_ingest(&s), SP_OK);
    T_EQ_INT(run_tasks(&s), SP_OK);
    s.ctx.stop = &stop;
    T_EQ_INT(run_encode(&s, "demo", NULL, "ms"), SP_ESTOPPED);
    s.ctx.stop = NULL;
    s.out.encoded = 0;
    T_EQ_INT(run_encode(&s, "demo", NULL, "ms"), SP_OK);
    T_EQ_INT(s.out.encoded, 32);                   /* nothing of the stopped run was cached */
    T_EQ_INT(run_encode(&s, NULL, "Tense", "ms-Tense"), SP_OK);
    s.ctx.stop = &stop;
    T_EQ_INT(run_trees(&s), SP_ESTOPPED);
    T_EQ_INT(run_probe(&s), SP_ESTOPPED);
    s.ctx.stop = NULL;
    s.out.rc = SP_OK;
    T_EQ_INT(run_trees(&s), SP_OK);
    T_EQ_INT(run_probe(&s), SP_OK);
    check_same(&alone.out, &s.out, "after stops");

    sp_arena_free(&alone.arena);
    sp_arena_free(&a.arena);
    sp_arena_free(&b.arena);
    sp_arena_free(&s.arena);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
    return T_DONE();
}
