/* encoder/enc_cuda.cu — the CUDA backend: every op of struct enc_backend_ops (encoder_int.h) on
 * device buffers, cuBLAS for the products and own kernels for the rest. The CPU backend
 * (enc_cpu.c) is the oracle: the per-element formulas (activations, gates, masks, score,
 * softmax numerator, pooling) are the same functions, from enc_formulas.h; each kernel follows
 * the order of its CPU twin where cheap; tests/gpu/encoder_cuda_vs_cpu.c compares the two
 * through the public API. The plugin exports enc_cuda_abi() (ENC_PLUGIN_ABI, encoder_int.h) so
 * that a binary never calls a plugin built from other sources.
 *
 * How it works: one stream per handle, the cuBLAS handle bound to it; every op is enqueued
 * asynchronously and only upload(), download() and sync() wait (the caller reuses its host
 * buffers at once). download_pieces_later() copies on a second stream, beside the ops after it,
 * and its host side is finished at the next such call or at sync(). Errors never abort: a failed
 * launch or cuBLAS call is latched (the first one wins) and reported by sync() as SP_EGPU with a
 * message, or SP_ENOMEM when the device ran out of memory, so a caller can retry with a smaller
 * batch. open() answers ENC_ENODEV when the runtime finds no driver or no device (--device auto
 * then says only "no GPU found").
 * alloc() returns NULL on failure and the graph reports that itself (SP_ENOMEM from ws_reserve).
 * Masks are never materialised: the attention kernel derives direction, distance priors, the
 * SDOI allow mask, SSAN selection and relative buckets per (query row, key) from the compact int
 * structures the graph uploaded (dist/rel/anc/pid).
 *
 * Layout: device helpers, kernels (enc_*_cuda), then the launchers (extern "C", the vtable).
 * Written as "C plus kernels" (docs/style.md §3.5): no templates but the reduction helpers' (one body
 * for sum and max), one constructor/destructor pair (prof_scope, so a launcher's early return
 * still closes its profile span), no exceptions, no C++ library; the Makefile compiles it with
 * -fno-exceptions -fno-threadsafe-statics so the object needs no libstdc++ when linked by cc. nvcc's launch stubs keep the kernel handle in a function-local
 * static, so without guards the first launch of each kernel happens once under pthread_once
 * (warm_kernels) before any handle can launch from several threads. */
extern "C" {
#include "encoder/encoder_int.h"
}
#include "encoder/enc_formulas.h"   /* the per-element formulas, shared with enc_cpu.c */
#include "encoder/enc_pieces.h"     /* download_pieces' walk, unit-tested on the CPU */

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define EW_THREADS 256         /* elementwise kernels (grid-stride) */
#define LN_THREADS 256         /* layer norm: one block per row */
#define ATT_THREADS 128        /* attention: one block per (query row, head) */
#define ATT_WARPS (ATT_THREADS / 32)
#define PSA_THREADS 128        /* PSA: one block per (query row, 128 features) */
#define POOL_THREADS 128       /* pooling: one thread per feature */
#define FULL_MASK 0xffffffffu
#define STAGE_BYTES ((size_t)4 << 20)  /* each of the two page-locked halves of a staged copy */
#define STAGE_MIN ((size_t)256 << 10)  /* smaller copies go direct */
#define LATER_SLOTS 2          /* download_pieces_later: copies in flight (this one, the one before) */
#define COPY_HELPERS 3         /* threads beside the caller's that copy a slot out (fewer on small hosts) */

/* One download_pieces_later in flight: src copied aside on the device (snap, on the main stream,
 * so the ops after the call may overwrite src), then to page-locked memory on the copy stream
 * while the main stream goes on; the host copies it out into the pieces when the slot is needed
 * again or at sync. snapped/copied mark the two copies' ends. */
struct later_slot {
    char *snap, *host;
    size_t cap, total;
    cudaEvent_t snapped, copied;
    void **dst;                /* [cap_pieces] the caller's pieces (it may reuse its own arrays) */
    size_t *bytes;
    int count, cap_pieces, pending;
};

/* Threads that copy a slot's page-locked image out beside the caller (fork-join, one job at a
 * time): the copy out into pageable memory, not PCIe, bounds a forward that delivers every
 * layer (one thread moves ~5 GB/s). Part p of n is bytes [total·p/n, total·(p+1)/n). Its own
 * few lines rather than common/pool.h: the plugin is this file alone and links no synprobe
 * library (the executable's objects are not position-independent). */
struct copy_pool;
struct copy_helper_arg { struct copy_pool *p; int part; };
struct copy_pool {
    pthread_t th[COPY_HELPERS];
    struct copy_helper_arg arg[COPY_HELPERS];
    int n;                     /* helpers running (parts = n + 1: the caller takes part 0) */
    pthread_mutex_t mu;
    pthread_cond_t go, done;
    unsigned gen;              /* job number: a helper runs each job once */
    int left, stop;            /* helpers still copying the current job; closing */
    const struct later_slot *job;
};

struct cuda_state {
    cudaStream_t stream;
    cublasHandle_t blas;
    int dev;
    size_t att_smem;           /* dynamic shared memory the attention kernel may use (bytes) */
    size_t att_smem_plain;     /* and the plain-heads kernel */
    /* an op's per-sentence table (attention's argument structs, pooling's row ranges): staged in
     * page-locked host memory, copied to the device in stream order (a kernel reads it before the
     * next copy overwrites it); table_copied marks when the last copy has read the host side */
    char *table_host, *table_dev;
    size_t table_cap;
    cudaEvent_t table_copied;
    /* staged copies (upload/download of large pageable buffers): two page-locked halves, so the
     * PCIe copy of one overlaps the host memcpy of the other; stage_done[k] marks when the last
     * copy through half k has finished with it. stage_ok: 1 ready, 0 not tried, -1 unavailable */
    char *stage[2];
    cudaEvent_t stage_done[2];
    int stage_ok;
    /* download_pieces_later: the copy stream, its slots (used in turn) and the copy-out helpers.
     * later_ok: 1 ready, 0 not tried, -1 unavailable (download_pieces then) */
    cudaStream_t copy_stream;
    struct later_slot later[LATER_SLOTS];
    int later_next, later_ok;
    struct copy_pool *pool;
    /* SP_CUDA_PROFILE=1: device time per op (events around every op, read at sync) */
    struct prof *prof;
    int latched;               /* SP_OK, or the first error since the last sync (SP_EGPU / SP_ENOMEM) */
    char msg[256];
};

/* ---------------------------------------------------------------- device helpers */

/* Butterfly reductions: every lane ends with the same value (+ and max are commutative). */
struct op_sum { template <typename T> __device__ __forceinline__ T operator()(T a, T b) const { return a + b; } };
struct op_max { __device__ __forceinline__ float operator()(float a, float b) const { return fmaxf(a, b); } };

template <typename T, typename Op> __device__ __forceinline__ T warp_reduce(T v, Op op)
{
    for (int o = 16; o > 0; o >>= 1) v = op(v, __shfl_xor_sync(FULL_MASK, v, o));
    return v;
}
__device__ __forceinline__ float warp_sum(float v) { return warp_reduce(v, op_sum()); }

/* Block-wide reduction over blockDim.x (a multiple of 32) threads; red holds >= blockDim.x/32
 * values. The leading barrier protects red from the readers of the previous call. */
template <typename T, typename Op> __device__ T block_reduce(T v, T *red, T init, Op op)
{
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5, nw = blockDim.x >> 5;
    v = warp_reduce(v, op);
    __syncthreads();
    if (lane == 0) red[w] = v;
    __syncthreads();
    T t = init;
    for (int k = 0; k < nw; k++) t = op(t, red[k]);
    return t;
}
__device__ float block_sum(float v, float *red) { return block_reduce(v, red, 0.0f, op_sum()); }
__device__ float block_max(float v, float *red) { return block_reduce(v, red, -INFINITY, op_max()); }
__device__ double block_sum_d(double v, double *red) { return block_reduce(v, red, 0.0, op_sum()); }

#define GRID_STRIDE(i, n) for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < (n); i += (size_t)gridDim.x * blockDim.x)

/* ---------------------------------------------------------------- kernels */

/* Y[i][j] = (accumulate ? Y[i][j] : 0) + (b ? b[j] : 0) for i < M, j < N (bias broadcast, or a
 * zero fill of a strided block when b == NULL and accumulate == 0) */
__global__ void enc_bias_cuda(int M, int N, const float *b, float *Y, int ldy, int accumulate)
{
    GRID_STRIDE(idx, (size_t)M * N) {
        size_t i = idx / (size_t)N, j = idx % (size_t)N;
        float *y = Y + i * (size_t)ldy + j;
        *y = (accumulate ? *y : 0.0f) + (b ? b[j] : 0.0f);
    }
}

/* out[r][k] = tab[ids[r]][k], n = N·d elements (ids checked against the table by the caller) */
__global__ void enc_gather_cuda(size_t n, int d, const float *tab, const int32_t *ids, float *out)
{
    GRID_STRIDE(i, n) out[i] = tab[(size_t)ids[i / d] * d + i % d];
}

