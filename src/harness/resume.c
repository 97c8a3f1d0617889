// SPDX-License-Identifier: MIT
// `cdlab run --resume`: continue an incomplete run in its own directory. The runner appends a line
// to progress.part after each point whose rows are flushed ("done POINT FRAME_ROWS SUMMARY_ROWS",
// after the series notes the point made: the rows it wrote to frames.csv.part and
// summary.csv.part). A resume keeps exactly those points' rows (a killed point may have left some
// rows, or half a line) while they are there as written (keep_whole: from the first point whose
// rows are not, every point listed runs again), rewrites the .part files with them, and runs the
// rest of the plan (or of the shard) appending to them. The directory must hold the same config (byte for byte) and the same shard,
// its input files must be those the run started with (progress.part's "input" lines: SHA-256),
// and no process may hold its marker's lock (cd_run_marker_state). The files derived from the
// config ("derived" lines: simulated scenes' cached traces) are carried over, not checked here
// (load_derived).
#include "cd_core.h"
#include "cd_csv.h"
#include "cd_harness_cli.h"
#include "run_private.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void cd_run_shard_line(const cd_run *r, char *buf, size_t len)
{
    if (r->shard_count)
        snprintf(buf, len, "shard: %u/%u\n", r->shard_index, r->shard_count);
    else
        snprintf(buf, len, "shard: none\n");
}

// Why dir cannot be resumed by r ("" when it can); dir is incomplete.
static void resume_refusal(const cd_run *r, const char *dir, char *why, size_t len)
{
    char path[4600];
    size_t n;
    why[0] = '\0';
    snprintf(path, sizeof path, "%s/config.ini.part", dir);
    char *text = cd_file_read(path, &n);
    if (!text) {
        snprintf(why, len, "no config.ini.part: not a run cdlab can resume");
        return;
    }
    int same = n == r->cfg->text_len && memcmp(text, r->cfg->text, n) == 0;
    cd_free(text);
    if (!same) {
        snprintf(why, len, "it ran a different config (config.ini.part differs from %s)", r->cfg->path);
        return;
    }
    snprintf(path, sizeof path, "%s/" CD_RUN_INCOMPLETE, dir);
    char *marker = cd_file_read(path, &n);
    if (!marker) {
        snprintf(why, len, CD_RUN_INCOMPLETE ": %s", strerror(errno));
        return;
    }
    if (strstr(marker, CD_MERGE_MARKER_TAG)) {  // its config.ini.part is the config, its rows no run's
        snprintf(why, len, "a directory that cdlab merge left, not a run (remove it and merge again)");
        cd_free(marker);
        return;
    }
    char want[64];
    cd_run_shard_line(r, want, sizeof want);
    // The marker's own line (at a line's start: the config's path on an earlier line may hold the
    // same text).
    const char *have = strncmp(marker, "shard: ", 7) == 0 ? marker : strstr(marker, "\nshard: ");
    if (!have)
        have = "shard: none\n";
    else if (*have == '\n')
        ++have;
    if (strncmp(have, want, strlen(want)) != 0) {
        const char *end = strchr(have, '\n');
        snprintf(why, len, "it is %.*s, this run is %.*s", (int)(end ? end - have : 20), have, (int)strlen(want) - 1,
                 want);
    } else {  // a runner that still writes it (told by the marker's lock, not by a pid)
        char line[500], what[800];
        int state = cd_run_marker_state(dir, line, sizeof line);
        if (state == CD_MARKER_LIVE) {
            cd_run_marker_describe(state, line, what, sizeof what);
            snprintf(why, len, "%s", what);
        }
    }
    cd_free(marker);
}

