// SPDX-License-Identifier: MIT
// The frame driver every broad phase runs under: create and destroy, following the scene's
// reorders, the serial frame or the parallel one in fixed parts, last frame's pairs kept for a
// coherent method (cd_broad.h, "Kept pairs"), and the split of the frame's time between broad
// phase and narrow step. The narrow step itself is cube_narrow.c, or the caller's
// (cd_broad_set_narrow: the mesh-body scene's hierarchy queries).
#include "cube_narrow.h"

#include <omp.h>
#include <string.h>

// 4096 pairs = 32 KiB: the batch stays in L1/L2 while the narrow step reads it.
enum { SINK_CAPACITY = 4096 };

const char *const cd_broad_update_words[] = {"rebuild", "incremental", NULL};

cd_update_mode cd_broad_update_mode(const cd_params *p)
{
    return strcmp(cd_params_word(p, "update"), "incremental") == 0 ? CD_UPDATE_INCREMENTAL : CD_UPDATE_REBUILD;
}

cd_params cd_broad_params_default(const cd_broad_method *m) { return cd_params_defaults(m->params, m->param_count); }

// The methods whose candidates every frame checks (cd_broad_check_candidates): plugins', whose
// code cdlab does not trust to name cubes of the scene. Written before any thread starts, read at
// each cd_broad_create, so cdlab's own methods pay nothing per candidate.
enum { CHECKED_MAX = 128 };
static const cd_broad_method *checked_methods[CHECKED_MAX];
static size_t checked_count;

void cd_broad_check_candidates(const cd_broad_method *m)
{
    for (size_t k = 0; k < checked_count; ++k)
        if (checked_methods[k] == m) return;
    CD_ASSERT(checked_count < CHECKED_MAX);
    checked_methods[checked_count++] = m;
}

int cd_broad_candidates_checked(const cd_broad_method *m)
{
    for (size_t k = 0; k < checked_count; ++k)
        if (checked_methods[k] == m) return 1;
    return 0;
}

cd_broad *cd_broad_create(const cd_broad_method *m, const cd_params *p, int threads, const cd_scene *s)
{
    cd_broad *b = cd_alloc(sizeof *b);
    b->method = m;
    b->params = p ? *p : cd_broad_params_default(m);
    CD_ASSERT(b->params.spec == m->params && b->params.count == m->param_count);
    b->threads = threads > 1 ? threads : 1;
    b->self = m->create(&b->params, b->threads, s);
    b->parts = m->candidates_part ? cd_alloc_zero(CD_BROAD_PARTS, sizeof *b->parts) : NULL;
    b->sat = cd_sat_build_default();
    b->narrow = (cd_narrow_step){NULL, NULL, NULL};
    b->layout = s ? s->layout : 0;
    b->kept = (cd_pair_list){0};
    b->kept_valid = 0;
    b->moved_n = 0;
    b->kept_still = 0;
    b->last_moved = NULL;
    b->last_ident = NULL;
    b->last_count = 0;
    b->check = cd_broad_candidates_checked(m);
    b->bad = (cd_broad_bad){0, {0, 0}};
    b->bad_moves = (cd_broad_bad_moves){0, 0, 0};
    return b;
}

void cd_broad_destroy(cd_broad *b)
{
    if (!b) return;
    b->method->destroy(b->self);
    if (b->parts)
        for (uint32_t k = 0; k < CD_BROAD_PARTS; ++k) cd_pair_list_free(&b->parts[k].pairs);
    cd_free(b->parts);
    cd_pair_list_free(&b->kept);
    cd_free(b->last_moved);
    cd_free(b->last_ident);
    cd_free(b);
}

void cd_broad_set_narrow(cd_broad *b, const cd_narrow_step *step)
{
    b->narrow = *step;
    b->kept_valid = 0;
}

