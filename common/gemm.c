/* common/gemm.c — see gemm.h for the contract (one FMA chain per element, k in order).
 *
 * How it works (BLIS-style blocking, B already packed):
 *   the product is cut into items of at most MC rows (the micro-panels shared out evenly, as many
 *   items as a multiple of the threads) × a range of NR-column panels; an item fills its block of
 *   Y with the initial values, then for each block of KC k-values packs its rows of X into
 *   micro-panels of MR rows ([k][MR], zero rows past M) and runs the micro-kernel on every
 *   (micro-panel, panel) pair, micro-panel outer: an MR × NR tile of accumulators loaded from Y,
 *   a chain of KC FMAs per element, stored back. Tiles cut by M or N go through a zero-padded
 *   copy, so they run the same instructions as full ones. Items own disjoint blocks of Y, so
 *   threads may take them in any order.
 * Kernels: AVX-512 (14 × 32: 28 zmm accumulators), AVX2+FMA (6 × 16 twice: 12 ymm), plain C
 * (4 × 32, fmaf); picked once from the CPU, or by $SP_GEMM_KERNEL for tests and benchmarks. */
#include "common/gemm.h"
#include "common/pool.h"
#include "common/sp.h"

#include <cblas.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define GEMM_X86 1
#include <cpuid.h>
#include <immintrin.h>
#endif

#if defined(__clang__)
#define UNROLL _Pragma("unroll")
#else
#define UNROLL _Pragma("GCC unroll 16")
#endif

#define NR SP_GEMM_NR
#define MAX_MR 16

struct kernel {
    const char *name;
    int mr, mc, kc;            /* micro-panel rows, rows per item (a multiple of mr), k per block */
    /* mr × NR: C = init + A·B; init = the rows of In (stride ldi: 0 repeats one row, the bias)
     * or, In NULL, C's own values */
    void (*tile)(int kc, const float *A, const float *B, float *C, int ldc, const float *In, int ldi);
};

/* ---- kernels: C[i][j] = fmaf(A[k][i], B[k][j], C[i][j]) for k = 0..kc-1 ---- */

static void tile_c(int kc, const float *A, const float *B, float *C, int ldc, const float *In, int ldi)
{
    float c[4][NR];
    for (int i = 0; i < 4; i++) memcpy(c[i], In ? In + (size_t)i * ldi : C + (size_t)i * ldc, sizeof c[i]);
    for (int k = 0; k < kc; k++, A += 4, B += NR)
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < NR; j++) c[i][j] = fmaf(A[i], B[j], c[i][j]);
    for (int i = 0; i < 4; i++) memcpy(C + (size_t)i * ldc, c[i], sizeof c[i]);
}

#ifdef GEMM_X86
#define MR512 14
__attribute__((target("avx512f")))
static void tile_avx512(int kc, const float *A, const float *B, float *C, int ldc, const float *In, int ldi)
{
    __m512 c0[MR512], c1[MR512];
    if (!In) { In = C; ldi = ldc; }
    UNROLL
    for (int i = 0; i < MR512; i++) {
        c0[i] = _mm512_loadu_ps(In + (size_t)i * ldi);
        c1[i] = _mm512_loadu_ps(In + (size_t)i * ldi + 16);
    }
    for (int k = 0; k < kc; k++, A += MR512, B += NR) {
        /* 16 k ahead: the panel (kc·NR floats, 48 KiB at kc 384) does not stay in L1 beside the
         * micro-panels; +4-6% per CPU-second on MiniLM's forward (Sapphire Rapids, interleaved) */
        _mm_prefetch((const char *)(B + 16 * NR), _MM_HINT_T0);
        _mm_prefetch((const char *)(B + 16 * NR + 16), _MM_HINT_T0);
        _mm_prefetch((const char *)(A + 16 * MR512), _MM_HINT_T0);
        const __m512 b0 = _mm512_load_ps(B), b1 = _mm512_load_ps(B + 16);
        UNROLL
        for (int i = 0; i < MR512; i++) {
            const __m512 a = _mm512_set1_ps(A[i]);
            c0[i] = _mm512_fmadd_ps(a, b0, c0[i]);
            c1[i] = _mm512_fmadd_ps(a, b1, c1[i]);
        }
    }
    UNROLL
    for (int i = 0; i < MR512; i++) {
        _mm512_storeu_ps(C + (size_t)i * ldc, c0[i]);
        _mm512_storeu_ps(C + (size_t)i * ldc + 16, c1[i]);
    }
}

