#!/usr/bin/env bash
#
# guard.sh: what the write guard (counter_crdt_guard_writes(), 1.11) costs
# an increment, measured on a throwaway server (unix socket only, run as the
# postgres OS user, stopped and removed at exit), with the extension as
# installed into $PG_CONFIG's PostgreSQL.
#
#   PG_CONFIG=... bash bench/guard.sh                     # as root
#   GUARD_ROWS=10000 GUARD_SECONDS=10 GUARD_ROUNDS=5      # the defaults
#
# Three tables of GUARD_ROWS counters of 3 shards (one of them this
# server's): g guarded, u not, and s with PostgreSQL's own C trigger
# suppress_redundant_updates_trigger() (BEFORE UPDATE FOR EACH ROW, a
# memcmp of the two rows): what any row trigger costs, the guard's floor.  pgbench, 4 clients, 2 threads, -n -M prepared,
# "UPDATE ... SET c = c + 1 WHERE k = :k", GUARD_SECONDS each, the two
# tables in turn for GUARD_ROUNDS rounds (VACUUM and CHECKPOINT before each
# run); the figure is the median tps of each and guarded / unguarded.  Then
# one UPDATE of every row, timed by EXPLAIN ANALYZE, guarded against not
# (the median of GUARD_ROUNDS each, interleaved).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BENCH_TAG=guard
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"

PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
ROWS=${GUARD_ROWS:-10000}
SECS=${GUARD_SECONDS:-10}
ROUNDS=${GUARD_ROUNDS:-5}
bench_server shared_buffers=512MB synchronous_commit=off autovacuum=off jit=off
psql_ -c "CREATE EXTENSION counter_crdt"
psql_ -c "LOAD 'counter_crdt'" -c "ALTER SYSTEM SET counter_crdt.node_id = '$(psql_ -c "SELECT counter_crdt_rack_id('dc1', 'rack1')")'" \
	-c "SELECT pg_reload_conf()" >/dev/null

say "PostgreSQL $("$PG_CONFIG" --version | awk '{print $2}'), $(fmt_int "$ROWS") counters of 3 shards per table"
for t in g u s; do
	psql_ -c "CREATE TABLE $t (k int PRIMARY KEY, c counter_crdt)" \
		-c "INSERT INTO $t SELECT k, format('{%s}', string_agg(format('%s:1:1', counter_crdt_rack_id('dc1', 'rack' || r)), ', '
		      ORDER BY counter_crdt_rack_id('dc1', 'rack' || r)))::counter_crdt
		      FROM generate_series(1, $ROWS) k, generate_series(1, 3) r GROUP BY k"
done
psql_ -c "SELECT counter_crdt_guard_writes('g')" >/dev/null
psql_ -c "CREATE TRIGGER s_floor BEFORE UPDATE ON s FOR EACH ROW EXECUTE FUNCTION suppress_redundant_updates_trigger()"
[ "$(psql_ -c "SELECT count(*) FROM pg_trigger WHERE tgname = 'counter_crdt_write_guard'")" = 1 ] ||
	die "g is not guarded"

declare -A TPS
for i in $(seq 1 "$ROUNDS"); do
	for t in g u s; do
		psql_ -c "VACUUM $t" -c "CHECKPOINT"
		echo "\\set k random(1, $ROWS)
UPDATE $t SET c = c + 1 WHERE k = :k;" >"$D/$t.sql"
		tps=$(as_pg "$BIN/pgbench" -h "$D" -p "$PORT" -U postgres -n -M prepared -c 4 -j 2 -T "$SECS" \
			-f "$D/$t.sql" postgres 2>/dev/null | sed -n 's/^tps = \([0-9.]*\).*/\1/p')
		TPS[$t]+="$tps "
	done
done
g=$(echo "${TPS[g]}" | median)
u=$(echo "${TPS[u]}" | median)
f=$(echo "${TPS[s]}" | median)
say "pgbench c = c + 1: guarded $(calc "$g" 0) tps, unguarded $(calc "$u" 0) tps: $(calc "$g / $u") x; with PostgreSQL's own C trigger $(calc "$f" 0) tps: $(calc "$f / $u") x (median of $ROUNDS runs of ${SECS} s each, interleaved)"

ms() { psql_ -c "EXPLAIN (ANALYZE, TIMING OFF, SUMMARY ON, COSTS OFF) UPDATE $1 SET c = c + 1" |
	sed -n 's/^Execution Time: \([0-9.]*\) ms$/\1/p'; }
declare -A MS
for i in $(seq 0 "$ROUNDS"); do
	for t in g u s; do
		psql_ -c "VACUUM $t" >/dev/null
		m=$(ms "$t")
		[ "$i" -eq 0 ] || MS[$t]+="$m "
	done
done
g=$(echo "${MS[g]}" | median)
u=$(echo "${MS[u]}" | median)
f=$(echo "${MS[s]}" | median)
say "one UPDATE of all $(fmt_int "$ROWS") rows: guarded $(calc "$g" 1) ms, unguarded $(calc "$u" 1) ms: $(calc "$g / $u") x; with PostgreSQL's own C trigger $(calc "$f" 1) ms: $(calc "$f / $u") x (median of $ROUNDS, after a warm-up)"
[ "$(psql_ -c "SELECT count(*) FROM g WHERE counter_crdt_writers(c) <> 3")" = 0 ] || die "a counter lost a shard"
