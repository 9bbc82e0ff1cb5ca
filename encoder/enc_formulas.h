/* encoder/enc_formulas.h — the per-element formulas of the encoder ops, written once for both
 * backends: enc_cpu.c (cc, the oracle) and enc_cuda.cu (nvcc, where every function is also a
 * __device__ function). A formula changed here changes in both backends at once; what is left in
 * each backend is the order of the loops and reductions around these calls.
 *
 * Include after encoder/encoder_int.h (the enums). Everything is a static inline function of
 * scalars: no allocation, no errors, no globals; math through <math.h> names (expf, expm1f, erff,
 * tanhf, exp), which nvcc maps to its device library in device code.
 *
 * Precision is part of the backend, not of the formula: the CPU scores attention keys and
 * normalises in double, the GPU in float, so the score is written once as a macro body and
 * instantiated for both types (enc_f_score_d / enc_f_score_f), and so is the masked softmax
 * numerator (enc_f_masked_exp_d / _f). The CPU's phrase attention (PSA)
 * uses sp_exp_nonpos (common/expf.h) / enc_f_elu_fast, vectorisable forms of e^x and ELU within
 * 2 ulp of expf / expm1f; the GPU's PSA uses expf / enc_f_elu (the same formula). */
#ifndef ENC_FORMULAS_H
#define ENC_FORMULAS_H

#ifndef ENC_ENCODER_INT_H
#error "include encoder/encoder_int.h before encoder/enc_formulas.h"
#endif

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "common/expf.h"

#ifdef __CUDACC__
#define ENC_F static __forceinline__ __host__ __device__
#else
#define ENC_F static inline
#endif

/* ---- activations (enc_act) ---- */

ENC_F float enc_f_relu(float x) { return x > 0 ? x : 0.0f; }
/* exact-erf GELU; the constant is 1/sqrt(2) rounded to float */
ENC_F float enc_f_gelu(float x) { return 0.5f * x * (1.0f + erff(x * 0.70710678118654752440f)); }
ENC_F float enc_f_elu(float x) { return x > 0 ? x : expm1f(x); }
ENC_F float enc_f_sigmoid(float x) { return 1.0f / (1.0f + expf(-x)); }
/* the tanh GELU ("gelu_new": ALBERT, GPT-2), transformers' NewGELUActivation in its order:
 * 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))); the constant is √(2/π) rounded to float */
ENC_F float enc_f_gelu_tanh(float x)
{
    return 0.5f * x * (1.0f + tanhf(0.79788456080286535588f * (x + 0.044715f * (x * x * x))));
}

ENC_F float enc_f_act(int a, float x)
{
    switch (a) {
    case ENC_ACT_RELU: return enc_f_relu(x);
    case ENC_ACT_GELU: return enc_f_gelu(x);
    case ENC_ACT_ELU: return enc_f_elu(x);
    case ENC_ACT_TANH: return tanhf(x);
    case ENC_ACT_SIGMOID: return enc_f_sigmoid(x);
    case ENC_ACT_GELU_TANH: return enc_f_gelu_tanh(x);
    }
    return x;
}

/* SiLU as torch's F.silu: x / (1 + e^−x) */
ENC_F float enc_f_silu(float x) { return x / (1.0f + expf(-x)); }

/* ---- gates (enc_gate): f = σ(pre); b is ignored when has_b == 0 (PSAN only) ---- */

ENC_F float enc_f_gate(int mode, float pre, float a, float b, int has_b)
{
    if (mode == ENC_GATE_SILU) return enc_f_silu(pre) * a;   /* SwiGLU: act(gate) * up, in that order */
    if (mode == ENC_GATE_GELU_TANH) return enc_f_gelu_tanh(pre) * a;   /* GeGLU (Gemma) */
    float f = enc_f_sigmoid(pre);
    if (mode == ENC_GATE_FUSION) return f * a + (1.0f - f) * b;
    return f * enc_f_elu(a) + (has_b ? (1.0f - f) * b : 0.0f);
}

/* ---- attention masks and score ---- */

/* relative position -> bucket: clip(rel, -clip, clip) + clip, in [0, 2·clip] */
ENC_F int enc_f_rel_bucket(int rel, int clip) { return (rel < -clip ? -clip : rel > clip ? clip : rel) + clip; }

/* T5's and MPNet's bidirectional relative position bucket of key j for query i, rel = j − i
 * (MPNetEncoder.relative_position_bucket, its float arithmetic in its order): half the buckets
 * for keys after the query; |rel| < num_buckets/4 exact, then logarithmic up to max_distance,
 * the last bucket of each half beyond. Constant for |rel| >= max_distance. */
