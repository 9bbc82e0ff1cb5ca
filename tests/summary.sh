#!/bin/sh
# tests/summary.sh [-s STATUS] COUNTS...
# The last line of `make test` (and of .ci/run): sums the "PASSED FAILED SKIPPED SUITE..." lines the
# runners appended to COUNTS (tests/run_unit.sh, tests/run_cli.sh, tests/run_kernels.sh), lists
# the suites, and prints "N passed, N failed, N skipped" alone on the last line. STATUS is the
# caller's record of its steps (0: all exited 0); a failed step, or no counts at all, with no
# failed check to show for it counts as one failure. Exits non-zero if anything failed.
status=0
if [ "${1:-}" = -s ]; then status=$2; shift 2; fi
cat "$@" 2>/dev/null | awk -v status="$status" '
    NF >= 4 { p += $1; f += $2; s += $3; n++
              d = $0; sub(/^[0-9]+ [0-9]+ [0-9]+ /, "", d)
              printf "  %-60s %6d ok %4d not ok %4d skipped\n", d, $1, $2, $3 }
    END { if (n == 0) { print "no test counts were recorded"; f++ }
          else if (status != 0 && f == 0) { print "a test step failed without a failed check (a build error?): see above"; f++ }
          printf "%d passed, %d failed, %d skipped\n", p, f, s
          exit f != 0 }'
