/* cli/cmd_weights.c — synprobe weights check|list: what an encoder config reads from a weights
 * file, and whether a file fits it (encoder.h: enc_weights_expected, enc_weights_check; both
 * from the code that opens the encoder, so a file `check` passes is one `encode --weights` loads). */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "encoder/encoder.h"
#include "stages/encode.h"

static const char usage_check[] =
    "usage: synprobe weights check [--json] CONFIG.json W.safetensors\n"
    "\n"
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
    "cannot be read (not a safetensors file, truncated: the message names it), 2 usage.\n";

static const char usage_list[] =
    "usage: synprobe weights list [--json] CONFIG.json\n"
    "\n"
    "Prints every tensor the encoder config reads from a weights file, in the order `encode\n"
    "--save-weights` writes them: name, shape (as stored in the file) and dtype. bert: the names and\n"
    "shapes of a Hugging Face BertModel file for the model directory's config.json.\n"
    "Exit: 0 ok, 1 a bad config, 2 usage.\n";

/* the config as `encode` opens it: with a "base", d_input is the base's width (the base is opened
 * on the CPU to learn it, as encode does) */
static int load_config(struct cli *c, const char *cmd, const char *path, struct enc_config *cfg)
{
    char err[SP_ERRLEN];
    int rc = enc_config_load(path, cfg, err, sizeof err);
    if (rc == SP_OK && cfg->base[0]) rc = stg_encode_open_base(cfg, path, ENC_DEVICE_CPU, &c->log, NULL, err, sizeof err);
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
    const struct sp_optbind b[] = { { cli_json_option, &c.common } };
    int rc = cli_parse(&c, "weights list", usage_list, b, 1, argc, argv, 1);
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
        int w = 4;
        for (int i = 0; i < n; i++) if ((int)strlen(t[i].name) > w) w = (int)strlen(t[i].name);
        for (int i = 0; i < n; i++) {
            char sh[48];
            if (t[i].ndim == 2) snprintf(sh, sizeof sh, "[%d,%d]", t[i].shape[0], t[i].shape[1]);
            else snprintf(sh, sizeof sh, "[%d]", t[i].shape[0]);
            printf("%-*s  %-12s F32\n", w, t[i].name, sh);
        }
        if (!c.common.quiet) fprintf(stderr, "synprobe weights list: %s (%s): %d tensors\n", c.operands.v[0], enc_kind_name(cfg.kind), n);
    }
    free(t);
    return cli_done(&c, SP_EXIT_OK);
}

static int weights_check(int argc, char **argv)
{
    struct cli c;
    const struct sp_optbind b[] = { { cli_json_option, &c.common } };
    int rc = cli_parse(&c, "weights check", usage_check, b, 1, argc, argv, 1);
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

static const struct sub { const char *name; sp_cmd_fn fn; const char *usage; } subcommands[] = {
    { "check", weights_check, usage_check },
    { "list", weights_list, usage_list },
};
#define N_SUB (sizeof subcommands / sizeof subcommands[0])

int cmd_weights(int argc, char **argv)
{
    const char *names[N_SUB];
    for (size_t i = 0; i < N_SUB; i++) {
        names[i] = subcommands[i].name;
        if (argc >= 2 && !strcmp(argv[1], names[i])) return subcommands[i].fn(argc - 1, argv + 1);
    }
    if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        if (cli_help_is_man()) {        /* the man page: each subcommand's section */
            for (size_t i = 0; i < N_SUB; i++) {
                char *av[] = { (char *)subcommands[i].name, "--help", NULL };
                subcommands[i].fn(2, av);
            }
            return SP_EXIT_OK;
        }
        for (size_t i = 0; i < N_SUB; i++) printf("%s%s", i ? "\n" : "", subcommands[i].usage);
        puts("\nsubcommands: check, list (synprobe weights SUBCOMMAND --help for its options)");
        return SP_EXIT_OK;
    }
    for (size_t i = 0; i < N_SUB; i++) fprintf(stderr, "%s%s", i ? "\n" : "", subcommands[i].usage);
    if (argc < 2) return cli_fail(SP_EXIT_USAGE, "weights", "a subcommand is required (check or list)");
    char sugg[128];
    sp_suggest(sugg, sizeof sugg, argv[1], names, N_SUB);
    return cli_fail(SP_EXIT_USAGE, "weights", "unknown subcommand '%s'%s%s (expected check or list)", argv[1], sugg[0] ? "; " : "",
                    sugg);
}
