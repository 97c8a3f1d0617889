// SPDX-License-Identifier: MIT
// Uniform grid of rows with multiple insertion: the (y, z) plane is cut into square cells, each
// cell a row along x kept sorted by lo.x, and a box goes into every row its y and z ranges reach
// (at most 2 × 2; a box reaching three rows on an axis is "big": it is not put in rows but queried
// against each row it reaches, see big_row_pairs, and scanned against the other big ones). Two small
// boxes overlap only if they share a row, so each row is swept against itself alone: from each
// box forward while lo.x ≤ its hi.x, CD_ROW_LANES boxes per block test. A pair that shares
// several rows is reported only in the row of (max lo.y, max lo.z) of the two boxes: a point of
// both boxes, hence in a row holding both, and in one row only (two flags per slot decide it in
// the lanes, see STARTS_Y).
//
// Against grid (each box in one row, swept against its own row and four neighbour rows), no
// window has to find its start in another row, which was most of grid's candidate time; the price
// is about 1.5 slots per box (cell = 3.5 × the largest extent).
//
// Rows keep last frame's order: a box that stays in a row keeps its place there (the scatter walks
// last frame's rows in order), an insertion sort mends the few neighbours that swapped, and a box
// new to a row is inserted at its place. Each non-empty row is followed by GM_PAD pad slots (lo.x =
// +inf), so a block never reads another row and no lane needs masking. The row map (span_of) is
// monotone and clamped, so boxes beyond the walls stay exact (as in grid). With threads, each phase
// splits its input into contiguous slices whose results are placed in slice order: every result is
// the serial one.
//
// x, y and z above are the rows' axes: the rows run along x, or along whichever scene axis
// axis_watch (or the axis parameter) names, the two others making the cells (grid_multi.ax). Any
// axis gives the same pairs; the choice decides how many boxes change rows each frame.
//
// While few objects move, frames are coherent: the frame keeps last frame's pairs and only the
// pairs with a moved object are found, against static rows built once ("Coherent frames" below).
#include "row_blocks.h"

#include <math.h>
#include <omp.h>
#include <stdatomic.h>

// The *_avx2 and *_wide (AVX-512) functions are built; each runs where grid_multi.simd says so,
// else its portable twin. Every twin computes the same spans, ids, columns, pairs (in the same
// order) and box tests, so the software counters do not depend on the path.
#define GM_WIDE CD_X86_SIMD
#if GM_WIDE
#include "cd_transpose.h"
#endif

enum { GM_SSE2, GM_AVX2, GM_AVX512 };  // grid_multi.simd

enum {
    GM_WIDE_LANES = 8,       // boxes per block of sweep_row_wide and sweep_row_avx2
    GM_PAD = GM_WIDE_LANES,  // pads after a row: enough for every sweep's blocks
    GM_MOVED_PAD = 3,        // bytes after moved[]: place_kept_wide and _avx2 read four bytes per object
    GM_MIN_ROWS = 1024,
    GM_MAX_DIM = 1 << 15,  // a row coordinate fits a span's 15 bits
    GM_PARALLEL_MIN = 20000,
    GM_PREFETCH = 64,
    GM_QUERY_AHEAD = 96,  // coh_prefetch
    GM_QUERY_DENSE = 16,
    GM_COUNT_AHEAD = 8,  // blocks of sixteen boxes count_share_wide prefetches ahead (3 KiB)
    GM_MAX_THREADS = CD_PART_QUEUE_MAX_THREADS,
};

// Cell side = GM_CELL_FACTOR × the small-box limit (the largest extent, at most 2× the mean). A
// larger cell puts a box in fewer rows but makes windows longer; eight-lane blocks
// (sweep_row_wide) make long windows cheap, and 3.5 was the fastest of 1.5 .. 4 at 10⁵ and 10⁶
// cubes (the measurements are in the commit that chose it). A unit cube is then in about 1.5 rows.
#define GM_CELL_FACTOR 3.5

// Dense scenes want smaller cells: a row's window grows with the boxes in its cross-section (the
// cell's square), while the slots per box shrink only from about 1.5 towards 1 as cells grow. Where
// the box tests per slot of a full frame (the mean window, with the big boxes' row queries) pass
// GM_WINDOW_LONG, cell_watch scales the cell by sqrt(GM_WINDOW_AIM / that) and lays the rows out
// anew, never below GM_CELL_SCALE_MIN times the auto cell (back towards it below GM_WINDOW_SHORT).
// Measured on the 2-vCPU Intel Xeon guest (broad phase, cell_size fixed): uniform scenes hold 4
// tests a slot at the auto cell and are fastest there; Bullet's gravity ball (10 000) holds 14 and
// took 0.48 ms against 0.36 at 0.58 of the auto cell; the level layout (its slabs' row queries) 11,
// 0.227 against 0.188 at 0.74; the clustered layout 15 and 20 (10 000, 100 000 cubes), flat from 0.57
// to 1 at 10 000 (0.27 ms) and at 100 000 3.27 ms at 1, 2.90 at 0.66, 3.05 at 0.59, worse again when
// the steps went on to 0.47: hence the floor at 0.6.
#define GM_WINDOW_LONG 10.0
#define GM_WINDOW_SHORT 3.5
#define GM_WINDOW_AIM 7.0
#define GM_CELL_SCALE_MIN 0.6
// Full frames between two changes of the cell: a new layout sorts every row afresh (Bullet's
// gravity ball at 10 000 boxes: about 0.5 ms more than its 0.9 ms frame), which one frame's saving
// (about 0.1 ms) repays only over several frames, while a collapsing scene's windows grow each frame.
#define GM_CELL_HOLD 32

// A small box's rows: y0 | z0 << 15 | (reaches y0 + 1) << 30 | (reaches z0 + 1) << 31. SPAN_BIG
// cannot be one (y0 + 1 would be row 32768).
#define SPAN_BIG UINT32_MAX

// A slot's id column holds the object id and two flags: STARTS_Y when the box's first row on y is
// this row's, STARTS_Z the same on z. The row of (max lo.y, max lo.z) of two boxes sharing a row is
// that row exactly when one of them starts there on y and one on z (the later start decides), so
// the pair test checks the flags in its lanes and no shared pair reaches the branch twice.
#define STARTS_Y (1u << 30)
#define STARTS_Z (1u << 31)
#define ID_MASK (STARTS_Y - 1)

// One part's slots as columns, slot k of the frame at k − base: the boxes are gathered into it,
// sorted and swept while it stays in this core's L2. The columns live only for that: next frame
// starts again from the ids. Frame-wide columns would be written and read back every frame (4 MB
// at 100 000 cubes, the size of a small last-level cache).
typedef struct gm_scratch {
    float *col;  // six columns of col_cap / 6 slots: lo x y z, hi x y z (the ids stay in grid_multi.id)
    size_t col_cap;
} gm_scratch;

// A static row's x index: its buckets coh_bucket(x) = 0 .. nb − 1 and, at st_first[off + b], the
// first slot of the row whose prefix maximum of hi.x falls in bucket b or later.
typedef struct coh_row_index {
    float x0, inv;  // bucket of x: trunc((x − x0) · inv), clamped to [0, nb − 1]
    uint32_t off, nb;
} coh_row_index;

typedef struct grid_multi {
    double cell_param;   // requested cell side; 0 = auto
    double cell_scale;   // auto cells: the factor cell_watch set on GM_CELL_FACTOR × the small-box limit
    uint32_t cell_hold;  // full frames before cell_watch may change it again
    int axis_param;      // the row axis asked for (0, 1, 2), or -1: auto (axis_watch)
    uint8_t ax[3];       // the axis rows run along (the rows' x: column 0, the sweep's), then the two cell
                         // axes (the rows' y and z), cyclic: x (y, z), y (z, x), z (x, y). Every box
                         // read from the scene goes through it; the rest of the file speaks of x, y, z
                         // as the rows see them.
    uint16_t *ax_cell;   // axis_watch: per sampled object (every ax_stride-th), its cell on x, y, z
    size_t ax_cell_cap;
    uint32_t ax_stride, ax_samples;  // ax_samples 0: no sample to compare with
    uint32_t ax_frames;              // frames summed in ax_cross
    uint64_t ax_cross[3];            // sampled objects whose cell changed, per axis, over ax_frames frames
    float inv_cell;                  // the row map works in float: any monotone map of the coordinates is exact here
    uint32_t dim[2];                 // rows per axis (y, z): the square grid's side, or fewer where the objects
                                     // reach only the first rows of an axis (a layer on the ground)
    uint32_t side;                   // the square grid's side (rows per axis before the layer cut)
    uint32_t n;                      // objects the layout was made for (UINT32_MAX = none yet)
    double world;
    size_t nrows;
    int threads;
    int simd;                     // GM_AVX512: the *_wide functions (cd_cpu_avx512); GM_AVX2: the
                                  // *_avx2 ones (cd_cpu_avx2); GM_SSE2: their portable twins
    int ordered;                  // this frame: old_* hold last frame's rows of the same objects
    int rows_made;                // rows exist for the current layout (next frame's old_*)
    uint32_t *start, *old_start;  // nrows + 1 slot offsets: a row's boxes, then GM_PAD pads if any
    uint32_t *kept_len;           // per row: boxes kept from last frame (the rest are new to it)
    uint32_t *span, *old_span;    // per object: its rows, or SPAN_BIG
    uint8_t *moved;               // per object: 1 when its rows differ from last frame's (bytes, not
                                  // bits: threads write neighbouring objects)
    uint32_t *todo;               // per thread, from its first object on: its moved and big objects
    uint32_t *id, *old_id;        // this and last frame's slot ids (with flags), row by row; every
                                  // entry, pads and spare slots included, is an object's id or 0
                                  // (zeroed when allocated and at a new layout), so load_cols may
                                  // prefetch the box of any slot
    size_t id_cap, old_id_cap, start_cap, old_start_cap, span_cap, old_span_cap, moved_cap, kept_cap, todo_cap;
    uint32_t *big;  // big objects in id order
    size_t big_cap;
    uint32_t nbig;
    uint32_t *big_row;  // per big object (by its index in big): its rows y0, y1, z0, z1 (big_rows)
    uint32_t *zbig_at;  // dim[1] + 1 offsets into zbig: the big objects reaching each z row
    uint32_t *zbig;     // indexes in big, z row by z row, each in index order
    size_t big_row_cap, zbig_at_cap, zbig_cap;
    uint32_t *hist;  // per thread: gone per row, appended per row (counts, then next slots), bigs
    size_t hist_cap;
    uint32_t part_rows[CD_BROAD_PARTS + 1];  // this frame's rows cut into parts of about equal slots
    uint8_t part_ready[CD_BROAD_PARTS];      // 1 once the part's kept ids are placed and its rows sorted
    uint8_t part_swept[CD_BROAD_PARTS];      // 1 once sweep_part ran on the part this frame
    uint64_t part_tests[CD_BROAD_PARTS];     // its box tests then (cell_watch)
    gm_scratch scratch[GM_MAX_THREADS];      // one per concurrent caller of candidates_part
    atomic_int scratch_busy[GM_MAX_THREADS];
    uint64_t max_per_row, boxes_in_rows;
    // Coherent frames (see "Coherent frames" below).
    int coherence;                        // GM_COH_*
    int coh_valid;                        // the static rows hold every clean object's box
    int coh_frame;                        // this frame is coherent: candidates are coh_candidates_part's
    uint64_t coh_seen;                    // the scene's move list last seen
    cd_scene_moves coh_m;                 // this frame's moved objects
    uint32_t *coh_key;                    // scratch of the static bin's sort: lo.x keys, their boxes, and the
                                          // radix sort's copies of both, their spans (5 × the objects)
    uint32_t *st_start, *st_id, *st_big;  // static rows (with pads) and big objects
    float *st_col;                        // their seven columns
    uint32_t *st_where;                   // per object: its (up to 4) static slots, UINT32_MAX for none
    coh_row_index *st_index;              // per static row: its x index (coh_index)
    uint32_t *st_first;                   // the x indexes' entries: first slot of each bucket
    uint8_t *dirty;                       // per object: listed as moved since the static rows were built
    uint32_t *dlist, ndirty, st_nbig;     // the dirty objects, in the order they turned dirty
    uint32_t *dk;                         // per dirty object: its index in dlist
    cd_aabbf *dy_box;                     // per dirty object by dlist index: its box now (and a zero record)
    uint8_t *kmoved;                      // per dirty object by dlist index: moved this frame
    struct grid_multi *sub;               // the dirty objects' rows: a grid_multi on sub_scene, on these cells
    const struct grid_multi *layout_of;   // for a sub: the grid whose cells it takes
    cd_scene sub_scene;                   // the dirty objects as a scene: dy_box, ndirty of them
    size_t st_stride, st_start_cap, st_id_cap, st_big_cap, st_col_cap, st_where_cap, dirty_cap, dlist_cap, coh_key_cap,
        st_index_cap, st_first_cap, dk_cap, dy_box_cap, kmoved_cap;
} grid_multi;

static const char *const gm_coherence_words[] = {"auto", "off", "always", NULL};
enum { GM_COH_AUTO, GM_COH_OFF, GM_COH_ALWAYS };
// Coherent frames while the dirty objects number at most n / GM_COHERENT_SHARE. Where the two
// paths cross (100 000 cubes, broad + narrow ms, coherent against full, three repeats): moving
// 0.15: 1.16-1.35 / 2.09-2.71; 0.2: 1.52-1.76 / 2.14-2.61; 0.25: 1.81-2.31 / 2.13-2.33; 0.3:
// 2.22-2.62 / 2.17-2.61 (the commit that set it has the command).
enum { GM_COHERENT_SHARE = 4 };

static const char *const gm_axis_words[] = {"auto", "x", "y", "z", NULL};
static const cd_param_spec gm_params[] = {
    {"cell_size", CD_PARAM_REAL, "0", 0, 1e12, NULL,
     "grid cell side; 0 = derived from the objects: 3.5 times the small-box limit, scaled down to 0.6 of that "
     "while a full frame's windows are long (dense scenes)"},
    {"axis", CD_PARAM_WORD, "auto", 0, 0, gm_axis_words,
     "the axis rows run along: x, y or z, or auto (x until objects cross cells along another axis at "
     "least twice as often, counted on a sample over 8 frames: then that one)"},
    {"coherence", CD_PARAM_WORD, "auto", 0, 0, gm_coherence_words,
     "frames that keep last frame's pairs: auto (while at most a quarter of the objects moved since the "
     "structure was built), always (whenever the scene knows what moved; for tests), off"},
};

// Coherent frames (defined below with their comment).
static void coh_build(grid_multi *g, const cd_scene *s);
static int coh_update(grid_multi *g, const cd_scene *s, const cd_scene_moves *m);
static void coh_remap(grid_multi *g, const cd_scene *s);

static void gm_set_axis(grid_multi *g, int a)
{
    g->ax[0] = (uint8_t)a, g->ax[1] = (uint8_t)((a + 1) % 3), g->ax[2] = (uint8_t)((a + 2) % 3);
}

// Box b as the rows see it (x along the rows, see grid_multi.ax), with id.
static inline id_box gm_box(const grid_multi *g, const cd_aabbf *b, uint32_t id)
{
    uint32_t x = g->ax[0], y = g->ax[1], z = g->ax[2];
    return (id_box){{b->lo[x], b->lo[y], b->lo[z]}, {b->hi[x], b->hi[y], b->hi[z]}, id, 0};
}

