-- Version 6: the job ledger (store/st_jobs.h). `synprobe run JOB.json` records each step it
-- finished, keyed by the command line that does the same step (the stage's words and every
-- option that differs from its default), so a re-run of the job skips the steps whose result is
-- already stored: probe, trees and structprobe add a result row on every call, and tasks build
-- refuses an existing task name, so without the ledger a second run would duplicate rows or fail.
-- A row is written only after its stage returned success; a stopped stage leaves none.
CREATE TABLE job_step (
    step_id     INTEGER PRIMARY KEY,
    command     TEXT NOT NULL UNIQUE,    -- "probe --db ... --task Tense --run san-Tense"
    summary     TEXT NOT NULL,           -- the runner's one-line summary of what it did
    finished_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
) STRICT;