#define MR256 6
__attribute__((target("avx2,fma")))
static void tile_avx2(int kc, const float *A, const float *B, float *C, int ldc, const float *In, int ldi)
{
    if (!In) { In = C; ldi = ldc; }
    for (int h = 0; h < NR; h += 16) {           /* the panel in two halves of 16 columns */
        __m256 c0[MR256], c1[MR256];
        UNROLL
        for (int i = 0; i < MR256; i++) {
            c0[i] = _mm256_loadu_ps(In + (size_t)i * ldi + h);
            c1[i] = _mm256_loadu_ps(In + (size_t)i * ldi + h + 8);
        }
        const float *a = A, *b = B + h;
        for (int k = 0; k < kc; k++, a += MR256, b += NR) {
            const __m256 b0 = _mm256_load_ps(b), b1 = _mm256_load_ps(b + 8);
            UNROLL
            for (int i = 0; i < MR256; i++) {
                const __m256 av = _mm256_broadcast_ss(a + i);
                c0[i] = _mm256_fmadd_ps(av, b0, c0[i]);
                c1[i] = _mm256_fmadd_ps(av, b1, c1[i]);
            }
        }
        UNROLL
        for (int i = 0; i < MR256; i++) {
            _mm256_storeu_ps(C + (size_t)i * ldc + h, c0[i]);
            _mm256_storeu_ps(C + (size_t)i * ldc + h + 8, c1[i]);
        }
    }
}
#endif

static const struct kernel kernels[] = {
#ifdef GEMM_X86
    { "avx512", MR512, 8 * MR512, 384, tile_avx512 },
    { "avx2", MR256, 8 * MR256, 384, tile_avx2 },     /* kc 384: 3-4% over 256 on encoder shapes (AVX2 EPYC) */
#endif
    { "c", 4, 64, 256, tile_c },
};
#define N_KERNELS (int)(sizeof kernels / sizeof kernels[0])

static int cpu_runs(const char *name)
{
#ifdef GEMM_X86
    __builtin_cpu_init();
    if (!strcmp(name, "avx512")) return __builtin_cpu_supports("avx512f");
    if (!strcmp(name, "avx2")) return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#endif
    return !strcmp(name, "c");
}

/* ---- settings: per thread ----
 *
 * The threads, the implementation and the kernel belong to the thread that sets them, not to the
 * process: a stage sets them for itself on its own thread (stages/stage.h: nothing in a stage is
 * process-wide), so two stages running side by side in one process, each on its thread, keep
 * their own (tests/unit/common_gemm.c checks it). A thread that sets nothing gets the defaults: one
 * thread, the own path, the best kernel the CPU runs (or $SP_GEMM_KERNEL). A thread's pool is its
 * own too, freed when the thread ends. The workers of a pool run with the defaults, so a product
 * inside a parallel item runs on that item's thread (the kernel of a product is the caller's: the
 * job carries it). One thing stays process-wide because OpenBLAS has one: the thread count of
 * its own pool, which the BLAS path sets before each product from the calling thread's setting. */

static const struct kernel *g_kernel;                      /* the default kernel */
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static pthread_key_t g_abuf_key;                           /* per-thread packed-X buffer */
static pthread_key_t g_pool_key;                           /* frees a thread's pool when it ends */

struct settings {
    int threads;                 /* 1: every product on the calling thread */
    int impl;                    /* enum sp_gemm_impl */
    const struct kernel *kn;     /* NULL: the default */
    struct sp_pool *pool;        /* threads - 1 workers beside the caller, or NULL */
};
static _Thread_local struct settings t_set = { 1, SP_GEMM_OWN, NULL, NULL };

struct abuf { size_t cap; float *p; };
static void abuf_free(void *v) { struct abuf *b = v; if (b) { free(b->p); free(b); } }
static void pool_free(void *v) { sp_pool_free(v); }

static void init_once(void)
{
    pthread_key_create(&g_abuf_key, abuf_free);
    pthread_key_create(&g_pool_key, pool_free);
    const char *want = getenv("SP_GEMM_KERNEL");
    for (int i = 0; i < N_KERNELS && !g_kernel; i++)
        if ((!want || !*want || !strcmp(want, kernels[i].name)) && cpu_runs(kernels[i].name)) g_kernel = &kernels[i];
    if (!g_kernel) g_kernel = &kernels[N_KERNELS - 1];   /* an unknown or unrunnable name: plain C */
}

static const struct kernel *kernel(void)
{
    pthread_once(&g_once, init_once);
    return t_set.kn ? t_set.kn : g_kernel;
}

