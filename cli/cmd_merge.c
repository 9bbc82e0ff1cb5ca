/* cli/cmd_merge.c — synprobe merge OUT.db SHARD.db...: shard stores into one (store/st_shards.h). */
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "store/st_shards.h"

const struct cli_doc cmd_merge_doc = {
    .name = "merge",
    .purpose = "combine the shard stores of `run --shard K/N` into one store",
    .synopsis = "[options] OUT.db [SHARD.db...]",
    .prose =
        "Combines the stores `synprobe run --shard K/N JOB.json` wrote into OUT.db (created if missing):\n"
        "sentences with their tokens and cached structures, quarantined sentences, encoders, vectors and\n"
        "attention maps. Merging is idempotent: a shard merged again, or a merge run again, adds nothing.\n"
        "The merged sentences are numbered as a one-machine ingest numbers them, so `synprobe run JOB.json`\n"
        "on OUT.db (the job's store) finds ingest and encode done and gives the one-machine results.\n"
        "Refused (exit 1, nothing written): stores that are no shards, shards of different N, shards whose\n"
        "corpus contents (files, SHA-256) or encoder fingerprints differ, a target that is a shard itself, a\n"
        "shard that fails SQLite's integrity_check (each is checked before anything is read from it).\n"
        "Refused (exit 2, nothing written): one file named twice among the shards, or the target among them\n"
        "(by identity: a hard link, a symlink or ./x is the same file).\n"
        "Until every shard is merged, `synprobe run` and every step that writes refuse OUT.db.\n"
        "Up to 9 shards merge in one transaction, more 9 at a time; each ends with an integrity check.\n"
        "--from-list FILE reads more shard stores from FILE, one path a line (relative ones against the current\n"
        "folder, as on the command line), for more shards than a command line holds (`synprobe slurm` writes\n"
        "one). Refused (exit 1, nothing merged, FILE:LINE named): an empty line, a control character (a CR\n"
        "of a DOS line end too), a path of PATH_MAX bytes or more, a path that is no regular file, the target.\n",
};

struct merge_opts { const char *from_list; };
static const struct sp_opt merge_options[] = {
    { "from-list", SP_OPT_PATH, offsetof(struct merge_opts, from_list), .metavar = "FILE",
      .help = "more shard stores, one path a line" },
    { 0 },
};

/* The shard stores FILE lists, appended to *v (grown; the paths in a): each line a path, checked
 * as a shard named on the command line is, with FILE:LINE in the message. SP_OK or SP_EUSAGE/SP_EIO
 * with err. */
static int read_list(const char *file, const char *target, struct sp_arena *a, const char ***v, int *n, char *err, size_t errlen)
{
    size_t len;
    char e[SP_ERRLEN];
    char *text = sp_read_file(file, &len, e, sizeof e);
    if (!text) { snprintf(err, errlen, "--from-list: %s", e); return SP_EIO; }
    int rc = sp_text_no_nul(file, text, len, err, errlen);
    struct stat tst;
    int have_target = stat(target, &tst) == 0;
    int cap = *n;
    size_t line = 0;
    for (char *p = text; !rc && p < text + len; line++) {
        char *nl = memchr(p, '\n', (size_t)(text + len - p));
        size_t l = nl ? (size_t)(nl - p) : (size_t)(text + len - p);
        char *next = nl ? nl + 1 : text + len;
        p[l] = 0;
        struct stat st;
        const unsigned char *bad = NULL;
        for (const unsigned char *q = (const unsigned char *)p; *q && !bad; q++)
            if (*q < 0x20 || *q == 0x7f) bad = q;
        if (!l)
            snprintf(err, errlen, "%s:%zu: an empty line: expected the path of a shard store", file, line + 1), rc = SP_EUSAGE;
        else if (bad)
            snprintf(err, errlen, "%s:%zu: byte 0x%02x at column %ld: a control character in a shard store's path%s", file, line + 1,
                     *bad, (long)(bad - (const unsigned char *)p) + 1, *bad == '\r' ? " (a DOS line end? one path a line, ended by \\n)" : ""),
            rc = SP_EUSAGE;
        else if (l >= PATH_MAX)
            snprintf(err, errlen, "%s:%zu: a path of %zu bytes (at most %d)", file, line + 1, l, PATH_MAX - 1), rc = SP_EUSAGE;
        else if (stat(p, &st))
            snprintf(err, errlen, "%s:%zu: %s: %s", file, line + 1, p, strerror(errno)), rc = SP_EUSAGE;
        else if (!S_ISREG(st.st_mode))
            snprintf(err, errlen, "%s:%zu: %s: not a regular file (expected a shard store)", file, line + 1, p), rc = SP_EUSAGE;
        else if (have_target && st.st_dev == tst.st_dev && st.st_ino == tst.st_ino)
            snprintf(err, errlen, "%s:%zu: %s is the target %s itself: a store is no shard of itself", file, line + 1, p, target),
            rc = SP_EUSAGE;
        if (!rc) {
            if (*n == cap) {
                cap = cap ? 2 * cap : 64;
                *v = sp_xrealloc(*v, sizeof **v * (size_t)cap);
            }
            (*v)[(*n)++] = sp_arena_strdup(a, p);
        }
        p = next;
    }
    if (!rc && !line) snprintf(err, errlen, "%s: no shard store listed (one path a line)", file), rc = SP_EUSAGE;
    free(text);
    return rc;
}

