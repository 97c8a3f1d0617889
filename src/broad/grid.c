// SPDX-License-Identifier: MIT
// Uniform grid of rows: the (y, z) plane is cut into square cells, each cell is a row along x,
// and each row is kept sorted by lo.x. A box belongs to the row of its low corner. The cell side
// is at least the extent of every "small" box, so two overlapping small boxes sit in rows at most
// one apart on y and on z: each row is swept against itself and its 4 "forward" neighbour rows
// (a half neighbourhood), which finds every overlapping pair exactly once. Within a pair of rows
// the x order bounds the window to test: q can reach p only if q.lo.x ≥ p.lo.x − limit. Boxes
// larger than a cell ("big": only when cell_size is set, or when some boxes are more than twice
// the mean size) are in no row: each is tested against the small boxes of the rows it reaches
// and, sorted by lo.x among themselves, against the big boxes after it that start within its x
// range; again once per pair. Before, each big box was tested against every box: at 100 000 cubes
// of log-uniform sizes 1-20, a seventh of them big, that took 2.9 s a frame.
//
// Rows are f(v) = clamp(floor(v / cell), 0, dim − 1) per axis over the world box. The clamp is
// monotone and never widens a gap, so boxes beyond the walls (anywhere at all) land in border
// rows and the pair set stays exact. Objects are counting-sorted by row every frame into a dense
// array, then insertion-sorted by lo.x inside each row from last frame's order (nearly sorted):
// no hashing, no per-frame malloc.
//
// Rows instead of a 3-D grid of cells (each box against 13 neighbour cells): they cut the per-box
// overhead of visiting mostly empty cells.
//
// A window is tested GRID_LANES boxes at a time (SSE2 compares on the row's coordinate columns),
// not box by box: a window holds 0–3 boxes, and finding its ends one compare-and-branch at a time
// mispredicted about twice per window. The block from the window's start is tested whole (lanes
// outside the window fail the x test), the boxes behind p's window are a prefix of the block
// (the row is sorted by lo.x) whose length advances the start for the next p, and only a window
// longer than a block (crowded scenes) loops.
#include "row_blocks.h"

#include <omp.h>

// Slack between the small-box extent limit and the cell side: floor(v / cell) carries rounding
// error, and the margin keeps two overlapping small boxes within one row of each other. The
// x window uses the same slack for the rounding of lo.x − limit.
#define GRID_MARGIN 1e-6
enum { GRID_MAX_ROWS_PER_OBJECT = 4, GRID_MIN_ROWS = 1024, GRID_MAX_DIM = 1 << 15, GRID_LANES = CD_ROW_LANES };
// A big box queries the rows it reaches (a binary search and a window each) where they number
// fewer than the small boxes over this, else it scans every small box.
enum { GRID_BIG_ROW_COST = 8 };

typedef struct grid {
    double cell_param;      // requested cell side; 0 = auto
    double limit;           // boxes with every extent ≤ limit are small
    double cell, inv_cell;  // cell side (the limit with the margin; also the x window's reach) and its inverse
    uint32_t dim[2];        // rows per axis (y, z) over [0, world]²
    uint32_t n;             // objects the layout was made for (UINT32_MAX = none yet)
    double world;           // world side the layout was made for
    size_t nrows;
    uint32_t *start;     // nrows + 1 offsets into the columns (counting sort)
    int ordered;         // the columns hold last frame's order of the same objects
    cd_row_cols e;       // small objects by row, sorted by lo.x in a row, then bigs, as columns
                         // (one load fills a block's lanes), each padded by GRID_LANES slots
    float *col;          // the allocation of the six coordinate columns
    id_box *next;        // this frame's boxes in last frame's order (scratch)
    uint32_t *next_row;  // their rows; UINT32_MAX for big objects
    uint32_t nsmall, nbig;
    int threads;     // threads of the update ([method] threads)
    uint32_t *hist;  // per-thread row counts, then each thread's next slot per row
    size_t start_cap, row_cap, col_cap, id_cap, next_cap, hist_cap;
    uint64_t max_per_row;
} grid;

static const cd_param_spec grid_params[] = {
    {"cell_size", CD_PARAM_REAL, "0", 0, 1e12, NULL, "grid cell side; 0 = derived from the objects"},
};

static void *grid_create(const cd_params *p, int threads, const cd_scene *s)
{
    (void)s;
    grid *g = cd_alloc_zero(1, sizeof *g);
    g->cell_param = cd_params_num(p, "cell_size");
    g->threads = threads;
    g->n = UINT32_MAX;
    return g;
}

