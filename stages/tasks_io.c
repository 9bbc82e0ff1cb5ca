/* stages/tasks_io.c — SentEval files into and out of the store, and the stored tasks' list
 * (stages/tasks.h). A file imported and exported again is the same bytes: what the items do not
 * carry goes into the task's params JSON. */
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "common/sp.h"
#include "ingest/senteval_file.h"
#include "stages/names.h"
#include "stages/tasks.h"
#include "store/store.h"

const struct sp_opt stg_tasks_import_options[] = {
#define O(f) offsetof(struct stg_tasks_import_opts, f)
    { "db", SP_OPT_PATH, O(db), .metavar = "DB", .help = "the store (created if missing)", .flags = SP_OPTF_REQUIRED },
    { "name", SP_OPT_STR, O(name), .metavar = "T", .help = "the stored task's name", .flags = SP_OPTF_REQUIRED },
    { "file", SP_OPT_PATH, O(file), .metavar = "FILE", .help = "the SentEval file (also given as the operand)" },
#undef O
    { 0 },
};

const struct sp_opt stg_tasks_export_options[] = {
#define O(f) offsetof(struct stg_tasks_export_opts, f)
    { "db", SP_OPT_PATH, O(db), .metavar = "DB", .help = "the store", .flags = SP_OPTF_REQUIRED },
    { "name", SP_OPT_STR, O(name), .metavar = "T", .help = "the stored task", .flags = SP_OPTF_REQUIRED },
    { "format", SP_OPT_CHOICE, O(format), "senteval", .choices = "senteval", .help = "the file format" },
    { "out", SP_OPT_PATH, O(out), .metavar = "FILE", .help = "write FILE (replaced only once complete); default: standard output", .flags = SP_OPTF_OUTPUT },
#undef O
    { 0 },
};

const struct sp_opt stg_tasks_list_options[] = {
    { "db", SP_OPT_PATH, offsetof(struct stg_tasks_list_opts, db), .metavar = "DB", .help = "the store",
      .flags = SP_OPTF_REQUIRED },
    { 0 },
};

/* ---- import ---- */

static int read_all(struct stg_ctx *ctx, const char *path, char **buf, size_t *len)
{
    FILE *f = sp_fopen_input(path, ctx->err, sizeof ctx->err);
    if (!f) return SP_EIO;
    size_t cap = 1 << 16;
    *buf = sp_xmalloc(cap);
    *len = 0;
    for (size_t r; (r = fread(*buf + *len, 1, cap - *len, f)) > 0;) {
        *len += r;
        if (*len == cap) { cap *= 2; *buf = sp_xrealloc(*buf, cap); }
    }
    int bad = ferror(f);
    fclose(f);
    return bad ? stg_fail(ctx, SP_EIO, "%s: read error", path) : SP_OK;
}

