/* ingest/heads.c — HEAD values, validation and repair (docs/spec/structures.md §2.1), shared by the readers and
 * the public ing_heads_valid / ing_repair_heads. */
#include "ingest/readers.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/ing_int.h"

int ing__head_value(const char *f, int *v)
{
    if (f[0] == '_' && f[1] == 0) { *v = -1; return 1; }
    const char *p = f;
    if (*p == '-') p++;
    if (*p < '0' || *p > '9') { *v = -1; return 0; }
    long x = 0;
    for (; *p >= '0' && *p <= '9'; p++)
        if (x < INT_MAX / 2) x = x * 10 + (*p - '0');
    if (*p || f[0] == '-') { *v = -1; return 0; }
    *v = x < INT_MAX / 2 ? (int)x : INT_MAX / 2;
    return 0;
}

static int is_integer_text(const char *s)
{
    if (*s == '-') s++;
    if (!*s) return 0;
    for (; *s; s++)
        if (*s < '0' || *s > '9') return 0;
    return 1;
}

int ing__heads_problem(int n, const int *h, const char *const *hraw, unsigned char *st,
                       char *msg, size_t cap)
{
    /* 1. values */
    for (int k = 1; k <= n; k++) {
        int v = h[k - 1];
        if (v < 0 || v > n) {
            if (hraw && !is_integer_text(hraw[k - 1]))
                snprintf(msg, cap, "HEAD '%s' of word %d is not an integer (expected 0..%d)", hraw[k - 1], k, n);
            else if (hraw)
                snprintf(msg, cap, "HEAD %s out of range 0..%d for word %d", hraw[k - 1], n, k);
            else
                snprintf(msg, cap, "HEAD %d out of range 0..%d for word %d", v, n, k);
            return k;
        }
        if (v == k) {
            snprintf(msg, cap, "HEAD %d of word %d points to itself (expected another word or 0)", v, k);
            return k;
        }
    }
    /* 2. exactly one root */
    int root = 0, nroot = 0, second = 0;
    for (int k = 1; k <= n; k++)
        if (h[k - 1] == 0) {
            if (!nroot) root = k;
            else if (!second) second = k;
            nroot++;
        }
    if (n > 0 && nroot == 0) {
        snprintf(msg, cap, "no root: expected exactly one word with HEAD 0, got none");
        return n + 1;
    }
    if (nroot > 1) {
        snprintf(msg, cap, "expected exactly one root (HEAD 0), got %d: words %d and %d%s",
                 nroot, root, second, nroot > 2 ? " and more" : "");
        return second;
    }
    /* 3. cycles: colour 0 = unseen, 1 = on the current chain, 2 = reaches the root */
    if (n <= 0) return 0;
    memset(st, 0, (size_t)n);
    for (int k = 1; k <= n; k++) {
        int x = k;
        while (x != 0 && st[x - 1] == 0) { st[x - 1] = 1; x = h[x - 1]; }
        if (x != 0 && st[x - 1] == 1) {
            /* x lies on a cycle: name it from its smallest word */
            int c = x, y = h[x - 1];
            while (y != x) { if (y < c) c = y; y = h[y - 1]; }
            size_t o = (size_t)snprintf(msg, cap, "HEAD cycle through words %d", c);
            int cnt = 0;
            for (y = h[c - 1]; y != c && o < cap; y = h[y - 1]) {
                if (++cnt > 8) { o += (size_t)snprintf(msg + o, cap - o, " -> ..."); break; }
                o += (size_t)snprintf(msg + o, cap - o, " -> %d", y);
            }
            if (o < cap) snprintf(msg + o, cap - o, " -> %d (expected a tree)", c);
            return c;
        }
        for (x = k; x != 0 && st[x - 1] == 1; x = h[x - 1]) st[x - 1] = 2;
    }
    return 0;
}

int ing_heads_valid(int n, const int *h, const char **why)
{
    unsigned char small[256];
    unsigned char *st = n <= (int)sizeof small ? small : sp_xmalloc((size_t)n);
    char msg[160];
    int k = ing__heads_problem(n, h, NULL, st, msg, sizeof msg);
    if (st != small) free(st);
    if (k && why) {
        if (strstr(msg, "itself")) *why = "self-loop";
        else if (strstr(msg, "range") || strstr(msg, "integer")) *why = "HEAD out of range";
        else if (strstr(msg, "no root")) *why = "no root";
        else if (strstr(msg, "root")) *why = "multiple roots";
        else *why = "cycle";
    } else if (why) *why = NULL;
    return k == 0;
}

unsigned ing_repair_heads(int n, int *h)
{
    unsigned w = 0;
    /* 1. non-integers, out of range, self loops -> root */
    for (int k = 1; k <= n; k++)
        if (h[k - 1] < 0 || h[k - 1] > n || h[k - 1] == k) { h[k - 1] = 0; w |= SP_W_BADHEAD; }
    /* 2. several roots: all hang from the first */
    int rstar = 0;
    for (int k = 1; k <= n; k++) {
        if (h[k - 1] != 0) continue;
        if (!rstar) rstar = k;
        else { h[k - 1] = rstar; w |= SP_W_MULTIROOT; }
    }
    /* 3. cycles, visiting words in increasing ID and breaking each cycle at its smallest ID
     *    as soon as a head chain runs into it (TV-3b) */
    unsigned char small[256];
    if (n <= 0) return w;
    unsigned char *st = n <= (int)sizeof small ? small : sp_xmalloc((size_t)n);
    memset(st, 0, (size_t)n);
    for (int k = 1; k <= n; k++) {
        int x = k;
        while (x != 0 && st[x - 1] == 0) { st[x - 1] = 1; x = h[x - 1]; }
        int oldc = 0;
        if (x != 0 && st[x - 1] == 1) {
            int c = x;
            for (int y = h[x - 1]; y != x; y = h[y - 1])
                if (y < c) c = y;
            oldc = h[c - 1];
            if (rstar) h[c - 1] = rstar;
            else { h[c - 1] = 0; rstar = c; }
            w |= SP_W_CYCLE;
        }
        /* everything on this chain now reaches the root; so does the rest of a broken cycle
         * (from c's old head round to where the chain entered it) */
        for (x = k; x != 0 && st[x - 1] == 1; x = h[x - 1]) st[x - 1] = 2;
        for (x = oldc; x != 0 && st[x - 1] == 1; x = h[x - 1]) st[x - 1] = 2;
    }
    if (st != small) free(st);
    return w;
}
