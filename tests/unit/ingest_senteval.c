/* Unit tests for ingest/senteval: the field rules of docs/spec/probing.md §1.1, byte-identical round
 * trips (BOM, CRLF, trailing blanks, extra middle fields, no final newline), file:line errors. */
#include <unistd.h>

#include "ingest/senteval_file.h"
#include "t_harness.h"

static int round_trip(const char *name, const char *text)
{
    char err[SP_ERRLEN];
    struct ing_senteval_file f;
    ing_senteval_init(&f);
    int rc = ing_senteval_parse(name, text, strlen(text), &f, err, sizeof err);
    if (rc) { fprintf(stderr, "%s: %s\n", name, err); ing_senteval_free(&f); return 0; }
    char *out = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&out, &len);
    int ok = ing_senteval_write_fp(m, &f) == 0;
    fclose(m);
    ok = ok && len == strlen(text) && !memcmp(out, text, len);
    if (!ok) fprintf(stderr, "%s: round trip differs:\n---\n%s---\n%.*s---\n", name, text, (int)len, out);
    free(out);
    ing_senteval_free(&f);
    return ok;
}

static void expect_err(const char *text, const char *want)
{
    char err[SP_ERRLEN] = "";
    struct ing_senteval_file f;
    ing_senteval_init(&f);
    int rc = ing_senteval_parse("task.txt", text, strlen(text), &f, err, sizeof err);
    t_run++;
    if (rc != SP_EPARSE || strncmp(err, want, strlen(want))) {
        t_fail++;
        fprintf(stderr, "FAIL %s:%d: got rc %d '%s', expected '%s...'\n", __FILE__, __LINE__, rc, err, want);
    }
    ing_senteval_free(&f);
}

int main(void)
{
    char err[SP_ERRLEN];
    struct ing_senteval_file f;

    /* fields */
    const char *t = "tr\tPRES\tShe walks home .\n"
                    "va\t5\tx\tYou can 't do this .  \n"
                    "te\tO\tA  b\tc\n";
    ing_senteval_init(&f);
    T_EQ_INT(ing_senteval_parse("t.txt", t, strlen(t), &f, err, sizeof err), SP_OK);
    T_EQ_INT(f.n, 3);
    T_EQ_INT(f.item[0].part, ING_PART_TRAIN);
    T_EQ_STR(f.item[0].label, "PRES");
    T_EQ_STR(f.item[0].sentence, "She walks home .");
    T_CHECK(f.item[0].middle == NULL);
    T_EQ_INT(f.item[0].line, 1);
    T_EQ_INT(f.item[1].part, ING_PART_DEV);
    T_EQ_STR(f.item[1].label, "5");
    T_EQ_STR(f.item[1].middle, "x");                     /* extra middle field tolerated */
    T_EQ_STR(f.item[1].sentence, "You can 't do this ."); /* last field, trailing blanks stripped */
    T_EQ_STR(f.item[1].trail, "  ");
    T_EQ_INT(ing_senteval_ntokens(f.item[1].sentence), 6);
    T_EQ_INT(f.item[2].part, ING_PART_TEST);
    T_EQ_STR(f.item[2].sentence, "c");                   /* the LAST field is the sentence */
    T_EQ_STR(f.item[2].middle, "A  b");
    T_EQ_INT(ing_senteval_ntokens("  a \t b  c "), 3);
    ing_senteval_free(&f);

    /* byte-identical round trips */
    T_CHECK(round_trip("plain", t));
    T_CHECK(round_trip("crlf", "tr\tI\tThe dog barks .\r\nte\tO\tA cat sleeps .\r\n"));
    T_CHECK(round_trip("bom", "\xEF\xBB\xBFtr\tNN\tcaf\xC3\xA9 au lait .\n"));
    T_CHECK(round_trip("no-final-newline", "tr\ta\tx y\nva\tb\tz"));
    T_CHECK(round_trip("trailing-tab", "tr\ta\tx y\t\nva\tb\tz \t \n"));
    T_CHECK(round_trip("empty-middle", "tr\ta\t\tx y\n"));
    T_CHECK(round_trip("empty-file", ""));

    /* file write + read back equal bytes */
    char dir[] = "/tmp/sp_senteval_test.XXXXXX";
    T_CHECK(mkdtemp(dir) != NULL);
    char path[256];
    snprintf(path, sizeof path, "%s/t.txt", dir);
    ing_senteval_init(&f);
    ing_senteval_add(&f, ING_PART_TRAIN, "PAST", "He walked .");
    ing_senteval_add(&f, ING_PART_TEST, "PRES", "He walks .");
    T_EQ_INT(ing_senteval_write(path, &f, err, sizeof err), SP_OK);
    ing_senteval_free(&f);
    FILE *fp = fopen(path, "rb");
    char buf[256];
    size_t n = fread(buf, 1, sizeof buf, fp);
    fclose(fp);
    T_EQ_INT(n, strlen("tr\tPAST\tHe walked .\nte\tPRES\tHe walks .\n"));
    T_CHECK(!memcmp(buf, "tr\tPAST\tHe walked .\nte\tPRES\tHe walks .\n", n));
    ing_senteval_init(&f);
    T_EQ_INT(ing_senteval_read(path, &f, err, sizeof err), SP_OK);
    T_EQ_INT(f.n, 2);
    T_EQ_STR(f.item[1].label, "PRES");
    ing_senteval_free(&f);
    unlink(path);
    rmdir(dir);
    ing_senteval_init(&f);
    T_EQ_INT(ing_senteval_read("/nonexistent/task.txt", &f, err, sizeof err), SP_EIO);
    T_CHECK(strstr(err, "/nonexistent/task.txt: cannot open") != NULL);
    ing_senteval_free(&f);

    /* errors name file:line */
    expect_err("tr\ta\tok .\nxx\tb\tbad tag .\n", "task.txt:2: expected partition tag tr, va or te, got 'xx'");
    expect_err("tr\ta\tok .\nte\tonly two fields\n", "task.txt:2: expected 3 TAB-separated fields");
    expect_err("tr\ta\tok .\n\nte\tb\tc\n", "task.txt:2: expected tag TAB label TAB sentence, got an empty line");
    expect_err("tr\t\tno label .\n", "task.txt:1: expected a label in field 2");
    expect_err("tr\ta\tok .\nva\tb\t   \n", "task.txt:2: expected 3 TAB-separated fields");
    expect_err("tr\ta\tok\xff .\n", "task.txt:1: expected UTF-8 text");
    expect_err("tr\ta\tone\rtwo\n", "task.txt:1: expected a line ending in LF or CRLF");
    {
        static const char nul[] = "tr\ta\tok .\ntr\ta\tnul\0x\n";
        ing_senteval_init(&f);
        T_EQ_INT(ing_senteval_parse("task.txt", nul, sizeof nul - 1, &f, err, sizeof err), SP_EPARSE);
        T_EQ_STR(err, "task.txt:2: expected text, got a NUL byte");
        ing_senteval_free(&f);
    }
    return T_DONE();
}
