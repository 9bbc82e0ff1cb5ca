# bench/bench_lib.sh — helpers shared by bench/encode.sh, bench/encode_ab.sh and bench/bert.sh (sourced,
# POSIX sh). Nothing here runs on its own.

# value of key=VALUE in a "RESULT k=v ..." line: field "$line" tok_s
field() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }

# median, min and max of the numbers on stdin, one line "median min max" (printf FORMAT, %.0f)
stats() { sort -g | awk -v f="${1:-%.0f}" '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf f " " f " " f, m, v[1], v[NR] }'; }

# A / B to two decimals ("–" when either is empty or B is 0)
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || b + 0 == 0) print "–"; else printf "%.2f", a / b }'; }

# "met" when A >= B (numbers), else "MISSED"
floor_met() { awk -v a="$1" -v b="$2" 'BEGIN { print (a != "" && a != "–" && a + 0 >= b + 0) ? "met" : "MISSED" }'; }

# the three load averages
load() { cut -d' ' -f1-3 /proc/loadavg; }

# one line: CPUs, CPU model, OPENBLAS_CORETYPE
machine() { echo "$(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-(unset)}"; }

# the libraries a bench driver links (public API of the layers) and their system libraries
bench_libs() { echo "$1/lib/libsp_encoder.a $1/lib/libsp_store.a $1/lib/libsp_treeops.a $1/lib/libsp_ingest.a $1/lib/libsp_common.a"; }
bench_ldx() { echo "-lsqlite3 -ljansson -lcsv -lz $(pkg-config --libs openblas 2>/dev/null || echo -lopenblas) -lutf8proc -lpcre2-8 -lpthread -lm"; }

# build_driver BUILD NAME: bench/NAME.c -> BUILD/NAME, linked like a unit test against BUILD's
# layer libraries (made first)
build_driver() {
    # shellcheck disable=SC2046
    make -s --no-print-directory BUILD="$1" $(bench_libs "$1")
    # shellcheck disable=SC2046
    cc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Wno-unused-parameter -O2 -I. $(pkg-config --cflags openblas 2>/dev/null) \
        -o "$1/$2" "bench/$2.c" $(bench_libs "$1") $(bench_ldx)
}

# sgemm_ceiling BERT_BENCH "THREADS": the machine's sgemm ceiling, measured now (bench/bert_bench.c:
# the core's FMA peak, then per thread count a 1536^3 product, best of 5, with our kernel, with
# OpenBLAS as installed and with OpenBLAS's SkylakeX kernel when the CPU has AVX-512, else its
# Haswell kernel). Prints a line and a markdown table; sets CEIL_<threads> to the best GFLOP/s
# of each row and PEAK to the FMA peak.
sgemm_ceiling() {
    _drv=$1
    if grep -q avx512f /proc/cpuinfo; then _ct=SkylakeX; else _ct=Haswell; fi
    PEAK=$(field "$("$_drv" peak)" peak_gflop_s)
    echo "sgemm ceiling (1536^3, best of 5; GFLOP/s): core FMA peak $PEAK (one thread, no memory traffic)"
    echo
    echo "| threads | synprobe kernel ($(field "$("$_drv" sgemm --reps 1 --size 64)" kernel)) | OpenBLAS as installed | OpenBLAS $_ct kernel | best |"
    echo "|---|---|---|---|---|"
    for _th in $2; do
        _o=$(field "$("$_drv" sgemm --threads "$_th")" gflop_s)
        _bi=$(field "$(OPENBLAS_NUM_THREADS=$_th "$_drv" sgemm --blas)" gflop_s)
        _bc=$(field "$(OPENBLAS_CORETYPE=$_ct OPENBLAS_NUM_THREADS=$_th "$_drv" sgemm --blas)" gflop_s)
        _best=$(printf '%s\n%s\n%s\n' "$_o" "$_bi" "$_bc" | sort -g | tail -1)
        eval "CEIL_$_th=$_best"
        echo "| $_th | $_o | $_bi | $_bc | $_best |"
    done
}
