#!/usr/bin/env bash
#
# reads.sh: reading and merging counters against reading a bigint (issue 47,
# item 4), each query pair timed interleaved in one session of a throwaway
# server (unix socket only, run as the postgres OS user, stopped and removed
# at exit), with the extension as installed into $PG_CONFIG's PostgreSQL.
#
#   PG_CONFIG=... bash bench/reads.sh          # as root, like bench/bench.sh
#
# (bench/bench.sh runs it after its own figures unless BENCH_READS=0.)  It
# runs in the chroots of scripts/pgchroot.sh as well (mawk, no bc), e.g.
#   bash scripts/pgchroot.sh run --cwd /build/counter_crdt \
#       --env PG_CONFIG=/usr/lib/postgresql/18/bin/pg_config 18 -- bash bench/reads.sh
#
# Data.  rc (k int PRIMARY KEY, c counter_crdt) of READS_ROWS rows, counters
# of three writers, ids counter_crdt_rack_id('dc1', 'rack1'..'rack3'), row k
# holding for writer r the shard (clock n, value n), what n increments of 1
# make, n = 1 + (k * p) % 10, p = 1, 3, 7 (as bench/bytes.sh makes them);
# and its bigint twin rb (k int PRIMARY KEY, v bigint) with the same totals
# (checked: the sums, and row by row on a sample).  m (k int, c counter_crdt,
# v bigint) of READS_KEYS keys x READS_COPIES replica states, 3 shards each,
# clocks differing per copy, as bench/bench.sh makes its merge data, v the
# state's value.  VACUUM (FREEZE, ANALYZE), CHECKPOINT, pg_prewarm of every
# table, and one warm-up run of every query.
#
# Figures (counter query vs bigint query, target on the ratio):
#   sum(c::bigint)           SELECT sum(c::bigint) FROM rc   vs sum(v) FROM rb   <= 1.00 x
#   sum(c)                   SELECT sum(c) FROM rc           vs sum(v) FROM rb   <= 1.05 x
#   avg(c)                   SELECT avg(c) FROM rc           vs avg(v) FROM rb   <= 1.05 x
#   max(c)                   SELECT max(c) FROM rc           vs max(v) FROM rb   <= 1.05 x
#   count(*) WHERE c > n     ... FROM rc WHERE c > READS_N   vs v > READS_N      <= 1.05 x
#   merge aggregate          SELECT counter_crdt_merge_agg(c) FROM m
#                                                            vs sum(v) FROM m    <= 1.10 x
# Timing: psql's \timing of each statement (client round trip included: a
# row of result, well under a percent of these), in one session with jit =
# off and max_parallel_workers_per_gather = 0, READS_ROUNDS rounds of every
# pair in turn, counter then bigint; the median of each side, and the ratio
# of the medians ("ratio", set against the target).  The table also gives
# the median of the rounds' own ratios ("pairs": a round's two runs are a
# few milliseconds apart, so the load of a shared machine weighs on both
# alike).
#
# Stored layout: the values are written by this build (version 3 of
# core/cc_stored.h since 1.12: records of id + clock + value at the
# narrowest widths, the total summed on read up to 16 shards); the output
# says which version and layout the rows have.  Values of the older layout
# (version 2, total kept in the header) cannot be written by SQL any more
# (only tombstones and values with fold records or a total outside bigint
# are), so they are not measured here.
#
# READS_CALLGRIND=1: afterwards, the server stopped, every query counted in
# instructions under callgrind, each in two single-user sessions on copies of
# READS_CG_ROWS rows (READS_CG_ROWS / READS_COPIES keys for the merge): one
# runs pg_prewarm and the query, the other pg_prewarm and the query twice;
# the difference of standard_ExecutorRun's inclusive count, per row, is one
# warm run of the query.  Own is the same difference of the exclusive counts
# of counter_crdt.so's functions (the bigint's: its transition or comparison
# function, int8_avg_accum, int8larger, int84gt).  Needs
# valgrind (callgrind_annotate).  READS_CG_KEEP=DIR keeps the profiles there.
#
# Knobs: READS_ROWS [1000000], READS_KEYS [100000], READS_COPIES [10],
# READS_ROUNDS [11], READS_N [15], READS_SHARED_BUFFERS [1GB],
# READS_CALLGRIND [0], READS_CG_ROWS [100000].  About a minute and a half on
# two cores with the defaults, two to four minutes more for callgrind.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BENCH_TAG=reads
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"

PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
ROWS=${READS_ROWS:-1000000}
KEYS=${READS_KEYS:-100000}
COPIES=${READS_COPIES:-10}
ROUNDS=${READS_ROUNDS:-11}
NCMP=${READS_N:-15}
SB=${READS_SHARED_BUFFERS:-1GB}
CGROWS=${READS_CG_ROWS:-100000}
CALLGRIND=${READS_CALLGRIND:-0}
for v in ROWS KEYS COPIES ROUNDS NCMP CGROWS; do
	[[ ${!v} =~ ^[1-9][0-9]*$ ]] || die "$v must be a positive integer (got '${!v}')"
done
if [ "$CALLGRIND" != 0 ]; then
	command -v valgrind >/dev/null && command -v callgrind_annotate >/dev/null ||
		die "READS_CALLGRIND needs valgrind (apt-get install valgrind)"
fi
T0=$(date +%s)

bench_server fsync=off autovacuum=off "shared_buffers=$SB" jit=off \
	max_parallel_workers_per_gather=0 max_wal_size=8GB checkpoint_timeout=1h \
	maintenance_work_mem=256MB work_mem=64MB
psql_ -c "CREATE EXTENSION counter_crdt" -c "CREATE EXTENSION pg_prewarm"
R1=$(psql_ -c "SELECT counter_crdt_rack_id('dc1', 'rack1')")
R2=$(psql_ -c "SELECT counter_crdt_rack_id('dc1', 'rack2')")
R3=$(psql_ -c "SELECT counter_crdt_rack_id('dc1', 'rack3')")
PG_VERSION=$(psql_ -c "SHOW server_version")
EXT_VERSION=$(psql_ -c "SELECT extversion FROM pg_extension WHERE extname = 'counter_crdt'")
say "PostgreSQL $PG_VERSION, counter_crdt $EXT_VERSION; building $(fmt_int "$ROWS") rows and $(fmt_int $((KEYS * COPIES))) merge rows"

psql_ <<SQL
SET synchronous_commit = off;
CREATE TABLE rc (k int PRIMARY KEY, c counter_crdt NOT NULL);
CREATE TABLE rb (k int PRIMARY KEY, v bigint NOT NULL);
INSERT INTO rc
SELECT k, format('{%s:%s:%s, %s:%s:%s, %s:%s:%s}', '$R1', n1, n1, '$R2', n2, n2, '$R3', n3, n3)::counter_crdt
FROM generate_series(1, $ROWS) k,
     LATERAL (SELECT 1 + k % 10 AS n1, 1 + (3 * k) % 10 AS n2, 1 + (7 * k) % 10 AS n3) n;
INSERT INTO rb
SELECT k, 3 + k % 10 + (3 * k) % 10 + (7 * k) % 10 FROM generate_series(1, $ROWS) k;
-- merge data as bench/bench.sh makes it: for key k, copy i and rack r the
-- clock is 1 + (i + k*m_r) % $COPIES, and the value grows with the clock
CREATE TABLE m (k int NOT NULL, c counter_crdt NOT NULL, v bigint NOT NULL);
INSERT INTO m
SELECT k, format('{%s:%s:%s, %s:%s:%s, %s:%s:%s}',
                 '$R1', c1, v1, '$R2', c2, v2, '$R3', c3, v3)::counter_crdt,
       v1 + v2 + v3
