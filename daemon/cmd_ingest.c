/* daemon/cmd_ingest.c — synprobe ingest: treebank files into a store. */
#include <dirent.h>
#include <getopt.h>
#include <jansson.h>
#include <string.h>
#include <sys/stat.h>

#include "common/sp.h"
#include "daemon/cli.h"
#include "daemon/ingest_job.h"

static const char *usage_text =
    "usage: synprobe ingest --db DB [--corpus NAME] [--split S] [--format auto|conllu|ptb|dep]\n"
    "                       [--workers N] [--levels T] [--max-words N] [--strict | --repair] [--json] [--quiet]\n"
    "                       [--stdin-name NAME] FILE|DIR|-...\n"
    "\n"
    "Parses CoNLL-U (.conllu), PTB bracketed trees (.mrg) and 3-column dependency files (.dp),\n"
    "computes every cached structure, and stores each file in one transaction.\n"
    "  --corpus NAME   corpus to add to (default: main)\n"
    "  --split S       split recorded on every sentence (train, dev, test, ...)\n"
    "  --format F      override format detection for every file\n"
    "  --workers N     parse/structure threads (default 2); one writer thread writes SQLite\n"
    "  --levels T      PSAN phrase-division levels (default 3)\n"
    "  --max-words N   longer sentences go to the quarantine (default 2048, at most 65535): the cached\n"
    "                  structures of an n-word sentence take about 11*n^2 bytes of a worker's memory\n"
    "  --strict        the first malformed sentence aborts its file; nothing from it is kept\n"
    "  --repair        repair heads deterministically (SPEC-structures 2.1), recording warnings\n"
    "  (default)       malformed sentences go to the quarantine table with file:line and reason\n"
    "  --dry-run       parse and compute without a store (benchmarks); --no-structures: parse only\n"
    "  --stdin-name N  the name '-' (standard input) is stored under (default <stdin>); its extension\n"
    "                  decides the format, its stem the sentences' document\n"
    "A FILE may be a pipe or FIFO, '-' for standard input, or gzip (.gz, or gzip on standard input);\n"
    "each is read once and stored under the SHA-256 of the (decompressed) bytes parsed.\n"
    "A file whose bytes are already in the corpus is skipped. A .mrg and a .dp (or .conllu) with the\n"
    "same name attach to the same sentences, position by position (the pair in one folder first);\n"
    "two files of one kind with the same name (en/dev.conllu, de/dev.conllu) are separate documents.\n"
    "Exit: 0 if sentences were ingested (rejections are reported), 1 if a file failed or nothing\n"
    "was ingested, 2 on usage errors.\n";

static int is_treebank_name(const char *name)
{
    size_t n = strlen(name);
    if (n > 3 && !strcmp(name + n - 3, ".gz")) {   /* dev.conllu.gz: judge by the name inside */
        char inner[1024];
        snprintf(inner, sizeof inner, "%.*s", (int)(n - 3), name);
        return n - 3 < sizeof inner && is_treebank_name(inner);
    }
    const char *dot = strrchr(name, '.');
    if (!dot) return 0;
    return !strcmp(dot, ".conllu") || !strcmp(dot, ".conll") || !strcmp(dot, ".mrg") ||
           !strcmp(dot, ".dp") || !strcmp(dot, ".dep") || !strcmp(dot, ".ptb");
}

/* Per-file report and running totals; ingest_files calls file_done in file order. */
struct totals {
    json_t *jfiles;
    int json, quiet, n_files;
    long sent, att, rej, words, tokens, kept;
    int n_failed, n_done, n_unchanged;
};

