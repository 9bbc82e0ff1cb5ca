/* common/pool.h — a fixed set of worker threads that run the items of one job at a time.
 *
 * sp_pool_run(pool, n, fn, arg) calls fn(arg, item, worker) once for every item in [0, n): the
 * caller's thread takes items too (worker 0), the pool's threads are workers 1..size-1. Items
 * are handed out one at a time from a shared counter, so which worker runs which item varies
 * from run to run: a job whose result must not depend on that gives every item its own output
 * (the GEMM's row/column blocks). One job at a time per pool: sp_pool_try_run returns 0 without
 * running anything when another thread is using the pool, and the caller then runs the items
 * itself.
 *
 * sp_pool_new_spin makes a pool for many small jobs (the probe classifier issues a few every
 * ~100 µs, too often for condition-variable wake-ups): between jobs a worker spins for up to
 * `spin` pauses, then yields a little, then sleeps; the caller spins, then yields, while the job's
 * last items finish instead of sleeping. sp_pool_new (spin 0) sleeps at once on both sides. */
#ifndef SP_POOL_H
#define SP_POOL_H

struct sp_pool;

typedef void (*sp_pool_fn)(void *arg, int item, int worker);

struct sp_pool *sp_pool_new(int size);          /* size >= 1 threads in all (size-1 started) */
struct sp_pool *sp_pool_new_spin(int size, int spin);
void sp_pool_free(struct sp_pool *p);
int  sp_pool_size(const struct sp_pool *p);
/* runs the job and returns 1, or returns 0 at once when the pool is busy with another caller */
int  sp_pool_try_run(struct sp_pool *p, int n, sp_pool_fn fn, void *arg);
/* One job on `threads` threads (the caller among them) started for it and gone after: for work
 * done once, a few big items side by side (two probes, two layers); threads <= 1 or n <= 1: the
 * items in order on the caller. */
void sp_pool_run_once(int threads, int n, sp_pool_fn fn, void *arg);

#endif
