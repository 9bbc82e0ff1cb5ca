-- Version 8: the daemon's job queue (store/st_queue.h). `synprobe submit` adds a row; a daemon
-- (`synprobe daemon`) leases queued rows one at a time in a write transaction (BEGIN IMMEDIATE),
-- runs each in a child process and renews its leases with a heartbeat; a lease that expires, or
-- whose daemon is gone, goes back to 'queued'. The job's own rows live in the store its job file
-- names, guarded by the job ledger (job_step), so running a job twice never duplicates them.
-- Times are Unix seconds (REAL). States:
--   queued -> running -> done | failed | queued (retry with backoff, drained, lease lost)
--   queued | running -> cancelled (a running job's daemon stops its process)
CREATE TABLE queue_job (
    job_id        INTEGER PRIMARY KEY,
    path          TEXT NOT NULL,            -- the job file, absolute
    text          TEXT NOT NULL,            -- its content when submitted: what runs
    sha256        TEXT NOT NULL,            -- of text
    state         TEXT NOT NULL DEFAULT 'queued'
                  CHECK (state IN ('queued', 'running', 'done', 'failed', 'cancelled')),
    step          TEXT,                     -- the JSON path of the step running or failed ("probes[0]")
    steps_done    INTEGER NOT NULL DEFAULT 0,
    steps_total   INTEGER NOT NULL DEFAULT 0,
    submitted_at  REAL NOT NULL,
    started_at    REAL,                     -- the latest attempt
    finished_at   REAL,
    error         TEXT,                     -- the last failure's message
    error_step    TEXT,                     -- the JSON path of the step it failed in
    attempts      INTEGER NOT NULL DEFAULT 0,   -- leases taken (a drained or lost attempt counts too)
    failures      INTEGER NOT NULL DEFAULT 0,   -- attempts that failed
    max_retries   INTEGER NOT NULL DEFAULT 0,   -- submit --retry N: failures re-queued before 'failed'
    next_attempt  REAL NOT NULL DEFAULT 0,  -- not leased before (exponential backoff after a failure)
    lease_owner   TEXT,                     -- "host:pid:random" of the daemon holding it
    lease_expiry  REAL,
    heartbeat     REAL,
    pid           INTEGER                   -- the job's process, on the owner's host
) STRICT;
CREATE INDEX queue_job_ready ON queue_job (state, next_attempt, job_id);
