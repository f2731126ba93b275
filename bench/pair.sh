# shellcheck shell=bash
#
# pair.sh: the timing of the benchmarks, sourced by bench/bench.sh and
# bench/writers.sh.  The caller sources bench/lib.sh, sets WORK (a directory
# for the scripts and their output) and has a server pg_psql reaches
# (scripts/pgcluster.sh).  Fills, per name, MED (median server-side
# execution time, ms), CPUMS (median backend CPU time, ms), RUNS (the timed
# runs) and PLAN (the last plan).

declare -A MED CPUMS RUNS PLAN

# pair NAME_A SETTINGS_A QUERY_A NAME_B SETTINGS_B QUERY_B N
#
# Runs A and B once each to warm up, then N times each, interleaved, all in
# ONE session: a new backend first pays a page fault for every page of
# shared buffers it touches (about as much as a 1,000,000-row scan itself
# without huge pages), which the warm-up runs absorb.  Records the median
# server-side execution time (EXPLAIN ANALYZE) and the median CPU time (user
# + system) of the backend for the statement (log_executor_stats; without
# parallel workers' time).
pair()
{
	local na=$1 sa=$2 qa=$3 nb=$4 sb=$5 qb=$6 n=$7 i f=$WORK/pair.sql
	local -a ms cpu
	say "timing $na vs $nb ($n runs each, interleaved, after a warm-up run of each)"
	{
		echo "SET log_executor_stats = on;"
		echo "SET client_min_messages = log;"
		for i in $(seq 0 "$n"); do
			printf '\\echo @@plan %s\n' "$na"
			echo "$sa"
			echo "EXPLAIN (ANALYZE, TIMING OFF, SUMMARY ON, COSTS OFF) $qa;"
			printf '\\echo @@plan %s\n' "$nb"
			echo "$sb"
			echo "EXPLAIN (ANALYZE, TIMING OFF, SUMMARY ON, COSTS OFF) $qb;"
		done
	} >"$f"
	pg_psql -q -A -t -f "$f" >"$f.out" 2>"$f.err" ||
		{ cat "$f.err" >&2; die "timing $na vs $nb failed"; }
	mapfile -t ms < <(sed -n 's/^Execution Time: \([0-9.]*\) ms$/\1/p' "$f.out")
	mapfile -t cpu < <(sed -n 's/^!\s*\([0-9.]*\) s user, \([0-9.]*\) s system, .*elapsed.*/\1 \2/p' "$f.err" |
		awk '{ printf "%.3f\n", ($1 + $2) * 1000 }')
	if [ "${#ms[@]}" -ne $((2 * n + 2)) ] || [ "${#cpu[@]}" -ne $((2 * n + 2)) ]; then
		cat "$f.out" "$f.err" >&2
		die "timing $na vs $nb: ${#ms[@]} execution times and ${#cpu[@]} CPU times, want $((2 * n + 2)) each"
	fi
	RUNS[$na]=""; RUNS[$nb]=""
	local ca="" cb=""
	for i in $(seq 1 "$n"); do
		RUNS[$na]+=" ${ms[2 * i]}"; ca+=" ${cpu[2 * i]}"
		RUNS[$nb]+=" ${ms[2 * i + 1]}"; cb+=" ${cpu[2 * i + 1]}"
	done
	RUNS[$na]=${RUNS[$na]# }
	RUNS[$nb]=${RUNS[$nb]# }
	MED[$na]=$(median <<<"${RUNS[$na]}")
	MED[$nb]=$(median <<<"${RUNS[$nb]}")
	CPUMS[$na]=$(median <<<"$ca")
	CPUMS[$nb]=$(median <<<"$cb")
	# The last plan of each.
	PLAN[$na]=$(awk -v want="@@plan $na" '/^@@plan / { on = ($0 == want); if (on) buf = ""; next } on { buf = buf $0 "\n" } END { printf "%s", buf }' "$f.out")
	PLAN[$nb]=$(awk -v want="@@plan $nb" '/^@@plan / { on = ($0 == want); if (on) buf = ""; next } on { buf = buf $0 "\n" } END { printf "%s", buf }' "$f.out")
	say "  $na: median ${MED[$na]} ms (${RUNS[$na]}), backend CPU median ${CPUMS[$na]} ms (warm-up ${ms[0]} ms)"
	say "  $nb: median ${MED[$nb]} ms (${RUNS[$nb]}), backend CPU median ${CPUMS[$nb]} ms (warm-up ${ms[1]} ms)"
}
