#!/usr/bin/env bash
#
# pgchroot.sh: Debian chroots with PostgreSQL 17 (trixie), 18 (sid) and 19
# (sid, its packages from experimental), to build and test counter_crdt
# against versions the host does not have.
#
# As a library (scripts/test.sh):
#
#   source scripts/pgchroot.sh
#   pgchroot_suite 17                 -> trixie (18, 19 -> sid; others: error)
#   pgchroot_extra_suite 19           -> experimental (17, 18: nothing)
#   pgchroot_dir 17                   -> /var/cache/counter_crdt/chroot-17
#   pgchroot_ensure 17                create, update or reuse the chroot
#   pgchroot_run 17 CMD...            run CMD inside, as root
#   pgchroot_run_postgres 17 CMD...   run CMD inside, as postgres
#   pgchroot_run [--user U] [--cwd DIR] [--env K=V]... 17 [--] CMD...
#   pgchroot_mount 17 / pgchroot_umount 17
#   pgchroot_clean 17                 unmount and delete the chroot
#   pgchroot_packages 17              the packages ensure installs
#   pgchroot_stage_host 17 15 /build/pg15
#                                     copy this machine's PostgreSQL 15 into
#                                     the chroot at /build/pg15 (see stage)
#
# As a command: bash scripts/pgchroot.sh ensure 17
#               bash scripts/pgchroot.sh run [--user postgres] 17 -- CMD...
#               bash scripts/pgchroot.sh clean 17      (also: mount, umount,
#               dir, suite, packages)
#               bash scripts/pgchroot.sh mirror        the host's Debian mirror
#
# Every function except pgchroot_suite, pgchroot_extra_suite and pgchroot_dir
# runs in a child bash
# (this file, with set -euo pipefail), so it fails cleanly in a caller under
# set -euo pipefail or inside `if`/`||` (where bash would ignore set -e), and
# it never touches the caller's shell options or traps: the child installs
# its own EXIT/INT/TERM/HUP traps.  Needs root.
#
# Mounts: /proc, a tmpfs on /dev/shm and a bind of /dev/pts.  pgchroot_run
# mounts them, runs CMD and, when it was the last user, stops every
# PostgreSQL server (and any other process) whose root is the chroot and
# unmounts, also when CMD fails or the run is interrupted (INT, TERM, HUP are
# forwarded to CMD).  So a server started with pg_ctl inside lives only as
# long as the pgchroot_run that started it: run a whole test in one call, or
# hold the mounts with pgchroot_mount and release them with pgchroot_umount
# (both safe to call more than once; umount also stops the servers).  A
# caller that may be killed by SIGKILL/SIGTERM to itself alone should call
# pgchroot_umount VER from its own exit trap.
#
# Inside: PATH starts with /usr/lib/postgresql/VER/bin, LANG=C.UTF-8, the
# environment is otherwise empty (env -i; pass more with --env K=V); the
# cwd is / unless --cwd.  A server must listen only on a Unix socket
# (listen_addresses='') or loopback: the chroot shares the host's network.
#
# The JIT toolchain: postgresql-server-dev-VER depends on clang-N and
# llvm-N-dev (about 1 GB) only for PGXS's LLVM bitcode.  ensure installs a
# local dummy package, counter-crdt-nojit, that Provides exactly those, pins
# the real ones to -1 (apt fails loudly rather than pull them in), and
# diverts each pgxs Makefile.global to a wrapper that includes the original
# and sets with_llvm = no, so a plain `make` (and pg_buildext) builds without
# bitcode.  The server's JIT itself is untouched (17: postgresql-17 links
# libllvm; 18: postgresql-18-jit, a Recommends, is not installed).
#
# Environment:
#   COUNTER_CRDT_CHROOT_CACHE   parent directory of the chroots
#                               (default /var/cache/counter_crdt)
#   COUNTER_CRDT_CHROOT_MIRROR  Debian mirror URL (default: the host's own,
#                               read from /etc/apt/sources.list{,.d/*})
#   COUNTER_CRDT_CHROOT_EXTRA_PACKAGES  more packages to install (spaces)
#   COUNTER_CRDT_CHROOT_CLANG=1 also install clang + libclang-rt-dev (the
#                               sanitizer/fuzz compiler; +200 MB on 17, more
#                               on 18; off by default)
#   COUNTER_CRDT_CHROOT_NEED_MB free space needed to create a chroot
#                               (default 2500; 800 to update one)
#
# ensure records what it installed in DIR/etc/counter-crdt-chroot.stamp; a
# second call with the same package list only checks it (about a second), a
# changed list re-runs the install step (apt-get install: packages dropped
# from the list are not removed; pgchroot_clean for a fresh one).  Logs of
# debootstrap and apt go to PARENT/chroot-VER.log.

# ---- the two functions that run in the caller's shell ---------------------

_PGCHROOT_SELF=$(readlink -f "${BASH_SOURCE[0]}")

pgchroot_suite() {	# VER -> Debian suite
	case "${1:-}" in
	17) echo trixie ;;
	18 | 19) echo sid ;;
	*)
		echo "pgchroot: no Debian suite for PostgreSQL '${1:-}' (17: trixie, 18 and 19: sid)" >&2
		return 2
		;;
	esac
}

