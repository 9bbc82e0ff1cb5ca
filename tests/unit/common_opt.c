/* tests/unit/common_opt.c — the option tables (common/opt.h): defaults, every type's values,
 * bounds and exact messages, argv (LIST accumulation, PATHS, conflicting FLAGs, repeats,
 * --name=value, --, operands, unknown options with suggestions), the job file's JSON, the
 * manifest's JSON, the command line back from a struct, the man page's roff (sp_opt_man,
 * sp_roff_text), sp_suggest and sp_join_names. Every
 * expected value is written out by hand. */
#include "common/opt.h"
#include "t_harness.h"

#include <jansson.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>

struct o {
    int verbose, mode, json, quiet;
    long threads, limit;
    uint64_t memory;
    double lr, scale;
    const char *name, *out;
    int format;
    struct sp_strlist task, mrg;
};

#define F(x) offsetof(struct o, x)
static const struct sp_opt T[] = {
    { .name = "verbose", .type = SP_OPT_FLAG, .offset = F(verbose), .help = "say more" },
    { .name = "fast", .type = SP_OPT_FLAG, .offset = F(mode), .flag_value = 1 },
    { .name = "slow", .type = SP_OPT_FLAG, .offset = F(mode), .flag_value = 2 },
    { .name = "threads", .type = SP_OPT_INT, .offset = F(threads), .def = "4", .lo = 1, .hi = 64, .metavar = "N" },
    { .name = "limit", .type = SP_OPT_INT, .offset = F(limit), .def = "-1", .lo = 0, .hi = 0x7fffffffffffffffLL,
      .flags = SP_OPTF_NODEF },
    { .name = "memory", .type = SP_OPT_SIZE, .offset = F(memory), .def = "1G", .lo = 1024 },
    { .name = "lr", .type = SP_OPT_DOUBLE, .offset = F(lr), .def = "0.5", .lo = 0, .hi = 1 },
    { .name = "scale", .type = SP_OPT_DOUBLE, .offset = F(scale), .def = "2.5" },
    { .name = "name", .type = SP_OPT_STR, .offset = F(name), .flags = SP_OPTF_REQUIRED },
    { .name = "out", .type = SP_OPT_PATH, .offset = F(out) },
    { .name = "format", .type = SP_OPT_CHOICE, .offset = F(format), .def = "auto", .choices = "auto|conllu/conll|ptb|dep" },
    { .name = "task", .type = SP_OPT_LIST, .offset = F(task) },
    { .name = "mrg", .type = SP_OPT_PATHS, .offset = F(mrg), .metavar = "FILE" },
    { .name = "json", .type = SP_OPT_FLAG, .offset = F(json), .flags = SP_OPTF_CLI },
    { 0 }
};
/* a second table bound at once (a command's own flags beside its stage's) */
static const struct sp_opt T2[] = {
    { .name = "quiet", .type = SP_OPT_FLAG, .offset = F(quiet) },
    { 0 }
};

static struct sp_arena A;
static char err[512];

/* sp_opt_set on one option: the return code, err holding the message */
static int set(const char *name, struct o *x, const char *v)
{
    err[0] = 0;
    return sp_opt_set(sp_opt_find(T, name), x, v, &A, err, sizeof err);
}

/* parses a NULL-terminated argv (after a program name) into x with both tables */
static struct sp_strlist ops;
static struct o x2;
static int parse(struct o *x, int with_operands, ...)
{
    char *argv[32] = { "prog" };
    int argc = 1;
    va_list ap;
    va_start(ap, with_operands);
    for (char *s; (s = va_arg(ap, char *));) argv[argc++] = s;
    va_end(ap);
    struct sp_optbind b[2] = { { T, x }, { T2, &x2 } };
    err[0] = 0;
    return sp_opt_parse_argv(b, 2, argc, argv, with_operands ? &ops : NULL, &A, err, sizeof err);
}

