// SPDX-License-Identifier: MIT
// Recorded traces: a scene's motion read from a file, frame by frame, never loaded whole
// (docs/design/scene.md#traces gives the format). Two formats are read: cdlab's own trace
// (written here too) and Broadmark's `.aabbs` scene files, as they are.
//
// cdlab trace, version 1, every number little-endian:
//   offset 0   8 bytes  magic "CDLTRACE"
//          8   u32      version (1)
//         12   u32      flags (0)
//         16   u64      object count N (1 .. 10^8)
//         24   u64      frame count F (>= 1)
//         32   f64 × 6  world box: lo x y z, hi x y z
//         80   f32 × 3N half-extents of object 0 .. N-1 (constant over the frames)
//   80 + 12N   F frames of N poses: f32 qw qx qy qz x y z (28 bytes an object)
// The file is exactly 80 + 12N + 28·N·F bytes.
#ifndef CD_TRACE_H
#define CD_TRACE_H

#include "cd_scene.h"

/// The formats read.
typedef enum cd_trace_format { CD_TRACE_CDLAB, CD_TRACE_BROADMARK } cd_trace_format;

/// What a trace holds (its header).
typedef struct cd_trace_info {
    cd_trace_format format;
    uint64_t objects, frames;
    double lo[3], hi[3];        ///< world box as the file gives it
    char name[128], type[128];  ///< Broadmark's scene name and object type ("" for cdlab traces)
    uint64_t bytes;             ///< file size
} cd_trace_info;

/// An open trace, read frame by frame.
typedef struct cd_trace cd_trace;

/// Open path and check its header and size against each other; with check_frames, read every
/// frame once and check it too (NaN, inverted boxes, quaternions of norm outside 0.5..2). NULL
/// with "path: offset: what is wrong" in err.
cd_trace *cd_trace_open(const char *path, int check_frames, char *err, size_t err_len);
const cd_trace_info *cd_trace_get_info(const cd_trace *t);
/// Read frame `frame` (< frames) into n = objects poses, by object: centre, rotation, half-extents
/// as the file gives them (Broadmark: the box's centre and half-extents, identity rotation).
/// 0, or -1 with "path: offset: what is wrong" (the file ended early or holds a bad value).
int cd_trace_read(cd_trace *t, uint64_t frame, cd_posef *pose, char *err, size_t err_len);
void cd_trace_close(cd_trace *t);

/// Bytes of a cdlab trace of n objects and the given frames: 80 + 12n + 28·n·frames.
uint64_t cd_trace_file_bytes(uint64_t n, uint64_t frames);

/// A trace being written as every output file is (cd_file_out_open): to a temporary file beside
/// the file path names (a symbolic link is written through), renamed over it by
/// cd_trace_writer_close once flushed and fsynced (an existing file's permissions kept), removed
/// by cd_trace_writer_abort or a signal that ends the process; path is never half-written.
typedef struct cd_trace_writer cd_trace_writer;
/// How a writer call fails. CD_TRACE_WRITE_ERROR: the file could not be written, err "path:
/// cannot write: <cause>" or "path: write error: <cause>" (an output error). CD_TRACE_REFUSED: what
/// the caller gave would make a trace that cd_trace_open refuses, err says what without a path
/// (the caller's input is to blame: it names the input).
enum { CD_TRACE_WRITE_ERROR = -1, CD_TRACE_REFUSED = -2 };
/// Put "name: " (line > 0: "name:line: ") before the message in err, cut to err_len: a
/// CD_TRACE_REFUSED message with the input its caller blames.
void cd_trace_refusal_name(char *err, size_t err_len, const char *name, size_t line);
/// Start a trace of n objects with half-extents half[3i..3i+2] into *w: cd_trace_writer_create,
/// then cd_trace_writer_start. 0, or a failure above with *w NULL.
int cd_trace_writer_open(cd_trace_writer **w, const char *path, uint64_t n, const float *half, char *err,
                         size_t err_len);
/// The first half of cd_trace_writer_open: the output's temporary file, made before the caller
/// reads or computes what the trace holds, so that a path that cannot be written is said first.
/// 0, or CD_TRACE_WRITE_ERROR with *w NULL (also where path exists and is not a regular file).
int cd_trace_writer_create(cd_trace_writer **w, const char *path, char *err, size_t err_len);
/// The second half: n objects with half-extents half[3i..3i+2], once, before any frame. 0, or a
/// failure above (w stays open: abort it).
int cd_trace_writer_start(cd_trace_writer *w, uint64_t n, const float *half, char *err, size_t err_len);
/// Append a frame: pose[i] of object i (its half-extents must be those given at open). 0 or a
/// failure above (w stays open: abort it).
int cd_trace_writer_frame(cd_trace_writer *w, const cd_posef *pose, char *err, size_t err_len);
/// Finish: world box lo..hi, or NULL for the box that encloses every object of every frame.
/// Writes the header, renames onto path. 0, or a failure above with w dropped (nothing left
/// behind).
int cd_trace_writer_close(cd_trace_writer *w, const double *lo, const double *hi, char *err, size_t err_len);
/// Drop a trace being written (NULL allowed).
void cd_trace_writer_abort(cd_trace_writer *w);

/// A scene driven by a trace: frame 0 at start, each step the next frame.
typedef struct cd_trace_replay cd_trace_replay;
/// Open path (header and size checked; frames are checked as they are read) and build the scene
/// of its frame 0 (world side: the largest extent of the world box, poses shifted so the box's
/// low corner is the origin; exact when it is already). reorder as cd_scene.reorder. A trace
/// whose frames take at most 256 MiB is read whole here, each frame's changed records listed, so
/// that the steps read no file (CDLAB_TRACE_STREAM=1: every trace read frame by frame as it goes;
/// the steps' results are the same bits either way).
cd_trace_replay *cd_trace_replay_start(const char *path, uint32_t reorder, cd_scene **scene, char *err, size_t err_len);
/// The motion step: the next frame's poses (slots reordered when due), boxes refreshed,
/// scene->moved counted. 0, or -1 with why (the trace has no more frames or a bad one).
int cd_trace_replay_step(cd_trace_replay *r, cd_scene *s, char *err, size_t err_len);
/// Frames of r's trace.
uint64_t cd_trace_replay_frames(const cd_trace_replay *r);
/// Free r (NULL allowed); the scene is the caller's.
void cd_trace_replay_end(cd_trace_replay *r);

#endif
