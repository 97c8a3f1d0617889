// SPDX-License-Identifier: MIT
// mesh: procedural meshes are closed, outward, near the requested face count and near their
// analytic volume; welding, normalisation and the closedness check; the reader on OBJ, OFF, PLY and
// STL files written here; its three gates (line checks, Assimp in a child process with a deadline,
// checks of the result) on bad files and on the inputs that crashed or hung Assimp.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "cd_mesh.h"
#include "import.h"  // the reader's gates on their own (src/mesh)
#include "test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static void check_generator(void (*make)(cd_mesh *, uint32_t), uint32_t faces, double volume, double vol_tol)
{
    cd_mesh m = {0};
    make(&m, faces);
    assert_true(cd_mesh_is_closed(&m));
    // The face-count parameter is met within 30 % (grids round their sizes).
    assert_true(m.ntris > 0.7 * faces && m.ntris < 1.3 * faces + 20);
    // Euler characteristic of the closed surface: V − E + F = 2 (sphere) or 0 (torus); E = 3F/2.
    long chi = (long)m.nverts - 3L * m.ntris / 2 + m.ntris;
    EXPECT_EQ(chi, (make == cd_mesh_torus ? 0 : 2));
    double v = cd_mesh_volume(&m);
    assert_true(v > 0.0);
    if (volume > 0 && !(fabs(v - volume) < vol_tol * volume))
        fail_msg("faces %u: volume %g, expected %g", faces, v, volume);
    cd_mesh_free(&m);
}

static void procedural_meshes_closed_and_sized(void **state)
{
    (void)state;
    const double sphere = 4.0 / 3.0 * M_PI, torus = 2.0 * M_PI * M_PI * 1.0 * 0.35 * 0.35;
    const double pencil = M_PI * 0.06 * 0.06 * (1.8 + 0.2 / 3.0);
    uint32_t sizes[] = {100, 1000, 10000, 100000};
    for (int i = 0; i < 4; ++i) {
        double tol = i == 0 ? 0.4 : 0.05;  // 100 faces are a coarse polyhedron
        check_generator(cd_mesh_icosphere, sizes[i], sphere, tol);
        check_generator(cd_mesh_torus, sizes[i], torus, tol);
        check_generator(cd_mesh_noisy_sphere, sizes[i], -1, 0);
        check_generator(cd_mesh_pencil, sizes[i], pencil, i == 0 ? tol : 0.1);  // few sides
    }
    check_generator(cd_mesh_icosphere, 1000000, sphere, 1e-4);
}

static void noisy_sphere_radius_in_band(void **state)
{
    (void)state;
    cd_mesh m = {0};
    cd_mesh_noisy_sphere(&m, 5000);
    double lo = 10, hi = 0;
    for (uint32_t i = 0; i < m.nverts; ++i) {
        double r = cd_v3_len(m.verts[i]);
        lo = fmin(lo, r), hi = fmax(hi, r);
    }
    assert_true(lo >= 0.85 - 1e-12 && hi <= 1.15 + 1e-12);
    assert_true(hi - lo > 0.1);  // really noisy
    cd_mesh_free(&m);
}

static void weld_joins_identical_vertices(void **state)
{
    (void)state;
    cd_mesh m = {0};
    cd_mesh_alloc(&m, 7, 2);
    cd_vec3 p[7] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {5, 5, 5}};
    memcpy(m.verts, p, sizeof p);
    uint32_t t[2][3] = {{0, 1, 2}, {3, 4, 5}};
    memcpy(m.tris, t, sizeof t);
    cd_mesh_weld(&m);
    assert_int_equal(m.nverts, 4);  // two shared, the unused one dropped
    assert_int_equal(m.tris[1][0], m.tris[0][1]);
    assert_int_equal(m.tris[1][2], m.tris[0][2]);
    assert_true(m.verts[m.tris[1][1]].x == 1 && m.verts[m.tris[1][1]].y == 1);
    cd_mesh_free(&m);
}

static void closedness_rejects_holes_and_flips(void **state)
{
    (void)state;
    cd_mesh m = {0};
    cd_mesh_icosphere(&m, 80);
    assert_true(cd_mesh_is_closed(&m));
    uint32_t k = m.tris[5][1];
    m.tris[5][1] = m.tris[5][2], m.tris[5][2] = k;  // one flipped face: inconsistent orientation
    assert_false(cd_mesh_is_closed(&m));
    m.tris[5][2] = m.tris[5][1], m.tris[5][1] = k;
    assert_true(cd_mesh_is_closed(&m));
    m.ntris -= 1;  // a hole
    assert_false(cd_mesh_is_closed(&m));
    cd_mesh_free(&m);
}

