// SPDX-License-Identifier: MIT
// Mesh file -> hierarchy -> pair query: a mesh the reader accepts goes through every hierarchy
// variant (normalised as the mesh kind does) and an all-pairs query against itself at a pose
// drawn from the input, which must report exactly the brute-force pair set (small meshes) and
// never a pair that does not intersect.
#include "cd_bvh.h"
#include "cd_mesh.h"
#include "fuzz_util.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 9) return 0;
    uint64_t seed;
    memcpy(&seed, data, sizeof seed);
    double distance = (double)(data[8] % 32) / 8.0;  // 0 .. 3.875: touching to apart
    data += 9, size -= 9;
    cd_mesh m;
    char err[2048];
    if (cd_mesh_read(fuzz_input_file(data, size, fuzz_mesh_extension(data, size)), &m, err, sizeof err)) return 0;
    cd_mesh_normalize(&m);
    cd_pose pose;
    cd_poses_generate(seed, distance, 1, &pose);
    cd_bvh_result want = {0}, got = {0};
    int small = m.ntris <= 2000;
    if (small) {
        cd_bvh_brute_force(&m, &m, &pose, &want);
        cd_bvh_result_sort(&want);
    }
    for (const cd_bvh_variant *v = cd_bvh_variants; v->name; ++v) {
        cd_bvh_plan plan = cd_bvh_variant_plan(v, NULL);
        cd_bvh *h = cd_bvh_build(&m, &plan, 1 + (uint32_t)(seed % 4));
        cd_bvh_query(h, h, &pose, CD_BVH_ALL_PAIRS, &got);
        cd_bvh_result_sort(&got);
        FUZZ_CHECK(!small || (got.count == want.count &&
                              (!got.count || memcmp(got.pairs, want.pairs, got.count * sizeof *got.pairs) == 0)),
                   "%s: %zu pairs, brute force %zu", v->name, got.count, want.count);
        cd_bvh_destroy(h);
    }
    cd_bvh_result_free(&want);
    cd_bvh_result_free(&got);
    cd_mesh_free(&m);
    return 0;
}
