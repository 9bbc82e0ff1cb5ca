/* daemon/daemon.c — the job queue's server and client side (daemon/daemon.h says the design). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/guard.h"
#include "common/stop.h"
#include "daemon/daemon.h"
#include "daemon/job.h"
#include "daemon/run.h"
#include "daemon/step.h"
#include "report/summary.h"
#include "store/st_jobs.h"
#include "store/st_queue.h"

/* wall-clock seconds: queue times are compared across processes and hosts */
static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- job logs: STORE.logs/ID-T.log, opened without following links ---- */

void dmn_job_log_name(const struct st_queue_job *j, char *out, size_t n)
{
    /* T, the submit time in whole microseconds, tells this queue row from a job with the same id
     * in an earlier queue at the same path (a store deleted and made again restarts at 1) */
    snprintf(out, n, "%lld-%lld.log", (long long)j->id, (long long)(j->submitted_at * 1e6));
}

/* STORE.logs opened as a folder (its path into dir), never through a symbolic link. For the
 * daemon (writing) it is made when missing (mode 0750 less the umask) and must be owned by the
 * daemon's user and writable by no one else: whoever else can write to it could put a link or a
 * FIFO where the next job's log goes, or swap the file between a check and its use. -1 with err
 * (naming the path) and errno on failure; ENOENT: no folder (for a reader). */
static int log_dir_open(const char *store, int writing, char *dir, size_t dirlen, char *err, size_t errlen)
{
    snprintf(dir, dirlen, "%s.logs", store);
    if (writing && mkdir(dir, 0750) && errno != EEXIST) {
        int e = errno;
        snprintf(err, errlen, "%s: cannot make the job logs' folder: %s", dir, strerror(e));
        errno = e;
        return -1;
    }
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (fd < 0) {
        int e = errno;
        if (e != ENOENT && lstat(dir, &st) == 0 && !S_ISDIR(st.st_mode))
            snprintf(err, errlen, "%s: %s, not a folder: the job logs' folder must be a real folder (not followed)", dir,
                     sp_file_kind(st.st_mode));
        else snprintf(err, errlen, "%s: %s", dir, strerror(e));
        errno = e;
        return -1;
    }
    if (fstat(fd, &st)) {
        snprintf(err, errlen, "%s: %s", dir, strerror(errno));
        close(fd);
        errno = EIO;
        return -1;
    }
    if (writing && st.st_uid != geteuid())
        snprintf(err, errlen, "%s: the job logs' folder is owned by uid %ld, not by the daemon's user (uid %ld): whoever owns it "
                 "could put a link where a job's log goes; refusing to write job logs in it", dir, (long)st.st_uid, (long)geteuid());
    else if (writing && (st.st_mode & (S_IWGRP | S_IWOTH)))
        snprintf(err, errlen, "%s: the job logs' folder is writable by %s (mode %04o): anyone who can write to it could put a link "
                 "where a job's log goes; refusing to write job logs in it (chmod go-w it)", dir,
                 (st.st_mode & S_IWOTH) ? "everyone" : "its group", (unsigned)(st.st_mode & 07777));
    else return fd;
    close(fd);
    errno = EPERM;
    return -1;
}

int dmn_job_log_open(const char *store, const struct st_queue_job *j, int writing, char *path, size_t pathlen, char *err,
                     size_t errlen)
{
    char dir[4200], name[64];
    dmn_job_log_name(j, name, sizeof name);
    snprintf(path, pathlen, "%s.logs/%s", store, name);
    int dfd = log_dir_open(store, writing, dir, sizeof dir, err, errlen);
    if (dfd < 0) return -1;
    /* relative to the folder checked: a folder swapped since cannot redirect it. O_NONBLOCK: a
     * FIFO put there is refused below instead of blocking the open (a device is never opened for
     * writing: O_NOFOLLOW, and the folder holds only what the daemon's user put there) */
    const char *verb = writing ? "write to" : "print";
    int fd = openat(dfd, name, (writing ? O_WRONLY | O_APPEND | O_CREAT : O_RDONLY) | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC,
                    0640);
    int e = errno;
    struct stat st;
    if (fd < 0) {
        if (e != ENOENT && fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(st.st_mode))
            snprintf(err, errlen, "%s: %s: a job's log must be a regular file; refusing to %s it", path, sp_file_kind(st.st_mode), verb);
        else snprintf(err, errlen, "%s: %s", path, strerror(e));
        close(dfd);
        errno = e;
        return -1;
    }
    close(dfd);
    const char *bad = NULL;
    char why[200];
    if (fstat(fd, &st)) snprintf(why, sizeof why, "%s", strerror(errno)), bad = why;
    else if (!S_ISREG(st.st_mode)) snprintf(why, sizeof why, "%s: a job's log must be a regular file", sp_file_kind(st.st_mode)), bad = why;
    else if (st.st_nlink > 1)
        snprintf(why, sizeof why, "has %ld hard links (another name for the same file): a job's log must be a file of its own",
                 (long)st.st_nlink), bad = why;
    else if (writing && st.st_uid != geteuid())
        snprintf(why, sizeof why, "owned by uid %ld, not by the daemon's user (uid %ld)", (long)st.st_uid, (long)geteuid()), bad = why;
    if (bad) {
        snprintf(err, errlen, "%s: %s; refusing to %s it", path, bad, verb);
        close(fd);
        errno = EPERM;
        return -1;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    return fd;
}

/* ---- submit ---- */

int dmn_submit(const char *store, const char *const *paths, int n, int max_retries, int64_t *ids, char *err, size_t errlen)
{
    /* every file checked and read before the store is touched: all are queued or none */
    char **abs = sp_xcalloc((size_t)n, sizeof *abs), **text = sp_xcalloc((size_t)n, sizeof *text);
    int rc = SP_OK;
    for (int i = 0; i < n && rc == SP_OK; i++) {
        struct dmn_job job;
        rc = dmn_job_read(paths[i], &job, &text[i], err, errlen);   /* the text queued is the text checked */
        struct sp_guard guard = { 0 };
        if (!rc) rc = dmn_job_guard(&job, store, &guard, err, errlen);
        sp_guard_free(&guard);
        dmn_job_free(&job);
        /* the queue keeps the path as given made absolute, a symlinked job file not followed: the
         * daemon then resolves it against the link's folder, as run does (daemon/job.h) */
        if (!rc) abs[i] = sp_path_real(paths[i], 0);
    }
    struct st_db *db = NULL;
    if (rc == SP_OK) rc = st_open(store, ST_OPEN_CREATE, &db, err, errlen);
    if (rc == SP_OK && n > 1) rc = st_begin_write(db, err, errlen);
    double now = wall_now();
    for (int i = 0; i < n && rc == SP_OK; i++) rc = st_queue_submit(db, abs[i], text[i], max_retries, now, &ids[i], err, errlen);
    if (db && n > 1) rc = rc == SP_OK ? st_exec(db, "COMMIT", err, errlen) : (st_exec(db, "ROLLBACK", err, errlen), rc);
    st_close(db);
    for (int i = 0; i < n; i++) { free(abs[i]); free(text[i]); }
    free(abs);
    free(text);
    return rc;
}

/* ---- signals: the handlers only set flags and wake the loop (docs/style.md §3.9) ---- */

static volatile sig_atomic_t g_stop, g_hup;
static int g_wake[2] = { -1, -1 };       /* self-pipe: a byte per signal wakes poll() */

static void on_signal(int sig)
{
    int saved = errno;
    if (sig == SIGHUP) g_hup = 1;
    else if (sig != SIGCHLD) g_stop = sig;
    if (g_wake[1] >= 0) { ssize_t w = write(g_wake[1], "x", 1); (void)w; }
    errno = saved;
}

/* in a job process: the process's stop flag (common/stop.h), which its stages and long reads see */
static void on_child_stop(int sig) { atomic_store(&sp_stop_signal, sig); }

static void set_handler(int sig, void (*fn)(int))
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = fn;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(sig, &sa, NULL);
}

