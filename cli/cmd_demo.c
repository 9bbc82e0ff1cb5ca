/* cli/cmd_demo.c — synprobe demo: the whole pipeline on the corpus embedded in the binary.
 *
 * ingest (embedded CoNLL-U + PTB trees) -> tasks build -> encode with SAN, MS-SAN, SG-Net and
 * PSAN (seeded random init, embedded configs) -> probe -> trees -> a results table on stdout and
 * DIR/results.json (`synprobe report --format json`). Every stage after ingest runs the very
 * subcommand a user would type (printed as it runs), with its output in DIR/pipeline.log, so the
 * demo exercises the same code paths and doubles as a recipe. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
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

static int write_file(const char *path, const char *data, size_t len)
{
    char err[SP_ERRLEN];
    struct sp_out o;
    if (sp_out_open(&o, path, err, sizeof err)) return -1;
    if (fwrite(data, 1, len, o.f) != len) { sp_out_abort(&o); return -1; }
    return sp_out_commit(&o, err, sizeof err) ? -1 : 0;
}

/* Example queries the README shows, run here so the demo prints real answers. */
static void show_query(struct st_db *db, const char *title, const char *sql)
{
    sqlite3_stmt *q;
    printf("\n%s\n", title);
    if (sqlite3_prepare_v2(st_handle(db), sql, -1, &q, NULL) != SQLITE_OK) { printf("  (query failed)\n"); return; }
    while (sqlite3_step(q) == SQLITE_ROW) {
        printf(" ");
        for (int c = 0; c < sqlite3_column_count(q); c++) printf(" %s", (const char *)sqlite3_column_text(q, c));
        printf("\n");
    }
    sqlite3_finalize(q);
}

/* ---- the pipeline after ingest ---- */

static const char *const demo_tasks = "Tense,SubjNum,SOMO";
static const char *const demo_task_list[] = { "Tense", "SubjNum", "SOMO", NULL };
static const char *const demo_encoders[] = { "san", "ms-san", "sg-net", "psan", NULL };

struct pipeline {
    const char *dir, *db, *log;
    int n_failed;
};

/* Run cmd(argv...) with stdout and stderr appended to the log; print the command line. */
static int run_step(struct pipeline *p, sp_cmd_fn cmd, ...)
{
    char *argv[40];
    int argc = 0;
    va_list ap;
    va_start(ap, cmd);
    for (char *a; argc < 39 && (a = va_arg(ap, char *)); ) argv[argc++] = a;
    va_end(ap);
    argv[argc] = NULL;
    printf("  $ synprobe");
    for (int i = 0; i < argc; i++) printf(" %s", argv[i]);
    printf("\n");
    fflush(stdout);
    fflush(stderr);
    int fd = open(p->log, O_WRONLY | O_CREAT | O_APPEND, 0666);
    int out = dup(1), err = dup(2);
    if (fd >= 0) {
        dprintf(fd, "\n$ synprobe");
        for (int i = 0; i < argc; i++) dprintf(fd, " %s", argv[i]);
        dprintf(fd, "\n");
        dup2(fd, 1);
        dup2(fd, 2);
        close(fd);
    }
    int rc = cmd(argc, argv);
    fflush(stdout);
    fflush(stderr);
    dup2(out, 1);
    dup2(err, 2);
    close(out);
    close(err);
    if (rc != SP_EXIT_OK) {
        printf("    -> exit %d (see %s)\n", rc, p->log);
        p->n_failed++;
    }
    return rc;
}

static const char *fmt_pct(char *buf, size_t n, sqlite3_stmt *q, int col)
{
    if (sqlite3_column_type(q, col) == SQLITE_NULL) return "   n/a";
    snprintf(buf, n, "%6.2f", sqlite3_column_double(q, col));
    return buf;
}

