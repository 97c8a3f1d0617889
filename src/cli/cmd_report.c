// SPDX-License-Identifier: MIT
// `cdlab report RUN_DIR... [-o FILE.html]`: one self-contained HTML page for a set of runs — per
// run its provenance (meta.ini), warnings, figures (PNG inlined as base64; rendered from
// plots/<figure>.gp into a scratch directory when the run has none; the scene pictures
// `cdlab snapshot RUN_DIR` left in it), summary table, and the seed
// documents' results that the experiment reproduces (experiments/reference/*.csv, drawn with
// gnuplot's svg terminal and inlined). The page loads nothing: no network, no other file.
//
// The page is written as well-formed XML (void elements closed, script and style in CDATA
// sections, every text from the runs, the paths and the reference files through cd_html_escape
// or cd_xml_text, which turn what XML may not hold into U+FFFD) so that `xmllint --noout` checks
// it strictly; browsers read it as HTML5. Its script
// sorts tables by a click on a header and, once loaded, sets data-figures-ok="N" on <html> when
// all N figures decoded with a non-zero size (else data-figures-broken lists the bad ones): the
// browser test reads that marker.
#include "cd_build_config.h"
#include "cd_core.h"
#include "cli.h"
#include "options.h"
#include "rundir.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

// ---------------------------------------------------------------------------------------------
// Files and encodings.

static void base64(FILE *out, const unsigned char *p, size_t n)
{
    static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
        fputc(a[v >> 18 & 63], out);
        fputc(a[v >> 12 & 63], out);
        fputc(i + 1 < n ? a[v >> 6 & 63] : '=', out);
        fputc(i + 2 < n ? a[v & 63] : '=', out);
    }
}

static void esc(FILE *f, const char *s) { cd_html_escape(f, s ? s : ""); }

// ---------------------------------------------------------------------------------------------
// Reference results of the seed documents (experiments/reference/*.csv).

/// A reference file: `# key: value` header lines (title, source, quote, experiments, plot, ylabel,
/// note), then a CSV table whose first column labels the rows.
typedef struct reference {
    char path[4500];
    char title[512], source[1024], quote[1024], experiments[512], plot[32], ylabel[128], note[1024];
    cd_csv_table table;
} reference;

static void header_value(const char *line, const char *key, char *out, size_t len)
{
    size_t k = strlen(key);
    if (strncmp(line, key, k) != 0 || line[k] != ':') return;
    const char *v = line + k + 1;
    while (*v == ' ') v++;
    size_t n = strcspn(v, "\r\n");
    size_t have = strlen(out);
    if (have && have + 1 < len) out[have++] = ' ';  // a key given twice continues its value
    snprintf(out + have, len - have, "%.*s", (int)n, v);
}

// Read one reference file; its header must name a title, a source and the experiments it serves.
static int reference_read(const char *path, reference *r, char *err, size_t err_len)
{
    *r = (reference){0};
    snprintf(r->path, sizeof r->path, "%s", path);
    char *text, why[256];
    size_t len;
    if (cd_file_load(path, CD_FILE_MAX_BYTES, CD_FILE_REGULAR, &text, &len, why, sizeof why)) {
        snprintf(err, err_len, "%s: %s", path, why);
        return -1;
    }
    cd_lines it = cd_lines_of(text, len);
    const char *line;
    size_t n;
    while (cd_lines_next(&it, &line, &n)) {
        if (line[0] != '#') continue;
        char head[2048];
        snprintf(head, sizeof head, "%.*s", (int)(n < sizeof head ? n : sizeof head - 1), line);
        const char *s = head + 1;
        while (*s == ' ') s++;
        header_value(s, "title", r->title, sizeof r->title);
        header_value(s, "source", r->source, sizeof r->source);
        header_value(s, "quote", r->quote, sizeof r->quote);
        header_value(s, "experiments", r->experiments, sizeof r->experiments);
        header_value(s, "plot", r->plot, sizeof r->plot);
        header_value(s, "ylabel", r->ylabel, sizeof r->ylabel);
        header_value(s, "note", r->note, sizeof r->note);
    }
    const char *missing = !r->title[0] ? "title" : !r->source[0] ? "source" : !r->experiments[0] ? "experiments" : NULL;
    if (missing) {
        snprintf(err, err_len, "%s:1: no '# %s:' line: expected title, source and experiments in the header", path,
                 missing);
        cd_free(text);
        return -1;
    }
    int bad = cd_csv_parse_text(path, text, len, &r->table, err, err_len);
    cd_free(text);
    if (bad) return -1;
    if (r->table.count < 2) {
        snprintf(err, err_len, "%s: expected a header row and at least one data row", path);
        cd_csv_table_free(&r->table);
        return -1;
    }
    return 0;
}