ENC_F int enc_f_t5_bucket(int rel, int num_buckets, int max_distance)
{
    int ret = 0, n = -rel;
    num_buckets /= 2;
    if (n < 0) { ret += num_buckets; n = -n; }
    const int max_exact = num_buckets / 2;
    if (n < max_exact) return ret + n;
    const float l = logf((float)n / (float)max_exact) / (float)log((double)max_distance / max_exact)
                    * (float)(num_buckets - max_exact);
    const int large = max_exact + (int)l;
    return ret + (large < num_buckets - 1 ? large : num_buckets - 1);
}

/* additive score bias of head h for key j of query i from a table by relative offset (MPNet's
 * relative attention bias resolved once per offset): row clip(j − i) + clip of tab [2·clip+1, ld] */
ENC_F float enc_f_pos_bias(const float *tab, int ld, int clip, int h, int i, int j)
{
    return tab[(size_t)enc_f_rel_bucket(j - i, clip) * (size_t)ld + (size_t)h];
}

/* DeBERTa-v2's relative position of query i and key j, rel = i − j, in its buckets
 * (make_log_bucket_position, its float32 arithmetic in its order): rel itself inside
 * ±bucket_size/2, then ceil(log(|rel|/mid) / log((max_position − 1)/mid) · (mid − 1)) + mid with
 * rel's sign; bucket_size <= 0: rel itself (build_relative_position without buckets) */
ENC_F int enc_f_deberta_bucket(int rel, int bucket_size, int max_position)
{
    if (bucket_size <= 0 || max_position <= 0) return rel;
    const int mid = bucket_size / 2, sign = rel > 0 ? 1 : rel < 0 ? -1 : 0;
    const int abs_pos = rel < mid && rel > -mid ? mid - 1 : (rel < 0 ? -rel : rel);
    if (abs_pos <= mid) return rel;
    const float lp = ceilf(logf((float)abs_pos / (float)mid) / logf((float)(max_position - 1) / (float)mid) * (float)(mid - 1))
                     + (float)mid;
    return (int)(lp * (float)sign);
}

/* the rows of DeBERTa's position projections [2·span, ·] that query i and key j read: c2p (the
 * query's content against the key's relative position) clamp(bucket(i − j) + span) and p2c (the
 * key's content against the query's) clamp(−bucket(j − i) + span), both clamped to 0..2·span − 1 */
ENC_F int enc_f_rp_clamp(int r, int span) { return r < 0 ? 0 : r > 2 * span - 1 ? 2 * span - 1 : r; }
ENC_F int enc_f_rp_c2p(int i, int j, int span, int bucket_size, int max_position)
{
    return enc_f_rp_clamp(enc_f_deberta_bucket(i - j, bucket_size, max_position) + span, span);
}
ENC_F int enc_f_rp_p2c(int i, int j, int span, int bucket_size, int max_position)
{
    return enc_f_rp_clamp(-enc_f_deberta_bucket(j - i, bucket_size, max_position) + span, span);
}

/* the same from a table of them by offset i − j (enc_attn_args.rp_idx: [2·max + 1][2], the
 * offsets beyond ±max clipped) */
ENC_F void enc_f_rp_cols(const int32_t *idx, int max, int i, int j, int *c2p, int *p2c)
{
    int o = i - j;
    o = o < -max ? -max : o > max ? max : o;
    *c2p = idx[2 * (o + max)];
    *p2c = idx[2 * (o + max) + 1];
}

/* DeBERTa's disentangled score terms after the scale (c2p/s + p2c/s, s = sqrt(dk · scale_factor)) */
ENC_F float enc_f_rp_score(float c2p, float p2c, float scale) { return c2p * scale + p2c * scale; }

/* keys query i of an n-word sentence may attend to under a direction mask: j in [*lo, *hi]
 * (empty when *lo > *hi) */
ENC_F void enc_f_dir_range(int dir, int i, int n, int *lo, int *hi)
{
    *lo = 0; *hi = n - 1;
    switch (dir) {
    case ENC_DIR_FWD: *hi = i; break;
    case ENC_DIR_BWD: *lo = i; break;
    case ENC_DIR_FWD_STRICT: *hi = i - 1; break;
    case ENC_DIR_BWD_STRICT: *lo = i + 1; break;
    default: break;
    }
}

/* the first key/value column of query head h (grouped-query attention: H / kv_heads query heads share
 * one key/value head; kv_heads 0 or H: its own) */
ENC_F int enc_f_kv_off(int h, int H, int kv_heads, int dk)
{
    return (kv_heads > 0 && kv_heads < H ? h / (H / kv_heads) : h) * dk;
}

/* SSAN selection: key j is kept when E_s = sel_q_i·sel_k_j (unscaled) is positive */
ENC_F int enc_f_sel_allows(float es) { return es > 0.0f; }

