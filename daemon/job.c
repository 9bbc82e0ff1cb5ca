/* daemon/job.c — reading and checking a job file, expanding it into steps (daemon/job.h). */
#include <dirent.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/guard.h"
#include "common/stop.h"
#include "common/strmap.h"
#include "daemon/job.h"
#include "probes/task_derive.h"
#include "stages/encode.h"
#include "stages/ingest.h"
#include "stages/layers.h"
#include "stages/probe.h"
#include "report/report.h"
#include "stages/splits.h"
#include "stages/structprobe.h"
#include "stages/tasks.h"
#include "stages/tokprobe.h"
#include "stages/trees.h"

/* which options are outputs: SP_OPTF_OUTPUT in the stage's table */
struct kind_info { const char *words; const struct sp_opt *table; size_t size; };
static const struct kind_info kinds[DMN_NKINDS] = {
    [DMN_INGEST] = { "ingest", stg_ingest_options, sizeof(struct stg_ingest_opts) },
    [DMN_TASKS_BUILD] = { "tasks build", stg_tasks_build_options, sizeof(struct stg_tasks_build_opts) },
    [DMN_TASKS_IMPORT] = { "tasks import", stg_tasks_import_options, sizeof(struct stg_tasks_import_opts) },
    [DMN_ENCODE] = { "encode", stg_encode_options, sizeof(struct stg_encode_opts) },
    [DMN_PROBE] = { "probe", stg_probe_options, sizeof(struct stg_probe_opts) },
    [DMN_TREES] = { "trees", stg_trees_options, sizeof(struct stg_trees_opts) },
    [DMN_STRUCTPROBE] = { "structprobe", stg_structprobe_options, sizeof(struct stg_structprobe_opts) },
    [DMN_TOKPROBE] = { "tokprobe", stg_tokprobe_options, sizeof(struct stg_tokprobe_opts) },
    [DMN_REPORT] = { "report", rpt_options, sizeof(struct rpt_opts) },
};

/* an encoder run the job makes: what probes, trees and structural / token probes are crossed
 * with (trees want its attention maps, structprobe and tokprobe its token vectors) */
struct runref { const char *run, *input; int is_task, attention, token_vectors; };

struct parse {
    struct dmn_job *job;
    char *err;
    size_t errlen;
    const char **corpora, **tasks;        /* the names the job makes, grown as they come (any number) */
    struct stg_split_tally *splits;       /* per corpus: the splits its files give (stages/splits.h) */
    int *corpus_split_given;              /* per corpus: its (first) entry gives "split" */
    const char **doomed;                  /* per task: why its build will skip it for certain, or NULL */
    int n_corpora, n_tasks;
    struct runref *runs;
    int n_runs;
    struct stg_layer_list lay;            /* the layers of the encoder entry being parsed ("layers") */
    int stoppable;                        /* SIGINT/SIGTERM stop the parse (a command's, not the daemon's) */
};

/* SP_ESTOPPED with err when a stop was asked for (a job with 600,000 entries takes a while) */
static int stopped(struct parse *P, const char *doing, const char *where)
{
    if (!P->stoppable || !sp_stopping()) return SP_OK;
    snprintf(P->err, P->errlen, "stopped by a signal while %s (at %s)", doing, where);
    return SP_ESTOPPED;
}

static int fail(struct parse *P, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct parse *P, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(P->err, P->errlen, fmt, ap);
    va_end(ap);
    return SP_EUSAGE;
}

/* name appended to *v (n names so far; grown one at a time: a job names tens of things) */
static void push_name(const char ***v, int *n, const char *name)
{
    *v = sp_xrealloc(*v, sizeof **v * (size_t)(*n + 1));
    (*v)[(*n)++] = name;
}

static int find_name(const char *const *v, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(v[i], name)) return i;
    return -1;
}

/* "PATH: 'x' is no NOUN of this job; did you mean 'y'? (NOUNs: a, b)" */
static int fail_name(struct parse *P, const char *path, const char *name, const char *noun, const char *const *v, int n)
{
    char sugg[256], all[512];
    sp_suggest(sugg, sizeof sugg, name, v, (size_t)n);
    sp_join_names(all, sizeof all, v, (size_t)n, 12);
    return fail(P, "%s: '%s' is no %s of this job%s%s (%ss: %s)", path, name, noun, sugg[0] ? "; " : "", sugg, noun,
                n ? all : "none");
}

static const char *resolve(struct parse *P, const char *base, const char *p)
{
    if (p[0] == '/' || !strcmp(base, ".")) return sp_arena_strdup(&P->job->arena, p);
    return sp_arena_printf(&P->job->arena, "%s/%s", base, p);
}

/* An output path stays inside the output folder: relative, with no ".." component. */
static int inside(const char *p)
{
    if (p[0] == '/') return 0;
    for (const char *s = p; *s; ) {
        size_t n = strcspn(s, "/");
        if (n == 2 && s[0] == '.' && s[1] == '.') return 0;
        s += n + (s[n] == '/');
    }
    return 1;
}

static struct dmn_step *new_step(struct parse *P, enum dmn_step_kind k, const char *where)
{
    struct dmn_job *j = P->job;
    j->steps = sp_xrealloc(j->steps, sizeof *j->steps * (size_t)(j->n_steps + 1));
    struct dmn_step *s = &j->steps[j->n_steps++];
    s->kind = k;
    s->words = kinds[k].words;
    s->table = kinds[k].table;
    s->opts = sp_arena_alloc(&j->arena, kinds[k].size);
    s->defaults = sp_arena_alloc(&j->arena, kinds[k].size);
    s->where = sp_arena_strdup(&j->arena, where);
    sp_opt_defaults(s->table, s->defaults, &j->arena);
    memcpy(s->opts, s->defaults, kinds[k].size);
    *(const char **)((char *)s->opts + sp_opt_find(s->table, "db")->offset) = j->store;
    return s;
}

/* a copy of step s (same options), appended */
static struct dmn_step *dup_step(struct parse *P, int i)
{
    struct dmn_step *s = new_step(P, P->job->steps[i].kind, P->job->steps[i].where);
    memcpy(s->opts, P->job->steps[i].opts, kinds[s->kind].size);
    s->config_key = P->job->steps[i].config_key;
    return s;
}

#define FIELD(s, T, name) ((T *)((char *)(s)->opts + sp_opt_find((s)->table, name)->offset))

/* Every path a JSON key set, resolved: inputs against the job's folder (and they must exist),
 * outputs against the output folder (and they must stay inside it). alias: the job's name for
 * the option "encoder" ("config"), for messages. */
