// SPDX-License-Identifier: MIT
// `cdlab trace record|import|export|info`: recorded traces (docs/design/scene.md#traces) written
// from a config's scene or a CSV, written back out as CSV, and described.
#include "cd_csv.h"
#include "cd_harness_cli.h"
#include "cd_kinds.h"
#include "cd_trace.h"
#include "cli.h"
#include "options.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char CSV_HEADER[] = "frame,id,qw,qx,qy,qz,x,y,z,hx,hy,hz";
// An optional comment line before the header: the trace's world box (export writes it).
static const char WORLD_LINE[] = "# world=";
enum { CSV_FIELDS = 12 };

// What the command line gave: the input, -o, --point, --frames.
typedef struct trace_args {
    const char *in, *out;
    uint64_t point, frames;  // frames 0: what one repeat of a run reads
} trace_args;

// s as info prints it: printable ASCII as it is, a backslash as \\, any other byte as \xNN, so
// that the control characters or escape sequences a file's header may hold never reach the
// terminal, and the text printed still says which bytes they were.
static void put_escaped(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; ++p)
        if (*p == '\\')
            fputs("\\\\", stdout);
        else if (*p >= 0x20 && *p < 0x7f)
            putchar(*p);
        else
            printf("\\x%02x", *p);
}

static int cmd_info(const trace_args *a)
{
    char err[4600];
    cd_trace *t = cd_trace_open(a->in, 1, err, sizeof err);
    if (!t) {
        fprintf(stderr, "cdlab trace info: %s\n", err);
        return 2;
    }
    const cd_trace_info *i = cd_trace_get_info(t);
    printf("file     %s\nformat   %s\nobjects  %llu\nframes   %llu (every frame checked)\n", a->in,
           i->format == CD_TRACE_CDLAB ? "cdlab trace, version 1" : "Broadmark .aabbs", (unsigned long long)i->objects,
           (unsigned long long)i->frames);
    printf("world    [%.9g, %.9g] x [%.9g, %.9g] x [%.9g, %.9g]\nbytes    %llu\n", i->lo[0], i->hi[0], i->lo[1],
           i->hi[1], i->lo[2], i->hi[2], (unsigned long long)i->bytes);
    if (i->format == CD_TRACE_BROADMARK) {  // the file's own bytes: escaped
        fputs("name     ", stdout), put_escaped(i->name);
        fputs("\ntype     ", stdout), put_escaped(i->type);
        putchar('\n');
    }
    cd_trace_close(t);
    return 0;
}

// Poses in object order from a scene whose slots may be reordered.
static void poses_by_object(const cd_scene *s, cd_posef *pose)
{
    for (uint32_t i = 0; i < s->count; ++i) pose[cd_scene_ident(s, i)] = s->pose[i];
}

// Frames f = 0 .. frames-1 of the view into w (cd_trace_writer_create's, closed or aborted here):
// frame 0 is the scene as a repeat starts, then each step. 0, or the exit status with why in err:
// 2 where the scene makes a trace the reader refuses (what, without a path), 1 where the output
// cannot be written ("out: write error: <cause>").
static int record_frames(cd_kinds_view *v, uint64_t frames, cd_trace_writer *w, char *err, size_t len)
{
    const cd_scene *s = cd_kinds_view_scene(v);
    cd_posef *pose = cd_alloc((s->count ? s->count : 1) * sizeof *pose);
    float *half = cd_alloc((s->count ? 3 * (size_t)s->count : 1) * sizeof *half);
    poses_by_object(s, pose);
    for (uint32_t i = 0; i < s->count; ++i) memcpy(half + 3 * (size_t)i, pose[i].h, sizeof pose[i].h);
    int rc = cd_trace_writer_start(w, s->count, half, err, len);
    for (uint64_t f = 0; f < frames && rc == 0; ++f) {
        if (f > 0) cd_kinds_view_frame(v, 1, NULL, NULL, 0);  // the motion alone: no candidates to check
        s = cd_kinds_view_scene(v);
        poses_by_object(s, pose);
        // A limit of the format, not of the scene (docs/design/scene.md#traces): a replayed scene
        // whose boxes change size is replayed as it is, but cannot be written as a cdlab trace.
        for (uint32_t i = 0; i < s->count && rc == 0; ++i)
            if (memcmp(pose[i].h, half + 3 * (size_t)i, sizeof pose[i].h) != 0)
                rc = CD_TRACE_REFUSED,
                snprintf(err, len,
                         "object %u changed its half-extents at frame %llu: the scene's boxes change size (as a "
                         "Broadmark scene's may), and a cdlab trace holds constant half-extents per object; replay "
                         "such a scene directly with [scene] trace = FILE rather than recording it",
                         i, (unsigned long long)f);
        if (rc == 0) rc = cd_trace_writer_frame(w, pose, err, len);
    }
    double lo[3] = {0, 0, 0}, hi[3] = {s->world, s->world, s->world};
    if (rc == 0)
        rc = cd_trace_writer_close(w, lo, hi, err, len);
    else
        cd_trace_writer_abort(w);
    cd_free(pose);
    cd_free(half);
    return rc == 0 ? 0 : rc == CD_TRACE_REFUSED ? 2 : 1;
}

