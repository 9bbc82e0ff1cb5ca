/* cli/cmd_ingest.c — synprobe ingest: treebank files into a store (stages/ingest). */
#include <jansson.h>
#include <string.h>

#include "cli/cli.h"
#include "stages/ingest.h"

const struct cli_doc cmd_ingest_doc = {
    .name = "ingest",
    .purpose = "parse treebanks (.conllu .mrg .dp) into a store, with cached structures",
    .synopsis = "(--db | --dry-run) [--strict | --repair] [options] FILE|DIR|-...",
    .prose =
        "Parses CoNLL-U (.conllu), PTB bracketed trees (.mrg) and 3-column dependency files (.dp),\n"
        "computes every cached structure, and stores each file in one transaction.\n"
        "A FILE may be a pipe or FIFO, '-' for standard input, or gzip (.gz, or gzip on standard input);\n"
        "each is read once and stored under the SHA-256 of the (decompressed) bytes parsed.\n"
        "A file whose bytes are already in the corpus is skipped. A .mrg and a .dp (or .conllu) with the\n"
        "same name attach to the same sentences, position by position (the pair in one folder first);\n"
        "two files of one kind with the same name (en/dev.conllu, de/dev.conllu) are separate documents.\n"
        "Malformed sentences go to the quarantine table with file:line and reason (unless --strict).\n"
        "Exit: 0 if sentences were ingested (rejections are reported), 1 if a file failed or nothing\n"
        "was ingested, 2 on usage errors.\n",
};

static const char *status_name(enum stg_ingest_status s)
{
    return s == STG_INGEST_DONE ? "ingested" : s == STG_INGEST_UNCHANGED ? "unchanged" : "failed";
}

static void print_json(const struct stg_ingest_opts *o, const struct stg_ingest_result *r)
{
    json_t *files = json_array();
    for (int i = 0; i < r->n_files; i++) {
        const struct stg_ingest_file *f = &r->files[i];
        json_t *jf = json_pack("{s:s, s:s, s:s, s:i, s:i, s:i, s:I}", "path", f->path, "status", status_name(f->status),
                               "format", f->fmt ? ing_format_name(f->fmt) : "unknown", "sentences", f->sum.n_sentences,
                               "attached", f->sum.n_attached, "rejected", f->sum.n_rejected, "words", (json_int_t)f->sum.n_words);
        if (f->sum.n_kept) json_object_set_new(jf, "kept", json_integer(f->sum.n_kept));
        json_object_set_new(jf, "repaired", json_integer(f->repaired));
        json_object_set_new(jf, "comment_lines_skipped", json_integer(f->skipped_lines));
        if (f->status == STG_INGEST_FAILED) json_object_set_new(jf, "error", json_string(f->error));
        json_array_append_new(files, jf);
    }
    json_t *root = json_pack("{s:s?, s:s, s:o, s:{s:i, s:i, s:i, s:I, s:I, s:I, s:I, s:I, s:f, s:f}}", "db", o->db,
                             "corpus", o->corpus, "files", files, "totals", "files", r->n_files, "failed", r->n_failed,
                             "unchanged", r->n_unchanged, "sentences", (json_int_t)r->sentences, "attached",
                             (json_int_t)r->attached, "rejected", (json_int_t)r->rejected, "words", (json_int_t)r->words,
                             "tokens_parsed", (json_int_t)r->tokens, "seconds", r->seconds,
                             "tokens_per_second", r->seconds > 0 ? r->tokens / r->seconds : 0.0);
    json_object_set_new(json_object_get(root, "totals"), "repaired", json_integer(r->repaired));
    json_object_set_new(json_object_get(root, "totals"), "comment_lines_skipped", json_integer(r->skipped_lines));
    json_dumpf(root, stdout, JSON_INDENT(2));
    fputc('\n', stdout);
    json_decref(root);
}

int cmd_ingest(int argc, char **argv)
{
    struct stg_ingest_opts o = { 0 };
    struct cli c;
    const struct sp_optbind b[] = { { stg_ingest_options, &o }, { cli_json_option, &c.common } };
    int rc = cli_parse(&c, &cmd_ingest_doc, b, 2, argc, argv, 1);
    if (rc >= 0) return rc;
    for (int i = 0; i < c.operands.n; i++)       /* operands are inputs, after any --inputs */
        sp_opt_set(sp_opt_find(stg_ingest_options, "inputs"), &o, c.operands.v[i], &c.arena, c.ctx.err, sizeof c.ctx.err);
    if (c.common.json) c.log.level = SP_LOG_WARN;      /* the per-file lines are in the JSON */

    struct stg_ingest_result r;
    rc = stg_ingest(&c.ctx, &o, &r);
    if (rc == SP_EUSAGE) cli_usage(stderr, &c);
    if (rc == SP_OK || (rc == SP_EPARSE && r.n_files)) {   /* the failures are logged already */
        cli_progress_clear(&c);
        if (c.common.json) print_json(&o, &r);
        else {
            /* said only when there are some: --repair's sentences whose warnings name what was changed
             * or dropped, and comment lines that belong to no sentence (each named above) */
            char repaired[96] = "", skipped[96] = "";
            if (r.repaired) snprintf(repaired, sizeof repaired, ", %ld repaired with warnings", r.repaired);
            if (r.skipped_lines)
                snprintf(skipped, sizeof skipped, ", %ld comment line%s without a sentence skipped", r.skipped_lines,
                         r.skipped_lines > 1 ? "s" : "");
            printf("%s: %d files (%d ingested, %d unchanged, %d failed), %ld new sentences, %ld annotations attached "
                   "to existing ones, %ld rejected%s%s, %ld tokens in %.2fs\n", o.dry_run ? "dry run" : o.corpus,
                   r.n_files, r.n_done, r.n_unchanged, r.n_failed, r.sentences, r.attached, r.rejected, repaired, skipped,
                   r.tokens, r.seconds);
        }
        rc = rc == SP_OK ? SP_EXIT_OK : SP_EXIT_INPUT;
    } else {
        rc = cli_finish_stage(&c, rc);
    }
    stg_ingest_result_free(&r);
    return cli_done(&c, rc);
}
