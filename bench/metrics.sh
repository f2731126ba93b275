#!/usr/bin/env bash
#
# metrics.sh: what reading counter_crdt_stat costs (issue 31), measured on a
# throwaway server (unix socket only, run as the postgres OS user, stopped
# and removed at exit), with the extension as installed into $PG_CONFIG's
# PostgreSQL.
#
#   PG_CONFIG=... bash bench/metrics.sh          # as root
#   METRICS_ROWS=1000000 METRICS_WRITERS="3 30"  # the defaults
#
# For each number of writers per counter W: a table mt (k int PRIMARY KEY,
# c counter_crdt) of METRICS_ROWS rows, each holding W shards of md5-random
# ids (the same W in every row, as on a mesh of W servers), prewarmed.
# Figures, medians of 5 runs after a warm-up, server-side (EXPLAIN ANALYZE's
# execution time):
#
#   count       SELECT count(*) FROM mt                   (the baseline)
#   count_c     SELECT count(c) FROM mt                   (reads the column)
#   stat        SELECT * FROM counter_crdt_stat           (one row: mt's)
#   tables      SELECT * FROM counter_crdt_stat_tables    (1.9; one row: mt's)
#   scrape      both queries of the 1.9 queries file's table figures:
#               counter_crdt_stat_tables, then counter_crdt_stat_shards
#
# and their ratios to count_c.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BENCH_TAG=metrics
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"

PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
ROWS=${METRICS_ROWS:-1000000}
WRITERS=${METRICS_WRITERS:-3 30}
bench_server shared_buffers=512MB max_parallel_workers_per_gather=0
psql_ -c "CREATE EXTENSION counter_crdt; CREATE EXTENSION pg_prewarm;"

# Server-side execution time of a statement, in ms.
exec_ms() { psql_ -c "EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) $1" | grep -o '"Execution Time": [0-9.]*' | awk '{print $3}'; }
median_of() {
	local sql=$1 t=()
	exec_ms "$sql" >/dev/null
	for _ in 1 2 3 4 5; do t+=("$(exec_ms "$sql")"); done
	echo "${t[@]}" | median
}

say "PostgreSQL $("$PG_CONFIG" --version | awk '{print $2}'), $(fmt_int "$ROWS") counters per table, $(nproc) CPUs"
for W in $WRITERS; do
	psql_ -c "DROP TABLE IF EXISTS mt;
		CREATE TABLE mt (k int PRIMARY KEY, c counter_crdt);
		INSERT INTO mt SELECT k, p.v FROM generate_series(1, $ROWS) k,
		  (SELECT ('{' || string_agg(format('%s:%s:%s', md5('writer:' || i)::uuid, 100 + i, 1000 * i), ', ') || '}')::counter_crdt AS v
		     FROM generate_series(1, $W) i) p;"
	psql_ -c "VACUUM ANALYZE mt"
	psql_ -c "SELECT pg_prewarm('mt')" >/dev/null
	check=$(psql_ -c "SELECT counters || ' ' || writers || ' ' || shards_p99 FROM counter_crdt_stat WHERE table_name = 'mt'::regclass")
	[ "$check" = "$ROWS $W $W" ] || die "counter_crdt_stat says '$check' of mt, not '$ROWS $W $W'"
	count=$(median_of "SELECT count(*) FROM mt")
	count_c=$(median_of "SELECT count(c) FROM mt")
	stat=$(median_of "SELECT * FROM counter_crdt_stat")
	tables=$(median_of "SELECT * FROM counter_crdt_stat_tables")
	shards=$(median_of "SELECT * FROM counter_crdt_stat_shards")
	scrape=$(calc "$tables + $shards")
	size=$(psql_ -c "SELECT pg_size_pretty(pg_table_size('mt'))")
	say "W=$W ($size): count(*) $count ms, count(c) $count_c ms, counter_crdt_stat $stat ms ($(calc "$stat / $count_c") x count(c), $(calc "$stat * 1000 / $ROWS") us per counter)"
	say "W=$W: counter_crdt_stat_tables $tables ms ($(calc "$tables / $count_c") x count(c)), a scrape of the 1.9 queries file's table figures $scrape ms ($(calc "$scrape / $count_c") x count(c))"
done
