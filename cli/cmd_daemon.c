/* cli/cmd_daemon.c — synprobe daemon: serve a store's job queue (daemon/daemon.h). */
#include <stddef.h>
#include <stdio.h>

#include "cli/cli.h"
#include "daemon/daemon.h"

const struct cli_doc cmd_daemon_doc = {
    .name = "daemon",
    .purpose = "serve a store's job queue (submit, status, cancel, logs)",
    .synopsis = "--db [options]",
    .prose =
        "Serves the job queue kept in STORE: jobs added with `synprobe submit` run N at a time, each in\n"
        "its own process, into the store its job file names; its output goes to STORE.logs/ID-T.log\n"
        "(`synprobe logs`; a folder only the daemon's user can write to, no link followed). A daemon whose\n"
        "STORE is deleted or replaced stops, exit 1. Several daemons may serve one store (on one host or several sharing it):\n"
        "they take jobs through leases renewed by a heartbeat. A daemon killed outright leaves its jobs\n"
        "to the next daemon, which re-queues them and finishes them with no duplicate rows.\n"
        "SIGTERM or SIGINT drains: no new jobs, running ones stop at their next safe point and go back to\n"
        "the queue, exit 0; a job that has not stopped --grace seconds after SIGTERM (a drain or a\n"
        "`synprobe cancel`) is killed with SIGKILL, which its queue row and log record. SIGHUP reopens the --log file (for logrotate). A job whose encoders use\n"
        "--device cuda holds STORE.gpu.lock during its CUDA encodes: one job on the GPU at a time.\n",
};

static const struct sp_opt daemon_options[] = {
    { "db", SP_OPT_PATH, offsetof(struct dmn_daemon_opts, store), .metavar = "STORE", .help = "the store whose queue to serve",
      .flags = SP_OPTF_REQUIRED },
    { "workers", SP_OPT_INT, offsetof(struct dmn_daemon_opts, workers), "2", .lo = 1, .hi = 256, .metavar = "N",
      .help = "jobs run at once" },
    { "log", SP_OPT_PATH, offsetof(struct dmn_daemon_opts, log), .metavar = "FILE",
      .help = "the daemon's log (appended; reopened on SIGHUP); default stderr", .flags = SP_OPTF_OUTPUT },
    { "lease", SP_OPT_DOUBLE, offsetof(struct dmn_daemon_opts, lease_s), "30", .lo = 1, .hi = 86400, .metavar = "SECONDS",
      .help = "a job whose daemon sent no heartbeat for this long is queued again" },
    { "backoff", SP_OPT_DOUBLE, offsetof(struct dmn_daemon_opts, backoff_s), "10", .lo = 0, .hi = 86400, .metavar = "SECONDS",
      .help = "a failed job with retries left runs again after this, doubled after each further failure (at most 1 h)" },
    { "grace", SP_OPT_DOUBLE, offsetof(struct dmn_daemon_opts, grace_s), "10", .lo = 0, .hi = 3600, .metavar = "SECONDS",
      .help = "a job asked to stop (drain, cancel) that is still running after this is killed with SIGKILL" },
    { "poll", SP_OPT_DOUBLE, offsetof(struct dmn_daemon_opts, poll_s), "0.05", .lo = 0, .hi = 60, .metavar = "SECONDS",
      .help = "how often an idle daemon looks for new jobs" },
    { 0 },
};

int cmd_daemon(int argc, char **argv)
{
    struct dmn_daemon_opts o = { 0 };
    const struct sp_optbind b[] = { { daemon_options, &o } };
    struct cli c;
    int rc = cli_parse(&c, &cmd_daemon_doc, b, 1, argc, argv, 0);
    if (rc >= 0) return rc;
    o.verbose = c.common.verbose;
    if (o.poll_s < 0.001) o.poll_s = 0.001;
    rc = dmn_daemon_serve(&o, c.ctx.err, sizeof c.ctx.err);
    if (rc) return cli_done(&c, cli_fail(SP_EXIT_INPUT, "daemon", "%s", c.ctx.err));
    return cli_done(&c, SP_EXIT_OK);
}