static int word_in(const char *list, const char *w)
{
    size_t n = strlen(w);
    for (const char *p = list; *p;) {
        while (*p == ' ' || *p == ',') p++;
        size_t k = strcspn(p, ", ");
        if (k == n && strncmp(p, w, n) == 0) return 1;
        p += k;
    }
    return 0;
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

// Every reference file of dir, sorted by name (none when dir does not exist).
static int references_load(const char *dir, reference **out, size_t *count, char *err, size_t err_len)
{
    *out = NULL;
    *count = 0;
    DIR *d = opendir(dir);
    if (!d) return errno == ENOENT ? 0 : (snprintf(err, err_len, "%s: %s", dir, strerror(errno)), -1);
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t k = strlen(e->d_name);
        if (k < 5 || strcmp(e->d_name + k - 4, ".csv") != 0) continue;
        cd_grow((void **)&names, sizeof *names, &cap, n + 1);
        names[n] = cd_alloc(k + 1);
        memcpy(names[n++], e->d_name, k + 1);
    }
    closedir(d);
    if (n) qsort(names, n, sizeof *names, by_name);
    reference *refs = cd_alloc_zero(n ? n : 1, sizeof *refs);
    int rc = 0;
    for (size_t i = 0; i < n; ++i) {
        char path[4500];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        if (!rc && reference_read(path, &refs[*count], err, err_len) == 0)
            ++*count;
        else
            rc = -1;
        cd_free(names[i]);
    }
    cd_free(names);
    *out = refs;
    return rc;
}

// ---------------------------------------------------------------------------------------------
// Figures.

typedef struct page {
    FILE *f;
    char plots[4096], scratch[4200];
    int figures;  // figures written so far: ids of inlined SVGs
} page;

static void png_figure(page *p, const char *png, const char *caption)
{
    size_t n;
    char *data = cd_file_read(png, &n);
    fprintf(p->f, "<figure class=\"fig\"><img alt=\"");
    esc(p->f, caption);
    fprintf(p->f, "\" src=\"data:image/png;base64,");
    base64(p->f, (const unsigned char *)data, n);
    fprintf(p->f, "\"/><figcaption>");
    esc(p->f, caption);
    fprintf(p->f, "</figcaption></figure>\n");
    cd_free(data);
    p->figures++;
}

// Inline gnuplot's SVG: drop the XML prolog, and give its ids (gnuplot_canvas, gpDot, gpPt0, ...)
// a per-figure prefix so that two figures in one page never share an id. Its text (a reference
// file's title and labels, which gnuplot copies as they are) goes through cd_xml_text first, so
// that a control character or a byte that is not UTF-8 there leaves the page well-formed. 0, or
// -1 with nothing written when the file holds no <svg> element.
static int svg_figure(page *p, const char *svg, const char *caption)
{
    size_t n;
    char *raw = cd_file_read(svg, &n), *data = cd_xml_text(raw);
    cd_free(raw);
    const char *s = strstr(data, "<svg");
    if (!s) {
        cd_free(data);
        return -1;
    }
    char prefix[24];
    snprintf(prefix, sizeof prefix, "f%d_", p->figures);
    fprintf(p->f, "<figure class=\"fig\">");
    while (*s) {
        const char *id = strstr(s, "gp");
        const char *canvas = strstr(s, "gnuplot_canvas");
        if (canvas && (!id || canvas < id)) id = canvas;
        if (!id) {
            fputs(s, p->f);
            break;
        }
        // Only ids and references: preceded by a quote or '#'.
        fwrite(s, 1, (size_t)(id - s), p->f);
        if (id > data && (id[-1] == '\'' || id[-1] == '"' || id[-1] == '#')) fputs(prefix, p->f);
        fputc(*id, p->f);
        s = id + 1;
    }
    fprintf(p->f, "<figcaption>");
    esc(p->f, caption);
    fprintf(p->f, "</figcaption></figure>\n");
    cd_free(data);
    p->figures++;
    return 0;
}

// Whether path is a non-empty regular file that starts with the PNG signature.
static int is_png(const char *path) { return cd_cli_file_starts_with(path, CD_PNG_SIGNATURE, 8); }

