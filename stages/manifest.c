/* stages/manifest.c — the run manifest and the stored tree evaluation. */
#include <cblas.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "stages/manifest.h"
#include "stages/probe.h"
#include "stages/stage.h"
#include "stages/structprobe.h"
#include "stages/tokprobe.h"
#include "store/st_results.h"
#include "store/store.h"

#ifdef SP_HAVE_CUDA
#define BUILD_CUDA "CUDA yes (cuBLAS)"
#else
#define BUILD_CUDA "CUDA no"
#endif
#if SP_HAVE_RSVG
#define BUILD_RSVG "figures svg, pdf, png (librsvg)"
#else
#define BUILD_RSVG "figures svg only (no librsvg)"
#endif

const char *stg_build_info(void) { return BUILD_CUDA ", BLAS openblas, " BUILD_RSVG; }

json_t *stg_manifest_new(const struct stg_ctx *ctx, const struct sp_strlist *command, const struct sp_opt *table,
                         const void *opts)
{
    json_t *m = json_object(), *cmd = json_array(), *v = json_object();
    char ts[32];
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%SZ", &tm);
    json_object_set_new(m, "timestamp", json_string(ts));
    for (int i = 0; command && i < command->n; i++) json_array_append_new(cmd, json_string(command->v[i]));
    json_object_set_new(m, "command", cmd);
    if (ctx && ctx->job_file)
        json_object_set_new(m, "job", json_pack("{s:s, s:s}", "file", ctx->job_file, "sha256", ctx->job_sha256 ? ctx->job_sha256 : ""));
    json_object_set_new(v, "synprobe", json_string(SP_VERSION));
    json_object_set_new(v, "build", json_string(stg_build_info()));
    json_object_set_new(v, "sqlite", json_string(st_sqlite_version()));
#ifdef OPENBLAS_VERSION
    {
        /* "OpenBLAS 0.3.21 DYNAMIC_ARCH NO_AFFINITY Haswell MAX_THREADS=64": the library we run on */
        char buf[256];
        snprintf(buf, sizeof buf, "%s", openblas_get_config());
        size_t n = strlen(buf);
        while (n && (buf[n - 1] == ' ' || buf[n - 1] == '\n')) buf[--n] = 0;
        json_object_set_new(v, "blas", json_string(buf));
    }
#else
    json_object_set_new(v, "blas", json_string("cblas"));
#endif
    json_object_set_new(v, "jansson", json_string(JANSSON_VERSION));
    json_object_set_new(m, "versions", v);
    if (table && opts) {
        json_t *o = json_object();
        sp_opt_to_json(table, opts, o);
        /* the probes' threads left at their default (0): the count they ran with, the CPUs */
        json_t *th = json_object_get(o, "threads");
        if ((table == stg_probe_options || table == stg_tokprobe_options || table == stg_structprobe_options) &&
            json_is_integer(th) && json_integer_value(th) == 0)
            json_object_set_new(o, "threads", json_integer(sp_cpu_count()));
        json_object_set_new(m, "options", o);
    }
    return m;
}

int stg_save_tree_eval(struct stg_ctx *ctx, struct st_db *db, const char *run, int64_t corpus_id, const char *method,
                       json_t *result, json_t *manifest, int64_t *id)
{
    json_t *full = json_deep_copy(result);
    json_object_set_new(full, "manifest", manifest);
    char *txt = json_dumps(full, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
    json_decref(full);
    struct st_tree_eval e = { .run = run, .corpus_id = corpus_id, .method = method, .result = txt };
    *id = 0;
    int rc = st_tree_evals_put(db, &e, 1, id, ctx->err, sizeof ctx->err);
    free(txt);
    return rc;
}

json_t *stg_json_num(double v) { return isnan(v) ? json_null() : json_real(v); }
