// SPDX-License-Identifier: MIT
// A broad phase written the way an outside user writes one: a cdlab plugin built against the
// installed headers (pkg-config cdlab), loaded with `[method] plugin = libexample_grid.so`.
//
// example_grid is a uniform grid without a hash table: every box becomes one (cell, box) entry per
// cell it touches, the entries are sorted by cell, and the boxes of each cell are tested pairwise.
// A pair of boxes that overlap shares several cells; it is reported only in the cell holding the
// lower corner of their intersection (max of the two lower corners, per axis), which both boxes
// touch because the cell index is a monotone function of the coordinate. So every overlapping
// pair is reported exactly once, as cd_broad.h's contract asks.
//
// Built with -DEXAMPLE_GRID_BORDER_BUG it becomes example_grid_border_bug: it tests only boxes
// whose lower corners lie in the same cell, the classic mistake of a grid that forgets neighbours.
// Pairs that straddle a cell border go missing; `cdlab verify` must catch that.
#include <cd_broad.h>
#include <cd_plugin.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifdef EXAMPLE_GRID_BORDER_BUG
#define METHOD_NAME "example_grid_border_bug"
#else
#define METHOD_NAME "example_grid"
#endif

enum { AXIS_BITS = 21 };  // a cell key packs three 21-bit cell indices

typedef struct entry {
    uint64_t cell;  // packed (ix, iy, iz)
    uint32_t box;
} entry;

typedef struct grid {
    double cell_param;  // [method] cell_size; 0: cell_factor × the largest box edge
    double cell_factor;
    double origin[3], inv_cell;
    entry *entries;
    size_t count, capacity;
} grid;

// The method's own parameters: `[method] cell_size` and `[method] cell_factor` in a config, listed
// by `cdlab methods --plugin`, key columns of the run's CSVs. The plan crosses this method only
// with these two.
static const cd_param_spec grid_params[] = {
    {"cell_size", CD_PARAM_REAL, "0", 0, 1e12, NULL, "grid cell side; 0 = cell_factor times the largest box edge"},
    {"cell_factor", CD_PARAM_REAL, "1", 0.5, 64, NULL,
     "with cell_size = 0: the cell side in largest box edges (1: each box touches at most 2 cells per axis)"},
};

static void *grid_create(const cd_params *p, int threads, const cd_scene *s)
{
    (void)s, (void)threads;  // serial
    grid *g = calloc(1, sizeof *g);
    if (!g) abort();
    g->cell_param = cd_params_num(p, "cell_size");
    g->cell_factor = cd_params_num(p, "cell_factor");
    return g;
}

static void grid_destroy(void *self)
{
    grid *g = self;
    free(g->entries);
    free(g);
}

// Cell index of coordinate x on axis a: monotone in x (a subtraction, a product by a positive
// constant and floor), so a box [lo, hi] touches exactly the cells cell(lo) .. cell(hi).
static uint64_t cell_of(const grid *g, int a, float x)
{
    double c = floor(((double)x - g->origin[a]) * g->inv_cell);
    return c < 0 ? 0 : (uint64_t)c;
}

static uint64_t pack(uint64_t x, uint64_t y, uint64_t z) { return x << (2 * AXIS_BITS) | y << AXIS_BITS | z; }

static int by_cell(const void *pa, const void *pb)
{
    const entry *a = pa, *b = pb;
    if (a->cell != b->cell) return a->cell < b->cell ? -1 : 1;
    return (a->box > b->box) - (a->box < b->box);
}

static void push(grid *g, uint64_t cell, uint32_t box)
{
    if (g->count == g->capacity) {
        g->capacity = g->capacity ? 2 * g->capacity : 1024;
        g->entries = realloc(g->entries, g->capacity * sizeof *g->entries);
        if (!g->entries) abort();
    }
    g->entries[g->count++] = (entry){cell, box};
}

