/* common/log.c — sp_log: format once, hand the line to the logger's sink. */
#include <stdio.h>
#include <stdlib.h>

#include "common/log.h"

int sp_log_enabled(const struct sp_logger *log, enum sp_log_level level)
{
    return log && log->write && level <= log->level;
}

void sp_vlog(const struct sp_logger *log, enum sp_log_level level, const char *fmt, va_list ap)
{
    if (!sp_log_enabled(log, level)) return;
    char small[1024];
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    if (n >= 0 && (size_t)n < sizeof small) {
        log->write(log->arg, level, small);
    } else if (n >= 0) {                      /* long lines (a list of names) are not cut */
        char *big = malloc((size_t)n + 1);
        if (big) {
            vsnprintf(big, (size_t)n + 1, fmt, ap2);
            log->write(log->arg, level, big);
            free(big);
        } else {
            log->write(log->arg, level, small);
        }
    }
    va_end(ap2);
}

void sp_log(const struct sp_logger *log, enum sp_log_level level, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sp_vlog(log, level, fmt, ap);
    va_end(ap);
}

const char *sp_log_level_name(enum sp_log_level level)
{
    switch (level) {
    case SP_LOG_ERROR: return "error";
    case SP_LOG_WARN:  return "warning";
    case SP_LOG_INFO:  return "info";
    case SP_LOG_DEBUG: return "debug";
    }
    return "?";
}
