#!/usr/bin/env bash
#
# mesh.sh: how many increments per second a full mesh of three servers
# sustains, counter_crdt against bigint, on throwaway servers (unix sockets
# only, run as the postgres OS user, stopped at exit).
#
#   PG_CONFIG=... bash bench/mesh.sh      # as root, like bench/bench.sh
#
# (bench/bench.sh runs it after its own figures unless BENCH_MESH=0; it uses
# the extension as installed into $PG_CONFIG's PostgreSQL.)  In a chroot of
# scripts/pgchroot.sh:
#   bash scripts/pgchroot.sh run --cwd /build/counter_crdt \
#       --env PG_CONFIG=/usr/lib/postgresql/19/bin/pg_config 19 -- bash bench/mesh.sh
#
# Servers a, b and c as bench/replicated.sh starts them (bench/mesh_lib.sh:
# fsync = off, synchronous_commit = off, autovacuum = off with a VACUUM before
# every rate instead); every server subscribes to the other two.  Two sides,
# one after the other, each with its own subscriptions (dropped after it):
#   counter  m (k int primary key, c counter_crdt) of MESH_ROWS rows, merge
#            trigger (counter_crdt_enable_replica_merge()) on all three,
#            counters holding the three servers' shards; subscriptions with
#            origin = MESH_ORIGIN (any, the recipe's: every applied change is
#            sent on once more, the echo, which the merge trigger skips)
#   bigint   mb (k int primary key, v bigint), replicated plainly: v = v + 1,
#            last writer wins, so concurrent increments of a row on two
#            servers lose one; origin = none (with any, plain updates would
#            travel round the mesh for ever), so PostgreSQL 16 or later
# Each server takes a third of a total rate (pgbench -R, MESH_CLIENTS
# clients, random keys) for MESH_SECONDS; every 0.5 s the WAL bytes between
# each server's pg_current_wal_lsn() and the replay_lsn of each of its
# walsenders (pg_stat_replication: what the subscriber has applied and
# flushed) are sampled.  Over the second half of the window a least-squares
# slope of those bytes is fitted for each of the six subscriptions; divided
# by the WAL its server wrote per second in that half, it is the lag's growth
# in seconds per second.  A rate is sustained when every growth is below
# MESH_GROWTH_MAX and pgbench made at least 95 % of the target.  Then the
# load stops and the mesh drains (every walsender's replay_lsn passes its
# server's WAL position at the stop, twice, so that the echo is in too): on
# the counter side all three totals must equal the increments made (none
# lost, or the script fails); on the bigint side the increments lost are
# counted (made minus the smallest gain of the three totals).  The search:
# from MESH_START increments/s, doubling until a rate fails, then bisection
# between the last sustained and the first failing rate until they are
# within MESH_PRECISION of each other, or MESH_MAX_SECONDS of the side are
# spent (a rate is not started unless its window and the drain of the one
# before would fit).  Per increment: CPU time of the walsenders and apply
# workers of all three servers, from the start of the load to the drain.
#
# Knobs: MESH_SECONDS [20], MESH_MAX_SECONDS [300] per side, MESH_START [600]
# (total increments/s; rates are multiples of 3), MESH_CLIENTS [4] per
# server, MESH_ROWS [1000], MESH_GROWTH_MAX [0.05] (seconds of lag gained per
# second), MESH_PRECISION [0.1], MESH_ORIGIN [any] (the counter side's; none
# to compare), MESH_FORM [text] (how the counter side's values travel: text,
# binary (subscriptions WITH binary = true) or compact (binary, and
# counter_crdt.binary_format = 'compact' for the role the subscriptions
# connect as, set on every server as doc/replication.md does), MESH_SIDES
# ["bigint counter"], MESH_DRAIN_MAX [120] (seconds a drain may take before
# the script gives up).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SECS=${MESH_SECONDS:-20}
MAX_SECS=${MESH_MAX_SECONDS:-300}
START=${MESH_START:-600}
CLIENTS=${MESH_CLIENTS:-4}
ROWS=${MESH_ROWS:-1000}
GROWTH_MAX=${MESH_GROWTH_MAX:-0.05}
PRECISION=${MESH_PRECISION:-0.1}
ORIGIN=${MESH_ORIGIN:-any}
FORM=${MESH_FORM:-text}
SIDES=${MESH_SIDES:-"bigint counter"}
DRAIN_MAX=${MESH_DRAIN_MAX:-120}
# shellcheck source=scripts/pgcluster.sh
source "$ROOT/scripts/pgcluster.sh"
BENCH_TAG=mesh
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"
# shellcheck source=bench/mesh_lib.sh
source "$ROOT/bench/mesh_lib.sh"