static int cmd_record(const trace_args *a)
{
    cd_config c;
    char err[4600];
    int bad = cd_cli_output_check("trace record", a->out);  // before the run, as export checks before it reads
    if (bad) return bad;
    // The output made first too: a path that cannot be written is said before the scene is run.
    cd_trace_writer *w;
    if (cd_trace_writer_create(&w, a->out, err, sizeof err) != 0) {
        fprintf(stderr, "cdlab trace record: %s\n", err);
        return 1;
    }
    if (cd_config_load(cd_kinds(), a->in, &c, err, sizeof err)) {
        fprintf(stderr, "cdlab trace record: %s\n", err);
        cd_trace_writer_abort(w);
        return 2;
    }
    int rc = 2;
    cd_point p = {0};
    p.pick = cd_alloc_zero(c.key_count ? c.key_count : 1, sizeof *p.pick);
    size_t points = cd_plan_size(&c);
    cd_kinds_view *v = NULL;
    if (a->point >= points) {
        fprintf(stderr, "cdlab trace record: %s: no point %llu: the config has %zu\n", a->in,
                (unsigned long long)a->point, points);
    } else {
        cd_point_at(&c, (size_t)a->point, &p);
        v = cd_kinds_view_open(&p, cd_config_text(&c, "run", "output"), err, sizeof err);  // as cdlab run
        if (!v) fprintf(stderr, "cdlab trace record: %s: %s\n", a->in, err);
    }
    if (v) {
        uint64_t frames = a->frames ? a->frames
                                    : 1 + (uint64_t)cd_point_num(&p, "experiment", "warmup") +
                                          (uint64_t)cd_point_num(&p, "experiment", "frames");
        uint64_t have = cd_kinds_view_frames(v);  // a replayed trace's length (0: not a replay)
        if (have && frames > have) {
            fprintf(stderr, "cdlab trace record: %s: point %llu replays a trace of %llu frames: expected %s <= %llu\n",
                    a->in, (unsigned long long)a->point, (unsigned long long)have,
                    a->frames ? "--frames" : "1 + warmup + frames", (unsigned long long)have);
        } else {
            rc = record_frames(v, frames, w, err, sizeof err);
            w = NULL;  // closed or aborted there
            if (rc == 0)
                printf("%s: %u %s, %llu frames\n", a->out, cd_kinds_view_scene(v)->count, cd_kinds_view_noun(v),
                       (unsigned long long)frames);
            else if (rc == 2)  // the scene makes a trace the reader refuses: the config's point is to blame
                fprintf(stderr, "cdlab trace record: %s: point %llu: %s\n", a->in, (unsigned long long)a->point, err);
            else
                fprintf(stderr, "cdlab trace record: %s\n", err);
        }
    }
    cd_trace_writer_abort(w);  // a point not recorded: nothing written (NULL where record_frames took it)
    cd_kinds_view_close(v);
    cd_free(p.pick);
    cd_config_free(&c);
    return rc;
}

// A CSV read a line at a time (a trace may be far larger than memory), each line at most
// CD_TEXT_MAX_LINE bytes (so /dev/zero or a file without newlines cannot take all memory).
typedef struct csv_in {
    FILE *f;
    const char *path;
    size_t line;
    char *buf;  // CD_TEXT_MAX_LINE + 2 bytes: a line, the CR of its CR LF, a NUL
} csv_in;

