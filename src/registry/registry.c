// SPDX-License-Identifier: MIT
#include "cd_registry.h"

#ifdef CD_HAVE_PEERS
#include "cd_peers.h"
#endif

#include <stdio.h>
#include <string.h>
#include <threads.h>

enum { REGISTRY_MAX = 128 };

typedef struct registry {
    const cd_broad_method *all[REGISTRY_MAX];
    size_t count, builtin;
    const cd_bvh_variant *variants[REGISTRY_MAX];
    size_t variant_count;
} registry;

static void append(registry *r, const cd_broad_method *const *m, size_t n)
{
    CD_ASSERT(r->count + n <= REGISTRY_MAX);
    for (size_t i = 0; i < n; ++i) r->all[r->count++] = m[i];
}

static registry the_registry;
static once_flag the_registry_once = ONCE_FLAG_INIT;

static void join(void)
{
    size_t n;
    const cd_broad_method *const *m = cd_broad_builtin_methods(&n);
    append(&the_registry, m, n);
#ifdef CD_HAVE_PEERS
    m = cd_peers_methods(&n);
    append(&the_registry, m, n);
#endif
    the_registry.builtin = the_registry.count;
    for (const cd_bvh_variant *v = cd_bvh_variants; v->name; ++v) {
        CD_ASSERT(the_registry.variant_count < REGISTRY_MAX);
        the_registry.variants[the_registry.variant_count++] = v;
    }
}

// The joined list, built on first use; it grows only through cd_registry_add, before threads.
static registry *joined(void)
{
    call_once(&the_registry_once, join);
    return &the_registry;
}

const cd_broad_method *const *cd_registry_methods(size_t *count)
{
    const registry *r = joined();
    *count = r->count;
    return r->all;
}

size_t cd_registry_builtin_count(void) { return joined()->builtin; }

const cd_broad_method *cd_registry_find(const char *name)
{
    const registry *r = joined();
    for (size_t i = 0; i < r->count; ++i)
        if (strcmp(r->all[i]->name, name) == 0) return r->all[i];
    return NULL;
}

cd_broad *cd_registry_create(const char *name, const cd_param_settings *set, int threads, const cd_scene *s)
{
    const cd_broad_method *m = cd_registry_find(name);
    if (!m) return NULL;
    cd_params p = cd_broad_params_default(m);
    char why[200];
    int rc = cd_params_apply(&p, set, why, sizeof why);
    CD_ASSERT(rc == 0);
    return cd_broad_create(m, &p, threads, s);
}

const cd_bvh_variant *const *cd_registry_variants(size_t *count)
{
    const registry *r = joined();
    *count = r->variant_count;
    return r->variants;
}

const cd_bvh_variant *cd_registry_variant_find(const char *name)
{
    const registry *r = joined();
    for (size_t i = 0; i < r->variant_count; ++i)
        if (strcmp(r->variants[i]->name, name) == 0) return r->variants[i];
    return NULL;
}

// Where name is taken: "a built-in method", "an earlier plugin's method", or NULL when free.
static const char *method_taken(const registry *r, const cd_broad_method *const *m, size_t upto, const char *name)
{
    for (size_t i = 0; i < r->count; ++i)
        if (strcmp(r->all[i]->name, name) == 0)
            return i < r->builtin ? "the built-in method of that name"
                                  : "the method of that name of a plugin loaded before";
    for (size_t i = 0; i < upto; ++i)
        if (strcmp(m[i]->name, name) == 0) return "another method of that name in the same plugin";
    return NULL;
}

static const char *variant_taken(const registry *r, const cd_bvh_variant *v, size_t upto, const char *name)
{
    size_t builtin = 0;
    while (cd_bvh_variants[builtin].name) ++builtin;
    for (size_t i = 0; i < r->variant_count; ++i)
        if (strcmp(r->variants[i]->name, name) == 0)
            return i < builtin ? "the built-in variant of that name"
                               : "the variant of that name of a plugin loaded before";
    for (size_t i = 0; i < upto; ++i)
        if (strcmp(v[i].name, name) == 0) return "another variant of that name in the same plugin";
    return NULL;
}

int cd_registry_add(const cd_broad_method *const *m, size_t nm, const cd_bvh_variant *v, size_t nv, char *why,
                    size_t why_len)
{
    registry *r = joined();
    for (size_t i = 0; i < nm; ++i) {
        const char *taken = method_taken(r, m, i, m[i]->name);
        if (taken) {
            snprintf(why, why_len, "method '%s' clashes with %s: expected a name of its own", m[i]->name, taken);
            return -1;
        }
    }
    for (size_t i = 0; i < nv; ++i) {
        const char *taken = variant_taken(r, v, i, v[i].name);
        if (taken) {
            snprintf(why, why_len, "hierarchy variant '%s' clashes with %s: expected a name of its own", v[i].name,
                     taken);
            return -1;
        }
    }
    if (r->count + nm > REGISTRY_MAX || r->variant_count + nv > REGISTRY_MAX) {
        snprintf(why, why_len, "%zu methods and %zu variants: the registry holds at most %d of each", r->count + nm,
                 r->variant_count + nv, REGISTRY_MAX);
        return -1;
    }
    append(r, m, nm);
    for (size_t i = 0; i < nm; ++i) cd_broad_check_candidates(m[i]);  // a plugin's code names the cubes
    for (size_t i = 0; i < nv; ++i) r->variants[r->variant_count++] = &v[i];
    return 0;
}
