/* stages/tasks.c — the tasks build stage (stages/tasks.h): sentences → probing tasks → store
 * and SentEval files. import/export/list are in stages/tasks_io.c. */
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/sp.h"
#include "ingest/readers.h"
#include "probes/stats.h"
#include "stages/names.h"
#include "stages/splits.h"
#include "stages/tasks.h"
#include "store/store.h"

/* what --out names (common/guard.h): a folder of every task's SentEval file and tasks.json */
static const char *out_holds(const void *src)
{
    static char names[2048];
    (void)src;
    if (!names[0]) {
        size_t n = 0;
        for (int id = 0; id < PRB_NTASKS; id++)
            n += (size_t)snprintf(names + n, sizeof names - n, "%s|", prb_task_file((enum prb_task_id)id));
        snprintf(names + n, sizeof names - n, "tasks.json");
    }
    return names;
}

const struct sp_opt stg_tasks_build_options[] = {
#define O(f) offsetof(struct stg_tasks_build_opts, f)
    { "corpus-files", SP_OPT_PATHS, O(corpus_files), .metavar = "FILE|DIR",
      .help = ".mrg/.conllu/.dp files or folders (their treebank files in name order); a .dp file's heads attach "
              "to the .mrg sentences with the same words" },
    { "db", SP_OPT_PATH, O(db), .metavar = "DB", .help = "read the sentences of --corpus from this store, and store the built tasks there" },
    { "corpus", SP_OPT_LIST, O(corpus), .metavar = "NAME[,NAME...]",
      .help = "with --db: the corpora whose sentences (concatenated in the order given) the tasks are built from" },
    { "format", SP_OPT_CHOICE, O(format), "auto", .choices = "auto|conllu/conll|ptb/mrg|dep/dp",
      .help = "force the format of every file" },
    { "tasks", SP_OPT_LIST, O(tasks), .metavar = "LIST", .help = "task names (comma-separated, repeatable), or all (default)" },
    { "seed", SP_OPT_INT, O(seed), "1", .lo = 0, .hi = LONG_MAX, .metavar = "N",
      .help = "seed of every random choice; recorded in tasks.json" },
    { "out", SP_OPT_PATH, O(out), .metavar = "DIR", .help = "write DIR/<senteval file>.txt per built task and DIR/tasks.json", .flags = SP_OPTF_OUTPUT,
      .holds = out_holds },
    { "prefix", SP_OPT_STR, O(prefix), .metavar = "P", .help = "with --db: store each built task as P<task name>" },
    { "replace", SP_OPT_FLAG, O(replace), .help = "with --db: replace stored tasks of the same name" },
    { "min-len", SP_OPT_INT, O(min_len), "5", .lo = 1, .hi = 100000, .metavar = "N", .help = "shortest sentence used (tokens)" },
    { "max-len", SP_OPT_INT, O(max_len), "28", .lo = 1, .hi = 100000, .metavar = "N", .help = "longest sentence used (tokens)" },
    { "cap", SP_OPT_INT, O(cap), "20", .lo = 1, .hi = 1000000, .metavar = "N", .help = "per-form cap of the form-disjoint split" },
    { "wc-k", SP_OPT_INT, O(wc_k), "50", .lo = 2, .hi = 100000, .metavar = "N", .help = "WC: number of target words" },
    { "wc-rank", SP_OPT_INT, O(wc_rank), "100", .lo = 0, .hi = 10000000, .metavar = "R",
      .help = "WC: targets from this frequency rank on" },
    { "depth", SP_OPT_STR, O(depth), "7-10", .metavar = "LO-HI", .help = "TreeDepth classes" },
    { "topconst-min", SP_OPT_INT, O(topconst_min), "30", .lo = 1, .hi = 1000000, .metavar = "N",
      .help = "TopConst: training items a class needs" },
    { "topconst-nopunct", SP_OPT_FLAG, O(topconst_nopunct), .help = "the TopConst-nopunct variant" },
    { "split", SP_OPT_CHOICE, O(split), "official", .choices = "official/auto|resplit",
      .help = "partitions: the corpus's own train/dev/test (UD file names *-ud-train|dev|test.conllu or ingest --split; "
              "PTB WSJ sections 02-21/22/23), and a stop when it has none (official; auto is its old name), or a "
              "seeded 80/10/10 re-split, said so and stored (resplit)" },
#undef O
    { 0 },
};

