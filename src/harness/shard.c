// SPDX-License-Identifier: MIT
// Shards: the points of a set of configs split over N runs (the tasks of a cluster job array),
// balanced by an estimate of each point's cost (cd_plan_estimate: seconds, nothing for a point
// that budget_ms is estimated to skip). The assignment is a pure function of the configs' values
// and N: the same on every node, so that every task computes the same split on its own and
// `cdlab merge` can check that the shards cover the plan.
//
// Longest processing time first (Graham's LPT): units in decreasing cost, each to the shard with
// the least cost so far (ties: the lower shard). Its makespan is at most 4/3 - 1/(3N) of the
// optimum. A unit is one point, or the points of one chain: a kind that lets a point's decisions
// depend on earlier points of the same run (the cubes kind's budget skips a series' larger cube
// counts) names the chain, and the chain's points stay in one shard, run in plan order.
#include "cd_core.h"
#include "harness_private.h"

#include <stdlib.h>
#include <string.h>

// One unit of assignment: a point, or a chain of points (first: its first point).
typedef struct unit {
    double cost;
    size_t config, first;  // the unit's first point in plan order, for ties
    size_t at, len;        // a chain: its points are chained[config][at .. at + len); else len = 0
} unit;

// A point of a chain.
typedef struct chained {
    uint64_t chain;
    size_t index;
    double cost;
} chained;

static int by_cost(const void *a, const void *b)
{
    const unit *x = a, *y = b;
    if (x->cost != y->cost) return x->cost > y->cost ? -1 : 1;
    if (x->config != y->config) return x->config < y->config ? -1 : 1;
    return x->first < y->first ? -1 : x->first > y->first;
}

static int by_chain(const void *a, const void *b)
{
    const chained *x = a, *y = b;
    if (x->chain != y->chain) return x->chain < y->chain ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

static void add_unit(unit **u, size_t *n, size_t *cap, unit one)
{
    if (*n == *cap) *u = cd_realloc(*u, (*cap = *cap ? *cap * 2 : 64) * sizeof **u);
    (*u)[(*n)++] = one;
}

// The units of config c (appended to *u); returns its chained points, sorted by chain then index.
static chained *config_units(const cd_config *c, size_t config, unit **u, size_t *n, size_t *cap)
{
    size_t points = cd_plan_size(c);
    size_t *pick = cd_alloc_zero(c->key_count ? c->key_count : 1, sizeof *pick);
    chained *ch = cd_alloc_zero(points ? points : 1, sizeof *ch);
    cd_estimate *e = cd_plan_estimate(c);  // a point that budget_ms will skip costs 0
    size_t nch = 0;
    for (size_t i = 0; i < points; ++i) {
        cd_point p = {.pick = pick};
        cd_point_at(c, i, &p);
        uint64_t chain = cd_point_chain(&p);
        if (chain)
            ch[nch++] = (chained){chain, i, e[i].seconds};
        else
            add_unit(u, n, cap, (unit){e[i].seconds, config, i, 0, 0});
    }
    cd_free(e);
    qsort(ch, nch, sizeof *ch, by_chain);
    for (size_t i = 0; i < nch;) {
        unit one = {0, config, ch[i].index, i, 0};
        for (; i < nch && ch[i].chain == ch[one.at].chain; ++i) one.cost += ch[i].cost, one.len++;
        add_unit(u, n, cap, one);
    }
    cd_free(pick);
    return ch;
}

// A min-heap of shards by (cost so far, index).
static int heap_less(const double *cost, uint32_t a, uint32_t b)
{
    return cost[a] < cost[b] || (cost[a] == cost[b] && a < b);
}

static void heap_down(uint32_t *h, uint32_t n, const double *cost, uint32_t i)
{
    for (;;) {
        uint32_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && heap_less(cost, h[l], h[m])) m = l;
        if (r < n && heap_less(cost, h[r], h[m])) m = r;
        if (m == i) return;
        uint32_t t = h[i];
        h[i] = h[m], h[m] = t, i = m;
    }
}

int cd_shard_plan_make(const cd_config *c, size_t n, uint32_t count, cd_shard_plan *p)
{
    memset(p, 0, sizeof *p);
    if (count == 0) return -1;
    p->count = count;
    p->configs = n;
    p->owner = cd_alloc_zero(n ? n : 1, sizeof *p->owner);
    p->cost = cd_alloc_zero(count, sizeof *p->cost);
    chained **chains = cd_alloc_zero(n ? n : 1, sizeof *chains);
    unit *u = NULL;
    size_t nu = 0, cap = 0;
    for (size_t k = 0; k < n; ++k) {
        size_t points = cd_plan_size(&c[k]);
        p->owner[k] = cd_alloc_zero(points ? points : 1, sizeof **p->owner);
        chains[k] = config_units(&c[k], k, &u, &nu, &cap);
    }
    qsort(u, nu, sizeof *u, by_cost);
    uint32_t *heap = cd_alloc(count * sizeof *heap);
    for (uint32_t s = 0; s < count; ++s) heap[s] = s;  // all zero: already a heap by index
    for (size_t i = 0; i < nu; ++i) {
        uint32_t s = heap[0];
        p->cost[s] += u[i].cost;
        p->total += u[i].cost;
        p->owner[u[i].config][u[i].first] = s;
        for (size_t j = 0; j < u[i].len; ++j) p->owner[u[i].config][chains[u[i].config][u[i].at + j].index] = s;
        heap_down(heap, count, p->cost, 0);
    }
    cd_free(heap);
    cd_free(u);
    for (size_t k = 0; k < n; ++k) cd_free(chains[k]);
    cd_free(chains);
    return 0;
}

void cd_shard_plan_free(cd_shard_plan *p)
{
    for (size_t k = 0; p->owner && k < p->configs; ++k) cd_free(p->owner[k]);
    cd_free(p->owner);
    cd_free(p->cost);
    memset(p, 0, sizeof *p);
}

int cd_shard_parse(const char *text, uint32_t *index, uint32_t *count)
{
    char *end;
    const char *slash = strchr(text, '/');
    if (!slash || slash == text || text[0] < '0' || text[0] > '9' || slash[1] < '0' || slash[1] > '9') return -1;
    unsigned long i = strtoul(text, &end, 10);
    if (end != slash) return -1;
    unsigned long n = strtoul(slash + 1, &end, 10);
    if (*end || n == 0 || n > CD_SHARD_MAX || i >= n) return -1;
    *index = (uint32_t)i, *count = (uint32_t)n;
    return 0;
}
