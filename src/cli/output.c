// SPDX-License-Identifier: MIT
// The files a command writes where the user said (-o, --out, an output argument): one check of the
// target, so no command turns a device, a FIFO or a directory into a regular file by renaming its
// finished output over it, nor replaces the file its standard output or error is appending to
// (/dev/stdout, /dev/fd/N, or that file's own name), and one way to write it (a temporary file
// renamed over it when complete, so a failure leaves no half-written file and an existing one
// untouched).
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *kind_of(mode_t m)
{
    return S_ISDIR(m)    ? "a directory"
           : S_ISCHR(m)  ? "a character device"
           : S_ISBLK(m)  ? "a block device"
           : S_ISFIFO(m) ? "a FIFO"
           : S_ISSOCK(m) ? "a socket"
                         : "not a regular file";
}

// p past the decimal digits that start it, or NULL when none do.
static const char *past_digits(const char *p)
{
    size_t n = strspn(p, "0123456789");
    return n ? p + n : NULL;
}

// Whether dir (a path) is a process's file descriptor directory, /proc/PID/fd or
// /proc/PID/task/TID/fd, where /dev/fd, /proc/self/fd and /proc/thread-self/fd lead.
static int is_fd_dir(const char *dir)
{
    char *real = realpath(dir, NULL);
    if (!real) return 0;
    const char *p = strncmp(real, "/proc/", 6) == 0 ? past_digits(real + 6) : NULL;  // /proc/PID
    if (p && strncmp(p, "/task/", 6) == 0) p = past_digits(p + 6);                   // /proc/PID/task/TID
    int ok = p && strcmp(p, "/fd") == 0;
    free(real);
    return ok;
}

// Whether path, or a symbolic link on the way to the file it names (/dev/stdout, /dev/stderr),
// is an entry of a file descriptor directory (/dev/fd/N, /proc/self/fd/N): such an entry links
// to the open file itself, and the finished output renamed over that file would replace what the
// shell opened for the descriptor (`>> log.txt` would lose its old lines). Each link is read in
// turn, as cd_file_out_open follows them, up to the kernel's 40.
static int names_descriptor(const char *path)
{
    size_t len = strlen(path);
    char *cur = cd_alloc(len + 1);
    memcpy(cur, path, len + 1);
    int found = 0;
    for (int hops = 0; hops < 40; ++hops) {
        const char *slash = strrchr(cur, '/');
        size_t dir = slash ? (size_t)(slash - cur) + 1 : 0;  // the directory part, with its '/'
        char *d = cd_alloc(dir + 2);
        memcpy(d, dir ? cur : ".", dir ? dir : 1);
        d[dir ? dir : 1] = '\0';
        found = is_fd_dir(d);
        cd_free(d);
        char *next = found ? NULL : cd_link_next(cur);  // NULL: no link (or unreadable), the chain ends
        if (!next) break;
        cd_free(cur);
        cur = next;
    }
    cd_free(cur);
    return found;
}

// Which of this process's standard output (1) and standard error (2) is the regular file st, or 0.
static int std_stream_of(const struct stat *st)
{
    for (int fd = 1; fd <= 2; ++fd) {
        struct stat s;
        if (fstat(fd, &s) == 0 && S_ISREG(s.st_mode) && s.st_dev == st->st_dev && s.st_ino == st->st_ino) return fd;
    }
    return 0;
}

// cd_cli_output_check for a command where "-" is standard output (dash_ok) or refused: 0, or the
// exit status after the message (2: a path that is never written, 1: one that cannot be).
static int check(const char *cmd, const char *path, int dash_ok)
{
    // What to write instead of a path that is standard output (or another descriptor).
    const char *instead =
        dash_ok ? "write - for standard output" : "expected a file path (this output cannot go to standard output)";
    if (!path[0]) {  // the rename would fail only once all the work is done
        fprintf(stderr, "cdlab %s: '': expected a file path, not empty\n", cmd);
        return 2;
    }
    if (strcmp(path, "-") == 0) {  // the usual name of standard output, never taken for a file named "-"
        fprintf(stderr,
                "cdlab %s: '-': expected a file path (this output cannot go to standard output; ./- names a file "
                "'-')\n",
                cmd);
        return 2;
    }
    if (names_descriptor(path)) {
        fprintf(stderr,
                "cdlab %s: %s names a file descriptor, not a file (the finished file would replace "
                "what it is open on): %s\n",
                cmd, path, instead);
        return 2;
    }
    struct stat st;
    if (stat(path, &st) != 0) {
        if (errno == ENOENT) return 0;  // a new file (or a dangling link, which the rename replaces)
        // A path that cannot be created (a regular file as a directory, a link loop, no search
        // permission) is an output error, exit 1, as a missing directory is when the file is made.
        fprintf(stderr, "cdlab %s: %s: cannot write: %s\n", cmd, path, strerror(errno));
        return 1;
    }
    if (S_ISREG(st.st_mode)) {
        int fd = std_stream_of(&st);
        if (!fd) return 0;
        // `cdlab poses log.txt >>log.txt`: the rename would replace the file the shell appends to.
        fprintf(stderr, "cdlab %s: %s is this command's standard %s (the finished file would replace it): %s\n", cmd,
                path, fd == 1 ? "output" : "error", instead);
        return 2;
    }
    fprintf(stderr, "cdlab %s: %s is %s: expected a regular file or a new path (it is never replaced)\n", cmd, path,
            kind_of(st.st_mode));
    return 2;
}

int cd_cli_output_check(const char *cmd, const char *path) { return check(cmd, path, 0); }

int cd_cli_output_open(cd_cli_output *o, const char *cmd, const char *path)
{
    *o = (cd_cli_output){.f = stdout, .cmd = cmd, .path = path};
    if (!path || strcmp(path, "-") == 0) return 0;
    int rc = check(cmd, path, 1);
    if (rc) return rc;
    char err[512];
    if (cd_file_out_open(&o->file, path, err, sizeof err) != 0) {
        // A path that cannot be written is an output error (exit 1), as a full disk is.
        fprintf(stderr, "cdlab %s: %s: %s\n", cmd, path, err);
        o->f = NULL;
        return 1;
    }
    o->f = o->file.f;
    return 0;
}

int cd_cli_output_close(cd_cli_output *o)
{
    if (!o->file.f) return 0;  // standard output
    char err[4600];
    int rc = cd_file_out_commit(&o->file, err, sizeof err);
    if (rc) fprintf(stderr, "cdlab %s: %s: %s\n", o->cmd, o->path, err);
    o->f = NULL;
    return rc ? 1 : 0;
}

void cd_cli_output_abort(cd_cli_output *o)
{
    cd_file_out_abort(&o->file);
    o->f = NULL;
}

static int stdout_cause;  // the first failed write to standard output a command gave up at (errno)

void cd_cli_output_failed(const cd_cli_output *o, int e)
{
    if (!o->file.f && !stdout_cause) stdout_cause = e;
}

int cd_cli_stdout_cause(void) { return stdout_cause; }
