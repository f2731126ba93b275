#!/usr/bin/env bash
#
# test.sh: THE test command of counter_crdt.
#
#   bash scripts/test.sh
#
# 1. scripts/setup.sh (packages, build, install)
# 2. make core-test (unit tests of the pure C core, no server)
# 3. make installcheck (pg_regress) against a throwaway cluster; the hashing
#    tests again from a build with PostgreSQL's own hashing (CC_HASH_PG_COMMON)
# 4. TAP tests, test/t/*.pl, if there are any (prove, two at a time, PGXS's
#    TAP modules);
#    in the chroot of 17 also test/mixed/*.pl, with this machine's PostgreSQL
#    15 copied in beside 17 (scripts/pgchroot.sh stage)
# 5. META.json against the tree (test/meta_check.pl)
# 6. the Debian package: built from a clean copy, installed with apt-get onto
#    the system PostgreSQL 15, pg_regress against it, purged (as root)
# 7. the builds 15-cassert and 15-valgrind: PostgreSQL 15 from Debian's
#    source with assertions (scripts/pgcassert.sh, built once, cached);
#    this script again on a clean copy (COUNTER_CRDT_BUILD=cassert:
#    pg_regress and TAP; =valgrind: pg_regress with the server under
#    Valgrind's memcheck, then test/valgrind_report.pl).
#    COUNTER_CRDT_BUILDS (default "cassert valgrind") picks them.  15-valgrind
#    starts in step 1b, as soon as that server is there, and runs beside
#    the rest.
# 8. PostgreSQL 17, 18 and 19, each in its chroot (below)
#
# Steps 3, 4 and 6 depend on the PostgreSQL version, and run for each of
# COUNTER_CRDT_PG_VERSIONS (default "15 17 18 19"): 15 here
# (Debian 12's), 17, 18 and 19 each in a Debian chroot (trixie, sid, sid with
# 19rc1 from experimental) that scripts/pgchroot.sh makes from minbase,
# caches under /var/cache/counter_crdt and reuses; there this
# script runs again (COUNTER_CRDT_IN_CHROOT=VER) with the plain core tests
# and those three steps.  The sanitizer, fuzz (no PostgreSQL header) and
# META.json steps run once, here.
#
#   COUNTER_CRDT_PG_VERSIONS=17 bash scripts/test.sh    # one version, quicker
#
# Ends with one line "N passed, N failed" (all suites together), after a
# line naming the versions that ran and one giving each build's counts
# ("builds: 15: N passed, N failed; 15-cassert: ...; 17: ..."), and exits
# non-zero if anything failed.  A step that breaks without reporting counts
# (setup, a cluster that does not start, a test binary that crashes) counts
# as one failure.
#
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
# shellcheck source=scripts/pgcluster.sh
source "$ROOT/scripts/pgcluster.sh"

PASSED=0
FAILED=0
REPORT=()		# one line per suite, printed before the summary

# Which PostgreSQL versions, and whether this run is one of them in its chroot,
# or one of the two builds of scripts/pgcassert.sh's PostgreSQL 15 (step 7).
IN_CHROOT=${COUNTER_CRDT_IN_CHROOT:-}
BUILD=${COUNTER_CRDT_BUILD:-}
# Every build of this run treats warnings as errors (Makefile: COPT and
# CORE_WERROR); users' own builds do not.
export COUNTER_CRDT_WERROR=${COUNTER_CRDT_WERROR:-1}
if [ -n "$BUILD" ]; then
	case "$BUILD" in
	cassert | valgrind) ;;
	*)
		echo "test: COUNTER_CRDT_BUILD: $BUILD is not cassert or valgrind" >&2
		exit 2
		;;
	esac
	[ -n "${PG_CONFIG:-}" ] || { echo "test: COUNTER_CRDT_BUILD needs PG_CONFIG" >&2; exit 2; }
	export PG_CONFIG
	PG_VERSIONS=15
	PG_MAJOR=15
elif [ -n "$IN_CHROOT" ]; then
	PG_VERSIONS=$IN_CHROOT
	PG_MAJOR=$IN_CHROOT
	export PG_CONFIG=/usr/lib/postgresql/$PG_MAJOR/bin/pg_config
else
	PG_VERSIONS=${COUNTER_CRDT_PG_VERSIONS:-15 17 18 19}
	PG_MAJOR=15		# Debian 12's, on this machine
fi
for v in $PG_VERSIONS; do
	case "$v" in
	15 | 17 | 18 | 19) ;;
	*)
		echo "test: COUNTER_CRDT_PG_VERSIONS: $v is not one of 15, 17, 18, 19" >&2
		exit 2
		;;
	esac
done
PG_HERE=0		# 1: steps 3, 4 and 6 run on this machine's PostgreSQL
case " $PG_VERSIONS " in *" $PG_MAJOR "*) PG_HERE=1 ;; esac
TOP=0			# 1: the run that runs the others (not a chroot's, not a build's)
[ -n "$IN_CHROOT$BUILD" ] || TOP=1

step() { echo; echo "=== $* ==="; }
note() { REPORT+=("$1"); }

pgc_mktemp
WORK=$PGC_TMP		# logs of this run, removed at exit

# A clean copy of the tree in DEST (an existing directory): the files git
# tracks or would add, as they are in the working tree, none of its build
# products.
copy_tree() {	# dest pg_config
	if git -C "$ROOT" -c safe.directory='*' rev-parse --git-dir >/dev/null 2>&1; then
		(cd "$ROOT" && git -c safe.directory='*' ls-files -z -c -o --exclude-standard |
			while IFS= read -r -d '' f; do
				if [ -e "$f" ]; then printf '%s\0' "$f"; fi
			done | xargs -0 cp --parents -t "$1")
	else
		# Not a git checkout: all of it, then make's own clean.
		cp -a "$ROOT/." "$1/" &&
			make -C "$1" -s PG_CONFIG="$2" clean >/dev/null
	fi
}

# --- 1. setup ------------------------------------------------------------
step "setup"
SETUP_OK=1
if ! bash "$ROOT/scripts/setup.sh"; then
	SETUP_OK=0
	FAILED=$((FAILED + 1))
	note "setup:       FAILED (build or install; server tests skipped)"
fi
PG_CONFIG=$(pgc_pg_config 2>/dev/null || echo pg_config)
export PG_CONFIG

