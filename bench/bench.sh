#!/usr/bin/env bash
#
# bench.sh: the performance figures of counter_crdt, measured in one run on a
# throwaway server, each set against its baseline and its target.
#
#   bash bench/bench.sh            # as root, like scripts/setup.sh
#
# What it does:
#
#   1. scripts/setup.sh (packages, build, install of the working tree).
#   2. Starts its own throwaway cluster (scripts/pgcluster.sh) with
#      synchronous_commit = off, jit = off, shared_buffers = 2GB, a large
#      work_mem (so that both sides of a grouped comparison hash-aggregate in
#      memory), autovacuum = off (the script VACUUMs and CHECKPOINTs before
#      every pgbench run instead, so that no background work lands in one side
#      only) and max_parallel_workers_per_gather = 0 (serial unless a figure
#      says otherwise).  The cluster is stopped and removed at exit.
#   3. Builds the data, checks it, runs the figures, prints ONE table and
#      writes it, with the details, to bench/results.md.
#
# The figures (ratios are always of two measurements made in this run):
#
#   increment throughput   pgbench, 4 clients, 2 threads, -n -M prepared,
#                          "UPDATE inc_c SET c = c + 1 WHERE k = :k" over
#                          10,000 rows vs "UPDATE inc_b SET v = v + 1 ..." on a
#                          bigint twin.  Target: tps >= 0.97 x bigint.
#                          A third side, inc_w, is the bigint table with a
#                          bytea beside v that makes its rows as wide as the
#                          counter's: it splits the ratio into the width's
#                          part (PostgreSQL's) and the counter's own.
#                          Every counter holds 3 shards, the rack ids
#                          counter_crdt_rack_id('dc1', 'rack1'..'rack3'), and
#                          the server's counter_crdt.node_id is set to the id
#                          of dc1:rack1, so this server's own shard is one of
#                          the three and an increment does not grow the value.
#                          The script asserts 3 shards (one of them ours)
#                          before and after the runs.
#   hot-row increments     the same with k in 1..10.  Target: >= 0.97 x.
#   merge aggregate        counter_crdt_merge_agg(c) over 1,000,000 rows
#                          (100,000 keys x 10 replica states, 3 shards each,
#                          clocks differing per copy), serial, vs sum(v) of a
#                          bigint column of the same table.  Target: <= 1.20 x.
#   grouped merge          the same with GROUP BY k vs grouped sum(v).
#                          Target: <= 1.20 x.
#   sum on read            sum(c::bigint) vs sum(v).  Target: <= 1.10 x.
#   sum(c)                 the aggregate over counters (1.6), sum(c) vs
#                          sum(v).  Target: <= 1.15 x.
#   table digest           counter_crdt_digest_agg(k::text, c) over the same
#                          1,000,000 rows, serial, vs sum(v) (reported
#                          against a target of <= 2.0 x: one SHA-256 per row).
#   its hashing alone      the digest's SHA-256 of as many rows in a C loop
#                          (bench/microbench rowhash), no PostgreSQL, vs the
#                          digest pair's sum(v) (reported): the digest's floor.
#   one SHA-256 per row    PostgreSQL's own sha256() of each row's v, summed,
#                          vs sum(v): what hashing every row costs by itself
#                          (reported), the scale for the table digest.
#   parallel merge         the merge aggregate with 2 workers vs serial
#                          (reported, no target; note the number of CPUs).
#   jsonb, what users would write instead
#                          the same states as jsonb {"<uuid>": [clock, value]}
#                          in a twin table, merged by a plpgsql function and
#                          an aggregate defined here.  Target: counter_crdt
#                          merge >= 30 x faster.  Before timing, the script
#                          asserts that both merges give the same states and
#                          per-key totals (and the totals the generator
#                          implies) on a sample of keys.
#   storage                pg_column_size of a 3-shard value (target <= 110
#                          bytes) and pg_total_relation_size of (k, counter),
#                          (k, jsonb) and (k, bigint) tables of the 1,000,000
#                          rows (reported).
#
# Timing: SQL figures take the median of the server-side "Execution Time" of
# EXPLAIN (ANALYZE, TIMING OFF, SUMMARY ON), counter and baseline runs
# interleaved (A B A B ...) in one session after a warm-up run of each, with
# the tables prewarmed into shared buffers (a new backend first faults in
# every page of shared buffers it touches; the warm-up run absorbs that).  The
# backend's CPU time for each statement (log_executor_stats) is reported
# beside, as a cross-check less sensitive to other load on the machine.
# pgbench figures run the same duration for every side, interleaved (bigint,
# counter, wide bigint, bigint, ...), best of each; the script asserts that the
# totals after the runs account for every transaction pgbench reports.
#
# The script exits 0 when the figures were measured, whether or not a target
# is met: it is a benchmark, not a test.  It exits non-zero when something
# breaks (build, server, a failed check of the data).
#
# Knobs (environment variables, defaults in brackets):
#
#   BENCH_KEYS [100000]          keys of the merge data
#   BENCH_COPIES [10]            replica states per key
#   BENCH_INC_ROWS [10000]       rows of the increment tables
#   BENCH_HOT_ROWS [10]          rows hit by the hot-row runs
#   BENCH_SECONDS [15]           duration of each pgbench run
#   BENCH_PGBENCH_RUNS [3]       pgbench runs per side
#   BENCH_CLIENTS [4]            pgbench -c
#   BENCH_THREADS [2]            pgbench -j
#   BENCH_SQL_RUNS [5]           timed runs per SQL query
#   BENCH_JSONB_RUNS [3]         timed runs of the (slow) jsonb merge
#   BENCH_SAMPLE_KEYS [1000]     keys in the jsonb/counter_crdt cross-check
#   BENCH_SHARED_BUFFERS [2GB]
#   BENCH_WORK_MEM [1GB]
#   BENCH_OUT [bench/results.md]
#   BENCH_REPLICATED [1]         then run bench/replicated.sh (the apply rate
#                                of a backlog and the three-server mesh: about
#                                four minutes; its knobs are REPL_*) and
#                                append its table to BENCH_OUT; 0 skips it
#   BENCH_WRITERS [1]            then run bench/writers.sh (what 1 to 300
#                                writers per counter cost; about five minutes;
#                                its knobs are WRITERS_*) and append its table
#                                to BENCH_OUT; 0 skips it
#   BENCH_FDW [1]                then run bench/fdw.sh (counters sharded with
#                                postgres_fdw: increments and merges through a
#                                coordinator vs one server; about four
#                                minutes; its knobs are FDW_*) and append its
#                                table to BENCH_OUT; 0 skips it
#   BENCH_BYTES [1]              then run bench/bytes.sh (what a counter
#                                costs in bytes against a bigint: stored, WAL
#                                per increment, pgoutput per increment; about
#                                a minute; its knobs are BYTES_*) and append
#                                its table to BENCH_OUT; 0 skips it
#   BENCH_MESH [1]               then run bench/mesh.sh (the increments/s a
#                                three-server mesh sustains, counter_crdt vs
#                                bigint; about eleven minutes; skipped before
#                                PostgreSQL 16; its knobs are MESH_*) and
#                                append its table to BENCH_OUT; 0 skips it
#   BENCH_READS [1]              then run bench/reads.sh (sum(c::bigint),
#                                sum, avg, max, c > n and the merge aggregate
#                                against the same on bigint, interleaved
#                                rounds; about a minute and a half; its knobs
#                                are READS_*) and append its table to
#                                BENCH_OUT; 0 skips it
#
set -euo pipefail

