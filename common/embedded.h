/* common/embedded.h — text files compiled into the binary by common/embed.sh. */
#ifndef SP_EMBEDDED_H
#define SP_EMBEDDED_H
#include <stddef.h>
struct sp_embedded { const char *name, *data; size_t len; };
extern const struct sp_embedded st_schema_files[];   /* schemas/store.sql, then migrations in order */
extern const struct sp_embedded sp_demo_files[];     /* demo/ corpus files */
#endif
