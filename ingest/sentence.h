/* ingest/sentence.h — one sentence as the readers hand it on: words, optional dependency
 * heads, optional normalised constituency tree, and what is needed to write the CoNLL-U
 * file back byte for byte. Everything hangs off an arena owned by the batch (ingest.h).
 *
 * Indices are 0-based (docs/spec/structures.md §0): head[i] ∈ {-1, 0..n-1}, -1 = attached to ROOT. */
#ifndef ING_SENTENCE_H
#define ING_SENTENCE_H

#include <stdint.h>

/* Warnings attached to a sentence (docs/spec/structures.md §2; kept as bit flags, §8). */
enum sp_warn {
    SP_W_BADHEAD   = 1u << 0,
    SP_W_MULTIROOT = 1u << 1,
    SP_W_CYCLE     = 1u << 2,
    SP_W_MWT       = 1u << 3,
    SP_W_COLUMNS   = 1u << 4,
    SP_W_EMPTYTREE = 1u << 5,
};

/* CoNLL-U columns kept per word (ID and HEAD are implied by position and head[]). */
enum sp_col { SP_FORM, SP_LEMMA, SP_UPOS, SP_XPOS, SP_FEATS, SP_DEPREL, SP_DEPS, SP_MISC, SP_NCOLS };

/* A multiword-token range line or an empty-node line of a CoNLL-U file, kept verbatim.
 * `pos` = number of word lines before it in the sentence, so writing extras with pos == i
 * right before word i (and pos == n at the end) reproduces the original line order. */
enum sp_extra_kind { SP_EXTRA_MWT = 1, SP_EXTRA_EMPTY = 2 };
struct sp_extra {
    int pos;
    enum sp_extra_kind kind;
    int first, last;          /* MWT: covered words, 0-based inclusive; empty node: -1 */
    const char *line;         /* the whole line, without its line terminator */
};

/* Constituency tree after normalisation (docs/spec/structures.md §2.3): -NONE- leaves removed,
 * emptied phrasal nodes removed, wrapper present as node 0. Nodes are stored in pre-order,
 * so a parent always precedes its children and children are contiguous in sibling order. */
struct sp_cnode {
    const char *label;        /* raw label as in the file ("" for the PTB wrapper) */
    int parent;               /* -1 for the wrapper */
    int first_child;          /* -1 for preterminals */
    int next_sibling;         /* -1 for the last child */
    int n_children;
    int start, end;           /* covered words, 0-based inclusive */
    int word;                 /* preterminal: its word index; phrasal/wrapper: -1 */
};
struct sp_ctree {
    int n_nodes;
    struct sp_cnode *node;    /* node[0] is the wrapper */
};

struct sp_sentence {
    const char *sent_id;      /* "# sent_id = …", else set by the writer to <stem>.<ordinal> */
    const char *text;         /* "# text = …", else NULL */
    const char *comments;     /* every comment line verbatim, '\n'-separated, or NULL */
    long line;                /* file line (1-based) where the sentence starts */
    int n;                    /* number of words (syntactic words; no MWT ranges, no empty nodes) */
    const char **col[SP_NCOLS]; /* col[c][i]: column c of word i ("_" where the format has none) */
    int *head;                /* [n], 0-based, -1 = root; NULL when the sentence has no dependency tree */
    int n_extra;
    struct sp_extra *extra;
    struct sp_ctree *tree;    /* NULL when the sentence has no constituency tree */
    unsigned warn;            /* SP_W_* bits */
    const char *warnings;     /* human-readable repair notes, '; '-separated, or NULL */
};

#endif
