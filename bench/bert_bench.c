/* bench/bert_bench.c — BERT-family forward throughput (driver of bench/bert.sh), and the sgemm
 * ceiling of the machine. Built by bench/bert.sh against build/lib/libsp_*.a; public API only.
 *
 *   bert_bench encode MODEL_DIR SENTS.txt [--kind bert|hf] [--threads N] [--budget PIECES] [--gemm own|blas]
 *                     [--device cpu|cuda] [--export DIR [--check K]]
 *       SENTS.txt: one sentence a line, words separated by single spaces. --kind bert (default):
 *       enc_bert_open and vocab.txt; --kind hf: enc_hf_open (any family of encoder/enc_hf.c) and
 *       the folder's tokenizer.json (vocab.txt without one). Every sentence is tokenized
 *       (untimed), sentences of more than the model's max_pieces are dropped, the rest sorted by
 *       piece count (stable) and cut into batches of at most PIECES pieces (1024); every layer's
 *       hidden states are computed (enc_bert_forward, as `synprobe encode` does). Timed: the
 *       forwards only, after one untimed warm-up batch.
 *       Prints "RESULT sents= words= pieces= batches= wall_s= user_s= pieces_s= words_s= gflop= gflop_s=".
 *       --export DIR writes DIR/pieces.bin (int32: count, then per sentence in the sorted order
 *       T, ids[T]) and DIR/ours.f32 (per sentence, the mean over its pieces of the last layer) for
 *       the peers, and the check set: K (16) sentences spread over the length order, every layer
 *       (DIR/check.bin: int32 K, layers+1, d, then their places in the order; DIR/hidden.f32: each
 *       [layers+1, T, d]), which the peers compare element by element.
 *   bert_bench plan MODEL_DIR SENTS.txt [--kind bert|hf] [--batch-tokens N]
 *       the batches `synprobe encode --batch-tokens N` (8192) forms of these sentences (sorted by
 *       words, at most N padded words) and the activations of the largest, in bytes of float32:
 *       act = hidden (every layer's hidden states, (layers+1)·M·d, M its pieces) + scores (one
 *       layer's attention scores, heads·Σ T², each sentence attending to its own pieces).
 *       Prints "RESULT ... max_batch_pieces= hidden_bytes= scores_bytes= act_bytes= batch_pieces=P1,P2,..."
 *       (the pieces of each batch, in the order encode runs them).
 *   bert_bench sgemm [--threads N] [--size S] [--reps R] [--blas]
 *       one S×S×S product (1536), best of R (5): our kernel (common/gemm.h) or, with --blas,
 *       OpenBLAS's cblas_sgemm (its kernel chosen by OPENBLAS_CORETYPE, threads by
 *       OPENBLAS_NUM_THREADS). Prints "RESULT kernel= gflop_s=".
 *   bert_bench peak
 *       the core's fp32 FMA throughput: 12 independent chains of vector FMAs (AVX-512 when the
 *       CPU has it, else AVX2), no memory traffic; the limit no product can pass on one thread.
 *       Prints "RESULT peak_gflop_s= isa=".
 * GFLOP counts the products only: per piece and layer 2·(3d² + d² + 2dF), plus the attention
 * products 4·T·d per piece (T its sentence's pieces). */
#include "common/gemm.h"
#include "common/sp.h"
#include "encoder/encoder.h"
#include "encoder/tokenizer.h"
#include "encoder/tokjson.h"

#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static char err[SP_ERRLEN * 4];

static double user_s(void)
{
    struct rusage r;
    getrusage(RUSAGE_SELF, &r);
    return r.ru_utime.tv_sec + r.ru_utime.tv_usec / 1e6;
}

struct sent { int T, words, idx; int32_t *ids; };

static int by_len(const void *a, const void *b)
{
    const struct sent *x = a, *y = b;
    return x->T != y->T ? (x->T < y->T ? -1 : 1) : (x->idx > y->idx) - (x->idx < y->idx);   /* stable: file order */
}

