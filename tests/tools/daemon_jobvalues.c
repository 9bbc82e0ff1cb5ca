/* tests/tools/daemon_jobvalues.c — job files with one value each out of its option's bounds or of
 * the wrong JSON type (and some within them), generated from the option tables a job file is
 * read through (dmn_step_table), for tests/cli/t6130-job-values.sh.
 *
 *   daemon_jobvalues DIR     writes DIR/base.json (the valid job every case starts from) and
 *                            DIR/vNNNN.json, and prints one line per case:
 *                            "vNNNN.json TAB bad|ok TAB the JSON path TAB the value as JSON"
 *
 * DIR must hold demo.conllu, san.json and task.txt (the test puts them there). Every case is the
 * base job with one member set on one entry: corpora[0] (ingest), tasks[0] (tasks build),
 * tasks[1] (tasks import), encoders[0], probes[0], trees[0], structprobes[0], tokprobes[0],
 * reports[0]. A "bad" case must be refused by `run --check` naming that path; an "ok" case must
 * not be refused for that value (another rule, e.g. --dropout wants --classifier mlp, may still
 * refuse the step, with a message that names no value's path). Every step kind of a job must
 * have an entry here: a new kind without one fails the tool.
 * A driver, not a test: built by `make test-cli` into $(BUILD)/tools. */
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "common/opt.h"
#include "daemon/job.h"

struct section { enum dmn_step_kind kind; const char *key; int index; };
static const struct section sections[] = {
    { DMN_INGEST, "corpora", 0 }, { DMN_TASKS_BUILD, "tasks", 0 }, { DMN_TASKS_IMPORT, "tasks", 1 },
    { DMN_ENCODE, "encoders", 0 }, { DMN_PROBE, "probes", 0 }, { DMN_TREES, "trees", 0 },
    { DMN_STRUCTPROBE, "structprobes", 0 }, { DMN_TOKPROBE, "tokprobes", 0 }, { DMN_MDL, "mdl", 0 },
    { DMN_ERASE, "erasures", 0 }, { DMN_REPORT, "reports", 0 },
};
#define N_SECTIONS (sizeof sections / sizeof sections[0])

static const char *dir;
static int n_cases;

/* the valid job: a corpus, a built task (re-split: the demo corpus has no train/dev/test) and an
 * imported one, an encoder keeping attention and token vectors over the corpus and one task, and
 * one entry of every other section */
static json_t *base_job(void)
{
    return json_pack("{s:s, s:[{s:s, s:[s]}], s:[{s:[s], s:s}, {s:s, s:s}], s:[{s:s, s:[s, s], s:i, s:b}],"
                     " s:[{}], s:[{}], s:[{}], s:[{}], s:[{}], s:[{s:s, s:s, s:s}], s:[{}]}",
                     "store", "s.db",
                     "corpora", "name", "d", "paths", "demo.conllu",
                     "tasks", "tasks", "SentLen", "split", "resplit", "name", "imp", "file", "task.txt",
                     "encoders", "config", "san.json", "inputs", "d", "SentLen", "attention", 0, "token-vectors", 1,
                     "probes", "trees", "structprobes", "tokprobes", "mdl",
                     "erasures", "run", "san", "property", "upos", "out-run", "er", "reports");
}

static int write_job(const char *name, json_t *job)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (json_dump_file(job, path, JSON_INDENT(1) | JSON_SORT_KEYS)) { fprintf(stderr, "%s: cannot write\n", path); return -1; }
    return 0;
}

/* one case: the base job with sec's entry's member name set to value (taken) */
static int emit(const struct section *sec, const char *name, json_t *value, int bad)
{
    json_t *job = base_job();
    json_t *e = json_array_get(json_object_get(job, sec->key), (size_t)sec->index);
    if (sec->kind == DMN_ENCODE && !strcmp(name, "encoder")) json_object_del(e, "config");   /* "config" is its alias */
    json_object_set_new(e, name, value);
    char file[32];
    snprintf(file, sizeof file, "v%04d.json", n_cases++);
    char *shown = json_dumps(value, JSON_ENCODE_ANY | JSON_COMPACT);
    int rc = write_job(file, job);
    printf("%s\t%s\t%s[%d].%s\t%s\n", file, bad ? "bad" : "ok", sec->key, sec->index, name, shown);
    free(shown);
    json_decref(job);
    return rc;
}

/* "a|b/b2|c": each value's first name */
static int each_choice(const struct section *sec, const struct sp_opt *o, int as_list)
{
    int rc = 0;
    for (const char *p = o->choices; *p && !rc;) {
        size_t n = strcspn(p, "|/");
        json_t *word = json_stringn(p, n);
        rc = emit(sec, o->name, as_list ? json_pack("[o]", word) : word, 0);
        p += strcspn(p, "|");
        if (*p) p++;
    }
    return rc;
}

static json_t *str_of_ll(long long v)
{
    char b[32];
    snprintf(b, sizeof b, "%lld", v);
    return json_string(b);
}

