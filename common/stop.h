/* common/stop.h — the process's stop request.
 *
 * SIGINT and SIGTERM only set this flag (the handlers are the command line's, cli/cli.c, and a
 * daemon job process's, daemon/daemon.c); the stages see it through their context (ctx->stop
 * points here) and stop at their next safe point, and the long reads of the lower layers
 * (weights, embeddings, .npy arrays, hashing an input) check it between chunks and return
 * SP_ESTOPPED, so a stop request is honoured inside a long load too. One flag per process:
 * a signal is sent to a process. Kept out of sp.h because C++ (the CUDA plugin) includes that. */
#ifndef SP_STOP_H
#define SP_STOP_H

#include <stdatomic.h>

/* 0, or the signal that asked this process to stop */
extern atomic_int sp_stop_signal;

static inline int sp_stopping(void) { return atomic_load_explicit(&sp_stop_signal, memory_order_relaxed) != 0; }

#endif
