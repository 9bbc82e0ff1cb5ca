/* daemon/cmd_tasks.c — synprobe tasks: build the 10 SentEval probing tasks from treebank files
 * or a store corpus (SPEC-probing §2), and write them as SentEval files.
 *
 *   synprobe tasks build (--corpus-files FILE|DIR... | --db DB --corpus C) [--tasks LIST]
 *                        [--seed N] [--out DIR] [--json] [tuning options]
 *
 * The derivation itself is probes/tasks.c (a pure function of sentences + seed); this file only
 * collects sentences, writes one file per built task plus tasks.json (the summary, seed and
 * options included), and prints the summary. */
#include <errno.h>
#include <jansson.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/sp.h"
#include "daemon/cli.h"
#include "probes/tasks.h"
#include "store/store.h"

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
        FILE *f = fopen(path, "wb");
        if (!f) { snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno)); return -1; }
        int rc = prb_task_write_senteval(t, f);
        if (fclose(f) != 0 || rc != 0) { snprintf(err, errlen, "%s: write failed", path); return -1; }
    }
    snprintf(path, sizeof path, "%s/tasks.json", dir);
    if (json_dump_file(summary, path, JSON_INDENT(2) | JSON_SORT_KEYS) != 0) {
        snprintf(err, errlen, "%s: write failed", path);
        return -1;
    }
    return 0;
}

/* sentences of a store corpus, deep-copied (rows are only valid until the next one) */
static int load_db(const char *db_path, const char *corpus, struct sp_arena *a, struct sp_sentence **out,
                   int *n, char *err, size_t errlen)
{
    struct st_db *db = NULL;
    int rc = st_open(db_path, ST_OPEN_READONLY, &db, err, errlen);
    if (rc != SP_OK) return rc;
    int64_t cid = 0;
    rc = st_corpus_id(db, corpus, 0, &cid, err, errlen);
    if (rc == SP_OK && cid == 0) { snprintf(err, errlen, "%s: no corpus '%s'", db_path, corpus); rc = SP_EPARSE; }
    struct st_iter *it = NULL;
    if (rc == SP_OK) rc = st_iter_open(db, cid, ST_WANT_CONST, &it, err, errlen);
    int cap = 0;
    *n = 0;
    while (rc == SP_OK) {
        const struct st_row *row;
        int r = st_iter_next(it, &row);
        if (r == 0) break;
        if (r < 0) { snprintf(err, errlen, "%s: %s", db_path, st_iter_error(it)); rc = SP_ESTORE; break; }
        if (*n == cap) { cap = cap ? 2 * cap : 1024; *out = sp_xrealloc(*out, sizeof **out * (size_t)cap); }
        (*out)[(*n)++] = prb_sentence_copy(a, &row->s);
    }
    if (it) st_iter_close(it);
    st_close(db);
    return rc;
}

static int opt_int(const char *cmd, const char *name, const char *v, long lo, long hi, long *out)
{
    if (!v || sp_parse_int(v, lo, hi, out) != 0) {
        sp_fail(SP_EXIT_USAGE, cmd, "%s expects an integer in %ld..%ld", name, lo, hi);
        return -1;
    }
    return 0;
}

static int cmd_build(int argc, char **argv)
{
    const char *cmd = "tasks build";
    struct prb_opts o;
    prb_opts_default(&o);
    const char *out_dir = NULL, *db = NULL, *corpus = NULL, *tasks = NULL;
    int json = 0, nfiles = 0, capf = 0;
    char **files = NULL;
    enum sp_format fmt = SP_FMT_AUTO;
    char err[SP_ERRLEN];
    long v;
    int rc = SP_EXIT_USAGE;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
#define NEED_VAL() do { if (!val) { sp_fail(SP_EXIT_USAGE, cmd, "%s needs a value", a); goto done; } i++; } while (0)
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) { usage(stdout); rc = SP_EXIT_OK; goto done; }
        else if (!strcmp(a, "--corpus-files")) {
            while (i + 1 < argc && strncmp(argv[i + 1], "--", 2) != 0) add_path(argv[++i], &files, &nfiles, &capf);
        }
        else if (!strcmp(a, "--db")) { NEED_VAL(); db = val; }
        else if (!strcmp(a, "--corpus")) { NEED_VAL(); corpus = val; }
        else if (!strcmp(a, "--out")) { NEED_VAL(); out_dir = val; }
        else if (!strcmp(a, "--tasks")) { NEED_VAL(); tasks = val; }
        else if (!strcmp(a, "--json")) json = 1;
        else if (!strcmp(a, "--topconst-nopunct")) o.topconst_nopunct = 1;
        else if (!strcmp(a, "--format")) {
            NEED_VAL();
            if (ing_format_parse(val, &fmt) != 0) { sp_fail(SP_EXIT_USAGE, cmd, "unknown format '%s'", val); goto done; }
        }
        else if (!strcmp(a, "--seed")) {
            NEED_VAL();
            char *end;
            errno = 0;
            unsigned long long s = strtoull(val, &end, 10);
            if (!*val || *end || errno || val[0] == '-') { sp_fail(SP_EXIT_USAGE, cmd, "--seed expects a non-negative integer"); goto done; }
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
                sp_fail(SP_EXIT_USAGE, cmd, "--depth expects LO-HI, e.g. 7-10");
                goto done;
            }
            o.depth_lo = lo; o.depth_hi = hi;
        }
        else { sp_fail(SP_EXIT_USAGE, cmd, "unknown argument '%s'", a); usage(stderr); goto done; }
