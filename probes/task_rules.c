/* probes/task_rules.c — per-sentence rules of the probing-task derivation (docs/spec/probing.md §2.2,
 * §2.3, A10–A15): main clause, finite/lexical verb, subject and object head nouns, TopConst
 * sequence filter, the CoordInv frame and its inversion.
 *
 * HOW IT WORKS. A sentence with a constituency tree is read with the PTB rules (gold function
 * tags: NP-SBJ, plain NP objects of the lexical VP); a sentence without a tree but with UD
 * relations uses the UD rules (nsubj / obj / conj + cc of the root). Trees are walked through
 * first_child / next_sibling of the pre-order node array; the loops are iterative, so
 * pathological nesting cannot overflow the stack. Nothing here allocates except
 * prb_coord_invert (into the caller's arena). */
#include <ctype.h>
#include <string.h>

#include "ingest/readers.h"
#include "probes/task_derive.h"
#include "treeops/treeops.h"

/* ---- small predicates ---- */

static int has_col(const struct sp_sentence *s, enum sp_col c, int i)
{
    return s->col[c] && s->col[c][i] && strcmp(s->col[c][i], "_") != 0;
}

static const char *xpos(const struct sp_sentence *s, int i)
{
    return s->col[SP_XPOS] && s->col[SP_XPOS][i] ? s->col[SP_XPOS][i] : "_";
}

/* PTB punctuation tags of §2.0 step 4 (OQ, CQ written out) */
static int ptb_punct_tag(const char *t)
{
    static const char *const p[] = { ",", ".", ":", "``", "''", "-LRB-", "-RRB-" };
    for (size_t k = 0; k < sizeof p / sizeof p[0]; k++)
        if (strcmp(t, p[k]) == 0) return 1;
    return 0;
}

int prb_is_punct(const struct sp_sentence *s, int i)
{
    if (has_col(s, SP_UPOS, i)) return strcmp(s->col[SP_UPOS][i], "PUNCT") == 0;
    return ptb_punct_tag(xpos(s, i));
}

static int is_pre(const struct sp_ctree *t, int x) { return t->node[x].first_child < 0; }

static int base_is(const char *label, const char *b)
{
    char buf[64];
    return strcmp(ing_base_label(label, buf, sizeof buf), b) == 0;
}

/* Does the raw label carry function tag ftag ("NP-SBJ-1" has SBJ)? Labels starting with '-'
 * (-LRB-, -NONE-) have none; the part before the first '-'/'=' is the base, not a tag. */
static int has_ftag(const char *label, const char *ftag)
{
    if (!label || label[0] == '-') return 0;
    size_t fl = strlen(ftag);
    const char *p = strpbrk(label, "-=");
    while (p) {
        const char *q = p + 1, *e = strpbrk(q, "-=|");
        size_t l = e ? (size_t)(e - q) : strlen(q);
        if (l == fl && memcmp(q, ftag, fl) == 0) return 1;
        p = e ? (*e == '|' ? NULL : e) : NULL;
    }
    return 0;
}

static int verb_tag(const char *t) { return strcmp(t, "MD") == 0 || strncmp(t, "VB", 2) == 0; }

/* lower-cased form of a finite be/have/do (A12); compared on lower-cased text */
static int bhd_form(const char *w)
{
    static const char *const f[] = {
        "am", "is", "are", "was", "were", "'s", "'re", "'m", "be", "been", "being",
        "have", "has", "had", "'ve", "'d", "having", "do", "does", "did", "done", "doing",
    };
    char low[16];
    size_t n = strlen(w);
    if (n >= sizeof low) return 0;
    for (size_t k = 0; k <= n; k++) low[k] = (char)tolower((unsigned char)w[k]);
    for (size_t k = 0; k < sizeof f / sizeof f[0]; k++)
        if (strcmp(low, f[k]) == 0) return 1;
    return 0;
}

static int ud_rel_is(const struct sp_sentence *s, int i, const char *rel)
{
    /* "nsubj" matches "nsubj" only; subtypes ("nsubj:pass") are different relations here */
    return has_col(s, SP_DEPREL, i) && strcmp(s->col[SP_DEPREL][i], rel) == 0;
}

static int ud_rel_base_is(const struct sp_sentence *s, int i, const char *rel)
{
    if (!has_col(s, SP_DEPREL, i)) return 0;
    size_t l = strlen(rel);
    const char *d = s->col[SP_DEPREL][i];
    return strncmp(d, rel, l) == 0 && (d[l] == '\0' || d[l] == ':');
}

