/* daemon/daemon.h — `synprobe daemon`: serve the job queue kept in a store (store/st_queue.h), and
 * the queue's client side (submit, the per-job log file).
 *
 * DESIGN. One process, one thread: an event loop (poll) over a self-pipe the signal handlers
 * write to and one status pipe per running job. Each leased job runs in a child process forked
 * from the daemon (no exec: a trivial job then costs a fork, not a program start, see
 * bench/queue.sh); the child parses the job text snapshotted at submit time, runs it with the
 * foreground runner (daemon/run.h) into the store its job file names, writes its output to
 * STORE.logs/ID-T.log (dmn_job_log_open: never through a link, in a folder only the daemon's user
 * can write to), and reports each step ("S i n where") and a failure ("E where TAB message")
 * on its status pipe. Only the daemon writes the queue: lease, progress, heartbeat, finish.
 * The daemon serves the file it opened: at each turn of its loop and before each lease it checks
 * that STORE still names it (device, inode); deleted or replaced, it stops its jobs, removes that
 * file's -wal and -shm, writes nothing more and returns an error.
 * The child has PR_SET_PDEATHSIG(SIGTERM): a daemon killed with SIGKILL takes its jobs to their
 * next safe point (the job ledger makes the re-run exact). A daemon that starts re-queues jobs
 * whose lease expired, and at once those of a daemon on this host whose process and job process
 * are both gone. Two daemons on one store cooperate: leases are taken in write transactions.
 * Signals only set flags: SIGTERM/SIGINT drain (stop leasing, SIGTERM to the jobs, re-queue the
 * stopped ones, exit 0), SIGHUP reopens the log file. A job process asked to stop (a drain, a
 * cancel, a lost lease) that is still running --grace seconds later is killed with SIGKILL (a
 * read blocked on a silent pipe never reaches a safe point): its worker slot and the store's job
 * lock are freed, the drain finishes, and the queue row (error) and the job's log say it was
 * killed and why; a cancelled job stays cancelled, any other is queued again.
 *
 * Fork without exec is safe here because the daemon has no other threads and holds no SQLite
 * transaction or statement when it forks; it also closes its connection first when the job's
 * store is the queue's own file, so the child's connection shares no SQLite state with it. */
#ifndef DMN_DAEMON_H
#define DMN_DAEMON_H

#include <stddef.h>
#include <stdint.h>

struct dmn_daemon_opts {
    const char *store;        /* the queue's store */
    long workers;             /* jobs run at once */
    const char *log;          /* the daemon's log file; NULL: stderr */
    double lease_s;           /* a lease lasts this long without a heartbeat (heartbeat every third) */
    double backoff_s;         /* first retry after a failure; doubled for each further one */
    double poll_s;            /* how often an idle daemon looks for new jobs */
    double grace_s;           /* a job process asked to stop (SIGTERM) is killed (SIGKILL) after this */
    int verbose;
};

/* Serve until SIGTERM or SIGINT; SP_OK after a drain, else an error with err. */
int dmn_daemon_serve(const struct dmn_daemon_opts *o, char *err, size_t errlen);

/* Check the job files (dmn_job_load) and queue them, ids[i] for paths[i]: all or, when one is
 * invalid (err names it and its JSON path), none; nothing is written then. */
int dmn_submit(const char *store, const char *const *paths, int n, int max_retries, int64_t *ids, char *err, size_t errlen);

struct st_queue_job;

/* The name of a queued job's log in STORE.logs: "ID-T.log", T the row's submit time in whole
 * microseconds, so a queue made again at the same path (ids restart at 1) never appends to or
 * shows an earlier queue's log. */
void dmn_job_log_name(const struct st_queue_job *j, char *out, size_t n);

/* Open job j's log, STORE.logs/ID-T.log (its path into path): for writing (the daemon: appended,
 * made when missing, the folder too) or reading (`synprobe logs`). Neither follows a symbolic
 * link, the folder's or the file's; the file must be a regular file with one link (a FIFO, a
 * device, a folder or another name of some other file is refused), opened relative to the folder.
 * Writing, the folder must be the daemon user's and writable by no one else, and the file the
 * daemon user's. A file descriptor, or -1 with err naming the path and errno (ENOENT: no log). */
int dmn_job_log_open(const char *store, const struct st_queue_job *j, int writing, char *path, size_t pathlen, char *err,
                     size_t errlen);

#endif
