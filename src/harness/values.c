// SPDX-License-Identifier: MIT
// Value lists of config keys: `a, b, c`, arithmetic ranges `a..b` / `a..b +s` and geometric
// ranges `a..b *f`, each checked against the key's type and bounds.
#include "cd_core.h"
#include "cd_csv.h"  // cd_csv_parse_double: the one finite-number parser, also for config values
#include "cd_harness_cli.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <stdarg.h>
#include <string.h>

// A range expands to at most this many values so a typo (`1..1e9`) fails instead of eating memory.
enum { MAX_VALUES = 10000 };

static char *dup_range(const char *s, size_t n)
{
    while (n && isspace((unsigned char)*s)) s++, n--;
    while (n && isspace((unsigned char)s[n - 1])) n--;
    char *out = cd_alloc(n + 1);
    memcpy(out, s, n);
    out[n] = '\0';
    return out;
}

static void push(cd_value **v, size_t *count, size_t *cap, const char *text, double num)
{
    cd_grow((void **)v, sizeof **v, cap, *count + 1);
    size_t n = strlen(text);
    (*v)[*count].text = cd_alloc(n + 1);
    memcpy((*v)[*count].text, text, n + 1);
    (*v)[*count].num = num;
    (*count)++;
}

static void format_number(const cd_key_spec *spec, double v, char *buf, size_t len)
{
    if (spec->type == CD_KEY_INT)
        snprintf(buf, len, "%.0f", v);
    else
        snprintf(buf, len, "%.10g", v);
}

static int check_number(const cd_key_spec *spec, const char *tok, double v, char *why, size_t why_len)
{
    if (spec->type == CD_KEY_INT && v != floor(v)) {
        snprintf(why, why_len, "'%s' is not an integer", tok);
        return -1;
    }
    if (v < spec->min || v > spec->max) {
        snprintf(why, why_len, "%s out of range: expected %.10g..%.10g", tok, spec->min, spec->max);
        return -1;
    }
    return 0;
}

// Expand "a..b [+s|*f]" into values; tok is trimmed.
static int parse_range(const cd_key_spec *spec, char *tok, cd_value **v, size_t *count, size_t *cap, char *why,
                       size_t why_len)
{
    char *dots = strstr(tok, "..");
    *dots = '\0';
    char *hi_s = dots + 2;
    char *op = strpbrk(hi_s, "*+");
    char step_kind = op ? *op : '+';
    double lo, hi, step = 1.0;
    if (op) *op = '\0';
    cd_number_fault f = cd_csv_parse_double(tok, &lo);
    if (!f) f = cd_csv_parse_double(hi_s, &hi);
    if (!f && op) f = cd_csv_parse_double(op + 1, &step);
    if (f) {
        snprintf(why, why_len, "bad range: expected 'a..b', 'a..b +step' or 'a..b *factor' with numbers%s",
                 cd_number_fault_note(f));
        return -1;
    }
    if (lo > hi) {
        snprintf(why, why_len, "empty range %.10g..%.10g: expected start <= end", lo, hi);
        return -1;
    }
    if (step_kind == '+' && !(step > 0)) {
        snprintf(why, why_len, "range step %.10g: expected a step > 0", step);
        return -1;
    }
    if (step_kind == '*' && (!(step > 1) || !(lo > 0))) {
        snprintf(why, why_len, "geometric range needs start > 0 and factor > 1");
        return -1;
    }
    // Values are computed from the index (lo + i·step, lo·f^i), not accumulated, so a long
    // arithmetic range does not drift; the end is included with a relative tolerance.
    double tol = 1e-9 * fmax(fabs(hi), 1.0);
    for (size_t i = 0;; ++i) {
        double x = step_kind == '+' ? lo + (double)i * step : lo * pow(step, (double)i);
        if (spec->type == CD_KEY_INT) x = round(x * 1e9) / 1e9;  // keep 250·2^k integral
        if (x > hi + tol) break;
        if (*count >= MAX_VALUES) {
            snprintf(why, why_len, "range gives more than %d values", MAX_VALUES);
            return -1;
        }
        char buf[64];
        format_number(spec, x, buf, sizeof buf);
        if (check_number(spec, buf, x, why, why_len)) return -1;
        push(v, count, cap, buf, x);
    }
    return 0;
}

// Words: letters, digits and _ - : . / + = only (PAPI native events use : and =), so a stray
// quote or space is caught.
int cd_config_is_word(const char *s)
{
    for (; *s; ++s)
        if (!isalnum((unsigned char)*s) && !strchr("_-:./+=", *s)) return 0;
    return 1;
}

