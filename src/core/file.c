// SPDX-License-Identifier: MIT
// Bounded, checked reading of whole files: the one way cdlab reads an input file.
#include "cd_core.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

void cd_file_size_text(size_t max, char *buf, size_t len)
{
    static const char *const unit[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    size_t v = max;
    while (u < 4 && v >= 1024 && v % 1024 == 0) v /= 1024, ++u;
    snprintf(buf, len, "%zu %s", v, unit[u]);
}

static const char *file_type(mode_t m)
{
    return S_ISCHR(m)    ? "a character device"
           : S_ISBLK(m)  ? "a block device"
           : S_ISFIFO(m) ? "a pipe"
           : S_ISSOCK(m) ? "a socket"
                         : "not a file";
}

// Refuse what fd is when it is not a file cdlab may read: 0 (*fifo: whether it is a pipe or FIFO),
// or -1 with err and errno set.
static int check_type(int fd, size_t max, enum cd_file_accept accept, size_t *size, int *fifo, char *err,
                      size_t err_len)
{
    struct stat st;
    if (fstat(fd, &st) != 0) {
        snprintf(err, err_len, "cannot read: %s", strerror(errno));
        return -1;
    }
    *size = 0;
    if (S_ISDIR(st.st_mode)) {
        snprintf(err, err_len, "is a directory: expected a file");
        errno = EISDIR;
        return -1;
    }
    if (!S_ISREG(st.st_mode) && !(S_ISFIFO(st.st_mode) && accept == CD_FILE_OR_PIPE)) {
        snprintf(err, err_len, "not a regular file (%s): expected a regular file%s", file_type(st.st_mode),
                 accept == CD_FILE_OR_PIPE ? " or a pipe" : "");
        errno = EINVAL;
        return -1;
    }
    if (S_ISREG(st.st_mode)) {
        if ((unsigned long long)st.st_size > max) {
            char lim[32];
            cd_file_size_text(max, lim, sizeof lim);
            snprintf(err, err_len, "%lld bytes, larger than the %s limit: expected a smaller file",
                     (long long)st.st_size, lim);
            errno = EFBIG;
            return -1;
        }
        *size = (size_t)st.st_size;
    }
    *fifo = S_ISFIFO(st.st_mode);
    return 0;
}

// Read fd to its end into a buffer that starts at size + 1 bytes (the size fstat saw; a file that
// grows while read is followed, still within max). 0, or -1 with err and errno set.
static int read_fd(int fd, size_t size, size_t max, char **text, size_t *len, char *err, size_t err_len)
{
    size_t cap = size + 1 < 4096 ? 4096 : size + 1, n = 0;
    char *b = malloc(cap);
    for (;;) {
        if (!b) {
            snprintf(err, err_len, "out of memory: cannot allocate %zu bytes to read it", cap);
            errno = ENOMEM;
            return -1;
        }
        if (n == cap - 1) {
            if (n >= max + 1) break;  // one byte beyond max read: too large
            size_t grow = cap > max / 2 ? max + 2 : cap * 2;
            char *g = realloc(b, grow);
            if (!g) free(b);
            b = g, cap = grow;
            continue;
        }
        ssize_t k = read(fd, b + n, cap - 1 - n);
        if (k < 0 && errno == EINTR) continue;
        if (k < 0) {
            int e = errno;
            snprintf(err, err_len, "read error: %s", strerror(e));
            free(b);
            errno = e;
            return -1;
        }
        if (k == 0) break;
        n += (size_t)k;
    }
    if (n > max) {
        char lim[32];
        cd_file_size_text(max, lim, sizeof lim);
        snprintf(err, err_len, "larger than the %s limit: expected a smaller file", lim);
        free(b);
        errno = EFBIG;
        return -1;
    }
    b[n] = '\0';
    *text = b, *len = n;
    return 0;
}

// Wait until the pipe or FIFO fd, opened O_NONBLOCK, has data or has lost the writer it had:
// only then does a read's 0 mean its end (opened before any writer, it reads 0 at once). Linux's
// poll gives such a FIFO reader no POLLHUP until a writer has opened it ("suppress EPOLLHUP until
// we have seen a writer", fs/pipe.c), so this waits for the writer and no longer. Not a second,
// blocking open of the path: a writer already waiting in its own open is let through by the first
// one, and if it wrote and closed before the second, that open waited for another writer with the
// data unread. 0, or -1 with err and errno set.
static int fifo_wait_writer(int fd, char *err, size_t err_len)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    int n;
    while ((n = poll(&p, 1, -1)) < 0 && errno == EINTR) {}
    if (n < 0) {
        int e = errno;
        snprintf(err, err_len, "read error: %s", strerror(e));
        errno = e;
        return -1;
    }
    return 0;
}

