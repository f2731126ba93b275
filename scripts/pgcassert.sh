#!/usr/bin/env bash
#
# pgcassert.sh: PostgreSQL 15 built from Debian 12's source package with
# assertions (--enable-cassert --enable-debug) and Valgrind's client requests
# (-DUSE_VALGRIND, -O1), for scripts/test.sh's builds 15-cassert and
# 15-valgrind.  Built once into a cache beside the chroots and reused.
#
#   bash scripts/pgcassert.sh ensure    build unless cached; prints pg_config
#   bash scripts/pgcassert.sh dir       the install prefix
#   bash scripts/pgcassert.sh clean     delete it
#
# The source is "apt-get source postgresql-15" with its own apt lists (the
# host's mirror, deb-src lines of its suite and -updates: the host's apt
# configuration is not changed), the newest version whose files the mirror
# serves, unpacked without Debian's patches: those put the server's files at
# /usr/lib/postgresql/15 whatever the prefix, which would install over the
# system's PostgreSQL (the build stops if any configured path is outside the
# prefix).  Built with OpenSSL (as Debian's
# server, so counter_crdt hashes the same way), libxml (a test reads TOAST
# chunks with query_to_xml), TAP support (PGXS's
# PostgreSQL::Test modules), and the contrib modules the tests load:
# postgres_fdw, dblink, pg_walinspect.  Valgrind's suppressions of that
# source go to $(pg_config --sharedir)/valgrind.supp.  The build tree is deleted after
# the install.
#
# Environment:
#   COUNTER_CRDT_CHROOT_CACHE     parent directory (default /var/cache/counter_crdt)
#   COUNTER_CRDT_CASSERT_NEED_MB  free space needed for a build (default 2000)
#
# Needs root (apt-get, the cache); the files are readable by all.  One lock
# (PREFIX.lock): concurrent callers wait, then reuse.  Log: PREFIX.log.
set -euo pipefail

SELF_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PARENT=${COUNTER_CRDT_CHROOT_CACHE:-/var/cache/counter_crdt}
PREFIX=$PARENT/pg15-cassert
LOG=$PREFIX.log
# What the stamp records: a change rebuilds.
CONFIGURE=(--enable-cassert --enable-debug --enable-tap-tests --with-openssl
	--with-libxml --without-icu --without-readline --without-lz4 --without-zstd)
CFLAGS_BUILD="-O1 -g -fno-omit-frame-pointer"
CPPFLAGS_BUILD="-DUSE_VALGRIND"
CONTRIB=(postgres_fdw dblink pg_walinspect)

say() { echo "pgcassert: $*" >&2; }
die() {
	echo "pgcassert: error: $*" >&2
	exit 1
}

spec() {
	echo "format 1"
	echo "configure ${CONFIGURE[*]}"
	echo "CFLAGS $CFLAGS_BUILD"
	echo "CPPFLAGS $CPPFLAGS_BUILD"
	echo "contrib ${CONTRIB[*]}"
}

