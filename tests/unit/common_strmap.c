/* tests/unit/common_strmap.c — sp_strmap: values, insertion order, colliding keys, growth, many
 * keys, the empty string. Colliding keys are found with the test's own FNV-1a (the published
 * offset basis and prime), not with the map's. */
#include "common/sp.h"
#include "common/strmap.h"
#include "t_harness.h"

#include <stdint.h>

static uint64_t ref_fnv1a(const char *s)
{
    uint64_t h = 14695981039346656037ull;   /* FNV-1a 64-bit offset basis */
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;   /* FNV prime */
    return h;
}

/* two distinct keys "k<i>" whose hashes agree in the low 10 bits (1024 slots): among 1025 keys
 * two must */
static void colliding_pair(char *a, char *b)
{
    static int seen[1024];
    for (int i = 0; i < 1024; i++) seen[i] = -1;
    for (int i = 0; i <= 1024; i++) {
        char k[16];
        snprintf(k, sizeof k, "k%d", i);
        int s = (int)(ref_fnv1a(k) & 1023);
        if (seen[s] >= 0) { snprintf(a, 16, "k%d", seen[s]); strcpy(b, k); return; }
        seen[s] = i;
    }
}

static void test_basic(struct sp_arena *ar)
{
    struct sp_strmap m;
    sp_strmap_init(&m);
    T_EQ_INT(m.cap, 1024);
    T_EQ_INT(sp_strmap_get(&m, "the"), 0);          /* absent */
    sp_strmap_add(&m, ar, "the", 1);
    sp_strmap_add(&m, ar, "cat", 1);
    sp_strmap_add(&m, ar, "the", 1);
    sp_strmap_add(&m, ar, "the", 5);
    T_EQ_INT(m.n, 2);
    T_EQ_INT(sp_strmap_get(&m, "the"), 7);          /* 1 + 1 + 5 */
    T_EQ_INT(sp_strmap_get(&m, "cat"), 1);
    T_EQ_INT(sp_strmap_get(&m, "th"), 0);           /* a prefix is another key */
    T_EQ_INT(m.first[sp_strmap_slot(&m, "the")], 0);
    T_EQ_INT(m.first[sp_strmap_slot(&m, "cat")], 1);
    /* the key is the arena's copy, not the caller's buffer */
    char buf[8] = "dog";
    sp_strmap_add(&m, ar, buf, 2);
    strcpy(buf, "xxx");
    T_EQ_INT(sp_strmap_get(&m, "dog"), 2);
    T_EQ_STR(m.key[sp_strmap_slot(&m, "dog")], "dog");
    /* the empty string is a key like any other, apart from absent */
    T_EQ_INT(sp_strmap_get(&m, ""), 0);
    sp_strmap_add(&m, ar, "", 3);
    T_EQ_INT(sp_strmap_get(&m, ""), 3);
    T_EQ_INT(m.first[sp_strmap_slot(&m, "")], 3);
    T_EQ_INT(m.n, 4);
    /* an added 0 still makes the key present (tasks.c marks "seen" that way) */
    sp_strmap_add(&m, ar, "zero", 0);
    T_CHECK(m.key[sp_strmap_slot(&m, "zero")] != NULL);
    T_EQ_INT(m.n, 5);
    sp_strmap_free(&m);
    T_EQ_INT(m.cap, 0);
}

static void test_collision(struct sp_arena *ar)
{
    char a[16], b[16];
    colliding_pair(a, b);
    T_CHECK(strcmp(a, b) != 0);
    struct sp_strmap m;
    sp_strmap_init(&m);
    size_t home = (size_t)(ref_fnv1a(a) & 1023);
    T_EQ_INT(sp_strmap_slot(&m, a), home);          /* an empty map: the key's home slot */
    sp_strmap_add(&m, ar, a, 10);
    sp_strmap_add(&m, ar, b, 20);
    T_EQ_INT(sp_strmap_slot(&m, a), home);
    T_EQ_INT(sp_strmap_slot(&m, b), (home + 1) & 1023);   /* linear probing: the next slot */
    T_EQ_INT(sp_strmap_get(&m, a), 10);
    T_EQ_INT(sp_strmap_get(&m, b), 20);
    sp_strmap_add(&m, ar, b, 1);
    T_EQ_INT(sp_strmap_get(&m, a), 10);
    T_EQ_INT(sp_strmap_get(&m, b), 21);
    sp_strmap_free(&m);
}

/* past half full the table doubles and every key keeps its value and insertion index; then
 * 100000 keys */
static void test_growth(struct sp_arena *ar)
{
    struct sp_strmap m;
    sp_strmap_init(&m);
    char k[32];
    for (int i = 0; i < 512; i++) { snprintf(k, sizeof k, "w%d", i); sp_strmap_add(&m, ar, k, i + 1); }
    T_EQ_INT(m.cap, 1024);                          /* 512 keys: exactly half */
    sp_strmap_add(&m, ar, "w512", 513);
    T_EQ_INT(m.cap, 2048);
    T_EQ_INT(m.n, 513);
    int wrong = 0;
    for (int i = 0; i <= 512; i++) {
        snprintf(k, sizeof k, "w%d", i);
        size_t s = sp_strmap_slot(&m, k);
        wrong += !m.key[s] || m.val[s] != i + 1 || m.first[s] != i;
    }
    T_EQ_INT(wrong, 0);
    for (int i = 513; i < 100000; i++) { snprintf(k, sizeof k, "w%d", i); sp_strmap_add(&m, ar, k, 2); }
    for (int i = 0; i < 100000; i++) { snprintf(k, sizeof k, "w%d", i); sp_strmap_add(&m, ar, k, 1); }
    T_EQ_INT(m.n, 100000);
    T_EQ_INT(m.cap, 262144);                        /* the smallest power of two >= 2 * 100000 */
    wrong = 0;
    size_t used = 0;
    for (size_t s = 0; s < m.cap; s++) used += m.key[s] != NULL;
    for (int i = 0; i < 100000; i++) {
        snprintf(k, sizeof k, "w%d", i);
        int want = i <= 512 ? i + 2 : 3;
        wrong += sp_strmap_get(&m, k) != want || m.first[sp_strmap_slot(&m, k)] != i;
    }
    T_EQ_INT(wrong, 0);
    T_EQ_INT(used, 100000);
    T_EQ_INT(sp_strmap_get(&m, "w100000"), 0);
    sp_strmap_free(&m);
}

int main(void)
{
    struct sp_arena ar;
    sp_arena_init(&ar);
    test_basic(&ar);
    test_collision(&ar);
    test_growth(&ar);
    sp_arena_free(&ar);
    return T_DONE();
}
