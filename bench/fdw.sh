#!/usr/bin/env bash
#
# fdw.sh: counters sharded with postgres_fdw (README "Scaling out"), measured
# on throwaway servers (unix sockets only, run as the postgres OS user,
# stopped at exit), every figure a ratio of two measurements of this run.
#
#   PG_CONFIG=... bash bench/fdw.sh      # as root, like bench/bench.sh
#
# (bench/bench.sh runs it after its own figures unless BENCH_FDW=0; it uses the
# extension as installed into $PG_CONFIG's PostgreSQL, and postgres_fdw from
# the same installation.)
#
# Servers: shards s1 and s2, a coordinator c with the README's set-up (foreign
# servers with extensions 'counter_crdt', a user mapping, a table
# hash-partitioned on k whose two partitions are foreign tables on s1 and s2).
# On the shards:
#
#   pv (k int PRIMARY KEY, c counter_crdt)   FDW_ROWS rows in all, each
#                                            shard the keys its partition
#                                            routes to it; 3-shard counters
#   m (k int, c counter_crdt)                FDW_KEYS keys x FDW_COPIES states
#                                            per key (as replicas send them),
#                                            3 shards each, clocks differing
#                                            per copy
#
# and on s1 also pv_all and m_all: the same rows, all of them, on one server.
# Every server's counter_crdt.node_id is counter_crdt_rack_id('dc1', 'rack1'),
# one of the three shards of every counter, so that no increment grows a value.
#
# Figures:
#
#   increment, c + 1          pgbench -c FDW_CLIENTS on c: UPDATE pv SET c = c + 1
#                             WHERE k = :k (random k of all rows), vs the same on
#                             s1 on pv_all, the same number of rows on one server
#   increment, shipped        on c: UPDATE pv SET c = counter_crdt_increment(c, 1,
#                             '<id>') WHERE k = :k, vs the same baseline
#   grouped merge             SELECT k, counter_crdt_merge_agg(c) FROM m GROUP BY k
#                             on c (enable_partitionwise_aggregate = on: each shard
#                             merges its keys), vs the same on s1 over m_all
#   the same, async_capable   with the foreign servers' async_capable = true (the
#                             coordinator runs both shards' scans at once)
#   total over all keys       SELECT sum(c::bigint) FROM m on c (every row comes to
#                             the coordinator), vs the same on s1 over m_all
#   total per shard           the README's UNION ALL of one aggregate per foreign
#                             partition, vs the same baseline
#
# Timing: pgbench runs of FDW_SECONDS (--max-tries=1000: postgres_fdw's
# REPEATABLE READ makes concurrent increments of one row fail with 40001,
# which pgbench retries, as README says to), sides interleaved (baseline, c + 1,
# shipped, ...), FDW_PGBENCH_RUNS each, best run; SQL figures: the median of
# FDW_SQL_RUNS server-side execution times (EXPLAIN ANALYZE, TIMING OFF) after
# a warm-up run, in one session per side, the sides alternating in two blocks.
# The script checks, before timing, that both shards hold rows, that the
# coordinator's plans ship what README says they ship, and that the grouped
# merge through the coordinator equals the one over m_all; after the pgbench
# runs, that every transaction pgbench reports was counted.
#
# Servers: fsync = off, synchronous_commit = off, autovacuum = off (VACUUM
# before every pgbench run), jit = off.
#
# Knobs: FDW_ROWS [100000], FDW_KEYS [100000], FDW_COPIES [5], FDW_SECONDS [10],
# FDW_PGBENCH_RUNS [2], FDW_CLIENTS [4], FDW_SQL_RUNS [5].
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ROWS=${FDW_ROWS:-100000}
KEYS=${FDW_KEYS:-100000}
COPIES=${FDW_COPIES:-5}
SECS=${FDW_SECONDS:-10}
RUNS=${FDW_PGBENCH_RUNS:-2}
CLIENTS=${FDW_CLIENTS:-4}
SQL_RUNS=${FDW_SQL_RUNS:-5}
# shellcheck source=scripts/pgcluster.sh
source "$ROOT/scripts/pgcluster.sh"
PG_CONFIG=$(pgc_pg_config)
export PG_CONFIG
BIN=$("$PG_CONFIG" --bindir)