/* the model's tokenizer: kind hf reads tokenizer.json when the folder has one (as `synprobe
 * encode` does; the default prefix-space rule, that of the byte-level classes), else vocab.txt */
struct toks { enc_tokenizer_t *wp; struct enc_tokjson *tj; };

static int toks_open(const char *model, int hf, struct toks *t)
{
    char f[2048];
    memset(t, 0, sizeof *t);
    snprintf(f, sizeof f, "%s/tokenizer.json", model);
    if (hf && access(f, R_OK) == 0) {
        if (!(t->tj = enc_tokjson_load(f, NULL, err, sizeof err))) { fprintf(stderr, "%s\n", err); return 1; }
        return 0;
    }
    snprintf(f, sizeof f, "%s/vocab.txt", model);
    if (enc_tok_open(f, NULL, &t->wp, err, sizeof err)) { fprintf(stderr, "%s\n", err); return 1; }
    return 0;
}

static void toks_close(struct toks *t)
{
    if (t->wp) enc_tok_close(t->wp);
    if (t->tj) enc_tokjson_free(t->tj);
}

/* SENTS.txt tokenized: the sentences of at most max_pieces pieces, in file order (idx); *words, *pieces summed */
static struct sent *read_sents(const char *path, const struct toks *tk, int max_pieces, int *n_out, long *words, long *pieces)
{
    size_t len;
    char *text = sp_read_file(path, &len, NULL, 0);
    if (!text) { fprintf(stderr, "%s: cannot read\n", path); return NULL; }
    struct sent *S = NULL;
    int n = 0, cap = 0;
    *words = *pieces = 0;
    struct enc_tok_sentence ts = {0};
    const char **w = NULL;
    int wcap = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        int nw = 0;
        for (char *p = line; p;) {
            if (nw == wcap) { wcap = wcap ? 2 * wcap : 64; w = sp_xrealloc(w, sizeof *w * (size_t)wcap); }
            w[nw++] = p;
            p = strchr(p, ' ');
            if (p) *p++ = '\0';
        }
        int T = tk->tj ? enc_tokjson_sentence(tk->tj, w, nw, &ts, err, sizeof err) : enc_tok_sentence(tk->wp, w, nw, &ts);
        if (T < 0) { fprintf(stderr, "%s\n", err); exit(1); }
        if (ts.too_long || T > max_pieces) continue;
        if (n == cap) { cap = cap ? 2 * cap : 1024; S = sp_xrealloc(S, sizeof *S * (size_t)cap); }
        S[n].T = T; S[n].words = nw; S[n].idx = n;
        S[n].ids = sp_xmalloc(sizeof(int32_t) * (size_t)T);
        memcpy(S[n].ids, ts.ids.id, sizeof(int32_t) * (size_t)T);
        n++; *words += nw; *pieces += T;
    }
    free(w);
    free(text);
    enc_tok_sentence_free(&ts);
    *n_out = n;
    return S;
}

static int by_words(const void *a, const void *b)
{
    const struct sent *x = a, *y = b;
    return x->words != y->words ? (x->words < y->words ? -1 : 1) : (x->idx > y->idx) - (x->idx < y->idx);
}

/* bert_bench plan: the batches `synprobe encode` forms (stages/encode_batch.c: sorted by words,
 * ties in corpus order; at most N padded words, sentences x longest; one window, as long as the
 * input is under its 1,024 sentences / 65,536 words) and the activations of the largest */
