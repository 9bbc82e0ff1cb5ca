/* stages/stage.c — the stage context's helpers. */
#include <stdarg.h>
#include <stdio.h>

#include "stages/stage.h"

int stg_fail(struct stg_ctx *c, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err, sizeof c->err, fmt, ap);
    va_end(ap);
    return code;
}

int stg_turn_take(struct stg_ctx *ctx)
{
    struct stg_turn *t = ctx->turn;
    if (!t) return SP_OK;
    pthread_mutex_lock(&t->mu);
    while (t->next < ctx->turn_no) pthread_cond_wait(&t->cv, &t->mu);
    int failed = t->failed;
    pthread_mutex_unlock(&t->mu);
    return failed ? stg_fail(ctx, SP_ESTOPPED, "not written: a stage before this one failed") : SP_OK;
}

int stg_stopped(struct stg_ctx *c)
{
    return stg_fail(c, SP_ESTOPPED, "stopped before the end (nothing half-written is kept; run it again to go on)");
}

void stg_skipped_reasons(char *out, size_t cap, long n1, const char *what1, long n2, const char *what2, long n3,
                         const char *what3)
{
    const long n[3] = { n1, n2, n3 };
    const char *what[3] = { what1, what2, what3 };
    size_t len = 0;
    out[0] = 0;
    for (int i = 0; i < 3; i++) {
        if (n[i] <= 0 || len >= cap) continue;
        int k = snprintf(out + len, cap - len, "%s%ld %s", len ? ", " : " (", n[i], what[i]);
        if (k > 0) len += (size_t)k;
    }
    if (len && len + 1 < cap) { out[len++] = ')'; out[len] = 0; }
}