const char *sp_gemm_kernel(void) { return kernel()->name; }

int sp_gemm_use_kernel(const char *name)
{
    kernel();
    for (int i = 0; i < N_KERNELS; i++)
        if (!strcmp(name, kernels[i].name) && cpu_runs(name)) { t_set.kn = &kernels[i]; return 0; }
    return -1;
}

void sp_gemm_set_impl(enum sp_gemm_impl impl) { t_set.impl = impl == SP_GEMM_BLAS ? SP_GEMM_BLAS : SP_GEMM_OWN; }

enum sp_gemm_impl sp_gemm_get_impl(void) { return (enum sp_gemm_impl)t_set.impl; }

int sp_gemm_impl_parse(const char *name)
{
    return !strcmp(name, "own") ? SP_GEMM_OWN : !strcmp(name, "blas") ? SP_GEMM_BLAS : -1;
}

const char *sp_gemm_impl_name(enum sp_gemm_impl impl) { return impl == SP_GEMM_BLAS ? "blas" : "own"; }

void sp_gemm_set_threads(int n)
{
    if (n < 1) n = 1;
    if (n == t_set.threads) return;
    kernel();
    sp_pool_free(t_set.pool);
    t_set.pool = n > 1 ? sp_pool_new(n) : NULL;
    t_set.threads = n;
    pthread_setspecific(g_pool_key, t_set.pool);
}

int sp_gemm_threads(void) { return t_set.threads; }

void sp_gemm_parallel(int n, sp_pool_fn fn, void *arg, int max_workers)
{
    if (n <= 0) return;
    struct sp_pool *pool = t_set.pool;
    if (n > 1 && pool && sp_pool_size(pool) <= max_workers && sp_pool_try_run(pool, n, fn, arg)) return;
    for (int i = 0; i < n; i++) fn(arg, i, 0);
}

static float *thread_abuf(size_t floats)
{
    struct abuf *b = pthread_getspecific(g_abuf_key);
    if (!b) { b = sp_xcalloc(1, sizeof *b); pthread_setspecific(g_abuf_key, b); }
    if (b->cap < floats) { free(b->p); b->p = sp_gemm_alloc(floats); b->cap = floats; }
    return b->p;
}

/* ---- packing ---- */

float *sp_gemm_alloc(size_t floats)
{
    size_t bytes = (floats * sizeof(float) + 63) & ~(size_t)63;
    float *p = aligned_alloc(64, bytes ? bytes : 64);
    if (!p) { fprintf(stderr, "synprobe: out of memory (%zu bytes)\n", bytes); abort(); }
    return p;
}

size_t sp_gemm_packed_floats(int K, int N)
{
    size_t panels = (size_t)(N + NR - 1) / NR;
    return panels * (size_t)(K > 0 ? K : 0) * NR;
}

void sp_gemm_pack(struct sp_gemm_b *b, int K, int N, const float *W, int ldw, int trans, float *buf)
{
    memset(b, 0, sizeof *b);
    b->K = K; b->N = N; b->p = buf;
    b->w = W; b->ldw = ldw; b->trans = trans;
    for (int p0 = 0; p0 < N; p0 += NR) {
        float *dst = buf + (size_t)(p0 / NR) * K * NR;
        int w = N - p0 < NR ? N - p0 : NR;
        for (int k = 0; k < K; k++, dst += NR) {
            if (!trans) memcpy(dst, W + (size_t)k * ldw + p0, sizeof(float) * w);
            else for (int j = 0; j < w; j++) dst[j] = W[(size_t)(p0 + j) * ldw + k];
            for (int j = w; j < NR; j++) dst[j] = 0.0f;
        }
    }
}

size_t sp_gemm_packed_bytes(int K, int N, int dtype)
{
    return sp_gemm_packed_floats(K, N) * (dtype == SP_GEMM_F32 ? sizeof(float) : sizeof(uint16_t));
}

/* IEEE half -> float, exact (subnormals, infinities and NaN included) */
static float half_to_float(uint16_t h)
{
    const uint32_t sign = (uint32_t)(h >> 15) << 31, ex = (h >> 10) & 0x1f, man = h & 0x3ff;
    uint32_t bits;
    if (ex == 0x1f) bits = sign | 0x7f800000u | (man << 13);
    else if (ex) bits = sign | ((ex + 112) << 23) | (man << 13);
    else {
        float v = ldexpf((float)man, -24);
        memcpy(&bits, &v, 4);
        bits |= sign;
    }
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

#ifdef GEMM_X86
__attribute__((target("avx,f16c"), noinline))
static void widen_f16c(const uint16_t *src, float *dst, size_t n)
{
    for (size_t b = n / 8; b > 0; b--, src += 8, dst += 8)
        _mm256_storeu_ps(dst, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)src)));
    for (size_t r = n % 8; r > 0; r--) *dst++ = half_to_float(*src++);
}
#endif

