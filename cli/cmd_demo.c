/* cli/cmd_demo.c — synprobe demo: the whole pipeline on the corpus embedded in the binary.
 *
 * ingest (embedded CoNLL-U + PTB trees) -> tasks build -> encode with SAN, MS-SAN, SG-Net and
 * PSAN (seeded random init, embedded configs) -> probe -> trees -> a results table on stdout and
 * DIR/results.json. The demo is a job: it writes DIR/demo.job.json and runs it through the job
 * runner (daemon/run.c), which prints each step as the command that does the same (from the
 * stage's option table) and logs the stages' output to DIR/pipeline.log; so a new user sees the
 * job format on the first day, and `synprobe run DIR/demo.job.json` is the same experiment. */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/embedded.h"
#include "common/sp.h"
#include "cli/cli.h"
#include "cli/store_summary.h"
#include "daemon/run.h"
#include "report/rows.h"
#include "stages/manifest.h"
#include "store/st_results.h"
#include "store/st_runs.h"
#include "store/st_tasks.h"

static int write_file(const char *path, const char *data, size_t len)
{
    char err[SP_ERRLEN];
    struct sp_out o;
    if (sp_out_open(&o, path, err, sizeof err)) return -1;
    if (fwrite(data, 1, len, o.f) != len) { sp_out_abort(&o); return -1; }
    return sp_out_commit(&o, err, sizeof err) ? -1 : 0;
}

/* The example queries (store/st_examples.c; docs/sql.md), run so the demo prints real answers. */
static void print_row(void *arg, int n, const char *const *cols)
{
    (void)arg;
    printf(" ");
    for (int c = 0; c < n; c++) printf(" %s", cols[c] ? cols[c] : "");
    printf("\n");
}

static void show_examples(struct st_db *db)
{
    char err[SP_ERRLEN];
    for (const struct st_example *ex = st_examples; ex->title; ex++) {
        printf("\n%s\n", ex->title);
        if (st_example_run(db, ex, print_row, NULL, err, sizeof err)) printf("  (query failed: %s)\n", err);
    }
}

/* ---- the pipeline as a job: DIR/demo.job.json, run by the job runner (daemon/run.c), the
 * stages' log lines and results in DIR/pipeline.log ---- */

static const char *const demo_task_list[] = { "Tense", "SubjNum", "SOMO", NULL };
static const char *const demo_encoders[] = { "san", "ms-san", "sg-net", "psan", NULL };

struct demo {
    const char *dir, *db;
    FILE *log;
    int ingest_only;
};

static void log_line(void *arg, enum sp_log_level level, const char *line)
{
    struct demo *d = arg;
    if (!d->log) return;
    if (level <= SP_LOG_WARN) fprintf(d->log, "synprobe: %s%s\n", level == SP_LOG_WARN ? "warning: " : "", line);
    else fprintf(d->log, "%s\n", line);
}

static json_t *names(const char *const *v)
{
    json_t *a = json_array();
    for (; *v; v++) json_array_append_new(a, json_string(*v));
    return a;
}

/* The demo's experiment, as a user would write it: the corpus; three tasks (re-split 80/10/10,
 * asked for: the corpus has no train/dev/test of its own); SAN, MS-SAN and SG-Net over the corpus
 * (keeping layer-0 attention for the trees) and the tasks; PSAN over the corpus only (it needs a
 * constituency tree for every item, and only 12 of the 32 demo sentences have one); a probe per
 * task run; trees from every corpus run and two baselines; a report. */
static json_t *demo_job(void)
{
    json_t *corpus = json_pack("{s:s, s:[s, s], s:b}", "name", "demo", "paths", "corpus/demo.conllu", "corpus/demo.mrg",
                               "strict", 1);
    json_t *encoders = json_array();
    for (const char *const *e = demo_encoders; *e; e++) {
        json_t *in = json_array();
        json_array_append_new(in, json_string("demo"));
        for (const char *const *t = demo_task_list; strcmp(*e, "psan") && *t; t++) json_array_append_new(in, json_string(*t));
        char config[64];
        snprintf(config, sizeof config, "configs/%s.json", *e);
        json_array_append_new(encoders, json_pack("{s:s, s:o, s:i}", "config", config, "inputs", in, "attention", 0));
    }
    /* the demo corpus has no train/dev/test split: its tasks are re-split, asked for as a user must */
    return json_pack("{s:s, s:s, s:s, s:[o], s:[{s:o, s:s}], s:o, s:[{}], s:[{}, {s:s}, {s:s}], s:[{s:s, s:s}, {s:s, s:s}]}",
                     "comment", "written by synprobe demo; run it again with: synprobe run demo.job.json",
                     "store", "demo.db", "out", ".", "corpora", corpus, "tasks", "tasks", names(demo_task_list), "split", "resplit",
                     "encoders", encoders, "probes", "trees", "baseline", "right", "baseline", "random",
                     "reports", "format", "json", "out", "results.json", "format", "html", "out", "report");
}

