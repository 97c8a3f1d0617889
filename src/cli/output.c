// SPDX-License-Identifier: MIT
// The files a command writes where the user said (-o, --out, an output argument): one check of the
// target, so no command turns a device, a FIFO or a directory into a regular file by renaming its
// finished output over it.
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
    struct stat st;
    if (stat(path, &st) != 0) {
        if (errno == ENOENT) return 0;  // a new file (or a dangling link, which open makes a file)
        fprintf(stderr, "cdlab %s: %s: cannot write: %s\n", cmd, path, strerror(errno));
        return -1;
    }
    if (S_ISREG(st.st_mode)) return 0;
    fprintf(stderr, "cdlab %s: %s is %s: expected a regular file or a new path (it is never replaced)\n", cmd, path,
            kind_of(st.st_mode));
    return -1;
}

FILE *cd_cli_output_open(const char *cmd, const char *path)
{
    if (cd_cli_output_check(cmd, path)) return NULL;
    FILE *f = fopen(path, "w");
    if (!f) fprintf(stderr, "cdlab %s: %s: cannot open for writing: %s\n", cmd, path, strerror(errno));
    return f;
}

int cd_cli_output_close(const char *cmd, const char *path, FILE *f)
{
    int bad = ferror(f), e = errno;
    if (fclose(f) != 0 && !bad) bad = 1, e = errno;
    if (!bad) return 0;
    fprintf(stderr, "cdlab %s: %s: write error: %s\n", cmd, path, strerror(e ? e : EIO));
    return -1;
}