void sp_gemm_widen(int dtype, const uint16_t *src, float *dst, size_t n)
{
    if (dtype == SP_GEMM_BF16) {
        uint32_t *d = (uint32_t *)(void *)dst;
        for (size_t i = 0; i < n; i++) d[i] = (uint32_t)src[i] << 16;
        return;
    }
#ifdef GEMM_X86
    static _Atomic int f16c = -1;      /* the F16C instruction is exact too (IEEE conversion) */
    int has = atomic_load_explicit(&f16c, memory_order_relaxed);
    if (has < 0) {
        __builtin_cpu_init();
        /* F16C from CPUID.1:ECX bit 29 (clang 14's __builtin_cpu_supports does not know "f16c");
         * "avx" also says the OS saves the registers */
        unsigned a, b, c, d;
        has = __builtin_cpu_supports("avx") && __get_cpuid(1, &a, &b, &c, &d) && (c & (1u << 29));
        atomic_store_explicit(&f16c, has, memory_order_relaxed);
    }
    if (has) { widen_f16c(src, dst, n); return; }
#endif
    for (size_t i = 0; i < n; i++) dst[i] = half_to_float(src[i]);
}

void sp_gemm_pack_parts(struct sp_gemm_b *b, int K, int N, const struct sp_gemm_part *parts, int n_parts, int dtype,
                        void *buf)
{
    memset(b, 0, sizeof *b);
    b->K = K; b->N = N; b->dtype = dtype;
    if (dtype == SP_GEMM_F32) b->p = buf;
    else b->h = buf;
    float *pf = buf;
    uint16_t *ph = buf;
    memset(buf, 0, sp_gemm_packed_bytes(K, N, dtype));      /* the padding columns */
    int j0 = 0;
    for (int q = 0; q < n_parts; j0 += parts[q].cols, q++) {
        const struct sp_gemm_part *P = &parts[q];
        SP_ASSERT(dtype == SP_GEMM_F32 || P->dtype == dtype);
        const float *wf = P->w;
        const uint16_t *wh = P->w;
        for (int j = 0; j < P->cols; j++) {
            const int c = j0 + j;
            const size_t base = (size_t)(c / NR) * K * NR + c % NR;
            for (int k = 0; k < K; k++) {
                const size_t at = P->trans ? (size_t)j * P->ldw + k : (size_t)k * P->ldw + j;
                const size_t to = base + (size_t)k * NR;
                if (dtype != SP_GEMM_F32) ph[to] = wh[at];
                else if (P->dtype == SP_GEMM_F32) pf[to] = wf[at];
                else if (P->dtype == SP_GEMM_BF16) { const uint32_t bits = (uint32_t)wh[at] << 16; memcpy(pf + to, &bits, 4); }
                else pf[to] = half_to_float(wh[at]);
            }
        }
    }
    SP_ASSERT(j0 == N);
}

#ifdef GEMM_X86
/* a full AVX-512 micro-panel (14 rows) in 16×16 blocks transposed in registers: the scalar
 * loop below stored one float at a time (5% of a MiniLM forward). Only moves data. */
