/* tests/gpu/bert_cuda_vs_cpu.c — the bert encoder on CUDA agrees with the CPU oracle.
 *
 * Through the public API only: one model directory (any family enc_hf_open reads) is opened on the CPU and
 * on CUDA; both run the same batch in ONE enc_bert_forward call: real PTB-sample sentences
 * (words of the .dp files, tokenized with the model's vocab.txt as `synprobe encode` does), a
 * 1-word sentence and one sentence as long as the model's positions allow (long rows, the last
 * position embeddings). Every layer's hidden states (0 = embeddings) are compared with
 * |got - ref| <= 1e-4 + 1e-3 |ref| (LayerNorm outputs of magnitude ~1, float32 reordering through
 * cuBLAS) and every layer's and head's attention with 1e-5 + 1e-3 |ref| (probabilities); the
 * CUDA side then runs one sentence per call and is compared again.
 *
 *   bert_cuda_vs_cpu [--cpu-vs-cpu [--perturb]] [--bench [--export DIR]] MODEL_DIR DATA_DIR
 * --cpu-vs-cpu: the CPU on both sides (a self-check of this harness, no GPU needed); --perturb
 * then shifts one hidden value and one attention weight of every sentence of the second side by
 * ten times their tolerance, so that exactly 2 values per sentence must be counted out, twice.
 * --bench: afterwards, the second side's forward over the whole PTB sample in batches of about
 * 8192 pieces, three times: pieces/s and TFLOP/s (the products' flops) of each, median printed;
 * --export DIR then writes what bench/peer_bert.py reads: pieces.bin (int32 n, then per sentence,
 * length-sorted, int32 T and T piece ids) and ours.f32 (per sentence the mean of the last layer).
 * Without a CUDA device it prints "SKIP: ..." and exits 0 (a failure when SP_GPU_REQUIRED=1). */
#include "common/sp.h"
#include "encoder/encoder.h"
#include "encoder/tokenizer.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ATOL_H 1e-4
#define RTOL_H 1e-3
#define ATOL_A 1e-5
#define RTOL_A 1e-3
#define N_CHECK 48              /* real sentences in the checked batch */

static char err[4 * SP_ERRLEN];

struct sent { int n_words; char **w; };
struct corpus { struct sent *s; int n, cap; };

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* every sentence of DIR's .dp files (word TAB POS TAB head), files in name order */
static void read_dp(const char *dir, struct corpus *c)
{
    DIR *d = opendir(dir);
    if (!d) return;
    char **names = NULL;
    int nn = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strstr(e->d_name, ".dp")) { names = realloc(names, sizeof *names * (size_t)(nn + 1)); names[nn++] = strdup(e->d_name); }
    closedir(d);
    qsort(names, (size_t)nn, sizeof *names, by_name);
    for (int i = 0; i < nn; i++) {
        char path[4096], line[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        FILE *f = fopen(path, "r");
        struct sent cur = { 0, NULL };
        while (f) {
            char *got = fgets(line, sizeof line, f);
            if (!got || line[0] == '\n') {
                if (cur.n_words) {
                    if (c->n == c->cap) { c->cap = c->cap ? 2 * c->cap : 1024; c->s = realloc(c->s, sizeof *c->s * (size_t)c->cap); }
                    c->s[c->n++] = cur;
                    cur = (struct sent){ 0, NULL };
                }
                if (!got) break;
                continue;
            }
            char *tab = strchr(line, '\t');
            if (!tab) continue;
            *tab = 0;
            cur.w = realloc(cur.w, sizeof *cur.w * (size_t)(cur.n_words + 1));
            cur.w[cur.n_words++] = strdup(line);
        }
        if (f) fclose(f);
        free(names[i]);
    }
    free(names);
}

struct batch { int n; struct enc_bert_input *in; struct enc_tok_sentence *ts; };

static void add(struct batch *b, const enc_tokenizer_t *tok, char **words, int n_words, int max_pos)
{
    b->in = realloc(b->in, sizeof *b->in * (size_t)(b->n + 1));
    b->ts = realloc(b->ts, sizeof *b->ts * (size_t)(b->n + 1));
    struct enc_tok_sentence *t = &b->ts[b->n];
    memset(t, 0, sizeof *t);
    enc_tok_sentence(tok, (const char *const *)words, n_words, t);
    if (t->ids.n > max_pos) { enc_tok_sentence_free(t); return; }
    b->in[b->n] = (struct enc_bert_input){ t->ids.n, t->ids.id, NULL };
    b->n++;
}

static void batch_free(struct batch *b)
{
    for (int i = 0; i < b->n; i++) enc_tok_sentence_free(&b->ts[i]);
    free(b->in);
    free(b->ts);
}

