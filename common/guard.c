/* common/guard.c — outputs checked by identity against the store and the inputs (common/guard.h).
 *
 * Why identity and not text: "s.db", "./s.db", "link-to-s.db" and "dir-link/s.db" are one file;
 * comparing the words typed lets any of them through. A file that exists is compared by device
 * and inode (stat follows a final symlink: an output named by a link to the store is the store to
 * the user, even though sp_out_open would replace the link); a file that does not exist yet (the
 * store's -wal before the first open) by its resolved name. A protected folder (an input folder
 * of treebanks) also protects what is inside it: an output there could replace an input, or be
 * read as one by the next run (new or existing alike, so a second run is refused as the first). */
#include "common/guard.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/opt.h"
#include "common/sp.h"

/* ---- resolved names ---- */

static char *join(const char *dir, const char *base)
{
    size_t n = strlen(dir);
    char *r = sp_xmalloc(n + strlen(base) + 2);
    sprintf(r, "%s%s%s", dir, n && dir[n - 1] == '/' ? "" : "/", base);
    return r;
}

static char *absolute(const char *path)
{
    if (path[0] == '/') return sp_xstrdup(path);
    char *cwd = getcwd(NULL, 0);
    if (!cwd) return sp_xstrdup(path);       /* no working folder: the text is all there is */
    char *r = join(cwd, path);
    free(cwd);
    return r;
}

char *sp_path_real(const char *path, int follow_last)
{
    char *abs = absolute(path);
    size_t n = strlen(abs);
    while (n > 1 && abs[n - 1] == '/') abs[--n] = 0;
    if (follow_last || !strcmp(abs, "/")) {
        char *r = realpath(abs, NULL);
        if (r) { free(abs); return r; }
        if (!strcmp(abs, "/") || abs[0] != '/') return abs;
    }
    char *slash = strrchr(abs, '/');
    if (!slash) return abs;
    const char *base = slash + 1;
    char *dir = slash == abs ? sp_xstrdup("/") : sp_xmalloc((size_t)(slash - abs) + 1);
    if (slash != abs) { memcpy(dir, abs, (size_t)(slash - abs)); dir[slash - abs] = 0; }
    char *rd = sp_path_real(dir, 1);   /* the folder as the kernel walks it: every link followed */
    free(dir);
    char *r;
    if (!strcmp(base, ".")) r = rd;
    else if (!strcmp(base, "..")) {
        char *s = strrchr(rd, '/');
        if (s == rd) rd[1] = 0;
        else if (s) *s = 0;
        r = rd;
    } else {
        r = join(rd, base);
        free(rd);
    }
    free(abs);
    return r;
}

int sp_path_inside(const char *p, const char *dir)
{
    size_t n = strlen(dir);
    if (n == 1 && dir[0] == '/') return p[0] == '/';
    return !strncmp(p, dir, n) && (p[n] == 0 || p[n] == '/');
}

/* ---- the guard ---- */

static void add(struct sp_guard *g, const char *path, const char *shown, const char *role)
{
    g->v = sp_xrealloc(g->v, sizeof *g->v * (size_t)(g->n + 1));
    struct sp_guard_file *f = &g->v[g->n++];
    memset(f, 0, sizeof *f);
    struct stat st;
    if (stat(path, &st) == 0) {
        f->have_id = 1;
        f->dev = st.st_dev;
        f->ino = st.st_ino;
        f->is_dir = S_ISDIR(st.st_mode);
    }
    f->real = sp_path_real(path, f->is_dir);
    f->shown = sp_xstrdup(shown);
    f->role = sp_xstrdup(role);
}

void sp_guard_protect(struct sp_guard *g, const char *path, const char *role)
{
    if (path && *path && strcmp(path, "-")) add(g, path, path, role);
}

void sp_guard_protect_store(struct sp_guard *g, const char *store, const char *role)
{
    static const char *const companion[] = { "", "-wal", "-shm", "-journal", ".run.lock", ".gpu.lock" };
    if (!store || !*store) return;
    /* SQLite keeps -wal and -shm beside the file a symlinked store names, not beside the link */
    char *target = realpath(store, NULL), *link = sp_path_real(store, 0);
    size_t ll = strlen(link);
    for (int i = 0; i + 1 < g->n; i++)      /* protected as a store already (each step of a job names
                                             * it): the file, then its -wal beside it */
        if (!strcmp(g->v[i].real, link) && !strncmp(g->v[i + 1].real, link, ll) && !strcmp(g->v[i + 1].real + ll, "-wal")) {
            free(target);
            free(link);
            return;
        }
    int linked = target && strcmp(target, link);
    for (size_t i = 0; i < sizeof companion / sizeof companion[0]; i++) {
        char *p = sp_xmalloc(strlen(store) + 16), *r = sp_xmalloc(strlen(role) + 32);
        sprintf(p, "%s%s", store, companion[i]);
        if (i) sprintf(r, "%s's %s file", role, companion[i]);
        else sprintf(r, "%s", role);
        add(g, p, p, r);
        if (linked) {
            char *q = sp_xmalloc(strlen(target) + 16);
            sprintf(q, "%s%s", target, companion[i]);
            add(g, q, p, r);
            free(q);
        }
        free(p);
        free(r);
    }
    free(target);
    free(link);
}