/* ---- options into prb_opts ---- */

static int parse_depth(const char *v, int *lo, int *hi)
{
    char tail;
    return v && sscanf(v, "%d-%d%c", lo, hi, &tail) == 2 && *lo >= 1 && *hi > *lo && *hi <= 1000 ? 0 : -1;
}

/* --tasks names into the bit mask; an unknown name gets the nearest task names */
static int parse_tasks(struct stg_ctx *ctx, const struct sp_strlist *l, unsigned *mask)
{
    const char *names[PRB_NTASKS];
    for (int id = 0; id < PRB_NTASKS; id++) names[id] = prb_task_name((enum prb_task_id)id);
    *mask = 0;
    for (int i = 0; i < l->n; i++) {
        if (!strcasecmp(l->v[i], "all")) { *mask = PRB_ALL_TASKS; continue; }
        int id = prb_task_lookup(l->v[i]);
        if (id >= 0) { *mask |= 1u << id; continue; }
        char sugg[128], all[256];
        sp_suggest(sugg, sizeof sugg, l->v[i], names, PRB_NTASKS);
        sp_join_names(all, sizeof all, names, PRB_NTASKS, PRB_NTASKS);
        return stg_fail(ctx, SP_EUSAGE, "--tasks: unknown task '%s'; %s%sthe tasks are: %s, or all", l->v[i], sugg,
                        sugg[0] ? " " : "", all);
    }
    if (!*mask) *mask = PRB_ALL_TASKS;
    return SP_OK;
}

static int check_opts(struct stg_ctx *ctx, const struct stg_tasks_build_opts *o, struct prb_opts *p)
{
    if ((o->corpus_files.n > 0) == (o->db != NULL))
        return stg_fail(ctx, SP_EUSAGE, "give either --corpus-files FILE... or --db DB --corpus NAME");
    if (o->db && !o->corpus.n) return stg_fail(ctx, SP_EUSAGE, "--db needs --corpus NAME");
    if (!o->db && o->corpus.n) return stg_fail(ctx, SP_EUSAGE, "--corpus needs --db DB (or give --corpus-files)");
    for (int i = 0; i < o->corpus.n; i++)
        for (int j = 0; j < i; j++)
            if (!strcmp(o->corpus.v[i], o->corpus.v[j]))
                return stg_fail(ctx, SP_EUSAGE, "--corpus: '%s' is named twice", o->corpus.v[i]);
    if (o->max_len < o->min_len) return stg_fail(ctx, SP_EUSAGE, "--max-len is below --min-len");
    prb_opts_default(p);
    if (parse_depth(o->depth, &p->depth_lo, &p->depth_hi))
        return stg_fail(ctx, SP_EUSAGE, "--depth expects LO-HI, e.g. 7-10, got '%s'", o->depth ? o->depth : "");
    p->seed = (uint64_t)o->seed;
    p->min_len = (int)o->min_len;
    p->max_len = (int)o->max_len;
    p->cap = (int)o->cap;
    p->wc_k = (int)o->wc_k;
    p->wc_rank = (int)o->wc_rank;
    p->topconst_min_train = (int)o->topconst_min;
    p->topconst_nopunct = o->topconst_nopunct;
    return parse_tasks(ctx, &o->tasks, &p->tasks);
}

int stg_tasks_build_check(struct stg_ctx *ctx, const struct stg_tasks_build_opts *o)
{
    struct prb_opts p;
    return check_opts(ctx, o, &p);
}

/* ---- the sentences ---- */

struct sentences {
    struct ing_batch b;         /* from files */
    struct sp_arena a;          /* copies of store rows */
    struct sp_sentence *s;
    int64_t *ids;               /* store sentence ids (0 for files) */
    const char **split, **doc;  /* per sentence: the recorded split (files: the UD name's) and source file stem (or path), or NULL */
    signed char *official;      /* per sentence: its official partition (PRB_TR..), -1: none */
    int n, cap;
    int64_t corpus_id;          /* the one corpus, or 0 when several */
};