# VER -> a second suite whose PostgreSQL VER packages (and only those) apt
# takes (pinned, _pgr_experimental), or nothing.
pgchroot_extra_suite() {
	pgchroot_suite "${1:-}" >/dev/null || return
	case "$1" in
	19) echo experimental ;;
	esac
}

pgchroot_dir() {	# VER -> chroot directory
	pgchroot_suite "${1:-}" >/dev/null || return
	echo "${COUNTER_CRDT_CHROOT_CACHE:-/var/cache/counter_crdt}/chroot-$1"
}

# ---- the others: a child bash each ----------------------------------------

pgchroot_ensure() { bash "$_PGCHROOT_SELF" ensure "$@"; }
pgchroot_mount() { bash "$_PGCHROOT_SELF" mount "$@"; }
pgchroot_umount() { bash "$_PGCHROOT_SELF" umount "$@"; }
pgchroot_run() { bash "$_PGCHROOT_SELF" run "$@"; }
pgchroot_run_postgres() { bash "$_PGCHROOT_SELF" run --user postgres "$@"; }
pgchroot_clean() { bash "$_PGCHROOT_SELF" clean "$@"; }
pgchroot_packages() { bash "$_PGCHROOT_SELF" packages "$@"; }
pgchroot_stage_host() { bash "$_PGCHROOT_SELF" stage "$@"; }

# ---- implementation (child process only) ----------------------------------

_pgr_msg() { echo "pgchroot: $*" >&2; }
_pgr_die() {
	echo "pgchroot: error: $*" >&2
	exit 1
}

_pgr_now() { date +%s.%N; }
_pgr_since() { awk -v a="$1" -v b="$(_pgr_now)" 'BEGIN { printf "%.1f", b - a }'; }

_pgr_need_root() {
	[ "$(id -u)" -eq 0 ] || _pgr_die "needs root (debootstrap, chroot, mount)"
	case ":$PATH:" in *:/usr/sbin:*) ;; *) PATH="$PATH:/usr/sbin:/sbin" ;; esac
}

# Sets VER, SUITE, EXTRA_SUITE, DIR (canonical), PARENT, LOG.
_pgr_setup() {
	VER=${1:-}
	SUITE=$(pgchroot_suite "$VER") || exit 2
	EXTRA_SUITE=$(pgchroot_extra_suite "$VER")
	DIR=$(pgchroot_dir "$VER")
	PARENT=$(dirname "$DIR")
	mkdir -p "$PARENT"
	PARENT=$(readlink -f "$PARENT")
	DIR="$PARENT/chroot-$VER"
	LOG="$DIR.log"
	USERS="$DIR.users"
}

# One lock per chroot (flock on DIR.lock, fd 9), nestable within this process.
_PGR_LOCKED=0
_pgr_lock() {
	if [ "$_PGR_LOCKED" -eq 0 ]; then
		exec 9>"$DIR.lock"
		flock 9
	fi
	_PGR_LOCKED=$((_PGR_LOCKED + 1))
}
_pgr_unlock() {
	if [ "$_PGR_LOCKED" -eq 1 ]; then
		flock -u 9
		exec 9>&-
	fi
	[ "$_PGR_LOCKED" -eq 0 ] || _PGR_LOCKED=$((_PGR_LOCKED - 1))
}

# CMD inside the chroot, as root, with a clean environment.
_pgr_in() {
	chroot "$DIR" env -i HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@"
}
# The same, output to the log; on failure its tail and exit.
_pgr_in_logged() {
	echo "+ $*" >>"$LOG"
	if ! _pgr_in "$@" >>"$LOG" 2>&1; then
		tail -n 30 "$LOG" >&2
		_pgr_die "failed in the PostgreSQL $VER chroot: $* (log: $LOG)"
	fi
}

# Mount points at or under PATH, deepest first.
_pgr_mounts_under() {
	awk -v p="$1" '{
		m = $5
		gsub(/\\040/, " ", m)
		if (m == p || index(m, p "/") == 1) print length(m) "\t" m
	}' /proc/self/mountinfo | sort -rn | cut -f2-
}

_pgr_is_mounted() { [ -n "$(_pgr_mounts_under "$1" | awk -v p="$1" '$0 == p')" ]; }

_pgr_do_mount() {
	local r=$DIR
	[ -d "$r/usr" ] || _pgr_die "no chroot at $r (pgchroot_ensure $VER first)"
	mkdir -p "$r/proc" "$r/dev/shm" "$r/dev/pts"
	_pgr_is_mounted "$r/proc" || mount -t proc proc "$r/proc"
	_pgr_is_mounted "$r/dev/shm" || mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs "$r/dev/shm"
	_pgr_is_mounted "$r/dev/pts" || mount --bind /dev/pts "$r/dev/pts"
}

# PIDs of the processes whose root directory is ROOT.
_pgr_pids_in() {
	local p r
	for p in /proc/[0-9]*; do
		r=$(readlink "$p/root" 2>/dev/null) || continue
		[ "$r" = "$1" ] && echo "${p#/proc/}"
	done
	return 0
}

_pgr_comm() { cat "/proc/$1/comm" 2>/dev/null || true; }
_pgr_ppid() { awk '{ sub(/^.*\) /, ""); print $2 }' "/proc/$1/stat" 2>/dev/null || true; }