static void print_results(struct st_db *db)
{
    sqlite3_stmt *q;
    printf("\nProbing accuracy (logreg, test %%; dev %% in brackets; majority / control = baselines):\n");
    printf("  %-8s %-8s %15s %9s %8s %12s\n", "task", "encoder", "test [dev]", "majority", "control", "selectivity");
    const char *sql =
        "SELECT p.task_name, coalesce(e.kind, '-'), p.test_acc, p.dev_acc, "
        "json_extract(p.result, '$.baselines.majority.acc'), json_extract(p.result, '$.baselines.control.acc'), "
        "json_extract(p.result, '$.baselines.control.selectivity') "
        "FROM probe_result p LEFT JOIN run r USING (run_id) LEFT JOIN encoder e USING (encoder_id) "
        "ORDER BY p.task_name, p.result_id";
    if (sqlite3_prepare_v2(st_handle(db), sql, -1, &q, NULL) == SQLITE_OK) {
        while (sqlite3_step(q) == SQLITE_ROW) {
            char b[5][32];
            printf("  %-8s %-8s %6s [%6s] %9s %8s %12s\n", (const char *)sqlite3_column_text(q, 0),
                   (const char *)sqlite3_column_text(q, 1), fmt_pct(b[0], 32, q, 2), fmt_pct(b[1], 32, q, 3),
                   fmt_pct(b[2], 32, q, 4), fmt_pct(b[3], 32, q, 5), fmt_pct(b[4], 32, q, 6));
        }
        sqlite3_finalize(q);
    }
    printf("  (the demo tasks have 2 dev and 2 test items: these numbers show the pipeline working, not a\n"
           "   finding; run the same commands on a treebank, e.g. the PTB sample, for real figures)\n");
    printf("\nTrees from attention (layer 0, mean span score) against the gold trees, with baselines:\n");
    printf("  %-34s %9s %14s %10s\n", "method", "sentences", "EVALB F1 (A)", "span F1 (B)");
    sql = "SELECT method, json_extract(result, '$.n_sentences'), json_extract(result, '$.protocol_a.all.fmeasure'), "
          "json_extract(result, '$.protocol_b.sentence_f1.all') FROM tree_eval ORDER BY eval_id";
    if (sqlite3_prepare_v2(st_handle(db), sql, -1, &q, NULL) == SQLITE_OK) {
        while (sqlite3_step(q) == SQLITE_ROW) {
            char b[2][32];
            printf("  %-34s %9d %14s %10s\n", (const char *)sqlite3_column_text(q, 0), sqlite3_column_int(q, 1),
                   fmt_pct(b[0], 32, q, 2), fmt_pct(b[1], 32, q, 3));
        }
        sqlite3_finalize(q);
    }
}

static int run_pipeline(struct pipeline *p, struct st_db *db)
{
    char path[4096], cfg[4096];
    printf("\nPipeline (commands as you would type them; their output goes to %s):\n", p->log);
    unlink(p->log);
    run_step(p, cmd_tasks, "tasks", "build", "--db", (char *)p->db, "--corpus", "demo", "--tasks", (char *)demo_tasks,
             "--seed", "1", NULL);
    for (const char *const *e = demo_encoders; *e; e++) {
        char run[64];
        snprintf(cfg, sizeof cfg, "%s/configs/%s.json", p->dir, *e);
        snprintf(run, sizeof run, "%s", *e);
        /* the corpus run keeps layer-0 attention for the trees; PSAN encodes only the 12
         * sentences with a constituency tree and says how many it skipped */
        if (run_step(p, cmd_encode, "encode", "--db", (char *)p->db, "--corpus", "demo", "--encoder", cfg, "--run", run,
                     "--attention", "0", NULL) == SP_EXIT_OK)
            run_step(p, cmd_trees, "trees", "--db", (char *)p->db, "--corpus", "demo", "--run", run, NULL);
        if (!strcmp(*e, "psan")) {
            printf("    (psan: probing tasks skipped: PSAN needs a constituency tree for every task item, and only\n"
                   "     12 of the 32 demo sentences have one)\n");
            continue;
        }
        for (const char *const *t = demo_task_list; *t; t++) {
            char trun[96];
            snprintf(trun, sizeof trun, "%s-%s", *e, *t);
            if (run_step(p, cmd_encode, "encode", "--db", (char *)p->db, "--task", (char *)*t, "--encoder", cfg,
                         "--run", trun, NULL) == SP_EXIT_OK)
                run_step(p, cmd_probe, "probe", "--db", (char *)p->db, "--task", (char *)*t, "--run", trun, NULL);
        }
    }
    run_step(p, cmd_trees, "trees", "--db", (char *)p->db, "--corpus", "demo", "--baseline", "right", NULL);
    run_step(p, cmd_trees, "trees", "--db", (char *)p->db, "--corpus", "demo", "--baseline", "random", NULL);
    snprintf(path, sizeof path, "%s/results.json", p->dir);
    run_step(p, cmd_report, "report", "--db", (char *)p->db, "--format", "json", "--out", path, NULL);
    print_results(db);
    printf("\nAll results: %s (also `synprobe report --db %s --format csv`)\n", path, p->db);
    return p->n_failed ? SP_EXIT_INPUT : SP_EXIT_OK;
}