/* BERT's embeddings, (word + type) + position per element as the host sums them (adds only:
 * nothing to contract, the same bits); idx[3r..3r+2] = word id, token type, position of row r */
__global__ void enc_embed_sum_cuda(size_t n, int d, const float *word, const float *type, const float *pos,
                                   const int32_t *idx, float *out)
{
    GRID_STRIDE(i, n) {
        const int32_t *x = idx + 3 * (i / d);
        const size_t k = i % d;
        out[i] = (word[(size_t)x[0] * d + k] + type[(size_t)x[1] * d + k]) + pos[(size_t)x[2] * d + k];
    }
}

__global__ void enc_act_cuda(int a, size_t n, float *x)
{
    GRID_STRIDE(i, n) x[i] = enc_f_act(a, x[i]);
}

__global__ void enc_add_cuda(size_t n, const float *a, const float *b, float *out)
{
    GRID_STRIDE(i, n) out[i] = a[i] + b[i];
}

__global__ void enc_axpby_cuda(size_t n, float alpha, const float *a, float beta, const float *b, float *out)
{
    GRID_STRIDE(i, n) out[i] = alpha * a[i] + beta * b[i];
}

__global__ void enc_gate_cuda(int mode, size_t n, const float *pre, const float *a, const float *b, float *out)
{
    GRID_STRIDE(i, n) out[i] = enc_f_gate(mode, pre[i], a[i], b ? b[i] : 0.0f, b != NULL);
}

__global__ void enc_absdiff_mul_cuda(size_t n, const float *a, const float *b, float *absdiff, float *prod)
{
    GRID_STRIDE(i, n) { float x = a[i], y = b[i]; absdiff[i] = fabsf(x - y); prod[i] = x * y; }
}

/* One block per row; two passes in double like the CPU (biased variance). In-place safe: each
 * thread rewrites only the elements it read, after both reductions. */
__global__ void __launch_bounds__(LN_THREADS) enc_layer_norm_cuda(int d, const float *x, const float *g,
                                                                   const float *b, float eps, float *out)
{
    __shared__ double red[LN_THREADS / 32];
    const float *xr = x + (size_t)blockIdx.x * d;
    float *o = out + (size_t)blockIdx.x * d;
    double s = 0.0;
    for (int k = threadIdx.x; k < d; k += blockDim.x) s += xr[k];
    const double mu = block_sum_d(s, red) / d;
    double v = 0.0;
    for (int k = threadIdx.x; k < d; k += blockDim.x) { double t = xr[k] - mu; v += t * t; }
    const double var = block_sum_d(v, red) / d;
    const double inv = 1.0 / sqrt(var + (double)eps);
    for (int k = threadIdx.x; k < d; k += blockDim.x) o[k] = (float)((xr[k] - mu) * inv) * g[k] + b[k];
}

/* RMSNorm: one block per row, Σ x² in double like the CPU; in-place safe as enc_layer_norm_cuda */
__global__ void __launch_bounds__(LN_THREADS) enc_rms_norm_cuda(int d, const float *x, const float *g, float eps, float *out)
{
    __shared__ double red[LN_THREADS / 32];
    const float *xr = x + (size_t)blockIdx.x * d;
    float *o = out + (size_t)blockIdx.x * d;
    double s = 0.0;
    for (int k = threadIdx.x; k < d; k += blockDim.x) s += (double)xr[k] * xr[k];
    const double inv = enc_f_rms_inv(block_sum_d(s, red), d, eps);
    for (int k = threadIdx.x; k < d; k += blockDim.x) o[k] = enc_f_rms_scale(xr[k], inv, g[k]);
}

/* RoPE in place: one thread per (row, head, pair c < rot/2), grid-stride */
__global__ void enc_rope_cuda(int rows, int heads, int dk, int rot, float *x, int ldx, const float *cs)
{
    const int h2 = rot / 2;
    const size_t n = (size_t)rows * heads * h2;
    GRID_STRIDE(i, n) {
        const int k = (int)(i % h2), h = (int)(i / h2 % heads);
        const size_t r = i / h2 / heads;
        float *xh = x + r * ldx + (size_t)h * dk;
        const float c = cs[r * rot + k], sn = cs[r * rot + h2 + k], lo = xh[k], hi = xh[k + h2];
        xh[k] = enc_f_rope_lo(lo, hi, c, sn);
        xh[k + h2] = enc_f_rope_hi(lo, hi, c, sn);
    }
}

/* Sentence s = blockIdx.y (its rows from tab[s].off, tab[s].n of them), one thread per feature k
 * (reads coalesced across k); double accumulation like the CPU. */
struct pool_row { size_t off; int n; };
__global__ void enc_pool_cuda(int mode, const struct pool_row *tab, int count, int d, const float *x, const float *e,
                              float *out, int ldo)
{
    for (int s = blockIdx.y; s < count; s += gridDim.y) {
        const size_t r0 = tab[s].off * (size_t)d;
        for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < d; k += gridDim.x * blockDim.x)
            out[(size_t)s * ldo + k] = enc_f_pool(mode, tab[s].n, d, k, x + r0, e ? e + r0 : NULL);
    }
}

/* Attention for one (query row i = blockIdx.x, head h = blockIdx.y, sentence blockIdx.z of the
 * args array arr, in device memory), mirroring the CPU's attention_one:
 *   rk[r]  = q_i · w^K[r]                         bucket logits (struct then seq), one warp each
 *   s[j]   = (q_i·k_j + rk[..]) * scale − α·dist  for allowed j, one warp per key j
 *            (+ MPNet's bias; + DeBERTa's (q_i·k^P[c2p] + k_j·q^P[p2c]) * scale, two more dot products)
 *   p[j]   = safe softmax over allowed j          (empty row -> zero output, no map entries)
 *   out[c] = Σ_j p[j] v_j[c] + Σ_r pb[r] w^V[r][c] with pb the bucket masses (shared atomics)
 * Dynamic shared memory (bytes, computed in cuda_attention):
 *   float sq[dk], ssq[dk], s[n], rk[nb], pb[nb], red[ATT_THREADS]; uint8 ok[n]. */
