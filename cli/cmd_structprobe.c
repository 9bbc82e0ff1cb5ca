/* cli/cmd_structprobe.c — `synprobe structprobe`: structural-probe metrics (UUAS, DSpr,
 * root accuracy, NSpr; SPEC-probing §3.6) of the LINEAR baseline or of predictions read
 * from .npy files, against the gold dependency trees of a corpus.
 *
 * Prediction files (numpy, float32, float64 or int32, C order), rows in corpus order:
 *   --distances D.npy   shape (n_sentences, L, L): sentence k uses D[k, :n_k, :n_k]
 *                       (predicted squared distances, row i = word i), L >= the longest n_k
 *   --depths P.npy      shape (n_sentences, L): sentence k uses P[k, :n_k]
 * n_k are the corpus's sentence lengths (words only: no multiword ranges, no empty nodes);
 * padding cells are ignored. Either file alone gives only its two metrics (the other two
 * are null in JSON).
 * With --db --corpus the figures are also stored as a tree_eval row (method "structprobe:linear"
 * or "structprobe:distances=D.npy,depths=P.npy"; result = the --json object plus "manifest"),
 * unless --no-save. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/npy.h"
#include "common/sp.h"
#include "cli/cli.h"
#include "cli/legacy.h"
#include "probes/sentsrc.h"
#include "probes/structprobe.h"
#include "store/results.h"
#include "store/store.h"

#define CMD "structprobe"

static void usage(FILE *f)
{
    fprintf(f,
        "usage: synprobe structprobe (--db DB --corpus C | --conllu FILE|DIR... | --dp FILE|DIR...)\n"
        "                            (--baseline linear | [--distances D.npy] [--depths P.npy])\n"
        "                            [--punct xpos|upos] [--json] [--no-save]\n"
        "  --baseline linear   predicted distance |i-j|, predicted depth i\n"
        "  --distances D.npy   (n_sentences, L, L) predicted distances, corpus order, padded\n"
        "  --depths P.npy      (n_sentences, L) predicted depths, corpus order, padded\n"
        "  --punct             punctuation for UUAS and root accuracy: H&M xpos list (default) or UPOS=PUNCT\n"
        "  --json              {\"uuas\",\"dspr\",\"root_acc\",\"nspr\",\"n_sentences\"} (percent, fractions)\n"
        "  --db DB --corpus C  also stores the figures in DB (tree_eval; see synprobe report) unless --no-save\n");
}

struct ctx {
    struct prb_sp_acc acc;
    enum prb_punct punct;
    int linear;
    const struct sp_npy *dist, *depth;   /* NULL when not given */
    const char *dist_path, *depth_path;
    uint8_t *mask;
    double *pd, *pdep;
    int cap;
    long n_skipped;
    char err[SP_ERRLEN];
};

/* Element (k, i, j) of a 3-D array or (k, i) of a 2-D one, as double. */
static double npy_at(const struct sp_npy *a, size_t off)
{
    switch (a->dtype) {
    case SP_DT_F32: return ((const float *)a->data)[off];
    case SP_DT_F64: return ((const double *)a->data)[off];
    default: return ((const int32_t *)a->data)[off];
    }
}

static int on_sentence(const struct sp_sentence *s, long k, void *vctx)
{
    struct ctx *c = vctx;
    int n = s->n;
    if (!s->head) {
        fprintf(stderr, "synprobe " CMD ": sentence %ld (line %ld) has no dependency tree, skipped\n", k + 1, s->line);
        c->n_skipped++;
        return 0;
    }
    if (n > c->cap) {
        c->cap = n;
        c->mask = sp_xrealloc(c->mask, (size_t)n);
        c->pd = sp_xrealloc(c->pd, (size_t)n * n * sizeof *c->pd);
        c->pdep = sp_xrealloc(c->pdep, (size_t)n * sizeof *c->pdep);
    }
    prb_punct_mask(s, c->punct, c->mask);
    const double *pd = NULL, *pdep = NULL;
    if (c->linear) {
        prb_linear_distance(n, c->pd);
        prb_linear_depth(n, c->pdep);
        pd = c->pd;
        pdep = c->pdep;
    }
    if (c->dist) {
        size_t L = c->dist->shape[1];
        if ((size_t)k >= c->dist->shape[0] || (size_t)n > L) {
            snprintf(c->err, sizeof c->err, "%s: shape (%zu, %zu, %zu) has no room for sentence %ld of %d words",
                     c->dist_path, c->dist->shape[0], L, L, k + 1, n);
            return SP_EPARSE;
        }
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                c->pd[(size_t)i * n + j] = npy_at(c->dist, ((size_t)k * L + (size_t)i) * L + (size_t)j);
        for (int i = 0; i < n; i++)         /* NaN would rank arbitrarily and be stored as a result */
            for (int j = 0; j < n; j++)
                if (!isfinite(c->pd[(size_t)i * n + j])) {
                    snprintf(c->err, sizeof c->err, "%s: sentence %ld, distance[%d][%d] (0-based) is %s; predictions must be finite",
                             c->dist_path, k + 1, i, j, isnan(c->pd[(size_t)i * n + j]) ? "NaN" : "infinite");
                    return SP_EPARSE;
                }
        pd = c->pd;
    }
    if (c->depth) {
        size_t L = c->depth->shape[1];
        if ((size_t)k >= c->depth->shape[0] || (size_t)n > L) {
            snprintf(c->err, sizeof c->err, "%s: shape (%zu, %zu) has no room for sentence %ld of %d words",
                     c->depth_path, c->depth->shape[0], L, k + 1, n);
            return SP_EPARSE;
        }
        for (int i = 0; i < n; i++) c->pdep[i] = npy_at(c->depth, (size_t)k * L + (size_t)i);
        for (int i = 0; i < n; i++)
            if (!isfinite(c->pdep[i])) {
                snprintf(c->err, sizeof c->err, "%s: sentence %ld, depth[%d] (0-based) is %s; predictions must be finite",
                         c->depth_path, k + 1, i, isnan(c->pdep[i]) ? "NaN" : "infinite");
                return SP_EPARSE;
            }
        pdep = c->pdep;
    }
    char err[SP_ERRLEN];
    if (prb_sp_add(&c->acc, n, s->head, c->mask, pd, pdep, NULL, err, sizeof err) != 0) {
        fprintf(stderr, "synprobe " CMD ": sentence %ld (line %ld): %s, skipped\n", k + 1, s->line, err);
        c->n_skipped++;
    }
    return 0;
}

