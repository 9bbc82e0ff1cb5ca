/* bench/encode_bench.c — encoder forward throughput on real treebanks (driver of bench/encode.sh).
 * Built by bench/encode.sh like a unit test (against build/lib/libsp_*.a); public API only.
 *
 *   encode_bench [options] CONFIG.json
 *     --data DIR        shared data folder (../shared/data)
 *     --corpus ptb|ewt  PTB sample (.mrg + .dp paired: both trees) or UD EWT dev (dependency only)
 *     --threads N       encoder threads (enc_set_threads: the GEMM's) (1)
 *     --device cpu|cuda (cpu)
 *     --budget TOK      token budget of a batch, length-sorted batches (4096)
 *     --batch N         instead: N sentences a batch in corpus order
 *     --group TOK       enc_set_group_tokens: tokens of one forward step (default: the budget, as
 *                       `encode` does with --batch-tokens; 4096 = ENC_GROUP_TOKENS, the old fixed size)
 *     --limit TOK       use the first sentences of the corpus up to TOK tokens (0 = all)
 *     --reps R          encode the set R times after one untimed warm-up batch, report the median (1;
 *                       benches run it with 1, interleaved with the peer, and take medians)
 *     --export DIR      also write what a PyTorch peer needs (bench/peer_common.py reads it):
 *                       DIR/sents.bin (ids and the structures the kind needs, corpus order),
 *                       DIR/table.f32 (embedding rows), DIR/weights.safetensors (our weights),
 *                       DIR/ours.f32 (our sentence vectors), DIR/config.json (the config with
 *                       every default resolved, so a peer need not know our defaults)
 * Prints one line "RESULT key=value ..." (tokens/s and sentences/s on wall time and on the
 * process's user CPU time, GEMM GFLOP and GFLOP/s counted from the config's shapes).
 *
 * Embeddings: seeded random vectors per distinct word (enc_embed without a file); weights:
 * seeded Glorot init. Throughput does not depend on the values. */
#include "common/sp.h"
#include "encoder/encoder.h"
#include "ingest/readers.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

static char err[SP_ERRLEN * 4];

struct corpus {
    int n, cap;
    struct sp_sentence *s;
    struct ing_batch *batches;
    int nb, capb;
};

static struct ing_batch *parse(struct corpus *c, const char *path, enum sp_format fmt)
{
    size_t len;
    char *buf = sp_read_file(path, &len, NULL, 0);
    if (!buf) { fprintf(stderr, "%s: cannot read\n", path); exit(1); }
    if (c->nb == c->capb) { c->capb = c->capb ? 2 * c->capb : 64; c->batches = sp_xrealloc(c->batches, sizeof *c->batches * (size_t)c->capb); }
    struct ing_batch *b = &c->batches[c->nb++];
    ing_batch_init(b);
    if (ing_parse_chunk(fmt, SP_MODE_DEFAULT, buf, len, 1, 1, b, err, sizeof err)) { fprintf(stderr, "%s: %s\n", path, err); exit(1); }
    free(buf);
    return b;
}

static void push(struct corpus *c, const struct sp_sentence *s)
{
    if (c->n == c->cap) { c->cap = c->cap ? 2 * c->cap : 1024; c->s = sp_xrealloc(c->s, sizeof *c->s * (size_t)c->cap); }
    c->s[c->n++] = *s;
}

