/* stages/splits.c — see stages/splits.h. */
#include "stages/splits.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "common/sp.h"
#include "stages/ingest.h"

static const char *const split_names[3] = { "train", "dev", "test" };

const char *stg_ud_split(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = strlen(base);
    for (int i = 0; i < 3; i++) {
        char suffix[32];
        snprintf(suffix, sizeof suffix, "-ud-%s.conllu", split_names[i]);
        size_t m = strlen(suffix);
        if (n > m && !strcmp(base + n - m, suffix)) return split_names[i];
    }
    return NULL;
}

int stg_wsj_section(const char *doc)
{
    const char *b = doc ? strrchr(doc, '/') : NULL;
    b = b ? b + 1 : doc;
    if (!b || strncmp(b, "wsj_", 4) || strlen(b) < 8) return -1;
    for (int i = 4; i < 8; i++) if (b[i] < '0' || b[i] > '9') return -1;
    return (b[4] - '0') * 10 + (b[5] - '0');
}

void stg_split_tally_add(struct stg_split_tally *t, const char *split, const char *doc)
{
    t->n++;
    int k = -1;
    for (int j = 0; split && j < 3; j++) if (!strcmp(split, split_names[j])) k = j;
    if (k >= 0) t->have[k]++;
    else if (split) t->other++;
    else t->unrecorded++;
    int s = stg_wsj_section(doc);
    if (s >= 0) {
        t->wsj++;
        t->sec[s >= 2 && s <= 21 ? 0 : s == 22 ? 1 : s == 23 ? 2 : 3]++;
    }
}

void stg_split_tally_sum(struct stg_split_tally *a, const struct stg_split_tally *b)
{
    a->n += b->n; a->other += b->other; a->unrecorded += b->unrecorded; a->wsj += b->wsj; a->trees += b->trees;
    for (int k = 0; k < 3; k++) a->have[k] += b->have[k];
    for (int k = 0; k < 4; k++) a->sec[k] += b->sec[k];
}

static void tally_file(struct stg_split_tally *t, const char *name, const char *split, int by_name)
{
    stg_split_tally_add(t, by_name ? stg_ud_split(name) : split, name);
    const char *dot = strrchr(name, '.');
    size_t n = strlen(name);
    if (n > 3 && !strcmp(name + n - 3, ".gz"))     /* x.mrg.gz: the extension inside */
        for (dot = name + n - 4; dot > name && *dot != '.'; dot--) {}
    t->trees += dot && (!strncmp(dot, ".mrg", 4) || !strncmp(dot, ".ptb", 4));
}

void stg_split_tally_path(struct stg_split_tally *t, const char *path, const char *split, int by_name)
{
    struct stat st;
    DIR *d = stat(path, &st) == 0 && S_ISDIR(st.st_mode) ? opendir(path) : NULL;
    if (!d) { tally_file(t, path, split, by_name); return; }
    for (struct dirent *e; (e = readdir(d));)
        if (stg_ingest_is_treebank_name(e->d_name)) tally_file(t, e->d_name, split, by_name);
    closedir(d);
}

enum stg_split_source stg_split_decide(const struct stg_split_tally *t, const char **why)
{
    *why = NULL;
    if (!t->n) { *why = "no sentences"; return STG_SPLIT_NONE; }
    if (!t->unrecorded && !t->other && t->have[0] && t->have[2]) return STG_SPLIT_RECORDED;
    if (t->unrecorded == t->n && t->wsj == t->n && t->sec[0] && t->sec[2]) return STG_SPLIT_WSJ;
    if (t->other) *why = "a split other than train, dev or test";
    else if (t->unrecorded && t->unrecorded < t->n) *why = "a recorded split on only some sentences";
    else if (!t->unrecorded) *why = !t->have[0] ? "no train split" : "no test split";
    else if (t->wsj == t->n) *why = "WSJ files, but not in both sections 02-21 (train) and 23 (test), the PTB convention";
    else *why = "no recorded train/dev/test split";
    return STG_SPLIT_NONE;
}

void stg_split_describe(const struct stg_split_tally *t, const char *unit, char *buf, size_t n)
{
    struct sp_buf b = { 0 };
    sp_buf_printf(&b, "%ss: ", unit);
    int k = 0;
    if (t->unrecorded == t->n && t->wsj == t->n && t->n) {
        static const char *const sec[4] = { "02-21", "22", "23", "outside 02-23" };
        for (int i = 0; i < 4; i++)
            if (t->sec[i]) { sp_buf_printf(&b, "%s%ld in %s%s", k ? ", " : "", t->sec[i], k ? "" : "WSJ sections ", sec[i]); k++; }
    } else {
        for (int i = 0; i < 3; i++)
            if (t->have[i]) sp_buf_printf(&b, "%s%s %ld", k++ ? ", " : "", split_names[i], t->have[i]);
        if (t->other) sp_buf_printf(&b, "%sanother split %ld", k++ ? ", " : "", t->other);
        if (t->unrecorded) sp_buf_printf(&b, "%sno split %ld", k++ ? ", " : "", t->unrecorded);
    }
    if (!k) sp_buf_puts(&b, "none");
    snprintf(buf, n, "%s", b.p);
    sp_buf_free(&b);
}
