/* common/pool.c — see pool.h. One mutex guards the job; workers sleep on a condition variable
 * until the job generation changes, take items from an atomic counter, and the last one out
 * wakes the caller. */
#include "common/pool.h"
#include "common/sp.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

struct sp_pool {
    int size;
    pthread_t *tid;
    pthread_mutex_t use;        /* held by the caller of the job in flight */
    pthread_mutex_t mu;
    pthread_cond_t wake, done;
    unsigned long gen;          /* job generation, under mu */
    int busy;                   /* workers still in the current job, under mu */
    int quit;
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

struct worker_arg { struct sp_pool *p; int id; };

static void *worker_main(void *v)
{
    struct worker_arg wa = *(struct worker_arg *)v;
    free(v);
    struct sp_pool *p = wa.p;
    unsigned long seen = 0;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (!p->quit && p->gen == seen) pthread_cond_wait(&p->wake, &p->mu);
        if (p->quit) break;
        seen = p->gen;
        pthread_mutex_unlock(&p->mu);
        take_items(p, wa.id);
        pthread_mutex_lock(&p->mu);
        if (--p->busy == 0) pthread_cond_signal(&p->done);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

struct sp_pool *sp_pool_new(int size)
{
    struct sp_pool *p = sp_xcalloc(1, sizeof *p);
    p->size = size < 1 ? 1 : size;
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
    p->quit = 1;
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

int sp_pool_try_run(struct sp_pool *p, int n, sp_pool_fn fn, void *arg)
{
    if (pthread_mutex_trylock(&p->use) != 0) return 0;
    pthread_mutex_lock(&p->mu);
    p->fn = fn; p->arg = arg; p->n = n;
    atomic_store(&p->next, 0);
    p->busy = p->size - 1;
    p->gen++;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->mu);
    take_items(p, 0);
    pthread_mutex_lock(&p->mu);
    while (p->busy > 0) pthread_cond_wait(&p->done, &p->mu);
    pthread_mutex_unlock(&p->mu);
    pthread_mutex_unlock(&p->use);
    return 1;
}