static int is_dir(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int cd_resume_find(cd_run *r, const char *root, const char *run_id, char *err, size_t len)
{
    char parent[4096 + 200], why[800];
    snprintf(parent, sizeof parent, "%s/%s", root, r->name);
    if (run_id) {
        snprintf(r->run_id, sizeof r->run_id, "%s", run_id);
        snprintf(r->dir, sizeof r->dir, "%s/%s", parent, run_id);
        if (!is_dir(r->dir)) return 1;
        char check[600];
        if (cd_run_dir_check(r->dir, check, sizeof check) == 0) {
            char path[4600];
            size_t n;
            snprintf(path, sizeof path, "%s/config.ini", r->dir);
            char *text = cd_file_read(path, &n);
            int same = text && n == r->cfg->text_len && memcmp(text, r->cfg->text, n) == 0;
            cd_free(text);
            if (!same) {
                snprintf(err, len, "--resume: %s: a complete run of a different config (config.ini differs from %s)",
                         r->dir, r->cfg->path);
                return -1;
            }
            // The same shard: meta.ini's [shard] index and count, or no [shard].
            snprintf(path, sizeof path, "%s/meta.ini", r->dir);
            char *meta = cd_file_read(path, &n), want[256] = "";
            if (r->shard_count)
                snprintf(want, sizeof want, "\n[shard]\n%s\nindex = %u\ncount = %u\n", CD_META_SHARD_COMMENT,
                         r->shard_index, r->shard_count);
            same = meta && (r->shard_count ? strstr(meta, want) != NULL : strstr(meta, "\n[shard]\n") == NULL);
            cd_free(meta);
            if (same) return 2;
            cd_run_shard_line(r, want, sizeof want);
            want[strcspn(want, "\n")] = '\0';
            snprintf(err, len, "--resume: %s: a complete run of another shard (this run is %s)", r->dir, want);
            return -1;
        }
        resume_refusal(r, r->dir, why, sizeof why);
        if (why[0]) {
            snprintf(err, len, "--resume: %s: cannot continue this run: %s", r->dir, why);
            return -1;
        }
        return 0;
    }
    // The newest (by name: run ids are UTC times) incomplete run of this config and shard.
    DIR *d = opendir(parent);
    if (!d) return 1;
    char best[256] = "";
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        char dir[4600], marker[4700];
        if (e->d_name[0] == '.' || strlen(e->d_name) >= sizeof best) continue;
        snprintf(dir, sizeof dir, "%s/%s", parent, e->d_name);
        snprintf(marker, sizeof marker, "%s/" CD_RUN_INCOMPLETE, dir);
        if (!is_dir(dir) || access(marker, F_OK) != 0 || strcmp(e->d_name, best) <= 0) continue;
        resume_refusal(r, dir, why, sizeof why);
        if (!why[0]) snprintf(best, sizeof best, "%s", e->d_name);
    }
    closedir(d);
    if (!best[0]) return 1;
    snprintf(r->run_id, sizeof r->run_id, "%s", best);
    snprintf(r->dir, sizeof r->dir, "%s/%s", parent, best);
    return 0;
}

void cd_run_journal_derived(const cd_run *r, size_t i, FILE *f)
{
    const cd_run_input *in = &r->inputs[i];
    fprintf(f, "derived %s %llu %s %s\n", in->sha256, (unsigned long long)in->bytes, in->derived, in->path);
}

void cd_run_journal_inputs(cd_run *r)
{
    if (!r->progress) return;
    for (size_t i = 0; i < r->input_count; ++i)
        if (!r->inputs[i].derived[0])
            fprintf(r->progress, "input %s %llu %s\n", r->inputs[i].sha256, (unsigned long long)r->inputs[i].bytes,
                    r->inputs[i].path);
    for (size_t i = 0; i < r->input_count; ++i)
        if (r->inputs[i].derived[0]) cd_run_journal_derived(r, i, r->progress);
    r->inputs_journaled = r->input_count;
    cd_run_same_lines(r->progress);
    fflush(r->progress);
}

// An "input SHA BYTES PATH" line of progress.part against what this run read: "" when the same
// file, else why not in why.
static void check_input(const cd_run *r, const char *line, char *why, size_t len)
{
    char sha[65];
    unsigned long long bytes;
    int off = 0;
    if (sscanf(line, "input %64s %llu %n", sha, &bytes, &off) != 2 || off == 0) return;
    const char *path = line + off;
    for (size_t i = 0; i < r->input_count; ++i)
        if (strcmp(r->inputs[i].path, path) == 0) {
            if (strcmp(r->inputs[i].sha256, sha) != 0)
                snprintf(why, len,
                         "%s changed since the run started (SHA-256 %.12s..., %llu bytes then; %.12s..., "
                         "%llu bytes now)",
                         path, sha, bytes, r->inputs[i].sha256, (unsigned long long)r->inputs[i].bytes);
            return;
        }
    snprintf(why, len, "the run started with %s, which the config does not name now", path);
}

// A "derived SHA BYTES WHAT PATH" line of progress.part: a file an earlier attempt's point read
// that the run derived from the config (a simulated scene's cached trace), recorded again. It is
// not checked against the file now: the config and the build are the earlier attempt's (checked
// too), so the file's bytes are determined by them, and a cache deleted or damaged since is baked
// again to the same bytes. A point of this attempt that reads it checks it against this record
// (cd_run_derived_input); two records of one path that differ are why in why.
static void load_derived(cd_run *r, const char *line, char *why, size_t len)
{
    char sha[65], what[32];
    unsigned long long bytes;
    int off = 0;
    if (sscanf(line, "derived %64s %llu %31s %n", sha, &bytes, what, &off) != 3 || off == 0) return;
    cd_run_derived_input(r, line + off, sha, bytes, what, why, len);
}

