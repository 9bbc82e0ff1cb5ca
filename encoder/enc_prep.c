/* encoder/enc_prep.c — build an enc_sentence from an ingested sentence with treeops.
 *
 * Kept in its own file so that programs which never call it do not pull treeops objects in.
 * Word level only: subword/special-token expansion (§3.6) belongs to the caller that tokenises. */
#include "encoder/encoder_int.h"
#include "ingest/sentence.h"
#include "treeops/treeops.h"

#include <string.h>

int enc_sentence_prepare(const enc_t *e, const struct sp_sentence *s, const float *emb, const int32_t *ids,
                         struct sp_arena *a, struct enc_sentence *out, char *err, size_t errlen)
{
    const int n = s->n;
    unsigned need = enc_needs(e);
    memset(out, 0, sizeof *out);
    out->n = n;
    out->emb = emb;
    out->ids = ids;
    const char *id = s->sent_id ? s->sent_id : "?";
    if (n <= 0) { snprintf(err, errlen, "%s: no words", id); return SP_EUSAGE; }
    if ((need & (ENC_NEED_DEPTH | ENC_NEED_DIST | ENC_NEED_ANC | ENC_NEED_REL)) && !s->head) {
        snprintf(err, errlen, "%s: kind %s needs a dependency tree", id, enc_kind_name(e->cfg.kind));
        return SP_EUSAGE;
    }
    if ((need & ENC_NEED_PID) && !s->tree) {
        snprintf(err, errlen, "%s: kind %s needs a constituency tree", id, enc_kind_name(e->cfg.kind));
        return SP_EUSAGE;
    }
    size_t nn = (size_t)n * n;
    if (need & (ENC_NEED_DEPTH | ENC_NEED_DIST | ENC_NEED_ANC | ENC_NEED_REL)) {
        int *order = sp_arena_alloc(a, sizeof(int) * (size_t)n);
        int *depth = sp_arena_alloc(a, sizeof(int) * (size_t)n);
        if (tops_depth(n, s->head, order, depth)) { snprintf(err, errlen, "%s: heads do not form one tree", id); return SP_EUSAGE; }
        out->depth = depth;
        if (need & ENC_NEED_DIST) {
            int *dist = sp_arena_alloc(a, sizeof(int) * nn);
            tops_distance(n, s->head, order, dist);
            out->dist = dist;
        }
        if (need & (ENC_NEED_ANC | ENC_NEED_REL)) {
            uint8_t *anc = sp_arena_alloc(a, nn);
            tops_ancestors(n, s->head, anc);
            out->anc = anc;
            if (need & ENC_NEED_REL) {
                int *rel = sp_arena_alloc(a, sizeof(int) * nn);
                tops_rel_pos(n, depth, anc, rel);
                out->rel = rel;
            }
        }
    }
    if (need & ENC_NEED_PID) {
        int T = e->cfg.levels;
        int *pid = sp_arena_alloc(a, sizeof(int) * (size_t)T * n);
        tops_phrases(s->tree, n, T, e->cfg.min_phrase_len, pid);
        out->pid = pid;
        out->n_levels = T;
    }
    return SP_OK;
}
