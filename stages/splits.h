/* stages/splits.h — where the official train/dev/test partitions of a corpus come from, decided
 * the same way from a store's sentences (tasks build) and from the file names a job ingests
 * (run --check), so that a job which would stop at its tasks step is refused before it runs.
 *
 * The evidence is a tally of units (sentences, or files at job-check time), each with its recorded
 * split (the UD file name *-ud-train|dev|test.conllu, or ingest --split) and its document stem.
 * Official partitions exist when every unit has train, dev or test and train and test both occur
 * (dev may be missing), or, failing any recorded split, when every unit is a PTB WSJ file
 * (wsj_SSNN) and sections 02-21 (train) and 23 (test) both occur (22 is dev; other sections are
 * left out). Anything else has none: tasks build stops unless --split resplit asks for the seeded
 * 80/10/10 re-split of docs/spec/probing.md §2.1. */
#ifndef SP_STG_SPLITS_H
#define SP_STG_SPLITS_H

#include <stddef.h>

/* The split a UD file name gives ("ud/en_ewt-ud-dev.conllu" -> "dev"), or NULL. A job records it
 * on every sentence of the file it ingests. */
const char *stg_ud_split(const char *path);
/* The PTB WSJ section of a file name or document stem "wsj_SSNN" (folders allowed), or -1. */
int stg_wsj_section(const char *doc);

struct stg_split_tally {
    long n;                 /* units */
    long have[3];           /* recorded train, dev, test */
    long other, unrecorded; /* a split of another name; none */
    long wsj, sec[4];       /* units with a WSJ stem; by section: 02-21, 22, 23, other */
    long trees;             /* stg_split_tally_path: files of constituency trees (.mrg, .ptb) */
};

enum stg_split_source { STG_SPLIT_NONE, STG_SPLIT_RECORDED, STG_SPLIT_WSJ };

/* one unit: its recorded split (NULL: none) and document stem (NULL: none) */
void stg_split_tally_add(struct stg_split_tally *t, const char *split, const char *doc);
/* a += b */
void stg_split_tally_sum(struct stg_split_tally *a, const struct stg_split_tally *b);
/* The files a job names, as units before they are read: PATH, or the treebank files of folder
 * PATH (as ingest lists them), each with the split its UD file name gives (by_name: how tasks
 * build --corpus-files reads them) or else with split, NULL for none (an ingest step records its
 * one split on every file); .mrg and .ptb files are also counted in trees. */
void stg_split_tally_path(struct stg_split_tally *t, const char *path, const char *split, int by_name);
/* Which official partitions the units have; STG_SPLIT_NONE with *why otherwise, a static phrase
 * that follows "has" ("no train split"). */
enum stg_split_source stg_split_decide(const struct stg_split_tally *t, const char **why);
/* What the units have, in words (unit "sentence" or "file"): "sentences: dev 1001, test 1000",
 * "sentences: no split 3914", "files: 199 in WSJ sections outside 02-23". */
void stg_split_describe(const struct stg_split_tally *t, const char *unit, char *buf, size_t n);

#endif