static void test_defaults(void)
{
    struct o x;
    memset(&x, 0x5a, sizeof x);                    /* garbage: defaults overwrite every field */
    sp_opt_defaults(T, &x, &A);
    T_EQ_INT(x.verbose, 0);
    T_EQ_INT(x.mode, 0);
    T_EQ_INT(x.threads, 4);
    T_EQ_INT(x.limit, -1);                         /* a NODEF sentinel outside the bounds */
    T_EQ_INT(x.memory, 1073741824);                /* 1G = 1024^3 */
    T_NEAR(x.lr, 0.5, 0);
    T_NEAR(x.scale, 2.5, 0);
    T_CHECK(x.name == NULL && x.out == NULL);
    T_EQ_INT(x.format, 0);
    T_EQ_INT(x.task.n, 0);
    T_EQ_INT(x.mrg.n, 0);
    T_EQ_INT(sp_opt_check_required(T, &x, err, sizeof err), SP_EUSAGE);
    T_EQ_STR(err, "--name is required");
    T_CHECK(sp_opt_find(T, "lr") == &T[6]);
    T_CHECK(sp_opt_find(T, "--lr") == NULL);
}

static void test_values(void)
{
    struct o x;
    sp_opt_defaults(T, &x, &A);
    /* INT: bounds inclusive, digits only */
    T_EQ_INT(set("threads", &x, "64"), SP_OK);
    T_EQ_INT(x.threads, 64);
    T_EQ_INT(set("threads", &x, "1"), SP_OK);
    T_EQ_INT(set("threads", &x, "65"), SP_EUSAGE);
    T_EQ_STR(err, "--threads: expected 1..64, got '65'");
    T_EQ_INT(set("threads", &x, "0"), SP_EUSAGE);
    T_EQ_INT(set("threads", &x, "+5"), SP_EUSAGE);
    T_EQ_INT(set("threads", &x, " 5"), SP_EUSAGE);
    T_EQ_INT(set("threads", &x, "5x"), SP_EUSAGE);
    T_EQ_INT(set("threads", &x, ""), SP_EUSAGE);
    T_EQ_STR(err, "--threads: expected 1..64, got ''");
    T_EQ_INT(x.threads, 1);                        /* a refused value leaves the field alone */
    T_EQ_INT(set("limit", &x, "99999999999999999999"), SP_EUSAGE);   /* beyond 64 bits */
    T_EQ_INT(set("limit", &x, "-2"), SP_EUSAGE);
    T_EQ_STR(err, "--limit: expected a non-negative integer, got '-2'");
    T_EQ_INT(set("limit", &x, "9223372036854775807"), SP_OK);
    T_EQ_INT(x.limit, 9223372036854775807LL);
    /* SIZE: powers of 1024, at least lo */
    T_EQ_INT(set("memory", &x, "512M"), SP_OK);
    T_EQ_INT(x.memory, 536870912);
    T_EQ_INT(set("memory", &x, "1K"), SP_OK);
    T_EQ_INT(x.memory, 1024);
    T_EQ_INT(set("memory", &x, "16777215T"), SP_OK);          /* (2^24 - 1) * 2^40 */
    T_CHECK(x.memory == 18446742974197923840ull);
    T_EQ_INT(set("memory", &x, "16777216T"), SP_EUSAGE);      /* 2^64: one too many */
    T_EQ_INT(set("memory", &x, "5k"), SP_EUSAGE);
    T_EQ_INT(set("memory", &x, "1023"), SP_EUSAGE);
    T_EQ_STR(err, "--memory: expected a whole number of bytes of at least 1K, optionally with a suffix K, M, G or T "
                  "(powers of 1024; e.g. 512M, 2G), got '1023'");
    /* DOUBLE: finite, within [lo, hi] when lo < hi */
    T_EQ_INT(set("lr", &x, "1"), SP_OK);
    T_EQ_INT(set("lr", &x, "0.125"), SP_OK);
    T_NEAR(x.lr, 0.125, 0);
    T_EQ_INT(set("lr", &x, "1.5"), SP_EUSAGE);
    T_EQ_STR(err, "--lr: expected a number in [0, 1], got '1.5'");
    T_EQ_INT(set("lr", &x, "nan"), SP_EUSAGE);
    T_EQ_INT(set("lr", &x, "0.5x"), SP_EUSAGE);
    T_EQ_INT(set("scale", &x, "-3.25"), SP_OK);
    T_NEAR(x.scale, -3.25, 0);
    T_EQ_INT(set("scale", &x, "inf"), SP_EUSAGE);
    T_EQ_STR(err, "--scale: expected a finite number, got 'inf'");
    T_EQ_INT(set("scale", &x, "1e400"), SP_EUSAGE);
    T_EQ_INT(set("scale", &x, " 1"), SP_EUSAGE);
    /* STR, PATH: not empty, copied */
    char v[8] = "abc";
    T_EQ_INT(set("name", &x, v), SP_OK);
    v[0] = 'X';
    T_EQ_STR(x.name, "abc");
    T_EQ_INT(set("name", &x, ""), SP_EUSAGE);
    T_EQ_STR(err, "--name: expected a name, got an empty string");
    T_EQ_INT(set("out", &x, ""), SP_EUSAGE);
    T_EQ_STR(err, "--out: expected a path, got an empty string");
    /* CHOICE: the index; an alias counts as its item */
    T_EQ_INT(set("format", &x, "dep"), SP_OK);
    T_EQ_INT(x.format, 3);
    T_EQ_INT(set("format", &x, "conll"), SP_OK);
    T_EQ_INT(x.format, 1);
    T_EQ_INT(set("format", &x, "con"), SP_EUSAGE);
    T_EQ_STR(err, "--format: expected auto, conllu, ptb or dep, got 'con'");
    /* LIST: commas split, values accumulate; an empty name is refused */
    T_EQ_INT(set("task", &x, "A,B"), SP_OK);
    T_EQ_INT(set("task", &x, "C"), SP_OK);
    T_EQ_INT(x.task.n, 3);
    T_EQ_STR(x.task.v[0], "A");
    T_EQ_STR(x.task.v[1], "B");
    T_EQ_STR(x.task.v[2], "C");
    T_CHECK(x.task.v[3] == NULL);
    T_EQ_INT(set("task", &x, "a,,b"), SP_EUSAGE);
    T_EQ_STR(err, "--task: expected a name or names separated by commas, got 'a,,b'");
    T_EQ_INT(set("task", &x, "a,"), SP_EUSAGE);
    T_EQ_INT(set("task", &x, ""), SP_EUSAGE);
    /* the parsers themselves */
    long l;
    uint64_t u;
    T_EQ_INT(sp_parse_int("-7", -10, 10, &l), 0);
    T_EQ_INT(l, -7);
    T_EQ_INT(sp_parse_int("-", -10, 10, &l), -1);
    T_EQ_INT(sp_parse_int(NULL, -10, 10, &l), -1);
    T_EQ_INT(sp_parse_size("3G", 0, &u), 0);
    T_CHECK(u == 3221225472ull);
    T_EQ_INT(sp_parse_size("-1", 0, &u), -1);
    T_EQ_INT(sp_parse_size("2KB", 0, &u), -1);
}

