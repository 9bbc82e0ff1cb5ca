/* tests/unit/encoder_sft_model.c — a model folder's weights (issue 36, weights): tensors are typed
 * views into the mapped file (F32, F16, BF16 as stored; other dtypes listed, refused as weights
 * naming the tensor and dtype); a sharded checkpoint (model.safetensors.index.json + shards written
 * here by hand) reads as one, each tensor from its shard; every bad index (not JSON, no
 * weight_map, a shard path with '/' or '..', a missing shard, a name the shard lacks, a tensor in
 * two shards, a shard tensor the index does not name) is refused with the JSON path; a folder
 * with only pytorch_model.bin (or another pickle) gets the one-line conversion hint. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "encoder/encoder_int.h"
#include "tests/unit/t_harness.h"

static char root[] = "/tmp/sp-sftm-XXXXXX";
static char err[SP_ERRLEN];

/* DIR/NAME: header (padded with spaces to 8) + the data bytes */
static void write_st(const char *dir, const char *name, const char *header, const void *data, size_t n)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "wb");
    size_t hl = strlen(header), pad = (8 - hl % 8) % 8;
    uint64_t L = hl + pad;
    fwrite(&L, 8, 1, f);
    fwrite(header, 1, hl, f);
    for (size_t i = 0; i < pad; i++) fputc(' ', f);
    fwrite(data, 1, n, f);
    fclose(f);
}

static void write_text(const char *dir, const char *name, const char *text)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    fputs(text, f);
    fclose(f);
}

static const char *mkfolder(const char *name)
{
    static char p[512];
    snprintf(p, sizeof p, "%s/%s", root, name);
    mkdir(p, 0700);
    return p;
}

/* one file: an F32, an F16, a BF16 and an I64 tensor, viewed as stored */
static void typed_views(void)
{
    const char *d = mkfolder("one");
    uint8_t data[8 + 6 + 4 + 16];
    const float f[2] = { 1.5f, -2.0f };
    const uint16_t h[3] = { 0x3c00, 0xc000, 0x0001 }, bf[2] = { 0x3f80, 0xc040 };
    const int64_t ids[2] = { 0, 1 };
    memcpy(data, f, 8);
    memcpy(data + 8, h, 6);
    memcpy(data + 14, bf, 4);
    memcpy(data + 18, ids, 16);
    write_st(d, "model.safetensors",
             "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
             "\"h\":{\"dtype\":\"F16\",\"shape\":[1,3],\"data_offsets\":[8,14]},"
             "\"b\":{\"dtype\":\"BF16\",\"shape\":[2,1],\"data_offsets\":[14,18]},"
             "\"position_ids\":{\"dtype\":\"I64\",\"shape\":[1,2],\"data_offsets\":[18,34]}}", data, sizeof data);
    struct enc_sft s;
    T_EQ_INT(enc_sft_open_model(d, &s, err, sizeof err), SP_OK);
    if (s.n != 4) { T_EQ_INT(s.n, 4); fprintf(stderr, "%s\n", err); return; }
    struct enc_tview v;
    T_EQ_INT(enc_sft_view(&s, enc_sft_find(&s, "a"), &v, err, sizeof err), SP_OK);
    T_CHECK(v.dt == ENC_DT_F32 && v.ndim == 1 && v.shape[0] == 2 && v.count == 2 && ((const float *)v.p)[1] == -2.0f);
    T_EQ_INT(enc_sft_view(&s, enc_sft_find(&s, "h"), &v, err, sizeof err), SP_OK);
    T_CHECK(v.dt == ENC_DT_F16 && v.ndim == 2 && v.shape[1] == 3 && ((const uint16_t *)v.p)[1] == 0xc000);
    float w[3];
    enc_dt_widen(v.dt, v.p, 0, 3, w);
    T_CHECK(w[0] == 1.0f && w[1] == -2.0f && w[2] == 0x1p-24f);
    T_EQ_INT(enc_sft_view(&s, enc_sft_find(&s, "b"), &v, err, sizeof err), SP_OK);
    T_CHECK(v.dt == ENC_DT_BF16 && v.shape[0] == 2);
    enc_dt_widen(v.dt, v.p, 1, 1, w);
    T_CHECK(w[0] == -3.0f);
    /* the view points into the mapping of the file: no copy */
    T_CHECK((const uint8_t *)v.p >= (const uint8_t *)s.shard[0].map &&
            (const uint8_t *)v.p < (const uint8_t *)s.shard[0].map + s.shard[0].len);
    T_EQ_INT(enc_sft_view(&s, enc_sft_find(&s, "position_ids"), &v, err, sizeof err), SP_EPARSE);
    T_CHECK(strstr(err, "one/model.safetensors: tensor position_ids: dtype I64 is not supported") != NULL);
    /* non-finite halves found without widening */
    const uint16_t nf[4] = { 0x3c00, 0x7c00, 0x7f80, 0 };
    T_EQ_INT(enc_dt_first_nonfinite(ENC_DT_F16, nf, 4), 1);
    T_EQ_INT(enc_dt_first_nonfinite(ENC_DT_BF16, nf, 4), 2);
    T_EQ_INT(enc_dt_first_nonfinite(ENC_DT_BF16, nf, 2), -1);
    enc_sft_release(&s, enc_sft_find(&s, "a"));      /* a tensor smaller than a page: nothing dropped */
    T_CHECK(((const float *)enc_sft_find(&s, "a")->data)[0] == 1.5f);
    enc_sft_close(&s);
}