#undef NEED_VAL
    }
    if ((nfiles > 0) == (db != NULL)) {
        sp_fail(SP_EXIT_USAGE, cmd, "give either --corpus-files FILE... or --db DB --corpus NAME");
        goto done;
    }
    if (db && !corpus) { sp_fail(SP_EXIT_USAGE, cmd, "--db needs --corpus NAME"); goto done; }
    if (o.max_len < o.min_len) { sp_fail(SP_EXIT_USAGE, cmd, "--max-len is below --min-len"); goto done; }
    if (tasks && prb_task_parse_list(tasks, &o.tasks, err, sizeof err) != 0) { sp_fail(SP_EXIT_USAGE, cmd, "%s", err); goto done; }

    struct ing_batch b;
    ing_batch_init(&b);
    struct sp_arena dba;
    sp_arena_init(&dba);
    struct sp_sentence *s = NULL;
    int n = 0, rejected = 0;
    rc = SP_EXIT_INPUT;
    if (db) {
        if (load_db(db, corpus, &dba, &s, &n, err, sizeof err) != SP_OK) { sp_fail(SP_EXIT_INPUT, cmd, "%s", err); goto free_all; }
    } else {
        for (int k = 0; k < nfiles; k++) {
            int from = b.n_items;
            if (prb_load_file(files[k], fmt, &b, &rejected, err, sizeof err) != SP_OK) {
                sp_fail(SP_EXIT_INPUT, cmd, "%s", err);
                goto free_all;
            }
            if (from > 0) prb_merge_heads(&b, from);
        }
        s = sp_xmalloc(sizeof *s * ((size_t)b.n_items + 1));
        for (int i = 0; i < b.n_items; i++)
            if (!b.item[i].error) s[n++] = b.item[i].s;
        if (rejected) fprintf(stderr, "synprobe %s: %d malformed sentences left out\n", cmd, rejected);
    }
    if (n == 0) { sp_fail(SP_EXIT_INPUT, cmd, "no sentences to build tasks from"); goto free_all; }

    struct prb_taskset ts;
    if (prb_tasks_build(s, n, &o, &ts, err, sizeof err) != SP_OK) {
        prb_taskset_free(&ts);
        rc = sp_fail(SP_EXIT_USAGE, cmd, "%s", err);
        goto free_all;
    }
    json_t *sum = summary_json(&ts, db ? corpus : "corpus-files");
    if (out_dir && write_out(out_dir, &ts, sum, err, sizeof err) != 0) {
        sp_fail(SP_EXIT_INPUT, cmd, "%s", err);
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
    free(s);
    ing_batch_free(&b);
    sp_arena_free(&dba);
done:
    for (int k = 0; k < nfiles; k++) free(files[k]);
    free(files);
    return rc;
}

int cmd_tasks(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage(argc < 2 ? stderr : stdout);
        fputs("\nsubcommands: build; import and export wait for the store's task tables\n", argc < 2 ? stderr : stdout);
        return argc < 2 ? SP_EXIT_USAGE : SP_EXIT_OK;
    }
    if (!strcmp(argv[1], "build")) return cmd_build(argc - 1, argv + 1);
    if (!strcmp(argv[1], "import") || !strcmp(argv[1], "export"))
        return sp_fail(SP_EXIT_USAGE, "tasks", "'%s' is not available yet: the store has no task tables", argv[1]);
    return sp_fail(SP_EXIT_USAGE, "tasks", "unknown subcommand '%s' (expected build, import or export)", argv[1]);
}
