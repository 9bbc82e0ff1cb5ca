/* tests/unit/store_queue.c — the job queue (store/st_queue.h): submit, lease order and due times,
 * heartbeat, progress, finish with each outcome, retries with exponential backoff (times computed
 * by hand from the rule in queue.h: backoff * 2^(failures-1), capped at an hour), cancel, reclaim
 * of expired leases and of a gone owner's jobs, a late finish after losing the lease, and two
 * connections (two daemons) leasing from one queue without ever getting the same job. The clock
 * is passed in, so every time below is exact. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/sp.h"
#include "store/st_queue.h"
#include "t_harness.h"

static int count_cb(void *arg, const struct st_queue_job *j) { (*(int *)arg)++; (void)j; return 0; }

static int count(struct st_db *db, const char *state)
{
    char err[SP_ERRLEN];
    int n = 0;
    T_EQ_INT(st_queue_each(db, state, 0, count_cb, &n, err, sizeof err), SP_OK);
    return n;
}

int main(void)
{
    char path[] = "/tmp/sp-store-queue-XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    unlink(path);
    char err[SP_ERRLEN], st[16];
    struct st_db *db, *db2;
    T_EQ_INT(st_open(path, ST_OPEN_CREATE, &db, err, sizeof err), SP_OK);
    T_EQ_INT(st_open(path, 0, &db2, err, sizeof err), SP_OK);

    int64_t a, b, c;
    T_EQ_INT(st_queue_submit(db, "/x/a.json", "{\"a\":1}", 0, 100.0, &a, err, sizeof err), SP_OK);
    T_EQ_INT(st_queue_submit(db, "/x/b.json", "{}", 2, 101.0, &b, err, sizeof err), SP_OK);
    T_EQ_INT(st_queue_submit(db, "/x/c.json", "{}", 0, 102.0, &c, err, sizeof err), SP_OK);
    T_CHECK(a < b && b < c);
    T_EQ_INT(count(db, "queued"), 3);

    struct st_queue_job j;
    int found, got, n;
    T_EQ_INT(st_queue_get(db, a, &j, &found, err, sizeof err), SP_OK);
    T_EQ_INT(found, 1);
    T_EQ_STR(j.text, "{\"a\":1}");
    T_EQ_STR(j.path, "/x/a.json");
    /* sha256 of the 7 bytes {"a":1}, from sha256sum */
    T_EQ_STR(j.sha256, "015abd7f5cc57a2dd94b7590f04ad8084273905ee33ec5cebeae62276a97f862");
    T_EQ_STR(j.state, "queued");
    T_NEAR(j.submitted_at, 100.0, 0);
    st_queue_job_free(&j);
    T_EQ_INT(st_queue_get(db, 999, &j, &found, err, sizeof err), SP_OK);
    T_EQ_INT(found, 0);

    /* leases go oldest first; the lease fills owner, expiry, attempts */
    T_EQ_INT(st_queue_lease(db, "h:1:aa", 200.0, 30.0, &j, &got, err, sizeof err), SP_OK);
    T_EQ_INT(got, 1);
    T_EQ_INT(j.id, a);
    T_EQ_STR(j.state, "running");
    T_EQ_STR(j.owner, "h:1:aa");
    T_NEAR(j.lease_expiry, 230.0, 0);
    T_EQ_INT(j.attempts, 1);
    T_EQ_STR(j.text, "{\"a\":1}");
    st_queue_job_free(&j);
    /* the second daemon (its own connection) gets the next one, never the same */
    T_EQ_INT(st_queue_lease(db2, "h:2:bb", 200.0, 30.0, &j, &got, err, sizeof err), SP_OK);
    T_EQ_INT(got, 1);
    T_EQ_INT(j.id, b);
    st_queue_job_free(&j);
    T_EQ_INT(st_queue_set_pid(db2, b, "h:2:bb", 4242, err, sizeof err), SP_OK);
    T_EQ_INT(st_queue_progress(db2, b, "h:2:bb", "probes[0]", 3, 7, err, sizeof err), SP_OK);
    /* a progress of another owner changes nothing */
    T_EQ_INT(st_queue_progress(db, b, "h:1:aa", "reports[0]", 6, 7, err, sizeof err), SP_OK);
    T_EQ_INT(st_queue_get(db, b, &j, &found, err, sizeof err), SP_OK);
    T_EQ_STR(j.step, "probes[0]");
    T_EQ_INT(j.steps_done, 3);
    T_EQ_INT(j.steps_total, 7);
    T_EQ_INT(j.pid, 4242);
    st_queue_job_free(&j);

    /* heartbeat: renews only the owner's leases */
    T_EQ_INT(st_queue_heartbeat(db, "h:1:aa", 210.0, 30.0, &n, err, sizeof err), SP_OK);
    T_EQ_INT(n, 1);
    T_EQ_INT(st_queue_get(db, a, &j, &found, err, sizeof err), SP_OK);
    T_NEAR(j.lease_expiry, 240.0, 0);
    T_NEAR(j.heartbeat, 210.0, 0);
    st_queue_job_free(&j);

    /* done */
    T_EQ_INT(st_queue_finish(db, a, "h:1:aa", ST_QUEUE_DONE, NULL, NULL, 220.0, 10.0, st, err, sizeof err), SP_OK);
    T_EQ_STR(st, "done");
    T_EQ_INT(st_queue_get(db, a, &j, &found, err, sizeof err), SP_OK);
    T_NEAR(j.finished_at, 220.0, 0);
    T_EQ_STR(j.owner, "");
    st_queue_job_free(&j);

    /* b fails with --retry 2: queued again at 230 + 10 * 2^0 = 240 (first failure) */
    T_EQ_INT(st_queue_finish(db2, b, "h:2:bb", ST_QUEUE_FAILED, "x.conllu:3: bad", "corpora[0]", 230.0, 10.0, st, err,
                             sizeof err), SP_OK);
    T_EQ_STR(st, "queued");
    T_EQ_INT(st_queue_get(db, b, &j, &found, err, sizeof err), SP_OK);
    T_NEAR(j.next_attempt, 240.0, 0);
    T_EQ_STR(j.error, "x.conllu:3: bad");
    T_EQ_STR(j.error_step, "corpora[0]");
    T_EQ_INT(j.failures, 1);
    st_queue_job_free(&j);
    /* at 235 only c is due (b waits for its backoff) */
    T_EQ_INT(st_queue_lease(db, "h:1:aa", 235.0, 30.0, &j, &got, err, sizeof err), SP_OK);
    T_EQ_INT(got && j.id == c, 1);
    if (got) st_queue_job_free(&j);
    T_EQ_INT(st_queue_lease(db, "h:1:aa", 239.0, 30.0, &j, &got, err, sizeof err), SP_OK);
    T_EQ_INT(got, 0);
    T_EQ_INT(st_queue_lease(db, "h:1:aa", 240.0, 30.0, &j, &got, err, sizeof err), SP_OK);
    T_EQ_INT(got && j.id == b && j.attempts == 2, 1);
    if (got) st_queue_job_free(&j);
    /* second failure at 250: due at 250 + 10 * 2^1 = 270 */
    T_EQ_INT(st_queue_finish(db, b, "h:1:aa", ST_QUEUE_FAILED, "again", "corpora[0]", 250.0, 10.0, st, err, sizeof err), SP_OK);
    T_EQ_STR(st, "queued");
    T_EQ_INT(st_queue_get(db, b, &j, &found, err, sizeof err), SP_OK);
    T_NEAR(j.next_attempt, 270.0, 0);
    st_queue_job_free(&j);
    T_EQ_INT(st_queue_lease(db, "h:1:aa", 270.0, 30.0, &j, &got, err, sizeof err), SP_OK);
    T_EQ_INT(got && j.id == b, 1);
    if (got) st_queue_job_free(&j);
    /* third failure: failures 3 > max_retries 2, so 'failed' for good, error and step kept */
    T_EQ_INT(st_queue_finish(db, b, "h:1:aa", ST_QUEUE_FAILED, "third", "encoders[1]", 280.0, 10.0, st, err, sizeof err), SP_OK);
    T_EQ_STR(st, "failed");
    T_EQ_INT(st_queue_get(db, b, &j, &found, err, sizeof err), SP_OK);
    T_EQ_STR(j.error, "third");
    T_EQ_STR(j.error_step, "encoders[1]");
    T_EQ_INT(j.failures, 3);
    T_EQ_INT(j.attempts, 3);
    T_NEAR(j.finished_at, 280.0, 0);
    st_queue_job_free(&j);

    /* c's lease (taken at 235, 30 s) expires at 265: reclaimed at 266, not at 264 */
    T_EQ_INT(st_queue_requeue(db, NULL, 264.0, &n, err, sizeof err), SP_OK);
    T_EQ_INT(n, 0);
    T_EQ_INT(st_queue_requeue(db2, NULL, 266.0, &n, err, sizeof err), SP_OK);
    T_EQ_INT(n, 1);
    /* the daemon that lost it finishes late: nothing changes, it learns the state */
    T_EQ_INT(st_queue_finish(db, c, "h:1:aa", ST_QUEUE_DONE, NULL, NULL, 267.0, 10.0, st, err, sizeof err), SP_OK);
    T_EQ_STR(st, "queued");
    /* another daemon takes it; then that owner is gone: requeued by owner */
    T_EQ_INT(st_queue_lease(db2, "h:2:bb", 268.0, 30.0, &j, &got, err, sizeof err), SP_OK);
    T_EQ_INT(got && j.id == c && j.attempts == 2, 1);
    if (got) st_queue_job_free(&j);
    T_EQ_INT(st_queue_requeue(db, "h:9:zz", 269.0, &n, err, sizeof err), SP_OK);
    T_EQ_INT(n, 0);
    T_EQ_INT(st_queue_requeue(db, "h:2:bb", 269.0, &n, err, sizeof err), SP_OK);
    T_EQ_INT(n, 1);
    T_EQ_INT(st_queue_lease(db, "h:1:aa", 269.0, 30.0, &j, &got, err, sizeof err), SP_OK);
    T_EQ_INT(got && j.id == c, 1);
    if (got) st_queue_job_free(&j);

    /* cancel a running job: cancelled at once, its daemon's finish then leaves it cancelled */
    T_EQ_INT(st_queue_cancel(db2, c, 270.0, st, err, sizeof err), SP_OK);
    T_EQ_STR(st, "running");
    T_EQ_INT(st_queue_finish(db, c, "h:1:aa", ST_QUEUE_REQUEUE, NULL, NULL, 271.0, 10.0, st, err, sizeof err), SP_OK);
    T_EQ_STR(st, "cancelled");
    /* cancel again, a done job, no job: refused with a message */
    T_EQ_INT(st_queue_cancel(db, c, 272.0, st, err, sizeof err), SP_EUSAGE);
    T_CHECK(strstr(err, "cancelled already") != NULL);
    T_EQ_INT(st_queue_cancel(db, a, 272.0, st, err, sizeof err), SP_EUSAGE);
    T_CHECK(strstr(err, "is done already") != NULL);
    T_EQ_INT(st_queue_cancel(db, 999, 272.0, st, err, sizeof err), SP_EUSAGE);
    T_CHECK(strstr(err, "no job 999") != NULL);
    /* cancel a queued job: never leased */
    int64_t d;
    T_EQ_INT(st_queue_submit(db, "/x/d.json", "{}", 0, 300.0, &d, err, sizeof err), SP_OK);
    T_EQ_INT(st_queue_cancel(db, d, 301.0, st, err, sizeof err), SP_OK);
    T_EQ_STR(st, "queued");
    T_EQ_INT(st_queue_lease(db, "h:1:aa", 400.0, 30.0, &j, &got, err, sizeof err), SP_OK);
    T_EQ_INT(got, 0);
    /* the drain: a daemon puts its own running jobs back, due now */
    int64_t e;
    T_EQ_INT(st_queue_submit(db, "/x/e.json", "{}", 0, 500.0, &e, err, sizeof err), SP_OK);
    T_EQ_INT(st_queue_lease(db, "h:1:aa", 500.0, 30.0, &j, &got, err, sizeof err), SP_OK);
    if (got) st_queue_job_free(&j);
    T_EQ_INT(st_queue_finish(db, e, "h:1:aa", ST_QUEUE_REQUEUE, NULL, NULL, 501.0, 10.0, st, err, sizeof err), SP_OK);
    T_EQ_STR(st, "queued");
    T_EQ_INT(count(db, "queued"), 1);
    T_EQ_INT(count(db, "done") + count(db, "failed") + count(db, "cancelled"), 4);
    T_EQ_INT(count(db, NULL), 5);

    /* many leases from two connections, interleaved: every job exactly once */
    for (int i = 0; i < 40; i++) {
        int64_t id;
        st_queue_submit(db, "/x/m.json", "{}", 0, 600.0, &id, err, sizeof err);
    }
    int seen[64] = { 0 }, total = 0;
    for (int k = 0; k < 100; k++) {
        struct st_db *which = k % 2 ? db : db2;
        T_EQ_INT(st_queue_lease(which, k % 2 ? "h:1:aa" : "h:2:bb", 600.0, 30.0, &j, &got, err, sizeof err), SP_OK);
        if (!got) continue;
        if (j.id - e >= 0 && j.id - e < 64) seen[j.id - e]++;
        total++;
        st_queue_job_free(&j);
    }
    int once = 1;
    for (int i = 0; i <= 41; i++) if (seen[i] > 1) once = 0;
    T_EQ_INT(total, 41);   /* e (queued again by the drain) and the 40 new ones */
    T_EQ_INT(once, 1);

    st_close(db2);
    st_close(db);
    char side[64];
    unlink(path);
    snprintf(side, sizeof side, "%s-wal", path); unlink(side);
    snprintf(side, sizeof side, "%s-shm", path); unlink(side);
    return T_DONE();
}
