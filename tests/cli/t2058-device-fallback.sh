# t2058-device-fallback.sh — `encode --device auto|cpu|cuda` without a GPU, and the CUDA plugin's ABI check
# tier: fast
# What `encode --device auto|cpu|cuda` says without a GPU, and the CUDA
# plugin's ABI check (issue 9 items 3 and 5).
# Expectations from the issue: auto on a machine without a GPU prints exactly one line "no GPU
# found: using the CPU" and none of the CUDA runtime's words (they stay for --verbose and for
# --device cuda, which fails with the reason); cpu says nothing about GPUs; a plugin built from
# other sources (another ABI version, no version at all, other struct sizes) is refused with a
# message naming both versions and its path, and is never called (its vtable here is garbage).
# Fake plugins are compiled here with cc -shared and selected with $SYNPROBE_CUDA_PLUGIN.
. tests/cli/lib.sh
"$SP" demo --out "$TMP/d" --ingest-only >/dev/null 2>&1
DB=$TMP/d/demo.db
echo '{"kind":"san","d_model":8,"heads":2,"layers":1}' >"$TMP/tiny.json"
n=0
enc() {   # enc DEVICE [ARGS...]: encode the demo corpus into a new run; $rc, $TMP/err = stderr
    dev=$1; shift; n=$((n+1)); rc=0
    "$SP" encode --db "$DB" --corpus demo --encoder "$TMP/tiny.json" --run "r$n" --device "$dev" "$@" \
        >/dev/null 2>"$TMP/err" || rc=$?
}
lines() { grep -c "$@" "$TMP/err" || true; }   # lines [GREP-OPTIONS] PATTERN

if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
    echo "# a GPU is present: the no-GPU messages are not checked"
else
    enc auto
    expect_eq "auto, no GPU: exit 0" "$rc" 0
    expect_eq "auto, no GPU: the plain line, once" "$(grep -cx 'no GPU found: using the CPU' "$TMP/err" || true)" 1
    expect_eq "auto, no GPU: no CUDA runtime text" "$(lines -i 'cuda\|driver')" 0
    expect_eq "auto, no GPU: runs on the CPU" "$(lines '^encoder: san on cpu$')" 1
    expect_eq "auto, no GPU: no other line about GPUs" "$(lines -i 'gpu')" 1
    enc auto --verbose
    expect_eq "auto --verbose: exit 0" "$rc" 0
    expect_eq "auto --verbose: the line with the reason" "$(lines '^no GPU found: using the CPU (.*CUDA.*)$')" 1
    if [ ! -e /dev/nvidiactl ] && [ ! -e /proc/driver/nvidia ] && [ ! -e /dev/dxg ]; then
        # no NVIDIA driver at all: auto does not even load the plugin (dlopen of cuBLAS, ~0.1 s an encode)
        expect_eq "auto --verbose, no driver: the plugin is not loaded, and the reason says so" \
            "$(lines '^no GPU found: using the CPU (no NVIDIA driver here (no /dev/nvidiactl, /proc/driver/nvidia or /dev/dxg): the CUDA plugin was not loaded)$')" 1
    fi
    enc auto --quiet
    expect_eq "auto --quiet: nothing on stderr" "$(wc -c <"$TMP/err" | tr -d ' ')" 0
    enc cuda
    expect_eq "cuda, no GPU: exit 1" "$rc" 1
    expect_eq "cuda, no GPU: the reason" "$(lines '^synprobe encode: encoder: device cuda requested: .*CUDA')" 1
fi
enc cpu
expect_eq "cpu: exit 0" "$rc" 0
expect_eq "cpu: nothing about GPUs" "$(lines -i 'gpu\|cuda\|driver')" 0

# ---- the plugin's ABI (a build with the CUDA loader only)
SYNPROBE_CUDA_PLUGIN=$TMP/none.so; export SYNPROBE_CUDA_PLUGIN
enc cuda
if grep -q 'this build has no CUDA backend' "$TMP/err"; then
    echo "# this build has no CUDA backend: the plugin checks are skipped"
    done_testing; exit $?
fi
expect_eq "missing plugin: cuda fails" "$rc" 1
expect_eq "missing plugin: says which file" "$(lines "cannot load the CUDA plugin: $TMP/none.so")" 1
enc auto
expect_eq "missing plugin: auto gives the plain line" "$(grep -cx 'no GPU found: using the CPU' "$TMP/err" || true)" 1

