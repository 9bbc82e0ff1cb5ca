/* tests/unit/stages_layers.c — layer runs (stages/layers.h): the spec "all|K,K,..." and its
 * errors, the run names and their reading back, and the loop over a store's layer runs (which
 * run, which layer, in which order, what each result row is stamped with, where it stops).
 * Expected values by hand, from the naming rule NAME-L<k>[-INPUT] and the messages' wording. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stages/layers.h"
#include "store/st_runs.h"
#include "store/store.h"
#include "t_harness.h"

/* the layers of l as "a,b,c" */
static const char *list_text(const struct stg_layer_list *l)
{
    static char buf[512];
    size_t len = 0;
    buf[0] = 0;
    for (int i = 0; i < l->n; i++) len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%d", i ? "," : "", l->k[i]);
    return buf;
}

static void spec_ok(void)
{
    struct stg_layer_list l;
    char err[SP_ERRLEN];
    T_EQ_INT(stg_layer_spec("--layers", "all", 6, NULL, &l, err, sizeof err), SP_OK);
    T_EQ_INT(l.all, 1);
    T_EQ_STR(list_text(&l), "0,1,2,3,4,5,6");
    T_EQ_INT(stg_layer_spec("--layers", "0,3", 6, NULL, &l, err, sizeof err), SP_OK);
    T_EQ_INT(l.all, 0);
    T_EQ_STR(list_text(&l), "0,3");
    T_EQ_INT(stg_layer_spec("--layers", "6,0,2", 6, NULL, &l, err, sizeof err), SP_OK);   /* the spec's order */
    T_EQ_STR(list_text(&l), "6,0,2");
    T_EQ_INT(stg_layer_spec("--layer", "4", 6, NULL, &l, err, sizeof err), SP_OK);
    T_EQ_STR(list_text(&l), "4");
    /* "all" never goes past the last layer a store can hold */
    T_EQ_INT(stg_layer_spec("--layer", "all", 1000, NULL, &l, err, sizeof err), SP_OK);
    T_EQ_INT(l.n, ENC_MAX_LAYERS + 1);
}

static void spec_errors(void)
{
    struct stg_layer_list l;
    char err[SP_ERRLEN];
    const char *garbage[] = { "", "x", "1,", ",1", "1,,2", "-1", "+1", " 1", "1 ", "\t1", "1.5", "all,1", "ALL", "0x3" };
    for (size_t i = 0; i < sizeof garbage / sizeof *garbage; i++) {
        char want[256];
        snprintf(want, sizeof want, "--layers: expected all or layer numbers K,K,... (0 = embeddings), got '%s'", garbage[i]);
        err[0] = 0;
        T_EQ_INT(stg_layer_spec("--layers", garbage[i], 6, NULL, &l, err, sizeof err), SP_EUSAGE);
        T_EQ_STR(err, want);
    }
    T_EQ_INT(stg_layer_spec("--layers", "2,7", 6, "models/m", &l, err, sizeof err), SP_EUSAGE);
    T_EQ_STR(err, "--layers 7: the model models/m has layers 0..6 (0 = embeddings)");
    T_EQ_INT(stg_layer_spec("--layer", "65", ENC_MAX_LAYERS, NULL, &l, err, sizeof err), SP_EUSAGE);
    T_EQ_STR(err, "--layer: layer 65 is not one of 0..64 (0 = embeddings)");
    T_EQ_INT(stg_layer_spec("--layer", "3,99999999999999999999", 6, NULL, &l, err, sizeof err), SP_EUSAGE);
    T_EQ_STR(err, "--layer: layer 99999999999999999999 is not one of 0..6 (0 = embeddings)");
    T_EQ_INT(stg_layer_spec("--layers", "1,3,1", 6, NULL, &l, err, sizeof err), SP_EUSAGE);
    T_EQ_STR(err, "--layers: layer 1 is named twice");
    /* one layer at a time (a job's [k, ...]) gets the same checks */
    struct stg_layer_list m = { 0 };
    T_EQ_INT(stg_layer_add(&m, 2, 64, "encoders[0].layers[0]", NULL, err, sizeof err), SP_OK);
    T_EQ_INT(stg_layer_add(&m, -1, 64, "encoders[0].layers[1]", NULL, err, sizeof err), SP_EUSAGE);
    T_EQ_STR(err, "encoders[0].layers[1]: layer -1 is not one of 0..64 (0 = embeddings)");
    T_EQ_INT(stg_layer_add(&m, 2, 64, "encoders[0].layers[2]", NULL, err, sizeof err), SP_EUSAGE);
    T_EQ_STR(err, "encoders[0].layers[2]: layer 2 is named twice");
    T_EQ_STR(list_text(&m), "2");
}

