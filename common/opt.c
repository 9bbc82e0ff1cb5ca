/* common/opt.c — option tables: defaults, values, argv, JSON, --help. */
#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/opt.h"

#define FIELD(dst, o, type) ((type *)((char *)(dst) + (o)->offset))

int sp_parse_int(const char *s, long lo, long hi, long *out)
{
    char *end;
    /* digits only (an optional '-'): strtol alone would skip blanks, take '+', and clamp a
     * value beyond 64 bits to LONG_MAX with only errno saying so */
    if (!s || !(isdigit((unsigned char)s[0]) || (s[0] == '-' && isdigit((unsigned char)s[1])))) return -1;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno == ERANGE || *end || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

int sp_parse_size(const char *s, uint64_t min, uint64_t *out)
{
    if (!s || !isdigit((unsigned char)s[0])) return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno == ERANGE) return -1;
    int shift = !*end ? 0 : !strcmp(end, "K") ? 10 : !strcmp(end, "M") ? 20 : !strcmp(end, "G") ? 30
              : !strcmp(end, "T") ? 40 : -1;
    if (shift < 0 || v > (UINT64_MAX >> shift)) return -1;
    v <<= shift;
    if (v < min) return -1;
    *out = v;
    return 0;
}

const struct sp_opt *sp_opt_find(const struct sp_opt *t, const char *name)
{
    for (; t && t->name; t++)
        if (!strcmp(t->name, name)) return t;
    return NULL;
}

/* The index of value in "a|b|c", or -1; an item may have aliases, "conllu/conll". */
static int choice_index(const char *choices, const char *value)
{
    size_t n = strlen(value);
    int k = 0;
    for (const char *p = choices; *p; k++) {
        const char *bar = strchr(p, '|');
        const char *end = bar ? bar : p + strlen(p);
        for (const char *q = p; q < end;) {
            const char *slash = memchr(q, '/', (size_t)(end - q));
            size_t len = (size_t)((slash ? slash : end) - q);
            if (len == n && !strncmp(q, value, n)) return k;
            q = slash ? slash + 1 : end;
        }
        if (!bar) break;
        p = bar + 1;
    }
    return -1;
}

/* "a, b or c" from "a|b/b2|c" (aliases left out) */
static void choices_text(char *out, size_t outlen, const char *choices)
{
    size_t len = 0;
    out[0] = 0;
    for (const char *p = choices; *p && len < outlen;) {
        const char *bar = strchr(p, '|');
        size_t n = bar ? (size_t)(bar - p) : strlen(p);
        const char *slash = memchr(p, '/', n);
        if (slash) n = (size_t)(slash - p);
        const char *sep = p == choices ? "" : bar ? ", " : " or ";
        len += (size_t)snprintf(out + len, outlen - len, "%s%.*s", sep, (int)n, p);
        if (!bar) break;
        p = bar + 1;
    }
}

static void list_append(struct sp_strlist *l, const char *s, size_t n, struct sp_arena *a)
{
    const char **v = sp_arena_alloc(a, sizeof *v * (size_t)(l->n + 2));
    if (l->n) memcpy(v, l->v, sizeof *v * (size_t)l->n);
    v[l->n] = sp_arena_strndup(a, s, n);
    v[l->n + 1] = NULL;
    l->v = v;
    l->n++;
}

/* One item of a LIST (n bytes at s): one of .choices, or an integer in [lo, hi], when the table
 * says so; the same words the single-valued types use in their messages. */
static int list_item_check(const struct sp_opt *o, const char *s, size_t n, char *err, size_t errlen)
{
    char item[128];
    long v;
    snprintf(item, sizeof item, "%.*s", (int)n, s);
    if (o->choices && choice_index(o->choices, item) < 0) {
        char c[256];
        choices_text(c, sizeof c, o->choices);
        snprintf(err, errlen, "--%s: expected %s (comma-separated), got '%.*s'", o->name, c, (int)n, s);
        return -1;
    }
    if (o->lo < o->hi && (n >= sizeof item || sp_parse_int(item, (long)o->lo, (long)o->hi, &v))) {
        snprintf(err, errlen, "--%s: expected integers %lld..%lld (comma-separated), got '%.*s'", o->name, o->lo, o->hi, (int)n, s);
        return -1;
    }
    return 0;
}

