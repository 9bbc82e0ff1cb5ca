/* cli/cmd_demo.c — synprobe demo: the whole pipeline on the corpus embedded in the binary.
 *
 * ingest (embedded CoNLL-U + PTB trees) -> tasks build -> encode with SAN, MS-SAN, SG-Net and
 * PSAN (seeded random init, embedded configs) -> probe -> trees -> a results table on stdout and
 * DIR/results.json (`synprobe report --format json`). Every step calls the stage the command
 * would call and is printed as that command (from the stage's option table), its log lines in
 * DIR/pipeline.log, so the demo exercises the same code paths and doubles as a recipe. */
#include <errno.h>
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
#include "cli/info.h"
#include "stages/ingest.h"
#include "stages/manifest.h"
#include "stages/probe.h"
#include "stages/encode.h"
#include "stages/report.h"
#include "stages/tasks.h"
#include "stages/trees.h"
#include "store/results.h"
#include "store/runs.h"

static int write_file(const char *path, const char *data, size_t len)
{
    char err[SP_ERRLEN];
    struct sp_out o;
    if (sp_out_open(&o, path, err, sizeof err)) return -1;
    if (fwrite(data, 1, len, o.f) != len) { sp_out_abort(&o); return -1; }
    return sp_out_commit(&o, err, sizeof err) ? -1 : 0;
}

/* The README's example queries (store/st_examples.c), run so the demo prints real answers. */
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

/* ---- the pipeline after ingest: each step is a stage called directly, printed as the command
 * that would do the same (from its option table), its log lines in DIR/pipeline.log ---- */

static const char *const demo_task_list[] = { "Tense", "SubjNum", "SOMO", NULL };
static const char *const demo_encoders[] = { "san", "ms-san", "sg-net", "psan", NULL };

struct demo {
    const char *dir, *db, *log_path;
    FILE *log;
    struct sp_logger logger;
    struct stg_ctx ctx;
    struct sp_arena arena;         /* option values of every step */
    const char *step;              /* the command word of the step running, for log prefixes */
    struct sp_strlist command;     /* what the manifests record: synprobe demo ... */
    int n_failed;
};

static void log_line(void *arg, enum sp_log_level level, const char *line)
{
    struct demo *d = arg;
    if (!d->log) return;
    if (level <= SP_LOG_WARN) fprintf(d->log, "synprobe %s: %s%s\n", d->step, level == SP_LOG_WARN ? "warning: " : "", line);
    else fprintf(d->log, "%s\n", line);
}

/* Print "  $ synprobe WORDS --opt value ..." (the options that differ from the defaults) on
 * stdout and in the log, and reset the context for the step. */
static void step_begin(struct demo *d, const char *words, const struct sp_opt *table, const void *opts, const void *defaults)
{
    struct sp_buf b = { 0 };
    sp_opt_format_args(table, opts, defaults, &b);
    printf("  $ synprobe %s%.*s\n", words, (int)b.len, b.p ? b.p : "");
    fflush(stdout);
    if (d->log) fprintf(d->log, "\n$ synprobe %s%.*s\n", words, (int)b.len, b.p ? b.p : "");
    sp_buf_free(&b);
    d->step = words;
    d->ctx.err[0] = 0;
}

static int step_end(struct demo *d, int rc)
{
    if (rc == SP_OK) return rc;
    if (d->log) fprintf(d->log, "synprobe %s: %s\n", d->step, d->ctx.err);
    printf("    -> exit %d (see %s)\n", cli_exit_status(rc), d->log_path);
    d->n_failed++;
    return rc;
}

