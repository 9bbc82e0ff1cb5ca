/* tests/unit/common_guard.c — outputs by identity (common/guard.h): resolved names, the guard's
 * clashes (same inode through a symlink, a hard link, a symlinked folder, "./" and "..", a store
 * companion that does not exist yet, a file in an input folder), outputs by the files they write
 * (sp_guard_check_output), a store that is an input (sp_guard_check_stores), the option-table
 * walk, and sp_out_open refusing a protected destination. Expected answers are what the kernel
 * says (realpath(3), the files made here), not the module's own output. */
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/guard.h"
#include "common/opt.h"
#include "common/sp.h"
#include "tests/unit/t_harness.h"

static char root[256];   /* realpath of the scratch folder */

static void put(const char *rel, const char *text)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", root, rel);
    FILE *f = fopen(p, "w");
    fputs(text, f);
    fclose(f);
}

static const char *at(const char *rel)
{
    static char buf[4][512];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", root, rel);
    return buf[k];
}

static int clash(const struct sp_guard *g, const char *path)
{
    char err[SP_ERRLEN];
    return sp_guard_check(g, path, "--out", err, sizeof err) == SP_EUSAGE;
}

static void test_real(void)
{
    char *r = sp_path_real(at("d/../a.txt"), 0);
    T_EQ_STR(r, at("a.txt"));
    free(r);
    r = sp_path_real(at("dl/x.txt"), 0);            /* dl -> d: the folder's link resolved */
    T_EQ_STR(r, at("d/x.txt"));
    free(r);
    r = sp_path_real(at("la.txt"), 0);              /* the last component is not followed... */
    T_EQ_STR(r, at("la.txt"));
    free(r);
    r = sp_path_real(at("la.txt"), 1);              /* ...unless asked */
    T_EQ_STR(r, at("a.txt"));
    free(r);
    r = sp_path_real(at("missing/deeper/../f"), 0); /* a missing folder: kept, ".." taken lexically */
    T_EQ_STR(r, at("missing/f"));
    free(r);
    char cwd[512];
    T_CHECK(getcwd(cwd, sizeof cwd) != NULL);
    T_CHECK(chdir(root) == 0);
    r = sp_path_real("./dl/../a.txt", 0);          /* relative: against the working folder; dl/.. is root */
    T_EQ_STR(r, at("a.txt"));
    free(r);
    T_CHECK(chdir(cwd) == 0);
    T_CHECK(sp_path_inside(at("d/x"), at("d")));
    T_CHECK(sp_path_inside(at("d"), at("d")));
    T_CHECK(!sp_path_inside(at("dx"), at("d")));
    T_CHECK(sp_path_inside("/x", "/"));
}

static void test_guard(void)
{
    struct sp_guard g = { 0 };
    sp_guard_protect(&g, at("a.txt"), "input --mrg");
    sp_guard_protect_store(&g, at("s.db"), "the store");     /* does not exist yet */
    sp_guard_protect(&g, at("in"), "input --conllu");        /* a folder */
    T_CHECK(clash(&g, at("a.txt")));
    T_CHECK(clash(&g, at("la.txt")));          /* a symlink to it */
    T_CHECK(clash(&g, at("ha.txt")));          /* a hard link to it */
    T_CHECK(clash(&g, at("dl/../a.txt")));
    T_CHECK(clash(&g, at("s.db")));            /* by name: no inode yet */
    T_CHECK(clash(&g, at("s.db-wal")));
    T_CHECK(clash(&g, at("s.db-journal")));
    T_CHECK(clash(&g, at("s.db.run.lock")));
    T_CHECK(clash(&g, at("rootlink/s.db-shm")));   /* rootlink -> root: through a symlinked folder */
    T_CHECK(clash(&g, at("in/t.conllu")));     /* a file already in an input folder */
    T_CHECK(clash(&g, at("in/new.json")));     /* a new one: the next read of the folder would take it */
    T_CHECK(clash(&g, at("in")));              /* the folder itself */
    T_CHECK(!clash(&g, at("b.txt")));
    T_CHECK(!clash(&g, at("s.db2")));
    T_CHECK(!clash(&g, at("d/a.txt")));
    T_CHECK(!clash(&g, "-"));                  /* standard output */
    char err[SP_ERRLEN];
    T_EQ_INT(sp_guard_check(&g, at("la.txt"), "--out", err, sizeof err), SP_EUSAGE);
    T_CHECK(strstr(err, at("la.txt")) && strstr(err, at("a.txt")) && strstr(err, "input --mrg"));   /* both named */
    sp_guard_free(&g);
    T_EQ_INT(g.n, 0);

    /* a store named by a symlink: its target's -wal (where SQLite puts it) is protected too */
    sp_guard_protect_store(&g, at("ls.db"), "the store");
    T_CHECK(clash(&g, at("real.db")));
    T_CHECK(clash(&g, at("real.db-wal")));
    T_CHECK(clash(&g, at("ls.db-wal")));
    sp_guard_free(&g);
}