static void normalize_fits_unit_cube(void **state)
{
    (void)state;
    cd_mesh m = {0};
    cd_mesh_torus(&m, 2000);
    for (uint32_t i = 0; i < m.nverts; ++i)
        m.verts[i] = cd_v3(3.0 * m.verts[i].x + 10.0, 3.0 * m.verts[i].y - 4.0, 3.0 * m.verts[i].z + 0.5);
    cd_mesh_normalize(&m);
    cd_vec3 lo = m.verts[0], hi = m.verts[0];
    for (uint32_t i = 0; i < m.nverts; ++i) lo = cd_v3_min(lo, m.verts[i]), hi = cd_v3_max(hi, m.verts[i]);
    // The x and y extents (the torus' 2.7 wide ring) become [-1,1]; z keeps the same factor.
    assert_true(fabs(lo.x + 1) < 1e-12 && fabs(hi.x - 1) < 1e-12);
    assert_true(fabs(lo.y + hi.y) < 1e-12 && fabs(lo.z + hi.z) < 1e-12);
    assert_true(fabs(hi.z - 0.35 / 1.35) < 0.01);  // the grid misses the exact top
    assert_true(lo.x >= -1 && lo.y >= -1 && lo.z >= -1 && hi.y <= 1 && hi.z <= 1);
    cd_mesh_free(&m);
}

// A unit cube as text in four formats: 8 vertices, 12 triangles (OBJ/OFF/PLY as quads).
static const char *cube_obj = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\n"
                              "f 1 4 3 2\nf 5 6 7 8\nf 1 2 6 5\nf 2 3 7 6\nf 3 4 8 7\nf 4 1 5 8\n";
static const char *cube_off = "OFF\n8 6 0\n0 0 0\n1 0 0\n1 1 0\n0 1 0\n0 0 1\n1 0 1\n1 1 1\n0 1 1\n"
                              "4 0 3 2 1\n4 4 5 6 7\n4 0 1 5 4\n4 1 2 6 5\n4 2 3 7 6\n4 3 0 4 7\n";
static const char *cube_ply = "ply\nformat ascii 1.0\nelement vertex 8\nproperty float x\nproperty float y\n"
                              "property float z\nelement face 6\nproperty list uchar int vertex_indices\n"
                              "end_header\n0 0 0\n1 0 0\n1 1 0\n0 1 0\n0 0 1\n1 0 1\n1 1 1\n0 1 1\n"
                              "4 0 3 2 1\n4 4 5 6 7\n4 0 1 5 4\n4 1 2 6 5\n4 2 3 7 6\n4 3 0 4 7\n";

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

// ASCII STL of the cube: every triangle lists its own vertices (what welding must repair).
static void write_cube_stl(const char *path)
{
    static const int q[6][4] = {{0, 3, 2, 1}, {4, 5, 6, 7}, {0, 1, 5, 4}, {1, 2, 6, 5}, {2, 3, 7, 6}, {3, 0, 4, 7}};
    static const int v[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "solid cube\n");
    for (int i = 0; i < 6; ++i)
        for (int h = 0; h < 2; ++h) {
            int t[3] = {q[i][0], q[i][1 + h], q[i][2 + h]};
            fprintf(f, " facet normal 0 0 0\n  outer loop\n");
            for (int k = 0; k < 3; ++k) fprintf(f, "   vertex %d %d %d\n", v[t[k]][0], v[t[k]][1], v[t[k]][2]);
            fprintf(f, "  endloop\n endfacet\n");
        }
    fprintf(f, "endsolid cube\n");
    fclose(f);
}

static void reader_reads_cube_in_four_formats(void **state)
{
    (void)state;
    char dir[] = "/tmp/cd_test_mesh_XXXXXX";
    assert_non_null(mkdtemp(dir));
    const char *ext[4] = {"obj", "off", "ply", "stl"};
    for (int i = 0; i < 4; ++i) {
        char path[256], err[512];
        snprintf(path, sizeof path, "%s/cube.%s", dir, ext[i]);
        if (i == 0) write_file(path, cube_obj);
        if (i == 1) write_file(path, cube_off);
        if (i == 2) write_file(path, cube_ply);
        if (i == 3) write_cube_stl(path);
        cd_mesh m = {0};
        int rc = cd_mesh_read(path, &m, err, sizeof err);
        if (rc) fprintf(stderr, "%s\n", err);
        assert_int_equal(rc, 0);
        assert_int_equal(m.ntris, 12);
        assert_int_equal(m.nverts, 8);
        assert_true(cd_mesh_is_closed(&m));
        assert_true(fabs(fabs(cd_mesh_volume(&m)) - 1.0) < 1e-12);
        cd_mesh_free(&m);
        unlink(path);
    }
    rmdir(dir);
}

