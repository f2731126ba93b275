#!/usr/bin/env bash
#
# metrics_memory.sh: the peak memory of one scrape of a database with many
# counter columns (issue 45), measured on a throwaway server (unix socket
# only, run as the postgres OS user, stopped and removed at exit), with the
# extension as installed into $PG_CONFIG's PostgreSQL.
#
#   PG_CONFIG=... bash bench/metrics_memory.sh            # as root
#   MEMORY_TABLES=25000 MEMORY_PARTITIONED=0             # the defaults
#
# MEMORY_TABLES tables of two counter columns and one row each (50,000
# counter columns by default); with MEMORY_PARTITIONED=N, N of them are
# the partitions of one partitioned table instead.  Each query runs in a
# fresh backend whose private memory (Private_Clean + Private_Dirty of the
# private mappings in /proc/PID/smaps, which leaves out shared buffers) is
# sampled every 20 ms while it runs; the figure is the peak less the
# backend's memory before the query:
#
#   stat        SELECT count(*) FROM counter_crdt_stat          (per table)
#   tables      SELECT count(*) FROM counter_crdt_stat_tables   (as named)
#
# and tables / stat.  Both open every table once: most of what they keep is
# PostgreSQL's relcache entries of those tables, the same for both.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BENCH_TAG=metrics_memory
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"

PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
TABLES=${MEMORY_TABLES:-25000}
PARTS=${MEMORY_PARTITIONED:-0}
bench_server shared_buffers=128MB fsync=off max_locks_per_transaction=256
psql_ -c "CREATE EXTENSION counter_crdt"

say "PostgreSQL $("$PG_CONFIG" --version | awk '{print $2}'), $(fmt_int "$TABLES") tables of 2 counter columns, $(fmt_int "$PARTS") of them partitions of one table"
start=$SECONDS
if [ "$PARTS" -gt 0 ]; then
	psql_ -c "CREATE TABLE parted (k int, a counter_crdt, b counter_crdt) PARTITION BY RANGE (k)"
fi
# In batches: each CREATE TABLE holds a lock until its transaction ends.
for ((b = 0; b < TABLES; b += 1000)); do
	psql_ -c "DO \$\$
	BEGIN
		FOR i IN $b .. least($b + 999, $TABLES - 1) LOOP
			IF i < $PARTS THEN
				EXECUTE format('CREATE TABLE m%s PARTITION OF parted FOR VALUES FROM (%s) TO (%s)', i, i, i + 1);
			ELSE
				EXECUTE format('CREATE TABLE m%s (k int, a counter_crdt, b counter_crdt)', i);
			END IF;
			EXECUTE format('INSERT INTO m%s VALUES (%s, ''{}''::counter_crdt + 1, ''{}''::counter_crdt + 2)', i, i);
		END LOOP;
	END \$\$"
done
say "made in $((SECONDS - start)) s"

# KiB of private memory of backend $1 now: the pages of its private
# mappings (not the shared memory segment, whose pages count as private
# while no other process maps them).
private_kb() {
	awk '/^[0-9a-f]+-[0-9a-f]+ / { priv = substr($2, 4, 1) == "p" }
		priv && /^(Private_Clean|Private_Dirty|Swap):/ { s += $2 }
		END { print s + 0 }' "/proc/$1/smaps" 2>/dev/null || echo 0
}

# The peak private memory, in MB, that a fresh backend adds while it runs $1.
peak_mb() {
	local sql=$1 fifo="$D/fifo" pid base peak kb
	rm -f "$fifo"
	mkfifo "$fifo"
	chown postgres: "$fifo"
	# one session: its pid first, then the query once told to go on
	as_pg "$BIN/psql" -h "$D" -p "$PORT" -U postgres -d postgres -X -q -At \
		-c "SELECT pg_backend_pid()" -f "$fifo" >"$D/out" 2>&1 &
	local client=$!
	exec 7>"$fifo"
	for _ in $(seq 100); do
		pid=$(head -n 1 "$D/out" 2>/dev/null || true)
		[ -n "$pid" ] && break
		sleep 0.05
	done
	[ -n "$pid" ] || die "no backend pid"
	base=$(private_kb "$pid")
	peak=$base
	echo "$sql;" >&7
	exec 7>&-
	while kill -0 "$client" 2>/dev/null; do
		kb=$(private_kb "$pid")
		[ "$kb" -gt "$peak" ] && peak=$kb
		sleep 0.02
	done
	wait "$client" || die "the query failed: $(cat "$D/out")"
	calc "($peak - $base) / 1024" 1
}

declare -A mb
for q in stat tables; do
	view=counter_crdt_stat
	[ "$q" = tables ] && view=counter_crdt_stat_tables
	t0=$SECONDS
	mb[$q]=$(peak_mb "SELECT count(*) FROM $view")
	say "$(printf '%-7s' "$q") peak $(printf '%7s' "${mb[$q]}") MB above the fresh backend ($((SECONDS - t0)) s)"
done
say "tables / stat: $(calc "${mb[tables]} / ${mb[stat]}") x"