// path opened for reading and checked (check_type), then switched to blocking reads: the fd, or
// -1 with err and errno set. O_NONBLOCK while opening: a FIFO with no writer must not hang before
// its type is checked. A FIFO that may be read then waits for its writer (fifo_wait_writer): a
// read without one would end at once, with no data.
static int open_checked(const char *path, size_t max, enum cd_file_accept accept, size_t *size, char *err,
                        size_t err_len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        int e = errno;
        snprintf(err, err_len, "cannot open: %s", strerror(e));
        errno = e;
        return -1;
    }
    int fifo = 0;
    if (check_type(fd, max, accept, size, &fifo, err, err_len) != 0 || (fifo && fifo_wait_writer(fd, err, err_len))) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    int flags = fcntl(fd, F_GETFL);
    if (flags >= 0) fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);  // a pipe is then read to its end
    return fd;
}

int cd_file_load(const char *path, size_t max, enum cd_file_accept accept, char **text, size_t *len, char *err,
                 size_t err_len)
{
    *text = NULL, *len = 0;
    size_t size;
    int fd = open_checked(path, max, accept, &size, err, err_len);
    if (fd < 0) return -1;
    int rc = read_fd(fd, size, max, text, len, err, err_len);
    int e = errno;
    close(fd);
    errno = e;
    return rc;
}

FILE *cd_file_open_stream(const char *path, char *err, size_t err_len)
{
    size_t size;
    int fd = open_checked(path, SIZE_MAX, CD_FILE_REGULAR, &size, err, err_len);
    if (fd < 0) return NULL;
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        int e = errno;
        snprintf(err, err_len, "cannot open: %s", strerror(e));
        close(fd);
        errno = e;
    }
    return f;
}

int cd_line_reader_open(cd_line_reader *r, const char *path, size_t max, enum cd_file_accept accept, size_t max_line,
                        char *err, size_t err_len)
{
    *r = (cd_line_reader){.fd = -1};
    size_t size;
    int fd = open_checked(path, max, accept, &size, err, err_len);
    if (fd < 0) return -1;
    // Room for the longest line whole with a CR LF after it, and as much again to read into.
    size_t cap = 2 * (max_line + 2);
    char *buf = malloc(cap);
    if (!buf) {
        snprintf(err, err_len, "out of memory: cannot allocate %zu bytes to read it", cap);
        close(fd);
        errno = ENOMEM;
        return -1;
    }
    *r = (cd_line_reader){.fd = fd, .max = max, .max_line = max_line, .buf = buf, .cap = cap};
    return 0;
}

