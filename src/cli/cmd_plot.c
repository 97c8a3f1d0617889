// SPDX-License-Identifier: MIT
// `cdlab plot RUN_DIR...`: render the figures a run lists in meta.ini ([config] figures) with
// gnuplot, each as RUN_DIR/<figure>.png and .pdf, from plots/<figure>.gp. A directory that is not
// a complete run, or whose CSVs are not the ones it wrote (cd_rundir_read), is refused before
// anything is drawn.
#include "cd_harness_cli.h"
#include "cli.h"
#include "options.h"
#include "rundir.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

int cd_cli_nonempty_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
}

int cd_cli_file_starts_with(const char *path, const void *sig, size_t n)
{
    unsigned char head[8];
    if (!cd_cli_nonempty_file(path) || n > sizeof head) return 0;
    FILE *f = fopen(path, "rb");
    int ok = f && fread(head, 1, n, f) == n && memcmp(head, sig, n) == 0;
    if (f) fclose(f);
    return ok;
}

int cd_cli_spawn_ok(char *const argv[])
{
    // The helper gets SIGXFSZ's default action back (cdlab ignores it, cd_file_size_limit_as_error,
    // and an ignored signal stays ignored across exec): a helper past a file size limit then ends
    // and fails, where one that ignores its write errors could exit 0 with its figure cut short.
    posix_spawnattr_t attr;
    sigset_t dflt;
    sigemptyset(&dflt);
    sigaddset(&dflt, SIGXFSZ);
    if (posix_spawnattr_init(&attr) != 0) return 0;
    int ok =
        posix_spawnattr_setsigdefault(&attr, &dflt) == 0 && posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF) == 0;
    pid_t pid;
    ok = ok && posix_spawnp(&pid, argv[0], NULL, &attr, argv, environ) == 0;
    posix_spawnattr_destroy(&attr);
    if (!ok) return 0;
    int status;
    if (waitpid(pid, &status, 0) < 0) return 0;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int cd_cli_gnuplot(const char *script, const char *arg1, const char *arg2)
{
    char *args[] = {"gnuplot", "-c", (char *)script, (char *)arg1, (char *)arg2, NULL};
    return cd_cli_spawn_ok(args) ? 0 : -1;
}

static int worse(int rc, int r) { return r > rc ? r : rc; }

