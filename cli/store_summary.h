/* cli/store_summary.h — the store summary shared by `synprobe info` and `synprobe demo`. */
#ifndef SP_INFO_H
#define SP_INFO_H
#include <stdio.h>
#include "store/store.h"
/* The corpus figures of db (only corpus, when not NULL) as text or JSON on out; SP_EUSAGE when
 * there is no such corpus, SP_ESTORE when the store cannot be read. */
int cli_info_print(struct st_db *db, const char *corpus, int json, FILE *out);
#endif
