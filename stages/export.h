/* stages/export.h — a store corpus out as files: JSONL structures, sentences (JSONL/CSV/TSV) or
 * CoNLL-U; with --what vectors|tokens|attention an encoder run's outputs (stages/export_encoded.c). */
#ifndef SP_STG_EXPORT_H
#define SP_STG_EXPORT_H

#include <stdio.h>

#include "stages/stage.h"

struct stg_export_opts {
    const char *db;
    const char *corpus;      /* NULL: "main" (a run's export checks it only when given) */
    const char *what;        /* structures|sentences|conllu (vectors|tokens|attention: the encoded export) */
    const char *format;      /* jsonl|csv|tsv|conllu|npy; NULL: the kind's default */
    const char *out;         /* NULL: to_stdout */
    const char *run;         /* the encoded export's run */
    int heads;               /* --what attention: per head */
    const char *layers;      /* "all" | "K,K,...": the layer runs of run (encode --layers) as one array; NULL: none */
    FILE *to_stdout;         /* not in the table: where the data goes without --out */
};
extern const struct sp_opt stg_export_options[];

struct stg_export_result {
    long sentences;
    double seconds;
    size_t rows;                  /* an encoder run's export: items written */
    char lengths_path[4096];      /* --what tokens: the second file written, else "" */
};


/* SP_OK; SP_EUSAGE for a missing or unknown --what or a format the kind cannot be written as;
 * SP_EPARSE for an unknown corpus (with the nearest names); SP_EIO / SP_ESTORE; SP_ESTOPPED
 * (--out is then left as it was). */
int stg_export(struct stg_ctx *ctx, const struct stg_export_opts *o, struct stg_export_result *r);

#endif