T_START=$(date +%s)
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
# shellcheck source=scripts/pgcluster.sh
source "$ROOT/scripts/pgcluster.sh"

KEYS=${BENCH_KEYS:-100000}
COPIES=${BENCH_COPIES:-10}
INC_ROWS=${BENCH_INC_ROWS:-10000}
HOT_ROWS=${BENCH_HOT_ROWS:-10}
SECONDS_RUN=${BENCH_SECONDS:-15}
PGB_RUNS=${BENCH_PGBENCH_RUNS:-3}
CLIENTS=${BENCH_CLIENTS:-4}
THREADS=${BENCH_THREADS:-2}
SQL_RUNS=${BENCH_SQL_RUNS:-5}
JSONB_RUNS=${BENCH_JSONB_RUNS:-3}
SAMPLE_KEYS=${BENCH_SAMPLE_KEYS:-1000}
SHARED_BUFFERS=${BENCH_SHARED_BUFFERS:-2GB}
WORK_MEM=${BENCH_WORK_MEM:-1GB}
OUT=${BENCH_OUT:-$ROOT/bench/results.md}

for n in KEYS COPIES INC_ROWS HOT_ROWS SECONDS_RUN PGB_RUNS CLIENTS THREADS SQL_RUNS JSONB_RUNS SAMPLE_KEYS; do
	if ! [[ ${!n} =~ ^[1-9][0-9]*$ ]]; then
		echo "bench: $n must be a positive integer (got '${!n}')" >&2
		exit 2
	fi
done
if [ "$HOT_ROWS" -gt "$INC_ROWS" ]; then
	echo "bench: BENCH_HOT_ROWS must not exceed BENCH_INC_ROWS" >&2
	exit 2
fi
[ "$SAMPLE_KEYS" -le "$KEYS" ] || SAMPLE_KEYS=$KEYS
ROWS=$((KEYS * COPIES))

BENCH_TAG=bench
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"

# --- 1. build and install ----------------------------------------------------
bash "$ROOT/scripts/setup.sh"
PG_CONFIG=$(pgc_pg_config)
export PG_CONFIG
BINDIR=$(pgc_bindir)
PGBENCH=$BINDIR/pgbench
[ -x "$PGBENCH" ] || die "no pgbench in $BINDIR"

# --- 2. the server -----------------------------------------------------------
SETTINGS=(
	-c synchronous_commit=off
	-c jit=off
	-c "shared_buffers=$SHARED_BUFFERS"
	-c "work_mem=$WORK_MEM"
	-c maintenance_work_mem=512MB
	-c max_parallel_workers_per_gather=0
	-c max_worker_processes=8
	-c max_parallel_workers=8
	-c autovacuum=off
	-c max_wal_size=8GB
	-c checkpoint_timeout=30min
	-c shared_preload_libraries=pg_prewarm
	-c pg_prewarm.autoprewarm=off
)
pg_start "" "" "${SETTINGS[@]}"
export PGC_DB=postgres
pgc_mktemp
WORK=$PGC_TMP

q() { pg_psql -q -A -t -c "$1"; }
qf() { pg_psql -q -A -t -f "$1"; }

PG_VERSION=$(q "SHOW server_version")
say "server: PostgreSQL $PG_VERSION, socket $PGC_HOST, port $PGC_PORT"

q "CREATE EXTENSION counter_crdt; CREATE EXTENSION pg_prewarm;"
EXT_VERSION=$(q "SELECT extversion FROM pg_extension WHERE extname = 'counter_crdt'")
RACK1=$(q "SELECT counter_crdt_rack_id('dc1', 'rack1')")
RACK2=$(q "SELECT counter_crdt_rack_id('dc1', 'rack2')")
RACK3=$(q "SELECT counter_crdt_rack_id('dc1', 'rack3')")
# This server increments as dc1:rack1 (for every session, pgbench's too).
pg_psql -q -A -t -c "LOAD 'counter_crdt'" -c "ALTER SYSTEM SET counter_crdt.node_id = '$RACK1'"
q "SELECT pg_reload_conf()" >/dev/null
for _ in $(seq 1 50); do
	[ "$(q "SELECT counter_crdt_node_id()")" = "$RACK1" ] && break
	sleep 0.1
done
[ "$(q "SELECT counter_crdt_node_id()")" = "$RACK1" ] ||
	die "counter_crdt.node_id did not take effect"

# --- 3. data -----------------------------------------------------------------
say "building data: $(fmt_int "$INC_ROWS") increment rows; $(fmt_int "$ROWS") merge rows ($(fmt_int "$KEYS") keys x $COPIES copies)"
T_DATA=$(date +%s)

cat >"$WORK/data.sql" <<EOF
\set ON_ERROR_STOP 1
SET synchronous_commit = off;

