/* daemon/cmd_demo.c — synprobe demo: the pipeline on the corpus embedded in the binary. */
#include <errno.h>
#include <getopt.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/embedded.h"
#include "common/sp.h"
#include "daemon/cli.h"
#include "daemon/info.h"
#include "daemon/ingest_job.h"

static int write_file(const char *path, const char *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    size_t w = fwrite(data, 1, len, f);
    return fclose(f) == 0 && w == len ? 0 : -1;
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

int cmd_demo(int argc, char **argv)
{
    const char *out_dir = "synprobe-demo";
    static const struct option opts[] = { { "out", required_argument, 0, 'o' }, { "help", no_argument, 0, 'h' }, { 0, 0, 0, 0 } };
    optind = 1;
    int ch;
    while ((ch = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
        if (ch == 'o') out_dir = optarg;
        else if (ch == 'h') {
            puts("usage: synprobe demo [--out DIR]\n\nWrites the embedded demo corpus to DIR/corpus/, ingests it into a fresh store\n"
                 "DIR/demo.db (every structure cached) and prints a summary. DIR defaults to ./synprobe-demo.");
            return SP_EXIT_OK;
        } else return SP_EXIT_USAGE;
    }
    if (!sp_demo_files[0].name) return sp_fail(SP_EXIT_USAGE, "demo", "this build has no embedded demo corpus");
    char path[4096], db_path[4096];
    snprintf(path, sizeof path, "%s/corpus", out_dir);
    if ((mkdir(out_dir, 0777) && errno != EEXIST) || (mkdir(path, 0777) && errno != EEXIST))
        return sp_fail(SP_EXIT_INPUT, "demo", "%s: cannot create: %s", path, strerror(errno));
    snprintf(db_path, sizeof db_path, "%s/demo.db", out_dir);
    static const char *const suffix[] = { "", "-wal", "-shm" };
    for (int k = 0; k < 3; k++) { snprintf(path, sizeof path, "%s%s", db_path, suffix[k]); unlink(path); }

    char err[SP_ERRLEN];
    struct st_db *db;
    int64_t corpus_id;
    if (st_open(db_path, ST_OPEN_CREATE, &db, err, sizeof err) || st_corpus_id(db, "demo", 1, &corpus_id, err, sizeof err))
        return sp_fail(SP_EXIT_INPUT, "demo", "%s", err);
    struct ingest_opts o;
    ingest_opts_default(&o);
    o.mode = SP_MODE_STRICT;      /* our own corpus must be clean */
    printf("synprobe demo: %s (store %s)\n\n", sp_build_info(), db_path);
    for (const struct sp_embedded *f = sp_demo_files; f->name; f++) {
        snprintf(path, sizeof path, "%s/corpus/%s", out_dir, f->name);
        if (write_file(path, f->data, f->len)) { st_close(db); return sp_fail(SP_EXIT_INPUT, "demo", "%s: cannot write", path); }
        struct ingest_result r;
        if (ingest_file(db, corpus_id, path, &o, &r)) { st_close(db); return sp_fail(SP_EXIT_INPUT, "demo", "%s", r.error); }
        printf("ingested %-28s %-6s %3d sentences%s\n", path, ing_format_name(r.fmt), r.sum.n_sentences,
               r.sum.n_attached ? " (trees attached to the sentences above)" : "");
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
    printf("\nQuery the store yourself:  sqlite3 %s '.load build/synprobe_sql' 'SELECT ...'  (see README)\n", db_path);
    st_close(db);
    return SP_EXIT_OK;
}
