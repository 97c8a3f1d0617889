// SPDX-License-Identifier: MIT
// cdlab subcommands: each is one function in its own file and one line in commands.c.
#ifndef CLI_H
#define CLI_H

#include "cd_core.h"

#include <stdint.h>
#include <stdio.h>

/// A subcommand: argv[0] is the subcommand's name; it reads its options with cli_parse (options.h).
/// Returns the process exit code (0 ok, 1 run failure, 2 bad usage or bad input).
typedef int (*cd_cli_fn)(int argc, char **argv);

/// One entry of the command table.
typedef struct cd_cli_command {
    const char *name;     ///< e.g. "run"
    const char *summary;  ///< one line for `cdlab help`
    cd_cli_fn fn;
} cd_cli_command;

/// The command table (commands.c), terminated by a NULL name.
extern const cd_cli_command cd_cli_commands[];

/// The directory of the program's data `what` (plots, configs, experiments) in out: an installed
/// program's <prefix>/<datadir>/cdlab/<what>, found from the program's own path; a program run
/// from its build tree reads the source tree's. Returns 0, or -1 with the installed path it
/// expected in out.
int cd_cli_data_dir(const char *what, char *out, size_t len);

/// An output path the user named may be written: it does not exist or is a regular file. Refused
/// with exit status 2 (never replaced by a rename, never written into): "", "-" (standard output,
/// offered only through cd_cli_output_open), a directory, device, FIFO or socket, a file
/// descriptor's path (/dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N, or a link to one) and
/// the regular file this process's standard output or error is open on (the rename would replace
/// the file the shell appends to). A path that cannot be looked up (ENOTDIR, ELOOP, EACCES) is a
/// write error, status 1, as a missing directory is when the file is created. Returns 0, or that
/// status after printing "cdlab CMD: PATH is a character device: …" or "cdlab CMD: PATH: cannot
/// write: <cause>".
int cd_cli_output_check(const char *cmd, const char *path);

/// A file output the user named, written whole or not at all (cd_file_out), or standard output.
typedef struct cd_cli_output {
    FILE *f;  ///< where to write: the temporary file, or stdout
    const char *cmd, *path;
    cd_file_out file;  ///< the temporary file (all zero for stdout)
} cd_cli_output;

/// Start command cmd's output to path: NULL or "-" is standard output; else cd_cli_output_check
/// (whose messages for a descriptor or standard output's file say to write "-"), then a temporary
/// file beside path (cd_file_out_open). 0 with o->f to write to; else cd_cli_output_check's status,
/// or 1 after "cdlab CMD: PATH: cannot write: <cause>".
int cd_cli_output_open(cd_cli_output *o, const char *cmd, const char *path);
/// Finish o: the temporary file renamed over path. 0, or 1 after "cdlab CMD: PATH: write error:
/// <cause>" (path untouched). Standard output is left to main's check at exit.
int cd_cli_output_close(cd_cli_output *o);
/// Give o up: path stays as it was (what went to standard output stays written).
void cd_cli_output_abort(cd_cli_output *o);
/// A write to o failed with errno e, and the command stops writing: for standard output, e is kept
/// as the cause main's check at exit reports ("cdlab: write error: <cause>"), which stdio no longer
/// knows then (it drops what it could not write, so the last flush has nothing to retry); a file's
/// cd_cli_output_close finds its own cause.
void cd_cli_output_failed(const cd_cli_output *o, int e);
/// The first cause cd_cli_output_failed kept for standard output, or 0.
int cd_cli_stdout_cause(void);

