#!/usr/bin/env bash
#
# bytes.sh: what a counter costs in bytes, stored, in the WAL and through
# pgoutput, each figure beside the same figure for a bigint column measured
# in the same run, on a throwaway server (unix socket only, run as the
# postgres OS user, stopped and removed at exit), with the extension as
# installed into $PG_CONFIG's PostgreSQL.
#
#   PG_CONFIG=... bash bench/bytes.sh          # as root, like bench/bench.sh
#
# (bench/bench.sh runs it after its own figures unless BENCH_BYTES=0.)  It
# runs in the chroots of scripts/pgchroot.sh as well (mawk, no bc), e.g.
#   bash scripts/pgchroot.sh run --cwd /build/counter_crdt \
#       --env PG_CONFIG=/usr/lib/postgresql/18/bin/pg_config 18 -- bash bench/bytes.sh
#
# Counters of three writers, ids counter_crdt_rack_id('dc1', 'rack1'..
# 'rack3'); row k holds for writer r the shard (clock n, value n), what n
# increments of 1 make, with n = 1 + (k * p) % 10, p = 1, 3, 7 (checked:
# rows 1 to 10, stored, have the state (digest) and the stored size of the
# merge of the three writers' states made by n increments each).  The
# bigint twin of a table holds the same totals.  The server increments as
# rack1 (counter_crdt.node_id), so c + 1 bumps a shard and never adds one
# (checked after the runs: 3 writers per counter; and after every run, that
# both totals grew by the increments made).
#
# 1. Stored size.  t (k int PRIMARY KEY, c counter_crdt) of BYTES_ROWS rows
#    and b (k int PRIMARY KEY, v bigint); after VACUUM FULL: pg_table_size
#    (heap, TOAST and maps; no index: both primary keys are the same int
#    index), that per row, rows per heap page, and avg(pg_column_size()) of
#    the value column, "bytes a value".  Then the worst case: the same with
#    BYTES_WIDE_WRITERS writers per counter (ids md5('writer:' || i), clocks
#    and values n = 1 + (k + i) % 10 as above) on BYTES_WIDE_ROWS rows, with
#    the table's default settings, and how its values are stored (compressed,
#    out of line).
# 2. WAL per increment.  Tables of BYTES_INC_ROWS rows made with fillfactor
#    100 and 80 (room for HOT updates), VACUUM (FREEZE), CHECKPOINT; then two
#    passes of BYTES_INCREMENTS single-row transactions
#      UPDATE t SET c = c + 1 WHERE k = :k    (UPDATE b SET v = v + 1 ...)
#    with k random over the rows (pgbench -n -c 2 -j 2, half the increments
#    each, --random-seed 1 for the first pass and 2 for the second, the same
#    on both sides: the same rows, not the same interleaving).  WAL bytes =
#    pg_current_wal_lsn() after - before (synchronous_commit on, so every
#    commit is written), per increment.  The first pass follows the
#    CHECKPOINT: the first change of every page after it writes the page's
#    full image (full_page_writes on, the default; with data checksums on,
#    PostgreSQL 18's initdb default, a first hint bit set does too), so it
#    depends on pages per increment.  The second follows the first with no
#    checkpoint between (checked: the redo point did not move), so that its
#    pages are mostly imaged already on both sides: the steady state.
#    pg_waldump --stats of each pass splits the bytes into full-page images
#    and the rest (the rest compares the two sides whatever pages either
#    imaged), counts records and HOT updates (of all heap updates).  Both
#    passes run with wal_level replica (PostgreSQL's default: an update that
#    stays on its page logs the new tuple without the bytes it shares with
#    the old one at its start and end) and then, after a restart, logical
#    (what a publisher writes: all of the new tuple), on new tables.
# 3. Logical replication bytes per increment, what pgoutput sends.  With
#    wal_level logical, tables of BYTES_INC_ROWS rows each in a publication
#    of its own (REPLICA IDENTITY DEFAULT: the primary key), a logical slot
#    (pg_create_logical_replication_slot(slot, 'pgoutput')) made for each
#    side just before BYTES_INCREMENTS increments as above (seed 3); then
#      pg_logical_slot_peek_binary_changes(slot, NULL, NULL,
#        'proto_version', '1', 'publication_names', pub)
#    and the same with 'binary', 'true' (the values in their send/recv
#    form, src/core/cc_wire.h, instead of text), and that again with
#    SET counter_crdt.binary_format = 'compact' in the peeking session (the
#    peek decodes in that backend, as a walsender would with the setting
#    from its role: the compact form, format version 3, since 1.12; a
#    bigint's messages do not change); octet_length(data) summed
#    over the UPDATE messages and over all of them (BEGIN and COMMIT of
#    every transaction, the RELATION and, for the counter, TYPE message once
#    per peek), per increment.  Checked: one UPDATE per increment, none with
#    an old key.  Then one increment of row BYTES_INC_ROWS, alone in a slot
#    of its own, and its UPDATE broken down: header (type, relation id, 'N',
#    column count), k and the value column (kind, length, data).
#
# Server: fsync = off (not written to disk; the WAL is written all the
# same), autovacuum = off, shared_buffers = 512MB, max_wal_size = 8GB and
# checkpoint_timeout = 1h (no checkpoint but the script's own), jit = off;
# initdb's defaults otherwise (the output states data checksums,
# full_page_writes and wal_compression).  Versions: PostgreSQL 15 and later
# (pgoutput leaves out empty transactions since 15).
#
# Knobs: BYTES_ROWS [1000000], BYTES_WIDE_ROWS [10000], BYTES_WIDE_WRITERS
# [300], BYTES_INC_ROWS [10000], BYTES_INCREMENTS [20000] (per pass, an
# even number), BYTES_FILLFACTORS ["100 80"].  About a minute on two cores
# with the defaults.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BENCH_TAG=bytes
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"

PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
ROWS=${BYTES_ROWS:-1000000}
WIDE_ROWS=${BYTES_WIDE_ROWS:-10000}
WIDE_W=${BYTES_WIDE_WRITERS:-300}
INC_ROWS=${BYTES_INC_ROWS:-10000}
N=${BYTES_INCREMENTS:-20000}
FFS=${BYTES_FILLFACTORS:-"100 80"}
for v in ROWS WIDE_ROWS WIDE_W INC_ROWS N; do
	[[ ${!v} =~ ^[1-9][0-9]*$ ]] || die "$v must be a positive integer (got '${!v}')"
done
[ $((N % 2)) -eq 0 ] || die "BYTES_INCREMENTS must be even (two clients, half each)"
for f in $FFS; do
	if ! [[ $f =~ ^[0-9]+$ ]] || [ "$f" -lt 10 ] || [ "$f" -gt 100 ]; then die "fillfactors are 10 to 100 (got '$f')"; fi
done
T0=$(date +%s)

bench_server fsync=off autovacuum=off shared_buffers=512MB max_wal_size=8GB \
	checkpoint_timeout=1h jit=off max_replication_slots=4 maintenance_work_mem=256MB
psql_ -c "CREATE EXTENSION counter_crdt"
R1=$(psql_ -c "SELECT counter_crdt_rack_id('dc1', 'rack1')")
R2=$(psql_ -c "SELECT counter_crdt_rack_id('dc1', 'rack2')")
R3=$(psql_ -c "SELECT counter_crdt_rack_id('dc1', 'rack3')")
psql_ -c "LOAD 'counter_crdt'" -c "ALTER SYSTEM SET counter_crdt.node_id = '$R1'" -c "SELECT pg_reload_conf()" >/dev/null
for _ in $(seq 1 50); do
	[ "$(psql_ -c "SELECT counter_crdt_node_id()")" = "$R1" ] && break
	sleep 0.1
done
[ "$(psql_ -c "SELECT counter_crdt_node_id()")" = "$R1" ] || die "counter_crdt.node_id did not take effect"
PG_VERSION=$(psql_ -c "SHOW server_version")
EXT_VERSION=$(psql_ -c "SELECT extversion FROM pg_extension WHERE extname = 'counter_crdt'")
CHECKSUMS=$(psql_ -c "SHOW data_checksums")
FPW=$(psql_ -c "SHOW full_page_writes")
WALCOMP=$(psql_ -c "SHOW wal_compression")
BLCKSZ=$(psql_ -c "SHOW block_size")
say "PostgreSQL $PG_VERSION, counter_crdt $EXT_VERSION, data checksums $CHECKSUMS, full_page_writes $FPW, wal_compression $WALCOMP; increments as rack1 ($R1)"