CC=${CC:-cc}
fake() {   # fake NAME C-SOURCE: build $TMP/NAME.so
    printf '%s\n' "$2" >"$TMP/$1.c"
    $CC -std=c11 -D_GNU_SOURCE -I. -shared -fPIC -o "$TMP/$1.so" "$TMP/$1.c"
}
GARBAGE='const unsigned char enc_cuda_ops[256] = { 1, 2, 3, 4, 5, 6, 7, 8 };'
fake noabi "$GARBAGE"
fake v999 "#include <stdint.h>
struct abi { uint32_t version, a, b, c, d; };
static const struct abi v = { 999999, 0, 0, 0, 0 };
const struct abi *enc_cuda_abi(void) { return &v; }
$GARBAGE"
fake sizes "#define enc_cuda_ops enc_cuda_ops_declared   /* the garbage below has another type */
#include \"encoder/encoder_int.h\"
#undef enc_cuda_ops
static const struct enc_plugin_abi v = { ENC_PLUGIN_ABI, sizeof(struct enc_backend_ops) + 8, sizeof(struct enc_backend),
                                         sizeof(struct enc_attn_args), sizeof(struct enc_psa_args) };
const struct enc_plugin_abi *enc_cuda_abi(void) { return &v; }
$GARBAGE"
# a well-formed plugin whose device open fails the way $FAKE_OPEN says
fake good '#include "encoder/encoder_int.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static const struct enc_plugin_abi v = { ENC_PLUGIN_ABI, sizeof(struct enc_backend_ops), sizeof(struct enc_backend),
                                         sizeof(struct enc_attn_args), sizeof(struct enc_psa_args) };
const struct enc_plugin_abi *enc_cuda_abi(void) { return &v; }
static int fake_open(struct enc_backend *be, char *err, size_t n)
{
    const char *m = getenv("FAKE_OPEN");
    if (m && !strcmp(m, "nodev")) { snprintf(err, n, "no usable CUDA device (fake: driver too old)"); return ENC_ENODEV; }
    snprintf(err, n, "device 0: fake kernel image missing");
    return SP_EGPU;
}
const struct enc_backend_ops enc_cuda_ops = { .name = "fake", .open = fake_open };'

SYNPROBE_CUDA_PLUGIN=$TMP/v999.so
enc cuda
expect_eq "ABI 999999: cuda fails (no crash)" "$rc" 1
expect_eq "ABI 999999: names both versions and the path" \
    "$(lines "the CUDA plugin $TMP/v999.so has ABI version 999999, this synprobe needs version [0-9][0-9]*: rebuild it")" 1
enc auto
expect_eq "ABI 999999: auto falls back, exit 0" "$rc" 0
expect_eq "ABI 999999: auto says why" "$(lines "^encoder: the GPU cannot be used: the CUDA plugin $TMP/v999.so has ABI version 999999.*; using the CPU$")" 1
expect_eq "ABI 999999: auto does not claim no GPU" "$(lines 'no GPU found')" 0

SYNPROBE_CUDA_PLUGIN=$TMP/noabi.so
enc cuda
expect_eq "no ABI symbol: cuda fails (no crash)" "$rc" 1
expect_eq "no ABI symbol: says so, with the path" "$(lines "the CUDA plugin $TMP/noabi.so has no ABI version .*needs version [0-9]")" 1

SYNPROBE_CUDA_PLUGIN=$TMP/sizes.so
enc cuda
expect_eq "same version, other sizes: cuda fails (no crash)" "$rc" 1
expect_eq "same version, other sizes: says so" "$(lines "the CUDA plugin $TMP/sizes.so has ABI version [0-9]* like this synprobe but other struct sizes")" 1

SYNPROBE_CUDA_PLUGIN=$TMP/good.so
FAKE_OPEN=nodev; export FAKE_OPEN
enc auto
expect_eq "plugin, no device: auto exit 0" "$rc" 0
expect_eq "plugin, no device: the plain line only" "$(grep -cx 'no GPU found: using the CPU' "$TMP/err" || true) $(lines 'driver')" "1 0"
enc cuda
expect_eq "plugin, no device: cuda gives the driver's reason" "$(lines 'device cuda requested: no usable CUDA device (fake: driver too old)')" 1
FAKE_OPEN=fail
enc auto
expect_eq "plugin, device unusable: auto says why" "$(lines '^encoder: the GPU cannot be used: device 0: fake kernel image missing; using the CPU$')" 1
expect_eq "plugin, device unusable: auto exit 0" "$rc" 0
enc cpu
expect_eq "cpu never loads the plugin" "$(lines -i 'gpu\|cuda\|plugin') $rc" "0 0"
done_testing