__global__ void __launch_bounds__(ATT_THREADS) enc_attention_cuda(const struct enc_attn_args *__restrict__ arr, int count)
{
    extern __shared__ float sm[];
    if ((int)blockIdx.z >= count) return;                      /* only the empty warm-up launch */
    const struct enc_attn_args &a = arr[blockIdx.z];
    const int n = a.n, H = a.H, dk = a.dk;
    const int i = blockIdx.x, h = blockIdx.y;
    /* the grid covers the batch's longest sentence and most heads: the rest of this sentence's
     * blocks leave at once (block-uniform) */
    if (i >= n || h >= H) return;
    const int off = h * dk, dir = a.dir[h], dis = a.dis[h];
    const int nrk = a.rel_k ? 2 * a.rel_clip + 1 : 0, nsk = a.seq_k ? 2 * a.seq_clip + 1 : 0, nb = nrk + nsk;
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    float *sq = sm, *ssq = sq + dk, *s = ssq + dk, *rk = s + n, *pb = rk + nb, *red = pb + nb;
    unsigned char *ok = (unsigned char *)(red + ATT_THREADS);

    const float *qi = a.q + (size_t)i * a.ld_qkv + off;
    for (int c = tid; c < dk; c += ATT_THREADS) {
        sq[c] = qi[c];
        if (a.sel_q) ssq[c] = a.sel_q[(size_t)i * a.ld_sel + off + c];
    }
    for (int r = tid; r < nb; r += ATT_THREADS) pb[r] = 0.0f;
    __syncthreads();
    for (int r = warp; r < nb; r += ATT_WARPS) {               /* R = q_i (w^K)ᵀ, gathered below */
        const float *w = r < nrk ? a.rel_k + (size_t)r * dk : a.seq_k + (size_t)(r - nrk) * dk;
        float t = 0.0f;
        for (int c = lane; c < dk; c += 32) t += sq[c] * w[c];
        t = warp_sum(t);
        if (lane == 0) rk[r] = t;
    }
    __syncthreads();

    /* scores: j is warp-uniform, so every branch below is too */
    float mloc = -INFINITY;
    int anyloc = 0, lo, hi;
    enc_f_dir_range(dir, i, n, &lo, &hi);                      /* direction mask: keys lo..hi */
    for (int j = warp; j < n; j += ATT_WARPS) {
        int allowed = j >= lo && j <= hi;
        if (allowed && a.allow) allowed = a.allow[(size_t)i * n + j] != 0;
        if (allowed && a.sel_q) {                              /* SSAN: A = [E_s > 0], E_s unscaled */
            const float *sk = a.sel_k + (size_t)j * a.ld_sel + off;
            float es = 0.0f;
            for (int c = lane; c < dk; c += 32) es += ssq[c] * sk[c];
            es = __shfl_sync(FULL_MASK, warp_sum(es), 0);
            allowed = enc_f_sel_allows(es);
        }
        float sc = 0.0f;
        if (allowed) {
            const float *kj = a.k + (size_t)j * a.ld_qkv + enc_f_kv_off(h, a.H, a.kv_heads, dk);
            float t = 0.0f;
            for (int c = lane; c < dk; c += 32) t += sq[c] * kj[c];
            t = warp_sum(t);
            if (nrk) t += rk[enc_f_rel_bucket(a.rel[(size_t)i * n + j], a.rel_clip)];
            if (nsk) t += rk[nrk + enc_f_rel_bucket(j - i, a.seq_clip)];
            sc = enc_f_score_f(t, a.scale, dis, a.alpha, i, j, a.dist ? a.dist + (size_t)i * n + j : NULL);
            if (a.pos_bias) sc += enc_f_pos_bias(a.pos_bias, a.pos_ld, a.pos_clip, h, i, j);
            if (a.rp_k || a.rp_q) {                            /* DeBERTa: q_i·k^P[c2p] + k_j·q^P[p2c], scaled */
                int c2, p2;
                enc_f_rp_cols(a.rp_idx, a.rp_max, i, j, &c2, &p2);
                float tc = 0.0f, tp = 0.0f;
                if (a.rp_k) {
                    const float *w = a.rp_k + (size_t)c2 * a.rp_ld + off;
                    for (int c = lane; c < dk; c += 32) tc += sq[c] * w[c];
                    tc = warp_sum(tc);
                }
                if (a.rp_q) {
                    const float *w = a.rp_q + (size_t)p2 * a.rp_ld + off;
                    for (int c = lane; c < dk; c += 32) tp += kj[c] * w[c];
                    tp = warp_sum(tp);
                }
                sc += enc_f_rp_score(tc, tp, a.scale);
            }
            mloc = fmaxf(mloc, sc);
            anyloc = 1;
        }
        if (lane == 0) { s[j] = sc; ok[j] = (unsigned char)allowed; }
    }
    float *oi = a.out + (size_t)i * H * dk + off;
    if (!__syncthreads_or(anyloc)) {                          /* safe softmax: empty row -> zeros */
        for (int c = tid; c < dk; c += ATT_THREADS) oi[c] = 0.0f;
        return;                                                /* block-uniform */
    }
    const float m = block_max(mloc, red);
    float zloc = 0.0f;
    for (int j = tid; j < n; j += ATT_THREADS) {
        float e = enc_f_masked_exp_f(ok[j], s[j], m);
        s[j] = e;
        zloc += e;
    }
    const float z = block_sum(zloc, red);                      /* its barriers publish s[] */
    for (int j = tid; j < n; j += ATT_THREADS) {
        if (!ok[j]) continue;
        float p = s[j] / z;
        s[j] = p;
        if (nrk) atomicAdd(&pb[enc_f_rel_bucket(a.rel[(size_t)i * n + j], a.rel_clip)], p);
        if (nsk) atomicAdd(&pb[nrk + enc_f_rel_bucket(j - i, a.seq_clip)], p);
        if (a.attn_mean) atomicAdd(&a.attn_mean[(size_t)i * n + j], p / H);
    }
    __syncthreads();

    /* P·V: column c with G groups of keys when dk < ATT_THREADS, partial sums reduced in red */
    const float *vh = a.v + enc_f_kv_off(h, a.H, a.kv_heads, dk);
    if (dk >= ATT_THREADS) {
        for (int c = tid; c < dk; c += ATT_THREADS) {
            float acc = 0.0f;
            for (int j = 0; j < n; j++) if (ok[j]) acc += s[j] * vh[(size_t)j * a.ld_qkv + c];
            for (int r = 0; r < nrk; r++) if (pb[r] != 0.0f) acc += pb[r] * a.rel_v[(size_t)r * dk + c];
            for (int r = 0; r < nsk; r++) if (pb[nrk + r] != 0.0f) acc += pb[nrk + r] * a.seq_v[(size_t)r * dk + c];
            oi[c] = acc;
        }
    } else {
        const int G = ATT_THREADS / dk, c = tid % dk, g = tid / dk;
        float acc = 0.0f;
        if (g < G)
            for (int j = g; j < n; j += G) if (ok[j]) acc += s[j] * vh[(size_t)j * a.ld_qkv + c];
        red[tid] = acc;                                        /* red[g*dk + c] */
        __syncthreads();
        if (tid < dk) {
            float t = 0.0f;
            for (int k = 0; k < G; k++) t += red[k * dk + tid];
            for (int r = 0; r < nrk; r++) if (pb[r] != 0.0f) t += pb[r] * a.rel_v[(size_t)r * dk + tid];
            for (int r = 0; r < nsk; r++) if (pb[nrk + r] != 0.0f) t += pb[nrk + r] * a.seq_v[(size_t)r * dk + tid];
            oi[tid] = t;
        }
    }
}

/* The same attention for "plain" heads (no relative buckets, no SSAN selection, no structural
 * mask: BERT, MPNet's position bias, vanilla SAN, MS-SAN's directions and distance priors) with one warp per (query row,
 * head) instead of a block: rows of short sentences leave most of a block idle, and a warp needs
 * no barrier. Lane l scores keys l, l+32, ... (q_i from shared memory), the row's softmax is two
 * warp reductions, and P·V runs with lanes over the value columns (coalesced). Warp w of block x
 * takes row i = x·PLAIN_WARPS + w of sentence blockIdx.z, head blockIdx.y. Dynamic shared memory
 * per warp: float q[dk], p[n_max]. */
#define PLAIN_WARPS 4
__global__ void __launch_bounds__(PLAIN_WARPS * 32) enc_attention_plain_cuda(const struct enc_attn_args *__restrict__ arr, int count,
                                                                             int n_max)
{
    extern __shared__ float smp[];
    if ((int)blockIdx.z >= count) return;                      /* only the empty warm-up launch */
    const struct enc_attn_args &a = arr[blockIdx.z];
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int n = a.n, H = a.H, dk = a.dk, h = blockIdx.y, i = blockIdx.x * PLAIN_WARPS + warp;
    if (i >= n || h >= H) return;                              /* warp-uniform; no block barrier below */
    float *q = smp + (size_t)warp * (dk + n_max), *p = q + dk;
    const int off = h * dk, dir = a.dir[h], dis = a.dis[h];
    const float *qi = a.q + (size_t)i * a.ld_qkv + off;
    for (int c = lane; c < dk; c += 32) q[c] = qi[c];
    __syncwarp();
    int lo, hi;
    enc_f_dir_range(dir, i, n, &lo, &hi);
    float m = -INFINITY;
    for (int j = lo + lane; j <= hi; j += 32) {
        const float *kj = a.k + (size_t)j * a.ld_qkv + enc_f_kv_off(h, H, a.kv_heads, dk);
        float t = 0.0f;
        for (int c = 0; c < dk; c++) t += q[c] * kj[c];
        float sc = enc_f_score_f(t, a.scale, dis, a.alpha, i, j, a.dist ? a.dist + (size_t)i * n + j : NULL);
        if (a.pos_bias) sc += enc_f_pos_bias(a.pos_bias, a.pos_ld, a.pos_clip, h, i, j);   /* MPNet */
        p[j] = sc;
        m = fmaxf(m, sc);
    }
    float *oi = a.out + (size_t)i * H * dk + off;
    if (lo > hi) {                                             /* no key: zeros (safe softmax) */
        for (int c = lane; c < dk; c += 32) oi[c] = 0.0f;
        return;
    }
    m = warp_reduce(m, op_max());
    float z = 0.0f;
    for (int j = lo + lane; j <= hi; j += 32) { const float e = enc_f_masked_exp_f(1, p[j], m); p[j] = e; z += e; }
    z = warp_sum(z);
    for (int j = lo + lane; j <= hi; j += 32) {
        const float pj = p[j] / z;
        p[j] = pj;
        if (a.attn_mean) atomicAdd(&a.attn_mean[(size_t)i * n + j], pj / H);
    }
    __syncwarp();
    const float *vh = a.v + enc_f_kv_off(h, a.H, a.kv_heads, dk);
    for (int c = lane; c < dk; c += 32) {
        float acc = 0.0f;
        for (int j = lo; j <= hi; j++) acc += p[j] * vh[(size_t)j * a.ld_qkv + c];
        oi[c] = acc;
    }
}

/* PSA for sentence blockIdx.z of arr, query row i = blockIdx.x and features k = blockIdx.y*PSA_THREADS
 * + threadIdx.x, keys in i's phrase block without i (cpu_psa): a whole batch's sentences in one
 * launch, the grid sized by the longest sentence and the widest d (blocks past a sentence's n or d
 * return at once). The block bounds are found once per CUDA block; all threads walk the same j
 * sequence, so the map's per-feature mean is a warp sum + one atomic per warp (threads past d
 * contribute 0). */