/* distance prior d(i, j) of a head (enc_dist): |i − j| (WORD), the tree distance (DEP, dist_ij
 * read only then), 0 (NONE) */
ENC_F int enc_f_prior_dist(int dis, int i, int j, const int16_t *dist_ij)
{
    if (dis == ENC_DIST_WORD) return abs(i - j);
    if (dis == ENC_DIST_DEP) return *dist_ij;
    return 0;
}

/* score of an allowed key: s = t·scale − α·d(i, j), t = q_i·(k_j + w^K buckets) */
#define ENC_F_SCORE_BODY(T)                                                                 \
    {                                                                                       \
        T s = (T)t * scale;                                                                 \
        if (dis != ENC_DIST_NONE) s -= (T)alpha * (T)enc_f_prior_dist(dis, i, j, dist_ij);   \
        return s;                                                                           \
    }
ENC_F double enc_f_score_d(float t, float scale, int dis, float alpha, int i, int j, const int16_t *dist_ij) ENC_F_SCORE_BODY(double)
ENC_F float enc_f_score_f(float t, float scale, int dis, float alpha, int i, int j, const int16_t *dist_ij) ENC_F_SCORE_BODY(float)
#undef ENC_F_SCORE_BODY

/* masked softmax numerator: e^(s − m) for an allowed key, 0 for a masked one, m = the row's
 * maximum over allowed keys. A row with no allowed key is never exponentiated: both backends
 * give it zero weights (safe softmax, docs/spec/structures.md §0); each divides by its own Σ afterwards. */
ENC_F double enc_f_masked_exp_d(int ok, double s, double m) { return ok ? exp(s - m) : 0.0; }
ENC_F float enc_f_masked_exp_f(int ok, float s, float m) { return ok ? expf(s - m) : 0.0f; }

/* ---- pooling (enc_pooling) of feature k over the n rows of x [n, d] (e: ATT scores [n, d]);
 * double accumulation, n == 0 gives 0 ---- */

ENC_F float enc_f_pool(int mode, int n, int d, int k, const float *x, const float *e)
{
    switch (mode) {
    case ENC_POOL_MEAN: {
        double acc = 0;
        for (int i = 0; i < n; i++) acc += x[(size_t)i * d + k];
        return n ? (float)(acc / n) : 0.0f;
    }
    case ENC_POOL_MAX: {
        float m = n ? x[k] : 0.0f;
        for (int i = 1; i < n; i++) if (x[(size_t)i * d + k] > m) m = x[(size_t)i * d + k];
        return m;
    }
    case ENC_POOL_FIRST: return n ? x[k] : 0.0f;
    case ENC_POOL_ATT: {               /* Σ_i softmax_i(e[·][k])[i]·x[i][k] */
        double m = -INFINITY, z = 0, acc = 0;
        for (int i = 0; i < n; i++) if (e[(size_t)i * d + k] > m) m = e[(size_t)i * d + k];
        for (int i = 0; i < n; i++) {
            double p = exp(e[(size_t)i * d + k] - m);
            z += p; acc += p * x[(size_t)i * d + k];
        }
        return n ? (float)(acc / z) : 0.0f;
    }
    }
    return 0.0f;
}

/* ---- decoders: RMSNorm and rotary embeddings ---- */

/* RMSNorm (transformers' LlamaRMSNorm in f32): ss = Σ x² over the row (double), then each element
 * g·(x·inv), inv = 1/sqrt(ss/d + eps) */
ENC_F double enc_f_rms_inv(double ss, int d, float eps) { return 1.0 / sqrt(ss / d + (double)eps); }
ENC_F float enc_f_rms_scale(float x, double inv, float g) { return g * (float)(x * inv); }

/* RoPE's rotate_half form (q·cos + rotate_half(q)·sin): the low half c < dk/2 of a head gets
 * x_c·cos + (−x_{c+dk/2})·sin, the high half x_{c+dk/2}·cos + x_c·sin */
ENC_F float enc_f_rope_lo(float lo, float hi, float c, float s) { return lo * c + (-hi) * s; }
ENC_F float enc_f_rope_hi(float lo, float hi, float c, float s) { return hi * c + lo * s; }

/* ---- the CPU PSA's vectorisable ELU ---- */

/* ELU with sp_exp_nonpos (common/expf.h): e^x - 1 loses relative (not absolute: < 1e-7) precision as
 * x -> 0-, which is what the attention scores it feeds care about */
ENC_F float enc_f_elu_fast(float x)
{
    float em1 = sp_exp_nonpos(x) - 1.0f;   /* computed for every x: a select, not a branch, vectorises */
    return x > 0.0f ? x : em1;
}

#endif