// A point progress.part lists as done: the rows it wrote to frames.csv.part and summary.csv.part
// (its "done POINT FRAME_ROWS SUMMARY_ROWS" line).
typedef struct done_point {
    size_t point;
    unsigned long long frame_rows, summary_rows;
} done_point;

// progress.part: the points done, in the order it lists them (*done, *count of them; a line
// without both row counts lists no point), the series notes and the earlier attempts' warnings
// (kept before this attempt's, each once); why says how an input file, the build or the SIMD paths
// differ from those the earlier attempt had ("" when none does).
static void read_progress(cd_run *r, done_point **done, size_t *count, size_t plan, char *why, size_t why_len)
{
    char path[4600], line[5000];
    size_t cap = 0;
    *done = NULL, *count = 0;
    snprintf(path, sizeof path, "%s/progress.part", r->dir);
    FILE *f = fopen(path, "r");
    if (!f) return;
    char **now;  // this attempt's so far (the config's, pinning's): after the earlier ones
    size_t mine;
    cd_run_take_warnings(r, &now, &mine);
    while (fgets(line, sizeof line, f)) {
        size_t n = strlen(line);
        if (n == 0 || line[n - 1] != '\n') break;  // a cut line ends what was written
        line[n - 1] = '\0';
        done_point d;
        double at, value;
        int off = 0;
        if (sscanf(line, "done %zu %llu %llu %n", &d.point, &d.frame_rows, &d.summary_rows, &off) == 3 && !line[off] &&
            d.point < plan) {
            if (*count == cap) *done = cd_realloc(*done, (cap = cap ? 2 * cap : 64) * sizeof **done);
            (*done)[(*count)++] = d;
        } else if (sscanf(line, "note %lf %lf %n", &at, &value, &off) == 2 && off > 0)
            cd_run_note_series(r, line + off, at, value);
        else if (strncmp(line, "warn ", 5) == 0)
            cd_run_keep_warning(r, line + 5);
        else if (!why[0] && strncmp(line, "input ", 6) == 0)
            check_input(r, line, why, why_len);
        else if (!why[0] && strncmp(line, "derived ", 8) == 0)
            load_derived(r, line, why, why_len);
        else if (!why[0] && strncmp(line, "same ", 5) == 0)
            cd_run_same_check(line, why, why_len);
    }
    fclose(f);
    for (size_t i = 0; i < mine; ++i) {
        cd_run_keep_warning(r, now[i]);
        cd_free(now[i]);
    }
    cd_free(now);
}

// Cut path at its last newline (a killed writer may have left half a line). 0 or an errno.
static int cut_partial_line(const char *path)
{
    size_t n;
    char *text = cd_file_read(path, &n);
    if (!text) return errno == ENOENT ? 0 : (errno ? errno : EIO);
    size_t keep = n;
    while (keep > 0 && text[keep - 1] != '\n') --keep;
    cd_free(text);
    return keep < n && truncate(path, (off_t)keep) != 0 ? errno : 0;
}

// Part file `name` (frames = 1: frames.csv.part) as t, cut at its last newline, its header
// checked against this run's columns; an empty file or none (killed before its header) gives an
// empty t. 0, or -1 with err set.
static int read_part(cd_run *r, const char *name, int frames, cd_csv_table *t, char *err, size_t len)
{
    char path[4600];
    snprintf(path, sizeof path, "%s/%s", r->dir, name);
    int e = cut_partial_line(path);
    if (e) {
        snprintf(err, len, "--resume: %s: %s", path, strerror(e));
        return -1;
    }
    if (access(path, F_OK) != 0) return 0;
    if (cd_csv_read(path, t, err, len) != 0) return -1;
    if (t->count == 0) return 0;
    size_t hn;
    const char **header = cd_run_header_fields(r, frames, &hn);
    int same = t->rows[0].count == hn;
    for (size_t i = 0; same && i < hn; ++i) same = strcmp(t->rows[0].fields[i], header[i]) == 0;
    cd_free(header);
    if (!same) {
        snprintf(err, len, "--resume: %s:1: the header differs from this run's columns", path);
        return -1;
    }
    return 0;
}

