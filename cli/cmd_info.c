/* cli/cmd_info.c — synprobe info: what a store holds, per corpus (stages/info). Also the demo's
 * summary (cli_info_print). */
#include <jansson.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/store_summary.h"
#include "stages/info.h"

const struct cli_doc cmd_info_doc = {
    .name = "info",
    .purpose = "summarise what a store holds",
    .synopsis = "--db [options]",
    .prose =
        "Per corpus: files, sentences, words, dependency and constituency trees, quarantined and repaired\n"
        "sentences; then (without --corpus, as text) the probing tasks, encoder runs and results, the\n"
        "store's size per table (bytes and share of the file, from SQLite's dbstat table, each table with\n"
        "its indexes) and the encoded vectors' bytes per sentence and per token per layer, by stored type.\n"
        "Exit: 0 ok, 1 no such corpus (or none yet) or an unreadable store, 2 usage.\n",
};

/* the JSON keys, in enum st_info_col order */
static const char *const keys[ST_INFO_NCOLS] = { "files", "sentences", "words", "dependency_trees", "constituency_trees",
                                                 "both", "quarantined", "max_depth", "non_projective", "tree_depth_min",
                                                 "tree_depth_max", "max_length", "repaired" };

static void print_corpus(const struct st_info_corpus *c, FILE *out)
{
    const int64_t *v = c->v;
    fprintf(out, "corpus %s: %lld sentences, %lld words from %lld files\n", c->name, (long long)v[ST_INFO_SENTENCES],
            (long long)v[ST_INFO_WORDS], (long long)v[ST_INFO_FILES]);
    fprintf(out, "  dependency trees   %lld (max depth %lld, %lld non-projective, %lld repaired)\n",
            (long long)v[ST_INFO_DEP_TREES], (long long)v[ST_INFO_MAX_DEPTH], (long long)v[ST_INFO_NON_PROJECTIVE],
            (long long)v[ST_INFO_REPAIRED]);
    fprintf(out, "  constituency trees %lld (TreeDepth %lld..%lld)\n", (long long)v[ST_INFO_CONST_TREES],
            (long long)v[ST_INFO_TREE_DEPTH_MIN], (long long)v[ST_INFO_TREE_DEPTH_MAX]);
    fprintf(out, "  both annotations   %lld\n  quarantined        %lld\n  longest sentence   %lld words\n",
            (long long)v[ST_INFO_BOTH], (long long)v[ST_INFO_QUARANTINED], (long long)v[ST_INFO_MAX_LENGTH]);
}

static void print_corpora(const struct st_info *in, int json, FILE *out)
{
    if (!json) {
        for (int i = 0; i < in->n_corpora; i++) print_corpus(&in->corpora[i], out);
        return;
    }
    json_t *arr = json_array();
    for (int i = 0; i < in->n_corpora; i++) {
        const struct st_info_corpus *c = &in->corpora[i];
        json_t *o = json_object();
        json_object_set_new(o, "corpus", json_string(c->name));
        for (int k = 0; k < ST_INFO_NCOLS; k++) json_object_set_new(o, keys[k], c->null[k] ? json_null() : json_integer(c->v[k]));
        json_array_append_new(arr, o);
    }
    json_dumpf(arr, out, JSON_INDENT(2));
    fputc('\n', out);
    json_decref(arr);
}

/* After the corpora: tasks, encoder runs and results (text mode). */
static void print_work(const struct st_info *in, FILE *out)
{
    fprintf(out, "\n%lld probing tasks, %lld encoder runs, %lld probe results, %lld tree evaluations\n",
            (long long)in->tasks, (long long)in->runs, (long long)in->probe_results, (long long)in->tree_evals);
    if (in->n_runs) fprintf(out, "  %-24s %-8s %-22s %7s %-6s %s\n", "run", "encoder", "source", "items", "device", "created");
    for (int i = 0; i < in->n_runs; i++) {
        const struct st_info_run *x = &in->run[i];
        fprintf(out, "  %-24s %-8s %-22s %7lld %-6s %s\n", x->name, x->encoder, x->source, (long long)x->items, x->device,
                x->created);
    }
}