static void test_argv(void)
{
    struct o x;
    T_EQ_INT(parse(&x, 1, "--threads", "8", "--task", "A,B", "in1", "--task=C", "--verbose", "--quiet",
                   "--", "--not-an-option", "-", NULL), SP_OK);
    T_EQ_INT(x.threads, 8);
    T_EQ_INT(x.verbose, 1);
    T_EQ_INT(x2.quiet, 1);                         /* the second table's field */
    T_EQ_INT(x.task.n, 3);
    T_EQ_STR(x.task.v[2], "C");
    T_EQ_INT(ops.n, 3);
    T_EQ_STR(ops.v[0], "in1");
    T_EQ_STR(ops.v[1], "--not-an-option");         /* after "--": an operand */
    T_EQ_STR(ops.v[2], "-");
    T_EQ_INT(x.memory, 1073741824);                /* untouched options keep their defaults */

    T_EQ_INT(parse(&x, 1, "--name=a=b", "--lr=0.25", NULL), SP_OK);
    T_EQ_STR(x.name, "a=b");                       /* split at the first '=' */
    T_NEAR(x.lr, 0.25, 0);
    T_EQ_INT(ops.n, 0);

    /* PATHS: every argument up to the next --option */
    T_EQ_INT(parse(&x, 1, "--mrg", "a.mrg", "b.mrg", "--threads", "2", "c", NULL), SP_OK);
    T_EQ_INT(x.mrg.n, 2);
    T_EQ_STR(x.mrg.v[1], "b.mrg");
    T_EQ_INT(x.threads, 2);
    T_EQ_INT(ops.n, 1);
    T_EQ_INT(parse(&x, 1, "--mrg", "a.mrg", "--mrg", "b.mrg", NULL), SP_OK);   /* repeatable */
    T_EQ_INT(x.mrg.n, 2);
    T_EQ_INT(parse(&x, 1, "--mrg=x.mrg", "y", NULL), SP_OK);                  /* one value with '=' */
    T_EQ_INT(x.mrg.n, 1);
    T_EQ_INT(ops.n, 1);
    T_EQ_INT(parse(&x, 1, "--mrg", "--threads", "2", NULL), SP_EUSAGE);
    T_EQ_STR(err, "--mrg needs at least one FILE");

    /* two FLAGs on one field */
    T_EQ_INT(parse(&x, 1, "--slow", NULL), SP_OK);
    T_EQ_INT(x.mode, 2);
    T_EQ_INT(parse(&x, 1, "--fast", "--slow", NULL), SP_EUSAGE);
    T_EQ_STR(err, "--fast and --slow exclude each other; give one");
    /* a single-valued option given twice, even with the same value */
    T_EQ_INT(parse(&x, 1, "--threads", "2", "--threads", "3", NULL), SP_EUSAGE);
    T_EQ_STR(err, "--threads given twice: it takes one value");
    T_EQ_INT(parse(&x, 1, "--threads=2", "--threads", "2", NULL), SP_EUSAGE);
    T_EQ_INT(parse(&x, 1, "--fast", "--fast", NULL), SP_EUSAGE);
    T_EQ_STR(err, "--fast given twice: it takes one value");
    /* unknown options, with the nearest name from either table */
    T_EQ_INT(parse(&x, 1, "--thread", "2", NULL), SP_EUSAGE);
    T_EQ_STR(err, "unknown option '--thread'; did you mean 'threads'?");
    T_EQ_INT(parse(&x, 1, "--quite", NULL), SP_EUSAGE);
    T_EQ_STR(err, "unknown option '--quite'; did you mean 'quiet'?");
    T_EQ_INT(parse(&x, 1, "--zzzzzz", NULL), SP_EUSAGE);
    T_EQ_STR(err, "unknown option '--zzzzzz'");
    T_EQ_INT(parse(&x, 1, "-threads", "2", NULL), SP_EUSAGE);   /* one dash is not a long option */
    T_EQ_STR(err, "unknown option '-threads'; did you mean 'threads'?");
    /* values */
    T_EQ_INT(parse(&x, 1, "--threads", NULL), SP_EUSAGE);
    T_EQ_STR(err, "--threads needs a value (N)");
    T_EQ_INT(parse(&x, 1, "--lr", NULL), SP_EUSAGE);
    T_EQ_STR(err, "--lr needs a value (VALUE)");
    T_EQ_INT(parse(&x, 1, "--threads", "abc", NULL), SP_EUSAGE);
    T_EQ_STR(err, "--threads: expected 1..64, got 'abc'");
    T_EQ_INT(parse(&x, 1, "--verbose=1", NULL), SP_EUSAGE);
    T_EQ_STR(err, "--verbose takes no value");
    T_EQ_INT(parse(&x, 0, "stray", NULL), SP_EUSAGE);
    T_EQ_STR(err, "unexpected argument 'stray'");
    /* required, once given */
    T_EQ_INT(parse(&x, 1, "--name", "n", NULL), SP_OK);
    T_EQ_INT(sp_opt_check_required(T, &x, err, sizeof err), SP_OK);
}