/* UD rules apply when there is no tree but heads and relations */
static int ud_ok(const struct sp_sentence *s)
{
    return !s->tree && s->head && s->n > 0 && has_col(s, SP_DEPREL, 0);
}

static int ud_root(const struct sp_sentence *s)
{
    for (int i = 0; i < s->n; i++)
        if (s->head[i] < 0) return i;
    return -1;
}

/* first dependent of h with relation rel, or -1 */
static int ud_child(const struct sp_sentence *s, int h, const char *rel)
{
    for (int i = 0; i < s->n; i++)
        if (s->head[i] == h && ud_rel_is(s, i, rel)) return i;
    return -1;
}

/* ---- PTB: main clause, VPs, head nouns (§2.2) ---- */

/* M = the single child of the wrapper, if its base label is S */
static int main_clause(const struct sp_ctree *t)
{
    if (t->n_nodes < 2 || t->node[0].n_children != 1) return -1;
    int m = t->node[0].first_child;
    return !is_pre(t, m) && base_is(t->node[m].label, "S") ? m : -1;
}

static int first_phrasal_child(const struct sp_ctree *t, int x, const char *base)
{
    for (int c = t->node[x].first_child; c >= 0; c = t->node[c].next_sibling)
        if (!is_pre(t, c) && base_is(t->node[c].label, base)) return c;
    return -1;
}

static int first_verb_pre(const struct sp_ctree *t, int x)
{
    for (int c = t->node[x].first_child; c >= 0; c = t->node[c].next_sibling)
        if (is_pre(t, c) && verb_tag(t->node[c].label)) return c;
    return -1;
}

/* lexical main VP: from the first VP of M, follow first VP children down */
static int lexical_vp(const struct sp_ctree *t, int m)
{
    int v = first_phrasal_child(t, m, "VP");
    if (v < 0) return -1;
    for (int c; (c = first_phrasal_child(t, v, "VP")) >= 0;) v = c;
    return v;
}

/* Head word of an NP (§2.2): none for coordination (CC or UCP child); recurse into a first NP
 * child; else the right-most nominal preterminal, unless a possessive POS comes first. */
static int np_head(const struct sp_ctree *t, int np)
{
    static const char *const nominal[] = { "NN", "NNS", "NNP", "NNPS", "PRP", "CD", "EX" };
    for (;;) {
        int first = t->node[np].first_child;
        for (int c = first; c >= 0; c = t->node[c].next_sibling)
            if (is_pre(t, c) ? strcmp(t->node[c].label, "CC") == 0 : base_is(t->node[c].label, "UCP"))
                return -1;
        if (first >= 0 && !is_pre(t, first) && base_is(t->node[first].label, "NP")) {
            np = first;
            continue;
        }
        /* scanning right to left, the first POS or nominal decides: that is the last one of
         * either kind in sibling order */
        int last = -1;
        for (int c = first; c >= 0; c = t->node[c].next_sibling) {
            if (!is_pre(t, c)) continue;
            const char *tag = t->node[c].label;
            if (strcmp(tag, "POS") == 0) last = c;
            for (size_t q = 0; q < sizeof nominal / sizeof nominal[0]; q++)
                if (strcmp(tag, nominal[q]) == 0) last = c;
        }
        if (last >= 0 && strcmp(t->node[last].label, "POS") != 0) return t->node[last].word;
        return -1;
    }
}

/* ---- the rules exposed in tasks.h ---- */

int prb_sentlen_bin(int n)
{
    static const int hi[6] = { 8, 12, 16, 20, 25, 28 };
    if (n < 5) return -1;
    for (int b = 0; b < 6; b++)
        if (n <= hi[b]) return b;
    return -1;
}

int prb_topconst_seq(const struct sp_sentence *s, int nopunct, char *buf, size_t cap)
{
    if (cap == 0) return 0;
    buf[0] = '\0';
    if (!s->tree || s->tree->n_nodes < 2 || s->tree->node[0].n_children != 1) return 0;
    /* A sequence is a class only when it is frequent (19 classes of 2 to 5 labels): one longer
     * than these buffers (1023 bytes, 256 labels) is no candidate. It is refused whole, never
     * cut: a cut one could end in "." and pass for a short sequence. */
    char raw[1024];
    tops_top_const(s->tree, raw, sizeof raw);
    if (!raw[0] || strlen(raw) == sizeof raw - 1) return 0;
    /* split on '_' (no PTB label contains one); the last label must be "." (? and ! are
     * tagged . in PTB); punctuation elsewhere excludes the sentence, or (nopunct) is dropped */
    char *lab[256];
    int k = 0;
    for (char *p = raw, *e; p; p = e ? e + 1 : NULL) {
        if (k == 256) return 0;
        e = strchr(p, '_');
        if (e) *e = '\0';
        lab[k++] = p;
    }
    if (strcmp(lab[k - 1], ".") != 0) return 0;
    size_t len = 0;
    for (int q = 0; q < k; q++) {
        if (q < k - 1 && ptb_punct_tag(lab[q])) {
            if (nopunct) continue;
            buf[0] = '\0';
            return 0;
        }
        size_t l = strlen(lab[q]);
        if (len + l + 2 > cap) { buf[0] = '\0'; return 0; }
        if (len) buf[len++] = '_';
        memcpy(buf + len, lab[q], l + 1);
        len += l;
    }
    return 1;
}

