/* cli/cmd_tasks.c — synprobe tasks: build the 10 SentEval probing tasks from treebank files
 * or a store corpus (SPEC-probing §2), and write them as SentEval files.
 *
 *   synprobe tasks build (--corpus-files FILE|DIR... | --db DB --corpus C) [--tasks LIST]
 *                        [--seed N] [--out DIR] [--json] [--prefix P] [--replace] [tuning options]
 *   synprobe tasks import --db DB --name T FILE
 *   synprobe tasks export --db DB --name T [--format senteval] [--out FILE]
 *   synprobe tasks list --db DB
 *
 * The derivation itself is probes/tasks.c (a pure function of sentences + seed); this file only
 * collects sentences, writes one file per built task plus tasks.json (the summary, seed and
 * options included), and prints the summary. With --db the built tasks are also stored (tables
 * task, task_item; store/tasks.h). import/export move SentEval files in and out of the store
 * byte for byte: what the reader keeps beyond the items (BOM, stripped trailing whitespace, a
 * missing final newline) goes into the task's params JSON, middle fields into task_item.extra. */
#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/sp.h"
#include "cli/cli.h"
#include "ingest/senteval.h"
#include "probes/tasks.h"
#include "store/store.h"
#include "store/tasks.h"

static void usage(FILE *f)
{
    fputs("usage: synprobe tasks build (--corpus-files FILE|DIR... | --db DB --corpus NAME)\n"
          "                            [--tasks LIST] [--seed N] [--out DIR] [--json] [options]\n"
          "\n"
          "Derives the SentEval probing tasks (SentLen WC TreeDepth TopConst BShift Tense SubjNum ObjNum\n"
          "SOMO CoordInv) from treebank sentences with the small-corpus rules of SPEC-probing 2: 80/10/10\n"
          "splits, balanced classes, form-disjoint partitions for Tense/SubjNum/ObjNum/SOMO. Tasks the\n"
          "annotation does not allow are skipped with the reason (TreeDepth/TopConst need constituency\n"
          "trees; Tense/SubjNum/ObjNum/CoordInv need trees with function tags or UD relations).\n"
          "  --corpus-files F...  .mrg/.conllu/.dp files or directories (name order); a .dp file's heads\n"
          "                       attach to the .mrg sentences with the same words\n"
          "  --db DB --corpus C   read the sentences of corpus C from a store\n"
          "  --format F           force the format of every file (auto|conllu|ptb|dep)\n"
          "  --tasks LIST         comma-separated task names, or all (default)\n"
          "  --seed N             seed of every random choice (default 1); recorded in tasks.json\n"
          "  --out DIR            write DIR/<senteval file>.txt per built task and DIR/tasks.json\n"
          "  --json               print the summary as JSON on stdout\n"
          "  --min-len N --max-len N   sentence length window (5, 28)\n"
          "  --cap N              per-form cap of the form-disjoint split (20)\n"
          "  --wc-k N --wc-rank N WC: N targets from frequency rank R on (50, 100)\n"
          "  --depth LO-HI        TreeDepth classes (7-10)\n"
          "  --topconst-nopunct   TopConst-nopunct variant\n"
          "  --topconst-min N     TopConst: training items a class needs (30)\n"
          "  --prefix P           with --db: store each built task as P<task name>\n"
          "  --replace            with --db: replace stored tasks of the same name\n"
          "\n"
          "synprobe tasks import --db DB --name T FILE     store a SentEval file as task T\n"
          "synprobe tasks export --db DB --name T [--format senteval] [--out FILE]\n"
          "synprobe tasks list --db DB                     stored tasks: name, kind, items per split\n"
          "Exit: 0 ok (skipped tasks included), 1 bad input, 2 usage.\n", f);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

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
    if (stat(arg, &st) == 0 && S_ISDIR(st.st_mode)) {
        DIR *d = opendir(arg);
        for (struct dirent *e; d && (e = readdir(d));) {
            if (!treebank_name(e->d_name)) continue;
            if (*n == *cap) { *cap = *cap ? 2 * *cap : 64; *list = sp_xrealloc(*list, sizeof **list * (size_t)*cap); }
            size_t len = strlen(arg) + strlen(e->d_name) + 2;
            (*list)[*n] = sp_xmalloc(len);
            snprintf((*list)[(*n)++], len, "%s/%s", arg, e->d_name);
        }
        if (d) closedir(d);
        qsort(*list + start, (size_t)(*n - start), sizeof **list, cmp_str);
        return;
    }
    if (*n == *cap) { *cap = *cap ? 2 * *cap : 64; *list = sp_xrealloc(*list, sizeof **list * (size_t)*cap); }
    (*list)[(*n)++] = sp_xstrdup(arg);
}

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
    json_object_set_new(o, "classes", cls);
    if (t->note) json_object_set_new(o, "note", json_string(t->note));
    return o;
}

