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

// An integer key's values are kept as doubles, which hold every integer up to 2^53 exactly; a
// key's bounds beyond that are read as ±2^53, so a value that passes is the number its text says.
#define INT_EXACT 9007199254740992.0

static double int_min(const cd_key_spec *spec) { return fmax(spec->min, -INT_EXACT); }
static double int_max(const cd_key_spec *spec) { return fmin(spec->max, INT_EXACT); }

// "out of range: expected MIN..MAX", an integer key's bounds in full (%.10g made 2^53
// 9.007199255e+15, less than the 2^53 + 1 it refused).
static void out_of_range(const cd_key_spec *spec, const char *tok, char *why, size_t why_len)
{
    if (spec->type == CD_KEY_INT)
        snprintf(why, why_len, "%s out of range: expected %.0f..%.0f", tok, int_min(spec), int_max(spec));
    else
        snprintf(why, why_len, "%s out of range: expected %.10g..%.10g", tok, spec->min, spec->max);
}

// What a decimal text is as an integer, judged on its digits: the double it rounds to would take
// 9007199254740993 (2^53 + 1) for 2^53 and 9007199254740992.5 for an integer.
typedef enum { TEXT_INTEGER, TEXT_FRACTION, TEXT_HUGE, TEXT_NOT_DECIMAL } text_integer;

// Past this many digits an integer is beyond every integer key's bounds (10^16 > 2^53).
enum { HUGE_DIGITS = 16 };

// The integer s writes (an optional sign, digits with an optional point, an optional exponent; a
// text cd_csv_parse_double accepted otherwise, such as hex, is TEXT_NOT_DECIMAL): TEXT_INTEGER
// with *out set when it has no fractional part and at most HUGE_DIGITS digits, else which not.
// Proof of exactness: the digits d[0..n) of mantissa and fraction, the point before d[point], and
// the exponent e give d[j] the weight 10^(point + e - 1 - j); the text is an integer iff every
// non-zero digit has a weight >= 0, and then its digits from the first non-zero one to the units
// (index point + e - 1, zeros past n) are at most HUGE_DIGITS, so *out accumulates them in int64
// without rounding.
static text_integer integer_text(const char *s, long long *out)
{
    while (*s == ' ' || *s == '\t') s++;
    int neg = *s == '-';
    if (*s == '+' || *s == '-') s++;
    const char *mant = s;
    size_t point = strspn(s, "0123456789");
    const char *frac = s + point + (s[point] == '.');
    size_t nfrac = s[point] == '.' ? strspn(frac, "0123456789") : 0;
    if (point + nfrac == 0) return TEXT_NOT_DECIMAL;
    s = frac + nfrac;
    long e = 0;
    if (*s == 'e' || *s == 'E') {
        int eneg = s[1] == '-';
        s += 1 + (s[1] == '+' || s[1] == '-');
        if (!isdigit((unsigned char)*s)) return TEXT_NOT_DECIMAL;
        for (; isdigit((unsigned char)*s); ++s)
            if (e < 1000000) e = e * 10 + (*s - '0');  // saturates: far beyond any digit count
        if (eneg) e = -e;
    }
    while (*s == ' ' || *s == '\t') s++;
    if (*s) return TEXT_NOT_DECIMAL;
    size_t n = point + nfrac;
#define DIGIT(j) ((j) < point ? mant[j] - '0' : frac[(j)-point] - '0')
    size_t first = 0, last = n;
    while (first < n && DIGIT(first) == 0) first++;
    if (first == n) {
        *out = 0;
        return TEXT_INTEGER;
    }
    while (DIGIT(last - 1) == 0) last--;
    long units = (long)point + e - 1;  // index of the units digit
    if ((long)last - 1 > units) return TEXT_FRACTION;
    if (units - (long)first + 1 > HUGE_DIGITS) return TEXT_HUGE;
    long long v = 0;
    for (long j = (long)first; j <= units; ++j) v = v * 10 + ((size_t)j < n ? DIGIT((size_t)j) : 0);
#undef DIGIT
    *out = neg ? -v : v;
    return TEXT_INTEGER;
}

// The value of an integer key's text tok into *x, or -1 with why set.
static int read_integer(const cd_key_spec *spec, const char *tok, double *x, char *why, size_t why_len)
{
    long long n = 0;
    text_integer t = integer_text(tok, &n);
    if (t == TEXT_NOT_DECIMAL || t == TEXT_FRACTION) {
        snprintf(why, why_len, "'%s' is not an integer%s", tok,
                 t == TEXT_NOT_DECIMAL ? ": expected decimal digits" : "");
        return -1;
    }
    // The bounds are integers within 2^53, so they convert to long long exactly, and n within them
    // converts to a double exactly.
    if (t == TEXT_HUGE || n < (long long)ceil(int_min(spec)) || n > (long long)floor(int_max(spec))) {
        out_of_range(spec, tok, why, why_len);
        return -1;
    }
    *x = (double)n;
    return 0;
}