static void log_json(struct demo *d, json_t *j)
{
    if (!d->log || !j) return;
    json_dumpf(j, d->log, JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
    fputc('\n', d->log);
}

/* a list of one name, in the demo's arena */
static struct sp_strlist one_name(struct demo *d, const char *name)
{
    const char **v = sp_arena_alloc(&d->arena, 2 * sizeof *v);
    v[0] = name;
    return (struct sp_strlist){ v, 1 };
}

static int step_tasks_build(struct demo *d)
{
    struct stg_tasks_build_opts o = { 0 }, def = { 0 };
    sp_opt_defaults(stg_tasks_build_options, &def, &d->arena);
    o = def;
    o.db = d->db;
    o.corpus = one_name(d, "demo");
    const char **t = sp_arena_alloc(&d->arena, 4 * sizeof *t);
    for (int i = 0; i < 3; i++) t[i] = demo_task_list[i];
    o.tasks = (struct sp_strlist){ t, 3 };
    o.seed = 1;
    step_begin(d, "tasks build", stg_tasks_build_options, &o, &def);
    struct stg_tasks_build_result r;
    int rc = stg_tasks_build(&d->ctx, &o, &r);
    log_json(d, r.summary);
    stg_tasks_build_result_free(&r);
    return step_end(d, rc);
}

/* encode a corpus (keeping layer-0 attention for the trees) or a task */
static int step_encode(struct demo *d, const char *config, const char *run, const char *corpus, const char *task)
{
    struct stg_encode_opts o = { 0 }, def = { 0 };
    sp_opt_defaults(stg_encode_options, &def, &d->arena);
    o = def;
    o.db = d->db;
    if (corpus) o.corpus = one_name(d, corpus);
    if (task) o.task = one_name(d, task);
    o.encoder = config;
    o.run = run;
    if (corpus) o.attention = 0;
    o.command = d->command;
    step_begin(d, "encode", stg_encode_options, &o, &def);
    struct stg_encode_result r;
    int rc = stg_encode(&d->ctx, &o, &r);
    stg_encode_result_free(&r);
    return step_end(d, rc);
}

static int step_trees(struct demo *d, const char *run, const char *baseline)
{
    struct stg_trees_opts o = { 0 }, def = { 0 };
    sp_opt_defaults(stg_trees_options, &def, &d->arena);
    o = def;
    o.db = d->db;
    o.corpus = "demo";
    o.run = run;
    o.baseline = baseline;
    o.command = d->command;
    step_begin(d, "trees", stg_trees_options, &o, &def);
    struct stg_trees_result r;
    int rc = stg_trees(&d->ctx, &o, &r);
    log_json(d, r.json);
    stg_trees_result_free(&r);
    return step_end(d, rc);
}

static int step_probe(struct demo *d, const char *task, const char *run)
{
    struct stg_probe_opts o = { 0 }, def = { 0 };
    sp_opt_defaults(stg_probe_options, &def, &d->arena);
    o = def;
    o.db = d->db;
    o.task = one_name(d, task);
    o.run = run;
    o.command = d->command;
    step_begin(d, "probe", stg_probe_options, &o, &def);
    struct stg_probe_result r;
    int rc = stg_probe(&d->ctx, &o, &r);
    for (int i = 0; i < r.n; i++)
        if (d->log && r.runs[i].text) fputs(r.runs[i].text, d->log);
    stg_probe_result_free(&r);
    return step_end(d, rc);
}

static int step_report(struct demo *d, const char *path)
{
    struct stg_report_opts o = { 0 }, def = { 0 };
    sp_opt_defaults(stg_report_options, &def, &d->arena);
    o = def;
    o.db = d->db;
    o.format = STG_REPORT_JSON;
    o.out = path;
    step_begin(d, "report", stg_report_options, &o, &def);
    struct sp_out out;
    int rc = sp_out_open(&out, path, d->ctx.err, sizeof d->ctx.err) ? SP_EIO : SP_OK;
    if (rc == SP_OK) {
        o.f = out.f;
        struct stg_report_result r;
        rc = stg_report(&d->ctx, &o, &r);
        if (rc == SP_OK) rc = sp_out_commit(&out, d->ctx.err, sizeof d->ctx.err) ? SP_EIO : SP_OK;
        else sp_out_abort(&out);
    }
    return step_end(d, rc);
}

/* ---- the results table, from the stored rows ---- */

struct probe_line { char task[64], encoder[32], cells[5][16]; int64_t id; };
struct probe_lines { struct probe_line *v; int n, cap; struct st_db *db; };

static void fmt_pct(char *out, size_t n, int has, double v)
{
    if (!has || isnan(v)) snprintf(out, n, "   n/a");
    else snprintf(out, n, "%6.2f", v);
}

static void fmt_json_pct(char *out, size_t n, json_t *root, const char *a, const char *b)
{
    json_t *v = json_object_get(json_object_get(json_object_get(root, "baselines"), a), b);
    fmt_pct(out, n, json_is_number(v), json_number_value(v));
}

static int collect_probe(void *arg, const struct st_probe_row *row)
{
    struct probe_lines *L = arg;
    if (L->n == L->cap) { L->cap = L->cap ? 2 * L->cap : 32; L->v = sp_xrealloc(L->v, sizeof *L->v * (size_t)L->cap); }
    struct probe_line *p = &L->v[L->n++];
    memset(p, 0, sizeof *p);
    p->id = row->id;
    snprintf(p->task, sizeof p->task, "%s", row->task_name);
    snprintf(p->encoder, sizeof p->encoder, "-");
    struct st_run_info ri;
    char err[SP_ERRLEN];
    if (row->run && st_run_info(L->db, row->run, &ri, err, sizeof err) == SP_OK) {
        snprintf(p->encoder, sizeof p->encoder, "%s", ri.kind ? ri.kind : "-");
        st_run_info_free(&ri);
    }
    fmt_pct(p->cells[0], 16, row->has_test, row->test_acc);
    fmt_pct(p->cells[1], 16, row->has_dev, row->dev_acc);
    json_t *j = json_loads(row->result, 0, NULL);
    fmt_json_pct(p->cells[2], 16, j, "majority", "acc");
    fmt_json_pct(p->cells[3], 16, j, "control", "acc");
    fmt_json_pct(p->cells[4], 16, j, "control", "selectivity");
    json_decref(j);
    return 0;
}

static int cmp_line(const void *a, const void *b)
{
    const struct probe_line *x = a, *y = b;
    int c = strcmp(x->task, y->task);
    return c ? c : (x->id > y->id) - (x->id < y->id);
}

static int print_tree_row(void *arg, const struct st_tree_row *row)
{
    (void)arg;
    json_t *j = json_loads(row->result, 0, NULL);
    json_t *a = json_object_get(json_object_get(json_object_get(j, "protocol_a"), "all"), "fmeasure");
    json_t *b = json_object_get(json_object_get(json_object_get(j, "protocol_b"), "sentence_f1"), "all");
    char fa[16], fb[16];
    fmt_pct(fa, sizeof fa, json_is_number(a), json_number_value(a));
    fmt_pct(fb, sizeof fb, json_is_number(b), json_number_value(b));
    printf("  %-34s %9lld %14s %10s\n", row->method, (long long)json_integer_value(json_object_get(j, "n_sentences")), fa, fb);
    json_decref(j);
    return 0;
}

static void print_results(struct st_db *db)
{
    char err[SP_ERRLEN];
    struct st_result_filter any = { 0 };
    struct probe_lines L = { .db = db };
    printf("\nProbing accuracy (logreg, test %%; dev %% in brackets; majority / control = baselines):\n");
    printf("  %-8s %-8s %15s %9s %8s %12s\n", "task", "encoder", "test [dev]", "majority", "control", "selectivity");
    st_probe_results_each(db, &any, collect_probe, &L, err, sizeof err);
    qsort(L.v, (size_t)L.n, sizeof *L.v, cmp_line);
    for (int i = 0; i < L.n; i++)
        printf("  %-8s %-8s %6s [%6s] %9s %8s %12s\n", L.v[i].task, L.v[i].encoder, L.v[i].cells[0], L.v[i].cells[1],
               L.v[i].cells[2], L.v[i].cells[3], L.v[i].cells[4]);
    free(L.v);
    printf("  (the demo tasks have 2 dev and 2 test items: these numbers show the pipeline working, not a\n"
           "   finding; run the same commands on a treebank, e.g. the PTB sample, for real figures)\n");
    printf("\nTrees from attention (layer 0, mean span score) against the gold trees, with baselines:\n");
    printf("  %-34s %9s %14s %10s\n", "method", "sentences", "EVALB F1 (A)", "span F1 (B)");
    st_tree_evals_each(db, &any, print_tree_row, NULL, err, sizeof err);
}

static int run_pipeline(struct demo *d, struct st_db *db)
{
    char path[4096], cfg[4096];
    printf("\nPipeline (commands as you would type them; their output goes to %s):\n", d->log_path);
    d->log = fopen(d->log_path, "w");
    step_tasks_build(d);
    for (const char *const *e = demo_encoders; *e; e++) {
        snprintf(cfg, sizeof cfg, "%s/configs/%s.json", d->dir, *e);
        /* the corpus run keeps layer-0 attention for the trees; PSAN encodes only the 12
         * sentences with a constituency tree and says how many it skipped */
        if (step_encode(d, cfg, *e, "demo", NULL) == SP_OK) step_trees(d, *e, NULL);
        if (!strcmp(*e, "psan")) {
            printf("    (psan: probing tasks skipped: PSAN needs a constituency tree for every task item, and only\n"
                   "     12 of the 32 demo sentences have one)\n");
            continue;
        }
        for (const char *const *t = demo_task_list; *t; t++) {
            char *trun = sp_arena_printf(&d->arena, "%s-%s", *e, *t);
            if (step_encode(d, cfg, trun, NULL, *t) == SP_OK) step_probe(d, *t, trun);
        }
    }
    step_trees(d, NULL, "right");
    step_trees(d, NULL, "random");
    snprintf(path, sizeof path, "%s/results.json", d->dir);
    step_report(d, path);
    if (d->log) fclose(d->log);
    d->log = NULL;
    print_results(db);
    printf("\nAll results: %s (also `synprobe report --db %s --format csv`)\n", path, d->db);
    return d->n_failed ? SP_EXIT_INPUT : SP_EXIT_OK;
}

static const char usage[] =
    "usage: synprobe demo [--out DIR] [--ingest-only] [--force]\n"
    "\n"
    "Writes the embedded demo corpus to DIR/corpus/ and encoder configs to DIR/configs/, ingests the\n"
    "corpus into a fresh store DIR/demo.db (every structure cached) and prints a summary; then runs\n"
    "the pipeline: tasks build -> encode (SAN, MS-SAN, SG-Net, PSAN; seeded random init) -> probe ->\n"
    "trees, printing a results table and writing DIR/results.json. Each step runs the same stage as the\n"
    "command printed for it. An existing DIR/demo.db is never replaced without --force (which deletes\n"
    "it and starts from a fresh store).\n";

struct demo_opts { const char *out; int ingest_only, force; };
static const struct sp_opt demo_options[] = {
#define O(f) offsetof(struct demo_opts, f)
    { "out", SP_OPT_PATH, O(out), "synprobe-demo", .metavar = "DIR", .help = "where the corpus, configs, store and results go" },
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

/* Every embedded file written out; the treebanks ingested (strict: our own corpus is clean). */
static int ingest_demo(struct demo *d)
{
    struct stg_ingest_opts o = { 0 };
    sp_opt_defaults(stg_ingest_options, &o, &d->arena);
    o.db = d->db;
    o.corpus = "demo";
    o.mode = SP_MODE_STRICT;
    char path[4096];
    for (const struct sp_embedded *f = sp_demo_files; f->name; f++) {
        const char *dot = strrchr(f->name, '.');
        int is_config = dot && !strcmp(dot, ".json");
        snprintf(path, sizeof path, "%s/%s/%s", d->dir, is_config ? "configs" : "corpus", f->name);
        if (write_file(path, f->data, f->len)) return cli_fail(SP_EXIT_INPUT, "demo", "%s: cannot write", path);
        if (is_config) continue;
        const char *one[] = { path, NULL };
        o.inputs = (struct sp_strlist){ one, 1 };
        struct stg_ingest_result r;
        int rc = stg_ingest(&d->ctx, &o, &r);
        if (rc == SP_OK)
            printf("ingested %-28s %-6s %3d sentences%s\n", path, ing_format_name(r.files[0].fmt), r.files[0].sum.n_sentences,
                   r.files[0].sum.n_attached ? " (trees attached to the sentences above)" : "");
        else
            cli_fail(SP_EXIT_INPUT, "demo", "%s", r.n_files && r.files[0].error[0] ? r.files[0].error : d->ctx.err);
        stg_ingest_result_free(&r);
        if (rc != SP_OK) return SP_EXIT_INPUT;
    }
    return SP_EXIT_OK;
}

int cmd_demo(int argc, char **argv)
{
    struct demo_opts o;
    const struct sp_optbind b[] = { { demo_options, &o } };
    struct cli c;
    int rc = cli_parse(&c, "demo", usage, b, 1, argc, argv, 0);
    if (rc >= 0) return rc;
    if (!sp_demo_files[0].name) return cli_done(&c, cli_fail(SP_EXIT_USAGE, "demo", "this build has no embedded demo corpus"));
    char db_path[4096], log_path[4096];
    if ((rc = prepare_dir(&o, db_path, sizeof db_path)) != SP_EXIT_OK) return cli_done(&c, rc);
    snprintf(log_path, sizeof log_path, "%s/pipeline.log", o.out);
    struct demo d = { .dir = o.out, .db = db_path, .log_path = log_path, .step = "demo" };
    sp_arena_init(&d.arena);
    d.logger = (struct sp_logger){ SP_LOG_INFO, log_line, &d };
    d.ctx = (struct stg_ctx){ .log = &d.logger, .stop = c.ctx.stop };
    d.command = c.command;

    printf("synprobe demo: %s (store %s)\n\n", stg_build_info(), db_path);
    rc = ingest_demo(&d);
    char err[SP_ERRLEN];
    struct st_db *db = NULL;
    if (rc == SP_EXIT_OK && st_open(db_path, ST_OPEN_READONLY, &db, err, sizeof err))
        rc = cli_fail(SP_EXIT_INPUT, "demo", "%s", err);
    if (rc == SP_EXIT_OK) {
        printf("\n");
        cli_info_print(db, "demo", 0, stdout);
        show_examples(db);
        if (!o.ingest_only) rc = run_pipeline(&d, db);
        printf("\nQuery the store yourself:  sqlite3 %s '.load build/synprobe_sql' 'SELECT ...'  (see README)\n", db_path);
    }
    st_close(db);
    sp_arena_free(&d.arena);
    return cli_done(&c, rc);
}