static json_t *summary_json(const struct prb_taskset *ts, const char *source)
{
    json_t *o = json_object(), *opts = json_object(), *arr = json_array();
    json_object_set_new(o, "source", json_string(source));
    json_object_set_new(o, "sentences", json_integer(ts->n_sentences));
    json_object_set_new(o, "seed", json_integer((json_int_t)ts->opts.seed));
    json_object_set_new(opts, "min_len", json_integer(ts->opts.min_len));
    json_object_set_new(opts, "max_len", json_integer(ts->opts.max_len));
    json_object_set_new(opts, "cap", json_integer(ts->opts.cap));
    json_object_set_new(opts, "wc_k", json_integer(ts->opts.wc_k));
    json_object_set_new(opts, "wc_rank", json_integer(ts->opts.wc_rank));
    json_object_set_new(opts, "depth_lo", json_integer(ts->opts.depth_lo));
    json_object_set_new(opts, "depth_hi", json_integer(ts->opts.depth_hi));
    json_object_set_new(opts, "topconst_min_train", json_integer(ts->opts.topconst_min_train));
    json_object_set_new(opts, "topconst_nopunct", json_boolean(ts->opts.topconst_nopunct));
    json_object_set_new(o, "options", opts);
    for (int id = 0; id < PRB_NTASKS; id++)
        if (ts->task[id].requested) json_array_append_new(arr, task_json(&ts->task[id]));
    json_object_set_new(o, "tasks", arr);
    return o;
}

static void print_summary(FILE *f, const struct prb_taskset *ts)
{
    fprintf(f, "%d sentences, seed %llu\n", ts->n_sentences, (unsigned long long)ts->opts.seed);
    for (int id = 0; id < PRB_NTASKS; id++) {
        const struct prb_task *t = &ts->task[id];
        if (!t->requested) continue;
        if (!t->built) {
            fprintf(f, "%-9s skipped: %s\n", prb_task_name(id), t->reason ? t->reason : "not built");
            continue;
        }
        int tot[3] = { 0, 0, 0 };
        for (int c = 0; c < t->n_classes; c++)
            for (int s = 0; s < 3; s++) tot[s] += t->count[c][s];
        fprintf(f, "%-9s %d items (tr %d, va %d, te %d) from %d candidates, %d classes\n", prb_task_name(id),
                t->n_items, tot[0], tot[1], tot[2], t->n_candidates, t->n_classes);
        int shown = t->n_classes <= 12 ? t->n_classes : 6;
        for (int c = 0; c < shown; c++)
            fprintf(f, "    %-22s tr %5d  va %4d  te %4d\n", t->cls[c], t->count[c][0], t->count[c][1], t->count[c][2]);
        if (shown < t->n_classes) fprintf(f, "    ... %d more classes\n", t->n_classes - shown);
        if (t->note) fprintf(f, "    note: %s\n", t->note);
    }
}

