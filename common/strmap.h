/* common/strmap.h — a string → int map (open addressing, FNV-1a, linear probing), for counting
 * strings: every key remembers the order of its first insertion, so a caller can list the keys
 * in that order without sorting strings.
 *
 * The fields are public on purpose: a caller walks the slots (key[i] != NULL) to list the keys,
 * and reads key/val/first of a slot it got from sp_strmap_slot. Keys are copied into the caller's
 * arena on first insertion and live as long as it does; the map's own arrays are freed by
 * sp_strmap_free. The table never fills beyond half (it doubles), so probing always ends. */
#ifndef SP_STRMAP_H
#define SP_STRMAP_H

#include <stddef.h>

struct sp_arena;

struct sp_strmap {
    size_t cap, n;           /* slots (a power of two), keys */
    const char **key;        /* NULL: an empty slot */
    int *val, *first;        /* the key's value; its index in the order of first insertion */
};

void sp_strmap_init(struct sp_strmap *m);
void sp_strmap_free(struct sp_strmap *m);
/* the slot holding k, or the empty slot where k would go */
size_t sp_strmap_slot(const struct sp_strmap *m, const char *k);
/* k's value; 0 when k is absent (callers that need "absent" store values above 0) */
int sp_strmap_get(const struct sp_strmap *m, const char *k);
/* adds d to k's value (0 for a new key); a new key is copied into a */
void sp_strmap_add(struct sp_strmap *m, struct sp_arena *a, const char *k, int d);

#endif