static int resolve_paths(struct parse *P, struct dmn_step *s, json_t *obj, const char *where, const char *alias)
{
    const char *key;
    json_t *v;
    json_object_foreach(obj, key, v) {
        const struct sp_opt *o = sp_opt_find(s->table, key);
        if (!o || (o->type != SP_OPT_PATH && o->type != SP_OPT_PATHS)) continue;
        const char *shown = alias && !strcmp(key, "encoder") ? alias : key;
        int is_out = (o->flags & SP_OPTF_OUTPUT) != 0;
        const char **one = NULL;
        int n = 1;
        if (o->type == SP_OPT_PATH) one = (const char **)((char *)s->opts + o->offset);
        else { struct sp_strlist *l = (struct sp_strlist *)((char *)s->opts + o->offset); one = l->v; n = l->n; }
        for (int i = 0; i < n; i++) {
            if (!one[i]) continue;
            if (is_out && !inside(one[i]))
                return fail(P, "%s.%s: '%s' leaves the output folder (an output path is relative to the job's \"out\" "
                            "and has no '..')", where, shown, one[i]);
            one[i] = resolve(P, is_out ? P->job->out : P->job->dir, one[i]);
            if (!is_out && access(one[i], F_OK))
                return fail(P, "%s.%s: %s: no such file", where, shown, one[i]);
        }
    }
    return SP_OK;
}

/* The job file's key for option name of step s: what the user wrote ("config" for encode's
 * "encoder" when the entry said "config"). */
static const char *job_key(const struct dmn_step *s, const char *name)
{
    return s->config_key && !strcmp(name, "encoder") ? "config" : name;
}

/* A message "WHERE.NAME: ..." or "WHERE.NAME[i]: ..." about an option the user gave under another
 * key: NAME becomes that key. */
static void rename_key(struct parse *P, const struct dmn_step *s, const char *where)
{
    size_t w = strlen(where);
    if (strncmp(P->err, where, w) || P->err[w] != '.') return;
    const char *name = P->err + w + 1;
    size_t n = strcspn(name, ":[");
    if (!name[n]) return;
    char opt[64];
    if (n >= sizeof opt) return;
    memcpy(opt, name, n);
    opt[n] = 0;
    const char *key = job_key(s, opt);
    if (!strcmp(key, opt)) return;
    char tmp[SP_ERRLEN];
    snprintf(tmp, sizeof tmp, "%s.%s%s", where, key, name + n);
    snprintf(P->err, P->errlen, "%s", tmp);
}

/* Fill step s from obj (a copy without the job's own keys) through the stage's table. */
static int fill(struct parse *P, struct dmn_step *s, json_t *obj, const char *where, const char *alias)
{
    if (json_object_get(obj, "db"))
        return fail(P, "%s.db: the store is set once, by the job's \"store\"", where);
    int rc = sp_opt_set_json(s->table, s->opts, obj, where, &P->job->arena, P->err, P->errlen);
    if (rc) rename_key(P, s, where);
    return rc ? rc : resolve_paths(P, s, obj, where, alias);
}

/* A section entry: an object, copied so job keys can be taken out before the table reads it. */
static json_t *entry(struct parse *P, json_t *e, const char *where)
{
    if (!json_is_object(e)) { fail(P, "%s: expected an object", where); return NULL; }
    return json_copy(e);
}

static int want_string(struct parse *P, json_t *obj, const char *key, const char *where, int required, const char **out)
{
    json_t *v = json_object_get(obj, key);
    *out = NULL;
    if (!v) return required ? fail(P, "%s: \"%s\" is required", where, key) : SP_OK;
    if (!json_is_string(v) || !json_string_value(v)[0]) return fail(P, "%s.%s: expected a non-empty string", where, key);
    *out = sp_arena_strdup(&P->job->arena, json_string_value(v));
    json_object_del(obj, key);
    return SP_OK;
}

/* ---- sections ---- */

static int cmp_path(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* A folder that holds UD-named files (*-ud-train|dev|test.conllu) becomes its treebank files, in
 * name order as ingest lists a folder, appended to *v, so that each file records the split its name
 * gives (a folder is one input of one ingest step, which records one split); 0 for anything else. */
static int ud_folder(struct parse *P, const char *path, const char *where, const char ***v, int *n)
{
    struct stat st;
    DIR *d = stat(path, &st) == 0 && S_ISDIR(st.st_mode) ? opendir(path) : NULL;
    if (!d) return 0;
    const char **names = NULL;
    int m = 0, ud = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (!stg_ingest_is_treebank_name(e->d_name)) continue;
        push_name(&names, &m, sp_arena_printf(&P->job->arena, "%s/%s", path, e->d_name));
        ud |= stg_ud_split(e->d_name) != NULL;
    }
    closedir(d);
    if (ud) {
        qsort(names, (size_t)m, sizeof *names, cmp_path);
        for (int k = 0; k < m; k++) push_name(v, n, names[k]);
        struct dmn_job *j = P->job;   /* still an input folder for the outputs guard */
        const char **f = sp_arena_alloc(&j->arena, sizeof *f * (size_t)(j->n_ud_folders + 1));
        const char **l = sp_arena_alloc(&j->arena, sizeof *l * (size_t)(j->n_ud_folders + 1));
        if (j->n_ud_folders) {
            memcpy(f, j->ud_folders, sizeof *f * (size_t)j->n_ud_folders);
            memcpy(l, j->ud_folder_labels, sizeof *l * (size_t)j->n_ud_folders);
        }
        f[j->n_ud_folders] = path;
        l[j->n_ud_folders++] = sp_arena_printf(&j->arena, "input %s.paths", where);
        j->ud_folders = f;
        j->ud_folder_labels = l;
    }
    free(names);
    return ud;
}

/* One ingest step per run of consecutive paths with the same UD split (one step when "split"
 * is given or no name is a UD name); a folder of UD-named files counts as its files. */
