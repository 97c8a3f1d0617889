// SPDX-License-Identifier: MIT
// cli_parse and cli_help: one table per command read by getopt_long and printed as its --help.
#include "options.h"

#include "cd_csv.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

enum { LONG_BASE = 256, HELP_WIDTH = 22 };

int cli_parse_count(const char *text, uint64_t lo, uint64_t hi, uint64_t *out)
{
    if (!text[0]) return -1;
    for (const char *c = text; *c; ++c)
        if (*c < '0' || *c > '9') return -1;
    errno = 0;
    unsigned long long v = strtoull(text, NULL, 10);
    if (errno || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

// "-o, --output DIR" or "--frame K" into buf.
static void opt_label(const cli_opt *o, char *buf, size_t len)
{
    char s[8] = "";
    if (o->short_name) snprintf(s, sizeof s, "-%c, ", o->short_name);
    snprintf(buf, len, "%s--%s%s%s", s, o->name, o->arg ? " " : "", o->arg ? o->arg : "");
}

// The help text h with its continuation lines indented to column col.
static void help_text(FILE *f, const char *h, int col)
{
    for (const char *nl; (nl = strchr(h, '\n')) != NULL; h = nl + 1) fprintf(f, "%.*s\n%*s", (int)(nl - h), h, col, "");
    fprintf(f, "%s\n", h);
}

void cli_help(FILE *f, const cli_spec *s)
{
    fprintf(f, "usage: cdlab %s%s%s\n\n", s->command, s->usage[0] ? " " : "", s->usage);
    if (s->about) fprintf(f, "%s\n", s->about);
    fprintf(f, "options:\n");
    static const cli_opt help = {"help", 'h', NULL, "this text", CLI_FLAG, NULL, 0, 0, 0, 0, NULL, NULL, NULL};
    for (size_t i = 0; i <= s->count; ++i) {
        const cli_opt *o = i < s->count ? &s->opts[i] : &help;
        char label[128];
        opt_label(o, label, sizeof label);
        int w = (int)strlen(label);
        if (w + 2 > HELP_WIDTH)
            fprintf(f, "  %s\n%*s", label, 2 + HELP_WIDTH, "");
        else
            fprintf(f, "  %-*s", HELP_WIDTH, label);
        help_text(f, o->help, 2 + HELP_WIDTH);
    }
    if (s->after) fprintf(f, "\n%s", s->after);
}

// What an option of type t accepts, for its error message.
static void expected(const cli_opt *o, char *buf, size_t len)
{
    switch (o->type) {
    case CLI_COUNT:
        snprintf(buf, len, "an integer in [%llu, %llu]", (unsigned long long)o->lo, (unsigned long long)o->hi);
        break;
    case CLI_REAL: snprintf(buf, len, "a number in [%g, %g]", o->min, o->max); break;
    case CLI_WORD: {
        size_t k = (size_t)snprintf(buf, len, "one of");
        for (const char *const *w = o->words; *w && k < len; ++w)
            k += (size_t)snprintf(buf + k, len - k, "%s %s", w == o->words ? "" : ",", *w);
        break;
    }
    case CLI_TEXT: snprintf(buf, len, "%s, not empty", o->arg ? o->arg : "a value"); break;
    default: snprintf(buf, len, "a value"); break;
    }
}

// Store value v into o; 0, or 2 after saying what was expected.
static int take(const cli_spec *s, const cli_opt *o, const char *v)
{
    char err[512] = "";
    int bad = 0;
    switch (o->type) {
    case CLI_FLAG: *(int *)o->dest = 1; break;
    case CLI_TEXT:  // a path, a name or a column: none is empty (an empty path would be the root's child)
        bad = !*v;
        if (!bad) *(const char **)o->dest = v;
        break;
    case CLI_COUNT: bad = cli_parse_count(v, o->lo, o->hi, o->dest); break;
    case CLI_REAL: {
        // The one reading of a number, a CSV field's and a config value's: subnormals are exact
        // (4e-324 reads as itself), a number that overflows or rounds to 0 is refused, and the
        // message says why as theirs do.
        double x = 0.0;
        cd_number_fault f = cd_csv_parse_double(v, &x);
        bad = f != CD_NUMBER_OK || !(x >= o->min && x <= o->max);
        if (bad) {
            expected(o, err, sizeof err);
            snprintf(err + strlen(err), sizeof err - strlen(err), "%s", cd_number_fault_note(f));
        }
        if (!bad) *(double *)o->dest = x == 0.0 ? 0.0 : x;  // -0 is 0 (no output says "-0")
        break;
    }
    case CLI_WORD:
        bad = 1;
        for (const char *const *w = o->words; *w; ++w)
            if (strcmp(*w, v) == 0) bad = 0;
        if (!bad) *(const char **)o->dest = v;
        break;
    case CLI_CALL:
        if (!*v) {  // as an empty CLI_TEXT: no handler takes it, and each said so in its own words
            snprintf(err, sizeof err, "%s, not empty", o->arg ? o->arg : "a value");
            bad = 1;
            break;
        }
        if (o->call(v, o->ctx, err, sizeof err) == 0) return 0;
        if (!err[0]) return 2;  // the handler said why
        bad = 1;
        break;
    }
    if (!bad) return 0;
    if (!err[0]) expected(o, err, sizeof err);
    fprintf(stderr, "cdlab %s: --%s '%s': expected %s\n", s->command, o->name, v, err);
    return 2;
}

// The operand count against s's; 0, or 2 after saying what was expected.
static int check_operands(const cli_spec *s, int n)
{
    if (n >= s->min_operands && (s->max_operands < 0 || n <= s->max_operands)) return 0;
    fprintf(stderr, "cdlab %s: %s: expected %s (see cdlab %s --help)\n", s->command,
            n == 0                ? "nothing to work on"
            : n < s->min_operands ? "too few arguments"
                                  : "too many arguments",
            s->operands ? s->operands : "no arguments", s->command);
    return 2;
}

// Operand v into ops; -1 to go on, or 2 after saying that the first of a command with subcommands
// is none of them. A known one names the messages that follow: named->command is "<command> <v>"
// in name[len].
static int add_operand(const cli_spec *s, cli_spec *named, char *name, size_t len, cli_operands *ops, const char *v)
{
    ops->v[ops->n++] = v;
    if (ops->n > 1 || !s->subcommands) return -1;
    for (const char *const *w = s->subcommands; *w; ++w)
        if (strcmp(*w, v) == 0) {
            snprintf(name, len, "%s %s", s->command, v);
            named->command = name;
            return -1;
        }
    char words[256] = "";  // "record, import, export or info"
    size_t k = 0;
    for (const char *const *w = s->subcommands; *w && k < sizeof words; ++w)
        k += (size_t)snprintf(words + k, sizeof words - k, "%s%s", w == s->subcommands ? "" : w[1] ? ", " : " or ", *w);
    fprintf(stderr, "cdlab %s: unknown subcommand '%s': expected %s\n", s->command, v, words);
    return 2;
}

// getopt_long's tables for s: longs[count + 2] and shorts (both the caller's).
static void getopt_tables(const cli_spec *s, struct option *longs, char *shorts)
{
    size_t k = 0;
    shorts[k++] = '-';  // operands come back in order as option 1: no permutation, POSIXLY_CORRECT or not
    shorts[k++] = ':';  // a missing value returns ':', not '?'
    shorts[k++] = 'h';
    for (size_t i = 0; i < s->count; ++i) {
        const cli_opt *o = &s->opts[i];
        longs[i] = (struct option){o->name, o->arg ? required_argument : no_argument, NULL, LONG_BASE + (int)i};
        if (o->short_name) {
            shorts[k++] = o->short_name;
            if (o->arg) shorts[k++] = ':';
        }
    }
    longs[s->count] = (struct option){"help", no_argument, NULL, 'h'};
    longs[s->count + 1] = (struct option){NULL, 0, NULL, 0};
    shorts[k] = '\0';
}

// The table entry getopt_long's code c stands for, or NULL.
static const cli_opt *entry(const cli_spec *s, int c)
{
    if (c >= LONG_BASE && (size_t)(c - LONG_BASE) < s->count) return &s->opts[c - LONG_BASE];
    for (size_t i = 0; i < s->count; ++i)
        if (s->opts[i].short_name && s->opts[i].short_name == c) return &s->opts[i];
    return NULL;
}

void cli_operands_free(cli_operands *ops)
{
    free(ops->v);
    ops->v = NULL;
    ops->n = 0;
}

// Say on stderr what is wrong with the option getopt_long returned c (':' or '?') for; 2.
static int bad_option(const cli_spec *s, char **argv, int c)
{
    // glibc's optopt names the option: a long option's val when its value is missing or it was
    // given one it does not take (--explain=yes), a short option's character, 0 for a long option
    // it does not know or cannot tell (then optind has passed that argument). argv[optind - 1] is
    // no name for a short option: inside a cluster (-zq) optind has not moved past it yet, and
    // the argument before it (--explain) would be blamed.
    const char *name = optopt >= LONG_BASE && (size_t)(optopt - LONG_BASE) < s->count ? s->opts[optopt - LONG_BASE].name
                       : optopt == 'h' ? "help"  // -h never errs, --help=VALUE does
                                       : NULL;
    char bad[128] = "";
    if (name)
        snprintf(bad, sizeof bad, "--%s", name);
    else if (optopt)
        snprintf(bad, sizeof bad, "-%c", (char)optopt);
    if (name && c == '?') {
        fprintf(stderr, "cdlab %s: option '%s' takes no value (see cdlab %s --help)\n", s->command, bad, s->command);
        return 2;
    }
    if (optopt) {
        fprintf(stderr, "cdlab %s: %s '%s' (see cdlab %s --help)\n", s->command,
                c == ':' ? "missing value for" : "unknown option", bad, s->command);
        return 2;
    }
    // getopt_long takes a unique prefix of a long name: two or more names it begins are an
    // ambiguous option, not an unknown one.
    const char *arg = argv[optind - 1];
    char names[400] = "";
    size_t len = strncmp(arg, "--", 2) == 0 ? strcspn(arg + 2, "=") : 0, k = 0, matches = 0;
    for (size_t i = 0; len && i < s->count; ++i)
        if (strncmp(s->opts[i].name, arg + 2, len) == 0 && k < sizeof names) {
            k += (size_t)snprintf(names + k, sizeof names - k, "%s--%s", matches ? ", " : "", s->opts[i].name);
            ++matches;
        }
    if (matches > 1)
        fprintf(stderr, "cdlab %s: ambiguous option '%s': %s (see cdlab %s --help)\n", s->command, arg, names,
                s->command);
    else
        fprintf(stderr, "cdlab %s: unknown option '%s' (see cdlab %s --help)\n", s->command, arg, s->command);
    return 2;
}

int cli_parse(const cli_spec *s, int argc, char **argv, cli_operands *ops)
{
    ops->v = calloc((size_t)argc + 1, sizeof *ops->v);
    const char **operands = ops->v;
    int *n = &ops->n;
    struct option *longs = calloc(s->count + 2, sizeof *longs);
    char *shorts = malloc(2 * s->count + 4);
    if (!longs || !shorts || !operands) abort();
    getopt_tables(s, longs, shorts);
    *n = 0;
    cli_spec named = *s;  // s, its messages naming the subcommand once one is read
    char name[128];
    int rc = -1, c;
    opterr = 0;
    optind = 0;  // glibc: start over (a process may parse twice, as the fuzz targets do)
    while (rc < 0 && (c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
        const cli_opt *o = entry(s, c);
        if (c == 1) {
            rc = add_operand(s, &named, name, sizeof name, ops, optarg);
        } else if (c == 'h') {
            cli_help(stdout, s);
            rc = 0;
        } else if (c == ':' || c == '?') {
            rc = bad_option(&named, argv, c);
        } else if (o) {
            rc = take(&named, o, optarg) ? 2 : -1;
        }
    }
    while (rc < 0 && optind < argc) rc = add_operand(s, &named, name, sizeof name, ops, argv[optind++]);  // after "--"
    if (rc < 0 && check_operands(&named, *n)) rc = 2;
    free(longs);
    free(shorts);
    return rc;
}
