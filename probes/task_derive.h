/* probes/task_derive.h — derive the 10 SentEval probing tasks from an annotated treebank
 * (docs/spec/probing.md §2, with the small-corpus adaptations of A7–A15).
 *
 * HOW IT WORKS. prb_tasks_build is a pure function of (sentences, options, seed): it reads
 * words, tags, constituency trees (PTB rules, §2.2) or UD relations (CoNLL-U rules) from an
 * array of struct sp_sentence, and returns for every requested task its items (partition,
 * label, tokenised sentence) or the reason it was skipped. Every random choice goes through
 * sp_rng seeded from (seed, task), so one task's items do not depend on which other tasks
 * were asked for, and the same input + seed gives byte-identical output.
 *
 * Per sentence the annotation decides the rules: a sentence with a tree uses the PTB rules
 * (function tags NP-SBJ, VP complements); one without a tree but with DEPREL uses the UD
 * rules; one with neither (a .dp file: heads only) contributes only to the word-level tasks.
 *
 * What it does NOT do: read files (see prb_load_file, a convenience for the CLI and tests),
 * touch the store, or write SentEval files (prb_task_write_senteval). */
#ifndef PRB_TASKS_H
#define PRB_TASKS_H

#include <stdint.h>
#include <stdio.h>

#include "common/sp.h"
#include "ingest/readers.h"
#include "ingest/sentence.h"

enum prb_task_id {
    PRB_SENTLEN, PRB_WC, PRB_TREEDEPTH, PRB_TOPCONST, PRB_BSHIFT,
    PRB_TENSE, PRB_SUBJNUM, PRB_OBJNUM, PRB_SOMO, PRB_COORDINV,
    PRB_NTASKS
};
#define PRB_ALL_TASKS ((1u << PRB_NTASKS) - 1)

const char *prb_task_name(enum prb_task_id id);   /* "SentLen", "WC", …, "CoordInv" */
const char *prb_task_file(enum prb_task_id id);   /* SentEval file name, "sentence_length.txt" … */
/* Task by name (case-insensitive, also the SentEval file stem "past_present"); -1 if unknown. */
int prb_task_lookup(const char *name);
/* "all" or a comma-separated list of names into a bit mask (1u << id). 0 ok, -1 bad (err says which). */
int prb_task_parse_list(const char *list, unsigned *mask, char *err, size_t errlen);

struct prb_opts {
    uint64_t seed;
    unsigned tasks;          /* bit mask 1u << id; 0 means all */
    int min_len, max_len;    /* sentence length window, tokens incl. punctuation (5, 28) */
    int cap;                 /* per-form cap C of the form-disjoint split (20) */
    int wc_k, wc_rank;       /* WC: K targets from 0-based frequency rank wc_rank on (50, 100) */
    int depth_lo, depth_hi;  /* TreeDepth class range D (7, 10) */
    int topconst_min_train;  /* TopConst: a class needs this many training items (30) */
    int topconst_max_classes;/* at most this many sequences + OTHER (19, as released) */
    int topconst_nopunct;    /* 1: the TopConst-nopunct variant (§2.3) */
    double share[3];         /* tr/va/te target shares (0.8, 0.1, 0.1) */
    /* Official partitions: official[i] = PRB_TR, PRB_VA or PRB_TE for input sentence i, -1 for a
     * sentence in none (left out). NULL: re-split by §2.1 with `share`. Form-disjoint tasks keep
     * a form's items in the earliest partition it occurs in and drop the rest. */
    const signed char *official;
};
void prb_opts_default(struct prb_opts *o);

enum prb_split { PRB_TR = 0, PRB_VA = 1, PRB_TE = 2 };
const char *prb_split_name(enum prb_split s);     /* "tr" "va" "te" */

struct prb_item {
    enum prb_split split;
    const char *label;       /* class label string as written to the file */
    const char *text;        /* tokens joined by single spaces (possibly altered: BShift, SOMO, CoordInv) */
    int sent;                /* index of the source sentence in the input array */
    const char *key;         /* split key (verb form, noun form, SOMO replacement, WC target) or NULL */
};