static int corpus_entry(struct parse *P, json_t *e, const char *where)
{
    const char *name;
    json_t *c = entry(P, e, where);
    if (!c) return SP_EUSAGE;
    int rc = want_string(P, c, "name", where, 1, &name);
    json_t *paths = json_incref(json_object_get(c, "paths"));
    json_object_del(c, "paths");
    /* a corpus may come in several entries, each with its "split" (train files here, test files
     * there); otherwise a name given twice is a slip */
    int known = rc ? -1 : find_name(P->corpora, P->n_corpora, name);
    if (known >= 0 && (!json_object_get(c, "split") || !P->corpus_split_given[known]))
        rc = fail(P, "%s.name: corpus '%s' is named twice (entries that ingest parts of one corpus each give its "
                  "\"split\")", where, name);
    if (!rc && (!json_is_array(paths) || !json_array_size(paths)))
        rc = fail(P, "%s.paths: expected a non-empty array of file or folder names", where);
    int first = P->job->n_steps, given_split = json_object_get(c, "split") != NULL;
    if (!rc) {
        struct dmn_step *s = new_step(P, DMN_INGEST, where);
        *FIELD(s, const char *, "corpus") = name;
        rc = fill(P, s, c, where, NULL);
    }
    size_t i;
    json_t *p;
    const char **flat = NULL;   /* the paths, a folder of UD-named files expanded into them */
    int nflat = 0;
    json_array_foreach(paths, i, p) {
        if (rc) break;
        if (!json_is_string(p)) { rc = fail(P, "%s.paths[%zu]: expected a string", where, i); break; }
        const char *path = resolve(P, P->job->dir, json_string_value(p));
        if (access(path, F_OK)) { rc = fail(P, "%s.paths[%zu]: %s: no such file or folder", where, i, path); break; }
        if (given_split || !ud_folder(P, path, where, &flat, &nflat)) push_name(&flat, &nflat, path);
    }
    const char *cur = NULL;
    for (int k = 0; !rc && k < nflat; k++) {
        const char *path = flat[k];
        const char *split = given_split ? NULL : stg_ud_split(path);
        struct dmn_step *s = &P->job->steps[P->job->n_steps - 1];
        if (k > 0 && !given_split && (split ? !cur || strcmp(split, cur) : cur != NULL)) {
            s = dup_step(P, first);
            ((struct stg_ingest_opts *)s->opts)->inputs = (struct sp_strlist){ 0 };
        }
        if (!((struct stg_ingest_opts *)s->opts)->inputs.n)
            ((struct stg_ingest_opts *)s->opts)->inputs.v = sp_arena_alloc(&P->job->arena, sizeof(char *) * ((size_t)nflat + 1));
        struct stg_ingest_opts *o = s->opts;
        if (!given_split) o->split = split;
        cur = split;
        o->inputs.v[o->inputs.n++] = path;
        o->inputs.v[o->inputs.n] = NULL;
    }
    free(flat);
    if (!rc) {
        /* the splits the corpus's files will have once ingested: what the tasks built from it can use */
        if (known < 0) {
            P->splits = sp_xrealloc(P->splits, sizeof *P->splits * (size_t)(P->n_corpora + 1));
            memset(&P->splits[P->n_corpora], 0, sizeof *P->splits);
            P->corpus_split_given = sp_xrealloc(P->corpus_split_given, sizeof *P->corpus_split_given * (size_t)(P->n_corpora + 1));
            P->corpus_split_given[P->n_corpora] = given_split;
        }
        struct stg_split_tally *t = &P->splits[known < 0 ? P->n_corpora : known];
        for (int k = first; k < P->job->n_steps; k++) {   /* each step records its split on all its files */
            const struct stg_ingest_opts *o = P->job->steps[k].opts;
            for (int f = 0; f < o->inputs.n; f++) stg_split_tally_path(t, o->inputs.v[f], o->split, 0);
        }
        if (known < 0) push_name(&P->corpora, &P->n_corpora, name);
    }
    json_decref(paths);
    json_decref(c);
    return rc;
}

/* a list of one name, in the job's arena */
static struct sp_strlist one(struct parse *P, const char *name)
{
    const char **v = sp_arena_alloc(&P->job->arena, 2 * sizeof *v);
    v[0] = name;
    return (struct sp_strlist){ v, name ? 1 : 0 };
}

static int add_task(struct parse *P, const char *where, const char *name)
{
    if (find_name(P->tasks, P->n_tasks, name) >= 0) return fail(P, "%s: task '%s' is made twice", where, name);
    P->doomed = sp_xrealloc(P->doomed, sizeof *P->doomed * (size_t)(P->n_tasks + 1));
    P->doomed[P->n_tasks] = NULL;
    push_name(&P->tasks, &P->n_tasks, name);
    return SP_OK;
}

/* The files a tasks build reads, tallied (its corpus-files, or the files the job ingests into its
 * corpora); who: "its corpus-files", "corpus 'a'", "corpora 'a', 'b'". */
static void build_tally(struct parse *P, const struct stg_tasks_build_opts *o, struct stg_split_tally *t, struct sp_buf *who)
{
    memset(t, 0, sizeof *t);
    if (o->corpus_files.n) {
        for (int i = 0; i < o->corpus_files.n; i++) stg_split_tally_path(t, o->corpus_files.v[i], NULL, 1);
        sp_buf_puts(who, "its corpus-files");
        return;
    }
    sp_buf_puts(who, o->corpus.n == 1 ? "corpus " : "corpora ");
    for (int i = 0; i < o->corpus.n; i++) {
        stg_split_tally_sum(t, &P->splits[find_name(P->corpora, P->n_corpora, o->corpus.v[i])]);
        sp_buf_printf(who, "%s'%s'", i ? ", " : "", o->corpus.v[i]);
    }
}

/* A tasks build without "split": "resplit" needs the official partitions of its corpora, known
 * from the files the job ingests into them (UD names, the entry's "split", WSJ sections: the
 * rule tasks build applies to the stored sentences, stages/splits.h); without them the job is
 * refused now, before any step runs, as the tasks step would stop after the ingest. */
static int official_or_stop(struct parse *P, const struct stg_tasks_build_opts *o, const char *where)
{
    struct stg_split_tally t;
    struct sp_buf who = { 0 };
    build_tally(P, o, &t, &who);
    sp_buf_puts(&who, o->corpus_files.n || o->corpus.n > 1 ? " have" : " has");
    const char *why;
    int rc = SP_OK;
    if (stg_split_decide(&t, &why) == STG_SPLIT_NONE) {
        char has[256];
        stg_split_describe(&t, "file", has, sizeof has);
        rc = fail(P, "%s: %s no official train/test partitions: %s (%s); tasks are not re-split unasked: add "
                  "\"split\": \"resplit\" to this tasks entry for a seeded 80/10/10 re-split (synprobe tasks build "
                  "--split resplit), or give the corpus its train and test files (UD names *-ud-train|dev|test.conllu; \"split\" "
                  "of the corpus entry)",
                  where, who.p, why, has);
    }
    sp_buf_free(&who);
    return rc;
}

/* tasks build (the default: from corpora) or tasks import (an entry with "file") */
static int task_entry(struct parse *P, json_t *e, const char *where)
{
    json_t *c = entry(P, e, where);
    if (!c) return SP_EUSAGE;
    int imp = json_object_get(c, "file") != NULL, rc;
    struct dmn_step *s = new_step(P, imp ? DMN_TASKS_IMPORT : DMN_TASKS_BUILD, where);
    rc = fill(P, s, c, where, NULL);
    json_decref(c);
    if (rc) return rc;
    if (imp) {
        struct stg_tasks_import_opts *o = s->opts;
        return o->name ? add_task(P, where, o->name) : fail(P, "%s: \"name\" is required with \"file\"", where);
    }
    struct stg_tasks_build_opts *o = s->opts;
    if (!o->corpus.n && !o->corpus_files.n) {
        if (!P->n_corpora) return fail(P, "%s.corpus: the job has no corpora to build tasks from", where);
        const char **v = sp_arena_alloc(&P->job->arena, sizeof *v * (size_t)(P->n_corpora + 1));
        memcpy(v, P->corpora, sizeof *v * (size_t)P->n_corpora);   /* P->corpora dies with the parse */
        o->corpus = (struct sp_strlist){ v, P->n_corpora };
    }
    for (int i = 0; i < o->corpus.n; i++)
        if (find_name(P->corpora, P->n_corpora, o->corpus.v[i]) < 0)
            return fail_name(P, sp_arena_printf(&P->job->arena, "%s.corpus[%d]", where, i), o->corpus.v[i], "corpus",
                             P->corpora, P->n_corpora);
    const char *names[PRB_NTASKS];
    for (int t = 0; t < PRB_NTASKS; t++) names[t] = prb_task_name((enum prb_task_id)t);
    int all = !o->tasks.n;
    for (int i = 0; i < o->tasks.n; i++) all |= !strcasecmp(o->tasks.v[i], "all");
    for (int i = 0; !all && i < o->tasks.n; i++)
        if (find_name(names, PRB_NTASKS, o->tasks.v[i]) < 0)
            return fail_name(P, sp_arena_printf(&P->job->arena, "%s.tasks[%d]", where, i), o->tasks.v[i], "probing task",
                             names, PRB_NTASKS);
    struct stg_split_tally t;
    struct sp_buf who = { 0 };
    build_tally(P, o, &t, &who);
    for (int i = 0; i < (all ? PRB_NTASKS : o->tasks.n); i++) {
        const char *t_name = all ? names[i] : o->tasks.v[i];
        const char *name = sp_arena_printf(&P->job->arena, "%s%s", o->prefix ? o->prefix : "", t_name);
        if ((rc = add_task(P, where, name))) break;
        /* TreeDepth/TopConst from files without constituency trees: skipped when built, so no step may read them */
        int id = prb_task_lookup(t_name);
        if (!t.trees && t.n && (id == PRB_TREEDEPTH || id == PRB_TOPCONST))
            P->doomed[P->n_tasks - 1] = sp_arena_printf(&P->job->arena, "%s builds no %s: it needs constituency trees "
                                                        "(.mrg files), and %s %s none (dependency corpora, UD "
                                                        "CoNLL-U, have none)", where, prb_task_name((enum prb_task_id)id),
                                                        who.p, o->corpus_files.n || o->corpus.n > 1 ? "have" : "has");
    }
    sp_buf_free(&who);
    return rc;
}

