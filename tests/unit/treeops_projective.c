/* Unit tests for tops_is_projective (treeops/dep.c): hand-made trees, 0-based heads with -1 for
 * the root. Expected values from drawing the arcs: an arc is projective iff every word under it
 * descends from its head. */
#include <stdint.h>
#include <stdlib.h>

#include "common/sp.h"
#include "treeops/treeops.h"
#include "t_harness.h"

static int proj(int n, const int *head)
{
    uint8_t *anc = sp_xcalloc((size_t)n * n, 1);
    tops_ancestors(n, head, anc);
    int p = tops_is_projective(n, head, anc);
    free(anc);
    return p;
}

int main(void)
{
    /* one word; a chain a <- b <- c written left to right */
    T_EQ_INT(proj(1, (const int[]){ -1 }), 1);
    T_EQ_INT(proj(3, (const int[]){ -1, 0, 1 }), 1);
    /* nested arcs around a root in the middle: 1->0, 2->1, 4->3, 2->4 */
    T_EQ_INT(proj(5, (const int[]){ 1, 2, -1, 4, 2 }), 1);
    /* one head, a long arc over its own dependents: 0->1, 0->2, 0->3 and 2->1 */
    T_EQ_INT(proj(4, (const int[]){ -1, 2, 0, 0 }), 1);
    /* crossing arcs 0->2 and 3->1: word 2 lies under 3->1 but hangs from 0 */
    T_EQ_INT(proj(4, (const int[]){ -1, 3, 0, 0 }), 0);
    /* an arc over the root: root 1, arc 2->0 spans it */
    T_EQ_INT(proj(3, (const int[]){ 2, -1, 1 }), 0);
    /* root 1 heads 0, and 0->2 spans the root: not projective either */
    T_EQ_INT(proj(3, (const int[]){ 1, -1, 0 }), 0);
    /* both words hang from the root: projective */
    T_EQ_INT(proj(3, (const int[]){ 1, -1, 1 }), 1);
    /* arcs 3->1 and 2->4 cross (1 < 2 < 3 < 4), away from the root */
    T_EQ_INT(proj(5, (const int[]){ -1, 3, 0, 0, 2 }), 0);
    return T_DONE();
}
