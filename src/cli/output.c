// SPDX-License-Identifier: MIT
// The files a command writes where the user said (-o, --out, an output argument): one check of the
// target, so no command turns a device, a FIFO or a directory into a regular file by renaming its
// finished output over it, and one way to write it (a temporary file renamed over it when
// complete, so a failure leaves no half-written file and an existing one untouched).
#include "cli.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

static const char *kind_of(mode_t m)
{
    return S_ISDIR(m)    ? "a directory"
           : S_ISCHR(m)  ? "a character device"
           : S_ISBLK(m)  ? "a block device"
           : S_ISFIFO(m) ? "a FIFO"
           : S_ISSOCK(m) ? "a socket"
                         : "not a regular file";
}

int cd_cli_output_check(const char *cmd, const char *path)
{
    if (strcmp(path, "-") == 0) {  // the usual name of standard output, never taken for a file named "-"
        fprintf(stderr,
                "cdlab %s: '-': expected a file path (this output cannot go to standard output; ./- names a file "
                "'-')\n",
                cmd);
        return -1;
    }
    struct stat st;
    if (stat(path, &st) != 0) {
        if (errno == ENOENT) return 0;  // a new file (or a dangling link, which the rename replaces)
        fprintf(stderr, "cdlab %s: %s: cannot write: %s\n", cmd, path, strerror(errno));
        return -1;
    }
    if (S_ISREG(st.st_mode)) return 0;
    fprintf(stderr, "cdlab %s: %s is %s: expected a regular file or a new path (it is never replaced)\n", cmd, path,
            kind_of(st.st_mode));
    return -1;
}

int cd_cli_output_open(cd_cli_output *o, const char *cmd, const char *path)
{
    *o = (cd_cli_output){.f = stdout, .cmd = cmd, .path = path};
    if (!path || strcmp(path, "-") == 0) return 0;
    if (cd_cli_output_check(cmd, path)) return 2;
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