FROM (SELECT k, c1, c2, c3, c1 * 5 + k % 100 AS v1, c2 * 3 + k % 50 AS v2, c3 * 2 + k % 10 AS v3
      FROM generate_series(1, $COPIES) i
           CROSS JOIN LATERAL generate_series(1 + 0 * i, $KEYS) k
           CROSS JOIN LATERAL (SELECT 1 + (i + k) % $COPIES AS c1,
                                      1 + (i + 3 * k) % $COPIES AS c2,
                                      1 + (i + 7 * k) % $COPIES AS c3) cl) g;
VACUUM (FREEZE, ANALYZE) rc, rb, m;
CHECKPOINT;
SQL
[ "$(psql_ -c "SELECT (SELECT sum(c::bigint) FROM rc) = (SELECT sum(v) FROM rb)")" = t ] ||
	die "the counters' total is not the bigints'"
[ "$(psql_ -c "SELECT count(*) FROM rc JOIN rb USING (k) WHERE k % 997 = 1 AND c::bigint = v")" = \
	"$(psql_ -c "SELECT count(*) FROM rb WHERE k % 997 = 1")" ] || die "a counter's value is not its twin's"
[ "$(psql_ -c "SELECT (SELECT count(*) FROM rc WHERE c > $NCMP) = (SELECT count(*) FROM rb WHERE v > $NCMP)
	AND (SELECT max(c) FROM rc) = (SELECT max(v) FROM rb) AND (SELECT avg(c) FROM rc) = (SELECT avg(v) FROM rb)")" = t ] ||
	die "count, max or avg differ between the twins"
[ "$(psql_ -c "SELECT counter_crdt_merge_agg(c)::bigint FROM m")" = \
	"$(psql_ -c "SELECT $COPIES * 10 + max(k % 100) + max(k % 50) + max(k % 10) FROM m")" ] ||
	die "the merge of m is not the total its generator implies"
# the stored bytes of row 1's value (pageinspect), after its 1-byte varlena header
psql_ -c "CREATE EXTENSION pageinspect"
LAYOUT=$(psql_ -c "SELECT format('stored version %s, layout 0x%s, %s bytes a value', get_byte(a, 1),
	lpad(to_hex(get_byte(a, 2)), 2, '0'), length(a))
	FROM (SELECT t_attrs[2] AS a FROM heap_page_item_attrs(get_raw_page('rc', 0), 'rc'::regclass)
	      WHERE lp = 1) x")
SIZES=$(psql_ -c "SELECT format('rc %s, rb %s, m %s', pg_size_pretty(pg_table_size('rc')),
	pg_size_pretty(pg_table_size('rb')), pg_size_pretty(pg_table_size('m')))")
say "data built and checked in $(($(date +%s) - T0)) s: $LAYOUT; tables $SIZES"

FIGS=(castsum sum avg max gt merge)
declare -A NAME QC QB TARGET
NAME[castsum]="sum(c::bigint)"; QC[castsum]="SELECT sum(c::bigint) FROM rc"; QB[castsum]="SELECT sum(v) FROM rb"; TARGET[castsum]=1.00
NAME[sum]="sum(c)"; QC[sum]="SELECT sum(c) FROM rc"; QB[sum]="SELECT sum(v) FROM rb"; TARGET[sum]=1.05
NAME[avg]="avg(c)"; QC[avg]="SELECT avg(c) FROM rc"; QB[avg]="SELECT avg(v) FROM rb"; TARGET[avg]=1.05
NAME[max]="max(c)"; QC[max]="SELECT max(c) FROM rc"; QB[max]="SELECT max(v) FROM rb"; TARGET[max]=1.05
NAME[gt]="count(*) WHERE c > $NCMP"; QC[gt]="SELECT count(*) FROM rc WHERE c > $NCMP"; QB[gt]="SELECT count(*) FROM rb WHERE v > $NCMP"; TARGET[gt]=1.05
NAME[merge]="merge aggregate"; QC[merge]="SELECT counter_crdt_merge_agg(c) FROM m"; QB[merge]="SELECT sum(v) FROM m"; TARGET[merge]=1.10

