// SPDX-License-Identifier: MIT
// The C API's hello world: a program linked with libcdlab builds the standard cube scene, steps
// it, and runs one of cdlab's broad phases on every frame, checking it against naive.
//
//   PKG_CONFIG_PATH=<prefix>/lib/<triplet>/pkgconfig meson setup build && meson compile -C build
//   build/embed [cubes] [frames]
#include <cd_broad.h>
#include <cd_scene.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// A built-in broad phase by name (cdlab's own; the program links no registry).
static const cd_broad_method *find_method(const char *name)
{
    size_t n;
    const cd_broad_method *const *m = cd_broad_builtin_methods(&n);
    for (size_t i = 0; i < n; ++i)
        if (strcmp(m[i]->name, name) == 0) return m[i];
    return NULL;
}

int main(int argc, char **argv)
{
    cd_scene_params sp = cd_scene_params_default();  // seed 42, density 0.05, speed 0.05, ...
    sp.cubes = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 2000;
    int frames = argc > 2 ? atoi(argv[2]) : 5;
    cd_scene *scene = cd_scene_create(&sp);

    // Each method with its own parameters at their defaults (NULL), on one thread.
    cd_broad *grid = cd_broad_create(find_method("grid_multi"), NULL, 1, scene);
    cd_broad *naive = cd_broad_create(find_method("naive"), NULL, 1, scene);
    cd_pair_list pairs = {0}, reference = {0};
    int status = 0;
    for (int f = 0; f < frames; ++f) {
        cd_scene_step(scene);  // move, reflect at the walls, rotate, refresh the boxes
        cd_broad_stats st;
        cd_frame_times t;
        cd_broad_frame(grid, scene, &pairs, &st, &t);  // update, candidates, exact OBB tests
        cd_broad_frame(naive, scene, &reference, &(cd_broad_stats){0}, NULL);
        cd_pair_list_sort(&pairs);
        cd_pair_list_sort(&reference);
        int same = pairs.count == reference.count &&
                   (pairs.count == 0 || memcmp(pairs.items, reference.items, pairs.count * sizeof *pairs.items) == 0);
        printf("frame %d: %u cubes, %zu overlapping pairs (grid_multi: %llu candidates, %.3f ms), naive %s\n", f,
               scene->count, pairs.count, (unsigned long long)st.candidates, t.broad_ms + t.narrow_ms,
               same ? "agrees" : "DISAGREES");
        status |= !same;
    }
    cd_pair_list_free(&pairs);
    cd_pair_list_free(&reference);
    cd_broad_destroy(grid);
    cd_broad_destroy(naive);
    cd_scene_destroy(scene);
    return status;
}