static int cmd_plan(int argc, char **argv)
{
    if (argc < 4) { fprintf(stderr, "usage: bert_bench plan MODEL_DIR SENTS.txt [--kind bert|hf] [--batch-tokens N]\n"); return 2; }
    const char *model = argv[2], *path = argv[3];
    int hf = 0;
    long N = 8192;
    for (int i = 4; i < argc; i++) {
        if (!strcmp(argv[i], "--kind") && i + 1 < argc) hf = !strcmp(argv[++i], "hf");
        else if (!strcmp(argv[i], "--batch-tokens") && i + 1 < argc) N = atol(argv[++i]);
        else { fprintf(stderr, "bert_bench: unknown option %s\n", argv[i]); return 2; }
    }
    char f[2048];
    snprintf(f, sizeof f, "%s/config.json", model);
    struct enc_bert_config c;
    if ((hf ? enc_hf_config_load : enc_bert_config_load)(f, &c, err, sizeof err)) { fprintf(stderr, "%s\n", err); return 1; }
    struct toks tk;
    if (toks_open(model, hf, &tk)) return 1;
    int n;
    long words, pieces;
    struct sent *S = read_sents(path, &tk, c.max_pieces, &n, &words, &pieces);
    if (!S || !n) return 1;
    qsort(S, (size_t)n, sizeof *S, by_words);
    const double L1 = c.layers + 1, d = c.hidden_size, H = c.heads;
    double best = 0, bM = 0, bsq = 0;
    int bn = 0, batches = 0;
    char list[4096] = "";
    size_t ll = 0;
    for (int i = 0; i < n; batches++) {
        int j = i + 1;
        while (j < n && (long)(j + 1 - i) * S[j].words <= N) j++;
        double M = 0, sq = 0;
        for (int k = i; k < j; k++) { M += S[k].T; sq += (double)S[k].T * S[k].T; }
        double act = 4.0 * (L1 * M * d + H * sq);
        if (act > best) { best = act; bM = M; bsq = sq; bn = j - i; }
        if (ll < sizeof list - 32) ll += (size_t)snprintf(list + ll, sizeof list - ll, "%s%.0f", batches ? "," : "", M);
        i = j;
    }
    printf("RESULT sents=%d words=%ld pieces=%ld batches=%d batch_tokens=%ld max_batch_sents=%d max_batch_pieces=%.0f "
           "max_batch_sq=%.0f layers=%d d=%d heads=%d hidden_bytes=%.0f scores_bytes=%.0f act_bytes=%.0f batch_pieces=%s\n",
           n, words, pieces, batches, N, bn, bM, bsq, c.layers, c.hidden_size, c.heads, 4.0 * L1 * bM * d, 4.0 * H * bsq, best, list);
    for (int i = 0; i < n; i++) free(S[i].ids);
    free(S);
    toks_close(&tk);
    return 0;
}

