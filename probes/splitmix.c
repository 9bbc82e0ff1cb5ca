/* probes/splitmix.c — SplitMix64 (SPEC-models M7.1), see splitmix.h. */
#include "probes/splitmix.h"

void prb_sm64_seed(struct prb_sm64 *r, uint64_t seed) { r->x = seed; }

uint64_t prb_sm64_next(struct prb_sm64 *r)
{
    r->x += 0x9E3779B97F4A7C15ULL;
    uint64_t z = r->x;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

uint64_t prb_sm64_below(struct prb_sm64 *r, uint64_t n)
{
    unsigned __int128 p = (unsigned __int128)prb_sm64_next(r) * n;
    return (uint64_t)(p >> 64);
}

double prb_sm64_unif(struct prb_sm64 *r)
{
    return (double)(prb_sm64_next(r) >> 11) * 0x1.0p-53;
}