// A small mesh is read with every vertex: the generator's icosphere of 1 280 faces written as an
// OBJ at radius 1, 1e-6 and 1e-12 (and as STL, one vertex per corner) comes back with its 642
// vertices, closed. Assimp's JoinIdenticalVertices, which cdlab no longer asks for, joined
// vertices within a tolerance: 592 of 642 at radius 1e-6, and the mesh was measured so.
static void reader_keeps_every_vertex_of_small_meshes(void **state)
{
    (void)state;
    cd_mesh ico = {0};
    cd_mesh_icosphere(&ico, 1280);
    assert_int_equal(ico.nverts, 642);
    char dir[] = "/tmp/cd_test_mesh_XXXXXX";
    assert_non_null(mkdtemp(dir));
    const double scales[] = {1.0, 1e-6, 1e-12};
    for (int k = 0; k < 3; ++k)
        for (int stl = 0; stl < 2; ++stl) {
            char path[256], err[512];
            snprintf(path, sizeof path, "%s/ico%d.%s", dir, k, stl ? "stl" : "obj");
            FILE *f = fopen(path, "w");
            assert_non_null(f);
            if (stl) {
                fprintf(f, "solid ico\n");
                for (uint32_t t = 0; t < ico.ntris; ++t) {
                    fprintf(f, "facet normal 0 0 0\nouter loop\n");
                    for (int c = 0; c < 3; ++c) {
                        cd_vec3 v = ico.verts[ico.tris[t][c]];
                        fprintf(f, "vertex %.17g %.17g %.17g\n", v.x * scales[k], v.y * scales[k], v.z * scales[k]);
                    }
                    fprintf(f, "endloop\nendfacet\n");
                }
                fprintf(f, "endsolid ico\n");
            } else {
                for (uint32_t i = 0; i < ico.nverts; ++i)
                    fprintf(f, "v %.17g %.17g %.17g\n", ico.verts[i].x * scales[k], ico.verts[i].y * scales[k],
                            ico.verts[i].z * scales[k]);
                for (uint32_t t = 0; t < ico.ntris; ++t)
                    fprintf(f, "f %u %u %u\n", ico.tris[t][0] + 1, ico.tris[t][1] + 1, ico.tris[t][2] + 1);
            }
            assert_int_equal(fclose(f), 0);
            cd_mesh m = {0};
            int rc = cd_mesh_read(path, &m, err, sizeof err);
            if (rc) fprintf(stderr, "%s\n", err);
            assert_int_equal(rc, 0);
            assert_int_equal(m.ntris, 1280);
            assert_int_equal(m.nverts, 642);
            assert_true(cd_mesh_is_closed(&m));
            cd_mesh_free(&m);
            unlink(path);
        }
    rmdir(dir);
    cd_mesh_free(&ico);
}

static void reader_errors_name_the_file(void **state)
{
    (void)state;
    char err[512];
    cd_mesh m = {0};
    assert_int_equal(cd_mesh_read("/nonexistent/dir/nothing.obj", &m, err, sizeof err), -1);
    assert_non_null(strstr(err, "/nonexistent/dir/nothing.obj"));
    char path[] = "/tmp/cd_test_mesh_bad_XXXXXX.off";
    int fd = mkstemps(path, 4);
    assert_true(fd >= 0);
    close(fd);
    write_file(path, "OFF\n3 1 0\n0 0 0\n1 0\n");  // truncated
    assert_int_equal(cd_mesh_read(path, &m, err, sizeof err), -1);
    assert_non_null(strstr(err, path));
    unlink(path);
}

// Write text to a fresh file named *.ext and return its path (static buffer).
static const char *temp_mesh(const char *ext, const char *text, size_t len)
{
    static char path[64];
    snprintf(path, sizeof path, "/tmp/cd_test_mesh_XXXXXX.%s", ext);
    int fd = mkstemps(path, (int)strlen(ext) + 1);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, len), (ssize_t)len);
    close(fd);
    return path;
}

typedef struct bad_mesh {
    const char *ext, *text, *want;
} bad_mesh;

// Each file of cases must be refused with a message that names it and contains want.
static void expect_refused(const bad_mesh *cases, size_t n)
{
    for (size_t i = 0; i < n; ++i) {
        const char *path = temp_mesh(cases[i].ext, cases[i].text, strlen(cases[i].text));
        char err[1024];
        cd_mesh m;
        int rc = cd_mesh_read(path, &m, err, sizeof err);
        if (rc == 0) {
            print_error("%s was read (%u triangles): expected \"%s\"\n", cases[i].text, m.ntris, cases[i].want);
            cd_mesh_free(&m);
        }
        assert_int_equal(rc, -1);
        EXPECT_CONTAINS(err, path);
        EXPECT_CONTAINS(err, cases[i].want);
        unlink(path);
    }
}