int sp_opt_set(const struct sp_opt *o, void *dst, const char *value, struct sp_arena *a, char *err, size_t errlen)
{
    switch (o->type) {
    case SP_OPT_FLAG:
        *FIELD(dst, o, int) = o->flag_value ? o->flag_value : 1;
        return SP_OK;
    case SP_OPT_INT: {
        long v;
        if (sp_parse_int(value, (long)o->lo, (long)o->hi, &v)) {
            if (o->hi == 0x7fffffffffffffffLL && o->lo == 0)
                snprintf(err, errlen, "--%s: expected a non-negative integer, got '%s'", o->name, value);
            else
                snprintf(err, errlen, "--%s: expected %lld..%lld, got '%s'", o->name, o->lo, o->hi, value);
            return SP_EUSAGE;
        }
        *FIELD(dst, o, long) = v;
        return SP_OK;
    }
    case SP_OPT_SIZE: {
        uint64_t v;
        if (sp_parse_size(value, (uint64_t)o->lo, &v)) {
            /* the minimum as typed (64K, not 65536): the message gives the syntax it asks for */
            char min[32];
            long long lo = o->lo;
            const char *unit = "";
            for (const char *u = "KMGT"; *u && lo >= 1024 && lo % 1024 == 0; u++) { lo /= 1024; unit = u; }
            snprintf(min, sizeof min, "%lld%.1s", lo, unit);
            snprintf(err, errlen, "--%s: expected a whole number of bytes of at least %s, optionally with a suffix "
                     "K, M, G or T (powers of 1024; e.g. 512M, 2G), got '%s'", o->name, min, value);
            return SP_EUSAGE;
        }
        *FIELD(dst, o, uint64_t) = v;
        return SP_OK;
    }
    case SP_OPT_DOUBLE: {
        char *end;
        errno = 0;
        double v = value && *value && !isspace((unsigned char)*value) ? strtod(value, &end) : NAN;
        int open = (o->flags & SP_OPTF_HI_OPEN) != 0;
        if (!isfinite(v) || errno == ERANGE || *end ||
            (o->lo < o->hi && (v < (double)o->lo || v > (double)o->hi || (open && v == (double)o->hi)))) {
            if (o->lo < o->hi)
                snprintf(err, errlen, "--%s: expected a number in [%lld, %lld%c, got '%s'", o->name, o->lo, o->hi,
                         open ? ')' : ']', value ? value : "");
            else
                snprintf(err, errlen, "--%s: expected a finite number, got '%s'", o->name, value);
            return SP_EUSAGE;
        }
        *FIELD(dst, o, double) = v;
        return SP_OK;
    }
    case SP_OPT_STR:
    case SP_OPT_PATH:
        if (!value || !value[0]) {
            snprintf(err, errlen, "--%s: expected %s, got an empty string", o->name, o->type == SP_OPT_PATH ? "a path" : "a name");
            return SP_EUSAGE;
        }
        *FIELD(dst, o, const char *) = sp_arena_strdup(a, value);
        return SP_OK;
    case SP_OPT_CHOICE: {
        int k = value ? choice_index(o->choices, value) : -1;
        if (k < 0) {
            char c[256];
            choices_text(c, sizeof c, o->choices);
            snprintf(err, errlen, "--%s: expected %s, got '%s'", o->name, c, value ? value : "");
            return SP_EUSAGE;
        }
        *FIELD(dst, o, int) = k;
        return SP_OK;
    }
    case SP_OPT_LIST: {
        struct sp_strlist *l = FIELD(dst, o, struct sp_strlist);
        const char *p = value ? value : "";
        for (;;) {
            const char *comma = strchr(p, ',');
            size_t n = comma ? (size_t)(comma - p) : strlen(p);
            if (!n) {
                snprintf(err, errlen, "--%s: expected a name or names separated by commas, got '%s'", o->name, value ? value : "");
                return SP_EUSAGE;
            }
            if (list_item_check(o, p, n, err, errlen)) return SP_EUSAGE;
            list_append(l, p, n, a);
            if (!comma) break;
            p = comma + 1;
        }
        return SP_OK;
    }
    case SP_OPT_PATHS:
        if (!value || !value[0]) {
            snprintf(err, errlen, "--%s: expected a path, got an empty string", o->name);
            return SP_EUSAGE;
        }
        list_append(FIELD(dst, o, struct sp_strlist), value, strlen(value), a);
        return SP_OK;
    }
    return SP_EUSAGE;
}

