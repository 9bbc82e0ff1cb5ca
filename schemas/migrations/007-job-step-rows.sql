-- Version 7: a job step's rows and its "done" are committed together, so a step killed at any
-- moment is either done (rows and ledger) or not (neither), and a re-run never duplicates rows
-- nor fails on a task an earlier attempt stored (store/st_jobs.h). The runner records a step as
-- 'started' before it runs; the transaction that stores the stage's rows (probe results, tree
-- evaluations, tasks) writes the step's id into them and sets the step 'done'; the runner then
-- adds the summary. Rows written outside a job have NULL there. Version 6 rows are all 'done'.
ALTER TABLE job_step ADD COLUMN state TEXT NOT NULL DEFAULT 'done' CHECK (state IN ('started', 'done'));
ALTER TABLE probe_result ADD COLUMN job_step_id INTEGER;
ALTER TABLE tree_eval ADD COLUMN job_step_id INTEGER;
ALTER TABLE task ADD COLUMN job_step_id INTEGER;