// A caller's narrow step behind a sink: the box gate where the method has not tested the boxes
// and its candidates are not meant untested, then the step on the candidates that passed.
typedef struct step_narrow {
    cd_narrow_step step;
    const cd_scene *scene;
    uint32_t part;
    int gate;
    cd_pair_list *out;
    cd_broad_stats *st;
    uint64_t narrow_ns;
} step_narrow;

static void step_narrow_flush(cd_pair_sink *sink)
{
    step_narrow *c = sink->ctx;
    uint64_t t0 = cd_now_ns();
    uint32_t n = sink->count, kept = n;
    if (c->gate) {
        kept = 0;
        for (uint32_t k = 0; k < n; ++k)
            if (cd_aabbf_overlap(&c->scene->box[sink->buf[k].a], &c->scene->box[sink->buf[k].b]))
                sink->buf[kept++] = sink->buf[k];
    }
    c->step.test(c->step.ctx, c->scene, c->part, sink->buf, kept, c->out, c->st);
    c->st->candidates += n;
    sink->count = 0;
    c->narrow_ns += cd_now_ns() - t0;
}

// A checked method's sink (cd_broad.check): a batch's candidates that name no pair of the scene's
// objects are dropped and counted before the narrow step behind the check reads the scene at them.
typedef struct id_check {
    void (*flush)(cd_pair_sink *sink);  // the narrow step's sink behind the check
    void *ctx;
    uint32_t n;        // the scene's objects
    cd_broad_bad bad;  // what was dropped
} id_check;

static void id_check_flush(cd_pair_sink *sink)
{
    id_check *c = sink->ctx;
    uint32_t kept = 0;
    for (uint32_t k = 0; k < sink->count; ++k) {
        cd_pair p = sink->buf[k];
        if (p.a < c->n && p.b < c->n && p.a != p.b)
            sink->buf[kept++] = p;
        else if (c->bad.count++ == 0)
            c->bad.first = p;
    }
    sink->count = kept;
    sink->flush = c->flush, sink->ctx = c->ctx;
    c->flush(sink);
    sink->flush = id_check_flush, sink->ctx = c;
}

// The method's candidates (all of them, or part k's when part_index > 0) through the narrow step
// into out; a checked method's bad ones are dropped and counted in *bad. Returns the time spent in
// the narrow step.
static uint64_t candidates_into(cd_broad *b, const cd_scene *s, uint32_t part_index, cd_pair_list *out,
                                cd_broad_stats *st, cd_broad_bad *bad)
{
    cd_pair buf[SINK_CAPACITY];
    cd_sat_build settle = cd_sat_build_settling(b->sat);
    cube_narrow cube = {.scene = s,
                        .boxes_tested = b->method->boxes_tested,
                        .out = out,
                        .st = st,
                        .sat = b->sat,
                        .width = cd_sat_build_width(b->sat),
                        .settle = settle,
                        .settle_width = cd_sat_build_width(settle)};
    step_narrow step = {b->narrow, s, part_index, !b->method->boxes_tested && !b->method->untested, out, st, 0};
    cd_pair_sink sink = {buf, 0, SINK_CAPACITY, b->narrow.test ? step_narrow_flush : cube_narrow_flush,
                         b->narrow.test ? (void *)&step : (void *)&cube};
    id_check check = {sink.flush, sink.ctx, s->count, {0, {0, 0}}};
    if (b->check) sink.flush = id_check_flush, sink.ctx = &check;
    if (part_index)
        b->method->candidates_part(b->self, s, part_index - 1, CD_BROAD_PARTS, &sink, st);
    else
        b->method->candidates(b->self, s, &sink, st);
    sink.flush(&sink);
    *bad = check.bad;
    return b->narrow.test ? step.narrow_ns : cube.narrow_ns;
}

// Candidates and narrow tests of one part into its own list (any thread).
static void run_part(cd_broad *b, const cd_scene *s, uint32_t k)
{
    cd_broad_part *part = &b->parts[k];
    part->pairs.count = 0;
    memset(&part->st, 0, sizeof part->st);
    part->narrow_ns = candidates_into(b, s, k + 1, &part->pairs, &part->st, &part->bad);
}

