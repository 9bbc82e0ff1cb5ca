/* common/atomic.c — every file a command writes goes through here: nothing is replaced until
 * the new content is complete.
 *
 * How it works: sp_out_open creates a temporary file beside the destination (same folder, so
 * the final rename cannot cross file systems): ".NAME.tmp-PID-N", created with O_EXCL and mode
 * 0666 & ~umask like fopen would. The caller writes through out->f. sp_out_commit flushes,
 * fsyncs and closes it, then rename(2)s it over the destination: a reader sees the old file or
 * the new one, never a part; killed before the rename, the old file is untouched (the
 * temporary may remain, named as above). sp_out_abort closes and unlinks the temporary.
 *
 * Symlinks: a destination that is a symbolic link is replaced itself (rename replaces the
 * link, not its target), so an output never writes through a link into another file.
 * Identity: the destination is checked against the guard installed for the process (common/
 * guard.h: the store and the inputs of the command or job); a clash is SP_EUSAGE, nothing created.
 * Not done: fsync of the folder after the rename (the rename is atomic, not yet durable). */
#include "common/sp.h"
#include "common/guard.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int sp_out_open(struct sp_out *o, const char *path, char *err, size_t errlen)
{
    static unsigned counter;
    memset(o, 0, sizeof *o);
    if (sp_guard_check(sp_guard_installed(), path, "output", err, errlen)) return SP_EUSAGE;
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s: is a directory", path);
        return SP_EIO;
    }
    const char *slash = strrchr(path, '/');
    size_t dir_len = slash ? (size_t)(slash - path) + 1 : 0;
    const char *base = slash ? slash + 1 : path;
    if (!*base) { snprintf(err, errlen, "%s: not a file name", path); return SP_EIO; }
    size_t cap = strlen(path) + 64;
    o->tmp = sp_xmalloc(cap);
    int fd = -1;
    for (int tries = 0; fd < 0 && tries < 100; tries++) {
        snprintf(o->tmp, cap, "%.*s.%s.tmp-%ld-%u", (int)dir_len, path, base, (long)getpid(), counter++);
        fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST) break;
    }
    if (fd < 0) {
        snprintf(err, errlen, "%s: cannot create a file in its folder: %s", path, strerror(errno));
        free(o->tmp);
        o->tmp = NULL;
        return SP_EIO;
    }
    o->f = fdopen(fd, "wb");
    if (!o->f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        close(fd);
        unlink(o->tmp);
        free(o->tmp);
        o->tmp = NULL;
        return SP_EIO;
    }
    o->path = sp_xstrdup(path);
    return SP_OK;
}

static void out_clear(struct sp_out *o)
{
    free(o->tmp);
    free(o->path);
    o->tmp = o->path = NULL;
    o->f = NULL;
}

int sp_out_commit(struct sp_out *o, char *err, size_t errlen)
{
    if (!o->f) { snprintf(err, errlen, "%s: not open", o->path ? o->path : "output"); return SP_EIO; }
    int ok = !ferror(o->f) && fflush(o->f) == 0;
    int e = errno;
    if (ok && fsync(fileno(o->f)) != 0) { ok = 0; e = errno; }
    if (fclose(o->f) != 0 && ok) { ok = 0; e = errno; }
    o->f = NULL;
    if (ok && rename(o->tmp, o->path) != 0) { ok = 0; e = errno; }
    if (!ok) {
        snprintf(err, errlen, "%s: write error: %s (the previous file, if any, is unchanged)", o->path, strerror(e));
        unlink(o->tmp);
        out_clear(o);
        return SP_EIO;
    }
    out_clear(o);
    return SP_OK;
}

void sp_out_abort(struct sp_out *o)
{
    if (o->f) fclose(o->f);
    if (o->tmp) unlink(o->tmp);
    out_clear(o);
}
