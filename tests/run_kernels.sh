#!/bin/sh
# tests/run_kernels.sh COUNTS PROGRAM...   (make test-kernels)
# Runs the unit-test PROGRAMs (the encoder's and the GEMM's) once per OpenBLAS kernel, with
# OPENBLAS_CORETYPE exported (so the determinism tests' failure messages name it) and printed
# before each program's output, then once with it unset. A kernel this CPU cannot run (no AVX-512
# for SkylakeX, ...) is a visible skip. Counts go to COUNTS as tests/run_unit.sh's do.
counts=$1; shift
flags=$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null)
has() { [ -z "$flags" ] || case " $flags " in *" $1 "*) true;; *) false;; esac; }
fail=0
for ct in Haswell SkylakeX Zen Sandybridge Prescott unset; do
    case $ct in
        SkylakeX) need="avx512f avx512bw avx512vl avx512dq avx512cd";;
        Haswell|Zen) need="avx2 fma";;
        Sandybridge) need="avx";;
        Prescott) need="pni";;       # /proc/cpuinfo's name for SSE3
        *) need=;;
    esac
    lack=; for x in $need; do has "$x" || lack="$lack $x"; done
    if [ -n "$lack" ]; then
        echo "ok # SKIP OPENBLAS_CORETYPE=$ct: this CPU lacks$lack"
        echo "0 0 1 kernels OPENBLAS_CORETYPE=$ct (skipped)" >>"$counts"
        continue
    fi
    if [ "$ct" = unset ]; then
        unset OPENBLAS_CORETYPE
        tests/run_unit.sh -c "$counts" -l "OPENBLAS_CORETYPE=(unset):" "$@" || fail=1
    else
        OPENBLAS_CORETYPE=$ct; export OPENBLAS_CORETYPE
        tests/run_unit.sh -c "$counts" -l "OPENBLAS_CORETYPE=$ct:" "$@" || fail=1
    fi
done
exit $fail