void sp_opt_defaults(const struct sp_opt *t, void *dst, struct sp_arena *a)
{
    for (const struct sp_opt *o = t; o->name; o++) {
        switch (o->type) {
        case SP_OPT_FLAG: case SP_OPT_CHOICE: *FIELD(dst, o, int) = 0; break;
        case SP_OPT_INT: *FIELD(dst, o, long) = 0; break;
        case SP_OPT_SIZE: *FIELD(dst, o, uint64_t) = 0; break;
        case SP_OPT_DOUBLE: *FIELD(dst, o, double) = 0; break;
        case SP_OPT_STR: case SP_OPT_PATH: *FIELD(dst, o, const char *) = NULL; break;
        case SP_OPT_LIST: case SP_OPT_PATHS: *FIELD(dst, o, struct sp_strlist) = (struct sp_strlist){ 0 }; break;
        }
    }
    /* defaults after the zeroing: several flags may share one field */
    for (const struct sp_opt *o = t; o->name; o++) {
        if (!o->def || o->type == SP_OPT_FLAG) continue;
        char err[SP_ERRLEN];
        if (o->type == SP_OPT_INT && (o->flags & SP_OPTF_NODEF)) {   /* a sentinel, outside the bounds */
            *FIELD(dst, o, long) = strtol(o->def, NULL, 10);
            continue;
        }
        if (o->type == SP_OPT_DOUBLE && (o->flags & SP_OPTF_NODEF)) {
            *FIELD(dst, o, double) = strtod(o->def, NULL);
            continue;
        }
        if (sp_opt_set(o, dst, o->def, a, err, sizeof err)) {
            fprintf(stderr, "option table: bad default: %s\n", err);
            abort();
        }
    }
}

/* Whether the field still holds what sp_opt_defaults put there (for "is required"). */
static int at_default(const struct sp_opt *o, const void *dst)
{
    switch (o->type) {
    case SP_OPT_STR: case SP_OPT_PATH: return *FIELD(dst, o, const char *const) == NULL;
    case SP_OPT_LIST: case SP_OPT_PATHS: return FIELD(dst, o, const struct sp_strlist)->n == 0;
    default: return 0;
    }
}

int sp_opt_check_required(const struct sp_opt *t, const void *dst, char *err, size_t errlen)
{
    for (const struct sp_opt *o = t; o->name; o++)
        if ((o->flags & SP_OPTF_REQUIRED) && at_default(o, dst)) {
            snprintf(err, errlen, "--%s is required", o->name);
            return SP_EUSAGE;
        }
    return SP_OK;
}

/* The names of every option in the bound tables, for suggestions. */
static size_t all_names(const struct sp_optbind *b, int nb, const char **names, size_t max)
{
    size_t n = 0;
    for (int i = 0; i < nb; i++)
        for (const struct sp_opt *o = b[i].table; o->name && n < max; o++) names[n++] = o->name;
    return n;
}