__global__ void __launch_bounds__(PSA_THREADS) enc_psa_cuda(const struct enc_psa_args *__restrict__ arr, int count)
{
    __shared__ int blk[2];
    if ((int)blockIdx.z >= count) return;                     /* only the empty warm-up launch */
    const struct enc_psa_args a = arr[blockIdx.z];
    const int n = a.n, d = a.d, i = blockIdx.x;
    const int k = blockIdx.y * PSA_THREADS + threadIdx.x;
    const int active = k < d;
    if (i >= n || (int)blockIdx.y * PSA_THREADS >= d) return;  /* block-uniform: past this sentence */
    if (threadIdx.x == 0) {
        const int p = a.pid[i];
        int s0 = i, e0 = i;
        while (s0 > 0 && a.pid[s0 - 1] == p) s0--;
        while (e0 + 1 < n && a.pid[e0 + 1] == p) e0++;
        blk[0] = s0; blk[1] = e0;
    }
    __syncthreads();
    const int s0 = blk[0], e0 = blk[1];
    float ai = 0.0f, m = -INFINITY, z = 1.0f;
    if (active) {
        float *o = a.out + (size_t)i * d + k;
        if (e0 == s0) { *o = 0.0f; return; }                   /* Q18; block-uniform */
        ai = a.a1[(size_t)i * d + k];
        for (int j = s0; j <= e0; j++) if (j != i) m = fmaxf(m, enc_f_elu(ai + a.a2[(size_t)j * d + k]));
        float acc = 0.0f;
        z = 0.0f;
        for (int j = s0; j <= e0; j++) {
            if (j == i) continue;
            float w = expf(enc_f_elu(ai + a.a2[(size_t)j * d + k]) - m);
            z += w;
            acc += w * a.pm[(size_t)j * d + k];
        }
        *o = acc / z;
    }
    if (!a.attn_mean || e0 == s0) return;
    for (int j = s0; j <= e0; j++) {
        if (j == i) continue;
        float p = active ? expf(enc_f_elu(ai + a.a2[(size_t)j * d + k]) - m) / z : 0.0f;
        p = warp_sum(p);
        if ((threadIdx.x & 31) == 0) atomicAdd(&a.attn_mean[(size_t)i * n + j], p / d);
    }
}

/* ---------------------------------------------------------------- launchers (the vtable) */

