#!/usr/bin/env bash
#
# demo.sh: counter_crdt in one minute.
#
#   bash scripts/demo.sh
#
# Builds and installs the extension (scripts/setup.sh), then:
#
#  1. on one throwaway server, three writers each increment their own copy of
#     one counter, and the copies are merged back into the exact total;
#  2. three throwaway servers replicate a table of counters to each other
#     (logical replication, every server publishing and subscribing to the two
#     others), take concurrent increments, and converge to the exact totals;
#     a page deleted on one server while another still counts it ends as a
#     tombstone everywhere.
#
# The script computes the expected totals itself, checks every result and the
# server logs, and exits 1 with "DEMO FAILED: ..." if anything is off.  All
# servers are stopped and removed at exit (PGC_KEEP=1 keeps their logs).
#
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
# shellcheck source=scripts/pgcluster.sh
source "$ROOT/scripts/pgcluster.sh"

bash "$ROOT/scripts/setup.sh"
PG_CONFIG=$(pgc_pg_config)
export PG_CONFIG
export PGC_DB=postgres
T0=$EPOCHREALTIME
# Seconds since the epoch time $1, to a tenth.
since() {
	local now=${EPOCHREALTIME/[.,]/} then=${1/[.,]/}
	local d=$(((now - then) / 100000))
	echo "$((d / 10)).$((d % 10))"
}

say() { printf '\n-- %b\n' "$*"; }
sql() { pg_psql -q -c "$1"; }
val() { pg_psql -q -A -t -c "$1"; }
fail() {
	echo >&2
	echo "DEMO FAILED: $*" >&2
	echo >&2
	exit 1
}
banner() {
	echo
	echo "=================================================================="
	printf ' %s\n' "$@"
	echo "=================================================================="
}

# ======================================================================
# Part 1: one server, three writers' copies of one counter, merged by hand.
# ======================================================================

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

# Part 1 runs on the server that becomes server 1 of part 2, so it is started
# ready for logical replication.  wal_retrieve_retry_interval: the launcher
# starts the apply workers of new subscriptions without its default 5 s pause.
LOGICAL=(-c wal_level=logical -c max_replication_slots=10 -c max_wal_senders=10
	-c max_logical_replication_workers=8 -c max_worker_processes=16
	-c wal_retrieve_retry_interval=200ms)
pg_start "" "" "${LOGICAL[@]}"
HOSTS=() PORTS=()
HOSTS[1]=$PGC_HOST
PORTS[1]=$PGC_PORT

banner "counter_crdt demo, part 1: three writers, one counter, merged exactly" \
	"(throwaway PostgreSQL $(val 'SHOW server_version'), socket $PGC_DIR, port $PGC_PORT)"

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
sql "SELECT counter_crdt_merge_agg(state) AS merged,
            counter_crdt_merge_agg(state)::bigint AS merged_total,
            (SELECT sum(delta) FROM increments) AS sum_of_all_deltas
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

echo
echo "OK (part 1): three writers, $(wc -w <<<"${DELTAS[*]}") increments, merged total $TOTAL = sum of all deltas $EXPECTED."

# ======================================================================
# Part 2: three servers replicating to each other.
# ======================================================================

NODES=(1 2 3)
for n in 2 3; do
	pg_start "" "" "${LOGICAL[@]}"
	HOSTS[n]=$PGC_HOST
	PORTS[n]=$PGC_PORT
done

# psql against server N.
on() {
	local n=$1
	shift
	local PGC_HOST=${HOSTS[n]} PGC_PORT=${PORTS[n]}
	pg_psql "$@"
}
sql_on() { on "$1" -q -c "$2"; }
val_on() { on "$1" -q -A -t -c "$2"; }
# Polls until QUERY on server N returns t; fails after TIMEOUT seconds.
wait_on() {
	local n=$1 q=$2 what=$3 timeout=${4:-30} i
	for ((i = 0; i < timeout * 10; i++)); do
		[ "$(val_on "$n" "$q")" = t ] && return 0
		sleep 0.1
	done
	fail "server $n: $what (no success within ${timeout}s)"
}

