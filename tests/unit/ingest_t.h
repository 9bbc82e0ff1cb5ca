/* tests/unit/ingest_t.h — helpers shared by the ingest_*.c unit tests: parse a string, read
 * a whole file, and parse a buffer the way a streaming reader does (windows of `chunk` bytes,
 * cut with ing_chunk_end, grown when no boundary is inside). */
#ifndef INGEST_T_H
#define INGEST_T_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/readers.h"

static struct ing_batch t_b;
static char t_err[512];

/* parse all of s as one chunk that starts a file; returns the batch (reset first) */
static inline struct ing_batch *t_parse(enum sp_format fmt, enum sp_mode mode, const char *s)
{
    ing_batch_reset(&t_b);
    size_t len = strlen(s);
    size_t cut = ing_chunk_end(fmt, s, len, 1, 1);
    int rc = ing_parse_chunk(fmt, mode, s, cut, 1, 1, &t_b, t_err, sizeof t_err);
    if (rc != SP_OK) fprintf(stderr, "t_parse: rc %d: %s\n", rc, t_err);
    return &t_b;
}

static inline char *t_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *p = malloc((size_t)n + 1);
    size_t got = fread(p, 1, (size_t)n, f);
    fclose(f);
    p[got] = 0;
    *len = got;
    return p;
}

/* streaming-style parse of buf into b; returns the number of chunks, -1 on a chunk error */
static inline int t_parse_chunked(enum sp_format fmt, enum sp_mode mode, const char *buf, size_t len,
                           size_t chunk, struct ing_batch *b)
{
    size_t pos = 0;
    long line = 1;
    int nchunks = 0;
    while (pos < len) {
        size_t win = chunk, cut;
        for (;;) {
            if (win > len - pos) win = len - pos;
            cut = ing_chunk_end(fmt, buf + pos, win, pos + win == len, pos == 0);
            if (cut) break;
            win *= 2;
        }
        if (ing_parse_chunk(fmt, mode, buf + pos, cut, line, pos == 0, b, t_err, sizeof t_err) != SP_OK) return -1;
        for (size_t i = 0; i < cut; i++) line += buf[pos + i] == '\n';
        pos += cut;
        nchunks++;
    }
    return nchunks;
}

/* sorted names in dir ending with ext; returns count, names malloc'd */
static inline int t_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }
static inline int t_list_dir(const char *dir, const char *ext, char ***out)
{
    DIR *d = opendir(dir);
    if (!d) return -1;
    int n = 0, cap = 0;
    char **v = NULL;
    struct dirent *e;
    size_t el = strlen(ext);
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l <= el || strcmp(e->d_name + l - el, ext)) continue;
        if (n == cap) { cap = cap ? cap * 2 : 64; v = realloc(v, (size_t)cap * sizeof *v); }
        v[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(v, (size_t)n, sizeof *v, t_cmp);
    *out = v;
    return n;
}

#endif