# The three writers' shards of row k: (clock n, value n), n = 1 + (k * p) % 10.
psql_ <<SQL
CREATE FUNCTION c3(k int) RETURNS counter_crdt LANGUAGE sql IMMUTABLE AS \$\$
	SELECT format('{%s:%s:%s, %s:%s:%s, %s:%s:%s}', '$R1', n1, n1, '$R2', n2, n2, '$R3', n3, n3)::counter_crdt
	FROM (SELECT 1 + k % 10 AS n1, 1 + (3 * k) % 10 AS n2, 1 + (7 * k) % 10 AS n3) n \$\$;
CREATE FUNCTION v3(k int) RETURNS bigint LANGUAGE sql IMMUTABLE AS \$\$
	SELECT (3 + k % 10 + (3 * k) % 10 + (7 * k) % 10)::bigint \$\$;
-- the same state made the long way: n increments of 1 under each id, merged
CREATE FUNCTION c3_by_increments(k int) RETURNS counter_crdt LANGUAGE plpgsql AS \$\$
DECLARE
	s counter_crdt[] := ARRAY[NULL, NULL, NULL]::counter_crdt[];
	ids uuid[] := ARRAY['$R1', '$R2', '$R3']::uuid[];
	n int[] := ARRAY[1 + k % 10, 1 + (3 * k) % 10, 1 + (7 * k) % 10];
BEGIN
	FOR r IN 1..3 LOOP
		FOR i IN 1..n[r] LOOP
			s[r] := counter_crdt_increment(s[r], 1, ids[r]);
		END LOOP;
	END LOOP;
	RETURN counter_crdt_merge(counter_crdt_merge(s[1], s[2]), s[3]);
END \$\$;
SQL
psql_ -c "CREATE TABLE made AS SELECT k, c3(k) AS a, c3_by_increments(k) AS b FROM generate_series(1, 10) k"
[ "$(psql_ -c "SELECT count(*) FROM made WHERE counter_crdt_digest(a) = counter_crdt_digest(b)
	AND pg_column_size(a) = pg_column_size(b) AND a::bigint = v3(k)")" = 10 ] ||
	die "the built values are not what increments make"
psql_ -c "DROP TABLE made"
SAMPLE=$(psql_ -c "SELECT c3(1)")
# where rack1's shard, the one increments change, lies: shards are in id order
OWN_POS=$(psql_ -c "SELECT 1 + count(*) FROM unnest(ARRAY['$R2', '$R3']::uuid[]) i WHERE i < '$R1'::uuid")
# BYTES as MB (from 10 MB) or kB
size_h() { awk -v b="$1" 'BEGIN { if (b >= 10485760) printf "%.1f MB", b / 1048576; else printf "%.0f kB", b / 1024 }'; }
ratio() { calc "($1) / ($2)"; }

