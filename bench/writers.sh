#!/usr/bin/env bash
#
# writers.sh: what a counter's writers cost (issue 14), measured on a
# throwaway server (unix socket only, run as the postgres OS user, stopped
# and removed at exit).
#
#   PG_CONFIG=... bash bench/writers.sh     # as root, like bench/bench.sh
#
# (bench/bench.sh runs it after its own figures unless BENCH_WRITERS=0; it
# uses the extension as installed into $PG_CONFIG's PostgreSQL.)
#
# For each number of writers per counter W (1, 3, 30, 100, 300): a table
#   wc (k int PRIMARY KEY, c counter_crdt)
# of WRITERS_ROWS rows, every one holding the same prototype value: W shards
# with md5-random ids md5('writer:' || i), clocks below 1,000 and values
# below 100,000.  The server's counter_crdt.node_id is the id of writer 1,
# which every prototype holds, so c + 1 changes that shard and never adds one
# (checked: every updated row still carries W writers).  Its twin
#   wb (k int PRIMARY KEY, v bigint)
# holds the prototype's value.  Figures, each a ratio against the same
# statement on wb (median server-side execution times, counter and baseline
# interleaved in one session after a warm-up run of each, tables prewarmed:
# bench/pair.sh, the timing of bench/bench.sh):
#
#   sum         SELECT sum(c::bigint) FROM wc   vs  SELECT sum(v) FROM wb
#   increment   UPDATE wc SET c = c + 1 WHERE k <= WRITERS_UPDATE_ROWS
#               vs the same on wb; each run after a VACUUM of its table, so
#               that dead tuples do not pile up on one side
#   bytes       avg(pg_column_size(c)), and how the values are stored
#               (inline, compressed, out of line)
#
# with the table's default settings, and for 100 and 300 writers also with
# the settings README recommends for many writers (STORAGE MAIN and
# toast_tuple_target = 8160).  Bytes per writer: the slope of the stored
# bytes between 100 and 300 writers.  The 300-writer table (the largest
# count) with the default settings also has a stored generated column
#   views bigint GENERATED ALWAYS AS (c::bigint) STORED
# (one more table of that size would double the run time; computing it adds
# one sum of the shards to each increment there): sum(views) vs sum(v).
# Every table is dropped when its figures are taken.  Before timing, the script checks that every row
# carries W writers, this server's among them; after, that every increment
# was counted on both sides.
#
#
# Retired writers (issue 24): a table wc of WRITERS_RETIRED_ROWS rows whose
# counters carry WRITERS_RETIRED_WRITERS writers (the prototype above), of
# which all but writers 1 (this server), 2 and 3 have retired, and its twin
# wb, measured in one run at three stages:
#
#   (a) before folding: every writer's shard
#   (b) after folding: the retired writers folded into this server's id by
#       one statement, SELECT * FROM counter_crdt_fold_writers(retired, 'wc')
#       with retired the array of their ids (one UPDATE of the whole table,
#       each counter rewritten once): 3 shards and a 64-byte fold record per
#       retired writer
#   (c) after forgetting: SELECT * FROM counter_crdt_forget_writers(retired,
#       'wc'): 3 shards, no records
#
# The stages are taken twice, each time on a new pair of tables built alike
# (dropped after stage (c)): with wc's counter column compressed with pglz
# (the default, set explicitly), then with lz4 (ALTER TABLE wc ALTER COLUMN
# c SET COMPRESSION lz4, before anything is stored).  A folded value of
# about 19 kB is compressed and stored out of line, and its compression
# weighs on every write of it.
#
# Each stage starts with VACUUM FULL of both tables (so that it measures the
# values, not what the previous stage's updates left in the heap), then
# takes the bytes, the sum and the increment as above, the increment on
# every row.  The fold and the forget statement each run after a VACUUM of
# wc, between WRITERS_RUNS bigint increments of every row before and as many
# after (UPDATE wb SET v = v + 1, each after a VACUUM of wb, after a warm-up
# one), all in one session: its server-side time (EXPLAIN ANALYZE) gives the
# time per row and the ratio to the bigint increment of the same rows (the
# median of those bigint increments).  With WRITERS_RETIRED_ONE_BY_ONE=1 they
# are instead one statement per retired writer, counter_crdt_fold_writer
# (retired, 'wc') and counter_crdt_forget_writer(retired, 'wc'), each after
# a VACUUM of wc and followed by a VACUUM of wb and a bigint increment (the
# baseline: the median of those).  Checks, failing the run: at every stage
# every row's c::bigint equals its twin's v (less the bigint increments
# run beside the folds and forgets) and the sum equals what the previous
# stage left; every value carries the stage's writers (this server's
# among them) and fold records, and no value is compressed with another
# method than the run's; a second fold and forget of the retired writers
# change nothing.
#
# Knobs: WRITERS_ROWS [100000], WRITERS_UPDATE_ROWS [10000], WRITERS_RUNS
# [3] (timed runs of each statement), WRITERS_COUNTS ["1 3 30 100 300"],
# WRITERS_MANY ["100 300"] (the counts also measured with the recommended
# settings; the bytes-per-writer slope takes its first and last),
# WRITERS_SHARED_BUFFERS [2GB]; WRITERS_RETIRED [1] (0 skips the retired
# writers), WRITERS_ONLY_RETIRED [0] (1: only the retired writers),
# WRITERS_RETIRED_ROWS [400], WRITERS_RETIRED_WRITERS [300] (at least 4),
# WRITERS_RETIRED_SETTINGS [many] (the table settings: "many", those README
# recommends for many writers, or "default"), WRITERS_RETIRED_LZ4 [1] (0
# skips the lz4 run, for a server built without lz4),
# WRITERS_RETIRED_ONE_BY_ONE [0] (1: one fold and one forget statement per
# retired writer).  Exits 0 when the figures were measured, whether or not a
# target is met; non-zero when a check fails.
set -euo pipefail