// The next line into in->buf without its line end; its length, -1 at the end of the file, -2 with
// "path:line: what" in err (a NUL byte, a CR that does not end the line, a line too long, a read
// error).
static long csv_line(csv_in *in, char *err, size_t len)
{
    int c = getc_unlocked(in->f);
    if (c == EOF) {
        if (!ferror(in->f)) return -1;
        snprintf(err, len, "%s:%zu: read error: %s", in->path, in->line + 1, strerror(errno));
        return -2;
    }
    in->line++;
    size_t n = 0;
    for (; c != EOF && c != '\n'; c = getc_unlocked(in->f)) {
        if (c == '\0') return snprintf(err, len, "%s:%zu: a NUL byte in the line", in->path, in->line), -2;
        // The line's end is not counted: one CR past the limit is kept, and must end the line.
        if (n == CD_TEXT_MAX_LINE + 1 || (n == CD_TEXT_MAX_LINE && c != '\r')) {
            char lim[32];
            cd_file_size_text(CD_TEXT_MAX_LINE, lim, sizeof lim);
            snprintf(err, len, "%s:%zu: line longer than %s: expected a CSV of rows", in->path, in->line, lim);
            return -2;
        }
        in->buf[n++] = (char)c;
    }
    if (ferror(in->f)) return snprintf(err, len, "%s:%zu: read error: %s", in->path, in->line, strerror(errno)), -2;
    if (n > 0 && in->buf[n - 1] == '\r') --n;  // a CR LF line end
    // A byte-order mark (the header "\uFEFFframe,id,..." was reported as not the expected one) and
    // any other CR ("0\r" read as 0; a file of CR line ends one line) as cd_csv_load refuses them.
    if (cd_csv_unquoted_line_check(in->path, in->line, in->buf, n, err, len)) return -2;
    in->buf[n] = '\0';
    return (long)n;
}

// line cut in place into exactly n comma-separated fields; 0, or -1 when it holds another count.
static int split_fields(char *line, char **field, int n)
{
    for (int k = 0; k < n; ++k) {
        char *end = strchr(line, ',');
        if ((k < n - 1) != (end != NULL)) return -1;
        if (end) *end = '\0';
        field[k] = line;
        line = end + 1;
    }
    return 0;
}

// An integer column's field (frame, id) into *v: decimal digits only, with spaces and tabs around
// as the number columns allow them. 0; -1 when it is not such a number (strtod took "0x1", "1e0",
// "+0" and "-0" for integers), -2 when it is over 4294967295.
static int parse_count(const char *field, double *v)
{
    while (*field == ' ' || *field == '\t') field++;
    const char *p = field;
    uint64_t n = 0;
    for (; *p >= '0' && *p <= '9'; ++p)
        if ((n = 10 * n + (uint64_t)(*p - '0')) > UINT32_MAX) n = (uint64_t)UINT32_MAX + 1;  // stays there
    while (*p == ' ' || *p == '\t') p++;
    if (p == field || *p != '\0') return -1;
    *v = (double)n;
    return n > UINT32_MAX ? -2 : 0;
}

