/* tests/unit/encoder_attn_plain.c — the CPU backend's attention of BERT's plain heads (no mask,
 * prior, selector or bucket), which takes a path of its own on AVX-512 (enc_cpu.c,
 * attention_plain_avx512), against an independent scalar reference of the contract it keeps:
 * S[i][j] one fmaf chain over k = 0..dk-1 from +0 of q[i][k]·k[j][k]; per row f = S·scale, m =
 * max, f = sp_exp_nonpos(f - m), z = Σ_j f in key order, P = f·(1/z); out[i][c] one fmaf chain
 * over j = 0..n-1 from +0 of P[i][j]·v[j][c]. Expected: the same bytes from the default kernel,
 * from SP_GEMM_KERNEL's others (the GEMM path), for sentences batched on 2 threads, and the
 * per-sentence reference — for n across the row-block edges (1, 7, 8, 9, 15, 16, 17, 33, 100)
 * and dk 16, 32, 64; and the same with MPNet's additive position bias (f = S·scale + B[clip(j −
 * i) + clip][h], clip 5, a table with one column more than the heads): the same contract. */
#include "common/gemm.h"
#include "encoder/encoder_int.h"
#include "encoder/enc_formulas.h"
#include "tests/unit/t_harness.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static struct enc_backend be;

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static float urand(void)
{
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return (float)((rng >> 40) & 0xffffff) / 16777216.0f * 4.0f - 2.0f;
}

#define PB_CLIP 5
#define PB_LD 4                                 /* H + 1 columns: the table's stride is its own */
static float pb_tab[(2 * PB_CLIP + 1) * PB_LD];

static void reference(int n, int H, int dk, const float *qkv, int ld, float scale, const float *pb, float *out)
{
    float *S = malloc(sizeof(float) * (size_t)n * n);
    for (int h = 0; h < H; h++) {
        const float *q = qkv + h * dk, *k = qkv + H * dk + h * dk, *v = qkv + 2 * H * dk + h * dk;
        for (int i = 0; i < n; i++) {
            float *f = S + (size_t)i * n, m = -INFINITY, z = 0.0f;
            for (int j = 0; j < n; j++) {
                float acc = 0.0f;
                for (int t = 0; t < dk; t++) acc = fmaf(q[(size_t)i * ld + t], k[(size_t)j * ld + t], acc);
                f[j] = pb ? acc * scale + pb[(size_t)enc_f_rel_bucket(j - i, PB_CLIP) * PB_LD + h] : acc * scale;
                if (f[j] > m) m = f[j];
            }
            for (int j = 0; j < n; j++) f[j] = sp_exp_nonpos(f[j] - m);
            for (int j = 0; j < n; j++) z += f[j];
            const float iz = 1.0f / z;
            for (int j = 0; j < n; j++) f[j] = f[j] * iz;
            for (int c = 0; c < dk; c++) {
                float acc = 0.0f;
                for (int j = 0; j < n; j++) acc = fmaf(f[j], v[(size_t)j * ld + c], acc);
                out[(size_t)i * H * dk + h * dk + c] = acc;
            }
        }
    }
    free(S);
}

static const float *pb_on;                      /* the bias of this pass (NULL: none) */

static void args_for(struct enc_attn_args *a, int n, int H, int dk, const float *qkv, float *out)
{
    memset(a, 0, sizeof *a);
    if (pb_on) { a->pos_bias = pb_on; a->pos_clip = PB_CLIP; a->pos_ld = PB_LD; }
    a->n = n; a->H = H; a->dk = dk; a->ld_qkv = 3 * H * dk;
    a->q = qkv; a->k = qkv + H * dk; a->v = qkv + 2 * H * dk;
    a->out = out; a->scale = 1.0f / sqrtf((float)dk);
}

int main(void)
{
    char err[256];
    if (enc_cpu_ops.open(&be, err, sizeof err) != SP_OK) { printf("%s\n", err); return 1; }
    be.ops = &enc_cpu_ops;
    static const int ns[] = { 1, 7, 8, 9, 15, 16, 17, 33, 100 };
    static const int dks[] = { 16, 32, 64 };
    const int NS = (int)(sizeof ns / sizeof ns[0]), H = 3;
    printf("# default GEMM kernel: %s\n", sp_gemm_kernel());
    for (size_t t = 0; t < sizeof pb_tab / sizeof pb_tab[0]; t++) pb_tab[t] = urand();
    for (int pass = 0; pass < 6; pass++) {
        const int di = pass % 3, dk = dks[di], ld = 3 * H * dk;
        pb_on = pass >= 3 ? pb_tab : NULL;
        float *qkv[9], *want[9], *got[9];
        struct enc_attn_args a[9];
        int bad_ref = 0, bad_kernel = 0, bad_batch = 0;
        for (int s = 0; s < NS; s++) {
            const int n = ns[s];
            qkv[s] = malloc(sizeof(float) * (size_t)n * ld);
            for (size_t t = 0; t < (size_t)n * ld; t++) qkv[s][t] = urand();
            want[s] = malloc(sizeof(float) * (size_t)n * H * dk);
            got[s] = malloc(sizeof(float) * (size_t)n * H * dk);
            reference(n, H, dk, qkv[s], ld, 1.0f / sqrtf((float)dk), pb_on, want[s]);
            /* one sentence a call, on the calling thread, with each kernel the CPU runs */
            static const char *kn[] = { "avx512", "avx2", "c" };
            for (int k = 0; k < 3; k++) {
                if (sp_gemm_use_kernel(kn[k])) continue;
                memset(got[s], 0xff, sizeof(float) * (size_t)n * H * dk);
                args_for(&a[s], n, H, dk, qkv[s], got[s]);
                enc_cpu_ops.attention(&be, 1, &a[s]);
                if (memcmp(got[s], want[s], sizeof(float) * (size_t)n * H * dk)) {
                    printf("# dk %d, n %d, kernel %s: not the reference's bytes\n", dk, n, kn[k]);
                    if (k == 0) bad_ref++; else bad_kernel++;
                }
            }
        }
        /* all sentences in one call on 2 threads, the default kernel */
        sp_gemm_use_kernel(getenv("SP_GEMM_KERNEL") && *getenv("SP_GEMM_KERNEL") ? getenv("SP_GEMM_KERNEL") : "avx512");
        sp_gemm_set_threads(2);
        for (int s = 0; s < NS; s++) { memset(got[s], 0xff, sizeof(float) * (size_t)ns[s] * H * dk); args_for(&a[s], ns[s], H, dk, qkv[s], got[s]); }
        enc_cpu_ops.attention(&be, NS, a);
        for (int s = 0; s < NS; s++)
            if (memcmp(got[s], want[s], sizeof(float) * (size_t)ns[s] * H * dk)) { printf("# dk %d, n %d, batched on 2 threads: differs\n", dk, ns[s]); bad_batch++; }
        sp_gemm_set_threads(1);
        printf("# dk %d%s: reference vs AVX-512 kernel, vs the others, batched\n", dk, pb_on ? ", position bias" : "");
        T_EQ_INT(bad_ref, 0);
        T_EQ_INT(bad_kernel, 0);
        T_EQ_INT(bad_batch, 0);
        for (int s = 0; s < NS; s++) { free(qkv[s]); free(want[s]); free(got[s]); }
    }
    enc_cpu_ops.close(&be);
    return T_DONE();
}