T_START=$(date +%s)
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ROWS=${WRITERS_ROWS:-100000}
UPD=${WRITERS_UPDATE_ROWS:-10000}
RUNS_N=${WRITERS_RUNS:-3}
COUNTS=${WRITERS_COUNTS:-"1 3 30 100 300"}
MANY=${WRITERS_MANY:-"100 300"}
SHARED_BUFFERS=${WRITERS_SHARED_BUFFERS:-2GB}
RETIRED=${WRITERS_RETIRED:-1}
ONLY_RETIRED=${WRITERS_ONLY_RETIRED:-0}
RET_ROWS=${WRITERS_RETIRED_ROWS:-400}
RET_W=${WRITERS_RETIRED_WRITERS:-300}
RET_SETTINGS=${WRITERS_RETIRED_SETTINGS:-many}
RET_LZ4=${WRITERS_RETIRED_LZ4:-1}
ONE_BY_ONE=${WRITERS_RETIRED_ONE_BY_ONE:-0}
# shellcheck source=scripts/pgcluster.sh
source "$ROOT/scripts/pgcluster.sh"
PG_CONFIG=$(pgc_pg_config)
export PG_CONFIG

BENCH_TAG=writers
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"
ms() { awk -v m="$1" 'BEGIN { printf (m >= 100 ? "%.0f" : m >= 10 ? "%.1f" : "%.2f"), m }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf (a / b >= 10 ? "%.1f" : "%.2f"), a / b }'; }
# "RATIO × (A / B ms; CPU RATIO ×)" of the pair A, B
figure() { echo "$(ratio "${MED[$1]}" "${MED[$2]}") × ($(ms "${MED[$1]}") / $(ms "${MED[$2]}") ms; CPU $(ratio "${CPUMS[$1]}" "${CPUMS[$2]}") ×)"; }

for v in ROWS UPD RUNS_N RET_ROWS RET_W; do
	[[ ${!v} =~ ^[1-9][0-9]*$ ]] || die "$v must be a positive integer"
done
[[ $RETIRED =~ ^[01]$ ]] || die "WRITERS_RETIRED must be 0 or 1"
[[ $ONLY_RETIRED =~ ^[01]$ ]] || die "WRITERS_ONLY_RETIRED must be 0 or 1"
[[ $RET_LZ4 =~ ^[01]$ ]] || die "WRITERS_RETIRED_LZ4 must be 0 or 1"
[[ $ONE_BY_ONE =~ ^[01]$ ]] || die "WRITERS_RETIRED_ONE_BY_ONE must be 0 or 1"
[ "$ONLY_RETIRED" = 0 ] || [ "$RETIRED" = 1 ] || die "WRITERS_ONLY_RETIRED=1 with WRITERS_RETIRED=0 leaves nothing to measure"
[ "$RET_W" -ge 4 ] || die "WRITERS_RETIRED_WRITERS must be at least 4 (3 live writers and a retired one)"
case $RET_SETTINGS in default | many) ;; *) die "WRITERS_RETIRED_SETTINGS must be default or many" ;; esac
[ "$UPD" -le "$ROWS" ] || die "WRITERS_UPDATE_ROWS must not exceed WRITERS_ROWS"
for w in $COUNTS $MANY; do
	[[ $w =~ ^[1-9][0-9]*$ ]] || die "writer counts must be positive integers (got '$w')"
done

pg_start "" "" -c synchronous_commit=off -c jit=off -c "shared_buffers=$SHARED_BUFFERS" \
	-c work_mem=256MB -c maintenance_work_mem=512MB -c max_parallel_workers_per_gather=0 \
	-c autovacuum=off -c max_wal_size=8GB -c checkpoint_timeout=30min \
	-c shared_preload_libraries=pg_prewarm -c pg_prewarm.autoprewarm=off >/dev/null
pgc_mktemp
WORK=$PGC_TMP
# shellcheck source=bench/pair.sh
source "$ROOT/bench/pair.sh"
q() { pg_psql -q -A -t -c "$1"; }
qs() { pg_psql -q -A -t -f -; }	# statements from stdin, each in its own transaction

