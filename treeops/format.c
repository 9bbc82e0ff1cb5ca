/* treeops/format.c — a normalised constituency tree back to one bracketed line. */
#include <string.h>

#include "treeops/treeops.h"

/* Iterative pre-order walk; closing parentheses are emitted when a subtree ends. */
void tops_tree_format(const struct sp_ctree *t, const char *const *words, struct sp_buf *out)
{
    int x = 0;
    for (;;) {
        const struct sp_cnode *nd = &t->node[x];
        sp_buf_put(out, "(", 1);
        sp_buf_puts(out, nd->label);
        if (nd->word >= 0) {
            sp_buf_put(out, " ", 1);
            sp_buf_puts(out, words[nd->word]);
        }
        if (nd->first_child >= 0) {
            sp_buf_put(out, " ", 1);
            x = nd->first_child;
            continue;
        }
        /* leaf of the node tree: close it, then climb while we are the last child */
        for (;;) {
            sp_buf_put(out, ")", 1);
            if (t->node[x].next_sibling >= 0) {
                sp_buf_put(out, " ", 1);
                x = t->node[x].next_sibling;
                break;
            }
            x = t->node[x].parent;
            if (x < 0) return;
        }
    }
}
