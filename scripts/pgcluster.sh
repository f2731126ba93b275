# shellcheck shell=bash
#
# pgcluster.sh: throwaway PostgreSQL clusters for tests and demos.
#
# Source it from a bash script (it sets no options and starts nothing when
# sourced):
#
#   source scripts/pgcluster.sh
#   pg_start "" ""                    # new temp dir, first free port from 54321
#   pg_start "" "" work_mem=64MB      # extra settings: name=value or -c name=value
#   pg_psql -c 'select 1'             # psql -X against the last cluster started
#   pg_stop "$PGC_DIR"
#
# pg_start DIR PORT [SETTING...]
#     DIR empty: a new directory from mktemp, removed again at exit.  PORT
#     empty or "auto": the first free port from $PGC_PORT_START (54321).  The
#     cluster (initdb -A trust, superuser "postgres", locale C, UTF8) lives in
#     DIR/data, its unix socket in DIR, its log in DIR/server.log; it listens
#     on no TCP address.  Sets PGC_DIR, PGC_PORT, PGC_DATA, PGC_LOG; PGC_HOST
#     (= DIR, the socket directory) and PGC_USER (= postgres).  Must be called
#     from the main shell, not in $(...), so that the exit trap knows it.
# pg_stop DIR
#     pg_ctl stop -m fast (then immediate, then SIGKILL of that postmaster).
# pg_env
#     Exports PGHOST, PGPORT, PGUSER (and PGDATABASE=postgres) for the last
#     cluster started.
# pg_cleanup
#     Stops every cluster this shell started and removes the temp dirs.  Runs
#     by itself on EXIT, INT, TERM and HUP once pg_start (or pgc_at_exit, or
#     pgc_register_tmp) was called.  Add your own exit work with
#     pgc_at_exit 'command'; do not replace the EXIT trap.
#
# As root, initdb, pg_ctl and the server run as the "postgres" OS user
# (runuser); as any other user they run as that user.  Set PGC_KEEP=1 to keep
# the temp dirs (logs) after exit.  Server binaries come from
# "$(pg_config --bindir)", with pg_config found by pgc_pg_config.
# PGC_POSTGRES names a program pg_start runs instead of that postgres
# (pg_ctl -p: a wrapper that runs it under Valgrind), PGC_START_TIMEOUT
# how long pg_ctl waits for it (default 120 s).

PGC_PORT_START=${PGC_PORT_START:-54321}
PGC_OS_USER=${PGC_OS_USER:-postgres}

_PGC_CLUSTERS=()		# DIRs with a cluster this shell started (or tried to)
_PGC_TMPDIRS=()			# paths to remove at exit
_PGC_HOOKS=()			# commands to run at exit, before the clusters stop
_PGC_TRAP_SET=0

# pg_config to use: $PG_CONFIG, else PostgreSQL 15's, else the one on PATH.
pgc_pg_config()
{
	if [ -n "${PG_CONFIG:-}" ]; then
		printf '%s\n' "$PG_CONFIG"
	elif [ -x /usr/lib/postgresql/15/bin/pg_config ]; then
		printf '%s\n' /usr/lib/postgresql/15/bin/pg_config
	elif command -v pg_config >/dev/null 2>&1; then
		command -v pg_config
	else
		echo "pgcluster: no pg_config found (install postgresql-server-dev-15 or set PG_CONFIG)" >&2
		return 1
	fi
}

pgc_bindir()
{
	local pgc
	pgc=$(pgc_pg_config) || return 1
	"$pgc" --bindir
}

_pgc_log()
{
	echo "pgcluster: $*" >&2
}

# Runs a command as the OS user that owns the clusters, from a neutral cwd
# (the caller's may not be readable by that user).
_pgc_as_owner()
{
	if [ "$(id -u)" -eq 0 ]; then
		(cd / && runuser -u "$PGC_OS_USER" -- "$@")
	else
		(cd / && "$@")
	fi
}

# Gives a path we created to the cluster owner (a no-op unless root).
_pgc_chown()
{
	if [ "$(id -u)" -eq 0 ]; then
		chown "$PGC_OS_USER:" "$@"
	fi
}

# Quotes one word for /bin/sh (pg_ctl hands -o to a shell).
_pgc_shquote()
{
	local s=$1
	printf "'%s'" "${s//\'/\'\\\'\'}"
}

_pgc_install_trap()
{
	if [ "$_PGC_TRAP_SET" -eq 0 ]; then
		trap '_pgc_on_exit' EXIT
		trap '_pgc_on_signal 130' INT
		trap '_pgc_on_signal 143' TERM
		trap '_pgc_on_signal 129' HUP
		_PGC_TRAP_SET=1
	fi
}