q "CREATE EXTENSION counter_crdt; CREATE EXTENSION pg_prewarm;"
EXT_VERSION=$(q "SELECT extversion FROM pg_extension WHERE extname = 'counter_crdt'")
PG_VERSION=$(q "SHOW server_version")
OWN=$(q "SELECT md5('writer:1')::uuid")
pg_psql -q -A -t -c "LOAD 'counter_crdt'" -c "ALTER SYSTEM SET counter_crdt.node_id = '$OWN'" >/dev/null
q "SELECT pg_reload_conf()" >/dev/null
for _ in $(seq 1 50); do
	[ "$(q "SELECT counter_crdt_node_id()")" = "$OWN" ] && break
	sleep 0.1
done
[ "$(q "SELECT counter_crdt_node_id()")" = "$OWN" ] || die "counter_crdt.node_id did not take effect"
say "server: PostgreSQL $PG_VERSION, counter_crdt $EXT_VERSION, socket $PGC_HOST, port $PGC_PORT; this server writes as $OWN (writer 1)"

# The prototype value of W writers.
proto()
{
	echo "(SELECT ('{' || string_agg(format('%s:%s:%s', md5('writer:' || i)::uuid,
	                                      1 + abs(hashint4(i)) % 999,
	                                      abs(hashint4(-i)) % 100000), ', ') || '}')::counter_crdt
	   FROM generate_series(1, $1) i)"
}

# Prewarms a table, its indexes, its TOAST table and the TOAST index.
prewarm()
{
	q "SELECT pg_prewarm(r) FROM (
	     SELECT oid AS r FROM pg_class WHERE oid = '$1'::regclass
	     UNION ALL SELECT indexrelid FROM pg_index WHERE indrelid = '$1'::regclass
	     UNION ALL SELECT reltoastrelid FROM pg_class WHERE oid = '$1'::regclass AND reltoastrelid <> 0
	     UNION ALL SELECT i.indexrelid FROM pg_class c JOIN pg_index i ON i.indrelid = c.reltoastrelid
	      WHERE c.oid = '$1'::regclass) s" >/dev/null
}

# Values of wc stored out of line (one first chunk each).
out_of_line()
{
	local toast
	toast=$(q "SELECT reltoastrelid::regclass FROM pg_class WHERE oid = 'wc'::regclass AND reltoastrelid <> 0")
	if [ -z "$toast" ]; then echo 0; else q "SELECT count(*) FROM $toast WHERE chunk_seq = 0"; fi
}

