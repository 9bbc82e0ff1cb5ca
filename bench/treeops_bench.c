/* bench/treeops_bench.c — the dependency structures stage alone (driver of bench/treeops.sh).
 * Built by bench/treeops.sh against build/lib/libsp_*.a; public API only.
 *
 *   treeops_bench heads --data DIR --corpus ptb|ewt OUT
 *       parse the corpus with our readers (PTB sample .dp files in name order, or UD EWT dev)
 *       and write its dependency trees to OUT, one sentence a line: the 0-based heads, -1 for
 *       the root, separated by spaces. Both sides of the bench read this file.
 *   treeops_bench time [--what dist|all] [--reps R] HEADS
 *       read HEADS (timed apart: read_s), then R passes over every sentence (timed: seconds):
 *         dist  tops_dep_all for depth[] and the tree-distance matrix D (what the peer computes)
 *         all   tops_dep_all for every dependency structure ingest caches: depth, D, the
 *               ancestor matrix and P2's relative positions
 *       then one untimed pass with tops_depth + tops_distance for the check: the sum of every
 *       D over all sentences, the sum of per-sentence maximum depths, and a fingerprint
 *       sum_s (s+1)·(31·sumD_s + maxdepth_s) mod 2^64, which bench/peer_treeops.py also prints.
 * Prints one line "RESULT key=value ...". */
#include "common/sp.h"
#include "ingest/readers.h"
#include "treeops/treeops.h"

#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char err[SP_ERRLEN * 4];

static int cmpstr(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void write_file_heads(FILE *out, const char *path, enum sp_format fmt, long *ns, long *nt)
{
    size_t len;
    char *buf = sp_read_file(path, &len, NULL, 0);
    if (!buf) { fprintf(stderr, "%s: cannot read\n", path); exit(1); }
    struct ing_batch b;
    ing_batch_init(&b);
    if (ing_parse_chunk(fmt, SP_MODE_DEFAULT, buf, len, 1, 1, &b, err, sizeof err)) { fprintf(stderr, "%s: %s\n", path, err); exit(1); }
    for (int i = 0; i < b.n_items; i++) {
        const struct sp_sentence *s = &b.item[i].s;
        if (b.item[i].error || !s->head || s->n < 1) continue;
        for (int k = 0; k < s->n; k++) fprintf(out, k ? " %d" : "%d", s->head[k]);
        fputc('\n', out);
        (*ns)++;
        *nt += s->n;
    }
    ing_batch_free(&b);
    free(buf);
}

static int cmd_heads(const char *data, const char *corpus, const char *outp)
{
    FILE *out = fopen(outp, "w");
    if (!out) { fprintf(stderr, "%s: cannot write\n", outp); return 1; }
    long ns = 0, nt = 0;
    char p[4200];
    if (!strcmp(corpus, "ewt")) {
        snprintf(p, sizeof p, "%s/ud-ewt/en_ewt-ud-dev.conllu", data);
        write_file_heads(out, p, SP_FMT_CONLLU, &ns, &nt);
    } else if (!strcmp(corpus, "ptb")) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%s/ptb-sample/dependency", data);
        DIR *dd = opendir(dir);
        if (!dd) { fprintf(stderr, "%s: cannot open\n", dir); return 1; }
        char **names = NULL;
        int nn = 0;
        struct dirent *de;
        while ((de = readdir(dd))) {
            size_t l = strlen(de->d_name);
            if (l > 3 && !strcmp(de->d_name + l - 3, ".dp")) { names = sp_xrealloc(names, sizeof *names * (size_t)(nn + 1)); names[nn++] = sp_xstrdup(de->d_name); }
        }
        closedir(dd);
        qsort(names, (size_t)nn, sizeof *names, cmpstr);
        for (int k = 0; k < nn; k++) {
            snprintf(p, sizeof p, "%s/%s", dir, names[k]);
            write_file_heads(out, p, SP_FMT_DEP, &ns, &nt);
            free(names[k]);
        }
        free(names);
    } else { fprintf(stderr, "--corpus: expected ptb or ewt, got '%s'\n", corpus); fclose(out); return 2; }
    if (fclose(out)) { fprintf(stderr, "%s: write error\n", outp); return 1; }
    printf("RESULT sentences=%ld tokens=%ld\n", ns, nt);
    return 0;
}

struct trees { int n, cap; int *len; int **head; int maxn; };

