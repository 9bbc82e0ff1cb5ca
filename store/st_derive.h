/* store/st_derive.h — cached structures of one sentence, computed (treeops) and encoded (blob.h). */
#ifndef ST_DERIVE_H
#define ST_DERIVE_H

#include "store/store.h"

/* Reusable per-thread scratch, so the hot path does not malloc per sentence. */
struct st_derive_scratch { void *mem; size_t cap; struct sp_buf text; };
void st_derive_scratch_init(struct st_derive_scratch *sc);
void st_derive_scratch_free(struct st_derive_scratch *sc);

/* Fill d for sentence s (PSAN division with `levels` levels). BLOBs and strings are
 * allocated from a (the batch arena). Returns 0, or -1 if the annotation is unusable
 * (heads not a tree, tree not covering the words), which ingest validation prevents. */
int st_derive(const struct sp_sentence *s, int levels, struct sp_arena *a, struct st_derive_scratch *sc,
              struct st_derived *d);

#endif