// The next row's twelve numbers: 1, 0 at the end, -1 with "path:line: what" in err.
static int csv_next(csv_in *in, double v[CSV_FIELDS], char *err, size_t len)
{
    static const char *const names[CSV_FIELDS] = {"frame", "id", "qw", "qx", "qy", "qz",
                                                  "x",     "y",  "z",  "hx", "hy", "hz"};
    long got;
    while ((got = csv_line(in, err, len)) >= 0) {
        if (got == 0) continue;
        // A # line here was read as a comment, and a # world= line dropped without a word: the
        // trace then had the box around its objects instead of the one given.
        if (in->buf[0] == '#') {
            snprintf(err, len, "%s:%zu: a '#' line after the header: comments and %s go before the header", in->path,
                     in->line, WORLD_LINE);
            return -1;
        }
        char *field[CSV_FIELDS];
        if (split_fields(in->buf, field, CSV_FIELDS)) {
            snprintf(err, len, "%s:%zu: expected %d fields", in->path, in->line, CSV_FIELDS);
            return -1;
        }
        for (int k = 0; k < CSV_FIELDS; ++k) {
            const char *p = field[k];
            char shown[256];
            if (k < 2) {
                int bad = parse_count(p, &v[k]);
                if (bad)
                    return snprintf(err, len, "%s:%zu: column %s: expected %s, found '%s'", in->path, in->line,
                                    names[k],
                                    bad == -1 ? "a non-negative integer (decimal digits)" : "an integer <= 4294967295",
                                    cd_text_shown(p, shown, sizeof shown)),
                           -1;
                continue;
            }
            // The trace holds floats, and its reader checks the floats: so does this (1e30 itself
            // rounds to a float above 1e30).
            char note[64];
            if (cd_csv_parse_float_within(p, 1e30, &v[k], note, sizeof note)) {
                snprintf(err, len, "%s:%zu: column %s: expected a number of magnitude <= 1e30, found '%s'%s", in->path,
                         in->line, names[k], cd_text_shown(p, shown, sizeof shown), note);
                return -1;
            }
        }
        double q[4] = {(float)v[2], (float)v[3], (float)v[4], (float)v[5]};  // as the reader sees it
        double q2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
        if (!(q2 >= 0.25 && q2 <= 4.0) || v[9] < 0 || v[10] < 0 || v[11] < 0) {
            snprintf(err, len, "%s:%zu: expected a unit quaternion (norm 0.5 to 2) and half-extents >= 0", in->path,
                     in->line);
            return -1;
        }
        return 1;
    }
    return got == -1 ? 0 : -1;
}

static cd_posef row_pose(const double v[CSV_FIELDS])
{
    return (cd_posef){{(float)v[6], (float)v[7], (float)v[8]},
                      {(float)v[2], (float)v[3], (float)v[4], (float)v[5]},
                      {(float)v[9], (float)v[10], (float)v[11]}};
}

// Frame 0 is held until its end gives N and the half-extents; then a frame at a time.
typedef struct importer {
    cd_posef *pose;  // the frame being read (frame 0: grows)
    size_t n, cap, next_id;
    uint64_t frame;
    cd_trace_writer *w;  // made before the input is read (cd_trace_writer_create)
    int started;         // frame 0 is complete and w has the objects (cd_trace_writer_start)
} importer;

// The trace writer's failure rc (cd_trace.h) as import's exit status: 0 for none; 2 for a refusal,
// which names no file, prefixed with "IN.csv:LINE: " (line 0: "IN.csv: "), the line to blame; 1 for
// a write error, which names the output.
static int import_failed(int rc, const csv_in *in, size_t line, char *err, size_t len)
{
    if (rc == 0) return 0;
    if (rc != CD_TRACE_REFUSED) return 1;
    cd_trace_refusal_name(err, len, in->path, line);
    return 2;
}

// Frame 0 is complete (its last row was in->line): the trace starts. 0, or the exit status with
// why in err.
static int import_start(importer *im, const csv_in *in, char *err, size_t len)
{
    float *half = cd_alloc(3 * im->n * sizeof *half);
    for (size_t i = 0; i < im->n; ++i) memcpy(half + 3 * i, im->pose[i].h, sizeof im->pose[i].h);
    int rc = cd_trace_writer_start(im->w, im->n, half, err, len);
    cd_free(half);
    im->started = 1;
    im->next_id = im->n;  // frame 0 is complete
    if (rc == 0) rc = cd_trace_writer_frame(im->w, im->pose, err, len);
    return import_failed(rc, in, in->line, err, len);
}

