// SPDX-License-Identifier: MIT
// Loading plugins (cd_plugin.h) into this process: dlopen, the entry point, the ABI and every
// method checked, then the methods added to the registry, all or none. A plugin stays loaded
// until the process exits (its methods are in the registry).
#ifndef CD_PLUGINS_H
#define CD_PLUGINS_H

#include "cd_plugin.h"

#include <stdint.h>

struct cd_kind_set;  // cd_harness.h

/// A plugin file loaded into this process: what meta.ini records of it.
typedef struct cd_plugin_file {
    char path[4096];  ///< absolute path, symbolic links resolved
    uint64_t size;    ///< bytes
    char sha256[65];  ///< SHA-256 of the file's bytes, hex
    const cd_plugin *plugin;
} cd_plugin_file;

/// Load the plugin at path and register its methods. Loading a file already loaded does nothing.
/// Its methods' and variants' parameters may not be named like a key or CSV column of kinds
/// (cd_config_name_taken; NULL: not checked). Returns 0, or -1 with "path: what is wrong: what
/// was expected" in err, and nothing registered.
int cd_plugins_load(const char *path, const struct cd_kind_set *kinds, char *err, size_t err_len);
/// The plugins loaded so far, in load order; *count receives their number.
const cd_plugin_file *cd_plugins_loaded(size_t *count);
/// The loaded plugin that is the file at path (symbolic links resolved), or NULL.
const cd_plugin_file *cd_plugins_find(const char *path);
/// The loaded plugin that provides method m, or NULL (a built-in).
const cd_plugin_file *cd_plugins_method_owner(const cd_broad_method *m);
/// The loaded plugin that provides variant v, or NULL (a built-in).
const cd_plugin_file *cd_plugins_variant_owner(const cd_bvh_variant *v);

#endif
