#!/usr/bin/env bash
#
# replicated.sh: the replicated path of counter_crdt, measured on throwaway
# servers (unix sockets only, run as the postgres OS user, stopped at exit).
#
#   PG_CONFIG=... bash bench/replicated.sh      # as root, like bench/bench.sh
#
# (bench/bench.sh runs it after its own figures unless BENCH_REPLICATED=0; it
# uses the extension as installed into $PG_CONFIG's PostgreSQL.)
#
# 1. Apply rate.  Servers a -> b, and on both a counter table
#    t (k int primary key, c counter_crdt) of 1,000 rows set up with
#    counter_crdt_enable_replica_merge() (3 shards per counter: a's id, b's
#    and a third, as in bench/apply_backlog.sh), and a bigint twin
#    tb (k int primary key, v bigint) replicated plainly, each table in its
#    own publication and subscription.  One round per side, as in
#    apply_backlog.sh: that side's subscription is disabled, a takes a backlog
#    of REPL_BACKLOG single-statement increments (pgbench, 4 clients, random
#    keys), the subscription is enabled, and the time until b's total equals
#    a's is the figure (with the CPU time of the apply worker, which the
#    ENABLE starts afresh).  The other side's subscription stays enabled (it
#    reads and filters the same WAL while the backlog is made, not while it
#    is timed).  Rounds alternate bigint, counter, counter with the
#    subscription's binary = true (values travel in the send/recv form
#    instead of text, which the walsender formats and the apply worker
#    parses), and binary with the compact form (the walsender's
#    counter_crdt.binary_format = 'compact', set by the subscription's
#    connection options); medians and the ratios of rates (counter / bigint) are
#    reported.  Target >= 0.95 x.
#    Two more bigint sides split the gap into what PostgreSQL costs and what
#    the counter's own code does: bt, the bigint table with a BEFORE UPDATE
#    row trigger in C that fires for the apply worker as the merge trigger
#    does (PostgreSQL's own suppress_redundant_updates_trigger(), which
#    compares the old and the new row; ENABLE REPLICA), and bw, the same
#    with a bytea column that makes the row as wide as the counter's (its
#    bytes, 44 beside 1.12's counters of three writers, travel as text too,
#    as hex).  From bigint to bt is the cost of
#    having a row trigger at all; from bt to bw that of the wider row; from
#    bw to the counter that of the counter's text input and its merge
#    trigger.
# 2. Mesh lag.  Servers a, b, c in the full mesh (every server subscribes to
#    the other two; without an origin filter, as on PostgreSQL 15 or with
#    REPL_ORIGIN=any, every applied change is decoded again and sent on: the
#    echo; with REPL_ORIGIN=none a walsender sends only the changes made on
#    its own server).  Table m (k int primary
#    key, c counter_crdt) of 1,000 rows, merge trigger on all three, counters
#    holding the three servers' shards.  At each of two rates every server
#    takes increments at that fixed rate (pgbench -R) for REPL_MESH_SECONDS;
#    sampled every 0.5 s: replay_lag of every walsender and the WAL bytes
#    between a server's insert position and what each subscriber confirmed.
#    After the load stops: the time until all three totals equal the number
#    of increments made.  Per increment: WAL bytes written on all three
#    servers, transactions decoded and sent (pg_stat_replication_slots; 2 is
#    what a mesh without echo would send), applies that changed nothing (the
#    echo: the merge trigger finds the change already there and skips the
#    row), and the CPU time of walsenders and apply workers.
#    Then idle WAL: with the mesh converged, a CHECKPOINT on each server (so
#    that no timed one falls in the window) and 2 s to settle, the WAL bytes
#    each server writes in REPL_IDLE_SECONDS of no load (pg_current_wal_lsn
#    before and after).
#
# Servers: fsync = off, synchronous_commit = off, autovacuum = off (VACUUM
# before every round instead), wal_retrieve_retry_interval = 100ms (the
# launcher starts no apply worker sooner than that after the last one; at the
# default 5 s the start, not the apply, would be timed).  Initdb's defaults
# otherwise: on PostgreSQL 18 that means data checksums on (and so hint-bit
# full-page images in the WAL), which the header of the table states.
#
# Versions: PostgreSQL 15 and later (pg_stat_replication_slots and
# pg_stat_force_next_flush() are 15's); REPL_ORIGIN=none needs 16.  It runs
# in the chroots of scripts/pgchroot.sh as well (mawk, no bc needed), e.g.
#   bash scripts/pgchroot.sh run --cwd /build/counter_crdt \
#       --env PG_CONFIG=/usr/lib/postgresql/17/bin/pg_config 17 -- bash bench/replicated.sh
#
# Knobs: REPL_BACKLOG [100000], REPL_ROUNDS [3], REPL_RATES ["100 400"]
# (increments per second per server), REPL_MESH_SECONDS [20];
# REPL_ORIGIN [any]: any or none, the origin option of the mesh's
# subscriptions (section 2 only; none is refused before PostgreSQL 16, and
# it is a measurement, not a recommendation: with origin = none a server's
# first write of a row it got from a peer reaches a third server as an
# UPDATE, which that server skips if the row has not reached it yet, so a
# mesh of 3+ servers can lose increments; the mesh here inserts every row
# on all three servers beforehand, so it loses none);
# REPL_IDLE_SECONDS [10]: the idle-WAL window (0: no idle-WAL figure); REPL_PERF_DIR
# [unset]: a directory where perf record writes a profile of the apply worker
# of each side's last round (apply_b.data, apply_c.data, apply_cbin.data,
# apply_ccmp.data).
# REPL_CALLGRIND=1: instead of the timed rounds and the mesh, count the
# instructions of each side's apply worker and walsender per change under
# callgrind (section 1b; REPL_CG_N1 [400], REPL_CG_N2 [2400]; REPL_CG_SIDES
# ["b bt bw c cbin ccmp"]: the sides counted, b first).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
N=${REPL_BACKLOG:-100000}
ROUNDS=${REPL_ROUNDS:-3}
RATES=${REPL_RATES:-"100 400"}
MESH_SECONDS=${REPL_MESH_SECONDS:-20}
ORIGIN=${REPL_ORIGIN:-any}
IDLE_SECONDS=${REPL_IDLE_SECONDS:-10}
# shellcheck source=scripts/pgcluster.sh
source "$ROOT/scripts/pgcluster.sh"
BENCH_TAG=replicated
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"
# shellcheck source=bench/mesh_lib.sh
source "$ROOT/bench/mesh_lib.sh"

