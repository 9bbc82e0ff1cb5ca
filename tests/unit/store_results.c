/* tests/unit/store_results.c — probe_result / tree_eval rows (store/st_results.h): batched puts are
 * all-or-nothing (an unknown run in the last row leaves no row), ids come back in order, listing
 * filters by run, task, classifier, method and corpus, NULL columns read back as NULL, and the
 * task metadata lookup. Expected values are the inputs written here. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/sp.h"
#include "store/st_results.h"
#include "store/st_tasks.h"
#include "t_harness.h"

struct seen { int n; int64_t id[16]; char task[16][32], run[16][32], cls[16][16]; int has_test[16]; double test[16]; };

static int on_probe(void *ctx, const struct st_probe_row *r)
{
    struct seen *s = ctx;
    if (s->n >= 16) return 1;
    s->id[s->n] = r->id;
    snprintf(s->task[s->n], 32, "%s", r->task_name);
    snprintf(s->run[s->n], 32, "%s", r->run ? r->run : "(null)");
    snprintf(s->cls[s->n], 16, "%s", r->classifier);
    s->has_test[s->n] = r->has_test;
    s->test[s->n] = r->test_acc;
    s->n++;
    return 0;
}

static int on_tree(void *ctx, const struct st_tree_row *r)
{
    struct seen *s = ctx;
    if (s->n >= 16) return 1;
    s->id[s->n] = r->id;
    snprintf(s->task[s->n], 32, "%s", r->method);
    snprintf(s->run[s->n], 32, "%s", r->corpus ? r->corpus : "(null)");
    s->n++;
    return 0;
}

static int stop_first(void *ctx, const struct st_probe_row *r)
{
    (void)r;
    ++*(int *)ctx;
    return 7;
}

int main(void)
{
    char path[] = "/tmp/sp-store-results-XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    unlink(path);
    char err[SP_ERRLEN];
    struct st_db *db;
    T_EQ_INT(st_open(path, ST_OPEN_CREATE, &db, err, sizeof err), SP_OK);

    /* a run to refer to, and a corpus */
    T_EQ_INT(st_exec(db, "INSERT INTO encoder (fingerprint, kind, config, dim) VALUES ('fp', 'bow', '{}', 4);"
                         "INSERT INTO run (name, encoder_id) VALUES ('r1', 1);"
                         "INSERT INTO corpus (name) VALUES ('ptb')", err, sizeof err), SP_OK);
    int64_t corpus = 0;
    T_EQ_INT(st_corpus_id(db, "ptb", 0, &corpus, err, sizeof err), SP_OK);

    /* all-or-nothing: the third row names an unknown run */
    struct st_probe_result pr[3] = {
        { .run = "r1", .task_name = "SentLen", .classifier = "logreg", .seed = 1, .has_dev = 1, .dev_acc = 50.5,
          .has_test = 1, .test_acc = 49.25, .result = "{\"a\":1}" },
        { .run = NULL, .task_name = "TreeDepth", .classifier = "mlp", .seed = 2, .has_dev = 1, .dev_acc = 30,
          .has_test = 0, .result = "{}" },
        { .run = "nosuch", .task_name = "BShift", .classifier = "logreg", .seed = 3, .result = "{}" },
    };
    int64_t ids[3] = { 0 };
    T_EQ_INT(st_probe_results_put(db, pr, 3, ids, err, sizeof err), SP_EPARSE);
    T_CHECK(strstr(err, "no run 'nosuch'") != NULL);
    struct seen s = { 0 };
    T_EQ_INT(st_probe_results_each(db, NULL, on_probe, &s, err, sizeof err), SP_OK);
    T_EQ_INT(s.n, 0);

    /* the first two alone go in, ids in order */
    T_EQ_INT(st_probe_results_put(db, pr, 2, ids, err, sizeof err), SP_OK);
    T_CHECK(ids[0] > 0 && ids[1] == ids[0] + 1);
    memset(&s, 0, sizeof s);
    T_EQ_INT(st_probe_results_each(db, NULL, on_probe, &s, err, sizeof err), SP_OK);
    T_EQ_INT(s.n, 2);
    T_EQ_STR(s.task[0], "SentLen");
    T_EQ_STR(s.run[0], "r1");
    T_EQ_STR(s.run[1], "(null)");
    T_EQ_INT(s.has_test[0], 1);
    T_NEAR(s.test[0], 49.25, 0);
    T_EQ_INT(s.has_test[1], 0);

    /* same task/classifier/seed again: a new row, not a replacement */
    T_EQ_INT(st_probe_results_put(db, pr, 1, ids, err, sizeof err), SP_OK);

    struct st_result_filter f = { .run = "r1" };
    memset(&s, 0, sizeof s);
    T_EQ_INT(st_probe_results_each(db, &f, on_probe, &s, err, sizeof err), SP_OK);
    T_EQ_INT(s.n, 2);
    f = (struct st_result_filter){ .classifier = "mlp" };
    memset(&s, 0, sizeof s);
    T_EQ_INT(st_probe_results_each(db, &f, on_probe, &s, err, sizeof err), SP_OK);
    T_EQ_INT(s.n, 1);
    T_EQ_STR(s.task[0], "TreeDepth");
    f = (struct st_result_filter){ .task = "SentLen", .classifier = "logreg" };
    memset(&s, 0, sizeof s);
    T_EQ_INT(st_probe_results_each(db, &f, on_probe, &s, err, sizeof err), SP_OK);
    T_EQ_INT(s.n, 2);
    int calls = 0;
    T_EQ_INT(st_probe_results_each(db, NULL, stop_first, &calls, err, sizeof err), 7);
    T_EQ_INT(calls, 1);

    /* tree evaluations */
    struct st_tree_eval te[2] = {
        { .run = NULL, .corpus_id = corpus, .method = "right", .result = "{\"n_sentences\":3}" },
        { .run = "r1", .corpus_id = 0, .method = "attention:a.npy:mean", .result = "{}" },
    };
    T_EQ_INT(st_tree_evals_put(db, te, 2, ids, err, sizeof err), SP_OK);
    memset(&s, 0, sizeof s);
    T_EQ_INT(st_tree_evals_each(db, NULL, on_tree, &s, err, sizeof err), SP_OK);
    T_EQ_INT(s.n, 2);
    T_EQ_STR(s.task[0], "right");
    T_EQ_STR(s.run[0], "ptb");
    T_EQ_STR(s.run[1], "(null)");
    f = (struct st_result_filter){ .corpus = "ptb" };
    memset(&s, 0, sizeof s);
    T_EQ_INT(st_tree_evals_each(db, &f, on_tree, &s, err, sizeof err), SP_OK);
    T_EQ_INT(s.n, 1);
    f = (struct st_result_filter){ .run = "r1", .method = "attention:a.npy:mean" };
    memset(&s, 0, sizeof s);
    T_EQ_INT(st_tree_evals_each(db, &f, on_tree, &s, err, sizeof err), SP_OK);
    T_EQ_INT(s.n, 1);
    te[0].run = "nosuch";
    T_EQ_INT(st_tree_evals_put(db, te, 2, NULL, err, sizeof err), SP_EPARSE);
    memset(&s, 0, sizeof s);
    T_EQ_INT(st_tree_evals_each(db, NULL, on_tree, &s, err, sizeof err), SP_OK);
    T_EQ_INT(s.n, 2);

    /* task metadata */
    struct st_task_item it[1] = { { "tr", "A", "x y", 0, NULL } };
    struct st_task_put tp = { { "T1", 0, "SentLen", 1, 5, "{\"k\":1}" }, it, 1 };
    T_EQ_INT(st_tasks_put(db, &tp, 1, 0, err, sizeof err), SP_OK);
    struct st_task_meta m;
    T_EQ_INT(st_result_task_meta(db, "T1", &m, err, sizeof err), SP_OK);
    T_CHECK(m.id > 0);
    T_EQ_STR(m.kind, "SentLen");
    T_EQ_INT(m.has_seed, 1);
    T_EQ_INT(m.seed, 5);
    T_EQ_STR(m.params, "{\"k\":1}");
    free(m.params);
    T_EQ_INT(st_result_task_meta(db, "nope", &m, err, sizeof err), SP_EPARSE);
    T_CHECK(strstr(err, "no task 'nope'") != NULL);

    st_close(db);
    char side[600];
    unlink(path);
    snprintf(side, sizeof side, "%s-wal", path);
    unlink(side);
    snprintf(side, sizeof side, "%s-shm", path);
    unlink(side);
    return T_DONE();
}
