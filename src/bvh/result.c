// SPDX-License-Identifier: MIT
// What a query returns and the margin it works to: the helpers every build of the traversal
// (traverse.c) calls. They sit below both traverse.c and query.c (which calls the traversal), so
// the files form no circle.
#include "bvh_internal.h"

#include <stdlib.h>
#include <string.h>

uint64_t cd_bvh_stats_bv_total(const cd_bvh_stats *s)
{
    uint64_t n = 0;
    for (int k = 0; k < CD_BVT_COUNT; ++k) n += s->bv_tests[k];
    return n;
}

double cd_bvh_pair_margin(const cd_bvh *a, const cd_bvh *b, const cd_pose *pose, double scale)
{
    return a->margin + scale * b->margin + 1e-12 * cd_v3_len(pose->t);
}

static int cmp_pair(const void *pa, const void *pb)
{
    const cd_tri_pair *x = pa, *y = pb;
    if (x->a != y->a) return x->a < y->a ? -1 : 1;
    return x->b < y->b ? -1 : (x->b > y->b);
}

void cd_bvh_result_sort(cd_bvh_result *res)
{
    if (res->count > 1) qsort(res->pairs, res->count, sizeof *res->pairs, cmp_pair);  // pairs is NULL when empty
}

void cd_bvh_result_free(cd_bvh_result *res)
{
    cd_free(res->pairs);
    cd_free(res->stack);
    cd_free(res->moved_block);
    cd_free(res->moved_verts);
    memset(res, 0, sizeof *res);
}