/* Whether an output (real: its resolved name; st: what it names now, when have) is f. */
static int same(const struct sp_guard_file *f, const char *real, int have, const struct stat *st)
{
    if (have && f->have_id && st->st_dev == f->dev && st->st_ino == f->ino) return 1;
    if (!strcmp(real, f->real)) return 1;
    return f->is_dir && sp_path_inside(real, f->real);
}

int sp_guard_check(const struct sp_guard *g, const char *path, const char *what, char *err, size_t errlen)
{
    if (!g || !path || !*path || !strcmp(path, "-")) return SP_OK;
    struct stat st;
    int have = stat(path, &st) == 0;
    char *real = sp_path_real(path, 0);
    int rc = SP_OK;
    for (int i = 0; i < g->n && rc == SP_OK; i++) {
        const struct sp_guard_file *f = &g->v[i];
        if (!same(f, real, have, &st)) continue;
        if (f->is_dir && (!have || st.st_dev != f->dev || st.st_ino != f->ino) && strcmp(real, f->real))
            snprintf(err, errlen, "%s %s: inside %s %s; an output never goes into an input folder, where it could "
                     "replace an input or be read as one (write it elsewhere)", what, path, f->role, f->shown);
        else
            snprintf(err, errlen, "%s %s: the same file as %s %s; an output never replaces the store, an input "
                     "or another output (write it elsewhere)", what, path, f->role, f->shown);
        rc = SP_EUSAGE;
    }
    free(real);
    return rc;
}

void sp_guard_free(struct sp_guard *g)
{
    for (int i = 0; i < g->n; i++) {
        free(g->v[i].real);
        free(g->v[i].shown);
        free(g->v[i].role);
    }
    free(g->v);
    g->v = NULL;
    g->n = 0;
}

/* ---- option tables ---- */

/* the values of path option o in src: one for PATH, the list for PATHS */
static const char *const *path_values(const struct sp_opt *o, const void *src, int *n)
{
    const char *field = (const char *)src + o->offset;
    if (o->type == SP_OPT_PATH) { *n = 1; return (const char *const *)field; }
    const struct sp_strlist *l = (const struct sp_strlist *)field;
    *n = l->n;
    return l->v;
}

void sp_guard_protect_options(struct sp_guard *g, const struct sp_opt *t, const void *src, const char *prefix)
{
    for (const struct sp_opt *o = t; o->name; o++) {
        if ((o->type != SP_OPT_PATH && o->type != SP_OPT_PATHS) || (o->flags & SP_OPTF_OUTPUT)) continue;
        int n;
        const char *const *v = path_values(o, src, &n);
        char role[256];
        for (int i = 0; i < n; i++) {
            if (!v[i]) continue;
            if (!strcmp(o->name, "db")) { sp_guard_protect_store(g, v[i], "the store"); continue; }
            snprintf(role, sizeof role, "input %s%s", prefix, o->name);
            sp_guard_protect(g, v[i], role);
        }
    }
}

int sp_guard_check_options(const struct sp_guard *g, struct sp_guard *outs, const struct sp_opt *t, const void *src,
                           const char *prefix, char *err, size_t errlen)
{
    for (const struct sp_opt *o = t; o->name; o++) {
        if ((o->type != SP_OPT_PATH && o->type != SP_OPT_PATHS) || !(o->flags & SP_OPTF_OUTPUT)) continue;
        int n;
        const char *const *v = path_values(o, src, &n);
        char what[256];
        snprintf(what, sizeof what, "%s%s", prefix, o->name);
        for (int i = 0; i < n; i++) {
            if (!v[i]) continue;
            int rc = sp_guard_check(g, v[i], what, err, errlen);
            if (!rc) rc = sp_guard_check(outs, v[i], what, err, errlen);
            if (rc) return rc;
            char role[280];
            snprintf(role, sizeof role, "output %s", what);
            sp_guard_protect(outs, v[i], role);
            outs->v[outs->n - 1].is_dir = 0;   /* an output folder an earlier run made is no input
                                                * folder: another output may go inside it */
        }
    }
    return SP_OK;
}