static const char *base_name(struct parse *P, const char *path)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    size_t n = strlen(b);
    if (n > 5 && !strcmp(b + n - 5, ".json")) n -= 5;
    return sp_arena_strndup(&P->job->arena, b, n);
}

static int add_run(struct parse *P, const char *where, const char *run, const char *input, int is_task,
                   const struct stg_encode_opts *o)
{
    for (int i = 0; i < P->n_runs; i++)
        if (!strcmp(P->runs[i].run, run)) return fail(P, "%s: run '%s' is made twice (give the encoders different \"run\" names)", where, run);
    P->runs = sp_xrealloc(P->runs, sizeof *P->runs * (size_t)(P->n_runs + 1));
    P->runs[P->n_runs++] = (struct runref){ run, input, is_task, !is_task && o->attention >= 0, !is_task && o->token_vectors };
    return SP_OK;
}

/* An encoder crossed with its inputs: one encode step per input. A corpus run is named RUN
 * (RUN-CORPUS when the encoder has several corpora), a task run RUN-TASK; attention and token
 * vectors are kept for corpus runs only (the trees and the structural and token probes read
 * them; the sentence probes of a task run never do, and a task run's token vectors would be
 * most of the store). */
static int encoder_inputs(struct parse *P, int tmpl, json_t *inputs, const char *where)
{
    size_t i, n_corpus = 0;
    json_t *v;
    json_array_foreach(inputs, i, v) {
        if (!json_is_string(v)) return fail(P, "%s.inputs[%zu]: expected a string (a corpus or task of this job)", where, i);
        n_corpus += find_name(P->corpora, P->n_corpora, json_string_value(v)) >= 0;
    }
    const char *run = ((struct stg_encode_opts *)P->job->steps[tmpl].opts)->run;
    json_array_foreach(inputs, i, v) {
        const char *in = sp_arena_strdup(&P->job->arena, json_string_value(v));
        int is_corpus = find_name(P->corpora, P->n_corpora, in) >= 0, is_task = find_name(P->tasks, P->n_tasks, in) >= 0;
        if (!is_corpus && !is_task) {
            char sugg[256], all[1024];
            int n = 0;
            const char **names = sp_xmalloc(sizeof *names * (size_t)(P->n_corpora + P->n_tasks + 1));
            for (int k = 0; k < P->n_corpora; k++) names[n++] = P->corpora[k];
            for (int k = 0; k < P->n_tasks; k++) names[n++] = P->tasks[k];
            sp_suggest(sugg, sizeof sugg, in, names, (size_t)n);
            sp_join_names(all, sizeof all, names, (size_t)n, 16);
            free(names);
            return fail(P, "%s.inputs[%zu]: '%s' names no corpus or task of this job%s%s (inputs: %s)", where, i, in,
                        sugg[0] ? "; " : "", sugg, n ? all : "none");
        }
        if (is_corpus && is_task) return fail(P, "%s.inputs[%zu]: '%s' is both a corpus and a task", where, i, in);
        if (is_task && P->doomed[find_name(P->tasks, P->n_tasks, in)])
            return fail(P, "%s.inputs[%zu]: task '%s' will not exist: %s; leave it out of the inputs", where, i, in,
                        P->doomed[find_name(P->tasks, P->n_tasks, in)]);
        struct dmn_step *s = i ? dup_step(P, tmpl) : &P->job->steps[tmpl];
        struct stg_encode_opts *o = s->opts, *d = s->defaults;
        o->corpus = is_corpus ? one(P, in) : d->corpus;
        o->task = is_task ? one(P, in) : d->task;
        if (is_task) {   /* the sentence probes read a task run's sentence vectors only */
            o->attention = d->attention; o->layer_attention = 0; o->heads = 0; o->token_vectors = d->token_vectors;
        }
        o->run = is_task || n_corpus > 1 ? sp_arena_printf(&P->job->arena, "%s-%s", run, in) : run;
        int rc = P->lay.n ? SP_OK : add_run(P, where, o->run, in, is_task, o);
        if (rc) return rc;
    }
    /* "layers": each step makes one run per layer ({layer} in its run name), layer by layer */
    for (int k = 0; k < P->lay.n; k++) {
        for (int st = tmpl; st < P->job->n_steps; st++) {
            const struct stg_encode_opts *o = P->job->steps[st].opts;
            char *run = stg_layer_run_name(o->run, P->lay.k[k], NULL);
            const char *name = sp_arena_strdup(&P->job->arena, run);
            free(run);
            int rc = add_run(P, where, name, o->task.n ? o->task.v[0] : o->corpus.v[0], o->task.n > 0, o);
            if (rc) return rc;
            if (o->layer_attention)       /* each layer run its own layer's map; the embeddings (0) none */
                P->runs[P->n_runs - 1].attention = !o->task.n && P->lay.k[k] > 0;
        }
    }
    return SP_OK;
}

static int encoder_one(struct parse *P, json_t *c, json_t *inputs, const char *where);

/* A stage's message about step s: "--name: ..." becomes "where.KEY: ..." (KEY the job's key for
 * the flag, job_key); any other message is prefixed with where. Then "(synprobe WORDS)". */
static int stage_fail(struct parse *P, const struct dmn_step *s, const char *where, const char *msg)
{
    size_t n = strncmp(msg, "--", 2) ? 0 : strcspn(msg + 2, ": ");
    if (n && n < 64 && !strncmp(msg + 2 + n, ": ", 2)) {
        char opt[64];
        memcpy(opt, msg + 2, n);
        opt[n] = 0;
        return fail(P, "%s.%s%s (synprobe %s)", where, job_key(s, opt), msg + 2 + n, s->words);
    }
    return fail(P, "%s: %s (synprobe %s)", where, msg, s->words);
}