static char *dump(json_t *j)
{
    char *s = json_dumps(j, JSON_SORT_KEYS | JSON_COMPACT);
    json_decref(j);
    return s;
}

static int set_json(struct o *x, const char *text)
{
    json_t *j = json_loads(text, 0, NULL);
    sp_opt_defaults(T, x, &A);
    err[0] = 0;
    int rc = sp_opt_set_json(T, x, j, "encoders[1]", &A, err, sizeof err);
    json_decref(j);
    return rc;
}

static void test_json(void)
{
    struct o x;
    sp_opt_defaults(T, &x, &A);
    x.mode = 1; x.json = 1;
    set("format", &x, "conllu");
    set("task", &x, "A,B");
    set("mrg", &x, "a.mrg");
    set("name", &x, "x");
    json_t *obj = json_object();
    sp_opt_to_json(T, &x, obj);
    char *s = dump(obj);
    /* "json" is SP_OPTF_CLI: left out; each of the two mode flags says whether it is the one set */
    T_EQ_STR(s, "{\"fast\":true,\"format\":\"conllu\",\"limit\":-1,\"lr\":0.5,\"memory\":1073741824,"
                "\"mrg\":[\"a.mrg\"],\"name\":\"x\",\"out\":null,\"scale\":2.5,\"slow\":false,"
                "\"task\":[\"A\",\"B\"],\"threads\":4,\"verbose\":false}");
    free(s);

    T_EQ_INT(set_json(&x, "{\"threads\": 8, \"task\": [\"A\", \"B\"], \"memory\": \"2G\", \"slow\": true, "
                          "\"lr\": 0.25, \"format\": \"ptb\", \"mrg\": \"x.mrg\", \"verbose\": false}"), SP_OK);
    T_EQ_INT(x.threads, 8);
    T_EQ_INT(x.task.n, 2);
    T_EQ_INT(x.memory, 2147483648);
    T_EQ_INT(x.mode, 2);
    T_NEAR(x.lr, 0.25, 0);
    T_EQ_INT(x.format, 2);
    T_EQ_INT(x.mrg.n, 1);
    T_EQ_INT(x.verbose, 0);
    /* errors name the JSON path */
    T_EQ_INT(set_json(&x, "{\"threads\": 99}"), SP_EUSAGE);
    T_EQ_STR(err, "encoders[1].threads: expected 1..64, got '99'");
    T_EQ_INT(set_json(&x, "{\"threads\": 2.5}"), SP_EUSAGE);
    T_EQ_STR(err, "encoders[1].threads: expected 1..64, got '2.5'");
    T_EQ_INT(set_json(&x, "{\"threads\": true}"), SP_EUSAGE);
    T_EQ_STR(err, "encoders[1].threads: expected a whole number, got true or false");
    /* each JSON value has its option's type: a string is no number, a number no name */
    T_EQ_INT(set_json(&x, "{\"threads\": \"8\"}"), SP_EUSAGE);
    T_EQ_STR(err, "encoders[1].threads: expected a whole number, got a string");
    T_EQ_INT(set_json(&x, "{\"lr\": \"0.5\"}"), SP_EUSAGE);
    T_EQ_STR(err, "encoders[1].lr: expected a number, got a string");
    T_EQ_INT(set_json(&x, "{\"name\": 5}"), SP_EUSAGE);
    T_EQ_STR(err, "encoders[1].name: expected a string, got a whole number");
    T_EQ_INT(set_json(&x, "{\"format\": 1}"), SP_EUSAGE);
    T_EQ_STR(err, "encoders[1].format: expected a string, got a whole number");
    T_EQ_INT(set_json(&x, "{\"memory\": 1073741824}"), SP_OK);     /* a size: bytes, or "1G" */
    T_EQ_INT(x.memory, 1073741824);
    T_EQ_INT(set_json(&x, "{\"thread\": 2}"), SP_EUSAGE);
    T_EQ_STR(err, "encoders[1].thread: no such option; did you mean 'threads'?");
    T_EQ_INT(set_json(&x, "{\"json\": true}"), SP_EUSAGE);          /* a terminal flag */
    T_EQ_STR(err, "encoders[1].json: no such option");
    T_EQ_INT(set_json(&x, "{\"task\": [\"A\", 1]}"), SP_EUSAGE);
    T_EQ_STR(err, "encoders[1].task[1]: expected a string, got a whole number");
    T_EQ_INT(set_json(&x, "{\"task\": [\"A\", \"\"]}"), SP_EUSAGE);
    T_EQ_STR(err, "encoders[1].task[1]: expected a name, got an empty string");
    T_EQ_INT(set_json(&x, "{\"task\": 3}"), SP_EUSAGE);
    T_EQ_STR(err, "encoders[1].task: expected a string or an array of strings, got a whole number");
    T_EQ_INT(set_json(&x, "{\"task\": []}"), SP_EUSAGE);     /* an empty list names nothing */
    T_EQ_STR(err, "encoders[1].task: expected at least one name, got an empty array (leave \"task\" out for its default)");
    T_EQ_INT(set_json(&x, "{\"mrg\": []}"), SP_EUSAGE);
    T_EQ_STR(err, "encoders[1].mrg: expected at least one path, got an empty array (leave \"mrg\" out for its default)");
    T_EQ_INT(set_json(&x, "{\"mrg\": [\"a.mrg\", null]}"), SP_EUSAGE);
    T_EQ_STR(err, "encoders[1].mrg[1]: expected a string, got null");
    T_EQ_INT(set_json(&x, "{\"verbose\": 1}"), SP_EUSAGE);
    T_EQ_STR(err, "encoders[1].verbose: expected true or false");
    T_EQ_INT(set_json(&x, "{\"format\": \"xml\"}"), SP_EUSAGE);
    T_EQ_STR(err, "encoders[1].format: expected auto, conllu, ptb or dep, got 'xml'");
    T_EQ_INT(set_json(&x, "[1]"), SP_EUSAGE);
    T_EQ_STR(err, "encoders[1]: expected an object");
}