for v in N ROUNDS MESH_SECONDS; do
	[[ ${!v} =~ ^[1-9][0-9]*$ ]] || { echo "replicated: $v must be a positive integer" >&2; exit 2; }
done
[[ $IDLE_SECONDS =~ ^[0-9]+$ ]] || { echo "replicated: REPL_IDLE_SECONDS must be a non-negative integer" >&2; exit 2; }
case $ORIGIN in
	any) ;;
	none)
		[[ $PG_MAJOR =~ ^[0-9]+$ ]] || { echo "replicated: cannot tell the version of $PG_CONFIG" >&2; exit 2; }
		[ "$PG_MAJOR" -ge 16 ] || {
			echo "replicated: REPL_ORIGIN=none needs PostgreSQL 16 or later (the subscription option origin); $PG_CONFIG is $PG_MAJOR" >&2
			exit 2
		} ;;
	*) echo "replicated: REPL_ORIGIN must be any or none" >&2; exit 2 ;;
esac

pgc_mktemp
WORK=$PGC_TMP
repl_start a
repl_start b
CHECKSUMS=$(q a -c 'SHOW data_checksums')
say "servers a (port ${PORT[a]}) and b (port ${PORT[b]}), PostgreSQL $(q a -c 'SHOW server_version'), data checksums $CHECKSUMS"
for s in a b; do
	q $s -c "CREATE EXTENSION counter_crdt;
		CREATE TABLE t (k int PRIMARY KEY, c counter_crdt);
		CREATE TABLE tb (k int PRIMARY KEY, v bigint NOT NULL);
		CREATE TABLE tbt (k int PRIMARY KEY, v bigint NOT NULL);
		CREATE TABLE tbw (k int PRIMARY KEY, v bigint NOT NULL, pad bytea NOT NULL);
		SELECT counter_crdt_enable_replica_merge('t');
		CREATE PUBLICATION pc FOR TABLE t;
		CREATE PUBLICATION pb FOR TABLE tb;
		CREATE PUBLICATION pbt FOR TABLE tbt;
		CREATE PUBLICATION pbw FOR TABLE tbw;" >/dev/null
done
# The baselines' trigger, on the subscriber only (the merge trigger fires
# there only too: on a it is ENABLE REPLICA, and nothing replicates into a).
for tbl in tbt tbw; do
	q b -c "CREATE TRIGGER c_trigger BEFORE UPDATE ON $tbl FOR EACH ROW
			EXECUTE FUNCTION suppress_redundant_updates_trigger();
		ALTER TABLE $tbl ENABLE REPLICA TRIGGER c_trigger"