struct two { const char *db, *in, *out, *gold_out; };
static const struct sp_opt table[] = {
    { "db", SP_OPT_PATH, offsetof(struct two, db), .metavar = "DB" },
    { "mrg", SP_OPT_PATH, offsetof(struct two, in), .metavar = "F" },
    { "out", SP_OPT_PATH, offsetof(struct two, out), .flags = SP_OPTF_OUTPUT },
    { "gold-out", SP_OPT_PATH, offsetof(struct two, gold_out), .flags = SP_OPTF_OUTPUT },
    { 0 },
};

static int check_two(struct two t, char *err)
{
    struct sp_guard g = { 0 }, outs = { 0 };
    sp_guard_protect_options(&g, table, &t, "--");
    int rc = sp_guard_check_options(&g, &outs, table, &t, "--", err, SP_ERRLEN);
    sp_guard_free(&g);
    sp_guard_free(&outs);
    return rc;
}

static void test_options(void)
{
    char err[SP_ERRLEN];
    T_EQ_INT(check_two((struct two){ at("s.db"), at("a.txt"), at("o1"), at("o2") }, err), SP_OK);
    T_EQ_INT(check_two((struct two){ at("s.db"), at("a.txt"), at("la.txt"), NULL }, err), SP_EUSAGE);
    T_CHECK(strstr(err, "--out ") && strstr(err, "input --mrg"));
    T_EQ_INT(check_two((struct two){ at("s.db"), at("a.txt"), NULL, at("s.db-wal") }, err), SP_EUSAGE);
    T_CHECK(strstr(err, "--gold-out ") && strstr(err, "the store's -wal file"));
    T_EQ_INT(check_two((struct two){ at("s.db"), at("a.txt"), at("o1"), at("dl/../o1") }, err), SP_EUSAGE);
    T_CHECK(strstr(err, "output --out"));      /* two outputs that are one file */
}

/* two outputs of given shapes (holds: NULL a file, else a folder's names), in that order */
static int outs2(const char *a, const char *ha, const char *b, const char *hb, char *err)
{
    struct sp_guard g = { 0 }, outs = { 0 };
    sp_guard_protect(&g, at("a.txt"), "input --mrg");
    int rc = sp_guard_check_output(&g, &outs, a, ha, "--out", err, SP_ERRLEN);
    if (!rc) rc = sp_guard_check_output(&g, &outs, b, hb, "--figures", err, SP_ERRLEN);
    sp_guard_free(&g);
    sp_guard_free(&outs);
    return rc;
}

static void test_outputs(void)
{
    static const char page[] = "report.html", figs[] = "[0-9][0-9]*-*.svg|[0-9][0-9]*-*.png";
    char err[SP_ERRLEN];
    T_EQ_INT(outs2(at("D"), page, at("D"), figs, err), SP_OK);                 /* names that cannot meet */
    T_EQ_INT(outs2(at("F/01-x.svg"), NULL, at("F"), figs, err), SP_EUSAGE);   /* a file where a folder writes */
    T_CHECK(strstr(err, "--figures ") && strstr(err, "output --out ") && strstr(err, "01-x.svg"));
    T_EQ_INT(outs2(at("F/1-x.svg"), NULL, at("F"), figs, err), SP_OK);        /* one digit: no figure's name */
    T_EQ_INT(outs2(at("F/notes.json"), NULL, at("dl/../F"), figs, err), SP_OK);
    T_EQ_INT(outs2(at("h"), page, at("h/report.html"), NULL, err), SP_EUSAGE); /* the page itself */
    T_EQ_INT(outs2(at("h"), page, at("h/report.html/x"), figs, err), SP_EUSAGE); /* a folder below the page */
    T_EQ_INT(outs2(at("F"), figs, at("F"), figs, err), SP_EUSAGE);            /* two patterns: taken to meet */
    T_EQ_INT(outs2(at("o"), NULL, at("o/sub"), figs, err), SP_EUSAGE);        /* inside a file output */
    T_EQ_INT(outs2(at("all"), "*", at("all/x/y.json"), NULL, err), SP_EUSAGE);  /* "*": the whole tree */
    T_EQ_INT(outs2(at("d"), NULL, at("x.json"), NULL, err), SP_EUSAGE);       /* an existing folder as a file */
    T_CHECK(strstr(err, "an existing folder"));
    T_EQ_INT(outs2(at("new/."), NULL, at("x.json"), NULL, err), SP_EUSAGE);   /* "." names a folder */
    T_EQ_INT(outs2(at("a.txt"), page, at("x.json"), NULL, err), SP_EUSAGE);   /* the input first */
    T_CHECK(strstr(err, "input --mrg"));
    T_EQ_INT(outs2(at("real.db"), page, at("x.json"), NULL, err), SP_EUSAGE); /* an existing file as a folder */
    T_EQ_INT(outs2(at("in2"), "*", at("x.json"), NULL, err), SP_OK);
    /* a folder that holds an input under a name it writes */
    struct sp_guard g = { 0 }, outs = { 0 };
    sp_guard_protect(&g, at("d/report.html"), "input --mrg");
    T_EQ_INT(sp_guard_check_output(&g, &outs, at("d"), page, "--out", err, sizeof err), SP_EUSAGE);
    T_EQ_INT(sp_guard_check_output(&g, &outs, at("d"), figs, "--figures", err, sizeof err), SP_OK);
    sp_guard_free(&g);
    sp_guard_free(&outs);
}

