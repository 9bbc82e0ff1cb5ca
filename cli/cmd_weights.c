/* cli/cmd_weights.c — synprobe weights check|list: what an encoder config reads from a weights
 * file, and whether a file fits it (encoder.h: enc_weights_expected, enc_weights_check; both
 * from the code that opens the encoder, so a file `check` passes is one `encode --weights` loads). */
#include <ctype.h>
#include <jansson.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "encoder/encoder.h"
#include "stages/encode.h"

static const struct cli_doc weights_check_doc = {
    .name = "weights check",
    .purpose = "check a safetensors file against an encoder config",
    .synopsis = "[options] CONFIG.json W.safetensors",
    .prose =
        "Lists what the encoder config reads against what the safetensors file holds: every missing\n"
        "tensor (with its expected shape), every unexpected one, every mis-shaped one (expected shape vs\n"
        "found) and every one of a dtype the kind does not read (san, ms-san, sg-net, psan, ssan: F32;\n"
        "bert: F32, F16, BF16), then, for the tensors that fit, any NaN or infinite element. The\n"
        "expected list is the one the encoder registers when it opens (`synprobe weights list` prints\n"
        "it), so a file that passes loads in `synprobe encode --weights` and one that fails does not.\n"
        "bert: the file is a Hugging Face BertModel's (its sizes from the config's model directory's\n"
        "config.json; a leading `bert.` is stripped, LayerNorm gamma/beta renamed, pooler.* and cls.*\n"
        "ignored; Linear weights [out, in]). A config with a \"base\" reads its input width from the base,\n"
        "as encode does (the base is opened on the CPU).\n"
        "Exit: 0 the file fits, 1 it does not (every problem listed, each naming its tensor) or a file\n"
        "cannot be read (not a safetensors file, truncated: the message names it), 2 usage.\n",
};

static const struct cli_doc weights_list_doc = {
    .name = "weights list",
    .purpose = "list the tensors an encoder config reads",
    .synopsis = "[options] CONFIG.json",
    .prose =
        "Prints every tensor the encoder config reads from a weights file, in the order `encode\n"
        "--save-weights` writes them: name, shape (as stored in the file) and dtype. bert: the names and\n"
        "shapes of a Hugging Face BertModel file for the model directory's config.json. --compact\n"
        "prints tensors that differ only in their first index (a layer, a PSAN level) once, the indices\n"
        "in braces: layers.{0..5}.attn.q.weight.\n"
        "Exit: 0 ok, 1 a bad config, 2 usage.\n",
};

struct list_opts { int compact; };
static const struct sp_opt list_options[] = {
    { "compact", SP_OPT_FLAG, offsetof(struct list_opts, compact), .flag_value = 1,
      .help = "one line for the tensors that differ only in their first index (layers.{0..5}.attn.q.weight)", .flags = SP_OPTF_CLI },
    { 0 },
};

/* name with its first ".N." (or trailing ".N") component cut out: pre = before it, post = after; -1: none */
static long first_index(const char *name, size_t *pre_len, const char **post)
{
    for (const char *p = name; (p = strchr(p, '.')); p++) {
        const char *q = p + 1;
        if (!isdigit((unsigned char)*q)) continue;
        char *end;
        long v = strtol(q, &end, 10);
        if (*end == '.' || !*end) { *pre_len = (size_t)(q - name); *post = end; return v; }
    }
    return -1;
}

/* the indices as "{0..5}", "{0,2}" or "3" */
static void indices_text(const long *v, int n, char *out, size_t len)
{
    int contiguous = 1;
    for (int i = 1; i < n; i++) contiguous &= v[i] == v[i - 1] + 1;
    if (n == 1) { snprintf(out, len, "%ld", v[0]); return; }
    if (contiguous && n > 2) { snprintf(out, len, "{%ld..%ld}", v[0], v[n - 1]); return; }
    size_t k = (size_t)snprintf(out, len, "{");
    for (int i = 0; i < n && k < len; i++) k += (size_t)snprintf(out + k, len - k, "%s%ld", i ? "," : "", v[i]);
    if (k < len) snprintf(out + k, len - k, "}");
}

static void shape_text(const struct enc_tensor_spec *t, char *sh, size_t n)
{
    if (t->ndim == 2) snprintf(sh, n, "[%d,%d]", t->shape[0], t->shape[1]);
    else snprintf(sh, n, "[%d]", t->shape[0]);
}

