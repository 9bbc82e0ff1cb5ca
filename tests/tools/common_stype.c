/* tests/tools/common_stype.c — driver for the NumPy cross-check of common/dtype.c
 * (tests/reference/dtype_ref.py, tests/cli/t2150-store-dtype.sh).
 *
 *   common_stype f16|bf16 <IN >OUT
 *
 * IN: float32 little-endian values; OUT: their sp_stype_pack of that type (uint16 little-endian,
 * one per input value), then the same values narrowed and widened again (sp_stype_unpack),
 * float32 little-endian. A driver, not a test: built into $(BUILD)/tools by `make test-cli`. */
#include <stdio.h>
#include <stdlib.h>

#include "common/dtype.h"
#include "common/sp.h"

int main(int argc, char **argv)
{
    enum sp_stype t;
    if (argc != 2 || sp_stype_parse(argv[1], &t) || t == SP_STYPE_F32) {
        fprintf(stderr, "usage: common_stype f16|bf16 <FLOAT32 >PACKED+WIDENED\n");
        return 2;
    }
    size_t n = 0, cap = 1 << 16;
    float *v = malloc(4 * cap);
    size_t k;
    while (v && (k = fread(v + n, 4, cap - n, stdin)) > 0)
        if ((n += k) == cap) v = realloc(v, 4 * (cap *= 2));
    unsigned char *packed = malloc(2 * n + 1);
    float *back = malloc(4 * n + 4);
    if (!v || !packed || !back) return 1;
    sp_stype_unpack(SP_STYPE_F32, v, n, v);     /* little-endian bytes to native floats */
    sp_stype_pack(t, v, n, packed);
    sp_stype_unpack(t, packed, n, back);
    unsigned char *le = malloc(4 * n + 4);
    sp_stype_pack(SP_STYPE_F32, back, n, le);
    int rc = fwrite(packed, 2, n, stdout) != n || fwrite(le, 4, n, stdout) != n;
    free(v); free(packed); free(back); free(le);
    return rc;
}
