// SPDX-License-Identifier: MIT
// The one statistics routine of cdlab (median, percentiles, MAD, CV) and cell formatting.
#include "cd_core.h"
#include "cd_harness.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

// Type-7 quantile of sorted s[0..n).
static double quantile(const double *s, size_t n, double q)
{
    double h = (double)(n - 1) * q;
    size_t lo = (size_t)floor(h);
    if (lo + 1 >= n) return s[n - 1];
    return s[lo] + (h - (double)lo) * (s[lo + 1] - s[lo]);
}

cd_stats cd_stats_compute(const double *x, size_t n)
{
    cd_stats st = {0};
    if (n == 0) return st;
    double *s = cd_alloc(n * sizeof *s);
    memcpy(s, x, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_double);
    double sum = 0;
    for (size_t i = 0; i < n; ++i) sum += s[i];
    st.n = n;
    st.mean = sum / (double)n;
    st.min = s[0];
    st.max = s[n - 1];
    st.median = quantile(s, n, 0.5);
    st.p05 = quantile(s, n, 0.05);
    st.p95 = quantile(s, n, 0.95);
    double ss = 0;
    for (size_t i = 0; i < n; ++i) ss += (s[i] - st.mean) * (s[i] - st.mean);
    st.cv = n > 1 && st.mean != 0 ? sqrt(ss / (double)(n - 1)) / fabs(st.mean) : 0.0;
    for (size_t i = 0; i < n; ++i) s[i] = fabs(s[i] - st.median);
    qsort(s, n, sizeof *s, cmp_double);
    st.mad = quantile(s, n, 0.5);
    cd_free(s);
    return st;
}

void cd_cell_format(const cd_cell *c, char *buf, size_t len)
{
    switch (c->type) {
    case CD_CELL_INT: snprintf(buf, len, "%" PRId64, c->i); break;
    case CD_CELL_REAL: isfinite(c->r) ? snprintf(buf, len, "%.10g", c->r) : snprintf(buf, len, "NA"); break;
    case CD_CELL_TEXT: snprintf(buf, len, "%s", c->t ? c->t : ""); break;
    default: snprintf(buf, len, "NA"); break;
    }
}
