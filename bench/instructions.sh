#!/usr/bin/env bash
#
# instructions.sh: exact instruction counts of the core's hot operations.
#
#   bash bench/instructions.sh [path/to/microbench]
#
# Runs each operation of bench/microbench under callgrind at 1 and at 1001
# iterations; the difference divided by 1000 is the cost of one operation,
# without the set-up.  Counts are repeatable for one binary, whatever else the
# machine is doing, so they compare versions exactly.
set -euo pipefail
bin=${1:-$(dirname "$0")/microbench}
command -v valgrind >/dev/null || { echo "instructions.sh: valgrind is not installed" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

count() {	# op iterations -> total instructions
	valgrind --tool=callgrind --callgrind-out-file="$tmp/out" "$bin" "$1" "$2" >/dev/null 2>"$tmp/err" ||
		{ cat "$tmp/err" >&2; exit 1; }
	sed -nE 's/^==[0-9]+== Collected : ([0-9]+)$/\1/p' "$tmp/err"
}

printf '%-10s %12s\n' operation instructions
for op in merge8 increment inc_glue inc_stored inc_at_glue inc_at_stored sum parse parse_new format; do
	lo=$(count "$op" 1)
	hi=$(count "$op" 1001)
	printf '%-10s %12s\n' "$op" "$(( (hi - lo) / 1000 ))"
done
