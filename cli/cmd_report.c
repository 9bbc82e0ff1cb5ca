/* cli/cmd_report.c — `synprobe report`: stored probing results and tree evaluations as a text
 * table, JSON or a tidy CSV; also the manifest part every stored result shares (sp_manifest_new).
 *
 * The rows come from store/results (probe_result, tree_eval); their `result` JSON is what the
 * commands printed plus a manifest, so the writers here only read fields out of it. */
#include <cblas.h>
#include <csv.h>
#include <jansson.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/sp.h"
#include "cli/cli.h"
#include "cli/legacy.h"
#include "cli/legacy.h"
#include "store/results.h"

#define CMD "report"

/* ---- collecting rows ---- */

static void usage(FILE *f)
{
    fprintf(f,
        "usage: synprobe report --db DB [--run R] [--task T] [--classifier C] [--method M] [--corpus C]\n"
        "                       [--format text|json|csv] [--out FILE]\n"
        "\n"
        "Stored probing results (synprobe probe --db / --save) and tree evaluations (synprobe trees --db,\n"
        "structprobe --db), oldest first. --run matches both kinds; --task and --classifier select probe\n"
        "results only, --method and --corpus tree evaluations only (giving filters of one kind alone leaves\n"
        "the other kind out).\n"
        "\n"
        "  --format text   (default) a table per kind: probe results (task, classifier, seed, run or vectors,\n"
        "                  dev, test, majority, control, selectivity: test percent; macro F1: fraction), tree\n"
        "                  evaluations (Protocol A F1 all/le40, Protocol B sentence/corpus F1) and structural\n"
        "                  probes (UUAS, DSpr, root accuracy, NSpr)\n"
        "  --format json   {\"probe_results\":[{id,run,task,classifier,seed,dev_acc,test_acc,created,result}],\n"
        "                   \"tree_evals\":[{id,run,corpus,method,created,result}]}; result = the stored JSON\n"
        "  --format csv    tidy, one observation per row, header:\n"
        "                  kind,id,run,vectors,task,classifier,seed,method,corpus,split,subset,metric,class,pred_class,value\n"
        "     kind         probe | tree\n"
        "     id           result_id (probe) or eval_id (tree)\n"
        "     run          run name, empty when the vectors/attention came from a file\n"
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
        "  --out FILE      write there instead of stdout (a temporary file renamed over FILE on success;\n"
        "                  a filter that matches nothing is an error and leaves FILE as it was)\n"
        "An empty selection prints a message (text) or an empty document (json: empty arrays; csv: the\n"
        "header only) and exits 0. Exit: 0 ok, 1 bad input (missing store), 2 usage.\n");
}

struct coll { json_t *probes, *trees; };

static json_t *parse_result(const char *text, int64_t id)
{
    json_error_t e;
    json_t *j = text ? json_loads(text, 0, &e) : NULL;
    if (!j) {
        fprintf(stderr, "synprobe " CMD ": result %lld: stored JSON does not parse, reported as null\n", (long long)id);
        return json_null();
    }
    return j;
}

static json_t *str_or_null(const char *s) { return s ? json_string(s) : json_null(); }

static int on_probe(void *ctx, const struct st_probe_row *r)
{
    struct coll *c = ctx;
    json_t *o = json_object();
    json_object_set_new(o, "id", json_integer((json_int_t)r->id));
    json_object_set_new(o, "run", str_or_null(r->run));
    json_object_set_new(o, "task", json_string(r->task_name));
    json_object_set_new(o, "classifier", json_string(r->classifier));
    json_object_set_new(o, "seed", json_integer((json_int_t)r->seed));
    json_object_set_new(o, "dev_acc", r->has_dev ? json_real(r->dev_acc) : json_null());
    json_object_set_new(o, "test_acc", r->has_test ? json_real(r->test_acc) : json_null());
    json_object_set_new(o, "created", str_or_null(r->created));
    json_object_set_new(o, "result", parse_result(r->result, r->id));
    json_array_append_new(c->probes, o);
    return 0;
}