for v in SECS MAX_SECS START CLIENTS ROWS DRAIN_MAX; do
	[[ ${!v} =~ ^[1-9][0-9]*$ ]] || { echo "mesh: $v must be a positive integer" >&2; exit 2; }
done
for v in GROWTH_MAX PRECISION; do
	[[ ${!v} =~ ^[0-9]*\.?[0-9]+$ ]] || { echo "mesh: $v must be a number" >&2; exit 2; }
done
[ "$START" -ge 3 ] || { echo "mesh: MESH_START must be 3 or more" >&2; exit 2; }
case $ORIGIN in any|none) ;; *) echo "mesh: MESH_ORIGIN must be any or none" >&2; exit 2 ;; esac
case $FORM in text|binary|compact) ;; *) echo "mesh: MESH_FORM must be text, binary or compact" >&2; exit 2 ;; esac
for side in $SIDES; do
	case $side in bigint|counter) ;; *) echo "mesh: MESH_SIDES takes bigint and counter" >&2; exit 2 ;; esac
done
[[ $PG_MAJOR =~ ^[0-9]+$ ]] && [ "$PG_MAJOR" -ge 16 ] ||
	{ echo "mesh: needs PostgreSQL 16 or later (origin = none for the bigint mesh); $PG_CONFIG is ${PG_MAJOR:-unknown}" >&2; exit 2; }

pgc_mktemp
WORK=$PGC_TMP
for s in a b c; do repl_start $s; done
CHECKSUMS=$(q a -c 'SHOW data_checksums')
VERSION=$(q a -c 'SHOW server_version')
say "servers a, b, c (ports ${PORT[a]}, ${PORT[b]}, ${PORT[c]}), PostgreSQL $VERSION, data checksums $CHECKSUMS"
for s in a b c; do
	q $s -c "CREATE EXTENSION counter_crdt;
		CREATE TABLE m (k int PRIMARY KEY, c counter_crdt);
		SELECT counter_crdt_enable_replica_merge('m');
		CREATE PUBLICATION pm FOR TABLE m;
		CREATE TABLE mb (k int PRIMARY KEY, v bigint NOT NULL);
		CREATE PUBLICATION pb FOR TABLE mb;" >/dev/null
done
declare -A ID
for s in a b c; do ID[$s]=$(q $s -c "SELECT counter_crdt_node_id()"); done
for s in a b c; do
	q $s -c "INSERT INTO m SELECT k, counter_crdt_increment(counter_crdt_increment(counter_crdt_increment(
			NULL, 0, '${ID[a]}'), 0, '${ID[b]}'), 0, '${ID[c]}') FROM generate_series(1, $ROWS) k;
		INSERT INTO mb SELECT k, 0 FROM generate_series(1, $ROWS) k"