/* ---- the daemon's own log ---- */

struct dlog { FILE *f; const char *path; };

static void dlog(struct dlog *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void dlog(struct dlog *l, const char *fmt, ...)
{
    char ts[32];
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%SZ", &tm);
    fprintf(l->f, "%s synprobe daemon[%ld]: ", ts, (long)getpid());
    va_list ap;
    va_start(ap, fmt);
    vfprintf(l->f, fmt, ap);
    va_end(ap);
    fputc('\n', l->f);
    fflush(l->f);
}

/* ---- the job process ---- */

struct child_hook { int status_fd; int n; int gpu_fd; const char *gpu_lock; int gpu_held; };

static void status_line(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void status_line(int fd, const char *fmt, ...)
{
    char line[SP_ERRLEN + 200];
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    if (k < 0) return;
    if ((size_t)k > sizeof line - 2) k = (int)sizeof line - 2;
    for (int i = 0; i < k; i++) if (line[i] == '\n') line[i] = ' ';
    line[k++] = '\n';
    ssize_t w = write(fd, line, (size_t)k);   /* < PIPE_BUF: one atomic write */
    (void)w;
}

static void on_child_alarm(int sig) { (void)sig; }

/* flock(fd) exclusively, waiting while another process holds it. The kernel hands the lock over
 * the moment it is released; a stop request (SIGTERM) must still end the wait, so while waiting
 * the stop handlers do not restart the call, and a 50 ms interval timer re-checks the flag (it
 * closes the window between checking the flag and blocking). 1 when held, 0 when the job was
 * asked to stop first (the step then stops at once). */
static int wait_lock(int fd, const char *what, const char *where)
{
    if (flock(fd, LOCK_EX | LOCK_NB) == 0) return 1;
    printf("synprobe daemon: %s: waiting for %s\n", where, what);
    fflush(stdout);
    struct sigaction sa, old_term, old_int, old_alrm;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = on_child_stop;               /* no SA_RESTART: flock returns EINTR */
    sigaction(SIGTERM, &sa, &old_term);
    sigaction(SIGINT, &sa, &old_int);
    sa.sa_handler = on_child_alarm;
    sigaction(SIGALRM, &sa, &old_alrm);
    struct itimerval it = { { 0, 50000 }, { 0, 50000 } }, off = { { 0, 0 }, { 0, 0 } };
    setitimer(ITIMER_REAL, &it, NULL);
    int held = 0;
    while (!atomic_load(&sp_stop_signal)) {
        if (flock(fd, LOCK_EX) == 0) { held = 1; break; }
        if (errno != EINTR) break;
    }
    setitimer(ITIMER_REAL, &off, NULL);
    sigaction(SIGALRM, &old_alrm, NULL);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    return held;
}

/* Before a step: say which; before a CUDA encode take the GPU token (an flock on STORE.gpu.lock,
 * so one job at a time uses the device while other jobs' CPU steps run), after it give it back. */
static void child_step(void *arg, int i, const struct dmn_step *s, int begin, int rc)
{
    struct child_hook *h = arg;
    if (begin) status_line(h->status_fd, "S %d %d %s", i, h->n, s->where);
    else if (rc != SP_OK && rc != SP_ESTOPPED) status_line(h->status_fd, "F %s", s->where);
    int cuda = dmn_steps[s->kind]->uses_gpu && dmn_steps[s->kind]->uses_gpu(s->opts);
    if (!cuda) return;
    if (begin) {
        char err[SP_ERRLEN];
        int refused = 0;
        if (h->gpu_fd < 0) h->gpu_fd = sp_open_lockfile(h->gpu_lock, &refused, err, sizeof err);
        if (h->gpu_fd < 0) { printf("synprobe daemon: %s (running without the GPU token)\n", err); return; }
        h->gpu_held = wait_lock(h->gpu_fd, "the GPU token (another job's CUDA encode)", s->where);
    } else if (h->gpu_held) {
        flock(h->gpu_fd, LOCK_UN);
        h->gpu_held = 0;
    }
}

static void child_log_write(void *arg, enum sp_log_level level, const char *line)
{
    if (level == SP_LOG_ERROR) fprintf(stderr, "error: %s\n", line);
    else if (level == SP_LOG_WARN) fprintf(stderr, "warning: %s\n", line);
    else fprintf(stderr, "%s\n", line);
}

/* mkdir -p of path's folder */
static void make_parent(const char *path)
{
    char p[4200];
    snprintf(p, sizeof p, "%s", path);
    char *e = strrchr(p, '/');
    if (!e || e == p) return;
    *e = 0;
    for (char *s = p + 1; *s; s++)
        if (*s == '/') { *s = 0; mkdir(p, 0777); *s = '/'; }
    mkdir(p, 0777);
}

/* The folder of a queued job's file, against which its paths resolve. The row's path is
 * absolute (row_usable checked it when the job was leased). */
static void job_dir(const struct st_queue_job *j, char *dir, size_t n)
{
    const char *slash = strrchr(j->path, '/');
    snprintf(dir, n, "%.*s", slash == j->path ? 1 : (int)(slash - j->path), j->path);
}

/* In the forked process: run the job's snapshot; the exit status is the job's outcome
 * (0 done, 143/130 stopped, 1 failed: the status pipe says where and why). */
static int child_main(const struct st_queue_job *j, const char *queue_store, const char *gpu_lock, int status_fd, int verbose)
{
    char dir[4096];
    job_dir(j, dir, sizeof dir);
    char err[SP_ERRLEN];
    struct dmn_job job;
    time_t t = time(NULL);
    printf("==== job %lld, attempt %d, %s", (long long)j->id, j->attempts, ctime(&t));
    struct sp_guard guard = { 0 };   /* checked at submit; again here, the inputs may have changed since */
    int grc = dmn_job_parse(j->text, dir, j->path, &job, err, sizeof err);
    if (!grc) grc = dmn_job_guard(&job, queue_store, &guard, err, sizeof err);
    if (grc == SP_ESTOPPED) {   /* cancelled or stopped while its outputs were checked */
        sp_guard_free(&guard);
        dmn_job_free(&job);
        return 128 + atomic_load(&sp_stop_signal);
    }
    if (grc) {
        fprintf(stderr, "synprobe daemon: %s\n", err);
        status_line(status_fd, "E (job file)\t%s", err);
        sp_guard_free(&guard);
        return 1;
    }
    sp_guard_install(&guard);
    struct sp_logger lg = { verbose ? SP_LOG_DEBUG : SP_LOG_INFO, child_log_write, NULL };
    struct stg_ctx ctx = { .log = &lg, .stop = &sp_stop_signal, .job_file = job.path, .job_sha256 = job.sha256 };
    const char *words[] = { "synprobe", "run", j->path, NULL };
    struct child_hook h = { .status_fd = status_fd, .n = job.n_steps, .gpu_fd = -1, .gpu_lock = gpu_lock };
    /* the log is no terminal: each step as its command (ro.log) and its "[k/N] what: result (Ss)" line */
    struct dmn_run_opts ro = { .out = stdout, .steps = DMN_RUN_STEP_LINES, .log = stdout, .ctx = &ctx, .command = { words, 3 },
                               .on_step = child_step, .step_arg = &h, .no_store_lock = 1 };
    printf("synprobe run: %s: %d steps, store %s\n", job.path, job.n_steps, job.store);
    fflush(stdout);
    /* Jobs that write to one store run one after another: two runs of the same step at once
     * would both find it 'started' in the job ledger, and the second to commit would fail. */
    char lockp[4200];
    snprintf(lockp, sizeof lockp, "%s.run.lock", job.store);
    make_parent(lockp);
    char lockerr[SP_ERRLEN];
    int refused;
    int lockfd = sp_open_lockfile(lockp, &refused, lockerr, sizeof lockerr);
    if (refused) {                                      /* a link or a FIFO planted there: never followed */
        fprintf(stderr, "synprobe daemon: %s\n", lockerr);
        status_line(status_fd, "E (store lock)\t%s", lockerr);
        sp_guard_install(NULL);
        sp_guard_free(&guard);
        dmn_job_free(&job);
        return 1;
    }
    if (lockfd < 0) printf("synprobe daemon: %s (running without the store's job lock)\n", lockerr);
    else if (!wait_lock(lockfd, "the store's job lock (another job writes to it)", job.store)) {
        sp_guard_install(NULL);
        sp_guard_free(&guard);
        dmn_job_free(&job);
        return 128 + atomic_load(&sp_stop_signal);
    }
    /* An existing store stays open for the whole job: the runner opens it once per step, and the
     * last connection to close deletes its -wal and -shm files, which the next open makes again
     * (a third of a trivial job's time); this connection also keeps them when the job ends, for the
     * next job on the store (an empty -wal and the -shm stay beside it). A new store is left alone: its first ingest loads in
     * bulk only while no other connection has it open (stages/ingest.c). */
    struct st_db *keep = NULL;
    struct stat sb;
    if (stat(job.store, &sb) == 0 && sb.st_size > 0 && st_open(job.store, 0, &keep, err, sizeof err)) keep = NULL;
    if (keep) st_keep_wal_files(keep);
    struct dmn_run_result r;
    int rc = dmn_run(&job, &ro, &r);
    st_close(keep);
    if (rc != SP_ESTOPPED) {   /* the summary `synprobe run` ends with, from the store */
        struct stg_ctx sc = ctx;
        int lines;
        fflush(stderr);
        (void)rpt_summary(&sc, job.store, stdout, &lines);
    }
    if (rc == SP_OK) printf("synprobe run: done: %d steps did work, %d had none\n", r.n_worked, r.n_nowork);
    else if (rc == SP_ESTOPPED) printf("synprobe run: stopped after %d of %d steps\n", r.n_worked + r.n_nowork, r.n_steps);
    else {
        printf("synprobe run: failed in %s: %s\n", r.failed_where ? r.failed_where : "?", ctx.err);
        status_line(status_fd, "E %s\t%s", r.failed_where ? r.failed_where : "?", ctx.err);
    }
    sp_guard_install(NULL);
    sp_guard_free(&guard);
    dmn_job_free(&job);
    fflush(stdout);
    fflush(stderr);
    if (rc == SP_ESTOPPED) return 128 + (atomic_load(&sp_stop_signal) ? atomic_load(&sp_stop_signal) : SIGTERM);
    return rc == SP_OK ? 0 : 1;
}

/* ---- the daemon ---- */

struct child {
    pid_t pid;                    /* 0: free slot */
    int64_t id;
    int fd;                       /* status pipe, read end */
    char buf[2048];
    size_t len;
    char error[SP_ERRLEN], error_step[128], step[128];
    int done, total, progress_dirty, term_sent, cancelled;
    int progress_failing;         /* the last progress write failed (logged once; tried again each loop) */
    double term_at;               /* when SIGTERM was sent (sp_now) */
    const char *term_why;         /* why: "the job was cancelled", "the daemon is draining", ... */
    int killed;                   /* SIGKILL sent: it had not stopped within the grace period */
    struct st_queue_job job;      /* its queue row when leased (path and text NULL): its log's name */
};

/* A job's end that could not be recorded yet (a full disk, a store that cannot be opened): the
 * daemon tries again at every heartbeat until it lands. Meanwhile the job stays 'running' under
 * this daemon's lease, which the heartbeat renews, so no other daemon runs it again. */
struct pending_end {
    int64_t id;
    enum st_queue_outcome out;
    char error[SP_ERRLEN], step[128];
    int has_progress;             /* the job's last step (progress_step, done of total) to record first */
    char progress_step[128];
    int done, total;
};

/* What a job's process said last: the step it was in, how many were done, of how many. */
struct progress { const char *step; int done, total; };

struct daemon {
    const struct dmn_daemon_opts *o;
    struct st_db *db;             /* NULL while closed around a fork */
    char owner[160], host[128];
    char gpu_lock[4200];
    struct child *kids;
    int n_running;
    struct pending_end *pending;  /* ends not recorded yet, n_pending of them */
    int n_pending;
    struct dlog log;
    char err[SP_ERRLEN];
    dev_t dev;                    /* the queue's store the daemon opened: STORE must go on naming it */
    ino_t ino;
    int lost;                     /* it does not: the daemon stops (store_moved), writing no more to it */
    char lost_why[SP_ERRLEN];
};

/* The queue's store is gone from its path, its -wal and -shm files may not be: SQLite ties a WAL
 * to its database by name only, so the next store made or renamed to that path would take this
 * WAL's frames for its own (the old queue's pages in the new store) and share its index. Each of
 * the two that is a file this process has open (the daemon's connection to the old store) is
 * removed; anything else at those paths is left alone. (SQLite itself refuses to write to a
 * store moved under it, so the old connection checkpoints nothing into them either.) */
static void drop_side_files(struct daemon *d)
{
    static const char *const sfx[] = { "-wal", "-shm" };
    for (int i = 0; i < 2; i++) {
        char p[4200];
        struct stat st, fs;
        snprintf(p, sizeof p, "%s%s", d->o->store, sfx[i]);
        if (lstat(p, &st) || !S_ISREG(st.st_mode)) continue;
        DIR *fds = opendir("/proc/self/fd");
        struct dirent *e;
        int ours = 0;
        while (fds && !ours && (e = readdir(fds))) {
            int fd = atoi(e->d_name);
            if (e->d_name[0] != '.' && fd != dirfd(fds) && fstat(fd, &fs) == 0 && fs.st_dev == st.st_dev && fs.st_ino == st.st_ino)
                ours = 1;
        }
        if (fds) closedir(fds);
        if (!ours) continue;
        if (unlink(p)) dlog(&d->log, "%s: the old store's, left: %s", p, strerror(errno));
        else dlog(&d->log, "%s: removed (the old store's: a store made at that path would take it for its own)", p);
    }
}

/* 0 while the path STORE names the file the daemon opened. Deleted (rm) or replaced (a rename
 * over it, a symlink repointed): the daemon must not serve, or write to, a queue no one can
 * submit to any more, while the jobs submitted to the new file at that path wait for ever. Then
 * 1, with d->lost set and the reason logged; the loop stops the running jobs and exits non-zero.
 * Checked at each turn of the loop and before each lease. */
static int store_moved(struct daemon *d)
{
    if (d->lost) return 1;
    struct stat st;
    int e = stat(d->o->store, &st) ? errno : 0;
    if (!e && st.st_dev == d->dev && st.st_ino == d->ino) return 0;
    const char *tail = "; the daemon stops (jobs submitted to a new store at that path need a daemon started on it)";
    if (e == ENOENT)
        snprintf(d->lost_why, sizeof d->lost_why, "%s: the queue's store was deleted under the daemon (no file at that path now)%s",
                 d->o->store, tail);
    else if (e)
        snprintf(d->lost_why, sizeof d->lost_why, "%s: cannot check that the queue's store is still there: %s%s", d->o->store,
                 strerror(e), tail);
    else
        snprintf(d->lost_why, sizeof d->lost_why, "%s: the queue's store was replaced under the daemon: the path names another "
                 "file now (device %lu, inode %lu; the daemon's was device %lu, inode %lu)%s", d->o->store, (unsigned long)st.st_dev,
                 (unsigned long)st.st_ino, (unsigned long)d->dev, (unsigned long)d->ino, tail);
    d->lost = 1;
    dlog(&d->log, "error: %s", d->lost_why);
    drop_side_files(d);
    return 1;
}

/* the connection, reopened when it was closed around a fork: only if STORE is still the daemon's */
static int db_ready(struct daemon *d)
{
    if (d->db) return SP_OK;
    if (store_moved(d)) { snprintf(d->err, sizeof d->err, "%s", d->lost_why); return SP_ESTORE; }
    if (st_open(d->o->store, 0, &d->db, d->err, sizeof d->err)) return SP_ESTORE;
    if (store_moved(d)) {   /* replaced between the check and the open: not ours, nothing written to it */
        st_close(d->db);
        d->db = NULL;
        snprintf(d->err, sizeof d->err, "%s", d->lost_why);
        return SP_ESTORE;
    }
    return SP_OK;
}

/* Record a job's end (st_queue_finish), after its last progress (pr, may be NULL: none unrecorded),
 * so that the row never shows a step older than the one the job ended in; state (16 bytes)
 * receives its state after. When that fails, both are kept to be tried again (retry_ends) and
 * state says "not recorded". */
static int finish_job_after(struct daemon *d, int64_t id, enum st_queue_outcome out, const char *error, const char *step,
                            const struct progress *pr, char *state)
{
    if (d->lost) { snprintf(state, 16, "not recorded"); return SP_ESTORE; }   /* the queue is gone: kept nowhere */
    int rc = db_ready(d);
    if (!rc && pr) rc = st_queue_progress(d->db, id, d->owner, pr->step, pr->done, pr->total, d->err, sizeof d->err);
    if (!rc) rc = st_queue_finish(d->db, id, d->owner, out, error, step, wall_now(), d->o->backoff_s, state, d->err, sizeof d->err);
    if (!rc) return SP_OK;
    snprintf(state, 16, "not recorded");
    dlog(&d->log, "job %lld: recording its end: %s; trying again at every heartbeat", (long long)id, d->err);
    d->pending = sp_xrealloc(d->pending, sizeof *d->pending * (size_t)(d->n_pending + 1));
    struct pending_end *p = &d->pending[d->n_pending++];
    memset(p, 0, sizeof *p);
    p->id = id;
    p->out = out;
    snprintf(p->error, sizeof p->error, "%s", error ? error : "");
    snprintf(p->step, sizeof p->step, "%s", step ? step : "");
    if (pr) {
        p->has_progress = 1;
        snprintf(p->progress_step, sizeof p->progress_step, "%s", pr->step);
        p->done = pr->done;
        p->total = pr->total;
    }
    return rc;
}

static int finish_job(struct daemon *d, int64_t id, enum st_queue_outcome out, const char *error, const char *step, char *state)
{
    return finish_job_after(d, id, out, error, step, NULL, state);
}

/* The ends not recorded before, tried again (in order); those that land are dropped. */
static void retry_ends(struct daemon *d)
{
    int kept = 0;
    for (int i = 0; i < d->n_pending; i++) {
        struct pending_end *p = &d->pending[i];
        char state[16] = "";
        int rc = db_ready(d);
        if (!rc && p->has_progress)
            rc = st_queue_progress(d->db, p->id, d->owner, p->progress_step, p->done, p->total, d->err, sizeof d->err);
        if (!rc)
            rc = st_queue_finish(d->db, p->id, d->owner, p->out, p->error, p->step[0] ? p->step : NULL, wall_now(),
                                 d->o->backoff_s, state, d->err, sizeof d->err);
        if (rc) { d->pending[kept++] = *p; continue; }
        dlog(&d->log, "job %lld: its end is recorded now -> %s", (long long)p->id, state);
    }
    d->n_pending = kept;
}

/* A job leased again (its lease expired and it was queued again meanwhile) starts a new attempt:
 * an end of the old attempt still waiting to be recorded must not end the new one. */
static void forget_end(struct daemon *d, int64_t id)
{
    int kept = 0;
    for (int i = 0; i < d->n_pending; i++)
        if (d->pending[i].id != id) d->pending[kept++] = d->pending[i];
    d->n_pending = kept;
}

/* A row the daemon leased must be one `synprobe submit` could have written: its job file's path
 * absolute (the job's paths resolve against its folder, and the daemon's own folder is no
 * job's). A row made by hand may be anything; such a job fails with the reason instead of
 * running on a guess. 1 when usable; else 0 with why. */
static int row_usable(const struct st_queue_job *j, char *why, size_t n)
{
    if (!j->path || j->path[0] != '/') {
        snprintf(why, n, "the queue row's job file path '%s' is not absolute (synprobe submit records the absolute path; a row "
                 "made by hand must too)", j->path ? j->path : "");
        return 0;
    }
    if (!j->text || !j->text[0]) {
        snprintf(why, n, "the queue row holds no job file text (synprobe submit records the file's content)");
        return 0;
    }
    return 1;
}

static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* A job with nothing to do runs here, without a process: every step is one the job ledger
 * records (no ingest or encode, which look at their inputs each time) and the ledger of its store
 * says each is done, which a read shows. The log gets what the job's process would print, the job is
 * done. 1 when handled; 0 to fork as usual (anything unexpected, including any error, forks). The
 * store is opened read-only and closed again before the daemon forks anything. */
static int run_if_nothing_to_do(struct daemon *d, const struct st_queue_job *j)
{
    struct dmn_job job;
    char e[SP_ERRLEN], dir[4096];
    job_dir(j, dir, sizeof dir);
    int handled = 0;
    struct st_db *db = NULL;
    struct stat sb;
    if (dmn_job_parse(j->text, dir, j->path, &job, e, sizeof e) || stat(job.store, &sb) || sb.st_size == 0) goto out;
    for (int i = 0; i < job.n_steps; i++)
        if (!(dmn_steps[job.steps[i].kind]->flags & DMN_STEP_LEDGER)) goto out;
    if (st_open(job.store, ST_OPEN_READONLY, &db, e, sizeof e)) goto out;
    struct sp_buf out = { 0 };
    sp_buf_printf(&out, "synprobe run: %s: %d steps, store %s\n", job.path, job.n_steps, job.store);
    for (int i = 0; i < job.n_steps; i++) {
        struct sp_buf cmd = { 0 };
        char summary[4096];
        int done = 0;
        sp_buf_puts(&cmd, job.steps[i].words);
        dmn_step_format(&job.steps[i], &cmd);
        int rc = st_job_step_done(db, cmd.p, &done, summary, sizeof summary, e, sizeof e);
        if (!rc && done) {
            struct sp_buf what = { 0 };
            dmn_step_what(&job.steps[i], &what);
            sp_buf_printf(&out, "\n$ synprobe %s\n[%d/%d] %s: done before, skipped%s%s%s (0.0s)\n", cmd.p, i + 1, job.n_steps,
                          what.p, *summary ? " (" : "", summary, *summary ? ")" : "");
            sp_buf_free(&what);
        }
        sp_buf_free(&cmd);
        if (rc || !done) { sp_buf_free(&out); goto out; }
    }
    st_close(db);
    db = NULL;
    char logp[4200];
    int logfd = dmn_job_log_open(d->o->store, j, 1, logp, sizeof logp, e, sizeof e);   /* refused: the fork path says why */
    FILE *f = logfd < 0 ? NULL : fdopen(logfd, "a");
    if (!f && logfd >= 0) close(logfd);
    if (f) {
        time_t t = time(NULL);
        fprintf(f, "==== job %lld, attempt %d, %s%ssynprobe run: nothing to do: all %d steps were done before (checked by the daemon)\n",
                (long long)j->id, j->attempts, ctime(&t), out.p, job.n_steps);
        fclose(f);
    }
    sp_buf_free(&out);
    if (!f) goto out;
    handled = 1;
    char state[16];
    if (!db_ready(d) && job.n_steps && st_queue_progress(d->db, j->id, d->owner, job.steps[job.n_steps - 1].where, job.n_steps,
                                                         job.n_steps, d->err, sizeof d->err))
        dlog(&d->log, "job %lld: progress: %s", (long long)j->id, d->err);
    finish_job(d, j->id, ST_QUEUE_DONE, NULL, NULL, state);
    if (d->o->verbose) dlog(&d->log, "job %lld: nothing to do (every step done before): done", (long long)j->id);
out:
    st_close(db);
    dmn_job_free(&job);
    return handled;
}

/* Fork the job's process. On failure the job is finished as failed here. */
static void start_child(struct daemon *d, struct child *c, struct st_queue_job *j)
{
    char logp[4200], logerr[SP_ERRLEN];
    int p[2] = { -1, -1 }, logfd = dmn_job_log_open(d->o->store, j, 1, logp, sizeof logp, logerr, sizeof logerr);
    const char *why = NULL;
    if (logfd < 0) why = logerr;
    else if (pipe2(p, O_CLOEXEC)) why = "pipe";
    /* the job's store: if it is the queue's own file, the child must not inherit our connection's
     * SQLite state for that file (locks and WAL index are per process): close it across the fork */
    if (!why) {
        struct dmn_job job;
        char e[SP_ERRLEN], dir[4096];
        job_dir(j, dir, sizeof dir);
        if (dmn_job_parse(j->text, dir, j->path, &job, e, sizeof e) == SP_OK && same_file(job.store, d->o->store)) {
            st_close(d->db);
            d->db = NULL;
        }
        dmn_job_free(&job);
    }
    pid_t parent = getpid(), pid = -1;
    /* signals stay blocked across the fork until the child has its own handlers: a SIGTERM sent
     * to it at once (a drain, a cancel) then waits for the child's stop flag instead of hitting
     * the daemon's handler in the child's copy */
    sigset_t all, old;
    sigfillset(&all);
    if (!why) {
        fflush(NULL);
        sigprocmask(SIG_SETMASK, &all, &old);
        pid = fork();
        if (pid < 0) why = "fork";
        if (pid != 0) sigprocmask(SIG_SETMASK, &old, NULL);
    }
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != parent) _exit(143);            /* the daemon died before prctl */
        close(g_wake[0]); close(g_wake[1]); g_wake[0] = g_wake[1] = -1;
        close(p[0]);
        for (int k = 0; k < (int)d->o->workers; k++) if (d->kids[k].pid) close(d->kids[k].fd);
        set_handler(SIGTERM, on_child_stop);
        set_handler(SIGINT, on_child_stop);
        signal(SIGHUP, SIG_IGN);
        signal(SIGCHLD, SIG_DFL);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        int devnull = open("/dev/null", O_RDONLY);
        if (devnull >= 0) { dup2(devnull, 0); close(devnull); }
        dup2(logfd, 1);
        dup2(logfd, 2);
        close(logfd);
        setvbuf(stdout, NULL, _IOLBF, 0);
        int rc = child_main(j, d->o->store, d->gpu_lock, p[1], d->o->verbose);
        fflush(NULL);
        _exit(rc);
    }
    if (logfd >= 0) close(logfd);
    if (p[1] >= 0) close(p[1]);
    if (why) {
        if (p[0] >= 0) close(p[0]);
        char msg[SP_ERRLEN + 64];
        if (why == logerr) snprintf(msg, sizeof msg, "the daemon could not start the job: %s", logerr);
        else snprintf(msg, sizeof msg, "the daemon could not start the job: %s: %s", why, strerror(errno));
        dlog(&d->log, "job %lld: %s", (long long)j->id, msg);
        char state[16];
        finish_job(d, j->id, ST_QUEUE_FAILED, msg, NULL, state);
        return;
    }
    fcntl(p[0], F_SETFL, O_NONBLOCK);
    memset(c, 0, sizeof *c);
    c->pid = pid;
    c->id = j->id;
    c->fd = p[0];
    c->job = *j;                  /* for its log's name: the strings are not kept */
    c->job.path = c->job.text = NULL;
    d->n_running++;
    dlog(&d->log, "job %lld: started (attempt %d, process %ld): %s", (long long)j->id, j->attempts, (long)pid, j->path);
    if (db_ready(d) || st_queue_set_pid(d->db, j->id, d->owner, (long)pid, d->err, sizeof d->err))
        dlog(&d->log, "job %lld: recording its process: %s", (long long)j->id, d->err);
}

