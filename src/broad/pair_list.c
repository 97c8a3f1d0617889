// SPDX-License-Identifier: MIT
// The growable pair list the frame's output and the parts' lists use.
#include "cd_broad.h"

#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void cd_pair_list_push(cd_pair_list *l, cd_pair p)
{
    if (l->count == l->capacity) cd_grow((void **)&l->items, sizeof *l->items, &l->capacity, l->count + 1);
    l->items[l->count++] = p;
}

static int pair_cmp(const void *x, const void *y)
{
    const cd_pair *p = x, *q = y;
    if (p->a != q->a) return p->a < q->a ? -1 : 1;
    return p->b < q->b ? -1 : (p->b > q->b);
}

enum { DIGIT_BITS = 11, DIGITS = 1 << DIGIT_BITS, MAX_PASSES = 6, SMALL = 64 };

static uint32_t digit(cd_pair p, int pass, int passes_per_id)
{
    uint32_t id = pass < passes_per_id ? p.b : p.a;  // b first: LSD order ends on a's top digit
    return (id >> ((pass % passes_per_id) * DIGIT_BITS)) & (DIGITS - 1);
}

// Sorted by (a, b): an insertion sort for short lists, a least-significant-digit radix sort of
// 11-bit digits, b's then a's, for long ones (each pass is stable, so the last, on a's top digit,
// leaves the pairs ordered by a and, among equal a, by b). Only digits the largest id needs are
// sorted, and a pass whose digit is the same in every pair is skipped. The order is qsort's with
// pair_cmp (equal pairs are equal bits), at about 2 passes for scenes under 2 048 objects instead
// of log2(count) comparisons per pair.
void cd_pair_list_sort(cd_pair_list *l)
{
    size_t n = l->count;
    cd_pair *x = l->items;
    if (n < 2) return;
    if (n <= SMALL) {
        for (size_t i = 1; i < n; ++i) {
            cd_pair v = x[i];
            size_t j = i;
            for (; j > 0 && (x[j - 1].a > v.a || (x[j - 1].a == v.a && x[j - 1].b > v.b)); --j) x[j] = x[j - 1];
            x[j] = v;
        }
        return;
    }
    if (n > UINT32_MAX) {
        qsort(x, n, sizeof *x, pair_cmp);
        return;
    }
    uint32_t top = 0;
    for (size_t i = 0; i < n; ++i) top |= x[i].a | x[i].b;
    int bits = 1;
    while (bits < 32 && (top >> bits) != 0) ++bits;
    const int per_id = (bits + DIGIT_BITS - 1) / DIGIT_BITS, passes = 2 * per_id;
    static_assert(2 * ((32 + DIGIT_BITS - 1) / DIGIT_BITS) <= MAX_PASSES, "every digit of two ids has a histogram");
    uint32_t(*hist)[DIGITS] = cd_alloc_zero((size_t)passes, sizeof *hist);
    for (size_t i = 0; i < n; ++i)
        for (int p = 0; p < passes; ++p) hist[p][digit(x[i], p, per_id)]++;
    cd_pair *tmp = cd_alloc(n * sizeof *tmp), *in = x, *out = tmp;
    for (int p = 0; p < passes; ++p) {
        if (hist[p][digit(in[0], p, per_id)] == n) continue;  // one digit value: the order stands
        uint32_t sum = 0;
        for (int d = 0; d < DIGITS; ++d) {
            uint32_t c = hist[p][d];
            hist[p][d] = sum;
            sum += c;
        }
        for (size_t i = 0; i < n; ++i) out[hist[p][digit(in[i], p, per_id)]++] = in[i];
        cd_pair *t = in;
        in = out, out = t;
    }
    if (in != x) memcpy(x, in, n * sizeof *x);
    cd_free(tmp);
    cd_free(hist);
}

void cd_pair_list_free(cd_pair_list *l)
{
    cd_free(l->items);
    *l = (cd_pair_list){0};
}
