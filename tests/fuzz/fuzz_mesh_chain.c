// SPDX-License-Identifier: MIT
// Mesh file -> hierarchy -> pair query: a mesh the reader accepts goes through every hierarchy
// variant (normalised as the mesh kind does) and a query against itself at a pose drawn from the
// input. A small mesh is queried for all pairs, which must be exactly the brute-force pair set; a
// larger one for the first hit, on which every variant must agree. The bound keeps each input's
// work linear in its size: a few hundred bytes of polygon lists make over a thousand triangles,
// and all pairs of a mesh against itself then runs millions of exact (mostly degenerate, so
// expansion-arithmetic) triangle tests per variant, tens of seconds under the sanitizers.
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
    int small = m.ntris <= 300;
    if (small) {
        cd_bvh_brute_force(&m, &m, &pose, &want);
        cd_bvh_result_sort(&want);
    }
    int first_overlap = -1;  // large meshes: the first variant's first-hit answer
    for (const cd_bvh_variant *v = cd_bvh_variants; v->name; ++v) {
        cd_bvh_plan plan = cd_bvh_variant_plan(v, NULL);
        cd_bvh *h = cd_bvh_build(&m, &plan, 1 + (uint32_t)(seed % 4));
        if (small) {
            cd_bvh_query(h, h, &pose, CD_BVH_ALL_PAIRS, &got);
            cd_bvh_result_sort(&got);
            FUZZ_CHECK(got.count == want.count &&
                           (!got.count || memcmp(got.pairs, want.pairs, got.count * sizeof *got.pairs) == 0),
                       "%s: %zu pairs, brute force %zu", v->name, got.count, want.count);
        } else {
            cd_bvh_query(h, h, &pose, CD_BVH_FIRST_HIT, &got);
            if (first_overlap < 0) first_overlap = got.overlap;
            FUZZ_CHECK(got.overlap == first_overlap, "%s: first hit says %d, %s says %d", v->name, got.overlap,
                       cd_bvh_variants[0].name, first_overlap);
        }
        cd_bvh_destroy(h);
    }
    cd_bvh_result_free(&want);
    cd_bvh_result_free(&got);
    cd_mesh_free(&m);
    return 0;
}
