/* cli/cmd_export.c — synprobe export: sentences, structures and CoNLL-U out of a store. */
#include <csv.h>
#include <getopt.h>
#include <string.h>

#include "common/sp.h"
#include "cli/cli.h"
#include "cli/export.h"
#include "store/store.h"

static const char *usage_text =
    "usage: synprobe export --db DB [--corpus NAME] --what structures|sentences|conllu [--format F] [--out FILE]\n"
    "\n"
    "  --what structures --format jsonl   one JSON object per sentence, in corpus order:\n"
    "       {\"sent_id\", \"words\", \"heads\" (1-based, 0 = root), \"depth\", \"distance\", \"ancestors\",\n"
    "        \"abs_pos\", \"rel_pos\" (unclipped), \"phrases\" (one array per PSAN level), \"tree_depth\",\n"
    "        \"top_const\"}; keys whose annotation the sentence lacks are omitted.\n"
    "  --what sentences --format jsonl|csv|tsv   sent_id, split, text\n"
    "  --format conllu (or --what conllu)         the corpus as CoNLL-U: token, multiword and\n"
    "       empty-node lines as ingested, comment lines kept\n"
    "\n"
    "usage: synprobe export --db DB --run R --what vectors|tokens|attention [--format npy] --out FILE\n"
    "  an encoder run's outputs (see `synprobe encode`), one row per run item in corpus / task-file order:\n"
    "  vectors    float32 (n_items, dim)\n"
    "  tokens     float32 (total_tokens, d) and FILE.lengths.npy int32 (n_items,) (FILE minus .npy)\n"
    "  attention  float32 (n_items, L, L) zero-padded, as `synprobe trees --attention` reads it\n";

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

int cmd_export(int argc, char **argv)
{
    const char *db_path = NULL, *corpus = NULL, *what = NULL, *fmt = NULL, *out_path = NULL, *run = NULL;
    static const struct option opts[] = {
        { "db", required_argument, 0, 'd' }, { "corpus", required_argument, 0, 'c' },
        { "what", required_argument, 0, 'w' }, { "format", required_argument, 0, 'f' },
        { "out", required_argument, 0, 'o' }, { "run", required_argument, 0, 'r' },
        { "help", no_argument, 0, 'h' }, { 0, 0, 0, 0 },
    };
    optind = 1;
    int ch;
    while ((ch = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
        switch (ch) {
        case 'd': db_path = optarg; break;
        case 'c': corpus = optarg; break;
        case 'w': what = optarg; break;
        case 'f': fmt = optarg; break;
        case 'o': out_path = optarg; break;
        case 'r': run = optarg; break;
        case 'h': fputs(usage_text, stdout); return SP_EXIT_OK;
        default: fputs(usage_text, stderr); return SP_EXIT_USAGE;
        }
    }
    if (!db_path) return cli_fail(SP_EXIT_USAGE, "export", "--db is required");
    if (fmt && !strcmp(fmt, "conllu") && !what) what = "conllu";
    if (!what) return cli_fail(SP_EXIT_USAGE, "export", "--what is required (structures, sentences or conllu)");
    if (!strcmp(what, "vectors") || !strcmp(what, "tokens") || !strcmp(what, "attention")) {
        return export_encoded(db_path, corpus, what, fmt, out_path, run);
    }
    if (!corpus) corpus = "main";
    int kind = !strcmp(what, "structures") ? 1 : !strcmp(what, "sentences") ? 2 : !strcmp(what, "conllu") ? 3 : 0;
    if (!kind) return cli_fail(SP_EXIT_USAGE, "export", "--what: expected structures, sentences, conllu, vectors, tokens or attention, got '%s'", what);
    if (!fmt) fmt = kind == 3 ? "conllu" : "jsonl";
    if ((kind == 1 && strcmp(fmt, "jsonl")) || (kind == 3 && strcmp(fmt, "conllu")) ||
        (kind == 2 && strcmp(fmt, "jsonl") && strcmp(fmt, "csv") && strcmp(fmt, "tsv")))
        return cli_fail(SP_EXIT_USAGE, "export", "--what %s cannot be written as '%s'", what, fmt);

    char err[SP_ERRLEN];
    struct st_db *db = NULL;
    int64_t corpus_id;
    if (st_open(db_path, ST_OPEN_READONLY, &db, err, sizeof err) || st_corpus_id(db, corpus, 0, &corpus_id, err, sizeof err)) {
        st_close(db);
        return cli_fail(SP_EXIT_INPUT, "export", "%s", err);
    }
    FILE *out = stdout;
    struct sp_out of = { 0 };      /* --out: renamed into place only when complete */
    if (out_path) {
        if (sp_out_open(&of, out_path, err, sizeof err)) { st_close(db); return cli_fail(SP_EXIT_INPUT, "export", "%s", err); }
        out = of.f;
    }
    unsigned want = kind == 1 ? ST_WANT_DEP | ST_WANT_CONST : kind == 3 ? ST_WANT_EXTRA : 0;
    struct st_iter *it;
    if (st_iter_open(db, corpus_id, want, &it, err, sizeof err)) {
        sp_out_abort(&of);
        st_close(db);
        return cli_fail(SP_EXIT_INPUT, "export", "%s", err);
    }
    if (kind == 2 && !strcmp(fmt, "csv")) fputs("sent_id,split,text\n", out);
    if (kind == 2 && !strcmp(fmt, "tsv")) fputs("sent_id\tsplit\ttext\n", out);
    struct sp_buf b = { 0 };
    int *scratch = NULL, rc;
    size_t cap = 0;
    const struct st_row *r;
    while ((rc = st_iter_next(it, &r)) > 0) {
        b.len = 0;
        if (kind == 1) structures_line(&b, r, &scratch, &cap);
        else if (kind == 2) sentence_line(&b, r, fmt);
        else conllu_block(&b, r);
        fwrite(b.p, 1, b.len, out);
    }
    int status = SP_EXIT_OK;
    if (rc < 0) status = cli_fail(SP_EXIT_INPUT, "export", "%s", st_iter_error(it));
    if (out_path) {
        if (status == SP_EXIT_OK && sp_out_commit(&of, err, sizeof err)) status = cli_fail(SP_EXIT_INPUT, "export", "%s", err);
        sp_out_abort(&of);
    } else if (fflush(out) || ferror(out)) status = cli_fail(SP_EXIT_INPUT, "export", "write error");
    free(scratch);
    sp_buf_free(&b);
    st_iter_close(it);
    st_close(db);
    return status;
}
