/* tests/unit/encoder_prepare.c — enc_sentence_prepare on TV-6 / TV-10 (wsj_0001 s2): the
 * structures it attaches are those of docs/spec/structures.md §3.7 and §4.4, a sentence
 * without the tree a kind needs is refused with a reason, and the prepared sentence encodes.
 * Goes through the ingest readers. */
#include "common/sp.h"
#include "encoder/encoder.h"
#include "ingest/readers.h"
#include "tests/unit/t_harness.h"

#include <string.h>

static const char *MRG =
    "( (S (NP-SBJ (NNP Mr.) (NNP Vinken) ) (VP (VBZ is) (NP-PRD (NP (NN chairman) ) (PP (IN of) (NP "
    "(NP (NNP Elsevier) (NNP N.V.) ) (, ,) (NP (DT the) (NNP Dutch) (VBG publishing) (NN group) ))))) (. .) ))\n";
static const char *DP =
    "Mr.\tNNP\t2\nVinken\tNNP\t3\nis\tVBZ\t0\nchairman\tNN\t3\nof\tIN\t4\nElsevier\tNNP\t7\nN.V.\tNNP\t12\n"
    ",\t,\t12\nthe\tDT\t12\nDutch\tNNP\t12\npublishing\tVBG\t12\ngroup\tNN\t5\n.\t.\t3\n\n";

static char err[1024];

static enc_t *open_json(const char *json)
{
    struct enc_config c;
    enc_t *e = NULL;
    if (enc_config_parse(json, "t.json", &c, err, sizeof err) || enc_open(&c, ENC_DEVICE_CPU, NULL, 0, &e, err, sizeof err))
        fprintf(stderr, "%s\n", err);
    return e;
}

int main(void)
{
    struct ing_batch bt, bd;
    ing_batch_init(&bt);
    ing_batch_init(&bd);
    if (ing_parse_chunk(SP_FMT_PTB, SP_MODE_DEFAULT, MRG, strlen(MRG), 1, 1, &bt, err, sizeof err) || bt.n_items != 1 || bt.item[0].error
        || ing_parse_chunk(SP_FMT_DEP, SP_MODE_DEFAULT, DP, strlen(DP), 1, 1, &bd, err, sizeof err) || bd.n_items != 1 || bd.item[0].error) {
        T_SKIP("ingest readers did not parse the TV-10 sentence (not ready?)");
        return 0;
    }
    struct sp_sentence s = bd.item[0].s;            /* heads from .dp, tree from .mrg */
    T_EQ_INT(s.n, 13);
    T_CHECK(s.tree == NULL);
    s.tree = bt.item[0].s.tree;
    struct sp_arena a;
    sp_arena_init(&a);
    enc_t *p = open_json("{\"kind\":\"psan\",\"d_model\":8}");
    enc_t *m = open_json("{\"kind\":\"ms-san\",\"d_model\":8,\"heads\":2,\"distances\":[\"dep\"]}");
    enc_t *g = open_json("{\"kind\":\"sg-net\",\"d_model\":8,\"heads\":2,\"layers\":1,\"rel_pos\":\"struct\"}");
    T_CHECK(p && m && g);
    if (!p || !m || !g) return T_DONE();
    float emb[13 * 8];
    for (int k = 0; k < 13 * 8; k++) emb[k] = (float)((k * 37) % 11) / 11.0f - 0.5f;
    struct enc_sentence es;
    T_EQ_INT(enc_sentence_prepare(p, &s, emb, NULL, &a, &es, err, sizeof err), SP_OK);
    static const int pid[3][13] = { { 0,0,1,1,1,1,1,1,1,1,1,1,2 }, { 0,0,1,2,2,2,2,2,2,2,2,2,3 }, { 0,0,1,2,3,3,3,3,3,3,3,3,4 } };
    for (int t = 0; t < 3; t++) for (int i = 0; i < 13; i++) T_EQ_INT(es.pid[t * 13 + i], pid[t][i]);   /* TV-10 */
    T_EQ_INT(es.n_levels, 3);
    T_CHECK(es.dist == NULL && es.anc == NULL);     /* PSAN needs only phrase ids */
    T_EQ_INT(enc_sentence_prepare(m, &s, emb, NULL, &a, &es, err, sizeof err), SP_OK);
    static const int drow[13] = { 5,4,3,2,1,2,1,1,1,1,1,0,4 };   /* TV-6: D row of `group` */
    for (int j = 0; j < 13; j++) T_EQ_INT(es.dist[11 * 13 + j], drow[j]);
    T_EQ_INT(enc_sentence_prepare(g, &s, emb, NULL, &a, &es, err, sizeof err), SP_OK);
    static const int relrow[13] = { -3,-2,1,0,-1,-4,-3,-3,-3,-3,-3,-2,2 };   /* TV-6: rel row of `chairman` */
    for (int j = 0; j < 13; j++) T_EQ_INT(es.rel[3 * 13 + j], relrow[j]);
    int sd = 0;
    for (int j = 0; j < 13; j++) sd += es.anc[11 * 13 + j] << j;
    T_EQ_INT(sd, (1 << 2) | (1 << 3) | (1 << 4) | (1 << 11));   /* TV-6: SDOI row of `group` */
    float out[16], maps[169], *mp[1] = { maps };
    struct enc_batch in = { 1, &es, NULL, 0, 0 };
    struct enc_output o = { out, NULL, mp, 1 };
    T_EQ_INT(enc_forward(g, &in, &o, err, sizeof err), SP_OK);
    for (int j = 0; j < 13; j++) if (!((1 << j) & sd)) T_CHECK(maps[11 * 13 + j] == 0.0f);   /* SDOI layer map obeys the mask */
    /* refusals: PTB-only sentence for MS-SAN DEP, dependency-only for PSAN */
    T_EQ_INT(enc_sentence_prepare(m, &bt.item[0].s, emb, NULL, &a, &es, err, sizeof err), SP_EUSAGE);
    T_CHECK(strstr(err, "kind ms-san needs a dependency tree") != NULL);
    T_EQ_INT(enc_sentence_prepare(p, &bd.item[0].s, emb, NULL, &a, &es, err, sizeof err), SP_EUSAGE);
    T_CHECK(strstr(err, "kind psan needs a constituency tree") != NULL);
    enc_close(p); enc_close(m); enc_close(g);
    sp_arena_free(&a);
    ing_batch_free(&bt);
    ing_batch_free(&bd);
    return T_DONE();
}
