/* tests/gpu/encoder_cuda_vs_cpu.c — the CUDA encoders agree with the CPU oracle (docs/style.md §3.6).
 *
 * Goes through the public API only: for every config given, one seeded encoder is saved with
 * enc_save_weights, the file's floats are perturbed (so biases, LN gains and the SG-Net
 * aggregation weights are not their trivial init values), and the same file is loaded by
 * enc_open(ENC_DEVICE_CPU) and enc_open(ENC_DEVICE_CUDA). Both encode the same batch in ONE
 * enc_forward call: real PTB-sample sentences (.dp heads + .mrg trees, structures by
 * enc_sentence_prepare), a 1-word sentence and a 300-word synthetic chain (long rows, clipped
 * relative positions, long phrase blocks). Sentence vectors, token vectors and attention maps of
 * the first and the last attention layer are compared with |got-ref| <= atol + rtol|ref|; the
 * CUDA side is also run one sentence per call and compared again, and (small models) on the
 * batch repeated past several of enc_forward's groups of sentences.
 *
 * SSAN: A = [E_s > 0] can flip on a near-zero E_s between two float32 implementations, and a flip
 * changes the rest of that sentence. For SSAN configs a sentence out of tolerance is counted as a
 * suspected selection flip (with the number of zero/non-zero disagreements in the selective
 * layer's map) and the config fails only when more than max(1, B/10) sentences are affected.
 *
 *   encoder_cuda_vs_cpu [--cpu-vs-cpu [--perturb]] DATA_DIR TMP_DIR CONFIG.json...
 * Without a CUDA device it prints "SKIP: no CUDA device (reason)" and exits 0, unless
 * SP_GPU_REQUIRED=1 (run.sh sets it when nvidia-smi lists a GPU): then that is a failure.
 * --cpu-vs-cpu compares the CPU backend with itself: a self-check of this harness (loading,
 * perturbation, batching, comparison) that runs on machines without a GPU; every config must
 * pass. --perturb then shifts the second side's outputs the way a drifting backend would (see
 * perturb_outs): every config must fail, with exactly the shifted values counted
 * (tests/gpu/selfcheck.sh, part of make test, runs both).
 * SP_GPU_TOL_SCALE multiplies every tolerance (default 1). */
#include "common/sp.h"
#include "encoder/encoder.h"
#include "ingest/readers.h"
#include "ingest/sentence.h"
#include "tests/unit/encoder_fixture.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* tolerances: outputs are LN-normalised or pooled values of magnitude ~1, so 1e-4 absolute plus
 * 1e-3 relative leaves room for float32 reordering through 12-layer stacks; attention weights are
 * probabilities (<= 1), where 1e-5 absolute is still far below any masking or selection error */
static double tol_scale = 1.0;
#define ATOL_VEC 1e-4
#define RTOL_VEC 1e-3
#define ATOL_ATT 1e-5
#define RTOL_ATT 1e-3

#define N_REAL_SHORT 22        /* real sentences of <= 40 words, plus the longest one seen */
#define LONG_N 300
/* enc_forward packs whole sentences into groups of up to 4096 rows (ENC_GROUP_TOKENS, encoder.h);
 * a batch past MULTI_TOKENS spans several groups (later groups restart the row and pair
 * offsets at 0 in a workspace that has grown meanwhile). Run for small models only, so the
 * --cpu-vs-cpu self-check stays fast. */
#define MULTI_TOKENS 9000
#define MULTI_MAX_D 128

static char err[4 * SP_ERRLEN];

/* ---- comparison ---- */

struct cmp {
    size_t n, bad;
    double max_abs, max_rel, se, ref2;  /* max errors, squared error and reference energy (NMSE) */
    size_t zero_flip;                   /* (ref == 0) != (got == 0) */
    size_t nonfinite;                   /* NaN/inf in either: always a failure (NaN == NaN would hide it) */
    int shown;
};