done
ID_A=$(q a -c "SELECT counter_crdt_node_id()")
ID_B=$(q b -c "SELECT counter_crdt_node_id()")
[ "$ID_A" != "$ID_B" ] || die "a and b have the same writer id"
INIT="INSERT INTO t SELECT k, counter_crdt_increment(counter_crdt_increment(counter_crdt_increment(
		NULL, 1, '$ID_A'), 1, '$ID_B'), 1, counter_crdt_rack_id('dc9', 'r9')) FROM generate_series(1, 1000) k;
	INSERT INTO tb SELECT k, 3 FROM generate_series(1, 1000) k;
	INSERT INTO tbt SELECT k, 3 FROM generate_series(1, 1000) k;"
for s in a b; do
	q $s -c "$INIT"
done
# tbw's pad: as many bytes as make its row as wide as a counter row of t
# (the row takes as many bytes more as the pad has: measured with 72)
W_C=$(q a -c "SELECT pg_column_size(t.*) FROM t LIMIT 1")
PAD=$(( 72 + W_C - $(q a -c "SELECT pg_column_size(x.*) FROM (SELECT 1::int AS k, 3::bigint AS v,
	decode(repeat('a5', 72), 'hex') AS pad) x") ))
[ "$PAD" -ge 1 ] || die "a counter row ($W_C bytes) is narrower than a bigint row with a pad"
for s in a b; do
	q $s -c "INSERT INTO tbw SELECT k, 3, decode(repeat('a5', $PAD), 'hex') FROM generate_series(1, 1000) k"
done
subscribe b sc a pc
subscribe b sb a pb
subscribe b sbt a pbt
subscribe b sbw a pbw
[ "$(q b -c "SELECT count(*) FROM t, counter_crdt_shards(c) s WHERE s.id = counter_crdt_node_id()")" = 1000 ] ||
	die "the counters of b do not hold b's own shard"
[ "$(q a -c "SELECT count(*) FROM t, counter_crdt_shards(c) s")" = 3000 ] || die "the counters of a do not hold 3 shards"
# The row widths, as stored (k and the value, or k, v and pad).
W_B=$(q a -c "SELECT pg_column_size(tb.*) FROM tb LIMIT 1")
W_BW=$(q a -c "SELECT pg_column_size(tbw.*) FROM tbw LIMIT 1")

cat >"$WORK/inc_t.sql" <<'SQL'
\set k random(1, 1000)
UPDATE t SET c = c + 1 WHERE k = :k;
SQL
for tbl in tb tbt tbw; do
	cat >"$WORK/inc_$tbl.sql" <<SQL
\\set k random(1, 1000)
UPDATE $tbl SET v = v + 1 WHERE k = :k;
SQL
done
chmod 644 "$WORK"/inc_*.sql

# The sides: table, subscription, total, and the name in the log.
declare -A TBL=([b]=tb [bt]=tbt [bw]=tbw [c]=t [cbin]=t [ccmp]=t)
declare -A SUB=([b]=sb [bt]=sbt [bw]=sbw [c]=sc [cbin]=sc [ccmp]=sc)
declare -A SIDE_NAME=([b]="bigint" [bt]="bigint, C trigger" [bw]="bigint, wide, C trigger"
	[c]="counter_crdt" [cbin]="counter_crdt, binary" [ccmp]="counter_crdt, compact")
# side_total SIDE: the SQL of the total that b reaches once it has applied a.
side_total() { if [ "${TBL[$1]}" = t ]; then echo "sum(c::bigint)"; else echo "sum(v)"; fi; }
# backlog SIDE COUNT: the side's subscription disabled (its apply worker and
# walsender end), its binary option set, and COUNT increments taken on a.
backlog()
{
	local side=$1 n=$2 sub=${SUB[$1]} tbl=${TBL[$1]}
	q b -c "ALTER SUBSCRIPTION $sub DISABLE"
	wait_for b "SELECT count(*) FROM pg_stat_subscription WHERE subname = '$sub' AND pid IS NOT NULL" 0
	if [ "$tbl" = t ]; then
		# ccmp: binary, and the walsender sends the compact form (set in the
		# connection's options here; the replication page sets it for the role)
		q b -c "ALTER SUBSCRIPTION sc SET (binary = $([ "$side" = c ] && echo false || echo true))" \
			-c "ALTER SUBSCRIPTION sc CONNECTION '$(conn a)$([ "$side" != ccmp ] ||
				echo " options=''-c counter_crdt.binary_format=compact''")'"
	fi
	"$BIN/pgbench" -n -h "${HOST[a]}" -p "${PORT[a]}" -U postgres -c 4 -j 2 -t $((n / 4)) \
		-f "$WORK/inc_$tbl.sql" postgres >/dev/null
}

# --- 1b. REPL_CALLGRIND=1: the same sides counted in instructions -------------
# Rates swing by up to 25 % between rounds on a shared machine; instruction
# counts do not.  Both servers are restarted under callgrind (every process
# they fork writes its own profile), and each side applies three backlogs:
# 200 increments to warm up, then N1 and N2, each by an apply worker and a
# walsender of its own (the subscription is disabled in between, which ends
# both and writes their profiles).  Per change = (N2's - N1's) / (N2 - N1)
# of the inclusive count of ApplyWorkerMain (apply worker) and PostgresMain
# (walsender), so that start-up costs cancel; the counter's own functions
# (text or binary input and the merge trigger; output) are counted the same
# way.  Prints its table and exits: the timed rounds and the mesh do not run.
if [ -n "${REPL_CALLGRIND:-}" ]; then
	command -v valgrind >/dev/null && command -v callgrind_annotate >/dev/null ||
		die "REPL_CALLGRIND needs valgrind (apt-get install valgrind)"
	N1=${REPL_CG_N1:-400}
	N2=${REPL_CG_N2:-2400}
	CG=$WORK/callgrind
	mkdir "$CG"
	_pgc_chown "$CG"
	cat >"$WORK/vgpostgres" <<SH
#!/bin/sh
exec valgrind -q --tool=callgrind --dump-instr=no --callgrind-out-file=$CG/cg.%p "$BIN/postgres" "\$@"
SH
	chmod 755 "$WORK/vgpostgres"
	for s in a b; do
		opts="-p ${PORT[$s]} -k ${HOST[$s]} -c listen_addresses='' -c fsync=off"
		for kv in "${REPL_SETTINGS[@]}"; do opts+=" -c $kv"; done
		_pgc_as_owner "$BIN/pg_ctl" -D "${HOST[$s]}/data" -m fast -w stop >/dev/null
		_pgc_as_owner "$BIN/pg_ctl" -D "${HOST[$s]}/data" -p "$WORK/vgpostgres" -w -t 300 \
			-l "${HOST[$s]}/callgrind.log" -o "$opts" start >/dev/null || die "$s did not start under callgrind"
	done
	say "a and b restarted under callgrind"
	# inclusive instructions of FUNCTION in profile FILE (0 if it never ran)
	incl() { callgrind_annotate --inclusive=yes --threshold=100 "$1" 2>/dev/null |
		awk -v f=":$2 [" 'index($0, f) { gsub(",", "", $1); print $1; found = 1; exit } END { if (!found) print 0 }'; }
	# cg_once SIDE COUNT: applies COUNT increments; prints the apply worker's
	# and the walsender's pids once both have written their profiles.
	cg_once()
	{
		local side=$1 n=$2 sub=${SUB[$1]} tbl=${TBL[$1]} total target apid wpid
		total=$(side_total "$side")
		backlog "$side" "$n"
		target=$(q a -c "SELECT $total FROM $tbl")
		q b -c "VACUUM $tbl"
		q b -c "ALTER SUBSCRIPTION $sub ENABLE"
		wait_for b "SELECT $total FROM $tbl" "$target"
		apid=$(q b -c "SELECT pid FROM pg_stat_subscription WHERE subname = '$sub'")
		wpid=$(q a -c "SELECT pid FROM pg_stat_replication WHERE application_name = '$sub'")
		q b -c "ALTER SUBSCRIPTION $sub DISABLE"
		until grep -q '^totals:' "$CG/cg.$apid" 2>/dev/null && grep -q '^totals:' "$CG/cg.$wpid" 2>/dev/null; do
			sleep 0.2
		done
		echo "$apid $wpid"
	}
	# per change of FUNCTION between the N1 and N2 profiles
	per() { echo $(( ($(incl "$CG/cg.$2" "$1") - $(incl "$CG/cg.$3" "$1")) / (N2 - N1) )); }
	declare -A CGA CGW CGOA CGOW
	CG_SIDES=${REPL_CG_SIDES:-"b bt bw c cbin ccmp"}
	[ "${CG_SIDES%% *}" = b ] || die "REPL_CG_SIDES must start with b (the baseline)"
	for side in $CG_SIDES; do
		cg_once $side 200 >/dev/null
		read -r a1 w1 < <(cg_once $side "$N1")
		read -r a2 w2 < <(cg_once $side "$N2")
		[ -z "${PGC_KEEP:-}" ] || say "  profiles of $side (kept): $CG/cg.$a1 and cg.$a2 (apply), cg.$w1 and cg.$w2 (walsender)"
		CGA[$side]=$(per ApplyWorkerMain "$a2" "$a1")
		CGW[$side]=$(per PostgresMain "$w2" "$w1")
		case $side in
			c) CGOA[$side]=$(( $(per counter_crdt_in "$a2" "$a1") + $(per counter_crdt_replica_merge "$a2" "$a1") ))
			   CGOW[$side]=$(per counter_crdt_out "$w2" "$w1") ;;
			cbin|ccmp) CGOA[$side]=$(( $(per counter_crdt_recv "$a2" "$a1") + $(per counter_crdt_replica_merge "$a2" "$a1") ))
			   CGOW[$side]=$(per counter_crdt_send "$w2" "$w1") ;;
			bw) CGOA[$side]=$(( $(per byteain "$a2" "$a1") + $(per suppress_redundant_updates_trigger "$a2" "$a1") ))
			   CGOW[$side]=$(per byteaout "$w2" "$w1") ;;
			bt) CGOA[$side]=$(per suppress_redundant_updates_trigger "$a2" "$a1"); CGOW[$side]=0 ;;
			*) CGOA[$side]=0; CGOW[$side]=0 ;;
		esac
		say "  $(printf '%-24s' "${SIDE_NAME[$side]}") per change: apply worker ${CGA[$side]}, walsender ${CGW[$side]} instructions"
	done
	echo
	echo "replicated path in instructions: PostgreSQL $(q a -c 'SHOW server_version'), $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo
	printf '%-44s %14s %8s %14s %8s %12s %12s\n' "side (instructions per change)" "apply worker" "vs b" "walsender" "vs b" "own, apply" "own, sender"
	for side in $CG_SIDES; do
		printf '%-44s %14s %6s x %14s %6s x %12s %12s\n' "${SIDE_NAME[$side]}" "${CGA[$side]}" \
			"$(calc "${CGA[$side]} / ${CGA[b]}")" "${CGW[$side]}" "$(calc "${CGW[$side]} / ${CGW[b]}")" \
			"${CGOA[$side]}" "${CGOW[$side]}"
	done
	echo
	# stopped here, so that every profile is written before the directory goes
	pg_stop "${HOST[a]}" || true
	pg_stop "${HOST[b]}" || true
	echo "* callgrind instruction counts (Ir), per change: (count for $N2 changes - count for $N1) / $((N2 - N1)), inclusive, of the apply worker (ApplyWorkerMain) on b and the walsender (PostgresMain) on a; own = the side's type input and trigger in the apply worker (counter_crdt_in or _recv and counter_crdt_replica_merge; byteain and suppress_redundant_updates_trigger) and its output in the walsender (counter_crdt_out or _send; byteaout). Instructions are not time: cache misses and system calls are not in them."
	exit 0
