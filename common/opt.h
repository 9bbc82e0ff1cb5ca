/* common/opt.h — option tables: a flag is declared once.
 *
 * A stage's options are a C struct plus a table that names each field: its flag name, type,
 * default, bounds and help text. The same table fills the struct from the command line
 * (sp_opt_parse_argv), from a job file's JSON (sp_opt_set_json), prints --help
 * (sp_opt_help) and the man page (sp_opt_man), and writes the manifest (sp_opt_to_json): one
 * declaration, five readers.
 *
 * Strings a table stores (STR, PATH, LIST, PATHS) are copied into the caller's arena, so the
 * struct lives as long as the arena, whatever the source (argv, a JSON document) was. */
#ifndef SP_OPT_H
#define SP_OPT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/sp.h"

struct json_t;

enum sp_opt_type {
    SP_OPT_FLAG,    /* no value: stores .flag_value (1 when 0) in an int field */
    SP_OPT_INT,     /* long, digits with an optional '-', within [lo, hi] */
    SP_OPT_SIZE,    /* uint64_t bytes: digits with an optional K, M, G or T (powers of 1024), >= lo */
    SP_OPT_DOUBLE,  /* double, finite, within [lo, hi] ([lo, hi) with SP_OPTF_HI_OPEN) when lo < hi */
    SP_OPT_STR,     /* const char *, not empty */
    SP_OPT_PATH,    /* const char *: a file or folder (a job file resolves it against its folder) */
    SP_OPT_CHOICE,  /* int: the index of the value in .choices ("auto|conllu|ptb|dep") */
    SP_OPT_LIST,    /* struct sp_strlist: comma-separated names, repeatable (--task A,B --task C); each
                     * item one of .choices when given, an integer in [lo, hi] when lo < hi */
    SP_OPT_PATHS,   /* struct sp_strlist: the arguments up to the next --option (--mrg a.mrg b.mrg) */
};

/* A list option's values, in the order given; v[n] is NULL. */
struct sp_strlist { const char **v; int n; };

enum {
    SP_OPTF_REQUIRED = 1,   /* sp_opt_check_required reports it missing */
    SP_OPTF_NODEF    = 2,   /* the default is a sentinel ("not given"): --help does not show it */
    SP_OPTF_CLI      = 4,   /* about the terminal (--json, --quiet): not in a job file or manifest */
    SP_OPTF_OUTPUT   = 8,   /* PATH: a file or folder the command writes; every other PATH is an input, "db" the
                             * store (a job's output resolves against its "out"; common/guard.h checks both) */
    SP_OPTF_HI_OPEN  = 16,  /* DOUBLE: hi itself is out of range ([0, 1) for a dropout) */
};

struct sp_opt {
    const char *name;       /* the flag without "--"; also the job file's key */
    enum sp_opt_type type;
    size_t offset;          /* offsetof(struct ..., field) */
    const char *def;        /* default, written as on the command line; NULL: 0, NULL or empty */
    long long lo, hi;       /* INT: bounds; DOUBLE, LIST: bounds (when lo < hi); SIZE: lo is the minimum */
    const char *metavar;    /* "N", "FILE", "NAME": shown by --help */
    const char *help;
    const char *choices;    /* SP_OPT_CHOICE, SP_OPT_LIST: the values, '|'-separated */
    int flag_value;         /* SP_OPT_FLAG: the value stored (several flags may share a field) */
    unsigned flags;
    /* SP_OPTF_OUTPUT: what the path names, given the filled struct: NULL (or no function): one
     * file; else a folder and the names of the files written in it, fnmatch patterns separated
     * by '|' ("report.html"), "*" for anything, subfolders too (common/guard.h) */
    const char *(*holds)(const void *src);
};

/* A table bound to the struct it fills; a command parses several at once (its stage's table and
 * the command line's own). */
struct sp_optbind { const struct sp_opt *table; void *dst; };

/* Set every field of t to its default. Fields outside the table (a stage's command words, an
 * output FILE *) are left alone: zero the struct first (`struct stg_x_opts o = { 0 };`). */
void sp_opt_defaults(const struct sp_opt *t, void *dst, struct sp_arena *a);

/* The entry named name ("db", not "--db"), or NULL. */
const struct sp_opt *sp_opt_find(const struct sp_opt *t, const char *name);

