// SPDX-License-Identifier: MIT
// The scene CSV import ([scene] import) on arbitrary bytes; an imported scene takes one step.
#include "cd_scene.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[1024];
    cd_scene *s = cd_scene_import_csv(fuzz_input_file(data, size, "csv"), err, sizeof err);
    if (s) {
        cd_scene_step(s);
        cd_scene_destroy(s);
    }
    return 0;
}