# --- 1b. what steps 7 and 8 need, made in the background ------------------
# The first run makes the assert-enabled PostgreSQL 15 of step 7 (a compile of
# several minutes) and the chroots of step 8 (downloads); later runs find them
# cached.  Both start here, niced, beside steps 2 to 6, and steps 7 and 8 wait
# for them: a run with nothing cached spends that time while the suites here
# wait on their servers.  Each keeps its own lock, so step 7's and step 8's own
# calls find what these made.
declare -A PREP=()	# name -> pid of its background job, until waited for
prep_start() {	# name, command...: its stdout to $WORK/prep-NAME.out, its log to .log
	local name=$1
	shift
	# its own process group, so that an early exit stops the compiler too
	setsid nice -n 10 "$@" >"$WORK/prep-$name.out" 2>"$WORK/prep-$name.log" </dev/null &
	PREP[$name]=$!
	pgc_at_exit "kill -- -$! 2>/dev/null || true"
}
# Waits for NAME and shows its log under the step that needs it.
prep_wait() {	# name -> its exit status (0 if it was not started)
	local rc=0
	[ -n "${PREP[$1]:-}" ] || return 0
	wait "${PREP[$1]}" || rc=$?
	unset "PREP[$1]"
	cat "$WORK/prep-$1.log" >&2
	return "$rc"
}
# The build 15-valgrind of step 7 (its server under Valgrind: about 33
# minutes of one core) starts here too, as soon as scripts/pgcassert.sh's
# server is there (at once when it is cached; it waits on the lock of
# pgcassert.sh while step 1b builds it), so that it runs beside steps 2 to 8
# rather than after step 7's 15-cassert; it gets a copy of that server's
# install of its own, so that 15-cassert's "make install" into the cache never
# replaces a file under its running server.  Step 7 collects it last.
declare -A BUILD_PID BUILD_T0 BUILD_DIR
RUN_BUILDS=${COUNTER_CRDT_BUILDS-cassert valgrind}
build_early_valgrind() {
	local dir inst
	pgc_mktemp
	dir=$PGC_TMP		# the tree, as build_start copies it
	pgc_mktemp
	inst=$PGC_TMP		# the copy of the install
	chmod 755 "$inst"
	BUILD_DIR[valgrind]="$dir $inst" BUILD_T0[valgrind]=$SECONDS BUILD_PID[valgrind]=""
	copy_tree "$dir" "$PG_CONFIG" || return 0
	(
		pgc=$(bash "$ROOT/scripts/pgcassert.sh" ensure) ||
			{ echo "15-valgrind: scripts/pgcassert.sh ensure failed"; exit 1; }
		cp -a "$(dirname "$(dirname "$pgc")")/." "$inst/" ||
			{ echo "15-valgrind: could not copy $(dirname "$(dirname "$pgc")") to $inst"; exit 1; }
		echo "$SECONDS" >"$WORK/build-valgrind.t0"
		cd "$dir" && exec env COUNTER_CRDT_BUILD=valgrind PG_CONFIG="$inst/bin/pg_config" \
			bash scripts/test.sh </dev/null
	) >"$WORK/build-valgrind.log" 2>&1 &
	BUILD_PID[valgrind]=$!
	pgc_at_exit "kill ${BUILD_PID[valgrind]} 2>/dev/null || true"
}
if [ "$TOP" -eq 1 ] && [ "$SETUP_OK" -eq 1 ] && [ "$(id -u)" -eq 0 ]; then
	if [ "$PG_HERE" -eq 1 ] && [ -n "$RUN_BUILDS" ]; then
		prep_start cassert bash "$ROOT/scripts/pgcassert.sh" ensure
		case " $RUN_BUILDS " in *" valgrind "*) build_early_valgrind ;; esac
	fi
	chroot_versions=""
	for v in $PG_VERSIONS; do
		[ "$v" = "$PG_MAJOR" ] || chroot_versions+=" $v"
	done
	if [ -n "$chroot_versions" ]; then
		# shellcheck disable=SC2016
		prep_start chroots bash -c 'for v in $1; do bash "$2" ensure "$v" || exit 1; done' _ \
			"$chroot_versions" "$ROOT/scripts/pgchroot.sh"
	fi
fi

# --- 2. core unit tests, plain and under ASan/UBSan -----------------------
run_core() {	# make target, label
	local rc=0 line cp=0 cf=0 log="$WORK/$1.log"
	step "core tests (make $1)"
	# a slip that makes a loop endless fails here, not at CI's time limit
	timeout 1200 make -C "$ROOT" --no-print-directory PG_CONFIG="$PG_CONFIG" "$1" 2>&1 |
		tee "$log" || rc=$?
	[ "$rc" -ne 124 ] || echo "$1: stopped after 1200 s"
	# The last "N passed, N failed" it prints (possibly after a label: "core: ").
	line=$(sed -nE 's/^(.*[^0-9])?([0-9]+) passed, ([0-9]+) failed\.?[[:space:]]*$/\2 \3/p' "$log" | tail -n 1)
	if [ -n "$line" ]; then
		read -r cp cf <<<"$line"
	fi
	if [ "$rc" -ne 0 ] && [ "$cf" -eq 0 ]; then
		cf=1		# crashed or did not build: no count of its own
	fi
	PASSED=$((PASSED + cp))
	FAILED=$((FAILED + cf))
	note "$(printf '%-12s %s passed, %s failed' "$2:" "$cp" "$cf")"
}
if [ -z "$BUILD" ]; then
	run_core core-test "core tests"
fi
if [ "$TOP" -eq 1 ]; then
	run_core core-test-sanitize "core ASan"
fi

# --- 2b. a bounded libFuzzer run of every harness (about a minute) --------
if [ "$TOP" -eq 1 ]; then
step "fuzzing (make fuzz-short)"
rc=0
make -C "$ROOT" --no-print-directory PG_CONFIG="$PG_CONFIG" fuzz-short 2>&1 |
	tee "$WORK/fuzz.log" || rc=$?
# One line per harness after "== fuzz summary": "name: N runs ..." or FAILED.
fp=$(sed -n '/^== fuzz summary/,$p' "$WORK/fuzz.log" | grep -cE '^fuzz_[a-z]+: [0-9]+ runs' || true)
ff=$(sed -n '/^== fuzz summary/,$p' "$WORK/fuzz.log" | grep -cE '^fuzz_[a-z]+: FAILED' || true)
if [ "$rc" -ne 0 ] && [ "$ff" -eq 0 ]; then
	ff=1		# did not build or did not get to its summary
