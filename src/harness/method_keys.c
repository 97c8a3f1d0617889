// SPDX-License-Identifier: MIT
// Method parameters as config keys (cd_method_key): a key that names methods ([method] method, a
// broad phase; [method] hierarchy, a hierarchy variant) brings the parameters its listed methods
// declare, as keys right after it. The plan reads owner and read_by to cross each method only
// with the parameters it declares.
#include "cd_core.h"
#include "config_private.h"

#include <stdio.h>
#include <string.h>

int cd_config_param_section(const cd_config *c, const char *section)
{
    for (size_t i = 0; i < c->kind->method_key_count; ++i)
        if (strcmp(c->kind->method_keys[i].section, section) == 0) return 1;
    return 0;
}

// Method `name`'s parameter `param` of method key mk, or NULL (no such method or parameter).
static const cd_param_spec *method_param(const cd_method_key *mk, const char *name, const char *param)
{
    const cd_param_spec *spec;
    size_t count;
    const char *m;
    for (size_t i = 0; (m = mk->method_at(i, &spec, &count)) != NULL; ++i) {
        if (strcmp(m, name) != 0) continue;
        for (size_t k = 0; k < count; ++k)
            if (strcmp(spec[k].name, param) == 0) return &spec[k];
        return NULL;
    }
    return NULL;
}

// The first method of mk (listed or not) that declares param: its spec, or NULL; its name in *who.
static const cd_param_spec *first_declaring(const cd_method_key *mk, const char *param, const char **who)
{
    const cd_param_spec *spec;
    size_t count;
    const char *m;
    for (size_t i = 0; (m = mk->method_at(i, &spec, &count)) != NULL; ++i)
        for (size_t k = 0; k < count; ++k)
            if (strcmp(spec[k].name, param) == 0) return *who = m, &spec[k];
    return NULL;
}

static int any_declares(const cd_method_key *mk, const char *param)
{
    const char *who;
    return first_declaring(mk, param, &who) != NULL;
}

// The parameters of one method key as it is configured (the methods it lists).
typedef struct param_set {
    const char *names[64];
    size_t count;
} param_set;

static void collect(const cd_method_key *mk, const cd_config_key *owner, param_set *ps)
{
    ps->count = 0;
    for (size_t v = 0; v < owner->count; ++v) {
        const cd_param_spec *spec;
        size_t count;
        const char *m;
        for (size_t i = 0; (m = mk->method_at(i, &spec, &count)) != NULL; ++i) {
            if (strcmp(m, owner->values[v].text) != 0) continue;
            for (size_t k = 0; k < count; ++k) {
                size_t j = 0;
                while (j < ps->count && strcmp(ps->names[j], spec[k].name) != 0) ++j;
                if (j == ps->count && ps->count < sizeof ps->names / sizeof ps->names[0])
                    ps->names[ps->count++] = spec[k].name;
            }
            break;
        }
    }
}

// The key spec of parameter `name` over the listed methods that declare it: the first one's type,
// default, words and help; the widest bounds (each method's own are checked value by value).
static cd_key_spec *make_spec(const cd_method_key *mk, const cd_config_key *owner, const char *name)
{
    cd_key_spec *s = cd_alloc_zero(1, sizeof *s);
    int first = 1;
    for (size_t v = 0; v < owner->count; ++v) {
        const cd_param_spec *p = method_param(mk, owner->values[v].text, name);
        if (!p) continue;
        if (first) {
            static const cd_key_type type[] = {
                [CD_PARAM_INT] = CD_KEY_INT, [CD_PARAM_REAL] = CD_KEY_REAL, [CD_PARAM_WORD] = CD_KEY_WORD};
            *s = (cd_key_spec){mk->section, p->name, type[p->type], p->def, p->min, p->max, p->words, NULL, 1, p->help};
            first = 0;
        }
        if (p->min < s->min) s->min = p->min;
        if (p->max > s->max) s->max = p->max;
    }
    CD_ASSERT(!first);
    return s;
}

