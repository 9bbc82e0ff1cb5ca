/* cli/cmd_encode.c — synprobe encode: an encoder over corpora or probing tasks, vectors cached
 * in the store (stages/encode). */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "stages/encode.h"

const struct cli_doc cmd_encode_doc = {
    .name = "encode",
    .purpose = "run an encoder over a corpus or task, caching vectors",
    .synopsis = "--db (--corpus | --task) --encoder --run [--layer | --layers [--layer-attention]] [options]",
    .prose =
        "Runs the encoder over every sentence of the corpus (or item of the task) and caches sentence\n"
        "vectors, and with --token-vectors / --attention token vectors and one layer's attention maps.\n"
        "Several corpora or tasks (a,b) are encoded one after the other, each as its own run named\n"
        "R-a, R-b, with its own summary (and --json line).\n"
        "--store-dtype f16 or bf16 stores every cached array in 2 bytes an element instead of 4 (rounded\n"
        "to nearest even); every reader widens it back to float. The type is part of the encoder's\n"
        "fingerprint, so runs of one model in two types never share rows.\n"
        "Re-running a run name with the same encoder reuses every cached vector; a run name made by a\n"
        "different encoder fingerprint is an error. --verbose also says why --device auto did not use a\n"
        "GPU (the CUDA runtime's words). --layers keeps several layers of one forward pass, each its own\n"
        "run R-L<k> (R-L<k>-INPUT for several inputs) with its own summary and --json line.\n"
        "Exit 0 ok, 1 bad input (or nothing encoded), 2 usage.\n",
};

static void print_json(const struct stg_encode_input *r)
{
    long skipped = r->missing + r->too_long + r->oom;
    json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:s, s:i, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "run", r->run,
                          "store_dtype", r->store_dtype, "fingerprint",
                          r->fingerprint, "kind", r->kind, "device", r->device, "dim", r->dim, "items", (json_int_t)r->items,
                          "cached", (json_int_t)r->cached, "encoded", (json_int_t)r->encoded, "skipped", (json_int_t)skipped,
                          "skipped_missing_structure", (json_int_t)r->missing, "skipped_too_long", (json_int_t)r->too_long,
                          "skipped_out_of_memory", (json_int_t)r->oom);
    if (r->saturated) json_object_set_new(o, "saturated", json_integer((json_int_t)r->saturated));
    char *s = json_dumps(o, JSON_SORT_KEYS | JSON_COMPACT);
    puts(s);
    free(s);
    json_decref(o);
}

int cmd_encode(int argc, char **argv)
{
    struct stg_encode_opts o = { 0 };
    struct cli c;
    const struct sp_optbind b[] = { { stg_encode_options, &o }, { cli_json_option, &c.common } };
    int rc = cli_parse(&c, &cmd_encode_doc, b, 2, argc, argv, 0);
    if (rc >= 0) return rc;
    o.command = c.command;

    struct stg_encode_result r;
    rc = stg_encode(&c.ctx, &o, &r);
    cli_progress_clear(&c);
    for (int i = 0; c.common.json && i < r.n; i++) print_json(&r.in[i]);
    rc = cli_finish_stage(&c, rc);
    stg_encode_result_free(&r);
    return cli_done(&c, rc);
}
