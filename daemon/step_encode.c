/* daemon/step_encode.c — the step kind "encode": a job's "encoders" entries (daemon/step.h). An
 * encoder is crossed with its inputs (one step per corpus or task), and with "layers" keeps every
 * listed layer in one pass, each layer its own run; the runs made are what probes, trees and the
 * structural and token probes are crossed with. */
#include <stdlib.h>
#include <string.h>
#include "daemon/job_int.h"
#include "encoder/encoder.h"
#include "stages/encode.h"
#include "stages/layers.h"

static const char *base_name(struct dmn_parse *P, const char *path)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    size_t n = strlen(b);
    if (n > 5 && !strcmp(b + n - 5, ".json")) n -= 5;
    return sp_arena_strndup(&P->job->arena, b, n);
}

static int add_run(struct dmn_parse *P, const char *where, const char *run, const char *input, int is_task,
                   const struct stg_encode_opts *o)
{
    for (int i = 0; i < P->n_runs; i++)
        if (!strcmp(P->runs[i].run, run)) return dmn_jp_fail(P, "%s: run '%s' is made twice (give the encoders different \"run\" names)", where, run);
    P->runs = sp_xrealloc(P->runs, sizeof *P->runs * (size_t)(P->n_runs + 1));
    P->runs[P->n_runs++] = (struct dmn_runref){ run, input, is_task, !is_task && o->attention >= 0, !is_task && o->token_vectors };
    return SP_OK;
}

/* An encoder crossed with its inputs: one encode step per input. A corpus run is named RUN
 * (RUN-CORPUS when the encoder has several corpora), a task run RUN-TASK; attention and token
 * vectors are kept for corpus runs only (the trees and the structural and token probes read
 * them; the sentence probes of a task run never do, and a task run's token vectors would be
 * most of the store). */