/* lines the job process wrote: "S i n where", "F where", "E where TAB message" */
static void read_status(struct child *c)
{
    for (;;) {
        ssize_t k = read(c->fd, c->buf + c->len, sizeof c->buf - 1 - c->len);
        if (k <= 0) break;
        c->len += (size_t)k;
        c->buf[c->len] = 0;
        char *nl;
        while ((nl = memchr(c->buf, '\n', c->len))) {
            *nl = 0;
            const char *l = c->buf;
            int i, n, off = 0;
            if (sscanf(l, "S %d %d %n", &i, &n, &off) == 2 && off) {
                c->done = i; c->total = n;
                snprintf(c->step, sizeof c->step, "%s", l + off);
                c->progress_dirty = 1;
            } else if (l[0] == 'F' && l[1] == ' ') {
                snprintf(c->error_step, sizeof c->error_step, "%s", l + 2);
            } else if (l[0] == 'E' && l[1] == ' ') {
                const char *tab = strchr(l + 2, '\t');
                if (tab) {
                    snprintf(c->error_step, sizeof c->error_step, "%.*s", (int)(tab - l - 2), l + 2);
                    snprintf(c->error, sizeof c->error, "%s", tab + 1);
                }
            }
            size_t used = (size_t)(nl - c->buf) + 1;
            memmove(c->buf, nl + 1, c->len - used);
            c->len -= used;
        }
        if (c->len >= sizeof c->buf - 1) c->len = 0;   /* a line too long: dropped */
    }
}