fi

declare -A TIMES CPUS WCPUS WALPER
# apply_round SIDE: one of the keys of TBL.
apply_round()
{
	local side=$1 tbl=${TBL[$1]} sub=${SUB[$1]} total l0 l1 start end pid cpu wcpu perfpid
	total=$(side_total "$side")
	l0=$(q a -c "SELECT pg_current_wal_insert_lsn()")
	backlog "$side" "$N"
	l1=$(q a -c "SELECT pg_current_wal_insert_lsn()")
	WALPER[$side]=$(q a -c "SELECT round(pg_wal_lsn_diff('$l1', '$l0') / $((N / 4 * 4)))")
	target=$(q a -c "SELECT $total FROM $tbl")
	q a -c "VACUUM $tbl"
	q b -c "VACUUM $tbl" -c "CHECKPOINT"
	start=$(date +%s.%N)
	q b -c "ALTER SUBSCRIPTION $sub ENABLE"
	if [ -n "${REPL_PERF_DIR:-}" ]; then
		# profile the apply worker of this round (perf record, call graphs)
		wait_for b "SELECT count(*) FROM pg_stat_subscription WHERE subname = '$sub' AND pid IS NOT NULL" 1
		pid=$(q b -c "SELECT pid FROM pg_stat_subscription WHERE subname = '$sub'")
		perf record -q -e cpu-clock -g -p "$pid" -o "$REPL_PERF_DIR/apply_$side.data" 2>/dev/null &
		perfpid=$!
		wait_for a "SELECT count(*) FROM pg_stat_replication WHERE application_name = '$sub'" 1
		pid=$(q a -c "SELECT pid FROM pg_stat_replication WHERE application_name = '$sub'")
		perf record -q -e cpu-clock -g -p "$pid" -o "$REPL_PERF_DIR/walsender_$side.data" 2>/dev/null &
		perfpid="$perfpid $!"
	fi
	wait_for b "SELECT $total FROM $tbl" "$target"
	end=$(date +%s.%N)
	# shellcheck disable=SC2086
	[ -z "${REPL_PERF_DIR:-}" ] || { kill -INT $perfpid; wait $perfpid || true; }
	pid=$(q b -c "SELECT pid FROM pg_stat_subscription WHERE subname = '$sub'")
	cpu=$(cpu_of "$pid")
	# the walsender that decoded and sent the backlog (started by the ENABLE)
	pid=$(q a -c "SELECT pid FROM pg_stat_replication WHERE application_name = '$sub'")
	wcpu=$(cpu_of "$pid")
	TIMES[$side]+="$(calc "$end - $start" 3) "
	CPUS[$side]+="$cpu "
	WCPUS[$side]+="$wcpu "
	say "  $(printf '%-24s' "${SIDE_NAME[$side]}") backlog applied in $(calc "$end - $start") s, CPU: apply worker $cpu s, walsender $wcpu s"
}