static int cmd_encode(int argc, char **argv)
{
    if (argc < 4) { fprintf(stderr, "usage: bert_bench encode MODEL_DIR SENTS.txt [options]\n"); return 2; }
    const char *model = argv[2], *path = argv[3], *export = NULL;
    int threads = 1, budget = 1024, hf = 0, n_check = 16;
    enum enc_device dev = ENC_DEVICE_CPU;
    for (int i = 4; i < argc; i++) {
        if (!strcmp(argv[i], "--threads") && i + 1 < argc) threads = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--budget") && i + 1 < argc) budget = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--export") && i + 1 < argc) export = argv[++i];
        else if (!strcmp(argv[i], "--check") && i + 1 < argc) n_check = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--kind") && i + 1 < argc) hf = !strcmp(argv[++i], "hf");
        else if (!strcmp(argv[i], "--device") && i + 1 < argc) dev = !strcmp(argv[++i], "cuda") ? ENC_DEVICE_CUDA : ENC_DEVICE_CPU;
        else if (!strcmp(argv[i], "--gemm") && i + 1 < argc && sp_gemm_impl_parse(argv[i + 1]) >= 0)
            sp_gemm_set_impl((enum sp_gemm_impl)sp_gemm_impl_parse(argv[++i]));
        else { fprintf(stderr, "bert_bench: unknown option %s\n", argv[i]); return 2; }
    }
    enc_bert_t *b;
    if ((hf ? enc_hf_open : enc_bert_open)(model, dev, NULL, &b, err, sizeof err)) { fprintf(stderr, "%s\n", err); return 1; }
    const struct enc_bert_config *c = enc_bert_get_config(b);
    struct toks tk;
    if (toks_open(model, hf, &tk)) return 1;
    int n;
    long words, pieces;
    struct sent *S = read_sents(path, &tk, c->max_pieces, &n, &words, &pieces);
    if (!S || !n) return 1;
    qsort(S, (size_t)n, sizeof *S, by_len);
    const int L = c->layers, d = c->hidden_size, F = c->intermediate_size;
    double flop = 0;
    for (int i = 0; i < n; i++) flop += (double)S[i].T * L * (2.0 * (4.0 * d * d + 2.0 * d * F) + 4.0 * S[i].T * d);
    int maxT = S[n - 1].T;
    if (budget < maxT) budget = maxT;
    float **hidden = sp_xmalloc(sizeof(float *) * (size_t)n);
    float *hbuf = sp_xmalloc(sizeof(float) * (size_t)(L + 1) * d * (size_t)(budget + maxT));
    struct enc_bert_input *in = sp_xmalloc(sizeof *in * (size_t)n);
    for (int i = 0; i < n; i++) { in[i].n = S[i].T; in[i].ids = S[i].ids; in[i].types = NULL; }
    float *ours = export ? sp_xcalloc((size_t)n * d, sizeof(float)) : NULL;
    /* the check set (--export): n_check sentences spread evenly over the length order, the
     * shortest and the longest among them; every layer of theirs kept for the peers' check */
    if (n_check > n) n_check = n;
    if (n_check < 1 || !export) n_check = 0;
    int *check = sp_xcalloc((size_t)n, sizeof(int));        /* 1 + its place in the check set */
    float **kept = sp_xcalloc((size_t)(n_check ? n_check : 1), sizeof(float *));
    for (int k = 0; k < n_check; k++) {
        int i = n_check > 1 ? (int)((long)k * (n - 1) / (n_check - 1)) : n - 1;
        if (!check[i]) check[i] = k + 1;
    }
    enc_set_threads(threads);
    /* warm-up, untimed: a whole batch of the longest sentences (packs the weights, grows the
     * workspace, and on a GPU loads the product kernels the timed batches' shapes use: with one
     * sentence only, the first timed batch paid cuBLAS's lazy kernel loading) */
    {
        int w0 = n - 1;
        long p = S[w0].T;
        size_t off = 0;
        while (w0 > 0 && p + S[w0 - 1].T <= budget) p += S[--w0].T;
        for (int i = w0; i < n; i++) { hidden[i] = hbuf + off; off += (size_t)(L + 1) * d * S[i].T; }
        if (enc_bert_forward(b, n - w0, in + w0, hidden + w0, ENC_BERT_ALL_LAYERS, NULL, ENC_BERT_ALL_LAYERS, err, sizeof err)) {
            fprintf(stderr, "%s\n", err);
            return 1;
        }
    }
    int batches = 0;
    double w0 = sp_now(), u0 = user_s();
    for (int i0 = 0; i0 < n;) {
        int i1 = i0;
        size_t off = 0;
        long p = 0;
        while (i1 < n && (i1 == i0 || p + S[i1].T <= budget)) {
            hidden[i1] = hbuf + off;
            off += (size_t)(L + 1) * d * S[i1].T;
            p += S[i1].T;
            i1++;
        }
        if (enc_bert_forward(b, i1 - i0, in + i0, hidden + i0, ENC_BERT_ALL_LAYERS, NULL, ENC_BERT_ALL_LAYERS, err, sizeof err)) { fprintf(stderr, "%s\n", err); return 1; }
        for (int s = i0; s < i1; s++)
            if (check[s]) {
                const size_t sz = (size_t)(L + 1) * S[s].T * d;
                kept[check[s] - 1] = sp_xmalloc(sizeof(float) * sz);
                memcpy(kept[check[s] - 1], hidden[s], sizeof(float) * sz);
            }
        for (int s = i0; ours && s < i1; s++) {
            const float *last = hidden[s] + (size_t)L * S[s].T * d;
            for (int t = 0; t < S[s].T; t++)
                for (int j = 0; j < d; j++) ours[(size_t)s * d + j] += last[(size_t)t * d + j] / S[s].T;
        }
        batches++;
        i0 = i1;
    }
    double wall = sp_now() - w0, us = user_s() - u0;
    printf("RESULT device=%s sents=%d words=%ld pieces=%ld batches=%d threads=%d wall_s=%.3f user_s=%.3f pieces_s=%.0f pieces_user_s=%.0f words_s=%.0f gflop=%.2f gflop_s=%.2f\n",
           enc_bert_backend_name(b), n, words, pieces, batches, threads, wall, us, pieces / wall, pieces / us, words / wall, flop / 1e9, flop / 1e9 / wall);
    if (export) {
        char f[2048];
        snprintf(f, sizeof f, "%s/pieces.bin", export);
        FILE *fp = fopen(f, "wb");
        if (!fp) { fprintf(stderr, "%s: cannot write\n", f); return 1; }
        fwrite(&n, sizeof n, 1, fp);
        for (int i = 0; i < n; i++) { fwrite(&S[i].T, sizeof(int), 1, fp); fwrite(S[i].ids, sizeof(int32_t), (size_t)S[i].T, fp); }
        fclose(fp);
        snprintf(f, sizeof f, "%s/ours.f32", export);
        fp = fopen(f, "wb");
        if (!fp) { fprintf(stderr, "%s: cannot write\n", f); return 1; }
        fwrite(ours, sizeof(float), (size_t)n * d, fp);
        fclose(fp);
        /* check.bin: int32 count, layers + 1, d, then the sentences' places in the length order; hidden.f32:
         * theirs in that order, each [layers+1, T, d] */
        snprintf(f, sizeof f, "%s/check.bin", export);
        FILE *fc = fopen(f, "wb");
        snprintf(f, sizeof f, "%s/hidden.f32", export);
        fp = fopen(f, "wb");
        if (!fc || !fp) { fprintf(stderr, "%s: cannot write\n", f); return 1; }
        int nk = 0;
        for (int i = 0; i < n; i++) nk += check[i] != 0;
        const int head[3] = { nk, L + 1, d };
        fwrite(head, sizeof head, 1, fc);
        for (int i = 0; i < n; i++)
            if (check[i]) {
                fwrite(&i, sizeof i, 1, fc);
                fwrite(kept[check[i] - 1], sizeof(float), (size_t)(L + 1) * S[i].T * d, fp);
            }
        fclose(fc);
        fclose(fp);
    }
    for (int k = 0; k < n_check; k++) free(kept[k]);
    free(kept); free(check);
    for (int i = 0; i < n; i++) free(S[i].ids);
    free(S); free(in); free(hidden); free(hbuf); free(ours);
    toks_close(&tk);
    enc_bert_close(b);
    return 0;
}

