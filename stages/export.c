/* stages/export.c — a store corpus out as JSONL structures, sentences or CoNLL-U (stages/export.h).
 * One pass over the corpus (st_iter); each sentence formatted into a buffer, then written. */
#include <csv.h>
#include <string.h>

#include "common/sp.h"
#include "stages/export.h"
#include "stages/export_encoded.h"
#include "stages/layers.h"
#include "stages/names.h"
#include "store/blob.h"
#include "store/store.h"

const struct sp_opt stg_export_options[] = {
#define O(f) offsetof(struct stg_export_opts, f)
    { "db", SP_OPT_PATH, O(db), .metavar = "DB", .help = "the store", .flags = SP_OPTF_REQUIRED },
    { "corpus", SP_OPT_STR, O(corpus), .metavar = "NAME", .help = "the corpus (default main)" },
    { "what", SP_OPT_STR, O(what), .metavar = "KIND",
      .help = "structures, sentences, conllu, or an encoder run's vectors, tokens, attention" },
    { "format", SP_OPT_STR, O(format), .metavar = "F", .help = "jsonl, csv, tsv, conllu or npy (default: the kind's own)" },
    { "out", SP_OPT_PATH, O(out), .metavar = "FILE", .help = "write FILE, replaced only once complete (default: standard output)", .flags = SP_OPTF_OUTPUT },
    { "run", SP_OPT_STR, O(run), .metavar = "R", .help = "the encoder run (vectors, tokens, attention)" },
    { "heads", SP_OPT_FLAG, O(heads),
      .help = "--what attention: each head's map, (n, heads, L, L) (runs encoded with --heads)" },
    { "layers", SP_OPT_STR, O(layers), .metavar = "all|K,K,...",
      .help = "with --run NAME made by encode --layers: the layer runs NAME-L<k>[-CORPUS] as one array, the layer axis "
              "second: vectors (n, layers, dim), tokens (n_tokens, layers, dim)" },
#undef O
    { 0 },
};

enum kind { K_NONE, K_STRUCTURES, K_SENTENCES, K_CONLLU, K_VECTORS, K_TOKENS, K_ATTENTION };
static const char *const kind_names[] = { "", "structures", "sentences", "conllu", "vectors", "tokens", "attention" };
#define N_KINDS ((int)(sizeof kind_names / sizeof kind_names[0]))

/* the kind --what names (--format conllu alone means --what conllu); K_NONE when not given, -1 unknown */
static int kind_of(const struct stg_export_opts *o)
{
    if (!o->what) return o->format && !strcmp(o->format, "conllu") ? K_CONLLU : K_NONE;
    for (int k = 1; k < N_KINDS; k++)
        if (!strcmp(o->what, kind_names[k])) return k;
    return -1;
}

/* --what vectors|tokens|attention: an encoder run's outputs (stages/export_encoded.c) */
static int export_run(struct stg_ctx *ctx, const struct stg_export_opts *o, struct stg_export_result *r)
{
    int kind = kind_of(o);
    if (o->format && strcmp(o->format, "npy"))
        return stg_fail(ctx, SP_EUSAGE, "--what %s is written as npy only, not '%s'", o->what, o->format);
    struct stg_export_encoded_opts eo = {
        .db = o->db, .run = o->run, .corpus = o->corpus, .out = o->out, .heads = o->heads,
        .what = kind == K_VECTORS ? STG_EXPORT_VECTORS : kind == K_TOKENS ? STG_EXPORT_TOKENS : STG_EXPORT_ATTENTION,
    };
    struct stg_export_encoded_result er;
    struct stg_layer_runs lr = { 0 };
    int rc;
    if (o->layers) {
        if (!o->run) return stg_fail(ctx, SP_EUSAGE, "--layers needs --run NAME (the --run name given to encode --layers)");
        if (eo.what == STG_EXPORT_ATTENTION)
            return stg_fail(ctx, SP_EUSAGE, "--layers: --what vectors or tokens (attention is exported one run at a time)");
        if ((rc = stg_layer_runs(ctx, o->db, "--layers", o->run, o->layers, o->corpus, &lr))) { stg_layer_runs_free(&lr); return rc; }
        eo.n_layer_runs = lr.n;
        eo.layer_runs = (const char *const *)lr.run;
        rc = stg_export_encoded_layers(ctx, &eo, &er);
        stg_layer_runs_free(&lr);
    } else {
        rc = stg_export_encoded(ctx, &eo, &er);
    }
    r->rows = er.rows;
    if (er.lengths_path) snprintf(r->lengths_path, sizeof r->lengths_path, "%s", er.lengths_path);
    stg_export_encoded_result_free(&er);
    return rc;
}