for v in ROWS KEYS COPIES SECS RUNS CLIENTS SQL_RUNS; do
	[[ ${!v} =~ ^[1-9][0-9]*$ ]] || { echo "fdw: $v must be a positive integer" >&2; exit 2; }
done

BENCH_TAG=fdw
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"

pgc_mktemp
WORK=$PGC_TMP
SETTINGS=(fsync=off synchronous_commit=off autovacuum=off jit=off shared_buffers=256MB
	work_mem=1GB max_connections=50)
declare -A HOST PORT
start() { pg_start "" "" "${SETTINGS[@]}" >/dev/null; HOST[$1]=$PGC_HOST; PORT[$1]=$PGC_PORT; }
q() { local s=$1; shift; "$BIN/psql" -X -q -At -v ON_ERROR_STOP=1 -h "${HOST[$s]}" -p "${PORT[$s]}" -U postgres -d postgres "$@"; }

start s1
start s2
start c
say "shards s1 (port ${PORT[s1]}), s2 (port ${PORT[s2]}), coordinator c (port ${PORT[c]}), PostgreSQL $(q c -c 'SHOW server_version')"

RACK1=$(q c -c "CREATE EXTENSION counter_crdt; SELECT counter_crdt_rack_id('dc1', 'rack1')")
for s in s1 s2 c; do
	q $s -c "LOAD 'counter_crdt'" -c "ALTER SYSTEM SET counter_crdt.node_id = '$RACK1'" -c "SELECT pg_reload_conf()" >/dev/null
done

# The rows of a table, generated alike on every server: $1 = a condition on k.
# Counters of 3 shards (racks 1..3); in m, copy i of key k has clock
# 1 + (i + k*m_r) % COPIES for rack r, so the merge of a key's copies has
# clock COPIES in every shard.
pv_rows() {
	echo "SELECT k, counter_crdt_increment(counter_crdt_increment(counter_crdt_increment(
	          NULL, 1, counter_crdt_rack_id('dc1', 'rack1')), 2, counter_crdt_rack_id('dc1', 'rack2')),
	          3, counter_crdt_rack_id('dc1', 'rack3'))
	        FROM generate_series(1, $ROWS) k WHERE $1"
}
m_rows() {
	echo "SELECT k, format('{%s:%s:%s, %s:%s:%s, %s:%s:%s}',
	          counter_crdt_rack_id('dc1', 'rack1'), 1 + (i + k) % $COPIES, 5 * (1 + (i + k) % $COPIES) + k % 100,
	          counter_crdt_rack_id('dc1', 'rack2'), 1 + (i + 3 * k) % $COPIES, 3 * (1 + (i + 3 * k) % $COPIES) + k % 50,
	          counter_crdt_rack_id('dc1', 'rack3'), 1 + (i + 7 * k) % $COPIES, 2 * (1 + (i + 7 * k) % $COPIES) + k % 10
	        )::counter_crdt
	        FROM generate_series(1, $COPIES) i CROSS JOIN LATERAL generate_series(1 + 0 * i, $KEYS) k WHERE $1"
}

