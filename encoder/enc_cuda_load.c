/* encoder/enc_cuda_load.c — finds the CUDA backend, which lives in a plugin.
 *
 * Why a plugin: linking cuBLAS and the CUDA runtime into build/synprobe costs every command about
 * 0.1 s and 220 MB of resident memory at start-up (the loader maps and relocates libcublasLt),
 * even `synprobe info` or an ingest. So the .cu objects and the CUDA libraries go into
 * build/synprobe_cuda.so, and the encoder loads it on the first CUDA or auto open. The binary
 * then also runs on a machine where the CUDA libraries are missing: auto falls back to the CPU.
 *
 * Where: $SYNPROBE_CUDA_PLUGIN if set, else synprobe_cuda.so next to the executable, else one
 * folder up (unit tests and test-gpu run from build/tests/ and build/gpu/). */
#include "encoder/encoder_int.h"

#include <stdio.h>
#include <string.h>

#ifdef SP_HAVE_CUDA
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <unistd.h>

static const struct enc_backend_ops *plugin_ops;
static char plugin_why[SP_ERRLEN];
static pthread_once_t plugin_once = PTHREAD_ONCE_INIT;

static void *try_open(const char *path, char *why, size_t n)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) snprintf(why, n, "cannot load the CUDA plugin: %s", dlerror());
    return h;
}

static void plugin_load(void)
{
    char path[PATH_MAX + 32], exe[PATH_MAX];
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
        for (int up = 0; up < 2 && !h; up++) {
            snprintf(path, sizeof path, "%s%s/synprobe_cuda.so", exe, up ? "/.." : "");
            if (access(path, F_OK) == 0) h = try_open(path, plugin_why, sizeof plugin_why);
            else if (!up) snprintf(plugin_why, sizeof plugin_why, "no CUDA plugin next to the executable (%s)", path);
        }
    }
    if (!h) return;
    plugin_ops = dlsym(h, "enc_cuda_ops");
    if (!plugin_ops) snprintf(plugin_why, sizeof plugin_why, "the CUDA plugin has no enc_cuda_ops: %s", dlerror());
}

const struct enc_backend_ops *enc_cuda_backend(char *why, size_t n)
{
    pthread_once(&plugin_once, plugin_load);
    if (!plugin_ops) snprintf(why, n, "%s", plugin_why);
    return plugin_ops;
}
#else
const struct enc_backend_ops *enc_cuda_backend(char *why, size_t n)
{
    snprintf(why, n, "this build has no CUDA backend");
    return NULL;
}
#endif