/* The encoder's config read and checked now (its values, a NUL byte in it, the options that need
 * it: stg_encode_check_config), not when the encode step comes, after the steps before it have
 * written. */
static int check_config(struct parse *P, const struct dmn_step *s, const char *where, const char *key)
{
    const struct stg_encode_opts *o = s->opts;
    struct enc_config ec;
    char err[SP_ERRLEN];
    if (enc_config_load(o->encoder, &ec, err, sizeof err)) return fail(P, "%s.%s: %s", where, key, err);
    struct stg_ctx ctx = { 0 };
    if (stg_encode_check_config(&ctx, o, &ec)) return stage_fail(P, s, where, ctx.err);
    return SP_OK;
}

/* A "layers" value: "all" (every layer of the bert model the config names, read through
 * stages/layers.h) or [k, ...], each layer checked as encode --layers checks its own. */
static int layer_list(struct parse *P, const char *cfg, json_t *layers, const char *where, struct stg_layer_list *l)
{
    char err[SP_ERRLEN];
    memset(l, 0, sizeof *l);
    if (json_is_string(layers) && !strcmp(json_string_value(layers), "all")) {
        int last;
        const char *kind = NULL;
        if (stg_layer_count(resolve(P, P->job->dir, cfg), &last, &kind, err, sizeof err))
            return fail(P, "%s.config: %s", where, err);
        if (last < 0) return fail(P, "%s.layers: \"all\" applies to bert configs (%s is %s)", where, cfg, kind);
        return stg_layer_spec("layers", "all", last, NULL, l, err, sizeof err);
    }
    if (!json_is_array(layers) || !json_array_size(layers) || json_array_size(layers) > STG_MAX_LAYER_RUNS)
        return fail(P, "%s.layers: expected \"all\" or a non-empty array of layer numbers", where);
    size_t i;
    json_t *v;
    json_array_foreach(layers, i, v) {
        const char *at = sp_arena_printf(&P->job->arena, "%s.layers[%zu]", where, i);
        if (!json_is_integer(v)) return fail(P, "%s: expected a layer number 0..%d (0 = embeddings)", at, ENC_MAX_LAYERS);
        if (stg_layer_add(l, json_integer_value(v), ENC_MAX_LAYERS, at, NULL, err, sizeof err)) return fail(P, "%s", err);
    }
    return SP_OK;
}

/* "layers" on a bert config: one encode step per input keeps every listed layer (encode --layers,
 * one forward pass), each layer its own runs NAME-L<k>-INPUT (NAME: "run", else the config's base
 * name; a "run" with {layer} names them itself), for layer-wise probing. */
static int encoder_layers(struct parse *P, json_t *c, json_t *layers, json_t *inputs, const char *where)
{
    const char *key = json_object_get(c, "config") ? "config" : "encoder";
    json_t *cv = json_object_get(c, key);
    const char *cfg = json_string_value(cv);
    if (cv && (!cfg || !cfg[0]))
        return fail(P, "%s.%s: expected the encoder configuration file's path, got %s", where, key,
                    cfg ? "an empty string" : json_is_array(cv) ? "an array" : json_is_object(cv) ? "an object"
                    : json_is_number(cv) ? "a number" : json_is_boolean(cv) ? "true or false" : "null");
    if (!cfg) return fail(P, "%s: \"config\" (the encoder configuration file) is required", where);
    if (json_object_get(c, "layer")) return fail(P, "%s: give \"layers\" or \"layer\", not both", where);
    int rc = layer_list(P, cfg, layers, where, &P->lay);
    if (rc) { P->lay.n = 0; return rc; }
    const char *run = json_string_value(json_object_get(c, "run"));
    char *pattern = stg_layer_pattern(run ? run : base_name(P, cfg));
    struct sp_buf b = { 0 };
    for (int i = 0; i < P->lay.n; i++) sp_buf_printf(&b, "%s%d", i ? "," : "", P->lay.k[i]);
    json_t *ck = json_deep_copy(c);
    json_object_set_new(ck, "layers", json_string(b.p));
    json_object_set_new(ck, "run", json_string(pattern));
    sp_buf_free(&b);
    free(pattern);
    rc = encoder_one(P, ck, inputs, where);
    P->lay.n = 0;
    json_decref(ck);
    return rc;
}

static int encoder_entry(struct parse *P, json_t *e, const char *where)
{
    json_t *c = entry(P, e, where);
    if (!c) return SP_EUSAGE;
    json_t *inputs = json_incref(json_object_get(c, "inputs"));
    json_object_del(c, "inputs");
    json_t *layers = json_incref(json_object_get(c, "layers"));
    json_object_del(c, "layers");
    int rc = layers ? encoder_layers(P, c, layers, inputs, where) : encoder_one(P, c, inputs, where);
    json_decref(layers);
    json_decref(inputs);
    json_decref(c);
    return rc;
}

/* One encoder entry (its "inputs" taken out): the encode steps of its inputs. */
static int encoder_one(struct parse *P, json_t *c, json_t *inputs, const char *where)
{
    json_t *cfg = json_object_get(c, "config");
    const char *alias = cfg ? "config" : NULL;
    if (cfg && json_object_get(c, "encoder")) return fail(P, "%s: give \"config\" or \"encoder\", not both", where);
    if (cfg) { json_object_set(c, "encoder", cfg); json_object_del(c, "config"); }
    int tmpl = P->job->n_steps, rc = SP_OK;
    struct dmn_step *s = new_step(P, DMN_ENCODE, where);
    s->config_key = alias != NULL;
    if (!json_object_get(c, "encoder")) rc = fail(P, "%s: \"config\" (the encoder configuration file) is required", where);
    if (!rc) rc = fill(P, s, c, where, alias);
    if (!rc && (!json_is_array(inputs) || !json_array_size(inputs)))
        rc = fail(P, "%s.inputs: expected a non-empty array of corpus and task names", where);
    struct stg_encode_opts *o = P->job->steps[tmpl].opts;
    if (!rc && (o->corpus.n || o->task.n)) rc = fail(P, "%s: name corpora and tasks in \"inputs\", not \"corpus\" or \"task\"", where);
    if (!rc && !o->run) o->run = base_name(P, o->encoder);
    if (!rc) rc = check_config(P, &P->job->steps[tmpl], where, alias ? alias : "encoder");
    if (!rc) rc = encoder_inputs(P, tmpl, inputs, where);
    return rc;
}

/* A probe entry crossed with the task runs (those of its "task" list, or all), each classifier
 * and each seed: one step stores one result row, so a stopped job never leaves half a step. An
 * entry with "run" is one step as written. */
