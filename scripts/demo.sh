#!/usr/bin/env bash
#
# demo.sh: counter_crdt in one minute.
#
#   bash scripts/demo.sh
#
# Builds and installs the extension (scripts/setup.sh), starts a throwaway
# cluster, and shows three writers, each incrementing its own copy of one
# counter, and the copies merged back into the exact total.  The script checks
# the merged total itself and fails loudly if it is wrong.  The cluster is
# stopped and removed at exit.
#
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
# shellcheck source=scripts/pgcluster.sh
source "$ROOT/scripts/pgcluster.sh"

bash "$ROOT/scripts/setup.sh"
PG_CONFIG=$(pgc_pg_config)
export PG_CONFIG

# The writers: name, data centre, rack, and the increments each one makes.
WRITERS=(replica-a replica-b replica-c)
declare -A DC=([replica-a]=eu-west [replica-b]=eu-west [replica-c]=us-east)
declare -A RACK=([replica-a]=rack1 [replica-b]=rack2 [replica-c]=rack1)
declare -A DELTAS=([replica-a]="5 10 27" [replica-b]="1 1 1 100" [replica-c]="250 250")

EXPECTED=0
for w in "${WRITERS[@]}"; do
	for d in ${DELTAS[$w]}; do
		EXPECTED=$((EXPECTED + d))
	done
done

pg_start "" ""
export PGC_DB=postgres

say() { printf '\n-- %b\n' "$*"; }
sql() { pg_psql -q -c "$1"; }
val() { pg_psql -q -A -t -c "$1"; }
fail() {
	echo >&2
	echo "DEMO FAILED: $*" >&2
	echo >&2
	exit 1
}

echo
echo "=================================================================="
echo " counter_crdt demo: three writers, one counter, merged exactly"
echo " (throwaway PostgreSQL $(val 'SHOW server_version'), socket $PGC_DIR, port $PGC_PORT)"
echo "=================================================================="

sql "CREATE EXTENSION counter_crdt;"
say "Extension installed:"
sql "SELECT extname, extversion FROM pg_extension WHERE extname = 'counter_crdt';"

say "Each writer has its own id; here ScyllaDB-style rack ids, counter_crdt_rack_id(dc, rack):"
values=""
for w in "${WRITERS[@]}"; do
	values+="${values:+, }('$w', '${DC[$w]}', '${RACK[$w]}')"
done
sql "CREATE TABLE writer (replica text PRIMARY KEY, dc text, rack text, id uuid);
     INSERT INTO writer
     SELECT r, d, k, counter_crdt_rack_id(d, k) FROM (VALUES $values) AS v(r, d, k);"
sql "SELECT replica, dc, rack, id AS writer_id FROM writer ORDER BY replica;"

say "Every replica keeps its own copy of the counter.  The copies start empty (NULL):"
sql "CREATE TABLE replica_state (replica text PRIMARY KEY, state counter_crdt);
     INSERT INTO replica_state SELECT replica, NULL FROM writer;
     CREATE TABLE increments (n serial, replica text, delta bigint);"

say "The writers increment only their own copy, with counter_crdt_increment(c, delta, writer):"
for w in "${WRITERS[@]}"; do
	for d in ${DELTAS[$w]}; do
		echo "   $w: +$d"
		sql "UPDATE replica_state r
		        SET state = counter_crdt_increment(r.state, $d, w.id)
		       FROM writer w
		      WHERE w.replica = r.replica AND r.replica = '$w';
		     INSERT INTO increments (replica, delta) VALUES ('$w', $d);"
		if [ "$w" = replica-a ] && [ -z "${stale_taken:-}" ]; then
			# An old copy (after a's first increment), to show later that
			# delivering it again counts nothing twice.
			sql "CREATE TABLE stale_copy AS SELECT replica, state FROM replica_state WHERE replica = 'replica-a';"
			stale_taken=1
		fi
	done
done

say "The copies now (text form {writer:clock:value, ...}; state::bigint is the value):"
sql "SELECT replica, state, state::bigint AS value FROM replica_state ORDER BY replica;"