static void test_format_args(void)
{
    struct o d, x;
    sp_opt_defaults(T, &d, &A);
    sp_opt_defaults(T, &x, &A);
    struct sp_buf b = { 0 };
    sp_buf_puts(&b, "");
    sp_opt_format_args(T, &x, &d, &b);
    T_EQ_STR(b.p, "");                             /* all defaults: nothing to type */
    x.verbose = 1; x.mode = 2; x.threads = 8; x.memory = 2147483648u; x.lr = 0.1;
    set("name", &x, "x");
    set("format", &x, "ptb");
    set("task", &x, "A");
    set("task", &x, "b c");
    set("mrg", &x, "x.mrg");
    set("mrg", &x, "it's.mrg");
    sp_opt_format_args(T, &x, &d, &b);
    T_EQ_STR(b.p, " --verbose --slow --threads 8 --memory 2147483648 --lr 0.1 --name x --format ptb"
                  " --task A,'b c' --mrg x.mrg 'it'\\''s.mrg'");
    sp_buf_free(&b);
}

static void test_suggest(void)
{
    char out[128];
    const char *probes[] = { "TreeDepth", "Tense", "BShift" };
    sp_suggest(out, sizeof out, "treedepht", probes, 3);      /* case ignored, two edits */
    T_EQ_STR(out, "did you mean 'TreeDepth'?");
    sp_suggest(out, sizeof out, "Tree", probes, 3);           /* a prefix counts as one edit */
    T_EQ_STR(out, "did you mean 'TreeDepth'?");
    sp_suggest(out, sizeof out, "TENSE", probes, 3);
    T_EQ_STR(out, "did you mean 'Tense'?");
    sp_suggest(out, sizeof out, "xyz", probes, 3);
    T_EQ_STR(out, "");
    const char *two[] = { "bshift", "bshaft", "run1", "run1" };
    sp_suggest(out, sizeof out, "bshoft", two, 4);
    T_EQ_STR(out, "did you mean 'bshift' or 'bshaft'?");
    sp_suggest(out, sizeof out, "run2", two, 4);              /* a name listed twice, said once */
    T_EQ_STR(out, "did you mean 'run1'?");
    const char *four[] = { "ab", "ac", "ad", "ae" };
    sp_suggest(out, sizeof out, "aa", four, 4);               /* at most three */
    T_EQ_STR(out, "did you mean 'ab' or 'ac' or 'ad'?");
    sp_suggest(out, sizeof out, "ab", four, 0);
    T_EQ_STR(out, "");

    const char *abc[] = { "alpha", "beta", "gamma" };
    sp_join_names(out, sizeof out, abc, 3, 5);
    T_EQ_STR(out, "alpha, beta, gamma");
    sp_join_names(out, sizeof out, abc, 3, 2);
    T_EQ_STR(out, "alpha, beta, ... (3 in all)");
    sp_join_names(out, sizeof out, abc, 0, 5);
    T_EQ_STR(out, "");
    sp_join_names(out, 4, abc, 3, 5);                         /* cut to the buffer, terminated */
    T_EQ_STR(out, "alp");
}