# Stops the PostgreSQL servers (fast shutdown: SIGINT to each postmaster,
# then SIGKILL after 20 s), then any other process still rooted in ROOT.
_pgr_stop_procs() {
	local root=$1 pids p pp n=0 postmasters=()
	pids=$(_pgr_pids_in "$root")
	[ -n "$pids" ] || return 0
	for p in $pids; do
		[ "$(_pgr_comm "$p")" = postgres ] || continue
		pp=$(_pgr_ppid "$p")
		if [ "$(_pgr_comm "$pp")" = postgres ] &&
			[ "$(readlink "/proc/$pp/root" 2>/dev/null)" = "$root" ]; then
			continue	# a backend or auxiliary process
		fi
		postmasters+=("$p")
	done
	if [ "${#postmasters[@]}" -gt 0 ]; then
		_pgr_msg "stopping PostgreSQL in $root (postmaster pid ${postmasters[*]})"
		kill -INT "${postmasters[@]}" 2>/dev/null || true
		while [ $n -lt 200 ]; do
			pids=$(_pgr_pids_in "$root")
			local left=0
			for p in $pids; do
				[ "$(_pgr_comm "$p")" = postgres ] && left=1
			done
			[ $left -eq 0 ] && break
			sleep 0.1
			n=$((n + 1))
		done
	fi
	pids=$(_pgr_pids_in "$root")
	[ -n "$pids" ] || return 0
	_pgr_msg "terminating processes left in $root: $(tr '\n' ' ' <<<"$pids")"
	# shellcheck disable=SC2086
	kill -TERM $pids 2>/dev/null || true
	for n in $(seq 50); do
		[ -n "$(_pgr_pids_in "$root")" ] || return 0
		sleep 0.1
	done
	pids=$(_pgr_pids_in "$root")
	# shellcheck disable=SC2086
	[ -z "$pids" ] || kill -KILL $pids 2>/dev/null || true
	sleep 0.2
}

# Stops what runs in ROOT and unmounts everything under it.  Safe to repeat.
_pgr_teardown() {
	local root=$1 m
	[ -d "$root" ] || return 0
	_pgr_stop_procs "$root"
	while IFS= read -r m; do
		[ -n "$m" ] || continue
		[ "$m" = "$root" ] && continue
		if ! umount "$m" 2>/dev/null; then
			_pgr_msg "warning: $m busy, detaching it (umount -l)"
			umount -l "$m" || true
		fi
	done < <(_pgr_mounts_under "$root")
	if [ -n "$(_pgr_mounts_under "$root" | grep -vxF "$root" || true)" ]; then
		_pgr_die "still mounted under $root: $(_pgr_mounts_under "$root" | tr '\n' ' ')"
	fi
}

# Users of the mounts: DIR.users/PID (live runs) and DIR.users/hold
# (pgchroot_mount).  Stale PIDs are dropped.
_pgr_in_use() {
	local f name busy=1
	for f in "$USERS"/*; do
		[ -e "$f" ] || continue
		name=${f##*/}
		if [ "$name" = hold ]; then
			busy=0
		elif kill -0 "$name" 2>/dev/null; then
			busy=0
		else
			rm -f "$f"
		fi
	done
	return $busy
}

_pgr_acquire() {	# ID: mount (if needed) and register as a user
	_pgr_lock
	mkdir -p "$USERS"
	_pgr_do_mount
	: >"$USERS/$1"
	_pgr_unlock
}

_pgr_release() {	# ID: unregister; the last one out stops and unmounts
	_pgr_lock
	rm -f "$USERS/$1"
	if ! _pgr_in_use; then
		_pgr_teardown "$DIR"
	fi
	_pgr_unlock
}

# ---- ensure ----------------------------------------------------------------

_pgr_packages() {	# VER -> the package list, one line, sorted
	local v=$1 p=()
	p+=("postgresql-$v" "postgresql-client-$v" "postgresql-server-dev-$v")
	# Not for a version that only an extra suite has (19: experimental has
	# no pglogical or wal2json for it, whose tests skip; postgresql-all and
	# postgresql-server-dev-all, the Debian package's build dependencies,
	# would bring sid's default PostgreSQL beside it, and scripts/test.sh
	# builds no package there).
	if [ -z "$(pgchroot_extra_suite "$v")" ]; then
		p+=("postgresql-$v-pglogical" postgresql-server-dev-all postgresql-all)
		# test/t/020_cdc.pl decodes changes with wal2json
		p+=("postgresql-$v-wal2json")
		# test/t/024_patroni.pl and 025_pgbackrest.pl: the suite's own
		# Patroni (4 in trixie and sid: 3 in Debian 12 knows no 17),
		# etcd and pgBackRest
		p+=(patroni python3-etcd etcd-server etcd-client pgbackrest)
		# test/t/021_time_windows.pl: the suite's pg_partman (5 in trixie
		# and sid) with pg_cron running its maintenance
		p+=("postgresql-$v-partman" "postgresql-$v-cron")
	fi
	# The production parts that do not depend on the server's version, at
	# the suite's own versions (19: sid's): PgBouncer (test/t/023), the
	# exporters, Prometheus with promtool and Alertmanager with amtool
	# (test/t/022, 026), curl
	p+=(pgbouncer prometheus-postgres-exporter prometheus-sql-exporter prometheus
		prometheus-alertmanager curl)
	# test/t/023_pgbouncer.pl: pgjdbc and psycopg 3 through the pooler
	p+=(libpostgresql-jdbc-java default-jdk-headless python3-psycopg)
	p+=(uuid-dev libssl-dev make gcc libc6-dev perl libipc-run-perl)
	# test/t/010_scylla_migration.pl reads ScyllaDB's files with Python
	p+=(python3)
	# The client libraries of clients/ at the suite's versions: Python's
	# drivers and ORMs (Django 4.2 in trixie, 5.2 in sid; SQLAlchemy 2.0; Peewee),
	# the tools that build a wheel and a venv; Node.js and npm; Ruby with
	# ActiveRecord and ruby-pg; Go with pgx from Debian's Go sources.
	p+=(python3-django python3-sqlalchemy python3-peewee python3-psycopg2 python3-asyncpg
		python3-build python3-venv python3-pip python3-setuptools python3-wheel)
	p+=(nodejs npm ruby ruby-activerecord ruby-pg golang-go
		golang-github-jackc-pgx-v4-dev ca-certificates)
	if [ "$(pgchroot_suite "$v")" != trixie ]; then
		p+=(golang-github-jackc-pgx-v5-dev)
	fi
	p+=(build-essential dpkg-dev debhelper)
	if [ "${COUNTER_CRDT_CHROOT_CLANG:-0}" = 1 ]; then
		p+=(clang libclang-rt-dev)
	fi
	# shellcheck disable=SC2206
	p+=(${COUNTER_CRDT_CHROOT_EXTRA_PACKAGES:-})
	printf '%s\n' "${p[@]}" | sort -u | tr '\n' ' ' | sed 's/ $//'
}

