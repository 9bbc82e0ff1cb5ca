/* cli/legacy.c — see legacy.h. */
#include <jansson.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/legacy.h"
#include "stages/manifest.h"

int sp_collect_paths(int argc, char **argv, int *i, const char ***paths, int *n_paths)
{
    int start = *i + 1, end = start;
    while (end < argc && strncmp(argv[end], "--", 2) != 0) end++;
    if (end == start) return -1;
    *paths = (const char **)(argv + start);
    *n_paths = end - start;
    *i = end - 1;
    return 0;
}

json_t *sp_manifest_new(int argc, char **argv)
{
    const char *words[256];
    int n = 0;
    words[n++] = "synprobe";
    for (int i = 0; i < argc && n < 255; i++) words[n++] = argv[i];
    struct sp_strlist l = { words, n };
    return stg_manifest_new(&l, NULL, NULL);
}

int sp_save_tree_eval(struct st_db *db, const char *cmd, const char *db_path, const char *run, int64_t corpus_id,
                      const char *method, json_t *result, json_t *manifest)
{
    struct stg_ctx ctx = { 0 };
    int64_t id;
    int rc = stg_save_tree_eval(&ctx, db, run, corpus_id, method, result, manifest, &id);
    if (rc != SP_OK) return cli_fail(SP_EXIT_INPUT, cmd, "%s", ctx.err), rc;
    fprintf(stderr, "synprobe %s: stored evaluation %lld (%s) in %s\n", cmd, (long long)id, method, db_path);
    return SP_OK;
}
