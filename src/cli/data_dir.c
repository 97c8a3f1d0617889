// SPDX-License-Identifier: MIT
// Where the program's data lives (plot scripts, shipped configs): found from the program's own
// path, never from a path compiled in, so an installed tree works wherever its prefix is.
#include "cd_build_config.h"
#include "cli.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int cd_cli_data_dir(const char *what, char *out, size_t len)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return -1;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash) return -1;
    *slash = '\0';
    // Installed: <prefix>/<bindir>/cdlab next to <prefix>/<datadir>/cdlab/<what>.
    snprintf(out, len, "%s/%s/%s", exe, CD_BIN_TO_DATA, what);
    if (is_dir(out)) return 0;
    // Not installed: the program of a build tree reads the data of the sources it was built from.
    char build[PATH_MAX];
    size_t b = realpath(CD_BUILD_ROOT, build) ? strlen(build) : 0;
    if (b && strncmp(exe, build, b) == 0 && exe[b] == '/') {
        snprintf(out, len, "%s/%s", CD_SOURCE_ROOT, what);
        if (is_dir(out)) return 0;
    }
    snprintf(out, len, "%s/%s/%s", exe, CD_BIN_TO_DATA, what);
    return -1;
}