say "Inside, a copy is a set of shards, one per writer: counter_crdt_shards(c) -> (id, clock, value):"
sql "SELECT r.replica, s.* FROM replica_state r, counter_crdt_shards(r.state) s ORDER BY r.replica;"

say "Merging the copies: counter_crdt_merge_agg(state) keeps, per writer, the shard with the highest clock:"
sql "SELECT counter_crdt_merge_agg(state) AS merged FROM replica_state;"
sql "SELECT counter_crdt_merge_agg(state)::bigint AS merged_total,
            (SELECT sum(delta) FROM increments) AS sum_of_all_deltas,
            $EXPECTED AS expected
       FROM replica_state;"

TOTAL=$(val "SELECT counter_crdt_merge_agg(state)::bigint FROM replica_state;")
SUMD=$(val "SELECT sum(delta) FROM increments;")
[ "$SUMD" = "$EXPECTED" ] || fail "the demo logged $SUMD worth of increments, expected $EXPECTED"
[ "$TOTAL" = "$EXPECTED" ] || fail "merged total is '$TOTAL', expected $EXPECTED"

say "Merging in any order, and merging what was already merged, gives the same counter:"
sql "WITH c AS (SELECT
        (SELECT state FROM replica_state WHERE replica = 'replica-a') AS a,
        (SELECT state FROM replica_state WHERE replica = 'replica-b') AS b,
        (SELECT state FROM replica_state WHERE replica = 'replica-c') AS c)
     SELECT 'merge(merge(a, b), c)' AS how, counter_crdt_merge(counter_crdt_merge(a, b), c)::bigint AS value FROM c
     UNION ALL
     SELECT 'merge(c, merge(b, a))', counter_crdt_merge(c, counter_crdt_merge(b, a))::bigint FROM c
     UNION ALL
     SELECT 'merge(m, m) of merged m', counter_crdt_merge(m, m)::bigint
       FROM (SELECT counter_crdt_merge_agg(state) AS m FROM replica_state) x;"
ORDERS=$(val "WITH c AS (SELECT
        (SELECT state FROM replica_state WHERE replica = 'replica-a') AS a,
        (SELECT state FROM replica_state WHERE replica = 'replica-b') AS b,
        (SELECT state FROM replica_state WHERE replica = 'replica-c') AS c)
     SELECT counter_crdt_merge(counter_crdt_merge(a, b), c)::bigint || ' ' ||
            counter_crdt_merge(c, counter_crdt_merge(b, a))::bigint FROM c;")
[ "$ORDERS" = "$EXPECTED $EXPECTED" ] || fail "merge order changed the value: $ORDERS (expected $EXPECTED)"

say "An old copy of replica-a (taken after its first +5) arrives again.  Adding values would\n   double count; merging keeps the newer shard (higher clock) and stays exact:"
sql "SELECT replica, state AS stale_state FROM stale_copy;"
sql "SELECT sum(state::bigint) AS naive_sum_of_values,
            counter_crdt_merge_agg(state)::bigint AS merged_total
       FROM (SELECT state FROM replica_state UNION ALL SELECT state FROM stale_copy) s;"
STALE=$(val "SELECT counter_crdt_merge_agg(state)::bigint
               FROM (SELECT state FROM replica_state UNION ALL SELECT state FROM stale_copy) s;")
[ "$STALE" = "$EXPECTED" ] || fail "merging a stale copy gave $STALE, expected $EXPECTED"

say "c + 5 increments with this server's own writer id (a new shard):"
sql "SELECT s.*
       FROM (SELECT counter_crdt_merge_agg(state) AS m FROM replica_state) x,
            counter_crdt_shards(x.m + 5) s;"
sql "SELECT (m + 5)::bigint AS merged_plus_5
       FROM (SELECT counter_crdt_merge_agg(state) AS m FROM replica_state) x;"
PLUS=$(val "SELECT (counter_crdt_merge_agg(state) + 5)::bigint FROM replica_state;")
[ "$PLUS" = "$((EXPECTED + 5))" ] || fail "merged + 5 gave $PLUS, expected $((EXPECTED + 5))"

echo
echo "OK: three writers, $(wc -w <<<"${DELTAS[*]}") increments, merged total $TOTAL = sum of all deltas $EXPECTED."
pg_stop "$PGC_DIR"