int prb_tense(const struct sp_sentence *s, int with_bhd, int *word)
{
    int w = -1, past = 0;
    if (s->tree) {
        const struct sp_ctree *t = s->tree;
        int m = main_clause(t);
        if (m < 0) return 0;
        int vp = first_phrasal_child(t, m, "VP");
        if (vp < 0) return 0;
        int fv = first_verb_pre(t, vp);
        /* A12: the finite verb must also be the lexical main verb (no auxiliary chain) */
        if (fv < 0 || first_verb_pre(t, lexical_vp(t, m)) != fv) return 0;
        const char *tag = t->node[fv].label;
        if (strcmp(tag, "VBD") == 0) past = 1;
        else if (strcmp(tag, "VBZ") != 0 && strcmp(tag, "VBP") != 0) return 0;
        w = t->node[fv].word;
    } else if (ud_ok(s)) {
        int r = ud_root(s);
        if (r < 0 || !has_col(s, SP_UPOS, r) || strcmp(s->col[SP_UPOS][r], "VERB") != 0) return 0;
        if (!has_col(s, SP_FEATS, r) || !strstr(s->col[SP_FEATS][r], "VerbForm=Fin")) return 0;
        const char *tag = xpos(s, r);
        if (strcmp(tag, "VBD") == 0) past = 1;
        else if (strcmp(tag, "VBZ") != 0 && strcmp(tag, "VBP") != 0) return 0;
        if (ud_child(s, r, "aux") >= 0 || ud_child(s, r, "aux:pass") >= 0 || ud_child(s, r, "cop") >= 0)
            return 0;
        if (!with_bhd && has_col(s, SP_LEMMA, r)) {
            const char *l = s->col[SP_LEMMA][r];
            if (!strcmp(l, "be") || !strcmp(l, "have") || !strcmp(l, "do")) return 0;
        }
        w = r;
    } else {
        return 0;
    }
    if (!with_bhd && bhd_form(s->col[SP_FORM][w])) return 0;
    if (word) *word = w;
    return past ? 1 : 2;
}

int prb_subject_head(const struct sp_sentence *s)
{
    if (s->tree) {
        const struct sp_ctree *t = s->tree;
        int m = main_clause(t);
        if (m < 0) return -1;
        for (int c = t->node[m].first_child; c >= 0; c = t->node[c].next_sibling)
            if (!is_pre(t, c) && base_is(t->node[c].label, "NP") && has_ftag(t->node[c].label, "SBJ"))
                return np_head(t, c);
        return -1;
    }
    if (ud_ok(s)) {
        int r = ud_root(s);
        return r < 0 ? -1 : ud_child(s, r, "nsubj");
    }
    return -1;
}

int prb_object_head(const struct sp_sentence *s)
{
    if (s->tree) {
        const struct sp_ctree *t = s->tree;
        int m = main_clause(t);
        if (m < 0) return -1;
        int v = lexical_vp(t, m);
        if (v < 0) return -1;
        /* full label exactly NP: NP-PRD, NP-TMP, NP-ADV, NP-EXT are not objects */
        for (int c = t->node[v].first_child; c >= 0; c = t->node[c].next_sibling)
            if (!is_pre(t, c) && strcmp(t->node[c].label, "NP") == 0) return np_head(t, c);
        return -1;
    }
    if (ud_ok(s)) {
        int r = ud_root(s);
        return r < 0 ? -1 : ud_child(s, r, "obj");
    }
    return -1;
}

/* is j inside the subtree of c (heads, 0-based, -1 = root)? bounded walk */
static int ud_under(const struct sp_sentence *s, int j, int c)
{
    for (int k = 0; k <= s->n && j >= 0; k++, j = s->head[j])
        if (j == c) return 1;
    return 0;
}