static void *gm_create(const cd_params *p, int threads, const cd_scene *s)
{
    (void)s;
    grid_multi *g = cd_alloc_zero(1, sizeof *g);
    g->cell_param = cd_params_num(p, "cell_size");
    g->cell_scale = 1.0;
    const char *axis = cd_params_word(p, "axis");
    g->axis_param = axis[0] == 'a' ? -1 : axis[0] - 'x';
    gm_set_axis(g, g->axis_param < 0 ? 0 : g->axis_param);
    const char *coh = cd_params_word(p, "coherence");
    g->coherence = strcmp(coh, "off") == 0 ? GM_COH_OFF : strcmp(coh, "always") == 0 ? GM_COH_ALWAYS : GM_COH_AUTO;
    g->coh_seen = CD_SCENE_MOVES_UNSEEN;
    g->threads = threads > GM_MAX_THREADS ? GM_MAX_THREADS : threads;
    g->n = UINT32_MAX;
    g->simd = !GM_WIDE ? GM_SSE2 : cd_cpu_avx512() ? GM_AVX512 : cd_cpu_avx2() ? GM_AVX2 : GM_SSE2;
    return g;
}

static void gm_destroy(void *self)
{
    grid_multi *g = self;
    if (!g) return;
    void *blocks[] = {g->start, g->old_start, g->kept_len, g->span,     g->old_span, g->id,     g->old_id,
                      g->big,   g->hist,      g->todo,     g->st_start, g->st_id,    g->st_big, g->dlist,
                      g->moved, g->st_col,    g->st_where, g->st_index, g->st_first, g->dirty,  g->coh_key,
                      g->dk,    g->dy_box,    g->kmoved,   g->big_row,  g->zbig_at,  g->zbig,   g->ax_cell};
    for (size_t k = 0; k < sizeof blocks / sizeof blocks[0]; ++k) cd_free(blocks[k]);
    for (int k = 0; k < GM_MAX_THREADS; ++k) cd_free(g->scratch[k].col);
    gm_destroy(g->sub);
    cd_free(g);
}

// Make *p hold n elements, growing by an eighth beyond n (not doubling): slot counts drift by a
// few per frame, and doubling at 10⁶ objects would break the bytes-per-object budget. New
// elements are zero (see grid_multi.id).
static void reserve_slack(void **p, size_t elem, size_t *cap, size_t n)
{
    if (n <= *cap) return;
    size_t c = n + n / 8 + 64;
    cd_free(*p);
    *p = cd_alloc_zero(c, elem);
    *cap = c;
}

#define SWAP(T, a, b) \
    do {              \
        T t_ = a;     \
        a = b;        \
        b = t_;       \
    } while (0)

// The row map's cells on the rows' y and z reach as far as the objects do: where every box ends
// in the first rows of an axis (a layer on the ground), the rows beyond them would stay empty, yet
// every pass over the rows would visit them (4 096 rows for 128 used at 10 000 cubes on the
// ground). The map clamps to the last row like the square grid's to its border, so the pairs stay
// exact whatever the boxes do later; layer_spill makes a new layout once many boxes reach past it.
static inline uint32_t row_in(const grid_multi *g, float v, uint32_t rows);
static void layer_rows(grid_multi *g, const cd_scene *s)
{
    for (int k = 0; k < 2; ++k) {
        int a = g->ax[1 + k];
        float top = -INFINITY;
        for (uint32_t i = 0; i < s->count; ++i) top = s->box[i].hi[a] > top ? s->box[i].hi[a] : top;
        g->dim[k] = s->count ? row_in(g, top, g->side) + 1 : g->side;
    }
}

// Cell side and dimensions: from the parameter, or from the object extents; the cell grows until
// the rows number at most max(GM_MIN_ROWS, n) (pads cost 4 slots per non-empty row).
static void gm_layout(grid_multi *g, const cd_scene *s)
{
    uint32_t n = s->count;
    g->ax_samples = 0, g->ax_frames = 0;  // the cells change: a new sample, new counts
    g->ax_cross[0] = g->ax_cross[1] = g->ax_cross[2] = 0;
    if (g->layout_of) {  // a sub: the cells (and rows) of its grid
        memcpy(g->ax, g->layout_of->ax, sizeof g->ax);
        g->inv_cell = g->layout_of->inv_cell;
        g->side = g->layout_of->side;
        g->dim[0] = g->layout_of->dim[0], g->dim[1] = g->layout_of->dim[1];
    } else {
        double cell = g->cell_param > 0.0 ? g->cell_param : GM_CELL_FACTOR * g->cell_scale * small_box_limit(s, 0.0);
        // As in grid.c: a world side that is not finite and positive counts as one cell (the clamp
        // of the cell map keeps the pairs exact), and with finite sides the loop ends with at most
        // max_rows rows, since cell grows by 1.25 per turn.
        double side = isfinite(s->world) && s->world > 0.0 ? s->world : cell;
        double max_rows = fmax((double)GM_MIN_ROWS, (double)n);
        for (;;) {
            double d = fmax(1.0, ceil(side / cell));
            if (d <= GM_MAX_DIM && d * d <= max_rows) break;
            cell *= 1.25;
        }
        g->inv_cell = (float)(1.0 / cell);
        g->side = (uint32_t)fmax(1.0, ceil(side / cell));
        layer_rows(g, s);
    }
    g->nrows = (size_t)g->dim[0] * g->dim[1];
    buf_reserve((void **)&g->start, sizeof *g->start, &g->start_cap, g->nrows + 1);
    buf_reserve((void **)&g->old_start, sizeof *g->old_start, &g->old_start_cap, g->nrows + 1);
    buf_reserve((void **)&g->kept_len, sizeof *g->kept_len, &g->kept_cap, g->nrows);
    buf_reserve((void **)&g->span, sizeof *g->span, &g->span_cap, n);
    buf_reserve((void **)&g->old_span, sizeof *g->old_span, &g->old_span_cap, n);
    buf_reserve((void **)&g->moved, sizeof *g->moved, &g->moved_cap, (size_t)n + GM_MOVED_PAD);
    buf_reserve((void **)&g->todo, sizeof *g->todo, &g->todo_cap, n);
    memset(g->moved + n, 0, GM_MOVED_PAD);  // read by place_kept_wide, never used: defined bytes
    CD_ASSERT(n <= (1u << 28));             // ids share their column with two flags; slot offsets (up to 4 slots
                                            // and 4 pads per object) are 32-bit
    if (g->id) memset(g->id, 0, g->id_cap * sizeof *g->id);  // ids of another object count
    if (g->old_id) memset(g->old_id, 0, g->old_id_cap * sizeof *g->old_id);
    g->rows_made = 0;
    g->n = n;
    g->world = s->world;
}

// The rows of box b: y0 = f(lo.y), y1 = f(hi.y), z0, z1 likewise, for the row map
// f(v) = clamp(trunc(fl(v · inv_cell)), 0, dim − 1) in float. f is monotone (a rounded product by a
// positive constant, a clamp and a truncation all are), which is all the exactness argument needs:
// two overlapping boxes share the row of their (max lo.y, max lo.z), and boxes beyond the walls land
// in border rows. Boxes reaching three rows on an axis are big.
//
// row_of is f on one coordinate, in scalar float: the portable span_of, big_rows and axis_watch
// use it (NaN goes to 0: the comparisons with NaN fail); the SSE2 span_of does the same four
// operations lane by lane.
static inline uint32_t row_in(const grid_multi *g, float v, uint32_t rows)
{
    float t = v * g->inv_cell, top = (float)(rows - 1);  // exact: rows ≤ 2^15
    t = t > 0.0f ? t : 0.0f;
    return (uint32_t)(t < top ? t : top);
}

// The row map on the rows' y (k = 0) or z (k = 1).
static inline uint32_t row_of(const grid_multi *g, float v, int k) { return row_in(g, v, g->dim[k]); }

static inline uint32_t span_of(const grid_multi *g, const cd_aabbf *b)
{
    uint32_t y0, z0, y1, z1;
#if defined(__SSE2__) && defined(__x86_64__)
    // The four coordinates in one register (lo.y, lo.z, hi.y, hi.z); the rows fit 16 bits.
    __m128 yz = _mm_setr_ps(b->lo[g->ax[1]], b->lo[g->ax[2]], b->hi[g->ax[1]], b->hi[g->ax[2]]);
    __m128 t = _mm_mul_ps(yz, _mm_set1_ps(g->inv_cell));
    t = _mm_min_ps(_mm_max_ps(t, _mm_setzero_ps()), _mm_setr_ps((float)(g->dim[0] - 1), (float)(g->dim[1] - 1),
                                                                (float)(g->dim[0] - 1), (float)(g->dim[1] - 1)));
    __m128i rows = _mm_cvttps_epi32(t);
    uint64_t u = (uint64_t)_mm_cvtsi128_si64(_mm_packs_epi32(rows, rows));
    y0 = (uint32_t)(u & 0xFFFF), z0 = (uint32_t)(u >> 16 & 0xFFFF), y1 = (uint32_t)(u >> 32 & 0xFFFF),
    z1 = (uint32_t)(u >> 48);
#else
    y0 = row_of(g, b->lo[g->ax[1]], 0), z0 = row_of(g, b->lo[g->ax[2]], 1), y1 = row_of(g, b->hi[g->ax[1]], 0),
    z1 = row_of(g, b->hi[g->ax[2]], 1);
#endif
    if (y1 - y0 > 1 || z1 - z0 > 1) return SPAN_BIG;
    return y0 | z0 << 15 | (y1 - y0) << 30 | (z1 - z0) << 31;
}

static inline uint32_t span_y(uint32_t s) { return s & 0x7FFF; }
static inline uint32_t span_z(uint32_t s) { return s >> 15 & 0x7FFF; }

// Row (ry, rz) is one of span s's rows.
static inline uint32_t span_has(uint32_t s, uint32_t ry, uint32_t rz)
{
    return (uint32_t)(s != SPAN_BIG) & (ry - span_y(s) <= (s >> 30 & 1)) & (rz - span_z(s) <= (s >> 31));
}

// The id column's value for object id in row (ry, rz) of span sp.
static inline uint32_t slot_id(uint32_t id, uint32_t sp, uint32_t ry, uint32_t rz)
{
    return id | (span_y(sp) == ry ? STARTS_Y : 0) | (span_z(sp) == rz ? STARTS_Z : 0);
}

// Every row of box b, however many: r = y0, y1, z0, z1 by span_of's row map.
static inline void big_rows(const grid_multi *g, const cd_aabbf *b, uint32_t r[4])
{
    r[0] = row_of(g, b->lo[g->ax[1]], 0), r[1] = row_of(g, b->hi[g->ax[1]], 0);
    r[2] = row_of(g, b->lo[g->ax[2]], 1), r[3] = row_of(g, b->hi[g->ax[2]], 1);
}

// Boxes in row r (the slots before its pads).
static inline uint32_t row_len(const uint32_t *start, size_t r)
{
    uint32_t d = start[r + 1] - start[r];
    return d ? d - GM_PAD : 0;
}

// Span s's rows that span other does not reach (other SPAN_BIG: all of them), counted in c (a
// row's entry at z · dy + y, with dy + 1 spare entries after the last row): branch-free over the
// four rows (y0 | y0 + 1) × (z0 | z0 + 1), each adding 0 where s does not reach it. A 0 may land
// past the last row on y (the next z row's first: 0 added) or on z (the spare entries): a span
// at the last row on an axis reaches no further (span_of clamps). Loops over the rows spans reach
// cost a mispredicted exit per axis and object, and objects cross rows in crowds in a collapsing
// scene (half of them a frame in Bullet's gravity). count_share and coh_bin count with it.
static inline void count_rows(uint32_t dy, uint32_t s, uint32_t other, uint32_t *c)
{
    uint32_t y = span_y(s), z = span_z(s), ry = s >> 30 & 1, rz = s >> 31;
    uint32_t *r = c + (size_t)z * dy + y;
    r[0] += span_has(other, y, z) ^ 1;
    r[1] += ry & (span_has(other, y + 1, z) ^ 1);
    r[dy] += rz & (span_has(other, y, z + 1) ^ 1);
    r[dy + 1] += ry & rz & (span_has(other, y + 1, z + 1) ^ 1);
}

// An object's rows went from old to sp (either may be SPAN_BIG): count it gone from the rows it
// left and new to the rows it entered.
static inline void count_moved(uint32_t dy, uint32_t old, uint32_t sp, uint32_t *gone, uint32_t *app)
{
    if (old != SPAN_BIG) count_rows(dy, old, sp, gone);
    if (sp != SPAN_BIG) count_rows(dy, sp, old, app);
}

// This thread's objects [i0, i1): their rows (span[]), and per row how many of them left it since
// last frame (gone) and how many are new to it (app); bigs counts the big ones. Only the few
// objects whose rows changed touch the counters: a row's kept boxes are last frame's minus the
// ones gone. Those objects, and the big ones, are listed in todo (*ntodo of them) for place_new.
static void count_share(grid_multi *g, const cd_scene *s, uint32_t i0, uint32_t i1, uint32_t *gone, uint32_t *app,
                        uint32_t *bigs, uint32_t *todo, uint32_t *ntodo)
{
    uint32_t dy = g->dim[0];
    const cd_aabbf *box = s->box;
    uint32_t *span = g->span;
    uint8_t *moved = g->moved;
    const uint32_t *old_span = g->old_span;
    int ordered = g->ordered;
    for (uint32_t id = i0; id < i1; ++id) {
        __builtin_prefetch(&box[id] + GM_COUNT_AHEAD * 16);  // as in count_share_wide
        uint32_t sp = span_of(g, &box[id]), old = ordered ? old_span[id] : SPAN_BIG;
        span[id] = sp;
        *bigs += sp == SPAN_BIG;
        moved[id] = sp != old;
        if (sp != old) count_moved(dy, old, sp, gone, app);
        if (sp != old || sp == SPAN_BIG) todo[(*ntodo)++] = id;
    }
}

#if GM_WIDE
_Static_assert(sizeof(cd_aabbf) == 6 * sizeof(float), "count_share_wide reads the boxes as six floats each");
// count_share for CPUs with AVX-512: the rows of sixteen objects at once (the same float operations
// as span_of, lane by lane, so the same spans); the counters of the few objects whose rows
// changed are then updated one by one, as in count_share.
__attribute__((target("avx2,avx512f,avx512vl,popcnt"))) static void
count_share_wide(grid_multi *g, const cd_scene *s, uint32_t i0, uint32_t i1, uint32_t *gone, uint32_t *app,
                 uint32_t *bigs, uint32_t *todo, uint32_t *ntodo)
{
    uint32_t dy = g->dim[0];
    const float *box = (const float *)(const void *)s->box;  // six floats per box: lo x y z, hi x y z
    uint32_t *span = g->span;
    uint8_t *moved = g->moved;
    const uint32_t *old_span = g->old_span;
    const __m512 inv = _mm512_set1_ps(g->inv_cell), zero = _mm512_setzero_ps(),
                 top[2] = {_mm512_set1_ps((float)(g->dim[0] - 1)), _mm512_set1_ps((float)(g->dim[1] - 1))};
    const __m512i six = _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                                           _mm512_set1_epi32(6));
    const __m512i one = _mm512_set1_epi32(1), big = _mm512_set1_epi32((int)SPAN_BIG);
    uint32_t id = i0;
    for (; id + 16 <= i1; id += 16) {
        const float *b = box + (size_t)id * 6;
        // The boxes GM_COUNT_AHEAD blocks on (prefetches never fault, so past the end is fine):
        // with threads, the motion step streamed them out to memory, and the gathers alone kept
        // too few lines in flight.
        for (int l = 0; l < 6; ++l) __builtin_prefetch(b + GM_COUNT_AHEAD * 16 * 6 + l * 16);
        __m512i r[4];  // rows of lo.y, lo.z, hi.y, hi.z
        const int offset[4] = {g->ax[1], g->ax[2], 3 + g->ax[1], 3 + g->ax[2]};
        for (int k = 0; k < 4; ++k) {
            __m512 v = _mm512_i32gather_ps(six, b + offset[k], 4);
            r[k] = _mm512_cvttps_epi32(_mm512_min_ps(_mm512_max_ps(_mm512_mul_ps(v, inv), zero), top[k & 1]));
        }
        __m512i ey = _mm512_sub_epi32(r[2], r[0]), ez = _mm512_sub_epi32(r[3], r[1]);
        __mmask16 is_big = _mm512_cmpgt_epu32_mask(ey, one) | _mm512_cmpgt_epu32_mask(ez, one);
        __m512i sp = _mm512_or_si512(_mm512_or_si512(r[0], _mm512_slli_epi32(r[1], 15)),
                                     _mm512_or_si512(_mm512_slli_epi32(ey, 30), _mm512_slli_epi32(ez, 31)));
        sp = _mm512_mask_blend_epi32(is_big, sp, big);
        __m512i old = g->ordered ? _mm512_loadu_si512((const void *)(old_span + id)) : big;
        _mm512_storeu_si512((void *)(span + id), sp);
        __mmask16 changed = _mm512_cmpneq_epu32_mask(sp, old);
        _mm_storeu_si128((__m128i *)(void *)(moved + id), _mm512_cvtepi32_epi8(_mm512_maskz_mov_epi32(changed, one)));
        *bigs += (uint32_t)__builtin_popcount(is_big);
        for (unsigned c = changed | is_big; c; c &= c - 1) {
            uint32_t i = id + (uint32_t)__builtin_ctz(c);
            if (changed >> (i - id) & 1) count_moved(dy, g->ordered ? old_span[i] : SPAN_BIG, span[i], gone, app);
            todo[(*ntodo)++] = i;
        }
    }
    if (id < i1) count_share(g, s, id, i1, gone, app, bigs, todo, ntodo);
}