extern "C" {

static struct cuda_state *st_of(struct enc_backend *be) { return (struct cuda_state *)be->state; }

static void latch(struct cuda_state *st, int code, const char *where, const char *what)
{
    if (st->latched) return;                                   /* the first error is the cause */
    st->latched = code;
    snprintf(st->msg, sizeof st->msg, "cuda: %s: %s", where, what);
}

static void check_cuda(struct cuda_state *st, cudaError_t e, const char *where)
{
    if (e == cudaSuccess) return;
    cudaGetLastError();                                        /* clear a non-sticky error */
    latch(st, e == cudaErrorMemoryAllocation ? SP_ENOMEM : SP_EGPU, where, cudaGetErrorString(e));
}

static void check_launch(struct cuda_state *st, const char *where) { check_cuda(st, cudaGetLastError(), where); }

static void check_blas(struct cuda_state *st, cublasStatus_t s, const char *where)
{
    if (s != CUBLAS_STATUS_SUCCESS)
        latch(st, s == CUBLAS_STATUS_ALLOC_FAILED ? SP_ENOMEM : SP_EGPU, where, cublasGetStatusString(s));
}

static unsigned ew_blocks(size_t n)
{
    size_t b = (n + EW_THREADS - 1) / EW_THREADS;
    return (unsigned)(b > 8192 ? 8192 : b);                    /* grid-stride covers the rest */
}

/* One empty launch of every kernel (no element to touch), see the header comment. */
static void warm_kernels(void)
{
    enc_bias_cuda<<<1, 32>>>(0, 1, NULL, NULL, 1, 0);
    enc_act_cuda<<<1, 32>>>(0, 0, NULL);
    enc_gather_cuda<<<1, 32>>>(0, 1, NULL, NULL, NULL);
    enc_embed_sum_cuda<<<1, 32>>>(0, 1, NULL, NULL, NULL, NULL, NULL);
    enc_add_cuda<<<1, 32>>>(0, NULL, NULL, NULL);
    enc_axpby_cuda<<<1, 32>>>(0, 0.0f, NULL, 0.0f, NULL, NULL);
    enc_gate_cuda<<<1, 32>>>(0, 0, NULL, NULL, NULL, NULL);
    enc_absdiff_mul_cuda<<<1, 32>>>(0, NULL, NULL, NULL, NULL);
    enc_layer_norm_cuda<<<1, LN_THREADS>>>(0, NULL, NULL, NULL, 0.0f, NULL);
    enc_rms_norm_cuda<<<1, LN_THREADS>>>(0, NULL, NULL, 0.0f, NULL);
    enc_rope_cuda<<<1, 32>>>(0, 1, 2, 2, NULL, 0, NULL);
    enc_pool_cuda<<<1, 32>>>(0, NULL, 0, 0, NULL, NULL, NULL, 0);
    enc_attention_cuda<<<1, ATT_THREADS>>>(NULL, 0);
    enc_attention_plain_cuda<<<1, PLAIN_WARPS * 32>>>(NULL, 0, 0);
    enc_psa_cuda<<<1, PSA_THREADS>>>(NULL, 0);
    cudaDeviceSynchronize();
    cudaGetLastError();                                        /* a real problem shows up again later */
}
static pthread_once_t warm_once = PTHREAD_ONCE_INIT;

/* ---- SP_CUDA_PROFILE=k: where a handle's time goes, after its first k-1 syncs (k = 2 drops a
 * warm-up forward). Device ops are timed by a pair of events around each (read at the next sync,
 * so the timing adds no waits); upload and download are timed on the host clock (they include
 * waiting for the work queued before them, and a staged copy the host memcpy). Printed to stderr
 * when the handle closes. A diagnostic: off by default, costs two event records per op. */
enum { PR_LINEAR, PR_ATTENTION, PR_LAYER_NORM, PR_ELEMENTWISE, PR_PSA, PR_POOL, PR_UPLOAD, PR_DOWNLOAD, PR_N };
static const char *const prof_name[PR_N] = { "linear", "attention", "layer_norm", "elementwise", "psa", "pool", "upload", "download" };
struct prof {
    cudaEvent_t *ev;           /* [2 cap] start/end of pending op i at 2i, 2i+1 (created once, reused) */
    int *kind, n, cap;
    double ms[PR_N], flop;     /* flop: the products' 2·M·N·K */
    long calls[PR_N], bytes[PR_N];
    int skip, syncs;           /* syncs whose spans are still dropped (SP_CUDA_PROFILE=k: k-1); counted */
};

static double host_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

/* one op's span: constructed at the op's start, destroyed at its end (the one C++ nicety here:
 * every early return of a launcher still closes its span) */
struct prof_scope {
    struct cuda_state *st;
    int kind, i;
    double t0;
    prof_scope(struct cuda_state *s, int k, size_t bytes = 0, double flop = 0);
    ~prof_scope();
};

prof_scope::prof_scope(struct cuda_state *s, int k, size_t bytes, double flop) : st(s), kind(k), i(-1), t0(0)
{
    struct prof *p = st->prof;
    if (!p) return;
    p->calls[k]++;
    p->bytes[k] += (long)bytes;
    p->flop += flop;
    if (k == PR_UPLOAD || k == PR_DOWNLOAD) { t0 = host_ms(); return; }
    if (p->n == p->cap) {
        int cap = p->cap ? 2 * p->cap : 256;
        cudaEvent_t *ev = (cudaEvent_t *)realloc(p->ev, sizeof *ev * 2 * (size_t)cap);
        int *kind = (int *)realloc(p->kind, sizeof *kind * (size_t)cap);
        if (!ev || !kind) { free(ev ? ev : p->ev); free(kind ? kind : p->kind); memset(p, 0, sizeof *p); st->prof = NULL; free(p); return; }
        p->ev = ev; p->kind = kind;
        for (int j = 2 * p->cap; j < 2 * cap; j++) cudaEventCreate(&p->ev[j]);
        p->cap = cap;
    }
    i = p->n;
    p->kind[i] = k;
    cudaEventRecord(p->ev[2 * i], st->stream);
}

prof_scope::~prof_scope()
{
    struct prof *p = st->prof;
    if (!p) return;
    if (kind == PR_UPLOAD || kind == PR_DOWNLOAD) { p->ms[kind] += host_ms() - t0; return; }
    if (i < 0) return;
    cudaEventRecord(p->ev[2 * i + 1], st->stream);
    p->n = i + 1;
}

/* after the stream has drained: the pending spans' times into the totals */
static void prof_harvest(struct cuda_state *st)
{
    struct prof *p = st->prof;
    if (!p) return;
    for (int i = 0; i < p->n; i++) {
        float ms = 0;
        if (cudaEventElapsedTime(&ms, p->ev[2 * i], p->ev[2 * i + 1]) == cudaSuccess) p->ms[p->kind[i]] += ms;
    }
    p->n = 0;
    p->syncs++;
    cudaGetLastError();
    if (p->skip > 0 && --p->skip >= 0) {                       /* still warming up: start again */
        memset(p->ms, 0, sizeof p->ms); memset(p->calls, 0, sizeof p->calls); memset(p->bytes, 0, sizeof p->bytes);
        p->flop = 0;
        p->syncs = 0;
    }
}

static void prof_close(struct cuda_state *st)
{
    struct prof *p = st->prof;
    if (!p) return;
    prof_harvest(st);
    double total = 0;
    for (int k = 0; k < PR_N; k++) total += p->ms[k];
    fprintf(stderr, "cuda profile (device %d): %.1f ms in ops over %d syncs\n", st->dev, total, p->syncs);
    for (int k = 0; k < PR_N; k++) {
        if (!p->calls[k]) continue;
        fprintf(stderr, "  %-12s %9.2f ms %5.1f%% %8ld calls", prof_name[k], p->ms[k], total > 0 ? 100 * p->ms[k] / total : 0.0, p->calls[k]);
        if (p->bytes[k]) fprintf(stderr, ", %.1f MB", p->bytes[k] / 1e6);
        if (k == PR_LINEAR && p->ms[k] > 0) fprintf(stderr, ", %.1f GFLOP, %.2f TFLOP/s", p->flop / 1e9, p->flop / p->ms[k] / 1e9);
        fputc('\n', stderr);
    }
    for (int j = 0; j < 2 * p->cap; j++) cudaEventDestroy(p->ev[j]);
    free(p->ev); free(p->kind); free(p);
    st->prof = NULL;
}

/* ---- staged copies: pageable host memory through two page-locked halves ---- */

static int stage_ready(struct cuda_state *st)
{
    if (st->stage_ok) return st->stage_ok > 0;
    st->stage_ok = -1;                                         /* plain copies if this fails */
    if (cudaMallocHost((void **)&st->stage[0], 2 * STAGE_BYTES) != cudaSuccess) { cudaGetLastError(); st->stage[0] = NULL; return 0; }
    if (cudaEventCreateWithFlags(&st->stage_done[0], cudaEventDisableTiming) != cudaSuccess
        || cudaEventCreateWithFlags(&st->stage_done[1], cudaEventDisableTiming) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    st->stage[1] = st->stage[0] + STAGE_BYTES;
    st->stage_ok = 1;
    return 1;
}

/* host -> device: chunk c is copied into half c&1 (after that half's previous copy is done) and
 * its transfer enqueued; returns once the last chunk is enqueued (src is no longer needed) */
static void staged_upload(struct cuda_state *st, char *dst, const char *src, size_t bytes)
{
    for (size_t off = 0, c = 0; off < bytes; off += STAGE_BYTES, c++) {
        const size_t len = bytes - off < STAGE_BYTES ? bytes - off : STAGE_BYTES;
        const int k = (int)(c & 1);
        check_cuda(st, cudaEventSynchronize(st->stage_done[k]), "upload");
        memcpy(st->stage[k], src + off, len);
        check_cuda(st, cudaMemcpyAsync(dst + off, st->stage[k], len, cudaMemcpyHostToDevice, st->stream), "upload");
        check_cuda(st, cudaEventRecord(st->stage_done[k], st->stream), "upload");
    }
}

/* device -> host pieces: src's consecutive bytes[i] go to dst[i] (NULL: skipped). Chunk c+1's
 * transfer runs while chunk c is copied out of its half into the pieces it overlaps. */
static void staged_download(struct cuda_state *st, int count, void *const *dst, const size_t *bytes, const char *src)
{
    size_t total = 0;
    for (int i = 0; i < count; i++) total += bytes[i];
    const size_t n = (total + STAGE_BYTES - 1) / STAGE_BYTES;
    struct enc_pieces_walk w = { count, 0, 0, dst, bytes };
    for (size_t c = 0; c <= n; c++) {
        if (c < n) {
            const size_t off = c * STAGE_BYTES, len = total - off < STAGE_BYTES ? total - off : STAGE_BYTES;
            const int k = (int)(c & 1);
            check_cuda(st, cudaEventSynchronize(st->stage_done[k]), "download");   /* an upload may still read it */
            check_cuda(st, cudaMemcpyAsync(st->stage[k], src + off, len, cudaMemcpyDeviceToHost, st->stream), "download");
            check_cuda(st, cudaEventRecord(st->stage_done[k], st->stream), "download");
        }
        if (c == 0) continue;
        const size_t off = (c - 1) * STAGE_BYTES, len = total - off < STAGE_BYTES ? total - off : STAGE_BYTES;
        const int k = (int)((c - 1) & 1);
        check_cuda(st, cudaEventSynchronize(st->stage_done[k]), "download");
        enc_pieces_chunk(&w, off, st->stage[k], len);         /* into the pieces [off, off + len) overlaps */
    }
}

/* ---- download_pieces_later: copies that overlap the next ops (a second stream) ---- */

static void copy_part(const struct later_slot *s, int part, int parts)
{
    const size_t a = s->total / parts * part & ~(size_t)63, b = part + 1 == parts ? s->total : s->total / parts * (part + 1) & ~(size_t)63;
    if (b > a) enc_pieces_range(s->count, s->dst, s->bytes, s->host, a, b - a);
}

static void *copy_helper(void *arg)
{
    struct copy_pool *p = ((struct copy_helper_arg *)arg)->p;
    const int me = ((struct copy_helper_arg *)arg)->part;
    unsigned seen = 0;                                         /* jobs are numbered from 1 */
    for (;;) {
        pthread_mutex_lock(&p->mu);
        while (!p->stop && p->gen == seen) pthread_cond_wait(&p->go, &p->mu);
        if (p->stop) { pthread_mutex_unlock(&p->mu); return NULL; }
        seen = p->gen;
        const struct later_slot *s = p->job;
        const int parts = p->n + 1;
        pthread_mutex_unlock(&p->mu);
        copy_part(s, me, parts);
        pthread_mutex_lock(&p->mu);
        if (--p->left == 0) pthread_cond_signal(&p->done);
        pthread_mutex_unlock(&p->mu);
    }
}

static struct copy_pool *copy_pool_new(void)
{
    struct copy_pool *p = (struct copy_pool *)calloc(1, sizeof *p);
    if (!p) return NULL;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->go, NULL);
    pthread_cond_init(&p->done, NULL);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    const int want = cpus - 1 < COPY_HELPERS ? (int)(cpus > 1 ? cpus - 1 : 0) : COPY_HELPERS;
    for (int k = 0; k < want; k++) {
        p->arg[k] = (struct copy_helper_arg){ p, k + 1 };
        if (pthread_create(&p->th[k], NULL, copy_helper, &p->arg[k]) != 0) break;
        p->n = k + 1;                                          /* before any job: no lock needed */
    }
    return p;
}

static void copy_pool_free(struct copy_pool *p)
{
    if (!p) return;
    pthread_mutex_lock(&p->mu);
    p->stop = 1;
    pthread_cond_broadcast(&p->go);
    const int n = p->n;
    pthread_mutex_unlock(&p->mu);
    for (int k = 0; k < n; k++) pthread_join(p->th[k], NULL);
    pthread_cond_destroy(&p->go); pthread_cond_destroy(&p->done); pthread_mutex_destroy(&p->mu);
    free(p);
}

/* s's page-locked image into its pieces, on the caller and the helpers */
static void copy_pool_run(struct copy_pool *p, const struct later_slot *s)
{
    if (!p || !p->n) { copy_part(s, 0, 1); return; }
    pthread_mutex_lock(&p->mu);
    p->job = s;
    p->left = p->n;
    p->gen++;
    pthread_cond_broadcast(&p->go);
    pthread_mutex_unlock(&p->mu);
    copy_part(s, 0, p->n + 1);
    pthread_mutex_lock(&p->mu);
    while (p->left) pthread_cond_wait(&p->done, &p->mu);
    pthread_mutex_unlock(&p->mu);
}

static int later_ready(struct cuda_state *st)
{
    if (st->later_ok) return st->later_ok > 0;
    st->later_ok = -1;
    if (cudaStreamCreateWithFlags(&st->copy_stream, cudaStreamNonBlocking) != cudaSuccess) { cudaGetLastError(); st->copy_stream = NULL; return 0; }
    for (int k = 0; k < LATER_SLOTS; k++)
        if (cudaEventCreateWithFlags(&st->later[k].snapped, cudaEventDisableTiming) != cudaSuccess
            || cudaEventCreateWithFlags(&st->later[k].copied, cudaEventDisableTiming) != cudaSuccess) {
            cudaGetLastError();
            return 0;
        }
    st->pool = copy_pool_new();
    st->later_ok = 1;
    return 1;
}

/* the slot's copy out, once its device-to-host copy is done (nothing when it has none pending) */
static void later_drain(struct cuda_state *st, struct later_slot *s)
{
    if (!s->pending) return;
    s->pending = 0;
    cudaError_t e = cudaEventSynchronize(s->copied);
    if (e != cudaSuccess) { check_cuda(st, e, "download"); return; }   /* latched: sync reports it */
    copy_pool_run(st->pool, s);
}

/* room for total bytes and count pieces in a slot that has nothing pending */
static int later_reserve(struct cuda_state *st, struct later_slot *s, size_t total, int count)
{
    if (count > s->cap_pieces) {
        void **d = (void **)realloc(s->dst, sizeof *d * (size_t)count);
        if (d) s->dst = d;
        size_t *b = (size_t *)realloc(s->bytes, sizeof *b * (size_t)count);
        if (b) s->bytes = b;
        if (!d || !b) return 0;
        s->cap_pieces = count;
    }
    if (total <= s->cap) return 1;
    size_t cap = s->cap ? s->cap : (size_t)1 << 20;
    while (cap < total) cap *= 2;
    if (s->snap) cudaFree(s->snap);
    if (s->host) cudaFreeHost(s->host);
    s->snap = s->host = NULL; s->cap = 0;
    if (cudaMalloc((void **)&s->snap, cap) != cudaSuccess || cudaMallocHost((void **)&s->host, cap) != cudaSuccess) {
        cudaGetLastError();
        if (s->snap) cudaFree(s->snap);
        s->snap = NULL;
        return 0;
    }
    s->cap = cap;
    return 1;
}

static void cuda_download_pieces(struct enc_backend *be, int count, void *const *dst, const size_t *bytes, const void *src);

/* download_pieces whose copies overlap the ops enqueued after it: src is copied aside on the
 * device at once (in stream order), then to page-locked memory on the copy stream; the host
 * copies the previous call's slot out meanwhile, and the rest at sync. Without a slot (no
 * memory) it is download_pieces. */
static void cuda_download_pieces_later(struct enc_backend *be, int count, void *const *dst, const size_t *bytes, const void *src)
{
    struct cuda_state *st = st_of(be);
    size_t total = 0;
    for (int i = 0; i < count; i++) total += bytes[i];
    if (!total) return;
    if (!later_ready(st)) { cuda_download_pieces(be, count, dst, bytes, src); return; }
    prof_scope ps(st, PR_DOWNLOAD, total);
    struct later_slot *s = &st->later[st->later_next];
    later_drain(st, s);                                        /* normally done at the call before */
    if (!later_reserve(st, s, total, count)) { cuda_download_pieces(be, count, dst, bytes, src); return; }
    memcpy(s->dst, dst, sizeof *dst * (size_t)count);
    memcpy(s->bytes, bytes, sizeof *bytes * (size_t)count);
    s->count = count;
    s->total = total;
    check_cuda(st, cudaMemcpyAsync(s->snap, src, total, cudaMemcpyDeviceToDevice, st->stream), "download");
    check_cuda(st, cudaEventRecord(s->snapped, st->stream), "download");
    check_cuda(st, cudaStreamWaitEvent(st->copy_stream, s->snapped, 0), "download");
    check_cuda(st, cudaMemcpyAsync(s->host, s->snap, total, cudaMemcpyDeviceToHost, st->copy_stream), "download");
    check_cuda(st, cudaEventRecord(s->copied, st->copy_stream), "download");
    s->pending = 1;
    st->later_next = (st->later_next + 1) % LATER_SLOTS;
    later_drain(st, &st->later[st->later_next]);               /* the call before: the GPU has this one's ops */
}

static void later_drain_all(struct cuda_state *st)
{
    for (int k = 0; k < LATER_SLOTS; k++) later_drain(st, &st->later[(st->later_next + k) % LATER_SLOTS]);
}

static void cuda_close(struct enc_backend *be)
{
    struct cuda_state *st = st_of(be);
    if (!st) return;
    if (st->stream) cudaStreamSynchronize(st->stream);
    if (st->copy_stream) cudaStreamSynchronize(st->copy_stream);   /* pending slots are dropped */
    copy_pool_free(st->pool);
    for (int k = 0; k < LATER_SLOTS; k++) {
        struct later_slot *s = &st->later[k];
        if (s->snap) cudaFree(s->snap);
        if (s->host) cudaFreeHost(s->host);
        if (s->snapped) cudaEventDestroy(s->snapped);
        if (s->copied) cudaEventDestroy(s->copied);
        free(s->dst); free(s->bytes);
    }
    if (st->copy_stream) cudaStreamDestroy(st->copy_stream);
    if (st->table_host) cudaFreeHost(st->table_host);
    if (st->table_dev) cudaFree(st->table_dev);
    if (st->table_copied) cudaEventDestroy(st->table_copied);
    if (st->stage[0]) cudaFreeHost(st->stage[0]);
    for (int k = 0; k < 2; k++) if (st->stage_done[k]) cudaEventDestroy(st->stage_done[k]);
    prof_close(st);
    if (st->blas) cublasDestroy(st->blas);
    if (st->stream) cudaStreamDestroy(st->stream);
    cudaGetLastError();
    free(st);
    be->state = NULL;
}

static int cuda_open(struct enc_backend *be, char *err, size_t n)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {                      /* no driver, a stub, no device */
        snprintf(err, n, "no usable CUDA device (cudaGetDeviceCount: %s)",
                 e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
        cudaGetLastError();
        return ENC_ENODEV;
    }
    struct cuda_state *st = (struct cuda_state *)calloc(1, sizeof *st);
    if (!st) { snprintf(err, n, "cuda: out of host memory"); return SP_ENOMEM; }
    be->state = st;
    be->host_memory = 0;
    const char *what = NULL;
    cublasStatus_t bs;
    struct cudaFuncAttributes fa;
    int optin = 0;
    if ((e = cudaGetDevice(&st->dev)) != cudaSuccess) what = "cudaGetDevice";
    /* a device this binary has no kernel image for (see NVFLAGS) fails here, not mid-forward */
    else if ((e = cudaFuncGetAttributes(&fa, enc_attention_cuda)) != cudaSuccess) what = "kernel image for this device";
    else if ((e = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, st->dev)) != cudaSuccess) what = "device attributes";
    /* the attribute is per kernel and process-wide: set it once to the device maximum (idempotent,
     * so handles in several threads never lower it under each other); occupancy still follows the
     * bytes each launch asks for */
    else if ((e = cudaFuncSetAttribute(enc_attention_cuda, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       optin - (int)fa.sharedSizeBytes)) != cudaSuccess) what = "attention shared memory";
    else if ((e = cudaStreamCreateWithFlags(&st->stream, cudaStreamNonBlocking)) != cudaSuccess) what = "cudaStreamCreate";
    else if ((e = cudaEventCreateWithFlags(&st->table_copied, cudaEventDisableTiming)) != cudaSuccess) what = "cudaEventCreate";
    if (what) {
        snprintf(err, n, "device %d: %s: %s", st->dev, what, cudaGetErrorString(e));
        cudaGetLastError();
        cuda_close(be);
        return e == cudaErrorMemoryAllocation ? SP_ENOMEM : SP_EGPU;
    }
    /* default math mode: FP32 products stay FP32 (no TF32), as the CPU oracle computes them */
    if ((bs = cublasCreate(&st->blas)) != CUBLAS_STATUS_SUCCESS || (bs = cublasSetStream(st->blas, st->stream)) != CUBLAS_STATUS_SUCCESS) {
        snprintf(err, n, "device %d: cuBLAS: %s", st->dev, cublasGetStatusString(bs));
        cuda_close(be);
        return bs == CUBLAS_STATUS_ALLOC_FAILED ? SP_ENOMEM : SP_EGPU;
    }
    st->att_smem = (size_t)(optin - (int)fa.sharedSizeBytes);
    st->att_smem_plain = 48 * 1024;                             /* the default limit: no opt-in needed */
    const char *pe = getenv("SP_CUDA_PROFILE");
    if (pe && atoi(pe) > 0 && (st->prof = (struct prof *)calloc(1, sizeof *st->prof))) st->prof->skip = atoi(pe) - 1;
    pthread_once(&warm_once, warm_kernels);
    return SP_OK;
}