struct cd_config;
/// Print config c's plan (the points this run owns: all, or those owner[] gives shard) with each
/// point's estimated time and peak memory, the file it makes first (cd_kind.derived_file: under
/// output, the --output root, or [run] output when NULL), and the total (plan_print.c).
void cd_cli_print_plan(const struct cd_config *c, const uint32_t *owner, uint32_t shard, const char *output);
/// Warn on stderr about each point of c (as cd_cli_print_plan selects them) whose estimated peak
/// memory exceeds this machine's physical memory.
void cd_cli_warn_memory(const struct cd_config *c, const uint32_t *owner, uint32_t shard);
/// Warn on stderr when the files c's points make before they measure (cd_kind.derived_file, not
/// there yet; output as for cd_cli_print_plan) exceed the free space of their file system.
void cd_cli_warn_disk(const struct cd_config *c, const uint32_t *owner, uint32_t shard, const char *output);
/// The warnings of c's checks on stderr ("cdlab run: warning: FILE:LINE: ..."), as --dry-run
/// prints them; a run keeps them with its own (meta.ini [warnings]).
void cd_cli_warn_config(const struct cd_config *c);

/// Load the plugin at path for subcommand cmd: 0, or -1 after printing why (the caller exits 2).
int cd_cli_load_plugin(const char *cmd, const char *path);

/// `cdlab methods [--plugin FILE]...`: broad phases and hierarchy variants (cmd_basic.c).
int cd_cmd_methods(int argc, char **argv);
int cd_cmd_version(int argc, char **argv);
/// `cdlab run`: run experiment configs (cmd_run.c).
int cd_cmd_run(int argc, char **argv);
/// `cdlab info`: machine, pinning, counters, build (cmd_info.c).
int cd_cmd_info(int argc, char **argv);
/// `cdlab plot`: render a run directory's figures (cmd_plot.c).
int cd_cmd_plot(int argc, char **argv);

/// Whether path is a regular file of at least one byte (cmd_plot.c).
int cd_cli_nonempty_file(const char *path);
/// Whether path is a regular file that starts with the n (at most 8) bytes of sig: a figure
/// gnuplot wrote whole enough to be one (CD_PNG_SIGNATURE, pdfcairo's "%PDF-"), not an empty or
/// cut file (cmd_plot.c).
int cd_cli_file_starts_with(const char *path, const void *sig, size_t n);
/// The 8 bytes a PNG file starts with.
#define CD_PNG_SIGNATURE "\x89PNG\r\n\x1a\n"
/// Run argv[0] (found on PATH) with argv and wait: 1 when it exited 0 (cmd_plot.c).
int cd_cli_spawn_ok(char *const argv[]);
/// Run `gnuplot -c script arg1 arg2` headless; 0 when it exits 0 (cmd_plot.c). The paths go to
/// gnuplot as its arguments, through no shell, and the scripts take them as data whatever they
/// hold (plots/paths.gp): no quoting here.
int cd_cli_gnuplot(const char *script, const char *arg1, const char *arg2);
/// The gnuplot scripts' directory: given (--plots), else $CDLAB_PLOTS, else the data directory's
/// plots/ (cd_cli_data_dir). 0, or -1 with the path looked for in buf.
int cd_cli_plots_dir(char *buf, size_t len, const char *given);
/// `cdlab report`: one self-contained HTML page of run directories (cmd_report.c).
int cd_cmd_report(int argc, char **argv);
/// `cdlab compare`: two runs point by point, with confidence intervals (cmd_compare.c).
int cd_cmd_compare(int argc, char **argv);
/// `cdlab verify`: broad phases against naive, hierarchies against brute force (cmd_verify.c).
int cd_cmd_verify(int argc, char **argv);
/// `cdlab merge`: join the shards of a sweep into one run directory (cmd_merge.c).
int cd_cmd_merge(int argc, char **argv);

/// `cdlab snapshot`: draw a cubes point's scene and broad-phase cells (cmd_snapshot.c).
int cd_cmd_snapshot(int argc, char **argv);

/// `cdlab query`: overlap answers for CSV rows of shape pairs (cmd_query.c).
int cd_cmd_query(int argc, char **argv);
/// `cdlab poses`: export seeded mesh-pair poses as CSV (cmd_poses.c).
int cd_cmd_poses(int argc, char **argv);
/// `cdlab trace`: record, import, export and describe traces (cmd_trace.c).
int cd_cmd_trace(int argc, char **argv);

#endif