// Every value of parameter key k against the table of each listed method that declares it.
static int check_values(const cd_config *c, const cd_method_key *mk, const cd_config_key *owner, const cd_config_key *k,
                        char *err, size_t err_len)
{
    for (size_t v = 0; v < owner->count; ++v) {
        const cd_param_spec *p = method_param(mk, owner->values[v].text, k->spec->name);
        for (size_t i = 0; p && i < k->count; ++i) {
            char why[300];
            if (cd_param_check(p, k->values[i].text, why, sizeof why) == 0) continue;
            cd_config_error(c, k, err, err_len, "[%s] %s of %s %s: %s", mk->section, k->spec->name, mk->name,
                            owner->values[v].text, why);
            return -1;
        }
    }
    return 0;
}

// Parameter key `name` of method key mk (owner at index owner_index of the new key array).
static int make_param_key(cd_config *c, const cd_method_key *mk, const cd_config_key *owner, size_t owner_index,
                          const char *name, const cd_config_entry *given, size_t n, cd_config_key *k, char *err,
                          size_t err_len)
{
    *k = (cd_config_key){.own_spec = make_spec(mk, owner, name), .owner = owner_index + 1};
    k->spec = k->own_spec;
    k->read_by = cd_alloc_zero(owner->count ? owner->count : 1, 1);
    for (size_t v = 0; v < owner->count; ++v) k->read_by[v] = method_param(mk, owner->values[v].text, name) != NULL;
    const char *text = k->spec->def;
    for (size_t i = 0; i < n; ++i)
        if (strcmp(given[i].section, mk->section) == 0 && strcmp(given[i].name, name) == 0)
            text = given[i].value, k->line = given[i].line;
    char why[400];
    if (cd_values_parse(k->spec, text, &k->values, &k->count, why, sizeof why)) {
        cd_config_error(c, k, err, err_len, "[%s] %s: %s", mk->section, name, why);
        return -1;
    }
    return k->line ? check_values(c, mk, owner, k, err, err_len) : 0;
}

// The method key of c's kind that a given entry belongs to: the first whose section holds it and
// some method of which declares it; NULL when none does.
static const cd_method_key *entry_owner(const cd_config *c, const cd_config_entry *e)
{
    for (size_t i = 0; i < c->kind->method_key_count; ++i) {
        const cd_method_key *mk = &c->kind->method_keys[i];
        if (strcmp(mk->section, e->section) == 0 && any_declares(mk, e->name)) return mk;
    }
    return NULL;
}

static const cd_config_key *config_key(const cd_config *c, const char *section, const char *name, size_t *index)
{
    for (size_t i = 0; i < c->key_count; ++i)
        if (strcmp(c->keys[i].spec->section, section) == 0 && strcmp(c->keys[i].spec->name, name) == 0) {
            *index = i;
            return &c->keys[i];
        }
    CD_ASSERT(!"a method key is in its kind's table");
    return NULL;
}

