// SPDX-License-Identifier: MIT
// The fuzz targets without libFuzzer: every file under the given files or directories goes once
// through LLVMFuzzerTestOneInput, so the seed corpus and every input that once crashed run in
// the normal test suite (and under ASan there). A crash or sanitizer report fails the test.
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        exit(1);
    }
    size_t cap = 1 << 16, n = 0;
    uint8_t *data = malloc(cap);
    for (size_t k; data && (k = fread(data + n, 1, cap - n, f)) > 0;) {
        n += k;
        if (n == cap) data = realloc(data, cap *= 2);
    }
    fclose(f);
    if (!data) {
        perror("malloc");
        exit(1);
    }
    // A copy of exactly n bytes, so ASan sees a read past the input as libFuzzer would.
    uint8_t *exact = malloc(n ? n : 1);
    memcpy(exact, data, n);
    free(data);
    LLVMFuzzerTestOneInput(exact, n);
    free(exact);
    return 1;
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static size_t replay(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        perror(path);
        exit(1);
    }
    if (!S_ISDIR(st.st_mode)) return replay_file(path);
    DIR *d = opendir(path);
    if (!d) {
        perror(path);
        exit(1);
    }
    char **names = NULL;
    size_t count = 0, done = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        names = realloc(names, sizeof *names * (count + 1));
        size_t len = strlen(path) + strlen(e->d_name) + 2;
        names[count] = malloc(len);
        snprintf(names[count++], len, "%s/%s", path, e->d_name);
    }
    closedir(d);
    qsort(names, count, sizeof *names, by_name);  // same order on every machine
    for (size_t i = 0; i < count; ++i) {
        done += replay(names[i]);
        free(names[i]);
    }
    free(names);
    return done;
}

int main(int argc, char **argv)
{
    size_t n = 0;
    for (int i = 1; i < argc; ++i) n += replay(argv[i]);
    printf("%zu inputs replayed without a crash\n", n);
    if (n == 0) {
        fprintf(stderr, "no inputs found: expected corpus files\n");
        return 1;
    }
    return 0;
}