static void flush_progress(struct daemon *d)
{
    if (d->lost) return;
    for (int k = 0; k < (int)d->o->workers; k++) {
        struct child *c = &d->kids[k];
        if (!c->pid || !c->progress_dirty) continue;
        /* a write that fails (a full disk, a lock held past the busy timeout) is tried again at the
         * next turn of the loop, and the job's end records it first (reap): the row's step is never
         * left behind the job's */
        if (db_ready(d) || st_queue_progress(d->db, c->id, d->owner, c->step, c->done, c->total, d->err, sizeof d->err)) {
            if (!c->progress_failing)
                dlog(&d->log, "job %lld: recording its step (%s): %s; trying again", (long long)c->id, c->step, d->err);
            c->progress_failing = 1;
            continue;
        }
        if (c->progress_failing) dlog(&d->log, "job %lld: its step is recorded now (%s)", (long long)c->id, c->step);
        c->progress_dirty = c->progress_failing = 0;
    }
}

/* A line from the daemon at the end of job c's log file (what the job's own output cannot say). */
static void job_log_note(struct daemon *d, const struct child *c, const char *msg)
{
    char logp[4200], e[SP_ERRLEN];
    int fd = dmn_job_log_open(d->o->store, &c->job, 1, logp, sizeof logp, e, sizeof e);
    FILE *f = fd < 0 ? NULL : fdopen(fd, "a");
    if (!f) { dlog(&d->log, "job %lld: %s", (long long)c->id, fd < 0 ? e : strerror(errno)); if (fd >= 0) close(fd); return; }
    fprintf(f, "synprobe daemon: %s\n", msg);
    fclose(f);
}