int sp_opt_parse_argv(const struct sp_optbind *b, int nb, int argc, char **argv, struct sp_strlist *operands,
                      struct sp_arena *a, char *err, size_t errlen)
{
    /* which option set each field, to refuse repeats and conflicting flags: every occurrence,
     * however many (grown in the arena; a fixed 512 stopped refusing repeats after 512 options) */
    struct seen { const struct sp_opt *opt; void *dst; } *seen = NULL;
    int n_seen = 0, cap_seen = 0;
    for (int i = 0; i < nb; i++) sp_opt_defaults(b[i].table, b[i].dst, a);
    if (operands) *operands = (struct sp_strlist){ 0 };
    int only_operands = 0;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (only_operands || arg[0] != '-' || !strcmp(arg, "-")) {
            if (!operands) {
                snprintf(err, errlen, "unexpected argument '%s'", arg);
                return SP_EUSAGE;
            }
            list_append(operands, arg, strlen(arg), a);
            continue;
        }
        if (!strcmp(arg, "--")) { only_operands = 1; continue; }
        const char *name = arg + (arg[1] == '-' ? 2 : 1);
        const char *eq = strchr(name, '=');
        char namebuf[128];
        snprintf(namebuf, sizeof namebuf, "%.*s", (int)(eq ? (size_t)(eq - name) : strlen(name)), name);
        if (!strcmp(arg, "-h")) snprintf(namebuf, sizeof namebuf, "help");
        const struct sp_opt *o = NULL;
        void *dst = NULL;
        for (int k = 0; k < nb && !o; k++)
            if ((o = sp_opt_find(b[k].table, namebuf))) dst = b[k].dst;
        if (!o || (arg[1] != '-' && strcmp(arg, "-h"))) {
            const char *names[256];
            size_t n = all_names(b, nb, names, 256);
            char sugg[256];
            sp_suggest(sugg, sizeof sugg, namebuf, names, n);
            snprintf(err, errlen, "unknown option '%s'%s%s", arg, sugg[0] ? "; " : "", sugg);
            return SP_EUSAGE;
        }
        /* repeats: a LIST or PATHS option accumulates; anything else is given once */
        for (int s = 0; s < n_seen; s++) {
            if (seen[s].dst != dst) continue;
            if (seen[s].opt == o && o->type != SP_OPT_LIST && o->type != SP_OPT_PATHS) {
                snprintf(err, errlen, "--%s given twice: it takes one value", o->name);
                return SP_EUSAGE;
            }
            if (seen[s].opt != o && seen[s].opt->offset == o->offset && o->type == SP_OPT_FLAG &&
                seen[s].opt->type == SP_OPT_FLAG) {
                snprintf(err, errlen, "--%s and --%s exclude each other; give one", seen[s].opt->name, o->name);
                return SP_EUSAGE;
            }
        }
        int first = 1;
        for (int k = 0; k < n_seen && first; k++) first = !(seen[k].opt == o && seen[k].dst == dst);
        if (first && (o->type == SP_OPT_LIST || o->type == SP_OPT_PATHS))   /* the user's list replaces the default */
            *FIELD(dst, o, struct sp_strlist) = (struct sp_strlist){ 0 };
        if (n_seen == cap_seen) {
            cap_seen = cap_seen ? 2 * cap_seen : 16;
            struct seen *g = sp_arena_alloc(a, sizeof *g * (size_t)cap_seen);
            if (n_seen) memcpy(g, seen, sizeof *g * (size_t)n_seen);
            seen = g;
        }
        seen[n_seen++] = (struct seen){ o, dst };
        if (o->type == SP_OPT_FLAG) {
            if (eq) { snprintf(err, errlen, "--%s takes no value", o->name); return SP_EUSAGE; }
            sp_opt_set(o, dst, NULL, a, err, errlen);
            continue;
        }
        if (o->type == SP_OPT_PATHS && !eq) {   /* every argument up to the next option */
            int start = i + 1;
            while (i + 1 < argc && strncmp(argv[i + 1], "--", 2) != 0) {
                int rc = sp_opt_set(o, dst, argv[++i], a, err, errlen);
                if (rc) return rc;
            }
            if (i + 1 == start) {
                snprintf(err, errlen, "--%s needs at least one %s", o->name, o->metavar ? o->metavar : "value");
                return SP_EUSAGE;
            }
            continue;
        }
        const char *value = eq ? eq + 1 : NULL;
        if (!value) {
            if (i + 1 >= argc) {
                snprintf(err, errlen, "--%s needs a value (%s)", o->name, o->metavar ? o->metavar : "VALUE");
                return SP_EUSAGE;
            }
            value = argv[++i];
        }
        int rc = sp_opt_set(o, dst, value, a, err, errlen);
        if (rc) return rc;
    }
    return SP_OK;
}

void sp_opt_to_json(const struct sp_opt *t, const void *src, json_t *obj)
{
    for (const struct sp_opt *o = t; o->name; o++) {
        if (o->flags & SP_OPTF_CLI) continue;
        json_t *v = NULL;
        switch (o->type) {
        case SP_OPT_FLAG: {
            /* several flags may share a field: each says whether it is the one set */
            int x = *FIELD(src, o, const int);
            v = json_boolean(x == (o->flag_value ? o->flag_value : 1));
            break;
        }
        case SP_OPT_INT: v = json_integer((json_int_t)*FIELD(src, o, const long)); break;
        case SP_OPT_SIZE: v = json_integer((json_int_t)*FIELD(src, o, const uint64_t)); break;
        case SP_OPT_DOUBLE: v = json_real(*FIELD(src, o, const double)); break;
        case SP_OPT_STR: case SP_OPT_PATH: {
            const char *s = *FIELD(src, o, const char *const);
            v = s ? json_string(s) : json_null();
            break;
        }
        case SP_OPT_CHOICE: {
            int k = *FIELD(src, o, const int);
            const char *p = o->choices;
            for (int i = 0; i < k && p; i++) { p = strchr(p, '|'); if (p) p++; }
            size_t n = p ? strcspn(p, "|/") : 0;
            v = p ? json_stringn(p, n) : json_null();
            break;
        }
        case SP_OPT_LIST: case SP_OPT_PATHS: {
            const struct sp_strlist *l = FIELD(src, o, const struct sp_strlist);
            v = json_array();
            for (int i = 0; i < l->n; i++) json_array_append_new(v, json_string(l->v[i]));
            break;
        }
        }
        json_object_set_new(obj, o->name, v);
    }
}

