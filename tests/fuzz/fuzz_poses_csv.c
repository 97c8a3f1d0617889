// SPDX-License-Identifier: MIT
// The pose CSV reader ([mesh] poses_file, `cdlab poses`) on arbitrary bytes: rejected files get a
// message naming them, accepted ones give finite poses with a non-zero rotation.
#include "cd_bvh.h"
#include "fuzz_util.h"

#include <math.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cd_pose *p = NULL;
    size_t n = 0;
    char err[1024];
    const char *path = fuzz_input_file(data, size, "csv");
    err[0] = '\0';
    if (cd_poses_read_csv(path, &p, &n, err, sizeof err) == 0) {
        for (size_t i = 0; i < n; ++i) {
            const cd_pose *q = &p[i];
            double norm = q->q.w * q->q.w + q->q.x * q->q.x + q->q.y * q->q.y + q->q.z * q->q.z;
            FUZZ_CHECK(isfinite(norm) && norm > 0 && isfinite(q->t.x) && isfinite(q->t.y) && isfinite(q->t.z),
                       "pose %zu accepted but not finite or with a zero rotation", i);
        }
        cd_free(p);
    } else {
        FUZZ_CHECK(strstr(err, path) != NULL, "the message does not name the file: '%s'", err);
    }
    return 0;
}