static int on_tree(void *ctx, const struct st_tree_row *r)
{
    struct coll *c = ctx;
    json_t *o = json_object();
    json_object_set_new(o, "id", json_integer((json_int_t)r->id));
    json_object_set_new(o, "run", str_or_null(r->run));
    json_object_set_new(o, "corpus", str_or_null(r->corpus));
    json_object_set_new(o, "method", json_string(r->method));
    json_object_set_new(o, "created", str_or_null(r->created));
    json_object_set_new(o, "result", parse_result(r->result, r->id));
    json_array_append_new(c->trees, o);
    return 0;
}

/* ---- field access ---- */

/* j at a path of object keys ("a.b.c"); NULL when absent */
static json_t *at(json_t *j, const char *path)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *save = NULL, *k = strtok_r(buf, ".", &save); k && j; k = strtok_r(NULL, ".", &save))
        j = json_is_object(j) ? json_object_get(j, k) : NULL;
    return j;
}

static double num_at(json_t *j, const char *path)
{
    json_t *v = at(j, path);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static const char *str_at(json_t *j, const char *path)
{
    const char *s = json_string_value(at(j, path));
    return s ? s : "";
}

/* where the vectors of a probe result came from: the run, else the file */
static const char *vectors_of(json_t *row)
{
    const char *run = json_string_value(json_object_get(row, "run"));
    if (run) return run;
    json_t *res = json_object_get(row, "result");
    const char *p = str_at(res, "manifest.vectors.path");
    if (!*p) p = str_at(res, "vectors");
    return p;
}

/* ---- text ---- */

static void fmt_num(char *buf, size_t n, double v, const char *fmt)
{
    if (isnan(v)) snprintf(buf, n, "-");
    else snprintf(buf, n, fmt, v);
}

static int is_structprobe(json_t *row)
{
    return !strncmp(str_at(row, "method"), "structprobe:", 12);
}

static void text_out(FILE *f, const struct coll *c, const char *db, int filtered)
{
    size_t np = json_array_size(c->probes), nt = json_array_size(c->trees);
    if (!np && !nt) {
        fprintf(f, "%s: no probe results or tree evaluations%s\n", db, filtered ? " match the filters" : " stored");
        return;
    }
    size_t i;
    json_t *row;
    if (np) {
        int wt = 4, wc = 10, wv = 11;
        json_array_foreach(c->probes, i, row) {
            int a = (int)strlen(str_at(row, "task")), b = (int)strlen(str_at(row, "classifier")), v = (int)strlen(vectors_of(row));
            if (a > wt) wt = a;
            if (b > wc) wc = b;
            if (v > wv) wv = v > 40 ? 40 : v;
        }
        fprintf(f, "probe results (%zu)\n", np);
        fprintf(f, "%5s  %-*s  %-*s  %6s  %-*s  %6s  %6s  %8s  %7s  %6s  %8s\n", "id", wt, "task", wc, "classifier",
                "seed", wv, "run/vectors", "dev", "test", "majority", "control", "select", "macro-F1");
        json_array_foreach(c->probes, i, row) {
            json_t *res = json_object_get(row, "result");
            char dev[32], test[32], maj[32], ctl[32], sel[32], mf[32];
            fmt_num(dev, sizeof dev, num_at(row, "dev_acc"), "%.2f");
            fmt_num(test, sizeof test, num_at(row, "test_acc"), "%.2f");
            double m = num_at(res, "baselines.majority.acc");
            fmt_num(maj, sizeof maj, isnan(m) ? num_at(res, "baselines.majority.devacc") : m, "%.2f");
            double ct = num_at(res, "baselines.control.acc");
            fmt_num(ctl, sizeof ctl, isnan(ct) ? num_at(res, "baselines.control.devacc") : ct, "%.2f");
            fmt_num(sel, sizeof sel, num_at(res, "baselines.control.selectivity"), "%.2f");
            fmt_num(mf, sizeof mf, num_at(res, "metrics.macro_f1"), "%.4f");
            const char *v = vectors_of(row);
            size_t vl = strlen(v);
            if ((int)vl > wv) v += vl - (size_t)wv;      /* keep the informative end of a long path */
            fprintf(f, "%5lld  %-*s  %-*s  %6lld  %-*s  %6s  %6s  %8s  %7s  %6s  %8s\n",
                    (long long)json_integer_value(json_object_get(row, "id")), wt, str_at(row, "task"), wc,
                    str_at(row, "classifier"), (long long)json_integer_value(json_object_get(row, "seed")), wv, v,
                    dev, test, maj, ctl, sel, mf);
        }
    }
    int n_tree = 0, n_sp = 0;
    json_array_foreach(c->trees, i, row) { if (is_structprobe(row)) n_sp++; else n_tree++; }
    if (n_tree) {
        int wm = 6, wc = 6, wr = 3;
        json_array_foreach(c->trees, i, row) {
            int a = (int)strlen(str_at(row, "method")), b = (int)strlen(str_at(row, "corpus")), r = (int)strlen(str_at(row, "run"));
            if (a > wm) wm = a > 48 ? 48 : a;
            if (b > wc) wc = b;
            if (r > wr) wr = r;
        }
        fprintf(f, "%stree evaluations (%d; Protocol A = EVALB LABELED 0, B = unlabeled spans without punctuation)\n",
                np ? "\n" : "", n_tree);
        fprintf(f, "%5s  %-*s  %-*s  %-*s  %6s  %8s  %9s  %9s  %10s  %9s\n", "id", wm, "method", wc, "corpus", wr, "run",
                "sents", "A-F1 all", "A-F1 <=40", "B-sent all", "B-sent <=40", "B-corp all");
        json_array_foreach(c->trees, i, row) {
            if (is_structprobe(row)) continue;
            json_t *res = json_object_get(row, "result");
            char a1[32], a2[32], b1[32], b2[32], b3[32];
            fmt_num(a1, sizeof a1, num_at(res, "protocol_a.all.fmeasure"), "%.2f");
            fmt_num(a2, sizeof a2, num_at(res, "protocol_a.le40.fmeasure"), "%.2f");
            fmt_num(b1, sizeof b1, num_at(res, "protocol_b.sentence_f1.all"), "%.2f");
            fmt_num(b2, sizeof b2, num_at(res, "protocol_b.sentence_f1.le40"), "%.2f");
            fmt_num(b3, sizeof b3, num_at(res, "protocol_b.corpus_f1.all"), "%.2f");
            const char *m = str_at(row, "method");
            size_t ml = strlen(m);
            if ((int)ml > wm) m += ml - (size_t)wm;
            fprintf(f, "%5lld  %-*s  %-*s  %-*s  %6lld  %8s  %9s  %9s  %10s  %9s\n",
                    (long long)json_integer_value(json_object_get(row, "id")), wm, m, wc, str_at(row, "corpus"), wr,
                    str_at(row, "run"), (long long)json_integer_value(at(res, "n_sentences")), a1, a2, b1, b2, b3);
        }
    }
    if (n_sp) {
        fprintf(f, "%sstructural probes (%d)\n", np || n_tree ? "\n" : "", n_sp);
        fprintf(f, "%5s  %-24s  %-12s  %6s  %7s  %7s  %8s  %7s\n", "id", "method", "corpus", "sents", "UUAS", "DSpr", "root acc", "NSpr");
        json_array_foreach(c->trees, i, row) {
            if (!is_structprobe(row)) continue;
            json_t *res = json_object_get(row, "result");
            char u[32], d[32], r[32], n[32];
            fmt_num(u, sizeof u, num_at(res, "uuas"), "%.2f");
            fmt_num(d, sizeof d, num_at(res, "dspr"), "%.4f");
            fmt_num(r, sizeof r, num_at(res, "root_acc"), "%.2f");
            fmt_num(n, sizeof n, num_at(res, "nspr"), "%.4f");
            fprintf(f, "%5lld  %-24s  %-12s  %6lld  %7s  %7s  %8s  %7s\n", (long long)json_integer_value(json_object_get(row, "id")),
                    str_at(row, "method"), str_at(row, "corpus"), (long long)json_integer_value(at(res, "n_sentences")), u, d, r, n);
        }
    }
}

/* ---- CSV ---- */

enum { C_KIND, C_ID, C_RUN, C_VEC, C_TASK, C_CLF, C_SEED, C_METHOD, C_CORPUS, C_SPLIT, C_SUBSET, C_METRIC,
       C_CLASS, C_PRED, C_VALUE, C_N };
static const char *const csv_header[C_N] = { "kind", "id", "run", "vectors", "task", "classifier", "seed", "method",
                                             "corpus", "split", "subset", "metric", "class", "pred_class", "value" };

static void csv_field(FILE *f, const char *s)
{
    /* quote only what needs it (libcsv doubles embedded quotes) */
    if (strpbrk(s, ",\"\r\n") || (*s && (s[0] == ' ' || s[strlen(s) - 1] == ' '))) csv_fwrite(f, s, strlen(s));
    else fputs(s, f);
}

static void csv_row(FILE *f, const char *const *v)
{
    for (int i = 0; i < C_N; i++) {
        if (i) fputc(',', f);
        csv_field(f, v[i] ? v[i] : "");
    }
    fputc('\n', f);
}

/* one observation: base row (identity columns) + split, subset, metric, class, pred, value */
struct obs { FILE *f; const char *v[C_N]; };

static void emit(struct obs *o, const char *split, const char *subset, const char *metric, const char *cls,
                 const char *pred, json_t *value)
{
    char buf[64] = "";
    if (json_is_integer(value)) snprintf(buf, sizeof buf, "%lld", (long long)json_integer_value(value));
    else if (json_is_real(value) && !isnan(json_real_value(value))) snprintf(buf, sizeof buf, "%.10g", json_real_value(value));
    o->v[C_SPLIT] = split; o->v[C_SUBSET] = subset; o->v[C_METRIC] = metric;
    o->v[C_CLASS] = cls; o->v[C_PRED] = pred; o->v[C_VALUE] = buf;
    csv_row(o->f, o->v);
}

static void emit_num(struct obs *o, const char *split, const char *subset, const char *metric, double v)
{
    json_t *j = isnan(v) ? json_null() : json_real(v);
    emit(o, split, subset, metric, NULL, NULL, j);
    json_decref(j);
}

static void csv_probe(FILE *f, json_t *row)
{
    json_t *res = json_object_get(row, "result");
    char id[32], seed[32];
    snprintf(id, sizeof id, "%lld", (long long)json_integer_value(json_object_get(row, "id")));
    snprintf(seed, sizeof seed, "%lld", (long long)json_integer_value(json_object_get(row, "seed")));
    struct obs o = { f, { 0 } };
    o.v[C_KIND] = "probe"; o.v[C_ID] = id; o.v[C_RUN] = str_at(row, "run");
    o.v[C_VEC] = vectors_of(row); o.v[C_TASK] = str_at(row, "task"); o.v[C_CLF] = str_at(row, "classifier");
    o.v[C_SEED] = seed;
    emit(&o, "train", NULL, "n", NULL, NULL, at(res, "ntrain"));
    emit(&o, "dev", NULL, "n", NULL, NULL, at(res, "ndev"));
    emit(&o, "test", NULL, "n", NULL, NULL, at(res, "ntest"));
    emit_num(&o, "dev", NULL, "accuracy", num_at(row, "dev_acc"));
    emit_num(&o, "test", NULL, "accuracy", num_at(row, "test_acc"));
    emit_num(&o, "dev", NULL, "majority_accuracy", num_at(res, "baselines.majority.devacc"));
    emit_num(&o, "test", NULL, "majority_accuracy", num_at(res, "baselines.majority.acc"));
    const char *ms = str_at(res, "metrics.split");
    if (at(res, "baselines.control")) {
        emit_num(&o, "dev", NULL, "control_accuracy", num_at(res, "baselines.control.devacc"));
        emit_num(&o, "test", NULL, "control_accuracy", num_at(res, "baselines.control.acc"));
        emit_num(&o, ms, NULL, "selectivity", num_at(res, "baselines.control.selectivity"));
    }
    emit_num(&o, ms, NULL, "macro_f1", num_at(res, "metrics.macro_f1"));
    size_t i;
    json_t *pc;
    json_array_foreach(at(res, "metrics.per_class"), i, pc) {
        const char *cls = str_at(pc, "class");
        emit(&o, ms, NULL, "precision", cls, NULL, json_object_get(pc, "precision"));
        emit(&o, ms, NULL, "recall", cls, NULL, json_object_get(pc, "recall"));
        emit(&o, ms, NULL, "f1", cls, NULL, json_object_get(pc, "f1"));
        emit(&o, ms, NULL, "support", cls, NULL, json_object_get(pc, "support"));
    }
    json_t *classes = json_object_get(res, "classes"), *cm = at(res, "metrics.confusion"), *cmrow;
    json_array_foreach(cm, i, cmrow) {
        size_t j;
        json_t *cell;
        json_array_foreach(cmrow, j, cell)
            emit(&o, ms, NULL, "confusion", json_string_value(json_array_get(classes, i)),
                 json_string_value(json_array_get(classes, j)), cell);
    }
    emit(&o, NULL, NULL, "chosen_nhid", NULL, NULL, at(res, "chosen.nhid"));
    emit(&o, NULL, NULL, "chosen_dropout", NULL, NULL, at(res, "chosen.dropout"));
    emit(&o, NULL, NULL, "chosen_l2reg", NULL, NULL, at(res, "chosen.l2reg"));
    json_t *g;
    json_array_foreach(json_object_get(res, "grid"), i, g) {
        char cell[128];
        snprintf(cell, sizeof cell, "nhid=%lld dropout=%g l2reg=%g", (long long)json_integer_value(json_object_get(g, "nhid")),
                 num_at(g, "dropout"), num_at(g, "l2reg"));
        emit(&o, "dev", cell, "grid_devacc", NULL, NULL, json_object_get(g, "devacc"));
    }
}

static void csv_tree(FILE *f, json_t *row)
{
    json_t *res = json_object_get(row, "result");
    char id[32];
    snprintf(id, sizeof id, "%lld", (long long)json_integer_value(json_object_get(row, "id")));
    struct obs o = { f, { 0 } };
    o.v[C_KIND] = "tree"; o.v[C_ID] = id; o.v[C_RUN] = str_at(row, "run");
    o.v[C_METHOD] = str_at(row, "method"); o.v[C_CORPUS] = str_at(row, "corpus");
    if (is_structprobe(row)) {
        static const char *const k[] = { "uuas", "dspr", "root_acc", "nspr" };
        for (int i = 0; i < 4; i++) emit_num(&o, NULL, NULL, k[i], num_at(res, k[i]));
    } else {
        static const char *const asub[] = { "all", "le40" }, *const bsub[] = { "all", "le40", "le10" };
        static const char *const am[] = { "recall", "precision", "fmeasure" };
        char path[64], metric[32];
        for (int s = 0; s < 2; s++)
            for (int m = 0; m < 3; m++) {
                snprintf(path, sizeof path, "protocol_a.%s.%s", asub[s], am[m]);
                snprintf(metric, sizeof metric, "A_%s", am[m]);
                emit_num(&o, NULL, asub[s], metric, num_at(res, path));
            }
        for (int s = 0; s < 3; s++) {
            snprintf(path, sizeof path, "protocol_b.sentence_f1.%s", bsub[s]);
            emit_num(&o, NULL, bsub[s], "B_sentence_f1", num_at(res, path));
            snprintf(path, sizeof path, "protocol_b.corpus_f1.%s", bsub[s]);
            emit_num(&o, NULL, bsub[s], "B_corpus_f1", num_at(res, path));
        }
    }
    emit(&o, NULL, NULL, "n_sentences", NULL, NULL, at(res, "n_sentences"));
}

static void csv_out(FILE *f, const struct coll *c)
{
    csv_row(f, csv_header);
    size_t i;
    json_t *row;
    json_array_foreach(c->probes, i, row) csv_probe(f, row);
    json_array_foreach(c->trees, i, row) csv_tree(f, row);
}

/* ---- the command ---- */

int cmd_report(int argc, char **argv)
{
    const char *db_path = NULL, *format = "text", *out_path = NULL;
    struct st_result_filter flt = { 0 };
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int has = i + 1 < argc;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) { usage(stdout); return SP_EXIT_OK; }
        else if (!strcmp(a, "--db") && has) db_path = argv[++i];
        else if (!strcmp(a, "--run") && has) flt.run = argv[++i];
        else if (!strcmp(a, "--task") && has) flt.task = argv[++i];
        else if (!strcmp(a, "--classifier") && has) flt.classifier = argv[++i];
        else if (!strcmp(a, "--method") && has) flt.method = argv[++i];
        else if (!strcmp(a, "--corpus") && has) flt.corpus = argv[++i];
        else if (!strcmp(a, "--format") && has) format = argv[++i];
        else if (!strcmp(a, "--out") && has) out_path = argv[++i];
        else {
            usage(stderr);
            return cli_fail(SP_EXIT_USAGE, CMD, "unexpected argument '%s'%s", a, has ? "" : " (or it needs a value)");
        }
    }
    if (!db_path) { usage(stderr); return cli_fail(SP_EXIT_USAGE, CMD, "--db DB is required"); }
    if (strcmp(format, "text") && strcmp(format, "json") && strcmp(format, "csv"))
        return cli_fail(SP_EXIT_USAGE, CMD, "--format: expected text, json or csv, got '%s'", format);
    int want_probe = !(flt.method || flt.corpus) || flt.task || flt.classifier;
    int want_tree = !(flt.task || flt.classifier) || flt.method || flt.corpus;

    char err[SP_ERRLEN];
    struct st_db *db = NULL;
    if (st_open(db_path, ST_OPEN_READONLY, &db, err, sizeof err)) return cli_fail(SP_EXIT_INPUT, CMD, "%s", err);
    struct coll c = { json_array(), json_array() };
    int rc = SP_EXIT_INPUT;
    FILE *f = stdout;
    if ((want_probe && st_probe_results_each(db, &flt, on_probe, &c, err, sizeof err)) ||
        (want_tree && st_tree_evals_each(db, &flt, on_tree, &c, err, sizeof err))) {
        cli_fail(SP_EXIT_INPUT, CMD, "%s", err);
        goto out;
    }
    size_t total = json_array_size(c.probes) + json_array_size(c.trees);
    int filtered = flt.run || flt.task || flt.classifier || flt.method || flt.corpus;
    if (!total && filtered && out_path) {   /* most likely a misspelt name: keep the file */
        cli_fail(SP_EXIT_INPUT, CMD, "%s: no probe results or tree evaluations match%s%s%s%s%s%s%s%s%s%s%s", db_path,
                flt.run ? " --run " : "", flt.run ? flt.run : "", flt.task ? " --task " : "", flt.task ? flt.task : "",
                flt.classifier ? " --classifier " : "", flt.classifier ? flt.classifier : "",
                flt.method ? " --method " : "", flt.method ? flt.method : "", flt.corpus ? " --corpus " : "",
                flt.corpus ? flt.corpus : "", " (nothing written)");
        goto out;
    }
    /* --out: a temporary file renamed over OUT only once everything is written */
    struct sp_out of = { 0 };
    if (out_path) {
        if (sp_out_open(&of, out_path, err, sizeof err)) { cli_fail(SP_EXIT_INPUT, CMD, "%s", err); goto out; }
        f = of.f;
    }
    if (!strcmp(format, "json")) {
        json_t *o = json_object();
        json_object_set(o, "probe_results", c.probes);
        json_object_set(o, "tree_evals", c.trees);
        char *s = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
        if (s) { fputs(s, f); fputc('\n', f); free(s); }
        json_decref(o);
    } else if (!strcmp(format, "csv")) {
        csv_out(f, &c);
    } else {
        text_out(f, &c, db_path, filtered);
    }
    if (!total && strcmp(format, "text"))
        fprintf(stderr, "synprobe " CMD ": %s: no probe results or tree evaluations match\n", db_path);
    if (out_path) {
        f = stdout;
        if (sp_out_commit(&of, err, sizeof err)) { cli_fail(SP_EXIT_INPUT, CMD, "%s", err); goto out; }
    } else if (fflush(f) != 0 || ferror(f)) { cli_fail(SP_EXIT_INPUT, CMD, "stdout: write error"); goto out; }
    rc = SP_EXIT_OK;
out:
    json_decref(c.probes);
    json_decref(c.trees);
    st_close(db);
    return rc;
}
