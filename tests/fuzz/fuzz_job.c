/* tests/fuzz/fuzz_job.c — libFuzzer target for the job-file reader (daemon/job.c): arbitrary
 * bytes parsed as a job file (dmn_job_parse, every section expanded and every step checked by
 * its stage's rules) must never crash or leak, whatever they hold; an accepted job's steps are
 * formatted back as commands, and an error always says something. The job's folder is a scratch
 * folder holding a small corpus and an encoder config (corpus/job/ seeds name them), so that
 * inputs reach the expansion, not only "no such file". */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/sp.h"
#include "daemon/job.h"

#define FZ_CHECK(c) do { if (!(c)) { fprintf(stderr, "invariant failed: %s (%s:%d)\n", #c, __FILE__, __LINE__); abort(); } } while (0)

static char dir[64];

static void put(const char *name, const char *text)
{
    char p[128];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    if (!f || fputs(text, f) < 0 || fclose(f)) { perror(p); abort(); }
}

static const char *const files[] = { "d.conllu", "san.json", "task.txt" };

static void cleanup(void)
{
    char p[128];
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, files[i]);
        unlink(p);
    }
    rmdir(dir);
}

/* the scratch folder, once (removed at exit): d.conllu (two sentences), san.json, task.txt */
static void setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/fuzz_job.XXXXXX");
    if (!mkdtemp(dir)) { perror("mkdtemp"); abort(); }
    atexit(cleanup);
    put("d.conllu", "1\tThe\tthe\tDET\tDT\t_\t2\tdet\t_\t_\n2\tdog\tdog\tNOUN\tNN\t_\t3\tnsubj\t_\t_\n"
                    "3\truns\trun\tVERB\tVBZ\t_\t0\troot\t_\t_\n\n1\tHi\thi\tINTJ\tUH\t_\t0\troot\t_\t_\n\n");
    put("san.json", "{\"kind\": \"san\", \"d_model\": 16, \"heads\": 2, \"layers\": 2, \"d_ff\": 32, \"seed\": 1}\n");
    put("task.txt", "tr\t0\tone two three\nva\t1\tfour five\nte\t0\tsix\n");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!dir[0]) setup();
    /* the text as dmn_job_load hands it over: NUL-terminated, no NUL inside (load refuses those) */
    if (memchr(data, 0, size)) return 0;
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = 0;
    struct dmn_job job;
    char err[SP_ERRLEN];
    err[0] = 0;
    int rc = dmn_job_parse(text, dir, "fuzz.json", &job, err, sizeof err);
    if (rc == SP_OK) {
        FZ_CHECK(job.n_steps > 0 && job.store && job.out);
        for (int i = 0; i < job.n_steps; i++) {
            struct sp_buf b = { 0 };
            dmn_step_format(&job.steps[i], &b);
            sp_buf_free(&b);
        }
    } else {
        FZ_CHECK(strlen(err) > strlen("fuzz.json: "));
    }
    dmn_job_free(&job);
    free(text);
    return 0;
}
