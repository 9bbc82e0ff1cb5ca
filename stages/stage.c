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

int stg_stopped(struct stg_ctx *c)
{
    return stg_fail(c, SP_ESTOPPED, "stopped before the end (nothing half-written is kept; run it again to go on)");
}
