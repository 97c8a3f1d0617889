// SPDX-License-Identifier: MIT
// The one option parser of the cdlab subcommands: each command declares its options in a table
// (name, value, check, help) and cli_parse reads argv with getopt_long from that table and prints
// the command's --help from it, so the help cannot list an option the parser does not take.
#ifndef CLI_OPTIONS_H
#define CLI_OPTIONS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/// What an option's value is and where it goes.
typedef enum cli_opt_type {
    CLI_FLAG,   ///< no value; *(int *)dest = 1
    CLI_TEXT,   ///< *(const char **)dest = value (the last one given wins)
    CLI_COUNT,  ///< *(uint64_t *)dest = value, decimal digits only, in [lo, hi]
    CLI_REAL,   ///< *(double *)dest = value, finite, in [min, max]
    CLI_WORD,   ///< *(const char **)dest = value, one of words (NULL-terminated)
    CLI_CALL,   ///< call(value, ctx, err, len) for each occurrence (repeatable options, own checks)
} cli_opt_type;

/// A CLI_CALL option's handler: 0, or -1 with what was expected in err ("" when it said why itself).
typedef int (*cli_opt_fn)(const char *value, void *ctx, char *err, size_t len);

/// One option of a command's table.
typedef struct cli_opt {
    const char *name;  ///< long name without "--", e.g. "frame"
    char short_name;   ///< e.g. 'o' for -o, or 0
    const char *arg;   ///< the value's name in --help ("FILE"); NULL for a flag (CLI_FLAG)
    const char *help;  ///< --help text; each '\n' starts a continuation line under the first
    cli_opt_type type;
    void *dest;                ///< see cli_opt_type; NULL for CLI_CALL
    uint64_t lo, hi;           ///< CLI_COUNT's range
    double min, max;           ///< CLI_REAL's range
    const char *const *words;  ///< CLI_WORD's accepted values
    cli_opt_fn call;           ///< CLI_CALL's handler
    void *ctx;                 ///< its context
} cli_opt;

/// A command: its usage line, the text around its option table, its options and operands.
typedef struct cli_spec {
    const char *command;  ///< "run": messages start "cdlab run: "
    const char *usage;    ///< what follows "usage: cdlab <command> " (may hold "\n" + indent)
    const char *about;    ///< paragraphs before the options (ends with "\n"), or NULL
    const cli_opt *opts;
    size_t count;
    const char *after;     ///< paragraphs after the options (starts without a blank line), or NULL
    int min_operands;      ///< operands (arguments that are not options) required ...
    int max_operands;      ///< ... and allowed; -1: any number
    const char *operands;  ///< what the operands are, for the message when their count is wrong
    /// NULL, or the words the first operand must be (NULL-terminated): a subcommand, refused at
    /// once when unknown, which names every later message ("cdlab trace import: ").
    const char *const *subcommands;
} cli_spec;

/// The operands of a command line, in order (cli_parse allocates v; cli_operands_free frees it).
typedef struct cli_operands {
    const char **v;
    int n;
} cli_operands;

/// Read argv (argv[0] the command's name) by s's table with getopt_long: options may come before
/// or after the operands, "--" ends them, --opt=value and unique abbreviations of long names are
/// taken. Fills each option's dest and puts the operands, in order, into *ops (free it with
/// cli_operands_free whatever the result). Returns -1 to go on; 0 after printing --help (-h, --help) on
/// stdout; 2 after saying on stderr what is wrong (an unknown option, named by optopt inside a
/// cluster of short options; a missing or bad value; a value given to a flag; a wrong operand
/// count: `cdlab <command>: ...`, or `cdlab <command> <subcommand>: ...` once s->subcommands' first
/// operand is read; an unknown subcommand, whatever follows it).
int cli_parse(const cli_spec *s, int argc, char **argv, cli_operands *ops);
void cli_operands_free(cli_operands *ops);

/// Print s's --help: the usage line, the about text, the option table, the after text.
void cli_help(FILE *f, const cli_spec *s);

/// Strict parsers the tables use, for values given elsewhere too: 0, or -1.
int cli_parse_count(const char *text, uint64_t lo, uint64_t hi, uint64_t *out);

#endif