/* Ask job c's process to stop at its next safe point (SIGTERM); stop_overdue kills it when it
 * has not within the grace period. */
static void stop_child(struct child *c, const char *why)
{
    if (c->term_sent) return;
    kill(c->pid, SIGTERM);
    c->term_sent = 1;
    c->term_at = sp_now();
    c->term_why = why;
}

/* SIGKILL to every job process still running --grace seconds after its SIGTERM: a read blocked
 * on a silent pipe, or a long computation between safe points, must not hold a worker slot,
 * the store's job lock and the daemon's drain for ever. Returns the seconds until the next such
 * deadline (a large number when none is pending), so the loop wakes up in time. */
static double stop_overdue(struct daemon *d)
{
    double now = sp_now(), next = 1e9;
    for (int k = 0; k < (int)d->o->workers; k++) {
        struct child *c = &d->kids[k];
        if (!c->pid || !c->term_sent || c->killed) continue;
        double left = c->term_at + d->o->grace_s - now;
        if (left > 0) { if (left < next) next = left; continue; }
        dlog(&d->log, "job %lld: still running %g s after SIGTERM (%s): SIGKILL to process %ld", (long long)c->id,
             d->o->grace_s, c->term_why, (long)c->pid);
        kill(c->pid, SIGKILL);
        c->killed = 1;
    }
    return next;
}