/* ---- the process's guard ---- */

static const struct sp_guard *installed;

void sp_guard_install(const struct sp_guard *g) { installed = g; }

const struct sp_guard *sp_guard_installed(void) { return installed; }

/* ---- many outputs: checked against each other once, sorted ---- */

int sp_guard_collect_options(const struct sp_guard *g, struct sp_guard *outs, const struct sp_opt *t, const void *src,
                             const char *prefix, char *err, size_t errlen)
{
    for (const struct sp_opt *o = t; o->name; o++) {
        if ((o->type != SP_OPT_PATH && o->type != SP_OPT_PATHS) || !(o->flags & SP_OPTF_OUTPUT)) continue;
        int n;
        const char *const *v = path_values(o, src, &n);
        char what[256];
        snprintf(what, sizeof what, "%s%s", prefix, o->name);
        for (int i = 0; i < n; i++) {
            if (!v[i]) continue;
            int rc = sp_guard_check(g, v[i], what, err, errlen);
            if (rc) return rc;
            char role[280];
            snprintf(role, sizeof role, "output %s", what);
            sp_guard_protect(outs, v[i], role);
            outs->v[outs->n - 1].is_dir = 0;   /* as sp_guard_check_options: no input folder */
        }
    }
    return SP_OK;
}

/* qsort_r comparators over indices into the outputs v, ties by index */
static int by_real(const void *a, const void *b, void *arg)
{
    const struct sp_guard_file *v = arg;
    int i = *(const int *)a, j = *(const int *)b;
    int c = strcmp(v[i].real, v[j].real);
    return c ? c : (i > j) - (i < j);
}

static int same_id(const struct sp_guard_file *x, const struct sp_guard_file *y)
{
    return x->have_id && y->have_id && x->dev == y->dev && x->ino == y->ino;
}

static int by_id(const void *a, const void *b, void *arg)
{
    const struct sp_guard_file *v = arg;
    int i = *(const int *)a, j = *(const int *)b;
    const struct sp_guard_file *x = &v[i], *y = &v[j];
    if (x->have_id != y->have_id) return y->have_id - x->have_id;
    if (x->have_id && x->dev != y->dev) return x->dev < y->dev ? -1 : 1;
    if (x->have_id && x->ino != y->ino) return x->ino < y->ino ? -1 : 1;
    return (i > j) - (i < j);
}

/* Sorted by one key (runs of equal keys, each run by index): the smallest index that repeats an
 * earlier one's key, the second of its run; best when that is smaller (-1: none yet). */
static int first_repeat(const struct sp_guard_file *v, int *ix, int n, int by_name, int best)
{
    for (int k = 0; k < n; k++) ix[k] = k;
    qsort_r(ix, (size_t)n, sizeof *ix, by_name ? by_real : by_id, (void *)v);
    for (int k = 1; k < n; k++) {
        const struct sp_guard_file *x = &v[ix[k - 1]], *y = &v[ix[k]];
        if ((by_name ? !strcmp(x->real, y->real) : same_id(x, y)) && (best < 0 || ix[k] < best)) best = ix[k];
    }
    return best;
}

int sp_guard_check_distinct(const struct sp_guard *outs, char *err, size_t errlen)
{
    int n = outs->n;
    if (n < 2) return SP_OK;
    int *ix = sp_xmalloc(sizeof *ix * (size_t)n);
    int j = first_repeat(outs->v, ix, n, 1, -1);
    j = first_repeat(outs->v, ix, n, 0, j);
    free(ix);
    if (j < 0) return SP_OK;
    /* named as sp_guard_check_options names it: the later output, and the first earlier one that
     * is the same file */
    const struct sp_guard_file *y = &outs->v[j];
    for (int i = 0; i < j; i++) {
        const struct sp_guard_file *x = &outs->v[i];
        if (!same_id(x, y) && strcmp(x->real, y->real)) continue;
        const char *what = strncmp(y->role, "output ", 7) ? y->role : y->role + 7;
        snprintf(err, errlen, "%s %s: the same file as %s %s; an output never replaces the store, an input "
                 "or another output (write it elsewhere)", what, y->shown, x->role, x->shown);
        break;
    }
    return SP_EUSAGE;
}