// Move gnuplot's file from over to, as cd_file_out does for the other outputs: on disk (fsync)
// before it has the name, with the permissions of the figure it replaces; rename(2) replaces to
// whole, never leaving it cut. 0, or -1 with the cause in errno.
static int replace(const char *from, const char *to)
{
    int fd = open(from, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    int bad = fsync(fd) != 0, e = errno;
    close(fd);
    if (bad) return errno = e, -1;
    struct stat st;
    if (stat(to, &st) == 0 && S_ISREG(st.st_mode) && chmod(from, st.st_mode & 07777) != 0) return -1;
    return rename(from, to);
}

// One figure of dir from script: drawn into a new directory beside the figures
// (dir/.cdlab-plot.XXXXXX, cd_scratch_dir_make, so a terminating signal removes it too), checked
// to be a PNG and a PDF, then each renamed over dir/<fig>.png and .pdf. A figure gnuplot fails
// to draw leaves the previous figures as they were and no file of its own. 0, 1 (gnuplot failed,
// or a file could not be written) or 2.
static int plot_figure(const char *plots, const char *dir, const char *meta, const char *fig)
{
    char script[4200], png[4500], pdf[4500], tmp[4300], stem[4400], tmp_png[4500], tmp_pdf[4500];
    // The config allows only the kind's figures; a meta.ini edited by hand could still name a path
    // ("../x"), whose PNG and PDF would land outside dir.
    if (strchr(fig, '/') || fig[0] == '.') {
        fprintf(stderr, "cdlab plot: %s: figure '%s' is not a name: expected one without '/' or a leading '.'\n", meta,
                fig);
        return 2;
    }
    snprintf(script, sizeof script, "%s/%s.gp", plots, fig);
    snprintf(png, sizeof png, "%s/%s.png", dir, fig);
    snprintf(pdf, sizeof pdf, "%s/%s.pdf", dir, fig);
    if (!cd_cli_nonempty_file(script)) {
        fprintf(stderr, "cdlab plot: %s: figure '%s' has no script: expected %s\n", meta, fig, script);
        return 2;
    }
    struct stat st;
    const char *blocked = lstat(png, &st) == 0 && !S_ISREG(st.st_mode)   ? png
                          : lstat(pdf, &st) == 0 && !S_ISREG(st.st_mode) ? pdf
                                                                         : NULL;
    if (blocked) {  // a directory or a FIFO where a figure goes: not gnuplot's fault
        fprintf(stderr, "cdlab plot: %s: exists and is not a regular file: not replaced\n", blocked);
        return 2;
    }
    // In the run directory, so that the renames stay on one file system.
    snprintf(tmp, sizeof tmp, "%s/.cdlab-plot.XXXXXX", dir);
    if (cd_scratch_dir_make(tmp) != 0) {
        fprintf(stderr, "cdlab plot: %s: cannot write: %s\n", tmp, strerror(errno));
        return 1;
    }
    snprintf(stem, sizeof stem, "%s/%s", tmp, fig);
    snprintf(tmp_png, sizeof tmp_png, "%s.png", stem);
    snprintf(tmp_pdf, sizeof tmp_pdf, "%s.pdf", stem);
    int rc = 0;
    if (cd_cli_gnuplot(script, dir, stem) != 0) {
        fprintf(stderr,
                "cdlab plot: gnuplot -c %s failed for %s (its messages are above; the figures need gnuplot's "
                "pngcairo and pdfcairo terminals)\n",
                script, dir);
        rc = 1;
    } else if (!cd_cli_file_starts_with(tmp_png, CD_PNG_SIGNATURE, 8) ||
               !cd_cli_file_starts_with(tmp_pdf, "%PDF-", 5)) {
        fprintf(stderr, "cdlab plot: gnuplot -c %s wrote no PNG and PDF for %s (%s.png and .pdf)\n", script, dir, stem);
        rc = 1;
    } else if (replace(tmp_png, png) != 0 || replace(tmp_pdf, pdf) != 0) {
        fprintf(stderr, "cdlab plot: %s: cannot write %s.png and .pdf: %s\n", dir, fig, strerror(errno));
        rc = 1;
    }
    cd_scratch_dir_remove(tmp);  // whatever gnuplot left (nothing once both files moved), then the directory
    if (!rc) printf("%s\n%s\n", png, pdf);
    return rc;
}

static int plot_dir(const char *plots, const char *dir)
{
    // A complete run whose CSVs are whole and as the run wrote them (rows of the header's width,
    // meta.ini [files]), read as compare and report read it: gnuplot would draw what it can of a
    // cut or edited file.
    cd_rundir r;
    char err[8192], list[512], meta[4200];
    if (cd_rundir_read(dir, &r, err, sizeof err)) {
        fprintf(stderr, "cdlab plot: %s; nothing to plot\n", err);
        return 2;
    }
    const char *figures = cd_rundir_meta(&r, "config", "figures", NULL);
    if (figures) snprintf(list, sizeof list, "%s", figures);
    cd_rundir_free(&r);
    snprintf(meta, sizeof meta, "%s/meta.ini", dir);
    if (!figures) {
        fprintf(stderr, "cdlab plot: %s: cannot read [config] figures: expected a run directory with meta.ini\n", meta);
        return 2;
    }
    // Every figure is tried; the exit status is the most serious of theirs (2 over 1), whatever
    // their order.
    int rc = 0;
    char *save = NULL;
    for (char *fig = strtok_r(list, ", ", &save); fig; fig = strtok_r(NULL, ", ", &save))
        rc = worse(rc, plot_figure(plots, dir, meta, fig));
    return rc;
}

int cd_cli_plots_dir(char *buf, size_t len, const char *given)
{
    const char *env = getenv("CDLAB_PLOTS");
    if (given || (env && env[0])) {
        snprintf(buf, len, "%s", given ? given : env);
        return 0;
    }
    return cd_cli_data_dir("plots", buf, len);
}

int cd_cmd_plot(int argc, char **argv)
{
    const char *given = NULL;
    const cli_opt opts[] = {
        {.name = "plots",
         .arg = "DIR",
         .help = "the gnuplot scripts (default: $CDLAB_PLOTS, else the installed ones)",
         .type = CLI_TEXT,
         .dest = &given},
    };
    const cli_spec spec = {
        .command = "plot",
        .usage = "[--plots DIR] RUN_DIR...",
        .opts = opts,
        .count = sizeof opts / sizeof opts[0],
        .min_operands = 1,
        .max_operands = -1,
        .operands = "one or more run directories",
        .about = "Render every figure a run lists in its meta.ini ([config] figures, set by [run] figures or\n"
                 "the kind's default) with gnuplot as RUN_DIR/<figure>.png (pngcairo) and .pdf (pdfcairo):\n"
                 "drawn into a new RUN_DIR/.cdlab-plot.XXXXXX/ and renamed over the figures only when\n"
                 "gnuplot succeeds and wrote a PNG and a PDF, so a figure that fails keeps the previous\n"
                 "ones and leaves no file. A run that did not finish (an INCOMPLETE file, or no meta.ini)\n"
                 "is refused (exit 2).\n"
                 "Scripts come from DIR, else $CDLAB_PLOTS, else the installed <prefix>/share/cdlab/plots\n"
                 "found from this program's own path (a program in its build tree: the sources' plots/).\n"
                 "A script is also usable alone: gnuplot -c plots/<figure>.gp RUN_DIR [OUTPUT_STEM]\n",
        .after = "Prints the figures' paths. Every figure is tried; the exit status is the most serious of\n"
                 "theirs: 0; 1 when gnuplot fails on a figure or writes no PNG and PDF for it, or a figure\n"
                 "cannot be written; 2 on bad usage, a directory that is not a complete run, a figure\n"
                 "without a script, or a figure's path that is not a regular file.\n"};
    cli_operands ops;
    int rc = cli_parse(&spec, argc, argv, &ops);
    char plots[4096];
    if (rc < 0 && cd_cli_plots_dir(plots, sizeof plots, given) != 0) {
        fprintf(stderr, "cdlab plot: no plot scripts: expected %s (an installed cdlab), --plots DIR or $CDLAB_PLOTS\n",
                plots);
        rc = 2;
    }
    if (rc < 0) {
        rc = 0;
        for (int i = 0; i < ops.n; ++i) {
            int r = plot_dir(plots, ops.v[i]);
            if (r > rc) rc = r;
        }
    }
    cli_operands_free(&ops);
    return rc;
}