/* the man page's roff: one .TP per option, escapes written out by hand */
static void test_man(void)
{
    static const struct sp_opt M[] = {
        { .name = "verbose", .type = SP_OPT_FLAG, .offset = F(verbose), .help = "say more" },
        { .name = "threads", .type = SP_OPT_INT, .offset = F(threads), .def = "4", .lo = 1, .hi = 64, .metavar = "N",
          .help = "worker threads" },
        { .name = "format", .type = SP_OPT_CHOICE, .offset = F(format), .def = "auto", .choices = "auto|conllu/conll|ptb",
          .help = "input format" },
        { .name = "device", .type = SP_OPT_CHOICE, .offset = F(mode), .def = "auto", .metavar = "D", .choices = "auto|cpu|cuda",
          .help = "where" },
        { .name = "mrg", .type = SP_OPT_PATHS, .offset = F(mrg), .metavar = "FILE", .help = "tree files" },
        { .name = "limit", .type = SP_OPT_INT, .offset = F(limit), .def = "-1", .lo = 0, .hi = 9, .flags = SP_OPTF_NODEF,
          .help = "at most N (-1: none)" },
        { 0 },
    };
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    sp_opt_man(f, M);
    fclose(f);
    T_EQ_STR(buf, ".TP\n\\fB\\-\\-verbose\\fR\nsay more\n"
                  ".TP\n\\fB\\-\\-threads\\fR \\fIN\\fR\nworker threads (default 4)\n"
                  ".TP\n\\fB\\-\\-format\\fR \\fIauto|conllu|ptb\\fR\ninput format (default auto)\n"
                  ".TP\n\\fB\\-\\-device\\fR \\fID\\fR\nwhere (default auto); one of auto, cpu or cuda\n"
                  ".TP\n\\fB\\-\\-mrg\\fR \\fIFILE\\fR...\ntree files\n"
                  ".TP\n\\fB\\-\\-limit\\fR \\fIVALUE\\fR\nat most N (\\-1: none)\n");
    free(buf);

    buf = NULL;
    f = open_memstream(&buf, &len);
    sp_roff_text(f, ".load x\n'quote\na\\b-c\n .not first", 100);
    sp_roff_text(f, "--cut here", 2);                         /* n bytes only */
    fclose(f);
    T_EQ_STR(buf, "\\&.load x\n\\&'quote\na\\eb\\-c\n .not first\\-\\-");
    free(buf);
}