say "building data: $ROWS increment rows, $KEYS keys x $COPIES states, on the shards and all of them on s1"
REM=0
for s in s1 s2; do
	q $s -c "CREATE EXTENSION IF NOT EXISTS counter_crdt;
		CREATE ROLE app LOGIN PASSWORD 'bench';
		-- the coordinator's partitioning, to route the generated rows
		CREATE TABLE shape (k int) PARTITION BY HASH (k);
		CREATE TABLE pv (k int PRIMARY KEY, c counter_crdt);
		CREATE TABLE m (k int NOT NULL, c counter_crdt NOT NULL);
		INSERT INTO pv $(pv_rows "satisfies_hash_partition('shape'::regclass, 2, $REM, k)");
		INSERT INTO m $(m_rows "satisfies_hash_partition('shape'::regclass, 2, $REM, k)");
		GRANT SELECT, INSERT, UPDATE ON pv, m TO app;" >/dev/null
	REM=$((REM + 1))
done
q s1 -c "CREATE TABLE pv_all (k int PRIMARY KEY, c counter_crdt);
	CREATE TABLE m_all (k int NOT NULL, c counter_crdt NOT NULL);
	INSERT INTO pv_all $(pv_rows true);
	INSERT INTO m_all $(m_rows true);"
for s in s1 s2; do q $s -c "VACUUM (FREEZE, ANALYZE)"; done

q c -c "CREATE EXTENSION postgres_fdw;
	CREATE SERVER s1 FOREIGN DATA WRAPPER postgres_fdw
	  OPTIONS (host '${HOST[s1]}', port '${PORT[s1]}', dbname 'postgres', extensions 'counter_crdt');
	CREATE SERVER s2 FOREIGN DATA WRAPPER postgres_fdw
	  OPTIONS (host '${HOST[s2]}', port '${PORT[s2]}', dbname 'postgres', extensions 'counter_crdt');
	CREATE USER MAPPING FOR PUBLIC SERVER s1 OPTIONS (user 'app');
	CREATE USER MAPPING FOR PUBLIC SERVER s2 OPTIONS (user 'app');
	CREATE TABLE pv (k int NOT NULL, c counter_crdt) PARTITION BY HASH (k);
	CREATE FOREIGN TABLE pv_s1 PARTITION OF pv FOR VALUES WITH (MODULUS 2, REMAINDER 0)
	  SERVER s1 OPTIONS (table_name 'pv');
	CREATE FOREIGN TABLE pv_s2 PARTITION OF pv FOR VALUES WITH (MODULUS 2, REMAINDER 1)
	  SERVER s2 OPTIONS (table_name 'pv');
	CREATE TABLE m (k int NOT NULL, c counter_crdt) PARTITION BY HASH (k);
	CREATE FOREIGN TABLE m_s1 PARTITION OF m FOR VALUES WITH (MODULUS 2, REMAINDER 0)
	  SERVER s1 OPTIONS (table_name 'm');
	CREATE FOREIGN TABLE m_s2 PARTITION OF m FOR VALUES WITH (MODULUS 2, REMAINDER 1)
	  SERVER s2 OPTIONS (table_name 'm');
	ALTER DATABASE postgres SET enable_partitionwise_aggregate = on;"

# --- checks ------------------------------------------------------------------
N1=$(q s1 -c "SELECT count(*) FROM pv")
N2=$(q s2 -c "SELECT count(*) FROM pv")
[ "$N1" -gt 0 ] && [ "$N2" -gt 0 ] && [ $((N1 + N2)) -eq "$ROWS" ] || die "pv: $N1 + $N2 rows on the shards, want $ROWS"
[ "$(q c -c "SELECT count(*) FROM pv")" = "$ROWS" ] || die "the coordinator does not see the $ROWS rows of pv"
[ "$(q c -c "SELECT count(*) FROM pv_s1")" = "$N1" ] || die "the coordinator routes keys elsewhere than the data was put"
[ "$(q c -c "SELECT count(*) FROM m")" = "$((KEYS * COPIES))" ] || die "the coordinator does not see the rows of m"
DIG="SELECT md5(string_agg(k || ':' || c::text, ',' ORDER BY k)) FROM (SELECT k, counter_crdt_merge_agg(c) AS c FROM %s GROUP BY k) g"
# shellcheck disable=SC2059
[ "$(q c -c "$(printf "$DIG" m)")" = "$(q s1 -c "$(printf "$DIG" m_all)")" ] ||
	die "the grouped merge through the coordinator differs from the one over m_all"