static void reap(struct daemon *d)
{
    int status;
    pid_t pid;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
        struct child *c = NULL;
        for (int k = 0; k < (int)d->o->workers; k++) if (d->kids[k].pid == pid) c = &d->kids[k];
        if (!c) continue;
        read_status(c);
        close(c->fd);
        enum st_queue_outcome out;
        char msg[SP_ERRLEN + 64];
        const char *what;
        if (c->killed && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) {
            /* asked to stop, it did not within the grace period: not the job's failure (the
             * store keeps whole transactions under SIGKILL); a cancelled job stays cancelled,
             * any other goes back to the queue; the row and the job's log say what happened */
            out = ST_QUEUE_REQUEUE;
            what = "killed";
            snprintf(c->error, sizeof c->error, "killed with SIGKILL: still running %g s after SIGTERM (%s)", d->o->grace_s,
                     c->term_why);
            job_log_note(d, c, c->error);
        } else if (WIFEXITED(status) && WEXITSTATUS(status) == 0) { out = ST_QUEUE_DONE; what = "done"; }
        else if (WIFEXITED(status) && (WEXITSTATUS(status) == 143 || WEXITSTATUS(status) == 130)) {
            out = ST_QUEUE_REQUEUE; what = c->cancelled ? "stopped (cancelled)" : "stopped at a safe point, queued again";
        } else {
            out = ST_QUEUE_FAILED; what = "failed";
            if (!c->error[0]) {
                if (WIFSIGNALED(status)) snprintf(c->error, sizeof c->error, "the job's process was killed by signal %d (%s)",
                                                  WTERMSIG(status), strsignal(WTERMSIG(status)));
                else snprintf(c->error, sizeof c->error, "the job's process exited with status %d", WEXITSTATUS(status));
            }
        }
        char state[16] = "";
        struct progress pr = { c->step, c->done, c->total };   /* its last step lines, not recorded yet */
        finish_job_after(d, c->id, out, c->error[0] ? c->error : NULL, c->error_step[0] ? c->error_step : c->step,
                         c->progress_dirty ? &pr : NULL, state);
        if (c->killed) snprintf(msg, sizeof msg, "%s -> %s", c->error, state);
        else if (out == ST_QUEUE_FAILED)
            snprintf(msg, sizeof msg, "failed in %s: %s -> %s", c->error_step[0] ? c->error_step : "?", c->error, state);
        else snprintf(msg, sizeof msg, "%s -> %s", what, state);
        dlog(&d->log, "job %lld: %s", (long long)c->id, msg);
        c->pid = 0;
        d->n_running--;
    }
}