int cd_line_reader_next(cd_line_reader *r, const char **line, size_t *n, char *err, size_t err_len)
{
    for (;;) {
        const char *start = r->buf + r->start, *nl = memchr(start, '\n', r->end - r->start);
        size_t have = r->end - r->start, most = r->max_line + 2;
        // A whole line, a line too long to hold (its first max_line + 2 bytes: its caller sees it
        // is too long), or the last line of the file (no '\n').
        if (nl || have >= most || (r->eof && have)) {
            size_t k = nl ? (size_t)(nl - start) + 1 : have < most ? have : most;
            r->start += k;
            r->line++;
            *line = start, *n = k;
            return 1;
        }
        if (r->eof) return 0;
        if (r->start) {  // keep the partial line, move it to the front to read after it
            memmove(r->buf, start, have);
            r->start = 0, r->end = have;
        }
        ssize_t got = read(r->fd, r->buf + r->end, r->cap - r->end);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {
            int e = errno;
            snprintf(err, err_len, "read error: %s", strerror(e));
            errno = e;
            return -1;
        }
        if (got == 0) r->eof = 1;
        r->end += (size_t)got;
        r->total += (size_t)got;
        if (r->total > r->max) {  // a pipe, or a file that grew since it was opened
            char lim[32];
            cd_file_size_text(r->max, lim, sizeof lim);
            snprintf(err, err_len, "larger than the %s limit: expected a smaller file", lim);
            errno = EFBIG;
            return -1;
        }
    }
}

void cd_line_reader_close(cd_line_reader *r)
{
    if (r->fd >= 0) close(r->fd);
    free(r->buf);
    *r = (cd_line_reader){.fd = -1};
}

char *cd_file_read(const char *path, size_t *len)
{
    char *text, err[256];
    return cd_file_load(path, CD_FILE_MAX_BYTES, CD_FILE_REGULAR, &text, len, err, sizeof err) ? NULL : text;
}

static char *copy_text(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(cd_alloc(n), s, n);
}

char *cd_link_next(const char *link_path)
{
    char link[4096];
    ssize_t n = readlink(link_path, link, sizeof link - 1);
    if (n < 0) return NULL;
    link[n] = '\0';
    const char *slash = strrchr(link_path, '/');
    size_t dir = link[0] == '/' || !slash ? 0 : (size_t)(slash - link_path) + 1;  // relative to the link's directory
    char *next = cd_alloc(dir + (size_t)n + 1);
    memcpy(next, link_path, dir);
    memcpy(next + dir, link, (size_t)n + 1);
    return next;
}

// The file path names once symbolic links are followed, as fopen(path, "w") would create or
// truncate it: realpath where the file exists; else each link read in turn (a dangling link's
// target is the file to create, not the link). Up to 40 links, as the kernel's own limit.
static char *out_target(const char *path)
{
    char *cur = copy_text(path);
    for (int hops = 0; hops < 40; ++hops) {
        struct stat st;
        if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode)) return cur;
        char *real = realpath(cur, NULL);
        if (real) {
            cd_free(cur);
            cur = copy_text(real);
            free(real);
            return cur;
        }
        char *next = cd_link_next(cur);
        if (!next) return cur;
        cd_free(cur);
        cur = next;
    }
    return cur;
}

// The temporary files of outputs in progress, for a signal that ends the process (Ctrl-C, kill)
// to remove: without it an interrupted report or query left .cdlab-out.XXXXXX beside its target.
// The handler reads only these fixed buffers and calls unlink, signal and raise (async-signal-
// safe); an entry is marked busy only once its name is whole, and freed before it is reused.
// The scratch directories in use (cd_scratch_dir_make) are kept the same way, after the files:
// the handler empties each (open, getdents64, unlinkat: system calls only) and removes it.
enum { OUT_TEMPS = 8, OUT_TEMP_MAX = 4200, SCRATCH_FIRST = OUT_TEMPS, SCRATCH_DIRS = 4 };
static struct {
    char path[OUT_TEMPS + SCRATCH_DIRS][OUT_TEMP_MAX];
    volatile sig_atomic_t busy[OUT_TEMPS + SCRATCH_DIRS];
} out_temps;
static const int out_signals[] = {SIGINT, SIGTERM, SIGHUP};

