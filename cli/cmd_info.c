/* cli/cmd_info.c — synprobe info: what a store holds, per corpus. Also the demo's summary. */
#include <getopt.h>
#include <jansson.h>
#include <string.h>

#include "common/sp.h"
#include "cli/cli.h"
#include "cli/info.h"

/* One row of numbers per corpus; every figure is a plain SQL aggregate over the store. */
static const char *sql_summary =
    "SELECT c.name, "
    " (SELECT count(*) FROM source s WHERE s.corpus_id = c.corpus_id), "
    " (SELECT count(*) FROM sentence s WHERE s.corpus_id = c.corpus_id), "
    " (SELECT coalesce(sum(n_words), 0) FROM sentence s WHERE s.corpus_id = c.corpus_id), "
    " (SELECT count(*) FROM sentence s JOIN dep_structure d USING (sentence_id) WHERE s.corpus_id = c.corpus_id), "
    " (SELECT count(*) FROM sentence s JOIN const_structure k USING (sentence_id) WHERE s.corpus_id = c.corpus_id), "
    " (SELECT count(*) FROM sentence s WHERE s.corpus_id = c.corpus_id AND s.dep_source_id IS NOT NULL "
    "      AND s.const_source_id IS NOT NULL), "
    " (SELECT count(*) FROM quarantine q JOIN source s USING (source_id) WHERE s.corpus_id = c.corpus_id), "
    " (SELECT max(max_depth) FROM sentence s JOIN dep_structure d USING (sentence_id) WHERE s.corpus_id = c.corpus_id), "
    " (SELECT count(*) FROM sentence s JOIN dep_structure d USING (sentence_id) WHERE s.corpus_id = c.corpus_id AND NOT d.projective), "
    " (SELECT min(tree_depth) FROM sentence s JOIN const_structure k USING (sentence_id) WHERE s.corpus_id = c.corpus_id), "
    " (SELECT max(tree_depth) FROM sentence s JOIN const_structure k USING (sentence_id) WHERE s.corpus_id = c.corpus_id), "
    " (SELECT max(n_words) FROM sentence s WHERE s.corpus_id = c.corpus_id), "
    " (SELECT count(*) FROM sentence s WHERE s.corpus_id = c.corpus_id AND s.warn != 0) "
    "FROM corpus c WHERE ?1 IS NULL OR c.name = ?1 ORDER BY c.corpus_id";

static const char *keys[] = { "corpus", "files", "sentences", "words", "dependency_trees", "constituency_trees",
                              "both", "quarantined", "max_depth", "non_projective", "tree_depth_min",
                              "tree_depth_max", "max_length", "repaired" };

int info_print(struct st_db *db, const char *corpus, int json, FILE *out)
{
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(st_handle(db), sql_summary, -1, &q, NULL) != SQLITE_OK) return SP_ESTORE;
    if (corpus) sqlite3_bind_text(q, 1, corpus, -1, SQLITE_STATIC);
    json_t *arr = json_array();
    int n = 0;
    while (sqlite3_step(q) == SQLITE_ROW) {
        n++;
        json_t *o = json_object();
        json_object_set_new(o, keys[0], json_string((const char *)sqlite3_column_text(q, 0)));
        for (int k = 1; k < 14; k++)
            json_object_set_new(o, keys[k], sqlite3_column_type(q, k) == SQLITE_NULL ? json_null()
                                                                                   : json_integer(sqlite3_column_int64(q, k)));
        if (!json) {
            fprintf(out, "corpus %s: %lld sentences, %lld words from %lld files\n", (const char *)sqlite3_column_text(q, 0),
                    sqlite3_column_int64(q, 2), sqlite3_column_int64(q, 3), sqlite3_column_int64(q, 1));
            fprintf(out, "  dependency trees   %lld (max depth %lld, %lld non-projective, %lld repaired)\n",
                    sqlite3_column_int64(q, 4), sqlite3_column_int64(q, 8), sqlite3_column_int64(q, 9), sqlite3_column_int64(q, 13));
            fprintf(out, "  constituency trees %lld (TreeDepth %lld..%lld)\n", sqlite3_column_int64(q, 5),
                    sqlite3_column_int64(q, 10), sqlite3_column_int64(q, 11));
            fprintf(out, "  both annotations   %lld\n  quarantined        %lld\n  longest sentence   %lld words\n",
                    sqlite3_column_int64(q, 6), sqlite3_column_int64(q, 7), sqlite3_column_int64(q, 12));
        }
        json_array_append_new(arr, o);
    }
    sqlite3_finalize(q);
    if (json) { json_dumpf(arr, out, JSON_INDENT(2)); fputc('\n', out); }
    json_decref(arr);
    return n ? SP_OK : SP_EUSAGE;
}