static int write_out(const char *dir, const struct prb_taskset *ts, json_t *summary, char *err, size_t errlen)
{
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "%s: cannot create directory: %s", dir, strerror(errno));
        return -1;
    }
    char path[4096];
    for (int id = 0; id < PRB_NTASKS; id++) {
        const struct prb_task *t = &ts->task[id];
        if (!t->built) continue;
        snprintf(path, sizeof path, "%s/%s", dir, prb_task_file(id));
        struct sp_out o;          /* each file replaced only once complete */
        if (sp_out_open(&o, path, err, errlen)) return -1;
        if (prb_task_write_senteval(t, o.f) != 0) { sp_out_abort(&o); snprintf(err, errlen, "%s: write failed", path); return -1; }
        if (sp_out_commit(&o, err, errlen)) return -1;
    }
    snprintf(path, sizeof path, "%s/tasks.json", dir);
    struct sp_out o;
    if (sp_out_open(&o, path, err, errlen)) return -1;
    if (json_dumpf(summary, o.f, JSON_INDENT(2) | JSON_SORT_KEYS) != 0) {
        sp_out_abort(&o);
        snprintf(err, errlen, "%s: write failed", path);
        return -1;
    }
    return sp_out_commit(&o, err, errlen) ? -1 : 0;
}

/* sentences of a store corpus, deep-copied (rows are only valid until the next one), with their
 * sentence ids (so stored task items can point back at them) */
static int load_db(struct st_db *db, const char *db_path, const char *corpus, struct sp_arena *a,
                   struct sp_sentence **out, int64_t **ids, int *n, int64_t *cid, char *err, size_t errlen)
{
    int rc = st_corpus_id(db, corpus, 0, cid, err, errlen);
    if (rc == SP_OK && *cid == 0) { snprintf(err, errlen, "%s: no corpus '%s'", db_path, corpus); rc = SP_EPARSE; }
    struct st_iter *it = NULL;
    if (rc == SP_OK) rc = st_iter_open(db, *cid, ST_WANT_CONST, &it, err, errlen);
    int cap = 0;
    *n = 0;
    while (rc == SP_OK) {
        const struct st_row *row;
        int r = st_iter_next(it, &row);
        if (r == 0) break;
        if (r < 0) { snprintf(err, errlen, "%s: %s", db_path, st_iter_error(it)); rc = SP_ESTORE; break; }
        if (*n == cap) {
            cap = cap ? 2 * cap : 1024;
            *out = sp_xrealloc(*out, sizeof **out * (size_t)cap);
            *ids = sp_xrealloc(*ids, sizeof **ids * (size_t)cap);
        }
        (*ids)[*n] = row->sentence_id;
        (*out)[(*n)++] = prb_sentence_copy(a, &row->s);
    }
    if (it) st_iter_close(it);
    return rc;
}

/* store every built task (name = prefix + task name); all names are checked first so that
 * without --replace nothing is written when one exists */
static int store_built(struct st_db *db, int64_t cid, const int64_t *ids, const struct prb_taskset *ts,
                       json_t *options, const char *prefix, int replace, char *err, size_t errlen)
{
    char name[256];
    for (int pass = 0; pass < 2; pass++) {
        for (int id = 0; id < PRB_NTASKS; id++) {
            const struct prb_task *t = &ts->task[id];
            if (!t->built) continue;
            snprintf(name, sizeof name, "%s%s", prefix ? prefix : "", prb_task_name(id));
            if (pass == 0) {
                int64_t old = 0;
                int rc = st_task_id(db, name, &old, err, errlen);
                if (rc != SP_OK) return rc;
                if (old && !replace) {
                    snprintf(err, errlen, "task '%s' already exists in the store (use --replace or --prefix)", name);
                    return SP_EEXIST;
                }
                continue;
            }
            struct st_task_item *it = sp_xmalloc(sizeof *it * ((size_t)t->n_items + 1));
            for (int i = 0; i < t->n_items; i++) {
                const struct prb_item *p = &t->item[i];
                it[i] = (struct st_task_item){ prb_split_name(p->split), p->label, p->text,
                                               p->sent >= 0 && p->sent < ts->n_sentences ? ids[p->sent] : 0, NULL };
            }
            char *params = json_dumps(options, JSON_COMPACT | JSON_SORT_KEYS);
            struct st_task_info info = { name, cid, prb_task_name(id), 1, (int64_t)ts->opts.seed, params };
            int rc = st_task_put(db, &info, it, t->n_items, replace, err, errlen);
            free(params);
            free(it);
            if (rc != SP_OK) return rc;
        }
    }
    return SP_OK;
}