-- Increments: a bigint table and its counter twin, 3 shards per counter,
-- and a bigint table whose rows are as wide as the counter's (a bytea beside
-- the bigint, as long as makes the row as wide as a counter row: the row
-- takes as many bytes more as the pad has, measured with 72), which
-- splits the gap into what a wider row costs PostgreSQL and what the
-- counter's own code does.
CREATE TABLE inc_b (k int PRIMARY KEY, v bigint NOT NULL);
CREATE TABLE inc_c (k int PRIMARY KEY, c counter_crdt NOT NULL);
CREATE TABLE inc_w (k int PRIMARY KEY, v bigint NOT NULL, pad bytea NOT NULL);
INSERT INTO inc_b SELECT k, 6 FROM generate_series(1, $INC_ROWS) k;
INSERT INTO inc_c
SELECT k, counter_crdt_increment(counter_crdt_increment(counter_crdt_increment(
           NULL, 1, '$RACK1'), 2, '$RACK2'), 3, '$RACK3')
FROM generate_series(1, $INC_ROWS) k;
INSERT INTO inc_w
SELECT k, 6, decode(repeat('a5', (SELECT 72 + pg_column_size(c.*) - pg_column_size(x.*)
                                  FROM (SELECT * FROM inc_c LIMIT 1) c,
                                       (SELECT 1::int AS k, 6::bigint AS v,
                                               decode(repeat('a5', 72), 'hex') AS pad) x)), 'hex')
FROM generate_series(1, $INC_ROWS) k;

-- Merge data: $COPIES replica states of each of $KEYS keys, stored
-- copy after copy (as states arrive from replicas).  For key k, copy i and
-- rack r the clock is 1 + (i + k*m_r) % $COPIES, a permutation of
-- 1..$COPIES over the copies, and the value grows with the clock; so the
-- merge of a key's copies has clock $COPIES in every shard and the value
--   $COPIES*(5+3+2) + k%100 + k%50 + k%10.
CREATE TABLE m (k int NOT NULL, c counter_crdt NOT NULL, v bigint NOT NULL);
CREATE TABLE mj (k int NOT NULL, j jsonb NOT NULL, v bigint NOT NULL);
CREATE TEMP VIEW gen AS
SELECT k, c1, c2, c3, c1 * 5 + k % 100 AS v1, c2 * 3 + k % 50 AS v2, c3 * 2 + k % 10 AS v3
FROM generate_series(1, $COPIES) i
     CROSS JOIN LATERAL generate_series(1 + 0 * i, $KEYS) k
     CROSS JOIN LATERAL (SELECT 1 + (i + k) % $COPIES AS c1,
                                1 + (i + 3 * k) % $COPIES AS c2,
                                1 + (i + 7 * k) % $COPIES AS c3) cl;
INSERT INTO m
SELECT k, format('{%s:%s:%s, %s:%s:%s, %s:%s:%s}',
                 '$RACK1', c1, v1, '$RACK2', c2, v2, '$RACK3', c3, v3)::counter_crdt,
       v1 + v2 + v3
FROM gen;
INSERT INTO mj
SELECT k, jsonb_build_object('$RACK1', jsonb_build_array(c1, v1),
                             '$RACK2', jsonb_build_array(c2, v2),
                             '$RACK3', jsonb_build_array(c3, v3)),
       v1 + v2 + v3
FROM gen;

-- Storage: one value column each.
CREATE TABLE sc AS SELECT k, c FROM m;
CREATE TABLE sj AS SELECT k, j FROM mj;
CREATE TABLE sb AS SELECT k, v FROM m;

-- What users would write instead: the same CRDT in jsonb, merged in plpgsql.
CREATE FUNCTION jc_merge(a jsonb, b jsonb) RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS \$\$
DECLARE
	r record;
	cur jsonb;
BEGIN
	IF a IS NULL THEN RETURN b; END IF;
	IF b IS NULL THEN RETURN a; END IF;
	FOR r IN SELECT key, value FROM jsonb_each(b) LOOP
		cur := a -> r.key;
		IF cur IS NULL
		   OR (r.value->>0)::bigint > (cur->>0)::bigint
		   OR ((r.value->>0)::bigint = (cur->>0)::bigint
		       AND (r.value->>1)::bigint > (cur->>1)::bigint) THEN
			a := jsonb_set(a, ARRAY[r.key], r.value);
		END IF;
	END LOOP;
	RETURN a;
END
\$\$;
CREATE AGGREGATE jc_merge_agg(jsonb) (
	SFUNC = jc_merge, STYPE = jsonb, COMBINEFUNC = jc_merge, PARALLEL = SAFE);
CREATE FUNCTION jc_value(j jsonb) RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
\$\$ SELECT sum((value->>1)::bigint)::bigint FROM jsonb_each(j) \$\$;

ALTER TABLE m SET (parallel_workers = 2);
VACUUM (FREEZE, ANALYZE) inc_b, inc_c, inc_w, m, mj, sc, sj, sb;
CHECKPOINT;
EOF
qf "$WORK/data.sql" >/dev/null
say "data built in $(($(date +%s) - T_DATA)) s"