static int cmd_sgemm(int argc, char **argv)
{
    int threads = 1, S = 1536, reps = 5, blas = 0;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--threads") && i + 1 < argc) threads = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--size") && i + 1 < argc) S = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--blas")) blas = 1;
        else { fprintf(stderr, "bert_bench: unknown option %s\n", argv[i]); return 2; }
    }
    const size_t ss = (size_t)S * S;
    float *X = sp_gemm_alloc(ss), *W = sp_gemm_alloc(ss), *Y = sp_gemm_alloc(ss);
    uint64_t r = 88172645463325252ull;
    for (size_t i = 0; i < ss; i++) {
        r ^= r << 13; r ^= r >> 7; r ^= r << 17;
        X[i] = (float)((r >> 40) & 0xffff) / 65536.0f - 0.5f;
        W[i] = (float)((r >> 20) & 0xffff) / 65536.0f - 0.5f;
    }
    struct sp_gemm_b B;
    if (!blas) {
        sp_gemm_set_threads(threads);
        sp_gemm_pack(&B, S, S, W, S, 0, sp_gemm_alloc(sp_gemm_packed_floats(S, S)));
    }
    double best = 1e30;
    for (int k = 0; k < reps + 1; k++) {          /* first run untimed */
        double t0 = sp_now();
        if (blas) cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, S, S, S, 1.0f, X, S, W, S, 0.0f, Y, S);
        else sp_gemm(S, X, S, &B, NULL, 0, Y, S);
        double t = sp_now() - t0;
        if (k && t < best) best = t;
    }
    printf("RESULT kernel=%s threads=%d size=%d gflop_s=%.1f\n", blas ? "openblas" : sp_gemm_kernel(), threads, S, 2.0 * ss * S / best / 1e9);
    return 0;
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define FMA12(T, fma) do { c0 = fma(a, c0, b); c1 = fma(a, c1, b); c2 = fma(a, c2, b); c3 = fma(a, c3, b); \
    c4 = fma(a, c4, b); c5 = fma(a, c5, b); c6 = fma(a, c6, b); c7 = fma(a, c7, b); c8 = fma(a, c8, b); \
    c9 = fma(a, c9, b); c10 = fma(a, c10, b); c11 = fma(a, c11, b); } while (0)
