// SPDX-License-Identifier: MIT
// The pose CSV reader ([mesh] poses_file, `cdlab poses`) on arbitrary bytes.
#include "cd_bvh.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cd_pose *p = NULL;
    size_t n = 0;
    char err[1024];
    if (cd_poses_read_csv(fuzz_input_file(data, size, "csv"), &p, &n, err, sizeof err) == 0) cd_free(p);
    return 0;
}