fi
PASSED=$((PASSED + fp))
FAILED=$((FAILED + ff))
note "$(printf '%-12s %s passed, %s failed (harnesses)' "fuzzing:" "$fp" "$ff")"
fi

# --- 3. pg_regress against a throwaway cluster ----------------------------
# Sets rp and rf, the passed and failed tests of a pg_regress log (its
# summary, else its per-test lines).
regress_counts() {	# log
	local all some line a b
	rp=0 rf=0
	# PostgreSQL 16 and later print "# All 27 tests passed." and "ok 1 - x"
	all=$(grep -E '^(# )?[[:space:]]*All [0-9]+ tests passed' "$1" | tail -n 1 || true)
	some=$(grep -E '^(# )?[[:space:]]*[0-9]+ of [0-9]+ tests (failed|passed)' "$1" | tail -n 1 || true)
	if [ -n "$all" ]; then
		rp=$(sed -E 's/^(# )?[[:space:]]*All ([0-9]+) tests passed.*/\2/' <<<"$all")
	elif [ -n "$some" ]; then
		# " 2 of 13 tests failed." (also "..., 1 of these failures ignored.")
		line=${some#\# }
		read -r a _ b _ <<<"$line"
		if grep -qE 'tests failed' <<<"$line"; then
			rf=$a rp=$((b - a))
		else
			rp=$a rf=$((b - a))
		fi
	else
		# No summary (pg_regress did not get that far): count the lines.
		rp=$(grep -cE '\.\.\. ok|^ok [0-9]+ ' "$1" || true)
		rf=$(grep -cE '\.\.\. FAILED|\.\.\. failed|^not ok [0-9]+ ' "$1" || true)
	fi
}

# The 15-valgrind build: the server (every process it forks) runs under
# Valgrind's memcheck with PostgreSQL's own suppressions, one log a process
# in VG_LOGS; test/valgrind_report.pl reads them once the server stopped.
# Without --track-origins (twice as slow): COUNTER_CRDT_VALGRIND_OPTS adds
# options, such as --track-origins=yes to find where an uninitialised value
# came from.  Small shared buffers: memcheck scans them at each exit.
START_OPTS=()
if [ "$BUILD" = valgrind ]; then
	pgc_mktemp
	VG_DIR=$PGC_TMP
	VG_LOGS=$VG_DIR/logs
	mkdir "$VG_LOGS"
	cat >"$VG_DIR/postgres" <<-EOF
		#!/bin/sh
		exec valgrind --error-limit=no --num-callers=40 --read-var-info=no \
			--leak-check=full --show-leak-kinds=definite ${COUNTER_CRDT_VALGRIND_OPTS:-} \
			--suppressions="$("$PG_CONFIG" --sharedir)/valgrind.supp" \
			--log-file="$VG_LOGS/%p.log" "$("$PG_CONFIG" --bindir)/postgres" "\$@"
	EOF
	chmod 755 "$VG_DIR" "$VG_DIR/postgres"
	[ "$(id -u)" -ne 0 ] || chown postgres: "$VG_LOGS"
	export PGC_POSTGRES=$VG_DIR/postgres PGC_START_TIMEOUT=600
	START_OPTS=(shared_buffers=16MB)
fi

if [ "$SETUP_OK" -eq 1 ] && [ "$PG_HERE" -eq 1 ]; then
	step "regression tests (make installcheck, PostgreSQL $PG_MAJOR${BUILD:+, build $BUILD})"
	if pg_start "" "" ${START_OPTS[@]+"${START_OPTS[@]}"}; then
		rc=0
		PGHOST=$PGC_HOST PGPORT=$PGC_PORT PGUSER=postgres PGDATABASE=postgres \
			make -C "$ROOT" --no-print-directory PG_CONFIG="$PG_CONFIG" installcheck 2>&1 |
			tee "$WORK/regress.log" || rc=$?
		regress_counts "$WORK/regress.log"
		if [ "$rc" -ne 0 ] && [ "$rf" -eq 0 ]; then
			rf=1
		fi
		if [ "$rc" -ne 0 ] && [ -s "$ROOT/regression.diffs" ]; then
			echo
			echo "--- regression.diffs (first 300 lines) ---"
			head -n 300 "$ROOT/regression.diffs"
			echo "--- end of regression.diffs ($(wc -l <"$ROOT/regression.diffs") lines in $ROOT/regression.diffs) ---"
		fi
		PASSED=$((PASSED + rp))
		FAILED=$((FAILED + rf))
		note "regression:  $rp passed, $rf failed"
	fi
	if [ -n "$BUILD" ] && [ -n "${PGC_DIR:-}" ]; then
		pg_stop "$PGC_DIR" || true
	fi
	if [ "$BUILD" = valgrind ] && [ -n "${PGC_DIR:-}" ]; then
		step "Valgrind memcheck of that run (perl test/valgrind_report.pl)"
		rc=0
		nregress=$(make -C "$ROOT" -s --no-print-directory PG_CONFIG="$PG_CONFIG" print-regress | wc -w)
		perl "$ROOT/test/valgrind_report.pl" "$VG_LOGS" "$ROOT/counter_crdt.so" "$nregress" 2>&1 |
			tee "$WORK/valgrind.log" || rc=$?
		line=$(sed -nE 's/^valgrind: ([0-9]+) passed, ([0-9]+) failed$/\1 \2/p' "$WORK/valgrind.log")
		vp=0 vf=0
		[ -z "$line" ] || read -r vp vf <<<"$line"
		if [ "$rc" -ne 0 ] && [ "$vf" -eq 0 ]; then vf=1; fi
		# The report itself must see what it is for: on the planted logs of
		# test/valgrind_selftest/ (one error and one lost block of ours, one
		# of each of PostgreSQL's own) exactly its last two checks fail.
		# (it exits 1 there, by design: its output is what is checked)
		selftest=$(perl "$ROOT/test/valgrind_report.pl" "$ROOT/test/valgrind_selftest" \
			"$ROOT/counter_crdt.so" 1 2>&1 | tail -n 2 | tr '\n' ' ' || true)
		if [ "$selftest" = "valgrind: 2 records of PostgreSQL's own code (1 errors, 1 definitely lost blocks) valgrind: 1 passed, 2 failed " ]; then
			vp=$((vp + 1)); echo "valgrind: ok - the report finds the planted error and lost block of test/valgrind_selftest"
		else
			vf=$((vf + 1)); echo "valgrind: FAILED - the report does not find the planted error and lost block of test/valgrind_selftest"
		fi
		PASSED=$((PASSED + vp))
		FAILED=$((FAILED + vf))
		note "$(printf '%-12s %s passed, %s failed (%s)' "valgrind:" "$vp" "$vf" \
			"$(sed -nE 's/^valgrind: ([0-9]+ records of PostgreSQL.s own code .*)$/\1/p' "$WORK/valgrind.log")")"
	fi
	if [ -z "$BUILD" ] && [ -n "${PGC_DIR:-}" ]; then
		# The hashing tests again, built with PostgreSQL's own hashing
		# (CC_HASH_PG_COMMON=1): the path of a PostgreSQL built without
		# OpenSSL (src/base/hashing.c), which this machine's build never takes.
		# From a copy of the tree, on the same cluster (each test session
		# loads the library afresh); then the usual build goes back.
		step "regression tests of hashing, built with CC_HASH_PG_COMMON=1"
		pgc_mktemp
		ALTDIR=$PGC_TMP
		rc=0
		syms=""
		{ copy_tree "$ALTDIR" "$PG_CONFIG" &&
			make -C "$ALTDIR" -s -j2 PG_CONFIG="$PG_CONFIG" CC_HASH_PG_COMMON=1 >/dev/null &&
			syms=$(nm -D "$ALTDIR/counter_crdt.so") &&
			grep -q ' U pg_cryptohash_init$' <<<"$syms" &&
			! grep -q ' U EVP_' <<<"$syms" &&
			make -C "$ALTDIR" -s PG_CONFIG="$PG_CONFIG" install >/dev/null; } 2>&1 || rc=$?
		if [ "$rc" -eq 0 ]; then
			PGHOST=$PGC_HOST PGPORT=$PGC_PORT PGUSER=postgres PGDATABASE=postgres \
				make -C "$ALTDIR" --no-print-directory PG_CONFIG="$PG_CONFIG" installcheck \
				REGRESS="shards_digest digest_agg writer_ids node_id" 2>&1 |
				tee "$WORK/regress-hash.log" || rc=$?
			regress_counts "$WORK/regress-hash.log"
			if [ "$rc" -ne 0 ] && [ "$rf" -eq 0 ]; then
				rf=1
			fi
			if [ "$rc" -ne 0 ] && [ -s "$ALTDIR/regression.diffs" ]; then
				head -n 100 "$ALTDIR/regression.diffs"
			fi
		else
			echo "the build with CC_HASH_PG_COMMON=1 failed, or did not hash with pg_cryptohash"
			rp=0 rf=1
		fi
		make -C "$ROOT" --no-print-directory -s PG_CONFIG="$PG_CONFIG" install >/dev/null 2>&1 ||
			{ echo "could not install the usual build again"; rf=$((rf + 1)); }
		pg_stop "$PGC_DIR" || true
		PASSED=$((PASSED + rp))
		FAILED=$((FAILED + rf))
		note "regression, PostgreSQL's own hashing: $rp passed, $rf failed"
	fi
	if [ -z "${PGC_DIR:-}" ]; then
		FAILED=$((FAILED + 1))
		note "regression:  FAILED (the test cluster did not start)"
	fi
fi

# The first 8 failed checks of a TAP log, a line each ("failed check:
# NAME"), each followed by up to 4 lines of its diagnostics (diag's "# ..."
# lines after the "at FILE line N." line), cut at 200 characters.
tap_failures() {	# log
	awk '
		/^#[[:space:]]+Failed test / {
			if (++n > 8) exit
			name = $0
			sub(/^#[[:space:]]+Failed test \047/, "", name)
			if (!sub(/\047$/, "", name)) name = name "..."
			print "failed check: " name
			d = 0; indiag = 1; next
		}
		indiag && /^#[[:space:]]+at .* line [0-9]+\.$/ { next }
		/^# Looks like you / { indiag = 0; next }
		indiag && /^# / && d < 4 {
			line = substr($0, 3)
			if (length(line) > 200) line = substr(line, 1, 200) "..."
			print "  " line; d++; next
		}
		{ indiag = 0 }
	' "$1"
}

