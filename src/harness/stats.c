// SPDX-License-Identifier: MIT
// The one statistics routine of cdlab (median, percentiles, MAD, CV) and cell formatting.
#include "cd_core.h"
#include "cd_harness_cli.h"

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

static double median_sorted_copy(const double *x, size_t n, double *scratch)
{
    memcpy(scratch, x, n * sizeof *scratch);
    qsort(scratch, n, sizeof *scratch, cmp_double);
    return quantile(scratch, n, 0.5);
}

// Resampling both runs' frames treats the frames as exchangeable within a run; drift within a run
// widens the interval (as it should), drift between two runs moves the ratio itself, which no
// interval over one run's frames can see: compare runs made close together.
cd_ratio_ci cd_bootstrap_median_ratio(const double *a, size_t na, const double *b, size_t nb, size_t resamples,
                                      double level, uint64_t seed)
{
    CD_ASSERT(na > 0 && nb > 0 && resamples > 0 && level > 0 && level < 1);
    size_t big = na > nb ? na : nb;
    double *draw = cd_alloc(big * sizeof *draw), *scratch = cd_alloc(big * sizeof *scratch);
    double *ratios = cd_alloc(resamples * sizeof *ratios);
    cd_ratio_ci ci;
    double ma = median_sorted_copy(a, na, scratch);
    CD_ASSERT(ma > 0);
    ci.ratio = median_sorted_copy(b, nb, scratch) / ma;
    cd_rng rng = cd_rng_make(seed, CD_STREAM_BOOTSTRAP);
    for (size_t k = 0; k < resamples; ++k) {
        for (size_t i = 0; i < na; ++i) draw[i] = a[cd_rng_below(&rng, na)];
        double ra = median_sorted_copy(draw, na, scratch);
        for (size_t i = 0; i < nb; ++i) draw[i] = b[cd_rng_below(&rng, nb)];
        double rb = median_sorted_copy(draw, nb, scratch);
        ratios[k] = rb / ra;
    }
    qsort(ratios, resamples, sizeof *ratios, cmp_double);
    ci.lo = quantile(ratios, resamples, (1 - level) / 2);
    ci.hi = quantile(ratios, resamples, (1 + level) / 2);
    cd_free(draw);
    cd_free(scratch);
    cd_free(ratios);
    return ci;
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