int prb_coord_frame(const struct sp_sentence *s, struct prb_coord *c)
{
    if (s->tree) {
        const struct sp_ctree *t = s->tree;
        if (t->n_nodes < 2 || t->node[0].n_children != 1) return 0;
        int top = t->node[0].first_child;
        if (is_pre(t, top) || !base_is(t->node[top].label, "S")) return 0;
        /* children exactly S CC S . or S , CC S . (base labels) */
        int ch[6], k = 0;
        for (int x = t->node[top].first_child; x >= 0 && k < 6; x = t->node[x].next_sibling) ch[k++] = x;
        if (k != 4 && k != 5) return 0;
        if (t->node[top].n_children != k) return 0;
        static const char *const f4[] = { "S", "CC", "S", "." }, *const f5[] = { "S", ",", "CC", "S", "." };
        const char *const *f = k == 4 ? f4 : f5;
        for (int q = 0; q < k; q++)
            if (!base_is(t->node[ch[q]].label, f[q])) return 0;
        int ncc = 0;
        for (int i = 0; i < s->n; i++) ncc += strcmp(xpos(s, i), "CC") == 0;
        if (ncc != 1) return 0;
        c->a0 = t->node[ch[0]].start; c->a1 = t->node[ch[0]].end;
        c->b0 = t->node[ch[k - 2]].start; c->b1 = t->node[ch[k - 2]].end;
        c->cc = t->node[ch[k - 3]].start;
        return 1;
    }
    if (!ud_ok(s) || s->n < 4) return 0;
    /* UD: the root has a clausal conj with its own subject and a cc; one CCONJ in the
     * sentence; clause 1 = everything before the cc (and an optional comma), clause 2 =
     * the conj subtree up to the final punctuation */
    int ncc = 0, k = -1;
    for (int i = 0; i < s->n; i++)
        if (has_col(s, SP_UPOS, i) && strcmp(s->col[SP_UPOS][i], "CCONJ") == 0) { ncc++; k = i; }
    if (ncc != 1 || !prb_is_punct(s, s->n - 1)) return 0;
    int r = ud_root(s);
    if (r < 0) return 0;
    int cj = s->head[k];
    if (cj < 0 || s->head[cj] != r || !ud_rel_base_is(s, cj, "conj") || !ud_rel_is(s, k, "cc")) return 0;
    int subj = 0;
    for (int i = 0; i < s->n; i++)
        if (s->head[i] == cj && ud_rel_base_is(s, i, "nsubj")) subj = 1;
    if (!subj) return 0;
    int a1 = k - 1;
    if (a1 >= 0 && strcmp(s->col[SP_FORM][a1], ",") == 0) a1--;
    if (a1 < 0 || r > a1 || k + 1 > s->n - 2) return 0;
    for (int j = 0; j <= a1; j++)
        if (ud_under(s, j, cj)) return 0;
    for (int j = k + 1; j <= s->n - 2; j++)
        if (!ud_under(s, j, cj)) return 0;
    c->a0 = 0; c->a1 = a1; c->b0 = k + 1; c->b1 = s->n - 2; c->cc = k;
    return 1;
}

char *prb_coord_invert(const struct sp_sentence *s, const struct prb_coord *c, struct sp_arena *a)
{
    /* order: clause 2, the words between the clauses (comma, CC), clause 1, the rest */
    struct sp_buf b = { 0 };
    int order[4][2] = { { c->b0, c->b1 }, { c->a1 + 1, c->b0 - 1 }, { c->a0, c->a1 }, { c->b1 + 1, s->n - 1 } };
    int first = 1;
    for (int part = 0; part < 4; part++) {
        for (int i = order[part][0]; i <= order[part][1]; i++) {
            const char *w = s->col[SP_FORM][i];
            if (!first) sp_buf_put(&b, " ", 1);
            size_t at = b.len;
            sp_buf_puts(&b, w);
            /* A15 re-casing: the new sentence start is capitalised; the old one is lower-cased
             * unless it is a proper noun or "I" */
            if (i == c->b0 && islower((unsigned char)b.p[at])) b.p[at] = (char)toupper((unsigned char)b.p[at]);
            if (i == c->a0 && i != c->b0) {
                const char *tg = xpos(s, i);
                int keep = !strcmp(tg, "NNP") || !strcmp(tg, "NNPS") || !strcmp(w, "I") ||
                           (has_col(s, SP_UPOS, i) && !strcmp(s->col[SP_UPOS][i], "PROPN"));
                if (!keep && isupper((unsigned char)b.p[at])) b.p[at] = (char)tolower((unsigned char)b.p[at]);
            }
            first = 0;
        }
    }
    char *out = sp_arena_strndup(a, b.p ? b.p : "", b.len);
    sp_buf_free(&b);
    return out;
}