// Remove dir and the files in it with system calls alone (async-signal-safe, unlike readdir):
// passes over its entries until one removes nothing, since entries unlinked during a pass may
// move the others; a few passes at most, as nothing else writes there. buf holds the entries.
static void scratch_dir_empty_and_remove(const char *dir, char *buf, size_t len)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    for (int pass = 0; fd >= 0 && pass < 8; ++pass) {
        int removed = 0;
        lseek(fd, 0, SEEK_SET);
        for (long n; (n = syscall(SYS_getdents64, fd, buf, len)) > 0;)
            for (long off = 0; off < n;) {
                // struct linux_dirent64: d_ino (8 bytes), d_off (8), d_reclen (2), d_type (1), d_name
                unsigned short reclen;
                memcpy(&reclen, buf + off + 16, sizeof reclen);
                const char *name = buf + off + 19;
                // An empty folder gnuplot may have made goes too (as remove() took it before).
                if (strcmp(name, ".") != 0 && strcmp(name, "..") != 0)
                    removed |= unlinkat(fd, name, 0) == 0 || (errno == EISDIR && unlinkat(fd, name, AT_REMOVEDIR) == 0);
                off += reclen;
            }
        if (!removed) break;
    }
    if (fd >= 0) close(fd);
    rmdir(dir);
}

// The first handler to run does the removals; one entered later (another of the signals, on
// another thread: the mask keeps a thread from entering twice) waits for it to end the process,
// so the static buffer is only ever one handler's.
static void on_out_signal(int s)
{
    static atomic_flag taken = ATOMIC_FLAG_INIT;
    if (atomic_flag_test_and_set(&taken))
        for (;;) pause();
    for (int k = 0; k < OUT_TEMPS; ++k)
        if (out_temps.busy[k]) unlink(out_temps.path[k]);
    for (int k = SCRATCH_FIRST; k < SCRATCH_FIRST + SCRATCH_DIRS; ++k)
        if (out_temps.busy[k]) {
            static _Alignas(8) char buf[8192];
            scratch_dir_empty_and_remove(out_temps.path[k], buf, sizeof buf);
        }
    signal(s, SIG_DFL);
    // The default action once the handler returns (the mask lifted then): the process ends as it
    // would have.
    raise(s);
}

void cd_file_size_limit_as_error(void)
{
    struct sigaction old, ign = {.sa_handler = SIG_IGN};
    sigemptyset(&ign.sa_mask);
    if (sigaction(SIGXFSZ, NULL, &old) == 0 && old.sa_handler == SIG_DFL) sigaction(SIGXFSZ, &ign, NULL);
}

// The signals whose default action on_out_signal takes over, as a set.
static void out_signal_set(sigset_t *set)
{
    sigemptyset(set);
    for (size_t i = 0; i < sizeof out_signals / sizeof out_signals[0]; ++i) sigaddset(set, out_signals[i]);
}

// Install on_out_signal where the signals still have their default action: a command with its
// own handlers (cdlab run) keeps them. SIGXFSZ is ignored likewise (cd_file_size_limit_as_error):
// a write past a file size limit then fails with EFBIG, which cd_file_out_commit reports as a
// write error, removing the temporary file, instead of ending the process with it half-written.
static void out_handlers_install(void)
{
    static int installed;
    if (installed) return;
    installed = 1;
    cd_file_size_limit_as_error();
    for (size_t i = 0; i < sizeof out_signals / sizeof out_signals[0]; ++i) {
        struct sigaction old, sa = {.sa_handler = on_out_signal};
        out_signal_set(&sa.sa_mask);
        if (sigaction(out_signals[i], NULL, &old) == 0 && old.sa_handler == SIG_DFL)
            sigaction(out_signals[i], &sa, NULL);
    }
}

// The signals held back from making a file or directory until it is registered, so that none
// ends the process between the two and leaves it (*old: the mask to restore).
static void out_signals_block(sigset_t *old)
{
    out_handlers_install();
    sigset_t set;
    out_signal_set(&set);
    pthread_sigmask(SIG_BLOCK, &set, old);
}

// Register path (slots first..first+count) for removal by a terminating signal: the slot, or -1
// when every slot is taken or the name is too long (it is then left as before).
static int out_temp_add_in(const char *path, int first, int count)
{
    out_handlers_install();
    size_t n = strlen(path);
    for (int k = first; k < first + count && n < OUT_TEMP_MAX; ++k)
        if (!out_temps.busy[k]) {
            memcpy(out_temps.path[k], path, n + 1);
            atomic_signal_fence(memory_order_seq_cst);  // the name is whole before the handler reads it
            out_temps.busy[k] = 1;
            return k;
        }
    return -1;
}