static void cmp_add(struct cmp *c, const char *what, int sent, const float *got, const float *ref, size_t n, double atol, double rtol, int show)
{
    atol *= tol_scale; rtol *= tol_scale;
    for (size_t k = 0; k < n; k++) {
        double g = got[k], r = ref[k], d = fabs(g - r);
        c->n++;
        if (!isfinite(g) || !isfinite(r)) {
            c->nonfinite++; c->bad++;
            if (show && c->shown < 3) { c->shown++; printf("#   %s sentence %d [%zu]: got %g, cpu %g\n", what, sent, k, g, r); }
            continue;
        }
        if (d > c->max_abs) c->max_abs = d;
        if (fabs(r) > atol && d / fabs(r) > c->max_rel) c->max_rel = d / fabs(r);
        c->se += d * d;
        c->ref2 += r * r;
        if ((g == 0.0) != (r == 0.0)) c->zero_flip++;
        if (d > atol + rtol * fabs(r)) {
            c->bad++;
            if (show && c->shown < 3) {
                c->shown++;
                printf("#   %s sentence %d [%zu]: got %.9g, cpu %.9g (|d| %.3g)\n", what, sent, k, g, r, d);
            }
        }
    }
}

static void cmp_print(const struct cmp *c, const char *what)
{
    printf("#   %-9s %9zu values, %zu out of tolerance (%zu non-finite), max abs %.3g, max rel %.3g, NMSE %.3g\n", what, c->n,
           c->bad, c->nonfinite, c->max_abs, c->max_rel, c->ref2 > 0 ? c->se / c->ref2 : 0.0);
}

/* --perturb: in every sentence, one sentence-vector value, one token value and one attention
 * weight moved 3x their tolerance away, one sentence-vector value moved half its tolerance (must
 * not count), and in sentence 0 one token value set to NaN. Against an identical reference that
 * is nB values out of tolerance for sentences, nB + 1 (1 non-finite) for tokens, nB for maps. */
static int perturb;

static float shifted(float x, double k, double atol, double rtol) { return (float)(x + k * tol_scale * (atol + rtol * fabs(x))); }

static void perturb_outs(float *sent, float **tok, float **attn, const int *n, int b0, int nB, int dim, int dt)
{
    for (int b = 0; b < nB; b++) {
        float *v = sent + (size_t)b * dim;
        v[0] = shifted(v[0], 3, ATOL_VEC, RTOL_VEC);
        if (dim > 1) v[1] = shifted(v[1], 0.5, ATOL_VEC, RTOL_VEC);
        tok[b][0] = shifted(tok[b][0], 3, ATOL_VEC, RTOL_VEC);
        if (b0 + b == 0) tok[b][(size_t)n[b] * dt - 1] = NAN;
        attn[b][0] = shifted(attn[b][0], 3, ATOL_ATT, RTOL_ATT);
    }
}

/* ---- sentences ---- */

struct real { struct sp_sentence s; };

static int parse_file(const char *path, enum sp_format fmt, struct ing_batch *out)
{
    size_t len;
    char *buf = sp_read_file(path, &len, NULL, 0);
    if (!buf) return -1;
    int rc = ing_parse_chunk(fmt, SP_MODE_DEFAULT, buf, len, 1, 1, out, err, sizeof err);
    free(buf);   /* items live in the batch arena */
    return rc;
}

/* PTB-sample sentences that have both a dependency tree (.dp) and a constituency tree (.mrg) with
 * the same words: up to N_REAL_SHORT of <= 40 words, then the longest one */
static int load_real(const char *data, struct ing_batch *keep, struct real *out)
{
    int n_out = 0, have_long = 0;
    struct real longest;
    memset(&longest, 0, sizeof longest);
    for (int k = 1; k <= 60; k++) {
        char p1[4096], p2[4096];
        snprintf(p1, sizeof p1, "%s/ptb-sample/dependency/wsj_%04d.dp", data, k);
        snprintf(p2, sizeof p2, "%s/ptb-sample/combined/wsj_%04d.mrg", data, k);
        struct ing_batch *bd = &keep[2 * k], *bt = &keep[2 * k + 1];
        if (parse_file(p1, SP_FMT_DEP, bd) || parse_file(p2, SP_FMT_PTB, bt)) continue;
        for (int i = 0; i < bd->n_items && i < bt->n_items; i++) {
            const struct ing_item *a = &bd->item[i], *b = &bt->item[i];
            if (a->error || b->error || !a->s.head || !b->s.tree || a->s.n != b->s.n) continue;
            struct real r = { a->s };
            r.s.tree = b->s.tree;
            if (n_out < N_REAL_SHORT && r.s.n <= 40) out[n_out++] = r;
            else if (!have_long || r.s.n > longest.s.n) { longest = r; have_long = 1; }
        }
    }
    if (have_long) out[n_out++] = longest;
    return n_out;
}

