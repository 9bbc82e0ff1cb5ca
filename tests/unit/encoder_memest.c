/* tests/unit/encoder_memest.c — the memory estimate behind enc_config_check (issue 10, item 3):
 * parameter counts of small configs computed by hand from schemas/encoder-weights.md, the count
 * for every shipped config equal to what the opened encoder registers, and a config that needs
 * terabytes refused at validation with the figure (it used to pass and abort in malloc). */
#include "common/sp.h"
#include "encoder/encoder.h"
#include "tests/unit/t_harness.h"

#include <string.h>

static char err[4096];

static double params_of(const char *json)
{
    struct enc_config c;
    int rc = enc_config_parse(json, "t.json", &c, err, sizeof err);
    if (rc) { fprintf(stderr, "%s\n", err); return -1; }
    return enc_config_n_params(&c);
}

static void by_hand(void)
{
    /* san d 8, 1 layer, ff 16, post-LN, sequential PE (no tensor):
     * q k v o 4*(8*8+8) = 288, ln1 16, ffn.w1 8*16+16 = 144, ffn.w2 16*8+8 = 136, ln2 16 -> 600 */
    T_NEAR(params_of("{\"kind\":\"san\",\"d_model\":8,\"heads\":2,\"layers\":1,\"d_ff\":16}"), 600, 0);
    /* + d_input 5 != 8: input.proj 5*8+8 = 48; + pre-LN: final.ln 16 -> 664 */
    T_NEAR(params_of("{\"kind\":\"san\",\"d_model\":8,\"d_input\":5,\"heads\":2,\"layers\":1,\"d_ff\":16,\"norm\":\"pre\"}"), 664, 0);
    /* ms-san d 6, 1 layer, ff 6, pool_d_h 6: q k v o gate.in gate.out gate.w2 7*36 = 252,
     * gate.w1 36+6 = 42, ffn 42+42 = 84, ln 12, pool.w1 42, pool.w2 42 -> 474 */
    T_NEAR(params_of("{\"kind\":\"ms-san\",\"d_model\":6,\"heads\":2,\"layers\":1,\"d_ff\":6,\"pool_d_h\":6}"), 474, 0);
    /* psan d 4, 3 levels: per level a1 16 + a2 16 + a.bias 4 + c 2*4*4+4 = 36 -> 72, x3 = 216;
     * mem.g, mem.m 2*(32+4) = 72; sum.e1, sum.e2 2*(16+4) = 40 -> 328 */
    T_NEAR(params_of("{\"kind\":\"psan\",\"d_model\":4,\"levels\":3}"), 328, 0);
}

static void shipped_configs_match_the_registry(void)
{
    static const char *const files[] = { "san.json", "ms-san.json", "sg-net.json", "psan.json", "ssan.json", "san-structpe.json" };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[256];
        snprintf(path, sizeof path, "encoder/configs/%s", files[i]);
        struct enc_config c;
        T_EQ_INT(enc_config_load(path, &c, err, sizeof err), SP_OK);
        enc_t *e = NULL;
        int rc = enc_open(&c, ENC_DEVICE_CPU, NULL, 0, &e, err, sizeof err);
        T_EQ_INT(rc, SP_OK);
        if (rc) { fprintf(stderr, "%s\n", err); continue; }
        if (enc_config_n_params(&c) != (double)enc_n_params(e))
            fprintf(stderr, "%s: estimate %.0f, registry %zu\n", files[i], enc_config_n_params(&c), enc_n_params(e));
        T_CHECK(enc_config_n_params(&c) == (double)enc_n_params(e));
        T_CHECK(enc_config_mem_bytes(&c) > 4.0 * (double)enc_n_params(e));
        enc_close(e);
    }
}

static void terabytes_refused(void)
{
    /* 6 x (4*(2^32 + 2^16) + 2*2^16*2^20 + ...) ~ 9.3e11 parameters: 3.4 TiB of float32 */
    struct enc_config c;
    int rc = enc_config_parse("{\"kind\":\"san\",\"d_model\":65536,\"heads\":8,\"layers\":6,\"d_ff\":1048576}",
                              "huge.json", &c, err, sizeof err);
    T_EQ_INT(rc, SP_EPARSE);
    T_CHECK(strstr(err, "huge.json: d_model/d_ff/layers: the encoder needs about ") != NULL);
    T_CHECK(strstr(err, " GiB") != NULL);
    T_CHECK(enc_config_n_params(&c) > 9.2e11 && enc_config_n_params(&c) < 9.4e11);
    /* the C-built path (enc_open) refuses the same struct before allocating anything */
    enc_t *e = NULL;
    T_EQ_INT(enc_open(&c, ENC_DEVICE_CPU, NULL, 0, &e, err, sizeof err), SP_EPARSE);
    T_CHECK(e == NULL);
}

int main(void)
{
    by_hand();
    shipped_configs_match_the_registry();
    terabytes_refused();
    return T_DONE();
}