declare -A R_SUM R_INC F_SUM F_INC BYTES STORED
# storage LABEL NROWS: BYTES[LABEL], the average stored bytes of wc's
# values, and STORED[LABEL], how they are stored (and compressed: pglz, lz4).
storage()
{
	local label=$1 nrows=$2 comp meth ool
	read -r BYTES[$label] comp meth < <(q "SELECT round(avg(pg_column_size(c))),
	                                               count(*) FILTER (WHERE pg_column_compression(c) IS NOT NULL),
	                                               coalesce(string_agg(DISTINCT pg_column_compression(c), '+'), '-')
	                                          FROM wc" | tr '|' ' ')
	ool=$(out_of_line)
	if [ "$ool" -gt 0 ]; then STORED[$label]="out of line"; else STORED[$label]="inline"; fi
	[ "$comp" -eq 0 ] || STORED[$label]+=", compressed with $meth"
	[ "$comp" -eq 0 ] || [ "$comp" -eq "$nrows" ] || STORED[$label]+=" ($comp of $nrows)"
	[ "$ool" -eq 0 ] || [ "$ool" -eq "$nrows" ] || STORED[$label]+=" ($ool of $nrows out of line)"
}
# measure LABEL W SETTINGS [GENERATED]: builds wc and wb for W writers with
# the table SETTINGS ("default" or "many"; GENERATED: wc also has the stored
# generated column views), takes the figures, drops them.
measure()
{
	local label=$1 w=$2 settings=$3 gen=${4:-} with="" cols="" p rows_w own total_c total_b runs t0
	t0=$(date +%s)
	[ "$settings" = many ] && with=" WITH (toast_tuple_target = 8160)"
	[ -z "$gen" ] || cols=", views bigint GENERATED ALWAYS AS (c::bigint) STORED"
	p=$(proto "$w")
	say "$label: $w writers per counter, $settings table settings${gen:+, generated column views}: building $ROWS rows"
	qs <<-SQL
		CREATE TABLE wc (k int PRIMARY KEY, c counter_crdt$cols)$with;
		$([ "$settings" = many ] && echo "ALTER TABLE wc ALTER c SET STORAGE MAIN;")
		CREATE TABLE wb (k int PRIMARY KEY, v bigint NOT NULL);
		INSERT INTO wc SELECT k, $p FROM generate_series(1, $ROWS) k;
		INSERT INTO wb SELECT k, $p::bigint FROM generate_series(1, $ROWS) k;
		VACUUM (FREEZE, ANALYZE) wc, wb;
		CHECKPOINT;
	SQL
	say "$label: built in $(($(date +%s) - t0)) s"
	read -r rows_w own < <(q "SELECT count(*) FILTER (WHERE counter_crdt_writers(c) = $w),
	                                 (SELECT count(*) FROM wc, counter_crdt_shards(c) s
	                                   WHERE k = 1 AND s.id = counter_crdt_node_id())
	                            FROM wc" | tr '|' ' ')
	[ "$rows_w" = "$ROWS" ] && [ "$own" = 1 ] ||
		die "$label: $rows_w of $ROWS rows carry $w writers; this server's shard in row 1: $own"
	storage "$label" "$ROWS"
	prewarm wc
	prewarm wb
	pair "${label}_c" "" "SELECT sum(c::bigint) FROM wc" "${label}_b" "" "SELECT sum(v) FROM wb" "$RUNS_N"
	F_SUM[$label]=$(figure "${label}_c" "${label}_b")
	R_SUM[$label]=$(calc "${MED[${label}_c]} / ${MED[${label}_b]}" 1)
	if [ -n "$gen" ]; then
		pair gen_c "" "SELECT sum(views) FROM wc" gen_b "" "SELECT sum(v) FROM wb" "$RUNS_N"
		R_GEN=$(calc "${MED[gen_c]} / ${MED[gen_b]}" 2)
		F_GEN=$(figure gen_c gen_b)
	fi
	pair "${label}_ci" "VACUUM wc;" "UPDATE wc SET c = c + 1 WHERE k <= $UPD" \
		"${label}_bi" "VACUUM wb;" "UPDATE wb SET v = v + 1 WHERE k <= $UPD" "$RUNS_N"
	F_INC[$label]=$(figure "${label}_ci" "${label}_bi")
	R_INC[$label]=$(calc "${MED[${label}_ci]} / ${MED[${label}_bi]}" 1)
	# Every increment counted on both sides (warm-up run included), no
	# updated row grew a shard, and views follows c.
	runs=$((RUNS_N + 1))
	read -r total_c total_b rows_w < <(q "SELECT (SELECT sum(c::bigint) FROM wc) - $ROWS * $p::bigint,
	                                             (SELECT sum(v) FROM wb) - $ROWS * $p::bigint,
	                                             (SELECT count(*) FROM wc WHERE k <= $UPD AND counter_crdt_writers(c) = $w)" | tr '|' ' ')
	[ "$total_c" = $((UPD * runs)) ] && [ "$total_b" = $((UPD * runs)) ] ||
		die "$label: $total_c (counter) and $total_b (bigint) counted by $runs runs of $UPD increments"
	[ "$rows_w" = "$UPD" ] || die "$label: $rows_w of $UPD updated rows still carry $w writers"
	[ -z "$gen" ] || [ "$(q "SELECT count(*) FROM wc WHERE views = c::bigint")" = "$ROWS" ] ||
		die "$label: views differs from c::bigint"
	say "$label: sum ${R_SUM[$label]} x, increment ${R_INC[$label]} x, ${BYTES[$label]} bytes (${STORED[$label]})${gen:+, sum(views) $R_GEN x}; $(($(date +%s) - t0)) s"
	q "DROP TABLE wc, wb"
}


# --- retired writers (issue 24) ------------------------------------------------
declare -A RAW SIZE_C SIZE_B STEP_N STEP_TOTAL STEP_CPU_TOTAL STEP_MED STEP_CPU BASE_MED BASE_CPU
RET_N=$((RET_W - 3))	# retired: writers 4 to RET_W; live: 1 (this server), 2, 3
RET_IDS="ARRAY(SELECT md5('writer:' || i)::uuid FROM generate_series(4, $RET_W) i)"

# ret_check LABEL SHARDS RECORDS: every value carries SHARDS writers, this
# server's among them, and RECORDS fold records, and none is compressed with
# another method than COMP; every counter equals its bigint twin less OFF,
# and their sum is TOTAL.
ret_check()
{
	local label=$1 shards=$2 recs=$3 n total diff other
	read -r n total diff other < <(q "SELECT count(*) FILTER (WHERE counter_crdt_writers(c) = $shards
	                                          AND (SELECT count(*) FROM counter_crdt_folds(c)) = $recs
	                                          AND EXISTS (SELECT FROM counter_crdt_shards(c) s
	                                                       WHERE s.id = counter_crdt_node_id())),
	                                        sum(c::bigint),
	                                        count(*) FILTER (WHERE c::bigint + $OFF IS DISTINCT FROM v),
	                                        count(*) FILTER (WHERE pg_column_compression(c) <> '$COMP')
	                                   FROM wc FULL JOIN wb USING (k)" | tr '|' ' ')
	[ "$n" = "$RET_ROWS" ] ||
		die "$label: $n of $RET_ROWS values carry $shards writers (this server's among them) and $recs fold records"
	[ "$total" = "$TOTAL" ] || die "$label: the counters' total is $total, want $TOTAL (unchanged by folding and forgetting)"
	[ "$diff" = 0 ] || die "$label: $diff counters differ from their bigint twins (less the $OFF baseline increments)"
	[ "$other" = 0 ] || die "$label: $other values compressed with another method than $COMP"
}

# ret_stage LABEL SHARDS RECORDS: the figures of one stage.
ret_stage()
{
	local label=$1 shards=$2 recs=$3 t0
	t0=$(date +%s)
	qs <<-SQL
		VACUUM FULL wc, wb;
		VACUUM (FREEZE, ANALYZE) wc, wb;
		CHECKPOINT;
	SQL
	ret_check "$label" "$shards" "$recs"
	storage "$label" "$RET_ROWS"
	read -r RAW[$label] SIZE_C[$label] SIZE_B[$label] < <(q "SELECT round(avg(pg_column_size(counter_crdt_merge(c, c)))),
	                                                                pg_table_size('wc'), pg_table_size('wb')
	                                                           FROM wc" | tr '|' ' ')
	prewarm wc
	prewarm wb
	pair "${label}_c" "" "SELECT sum(c::bigint) FROM wc" "${label}_b" "" "SELECT sum(v) FROM wb" "$RUNS_N"
	F_SUM[$label]=$(figure "${label}_c" "${label}_b")
	R_SUM[$label]=$(calc "${MED[${label}_c]} / ${MED[${label}_b]}" 1)
	pair "${label}_ci" "VACUUM wc;" "UPDATE wc SET c = c + 1" \
		"${label}_bi" "VACUUM wb;" "UPDATE wb SET v = v + 1" "$RUNS_N"
	F_INC[$label]=$(figure "${label}_ci" "${label}_bi")
	R_INC[$label]=$(calc "${MED[${label}_ci]} / ${MED[${label}_bi]}" 1)
	# Every increment (warm-up run included) counted on both sides, and
	# nothing else changed.
	TOTAL=$(q "SELECT $TOTAL + $RET_ROWS * $((RUNS_N + 1))")
	ret_check "$label" "$shards" "$recs"
	say "$label: $shards writers, $recs fold records: sum ${R_SUM[$label]} x, increment ${R_INC[$label]} x, ${BYTES[$label]} bytes (${STORED[$label]}; ${RAW[$label]} uncompressed); $(($(date +%s) - t0)) s"
}

# ret_step KIND ACTION: folds (ACTION fold) or forgets (forget) the retired
# writers in wc, by one statement counter_crdt_ACTION_writers(retired, 'wc')
# after a VACUUM of wc, between RUNS_N bigint increments of every row before
# and RUNS_N after (each after a VACUUM of wb; a warm-up one first, not
# counted), or with ONE_BY_ONE=1 by counter_crdt_ACTION_writer(retired,
# 'wc') for each retired writer, each after a VACUUM of wc and followed by a
# VACUUM of wb and a bigint increment; all in one session.  STEP_*[KIND]:
# the statements' number, total and median time and CPU time; BASE_*[KIND]:
# the median time and CPU time of the bigint increments.
ret_step()
{
	local kind=$1 action=$2
	local i n f=$WORK/$kind.sql t0 c="" b="" cc="" cb="" inc what
	local -a ms cpu tag
	t0=$(date +%s)
	inc="VACUUM wb;
EXPLAIN (ANALYZE, TIMING OFF, SUMMARY ON, COSTS OFF) UPDATE wb SET v = v + 1;"
	if [ "$ONE_BY_ONE" = 1 ]; then
		what="$RET_N statements SELECT * FROM counter_crdt_${action}_writer(retired, 'wc'), each followed by a bigint increment of every row"
	else
		what="SELECT * FROM counter_crdt_${action}_writers(retired, 'wc') for the $RET_N retired writers, between $RUNS_N bigint increments of every row before and $RUNS_N after"
	fi
	say "retired: $kind: $what"
	{
		echo "SET log_executor_stats = on;"
		echo "SET client_min_messages = log;"
		if [ "$ONE_BY_ONE" = 1 ]; then
			for i in $(seq 4 "$RET_W"); do
				echo "VACUUM wc;"
				echo "EXPLAIN (ANALYZE, TIMING OFF, SUMMARY ON, COSTS OFF) SELECT * FROM counter_crdt_${action}_writer(md5('writer:$i')::uuid, 'wc');"
				echo "$inc"
				tag+=(c b)
			done
		else
			echo "$inc"
			tag+=(w)
			for i in $(seq 1 "$RUNS_N"); do echo "$inc"; tag+=(b); done
			echo "VACUUM wc;"
			echo "EXPLAIN (ANALYZE, TIMING OFF, SUMMARY ON, COSTS OFF) SELECT * FROM counter_crdt_${action}_writers($RET_IDS, 'wc');"
			tag+=(c)
			for i in $(seq 1 "$RUNS_N"); do echo "$inc"; tag+=(b); done
		fi
	} >"$f"
	pg_psql -q -A -t -f "$f" >"$f.out" 2>"$f.err" ||
		{ cat "$f.err" >&2; die "retired: $kind failed"; }
	mapfile -t ms < <(sed -n 's/^Execution Time: \([0-9.]*\) ms$/\1/p' "$f.out")
	mapfile -t cpu < <(sed -n 's/^!\s*\([0-9.]*\) s user, \([0-9.]*\) s system, .*elapsed.*/\1 \2/p' "$f.err" |
		awk '{ printf "%.3f\n", ($1 + $2) * 1000 }')
	n=${#tag[@]}
	if [ "${#ms[@]}" -ne "$n" ] || [ "${#cpu[@]}" -ne "$n" ]; then
		cat "$f.out" "$f.err" >&2
		die "retired: $kind: ${#ms[@]} execution times and ${#cpu[@]} CPU times, want $n each"
	fi
	for i in $(seq 0 $((n - 1))); do
		case ${tag[i]} in
			c) c+=" ${ms[i]}"; cc+=" ${cpu[i]}" ;;
			b) b+=" ${ms[i]}"; cb+=" ${cpu[i]}" ;;
		esac
	done
	STEP_N[$kind]=$(wc -w <<<"$c")
	STEP_TOTAL[$kind]=$(tr ' ' '\n' <<<"$c" | awk '{ s += $1 } END { printf "%.3f", s }')
	STEP_CPU_TOTAL[$kind]=$(tr ' ' '\n' <<<"$cc" | awk '{ s += $1 } END { printf "%.3f", s }')
	STEP_MED[$kind]=$(median <<<"$c")
	STEP_CPU[$kind]=$(median <<<"$cc")
	BASE_MED[$kind]=$(median <<<"$b")
	BASE_CPU[$kind]=$(median <<<"$cb")
	OFF=$((OFF + n - ${STEP_N[$kind]}))	# every bigint increment, warm-up included
	# Run again, it changes nothing.
	i=$(q "SELECT coalesce(sum(counters), 0) FROM counter_crdt_${action}_writers($RET_IDS, 'wc')")
	[ "$i" = 0 ] || die "retired: $kind of the retired writers run again changed $i counters"
	say "retired: $kind: $(calc "${STEP_TOTAL[$kind]} / 1000" 1) s in ${STEP_N[$kind]} statement(s) (CPU $(calc "${STEP_CPU_TOTAL[$kind]} / 1000" 1) s) vs $(ms "${BASE_MED[$kind]}") ms a bigint increment (median of $(wc -w <<<"$b")); $(($(date +%s) - t0)) s"
}

# retired COMP: builds wc, its counter column compressed with COMP (pglz or
# lz4), and wb, takes the three stages (labels ret_a to ret_c for pglz,
# lz4_a to lz4_c for lz4), drops them.
retired()
{
	local with="" p t0 pre sfx
	COMP=$1
	if [ "$COMP" = pglz ]; then pre=ret; sfx=""; else pre=$COMP; sfx=_$COMP; fi
	t0=$(date +%s)
	[ "$RET_SETTINGS" = many ] && with=" WITH (toast_tuple_target = 8160)"
	p=$(proto "$RET_W")
	say "retired: $RET_W writers per counter, $RET_N of them retired (all but writers 1, this server, 2 and 3), $RET_SETTINGS table settings, compression $COMP: building $RET_ROWS rows"
	qs <<-SQL
		CREATE TABLE wc (k int PRIMARY KEY, c counter_crdt)$with;
		$([ "$RET_SETTINGS" = many ] && echo "ALTER TABLE wc ALTER c SET STORAGE MAIN;")
		ALTER TABLE wc ALTER COLUMN c SET COMPRESSION $COMP;
		CREATE TABLE wb (k int PRIMARY KEY, v bigint NOT NULL);
		INSERT INTO wc SELECT k, $p FROM generate_series(1, $RET_ROWS) k;
		INSERT INTO wb SELECT k, $p::bigint FROM generate_series(1, $RET_ROWS) k;
	SQL
	TOTAL=$(q "SELECT $RET_ROWS * $p::bigint")
	OFF=0	# bigint increments that wb got beside the folds and forgets
	ret_stage "${pre}_a" "$RET_W" 0
	ret_step "fold$sfx" fold
	ret_stage "${pre}_b" 3 "$RET_N"
	ret_step "forget$sfx" forget
	ret_stage "${pre}_c" 3 0
	q "DROP TABLE wc, wb"
	say "retired, $COMP: $(($(date +%s) - t0)) s"
}

# The value column for readers rides on the largest default-settings table
# (computing it adds one sum of the shards to each increment there).
GW=${COUNTS##* }
R_GEN=""
F_GEN=""
if [ "$ONLY_RETIRED" = 0 ]; then
	for w in $COUNTS; do measure "w$w" "$w" default "$([ "$w" = "$GW" ] && echo generated)"; done
	for w in $MANY; do measure "m$w" "$w" many; done
fi
if [ "$RETIRED" = 1 ]; then
	retired pglz
	[ "$RET_LZ4" = 0 ] || retired lz4
fi

# --- the tables ----------------------------------------------------------------
LO=${MANY%% *}
HI=${MANY##* }
slope() { calc "(${BYTES[$2]} - ${BYTES[$1]}) / ($HI - $LO)" 1; }
judge() { awk "BEGIN { exit !($1) }" && echo "met" || echo "missed"; }
target() # KIND W RATIO: the issue's target for W writers, and whether RATIO meets it
{
	local t
	case "$1:$2" in
		sum:100) t=20 ;; sum:300) t=60 ;; inc:100) t=8 ;; inc:300) t=25 ;; *) echo ""; return ;;
	esac
	echo "≤ $t × ($(judge "$3 <= $t"))"
}
CPU=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
COMMIT=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ "$ONLY_RETIRED" = 0 ]; then
	echo
	echo "writers per counter: counter_crdt $EXT_VERSION (commit $COMMIT), PostgreSQL $PG_VERSION, $(nproc) CPUs ($CPU), $(date -u '+%Y-%m-%d %H:%M UTC'), load average $(cut -d' ' -f1-3 /proc/loadavg)"
	echo
	echo "| writers | table settings | \`sum(c::bigint)\` vs \`sum(v)\` | target | \`c = c + 1\`, $(fmt_int "$UPD") rows, vs bigint | target | stored bytes |"
	echo "|---:|---|---:|---|---:|---|---|"
	row()
	{
		local label=$1 w=$2 settings=$3
		echo "| $w | $settings | ${F_SUM[$label]} | $(target sum "$w" "${R_SUM[$label]}") | ${F_INC[$label]} | $(target inc "$w" "${R_INC[$label]}") | ${BYTES[$label]} (${STORED[$label]}) |"
	}
	for w in $COUNTS; do row "w$w" "$w" default; done
	for w in $MANY; do row "m$w" "$w" "STORAGE MAIN, toast_tuple_target = 8160"; done
	per_writer() # LABEL_LO LABEL_HI SETTINGS
	{
		local b
		[ -n "${BYTES[$1]:-}" ] && [ -n "${BYTES[$2]:-}" ] || return 0
		b=$(slope "$1" "$2")
		echo "| $LO → $HI | $3 | | | | | $b bytes per writer, target ≤ 24 ($(judge "$b <= 24")) |"
	}
	per_writer "w$LO" "w$HI" default
	per_writer "m$LO" "m$HI" "STORAGE MAIN, toast_tuple_target = 8160"
	echo "| $GW | default, with a stored generated column \`views bigint GENERATED ALWAYS AS (c::bigint) STORED\`: \`sum(views)\` vs \`sum(v)\` | $F_GEN | | | | |"
	echo
	echo "* $(fmt_int "$ROWS") rows (k int PRIMARY KEY, c counter_crdt) per line, each the same prototype value: md5-random writer ids, clocks below 1,000, values below 100,000; this server's id among them, so c + 1 never adds a shard. Baseline: the same statement on a twin (k int PRIMARY KEY, v bigint). Medians of $RUNS_N server-side execution times (EXPLAIN ANALYZE), counter and bigint interleaved after a warm-up run of each, tables prewarmed; each UPDATE run after a VACUUM of its table. In parentheses: the median times, counter / bigint, and the ratio of the backend's median CPU times (log_executor_stats), less sensitive to other load on the machine."
	echo "* stored bytes: avg(pg_column_size(c)); out of line = in the TOAST table; bytes per writer: the slope of stored bytes between $LO and $HI writers."