/* Parse one value for option o into dst; a LIST value is appended. On a bad value: SP_EUSAGE and
 * err = "--NAME: expected ..., got 'VALUE'". */
int sp_opt_set(const struct sp_opt *o, void *dst, const char *value, struct sp_arena *a, char *err, size_t errlen);

/* Command-line flags: "--name value", "--name=value", a FLAG alone, "--" ends the options.
 * Operands (arguments that are not options) are collected in order into *operands. Errors
 * (SP_EUSAGE, message in err): an unknown option (with the nearest known name), a missing
 * value, a bad value, a single-valued option given twice, two flags that set one field to
 * different values. Defaults are applied first. */
int sp_opt_parse_argv(const struct sp_optbind *b, int nb, int argc, char **argv, struct sp_strlist *operands,
                      struct sp_arena *a, char *err, size_t errlen);

/* Options marked SP_OPTF_REQUIRED that were left at their default: SP_EUSAGE, "--db is required". */
int sp_opt_check_required(const struct sp_opt *t, const void *dst, char *err, size_t errlen);

/* One object member per option ({"name": value}): number, string, list or bool; SP_OPTF_CLI
 * entries are left out. Into obj (a json_t object). */
void sp_opt_to_json(const struct sp_opt *t, const void *src, struct json_t *obj);

/* The job file's reader: every member of obj must name an option of t (else err names the JSON
 * path and the nearest option). Each value has the JSON type of its option: a whole number
 * (INT), a number (DOUBLE), a number or a string (SIZE: 1048576 or "1M"), a string (STR, PATH,
 * CHOICE), a boolean (FLAG), a string or a non-empty array of strings (LIST, PATHS; a list of
 * integers, such as seeds: an integer or a non-empty array of integers), and is checked exactly as
 * sp_opt_set checks the command line's, an array element by element. path ("encoders[1]")
 * prefixes messages; an element's names its index ("probes[0].seed[1]: expected an integer"). */
int sp_opt_set_json(const struct sp_opt *t, void *dst, struct json_t *obj, const char *path,
                    struct sp_arena *a, char *err, size_t errlen);

/* The command line that sets src, as a user would type it: " --name value" for every option whose
 * value differs from defaults (same table, from sp_opt_defaults), appended to b. Values with
 * blanks or shell metacharacters are single-quoted. The demo prints its steps this way. */
void sp_opt_format_args(const struct sp_opt *t, const void *src, const void *defaults, struct sp_buf *b);

/* One option as --help, the synopsis and docs/commands.md show it: head "--name METAVAR" ("--name"
 * for a flag, the values "a|b|c" for a choice without a metavar, "METAVAR..." for PATHS) and
 * text, the help with its default and choices. */
void sp_opt_describe(const struct sp_opt *o, char *head, size_t headlen, char *text, size_t textlen);

/* --help: one line per option, "  --name METAVAR  help (default: X)", wrapped at 100 columns. */
void sp_opt_help(FILE *f, const struct sp_opt *t);

/* The same as a man page's roff: one ".TP" paragraph per option, "\fB\-\-name\fR \fIMETAVAR\fR"
 * then the help text (synprobe help --man writes the page from the tables this way). */
void sp_opt_man(FILE *f, const struct sp_opt *t);

/* n bytes of s (up to a NUL) as roff text: backslashes and hyphens escaped, a line starting with
 * '.' or '\'' guarded by "\&". */
void sp_roff_text(FILE *f, const char *s, size_t n);

/* Strict integer and size parsers (digits only; see sp_opt_set): 0 ok, -1 bad. */
int sp_parse_int(const char *s, long lo, long hi, long *out);
int sp_parse_size(const char *s, uint64_t min, uint64_t *out);

/* "did you mean" help for a name the user typed: the known names closest to word (edit
 * distance, ignoring case), best first, written as "did you mean 'a'?" or "did you mean 'a' or
 * 'b'?"; "" when none is close. Then the caller usually lists what exists. */
void sp_suggest(char *out, size_t outlen, const char *word, const char *const *names, size_t n);

/* names joined as "a, b, c" (at most max names, then "... (N in all)"), into out. */
void sp_join_names(char *out, size_t outlen, const char *const *names, size_t n, size_t max);

#endif