done
printf '\\set k random(1, %d)\nUPDATE m SET c = c + 1 WHERE k = :k;\n' "$ROWS" >"$WORK/inc_counter.sql"
printf '\\set k random(1, %d)\nUPDATE mb SET v = v + 1 WHERE k = :k;\n' "$ROWS" >"$WORK/inc_bigint.sql"
chmod 644 "$WORK"/inc_*.sql
declare -A TBL=([counter]=m [bigint]=mb) TOTAL=([counter]="sum(c::bigint)" [bigint]="sum(v)")
declare -A PUB=([counter]=pm [bigint]=pb) SUBOPT=([counter]="origin = $ORIGIN" [bigint]="origin = none")
[ "$FORM" = text ] || SUBOPT[counter]+=", binary = true"
# every walsender of the role the subscriptions connect as sends the compact form
[ "$FORM" != compact ] || for s in a b c; do
	q $s -c "ALTER ROLE postgres SET counter_crdt.binary_format = 'compact'" >/dev/null
done

# The bytes between each server's WAL position and the replay position of
# each of its walsenders: "time server subscription wal behind".
SAMPLE_SQL="SELECT extract(epoch FROM clock_timestamp()), current_setting('port'), application_name,
		pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint,
		pg_wal_lsn_diff(pg_current_wal_lsn(), replay_lsn)::bigint
	FROM pg_stat_replication WHERE replay_lsn IS NOT NULL"

# drain: until every walsender of a, b and c has had replayed what its server
# had written when drain was called; fails after DRAIN_MAX seconds.
drain()
{
	local s t_start=$SECONDS
	declare -A lsn
	for s in a b c; do lsn[$s]=$(q $s -c "SELECT pg_current_wal_lsn()"); done
	for s in a b c; do
		until [ "$(q $s -c "SELECT count(*) FROM pg_stat_replication
				WHERE replay_lsn IS NULL OR replay_lsn < '${lsn[$s]}'")" = 0 ]; do
			[ $((SECONDS - t_start)) -lt "$DRAIN_MAX" ] ||
				die "the mesh did not catch up within $DRAIN_MAX s (MESH_DRAIN_MAX)"
			sleep 0.1
		done
	done
}