fi
if [ "$RETIRED" = 1 ]; then
	kb() { fmt_int "$(calc "$1 / 1024" 0)"; }
	secs() { awk -v m="$1" 'BEGIN { if (m >= 1000) printf "%.1f s", m / 1000; else printf "%.0f ms", m }'; }
	bigratio() { if awk -v a="$1" -v b="$2" 'BEGIN { exit !(a / b >= 100) }'; then fmt_int "$(calc "$1 / $2" 0)"; else ratio "$1" "$2"; fi; }
	ret_row() # LABEL STAGE PER-VALUE
	{
		local raw=""
		[ -n "${BYTES[$1]:-}" ] || return 0
		[ "${RAW[$1]}" = "${BYTES[$1]}" ] || raw="; $(fmt_int "${RAW[$1]}") uncompressed"
		echo "| $2 | $3 | $(fmt_int "${BYTES[$1]}") (${STORED[$1]}$raw) | $(kb "${SIZE_C[$1]}") / $(kb "${SIZE_B[$1]}") kB | ${F_SUM[$1]} | ${F_INC[$1]} |"
	}
	step_row() # KIND STEP
	{
		local each=""
		[ -n "${STEP_N[$1]:-}" ] || return 0
		[ "$ONE_BY_ONE" = 0 ] ||
			each=" $(ratio "${STEP_MED[$1]}" "${BASE_MED[$1]}") × ($(ms "${STEP_MED[$1]}") / $(ms "${BASE_MED[$1]}") ms; CPU $(ratio "${STEP_CPU[$1]}" "${BASE_CPU[$1]}") ×) |"
		echo "| $2 | ${STEP_N[$1]} | $(secs "${STEP_TOTAL[$1]}") | $(ms "$(calc "${STEP_TOTAL[$1]} / $RET_ROWS" 3)") ms |$each $(bigratio "${STEP_TOTAL[$1]}" "${BASE_MED[$1]}") × ($(ms "${STEP_TOTAL[$1]}") / $(ms "${BASE_MED[$1]}") ms; CPU $(bigratio "${STEP_CPU_TOTAL[$1]}" "${BASE_CPU[$1]}") ×) |"
	}
	if [ "$RET_SETTINGS" = many ]; then RET_SET="STORAGE MAIN, toast_tuple_target = 8160"; else RET_SET="default"; fi
	if [ "$ONE_BY_ONE" = 1 ]; then
		HOW="one per retired writer"
		FOLD="counter_crdt_fold_writer(retired, 'wc')"
		FORGET="counter_crdt_forget_writer(retired, 'wc')"
	else
		HOW="retired: the array of the $RET_N ids"
		FOLD="counter_crdt_fold_writers(retired, 'wc')"
		FORGET="counter_crdt_forget_writers(retired, 'wc')"
	fi
	echo
	echo "retired writers: counter_crdt $EXT_VERSION (commit $COMMIT), PostgreSQL $PG_VERSION, $(nproc) CPUs ($CPU), $(date -u '+%Y-%m-%d %H:%M UTC'), load average $(cut -d' ' -f1-3 /proc/loadavg)"
	echo
	echo "| stage | per value | stored bytes | table size, counter / bigint | \`sum(c::bigint)\` vs \`sum(v)\` | \`c = c + 1\`, $(fmt_int "$RET_ROWS") rows, vs bigint |"
	echo "|---|---|---|---:|---:|---:|"
	ret_row ret_a "(a) before folding" "$RET_W shards"
	ret_row ret_b "(b) after folding the $RET_N retired writers into this server's id" "3 shards, $RET_N fold records"
	ret_row lz4_b "(b) the same, the column compressed with lz4" "3 shards, $RET_N fold records"
	ret_row ret_c "(c) after forgetting them" "3 shards"
	echo
	if [ "$ONE_BY_ONE" = 1 ]; then
		echo "| step | statements | time | per row | a statement vs the bigint increment of the same rows | all statements vs one bigint increment of the same rows |"
		echo "|---|---:|---:|---:|---:|---:|"
	else
		echo "| step | statements | time | per row | vs the bigint increment of the same rows |"
		echo "|---|---:|---:|---:|---:|"
	fi
	step_row fold "(a) → (b) fold: \`SELECT * FROM $FOLD\`, $HOW"
	step_row fold_lz4 "the same, the column compressed with lz4"
	step_row forget "(b) → (c) forget: \`SELECT * FROM $FORGET\`, $HOW"
	step_row forget_lz4 "the same, the column compressed with lz4"
	echo
	echo "* $(fmt_int "$RET_ROWS") rows (k int PRIMARY KEY, c counter_crdt), table settings $RET_SET, each the same prototype value of $RET_W writers as above; writers 1 (this server), 2 and 3 live, the $RET_N others retired. The stages are taken on the column compressed with pglz (the default)$([ "$RET_LZ4" = 0 ] || echo ", then on a new pair of tables with the column compressed with lz4 (ALTER TABLE wc ALTER COLUMN c SET COMPRESSION lz4 before anything is stored): its stages (a) and (c) are in the log only"). Each stage measured after VACUUM FULL of both tables; checked at every stage: each counter equals its bigint twin, the total is unchanged by folding and forgetting, each value carries the stage's writers and fold records and no value is compressed with another method. Sum and increment (every row) as above: medians of $RUNS_N runs, counter and bigint interleaved."
	echo "* stored bytes: avg(pg_column_size(c)), compressed size when compressed; uncompressed: avg(pg_column_size(counter_crdt_merge(c, c))). Table size: pg_table_size (heap and TOAST) after VACUUM FULL."
	if [ "$ONE_BY_ONE" = 1 ]; then
		echo "* fold and forget: server-side execution time (EXPLAIN ANALYZE) of each statement, run after a VACUUM of wc, interleaved with a VACUUM of wb and \`UPDATE wb SET v = v + 1\` (the baseline: the median of those $RET_N bigint increments). time: the sum of the $RET_N statements; per row: that sum / $(fmt_int "$RET_ROWS"); all statements vs one bigint increment: the sum / the baseline, CPU: the sum of the backend's CPU times / their median."
	else
		echo "* fold and forget: server-side execution time (EXPLAIN ANALYZE) of the one statement, run after a VACUUM of wc, between $RUNS_N \`UPDATE wb SET v = v + 1\` before and $RUNS_N after, each after a VACUUM of wb (the baseline: their median). per row: the time / $(fmt_int "$RET_ROWS"); vs the bigint increment: the time / the baseline, CPU: the backend's CPU time / the median of the bigint increments'."
	fi
