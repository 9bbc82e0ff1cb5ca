/* tests/tools/probes_sptrain_dump.c — driver for the NumPy reference comparison of the trained
 * structural probes (tests/reference/structprobe_ref.py, tests/cli/t3048-structprobe-ref.sh).
 * It goes through probes/structprobe_train.h only.
 *
 *   probes_sptrain_dump KIND RANK BATCH EPOCHS LR SEED DIR
 *
 * DIR holds (written by structprobe_ref.py): {train,dev}_X.npy float32 [words, d],
 * {train,dev}_off.npy int32 [sentences+1], {train,dev}_head.npy int32 [words] (0-based, -1 root).
 * Writes DIR/c_proj.npy float32 [d, k] (the checkpoint) and DIR/c_curve.npy float64 [epochs, 2]
 * (train_mean, dev_mean per epoch), and prints "epochs E best_epoch B steps S lr LR".
 * A driver, not a test. */
#include "common/npy.h"
#include "common/sp.h"
#include "probes/structprobe_train.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct split { struct sp_npy X, off, head; long *off64; };

static int load(const char *dir, const char *name, struct split *s, struct prb_sp_set *set, char *err, size_t n)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/%s_X.npy", dir, name);
    if (sp_npy_read(p, &s->X, err, n)) return -1;
    snprintf(p, sizeof p, "%s/%s_off.npy", dir, name);
    if (sp_npy_read(p, &s->off, err, n)) return -1;
    snprintf(p, sizeof p, "%s/%s_head.npy", dir, name);
    if (sp_npy_read(p, &s->head, err, n)) return -1;
    if (s->X.dtype != SP_DT_F32 || s->X.ndim != 2 || s->off.dtype != SP_DT_I32 || s->head.dtype != SP_DT_I32) {
        snprintf(err, n, "%s: expected float32 X [words, d] and int32 off, head", name);
        return -1;
    }
    s->off64 = sp_xmalloc(s->off.count * sizeof *s->off64);
    for (size_t i = 0; i < s->off.count; i++) s->off64[i] = ((int32_t *)s->off.data)[i];
    set->n_sent = (int)s->off.count - 1;
    set->d = (int)s->X.shape[1];
    set->X = s->X.data;
    set->off = s->off64;
    set->head = s->head.data;
    set->punct = NULL;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 1) return 0;
    if (argc != 8) {
        fprintf(stderr, "usage: %s KIND RANK BATCH EPOCHS LR SEED DIR\n", argv[0]);
        return 2;
    }
    struct prb_sptrain_cfg cfg;
    prb_sptrain_cfg_default(&cfg);
    if (prb_sprobe_kind_parse(argv[1], &cfg.kind)) { fprintf(stderr, "%s: bad kind\n", argv[1]); return 2; }
    cfg.rank = atoi(argv[2]);
    cfg.batch_size = atoi(argv[3]);
    cfg.max_epochs = atoi(argv[4]);
    cfg.lr = strtod(argv[5], NULL);
    cfg.seed = strtoull(argv[6], NULL, 10);
    const char *dir = argv[7];
    char err[1024];
    struct split a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    struct prb_sp_set tr, dv;
    if (load(dir, "train", &a, &tr, err, sizeof err) || load(dir, "dev", &b, &dv, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    double *curve = sp_xcalloc((size_t)cfg.max_epochs * 2, sizeof *curve);
    double *tm = sp_xcalloc((size_t)cfg.max_epochs, sizeof *tm), *dm = sp_xcalloc((size_t)cfg.max_epochs, sizeof *dm);
    struct prb_sptrain_info info = { .train_mean = tm, .dev_mean = dm };
    struct prb_sprobe p;
    if (prb_sprobe_train(&p, &cfg, &tr, &dv, &info, err, sizeof err)) { fprintf(stderr, "%s\n", err); return 1; }
    for (int e = 0; e < info.epochs; e++) { curve[2 * e] = tm[e]; curve[2 * e + 1] = dm[e]; }
    char path[4096];
    size_t shp[2] = { (size_t)p.d, (size_t)p.k };
    snprintf(path, sizeof path, "%s/c_proj.npy", dir);
    if (sp_npy_write(path, SP_DT_F32, 2, shp, p.proj, err, sizeof err)) { fprintf(stderr, "%s\n", err); return 1; }
    size_t shc[2] = { (size_t)info.epochs, 2 };
    snprintf(path, sizeof path, "%s/c_curve.npy", dir);
    if (sp_npy_write(path, SP_DT_F64, 2, shc, curve, err, sizeof err)) { fprintf(stderr, "%s\n", err); return 1; }
    printf("epochs %d best_epoch %d steps %ld lr %.17g\n", info.epochs, info.best_epoch, info.steps, info.lr_final);
    prb_sprobe_free(&p);
    free(curve); free(tm); free(dm);
    free(a.off64); free(b.off64);
    sp_npy_free(&a.X); sp_npy_free(&a.off); sp_npy_free(&a.head);
    sp_npy_free(&b.X); sp_npy_free(&b.off); sp_npy_free(&b.head);
    return 0;
}