// Each bad file's message names the file and the line (text formats) and says what is wrong.
static void reader_rejects_bad_files_with_their_line(void **state)
{
    (void)state;
    static const bad_mesh cases[] = {
        {"off", "OFF\n3 1 0\n0 0 0\nnan 0 0\n0 1 0\n3 0 1 2\n", ":4: vertex 1: 'nan' is not a finite number"},
        {"off", "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 -inf\n3 0 1 2\n", ":5: vertex 2: '-inf' is not a finite number"},
        {"off", "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 1e999\n3 0 1 2\n", ":5: vertex 2: '1e999' is not finite"},
        // Below half the smallest subnormal: strtod's 0, refused as the CSV readers refuse it.
        {"off", "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 1e-400\n3 0 1 2\n",
         ":5: vertex 2: '1e-400' is not a usable number (it rounds to 0; for zero write 0)"},
        {"off", "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 4000000000\n",
         ":6: face 0: a vertex index is 4000000000: expected 0..2"},
        {"off", "OFF\n8 6 0\n0 0 0\n1 0 0\n1 1 0\n0 1 0\n0 0 1\n1 0 1\n1 1 1\n0 1 1\n0\n",
         ":11: face 0: its vertex count is 0: expected 3..9"},
        {"off", "OFF\n3 1 0\n0 0 0\x01\n1 0 0\n0 1 0\n3 0 1 2\n", ":3: unexpected byte 0x01 in column 6"},
        {"off", "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1)0\n3 0 1 2\n", ":5: vertex 2: '1)0' is not a decimal number"},
        {"off", "OFF\n3 4000000000 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n", ":6: the file ends after 1 of 4000000000 faces"},
        {"off", "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n3 0 1 2\n", ":7: text after the last of the 1 faces"},
        {"off", "OF\n3 1 0\n", ":1: 'OF': expected the keyword OFF"},
        {"off", "OFF\n3 1 0\n0 0 0\n1 0 0\n2 0 0\n3 0 1 2\n", "all 1 triangles have zero area"},
        {"txt", "OFF\n3 1 0\n0 0 0\nnan 0 0\n0 1 0\n3 0 1 2\n", ":4: vertex 1: 'nan' is not a finite number"},
        {"obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 4\n", ":4: f: vertex index 4: the file has 3"},
        {"obj", "f -1 -2 -3\nv 0 0 0\nv 1 0 0\nv 0 1 0\n", ":1: f: vertex index -1: only 0 defined before this line"},
        {"obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 0 1 2\n", ":4: f: vertex index 0: OBJ indices start at 1"},
        {"obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1/1 2/1 3/1\n", ":4: f: texture coordinate index 1: the file has 0"},
        {"obj", "v 0 0 0\nv nan 0 0\nv 0 1 0\nf 1 2 3\n", ":2: v: 'nan' is not a finite number"},
        {"obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2\n", ":4: f has 2 vertex references: expected at least 3"},
        {"obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nfoo 1 2 3\n", ":4: 'foo': not an OBJ statement"},
        {"obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\n", "no faces (f): expected at least one"},
        {"obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\ncurv 0 1 1 2\n", ":4: 'curv': free-form curves"},
        {"stl", "", "empty file: expected a mesh"},
        {"ply", "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nend_headr\n", ":5: 'end_headr': not a PLY"},
        {"ply", "ply\nformat ascii 2.0\nend_header\n", ":2: expected one 'format ascii"},
        {"ply", "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\n", ":4: the file ends inside the header"},
        {"ply", "ply\nformat ascii 1.0\nelement vertex 3\nproperty list uchar x\nend_header\n",
         ":4: property type 'x': expected char"},
    };
    expect_refused(cases, sizeof cases / sizeof cases[0]);
    char err[1024];
    cd_mesh m;
    assert_int_equal(cd_mesh_read("/tmp", &m, err, sizeof err), -1);
    EXPECT_CONTAINS(err, "/tmp: is a directory");
    // A device is refused before a byte is read: /dev/zero would otherwise be read without end.
    assert_int_equal(cd_mesh_read("/dev/zero", &m, err, sizeof err), -1);
    EXPECT_CONTAINS(err, "/dev/zero: not a regular file (a character device)");
}

// A tetrahedron (0,0,0), (1,0,0), (0,1,0), (0,0,1), outward, as the files below write it.
#define TET_OFF_FACES "3 0 2 1\n3 0 1 3\n3 0 3 2\n3 1 2 3\n"
#define TET_OBJ_V "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\n"
#define TET_OBJ_F "f 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n"
#define STL_FACET(a, b, c) \
    "facet normal 0 0 0\n outer loop\n  vertex " a "\n  vertex " b "\n  vertex " c "\n endloop\nendfacet\n"
#define TET_STL                          \
    STL_FACET("0 0 0", "0 1 0", "1 0 0") \
    STL_FACET("0 0 0", "1 0 0", "0 0 1") STL_FACET("0 0 0", "0 0 1", "0 1 0") STL_FACET("1 0 0", "0 1 0", "0 0 1")