# The host's Debian mirror: the first "deb" source of the host's own suite
# (VERSION_CODENAME), one-line or deb822 format.
_pgr_mirror() {
	if [ -n "${COUNTER_CRDT_CHROOT_MIRROR:-}" ]; then
		echo "$COUNTER_CRDT_CHROOT_MIRROR"
		return
	fi
	local cn f url=
	# shellcheck disable=SC1091
	cn=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
	[ -n "$cn" ] || _pgr_die "no VERSION_CODENAME in /etc/os-release: set COUNTER_CRDT_CHROOT_MIRROR"
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		url=$(awk -v cn="$cn" '
			$1 == "deb" {
				i = 2
				if ($i ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ }
				if ($(i + 1) == cn) { print $i; exit }
			}' "$f")
		[ -z "$url" ] || break
	done
	if [ -z "$url" ]; then
		for f in /etc/apt/sources.list.d/*.sources; do
			[ -f "$f" ] || continue
			url=$(awk -v cn="$cn" '
				BEGIN { RS = ""; FS = "\n" }
				{
					types = ""; uris = ""; suites = ""; enabled = "yes"
					for (i = 1; i <= NF; i++) {
						if ($i ~ /^[ \t]*#/) continue
						k = $i; sub(/:.*/, "", k); v = $i; sub(/^[^:]*:[ \t]*/, "", v)
						k = tolower(k)
						if (k == "types") types = " " v " "
						else if (k == "uris") uris = v
						else if (k == "suites") suites = " " v " "
						else if (k == "enabled") enabled = tolower(v)
					}
					if (enabled != "no" && types ~ / deb / && suites ~ (" " cn " ")) {
						split(uris, u, /[ \t]+/); print u[1]; exit
					}
				}' "$f")
			[ -z "$url" ] || break
		done
	fi
	[ -n "$url" ] || _pgr_die "no Debian mirror for '$cn' in the host's apt sources: set COUNTER_CRDT_CHROOT_MIRROR"
	echo "$url"
}

_pgr_check_space() {	# MB needed
	local need=$1 free fs
	free=$(df -Pk "$PARENT" | awk 'NR == 2 { print int($4 / 1024) }')
	fs=$(df -P "$PARENT" | awk 'NR == 2 { print $6 }')
	if [ "$free" -lt "$need" ]; then
		_pgr_die "not enough disk space for the PostgreSQL $VER chroot in $PARENT: needs $need MB free, $free MB free on $fs (set COUNTER_CRDT_CHROOT_CACHE elsewhere)"
	fi
}

_pgr_spec() {	# what the stamp records and compares
	echo "format 1"
	echo "version $VER"
	echo "suite $SUITE"
	[ -z "$EXTRA_SUITE" ] || echo "extra-suite $EXTRA_SUITE"
	echo "packages $(_pgr_packages "$VER")"
}

_PGR_NOJIT=counter-crdt-nojit

# The base system: debootstrap into DIR.new, renamed DIR when complete.
_pgr_bootstrap() {
	local mirror incl=()
	mirror=$(_pgr_mirror)
	case "$mirror" in https:*) incl=(--include=ca-certificates) ;; esac
	_pgr_teardown "$DIR.new"
	rm -rf --one-file-system "$DIR.new"
	_pgr_msg "debootstrap --variant=minbase $SUITE $DIR $mirror"
	echo "+ debootstrap --variant=minbase ${incl[*]} $SUITE $DIR.new $mirror" >>"$LOG"
	if ! debootstrap --variant=minbase "${incl[@]}" "$SUITE" "$DIR.new" "$mirror" >>"$LOG" 2>&1; then
		tail -n 30 "$LOG" >&2
		_pgr_teardown "$DIR.new"
		_pgr_die "debootstrap of $SUITE failed (log: $LOG)"
	fi
	mv "$DIR.new" "$DIR"
}