say "apply rate: backlogs of $N increments, $ROUNDS rounds per side (bigint, counter, ...)"
for ((r = 0; r < ROUNDS; r++)); do
	for side in b c cbin ccmp bt bw; do apply_round $side; done
done
[ "$(q b -c "SELECT count(*) FROM counter_crdt_writer_conflicts")" = 0 ] || die "own-id conflicts recorded on b"
[ "$(q b -c "SELECT count(*) FROM t, counter_crdt_shards(c) s")" = 3000 ] || die "b's counters grew shards"
# Per side: median time (MT), apply worker CPU (MC), walsender CPU (MW), rate.
N_DONE=$((N / 4 * 4))
declare -A MT MC MW RATE
for side in b bt bw c cbin ccmp; do
	MT[$side]=$(echo "${TIMES[$side]}" | median)
	MC[$side]=$(echo "${CPUS[$side]}" | median)
	MW[$side]=$(echo "${WCPUS[$side]}" | median)
	RATE[$side]=$(calc "$N_DONE / ${MT[$side]}" 0)
done
q b -c "DROP SUBSCRIPTION sc" -c "DROP SUBSCRIPTION sb" -c "DROP SUBSCRIPTION sbt" -c "DROP SUBSCRIPTION sbw"

# --- 2. mesh -----------------------------------------------------------------
repl_start c
for s in a b c; do
	q $s -c "CREATE EXTENSION IF NOT EXISTS counter_crdt;
		CREATE TABLE m (k int PRIMARY KEY, c counter_crdt);
		SELECT counter_crdt_enable_replica_merge('m');
		CREATE PUBLICATION pm FOR TABLE m;" >/dev/null
