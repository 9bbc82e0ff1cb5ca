/* tests/fuzz/fuzz_conllu.c — libFuzzer target for the conllu reader (see fuzz_common.h). */
#include "tests/fuzz/fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return fz_run(SP_FMT_CONLLU, data, size); }