# --- 4. TAP tests (test/t/*.pl) -------------------------------------------
# Hook for the TAP tests: every test/t/*.pl runs under prove, the way PGXS's
# prove_installcheck runs them (PostgreSQL::Test::Cluster from the PGXS tree,
# PG_REGRESS, the server bindir first on PATH).  Those tests run initdb and
# the server themselves, which refuse root: so they run as the postgres OS
# user, from a copy of test/ in a scratch directory that user owns (TESTDIR,
# where tmp_check/ and the logs go).  Counts are subtests, as prove reports.
# With COUNTER_CRDT_OLD_INSTALL (an older PostgreSQL with counter_crdt
# installed, as the chroot of 17 gets this machine's 15), also the tests of
# test/mixed/, which run servers of both (the rolling upgrade of README.md).
#
# They run TAP_JOBS at a time (prove -j; COUNTER_CRDT_TAP_JOBS, default 2):
# they mostly wait on their servers (on 15, 633 s of wall time for 258 s of
# CPU one at a time).  Each test has its own data directories, logs and
# tempdirs under tmp_check, and takes every port from
# PostgreSQL::Test::Cluster::get_free_port, which reserves it in
# tmp_check/portlock (test/README.md: safe in parallel).  prove hands the
# files out in the order given: the long ones of TAP_LONG first (longest
# first, as --timer measured them on 15), so that a long one does not start
# last and run alone; then the others in name order.
TAP_JOBS=${COUNTER_CRDT_TAP_JOBS:-2}
TAP_LONG=(024_patroni 001_rolling_upgrade 029_python 026_alerts 033_go 035_java 030_django
	021_time_windows 031_node 032_ruby 025_pgbackrest 012_pglogical 023_pgbouncer
	001_replication 003_crash 005_readme_recipe)
