// SPDX-License-Identifier: MIT
// Provenance for meta.ini and `cdlab info`: CPU model and the git state of the source tree.
#include "cd_build_config.h"
#include "cd_harness.h"

#include <stdio.h>
#include <string.h>

void cd_cpu_model(char *buf, size_t len)
{
    snprintf(buf, len, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) != 0) continue;
        char *colon = strchr(line, ':');
        if (!colon) continue;
        colon++;
        while (*colon == ' ' || *colon == '\t') colon++;
        colon[strcspn(colon, "\n")] = '\0';
        snprintf(buf, len, "%s", colon);
        break;
    }
    fclose(f);
}

// First line of a shell command's output ("" when it fails).
static int run_line(const char *cmd, char *buf, size_t len)
{
    buf[0] = '\0';
    FILE *p = popen(cmd, "r");
    if (!p) return -1;
    int got = fgets(buf, (int)len, p) != NULL;
    int rc = pclose(p);
    buf[strcspn(buf, "\n")] = '\0';
    return (got || rc == 0) && rc == 0 ? 0 : -1;
}

void cd_git_describe(char *commit, size_t commit_len, char *dirty, size_t dirty_len)
{
    // Asked at run time, so a rebuilt binary never reports a stale commit; no git is tolerated.
    char cmd[1200], line[200];
    snprintf(cmd, sizeof cmd, "git -C '%s' rev-parse HEAD 2>/dev/null", CD_SOURCE_ROOT);
    if (run_line(cmd, line, sizeof line) || strlen(line) < 7) {
        snprintf(commit, commit_len, "unknown");
        snprintf(dirty, dirty_len, "unknown");
        return;
    }
    snprintf(commit, commit_len, "%s", line);
    snprintf(cmd, sizeof cmd, "git -C '%s' status --porcelain --untracked-files=no 2>/dev/null | head -n 1",
             CD_SOURCE_ROOT);
    if (run_line(cmd, line, sizeof line))
        snprintf(dirty, dirty_len, "unknown");
    else
        snprintf(dirty, dirty_len, "%s", line[0] ? "true" : "false");
}