_pgc_on_signal()
{
	# exit runs the EXIT trap, which does the cleanup.
	exit "$1"
}

_pgc_on_exit()
{
	local rc=$?
	trap - EXIT INT TERM HUP
	set +e
	local h
	for h in ${_PGC_HOOKS[@]+"${_PGC_HOOKS[@]}"}; do
		eval "$h"
	done
	pg_cleanup
	exit "$rc"
}

# Registers a command for exit time (runs before the clusters are stopped).
pgc_at_exit()
{
	_pgc_install_trap
	_PGC_HOOKS+=("$1")
}

# Registers a path to remove at exit.
pgc_register_tmp()
{
	_pgc_install_trap
	_PGC_TMPDIRS+=("$1")
}

# Makes a temp directory owned by the cluster owner, removed at exit.  Call it
# from the main shell (not in $(...)): the path is left in PGC_TMP.
pgc_mktemp()
{
	_pgc_install_trap
	PGC_TMP=$(mktemp -d /tmp/pgc.XXXXXX)
	_PGC_TMPDIRS+=("$PGC_TMP")
	chmod 700 "$PGC_TMP"
	_pgc_chown "$PGC_TMP"
}

# True when something already uses PORT: a socket or lock file in the usual
# socket directories, a TCP listener, or a cluster of ours.
_pgc_port_busy()
{
	local port=$1 d c hex
	for d in /tmp /var/run/postgresql /run/postgresql; do
		if [ -e "$d/.s.PGSQL.$port" ] || [ -e "$d/.s.PGSQL.$port.lock" ]; then
			return 0
		fi
	done
	for c in ${_PGC_CLUSTERS[@]+"${_PGC_CLUSTERS[@]}"}; do
		if [ -e "$c/.s.PGSQL.$port" ] || [ -e "$c/.s.PGSQL.$port.lock" ]; then
			return 0
		fi
	done
	hex=$(printf '%04X' "$port")
	# /proc/net/tcp{,6}: local address "ADDR:PORT" in hex, state 0A = LISTEN.
	if cat /proc/net/tcp /proc/net/tcp6 2>/dev/null |
		awk -v p="$hex" 'NR > 0 && $4 == "0A" { n = split($2, a, ":"); if (a[n] == p) found = 1 } END { exit !found }'; then
		return 0
	fi
	return 1
}

# Prints the first free port from START (default $PGC_PORT_START).
pg_free_port()
{
	local port=${1:-$PGC_PORT_START} last
	last=$((port + 1000))
	while [ "$port" -lt "$last" ]; do
		if ! _pgc_port_busy "$port"; then
			echo "$port"
			return 0
		fi
		port=$((port + 1))
	done
	_pgc_log "no free port in ${1:-$PGC_PORT_START}..$last"
	return 1
}

