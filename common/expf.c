/* common/expf.c — see expf.h: the array form, one build per vector width. */
#include "common/expf.h"

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#endif
void sp_exp_nonpos_array(float *x, int n)
{
    for (int i = 0; i < n; i++) x[i] = sp_exp_nonpos(x[i]);
}
