/* cli/info.h — the store summary shared by `synprobe info` and `synprobe demo`. */
#ifndef SP_INFO_H
#define SP_INFO_H
#include <stdio.h>
#include "store/store.h"
int info_print(struct st_db *db, const char *corpus, int json, FILE *out);
#endif