/* what the items do not carry (source, hash, BOM, final newline, trailing whitespace per line) */
static char *import_params(const char *file, const char *buf, size_t len, const struct ing_senteval_file *f)
{
    char hex[65];
    struct sp_sha256 sh;
    sp_sha256_init(&sh);
    sp_sha256_update(&sh, buf, len);
    sp_sha256_hex(&sh, hex);
    json_t *params = json_pack("{s:s, s:s}", "source", file, "sha256", hex), *trails = json_object();
    if (f->bom) json_object_set_new(params, "bom", json_true());
    if (f->no_final_newline) json_object_set_new(params, "no_final_newline", json_true());
    for (int i = 0; i < f->n; i++) {
        const char *t = f->item[i].trail;
        if (!t || !*t) continue;
        char key[24];
        snprintf(key, sizeof key, "%d", i + 1);
        json_object_set_new(trails, key, json_string(t));
    }
    if (json_object_size(trails)) json_object_set(params, "trail", trails);
    json_decref(trails);
    char *txt = json_dumps(params, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(params);
    return txt;
}

static int import_store(struct stg_ctx *ctx, const struct stg_tasks_import_opts *o, const struct ing_senteval_file *f,
                        const char *params)
{
    struct st_task_item *it = sp_xmalloc(sizeof *it * ((size_t)f->n + 1));
    for (int i = 0; i < f->n; i++) {
        const struct ing_senteval_item *x = &f->item[i];
        it[i] = (struct st_task_item){ ing_part_tag(x->part), x->label, x->sentence, 0, x->middle };
    }
    struct st_task_put put = { { o->name, 0, "imported", 0, 0, params }, it, f->n };
    struct st_db *db = NULL;
    int rc = stg_open_store(ctx, o->db, ST_OPEN_CREATE, &db);
    if (rc == SP_OK) rc = st_tasks_put(db, &put, 1, 0, ctx->err, sizeof ctx->err);
    st_close(db);
    free(it);
    return rc;
}

int stg_tasks_import_check(struct stg_ctx *ctx, const struct stg_tasks_import_opts *o)
{
    if (!o->db || !o->name) return stg_fail(ctx, SP_EUSAGE, "--db DB and --name T are required");
    if (!o->file) return stg_fail(ctx, SP_EUSAGE, "a SentEval FILE is required");
    return SP_OK;
}

int stg_tasks_import(struct stg_ctx *ctx, const struct stg_tasks_import_opts *o, struct stg_tasks_import_result *r)
{
    memset(r, 0, sizeof *r);
    int rc0 = stg_tasks_import_check(ctx, o);
    if (rc0) return rc0;
    double t0 = sp_now();
    char *buf = NULL;
    size_t len = 0;
    struct ing_senteval_file f;
    ing_senteval_init(&f);
    int rc = read_all(ctx, o->file, &buf, &len);
    if (rc == SP_OK) rc = ing_senteval_parse(o->file, buf, len, &f, ctx->err, sizeof ctx->err);
    if (rc == SP_OK) {
        char *params = import_params(o->file, buf, len, &f);
        rc = import_store(ctx, o, &f, params);
        free(params);
    }
    if (rc == SP_OK) {
        r->n_items = f.n;
        sp_log(ctx->log, SP_LOG_DEBUG, "tasks import: %s: %d items in %.2fs", o->name, f.n, sp_now() - t0);
    }
    ing_senteval_free(&f);
    free(buf);
    return rc;
}

/* ---- export ---- */

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

/* the stored task back as a SentEval file in memory: params first (the per-line trailing
 * whitespace), then the items */
static int export_read(struct stg_ctx *ctx, const struct stg_tasks_export_opts *o, struct st_db *db,
                       struct ing_senteval_file *f)
{
    int64_t id = 0;
    int rc = st_task_id(db, o->name, &id, ctx->err, sizeof ctx->err);
    if (rc == SP_OK && !id) return stg_no_such(ctx, db, o->db, STG_NAME_TASK, o->name);
    char *ptxt = NULL;
    if (rc == SP_OK) rc = st_task_items(db, o->name, &ptxt, NULL, NULL, ctx->err, sizeof ctx->err);
    json_t *params = rc == SP_OK && ptxt ? json_loads(ptxt, 0, NULL) : NULL;
    struct export_ctx c = { f, params ? json_object_get(params, "trail") : NULL, 0 };
    if (rc == SP_OK) rc = st_task_items(db, o->name, NULL, export_item, &c, ctx->err, sizeof ctx->err);
    f->bom = params && json_is_true(json_object_get(params, "bom"));
    f->no_final_newline = params && json_is_true(json_object_get(params, "no_final_newline"));
    json_decref(params);
    free(ptxt);
    return rc;
}

int stg_tasks_export(struct stg_ctx *ctx, const struct stg_tasks_export_opts *o, struct stg_tasks_export_result *r)
{
    memset(r, 0, sizeof *r);
    if (!o->db || !o->name) return stg_fail(ctx, SP_EUSAGE, "--db DB and --name T are required");
    if (!o->out && !o->to_stdout) return stg_fail(ctx, SP_EUSAGE, "--out FILE is required here");
    struct st_db *db = NULL;
    struct ing_senteval_file f;
    ing_senteval_init(&f);
    int rc = stg_open_store(ctx, o->db, ST_OPEN_READONLY, &db);
    if (rc == SP_OK) rc = export_read(ctx, o, db, &f);
    st_close(db);
    if (rc == SP_OK && o->out) rc = ing_senteval_write(o->out, &f, ctx->err, sizeof ctx->err);
    else if (rc == SP_OK && (ing_senteval_write_fp(o->to_stdout, &f) != 0 || fflush(o->to_stdout) != 0))
        rc = stg_fail(ctx, SP_EIO, "write error on standard output");
    if (rc == SP_OK) r->n_items = f.n;
    ing_senteval_free(&f);
    return rc;
}

/* ---- list ---- */

int stg_tasks_list(struct stg_ctx *ctx, const struct stg_tasks_list_opts *o, struct stg_tasks_list_result *r)
{
    memset(r, 0, sizeof *r);
    if (!o->db) return stg_fail(ctx, SP_EUSAGE, "--db is required");
    struct st_db *db = NULL;
    int rc = stg_open_store(ctx, o->db, ST_OPEN_READONLY, &db);
    if (rc == SP_OK) rc = st_task_list(db, &r->rows, &r->n, ctx->err, sizeof ctx->err);
    st_close(db);
    return rc;
}

void stg_tasks_list_result_free(struct stg_tasks_list_result *r)
{
    st_task_rows_free(r->rows, r->n);
    r->rows = NULL;
    r->n = 0;
}