static int cmpstr(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void load_ptb(struct corpus *c, const char *data)
{
    char dir[4096], p[4200];
    snprintf(dir, sizeof dir, "%s/ptb-sample/combined", data);
    DIR *dd = opendir(dir);
    if (!dd) { fprintf(stderr, "%s: cannot open\n", dir); exit(1); }
    char **names = NULL;
    int nn = 0;
    struct dirent *de;
    while ((de = readdir(dd))) {
        size_t l = strlen(de->d_name);
        if (l > 4 && !strcmp(de->d_name + l - 4, ".mrg")) { names = sp_xrealloc(names, sizeof *names * (size_t)(nn + 1)); names[nn++] = sp_xstrdup(de->d_name); }
    }
    closedir(dd);
    qsort(names, (size_t)nn, sizeof *names, cmpstr);
    for (int k = 0; k < nn; k++) {
        snprintf(p, sizeof p, "%s/%s", dir, names[k]);
        struct ing_batch *m = parse(c, p, SP_FMT_PTB);
        names[k][strlen(names[k]) - 4] = 0;
        snprintf(p, sizeof p, "%s/ptb-sample/dependency/%s.dp", data, names[k]);
        struct ing_batch *d = parse(c, p, SP_FMT_DEP);
        /* parse() may have moved the batch array: look both up again by index */
        m = &c->batches[c->nb - 2]; d = &c->batches[c->nb - 1];
        for (int i = 0; i < m->n_items && i < d->n_items; i++) {
            if (m->item[i].error || d->item[i].error || m->item[i].s.n != d->item[i].s.n) continue;
            struct sp_sentence s = m->item[i].s;
            s.head = d->item[i].s.head;               /* both trees */
            push(c, &s);
        }
        free(names[k]);
    }
    free(names);
}

static void load_ewt(struct corpus *c, const char *data)
{
    char p[4200];
    snprintf(p, sizeof p, "%s/ud-ewt/en_ewt-ud-dev.conllu", data);
    struct ing_batch *b = parse(c, p, SP_FMT_CONLLU);
    for (int i = 0; i < b->n_items; i++) if (!b->item[i].error) push(c, &b->item[i].s);
}

static uint64_t hash_str(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *s; s++) { h ^= (unsigned char)*s; h *= 0x100000001b3ull; }
    return h;
}

/* a tiny open-addressing word -> row map */
struct vocab { int cap, n; char **w; int32_t *row; };

static int32_t vocab_id(struct vocab *v, const char *w)
{
    if (2 * (v->n + 1) > v->cap) {
        struct vocab o = *v;
        v->cap = o.cap ? 2 * o.cap : 4096;
        v->w = sp_xcalloc((size_t)v->cap, sizeof *v->w);
        v->row = sp_xcalloc((size_t)v->cap, sizeof *v->row);
        v->n = 0;
        for (int k = 0; k < o.cap; k++) if (o.w[k]) {
            size_t h = (size_t)(hash_str(o.w[k]) & (uint64_t)(v->cap - 1));
            while (v->w[h]) h = (h + 1) & (size_t)(v->cap - 1);
            v->w[h] = o.w[k]; v->row[h] = o.row[k]; v->n++;
        }
        free(o.w); free(o.row);
    }
    size_t h = (size_t)(hash_str(w) & (uint64_t)(v->cap - 1));
    while (v->w[h]) { if (!strcmp(v->w[h], w)) return v->row[h]; h = (h + 1) & (size_t)(v->cap - 1); }
    v->w[h] = sp_xstrdup(w);
    v->row[h] = v->n++;
    return v->row[h];
}

static double user_s(void)
{
    struct rusage r;
    getrusage(RUSAGE_SELF, &r);
    return (double)r.ru_utime.tv_sec + r.ru_utime.tv_usec * 1e-6;
}

/* GEMM FLOPs (2·M·N·K) of one sentence of n tokens, counted from the config's shapes;
 * attention counted as two dense [n,n,d] products a layer (QKᵀ and PV). */