/* zeroed device memory; NULL on failure (the graph turns that into SP_ENOMEM). A failure that
 * is not out-of-memory is latched as well, so the next sync names it. */
static void *cuda_alloc(struct enc_backend *be, size_t bytes)
{
    struct cuda_state *st = st_of(be);
    void *p = NULL;
    if (!bytes) bytes = 1;
    cudaError_t e = cudaMalloc(&p, bytes);
    if (e != cudaSuccess) {
        cudaGetLastError();
        if (e != cudaErrorMemoryAllocation) latch(st, SP_EGPU, "cudaMalloc", cudaGetErrorString(e));
        return NULL;
    }
    check_cuda(st, cudaMemsetAsync(p, 0, bytes, st->stream), "cudaMemset");
    return p;
}

static void cuda_free(struct enc_backend *be, void *p)
{
    if (p) check_cuda(st_of(be), cudaFree(p), "cudaFree");
}

/* The caller reuses src at once (enc_forward refills w->hp for the second PE table and w->hi for
 * the next int structure right after the call). A large copy goes through the page-locked halves
 * (staged_upload): src is read before the call returns and the transfer finishes in stream order.
 * A small one (and any when page-locked memory is unavailable) waits for its copy: for pageable
 * memory cudaMemcpyAsync only "might be synchronous" (CUDA API sync behaviour). */
static void cuda_upload(struct enc_backend *be, void *dst, const void *src, size_t bytes)
{
    struct cuda_state *st = st_of(be);
    if (!bytes) return;
    prof_scope ps(st, PR_UPLOAD, bytes);
    if (bytes >= STAGE_MIN && stage_ready(st)) { staged_upload(st, (char *)dst, (const char *)src, bytes); return; }
    check_cuda(st, cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, st->stream), "upload");
    check_cuda(st, cudaStreamSynchronize(st->stream), "upload");
}