// Part k, its time into busy[k].
static void run_part_timed(cd_broad *b, const cd_scene *s, uint32_t k, uint64_t *busy)
{
    uint64_t t0 = cd_now_ns();
    run_part(b, s, k);
    busy[k] = cd_now_ns() - t0;
}

// The parts on the configured threads, then their lists joined in part order, so the pairs and
// their order are the same for every thread count. Returns the narrow share of the workers' time.
static double frame_parts(cd_broad *b, const cd_scene *s, cd_pair_list *out, cd_broad_stats *st)
{
    int threads = b->threads;
    uint64_t busy[CD_BROAD_PARTS];
    if (b->method->parts_by_thread) {
        cd_part_queue queue;
        if (threads > CD_PART_QUEUE_MAX_THREADS) threads = CD_PART_QUEUE_MAX_THREADS;
#pragma omp parallel num_threads(threads) if (threads > 1)
        {
#pragma omp single
            cd_part_queue_deal(&queue, CD_BROAD_PARTS, (uint32_t)omp_get_num_threads());
            uint32_t k;
            while (cd_part_queue_take(&queue, (uint32_t)omp_get_thread_num(), &k)) run_part_timed(b, s, k, busy);
        }
    } else {
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) if (threads > 1)
        for (int k = 0; k < (int)CD_BROAD_PARTS; ++k) run_part_timed(b, s, (uint32_t)k, busy);
    }
    uint64_t narrow = 0, total = 0;
    for (uint32_t k = 0; k < CD_BROAD_PARTS; ++k) {
        const cd_broad_part *part = &b->parts[k];
        if (part->pairs.count) {  // an empty part's list may never have been allocated (memcpy from NULL)
            if (out->count + part->pairs.count > out->capacity)
                cd_grow((void **)&out->items, sizeof *out->items, &out->capacity, out->count + part->pairs.count);
            memcpy(out->items + out->count, part->pairs.items, part->pairs.count * sizeof *out->items);
            out->count += part->pairs.count;
        }
        st->bv_tests += part->st.bv_tests;
        st->candidates += part->st.candidates;
        st->narrow_tests += part->st.narrow_tests;
        if (part->bad.count && !b->bad.count) b->bad.first = part->bad.first;  // the first part's first
        b->bad.count += part->bad.count;
        narrow += part->narrow_ns;
        total += busy[k];
    }
    return total ? (double)narrow / (double)total : 0.0;
}

// The scene reordered its slots since the method's last frame: one reorder is followed through the
// method's remap; after several (frames the method missed), a method that keeps slots starts anew.
static void follow_layout(cd_broad *b, const cd_scene *s)
{
    if (s->layout == b->layout) return;
    if (b->method->remap && s->layout == b->layout + 1) {
        b->method->remap(b->self, s);
    } else if (b->method->remap) {
        b->method->destroy(b->self);
        b->self = b->method->create(&b->params, b->threads, s);
        b->kept_valid = 0;
    }
    b->layout = s->layout;
}

#ifdef CD_VALIDATE
// -Dvalidate=true: the frame's output keeps the contract's "exactly once" — every pair a < b,
// within the scene, and no pair twice (a sorted copy has no equal neighbours). O(p log p) per
// frame, counted in the frame's time: a validating build is measurably slower.
static void validate_pairs(const cd_pair_list *out, const cd_scene *s)
{
    cd_pair_list copy = {0};
    for (size_t i = 0; i < out->count; ++i) {
        CD_VALIDATE_ASSERT(out->items[i].a < out->items[i].b && out->items[i].b < s->count);
        cd_pair_list_push(&copy, out->items[i]);
    }
    cd_pair_list_sort(&copy);
    for (size_t i = 1; i < copy.count; ++i)
        CD_VALIDATE_ASSERT(copy.items[i].a != copy.items[i - 1].a || copy.items[i].b != copy.items[i - 1].b);
    cd_pair_list_free(&copy);
}
#endif

