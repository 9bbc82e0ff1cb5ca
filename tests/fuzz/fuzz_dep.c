/* tests/fuzz/fuzz_dep.c — libFuzzer target for the dep reader (see fuzz_common.h). */
#include "tests/fuzz/fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return fz_run(SP_FMT_DEP, data, size); }
