/* common/dtype.h — the element types a store keeps encoded vectors in (encode --store-dtype),
 * and the conversions between them and float (common/dtype.c).
 *
 *   f32   IEEE binary32, 4 bytes: the values as computed (the default, and every store written
 *         before --store-dtype existed).
 *   f16   IEEE binary16, 2 bytes: 11 significant bits, normal range 6.1e-5..65504, subnormals
 *         down to 6.0e-8. Float -> half rounds to nearest, ties to even; beyond 65504 (from
 *         65520 on) is inf; a NaN stays a NaN (quiet, sign and top payload bits kept).
 *   bf16  bfloat16, 2 bytes: the top 16 bits of the float (8 significant bits, float's range).
 *         Rounds to nearest, ties to even, on the dropped 16 bits; a NaN stays a NaN (quiet).
 * Half -> float and bf16 -> float are exact. Bytes on disk are little-endian whatever the host. */
#ifndef SP_STYPE_H
#define SP_STYPE_H

#include <stddef.h>
#include <stdint.h>

enum sp_stype { SP_STYPE_F32 = 0, SP_STYPE_F16 = 1, SP_STYPE_BF16 = 2 };

#define SP_STYPE_CHOICES "f32|f16|bf16"

/* "f32", "f16", "bf16" */
const char *sp_stype_name(enum sp_stype t);
/* 0 with *t set for one of the names above, -1 otherwise */
int sp_stype_parse(const char *name, enum sp_stype *t);
/* bytes per element: 4 or 2 */
size_t sp_stype_size(enum sp_stype t);

uint16_t sp_f32_to_f16(float f);
float sp_f16_to_f32(uint16_t h);
uint16_t sp_f32_to_bf16(float f);
float sp_bf16_to_f32(uint16_t h);

/* The largest finite value of type t: 65504 (f16), 0x1.fep127 = 3.3895e38 (bf16), FLT_MAX (f32) */
float sp_stype_max(enum sp_stype t);
/* How many of the finite v[0..n) type t cannot hold: they would round to +-inf (f16: |x| >= 65520;
 * bf16: |x| >= 0x1.ff8p127; f32: none). NaN and inf are not counted (callers refuse them first).
 * With saturate, each is replaced by +-sp_stype_max(t). *first: the index of the first (when any). */
size_t sp_stype_overflow(enum sp_stype t, float *v, size_t n, int saturate, size_t *first);

/* n floats to n elements of type t, little-endian, into out (n * sp_stype_size(t) bytes) */
void sp_stype_pack(enum sp_stype t, const float *v, size_t n, void *out);
/* n elements of type t, little-endian, at in (any alignment) widened to n floats */
void sp_stype_unpack(enum sp_stype t, const void *in, size_t n, float *out);

#endif
