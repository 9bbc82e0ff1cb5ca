/* tests/unit/encoder_config.c — encoder config parsing and validation: the example configs load,
 * defaults follow the spec (Q2, Q3, Q7, Q16, Q19, ε per kind), every bad field gives exactly one
 * clear line, and device selection without a CUDA backend. */
#include "common/sp.h"
#include "encoder/encoder.h"
#include "tests/unit/t_harness.h"

#include <string.h>

static char err[4096];

static int parse(const char *json, const char *name, struct enc_config *c)
{
    return enc_config_parse(json, name, c, err, sizeof err);
}

static int lines(const char *s)
{
    int n = *s ? 1 : 0;
    for (; *s; s++) n += *s == '\n';
    return n;
}

static void examples(void)
{
    static const char *const files[] = { "san.json", "ms-san.json", "sg-net.json", "psan.json", "ssan.json", "san-structpe.json" };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[256];
        snprintf(path, sizeof path, "encoder/configs/%s", files[i]);
        struct enc_config c;
        int rc = enc_config_load(path, &c, err, sizeof err);
        if (rc) fprintf(stderr, "%s\n", err);
        T_EQ_INT(rc, SP_OK);
    }
    struct enc_config c;
    T_EQ_INT(enc_config_load("encoder/configs/ms-san.json", &c, err, sizeof err), SP_OK);
    T_EQ_INT(c.kind, ENC_MSSAN); T_EQ_INT(c.d_model, 600); T_EQ_INT(c.heads, 6); T_EQ_INT(c.d_ff, 2400);
    T_EQ_INT(c.dist[0], ENC_DIST_WORD); T_EQ_INT(c.dist[1], ENC_DIST_DEP); T_EQ_INT(c.dist[2], ENC_DIST_NONE);
    T_EQ_INT(enc_config_load("encoder/configs/psan.json", &c, err, sizeof err), SP_OK);
    T_EQ_INT(c.d_model, 300); T_EQ_INT(c.levels, 3);
    T_EQ_INT(enc_config_load("encoder/configs/san-structpe.json", &c, err, sizeof err), SP_OK);
    T_EQ_INT(c.position, ENC_POS_SEQ_STRUCT); T_EQ_INT(c.rel_struct, 1); T_EQ_INT(c.rel_seq, 0); T_EQ_INT(c.rel_clip, 16);
    T_EQ_INT(enc_config_load("encoder/configs/no-such.json", &c, err, sizeof err), SP_EIO);
}

static void defaults(void)
{
    struct enc_config c;
    T_EQ_INT(parse("{\"kind\":\"ms-san\",\"d_model\":120}", "a.json", &c), SP_OK);
    T_EQ_INT(c.d_ff, 120);                                  /* Q3: d_h = d_e */
    T_EQ_INT(c.pool_d_h, 120);
    T_NEAR(c.alpha, 1.0, 0);                                /* Q2 */
    T_NEAR(c.ln_eps, 1e-6, 1e-12);
    T_EQ_INT(c.strict_direction, 0);                        /* Q1 inclusive */
    T_EQ_INT(parse("{\"kind\":\"san\",\"d_model\":64,\"heads\":4}", "b.json", &c), SP_OK);
    T_EQ_INT(c.d_ff, 256);
    T_EQ_INT(c.pooling, ENC_POOL_MEAN);
    T_EQ_INT(parse("{\"kind\":\"sg-net\",\"d_model\":64,\"heads\":4}", "c.json", &c), SP_OK);
    T_NEAR(c.sgnet_alpha, 0.5, 0);                          /* Q7 */
    T_NEAR(c.ln_eps, 1e-12, 1e-18);
    T_EQ_INT(c.activation, ENC_ACT_GELU);
    T_EQ_INT(parse("{\"kind\":\"psan\"}", "d.json", &c), SP_OK);
    T_EQ_INT(c.psan_coarse_first, 0);                       /* Q16 fine -> coarse */
    T_EQ_INT(c.psan_highway_carry, 0);                      /* Q19 literal */
    T_EQ_INT(parse("{\"kind\":\"ssan\",\"d_model\":64,\"heads\":4,\"layers\":2}", "e.json", &c), SP_OK);
    T_EQ_INT(c.norm, ENC_PRE_LN);
    T_EQ_INT(c.selective[0], 1); T_EQ_INT(c.selective[1], 0);
}

