// SPDX-License-Identifier: MIT
// The plugin loader. Every check runs before anything is registered, so a bad plugin leaves the
// registry as it was; the caller reports err (naming its config line) and exits 2.
#include "cd_plugins.h"
#include "cd_registry.h"
#include "cd_harness_cli.h"  // cd_sha256_hex, cd_config_name_taken

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { PLUGINS_MAX = 32 };
// Parameter settings a variant's plan is checked at on loading (cd_bvh_variant_probes).
enum { PROBES_MAX = 1 + 2 * CD_PARAMS_MAX + 32 };

// Loaded plugins: process-wide, like the registry they feed (loaded before any thread starts).
static cd_plugin_file loaded[PLUGINS_MAX];
static size_t loaded_count;

// A name usable as a config word and a CSV cell: letters, digits and _.
static int good_name(const char *s)
{
    if (!s || !s[0]) return 0;
    for (const char *c = s; *c; ++c)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_')) return 0;
    return 1;
}

// The parameters spec[0, n) of `what` (a method or variant) against the names the kinds use: a
// parameter is a [method] key and a key column, so one named like another key or a column would
// be a second key or column of that name (the runner asserts key columns are unique).
static int params_free(const cd_param_spec *spec, size_t n, const cd_kind_set *kinds, const char *what,
                       const char *name, char *why, size_t len)
{
    char taken[200];
    for (size_t i = 0; kinds && i < n; ++i)
        if (cd_config_name_taken(kinds, spec[i].name, taken, sizeof taken))
            return snprintf(why, len,
                            "%s '%s': parameter '%s' has the name of %s: expected a name no config key or CSV "
                            "column has",
                            what, name, spec[i].name, taken),
                   -1;
    return 0;
}

static int check_method(const cd_broad_method *m, size_t i, const cd_kind_set *kinds, char *why, size_t len)
{
    if (!m) return snprintf(why, len, "methods[%zu] is NULL: expected a cd_broad_method", i), -1;
    if (!good_name(m->name))
        return snprintf(why, len, "methods[%zu] has name '%s': expected letters, digits and _", i,
                        m->name ? m->name : "(NULL)"),
               -1;
    const char *missing = !m->description  ? "description"
                          : !m->create     ? "create"
                          : !m->update     ? "update"
                          : !m->candidates ? "candidates"
                          : !m->destroy    ? "destroy"
                                           : NULL;
    if (missing)
        return snprintf(why, len,
                        "method '%s' has a NULL %s: expected name, description, create, update, candidates "
                        "and destroy",
                        m->name, missing),
               -1;
    char w[300];
    if (!cd_param_table_ok(m->params, m->param_count, w, sizeof w))
        return snprintf(why, len, "method '%s': params: %s", m->name, w), -1;
    return params_free(m->params, m->param_count, kinds, "method", m->name, why, len);
}

static int check_variant(const cd_bvh_variant *v, size_t i, const cd_kind_set *kinds, char *why, size_t len)
{
    if (!good_name(v->name))
        return snprintf(why, len, "variants[%zu] has name '%s': expected letters, digits and _", i,
                        v->name ? v->name : "(NULL)"),
               -1;
    if (!v->summary || !v->plan)
        return snprintf(why, len, "hierarchy variant '%s' has a NULL %s: expected name, summary and plan", v->name,
                        v->summary ? "plan" : "summary"),
               -1;
    char w[300];
    if (!cd_param_table_ok(v->params, v->param_count, w, sizeof w))
        return snprintf(why, len, "hierarchy variant '%s': params: %s", v->name, w), -1;
    if (params_free(v->params, v->param_count, kinds, "hierarchy variant", v->name, why, len)) return -1;
    // The plan at the defaults and at each end of each parameter's range: every value a config may
    // give is checked again where the config is (the kinds' validate) and where a point builds.
    cd_param_settings *probe = cd_alloc(PROBES_MAX * sizeof *probe);
    size_t n = cd_bvh_variant_probes(v, probe, PROBES_MAX);
    int rc = 0;
    for (size_t k = 0; k < n && rc == 0; ++k) {
        cd_bvh_plan plan = cd_bvh_variant_plan(v, &probe[k]);
        if (cd_bvh_plan_check(&plan, w, sizeof w) == 0) continue;
        char at[200] = "its defaults";
        for (uint32_t i = 0, m = 0; i < probe[k].count && m < sizeof at; ++i)
            m += (size_t)snprintf(at + m, sizeof at - m, "%s%s = %s", i ? ", " : "", probe[k].item[i].name,
                                  probe[k].item[i].text);
        snprintf(why, len, "hierarchy variant '%s': its plan at %s: %s", v->name, at, w);
        rc = -1;
    }
    cd_free(probe);
    return rc;
}