# --- 4. checks of the data ---------------------------------------------------
check_inc_shards()
{
	local when=$1 bad
	bad=$(q "SELECT count(*) FROM inc_c
	         WHERE (SELECT count(*) FROM counter_crdt_shards(c)) <> 3
	            OR NOT EXISTS (SELECT 1 FROM counter_crdt_shards(c) s
	                           WHERE s.id = counter_crdt_node_id())")
	[ "$bad" = 0 ] || die "$when: $bad counters of inc_c do not hold exactly 3 shards with ours among them"
	say "check ($when): all $(fmt_int "$INC_ROWS") counters of inc_c hold 3 shards, this server's among them"
}
check_inc_shards "before the pgbench runs"

# One increment must not grow the value: same shard count, same size.
read -r SZ_BEFORE SZ_AFTER N_AFTER < <(q "BEGIN;
	CREATE TEMP TABLE t1 AS SELECT pg_column_size(c) AS s FROM inc_c WHERE k = 1;
	UPDATE inc_c SET c = c + 0 WHERE k = 1;
	SELECT (SELECT s FROM t1), pg_column_size(c), (SELECT count(*) FROM counter_crdt_shards(c))
	FROM inc_c WHERE k = 1;
	ROLLBACK;" | tr '|' ' ')
if [ "$SZ_BEFORE" != "$SZ_AFTER" ] || [ "$N_AFTER" != 3 ]; then
	die "an increment changed the value's size ($SZ_BEFORE -> $SZ_AFTER bytes, $N_AFTER shards)"
fi

read -r M_ROWS M_3SH < <(q "SELECT count(*), count(*) FILTER (WHERE (SELECT count(*) FROM counter_crdt_shards(c)) = 3) FROM m" | tr '|' ' ')
if [ "$M_ROWS" != "$ROWS" ] || [ "$M_3SH" != "$ROWS" ]; then
	die "merge table: $M_ROWS rows, $M_3SH with 3 shards (want $ROWS)"
fi
DISTINCT_CLOCKS=$(q "SELECT min(n) FROM (SELECT k, count(DISTINCT counter_crdt_digest(c)) AS n FROM m WHERE k <= 100 GROUP BY k) s")
[ "$DISTINCT_CLOCKS" = "$COPIES" ] ||
	die "merge table: the $COPIES copies of a key are not all different states (min $DISTINCT_CLOCKS)"

# The jsonb merge must merge the same data to the same states and totals.
STEP=$((KEYS / SAMPLE_KEYS))
read -r S_KEYS S_SAME_STATE S_SAME_TOTAL S_EXPECTED < <(q "
WITH s AS (SELECT k FROM generate_series($STEP, $KEYS, $STEP) k),
cc AS (SELECT m.k, counter_crdt_merge_agg(c) AS c FROM m JOIN s USING (k) GROUP BY m.k),
jj AS (SELECT mj.k, jc_merge_agg(j) AS j FROM mj JOIN s USING (k) GROUP BY mj.k),
cs AS (SELECT cc.k, array_agg(row(x.id::text, x.clock, x.value)::text ORDER BY x.id::text) AS st
       FROM cc, counter_crdt_shards(cc.c) x GROUP BY cc.k),
js AS (SELECT jj.k, array_agg(row(e.key, (e.value->>0)::bigint, (e.value->>1)::bigint)::text ORDER BY e.key) AS st
       FROM jj, jsonb_each(jj.j) e GROUP BY jj.k)
SELECT (SELECT count(*) FROM s),
       (SELECT count(*) FROM cs JOIN js USING (k) WHERE cs.st = js.st),
       (SELECT count(*) FROM cc JOIN jj USING (k) WHERE cc.c::bigint = jc_value(jj.j)),
       (SELECT count(*) FROM cc WHERE cc.c::bigint = $COPIES * 10 + k % 100 + k % 50 + k % 10)" | tr '|' ' ')
if [ "$S_SAME_STATE" != "$S_KEYS" ] || [ "$S_SAME_TOTAL" != "$S_KEYS" ] || [ "$S_EXPECTED" != "$S_KEYS" ]; then
	die "jsonb vs counter_crdt on $S_KEYS sample keys: $S_SAME_STATE same states, $S_SAME_TOTAL same totals, $S_EXPECTED expected totals"
fi
say "check: on $S_KEYS sample keys, the jsonb merge gives the same states and totals as counter_crdt_merge_agg, and the totals are the expected ones"

# Whole-table merges agree too (cheap for counter_crdt; one jsonb run).
ALL_C=$(q "SELECT string_agg(format('%s:%s:%s', id, clock, value), ',' ORDER BY id::text) FROM counter_crdt_shards((SELECT counter_crdt_merge_agg(c) FROM m))")
ALL_J=$(q "SELECT string_agg(format('%s:%s:%s', key, value->>0, value->>1), ',' ORDER BY key) FROM jsonb_each((SELECT jc_merge_agg(j) FROM mj))")
[ "$ALL_C" = "$ALL_J" ] || die "whole-table merges differ: counter_crdt $ALL_C, jsonb $ALL_J"

# --- 5. prewarm --------------------------------------------------------------
q "SELECT pg_prewarm(r) FROM unnest(ARRAY['m','mj','inc_b','inc_c','inc_w','inc_b_pkey','inc_c_pkey','inc_w_pkey']::regclass[]) r" >/dev/null

# --- 6. timing helpers -------------------------------------------------------
# shellcheck source=bench/pair.sh
source "$ROOT/bench/pair.sh"
SERIAL="SET max_parallel_workers_per_gather = 0;"
PARALLEL="SET max_parallel_workers_per_gather = 2; SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0;"

Q_MERGE="SELECT counter_crdt_merge_agg(c) FROM m"
Q_SUM="SELECT sum(v) FROM m"
Q_GMERGE="SELECT k, counter_crdt_merge_agg(c) FROM m GROUP BY k"
Q_GSUM="SELECT k, sum(v) FROM m GROUP BY k"
Q_READ="SELECT sum(c::bigint) FROM m"
Q_SUMC="SELECT sum(c) FROM m"
Q_JSONB="SELECT jc_merge_agg(j) FROM mj"
Q_DIGEST="SELECT counter_crdt_digest_agg(k::text, c) FROM m"
Q_SHA="SELECT sum(get_byte(sha256(int8send(v)), 0)) FROM m"

# --- 7. pgbench --------------------------------------------------------------
T_PGB=$(date +%s)
for side in b c w; do
	for range in all hot; do
		rows=$INC_ROWS
		[ "$range" = hot ] && rows=$HOT_ROWS
		case $side in
			b) stmt="UPDATE inc_b SET v = v + 1 WHERE k = :k;" ;;
			c) stmt="UPDATE inc_c SET c = c + 1 WHERE k = :k;" ;;
			w) stmt="UPDATE inc_w SET v = v + 1 WHERE k = :k;" ;;
		esac
		printf '\\set k random(1, %d)\n%s\n' "$rows" "$stmt" >"$WORK/inc_${side}_$range.sql"
	done
done

declare -A TPS TPS_RUNS PGB_CMD TX
run_pgbench()
{
	local name=$1 file=$2 out tps
	local cmd=("$PGBENCH" -n -M prepared -c "$CLIENTS" -j "$THREADS" -T "$SECONDS_RUN"
		-f "$file" -h "$PGC_HOST" -p "$PGC_PORT" -U postgres postgres)
	PGB_CMD[$name]="pgbench -n -M prepared -c $CLIENTS -j $THREADS -T $SECONDS_RUN -f $(basename "$file")"
	pg_psql -q -A -t -c "VACUUM inc_b, inc_c, inc_w" -c "CHECKPOINT"
	out=$("${cmd[@]}" 2>&1) || { printf '%s\n' "$out" >&2; die "pgbench failed"; }
	tps=$(sed -n 's/^tps = \([0-9.]*\) (without initial connection time)$/\1/p' <<<"$out")
	[ -n "$tps" ] || { printf '%s\n' "$out" >&2; die "no tps in pgbench output"; }
	if grep -q '^number of failed transactions: [1-9]' <<<"$out"; then
		printf '%s\n' "$out" >&2
		die "pgbench reported failed transactions"
	fi
	TPS_RUNS[$name]+=" $(printf '%.0f' "$tps")"
	local tx
	tx=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' <<<"$out")
	[ -n "$tx" ] || { printf '%s\n' "$out" >&2; die "no transaction count in pgbench output"; }
	TX[${name%%_*}]=$((${TX[${name%%_*}]:-0} + tx))
	say "  ${cmd[*]}  ->  $tps tps"
}

