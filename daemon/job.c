/* daemon/job.c — reading and checking a job file, expanding it into steps (daemon/job.h). */
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
#include "daemon/job_int.h"
#include "stages/ingest.h"
#include "stages/splits.h"


/* SP_ESTOPPED with err when a stop was asked for (a job with 600,000 entries takes a while) */
static int stopped(struct dmn_parse *P, const char *doing, const char *where)
{
    if (!P->stoppable || !sp_stopping()) return SP_OK;
    snprintf(P->err, P->errlen, "stopped by a signal while %s (at %s)", doing, where);
    return SP_ESTOPPED;
}

int dmn_jp_fail(struct dmn_parse *P, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(P->err, P->errlen, fmt, ap);
    va_end(ap);
    return SP_EUSAGE;
}

/* name appended to *v (n names so far; grown one at a time: a job names tens of things) */
void dmn_jp_push_name(const char ***v, int *n, const char *name)
{
    *v = sp_xrealloc(*v, sizeof **v * (size_t)(*n + 1));
    (*v)[(*n)++] = name;
}

int dmn_jp_find_name(const char *const *v, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(v[i], name)) return i;
    return -1;
}

/* "PATH: 'x' is no NOUN of this job; did you mean 'y'? (NOUNs: a, b)" */
int dmn_jp_fail_name(struct dmn_parse *P, const char *path, const char *name, const char *noun, const char *const *v, int n)
{
    char sugg[256], all[512];
    sp_suggest(sugg, sizeof sugg, name, v, (size_t)n);
    sp_join_names(all, sizeof all, v, (size_t)n, 12);
    return dmn_jp_fail(P, "%s: '%s' is no %s of this job%s%s (%ss: %s)", path, name, noun, sugg[0] ? "; " : "", sugg, noun,
                n ? all : "none");
}

const char *dmn_jp_resolve(struct dmn_parse *P, const char *base, const char *p)
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

struct dmn_step *dmn_jp_new_step(struct dmn_parse *P, enum dmn_step_kind k, const char *where)
{
    struct dmn_job *j = P->job;
    j->steps = sp_xrealloc(j->steps, sizeof *j->steps * (size_t)(j->n_steps + 1));
    struct dmn_step *s = &j->steps[j->n_steps++];
    s->kind = k;
    s->words = dmn_steps[k]->words;
    s->table = dmn_steps[k]->table;
    s->opts = sp_arena_alloc(&j->arena, dmn_steps[k]->size);
    s->defaults = sp_arena_alloc(&j->arena, dmn_steps[k]->size);
    s->where = sp_arena_strdup(&j->arena, where);
    sp_opt_defaults(s->table, s->defaults, &j->arena);
    memcpy(s->opts, s->defaults, dmn_steps[k]->size);
    *(const char **)((char *)s->opts + sp_opt_find(s->table, "db")->offset) = j->store;
    return s;
}

/* a copy of step s (same options), appended */
struct dmn_step *dmn_jp_dup_step(struct dmn_parse *P, int i)
{
    struct dmn_step *s = dmn_jp_new_step(P, P->job->steps[i].kind, P->job->steps[i].where);
    memcpy(s->opts, P->job->steps[i].opts, dmn_steps[s->kind]->size);
    s->config_key = P->job->steps[i].config_key;
    return s;
}

/* Every path a JSON key set, resolved: inputs against the job's folder (and they must exist),
 * outputs against the output folder (and they must stay inside it). alias: the job's name for
 * the option "encoder" ("config"), for messages. */