# One session: prewarm, a warm-up run of every query, then the rounds; each
# statement's "Time:" line, in order.
{
	echo "SET jit = off; SET max_parallel_workers_per_gather = 0;"
	echo "SELECT pg_prewarm('rc'), pg_prewarm('rb'), pg_prewarm('m');"
	for f in "${FIGS[@]}"; do echo "${QC[$f]}; ${QB[$f]};"; done
	echo '\timing on'
	for _ in $(seq 1 "$ROUNDS"); do
		for f in "${FIGS[@]}"; do echo "${QC[$f]};"; echo "${QB[$f]};"; done
	done
} >"$D/rounds.sql"
chmod 644 "$D/rounds.sql"
say "timing: $ROUNDS rounds of ${#FIGS[@]} pairs, interleaved"
psql_ -f "$D/rounds.sql" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' >"$D/times"
npf=$((2 * ${#FIGS[@]}))
[ "$(wc -l <"$D/times")" -eq $((ROUNDS * npf)) ] || die "expected $((ROUNDS * npf)) timings, got $(wc -l <"$D/times")"

echo
echo "reads at a bigint's cost: PostgreSQL $PG_VERSION, counter_crdt $EXT_VERSION, $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "  $(fmt_int "$ROWS") rows of 3-writer counters ($LAYOUT) vs bigint; merge: $(fmt_int "$KEYS") keys x $COPIES states"
echo "  median of $ROUNDS interleaved rounds; jit off, serial"
echo
printf '%-26s %11s %11s %8s %10s %8s\n' figure "counter ms" "bigint ms" ratio "pairs" target
i=0
for f in "${FIGS[@]}"; do
	c=$(awk -v i=$i -v n=$npf 'NR % n == i + 1' "$D/times" | median)
	b=$(awk -v i=$i -v n=$npf 'NR % n == (i + 2) % n' "$D/times" | median)
	pairs=$(awk -v i=$i -v n=$npf 'NR % n == i + 1 { c = $1 } NR % n == (i + 2) % n { printf "%.4f\n", c / $1 }' "$D/times" | median)
	pairs=$(calc "$pairs" 3)
	r=$(calc "$c / $b" 3)
	ok=$(awk -v r="$r" -v t="${TARGET[$f]}" 'BEGIN { print (r <= t + 0.0005) ? "met" : "missed" }')
	printf '%-26s %11.2f %11.2f %7s x %8s x %5s x %s\n' "${NAME[$f]}" "$c" "$b" "$r" "$pairs" "${TARGET[$f]}" "$ok"
	i=$((i + 2))
done
echo

[ "$CALLGRIND" != 0 ] || { say "done in $(($(date +%s) - T0)) s"; exit 0; }

# --- instructions per row, under callgrind --------------------------------
CGKEYS=$((CGROWS / COPIES))
[ "$CGKEYS" -ge 1 ] || die "READS_CG_ROWS must be at least READS_COPIES"
psql_ <<SQL
CREATE TABLE cg_rc AS SELECT * FROM rc WHERE k <= $CGROWS;
CREATE TABLE cg_rb AS SELECT * FROM rb WHERE k <= $CGROWS;
CREATE TABLE cg_m AS SELECT * FROM m WHERE k <= $CGKEYS;
VACUUM (FREEZE, ANALYZE) cg_rc, cg_rb, cg_m;
CHECKPOINT;
SQL
CGM=$(psql_ -c "SELECT count(*) FROM cg_m")
as_pg "$BIN/pg_ctl" -D "$D/data" -m fast -w stop >/dev/null
CG=${READS_CG_KEEP:-$D/cg}
mkdir -p "$CG"
chown postgres: "$CG"
# inclusive instructions of FUNCTION in profile FILE (0 if it never ran)
incl() { callgrind_annotate --inclusive=yes --auto=no --threshold=100 "$1" 2>/dev/null |
	awk -v f=":$2 [" '!found && index($0, f) { gsub(",", "", $1); v = $1; found = 1 } END { print v + 0 }'; }
# exclusive instructions of the functions whose names match the regular
# expression RE, in FILE: every entry, one per source file their inlined
# code came from
excl() { callgrind_annotate --inclusive=no --auto=no --threshold=100 "$1" 2>/dev/null |
	awk -v f=":($2)( \\[|$)" '$0 ~ f { gsub(",", "", $1); v += $1 } END { print v + 0 }'; }
# cg NAME TABLE QUERY REPEATS: a single-user session under callgrind
cg() {
	local sql
	sql="SELECT pg_prewarm('$2');"
	for _ in $(seq 1 "$4"); do sql+=$'\n'"$3;"; done
	printf '%s\n' "$sql" | as_pg valgrind -q --tool=callgrind --dump-instr=no \
		--callgrind-out-file="$CG/$1" "$BIN/postgres" --single -D "$D/data" \
		-c jit=off -c max_parallel_workers_per_gather=0 -c "shared_buffers=256MB" \
		postgres >/dev/null 2>>"$CG/log" || die "callgrind of $1 failed (see $CG/log)"
}
# per row of one warm run of QUERY on TABLE (rows), and of FUNCTION
# (its own part), printed "total own"
cg_pair() {
	local id=$1 tbl=$2 q=$3 rows=$4 fn=$5 t own
	cg "$id.1" "$tbl" "$q" 1
	cg "$id.2" "$tbl" "$q" 2
	t=$(( $(incl "$CG/$id.2" standard_ExecutorRun) - $(incl "$CG/$id.1" standard_ExecutorRun) ))
	own=$(( $(excl "$CG/$id.2" "$fn") - $(excl "$CG/$id.1" "$fn") ))
	echo "$(calc "$t / $rows" 0) $(calc "$own / $rows" 0)"
}
# own: the counter's functions (counter_crdt_*, cc_*, all of counter_crdt.so's)
# and the bigint's transition or comparison, exclusive
declare -A BFN
BFN[castsum]=int8_avg_accum; BFN[sum]=int8_avg_accum; BFN[avg]=int8_avg_accum
BFN[max]=int8larger; BFN[gt]=int84gt; BFN[merge]=int8_avg_accum
say "callgrind: $(fmt_int "$CGROWS") rows ($(fmt_int "$CGM") for the merge), two sessions a query"
echo
echo "reads in instructions per row (callgrind, one warm run; own: counter_crdt.so's, and the bigint's fmgr function)"
echo
printf '%-26s %14s %14s %8s %12s %12s\n' figure counter bigint ratio "own, c" "own, bigint"
for f in "${FIGS[@]}"; do
	if [ "$f" = merge ]; then tc=cg_m; tb=cg_m; rows=$CGM; else tc=cg_rc; tb=cg_rb; rows=$CGROWS; fi
	qc=${QC[$f]/FROM rc/FROM cg_rc}; qc=${qc/FROM m/FROM cg_m}
	qb=${QB[$f]/FROM rb/FROM cg_rb}; qb=${qb/FROM m/FROM cg_m}
	read -r c co < <(cg_pair "$f.c" "$tc" "$qc" "$rows" 'counter_crdt_[a-z0-9_]*|cc_[a-z0-9_]*')
	read -r b bo < <(cg_pair "$f.b" "$tb" "$qb" "$rows" "${BFN[$f]}")
	printf '%-26s %14s %14s %6s x %12s %12s\n' "${NAME[$f]}" "$c" "$b" "$(calc "$c / $b" 3)" "$co" "$bo"
done
echo
say "done in $(($(date +%s) - T0)) s"