// Texts that Assimp reads otherwise than the line checks once did (a different mesh without a
// word, or a failure without a line): each is now refused with its line. Every case here was
// accepted by the checks before, and Assimp then read a wrong mesh or failed.
static void reader_refuses_what_assimp_reads_otherwise(void **state)
{
    (void)state;
    static const bad_mesh cases[] = {
        // OFF: the edge count left out (Assimp took vertex 0's x for it).
        {"off", "OFF\n4 4\n0 0 0 0.5\n1 0 0 0.5\n0 1 0 0.5\n0 0 1 0.5\n" TET_OFF_FACES,
         ":2: expected the three counts 'vertices faces edges'"},
        // Signs and leading zeros: Assimp's strtoul10 reads '+1' and '-0' as 0.
        {"off", "OFF\n+4 +4 0\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n" TET_OFF_FACES,
         ":2: the vertex count: '+4': expected decimal digits without a sign"},
        {"off", "OFF\n4 4 0\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n3 0 +2 1\n3 0 1 3\n3 0 3 2\n3 1 2 3\n",
         ":7: face 0: a vertex index: '+2': expected decimal digits without a sign"},
        {"off", "OFF\n4 4 0\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n3 -0 2 1\n3 0 1 3\n3 0 3 2\n3 1 2 3\n",
         ":7: face 0: a vertex index: '-0': expected decimal digits without a sign"},
        {"off", "OFF\n4 4 0\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n3 0 02 1\n3 0 1 3\n3 0 3 2\n3 1 2 3\n",
         ":7: face 0: a vertex index: '02': expected decimal digits without a leading zero"},
        // A comment or a line of spaces among the vertex and face lines (Assimp read it as a vertex it
        // could not parse, or dropped it as a face and the last face with it).
        {"off", "OFF\n4 4 0\n0 0 0\n# c\n1 0 0\n0 1 0\n0 0 1\n" TET_OFF_FACES,
         ":4: a comment line among the vertex and face lines"},
        {"off", "OFF\n4 4 0\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n3 0 2 1\n  \n3 0 1 3\n3 0 3 2\n3 1 2 3\n",
         ":8: a line of spaces among the vertex and face lines"},
        // COFF's colour is r g b a: Assimp reads a fourth number and fails at the line's end.
        {"off", "COFF\n4 4 0\n0 0 0 1 0 0\n1 0 0 1 0 0\n0 1 0 1 0 0\n0 0 1 1 0 0\n" TET_OFF_FACES,
         ":3: vertex 0 has 6 numbers: expected x y z r g b a (COFF)"},
        // Coordinates are floats: beyond their range, 0 though non-zero, or parsed otherwise by
        // Assimp's fast_atof (15 fraction digits; powf(10, exponent) in float; a wrapping uint64).
        {"off", "OFF\n4 4 0\n0 0 0\n1e39 0 0\n0 1 0\n0 0 1\n" TET_OFF_FACES,
         ":4: vertex 1: '1e39' is not finite as a float (coordinates are read as floats"},
        {"off", "OFF\n4 4 0\n0 0 0\n1 1e-50 0\n0 1 0\n0 0 1\n" TET_OFF_FACES,
         ":4: vertex 1: '1e-50' is not a usable number (it rounds to 0; for zero write 0): coordinates are read as "
         "floats"},
        {"off", "OFF\n4 4 0\n0 0 0\n1 0.000000000012345678 0\n0 1 0\n0 0 1\n" TET_OFF_FACES,
         ":4: vertex 1: '0.000000000012345678' reads as 1.2345e-11 in the mesh reader (Assimp"},
        {"off", "OFF\n4 4 0\n0 0 0\n0.00001e43 0 0\n0 1 0\n0 0 1\n" TET_OFF_FACES,
         ":4: vertex 1: '0.00001e43' reads as inf in the mesh reader"},
        {"off", "OFF\n4 4 0\n0 0 0\n30000000000000000000 0 0\n0 1 0\n0 0 1\n" TET_OFF_FACES,
         ":4: vertex 1: '30000000000000000000' reads as 1.15532559e+19 in the mesh reader"},
        {"off", "OFF\n4 4 0\n0 0 0\n1 0e999 0\n0 1 0\n0 0 1\n" TET_OFF_FACES, ":4: vertex 1: '0e999' reads as"},
        // A point first: Assimp's OBJ reader does not count ".5" as a number.
        {"obj", "v 0 0 0\nv .5 0 0\nv 0 1 0\nv 0 0 1\n" TET_OBJ_F, ":2: v: '.5' is not a decimal number"},
        // A CR inside a line is a line end to Assimp, a space to the checks once.
        {"off", "OFF\n4 4 0\n0 0 0\r1 0 0\n0 1 0\n0 0 1\n" TET_OFF_FACES, ":3: unexpected byte 0x0d in column 6"},
        // OBJ references: "01" and "+1" are read twice (12 faces became 48).
        {"obj", TET_OBJ_V "f 01 03 02\n",
         ":5: f: a vertex index: '01': expected decimal digits without a leading zero"},
        {"obj", TET_OBJ_V "f +1 +3 +2\n", ":5: f: a vertex index: '+1': expected decimal digits without a sign"},
        {"obj", TET_OBJ_V "f -01 -3 -2\n", ":5: f: a vertex index: '01': expected decimal digits without a leading"},
        // v of 5 or 7 numbers: Assimp reads none; w = 0: it divides by it.
        {"obj", "v 0 0 0 1 1\nv 1 0 0\nv 0 1 0\nv 0 0 1\n" TET_OBJ_F,
         ":1: v has 5 numbers: expected x y z, x y z w or x y z r g b"},
        {"obj", "v 0 0 0 1 1 1 1\nv 1 0 0\nv 0 1 0\nv 0 0 1\n" TET_OBJ_F, ":1: v has 7 numbers"},
        {"obj", "v 0 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\n" TET_OBJ_F, ":1: v: w is 0"},
        {"obj", "v 0 0 0\nv 1e-30 0 0 1e30\nv 0 1 0\nv 0 0 1\n" TET_OBJ_F, ":2: v: 1e-30/1e30 is 0 as a float"},
        {"obj", TET_OBJ_V "vt 0\n" TET_OBJ_F, ":5: vt has 1 numbers: expected u v or u v w"},
        {"obj", TET_OBJ_V "lod 1\n" TET_OBJ_F, ":5: 'lod': not an OBJ statement"},
        // Comments after a statement: Assimp reads on past '#'.
        {"obj", TET_OBJ_V "f 1 3 2 # c\n", ":5: a comment after 'f'"},
        {"obj", "v -1 -1 -1 # 2\nv 1 0 0\nv 0 1 0\nv 0 0 1\n" TET_OBJ_F, ":1: a comment after 'v'"},
        // An indented statement is skipped by Assimp, and the later indices shift.
        {"obj", "v 0 0 0\n  v 1 0 0\nv 0 1 0\nv 0 0 1\n" TET_OBJ_F, ":2: 'v' after spaces"},
        // A v/vt reference before any vt, after a vn: Assimp files the vt index as a normal's.
        {"obj", TET_OBJ_V "vn 0 0 1\nf 1/1 3/1 2/1\nvt 0 0\n",
         ":6: f: '1/1': a texture coordinate index before any vt line, after a vn line"},
        // ASCII STL: Assimp skips unknown words and drops a fourth vertex with a log line.
        {"stl",
         "solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0 junk\nvertex 0 1 0\nendloop\n"
         "endfacet\nendsolid t\n",
         ":5: vertex: 'junk' after its 3 numbers"},
        {"stl",
         "solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\nvertex 1 1 0\n"
         "endloop\nendfacet\nendsolid t\n",
         ":7: a fourth vertex: expected 'endloop'"},
        {"stl",
         "solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1e39 0 0\nvertex 0 1 0\nendloop\n"
         "endfacet\nendsolid t\n",
         ":5: vertex: '1e39' is not finite as a float"},
        {"stl",
         "solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0\nvertex 0 1 0\nendloop\n"
         "endfacet\nendsolid t\n",
         ":5: vertex has 2 numbers: expected 3"},
        {"stl", "solid t\nFACET normal 0 0 1\n", ":2: 'FACET': expected 'facet normal nx ny nz' or 'endsolid'"},
        {"stl",
         "solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\nendloop\n"
         "endfacet\n",
         ":8: the file ends inside solid 1: expected 'endsolid'"},
        {"stl", "solid facet\n", ":1: 'facet' in a solid's name"},
        {"stl", "mesh\n1 2 3\n", ":1: expected 'solid' (an ASCII STL); 11 bytes are too few for a binary STL"},
    };
    expect_refused(cases, sizeof cases / sizeof cases[0]);
}