static int probe_entry(struct parse *P, json_t *e, const char *where)
{
    json_t *c = entry(P, e, where);
    if (!c) return SP_EUSAGE;
    int tmpl = P->job->n_steps;
    int rc = fill(P, new_step(P, DMN_PROBE, where), c, where, NULL);
    json_decref(c);
    if (rc) return rc;
    struct stg_probe_opts t = *(struct stg_probe_opts *)P->job->steps[tmpl].opts;
    if (t.run || t.task_file) return SP_OK;
    for (int i = 0; i < t.task.n; i++)
        if (find_name(P->tasks, P->n_tasks, t.task.v[i]) < 0)
            return fail_name(P, sp_arena_printf(&P->job->arena, "%s.task[%d]", where, i), t.task.v[i], "task", P->tasks, P->n_tasks);
    P->job->n_steps--;   /* the template becomes the crossed steps */
    int nc = t.classifier.n ? t.classifier.n : 1, ns = t.seed.n ? t.seed.n : 1;
    for (int r = 0; r < P->n_runs; r++) {
        if (!P->runs[r].is_task || (t.task.n && find_name(t.task.v, t.task.n, P->runs[r].input) < 0)) continue;
        for (int k = 0; k < nc * ns; k++) {
            struct dmn_step *s = new_step(P, DMN_PROBE, where);
            struct stg_probe_opts *o = s->opts;
            *o = t;
            o->task = one(P, P->runs[r].input);
            o->run = P->runs[r].run;
            if (t.classifier.n) o->classifier = one(P, t.classifier.v[k / ns]);
            if (t.seed.n) o->seed = one(P, t.seed.v[k % ns]);
            /* an entry for both classifiers gives "nhid"/"dropout" for its mlp steps: its logreg
             * steps keep their defaults (probe refuses them on a logreg alone) */
            if (t.classifier.n > 1 && !strcmp(o->classifier.v[0], "logreg")) {
                const struct stg_probe_opts *d = s->defaults;
                o->nhid = d->nhid;
                o->dropout = d->dropout;
            }
        }
    }
    return SP_OK;
}

/* The corpus of an entry given "run": the run's input when the job makes that run, else the
 * job's first corpus; NULL when the job has none. */
static const char *run_corpus(struct parse *P, const char *run)
{
    for (int r = 0; r < P->n_runs; r++)
        if (!P->runs[r].is_task && !strcmp(P->runs[r].run, run)) return P->runs[r].input;
    return P->n_corpora ? P->corpora[0] : NULL;
}

/* Whether corpus run r is one an entry (of corpus, or of every corpus when NULL) is crossed
 * with: need 'a' wants its attention maps, 't' its token vectors. */
static int crossed(const struct runref *r, const char *corpus, char need)
{
    if (r->is_task || (corpus && strcmp(corpus, r->input))) return 0;
    return need == 'a' ? r->attention : r->token_vectors;
}

/* A trees entry with "run", "baseline", "attention" or "mrg" is one step; otherwise it is
 * crossed with the corpus runs (of its "corpus", or all) that keep attention maps. */
static int trees_entry(struct parse *P, json_t *e, const char *where)
{
    json_t *c = entry(P, e, where);
    if (!c) return SP_EUSAGE;
    int tmpl = P->job->n_steps;
    int rc = fill(P, new_step(P, DMN_TREES, where), c, where, NULL);
    json_decref(c);
    if (rc) return rc;
    struct stg_trees_opts t = *(struct stg_trees_opts *)P->job->steps[tmpl].opts;
    if (t.corpus && find_name(P->corpora, P->n_corpora, t.corpus) < 0)
        return fail_name(P, sp_arena_printf(&P->job->arena, "%s.corpus", where), t.corpus, "corpus", P->corpora, P->n_corpora);
    if (!t.corpus && !t.mrg.n && !P->n_corpora) return fail(P, "%s.corpus: the job has no corpora with gold trees", where);
    if (t.run || t.baseline || t.attention || t.mrg.n) {
        if (!t.corpus && !t.mrg.n) ((struct stg_trees_opts *)P->job->steps[tmpl].opts)->corpus = t.run ? run_corpus(P, t.run) : P->corpora[0];
        return SP_OK;
    }
    P->job->n_steps--;
    for (int r = 0; r < P->n_runs; r++) {
        if (!crossed(&P->runs[r], t.corpus, 'a')) continue;
        struct stg_trees_opts *o = new_step(P, DMN_TREES, where)->opts;
        *o = t;
        o->corpus = P->runs[r].input;
        o->run = P->runs[r].run;
    }
    if (P->job->n_steps == tmpl)
        return fail(P, "%s: no corpus run of this job%s%s keeps attention maps to extract trees from (give an encoder "
                    "\"attention\": LAYER, or this entry \"run\" or \"baseline\")", where, t.corpus ? " of corpus " : "",
                    t.corpus ? t.corpus : "");
    return SP_OK;
}

/* A structprobe entry with "run", "baseline", "distances", "depths", "conllu" or "dp" is one step
 * (corpus: the run's, else the job's first); otherwise it trains the probes on every corpus run
 * (of its "corpus", or all) that keeps token vectors: one step per run, every layer run of a
 * "layers" encoder included. */
static int structprobe_entry(struct parse *P, json_t *e, const char *where)
{
    json_t *c = entry(P, e, where);
    if (!c) return SP_EUSAGE;
    int tmpl = P->job->n_steps;
    int rc = fill(P, new_step(P, DMN_STRUCTPROBE, where), c, where, NULL);
    json_decref(c);
    if (rc) return rc;
    struct stg_structprobe_opts t = *(struct stg_structprobe_opts *)P->job->steps[tmpl].opts;
    if (t.corpus && find_name(P->corpora, P->n_corpora, t.corpus) < 0)
        return fail_name(P, sp_arena_printf(&P->job->arena, "%s.corpus", where), t.corpus, "corpus", P->corpora, P->n_corpora);
    if (t.run || t.baseline || t.distances || t.depths || t.conllu.n || t.dp.n) {
        if (!t.corpus && !t.conllu.n && !t.dp.n) {
            const char *corpus = t.run ? run_corpus(P, t.run) : P->n_corpora ? P->corpora[0] : NULL;
            if (!corpus) return fail(P, "%s.corpus: the job has no corpora with gold trees", where);
            ((struct stg_structprobe_opts *)P->job->steps[tmpl].opts)->corpus = corpus;
        }
        return SP_OK;
    }
    P->job->n_steps--;
    for (int r = 0; r < P->n_runs; r++) {
        if (!crossed(&P->runs[r], t.corpus, 't')) continue;
        struct stg_structprobe_opts *o = new_step(P, DMN_STRUCTPROBE, where)->opts;
        *o = t;
        o->corpus = P->runs[r].input;
        o->run = P->runs[r].run;
    }
    if (P->job->n_steps == tmpl)
        return fail(P, "%s: no corpus run of this job%s%s keeps token vectors to train structural probes on (give an "
                    "encoder \"token-vectors\": true, or this entry \"run\" or \"baseline\")", where,
                    t.corpus ? " of corpus " : "", t.corpus ? t.corpus : "");
    return SP_OK;
}

/* A tokprobe entry with "run" is one step (corpus: the run's, else the job's first); otherwise
 * it is crossed with every corpus run (of its "corpus", or all) that keeps token vectors. */