static void names(void)
{
    char *s;
    T_EQ_STR(s = stg_layer_pattern("m"), "m-L{layer}"); free(s);
    T_EQ_STR(s = stg_layer_pattern("m-{layer}-x"), "m-{layer}-x"); free(s);
    T_EQ_STR(s = stg_layer_run_name("m", 3, NULL), "m-L3"); free(s);
    T_EQ_STR(s = stg_layer_run_name("m", 0, "Tense"), "m-L0-Tense"); free(s);
    T_EQ_STR(s = stg_layer_run_name("x-{layer}-y", 12, NULL), "x-12-y"); free(s);
    T_EQ_STR(s = stg_layer_run_name("a{layer}b{layer}", 2, "c"), "a2b2-c"); free(s);   /* every {layer}, then -INPUT */
    char base[64];
    T_EQ_INT(stg_layer_of_run("m-L3", base, sizeof base), 3);
    T_EQ_STR(base, "m");
    T_EQ_INT(stg_layer_of_run("a-b-L12", base, sizeof base), 12);
    T_EQ_STR(base, "a-b");
    T_EQ_INT(stg_layer_of_run("m-L0", base, sizeof base), 0);
    T_EQ_STR(base, "m");
    const char *not_layer[] = { "m", "m-L", "m-Lx", "m-L03", "m-L65", "m-L3x", "m-l3", "m-L3-ud" };
    for (size_t i = 0; i < sizeof not_layer / sizeof *not_layer; i++) {
        T_EQ_INT(stg_layer_of_run(not_layer[i], base, sizeof base), -1);
        T_EQ_STR(base, not_layer[i]);
    }
}

/* the loop's stage: records what it was given, appends one row per layer run, fails at fail_at */
struct seen { int n, fail_at; char runs[512]; };

static int record(struct stg_ctx *ctx, const struct stg_layer_run *l, json_t *rows, void *arg)
{
    struct seen *s = arg;
    size_t len = strlen(s->runs);
    snprintf(s->runs + len, sizeof s->runs - len, "%s%d:%s:%d:%s", len ? " " : "", l->layer, l->run, l->attn_layer,
             l->input ? l->input : "-");
    if (++s->n == s->fail_at) return stg_fail(ctx, SP_EPARSE, "stage failed on %s", l->run);
    json_array_append_new(rows, json_pack("{s:s}", "run", "the stage's own"));
    return SP_OK;
}

/* the loop's fn for layers side by side: layer 0 takes longest (the others finish first), a stage
 * fails on layer fail_layer; rows and the record only in this layer's turn */
struct seen_par { int fail_layer; atomic_int started; char order[256]; };
static int record_par(struct stg_ctx *ctx, const struct stg_layer_run *l, json_t *rows, void *arg)
{
    struct seen_par *s = arg;
    atomic_fetch_add(&s->started, 1);
    usleep(l->layer == 0 ? 200000 : 20000);
    int rc = l->layer == s->fail_layer ? stg_fail(ctx, SP_EPARSE, "stage failed on %s", l->run) : SP_OK;
    if (stg_turn_take(ctx) != SP_OK) return SP_ESTOPPED;
    size_t len = strlen(s->order);
    snprintf(s->order + len, sizeof s->order - len, "%s%d", len ? " " : "", l->layer);
    if (rc == SP_OK) json_array_append_new(rows, json_pack("{s:i}", "mine", l->layer));
    return rc;
}