__attribute__((target("avx512f")))
static void pack14_avx512(float *dst, const float *const *x, int kc)
{
    int k = 0;
    for (; k + 16 <= kc; k += 16) {
        __m512 r[16], t[16], u[4][4];
        for (int i = 0; i < MR512; i++) r[i] = _mm512_loadu_ps(x[i] + k);
        for (int i = MR512; i < 16; i++) r[i] = _mm512_setzero_ps();
        for (int i = 0; i < 8; i++) {                 /* per 128-bit lane: rows 2i, 2i+1 interleaved */
            t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
            t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
        }
        for (int g = 0; g < 4; g++) {                 /* u[g][j], lane L: rows 4g..4g+3 at k + 4L + j */
            u[g][0] = _mm512_castpd_ps(_mm512_unpacklo_pd(_mm512_castps_pd(t[4 * g]), _mm512_castps_pd(t[4 * g + 2])));
            u[g][1] = _mm512_castpd_ps(_mm512_unpackhi_pd(_mm512_castps_pd(t[4 * g]), _mm512_castps_pd(t[4 * g + 2])));
            u[g][2] = _mm512_castpd_ps(_mm512_unpacklo_pd(_mm512_castps_pd(t[4 * g + 1]), _mm512_castps_pd(t[4 * g + 3])));
            u[g][3] = _mm512_castpd_ps(_mm512_unpackhi_pd(_mm512_castps_pd(t[4 * g + 1]), _mm512_castps_pd(t[4 * g + 3])));
        }
        for (int j = 0; j < 4; j++) {                 /* 128-bit lanes transposed: column k + 4L + j */
            const __m512 v0 = _mm512_shuffle_f32x4(u[0][j], u[1][j], 0x44), v1 = _mm512_shuffle_f32x4(u[0][j], u[1][j], 0xEE);
            const __m512 v2 = _mm512_shuffle_f32x4(u[2][j], u[3][j], 0x44), v3 = _mm512_shuffle_f32x4(u[2][j], u[3][j], 0xEE);
            _mm512_mask_storeu_ps(dst + (size_t)(k + j) * MR512, 0x3fff, _mm512_shuffle_f32x4(v0, v2, 0x88));
            _mm512_mask_storeu_ps(dst + (size_t)(k + 4 + j) * MR512, 0x3fff, _mm512_shuffle_f32x4(v0, v2, 0xDD));
            _mm512_mask_storeu_ps(dst + (size_t)(k + 8 + j) * MR512, 0x3fff, _mm512_shuffle_f32x4(v1, v3, 0x88));
            _mm512_mask_storeu_ps(dst + (size_t)(k + 12 + j) * MR512, 0x3fff, _mm512_shuffle_f32x4(v1, v3, 0xDD));
        }
    }
    for (; k < kc; k++)
        for (int i = 0; i < MR512; i++) dst[(size_t)k * MR512 + i] = x[i][k];
}

/* a full micro-panel of Aᵀ given by rows (A[i][k] = rows[k][c + i]): each k's 14 values are
 * contiguous, one masked load and one masked store (the constant-size memcpy was four of each:
 * 6% of a structural probe's training). Only moves data. */
__attribute__((target("avx512f")))
static void pack14t_avx512(float *dst, const float *const *rows, int c, int kc)
{
    int k = 0;
    for (; k + 16 < kc; k++) {      /* the rows are scattered: their lines fetched 16 rows ahead */
        _mm_prefetch((const char *)(rows[k + 16] + c), _MM_HINT_T0);
        _mm_prefetch((const char *)(rows[k + 16] + c + MR512 - 1), _MM_HINT_T0);
        _mm512_mask_storeu_ps(dst + (size_t)k * MR512, 0x3fff, _mm512_maskz_loadu_ps(0x3fff, rows[k] + c));
    }
    for (; k < kc; k++)
        _mm512_mask_storeu_ps(dst + (size_t)k * MR512, 0x3fff, _mm512_maskz_loadu_ps(0x3fff, rows[k] + c));
}
#endif

/* rows [i0, i0+rows) and columns [k0, k0+kc) of A -> micro-panels [ceil(rows/mr)][kc][mr], rows
 * past `rows` zero; k outer, so the stores are contiguous (rows inner was 10% of an encoder
 * forward). A is X (ldx) when a is NULL, else a's rows or their transpose. */
static void pack_x(float *dst, const float *X, int ldx, const struct sp_gemm_a *a, int i0, int k0, int rows, int kc, int mr,
                   int avx512)
{
    for (int r0 = 0; r0 < rows; r0 += mr, dst += (size_t)kc * mr) {
        int h = rows - r0 < mr ? rows - r0 : mr;
        if (a && a->trans) {            /* A[i][k] = rows[k][off + i]: each k's h values are contiguous */
            const int c = a->off + i0 + r0;
#ifdef GEMM_X86
            if (h == MR512 && mr == MR512 && avx512) { pack14t_avx512(dst, a->rows + k0, c, kc); continue; }
            /* a constant-size copy for AVX2's full panels (a variable-length memcpy is a call) */
            if (h == MR256 && mr == MR256) {
                for (int k = 0; k < kc; k++) memcpy(dst + (size_t)k * MR256, a->rows[k0 + k] + c, sizeof(float) * MR256);
                continue;
            }
#endif
            for (int k = 0; k < kc; k++) {
                const float *src = a->rows[k0 + k] + c;
                for (int r = 0; r < h; r++) dst[(size_t)k * mr + r] = src[r];
                for (int r = h; r < mr; r++) dst[(size_t)k * mr + r] = 0.0f;
            }
            continue;
        }
        const float *x[MAX_MR];
        for (int r = 0; r < h; r++) x[r] = (a ? a->rows[i0 + r0 + r] : X + (size_t)(i0 + r0 + r) * ldx) + k0;
#ifdef GEMM_X86
        if (h == mr && avx512 && mr == MR512) { pack14_avx512(dst, x, kc); continue; }
#else
        (void)avx512;
#endif
        if (h == mr) {
            for (int k = 0; k < kc; k++)
                for (int r = 0; r < mr; r++) dst[(size_t)k * mr + r] = x[r][k];
        } else {
            for (int k = 0; k < kc; k++) {
                for (int r = 0; r < h; r++) dst[(size_t)k * mr + r] = x[r][k];
                for (int r = h; r < mr; r++) dst[(size_t)k * mr + r] = 0.0f;
            }
        }
    }
}