for range in all hot; do
	rows=$INC_ROWS
	[ "$range" = hot ] && rows=$HOT_ROWS
	say "pgbench, increments on $(fmt_int "$rows") rows:"
	for _ in $(seq 1 "$PGB_RUNS"); do
		run_pgbench "b_$range" "$WORK/inc_b_$range.sql"
		run_pgbench "c_$range" "$WORK/inc_c_$range.sql"
		run_pgbench "w_$range" "$WORK/inc_w_$range.sql"
	done
	for side in b c w; do
		TPS[${side}_$range]=$(tr ' ' '\n' <<<"${TPS_RUNS[${side}_$range]}" | grep . | sort -g | tail -n 1)
	done
done
PGB_SECONDS=$(($(date +%s) - T_PGB))
check_inc_shards "after the pgbench runs"
# Every increment counted, on both sides (each row started at 6).
read -r SUM_B SUM_C SUM_W < <(q "SELECT (SELECT sum(v) FROM inc_b), (SELECT sum(c::bigint) FROM inc_c), (SELECT sum(v) FROM inc_w)" | tr '|' ' ')
if [ "$SUM_B" -ne $((6 * INC_ROWS + TX[b])) ] || [ "$SUM_C" -ne $((6 * INC_ROWS + TX[c])) ] ||
	[ "$SUM_W" -ne $((6 * INC_ROWS + TX[w])) ]; then
	die "increments lost: bigint total $SUM_B after ${TX[b]} transactions, counter total $SUM_C after ${TX[c]}, wide bigint total $SUM_W after ${TX[w]} (each from $((6 * INC_ROWS)))"
