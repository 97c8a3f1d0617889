// SPDX-License-Identifier: MIT
// The plan: every combination of the configured values. Point i is read as a mixed-radix number
// whose most significant digit is the first key in table order, so the first swept key varies
// slowest (the kind tables list [method] before [scene]: one method's whole sweep, then the next).
#include "cd_core.h"
#include "cd_harness.h"

#include <string.h>

size_t cd_plan_size(const cd_config *c)
{
    size_t n = 1;
    for (size_t i = 0; i < c->key_count; ++i) {
        size_t k = c->keys[i].spec->sweep ? c->keys[i].count : 1;
        if (k && n > SIZE_MAX / k) return SIZE_MAX;
        n *= k;
    }
    return n;
}

void cd_point_at(const cd_config *c, size_t index, cd_point *p)
{
    CD_ASSERT(index < cd_plan_size(c));
    p->cfg = c;
    p->index = index;
    size_t rest = index;
    for (size_t i = c->key_count; i-- > 0;) {
        size_t k = c->keys[i].spec->sweep ? c->keys[i].count : 1;
        p->pick[i] = rest % k;
        rest /= k;
    }
}

static size_t key_index(const cd_config *c, const char *section, const char *name)
{
    for (size_t i = 0; i < c->key_count; ++i)
        if (strcmp(c->keys[i].spec->section, section) == 0 && strcmp(c->keys[i].spec->name, name) == 0) return i;
    CD_ASSERT(!"key not declared by the kind or the common table");
    return 0;
}

double cd_point_num(const cd_point *p, const char *section, const char *name)
{
    size_t i = key_index(p->cfg, section, name);
    CD_ASSERT(p->cfg->keys[i].count > 0);
    return p->cfg->keys[i].values[p->pick[i]].num;
}

const char *cd_point_text(const cd_point *p, const char *section, const char *name)
{
    size_t i = key_index(p->cfg, section, name);
    if (p->cfg->keys[i].count == 0) return "";
    return p->cfg->keys[i].values[p->pick[i]].text;
}

void cd_point_label(const cd_point *p, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < p->cfg->key_count && n < len; ++i) {
        const cd_config_key *k = &p->cfg->keys[i];
        if (!k->spec->sweep || k->count < 2) continue;
        n += (size_t)snprintf(buf + n, len - n, "%s%s=%s", n ? " " : "", k->spec->name, k->values[p->pick[i]].text);
    }
}