static double flops(const struct enc_config *c, int n)
{
    double d = c->d_model, N = n, f = 0;
    if (c->d_input != c->d_model) f += 2 * N * c->d_input * d;
    switch (c->kind) {
    case ENC_SAN: case ENC_SSAN: case ENC_SGNET: {
        int L = c->layers + (c->kind == ENC_SGNET);
        if (c->position == ENC_POS_SEQ_STRUCT && c->f_abs == ENC_FABS_TANH) f += 2 * N * 2 * d * d;
        for (int l = 0; l < L; l++) {
            f += 2 * N * (4 * d * d + 2 * d * c->d_ff) + 4 * N * N * d;
            if (c->kind == ENC_SSAN && l < c->layers && c->selective[l]) f += 2 * N * 2 * d * d + 2 * N * N * d;
        }
        break;
    }
    case ENC_MSSAN:
        f += c->layers * (2 * N * (8 * d * d + 2 * d * c->d_ff) + 4 * N * N * d);
        f += 2 * N * 2 * d * c->pool_d_h;
        break;
    case ENC_PSAN:
        f += c->levels * 2 * N * (2 * d * d + 3 * 2 * d * d) + 2 * N * 2 * d * d;
        break;
    case ENC_BERT: case ENC_HF:   /* bench/bert.sh measures the bert kinds */
        break;
    }
    return f;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int cmp_len(const void *a, const void *b, void *ctx)
{
    const struct enc_sentence *s = ctx;
    int x = *(const int *)a, y = *(const int *)b;
    if (s[x].n != s[y].n) return s[x].n - s[y].n;
    return x - y;
}

static void wr(FILE *f, const void *p, size_t sz, size_t n) { if (fwrite(p, sz, n, f) != n) { fprintf(stderr, "export: write error\n"); exit(1); } }

/* the config with every default resolved, as JSON (the key names of the config schema) */
static int write_config(const char *path, const struct enc_config *c)
{
    static const char *const act[] = { "relu", "gelu", "elu", "tanh", "sigmoid" };
    static const char *const pool[] = { "mean", "max", "first", "att" };
    static const char *const dist[] = { "none", "word", "dep" };
    static const char *const pos[] = { "none", "seq", "struct", "seq+struct" };
    FILE *f = fopen(path, "w");
    if (!f) { fprintf(stderr, "%s: cannot create\n", path); return 1; }
    fprintf(f, "{\"kind\": \"%s\", \"d_model\": %d, \"d_input\": %d, \"heads\": %d, \"layers\": %d, \"d_ff\": %d,\n",
            enc_kind_name(c->kind), c->d_model, c->d_input, c->heads, c->layers, c->d_ff);
    fprintf(f, " \"norm\": \"%s\", \"activation\": \"%s\", \"ln_eps\": %.9g, \"pooling\": \"%s\", \"emb_scale\": %s,\n",
            c->norm == ENC_PRE_LN ? "pre" : "post", act[c->activation], (double)c->ln_eps, pool[c->pooling], c->emb_scale ? "true" : "false");
    fprintf(f, " \"position\": \"%s\", \"f_abs\": \"%s\", \"rel_struct\": %s, \"rel_seq\": %s, \"rel_clip\": %d, \"rel_seq_clip\": %d,\n",
            pos[c->position], c->f_abs == ENC_FABS_SUM ? "sum" : "tanh", c->rel_struct ? "true" : "false", c->rel_seq ? "true" : "false",
            c->rel_clip, c->rel_seq_clip);
    fprintf(f, " \"alpha\": %.9g, \"distances\": [", (double)c->alpha);
    for (int r = 0; r < c->heads / 2 && c->kind == ENC_MSSAN; r++) fprintf(f, "%s\"%s\"", r ? ", " : "", dist[c->dist[r]]);
    fprintf(f, "], \"direction_mask\": \"%s\", \"pool_d_h\": %d,\n", c->strict_direction ? "strict" : "inclusive", c->pool_d_h);
    fprintf(f, " \"sgnet_alpha\": %.9g, \"sgnet_aggregation\": \"%s\", \"levels\": %d, \"psan_order\": \"%s\", \"psan_highway_carry\": %s,\n",
            (double)c->sgnet_alpha, c->sgnet_code_agg ? "code" : "fixed", c->levels, c->psan_coarse_first ? "coarse-to-fine" : "fine-to-coarse",
            c->psan_highway_carry ? "true" : "false");
    fprintf(f, " \"selective_layers\": [");
    for (int l = 0, k = 0; l < c->layers && c->kind == ENC_SSAN; l++) if (c->selective[l]) fprintf(f, "%s%d", k++ ? ", " : "", l);
    fprintf(f, "]}\n");
    if (fclose(f)) { fprintf(stderr, "%s: write error\n", path); return 1; }
    return 0;
}

int main(int argc, char **argv)
{
    const char *data = "../shared/data", *corpus = "ptb", *cfgp = NULL, *export = NULL;
    int threads = 1, budget = 4096, bsents = 0, reps = 1, group = 0;
    long limit = 0;
    enum enc_device dev = ENC_DEVICE_CPU;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--data") && v) { data = v; i++; }
        else if (!strcmp(a, "--corpus") && v) { corpus = v; i++; }
        else if (!strcmp(a, "--threads") && v) { threads = atoi(v); i++; }
        else if (!strcmp(a, "--budget") && v) { budget = atoi(v); i++; }
        else if (!strcmp(a, "--batch") && v) { bsents = atoi(v); i++; }
        else if (!strcmp(a, "--group") && v) { group = atoi(v); i++; }
        else if (!strcmp(a, "--limit") && v) { limit = atol(v); i++; }
        else if (!strcmp(a, "--reps") && v) { reps = atoi(v); i++; if (reps < 1) { fprintf(stderr, "--reps: expected a count >= 1\n"); return 2; } }
        else if (!strcmp(a, "--export") && v) { export = v; i++; }
        else if (!strcmp(a, "--device") && v) { dev = !strcmp(v, "cuda") ? ENC_DEVICE_CUDA : ENC_DEVICE_CPU; i++; }
        else if (a[0] != '-' && !cfgp) cfgp = a;
        else { fprintf(stderr, "usage: encode_bench [--data DIR] [--corpus ptb|ewt] [--threads N] [--device cpu|cuda] [--budget TOK | --batch N] [--group TOK] [--limit TOK] [--reps R] [--export DIR] CONFIG.json\n"); return 2; }
    }
    if (!cfgp) { fprintf(stderr, "encode_bench: no config\n"); return 2; }
    struct enc_config cfg;
    if (enc_config_load(cfgp, &cfg, err, sizeof err)) { fprintf(stderr, "%s\n", err); return 1; }
    enc_t *e;
    if (enc_open(&cfg, dev, NULL, 0, &e, err, sizeof err)) { fprintf(stderr, "%s\n", err); return 1; }
    enc_set_threads(threads);
    enc_set_group_tokens(e, group > 0 ? group : budget);

    struct corpus c = { 0 };
    if (!strcmp(corpus, "ptb")) load_ptb(&c, data); else load_ewt(&c, data);

    /* vocabulary -> table of seeded random vectors, sentences as ids */
    struct vocab voc = { 0 };
    struct sp_arena ar;
    sp_arena_init(&ar);
    struct enc_sentence *S = sp_xcalloc((size_t)c.n, sizeof *S);
    int ns = 0, skipped = 0;
    long tokens = 0;
    for (int k = 0; k < c.n && (!limit || tokens < limit); k++) {
        const struct sp_sentence *s = &c.s[k];
        int32_t *ids = sp_arena_alloc(&ar, sizeof(int32_t) * (size_t)(s->n ? s->n : 1));
        for (int i = 0; i < s->n; i++) ids[i] = vocab_id(&voc, s->col[SP_FORM][i]);
        if (enc_sentence_prepare(e, s, NULL, ids, &ar, &S[ns], err, sizeof err)) { skipped++; continue; }
        tokens += S[ns].n;
        ns++;
    }
    enc_embed_t *emb;
    if (enc_embed_open(NULL, cfg.d_input, 7, &emb, err, sizeof err)) { fprintf(stderr, "%s\n", err); return 1; }
    float *table = sp_xmalloc(sizeof(float) * (size_t)voc.n * cfg.d_input);
    for (int k = 0; k < voc.cap; k++) if (voc.w && voc.w[k]) enc_embed_vector(emb, voc.w[k], table + (size_t)voc.row[k] * cfg.d_input);

    /* batches: length-sorted under a token budget, or N sentences in corpus order */
    int *order = sp_xmalloc(sizeof(int) * (size_t)(ns ? ns : 1));
    for (int k = 0; k < ns; k++) order[k] = k;
    if (!bsents) qsort_r(order, (size_t)ns, sizeof *order, cmp_len, S);
    struct enc_sentence *bs = sp_xcalloc((size_t)(ns ? ns : 1), sizeof *bs);
    for (int k = 0; k < ns; k++) bs[k] = S[order[k]];
    const int dim = enc_dim(e);
    float *vec = sp_xmalloc(sizeof(float) * (size_t)(ns ? ns : 1) * dim);
    double fl = 0;
    int maxn = 0;
    for (int k = 0; k < ns; k++) { fl += flops(&cfg, S[k].n); if (S[k].n > maxn) maxn = S[k].n; }
    double *ws = sp_xmalloc(sizeof(double) * (size_t)(reps > 0 ? reps : 1)), *us = sp_xmalloc(sizeof(double) * (size_t)(reps > 0 ? reps : 1));
    int nbatches = 0;
    {   /* warm-up, untimed (as the PyTorch peers do): one batch of the longest sentences loads the
         * GPU's kernels and grows the workspace to what the timed runs need */
        int m = 0;
        long t = 0;
        while (m < ns && (m == 0 || t + bs[ns - 1 - m].n <= budget) && (!bsents || m < bsents)) t += bs[ns - 1 - m++].n;
        struct enc_batch in = { m, bs + ns - m, table, voc.n, 1 };
        struct enc_output out = { vec + (size_t)(ns - m) * dim, NULL, NULL, -1 };
        if (ns && enc_forward(e, &in, &out, err, sizeof err)) { fprintf(stderr, "%s\n", err); return 1; }
    }
    for (int r = 0; r < reps; r++) {
        double w0 = sp_now(), u0 = user_s();
        nbatches = 0;
        for (int k = 0; k < ns;) {
            int m = 0;
            long t = 0;
            if (bsents) m = ns - k < bsents ? ns - k : bsents;
            else while (k + m < ns && (m == 0 || t + bs[k + m].n <= budget)) t += bs[k + m++].n;
            struct enc_batch in = { m, bs + k, table, voc.n, 1 };
            struct enc_output out = { vec + (size_t)k * dim, NULL, NULL, -1 };
            if (enc_forward(e, &in, &out, err, sizeof err)) { fprintf(stderr, "%s\n", err); return 1; }
            k += m;
            nbatches++;
        }
        ws[r] = sp_now() - w0;
        us[r] = user_s() - u0;
    }
    qsort(ws, (size_t)reps, sizeof *ws, cmp_double);
    qsort(us, (size_t)reps, sizeof *us, cmp_double);
    /* the median of the reps (the mean of the middle two for an even count), never the best */
    const double med_w = (ws[(reps - 1) / 2] + ws[reps / 2]) / 2, med_u = (us[(reps - 1) / 2] + us[reps / 2]) / 2;
    printf("RESULT kind=%s config=%s corpus=%s device=%s threads=%d batching=%s sentences=%d skipped=%d tokens=%ld maxlen=%d batches=%d "
           "wall_s=%.3f wall_min=%.3f wall_max=%.3f user_s=%.3f tok_s=%.0f sent_s=%.1f tok_per_user_s=%.0f gflop=%.2f gflop_s=%.2f\n",
           enc_kind_name(cfg.kind), cfgp, corpus, enc_backend_name(e), threads, bsents ? "corpus-order" : "length-sorted",
           ns, skipped, tokens, maxn, nbatches, med_w, ws[0], ws[reps - 1], med_u, tokens / med_w, ns / med_w, tokens / med_u, fl * 1e-9, fl * 1e-9 / med_w);
    free(ws); free(us);

    if (export) {
        char p[4200];
        snprintf(p, sizeof p, "%s/sents.bin", export);
        FILE *f = fopen(p, "wb");
        if (!f) { fprintf(stderr, "%s: cannot create\n", p); return 1; }
        /* "SPBENCH2", int32 B, d_in, table_rows, need (ENC_NEED_* bits), levels T; then per
         * sentence (corpus order): int32 n, int32 ids[n], and in this order those the need bits
         * name: int32 depth[n], int32 dist[n*n], uint8 anc[n*n] (row = query), int32 rel[n*n],
         * int32 pid[T*n] */
        const unsigned need = enc_needs(e);
        int32_t hdr[5] = { ns, cfg.d_input, voc.n, (int32_t)need, cfg.levels };
        wr(f, "SPBENCH2", 1, 8);
        wr(f, hdr, 4, 5);
        for (int k = 0; k < ns; k++) {
            const struct enc_sentence *s = &S[k];
            int32_t n = s->n;
            size_t nn = (size_t)n * n;
            wr(f, &n, 4, 1);
            wr(f, s->ids, 4, (size_t)n);
            if (need & ENC_NEED_DEPTH) wr(f, s->depth, 4, (size_t)n);
            if (need & ENC_NEED_DIST) wr(f, s->dist, 4, nn);
            if (need & ENC_NEED_ANC) wr(f, s->anc, 1, nn);
            if (need & ENC_NEED_REL) wr(f, s->rel, 4, nn);
            if (need & ENC_NEED_PID) wr(f, s->pid, 4, (size_t)cfg.levels * n);
        }
        if (fclose(f)) { fprintf(stderr, "%s: write error\n", p); return 1; }
        snprintf(p, sizeof p, "%s/config.json", export);
        if (write_config(p, &cfg)) return 1;
        snprintf(p, sizeof p, "%s/table.f32", export);
        f = fopen(p, "wb");
        if (!f) { fprintf(stderr, "%s: cannot create\n", p); return 1; }
        wr(f, table, sizeof(float), (size_t)voc.n * cfg.d_input);
        if (fclose(f)) { fprintf(stderr, "%s: write error\n", p); return 1; }
        /* our vectors in corpus order */
        float *ours = sp_xmalloc(sizeof(float) * (size_t)(ns ? ns : 1) * dim);
        for (int k = 0; k < ns; k++) memcpy(ours + (size_t)order[k] * dim, vec + (size_t)k * dim, sizeof(float) * dim);
        snprintf(p, sizeof p, "%s/ours.f32", export);
        f = fopen(p, "wb");
        if (!f) { fprintf(stderr, "%s: cannot create\n", p); return 1; }
        wr(f, ours, sizeof(float), (size_t)ns * dim);
        if (fclose(f)) { fprintf(stderr, "%s: write error\n", p); return 1; }
        free(ours);
        snprintf(p, sizeof p, "%s/weights.safetensors", export);
        if (enc_save_weights(e, p, err, sizeof err)) { fprintf(stderr, "%s\n", err); return 1; }
    }
    free(vec); free(bs); free(order); free(table); free(S);
    enc_embed_close(emb);
    sp_arena_free(&ar);
    for (int k = 0; k < c.nb; k++) ing_batch_free(&c.batches[k]);
    free(c.batches); free(c.s);
    for (int k = 0; k < voc.cap; k++) free(voc.w[k]);
    free(voc.w); free(voc.row);
    enc_close(e);
    return 0;
}
