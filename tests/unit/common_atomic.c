/* tests/unit/common_atomic.c — the atomic-output helper (common/atomic.c, issue 10 item 9):
 * a committed file appears whole, an aborted one leaves the previous file as it was, a symlink
 * destination is replaced (its target untouched), and no temporary file is left either way. */
#include "common/npy.h"
#include "common/sp.h"
#include "tests/unit/t_harness.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[256], err[SP_ERRLEN];

static const char *tp(const char *name)
{
    static char buf[4][512];
    static int k;
    char *p = buf[k++ % 4];
    snprintf(p, 512, "%s/%s", dir, name);
    return p;
}

static char *slurp(const char *path)
{
    char *s = sp_read_file(path, NULL, NULL, 0);
    return s ? s : sp_xstrdup("(missing)");
}

static int n_tmp(void)
{
    int n = 0;
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d));) n += strstr(e->d_name, ".tmp-") != NULL;
    if (d) closedir(d);
    return n;
}

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/sp_atomic_XXXXXX");
    if (!mkdtemp(dir)) { perror("mkdtemp"); return 1; }
    struct sp_out o;
    char *s;

    /* new file: appears on commit, not before */
    T_EQ_INT(sp_out_open(&o, tp("a.txt"), err, sizeof err), SP_OK);
    fputs("hello\n", o.f);
    T_CHECK(access(tp("a.txt"), F_OK) != 0);
    T_EQ_INT(n_tmp(), 1);
    T_EQ_INT(sp_out_commit(&o, err, sizeof err), SP_OK);
    T_EQ_STR(s = slurp(tp("a.txt")), "hello\n"); free(s);
    T_EQ_INT(n_tmp(), 0);
    T_CHECK(o.f == NULL && o.tmp == NULL && o.path == NULL);
    sp_out_abort(&o);                                  /* no-op after a commit */

    /* existing file: abort keeps it */
    T_EQ_INT(sp_out_open(&o, tp("a.txt"), err, sizeof err), SP_OK);
    fputs("half-writ", o.f);
    sp_out_abort(&o);
    T_EQ_STR(s = slurp(tp("a.txt")), "hello\n"); free(s);
    T_EQ_INT(n_tmp(), 0);

    /* symlink destination: the link is replaced, its target untouched */
    put(tp("target"), "precious\n");
    T_EQ_INT(symlink(tp("target"), tp("link")), 0);
    T_EQ_INT(sp_out_open(&o, tp("link"), err, sizeof err), SP_OK);
    fputs("new\n", o.f);
    T_EQ_INT(sp_out_commit(&o, err, sizeof err), SP_OK);
    T_EQ_STR(s = slurp(tp("target")), "precious\n"); free(s);
    T_EQ_STR(s = slurp(tp("link")), "new\n"); free(s);
    struct stat st;
    T_CHECK(lstat(tp("link"), &st) == 0 && S_ISREG(st.st_mode));

    /* the npy writer goes through it too */
    T_EQ_INT(symlink(tp("target"), tp("l.npy")), 0);
    float v[2] = { 1, 2 };
    size_t sh = 2;
    T_EQ_INT(sp_npy_write(tp("l.npy"), SP_DT_F32, 1, &sh, v, err, sizeof err), SP_OK);
    T_EQ_STR(s = slurp(tp("target")), "precious\n"); free(s);
    T_CHECK(lstat(tp("l.npy"), &st) == 0 && S_ISREG(st.st_mode));

    /* errors: a missing folder, a directory */
    T_EQ_INT(sp_out_open(&o, tp("nodir/x"), err, sizeof err), SP_EIO);
    T_CHECK(strstr(err, "nodir/x: cannot create a file in its folder") != NULL);
    T_EQ_INT(mkdir(tp("sub"), 0777), 0);
    T_EQ_INT(sp_out_open(&o, tp("sub"), err, sizeof err), SP_EIO);
    T_CHECK(strstr(err, "is a directory") != NULL);
    T_EQ_INT(n_tmp(), 0);

    /* a relative name (no folder part) */
    char cwd[1024];
    T_CHECK(getcwd(cwd, sizeof cwd) != NULL);
    T_EQ_INT(chdir(dir), 0);
    T_EQ_INT(sp_out_open(&o, "rel.txt", err, sizeof err), SP_OK);
    fputs("r", o.f);
    T_EQ_INT(sp_out_commit(&o, err, sizeof err), SP_OK);
    T_EQ_INT(chdir(cwd), 0);
    T_EQ_STR(s = slurp(tp("rel.txt")), "r"); free(s);

    const char *rm[] = { "a.txt", "target", "link", "l.npy", "rel.txt" };
    for (size_t i = 0; i < sizeof rm / sizeof rm[0]; i++) unlink(tp(rm[i]));
    rmdir(tp("sub"));
    rmdir(dir);
    return T_DONE();
}