banner "counter_crdt demo, part 2: three servers replicating to each other" \
	"(three throwaway PostgreSQL servers, wal_level = logical, unix sockets only;" \
	" server 1 is part 1's server)"
for n in "${NODES[@]}"; do
	echo "   server $n: socket ${HOSTS[n]}, port ${PORTS[n]}"
done

say "On every server: the extension, a table of counters set up for replication with\n   counter_crdt_enable_replica_merge (merge on apply, local DELETE as tombstone,\n   key changes and TRUNCATE refused), and a publication without TRUNCATE of the table:"
echo "   CREATE EXTENSION IF NOT EXISTS counter_crdt;   -- server 1 has it from part 1"
echo "   CREATE TABLE page_views (page text PRIMARY KEY, views counter_crdt);"
echo "   SELECT counter_crdt_enable_replica_merge('page_views');"
echo "   CREATE PUBLICATION page_views_pub FOR TABLE page_views WITH (publish = 'insert, update, delete');"
for n in "${NODES[@]}"; do
	PGOPTIONS='-c client_min_messages=warning' \
		sql_on "$n" "CREATE EXTENSION IF NOT EXISTS counter_crdt;
		             CREATE TABLE page_views (page text PRIMARY KEY, views counter_crdt);
		             SELECT counter_crdt_enable_replica_merge('page_views');
		             CREATE PUBLICATION page_views_pub FOR TABLE page_views
		               WITH (publish = 'insert, update, delete');" >/dev/null
done
say "The triggers it installed (on server 1; tgenabled R = fires in replication apply only):"
sql_on 1 "SELECT tgname, tgenabled FROM pg_trigger
           WHERE tgrelid = 'page_views'::regclass AND NOT tgisinternal ORDER BY tgname;"

say "Only then, each server subscribes to the two others (as in the recipe of doc/replication.md: every server\n   publishes before any subscribes; a subscription's name is its slot's name on the publisher,\n   so each says who subscribes to whom; copy_data = false: the tables start empty):"
for n in "${NODES[@]}"; do
	for m in "${NODES[@]}"; do
		[ "$n" = "$m" ] && continue
		conn="host=${HOSTS[m]} port=${PORTS[m]} dbname=postgres user=postgres"
		echo "   server $n: CREATE SUBSCRIPTION page_views_${n}_from_$m CONNECTION '$conn' PUBLICATION page_views_pub WITH (copy_data = false);"
		PGOPTIONS='-c client_min_messages=warning' \
			sql_on "$n" "CREATE SUBSCRIPTION page_views_${n}_from_$m CONNECTION '$conn'
			             PUBLICATION page_views_pub WITH (copy_data = false);"
	done
done
for n in "${NODES[@]}"; do
	wait_on "$n" "SELECT count(*) = 2 FROM pg_stat_subscription WHERE pid IS NOT NULL" \
		"the two apply workers did not start"
	wait_on "$n" "SELECT count(*) = 2 FROM pg_replication_slots WHERE active" \
		"the two walsenders did not start"
done
say "Replication is running: two apply workers per server (pg_stat_subscription):"
for n in "${NODES[@]}"; do
	echo "   server $n: $(val_on "$n" "SELECT string_agg(subname || ' (pid ' || pid || ')', ', ' ORDER BY subname)
	                             FROM pg_stat_subscription WHERE pid IS NOT NULL")"
done

# ----------------------------------------------------------------------
say "Every server increments under its own writer id, counter_crdt_node_id().  By default it\n   is derived from the server's system identifier, so it differs from server to server:"
declare -A DEFAULT_ID=() RACK_ID=()
for n in "${NODES[@]}"; do
	DEFAULT_ID[$n]=$(val_on "$n" "SELECT counter_crdt_node_id()")
	echo "   server $n: ${DEFAULT_ID[$n]}"
done
[ "$(printf '%s\n' "${DEFAULT_ID[@]}" | sort -u | wc -l)" = 3 ] ||
	fail "the default writer ids are not all different: ${DEFAULT_ID[*]}"