static void grid_destroy(void *self)
{
    grid *g = self;
    cd_free(g->start);
    cd_free(g->hist);
    cd_free(g->next_row);
    cd_free(g->col);
    cd_free(g->e.id);
    cd_free(g->next);
    cd_free(g);
}

// Small-box limit, cell side and dimensions: from the parameter, or from the object extents;
// the cell grows until the dense row array stays within GRID_MAX_ROWS_PER_OBJECT per object.
static void grid_layout(grid *g, const cd_scene *s)
{
    uint32_t n = s->count;
    double limit = small_box_limit(s, g->cell_param);
    // A world side that is not finite and positive (a scene file's is checked on import, see
    // cd_scene_check_world) counts as one cell: cell_coord's clamp keeps the pair set exact for any
    // side. With side and limit finite and positive the loop ends: limit grows by 1.25 per turn
    // until ceil(side / cell) ≤ min(GRID_MAX_DIM, √max_rows), so rows never exceed max_rows.
    double side = isfinite(s->world) && s->world > 0.0 ? s->world : limit;
    double max_rows = fmax((double)GRID_MIN_ROWS, (double)GRID_MAX_ROWS_PER_OBJECT * n);
    for (;;) {
        double d = ceil(side / (limit * (1.0 + GRID_MARGIN)));
        if (d < 1.0) d = 1.0;
        if (d <= GRID_MAX_DIM && d * d <= max_rows) break;
        limit *= 1.25;
    }
    g->limit = limit;
    g->cell = limit * (1.0 + GRID_MARGIN);
    g->inv_cell = 1.0 / g->cell;
    double d = ceil(side / g->cell);
    for (int k = 0; k < 2; ++k) g->dim[k] = d < 1.0 ? 1u : (uint32_t)d;
    g->nrows = (size_t)g->dim[0] * g->dim[1];
    buf_reserve((void **)&g->start, sizeof *g->start, &g->start_cap, g->nrows + 1);
    buf_reserve((void **)&g->next_row, sizeof *g->next_row, &g->row_cap, n);
    // Padding: a block read near the end of the columns stays inside them (its lanes are masked).
    size_t stride = (size_t)n + GRID_LANES;
    buf_reserve((void **)&g->col, sizeof *g->col, &g->col_cap, 6 * stride);
    buf_reserve((void **)&g->e.id, sizeof *g->e.id, &g->id_cap, stride);
    memset(g->col, 0, 6 * stride * sizeof *g->col);
    memset(g->e.id, 0, stride * sizeof *g->e.id);
    cd_row_cols_in(&g->e, g->col, stride);
    buf_reserve((void **)&g->next, sizeof *g->next, &g->next_cap, n);
    g->ordered = 0;
    g->n = n;
    g->world = s->world;
}

// The monotone, clamped cell map of one coordinate (see the file comment).
static inline uint32_t cell_coord(double v, double inv, uint32_t dim)
{
    double t = v * inv;
    if (!(t >= 0.0)) return 0;  // also catches NaN, which the scene never holds
    if (t >= (double)(dim - 1)) return dim - 1;
    return (uint32_t)t;
}

// Counting sort by row, visiting the objects in last frame's order: few objects change row
// between frames, so the count and scatter passes walk the row array almost in order, and only
// the reads of the scene's boxes are scattered (prefetched). With threads, each thread counts a
// contiguous slice into its own histogram and scatters it after the slices before it, so the
// order (and every result) is the serial one.
enum { GRID_PREFETCH = 32, GRID_PARALLEL_MIN = 20000 };

// Slice [k0, k1) of last frame's order: box copies, rows, and counts per row into hist (the big
// boxes counted at hist[nrows]).
static void classify(grid *g, const cd_scene *s, uint32_t k0, uint32_t k1, uint32_t *hist)
{
    uint32_t n = s->count, *row = g->next_row;
    for (uint32_t k = k0; k < k1; ++k) {
        uint32_t id = g->ordered ? g->e.id[k] : k;
        if (g->ordered && k + GRID_PREFETCH < n) __builtin_prefetch(&s->box[g->e.id[k + GRID_PREFETCH]]);
        const cd_aabbf *b = &s->box[id];
        g->next[k] = id_box_from(b, id);
        if (aabbf_max_extent(b) > g->limit) {
            row[k] = UINT32_MAX;
            hist[g->nrows]++;
            continue;
        }
        uint32_t y = cell_coord(b->lo[1], g->inv_cell, g->dim[0]), z = cell_coord(b->lo[2], g->inv_cell, g->dim[1]);
        uint32_t r = z * g->dim[0] + y;
        row[k] = r;
        hist[r]++;
    }
}

