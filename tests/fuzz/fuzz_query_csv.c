// SPDX-License-Identifier: MIT
// `cdlab query` on arbitrary CSV: the first byte picks the shape-pair kind, the second the
// algorithm, the rest is the file. Answers go to /dev/null; the exit status is 0 (answered) or 2
// (a bad row, reported with its line).
#include "cli.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const kinds[] = {"tri-tri", "sphere-sphere", "sphere-obb", "obb-obb"};
    static const char *const algos[] = {"exact", "gd", "float"};
    if (size < 2) return 0;
    char *argv[] = {"query", (char *)kinds[data[0] % 4], (char *)fuzz_input_file(data + 2, size - 2, "csv"),
                    "--explain", "--algo", (char *)algos[data[1] % 3], "--out", "/dev/null", NULL};
    int rc = cd_cmd_query(8, argv);
    FUZZ_CHECK(rc == 0 || rc == 2, "exit status %d", rc);
    return 0;
}
