// SPDX-License-Identifier: MIT
// The growable pair list the frame's output and the parts' lists use.
#include "cd_broad.h"

#include <stdlib.h>

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

void cd_pair_list_sort(cd_pair_list *l)
{
    if (l->count > 1) qsort(l->items, l->count, sizeof *l->items, pair_cmp);
}

void cd_pair_list_free(cd_pair_list *l)
{
    cd_free(l->items);
    *l = (cd_pair_list){0};
}
