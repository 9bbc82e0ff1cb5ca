/* cli/legacy.h — argument helpers of the commands not yet moved onto the option tables and
 * stages (issue #11). Goes away with the last of them. */
#ifndef SP_CLI_LEGACY_H
#define SP_CLI_LEGACY_H

#include "store/store.h"

int sp_collect_paths(int argc, char **argv, int *i, const char ***paths, int *n_paths);
struct json_t *sp_manifest_new(int argc, char **argv);
int sp_save_tree_eval(struct st_db *db, const char *cmd, const char *db_path, const char *run, int64_t corpus_id,
                      const char *method, struct json_t *result, struct json_t *manifest);

#endif
