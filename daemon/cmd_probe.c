/* daemon/cmd_probe.c — `synprobe probe`: SentEval probing classifier on a task file + vectors.
 *
 * Reads the task file (ingest/senteval), maps labels to classes (§1.2), loads the .npy matrix
 * whose row i is the sentence of the task file's i-th instance line, and runs the protocol of
 * probes/senteval on those arrays. The protocol never sees files, so a store-backed source
 * (--db DB --task NAME) only has to build the same arrays. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/npy.h"
#include "daemon/cli.h"
#include "ingest/senteval.h"
#include "probes/senteval.h"

static void help(FILE *f)
{
    fprintf(f,
        "usage: synprobe probe --task-file TASK.txt --vectors X.npy [options]\n"
        "\n"
        "Train SentEval probing classifiers (SPEC-probing §1) and report dev/test accuracy.\n"
        "\n"
        "  --task-file F      SentEval probing file: tr|va|te TAB label TAB sentence, one instance a line\n"
        "  --vectors X.npy    sentence vectors, float32 or float64, shape (n, d); row i is the vector of\n"
        "                     the i-th line of the task file (file order, all partitions, n = number of lines)\n"
        "  --classifier C     logreg (default) or mlp (sigmoid hidden layer; grid nhid {50,100,200} x\n"
        "                     dropout {0,0.1,0.2}, each cell with the l2 grid, chosen on dev)\n"
        "  --preset P         senteval-default (adam, batch 64, tenacity 5, epoch_size 4, max_epoch 200)\n"
        "                     or senteval-fast (rmsprop, batch 128, tenacity 3, epoch_size 2)\n"
        "  --seed N           classifier seed (default 1111)\n"
        "  --threads K        worker threads (default 1); results do not depend on K\n"
        "  --nhid N           MLP: use this hidden size only (no nhid grid)\n"
        "  --dropout P        MLP: use this dropout only (no dropout grid)\n"
        "  --optim S          optimizer string as in SentEval, e.g. adam or rmsprop or adam,lr=0.0005\n"
        "  --max-epoch N      override max_epoch\n"
        "  --noreg            l2 grid {1e-9} instead of {1e-5, 1e-4, 1e-3, 1e-2}\n"
        "  --control-seed N   seed of the label shuffle of the control task (default: --seed)\n"
        "  --no-control       skip the control task\n"
        "  --json             print the result as JSON instead of text\n"
        "  --quiet            no progress lines on stderr\n"
        "\n"
        "Every result includes the majority-class baseline, the control task (labels shuffled within\n"
        "each partition, seed recorded) with selectivity = test - control test, per-class precision /\n"
        "recall / F1 and the confusion matrix (test partition; dev if there is no test partition).\n"
        "Exit status: 0 ok, 1 bad input, 2 usage.\n");
}

static int next_arg(int argc, char **argv, int *i, const char **val)
{
    if (*i + 1 >= argc) return -1;
    *val = argv[++*i];
    return 0;
}

int cmd_probe(int argc, char **argv)
{
    const char *cmd = "probe";
    const char *task_file = NULL, *vectors = NULL, *classifier = "logreg", *preset = "senteval-default";
    const char *optim = NULL;
    long seed = 1111, threads = 1, nhid = -1, max_epoch = -1, control_seed = -1;
    double dropout = -1;
    int json = 0, quiet = 0, noreg = 0, no_control = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) { help(stdout); return SP_EXIT_OK; }
        else if (!strcmp(a, "--json")) json = 1;
        else if (!strcmp(a, "--quiet")) quiet = 1;
        else if (!strcmp(a, "--noreg")) noreg = 1;
        else if (!strcmp(a, "--no-control")) no_control = 1;
        else if (!strcmp(a, "--task-file")) { if (next_arg(argc, argv, &i, &task_file)) goto missing; }
        else if (!strcmp(a, "--vectors")) { if (next_arg(argc, argv, &i, &vectors)) goto missing; }
        else if (!strcmp(a, "--classifier")) { if (next_arg(argc, argv, &i, &classifier)) goto missing; }
        else if (!strcmp(a, "--preset")) { if (next_arg(argc, argv, &i, &preset)) goto missing; }
        else if (!strcmp(a, "--optim")) { if (next_arg(argc, argv, &i, &optim)) goto missing; }
        else if (!strcmp(a, "--seed") || !strcmp(a, "--threads") || !strcmp(a, "--nhid") ||
                 !strcmp(a, "--max-epoch") || !strcmp(a, "--control-seed")) {
            if (next_arg(argc, argv, &i, &v)) goto missing;
            long *dst = !strcmp(a, "--seed") ? &seed : !strcmp(a, "--threads") ? &threads : !strcmp(a, "--nhid") ? &nhid
                      : !strcmp(a, "--max-epoch") ? &max_epoch : &control_seed;
            long hi = !strcmp(a, "--threads") ? 256 : !strcmp(a, "--nhid") ? 100000 : 2147483647L;
            long lo = !strcmp(a, "--threads") || !strcmp(a, "--nhid") ? 1 : 0;
            if (sp_parse_int(v, lo, hi, dst)) return sp_fail(SP_EXIT_USAGE, cmd, "bad value for %s: '%s'", a, v);
        } else if (!strcmp(a, "--dropout")) {
            if (next_arg(argc, argv, &i, &v)) goto missing;
            char *end;
            dropout = strtod(v, &end);
            if (*end || end == v || !(dropout >= 0 && dropout < 1))
                return sp_fail(SP_EXIT_USAGE, cmd, "bad value for --dropout: '%s' (expected 0 <= p < 1)", v);
        } else {
            sp_fail(SP_EXIT_USAGE, cmd, "unknown option '%s'", a);
            help(stderr);
            return SP_EXIT_USAGE;
        }
        continue;
    missing:
        return sp_fail(SP_EXIT_USAGE, cmd, "option %s needs a value", a);
    }
    if (!task_file || !vectors) {
        sp_fail(SP_EXIT_USAGE, cmd, "--task-file and --vectors are required");
        help(stderr);
        return SP_EXIT_USAGE;
    }
    enum prb_clf_kind kind;
    if (!strcmp(classifier, "logreg")) kind = PRB_LOGREG;
    else if (!strcmp(classifier, "mlp")) kind = PRB_MLP;
    else return sp_fail(SP_EXIT_USAGE, cmd, "unknown classifier '%s' (expected logreg or mlp)", classifier);
    struct prb_protocol proto;
    if (prb_protocol_preset(&proto, preset, kind))
        return sp_fail(SP_EXIT_USAGE, cmd, "unknown preset '%s' (expected senteval-default or senteval-fast)", preset);
    char err[SP_ERRLEN];
    if (optim && prb_optim_parse(optim, &proto.train.optim, err, sizeof err))
        return sp_fail(SP_EXIT_USAGE, cmd, "--optim: %s", err);
    proto.train.seed = (uint64_t)seed;
    proto.train.threads = (int)threads;
    proto.control_seed = control_seed >= 0 ? (uint64_t)control_seed : (uint64_t)seed;
    proto.control = !no_control;
    proto.verbose = !quiet;
    if (max_epoch >= 0) proto.train.max_epoch = (int)max_epoch;
    if (noreg) { proto.n_l2 = 1; proto.l2[0] = 1e-9; }
    if (kind == PRB_MLP && nhid > 0) { proto.n_nhid = 1; proto.nhid[0] = (int)nhid; }
    if (kind == PRB_MLP && dropout >= 0) { proto.n_dropout = 1; proto.dropout[0] = dropout; }
    if (kind == PRB_LOGREG && (nhid > 0 || dropout >= 0))
        return sp_fail(SP_EXIT_USAGE, cmd, "--nhid and --dropout apply to --classifier mlp only");

    int rc = SP_EXIT_INPUT;
    struct ing_senteval_file tf;
    struct sp_npy X = { 0 };
    const char **labels = NULL, **names = NULL;
    unsigned char *split = NULL;
    int *y = NULL;
    ing_senteval_init(&tf);
    if (ing_senteval_read(task_file, &tf, err, sizeof err)) { sp_fail(SP_EXIT_INPUT, cmd, "%s", err); goto out; }
    if (sp_npy_read(vectors, &X, err, sizeof err)) { sp_fail(SP_EXIT_INPUT, cmd, "%s", err); goto out; }
    if (X.ndim != 2 || X.dtype == SP_DT_I32) {
        sp_fail(SP_EXIT_INPUT, cmd, "%s: expected a 2-D float32 or float64 array (n, d), got %d-D %s", vectors, X.ndim,
                sp_dtype_name(X.dtype));
        goto out;
    }
    if (X.shape[0] != (size_t)tf.n) {
        sp_fail(SP_EXIT_INPUT, cmd, "%s: %zu rows, but %s has %d instance lines (row i must be line i's sentence)",
                vectors, X.shape[0], task_file, tf.n);
        goto out;
    }
    if (X.shape[1] < 1 || X.shape[1] > 1000000) { sp_fail(SP_EXIT_INPUT, cmd, "%s: bad dimension %zu", vectors, X.shape[1]); goto out; }
    sp_npy_to_f32(&X);
    int n = tf.n;
    labels = sp_xmalloc((size_t)(n ? n : 1) * sizeof *labels);
    split = sp_xmalloc((size_t)(n ? n : 1));
    y = sp_xmalloc((size_t)(n ? n : 1) * sizeof *y);
    for (int i = 0; i < n; i++) {
        labels[i] = tf.item[i].label;
        split[i] = tf.item[i].part == ING_PART_TRAIN ? PRB_SPLIT_TRAIN : tf.item[i].part == ING_PART_DEV ? PRB_SPLIT_DEV : PRB_SPLIT_TEST;
    }
    int k = 0, bad = -1;
    if (prb_label_map(n, labels, split, y, &k, &names, &bad, err, sizeof err)) {
        if (bad >= 0) sp_fail(SP_EXIT_INPUT, cmd, "%s:%ld: %s", task_file, tf.item[bad].line, err);
        else sp_fail(SP_EXIT_INPUT, cmd, "%s: %s", task_file, err);
        goto out;
    }
    /* task name: the file's base name without extension */
    char task[128];
    const char *base = strrchr(task_file, '/');
    snprintf(task, sizeof task, "%s", base ? base + 1 : task_file);
    char *dot = strrchr(task, '.');
    if (dot && dot != task) *dot = 0;

    struct prb_dataset ds = { .n = n, .d = (int)X.shape[1], .k = k, .X = X.data, .y = y, .split = split,
                              .class_names = names, .task = task };
    struct prb_result res;
    if (prb_senteval_run(&ds, &proto, &res, err, sizeof err)) {
        sp_fail(SP_EXIT_INPUT, cmd, "%s: %s", task_file, err);
        goto out;
    }
    if (json) {
        json_t *j = prb_result_json(&res);
        json_object_set_new(j, "task_file", json_string(task_file));
        json_object_set_new(j, "vectors", json_string(vectors));
        char *s = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
        if (s) { fputs(s, stdout); fputc('\n', stdout); free(s); }
        json_decref(j);
    } else {
        prb_result_print(stdout, &res);
    }
    prb_result_free(&res);
    rc = SP_EXIT_OK;
out:
    free(labels);
    free(names);
    free(split);
    free(y);
    sp_npy_free(&X);
    ing_senteval_free(&tf);
    return rc;
}
