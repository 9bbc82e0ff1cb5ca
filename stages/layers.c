/* stages/layers.c — the layer runs of a name (see layers.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stages/layers.h"
#include "stages/names.h"
#include "store/runs.h"
#include "store/store.h"

/* k when the digits at p (up to q) are a layer number; else -1 */
static int digits(const char *p, const char *q)
{
    if (q == p || q - p > 3 || (*p == '0' && q - p > 1)) return -1;
    for (const char *c = p; c < q; c++) if (*c < '0' || *c > '9') return -1;
    int k = atoi(p);
    return k < STG_MAX_LAYER_RUNS ? k : -1;
}

/* k when run is NAME-L<k> (suffix "" ) or NAME-L<k>-INPUT (suffix input), or, for a NAME with
 * {layer} (as encode --run takes it), NAME with the layer number in its place; else -1 */
static int layer_of(const char *run, const char *name, const char *input)
{
    const char *t = strstr(name, "{layer}");
    if (t) {
        size_t pre = (size_t)(t - name), post = strlen(t + 7), len = strlen(run);
        if (len <= pre + post || strncmp(run, name, pre) || strcmp(run + len - post, t + 7)) return -1;
        return digits(run + pre, run + len - post);
    }
    size_t n = strlen(name);
    if (strncmp(run, name, n) || run[n] != '-' || run[n + 1] != 'L') return -1;
    const char *p = run + n + 2, *q = p;
    while (*q >= '0' && *q <= '9') q++;
    int k = digits(p, q);
    if (k < 0) return -1;
    if (!input) return *q ? -1 : k;
    return *q == '-' && !strcmp(q + 1, input) ? k : -1;
}

static int parse_spec(struct stg_ctx *ctx, const char *spec, int *want, int *n_want)
{
    *n_want = 0;
    if (!strcmp(spec, "all")) return SP_OK;
    const char *p = spec;
    while (1) {
        char *end;
        long k = strtol(p, &end, 10);
        if (end == p || *p < '0' || *p > '9' || (*end && *end != ',') || k >= STG_MAX_LAYER_RUNS)
            return stg_fail(ctx, SP_EUSAGE, "--layer: expected all or layer numbers K,K,... (0 = embeddings), got '%s'", spec);
        for (int i = 0; i < *n_want; i++)
            if (want[i] == k) return stg_fail(ctx, SP_EUSAGE, "--layer: layer %ld is named twice", k);
        want[(*n_want)++] = (int)k;
        if (!*end) return SP_OK;
        p = end + 1;
    }
}

int stg_layer_runs(struct stg_ctx *ctx, const char *db_path, const char *name, const char *spec, const char *input,
                   struct stg_layer_runs *out)
{
    memset(out, 0, sizeof *out);
    int want[STG_MAX_LAYER_RUNS], n_want;
    int rc = parse_spec(ctx, spec, want, &n_want);
    if (rc) return rc;
    struct st_db *db;
    if ((rc = stg_open_store(ctx, db_path, ST_OPEN_READONLY, &db))) return rc;
    struct st_names names = { 0 };
    char err[SP_ERRLEN];
    if ((rc = st_run_names(db, &names, err, sizeof err))) { st_close(db); return stg_fail(ctx, SP_ESTORE, "%s", err); }
    const char *found[STG_MAX_LAYER_RUNS] = { 0 };
    if (strstr(name, "{layer}")) input = NULL;            /* the pattern names the runs */
    for (int pass = input ? 0 : 1; pass < 2; pass++)     /* NAME-L<k>-INPUT first, then NAME-L<k> */
        for (int i = 0; i < names.n; i++) {
            int k = layer_of(names.v[i], name, pass == 0 ? input : NULL);
            if (k >= 0 && !found[k]) found[k] = names.v[i];
        }
    int any = 0;
    for (int k = 0; k < STG_MAX_LAYER_RUNS; k++) any |= found[k] != NULL;
    if (!any) {
        int plain = 0;
        const char *other = NULL;     /* NAME-L<k>-X of another input */
        for (int i = 0; i < names.n; i++) {
            plain |= !strcmp(names.v[i], name);
            size_t skip = strlen(name) + 2;     /* past "NAME-L" */
            const char *dash = strlen(names.v[i]) >= skip ? strchr(names.v[i] + skip, '-') : NULL;
            if (!other && dash && layer_of(names.v[i], name, dash + 1) >= 0) other = names.v[i];
        }
        char hint[SP_ERRLEN / 2] = "";
        if (plain) snprintf(hint, sizeof hint, "; it is a run of one layer");
        else if (other)
            snprintf(hint, sizeof hint, "; the store has %s: name its input (--corpus, --task, or a --run pattern such as "
                     "%s-L{layer}-INPUT)", other, name);
        rc = stg_fail(ctx, SP_EPARSE, "%s: %s '%s' has no layer runs (%s-L<k>%s, made by encode --layers)%s", db_path,
                      plain ? "run" : "name", name, name, input ? "[-INPUT]" : "", hint);
        goto done;
    }
    for (int i = 0; i < n_want; i++)
        if (!found[want[i]]) {
            char have[512];
            size_t len = 0;
            have[0] = 0;
            for (int k = 0; k < STG_MAX_LAYER_RUNS && len < sizeof have - 8; k++)
                if (found[k]) len += (size_t)snprintf(have + len, sizeof have - len, "%s%d", len ? "," : "", k);
            const char *t = strstr(name, "{layer}");
            if (t)
                rc = stg_fail(ctx, SP_EPARSE, "%s: no run %.*s%d%s: the layers of '%s' there are %s", db_path, (int)(t - name),
                              name, want[i], t + 7, name, have);
            else if (input)
                rc = stg_fail(ctx, SP_EPARSE, "%s: no run %s-L%d-%s or %s-L%d: the layers of '%s' there are %s", db_path,
                              name, want[i], input, name, want[i], name, have);
            else
                rc = stg_fail(ctx, SP_EPARSE, "%s: no run %s-L%d: the layers of '%s' there are %s", db_path, name, want[i],
                              name, have);
            goto done;
        }
    for (int k = 0; k < STG_MAX_LAYER_RUNS; k++) {
        int take = found[k] && !n_want;
        for (int i = 0; i < n_want; i++) take |= want[i] == k;
        if (!take) continue;
        struct st_run_info info = { 0 };
        if ((rc = st_run_info(db, found[k], &info, err, sizeof err))) {
            st_run_info_free(&info);
            rc = stg_fail(ctx, rc == SP_EUSAGE ? SP_EPARSE : rc, "%s", err);
            goto done;
        }
        out->layer[out->n] = k;
        out->attn_layer[out->n] = info.attn_layer;
        out->run[out->n++] = sp_xstrdup(found[k]);
        st_run_info_free(&info);
    }
done:
    st_names_free(&names);
    st_close(db);
    return rc;
}

void stg_layer_runs_free(struct stg_layer_runs *l)
{
    for (int i = 0; i < l->n; i++) free(l->run[i]);
    memset(l, 0, sizeof *l);
}
