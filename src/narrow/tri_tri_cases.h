// SPDX-License-Identifier: MIT
// Exact special cases shared by the triangle–triangle algorithms (src/narrow/tri_tri_cases.c):
// zero-area triangles (reduced to a segment or a point) and coplanar pairs. Private to narrow.
#ifndef TRI_TRI_CASES_H
#define TRI_TRI_CASES_H

#include "op_count.h"

/// 1 when t has exactly zero area (vertices collinear or coincident).
int cd_tri_tri_is_degenerate(const cd_triangle *t);
/// Overlap of a and b when at least one of them has zero area; exact.
int cd_tri_tri_degenerate(const cd_triangle *a, const cd_triangle *b);
/// cd_tri_tri_degenerate when it is known that t has area and d has none (no area tests).
int cd_tri_tri_degenerate_one(const cd_triangle *t, const cd_triangle *d);
/// Overlap of two non-degenerate triangles that lie exactly in one plane; exact. The triangles are
/// projected by dropping coordinate drop_hint when a's projection on it is non-degenerate (else
/// another) and separated iff some edge line has the other triangle strictly outside. grid is the
/// cd_grid of both triangles' coordinates ({0, −1} when unknown): on a small lattice every edge value
/// is computed exactly, else values whose rounding bound is below half g² are exactly 0.
int cd_tri_tri_coplanar(const cd_triangle *a, const cd_triangle *b, int drop_hint, cd_grid grid);
/// Overlap of a and b lying exactly in one plane, where a's projection without coordinate k is
/// known to have orientation oa ≠ 0 (so a has area and the plane's normal a non-zero k component);
/// −1 when b has zero area (then cd_tri_tri_degenerate decides). grid as for cd_tri_tri_coplanar.
int cd_tri_tri_coplanar_oriented(const cd_triangle *a, const cd_triangle *b, int k, int oa, cd_grid grid);

#endif