/* --compact: the rows (name, shape) with indexed names grouped, in the order of first appearance */
static int compact_rows(const struct enc_tensor_spec *t, int n, char (*name)[96], char (*shape)[48])
{
    int rows = 0;
    uint8_t *done = sp_xcalloc((size_t)n + 1, 1);
    long *idx = sp_xmalloc(sizeof *idx * ((size_t)n + 1));
    for (int i = 0; i < n; i++) {
        if (done[i]) continue;
        size_t pl;
        const char *post;
        long v = first_index(t[i].name, &pl, &post);
        shape_text(&t[i], shape[rows], sizeof shape[rows]);
        if (v < 0) { snprintf(name[rows++], sizeof name[0], "%s", t[i].name); continue; }
        int k = 0;
        for (int j = i; j < n; j++) {          /* same prefix, suffix and shape: one row */
            size_t pl2;
            const char *post2;
            long v2 = first_index(t[j].name, &pl2, &post2);
            if (done[j] || v2 < 0 || pl2 != pl || strncmp(t[j].name, t[i].name, pl) || strcmp(post2, post) ||
                t[j].ndim != t[i].ndim || t[j].shape[0] != t[i].shape[0] || t[j].shape[1] != t[i].shape[1])
                continue;
            done[j] = 1;
            idx[k++] = v2;
        }
        char ix[64];
        indices_text(idx, k, ix, sizeof ix);
        snprintf(name[rows++], sizeof name[0], "%.*s%s%s", (int)pl, t[i].name, ix, post);
    }
    free(done);
    free(idx);
    return rows;
}

/* the config as `encode` opens it: with a "base", d_input is the base's width (the base is opened
 * on the CPU to learn it, as encode does) */
static int load_config(struct cli *c, const char *cmd, const char *path, struct enc_config *cfg)
{
    char err[SP_ERRLEN];
    int rc = enc_config_load(path, cfg, err, sizeof err);
    if (rc == SP_OK && cfg->base[0])
        rc = stg_encode_open_base(cfg, path, ENC_DEVICE_CPU, c->common.verbose ? &c->log : NULL, NULL, err, sizeof err);
    if (rc != SP_OK) return cli_fail(cli_exit_status(rc), cmd, "%s", err);
    return SP_EXIT_OK;
}

static json_t *shape_json(int ndim, const long long *d)
{
    json_t *a = json_array();
    for (int i = 0; i < ndim; i++) json_array_append_new(a, json_integer(d[i]));
    return a;
}