Q_SHIPPED="UPDATE pv SET c = counter_crdt_increment(c, 1, '$RACK1') WHERE k = 7"
# since 1.6 counter_crdt_increment is STABLE: computed on the coordinator, as c + 1
q c -c "EXPLAIN (VERBOSE, COSTS OFF) $Q_SHIPPED" | grep -q 'Remote SQL: SELECT .* FOR UPDATE' ||
	die "the explicit-writer increment is not computed on the coordinator"
q c -c "EXPLAIN (VERBOSE, COSTS OFF) UPDATE pv SET c = c + 1 WHERE k = 7" | grep -q 'FOR UPDATE' ||
	die "c + 1 is not run as SELECT ... FOR UPDATE and write-back"
[ "$(q c -c "EXPLAIN (VERBOSE, COSTS OFF) SELECT k, counter_crdt_merge_agg(c) FROM m GROUP BY k" | grep -c 'Remote SQL: SELECT k, public.counter_crdt_merge_agg(c) FROM public.m GROUP BY 1')" = 2 ] ||
	die "the grouped merge is not shipped to both shards"
say "checks: rows on both shards ($N1 + $N2), routing as loaded, plans as README says, grouped merges equal"

# --- increments --------------------------------------------------------------
echo "\\set k random(1, $ROWS)
UPDATE pv_all SET c = c + 1 WHERE k = :k;" >"$WORK/base.sql"
echo "\\set k random(1, $ROWS)
UPDATE pv SET c = c + 1 WHERE k = :k;" >"$WORK/plus.sql"
echo "\\set k random(1, $ROWS)
UPDATE pv SET c = counter_crdt_increment(c, 1, '$RACK1') WHERE k = :k;" >"$WORK/shipped.sql"
declare -A TPS_RUNS TX RETRIED
pgb() { # NAME SERVER
	local out tps tx
	q s1 -c "VACUUM pv, pv_all"
	q s2 -c "VACUUM pv"
	out=$("$BIN/pgbench" -n -M prepared --max-tries=1000 -c "$CLIENTS" -j 2 -T "$SECS" -f "$WORK/$1.sql" \
		-h "${HOST[$2]}" -p "${PORT[$2]}" -U postgres postgres 2>&1) || { printf '%s\n' "$out" >&2; die "pgbench $1 failed"; }
	tps=$(sed -n 's/^tps = \([0-9.]*\) (without initial connection time)$/\1/p' <<<"$out")
	tx=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' <<<"$out")
	[ -n "$tps" ] && [ -n "$tx" ] || { printf '%s\n' "$out" >&2; die "no tps in pgbench output"; }
	! grep -q '^number of failed transactions: [1-9]' <<<"$out" || die "pgbench $1: failed transactions"
	TPS_RUNS[$1]+=" $(printf '%.0f' "$tps")"
	TX[$1]=$((${TX[$1]:-0} + tx))
	RETRIED[$1]=$((${RETRIED[$1]:-0} + $(sed -n 's/^number of transactions retried: \([0-9]*\).*/\1/p' <<<"$out" | grep . || echo 0)))
	say "  $1: $tps tps"
}
SUM_PV0=$(q c -c "SELECT sum(c::bigint) FROM pv")
SUM_ALL0=$(q s1 -c "SELECT sum(c::bigint) FROM pv_all")
say "pgbench -c $CLIENTS -j 2 -T $SECS -M prepared --max-tries=1000, $RUNS runs per side, interleaved"
for _ in $(seq 1 "$RUNS"); do
	pgb base s1
	pgb plus c
	pgb shipped c
