// SPDX-License-Identifier: MIT
// Triangle–triangle against an exact oracle: 1 200 000 seeded pairs with integer coordinates
// (random, coplanar lattices, near-coplanar ±1 perturbations, shared features, huge coordinates with
// determinants far below the float error, degenerate triangles, exact touching, coplanar points
// within ~1 of a 2^56-long edge where even the coordinate differences round), each scaled by a
// random power of two so the doubles are dyadic from 2^-40 to 2^40. The oracle (tri_tri_gen.h)
// evaluates every sign in 128-bit integers with an edge-versus-triangle characterisation. Both exact
// algorithms must agree with it on every pair; the plain-float variant's disagreements are counted and
// printed (a baseline, not a requirement). A second test scales 30 000 of these pairs by 2^k, k from
// -600 to 600, and normalises them as `cdlab query` does (cd_narrow_normalize): the exact answers
// must still be the oracle's, and no answer may depend on k.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>

#include "cd_narrow.h"
#include "tri_tri_gen.h"
#include "test_util.h"

enum { ORACLE_PAIRS = 1200000 };

static void test_oracle_agreement(void **state)
{
    (void)state;
    cd_rng r = cd_rng_make(2026, CD_STREAM_TEST + 5);
    long bad_exact = 0, bad_gd = 0, bad_float = 0, hits = 0;
    long per_family[ITRI_FAMILIES] = {0}, hits_family[ITRI_FAMILIES] = {0};
    for (long n = 0; n < ORACLE_PAIRS; ++n) {
        int f = (int)(n % ITRI_FAMILIES);
        itri ia, ib;
        itri_pair(&r, f, &ia, &ib);
        int want = itri_tri(&ia, &ib);
        double s = ldexp(1.0, (int)cd_rng_below(&r, 81) - 40);
        cd_triangle a = itri_to_tri(&ia, s), b = itri_to_tri(&ib, s);
        int got = cd_tri_tri_overlap(&a, &b), gd = cd_tri_tri_overlap_gd(&a, &b);
        if (got != want && bad_exact++ < 5) print_message("# plane-first disagrees on pair %ld (family %d)\n", n, f);
        if (gd != want && bad_gd++ < 5) print_message("# Guigue–Devillers disagrees on pair %ld (family %d)\n", n, f);
        bad_float += cd_tri_tri_overlap_float(&a, &b) != want;
        hits += want;
        per_family[f]++;
        hits_family[f] += want;
    }
    for (int f = 0; f < ITRI_FAMILIES; ++f)
        print_message("# family %d: %ld pairs, %ld intersecting\n", f, per_family[f], hits_family[f]);
    print_message("# oracle: %ld pairs, %ld intersecting; disagreements: plane-first %ld, Guigue–Devillers %ld, "
                  "plain float %ld\n",
                  (long)ORACLE_PAIRS, hits, bad_exact, bad_gd, bad_float);
    assert_int_equal(bad_exact, 0);
    assert_int_equal(bad_gd, 0);
    // Every family contributes both answers except the always-touching constructions.
    for (int f = 0; f < ITRI_FAMILIES; ++f) {
        assert_true(hits_family[f] > 0);
        if (f != 4 && f != 7) assert_true(hits_family[f] < per_family[f]);
    }
}

/// The 18 coordinates of a and b as cd_narrow_normalize's pointers.
static void tri_pointers(cd_triangle *a, cd_triangle *b, double *p[18])
{
    for (int i = 0; i < 3; ++i) {
        cd_vec3 *va = &a->v[i], *vb = &b->v[i];
        p[3 * i] = &va->x, p[3 * i + 1] = &va->y, p[3 * i + 2] = &va->z;
        p[9 + 3 * i] = &vb->x, p[9 + 3 * i + 1] = &vb->y, p[9 + 3 * i + 2] = &vb->z;
    }
}

// The oracle's pairs (every family), each multiplied by 2^k for k from -600 to 600 (both ends,
// 0 and a seeded sample; every coordinate stays finite and normal: the integers are below 2^58)
// and normalised as `cdlab query` normalises a row: both exact algorithms must give the oracle's
// answer at every scale, the plain-float one the same answer at every scale.
static void scaled_rows_vs_oracle(void **state)
{
    (void)state;
    enum { PAIRS = 30000, SCALES = 6 };
    cd_rng r = cd_rng_make(2026, CD_STREAM_TEST + 5), ks = cd_rng_make(2027, CD_STREAM_TEST + 6);
    long bad = 0, float_changed = 0;
    for (long n = 0; n < PAIRS; ++n) {
        int f = (int)(n % ITRI_FAMILIES);
        itri ia, ib;
        itri_pair(&r, f, &ia, &ib);
        int want = itri_tri(&ia, &ib);
        int float_at_1 = -1;
        for (int i = 0; i < SCALES; ++i) {
            int k = i == 0 ? -600 : i == 1 ? 600 : i == 2 ? 0 : (int)cd_rng_below(&ks, 1201) - 600;
            cd_triangle a = itri_to_tri(&ia, ldexp(1.0, k)), b = itri_to_tri(&ib, ldexp(1.0, k));
            double *p[18];
            tri_pointers(&a, &b, p);
            assert_int_equal(cd_narrow_normalize(p, 18), 0);
            int got = cd_tri_tri_overlap(&a, &b), gd = cd_tri_tri_overlap_gd(&a, &b);
            if ((got != want || gd != want) && bad++ < 5)
                print_message("# pair %ld (family %d) at 2^%d: plane-first %d, Guigue–Devillers %d, oracle %d\n", n, f,
                              k, got, gd, want);
            int fl = cd_tri_tri_overlap_float(&a, &b);
            if (float_at_1 < 0) float_at_1 = fl;
            float_changed += fl != float_at_1;
        }
    }
    print_message("# scaled: %d pairs x %d scales, disagreements with the oracle %ld, float answers that changed %ld\n",
                  PAIRS, SCALES, bad, float_changed);
    assert_int_equal(bad, 0);
    assert_int_equal(float_changed, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_oracle_agreement),
                                       cmocka_unit_test(scaled_rows_vs_oracle)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