// Turn the nt histograms into each slice's first slot per row (rows in order, slices in order
// inside a row, then the big boxes), and fill start[].
static void place_slices(grid *g, uint32_t *hist, int nt)
{
    size_t stride = g->nrows + 1;
    uint32_t at = 0, most = 0;
    for (size_t r = 0; r < g->nrows; ++r) {
        g->start[r] = at;
        uint32_t before = at;
        for (int t = 0; t < nt; ++t) {
            uint32_t c = hist[t * stride + r];
            hist[t * stride + r] = at;
            at += c;
        }
        if (at - before > most) most = at - before;
    }
    g->nsmall = at;
    g->start[g->nrows] = at;
    for (int t = 0; t < nt; ++t) {
        uint32_t c = hist[t * stride + g->nrows];
        hist[t * stride + g->nrows] = at;
        at += c;
    }
    g->nbig = at - g->nsmall;
    g->max_per_row = most;
}

static void grid_update(void *self, const cd_scene *s)
{
    grid *g = self;
    uint32_t n = s->count;
    if (n != g->n || s->world != g->world) grid_layout(g, s);
    int threads = g->threads > 1 && n >= GRID_PARALLEL_MIN ? g->threads : 1;
    size_t stride = g->nrows + 1;
    buf_reserve((void **)&g->hist, sizeof *g->hist, &g->hist_cap, (size_t)threads * stride);
    int nt = 1;
#pragma omp parallel num_threads(threads) if (threads > 1)
    {
        int t = omp_get_thread_num();
#pragma omp single
        nt = omp_get_num_threads();
        uint32_t k0 = (uint32_t)((uint64_t)n * t / nt), k1 = (uint32_t)((uint64_t)n * (t + 1) / nt);
        uint32_t *hist = g->hist + t * stride, *row = g->next_row;
        memset(hist, 0, stride * sizeof *hist);
        classify(g, s, k0, k1, hist);
#pragma omp barrier
#pragma omp single
        place_slices(g, g->hist, nt);
        for (uint32_t k = k0; k < k1; ++k)
            cd_row_put(&g->e, hist[row[k] == UINT32_MAX ? g->nrows : row[k]]++, &g->next[k]);
#pragma omp barrier
#pragma omp for schedule(static)
        for (size_t r = 0; r < g->nrows; ++r) cd_row_sort(&g->e, g->start[r], g->start[r + 1] - g->start[r]);
    }
    if (g->ordered)  // the big boxes by lo.x, for their sweep among themselves
        cd_row_sort(&g->e, g->nsmall, g->nbig);
    else
        cd_row_sort_fresh(&g->e, g->nsmall, g->nbig);
    g->ordered = 1;
}

// The lanes of a block at q that lie inside a row ending at end (q < end).
static inline unsigned lanes_in(uint32_t q, uint32_t end)
{
    return end - q >= GRID_LANES ? (1u << GRID_LANES) - 1 : (1u << (end - q)) - 1;
}

// Box a against slots [q, end) from block q on, while the blocks lie in its x window (sorted by
// lo.x, a block whose last box starts beyond a's hi.x ends it); returns the boxes tested.
static inline uint64_t test_blocks(const grid *g, const cd_row_probe *a, uint32_t q, uint32_t end, cd_pair_sink *sink)
{
    uint64_t tests = 0;
    for (;; q += GRID_LANES) {
        unsigned in = lanes_in(q, end), hits = cd_row_block_hits(&g->e, a, q) & in;
        if (hits) cd_row_emit(g->e.id, UINT32_MAX, a->id, q, hits, sink);
        if (in != (1u << GRID_LANES) - 1) return tests + (end - q);
        tests += GRID_LANES;
        if (q + GRID_LANES == end || g->e.lo[0][q + GRID_LANES - 1] > a->hi[0]) return tests;
    }
}

