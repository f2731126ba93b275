# shellcheck shell=bash
#
# lib.sh: what the benchmark scripts share.  Source it after setting
# BENCH_TAG, the word their log lines start with:
#
#   BENCH_TAG=fdw
#   source "$ROOT/bench/lib.sh"
#
# say TEXT          a line of the log
# die TEXT          an error line, then exit 1
# calc EXPR [D]     EXPR in floating point, with D decimals (2)
# median            the median of the numbers on stdin (blank- or line-separated)
# fmt_int N         N with thousands separators: 1,000,000
# cpu_of PID        CPU seconds (user + system) of a process so far, 0 if gone

export LC_NUMERIC=C

say() { echo "$BENCH_TAG: $*"; }
die() { echo "$BENCH_TAG: ERROR: $*" >&2; exit 1; }
calc() { awk "BEGIN { printf \"%.${2:-2}f\", $1 }"; }
median() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else printf "%.3f\n", (a[NR/2]+a[NR/2+1])/2}'; }
fmt_int() { printf '%d' "$1" | sed -e :a -e 's/\([0-9]\)\([0-9]\{3\}\)\($\|,\)/\1,\2\3/; ta'; }
cpu_of() { awk -v hz="$(getconf CLK_TCK)" '{print ($14 + $15) / hz}' "/proc/$1/stat" 2>/dev/null || echo 0; }

# A throwaway server of $PG_CONFIG's PostgreSQL for one benchmark, run as the
# postgres OS user (as root), on a unix socket only in its own directory,
# stopped and removed at exit: sets BIN, D and PORT, defines as_pg and psql_
# (postgres, database postgres, stops at the first error).  The arguments
# are the server's -c settings.
bench_server() {
	local opts o
	[ "$(id -u)" -eq 0 ] || die "run as root (the server runs as postgres)"
	BIN=$("$PG_CONFIG" --bindir)
	D=$(mktemp -d "/tmp/${BENCH_TAG}.XXXX")
	chown postgres: "$D"
	PORT=$((56000 + RANDOM % 3000))
	opts="-p $PORT -k $D -c listen_addresses="
	for o in "$@"; do opts+=" -c $o"; done
	trap 'as_pg "$BIN/pg_ctl" -D "$D/data" -m immediate stop >/dev/null 2>&1 || true; rm -rf "$D"' EXIT
	as_pg "$BIN/initdb" -D "$D/data" -A trust -U postgres >/dev/null
	as_pg "$BIN/pg_ctl" -D "$D/data" -o "$opts" -l "$D/log" -w start >/dev/null
}
as_pg() { runuser -u postgres -- "$@"; }
psql_() { as_pg "$BIN/psql" -h "$D" -p "$PORT" -U postgres -d postgres -X -q -v ON_ERROR_STOP=1 -At "$@"; }
