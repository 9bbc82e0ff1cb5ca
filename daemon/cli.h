/* daemon/cli.h — subcommand entry points and the small argument helpers they share.
 *
 * Each subcommand lives in its own file daemon/cmd_<name>.c and defines
 *     int cmd_<name>(int argc, char **argv);      (argv[0] is the subcommand name)
 * returning the process exit status: 0 success, 1 bad input (message names file, line and
 * problem), 2 usage error. main.c lists every command; a command whose file is not in the
 * build yet is a weak symbol and reports "not available in this build". */
#ifndef SP_CLI_H
#define SP_CLI_H

#include <stdint.h>
#include <stdio.h>

#define SP_EXIT_OK 0
#define SP_EXIT_INPUT 1
#define SP_EXIT_USAGE 2

typedef int (*sp_cmd_fn)(int argc, char **argv);

int cmd_demo(int argc, char **argv);
int cmd_ingest(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_tasks(int argc, char **argv);
int cmd_encode(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_trees(int argc, char **argv);
int cmd_evalb(int argc, char **argv);
int cmd_structprobe(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_info(int argc, char **argv);

/* Print "synprobe <cmd>: <message>" to stderr; returns code (for `return sp_fail(...)`). */
int sp_fail(int code, const char *cmd, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Parse a non-negative integer option value; 0 ok, -1 bad. */
int sp_parse_int(const char *s, long lo, long hi, long *out);

/* Parse a byte size: digits with an optional suffix K, M, G or T (powers of 1024), e.g. 512M;
 * no sign, fraction or blank. 0 ok, -1 bad or below min. */
int sp_parse_size(const char *s, uint64_t min, uint64_t *out);

/* The operands after option argv[*i] up to the next "--option": *paths points into argv,
 * *i moves to the last one. -1 when there is none. */
int sp_collect_paths(int argc, char **argv, int *i, const char ***paths, int *n_paths);

/* Build-option string for --version: "CUDA yes|no, BLAS openblas". */
const char *sp_build_info(void);

/* The common part of a stored result's manifest (daemon/cmd_report.c): a new JSON object
 * {"timestamp": UTC ISO-8601, "command": ["synprobe", argv...], "versions": {synprobe, build,
 * sqlite, blas, jansson}}; the caller adds its own knobs. */
struct json_t *sp_manifest_new(int argc, char **argv);

/* One tree_eval row (trees, structprobe): the printed result plus "manifest" (reference taken),
 * in one transaction; reports the row id on stderr, or the failure (returned as an SP_E* code). */
struct st_db;
int sp_save_tree_eval(struct st_db *db, const char *cmd, const char *db_path, const char *run, int64_t corpus_id,
                      const char *method, struct json_t *result, struct json_t *manifest);

#endif