/* "a string", "a number", ... for messages */
static const char *json_type_name(const json_t *v)
{
    return json_is_string(v) ? "a string" : json_is_integer(v) ? "a whole number" : json_is_real(v) ? "a number"
         : json_is_boolean(v) ? "true or false" : json_is_null(v) ? "null" : json_is_array(v) ? "an array" : "an object";
}

/* What one item of list o is, for "expected at least one ...": "integer", "of logreg or mlp",
 * "path", "name". */
static void list_noun(const struct sp_opt *o, char *out, size_t n)
{
    if (o->type == SP_OPT_LIST && o->lo < o->hi) snprintf(out, n, "integer (%lld..%lld)", o->lo, o->hi);
    else if (o->type == SP_OPT_LIST && o->choices) {
        char c[256];
        choices_text(c, sizeof c, o->choices);
        snprintf(out, n, "of %s", c);
    } else snprintf(out, n, "%s", o->type == SP_OPT_PATHS ? "path" : "name");
}

/* One element e of a JSON array for list option o, at JSON path at ("probes[0].seed[1]"):
 * of the item's JSON type (an integer for a list of integers, else a string), then the
 * command line's check of one item; appended. */
static int json_list_item(const struct sp_opt *o, void *dst, json_t *e, const char *at, struct sp_arena *a,
                          char *err, size_t errlen)
{
    struct sp_strlist *l = FIELD(dst, o, struct sp_strlist);
    if (o->type == SP_OPT_LIST && o->lo < o->hi) {
        if (!json_is_integer(e)) {
            /* "seed": ["1"] was the documented form before integers were required: say how to write it */
            const char *sv = json_is_string(e) ? json_string_value(e) : NULL;
            char *end = NULL;
            if (sv && *sv && (strtoll(sv, &end, 10), !*end))
                snprintf(err, errlen, "%s: expected an integer, got the string \"%s\" (write it without quotes: %s)", at, sv, sv);
            else snprintf(err, errlen, "%s: expected an integer, got %s", at, json_type_name(e));
            return SP_EUSAGE;
        }
        json_int_t x = json_integer_value(e);
        if (x < o->lo || x > o->hi) {
            snprintf(err, errlen, "%s: expected an integer in %lld..%lld, got %lld", at, o->lo, o->hi, (long long)x);
            return SP_EUSAGE;
        }
        char num[32];
        snprintf(num, sizeof num, "%lld", (long long)x);
        list_append(l, num, strlen(num), a);
        return SP_OK;
    }
    if (!json_is_string(e)) {
        snprintf(err, errlen, "%s: expected a string, got %s", at, json_type_name(e));
        return SP_EUSAGE;
    }
    const char *s = json_string_value(e);
    if (!s[0]) {
        snprintf(err, errlen, "%s: expected a %s, got an empty string", at, o->type == SP_OPT_PATHS ? "path" : "name");
        return SP_EUSAGE;
    }
    if (o->type == SP_OPT_PATHS) {
        list_append(l, s, strlen(s), a);
        return SP_OK;
    }
    /* a LIST element: its comma-separated names, each checked as the command line checks it */
    char inner[SP_ERRLEN];
    if (sp_opt_set(o, dst, s, a, inner, sizeof inner)) {
        const char *colon = strstr(inner, ": ");
        snprintf(err, errlen, "%s%s", at, colon ? colon : inner);
        char *cs = strstr(err, " (comma-separated)");   /* the command line's word: an element is no such list */
        if (cs) memmove(cs, cs + 18, strlen(cs + 18) + 1);
        return SP_EUSAGE;
    }
    return SP_OK;
}