# --- 1. stored size -----------------------------------------------------------
declare -A S
# size TABLE COLUMN ROWS KEY: S[KEY.table], .row, .page (rows a page), .value
size()
{
	local t=$1 col=$2 rows=$3 key=$4 ts rel val
	psql_ -c "VACUUM FULL $t"
	read -r ts rel val < <(psql_ -F ' ' -c "SELECT pg_table_size('$t'), pg_relation_size('$t'),
		round(avg(pg_column_size($col)), 1) FROM $t")
	S[$key.table]=$ts
	S[$key.row]=$(calc "$ts / $rows" 1)
	S[$key.page]=$(calc "$rows / ($rel / $BLCKSZ)" 1)
	S[$key.value]=$val
}
say "1. stored size: $(fmt_int "$ROWS") rows of 3 writers"
psql_ -c "CREATE TABLE t (k int PRIMARY KEY, c counter_crdt)" -c "CREATE TABLE b (k int PRIMARY KEY, v bigint)" \
	-c "INSERT INTO t SELECT k, c3(k) FROM generate_series(1, $ROWS) k" \
	-c "INSERT INTO b SELECT k, v3(k) FROM generate_series(1, $ROWS) k"
[ "$(psql_ -c "SELECT (SELECT sum(c::bigint) FROM t) = (SELECT sum(v) FROM b)
	AND (SELECT count(*) FROM t WHERE counter_crdt_writers(c) = 3) = $ROWS")" = t ] ||
	die "t does not hold 3 writers a counter and b's totals"
size t c "$ROWS" c3
size b v "$ROWS" b3
psql_ -c "DROP TABLE t, b"

say "   $(fmt_int "$WIDE_ROWS") rows of $WIDE_W writers"
psql_ -c "CREATE TABLE t (k int PRIMARY KEY, c counter_crdt)" -c "CREATE TABLE b (k int PRIMARY KEY, v bigint)" \
	-c "INSERT INTO t SELECT k, ('{' || string_agg(format('%s:%s:%s', md5('writer:' || i)::uuid,
		1 + (k + i) % 10, 1 + (k + i) % 10), ', ') || '}')::counter_crdt
		FROM generate_series(1, $WIDE_ROWS) k, generate_series(1, $WIDE_W) i GROUP BY k" \
	-c "INSERT INTO b SELECT k, sum(1 + (k + i) % 10) FROM generate_series(1, $WIDE_ROWS) k, generate_series(1, $WIDE_W) i GROUP BY k"
[ "$(psql_ -c "SELECT (SELECT sum(c::bigint) FROM t) = (SELECT sum(v) FROM b)
	AND (SELECT count(*) FROM t WHERE counter_crdt_writers(c) = $WIDE_W) = $WIDE_ROWS")" = t ] ||
	die "the wide t does not hold $WIDE_W writers a counter and b's totals"