/* Out of bounds and of the wrong type for o's type, then within bounds. */
static int cases_of(const struct section *sec, const struct sp_opt *o)
{
    int rc = 0;
#define BAD(v) do { if (!rc) rc = emit(sec, o->name, (v), 1); } while (0)
#define OK(v) do { if (!rc) rc = emit(sec, o->name, (v), 0); } while (0)
    switch (o->type) {
    case SP_OPT_FLAG:
        BAD(json_integer(1)); BAD(json_string("true"));
        OK(json_true());
        break;
    case SP_OPT_INT:
        if (o->lo > LONG_MIN) BAD(json_integer(o->lo - 1));
        if (o->hi < LONG_MAX) BAD(json_integer(o->hi + 1));
        BAD(json_real(1.5)); BAD(json_string("1")); BAD(json_true()); BAD(json_pack("[i]", 1));
        OK(json_integer(o->lo)); OK(json_integer(o->hi));
        break;
    case SP_OPT_SIZE:
        BAD(json_integer(-1)); BAD(json_string("-1")); BAD(json_string("12Q")); BAD(json_real(1.5)); BAD(json_true());
        if (o->lo > 0) BAD(json_integer(o->lo - 1));
        OK(json_integer(o->lo)); OK(str_of_ll(o->lo));
        break;
    case SP_OPT_DOUBLE:
        if (o->lo < o->hi) {
            BAD(json_real((double)o->lo - 0.5)); BAD(json_real((double)o->hi + 0.5));
            if (o->flags & SP_OPTF_HI_OPEN) BAD(json_real((double)o->hi));
            OK(json_real((double)o->lo));
            OK(json_real(o->flags & SP_OPTF_HI_OPEN ? ((double)o->lo + (double)o->hi) / 2 : (double)o->hi));
        }
        BAD(json_string("0.5")); BAD(json_true());
        break;
    case SP_OPT_STR: case SP_OPT_PATH:
        BAD(json_integer(5)); BAD(json_true()); BAD(json_string("")); BAD(json_pack("[s]", "a"));
        break;
    case SP_OPT_CHOICE:
        BAD(json_string("no-such-word")); BAD(json_integer(0)); BAD(json_pack("[s]", "x"));
        if (!rc) rc = each_choice(sec, o, 0);
        break;
    case SP_OPT_LIST:
        BAD(json_pack("[b]", 1)); BAD(json_string("")); BAD(json_pack("{}")); BAD(json_array());
        if (o->lo < o->hi) {   /* integers (seeds): an integer or an array of integers, element by element */
            if (o->lo > LONG_MIN) { BAD(json_pack("[I]", (json_int_t)o->lo - 1)); BAD(json_integer(o->lo - 1)); }
            if (o->hi < LONG_MAX) BAD(json_pack("[I, I]", (json_int_t)o->lo, (json_int_t)o->hi + 1));
            BAD(json_pack("[s]", "1.5")); BAD(json_pack("[s]", "x")); BAD(json_pack("[f]", 1.5));
            BAD(json_pack("[o]", str_of_ll(o->lo))); BAD(json_pack("[I, o]", (json_int_t)o->lo, str_of_ll(o->hi)));
            BAD(str_of_ll(o->lo)); BAD(json_pack("[n]"));
            OK(json_pack("[I, I]", (json_int_t)o->lo, (json_int_t)o->hi)); OK(json_integer(o->lo));
        } else {
            BAD(json_integer(5)); BAD(json_pack("[s, i]", "a", 1)); BAD(json_pack("[s, s]", "a", ""));
        }
        if (o->choices) {
            BAD(json_pack("[s]", "no-such-word"));
            if (!rc) rc = each_choice(sec, o, 1);
        }
        break;
    case SP_OPT_PATHS:
        BAD(json_integer(5)); BAD(json_pack("[i]", 1)); BAD(json_string("")); BAD(json_array()); BAD(json_pack("[s]", ""));
        break;
    }
#undef BAD
#undef OK
    return rc;
}

int main(int argc, char **argv)
{
    if (argc != 2) { fprintf(stderr, "usage: daemon_jobvalues DIR\n"); return 2; }
    dir = argv[1];
    for (int k = 0; k < DMN_NKINDS; k++) {
        size_t i = 0;
        while (i < N_SECTIONS && sections[i].kind != (enum dmn_step_kind)k) i++;
        if (i == N_SECTIONS) { fprintf(stderr, "daemon_jobvalues: step kind %d has no section here: add it\n", k); return 1; }
    }
    json_t *base = base_job();
    int rc = write_job("base.json", base);
    json_decref(base);
    for (size_t i = 0; i < N_SECTIONS && !rc; i++)
        for (const struct sp_opt *o = dmn_step_table(sections[i].kind); o->name && !rc; o++) {
            if (!strcmp(o->name, "db") || (o->flags & SP_OPTF_CLI)) continue;   /* the job's "store"; the terminal's */
            rc = cases_of(&sections[i], o);
        }
    return rc ? 1 : 0;
}
