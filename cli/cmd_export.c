/* cli/cmd_export.c — synprobe export: sentences, structures and CoNLL-U out of a store
 * (stages/export), or an encoder run's outputs (stages/export_encoded). */
#include "cli/cli.h"
#include "stages/export.h"

const struct cli_doc cmd_export_doc = {
    .name = "export",
    .purpose = "write sentences, structures, CoNLL-U or vectors out of a store",
    .synopsis = "--db [--corpus] --what [--format] [--out]; --db --run --what [--format] --out [--layers] [--heads]",
    .prose =
        "Out of a corpus (the first form), --what and --format:\n"
        "  --what structures --format jsonl   one JSON object per sentence, in corpus order:\n"
        "       {\"sent_id\", \"words\", \"heads\" (1-based, 0 = root), \"depth\", \"distance\", \"ancestors\",\n"
        "        \"abs_pos\", \"rel_pos\" (unclipped), \"phrases\" (one array per PSAN level), \"tree_depth\",\n"
        "        \"top_const\"}; keys whose annotation the sentence lacks are omitted.\n"
        "  --what sentences --format jsonl|csv|tsv   sent_id, split, text\n"
        "  --format conllu (or --what conllu)         the corpus as CoNLL-U: token, multiword and\n"
        "       empty-node lines as ingested, comment lines kept\n"
        "\n"
        "Out of an encoder run (the second form; see `synprobe encode`), --what vectors, tokens or attention\n"
        "as .npy, one row per run item in corpus / task-file order:\n"
        "  vectors    float32 (n_items, dim)\n"
        "  tokens     float32 (total_tokens, d) and FILE.lengths.npy int32 (n_items,) (FILE minus .npy)\n"
        "  attention  float32 (n_items, L, L) zero-padded, as `synprobe trees --attention` reads it\n"
        "  --layers all|K,K,...  with --run NAME made by `encode --layers`: its layer runs NAME-L<k> as one\n"
        "             array, the layer axis second: vectors (n_items, layers, dim), tokens (total_tokens, layers, d)\n"
        "Exit: 0 ok, 1 bad input (an unknown corpus or run names the nearest ones), 2 usage.\n",
};

int cmd_export(int argc, char **argv)
{
    struct stg_export_opts o = { 0 };
    const struct sp_optbind b[] = { { stg_export_options, &o } };
    struct cli c;
    int rc = cli_parse(&c, &cmd_export_doc, b, 1, argc, argv, 0);
    if (rc >= 0) return rc;
    o.to_stdout = stdout;
    struct stg_export_result r;
    rc = stg_export(&c.ctx, &o, &r);
    if (rc == SP_OK && r.lengths_path[0])      /* a second file: say so */
        fprintf(stderr, "synprobe export: sentence lengths written to %s\n", r.lengths_path);
    return cli_done(&c, cli_finish_stage(&c, rc));
}
