/* Unit tests for common/npy: round trips, hand-built headers (v1.0, v2.0, big-endian), error
 * messages, and agreement with numpy itself (np.save bytes, np.load values) when
 * /usr/bin/python3 has numpy (visible SKIP otherwise). */
#include <stdint.h>
#include <unistd.h>

#include "common/npy.h"
#include "t_harness.h"

static char tmpdir[256];

static const char *tpath(const char *name)
{
    static char buf[8][512];
    static int k;
    char *p = buf[k++ % 8];
    snprintf(p, 512, "%s/%s", tmpdir, name);
    return p;
}

/* a hand-built v1.0 file: magic, version, header padded to 64, then data */
static size_t build_v1(unsigned char *out, const char *dict, const void *data, size_t nbytes)
{
    size_t dl = strlen(dict), hl = dl + 1;
    size_t pad = (64 - (10 + hl) % 64) % 64;
    memcpy(out, "\x93NUMPY\x01\x00", 8);
    out[8] = (unsigned char)((hl + pad) & 0xff);
    out[9] = (unsigned char)((hl + pad) >> 8);
    memcpy(out + 10, dict, dl);
    memset(out + 10 + dl, ' ', pad);
    out[10 + dl + pad] = '\n';
    memcpy(out + 10 + hl + pad, data, nbytes);
    return 10 + hl + pad + nbytes;
}

static void test_round_trips(void)
{
    char err[SP_ERRLEN];
    float f[6] = { 1.5f, -2.25f, 3e-8f, 0.0f, 1e30f, -7.0f };
    size_t sh2[2] = { 2, 3 };
    T_EQ_INT(sp_npy_write(tpath("f.npy"), SP_DT_F32, 2, sh2, f, err, sizeof err), SP_OK);
    struct sp_npy a;
    T_EQ_INT(sp_npy_read(tpath("f.npy"), &a, err, sizeof err), SP_OK);
    T_EQ_INT(a.dtype, SP_DT_F32);
    T_EQ_INT(a.ndim, 2);
    T_EQ_INT(a.shape[0], 2);
    T_EQ_INT(a.shape[1], 3);
    T_EQ_INT(a.count, 6);
    T_CHECK(a.data && !memcmp(a.data, f, sizeof f));
    sp_npy_free(&a);

    double dd[4] = { 0.1, -1e300, 2.5, 3.0 };
    size_t sh1[1] = { 4 };
    T_EQ_INT(sp_npy_write(tpath("d.npy"), SP_DT_F64, 1, sh1, dd, err, sizeof err), SP_OK);
    T_EQ_INT(sp_npy_read(tpath("d.npy"), &a, err, sizeof err), SP_OK);
    T_EQ_INT(a.dtype, SP_DT_F64);
    T_EQ_INT(a.ndim, 1);
    T_CHECK(!memcmp(a.data, dd, sizeof dd));
    sp_npy_to_f32(&a);
    T_EQ_INT(a.dtype, SP_DT_F32);
    T_NEAR(((float *)a.data)[0], 0.1, 1e-7);
    T_CHECK(isinf(((float *)a.data)[1]));
    sp_npy_free(&a);

    int32_t iv = -123456;
    T_EQ_INT(sp_npy_write(tpath("i.npy"), SP_DT_I32, 0, NULL, &iv, err, sizeof err), SP_OK);
    T_EQ_INT(sp_npy_read(tpath("i.npy"), &a, err, sizeof err), SP_OK);
    T_EQ_INT(a.dtype, SP_DT_I32);
    T_EQ_INT(a.ndim, 0);
    T_EQ_INT(a.count, 1);
    T_EQ_INT(((int32_t *)a.data)[0], -123456);
    sp_npy_free(&a);

    size_t sh3[3] = { 2, 0, 3 };
    T_EQ_INT(sp_npy_write(tpath("e.npy"), SP_DT_F32, 3, sh3, NULL, err, sizeof err), SP_OK);
    T_EQ_INT(sp_npy_read(tpath("e.npy"), &a, err, sizeof err), SP_OK);
    T_EQ_INT(a.count, 0);
    T_EQ_INT(a.ndim, 3);
    sp_npy_free(&a);

    /* the header of what we write: 64-byte aligned data, numpy's text (checked by hand) */
    FILE *fp = fopen(tpath("f.npy"), "rb");
    unsigned char h[128];
    size_t got = fread(h, 1, sizeof h, fp);
    fclose(fp);
    T_EQ_INT(got, 128);
    T_CHECK(!memcmp(h, "\x93NUMPY\x01\x00", 8));
    T_EQ_INT(h[8] | h[9] << 8, 118);                       /* 10 + 118 = 128 */
    T_CHECK(!memcmp(h + 10, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 59));
    T_EQ_INT(h[127], '\n');
}

