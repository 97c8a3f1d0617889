// SPDX-License-Identifier: MIT
// The config parser's parts, shared by config.c and method_keys.c (and the columns the runner adds,
// with columns.c).
#ifndef CONFIG_PRIVATE_H
#define CONFIG_PRIVATE_H

#include "cd_harness.h"

/// A `key = value` of the config file that no table of the kind declares (yet).
typedef struct cd_config_entry {
    const char *section, *name, *value;
    int line;
} cd_config_entry;

/// 1 when section holds the parameters of one of c's kind's method keys.
int cd_config_param_section(const cd_config *c, const char *section);

/// The parameters of the methods c's method keys list, as keys right after each method key:
/// given[0, n) are the config's entries in a parameter section that no table declares. An entry
/// that no listed method declares but another method does is a warning; one that no method
/// declares is an error. Each value is checked against the table of every listed method that
/// declares the parameter. 0, or -1 with "path:line: what was expected" in err.
int cd_config_add_params(cd_config *c, const cd_config_entry *given, size_t n, char *err, size_t err_len);

/// The columns the runner writes in every kind's CSVs besides the keys' and the kind's: point
/// first, peak_rss_bytes after summary.csv's kind columns.
enum { CD_RUNNER_COLUMNS = 2 };
extern const char *const cd_runner_columns[CD_RUNNER_COLUMNS];

/// The default that the method named by value v of parameter key k's owner gives it.
const char *cd_config_param_default(const cd_config *c, size_t k, size_t v);

#endif