done
ID_C=$(q c -c "SELECT counter_crdt_node_id()")
for s in a b c; do
	q $s -c "INSERT INTO m SELECT k, counter_crdt_increment(counter_crdt_increment(counter_crdt_increment(
			NULL, 0, '$ID_A'), 0, '$ID_B'), 0, '$ID_C') FROM generate_series(1, 1000) k"
done
# origin = any is the default (and the only behaviour before 16): say nothing
MESH_OPTS=""
[ "$ORIGIN" = any ] || MESH_OPTS="origin = $ORIGIN"
mesh_subscribe m pm "$MESH_OPTS"
sed -e 's/UPDATE t /UPDATE m /' "$WORK/inc_t.sql" >"$WORK/inc_m.sql"
chmod 644 "$WORK/inc_m.sql"

SAMPLE_SQL="SELECT coalesce(max(extract(epoch FROM replay_lag)), 0) || ' ' ||
	coalesce(max(pg_wal_lsn_diff(pg_current_wal_lsn(), replay_lsn)), 0)
	FROM pg_stat_replication"
STATS_SQL="SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint,
	(SELECT coalesce(sum(total_txns), 0) FROM pg_stat_replication_slots),
	(SELECT coalesce(sum(total_bytes), 0) FROM pg_stat_replication_slots),
	(SELECT n_tup_upd FROM pg_stat_user_tables WHERE relname = 'm')"

# Sums of STATS_SQL over the three servers, and the CPU seconds of their
# walsenders and apply workers.
stats_now()
{
	local s tot=(0 0 0 0) row i
	for s in a b c; do
		q $s -c "SELECT pg_stat_force_next_flush()" >/dev/null
		read -r -a row < <(q $s -F ' ' -c "$STATS_SQL")
		for i in 0 1 2 3; do tot[i]=$((tot[i] + row[i])); done
	done
	echo "${tot[*]} $(mesh_cpu)"
}