/* One file named twice among the shards (a hard link, a symlink, "./x"), or the target among them:
 * a usage error (exit 2) naming both, before the target is created or any store opened. */
static int merge_distinct(struct cli *c)
{
    char err[SP_ERRLEN];
    if (!st_merge_distinct(c->operands.v[0], c->operands.v + 1, c->operands.n - 1, err, sizeof err)) return SP_EXIT_OK;
    return cli_fail(SP_EXIT_USAGE, "merge", "%s", err);
}

int cmd_merge(int argc, char **argv)
{
    struct cli c;
    struct merge_opts o;
    const struct sp_optbind b[] = { { merge_options, &o }, { cli_json_option, &c.common } };
    int rc = cli_parse(&c, &cmd_merge_doc, b, 2, argc, argv, 1);
    if (rc >= 0) return rc;
    if (c.operands.n < 1 || (c.operands.n < 2 && !o.from_list))
        return cli_done(&c, cli_fail(SP_EXIT_USAGE, "merge", "expected the target store and at least one shard store (see --help)"));
    if ((rc = merge_distinct(&c))) return cli_done(&c, rc);
    struct st_merge_result r;
    char err[SP_ERRLEN];
    int nsh = c.operands.n - 1;   /* the shards: those named, then those listed */
    const char **shards = sp_xmalloc(sizeof *shards * (size_t)(nsh ? nsh : 1));
    for (int i = 0; i < nsh; i++) shards[i] = c.operands.v[i + 1];
    if (o.from_list && (rc = read_list(o.from_list, c.operands.v[0], &c.arena, &shards, &nsh, err, sizeof err))) {
        free(shards);
        return cli_done(&c, cli_fail(SP_EXIT_INPUT, "merge", "%s", err));
    }
    int src = st_merge(c.operands.v[0], shards, nsh, &r, err, sizeof err);
    free(shards);
    if (src) {
        cli_fail(SP_EXIT_INPUT, "merge", "%s", err);
        st_merge_result_free(&r);
        return cli_done(&c, SP_EXIT_INPUT);
    }
    if (c.common.json) {
        json_t *j = json_pack("{s:s, s:i, s:i, s:I, s:I, s:b, s:[]}", "store", c.operands.v[0], "shards", r.shard_n,
                              "merged", r.n_merged, "sentences", (json_int_t)r.sentences, "vectors", (json_int_t)r.vectors,
                              "renumbered", r.renumbered, "given");
        json_t *a = json_object_get(j, "given");
        for (int i = 0; i < r.n; i++)
            json_array_append_new(a, json_pack("{s:s, s:i, s:I, s:I, s:I, s:I, s:I, s:I}", "path", r.shard[i].path, "k", r.shard[i].k,
                                               "sentences", (json_int_t)r.shard[i].sentences, "new_sentences",
                                               (json_int_t)r.shard[i].new_sentences, "vectors", (json_int_t)r.shard[i].vectors,
                                               "new_vectors", (json_int_t)r.shard[i].new_vectors, "new_attention",
                                               (json_int_t)r.shard[i].new_attention, "differing_vectors",
                                               (json_int_t)r.shard[i].differing_vectors));
        cli_print_json(&c, j, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        json_decref(j);
    } else if (!c.common.quiet) {
        for (int i = 0; i < r.n; i++) {
            const struct st_merge_shard *s = &r.shard[i];
            printf("shard %d/%d %s: %ld sentences (%ld new), %ld vectors (%ld new), %ld attention maps new%s\n", s->k, s->n, s->path,
                   s->sentences, s->new_sentences, s->vectors, s->new_vectors, s->new_attention,
                   s->new_sentences + s->new_vectors + s->new_attention + s->new_quarantined ? ""
                   : s->sentences + s->vectors ? ": merged before, nothing new" : ": an empty shard");
        }
        printf("synprobe merge: %s holds %d of %d shards: %ld sentences, %ld vectors\n", c.operands.v[0], r.n_merged, r.shard_n,
               r.sentences, r.vectors);
    }
    for (int i = 0; i < r.n; i++)
        if (r.shard[i].differing_vectors)
            fprintf(stderr, "synprobe merge: warning: %s: %ld vectors differ from those already in %s for the same encoder and input "
                    "(kept the target's)\n", r.shard[i].path, r.shard[i].differing_vectors, c.operands.v[0]);
    if (r.n_merged < r.shard_n)
        fprintf(stderr, "synprobe merge: note: %d of %d shards are not merged yet\n", r.shard_n - r.n_merged, r.shard_n);
    st_merge_result_free(&r);
    return cli_done(&c, SP_EXIT_OK);
}