// The plan point of t's row i (a data row), or plan when its first field is none.
static size_t row_point(const cd_csv_table *t, size_t i, size_t plan)
{
    const cd_csv_row *row = &t->rows[i];
    char *end;
    if (!row->count || !row->fields[0][0]) return plan;
    unsigned long long p = strtoull(row->fields[0], &end, 10);
    return *end || p >= plan ? plan : (size_t)p;
}

// Count t's rows of each point into rows[0..plan) (a row of no point is not counted, a row with
// fewer or more fields than the header counts as none of its point's); split[p] = 1 when
// another point's row lies between two of point p's (summary.csv.part: a point's summary rows are
// written one after the other, see merge.c's read_rows; NULL for frames, which order = rounds
// writes round by round).
static void count_rows(const cd_csv_table *t, size_t plan, unsigned long long *rows, unsigned char *split)
{
    size_t last = plan;
    for (size_t i = 1; i < t->count; ++i) {
        size_t p = row_point(t, i, plan);
        if (p == plan || t->rows[i].count != t->rows[0].count) continue;
        if (split && p != last && rows[p]) split[p] = 1;
        rows[p]++;
        last = p;
    }
}

// Rewrite part file `name` with t's header and the rows of the points marked in keep. 0, or -1
// with err set.
static int write_part(cd_run *r, const char *name, int frames, const cd_csv_table *t, const unsigned char *keep,
                      size_t plan, char *err, size_t len)
{
    char path[4600], tmp[4700];
    snprintf(path, sizeof path, "%s/%s", r->dir, name);
    snprintf(tmp, sizeof tmp, "%s.resume", path);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        snprintf(err, len, "--resume: %s: %s", tmp, strerror(errno));
        return -1;
    }
    size_t hn;
    const char **header = cd_run_header_fields(r, frames, &hn);
    cd_csv_write_row(f, header, hn);
    cd_free(header);
    for (size_t i = 1; i < t->count; ++i) {
        size_t p = row_point(t, i, plan);
        if (p < plan && keep[p] && t->rows[i].count == hn)
            cd_csv_write_row(f, (const char *const *)t->rows[i].fields, t->rows[i].count);
    }
    int bad = 0;
    if (fflush(f) != 0 || ferror(f) || fsync(fileno(f)) != 0) bad = -1;
    if (fclose(f) != 0) bad = -1;
    if (bad || rename(tmp, path) != 0) {
        snprintf(err, len, "--resume: writing %s: %s", tmp, strerror(errno ? errno : EIO));
        unlink(tmp);
        bad = -1;
    }
    return bad;
}

// Which of the points progress.part lists (d[0..n), in its order) to keep (keep[p] = 1): each
// listed point of this run (mine) whose rows are all in the .part files as it wrote them (as many
// frame rows and summary rows as its done line says, its summary rows together), up to the first
// that is not. The rows are flushed before the done line is written, but neither file is synced
// then, so a machine that went down may have lost the end of either; an edit may have cut rows
// anywhere. That point's rows and every later point's are dropped and the points run again: the
// rows kept are then in the order they were written, and frames.csv agrees with summary.csv.
static void keep_whole(cd_run *r, const done_point *d, size_t n, const unsigned char *mine, const cd_csv_table *frames,
                       const cd_csv_table *summary, size_t plan, unsigned char *keep)
{
    unsigned long long *fr = cd_alloc_zero(plan ? plan : 1, sizeof *fr);
    unsigned long long *su = cd_alloc_zero(plan ? plan : 1, sizeof *su);
    unsigned char *split = cd_alloc_zero(plan ? plan : 1, 1);
    count_rows(frames, plan, fr, NULL);
    count_rows(summary, plan, su, split);
    size_t k = 0;
    for (; k < n; ++k) {
        size_t p = d[k].point;
        if (!mine[p]) continue;  // the marker's shard matched: damage, not a point of this run
        if (keep[p]) continue;   // listed twice: kept once
        if (fr[p] != d[k].frame_rows || su[p] != d[k].summary_rows || split[p]) break;
        keep[p] = 1;
    }
    if (k < n) {
        size_t p = d[k].point, later = 0;
        for (size_t j = k + 1; j < n; ++j) later += mine[d[j].point] && !keep[d[j].point];
        char what[300];
        if (fr[p] != d[k].frame_rows)
            snprintf(what, sizeof what, "frames.csv.part holds %llu rows of it, progress.part says it wrote %llu",
                     fr[p], d[k].frame_rows);
        else if (su[p] != d[k].summary_rows)
            snprintf(what, sizeof what, "summary.csv.part holds %llu rows of it, progress.part says it wrote %llu",
                     su[p], d[k].summary_rows);
        else
            snprintf(what, sizeof what, "another point's row splits its rows in summary.csv.part");
        // Said here as cd_run_warn says it (run.c, which calls this file: no circle back to it).
        char msg[sizeof r->dir + sizeof what + 200];
        if (later)
            snprintf(msg, sizeof msg,
                     "--resume: %s: point %zu, done by an earlier attempt: %s; it and the %zu point%s done after it "
                     "run again",
                     r->dir, p, what, later, later == 1 ? "" : "s");
        else
            snprintf(msg, sizeof msg, "--resume: %s: point %zu, done by an earlier attempt: %s; it runs again", r->dir,
                     p, what);
        if (!r->quiet) fprintf(stderr, "cdlab: warning: %s\n", msg);
        cd_run_keep_warning(r, msg);
    }
    cd_free(fr);
    cd_free(su);
    cd_free(split);
}