declare -A MESH
mesh_run()
{
	local rate=$1 before after s lags bytes start conv made t0 t1
	local -a b a
	q a -c "CHECKPOINT" ; q b -c "CHECKPOINT"; q c -c "CHECKPOINT"
	t0=$(q a -c "SELECT sum(c::bigint) FROM m")
	sleep 1
	read -r -a b < <(stats_now)
	mesh_load "$rate" "$MESH_SECONDS" "$WORK/inc_m.sql" 2
	: >"$WORK/lag"
	while mesh_load_running; do
		for s in a b c; do q $s -c "$SAMPLE_SQL" >>"$WORK/lag"; done
		sleep 0.5
	done
	mesh_load_wait
	made=$MESH_MADE
	start=$(date +%s.%N)
	for s in a b c; do wait_for $s "SELECT sum(c::bigint) FROM m" "$((t0 + made))"; done
	conv=$(calc "$(date +%s.%N) - $start" 2)
	sleep 1.5		# apply workers report their statistics within a second
	read -r -a a < <(stats_now)
	lags=$(awk '{print $1}' "$WORK/lag" | median)
	bytes=$(awk '{print $2}' "$WORK/lag" | median | xargs printf '%.0f')
	MESH[$rate]="$made $(calc "$made / $MESH_SECONDS" 0) $(calc "$lags * 1000" 0) \
$(awk '{ if ($1 > m) m = $1 } END { printf "%.0f", m * 1000 }' "$WORK/lag") $bytes $conv \
$(calc "(${a[0]} - ${b[0]}) / $made" 0) $(calc "(${a[1]} - ${b[1]}) / $made" 2) \
$(calc "(${a[2]} - ${b[2]}) / $made" 0) $(calc "((${a[1]} - ${b[1]}) - ((${a[3]} - ${b[3]}) - $made)) / $made" 2) \
$(calc "(${a[4]} - ${b[4]}) * 1000000 / $made" 0) $(calc "(${a[5]} - ${b[5]}) * 1000000 / $made" 0)"
	say "  rate $rate/s per server: ${MESH[$rate]}"
}

say "mesh: 3 servers, subscriptions with origin = $ORIGIN, $MESH_SECONDS s at each of the rates $RATES increments/s per server"
for rate in $RATES; do mesh_run "$rate"; done
for s in a b c; do
	[ "$(q $s -c "SELECT count(*) FROM m, counter_crdt_shards(c) s")" = 3000 ] || die "$s: counters do not hold 3 shards"
done
[ "$(q a -c "SELECT md5(string_agg(c::text, ',' ORDER BY k)) FROM m")" = "$(q b -c "SELECT md5(string_agg(c::text, ',' ORDER BY k)) FROM m")" ] &&
[ "$(q a -c "SELECT md5(string_agg(c::text, ',' ORDER BY k)) FROM m")" = "$(q c -c "SELECT md5(string_agg(c::text, ',' ORDER BY k)) FROM m")" ] ||
	die "the three servers hold different states after the mesh runs"

# Idle WAL: the mesh has converged (mesh_run waited for it); a CHECKPOINT on
# each server so that no timed checkpoint falls in the window, 2 s to settle,
# then the WAL each server writes in IDLE_SECONDS with no load (bytes).
declare -A IDLE
if [ "$IDLE_SECONDS" -gt 0 ]; then
	for s in a b c; do q $s -c "CHECKPOINT"; done
	sleep 2
	declare -A L0
	for s in a b c; do L0[$s]=$(q $s -c "SELECT pg_current_wal_lsn()"); done
	sleep "$IDLE_SECONDS"
	for s in a b c; do IDLE[$s]=$(q $s -c "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '${L0[$s]}')::bigint"); done
	say "  idle WAL in $IDLE_SECONDS s: a ${IDLE[a]} B, b ${IDLE[b]} B, c ${IDLE[c]} B"
fi

# --- the table -----------------------------------------------------------------
CPU=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
echo
echo "replicated path: PostgreSQL $(q a -c 'SHOW server_version'), $(nproc) CPUs ($CPU), $(date -u '+%Y-%m-%d %H:%M UTC'), data checksums $CHECKSUMS, mesh origin = $ORIGIN"
echo
printf '%-34s %14s %14s %8s %10s\n' "apply rate (backlog of $N_DONE)" "counter_crdt" "bigint" "ratio" "target"
# the counter's three forms against bigint: rate, then apply worker CPU
for side in c cbin ccmp; do
	case $side in
		c) what="increments applied per second"; cpu="apply worker CPU (median, s)" ;;
		cbin) what="the same, binary = true: per second"; cpu="apply worker CPU, binary = true" ;;
		ccmp) what="the same, compact form: per second"; cpu="apply worker CPU, compact form" ;;
	esac
	printf '%-34s %14s %14s %8s %10s\n' "$what" "${RATE[$side]}/s" "${RATE[b]}/s" "$(calc "${MT[b]} / ${MT[$side]}") x" ">= 0.95 x"
	printf '%-34s %14s %14s %8s\n' "$cpu" "${MC[$side]}" "${MC[b]}" "$(calc "${MC[b]} / ${MC[$side]}") x"