// count_share for CPUs with AVX2: the rows of eight objects at once. Each box is one 32-byte load
// (its six floats and two of the next record; the scene pads its box array by one record) and the
// 8 × 8 transpose gives the columns, for fewer cycles than AVX2's gathers on most CPUs. The same
// float operations as span_of, lane by lane, so the same spans; the rows are at most 2^15, so
// signed compares order them.
__attribute__((target("avx2,popcnt"))) static void count_share_avx2(grid_multi *g, const cd_scene *s, uint32_t i0,
                                                                    uint32_t i1, uint32_t *gone, uint32_t *app,
                                                                    uint32_t *bigs, uint32_t *todo, uint32_t *ntodo)
{
    uint32_t dy = g->dim[0];
    const cd_aabbf *box = s->box;
    uint32_t *span = g->span;
    uint8_t *moved = g->moved;
    const uint32_t *old_span = g->old_span;
    const __m256 inv = _mm256_set1_ps(g->inv_cell), zero = _mm256_setzero_ps(),
                 top[2] = {_mm256_set1_ps((float)(g->dim[0] - 1)), _mm256_set1_ps((float)(g->dim[1] - 1))};
    const __m256i one = _mm256_set1_epi32(1), big = _mm256_set1_epi32((int)SPAN_BIG);
    uint32_t id = i0;
    for (; id + 8 <= i1; id += 8) {
        // The boxes GM_COUNT_AHEAD blocks of sixteen on, as count_share_wide: eight boxes, 3 lines.
        for (int l = 0; l < 3; ++l) __builtin_prefetch((const char *)(box + id + GM_COUNT_AHEAD * 16) + 64 * l);
        __m256 b[8], c[8];  // c: lo x y z, hi x y z, two floats of the next records
        for (int l = 0; l < 8; ++l) b[l] = _mm256_loadu_ps(box[id + l].lo);
        cd_transpose8(b, c);
        __m256i r[4];  // rows of lo.y, lo.z, hi.y, hi.z
        const int column[4] = {g->ax[1], g->ax[2], 3 + g->ax[1], 3 + g->ax[2]};
        for (int k = 0; k < 4; ++k)
            r[k] =
                _mm256_cvttps_epi32(_mm256_min_ps(_mm256_max_ps(_mm256_mul_ps(c[column[k]], inv), zero), top[k & 1]));
        __m256i ey = _mm256_sub_epi32(r[2], r[0]), ez = _mm256_sub_epi32(r[3], r[1]);
        __m256i is_big = _mm256_or_si256(_mm256_cmpgt_epi32(ey, one), _mm256_cmpgt_epi32(ez, one));
        __m256i sp = _mm256_or_si256(_mm256_or_si256(r[0], _mm256_slli_epi32(r[1], 15)),
                                     _mm256_or_si256(_mm256_slli_epi32(ey, 30), _mm256_slli_epi32(ez, 31)));
        sp = _mm256_blendv_epi8(sp, big, is_big);
        __m256i old = g->ordered ? _mm256_loadu_si256((const __m256i *)(const void *)(old_span + id)) : big;
        _mm256_storeu_si256((__m256i *)(void *)(span + id), sp);
        __m256i same = _mm256_cmpeq_epi32(sp, old);
        // moved[]: 1 where the rows changed (same lanes are −1, so −1 + 1 = 0), as bytes
        __m128i w = _mm_packs_epi32(_mm256_castsi256_si128(same), _mm256_extracti128_si256(same, 1));
        _mm_storel_epi64((__m128i *)(void *)(moved + id), _mm_add_epi8(_mm_packs_epi16(w, w), _mm_set1_epi8(1)));
        unsigned big_bits = (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(is_big)),
                 changed = (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(same)) ^ 0xFFu;
        *bigs += (uint32_t)__builtin_popcount(big_bits);
        for (unsigned c2 = changed | big_bits; c2; c2 &= c2 - 1) {
            uint32_t i = id + (uint32_t)__builtin_ctz(c2);
            if (changed >> (i - id) & 1) count_moved(dy, g->ordered ? old_span[i] : SPAN_BIG, span[i], gone, app);
            todo[(*ntodo)++] = i;
        }
    }
    if (id < i1) count_share(g, s, id, i1, gone, app, bigs, todo, ntodo);
}

// Lane indices of the set bits of a 4-bit mask n, one byte each in order, the unused bytes 0: lane
// j (set) goes to the byte numbered by the set bits below it (lane 0 adds 0 wherever it lands).
#define GM_NIBBLE_COUNT(n) (((n)&1) + ((n) >> 1 & 1) + ((n) >> 2 & 1) + ((n) >> 3 & 1))
#define GM_NIBBLE_LANES(n)                                                                                \
    (((n) >> 1 & 1u) << 8 * GM_NIBBLE_COUNT((n)&1) | ((n) >> 2 & 1u) * 2u << 8 * GM_NIBBLE_COUNT((n)&3) | \
     ((n) >> 3 & 1u) * 3u << 8 * GM_NIBBLE_COUNT((n)&7))
// The same for an 8-bit mask b: the low nibble's lanes, then the high nibble's (+4) after them; the
// bytes past the count are 4 or 0 (any lanes for a permute). A constant table: nothing to fill
// before the first frame, whoever links this file.
#define GM_BYTE_LANES(b)                                                                     \
    ((uint64_t)GM_NIBBLE_LANES((b)&15) | (uint64_t)(GM_NIBBLE_LANES((b) >> 4) + 0x04040404u) \
                                             << (8 * GM_NIBBLE_COUNT((b)&15)))
#define GM_BYTE_LANES4(b) GM_BYTE_LANES(b), GM_BYTE_LANES((b) + 1), GM_BYTE_LANES((b) + 2), GM_BYTE_LANES((b) + 3)
#define GM_BYTE_LANES16(b) GM_BYTE_LANES4(b), GM_BYTE_LANES4((b) + 4), GM_BYTE_LANES4((b) + 8), GM_BYTE_LANES4((b) + 12)
#define GM_BYTE_LANES64(b) \
    GM_BYTE_LANES16(b), GM_BYTE_LANES16((b) + 16), GM_BYTE_LANES16((b) + 32), GM_BYTE_LANES16((b) + 48)
static const uint64_t gm_byte_lanes[256] = {GM_BYTE_LANES64(0), GM_BYTE_LANES64(64), GM_BYTE_LANES64(128),
                                            GM_BYTE_LANES64(192)};

// The lanes of the set bits of bits (8 lanes) in order, as the indices of a 32-bit permute that
// moves them to the front (AVX2's stand-in for AVX-512's compress); the indices past the count are
// any lanes. One widening load from the table: the two nibble lookups, the shift by the low
// nibble's count and the move into a vector took seven instructions per block of the AVX2 sweep.
__attribute__((always_inline, target("avx2,popcnt"))) static inline __m256i front_lanes(unsigned bits)
{
    return _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)&gm_byte_lanes[bits & 255]));
}
#endif

// Last frame's slots [k, k1) of row (ry, rz): the ids of those that stay written from slot at on;
// returns the next free slot.
static inline uint32_t keep_ids(grid_multi *g, uint32_t ry, uint32_t rz, uint32_t k, uint32_t k1, uint32_t at)
{
    for (; k < k1; ++k) {
        uint32_t v = g->old_id[k], id = v & ID_MASK;
        if (g->moved[id]) {  // rare: then its rows and flags come from its new span
            uint32_t sp = g->span[id];
            if (!span_has(sp, ry, rz)) continue;
            v = slot_id(id, sp, ry, rz);
        }
        g->id[at++] = v;
    }
    return at;
}

// The ids of the boxes that stay in last frame's rows [r0, r1), in each row's old order, from
// start[r] on (their boxes are gathered with the new ones' in load_cols). A row's kept boxes all
// come from that row, so one thread writes them.
static void place_kept(grid_multi *g, size_t r0, size_t r1)
{
    if (!g->ordered) return;
    uint32_t dy = g->dim[0];
    for (size_t r = r0; r < r1; ++r) {
        uint32_t k0 = g->old_start[r], len = row_len(g->old_start, r);
        if (len) keep_ids(g, (uint32_t)r % dy, (uint32_t)r / dy, k0, k0 + len, g->start[r]);
    }
}

#if GM_WIDE
// place_kept for CPUs with AVX-512: sixteen slots at a time. Objects that changed rows (about one
// in sixty per frame) are handled in the lanes: their spans decide which stay in this row and
// with which flags, and the ids are compressed to the kept lanes (sending such groups to
// keep_ids one slot at a time took a fifth of the placement, when it also placed the boxes).
__attribute__((target("avx2,avx512f,avx512vl,popcnt"))) static void place_kept_wide(grid_multi *g, size_t r0, size_t r1)
{
    if (!g->ordered) return;
    uint32_t dy = g->dim[0];
    const uint32_t *old_id = g->old_id, *span = g->span;
    const uint8_t *moved = g->moved;
    uint32_t *out = g->id;
    const __m512i id_mask = _mm512_set1_epi32((int)ID_MASK), low_byte = _mm512_set1_epi32(0xFF),
                  coord_mask = _mm512_set1_epi32(0x7FFF), one = _mm512_set1_epi32(1),
                  big = _mm512_set1_epi32((int)SPAN_BIG);
    for (size_t r = r0; r < r1; ++r) {
        uint32_t k = g->old_start[r], k1 = k + row_len(g->old_start, r), at = g->start[r];
        if (k == k1) continue;  // most rows are empty in a thin layer: spare them the division
        uint32_t ry = (uint32_t)r % dy, rz = (uint32_t)r / dy;
        const __m512i vry = _mm512_set1_epi32((int)ry), vrz = _mm512_set1_epi32((int)rz);
        for (; k + 16 <= k1; k += 16) {
            __m512i v = _mm512_loadu_si512((const void *)(old_id + k)), id = _mm512_and_si512(v, id_mask);
            // moved[] has GM_MOVED_PAD bytes beyond the objects, so each lane may read four.
            __m512i mv = _mm512_and_si512(_mm512_i32gather_epi32(id, (const void *)moved, 1), low_byte);
            __mmask16 was_moved = _mm512_test_epi32_mask(mv, mv);
            if (!was_moved) {
                _mm512_storeu_si512((void *)(out + at), v);
                at += 16;
                continue;
            }
            // span_has and slot_id in the lanes, on the moved objects' new spans
            __m512i sp = _mm512_mask_i32gather_epi32(big, was_moved, id, (const void *)span, 4);
            __m512i y0 = _mm512_and_si512(sp, coord_mask), z0 = _mm512_and_si512(_mm512_srli_epi32(sp, 15), coord_mask);
            __mmask16 has =
                _mm512_cmpneq_epu32_mask(sp, big) &
                _mm512_cmple_epu32_mask(_mm512_sub_epi32(vry, y0), _mm512_and_si512(_mm512_srli_epi32(sp, 30), one)) &
                _mm512_cmple_epu32_mask(_mm512_sub_epi32(vrz, z0), _mm512_srli_epi32(sp, 31));
            __m512i flags = _mm512_or_si512(
                _mm512_maskz_mov_epi32(_mm512_cmpeq_epi32_mask(y0, vry), _mm512_set1_epi32((int)STARTS_Y)),
                _mm512_maskz_mov_epi32(_mm512_cmpeq_epi32_mask(z0, vrz), _mm512_set1_epi32((int)STARTS_Z)));
            v = _mm512_mask_blend_epi32(was_moved, v, _mm512_or_si512(id, flags));
            __mmask16 keep = (__mmask16)(~was_moved | has);
            // The kept lanes to the front, in order; a masked store, since the slots after a row's
            // kept boxes already hold its new ones.
            unsigned kept = (unsigned)__builtin_popcount(keep);
            _mm512_mask_storeu_epi32(out + at, (__mmask16)((1u << kept) - 1), _mm512_maskz_compress_epi32(keep, v));
            at += kept;
        }
        keep_ids(g, ry, rz, k, k1, at);
    }
}

// place_kept for CPUs with AVX2: eight slots at a time, as place_kept_wide (the moved objects'
// spans decide in the lanes which stay in this row and with which flags); the kept lanes go to
// the front by a permute and a masked store.
__attribute__((target("avx2,popcnt"))) static void place_kept_avx2(grid_multi *g, size_t r0, size_t r1)
{
    if (!g->ordered) return;
    uint32_t dy = g->dim[0];
    const uint32_t *old_id = g->old_id, *span = g->span;
    const uint8_t *moved = g->moved;
    uint32_t *out = g->id;
    const __m256i id_mask = _mm256_set1_epi32((int)ID_MASK), low_byte = _mm256_set1_epi32(0xFF),
                  coord_mask = _mm256_set1_epi32(0x7FFF), one = _mm256_set1_epi32(1),
                  big = _mm256_set1_epi32((int)SPAN_BIG), zero = _mm256_setzero_si256(),
                  lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    for (size_t r = r0; r < r1; ++r) {
        uint32_t k = g->old_start[r], k1 = k + row_len(g->old_start, r), at = g->start[r];
        if (k == k1) continue;  // most rows are empty in a thin layer: spare them the division
        uint32_t ry = (uint32_t)r % dy, rz = (uint32_t)r / dy;
        const __m256i vry = _mm256_set1_epi32((int)ry), vrz = _mm256_set1_epi32((int)rz);
        for (; k + 8 <= k1; k += 8) {
            __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(old_id + k)),
                    id = _mm256_and_si256(v, id_mask);
            // moved[] has GM_MOVED_PAD bytes beyond the objects, so each lane may read four.
            __m256i mv = _mm256_and_si256(_mm256_i32gather_epi32((const int *)(const void *)moved, id, 1), low_byte);
            __m256i was_moved = _mm256_cmpgt_epi32(mv, zero);
            if (_mm256_testz_si256(was_moved, was_moved)) {
                _mm256_storeu_si256((__m256i *)(void *)(out + at), v);
                at += 8;
                continue;
            }
            // span_has and slot_id in the lanes, on the moved objects' new spans (x ≤ y unsigned
            // as min(x, y) = x)
            __m256i sp = _mm256_mask_i32gather_epi32(big, (const int *)(const void *)span, id, was_moved, 4);
            __m256i y0 = _mm256_and_si256(sp, coord_mask), z0 = _mm256_and_si256(_mm256_srli_epi32(sp, 15), coord_mask);
            __m256i dy_ = _mm256_sub_epi32(vry, y0), dz = _mm256_sub_epi32(vrz, z0);
            __m256i reach_y = _mm256_and_si256(_mm256_srli_epi32(sp, 30), one), reach_z = _mm256_srli_epi32(sp, 31);
            __m256i has = _mm256_andnot_si256(_mm256_cmpeq_epi32(sp, big),
                                              _mm256_and_si256(_mm256_cmpeq_epi32(_mm256_min_epu32(dy_, reach_y), dy_),
                                                               _mm256_cmpeq_epi32(_mm256_min_epu32(dz, reach_z), dz)));
            __m256i flags =
                _mm256_or_si256(_mm256_and_si256(_mm256_cmpeq_epi32(y0, vry), _mm256_set1_epi32((int)STARTS_Y)),
                                _mm256_and_si256(_mm256_cmpeq_epi32(z0, vrz), _mm256_set1_epi32((int)STARTS_Z)));
            v = _mm256_blendv_epi8(v, _mm256_or_si256(id, flags), was_moved);
            unsigned keep = (unsigned)_mm256_movemask_ps(
                _mm256_castsi256_ps(_mm256_or_si256(_mm256_xor_si256(was_moved, _mm256_set1_epi32(-1)), has)));
            // The kept lanes to the front, in order; a masked store, since the slots after a row's
            // kept boxes already hold its new ones.
            unsigned kept = (unsigned)__builtin_popcount(keep);
            _mm256_maskstore_epi32((int *)(void *)(out + at), _mm256_cmpgt_epi32(_mm256_set1_epi32((int)kept), lane),
                                   _mm256_permutevar8x32_epi32(v, front_lanes(keep)));
            at += kept;
        }
        keep_ids(g, ry, rz, k, k1, at);
    }
}
#endif