static int opt_int(const char *cmd, const char *name, const char *v, long lo, long hi, long *out)
{
    if (!v || sp_parse_int(v, lo, hi, out) != 0) {
        cli_fail(SP_EXIT_USAGE, cmd, "%s expects an integer in %ld..%ld", name, lo, hi);
        return -1;
    }
    return 0;
}

static int cmd_build(int argc, char **argv)
{
    const char *cmd = "tasks build";
    struct prb_opts o;
    prb_opts_default(&o);
    const char *out_dir = NULL, *db = NULL, *corpus = NULL, *tasks = NULL, *prefix = NULL;
    int json = 0, nfiles = 0, capf = 0, replace = 0;
    char **files = NULL;
    enum sp_format fmt = SP_FMT_AUTO;
    char err[SP_ERRLEN];
    long v;
    int rc = SP_EXIT_USAGE;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
#define NEED_VAL() do { if (!val) { cli_fail(SP_EXIT_USAGE, cmd, "%s needs a value", a); goto done; } i++; } while (0)
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) { usage(stdout); rc = SP_EXIT_OK; goto done; }
        else if (!strcmp(a, "--corpus-files")) {
            while (i + 1 < argc && strncmp(argv[i + 1], "--", 2) != 0) add_path(argv[++i], &files, &nfiles, &capf);
        }
        else if (!strcmp(a, "--db")) { NEED_VAL(); db = val; }
        else if (!strcmp(a, "--corpus")) { NEED_VAL(); corpus = val; }
        else if (!strcmp(a, "--out")) { NEED_VAL(); out_dir = val; }
        else if (!strcmp(a, "--tasks")) { NEED_VAL(); tasks = val; }
        else if (!strcmp(a, "--json")) json = 1;
        else if (!strcmp(a, "--replace")) replace = 1;
        else if (!strcmp(a, "--prefix")) { NEED_VAL(); prefix = val; }
        else if (!strcmp(a, "--topconst-nopunct")) o.topconst_nopunct = 1;
        else if (!strcmp(a, "--format")) {
            NEED_VAL();
            if (ing_format_parse(val, &fmt) != 0) { cli_fail(SP_EXIT_USAGE, cmd, "unknown format '%s'", val); goto done; }
        }
        else if (!strcmp(a, "--seed")) {
            NEED_VAL();
            char *end;
            errno = 0;
            unsigned long long s = strtoull(val, &end, 10);
            if (!isdigit((unsigned char)val[0]) || *end || errno) { cli_fail(SP_EXIT_USAGE, cmd, "--seed expects a non-negative integer"); goto done; }
            o.seed = s;
        }
        else if (!strcmp(a, "--min-len")) { NEED_VAL(); if (opt_int(cmd, a, val, 1, 100000, &v)) goto done; o.min_len = (int)v; }
        else if (!strcmp(a, "--max-len")) { NEED_VAL(); if (opt_int(cmd, a, val, 1, 100000, &v)) goto done; o.max_len = (int)v; }
        else if (!strcmp(a, "--cap")) { NEED_VAL(); if (opt_int(cmd, a, val, 1, 1000000, &v)) goto done; o.cap = (int)v; }
        else if (!strcmp(a, "--wc-k")) { NEED_VAL(); if (opt_int(cmd, a, val, 2, 100000, &v)) goto done; o.wc_k = (int)v; }
        else if (!strcmp(a, "--wc-rank")) { NEED_VAL(); if (opt_int(cmd, a, val, 0, 10000000, &v)) goto done; o.wc_rank = (int)v; }
        else if (!strcmp(a, "--topconst-min")) { NEED_VAL(); if (opt_int(cmd, a, val, 1, 1000000, &v)) goto done; o.topconst_min_train = (int)v; }
        else if (!strcmp(a, "--depth")) {
            NEED_VAL();
            int lo, hi;
            char tail;
            if (sscanf(val, "%d-%d%c", &lo, &hi, &tail) != 2 || lo < 1 || hi <= lo || hi > 1000) {
                cli_fail(SP_EXIT_USAGE, cmd, "--depth expects LO-HI, e.g. 7-10");
                goto done;
            }
            o.depth_lo = lo; o.depth_hi = hi;
        }
        else { cli_fail(SP_EXIT_USAGE, cmd, "unknown argument '%s'", a); usage(stderr); goto done; }
