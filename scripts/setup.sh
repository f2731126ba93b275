#!/usr/bin/env bash
#
# setup.sh: installs what building and testing counter_crdt needs (Debian 12,
# PostgreSQL 15; debootstrap for the 17 and 18 chroots of scripts/test.sh),
# then builds and installs the extension.  Idempotent: it
# installs only missing packages (apt-get update only then) and make rebuilds
# only what changed.
#
#   bash scripts/setup.sh            # as root
#   PG_CONFIG=/path/to/pg_config bash scripts/setup.sh
#
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
# shellcheck source=scripts/pgcluster.sh
source "$ROOT/scripts/pgcluster.sh"

say() { echo "setup: $*"; }
die() { echo "setup: ERROR: $*" >&2; exit 1; }

PACKAGES=(postgresql-15 postgresql-server-dev-15 make gcc libc6-dev libipc-run-perl libssl-dev uuid-dev)
# The sanitizer and libFuzzer builds of the core tests: clang and its runtime
# libraries (libclang_rt.asan, .fuzzer, .ubsan), which clang does not pull in.
PACKAGES+=(clang libclang-rt-dev)
# The Debian package (debian/, built and installed by scripts/test.sh): the
# tools of dpkg-buildpackage and its Build-Depends (postgresql-all only for the
# build-time test that a plain dpkg-buildpackage runs).
# build-essential is a Build-Depends of every package (dpkg-checkbuilddeps
# refuses to build without it, even when gcc and make are there).
PACKAGES+=(build-essential dpkg-dev debhelper postgresql-server-dev-all postgresql-all)
# pglogical, for the "With pglogical" recipe of doc/replication.md and test/t/012_pglogical.pl
PACKAGES+=(postgresql-15-pglogical)
# test/t/010_scylla_migration.pl reads ScyllaDB's files with Python
PACKAGES+=(python3)
# wal2json, the logical decoding output plugin of doc/change-data-capture.md
# and test/t/020_cdc.pl
PACKAGES+=(postgresql-15-wal2json)
# scripts/test.sh tests PostgreSQL 17 and 18 in chroots made with debootstrap
# (scripts/pgchroot.sh)
PACKAGES+=(debootstrap)
# The client drivers of doc/clients.md, tested by test/t/019_clients.pl:
# psycopg 3 (for Debian's /usr/bin/python3), pgjdbc and a JDK to run it, and
# node-postgres, which npm installs below from test/clients/node's lock file.
# npm only where no npm is there yet: NodeSource's nodejs brings its own and
# conflicts with Debian's.
PACKAGES+=(python3-psycopg libpostgresql-jdbc-java default-jdk-headless nodejs)
# scripts/test.sh's builds 15-cassert and 15-valgrind: PostgreSQL 15 built
# from Debian's source package (scripts/pgcassert.sh; the source tarball has
# its parser files made, so no bison or flex; with OpenSSL and libxml, as
# Debian's server), its server run under Valgrind.
PACKAGES+=(valgrind libxml2-dev)
# The production parts of doc/time-windows.md, doc/metrics.md and
# doc/pooling.md: pg_partman for time windows, the Prometheus exporter that
# scrapes the metrics, pgbouncer in front of a server (test/t/021-023; curl
# scrapes the exporter, pgbench drives the pooler).
PACKAGES+=(postgresql-15-partman prometheus-postgres-exporter pgbouncer curl)
# pg_cron runs pg_partman's maintenance in doc/time-windows.md; the SQL
# exporter is what doc/metrics.md recommends where postgres_exporter's
# queries file is deprecated; Prometheus (with promtool) loads the rules of
# monitoring/ (test/t/022, 026), and Alertmanager (with amtool) routes the
# alerts of doc/alerting.md (test/t/026).
PACKAGES+=(postgresql-15-cron prometheus-sql-exporter prometheus prometheus-alertmanager)
# High availability (doc/high-availability.md, doc/backups.md, test/t/024 and
# 025): Patroni with etcd (etcd-server has the daemon, etcd-client etcdctl),
# and pgBackRest.  Their package scripts try to start the daemons: the
# policy-rc.d below keeps them stopped.
PACKAGES+=(patroni python3-etcd etcd-server etcd-client pgbackrest)
# The client libraries of clients/ (doc/python.md, doc/node.md, doc/ruby.md,
# doc/go.md, doc/java.md), each built into its package and installed as a
# user would: Python's drivers and ORMs with the tools that build a wheel and
# a venv to install it into; Ruby with ActiveRecord and ruby-pg (gem build,
# gem install); Go with pgx from Debian's Go sources; Java's Maven, offline
# from /usr/share/maven-repo, with the plugins its pom pins (Debian 12's
# versions), JUnit 4 and exec:java for the page's programs.
PACKAGES+=(python3-django python3-sqlalchemy python3-peewee python3-psycopg2 python3-asyncpg
	python3-build python3-venv python3-pip python3-setuptools python3-wheel)
PACKAGES+=(ruby ruby-activerecord ruby-pg)
PACKAGES+=(golang-go golang-github-jackc-pgx-v4-dev)
PACKAGES+=(maven junit4 libmaven-resources-plugin-java libmaven-compiler-plugin-java
	libsurefire-java libmaven-jar-plugin-java libmaven-install-plugin-java
	libexec-maven-plugin-java)
command -v npm >/dev/null 2>&1 || PACKAGES+=(npm)

installed()
{
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}

missing=()
if [ -n "${COUNTER_CRDT_IN_CHROOT:-}" ]; then
	# A chroot of scripts/pgchroot.sh (PostgreSQL 17 or 18, for
	# scripts/test.sh): pgchroot_ensure installed its packages, without the
	# JIT toolchain that this list would bring in.
	PACKAGES=()
	say "packages: those scripts/pgchroot.sh installed (PostgreSQL ${COUNTER_CRDT_IN_CHROOT})"
