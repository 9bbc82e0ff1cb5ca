/* probes/evalb.h — EVALB-compatible bracket scoring (docs/spec/probing.md §4), reusable as a library.
 *
 * Layers of the API, lowest first:
 *   1. parameters   prb_evalb_params_*      the .prm keys (DEBUG, MAX_ERROR, CUTOFF_LEN, LABELED,
 *                                           DELETE_LABEL, DELETE_LABEL_FOR_LENGTH, QUOTE_LABEL,
 *                                           EQ_LABEL, EQ_WORD); prb_evalb_params_collins() gives
 *                                           COLLINS.prm without a file (Protocol A: set labeled = 0).
 *   2. trees        prb_evalb_tree_*        a tree as EVALB sees it (kept terminals, brackets over
 *                                           kept-word spans). Built either by prb_evalb_parse() from a
 *                                           bracketed string or directly with open/term/close calls
 *                                           (e.g. from an extracted attention tree). No recursion.
 *   3. scoring      prb_evalb_score()       gold + test tree in, one sentence's counts out (§4.3).
 *                                           No I/O. May modify the trees (quote repair, §4.6).
 *   4. totals       prb_evalb_acc_*         the "All" and "len<=CUTOFF" accumulators and the
 *                                           summary numbers (§4.5), plus the EVALB text printers.
 *   5. files        prb_evalb_run()         the evalb program's loop over two files (error counter,
 *                                           MAX_ERROR abort, line-count mismatch messages).
 *
 * Strings: trees do not copy labels or words; they point into the caller's text, which must stay
 * valid until the tree is reset or freed. Parameters own copies of their strings. */
#ifndef PRB_EVALB_H
#define PRB_EVALB_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/sp.h"

/* ---- 1. parameters ---- */

struct prb_evalb_name { char *s; size_t n; };
struct prb_evalb_eq { struct prb_evalb_name a, b; };

struct prb_evalb_names { struct prb_evalb_name *v; size_t n, cap; };
struct prb_evalb_eqs { struct prb_evalb_eq *v; size_t n, cap; };

struct prb_evalb_params {
    int debug;                 /* 0, 1 = per-sentence dump after each row */
    long max_error;            /* abort when an error occurs while the count already exceeds this */
    long cutoff_len;           /* second summary over sentences with gold length <= this */
    int labeled;               /* 0 = spans only */
    struct prb_evalb_names delete_label;            /* exact for terminals, EQ_LABEL-aware for brackets */
    struct prb_evalb_names delete_label_for_length; /* terminals not counted in the length */
    struct prb_evalb_names quote_label;             /* tags eligible for quote repair (§4.6) */
    struct prb_evalb_eqs eq_label;                  /* symmetric pairs, not transitive (as EVALB) */
    struct prb_evalb_eqs eq_word;
    int algo;                  /* 0 auto; 1 always quadratic; 2 always indexed (tests compare the two) */
};

/* Reference defaults: DEBUG 0, MAX_ERROR 10, CUTOFF_LEN 40, LABELED 1, empty lists. */
void prb_evalb_params_init(struct prb_evalb_params *p);
void prb_evalb_params_free(struct prb_evalb_params *p);
/* COLLINS.prm: DELETE_LABEL TOP -NONE- , : `` '' .  DELETE_LABEL_FOR_LENGTH -NONE-  EQ_LABEL ADVP PRT. */
void prb_evalb_params_collins(struct prb_evalb_params *p);
/* One "KEY value" setting. Errors ("expected ...") go to err; unknown keys return SP_EUSAGE. */
enum sp_err prb_evalb_params_set(struct prb_evalb_params *p, const char *key, const char *value,
                                 char *err, size_t errlen);
/* A whole parameter text (lines; '#' comments and lines shorter than 3 characters ignored).
 * name is used in messages "name:LINE: ...". Unknown keys are warnings (to warn, may be NULL). */
enum sp_err prb_evalb_params_parse(struct prb_evalb_params *p, const char *text, size_t n,
                                   const char *name, FILE *warn, char *err, size_t errlen);
enum sp_err prb_evalb_params_load(struct prb_evalb_params *p, const char *path, FILE *warn,
                                  char *err, size_t errlen);

/* ---- 2. trees ---- */

struct prb_evalb_term {
    const char *tag, *word;
    uint32_t n_tag, n_word;
    int result;                /* 9 unscored, 1 tag correct, 0 tag wrong (EVALB's debug codes) */
};

struct prb_evalb_bracket {
    const char *label;
    uint32_t n_label, n_cut;   /* n_cut: label length before the first '-' or '=' (set when scored) */
    int start, end;            /* half-open span over kept words */
    int close_seq;             /* terminals read (deleted ones included) when the bracket closed */
    int result;                /* 9 unscored, 0 unmatched, 1 matched, 5 removed */
};

struct prb_evalb_quote {       /* a terminal that may be a mis-tagged quote (§4.6) */
    const char *tag, *word;
    uint32_t n_tag, n_word;
    int index;                 /* kept-word index it has or would have */
    int bra;                   /* brackets opened before it */
    int seq;                   /* terminals read before it */
};

struct prb_evalb_tree {
    struct prb_evalb_term *term;       size_t n_term, cap_term;     /* kept terminals */
    struct prb_evalb_bracket *brk;     size_t n_brk, cap_brk;       /* in opening order */
    struct prb_evalb_quote *quote;     size_t n_quote, cap_quote;
    int *stack;                        size_t n_stack, cap_stack;   /* open brackets */
    int length;                /* terminals not in DELETE_LABEL_FOR_LENGTH ("Len." for gold) */
    int n_read;                /* all terminals read */
    int scored;                /* bracket labels have been cut (debug dump) */
};

