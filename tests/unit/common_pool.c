/* tests/unit/common_pool.c — sp_pool: every item of every job runs exactly once, on a worker id
 * below the pool's size, for sleeping and spinning pools and many jobs in a row (the classifier
 * issues thousands). */
#include "common/pool.h"
#include "t_harness.h"

#include <stdatomic.h>

#define NITEMS 1000

struct job { atomic_int hits[NITEMS]; atomic_int bad_worker; int size; };

static void count_item(void *arg, int item, int worker)
{
    struct job *j = arg;
    atomic_fetch_add(&j->hits[item], 1);
    if (worker < 0 || worker >= j->size) atomic_fetch_add(&j->bad_worker, 1);
}

/* runs `jobs` jobs of n items; returns the number of items not run exactly once */
static int run_jobs(struct sp_pool *p, int jobs, int n, int *bad_worker)
{
    static struct job j;
    int wrong = 0;
    for (int r = 0; r < jobs; r++) {
        for (int i = 0; i < NITEMS; i++) atomic_store(&j.hits[i], 0);
        atomic_store(&j.bad_worker, 0);
        j.size = sp_pool_size(p);
        if (!sp_pool_try_run(p, n, count_item, &j)) return -1;
        for (int i = 0; i < NITEMS; i++) wrong += atomic_load(&j.hits[i]) != (i < n ? 1 : 0);
        *bad_worker += atomic_load(&j.bad_worker);
    }
    return wrong;
}

int main(void)
{
    int bad = 0;
    struct sp_pool *p = sp_pool_new(4);
    T_EQ_INT(sp_pool_size(p), 4);
    T_EQ_INT(run_jobs(p, 200, NITEMS, &bad), 0);
    T_EQ_INT(run_jobs(p, 50, 3, &bad), 0);        /* fewer items than workers */
    T_EQ_INT(run_jobs(p, 5, 0, &bad), 0);         /* an empty job returns */
    sp_pool_free(p);

    p = sp_pool_new_spin(3, 20000);
    T_EQ_INT(sp_pool_size(p), 3);
    T_EQ_INT(run_jobs(p, 2000, 37, &bad), 0);
    T_EQ_INT(run_jobs(p, 20, NITEMS, &bad), 0);
    sp_pool_free(p);

    p = sp_pool_new(0);                            /* below 1: one thread, the caller's */
    T_EQ_INT(sp_pool_size(p), 1);
    T_EQ_INT(run_jobs(p, 3, NITEMS, &bad), 0);
    sp_pool_free(p);
    T_EQ_INT(sp_pool_size(NULL), 1);
    T_EQ_INT(bad, 0);
    return T_DONE();
}