/* ---- the product ---- */

struct job {
    const struct kernel *kn;
    int M, N, K;
    const float *X; int ldx;
    const struct sp_gemm_a *A;   /* NULL: X, ldx */
    const struct sp_gemm_b *B;
    const float *bias; int accumulate;
    float *Y; int ldy;
    int n_rb, n_mp;            /* row blocks: n_mp micro-panels of mr rows shared out evenly */
    int n_cb, panels_per_cb;   /* items: row block = item / n_cb, column block = item % n_cb */
    sp_gemm_post_fn post; void *post_arg;
};

/* one tile through a zero-padded copy when it is cut by M or N: same instructions as a full one.
 * In: the initial rows (stride ldi, 0 = one row repeated) or NULL (C's own values). */
static void run_tile(const struct kernel *kn, int kc, const float *A, const float *B, float *C, int ldc, int rows, int cols,
                     const float *In, int ldi)
{
    if (rows == kn->mr && cols == NR) { kn->tile(kc, A, B, C, ldc, In, ldi); return; }
    if (!In) { In = C; ldi = ldc; }
    float t[MAX_MR * NR];
    for (int i = 0; i < kn->mr; i++)
        for (int j = 0; j < NR; j++) t[i * NR + j] = i < rows && j < cols ? In[(size_t)i * ldi + j] : 0.0f;
    kn->tile(kc, A, B, t, NR, NULL, 0);
    for (int i = 0; i < rows; i++) memcpy(C + (size_t)i * ldc, t + i * NR, sizeof(float) * cols);
}

static const float zero_row[NR] __attribute__((aligned(64)));