// Claim the slots of the rows that are new to this thread's moved objects (app: its next slot per
// row) and list its bigs (bigs: its next big index), from the list count_share made (todo[0 ..
// ntodo), in id order). Only the ids are written here; load_cols gathers their boxes with the
// kept ones. Writing the six coordinates here as well would cost a random cache line per column
// and slot.
static void place_new(grid_multi *g, const uint32_t *todo, uint32_t ntodo, uint32_t *app, uint32_t *bigs)
{
    uint32_t dy = g->dim[0];
    for (uint32_t k = 0; k < ntodo; ++k) {
        uint32_t id = todo[k], sp = g->span[id], old = g->ordered ? g->old_span[id] : SPAN_BIG;
        if (sp == SPAN_BIG) {
            g->big[(*bigs)++] = id;
            continue;
        }
        if (sp == old) continue;  // in the same rows as last frame: placed by place_kept
        for (uint32_t z = span_z(sp); z <= span_z(sp) + (sp >> 31); ++z)
            for (uint32_t y = span_y(sp); y <= span_y(sp) + (sp >> 30 & 1); ++y)
                if (!span_has(old, y, z)) g->id[app[(size_t)z * dy + y]++] = slot_id(id, sp, y, z);
    }
}

// Slots [k, a0 + len) of the row that starts at slot a0 into the columns e (slot k at k − base),
// each slot's box gathered by its id, then the row's GM_PAD pads (lo.x = +inf: never a hit).
static void load_row_rest(const grid_multi *g, const cd_scene *s, const cd_row_cols *e, uint32_t base, uint32_t k,
                          uint32_t a0, uint32_t len)
{
    for (; k < a0 + len; ++k) {
        uint32_t v = g->id[k];
        id_box b = gm_box(g, &s->box[v & ID_MASK], v);
        cd_row_put(e, k - base, &b);
    }
    static const id_box pad = {{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}, 0, 0};
    for (uint32_t j = 0; j < GM_PAD; ++j) cd_row_put(e, a0 + len + j - base, &pad);
}

// Rows [r0, r1) of this frame into the columns e (slot k at k − base), pads included.
static void load_cols(const grid_multi *g, const cd_scene *s, const cd_row_cols *e, uint32_t base, size_t r0, size_t r1)
{
    for (size_t r = r0; r < r1; ++r) {
        uint32_t a0 = g->start[r], len = row_len(g->start, r);
        if (len) load_row_rest(g, s, e, base, a0, a0, len);
    }
}

#if GM_WIDE
// load_cols for CPUs with AVX2 (also those with AVX-512): each box is one 32-byte load (the scene
// pads its box array by one record for this), and eight loads become the six columns by the 8 × 8
// transpose, which is cheaper than six gathers. The boxes are requested GM_PREFETCH slots ahead
// (ids are random).
__attribute__((target("avx2"))) static void load_cols_avx2(const grid_multi *g, const cd_scene *s, const cd_row_cols *e,
                                                           uint32_t base, size_t r0, size_t r1)
{
    const uint32_t *ids = g->id, ahead_end = g->start[r1];  // any slot holds an id (see grid_multi.id)
    const cd_aabbf *box = s->box;
    float *col[6];  // the box's floats by the rows' axes
    for (int k = 0; k < 3; ++k) col[g->ax[k]] = e->lo[k], col[3 + g->ax[k]] = e->hi[k];
    for (size_t r = r0; r < r1; ++r) {
        uint32_t a0 = g->start[r], len = row_len(g->start, r), k = a0;
        if (!len) continue;
        for (; k < a0 + len; k += 8) {  // the last block reads the ids of the pads after the row
            for (uint32_t l = 0; l < 8; ++l)
                if (k + l + GM_PREFETCH < ahead_end) __builtin_prefetch(&box[ids[k + l + GM_PREFETCH] & ID_MASK]);
            __m256 b[8], c[8];  // b[l]: lo, hi, two floats of the next record
            for (uint32_t l = 0; l < 8; ++l) b[l] = _mm256_loadu_ps(box[ids[k + l] & ID_MASK].lo);
            cd_transpose8(b, c);
            for (int j = 0; j < 6; ++j) _mm256_storeu_ps(col[j] + (k - base), c[j]);  // e->id is ids already
        }
        // The pads over what the last block wrote past the row (GM_PAD slots: one store each).
        _Static_assert(GM_PAD == 8, "a row's pads are one block of eight");
        uint32_t p = a0 + len - base;
        for (int j = 0; j < 3; ++j)
            _mm256_storeu_ps(e->lo[j] + p, _mm256_set1_ps(INFINITY)),
                _mm256_storeu_ps(e->hi[j] + p, _mm256_set1_ps(-INFINITY));
        _mm256_storeu_si256((__m256i *)(void *)(e->id + p), _mm256_setzero_si256());
    }
}
#endif

// Each row holds its kept boxes (all threads' counts), then each thread's new ones in thread
// order, then GM_PAD pads. Turns the counts into each thread's first slot per row, fills start[]
// and reserves the slots.
static void place(grid_multi *g, int nt)
{
    size_t R = g->nrows, span_rows = R + g->dim[0] + 1, stride = 2 * span_rows + 1;
    uint32_t at = 0;
    uint64_t most = 0, boxes = 0;
    for (size_t r = 0; r < R; ++r) {
        g->start[r] = at;
        uint32_t before = at;
        if (g->ordered) at += row_len(g->old_start, r);  // kept: last frame's boxes, less those gone
        for (int t = 0; t < nt; ++t) at -= g->hist[t * stride + r];
        g->kept_len[r] = at - before;
        for (int t = 0; t < nt; ++t) {
            uint32_t *c = &g->hist[t * stride + span_rows + r], v = *c;
            *c = at;
            at += v;
        }
        if (at > before) {
            if (at - before > most) most = at - before;
            boxes += at - before;
            at += GM_PAD;
        }
    }
    g->start[R] = at;
    uint32_t nbig = 0;
    for (int t = 0; t < nt; ++t) {
        uint32_t *c = &g->hist[t * stride + 2 * span_rows], v = *c;
        *c = nbig;
        nbig += v;
    }
    g->nbig = nbig;
    g->max_per_row = most;
    g->boxes_in_rows = boxes;
    reserve_slack((void **)&g->id, sizeof *g->id, &g->id_cap, at);
    buf_reserve((void **)&g->big, sizeof *g->big, &g->big_cap, nbig);
}

// This frame's rows cut into CD_BROAD_PARTS parts of about equal slot counts. They depend on the
// rows alone, never on the thread count, so the pairs come out in the same order for any count.
// The frame deals parts [P·t/nt, P·(t+1)/nt) to thread t of nt (cd_part_queue, parts_by_thread),
// the boxes that thread pulled into its caches in update, unless another thread is done first
// and takes over its last parts.
static void split_parts(grid_multi *g)
{
    size_t R = g->nrows, r = 0;
    uint64_t total = g->start[R];
    g->part_rows[0] = 0;
    for (uint32_t k = 1; k < CD_BROAD_PARTS; ++k) {
        uint64_t want = total * k / CD_BROAD_PARTS;
        while (r < R && g->start[r] < want) ++r;
        g->part_rows[k] = (uint32_t)r;
    }
    g->part_rows[CD_BROAD_PARTS] = (uint32_t)R;
}

// Read one byte of every cache line of [p, p + bytes): a sequential pass the hardware prefetcher
// streams, so the random reads that follow hit this core's caches. The sum only keeps the reads.
static uint32_t pull_lines(const void *p, size_t bytes)
{
    const volatile unsigned char *c = p;
    uint32_t sum = 0;
    for (size_t o = 0; o < bytes; o += 64) sum += c[o];
    return sum;
}

// Rows [r0, r1) of the columns e (slot k at k − base) in lo.x order.
static void sort_rows(const grid_multi *g, const cd_row_cols *e, uint32_t base, size_t r0, size_t r1)
{
    for (size_t r = r0; r < r1; ++r) {
        uint32_t a0 = g->start[r] - base, len = row_len(g->start, r);
        if (!len) continue;
        if (g->ordered) {
            cd_row_sort(e, a0, g->kept_len[r]);  // last frame's order: a few neighbours swap
            cd_row_insert_tail(e, a0, g->kept_len[r], len);
        } else
            cd_row_sort_fresh(e, a0, len);
    }
}

// The kept ids of every part that no candidates call prepared last frame (a caller may update
// without asking for candidates), so that the ids are whole before they become old_id. Their
// order is then last frame's kept order, which only makes the next sort longer.
static void finish_parts(grid_multi *g)
{
    if (!g->rows_made) return;
    for (uint32_t k = 0; k < CD_BROAD_PARTS; ++k)
        if (!g->part_ready[k]) {
            place_kept(g, g->part_rows[k], g->part_rows[k + 1]);
            g->part_ready[k] = 1;
        }
}

// The scene permuted its slots (cd_scene_reorder): the rows keep their cubes under the new slot
// numbers and each cube's rows move to its new slot, so the next update sees the small motion of
// one frame, not every cube new to its rows.
static void gm_remap(void *self, const cd_scene *s)
{
    grid_multi *g = self;
    coh_remap(g, s);
    g->ax_samples = 0;  // other objects in the sampled slots: the next frame samples anew, the counts stay
    if (!g->rows_made || g->n != s->count) return;
    finish_parts(g);
    cd_scene_renumber_slots(s, g->id, g->id_cap, ID_MASK);
    cd_scene_move_slot_values(s, g->span, g->old_span);
    SWAP(uint32_t *, g->span, g->old_span);
    SWAP(size_t, g->span_cap, g->old_span_cap);
}

// A sub's scene gained objects (the dirty list grew): its per-object arrays grow with their
// contents, and the new objects enter as new to every row (last frame's span SPAN_BIG), so the
// rows kept from last frame stay (a new layout would sort every row afresh).
static void gm_grow(grid_multi *g, uint32_t n)
{
    cd_grow((void **)&g->span, sizeof *g->span, &g->span_cap, n);  // last frame's spans, kept
    for (uint32_t i = g->n; i < n; ++i) g->span[i] = SPAN_BIG;
    buf_reserve((void **)&g->old_span, sizeof *g->old_span, &g->old_span_cap, n);
    buf_reserve((void **)&g->todo, sizeof *g->todo, &g->todo_cap, n);
    buf_reserve((void **)&g->moved, sizeof *g->moved, &g->moved_cap, (size_t)n + GM_MOVED_PAD);
    memset(g->moved + n, 0, GM_MOVED_PAD);
    g->n = n;
}

// The big objects' rows (big_row) and, per z row, the big objects that reach it (zbig_at, zbig):
// sweep_part queries each row against those of them that reach its y as well.
static void list_big_rows(grid_multi *g, const cd_scene *s)
{
    uint32_t dz = g->dim[1], nb = g->nbig, total = 0;
    buf_reserve((void **)&g->zbig_at, sizeof *g->zbig_at, &g->zbig_at_cap, (size_t)dz + 1);
    memset(g->zbig_at, 0, ((size_t)dz + 1) * sizeof *g->zbig_at);
    if (!nb) return;
    buf_reserve((void **)&g->big_row, sizeof *g->big_row, &g->big_row_cap, 4 * (size_t)nb);
    for (uint32_t i = 0; i < nb; ++i) {
        uint32_t *r = g->big_row + 4 * (size_t)i;
        big_rows(g, &s->box[g->big[i]], r);
        g->zbig_at[r[2]]++, total += r[3] - r[2] + 1;
        if (r[3] + 1 < dz) g->zbig_at[r[3] + 1]--;  // a difference array: counts per z row below
    }
    for (uint32_t z = 1; z < dz; ++z) g->zbig_at[z] += g->zbig_at[z - 1];  // now: bigs reaching z
    uint32_t at = 0;
    for (uint32_t z = 0; z <= dz; ++z) {  // counts to offsets, each z row's end at first
        uint32_t c = z < dz ? g->zbig_at[z] : 0;
        g->zbig_at[z] = at + c;
        at += c;
    }
    buf_reserve((void **)&g->zbig, sizeof *g->zbig, &g->zbig_cap, total ? total : 1);
    for (uint32_t i = nb; i-- > 0;)  // back to front: each z row's entries end up in index order
        for (uint32_t z = g->big_row[4 * (size_t)i + 2]; z <= g->big_row[4 * (size_t)i + 3]; ++z)
            g->zbig[--g->zbig_at[z]] = i;
}

// The row axis, on its own (axis = auto). Rows pay for an object that changes rows (it leaves
// one, enters another at its place), not for one that moves along its rows (the insertion sort
// mends the few swaps): rows should run along the axis objects cross cells along most, the fall
// of a free-falling scene, say. Every frame on the full path, the cells on x, y and z of every
// ax_stride-th object (about GM_AXIS_SAMPLES of them, lo by the row map) are compared with last
// frame's; after GM_AXIS_FRAMES frames the counts decide. Rows move to the axis crossed most when
// it was crossed at least twice as often as the row axis and by at least one sampled object in
// 64 a frame (fewer changes cost little wherever the rows run): uniform motion never moves them,
// nor does sampling noise, and the factor two keeps them from swinging between two axes. Returns
// 1 when the rows moved (the caller makes a new layout). The same boxes give the same decisions
// on every thread count and SIMD path.
enum { GM_AXIS_SAMPLES = 2048, GM_AXIS_MIN_STRIDE = 16, GM_AXIS_FRAMES = 8 };
static int axis_watch(grid_multi *g, const cd_scene *s)
{
    uint32_t n = s->count, stride = n / GM_AXIS_SAMPLES > GM_AXIS_MIN_STRIDE ? n / GM_AXIS_SAMPLES : GM_AXIS_MIN_STRIDE;
    uint32_t m = n ? (n - 1) / stride + 1 : 0;
    if (g->axis_param >= 0 || g->layout_of || !m) return 0;
    buf_reserve((void **)&g->ax_cell, sizeof *g->ax_cell, &g->ax_cell_cap, 3 * (size_t)m);
    int compare = g->ax_samples == m && g->ax_stride == stride;
    uint32_t cross[3] = {0, 0, 0};
    for (uint32_t j = 0; j < m; ++j) {
        const float *lo = s->box[(size_t)j * stride].lo;
        uint16_t *cell = g->ax_cell + 3 * (size_t)j;
        for (int k = 0; k < 3; ++k) {
            uint16_t c = (uint16_t)row_in(g, lo[k], g->side);  // the square grid's cell on any axis (≤ 2^15)
            if (compare) cross[k] += c != cell[k];
            cell[k] = c;
        }
    }
    g->ax_samples = m, g->ax_stride = stride;
    if (!compare) return 0;  // a first sample, or other cubes in the sampled slots: the counts wait
    for (int k = 0; k < 3; ++k) g->ax_cross[k] += cross[k];
    if (++g->ax_frames < GM_AXIS_FRAMES) return 0;
    int best = 0, now = g->ax[0];
    for (int k = 1; k < 3; ++k) best = g->ax_cross[k] > g->ax_cross[best] ? k : best;
    int move = best != now && g->ax_cross[best] >= 2 * g->ax_cross[now] &&
               g->ax_cross[best] * 64 >= (uint64_t)m * GM_AXIS_FRAMES;
    g->ax_frames = 0, g->ax_cross[0] = g->ax_cross[1] = g->ax_cross[2] = 0;
    if (move) gm_set_axis(g, best);
    return move;
}

