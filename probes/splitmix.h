/* probes/splitmix.h — SplitMix64, the generator SPEC-models M7.1 pins every random draw of
 * M4–M6 to (probe initialisation and shuffles, control labels, random baseline trees).
 *
 * common/sp.h's sp_rng (splitmix64 seeding a xoshiro256**) is a different stream; the spec's
 * test vectors depend on this one, so the models-spec code uses it and nothing else.
 *
 *   next()    x += 0x9E3779B97F4A7C15; z = x; z = (z ^ z>>30) * 0xBF58476D1CE4E5B9;
 *             z = (z ^ z>>27) * 0x94D049BB133111EB; return z ^ z>>31
 *   below(N)  high 64 bits of the 128-bit product next() * N, in 0..N-1
 *   unif()    (next() >> 11) * 2^-53, in [0, 1) */
#ifndef PRB_SPLITMIX_H
#define PRB_SPLITMIX_H

#include <stdint.h>

struct prb_sm64 { uint64_t x; };

void     prb_sm64_seed(struct prb_sm64 *r, uint64_t seed);
uint64_t prb_sm64_next(struct prb_sm64 *r);
uint64_t prb_sm64_below(struct prb_sm64 *r, uint64_t n);
double   prb_sm64_unif(struct prb_sm64 *r);

#endif
