/* daemon/step_list.h — the one table of step kinds: a line per kind, DMN_STEP(ENUM, name), the kind
 * defined in daemon/step_<name>.c as `const struct dmn_step_def dmn_step_<name>` (daemon/step.h).
 * The order is the order a job file's sections are read in (a section's entries see the names the
 * sections above made: corpora before tasks before encoders ...).
 *
 * Adding a step kind is its file and one line here: the enum (daemon/job.h), the table
 * (daemon/steps.c), the job parser, the runner, the sharder and the daemon read it from here.
 * No include guard: each includer defines DMN_STEP first. */
DMN_STEP(INGEST, ingest)
DMN_STEP(TASKS_BUILD, tasks_build)
DMN_STEP(TASKS_IMPORT, tasks_import)
DMN_STEP(ENCODE, encode)
DMN_STEP(ERASE, erase)
DMN_STEP(PROBE, probe)
DMN_STEP(TREES, trees)
DMN_STEP(STRUCTPROBE, structprobe)
DMN_STEP(TOKPROBE, tokprobe)
DMN_STEP(MDL, mdl)
DMN_STEP(REPORT, report)