// Every ax_stride-th box (as axis_watch samples them) against the layer cut: 1 (a new layout is
// due) when at least one sampled box in 64 now reaches past the last row of an axis that
// layer_rows cut short. Boxes there are still exact, only crowded into that row.
static int layer_spill(const grid_multi *g, const cd_scene *s)
{
    if (g->layout_of || (g->dim[0] == g->side && g->dim[1] == g->side)) return 0;
    uint32_t n = s->count, stride = n / GM_AXIS_SAMPLES > GM_AXIS_MIN_STRIDE ? n / GM_AXIS_SAMPLES : GM_AXIS_MIN_STRIDE;
    uint32_t samples = 0, past = 0;
    for (uint32_t i = 0; i < n; i += stride, ++samples)
        for (int k = 0; k < 2; ++k) past += row_in(g, s->box[i].hi[g->ax[1 + k]], g->side) >= g->dim[k];
    return (uint64_t)past * 64 >= samples && past;
}

// Auto cells of a grid (not a sub, which takes its grid's): from the box tests per slot of the
// last frame when every part was swept (the counts are the same on every path and thread count),
// a new cell scale, returning 1 when it changed (by a tenth or more: the caller lays the rows out
// anew). See GM_WINDOW_LONG.
static int cell_watch(grid_multi *g)
{
    if (g->layout_of || g->cell_param > 0.0) return 0;
    uint64_t tests = 0;
    int all = 1;
    for (uint32_t k = 0; k < CD_BROAD_PARTS; ++k) all &= g->part_swept[k], tests += g->part_tests[k];
    memset(g->part_swept, 0, sizeof g->part_swept);  // each full frame starts unmarked
    if (!g->rows_made) return 0;
    if (g->cell_hold) --g->cell_hold;
    if (!all || !g->boxes_in_rows || g->cell_hold) return 0;
    double w = (double)tests / (double)g->boxes_in_rows, scale = g->cell_scale;
    if (w > GM_WINDOW_LONG || (w < GM_WINDOW_SHORT && scale < 1.0)) scale *= sqrt(GM_WINDOW_AIM / w);
    scale = scale < GM_CELL_SCALE_MIN ? GM_CELL_SCALE_MIN : scale > 1.0 ? 1.0 : scale;
    if (!(fabs(scale - g->cell_scale) >= 0.1 * g->cell_scale)) return 0;
    g->cell_scale = scale;
    g->cell_hold = GM_CELL_HOLD;
    return 1;
}

static void gm_update_full(grid_multi *g, const cd_scene *s)
{
    uint32_t n = s->count;
    finish_parts(g);  // reads last frame's moved[] and spans: before they grow
    if (g->layout_of && g->rows_made && n > g->n && s->world == g->world)
        gm_grow(g, n);
    else if (n != g->n || s->world != g->world)
        gm_layout(g, s);
    // Rows afresh along a new axis (and a new sample), or over the layer's new height.
    // Or in cells scaled to last frame's windows (cell_watch first: it also clears the parts' marks).
    int rescaled = cell_watch(g);
    if (rescaled || axis_watch(g, s) || layer_spill(g, s)) gm_layout(g, s);
    // Last frame's rows become old_*; this frame fills the others.
    SWAP(uint32_t *, g->start, g->old_start);
    SWAP(size_t, g->start_cap, g->old_start_cap);
    SWAP(uint32_t *, g->span, g->old_span);
    SWAP(size_t, g->span_cap, g->old_span_cap);
    SWAP(uint32_t *, g->id, g->old_id);
    SWAP(size_t, g->id_cap, g->old_id_cap);
    g->ordered = g->rows_made;
    int threads = g->threads > 1 && n >= GM_PARALLEL_MIN ? g->threads : 1;
    // Per thread: gone and appended counters per row (and dy + 1 spare), then bigs.
    size_t R = g->nrows, span_rows = R + g->dim[0] + 1, stride = 2 * span_rows + 1;
    buf_reserve((void **)&g->hist, sizeof *g->hist, &g->hist_cap, (size_t)threads * stride);
    int nt = 1;
#pragma omp parallel num_threads(threads) if (threads > 1)
    {
        int t = omp_get_thread_num();
#pragma omp single
        nt = omp_get_num_threads();
        uint32_t i0 = (uint32_t)((uint64_t)n * t / nt), i1 = (uint32_t)((uint64_t)n * (t + 1) / nt);
        uint32_t *gone = g->hist + t * stride, *app = gone + span_rows, *bigs = app + span_rows;
        uint32_t *todo = g->todo + i0, ntodo = 0;
        memset(gone, 0, stride * sizeof *gone);
#if GM_WIDE
        if (g->simd == GM_AVX512)
            count_share_wide(g, s, i0, i1, gone, app, bigs, todo, &ntodo);
        else if (g->simd == GM_AVX2)
            count_share_avx2(g, s, i0, i1, gone, app, bigs, todo, &ntodo);
        else
#endif
            count_share(g, s, i0, i1, gone, app, bigs, todo, &ntodo);
        // The other threads' boxes (written by their motion step) in one sequential pass: the
        // kept placement then finds half its boxes in this core's caches instead of another's.
        // The pass costs far less than the transfers it saves. Not once the scene's slots follow
        // space (s->layout > 0): a thread's parts then hold mostly its own slots' boxes, and the
        // pass would only cost.
        if (nt > 1 && s->layout == 0) {
            pull_lines(s->box, (size_t)i0 * sizeof *s->box);
            pull_lines(s->box + i1, (size_t)(n - i1) * sizeof *s->box);
        }
#pragma omp barrier
#pragma omp single
        {
            place(g, nt);
            split_parts(g);
            memset(g->part_ready, 0, sizeof g->part_ready);
        }
        place_new(g, todo, ntodo, app, bigs);
    }
    g->rows_made = 1;
    if (!g->layout_of) list_big_rows(g, s);  // a sub's big objects are coh_bigs' to scan
}

// The frame's update: coherent when allowed (the frame keeps pairs), the scene knows what moved
// since the last update, the static rows are there and the dirty objects stay few; else the full
// path, and the static rows built when few moved (so the next frame can be coherent).
static int gm_update_mode(grid_multi *g, const cd_scene *s, cd_scene_moves *out, int allowed)
{
    g->coh_frame = 0;
    if (g->coherence == GM_COH_OFF) {
        gm_update_full(g, s);
        return 0;
    }
    cd_scene_moves m;
    int known = cd_scene_moves_since(s, &g->coh_seen, &m);
    if (s->count != g->n || s->world != g->world) g->coh_valid = 0;  // a new layout on the full path
    if (allowed && known && g->coh_valid && coh_update(g, s, &m)) {
        g->coh_frame = 1;
        g->rows_made = 0;  // the full path's rows fall behind: its next frame starts afresh
        *out = m;
        return 1;
    }
    gm_update_full(g, s);
    g->coh_valid = 0;
    uint32_t limit = g->coherence == GM_COH_ALWAYS ? s->count : s->count / GM_COHERENT_SHARE;
    if (allowed && known && m.count <= limit) coh_build(g, s);
    return 0;
}

static void gm_update(void *self, const cd_scene *s)
{
    cd_scene_moves m;
    gm_update_mode(self, s, &m, 0);
}

static int gm_update_coherent(void *self, const cd_scene *s, cd_scene_moves *moved)
{
    return gm_update_mode(self, s, moved, 1);
}

// Bit l set when the pair (a, slot q + l) belongs to this row: the two boxes' flags together
// hold STARTS_Y and STARTS_Z.
static inline unsigned block_owned(const uint32_t *ids, uint32_t aflags, uint32_t q)
{
#ifdef __SSE2__
    const __m128i both = _mm_set1_epi32((int)(STARTS_Y | STARTS_Z));
    __m128i f = _mm_or_si128(_mm_loadu_si128((const __m128i *)(ids + q)), _mm_set1_epi32((int)aflags));
    return (unsigned)_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(_mm_and_si128(f, both), both)));
#else
    unsigned bits = 0;
    for (unsigned l = 0; l < CD_ROW_LANES; ++l)
        bits |= (unsigned)(((ids[q + l] | aflags) & (STARTS_Y | STARTS_Z)) == (STARTS_Y | STARTS_Z)) << l;
    return bits;
#endif
}

// The boxes in p's x window (those after p that start by its hi.x, reach), counted once the sweep
// stopped at the block at q of `lanes` boxes: the blocks before q lie wholly in the window, and the
// window is a prefix of the last (rows are sorted by lo.x). The box tests a frame reports, the same
// for either sweep, so software counters do not depend on the CPU.
static inline uint64_t window_boxes(const float *lox, uint32_t p, uint32_t q, uint32_t lanes, float reach)
{
    uint32_t n = q - (p + 1);
    for (uint32_t l = 0; l < lanes; ++l) n += lox[q + l] <= reach;
    return n;
}

// Probe a against the slots of e from q on while they start within a's x range (lo.x ≤ a's
// hi.x; the slots are sorted by lo.x and a pad at lo.x = +inf ends every row), CD_ROW_LANES per
// block: each overlapping slot whose pair with a this row owns, to sink. Returns the slots in the
// window (window_boxes).
static inline uint64_t window(const cd_row_cols *e, const cd_row_probe *a, uint32_t q, cd_pair_sink *sink)
{
    uint32_t aid = a->id & ID_MASK, aflags = a->id & ~ID_MASK, q0 = q;
    for (;; q += CD_ROW_LANES) {
        unsigned hits = cd_row_block_hits(e, a, q) & block_owned(e->id, aflags, q);
        if (hits) cd_row_emit(e->id, ID_MASK, aid, q, hits, sink);
        if (!(e->lo[0][q + CD_ROW_LANES - 1] <= a->hi[0])) break;
    }
    return window_boxes(e->lo[0], q0 - 1, q, CD_ROW_LANES, a->hi[0]);
}

// The row in slots [a0, a1) of the columns against itself: each box against the boxes after it
// while they start within its x range (the pads, at lo.x = +inf, end every row).
static uint64_t sweep_row(const cd_row_cols *cols, uint32_t a0, uint32_t a1, cd_pair_sink *sink)
{
    // A local copy of the column pointers: the pair stores could alias the caller's, which the
    // loop would then reload after every block.
    const cd_row_cols e = *cols;
    uint64_t tests = 0;
    for (uint32_t p = a0; p + 1 < a1; ++p) {
        cd_row_probe a = cd_row_probe_of(&e, p);
        tests += window(&e, &a, p + 1, sink);
    }
    return tests;
}

#if GM_WIDE
// The pairs from *out on go to sink's buffer, which has room for the caller's next stores while *out
// ≤ last: past it, sink takes what is there and *out starts again where it left off.
static inline void make_room(cd_pair **out, const cd_pair *last, cd_pair_sink *sink)
{
    if (*out > last) {
        sink->count = (uint32_t)(*out - sink->buf);
        sink->flush(sink);
        *out = sink->buf + sink->count;
    }
}

// The block test of both paths' windows at slot q, its lanes kept where alive (all ones, or none):
// the box tests counted into *tests, the ids of the block (with flags) in *ids; returns the owned
// hits. Shared through this inlined helper with the probe as six vectors by pointer, GCC keeps the
// probe in registers (as a struct, and again with the id column by pointer, it kept the probe on the
// stack and reloaded it in every block: broad 17-25 % slower at 10 000 and 100 000 cubes).
__attribute__((always_inline, target("avx2,popcnt"))) static inline unsigned
block_hits(const cd_row_cols *e, const __m256 *lo, const __m256 *hi, __m256i aflags, uint32_t q, __m256 alive,
           uint64_t *tests, __m256i *ids)
{
    const __m256i both = _mm256_set1_epi32((int)(STARTS_Y | STARTS_Z));
    __m256 in_x = _mm256_and_ps(alive, _mm256_cmp_ps(_mm256_loadu_ps(e->lo[0] + q), hi[0], _CMP_LE_OQ));
    *tests += (uint64_t)__builtin_popcount((unsigned)_mm256_movemask_ps(in_x));
    __m256 m = _mm256_and_ps(in_x, _mm256_cmp_ps(lo[0], _mm256_loadu_ps(e->hi[0] + q), _CMP_LE_OQ));
    for (int k = 1; k < 3; ++k)
        m = _mm256_and_ps(m, _mm256_and_ps(_mm256_cmp_ps(_mm256_loadu_ps(e->lo[k] + q), hi[k], _CMP_LE_OQ),
                                           _mm256_cmp_ps(lo[k], _mm256_loadu_ps(e->hi[k] + q), _CMP_LE_OQ)));
    __m256i bid = _mm256_loadu_si256((const __m256i *)(const void *)(e->id + q));
    __m256i owned = _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_or_si256(bid, aflags), both), both);
    *ids = bid;
    return (unsigned)_mm256_movemask_ps(_mm256_and_ps(m, _mm256_castsi256_ps(owned)));
}

// One block of window_wide at slot q, its lanes kept where alive (all ones, or none): the box
// tests counted, the owned hits' pairs stored. The probe as in window_wide.
__attribute__((always_inline, target("avx2,avx512f,avx512vl,popcnt"))) static inline void
block_wide(const cd_row_cols *e, const __m256 *lo, const __m256 *hi, __m256i aflags, __m512i a_half, uint32_t q,
           __m256 alive, uint64_t *tests, cd_pair **out)
{
    const __m256i id_mask = _mm256_set1_epi32((int)ID_MASK);
    __m256i bid;
    unsigned hits = block_hits(e, lo, hi, aflags, q, alive, tests, &bid);
    __m512i b_half = _mm512_slli_epi64(_mm512_cvtepu32_epi64(_mm256_and_si256(bid, id_mask)), 32);
    _mm512_storeu_si512((void *)*out, _mm512_maskz_compress_epi64((__mmask8)hits, _mm512_or_si512(a_half, b_half)));
    *out += __builtin_popcount(hits);
}

// The body of window_wide and window_avx2, which differ only in their block (BLOCK: block_wide or
// block_avx2) and in how the probe's half of its pairs comes (AID: a_half or aid).
#define GM_WINDOW_BLOCKS(BLOCK, AID)                                                                                   \
    const __m256 all = _mm256_castsi256_ps(_mm256_set1_epi32(-1));                                                     \
    uint64_t tests = 0;                                                                                                \
    if (two_blocks) { /* the second masked off where the first ended the window */                                     \
        make_room(out, last, sink);                                                                                    \
        BLOCK(e, lo, hi, aflags, AID, q, all, &tests, out);                                                            \
        __m256 more = _mm256_cmp_ps(_mm256_broadcast_ss(e->lo[0] + q + GM_WIDE_LANES - 1), hi[0], _CMP_LE_OQ);         \
        BLOCK(e, lo, hi, aflags, AID, q + GM_WIDE_LANES, more, &tests, out);                                           \
        if (!(e->lo[0][q + GM_WIDE_LANES - 1] <= reach && e->lo[0][q + 2 * GM_WIDE_LANES - 1] <= reach)) return tests; \
        q += 2 * GM_WIDE_LANES;                                                                                        \
    }                                                                                                                  \
    for (;; q += GM_WIDE_LANES) {                                                                                      \
        make_room(out, last, sink);                                                                                    \
        BLOCK(e, lo, hi, aflags, AID, q, all, &tests, out);                                                            \
        if (!(e->lo[0][q + GM_WIDE_LANES - 1] <= reach)) break;                                                        \
    }                                                                                                                  \
    return tests