ensure() {
	[ "$(id -u)" -eq 0 ] || die "needs root (apt-get source, $PARENT)"
	mkdir -p "$PARENT"
	exec 9>"$PREFIX.lock"
	flock 9
	if [ -f "$PREFIX/counter-crdt-cassert.stamp" ] &&
		[ "$(sed '/^version /d' "$PREFIX/counter-crdt-cassert.stamp")" = "$(spec)" ] &&
		[ -x "$PREFIX/bin/pg_config" ]; then
		echo "$PREFIX/bin/pg_config"
		return
	fi
	local free need=${COUNTER_CRDT_CASSERT_NEED_MB:-2000}
	free=$(df -Pk "$PARENT" | awk 'NR == 2 { print int($4 / 1024) }')
	[ "$free" -ge "$need" ] ||
		die "not enough disk space to build PostgreSQL 15 in $PARENT: needs $need MB free, $free MB free (set COUNTER_CRDT_CHROOT_CACHE elsewhere)"

	local t0=$SECONDS work mirror suite apt versions v got=
	rm -rf --one-file-system "$PREFIX" "$PREFIX.build"
	work=$PREFIX.build
	mkdir -p "$work/lists/partial" "$work/src"
	: >"$LOG"
	mirror=$(bash "$SELF_DIR/pgchroot.sh" mirror)
	# shellcheck disable=SC1091
	suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
	[ -n "$suite" ] || die "no VERSION_CODENAME in /etc/os-release"
	printf 'deb-src %s %s main\ndeb-src %s %s-updates main\n' \
		"$mirror" "$suite" "$mirror" "$suite" >"$work/sources.list"
	apt=(-o Dir::Etc::SourceList="$work/sources.list" -o Dir::Etc::SourceParts=/dev/null
		-o Dir::State::Lists="$work/lists" -o APT::Get::List-Cleanup=0
		-o APT::Sandbox::User=root -o DPkg::Lock::Timeout=300)
	say "apt-get source postgresql-15 ($mirror $suite)"
	apt-get "${apt[@]}" update >>"$LOG" 2>&1 ||
		{ tail -n 20 "$LOG" >&2; die "apt-get update (deb-src) failed; log: $LOG"; }
	versions=$(apt-cache "${apt[@]}" showsrc postgresql-15 2>>"$LOG" |
		sed -n 's/^Version: //p' | sort -u -r -V)
	[ -n "$versions" ] || die "no source package postgresql-15 on $mirror ($suite)"
	for v in $versions; do
		if (cd "$work/src" && apt-get "${apt[@]}" source --download-only "postgresql-15=$v") >>"$LOG" 2>&1; then
			got=$v
			break
		fi
		say "postgresql-15 $v: the mirror does not serve its files; trying an older one"
	done
	[ -n "$got" ] || die "could not download the source of postgresql-15 ($versions); log: $LOG"
	dpkg-source --skip-patches -x "$work"/src/postgresql-15_*.dsc "$work/pg" >>"$LOG" 2>&1 ||
		{ tail -n 20 "$LOG" >&2; die "dpkg-source -x failed; log: $LOG"; }

	say "building PostgreSQL $got with assertions into $PREFIX (a few minutes)"
	local jobs
	jobs=$(nproc 2>/dev/null || echo 2)
	mkdir -p "$work/build"
	if ! (cd "$work/build" &&
		"$work/pg/configure" --prefix="$PREFIX" "${CONFIGURE[@]}" \
			CFLAGS="$CFLAGS_BUILD" CPPFLAGS="$CPPFLAGS_BUILD" &&
		make -s -C src/port pg_config_paths.h &&
		outside=$(sed -nE 's/^#define [A-Z_]+ "([^"]*)"$/\1/p' src/port/pg_config_paths.h |
			grep -v "^$PREFIX/" || true) &&
		{ [ -z "$outside" ] || { echo "paths outside $PREFIX: $outside"; exit 1; }; } &&
		make -j"$jobs" -s &&
		make -s install &&
		for m in "${CONTRIB[@]}"; do
			make -C "contrib/$m" -j"$jobs" -s install || exit 1
		done) >>"$LOG" 2>&1; then
		tail -n 40 "$LOG" >&2
		die "building PostgreSQL $got failed; log: $LOG"
	fi
	install -m 644 "$work/pg/src/tools/valgrind.supp" "$("$PREFIX/bin/pg_config" --sharedir)/valgrind.supp"
	rm -rf --one-file-system "$work"
	{ spec; echo "version $got"; } >"$PREFIX/counter-crdt-cassert.stamp"
	chmod -R a+rX "$PREFIX"
	say "PostgreSQL $got with assertions: $PREFIX ($(du -sm "$PREFIX" | cut -f1) MB, $((SECONDS - t0)) s)"
	echo "$PREFIX/bin/pg_config"
}

case "${1:-}" in
ensure) ensure ;;
dir) echo "$PREFIX" ;;
clean)
	exec 9>"$PREFIX.lock"
	flock 9
	rm -rf --one-file-system "$PREFIX" "$PREFIX.build" "$LOG"
	say "removed $PREFIX"
	;;
*)
	echo "usage: bash $0 ensure|dir|clean" >&2
	exit 2
	;;
esac