int cd_resume_prepare(cd_run *r, const size_t *points, size_t n, char *err, size_t len)
{
    size_t plan = cd_plan_size(r->cfg);
    unsigned char *done = cd_alloc_zero(plan ? plan : 1, 1);
    unsigned char *mine = cd_alloc_zero(plan ? plan : 1, 1);
    for (size_t j = 0; j < n; ++j) mine[points[j]] = 1;
    r->resumed = 1;  // meta.ini says so, with however many points the earlier attempts finished
    char path[4600];
    snprintf(path, sizeof path, "%s/" CD_RUN_INCOMPLETE, r->dir);
    FILE *m = fopen(path, "r");
    if (m) {
        char line[500] = "";
        if (fgets(line, sizeof line, m)) line[strcspn(line, "\r\n")] = '\0';
        fclose(m);
        // This process holds the lock now: a start marker was left by a runner that is gone.
        snprintf(r->resumed_from, sizeof r->resumed_from, "%s%s", cd_run_marker_is_start(line) ? "abandoned: " : "",
                 line);
    }
    char why[1200] = "";
    done_point *listed;
    size_t listed_count;
    read_progress(r, &listed, &listed_count, plan, why, sizeof why);
    if (why[0]) {  // measurements of two different inputs would pass for one run
        snprintf(err, len, "--resume: %s: cannot continue this run: %s", r->dir, why);
        cd_free(listed);
        cd_free(done);
        cd_free(mine);
        return -2;
    }
    cd_csv_table frames = {0}, summary = {0};
    int bad = read_part(r, "frames.csv.part", 1, &frames, err, len);
    if (!bad) bad = read_part(r, "summary.csv.part", 0, &summary, err, len);
    if (!bad) keep_whole(r, listed, listed_count, mine, &frames, &summary, plan, done);
    if (!bad) bad = write_part(r, "frames.csv.part", 1, &frames, done, plan, err, len);
    if (!bad) bad = write_part(r, "summary.csv.part", 0, &summary, done, plan, err, len);
    cd_csv_table_free(&frames);
    cd_csv_table_free(&summary);
    size_t k = 0;
    r->todo = cd_alloc((n ? n : 1) * sizeof *r->todo);
    for (size_t j = 0; j < n; ++j) {
        if (done[points[j]])
            r->points_resumed++;
        else
            r->todo[k++] = points[j];
    }
    r->todo_count = k;
    r->points_done = r->points_resumed;
    // progress.part again, from what was kept: the notes, then the points in the order listed.
    snprintf(path, sizeof path, "%s/progress.part", r->dir);
    FILE *f = bad ? NULL : fopen(path, "w");
    if (f) {
        r->progress = f;
        cd_run_journal_inputs(r);
        for (size_t i = 0; i < r->warning_count; ++i) fprintf(f, "warn %s\n", r->warnings[i]);
        r->warnings_journaled = r->warning_count;
        for (size_t i = 0; i < r->note_count; ++i)
            fprintf(f, "note %.17g %.17g %s\n", r->notes[i].at, r->notes[i].value, r->notes[i].series);
        for (size_t i = 0; i < listed_count; ++i)
            if (done[listed[i].point])
                fprintf(f, "done %zu %llu %llu\n", listed[i].point, listed[i].frame_rows, listed[i].summary_rows);
    }
    snprintf(path, sizeof path, "%s/meta.ini.part", r->dir);
    unlink(path);  // the earlier attempt's; this run writes its own
    cd_free(listed);
    cd_free(done);
    cd_free(mine);
    return bad;
}