// window for CPUs with AVX-512: blocks of GM_WIDE_LANES boxes (a window of up to seven boxes is
// one block) and branch-free emission (every block stores its eight (a, b) pairs, compressed to
// its owned hits, and moves the end by their number). The portable window's two branches, "any
// hit?" and "window longer than the block?", are the ones random rows mispredict. Same pairs in
// the same order (lanes keep their order in the compress). The probe comes as its broadcast
// bounds (lo, hi: three each), its x reach, flags and (a, 0) pair half; pairs go to *out, with
// room for a block from *out to last, else through the sink. Returns the slots in the window.
// With two_blocks (the static queries of coherent frames, two blocks of room from *out to last)
// the first two blocks run without a branch on the window's end, the second masked off where the
// first ended the window (it may read the next row's first slots, or the spare entries after the
// last row, never their pairs): a static window holds about 13 slots from its start, so most take
// two blocks, and the branch on the first block's end went either way.
__attribute__((always_inline, target("avx2,avx512f,avx512vl,popcnt"))) static inline uint64_t
window_wide(const cd_row_cols *e, const __m256 *lo, const __m256 *hi, float reach, __m256i aflags, __m512i a_half,
            uint32_t q, cd_pair **out, cd_pair *last, cd_pair_sink *sink, int two_blocks)
{
    GM_WINDOW_BLOCKS(block_wide, a_half);
}

// window_wide for the static queries (two_blocks) with the first two blocks as one of sixteen
// lanes: one compare a bound (into a mask, the masks chained) where the eight-lane blocks took two
// compares, a movemask and an and each. The lanes past the eighth live only where the eighth is in
// the window, as the second block's; their pairs are stored as the second block's are: the same
// pairs, order and box tests as window_wide's. The probe as there, its bounds in sixteen lanes.
__attribute__((always_inline, target("avx2,avx512f,avx512vl,popcnt"))) static inline uint64_t
window_static_wide(const cd_row_cols *e, const __m512 *lo, const __m512 *hi, float reach, __m512i aflags,
                   __m512i a_half, uint32_t q, cd_pair **out, cd_pair *last, cd_pair_sink *sink)
{
    const __m512i both = _mm512_set1_epi32((int)(STARTS_Y | STARTS_Z)), id_mask = _mm512_set1_epi32((int)ID_MASK);
    make_room(out, last, sink);
    __mmask16 in_x = _mm512_cmp_ps_mask(_mm512_loadu_ps(e->lo[0] + q), hi[0], _CMP_LE_OQ);
    in_x &= (__mmask16)(in_x & 0x80 ? 0xFFFF : 0x00FF);
    uint64_t tests = (uint64_t)__builtin_popcount((unsigned)in_x);
    __mmask16 m = _mm512_mask_cmp_ps_mask(in_x, lo[0], _mm512_loadu_ps(e->hi[0] + q), _CMP_LE_OQ);
    for (int k = 1; k < 3; ++k) {
        m = _mm512_mask_cmp_ps_mask(m, _mm512_loadu_ps(e->lo[k] + q), hi[k], _CMP_LE_OQ);
        m = _mm512_mask_cmp_ps_mask(m, lo[k], _mm512_loadu_ps(e->hi[k] + q), _CMP_LE_OQ);
    }
    __m512i bid = _mm512_loadu_si512((const void *)(e->id + q));
    m = _mm512_mask_cmpeq_epi32_mask(m, _mm512_and_si512(_mm512_or_si512(bid, aflags), both), both);
    // The owned hits' ids to the front in one compress, then as pairs, eight at a time.
    __m512i b = _mm512_maskz_compress_epi32(m, _mm512_and_si512(bid, id_mask));
    __m512i b_half = _mm512_slli_epi64(_mm512_cvtepu32_epi64(_mm512_castsi512_si256(b)), 32);
    _mm512_storeu_si512((void *)*out, _mm512_or_si512(a_half, b_half));
    b_half = _mm512_slli_epi64(_mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64(b, 1)), 32);
    _mm512_storeu_si512((void *)(*out + GM_WIDE_LANES), _mm512_or_si512(a_half, b_half));
    *out += __builtin_popcount((unsigned)m);
    if ((in_x & 0x8080) != 0x8080) return tests;  // lo.x ≤ reach in lanes 7 and 15: the window goes on
    __m256 lo8[3], hi8[3];
    for (int k = 0; k < 3; ++k) lo8[k] = _mm512_castps512_ps256(lo[k]), hi8[k] = _mm512_castps512_ps256(hi[k]);
    return tests + window_wide(e, lo8, hi8, reach, _mm512_castsi512_si256(aflags), a_half, q + 2 * GM_WIDE_LANES, out,
                               last, sink, 0);
}

// sweep_row on the AVX-512 path (window_wide).
__attribute__((target("avx2,avx512f,avx512vl,popcnt"))) static uint64_t
sweep_row_wide(const cd_row_cols *cols, uint32_t a0, uint32_t a1, cd_pair_sink *sink)
{
    const cd_row_cols e = *cols;  // local: the pair stores could alias the caller's
    // Locals: the pair stores could alias the sink's fields, which the loop would then reload.
    cd_pair *out = sink->buf + sink->count, *const last = sink->buf + sink->capacity - GM_WIDE_LANES;
    uint64_t tests = 0;
    for (uint32_t p = a0; p + 1 < a1; ++p) {
        __m256 lo[3], hi[3];
        for (int k = 0; k < 3; ++k) lo[k] = _mm256_set1_ps(e.lo[k][p]), hi[k] = _mm256_set1_ps(e.hi[k][p]);
        tests += window_wide(&e, lo, hi, e.hi[0][p], _mm256_set1_epi32((int)(e.id[p] & ~ID_MASK)),
                             _mm512_set1_epi64(e.id[p] & ID_MASK), p + 1, &out, last, sink, 0);
    }
    sink->count = (uint32_t)(out - sink->buf);
    return tests;
}

// block_wide on the AVX2 path: the owned hits' ids go to the front by a permute (front_lanes)
// instead of a compress, and the eight pairs are stored as two interleaves of (a, b). The probe as
// in window_avx2.
__attribute__((always_inline, target("avx2,popcnt"))) static inline void
block_avx2(const cd_row_cols *e, const __m256 *lo, const __m256 *hi, __m256i aflags, __m256i aid, uint32_t q,
           __m256 alive, uint64_t *tests, cd_pair **out)
{
    const __m256i id_mask = _mm256_set1_epi32((int)ID_MASK);
    __m256i bid;
    unsigned hits = block_hits(e, lo, hi, aflags, q, alive, tests, &bid);
    __m256i b = _mm256_permutevar8x32_epi32(_mm256_and_si256(bid, id_mask), front_lanes(hits));
    b = _mm256_permute4x64_epi64(b, 0xD8);
    _mm256_storeu_si256((__m256i *)(void *)*out, _mm256_unpacklo_epi32(aid, b));
    _mm256_storeu_si256((__m256i *)(void *)(*out + 4), _mm256_unpackhi_epi32(aid, b));
    *out += __builtin_popcount(hits);
}

// window for CPUs with AVX2: the same blocks, counts and branch-free emission (block_avx2). The
// probe as in window_wide, with aid its id broadcast.
__attribute__((always_inline, target("avx2,popcnt"))) static inline uint64_t
window_avx2(const cd_row_cols *e, const __m256 *lo, const __m256 *hi, float reach, __m256i aflags, __m256i aid,
            uint32_t q, cd_pair **out, cd_pair *last, cd_pair_sink *sink, int two_blocks)
{
    GM_WINDOW_BLOCKS(block_avx2, aid);
}
#undef GM_WINDOW_BLOCKS

// sweep_row on the AVX2 path (window_avx2).
__attribute__((target("avx2,popcnt"))) static uint64_t sweep_row_avx2(const cd_row_cols *cols, uint32_t a0, uint32_t a1,
                                                                      cd_pair_sink *sink)
{
    const cd_row_cols e = *cols;  // local: the pair stores could alias the caller's
    cd_pair *out = sink->buf + sink->count, *const last = sink->buf + sink->capacity - GM_WIDE_LANES;
    uint64_t tests = 0;
    for (uint32_t p = a0; p + 1 < a1; ++p) {
        __m256 lo[3], hi[3];
        for (int k = 0; k < 3; ++k) lo[k] = _mm256_set1_ps(e.lo[k][p]), hi[k] = _mm256_set1_ps(e.hi[k][p]);
        tests += window_avx2(&e, lo, hi, e.hi[0][p], _mm256_set1_epi32((int)(e.id[p] & ~ID_MASK)),
                             _mm256_set1_epi32((int)(e.id[p] & ID_MASK)), p + 1, &out, last, sink, 0);
    }
    sink->count = (uint32_t)(out - sink->buf);
    return tests;
}
#endif

// Row [a0, a1) of cols swept on g's SIMD path: every pair of its boxes that overlap, to sink.
static inline uint64_t sweep_row_on_path(const grid_multi *g, const cd_row_cols *cols, uint32_t a0, uint32_t a1,
                                         cd_pair_sink *sink)
{
#if GM_WIDE
    if (g->simd == GM_AVX512) return sweep_row_wide(cols, a0, a1, sink);
    if (g->simd == GM_AVX2) return sweep_row_avx2(cols, a0, a1, sink);
#endif
    return sweep_row(cols, a0, a1, sink);
}

#if GM_WIDE
// One box b (id and flags idf) against the row slots of e from q on, on the AVX-512 path
// (window_wide). Returns the slots in its window.
__attribute__((target("avx2,avx512f,avx512vl,popcnt"))) static uint64_t
probe_row_wide(const cd_row_cols *cols, const id_box *b, uint32_t idf, uint32_t q, cd_pair_sink *sink)
{
    const cd_row_cols e = *cols;  // local: the pair stores could alias the caller's
    cd_pair *out = sink->buf + sink->count, *const last = sink->buf + sink->capacity - GM_WIDE_LANES;
    __m256 lo[3], hi[3];
    for (int k = 0; k < 3; ++k) lo[k] = _mm256_set1_ps(b->lo[k]), hi[k] = _mm256_set1_ps(b->hi[k]);
    uint64_t tests = window_wide(&e, lo, hi, b->hi[0], _mm256_set1_epi32((int)(idf & ~ID_MASK)),
                                 _mm512_set1_epi64(idf & ID_MASK), q, &out, last, sink, 0);
    sink->count = (uint32_t)(out - sink->buf);
    return tests;
}

// The same on the AVX2 path (window_avx2).
__attribute__((target("avx2,popcnt"))) static uint64_t probe_row_avx2(const cd_row_cols *cols, const id_box *b,
                                                                      uint32_t idf, uint32_t q, cd_pair_sink *sink)
{
    const cd_row_cols e = *cols;
    cd_pair *out = sink->buf + sink->count, *const last = sink->buf + sink->capacity - GM_WIDE_LANES;
    __m256 lo[3], hi[3];
    for (int k = 0; k < 3; ++k) lo[k] = _mm256_set1_ps(b->lo[k]), hi[k] = _mm256_set1_ps(b->hi[k]);
    uint64_t tests = window_avx2(&e, lo, hi, b->hi[0], _mm256_set1_epi32((int)(idf & ~ID_MASK)),
                                 _mm256_set1_epi32((int)(idf & ID_MASK)), q, &out, last, sink, 0);
    sink->count = (uint32_t)(out - sink->buf);
    return tests;
}
#endif

// Row r (slots [a0, a0 + len) of e) against the big objects that reach it: each big box from the
// row's first slot while lo.x ≤ its hi.x, the pair reported where the row owns it (the big box's
// flags as a slot of this row would have them, so the row of (max lo.y, max lo.z) of the two
// boxes, as for two small ones: both reach it, and only it has the flags). Returns the slots read.
static uint64_t big_row_pairs(const grid_multi *g, const cd_scene *s, size_t r, const cd_row_cols *e, uint32_t a0,
                              cd_pair_sink *sink)
{
    uint32_t ry = (uint32_t)r % g->dim[0], rz = (uint32_t)r / g->dim[0];  // 32-bit: nrows ≤ 2^30
    uint64_t tests = 0;
    for (uint32_t k = g->zbig_at[rz]; k < g->zbig_at[rz + 1]; ++k) {
        const uint32_t *row = g->big_row + 4 * (size_t)g->zbig[k];
        if (ry < row[0] || ry > row[1]) continue;
        uint32_t id = g->big[g->zbig[k]], idf = id | (ry == row[0] ? STARTS_Y : 0) | (rz == row[2] ? STARTS_Z : 0);
        id_box b = gm_box(g, &s->box[id], idf);
#if GM_WIDE
        if (g->simd == GM_AVX512) {
            tests += probe_row_wide(e, &b, idf, a0, sink);
            continue;
        }
        if (g->simd == GM_AVX2) {
            tests += probe_row_avx2(e, &b, idf, a0, sink);
            continue;
        }
#endif
        cd_row_probe p;
        for (int j = 0; j < 3; ++j) p.lo[j] = b.lo[j], p.hi[j] = b.hi[j];
#ifdef __SSE2__
        for (int j = 0; j < 3; ++j) p.vlo[j] = _mm_set1_ps(p.lo[j]), p.vhi[j] = _mm_set1_ps(p.hi[j]);
#endif
        p.id = idf;
        tests += window(e, &p, a0, sink);
    }
    return tests;
}

// A free scratch for this call (there are as many as threads can call at once).
static uint32_t scratch_take(grid_multi *g)
{
    for (;;)
        for (uint32_t k = 0; k < GM_MAX_THREADS; ++k)
            if (!atomic_exchange_explicit(&g->scratch_busy[k], 1, memory_order_acquire)) return k;
}

static void scratch_give(grid_multi *g, uint32_t k)
{
    atomic_store_explicit(&g->scratch_busy[k], 0, memory_order_release);
}

// Columns for n slots in scratch c; the id column is the frame's ids from slot base on (ids), so
// the sort orders them in place for the next frame (no copy back), and a part's slots are its
// own, whichever thread sweeps it.
static cd_row_cols scratch_cols(gm_scratch *c, size_t n, uint32_t *ids)
{
    reserve_slack((void **)&c->col, sizeof *c->col, &c->col_cap, 6 * n);
    cd_row_cols e;
    cd_row_cols_in(&e, c->col, c->col_cap / 6);
    e.id = ids;
    return e;
}

// Fine part k (of CD_BROAD_PARTS) as columns in scratch c, slot j of the frame at j − *base: its
// rows' boxes gathered; the first time in a frame also its kept ids placed, its rows sorted and the
// sorted ids kept for the next frame. Returns its slots (0: nothing was gathered).
static uint32_t part_cols(grid_multi *g, const cd_scene *s, gm_scratch *c, uint32_t k, cd_row_cols *e, uint32_t *base)
{
    size_t r0 = g->part_rows[k], r1 = g->part_rows[k + 1];
    uint32_t n = g->start[r1] - g->start[r0];
    *base = g->start[r0];
    if (!n) return 0;
    int first = !g->part_ready[k];
    if (first) {
#if GM_WIDE
        if (g->simd == GM_AVX512)
            place_kept_wide(g, r0, r1);
        else if (g->simd == GM_AVX2)
            place_kept_avx2(g, r0, r1);
        else
#endif
            place_kept(g, r0, r1);
    }
    *e = scratch_cols(c, n, g->id + *base);
#if GM_WIDE
    if (g->simd != GM_SSE2)
        load_cols_avx2(g, s, e, *base, r0, r1);
    else
#endif
        load_cols(g, s, e, *base, r0, r1);
    if (first) {
        sort_rows(g, e, *base, r0, r1);  // also the ids of g->id (e->id)
        g->part_ready[k] = 1;
    }
    return n;
}

