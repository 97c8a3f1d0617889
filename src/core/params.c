// SPDX-License-Identifier: MIT
// Method parameters (cd_core.h): a table of specs per method and the values of one instance.
#include "cd_core.h"
#include "cd_csv.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cd_param_check(const cd_param_spec *spec, const char *text, char *why, size_t why_len)
{
    if (spec->type == CD_PARAM_WORD) {
        for (const char *const *w = spec->words; w && *w; ++w)
            if (strcmp(*w, text) == 0) return 0;
        size_t n = (size_t)snprintf(why, why_len, "'%s': expected one of", text);
        for (const char *const *w = spec->words; w && *w && n < why_len; ++w)
            n += (size_t)snprintf(why + n, why_len - n, "%s %s", w == spec->words ? "" : ",", *w);
        return -1;
    }
    // The one reading of a number (cd_csv_parse_double), as config values, CSV fields and options
    // have it: a subnormal is exact and reads as itself; one that rounds to 0 is refused, saying so.
    double v = 0.0;
    cd_number_fault f = cd_csv_parse_double(text, &v);
    int bad = f != CD_NUMBER_OK;
    if (!bad && spec->type == CD_PARAM_INT) bad = v != floor(v);
    if (bad) {
        snprintf(why, why_len, "'%s': expected %s%s", text, spec->type == CD_PARAM_INT ? "an integer" : "a number",
                 cd_number_fault_note(f));
        return -1;
    }
    if (v < spec->min || v > spec->max) {
        snprintf(why, why_len, "%s out of range: expected %.10g to %.10g", text, spec->min, spec->max);
        return -1;
    }
    return 0;
}

int cd_params_index(const cd_params *p, const char *name)
{
    for (uint32_t i = 0; i < p->count; ++i)
        if (strcmp(p->spec[i].name, name) == 0) return (int)i;
    return -1;
}

int cd_params_set(cd_params *p, const char *name, const char *text, char *why, size_t why_len)
{
    int i = cd_params_index(p, name);
    if (i < 0) {
        snprintf(why, why_len, "no parameter '%s': expected one the method declares", name);
        return -1;
    }
    const cd_param_spec *s = &p->spec[i];
    if (cd_param_check(s, text, why, why_len)) return -1;
    if (s->type == CD_PARAM_WORD) {
        for (const char *const *w = s->words; *w; ++w)
            if (strcmp(*w, text) == 0) p->word[i] = *w;
    } else {
        cd_csv_parse_double(text, &p->num[i]);  // cd_param_check's reading, which accepted it
    }
    return 0;
}

cd_params cd_params_defaults(const cd_param_spec *spec, size_t count)
{
    CD_ASSERT(count <= CD_PARAMS_MAX);
    cd_params p = {.spec = spec, .count = (uint32_t)count};
    for (size_t i = 0; i < count; ++i) {
        char why[200];
        int rc = cd_params_set(&p, spec[i].name, spec[i].def, why, sizeof why);
        CD_ASSERT(rc == 0);  // cd_param_table_ok
    }
    return p;
}

double cd_params_num(const cd_params *p, const char *name)
{
    int i = cd_params_index(p, name);
    CD_ASSERT(i >= 0 && p->spec[i].type != CD_PARAM_WORD);
    return p->num[i];
}

const char *cd_params_word(const cd_params *p, const char *name)
{
    int i = cd_params_index(p, name);
    CD_ASSERT(i >= 0 && p->spec[i].type == CD_PARAM_WORD);
    return p->word[i];
}

void cd_params_format(const cd_params *p, size_t i, char *buf, size_t len)
{
    CD_ASSERT(i < p->count);
    if (p->spec[i].type == CD_PARAM_WORD)
        snprintf(buf, len, "%s", p->word[i]);
    else
        snprintf(buf, len, "%.10g", p->num[i]);
}

static int good_name(const char *s)
{
    if (!s || !s[0]) return 0;
    for (const char *c = s; *c; ++c)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_')) return 0;
    return 1;
}

