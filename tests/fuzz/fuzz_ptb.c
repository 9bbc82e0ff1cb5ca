/* tests/fuzz/fuzz_ptb.c — libFuzzer target for the ptb reader (see fuzz_common.h). */
#include "tests/fuzz/fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return fz_run(SP_FMT_PTB, data, size); }
