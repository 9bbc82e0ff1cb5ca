/* tests/unit/common_log.c — sp_log: level gating, a NULL logger or sink, lines longer than the
 * 1024-byte first buffer arrive whole. */
#include "common/log.h"
#include "t_harness.h"

#include <stdlib.h>

struct sink { int calls; enum sp_log_level last_level; char last[5000]; };

static void record(void *arg, enum sp_log_level level, const char *line)
{
    struct sink *s = arg;
    s->calls++;
    s->last_level = level;
    snprintf(s->last, sizeof s->last, "%s", line);
}

int main(void)
{
    struct sink s = { 0 };
    struct sp_logger lg = { SP_LOG_INFO, record, &s };

    sp_log(&lg, SP_LOG_INFO, "ingested %d sentences from %s", 42, "a.conllu");
    T_EQ_INT(s.calls, 1);
    T_EQ_STR(s.last, "ingested 42 sentences from a.conllu");   /* no newline added */
    T_EQ_INT(s.last_level, SP_LOG_INFO);
    sp_log(&lg, SP_LOG_ERROR, "e");
    sp_log(&lg, SP_LOG_WARN, "w");
    T_EQ_INT(s.calls, 3);
    T_EQ_STR(s.last, "w");
    T_EQ_INT(s.last_level, SP_LOG_WARN);
    sp_log(&lg, SP_LOG_DEBUG, "d %s", "dropped");              /* above INFO: dropped */
    T_EQ_INT(s.calls, 3);
    T_EQ_STR(s.last, "w");
    T_CHECK(sp_log_enabled(&lg, SP_LOG_INFO));
    T_CHECK(!sp_log_enabled(&lg, SP_LOG_DEBUG));
    lg.level = SP_LOG_ERROR;                                   /* --quiet: errors only */
    sp_log(&lg, SP_LOG_WARN, "w2");
    sp_log(&lg, SP_LOG_ERROR, "e2");
    T_EQ_INT(s.calls, 4);
    T_EQ_STR(s.last, "e2");
    lg.level = SP_LOG_DEBUG;
    sp_log(&lg, SP_LOG_DEBUG, "d2");
    T_EQ_INT(s.calls, 5);
    T_EQ_INT(s.last_level, SP_LOG_DEBUG);

    /* a NULL logger and a logger without a sink drop everything, without crashing */
    sp_log(NULL, SP_LOG_ERROR, "nobody hears %d", 1);
    T_CHECK(!sp_log_enabled(NULL, SP_LOG_ERROR));
    struct sp_logger mute = { SP_LOG_DEBUG, NULL, NULL };
    sp_log(&mute, SP_LOG_ERROR, "no sink");
    T_CHECK(!sp_log_enabled(&mute, SP_LOG_ERROR));
    T_EQ_INT(s.calls, 5);

    /* lines of 1023, 1024 and 4000 characters (the first buffer holds 1023 and the NUL) */
    int lens[] = { 1023, 1024, 4000 };
    for (int k = 0; k < 3; k++) {
        char *big = malloc((size_t)lens[k] + 1);
        for (int i = 0; i < lens[k]; i++) big[i] = (char)('a' + i % 26);
        big[lens[k]] = 0;
        big[lens[k] - 1] = '!';
        sp_log(&lg, SP_LOG_WARN, "%s", big);
        T_EQ_INT(strlen(s.last), lens[k]);
        T_EQ_STR(s.last, big);
        free(big);
    }
    T_EQ_INT(s.calls, 8);
    /* a prefix and a long argument together: 6 + 2000 characters */
    char *arg = malloc(2001);
    memset(arg, 'z', 2000);
    arg[2000] = 0;
    sp_log(&lg, SP_LOG_INFO, "names %s", arg);
    T_EQ_INT(strlen(s.last), 2006);
    T_CHECK(!strncmp(s.last, "names zz", 8) && s.last[2005] == 'z');
    free(arg);

    /* a long line above the level is dropped like a short one */
    lg.level = SP_LOG_ERROR;
    sp_log(&lg, SP_LOG_INFO, "%2000s", "late");
    T_EQ_INT(s.calls, 9);

    T_EQ_STR(sp_log_level_name(SP_LOG_ERROR), "error");
    T_EQ_STR(sp_log_level_name(SP_LOG_WARN), "warning");
    T_EQ_STR(sp_log_level_name(SP_LOG_INFO), "info");
    T_EQ_STR(sp_log_level_name(SP_LOG_DEBUG), "debug");
    return T_DONE();
}