static int resolve_paths(struct dmn_parse *P, struct dmn_step *s, json_t *obj, const char *where, const char *alias)
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
                return dmn_jp_fail(P, "%s.%s: '%s' leaves the output folder (an output path is relative to the job's \"out\" "
                            "and has no '..')", where, shown, one[i]);
            one[i] = dmn_jp_resolve(P, is_out ? P->job->out : P->job->dir, one[i]);
            if (!is_out && access(one[i], F_OK))
                return dmn_jp_fail(P, "%s.%s: %s: no such file", where, shown, one[i]);
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
static void rename_key(struct dmn_parse *P, const struct dmn_step *s, const char *where)
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
int dmn_jp_fill(struct dmn_parse *P, struct dmn_step *s, json_t *obj, const char *where, const char *alias)
{
    if (json_object_get(obj, "db"))
        return dmn_jp_fail(P, "%s.db: the store is set once, by the job's \"store\"", where);
    int rc = sp_opt_set_json(s->table, s->opts, obj, where, &P->job->arena, P->err, P->errlen);
    if (rc) rename_key(P, s, where);
    return rc ? rc : resolve_paths(P, s, obj, where, alias);
}

/* A section entry: an object, copied so job keys can be taken out before the table reads it. */
json_t *dmn_jp_entry(struct dmn_parse *P, json_t *e, const char *where)
{
    if (!json_is_object(e)) { dmn_jp_fail(P, "%s: expected an object", where); return NULL; }
    return json_copy(e);
}

int dmn_jp_want_string(struct dmn_parse *P, json_t *obj, const char *key, const char *where, int required, const char **out)
{
    json_t *v = json_object_get(obj, key);
    *out = NULL;
    if (!v) return required ? dmn_jp_fail(P, "%s: \"%s\" is required", where, key) : SP_OK;
    if (!json_is_string(v) || !json_string_value(v)[0]) return dmn_jp_fail(P, "%s.%s: expected a non-empty string", where, key);
    *out = sp_arena_strdup(&P->job->arena, json_string_value(v));
    json_object_del(obj, key);
    return SP_OK;
}

/* ---- sections ---- */

/* a list of one name, in the job's arena */
struct sp_strlist dmn_jp_one(struct dmn_parse *P, const char *name)
{
    const char **v = sp_arena_alloc(&P->job->arena, 2 * sizeof *v);
    v[0] = name;
    return (struct sp_strlist){ v, name ? 1 : 0 };
}

/* A stage's message about step s: "--name: ..." becomes "where.KEY: ..." (KEY the job's key for
 * the flag, job_key); any other message is prefixed with where. Then "(synprobe WORDS)". */
int dmn_jp_stage_fail(struct dmn_parse *P, const struct dmn_step *s, const char *where, const char *msg)
{
    size_t n = strncmp(msg, "--", 2) ? 0 : strcspn(msg + 2, ": ");
    if (n && n < 64 && !strncmp(msg + 2 + n, ": ", 2)) {
        char opt[64];
        memcpy(opt, msg + 2, n);
        opt[n] = 0;
        return dmn_jp_fail(P, "%s.%s%s (synprobe %s)", where, job_key(s, opt), msg + 2 + n, s->words);
    }
    return dmn_jp_fail(P, "%s: %s (synprobe %s)", where, msg, s->words);
}

/* The corpus of an entry given "run": the run's input when the job makes that run, else the
 * job's first corpus; NULL when the job has none. */
const char *dmn_jp_run_corpus(struct dmn_parse *P, const char *run)
{
    for (int r = 0; r < P->n_runs; r++)
        if (!P->runs[r].is_task && !strcmp(P->runs[r].run, run)) return P->runs[r].input;
    return P->n_corpora ? P->corpora[0] : NULL;
}

/* Whether corpus run r is one an entry (of corpus, or of every corpus when NULL) is crossed
 * with: need 'a' wants its attention maps, 't' its token vectors. */
int dmn_jp_crossed(const struct dmn_runref *r, const char *corpus, char need)
{
    if (r->is_task || (corpus && strcmp(corpus, r->input))) return 0;
    return need == 'a' ? r->attention : r->token_vectors;
}

/* ---- every step against its stage's own rules ---- */

/* Each step against its kind's checks (daemon/step.h: the stage's own rules, then those that need
 * the whole job), so that a step the run would refuse is refused when the job is loaded. A stage's
 * "--name: ..." becomes "where.name: ..." (the job's key is the flag's name); any other message is
 * prefixed with where. */