// The run's own PNG when `cdlab plot` made one, else one rendered into the scratch directory
// (also where the run's file is not a PNG: the page embeds it as one). Only a PNG is embedded: a
// rendered file that is none (gnuplot exited 0 without drawing) is a figure that could not be
// drawn. 0, or 2 when the run names a figure without a script.
static int run_figure(page *p, const cd_rundir *r, const char *fig, char *err, size_t err_len)
{
    char png[4500], script[4300], stem[4400];
    snprintf(png, sizeof png, "%s/%s.png", r->dir, fig);
    int own = is_png(png);
    if (!own && cd_cli_nonempty_file(png))
        fprintf(stderr, "cdlab report: warning: %s is not a PNG; the figure is drawn afresh\n", png);
    if (!own) {
        snprintf(script, sizeof script, "%s/%s.gp", p->plots, fig);
        snprintf(stem, sizeof stem, "%s/fig%d", p->scratch, p->figures);
        snprintf(png, sizeof png, "%s.png", stem);
        if (!cd_cli_nonempty_file(script)) {
            snprintf(err, err_len, "%s/meta.ini: figure '%s' has no script: expected %s", r->dir, fig, script);
            return 2;
        }
        if (cd_cli_gnuplot(script, r->dir, stem) != 0 || !is_png(png)) {
            // A figure the data cannot make (e.g. a log axis over one value) is said, not fatal.
            fprintf(stderr, "cdlab report: warning: %s failed for %s (or wrote no PNG); the page says so\n", script,
                    r->dir);
            fprintf(p->f, "<p class=\"warn\">Figure ");
            esc(p->f, fig);
            fprintf(p->f, " could not be drawn: gnuplot -c ");
            esc(p->f, script);
            fprintf(p->f, " failed on this run or wrote no PNG (its messages went to stderr).</p>\n");
            return 0;
        }
    }
    png_figure(p, png, fig);
    return 0;
}

static int reference_figure(page *p, const reference *ref, char *err, size_t err_len)
{
    char script[4300], svg[4400];
    snprintf(script, sizeof script, "%s/reference.gp", p->plots);
    snprintf(svg, sizeof svg, "%s/ref%d.svg", p->scratch, p->figures);
    if (cd_cli_gnuplot(script, ref->path, svg) != 0 || !cd_cli_nonempty_file(svg) ||
        svg_figure(p, svg, ref->title) != 0) {
        snprintf(err, err_len, "%s failed for %s (or wrote no SVG)", script, ref->path);
        return 1;
    }
    return 0;
}

// ---------------------------------------------------------------------------------------------
// Tables.

static int is_na(const char *v) { return !v[0] || strcmp(v, "NA") == 0; }

static int ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

// The summary columns worth reading: the swept parameters, then each varying statistic's median
// and CV (and varying columns that are not statistics, e.g. a search's answer), then the
// deterministic columns. The full table stays in summary.csv.
static int shown(const cd_rundir *r, int j)
{
    const char *name = r->summary.rows[0].fields[j];
    switch (r->summary_role[j]) {
    case CD_COL_POINT: return 0;
    case CD_COL_PARAM: return cd_rundir_distinct(r, j) > 1;
    case CD_COL_VARYING: {
        static const char *const stat[] = {"_p05", "_p95", "_mad", "_mean", "_min", "_max"};
        for (size_t k = 0; k < sizeof stat / sizeof stat[0]; ++k)
            if (ends_with(name, stat[k])) return 0;
        return 1;
    }
    case CD_COL_EXACT: return 1;
    }
    return 0;
}

// A point the run skipped: every varying median is NA.
static int skipped_row(const cd_rundir *r, size_t i)
{
    int any = 0;
    for (size_t j = 0; j < r->summary.rows[0].count; ++j) {
        if (r->summary_role[j] != CD_COL_VARYING || !ends_with(r->summary.rows[0].fields[j], "_median")) continue;
        any = 1;
        if (!is_na(cd_table_field(&r->summary, i, (int)j))) return 0;
    }
    return any;
}

static void point_name(FILE *f, const cd_rundir *r, size_t i)
{
    int first = 1;
    for (size_t j = 0; j < r->summary.rows[0].count; ++j) {
        if (r->summary_role[j] != CD_COL_PARAM || cd_rundir_distinct(r, (int)j) < 2) continue;
        fprintf(f, "%s", first ? "" : " ");
        esc(f, r->summary.rows[0].fields[j]);
        fputc('=', f);
        esc(f, cd_table_field(&r->summary, i, (int)j));
        first = 0;
    }
    if (first) fprintf(f, "point %s", cd_table_field(&r->summary, i, 0));
}

static void summary_table(FILE *f, const cd_rundir *r)
{
    const cd_csv_row *h = &r->summary.rows[0];
    fprintf(f, "<div class=\"scroll\"><table class=\"sortable\"><thead><tr>");
    for (size_t j = 0; j < h->count; ++j) {
        if (!shown(r, (int)j)) continue;
        fprintf(f, "<th class=\"%s\">", r->summary_role[j] == CD_COL_PARAM ? "param" : "num");
        esc(f, h->fields[j]);
        fprintf(f, "</th>");
    }
    fprintf(f, "</tr></thead><tbody>\n");
    for (size_t i = 1; i < r->summary.count; ++i) {
        fprintf(f, "<tr%s>", skipped_row(r, i) ? " class=\"skipped\"" : "");
        for (size_t j = 0; j < h->count; ++j) {
            if (!shown(r, (int)j)) continue;
            const char *v = cd_table_field(&r->summary, i, (int)j);
            double x;
            // Numbers shown with 4 significant digits, the exact value in the cell's title.
            if (r->summary_role[j] != CD_COL_PARAM && cd_csv_parse_double(v, &x) == 0) {
                fprintf(f, "<td title=\"");
                esc(f, v);
                fprintf(f, "\" data-v=\"%.17g\">%.4g</td>", x, x);
            } else {
                fprintf(f, "<td>");
                esc(f, v);
                fprintf(f, "</td>");
            }
        }
        fprintf(f, "</tr>\n");
    }
    fprintf(f, "</tbody></table></div>\n");
}

