/* daemon/step_ingest.c — the step kind "ingest": a job's "corpora" entries (daemon/step.h). A corpus
 * entry names a corpus and its paths; a folder of UD-named files becomes its files, and one ingest
 * step is made per run of consecutive files with the same UD split. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "common/guard.h"
#include "daemon/job_int.h"
#include "stages/ingest.h"
#include "stages/splits.h"

static int cmp_path(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* A folder that holds UD-named files (*-ud-train|dev|test.conllu) becomes its treebank files, in
 * name order as ingest lists a folder, appended to *v, so that each file records the split its name
 * gives (a folder is one input of one ingest step, which records one split); 0 for anything else. */
static int ud_folder(struct dmn_parse *P, const char *path, const char *where, const char ***v, int *n)
{
    struct stat st;
    DIR *d = stat(path, &st) == 0 && S_ISDIR(st.st_mode) ? opendir(path) : NULL;
    if (!d) return 0;
    const char **names = NULL;
    int m = 0, ud = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (!stg_ingest_is_treebank_name(e->d_name)) continue;
        dmn_jp_push_name(&names, &m, sp_arena_printf(&P->job->arena, "%s/%s", path, e->d_name));
        ud |= stg_ud_split(e->d_name) != NULL;
    }
    closedir(d);
    if (ud) {
        qsort(names, (size_t)m, sizeof *names, cmp_path);
        for (int k = 0; k < m; k++) dmn_jp_push_name(v, n, names[k]);
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
static int corpus_entry(struct dmn_parse *P, json_t *e, const char *where)
{
    const char *name;
    json_t *c = dmn_jp_entry(P, e, where);
    if (!c) return SP_EUSAGE;
    int rc = dmn_jp_want_string(P, c, "name", where, 1, &name);
    json_t *paths = json_incref(json_object_get(c, "paths"));
    json_object_del(c, "paths");
    /* a corpus may come in several entries, each with its "split" (train files here, test files
     * there); otherwise a name given twice is a slip */
    int known = rc ? -1 : dmn_jp_find_name(P->corpora, P->n_corpora, name);
    if (known >= 0 && (!json_object_get(c, "split") || !P->corpus_split_given[known]))
        rc = dmn_jp_fail(P, "%s.name: corpus '%s' is named twice (entries that ingest parts of one corpus each give its "
                  "\"split\")", where, name);
    if (!rc && (!json_is_array(paths) || !json_array_size(paths)))
        rc = dmn_jp_fail(P, "%s.paths: expected a non-empty array of file or folder names", where);
    int first = P->job->n_steps, given_split = json_object_get(c, "split") != NULL;
    if (!rc) {
        struct dmn_step *s = dmn_jp_new_step(P, DMN_INGEST, where);
        *DMN_FIELD(s, const char *, "corpus") = name;
        rc = dmn_jp_fill(P, s, c, where, NULL);
    }
    size_t i;
    json_t *p;
    const char **flat = NULL;   /* the paths, a folder of UD-named files expanded into them */
    int nflat = 0;
    json_array_foreach(paths, i, p) {
        if (rc) break;
        if (!json_is_string(p)) { rc = dmn_jp_fail(P, "%s.paths[%zu]: expected a string", where, i); break; }
        const char *path = dmn_jp_resolve(P, P->job->dir, json_string_value(p));
        if (access(path, F_OK)) { rc = dmn_jp_fail(P, "%s.paths[%zu]: %s: no such file or folder", where, i, path); break; }
        if (given_split || !ud_folder(P, path, where, &flat, &nflat)) dmn_jp_push_name(&flat, &nflat, path);
    }
    const char *cur = NULL;
    for (int k = 0; !rc && k < nflat; k++) {
        const char *path = flat[k];
        const char *split = given_split ? NULL : stg_ud_split(path);
        struct dmn_step *s = &P->job->steps[P->job->n_steps - 1];
        if (k > 0 && !given_split && (split ? !cur || strcmp(split, cur) : cur != NULL)) {
            s = dmn_jp_dup_step(P, first);
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
        if (known < 0) dmn_jp_push_name(&P->corpora, &P->n_corpora, name);
    }
    json_decref(paths);
    json_decref(c);
    return rc;
}

static int run_ingest(const struct dmn_run_opts *ro, const struct dmn_step *s, struct dmn_step_out *so)
{
    struct stg_ingest_result r;
    int rc = stg_ingest(ro->ctx, s->opts, &r);
    if (rc == SP_OK) {
        /* what the reader left out: its messages are the stages' lines, which only --verbose shows */
        struct sp_buf b = { 0 };
        sp_buf_printf(&b, "%d files (%d unchanged), %ld sentences added", r.n_files, r.n_unchanged, r.sentences);
        if (r.rejected) sp_buf_printf(&b, ", %ld rejected (see the quarantine table)", r.rejected);
        if (r.skipped_lines) sp_buf_printf(&b, ", %ld comment line%s without a sentence skipped", r.skipped_lines,
                                           r.skipped_lines == 1 ? "" : "s");
        snprintf(so->summary, sizeof so->summary, "%s", b.p);
        sp_buf_free(&b);
        so->nowork = r.n_unchanged == r.n_files;
    } else if (r.n_files && r.files[r.n_files - 1].error[0]) {
        snprintf(ro->ctx->err, sizeof ro->ctx->err, "%s", r.files[r.n_files - 1].error);
    }
    stg_ingest_result_free(&r);
    return rc;
}

static int check_ingest(struct stg_ctx *ctx, const void *opts) { return stg_ingest_check(ctx, opts); }

static void what_ingest(json_t *o, struct sp_buf *b)
{
    struct sp_buf t = { 0 };
    const char *corpus = dmn_step_opt_text(o, "corpus", &t);
    if (corpus) sp_buf_printf(b, " %s", corpus);
    sp_buf_free(&t);
}

/* every shard ingests every file and keeps its part of the sentences */
static int shard_ingest(void *opts, int k, int n)
{
    struct stg_ingest_opts *o = opts;
    o->shard_k = k;
    o->shard_n = n;
    return 1;
}

/* its "inputs" are the entry's "paths" */
static void protect_ingest(struct sp_guard *g, const struct dmn_step *s)
{
    const struct stg_ingest_opts *o = s->opts;
    char label[96];
    snprintf(label, sizeof label, "input %s.paths", s->where);
    for (int k = 0; k < o->inputs.n; k++) sp_guard_protect(g, o->inputs.v[k], label);
}

const struct dmn_step_def dmn_step_ingest = {
    .words = "ingest", .section = "corpora", .table = stg_ingest_options, .size = sizeof(struct stg_ingest_opts),
    .entry = corpus_entry, .check = check_ingest, .run = run_ingest, .what = what_ingest, .shard = shard_ingest,
    .protect = protect_ingest, .flags = DMN_STEP_SENTENCES,
};