// The shortest text that reads back as v, for a message that quotes a computed value: "12.5",
// not the "12" that %.0f made of it.
static void format_exact(double v, char *buf, size_t len)
{
    for (int p = 1; p <= 17; ++p) {
        snprintf(buf, len, "%.*g", p, v);
        if (strtod(buf, NULL) == v) return;
    }
}

// Check a range's computed value x and add it to the list.
static int push_computed(const cd_key_spec *spec, double x, cd_value **v, size_t *count, size_t *cap, char *why,
                         size_t why_len)
{
    char buf[64];
    if (*count >= MAX_VALUES) {
        snprintf(why, why_len, "range gives more than %d values", MAX_VALUES);
        return -1;
    }
    format_exact(x, buf, sizeof buf);
    if (spec->type == CD_KEY_INT && x != floor(x)) {
        snprintf(why, why_len, "range value '%s' is not an integer", buf);
        return -1;
    }
    if (spec->type == CD_KEY_INT ? x < int_min(spec) || x > int_max(spec) : x < spec->min || x > spec->max) {
        out_of_range(spec, buf, why, why_len);
        return -1;
    }
    if (spec->type == CD_KEY_INT)
        snprintf(buf, sizeof buf, "%.0f", x);
    else
        snprintf(buf, sizeof buf, "%.10g", x);
    push(v, count, cap, buf, x);
    return 0;
}

// A range's start, end or step (what) of an integer key, read exactly into *out. A text of more
// than HUGE_DIGITS digits is beyond every bound: as the start, out of range; as the end or step,
// ±big, a stand-in that the values then meet as they would the number. -1 with why set when it is
// not an integer or is a start out of range.
static int range_integer(const cd_key_spec *spec, const char *what, const char *s, long long big, long long *out,
                         char *why, size_t why_len)
{
    text_integer t = integer_text(s, out);
    if (t == TEXT_NOT_DECIMAL || t == TEXT_FRACTION) {
        snprintf(why, why_len, "range %s '%s' is not an integer: expected an integer for an integer key", what, s);
        return -1;
    }
    if (t == TEXT_HUGE && !big) {
        out_of_range(spec, s, why, why_len);
        return -1;
    }
    if (t == TEXT_HUGE) *out = s[strspn(s, " \t")] == '-' ? -big : big;
    return 0;
}

// Check an integer range's value x against the key's bounds, exactly, and add it to the list.
static int push_integer(const cd_key_spec *spec, long long x, cd_value **v, size_t *count, size_t *cap, char *why,
                        size_t why_len)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", x);
    if (*count >= MAX_VALUES) {
        snprintf(why, why_len, "range gives more than %d values", MAX_VALUES);
        return -1;
    }
    // The bounds are integers within 2^53, so they convert to long long exactly.
    if (x < (long long)ceil(int_min(spec)) || x > (long long)floor(int_max(spec))) {
        out_of_range(spec, buf, why, why_len);
        return -1;
    }
    push(v, count, cap, buf, (double)x);
    return 0;
}