int cd_param_table_ok(const cd_param_spec *spec, size_t count, char *why, size_t why_len)
{
    if (count > CD_PARAMS_MAX)
        return snprintf(why, why_len, "%zu parameters: expected at most %d", count, CD_PARAMS_MAX), 0;
    if (count && !spec) return snprintf(why, why_len, "param_count %zu without params: expected a table", count), 0;
    for (size_t i = 0; i < count; ++i) {
        const cd_param_spec *s = &spec[i];
        if (!good_name(s->name))
            return snprintf(why, why_len, "parameter %zu has name '%s': expected letters, digits and _", i,
                            s->name ? s->name : "(NULL)"),
                   0;
        // A setting holds the name and a value's text in fixed slots (cd_param_settings).
        cd_param_settings *slot = NULL;
        if (strlen(s->name) >= sizeof slot->item[0].name)
            return snprintf(why, why_len, "parameter '%s' has a name of %zu characters: expected at most %zu", s->name,
                            strlen(s->name), sizeof slot->item[0].name - 1),
                   0;
        for (size_t j = 0; j < i; ++j)
            if (strcmp(spec[j].name, s->name) == 0)
                return snprintf(why, why_len, "parameter '%s' declared twice: expected unique names", s->name), 0;
        if (!s->help || !s->def)
            return snprintf(why, why_len, "parameter '%s' has no %s: expected a default and a one-line help", s->name,
                            s->def ? "help" : "default"),
                   0;
        if (s->type != CD_PARAM_INT && s->type != CD_PARAM_REAL && s->type != CD_PARAM_WORD)
            return snprintf(why, why_len, "parameter '%s' has type %d: expected a cd_param_type", s->name,
                            (int)s->type),
                   0;
        if (s->type == CD_PARAM_WORD ? !s->words || !s->words[0] : !(s->min <= s->max))
            return snprintf(why, why_len, "parameter '%s': expected %s", s->name,
                            s->type == CD_PARAM_WORD ? "a NULL-terminated words list" : "min <= max"),
                   0;
        // The ends are values a setting may take (variant probes set each one, and the config's
        // ranges show them): finite, and whole numbers for an INT.
        if (s->type != CD_PARAM_WORD && !(isfinite(s->min) && isfinite(s->max)))
            return snprintf(why, why_len, "parameter '%s' has min %g and max %g: expected finite ends", s->name, s->min,
                            s->max),
                   0;
        if (s->type == CD_PARAM_INT && (s->min != floor(s->min) || s->max != floor(s->max)))
            return snprintf(why, why_len, "parameter '%s' is an INT with min %.17g and max %.17g: expected whole ends",
                            s->name, s->min, s->max),
                   0;
        for (const char *const *word = s->type == CD_PARAM_WORD ? s->words : NULL; word && *word; ++word)
            if (strlen(*word) >= sizeof slot->item[0].text)
                return snprintf(why, why_len, "parameter '%s' has a word of %zu characters: expected at most %zu",
                                s->name, strlen(*word), sizeof slot->item[0].text - 1),
                       0;
        char w[160];
        if (cd_param_check(s, s->def, w, sizeof w))
            return snprintf(why, why_len, "parameter '%s': its default %s", s->name, w), 0;
    }
    return 1;
}

void cd_param_settings_put(cd_param_settings *s, const char *name, const char *fmt, ...)
{
    uint32_t i = 0;
    while (i < s->count && strcmp(s->item[i].name, name) != 0) ++i;
    CD_ASSERT(i < CD_PARAMS_MAX && strlen(name) < sizeof s->item[0].name);
    if (i == s->count) s->count++;
    snprintf(s->item[i].name, sizeof s->item[i].name, "%s", name);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->item[i].text, sizeof s->item[i].text, fmt, ap);
    va_end(ap);
}

int cd_params_apply(cd_params *p, const cd_param_settings *s, char *why, size_t why_len)
{
    for (uint32_t i = 0; s && i < s->count; ++i)
        if (cd_params_index(p, s->item[i].name) >= 0 &&
            cd_params_set(p, s->item[i].name, s->item[i].text, why, why_len))
            return -1;
    return 0;
}

void cd_param_accepts(const cd_param_spec *spec, char *buf, size_t len)
{
    if (spec->type == CD_PARAM_WORD) {
        size_t n = (size_t)snprintf(buf, len, "one of");
        for (const char *const *w = spec->words; *w && n < len; ++w)
            n += (size_t)snprintf(buf + n, len - n, "%s %s", w == spec->words ? "" : ",", *w);
        return;
    }
    snprintf(buf, len, "%s in [%.10g, %.10g]", spec->type == CD_PARAM_INT ? "integer" : "number", spec->min, spec->max);
}
