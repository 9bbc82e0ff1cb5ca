/* cli/cmd_export_encoded.c — `synprobe export --what vectors|tokens|attention --run R`: an
 * encoder run's cached outputs as NumPy files (stages/export_encoded). cmd_export.c calls
 * export_encoded once it has parsed its options. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/export.h"
#include "stages/export_encoded.h"

#define CMD "export"

/* stderr, as the other commands' logger: "synprobe export: warning: ..." */
static void log_write(void *arg, enum sp_log_level level, const char *line)
{
    if (level == SP_LOG_ERROR) fprintf(stderr, "synprobe " CMD ": %s\n", line);
    else if (level == SP_LOG_WARN) fprintf(stderr, "synprobe " CMD ": warning: %s\n", line);
    else fprintf(stderr, "%s\n", line);
}

int export_encoded(const char *db_path, const char *corpus, const char *what, const char *fmt, const char *out_path,
                   const char *run)
{
    if (fmt && strcmp(fmt, "npy")) return cli_fail(SP_EXIT_USAGE, CMD, "--what %s is written as npy only, not '%s'", what, fmt);
    struct sp_logger log = { SP_LOG_INFO, log_write, NULL };
    struct stg_ctx ctx = { .log = &log };
    struct stg_export_encoded_opts o = {
        .db = db_path, .run = run, .corpus = corpus, .out = out_path,
        .what = !strcmp(what, "vectors") ? STG_EXPORT_VECTORS : !strcmp(what, "tokens") ? STG_EXPORT_TOKENS : STG_EXPORT_ATTENTION,
    };
    struct stg_export_encoded_result r;
    int rc = stg_export_encoded(&ctx, &o, &r);
    if (rc == SP_OK && r.lengths_path)      /* a second file: say so */
        fprintf(stderr, "synprobe " CMD ": sentence lengths written to %s\n", r.lengths_path);
    stg_export_encoded_result_free(&r);
    if (rc == SP_OK) return SP_EXIT_OK;
    return cli_fail(rc == SP_EUSAGE ? SP_EXIT_USAGE : SP_EXIT_INPUT, CMD, "%s", ctx.err);
}
