/* tests/unit/daemon_run_eta.c — the run's ETA (daemon/run.h, dmn_eta_*): each step still to run at
 * its kind's mean time, a kind with no finished step at the mean over all kinds, the running step
 * less the time it has run (down to 0), -1 until a step finished; and dmn_step_what's words.
 * Expected values by hand from the job below (1 ingest, 1 tasks build, 3 encodes, 2 probes,
 * 1 trees, 1 report = 9 steps). */
#include <math.h>
#include <string.h>

#include "daemon/run.h"
#include "tests/unit/t_harness.h"

static const char job_text[] =
    "{\"store\": \"out/s.db\", \"out\": \"out\","
    " \"corpora\": [{\"name\": \"demo\", \"paths\": [\"demo/demo.conllu\", \"demo/demo.mrg\"]}],"
    " \"tasks\": [{\"tasks\": [\"Tense\", \"SOMO\"], \"split\": \"resplit\"}],"
    " \"encoders\": [{\"config\": \"encoder/configs/ms-san.json\", \"inputs\": [\"demo\", \"Tense\", \"SOMO\"], \"attention\": 0}],"
    " \"probes\": [{\"seed\": [1]}], \"trees\": [{}], \"reports\": [{\"format\": \"json\", \"out\": \"r.json\"}]}";

int main(void)
{
    char err[256];
    struct dmn_job job;
    if (dmn_job_parse(job_text, ".", "job.json", &job, err, sizeof err)) {
        fprintf(stderr, "job: %s\n", err);
        T_CHECK(0);
        return T_DONE();
    }
    T_EQ_INT(job.n_steps, 9);
    enum dmn_step_kind want[9] = { DMN_INGEST, DMN_TASKS_BUILD, DMN_ENCODE, DMN_ENCODE, DMN_ENCODE, DMN_PROBE, DMN_PROBE,
                                   DMN_TREES, DMN_REPORT };
    for (int i = 0; i < 9 && i < job.n_steps; i++) T_EQ_INT(job.steps[i].kind, want[i]);

    struct dmn_eta e;
    memset(&e, 0, sizeof e);
    T_NEAR(dmn_eta_left(&e, &job, 0, 0), -1, 0);          /* nothing finished: unknown */
    dmn_eta_add(&e, DMN_INGEST, 2);
    /* all 8 steps left at the only mean there is (2 s); the running step 1 has run 0.5 s */
    T_NEAR(dmn_eta_left(&e, &job, 1, 0.5), 1.5 + 7 * 2, 1e-12);
    dmn_eta_add(&e, DMN_TASKS_BUILD, 4);
    dmn_eta_add(&e, DMN_ENCODE, 10);
    /* from step 3: 2 encodes at 10, then probe, probe, trees, report at the mean of all (16/3) */
    T_NEAR(dmn_eta_left(&e, &job, 3, 0), 2 * 10 + 4 * 16.0 / 3, 1e-9);
    /* the running encode has run 12 s, more than its mean: 0 left for it */
    T_NEAR(dmn_eta_left(&e, &job, 3, 12), 10 + 4 * 16.0 / 3, 1e-9);
    dmn_eta_add(&e, DMN_ENCODE, 20);                      /* encodes: mean 15 */
    dmn_eta_add(&e, DMN_PROBE, 1);
    T_NEAR(dmn_eta_left(&e, &job, 6, 0), 1 + 2 * 37.0 / 5, 1e-9);
    T_NEAR(dmn_eta_left(&e, &job, 9, 0), 0, 0);           /* past the last step */
    dmn_eta_add(&e, DMN_PROBE, NAN);                      /* not a time: ignored */
    T_NEAR(dmn_eta_left(&e, &job, 8, 0), 37.0 / 5, 1e-9);

    struct sp_buf b = { 0 };
    const char *what[9] = { "ingest demo", "tasks build demo", "encode ms-san over demo", "encode ms-san-Tense over Tense",
                            "encode ms-san-SOMO over SOMO", "probe Tense ms-san seed 1", "probe SOMO ms-san seed 1",
                            "trees ms-san", "report json" };
    for (int i = 0; i < 9 && i < job.n_steps; i++) {
        dmn_step_what(&job.steps[i], &b);
        T_EQ_STR(b.p, what[i]);
    }
    sp_buf_free(&b);
    dmn_job_free(&job);
    return T_DONE();
}