say "Ids can be pinned instead, e.g. to ScyllaDB-style rack ids.  On server N, in psql, as a superuser\n   (ALTER SYSTEM knows counter_crdt.node_id once the extension's library is loaded in the session,\n   here by the first SELECT):"
echo "   SELECT counter_crdt_rack_id('dc1', 'rackN') AS id \\gset"
echo "   ALTER SYSTEM SET counter_crdt.node_id = :'id';"
echo "   SELECT pg_reload_conf();"
for n in "${NODES[@]}"; do
	on "$n" -q -A -t >/dev/null <<-EOF
		SELECT counter_crdt_rack_id('dc1', 'rack$n') AS id \\gset
		ALTER SYSTEM SET counter_crdt.node_id = :'id';
		SELECT pg_reload_conf();
	EOF
	RACK_ID[$n]=$(val_on "$n" "SELECT counter_crdt_rack_id('dc1', 'rack$n')")
done
for n in "${NODES[@]}"; do
	wait_on "$n" "SELECT counter_crdt_node_id() = '${RACK_ID[$n]}'::uuid" \
		"counter_crdt.node_id was not reloaded" 10
done
say "counter_crdt_node_id() now, in new sessions:"
for n in "${NODES[@]}"; do
	got=$(val_on "$n" "SELECT counter_crdt_node_id()")
	echo "   server $n: $got = counter_crdt_rack_id('dc1', 'rack$n')  (was ${DEFAULT_ID[$n]:0:8}...)"
	[ "$got" = "${RACK_ID[$n]}" ] || fail "server $n: node id is $got, expected ${RACK_ID[$n]}"
done