static void side_by_side(const char *path)
{
    struct stg_ctx ctx = { 0 };
    json_t *rows = json_array();
    struct seen_par s = { .fail_layer = -1 };
    atomic_init(&s.started, 0);
    /* three workers: every layer starts at once, layer 0 ends last, yet rows come in layer order */
    T_EQ_INT(stg_layers_each(&ctx, path, "m", "all", "c", record_par, &s, rows, 3), SP_OK);
    T_EQ_STR(s.order, "0 3 5");
    T_EQ_INT(json_array_size(rows), 3);
    for (int i = 0; i < 3; i++) {
        const int want[] = { 0, 3, 5 };
        json_t *r = json_array_get(rows, (size_t)i);
        T_EQ_INT(json_integer_value(json_object_get(r, "mine")), want[i]);
        T_EQ_INT(json_integer_value(json_object_get(r, "layer")), want[i]);
    }
    T_EQ_STR(json_string_value(json_object_get(json_array_get(rows, 1), "run")), "m-L3-c");
    /* the stage fails on layer 3 while layer 5 has already run: the loop returns layer 3's code
     * and message, layer 5 writes nothing */
    memset(s.order, 0, sizeof s.order);
    s.fail_layer = 3;
    atomic_store(&s.started, 0);
    json_array_clear(rows);
    T_EQ_INT(stg_layers_each(&ctx, path, "m", "all", "c", record_par, &s, rows, 3), SP_EPARSE);
    T_EQ_STR(ctx.err, "stage failed on m-L3-c");
    T_EQ_STR(s.order, "0 3");
    T_EQ_INT(json_array_size(rows), 1);
    T_EQ_INT(atomic_load(&s.started), 3);
    /* two workers for three layers, one layer (workers > layers: one per layer), one worker */
    for (int w = 1; w <= 4; w++) {
        memset(s.order, 0, sizeof s.order);
        s.fail_layer = -1;
        json_array_clear(rows);
        T_EQ_INT(stg_layers_each(&ctx, path, "m", "all", "c", record_par, &s, rows, w), SP_OK);
        T_EQ_STR(s.order, "0 3 5");
        T_EQ_INT(json_array_size(rows), 3);
    }
    json_decref(rows);
}

static int add_runs(const char *path)
{
    char err[SP_ERRLEN];
    struct st_db *db;
    int64_t corpus, enc, id;
    int created;
    if (st_open(path, ST_OPEN_CREATE, &db, err, sizeof err) || st_corpus_id(db, "c", 1, &corpus, err, sizeof err)) return 1;
    struct st_encoder e = { "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "bert", "{}", 4, SP_STYPE_F32 };
    if (st_encoder_upsert(db, &e, &enc, err, sizeof err)) return 1;
    /* m: layers 0 and 3 for every input, 3 and 5 for input c (preferred over the plain ones) */
    const char *names[] = { "m-L0", "m-L3", "m-L3-c", "m-L5-c", "m-L03", "m-Lx", "solo", "p-2-x", "p-5-x", "q-L1-ud" };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        struct st_run_spec spec = { names[i], enc, corpus, 0, 1, !strcmp(names[i], "m-L3-c") ? 2 : -1 };
        if (st_run_begin(db, &spec, &id, &created, err, sizeof err)) { fprintf(stderr, "%s\n", err); return 1; }
    }
    st_close(db);
    return 0;
}