static int parse_token(const cd_key_spec *spec, char *tok, cd_value **v, size_t *count, size_t *cap, char *why,
                       size_t why_len)
{
    if (spec->type == CD_KEY_INT || spec->type == CD_KEY_REAL) {
        if (strstr(tok, "..")) {
            if (!spec->sweep) {
                snprintf(why, why_len, "a range is not allowed here: expected one number");
                return -1;
            }
            return parse_range(spec, tok, v, count, cap, why, why_len);
        }
        double x;
        cd_number_fault f = cd_csv_parse_double(tok, &x);
        const char *what = spec->type == CD_KEY_INT ? "an integer" : "a number";
        if (f == CD_NUMBER_ROUNDS_TO_ZERO) {  // a number all the same: not "is not a number"
            snprintf(why, why_len, "'%s': expected %s%s", tok, what, cd_number_fault_note(f));
            return -1;
        }
        if (f) {
            snprintf(why, why_len, "'%s' is not a number: expected %s", tok, what);
            return -1;
        }
        if (check_number(spec, tok, x, why, why_len)) return -1;
        push(v, count, cap, tok, x);
        return 0;
    }
    if (!cd_config_is_word(tok)) {
        snprintf(why, why_len, "'%s' is not a word: expected letters, digits, _ - : . / + =", tok);
        return -1;
    }
    if (spec->words) {
        int ok = 0;
        for (const char *const *w = spec->words; *w; ++w) ok |= strcmp(*w, tok) == 0;
        if (!ok) {
            size_t n = (size_t)snprintf(why, why_len, "'%s' is not allowed: expected one of", tok);
            for (const char *const *w = spec->words; *w && n < why_len; ++w)
                n += (size_t)snprintf(why + n, why_len - n, "%s %s", w == spec->words ? "" : ",", *w);
            return -1;
        }
    } else if (spec->check) {
        const char *expected = spec->check(tok);
        if (expected) {
            snprintf(why, why_len, "'%s' is not allowed: expected %s", tok, expected);
            return -1;
        }
    }
    for (size_t i = 0; i < *count; ++i)
        if (strcmp((*v)[i].text, tok) == 0) {
            snprintf(why, why_len, "'%s' is listed twice", tok);
            return -1;
        }
    push(v, count, cap, tok, 0.0);
    return 0;
}

int cd_values_parse(const cd_key_spec *spec, const char *text, cd_value **out, size_t *count, char *why, size_t why_len)
{
    *out = NULL;
    *count = 0;
    size_t cap = 0;
    if (spec->type == CD_KEY_TEXT || spec->type == CD_KEY_PATH) {
        char *t = dup_range(text, strlen(text));
        int empty = t[0] == '\0';
        if (!empty) push(out, count, &cap, t, 0.0);
        cd_free(t);
        if (empty && spec->type == CD_KEY_TEXT) {
            snprintf(why, why_len, "empty value: expected text");
            return -1;
        }
        return 0;
    }
    const char *s = text;
    int rc = 0;
    for (;;) {
        const char *comma = strchr(s, ',');
        size_t n = comma ? (size_t)(comma - s) : strlen(s);
        char *tok = dup_range(s, n);
        if (tok[0] == '\0') {
            int lone_empty = !comma && *count == 0 && s == text;
            cd_free(tok);
            if (lone_empty && spec->type == CD_KEY_WORDS) break;  // `counters =` means none
            snprintf(why, why_len, "%s",
                     lone_empty ? "empty list: expected at least one value"
                                : "empty item in list: expected value, value, ...");
            rc = -1;
            break;
        }
        rc = parse_token(spec, tok, out, count, &cap, why, why_len);
        cd_free(tok);
        if (rc) break;
        if (!comma) break;
        s = comma + 1;
    }
    if (!rc && *count > 1 && !spec->sweep && spec->type != CD_KEY_WORDS) {
        snprintf(why, why_len, "%zu values given: this key takes exactly one", *count);
        rc = -1;
    }
    if (rc) {
        cd_values_free(*out, *count);
        *out = NULL;
        *count = 0;
    }
    return rc;
}

void cd_values_free(cd_value *v, size_t count)
{
    for (size_t i = 0; i < count; ++i) cd_free(v[i].text);
    cd_free(v);
}

// ---------------------------------------------------------------------------------------------
// Messages about a config's keys: errors stop the config, warnings go with it (meta.ini).

void cd_config_error(const cd_config *c, const cd_config_key *k, char *err, size_t err_len, const char *fmt, ...)
{
    int n =
        k && k->line ? snprintf(err, err_len, "%s:%d: ", c->path, k->line) : snprintf(err, err_len, "%s:1: ", c->path);
    if (n < 0 || (size_t)n >= err_len) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err + n, err_len - (size_t)n, fmt, ap);
    va_end(ap);
}

void cd_config_key_text(const cd_config_key *k, char *buf, size_t len)
{
    size_t used = (size_t)snprintf(buf, len, "%s =", k->spec->name);
    for (size_t i = 0; i < k->count && used < len; ++i)
        used += (size_t)snprintf(buf + used, len - used, "%s %s", i ? "," : "", k->values[i].text);
}

int cd_config_refuse_unread_sweep(const cd_config *c, const cd_config_key *k, const char *reader, char *err,
                                  size_t err_len)
{
    if (!k || k->count < 2) return 0;
    cd_config_error(c, k, err, err_len,
                    "[%s] %s takes %zu values, but %s does not read it: its points would repeat each other (set one "
                    "value, or leave the key out)",
                    k->spec->section, k->spec->name, k->count, reader);
    return -1;
}

void cd_config_warn(cd_config *c, const cd_config_key *k, const char *fmt, ...)
{
    char msg[1024];
    int n = snprintf(msg, sizeof msg, "%s:%d: ", c->path, k && k->line ? k->line : 1);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg + n, sizeof msg - (size_t)n, fmt, ap);
    va_end(ap);
    c->warnings = cd_realloc(c->warnings, (c->warning_count + 1) * sizeof *c->warnings);
    size_t len = strlen(msg);
    char *copy = cd_alloc(len + 1);
    memcpy(copy, msg, len + 1);
    c->warnings[c->warning_count++] = copy;
}