int sp_opt_set_json(const struct sp_opt *t, void *dst, json_t *obj, const char *path,
                    struct sp_arena *a, char *err, size_t errlen)
{
    if (!json_is_object(obj)) {
        snprintf(err, errlen, "%s: expected an object", path);
        return SP_EUSAGE;
    }
    const char *key;
    json_t *v;
    json_object_foreach(obj, key, v) {
        const struct sp_opt *o = sp_opt_find(t, key);
        if (!o || (o->flags & SP_OPTF_CLI)) {
            const char *names[256];
            size_t n = 0;
            for (const struct sp_opt *p = t; p->name && n < 256; p++)
                if (!(p->flags & SP_OPTF_CLI)) names[n++] = p->name;
            char sugg[256];
            sp_suggest(sugg, sizeof sugg, key, names, n);
            snprintf(err, errlen, "%s.%s: no such option%s%s", path, key, sugg[0] ? "; " : "", sugg);
            return SP_EUSAGE;
        }
        char inner[SP_ERRLEN];
        int rc = SP_OK;
        if (o->type == SP_OPT_FLAG) {
            if (!json_is_boolean(v)) { snprintf(err, errlen, "%s.%s: expected true or false", path, key); return SP_EUSAGE; }
            if (json_is_true(v)) sp_opt_set(o, dst, NULL, a, inner, sizeof inner);
            continue;
        }
        if (o->type == SP_OPT_LIST || o->type == SP_OPT_PATHS) {
            *FIELD(dst, o, struct sp_strlist) = (struct sp_strlist){ 0 };   /* replaces the default */
            int ints = o->type == SP_OPT_LIST && o->lo < o->hi;
            if (json_is_array(v)) {
                if (!json_array_size(v)) {
                    char what[300];
                    list_noun(o, what, sizeof what);
                    snprintf(err, errlen, "%s.%s: expected at least one %s, got an empty array (leave \"%s\" out for its "
                             "default)", path, key, what, key);
                    return SP_EUSAGE;
                }
                size_t i;
                json_t *e;
                json_array_foreach(v, i, e) {
                    char at[512];
                    snprintf(at, sizeof at, "%s.%s[%zu]", path, key, i);
                    if ((rc = json_list_item(o, dst, e, at, a, err, errlen))) return rc;
                }
                continue;
            }
            if (ints && json_is_integer(v)) {   /* one seed: 7 as [7] */
                char at[512];
                snprintf(at, sizeof at, "%s.%s", path, key);
                if ((rc = json_list_item(o, dst, v, at, a, err, errlen))) return rc;
                continue;
            }
            if (ints || !json_is_string(v)) {
                snprintf(err, errlen, "%s.%s: expected %s, got %s", path, key,
                         ints ? "an integer or an array of integers" : "a string or an array of strings", json_type_name(v));
                return SP_EUSAGE;
            }
            rc = sp_opt_set(o, dst, json_string_value(v), a, inner, sizeof inner);
        } else {
            /* the JSON type the option's type asks for: a number for INT and DOUBLE (an integer for
             * INT), a string for names, paths and choices; a SIZE either ("512M" or 1048576) */
            char num[64];
            const char *s = NULL;
            int number = o->type == SP_OPT_INT || o->type == SP_OPT_DOUBLE || o->type == SP_OPT_SIZE;
            int string = o->type != SP_OPT_INT && o->type != SP_OPT_DOUBLE;
            if (string && json_is_string(v)) s = json_string_value(v);
            else if (number && json_is_integer(v)) { snprintf(num, sizeof num, "%lld", (long long)json_integer_value(v)); s = num; }
            else if (number && json_is_real(v)) { snprintf(num, sizeof num, "%.17g", json_real_value(v)); s = num; }
            if (!s) {
                snprintf(err, errlen, "%s.%s: expected %s, got %s", path, key,
                         o->type == SP_OPT_INT ? "a whole number" : o->type == SP_OPT_DOUBLE ? "a number"
                         : o->type == SP_OPT_SIZE ? "a number of bytes or a string such as \"512M\"" : "a string",
                         json_type_name(v));
                return SP_EUSAGE;
            }
            rc = sp_opt_set(o, dst, s, a, inner, sizeof inner);
        }
        if (rc) {
            /* "--name: expected ..." -> "path.name: expected ..." */
            const char *colon = strstr(inner, ": ");
            snprintf(err, errlen, "%s.%s%s", path, key, colon ? colon : inner);
            return rc;
        }
    }
    return SP_OK;
}

/* What --help and the man page show of one option: the metavar ("N", or "auto|conllu|ptb|dep"
 * for a choice without one) and the help text with its default and choices. */
static void help_parts(const struct sp_opt *o, char *mv, size_t mvlen, char *text, size_t textlen)
{
    char def[160] = "";
    if (o->type == SP_OPT_CHOICE && !o->metavar) {       /* "auto|conllu|ptb|dep", aliases left out */
        size_t n = 0;
        for (const char *p = o->choices; *p && n + 1 < mvlen; p++) {
            if (*p == '/') { while (p[1] && p[1] != '|') p++; continue; }
            mv[n++] = *p;
        }
        mv[n] = 0;
    } else {
        snprintf(mv, mvlen, "%s", o->metavar ? o->metavar : "VALUE");
    }
    if (o->def && o->type != SP_OPT_FLAG && !(o->flags & SP_OPTF_NODEF))
        snprintf(def, sizeof def, " (default %s)", o->def);
    if (o->type == SP_OPT_CHOICE && o->metavar) {
        char c[160];
        choices_text(c, sizeof c, o->choices);
        size_t n = strlen(def);
        snprintf(def + n, sizeof def - n, "; one of %s", c);
    }
    snprintf(text, textlen, "%s%s", o->help ? o->help : "", def);
}