/* "host:pid:id" -> host (into h) and pid */
static int parse_owner(const char *owner, char *h, size_t n, long *pid)
{
    const char *a = strchr(owner, ':');
    if (!a) return -1;
    snprintf(h, n, "%.*s", (int)(a - owner), owner);
    *pid = strtol(a + 1, NULL, 10);
    return *pid > 0 ? 0 : -1;
}

/* a process that exists and is not a zombie (an orphaned job process nobody reaped yet) */
static int alive(long pid)
{
    if (pid <= 0 || (kill((pid_t)pid, 0) && errno != EPERM)) return 0;
    char p[64], buf[256];
    snprintf(p, sizeof p, "/proc/%ld/stat", pid);
    FILE *f = fopen(p, "r");
    if (!f) return 1;
    size_t k = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[k] = 0;
    const char *e = strrchr(buf, ')');   /* "pid (comm) S ..." */
    return !(e && e[1] == ' ' && e[2] == 'Z');
}

struct reclaim { struct daemon *d; char owners[16][160]; int n; };

static int reclaim_cb(void *arg, const struct st_queue_job *j)
{
    struct reclaim *r = arg;
    char h[128];
    long pid;
    if (!strcmp(j->owner, r->d->owner) || parse_owner(j->owner, h, sizeof h, &pid) || strcmp(h, r->d->host)) return 0;
    /* a daemon of this host that is gone, and its job process gone too (it may still be
     * checkpointing after its parent died: then wait; an unknown process waits for the lease) */
    if (alive(pid) || !j->pid || alive(j->pid)) return 0;
    for (int i = 0; i < r->n; i++) if (!strcmp(r->owners[i], j->owner)) return 0;
    if (r->n < 16) snprintf(r->owners[r->n++], sizeof r->owners[0], "%s", j->owner);
    return 0;
}

/* heartbeat, re-queue what others left, stop our jobs that were cancelled */
static void housekeeping(struct daemon *d)
{
    if (d->lost) return;
    if (db_ready(d)) { dlog(&d->log, "%s", d->err); return; }
    retry_ends(d);   /* first: before an expired lease of such a job is taken for an abandoned one */
    double now = wall_now();
    int n;
    if (st_queue_heartbeat(d->db, d->owner, now, d->o->lease_s, &n, d->err, sizeof d->err))
        dlog(&d->log, "heartbeat: %s", d->err);
    if (st_queue_requeue(d->db, NULL, now, &n, d->err, sizeof d->err)) dlog(&d->log, "re-queueing expired leases: %s", d->err);
    else if (n) dlog(&d->log, "%d job%s whose lease expired queued again", n, n == 1 ? "" : "s");
    struct reclaim r = { .d = d };
    if (st_queue_each(d->db, "running", 0, reclaim_cb, &r, d->err, sizeof d->err)) dlog(&d->log, "%s", d->err);
    for (int i = 0; i < r.n; i++) {
        if (st_queue_requeue(d->db, r.owners[i], now, &n, d->err, sizeof d->err)) dlog(&d->log, "%s", d->err);
        else if (n) dlog(&d->log, "%d job%s of %s (gone) queued again", n, n == 1 ? "" : "s", r.owners[i]);
    }
    for (int k = 0; k < (int)d->o->workers; k++) {
        struct child *c = &d->kids[k];
        if (!c->pid || c->term_sent) continue;
        struct st_queue_job j;
        int found = 0;
        if (st_queue_get(d->db, c->id, &j, &found, d->err, sizeof d->err) || !found) continue;
        if (strcmp(j.state, "running") || strcmp(j.owner, d->owner)) {
            dlog(&d->log, "job %lld: %s: stopping its process", (long long)c->id,
                 !strcmp(j.state, "cancelled") ? "cancelled" : "no longer leased to this daemon");
            c->cancelled = !strcmp(j.state, "cancelled");
            stop_child(c, c->cancelled ? "the job was cancelled" : "the job is no longer leased to this daemon");
        }
        st_queue_job_free(&j);
    }
}

static void random_id(char *out, size_t n)
{
    unsigned char b[6] = { 0 };
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd < 0 || read(fd, b, sizeof b) != (ssize_t)sizeof b) {
        struct sp_rng r;
        sp_rng_seed(&r, (uint64_t)wall_now() ^ (uint64_t)getpid() << 32);
        for (size_t i = 0; i < sizeof b; i++) b[i] = (unsigned char)sp_rng_next(&r);
    }
    if (fd >= 0) close(fd);
    snprintf(out, n, "%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2], b[3], b[4], b[5]);
}