/* After the ingest step: what the store holds, and the example queries on it. */
static void after_ingest(void *arg)
{
    struct demo *d = arg;
    char err[SP_ERRLEN];
    struct st_db *db;
    if (st_open(d->db, ST_OPEN_READONLY, &db, err, sizeof err)) { printf("  (store: %s)\n", err); return; }
    printf("\n");
    cli_info_print(db, "demo", 0, stdout);
    show_examples(db);
    st_close(db);
    if (!d->ingest_only) printf("\nPipeline, continued (the stages' output goes to %s/pipeline.log):\n", d->dir);
    fflush(stdout);
}

/* ---- the results table, from the stored rows ---- */

static void fmt_pct(char *out, size_t n, double v)
{
    if (isnan(v)) snprintf(out, n, "   n/a");
    else snprintf(out, n, "%6.2f", v);
}

/* one stored probe result per line, by task, then oldest first */
static int cmp_line(const void *a, const void *b)
{
    const struct rpt_row *x = *(const struct rpt_row *const *)a, *y = *(const struct rpt_row *const *)b;
    int c = strcmp(x->task, y->task);
    return c ? c : (x->id > y->id) - (x->id < y->id);
}

/* How the tasks were partitioned, from their stored params: the demo corpus has no train/dev/test
 * split of its own, so its job asks for the re-split, and the output says so. */
static void print_partitions(struct st_db *db)
{
    char err[SP_ERRLEN];
    struct st_task_row *rows = NULL;
    int n = 0;
    if (st_task_list(db, &rows, &n, err, sizeof err) != SP_OK) return;
    for (int i = 0; i < n; i++) {
        json_t *p = rows[i].params ? json_loads(rows[i].params, 0, NULL) : NULL;
        json_t *part = json_object_get(p, "partition");
        const char *kind = json_string_value(json_object_get(part, "kind"));
        printf("%s %-8s %s, %lld test items\n", i ? "     " : "Tasks:", rows[i].name,
               !kind ? "partitions not recorded"
               : !strcmp(kind, "resplit") ? "re-split 80/10/10 (the demo corpus has no train/dev/test split of its own)"
               : "the corpus's own partitions", (long long)rows[i].n[2]);
        json_decref(p);
    }
    st_task_rows_free(rows, n);
}

static void print_results(struct cli *c, const char *db_path, struct st_db *db)
{
    struct stg_ctx ctx = { .stop = c->ctx.stop };
    struct rpt_table t;
    printf("\n");
    print_partitions(db);
    printf("\nProbing accuracy (logreg, test %%; dev %% in brackets; majority / control = baselines):\n");
    printf("  %-8s %-8s %15s %9s %8s %12s\n", "task", "encoder", "test [dev]", "majority", "control", "selectivity");
    if (rpt_table_load(&ctx, db_path, &t) != SP_OK) memset(&t, 0, sizeof t);
    const struct rpt_row **p = sp_xmalloc(sizeof *p * (t.n + 1));
    size_t n = 0;
    for (size_t i = 0; i < t.n; i++)
        if (rpt_is_probe(&t.v[i]) && (t.v[i].flags & RPT_F_SEED)) p[n++] = &t.v[i];
    qsort(p, n, sizeof *p, cmp_line);
    for (size_t i = 0; i < n; i++) {
        char cell[5][16];
        double v[5] = { p[i]->value, p[i]->dev, p[i]->base.majority, p[i]->base.control, p[i]->base.selectivity };
        for (int k = 0; k < 5; k++) fmt_pct(cell[k], sizeof cell[k], v[k]);
        printf("  %-8.63s %-8.31s %6s [%6s] %9s %8s %12s\n", p[i]->task, p[i]->model ? p[i]->model : "-", cell[0], cell[1],
               cell[2], cell[3], cell[4]);
    }
    free(p);
    printf("  (the demo tasks have 2 dev and 2 test items: these numbers show the pipeline working, not a\n"
           "   finding; run the same commands on a treebank, e.g. the PTB sample, for real figures)\n");
    printf("\nTrees from attention (layer 0, mean span score) against the gold trees, with baselines:\n");
    printf("  %-34s %9s %14s %10s\n", "method", "sentences", "EVALB F1 (A)", "span F1 (B)");
    for (size_t i = 0; i < t.n; i++) {
        const struct rpt_row *r = &t.v[i];
        if (rpt_is_probe(r)) continue;
        char fa[16], fb[16];
        fmt_pct(fa, sizeof fa, r->kind == RPT_K_CONST ? r->value : NAN);
        fmt_pct(fb, sizeof fb, r->span_f1);
        printf("  %-34s %9ld %14s %10s\n", r->method, r->n < 0 ? 0 : r->n, fa, fb);
    }
    rpt_table_free(&t);
}