static int tokprobe_entry(struct parse *P, json_t *e, const char *where)
{
    json_t *c = entry(P, e, where);
    if (!c) return SP_EUSAGE;
    int tmpl = P->job->n_steps;
    int rc = fill(P, new_step(P, DMN_TOKPROBE, where), c, where, NULL);
    json_decref(c);
    if (rc) return rc;
    struct stg_tokprobe_opts t = *(struct stg_tokprobe_opts *)P->job->steps[tmpl].opts;
    if (t.corpus && find_name(P->corpora, P->n_corpora, t.corpus) < 0)
        return fail_name(P, sp_arena_printf(&P->job->arena, "%s.corpus", where), t.corpus, "corpus", P->corpora, P->n_corpora);
    if (!P->n_corpora && !t.corpus) return fail(P, "%s.corpus: the job has no corpora with word labels", where);
    if (t.run) {
        if (!t.corpus) ((struct stg_tokprobe_opts *)P->job->steps[tmpl].opts)->corpus = run_corpus(P, t.run);
        return SP_OK;
    }
    P->job->n_steps--;
    for (int r = 0; r < P->n_runs; r++) {
        if (!crossed(&P->runs[r], t.corpus, 't')) continue;
        struct stg_tokprobe_opts *o = new_step(P, DMN_TOKPROBE, where)->opts;
        *o = t;
        o->corpus = P->runs[r].input;
        o->run = P->runs[r].run;
    }
    if (P->job->n_steps == tmpl)
        return fail(P, "%s: no corpus run of this job%s%s keeps token vectors to probe (give an encoder \"token-vectors\": "
                    "true, or this entry \"run\")", where, t.corpus ? " of corpus " : "", t.corpus ? t.corpus : "");
    return SP_OK;
}

static int report_entry(struct parse *P, json_t *e, const char *where)
{
    json_t *c = entry(P, e, where);
    if (!c) return SP_EUSAGE;
    int rc = fill(P, new_step(P, DMN_REPORT, where), c, where, NULL);
    json_decref(c);
    return rc;
}

/* ---- every step against its stage's own rules ---- */

/* The stage's check of its options (stages/<name>.h: the rules it applies before reading
 * anything), so that a step the run would refuse is refused when the job is loaded. */
static int stage_check(struct stg_ctx *ctx, const struct dmn_step *s)
{
    switch (s->kind) {
    case DMN_INGEST: return stg_ingest_check(ctx, s->opts);
    case DMN_TASKS_BUILD: return stg_tasks_build_check(ctx, s->opts);
    case DMN_TASKS_IMPORT: return stg_tasks_import_check(ctx, s->opts);
    case DMN_ENCODE: return stg_encode_check(ctx, s->opts);
    case DMN_PROBE: return stg_probe_check(ctx, s->opts);
    case DMN_TREES: return stg_trees_check(ctx, s->opts);
    case DMN_STRUCTPROBE: return stg_structprobe_check(ctx, s->opts);
    case DMN_REPORT: return rpt_check(ctx, s->opts);
    case DMN_TOKPROBE: case DMN_NKINDS: break;   /* tokprobe's rules are all in its table */
    }
    return SP_OK;
}

/* A stage's "--name: ..." becomes "where.name: ..." (the job's key is the flag's name); any
 * other message is prefixed with where. */
static int check_steps(struct parse *P)
{
    for (int i = 0; i < P->job->n_steps; i++) {
        const struct dmn_step *s = &P->job->steps[i];
        struct stg_ctx ctx = { 0 };
        int rc = stopped(P, "checking the job's steps", s->where);
        if (rc) return rc;
        rc = stage_check(&ctx, s);
        /* the partitions after the options' rules: an option error is what a user fixes first */
        if (rc == SP_OK && s->kind == DMN_TASKS_BUILD && ((const struct stg_tasks_build_opts *)s->opts)->split != STG_SPLIT_RESPLIT
            && (rc = official_or_stop(P, s->opts, s->where)) != SP_OK)
            return rc;
        if (rc == SP_OK) continue;
        return stage_fail(P, s, s->where, ctx.err);
    }
    return SP_OK;
}

/* ---- the file ---- */

typedef int (*entry_fn)(struct parse *P, json_t *e, const char *where);
static const struct { const char *key; entry_fn fn; } sections[] = {
    { "corpora", corpus_entry }, { "tasks", task_entry }, { "encoders", encoder_entry }, { "probes", probe_entry },
    { "trees", trees_entry }, { "structprobes", structprobe_entry }, { "tokprobes", tokprobe_entry },
    { "reports", report_entry },
};
#define N_SECTIONS (sizeof sections / sizeof sections[0])

static int check_keys(struct parse *P, json_t *root)
{
    const char *names[N_SECTIONS + 4] = { "store", "out", "comment", "$schema" };
    for (size_t i = 0; i < N_SECTIONS; i++) names[4 + i] = sections[i].key;
    const char *key;
    json_t *v;
    json_object_foreach(root, key, v) {
        if (find_name(names, (int)(N_SECTIONS + 4), key) >= 0) continue;
        char sugg[256], all[512];
        sp_suggest(sugg, sizeof sugg, key, names, N_SECTIONS + 4);
        sp_join_names(all, sizeof all, names, N_SECTIONS + 4, 16);
        return fail(P, "%s: unknown key%s%s (known: %s)", key, sugg[0] ? "; " : "", sugg, all);
    }
    return SP_OK;
}

static int parse_root(struct parse *P, json_t *root)
{
    struct dmn_job *j = P->job;
    if (!json_is_object(root)) return fail(P, "(top level): expected an object");
    int rc = check_keys(P, root);
    json_t *st = json_object_get(root, "store"), *out = json_object_get(root, "out");
    if (!rc && (!json_is_string(st) || !json_string_value(st)[0]))
        rc = fail(P, "store: %s", st ? "expected a non-empty string (the store's file name)" : "is required (the store's file name)");
    if (!rc && out && (!json_is_string(out) || !json_string_value(out)[0])) rc = fail(P, "out: expected a non-empty string (a folder)");
    if (rc) return rc;
    j->store = resolve(P, j->dir, json_string_value(st));
    j->out = out ? resolve(P, j->dir, json_string_value(out)) : j->dir;
    for (size_t k = 0; k < N_SECTIONS; k++) {
        json_t *arr = json_object_get(root, sections[k].key);
        if (!arr) continue;
        if (!json_is_array(arr)) return fail(P, "%s: expected an array of objects", sections[k].key);
        size_t i;
        json_t *e;
        json_array_foreach(arr, i, e) {
            char where[64];
            snprintf(where, sizeof where, "%s[%zu]", sections[k].key, i);
            if ((rc = stopped(P, "reading the job", where)) || (rc = sections[k].fn(P, e, where))) return rc;
        }
    }
    if (!j->n_steps) return fail(P, "(top level): the job has no steps (give corpora, tasks, encoders, ...)");
    return check_steps(P);
}

static int parse_text(const char *text, const char *dir, const char *name, int stoppable, struct dmn_job *job, char *err,
                      size_t errlen)
{
    memset(job, 0, sizeof *job);
    sp_arena_init(&job->arena);
    job->path = sp_arena_strdup(&job->arena, name);
    job->dir = sp_arena_strdup(&job->arena, dir);
    struct sp_sha256 h;
    sp_sha256_init(&h);
    sp_sha256_update(&h, text, strlen(text));
    sp_sha256_hex(&h, job->sha256);
    json_error_t je;
    json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, &je);
    if (!root) {
        snprintf(err, errlen, "%s:%d:%d: not JSON: %s", name, je.line, je.column, je.text);
        return SP_EPARSE;
    }
    struct parse P = { .job = job, .err = err, .errlen = errlen, .stoppable = stoppable };
    int rc = parse_root(&P, root);
    json_decref(root);
    free(P.runs);
    free(P.corpora);
    free(P.splits);
    free(P.corpus_split_given);
    free(P.doomed);
    free(P.tasks);
    if (rc) {
        char tmp[SP_ERRLEN];
        snprintf(tmp, sizeof tmp, "%s", err);
        snprintf(err, errlen, "%s: %s", name, tmp);
    }
    return rc;
}