static int check_plugin(const cd_plugin *p, const cd_kind_set *kinds, char *why, size_t len)
{
    if (!p) return snprintf(why, len, CD_PLUGIN_ENTRY "() returned NULL: expected a cd_plugin"), -1;
    if (p->abi == 2)
        return snprintf(why, len,
                        "plugin ABI 2 (every method read the fixed struct cd_broad_params), this cdlab's is "
                        "%d (each method and variant declares its own parameters in a cd_param_spec table; create "
                        "takes const cd_params * and the thread count; the plugin reports its build): expected the "
                        "plugin ported and rebuilt against this cdlab's headers (pkg-config cdlab; "
                        "docs/extending.md#plugins)",
                        CD_PLUGIN_ABI),
               -1;
    if (p->abi != CD_PLUGIN_ABI)
        return snprintf(why, len,
                        "plugin ABI %u, this cdlab's is %d: expected the plugin rebuilt against this "
                        "cdlab's headers (pkg-config cdlab)",
                        p->abi, CD_PLUGIN_ABI),
               -1;
    if (p->method_size != sizeof(cd_broad_method) || p->scene_size != sizeof(cd_scene) ||
        p->variant_size != sizeof(cd_bvh_variant))
        return snprintf(why, len,
                        "built with other headers of ABI %d (cd_broad_method %u bytes, cd_scene %u, "
                        "cd_bvh_variant %u; here %zu, %zu, %zu): expected the plugin rebuilt against this cdlab's "
                        "headers",
                        CD_PLUGIN_ABI, p->method_size, p->scene_size, p->variant_size, sizeof(cd_broad_method),
                        sizeof(cd_scene), sizeof(cd_bvh_variant)),
               -1;
    if (!p->build)
        return snprintf(why, len, "no build: expected CD_PLUGIN_VERSION_FIELDS in its cd_plugin initializer"), -1;
    if (!good_name(p->name))
        return snprintf(why, len, "plugin name '%s': expected letters, digits and _", p->name ? p->name : "(NULL)"), -1;
    if ((p->method_count && !p->methods) || (p->variant_count && !p->variants))
        return snprintf(why, len,
                        "a count without its array: expected methods for method_count and variants for "
                        "variant_count"),
               -1;
    if (p->method_count + p->variant_count == 0)
        return snprintf(why, len, "provides no method and no hierarchy variant: expected at least one"), -1;
    for (size_t i = 0; i < p->method_count; ++i)
        if (check_method(p->methods[i], i, kinds, why, len)) return -1;
    for (size_t i = 0; i < p->variant_count; ++i)
        if (check_variant(&p->variants[i], i, kinds, why, len)) return -1;
    return 0;
}

// Size and SHA-256 of the file at path.
static int digest(const char *path, uint64_t *size, char sha[65])
{
    size_t n;
    char *buf = cd_file_read(path, &n);
    if (!buf) return -1;
    cd_sha256_hex(buf, n, sha);
    cd_free(buf);
    *size = n;
    return 0;
}

const cd_plugin_file *cd_plugins_find(const char *path)
{
    char real[PATH_MAX];
    if (!realpath(path, real)) return NULL;
    for (size_t i = 0; i < loaded_count; ++i)
        if (strcmp(loaded[i].path, real) == 0) return &loaded[i];
    return NULL;
}

int cd_plugins_load(const char *path, const cd_kind_set *kinds, char *err, size_t err_len)
{
    char real[PATH_MAX], why[700];
    struct stat st;
    if (stat(path, &st) != 0 || !realpath(path, real)) {
        snprintf(err, err_len, "%s: %s: expected a plugin shared object", path, strerror(errno));
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, err_len, "%s: not a regular file: expected a plugin shared object", path);
        return -1;
    }
    if (cd_plugins_find(real)) return 0;
    uint64_t size;
    char sha[65];
    if (digest(real, &size, sha)) {
        snprintf(err, err_len, "%s: cannot read: %s: expected a readable plugin shared object", path, strerror(errno));
        return -1;
    }
    if (loaded_count == PLUGINS_MAX) {
        snprintf(err, err_len, "%s: %d plugins are loaded already: expected at most %d", path, PLUGINS_MAX,
                 PLUGINS_MAX);
        return -1;
    }
    // RTLD_NOW: a symbol the plugin needs and this program lacks fails here, not mid-run.
    // RTLD_LOCAL: two plugins' own helper functions never bind to each other.
    void *h = dlopen(real, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(err, err_len, "%s: cannot load: %s: expected a shared object built for this machine", path,
                 e ? e : "unknown error");
        return -1;
    }
    dlerror();
    void *sym = dlsym(h, CD_PLUGIN_ENTRY);
    if (!sym) {
        snprintf(err, err_len,
                 "%s: no entry point " CD_PLUGIN_ENTRY ": expected a cdlab plugin exporting "
                 "const cd_plugin *" CD_PLUGIN_ENTRY "(void) (cd_plugin.h)",
                 path);
        dlclose(h);
        return -1;
    }
    const cd_plugin *(*entry)(void);
    memcpy(&entry, &sym, sizeof entry);  // ISO C has no object-to-function pointer cast
    const cd_plugin *p = entry();
    cd_plugin_file *f = &loaded[loaded_count];
    if (check_plugin(p, kinds, why, sizeof why) ||
        cd_registry_add(p->methods, p->method_count, p->variants, p->variant_count, why, sizeof why)) {
        snprintf(err, err_len, "%s: %s", path, why);
        dlclose(h);
        return -1;
    }
    // Registered: from here on the plugin stays (its methods are in the registry).
    *f = (cd_plugin_file){.plugin = p, .size = size};
    snprintf(f->path, sizeof f->path, "%s", real);
    memcpy(f->sha256, sha, sizeof sha);
    loaded_count++;
    return 0;
}

const cd_plugin_file *cd_plugins_loaded(size_t *count)
{
    *count = loaded_count;
    return loaded;
}

const cd_plugin_file *cd_plugins_method_owner(const cd_broad_method *m)
{
    for (size_t i = 0; i < loaded_count; ++i)
        for (size_t k = 0; k < loaded[i].plugin->method_count; ++k)
            if (loaded[i].plugin->methods[k] == m) return &loaded[i];
    return NULL;
}

const cd_plugin_file *cd_plugins_variant_owner(const cd_bvh_variant *v)
{
    for (size_t i = 0; i < loaded_count; ++i)
        for (size_t k = 0; k < loaded[i].plugin->variant_count; ++k)
            if (&loaded[i].plugin->variants[k] == v) return &loaded[i];
    return NULL;
}