/* ---- weights ---- */

/* x -> x(1 + 0.25u) + 0.02u' for every float of the safetensors data section (all F32) */
static int perturb_weights(const char *path, uint64_t seed)
{
    size_t len;
    char *buf = sp_read_file(path, &len, NULL, 0);
    if (!buf || len < 8) { free(buf); return -1; }
    uint64_t hl = 0;
    for (int k = 7; k >= 0; k--) hl = hl << 8 | (unsigned char)buf[k];
    if (8 + hl > len || (len - 8 - hl) % 4) { free(buf); return -1; }
    struct sp_rng r;
    sp_rng_seed(&r, seed);
    for (size_t off = 8 + hl; off < len; off += 4) {
        float x;
        memcpy(&x, buf + off, 4);
        double u1 = 2 * sp_rng_uniform(&r) - 1, u2 = 2 * sp_rng_uniform(&r) - 1;
        x = (float)(x * (1 + 0.25 * u1) + 0.02 * u2);
        memcpy(buf + off, &x, 4);
    }
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(buf, 1, len, f) == len;
    if (f && fclose(f)) ok = 0;
    free(buf);
    return ok ? 0 : -1;
}

/* ---- one config ---- */

struct outs { float *sent, **tok, **attn; };

static void outs_alloc(struct outs *o, const enc_t *e, const struct enc_sentence *s, int B)
{
    o->sent = sp_xcalloc((size_t)B * enc_dim(e), sizeof(float));
    o->tok = sp_xcalloc((size_t)B, sizeof(float *));
    o->attn = sp_xcalloc((size_t)B, sizeof(float *));
    for (int b = 0; b < B; b++) {
        o->tok[b] = sp_xcalloc((size_t)s[b].n * enc_tok_dim(e), sizeof(float));
        o->attn[b] = sp_xcalloc((size_t)s[b].n * s[b].n, sizeof(float));
    }
}

static void outs_free(struct outs *o, int B)
{
    for (int b = 0; b < B; b++) { free(o->tok[b]); free(o->attn[b]); }
    free(o->sent); free(o->tok); free(o->attn);
}

/* sentences [b0, b0+nb) in one call into o (indices of o are global); other = the side under
 * test (perturbed with --perturb); table: s are ids into it, a fixed table (a device keeps it) */
static int run_table(enc_t *e, const struct enc_sentence *s, int b0, int nb, int layer, struct outs *o, int other,
                     const float *table, int rows)
{
    struct enc_batch in = { nb, s + b0, table, rows, table != NULL };
    struct enc_output out = { o->sent + (size_t)b0 * enc_dim(e), o->tok + b0, o->attn + b0, layer };
    int rc = enc_forward(e, &in, &out, err, sizeof err);
    if (rc) printf("#   enc_forward on %s: %s\n", enc_backend_name(e), err);
    if (!rc && other && perturb) {
        int *n = sp_xmalloc(sizeof(int) * (size_t)nb);
        for (int b = 0; b < nb; b++) n[b] = s[b0 + b].n;
        perturb_outs(out.sent, out.tok, out.attn, n, b0, nb, enc_dim(e), enc_tok_dim(e));
        free(n);
    }
    return rc;
}

static int run(enc_t *e, const struct enc_sentence *s, int b0, int nb, int layer, struct outs *o, int other)
{
    return run_table(e, s, b0, nb, layer, o, other, NULL, 0);
}

/* s[0..nB) with their rows in one table (sentence after sentence) and ids into it instead: the
 * same input through the device table's gather (enc_batch.table_fixed) */
static struct enc_sentence *as_table(const struct enc_sentence *s, int nB, int din, float **table, int *rows)
{
    int n = 0;
    for (int b = 0; b < nB; b++) n += s[b].n;
    struct enc_sentence *t = sp_xmalloc(sizeof *t * (size_t)nB);
    float *tab = sp_xmalloc(sizeof(float) * (size_t)n * din);
    int32_t *ids = sp_xmalloc(sizeof(int32_t) * (size_t)n);
    for (int b = 0, r = 0; b < nB; r += s[b++].n) {
        t[b] = s[b];
        t[b].emb = NULL;
        t[b].ids = ids + r;
        for (int i = 0; i < s[b].n; i++) ids[r + i] = n - 1 - (r + i);        /* rows in reverse order */
        for (int i = 0; i < s[b].n; i++) memcpy(tab + (size_t)(n - 1 - (r + i)) * din, s[b].emb + (size_t)i * din, sizeof(float) * din);
    }
    *table = tab;
    *rows = n;
    return t;
}