int dmn_daemon_serve(const struct dmn_daemon_opts *o, char *err, size_t errlen)
{
    struct daemon D = { .o = o };
    struct daemon *d = &D;
    d->log.f = stderr;
    if (o->log) {
        d->log.path = o->log;
        d->log.f = sp_fopen_log(o->log, err, errlen);   /* never through a link planted at its name */
        if (!d->log.f) return SP_EIO;
    }
    /* the job logs' folder: one that will be refused is refused at once (before the store is
     * made), not job by job; a missing one is made once the store is open */
    struct stat sst;
    char logdir[4200];
    int dfd = -1;
    snprintf(logdir, sizeof logdir, "%s.logs", o->store);
    if (lstat(logdir, &sst) == 0 && (dfd = log_dir_open(o->store, 1, logdir, sizeof logdir, err, errlen)) < 0) {
        if (d->log.f != stderr) fclose(d->log.f);
        return SP_EIO;
    }
    if (dfd >= 0) close(dfd);
    if (st_open(o->store, ST_OPEN_CREATE, &d->db, err, errlen)) { if (o->log) fclose(d->log.f); return SP_ESTORE; }
    dfd = -1;
    if (stat(o->store, &sst)) snprintf(err, errlen, "%s: %s", o->store, strerror(errno));
    else dfd = log_dir_open(o->store, 1, logdir, sizeof logdir, err, errlen);
    if (dfd < 0) { st_close(d->db); if (o->log) fclose(d->log.f); return SP_EIO; }
    close(dfd);
    d->dev = sst.st_dev;
    d->ino = sst.st_ino;
    gethostname(d->host, sizeof d->host - 1);
    for (char *s = d->host; *s; s++) if (*s == ':') *s = '_';
    char rid[16];
    random_id(rid, sizeof rid);
    snprintf(d->owner, sizeof d->owner, "%s:%ld:%s", d->host, (long)getpid(), rid);
    snprintf(d->gpu_lock, sizeof d->gpu_lock, "%s.gpu.lock", o->store);
    d->kids = sp_xcalloc((size_t)o->workers, sizeof *d->kids);

    g_stop = g_hup = 0;
    if (pipe2(g_wake, O_CLOEXEC | O_NONBLOCK)) { snprintf(err, errlen, "pipe: %s", strerror(errno)); return SP_EIO; }
    set_handler(SIGTERM, on_signal);
    set_handler(SIGINT, on_signal);
    set_handler(SIGHUP, on_signal);
    set_handler(SIGCHLD, on_signal);
    signal(SIGPIPE, SIG_IGN);
    dlog(&d->log, "serving %s as %s: %ld workers, lease %.0f s, grace %g s", o->store, d->owner, o->workers, o->lease_s,
         o->grace_s);

    /* heartbeat and look for abandoned jobs every second (a third of the lease if shorter) */
    double next_house = 0, beat = o->lease_s / 3;
    if (beat > 1) beat = 1;
    int draining = 0, idle = 0;
    struct pollfd *pfd = sp_xcalloc((size_t)o->workers + 1, sizeof *pfd);
    for (;;) {
        if (!d->lost && store_moved(d)) {
            if (d->n_running)
                dlog(&d->log, "stopping %d running job%s at their next safe point; their ends are not recorded", d->n_running,
                     d->n_running == 1 ? "" : "s");
            draining = 1;
            for (int k = 0; k < (int)o->workers; k++)
                if (d->kids[k].pid) stop_child(&d->kids[k], "the queue's store is gone");
        }
        if (g_hup) {
            g_hup = 0;
            if (d->log.path) {
                char lerr[SP_ERRLEN];
                FILE *f = sp_fopen_log(d->log.path, lerr, sizeof lerr);   /* a link put there since is refused too */
                if (d->log.f != stderr) fclose(d->log.f);
                d->log.f = f ? f : stderr;
                if (!f) dlog(&d->log, "SIGHUP: cannot reopen the log file: %s; logging to standard error", lerr);
            }
            if (d->log.f != stderr || !d->log.path) dlog(&d->log, "SIGHUP: log file reopened");
        }
        for (int k = 0; k < (int)o->workers; k++) if (d->kids[k].pid) read_status(&d->kids[k]);
        reap(d);
        flush_progress(d);
        if (g_stop && !draining) {
            draining = 1;
            dlog(&d->log, "%s: draining: no new jobs; stopping %d running job%s at their next safe point",
                 g_stop == SIGINT ? "SIGINT" : "SIGTERM", d->n_running, d->n_running == 1 ? "" : "s");
            for (int k = 0; k < (int)o->workers; k++)
                if (d->kids[k].pid) stop_child(&d->kids[k], "the daemon is draining");
        }
        double overdue = stop_overdue(d);
        if (draining && d->n_running == 0) break;
        double now = sp_now();
        if (now >= next_house) { housekeeping(d); next_house = now + beat; }
        idle = 0;
        while (!draining && d->n_running < o->workers) {
            if (store_moved(d)) break;   /* before each lease: the next turn stops */
            if (db_ready(d)) { dlog(&d->log, "%s", d->err); break; }
            struct st_queue_job j;
            int got = 0;
            if (st_queue_lease(d->db, d->owner, wall_now(), o->lease_s, &j, &got, d->err, sizeof d->err)) {
                dlog(&d->log, "leasing: %s", d->err);
                break;
            }
            if (!got) { idle = 1; break; }
            forget_end(d, j.id);
            char why[SP_ERRLEN + 64], state[16];
            if (!row_usable(&j, why, sizeof why)) {
                finish_job(d, j.id, ST_QUEUE_FAILED, why, NULL, state);
                dlog(&d->log, "job %lld: failed: %s -> %s", (long long)j.id, why, state);
                st_queue_job_free(&j);
                continue;
            }
            if (run_if_nothing_to_do(d, &j)) { st_queue_job_free(&j); continue; }
            struct child *c = NULL;
            for (int k = 0; k < (int)o->workers && !c; k++) if (!d->kids[k].pid) c = &d->kids[k];
            start_child(d, c, &j);
            st_queue_job_free(&j);
        }
        int n = 0;
        pfd[n++] = (struct pollfd){ .fd = g_wake[0], .events = POLLIN };
        for (int k = 0; k < (int)o->workers; k++)
            if (d->kids[k].pid) pfd[n++] = (struct pollfd){ .fd = d->kids[k].fd, .events = POLLIN };
        /* full or draining: wait for a child or a signal; idle: look again after poll_s */
        double wait = next_house - sp_now();
        if ((idle || !draining) && d->n_running < o->workers && wait > o->poll_s) wait = o->poll_s;
        if (wait > overdue) wait = overdue;
        if (wait < 0) wait = 0;
        if (poll(pfd, (nfds_t)n, (int)(wait * 1000)) > 0 && (pfd[0].revents & POLLIN)) {
            char buf[64];
            while (read(g_wake[0], buf, sizeof buf) > 0) {}
        }
    }
    if (d->n_pending && !d->lost) retry_ends(d);
    for (int i = 0; i < d->n_pending; i++)
        dlog(&d->log, "job %lld: its end could not be recorded (%s): it stays 'running' under this daemon's lease, which "
             "expires in %.0f s; then another daemon on this store queues it again", (long long)d->pending[i].id, d->err,
             o->lease_s);
    if (d->lost) dlog(&d->log, "stopped: the queue's store is gone; exiting with an error");
    else dlog(&d->log, "drained: every job of this daemon finished or queued again; exiting");
    free(d->pending);
    free(pfd);
    free(d->kids);
    st_close(d->db);
    close(g_wake[0]); close(g_wake[1]); g_wake[0] = g_wake[1] = -1;
    if (d->log.f != stderr) fclose(d->log.f);
    if (d->lost) { snprintf(err, errlen, "%s", d->lost_why); return SP_ESTORE; }
    return SP_OK;
}
