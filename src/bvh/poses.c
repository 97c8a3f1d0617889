// SPDX-License-Identifier: MIT
// Mesh-pair poses: seeded random rotations of B at a centre distance along x, and
// their CSV form (qw,qx,qy,qz,tx,ty,tz) so other tools can run exactly the same queries.
#include "cd_bvh.h"
#include "cd_csv.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const pose_header[7] = {"qw", "qx", "qy", "qz", "tx", "ty", "tz"};

void cd_poses_generate(uint64_t seed, double distance, size_t n, cd_pose *out)
{
    cd_rng r = cd_rng_make(seed, CD_STREAM_MESH_POSES);
    for (size_t i = 0; i < n; ++i) out[i] = (cd_pose){cd_rng_rotation(&r), cd_v3(distance, 0, 0)};
}

void cd_poses_write_rows(FILE *f, const cd_pose *p, size_t n)
{
    cd_csv_write_row(f, pose_header, 7);
    for (size_t i = 0; i < n; ++i) {
        double v[7] = {p[i].q.w, p[i].q.x, p[i].q.y, p[i].q.z, p[i].t.x, p[i].t.y, p[i].t.z};
        char buf[7][32];
        const char *fields[7];
        for (int k = 0; k < 7; ++k) cd_csv_format_double(buf[k], sizeof buf[k], v[k]), fields[k] = buf[k];
        cd_csv_write_row(f, fields, 7);
    }
}

int cd_poses_write_csv(const char *path, const cd_pose *p, size_t n, char *err, size_t err_len)
{
    cd_file_out o;
    char why[4400];
    if (cd_file_out_open(&o, path, why, sizeof why) == 0) {
        cd_poses_write_rows(o.f, p, n);
        if (cd_file_out_commit(&o, why, sizeof why) == 0) return 0;
    }
    snprintf(err, err_len, "%s: %s", path, why);
    return -1;
}

int cd_poses_read_csv(const char *path, cd_pose **out, size_t *n, char *err, size_t err_len)
{
    cd_csv_table t;
    *out = NULL, *n = 0;
    if (cd_csv_read(path, &t, err, err_len)) return -1;
    int rc = 0;
    if (t.count < 2) {
        snprintf(err, err_len, "%s:%zu: expected the header qw,qx,qy,qz,tx,ty,tz and at least one pose", path,
                 t.count ? t.rows[0].line : (size_t)1);
        rc = -1;
    }
    for (int k = 0; rc == 0 && k < 7; ++k)
        if (t.rows[0].count != 7 || strcmp(t.rows[0].fields[k], pose_header[k]) != 0) {
            snprintf(err, err_len, "%s:%zu: expected the header qw,qx,qy,qz,tx,ty,tz", path, t.rows[0].line);
            rc = -1;
        }
    if (rc == 0) *out = cd_alloc(sizeof **out * (t.count - 1));
    for (size_t i = 1; rc == 0 && i < t.count; ++i) {
        const cd_csv_row *row = &t.rows[i];
        double v[7];
        int ok = row->count == 7, k = 0;
        cd_number_fault f = CD_NUMBER_OK;
        while (ok && k < 7 && (f = cd_csv_parse_double(row->fields[k], &v[k])) == CD_NUMBER_OK) ++k;
        cd_quat q = {v[0], v[1], v[2], v[3]};
        if (!ok || f != CD_NUMBER_OK) {
            // A refused field is named, and why when its text is a number (one that rounds to 0).
            char shown[256], found[400] = "";
            if (ok)
                snprintf(found, sizeof found, ", found '%s' in column %s%s",
                         cd_text_shown(row->fields[k], shown, sizeof shown), pose_header[k], cd_number_fault_note(f));
            snprintf(err, err_len, "%s:%zu: expected 7 finite numbers qw,qx,qy,qz,tx,ty,tz%s", path, row->line, found);
            rc = -1;
        } else if (!(cd_q_norm(q) > 1e-12 && isfinite(cd_q_norm(q)))) {
            // Components past 1e154 overflow the norm, and normalising would give a zero rotation;
            // below 1e-12 the norm is refused (1e-300 alone underflows to 0). The message gives the
            // range, not "non-zero" and "finite", which such a quaternion is.
            snprintf(err, err_len,
                     "%s:%zu: expected a quaternion of norm above 1e-12 with components below 1e154 in magnitude "
                     "(it is normalised on use)",
                     path, row->line);
            rc = -1;
        } else if (!(fabs(v[4]) <= CD_POSE_MAX_T && fabs(v[5]) <= CD_POSE_MAX_T && fabs(v[6]) <= CD_POSE_MAX_T)) {
            // The query's margin grows with |t| (cd_bvh_pair_margin), whose square overflows past
            // 1e154: every volume test would then pass and the query test every triangle pair.
            // 1e30 is the bound of every position cdlab reads (traces, scene files).
            snprintf(err, err_len, "%s:%zu: expected a translation tx,ty,tz of magnitude <= 1e30 on each axis", path,
                     row->line);
            rc = -1;
        } else {
            (*out)[(*n)++] = (cd_pose){q, cd_v3(v[4], v[5], v[6])};
        }
    }
    cd_csv_table_free(&t);
    if (rc) cd_free(*out), *out = NULL, *n = 0;
    return rc;
}