done
best() { tr ' ' '\n' <<<"${TPS_RUNS[$1]}" | grep . | sort -g | tail -n 1; }
[ "$(q c -c "SELECT sum(c::bigint) FROM pv")" = "$((SUM_PV0 + TX[plus] + TX[shipped]))" ] ||
	die "increments through the coordinator lost or counted twice"
[ "$(q s1 -c "SELECT sum(c::bigint) FROM pv_all")" = "$((SUM_ALL0 + TX[base]))" ] || die "increments on s1 lost"
[ "$(q c -c "SELECT count(*) FROM pv, counter_crdt_shards(c) s")" = "$((3 * ROWS))" ] ||
	die "an increment added a shard (the writer id is not one of the three)"

# --- SQL figures -------------------------------------------------------------
declare -A MED
timed() { # NAME SERVER QUERY: appends the execution times of warm-up + SQL_RUNS runs
	local f=$WORK/$1.sql
	for _ in $(seq 0 "$SQL_RUNS"); do echo "EXPLAIN (ANALYZE, TIMING OFF, SUMMARY ON, COSTS OFF) $3;"; done >"$f"
	q "$2" -f "$f" | sed -n 's/^Execution Time: \([0-9.]*\) ms$/\1/p' | tail -n +2 | tr '\n' ' ' >>"$WORK/$1.times"
}
Q_GM="SELECT k, counter_crdt_merge_agg(c) FROM %s GROUP BY k"
Q_TOT="SELECT sum(c::bigint) FROM %s"
Q_TOTSHARD="SELECT sum(n) FROM (SELECT sum(c::bigint) AS n FROM m_s1 UNION ALL SELECT sum(c::bigint) FROM m_s2) s"
# One statement over 1,000 rows (k <= 1000, spread over both shards).
Q_BULK_PLUS="UPDATE pv SET c = c + 1 WHERE k <= 1000"
Q_BULK_SHIPPED="UPDATE pv SET c = counter_crdt_increment(c, 1, '$RACK1') WHERE k <= 1000"
Q_BULK_ONE="UPDATE pv_all SET c = c + 1 WHERE k <= 1000"
say "SQL figures: $SQL_RUNS runs each after a warm-up, two blocks per side"
# shellcheck disable=SC2059
for _ in 1 2; do
	timed gm_c c "$(printf "$Q_GM" m)"
	timed gm_1 s1 "$(printf "$Q_GM" m_all)"
	timed tot_c c "$(printf "$Q_TOT" m)"
	timed tot_1 s1 "$(printf "$Q_TOT" m_all)"
	timed totshard_c c "$Q_TOTSHARD"
	timed bulkplus_c c "$Q_BULK_PLUS"
	timed bulkshipped_c c "$Q_BULK_SHIPPED"
	timed bulk_1 s1 "$Q_BULK_ONE"
done
q c -c "ALTER SERVER s1 OPTIONS (ADD async_capable 'true'); ALTER SERVER s2 OPTIONS (ADD async_capable 'true')"
q c -c "EXPLAIN (COSTS OFF) $(printf "$Q_GM" m)" | grep -q 'Async Foreign Scan' || die "async_capable gives no Async Foreign Scan"
for _ in 1 2; do
	timed gma_c c "$(printf "$Q_GM" m)"
	timed gma_1 s1 "$(printf "$Q_GM" m_all)"
done
for n in gm_c gm_1 tot_c tot_1 totshard_c gma_c gma_1 bulkplus_c bulkshipped_c bulk_1; do
	MED[$n]=$(median <"$WORK/$n.times")
	say "  $n: median ${MED[$n]} ms ($(cat "$WORK/$n.times"))"
done

# How the grouped merges hashed: batches (1 = in memory) and memory, on s1 over
# m_all and over its shard's part m.
hashagg() { q s1 -c "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) $(printf "$Q_GM" "$1")" |
	sed -n 's/.*Batches: \([0-9]*\)  Memory Usage: \([0-9]*kB\).*/\1 batch(es), \2/p' | head -n 1; }