// An entry no table declares: an error naming what the section accepts, or a warning when only
// methods the config does not list read it.
static int unread_entry(cd_config *c, const cd_config_entry *e, char *err, size_t err_len)
{
    const cd_method_key *mk = entry_owner(c, e);
    if (!mk) {
        char keys[600];
        size_t len = 0;
        keys[0] = '\0';
        for (size_t i = 0; i < c->key_count && len < sizeof keys; ++i)
            if (strcmp(c->keys[i].spec->section, e->section) == 0)
                len += (size_t)snprintf(keys + len, sizeof keys - len, "%s%s", len ? ", " : "", c->keys[i].spec->name);
        snprintf(err, err_len,
                 "%s:%d: unknown key '%s' in [%s]: expected one of %s, or a parameter a method "
                 "declares (`cdlab methods`)",
                 c->path, e->line, e->name, e->section, keys);
        return -1;
    }
    // A value no method could take is an error even here: the key is a typo's neighbour.
    const char *who;
    const cd_param_spec *ps = first_declaring(mk, e->name, &who);
    static const cd_key_type type[] = {
        [CD_PARAM_INT] = CD_KEY_INT, [CD_PARAM_REAL] = CD_KEY_REAL, [CD_PARAM_WORD] = CD_KEY_WORD};
    cd_key_spec ks = {mk->section, ps->name, type[ps->type], ps->def, ps->min, ps->max, ps->words, NULL, 1, ps->help};
    cd_value *v;
    size_t nv;
    char why[400];
    int bad = cd_values_parse(&ks, e->value, &v, &nv, why, sizeof why);
    for (size_t i = 0; !bad && i < nv; ++i) bad = cd_param_check(ps, v[i].text, why, sizeof why);
    if (!bad) cd_values_free(v, nv);
    if (bad) {
        snprintf(err, err_len, "%s:%d: [%s] %s of %s %s: %s", c->path, e->line, e->section, e->name, mk->name, who,
                 why);
        return -1;
    }
    size_t oi;
    const cd_config_key *owner = config_key(c, mk->section, mk->name, &oi);
    char listed[300];
    size_t len = 0;
    listed[0] = '\0';
    for (size_t v = 0; v < owner->count && len < sizeof listed; ++v)
        len += (size_t)snprintf(listed + len, sizeof listed - len, "%s%s", v ? ", " : "", owner->values[v].text);
    cd_config_key at = {.line = e->line};
    cd_config_warn(c, &at, "[%s] %s: no listed %s (%s) reads it: it adds no points and no column", e->section, e->name,
                   mk->name, listed);
    return 0;
}

int cd_config_add_params(cd_config *c, const cd_config_entry *given, size_t n, char *err, size_t err_len)
{
    const cd_kind *kind = c->kind;
    param_set ps[8];
    CD_ASSERT(kind->method_key_count <= 8);
    size_t extra = 0;
    for (size_t m = 0; m < kind->method_key_count; ++m) {
        size_t oi;
        collect(&kind->method_keys[m], config_key(c, kind->method_keys[m].section, kind->method_keys[m].name, &oi),
                &ps[m]);
        extra += ps[m].count;
    }
    // Entries the listed methods do not read.
    for (size_t i = 0; i < n; ++i) {
        int read = 0;
        for (size_t m = 0; m < kind->method_key_count && !read; ++m)
            for (size_t j = 0; j < ps[m].count && !read; ++j)
                read = strcmp(kind->method_keys[m].section, given[i].section) == 0 &&
                       strcmp(ps[m].names[j], given[i].name) == 0;
        if (!read && unread_entry(c, &given[i], err, err_len)) return -1;
    }
    if (!extra) return 0;
    cd_config_key *keys = cd_alloc_zero(c->key_count + extra, sizeof *keys);
    size_t k = 0;
    int bad = 0;
    for (size_t i = 0; i < c->key_count; ++i) {
        keys[k++] = c->keys[i];
        for (size_t m = 0; m < kind->method_key_count; ++m) {
            const cd_method_key *mk = &kind->method_keys[m];
            if (strcmp(c->keys[i].spec->section, mk->section) || strcmp(c->keys[i].spec->name, mk->name)) continue;
            size_t owner = k - 1;
            for (size_t j = 0; j < ps[m].count; ++j, ++k)
                if (!bad)
                    bad = make_param_key(c, mk, &c->keys[i], owner, ps[m].names[j], given, n, &keys[k], err, err_len);
        }
    }
    CD_ASSERT(k == c->key_count + extra);
    cd_free(c->keys);
    c->keys = keys;
    c->key_count = k;
    return bad ? -1 : 0;
}

const char *cd_config_param_default(const cd_config *c, size_t k, size_t v)
{
    const cd_config_key *key = &c->keys[k], *owner = &c->keys[key->owner - 1];
    for (size_t m = 0; m < c->kind->method_key_count; ++m) {
        const cd_method_key *mk = &c->kind->method_keys[m];
        if (strcmp(mk->section, owner->spec->section) || strcmp(mk->name, owner->spec->name)) continue;
        const cd_param_spec *p = method_param(mk, owner->values[v].text, key->spec->name);
        if (p) return p->def;
    }
    return key->spec->def;
}