static int out_temp_add(const char *tmp) { return out_temp_add_in(tmp, 0, OUT_TEMPS); }

static void out_temp_drop(int k)
{
    if (k >= 0) out_temps.busy[k] = 0;
}

int cd_scratch_dir_make(char *template)
{
    sigset_t old;
    out_signals_block(&old);
    int ok = mkdtemp(template) != NULL, e = errno;
    if (ok) out_temp_add_in(template, SCRATCH_FIRST, SCRATCH_DIRS);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    errno = e;
    return ok ? 0 : -1;
}

// The slot cd_scratch_dir_make registered dir in, or -1.
static int scratch_slot(const char *dir)
{
    for (int k = SCRATCH_FIRST; k < SCRATCH_FIRST + SCRATCH_DIRS; ++k)
        if (out_temps.busy[k] && strcmp(out_temps.path[k], dir) == 0) return k;
    return -1;
}

void cd_scratch_dir_remove(const char *dir)
{
    _Alignas(8) char buf[8192];
    scratch_dir_empty_and_remove(dir, buf, sizeof buf);  // before the slot is freed: a signal now finds it once
    out_temp_drop(scratch_slot(dir));
}

void cd_scratch_dir_keep(const char *dir) { out_temp_drop(scratch_slot(dir)); }

int cd_file_make_temp(char *template, int mode)
{
    int fd = mkstemp(template);
    if (fd < 0) return -1;
    if (mode < 0) {  // fopen's: 0666 less the umask, read by setting it and back
        mode_t mask = umask(0);
        umask(mask);
        mode = (int)(0666 & ~mask);
    }
    if (fchmod(fd, (mode_t)mode) != 0 || fcntl(fd, F_SETFD, FD_CLOEXEC) != 0) {
        int e = errno;
        close(fd), unlink(template);
        errno = e;
        return -1;
    }
    return fd;
}

int cd_file_out_open(cd_file_out *o, const char *path, char *err, size_t err_len)
{
    *o = (cd_file_out){0};
    // A symbolic link is written through, as fopen(path, "w") did: the temporary file goes beside
    // the file it names, which the rename then replaces (not the link).
    o->target = out_target(path);
    // A short name in the target's directory (TARGET.PID.part would pass NAME_MAX for a name near
    // it), made by mkstemp: O_EXCL, so never a link or a file someone else made under the name.
    const char *slash = strrchr(o->target, '/');
    size_t dir = slash ? (size_t)(slash - o->target) + 1 : 0;
    o->tmp = cd_alloc(dir + 32);
    memcpy(o->tmp, o->target, dir);
    memcpy(o->tmp + dir, ".cdlab-out.XXXXXX", sizeof ".cdlab-out.XXXXXX");
    struct stat st;
    int have = stat(o->target, &st) == 0 && S_ISREG(st.st_mode), fd = -1, e = 0;
    sigset_t old;
    out_signals_block(&old);  // until the temporary file is registered, or gone again
    if (have && access(o->target, W_OK) != 0) {
        e = errno;  // a read-only file stays so: rename needs only the directory's permission
    } else {
        // The file it replaces keeps its permissions (a private output stays private); a new one
        // gets fopen's.
        fd = cd_file_make_temp(o->tmp, have ? (int)(st.st_mode & 07777) : -1);
        e = errno;
    }
    if (fd >= 0 && !(o->f = fdopen(fd, "w"))) e = errno, close(fd), unlink(o->tmp);
    if (o->f) o->signal_slot = out_temp_add(o->tmp);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (!o->f) {
        snprintf(err, err_len, "cannot write: %s", strerror(e));
        cd_free(o->target);
        cd_free(o->tmp);
        *o = (cd_file_out){0};
        errno = e;
        return -1;
    }
    return 0;
}