/* "1,234,567" */
static const char *grouped(char *buf, size_t n, int64_t v)
{
    char raw[32];
    int len = snprintf(raw, sizeof raw, "%lld", (long long)(v < 0 ? -v : v)), k = 0;
    if (v < 0 && (size_t)k + 1 < n) buf[k++] = '-';
    for (int i = 0; i < len && (size_t)k + 2 < n; i++) {
        if (i && (len - i) % 3 == 0) buf[k++] = ',';
        buf[k++] = raw[i];
    }
    buf[k] = 0;
    return buf;
}

/* The store's bytes per table, then the encoded vectors' bytes (text mode, after the work). */
static void print_sizes(const struct st_info_sizes *z, FILE *out)
{
    char a[32], b[32], c[32];
    int64_t file = z->pages * z->page_size;
    fprintf(out, "\nstore: %s bytes (%s pages of %lld bytes, %lld free)\n", grouped(a, sizeof a, file),
            grouped(b, sizeof b, z->pages), (long long)z->page_size, (long long)z->free_pages);
    if (!z->dbstat)
        fprintf(out, "  per-table sizes need SQLite's dbstat table, which this SQLite lacks (SQLITE_ENABLE_DBSTAT_VTAB)\n");
    else
        fprintf(out, "  %-18s %15s %6s   (SQLite dbstat: each table with its indexes)\n", "table", "bytes", "share");
    for (int i = 0; i < z->n_tables; i++)
        fprintf(out, "  %-18s %15s %5.1f%%\n", z->table[i].name, grouped(a, sizeof a, z->table[i].bytes),
                file ? 100.0 * (double)z->table[i].bytes / (double)file : 0.0);
    if (z->dbstat && z->free_pages)
        fprintf(out, "  %-18s %15s %5.1f%%\n", "(free pages)", grouped(a, sizeof a, z->free_pages * z->page_size),
                file ? 100.0 * (double)(z->free_pages * z->page_size) / (double)file : 0.0);
    if (!z->n_vec) return;
    fprintf(out, "encoded vectors (an encoder is one layer):\n  %-5s %5s %8s %10s %10s %12s %10s %15s %15s\n", "type", "dim",
            "encoders", "sentences", "B/sentence", "tokens", "B/token", "token bytes", "attention bytes");
    for (int i = 0; i < z->n_vec; i++) {
        const struct st_info_vectors *v = &z->vec[i];
        char bt[32] = "-";
        if (v->tokens) snprintf(bt, sizeof bt, "%.0f", (double)v->tok_bytes / (double)v->tokens);
        fprintf(out, "  %-5s %5d %8lld %10lld %10.0f %12s %10s %15s %15s\n", v->dtype, v->dim, (long long)v->encoders,
                (long long)v->sentences, v->sentences ? (double)v->vec_bytes / (double)v->sentences : 0.0,
                grouped(a, sizeof a, v->tokens), bt, grouped(b, sizeof b, v->tok_bytes), grouped(c, sizeof c, v->attn_bytes));
    }
    fprintf(out, "  (B/token: bytes per token per layer; tokens: token-vector rows over all encoders)\n");
}

int cli_info_print(struct st_db *db, const char *corpus, int json, FILE *out)
{
    struct st_info in;
    char err[SP_ERRLEN];
    if (st_info_summary(db, corpus, 0, &in, err, sizeof err) != SP_OK) return SP_ESTORE;
    int n = in.n_corpora;
    print_corpora(&in, json, out);
    st_info_free(&in);
    return n ? SP_OK : SP_EUSAGE;
}

int cmd_info(int argc, char **argv)
{
    struct stg_info_opts o = { 0 };
    struct cli c;
    const struct sp_optbind b[] = { { stg_info_options, &o }, { cli_json_option, &c.common } };
    int rc = cli_parse(&c, &cmd_info_doc, b, 2, argc, argv, 0);
    if (rc >= 0) return rc;
    struct st_info in;
    rc = stg_info(&c.ctx, &o, &in);
    if (rc == SP_OK) {
        print_corpora(&in, c.common.json, stdout);
        if (!c.common.json && !o.corpus) { print_work(&in, stdout); print_sizes(&in.sizes, stdout); }
        st_info_free(&in);
    }
    return cli_done(&c, cli_finish_stage(&c, rc));
}