void cd_broad_update(cd_broad *b, const cd_scene *s)
{
    follow_layout(b, s);
    b->method->update(b->self, s);
    b->kept_valid = 0;
}

// The frame's update: the coherent one when the frame holds last frame's pairs for this state of
// the method (and the cube scene's narrow step judges them). Returns 1 when the method reported a
// coherent frame, with m its move list.
static int frame_update(cd_broad *b, const cd_scene *s, cd_scene_moves *m)
{
    follow_layout(b, s);
    if (b->method->update_coherent && b->kept_valid && !b->narrow.test && b->moved_n == s->count)
        return b->method->update_coherent(b->self, s, m);
    b->method->update(b->self, s);
    return 0;
}

// Is m, the move list update_coherent filled, one keep_pairs may read: at most the scene's slots
// (keep_pairs copies the list into last_ident, s->count long) and every slot within the scene (it
// reads ident and the flags at each)? A checked method's list is checked slot by slot, O(moves),
// beside keep_pairs' own pass over it; a bad one goes to b->bad_moves and the frame keeps no pairs.
// cdlab's own methods fill it from cd_scene_moves_since, whose list is the scene's: only its
// length is asserted (O(1): the frames of cdlab's methods are what the benchmarks time).
static int moves_readable(cd_broad *b, const cd_scene *s, const cd_scene_moves *m)
{
    int listed = m->count <= s->count && (m->count == 0 || m->slot);  // slots to read, as many as the scene's
    if (!b->check) {
        CD_ASSERT(listed);
        return 1;
    }
    uint32_t first_bad = listed ? m->count : 0;
    for (uint32_t k = 0; k < first_bad; ++k)
        if (m->slot[k] >= s->count) first_bad = k;
    if (first_bad == m->count) return 1;
    b->bad_moves = (cd_broad_bad_moves){1, m->count, listed ? m->slot[first_bad] : 0};
    return 0;
}

// Last frame's pairs of two cubes off the move list m into out (empty before): the listed cubes
// are flagged by ident in last_moved for the filter, one bit each (12.5 KiB at 100 000 cubes: the
// filter's random lookups stay in L1, where bytes spilled to L2), and stay flagged until the next
// coherent frame's list replaces them (last_ident says which to clear then). The arrays are
// restrict locals: the flags may alias anything, and through the structs the compiler reloaded
// every pointer after each flag store.
//
// Kept pairs at the front of the list that hold no cube of the last coherent frame's move list
// (kept_still of them) hold none of this one's either when every cube listed now was listed then,
// as where the same cubes move frame after frame: those are copied whole and only the rest is
// filtered; where the lists are the same set, the flags are already this list's. Every pair kept
// this frame holds no cube listed now, so out's pairs before the candidates' are next frame's
// front. At 100 000 cubes with a tenth moving, 22 000 of 27 000 pairs are such a front. Returns
// the pairs kept (next frame's kept_still); *same, how many at the front of kept and out are equal
// (the front copied whole, which remember_pairs need not copy back).
static size_t keep_pairs(cd_broad *b, const cd_scene *s, const cd_scene_moves *m, cd_pair_list *out, size_t *same)
{
    CD_ASSERT(out != &b->kept);  // the restrict locals below: two lists, two blocks
    if (b->kept.count > out->capacity) cd_grow((void **)&out->items, sizeof *out->items, &out->capacity, b->kept.count);
    uint8_t *restrict flags = b->last_moved;  // bit i & 7 of byte i >> 3
    const uint32_t *restrict slot = m->slot, *restrict ident = s->ident;
    const cd_pair *restrict kept = b->kept.items;
    cd_pair *restrict to = out->items;
    uint32_t movers = m->count, listed_then = movers <= b->last_count;  // (the list names a cube once)
    size_t count = b->kept.count;
    for (uint32_t k = 0; k < movers && listed_then; ++k) {
        uint32_t i = ident[slot[k]];
        listed_then &= flags[i >> 3] >> (i & 7);
    }
    if (!(listed_then && movers == b->last_count)) {  // another set: the flags become this list's
        for (uint32_t k = 0; k < b->last_count; ++k) flags[b->last_ident[k] >> 3] = 0;
        for (uint32_t k = 0; k < movers; ++k) {
            uint32_t i = ident[slot[k]];
            flags[i >> 3] |= (uint8_t)(1u << (i & 7));
            b->last_ident[k] = i;
        }
        b->last_count = movers;
    }
    size_t n = listed_then ? b->kept_still : 0;
    if (n) memcpy(to, kept, n * sizeof *to);
    *same = n;
    for (size_t k = n; k < count; ++k) {
        cd_pair p = kept[k];
        to[n] = p;
        n += !((flags[p.a >> 3] >> (p.a & 7) | flags[p.b >> 3] >> (p.b & 7)) & 1);
    }
    out->count = n;
    return n;
}