static int test_config(const char *path, const char *tmp, const struct real *real, int n_real, int cpu_only, int *tap)
{
    struct enc_config cfg;
    if (enc_config_load(path, &cfg, err, sizeof err)) { printf("not ok %d - %s: %s\n", ++*tap, path, err); return 1; }
    const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    char wpath[4096];
    snprintf(wpath, sizeof wpath, "%s/%s.safetensors", tmp, name);
    enc_t *cpu = NULL, *gpu = NULL;
    if (enc_open(&cfg, ENC_DEVICE_CPU, NULL, 0, &cpu, err, sizeof err) || enc_save_weights(cpu, wpath, err, sizeof err)) {
        printf("not ok %d - %s: %s\n", ++*tap, name, err); enc_close(cpu); return 1;
    }
    enc_close(cpu);
    cpu = NULL;
    if (perturb_weights(wpath, cfg.seed + 1000)) { printf("not ok %d - %s: cannot rewrite %s\n", ++*tap, name, wpath); return 1; }
    if (enc_open(&cfg, ENC_DEVICE_CPU, wpath, 0, &cpu, err, sizeof err)
        || enc_open(&cfg, cpu_only ? ENC_DEVICE_CPU : ENC_DEVICE_CUDA, wpath, 0, &gpu, err, sizeof err)) {
        printf("not ok %d - %s: %s\n", ++*tap, name, err); enc_close(cpu); return 1;
    }
    remove(wpath);

    /* the batch: real sentences, then a 1-word sentence and a long synthetic chain */
    const int din = cfg.d_input, T = cfg.levels > 0 ? cfg.levels : 1;
    const int B = n_real + 2;
    struct enc_sentence *s = sp_xcalloc((size_t)B, sizeof *s);
    float **emb = sp_xcalloc((size_t)n_real, sizeof *emb);
    struct sp_arena arena;
    sp_arena_init(&arena);
    int B_ok = 0;
    for (int b = 0; b < n_real; b++) {
        struct sp_rng r;
        sp_rng_seed(&r, 7000 + (uint64_t)b);
        emb[b] = sp_xmalloc(sizeof(float) * (size_t)real[b].s.n * din);
        for (size_t k = 0; k < (size_t)real[b].s.n * din; k++) emb[b][k] = (float)(2 * sp_rng_uniform(&r) - 1);
        if (enc_sentence_prepare(cpu, &real[b].s, emb[b], NULL, &arena, &s[B_ok], err, sizeof err) == SP_OK) B_ok++;
        else printf("#   %s: sentence %d skipped: %s\n", name, b, err);
    }
    static const int one[1] = { -1 };
    int *chain = sp_xmalloc(sizeof(int) * LONG_N);
    for (int i = 0; i < LONG_N; i++) chain[i] = i - 1;
    struct fx_sent fx1, fxl;
    fx_make(&fx1, 1, one, din, 11, T);
    fx_make(&fxl, LONG_N, chain, din, 12, T);
    s[B_ok++] = fx1.s;
    s[B_ok++] = fxl.s;
    const int nB = B_ok;
    long tokens = 0;
    int maxn = 0;
    for (int b = 0; b < nB; b++) { tokens += s[b].n; if (s[b].n > maxn) maxn = s[b].n; }

    const int L = enc_attn_layers(cpu);
    int layers[2] = { 0, L - 1 }, n_layers = L > 1 ? 2 : 1;
    int failed = 0;
    for (int li = 0; li < n_layers; li++) {
        const int layer = layers[li];
        const int selective = cfg.kind == ENC_SSAN && cfg.selective[layer];
        struct outs ref, got, one_by_one;
        outs_alloc(&ref, cpu, s, nB);
        outs_alloc(&got, gpu, s, nB);
        outs_alloc(&one_by_one, gpu, s, nB);
        /* the side under test reads its rows from a fixed table by ids (a device gathers them) */
        float *tab;
        int tab_rows;
        struct enc_sentence *st = as_table(s, nB, din, &tab, &tab_rows);
        int rc = run(cpu, s, 0, nB, layer, &ref, 0) || run_table(gpu, st, 0, nB, layer, &got, 1, tab, tab_rows);
        free((void *)st[0].ids); free(st); free(tab);
        for (int b = 0; !rc && li == n_layers - 1 && b < nB; b++) rc = run(gpu, s, b, 1, layer, &one_by_one, 1);
        if (rc) { printf("not ok %d - %s layer %d: enc_forward failed\n", ++*tap, name, layer); failed = 1; goto next; }
        struct cmp cs = { 0 }, ct = { 0 }, ca = { 0 }, c1 = { 0 };
        int affected = 0, affected1 = 0;
        const int dim = enc_dim(cpu), dt = enc_tok_dim(cpu);
        for (int b = 0; b < nB; b++) {
            size_t before = cs.bad + ct.bad + ca.bad;
            cmp_add(&cs, "sentence", b, got.sent + (size_t)b * dim, ref.sent + (size_t)b * dim, (size_t)dim, ATOL_VEC, RTOL_VEC, 1);
            cmp_add(&ct, "tokens", b, got.tok[b], ref.tok[b], (size_t)s[b].n * dt, ATOL_VEC, RTOL_VEC, 1);
            cmp_add(&ca, "attention", b, got.attn[b], ref.attn[b], (size_t)s[b].n * s[b].n, ATOL_ATT, RTOL_ATT, 1);
            if (cs.bad + ct.bad + ca.bad > before) affected++;
            if (li == n_layers - 1) {
                before = c1.bad;
                cmp_add(&c1, "1-by-1", b, one_by_one.sent + (size_t)b * dim, ref.sent + (size_t)b * dim, (size_t)dim, ATOL_VEC, RTOL_VEC, 1);
                cmp_add(&c1, "1-by-1", b, one_by_one.tok[b], ref.tok[b], (size_t)s[b].n * dt, ATOL_VEC, RTOL_VEC, 1);
                cmp_add(&c1, "1-by-1", b, one_by_one.attn[b], ref.attn[b], (size_t)s[b].n * s[b].n, ATOL_ATT, RTOL_ATT, 1);
                if (c1.bad > before) affected1++;
            }
        }
        /* the batch repeated past several groups, compared with the same reference */
        struct cmp cm = { 0 };
        int affected_m = 0, multi = li == n_layers - 1 && cfg.d_model <= MULTI_MAX_D;
        if (multi) {
            const int R = (int)(MULTI_TOKENS / tokens) + 1, nR = R * nB;
            struct enc_sentence *rep = sp_xcalloc((size_t)nR, sizeof *rep);
            for (int b = 0; b < nR; b++) rep[b] = s[b % nB];
            struct outs mo;
            outs_alloc(&mo, gpu, rep, nR);
            if (run(gpu, rep, 0, nR, layer, &mo, 1)) { cm.bad++; cm.nonfinite++; affected_m = nR; }
            else
                for (int b = 0; b < nR; b++) {
                    const int r = b % nB;
                    size_t before = cm.bad;
                    cmp_add(&cm, "groups", b, mo.sent + (size_t)b * dim, ref.sent + (size_t)r * dim, (size_t)dim, ATOL_VEC, RTOL_VEC, 1);
                    cmp_add(&cm, "groups", b, mo.tok[b], ref.tok[r], (size_t)s[r].n * dt, ATOL_VEC, RTOL_VEC, 1);
                    cmp_add(&cm, "groups", b, mo.attn[b], ref.attn[r], (size_t)s[r].n * s[r].n, ATOL_ATT, RTOL_ATT, 1);
                    if (cm.bad > before) affected_m++;
                }
            printf("#   multi-group batch: %d copies of the batch, %ld tokens\n", R, R * tokens);
            outs_free(&mo, nR);
            free(rep);
        }
        int ok;
        if (cfg.kind == ENC_SSAN) {
            const int allowed = nB / 10 > 1 ? nB / 10 : 1;
            ok = affected <= allowed && affected1 <= allowed && affected_m <= (multi ? (int)(MULTI_TOKENS / tokens + 1) * allowed : 0);
            printf("#   SSAN: %d/%d sentences out of tolerance in the batch, %d one by one (suspected selection flips; allowed %d)",
                   affected, nB, affected1, allowed);
            if (selective) printf("; %zu zero/non-zero disagreements in this selective layer's map", ca.zero_flip);
            printf("\n");
        } else {
            ok = cs.bad == 0 && ct.bad == 0 && ca.bad == 0 && c1.bad == 0 && cm.bad == 0;
        }
        if (cs.nonfinite + ct.nonfinite + ca.nonfinite + c1.nonfinite + cm.nonfinite) ok = 0;
        printf("%s %d - %s (%s) layer %d: %d sentences, %ld tokens, longest %d\n", ok ? "ok" : "not ok", ++*tap, name,
               enc_kind_name(cfg.kind), layer, nB, tokens, maxn);
        cmp_print(&cs, "sentence");
        cmp_print(&ct, "tokens");
        cmp_print(&ca, "attention");
        if (li == n_layers - 1) cmp_print(&c1, "1-by-1");
        if (multi) cmp_print(&cm, "groups");
        if (!ok) failed = 1;
    next:
        outs_free(&ref, nB); outs_free(&got, nB); outs_free(&one_by_one, nB);
    }
    for (int b = 0; b < n_real; b++) free(emb[b]);
    free(emb); free(s); free(chain);
    fx_free(&fx1); fx_free(&fxl);
    sp_arena_free(&arena);
    enc_close(cpu); enc_close(gpu);
    return failed;
}