done
printf '%-34s %14s %14s\n' "WAL per increment on a (bytes)" "${WALPER[c]}" "${WALPER[b]}"
echo "  all rounds (s): counter ${TIMES[c]}; counter, binary ${TIMES[cbin]}; counter, compact ${TIMES[ccmp]}; bigint ${TIMES[b]}; bigint, C trigger ${TIMES[bt]}; bigint, wide, C trigger ${TIMES[bw]}"
echo
echo "where the apply gap goes (rates of the same run; each step against the one before)"
printf '%-44s %10s %12s %12s %8s %8s\n' "side" "rate" "apply CPU" "sender CPU" "step" "row"
printf '%-44s %8s/s %10s s %10s s %8s %6s B\n' "bigint, plain updates" "${RATE[b]}" "${MC[b]}" "${MW[b]}" "" "$W_B"
printf '%-44s %8s/s %10s s %10s s %6s x %8s\n' "bigint, a C row trigger (PostgreSQL's)" "${RATE[bt]}" "${MC[bt]}" "${MW[bt]}" "$(calc "${MT[b]} / ${MT[bt]}")" ""
printf '%-44s %8s/s %10s s %10s s %6s x %6s B\n' "bigint as wide as a counter row, C trigger" "${RATE[bw]}" "${MC[bw]}" "${MW[bw]}" "$(calc "${MT[bt]} / ${MT[bw]}")" "$W_BW"
printf '%-44s %8s/s %10s s %10s s %6s x %6s B\n' "counter_crdt: its text input, merge trigger" "${RATE[c]}" "${MC[c]}" "${MW[c]}" "$(calc "${MT[bw]} / ${MT[c]}")" "$W_C"
printf '%-44s %8s/s %10s s %10s s %6s x\n' "counter_crdt, binary = true" "${RATE[cbin]}" "${MC[cbin]}" "${MW[cbin]}" "$(calc "${MT[bw]} / ${MT[cbin]}")"
printf '%-44s %8s/s %10s s %10s s %6s x\n' "counter_crdt, binary = true, compact form" "${RATE[ccmp]}" "${MC[ccmp]}" "${MW[ccmp]}" "$(calc "${MT[bw]} / ${MT[ccmp]}")"
echo
printf '%-12s %10s %10s %9s %9s %12s %9s %10s %9s %11s %9s %13s %12s\n' "mesh, rate" "increments" "done/s" "lag med" "lag max" "behind med" "converge" "WAL/inc" "sent/inc" "decoded/inc" "echo/inc" "sender us/inc" "apply us/inc"
for rate in $RATES; do
	read -r made dps lmed lmax bmed conv wal sent dec echo cpus cpua <<<"${MESH[$rate]}"
	printf '%-12s %10s %10s %7s ms %7s ms %10s B %7s s %8s B %9s %9s B %9s %13s %12s\n' "$rate/s x 3" "$made" "$dps" "$lmed" "$lmax" "$bmed" "$conv" "$wal" "$sent" "$dec" "$echo" "$cpus" "$cpua"
done
[ "$IDLE_SECONDS" -eq 0 ] ||
	printf '%-34s %10s %10s %10s\n' "idle WAL in $IDLE_SECONDS s (bytes)" "a ${IDLE[a]}" "b ${IDLE[b]}" "c ${IDLE[c]}"
echo
echo "* apply rate: increments applied per second by b's apply worker, backlog made on a by pgbench -c 4 -j 2 (random keys of 1,000 rows); the counter side runs the merge trigger (own-id check included), the bigint side applies plain updates (the two other bigint sides: with PostgreSQL's C trigger suppress_redundant_updates_trigger() on the subscriber, ENABLE REPLICA; and as wide as a counter row by a bytea column, with the same trigger); ratio = counter rate / bigint rate (median of $ROUNDS rounds each); binary = true: the subscription takes the values in the send/recv form instead of text (ALTER SUBSCRIPTION ... SET (binary = true)); compact form: the same, and the walsender sends the compact binary form (counter_crdt.binary_format = 'compact' in the subscription's connection options)."
echo "* mesh: lag = replay_lag of the walsenders (sampled every 0.5 s, median and max over all), behind = WAL bytes between a server's insert position and a subscriber's replay position (median); converge = time after the load stops until the three totals equal the increments made; WAL/inc = WAL bytes written on all three servers per increment; sent/inc = transactions decoded and sent by the walsenders per increment (2 without echo: one to each peer; origin = $ORIGIN); echo/inc = applies that changed nothing (the merge trigger found the change already there); sender/apply us = CPU time of the walsenders / apply workers of all three servers, microseconds per increment (of the transactions they decode and send, sent/inc - 2 per increment are echoes; of the applies, echo/inc)."
[ "$IDLE_SECONDS" -eq 0 ] ||
	echo "* idle WAL: bytes of WAL each server wrote (pg_current_wal_lsn before and after) in $IDLE_SECONDS s with no load, after the mesh converged, a CHECKPOINT on each and 2 s to settle."
