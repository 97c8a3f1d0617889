// SPDX-License-Identifier: MIT
// Provenance for meta.ini and `cdlab info`: CPU model, the git state of the source tree, and the
// check of a file against the size and SHA-256 its run recorded.
#include "cd_build_config.h"
#include "cd_harness_cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The value of the first /proc/cpuinfo line whose key is `key` (up to the colon), or "".
static void cpuinfo_value(const char *text, const char *key, char *out, size_t len)
{
    out[0] = '\0';
    size_t klen = strlen(key);
    for (const char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        if (strncmp(line, key, klen) != 0) continue;
        const char *v = line + klen;
        while (*v == ' ' || *v == '\t') ++v;
        if (*v != ':') continue;  // a longer key ("model name" for "model")
        for (++v; *v == ' ' || *v == '\t'; ++v) {}
        size_t n = strcspn(v, "\n");
        snprintf(out, len, "%.*s", (int)(n < len ? n : len - 1), v);
        return;
    }
}

// The model name with the family, model and stepping numbers: virtual machines often show a
// generic name ("AMD EPYC"), and the numbers still tell the generation.
void cd_cpu_model(char *buf, size_t len)
{
    snprintf(buf, len, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char text[8192];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    char name[256], family[32], model[32], stepping[32];
    cpuinfo_value(text, "model name", name, sizeof name);
    cpuinfo_value(text, "cpu family", family, sizeof family);
    cpuinfo_value(text, "model", model, sizeof model);
    cpuinfo_value(text, "stepping", stepping, sizeof stepping);
    if (!name[0]) return;
    if (family[0] && model[0])
        snprintf(buf, len, "%s (family %s, model %s%s%s)", name, family, model, stepping[0] ? ", stepping " : "",
                 stepping);
    else
        snprintf(buf, len, "%s", name);
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

// Whether bytes and sha (what path holds now) are want_bytes and want_sha: 0, or -1 with err.
static int file_matches(const char *path, uint64_t bytes, const char *sha, const char *want_bytes, const char *want_sha,
                        char *err, size_t len)
{
    if (strtoull(want_bytes, NULL, 10) != bytes)
        snprintf(err, len, "%s: %llu bytes, but its run wrote %s (meta.ini [files]): cut short or changed since", path,
                 (unsigned long long)bytes, want_bytes);
    else if (strcmp(sha, want_sha) != 0)
        snprintf(err, len, "%s: SHA-256 %s, but its run wrote %s (meta.ini [files]): changed since", path, sha,
                 want_sha);
    else
        return 0;
    return -1;
}

int cd_run_file_check(const char *path, const char *want_bytes, const char *want_sha, char *err, size_t len)
{
    char sha[65];
    uint64_t bytes;
    int e = cd_sha256_file(path, sha, &bytes);
    if (e) {
        snprintf(err, len, "%s: %s", path, strerror(e));
        return -1;
    }
    return file_matches(path, bytes, sha, want_bytes, want_sha, err, len);
}

int cd_run_text_check(const char *path, const char *text, size_t n, const char *want_bytes, const char *want_sha,
                      char *err, size_t len)
{
    char sha[65];
    cd_sha256_hex(text, n, sha);
    return file_matches(path, n, sha, want_bytes, want_sha, err, len);
}
