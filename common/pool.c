/* common/pool.c — see pool.h. One mutex guards the job; workers sleep on a condition variable
 * until the job generation changes, take items from an atomic counter, and the last one out
 * wakes the caller. A spinning pool (sp_pool_new_spin) first polls the generation and the count
 * of busy workers, which are atomics for that reason; they change only under mu, so a sleeper
 * that checks them under mu cannot miss a wake-up. */
#include "common/pool.h"
#include "common/sp.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

struct sp_pool {
    int size;
    pthread_t *tid;
    pthread_mutex_t use;        /* held by the caller of the job in flight */
    pthread_mutex_t mu;
    pthread_cond_t wake, done;
    int spin;                   /* pauses a worker polls gen for before it sleeps (0: none) */
    atomic_ulong gen;           /* job generation, bumped under mu */
    atomic_int busy;            /* workers still in the current job */
    atomic_int quit;
    /* the current job */
    sp_pool_fn fn;
    void *arg;
    int n;
    atomic_int next;
};

static void take_items(struct sp_pool *p, int worker)
{
    for (int i; (i = atomic_fetch_add(&p->next, 1)) < p->n;) p->fn(p->arg, i, worker);
}

#if defined(__x86_64__) || defined(__i386__)
#define cpu_relax() __builtin_ia32_pause()
#else
#define cpu_relax() ((void)0)
#endif

/* the next job's generation: polled for p->spin pauses (then a few yields), else slept for */
static unsigned long await_job(struct sp_pool *p, unsigned long seen)
{
    for (int s = 0; s < p->spin + (p->spin ? 100 : 0); s++) {
        unsigned long g = atomic_load_explicit(&p->gen, memory_order_acquire);
        if (g != seen) return g;
        if (s < p->spin) cpu_relax();
        else sched_yield();
    }
    pthread_mutex_lock(&p->mu);
    while (!atomic_load(&p->quit) && atomic_load(&p->gen) == seen) pthread_cond_wait(&p->wake, &p->mu);
    unsigned long g = atomic_load(&p->gen);
    pthread_mutex_unlock(&p->mu);
    return g;
}

struct worker_arg { struct sp_pool *p; int id; };

static void *worker_main(void *v)
{
    struct worker_arg wa = *(struct worker_arg *)v;
    free(v);
    struct sp_pool *p = wa.p;
    unsigned long seen = 0;
    for (;;) {
        seen = await_job(p, seen);
        if (atomic_load(&p->quit)) break;
        take_items(p, wa.id);
        if (atomic_fetch_sub(&p->busy, 1) == 1) {   /* the last one out wakes a sleeping caller */
            pthread_mutex_lock(&p->mu);
            pthread_cond_signal(&p->done);
            pthread_mutex_unlock(&p->mu);
        }
    }
    return NULL;
}

/* the caller, after its own items: spin then yield (a spinning pool: on a busy machine a
 * descheduled worker must get the CPU back), or sleep until the last worker signals */
static void await_workers(struct sp_pool *p)
{
    if (p->spin) {
        for (long s = 0; atomic_load_explicit(&p->busy, memory_order_acquire) > 0; s++) {
            if (s < 4000) cpu_relax();
            else sched_yield();
        }
        return;
    }
    pthread_mutex_lock(&p->mu);
    while (atomic_load(&p->busy) > 0) pthread_cond_wait(&p->done, &p->mu);
    pthread_mutex_unlock(&p->mu);
}

struct sp_pool *sp_pool_new(int size) { return sp_pool_new_spin(size, 0); }

struct sp_pool *sp_pool_new_spin(int size, int spin)
{
    struct sp_pool *p = sp_xcalloc(1, sizeof *p);
    p->size = size < 1 ? 1 : size;
    p->spin = spin < 0 ? 0 : spin;
    pthread_mutex_init(&p->use, NULL);
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->wake, NULL);
    pthread_cond_init(&p->done, NULL);
    p->tid = sp_xcalloc((size_t)p->size, sizeof *p->tid);
    for (int w = 1; w < p->size; w++) {
        struct worker_arg *wa = sp_xmalloc(sizeof *wa);
        wa->p = p; wa->id = w;
        if (pthread_create(&p->tid[w], NULL, worker_main, wa) != 0) {   /* run with fewer threads */
            free(wa);
            p->size = w;
            break;
        }
    }
    return p;
}

void sp_pool_free(struct sp_pool *p)
{
    if (!p) return;
    pthread_mutex_lock(&p->mu);
    atomic_store(&p->quit, 1);
    atomic_fetch_add(&p->gen, 1);   /* a spinning worker sees the change and then quit */
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->mu);
    for (int w = 1; w < p->size; w++) pthread_join(p->tid[w], NULL);
    pthread_cond_destroy(&p->wake);
    pthread_cond_destroy(&p->done);
    pthread_mutex_destroy(&p->mu);
    pthread_mutex_destroy(&p->use);
    free(p->tid);
    free(p);
}

int sp_pool_size(const struct sp_pool *p) { return p ? p->size : 1; }

void sp_pool_run_once(int threads, int n, sp_pool_fn fn, void *arg)
{
    if (threads < 2 || n < 2) {
        for (int i = 0; i < n; i++) fn(arg, i, 0);
        return;
    }
    struct sp_pool *p = sp_pool_new(threads < n ? threads : n);
    sp_pool_try_run(p, n, fn, arg);           /* its own pool: never busy */
    sp_pool_free(p);
}

int sp_pool_try_run(struct sp_pool *p, int n, sp_pool_fn fn, void *arg)
{
    if (pthread_mutex_trylock(&p->use) != 0) return 0;
    pthread_mutex_lock(&p->mu);
    p->fn = fn; p->arg = arg; p->n = n;
    atomic_store(&p->next, 0);
    atomic_store(&p->busy, p->size - 1);
    atomic_fetch_add_explicit(&p->gen, 1, memory_order_release);   /* publishes fn, arg, n */
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->mu);
    take_items(p, 0);
    await_workers(p);
    pthread_mutex_unlock(&p->use);
    return 1;
}