static void push(struct sentences *x, struct sp_sentence s, int64_t id, const char *split, const char *doc)
{
    if (x->n == x->cap) {
        x->cap = x->cap ? 2 * x->cap : 1024;
        x->s = sp_xrealloc(x->s, sizeof *x->s * (size_t)x->cap);
        x->ids = sp_xrealloc(x->ids, sizeof *x->ids * (size_t)x->cap);
        x->split = sp_xrealloc(x->split, sizeof *x->split * (size_t)x->cap);
        x->doc = sp_xrealloc(x->doc, sizeof *x->doc * (size_t)x->cap);
    }
    x->ids[x->n] = id;
    x->split[x->n] = split ? sp_arena_strdup(&x->a, split) : NULL;
    x->doc[x->n] = doc ? sp_arena_strdup(&x->a, doc) : NULL;
    x->s[x->n++] = s;
}

/* "corpus 'ewt' has", "corpora 'a', 'b' have" or "the files given (--corpus-files) have" */
static void source_words(const struct stg_tasks_build_opts *o, struct sp_buf *b)
{
    if (!o->db) { sp_buf_puts(b, "the files given (--corpus-files) have"); return; }
    sp_buf_puts(b, o->corpus.n == 1 ? "corpus " : "corpora ");
    for (int i = 0; i < o->corpus.n; i++) sp_buf_printf(b, "%s'%s'", i ? ", " : "", o->corpus.v[i]);
    sp_buf_puts(b, o->corpus.n == 1 ? " has" : " have");
}

/* The official partitions of the sentences (x->official, p->official) when they have them
 * (stages/splits.h); else, asked for (--split resplit), the seeded §2.1 re-split, said in one
 * line; else a stop that names the corpus, what splits it has and how to ask for the re-split.
 * r->partition says which in words, r->resplit whether it is the re-split. */