/* A single-valued option given twice is refused after any number of other options: the record
 * of what was given had 512 places and stopped recording beyond them. */
static void test_many_options(void)
{
    enum { N = 1200 };
    char **argv = calloc(N + 5, sizeof *argv);
    int argc = 0;
    argv[argc++] = "prog";
    for (int i = 0; i < N / 2; i++) { argv[argc++] = "--task"; argv[argc++] = "A"; }
    argv[argc++] = "--threads"; argv[argc++] = "2";
    argv[argc++] = "--threads"; argv[argc++] = "3";
    struct o x;
    struct sp_optbind b[1] = { { T, &x } };
    err[0] = 0;
    T_EQ_INT(sp_opt_parse_argv(b, 1, argc, argv, NULL, &A, err, sizeof err), SP_EUSAGE);
    T_EQ_STR(err, "--threads given twice: it takes one value");
    T_EQ_INT(sp_opt_parse_argv(b, 1, argc - 2, argv, NULL, &A, err, sizeof err), SP_OK);
    T_EQ_INT(x.task.n, N / 2);
    T_EQ_INT(x.threads, 2);
    free(argv);
}

/* List items bounded by the table (seeds: integers in [lo, hi]; classifiers: one of .choices) and a
 * half-open double range ([0, 1) for a dropout), from argv and from JSON alike. */
struct b { struct sp_strlist seed, clf; double p; };
static const struct sp_opt B[] = {
    { .name = "seed", .type = SP_OPT_LIST, .offset = offsetof(struct b, seed), .def = "1", .lo = 0, .hi = 100 },
    { .name = "clf", .type = SP_OPT_LIST, .offset = offsetof(struct b, clf), .choices = "logreg|mlp" },
    { .name = "p", .type = SP_OPT_DOUBLE, .offset = offsetof(struct b, p), .lo = 0, .hi = 1, .flags = SP_OPTF_HI_OPEN },
    { 0 }
};

static int set_b(struct b *x, const char *text)
{
    json_t *j = json_loads(text, 0, NULL);
    sp_opt_defaults(B, x, &A);
    err[0] = 0;
    int rc = sp_opt_set_json(B, x, j, "probes[0]", &A, err, sizeof err);
    json_decref(j);
    return rc;
}