static void errors(void)
{
    struct enc_config c;
    T_EQ_INT(parse("{\"kind\":\"ms-san\",\"d_model\":600,\"heads\":7}", "ms-san.json", &c), SP_EPARSE);
    T_EQ_STR(err, "ms-san.json: heads: expected a positive integer dividing d_model (even: 2h heads, forward + backward)");
    T_EQ_INT(parse("{\"kind\":\"ms-san\",\"d_model\":600,\"heads\":16}", "ms-san.json", &c), SP_EPARSE);   /* even, no divisor */
    T_EQ_INT(lines(err), 1);
    T_EQ_INT(parse("{\"kind\":\"san\",\"d_model\":512,\"heads\":7}", "san.json", &c), SP_EPARSE);
    T_EQ_STR(err, "san.json: heads: expected a positive integer dividing d_model");
    T_EQ_INT(parse("{\"kind\":\"san\",\"heads\":\"8\"}", "san.json", &c), SP_EPARSE);
    T_EQ_STR(err, "san.json: heads: expected a positive integer dividing d_model");
    T_EQ_INT(parse("{\"kind\":\"san\",\"colour\":1}", "x.json", &c), SP_EPARSE);
    T_EQ_STR(err, "x.json: colour: unknown field (see schemas/encoder.schema.json)");
    T_EQ_INT(parse("{\"kind\":\"transformer\"}", "x.json", &c), SP_EPARSE);
    T_EQ_STR(err, "x.json: kind: expected one of \"san\", \"ms-san\", \"sg-net\", \"psan\", \"ssan\", \"bert\" or \"hf\"");
    T_EQ_INT(parse("{\"d_model\":4}", "x.json", &c), SP_EPARSE);
    T_CHECK(strstr(err, "x.json: kind: expected") != NULL);
    T_EQ_INT(parse("{\"kind\":\"san\",\"layers\":\"six\"}", "x.json", &c), SP_EPARSE);
    T_EQ_STR(err, "x.json: layers: expected an integer in 1..64");
    T_EQ_INT(parse("{\"kind\":\"psan\",\"heads\":4}", "p.json", &c), SP_EPARSE);
    T_EQ_STR(err, "p.json: heads: not used by kind psan");
    T_EQ_INT(parse("{\"kind\":\"ms-san\",\"position\":\"seq\"}", "m.json", &c), SP_EPARSE);
    T_EQ_STR(err, "m.json: position: not used by kind ms-san");
    T_EQ_INT(parse("{\"kind\":\"ms-san\",\"distances\":[\"word\",\"dep\"]}", "m.json", &c), SP_EPARSE);
    T_EQ_STR(err, "m.json: distances: expected 3 entries (heads/2), got 2");
    T_EQ_INT(parse("{\"kind\":\"ms-san\",\"distances\":[\"word\",\"tree\",\"none\"]}", "m.json", &c), SP_EPARSE);
    T_EQ_STR(err, "m.json: distances: expected an array of \"word\", \"dep\" or \"none\" (one per head pair)");
    T_EQ_INT(parse("{\"kind\":\"ssan\",\"layers\":2,\"selective_layers\":[0,3]}", "s.json", &c), SP_EPARSE);
    T_EQ_STR(err, "s.json: selective_layers: expected layer indices in 0..1 (layers-1), got 3");
    T_EQ_INT(parse("{\"kind\":\"san\",\"norm\":\"middle\"}", "x.json", &c), SP_EPARSE);
    T_EQ_STR(err, "x.json: norm: expected \"post\" or \"pre\"");
    T_EQ_INT(parse("{\"kind\":\"san\",\"ln_eps\":0}", "x.json", &c), SP_EPARSE);
    T_EQ_STR(err, "x.json: ln_eps: expected a number in (0, 1)");
    T_EQ_INT(parse("{\"kind\":\"sg-net\",\"sgnet_alpha\":1.5}", "g.json", &c), SP_EPARSE);
    T_EQ_STR(err, "g.json: sgnet_alpha: expected a number in [0, 1]");
    T_EQ_INT(parse("{\"kind\":\"psan\",\"psan_highway_carry\":1}", "p.json", &c), SP_EPARSE);
    T_EQ_STR(err, "p.json: psan_highway_carry: expected true or false");
    /* several bad fields: one line each, the bad type of heads is not reported twice */
    T_EQ_INT(parse("{\"kind\":\"san\",\"d_model\":-3,\"heads\":\"x\",\"pooling\":\"sum\",\"foo\":2}", "m.json", &c), SP_EPARSE);
    T_EQ_INT(lines(err), 4);
    T_CHECK(strstr(err, "m.json: d_model: expected a positive integer") != NULL);
    T_CHECK(strstr(err, "m.json: pooling: expected \"mean\", \"max\" or \"first\"") != NULL);
    /* syntax error: file:line */
    T_EQ_INT(parse("{\"kind\":\n\"san\",,}", "bad.json", &c), SP_EPARSE);
    T_CHECK(!strncmp(err, "bad.json:2: ", 12));
    T_EQ_INT(parse("[1]", "arr.json", &c), SP_EPARSE);
    /* a config built in C is checked by enc_open too */
    enc_config_defaults(&c, ENC_SAN);
    c.heads = 5;
    enc_t *e = NULL;
    T_EQ_INT(enc_open(&c, ENC_DEVICE_CPU, NULL, 0, &e, err, sizeof err), SP_EPARSE);
    T_CHECK(e == NULL);
}

static void devices(void)
{
    struct enc_config c;
    T_EQ_INT(parse("{\"kind\":\"psan\",\"d_model\":8}", "p.json", &c), SP_OK);
    enc_t *e = NULL;
    T_EQ_INT(enc_open(&c, ENC_DEVICE_AUTO, NULL, 0, &e, err, sizeof err), SP_OK);
    T_CHECK(e != NULL);
    if (e) {
        T_EQ_STR(enc_backend_name(e), "cpu");
        T_EQ_INT(enc_dim(e), 8);
        T_EQ_INT(enc_needs(e), ENC_NEED_PID);
        T_EQ_INT(enc_attn_layers(e), 3);
    }
    enc_close(e);
    e = NULL;
    int rc = enc_open(&c, ENC_DEVICE_CUDA, NULL, 0, &e, err, sizeof err);
    T_EQ_INT(rc, SP_EGPU);                                  /* no enc_cuda.cu linked in this build */
    T_CHECK(e == NULL);
    T_CHECK(strstr(err, "device cuda requested") != NULL);
}

int main(void)
{
    examples(); defaults(); errors(); devices();
    return T_DONE();
}