elif [ -n "${COUNTER_CRDT_BUILD:-}" ]; then
	# scripts/test.sh's run of the build of scripts/pgcassert.sh: the
	# packages are the host's, which its first run installed.
	PACKAGES=()
fi
for p in ${PACKAGES[@]+"${PACKAGES[@]}"}; do
	installed "$p" || missing+=("$p")
done

if [ -n "${COUNTER_CRDT_IN_CHROOT:-}${COUNTER_CRDT_BUILD:-}" ]; then
	:
elif [ "${#missing[@]}" -eq 0 ]; then
	say "packages present: ${PACKAGES[*]}"
else
	[ "$(id -u)" -eq 0 ] || die "must run as root to install: ${missing[*]}"
	say "installing: ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	aptlog=$(mktemp /tmp/setup-apt.XXXXXX)
	policy_made=0
	cleanup_apt()
	{
		if [ "$policy_made" -eq 1 ]; then rm -f /usr/sbin/policy-rc.d; fi
		rm -f "$aptlog"
	}
	pgc_at_exit cleanup_apt
	# Installing postgresql-15 creates and starts a "main" cluster on port
	# 5432; nothing here needs it, so keep the package scripts from starting
	# services (the Docker way), unless a policy is already in place.
	if [ ! -e /usr/sbin/policy-rc.d ]; then
		printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
		chmod 755 /usr/sbin/policy-rc.d
		policy_made=1
	fi
	online_before=$(pg_lsclusters -h 2>/dev/null | awk '$4 == "online" { print $1 "/" $2 }' || true)
	if ! apt-get update -qq -o DPkg::Lock::Timeout=300 >"$aptlog" 2>&1; then
		tail -n 30 "$aptlog" >&2
		die "apt-get update failed"
	fi
	if ! apt-get install -y -qq --no-install-recommends -o Dpkg::Use-Pty=0 -o DPkg::Lock::Timeout=300 \
		"${missing[@]}" >>"$aptlog" 2>&1; then
		tail -n 40 "$aptlog" >&2
		die "apt-get install failed"
	fi
	# If a packaged cluster got started anyway, stop the ones we started.
	if command -v pg_lsclusters >/dev/null 2>&1; then
		pg_lsclusters -h 2>/dev/null | awk '$4 == "online" { print $1 " " $2 }' |
			while read -r ver name; do
				if ! grep -qx "$ver/$name" <<<"$online_before"; then
					say "stopping packaged cluster $ver/$name started by the install"
					pg_ctlcluster "$ver" "$name" stop || true
				fi
			done
	fi
	for p in "${missing[@]}"; do
		installed "$p" || die "$p still not installed"
	done
	say "installed: ${missing[*]}"
fi

PG_CONFIG=$(pgc_pg_config) || die "no pg_config"
[ -x "$PG_CONFIG" ] || PG_CONFIG=$(command -v "$PG_CONFIG" || true)
if [ -z "$PG_CONFIG" ] || [ ! -x "$PG_CONFIG" ]; then
	die "pg_config not executable"
fi
export PG_CONFIG
say "pg_config: $PG_CONFIG ($("$PG_CONFIG" --version))"

# Build, showing compiler warnings and the full log only on failure.
run_make()
{
	local what=$1 log
	shift
	log=$(mktemp /tmp/setup-make.XXXXXX)
	if make -C "$ROOT" PG_CONFIG="$PG_CONFIG" "$@" >"$log" 2>&1; then
		grep -iE 'warning:' "$log" | sort -u | sed 's/^/setup:   /' || true
		rm -f "$log"
		say "$what: ok"
	else
		tail -n 150 "$log" >&2
		rm -f "$log"
		die "$what failed"
	fi
}

run_make "make" -j"$(nproc 2>/dev/null || echo 2)"
run_make "make install" install

# node-postgres, the version test/clients/node/package-lock.json pins, into
# test/clients/node/node_modules (not in git); again only when the lock file
# changed since the last install.
NODE_DIR=$ROOT/test/clients/node
if [ -z "${COUNTER_CRDT_IN_CHROOT:-}" ] && [ -f "$NODE_DIR/package-lock.json" ]; then
	if cmp -s "$NODE_DIR/package-lock.json" "$NODE_DIR/node_modules/.setup-lock.json"; then
		say "node-postgres: present ($NODE_DIR/node_modules)"
	else
		log=$(mktemp /tmp/setup-npm.XXXXXX)
		if (cd "$NODE_DIR" && npm ci --no-audit --no-fund --loglevel=error) >"$log" 2>&1; then
			cp "$NODE_DIR/package-lock.json" "$NODE_DIR/node_modules/.setup-lock.json"
			rm -f "$log"
			say "node-postgres: installed (npm ci in $NODE_DIR)"
		else
			tail -n 40 "$log" >&2
			rm -f "$log"
			die "npm ci in $NODE_DIR failed"
		fi
	fi
fi

# The server runs as the postgres OS user.  It needs no file of this tree
# (the extension is installed into $(pg_config --sharedir) and --pkglibdir,
# and pg_regress runs as a client); the TAP tests run from a copy.  Still,
# say so when that user cannot read the tree.
if [ "$(id -u)" -eq 0 ] && id postgres >/dev/null 2>&1; then
	if ! runuser -u postgres -- test -r "$ROOT/Makefile"; then
		say "note: the postgres OS user cannot read $ROOT (fine: tests use copies)"
	fi
fi
say "done"