static void loop(void)
{
    char path[] = "/tmp/sp-stages-layers-XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    unlink(path);
    T_EQ_INT(add_runs(path), 0);
    struct stg_ctx ctx = { 0 };
    struct seen s = { 0 };
    json_t *rows = json_array();

    /* all, over input c: m-L0 (no m-L0-c), m-L3-c (over m-L3), m-L5-c; "m-L03" and "m-Lx" are no layer runs */
    T_EQ_INT(stg_layers_each(&ctx, path, "m", "all", "c", record, &s, rows, 1), SP_OK);
    T_EQ_STR(s.runs, "0:m-L0:-1:c 3:m-L3-c:2:c 5:m-L5-c:-1:c");
    T_EQ_INT(json_array_size(rows), 3);
    T_EQ_INT(json_integer_value(json_object_get(json_array_get(rows, 1), "layer")), 3);
    T_EQ_STR(json_string_value(json_object_get(json_array_get(rows, 1), "run")), "m-L3-c");   /* the layer run's */
    T_EQ_INT(json_integer_value(json_object_get(json_array_get(rows, 2), "layer")), 5);

    /* named layers, without an input: the plain runs only, in layer order */
    memset(&s, 0, sizeof s);
    json_array_clear(rows);
    T_EQ_INT(stg_layers_each(&ctx, path, "m", "3,0", NULL, record, &s, rows, 1), SP_OK);
    T_EQ_STR(s.runs, "0:m-L0:-1:- 3:m-L3:-1:-");

    /* a pattern names the runs itself */
    memset(&s, 0, sizeof s);
    T_EQ_INT(stg_layers_each(&ctx, path, "p-{layer}-x", "all", "c", record, &s, rows, 1), SP_OK);
    T_EQ_STR(s.runs, "2:p-2-x:-1:c 5:p-5-x:-1:c");

    /* the stage fails on the second layer run: the loop stops there with its code and message */
    memset(&s, 0, sizeof s);
    s.fail_at = 2;
    json_array_clear(rows);
    T_EQ_INT(stg_layers_each(&ctx, path, "m", "all", "c", record, &s, rows, 1), SP_EPARSE);
    T_EQ_INT(s.n, 2);
    T_EQ_STR(ctx.err, "stage failed on m-L3-c");
    T_EQ_INT(json_array_size(rows), 1);

    /* what is missing, said before any stage runs */
    char want[512];
    memset(&s, 0, sizeof s);
    T_EQ_INT(stg_layers_each(&ctx, path, "m", "0,4", "c", record, &s, rows, 1), SP_EPARSE);
    snprintf(want, sizeof want, "%s: no run m-L4-c or m-L4: the layers of 'm' there are 0,3,5", path);
    T_EQ_STR(ctx.err, want);
    T_EQ_INT(s.n, 0);
    T_EQ_INT(stg_layers_each(&ctx, path, "solo", "all", "c", record, &s, rows, 1), SP_EPARSE);
    snprintf(want, sizeof want, "%s: run 'solo' has no layer runs (solo-L<k>[-INPUT], made by encode --layers); it is a "
             "run of one layer", path);
    T_EQ_STR(ctx.err, want);
    T_EQ_INT(stg_layers_each(&ctx, path, "q", "all", "c", record, &s, rows, 1), SP_EPARSE);
    snprintf(want, sizeof want, "%s: name 'q' has no layer runs (q-L<k>[-INPUT], made by encode --layers); the store has "
             "q-L1-ud: name its input (--corpus, --task, or a --run pattern such as q-L{layer}-INPUT)", path);
    T_EQ_STR(ctx.err, want);
    T_EQ_INT(stg_layers_each(&ctx, path, "m", "0,0", "c", record, &s, rows, 1), SP_EUSAGE);
    T_EQ_STR(ctx.err, "--layer: layer 0 is named twice");
    T_EQ_INT(s.n, 0);

    side_by_side(path);

    json_decref(rows);
    unlink(path);
}

int main(void)
{
    spec_ok();
    spec_errors();
    names();
    loop();
    return T_DONE();
}