static void json_str(struct sp_buf *b, const char *s)
{
    sp_buf_put(b, "\"", 1);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        unsigned c = *p;
        if (c == '"' || c == '\\') { char e[2] = { '\\', (char)c }; sp_buf_put(b, e, 2); }
        else if (c == '\n') sp_buf_put(b, "\\n", 2);
        else if (c == '\t') sp_buf_put(b, "\\t", 2);
        else if (c == '\r') sp_buf_put(b, "\\r", 2);
        else if (c < 0x20) sp_buf_printf(b, "\\u%04x", c);
        else sp_buf_put(b, (const char *)p, 1);
    }
    sp_buf_put(b, "\"", 1);
}

static void int_row(struct sp_buf *b, const int *v, int n)
{
    char tmp[16];
    sp_buf_put(b, "[", 1);
    for (int i = 0; i < n; i++) {
        int k = snprintf(tmp, sizeof tmp, i ? ",%d" : "%d", v[i]);
        sp_buf_put(b, tmp, (size_t)k);
    }
    sp_buf_put(b, "]", 1);
}

static void structures_line(struct sp_buf *b, const struct st_row *r, int **scratch, size_t *cap)
{
    const struct sp_sentence *s = &r->s;
    int n = s->n;
    size_t need = (size_t)n * (size_t)n + (size_t)n * 16;
    if (*cap < need) { free(*scratch); *cap = need; *scratch = sp_xmalloc(need * sizeof(int)); }
    int *m = *scratch;

    sp_buf_puts(b, "{\"sent_id\":");
    json_str(b, s->sent_id);
    sp_buf_puts(b, ",\"words\":[");
    for (int i = 0; i < n; i++) { if (i) sp_buf_put(b, ",", 1); json_str(b, s->col[SP_FORM][i]); }
    sp_buf_put(b, "]", 1);
    if (s->head) {
        for (int i = 0; i < n; i++) m[i] = s->head[i] + 1;
        sp_buf_puts(b, ",\"heads\":");
        int_row(b, m, n);
    }
    if (r->has_dep) {
        for (int i = 0; i < n; i++) m[i] = st_blob_depth_at(r->depth.p, i);
        sp_buf_puts(b, ",\"depth\":");
        int_row(b, m, n);
        st_blob_get_distance(r->distance.p, n, m);
        sp_buf_puts(b, ",\"distance\":[");
        for (int i = 0; i < n; i++) { if (i) sp_buf_put(b, ",", 1); int_row(b, m + (size_t)i * n, n); }
        sp_buf_puts(b, "],\"ancestors\":[");
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) m[j] = st_blob_ancestor_at(r->ancestors.p, n, i, j);
            if (i) sp_buf_put(b, ",", 1);
            int_row(b, m, n);
        }
        for (int i = 0; i < n; i++) m[i] = st_blob_depth_at(r->depth.p, i);
        sp_buf_puts(b, "],\"abs_pos\":");
        int_row(b, m, n);
        st_blob_get_relpos(r->relpos.p, n, m);
        sp_buf_puts(b, ",\"rel_pos\":[");
        for (int i = 0; i < n; i++) { if (i) sp_buf_put(b, ",", 1); int_row(b, m + (size_t)i * n, n); }
        sp_buf_put(b, "]", 1);
    }
    if (r->has_const) {
        sp_buf_puts(b, ",\"phrases\":[");
        for (int l = 1; l <= r->levels; l++) {
            for (int i = 0; i < n; i++) m[i] = st_blob_phrase_at(r->phrases.p, n, l, i);
            if (l > 1) sp_buf_put(b, ",", 1);
            int_row(b, m, n);
        }
        sp_buf_printf(b, "],\"tree_depth\":%d,\"top_const\":", r->tree_depth);
        json_str(b, r->top_const);
    }
    sp_buf_puts(b, "}\n");
}

