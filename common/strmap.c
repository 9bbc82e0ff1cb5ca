/* common/strmap.c — see strmap.h. (Moved from probes/task_derive.c, whose offset basis had lost its
 * last digit: a hash all the same, but not FNV-1a. Only slots depend on it, never an order.) */
#include "common/strmap.h"
#include "common/sp.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define STRMAP_CAP0 1024

static uint64_t fnv1a(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;   /* the FNV-1a 64-bit offset basis */
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static void alloc_slots(struct sp_strmap *m, size_t cap)
{
    m->cap = cap;
    m->n = 0;
    m->key = sp_xcalloc(cap, sizeof *m->key);
    m->val = sp_xcalloc(cap, sizeof *m->val);
    m->first = sp_xcalloc(cap, sizeof *m->first);
}

void sp_strmap_init(struct sp_strmap *m) { alloc_slots(m, STRMAP_CAP0); }

void sp_strmap_free(struct sp_strmap *m)
{
    free(m->key); free(m->val); free(m->first);
    memset(m, 0, sizeof *m);
}

size_t sp_strmap_slot(const struct sp_strmap *m, const char *k)
{
    size_t i = fnv1a(k) & (m->cap - 1);
    while (m->key[i] && strcmp(m->key[i], k)) i = (i + 1) & (m->cap - 1);
    return i;
}

int sp_strmap_get(const struct sp_strmap *m, const char *k)
{
    size_t i = sp_strmap_slot(m, k);
    return m->key[i] ? m->val[i] : 0;
}

/* twice the slots, every key moved with its value and insertion index */
static void grow(struct sp_strmap *m)
{
    struct sp_strmap g;
    alloc_slots(&g, m->cap * 2);
    for (size_t i = 0; i < m->cap; i++)
        if (m->key[i]) {
            size_t j = sp_strmap_slot(&g, m->key[i]);
            g.key[j] = m->key[i]; g.val[j] = m->val[i]; g.first[j] = m->first[i];
        }
    g.n = m->n;
    sp_strmap_free(m);
    *m = g;
}

void sp_strmap_add(struct sp_strmap *m, struct sp_arena *a, const char *k, int d)
{
    if (2 * (m->n + 1) > m->cap) grow(m);
    size_t i = sp_strmap_slot(m, k);
    if (!m->key[i]) { m->key[i] = sp_arena_strdup(a, k); m->first[i] = (int)m->n++; }
    m->val[i] += d;
}
