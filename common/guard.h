/* common/guard.h — may this path be written? Outputs are checked by identity, not by text.
 *
 * A command (or a job) fills a guard with the files it must never replace: its store and the
 * store's companions (-wal, -shm, -journal, the .run.lock and .gpu.lock files), the queue's
 * store, and every input (corpora, encoder configs, weights, embeddings, task files, gold trees,
 * the job file). sp_guard_check then says whether an output path names one of them: the same
 * device and inode (a symlink, a hard link, "./x", "a/../x" all count), or, for a file that does
 * not exist yet (a store's -wal before the store is opened), the same resolved name: absolute,
 * the symlinks of its folders resolved. A clash is a usage error (SP_EUSAGE) that names both
 * paths; commands check their outputs this way before anything runs, and sp_out_open checks the
 * guard installed for the process (sp_guard_install) on every file it creates, so an output
 * whose name is only known late (export's FILE.lengths.npy, a task file in tasks build's folder)
 * is checked too. Outputs are compared with each other by the files each writes (a folder output
 * names them: sp_opt's holds), and the store with the inputs by the same identity. */
#ifndef SP_GUARD_H
#define SP_GUARD_H

#include <stddef.h>
#include <sys/types.h>

struct sp_guard_file {
    int have_id;          /* the file existed when protected: dev and ino are its identity */
    dev_t dev;
    ino_t ino;
    int is_dir;           /* a folder: nothing may be written inside it either */
    int store;            /* protected by sp_guard_protect_store: the store or one of its side files */
    char *holds;          /* an output folder (in outs): the names written in it (sp_opt's holds) */
    int of_folder;        /* a literal name an output folder writes (in outs): that folder's index + 1 */
    char *real;           /* sp_path_real of the path: compared when one side does not exist */
    char *shown;          /* the path as given, for messages */
    char *role;           /* "the store", "input --encoder", "corpora[0].paths": for messages */
};
struct sp_guard { struct sp_guard_file *v; int n; };

/* Protect path (what it names now, following a symlink, and its resolved name). */
void sp_guard_protect(struct sp_guard *g, const char *path, const char *role);
/* Protect a store and the files SQLite and synprobe keep beside it (they may not exist yet). */
void sp_guard_protect_store(struct sp_guard *g, const char *store, const char *role);
/* SP_OK when writing path replaces nothing protected; else SP_EUSAGE and err =
 * "WHAT PATH: the same file as ROLE SHOWN; ...". what names the output ("--out", "reports[0].out"). */
int  sp_guard_check(const struct sp_guard *g, const char *path, const char *what, char *err, size_t errlen);
void sp_guard_free(struct sp_guard *g);

/* The store and its side files (protected by sp_guard_protect_store) against every input of g:
 * a store that is an input (the same inode: a symlink, a hard link, "./x", "a/../x"; or the same
 * resolved name), or whose -wal, -shm, -journal, .run.lock or .gpu.lock file is one, would be
 * written into that input (SQLite makes an empty file a database). SP_OK or SP_EUSAGE, both named. */
int  sp_guard_check_stores(const struct sp_guard *g, char *err, size_t errlen);
/* The same for a store that g does not hold (a Slurm shard's, role "the store of shard 3/8"). */
int  sp_guard_check_store(const struct sp_guard *g, const char *store, const char *role, char *err, size_t errlen);

/* One output, path, checked before anything is written: its shape (holds NULL: a file, so not a
 * folder, "." or a name ending in '/'; else a folder, so not an existing file), against g (it
 * replaces no input or store, and, a folder, holds none of them under the names it writes), and
 * against outs, the outputs already checked: two outputs clash when they are one file, when one
 * lies inside the other and the other is a file, or when one lies where the other's folder writes
 * (its first name there matches one of the folder's patterns); two folders that are one write
 * into it both when their names cannot meet (a literal name of one matches no pattern of the
 * other: an HTML page's report.html beside figures NN-NAME.svg). Then path is added to outs
 * (role "output WHAT"). SP_OK or SP_EUSAGE with err naming both. */
int sp_guard_check_output(const struct sp_guard *g, struct sp_guard *outs, const char *path, const char *holds,
                          const char *what, char *err, size_t errlen);

/* An sp_opt's holds for a folder that is the output's alone: "*" (anything inside it). */
const char *sp_guard_holds_all(const void *src);

/* An options struct's paths (common/opt.h): "db" protected as the store, every other PATH or
 * PATHS without SP_OPTF_OUTPUT as an input. prefix names them in messages ("--" on the command
 * line: "input --encoder"; "encoders[0]." in a job: "input encoders[0].encoder"). */
struct sp_opt;
void sp_guard_protect_options(struct sp_guard *g, const struct sp_opt *t, const void *src, const char *prefix);
/* Every SP_OPTF_OUTPUT path of the struct checked by sp_guard_check_output (its shape from the
 * option's holds), so added to outs. SP_OK or SP_EUSAGE. */
int sp_guard_check_options(const struct sp_guard *g, struct sp_guard *outs, const struct sp_opt *t, const void *src,
                           const char *prefix, char *err, size_t errlen);

/* The same in two halves, for a caller with many outputs (a job with 600,000 report entries):
 * sp_guard_collect_options checks each output of the struct against g and its shape and adds it
 * to outs; sp_guard_check_distinct checks all of outs against each other at once, by the rules
 * above, in O(n log n) (sorted so that a folder is followed by what lies inside it, and by device
 * and inode), where checking each against those before it takes O(n^2). The clash named is the
 * one a check one by one would name: the earliest output that clashes with an earlier one, with
 * the first such. SP_OK or SP_EUSAGE. */
int sp_guard_collect_options(const struct sp_guard *g, struct sp_guard *outs, const struct sp_opt *t, const void *src,
                             const char *prefix, char *err, size_t errlen);
int sp_guard_check_distinct(const struct sp_guard *outs, char *err, size_t errlen);

/* The guard sp_out_open checks every destination against (NULL: none). The caller keeps g alive
 * until it installs NULL. */
void sp_guard_install(const struct sp_guard *g);
const struct sp_guard *sp_guard_installed(void);

/* path made absolute with the symlinks of its folders resolved (a missing folder is kept as
 * written, "." and ".." taken lexically there); the last component is resolved too when
 * follow_last. Caller frees. */
char *sp_path_real(const char *path, int follow_last);
/* Whether resolved path p is folder dir or inside it (both from sp_path_real). */
int sp_path_inside(const char *p, const char *dir);

#endif