static int encoder_inputs(struct dmn_parse *P, int tmpl, json_t *inputs, const char *where)
{
    size_t i, n_corpus = 0;
    json_t *v;
    json_array_foreach(inputs, i, v) {
        if (!json_is_string(v)) return dmn_jp_fail(P, "%s.inputs[%zu]: expected a string (a corpus or task of this job)", where, i);
        n_corpus += dmn_jp_find_name(P->corpora, P->n_corpora, json_string_value(v)) >= 0;
    }
    const char *run = ((struct stg_encode_opts *)P->job->steps[tmpl].opts)->run;
    json_array_foreach(inputs, i, v) {
        const char *in = sp_arena_strdup(&P->job->arena, json_string_value(v));
        int is_corpus = dmn_jp_find_name(P->corpora, P->n_corpora, in) >= 0, is_task = dmn_jp_find_name(P->tasks, P->n_tasks, in) >= 0;
        if (!is_corpus && !is_task) {
            char sugg[256], all[1024];
            int n = 0;
            const char **names = sp_xmalloc(sizeof *names * (size_t)(P->n_corpora + P->n_tasks + 1));
            for (int k = 0; k < P->n_corpora; k++) names[n++] = P->corpora[k];
            for (int k = 0; k < P->n_tasks; k++) names[n++] = P->tasks[k];
            sp_suggest(sugg, sizeof sugg, in, names, (size_t)n);
            sp_join_names(all, sizeof all, names, (size_t)n, 16);
            free(names);
            return dmn_jp_fail(P, "%s.inputs[%zu]: '%s' names no corpus or task of this job%s%s (inputs: %s)", where, i, in,
                        sugg[0] ? "; " : "", sugg, n ? all : "none");
        }
        if (is_corpus && is_task) return dmn_jp_fail(P, "%s.inputs[%zu]: '%s' is both a corpus and a task", where, i, in);
        if (is_task && P->doomed[dmn_jp_find_name(P->tasks, P->n_tasks, in)])
            return dmn_jp_fail(P, "%s.inputs[%zu]: task '%s' will not exist: %s; leave it out of the inputs", where, i, in,
                        P->doomed[dmn_jp_find_name(P->tasks, P->n_tasks, in)]);
        struct dmn_step *s = i ? dmn_jp_dup_step(P, tmpl) : &P->job->steps[tmpl];
        struct stg_encode_opts *o = s->opts, *d = s->defaults;
        o->corpus = is_corpus ? dmn_jp_one(P, in) : d->corpus;
        o->task = is_task ? dmn_jp_one(P, in) : d->task;
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

static int encoder_one(struct dmn_parse *P, json_t *c, json_t *inputs, const char *where);

/* The encoder's config read and checked now (its values, a NUL byte in it, the options that need
 * it: stg_encode_check_config), not when the encode step comes, after the steps before it have
 * written. */
static int check_config(struct dmn_parse *P, const struct dmn_step *s, const char *where, const char *key)
{
    const struct stg_encode_opts *o = s->opts;
    struct enc_config ec;
    char err[SP_ERRLEN];
    if (enc_config_load(o->encoder, &ec, err, sizeof err)) return dmn_jp_fail(P, "%s.%s: %s", where, key, err);
    struct stg_ctx ctx = { 0 };
    if (stg_encode_check_config(&ctx, o, &ec)) return dmn_jp_stage_fail(P, s, where, ctx.err);
    return SP_OK;
}

/* A "layers" value: "all" (every layer of the bert model the config names, read through
 * stages/layers.h) or [k, ...], each layer checked as encode --layers checks its own. */
static int layer_list(struct dmn_parse *P, const char *cfg, json_t *layers, const char *where, struct stg_layer_list *l)
{
    char err[SP_ERRLEN];
    memset(l, 0, sizeof *l);
    if (json_is_string(layers) && !strcmp(json_string_value(layers), "all")) {
        int last;
        const char *kind = NULL;
        if (stg_layer_count(dmn_jp_resolve(P, P->job->dir, cfg), &last, &kind, err, sizeof err))
            return dmn_jp_fail(P, "%s.config: %s", where, err);
        if (last < 0) return dmn_jp_fail(P, "%s.layers: \"all\" applies to bert configs (%s is %s)", where, cfg, kind);
        return stg_layer_spec("layers", "all", last, NULL, l, err, sizeof err);
    }
    if (!json_is_array(layers) || !json_array_size(layers) || json_array_size(layers) > STG_MAX_LAYER_RUNS)
        return dmn_jp_fail(P, "%s.layers: expected \"all\" or a non-empty array of layer numbers", where);
    size_t i;
    json_t *v;
    json_array_foreach(layers, i, v) {
        const char *at = sp_arena_printf(&P->job->arena, "%s.layers[%zu]", where, i);
        if (!json_is_integer(v)) return dmn_jp_fail(P, "%s: expected a layer number 0..%d (0 = embeddings)", at, ENC_MAX_LAYERS);
        if (stg_layer_add(l, json_integer_value(v), ENC_MAX_LAYERS, at, NULL, err, sizeof err)) return dmn_jp_fail(P, "%s", err);
    }
    return SP_OK;
}

/* "layers" on a bert config: one encode step per input keeps every listed layer (encode --layers,
 * one forward pass), each layer its own runs NAME-L<k>-INPUT (NAME: "run", else the config's base
 * name; a "run" with {layer} names them itself), for layer-wise probing. */
static int encoder_layers(struct dmn_parse *P, json_t *c, json_t *layers, json_t *inputs, const char *where)
{
    const char *key = json_object_get(c, "config") ? "config" : "encoder";
    json_t *cv = json_object_get(c, key);
    const char *cfg = json_string_value(cv);
    if (cv && (!cfg || !cfg[0]))
        return dmn_jp_fail(P, "%s.%s: expected the encoder configuration file's path, got %s", where, key,
                    cfg ? "an empty string" : json_is_array(cv) ? "an array" : json_is_object(cv) ? "an object"
                    : json_is_number(cv) ? "a number" : json_is_boolean(cv) ? "true or false" : "null");
    if (!cfg) return dmn_jp_fail(P, "%s: \"config\" (the encoder configuration file) is required", where);
    if (json_object_get(c, "layer")) return dmn_jp_fail(P, "%s: give \"layers\" or \"layer\", not both", where);
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

static int encoder_entry(struct dmn_parse *P, json_t *e, const char *where)
{
    json_t *c = dmn_jp_entry(P, e, where);
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
static int encoder_one(struct dmn_parse *P, json_t *c, json_t *inputs, const char *where)
{
    json_t *cfg = json_object_get(c, "config");
    const char *alias = cfg ? "config" : NULL;
    if (cfg && json_object_get(c, "encoder")) return dmn_jp_fail(P, "%s: give \"config\" or \"encoder\", not both", where);
    if (cfg) { json_object_set(c, "encoder", cfg); json_object_del(c, "config"); }
    int tmpl = P->job->n_steps, rc = SP_OK;
    struct dmn_step *s = dmn_jp_new_step(P, DMN_ENCODE, where);
    s->config_key = alias != NULL;
    if (!json_object_get(c, "encoder")) rc = dmn_jp_fail(P, "%s: \"config\" (the encoder configuration file) is required", where);
    if (!rc) rc = dmn_jp_fill(P, s, c, where, alias);
    if (!rc && (!json_is_array(inputs) || !json_array_size(inputs)))
        rc = dmn_jp_fail(P, "%s.inputs: expected a non-empty array of corpus and task names", where);
    struct stg_encode_opts *o = P->job->steps[tmpl].opts;
    if (!rc && (o->corpus.n || o->task.n)) rc = dmn_jp_fail(P, "%s: name corpora and tasks in \"inputs\", not \"corpus\" or \"task\"", where);
    if (!rc && !o->run) o->run = base_name(P, o->encoder);
    if (!rc) rc = check_config(P, &P->job->steps[tmpl], where, alias ? alias : "encoder");
    if (!rc) rc = encoder_inputs(P, tmpl, inputs, where);
    return rc;
}

/* The dtype the step stores vectors as: its "store-dtype" option where the encode stage has one,
 * else f32 (every store before it). */
static const char *step_dtype(const struct dmn_step *s, char *buf, size_t n)
{
    json_t *o = json_object();
    sp_opt_to_json(s->table, s->opts, o);
    const char *d = json_string_value(json_object_get(o, "store-dtype"));
    snprintf(buf, n, "%s", d ? d : "f32");
    json_decref(o);
    return buf;
}

static int run_encode(const struct dmn_run_opts *ro, const struct dmn_step *s, struct dmn_step_out *so)
{
    struct stg_encode_opts o = *(const struct stg_encode_opts *)s->opts;
    o.command = ro->command;
    struct stg_encode_result r;
    int rc = stg_encode(ro->ctx, &o, &r);
    long enc = 0, cached = 0;
    for (int i = 0; i < r.n; i++) { enc += r.in[i].encoded; cached += r.in[i].cached; }
    char dt[32], dim[32] = "";
    step_dtype(s, dt, sizeof dt);
    if (r.n > 0) snprintf(dim, sizeof dim, "%d-dim ", r.in[0].dim);
    if (o.layers && r.n > 1)      /* one pass, a run per layer: the counts are each run's */
        snprintf(so->summary, sizeof so->summary, "runs %s..%s (%d layers, one pass): %ld encoded, %ld cached, %s%s",
                 r.in[0].run, r.in[r.n - 1].run, r.n, r.in[0].encoded, r.in[0].cached, dim, dt);
    else if (o.layers && r.n == 1)
        snprintf(so->summary, sizeof so->summary, "run %s: %ld encoded, %ld cached, %s%s", r.in[0].run, enc, cached, dim, dt);
    else
        snprintf(so->summary, sizeof so->summary, "run %s: %ld encoded, %ld cached, %s%s", o.run, enc, cached, dim, dt);
    so->nowork = enc == 0;
    stg_encode_result_free(&r);
    return rc;
}

static void what_encode(json_t *o, struct sp_buf *b)
{
    struct sp_buf t1 = { 0 }, t2 = { 0 };
    const char *corpus = dmn_step_opt_text(o, "corpus", &t1), *task = dmn_step_opt_text(o, "task", &t2);
    const char *run = json_string_value(json_object_get(o, "run")), *layers = json_string_value(json_object_get(o, "layers"));
    sp_buf_printf(b, " %s over %s", run ? run : "?", task ? task : corpus ? corpus : "?");
    if (layers) sp_buf_printf(b, ", layers %s", layers);
    sp_buf_free(&t1);
    sp_buf_free(&t2);
}

/* a shard encodes its part of a corpus (which may hold none of a small corpus's sentences); a
 * task run is encoded once, on the merged store */
static int shard_encode(void *opts, int k, int n)
{
    struct stg_encode_opts *o = opts;
    (void)k;
    (void)n;
    if (!o->corpus.n) return 0;
    o->empty_ok = 1;
    return 1;
}

static int gpu_encode(const void *opts) { return ((const struct stg_encode_opts *)opts)->device == STG_DEVICE_CUDA; }
static int check_encode(struct stg_ctx *ctx, const void *opts) { return stg_encode_check(ctx, opts); }

const struct dmn_step_def dmn_step_encode = {
    .words = "encode", .section = "encoders", .table = stg_encode_options, .size = sizeof(struct stg_encode_opts),
    .entry = encoder_entry, .check = check_encode, .run = run_encode, .what = what_encode, .shard = shard_encode,
    .uses_gpu = gpu_encode, .flags = DMN_STEP_TASK_RUNS,
};