static void grid_update(void *self, const cd_scene *s)
{
    grid *g = self;
    g->count = 0;
    if (s->count == 0) return;
    double lo[3], hi[3], edge = 0;
    for (int a = 0; a < 3; ++a) lo[a] = INFINITY, hi[a] = -INFINITY;
    for (uint32_t i = 0; i < s->count; ++i)
        for (int a = 0; a < 3; ++a) {
            lo[a] = fmin(lo[a], s->box[i].lo[a]);
            hi[a] = fmax(hi[a], s->box[i].hi[a]);
            edge = fmax(edge, (double)s->box[i].hi[a] - s->box[i].lo[a]);
        }
    // The cell: the configured size, else the largest box edge (each box then touches at most two
    // cells per axis); never so small that an index needs more than AXIS_BITS bits.
    double cell = g->cell_param > 0 ? g->cell_param : g->cell_factor * edge;
    for (int a = 0; a < 3; ++a) cell = fmax(cell, (hi[a] - lo[a]) / (double)((1u << AXIS_BITS) - 2));
    if (!(cell > 0)) cell = 1;
    g->inv_cell = 1.0 / cell;
    memcpy(g->origin, lo, sizeof lo);
    for (uint32_t i = 0; i < s->count; ++i) {
        const cd_aabbf *b = &s->box[i];
#ifdef EXAMPLE_GRID_BORDER_BUG
        push(g, pack(cell_of(g, 0, b->lo[0]), cell_of(g, 1, b->lo[1]), cell_of(g, 2, b->lo[2])), i);
#else
        for (uint64_t x = cell_of(g, 0, b->lo[0]); x <= cell_of(g, 0, b->hi[0]); ++x)
            for (uint64_t y = cell_of(g, 1, b->lo[1]); y <= cell_of(g, 1, b->hi[1]); ++y)
                for (uint64_t z = cell_of(g, 2, b->lo[2]); z <= cell_of(g, 2, b->hi[2]); ++z)
                    push(g, pack(x, y, z), i);
#endif
    }
    qsort(g->entries, g->count, sizeof *g->entries, by_cell);
}

static void grid_candidates(void *self, const cd_scene *s, cd_pair_sink *sink, cd_broad_stats *st)
{
    grid *g = self;
    for (size_t run = 0, end; run < g->count; run = end) {
        uint64_t cell = g->entries[run].cell;
        for (end = run + 1; end < g->count && g->entries[end].cell == cell;) ++end;
        for (size_t i = run; i < end; ++i)
            for (size_t j = i + 1; j < end; ++j) {
                const cd_aabbf *a = &s->box[g->entries[i].box], *b = &s->box[g->entries[j].box];
                st->bv_tests++;
                if (!cd_aabbf_overlap(a, b)) continue;
                // Report the pair only in the cell of its intersection's lower corner.
                uint64_t home = pack(cell_of(g, 0, fmaxf(a->lo[0], b->lo[0])), cell_of(g, 1, fmaxf(a->lo[1], b->lo[1])),
                                     cell_of(g, 2, fmaxf(a->lo[2], b->lo[2])));
#ifndef EXAMPLE_GRID_BORDER_BUG
                if (home != cell) continue;
#else
                (void)home;  // one entry per box: every pair is met once, in its lower corners' cell
#endif
                cd_sink_push(sink, g->entries[i].box, g->entries[j].box);
            }
    }
}

static void grid_shape_stats(void *self, cd_broad_stats *st)
{
    grid *g = self;
    st->nodes = g->count;
    st->bytes = g->capacity * sizeof *g->entries + sizeof *g;
}

static const cd_broad_method example_grid = {
    .name = METHOD_NAME,
    .description = "example plugin: uniform grid, (cell, box) entries sorted by cell, pairs in the cell of "
                   "their intersection's lower corner",
    .params = grid_params,
    .param_count = sizeof grid_params / sizeof grid_params[0],
    .create = grid_create,
    .update = grid_update,
    .candidates = grid_candidates,
    .shape_stats = grid_shape_stats,
    .destroy = grid_destroy,
    .boxes_tested = 1,  // every candidate passed cd_aabbf_overlap on the scene's boxes
};

static const cd_broad_method *const methods[] = {&example_grid};

CD_PLUGIN_EXPORT const cd_plugin *cdlab_plugin_v1(void)
{
    static const cd_plugin plugin = {CD_PLUGIN_VERSION_FIELDS, .name = METHOD_NAME, .methods = methods,
                                     .method_count = 1};
    return &plugin;
}