int cd_file_out_commit(cd_file_out *o, char *err, size_t err_len)
{
    // As close_stdout: a failed write shows only in the error flag and the final flush; the
    // flush retries what is buffered, so errno then holds the cause (ENOSPC, EFBIG).
    errno = 0;
    int bad = fflush(o->f) != 0, e = errno;
    if (!bad && ferror(o->f)) {
        // A write failed earlier and glibc dropped what it could not write, so the flush had
        // nothing to retry: one byte more, written and flushed, gives the cause (the file is
        // discarded anyway).
        bad = 1;
        errno = 0;
        if (fputc('\n', o->f) == EOF || fflush(o->f) != 0) e = errno;
    }
    if (!bad && fsync(fileno(o->f)) != 0) bad = 1, e = errno;  // the data is on disk before its name
    if (fclose(o->f) != 0 && !bad) bad = 1, e = errno;
    o->f = NULL;
    int rc = 0;
    if (bad) {
        snprintf(err, err_len, "write error: %s", strerror(e ? e : EIO));
        rc = -1;
    } else if (rename(o->tmp, o->target) != 0) {
        e = errno;
        snprintf(err, err_len, "cannot rename %s to it: %s", o->tmp, strerror(e));
        rc = -1;
    }
    if (rc) unlink(o->tmp);
    out_temp_drop(o->signal_slot);
    cd_free(o->target);
    cd_free(o->tmp);
    *o = (cd_file_out){0};
    if (rc) errno = e ? e : EIO;
    return rc;
}

void cd_file_out_abort(cd_file_out *o)
{
    if (o->f) fclose(o->f);
    if (o->tmp) unlink(o->tmp), out_temp_drop(o->signal_slot);
    cd_free(o->target);
    cd_free(o->tmp);
    *o = (cd_file_out){0};
}

int cd_lines_next(cd_lines *it, const char **line, size_t *n)
{
    if (it->pos >= it->len) return 0;
    const char *start = it->text + it->pos;
    const char *nl = memchr(start, '\n', it->len - it->pos);
    size_t k = nl ? (size_t)(nl - start) + 1 : it->len - it->pos;
    it->pos += k;
    it->line++;
    *line = start, *n = k;
    return 1;
}

int cd_text_open(cd_text_file *f, const char *path, char *err, size_t err_len)
{
    *f = (cd_text_file){0};
    size_t len;
    char why[256];
    if (cd_file_load(path, CD_FILE_MAX_BYTES, CD_FILE_REGULAR, &f->text, &len, why, sizeof why)) {
        int e = errno;
        snprintf(err, err_len, "%s: %s", path, why);
        errno = e;
        return -1;
    }
    f->it = cd_lines_of(f->text, len);
    cd_lines scan = f->it;
    const char *line;
    size_t n;
    while (cd_lines_next(&scan, &line, &n))
        if (cd_line_body(line, n) > CD_TEXT_MAX_LINE) {
            char lim[32];
            cd_file_size_text(CD_TEXT_MAX_LINE, lim, sizeof lim);
            snprintf(err, err_len, "%s:%zu: line longer than %s: expected a text file", path, scan.line, lim);
            cd_text_close(f);
            errno = EFBIG;
            return -1;
        }
    return 0;
}

long cd_text_getline(cd_text_file *f, char **line)
{
    const char *start;
    size_t n;
    if (!cd_lines_next(&f->it, &start, &n)) return -1;
    cd_grow((void **)&f->line, 1, &f->cap, n + 1);
    memcpy(f->line, start, n);
    f->line[n] = '\0';
    *line = f->line;
    return (long)n;
}

void cd_text_close(cd_text_file *f)
{
    free(f->text);
    cd_free(f->line);
    *f = (cd_text_file){0};
}

const char *cd_signal_name(int s)
{
    switch (s) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGABRT: return "SIGABRT";
    case SIGALRM: return "SIGALRM";
    case SIGKILL: return "SIGKILL";
    case SIGTRAP: return "SIGTRAP";
    case SIGSYS: return "SIGSYS";
    default: return "a signal";
    }
}