static void conllu_block(struct sp_buf *b, const struct st_row *r)
{
    const struct sp_sentence *s = &r->s;
    if (s->comments) { sp_buf_puts(b, s->comments); sp_buf_put(b, "\n", 1); }
    else {
        sp_buf_printf(b, "# sent_id = %s\n# text = %s\n", s->sent_id, s->text ? s->text : "");
    }
    int x = 0;
    for (int i = 0; i <= s->n; i++) {
        for (; x < s->n_extra && s->extra[x].pos == i; x++) { sp_buf_puts(b, s->extra[x].line); sp_buf_put(b, "\n", 1); }
        if (i == s->n) break;
        sp_buf_printf(b, "%d\t%s\t%s\t%s\t%s\t%s\t", i + 1, s->col[SP_FORM][i], s->col[SP_LEMMA][i], s->col[SP_UPOS][i],
                      s->col[SP_XPOS][i], s->col[SP_FEATS][i]);
        if (s->head) sp_buf_printf(b, "%d", s->head[i] + 1);
        else sp_buf_put(b, "_", 1);
        sp_buf_printf(b, "\t%s\t%s\t%s\n", s->col[SP_DEPREL][i], s->col[SP_DEPS][i], s->col[SP_MISC][i]);
    }
    sp_buf_put(b, "\n", 1);
}

static void sentence_line(struct sp_buf *b, const struct st_row *r, const char *fmt)
{
    const char *split = r->split ? r->split : "";
    if (!strcmp(fmt, "jsonl")) {
        sp_buf_puts(b, "{\"sent_id\":");
        json_str(b, r->s.sent_id);
        sp_buf_puts(b, ",\"split\":");
        if (r->split) json_str(b, split); else sp_buf_puts(b, "null");
        sp_buf_puts(b, ",\"text\":");
        json_str(b, r->s.text ? r->s.text : "");
        sp_buf_puts(b, "}\n");
    } else if (!strcmp(fmt, "tsv")) {
        sp_buf_printf(b, "%s\t%s\t%s\n", r->s.sent_id, split, r->s.text ? r->s.text : "");
    } else { /* csv through libcsv's quoting */
        const char *f[3] = { r->s.sent_id, split, r->s.text ? r->s.text : "" };
        for (int k = 0; k < 3; k++) {
            size_t len = strlen(f[k]);
            char *q = sp_xmalloc(2 * len + 3);
            size_t m = csv_write(q, 2 * len + 3, f[k], len);
            sp_buf_put(b, q, m);
            free(q);
            sp_buf_put(b, k < 2 ? "," : "\n", 1);
        }
    }
}

/* the format a kind is written in by default, and whether it can be written as fmt */
static int check_format(struct stg_ctx *ctx, int kind, const char *what, const char **fmt)
{
    if (!*fmt) *fmt = kind == K_CONLLU ? "conllu" : "jsonl";
    int ok = kind == K_STRUCTURES ? !strcmp(*fmt, "jsonl") : kind == K_CONLLU ? !strcmp(*fmt, "conllu")
           : !strcmp(*fmt, "jsonl") || !strcmp(*fmt, "csv") || !strcmp(*fmt, "tsv");
    return ok ? SP_OK : stg_fail(ctx, SP_EUSAGE, "--what %s cannot be written as '%s'", what, *fmt);
}

static int check_kind(struct stg_ctx *ctx, const struct stg_export_opts *o, int *kind)
{
    *kind = kind_of(o);
    if (*kind == K_NONE) return stg_fail(ctx, SP_EUSAGE, "--what is required (structures, sentences or conllu)");
    if (*kind < 0 || *kind >= K_VECTORS) {
        char sugg[128];
        sp_suggest(sugg, sizeof sugg, o->what, kind_names + 1, N_KINDS - 1);
        return stg_fail(ctx, SP_EUSAGE, "--what: expected structures, sentences, conllu, vectors, tokens or attention, "
                        "got '%s'%s%s", o->what, sugg[0] ? "; " : "", sugg);
    }
    return SP_OK;
}

/* every sentence of the corpus through its writer into out; a stop request is honoured between
 * sentences */
