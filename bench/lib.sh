# shellcheck shell=bash
#
# lib.sh: what the benchmark scripts share.  Source it after setting
# BENCH_TAG, the word their log lines start with:
#
#   BENCH_TAG=fdw
#   source "$ROOT/bench/lib.sh"
#
# say TEXT          a line of the log
# die TEXT          an error line, then exit 1
# calc EXPR [D]     EXPR in floating point, with D decimals (2)
# median            the median of the numbers on stdin (blank- or line-separated)
# fmt_int N         N with thousands separators: 1,000,000
# cpu_of PID        CPU seconds (user + system) of a process so far, 0 if gone

export LC_NUMERIC=C

say() { echo "$BENCH_TAG: $*"; }
die() { echo "$BENCH_TAG: ERROR: $*" >&2; exit 1; }
calc() { awk "BEGIN { printf \"%.${2:-2}f\", $1 }"; }
median() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else printf "%.3f\n", (a[NR/2]+a[NR/2+1])/2}'; }
fmt_int() { printf '%d' "$1" | sed -e :a -e 's/\([0-9]\)\([0-9]\{3\}\)\($\|,\)/\1,\2\3/; ta'; }
cpu_of() { awk -v hz="$(getconf CLK_TCK)" '{print ($14 + $15) / hz}' "/proc/$1/stat" 2>/dev/null || echo 0; }