// One row into the importer; 0, or the exit status with why in err: 2 with "path:line: what" (the
// row is wrong), 1 with a write error.
static int import_row(importer *im, const csv_in *in, const double v[CSV_FIELDS], char *err, size_t len)
{
    uint64_t f = (uint64_t)v[0], id = (uint64_t)v[1];
    cd_posef p = row_pose(v);
    if (f == 0 && !im->started) {  // frame 0 sets N and the half-extents
        if (id != im->n)
            return snprintf(err, len, "%s:%zu: id %llu: expected %zu (ids 0..N-1 in order)", in->path, in->line,
                            (unsigned long long)id, im->n),
                   2;
        if (im->n == im->cap)
            im->pose = cd_realloc(im->pose, (im->cap = im->cap ? 2 * im->cap : 1024) * sizeof *im->pose);
        im->pose[im->n++] = p;
        return 0;
    }
    if (im->n == 0)  // the first row is not frame 0's: no objects to start a trace of
        return snprintf(err, len, "%s:%zu: frame %llu: expected frame 0 (frames from 0)", in->path, in->line,
                        (unsigned long long)f),
               2;
    if (!im->started) {
        int rc = import_start(im, in, err, len);
        if (rc) return rc;
    }
    if (im->next_id == im->n) im->frame++, im->next_id = 0;  // the last frame was complete
    if (f != im->frame || id != im->next_id)
        return snprintf(err, len,
                        "%s:%zu: frame %llu id %llu: expected frame %llu id %zu (frames from 0, ids 0..%zu in each)",
                        in->path, in->line, (unsigned long long)f, (unsigned long long)id,
                        (unsigned long long)im->frame, im->next_id, im->n - 1),
               2;
    if (memcmp(p.h, im->pose[id].h, sizeof p.h) != 0)
        return snprintf(err, len, "%s:%zu: id %llu: half-extents differ from frame 0's: expected constant ones per id",
                        in->path, in->line, (unsigned long long)id),
               2;
    im->pose[im->next_id++] = p;
    if (im->next_id < im->n) return 0;
    return import_failed(cd_trace_writer_frame(im->w, im->pose, err, len), in, in->line, err, len);
}

// "lx,ly,lz,hx,hy,hz" (a world line's numbers; csv_line took its line end) into w; 0, or -1 when
// not six finite numbers of magnitude <= 1e30 with lo <= hi on each axis, with what is wrong in
// why ("field 5 is 'x'", "lo > hi on y"; *fault: why a field was no number, CD_NUMBER_OK for the
// rest).
static int parse_world(char *text, double w[6], cd_number_fault *fault, char *why, size_t len)
{
    char *field[6], shown[80];
    *fault = CD_NUMBER_OK;
    if (split_fields(text, field, 6)) return snprintf(why, len, "not six fields"), -1;
    for (int k = 0; k < 6; ++k)
        if ((*fault = cd_csv_parse_double(field[k], &w[k])) != CD_NUMBER_OK || !(fabs(w[k]) <= 1e30))
            return snprintf(why, len, "field %d is '%s'", k + 1, cd_text_shown(field[k], shown, sizeof shown)), -1;
    for (int k = 0; k < 3; ++k)
        if (!(w[k] <= w[k + 3])) return snprintf(why, len, "lo > hi on %c", "xyz"[k]), -1;
    return 0;
}