/* distinct start values, so the compiler cannot merge the chains */
#define PEAK_BODY(T, set1, fma, add, W)                                                              \
    T c0 = set1(v[0]), c1 = set1(v[1]), c2 = set1(v[2]), c3 = set1(v[3]), c4 = set1(v[4]), c5 = set1(v[5]); \
    T c6 = set1(v[6]), c7 = set1(v[7]), c8 = set1(v[8]), c9 = set1(v[9]), c10 = set1(v[10]), c11 = set1(v[11]); \
    const T a = set1(v[12]), b = set1(v[13]);                                                       \
    for (long k = 0; k < n; k++) FMA12(T, fma);                                                     \
    T s = add(add(add(c0, c1), add(c2, c3)), add(add(c4, c5), add(c6, c7)));                        \
    s = add(s, add(add(c8, c9), add(c10, c11)));                                                    \
    float o[16];                                                                                    \
    memcpy(o, &s, sizeof(float) * (W));                                                             \
    return o[0];
__attribute__((target("avx2,fma"), noinline)) static float peak_avx2(long n, const float *v) { PEAK_BODY(__m256, _mm256_set1_ps, _mm256_fmadd_ps, _mm256_add_ps, 8) }
__attribute__((target("avx512f"), noinline)) static float peak_avx512(long n, const float *v) { PEAK_BODY(__m512, _mm512_set1_ps, _mm512_fmadd_ps, _mm512_add_ps, 16) }

static int cmd_peak(void)
{
    __builtin_cpu_init();
    const int z = __builtin_cpu_supports("avx512f");
    if (!z && !(__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))) { printf("RESULT peak_gflop_s=0 isa=none\n"); return 0; }
    float v[14];
    for (int i = 0; i < 12; i++) v[i] = 0.1f * (float)i;
    v[12] = 0.9999f; v[13] = 1e-5f;
    const long n = 50000000;
    double best = 1e30;
    float sink = 0;
    for (int r = 0; r < 3; r++) {
        double t0 = sp_now();
        sink += z ? peak_avx512(n, v) : peak_avx2(n, v);
        double t = sp_now() - t0;
        if (t < best) best = t;
    }
    printf("RESULT peak_gflop_s=%.1f isa=%s (%g)\n", 12.0 * 2 * (z ? 16 : 8) * n / best / 1e9, z ? "avx512" : "avx2", sink > 0 ? 1.0 : 0.0);
    return 0;
}
#else
static int cmd_peak(void) { printf("RESULT peak_gflop_s=0 isa=unknown\n"); return 0; }
#endif

int main(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "peak")) return cmd_peak();
    if (argc >= 2 && !strcmp(argv[1], "encode")) return cmd_encode(argc, argv);
    if (argc >= 2 && !strcmp(argv[1], "plan")) return cmd_plan(argc, argv);
    if (argc >= 2 && !strcmp(argv[1], "sgemm")) return cmd_sgemm(argc, argv);
    fprintf(stderr, "usage: bert_bench encode|plan MODEL_DIR SENTS.txt [options] | bert_bench sgemm [options] | bert_bench peak\n");
    return 2;
}
