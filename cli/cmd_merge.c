/* cli/cmd_merge.c — synprobe merge OUT.db SHARD.db...: shard stores into one (store/st_shards.h). */
#include <jansson.h>
#include <stdio.h>

#include "cli/cli.h"
#include "store/st_shards.h"

static const char usage[] =
    "usage: synprobe merge OUT.db SHARD.db...\n"
    "\n"
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
    "Up to 9 shards merge in one transaction, more 9 at a time; each ends with an integrity check.\n";

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
    const struct sp_optbind b[] = { { cli_json_option, &c.common } };
    int rc = cli_parse(&c, "merge", usage, b, 1, argc, argv, 1);
    if (rc >= 0) return rc;
    if (c.operands.n < 2)
        return cli_done(&c, cli_fail(SP_EXIT_USAGE, "merge", "expected the target store and at least one shard store (see --help)"));
    if ((rc = merge_distinct(&c))) return cli_done(&c, rc);
    struct st_merge_result r;
    char err[SP_ERRLEN];
    int src = st_merge(c.operands.v[0], c.operands.v + 1, c.operands.n - 1, &r, err, sizeof err);
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