static int weights_list(int argc, char **argv)
{
    struct cli c;
    struct list_opts o = { 0 };
    const struct sp_optbind b[] = { { list_options, &o }, { cli_json_option, &c.common } };
    int rc = cli_parse(&c, &weights_list_doc, b, 2, argc, argv, 1);
    if (rc >= 0) return rc;
    if (c.operands.n != 1)
        return cli_done(&c, cli_fail(SP_EXIT_USAGE, "weights list", "expected one encoder config (see --help)"));
    struct enc_config cfg;
    if ((rc = load_config(&c, "weights list", c.operands.v[0], &cfg)) != SP_EXIT_OK) return cli_done(&c, rc);
    struct enc_tensor_spec *t;
    int n;
    char err[SP_ERRLEN];
    if (enc_weights_expected(&cfg, &t, &n, err, sizeof err) != SP_OK)
        return cli_done(&c, cli_fail(SP_EXIT_INPUT, "weights list", "%s", err));
    if (c.common.json) {
        json_t *a = json_array();
        for (int i = 0; i < n; i++) {
            const long long d[2] = { t[i].shape[0], t[i].shape[1] };
            json_array_append_new(a, json_pack("{s:s, s:o, s:s}", "name", t[i].name, "shape", shape_json(t[i].ndim, d),
                                               "dtype", "F32"));
        }
        json_t *j = json_pack("{s:s, s:s, s:i, s:o}", "config", c.operands.v[0], "kind", enc_kind_name(cfg.kind), "tensors", n,
                              "expected", a);
        cli_print_json(&c, j, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        json_decref(j);
    } else {
        char (*name)[96] = sp_xcalloc((size_t)n + 1, sizeof *name);
        char (*shape)[48] = sp_xcalloc((size_t)n + 1, sizeof *shape);
        int rows = n;
        if (o.compact) rows = compact_rows(t, n, name, shape);
        else
            for (int i = 0; i < n; i++) {
                snprintf(name[i], sizeof name[i], "%s", t[i].name);
                shape_text(&t[i], shape[i], sizeof shape[i]);
            }
        int w = 4;
        for (int i = 0; i < rows; i++) if ((int)strlen(name[i]) > w) w = (int)strlen(name[i]);
        for (int i = 0; i < rows; i++) printf("%-*s  %-12s F32\n", w, name[i], shape[i]);
        free(name);
        free(shape);
        if (!c.common.quiet) fprintf(stderr, "synprobe weights list: %s (%s): %d tensors\n", c.operands.v[0], enc_kind_name(cfg.kind), n);
    }
    free(t);
    return cli_done(&c, SP_EXIT_OK);
}

static int weights_check(int argc, char **argv)
{
    struct cli c;
    const struct sp_optbind b[] = { { cli_json_option, &c.common } };
    int rc = cli_parse(&c, &weights_check_doc, b, 1, argc, argv, 1);
    if (rc >= 0) return rc;
    if (c.operands.n != 2)
        return cli_done(&c, cli_fail(SP_EXIT_USAGE, "weights check", "expected an encoder config and a safetensors file (see --help)"));
    const char *cpath = c.operands.v[0], *wpath = c.operands.v[1];
    struct enc_config cfg;
    if ((rc = load_config(&c, "weights check", cpath, &cfg)) != SP_EXIT_OK) return cli_done(&c, rc);
    struct enc_weights_report r;
    char err[SP_ERRLEN];
    int src = enc_weights_check(&cfg, wpath, &r, err, sizeof err);
    if (src != SP_OK) {
        enc_weights_report_free(&r);
        return cli_done(&c, cli_fail(cli_exit_status(src), "weights check", "%s", err));
    }
    int count[ENC_WP_NONFINITE + 1] = { 0 };
    for (int i = 0; i < r.n; i++) count[r.p[i].kind]++;
    if (c.common.json) {
        json_t *probs = json_array(), *ign = json_array();
        for (int i = 0; i < r.n; i++) {
            const struct enc_weights_problem *p = &r.p[i];
            char text[SP_ERRLEN];
            enc_weights_problem_text(NULL, &r, p, text, sizeof text);
            json_t *o = json_pack("{s:s, s:s}", "problem", enc_wproblem_name(p->kind), "tensor", p->name);
            if (p->want_ndim) {
                const long long d[2] = { p->want[0], p->want[1] };
                json_object_set_new(o, "expected_shape", shape_json(p->want_ndim, d));
            }
            if (p->got_ndim || p->kind == ENC_WP_UNEXPECTED || p->kind == ENC_WP_SHAPE)
                json_object_set_new(o, "found_shape", shape_json(p->got_ndim, p->got));
            if (p->want_dtype[0]) json_object_set_new(o, "expected_dtype", json_string(p->want_dtype));
            if (p->got_dtype[0]) json_object_set_new(o, "found_dtype", json_string(p->got_dtype));
            if (p->detail[0]) json_object_set_new(o, "detail", json_string(p->detail));
            json_object_set_new(o, "message", json_string(text));
            json_array_append_new(probs, o);
        }
        for (int i = 0; i < r.n_ignored; i++) json_array_append_new(ign, json_string(r.ignored[i]));
        json_t *j = json_pack("{s:s, s:s, s:s, s:b, s:i, s:i, s:o, s:o}", "config", cpath, "kind", enc_kind_name(cfg.kind),
                              "file", wpath, "fits", r.n == 0, "expected", r.n_expected, "found", r.n_file, "ignored", ign,
                              "problems", probs);
        cli_print_json(&c, j, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        json_decref(j);
    } else {
        for (int i = 0; i < r.n; i++) {
            char text[SP_ERRLEN];
            enc_weights_problem_text(wpath, &r, &r.p[i], text, sizeof text);
            printf("%s\n", text);
        }
        if (r.n_ignored && !c.common.quiet)
            printf("%s: %d tensor%s ignored (not used for encoding), e.g. %s\n", wpath, r.n_ignored, r.n_ignored == 1 ? "" : "s",
                   r.ignored[0]);
        if (r.n == 0) {
            printf("%s fits %s (%s): %d tensors\n", wpath, cpath, enc_kind_name(cfg.kind), r.n_expected);
        } else {
            static const char *const what[] = { "missing", "unexpected", "mis-shaped", "of another dtype", "given twice", "not finite" };
            char parts[256] = "";
            for (int k = 0; k <= ENC_WP_NONFINITE; k++) {
                size_t L = strlen(parts);
                if (count[k]) snprintf(parts + L, sizeof parts - L, "%s%d %s", L ? ", " : "", count[k], what[k]);
            }
            printf("%s does not fit %s (%s): %d problem%s (%s); %d tensors expected, %d in the file\n", wpath, cpath,
                   enc_kind_name(cfg.kind), r.n, r.n == 1 ? "" : "s", parts, r.n_expected, r.n_file);
        }
    }
    rc = r.n ? SP_EXIT_INPUT : SP_EXIT_OK;
    enc_weights_report_free(&r);
    return cli_done(&c, rc);
}

static const struct cli_sub subcommands[] = {
    { weights_check, &weights_check_doc },
    { weights_list, &weights_list_doc },
};

const struct cli_doc cmd_weights_doc = {
    .name = "weights",
    .purpose = "check a safetensors file against an encoder config; list the tensors it reads",
    .subs = subcommands,
    .n_subs = sizeof subcommands / sizeof subcommands[0],
};

int cmd_weights(int argc, char **argv)
{
    return cli_subcommands(&cmd_weights_doc, argc, argv);
}