fi
KNOBS="WRITERS_RUNS=$RUNS_N"
[ "$ONLY_RETIRED" = 1 ] || KNOBS+=" WRITERS_ROWS=$ROWS"
[ "$RETIRED" = 1 ] || KNOBS+=" WRITERS_RETIRED=0"
[ "$ONLY_RETIRED" = 0 ] || KNOBS+=" WRITERS_ONLY_RETIRED=1"
[ "$RETIRED" = 0 ] || KNOBS+=" WRITERS_RETIRED_ROWS=$RET_ROWS"
[ "$RETIRED" = 0 ] || [ "$RET_W" = 300 ] || KNOBS+=" WRITERS_RETIRED_WRITERS=$RET_W"
[ "$RETIRED" = 0 ] || [ "$RET_SETTINGS" = many ] || KNOBS+=" WRITERS_RETIRED_SETTINGS=$RET_SETTINGS"
[ "$RETIRED" = 0 ] || [ "$RET_LZ4" = 1 ] || KNOBS+=" WRITERS_RETIRED_LZ4=0"
[ "$RETIRED" = 0 ] || [ "$ONE_BY_ONE" = 0 ] || KNOBS+=" WRITERS_RETIRED_ONE_BY_ONE=1"
echo "* run time $(($(date +%s) - T_START)) s: bash bench/writers.sh ($KNOBS)"