#undef NEED_VAL
    }
    if ((nfiles > 0) == (db != NULL)) {
        cli_fail(SP_EXIT_USAGE, cmd, "give either --corpus-files FILE... or --db DB --corpus NAME");
        goto done;
    }
    if (db && !corpus) { cli_fail(SP_EXIT_USAGE, cmd, "--db needs --corpus NAME"); goto done; }
    if (o.max_len < o.min_len) { cli_fail(SP_EXIT_USAGE, cmd, "--max-len is below --min-len"); goto done; }
    if (tasks && prb_task_parse_list(tasks, &o.tasks, err, sizeof err) != 0) { cli_fail(SP_EXIT_USAGE, cmd, "%s", err); goto done; }

    struct ing_batch b;
    ing_batch_init(&b);
    struct sp_arena dba;
    sp_arena_init(&dba);
    struct sp_sentence *s = NULL;
    int64_t *ids = NULL, cid = 0;
    struct st_db *sdb = NULL;
    int n = 0, rejected = 0;
    rc = SP_EXIT_INPUT;
    if (db) {
        if (st_open(db, 0, &sdb, err, sizeof err) != SP_OK ||
            load_db(sdb, db, corpus, &dba, &s, &ids, &n, &cid, err, sizeof err) != SP_OK) {
            cli_fail(SP_EXIT_INPUT, cmd, "%s", err);
            goto free_all;
        }
    } else {
        for (int k = 0; k < nfiles; k++) {
            int from = b.n_items;
            if (prb_load_file(files[k], fmt, &b, &rejected, err, sizeof err) != SP_OK) {
                cli_fail(SP_EXIT_INPUT, cmd, "%s", err);
                goto free_all;
            }
            if (from > 0) prb_merge_heads(&b, from);
        }
        s = sp_xmalloc(sizeof *s * ((size_t)b.n_items + 1));
        for (int i = 0; i < b.n_items; i++)
            if (!b.item[i].error) s[n++] = b.item[i].s;
        if (rejected) fprintf(stderr, "synprobe %s: %d malformed sentences left out\n", cmd, rejected);
    }
    if (n == 0) { cli_fail(SP_EXIT_INPUT, cmd, "no sentences to build tasks from"); goto free_all; }

    struct prb_taskset ts;
    if (prb_tasks_build(s, n, &o, &ts, err, sizeof err) != SP_OK) {
        prb_taskset_free(&ts);
        rc = cli_fail(SP_EXIT_USAGE, cmd, "%s", err);
        goto free_all;
    }
    json_t *sum = summary_json(&ts, db ? corpus : "corpus-files");
    if (sdb && store_built(sdb, cid, ids, &ts, json_object_get(sum, "options"), prefix, replace,
                           err, sizeof err) != SP_OK) {
        cli_fail(SP_EXIT_INPUT, cmd, "%s", err);
    } else if (out_dir && write_out(out_dir, &ts, sum, err, sizeof err) != 0) {
        cli_fail(SP_EXIT_INPUT, cmd, "%s", err);
    } else {
        if (json) {
            char *txt = json_dumps(sum, JSON_INDENT(2) | JSON_SORT_KEYS);
            puts(txt);
            free(txt);
        } else {
            print_summary(stdout, &ts);
        }
        rc = SP_EXIT_OK;
    }
    json_decref(sum);
    prb_taskset_free(&ts);
