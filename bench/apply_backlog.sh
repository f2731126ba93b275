#!/usr/bin/env bash
#
# apply_backlog.sh: what the own-id check of the merge trigger (contract 7.2)
# costs when a subscriber applies a backlog of increments.
#
#   PG_CONFIG=... bash bench/apply_backlog.sh [INCREMENTS [ROUNDS]]
#
# (as root, like scripts/setup.sh, or as a user who may write the library
# directory of $PG_CONFIG's PostgreSQL: it installs the build there)
#
# Two throwaway servers, a -> b, table t (k int primary key, c counter_crdt)
# of 1,000 rows set up with counter_crdt_enable_replica_merge() on both.
# Every counter holds 3 shards: a's writer id, b's and a third one, so that the
# check on b finds b's own shard in every applied row (and finds it unchanged:
# no conflict, the common case).  One round: b's subscription is disabled, a
# takes INCREMENTS single-statement transactions (pgbench, 4 clients, random
# keys), then the subscription is enabled and the time until b's total equals
# a's is the figure.  Rounds alternate between the library as built and one
# built with -DCC_BENCH_NO_OWN_ID_CHECK (the check compiled out), installed
# into $PG_CONFIG's library directory in turn; each new apply worker loads it
# afresh.  Prints every round (wall time, and the CPU time of the apply
# worker), the medians and their ratios.  Leaves the
# library as built installed.  Servers: fsync = off, autovacuum = off (a
# VACUUM of both sides before every round instead).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
N=${1:-100000}
ROUNDS=${2:-3}
: "${PG_CONFIG:?set PG_CONFIG}"
export PG_CONFIG
source "$ROOT/scripts/pgcluster.sh"
BENCH_TAG=apply_backlog
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"

BIN=$("$PG_CONFIG" --bindir)
LIBDIR=$("$PG_CONFIG" --pkglibdir)
WORK=$(mktemp -d)
pgc_register_tmp "$WORK"
chmod 755 "$WORK"

# The two libraries.  The last build is the one as built, left in the tree.
make -C "$ROOT" -s clean
make -C "$ROOT" -s -j2 PG_CONFIG="$PG_CONFIG" PG_CPPFLAGS=-DCC_BENCH_NO_OWN_ID_CHECK >/dev/null
cp "$ROOT/counter_crdt.so" "$WORK/without_check.so"
make -C "$ROOT" -s clean
make -C "$ROOT" -s -j2 PG_CONFIG="$PG_CONFIG" >/dev/null
cp "$ROOT/counter_crdt.so" "$WORK/with_check.so"
make -C "$ROOT" -s PG_CONFIG="$PG_CONFIG" install >/dev/null

SETTINGS=(wal_level=logical fsync=off autovacuum=off max_wal_senders=4
	max_replication_slots=4 shared_buffers=256MB)
pg_start "" "" "${SETTINGS[@]}" >/dev/null
A_HOST=$PGC_HOST A_PORT=$PGC_PORT
pg_start "" "" "${SETTINGS[@]}" >/dev/null
B_HOST=$PGC_HOST B_PORT=$PGC_PORT

qa() { "$BIN/psql" -X -q -At -v ON_ERROR_STOP=1 -h "$A_HOST" -p "$A_PORT" -U postgres -d postgres "$@"; }
qb() { "$BIN/psql" -X -q -At -v ON_ERROR_STOP=1 -h "$B_HOST" -p "$B_PORT" -U postgres -d postgres "$@"; }

SETUP="CREATE EXTENSION counter_crdt;
CREATE TABLE t (k int PRIMARY KEY, c counter_crdt);
SELECT counter_crdt_enable_replica_merge('t');"
qa -c "$SETUP" >/dev/null
qb -c "$SETUP" >/dev/null
qa -c "INSERT INTO t SELECT k, counter_crdt_increment(NULL::counter_crdt + 1, 1, counter_crdt_rack_id('dc9', 'r9'))
       FROM generate_series(1, 1000) k;
       CREATE PUBLICATION p FOR TABLE t;"
qb -c "CREATE PUBLICATION p FOR TABLE t"
qb -c "CREATE SUBSCRIPTION s CONNECTION 'host=$A_HOST port=$A_PORT dbname=postgres user=postgres'
       PUBLICATION p WITH (copy_data = true)" 2>/dev/null
