// SPDX-License-Identifier: MIT
// One frame of a cube scene as CSV, so another tool can run exactly the same work.
#include "cd_csv.h"
#include "cd_scene.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *const columns[] = {"id", "cx", "cy", "cz", "qw", "qx", "qy", "qz", "hx", "hy", "hz"};
static const char header_text[] = "id,cx,cy,cz,qw,qx,qy,qz,hx,hy,hz";  // the columns, as a header line
enum { NCOL = sizeof columns / sizeof columns[0] };
// Cubes are kept in float; boxes of larger coordinates would overflow it.
#define CD_SCENE_MAX_COORD 1e30

int cd_scene_export_csv(const cd_scene *s, const char *path, char *err, size_t err_len)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        snprintf(err, err_len, "%s: cannot write: %s", path, strerror(errno));
        return -1;
    }
    fprintf(f, "# world=%.17g\n", s->world);
    cd_csv_write_row(f, columns, NCOL);
    char buf[NCOL][40];
    const char *fields[NCOL];
    // Rows in cube order whatever the storage order (cd_scene_reorder), so the file is the frame's.
    uint32_t *slot_of = cd_scene_slots(s);
    for (uint32_t id = 0; id < s->count; ++id) {
        uint32_t i = slot_of[id];
        cd_vec3 c = cd_scene_center(s, i), h = cd_scene_half(s, i);
        cd_quat q = cd_scene_rot(s, i);
        double v[NCOL] = {0, c.x, c.y, c.z, q.w, q.x, q.y, q.z, h.x, h.y, h.z};
        snprintf(buf[0], sizeof buf[0], "%u", id);
        for (int k = 1; k < NCOL; ++k) cd_csv_format_double(buf[k], sizeof buf[k], v[k]);
        for (int k = 0; k < NCOL; ++k) fields[k] = buf[k];
        cd_csv_write_row(f, fields, NCOL);
    }
    cd_free(slot_of);
    if (fclose(f) != 0) {
        snprintf(err, err_len, "%s: write failed: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

// The world side of a "# world=W" first line (W as written into text), or 0 when there is none.
static double read_world(const char *data, char *text, size_t len)
{
    text[0] = '\0';
    if (strncmp(data, "# world=", 8) != 0) return 0.0;
    size_t k = strcspn(data + 8, "\r\n");
    snprintf(text, len, "%.*s", (int)(k < 60 ? k : 60), data + 8);
    char *end;
    double w = strtod(text, &end);
    return end == text || *end ? NAN : w;
}

int cd_scene_check_world(double world, double extent, char *why, size_t len)
{
    if (!(world > 0.0) || !isfinite(world)) {
        snprintf(why, len, "expected a finite world side > 0");
        return -1;
    }
    const double factor = 16777216.0;  // 2^24: the float positions' precision
    if (extent > 0.0 && (world > extent * factor || world < extent / factor)) {
        snprintf(why, len,
                 "the objects reach %.6g: expected a world side within a factor 2^24 of that (%.6g to "
                 "%.6g), the precision of the float positions",
                 extent, extent / factor, extent * factor);
        return -1;
    }
    return 0;
}

// The header, exactly (columns are read by position, so a file with them in another order would
// be read wrongly), then rows of NCOL fields, checked on the text before it is parsed into fields:
// parsing allocates per field, about a hundred times the bytes of a file of empty fields, so a
// file that is no scene is refused for what its lines show, cheaply. Comment lines (#) and empty
// lines are skipped as the parser skips them; a quoted field (which may hold a comma) leaves its
// row to the parser's checks. 0, or -1 with "path:line: what".
static int check_layout(const char *path, const char *data, size_t len, char *err, size_t err_len)
{
    cd_lines it = cd_lines_of(data, len);
    const char *line;
    size_t n;
    int header = 1;
    while (cd_lines_next(&it, &line, &n)) {
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r')) --n;
        if (n > CD_TEXT_MAX_LINE) {  // the parser's own limit, said the same way
            char lim[32];
            cd_file_size_text(CD_TEXT_MAX_LINE, lim, sizeof lim);
            snprintf(err, err_len, "%s:%zu: line longer than %s: expected CSV rows of at most %s", path, it.line, lim,
                     lim);
            return -1;
        }
        if (n == 0 || line[0] == '#') continue;
        if (header) {
            if (n != sizeof header_text - 1 || memcmp(line, header_text, n) != 0) {
                snprintf(err, err_len, "%s:%zu: expected header %s, found '%.*s%s'", path, it.line, header_text,
                         (int)(n < 80 ? n : 80), line, n > 80 ? "..." : "");
                return -1;
            }
            header = 0;
            continue;
        }
        if (memchr(line, '"', n)) continue;
        size_t fields = 1;
        for (size_t k = 0; k < n; ++k) fields += line[k] == ',';
        if (fields != NCOL) {
            snprintf(err, err_len, "%s:%zu: expected %d fields, found %zu", path, it.line, NCOL, fields);
            return -1;
        }
    }
    if (header) {
        snprintf(err, err_len, "%s:%zu: expected header %s", path, it.line ? it.line : 1, header_text);
        return -1;
    }
    return 0;
}

cd_scene *cd_scene_import_csv(const char *path, char *err, size_t err_len)
{
    char *data, why[256], world_text[64];
    size_t len;
    if (cd_file_load(path, CD_FILE_MAX_BYTES, CD_FILE_REGULAR, &data, &len, why, sizeof why)) {
        snprintf(err, err_len, "%s: %s", path, why);
        return NULL;
    }
    double world = read_world(data, world_text, sizeof world_text);
    if (check_layout(path, data, len, err, err_len)) {
        cd_free(data);
        return NULL;
    }
    cd_csv_table t;
    int bad = cd_csv_parse_text(path, data, len, &t, err, err_len);
    cd_free(data);
    if (bad) return NULL;
    CD_ASSERT(t.count > 0 && t.rows[0].count == NCOL);  // check_layout saw the header, exactly
    cd_scene *s = cd_scene_create_empty((uint32_t)(t.count - 1), world > 0.0 ? world : 0.0);
    double wmax = 0.0, extent = 0.0;
    for (size_t r = 1; r < t.count; ++r) {
        const cd_csv_row *row = &t.rows[r];
        double v[NCOL];
        if (row->count != NCOL) {
            snprintf(err, err_len, "%s:%zu: expected %d fields, found %zu", path, row->line, NCOL, row->count);
            goto fail;
        }
        char idtext[24];
        snprintf(idtext, sizeof idtext, "%zu", r - 1);
        if (strcmp(row->fields[0], idtext) != 0) {
            char shown[256];
            snprintf(err, err_len, "%s:%zu: column id: expected %s (ids 0..N-1 in order), found '%s'", path, row->line,
                     idtext, cd_text_shown(row->fields[0], shown, sizeof shown));
            goto fail;
        }
        for (int k = 0; k < NCOL; ++k) {
            // Kept in float, checked as the float (1e30 itself rounds above 1e30, which a trace
            // recorded from this scene would then refuse).
            char note[64];
            if (cd_csv_parse_float_within(row->fields[k], CD_SCENE_MAX_COORD, &v[k], note, sizeof note)) {
                char shown[256];
                snprintf(err, err_len, "%s:%zu: column %s: expected a number of magnitude <= 1e30, found '%s'%s", path,
                         row->line, columns[k], cd_text_shown(row->fields[k], shown, sizeof shown), note);
                goto fail;
            }
        }
        cd_quat q = {v[4], v[5], v[6], v[7]};
        // Near unit, as cdlab writes them: the motion step renormalises in float, where the norm of
        // a quaternion of components near 1e22 overflows.
        if (!cd_q_near_unit(q) || v[8] < 0 || v[9] < 0 || v[10] < 0) {
            snprintf(err, err_len, "%s:%zu: expected a unit quaternion (norm 0.5 to 2) and half-extents >= 0", path,
                     row->line);
            goto fail;
        }
        // Kept as written (rounded to float), so a frame cdlab wrote reproduces bit for bit.
        cd_scene_set_pose(s, (uint32_t)(r - 1), cd_v3(v[1], v[2], v[3]), q, cd_v3(v[8], v[9], v[10]));
        wmax = fmax(wmax, fmax(fabs(v[1]), fmax(fabs(v[2]), fabs(v[3]))));
        for (int k = 0; k < 3; ++k) extent = fmax(extent, fabs(v[1 + k]) + v[8 + k]);
    }
    if (world_text[0] && cd_scene_check_world(world, extent, why, sizeof why)) {
        snprintf(err, err_len, "%s:1: # world=%s: %s", path, world_text, why);
        goto fail;
    }
    if (s->world <= 0.0) s->world = wmax > 0.0 ? wmax : 1.0;
    cd_scene_refresh(s);
    cd_csv_table_free(&t);
    return s;
fail:
    cd_scene_destroy(s);
    cd_csv_table_free(&t);
    return NULL;
}