shopt -s nullglob
tap_found=("$ROOT"/test/t/*.pl)
OLD_INSTALL=${COUNTER_CRDT_OLD_INSTALL:-}
if [ -n "$OLD_INSTALL" ]; then
	tap_found+=("$ROOT"/test/mixed/*.pl)
fi
shopt -u nullglob
tap_files=()
for name in "${TAP_LONG[@]}"; do
	for f in ${tap_found[@]+"${tap_found[@]}"}; do
		[ "$(basename "$f" .pl)" != "$name" ] || tap_files+=("$f")
	done
done
for f in ${tap_found[@]+"${tap_found[@]}"}; do
	case " ${TAP_LONG[*]} " in *" $(basename "$f" .pl) "*) ;; *) tap_files+=("$f") ;; esac
done
if [ "${#tap_files[@]}" -gt 0 ] && [ "$SETUP_OK" -eq 1 ] && [ "$PG_HERE" -eq 1 ] &&
	[ "$BUILD" != valgrind ]; then
	step "TAP tests (prove -j$TAP_JOBS test/t/*.pl${OLD_INSTALL:+ test/mixed/*.pl})"
	# --pgxs is .../lib/pgxs/src/makefiles/pgxs.mk; PGXS_DIR is .../lib/pgxs
	PGXS_DIR=$(cd "$(dirname "$("$PG_CONFIG" --pgxs)")/../.." && pwd)
	BINDIR=$("$PG_CONFIG" --bindir)
	pgc_mktemp
	TAPDIR=$PGC_TMP
	cp -a "$ROOT/test" "$TAPDIR/test"
	# The recipes of README.md and doc/ are run as written (test/t/ReadmeRecipe.pm).
	cp "$ROOT/README.md" "$TAPDIR/README.md"
	cp -a "$ROOT/doc" "$TAPDIR/doc"
	# and the files the recipes ship (t/022: the exporter's queries)
	cp -a "$ROOT/monitoring" "$TAPDIR/monitoring"
	# and the client libraries, which the tests package and install
	# (test/t/029 and after) as their users would
	if [ -d "$ROOT/clients" ]; then cp -a "$ROOT/clients" "$TAPDIR/clients"; fi
	rm -rf "$TAPDIR/test/tmp_check"
	mkdir -p "$TAPDIR/test/tmp_check"
	[ "$(id -u)" -eq 0 ] && chown -R postgres: "$TAPDIR"
	read -r -a prove_flags <<<"${PROVE_FLAGS:-}"
	tap_env=(
		env -u PGHOST -u PGPORT -u PGUSER -u PGDATABASE -u PGDATA
		HOME="$TAPDIR"
		TESTDIR="$TAPDIR/test"
		TESTDATADIR="$TAPDIR/test/tmp_check"
		TESTLOGDIR="$TAPDIR/test/tmp_check/log"
		COUNTER_CRDT_README="$TAPDIR/README.md"
		${IN_CHROOT:+COUNTER_CRDT_IN_CHROOT="$IN_CHROOT"}
		${OLD_INSTALL:+COUNTER_CRDT_OLD_INSTALL="$OLD_INSTALL"}
		PATH="$BINDIR:$PATH"
		PGPORT="65432"
		PG_REGRESS="$PGXS_DIR/src/test/regress/pg_regress"
		PG_CONFIG="$PG_CONFIG"
		PERL5LIB="$PGXS_DIR/src/test/perl${PERL5LIB:+:$PERL5LIB}"
		prove -I "$PGXS_DIR/src/test/perl/" -I . --timer -j"$TAP_JOBS" ${prove_flags[@]+"${prove_flags[@]}"}
	)
	for f in "${tap_files[@]}"; do
		tap_env+=("$(basename "$(dirname "$f")")/$(basename "$f")")
	done
	rc=0
	if [ "$(id -u)" -eq 0 ]; then
		(cd "$TAPDIR/test" && runuser -u postgres -- "${tap_env[@]}") 2>&1 |
			tee "$WORK/tap.log" || rc=$?
	else
		(cd "$TAPDIR/test" && "${tap_env[@]}") 2>&1 | tee "$WORK/tap.log" || rc=$?
	fi
	tt=$(sed -nE 's/^Files=[0-9]+, Tests=([0-9]+),.*/\1/p' "$WORK/tap.log" | tail -n 1)
	tt=${tt:-0}
	# Test Summary Report lines, one per failed script:
	#   "t/002_x.pl (Wstat: 512 (exited 2) Tests: 3 Failed: 2)"
	# A script that died with no failed subtest counts as one failure.
	fsub=0 fextra=0 failed_scripts=()
	while read -r script n; do
		failed_scripts+=("$script")
		if [ "$n" -eq 0 ]; then fextra=$((fextra + 1)); else fsub=$((fsub + n)); fi
	done < <(sed -nE 's/^((t|mixed)\/[^ ]+\.pl) +\(Wstat: [0-9]+.* Tests: [0-9]+ Failed: ([0-9]+)\).*/\1 \3/p' "$WORK/tap.log")
	tp=$((tt > fsub ? tt - fsub : 0))
	tf=$((fsub + fextra))
	if [ "$rc" -ne 0 ] && [ "$tf" -eq 0 ]; then
		tf=1
	fi
	for script in ${failed_scripts[@]+"${failed_scripts[@]}"}; do
		f="$TAPDIR/test/tmp_check/log/regress_log_$(basename "$script" .pl)"
		[ -f "$f" ] || continue
		echo "--- last 60 lines of $f ---"
		tail -n 60 "$f"
	done
	PASSED=$((PASSED + tp))
	FAILED=$((FAILED + tf))
	note "TAP:         $tp passed, $tf failed${OLD_INSTALL:+ (with test/mixed/: PostgreSQL $(basename "$OLD_INSTALL") beside $PG_MAJOR)}${failed_scripts[*]:+ [failed: ${failed_scripts[*]}]}"
	# the names of the first failed checks, each with the first lines of its
	# diagnostics, so that the summary (all a CI log's tail may keep) says
	# what failed and why, not only where
	while IFS= read -r line; do
		note "  $line"
	done < <(tap_failures "$WORK/tap.log")
fi

# --- 5. PGXN metadata (META.json) -----------------------------------------
if [ "$TOP" -eq 1 ]; then
step "PGXN metadata (perl test/meta_check.pl)"
rc=0
perl "$ROOT/test/meta_check.pl" "$ROOT" 2>&1 | tee "$WORK/meta.log" || rc=$?
mp=0 mf=0
line=$(sed -nE 's/^meta: ([0-9]+) passed, ([0-9]+) failed$/\1 \2/p' "$WORK/meta.log" | tail -n 1)
if [ -n "$line" ]; then
	read -r mp mf <<<"$line"
fi
if [ "$rc" -ne 0 ] && [ "$mf" -eq 0 ]; then
	mf=1		# died before its summary
fi
PASSED=$((PASSED + mp))
FAILED=$((FAILED + mf))
note "$(printf '%-12s %s passed, %s failed' "META.json:" "$mp" "$mf")"
fi

# --- 6. the Debian package, built, installed and tested -------------------
# dpkg-buildpackage builds postgresql-15-counter-crdt from a clean copy of the
# tree (the files git tracks or would add, as they are in the working tree:
# none of its build products).  Then the extension's files are removed from
# the system PostgreSQL 15, so that the package installs onto a clean
# location; apt-get installs the .deb; pg_regress runs against the installed
# files on a throwaway cluster of that PostgreSQL; apt-get purges the package,
# which must leave no file of the extension behind; and the files that
# "make install" had put there are put back.  The build skips its own
# build-time test (nocheck): this step runs the same suite on the installed
# package instead.  Counts: the five steps and the regression tests.
SYS_PG_CONFIG=/usr/lib/postgresql/$PG_MAJOR/bin/pg_config
DEB_PKG=postgresql-$PG_MAJOR-counter-crdt
pkg_installed() { dpkg-query -W -f='${Status}' "$DEB_PKG" 2>/dev/null | grep -q 'install ok installed'; }
# The extension's files in the system PostgreSQL, one a line.
ext_files() {
	local share lib
	share=$("$SYS_PG_CONFIG" --sharedir)/extension
	lib=$("$SYS_PG_CONFIG" --pkglibdir)
	find "$share" "$lib" -maxdepth 1 \( -name 'counter_crdt.control' -o -name 'counter_crdt--*.sql' \
		-o -name 'counter_crdt.so' \) 2>/dev/null
	find "$lib/bitcode" -maxdepth 1 -name 'counter_crdt*' 2>/dev/null
}
apt_quiet() {	# apt-get arguments; output to $WORK/apt.log
	DEBIAN_FRONTEND=noninteractive apt-get -y -q -o Dpkg::Use-Pty=0 \
		-o DPkg::Lock::Timeout=300 "$@" </dev/null >>"$WORK/apt.log" 2>&1
}
PKG_RESTORE=0		# 1: "make install" into the system PostgreSQL at the end
pkg_restore() {
	if pkg_installed; then
		apt_quiet purge "$DEB_PKG" || return 1
	fi
	if [ "$PKG_RESTORE" -eq 1 ]; then
		PKG_RESTORE=0
		make -C "$ROOT" --no-print-directory PG_CONFIG="$SYS_PG_CONFIG" install \
			>"$WORK/restore.log" 2>&1 || { tail -n 30 "$WORK/restore.log"; return 1; }
	fi
}

if [ "$PG_HERE" -eq 0 ] || [ -n "$BUILD" ]; then
	:
elif ! grep -qx "$PG_MAJOR" "$ROOT/debian/pgversions"; then
	# 19, a release candidate from experimental: not in debian/pgversions
	# (nor in META.json's tested versions) until it is released.
	note "package:     not run (PostgreSQL $PG_MAJOR is not in debian/pgversions)"
elif [ "$SETUP_OK" -eq 1 ] && [ "$(id -u)" -ne 0 ]; then
	note "package:     not run (installing a .deb needs root)"
elif [ "$SETUP_OK" -eq 1 ]; then
	step "Debian package (dpkg-buildpackage, apt-get install, pg_regress)"
	pkg_t0=$SECONDS
	kp=0 kf=0 rp=0 rf=0
	check() {	# ok-status description
		if [ "$1" -eq 0 ]; then
			kp=$((kp + 1)); echo "package: ok - $2"
		else
			kf=$((kf + 1)); echo "package: FAILED - $2"
		fi
	}
	pgc_mktemp
	DEBDIR=$PGC_TMP		# the .deb lands beside the copy: $DEBDIR/*.deb
	mkdir "$DEBDIR/src"
	rc=0
	copy_tree "$DEBDIR/src" "$SYS_PG_CONFIG" || rc=$?
	# debian/control names a binary package per version of debian/pgversions
	# that this system supports (Debian's way: pg_buildext updatecontrol).
	if [ "$rc" -eq 0 ]; then
		(cd "$DEBDIR/src" && pg_buildext updatecontrol) >"$WORK/deb-control.log" 2>&1 ||
			{ rc=$?; cat "$WORK/deb-control.log"; }
	fi
	if [ "$rc" -eq 0 ]; then
		(cd "$DEBDIR/src" && DEB_BUILD_OPTIONS=nocheck dpkg-buildpackage -b -us -uc -Pnocheck) \
			</dev/null >"$WORK/deb-build.log" 2>&1 || rc=$?
	fi
	debs=("$DEBDIR"/"$DEB_PKG"_*.deb)
	if [ "$rc" -ne 0 ] || [ ! -f "${debs[0]}" ]; then
		tail -n 60 "$WORK/deb-build.log"
		check 1 "dpkg-buildpackage -b -us -uc builds $DEB_PKG"
	else
		check 0 "dpkg-buildpackage -b -us -uc builds $(basename "${debs[0]}")"
		pgc_at_exit 'pkg_restore || echo "test: restoring the system PostgreSQL failed" >&2'
		# A clean location: no earlier install of the package, no file of
		# "make install" (put back at the end if there was one).
		if [ -n "$(ext_files)" ]; then PKG_RESTORE=1; fi
		rc=0
		if pkg_installed; then apt_quiet purge "$DEB_PKG" || rc=$?; fi
		ext_files | xargs -r rm -rf
		left=$(ext_files)
		ok=0
		[ "$rc" -eq 0 ] && [ -z "$left" ] || ok=1
		check "$ok" "no file of the extension in the system PostgreSQL before the install${left:+ (left: $left)}"

		# Installed by apt-get, and every file of the extension is the package's.
		rc=0
		apt_quiet install --no-install-recommends "${debs[0]}" || rc=$?
		unowned=()
		while read -r f; do
			dpkg-query -S "$f" 2>/dev/null | grep -q "^$DEB_PKG:" || unowned+=("$f")
		done < <(ext_files)
		ok=0
		[ "$rc" -eq 0 ] && pkg_installed && [ "$(ext_files | wc -l)" -ge 3 ] &&
			[ "${#unowned[@]}" -eq 0 ] || ok=1
		check "$ok" "apt-get install ./$(basename "${debs[0]}"): the extension's files are the package's"
		if [ "$ok" -ne 0 ]; then
			tail -n 30 "$WORK/apt.log"
			echo "unowned: ${unowned[*]:-none}"
		fi

		# pg_regress, from the copy (nothing is built there), against the
		# system PostgreSQL with the package's files.
		rp=0 rf=0
		if pkg_installed && PG_CONFIG=$SYS_PG_CONFIG pg_start "" ""; then
			rc=0
			PGHOST=$PGC_HOST PGPORT=$PGC_PORT PGUSER=postgres PGDATABASE=postgres \
				make -C "$DEBDIR/src" --no-print-directory PG_CONFIG="$SYS_PG_CONFIG" installcheck \
				>"$WORK/deb-regress.log" 2>&1 || rc=$?
			regress_counts "$WORK/deb-regress.log"
			if [ "$rc" -ne 0 ] && [ "$rf" -eq 0 ]; then rf=1; fi
			grep -E '^(test |ok |not ok |.*tests (passed|failed))' "$WORK/deb-regress.log" || true
			if [ "$rc" -ne 0 ] && [ -s "$DEBDIR/src/regression.diffs" ]; then
				head -n 200 "$DEBDIR/src/regression.diffs"
			fi
			pg_stop "$PGC_DIR" || true
		else
			rf=1
			echo "package: the test cluster did not start (or the package is not installed)"
		fi

		# Purged, it leaves nothing; then "make install"'s files come back.
		rc=0
		apt_quiet purge "$DEB_PKG" || rc=$?
		left=$(ext_files)
		ok=0
		! pkg_installed && [ "$rc" -eq 0 ] && [ -z "$left" ] || ok=1
		check "$ok" "apt-get purge $DEB_PKG leaves no file of the extension${left:+ (left: $left)}"
		if [ "$PKG_RESTORE" -eq 1 ]; then
			ok=0
			pkg_restore && [ -f "$("$SYS_PG_CONFIG" --pkglibdir)/counter_crdt.so" ] || ok=1
			check "$ok" "the files of make install are back in the system PostgreSQL"
		else
			check 0 "nothing to put back (no make install in the system PostgreSQL before)"
		fi
	fi
	PASSED=$((PASSED + kp + rp))
	FAILED=$((FAILED + kf + rf))
	note "$(printf '%-12s %s passed, %s failed (%s steps, %s+%s regression tests on the installed .deb; %ss)' \
		"package:" "$((kp + rp))" "$((kf + rf))" "$((kp + kf))" "$rp" "$rf" "$((SECONDS - pkg_t0))")"
fi

# --- 7. PostgreSQL 15 with assertions, and under Valgrind ------------------
# scripts/pgcassert.sh builds (once; cached) PostgreSQL 15 from Debian's
# source with --enable-cassert and -DUSE_VALGRIND; this script runs again on a
# clean copy of the tree with COUNTER_CRDT_BUILD=cassert (pg_regress and the
# TAP tests against that server) and =valgrind (pg_regress against it run
# under Valgrind's memcheck, then test/valgrind_report.pl).  Its summary
# lines join this one's, as a chroot's do.
BUILDS=()		# "name: N passed, N failed", one per build, for the summary
# Adds the counts of a run of this script in a chroot or for a build (its
# log LOG, its exit status RC) to this run's, as NAME on the builds line,
# and its per-suite summary lines under HEADING.  A run that failed without
# counting a failure counts as one.
collect_child() {	# log rc name heading
	local log=$1 rc=$2 line cp=0 cf=0
	line=$(sed -nE 's/^([0-9]+) passed, ([0-9]+) failed$/\1 \2/p' "$log" 2>/dev/null | tail -n 1 || true)
	if [ -n "$line" ]; then
		read -r cp cf <<<"$line"
	fi
	if [ "$rc" -ne 0 ] && [ "$cf" -eq 0 ]; then
		cf=1
	fi
	PASSED=$((PASSED + cp))
	FAILED=$((FAILED + cf))
	BUILDS+=("$3: $cp passed, $cf failed")
	note "$4"
	while IFS= read -r line; do
		note "  $line"
	done < <(sed -n '/^=== summary ===$/,$p' "$log" 2>/dev/null |
		sed -e '1d' -e '$d' | grep -vE '^(versions|builds):' || true)
}
BUILD_PGC=""		# the pg_config of scripts/pgcassert.sh's server
# Starts this script on a clean copy of the tree for build B, in the
# background, its output to $WORK/build-B.log.
build_start() {	# cassert | valgrind
	local b=$1 dir
	pgc_mktemp
	dir=$PGC_TMP
	BUILD_DIR[$b]=$dir BUILD_T0[$b]=$SECONDS BUILD_PID[$b]=""
	copy_tree "$dir" "$BUILD_PGC" || return 0
	(cd "$dir" && exec env COUNTER_CRDT_BUILD="$b" PG_CONFIG="$BUILD_PGC" bash scripts/test.sh </dev/null) \
		>"$WORK/build-$b.log" 2>&1 &
	BUILD_PID[$b]=$!
	pgc_at_exit "kill ${BUILD_PID[$b]} 2>/dev/null || true"
}
# Waits for build B, shows its output and adds its counts and summary lines.
build_collect() {	# cassert | valgrind
	local b=$1 rc=0 d
	step "PostgreSQL 15, build $b (assertions$([ "$b" = valgrind ] && echo ", server under Valgrind"))"
	if [ -n "${BUILD_PID[$b]}" ]; then
		wait "${BUILD_PID[$b]}" || rc=$?
		cat "$WORK/build-$b.log"
		# started early (build_early_valgrind): its time from its start
		if [ -s "$WORK/build-$b.t0" ]; then BUILD_T0[$b]=$(cat "$WORK/build-$b.t0"); fi
	else
		rc=1
		echo "could not copy the tree for build $b"
	fi
	collect_child "$WORK/build-$b.log" "$rc" "15-$b" \
		"PostgreSQL 15-$b ($("$BUILD_PGC" --version), --enable-cassert -DUSE_VALGRIND$([ "$b" = valgrind ] && echo ", under Valgrind"), $((SECONDS - BUILD_T0[$b])) s):"
	for d in ${BUILD_DIR[$b]}; do rm -rf --one-file-system "$d"; done
}

# 15-cassert here; 15-valgrind, which keeps one core busy for a long while,
# began in step 1b and runs beside the suites of 15, 15-cassert and the
# chroots' of step 8 (so under load, which they must bear).
BG_BUILD=""
if [ "$TOP" -eq 1 ] && [ "$PG_HERE" -eq 1 ]; then
	BUILDS+=("$PG_MAJOR: $PASSED passed, $FAILED failed")
	if [ -z "$RUN_BUILDS" ]; then
		:
	elif [ "$SETUP_OK" -ne 1 ] || [ "$(id -u)" -ne 0 ]; then
		FAILED=$((FAILED + 1))
		BUILDS+=("15-cassert: 0 passed, 1 failed")
		note "PostgreSQL 15-cassert: FAILED (not run: $([ "$SETUP_OK" -eq 1 ] && echo 'building it needs root' || echo 'setup failed'))"
	else
		step "PostgreSQL 15 with assertions (bash scripts/pgcassert.sh ensure)"
		if ! prep_wait cassert || ! BUILD_PGC=$(bash "$ROOT/scripts/pgcassert.sh" ensure); then
			FAILED=$((FAILED + 1))
			BUILDS+=("15-cassert: 0 passed, 1 failed")
			note "PostgreSQL 15-cassert: FAILED (scripts/pgcassert.sh could not build it; see above)"
			if [ -n "${BUILD_PID[valgrind]:-}" ]; then
				kill "${BUILD_PID[valgrind]}" 2>/dev/null || true
				wait "${BUILD_PID[valgrind]}" 2>/dev/null || true
			fi
		else
			for b in $RUN_BUILDS; do
				case "$b" in
				cassert) build_start cassert; build_collect cassert ;;
				valgrind)
					[ -n "${BUILD_PID[valgrind]+set}" ] || build_start valgrind
					BG_BUILD=valgrind
					;;
				*) FAILED=$((FAILED + 1)); note "COUNTER_CRDT_BUILDS: no build '$b' (cassert, valgrind)" ;;
				esac
			done
		fi
	fi