// The values of an integer range lo_s..hi_s +step_s or *step_s (step_s NULL: +1), computed in
// 64-bit integers where the step or factor is one, so no value rounds onto another or onto a
// bound: |start|, |end| <= END_BIG and steps, factors <= STEP_BIG keep every sum in range, and a
// stand-in step or factor STEP_BIG takes any start past any end. A factor that is not an integer
// (16..81 *1.5) goes through doubles.
static int integer_range(const cd_key_spec *spec, const char *lo_s, const char *hi_s, char step_kind,
                         const char *step_s, double step, cd_value **v, size_t *count, size_t *cap, char *why,
                         size_t why_len)
{
    long long lo, hi, n = 1;
    const long long END_BIG = 20000000000000000LL, STEP_BIG = 50000000000000000LL;
    if (range_integer(spec, "start", lo_s, 0, &lo, why, why_len) ||
        range_integer(spec, "end", hi_s, END_BIG, &hi, why, why_len))
        return -1;
    if (lo > hi) {
        snprintf(why, why_len, "empty range %s..%s: expected start <= end", lo_s, hi_s);
        return -1;
    }
    if (step_kind == '+') {
        if (step_s && range_integer(spec, "step", step_s, STEP_BIG, &n, why, why_len)) return -1;
        for (long long x = lo; x <= hi; x += n)
            if (push_integer(spec, x, v, count, cap, why, why_len)) return -1;
        return 0;
    }
    text_integer t = integer_text(step_s, &n);
    if (t == TEXT_INTEGER || t == TEXT_HUGE) {  // an integer factor (a huge one: lo alone)
        if (t == TEXT_HUGE) n = STEP_BIG;
        for (long long x = lo;; x *= n) {  // x <= hi / n, so x·n <= hi
            if (push_integer(spec, x, v, count, cap, why, why_len)) return -1;
            if (x > hi / n) return 0;
        }
    }
    if (push_integer(spec, lo, v, count, cap, why, why_len)) return -1;  // exact, whatever its size
    for (size_t i = 1;; ++i) {
        double x = (double)lo * pow(step, (double)i);
        // An integer computed with rounding errors is that integer: step is within 2^-53 of the
        // factor written, so step^i is within i·2^-53 of its power (relative), pow and the
        // product add at most 2^-52 and 2^-53; (i + 2)·2^-52 covers them (100 * 1.1 is
        // 110.00000000000001, 110 all the same).
        double r = nearbyint(x);
        if (fabs(x - r) <= ((double)i + 2) * 0x1p-52 * fabs(x)) x = r;
        if (x > (double)hi) return 0;
        if (x >= 0x1p52) {  // doubles there are integers: a fraction would go unseen
            snprintf(why, why_len,
                     "range value %.17g: too large to tell an integer with factor %s: expected an integer factor", x,
                     step_s);
            return -1;
        }
        if (push_computed(spec, x, v, count, cap, why, why_len)) return -1;
    }
}

// Expand "a..b [+s|*f]" into values; tok is trimmed.
static int parse_range(const cd_key_spec *spec, char *tok, cd_value **v, size_t *count, size_t *cap, char *why,
                       size_t why_len)
{
    char *dots = strstr(tok, "..");
    *dots = '\0';
    char *hi_s = dots + 2;
    // The step's sign: the first '*' or '+' that is no exponent's sign (1..1e+3 *10 ends at 1000).
    char *op = strpbrk(hi_s, "*+");
    while (op && *op == '+' && op > hi_s && (op[-1] == 'e' || op[-1] == 'E')) op = strpbrk(op + 1, "*+");
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
    if (spec->type == CD_KEY_INT)
        return integer_range(spec, tok, hi_s, step_kind, op ? op + 1 : NULL, step, v, count, cap, why, why_len);
    // Values are computed from the index (lo + i·step, lo·f^i), not accumulated, so a long
    // arithmetic range does not drift; the end is included with a relative tolerance, as the end
    // itself: 0.09..1 +0.07 ends at 0.09 + 13·0.07 = 1.0000000000000002, which is the range's 1
    // (and a key's bound 1 admits it).
    double tol = 1e-9 * fmax(fabs(hi), 1.0);
    for (size_t i = 0;; ++i) {
        double x = step_kind == '+' ? lo + (double)i * step : lo * pow(step, (double)i);
        if (x > hi + tol) return 0;
        int end = x >= hi;
        if (push_computed(spec, end ? hi : x, v, count, cap, why, why_len)) return -1;
        if (end) return 0;
    }
}

// The values [before, count) against those of the list's earlier items: the same value twice
// would be the same point measured twice (10 and 1e1 are one value). A range's own values differ.
static int refuse_repeats(const cd_value *v, size_t before, size_t count, char *why, size_t why_len)
{
    for (size_t j = before; j < count; ++j)
        for (size_t i = 0; i < before; ++i) {
            if (v[i].num != v[j].num) continue;
            if (strcmp(v[i].text, v[j].text) == 0)
                snprintf(why, why_len, "'%s' is listed twice", v[j].text);
            else
                snprintf(why, why_len, "'%s' is listed twice (as '%s' before)", v[j].text, v[i].text);
            return -1;
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
        size_t before = *count;
        if (strstr(tok, "..")) {
            if (!spec->sweep) {
                snprintf(why, why_len, "a range is not allowed here: expected one number");
                return -1;
            }
            if (parse_range(spec, tok, v, count, cap, why, why_len)) return -1;
            return refuse_repeats(*v, before, *count, why, why_len);
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
        if (spec->type == CD_KEY_INT && read_integer(spec, tok, &x, why, why_len)) return -1;
        if (spec->type == CD_KEY_REAL && (x < spec->min || x > spec->max)) {
            out_of_range(spec, tok, why, why_len);
            return -1;
        }
        push(v, count, cap, tok, x);
        return refuse_repeats(*v, before, *count, why, why_len);
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