// Row r against itself and its forward half neighbourhood: (y+1, z), (y−1, z+1), (y, z+1),
// (y+1, z+1). Each p (in lo.x order) is tested against the rest of its row and, in each
// neighbour row, against the boxes from that row's j on, where the boxes before j lie wholly
// before p's window: lo.x < p.lo.x − reach (rounded down to a float, so the skip is safe), hence
// hi.x < p.lo.x for boxes within the limit. A j only moves forward, by the prefix of the block at j
// that lies before the window (rows are sorted by lo.x). One pass over p serves the five rows, so
// p's lanes and window start are set up once.
static uint64_t sweep_row(const grid *g, size_t r, cd_pair_sink *sink)
{
    static const int near[4][2] = {{1, 0}, {-1, 1}, {0, 1}, {1, 1}};
    const uint32_t *start = g->start;
    uint32_t dy = g->dim[0], dz = g->dim[1];
    uint32_t a0 = start[r], a1 = start[r + 1];
    int64_t y = (int64_t)(r % dy), z = (int64_t)(r / dy);
    uint32_t j[4], end[4];
    int nt = 0;
    for (int k = 0; k < 4; ++k) {
        int64_t ny = y + near[k][0], nz = z + near[k][1];
        if (ny < 0 || ny >= dy || nz >= dz) continue;
        size_t nr = (size_t)nz * dy + (size_t)ny;
        if (start[nr] == start[nr + 1]) continue;
        j[nt] = start[nr], end[nt] = start[nr + 1];
        ++nt;
    }
    uint64_t tests = 0;
    for (uint32_t p = a0; p < a1; ++p) {
        cd_row_probe a = cd_row_probe_of(&g->e, p);
        if (p + 1 < a1) tests += test_blocks(g, &a, p + 1, a1, sink);
        float from = cd_float_below((double)a.lo[0] - g->cell);
        for (int k = 0; k < nt; ++k) {
            uint32_t q = j[k], e = end[k];
            // Skip whole blocks before p's window (sparse rows), then the before-prefix of the
            // block that reaches it. A row wholly before p's window is before every later one too.
            unsigned before = 0;
            while (q < e) {
                unsigned in = lanes_in(q, e);
                before = cd_row_block_before(&g->e, q, from) & in;
                if (before != in) break;
                q += e - q < GRID_LANES ? e - q : GRID_LANES;  // the whole block
            }
            if (q < e) q += (uint32_t)__builtin_ctz(~before);
            j[k] = q;
            if (q < e) tests += test_blocks(g, &a, q, e, sink);
        }
    }
    return tests;
}

// Rows [r0, r1).
static uint64_t sweep_rows(const grid *g, size_t r0, size_t r1, cd_pair_sink *sink)
{
    uint64_t tests = 0;
    for (size_t r = r0; r < r1; ++r)
        if (g->start[r] < g->start[r + 1]) tests += sweep_row(g, r, sink);
    return tests;
}

// Box p (big) against slots [q0, q1), one at a time: big boxes are rare outliers.
static uint64_t test_span(const grid *g, uint32_t p, uint32_t q0, uint32_t q1, cd_pair_sink *sink)
{
    id_box a = cd_row_get(&g->e, p);
    for (uint32_t q = q0; q < q1; ++q) {
        id_box b = cd_row_get(&g->e, q);
        if (id_box_overlap(&a, &b)) cd_sink_push(sink, a.id, b.id);
    }
    return q1 > q0 ? q1 - q0 : 0;
}

// Big box p (its probe pa) against the small boxes: those of the rows its box reaches, each from the first slot
// whose lo.x reaches p's x range, or every small box where those rows would cost more. A small box
// q that overlaps p has q.lo ≥ p.lo − cell on every axis (its extent is within the limit, and the
// cell carries the margin), so its row lies in the rectangle of cell_coord(p.lo − cell) to
// cell_coord(p.hi) on y and z (the map is monotone), and in its row it starts at or after the
// first slot with lo.x ≥ p.lo.x − cell (rows are sorted by lo.x); test_blocks stops past p's hi.x.
// Each small box is in one row, so each pair comes once.
static uint64_t big_against_rows(const grid *g, uint32_t p, const cd_row_probe *pa, cd_pair_sink *sink)
{
    const cd_row_probe a = *pa;
    uint32_t lo[2], hi[2];
    for (int k = 0; k < 2; ++k) {
        lo[k] = cell_coord((double)cd_float_below((double)a.lo[k + 1] - g->cell), g->inv_cell, g->dim[k]);
        hi[k] = cell_coord((double)a.hi[k + 1], g->inv_cell, g->dim[k]);
    }
    uint64_t rows = (uint64_t)(hi[0] - lo[0] + 1) * (hi[1] - lo[1] + 1);
    if (rows * GRID_BIG_ROW_COST >= g->nsmall) return test_span(g, p, 0, g->nsmall, sink);
    float from = cd_float_below((double)a.lo[0] - g->cell);
    const float *x = g->e.lo[0];
    uint64_t tests = 0;
    for (uint32_t z = lo[1]; z <= hi[1]; ++z)
        for (uint32_t y = lo[0]; y <= hi[0]; ++y) {
            size_t r = (size_t)z * g->dim[0] + y;
            uint32_t q = g->start[r], e = g->start[r + 1];
            while (q < e) {  // the first slot with lo.x ≥ from
                uint32_t mid = q + (e - q) / 2;
                if (x[mid] < from)
                    q = mid + 1;
                else
                    e = mid;
            }
            if (q < g->start[r + 1]) tests += test_blocks(g, &a, q, g->start[r + 1], sink);
        }
    return tests;
}