# shellcheck disable=SC2059
HA_ALL=$(hashagg m_all)
# shellcheck disable=SC2059
HA_SHARD=$(hashagg m)

# --- the table ---------------------------------------------------------------
B=$(best base) P=$(best plus) S=$(best shipped)
CPU=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
echo
echo "fdw path: PostgreSQL $(q c -c 'SHOW server_version'), $(nproc) CPUs ($CPU), $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo
printf '%-44s %16s %16s %10s\n' "figure" "coordinator" "one server" "ratio"
printf '%-44s %16s %16s %10s\n' "increment, c + 1 (pgbench -c $CLIENTS, tps)" "$P" "$B" "$(calc "$P / $B") x"
printf '%-44s %16s %16s %10s\n' "increment, shipped explicit writer (tps)" "$S" "$B" "$(calc "$S / $B") x"
printf '%-44s %13s ms %13s ms %10s\n' "grouped merge, $KEYS keys x $COPIES states" "${MED[gm_c]}" "${MED[gm_1]}" "$(calc "${MED[gm_c]} / ${MED[gm_1]}") x"
printf '%-44s %13s ms %13s ms %10s\n' "the same, async_capable = true" "${MED[gma_c]}" "${MED[gma_1]}" "$(calc "${MED[gma_c]} / ${MED[gma_1]}") x"
printf '%-44s %13s ms %13s ms %10s\n' "1,000 rows in one UPDATE, c + 1" "${MED[bulkplus_c]}" "${MED[bulk_1]}" "$(calc "${MED[bulkplus_c]} / ${MED[bulk_1]}") x"
printf '%-44s %13s ms %13s ms %10s\n' "1,000 rows in one UPDATE, shipped" "${MED[bulkshipped_c]}" "${MED[bulk_1]}" "$(calc "${MED[bulkshipped_c]} / ${MED[bulk_1]}") x"
printf '%-44s %13s ms %13s ms %10s\n' "total over all rows (rows pulled)" "${MED[tot_c]}" "${MED[tot_1]}" "$(calc "${MED[tot_c]} / ${MED[tot_1]}") x"
printf '%-44s %13s ms %13s ms %10s\n' "total, one aggregate per shard (UNION ALL)" "${MED[totshard_c]}" "${MED[tot_1]}" "$(calc "${MED[totshard_c]} / ${MED[tot_1]}") x"
echo
echo "* increments: best of $RUNS pgbench runs of ${SECS} s per side (-n -M prepared --max-tries=1000 -c $CLIENTS -j 2: a transaction that fails with 40001 is retried, as README says), interleaved; random k of $ROWS rows of 3-shard counters; one server = UPDATE pv_all SET c = c + 1 on s1, a local table of all $ROWS rows; all runs (tps): one server${TPS_RUNS[base]}, c + 1${TPS_RUNS[plus]}, shipped${TPS_RUNS[shipped]}; transactions retried after 40001: one server ${RETRIED[base]} of ${TX[base]}, c + 1 ${RETRIED[plus]} of ${TX[plus]}, shipped ${RETRIED[shipped]} of ${TX[shipped]}. Every transaction counted once (totals checked)."
echo "* SQL: median of $((2 * SQL_RUNS)) server-side execution times (EXPLAIN ANALYZE, TIMING OFF) per side; coordinator = c over the partitioned table of two foreign partitions (enable_partitionwise_aggregate = on), one server = s1 over m_all, all $((KEYS * COPIES)) rows; the coordinator's time includes the shards' work and the transfer, not the result's way to the client. Grouped merges hash in memory: one server $HA_ALL; one shard's part $HA_SHARD. One UPDATE of 1,000 rows: k <= 1000, on both shards through the coordinator (c + 1: a locking cursor and a write-back per row; shipped: one UPDATE per shard), on pv_all on s1. All servers on one machine: the shards share its CPUs with the coordinator."
