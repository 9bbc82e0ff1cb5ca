/* tests/unit/t_harness.h — a 20-line harness: count checks, report failures with file:line,
 * and make main() return non-zero when anything failed (docs/style.md §3.7). */
#ifndef T_HARNESS_H
#define T_HARNESS_H
#include <math.h>
#include <stdio.h>
#include <string.h>

static int t_run, t_fail;
#define T_CHECK(c) do { t_run++; if (!(c)) { t_fail++; \
        fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #c); } } while (0)
#define T_EQ_INT(a, b) do { long long _a = (a), _b = (b); t_run++; if (_a != _b) { t_fail++; \
        fprintf(stderr, "FAIL %s:%d: %s == %lld, expected %lld\n", __FILE__, __LINE__, #a, _a, _b); } } while (0)
#define T_EQ_STR(a, b) do { const char *_a = (a), *_b = (b); t_run++; \
        if (!_a || !_b || strcmp(_a, _b)) { t_fail++; fprintf(stderr, "FAIL %s:%d: %s == \"%s\", expected \"%s\"\n", \
        __FILE__, __LINE__, #a, _a ? _a : "(null)", _b ? _b : "(null)"); } } while (0)
#define T_NEAR(a, b, tol) do { double _a = (a), _b = (b); t_run++; if (!(fabs(_a - _b) <= (tol))) { t_fail++; \
        fprintf(stderr, "FAIL %s:%d: %s == %.9g, expected %.9g (tol %g)\n", __FILE__, __LINE__, #a, _a, _b, (double)(tol)); } } while (0)
/* a skipped check, in the CLI tests' TAP words: tests/run_unit.sh counts "ok # SKIP" lines */
#define T_SKIP(why) printf("ok # SKIP %s: %s\n", __FILE__, why)
#define T_DONE() (printf("%s: %d/%d checks passed\n", __FILE__, t_run - t_fail, t_run), t_fail != 0)

/* ../shared/data, or $SP_DATA; NULL (and a visible SKIP by the caller) when absent */
#include <stdlib.h>
#include <sys/stat.h>
static inline const char *t_data_dir(void)
{
    const char *d = getenv("SP_DATA");
    if (!d) d = "../shared/data";
    struct stat st;
    return stat(d, &st) == 0 && S_ISDIR(st.st_mode) ? d : NULL;
}
#endif