# Configuration written on every install step (idempotent).
_pgr_configure() {
	local r=$DIR
	if [ -e /etc/resolv.conf ]; then
		cp -L --remove-destination /etc/resolv.conf "$r/etc/resolv.conf" 2>/dev/null || true
	fi
	# No daemon starts from a package's maintainer scripts.
	printf '#!/bin/sh\n# counter_crdt chroot: start no services\nexit 101\n' >"$r/usr/sbin/policy-rc.d"
	chmod 755 "$r/usr/sbin/policy-rc.d"
	# sid's Release is often past its Valid-Until; lists stay gzipped (and
	# are deleted after each install step: apt-get update before using apt).
	cat >"$r/etc/apt/apt.conf.d/99counter-crdt-chroot" <<-'EOF'
		// counter_crdt chroot (scripts/pgchroot.sh)
		Acquire::Check-Valid-Until "false";
		Acquire::Retries "3";
		Acquire::Languages "none";
		Acquire::GzipIndexes "true";
		Acquire::CompressionTypes::Order:: "gz";
		APT::Install-Recommends "false";
		APT::Install-Suggests "false";
		Dpkg::Options { "--force-confdef"; "--force-confold"; };
	EOF
	_pgr_experimental
	# No documentation, man pages or translations.
	cat >"$r/etc/dpkg/dpkg.cfg.d/99counter-crdt-chroot" <<-'EOF'
		# counter_crdt chroot (scripts/pgchroot.sh)
		path-exclude=/usr/share/doc/*
		path-exclude=/usr/share/man/*
		path-exclude=/usr/share/info/*
		path-exclude=/usr/share/locale/*
		path-include=/usr/share/locale/locale.alias
	EOF
	# ... but OpenJDK's postinst links its man page there and fails without
	# the directory
	mkdir -p "$r/usr/share/man/man1"
}

# For a version that only EXTRA_SUITE has (19: experimental), that suite
# in the sources and its PostgreSQL VER packages (and libpq, which they
# need at their own version) pinned to 500, so that apt takes those from it
# and everything else from SUITE (experimental is NotAutomatic: priority 1
# unless pinned).
_pgr_experimental() {
	local r=$DIR
	if [ -z "$EXTRA_SUITE" ]; then
		rm -f "$r/etc/apt/sources.list.d/counter-crdt-extra.list" \
			"$r/etc/apt/preferences.d/counter-crdt-extra"
		return
	fi
	echo "deb $(_pgr_mirror) $EXTRA_SUITE main" >"$r/etc/apt/sources.list.d/counter-crdt-extra.list"
	cat >"$r/etc/apt/preferences.d/counter-crdt-extra" <<-EOF
		# counter_crdt chroot (scripts/pgchroot.sh): PostgreSQL $VER from $EXTRA_SUITE
		Package: /^postgresql-(client-|server-dev-)?$VER(-.*)?\$/
		Pin: release a=$EXTRA_SUITE
		Pin-Priority: 500

		# libpq of the same source: its client and -dev need that version
		Package: libpq5 libpq-dev
		Pin: release a=$EXTRA_SUITE
		Pin-Priority: 500
	EOF
}

# The dummy package standing in for the JIT toolchain that
# postgresql-server-dev-VER depends on, and the pin that keeps the real one
# out.
_pgr_nojit() {
	local deps d v provides=() names=() w=/var/lib/counter-crdt-chroot
	deps=$(_pgr_in apt-cache depends --no-recommends --no-suggests --no-conflicts \
		--no-breaks --no-replaces --no-enhances \
		"postgresql-server-dev-$VER" postgresql-server-dev-all |
		sed -nE 's/^ *\|?Depends: <?((clang|llvm)-[0-9]+(-dev)?)>?$/\1/p' | sort -u)
	for d in $deps; do
		if [ "${COUNTER_CRDT_CHROOT_CLANG:-0}" = 1 ] && [[ $d == clang-* ]]; then
			continue	# the real clang is wanted
		fi
		v=$(_pgr_in apt-cache madison "$d" | awk -F'|' 'NR == 1 { gsub(/ /, "", $2); print $2 }')
		names+=("$d")
		provides+=("$d${v:+ (= $v)}")
	done
	mkdir -p "$DIR$w/nojit/DEBIAN"
	{
		echo "Package: $_PGR_NOJIT"
		echo "Version: 1"
		echo "Architecture: all"
		echo "Maintainer: counter_crdt test chroot <root@localhost>"
		echo "Section: misc"
		echo "Priority: optional"
		if [ "${#provides[@]}" -gt 0 ]; then
			echo "Provides: $(printf '%s, ' "${provides[@]}" | sed 's/, $//')"
		fi
		echo "Description: stands in for the JIT toolchain (counter_crdt test chroot)"
		echo " postgresql-server-dev-$VER depends on clang and llvm-dev only for the"
		echo " LLVM bitcode of PGXS builds (with_llvm), which this chroot does not"
		echo " build (see scripts/pgchroot.sh of counter_crdt)."
	} >"$DIR$w/nojit/DEBIAN/control"
	_pgr_in_logged dpkg-deb --root-owner-group --build "$w/nojit" "$w/$_PGR_NOJIT.deb"
	_pgr_in_logged dpkg -i "$w/$_PGR_NOJIT.deb"
	if [ "${#names[@]}" -gt 0 ]; then
		printf 'Package: %s\nPin: release *\nPin-Priority: -1\n' "${names[*]}" \
			>"$DIR/etc/apt/preferences.d/counter-crdt-nojit"
	else
		rm -f "$DIR/etc/apt/preferences.d/counter-crdt-nojit"
	fi
	NOJIT_PROVIDES="${provides[*]:-none}"
}

# Each pgxs Makefile.global: diverted (dpkg-divert, so upgrades of the -dev
# package go to the diverted name) to a wrapper with with_llvm = no.
_pgr_divert_makefile_global() {
	local g c
	for g in "$DIR"/usr/lib/postgresql/*/lib/pgxs/src/Makefile.global \
		"$DIR"/usr/lib/postgresql/*/lib/pgxs/src/Makefile.global.with-llvm; do
		[ -e "$g" ] || continue
		c=${g#"$DIR"}
		c=${c%.with-llvm}
		if [ "$(_pgr_in dpkg-divert --listpackage "$c")" != "$_PGR_NOJIT" ]; then
			_pgr_in_logged dpkg-divert --package "$_PGR_NOJIT" --rename \
				--divert "$c.with-llvm" --add "$c"
		fi
		cat >"$DIR$c" <<-EOF
			# counter_crdt chroot (scripts/pgchroot.sh): the JIT toolchain
			# (clang, llvm-dev) is not installed, so PGXS builds no LLVM bitcode.
			# The original, diverted by dpkg-divert:
			include $c.with-llvm
			with_llvm = no
		EOF
	done
}

# A PGXS build of a trivial C extension, to prove headers and pg_config.
_pgr_selftest() {
	local t=/tmp/counter-crdt-chroot-selftest
	rm -rf "$DIR$t"
	mkdir -p "$DIR$t"
	cat >"$DIR$t/selftest.c" <<-'EOF'
		#include "postgres.h"
		#include "fmgr.h"
		PG_MODULE_MAGIC;
		PG_FUNCTION_INFO_V1(selftest_add);
		Datum selftest_add(PG_FUNCTION_ARGS);
		Datum
		selftest_add(PG_FUNCTION_ARGS)
		{
			PG_RETURN_INT32(PG_GETARG_INT32(0) + PG_GETARG_INT32(1));
		}
	EOF
	# shellcheck disable=SC2016
	printf 'MODULES = selftest\nPG_CONFIG ?= pg_config\nPGXS := $(shell $(PG_CONFIG) --pgxs)\ninclude $(PGXS)\n' \
		>"$DIR$t/Makefile"
	_pgr_in_logged make -C "$t" PG_CONFIG="/usr/lib/postgresql/$VER/bin/pg_config"
	[ -f "$DIR$t/selftest.so" ] || _pgr_die "the PGXS self-test built no selftest.so (log: $LOG)"
	rm -rf "$DIR$t"
}

_pgr_slim() {
	local r=$DIR
	_pgr_in_logged apt-get clean
	rm -rf "$r"/usr/share/doc/* "$r"/usr/share/man/* "$r"/usr/share/info/*
	find "$r/usr/share/locale" -mindepth 1 -maxdepth 1 ! -name locale.alias \
		-exec rm -rf {} + 2>/dev/null || true
	rm -f "$r"/var/cache/debconf/*-old "$r"/var/lib/dpkg/*-old
	rm -rf "$r"/var/cache/apt/*.bin "$r"/var/lib/apt/lists/*
}

_pgr_install() {
	local pkgs
	pkgs=$(_pgr_packages "$VER")
	_pgr_configure
	_pgr_msg "installing into $DIR (log: $LOG)"
	_pgr_in_logged apt-get update
	# an install step stopped half-way (killed) left packages unconfigured
	_pgr_in_logged dpkg --configure -a
	# postgresql-common first: createcluster.conf (ucf-managed) must say
	# create_main_cluster = false before postgresql-VER is configured.
	_pgr_in_logged apt-get install -y postgresql-common
	sed -i -E 's/^[#[:space:]]*create_main_cluster[[:space:]]*=.*/create_main_cluster = false/' \
		"$DIR/etc/postgresql-common/createcluster.conf"
	grep -qx 'create_main_cluster = false' "$DIR/etc/postgresql-common/createcluster.conf" ||
		echo 'create_main_cluster = false' >>"$DIR/etc/postgresql-common/createcluster.conf"
	_pgr_nojit
	# shellcheck disable=SC2086
	_pgr_in_logged apt-get install -y $pkgs
	_pgr_divert_makefile_global
	_pgr_in pg_config --version >/dev/null 2>&1 ||
		_pgr_die "no pg_config in the chroot after the install (log: $LOG)"
	[ -x "$DIR/usr/lib/postgresql/$VER/bin/pg_config" ] ||
		_pgr_die "no /usr/lib/postgresql/$VER/bin/pg_config in the chroot (log: $LOG)"
	_pgr_selftest
	_pgr_slim
	{
		_pgr_spec
		echo "# mirror $(_pgr_mirror)"
		echo "# nojit $NOJIT_PROVIDES"
		echo "# $(_pgr_in pg_config --version)"
		echo "# installed $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	} >"$DIR/etc/counter-crdt-chroot.stamp"
}

# The certificate authorities this machine adds to Debian's (its
# /usr/local/share/ca-certificates: a TLS-inspecting egress trusts its own),
# trusted in the chroot too, and npm told to use the system's bundle, as
# this machine's /etc/npmrc does: test/t/031's npm reaches the registry from
# the chroot as from here.  Run on every ensure, so that a chroot made
# elsewhere follows this machine.
_pgr_trust_host_cas() {
	local d=/usr/local/share/ca-certificates
	[ -x "$DIR/usr/sbin/update-ca-certificates" ] || return 0
	mkdir -p "$DIR$d"
	if ! diff -rq "$d" "$DIR$d" >/dev/null 2>&1; then
		rm -rf "${DIR:?}$d"/*
		if [ -d "$d" ]; then cp -a "$d/." "$DIR$d/"; fi
		_pgr_in_logged update-ca-certificates --fresh
	fi
	echo "cafile=/etc/ssl/certs/ca-certificates.crt" >"$DIR/etc/npmrc"
}

_pgr_ensure() {
	local t0 how stamp need
	t0=$(_pgr_now)
	_pgr_lock
	stamp="$DIR/etc/counter-crdt-chroot.stamp"
	if [ -f "$stamp" ] && [ "$(grep -v '^#' "$stamp")" = "$(_pgr_spec)" ]; then
		how=reused
	else
		if [ -d "$DIR/usr" ] && [ -f "$DIR/etc/debian_version" ]; then
			how=updated
			need=800
		else
			how=created
			need=${COUNTER_CRDT_CHROOT_NEED_MB:-2500}
		fi
		_pgr_check_space "$need"
		: >"$LOG"
		if [ "$how" = created ]; then
			if [ -e "$DIR" ]; then	# not a chroot: left half-made
				_pgr_teardown "$DIR"
				rm -rf --one-file-system "$DIR"
			fi
			_pgr_bootstrap
		fi
		mkdir -p "$USERS"
		trap '_pgr_release ensure-$$' EXIT
		_pgr_acquire "ensure-$$"
		_pgr_install
		_pgr_release "ensure-$$"
		trap - EXIT
	fi
	_pgr_trust_host_cas
	_pgr_unlock
	_pgr_msg "PostgreSQL $VER chroot ($SUITE) $how in $(_pgr_since "$t0") s: $DIR, $(du -sh -x "$DIR" 2>/dev/null | cut -f1)"
}

# ---- stage -------------------------------------------------------------------
# This machine's PostgreSQL PGVER (Debian's layout: /usr/lib/postgresql/PGVER,
# /usr/share/postgresql/PGVER), extensions installed in it included, copied
# into the chroot under DEST (an absolute path inside it, which must not
# exist yet): DEST/usr/lib/postgresql/PGVER/bin is then its bindir, and its
# share and lib directories are found from there as PostgreSQL finds them
# (relative to the binaries).  The shared libraries its programs and modules
# need that the chroot lacks (another Debian release has other sonames: ICU,
# LDAP) are copied from this machine into its lib directory, which is what
# PostgreSQL::Test::Cluster puts on LD_LIBRARY_PATH for an install_path; the
# JIT, PL/Perl and PL/Python modules (and their large libraries) are left out.
# For tests that need an older server beside the chroot's own (pg_upgrade).
_pgr_stage() {
	local pgver=$1 dest=$2 root lib missing l p round
	[[ $pgver =~ ^[0-9]+$ ]] || _pgr_die "stage: not a major version: $pgver"
	[[ $dest == /* ]] || _pgr_die "stage: DEST must be an absolute path inside the chroot: $dest"
	[ -d "/usr/lib/postgresql/$pgver/bin" ] || _pgr_die "stage: no PostgreSQL $pgver on this machine"
	[ -f "$DIR/etc/counter-crdt-chroot.stamp" ] ||
		_pgr_die "no chroot for PostgreSQL $VER at $DIR: pgchroot_ensure $VER first"
	root="$DIR$dest"
	[ ! -e "$root" ] || _pgr_die "stage: $root exists"
	mkdir -p "$root/usr/lib/postgresql" "$root/usr/share/postgresql"
	cp -a "/usr/lib/postgresql/$pgver" "$root/usr/lib/postgresql/"
	cp -a "/usr/share/postgresql/$pgver" "$root/usr/share/postgresql/"
	lib="$root/usr/lib/postgresql/$pgver/lib"
	rm -rf "$lib"/llvmjit* "$lib/bitcode" "$lib/pgxs" "$lib"/*plperl* "$lib"/*plpython* "$lib"/*.a
	for round in 1 2 3 4 5; do
		missing=$(_pgr_in env LD_LIBRARY_PATH="$dest/usr/lib/postgresql/$pgver/lib" sh -c \
			'for f in "$1"/bin/* "$1"/lib/*.so*; do ldd "$f" 2>/dev/null; done; true' sh \
			"$dest/usr/lib/postgresql/$pgver" | awk '/ => not found/ { print $1 }' | sort -u)
		[ -n "$missing" ] || break
		for l in $missing; do
			p=$(ldconfig -p | awk -v l="$l" '$1 == l && /x86-64/ && p == "" { p = $NF } END { print p }')
			[ -n "$p" ] || _pgr_die "stage: $l, which PostgreSQL $pgver needs, is on neither system"
			cp -L "$p" "$lib/"
		done
	done
	[ -z "$missing" ] || _pgr_die "stage: libraries still missing: $missing"
	chmod -R a+rX "$root"
	_pgr_msg "PostgreSQL $pgver of this machine staged at $dest in the PostgreSQL $VER chroot ($(du -sh "$root" | cut -f1))"
}

# ---- run ---------------------------------------------------------------------

_PGR_CHILD=
_PGR_SIGNAL=
_pgr_on_signal() {
	_PGR_SIGNAL=$1
	if [ -n "$_PGR_CHILD" ]; then
		kill -TERM "$_PGR_CHILD" 2>/dev/null || true
	fi
}

_pgr_run() {
	local user=root cwd=/ envs=() home p rc=0
	while [ $# -gt 0 ]; do
		case "$1" in
		-u | --user) user=$2; shift 2 ;;
		--cwd) cwd=$2; shift 2 ;;
		--env) envs+=("$2"); shift 2 ;;
		--) shift; break ;;
		-*) _pgr_die "run: unknown option $1" ;;
		*) break ;;
		esac
	done
	_pgr_setup "${1:-}"
	shift
	[ "${1:-}" != -- ] || shift
	[ $# -gt 0 ] || _pgr_die "run: no command (run [--user U] [--cwd DIR] [--env K=V] VER [--] CMD...)"
	[ -f "$DIR/etc/counter-crdt-chroot.stamp" ] ||
		_pgr_die "no chroot for PostgreSQL $VER at $DIR: pgchroot_ensure $VER first"
	home=$(awk -F: -v u="$user" '$1 == u { print $6 }' "$DIR/etc/passwd")
	[ -n "$home" ] || _pgr_die "run: no user '$user' in the PostgreSQL $VER chroot"
	local inner=(env -i -C "$cwd" "HOME=$home" "USER=$user" "LOGNAME=$user" LANG=C.UTF-8
		"PATH=/usr/lib/postgresql/$VER/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
		${envs[@]+"${envs[@]}"} "$@")
	if [ "$user" != root ]; then
		inner=(runuser -u "$user" -- "${inner[@]}")
	fi

	trap '_pgr_on_signal 130' INT
	trap '_pgr_on_signal 143' TERM
	trap '_pgr_on_signal 129' HUP
	trap '_pgr_release $$' EXIT
	_pgr_acquire $$
	[ -z "$_PGR_SIGNAL" ] || exit "$_PGR_SIGNAL"
	# In the background, so that a signal to this process is handled at
	# once (forwarded to CMD); stdin stays the caller's, and SIGINT/SIGQUIT
	# are not ignored (as bash does for background commands).
	(
		trap - INT QUIT
		exec chroot "$DIR" "${inner[@]}"
	) 0<&0 &
	_PGR_CHILD=$!
	while :; do
		rc=0
		wait "$_PGR_CHILD" || rc=$?
		kill -0 "$_PGR_CHILD" 2>/dev/null || break
	done
	_PGR_CHILD=
	if [ -n "$_PGR_SIGNAL" ]; then
		exit "$_PGR_SIGNAL"
	fi
	exit "$rc"
}

# ---- main ----------------------------------------------------------------

_pgr_main() {
	local cmd=${1:-}
	[ $# -eq 0 ] || shift
	case "$cmd" in
	suite) pgchroot_suite "$@" ;;
	extra-suite) pgchroot_extra_suite "$@" ;;
	dir) pgchroot_dir "$@" ;;
	mirror) _pgr_mirror ;;
	packages)
		pgchroot_suite "${1:-}" >/dev/null || exit 2
		_pgr_packages "$1"
		;;
	ensure)
		_pgr_need_root
		_pgr_setup "$@"
		_pgr_ensure
		;;
	mount)
		_pgr_need_root
		_pgr_setup "$@"
		[ -f "$DIR/etc/counter-crdt-chroot.stamp" ] ||
			_pgr_die "no chroot for PostgreSQL $VER at $DIR: pgchroot_ensure $VER first"
		_pgr_acquire hold
		;;
	umount)
		_pgr_need_root
		_pgr_setup "$@"
		_pgr_lock
		rm -f "$USERS/hold"
		if _pgr_in_use; then
			_pgr_msg "warning: unmounting $DIR while a pgchroot_run still uses it"
		fi
		_pgr_teardown "$DIR"
		_pgr_unlock
		;;
	run)
		_pgr_need_root
		_pgr_run "$@"
		;;
	stage)
		_pgr_need_root
		_pgr_setup "${1:-}"
		[ $# -eq 3 ] || _pgr_die "usage: stage VER PGVER DEST"
		_pgr_stage "$2" "$3"
		;;
	clean)
		_pgr_need_root
		_pgr_setup "$@"
		_pgr_lock
		_pgr_teardown "$DIR"
		_pgr_teardown "$DIR.new"
		if [ -n "$(_pgr_mounts_under "$DIR")$(_pgr_mounts_under "$DIR.new")" ]; then
			_pgr_die "still mounted under $DIR: not deleting"
		fi
		rm -rf --one-file-system "$DIR" "$DIR.new" "$USERS" "$LOG"
		rm -f "$DIR.lock"
		_pgr_unlock
		_pgr_msg "removed $DIR"
		;;
	*)
		cat >&2 <<-EOF
			usage: bash $0 ensure|mount|umount|clean|dir|suite|packages VER
			       bash $0 mirror
			       bash $0 stage VER PGVER DEST
			       bash $0 run [--user U] [--cwd DIR] [--env K=V]... VER [--] CMD...
			VER: 17 (Debian trixie), 18 (Debian sid) or 19 (sid, experimental)
		EOF
		exit 2
		;;
	esac
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	set -euo pipefail
	_pgr_main "$@"
fi