struct outs { float **h, **a; };

static void outs_alloc(struct outs *o, const struct batch *b, const struct enc_bert_config *c)
{
    o->h = calloc((size_t)b->n, sizeof *o->h);
    o->a = calloc((size_t)b->n, sizeof *o->a);
    for (int i = 0; i < b->n; i++) {
        size_t n = (size_t)b->in[i].n;
        o->h[i] = calloc((size_t)(c->layers + 1) * n * (size_t)c->hidden_size, sizeof(float));
        o->a[i] = calloc((size_t)c->layers * (size_t)c->heads * n * n, sizeof(float));
    }
}

static void outs_free(struct outs *o, int n)
{
    for (int i = 0; i < n; i++) { free(o->h[i]); free(o->a[i]); }
    free(o->h);
    free(o->a);
}

/* values out of tolerance; the worst one reported */
static long compare(const char *what, int s, const float *got, const float *ref, size_t n, double atol, double rtol)
{
    long bad = 0;
    double worst = 0;
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        double d = fabs((double)got[i] - (double)ref[i]), lim = atol + rtol * fabs((double)ref[i]);
        if (!(d <= lim)) { bad++; if (!(d <= worst)) { worst = d; at = i; } }
    }
    if (bad) printf("#   sentence %d %s: %ld values out of tolerance, worst |diff| %.3g at %zu (ref %.6g got %.6g)\n", s, what, bad,
                    worst, at, ref[at], got[at]);
    return bad;
}

static int perturb;

/* --perturb: one hidden value (the last layer's last) and one attention weight per sentence */
static void perturb_outs(const struct batch *b, const struct enc_bert_config *c, struct outs *o, int first, int count)
{
    for (int i = first; perturb && i < first + count; i++) {
        size_t n = (size_t)b->in[i].n, nh = (size_t)(c->layers + 1) * n * (size_t)c->hidden_size;
        size_t na = (size_t)c->layers * (size_t)c->heads * n * n;
        o->h[i][nh - 1] += (float)(10 * (ATOL_H + RTOL_H * fabs(o->h[i][nh - 1])));
        o->a[i][na / 2] += (float)(10 * (ATOL_A + RTOL_A * fabs(o->a[i][na / 2])));
    }
}

static long compare_all(const struct batch *b, const struct enc_bert_config *c, const struct outs *got, const struct outs *ref,
                        int first, int count)
{
    long bad = 0;
    for (int i = first; i < first + count; i++) {
        size_t n = (size_t)b->in[i].n;
        bad += compare("hidden", i, got->h[i], ref->h[i], (size_t)(c->layers + 1) * n * (size_t)c->hidden_size, ATOL_H, RTOL_H);
        bad += compare("attention", i, got->a[i], ref->a[i], (size_t)c->layers * (size_t)c->heads * n * n, ATOL_A, RTOL_A);
    }
    return bad;
}