static void kv_row(FILE *f, const char *label, const char *value)
{
    fprintf(f, "<tr><th>");
    esc(f, label);
    fprintf(f, "</th><td>");
    esc(f, value && value[0] ? value : "(not recorded)");
    fprintf(f, "</td></tr>\n");
}

static void provenance(FILE *f, const cd_rundir *r)
{
    fprintf(f, "<h3>Provenance</h3><table class=\"kv\">\n");
    static const char *const rows[][3] = {
        {"experiment", "run", "experiment"},
        {"kind", "run", "kind"},
        {"run id", "run", "id"},
        {"started", "run", "date_start"},
        {"duration (s)", "run", "duration_s"},
        {"host", "run", "host"},
        {"command", "run", "command"},
        {"points", "run", "points_done"},
        {"isolation", "run", "isolate_why"},
        {"CPU", "machine", "cpu_model"},
        {"CPUs online", "machine", "cpus_online"},
        {"topology", "machine", "topology"},
        {"SIMD paths", "machine", "simd"},
        {"pinning", "pinning", "status"},
        {"pin mode", "pinning", "mode"},
        {"requested CPU", "pinning", "requested_cpu"},
        {"actual CPU", "pinning", "actual_cpu"},
        {"allocator", "pinning", "allocator"},
        {"PAPI", "papi", "version"},
        {"PAPI status", "papi", "status"},
        {"counters live", "papi", "events_live"},
        {"cdlab", "cdlab", "version"},
        {"git commit", "cdlab", "git_commit"},
        {"dirty tree", "cdlab", "git_dirty"},
        {"build type", "cdlab", "build_type"},
        {"compiler", "cdlab", "compiler"},
        {"C flags", "cdlab", "c_flags"},
        {"per-module flags", "cdlab", "c_flags_extra"},
        {"sanitizers", "cdlab", "sanitize"},
        {"config", "config", "path"},
        {"config SHA-256", "config", "sha256"},
        {"seed", "config", "seed"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; ++i)
        kv_row(f, rows[i][0], cd_rundir_meta(r, rows[i][1], rows[i][2], NULL));
    // A merged run's shards, where each ran (the keys above that differ between them say so).
    for (size_t i = 0; i < r->meta.count; ++i) {
        const cd_ini_entry *e = &r->meta.items[i];
        if (strcmp(e->section, "merge") != 0 || !e->key[0]) continue;
        char label[160];
        snprintf(label, sizeof label, "merge: %s", e->key);
        kv_row(f, label, e->value);
    }
    // Each requested counter: ok, or NA with the reason.
    for (size_t i = 0; i < r->meta.count; ++i) {
        const cd_ini_entry *e = &r->meta.items[i];
        if (strcmp(e->section, "counters") != 0) continue;
        char label[160];
        snprintf(label, sizeof label, "counter %s", e->key);
        kv_row(f, label, e->value);
    }
    fprintf(f, "</table>\n<details><summary>Every config value as used</summary><table class=\"kv\">\n");
    for (size_t i = 0; i < r->meta.count; ++i)
        if (strcmp(r->meta.items[i].section, "values") == 0) kv_row(f, r->meta.items[i].key, r->meta.items[i].value);
    fprintf(f, "</table></details>\n");
}

static void warnings(FILE *f, const cd_rundir *r)
{
    size_t n = 0;
    for (size_t i = 0; i < r->meta.count; ++i)
        n += strcmp(r->meta.items[i].section, "warnings") == 0 && strcmp(r->meta.items[i].key, "count") != 0;
    size_t skipped = 0;
    for (size_t i = 1; i < r->summary.count; ++i) skipped += skipped_row(r, i);
    fprintf(f, "<h3>Warnings</h3>\n");
    if (!n && !skipped) {
        fprintf(f, "<p>None: no noisy point, no skipped point, pinning as asked.</p>\n");
        return;
    }
    fprintf(f, "<ul class=\"warn\">\n");
    for (size_t i = 0; i < r->meta.count; ++i) {
        const cd_ini_entry *e = &r->meta.items[i];
        if (strcmp(e->section, "warnings") != 0 || strcmp(e->key, "count") == 0) continue;
        fprintf(f, "<li>");
        esc(f, e->value);
        fprintf(f, "</li>\n");
    }
    for (size_t i = 1; i < r->summary.count; ++i) {
        if (!skipped_row(r, i)) continue;
        fprintf(f, "<li>skipped: ");
        point_name(f, r, i);
        fprintf(f, " (no measurement: see the warnings above for why)</li>\n");
    }
    fprintf(f, "</ul>\n");
}

static void reference_table(FILE *f, const reference *ref)
{
    fprintf(f, "<table class=\"ref\"><thead><tr>");
    for (size_t j = 0; j < ref->table.rows[0].count; ++j) {
        fprintf(f, "<th>");
        esc(f, ref->table.rows[0].fields[j]);
        fprintf(f, "</th>");
    }
    fprintf(f, "</tr></thead><tbody>\n");
    for (size_t i = 1; i < ref->table.count; ++i) {
        fprintf(f, "<tr>");
        for (size_t j = 0; j < ref->table.rows[i].count; ++j) {
            fprintf(f, "<td>");
            esc(f, ref->table.rows[i].fields[j]);
            fprintf(f, "</td>");
        }
        fprintf(f, "</tr>\n");
    }
    fprintf(f, "</tbody></table>\n");
}

// ---------------------------------------------------------------------------------------------
// The page.

static const char style[] =
    "body{font:14px/1.45 sans-serif;margin:1.5em auto;max-width:1200px;padding:0 1em;color:#222}"
    "h1{font-size:1.6em}h2{border-bottom:2px solid #ccc;margin-top:2.2em}h3{margin-bottom:.3em}"
    "table{border-collapse:collapse;margin:.4em 0}td,th{border:1px solid #ddd;padding:2px 6px;"
    "text-align:left;vertical-align:top}th{background:#f3f3f3}table.sortable th{cursor:pointer}"
    "table.sortable td[data-v]{text-align:right;font-variant-numeric:tabular-nums}"
    "tr.skipped td{color:#999;font-style:italic}table.kv th{width:12em;font-weight:normal}"
    ".scroll{overflow-x:auto}.figs{display:flex;flex-wrap:wrap;gap:1em;align-items:flex-start}"
    ".fig{margin:0;flex:1 1 480px;max-width:100%}.fig img,.fig svg{max-width:100%;height:auto;"
    "border:1px solid #eee}figcaption{font-size:.9em;color:#555}ul.warn li,p.warn{color:#8a4b00}"
    ".cite{font-size:.9em;color:#444}";

// Sort on a header click (numbers by data-v, text otherwise); then the figure check the browser
// test reads: every <img> decoded with a non-zero size, every inline <svg> laid out non-empty.
static const char script[] =
    "(function(){\n"
    "function key(td){var v=td.getAttribute('data-v');return v===null?td.textContent:parseFloat(v);}\n"
    "document.querySelectorAll('table.sortable').forEach(function(t){\n"
    " t.querySelectorAll('th').forEach(function(th,c){th.addEventListener('click',function(){\n"
    "  var b=t.tBodies[0],rows=Array.prototype.slice.call(b.rows),up=th.getAttribute('data-up')!=='1';\n"
    "  rows.sort(function(x,y){var a=key(x.cells[c]),d=key(y.cells[c]);\n"
    "   var r=(typeof a==='number'&&typeof d==='number')?a-d:String(a).localeCompare(String(d));return up?r:-r;});\n"
    "  rows.forEach(function(r){b.appendChild(r);});th.setAttribute('data-up',up?'1':'0');});});});\n"
    "window.addEventListener('load',function(){\n"
    " var bad=[],n=0;\n"
    " document.querySelectorAll('figure.fig').forEach(function(fig){n++;\n"
    "  var img=fig.querySelector('img'),svg=fig.querySelector('svg'),ok=false;\n"
    "  if(img)ok=img.complete&&img.naturalWidth>0&&img.naturalHeight>0;\n"
    "  else if(svg){var b=svg.getBoundingClientRect();ok=b.width>0&&b.height>0&&svg.childElementCount>0;}\n"
    "  if(!ok)bad.push(fig.querySelector('figcaption').textContent);});\n"
    " var h=document.documentElement;\n"
    " if(bad.length)h.setAttribute('data-figures-broken',bad.join(', '));else "
    "h.setAttribute('data-figures-ok',String(n));\n"
    "});\n"
    "})();\n";

static void run_section(page *p, const cd_rundir *r, int index, const reference *refs, size_t nref, int *rc, char *err,
                        size_t err_len)
{
    FILE *f = p->f;
    const char *exp = cd_rundir_meta(r, "run", "experiment", "?");
    fprintf(f, "<section id=\"run%d\"><h2>", index);
    esc(f, exp);
    fprintf(f, " <small>");
    esc(f, r->dir);
    fprintf(f, "</small></h2>\n");
    provenance(f, r);
    warnings(f, r);
    fprintf(f, "<h3>Figures</h3>\n<div class=\"figs\">\n");
    char list[1024];
    snprintf(list, sizeof list, "%s", cd_rundir_meta(r, "config", "figures", ""));
    char *save = NULL;
    int any = 0;
    for (char *fig = strtok_r(list, ", ", &save); fig && !*rc; fig = strtok_r(NULL, ", ", &save)) {
        *rc = run_figure(p, r, fig, err, err_len);
        any = 1;
    }
    // Scene pictures made with `cdlab snapshot RUN_DIR` (snapshot_*.png), in name order.
    char **snaps = NULL;
    size_t nsnap = 0, cap = 0;
    DIR *d = opendir(r->dir);
    for (struct dirent *e; d && (e = readdir(d));) {
        size_t k = strlen(e->d_name);
        if (strncmp(e->d_name, "snapshot_", 9) != 0 || k < 13 || strcmp(e->d_name + k - 4, ".png") != 0) continue;
        cd_grow((void **)&snaps, sizeof *snaps, &cap, nsnap + 1);
        snaps[nsnap] = cd_alloc(k + 1);
        memcpy(snaps[nsnap++], e->d_name, k + 1);
    }
    if (d) closedir(d);
    if (nsnap) qsort(snaps, nsnap, sizeof *snaps, by_name);
    // Each is checked as the run's figures are (is_png): a file that is not a PNG cannot be drawn
    // afresh, so it is left out, said on stderr and in the page.
    for (size_t k = 0; k < nsnap; ++k) {
        char png[4600];
        snprintf(png, sizeof png, "%s/%s", r->dir, snaps[k]);
        if (!*rc && is_png(png)) {
            png_figure(p, png, snaps[k]);
        } else if (!*rc) {
            fprintf(stderr, "cdlab report: warning: %s is not a PNG; left out of the page\n", png);
            fprintf(f, "<p class=\"warn\">Scene picture ");
            esc(f, snaps[k]);
            fprintf(f, " is not a PNG and is left out.</p>\n");
        }
        cd_free(snaps[k]);
        any = 1;
    }
    cd_free(snaps);
    if (!any) fprintf(f, "<p>The run lists no figure.</p>\n");
    fprintf(f, "</div>\n");
    for (size_t k = 0; k < nref && !*rc; ++k) {
        if (!word_in(refs[k].experiments, exp)) continue;
        fprintf(f, "<h3>The seed's result: ");
        esc(f, refs[k].title);
        fprintf(f, "</h3>\n<p class=\"cite\">Source: ");
        esc(f, refs[k].source);
        if (refs[k].quote[0]) {
            fprintf(f, "; ");
            esc(f, refs[k].quote);
        }
        fprintf(f, ". Data: ");
        const char *in_tree = strstr(refs[k].path, "/experiments/reference/");
        esc(f, in_tree ? in_tree + 1 : refs[k].path);
        fprintf(f, ".</p>\n");
        if (refs[k].note[0]) {
            fprintf(f, "<p class=\"cite\">");
            esc(f, refs[k].note);
            fprintf(f, "</p>\n");
        }
        fprintf(f, "<div class=\"figs\">\n");
        if (strcmp(refs[k].plot, "none") != 0) *rc = reference_figure(p, &refs[k], err, err_len);
        fprintf(f, "<div class=\"fig\">");
        reference_table(f, &refs[k]);
        fprintf(f, "</div></div>\n");
    }
    fprintf(f, "<h3>Summary</h3>\n<p>One row per point; medians over frames × repeats. Click a header to sort; "
               "every column is in ");
    esc(f, r->dir);
    fprintf(f, "/summary.csv.</p>\n");
    summary_table(f, r);
    fprintf(f, "</section>\n");
}

static int write_page(page *p, cd_rundir *runs, int n, const reference *refs, size_t nref, char *err, size_t err_len)
{
    FILE *f = p->f;
    char now[64];
    time_t t = time(NULL);
    strftime(now, sizeof now, "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
    fprintf(f,
            "<!DOCTYPE html>\n<html lang=\"en\" xmlns=\"http://www.w3.org/1999/xhtml\">\n<head>\n"
            "<meta charset=\"utf-8\"/>\n<title>cdlab report</title>\n<style>/*<![CDATA[*/%s/*]]>*/</style>\n"
            "</head>\n<body>\n<h1>cdlab report</h1>\n<p>%d run%s, written %s by cdlab %s. Times are "
            "medians; compare methods within one run (same machine, same minutes).</p>\n<ul>\n",
            style, n, n == 1 ? "" : "s", now, CD_VERSION);
    for (int i = 0; i < n; ++i) {
        fprintf(f, "<li><a href=\"#run%d\">", i);
        esc(f, cd_rundir_meta(&runs[i], "run", "experiment", "?"));
        fprintf(f, "</a> — ");
        esc(f, runs[i].dir);
        fprintf(f, "</li>\n");
    }
    fprintf(f, "</ul>\n");
    int rc = 0;
    for (int i = 0; i < n && !rc; ++i) run_section(p, &runs[i], i, refs, nref, &rc, err, err_len);
    fprintf(f, "<script>//<![CDATA[\n%s//]]></script>\n</body>\n</html>\n", script);
    return rc;
}

// The page of runs[0..n) and refs into out, its figures rendered in a new scratch directory
// (p->scratch): written whole or not at all (cd_file_out), so out is complete or untouched. 0, 1
// (a write failed) or 2; err says why.
static int report_to_file(page *p, const char *out, cd_rundir *runs, int n, reference *refs, size_t nref, char *err,
                          size_t len)
{
    snprintf(p->scratch, sizeof p->scratch, "%s", "/tmp/cdlab-report-XXXXXX");
    const char *tmp = getenv("TMPDIR");
    if (tmp && tmp[0]) snprintf(p->scratch, sizeof p->scratch, "%s/cdlab-report-XXXXXX", tmp);
    if (cd_scratch_dir_make(p->scratch) != 0) {
        snprintf(err, len, "%s: cannot make a scratch directory: %s", p->scratch, strerror(errno));
        p->scratch[0] = '\0';
        return 1;
    }
    cd_file_out o;
    char why[4400];
    if (cd_file_out_open(&o, out, why, sizeof why) != 0) {  // an output that cannot be written: 1, as usage.md says
        snprintf(err, len, "%s: %s", out, why);
        return 1;
    }
    p->f = o.f;
    int rc = write_page(p, runs, n, refs, nref, err, len);
    if (rc) {
        cd_file_out_abort(&o);
    } else if (cd_file_out_commit(&o, why, sizeof why) != 0) {
        snprintf(err, len, "%s: %s", out, why);
        rc = 1;
    }
    p->f = NULL;
    return rc;
}

// out = name beside the directory dir: in dir's parent, found from the text of the path ("alt/plots/"
// gives "alt/name", "plots" gives "name"; "/x" gives "/name", "/" itself "/name"; ".", ".." and
// paths that end in them take "/.." after them).
static void beside(char *out, size_t len, const char *dir, const char *name)
{
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/') n--;  // "alt/plots/" is "alt/plots"
    size_t start = n;
    while (start > 0 && dir[start - 1] != '/') start--;  // the last component: dir[start, n)
    const char *last = dir + start;
    size_t k = n - start;
    if ((k == 1 && last[0] == '.') || (k == 2 && last[0] == '.' && last[1] == '.')) {
        snprintf(out, len, "%.*s/../%s", (int)n, dir, name);
    } else if (start == 0) {
        snprintf(out, len, "%s", name);  // "plots": its parent is the working directory
    } else {
        size_t p = start;
        while (p > 1 && dir[p - 1] == '/') p--;  // "alt//plots": the parent is "alt"
        snprintf(out, len, "%.*s%s%s", (int)p, dir, p == 1 && dir[0] == '/' ? "" : "/", name);
    }
}

// The page for runs dirs[0, n) written to out (report_to_file): the command's exit status, after
// saying what went wrong.
static int report_runs(const char **dirs, int n, const char *out, const char *plots, const char *refdir)
{
    char err[8192] = "";
    int rc = 0;
    cd_rundir *runs = cd_alloc_zero((size_t)n, sizeof *runs);
    for (int i = 0; i < n; ++i)
        if (cd_rundir_read(dirs[i], &runs[i], err, sizeof err)) {
            rc = 2;
            break;
        }
    page p = {0};
    if (!rc && cd_cli_plots_dir(p.plots, sizeof p.plots, plots) != 0) {
        snprintf(err, sizeof err, "no plot scripts: expected %s (an installed cdlab), --plots DIR or $CDLAB_PLOTS",
                 p.plots);
        rc = 2;
    }
    // The reference results: --reference DIR; by default experiments/reference beside the plots'
    // directory (the shipped ones where the scripts are the installed or the sources' plots/; a
    // tree of its own beside --plots DIR or $CDLAB_PLOTS), none when it does not exist; none with
    // --no-reference (refdir "").
    char refbuf[4200];
    if (refdir && !refdir[0]) {
        refdir = NULL;
    } else if (!refdir && !rc) {
        beside(refbuf, sizeof refbuf, p.plots, "experiments/reference");
        refdir = refbuf;
    }
    reference *refs = NULL;
    size_t nref = 0;
    if (!rc && refdir && references_load(refdir, &refs, &nref, err, sizeof err)) rc = 2;
    if (!rc) rc = report_to_file(&p, out, runs, n, refs, nref, err, sizeof err);
    if (p.scratch[0]) cd_scratch_dir_remove(p.scratch);
    for (int i = 0; i < n; ++i) cd_rundir_free(&runs[i]);
    for (size_t k = 0; k < nref; ++k) cd_csv_table_free(&refs[k].table);
    cd_free(refs);
    cd_free(runs);
    if (rc) {
        fprintf(stderr, "cdlab report: %s\n", err);
        return rc;
    }
    printf("%s\n", out);
    return 0;
}

// Whether out is a file of one of the run directories dirs[0, n) (the same file, by device and
// inode): the page would replace meta.ini, a CSV or a figure of a run it reads, leaving the run
// unreadable. Says so on stderr.
static int output_in_runs(const char *out, const char *const *dirs, int n)
{
    struct stat o;
    if (stat(out, &o) != 0) return 0;  // a new file is no run's
    for (int i = 0; i < n; ++i) {
        DIR *d = opendir(dirs[i]);
        if (!d) continue;  // the run's own check reports it
        for (struct dirent *e; (e = readdir(d));) {
            char path[4600];
            struct stat st;
            snprintf(path, sizeof path, "%s/%s", dirs[i], e->d_name);
            if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_dev == o.st_dev && st.st_ino == o.st_ino) {
                fprintf(stderr, "cdlab report: %s is %s, a file of a run it reads: expected another path\n", out, path);
                closedir(d);
                return 1;
            }
        }
        closedir(d);
    }
    return 0;
}

static const char report_about[] =
    "Write one self-contained HTML page (no network, no other file) for the runs: per run its\n"
    "provenance from meta.ini (machine, CPU, pinning, counters and why NA, commit and dirty flag,\n"
    "compiler and flags, config hash, seed), its warnings (noisy and skipped points), its figures\n"
    "(the run's PNGs, else rendered with gnuplot from plots/<figure>.gp; inlined as base64) and\n"
    "scene pictures (snapshot_*.png; one that is not a PNG is left out with a warning), the\n"
    "seed documents' result the experiment reproduces (experiments/reference/*.csv, drawn as\n"
    "inline SVG beside its table), and its summary table (click a header to sort).\n";

static const char report_after[] =
    "Prints the page's path. A figure gnuplot cannot draw from the run's data (or draws no PNG\n"
    "of) is a warning in the page and on stderr. The page is well-formed UTF-8 XML: a character\n"
    "XML does not allow (a control character other than tab and line feed, U+FFFE, U+FFFF) or a\n"
    "byte that is not UTF-8, in a path or an input, shows as U+FFFD. Exit 0; 1 when the page\n"
    "cannot be written or a reference cannot be drawn (gnuplot fails, or writes no SVG); 2 on\n"
    "bad usage, a directory that is not a complete run, or a bad reference file.\n";

int cd_cmd_report(int argc, char **argv)
{
    const char *out = "report.html", *plots = NULL, *refdir = NULL;
    int noref = 0;
    const cli_opt opts[] = {
        {.name = "output",
         .short_name = 'o',
         .arg = "FILE",
         .help = "output file (default report.html); written whole or not at all",
         .type = CLI_TEXT,
         .dest = &out},
        {.name = "plots",
         .arg = "DIR",
         .help = "gnuplot scripts (default $CDLAB_PLOTS, else the installed\n"
                 "<prefix>/share/cdlab/plots; a program in its build tree: the sources')",
         .type = CLI_TEXT,
         .dest = &plots},
        {.name = "reference",
         .arg = "DIR",
         .help = "reference results (default: experiments/reference beside the plots'\n"
                 "directory: <prefix>/share/cdlab's or the sources' for the shipped\n"
                 "scripts, DIR/../experiments/reference for --plots DIR or\n"
                 "$CDLAB_PLOTS=DIR; none where it does not exist)",
         .type = CLI_TEXT,
         .dest = &refdir},
        {.name = "no-reference",
         .help = "no reference results on the page (not even the shipped ones)",
         .type = CLI_FLAG,
         .dest = &noref},
    };
    const cli_spec spec = {.command = "report",
                           .usage = "[-o FILE.html] [--plots DIR] [--reference DIR | --no-reference] RUN_DIR...",
                           .opts = opts,
                           .count = sizeof opts / sizeof opts[0],
                           .min_operands = 1,
                           .max_operands = -1,
                           .operands = "one or more run directories",
                           .about = report_about,
                           .after = report_after};
    cli_operands ops;
    int rc = cli_parse(&spec, argc, argv, &ops);
    if (rc >= 0) {
        cli_operands_free(&ops);
        return rc;
    }
    if (noref && refdir) {
        fprintf(stderr, "cdlab report: --reference and --no-reference: expected one of them\n");
        cli_operands_free(&ops);
        return 2;
    }
    rc = cd_cli_output_check("report", out);
    if (rc || output_in_runs(out, (const char *const *)ops.v, ops.n)) {
        cli_operands_free(&ops);
        return rc ? rc : 2;
    }
    rc = report_runs(ops.v, ops.n, out, plots, noref ? "" : refdir);
    cli_operands_free(&ops);
    return rc;
}