fi
sleep 1	# let the last pgbench backends' statistics reach the cumulative stats
read -r HOT_B HOT_C < <(q "SELECT max(round(100.0 * n_tup_hot_upd / nullif(n_tup_upd, 0), 1)) FILTER (WHERE relname = 'inc_b'),
                                  max(round(100.0 * n_tup_hot_upd / nullif(n_tup_upd, 0), 1)) FILTER (WHERE relname = 'inc_c')
                           FROM pg_stat_user_tables" | tr '|' ' ')

# --- 8. SQL figures ----------------------------------------------------------
T_SQL=$(date +%s)
pair merge "$SERIAL" "$Q_MERGE" sum "$SERIAL" "$Q_SUM" "$SQL_RUNS"
pair gmerge "$SERIAL" "$Q_GMERGE" gsum "$SERIAL" "$Q_GSUM" "$SQL_RUNS"
pair read "$SERIAL" "$Q_READ" sum2 "$SERIAL" "$Q_SUM" "$SQL_RUNS"
pair sumc "$SERIAL" "$Q_SUMC" sum5 "$SERIAL" "$Q_SUM" "$SQL_RUNS"
pair digest "$SERIAL" "$Q_DIGEST" sum3 "$SERIAL" "$Q_SUM" "$SQL_RUNS"
pair sha "$SERIAL" "$Q_SHA" sum4 "$SERIAL" "$Q_SUM" "$SQL_RUNS"
pair pmerge "$PARALLEL" "$Q_MERGE" smerge "$SERIAL" "$Q_MERGE" "$SQL_RUNS"
pair merge2 "$SERIAL" "$Q_MERGE" jsonb "$SERIAL" "$Q_JSONB" "$JSONB_RUNS"
SQL_SECONDS=$(($(date +%s) - T_SQL))

# The table digest's own hashing without PostgreSQL: bench/microbench rowhash
# hashes as many rows (the same keys, 3-shard stored states) with the calls
# the aggregate makes, in a C loop.  Its ratio to sum(v) is what no scan can
# go below.
make -s -C "$ROOT" bench/microbench >/dev/null
HASH_RUNS=""
for ((i = 0; i < SQL_RUNS; i++)); do
	ns=$("$ROOT/bench/microbench" rowhash "$ROWS" | sed -n 's/.*, \([0-9.]*\) ns each$/\1/p')
	[ -n "$ns" ] || die "bench/microbench rowhash printed no time"
	HASH_RUNS+=" $(calc "$ns * $ROWS / 1000000" 1)"
done
MED[rowhash]=$(median <<<"$HASH_RUNS")
say "  the digest's hashing alone (bench/microbench rowhash, $(fmt_int "$ROWS") rows): median ${MED[rowhash]} ms (${HASH_RUNS# })"

WORKERS=$(sed -n 's/.*Workers Launched: \([0-9]*\).*/\1/p' <<<"${PLAN[pmerge]}" | head -n 1)
WORKERS=${WORKERS:-0}
agg_node() { grep -oE '(HashAggregate|GroupAggregate|MixedAggregate|Finalize [A-Za-z]+|Partial [A-Za-z]+|Aggregate)' <<<"$1" | head -n 1; }
GM_NODE=$(agg_node "${PLAN[gmerge]}")
GS_NODE=$(agg_node "${PLAN[gsum]}")
GM_BATCHES=$(sed -n 's/.*Batches: \([0-9]*\).*/\1/p' <<<"${PLAN[gmerge]}" | head -n 1)
GS_BATCHES=$(sed -n 's/.*Batches: \([0-9]*\).*/\1/p' <<<"${PLAN[gsum]}" | head -n 1)

# --- 9. storage --------------------------------------------------------------
read -r COL_C COL_J COL_B < <(q "SELECT (SELECT pg_column_size(c) FROM sc LIMIT 1), (SELECT pg_column_size(j) FROM sj LIMIT 1), (SELECT pg_column_size(v) FROM sb LIMIT 1)" | tr '|' ' ')
read -r REL_C REL_J REL_B < <(q "SELECT pg_total_relation_size('sc'), pg_total_relation_size('sj'), pg_total_relation_size('sb')" | tr '|' ' ')
MEM_C=$(q "SELECT pg_column_size(counter_crdt_merge_agg(c)) FROM m WHERE k = 1")

# --- 10. the table -----------------------------------------------------------
# ratio helpers (awk: floating point)
judge() { awk "BEGIN { exit !($1) }" && echo PASS || echo FAIL; }
mb() { awk -v b="$1" 'BEGIN { printf "%.1f MB", b / 1048576 }'; }

R_INC=$(calc "${TPS[c_all]} / ${TPS[b_all]}")
R_HOT=$(calc "${TPS[c_hot]} / ${TPS[b_hot]}")
R_INC_W=$(calc "${TPS[w_all]} / ${TPS[b_all]}")
R_HOT_W=$(calc "${TPS[w_hot]} / ${TPS[b_hot]}")
R_INC_CW=$(calc "${TPS[c_all]} / ${TPS[w_all]}")
R_HOT_CW=$(calc "${TPS[c_hot]} / ${TPS[w_hot]}")
R_MERGE=$(calc "${MED[merge]} / ${MED[sum]}")
R_GMERGE=$(calc "${MED[gmerge]} / ${MED[gsum]}")
R_READ=$(calc "${MED[read]} / ${MED[sum2]}")
R_SUMC=$(calc "${MED[sumc]} / ${MED[sum5]}")
R_DIGEST=$(calc "${MED[digest]} / ${MED[sum3]}")
R_SHA=$(calc "${MED[sha]} / ${MED[sum4]}")
R_HASH=$(calc "${MED[rowhash]} / ${MED[sum3]}")
C_DIGEST=$(calc "${CPUMS[digest]} / ${CPUMS[sum3]}")
R_PAR=$(calc "${MED[smerge]} / ${MED[pmerge]}")
R_JSONB=$(calc "${MED[jsonb]} / ${MED[merge2]}")
C_MERGE=$(calc "${CPUMS[merge]} / ${CPUMS[sum]}")
C_GMERGE=$(calc "${CPUMS[gmerge]} / ${CPUMS[gsum]}")
C_READ=$(calc "${CPUMS[read]} / ${CPUMS[sum2]}")
C_SUMC=$(calc "${CPUMS[sumc]} / ${CPUMS[sum5]}")
C_JSONB=$(calc "${CPUMS[jsonb]} / ${CPUMS[merge2]}")

ROWS_T=()
row() { ROWS_T+=("$(printf '%s\t' "$@")"); }
row "figure" "workload" "counter_crdt" "baseline" "ratio" "target" "result"
row "increment throughput" "pgbench -c $CLIENTS -j $THREADS, ${SECONDS_RUN}s, c = c + 1, random k of $(fmt_int "$INC_ROWS") rows, 3-shard counters" \
	"$(printf '%.0f tps' "${TPS[c_all]}")" "$(printf '%.0f tps (bigint)' "${TPS[b_all]}")" "${R_INC} x" ">= 0.97 x" "$(judge "$R_INC >= 0.97")"
row "hot-row increments" "the same on $(fmt_int "$HOT_ROWS") rows" \
	"$(printf '%.0f tps' "${TPS[c_hot]}")" "$(printf '%.0f tps (bigint)' "${TPS[b_hot]}")" "${R_HOT} x" ">= 0.97 x" "$(judge "$R_HOT >= 0.97")"
row "  the width's part" "the bigint rows made as wide as the counter's (a bytea beside v) vs plain bigint: random rows / hot rows" \
	"$(printf '%.0f / %.0f tps' "${TPS[w_all]}" "${TPS[w_hot]}")" "$(printf '%.0f / %.0f tps' "${TPS[b_all]}" "${TPS[b_hot]}")" "${R_INC_W} / ${R_HOT_W} x" "reported" "info"
row "  the counter's part" "counter increments vs the wide bigint rows: random rows / hot rows" \
	"$(printf '%.0f / %.0f tps' "${TPS[c_all]}" "${TPS[c_hot]}")" "$(printf '%.0f / %.0f tps' "${TPS[w_all]}" "${TPS[w_hot]}")" "${R_INC_CW} / ${R_HOT_CW} x" "reported" "info"
row "merge aggregate" "counter_crdt_merge_agg(c), $(fmt_int "$ROWS") rows, serial, vs sum(v) same table" \
	"${MED[merge]} ms" "${MED[sum]} ms (sum(v))" "${R_MERGE} x" "<= 1.20 x" "$(judge "$R_MERGE <= 1.20")"
row "grouped merge" "the same GROUP BY k ($(fmt_int "$KEYS") groups) vs grouped sum(v)" \
	"${MED[gmerge]} ms" "${MED[gsum]} ms (sum(v))" "${R_GMERGE} x" "<= 1.20 x" "$(judge "$R_GMERGE <= 1.20")"
row "sum on read" "sum(c::bigint) vs sum(v), $(fmt_int "$ROWS") rows" \
	"${MED[read]} ms" "${MED[sum2]} ms (sum(v))" "${R_READ} x" "<= 1.10 x" "$(judge "$R_READ <= 1.10")"
row "sum(c)" "the sum aggregate of counters (numeric) vs sum(v), $(fmt_int "$ROWS") rows, serial" \
	"${MED[sumc]} ms" "${MED[sum5]} ms (sum(v))" "${R_SUMC} x" "<= 1.15 x" "$(judge "$R_SUMC <= 1.15")"
row "table digest" "counter_crdt_digest_agg(k::text, c), $(fmt_int "$ROWS") rows, serial, vs sum(v) same table" \
	"${MED[digest]} ms" "${MED[sum3]} ms (sum(v))" "${R_DIGEST} x" "<= 2.0 x, reported" "$(judge "$R_DIGEST <= 2.0")"
row "  its hashing alone" "the same rows' SHA-256 by libcrypto in a C loop outside PostgreSQL (bench/microbench rowhash: keys \"1\" to \"100000\", 3-shard stored states), vs sum(v) of the digest's pair: what no scan goes below" \
	"${MED[rowhash]} ms" "${MED[sum3]} ms (sum(v))" "${R_HASH} x" "reported" "info"
row "one SHA-256 per row" "PostgreSQL's own sha256(int8send(v)) per row, summed, vs sum(v): the scale of the digest's hashing" \
	"${MED[sha]} ms" "${MED[sum4]} ms (sum(v))" "${R_SHA} x" "reported" "info"
row "parallel merge" "merge aggregate, $WORKERS workers launched vs serial ($(nproc) CPUs)" \
	"${MED[pmerge]} ms" "${MED[smerge]} ms (serial)" "${R_PAR} x speed-up" "reported" "info"
row "vs jsonb + plpgsql" "same states as jsonb {uuid: [clock, value]}, plpgsql merge aggregate" \
	"${MED[merge2]} ms" "${MED[jsonb]} ms (jsonb)" "${R_JSONB} x faster" ">= 30 x faster" "$(judge "$R_JSONB >= 30")"
row "storage: value" "pg_column_size of a stored 3-shard value" \
	"$COL_C B" "$COL_J B (jsonb), $COL_B B (bigint)" "$(calc "$COL_J / $COL_C") x smaller than jsonb" "<= 110 B" "$(judge "$COL_C <= 110")"
row "storage: table" "pg_total_relation_size, (k int, value) x $(fmt_int "$ROWS") rows" \
	"$(mb "$REL_C")" "$(mb "$REL_J") (jsonb), $(mb "$REL_B") (bigint)" "$(calc "$REL_C / $REL_B") x bigint, $(calc "$REL_C / $REL_J") x jsonb" "reported" "info"

T_TOTAL=$(($(date +%s) - T_START))
COMMIT=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
DIRTY=""
if git -C "$ROOT" status --porcelain -- src ./*.sql 2>/dev/null | grep -q .; then
	DIRTY=" + uncommitted changes in src/ or the install scripts"
fi
LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)
HUGEPAGES=$(q "SHOW huge_pages")
if [ "$(awk '/^HugePages_Total:/ { print $2 }' /proc/meminfo 2>/dev/null || echo 0)" = 0 ]; then
	HUGEPAGES+=", none configured on this machine"
fi
CPU=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)

NOTES=(
	"Increment counters hold 3 shards: counter_crdt_rack_id('dc1', 'rack1'..'rack3'); the server's counter_crdt.node_id is dc1:rack1's id ($RACK1), so its own shard is one of the three and c + 1 does not grow the value ($SZ_BEFORE bytes before and after; asserted before and after the runs)."
	"pgbench: -n -M prepared, ${SECONDS_RUN} s per run, $PGB_RUNS runs per side interleaved (bigint, counter, wide bigint, ...), best run shown; VACUUM and CHECKPOINT before each run. All runs (tps): bigint${TPS_RUNS[b_all]}, counter${TPS_RUNS[c_all]}, wide bigint${TPS_RUNS[w_all]}; hot rows: bigint${TPS_RUNS[b_hot]}, counter${TPS_RUNS[c_hot]}, wide bigint${TPS_RUNS[w_hot]}. Every increment counted: totals after the runs equal the start plus the transactions pgbench reports (bigint $SUM_B, counter $SUM_C, wide bigint $SUM_W). HOT updates: bigint ${HOT_B:-?} %, counter ${HOT_C:-?} %."
	"SQL figures: median of $SQL_RUNS (jsonb: $JSONB_RUNS) server-side execution times of EXPLAIN (ANALYZE, TIMING OFF, SUMMARY ON), interleaved with the baseline in one session, after a warm-up run of each (a new backend first faults in every page of shared buffers it touches), tables prewarmed (pg_prewarm)."
	"Cross-check, less sensitive to other load on the machine than elapsed time: the backend's CPU time (user + system, log_executor_stats, median) gives merge ${CPUMS[merge]} vs ${CPUMS[sum]} ms = ${C_MERGE} x, grouped ${CPUMS[gmerge]} vs ${CPUMS[gsum]} ms = ${C_GMERGE} x, sum on read ${CPUMS[read]} vs ${CPUMS[sum2]} ms = ${C_READ} x, sum(c) ${CPUMS[sumc]} vs ${CPUMS[sum5]} ms = ${C_SUMC} x, table digest ${CPUMS[digest]} vs ${CPUMS[sum3]} ms = ${C_DIGEST} x, jsonb ${CPUMS[jsonb]} vs ${CPUMS[merge2]} ms = ${C_JSONB} x slower than counter_crdt."
	"Grouped plans: counter_crdt $GM_NODE${GM_BATCHES:+ (batches: $GM_BATCHES)}, sum(v) $GS_NODE${GS_BATCHES:+ (batches: $GS_BATCHES)}."
	"Parallel: max_parallel_workers_per_gather = 2, parallel costs 0, parallel_workers = 2 on the table; $WORKERS workers launched, plus the leader, on $(nproc) CPUs. Workers are new processes for every query: each first faults in the pages of shared buffers it reads (huge pages: $HUGEPAGES), a cost the serial runs paid once in their warm-up run."
	"Merge data: $(fmt_int "$KEYS") keys x $COPIES replica states, stored copy after copy; clocks differ per copy. jsonb check: on $S_KEYS sample keys the jsonb merge gives the same states and per-key totals as counter_crdt_merge_agg (and the totals the generator implies); the whole-table merges agree too."
	"Machine load (1/5/15-min load average) at start: $LOAD_START; at end: $LOAD_END. Other processes on the machine add noise; interleaving spreads it over both sides of each ratio."
	"Storage: a 3-shard counter is $COL_C bytes stored ($MEM_C in memory: 4-byte varlena header + 12-byte header with the kept sum + 3 narrow shards of 24 bytes)."
)

print_text()
{
	local r
	for r in "${ROWS_T[@]}"; do printf '%s\n' "$r"; done |
		awk -F'\t' '{ for (i = 1; i <= 7; i++) { c[NR, i] = $i; if (length($i) > w[i]) w[i] = length($i) } }
			END { for (r = 1; r <= NR; r++) { line = ""; for (i = 1; i <= 7; i++) line = line sprintf("%-" w[i] "s  ", c[r, i]); sub(/ +$/, "", line); print line; if (r == 1) { line = ""; for (i = 1; i <= 7; i++) { s = ""; for (j = 0; j < w[i]; j++) s = s "-"; line = line s "  " } sub(/ +$/, "", line); print line } } }'
}

print_md()
{
	local r i=0
	for r in "${ROWS_T[@]}"; do
		printf '| %s |\n' "$(sed 's/\t$//; s/\t/ | /g' <<<"$r")"
		if [ "$i" -eq 0 ]; then echo "|---|---|---:|---:|---:|---|---|"; fi
		i=$((i + 1))
	done
}

echo
echo "counter_crdt $EXT_VERSION benchmark: PostgreSQL $PG_VERSION, $(nproc) CPUs ($CPU), commit $COMMIT$DIRTY"
echo
print_text
echo
for n in "${NOTES[@]}"; do echo "* $n"; done
echo
echo "pgbench command lines (plus -h <socket dir> -p $PGC_PORT -U postgres postgres):"
for k in b_all c_all w_all b_hot c_hot w_hot; do
	echo "  ${PGB_CMD[$k]}    # $(tr '\n' ' ' <"$WORK/inc_$k.sql" | sed 's/ $//')"
done
echo
echo "Run time: $T_TOTAL s (pgbench $PGB_SECONDS s, SQL figures $SQL_SECONDS s)."

{
	echo "# counter_crdt benchmark results"
	echo
	echo "Written by \`bash bench/bench.sh\` on $(date -u '+%Y-%m-%d %H:%M UTC'): counter_crdt $EXT_VERSION, commit $COMMIT$DIRTY;"
	echo "PostgreSQL $PG_VERSION, $(nproc) CPUs ($CPU). Server settings: synchronous_commit = off, jit = off,"
	echo "shared_buffers = $SHARED_BUFFERS, work_mem = $WORK_MEM, autovacuum = off, fsync = off. Run time $T_TOTAL s."
	echo
	print_md
	echo
	for n in "${NOTES[@]}"; do echo "* $n"; done
	echo
	echo "pgbench command lines (plus \`-h <socket dir> -p <port> -U postgres postgres\`):"
	echo
	echo '```'
	for k in b_all c_all w_all b_hot c_hot w_hot; do
		echo "${PGB_CMD[$k]}    # $(tr '\n' ' ' <"$WORK/inc_$k.sql" | sed 's/ $//')"
	done
	echo '```'
	echo
	echo "SQL:"
	echo
	echo '```sql'
	echo "$Q_MERGE;   -- vs $Q_SUM;"
	echo "$Q_GMERGE;   -- vs $Q_GSUM;"
	echo "$Q_READ;   -- vs $Q_SUM;"
	echo "$Q_SUMC;   -- vs $Q_SUM;"
	echo "$Q_DIGEST;   -- vs $Q_SUM;"
	echo "$Q_JSONB;   -- jc_merge_agg: plpgsql merge of {\"<uuid>\": [clock, value]}"
	echo '```'
} >"$OUT"
say "wrote $OUT"

# The sections below start servers of their own.
if [ "${BENCH_REPLICATED:-1}" != 0 ] || [ "${BENCH_WRITERS:-1}" != 0 ] ||
	[ "${BENCH_FDW:-1}" != 0 ] || [ "${BENCH_BYTES:-1}" != 0 ] || [ "${BENCH_MESH:-1}" != 0 ] ||
	[ "${BENCH_READS:-1}" != 0 ]; then
	pg_stop "$PGC_DIR"
fi

if [ "${BENCH_REPLICATED:-1}" != 0 ]; then
	say "the replicated path: bench/replicated.sh"
	bash "$ROOT/bench/replicated.sh" | tee "$WORK/replicated.out"
	{
		echo
		echo "## The replicated path (\`bench/replicated.sh\`)"
		echo
		echo '```'
		sed -n '/^replicated path:/,$p' "$WORK/replicated.out"
		echo '```'
	} >>"$OUT"
	say "appended the replicated path to $OUT"
fi

if [ "${BENCH_WRITERS:-1}" != 0 ]; then
	say "writers per counter: bench/writers.sh"
	bash "$ROOT/bench/writers.sh" | tee "$WORK/writers.out"
	{
		echo
		echo "## Writers per counter (\`bench/writers.sh\`)"
		echo
		sed -n '/^writers per counter:/,$p' "$WORK/writers.out"
	} >>"$OUT"
	say "appended the writers section to $OUT"
fi

if [ "${BENCH_FDW:-1}" != 0 ]; then
	say "sharded with postgres_fdw: bench/fdw.sh"
	bash "$ROOT/bench/fdw.sh" | tee "$WORK/fdw.out"
	{
		echo
		echo "## Sharded with postgres_fdw (\`bench/fdw.sh\`)"
		echo
		echo '```'
		sed -n '/^fdw path:/,$p' "$WORK/fdw.out"
		echo '```'
	} >>"$OUT"
	say "appended the postgres_fdw figures to $OUT"
fi

if [ "${BENCH_BYTES:-1}" != 0 ]; then
	say "bytes per counter: bench/bytes.sh"
	bash "$ROOT/bench/bytes.sh" | tee "$WORK/bytes.out"
	{
		echo
		echo "## Bytes per counter (\`bench/bytes.sh\`)"
		echo
		echo '```'
		sed -n '/^bytes per counter:/,$p' "$WORK/bytes.out"
		echo '```'
	} >>"$OUT"
	say "appended the bytes per counter to $OUT"
fi

MESH_MAJOR=$("$PG_CONFIG" --version | sed -n 's/^PostgreSQL \([0-9][0-9]*\).*/\1/p')
if [ "${BENCH_MESH:-1}" != 0 ] && [ "${MESH_MAJOR:-0}" -lt 16 ]; then
	say "mesh throughput: skipped (bench/mesh.sh needs PostgreSQL 16 or later for its bigint mesh; this is ${MESH_MAJOR:-unknown})"
elif [ "${BENCH_MESH:-1}" != 0 ]; then
	say "mesh throughput: bench/mesh.sh"
	bash "$ROOT/bench/mesh.sh" | tee "$WORK/mesh.out"
	{
		echo
		echo "## Mesh throughput (\`bench/mesh.sh\`)"
		echo
		echo '```'
		sed -n '/^mesh throughput:/,$p' "$WORK/mesh.out"
		echo '```'
	} >>"$OUT"
	say "appended the mesh throughput to $OUT"
fi

if [ "${BENCH_READS:-1}" != 0 ]; then
	say "reads at a bigint's cost: bench/reads.sh"
	bash "$ROOT/bench/reads.sh" | tee "$WORK/reads.out"
	{
		echo
		echo "## Reads at a bigint's cost (\`bench/reads.sh\`)"
		echo
		echo '```'
		sed -n '/^reads at a bigint/,$p' "$WORK/reads.out"
		echo '```'
	} >>"$OUT"
	say "appended the reads to $OUT"
fi