// Part `part` of `parts`: a contiguous range of rows, and every parts-th big box.
static void grid_candidates_part(void *self, const cd_scene *s, uint32_t part, uint32_t parts, cd_pair_sink *sink,
                                 cd_broad_stats *st)
{
    (void)s;
    grid *g = self;
    size_t r0 = g->nrows * part / parts, r1 = g->nrows * (part + 1) / parts;
    uint64_t tests = sweep_rows(g, r0, r1, sink);
    // Big boxes against the small boxes of the rows they reach, and against the bigs after them
    // in lo.x order (grid_update sorts them) while those start within their x range.
    uint32_t end = g->nsmall + g->nbig;
    for (uint32_t p = g->nsmall + part; p < end; p += parts) {
        cd_row_probe a = cd_row_probe_of(&g->e, p);
        tests += big_against_rows(g, p, &a, sink);
        if (p + 1 < end) tests += test_blocks(g, &a, p + 1, end, sink);
    }
    st->bv_tests += tests;
}

static void grid_candidates(void *self, const cd_scene *s, cd_pair_sink *sink, cd_broad_stats *st)
{
    grid_candidates_part(self, s, 0, 1, sink, st);
}

static void grid_shape_stats(void *self, cd_broad_stats *st)
{
    grid *g = self;
    st->nodes = g->nrows;
    st->bytes = sizeof *g + (g->start_cap + g->hist_cap) * sizeof *g->start + g->row_cap * sizeof *g->next_row +
                g->col_cap * sizeof *g->col + g->id_cap * sizeof *g->e.id + g->next_cap * sizeof *g->next;
    st->max_per_node = g->max_per_row;
    st->per_level[0] = g->nsmall;  // objects in rows
    st->per_level[1] = g->nbig;    // big objects: in no row
}

// Each row holding a small box: its (y, z) cell (border rows reach as far as their boxes do) over
// the x range of its boxes. Big boxes are in no row.
static void grid_cells(void *self, const cd_scene *s, cd_broad_cell_fn each, void *ctx)
{
    (void)s;
    const grid *g = self;
    if (g->n == UINT32_MAX) return;
    for (size_t r = 0; r < g->nrows; ++r) {
        uint32_t a = g->start[r], b = g->start[r + 1];
        if (a == b) continue;
        uint32_t y = (uint32_t)(r % g->dim[0]), z = (uint32_t)(r / g->dim[0]);
        cd_aabb box = {cd_v3(INFINITY, y * g->cell, z * g->cell),
                       cd_v3(-INFINITY, (y + 1) * g->cell, (z + 1) * g->cell)};
        for (uint32_t i = a; i < b; ++i) {
            box.lo.x = fmin(box.lo.x, g->e.lo[0][i]);
            box.hi.x = fmax(box.hi.x, g->e.hi[0][i]);
            if (y == 0) box.lo.y = fmin(box.lo.y, g->e.lo[1][i]);
            if (y + 1 == g->dim[0]) box.hi.y = fmax(box.hi.y, g->e.hi[1][i]);
            if (z == 0) box.lo.z = fmin(box.lo.z, g->e.lo[2][i]);
            if (z + 1 == g->dim[1]) box.hi.z = fmax(box.hi.z, g->e.hi[2][i]);
        }
        each(ctx, &box, 0);
    }
}

const cd_broad_method cd_broad_grid = {
    .name = "grid",
    .description = "uniform grid of rows on low corners (y, z cells, each row swept along x), cell from the object "
                   "extents (or cell_size); bigger boxes query the rows they reach",
    .params = grid_params,
    .param_count = sizeof grid_params / sizeof grid_params[0],
    .create = grid_create,
    .update = grid_update,
    .candidates = grid_candidates,
    .boxes_tested = 1,
    .candidates_part = grid_candidates_part,
    .shape_stats = grid_shape_stats,
    .cells = grid_cells,
    .destroy = grid_destroy,
};