static void file_done(int k, const char *path, const struct ingest_result *r, void *ctx)
{
    struct totals *t = ctx;
    (void)k;
    const char *status = r->status == INGEST_DONE ? "ingested" : r->status == INGEST_UNCHANGED ? "unchanged" : "failed";
    if (r->status == INGEST_FAILED) { t->n_failed++; fprintf(stderr, "synprobe ingest: %s\n", r->error); }
    else if (r->status == INGEST_UNCHANGED) t->n_unchanged++;
    else t->n_done++;
    t->sent += r->sum.n_sentences - r->sum.n_attached;
    t->att += r->sum.n_attached;
    t->rej += r->sum.n_rejected;
    t->kept += r->sum.n_kept;
    t->words += r->sum.n_words;
    t->tokens += r->tokens_parsed;
    json_t *jf = json_pack("{s:s, s:s, s:s, s:i, s:i, s:i, s:I}", "path", path, "status", status,
                           "format", r->fmt ? ing_format_name(r->fmt) : "unknown", "sentences", r->sum.n_sentences,
                           "attached", r->sum.n_attached, "rejected", r->sum.n_rejected, "words", (json_int_t)r->sum.n_words);
    if (r->sum.n_kept) json_object_set_new(jf, "kept", json_integer(r->sum.n_kept));
    if (r->status == INGEST_FAILED) json_object_set_new(jf, "error", json_string(r->error));
    json_array_append_new(t->jfiles, jf);
    if (!t->json && !t->quiet && t->n_files <= 20 && r->status != INGEST_FAILED)
        fprintf(stderr, "%s: %s [%s] %d sentences%s, %d rejected, %ld words", path, status,
                ing_format_name(r->fmt), r->sum.n_sentences,
                r->sum.n_attached ? " (attached to existing)" : "", r->sum.n_rejected, r->sum.n_words);
    if (!t->json && !t->quiet && t->n_files <= 20 && r->status != INGEST_FAILED)
        fprintf(stderr, r->sum.n_kept ? "; %d kept: stored identically by an earlier version of this file\n" : "\n",
                r->sum.n_kept);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* FILE stays as given; DIR expands to its treebank files in name order. */
static void expand_arg(const char *arg, char ***list, int *n, int *cap)
{
    struct stat st;
    if (stat(arg, &st) == 0 && S_ISDIR(st.st_mode)) {
        DIR *d = opendir(arg);
        if (d) {
            int start = *n;
            struct dirent *e;
            while ((e = readdir(d))) {
                if (!is_treebank_name(e->d_name)) continue;
                if (*n == *cap) { *cap = *cap ? 2 * *cap : 64; *list = sp_xrealloc(*list, sizeof **list * (size_t)*cap); }
                size_t len = strlen(arg) + strlen(e->d_name) + 2;
                char *p = sp_xmalloc(len);
                snprintf(p, len, "%s/%s", arg, e->d_name);
                (*list)[(*n)++] = p;
            }
            closedir(d);
            qsort(*list + start, (size_t)(*n - start), sizeof **list, cmp_str);
            return;
        }
    }
    if (*n == *cap) { *cap = *cap ? 2 * *cap : 64; *list = sp_xrealloc(*list, sizeof **list * (size_t)*cap); }
    (*list)[(*n)++] = sp_xstrdup(arg);
}

int cmd_ingest(int argc, char **argv)
{
    const char *db_path = NULL, *corpus = "main";
    int json = 0, dry = 0;
    struct ingest_opts o;
    ingest_opts_default(&o);
    enum { O_DRY = 256, O_NOSTRUCT, O_LEVELS, O_CHUNK, O_MAXW, O_STDIN_NAME };
    static const struct option opts[] = {
        { "db", required_argument, 0, 'd' }, { "corpus", required_argument, 0, 'c' },
        { "split", required_argument, 0, 's' }, { "format", required_argument, 0, 'f' },
        { "workers", required_argument, 0, 'w' }, { "strict", no_argument, 0, 'S' },
        { "repair", no_argument, 0, 'R' }, { "json", no_argument, 0, 'j' }, { "quiet", no_argument, 0, 'q' },
        { "dry-run", no_argument, 0, O_DRY }, { "no-structures", no_argument, 0, O_NOSTRUCT },
        { "levels", required_argument, 0, O_LEVELS }, { "chunk-kb", required_argument, 0, O_CHUNK },
        { "max-words", required_argument, 0, O_MAXW },
        { "stdin-name", required_argument, 0, O_STDIN_NAME },
        { "help", no_argument, 0, 'h' }, { 0, 0, 0, 0 },
    };
    optind = 1;
    int ch;
    long v;
    while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (ch) {
        case 'd': db_path = optarg; break;
        case 'c': corpus = optarg; break;
        case 's': o.split = optarg; break;
        case 'f':
            if (ing_format_parse(optarg, &o.fmt)) return sp_fail(SP_EXIT_USAGE, "ingest", "--format: expected auto, conllu, ptb or dep, got '%s'", optarg);
            break;
        case 'w':
            if (sp_parse_int(optarg, 1, 256, &v)) return sp_fail(SP_EXIT_USAGE, "ingest", "--workers: expected 1..256, got '%s'", optarg);
            o.workers = (int)v;
            break;
        case O_LEVELS:
            if (sp_parse_int(optarg, 1, 16, &v)) return sp_fail(SP_EXIT_USAGE, "ingest", "--levels: expected 1..16, got '%s'", optarg);
            o.levels = (int)v;
            break;
        case O_CHUNK:
            if (sp_parse_int(optarg, 1, 1 << 20, &v)) return sp_fail(SP_EXIT_USAGE, "ingest", "--chunk-kb: expected 1..1048576");
            o.chunk_bytes = (size_t)v * 1024;
            break;
        case O_MAXW:
            if (sp_parse_int(optarg, 1, ING_MAX_WORDS_LIMIT, &v))
                return sp_fail(SP_EXIT_USAGE, "ingest", "--max-words: expected 1..%d (a stored sentence has at most %d words), got '%s'",
                               ING_MAX_WORDS_LIMIT, ING_MAX_WORDS_LIMIT, optarg);
            o.max_words = (int)v;
            break;
        case 'S':
        case 'R':
            if (o.mode != SP_MODE_DEFAULT && o.mode != (ch == 'S' ? SP_MODE_STRICT : SP_MODE_REPAIR))
                return sp_fail(SP_EXIT_USAGE, "ingest", "--strict and --repair exclude each other (--strict rejects "
                               "what --repair would mend); give one");
            o.mode = ch == 'S' ? SP_MODE_STRICT : SP_MODE_REPAIR;
            break;
        case O_STDIN_NAME:
            if (!optarg[0] || !strcmp(optarg, "-")) return sp_fail(SP_EXIT_USAGE, "ingest", "--stdin-name: expected a file name, got '%s'", optarg);
            o.stdin_name = optarg;
            break;
        case 'j': json = 1; break;
        case 'q': o.quiet = 1; break;
        case O_DRY: dry = 1; break;
        case O_NOSTRUCT: o.structures = 0; break;
        case 'h': fputs(usage_text, stdout); return SP_EXIT_OK;
        default: fputs(usage_text, stderr); return SP_EXIT_USAGE;
        }
    }
    if (!corpus[0]) return sp_fail(SP_EXIT_USAGE, "ingest", "--corpus: expected a name, got an empty string");
    if (!db_path && !dry) { fputs(usage_text, stderr); return sp_fail(SP_EXIT_USAGE, "ingest", "--db is required"); }
    if (optind >= argc) { fputs(usage_text, stderr); return sp_fail(SP_EXIT_USAGE, "ingest", "no input files"); }

    char **files = NULL;
    int n_files = 0, cap = 0;
    for (int i = optind; i < argc; i++) expand_arg(argv[i], &files, &n_files, &cap);

    char err[SP_ERRLEN];
    struct st_db *db = NULL;
    int64_t corpus_id = 0;
    if (!dry) {
        struct stat sb;
        int fresh = stat(db_path, &sb) != 0 || sb.st_size == 0;   /* created by this run: load in bulk */
        if (st_open(db_path, ST_OPEN_CREATE, &db, err, sizeof err) ||
            (fresh && st_bulk_begin(db, err, sizeof err)) ||
            st_corpus_id(db, corpus, 1, &corpus_id, err, sizeof err)) {
            st_close(db);
            for (int i = 0; i < n_files; i++) free(files[i]);
            free(files);
            return sp_fail(SP_EXIT_INPUT, "ingest", "%s", err);
        }
    }

    struct totals t = { .jfiles = json_array(), .json = json, .quiet = o.quiet, .n_files = n_files };
    double t0 = sp_now();
    ingest_files(db, corpus_id, files, n_files, &o, file_done, &t);
    int bulk_rc = db ? st_bulk_end(db, err, sizeof err) : SP_OK;
    double secs = sp_now() - t0;
    if (bulk_rc) fprintf(stderr, "synprobe ingest: warning: %s\n", err);
    long tot_sent = t.sent, tot_att = t.att, tot_rej = t.rej, tot_words = t.words, tot_tokens = t.tokens;
    int n_failed = t.n_failed, n_done = t.n_done, n_unchanged = t.n_unchanged;
    json_t *jfiles = t.jfiles;
    int ingested_any = tot_sent + tot_att + t.kept > 0 || (n_unchanged > 0 && n_done == 0 && n_failed == 0);
    int rc = (n_failed || !ingested_any) ? SP_EXIT_INPUT : SP_EXIT_OK;
    if (json) {
        json_t *root = json_pack("{s:s?, s:s, s:o, s:{s:i, s:i, s:i, s:I, s:I, s:I, s:I, s:I, s:f, s:f}}", "db", db_path,
                                 "corpus", corpus, "files", jfiles, "totals", "files", n_files, "failed", n_failed,
                                 "unchanged", n_unchanged, "sentences", (json_int_t)tot_sent, "attached", (json_int_t)tot_att, "rejected", (json_int_t)tot_rej,
                                 "words", (json_int_t)tot_words, "tokens_parsed", (json_int_t)tot_tokens, "seconds", secs,
                                 "tokens_per_second", secs > 0 ? tot_tokens / secs : 0.0);
        json_dumpf(root, stdout, JSON_INDENT(2));
        fputc('\n', stdout);
        json_decref(root);
    } else {
        json_decref(jfiles);
        printf("%s: %d files (%d ingested, %d unchanged, %d failed), %ld new sentences, %ld annotations attached "
               "to existing ones, %ld rejected, %ld tokens in %.2fs\n", dry ? "dry run" : corpus, n_files, n_done,
               n_unchanged, n_failed, tot_sent, tot_att, tot_rej, tot_tokens, secs);
    }
    st_close(db);
    for (int i = 0; i < n_files; i++) free(files[i]);
    free(files);
    return rc;
}