pg_start()
{
	local dir=${1:-} port=${2:-}
	if [ "$#" -ge 2 ]; then shift 2; else shift "$#"; fi

	local bindir
	bindir=$(pgc_bindir) || return 1
	if [ ! -x "$bindir/initdb" ] || [ ! -x "$bindir/postgres" ]; then
		_pgc_log "no server binaries in $bindir (install postgresql-15)"
		return 1
	fi
	if [ "$(id -u)" -eq 0 ] && ! id "$PGC_OS_USER" >/dev/null 2>&1; then
		_pgc_log "OS user $PGC_OS_USER does not exist (install postgresql-15)"
		return 1
	fi

	# Extra settings: "name=value" or "-c name=value".
	local opts="" s
	while [ "$#" -gt 0 ]; do
		s=$1
		shift
		if [ "$s" = "-c" ]; then
			if [ "$#" -eq 0 ]; then
				_pgc_log "-c needs name=value"
				return 1
			fi
			s=$1
			shift
		fi
		case "$s" in
			*=*) opts+=" -c $(_pgc_shquote "$s")" ;;
			*) _pgc_log "bad setting '$s' (want name=value)"; return 1 ;;
		esac
	done

	_pgc_install_trap
	if [ -z "$dir" ]; then
		dir=$(mktemp -d /tmp/pgc.XXXXXX)
		_PGC_TMPDIRS+=("$dir")
	else
		mkdir -p "$dir"
		dir=$(cd "$dir" && pwd)
		if [ -e "$dir/data" ]; then
			_pgc_log "$dir/data already exists"
			return 1
		fi
	fi
	chmod 700 "$dir"
	_pgc_chown "$dir"

	if [ -z "$port" ] || [ "$port" = auto ]; then
		port=$(pg_free_port "$PGC_PORT_START") || return 1
	fi
	# Unix socket paths are limited to 107 bytes.
	if [ "${#dir}" -gt 90 ]; then
		_pgc_log "socket directory path too long: $dir"
		return 1
	fi

	if ! _pgc_as_owner "$bindir/initdb" -D "$dir/data" -A trust -U postgres \
		-E UTF8 --locale=C --no-sync >"$dir/initdb.log" 2>&1; then
		_pgc_log "initdb failed:"
		cat "$dir/initdb.log" >&2
		return 1
	fi

	# From here on the exit trap stops it, whatever happens.
	_PGC_CLUSTERS+=("$dir")
	local o
	o="-p $port -k $(_pgc_shquote "$dir") -c listen_addresses='' -c fsync=off"
	o+="$opts"
	# PGC_POSTGRES: a program to start instead of bindir's postgres (pg_ctl
	# -p), such as a script that runs it under Valgrind.
	if ! _pgc_as_owner "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" \
		${PGC_POSTGRES:+-p "$PGC_POSTGRES"} \
		-w -t "${PGC_START_TIMEOUT:-120}" -o "$o" start >"$dir/pg_ctl.log" 2>&1; then
		_pgc_log "server did not start; pg_ctl said:"
		cat "$dir/pg_ctl.log" >&2
		_pgc_log "server log:"
		tail -n 40 "$dir/server.log" >&2 2>/dev/null || true
		return 1
	fi
	if ! "$bindir/pg_isready" -q -h "$dir" -p "$port" -U postgres -t 30; then
		_pgc_log "server started but is not ready; log:"
		tail -n 40 "$dir/server.log" >&2 2>/dev/null || true
		return 1
	fi

	# shellcheck disable=SC2034	# used by the callers
	PGC_DIR=$dir
	PGC_HOST=$dir
	PGC_PORT=$port
	PGC_USER=postgres
	# shellcheck disable=SC2034
	PGC_DATA=$dir/data
	# shellcheck disable=SC2034
	PGC_LOG=$dir/server.log
	_pgc_log "cluster up: socket dir $dir, port $port"
}

pg_env()
{
	export PGHOST="$PGC_HOST" PGPORT="$PGC_PORT" PGUSER="$PGC_USER" PGDATABASE=postgres
}

# psql against the last cluster started: no psqlrc, stop on error, no pager.
pg_psql()
{
	"$(pgc_bindir)/psql" -X -v ON_ERROR_STOP=1 -P pager=off \
		-h "$PGC_HOST" -p "$PGC_PORT" -U "$PGC_USER" -d "${PGC_DB:-postgres}" "$@"
}

_pgc_postmaster_pid()
{
	local pidfile=$1/data/postmaster.pid
	[ -r "$pidfile" ] || return 1
	head -n 1 "$pidfile"
}

pg_stop()
{
	local dir=${1:?pg_stop DIR}
	local bindir pid
	bindir=$(pgc_bindir) || return 1
	if [ ! -e "$dir/data/postmaster.pid" ]; then
		return 0
	fi
	if ! _pgc_as_owner "$bindir/pg_ctl" -D "$dir/data" -m fast -w -t 60 stop \
		>/dev/null 2>&1; then
		_pgc_as_owner "$bindir/pg_ctl" -D "$dir/data" -m immediate -w -t 30 stop \
			>/dev/null 2>&1 || true
	fi
	# Last resort: the postmaster we started, by its pid.
	pid=$(_pgc_postmaster_pid "$dir" 2>/dev/null || true)
	if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
		_pgc_log "postmaster $pid did not stop; killing it"
		kill -KILL "$pid" 2>/dev/null || true
		sleep 1
	fi
	if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
		_pgc_log "could not stop postmaster $pid in $dir"
		return 1
	fi
	return 0
}

pg_cleanup()
{
	local d
	for d in ${_PGC_CLUSTERS[@]+"${_PGC_CLUSTERS[@]}"}; do
		pg_stop "$d" || true
	done
	_PGC_CLUSTERS=()
	if [ "${PGC_KEEP:-0}" = 1 ]; then
		for d in ${_PGC_TMPDIRS[@]+"${_PGC_TMPDIRS[@]}"}; do
			_pgc_log "kept $d"
		done
	else
		for d in ${_PGC_TMPDIRS[@]+"${_PGC_TMPDIRS[@]}"}; do
			# a child under valgrind may still be writing its profile: once more
			rm -rf -- "$d" 2>/dev/null || { sleep 1; rm -rf -- "$d" || true; }
		done
	fi
	_PGC_TMPDIRS=()
}