size t c "$WIDE_ROWS" cw
size b v "$WIDE_ROWS" bw
read -r W_COMPRESSED W_TOAST < <(psql_ -F ' ' -c "SELECT count(*) FILTER (WHERE pg_column_compression(c) IS NOT NULL),
	(SELECT pg_relation_size(reltoastrelid) FROM pg_class WHERE oid = 't'::regclass) FROM t")
TOASTREL=$(psql_ -c "SELECT reltoastrelid::regclass FROM pg_class WHERE oid = 't'::regclass")
W_OUT=$(psql_ -c "SELECT count(*) FROM $TOASTREL WHERE chunk_seq = 0")
psql_ -c "DROP TABLE t, b"

# --- 2. WAL per increment -----------------------------------------------------
# make_inc TABLE SIDE [FILLFACTOR]: a table of INC_ROWS rows, c or b side.
make_inc()
{
	local t=$1 side=$2 ff=${3:-100}
	if [ "$side" = c ]; then
		psql_ -c "CREATE TABLE $t (k int PRIMARY KEY, c counter_crdt) WITH (fillfactor = $ff)" \
			-c "INSERT INTO $t SELECT k, c3(k) FROM generate_series(1, $INC_ROWS) k"
	else
		psql_ -c "CREATE TABLE $t (k int PRIMARY KEY, v bigint) WITH (fillfactor = $ff)" \
			-c "INSERT INTO $t SELECT k, v3(k) FROM generate_series(1, $INC_ROWS) k"
	fi
	psql_ -c "VACUUM (FREEZE, ANALYZE) $t"
	if [ "$side" = c ]; then
		printf '\\set k random(1, %d)\nUPDATE %s SET c = c + 1 WHERE k = :k;\n' "$INC_ROWS" "$t" >"$D/inc_$t.sql"
	else
		printf '\\set k random(1, %d)\nUPDATE %s SET v = v + 1 WHERE k = :k;\n' "$INC_ROWS" "$t" >"$D/inc_$t.sql"
	fi
}
# total TABLE: its total (a table whose name ends in c holds counters)
total() { case $1 in *c) psql_ -c "SELECT sum(c::bigint) FROM $1" ;; *) psql_ -c "SELECT sum(v) FROM $1" ;; esac; }
# increments TABLE SEED: N increments of random rows, checked by the total
increments()
{
	local t=$1 seed=$2 before after
	before=$(total "$t")
	as_pg "$BIN/pgbench" -h "$D" -p "$PORT" -U postgres -n -M prepared -c 2 -j 2 -t $((N / 2)) \
		--random-seed="$seed" -f "$D/inc_$t.sql" postgres >"$D/pgbench.out" 2>&1 ||
		die "pgbench failed: $(cat "$D/pgbench.out")"
	after=$(total "$t")
	[ $((after - before)) -eq "$N" ] || die "$t: $((after - before)) increments counted, $N made"
}
# waldump FROM TO: "records record_bytes fpi_bytes heap_updates hot_updates"
waldump()
{
	as_pg "$BIN/pg_waldump" -p "$D/data/pg_wal" -s "$1" -e "$2" --stats=record 2>/dev/null |
		awk '{ gsub(/\([^)]*\)/, ""); gsub(/\[[^]]*\]/, "") }
			$1 == "Total" { n = $2; rec = $3; fpi = $4 }
			$1 ~ /^Heap\/UPDATE/ { upd += $2 }
			$1 ~ /^Heap\/HOT_UPDATE/ { upd += $2; hot += $2 }
			END { print n + 0, rec + 0, fpi + 0, upd + 0, hot + 0 }'
}
redo() { psql_ -c "SELECT redo_lsn FROM pg_control_checkpoint()"; }
declare -A W
# wal_pass KEY TABLE SEED: W[KEY] = "bytes/inc fpi/inc records/inc hot%"
wal_pass()
{
	local key=$1 t=$2 seed=$3 l0 l1 rec bytes fpi upd hot
	l0=$(psql_ -c "SELECT pg_current_wal_lsn()")
	increments "$t" "$seed"
	l1=$(psql_ -c "SELECT pg_current_wal_lsn()")
	bytes=$(psql_ -c "SELECT pg_wal_lsn_diff('$l1', '$l0')")
	read -r rec _ fpi upd hot < <(waldump "$l0" "$l1")
	[ "$upd" -ge "$N" ] || die "pg_waldump found $upd heap updates of $t between $l0 and $l1, $N were made"
	W[$key]="$(calc "$bytes / $N" 1) $(calc "$fpi / $N" 1) $(calc "$rec / $N" 2) $(calc "100 * $hot / $upd" 0)"
	say "     $(printf '%-22s' "$key") ${W[$key]}"
}
# wal_runs LEVEL: both passes for each fillfactor and side, on new tables
wal_runs()
{
	local level=$1 ff side t r0
	for ff in $FFS; do
		for side in b c; do
			t=w$side
			make_inc "$t" "$side" "$ff"
			psql_ -c "CHECKPOINT"
			r0=$(redo)
			wal_pass "$level.$ff.$side.cold" "$t" 1
			wal_pass "$level.$ff.$side.steady" "$t" 2
			[ "$(redo)" = "$r0" ] || die "a checkpoint fell inside the runs of $t (fillfactor $ff)"
			[ "$side" = b ] || [ "$(psql_ -c "SELECT count(*) FROM $t WHERE counter_crdt_writers(c) <> 3")" = 0 ] ||
				die "an increment added a writer"
			psql_ -c "DROP TABLE $t"
		done
	done
}
LEVELS="replica logical"
say "2. WAL per increment: $(fmt_int "$INC_ROWS") rows, $(fmt_int "$N") increments a pass (bytes, FPI bytes, records per increment; HOT %)"
[ "$(psql_ -c "SHOW wal_level")" = replica ] || die "wal_level is not replica at the start"
wal_runs replica
psql_ -c "ALTER SYSTEM SET wal_level = logical"
as_pg "$BIN/pg_ctl" -D "$D/data" -m fast -w restart >/dev/null
[ "$(psql_ -c "SHOW wal_level")" = logical ] || die "wal_level is not logical after the restart"
[ "$(psql_ -c "SELECT counter_crdt_node_id()")" = "$R1" ] || die "counter_crdt.node_id lost in the restart"
wal_runs logical