/* Waits: the graph reads some downloads (SG-Net's aggregation scalars) before any sync. A large
 * copy goes through the page-locked halves, its PCIe transfer overlapping the host copy out. */
static void cuda_download(struct enc_backend *be, void *dst_host, const void *src, size_t bytes)
{
    struct cuda_state *st = st_of(be);
    if (!bytes) return;
    prof_scope ps(st, PR_DOWNLOAD, bytes);
    if (bytes >= STAGE_MIN && stage_ready(st)) { staged_download(st, 1, &dst_host, &bytes, (const char *)src); return; }
    check_cuda(st, cudaMemcpyAsync(dst_host, src, bytes, cudaMemcpyDeviceToHost, st->stream), "download");
    check_cuda(st, cudaStreamSynchronize(st->stream), "download");
}

/* One pass over src for all pieces: through the page-locked halves straight into each piece,
 * or, small or without page-locked memory, a copy per wanted piece (each one waits). */
static void cuda_download_pieces(struct enc_backend *be, int count, void *const *dst, const size_t *bytes, const void *src)
{
    struct cuda_state *st = st_of(be);
    size_t total = 0;
    for (int i = 0; i < count; i++) total += bytes[i];
    if (!total) return;
    prof_scope ps(st, PR_DOWNLOAD, total);
    if (total >= STAGE_MIN && stage_ready(st)) { staged_download(st, count, dst, bytes, (const char *)src); return; }
    const char *p = (const char *)src;
    for (int i = 0; i < count; p += bytes[i++]) {
        if (!dst[i] || !bytes[i]) continue;
        check_cuda(st, cudaMemcpyAsync(dst[i], p, bytes[i], cudaMemcpyDeviceToHost, st->stream), "download");
        check_cuda(st, cudaStreamSynchronize(st->stream), "download");
    }
}

static int cuda_sync(struct enc_backend *be, char *err, size_t n)
{
    struct cuda_state *st = st_of(be);
    later_drain_all(st);
    check_cuda(st, cudaStreamSynchronize(st->stream), "stream");
    check_launch(st, "pending");
    prof_harvest(st);
    if (!st->latched) return SP_OK;
    int rc = st->latched;
    snprintf(err, n, "%s", st->msg);
    st->latched = SP_OK;                                       /* reported; an OOM can be retried */
    st->msg[0] = 0;
    return rc;
}

/* Y[M,N] = X[M,K] W[K,N] (+b) (+Y), row-major. cuBLAS is column-major: the same memory read
 * column-major is Yᵀ = Wᵀ Xᵀ, i.e. sgemm(m = N, n = M, k = K, A = W (ldw), B = X (ldx), C = Y (ldy)).
 * The bias is written into Y first (beta = 1), as the CPU does. */
static void cuda_linear(struct enc_backend *be, int M, int K, int N, const float *X, int ldx,
                        const float *W, int ldw, const float *b, float *Y, int ldy, int accumulate)
{
    struct cuda_state *st = st_of(be);
    prof_scope ps(st, PR_LINEAR, 0, 2.0 * M * N * (K > 0 ? K : 0));
    if (M <= 0 || N <= 0) return;
    float beta = accumulate ? 1.0f : 0.0f;
    const unsigned blocks = ew_blocks((size_t)M * N);
    if (b) {
        enc_bias_cuda<<<blocks, EW_THREADS, 0, st->stream>>>(M, N, b, Y, ldy, accumulate);
        check_launch(st, "linear bias");
        beta = 1.0f;
    }
    if (K <= 0) {
        if (!b && !accumulate) { enc_bias_cuda<<<blocks, EW_THREADS, 0, st->stream>>>(M, N, NULL, Y, ldy, 0); check_launch(st, "linear zero"); }
        return;
    }
    const float one = 1.0f;
    check_blas(st, cublasSgemm(st->blas, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, W, ldw, X, ldx, &beta, Y, ldy), "cublasSgemm");
}

static void cuda_gather_rows(struct enc_backend *be, int N, int d, const float *table, const int32_t *ids, float *out)
{
    struct cuda_state *st = st_of(be);
    const size_t n = (size_t)N * d;
    if (!n) return;
    prof_scope ps(st, PR_ELEMENTWISE);
    enc_gather_cuda<<<ew_blocks(n), EW_THREADS, 0, st->stream>>>(n, d, table, ids, out);
    check_launch(st, "gather rows");
}

static void cuda_embed_sum(struct enc_backend *be, int N, int d, const float *word, const float *type, const float *pos,
                           const int32_t *idx, float *out)
{
    struct cuda_state *st = st_of(be);
    const size_t n = (size_t)N * d;
    if (!n) return;
    prof_scope ps(st, PR_ELEMENTWISE);
    enc_embed_sum_cuda<<<ew_blocks(n), EW_THREADS, 0, st->stream>>>(n, d, word, type, pos, idx, out);
    check_launch(st, "embeddings");
}

static void cuda_act(struct enc_backend *be, enum enc_act a, size_t n, float *x)
{
    struct cuda_state *st = st_of(be);
    prof_scope ps(st, PR_ELEMENTWISE);
    if (!n) return;
    enc_act_cuda<<<ew_blocks(n), EW_THREADS, 0, st->stream>>>((int)a, n, x);
    check_launch(st, "act");
}

static void cuda_add(struct enc_backend *be, size_t n, const float *a, const float *b, float *out)
{
    struct cuda_state *st = st_of(be);
    prof_scope ps(st, PR_ELEMENTWISE);
    if (!n) return;
    enc_add_cuda<<<ew_blocks(n), EW_THREADS, 0, st->stream>>>(n, a, b, out);
    check_launch(st, "add");
}

static void cuda_axpby(struct enc_backend *be, size_t n, float alpha, const float *a, float beta, const float *b, float *out)
{
    struct cuda_state *st = st_of(be);
    prof_scope ps(st, PR_ELEMENTWISE);
    if (!n) return;
    enc_axpby_cuda<<<ew_blocks(n), EW_THREADS, 0, st->stream>>>(n, alpha, a, beta, b, out);
    check_launch(st, "axpby");
}

static void cuda_layer_norm(struct enc_backend *be, int rows, int d, const float *x, const float *g,
                            const float *b, float eps, float *out)
{
    struct cuda_state *st = st_of(be);
    prof_scope ps(st, PR_LAYER_NORM);
    if (rows <= 0 || d <= 0) return;
    enc_layer_norm_cuda<<<rows, LN_THREADS, 0, st->stream>>>(d, x, g, b, eps, out);
    check_launch(st, "layer_norm");
}

static void cuda_rms_norm(struct enc_backend *be, int rows, int d, const float *x, const float *g, float eps, float *out)
{
    struct cuda_state *st = st_of(be);
    prof_scope ps(st, PR_LAYER_NORM);
    if (rows <= 0 || d <= 0) return;
    enc_rms_norm_cuda<<<rows, LN_THREADS, 0, st->stream>>>(d, x, g, eps, out);
    check_launch(st, "rms_norm");
}

static void cuda_rope(struct enc_backend *be, int rows, int heads, int dk, int rot, float *x, int ldx, const float *cs)
{
    struct cuda_state *st = st_of(be);
    prof_scope ps(st, PR_ELEMENTWISE);
    SP_ASSERT(rot >= 0 && rot <= dk && rot % 2 == 0);
    const size_t n = (size_t)rows * heads * (rot / 2);
    if (!n) return;
    enc_rope_cuda<<<ew_blocks(n), EW_THREADS, 0, st->stream>>>(rows, heads, dk, rot, x, ldx, cs);
    check_launch(st, "rope");
}

static void cuda_gate(struct enc_backend *be, enum enc_gate mode, size_t n, const float *pre,
                      const float *a, const float *b, float *out)
{
    struct cuda_state *st = st_of(be);
    prof_scope ps(st, PR_ELEMENTWISE);
    SP_ASSERT(mode != ENC_GATE_FUSION || b);
    if (!n) return;
    enc_gate_cuda<<<ew_blocks(n), EW_THREADS, 0, st->stream>>>((int)mode, n, pre, a, b, out);
    check_launch(st, "gate");
}

static void cuda_absdiff_mul(struct enc_backend *be, size_t n, const float *a, const float *b, float *absdiff, float *prod)
{
    struct cuda_state *st = st_of(be);
    prof_scope ps(st, PR_ELEMENTWISE);
    if (!n) return;
    enc_absdiff_mul_cuda<<<ew_blocks(n), EW_THREADS, 0, st->stream>>>(n, a, b, absdiff, prod);
    check_launch(st, "absdiff_mul");
}

/* Room for count argument structs on both sides. Growing waits for the stream: the old arrays
 * may still be read by a pending copy or kernel. */
/* The device copy of a table of bytes bytes (NULL after a latched error). Growing waits for the
 * stream: the old arrays may still be read by a pending copy or kernel. */