struct prb_task {
    enum prb_task_id id;
    int requested;           /* asked for in opts.tasks */
    int built;               /* 1: items below are valid; 0: skipped (reason) or not requested */
    const char *reason;      /* skipped: why (annotation missing, too few items, …) */
    const char *note;        /* built: the small-corpus choices that were applied, and warnings */
    int n_candidates;        /* eligible items before capping / balancing */
    int n_items;
    struct prb_item *item;   /* ordered tr, va, te; shuffled within each partition */
    int n_classes;
    const char **cls;        /* class labels, byte-wise sorted (SentEval's class numbering) */
    int (*count)[3];         /* count[c][split] */
};

struct prb_taskset {
    struct sp_arena arena;   /* owns every string and array below */
    struct prb_opts opts;    /* as used (seed recorded) */
    int n_sentences;
    struct prb_task task[PRB_NTASKS];
};

/* Build the requested tasks. s[0..n) must stay alive only during the call (texts are copied).
 * Returns SP_OK (skipped tasks are not errors), or SP_EUSAGE for bad options (err says why).
 * Free out with prb_taskset_free even on error. */
int prb_tasks_build(const struct sp_sentence *s, int n, const struct prb_opts *o,
                    struct prb_taskset *out, char *err, size_t errlen);
void prb_taskset_free(struct prb_taskset *ts);

/* SentEval probing file (§1.1): "split TAB label TAB sentence" lines, tr then va then te. */
int prb_task_write_senteval(const struct prb_task *t, FILE *f);

/* ---- per-sentence rules, exposed for tests (§2.2, §2.3) ---- */

int prb_sentlen_bin(int n);                  /* 0..5, or -1 outside 5–28 */
int prb_is_punct(const struct sp_sentence *s, int i);   /* UPOS PUNCT, else PTB punctuation tag */
/* TopConst sequence into buf; returns 1 if it passes the punctuation filter (A10) */
int prb_topconst_seq(const struct sp_sentence *s, int nopunct, char *buf, size_t cap);
/* Tense: 1 PAST, 2 PRES, 0 not a candidate (A12: finite lexical main verb, no be/have/do);
 * *word = the verb. with_bhd != 0 keeps be/have/do forms (the count before that exclusion). */
int prb_tense(const struct sp_sentence *s, int with_bhd, int *word);
/* Head word of the subject / direct object (any tag), or -1 (§2.2). */
int prb_subject_head(const struct sp_sentence *s);
int prb_object_head(const struct sp_sentence *s);

struct prb_coord {
    int a0, a1;              /* first conjunct words, inclusive */
    int b0, b1;              /* second conjunct words, inclusive */
    int cc;                  /* the CC word */
};
/* CoordInv frame (S CC S . / S , CC S ., exactly one CC in the sentence); 1 if found. */
int prb_coord_frame(const struct sp_sentence *s, struct prb_coord *c);
/* A15 inversion of a frame into an arena string (tokens joined by spaces). */
char *prb_coord_invert(const struct sp_sentence *s, const struct prb_coord *c, struct sp_arena *a);

/* ---- loading treebank files (convenience for the CLI and tests, not used by the build) ---- */

/* Parse a whole file (chunked with ing_chunk_end) and append its sentences to b. fmt may be
 * SP_FMT_AUTO. Rejected sentences are counted in *n_rejected (may be NULL), not errors.
 * Returns SP_OK, SP_EIO or SP_EPARSE with a "file:line: problem" message. */
int prb_load_file(const char *path, enum sp_format fmt, struct ing_batch *b, int *n_rejected,
                  char *err, size_t errlen);

/* Attach the heads of dependency-only sentences (from a .dp file) in items[from..) to the tree
 * sentences of items[0..from) with the same words (their .mrg twins; searched forward from the
 * last match). Merged dependency items get error = "merged" so callers skip them. Returns the
 * number merged. */
int prb_merge_heads(struct ing_batch *b, int from);

/* Deep copy of the parts the derivation reads (sent_id, columns, heads, tree) into a. */
struct sp_sentence prb_sentence_copy(struct sp_arena *a, const struct sp_sentence *s);

#endif