static void test_stores(void)
{
    char err[SP_ERRLEN];
    static const char *const same[] = { "a.txt", "la.txt", "ha.txt", "dl/../a.txt" };
    for (size_t i = 0; i < sizeof same / sizeof *same; i++) {
        struct sp_guard g = { 0 };
        sp_guard_protect_store(&g, at(same[i]), "the store");
        sp_guard_protect(&g, at("a.txt"), "input");
        T_EQ_INT(sp_guard_check_stores(&g, err, sizeof err), SP_EUSAGE);
        T_CHECK(strstr(err, "the store ") && strstr(err, "input "));
        sp_guard_free(&g);
    }
    struct sp_guard g = { 0 };
    sp_guard_protect(&g, at("a.txt"), "input");
    T_EQ_INT(sp_guard_check_store(&g, at("b.db"), "the store", err, sizeof err), SP_OK);
    T_EQ_INT(sp_guard_check_store(&g, at("a.txt"), "the store of shard 1/2", err, sizeof err), SP_EUSAGE);
    T_CHECK(strstr(err, "the store of shard 1/2 "));
    T_EQ_INT(sp_guard_check_store(&g, at("a"), "the store", err, sizeof err), SP_OK);   /* a-wal: not a.txt */
    sp_guard_free(&g);
    put("x.db-journal", "input\n");
    sp_guard_protect(&g, at("x.db-journal"), "input");
    T_EQ_INT(sp_guard_check_store(&g, at("x.db"), "the store", err, sizeof err), SP_EUSAGE);   /* a side file */
    T_CHECK(strstr(err, "-journal file"));
    sp_guard_free(&g);
}

static void test_out_open(void)
{
    struct sp_guard g = { 0 };
    sp_guard_protect(&g, at("a.txt"), "input --mrg");
    sp_guard_install(&g);
    struct sp_out o;
    char err[SP_ERRLEN];
    T_EQ_INT(sp_out_open(&o, at("la.txt"), err, sizeof err), SP_EUSAGE);
    T_EQ_INT(sp_out_open(&o, at("dl/../a.txt"), err, sizeof err), SP_EUSAGE);
    size_t n;
    char *text = sp_read_file(at("a.txt"), &n, NULL, 0);
    T_EQ_STR(text, "precious\n");
    free(text);
    struct stat st;
    T_CHECK(lstat(at("la.txt"), &st) == 0 && S_ISLNK(st.st_mode));   /* the link is not replaced either */
    T_EQ_INT(sp_out_open(&o, at("b.txt"), err, sizeof err), SP_OK);
    fputs("new\n", o.f);
    T_EQ_INT(sp_out_commit(&o, err, sizeof err), SP_OK);
    sp_guard_install(NULL);
    T_EQ_INT(sp_out_open(&o, at("a.txt"), err, sizeof err), SP_OK);   /* no guard: allowed */
    sp_out_abort(&o);
    sp_guard_free(&g);
}

int main(void)
{
    char tmpl[] = "/tmp/guardXXXXXX";
    if (!mkdtemp(tmpl) || !realpath(tmpl, root)) { perror("scratch folder"); return 1; }
    put("a.txt", "precious\n");
    put("real.db", "");
    mkdir(at("d"), 0777);
    mkdir(at("in"), 0777);
    put("in/t.conllu", "1\tx\n");
    int ok = symlink("d", at("dl")) == 0 && symlink("a.txt", at("la.txt")) == 0 && link(at("a.txt"), at("ha.txt")) == 0 &&
             symlink(root, at("rootlink")) == 0 && symlink("real.db", at("ls.db")) == 0;
    T_CHECK(ok);
    test_real();
    test_guard();
    test_options();
    test_outputs();
    test_stores();
    test_out_open();
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system(cmd)) fprintf(stderr, "could not remove %s\n", root);
    return T_DONE();
}