static json_t *num_or_null(double v)
{
    return isnan(v) ? json_null() : json_real(v);
}

/* One tree_eval row: the printed JSON plus the manifest, in one transaction. */
static int save_eval(struct st_db *db, const struct prb_source *src, const struct ctx *c, const char *punct,
                     long n_total, json_t *o, int argc, char **argv)
{
    char err[SP_ERRLEN], method[2200];
    int64_t corpus_id = 0;
    if (st_corpus_id(db, src->corpus, 0, &corpus_id, err, sizeof err) != SP_OK)
        return cli_fail(SP_EXIT_INPUT, CMD, "%s", err), SP_EPARSE;
    if (c->linear) snprintf(method, sizeof method, "structprobe:linear");
    else snprintf(method, sizeof method, "structprobe:%s%s%s%s%s", c->dist_path ? "distances=" : "",
                  c->dist_path ? c->dist_path : "", c->dist_path && c->depth_path ? "," : "",
                  c->depth_path ? "depths=" : "", c->depth_path ? c->depth_path : "");
    json_t *man = sp_manifest_new(argc, argv);
    json_object_set_new(man, "method", json_string(method));
    json_object_set_new(man, "source", c->linear ? json_pack("{s:s, s:s}", "kind", "baseline", "name", "linear")
                        : json_pack("{s:s, s:o, s:o}", "kind", "npy",
                                    "distances", c->dist_path ? json_string(c->dist_path) : json_null(),
                                    "depths", c->depth_path ? json_string(c->depth_path) : json_null()));
    json_object_set_new(man, "punct", json_string(punct));
    json_object_set_new(man, "gold", json_pack("{s:s, s:s, s:I}", "db", src->db, "corpus", src->corpus,
                                                "corpus_id", (json_int_t)corpus_id));
    json_object_set_new(man, "sentences_in_corpus", json_integer(n_total));
    json_object_set_new(man, "sentences_skipped", json_integer(c->n_skipped));
    return sp_save_tree_eval(db, CMD, src->db, NULL, corpus_id, method, o, man);
}