fi

# --- 8. PostgreSQL 17, 18 (and 19), each in its chroot -----------------------
# This script again, inside the chroot of scripts/pgchroot.sh, on a clean
# copy of the tree: its summary lines join this one's.
run_in_chroot() {	# version
	local ver=$1 dir rc=0 t0=$SECONDS old
	step "PostgreSQL $ver, in a Debian $(pgchroot_suite "$ver") chroot"
	if ! pgchroot_ensure "$ver" 2>&1 | tee "$WORK/chroot-$ver.log"; then
		FAILED=$((FAILED + 1))
		note "PostgreSQL $ver: FAILED (its chroot could not be made; see above)"
		BUILDS+=("$ver: 0 passed, 1 failed")
		return
	fi
	dir=$(pgchroot_dir "$ver")
	rm -rf --one-file-system "$dir/build"
	mkdir -p "$dir/build/counter_crdt"
	copy_tree "$dir/build/counter_crdt" "$PG_CONFIG" || rc=$?
	# The rolling upgrade from this machine's 15 to 17 (test/mixed/): 15,
	# with the counter_crdt that setup installed, copied in beside 17.
	old=()
	if [ "$rc" -eq 0 ] && [ "$ver" = 17 ] && [ "$PG_MAJOR" = 15 ] && [ "$SETUP_OK" -eq 1 ]; then
		if pgchroot_stage_host "$ver" 15 /build/pg15; then
			old=(--env COUNTER_CRDT_OLD_INSTALL=/build/pg15/usr/lib/postgresql/15)
		else
			FAILED=$((FAILED + 1))
			note "PostgreSQL 15 beside $ver: FAILED (it could not be copied into the chroot; see above)"
		fi
	fi
	if [ "$rc" -eq 0 ]; then
		pgc_at_exit "pgchroot_umount $ver >/dev/null 2>&1 || true"
		pgchroot_run --cwd /build/counter_crdt --env COUNTER_CRDT_IN_CHROOT="$ver" \
			--env CI="${CI:-}" --env PROVE_FLAGS="${PROVE_FLAGS:-}" \
			--env COUNTER_CRDT_TAP_JOBS="$TAP_JOBS" ${old[@]+"${old[@]}"} "$ver" -- \
			bash scripts/test.sh </dev/null 2>&1 | tee "$WORK/pg$ver.log" || rc=$?
	fi
	collect_child "$WORK/pg$ver.log" "$rc" "$ver" \
		"PostgreSQL $ver (Debian $(pgchroot_suite "$ver") chroot, $((SECONDS - t0)) s):"
	rm -rf --one-file-system "$dir/build"
}