// This frame's output becomes the pairs the next frame may keep, still of them at its front with
// no cube of the move list keep_pairs last saw (0 after a frame that kept none); the first `same`
// are kept's already.
static void remember_pairs(cd_broad *b, const cd_scene *s, const cd_pair_list *out, size_t still, size_t same)
{
    if (!b->method->update_coherent || b->narrow.test) return;
    if (b->moved_n != s->count) {
        cd_free(b->last_moved), cd_free(b->last_ident);
        b->last_moved = cd_alloc_zero(s->count / 8 + 1, 1);
        b->last_ident = cd_alloc((s->count ? s->count : 1) * sizeof *b->last_ident);
        b->last_count = 0;
        b->moved_n = s->count;
        still = 0;
    }
    if (out->count > b->kept.capacity)  // cd_grow keeps the items, so the first `same` stay
        cd_grow((void **)&b->kept.items, sizeof *out->items, &b->kept.capacity, out->count);
    if (out->count > same) memcpy(b->kept.items + same, out->items + same, (out->count - same) * sizeof *out->items);
    b->kept.count = out->count;
    b->kept_still = still;
    b->kept_valid = 1;
}

void cd_broad_frame(cd_broad *b, const cd_scene *s, cd_pair_list *out, cd_broad_stats *st, cd_frame_times *t)
{
    memset(st, 0, sizeof *st);
    out->count = 0;
    b->bad.count = 0;
    b->bad_moves.bad = 0;
    uint64_t t0 = cd_now_ns(), narrow_ns;
    cd_scene_moves m = {NULL, CD_BROAD_MOVES_UNFILLED, NULL};  // a list never filled is no list
    size_t still = 0, same = 0;
    if (frame_update(b, s, &m) && moves_readable(b, s, &m)) still = keep_pairs(b, s, &m, out, &same);
    if (b->parts) {
        uint64_t t1 = cd_now_ns();
        double share = frame_parts(b, s, out, st);
        narrow_ns = (uint64_t)(share * (double)(cd_now_ns() - t1));
    } else {
        narrow_ns = candidates_into(b, s, 0, out, st, &b->bad);
    }
    if (b->narrow.frame_done) {
        uint64_t t2 = cd_now_ns();
        b->narrow.frame_done(b->narrow.ctx);
        narrow_ns += cd_now_ns() - t2;
    }
#ifdef CD_VALIDATE
    validate_pairs(out, s);
#endif
    remember_pairs(b, s, out, still, same);
    uint64_t total = cd_now_ns() - t0;
    st->pairs = out->count;
    if (b->method->shape_stats) b->method->shape_stats(b->self, st);
    if (t) {
        t->narrow_ms = (double)narrow_ns * 1e-6;
        t->broad_ms = (double)(total - narrow_ns) * 1e-6;
    }
}