void sp_opt_describe(const struct sp_opt *o, char *head, size_t headlen, char *text, size_t textlen)
{
    char mv[160];
    help_parts(o, mv, sizeof mv, text, textlen);
    if (o->type == SP_OPT_FLAG) snprintf(head, headlen, "--%s", o->name);
    else if (o->type == SP_OPT_PATHS) snprintf(head, headlen, "--%s %s...", o->name, mv);
    else snprintf(head, headlen, "--%s %s", o->name, mv);
}

void sp_opt_help(FILE *f, const struct sp_opt *t)
{
    for (const struct sp_opt *o = t; o->name; o++) {
        char head[200], text[1024];
        sp_opt_describe(o, head, sizeof head, text, sizeof text);
        /* the help text, wrapped under a 24-column head */
        int col = fprintf(f, "  %-22s", head);
        if (strlen(head) >= 22) {            /* no blank would be left between head and text */
            fputc('\n', f);
            col = fprintf(f, "%24s", "");
        }
        int first = 1;
        for (const char *p = text; *p;) {
            while (*p == ' ') p++;
            size_t len = strcspn(p, " ");
            if (!len) break;
            if (!first && col + 1 + (int)len > 100) { fprintf(f, "\n%24s", ""); col = 24; }
            else if (!first) { fputc(' ', f); col++; }
            col += fprintf(f, "%.*s", (int)len, p);
            first = 0;
            p += len;
        }
        fputc('\n', f);
    }
}

void sp_roff_text(FILE *f, const char *s, size_t n)
{
    int bol = 1;
    for (size_t i = 0; i < n && s[i]; i++) {
        char ch = s[i];
        if (bol && (ch == '.' || ch == '\'')) fputs("\\&", f);
        if (ch == '\\') fputs("\\e", f);
        else if (ch == '-') fputs("\\-", f);
        else fputc(ch, f);
        bol = ch == '\n';
    }
}

void sp_opt_man(FILE *f, const struct sp_opt *t)
{
    for (const struct sp_opt *o = t; o->name; o++) {
        char mv[160], text[1024];
        help_parts(o, mv, sizeof mv, text, sizeof text);
        fputs(".TP\n\\fB\\-\\-", f);
        sp_roff_text(f, o->name, strlen(o->name));
        fputs("\\fR", f);
        if (o->type != SP_OPT_FLAG) {
            fputs(" \\fI", f);
            sp_roff_text(f, mv, strlen(mv));
            fputs(o->type == SP_OPT_PATHS ? "\\fR...\n" : "\\fR\n", f);
        } else {
            fputc('\n', f);
        }
        sp_roff_text(f, text, strlen(text));
        fputc('\n', f);
    }
}

/* Damerau-free Levenshtein distance, ignoring case, capped (names are short). */
static int edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63) return 99;
    int d[64][64];
    for (size_t i = 0; i <= la; i++) d[i][0] = (int)i;
    for (size_t j = 0; j <= lb; j++) d[0][j] = (int)j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            int cost = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
            int m = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < m) m = d[i][j - 1] + 1;
            if (d[i - 1][j - 1] + cost < m) m = d[i - 1][j - 1] + cost;
            d[i][j] = m;
        }
    return d[la][lb];
}

void sp_suggest(char *out, size_t outlen, const char *word, const char *const *names, size_t n)
{
    out[0] = 0;
    size_t wl = strlen(word);
    int limit = wl <= 3 ? 1 : wl <= 6 ? 2 : 3;
    int best = 99;
    for (size_t i = 0; i < n; i++) {
        int d = edit_distance(word, names[i]);
        /* a typed prefix ("Tree" for TreeDepth) is as good as one edit */
        if (d > 1 && wl >= 3 && strncasecmp(names[i], word, wl) == 0) d = 1;
        if (d < best) best = d;
    }
    if (best > limit) return;
    size_t len = (size_t)snprintf(out, outlen, "did you mean");
    int k = 0;
    for (size_t i = 0; i < n && len < outlen; i++) {
        int d = edit_distance(word, names[i]);
        if (d > 1 && wl >= 3 && strncasecmp(names[i], word, wl) == 0) d = 1;
        if (d != best) continue;
        int dup = 0;
        for (size_t j = 0; j < i; j++) dup |= !strcmp(names[j], names[i]);
        if (dup) continue;
        len += (size_t)snprintf(out + len, outlen - len, "%s'%s'", k ? " or " : " ", names[i]);
        if (++k == 3) break;
    }
    if (len < outlen) snprintf(out + len, outlen - len, "?");
}