static void job_item(void *arg, int item, int worker)
{
    const struct job *j = arg;
    const struct kernel *kn = j->kn;
    const int rb = item / j->n_cb, cb = item % j->n_cb;
    const int mp0 = (int)((long)rb * j->n_mp / j->n_rb), mp1 = (int)((long)(rb + 1) * j->n_mp / j->n_rb);
    const int i0 = mp0 * kn->mr, rows = (mp1 * kn->mr < j->M ? mp1 * kn->mr : j->M) - i0;
    const int n_panels = (j->N + NR - 1) / NR;
    const int p0 = cb * j->panels_per_cb, p1 = p0 + j->panels_per_cb < n_panels ? p0 + j->panels_per_cb : n_panels;
    const int c0 = p0 * NR, c1 = p1 * NR < j->N ? p1 * NR : j->N;
    if (p0 >= p1) return;
    /* initial values: bias or zero straight into the first block's accumulators; to accumulate,
     * the existing Y (+ bias, added first) */
    for (int i = 0; j->accumulate && j->bias && i < rows; i++) {
        float *y = j->Y + (size_t)(i0 + i) * j->ldy;
        for (int c = c0; c < c1; c++) y[c] += j->bias[c];
    }
    if (j->K <= 0 && !j->accumulate)
        for (int i = 0; i < rows; i++) {
            float *y = j->Y + (size_t)(i0 + i) * j->ldy;
            if (j->bias) memcpy(y + c0, j->bias + c0, sizeof(float) * (c1 - c0));
            else memset(y + c0, 0, sizeof(float) * (c1 - c0));
        }
    /* the packed X, then (half panels) one panel's block of kc k-values widened */
    float *ap = thread_abuf((size_t)kn->mc * kn->kc + (j->B->dtype != SP_GEMM_F32 ? (size_t)kn->kc * NR : 0));
    float *bw = ap + (size_t)kn->mc * kn->kc;      /* 64-byte aligned: mc·kc floats are a multiple of 16 */
    for (int k0 = 0; k0 < j->K; k0 += kn->kc) {
        const int kc = j->K - k0 < kn->kc ? j->K - k0 : kn->kc;
        pack_x(ap, j->X, j->ldx, j->A, i0, k0, rows, kc, kn->mr,
#ifdef GEMM_X86
               kn->tile == tile_avx512
#else
               0
#endif
               );
        if (j->B->dtype != SP_GEMM_F32) {
            /* half panels: panel outer, each panel's kc·NR halves widened once for all the
             * micro-panels (the same tiles as below, so the same bits) */
            for (int p = p0; p < p1; p++) {
                sp_gemm_widen(j->B->dtype, j->B->h + ((size_t)p * j->K + k0) * NR, bw, (size_t)kc * NR);
                const int cols = j->N - p * NR < NR ? j->N - p * NR : NR;
                const float *init = k0 || j->accumulate ? NULL : j->bias ? j->bias + p * NR : zero_row;
                for (int r0 = 0; r0 < rows; r0 += kn->mr) {
                    const int h = rows - r0 < kn->mr ? rows - r0 : kn->mr;
                    float *y = j->Y + (size_t)(i0 + r0) * j->ldy + p * NR;
                    run_tile(kn, kc, ap + (size_t)r0 * kc, bw, y, j->ldy, h, cols, init, 0);
                }
            }
            continue;
        }
        /* micro-panel outer: its kc·MR floats stay in L1 while the panels stream from L2 (panels
         * outer, both came from L2 for every tile at kc 384) */
        for (int r0 = 0; r0 < rows; r0 += kn->mr) {
            const int h = rows - r0 < kn->mr ? rows - r0 : kn->mr;
            for (int p = p0; p < p1; p++) {
                const float *bp = j->B->p + ((size_t)p * j->K + k0) * NR;
                const int cols = j->N - p * NR < NR ? j->N - p * NR : NR;
                const float *init = k0 || j->accumulate ? NULL : j->bias ? j->bias + p * NR : zero_row;
                float *y = j->Y + (size_t)(i0 + r0) * j->ldy + p * NR;
                run_tile(kn, kc, ap + (size_t)r0 * kc, bp, y, j->ldy, h, cols, init, 0);
            }
        }
    }
    /* the item's block of Y is final: the epilogue on it while it is in L2 (whole rows of the
     * block: per 32-column tile the activation's loops ran too short) */
    if (j->post) j->post(j->post_arg, j->Y + (size_t)i0 * j->ldy + c0, rows, c1 - c0, j->ldy);
}

/* below this many multiply-adds a product runs on the calling thread (waking workers costs more) */
#define PARALLEL_MACS (1L << 21)

/* the BLAS path: Y = init + X·op(W) by cblas_sgemm (beta = 1 over the initial values) */
static void gemm_blas(int M, const float *X, int ldx, const struct sp_gemm_b *B, const float *bias,
                      int accumulate, float *Y, int ldy)
{
    const int N = B->N;
    for (int i = 0; bias && i < M; i++) {
        float *y = Y + (size_t)i * ldy;
        if (accumulate) for (int j = 0; j < N; j++) y[j] += bias[j];
        else memcpy(y, bias, sizeof(float) * (size_t)N);
    }
    const float beta = accumulate || bias ? 1.0f : 0.0f;
    if (B->K <= 0) {
        for (int i = 0; !beta && i < M; i++) memset(Y + (size_t)i * ldy, 0, sizeof(float) * (size_t)N);
        return;
    }
    if (B->w) {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, B->trans ? CblasTrans : CblasNoTrans, M, N, B->K, 1.0f, X, ldx,
                    B->w, B->ldw, beta, Y, ldy);
        return;
    }
    /* packed from parts (or halves): B unpacked into a [K, N] float matrix for this product */
    const int K = B->K;
    float *w = sp_xmalloc(sizeof *w * (size_t)K * (size_t)N + 1);
    float *row = sp_xmalloc(sizeof *row * NR);
    for (int p = 0; p * NR < N; p++) {
        const int cols = N - p * NR < NR ? N - p * NR : NR;
        for (int k = 0; k < K; k++) {
            const size_t at = ((size_t)p * K + k) * NR;
            if (B->dtype == SP_GEMM_F32) memcpy(row, B->p + at, sizeof *row * NR);
            else sp_gemm_widen(B->dtype, B->h + at, row, NR);
            memcpy(w + (size_t)k * N + (size_t)p * NR, row, sizeof *row * (size_t)cols);
        }
    }
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0f, X, ldx, w, N, beta, Y, ldy);
    free(row);
    free(w);
}