static const void *dev_table(struct cuda_state *st, const void *src, size_t bytes, const char *what)
{
    if (bytes > st->table_cap) {
        size_t cap = st->table_cap ? st->table_cap : 16384;
        while (cap < bytes) cap *= 2;
        check_cuda(st, cudaStreamSynchronize(st->stream), what);
        if (st->table_host) cudaFreeHost(st->table_host);
        if (st->table_dev) cudaFree(st->table_dev);
        st->table_host = NULL; st->table_dev = NULL; st->table_cap = 0;
        cudaError_t e = cudaMallocHost((void **)&st->table_host, cap);
        if (e == cudaSuccess) e = cudaMalloc((void **)&st->table_dev, cap);
        if (e != cudaSuccess) { check_cuda(st, e, what); return NULL; }
        st->table_cap = cap;
    }
    /* the host side is rewritten only after the previous copy has read it */
    check_cuda(st, cudaEventSynchronize(st->table_copied), what);
    memcpy(st->table_host, src, bytes);
    check_cuda(st, cudaMemcpyAsync(st->table_dev, st->table_host, bytes, cudaMemcpyHostToDevice, st->stream), what);
    check_cuda(st, cudaEventRecord(st->table_copied, st->stream), what);
    return st->table_dev;
}

/* All sentences of a batch in one launch: grid (longest n, most heads, sentences), at most
 * 65535 sentences per launch (the grid's z limit). */
static void cuda_attention(struct enc_backend *be, int count, const struct enc_attn_args *a)
{
    struct cuda_state *st = st_of(be);
    prof_scope ps(st, PR_ATTENTION);
    int max_n = 0, max_h = 0, max_dk = 0, plain = 1;
    size_t smem = 0;
    for (int s = 0; s < count; s++) {
        const struct enc_attn_args *x = &a[s];
        SP_ASSERT(x->H > 0 && x->H <= ENC_MAX_HEADS && x->dk > 0);
        SP_ASSERT(!x->rel_k || (x->rel && x->rel_v && x->rel_clip >= 0));
        SP_ASSERT(!x->seq_k || (x->seq_v && x->seq_clip >= 0));
        SP_ASSERT(!x->sel_q || x->sel_k);
        SP_ASSERT(!x->pos_bias || (x->pos_clip >= 0 && x->pos_ld >= x->H));
        SP_ASSERT((!x->rp_k && !x->rp_q) || (x->rp_idx && x->rp_max >= 0 && x->rp_rows > 0 && x->rp_ld >= x->H * x->dk));
        if (x->n <= 0) continue;
        if (x->attn_mean) check_cuda(st, cudaMemsetAsync(x->attn_mean, 0, sizeof(float) * (size_t)x->n * x->n, st->stream), "attention map");
        const size_t nb = (x->rel_k ? 2 * (size_t)x->rel_clip + 1 : 0) + (x->seq_k ? 2 * (size_t)x->seq_clip + 1 : 0);
        const size_t need = sizeof(float) * (2 * (size_t)x->dk + (size_t)x->n + 2 * nb + ATT_THREADS) + (size_t)x->n;
        if (need > smem) smem = need;
        if (x->n > max_n) max_n = x->n;
        if (x->H > max_h) max_h = x->H;
        if (x->dk > max_dk) max_dk = x->dk;
        plain &= !x->rel_k && !x->seq_k && !x->sel_q && !x->allow && !x->rp_k && !x->rp_q;
    }
    if (max_n == 0) return;
    const size_t smem_plain = sizeof(float) * PLAIN_WARPS * ((size_t)max_dk + (size_t)max_n);
    if (plain && smem_plain <= st->att_smem_plain) {        /* one warp per row and head */
        const struct enc_attn_args *da = (const struct enc_attn_args *)dev_table(st, a, sizeof *a * (size_t)count, "attention args");
        if (!da) return;
        for (int s0 = 0; s0 < count; s0 += 65535) {
            const int c = count - s0 < 65535 ? count - s0 : 65535;
            dim3 grid((unsigned)((max_n + PLAIN_WARPS - 1) / PLAIN_WARPS), (unsigned)max_h, (unsigned)c);
            enc_attention_plain_cuda<<<grid, PLAIN_WARPS * 32, smem_plain, st->stream>>>(da + s0, c, max_n);
            check_launch(st, "attention");
        }
        return;
    }
    if (smem > st->att_smem) {                                 /* ~50k tokens on an H100 */
        char why[128];
        snprintf(why, sizeof why, "%d tokens need %zu bytes of shared memory per block, the device allows %zu", max_n, smem, st->att_smem);
        latch(st, SP_EGPU, "attention", why);
        return;
    }
    const struct enc_attn_args *da = (const struct enc_attn_args *)dev_table(st, a, sizeof *a * (size_t)count, "attention args");
    if (!da) return;
    for (int s0 = 0; s0 < count; s0 += 65535) {
        const int c = count - s0 < 65535 ? count - s0 : 65535;
        dim3 grid((unsigned)max_n, (unsigned)max_h, (unsigned)c);
        enc_attention_cuda<<<grid, ATT_THREADS, smem, st->stream>>>(da + s0, c);
        check_launch(st, "attention");
    }
}

/* All sentences of a batch in one launch (as attention): grid (longest n, widest d / PSA_THREADS,
 * sentences), at most 65535 sentences per launch (the grid's z limit). */
static void cuda_psa(struct enc_backend *be, int count, const struct enc_psa_args *args)
{
    struct cuda_state *st = st_of(be);
    prof_scope ps(st, PR_PSA);
    int max_n = 0, max_d = 0;
    for (int s = 0; s < count; s++) {
        const struct enc_psa_args *a = &args[s];
        if (a->n <= 0) continue;
        if (a->attn_mean) check_cuda(st, cudaMemsetAsync(a->attn_mean, 0, sizeof(float) * (size_t)a->n * a->n, st->stream), "psa map");
        if (a->n > max_n) max_n = a->n;
        if (a->d > max_d) max_d = a->d;
    }
    if (max_n == 0 || max_d <= 0) return;
    const struct enc_psa_args *da = (const struct enc_psa_args *)dev_table(st, args, sizeof *args * (size_t)count, "psa args");
    if (!da) return;
    for (int s0 = 0; s0 < count; s0 += 65535) {
        const int c = count - s0 < 65535 ? count - s0 : 65535;
        dim3 grid((unsigned)max_n, (unsigned)((max_d + PSA_THREADS - 1) / PSA_THREADS), (unsigned)c);
        enc_psa_cuda<<<grid, PSA_THREADS, 0, st->stream>>>(da + s0, c);
        check_launch(st, "psa");
    }
}

static void cuda_pool(struct enc_backend *be, enum enc_pooling mode, int count, const int *n, const size_t *off, int d,
                      const float *x, const float *e, float *out, int ldo)
{
    struct cuda_state *st = st_of(be);
    prof_scope ps(st, PR_POOL);
    SP_ASSERT(mode != ENC_POOL_ATT || e);
    if (d <= 0 || count <= 0) return;
    struct pool_row *tab = (struct pool_row *)malloc(sizeof *tab * (size_t)count);
    if (!tab) { latch(st, SP_ENOMEM, "pool", "out of host memory"); return; }
    for (int s = 0; s < count; s++) { tab[s].off = off[s]; tab[s].n = n[s]; }
    const struct pool_row *dt = (const struct pool_row *)dev_table(st, tab, sizeof *tab * (size_t)count, "pool rows");
    free(tab);
    if (!dt) return;
    dim3 grid((unsigned)((d + POOL_THREADS - 1) / POOL_THREADS), (unsigned)(count < 65535 ? count : 65535));
    enc_pool_cuda<<<grid, POOL_THREADS, 0, st->stream>>>((int)mode, dt, count, d, x, e, out, ldo);
    check_launch(st, "pool");
}

static const struct enc_plugin_abi cuda_abi = {
    ENC_PLUGIN_ABI, sizeof(struct enc_backend_ops), sizeof(struct enc_backend),
    sizeof(struct enc_attn_args), sizeof(struct enc_psa_args),
};
const struct enc_plugin_abi *enc_cuda_abi(void) { return &cuda_abi; }

const struct enc_backend_ops enc_cuda_ops = {
    .name = "cuda",
    .open = cuda_open, .close = cuda_close,
    .alloc = cuda_alloc, .free = cuda_free, .upload = cuda_upload, .download = cuda_download,
    .download_pieces = cuda_download_pieces, .sync = cuda_sync,
    .linear = cuda_linear, .act = cuda_act, .add = cuda_add, .axpby = cuda_axpby,
    .layer_norm = cuda_layer_norm, .gate = cuda_gate, .absdiff_mul = cuda_absdiff_mul,
    .attention = cuda_attention, .psa = cuda_psa, .pool = cuda_pool,
    .params_changed = NULL,   /* weights are used as uploaded: nothing derived to drop */
    .linear_act = NULL, .add_layer_norm = NULL, .linear_add_layer_norm = NULL,   /* the unfused ops: separate kernels */
    .download_pieces_later = cuda_download_pieces_later,
    .gather_rows = cuda_gather_rows,
    .embed_sum = cuda_embed_sum,
    .pack_weight = NULL,          /* the graph uploads f32 weights (widened from f16/bf16 on the host) */
    .rms_norm = cuda_rms_norm, .rope = cuda_rope,
};

} /* extern "C" */