static void test_hand_built(void)
{
    char err[SP_ERRLEN];
    unsigned char buf[512];
    struct sp_npy a;
    /* keys in another order, double quotes, no trailing comma, 1-tuple */
    float v[2] = { 4.0f, -0.5f };
    size_t n = build_v1(buf, "{\"shape\": (2,), \"fortran_order\": False, \"descr\": \"<f4\"}", v, sizeof v);
    T_EQ_INT(sp_npy_parse("mem.npy", buf, n, &a, err, sizeof err), SP_OK);
    T_EQ_INT(a.ndim, 1);
    T_EQ_INT(a.shape[0], 2);
    T_CHECK(!memcmp(a.data, v, sizeof v));
    sp_npy_free(&a);

    /* big-endian int32 1 and -2 */
    unsigned char be[8] = { 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xfe };
    n = build_v1(buf, "{'descr': '>i4', 'fortran_order': False, 'shape': (2,), }", be, sizeof be);
    T_EQ_INT(sp_npy_parse("be.npy", buf, n, &a, err, sizeof err), SP_OK);
    T_EQ_INT(a.dtype, SP_DT_I32);
    T_EQ_INT(((int32_t *)a.data)[0], 1);
    T_EQ_INT(((int32_t *)a.data)[1], -2);
    sp_npy_free(&a);

    /* version 2.0: 4-byte header length */
    const char *dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (1, 1), }";
    size_t dl = strlen(dict), hl = dl + 1, pad = (64 - (12 + hl) % 64) % 64;
    memcpy(buf, "\x93NUMPY\x02\x00", 8);
    uint32_t L = (uint32_t)(hl + pad);
    buf[8] = L & 0xff; buf[9] = L >> 8 & 0xff; buf[10] = 0; buf[11] = 0;
    memcpy(buf + 12, dict, dl);
    memset(buf + 12 + dl, ' ', pad);
    buf[12 + dl + pad] = '\n';
    double one = 1.25;
    memcpy(buf + 12 + hl + pad, &one, 8);
    T_EQ_INT(sp_npy_parse("v2.npy", buf, 12 + hl + pad + 8, &a, err, sizeof err), SP_OK);
    T_EQ_INT(a.dtype, SP_DT_F64);
    T_NEAR(((double *)a.data)[0], 1.25, 0);
    sp_npy_free(&a);
}

static void expect_err(const char *name, const void *buf, size_t n, const char *needle)
{
    char err[SP_ERRLEN] = "";
    struct sp_npy a;
    int rc = sp_npy_parse(name, buf, n, &a, err, sizeof err);
    t_run++;
    if (rc == SP_OK || !strstr(err, needle) || strncmp(err, name, strlen(name))) {
        t_fail++;
        fprintf(stderr, "FAIL %s:%d: %s: rc %d, message '%s', expected it to name the file and say '%s'\n",
                __FILE__, __LINE__, name, rc, err, needle);
    }
    T_CHECK(a.data == NULL);
    sp_npy_free(&a);
}