#define T2(n, dt, a, b) "\"" n "\":{\"dtype\":\"" dt "\",\"shape\":[2],\"data_offsets\":[" #a "," #b "]}"

/* shards: s1 holds x (F32) and y (BF16), s2 holds z (F16) */
static void write_shards(const char *d)
{
    const float x[2] = { 1.0f, 2.0f };
    const uint16_t y[2] = { 0x4040, 0xbf80 }, z[2] = { 0x3800, 0x4400 };
    uint8_t d1[12];
    memcpy(d1, x, 8);
    memcpy(d1 + 8, y, 4);
    write_st(d, "model-00001-of-00002.safetensors", "{" T2("x", "F32", 0, 8) "," T2("y", "BF16", 8, 12) "}", d1, 12);
    write_st(d, "model-00002-of-00002.safetensors", "{\"__metadata__\":{\"format\":\"pt\"}," T2("z", "F16", 0, 4) "}", z, 4);
}

#define IDX(map) "{\"metadata\":{\"total_size\":16},\"weight_map\":{" map "}}"
#define GOOD "\"x\":\"model-00001-of-00002.safetensors\",\"y\":\"model-00001-of-00002.safetensors\"," \
             "\"z\":\"model-00002-of-00002.safetensors\""

static void sharded(void)
{
    const char *d = mkfolder("sharded");
    write_shards(d);
    write_text(d, "model.safetensors.index.json", IDX(GOOD));
    struct enc_sft s;
    T_EQ_INT(enc_sft_open_model(d, &s, err, sizeof err), SP_OK);
    if (s.n != 3) { T_EQ_INT(s.n, 3); fprintf(stderr, "%s\n", err); return; }
    T_EQ_INT(s.n_shard, 2);
    T_CHECK(strstr(s.path, "sharded/model.safetensors.index.json") != NULL);
    struct enc_tview v;
    float w[2];
    const struct enc_sft_tensor *t = enc_sft_find(&s, "z");
    T_EQ_INT(enc_sft_view(&s, t, &v, err, sizeof err), SP_OK);
    enc_dt_widen(v.dt, v.p, 0, 2, w);
    T_CHECK(v.dt == ENC_DT_F16 && w[0] == 0.5f && w[1] == 4.0f);
    T_CHECK(strstr(enc_sft_file(&s, t), "model-00002-of-00002.safetensors") != NULL);
    T_EQ_INT(enc_sft_read_f32(&s, enc_sft_find(&s, "y"), w, err, sizeof err), SP_OK);
    T_CHECK(w[0] == 3.0f && w[1] == -1.0f);
    T_EQ_INT(enc_sft_read_f32(&s, enc_sft_find(&s, "x"), w, err, sizeof err), SP_OK);
    T_CHECK(w[0] == 1.0f && w[1] == 2.0f);
    enc_sft_close(&s);
}

/* one bad index: open fails, the message holds want */
static void bad_index(const char *name, const char *index, int rc_want, const char *want)
{
    const char *d = mkfolder(name);
    write_shards(d);
    write_text(d, "model.safetensors.index.json", index);
    struct enc_sft s;
    err[0] = 0;
    int rc = enc_sft_open_model(d, &s, err, sizeof err);
    T_EQ_INT(rc, rc_want);
    if (rc == SP_OK) enc_sft_close(&s);
    if (!strstr(err, want) || !strstr(err, "model.safetensors.index.json")) {
        T_CHECK(0);
        fprintf(stderr, "  %s: got \"%s\", expected it to hold \"%s\"\n", name, err, want);
    }
}

