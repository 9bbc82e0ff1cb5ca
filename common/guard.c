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
#include <fnmatch.h>
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
        g->v[g->n - 1].store = 1;
        if (linked) {
            char *q = sp_xmalloc(strlen(target) + 16);
            sprintf(q, "%s%s", target, companion[i]);
            add(g, q, p, r);
            g->v[g->n - 1].store = 1;
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

/* ---- the store is no input ---- */

/* the store entries of s against the inputs of g */
static int stores_against(const struct sp_guard *s_g, const struct sp_guard *g, char *err, size_t errlen)
{
    for (int i = 0; i < s_g->n; i++) {
        const struct sp_guard_file *s = &s_g->v[i];
        if (!s->store) continue;
        for (int j = 0; j < g->n; j++) {
            const struct sp_guard_file *f = &g->v[j];
            if (f->store) continue;
            if (!(s->have_id && f->have_id && s->dev == f->dev && s->ino == f->ino) && strcmp(s->real, f->real)) continue;
            snprintf(err, errlen, "%s %s: the same file as %s %s; a store and its side files are written, so none may be "
                     "an input (SQLite would make an empty file a database): name another store", s->role, s->shown, f->role, f->shown);
            return SP_EUSAGE;
        }
    }
    return SP_OK;
}

int sp_guard_check_stores(const struct sp_guard *g, char *err, size_t errlen)
{
    return g ? stores_against(g, g, err, errlen) : SP_OK;
}

int sp_guard_check_store(const struct sp_guard *g, const char *store, const char *role, char *err, size_t errlen)
{
    struct sp_guard one = { 0 };
    sp_guard_protect_store(&one, store, role);
    int rc = g ? stores_against(&one, g, err, errlen) : SP_OK;
    sp_guard_free(&one);
    return rc;
}

/* ---- outputs against each other ---- */

const char *sp_guard_holds_all(const void *src) { (void)src; return "*"; }

static int has_wildcard(const char *s) { return strpbrk(s, "*?[") != NULL; }

/* the next '|'-separated item of *p into buf (cap bytes); 0 at the end */
static int next_item(const char **p, char *buf, size_t cap)
{
    if (!**p) return 0;
    size_t n = strcspn(*p, "|");
    snprintf(buf, cap, "%.*s", (int)n, *p);
    *p += n + ((*p)[n] == '|');
    return 1;
}

/* Whether a folder that holds holds writes a file named name (one component) */
static int holds_name(const char *holds, const char *name)
{
    char pat[256];
    for (const char *p = holds; next_item(&p, pat, sizeof pat);)
        if (!fnmatch(pat, name, 0)) return 1;
    return 0;
}

/* Whether two folders' names may meet: a literal name of one that the other writes; two patterns
 * are taken to meet */
static int holds_meet(const char *a, const char *b)
{
    char x[256], y[256];
    for (const char *p = a; next_item(&p, x, sizeof x);)
        for (const char *q = b; next_item(&q, y, sizeof y);) {
            int px = has_wildcard(x), py = has_wildcard(y);
            if (px && py) return 1;
            if (!fnmatch(px ? x : y, px ? y : x, 0)) return 1;
        }
    return 0;
}

/* The first component of p below folder dir (p inside dir, not dir itself), into buf. */
static const char *first_below(const char *p, const char *dir, char *buf, size_t cap)
{
    const char *rel = p + strlen(dir);
    while (*rel == '/') rel++;
    snprintf(buf, cap, "%.*s", (int)strcspn(rel, "/"), rel);
    return buf;
}

static void add_output(struct sp_guard *outs, const char *path, const char *holds, const char *role)
{
    add(outs, path, path, role);
    struct sp_guard_file *f = &outs->v[outs->n - 1];
    f->is_dir = 0;                       /* an output folder an earlier run made is no input folder */
    f->holds = holds ? sp_xstrdup(holds) : NULL;
}

/* One output against g and its shape, then added to outs (a folder's literal names first, as
 * files of their own, each marked as its folder's); the outputs against each other: check_distinct */
static int output_alone(const struct sp_guard *g, struct sp_guard *outs, const char *path, const char *holds,
                        const char *what, char *err, size_t errlen)
{
    if (!path || !*path || !strcmp(path, "-")) return SP_OK;
    struct stat st;
    int have = stat(path, &st) == 0;
    int rc = sp_guard_check(g, path, what, err, errlen);   /* the store or an input first: the worst */
    if (rc) return rc;
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    if (!holds && (!*base || !strcmp(base, ".") || !strcmp(base, ".."))) {
        snprintf(err, errlen, "%s %s: names a folder, and a file is expected here (name the file to write)", what, path);
        return SP_EUSAGE;
    }
    if (!holds && have && S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s %s: an existing folder, and a file is expected here (name a file to write, "
                 "inside it or elsewhere)", what, path);
        return SP_EUSAGE;
    }
    if (holds && have && !S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s %s: an existing file, and a folder is expected here (name a folder)", what, path);
        return SP_EUSAGE;
    }
    char *real = sp_path_real(path, holds != NULL), name[256], lit[256];
    /* a folder: what it writes in it, by name (a literal name also by identity: a hard link) */
    for (const char *p = holds ? holds : ""; rc == SP_OK && next_item(&p, lit, sizeof lit);) {
        if (has_wildcard(lit)) continue;
        char *one = sp_xmalloc(strlen(path) + strlen(lit) + 2);
        sprintf(one, "%s/%s", path, lit);
        rc = sp_guard_check(g, one, what, err, errlen);
        free(one);
    }
    for (int i = 0; holds && rc == SP_OK && g && i < g->n; i++) {
        const struct sp_guard_file *f = &g->v[i];
        if (strcmp(f->real, real) && sp_path_inside(f->real, real) && holds_name(holds, first_below(f->real, real, name, sizeof name))) {
            snprintf(err, errlen, "%s %s: the folder would hold %s %s, under a name it writes (%s); an output never "
                     "replaces the store or an input (write it elsewhere)", what, path, f->role, f->shown, holds);
            rc = SP_EUSAGE;
        }
    }
    if (rc == SP_OK) {
        char *role = sp_xmalloc(strlen(what) + 16);
        sprintf(role, "output %s", what);
        int children = outs->n;
        for (const char *p = holds ? holds : ""; next_item(&p, lit, sizeof lit);) {
            if (has_wildcard(lit)) continue;
            char *one = sp_xmalloc(strlen(path) + strlen(lit) + 2);
            sprintf(one, "%s/%s", path, lit);
            add_output(outs, one, NULL, role);
            free(one);
        }
        add_output(outs, path, holds, role);
        for (int k = children; k < outs->n - 1; k++) outs->v[k].of_folder = outs->n;   /* its folder's index + 1 */
        free(role);
    }
    free(real);
    return rc;
}

int sp_guard_check_output(const struct sp_guard *g, struct sp_guard *outs, const char *path, const char *holds,
                          const char *what, char *err, size_t errlen)
{
    int rc = output_alone(g, outs, path, holds, what, err, errlen);
    return rc ? rc : sp_guard_check_distinct(outs, err, errlen);
}

void sp_guard_free(struct sp_guard *g)
{
    for (int i = 0; i < g->n; i++) {
        free(g->v[i].holds);
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
    int rc = sp_guard_collect_options(g, outs, t, src, prefix, err, errlen);
    return rc ? rc : sp_guard_check_distinct(outs, err, errlen);
}

/* ---- the process's guard ---- */

static const struct sp_guard *installed;

void sp_guard_install(const struct sp_guard *g) { installed = g; }

const struct sp_guard *sp_guard_installed(void) { return installed; }

/* ---- outputs against each other: once, sorted ---- */

int sp_guard_collect_options(const struct sp_guard *g, struct sp_guard *outs, const struct sp_opt *t, const void *src,
                             const char *prefix, char *err, size_t errlen)
{
    for (const struct sp_opt *o = t; o->name; o++) {
        if ((o->type != SP_OPT_PATH && o->type != SP_OPT_PATHS) || !(o->flags & SP_OPTF_OUTPUT)) continue;
        int n;
        const char *const *v = path_values(o, src, &n);
        char what[256];
        snprintf(what, sizeof what, "%s%s", prefix, o->name);
        const char *holds = o->holds ? o->holds(src) : NULL;
        for (int i = 0; i < n; i++) {
            if (!v[i]) continue;
            int rc = output_alone(g, outs, v[i], holds, what, err, errlen);
            if (rc) return rc;
        }
    }
    return SP_OK;
}

/* Resolved names in an order where a folder is followed at once by everything inside it: '/'
 * sorts before every other byte ("a", "a/b", "a-c"; strcmp puts "a-c" between "a" and "a/b").
 * Ties by index. */
static int by_tree(const void *a, const void *b, void *arg)
{
    const struct sp_guard_file *v = arg;
    int i = *(const int *)a, j = *(const int *)b;
    const unsigned char *x = (const unsigned char *)v[i].real, *y = (const unsigned char *)v[j].real;
    for (; *x && *x == *y; x++, y++) {}
    int cx = *x == '/' ? 1 : *x ? *x + 1 : 0, cy = *y == '/' ? 1 : *y ? *y + 1 : 0;
    return cx != cy ? cx - cy : (i > j) - (i < j);
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

/* Whether outputs a and b (one = the same file or folder) clash, by the rules of
 * sp_guard_check_output; a folder's own literal names never clash with it. */
static int clash(const struct sp_guard_file *v, int a, int b, int one)
{
    const struct sp_guard_file *x = &v[a], *y = &v[b];
    char name[256];
    if (x->of_folder == b + 1 || y->of_folder == a + 1) return 0;
    if (one) return !x->holds || !y->holds || holds_meet(x->holds, y->holds);
    if (sp_path_inside(y->real, x->real))       /* y inside x */
        return !x->holds || holds_name(x->holds, first_below(y->real, x->real, name, sizeof name));
    return !y->holds || holds_name(y->holds, first_below(x->real, y->real, name, sizeof name));
}

/* the clash of later output j with earlier output i, named as a check one by one names it */
static void name_clash(const struct sp_guard_file *v, int i, int j, int one, char *err, size_t errlen)
{
    const struct sp_guard_file *x = &v[i], *y = &v[j];
    const char *what = strncmp(y->role, "output ", 7) ? y->role : y->role + 7;
    if (one && !x->holds && !y->holds)
        snprintf(err, errlen, "%s %s: the same file as %s %s; one output would replace the other (write them to two "
                 "files)", what, y->shown, x->role, x->shown);
    else if (one && (!x->holds || !y->holds))
        snprintf(err, errlen, "%s %s: the same path as %s %s, one a file and the other a folder (write them to two "
                 "places)", what, y->shown, x->role, x->shown);
    else if (one)
        snprintf(err, errlen, "%s %s: the same folder as %s %s, and both write files named alike there (%s and %s); "
                 "one would replace the other's (write them to two folders)", what, y->shown, x->role, x->shown,
                 y->holds, x->holds);
    else if (sp_path_inside(y->real, x->real) && !x->holds)
        snprintf(err, errlen, "%s %s: inside %s %s, which is a file (write it elsewhere)", what, y->shown, x->role, x->shown);
    else if (sp_path_inside(y->real, x->real))
        snprintf(err, errlen, "%s %s: inside %s %s, under a name that folder writes (%s); one output would replace the "
                 "other (write it elsewhere)", what, y->shown, x->role, x->shown, x->holds);
    else if (!y->holds)
        snprintf(err, errlen, "%s %s: %s %s lies inside it, and this output is a file (write it elsewhere)", what,
                 y->shown, x->role, x->shown);
    else
        snprintf(err, errlen, "%s %s: %s %s lies inside this folder, under a name it writes (%s); one output would "
                 "replace the other (write it elsewhere)", what, y->shown, x->role, x->shown, y->holds);
}

/* keep the clash (a, b) if its later output comes before best's, or the same with an earlier partner */
static void keep_first(int a, int b, int one, int *bi, int *bj, int *bone)
{
    int i = a < b ? a : b, j = a < b ? b : a;
    if (*bj < 0 || j < *bj || (j == *bj && i < *bi)) { *bi = i; *bj = j; *bone = one; }
}

int sp_guard_check_distinct(const struct sp_guard *outs, char *err, size_t errlen)
{
    int n = outs->n;
    if (n < 2) return SP_OK;
    const struct sp_guard_file *v = outs->v;
    int *ix = sp_xmalloc(sizeof *ix * (size_t)n), *up = sp_xmalloc(sizeof *up * (size_t)n);
    int bi = -1, bj = -1, bone = 0;
    /* by name: walking the tree order with the stack of the outputs enclosing the current one (the
     * same path, or a folder above it), each output meets exactly the outputs it lies in or is,
     * so the work is n log n plus n times the depth of nesting among the outputs */
    for (int k = 0; k < n; k++) ix[k] = k;
    qsort_r(ix, (size_t)n, sizeof *ix, by_tree, (void *)v);
    int depth = 0;
    for (int k = 0; k < n; k++) {
        int b = ix[k];
        while (depth && !sp_path_inside(v[b].real, v[up[depth - 1]].real)) depth--;
        for (int d = 0; d < depth; d++) {
            int a = up[d], one = !strcmp(v[a].real, v[b].real);
            if (clash(v, a, b, one)) keep_first(a, b, one, &bi, &bj, &bone);
        }
        up[depth++] = b;
    }
    /* by identity: two names of one existing file (a hard link, a link the resolved name missed) */
    qsort_r(ix, (size_t)n, sizeof *ix, by_id, (void *)v);
    for (int k = 1, r = 0; k < n; k++) {
        if (!same_id(&v[ix[r]], &v[ix[k]])) { r = k; continue; }
        for (int q = r; q < k; q++)
            if (strcmp(v[ix[q]].real, v[ix[k]].real) && clash(v, ix[q], ix[k], 1)) keep_first(ix[q], ix[k], 1, &bi, &bj, &bone);
    }
    free(ix);
    free(up);
    if (bj < 0) return SP_OK;
    name_clash(v, bi, bj, bone, err, errlen);
    return SP_EUSAGE;
}