# --- 3. pgoutput --------------------------------------------------------------
# the int4 at byte OFF of bytea D, big-endian
psql_ -c "CREATE FUNCTION i4(d bytea, off int) RETURNS int LANGUAGE sql IMMUTABLE AS
	\$\$ SELECT (get_byte(d, off) << 24) | (get_byte(d, off + 1) << 16) | (get_byte(d, off + 2) << 8) | get_byte(d, off + 3) \$\$"
declare -A L
# changes SLOT SIDE MODE: the SQL of the slot's changes as pgoutput sends
# them to a subscriber of publication pSIDE, in MODE (text, binary or
# compact: binary with counter_crdt.binary_format = 'compact', which
# psql_mode sets)
changes()
{
	local opts="'proto_version', '1', 'publication_names', 'p$2'"
	[ "$3" = text ] || opts+=", 'binary', 'true'"
	echo "pg_logical_slot_peek_binary_changes('$1', NULL, NULL, $opts)"
}
# psql_mode MODE ARGS...: psql_ ARGS, in a session with the binary format of MODE
psql_mode()
{
	local mode=$1
	shift
	if [ "$mode" = compact ]; then
		psql_ -c "SET counter_crdt.binary_format = 'compact'" "$@"
	else
		psql_ "$@"
	fi
}
# peek SIDE MODE: L[SIDE.MODE] = "update_bytes all_bytes" per increment of
# slot bytes_SIDE, and the messages by type in the log
peek()
{
	local side=$1 mode=$2 call u all nu bad counts
	call=$(changes "bytes_$side" "$side" "$mode")
	read -r nu u all bad < <(psql_mode "$mode" -F ' ' -c "SELECT count(*) FILTER (WHERE get_byte(data, 0) = ascii('U')),
		coalesce(sum(octet_length(data)) FILTER (WHERE get_byte(data, 0) = ascii('U')), 0), sum(octet_length(data)),
		count(*) FILTER (WHERE get_byte(data, 0) = ascii('U') AND get_byte(data, 5) <> ascii('N'))
		FROM $call")
	[ "$nu" = "$N" ] || die "pgoutput ($side, $mode) sent $nu UPDATE messages for $N increments"
	[ "$bad" = 0 ] || die "pgoutput ($side, $mode) sent $bad UPDATE messages with an old tuple or key"
	counts=$(psql_mode "$mode" -c "SELECT string_agg(format('%s %s x %s B', t, n, b), ', ' ORDER BY n DESC, t) FROM
		(SELECT chr(get_byte(data, 0)) AS t, count(*) AS n, round(avg(octet_length(data)), 1) AS b
		 FROM $call GROUP BY 1) m")
	L[$side.$mode]="$(calc "$u / $N" 1) $(calc "$all / $N" 1)"
	say "     $side, $mode: ${L[$side.$mode]} (messages by type: $counts)"
}
# one SIDE MODE: L[SIDE.MODE.one] = "total columns klen vlen kkind vkind", the
# UPDATE message of the one increment in slot bytes_one_SIDE
one()
{
	local side=$1 mode=$2 call
	call=$(changes "bytes_one_$side" "$side" "$mode")
	[ "$(psql_mode "$mode" -c "SELECT count(*) FROM $call WHERE get_byte(data, 0) = ascii('U') AND get_byte(data, 5) = ascii('N')")" = 1 ] ||
		die "pgoutput ($side, $mode) did not send one UPDATE without an old key for one increment"
	L[$side.$mode.one]=$(psql_mode "$mode" -F ' ' -c "SELECT octet_length(d), (get_byte(d, 6) << 8) | get_byte(d, 7), l1,
		i4(d, 14 + l1), chr(get_byte(d, 8)), chr(get_byte(d, 13 + l1))
		FROM (SELECT d, i4(d, 9) AS l1 FROM (SELECT data AS d FROM $call
			WHERE get_byte(data, 0) = ascii('U')) u) x")
	read -r tot _ kl vl _ <<<"${L[$side.$mode.one]}"
	[ "$tot" -eq $((8 + 5 + kl + 5 + vl)) ] || die "pgoutput ($side, $mode): an UPDATE of $tot bytes is not 8 + two columns"
}
say "3. pgoutput: $(fmt_int "$N") increments of $(fmt_int "$INC_ROWS") rows (UPDATE bytes, all bytes per increment)"
for side in b c; do
	make_inc "l$side" "$side"
	psql_ -c "CREATE PUBLICATION p$side FOR TABLE l$side"
	psql_ -c "SELECT pg_create_logical_replication_slot('bytes_$side', 'pgoutput')" >/dev/null
	increments "l$side" 3
	peek "$side" text
	peek "$side" binary
	peek "$side" compact
	psql_ -c "SELECT pg_drop_replication_slot('bytes_$side')" >/dev/null
	# one increment of row INC_ROWS, alone in a slot of its own
	psql_ -c "SELECT pg_create_logical_replication_slot('bytes_one_$side', 'pgoutput')" >/dev/null
	psql_ -c "UPDATE l$side SET $([ "$side" = c ] && echo 'c = c + 1' || echo 'v = v + 1') WHERE k = $INC_ROWS"
	one "$side" text
	one "$side" binary
	one "$side" compact
	psql_ -c "SELECT pg_drop_replication_slot('bytes_one_$side')" >/dev/null
done
[ "$(psql_ -c "SELECT count(*) FROM lc WHERE counter_crdt_writers(c) <> 3")" = 0 ] || die "an increment added a writer"

# --- the table ----------------------------------------------------------------
CPU=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
row() { printf '%-52s %14s %14s %9s\n' "$@"; }
echo
echo "bytes per counter: PostgreSQL $PG_VERSION, counter_crdt $EXT_VERSION, $(nproc) CPUs ($CPU), $(date -u '+%Y-%m-%d %H:%M UTC'), $(($(date +%s) - T0)) s"
echo "data checksums $CHECKSUMS, full_page_writes $FPW (the default), wal_compression $WALCOMP"
echo
row "1. stored, after VACUUM FULL" "counter_crdt" "bigint" "ratio"
row "$(fmt_int "$ROWS") rows, 3 writers: table" "$(size_h "${S[c3.table]}")" "$(size_h "${S[b3.table]}")" "$(ratio "${S[c3.table]}" "${S[b3.table]}") x"
row "  table per row" "${S[c3.row]} B" "${S[b3.row]} B" "$(ratio "${S[c3.row]}" "${S[b3.row]}") x"
row "  rows per heap page ($BLCKSZ B)" "${S[c3.page]}" "${S[b3.page]}" "$(ratio "${S[c3.page]}" "${S[b3.page]}") x"
row "  bytes a value" "${S[c3.value]} B" "${S[b3.value]} B" "$(ratio "${S[c3.value]}" "${S[b3.value]}") x"
row "$(fmt_int "$WIDE_ROWS") rows, $WIDE_W writers: table" "$(size_h "${S[cw.table]}")" "$(size_h "${S[bw.table]}")" "$(ratio "${S[cw.table]}" "${S[bw.table]}") x"
row "  table per row" "${S[cw.row]} B" "${S[bw.row]} B" "$(ratio "${S[cw.row]}" "${S[bw.row]}") x"
row "  rows per heap page ($BLCKSZ B)" "${S[cw.page]}" "${S[bw.page]}" "$(ratio "${S[cw.page]}" "${S[bw.page]}") x"
row "  bytes a value" "${S[cw.value]} B" "${S[bw.value]} B" "$(ratio "${S[cw.value]}" "${S[bw.value]}") x"
echo "  $WIDE_W writers: $W_COMPRESSED values compressed, $W_OUT out of line; TOAST $(size_h "$W_TOAST") of the table"
echo
printf '%-52s %14s %14s %9s %15s %19s %9s %13s %11s\n' "2. WAL per increment ($(fmt_int "$N") a pass)" "counter_crdt" "bigint" "ratio" \
	"FPI, c / b" "without FPI, c / b" "ratio" "records c / b" "HOT c / b"
for level in $LEVELS; do
	for ff in $FFS; do
		for pass in cold steady; do
			read -r cb cf cr ch <<<"${W[$level.$ff.c.$pass]}"
			read -r bb bf br bh <<<"${W[$level.$ff.b.$pass]}"
			printf '%-52s %14s %14s %9s %15s %19s %9s %13s %11s\n' \
				"wal_level $level, fillfactor $ff, $([ $pass = cold ] && echo 'after CHECKPOINT' || echo 'steady')" \
				"$cb B" "$bb B" "$(ratio "$cb" "$bb") x" "$(calc "$cf" 0) / $(calc "$bf" 0) B" \
				"$(calc "$cb - $cf" 0) / $(calc "$bb - $bf" 0) B" "$(ratio "$cb - $cf" "$bb - $bf") x" "$cr / $br" "$ch / $bh %"
		done
	done
done
echo
row "3. pgoutput, per increment" "counter_crdt" "bigint" "ratio"
for mode in text binary compact; do
	read -r cu ca <<<"${L[c.$mode]}"
	read -r bu ba <<<"${L[b.$mode]}"
	label=$mode
	[ "$mode" != compact ] || label="binary, binary_format compact"
	row "$label: UPDATE messages" "$cu B" "$bu B" "$(ratio "$cu" "$bu") x"
	row "$label: all messages" "$ca B" "$ba B" "$(ratio "$ca" "$ba") x"
done
echo
echo "one increment's UPDATE message (k = $INC_ROWS, alone in a slot), bytes:"
for mode in text binary compact; do
	for side in c b; do
		read -r tot natts kl vl kk vk <<<"${L[$side.$mode.one]}"
		printf "  %-7s %-12s %4s = header 8 ('U', relation id, 'N', %s columns; no old key) + k %s ('%s', length, %s of data) + %s %s ('%s', length, %s of data)\n" \
			"$mode" "$([ "$side" = c ] && echo counter_crdt || echo bigint)" "$tot" "$natts" "$((5 + kl))" "$kk" "$kl" \
			"$([ "$side" = c ] && echo c || echo v)" "$((5 + vl))" "$vk" "$vl"
	done
done
echo
echo "* values: 3 writers, counter_crdt_rack_id('dc1', 'rack1'..'rack3'), shard (clock n, value n) as n increments of 1 make it, n = 1 + (k * p) % 10, p = 1, 3, 7 (row 1: $SAMPLE); $WIDE_W writers: md5('writer:' || i)::uuid, n = 1 + (k + i) % 10, the table's default settings (PostgreSQL tries to compress a value of a row larger than toast_tuple_target, about 2 kB by default). The bigint twins hold the same totals."
echo "* stored: pg_table_size (heap, TOAST, free-space and visibility maps; the primary key index, the same on both sides, is not counted) after VACUUM FULL; per row = that / rows; bytes a value = avg(pg_column_size()) of the column."
echo "* WAL: pg_current_wal_lsn() after - before $(fmt_int "$N") single-row increments (pgbench -c 2 -j 2, random k of $(fmt_int "$INC_ROWS") rows, the same seeds on both sides), per increment, on tables made with that fillfactor and VACUUM (FREEZE). After CHECKPOINT: the first pass after one (every page it first touches written whole); steady: a second pass right after it, no checkpoint between (pages imaged already). FPI = bytes of full-page images (a steady pass's are of pages the first pass left unchanged), without FPI = the rest, records = WAL records, HOT = HOT updates of all heap updates (pg_waldump --stats of the pass). On wal_level replica an update that stays on its page logs only the changed middle of the new tuple (the bytes it shares with the old one at its start and end left out); on logical, all of it. An increment changes rack1's shard, number $OWN_POS of 3 in id order (and, in a value of more than 16 shards or one written before 1.12, the total kept in the value's first bytes)."
echo "* pgoutput: octet_length(data) of pg_logical_slot_peek_binary_changes(slot, NULL, NULL, 'proto_version', '1', 'publication_names', pub[, 'binary', 'true']) over $(fmt_int "$N") increments (seed 3), REPLICA IDENTITY DEFAULT (the primary key; unchanged, so no old key is sent). All messages: BEGIN and COMMIT of each transaction, RELATION once and TYPE once (the counter's) per peek (the log line of each peek gives their numbers and sizes). Binary: the values in their send/recv form; compact: the same with SET counter_crdt.binary_format = 'compact' in the peeking session (format version 3, since 1.12; what a walsender sends when the subscription's role has the setting). Not counted: what a walsender wraps every message in (an XLogData header in a CopyData message, 30 bytes by the protocol's documentation)."