// Fine part k swept into sink (part_cols). Returns the box tests.
static uint64_t sweep_part(grid_multi *g, const cd_scene *s, gm_scratch *c, uint32_t k, cd_pair_sink *sink)
{
    cd_row_cols e;
    uint32_t base;
    g->part_swept[k] = 1, g->part_tests[k] = 0;
    if (!part_cols(g, s, c, k, &e, &base)) return 0;
    uint64_t tests = 0;
    for (size_t r = g->part_rows[k]; r < g->part_rows[k + 1]; ++r) {
        uint32_t a0 = g->start[r] - base, len = row_len(g->start, r);
        if (!len) continue;
        tests += sweep_row_on_path(g, &e, a0, a0 + len, sink);
        if (g->nbig) tests += big_row_pairs(g, s, r, &e, a0, sink);
    }
    g->part_tests[k] = tests;
    return tests;
}

// ---------------------------------------------------------------------------------------------
// Coherent frames (coherence = auto | always): the frame keeps last frame's pairs of two objects
// off the scene's move list (cd_broad.h, "Kept pairs"), so only the pairs with a moved object are
// asked for. Two structures, as a static and a dynamic tree:
//
// - the static rows: every object's slots as the rows above, sorted by lo.x, built from the boxes
//   of one frame, with each row's prefix maximum of hi.x and an x index, and left as they are
//   while objects move;
// - the dirty objects: those listed as moved since the static rows were built. Their slots in the
//   static rows are stale: each is killed when its object turns dirty (lo.y = +inf, so no box
//   overlaps it; lo.x stays, so the row stays sorted). The dirty objects are a scene of their own
//   (sub_scene: their boxes by dlist index), kept in rows by a second grid_multi on the same cells
//   (sub), which follows them from frame to frame as the full path does every object: a box that
//   stays in its rows keeps its place, and a few neighbours swap.
//
// A pair with a moved object p is then found once: with a clean object q in the static row of the
// pair's owner cell (p's rows are queried: the first slot whose prefix maximum of hi.x reaches
// p's lo.x, on while lo.x ≤ p's hi.x; the prefix maximum is monotone, so no arithmetic on the
// coordinates and no bound on the extents is needed), or with a dirty q in the dirty row of the
// owner cell (dropped there when neither moved this frame: the frame keeps those). The two grids
// share their cells, so a dirty row and the static row of its cell are read together, in row
// order. Big objects: a moved big one against every object (a moved big one only after it), a
// moved small one against every big one that did not move. Every box is tested on the scene's
// floats, so the candidates are exact as the full sweep's.
//
// The static rows are built on a frame that follows the full path when few objects moved, and
// dropped when the dirty objects outnumber n / GM_COHERENT_SHARE (rebuilt on the same frame), on
// a layout change and when the scene does not know what moved.

// The columns of n slots in col (stride n): lo x y z, hi x y z, then the prefix maximum of hi.x.
static cd_row_cols coh_cols(float *col, size_t stride, uint32_t *ids)
{
    cd_row_cols e;
    cd_row_cols_in(&e, col, stride);
    e.id = ids;
    return e;
}

// Every object's box (box[0, count)) into the static rows: st_start (nrows + 1 entries), st_id and
// st_col (GM_PAD pads after each non-empty row), each row sorted by lo.x (ties in object order),
// with each row's prefix maximum of hi.x; the big objects into st_big and each object's slots into
// st_where. The small boxes are radix-sorted by lo.x once, and their
// slots then dealt to the rows in that order (a stable counting sort), each as its object id and
// flags in the id column; a pass along the slots then fills in the boxes. No row is sorted on its
// own (a static row holds hundreds of boxes, O(len²) in an insertion sort), and the boxes are
// written in slot order: writing them while dealing, to hundreds of rows and seven columns at
// once, cost twice the rest of the bin.
static void coh_bin(grid_multi *g, const cd_aabbf *box, uint32_t count)
{
    size_t R = g->nrows;
    uint32_t dy = g->dim[0];
    // Row counts in st_start[0, R], with dy + 1 spare entries: the counts below add 0 to the rows
    // a span does not reach, which for the last row on y or z lie past it.
    buf_reserve((void **)&g->st_start, sizeof *g->st_start, &g->st_start_cap, R + dy + 2);
    buf_reserve((void **)&g->st_big, sizeof *g->st_big, &g->st_big_cap, count ? count : 1);
    buf_reserve((void **)&g->coh_key, sizeof *g->coh_key, &g->coh_key_cap, 5 * (size_t)(count ? count : 1));
    uint32_t *at = g->st_start, *key = g->coh_key, *which = key + count, *span = key + 4 * (size_t)count, small = 0;
    memset(at, 0, (R + dy + 2) * sizeof *at);
    g->st_nbig = 0;
    for (uint32_t k = 0; k < count; ++k) {
        uint32_t v = span_of(g, &box[k]);
        if (v == SPAN_BIG) {
            g->st_big[g->st_nbig++] = k;
            continue;
        }
        key[small] = float_order_key(box[k].lo[g->ax[0]]), which[small++] = k, span[k] = v;
        count_rows(dy, v, SPAN_BIG, at);  // each row v reaches
    }
    cd_radix_sort_u32(key, which, key + 2 * (size_t)count, key + 3 * (size_t)count, small);
    uint32_t slots = 0;
    for (size_t r = 0; r < R; ++r) {
        uint32_t c = at[r];
        at[r] = slots;
        slots += c + (c ? GM_PAD : 0);
    }
    at[R] = slots;
    g->st_stride = slots;
    // A spare entry for the deal below, then a block's worth that a static query's second block
    // (window_wide's two_blocks) reads, masked off, past the last row's pads; the coordinate
    // columns need none: a column read past its end reads the next one, and the last (the prefix
    // maxima) is never read there.
    buf_reserve((void **)&g->st_id, sizeof *g->st_id, &g->st_id_cap, (size_t)slots + 1 + GM_WIDE_LANES);
    memset(g->st_id + slots, 0, (1 + GM_WIDE_LANES) * sizeof *g->st_id);
    buf_reserve((void **)&g->st_col, sizeof *g->st_col, &g->st_col_cap, 7 * (size_t)(slots ? slots : 1));
    cd_row_cols e = coh_cols(g->st_col, slots, g->st_id);
    // Deal: at[r] is row r's next slot; once every slot is dealt it is the row's end, from which
    // the starts are restored below. Branch-free: each of the four rows (y0 | y0 + 1) × (z0 | z0 +
    // 1) takes its entry (slot_id's flags) or, where the span does not reach it, writes to the
    // spare entry at slots and leaves its count (as the counts above did).
    for (uint32_t i = 0; i < small; ++i) {
        uint32_t k = which[i], v = span[k], ry = v >> 30 & 1, rz = v >> 31;
        uint32_t *r = at + (size_t)span_z(v) * dy + span_y(v), t;
        t = r[0], e.id[t] = k | STARTS_Y | STARTS_Z, r[0] = t + 1;
        t = r[1], e.id[ry ? t : slots] = k | STARTS_Z, r[1] = t + ry;
        t = r[dy], e.id[rz ? t : slots] = k | STARTS_Y, r[dy] = t + rz;
        t = r[dy + 1], e.id[ry & rz ? t : slots] = k, r[dy + 1] = t + (ry & rz);
    }
    static const id_box pad = {{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}, 0, 0};
    float *top = g->st_col + 6 * (size_t)slots;
    uint32_t a0 = 0;
    for (size_t r = 0; r < R; ++r) {
        uint32_t end = at[r], len = end - a0;  // the row's boxes are [a0, end)
        at[r] = a0;
        if (!len) continue;
        float m = -INFINITY;
        for (uint32_t j = a0; j < end; ++j) {  // fill in the boxes, the prefix maximum and st_where
            uint32_t k = e.id[j] & ID_MASK;
            id_box b = gm_box(g, &box[k], e.id[j]);
            cd_row_put(&e, j, &b);
            top[j] = m = b.hi[0] > m ? b.hi[0] : m;
            uint32_t *w = g->st_where + 4 * (size_t)k;
            while (*w != UINT32_MAX) ++w;  // an object's first free entry of four
            *w = j;
        }
        for (uint32_t j = 0; j < GM_PAD; ++j) cd_row_put(&e, end + j, &pad);
        a0 = end + GM_PAD;
    }
}

// Static slots per bucket of a row's x index, on average: a query starts at most about this many
// slots before its window (2, 4 and 8 were measured: see the commit that chose it; again with the
// two-block windows, 100 000 cubes, a tenth moving, four interleaved rounds on the 2-vCPU AMD EPYC
// Zen 5 guest: broad 0.485-0.522 ms for 4, 0.506-0.530 for 8, 0.499-0.534 for 2).
enum { GM_BUCKET_SLOTS = 4 };

// The bucket of x in row index ix: trunc((x − x0) · inv) clamped to [0, nb − 1], in float (NaN
// goes to 0). Monotone in x (a rounded difference, a product by inv ≥ 0, the clamps and the
// truncation all are), which is all the index needs.
static inline uint32_t coh_bucket_in(float x, float x0, float inv, float top)
{
    float t = (x - x0) * inv;
#ifdef __SSE2__
    // maxss and minss as written below (t > 0 ? t : 0, t < top ? t : top), which GCC made a compare
    // and a blend and a branch.
    return (uint32_t)_mm_cvtss_f32(_mm_min_ss(_mm_max_ss(_mm_set_ss(t), _mm_setzero_ps()), _mm_set_ss(top)));
#else
    t = t > 0.0f ? t : 0.0f;
    return (uint32_t)(t < top ? t : top);
#endif
}

static inline uint32_t coh_bucket(const coh_row_index *ix, float x)
{
    return coh_bucket_in(x, ix->x0, ix->inv, (float)(ix->nb - 1));  // exact: nb ≤ 2^24
}

// Each static row's x index. The prefix maximum of hi.x (top) does not decrease along a row, so
// neither does its bucket, and the slots whose top lies in bucket b or later are a suffix of the
// row, starting at st_first[off + b] (the row's end when there are none). A query box p of bucket
// b = coh_bucket(p.lo.x) starts there: a slot j before it has coh_bucket(top[j]) < b, hence
// top[j] < p.lo.x (were top[j] ≥ p.lo.x, monotony would give bucket ≥ b), so its hi.x ≤ top[j]
// misses p. No bound on the extents and no arithmetic on the coordinates is needed for that; the
// index only decides how many slots before p's window the scan starts (about GM_BUCKET_SLOTS / 2).
static void coh_index(grid_multi *g)
{
    size_t R = g->nrows, total = 0;
    buf_reserve((void **)&g->st_index, sizeof *g->st_index, &g->st_index_cap, R ? R : 1);
    for (size_t r = 0; r < R; ++r) {
        uint32_t nb = row_len(g->st_start, r) / GM_BUCKET_SLOTS + 1;
        nb = nb < (1u << 24) ? nb : 1u << 24;
        g->st_index[r] = (coh_row_index){0.0f, 0.0f, (uint32_t)total, nb};
        total += nb;
    }
    buf_reserve((void **)&g->st_first, sizeof *g->st_first, &g->st_first_cap, total);
    const float *lox = g->st_col, *top = g->st_col + 6 * g->st_stride;
    for (size_t r = 0; r < R; ++r) {
        coh_row_index *ix = &g->st_index[r];
        uint32_t k0 = g->st_start[r], end = k0 + row_len(g->st_start, r), b = 0, *first = g->st_first + ix->off;
        if (end > k0) {  // the buckets span the row's lo.x but for a 32nd at each end (far outliers)
            uint32_t trim = (end - k0 - 1) / 32;
            float x0 = lox[k0 + trim], span = lox[end - 1 - trim] - x0, inv = (float)ix->nb / span;
            ix->x0 = isfinite(x0) ? x0 : 0.0f;
            ix->inv = isfinite(x0) && span > 0.0f && isfinite(inv) ? inv : 0.0f;  // else one bucket in effect
        }
        for (uint32_t k = k0; k < end; ++k)
            for (uint32_t kb = coh_bucket(ix, top[k]); b <= kb;) first[b++] = k;
        while (b < ix->nb) first[b++] = end;
    }
}

// The static rows from every object's box now; nothing is dirty, and the dirty rows start afresh
// on these cells.
static void coh_build(grid_multi *g, const cd_scene *s)
{
    uint32_t n = s->count;
    buf_reserve((void **)&g->st_where, sizeof *g->st_where, &g->st_where_cap, 4 * (size_t)(n ? n : 1));
    memset(g->st_where, 0xFF, 4 * (size_t)n * sizeof *g->st_where);
    coh_bin(g, s->box, n);
    coh_index(g);
    buf_reserve((void **)&g->dirty, 1, &g->dirty_cap, (size_t)n + 1);
    memset(g->dirty, 0, (size_t)n + 1);
    buf_reserve((void **)&g->dlist, sizeof *g->dlist, &g->dlist_cap, n ? n : 1);
    buf_reserve((void **)&g->dk, sizeof *g->dk, &g->dk_cap, n ? n : 1);
    if (!g->sub) {
        g->sub = cd_alloc_zero(1, sizeof *g->sub);
        g->sub->threads = g->threads, g->sub->simd = g->simd, g->sub->coherence = GM_COH_OFF;
        g->sub->layout_of = g;
    }
    g->sub->n = UINT32_MAX;  // a new layout on its next update, on these cells
    g->ndirty = 0;
    g->coh_valid = 1;
}

// A coherent frame on move list m when the dirty objects stay few enough: m's new objects become
// dirty (their static slots killed), the moved ones' boxes are copied to sub_scene and the dirty
// rows follow them. Returns 0 (nothing changed) when the dirty objects would be too many.
static int coh_update(grid_multi *g, const cd_scene *s, const cd_scene_moves *m)
{
    uint32_t fresh = 0, limit = g->coherence == GM_COH_ALWAYS ? s->count : s->count / GM_COHERENT_SHARE;
    for (uint32_t k = 0; k < m->count; ++k) fresh += !g->dirty[m->slot[k]];
    if (g->ndirty + fresh > limit) return 0;
    g->coh_m = *m;
    if (!m->count) return 1;
    size_t need = (size_t)g->ndirty + fresh + 1;  // and the zero record the AVX2 loads read past the last box
    cd_grow((void **)&g->dy_box, sizeof *g->dy_box, &g->dy_box_cap, need);
    cd_grow((void **)&g->kmoved, sizeof *g->kmoved, &g->kmoved_cap, need);
    memset(g->kmoved, 0, need);
    float *loy = g->st_col + g->st_stride;
    for (uint32_t i = 0; i < m->count; ++i) {
        uint32_t o = m->slot[i];
        if (!g->dirty[o]) {
            g->dirty[o] = 1, g->dk[o] = g->ndirty, g->dlist[g->ndirty++] = o;
            for (int j = 0; j < 4 && g->st_where[4 * (size_t)o + j] != UINT32_MAX; ++j)
                loy[g->st_where[4 * (size_t)o + j]] = INFINITY;  // killed: no box overlaps it
        }
        uint32_t k = g->dk[o];
        g->dy_box[k] = s->box[o], g->kmoved[k] = 1;
    }
    memset(&g->dy_box[g->ndirty], 0, sizeof *g->dy_box);
    g->sub_scene = *s;  // only count, box, world and layout are read
    g->sub_scene.count = g->ndirty, g->sub_scene.box = g->dy_box, g->sub_scene.layout = 0;
    gm_update_full(g->sub, &g->sub_scene);
    return 1;
}