static void test_errors(void)
{
    unsigned char buf[512];
    float v[4] = { 1, 2, 3, 4 };
    expect_err("magic.npy", "\x93NUMPX\x01\x00\x10\x00{}", 12, "bad magic");
    expect_err("short.npy", "\x93NU", 4, "bad magic");
    size_t n = build_v1(buf, "{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }", v, 16);
    expect_err("int64.npy", buf, n, "unsupported dtype '<i8'");
    n = build_v1(buf, "{'descr': '|u1', 'fortran_order': False, 'shape': (2,), }", v, 2);
    expect_err("u8.npy", buf, n, "unsupported dtype '|u1'");
    /* Fortran order: 2-D arrays transposed into C order on read (column-major 1 2 3 4 is
     * [[1, 3], [2, 4]]); more dimensions refused */
    n = build_v1(buf, "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", v, 16);
    {
        struct sp_npy fa;
        char e2[256];
        T_EQ_INT(sp_npy_parse("fortran.npy", buf, n, &fa, e2, sizeof e2), SP_OK);
        const float *f = fa.data;
        T_CHECK(f[0] == 1 && f[1] == 3 && f[2] == 2 && f[3] == 4);
        sp_npy_free(&fa);
    }
    n = build_v1(buf, "{'descr': '<f4', 'fortran_order': True, 'shape': (1, 2, 2), }", v, 16);
    expect_err("fortran3.npy", buf, n, "fortran_order is True with 3 dimensions");
    n = build_v1(buf, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }", v, 16);
    expect_err("trunc.npy", buf, n - 3, "truncated data: expected 16 bytes");
    n = build_v1(buf, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", v, 16);
    expect_err("extra.npy", buf, n, "4 unexpected bytes");
    n = build_v1(buf, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }", v, 16);
    expect_err("hdr.npy", buf, 40, "truncated header");
    n = build_v1(buf, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }", v, 16);
    buf[6] = 4;
    expect_err("ver.npy", buf, n, "unsupported .npy format version 4.0");
    n = build_v1(buf, "{'descr': '<f4', 'shape': (2, 2), }", v, 16);
    expect_err("nofortran.npy", buf, n, "missing 'fortran_order'");

    char err[SP_ERRLEN];
    struct sp_npy a;
    T_EQ_INT(sp_npy_read(tpath("does-not-exist.npy"), &a, err, sizeof err), SP_EIO);
    T_CHECK(strstr(err, "does-not-exist.npy: cannot open") != NULL);
}

/* numpy as the independent implementation */
static void test_numpy(void)
{
    if (system("/usr/bin/python3 -c 'import numpy' 2>/dev/null") != 0) {
        T_SKIP("numpy interop: /usr/bin/python3 with numpy not available");
        return;
    }
    char err[SP_ERRLEN], cmd[2048];
    /* 1. numpy writes, we read */
    snprintf(cmd, sizeof cmd,
             "/usr/bin/python3 -c \"\n"
             "import numpy as np, numpy.lib.format as F\n"
             "d='%s'\n"
             "np.save(d+'/np_f4.npy', np.arange(12, dtype=np.float32).reshape(3, 4) / 8)\n"
             "np.save(d+'/np_f8.npy', np.array([[1e-300, -2.5]]))\n"
             "np.save(d+'/np_i4.npy', np.array([7, -8, 9], dtype=np.int32))\n"
             "np.save(d+'/np_be.npy', np.array([1.5, -3], dtype='>f4'))\n"
             "np.save(d+'/np_fo.npy', np.asfortranarray(np.arange(6, dtype=np.float32).reshape(2, 3)))\n"
             "np.save(d+'/np_i8.npy', np.arange(3))\n"
             "F.write_array(open(d+'/np_v2.npy', 'wb'), np.full((2, 2), 0.5, np.float32), version=(2, 0))\n"
             "np.save(d+'/np_ref.npy', np.array([[1.5, -2.25, 3e-8], [0.0, 1e30, -7.0]], dtype=np.float32))\n"
             "\"", tmpdir);
    T_EQ_INT(system(cmd), 0);
    struct sp_npy a;
    T_EQ_INT(sp_npy_read(tpath("np_f4.npy"), &a, err, sizeof err), SP_OK);
    T_EQ_INT(a.shape[0], 3);
    T_EQ_INT(a.shape[1], 4);
    T_NEAR(((float *)a.data)[11], 11.0 / 8, 0);
    sp_npy_free(&a);
    T_EQ_INT(sp_npy_read(tpath("np_f8.npy"), &a, err, sizeof err), SP_OK);
    T_NEAR(((double *)a.data)[0], 1e-300, 0);
    T_NEAR(((double *)a.data)[1], -2.5, 0);
    sp_npy_free(&a);
    T_EQ_INT(sp_npy_read(tpath("np_i4.npy"), &a, err, sizeof err), SP_OK);
    T_EQ_INT(((int32_t *)a.data)[1], -8);
    sp_npy_free(&a);
    T_EQ_INT(sp_npy_read(tpath("np_be.npy"), &a, err, sizeof err), SP_OK);
    T_NEAR(((float *)a.data)[1], -3.0, 0);
    sp_npy_free(&a);
    T_EQ_INT(sp_npy_read(tpath("np_v2.npy"), &a, err, sizeof err), SP_OK);
    T_NEAR(((float *)a.data)[3], 0.5, 0);
    sp_npy_free(&a);
    /* numpy's Fortran-order file of [[0, 1, 2], [3, 4, 5]] reads as that matrix in C order */
    T_EQ_INT(sp_npy_read(tpath("np_fo.npy"), &a, err, sizeof err), SP_OK);
    {
        int same = a.ndim == 2 && a.shape[0] == 2 && a.shape[1] == 3;
        for (int k = 0; same && k < 6; k++) same = ((float *)a.data)[k] == (float)k;
        T_CHECK(same);
    }
    sp_npy_free(&a);
    T_EQ_INT(sp_npy_read(tpath("np_i8.npy"), &a, err, sizeof err), SP_EPARSE);
    T_CHECK(strstr(err, "unsupported dtype '<i8'") != NULL);

    /* 2. we write the same array: byte-identical to np.save */
    float f[6] = { 1.5f, -2.25f, 3e-8f, 0.0f, 1e30f, -7.0f };
    size_t sh[2] = { 2, 3 };
    T_EQ_INT(sp_npy_write(tpath("our_ref.npy"), SP_DT_F32, 2, sh, f, err, sizeof err), SP_OK);
    snprintf(cmd, sizeof cmd, "cmp -s %s/our_ref.npy %s/np_ref.npy", tmpdir, tmpdir);
    T_EQ_INT(system(cmd), 0);

    /* 3. numpy reads what we write */
    double dd[3] = { 0.1, -1e300, 2.5 };
    size_t s1[1] = { 3 };
    T_EQ_INT(sp_npy_write(tpath("our_d.npy"), SP_DT_F64, 1, s1, dd, err, sizeof err), SP_OK);
    int32_t iv[4] = { 1, -2, 3, 2147483647 };
    size_t s2[2] = { 2, 2 };
    T_EQ_INT(sp_npy_write(tpath("our_i.npy"), SP_DT_I32, 2, s2, iv, err, sizeof err), SP_OK);
    snprintf(cmd, sizeof cmd,
             "/usr/bin/python3 -c \"\n"
             "import numpy as np\n"
             "d='%s'\n"
             "a = np.load(d+'/our_d.npy'); assert a.dtype == np.float64 and a.tolist() == [0.1, -1e300, 2.5], a\n"
             "b = np.load(d+'/our_i.npy'); assert b.dtype == np.int32 and b.tolist() == [[1, -2], [3, 2147483647]], b\n"
             "\"", tmpdir);
    T_EQ_INT(system(cmd), 0);
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/sp_npy_test.XXXXXX");
    if (!mkdtemp(tmpdir)) { perror("mkdtemp"); return 1; }
    test_round_trips();
    test_hand_built();
    test_errors();
    test_numpy();
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmpdir);
    return T_DONE();
}