# ----------------------------------------------------------------------
# The workload: on every server, CLIENTS concurrent psql clients with STMTS
# upserts each over PAGES.  All clients connect first and wait for the file
# $WORK/go, so that they start together.  The first statement of each server's
# first client creates /launch in a transaction that stays open until all three
# servers have done so (files $WORK/inserted.N); the other clients wait for
# that too.  So all three servers create that row before any of them hears
# from the others.
PAGES=(/ /docs /pricing /blog /launch /old-post)
CLIENTS=2
STMTS=100
RANDOM=2024				# reproducible deltas
declare -A WANT=()			# page -> expected total
declare -A WANT_BY=()			# "server page" -> expected total of that server's increments
pgc_mktemp
WORK=$PGC_TMP
stmt="" example=""
upsert() {			# VAR page delta: sets VAR to the upsert statement
	printf -v "$1" "INSERT INTO page_views VALUES ('%s', NULL::counter_crdt + %d) ON CONFLICT (page) DO UPDATE SET views = page_views.views + %d" "$2" "$3" "$3"
}
# A /bin/sh loop (for psql's \!) that waits, 30 s at most, until the files
# $WORK/NAME... exist.
barrier() {
	local f cond=""
	for f in "$@"; do
		cond+="${cond:+ && }[ -e $WORK/$f ]"
	done
	echo "i=0; until $cond || [ \$i -ge 3000 ]; do sleep 0.01; i=\$((i + 1)); done"
}
count_it() {			# server page delta
	WANT[$2]=$((${WANT[$2]:-0} + $3))
	WANT_BY["$1 $2"]=$((${WANT_BY["$1 $2"]:-0} + $3))
}
for n in "${NODES[@]}"; do
	for ((c = 1; c <= CLIENTS; c++)); do
		f=$WORK/node$n.client$c.sql
		echo "\\! touch $WORK/ready.$n.$c; $(barrier go)" >"$f"
		k=0
		if [ "$c" = 1 ]; then
			d=$((1 + RANDOM % 5))
			upsert stmt /launch "$d"
			{
				echo "BEGIN;"
				echo "$stmt RETURNING 'created_locally=' || (xmax = 0);"
				echo "\\! touch $WORK/inserted.$n; $(barrier inserted.1 inserted.2 inserted.3)"
				echo "COMMIT;"
			} >>"$f"
			count_it "$n" /launch "$d"
			k=1
		else
			echo "\\! $(barrier inserted.1 inserted.2 inserted.3)" >>"$f"
		fi
		for ((; k < STMTS; k++)); do
			p=${PAGES[RANDOM % ${#PAGES[@]}]}
			d=$((1 + RANDOM % 9))
			[ $((RANDOM % 20)) = 0 ] && d=$((d * 100))	# now and then a burst
			upsert stmt "$p" "$d"
			echo "$stmt;"
			count_it "$n" "$p" "$d"
		done >>"$f"
	done
done
NSTMT=$((${#NODES[@]} * CLIENTS * STMTS))
upsert example /docs 3

say "Now $NSTMT increments at once: $CLIENTS psql clients on each of the three servers, $STMTS upserts each,\n   over the pages ${PAGES[*]}, for example:\n   $example;\n   /launch is new: each server creates its row in a transaction that stays open until all\n   three have done so, a race on a new key that replication settles by merging."
PIDS=()
for n in "${NODES[@]}"; do
	for ((c = 1; c <= CLIENTS; c++)); do
		on "$n" -A -t -f "$WORK/node$n.client$c.sql" \
			>"$WORK/node$n.client$c.out" 2>"$WORK/node$n.client$c.err" &
		PIDS+=($!)
	done
done
# Our own clients, by pid, if the demo stops early.
# shellcheck disable=SC2016  # expanded at exit time
pgc_at_exit 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done'
for ((i = 0; i < 300; i++)); do
	ready=$(find "$WORK" -name 'ready.*' | wc -l)
	[ "$ready" = "${#PIDS[@]}" ] && break
	sleep 0.1
done
[ "$ready" = "${#PIDS[@]}" ] || fail "only $ready of ${#PIDS[@]} clients connected within 30s"
touch "$WORK/go"
t_load=$EPOCHREALTIME
i=0
for n in "${NODES[@]}"; do
	for ((c = 1; c <= CLIENTS; c++)); do
		rc=0
		wait "${PIDS[i]}" || rc=$?
		i=$((i + 1))
		out=$WORK/node$n.client$c.out
		acked=$(grep -c '^INSERT 0 1$' "$out" || true)
		if [ "$rc" != 0 ] || [ "$acked" != "$STMTS" ]; then
			cat "$WORK/node$n.client$c.err" >&2
			fail "client $c on server $n: exit code $rc, $acked of $STMTS increments acknowledged"
		fi
	done
done
PIDS=()
echo "   all $NSTMT increments acknowledged in $(since "$t_load") s."
for n in "${NODES[@]}"; do
	created=$(sed -n 's/^created_locally=//p' "$WORK/node$n.client1.out")
	case "$created" in
		true) echo "   server $n: its first upsert of /launch created the row (INSERT)";;
		*) echo "   server $n: its first upsert of /launch found the row already there (UPDATE)";;
	esac
done

# ----------------------------------------------------------------------
DIGEST_Q="SELECT coalesce(string_agg(page || ':' || encode(counter_crdt_digest(views), 'hex'), ',' ORDER BY page), '') FROM page_views"
# Polls until the three servers hold identical states (the same digests,
# twice in a row), for at most TIMEOUT seconds.
wait_converged() {
	local timeout=${1:-30} t=$SECONDS prev="" d1 d2 d3
	while [ $((SECONDS - t)) -lt "$timeout" ]; do
		d1=$(val_on 1 "$DIGEST_Q")
		d2=$(val_on 2 "$DIGEST_Q")
		d3=$(val_on 3 "$DIGEST_Q")
		if [ "$d1" = "$d2" ] && [ "$d2" = "$d3" ]; then
			[ "$prev" = "$d1" ] && return 0
			prev=$d1
		else
			prev=""
		fi
		sleep 0.2
	done
	for n in "${NODES[@]}"; do
		echo "server $n:" >&2
		on "$n" -c "SELECT page, views::bigint, counter_crdt_digest(views) FROM page_views ORDER BY page" >&2 || true
	done
	fail "the three servers did not converge within ${timeout}s"
}

say "Waiting until the three servers hold the same state (per page, counter_crdt_digest(views))..."
t_conv=$EPOCHREALTIME
wait_converged 60
echo "   converged $(since "$t_conv") s after the last increment was acknowledged."

for n in "${NODES[@]}"; do
	say "Server $n:"
	sql_on "$n" "SELECT page, views::bigint AS views,
	                    (SELECT count(*) FROM counter_crdt_shards(views)) AS shards
	               FROM page_views ORDER BY page;"
done

say "One counter, /launch, on server 1: one shard per server that incremented it, its value the\n   sum of that server's increments:"
idvals=""
for n in "${NODES[@]}"; do
	idvals+="${idvals:+, }('server $n', '${RACK_ID[$n]}'::uuid, ${WANT_BY["$n /launch"]:-0})"
done
sql_on 1 "SELECT w.server, s.id AS writer_id, s.clock, s.value, w.sent AS increments_sent
            FROM page_views p, counter_crdt_shards(p.views) s
            JOIN (VALUES $idvals) AS w(server, id, sent) ON w.id = s.id
           WHERE p.page = '/launch' ORDER BY w.server;"

# Every shard of every page, on every server, is exactly what its server sent:
# "server page=value" lines, in the order of the query.
want=""
for m in "${NODES[@]}"; do
	while read -r p; do
		if [ -n "${WANT_BY["$m $p"]:-}" ]; then
			want+="$m $p=${WANT_BY["$m $p"]}"$'\n'
		fi
	done < <(printf '%s\n' "${PAGES[@]}" | LC_ALL=C sort)
done
for n in "${NODES[@]}"; do
	got=$(val_on "$n" "SELECT coalesce(w.n::text, s.id::text) || ' ' || p.page || '=' || s.value
	                     FROM page_views p, counter_crdt_shards(p.views) s
	                     LEFT JOIN (VALUES (1, '${RACK_ID[1]}'::uuid), (2, '${RACK_ID[2]}'),
	                                       (3, '${RACK_ID[3]}')) AS w(n, id) ON w.id = s.id
	                    ORDER BY w.n, p.page COLLATE \"C\"")
	[ "$got"$'\n' = "$want" ] ||
		fail "server $n holds the shards"$'\n'"$got"$'\n'"expected"$'\n'"$want"
done

say "Compared with the totals this script computed from the increments it sent:"
check_pages() {			# [skip-page]: prints the comparison, fails if off
	local skip=${1:-} p n v ok bad=0 row
	local -A have=()		# "server page" -> value
	for n in "${NODES[@]}"; do
		while IFS='|' read -r p v; do
			have["$n $p"]=$v
		done < <(val_on "$n" "SELECT page, coalesce(views::bigint::text, 'tombstone') FROM page_views")
		v=$(val_on "$n" "SELECT count(*) FROM page_views")
		[ "$v" = "${#WANT[@]}" ] || fail "server $n has $v pages, expected ${#WANT[@]}"
	done
	printf '   %-10s %10s %10s %10s %10s\n' page "server 1" "server 2" "server 3" expected
	while read -r p; do
		[ "$p" = "$skip" ] && continue
		ok=yes
		row=""
		for n in "${NODES[@]}"; do
			v=${have["$n $p"]:-absent}
			row+=$(printf ' %10s' "$v")
			[ "$v" = "${WANT[$p]}" ] || ok=NO
		done
		printf '   %-10s%s %10s  %s\n' "$p" "$row" "${WANT[$p]}" "$ok"
		[ "$ok" = yes ] || bad=$((bad + 1))
	done < <(printf '%s\n' "${!WANT[@]}" | LC_ALL=C sort)
	[ "$bad" = 0 ] || fail "$bad page(s) differ from the expected totals"
}
check_pages
show_digests() {
	local n d ref=""
	for n in "${NODES[@]}"; do
		d=$(val_on "$n" "SELECT encode(sha256(convert_to(($DIGEST_Q), 'UTF8')), 'hex')")
		echo "   server $n: sha256 of all page digests = ${d:0:32}..."
		[ -z "$ref" ] && ref=$d
		[ "$d" = "$ref" ] || fail "server $n's digests differ from server 1's"
	done
	echo "   identical on all three servers."
}
show_digests

# ----------------------------------------------------------------------
DEL=/old-post
say "A delete racing increments: server 2 keeps counting views of $DEL (+1, 200 times, 10 ms\n   apart) while server 1 deletes the page:"
f=$WORK/delete_race.sql
upsert stmt "$DEL" 1
for ((k = 0; k < 200; k++)); do
	echo "$stmt;"
	echo "SELECT pg_sleep(0.01);"
done >"$f"
on 2 -q -f "$f" >"$WORK/delete_race.out" 2>"$WORK/delete_race.err" &
PIDS=($!)
sleep 0.5
before=$(val_on 1 "SELECT views::bigint FROM page_views WHERE page = '$DEL'")
running=no
kill -0 "${PIDS[0]}" 2>/dev/null && running=yes
echo "   server 1: DELETE FROM page_views WHERE page = '$DEL';   ($DEL had $before views there)"
on 1 -c "DELETE FROM page_views WHERE page = '$DEL';" | sed 's/^/   /'
echo "   (DELETE 0: the trigger counter_crdt_delete_as_tombstone turned it into a tombstone;"
echo "    server 2 was still incrementing at that moment: $running)"
rc=0
wait "${PIDS[0]}" || rc=$?
PIDS=()
[ "$rc" = 0 ] || { cat "$WORK/delete_race.err" >&2; fail "the increments of $DEL on server 2 failed (exit code $rc)"; }
wait_converged 60
say "Converged.  $DEL on every server:"
for n in "${NODES[@]}"; do
	v=$(val_on "$n" "SELECT coalesce((SELECT views::text FROM page_views WHERE page = '$DEL'), 'absent')")
	echo "   server $n: $v"
	[ "$v" = tombstone ] || fail "server $n holds '$v' for $DEL, expected tombstone"
done
say "An increment after the delete is ignored (server 3):"
upsert stmt "$DEL" 1
echo "   $stmt RETURNING page, views;"
on 3 -q -c "$stmt RETURNING page, views;" | sed -e '/^$/d' -e 's/^/   /'
wait_converged 30
for n in "${NODES[@]}"; do
	v=$(val_on "$n" "SELECT coalesce((SELECT views::text FROM page_views WHERE page = '$DEL'), 'absent')")
	[ "$v" = tombstone ] || fail "server $n holds '$v' for $DEL after the late increment, expected tombstone"
done
say "The other pages are untouched:"
check_pages "$DEL"
show_digests

# ----------------------------------------------------------------------
say "counter_crdt_health() on every server (no rows: it sees nothing wrong with the set-up):"
for n in "${NODES[@]}"; do
	rows=$(val_on "$n" "SELECT * FROM counter_crdt_health()")
	[ -z "$rows" ] || fail "server $n: counter_crdt_health() reports:"$'\n'"$rows"
	echo "   server $n: no rows"
done

say "Server logs: looking for replication errors..."
for n in "${NODES[@]}"; do
	log=${HOSTS[n]}/server.log
	errs=$(grep -E 'ERROR:|FATAL:|PANIC:|logical replication .* error|terminated by signal' "$log" |
		grep -vE 'could not receive data from WAL stream|could not connect to the publisher|server closed the connection unexpectedly|terminating connection due to administrator command' || true)
	if [ -n "$errs" ]; then
		echo "$errs" | head -n 10 >&2
		fail "errors in the log of server $n ($log)"
	fi
	echo "   server $n: none"
done

echo
echo "OK (part 2): three servers, $NSTMT concurrent increments over ${#WANT[@]} pages, converged to"
echo "   the exact totals with identical states; a delete won on every server."
echo "   The demo took $(since "$T0") s (setup excluded).  Stopping the three servers."
for n in "${NODES[@]}"; do
	pg_stop "${HOSTS[n]}"
done