free_all:
    if (sdb) st_close(sdb);
    free(ids);
    free(s);
    ing_batch_free(&b);
    sp_arena_free(&dba);
done:
    for (int k = 0; k < nfiles; k++) free(files[k]);
    free(files);
    return rc;
}

/* ---- import / export / list ---- */

/* --db DB --name T and the rest: the shared argument loop of import, export and list */
struct io_args { const char *db, *name, *out, *file; int ok; };

static struct io_args io_parse(const char *cmd, int argc, char **argv, int want_file, int want_name)
{
    struct io_args a = { 0 };
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(o, "--db") || !strcmp(o, "--name") || !strcmp(o, "--out") || !strcmp(o, "--format")) {
            if (!val) { cli_fail(SP_EXIT_USAGE, cmd, "%s needs a value", o); return a; }
            i++;
            if (!strcmp(o, "--db")) a.db = val;
            else if (!strcmp(o, "--name")) a.name = val;
            else if (!strcmp(o, "--out") && !want_file && want_name) a.out = val;
            else if (!strcmp(o, "--format") && !want_file && want_name) {
                if (strcmp(val, "senteval") != 0) { cli_fail(SP_EXIT_USAGE, cmd, "unknown format '%s' (senteval)", val); return a; }
            } else { cli_fail(SP_EXIT_USAGE, cmd, "unknown argument '%s'", o); return a; }
        } else if (want_file && !a.file && strncmp(o, "--", 2) != 0) {
            a.file = o;
        } else {
            cli_fail(SP_EXIT_USAGE, cmd, "unknown argument '%s'", o);
            return a;
        }
    }
    if (!a.db) { cli_fail(SP_EXIT_USAGE, cmd, "--db DB is required"); return a; }
    if (want_name && !a.name) { cli_fail(SP_EXIT_USAGE, cmd, "--name T is required"); return a; }
    if (want_file && !a.file) { cli_fail(SP_EXIT_USAGE, cmd, "a SentEval FILE is required"); return a; }
    a.ok = 1;
    return a;
}

static int read_all(const char *path, char **buf, size_t *len, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) { snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno)); return SP_EIO; }
    size_t cap = 1 << 16;
    *buf = sp_xmalloc(cap);
    *len = 0;
    for (size_t r; (r = fread(*buf + *len, 1, cap - *len, f)) > 0;) {
        *len += r;
        if (*len == cap) { cap *= 2; *buf = sp_xrealloc(*buf, cap); }
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) { snprintf(err, errlen, "%s: read error", path); return SP_EIO; }
    return SP_OK;
}

