#!/usr/bin/env bash
#
# run.sh
#	  Runs the libFuzzer harnesses of the counter_crdt core for a bounded time
#	  each and prints one summary line per harness.  Called by the Makefile:
#
#	  run.sh SECONDS CORPUS_ROOT HARNESS...
#
#	  SECONDS		-max_total_time of each harness
#	  CORPUS_ROOT	"temp": each harness starts from a copy of its committed
#					seeds (test/fuzz/corpus/<harness>) in a temporary
#					directory, removed afterwards; anything else: a directory
#					whose <harness> subdirectory keeps the corpus across runs,
#					topped up with the seeds first
#	  HARNESS		path of a harness binary, e.g. test/fuzz/fuzz_text
#
# The committed seeds are never handed to libFuzzer directly, since it writes
# new inputs into its first corpus directory.  Crash, leak and timeout
# reproducers go to test/fuzz/work/artifacts/ (not committed).  Exits non-zero
# if any harness failed; all of them run regardless.

set -uo pipefail

if [ $# -lt 3 ]; then
	echo "usage: $0 SECONDS temp|CORPUS_ROOT HARNESS..." >&2
	exit 2
fi

seconds=$1
corpus_root=$2
shift 2

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
artifacts="$here/work/artifacts"
mkdir -p "$artifacts"

tmp=""
if [ "$corpus_root" = temp ]; then
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/cc_fuzz.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
fi

failed=()
summary=()

for harness in "$@"; do
	name=$(basename "$harness")
	seeds="$here/corpus/$name"

	if [ -n "$tmp" ]; then
		corpus="$tmp/$name"
	else
		corpus="$corpus_root/$name"
	fi
	mkdir -p "$corpus"
	# -n: a kept corpus may already hold a seed under the same name
	cp -n "$seeds"/* "$corpus"/ 2>/dev/null || true

	# Text and binary values of a few dozen shards are plenty to reach every
	# branch; the algebra input needs far fewer bytes per state.
	case "$name" in
		fuzz_algebra) max_len=1024 ;;
		*) max_len=4096 ;;
	esac
	extra=()
	if [ -f "$here/$name.dict" ]; then
		extra+=("-dict=$here/$name.dict")
	fi

	log="$artifacts/$name.log"
	echo "== $name: ${seconds}s from $(ls "$corpus" | wc -l) inputs in $corpus"
	"$harness" "$corpus" \
		-max_total_time="$seconds" \
		-max_len="$max_len" \
		-timeout=25 \
		-rss_limit_mb=2048 \
		-print_final_stats=1 \
		-artifact_prefix="$artifacts/$name-" \
		"${extra[@]}" >"$log" 2>&1
	rc=$?

	runs=$(sed -n 's/^Done \([0-9]*\) runs in \([0-9]*\) second.*/\1/p' "$log" | tail -n 1)
	secs=$(sed -n 's/^Done \([0-9]*\) runs in \([0-9]*\) second.*/\2/p' "$log" | tail -n 1)
	units=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
	added=$(sed -n 's/^stat::new_units_added: *//p' "$log" | tail -n 1)
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1)
	size=$(ls "$corpus" | wc -l)

	if [ $rc -ne 0 ] || [ -z "$runs" ]; then
		line="$name: FAILED (exit $rc) after ${units:-?} executions; see $log"
		failed+=("$name")
		# the failing check or sanitizer report, and the reproducer
		grep -E 'check failed|ERROR: |runtime error|SUMMARY|Test unit written' "$log" | head -n 20
	else
		line="$name: $runs runs in ${secs}s, executed units $units, ${rate} exec/s, $cov, $added new units, corpus $size files"
	fi
	echo "$line"
	summary+=("$line")
done

echo
echo "== fuzz summary (${seconds}s per harness)"
printf '%s\n' "${summary[@]}"
if [ ${#failed[@]} -gt 0 ]; then
	echo "FAILED: ${failed[*]}" >&2
	exit 1
fi
