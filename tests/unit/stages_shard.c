/* tests/unit/stages_shard.c — stg_shard_of, the sentence -> shard hash (stages/ingest.h). Expected
 * values from Python: int.from_bytes(hashlib.sha256(b"synprobe-shard-1\n" + BASE + b"\n" + POS)
 * .digest()[:8], "big") % N, an independent implementation of the documented rule. */
#include "stages/ingest.h"
#include "tests/unit/t_harness.h"

int main(void)
{
    /* hashlib: en_ewt-ud-dev 17 -> 17602927001779489145 */
    T_EQ_INT(stg_shard_of("ud/en_ewt-ud-dev.conllu", 17, 8), 1);
    T_EQ_INT(stg_shard_of("ud/en_ewt-ud-dev.conllu", 17, 10000), 9145);
    T_EQ_INT(stg_shard_of("demo.conllu", 1, 3), 0);
    T_EQ_INT(stg_shard_of("demo.conllu", 2, 3), 2);
    T_EQ_INT(stg_shard_of("demo.conllu", 3, 3), 0);
    T_EQ_INT(stg_shard_of("/data/wsj/wsj_0001.mrg", 1, 1000), 443);
    /* only the last extension goes: "x.y.conllu" -> "x.y" */
    T_EQ_INT(stg_shard_of("x.y.conllu", 5, 7), 5);
    T_EQ_INT(stg_shard_of("-stdin", 4, 5), 0);
    /* the base name is what counts: folder, .gz and the format's extension do not */
    for (long p = 1; p <= 200; p++) {
        int a = stg_shard_of("demo.conllu", p, 7);
        T_EQ_INT(stg_shard_of("demo.mrg", p, 7), a);
        T_EQ_INT(stg_shard_of("some/folder/demo.dp.gz", p, 7), a);
        T_CHECK(a >= 0 && a < 7);
    }
    /* N = 1 (and less): everything is shard 0 */
    T_EQ_INT(stg_shard_of("demo.conllu", 2, 1), 0);
    /* roughly balanced: 3000 positions over 3 shards, each within 10% of 1000 */
    int count[3] = { 0 };
    for (long p = 1; p <= 3000; p++) count[stg_shard_of("en_ewt-ud-train.conllu", p, 3)]++;
    for (int k = 0; k < 3; k++) T_CHECK(count[k] > 900 && count[k] < 1100);
    return T_DONE();
}