// What the checks accept, Assimp reads as they read it: each text is the tetrahedron (4 vertices,
// 4 triangles, volume 1/6, closed) in a form the checks let through: comments and blank lines where
// Assimp skips them, CR LF, COFF and NOFF, OBJ's negative, slashed and homogeneous references and
// vertex colours, an STL with indentation, blank lines and two solids.
static void reader_reads_what_the_checks_accept(void **state)
{
    (void)state;
    static const struct {
        const char *ext, *text;
    } cases[] = {
        {"off", "# made by hand\nOFF # keyword\n\n# counts next\n4 4 0 # edges unknown\n  \n# vertices\n0 0 0\n\n"
                "1 0 0 # x\n0 1 0\n0 0 1\n\n" TET_OFF_FACES "\n# the end\n"},
        {"off", "OFF\r\n4 4 0\r\n0 0 0\r\n1 0 0\r\n0 1 0\r\n0 0 1\r\n3 0 2 1\r\n3 0 1 3\r\n3 0 3 2\r\n3 1 2 3\r\n"},
        {"off", "OFF 4 4 6\n0 0 0 0.5\n1 0 0 0.5\n0 1 0 0.5\n0 0 1 0.5\n" TET_OFF_FACES},
        {"off", "COFF\n4 4 0\n0 0 0 1 0 0 1\n1 0 0 1 0 0 1\n0 1 0 1 0 0 1\n0 0 1 1 0 0 1\n" TET_OFF_FACES},
        {"off", "NOFF\n4 4 0\n0 0 0 0 0 1\n1 0 0 0 0 1\n0 1 0 0 0 1\n0 0 1 0 0 1\n" TET_OFF_FACES},
        {"off", "OFF\n4 4 0\n0e5 0 -0\n1.0 0. 0\n0 100e-2 0\n0 0 0.1e1\n" TET_OFF_FACES},
        {"obj", TET_OBJ_V "f -4 -2 -3\nf -4 -3 -1\nf -4 -1 -2\nf -3 -2 -1\n"},
        {"obj", "# a comment\n  # indented\n\n" TET_OBJ_V "vt 0 0\nvn 0 0 1\no tet\ng side\ns 1\n"
                "f 1/1/1 3/1/1 2/1/1\nf 1//1 2//1 4//1\nf 1/1 4/1 3/1\nf 2 3 4\n"},
        {"obj", "v 0 0 0 2\nv 2 0 0 2\nv 0 1 0 1\nv 0 0 0.5 0.5\n" TET_OBJ_F},
        {"obj", "v 0 0 0 1 0 0\nv 1 0 0 1 0 0\nv 0 1 0 1e-50 0 0\nv 0 0 1 1 0 0\n" TET_OBJ_F},
        {"stl", "solid a b c\n\n" STL_FACET("0 0 0", "0 1 0", "1 0 0")
                    STL_FACET("0 0 0", "1 0 0", "0 0 1") "endsolid a\nsolid\n  " STL_FACET("0 0 0", "0 0 1", "0 1 0")
                        STL_FACET("1 0 0", "0 1 0", "0 0 1") "endsolid\n\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        const char *path = temp_mesh(cases[i].ext, cases[i].text, strlen(cases[i].text));
        char err[1024];
        cd_mesh m;
        int rc = cd_mesh_read(path, &m, err, sizeof err);
        if (rc) print_error("case %zu: %s\n", i, err);
        assert_int_equal(rc, 0);
        assert_int_equal(m.nverts, 4);
        assert_int_equal(m.ntris, 4);
        assert_true(cd_mesh_is_closed(&m));
        assert_true(fabs(cd_mesh_volume(&m) - 1.0 / 6.0) < 1e-12);
        cd_mesh_free(&m);
        unlink(path);
    }
}

// The files that made Assimp abort or die of a bus error (tests/fuzz/regressions/mesh_read/):
// the line checks stop each before Assimp, and Assimp on its own, in its child, comes back as
// an error naming the file instead of taking cdlab down.
static void assimp_crashes_become_errors(void **state)
{
    (void)state;
    const char *dir = getenv("CD_FUZZ_REGRESSIONS");
    assert_non_null(dir);
    int crashed = 0;
    for (int i = 1; i <= 5; ++i) {
        char path[4200], err[1024];
        snprintf(path, sizeof path, "%s/mesh_read/assimp-crash%d.off", dir, i);
        cd_mesh m;
        assert_int_equal(cd_mesh_read(path, &m, err, sizeof err), -1);
        EXPECT_CONTAINS(err, path);
        assert_null(strstr(err, "Assimp"));  // stopped by the line checks
        assert_int_equal(mesh_import_isolated(path, 200, &m, err, sizeof err), -1);
        EXPECT_CONTAINS(err, path);
        EXPECT_CONTAINS(err, "the mesh reader (Assimp)");
        crashed += strstr(err, "crashed on this file") != NULL;
    }
    // Under ASan a crash in the child is a sanitizer report and exit status 1, not a signal.
    fprintf(stderr, "# %d of 5 Assimp runs died of a signal\n", crashed);
}

// A reader that never finishes is stopped at the deadline: Assimp on a FIFO nobody writes, and
// on an ASCII PLY with a broken header on which its reader loops (which the header check now
// stops before Assimp sees it).
static void stalled_reader_is_stopped(void **state)
{
    (void)state;
    char dir[] = "/tmp/cd_test_mesh_fifo_XXXXXX", fifo[64], err[1024];
    assert_non_null(mkdtemp(dir));
    snprintf(fifo, sizeof fifo, "%s/stall.obj", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    setenv("CDLAB_MESH_READ_TIMEOUT", "0.5", 1);
    cd_mesh m;
    assert_int_equal(mesh_import_isolated(fifo, 0, &m, err, sizeof err), -1);
    EXPECT_CONTAINS(err, "did not finish within 0 s");  // "%.0f" of 0.5
    const char *regressions = getenv("CD_FUZZ_REGRESSIONS");
    assert_non_null(regressions);
    char ply[4200];
    snprintf(ply, sizeof ply, "%s/mesh_read/hang-ascii-ply-bad-header.ply", regressions);
    assert_int_equal(mesh_import_isolated(ply, 1000, &m, err, sizeof err), -1);
    EXPECT_CONTAINS(err, "did not finish");
    assert_int_equal(cd_mesh_read(ply, &m, err, sizeof err), -1);  // the header check stops it first
    EXPECT_CONTAINS(err, ".ply:3: the element count: 'vertex_indices' is not an integer");
    // A limit that is not a positive number of seconds is refused before any reader starts.
    const char *const bad[] = {"", "abc", "10s", "0", "-5", "nan", "inf", "1e999"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; ++k) {
        setenv("CDLAB_MESH_READ_TIMEOUT", bad[k], 1);
        assert_int_equal(mesh_import_isolated(fifo, 0, &m, err, sizeof err), -1);
        EXPECT_CONTAINS(err, "expected a positive number of seconds");
        EXPECT_CONTAINS(err, "stall.obj: CDLAB_MESH_READ_TIMEOUT='");
    }
    unsetenv("CDLAB_MESH_READ_TIMEOUT");
    unlink(fifo);
    rmdir(dir);
}

// What any reader returns is checked: finite coordinates, indices in range, some area.
static void imported_meshes_are_checked(void **state)
{
    (void)state;
    cd_mesh m;
    char err[512];
    cd_mesh_alloc(&m, 3, 1);
    m.verts[0] = cd_v3(0, 0, 0), m.verts[1] = cd_v3(1, 0, 0), m.verts[2] = cd_v3(0, 1, 0);
    m.tris[0][0] = 0, m.tris[0][1] = 1, m.tris[0][2] = 2;
    assert_int_equal(mesh_check_imported("t", &m, err, sizeof err), 0);
    m.tris[0][2] = 3;
    assert_int_equal(mesh_check_imported("t", &m, err, sizeof err), -1);
    EXPECT_CONTAINS(err, "t: triangle 0 names vertex 3 of 3");
    m.tris[0][2] = 2, m.verts[1].y = NAN;
    assert_int_equal(mesh_check_imported("t", &m, err, sizeof err), -1);
    EXPECT_CONTAINS(err, "t: vertex 1 is not finite");
    m.verts[1] = cd_v3(2, 2, 0), m.verts[2] = cd_v3(1, 1, 0);
    assert_int_equal(mesh_check_imported("t", &m, err, sizeof err), -1);
    EXPECT_CONTAINS(err, "t: all 1 triangles have zero area");
    cd_mesh_free(&m);
}

static void spec_names_generators_and_files(void **state)
{
    (void)state;
    char err[512];
    cd_mesh m = {0};
    assert_int_equal(cd_mesh_from_spec("torus:400", &m, err, sizeof err), 0);
    assert_int_equal(m.ntris, 400);
    cd_mesh_free(&m);
    assert_int_equal(cd_mesh_from_spec("icosphere:20", &m, err, sizeof err), 0);
    assert_int_equal(m.ntris, 20);
    assert_int_equal(m.nverts, 12);
    cd_mesh_free(&m);
    assert_int_equal(cd_mesh_from_spec("torus:abc", &m, err, sizeof err), -1);
    assert_non_null(strstr(err, "torus:abc"));
    assert_int_equal(cd_mesh_from_spec("pencil:0", &m, err, sizeof err), -1);
    // One parser for the spec, here and where a config is checked: decimal digits only, so a
    // sign, a space or an exponent is refused, not read by strtoull as 5 or wrapped.
    static const char *const bad_counts[] = {
        "torus:+5", "torus: 5", "torus:-1", "torus:1e3", "torus:", "torus:10000001", "torus:99999999999999999999"};
    uint32_t faces = 7;
    for (size_t i = 0; i < sizeof bad_counts / sizeof bad_counts[0]; ++i) {
        if (cd_mesh_from_spec(bad_counts[i], &m, err, sizeof err) != -1 || !strstr(err, "expected torus:N"))
            fail_msg("%s: accepted, or not refused as a face count (%s)", bad_counts[i], err);
        assert_int_equal(cd_mesh_parse_generator_spec(bad_counts[i], &faces), -1);
    }
    assert_int_equal(cd_mesh_parse_generator_spec("pencil:0010000000", &faces), 1);
    assert_int_equal(faces, 10000000);
    assert_int_equal(cd_mesh_parse_generator_spec("box", &faces), 0);
    assert_int_equal(cd_mesh_parse_generator_spec("torus", &faces), 0);
    assert_int_equal(cd_mesh_parse_generator_spec("meshes/torus:5.obj", &faces), 0);
    assert_int_equal(cd_mesh_from_spec("no_such_file.stl", &m, err, sizeof err), -1);
    assert_non_null(strstr(err, "no_such_file.stl"));
    // cd_mesh_generator_faces says what each generator makes, without making it.
    static const char *const names[] = {"icosphere", "torus", "noisy_sphere", "pencil"};
    static const uint32_t asked[] = {1, 20, 40, 100, 200, 777, 5000, 123457};
    for (size_t g = 0; g < 4; ++g)
        for (size_t i = 0; i < sizeof asked / sizeof asked[0]; ++i) {
            char spec[64];
            snprintf(spec, sizeof spec, "%s:%u", names[g], asked[i]);
            assert_int_equal(cd_mesh_from_spec(spec, &m, err, sizeof err), 0);
            if (m.ntris != cd_mesh_generator_faces(names[g], asked[i]))
                fail_msg("%s: %u triangles, cd_mesh_generator_faces says %u", spec, m.ntris,
                         cd_mesh_generator_faces(names[g], asked[i]));
            cd_mesh_free(&m);
        }
    assert_int_equal(cd_mesh_generator_faces("icosphere", 40), 20);
    assert_int_equal(cd_mesh_generator_faces("box", 40), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(procedural_meshes_closed_and_sized),
        cmocka_unit_test(noisy_sphere_radius_in_band),
        cmocka_unit_test(weld_joins_identical_vertices),
        cmocka_unit_test(closedness_rejects_holes_and_flips),
        cmocka_unit_test(normalize_fits_unit_cube),
        cmocka_unit_test(reader_reads_cube_in_four_formats),
        cmocka_unit_test(reader_keeps_every_vertex_of_small_meshes),
        cmocka_unit_test(reader_errors_name_the_file),
        cmocka_unit_test(reader_rejects_bad_files_with_their_line),
        cmocka_unit_test(reader_refuses_what_assimp_reads_otherwise),
        cmocka_unit_test(reader_reads_what_the_checks_accept),
        cmocka_unit_test(assimp_crashes_become_errors),
        cmocka_unit_test(stalled_reader_is_stopped),
        cmocka_unit_test(imported_meshes_are_checked),
        cmocka_unit_test(spec_names_generators_and_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
