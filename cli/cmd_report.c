/* cli/cmd_report.c — synprobe report: stored results as a text table, JSON, a tidy CSV, an HTML
 * page or tables for papers (LaTeX, Markdown) (stages/report), on stdout or into --out FILE,
 * renamed into place only on success. */
#include "cli/cli.h"
#include "report/report.h"

const struct cli_doc cmd_report_doc = {
    .name = "report",
    .purpose = "stored results as text, JSON, CSV, HTML, LaTeX or Markdown, and figures",
    .synopsis = "--db [options] [--figures [--figure-formats]]",
    .prose =
        "Stored probing results (synprobe probe --db / --save) and tree evaluations (synprobe trees --db,\n"
        "structprobe --db), oldest first. --run matches both kinds; --task and --classifier select probe\n"
        "results only, --method and --corpus tree evaluations only (giving filters of one kind alone leaves\n"
        "the other kind out). --run and --task take several names (rows of any of them); a --run that\n"
        "names no run of the store is an error (exit 1, with the nearest names and the store's runs).\n"
        "\n"
        "  --format text   (default) a table per kind: probe results (task, classifier, seed, run or vectors,\n"
        "                  dev, test, majority, control, selectivity: test percent; macro F1: fraction), tree\n"
        "                  evaluations (Protocol A F1 all/le40, Protocol B sentence/corpus F1) and structural\n"
        "                  probes (UUAS, DSpr, root accuracy, NSpr)\n"
        "  --format html   one self-contained page (inline SVG and CSS): the experiment (corpora and partitions,\n"
        "                  encoders and layers, seeds, job file and hash), the caveats once, a layer x measure\n"
        "                  heatmap, the encoder x task table with intervals and baselines, comparisons, control\n"
        "                  tasks (accuracy, control accuracy, selectivity by layer), accuracy by layer, trees\n"
        "                  from attention, structural probes, corpus statistics and histograms, every result's\n"
        "                  manifest; --out FOLDER writes FOLDER/report.html\n"
        "  --format latex  tables for papers, a fragment to \\input (needs \\usepackage{booktabs}; a comment at the\n"
        "                  top names it, the store, the job file and its sha256, the commands that made the\n"
        "                  results): per classifier the encoder x task table (mean ± sd over seeds, under it the\n"
        "                  95% interval and the selectivity against the control task; majority and length-only\n"
        "                  baselines as rows; n test items and seeds), layer x task for runs NAME-L<k> (best\n"
        "                  layer in bold), token probes (accuracy, control, selectivity), structural probes\n"
        "                  (UUAS, DSpr, root accuracy, NSpr; by layer), tree extraction F1 per method against the\n"
        "                  baselines, dependency trees, the --compare table. Booktabs rules, a caption and label\n"
        "                  tab:synprobe-ID per table; percentages with one decimal, correlations two, p three;\n"
        "                  flags as footnote marks (dagger: fewer than 97 test items; *: an interval wider than\n"
        "                  10 points; double dagger: no interval) with their legend under the table; every name\n"
        "                  LaTeX-escaped\n"
        "  --format md     the same tables as GitHub-flavoured Markdown (pipes and other marks escaped)\n"
        "  --format json   {\"probe_results\":[{id,run,task,classifier,seed,dev_acc,test_acc,created,result}],\n"
        "                   \"tree_evals\":[{id,run,corpus,method,created,result}]}; result = the stored JSON\n"
        "  --format csv    tidy, one observation per row, header:\n"
        "                  kind,id,run,encoder,layer,vectors,task,classifier,seed,method,corpus,split,subset,metric,class,pred_class,value\n"
        "     kind         probe | tree | aggregate (per encoder, task, classifier: over seeds) | comparison\n"
        "                  (--compare) | skipped_task (a task the probing protocol cannot run on, whose encodes\n"
        "                  and probes a job skipped: task, metric \"reason\", value = the reason)\n"
        "     id           result_id (probe) or eval_id (tree)\n"
        "     run          run name, empty when the vectors/attention came from a file\n"
        "     encoder      the encoder label: the run name without its input, NAME of NAME-L<k>\n"
        "     layer        k of a run NAME-L<k> (a model's layer, 0 = embeddings), else empty\n"
        "     vectors      probe: the vectors file (or run); tree: empty\n"
        "     task classifier seed   probe rows; method corpus   tree rows\n"
        "     split        train | dev | test for probe rows (empty for chosen_*), empty for tree rows\n"
        "     subset       tree rows: all | le40 | le10; probe grid_devacc rows: the grid cell\n"
        "                  \"nhid=H dropout=P l2reg=L\"\n"
        "     metric       probe: n, accuracy, majority_accuracy, control_accuracy, selectivity, macro_f1,\n"
        "                  precision, recall, f1, support (per class), confusion (class = gold,\n"
        "                  pred_class = predicted), chosen_nhid, chosen_dropout, chosen_l2reg, grid_devacc;\n"
        "                  tree: A_recall, A_precision, A_fmeasure, B_sentence_f1, B_corpus_f1, n_sentences,\n"
        "                  and for structprobe:* methods uuas, dspr, root_acc, nspr, n_sentences\n"
        "     value        accuracies, selectivity, tree F1/recall/precision, uuas, root_acc: percent;\n"
        "                  precision/recall/f1/macro_f1 of probe classes, dspr, nspr: fractions;\n"
        "                  n/support/confusion/n_sentences: counts; empty when not defined (no test split)\n"
        "--figures DIR writes every chart of the HTML page (whatever --format) as DIR/NN-NAME.svg and, drawn by\n"
        "librsvg, DIR/NN-NAME.pdf and .png (--figure-formats picks; a build without librsvg writes SVG only).\n"
        "An empty selection prints a message (text) or an empty document (json: empty arrays; csv: the\n"
        "header only) and exits 0. Exit: 0 ok, 1 bad input (missing store, unknown run), 2 usage.\n",
};

int cmd_report(int argc, char **argv)
{
    struct rpt_opts o = { 0 };
    const struct sp_optbind b[] = { { rpt_options, &o } };
    struct cli c;
    int rc = cli_parse(&c, &cmd_report_doc, b, 1, argc, argv, 0);
    if (rc >= 0) return rc;

    struct rpt_result r;
    char written[4096];
    rc = rpt_write(&c.ctx, &o, &r, written, sizeof written);
    return cli_done(&c, cli_finish_stage(&c, rc));
}
