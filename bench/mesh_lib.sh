# shellcheck shell=bash
#
# mesh_lib.sh: throwaway servers for the logical-replication benchmarks
# (bench/replicated.sh, bench/mesh.sh) and the full mesh of three of them.
# Source it after scripts/pgcluster.sh and bench/lib.sh.
#
# PG_CONFIG, BIN, PG_MAJOR  set when sourced: pgc_pg_config's pg_config
#                         (exported), its bindir, its major version (17)
# REPL_SETTINGS           the servers' settings: wal_level = logical,
#                         fsync = off, synchronous_commit = off,
#                         autovacuum = off, wal_retrieve_retry_interval = 100ms
#                         (the launcher restarts an apply worker no sooner),
#                         slots and workers for a mesh; initdb's otherwise
# repl_start NAME         a server (pg_start, unix socket only, stopped at
#                         exit); its socket directory and port in HOST[NAME]
#                         and PORT[NAME]
# q NAME PSQL-ARGS...     psql -At on NAME, as postgres, stops at the first error
# conn NAME               NAME's connection string
# wait_for NAME SQL WANT  until SQL on NAME prints WANT (every 0.05 s)
# subscribe SERVER NAME FROM PUBLICATION [OPTIONS]
#                         SERVER subscribes to FROM's PUBLICATION, copy_data = false
# mesh_subscribe PREFIX PUBLICATION [OPTIONS]
#                         the full mesh of a, b and c: each subscribes to the
#                         other two's PUBLICATION (PREFIX_<to>_from_<from>);
#                         returns once the six apply workers and walsenders run
# mesh_load RATE SECONDS SCRIPT CLIENTS
#                         pgbench SCRIPT on a, b and c in the background, each
#                         at RATE transactions/s (-R) for SECONDS with CLIENTS
#                         clients; outputs in $WORK/pgb_<server>.out
# mesh_load_running       true while the first of them runs
# mesh_load_wait          waits for them (dies if one failed); the number of
#                         transactions they made in MESH_MADE
# mesh_cpu                CPU seconds so far of the walsenders and the apply
#                         workers of a, b and c: "SENDERS APPLIERS"

REPL_SETTINGS=(wal_level=logical fsync=off synchronous_commit=off autovacuum=off
	max_wal_senders=8 max_replication_slots=8 max_logical_replication_workers=8
	max_worker_processes=16 shared_buffers=256MB wal_sender_timeout=0
	wal_retrieve_retry_interval=100ms)
PG_CONFIG=$(pgc_pg_config)
export PG_CONFIG
BIN=$("$PG_CONFIG" --bindir)
# the major version of the binaries ("PostgreSQL 17.6 (Debian ...)" -> 17)
# shellcheck disable=SC2034	# the callers read it
PG_MAJOR=$("$PG_CONFIG" --version | sed -n 's/^PostgreSQL \([0-9][0-9]*\).*/\1/p')
declare -A HOST PORT
MESH_PGB=()

repl_start() { pg_start "" "" "${REPL_SETTINGS[@]}" >/dev/null; HOST[$1]=$PGC_HOST; PORT[$1]=$PGC_PORT; }
q() { local s=$1; shift; "$BIN/psql" -X -q -At -v ON_ERROR_STOP=1 -h "${HOST[$s]}" -p "${PORT[$s]}" -U postgres -d postgres "$@"; }
conn() { echo "host=${HOST[$1]} port=${PORT[$1]} dbname=postgres user=postgres"; }
wait_for() { local s=$1 sql=$2 want=$3; until [ "$(q "$s" -c "$sql")" = "$want" ]; do sleep 0.05; done; }
subscribe() # SERVER NAME FROM PUBLICATION [MORE OPTIONS]
{
	q "$1" -c "CREATE SUBSCRIPTION $2 CONNECTION '$(conn "$3")' PUBLICATION $4 WITH (copy_data = false${5:+, $5})" 2>/dev/null
}

mesh_subscribe() # PREFIX PUBLICATION [MORE OPTIONS]
{
	local prefix=$1 pub=$2 opts=${3:-} s f
	for s in a b c; do
		for f in a b c; do
			[ "$s" = "$f" ] || subscribe $s "${prefix}_${s}_from_$f" $f "$pub" "$opts"
		done
	done
	for s in a b c; do
		wait_for $s "SELECT count(*) FROM pg_stat_subscription
			WHERE subname LIKE '${prefix}\\_%' AND pid IS NOT NULL" 2
		wait_for $s "SELECT count(*) FROM pg_stat_replication WHERE application_name LIKE '${prefix}\\_%'" 2
	done
}

mesh_load() # RATE SECONDS SCRIPT CLIENTS
{
	local s
	MESH_PGB=()
	for s in a b c; do
		"$BIN/pgbench" -n -h "${HOST[$s]}" -p "${PORT[$s]}" -U postgres -c "$4" -j 1 -R "$1" \
			-T "$2" -f "$3" postgres >"$WORK/pgb_$s.out" 2>&1 &
		MESH_PGB+=($!)
	done
}
mesh_load_running() { kill -0 "${MESH_PGB[0]}" 2>/dev/null; }
mesh_load_wait()
{
	local p
	for p in "${MESH_PGB[@]}"; do wait "$p" || die "pgbench failed: $(cat "$WORK"/pgb_*.out)"; done
	# shellcheck disable=SC2034	# the callers read it
	MESH_MADE=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' "$WORK"/pgb_[abc].out |
		awk '{ n += $1 } END { print n + 0 }')
}

mesh_cpu()
{
	local s pid ws=0 ap=0
	for s in a b c; do
		for pid in $(q $s -c "SELECT string_agg(pid::text, ' ') FROM pg_stat_replication"); do
			ws=$(calc "$ws + $(cpu_of "$pid")" 3)
		done
		for pid in $(q $s -c "SELECT string_agg(pid::text, ' ') FROM pg_stat_subscription WHERE pid IS NOT NULL"); do
			ap=$(calc "$ap + $(cpu_of "$pid")" 3)
		done
	done
	echo "$ws $ap"
}