static int choose_partition(struct stg_ctx *ctx, const struct stg_tasks_build_opts *o, struct sentences *x,
                            struct prb_opts *p, struct stg_tasks_build_result *r)
{
    p->official = NULL;
    struct stg_split_tally t = { 0 };
    for (int i = 0; i < x->n; i++) stg_split_tally_add(&t, x->split[i], x->doc[i]);
    const char *why;
    enum stg_split_source src = stg_split_decide(&t, &why);
    char has[256], own[320];
    stg_split_describe(&t, "sentence", has, sizeof has);
    if (src == STG_SPLIT_NONE) snprintf(own, sizeof own, "no official partitions: %s; %s", why, has);
    else snprintf(own, sizeof own, "official partitions, not used (%s)", has);
    struct sp_buf who = { 0 };
    source_words(o, &who);
    int rc = SP_OK;
    if (o->split == STG_SPLIT_RESPLIT) {
        r->resplit = 1;
        snprintf(r->partition, sizeof r->partition, "re-split 80/10/10, seeded (--split resplit): %s %s", who.p, own);
        sp_log(ctx->log, SP_LOG_WARN, "tasks re-split 80/10/10 with seed %llu, as asked (--split resplit): %s %s",
               (unsigned long long)p->seed, who.p, own);
    } else if (src == STG_SPLIT_NONE) {
        rc = stg_fail(ctx, SP_EPARSE, "%s no official train/test partitions: %s (%s); tasks are not re-split unasked: give "
                      "--split resplit for a seeded 80/10/10 re-split (in a job: \"split\": \"resplit\" in its tasks "
                      "entry), or give the corpus its train and test files (UD names *-ud-train|dev|test.conllu; ingest --split)", who.p, why, has);
    } else {
        x->official = sp_xmalloc((size_t)(x->n ? x->n : 1));
        static const char *const names[3] = { "train", "dev", "test" };
        for (int i = 0; i < x->n; i++) {
            int k = -1;
            if (src == STG_SPLIT_RECORDED) {
                for (int j = 0; j < 3; j++) if (!strcmp(x->split[i], names[j])) k = j;
            } else {
                int s = stg_wsj_section(x->doc[i]);
                k = s >= 2 && s <= 21 ? PRB_TR : s == 22 ? PRB_VA : s == 23 ? PRB_TE : -1;
            }
            x->official[i] = (signed char)k;
        }
        p->official = x->official;
        if (src == STG_SPLIT_RECORDED)
            snprintf(r->partition, sizeof r->partition, "official: the recorded split of each sentence (train %ld, dev %ld, "
                     "test %ld)", t.have[0], t.have[1], t.have[2]);
        else
            snprintf(r->partition, sizeof r->partition, "official: PTB WSJ sections 02-21 train (%ld), 22 dev (%ld), 23 "
                     "test (%ld); other sections left out", t.sec[0], t.sec[1], t.sec[2]);
    }
    sp_buf_free(&who);
    return rc;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* the names a folder is searched for (prb_load_file reads no gzip) */
static int treebank_name(const char *name)
{
    const char *dot = strrchr(name, '.');
    return dot && (!strcmp(dot, ".conllu") || !strcmp(dot, ".conll") || !strcmp(dot, ".mrg") ||
                   !strcmp(dot, ".dp") || !strcmp(dot, ".dep") || !strcmp(dot, ".ptb"));
}

/* a FILE stays; a DIR becomes its treebank files in name order */
static void add_path(const char *arg, char ***list, int *n, int *cap)
{
    struct stat st;
    int start = *n;
    DIR *d = stat(arg, &st) == 0 && S_ISDIR(st.st_mode) ? opendir(arg) : NULL;
    for (struct dirent *e; d && (e = readdir(d));) {
        if (!treebank_name(e->d_name)) continue;
        if (*n == *cap) { *cap = *cap ? 2 * *cap : 64; *list = sp_xrealloc(*list, sizeof **list * (size_t)*cap); }
        size_t len = strlen(arg) + strlen(e->d_name) + 2;
        (*list)[*n] = sp_xmalloc(len);
        snprintf((*list)[(*n)++], len, "%s/%s", arg, e->d_name);
    }
    if (d) {
        closedir(d);
        qsort(*list + start, (size_t)(*n - start), sizeof **list, cmp_str);
        return;
    }
    if (*n == *cap) { *cap = *cap ? 2 * *cap : 64; *list = sp_xrealloc(*list, sizeof **list * (size_t)*cap); }
    (*list)[(*n)++] = sp_xstrdup(arg);
}

static int load_files(struct stg_ctx *ctx, const struct stg_tasks_build_opts *o, struct sentences *x, int *rejected)
{
    char **files = NULL;
    int nf = 0, cap = 0, rc = SP_OK;
    for (int i = 0; i < o->corpus_files.n; i++) add_path(o->corpus_files.v[i], &files, &nf, &cap);
    int *file_of = NULL;   /* per item: the file it came from (its UD split and WSJ section, as ingest records them) */
    for (int k = 0; k < nf && rc == SP_OK; k++) {
        if (stg_stopping(ctx)) { rc = stg_stopped(ctx); break; }
        int from = x->b.n_items;
        rc = prb_load_file(files[k], (enum sp_format)o->format, &x->b, rejected, ctx->err, sizeof ctx->err);
        file_of = sp_xrealloc(file_of, sizeof *file_of * ((size_t)x->b.n_items + 1));
        for (int i = from; i < x->b.n_items; i++) file_of[i] = k;
        if (rc == SP_OK && from > 0) prb_merge_heads(&x->b, from);
        stg_progress(ctx, "files", (uint64_t)k + 1, (uint64_t)nf);
    }
    for (int i = 0; rc == SP_OK && i < x->b.n_items; i++)
        if (!x->b.item[i].error) push(x, x->b.item[i].s, 0, stg_ud_split(files[file_of[i]]), files[file_of[i]]);
    for (int k = 0; k < nf; k++) free(files[k]);
    free(files);
    free(file_of);
    return rc;
}

/* one corpus's sentences, deep-copied (a row lives until the next), with their ids (so the
 * stored items point back at them) */
static int load_corpus(struct stg_ctx *ctx, struct st_db *db, const char *db_path, const char *name, struct sentences *x,
                       int64_t *cid_out)
{
    int64_t cid = 0;
    int rc = stg_corpus_id(ctx, db, db_path, name, &cid);
    *cid_out = cid;
    struct st_iter *it = NULL;
    if (rc == SP_OK) rc = st_iter_open(db, cid, ST_WANT_CONST, &it, ctx->err, sizeof ctx->err);
    while (rc == SP_OK) {
        const struct st_row *row;
        int k = st_iter_next(it, &row);
        if (k == 0) break;
        if (k < 0) { rc = stg_fail(ctx, SP_ESTORE, "%s: %s", db_path, st_iter_error(it)); break; }
        push(x, prb_sentence_copy(&x->a, &row->s), row->sentence_id, row->split, row->doc);
    }
    if (it) st_iter_close(it);
    return rc;
}

static int load_corpora(struct stg_ctx *ctx, const struct stg_tasks_build_opts *o, struct st_db *db, struct sentences *x)
{
    int64_t cid = 0;
    for (int i = 0; i < o->corpus.n; i++) {
        if (stg_stopping(ctx)) return stg_stopped(ctx);
        int rc = load_corpus(ctx, db, o->db, o->corpus.v[i], x, &cid);
        if (rc != SP_OK) return rc;
        stg_progress(ctx, "corpora", (uint64_t)i + 1, (uint64_t)o->corpus.n);
    }
    x->corpus_id = o->corpus.n == 1 ? cid : 0;   /* a task of several corpora belongs to none */
    return SP_OK;
}

/* ---- the summary (tasks.json, --json) ---- */

static json_t *task_json(const struct prb_task *t)
{
    json_t *o = json_object();
    json_object_set_new(o, "name", json_string(prb_task_name(t->id)));
    json_object_set_new(o, "file", json_string(prb_task_file(t->id)));
    json_object_set_new(o, "built", json_boolean(t->built));
    json_object_set_new(o, "candidates", json_integer(t->n_candidates));
    if (!t->built) {
        json_object_set_new(o, "reason", json_string(t->reason ? t->reason : "not built"));
        return o;
    }
    json_object_set_new(o, "items", json_integer(t->n_items));
    json_t *sp = json_object(), *cls = json_object();
    int tot[3] = { 0, 0, 0 };
    for (int c = 0; c < t->n_classes; c++) {
        json_t *row = json_object();
        for (int s = 0; s < 3; s++) {
            json_object_set_new(row, prb_split_name(s), json_integer(t->count[c][s]));
            tot[s] += t->count[c][s];
        }
        json_object_set_new(cls, t->cls[c], row);
    }
    for (int s = 0; s < 3; s++) json_object_set_new(sp, prb_split_name(s), json_integer(tot[s]));
    json_object_set_new(o, "splits", sp);
    json_object_set_new(o, "small_test", json_boolean(tot[PRB_TE] < PRB_SMALL_TEST));
    json_object_set_new(o, "classes", cls);
    if (t->note) json_object_set_new(o, "note", json_string(t->note));
    return o;
}

static json_t *summary_json(const struct prb_taskset *ts, const char *source)
{
    const struct prb_opts *p = &ts->opts;
    json_t *o = json_object(), *arr = json_array();
    json_object_set_new(o, "source", json_string(source));
    json_object_set_new(o, "sentences", json_integer(ts->n_sentences));
    json_object_set_new(o, "seed", json_integer((json_int_t)p->seed));
    json_object_set_new(o, "options", json_pack("{s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:b}", "min_len", p->min_len,
                                                "max_len", p->max_len, "cap", p->cap, "wc_k", p->wc_k, "wc_rank",
                                                p->wc_rank, "depth_lo", p->depth_lo, "depth_hi", p->depth_hi,
                                                "topconst_min_train", p->topconst_min_train, "topconst_nopunct",
                                                p->topconst_nopunct));
    for (int id = 0; id < PRB_NTASKS; id++)
        if (ts->task[id].requested) json_array_append_new(arr, task_json(&ts->task[id]));
    json_object_set_new(o, "tasks", arr);
    return o;
}

/* "corpus-files", or the corpora as given ("ewt" or "ewt,ptb") */
static json_t *source_summary(const struct stg_tasks_build_opts *o, const struct prb_taskset *ts)
{
    if (!o->db) return summary_json(ts, "corpus-files");
    struct sp_buf b = { 0 };
    for (int i = 0; i < o->corpus.n; i++) sp_buf_printf(&b, "%s%s", i ? "," : "", o->corpus.v[i]);
    sp_buf_put(&b, "", 1);
    json_t *j = summary_json(ts, b.p);
    sp_buf_free(&b);
    return j;
}

/* ---- build, store, write ---- */

/* One prb_tasks_build per requested task (each task has its own random stream: the same
 * result as one build of all), so that a stop request is honoured between tasks. */
static int build_tasks(struct stg_ctx *ctx, const struct sentences *x, const struct prb_opts *p,
                       struct stg_tasks_build_result *r)
{
    int total = 0, done = 0;
    for (int id = 0; id < PRB_NTASKS; id++) total += (p->tasks >> id) & 1;
    r->ts.opts = *p;
    r->ts.n_sentences = x->n;
    for (int id = 0; id < PRB_NTASKS; id++) {
        r->ts.task[id].id = (enum prb_task_id)id;
        if (!((p->tasks >> id) & 1)) continue;
        if (stg_stopping(ctx)) return stg_stopped(ctx);
        struct prb_opts one = *p;
        one.tasks = 1u << id;
        int rc = prb_tasks_build(x->s, x->n, &one, &r->part[id], ctx->err, sizeof ctx->err);
        if (rc != SP_OK) return rc == SP_EUSAGE ? rc : SP_EUSAGE;   /* bad task options */
        r->ts.task[id] = r->part[id].task[id];
        r->n_built += r->ts.task[id].built;
        stg_progress(ctx, "tasks", (uint64_t)++done, (uint64_t)total);
    }
    return SP_OK;
}

/* every built task under prefix + task name; all names are checked first so that without
 * --replace nothing is written when one exists */
static int check_names(struct stg_ctx *ctx, struct st_db *db, const struct stg_tasks_build_opts *o,
                       const struct prb_taskset *ts)
{
    for (int id = 0; id < PRB_NTASKS; id++) {
        if (!ts->task[id].built) continue;
        struct sp_buf name = { 0 };   /* whole: the name stored is prefix + task name, however long */
        sp_buf_printf(&name, "%s%s", o->prefix ? o->prefix : "", prb_task_name((enum prb_task_id)id));
        int64_t old = 0;
        int rc = st_task_id(db, name.p, &old, ctx->err, sizeof ctx->err);
        if (rc == SP_OK && old && !o->replace)
            rc = stg_fail(ctx, SP_EEXIST, "task '%s' already exists in the store (use --replace or --prefix)", name.p);
        sp_buf_free(&name);
        if (rc != SP_OK) return rc;
    }
    return SP_OK;
}

static int test_items(const struct prb_task *t)
{
    int n = 0;
    for (int c = 0; c < t->n_classes; c++) n += t->count[c][PRB_TE];
    return n;
}

/* {"TreeDepth": "why", ...}: the requested tasks the build skipped */
static json_t *skipped_json(const struct prb_taskset *ts)
{
    json_t *o = json_object();
    for (int id = 0; id < PRB_NTASKS; id++)
        if (ts->task[id].requested && !ts->task[id].built)
            json_object_set_new(o, prb_task_name((enum prb_task_id)id), json_string(ts->task[id].reason ? ts->task[id].reason : "not built"));
    return o;
}

/* A stored task's params: the build's options (its "partition" among them), the tasks the same
 * build skipped and why ("skipped"), its test items and whether they are too few ("test_items",
 * "small_test": fewer than PRB_SMALL_TEST). */
static char *task_params(json_t *summary, json_t *skipped, const struct prb_task *t)
{
    json_t *p = json_deep_copy(json_object_get(summary, "options"));
    if (json_object_size(skipped)) json_object_set(p, "skipped", skipped);
    int te = test_items(t);
    json_object_set_new(p, "test_items", json_integer(te));
    json_object_set_new(p, "small_test", json_boolean(te < PRB_SMALL_TEST));
    char *text = json_dumps(p, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(p);
    return text;
}

/* every built task, named prefix + task name, in one transaction (st_tasks_put): a stopped or
 * killed build stores all of them or none */
static int store_built(struct stg_ctx *ctx, struct st_db *db, const struct stg_tasks_build_opts *o,
                       const struct sentences *x, struct stg_tasks_build_result *r)
{
    int rc = check_names(ctx, db, o, &r->ts);
    if (rc != SP_OK) return rc;
    json_t *skipped = skipped_json(&r->ts);
    char *params[PRB_NTASKS];
    struct st_task_put put[PRB_NTASKS];
    const char *names[PRB_NTASKS];   /* --prefix + the task's name, whole (a fixed buffer cut long prefixes) */
    int n = 0;
    for (int id = 0; id < PRB_NTASKS; id++) {
        const struct prb_task *t = &r->ts.task[id];
        if (!t->built) continue;
        names[n] = sp_arena_printf(&r->ts.arena, "%s%s", o->prefix ? o->prefix : "", prb_task_name(t->id));
        struct st_task_item *it = sp_xmalloc(sizeof *it * ((size_t)t->n_items + 1));
        for (int i = 0; i < t->n_items; i++) {
            const struct prb_item *p = &t->item[i];
            it[i] = (struct st_task_item){ prb_split_name(p->split), p->label, p->text,
                                           p->sent >= 0 && p->sent < x->n ? x->ids[p->sent] : 0, NULL };
        }
        params[n] = task_params(r->summary, skipped, t);
        put[n] = (struct st_task_put){ { names[n], x->corpus_id, prb_task_name(t->id), 1, (int64_t)r->ts.opts.seed, params[n] },
                                       it, t->n_items };
        n++;
    }
    rc = st_tasks_put(db, put, n, o->replace, ctx->err, sizeof ctx->err);
    if (rc == SP_OK) r->n_stored = n;
    for (int i = 0; i < n; i++) { free((void *)put[i].items); free(params[i]); }
    json_decref(skipped);
    return rc;
}

/* each file replaced only once complete (sp_out) */
static int write_file(struct stg_ctx *ctx, const char *path, const struct prb_task *t, json_t *summary)
{
    struct sp_out f;
    int orc = sp_out_open(&f, path, ctx->err, sizeof ctx->err);
    if (orc) return orc;
    int bad = t ? prb_task_write_senteval(t, f.f) != 0 : json_dumpf(summary, f.f, JSON_INDENT(2) | JSON_SORT_KEYS) != 0;
    if (bad) { sp_out_abort(&f); return stg_fail(ctx, SP_EIO, "%s: write failed", path); }
    return sp_out_commit(&f, ctx->err, sizeof ctx->err) ? SP_EIO : SP_OK;
}

static int write_out(struct stg_ctx *ctx, const char *dir, const struct stg_tasks_build_result *r)
{
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return stg_fail(ctx, SP_EIO, "%s: cannot create directory: %s", dir, strerror(errno));
    char path[4096];
    for (int id = 0; id < PRB_NTASKS; id++) {
        if (!r->ts.task[id].built) continue;
        snprintf(path, sizeof path, "%s/%s", dir, prb_task_file((enum prb_task_id)id));
        int rc = write_file(ctx, path, &r->ts.task[id], NULL);
        if (rc != SP_OK) return rc;
    }
    snprintf(path, sizeof path, "%s/tasks.json", dir);
    return write_file(ctx, path, NULL, r->summary);
}

/* Each skipped task and why (a warning when it was named, else a note; not when the caller lists
 * every task itself), and the built tasks whose test sets are too small, with their sizes (one
 * warning). */
static void say_tasks(struct stg_ctx *ctx, const struct stg_tasks_build_opts *o, const struct prb_taskset *ts)
{
    int named = o->tasks.n > 0;
    for (int i = 0; i < o->tasks.n; i++) named &= strcasecmp(o->tasks.v[i], "all") != 0;
    struct sp_buf small = { 0 };
    for (int id = 0; id < PRB_NTASKS; id++) {
        const struct prb_task *t = &ts->task[id];
        if (!t->requested) continue;
        if (!t->built && !o->listed)
            sp_log(ctx->log, named ? SP_LOG_WARN : SP_LOG_INFO, "task %s skipped: %s", prb_task_name(t->id),
                   t->reason ? t->reason : "not built");
        int te = t->built ? test_items(t) : PRB_SMALL_TEST;
        if (te < PRB_SMALL_TEST) sp_buf_printf(&small, "%s%s %d", small.p ? ", " : "", prb_task_name(t->id), te);
    }
    if (small.p)
        sp_log(ctx->log, SP_LOG_WARN, "test sets too small (below %d items: too few to tell a 10-point difference from "
               "chance; their results carry the too-few-items flag): %s", PRB_SMALL_TEST, small.p);
    sp_buf_free(&small);
}

static int load(struct stg_ctx *ctx, const struct stg_tasks_build_opts *o, struct st_db **db, struct sentences *x,
                struct stg_tasks_build_result *r)
{
    int rc;
    if (o->db) {
        rc = stg_open_store(ctx, o->db, 0, db);
        if (rc == SP_OK) rc = load_corpora(ctx, o, *db, x);
    } else {
        rc = load_files(ctx, o, x, &r->n_rejected);
        if (rc == SP_OK && r->n_rejected)
            sp_log(ctx->log, SP_LOG_WARN, "%d malformed sentences left out", r->n_rejected);
    }
    if (rc == SP_OK && x->n == 0) rc = stg_fail(ctx, SP_EPARSE, "no sentences to build tasks from");
    return rc;
}

int stg_tasks_build(struct stg_ctx *ctx, const struct stg_tasks_build_opts *o, struct stg_tasks_build_result *r)
{
    memset(r, 0, sizeof *r);
    sp_arena_init(&r->ts.arena);
    struct prb_opts p;
    int rc = check_opts(ctx, o, &p);
    if (rc != SP_OK) return rc;
    double t0 = sp_now();
    struct sentences x = { 0 };
    ing_batch_init(&x.b);
    sp_arena_init(&x.a);
    struct st_db *db = NULL;
    rc = load(ctx, o, &db, &x, r);
    if (rc == SP_OK) rc = choose_partition(ctx, o, &x, &p, r);
    if (rc == SP_OK) rc = build_tasks(ctx, &x, &p, r);
    if (rc == SP_OK) {
        r->summary = source_summary(o, &r->ts);
        /* in the options, so that every stored task (and every probe result's manifest) says it */
        json_t *part = json_pack("{s:s, s:s}", "kind", r->resplit ? "resplit" : "official", "text", r->partition);
        if (r->resplit) json_object_set_new(part, "seed", json_integer((json_int_t)p.seed));
        json_object_set_new(json_object_get(r->summary, "options"), "partition", part);
        say_tasks(ctx, o, &r->ts);
    }
    if (rc == SP_OK && stg_stopping(ctx)) rc = stg_stopped(ctx);      /* last point before anything is kept */
    if (rc == SP_OK && db) rc = store_built(ctx, db, o, &x, r);
    if (rc == SP_OK && o->out) rc = write_out(ctx, o->out, r);
    r->seconds = sp_now() - t0;
    if (rc == SP_OK)
        sp_log(ctx->log, SP_LOG_INFO, "tasks build: %d sentences, %d tasks built, %d stored in %.2fs", x.n, r->n_built,
               r->n_stored, r->seconds);
    st_close(db);
    free(x.s);
    free(x.ids);
    free(x.split);
    free(x.doc);
    free(x.official);
    ing_batch_free(&x.b);
    sp_arena_free(&x.a);
    return rc;
}

void stg_tasks_build_result_free(struct stg_tasks_build_result *r)
{
    for (int id = 0; id < PRB_NTASKS; id++) prb_taskset_free(&r->part[id]);
    sp_arena_free(&r->ts.arena);
    json_decref(r->summary);
    r->summary = NULL;
}