static void bad_indexes(void)
{
    bad_index("notjson", "{\"weight_map\":", SP_EPARSE, "not JSON");
    bad_index("nomap", "{\"metadata\":{}}", SP_EPARSE, "weight_map: expected an object of tensor name -> shard file");
    bad_index("emptymap", IDX(""), SP_EPARSE, "weight_map: expected an object");
    bad_index("notstring", IDX("\"x\":3"), SP_EPARSE, "weight_map[\"x\"]: expected a shard file name (string)");
    bad_index("slash", IDX("\"x\":\"sub/model.safetensors\""), SP_EPARSE,
              "weight_map[\"x\"]: \"sub/model.safetensors\": a shard must be a file name in the model folder (no '/' or '..')");
    bad_index("dotdot", IDX("\"x\":\"..model.safetensors\""), SP_EPARSE, "weight_map[\"x\"]: \"..model.safetensors\": a shard must be");
    bad_index("missing", IDX(GOOD ",\"w\":\"model-00003-of-00003.safetensors\""), SP_EIO,
              "weight_map[\"w\"]: shard ");
    bad_index("notinshard", IDX(GOOD ",\"q\":\"model-00002-of-00002.safetensors\""), SP_EPARSE,
              "weight_map[\"q\"]: the shard model-00002-of-00002.safetensors has no tensor q");
    bad_index("unnamed", IDX("\"x\":\"model-00001-of-00002.safetensors\",\"z\":\"model-00002-of-00002.safetensors\""), SP_EPARSE,
              "weight_map: has no entry for tensor y, which the shard model-00001-of-00002.safetensors holds");
    /* z is in shard 2 too: written into both (shard 1 rewritten with a z) */
    const char *d = mkfolder("twice");
    write_shards(d);
    const float x[2] = { 1.0f, 2.0f };
    uint8_t d1[16] = { 0 };
    memcpy(d1, x, 8);
    write_st(d, "model-00001-of-00002.safetensors", "{" T2("x", "F32", 0, 8) "," T2("y", "BF16", 8, 12) "," T2("z", "F16", 12, 16) "}",
             d1, 16);
    write_text(d, "model.safetensors.index.json", IDX(GOOD));
    struct enc_sft s;
    T_EQ_INT(enc_sft_open_model(d, &s, err, sizeof err), SP_EPARSE);
    T_CHECK(strstr(err, "weight_map[\"z\"]: tensor z is in two shards, model-00002-of-00002.safetensors and "
                        "model-00001-of-00002.safetensors") != NULL);
    /* a shard that is not a safetensors file: its own error, under the index entry */
    d = mkfolder("badshard");
    write_shards(d);
    write_text(d, "model-00002-of-00002.safetensors", "not a safetensors file at all");
    write_text(d, "model.safetensors.index.json", IDX(GOOD));
    T_EQ_INT(enc_sft_open_model(d, &s, err, sizeof err), SP_EPARSE);
    T_CHECK(strstr(err, "weight_map[\"z\"]: shard ") && strstr(err, "model-00002-of-00002.safetensors: header length"));
}

static void pickles(void)
{
    const char *d = mkfolder("pickle");
    write_text(d, "config.json", "{}");
    write_text(d, "pytorch_model.bin", "PK");
    struct enc_sft s;
    T_EQ_INT(enc_sft_open_model(d, &s, err, sizeof err), SP_EIO);
    char want[1024];
    snprintf(want, sizeof want, "%s/pytorch_model.bin: PyTorch pickles are not read (loading one can run code); convert it: "
             "python3 -c \"from transformers import AutoModel as M; M.from_pretrained('%s').save_pretrained('%s', "
             "safe_serialization=True)\"", d, d, d);
    T_EQ_STR(err, want);
    T_CHECK(!strchr(err, '\n'));
    d = mkfolder("pt");
    write_text(d, "weights.pt", "PK");
    T_EQ_INT(enc_sft_open_model(d, &s, err, sizeof err), SP_EIO);
    T_CHECK(strstr(err, "/weights.pt: PyTorch pickles are not read") && strstr(err, "safe_serialization=True"));
    d = mkfolder("empty");
    T_EQ_INT(enc_sft_open_model(d, &s, err, sizeof err), SP_EIO);
    T_CHECK(strstr(err, "empty: no model.safetensors or model.safetensors.index.json") != NULL);
}

int main(void)
{
    alarm(20);
    if (!mkdtemp(root)) { perror("mkdtemp"); return 1; }
    typed_views();
    sharded();
    bad_indexes();
    pickles();
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", root);
    return T_DONE();
}
