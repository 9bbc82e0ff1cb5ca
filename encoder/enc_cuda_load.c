/* encoder/enc_cuda_load.c — finds the CUDA backend, which lives in a plugin.
 *
 * Why a plugin: linking cuBLAS and the CUDA runtime into build/synprobe costs every command about
 * 0.1 s and 220 MB of resident memory at start-up (the loader maps and relocates libcublasLt),
 * even `synprobe info` or an ingest. So the .cu objects and the CUDA libraries go into
 * build/synprobe_cuda.so, and the encoder loads it on the first CUDA open, or auto open where an
 * NVIDIA driver is present (enc_backend.c; $SYNPROBE_CUDA_PLUGIN always loads). The binary
 * then also runs on a machine where the CUDA libraries are missing: auto falls back to the CPU.
 *
 * Where: $SYNPROBE_CUDA_PLUGIN if set, else the first synprobe_cuda.so found
 *   next to the executable                 build/synprobe
 *   one folder up                          unit tests and test-gpu run from build/tests/, build/gpu/
 *   ../lib/synprobe from the executable    an installed tree (PREFIX/bin, PREFIX/lib/synprobe),
 *                                          wherever it was copied (a DESTDIR, a moved prefix)
 *   SP_PKGLIBDIR                           the install folder compiled in (make install PREFIX=...)
 *
 * Which: only a plugin built from the same encoder_int.h. It must export enc_cuda_abi() with
 * this binary's ENC_PLUGIN_ABI and struct sizes; a stale plugin (an older build left next to a
 * newer binary, or a copy from another checkout) is refused with both versions and its path
 * instead of being called through a vtable of another shape. */
#include "encoder/encoder_int.h"

#include <stdio.h>
#include <string.h>

#ifdef SP_HAVE_CUDA
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <unistd.h>

static const struct enc_backend_ops *plugin_ops;
static int plugin_rc = ENC_ENODEV;     /* answer when plugin_ops is NULL */
static char plugin_why[SP_ERRLEN];
static pthread_once_t plugin_once = PTHREAD_ONCE_INIT;

static void *try_open(const char *path, char *why, size_t n)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) snprintf(why, n, "cannot load the CUDA plugin: %s", dlerror());
    return h;
}

/* 1 when the plugin at path was built with this binary's ABI; else plugin_why says how not */
static int check_abi(void *h, const char *path)
{
    const struct enc_plugin_abi *(*abi_fn)(void) = (const struct enc_plugin_abi *(*)(void))dlsym(h, "enc_cuda_abi");
    const struct enc_plugin_abi *abi = abi_fn ? abi_fn() : NULL;
    plugin_rc = SP_EGPU;
    if (!abi) {
        snprintf(plugin_why, sizeof plugin_why, "the CUDA plugin %s has no ABI version (no enc_cuda_abi; this synprobe needs version %d): "
                 "it was built from older sources; rebuild it (make)", path, ENC_PLUGIN_ABI);
        return 0;
    }
    if (abi->version != ENC_PLUGIN_ABI) {
        snprintf(plugin_why, sizeof plugin_why, "the CUDA plugin %s has ABI version %u, this synprobe needs version %d: rebuild it (make)",
                 path, (unsigned)abi->version, ENC_PLUGIN_ABI);
        return 0;
    }
    if (abi->ops_size != sizeof(struct enc_backend_ops) || abi->backend_size != sizeof(struct enc_backend)
        || abi->attn_args_size != sizeof(struct enc_attn_args) || abi->psa_args_size != sizeof(struct enc_psa_args)) {
        snprintf(plugin_why, sizeof plugin_why, "the CUDA plugin %s has ABI version %u like this synprobe but other struct sizes "
                 "(ops %u/%zu, backend %u/%zu, attention args %u/%zu, PSA args %u/%zu; plugin/synprobe): "
                 "rebuild it (make), and bump ENC_PLUGIN_ABI when encoder_int.h changes",
                 path, (unsigned)abi->version, (unsigned)abi->ops_size, sizeof(struct enc_backend_ops), (unsigned)abi->backend_size,
                 sizeof(struct enc_backend), (unsigned)abi->attn_args_size, sizeof(struct enc_attn_args), (unsigned)abi->psa_args_size,
                 sizeof(struct enc_psa_args));
        return 0;
    }
    plugin_rc = ENC_ENODEV;
    return 1;
}

#ifndef SP_PKGLIBDIR
#define SP_PKGLIBDIR ""
#endif

/* The folders searched, in order; relative ones are appended to the executable's folder. */
static const struct { const char *dir; int relative; } plugin_dirs[] = {
    { "", 1 }, { "/..", 1 }, { "/../lib/synprobe", 1 }, { SP_PKGLIBDIR, 0 },
};
#define N_PLUGIN_DIRS (sizeof plugin_dirs / sizeof plugin_dirs[0])

static void plugin_load(void)
{
    char path[PATH_MAX + 64], exe[PATH_MAX];
    void *h = NULL;
    const char *env = getenv("SYNPROBE_CUDA_PLUGIN");
    if (env && *env) {
        h = try_open(env, plugin_why, sizeof plugin_why);
    } else {
        ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
        if (len <= 0) { snprintf(plugin_why, sizeof plugin_why, "cannot locate the CUDA plugin (no /proc/self/exe)"); return; }
        exe[len] = 0;
        char *slash = strrchr(exe, '/');
        if (slash) *slash = 0;
        size_t i;
        for (i = 0; i < N_PLUGIN_DIRS; i++) {
            if (plugin_dirs[i].relative) snprintf(path, sizeof path, "%s%s/synprobe_cuda.so", exe, plugin_dirs[i].dir);
            else if (plugin_dirs[i].dir[0]) snprintf(path, sizeof path, "%s/synprobe_cuda.so", plugin_dirs[i].dir);
            else continue;                  /* no install folder compiled in */
            if (access(path, F_OK) == 0) break;
        }
        if (i == N_PLUGIN_DIRS) {
            snprintf(plugin_why, sizeof plugin_why, "no CUDA plugin synprobe_cuda.so next to the executable (%s), one folder up, "
                     "in %s/../lib/synprobe%s%s", exe, exe, SP_PKGLIBDIR[0] ? " or in " : "", SP_PKGLIBDIR);
            return;
        }
        h = try_open(path, plugin_why, sizeof plugin_why);
    }
    if (!h) return;
    if (!check_abi(h, env && *env ? env : path)) { dlclose(h); return; }
    plugin_ops = dlsym(h, "enc_cuda_ops");
    if (!plugin_ops) {
        snprintf(plugin_why, sizeof plugin_why, "the CUDA plugin %s has no enc_cuda_ops: %s", env && *env ? env : path, dlerror());
        plugin_rc = SP_EGPU;
        dlclose(h);
    }
}

int enc_cuda_backend(const struct enc_backend_ops **ops, char *why, size_t n)
{
    pthread_once(&plugin_once, plugin_load);
    *ops = plugin_ops;
    if (plugin_ops) return SP_OK;
    snprintf(why, n, "%s", plugin_why);
    return plugin_rc;
}
#else
int enc_cuda_backend(const struct enc_backend_ops **ops, char *why, size_t n)
{
    *ops = NULL;
    snprintf(why, n, "this build has no CUDA backend");
    return ENC_ENODEV;
}
#endif