static int check_steps(struct dmn_parse *P)
{
    for (int i = 0; i < P->job->n_steps; i++) {
        const struct dmn_step *s = &P->job->steps[i];
        const struct dmn_step_def *d = dmn_steps[s->kind];
        struct stg_ctx ctx = { 0 };
        int rc = stopped(P, "checking the job's steps", s->where);
        if (rc) return rc;
        if (d->check && (rc = d->check(&ctx, s->opts)) != SP_OK) return dmn_jp_stage_fail(P, s, s->where, ctx.err);
        if (d->check_job && (rc = d->check_job(P, s)) != SP_OK) return rc;
    }
    return SP_OK;
}

/* ---- the file ---- */

/* the job file's keys: its own, then each kind's section (daemon/step_list.h's order) */
static int section_names(const char **names)
{
    int n = 0;
    names[n++] = "store", names[n++] = "out", names[n++] = "comment", names[n++] = "$schema";
    for (int k = 0; k < DMN_NKINDS; k++)
        if (dmn_steps[k]->section) names[n++] = dmn_steps[k]->section;
    return n;
}

static int check_keys(struct dmn_parse *P, json_t *root)
{
    const char *names[DMN_NKINDS + 4];
    int n = section_names(names);
    const char *key;
    json_t *v;
    json_object_foreach(root, key, v) {
        if (dmn_jp_find_name(names, n, key) >= 0) continue;
        char sugg[256], all[512];
        sp_suggest(sugg, sizeof sugg, key, names, (size_t)n);
        sp_join_names(all, sizeof all, names, (size_t)n, 16);
        return dmn_jp_fail(P, "%s: unknown key%s%s (known: %s)", key, sugg[0] ? "; " : "", sugg, all);
    }
    return SP_OK;
}

static int parse_root(struct dmn_parse *P, json_t *root)
{
    struct dmn_job *j = P->job;
    if (!json_is_object(root)) return dmn_jp_fail(P, "(top level): expected an object");
    int rc = check_keys(P, root);
    json_t *st = json_object_get(root, "store"), *out = json_object_get(root, "out");
    if (!rc && (!json_is_string(st) || !json_string_value(st)[0]))
        rc = dmn_jp_fail(P, "store: %s", st ? "expected a non-empty string (the store's file name)" : "is required (the store's file name)");
    if (!rc && out && (!json_is_string(out) || !json_string_value(out)[0])) rc = dmn_jp_fail(P, "out: expected a non-empty string (a folder)");
    if (rc) return rc;
    j->store = dmn_jp_resolve(P, j->dir, json_string_value(st));
    j->out = out ? dmn_jp_resolve(P, j->dir, json_string_value(out)) : j->dir;
    for (int k = 0; k < DMN_NKINDS; k++) {
        const struct dmn_step_def *d = dmn_steps[k];
        json_t *arr = d->section ? json_object_get(root, d->section) : NULL;
        if (!arr) continue;
        if (!json_is_array(arr)) return dmn_jp_fail(P, "%s: expected an array of objects", d->section);
        size_t i;
        json_t *e;
        json_array_foreach(arr, i, e) {
            char where[64];
            snprintf(where, sizeof where, "%s[%zu]", d->section, i);
            if ((rc = stopped(P, "reading the job", where)) || (rc = d->entry(P, e, where))) return rc;
        }
    }
    if (!j->n_steps) return dmn_jp_fail(P, "(top level): the job has no steps (give corpora, tasks, encoders, ...)");
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
    struct dmn_parse P = { .job = job, .err = err, .errlen = errlen, .stoppable = stoppable };
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
        if (dmn_steps[s->kind]->protect) dmn_steps[s->kind]->protect(g, s);
        else sp_guard_protect_options(g, s->table, s->opts, prefix);
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
    return k >= 0 && k < DMN_NKINDS ? dmn_steps[k]->table : NULL;
}

void dmn_step_format(const struct dmn_step *s, struct sp_buf *b)
{
    sp_opt_format_args(s->table, s->opts, s->defaults, b);
}
