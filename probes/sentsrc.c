/* probes/sentsrc.c — corpus walker for the evaluation commands, see sentsrc.h.
 *
 * Memory stays bounded by one chunk (plus its parsed batch) for files, and by one row for
 * the store; nothing of a sentence outlives the callback. */
#include "probes/sentsrc.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/sp.h"
#include "store/store.h"

#define CHUNK (1u << 20)

static const char *fmt_ext(enum sp_format f)
{
    switch (f) {
    case SP_FMT_CONLLU: return ".conllu";
    case SP_FMT_PTB: return ".mrg";
    case SP_FMT_DEP: return ".dp";
    default: return "";
    }
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Feed one file's sentences to fn. */
static int each_in_file(const char *path, enum sp_format fmt, prb_sentence_fn fn, void *ctx,
                        long *ordinal, long *n_rejected, char *err, size_t errlen)
{
    FILE *f = sp_fopen_input(path, err, errlen);
    if (!f) return SP_EIO;
    struct ing_batch b;
    ing_batch_init(&b);
    char *buf = sp_xmalloc(CHUNK);
    size_t cap = CHUNK, len = 0;
    long line = 1;
    int first = 1, eof = 0, rc = SP_OK;
    char perr[SP_ERRLEN];
    while (rc == SP_OK) {
        if (!eof) {
            if (len == cap) buf = sp_xrealloc(buf, cap *= 2);   /* a sentence longer than the buffer */
            size_t got = fread(buf + len, 1, cap - len, f);
            len += got;
            if (got == 0) {
                if (ferror(f)) { snprintf(err, errlen, "%s: read error", path); rc = SP_EIO; break; }
                eof = 1;
            }
        }
        size_t cut = ing_chunk_end(fmt, buf, len, eof, first);
        if (cut == 0) {
            if (eof) break;
            continue;
        }
        ing_batch_reset(&b);
        if (ing_parse_chunk(fmt, SP_MODE_DEFAULT, buf, cut, line, first, &b, perr, sizeof perr) != SP_OK) {
            snprintf(err, errlen, "%s: %s", path, perr);
            rc = SP_EPARSE;
            break;
        }
        first = 0;
        for (int k = 0; k < b.n_skip; k++)            /* named as ingest names them */
            fprintf(stderr, "%s:%ld: %d comment line%s with no word line after %s skipped (not a sentence)\n", path,
                    b.skip[k].line, b.skip[k].n_lines, b.skip[k].n_lines > 1 ? "s" : "", b.skip[k].n_lines > 1 ? "them" : "it");
        for (int k = 0; k < b.n_items && rc == SP_OK; k++) {
            const struct ing_item *it = &b.item[k];
            if (it->error) {
                fprintf(stderr, "%s:%ld: %s (sentence skipped)\n", path, it->error_line, it->error);
                if (n_rejected) (*n_rejected)++;
                continue;
            }
            rc = fn(&it->s, (*ordinal)++, ctx);
        }
        for (size_t i = 0; i < cut; i++) line += buf[i] == '\n';
        memmove(buf, buf + cut, len - cut);
        len -= cut;
        if (eof && len == 0) break;
    }
    free(buf);
    ing_batch_free(&b);
    fclose(f);
    return rc;
}

/* Expand a directory into its files with extension ext, sorted. */
static int list_dir(const char *dir, const char *ext, char ***out, int *n_out, char *err, size_t errlen)
{
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(err, errlen, "%s: %s", dir, strerror(errno));
        return SP_EIO;
    }
    char **v = NULL;
    int n = 0, cap = 0;
    size_t el = strlen(ext);
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l <= el || strcmp(e->d_name + l - el, ext)) continue;
        if (n == cap) v = sp_xrealloc(v, (size_t)(cap = cap ? 2 * cap : 64) * sizeof *v);
        size_t pl = strlen(dir) + 1 + l + 1;
        v[n] = sp_xmalloc(pl);
        snprintf(v[n], pl, "%s/%s", dir, e->d_name);
        n++;
    }
    closedir(d);
    if (n) qsort(v, (size_t)n, sizeof *v, cmp_str);
    *out = v;
    *n_out = n;
    return SP_OK;
}

static int each_in_files(const struct prb_source *src, prb_sentence_fn fn, void *ctx, char *err, size_t errlen)
{
    long ordinal = 0;
    int rc = SP_OK;
    for (int p = 0; p < src->n_paths && rc == SP_OK; p++) {
        struct stat st;
        if (stat(src->paths[p], &st) != 0) {
            snprintf(err, errlen, "%s: %s", src->paths[p], strerror(errno));
            return SP_EIO;
        }
        if (!S_ISDIR(st.st_mode)) {
            rc = each_in_file(src->paths[p], src->fmt, fn, ctx, &ordinal, src->n_rejected, err, errlen);
            continue;
        }
        char **files = NULL;
        int nf = 0;
        rc = list_dir(src->paths[p], fmt_ext(src->fmt), &files, &nf, err, errlen);
        if (rc == SP_OK && nf == 0) {
            snprintf(err, errlen, "%s: no *%s files in this directory", src->paths[p], fmt_ext(src->fmt));
            rc = SP_EIO;
        }
        for (int k = 0; k < nf; k++) {
            if (rc == SP_OK) rc = each_in_file(files[k], src->fmt, fn, ctx, &ordinal, src->n_rejected, err, errlen);
            free(files[k]);
        }
        free(files);
    }
    return rc;
}

static int each_in_store(const struct prb_source *src, prb_sentence_fn fn, void *ctx, char *err, size_t errlen)
{
    struct st_db *db = NULL;
    struct st_iter *it = NULL;
    int64_t cid = 0;
    int rc = st_open(src->db, ST_OPEN_READONLY, &db, err, errlen);
    if (rc != SP_OK) return rc;
    rc = st_corpus_id(db, src->corpus, 0, &cid, err, errlen);
    if (rc == SP_OK && cid == 0) {
        snprintf(err, errlen, "%s: no corpus named '%s'", src->db, src->corpus);
        rc = SP_EUSAGE;
    }
    if (rc == SP_OK) rc = st_iter_open(db, cid, src->want, &it, err, errlen);
    long ordinal = 0;
    while (rc == SP_OK) {
        const struct st_row *row;
        int r = st_iter_next(it, &row);
        if (r == 0) break;
        if (r < 0) {
            snprintf(err, errlen, "%s: %s", src->db, st_iter_error(it));
            rc = SP_ESTORE;
            break;
        }
        rc = fn(&row->s, ordinal++, ctx);
    }
    if (it) st_iter_close(it);
    st_close(db);
    return rc;
}

int prb_source_each(const struct prb_source *src, prb_sentence_fn fn, void *ctx, char *err, size_t errlen)
{
    if (src->db) return each_in_store(src, fn, ctx, err, errlen);
    return each_in_files(src, fn, ctx, err, errlen);
}