# probe SIDE TOTAL: TOTAL increments/s for SECS, spread over a, b and c; sets
# P_OK (1: sustained), P_LINE (its figures for the log) and P_FIG ("growth
# slope sender_us apply_us lost drain made").
probe()
{
	local side=$1 total=$2 per=$(($2 / 3)) tbl=${TBL[$1]} sum=${TOTAL[$1]} s t_load t_stop conv
	local made lost=0 got fit growth slope behind c0 c1 sus ap ok=1 why=""
	declare -A t0
	for s in a b c; do q $s -c "VACUUM $tbl" -c "CHECKPOINT"; done
	for s in a b c; do t0[$s]=$(q $s -c "SELECT $sum FROM $tbl"); done
	read -r -a c0 < <(mesh_cpu)
	t_load=$(date +%s.%N)
	mesh_load "$per" "$SECS" "$WORK/inc_$side.sql" "$CLIENTS"
	: >"$WORK/samples"
	while mesh_load_running; do
		for s in a b c; do q $s -F ' ' -c "$SAMPLE_SQL" >>"$WORK/samples"; done
		sleep 0.5
	done
	mesh_load_wait
	made=$MESH_MADE
	t_stop=$(date +%s.%N)
	drain
	conv=$(calc "$(date +%s.%N) - $t_stop" 1)
	drain			# the echo of what the first drain applied
	read -r -a c1 < <(mesh_cpu)
	for s in a b c; do
		got=$(( $(q $s -c "SELECT $sum FROM $tbl") - ${t0[$s]} ))
		if [ "$side" = counter ]; then
			[ "$got" = "$made" ] || die "counter side, $total/s: $s counts $got increments of the $made made"
		elif [ $((made - got)) -gt "$lost" ]; then
			lost=$((made - got))
		fi
	done
	# per subscription over the second half: slope of behind (bytes/s), its
	# server's WAL rate (bytes/s); prints the largest growth and its slope,
	# and the median bytes behind
	fit=$(awk -v from="$(calc "$t_load + $SECS / 2" 3)" '
		$1 >= from {
			k = $2 " " $3; n[k]++; st[k] += $1; sb[k] += $5; stt[k] += $1 * $1; stb[k] += $1 * $5
			if (!(k in t1) || $1 < t1[k]) { t1[k] = $1; w1[k] = $4 }
			if (!(k in t2) || $1 > t2[k]) { t2[k] = $1; w2[k] = $4 }
			b[++nb] = $5
		}
		END {
			g = -1e9; sl = 0
			for (k in n) {
				d = n[k] * stt[k] - st[k] * st[k]
				s = (n[k] > 2 && d > 0) ? (n[k] * stb[k] - st[k] * sb[k]) / d : 0
				r = (t2[k] > t1[k]) ? (w2[k] - w1[k]) / (t2[k] - t1[k]) : 0
				x = (r > 0) ? s / r : 0
				if (x > g) { g = x; sl = s }
			}
			if (nb == 0) { print "nan 0 0"; exit }
			for (i = 2; i <= nb; i++) { v = b[i]; j = i - 1; while (j > 0 && b[j] > v) { b[j + 1] = b[j]; j-- } b[j + 1] = v }
			printf "%.3f %.0f %.0f\n", g, sl, (nb % 2) ? b[(nb + 1) / 2] : (b[nb / 2] + b[nb / 2 + 1]) / 2
		}' "$WORK/samples")
	read -r growth slope behind <<<"$fit"
	sus=$(calc "(${c1[0]} - ${c0[0]}) * 1000000 / $made" 0)
	ap=$(calc "(${c1[1]} - ${c0[1]}) * 1000000 / $made" 0)
	if [ "$growth" = nan ]; then
		ok=0; why="no samples"
	elif awk -v g="$growth" -v m="$GROWTH_MAX" 'BEGIN { exit !(g >= m) }'; then
		ok=0; why="lag grows"
	fi
	if [ "$made" -lt "$(calc "0.95 * $per * 3 * $SECS" 0)" ]; then
		ok=0; why="${why:+$why, }pgbench behind"
	fi
	P_OK=$ok
	P_FIG="$growth $slope $sus $ap $lost $conv $made"
	P_LINE="$(printf '%-7s %6s/s: made %s (%s/s), lag growth %s s/s (slope %s B/s), behind %s B median, drained in %s s, CPU %s + %s us/inc, lost %s' \
		"$side" "$total" "$made" "$(calc "$made / $SECS" 0)" "$growth" "$slope" "$behind" "$conv" "$sus" "$ap" "$lost") -> $([ $ok = 1 ] && echo sustained || echo "not: $why")"
}

declare -A BEST FAIL FIG PROBES
search() # SIDE
{
	local side=$1 t_side=$SECONDS lo=0 hi=0 per=$((START / 3)) est=$((SECS + 15)) t1 n=0
	FIG[$side]=""
	mesh_subscribe "s${side}" "${PUB[$side]}" "${SUBOPT[$side]}"
	say "$side: subscriptions with ${SUBOPT[$side]}; from $((per * 3))/s, $SECS s a rate, at most $MAX_SECS s"
	while :; do
		if [ "$n" -gt 0 ] && [ $((SECONDS - t_side + est)) -gt "$MAX_SECS" ]; then
			say "$side: stopped by MESH_MAX_SECONDS ($MAX_SECS s) after $n rates"
			break
		fi
		t1=$SECONDS
		probe "$side" $((per * 3))
		n=$((n + 1))
		est=$((SECONDS - t1))
		say "  $P_LINE"
		if [ "$P_OK" = 1 ]; then
			lo=$per
			FIG[$side]=$P_FIG
		else
			hi=$per
		fi
		if [ "$hi" = 0 ]; then
			per=$((lo * 2))
		else
			# within MESH_PRECISION of each other (or 3/s apart): done
			awk -v h="$hi" -v l="$lo" -v p="$PRECISION" 'BEGIN { exit !(h - l > p * l && h - l > 1) }' || break
			per=$(((lo + hi) / 2))
		fi
	done
	BEST[$side]=$((lo * 3))
	FAIL[$side]=$((hi * 3))
	PROBES[$side]=$n
	for s in a b c; do
		for f in a b c; do
			[ "$s" = "$f" ] || q $s -c "SET client_min_messages = warning" -c "DROP SUBSCRIPTION s${side}_${s}_from_$f"
		done
	done
}

say "$SIDES: each server a third of the total rate, pgbench -c $CLIENTS -R, random keys of $ROWS rows"
for side in $SIDES; do search "$side"; done

# --- the table -----------------------------------------------------------------
CPU=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
echo
echo "mesh throughput: PostgreSQL $VERSION, $(nproc) CPUs ($CPU), $(date -u '+%Y-%m-%d %H:%M UTC'), data checksums $CHECKSUMS, counters sent as $FORM"
echo
printf '%-34s %12s %12s %9s %12s %12s %11s %11s %10s %7s\n' "side (3 servers, full mesh)" "sustained" "first fail" "ratio" "lag growth" "lag slope" "sender CPU" "apply CPU" "lost" "rates"
for side in $SIDES; do
	read -r growth slope sus ap lost conv made <<<"${FIG[$side]:-- - - - - - -}"
	ratio=""
	[ "$side" != counter ] || [ -z "${BEST[bigint]:-}" ] || [ "${BEST[bigint]}" = 0 ] ||
		ratio="$(calc "${BEST[counter]} / ${BEST[bigint]}") x"
	case $side in
		counter) name="counter_crdt, merge trigger" ; [ "$ORIGIN" = any ] || name+=", origin none"
			[ "$FORM" = text ] || name+=", $FORM" ;;
		bigint) name="bigint, v = v + 1, origin none" ;;
	esac
	lostp=$lost
	[ "$lost" = - ] || [ "$made" = 0 ] || lostp="$(calc "100 * $lost / $made" 1) %"
	printf '%-34s %10s/s %10s/s %9s %8s s/s %8s B/s %8s us %8s us %10s %7s\n' "$name" "$(fmt_int "${BEST[$side]}")" \
		"$([ "${FAIL[$side]}" = 0 ] && echo "-" || fmt_int "${FAIL[$side]}")" "$ratio" "$growth" "$slope" "$sus" "$ap" "$lostp" "${PROBES[$side]}"