const struct cli_doc cmd_demo_doc = {
    .name = "demo",
    .purpose = "run the pipeline on the embedded demo corpus",
    .synopsis = "[options]",
    .prose =
        "Writes the embedded demo corpus to DIR/corpus/ and encoder configs to DIR/configs/, ingests the\n"
        "corpus into a fresh store DIR/demo.db (every structure cached) and prints a summary; then runs\n"
        "the pipeline: tasks build -> encode (SAN, MS-SAN, SG-Net, PSAN; seeded random init) -> probe ->\n"
        "trees, printing a results table and writing DIR/results.json. Each step runs the same stage as the\n"
        "command printed for it. An existing DIR/demo.db is never replaced without --force (which deletes\n"
        "it and starts from a fresh store).\n",
};

struct demo_opts { const char *out; int ingest_only, force; };
static const struct sp_opt demo_options[] = {
#define O(f) offsetof(struct demo_opts, f)
    { "out", SP_OPT_PATH, O(out), "synprobe-demo", .metavar = "DIR", .help = "where the corpus, configs, store and results go", .flags = SP_OPTF_OUTPUT,
      .holds = sp_guard_holds_all },
    { "ingest-only", SP_OPT_FLAG, O(ingest_only), .help = "stop after the store summary" },
    { "force", SP_OPT_FLAG, O(force), .help = "delete an existing DIR/demo.db and start from a fresh store" },
#undef O
    { 0 },
};

/* DIR, DIR/corpus, DIR/configs; a fresh DIR/demo.db path in db_path (refused if one exists
 * unless --force). */
static int prepare_dir(const struct demo_opts *o, char *db_path, size_t n)
{
    char path[4096];
    for (int k = 0; k < 3; k++) {
        snprintf(path, sizeof path, "%s%s", o->out, k == 0 ? "" : k == 1 ? "/corpus" : "/configs");
        if (mkdir(path, 0777) && errno != EEXIST)
            return cli_fail(SP_EXIT_INPUT, "demo", "%s: cannot create: %s", path, strerror(errno));
    }
    snprintf(db_path, n, "%s/demo.db", o->out);
    static const char *const suffix[] = { "", "-wal", "-shm", "-journal" };
    struct stat st;
    if (!o->force && lstat(db_path, &st) == 0)      /* a store holds work: never deleted unasked */
        return cli_fail(SP_EXIT_INPUT, "demo", "%s exists: refusing to replace a store (--force deletes it and starts "
                        "from a fresh one; or choose another --out DIR)", db_path);
    for (int k = 0; o->force && k < 4; k++) { snprintf(path, sizeof path, "%s%s", db_path, suffix[k]); unlink(path); }
    return SP_EXIT_OK;
}

