/* tests/unit/daemon_shard.c — --shard K/N parsing, the shard store's name, and which steps a
 * shard job keeps (daemon/shard.h): ingest with the shard set and encodes over corpora, into the
 * shard store; nothing else (task encodes wait for the merged store, as tasks do). */
#include <string.h>

#include "daemon/shard.h"
#include "stages/encode.h"
#include "stages/ingest.h"
#include "tests/unit/t_harness.h"

static const char job_text[] =
    "{\"store\": \"out/s.db\", \"out\": \"out\","
    " \"corpora\": [{\"name\": \"demo\", \"paths\": [\"demo/demo.conllu\", \"demo/demo.mrg\"]}],"
    " \"tasks\": [{\"tasks\": [\"Tense\", \"SOMO\"], \"split\": \"resplit\"}],"
    " \"encoders\": [{\"config\": \"encoder/configs/san.json\", \"inputs\": [\"Tense\", \"SOMO\"]},"
    "              {\"config\": \"encoder/configs/ms-san.json\", \"inputs\": [\"demo\", \"Tense\"], \"attention\": 0}],"
    " \"probes\": [{}], \"trees\": [{}], \"reports\": [{\"format\": \"json\", \"out\": \"r.json\"}]}";

int main(void)
{
    int k = -1, n = -1;
    char err[256];
    T_EQ_INT(dmn_shard_parse("0/1", &k, &n, err, sizeof err), SP_OK);
    T_EQ_INT(k, 0);
    T_EQ_INT(n, 1);
    T_EQ_INT(dmn_shard_parse("9999/10000", &k, &n, err, sizeof err), SP_OK);
    T_EQ_INT(k, 9999);
    static const char *const bad[] = { "1/1", "3/3", "-1/3", "+1/3", "1/+3", "a/b", "1/0", "1", "0/3x", "/3", "2/", "0/10001",
                                       " 1/3", "1 /3", "1/ 3", "", "99999999999999999999/3" };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        err[0] = 0;
        T_EQ_INT(dmn_shard_parse(bad[i], &k, &n, err, sizeof err), SP_EUSAGE);
        T_CHECK(strstr(err, "expected K/N") != NULL);
    }

    struct dmn_job job;
    if (dmn_job_parse(job_text, ".", "job.json", &job, err, sizeof err)) {
        fprintf(stderr, "job: %s\n", err);
        T_CHECK(0);
        return T_DONE();
    }
    T_EQ_STR(dmn_shard_store(&job, 2, 8), "out/s.shard-2-of-8.db");
    T_EQ_INT(dmn_job_shard(&job, 1, 4, err, sizeof err), SP_OK);
    T_EQ_STR(job.store, "out/s.shard-1-of-4.db");
    /* ingest and ms-san over demo; not san (tasks only), nor ms-san's Tense */
    T_EQ_INT(job.n_steps, 2);
    int ingest = 0, enc = 0;
    for (int i = 0; i < job.n_steps; i++) {
        const struct dmn_step *s = &job.steps[i];
        T_CHECK(s->kind == DMN_INGEST || s->kind == DMN_ENCODE);
        if (s->kind == DMN_INGEST) {
            const struct stg_ingest_opts *o = s->opts;
            ingest++;
            T_EQ_INT(o->shard_k, 1);
            T_EQ_INT(o->shard_n, 4);
            T_EQ_STR(o->db, "out/s.shard-1-of-4.db");
        } else {
            const struct stg_encode_opts *o = s->opts;
            enc++;
            T_EQ_STR(o->db, "out/s.shard-1-of-4.db");
            T_EQ_INT(o->task.n, 0);
            T_EQ_INT(o->corpus.n, 1);
            if (o->corpus.n) T_EQ_STR(o->corpus.v[0], "demo");
            T_EQ_STR(o->run, "ms-san");
            T_EQ_INT(o->attention, 0);
        }
    }
    T_EQ_INT(ingest, 1);
    T_EQ_INT(enc, 1);
    dmn_job_free(&job);
    return T_DONE();
}