int cmd_demo(int argc, char **argv)
{
    const char *out_dir = "synprobe-demo";
    int no_pipeline = 0, force = 0;
    static const struct option opts[] = { { "out", required_argument, 0, 'o' }, { "help", no_argument, 0, 'h' },
                                          { "ingest-only", no_argument, 0, 'i' }, { "force", no_argument, 0, 'f' },
                                          { 0, 0, 0, 0 } };
    optind = 1;
    int ch;
    while ((ch = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
        if (ch == 'o') out_dir = optarg;
        else if (ch == 'i') no_pipeline = 1;
        else if (ch == 'f') force = 1;
        else if (ch == 'h') {
            puts("usage: synprobe demo [--out DIR] [--ingest-only] [--force]\n\n"
                 "Writes the embedded demo corpus to DIR/corpus/ and encoder configs to DIR/configs/, ingests the\n"
                 "corpus into a fresh store DIR/demo.db (every structure cached) and prints a summary; then runs\n"
                 "the pipeline: tasks build -> encode (SAN, MS-SAN, SG-Net, PSAN; seeded random init) -> probe ->\n"
                 "trees, printing a results table and writing DIR/results.json. DIR defaults to ./synprobe-demo.\n"
                 "--ingest-only stops after the summary. An existing DIR/demo.db is never replaced without\n"
                 "--force (which deletes it and starts from a fresh store).");
            return SP_EXIT_OK;
        } else return SP_EXIT_USAGE;
    }
    if (!sp_demo_files[0].name) return cli_fail(SP_EXIT_USAGE, "demo", "this build has no embedded demo corpus");
    char path[4096], db_path[4096];
    for (int k = 0; k < 3; k++) {
        snprintf(path, sizeof path, "%s%s", out_dir, k == 0 ? "" : k == 1 ? "/corpus" : "/configs");
        if (mkdir(path, 0777) && errno != EEXIST)
            return cli_fail(SP_EXIT_INPUT, "demo", "%s: cannot create: %s", path, strerror(errno));
    }
    snprintf(db_path, sizeof db_path, "%s/demo.db", out_dir);
    static const char *const suffix[] = { "", "-wal", "-shm", "-journal" };
    struct stat st;
    if (!force && lstat(db_path, &st) == 0)      /* a store holds work: never deleted unasked */
        return cli_fail(SP_EXIT_INPUT, "demo", "%s exists: refusing to replace a store (--force deletes it and starts "
                       "from a fresh one; or choose another --out DIR)", db_path);
    for (int k = 0; force && k < 4; k++) { snprintf(path, sizeof path, "%s%s", db_path, suffix[k]); unlink(path); }

    char err[SP_ERRLEN];
    struct st_db *db;
    int64_t corpus_id;
    if (st_open(db_path, ST_OPEN_CREATE, &db, err, sizeof err) || st_corpus_id(db, "demo", 1, &corpus_id, err, sizeof err))
        return cli_fail(SP_EXIT_INPUT, "demo", "%s", err);
    struct sp_arena arena;
    sp_arena_init(&arena);
    struct stg_ingest_opts o;
    sp_opt_defaults(stg_ingest_options, &o, &arena);
    o.db = db_path;
    o.corpus = "demo";
    o.mode = SP_MODE_STRICT;      /* our own corpus must be clean */
    struct stg_ctx ictx = { 0 };
    printf("synprobe demo: %s (store %s)\n\n", stg_build_info(), db_path);
    for (const struct sp_embedded *f = sp_demo_files; f->name; f++) {
        const char *dot = strrchr(f->name, '.');
        int is_config = dot && !strcmp(dot, ".json");
        snprintf(path, sizeof path, "%s/%s/%s", out_dir, is_config ? "configs" : "corpus", f->name);
        if (write_file(path, f->data, f->len)) { st_close(db); return cli_fail(SP_EXIT_INPUT, "demo", "%s: cannot write", path); }
        if (is_config) continue;
        const char *one[] = { path, NULL };
        o.inputs = (struct sp_strlist){ one, 1 };
        struct stg_ingest_result r;
        if (stg_ingest(&ictx, &o, &r)) {
            cli_fail(SP_EXIT_INPUT, "demo", "%s", r.n_files ? r.files[0].error : ictx.err);
            stg_ingest_result_free(&r);
            st_close(db);
            sp_arena_free(&arena);
            return SP_EXIT_INPUT;
        }
        printf("ingested %-28s %-6s %3d sentences%s\n", path, ing_format_name(r.files[0].fmt), r.files[0].sum.n_sentences,
               r.files[0].sum.n_attached ? " (trees attached to the sentences above)" : "");
        stg_ingest_result_free(&r);
    }
    printf("\n");
    info_print(db, "demo", 0, stdout);
    show_query(db, "Deepest dependency trees (sent_id, max depth, text):",
               "SELECT s.sent_id, d.max_depth, s.text FROM sentence s JOIN dep_structure d USING (sentence_id) "
               "ORDER BY d.max_depth DESC, s.sentence_id LIMIT 3");
    show_query(db, "TopConst classes of the constituency trees:",
               "SELECT top_const_class, count(*) FROM const_structure GROUP BY 1 ORDER BY 2 DESC, 1");
    show_query(db, "Mean dependency length (|head - dependent|) by UPOS, top 5:",
               "SELECT upos, printf('%.2f', avg(abs(head - i))), count(*) FROM token WHERE head >= 0 "
               "GROUP BY upos ORDER BY 3 DESC LIMIT 5");
    int rc = SP_EXIT_OK;
    if (!no_pipeline) {
        char log[4096];
        snprintf(log, sizeof log, "%s/pipeline.log", out_dir);
        struct pipeline p = { out_dir, db_path, log, 0 };
        rc = run_pipeline(&p, db);
    }
    printf("\nQuery the store yourself:  sqlite3 %s '.load build/synprobe_sql' 'SELECT ...'  (see README)\n", db_path);
    st_close(db);
    sp_arena_free(&arena);
    return rc;
}