static int cmd_import(const trace_args *a)
{
    char err[4600], why[256];
    int bad = cd_cli_output_check("trace import", a->out);
    if (bad) return bad;
    // The output first, as export and query open theirs: a path that cannot be written is said
    // before any of the input is read.
    importer im = {0};
    if (cd_trace_writer_create(&im.w, a->out, err, sizeof err) != 0) {
        fprintf(stderr, "cdlab trace import: %s\n", err);
        return 1;
    }
    csv_in in = {.path = a->in};
    in.f = cd_file_open_stream(a->in, why, sizeof why);
    if (!in.f) {
        fprintf(stderr, "cdlab trace import: %s: %s\n", a->in, why);
        cd_trace_writer_abort(im.w);
        return 2;
    }
    in.buf = cd_alloc(CD_TEXT_MAX_LINE + 2);
    double v[CSV_FIELDS];
    int rc = 0;  // the exit status: 2 for a bad input, 1 for an output that cannot be written
    long got;
    double world[6];
    size_t world_line = 0;  // the # world= line's number (0: none, the box around the objects)
    while (rc == 0 && (got = csv_line(&in, err, sizeof err)) >= 0 && in.buf[0] == '#')
        if (strncmp(in.buf, WORLD_LINE, sizeof WORLD_LINE - 1) == 0) {
            cd_number_fault f;
            char what[160];
            if (world_line)  // the second one silently won
                rc = 2, snprintf(err, sizeof err, "%s:%zu: a second %s line (the first is line %zu): expected one",
                                 a->in, in.line, WORLD_LINE, world_line);
            else if (parse_world(in.buf + sizeof WORLD_LINE - 1, world, &f, what, sizeof what))
                rc = 2, snprintf(err, sizeof err,
                                 "%s:%zu: # world=: %s: expected six numbers of magnitude <= 1e30, lo x, y, z, "
                                 "hi x, y, z, with lo <= hi%s",
                                 a->in, in.line, what, cd_number_fault_note(f));
            world_line = in.line;
        }
    if (rc == 0 && got == -2) rc = 2;
    if (rc == 0 && (got < 0 || strcmp(in.buf, CSV_HEADER) != 0))
        rc = 2, snprintf(err, sizeof err, "%s:%zu: expected header %s", a->in, in.line ? in.line : 1, CSV_HEADER);
    int row = 0;
    while (rc == 0 && (row = csv_next(&in, v, err, sizeof err)) == 1) rc = import_row(&im, &in, v, err, sizeof err);
    if (rc == 0 && row < 0) rc = 2;
    if (rc == 0 && im.n == 0) rc = 2, snprintf(err, sizeof err, "%s:%zu: no rows", a->in, in.line);
    if (rc == 0 && !im.started) rc = import_start(&im, &in, err, sizeof err);
    if (rc == 0 && im.next_id != im.n && im.frame > 0)
        rc = 2, snprintf(err, sizeof err, "%s:%zu: frame %llu ends after %zu of %zu ids", a->in, in.line,
                         (unsigned long long)im.frame, im.next_id, im.n);
    if (rc == 0)
        rc = import_failed(
            cd_trace_writer_close(im.w, world_line ? world : NULL, world_line ? world + 3 : NULL, err, sizeof err), &in,
            world_line, err, sizeof err);
    else
        cd_trace_writer_abort(im.w);
    if (rc == 0)
        printf("%s: %zu objects, %llu frames\n", a->out, im.n, (unsigned long long)im.frame + 1);
    else
        fprintf(stderr, "cdlab trace import: %s\n", err);
    fclose(in.f);
    cd_free(in.buf);
    cd_free(im.pose);
    return rc;
}

// Every frame of trace t as CSV rows into f; 0, 1 when a write failed (its errno in *cause, and
// f's error flag set), or -1 with why the trace could not be read.
static int export_rows(cd_trace *t, FILE *f, int *cause, char *err, size_t len)
{
    errno = 0;
    const cd_trace_info *i = cd_trace_get_info(t);
    cd_posef *pose = cd_alloc(i->objects * sizeof *pose);
    // The world box first (the replay shifts poses by its low corner), so import gives it back.
    int rc = fprintf(f, "%s%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n%s\n", WORLD_LINE, i->lo[0], i->lo[1], i->lo[2],
                     i->hi[0], i->hi[1], i->hi[2], CSV_HEADER) < 0
                 ? 1
                 : 0;
    if (rc) *cause = errno;
    for (uint64_t fr = 0; fr < i->frames && rc == 0; ++fr) {
        rc = cd_trace_read(t, fr, pose, err, len);
        for (uint64_t k = 0; k < i->objects && rc == 0; ++k) {
            const cd_posef *p = &pose[k];
            errno = 0;  // a failed write sets it; what came before must not pass for its cause
            if (fprintf(f, "%llu,%llu,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g\n", (unsigned long long)fr,
                        (unsigned long long)k, (double)p->q[0], (double)p->q[1], (double)p->q[2], (double)p->q[3],
                        (double)p->c[0], (double)p->c[1], (double)p->c[2], (double)p->h[0], (double)p->h[1],
                        (double)p->h[2]) < 0)
                rc = 1, *cause = errno;  // a write error: the stream's error flag keeps it for the close
        }
    }
    cd_free(pose);
    return rc;
}

static int cmd_export(const trace_args *a)
{
    char err[4600];
    // The output is checked and its temporary file made before the trace is opened, as query does:
    // a path that is refused or cannot be written fails at once, and its message is the one given
    // whatever the input. Written whole or not at all: a trace that turns out unreadable (at once
    // or halfway) leaves no partial CSV, and an existing file as it was.
    cd_cli_output out;
    int rc = cd_cli_output_open(&out, "trace export", a->out), cause = 0;
    if (rc) return rc;
    cd_trace *t = cd_trace_open(a->in, 0, err, sizeof err);
    int rows = t ? export_rows(t, out.f, &cause, err, sizeof err) : -1;
    if (rows < 0) {
        fprintf(stderr, "cdlab trace export: %s\n", err);
        cd_cli_output_abort(&out);
        rc = 2;
    } else {
        if (rows > 0) cd_cli_output_failed(&out, cause);  // it stopped at that write: stdout's cause
        rc = cd_cli_output_close(&out);
    }
    cd_trace_close(t);
    return rc;
}