/* Collect the FILE|DIR... arguments after a format option. */
int cmd_structprobe(int argc, char **argv)
{
    struct prb_source src = { .want = ST_WANT_DEP };
    const char *baseline = NULL, *dist_path = NULL, *depth_path = NULL, *punct = "xpos";
    int json = 0, no_save = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int has = i + 1 < argc;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) { usage(stdout); return SP_EXIT_OK; }
        else if (!strcmp(a, "--json")) json = 1;
        else if (!strcmp(a, "--no-save")) no_save = 1;
        else if (!strcmp(a, "--db") && has) src.db = argv[++i];
        else if (!strcmp(a, "--corpus") && has) src.corpus = argv[++i];
        else if (!strcmp(a, "--baseline") && has) baseline = argv[++i];
        else if (!strcmp(a, "--distances") && has) dist_path = argv[++i];
        else if (!strcmp(a, "--depths") && has) depth_path = argv[++i];
        else if (!strcmp(a, "--punct") && has) punct = argv[++i];
        else if ((!strcmp(a, "--conllu") || !strcmp(a, "--dp")) && src.n_paths == 0) {
            src.fmt = !strcmp(a, "--conllu") ? SP_FMT_CONLLU : SP_FMT_DEP;
            const char **p;
            if (sp_collect_paths(argc, argv, &i, &p, &src.n_paths) != 0)
                return cli_fail(SP_EXIT_USAGE, CMD, "%s needs at least one FILE or DIR", a);
            src.paths = p;
        } else {
            usage(stderr);
            return cli_fail(SP_EXIT_USAGE, CMD, "unexpected argument '%s'", a);
        }
    }
    if (!!src.db + (src.n_paths > 0) != 1 || (src.db && !src.corpus))
        return cli_fail(SP_EXIT_USAGE, CMD, "give either --db DB --corpus C or --conllu/--dp FILE...");
    if (baseline && strcmp(baseline, "linear"))
        return cli_fail(SP_EXIT_USAGE, CMD, "unknown baseline '%s' (expected linear)", baseline);
    if (!!baseline + !!(dist_path || depth_path) != 1)
        return cli_fail(SP_EXIT_USAGE, CMD, "give either --baseline linear or --distances/--depths");

    if (no_save && !src.db) return cli_fail(SP_EXIT_USAGE, CMD, "--no-save applies to --db");

    struct ctx c = { .linear = baseline != NULL, .dist_path = dist_path, .depth_path = depth_path };
    if (prb_punct_parse(punct, &c.punct) != 0)
        return cli_fail(SP_EXIT_USAGE, CMD, "--punct: expected xpos or upos, got '%s'", punct);

    struct sp_npy dist = { 0 }, depth = { 0 };
    char err[SP_ERRLEN];
    int rc = SP_EXIT_OK;
    struct st_db *save_db = NULL;
    json_t *o = NULL;
    /* opened before the walk: a store we cannot write fails before the work */
    if (src.db && !no_save && st_open(src.db, 0, &save_db, err, sizeof err) != SP_OK)
        return cli_fail(SP_EXIT_INPUT, CMD, "%s", err);
    if (dist_path) {
        if (sp_npy_read(dist_path, &dist, err, sizeof err) != SP_OK) { rc = cli_fail(SP_EXIT_INPUT, CMD, "%s", err); goto out; }
        if (dist.ndim != 3 || dist.shape[1] != dist.shape[2]) {
            rc = cli_fail(SP_EXIT_INPUT, CMD, "%s: expected shape (n_sentences, L, L), got %d dimensions", dist_path, dist.ndim);
            goto out;
        }
        c.dist = &dist;
    }
    if (depth_path) {
        if (sp_npy_read(depth_path, &depth, err, sizeof err) != SP_OK) { rc = cli_fail(SP_EXIT_INPUT, CMD, "%s", err); goto out; }
        if (depth.ndim != 2) {
            rc = cli_fail(SP_EXIT_INPUT, CMD, "%s: expected shape (n_sentences, L), got %d dimensions", depth_path, depth.ndim);
            goto out;
        }
        c.depth = &depth;
    }

    prb_sp_init(&c.acc);
    int r = prb_source_each(&src, on_sentence, &c, err, sizeof err);
    if (r != SP_OK) {
        rc = cli_fail(r == SP_EUSAGE ? SP_EXIT_USAGE : SP_EXIT_INPUT, CMD, "%s", c.err[0] ? c.err : err);
        goto out_acc;
    }
    long n_total = c.acc.n_sent + c.n_skipped;
    if (c.dist && (long)dist.shape[0] != n_total)
        fprintf(stderr, "synprobe " CMD ": warning: %s has %zu sentences, the corpus %ld\n", dist_path, dist.shape[0], n_total);
    if (c.depth && (long)depth.shape[0] != n_total)
        fprintf(stderr, "synprobe " CMD ": warning: %s has %zu sentences, the corpus %ld\n", depth_path, depth.shape[0], n_total);

    struct prb_sp_result res;
    prb_sp_result(&c.acc, &res);
    if (res.n_nan_used)     /* A19: replicate scipy's NaN, but say why */
        fprintf(stderr, "synprobe " CMD ": warning: %ld Spearman correlations of sentences with 5..50 words "
                "were NaN (constant rows), so DSpr/NSpr are NaN, as scipy makes them\n", res.n_nan_used);
    o = json_object();
    json_object_set_new(o, "uuas", num_or_null(res.uuas));
    json_object_set_new(o, "dspr", num_or_null(res.dspr));
    json_object_set_new(o, "root_acc", num_or_null(res.root_acc));
    json_object_set_new(o, "nspr", num_or_null(res.nspr));
    json_object_set_new(o, "n_sentences", json_integer(res.n_sentences));
    if (json) {
        char *txt = json_dumps(o, JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
        printf("%s\n", txt);
        free(txt);
    } else {
        printf("sentences  %ld\n", res.n_sentences);
        printf("UUAS       %.2f %%\n", res.uuas);
        printf("DSpr       %.4f\n", res.dspr);
        printf("Root acc   %.2f %%\n", res.root_acc);
        printf("NSpr       %.4f\n", res.nspr);
    }
    if (save_db) {
        fflush(stdout);
        if (save_eval(save_db, &src, &c, punct, n_total, o, argc, argv) != SP_OK) rc = SP_EXIT_INPUT;
    }
out_acc:
    prb_sp_free(&c.acc);
out:
    json_decref(o);
    if (save_db) st_close(save_db);
    free(c.mask);
    free(c.pd);
    free(c.pdep);
    sp_npy_free(&dist);
    sp_npy_free(&depth);
    return rc;
}