static void test_bounded(void)
{
    struct b x;
    sp_opt_defaults(B, &x, &A);
    T_EQ_INT(sp_opt_set(&B[0], &x, "5,100", &A, err, sizeof err), SP_OK);
    T_EQ_INT(x.seed.n, 3);                       /* the default, then 5 and 100 */
    T_EQ_INT(sp_opt_set(&B[0], &x, "5,-5", &A, err, sizeof err), SP_EUSAGE);
    T_EQ_STR(err, "--seed: expected integers 0..100 (comma-separated), got '-5'");
    T_EQ_INT(sp_opt_set(&B[0], &x, "101", &A, err, sizeof err), SP_EUSAGE);
    T_EQ_INT(sp_opt_set(&B[0], &x, "1.5", &A, err, sizeof err), SP_EUSAGE);
    T_EQ_INT(sp_opt_set(&B[1], &x, "mlp,svm", &A, err, sizeof err), SP_EUSAGE);
    T_EQ_STR(err, "--clf: expected logreg or mlp (comma-separated), got 'svm'");
    T_EQ_INT(sp_opt_set(&B[2], &x, "0", &A, err, sizeof err), SP_OK);
    T_EQ_INT(sp_opt_set(&B[2], &x, "0.999", &A, err, sizeof err), SP_OK);
    T_EQ_INT(sp_opt_set(&B[2], &x, "1", &A, err, sizeof err), SP_EUSAGE);
    T_EQ_STR(err, "--p: expected a number in [0, 1), got '1'");
    T_EQ_INT(sp_opt_set(&B[2], &x, "-0.1", &A, err, sizeof err), SP_EUSAGE);

    T_EQ_INT(set_b(&x, "{\"seed\": [3, 4], \"clf\": [\"logreg\", \"mlp\"], \"p\": 0.5}"), SP_OK);
    T_EQ_INT(x.seed.n, 2);
    T_EQ_STR(x.seed.v[1], "4");
    T_EQ_INT(set_b(&x, "{\"seed\": 7}"), SP_OK);             /* one seed: an integer */
    T_EQ_INT(x.seed.n, 1);
    T_EQ_STR(x.seed.v[0], "7");
    /* a list of integers holds integers, element by element, each named by its index */
    T_EQ_INT(set_b(&x, "{\"seed\": [1, \"2\"]}"), SP_EUSAGE);
    T_EQ_STR(err, "probes[0].seed[1]: expected an integer, got the string \"2\" (write it without quotes: 2)");
    T_EQ_INT(set_b(&x, "{\"seed\": [\"3\"]}"), SP_EUSAGE);
    T_EQ_STR(err, "probes[0].seed[0]: expected an integer, got the string \"3\" (write it without quotes: 3)");
    T_EQ_INT(set_b(&x, "{\"seed\": [\"x\"]}"), SP_EUSAGE);
    T_EQ_STR(err, "probes[0].seed[0]: expected an integer, got a string");
    T_EQ_INT(set_b(&x, "{\"seed\": \"3\"}"), SP_EUSAGE);
    T_EQ_STR(err, "probes[0].seed: expected an integer or an array of integers, got a string");
    T_EQ_INT(set_b(&x, "{\"seed\": [1, -5]}"), SP_EUSAGE);
    T_EQ_STR(err, "probes[0].seed[1]: expected an integer in 0..100, got -5");
    T_EQ_INT(set_b(&x, "{\"seed\": 101}"), SP_EUSAGE);
    T_EQ_STR(err, "probes[0].seed: expected an integer in 0..100, got 101");
    T_EQ_INT(set_b(&x, "{\"seed\": [1.5]}"), SP_EUSAGE);
    T_EQ_STR(err, "probes[0].seed[0]: expected an integer, got a number");
    T_EQ_INT(set_b(&x, "{\"seed\": []}"), SP_EUSAGE);
    T_EQ_STR(err, "probes[0].seed: expected at least one integer (0..100), got an empty array (leave \"seed\" out for its default)");
    T_EQ_INT(set_b(&x, "{\"clf\": [1]}"), SP_EUSAGE);
    T_EQ_STR(err, "probes[0].clf[0]: expected a string, got a whole number");
    T_EQ_INT(set_b(&x, "{\"clf\": [\"mlp\", \"svm\"]}"), SP_EUSAGE);
    T_EQ_STR(err, "probes[0].clf[1]: expected logreg or mlp, got 'svm'");
    T_EQ_INT(set_b(&x, "{\"clf\": []}"), SP_EUSAGE);
    T_EQ_STR(err, "probes[0].clf: expected at least one of logreg or mlp, got an empty array (leave \"clf\" out for its default)");
    T_EQ_INT(set_b(&x, "{\"p\": 1.0}"), SP_EUSAGE);
    T_EQ_STR(err, "probes[0].p: expected a number in [0, 1), got '1'");
}

int main(void)
{
    sp_arena_init(&A);
    test_defaults();
    test_values();
    test_argv();
    test_json();
    test_bounded();
    test_many_options();
    test_format_args();
    test_man();
    test_suggest();
    sp_arena_free(&A);
    return T_DONE();
}