until [ "$(qb -c "SELECT count(*) FROM pg_subscription_rel WHERE srsubstate <> 'r'")" = 0 ]; do sleep 0.2; done
# b writes its own shard into every row, and a gets it (then stops listening).
qa -c "CREATE SUBSCRIPTION back CONNECTION 'host=$B_HOST port=$B_PORT dbname=postgres user=postgres'
       PUBLICATION p WITH (copy_data = false)" 2>/dev/null
until [ "$(qa -c "SELECT count(*) FROM pg_stat_subscription WHERE pid IS NOT NULL")" = 1 ]; do sleep 0.2; done
qb -c "UPDATE t SET c = c + 1"
until [ "$(qa -c "SELECT sum(c::bigint) FROM t")" = 3000 ]; do sleep 0.2; done
qa -c "DROP SUBSCRIPTION back"
[ "$(qa -c "SELECT count(*) FROM t, counter_crdt_shards(c) s")" = 3000 ] &&
[ "$(qb -c "SELECT count(*) FROM t, counter_crdt_shards(c) s WHERE s.id = counter_crdt_node_id()")" = 1000 ] ||
	{ echo "the rows do not hold 3 shards, one of them b's" >&2; exit 1; }

cat >"$WORK/inc.sql" <<'SQL'
\set k random(1, 1000)
UPDATE t SET c = c + 1 WHERE k = :k;
SQL
chmod 644 "$WORK/inc.sql"

declare -A TIMES CPUS
round()
{
	local variant=$1 target start end pid cpu
	install -m 755 "$WORK/$variant.so" "$LIBDIR/counter_crdt.so"
	qb -c "ALTER SUBSCRIPTION s DISABLE"
	until [ "$(qb -c "SELECT count(*) FROM pg_stat_subscription WHERE pid IS NOT NULL")" = 0 ]; do sleep 0.1; done
	"$BIN/pgbench" -n -h "$A_HOST" -p "$A_PORT" -U postgres -c 4 -j 2 -t $((N / 4)) \
		-f "$WORK/inc.sql" postgres >/dev/null
	target=$(qa -c "SELECT sum(c::bigint) FROM t")
	qa -c "VACUUM t"
	qb -c "VACUUM t" -c "CHECKPOINT"
	start=$(date +%s.%N)
	qb -c "ALTER SUBSCRIPTION s ENABLE"
	until [ "$(qb -c "SELECT sum(c::bigint) FROM t")" = "$target" ]; do sleep 0.05; done
	end=$(date +%s.%N)
	# CPU time of the apply worker, started afresh by the ENABLE: less
	# disturbed than wall time by whatever else the machine runs.
	pid=$(qb -c "SELECT pid FROM pg_stat_subscription WHERE subname = 's'")
	cpu=$(cpu_of "$pid")
	CPUS[$variant]+="$cpu "
	[ "$(qb -c "SELECT count(*) FROM counter_crdt_writer_conflicts")" = 0 ] ||
		{ echo "conflicts recorded" >&2; exit 1; }
	TIMES[$variant]+="$(echo "$end - $start" | bc) "
	printf '%-14s %6.2f s, apply worker CPU %6.2f s\n' "$variant" "$(echo "$end - $start" | bc)" "$cpu"
}

for ((r = 0; r < ROUNDS; r++)); do
	round with_check
	round without_check
done
install -m 755 "$WORK/with_check.so" "$LIBDIR/counter_crdt.so"

W=$(echo "${TIMES[with_check]}" | median)
WO=$(echo "${TIMES[without_check]}" | median)
printf 'backlog of %d increments, %d rounds each: median %.2f s with the check, %.2f s without; ratio %.3f\n' \
	"$N" "$ROUNDS" "$W" "$WO" "$(echo "$W / $WO" | bc -l)"
CW=$(echo "${CPUS[with_check]}" | median)
CWO=$(echo "${CPUS[without_check]}" | median)
printf 'apply worker CPU: median %.2f s with the check, %.2f s without; ratio %.3f\n' \
	"$CW" "$CWO" "$(echo "$CW / $CWO" | bc -l)"