int main(int argc, char **argv)
{
    int a = 1, cpu_only = 0;
    if (a < argc && !strcmp(argv[a], "--cpu-vs-cpu")) { cpu_only = 1; a++; }
    if (cpu_only && a < argc && !strcmp(argv[a], "--perturb")) { perturb = 1; a++; }
    if (argc - a < 3) { fprintf(stderr, "usage: encoder_cuda_vs_cpu [--cpu-vs-cpu [--perturb]] DATA_DIR TMP_DIR CONFIG.json...\n"); return 2; }
    const char *data = argv[a], *tmp = argv[a + 1];
    const char *ts = getenv("SP_GPU_TOL_SCALE");
    if (ts && atof(ts) > 0) tol_scale = atof(ts);

    /* is there a device? (through the public API, as every caller finds out) */
    if (!cpu_only) {
        struct enc_config c;
        enc_t *e = NULL;
        int rc = enc_config_parse("{\"kind\":\"san\",\"d_model\":8,\"heads\":2,\"layers\":1}", "probe.json", &c, err, sizeof err);
        if (!rc) rc = enc_open(&c, ENC_DEVICE_CUDA, NULL, 0, &e, err, sizeof err);
        if (rc) {
            const char *req = getenv("SP_GPU_REQUIRED");
            if (req && !strcmp(req, "1")) { printf("not ok 1 - a GPU is present but the CUDA encoder did not open: %s\n", err); return 1; }
            printf("SKIP: no CUDA device (%s)\n", err);
            return 0;
        }
        if (strcmp(enc_backend_name(e), "cuda")) { printf("not ok 1 - ENC_DEVICE_CUDA opened backend %s\n", enc_backend_name(e)); return 1; }
        enc_close(e);
    } else {
        printf("# --cpu-vs-cpu: harness self-check, the CPU backend on both sides%s\n",
               perturb ? ", the second one's outputs perturbed (every config must fail)" : "");
    }

    struct ing_batch keep[2 * 61 + 2];
    for (size_t k = 0; k < sizeof keep / sizeof keep[0]; k++) ing_batch_init(&keep[k]);
    struct real real[N_REAL_SHORT + 1];
    int n_real = load_real(data, keep, real);
    if (n_real == 0) printf("# SKIP real sentences: none readable under %s/ptb-sample (synthetic ones only)\n", data);
    else {
        int mx = 0;
        for (int b = 0; b < n_real; b++) if (real[b].s.n > mx) mx = real[b].s.n;
        printf("# %d PTB-sample sentences (longest %d words) + a 1-word and a %d-word synthetic sentence\n", n_real, mx, LONG_N);
    }

    int tap = 0, failed = 0;
    for (int k = a + 2; k < argc; k++) failed += test_config(argv[k], tmp, real, n_real, cpu_only, &tap);
    for (size_t k = 0; k < sizeof keep / sizeof keep[0]; k++) ing_batch_free(&keep[k]);
    printf("1..%d\n# encoder %s vs cpu: %d config(s) failed\n", tap, cpu_only ? "cpu" : "cuda", failed);
    return failed ? 1 : 0;
}