static int write_corpus(struct stg_ctx *ctx, struct st_db *db, int64_t corpus_id, int kind, const char *fmt, FILE *out,
                        struct stg_export_result *r)
{
    unsigned want = kind == K_STRUCTURES ? ST_WANT_DEP | ST_WANT_CONST : kind == K_CONLLU ? ST_WANT_EXTRA : 0;
    struct st_iter *it;
    int rc = st_iter_open(db, corpus_id, want, &it, ctx->err, sizeof ctx->err);
    if (rc != SP_OK) return rc;
    if (kind == K_SENTENCES && !strcmp(fmt, "csv")) fputs("sent_id,split,text\n", out);
    if (kind == K_SENTENCES && !strcmp(fmt, "tsv")) fputs("sent_id\tsplit\ttext\n", out);
    struct sp_buf b = { 0 };
    int *scratch = NULL, k;
    size_t cap = 0;
    const struct st_row *row;
    while ((k = st_iter_next(it, &row)) > 0) {
        b.len = 0;
        if (kind == K_STRUCTURES) structures_line(&b, row, &scratch, &cap);
        else if (kind == K_SENTENCES) sentence_line(&b, row, fmt);
        else conllu_block(&b, row);
        fwrite(b.p, 1, b.len, out);
        if (++r->sentences % 1024 == 0) {
            stg_progress(ctx, "sentences", (uint64_t)r->sentences, 0);
            if (stg_stopping(ctx)) { rc = stg_stopped(ctx); break; }
        }
    }
    if (rc == SP_OK && k < 0) rc = stg_fail(ctx, SP_ESTORE, "%s", st_iter_error(it));
    free(scratch);
    sp_buf_free(&b);
    st_iter_close(it);
    return rc;
}

/* to --out (renamed into place only when complete) or to standard output */
static int write_to(struct stg_ctx *ctx, const struct stg_export_opts *o, struct st_db *db, int64_t corpus_id, int kind,
                    const char *fmt, struct stg_export_result *r)
{
    if (!o->out) {
        if (!o->to_stdout) return stg_fail(ctx, SP_EUSAGE, "--out FILE is required here");
        int rc = write_corpus(ctx, db, corpus_id, kind, fmt, o->to_stdout, r);
        if (rc == SP_OK && (fflush(o->to_stdout) || ferror(o->to_stdout))) rc = stg_fail(ctx, SP_EIO, "write error");
        return rc;
    }
    struct sp_out of = { 0 };
    int orc = sp_out_open(&of, o->out, ctx->err, sizeof ctx->err);
    if (orc) return orc;
    int rc = write_corpus(ctx, db, corpus_id, kind, fmt, of.f, r);
    if (rc == SP_OK && sp_out_commit(&of, ctx->err, sizeof ctx->err)) rc = SP_EIO;
    sp_out_abort(&of);
    return rc;
}

int stg_export(struct stg_ctx *ctx, const struct stg_export_opts *o, struct stg_export_result *r)
{
    memset(r, 0, sizeof *r);
    if (!o->db) return stg_fail(ctx, SP_EUSAGE, "--db is required");
    if (kind_of(o) >= K_VECTORS) return export_run(ctx, o, r);
    int kind;
    const char *fmt = o->format, *corpus = o->corpus ? o->corpus : "main";
    int rc = check_kind(ctx, o, &kind);
    if (rc == SP_OK) rc = check_format(ctx, kind, kind_names[kind], &fmt);
    if (rc != SP_OK) return rc;
    double t0 = sp_now();
    struct st_db *db = NULL;
    int64_t corpus_id = 0;
    rc = stg_open_store(ctx, o->db, ST_OPEN_READONLY, &db);
    if (rc == SP_OK) rc = stg_corpus_id(ctx, db, o->db, corpus, &corpus_id);
    if (rc == SP_OK) rc = write_to(ctx, o, db, corpus_id, kind, fmt, r);
    st_close(db);
    r->seconds = sp_now() - t0;
    if (rc == SP_OK)
        sp_log(ctx->log, SP_LOG_DEBUG, "export: %s of %ld sentences of %s in %.2fs", kind_names[kind], r->sentences,
               corpus, r->seconds);
    return rc;
}