if [ "$TOP" -eq 1 ]; then
	if [ -n "${PREP[chroots]:-}" ]; then
		step "the chroots of PostgreSQL${chroot_versions} (bash scripts/pgchroot.sh ensure, begun in step 1b)"
		prep_wait chroots || echo "(making them failed; each version's own step says why)"
	fi
	for v in $PG_VERSIONS; do
		[ "$v" = "$PG_MAJOR" ] && continue
		if [ "$(id -u)" -ne 0 ]; then
			FAILED=$((FAILED + 1))
			note "PostgreSQL $v: FAILED (its chroot needs root)"
			continue
		fi
		# shellcheck source=scripts/pgchroot.sh
		source "$ROOT/scripts/pgchroot.sh"
		run_in_chroot "$v"
	done
fi
if [ -n "$BG_BUILD" ]; then
	build_collect "$BG_BUILD"
fi

# --- summary -------------------------------------------------------------
step "summary"
if [ "$TOP" -eq 1 ]; then
	REPORT=("here (Debian $(cat /etc/debian_version 2>/dev/null || echo '?')$( [ "$PG_HERE" -eq 0 ] || echo ", PostgreSQL $PG_MAJOR")):" "${REPORT[@]}")
fi
for r in "${REPORT[@]}"; do
	echo "$r"
done
echo "versions: PostgreSQL ${PG_VERSIONS// /, }"
if [ "$TOP" -eq 1 ]; then
	echo "builds: $(IFS=';'; echo "${BUILDS[*]-}" | sed 's/;/; /g')"
fi
echo "$PASSED passed, $FAILED failed"
if [ "$FAILED" -ne 0 ] || [ "$PASSED" -eq 0 ]; then
	exit 1
fi
exit 0
