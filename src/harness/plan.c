// SPDX-License-Identifier: MIT
// The plan: every combination of the configured values, except that a method's parameter is
// crossed only with the methods that declare it. Point i is read as a mixed-radix number whose
// most significant digit is the first key in table order, so the first swept key varies slowest
// (the kind tables list [method] before [scene]: one method's whole sweep, then the next). The
// radix of a parameter's digit depends on the method its owner key picks: the parameter's value
// count where that method declares it, else 1 (the digit is then 0, and its cells NA). An owner
// comes before its parameters, so every radix is known once the digits before it are.
//
// Counting: the points below digit i (given the digits before it) are the product, over the keys
// from i on, of each one's share — an ordinary key its value count; a parameter whose owner is
// before i its radix under the owner's pick; an owner from i on the sum over its values of the
// product of its parameters' radices under that value (its parameters then count there, not
// again on their own). The sum over the owner's values is what makes `method = naive, octree` with
// `depth = 0..24` 1 + 25 points, not 2 × 25.
#include "cd_core.h"
#include "cd_harness_cli.h"
#include "config_private.h"
#include "harness_private.h"

#include <string.h>

// Saturating product and sum.
static size_t mul_sat(size_t a, size_t b) { return a && b > SIZE_MAX / a ? SIZE_MAX : a * b; }
static size_t add_sat(size_t a, size_t b) { return a > SIZE_MAX - b ? SIZE_MAX : a + b; }

static size_t count_of(const cd_config_key *k) { return k->spec->sweep ? k->count : 1; }

// The radix of parameter key j when its owner takes value v.
static size_t param_radix(const cd_config_key *k, size_t v) { return k->read_by[v] ? count_of(k) : 1; }

// Points below digit i, with pick[0, i) fixed.
static size_t below(const cd_config *c, size_t i, const size_t *pick)
{
    size_t n = 1;
    for (size_t j = i; j < c->key_count; ++j) {
        const cd_config_key *k = &c->keys[j];
        if (k->owner) {
            size_t o = k->owner - 1;
            if (o < i) n = mul_sat(n, param_radix(k, pick[o]));
            continue;  // an owner from i on counts it
        }
        size_t share = 0;
        int owns = 0;
        for (size_t v = 0; v < count_of(k); ++v) {
            size_t m = 1;
            for (size_t q = j + 1; q < c->key_count; ++q)
                if (c->keys[q].owner == j + 1) m = mul_sat(m, param_radix(&c->keys[q], v)), owns = 1;
            share = add_sat(share, m);
        }
        n = mul_sat(n, owns ? share : count_of(k));
    }
    return n;
}

size_t cd_plan_size(const cd_config *c) { return below(c, 0, NULL); }

void cd_point_at(const cd_config *c, size_t index, cd_point *p)
{
    CD_ASSERT(index < cd_plan_size(c));
    p->cfg = c;
    p->index = index;
    size_t rest = index;
    for (size_t i = 0; i < c->key_count; ++i) {
        const cd_config_key *k = &c->keys[i];
        size_t radix = k->owner ? param_radix(k, p->pick[k->owner - 1]) : count_of(k);
        // The values of an owner head blocks of different sizes; any other digit's are equal.
        int owns = i + 1 < c->key_count && c->keys[i + 1].owner == i + 1;
        size_t v = 0;
        if (!owns) {
            p->pick[i] = 0;
            size_t block = below(c, i + 1, p->pick);
            v = rest / block;
            rest %= block;
        } else {
            for (; v + 1 < radix; ++v) {
                p->pick[i] = v;
                size_t block = below(c, i + 1, p->pick);
                if (rest < block) break;
                rest -= block;
            }
        }
        CD_ASSERT(v < radix);
        p->pick[i] = v;
    }
    CD_ASSERT(rest == 0);
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
    CD_ASSERT(p->cfg->keys[i].count > 0 && !p->cfg->keys[i].owner);  // parameters: cd_point_params
    return p->cfg->keys[i].values[p->pick[i]].num;
}

const char *cd_point_text(const cd_point *p, const char *section, const char *name)
{
    size_t i = key_index(p->cfg, section, name);
    CD_ASSERT(!p->cfg->keys[i].owner);  // parameters: cd_point_params
    if (p->cfg->keys[i].count == 0) return "";
    return p->cfg->keys[i].values[p->pick[i]].text;
}

int cd_point_unread(const cd_point *p, size_t k)
{
    const cd_config_key *key = &p->cfg->keys[k];
    return key->owner && !key->read_by[p->pick[key->owner - 1]];
}

const char *cd_point_key_text(const cd_point *p, size_t k)
{
    const cd_config_key *key = &p->cfg->keys[k];
    if (cd_point_unread(p, k)) return "NA";
    if (key->owner && !key->line) return cd_config_param_default(p->cfg, k, p->pick[key->owner - 1]);
    return key->count ? key->values[p->pick[k]].text : "";
}

cd_params cd_point_params(const cd_point *p, const char *section, const char *name, const cd_param_spec *spec,
                          size_t count)
{
    size_t o = key_index(p->cfg, section, name);
    cd_params out = cd_params_defaults(spec, count);
    for (size_t i = o + 1; i < p->cfg->key_count && p->cfg->keys[i].owner == o + 1; ++i) {
        const cd_config_key *k = &p->cfg->keys[i];
        if (!k->line || cd_params_index(&out, k->spec->name) < 0) continue;  // line 0: the method's own default
        char why[300];
        int rc = cd_params_set(&out, k->spec->name, k->values[p->pick[i]].text, why, sizeof why);
        CD_ASSERT(rc == 0);  // the config check tried every value on every listed method
    }
    return out;
}

void cd_point_label(const cd_point *p, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < p->cfg->key_count && n < len; ++i) {
        const cd_config_key *k = &p->cfg->keys[i];
        if (!k->spec->sweep || k->count < 2 || cd_point_unread(p, i)) continue;
        n += (size_t)snprintf(buf + n, len - n, "%s%s=%s", n ? " " : "", k->spec->name, k->values[p->pick[i]].text);
    }
}

uint64_t cd_point_chain(const cd_point *p)
{
    char key[512] = "";
    if (p->cfg->kind->chain) p->cfg->kind->chain(p, key, sizeof key);
    if (!key[0]) return 0;
    uint64_t h = cd_fnv1a(CD_FNV1A_BASIS, key);
    return h ? h : 1;
}