/* Every embedded file written out (corpus/, configs/), and the job over them. */
static int write_inputs(const char *dir, char *job_path, size_t n)
{
    char path[4096];
    for (const struct sp_embedded *f = sp_demo_files; f->name; f++) {
        const char *dot = strrchr(f->name, '.');
        snprintf(path, sizeof path, "%s/%s/%s", dir, dot && !strcmp(dot, ".json") ? "configs" : "corpus", f->name);
        if (write_file(path, f->data, f->len)) return cli_fail(SP_EXIT_INPUT, "demo", "%s: cannot write", path);
    }
    snprintf(job_path, n, "%s/demo.job.json", dir);
    json_t *job = demo_job();
    char *text = json_dumps(job, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(job);
    int rc = write_file(job_path, text, strlen(text));
    free(text);
    return rc ? cli_fail(SP_EXIT_INPUT, "demo", "%s: cannot write", job_path) : SP_EXIT_OK;
}

/* The job's steps in order; with --ingest-only, its ingest steps only. */
static int run_job(struct cli *c, struct demo *d, const char *job_path)
{
    struct dmn_job job;
    char err[SP_ERRLEN];
    if (dmn_job_load(job_path, &job, err, sizeof err)) return cli_fail(SP_EXIT_INPUT, "demo", "%s", err);
    struct sp_guard guard = { 0 };   /* as run checks a job: e.g. DIR/report a symlink to another folder */
    if (dmn_job_guard(&job, NULL, &guard, err, sizeof err)) {
        sp_guard_free(&guard);
        dmn_job_free(&job);
        return cli_fail(SP_EXIT_USAGE, "demo", "%s", err);
    }
    if (d->ingest_only) {
        int k = 0;
        while (k < job.n_steps && job.steps[k].kind == DMN_INGEST) k++;
        job.n_steps = k;
    }
    struct sp_logger log = { SP_LOG_INFO, log_line, d };
    struct stg_ctx ctx = { .log = &log, .stop = c->ctx.stop };
    struct dmn_run_opts ro = { .out = stdout, .log = d->log, .ctx = &ctx, .command = c->command, .keep_going = 1,
                               .quiet_skips = 1, .after_ingest = after_ingest, .arg = d };
    struct dmn_run_result r;
    printf("Pipeline (the job %s; each step printed as the command that does the same):\n", job_path);
    sp_guard_install(&guard);
    int rc = dmn_run(&job, &ro, &r);
    sp_guard_install(&c->guard);
    sp_guard_free(&guard);
    dmn_job_free(&job);
    if (rc != SP_OK) fprintf(stderr, "synprobe demo: %s (see %s/pipeline.log)\n", ctx.err, d->dir);
    return cli_exit_status(rc);
}

/* The SQL extension for sqlite3's .load (without ".so"): next to this binary (build/), else in
 * ../lib/synprobe from it (an installed tree); build/synprobe_sql when neither is found. */
static void sql_extension(char *out, size_t n)
{
    char exe[4096];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    snprintf(out, n, "build/synprobe_sql");
    if (len <= 0) return;
    exe[len] = 0;
    char *slash = strrchr(exe, '/');
    if (slash) *slash = 0;
    static const char *const where[] = { "", "/../lib/synprobe" };
    for (size_t i = 0; i < 2; i++) {
        char path[4200];
        snprintf(path, sizeof path, "%s%s/synprobe_sql.so", exe, where[i]);
        char *real = realpath(path, NULL);
        if (!real) continue;
        snprintf(out, n, "%.*s", (int)strlen(real) - 3, real);
        free(real);
        return;
    }
}

int cmd_demo(int argc, char **argv)
{
    struct demo_opts o = { 0 };
    const struct sp_optbind b[] = { { demo_options, &o } };
    struct cli c;
    int rc = cli_parse(&c, &cmd_demo_doc, b, 1, argc, argv, 0);
    if (rc >= 0) return rc;
    if (!sp_demo_files[0].name) return cli_done(&c, cli_fail(SP_EXIT_USAGE, "demo", "this build has no embedded demo corpus"));
    char db_path[4096], job_path[4096], log_path[4096];
    if ((rc = prepare_dir(&o, db_path, sizeof db_path)) != SP_EXIT_OK || (rc = write_inputs(o.out, job_path, sizeof job_path)))
        return cli_done(&c, rc);
    snprintf(log_path, sizeof log_path, "%s/pipeline.log", o.out);
    /* written as the steps run (not through sp_out_open's rename at the end); never through a
     * link, and emptied only once known to be a file of its own (not a hard link's other name) */
    int log_fd = open(log_path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0666);
    struct stat log_st;
    if (log_fd < 0 || fstat(log_fd, &log_st) != 0 || !S_ISREG(log_st.st_mode) || log_st.st_nlink > 1 || ftruncate(log_fd, 0) != 0) {
        rc = cli_fail(SP_EXIT_INPUT, "demo", "%s: %s; expected a regular file or none (not followed)", log_path,
                      log_fd < 0 && errno == ELOOP ? "is a symbolic link" : log_fd < 0 ? strerror(errno) :
                      !S_ISREG(log_st.st_mode) ? "is not a regular file" : log_st.st_nlink > 1 ? "has another hard link" : strerror(errno));
        if (log_fd >= 0) close(log_fd);
        return cli_done(&c, rc);
    }
    struct demo d = { .dir = o.out, .db = db_path, .log = fdopen(log_fd, "w"), .ingest_only = o.ingest_only };
    printf("synprobe demo: %s (store %s)\n\n", stg_build_info(), db_path);
    rc = run_job(&c, &d, job_path);
    if (d.log) fclose(d.log);
    char err[SP_ERRLEN];
    struct st_db *db;
    if (!o.ingest_only && st_open(db_path, ST_OPEN_READONLY, &db, err, sizeof err) == SP_OK) {
        print_results(&c, db_path, db);
        st_close(db);
        printf("\nAll results: %s/results.json, and as a page: %s/report/report.html (also `synprobe report --db %s "
               "--format csv`)\n", o.out, o.out, db_path);
    }
    char ext[4200];
    sql_extension(ext, sizeof ext);
    printf("\nQuery the store yourself:  sqlite3 %s '.load %s' 'SELECT ...'  (see docs/sql.md)\n", db_path, ext);
    printf("Run the same experiment again, or edit it:  synprobe run %s\n", job_path);
    return cli_done(&c, rc);
}