// The static columns' lines at slot q, asked for GM_QUERY_AHEAD slots past a query's start where
// the dirty row holds at least one slot per GM_QUERY_DENSE static slots: the queries of a dirty row
// then go along the static row of its cell in x order, a few slots apart (100 000 cubes, a tenth
// moving: some 35 queries a row of 355 slots), through seven columns at once, which the hardware
// prefetcher does not follow; sparser queries would fetch lines no query reads. q stays inside
// the columns (coh_query_row bounds it). Broad phase on the 2-vCPU Intel Xeon guest, a tenth
// moving: 0.528-0.538 ms without, 0.505-0.528 at 16-64 slots ahead, 0.496-0.515 at 96-192; a
// hundredth moving, 96 slots ahead on every row: 0.165 -> 0.186 ms.
static inline void coh_prefetch(const cd_row_cols *s, uint32_t q)
{
    for (int k = 0; k < 3; ++k) __builtin_prefetch(s->lo[k] + q), __builtin_prefetch(s->hi[k] + q);
    __builtin_prefetch(s->id + q);
}

#if GM_WIDE
// coh_query_row's loop on the AVX-512 path: window_static_wide's windows (the first sixteen slots
// as one block, then window_wide's), the same pairs and counts as the portable loop's.
__attribute__((target("avx2,avx512f,avx512vl,popcnt"))) static uint64_t
coh_query_row_wide(const cd_row_cols *st, const coh_row_index *ix, const uint32_t *first, const uint8_t *moved,
                   const uint32_t *dl, const cd_row_cols *e, uint32_t a0, uint32_t a1, uint32_t ahead,
                   cd_pair_sink *sink)
{
    // Locals: the pair stores could alias the caller's columns and index, which the loop would
    // then reload for every window (and convert the bucket count to float each time).
    const cd_row_cols s = *st, d = *e;
    const float x0 = ix->x0, inv = ix->inv, top = (float)(ix->nb - 1);  // coh_bucket's, once a row
    cd_pair *out = sink->buf + sink->count, *const last = sink->buf + sink->capacity - 2 * GM_WIDE_LANES;
    uint64_t tests = 0;
    for (uint32_t j = a0; j < a1; ++j) {
        uint32_t id = d.id[j];
        if (!moved[id & ID_MASK]) continue;
        __m512 lo[3], hi[3];
        for (int k = 0; k < 3; ++k) lo[k] = _mm512_set1_ps(d.lo[k][j]), hi[k] = _mm512_set1_ps(d.hi[k][j]);
        uint32_t q = first[coh_bucket_in(d.lo[0][j], x0, inv, top)];
        if (ahead) coh_prefetch(&s, q + ahead);
        tests += window_static_wide(&s, lo, hi, d.hi[0][j], _mm512_set1_epi32((int)(id & ~ID_MASK)),
                                    _mm512_set1_epi64(dl[id & ID_MASK]), q, &out, last, sink);
    }
    sink->count = (uint32_t)(out - sink->buf);
    return tests;
}

// The same on the AVX2 path (window_avx2).
__attribute__((target("avx2,popcnt"))) static uint64_t
coh_query_row_avx2(const cd_row_cols *st, const coh_row_index *ix, const uint32_t *first, const uint8_t *moved,
                   const uint32_t *dl, const cd_row_cols *e, uint32_t a0, uint32_t a1, uint32_t ahead,
                   cd_pair_sink *sink)
{
    const cd_row_cols s = *st, d = *e;                                  // locals, as in coh_query_row_wide
    const float x0 = ix->x0, inv = ix->inv, top = (float)(ix->nb - 1);  // coh_bucket's, once a row
    cd_pair *out = sink->buf + sink->count, *const last = sink->buf + sink->capacity - 2 * GM_WIDE_LANES;
    uint64_t tests = 0;
    for (uint32_t j = a0; j < a1; ++j) {
        uint32_t id = d.id[j];
        if (!moved[id & ID_MASK]) continue;
        __m256 lo[3], hi[3];
        for (int k = 0; k < 3; ++k) lo[k] = _mm256_set1_ps(d.lo[k][j]), hi[k] = _mm256_set1_ps(d.hi[k][j]);
        uint32_t q = first[coh_bucket_in(d.lo[0][j], x0, inv, top)];
        if (ahead) coh_prefetch(&s, q + ahead);
        tests += window_avx2(&s, lo, hi, d.hi[0][j], _mm256_set1_epi32((int)(id & ~ID_MASK)),
                             _mm256_set1_epi32((int)dl[id & ID_MASK]), q, &out, last, sink, 1);
    }
    sink->count = (uint32_t)(out - sink->buf);
    return tests;
}
#endif

// The static row r against the moved objects of the dirty row r (slots [a0, a1) of e, ids by dlist
// index): each moved p against every live static slot whose box overlaps p's and whose pair with p
// this row owns, from the slot its bucket names (coh_index) while lo.x ≤ p's hi.x (the row's pads
// end every window), on g's SIMD path. The pairs go to sink as objects (p's slot from dlist): a
// buffer of dlist indexes and a pass to map them cost 3 % of the frame at 100 000 cubes with a
// tenth moving. Returns the slots read.
static uint64_t coh_query_row(const grid_multi *g, size_t r, const cd_row_cols *e, uint32_t a0, uint32_t a1,
                              cd_pair_sink *sink)
{
    uint32_t st_len = row_len(g->st_start, r);
    if (!st_len) return 0;
    const cd_row_cols st = coh_cols(g->st_col, g->st_stride, g->st_id);
    const coh_row_index ix = g->st_index[r];
    const uint32_t *first = g->st_first + ix.off;
    const uint8_t *moved = g->kmoved;
    const uint32_t *dl = g->dlist;
    // A window starts at most at the row's end, so q + ahead stays inside the columns (st_stride
    // slots each): no address past them is formed, the last rows prefetching less.
    uint32_t room = (uint32_t)g->st_stride - 1 - (g->st_start[r] + st_len);
    uint32_t ahead = (uint64_t)(a1 - a0) * GM_QUERY_DENSE >= st_len ? GM_QUERY_AHEAD : 0;
    ahead = ahead < room ? ahead : room;
    uint64_t tests = 0;
#if GM_WIDE
    if (g->simd == GM_AVX512) return coh_query_row_wide(&st, &ix, first, moved, dl, e, a0, a1, ahead, sink);
    if (g->simd == GM_AVX2) return coh_query_row_avx2(&st, &ix, first, moved, dl, e, a0, a1, ahead, sink);
#endif
    for (uint32_t j = a0; j < a1; ++j) {
        cd_row_probe p = cd_row_probe_of(e, j);
        if (!moved[p.id & ID_MASK]) continue;
        p.id = (p.id & ~ID_MASK) | dl[p.id & ID_MASK];
        uint32_t q = first[coh_bucket(&ix, p.lo[0])];
        if (ahead) coh_prefetch(&st, q + ahead);
        tests += window(&st, &p, q, sink);
    }
    return tests;
}

// A sink of pairs of two dirty objects by dlist index that passes them on to out as objects, only
// those where one of them moved.
typedef struct coh_map {
    cd_pair_sink *out;
    const grid_multi *g;
} coh_map;

static void coh_map_flush(cd_pair_sink *sink)
{
    const coh_map *f = sink->ctx;
    const uint32_t *dl = f->g->dlist;
    const uint8_t *moved = f->g->kmoved;
    for (uint32_t k = 0; k < sink->count; ++k) {
        cd_pair p = sink->buf[k];
        if (moved[p.a] | moved[p.b]) cd_sink_push(f->out, dl[p.a], dl[p.b]);
    }
    sink->count = 0;
}

// Fine part k of the dirty rows (part_cols of sub): each row's moved objects queried against the
// static row of the same cell, and the row swept. Returns the box tests.
static uint64_t coh_part(grid_multi *g, uint32_t k, cd_pair_sink *out)
{
    grid_multi *d = g->sub;
    cd_pair buf_dirty[1024];
    coh_map to_dirty = {out, g};
    cd_pair_sink dirties = {buf_dirty, 0, 1024, coh_map_flush, &to_dirty};
    uint32_t c = scratch_take(d), base;
    cd_row_cols e;
    uint64_t tests = 0;
    if (part_cols(d, &g->sub_scene, &d->scratch[c], k, &e, &base))
        for (size_t r = d->part_rows[k]; r < d->part_rows[k + 1]; ++r) {
            uint32_t a0 = d->start[r] - base, len = row_len(d->start, r);
            if (!len) continue;
            // The row's pairs with static objects, then those of two dirty ones (flushed at the
            // row's end, whatever the sweep's sink flushed on the way).
            tests += coh_query_row(g, r, &e, a0, a0 + len, out);
            if (len > 1) tests += sweep_row_on_path(g, &e, a0, a0 + len, &dirties);
            coh_map_flush(&dirties);
        }
    scratch_give(d, c);
    return tests;
}

// Moved object p against the big objects: a big p against every object (a moved big one only
// after it), a small p against every big one that did not move. Returns the box tests.
static uint64_t coh_bigs(const grid_multi *g, const cd_scene *s, uint32_t p, cd_pair_sink *sink)
{
    const uint8_t *moved = g->coh_m.flag, *dirty = g->dirty;
    const uint32_t *span = g->sub->span, *dk = g->dk;  // a dirty object's span this frame, by dlist index
    const cd_aabbf *box = s->box;
    uint64_t tests = 0;
    if (span[dk[p]] == SPAN_BIG) {
        for (uint32_t q = 0; q < s->count; ++q) {
            if (q == p || (moved[q] && q < p && span[dk[q]] == SPAN_BIG)) continue;
            ++tests;
            if (cd_aabbf_overlap(&box[p], &box[q])) cd_sink_push(sink, p, q);
        }
        return tests;
    }
    for (uint32_t k = 0; k < g->st_nbig; ++k) {
        uint32_t q = g->st_big[k];
        if (dirty[q]) continue;
        ++tests;
        if (cd_aabbf_overlap(&box[p], &box[q])) cd_sink_push(sink, p, q);
    }
    for (uint32_t k = 0; k < g->sub->nbig; ++k) {
        uint32_t q = g->dlist[g->sub->big[k]];
        if (moved[q]) continue;
        ++tests;
        if (cd_aabbf_overlap(&box[p], &box[q])) cd_sink_push(sink, p, q);
    }
    return tests;
}

// Part `part` of `parts` of a coherent frame: its share of the dirty rows' fine parts (coh_part)
// and of the moved objects' big pairs.
static void coh_candidates_part(grid_multi *g, const cd_scene *s, uint32_t part, uint32_t parts, cd_pair_sink *sink,
                                cd_broad_stats *st)
{
    const cd_scene_moves *m = &g->coh_m;
    if (!m->count) return;
    uint64_t tests = 0;
    for (uint64_t k = (uint64_t)part * CD_BROAD_PARTS / parts; k < ((uint64_t)part + 1) * CD_BROAD_PARTS / parts; ++k)
        tests += coh_part(g, (uint32_t)k, sink);
    if (g->st_nbig || g->sub->nbig)
        for (uint64_t k = (uint64_t)m->count * part / parts; k < (uint64_t)m->count * (part + 1) / parts; ++k)
            tests += coh_bigs(g, s, m->slot[k], sink);
    st->bv_tests += tests;
}

// The scene permuted its slots: the static rows, the big list and the dirty set keep their
// objects under the new slot numbers. The dirty rows hold dlist indexes, which stay.
static void coh_remap(grid_multi *g, const cd_scene *s)
{
    if (!g->coh_valid) return;
    if (g->n != s->count) {
        g->coh_valid = 0;
        return;
    }
    cd_scene_renumber_slots(s, g->st_id, g->st_start[g->nrows], ID_MASK);
    uint32_t *where = cd_alloc(4 * (size_t)(s->count ? s->count : 1) * sizeof *where);
    for (uint32_t i = 0; i < s->count; ++i)
        memcpy(where + 4 * (size_t)s->slot_of_prev[i], g->st_where + 4 * (size_t)i, 4 * sizeof *where);
    cd_free(g->st_where);
    g->st_where = where;
    g->st_where_cap = 4 * (size_t)(s->count ? s->count : 1);
    cd_scene_renumber_slots(s, g->st_big, g->st_nbig, UINT32_MAX);
    for (uint32_t k = 0; k < g->ndirty; ++k) g->dirty[g->dlist[k]] = 0;
    cd_scene_renumber_slots(s, g->dlist, g->ndirty, UINT32_MAX);
    for (uint32_t k = 0; k < g->ndirty; ++k) g->dirty[g->dlist[k]] = 1, g->dk[g->dlist[k]] = k;
}

// Part `part` of `parts`: a contiguous range of rows (the fine parts it covers, in order) with the
// big boxes that reach them, and every parts-th big box against every big box after it (by id).
static void gm_candidates_part(void *self, const cd_scene *s, uint32_t part, uint32_t parts, cd_pair_sink *sink,
                               cd_broad_stats *st)
{
    grid_multi *g = self;
    if (g->coh_frame) {
        coh_candidates_part(g, s, part, parts, sink, st);
        return;
    }
    uint64_t tests = 0;
    uint32_t c = scratch_take(g);
    for (uint64_t k = (uint64_t)part * CD_BROAD_PARTS / parts; k < ((uint64_t)part + 1) * CD_BROAD_PARTS / parts; ++k)
        tests += sweep_part(g, s, &g->scratch[c], (uint32_t)k, sink);
    scratch_give(g, c);
    for (uint32_t i = part; i < g->nbig; i += parts) {  // big against big (against small: sweep_part)
        uint32_t p = g->big[i];
        for (uint32_t j = i + 1; j < g->nbig; ++j) {
            uint32_t q = g->big[j];
            ++tests;
            if (cd_aabbf_overlap(&s->box[p], &s->box[q])) cd_sink_push(sink, p, q);
        }
    }
    st->bv_tests += tests;
}

static void gm_candidates(void *self, const cd_scene *s, cd_pair_sink *sink, cd_broad_stats *st)
{
    gm_candidates_part(self, s, 0, 1, sink, st);
}

static void gm_shape_stats(void *self, cd_broad_stats *st)
{
    grid_multi *g = self;
    st->nodes = g->nrows;
    size_t scratch = 0;
    for (int k = 0; k < GM_MAX_THREADS; ++k) scratch += g->scratch[k].col_cap * sizeof(float);
    st->bytes = sizeof *g + scratch + g->moved_cap + g->dirty_cap + g->kmoved_cap +
                (g->id_cap + g->old_id_cap + g->start_cap + g->old_start_cap + g->kept_cap + g->span_cap +
                 g->old_span_cap + g->big_cap + g->hist_cap + g->todo_cap + g->st_start_cap + g->st_id_cap +
                 g->st_big_cap + g->dlist_cap + g->st_where_cap + g->coh_key_cap + g->st_first_cap + g->dk_cap +
                 g->big_row_cap + g->zbig_at_cap + g->zbig_cap) *
                    sizeof(uint32_t) +
                g->ax_cell_cap * sizeof(uint16_t) + g->st_col_cap * sizeof(float) + g->dy_box_cap * sizeof(cd_aabbf) +
                g->st_index_cap * sizeof(coh_row_index);
    if (g->sub) {  // the dirty rows' own bytes
        cd_broad_stats sub = {0};
        gm_shape_stats(g->sub, &sub);
        st->bytes += sub.bytes;
    }
    st->max_per_node = g->max_per_row;
    st->per_level[0] = g->boxes_in_rows;  // box slots in rows (a box counts once per row it is in)
    st->per_level[1] = g->nbig;           // big objects: queried against their rows
}

const cd_broad_method cd_broad_grid_multi = {
    .name = "grid_multi",
    .description =
        "uniform grid of rows, each box in every row it reaches (up to 2 x 2 cells), each row swept along its "
        "axis alone (x, or the axis objects cross cells along most); cell from the object extents (or "
        "cell_size); bigger boxes queried against the rows they reach",
    .params = gm_params,
    .param_count = sizeof gm_params / sizeof gm_params[0],
    .create = gm_create,
    .update = gm_update,
    .update_coherent = gm_update_coherent,
    .candidates = gm_candidates,
    .boxes_tested = 1,
    .candidates_part = gm_candidates_part,
    .parts_by_thread = 1,
    .remap = gm_remap,
    .shape_stats = gm_shape_stats,
    .destroy = gm_destroy,
};
