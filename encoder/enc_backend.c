/* encoder/enc_backend.c — choosing and opening a backend (CPU, or the CUDA plugin) for a handle,
 * shared by every model family's open (enc_san.c, enc_bert.c). */
#include "encoder/encoder_int.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int backend_open(struct enc *e, const struct enc_backend_ops *ops, char *err, size_t errlen)
{
    memset(&e->be, 0, sizeof e->be);
    e->be.ops = ops;
    return ops->open(&e->be, err, errlen);
}

/* Whether this machine could have an NVIDIA GPU at all: the driver's device node or its /proc
 * folder (Linux, containers given a GPU), or WSL's GPU device. Without any, auto does not load the
 * CUDA plugin: dlopen of cuBLAS costs every encode ~0.1 s (0.3 s cold) to learn what this says. */
static int nvidia_driver_present(void)
{
    return access("/dev/nvidiactl", F_OK) == 0 || access("/proc/driver/nvidia", F_OK) == 0 || access("/dev/dxg", F_OK) == 0;
}

/* e->be is open on SP_OK, and all zero (nothing to close) otherwise */
int enc_backend_select(struct enc *e, enum enc_device device, const struct sp_logger *log, char *err, size_t errlen)
{
    int rc = -1;
    if (device == ENC_DEVICE_CUDA || device == ENC_DEVICE_AUTO) {
        char why[SP_ERRLEN];
        const struct enc_backend_ops *cuda;
        const char *plugin_env = getenv("SYNPROBE_CUDA_PLUGIN");
        if (device == ENC_DEVICE_AUTO && !(plugin_env && *plugin_env) && !nvidia_driver_present()) {
            rc = ENC_ENODEV;
            snprintf(why, sizeof why, "no NVIDIA driver here (no /dev/nvidiactl, /proc/driver/nvidia or /dev/dxg): the CUDA "
                     "plugin was not loaded");
        } else {
            rc = enc_cuda_backend(&cuda, why, sizeof why);      /* the plugin (ENC_ENODEV: none) */
        }
        if (rc == SP_OK) rc = backend_open(e, cuda, why, sizeof why);   /* ENC_ENODEV: no device */
        if (rc != SP_OK && device == ENC_DEVICE_CUDA) {
            snprintf(err, errlen, "encoder: device cuda requested: %s", why);
            memset(&e->be, 0, sizeof e->be);                   /* nothing open to close */
            return SP_EGPU;
        }
        /* auto: a machine without a GPU is normal and gets one plain line (the driver's words
         * only at DEBUG); a GPU or plugin that is there but unusable says why */
        if (rc == ENC_ENODEV && sp_log_enabled(log, SP_LOG_DEBUG)) sp_log(log, SP_LOG_DEBUG, "no GPU found: using the CPU (%s)", why);
        else if (rc == ENC_ENODEV) sp_log(log, SP_LOG_INFO, "no GPU found: using the CPU");
        else if (rc != SP_OK) sp_log(log, SP_LOG_INFO, "encoder: the GPU cannot be used: %s; using the CPU", why);
    }
    if (rc != SP_OK && (rc = backend_open(e, &enc_cpu_ops, err, errlen)) != SP_OK) memset(&e->be, 0, sizeof e->be);
    return rc;
}