int dmn_job_parse(const char *text, const char *dir, const char *name, struct dmn_job *job, char *err, size_t errlen)
{
    return parse_text(text, dir, name, 0, job, err, errlen);
}

int dmn_job_load(const char *path, struct dmn_job *job, char *err, size_t errlen)
{
    return dmn_job_read(path, job, NULL, err, errlen);
}

int dmn_job_read(const char *path, struct dmn_job *job, char **text_out, char *err, size_t errlen)
{
    size_t len;
    char e[SP_ERRLEN];
    if (text_out) *text_out = NULL;
    char *text = sp_read_file(path, &len, e, sizeof e);
    if (!text) {
        memset(job, 0, sizeof *job);
        sp_arena_init(&job->arena);
        snprintf(err, errlen, "%s (the job file)", e);
        return SP_EIO;
    }
    /* the parser reads a C string: bytes after a NUL would be ignored by run and refused by submit */
    int rc = sp_text_no_nul(path, text, len, err, errlen);
    if (rc) {
        free(text);
        memset(job, 0, sizeof *job);
        sp_arena_init(&job->arena);
        return rc;
    }
    const char *slash = strrchr(path, '/');
    size_t dlen = !slash ? 0 : slash == path ? 1 : (size_t)(slash - path);
    char *dir = dlen ? sp_xstrdup(path) : sp_xstrdup(".");
    if (dlen) dir[dlen] = 0;
    rc = parse_text(text, dir, path, 1, job, err, errlen);
    free(dir);
    if (text_out && rc == SP_OK) *text_out = text;
    else free(text);
    return rc;
}

void dmn_job_free(struct dmn_job *job)
{
    free(job->steps);
    sp_arena_free(&job->arena);
    memset(job, 0, sizeof *job);
}

/* ---- outputs by identity (common/guard.h) ---- */

/* Every output of step s stays in the output folder by identity: the folder that will hold it
 * (a folder output: itself) resolved, symlinks followed, lies in the resolved "out". The text
 * check (relative, no "..") ran at parse time; this one catches a symlinked folder inside "out". */
static int outputs_inside(const struct dmn_job *job, const struct dmn_step *s, const char *out_real, char *err, size_t errlen)
{
    for (const struct sp_opt *o = s->table; o->name; o++) {
        if (o->type != SP_OPT_PATH || !(o->flags & SP_OPTF_OUTPUT)) continue;
        const char *p = *(const char *const *)((const char *)s->opts + o->offset);
        if (!p) continue;
        struct stat st;
        char *real = sp_path_real(p, stat(p, &st) == 0 && S_ISDIR(st.st_mode));
        int ok = sp_path_inside(real, out_real);
        if (!ok)
            snprintf(err, errlen, "%s: %s.%s: %s leaves the output folder %s through a symbolic link (it resolves to %s)",
                     job->path, s->where, o->name, p, job->out, real);
        free(real);
        if (!ok) return SP_EEXIST;
    }
    return SP_OK;
}

static int guard_stopped(const struct dmn_job *job, const char *what, int i, char *err, size_t errlen)
{
    snprintf(err, errlen, "%s: stopped by a signal while checking the %s of its steps (at step %d of %d, %s)", job->path, what,
             i + 1, job->n_steps, job->steps[i].where);
    return SP_ESTOPPED;
}

int dmn_job_guard(const struct dmn_job *job, const char *queue_store, struct sp_guard *g, char *err, size_t errlen)
{
    sp_guard_protect(g, job->path, "the job file");
    sp_guard_protect_store(g, job->store, "the store");
    if (queue_store) sp_guard_protect_store(g, queue_store, "the queue's store");
    for (int i = 0; i < job->n_steps; i++) {
        const struct dmn_step *s = &job->steps[i];
        if (sp_stopping()) return guard_stopped(job, "inputs", i, err, errlen);
        char prefix[96];
        snprintf(prefix, sizeof prefix, "%s.", s->where);
        if (s->kind != DMN_INGEST) { sp_guard_protect_options(g, s->table, s->opts, prefix); continue; }
        const struct stg_ingest_opts *o = s->opts;   /* its "inputs" are the entry's "paths" */
        snprintf(prefix, sizeof prefix, "input %s.paths", s->where);
        for (int k = 0; k < o->inputs.n; k++) sp_guard_protect(g, o->inputs.v[k], prefix);
    }
    for (int k = 0; k < job->n_ud_folders; k++) sp_guard_protect(g, job->ud_folders[k], job->ud_folder_labels[k]);
    char e[SP_ERRLEN];
    if (sp_guard_check_stores(g, e, sizeof e)) {   /* the store (a shard's too) is none of the inputs */
        snprintf(err, errlen, "%s: %s", job->path, e);
        return SP_EEXIST;
    }
    char *out_real = sp_path_real(job->out, 1);
    /* each entry's outputs once (a crossed entry's steps share them), checked against the store
     * and the inputs as they come, against each other at the end, sorted: a job with 600,000
     * report entries is checked in seconds (one by one against those before: hours) */
    struct sp_guard outs = { 0 };
    struct sp_strmap seen;
    struct sp_arena names;
    sp_strmap_init(&seen);
    sp_arena_init(&names);
    int rc = SP_OK;
    for (int i = 0; i < job->n_steps && rc == SP_OK; i++) {
        const struct dmn_step *s = &job->steps[i];
        if (sp_stopping()) { rc = guard_stopped(job, "outputs", i, err, errlen); break; }
        if (sp_strmap_get(&seen, s->where)) continue;
        sp_strmap_add(&seen, &names, s->where, 1);
        char prefix[96];
        snprintf(prefix, sizeof prefix, "%s.", s->where);
        if (sp_guard_collect_options(g, &outs, s->table, s->opts, prefix, e, sizeof e)) {
            snprintf(err, errlen, "%s: %s", job->path, e);
            rc = SP_EEXIST;
        } else {
            rc = outputs_inside(job, s, out_real, err, errlen);
        }
    }
    if (rc == SP_OK && sp_guard_check_distinct(&outs, e, sizeof e)) {
        snprintf(err, errlen, "%s: %s", job->path, e);
        rc = SP_EEXIST;
    }
    sp_strmap_free(&seen);
    sp_arena_free(&names);
    sp_guard_free(&outs);
    free(out_real);
    return rc;
}

const struct sp_opt *dmn_step_table(enum dmn_step_kind k)
{
    return k >= 0 && k < DMN_NKINDS ? kinds[k].table : NULL;
}

void dmn_step_format(const struct dmn_step *s, struct sp_buf *b)
{
    sp_opt_format_args(s->table, s->opts, s->defaults, b);
}