/* After the corpora: tasks, encoder runs and results (text mode). */
static void print_work(struct st_db *db, FILE *out)
{
    sqlite3_stmt *q;
    const char *sql =
        "SELECT (SELECT count(*) FROM task), (SELECT count(*) FROM run), "
        "(SELECT count(*) FROM probe_result), (SELECT count(*) FROM tree_eval)";
    if (sqlite3_prepare_v2(st_handle(db), sql, -1, &q, NULL) != SQLITE_OK) return;
    if (sqlite3_step(q) == SQLITE_ROW)
        fprintf(out, "\n%lld probing tasks, %lld encoder runs, %lld probe results, %lld tree evaluations\n",
                sqlite3_column_int64(q, 0), sqlite3_column_int64(q, 1), sqlite3_column_int64(q, 2), sqlite3_column_int64(q, 3));
    sqlite3_finalize(q);
    sql = "SELECT r.name, e.kind, coalesce('corpus ' || c.name, 'task ' || t.name, '?'), "
          "(SELECT count(*) FROM run_item i WHERE i.run_id = r.run_id), "
          "coalesce(json_extract(r.manifest, '$.device'), '?'), r.created "
          "FROM run r JOIN encoder e USING (encoder_id) LEFT JOIN corpus c ON c.corpus_id = r.corpus_id "
          "LEFT JOIN task t ON t.task_id = r.task_id ORDER BY r.run_id";
    if (sqlite3_prepare_v2(st_handle(db), sql, -1, &q, NULL) != SQLITE_OK) return;
    int first = 1;
    while (sqlite3_step(q) == SQLITE_ROW) {
        if (first) fprintf(out, "  %-24s %-8s %-22s %7s %-6s %s\n", "run", "encoder", "source", "items", "device", "created");
        first = 0;
        fprintf(out, "  %-24s %-8s %-22s %7lld %-6s %s\n", (const char *)sqlite3_column_text(q, 0),
                (const char *)sqlite3_column_text(q, 1), (const char *)sqlite3_column_text(q, 2),
                sqlite3_column_int64(q, 3), (const char *)sqlite3_column_text(q, 4), (const char *)sqlite3_column_text(q, 5));
    }
    sqlite3_finalize(q);
}

int cmd_info(int argc, char **argv)
{
    const char *db_path = NULL, *corpus = NULL;
    int json = 0;
    static const struct option opts[] = {
        { "db", required_argument, 0, 'd' }, { "corpus", required_argument, 0, 'c' },
        { "json", no_argument, 0, 'j' }, { "help", no_argument, 0, 'h' }, { 0, 0, 0, 0 },
    };
    optind = 1;
    int ch;
    while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        if (ch == 'd') db_path = optarg;
        else if (ch == 'c') corpus = optarg;
        else if (ch == 'j') json = 1;
        else if (ch == 'h') { puts("usage: synprobe info --db DB [--corpus NAME] [--json]"); return SP_EXIT_OK; }
        else return SP_EXIT_USAGE;
    }
    if (!db_path) return cli_fail(SP_EXIT_USAGE, "info", "--db is required");
    char err[SP_ERRLEN];
    struct st_db *db;
    if (st_open(db_path, ST_OPEN_READONLY, &db, err, sizeof err)) return cli_fail(SP_EXIT_INPUT, "info", "%s", err);
    int rc = info_print(db, corpus, json, stdout);
    if (!rc && !json && !corpus) print_work(db, stdout);
    st_close(db);
    if (rc) return cli_fail(SP_EXIT_INPUT, "info", "%s: %s", db_path, corpus ? "no such corpus" : "no corpus yet");
    return SP_EXIT_OK;
}