static double flops_of(const struct enc_bert_config *c, const struct enc_bert_input *in, int n)
{
    double d = c->hidden_size, F = c->intermediate_size, f = 0;
    for (int i = 0; i < n; i++) {
        double T = in[i].n;
        f += c->layers * (2 * T * d * 4 * d + 2 * 2 * T * d * F + 2 * 2 * T * T * d);
    }
    return f;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static const struct batch *sort_batch;
static int by_length(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b, tx = sort_batch->in[x].n, ty = sort_batch->in[y].n;
    return tx != ty ? (tx > ty) - (tx < ty) : (x > y) - (x < y);
}

/* pieces.bin and ours.f32 of bench/peer_bert.py, sentences by length */
static void export_peer(const char *dir, const struct batch *all, const struct outs *o, const struct enc_bert_config *cfg)
{
    char path[4096];
    int *ord = malloc(sizeof *ord * (size_t)all->n), d = cfg->hidden_size;
    for (int i = 0; i < all->n; i++) ord[i] = i;
    sort_batch = all;
    qsort(ord, (size_t)all->n, sizeof *ord, by_length);
    snprintf(path, sizeof path, "%s/pieces.bin", dir);
    FILE *f = fopen(path, "wb"), *g;
    snprintf(path, sizeof path, "%s/ours.f32", dir);
    g = fopen(path, "wb");
    if (!f || !g) { printf("# export: cannot write to %s\n", dir); if (f) fclose(f); if (g) fclose(g); free(ord); return; }
    fwrite(&all->n, sizeof(int), 1, f);
    float *mean = malloc(sizeof *mean * (size_t)d);
    for (int k = 0; k < all->n; k++) {
        const struct enc_bert_input *x = &all->in[ord[k]];
        fwrite(&x->n, sizeof(int), 1, f);
        fwrite(x->ids, sizeof(int32_t), (size_t)x->n, f);
        const float *last = o->h[ord[k]] + (size_t)cfg->layers * (size_t)x->n * (size_t)d;
        for (int j = 0; j < d; j++) {
            double acc = 0;
            for (int p = 0; p < x->n; p++) acc += last[(size_t)p * d + j];
            mean[j] = (float)(acc / x->n);
        }
        fwrite(mean, sizeof(float), (size_t)d, g);
    }
    fclose(f);
    fclose(g);
    free(mean);
    free(ord);
    printf("# export: %d sentences to %s (pieces.bin, ours.f32)\n", all->n, dir);
}

/* the second side over the whole corpus, batches of about 8192 pieces, 3 rounds */
static void bench(enc_bert_t *m, const enc_tokenizer_t *tok, const struct corpus *c, const char *side, const char *export_dir)
{
    const struct enc_bert_config *cfg = enc_bert_get_config(m);
    struct batch all = { 0 };
    for (int i = 0; i < c->n; i++) add(&all, tok, c->s[i].w, c->s[i].n_words, cfg->max_pieces);
    long pieces = 0;
    for (int i = 0; i < all.n; i++) pieces += all.in[i].n;
    double fl = flops_of(cfg, all.in, all.n), rate[3], tf[3];
    struct outs o;
    outs_alloc(&o, &all, cfg);
    for (int r = 0; r < 3; r++) {
        double t0 = sp_now();
        for (int i = 0; i < all.n;) {
            int j = i, rows = 0;
            while (j < all.n && (rows == 0 || rows + all.in[j].n <= 8192)) rows += all.in[j++].n;
            if (enc_bert_forward(m, j - i, all.in + i, o.h + i, ENC_BERT_ALL_LAYERS, NULL, ENC_BERT_ALL_LAYERS, err, sizeof err)) { printf("# bench: %s\n", err); goto out; }
            i = j;
        }
        double s = sp_now() - t0;
        rate[r] = pieces / s;
        tf[r] = fl / s / 1e12;
        printf("# bench %s round %d: %d sentences, %ld pieces in %.3f s: %.0f pieces/s, %.2f TFLOP/s\n", side, r + 1, all.n,
               pieces, s, rate[r], tf[r]);
    }
    qsort(rate, 3, sizeof *rate, cmp_double);
    qsort(tf, 3, sizeof *tf, cmp_double);
    printf("# bench %s median: %.0f pieces/s (%.0f-%.0f), %.2f TFLOP/s (%.2f-%.2f)\n", side, rate[1], rate[0], rate[2], tf[1], tf[0],
           tf[2]);
    if (export_dir) export_peer(export_dir, &all, &o, cfg);
out:
    outs_free(&o, all.n);
    batch_free(&all);
}

int main(int argc, char **argv)
{
    int cpu_vs_cpu = 0, do_bench = 0, a = 1;
    const char *export_dir = NULL;
    for (; a < argc && argv[a][0] == '-'; a++) {
        if (!strcmp(argv[a], "--cpu-vs-cpu")) cpu_vs_cpu = 1;
        else if (!strcmp(argv[a], "--bench")) do_bench = 1;
        else if (!strcmp(argv[a], "--perturb")) perturb = 1;
        else if (!strcmp(argv[a], "--export") && a + 1 < argc) export_dir = argv[++a];
        else { fprintf(stderr, "unknown option %s\n", argv[a]); return 2; }
    }
    if (argc - a != 2) { fprintf(stderr, "usage: bert_cuda_vs_cpu [--cpu-vs-cpu [--perturb]] [--bench [--export DIR]] MODEL_DIR DATA_DIR\n"); return 2; }
    const char *model = argv[a], *data = argv[a + 1];
    int required = getenv("SP_GPU_REQUIRED") && !strcmp(getenv("SP_GPU_REQUIRED"), "1");
    char path[4096];
    snprintf(path, sizeof path, "%s/ptb-sample/dependency", data);
    struct corpus c = { 0 };
    read_dp(path, &c);
    if (c.n < N_CHECK) { printf("SKIP: %s: fewer than %d sentences\n", path, N_CHECK); return 0; }

    enc_bert_t *ref = NULL, *got = NULL;
    if (enc_hf_open(model, ENC_DEVICE_CPU, NULL, &ref, err, sizeof err)) { printf("not ok - open %s on the CPU: %s\n", model, err); return 1; }
    if (enc_hf_open(model, cpu_vs_cpu ? ENC_DEVICE_CPU : ENC_DEVICE_CUDA, NULL, &got, err, sizeof err)) {
        enc_bert_close(ref);
        if (required) { printf("not ok - a GPU is listed but the CUDA backend does not open: %s\n", err); return 1; }
        printf("SKIP: no CUDA device (%s)\n", err);
        return 0;
    }
    const struct enc_bert_config *cfg = enc_bert_get_config(ref);
    struct enc_tok_opts to;
    enc_tok_opts_defaults(&to);
    to.ptb_unescape = 1;
    to.max_positions = cfg->max_pieces;
    snprintf(path, sizeof path, "%s/vocab.txt", enc_bert_model_dir(ref));
    enc_tokenizer_t *tok;
    if (enc_tok_open(path, &to, &tok, err, sizeof err)) { printf("not ok - %s\n", err); return 1; }

    struct batch b = { 0 };
    for (int i = 0; i < N_CHECK; i++) add(&b, tok, c.s[i].w, c.s[i].n_words, cfg->max_pieces);
    char *one[] = { "Hello" };
    add(&b, tok, one, 1, cfg->max_pieces);
    /* the longest sentence the positions allow: whole PTB sentences joined until the next would not fit */
    int nl = 0, capl = 0;
    char **lw = NULL;
    for (int i = 0, pieces = 2; i < c.n; i++) {
        struct enc_pieces p = { 0 };
        int add_n = 0;
        for (int w = 0; w < c.s[i].n_words; w++) add_n += enc_tok_word(tok, c.s[i].w[w], strlen(c.s[i].w[w]), &p);
        enc_pieces_free(&p);
        if (pieces + add_n > cfg->max_pieces) break;
        pieces += add_n;
        if (nl + c.s[i].n_words > capl) { capl = 2 * (nl + c.s[i].n_words); lw = realloc(lw, sizeof *lw * (size_t)capl); }
        for (int w = 0; w < c.s[i].n_words; w++) lw[nl++] = c.s[i].w[w];
    }
    add(&b, tok, lw, nl, cfg->max_pieces);
    free(lw);
    int max_t = 0;
    for (int i = 0; i < b.n; i++) if (b.in[i].n > max_t) max_t = b.in[i].n;
    printf("# %s vs CPU: %s (%d layers, d %d, %d heads); %d sentences, the longest %d pieces\n",
           cpu_vs_cpu ? "CPU" : "CUDA", model, cfg->layers, cfg->hidden_size, cfg->heads, b.n, max_t);

    struct outs r, g;
    outs_alloc(&r, &b, cfg);
    outs_alloc(&g, &b, cfg);
    int fail = 0;
    if (enc_bert_forward(ref, b.n, b.in, r.h, ENC_BERT_ALL_LAYERS, r.a, ENC_BERT_ALL_LAYERS, err, sizeof err)) { printf("not ok - CPU forward: %s\n", err); return 1; }
    if (enc_bert_forward(got, b.n, b.in, g.h, ENC_BERT_ALL_LAYERS, g.a, ENC_BERT_ALL_LAYERS, err, sizeof err)) { printf("not ok - %s forward: %s\n", enc_bert_backend_name(got), err); return 1; }
    perturb_outs(&b, cfg, &g, 0, b.n);
    long bad = compare_all(&b, cfg, &g, &r, 0, b.n);
    printf("%s - one batch of %d sentences: every layer's hidden states and attention within tolerance (%ld values out)\n",
           bad ? "not ok" : "ok", b.n, bad);
    printf("# values out: %ld\n", bad);
    fail |= bad != 0;
    for (int i = 0; i < b.n; i++) {
        memset(g.h[i], 0, sizeof(float) * (size_t)(cfg->layers + 1) * (size_t)b.in[i].n * (size_t)cfg->hidden_size);
        if (enc_bert_forward(got, 1, b.in + i, g.h + i, ENC_BERT_ALL_LAYERS, g.a + i, ENC_BERT_ALL_LAYERS, err, sizeof err)) { printf("not ok - forward of sentence %d: %s\n", i, err); return 1; }
        perturb_outs(&b, cfg, &g, i, 1);
    }
    bad = compare_all(&b, cfg, &g, &r, 0, b.n);
    printf("%s - one sentence per call: within tolerance (%ld values out)\n", bad ? "not ok" : "ok", bad);
    printf("# values out: %ld\n", bad);
    printf("# sentences: %d\n", b.n);
    fail |= bad != 0;
    outs_free(&r, b.n);
    outs_free(&g, b.n);
    batch_free(&b);
    if (do_bench) bench(got, tok, &c, cpu_vs_cpu ? "cpu" : "cuda", export_dir);
    enc_tok_close(tok);
    enc_bert_close(ref);
    enc_bert_close(got);
    for (int i = 0; i < c.n; i++) { for (int w = 0; w < c.s[i].n_words; w++) free(c.s[i].w[w]); free(c.s[i].w); }
    free(c.s);
    return fail;
}