void sp_join_names(char *out, size_t outlen, const char *const *names, size_t n, size_t max)
{
    size_t len = 0;
    out[0] = 0;
    for (size_t i = 0; i < n && i < max && len < outlen; i++)
        len += (size_t)snprintf(out + len, outlen - len, "%s%s", i ? ", " : "", names[i]);
    if (n > max && len < outlen) snprintf(out + len, outlen - len, ", ... (%zu in all)", n);
}

/* one word for a shell: as is when it is plain, else in single quotes */
static void put_word(struct sp_buf *b, const char *w, size_t n)
{
    int plain = n > 0;
    for (size_t i = 0; i < n && plain; i++)
        plain = isalnum((unsigned char)w[i]) || strchr("-_./,:=+@%", w[i]);
    if (plain) { sp_buf_put(b, w, n); return; }
    sp_buf_puts(b, "'");
    for (size_t i = 0; i < n; i++) {
        if (w[i] == '\'') sp_buf_puts(b, "'\\''");
        else sp_buf_put(b, &w[i], 1);
    }
    sp_buf_puts(b, "'");
}

/* the shortest %g that reads back as v: a user types --lr 0.1, not 0.10000000000000001 */
static void shortest_double(char *out, size_t outlen, double v)
{
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(out, outlen, "%.*g", prec, v);
        if (strtod(out, NULL) == v) return;
    }
}

void sp_opt_format_args(const struct sp_opt *t, const void *src, const void *defaults, struct sp_buf *b)
{
    for (const struct sp_opt *o = t; o->name; o++) {
        char num[64];
        const char *val = NULL;
        switch (o->type) {
        case SP_OPT_FLAG:
            if (*FIELD(src, o, const int) == (o->flag_value ? o->flag_value : 1) &&
                *FIELD(defaults, o, const int) != *FIELD(src, o, const int))
                sp_buf_printf(b, " --%s", o->name);
            continue;
        case SP_OPT_INT:
            if (*FIELD(src, o, const long) == *FIELD(defaults, o, const long)) continue;
            snprintf(num, sizeof num, "%ld", *FIELD(src, o, const long));
            val = num;
            break;
        case SP_OPT_SIZE:
            if (*FIELD(src, o, const uint64_t) == *FIELD(defaults, o, const uint64_t)) continue;
            snprintf(num, sizeof num, "%llu", (unsigned long long)*FIELD(src, o, const uint64_t));
            val = num;
            break;
        case SP_OPT_DOUBLE:
            if (*FIELD(src, o, const double) == *FIELD(defaults, o, const double)) continue;
            shortest_double(num, sizeof num, *FIELD(src, o, const double));
            val = num;
            break;
        case SP_OPT_STR: case SP_OPT_PATH: {
            const char *s = *FIELD(src, o, const char *const), *d = *FIELD(defaults, o, const char *const);
            if (!s || (d && !strcmp(s, d))) continue;
            val = s;
            break;
        }
        case SP_OPT_CHOICE: {
            int k = *FIELD(src, o, const int);
            if (k == *FIELD(defaults, o, const int)) continue;
            const char *p = o->choices;
            for (int i = 0; i < k && p; i++) { p = strchr(p, '|'); if (p) p++; }
            if (!p) continue;
            sp_buf_printf(b, " --%s ", o->name);
            put_word(b, p, strcspn(p, "|/"));
            continue;
        }
        case SP_OPT_LIST: case SP_OPT_PATHS: {
            const struct sp_strlist *l = FIELD(src, o, const struct sp_strlist), *d = FIELD(defaults, o, const struct sp_strlist);
            int same = l->n == d->n;
            for (int i = 0; same && i < l->n; i++) same = !strcmp(l->v[i], d->v[i]);
            if (!l->n || same) continue;
            sp_buf_printf(b, " --%s", o->name);
            for (int i = 0; i < l->n; i++) {
                sp_buf_puts(b, o->type == SP_OPT_PATHS || i == 0 ? " " : ",");
                put_word(b, l->v[i], strlen(l->v[i]));
            }
            continue;
        }
        }
        sp_buf_printf(b, " --%s ", o->name);
        put_word(b, val, strlen(val));
    }
}
