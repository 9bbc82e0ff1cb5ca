/* common/log.h — the level-gated logger every layer below cli/ reports through.
 *
 * Library code never prints: a stage, an encoder or a probe that has something to say calls
 * sp_log(log, level, ...) on the logger its caller handed it. The logger is a value, not a
 * global, so two jobs running in one process (the daemon's workers) each log to their own sink:
 * the command line's sink writes stderr, the daemon's a job's log file. A NULL logger drops
 * everything, which is what unit tests and benchmarks usually want.
 *
 * Levels: an ERROR says why a stage failed (it is also in the stage's error buffer); a WARN is
 * something kept or skipped that the user should know about; INFO is the one-line summary per
 * stage and its steps (what --quiet silences); DEBUG is what --verbose adds. */
#ifndef SP_LOG_H
#define SP_LOG_H

#include <stdarg.h>

enum sp_log_level { SP_LOG_ERROR, SP_LOG_WARN, SP_LOG_INFO, SP_LOG_DEBUG };

/* write(arg, level, line) gets one formatted line without its newline. It may be called from
 * several threads of one stage at once; a sink that is not thread-safe locks. */
struct sp_logger {
    enum sp_log_level level;                 /* messages above this level are dropped unformatted */
    void (*write)(void *arg, enum sp_log_level level, const char *line);
    void *arg;
};

void sp_log(const struct sp_logger *log, enum sp_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void sp_vlog(const struct sp_logger *log, enum sp_log_level level, const char *fmt, va_list ap);

/* Whether a message at this level would be written (skip building an expensive one). */
int sp_log_enabled(const struct sp_logger *log, enum sp_log_level level);

const char *sp_log_level_name(enum sp_log_level level);   /* "error", "warning", "info", "debug" */

#endif
