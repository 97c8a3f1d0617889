// SPDX-License-Identifier: MIT
#include "cd_registry.h"

#ifdef CD_HAVE_PEERS
#include "cd_peers.h"
#endif

#include <string.h>
#include <threads.h>

enum { REGISTRY_MAX = 64 };

typedef struct registry {
    const cd_broad_method *all[REGISTRY_MAX];
    size_t count;
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
}

// The joined list, built on first use (both inputs are constant tables, so it never changes).
static const registry *joined(void)
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

const cd_broad_method *cd_registry_find(const char *name)
{
    const registry *r = joined();
    for (size_t i = 0; i < r->count; ++i)
        if (strcmp(r->all[i]->name, name) == 0) return r->all[i];
    return NULL;
}

cd_broad *cd_registry_create(const char *name, const cd_broad_params *p, const cd_scene *s)
{
    const cd_broad_method *m = cd_registry_find(name);
    return m ? cd_broad_create(m, p, s) : NULL;
}
