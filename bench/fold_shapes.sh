#!/usr/bin/env bash
#
# fold_shapes.sh: bench/fold_shapes against the fold core of another
# revision, in one run, with the ratios.
#
#   bash bench/fold_shapes.sh [OLD_REV] [SECONDS]
#
# Builds bench/fold_shapes from this tree, and again with src/core/cc_fold.[ch]
# of OLD_REV (9ec5d1a, the last before issue 28's fold core, unless told) in
# place of this tree's fold layer (cc_fold*.c), in a temporary directory,
# -DCC_BENCH_OLD; runs both, old first, each operation
# stopped after SECONDS (10 unless told); prints old and new, in
# microseconds per run, and old / new.  Its loopK lines are the old glue's
# fold_many loop on either core, its manyK lines that loop on the old core and
# cc_fold_many() on this one (bench/fold_shapes.c says which ids).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
old_rev=${1:-9ec5d1a}
limit=${2:-10}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc=${CC:-cc}
flags="-O2 -g -std=c99"
srcs=$(cd "$root" && ls src/core/cc_*.c)

mkdir -p "$tmp/old"
git -C "$root" show "$old_rev:src/core/cc_fold.c" >"$tmp/old/cc_fold.c"
git -C "$root" show "$old_rev:src/core/cc_fold.h" >"$tmp/old/cc_fold.h"
# the old cc_fold.c beside the old header, standing for the whole fold layer
# of this tree (cc_fold.c and the files split from it); the other core files
# as they are
old_srcs=""
for f in $srcs; do
	case $f in
		*/cc_fold.c) old_srcs="$old_srcs $tmp/old/cc_fold.c" ;;
		*/cc_fold_*.c) ;;
		*) old_srcs="$old_srcs $root/$f" ;;
	esac
done
(cd "$root" && $cc $flags -DCC_BENCH_OLD -I"$tmp/old" -Isrc/core -Itest -o "$tmp/old/fold_shapes" \
	bench/fold_shapes.c $old_srcs -lcrypto -luuid)
(cd "$root" && $cc $flags -Isrc/core -Itest -o "$tmp/fold_shapes" bench/fold_shapes.c $srcs -lcrypto -luuid)

"$tmp/old/fold_shapes" "$limit" >"$tmp/old.txt"
"$tmp/fold_shapes" "$limit" >"$tmp/new.txt"
printf '%-6s %8s %-7s %14s %14s %10s\n' shape records op "old (us)" "new (us)" "old/new"
paste "$tmp/old.txt" "$tmp/new.txt" | tail -n +2 | awk '{
	old = $4; new = $(NF);
	if ($4 == ">") { old = "> " $5; ratio = sprintf("> %.0f", $5 / new) }
	else ratio = sprintf("%.1f", old / new);
	printf "%-6s %8s %-7s %14s %14s %10s\n", $1, $2, $3, old, new, ratio }'
