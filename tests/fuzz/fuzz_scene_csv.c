// SPDX-License-Identifier: MIT
// The scene CSV import on arbitrary bytes: rejected files get a message naming them; an imported
// scene takes one step, after which every cube's box encloses its centre.
#include "cd_scene.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[1024];
    const char *path = fuzz_input_file(data, size, "csv");
    err[0] = '\0';
    cd_scene *s = cd_scene_import_csv(path, err, sizeof err);
    if (s) {
        cd_scene_step(s);
        for (uint32_t i = 0; i < s->count; ++i) {
            cd_aabb box = cd_scene_aabb(s, i);
            cd_vec3 c = cd_scene_center(s, i);
            FUZZ_CHECK(box.lo.x <= c.x && c.x <= box.hi.x && box.lo.y <= c.y && c.y <= box.hi.y && box.lo.z <= c.z &&
                           c.z <= box.hi.z,
                       "cube %u's box does not enclose its centre", i);
        }
        cd_scene_destroy(s);
    } else {
        FUZZ_CHECK(strstr(err, path) != NULL, "the message does not name the file: '%s'", err);
    }
    return 0;
}
