/* tests/unit/report_agg.c — the report's grouping of probe rows (rpt_aggregate_rows,
 * rpt_compare, rpt_encoder_label) keeps long run and task names whole: the groups
 * were keyed through fixed buffers (label 512, key 1024, compare key 512 bytes), so two names
 * alike up to the cut became one group. Expected counts by hand: one group per (encoder, task,
 * classifier), one comparison per (task, classifier) both sides have. */
#include <string.h>

#include "report/agg.h"
#include "report/rows.h"
#include "tests/unit/t_harness.h"

static json_t *row(const char *run, const char *task)
{
    return json_pack("{s:s, s:s, s:s, s:{}}", "run", run, "task", task, "classifier", "logreg", "result");
}

int main(void)
{
    struct sp_buf t1 = { 0 }, t2 = { 0 }, r1 = { 0 }, r2 = { 0 };
    for (int i = 0; i < 1100; i++) { sp_buf_puts(&t1, "x"); sp_buf_puts(&t2, "x"); }
    sp_buf_puts(&t1, "1");
    sp_buf_puts(&t2, "2");
    for (int i = 0; i < 600; i++) { sp_buf_puts(&r1, "R"); sp_buf_puts(&r2, "R"); }
    sp_buf_puts(&r1, "a");
    sp_buf_puts(&r2, "b");
    json_t *rows = json_array();
    char run[1200];
    snprintf(run, sizeof run, "A-%s", t1.p);   /* runs over tasks are NAME-TASK: encoder A */
    json_array_append_new(rows, row(run, t1.p));
    snprintf(run, sizeof run, "A-%s", t2.p);
    json_array_append_new(rows, row(run, t2.p));
    snprintf(run, sizeof run, "B-%s", t1.p);
    json_array_append_new(rows, row(run, t1.p));
    snprintf(run, sizeof run, "B-%s", t2.p);
    json_array_append_new(rows, row(run, t2.p));
    json_array_append_new(rows, row(r1.p, "t"));   /* two long encoder names alike up to 600 bytes */
    json_array_append_new(rows, row(r2.p, "t"));

    struct sp_buf label = { 0 };
    T_EQ_STR(rpt_encoder_label(json_array_get(rows, 0), &label), "A");
    T_EQ_STR(rpt_encoder_label(json_array_get(rows, 4), &label), r1.p);
    sp_buf_free(&label);

    json_t *agg = NULL, *none = json_array();
    struct rpt_table t;
    rpt_table_from(&t, rows, none, NULL, &agg);
    T_EQ_INT(json_array_size(agg), 6);           /* A x 2 tasks, B x 2 tasks, each long encoder */
    T_EQ_INT(t.n, 12);                           /* the aggregates' rows, then the results' */
    json_decref(agg);
    T_EQ_INT(rpt_compare(&t, "A", "B"), 2);      /* both long tasks */
    T_EQ_INT(t.n_cmp, 2);
    rpt_table_free(&t);
    json_decref(none);
    json_decref(rows);
    sp_buf_free(&t1); sp_buf_free(&t2); sp_buf_free(&r1); sp_buf_free(&r2);
    return T_DONE();
}