done
echo
echo "* sustained: the highest total rate (increments/s over a, b and c, a third each by pgbench -c $CLIENTS -R, random keys of $ROWS rows) at which, over $SECS s, pgbench made >= 95 % of it and the replication lag did not grow: for each of the six subscriptions, the slope of the WAL bytes between its publisher's pg_current_wal_lsn() and its replay_lsn (sampled every 0.5 s, least squares over the second half), divided by the publisher's WAL rate, is below $GROWTH_MAX s/s; first fail: the lowest rate tried that was not (- none); search from $START/s by doubling, then bisection to within $PRECISION, at most $MAX_SECS s a side; rates: how many were tried."
echo "* ratio: counter / bigint sustained rate. The bigint side is a plain v = v + 1 replicated with origin = none (with any, updates would circle for ever): last writer wins, and lost = increments made minus the smallest total gain of the three servers at the sustained rate (as a share of those made); the counter side lost none (checked on all three at every rate) with origin = $ORIGIN."
echo "* lag growth, slope: the largest of the six at the sustained rate; sender / apply CPU: CPU time of the walsenders / apply workers of all three servers from the start of the load until the mesh drained, microseconds per increment."
echo "* servers: fsync = off, synchronous_commit = off, autovacuum = off (VACUUM and CHECKPOINT before every rate), wal_retrieve_retry_interval = 100ms; all on this one machine, so the servers, their replication and pgbench share its $(nproc) CPUs."