void sp_gemm(int M, const float *X, int ldx, const struct sp_gemm_b *B, const float *bias,
             int accumulate, float *Y, int ldy)
{
    sp_gemm_post(M, X, ldx, B, bias, accumulate, Y, ldy, NULL, NULL);
}

static void gemm_run(int M, const float *X, int ldx, const struct sp_gemm_a *A, const struct sp_gemm_b *B, const float *bias,
                     int accumulate, float *Y, int ldy, sp_gemm_post_fn post, void *post_arg)
{
    if (M <= 0 || B->N <= 0) return;
    if (t_set.impl == SP_GEMM_BLAS) {
        static _Atomic int blas_threads;      /* OpenBLAS's setting is process-wide: set it on a change only */
        if (atomic_exchange(&blas_threads, t_set.threads) != t_set.threads) openblas_set_num_threads(t_set.threads);
        gemm_blas(M, X, ldx, B, bias, accumulate, Y, ldy);
        for (int i0 = 0; post && i0 < M; i0 += 64) post(post_arg, Y + (size_t)i0 * ldy, M - i0 < 64 ? M - i0 : 64, B->N, ldy);
        return;
    }
    struct job j = { kernel(), M, B->N, B->K, X, ldx, A, B, bias, accumulate, Y, ldy, 0, 0, 1, 0, post, post_arg };
    const int per_rb = j.kn->mc / j.kn->mr, n_panels = (j.N + NR - 1) / NR;
    j.n_mp = (M + j.kn->mr - 1) / j.kn->mr;
    const int threads = sp_gemm_threads();
    const int parallel = threads > 1 && (double)M * j.N * (j.K > 0 ? j.K : 1) >= (double)PARALLEL_MACS;
    /* row blocks of at most mc rows, as many as a multiple of the threads when parallel, the
     * micro-panels shared out evenly: 1,024 rows as 9 blocks of 112 and one of 16 left a thread
     * idle for most of a block in every product (the same chains whatever the cut) */
    int n_rb = (j.n_mp + per_rb - 1) / per_rb;
    if (parallel) n_rb = (n_rb + threads - 1) / threads * threads;
    if (n_rb > j.n_mp) n_rb = j.n_mp;
    j.n_rb = n_rb;
    if (parallel) {
        /* split the columns too where that balances the threads: the fewest column blocks whose
         * makespan (rounds of items × panels per item) is least. 9 row blocks of a 1,000-row
         * batch on 2 threads ran 5 + 4 items; as 18 half-width items, 9 + 9. */
        long best = -1;
        for (int cb = 1; cb <= 8 && cb <= n_panels; cb++) {
            const long ppc = (n_panels + cb - 1) / cb, rounds = ((long)n_rb * cb + threads - 1) / threads;
            if (best < 0 || rounds * ppc < best) { best = rounds * ppc; j.n_cb = cb; }
        }
    }
    j.panels_per_cb = (n_panels + j.n_cb - 1) / j.n_cb;
    const int items = n_rb * j.n_cb;
    if (parallel && items > 1) {
        /* the pool busy (a product inside a parallel item): this one runs on its caller (same result) */
        if (t_set.pool && sp_pool_try_run(t_set.pool, items, job_item, &j)) return;
    }
    for (int it = 0; it < items; it++) job_item(&j, it, 0);
}

void sp_gemm_post(int M, const float *X, int ldx, const struct sp_gemm_b *B, const float *bias,
                  int accumulate, float *Y, int ldy, sp_gemm_post_fn post, void *post_arg)
{
    gemm_run(M, X, ldx, NULL, B, bias, accumulate, Y, ldy, post, post_arg);
}

void sp_gemm_rows(int M, const struct sp_gemm_a *A, const struct sp_gemm_b *B, const float *bias, int accumulate, float *Y,
                  int ldy)
{
    if (M <= 0 || B->N <= 0) return;
    if (t_set.impl == SP_GEMM_BLAS) {     /* BLAS takes one strided matrix: A gathered into one */
        const int K = B->K;
        float *x = sp_xmalloc(sizeof *x * ((size_t)M * (size_t)(K > 0 ? K : 1)));
        for (int i = 0; i < M; i++)
            for (int k = 0; k < K; k++) x[(size_t)i * K + k] = A->trans ? A->rows[k][A->off + i] : A->rows[i][k];
        gemm_run(M, x, K, NULL, B, bias, accumulate, Y, ldy, NULL, NULL);
        free(x);
        return;
    }
    gemm_run(M, NULL, 0, A, B, bias, accumulate, Y, ldy, NULL, NULL);
}