static int tasks_import(int argc, char **argv)
{
    const char *cmd = "tasks import";
    struct io_args a = io_parse(cmd, argc, argv, 1, 1);
    if (!a.ok) return SP_EXIT_USAGE;
    char err[SP_ERRLEN], hex[65];
    char *buf = NULL;
    size_t len = 0;
    struct ing_senteval_file f;
    ing_senteval_init(&f);
    struct st_db *db = NULL;
    int rc = SP_EXIT_INPUT;
    if (read_all(a.file, &buf, &len, err, sizeof err) != SP_OK ||
        ing_senteval_parse(a.file, buf, len, &f, err, sizeof err) != SP_OK) {
        cli_fail(SP_EXIT_INPUT, cmd, "%s", err);
        goto done;
    }
    struct sp_sha256 sh;
    sp_sha256_init(&sh);
    sp_sha256_update(&sh, buf, len);
    sp_sha256_hex(&sh, hex);
    /* what the items do not carry, so that export gives the same bytes */
    json_t *params = json_object(), *trails = json_object();
    json_object_set_new(params, "source", json_string(a.file));
    json_object_set_new(params, "sha256", json_string(hex));
    if (f.bom) json_object_set_new(params, "bom", json_true());
    if (f.no_final_newline) json_object_set_new(params, "no_final_newline", json_true());
    struct st_task_item *it = sp_xmalloc(sizeof *it * ((size_t)f.n + 1));
    for (int i = 0; i < f.n; i++) {
        const struct ing_senteval_item *x = &f.item[i];
        it[i] = (struct st_task_item){ ing_part_tag(x->part), x->label, x->sentence, 0, x->middle };
        if (x->trail && *x->trail) {
            char key[24];
            snprintf(key, sizeof key, "%d", i + 1);
            json_object_set_new(trails, key, json_string(x->trail));
        }
    }
    if (json_object_size(trails)) json_object_set(params, "trail", trails);
    json_decref(trails);
    char *ptxt = json_dumps(params, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(params);
    struct st_task_info info = { a.name, 0, "imported", 0, 0, ptxt };
    if (st_open(a.db, ST_OPEN_CREATE, &db, err, sizeof err) != SP_OK ||
        st_task_put(db, &info, it, f.n, 0, err, sizeof err) != SP_OK) {
        cli_fail(SP_EXIT_INPUT, cmd, "%s", err);
    } else {
        printf("%s: %d items from %s\n", a.name, f.n, a.file);
        rc = SP_EXIT_OK;
    }
    free(ptxt);
    free(it);
done:
    if (db) st_close(db);
    ing_senteval_free(&f);
    free(buf);
    return rc;
}

struct export_ctx { struct ing_senteval_file *f; json_t *trail; int k; };

static int export_item(void *vctx, const struct st_task_item *it)
{
    struct export_ctx *c = vctx;
    c->k++;
    enum ing_part p = !strcmp(it->split, "tr") ? ING_PART_TRAIN : !strcmp(it->split, "va") ? ING_PART_DEV : ING_PART_TEST;
    ing_senteval_add(c->f, p, it->label, it->text);
    struct ing_senteval_item *x = &c->f->item[c->f->n - 1];
    if (it->extra) x->middle = sp_arena_strdup(&c->f->arena, it->extra);
    char key[24];
    snprintf(key, sizeof key, "%d", c->k);
    const char *t = c->trail ? json_string_value(json_object_get(c->trail, key)) : NULL;
    if (t) x->trail = sp_arena_strdup(&c->f->arena, t);
    return 0;
}

static int tasks_export(int argc, char **argv)
{
    const char *cmd = "tasks export";
    struct io_args a = io_parse(cmd, argc, argv, 0, 1);
    if (!a.ok) return SP_EXIT_USAGE;
    char err[SP_ERRLEN];
    struct st_db *db = NULL;
    struct ing_senteval_file f;
    ing_senteval_init(&f);
    char *ptxt = NULL;
    json_t *params = NULL;
    int rc = SP_EXIT_INPUT;
    /* params first (for the per-line trailing whitespace), then the items */
    if (st_open(a.db, ST_OPEN_READONLY, &db, err, sizeof err) != SP_OK ||
        st_task_items(db, a.name, &ptxt, NULL, NULL, err, sizeof err) != SP_OK) {
        cli_fail(SP_EXIT_INPUT, cmd, "%s", err);
        goto done;
    }
    params = json_loads(ptxt, 0, NULL);
    struct export_ctx c = { &f, params ? json_object_get(params, "trail") : NULL, 0 };
    if (st_task_items(db, a.name, NULL, export_item, &c, err, sizeof err) != SP_OK) {
        cli_fail(SP_EXIT_INPUT, cmd, "%s", err);
        goto done;
    }
    f.bom = params && json_is_true(json_object_get(params, "bom"));
    f.no_final_newline = params && json_is_true(json_object_get(params, "no_final_newline"));
    if (a.out) {
        if (ing_senteval_write(a.out, &f, err, sizeof err) != SP_OK) { cli_fail(SP_EXIT_INPUT, cmd, "%s", err); goto done; }
    } else if (ing_senteval_write_fp(stdout, &f) != 0 || fflush(stdout) != 0) {
        cli_fail(SP_EXIT_INPUT, cmd, "write error on stdout");
        goto done;
    }
    rc = SP_EXIT_OK;
done:
    json_decref(params);
    free(ptxt);
    ing_senteval_free(&f);
    if (db) st_close(db);
    return rc;
}

static int tasks_list(int argc, char **argv)
{
    const char *cmd = "tasks list";
    struct io_args a = io_parse(cmd, argc, argv, 0, 0);
    if (!a.ok) return SP_EXIT_USAGE;
    char err[SP_ERRLEN];
    struct st_db *db = NULL;
    if (st_open(a.db, ST_OPEN_READONLY, &db, err, sizeof err) != SP_OK) return cli_fail(SP_EXIT_INPUT, cmd, "%s", err);
    sqlite3_stmt *q = NULL;
    int rc = SP_EXIT_OK;
    if (sqlite3_prepare_v2(st_handle(db),
            "SELECT t.name, t.kind,"
            " (SELECT count(*) FROM task_item i WHERE i.task_id = t.task_id AND i.split = 'tr'),"
            " (SELECT count(*) FROM task_item i WHERE i.task_id = t.task_id AND i.split = 'va'),"
            " (SELECT count(*) FROM task_item i WHERE i.task_id = t.task_id AND i.split = 'te')"
            " FROM task t ORDER BY t.name", -1, &q, NULL) != SQLITE_OK) {
        rc = cli_fail(SP_EXIT_INPUT, cmd, "%s: %s", a.db, sqlite3_errmsg(st_handle(db)));
    } else {
        printf("%-24s %-12s %7s %6s %6s\n", "name", "kind", "tr", "va", "te");
        int r;
        while ((r = sqlite3_step(q)) == SQLITE_ROW)
            printf("%-24s %-12s %7lld %6lld %6lld\n", (const char *)sqlite3_column_text(q, 0),
                   (const char *)sqlite3_column_text(q, 1), (long long)sqlite3_column_int64(q, 2),
                   (long long)sqlite3_column_int64(q, 3), (long long)sqlite3_column_int64(q, 4));
        if (r != SQLITE_DONE) rc = cli_fail(SP_EXIT_INPUT, cmd, "%s: %s", a.db, sqlite3_errmsg(st_handle(db)));
    }
    sqlite3_finalize(q);
    st_close(db);
    return rc;
}

int cmd_tasks(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage(argc < 2 ? stderr : stdout);
        fputs("\nsubcommands: build, import, export, list\n", argc < 2 ? stderr : stdout);
        return argc < 2 ? SP_EXIT_USAGE : SP_EXIT_OK;
    }
    if (!strcmp(argv[1], "build")) return cmd_build(argc - 1, argv + 1);
    if (!strcmp(argv[1], "import")) return tasks_import(argc - 1, argv + 1);
    if (!strcmp(argv[1], "export")) return tasks_export(argc - 1, argv + 1);
    if (!strcmp(argv[1], "list")) return tasks_list(argc - 1, argv + 1);
    return cli_fail(SP_EXIT_USAGE, "tasks", "unknown subcommand '%s' (expected build, import, export or list)", argv[1]);
}
