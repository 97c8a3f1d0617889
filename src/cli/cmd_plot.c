// SPDX-License-Identifier: MIT
// `cdlab plot RUN_DIR...`: render the figures a run lists in meta.ini ([config] figures) with
// gnuplot, each as RUN_DIR/<figure>.png and .pdf, from plots/<figure>.gp. A directory that is not
// a complete run, or whose CSVs are not the ones it wrote (cd_rundir_read), is refused before
// anything is drawn.
#include "cd_harness_cli.h"
#include "cli.h"
#include "options.h"
#include "rundir.h"

#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

extern char **environ;

static int file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
}

int cd_cli_spawn_ok(char *const argv[])
{
    pid_t pid;
    if (posix_spawnp(&pid, argv[0], NULL, NULL, argv, environ) != 0) return 0;
    int status;
    if (waitpid(pid, &status, 0) < 0) return 0;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int cd_cli_gnuplot(const char *script, const char *arg1, const char *arg2)
{
    char *args[] = {"gnuplot", "-c", (char *)script, (char *)arg1, (char *)arg2, NULL};
    return cd_cli_spawn_ok(args) ? 0 : -1;
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
    int rc = 0;
    char *save = NULL;
    for (char *fig = strtok_r(list, ", ", &save); fig; fig = strtok_r(NULL, ", ", &save)) {
        char script[4200], stem[4400], png[4500], pdf[4500];
        snprintf(script, sizeof script, "%s/%s.gp", plots, fig);
        snprintf(stem, sizeof stem, "%s/%s", dir, fig);
        snprintf(png, sizeof png, "%s.png", stem);
        snprintf(pdf, sizeof pdf, "%s.pdf", stem);
        if (!file_exists(script)) {
            fprintf(stderr, "cdlab plot: %s: figure '%s' has no script: expected %s\n", meta, fig, script);
            rc = rc ? rc : 2;
            continue;
        }
        struct stat st;
        const char *blocked = lstat(png, &st) == 0 && !S_ISREG(st.st_mode)   ? png
                              : lstat(pdf, &st) == 0 && !S_ISREG(st.st_mode) ? pdf
                                                                             : NULL;
        if (blocked) {  // a directory or a FIFO where a figure goes: not gnuplot's fault
            fprintf(stderr, "cdlab plot: %s: exists and is not a regular file: not replaced\n", blocked);
            rc = 2;
            continue;
        }
        remove(png);
        remove(pdf);
        if (cd_cli_gnuplot(script, dir, stem) != 0 || !file_exists(png) || !file_exists(pdf)) {
            fprintf(stderr,
                    "cdlab plot: gnuplot -c %s failed for %s (its messages are above; the figures need gnuplot's "
                    "pngcairo and pdfcairo terminals)\n",
                    script, dir);
            rc = 1;
            continue;
        }
        printf("%s\n%s\n", png, pdf);
    }
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
                 "the kind's default) with gnuplot as RUN_DIR/<figure>.png (pngcairo) and .pdf (pdfcairo).\n"
                 "A run that did not finish (an INCOMPLETE file, or no meta.ini) is refused (exit 2).\n"
                 "Scripts come from DIR, else $CDLAB_PLOTS, else the installed <prefix>/share/cdlab/plots\n"
                 "found from this program's own path (a program in its build tree: the sources' plots/).\n"
                 "A script is also usable alone: gnuplot -c plots/<figure>.gp RUN_DIR [OUTPUT_STEM]\n"};
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