static void read_heads(const char *path, struct trees *t)
{
    size_t len;
    char *buf = sp_read_file(path, &len, NULL, 0);
    if (!buf) { fprintf(stderr, "%s: cannot read\n", path); exit(1); }
    memset(t, 0, sizeof *t);
    int *tmp = NULL, tcap = 0;
    long line = 1;
    char *p = buf, *end = buf + len;
    while (p < end) {
        int n = 0;
        while (p < end && *p != '\n') {
            char *q;
            long v = strtol(p, &q, 10);
            if (q == p || v < -1 || v > 65535 || (q < end && *q != ' ' && *q != '\n')) {
                fprintf(stderr, "%s:%ld: expected a head (-1 or a word index), got '%.*s'\n", path, line,
                        (int)strcspn(p, " \n") < 20 ? (int)strcspn(p, " \n") : 20, p);
                exit(1);
            }
            if (n == tcap) { tcap = tcap ? 2 * tcap : 256; tmp = sp_xrealloc(tmp, sizeof *tmp * (size_t)tcap); }
            tmp[n++] = (int)v;
            p = q;
            while (p < end && *p == ' ') p++;
        }
        if (p < end) p++;
        if (!n) { fprintf(stderr, "%s:%ld: expected a sentence's heads, got an empty line\n", path, line); exit(1); }
        if (t->n == t->cap) {
            t->cap = t->cap ? 2 * t->cap : 1024;
            t->len = sp_xrealloc(t->len, sizeof *t->len * (size_t)t->cap);
            t->head = sp_xrealloc(t->head, sizeof *t->head * (size_t)t->cap);
        }
        t->len[t->n] = n;
        t->head[t->n] = sp_xmalloc(sizeof(int) * (size_t)n);
        memcpy(t->head[t->n], tmp, sizeof(int) * (size_t)n);
        t->n++;
        if (n > t->maxn) t->maxn = n;
        line++;
    }
    free(tmp);
    free(buf);
}

static int cmd_time(const char *path, const char *what, int reps)
{
    int all = !strcmp(what, "all");
    if (!all && strcmp(what, "dist")) { fprintf(stderr, "--what: expected dist or all, got '%s'\n", what); return 2; }
    double t0 = sp_now();
    struct trees t;
    read_heads(path, &t);
    double read_s = sp_now() - t0;
    size_t mn = (size_t)(t.maxn ? t.maxn : 1);
    int *depth = sp_xmalloc(sizeof(int) * mn), *order = sp_xmalloc(sizeof(int) * mn);
    int *dist = sp_xmalloc(sizeof(int) * mn * mn), *rel = all ? sp_xmalloc(sizeof(int) * mn * mn) : NULL;
    uint8_t *anc = all ? sp_xmalloc(mn * mn) : NULL;
    void *scratch = sp_xmalloc(tops_dep_scratch_bytes((int)mn) + 16);
    long tokens = 0;
    for (int s = 0; s < t.n; s++) tokens += t.len[s];

    int bad = -1;
    t0 = sp_now();
    for (int r = 0; r < reps && bad < 0; r++)
        for (int s = 0; s < t.n; s++)
            if (tops_dep_all(t.len[s], t.head[s], depth, dist, anc, rel, scratch)) { bad = s; break; }
    double sec = sp_now() - t0;

    /* the check, untimed, with the spec's reference functions */
    uint64_t sum_d = 0, sum_max = 0, fp = 0;
    for (int s = 0; s < t.n && bad < 0; s++) {
        int n = t.len[s];
        if (tops_depth(n, t.head[s], order, depth)) { bad = s; break; }
        tops_distance(n, t.head[s], order, dist);
        uint64_t sd = 0;
        int mx = 0;
        for (size_t k = 0; k < (size_t)n * n; k++) sd += (uint64_t)dist[k];
        for (int i = 0; i < n; i++) if (depth[i] > mx) mx = depth[i];
        sum_d += sd;
        sum_max += (uint64_t)mx;
        fp += (uint64_t)(s + 1) * (31 * sd + (uint64_t)mx);
    }
    if (bad >= 0) fprintf(stderr, "%s:%d: the heads do not form one tree\n", path, bad + 1);
    else printf("RESULT what=%s reps=%d sentences=%d tokens=%ld seconds=%.6f read_s=%.6f sum_dist=%" PRIu64
           " sum_maxdepth=%" PRIu64 " fingerprint=%" PRIu64 "\n",
           what, reps, t.n, tokens, sec, read_s, sum_d, sum_max, fp);
    for (int s = 0; s < t.n; s++) free(t.head[s]);
    free(t.head); free(t.len); free(depth); free(order); free(dist); free(rel); free(anc); free(scratch);
    return bad >= 0;
}

static int usage(void)
{
    fprintf(stderr, "usage: treeops_bench heads [--data DIR] --corpus ptb|ewt OUT\n"
                    "       treeops_bench time [--what dist|all] [--reps R] HEADS\n");
    return 2;
}

int main(int argc, char **argv)
{
    if (argc < 2) return usage();
    const char *data = "../shared/data", *corpus = NULL, *what = "dist", *file = NULL;
    int reps = 1;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--data") && v) { data = v; i++; }
        else if (!strcmp(a, "--corpus") && v) { corpus = v; i++; }
        else if (!strcmp(a, "--what") && v) { what = v; i++; }
        else if (!strcmp(a, "--reps") && v) { reps = atoi(v); i++; }
        else if (a[0] != '-' && !file) file = a;
        else return usage();
    }
    if (!file || reps < 1) return usage();
    if (!strcmp(argv[1], "heads") && corpus) return cmd_heads(data, corpus, file);
    if (!strcmp(argv[1], "time")) return cmd_time(file, what, reps);
    return usage();
}