int cd_cmd_trace(int argc, char **argv)
{
    // --point not given stays UINT64_MAX (its range ends at 10^9), so that a subcommand other
    // than record can refuse it, as --frames (from 1: 0 is not given) and -o for info.
    trace_args a = {.point = UINT64_MAX};
    const cli_opt opts[] = {
        {.name = "output",
         .short_name = 'o',
         .arg = "FILE",
         .help = "the trace or CSV to write (record, import, export)",
         .type = CLI_TEXT,
         .dest = &a.out},
        {.name = "point",
         .arg = "I",
         .help = "record: the config's point I (default 0)",
         .type = CLI_COUNT,
         .dest = &a.point,
         .lo = 0,
         .hi = 1000000000},
        {.name = "frames",
         .arg = "F",
         .help = "record: F frames (default 1 + warmup + frames, what one repeat reads)",
         .type = CLI_COUNT,
         .dest = &a.frames,
         .lo = 1,
         .hi = 100000000},
    };
    static const char *const subs[] = {"record", "import", "export", "info", NULL};
    const cli_spec spec = {
        .command = "trace",
        .usage = "record CONFIG -o FILE [--point I] [--frames F]\n"
                 "       cdlab trace import IN.csv -o FILE\n"
                 "       cdlab trace export FILE -o OUT.csv\n"
                 "       cdlab trace info FILE",
        .about = "record: the scene of a cubes or bodies config's point as a cdlab trace (world box [0, L]^3).\n"
                 "import: a CSV with the header frame,id,qw,qx,qy,qz,x,y,z,hx,hy,hz, one row per object per\n"
                 "  frame (frames from 0, ids 0..N-1 in every frame, half-extents constant per id) as a trace.\n"
                 "export: a trace (cdlab's or a Broadmark .aabbs scene) as such a CSV (9 digits: exact floats).\n"
                 "info: what a trace holds (a Broadmark name and type escaped: other than printable ASCII as\n"
                 "  \\xNN); every frame is read and checked.\n"
                 "[scene] trace = FILE replays a trace (docs/design/scene.md#traces). Bad input: 'path: offset:\n"
                 "what is wrong' (traces) or 'path:line: what is wrong' (CSV), exit 2, nothing written. An output\n"
                 "that cannot be written: 'FILE: cannot write: <cause>' or 'FILE: write error: <cause>', exit 1.\n",
        .opts = opts,
        .count = sizeof opts / sizeof opts[0],
        .min_operands = 2,
        .max_operands = 2,
        .operands = "a subcommand (record, import, export, info) and its input",
        .subcommands = subs};
    cli_operands ops;
    int rc = cli_parse(&spec, argc, argv, &ops);
    if (rc >= 0) {
        cli_operands_free(&ops);
        return rc;
    }
    const char *sub = ops.v[0];
    a.in = ops.v[1];
    int k = 0;
    while (strcmp(subs[k], sub) != 0) ++k;  // one of them: cli_parse refuses any other
    // An option the subcommand does not read is refused, not ignored: `trace info t -o x` wrote
    // nothing and said nothing of it.
    const char *unread = k == 3 && a.out                  ? "-o"
                         : k > 0 && a.point != UINT64_MAX ? "--point"
                         : k > 0 && a.frames              ? "--frames"
                                                          : NULL;
    if (a.point == UINT64_MAX) a.point = 0;
    if (unread) {
        fprintf(stderr, "cdlab trace %s: %s is not an option of %s (%s)\n", sub, unread, sub,
                unread[1] == 'o' ? "it writes nothing" : "only record takes it");
        rc = 2;
    } else if (k < 3 && !a.out) {
        fprintf(stderr, "cdlab trace %s: no -o FILE given\n", sub);
        rc = 2;
    } else {
        rc = k == 0 ? cmd_record(&a) : k == 1 ? cmd_import(&a) : k == 2 ? cmd_export(&a) : cmd_info(&a);
    }
    cli_operands_free(&ops);
    return rc;
}