void prb_evalb_tree_init(struct prb_evalb_tree *t);
void prb_evalb_tree_reset(struct prb_evalb_tree *t);
void prb_evalb_tree_free(struct prb_evalb_tree *t);
/* Builder. term() applies DELETE_LABEL (exact match) and the length and quote bookkeeping. */
void prb_evalb_tree_open(struct prb_evalb_tree *t, const char *label, size_t n_label);
int  prb_evalb_tree_close(struct prb_evalb_tree *t);            /* -1: no open bracket */
void prb_evalb_tree_term(struct prb_evalb_tree *t, const struct prb_evalb_params *p,
                         const char *tag, size_t n_tag, const char *word, size_t n_word);
/* Parse one line of bracketed trees (several top-level nodes allowed; empty = no words).
 * Resets t first. On SP_EPARSE err holds "column C: expected ..." (caller adds FILE:LINE). */
enum sp_err prb_evalb_parse(struct prb_evalb_tree *t, const struct prb_evalb_params *p,
                            const char *s, size_t n, char *err, size_t errlen);

/* ---- 3. scoring ---- */

enum prb_evalb_status { PRB_EVALB_VALID = 0, PRB_EVALB_ERROR = 1, PRB_EVALB_SKIP = 2 };
enum prb_evalb_errkind { PRB_EVALB_ENONE = 0, PRB_EVALB_ELENGTH, PRB_EVALB_EWORDS };

struct prb_evalb_sent {
    int status;                /* enum prb_evalb_status */
    int errkind;               /* enum prb_evalb_errkind when status == ERROR */
    int length;                /* gold length (cut-off and "Len." column) */
    int match, gold, test, crossing, words, correct_tags;
    int n_gold_words, n_test_words;          /* for "Length unmatch (a|b)" */
    const char *gold_word, *test_word;       /* for "Words unmatch (x|y)" */
    uint32_t n_gold_word, n_test_word;
};

struct prb_evalb_span { int start, end, idx; };
struct prb_evalb_work {        /* scratch reused across sentences; init zeroed, free when done */
    struct prb_evalb_span *idx; size_t cap_idx;
    int *nxt; size_t cap_nxt;
    int *seg; size_t cap_seg;
};
void prb_evalb_work_init(struct prb_evalb_work *w);
void prb_evalb_work_free(struct prb_evalb_work *w);

void prb_evalb_score(const struct prb_evalb_params *p, struct prb_evalb_tree *gold,
                     struct prb_evalb_tree *test, struct prb_evalb_work *w,
                     struct prb_evalb_sent *out);
/* Convenience: parse both strings and score (skip/err semantics as above). */
enum sp_err prb_evalb_score_str(const struct prb_evalb_params *p, const char *gold, const char *test,
                                struct prb_evalb_sent *out, char *err, size_t errlen);

/* ---- 4. totals ---- */

struct prb_evalb_totals {
    long sent, error, skip, comp, gold, test, match, words, crossing, no_crossing, le2_crossing,
         correct_tags;
};
struct prb_evalb_acc { struct prb_evalb_totals all, cut; long cutoff_len; };

struct prb_evalb_summary {
    long n_sentences, n_error, n_skip, n_valid;
    double recall, precision, fmeasure;      /* fmeasure = 2PR/(P+R): NaN when P+R = 0, as EVALB */
    double complete_match, avg_crossing, no_crossing, le2_crossing, tagging_accuracy;
};

void prb_evalb_acc_init(struct prb_evalb_acc *a, long cutoff_len);
void prb_evalb_acc_add(struct prb_evalb_acc *a, const struct prb_evalb_sent *s);
void prb_evalb_summarize(const struct prb_evalb_totals *t, struct prb_evalb_summary *s);

/* EVALB's text output, byte for byte (2006 evalb.c formats). */
void prb_evalb_print_header(FILE *f);
void prb_evalb_print_row(FILE *f, long id, const struct prb_evalb_sent *s);
void prb_evalb_print_total(FILE *f, const struct prb_evalb_acc *a);  /* totals row + both blocks */
void prb_evalb_print_debug(FILE *f, const struct prb_evalb_tree *gold, const struct prb_evalb_tree *test);
/* "Length unmatch (a|b)" / "Words unmatch (x|y)" without the "LINE : " prefix and newline */
void prb_evalb_print_error(FILE *f, const struct prb_evalb_sent *s);

/* ---- 5. files ---- */

struct prb_evalb_run_opts {
    FILE *out;                 /* header, rows and debug dumps; NULL = none (JSON mode) */
    FILE *err;                 /* "LINE : ..." error messages; NULL = stderr */
};
/* Score GOLD against TEST line by line into acc (initialised here). Returns SP_OK (acc complete;
 * *aborted = 1 when the MAX_ERROR rule stopped the run: print no summary), SP_EIO or SP_EPARSE
 * with err = "FILE:LINE: ...". Does not print the totals. */
enum sp_err prb_evalb_run(const struct prb_evalb_params *p, const char *gold_path, const char *test_path,
                          const struct prb_evalb_run_opts *o, struct prb_evalb_acc *acc, int *aborted,
                          char *err, size_t errlen);

#endif
