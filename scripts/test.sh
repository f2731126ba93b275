#!/usr/bin/env bash
#
# test.sh: THE test command of counter_crdt.
#
#   bash scripts/test.sh
#
# 1. scripts/setup.sh (packages, build, install)
# 2. make core-test (unit tests of the pure C core, no server)
# 3. make installcheck (pg_regress) against a throwaway cluster
# 4. TAP tests, test/t/*.pl, if there are any (prove, PGXS's TAP modules)
#
# Ends with one line "N passed, N failed" (all suites together) and exits
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

step() { echo; echo "=== $* ==="; }
note() { REPORT+=("$1"); }

pgc_mktemp
WORK=$PGC_TMP		# logs of this run, removed at exit

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

# --- 2. core unit tests, plain and under ASan/UBSan -----------------------
run_core() {	# make target, label
	local rc=0 line cp=0 cf=0 log="$WORK/$1.log"
	step "core tests (make $1)"
	make -C "$ROOT" --no-print-directory PG_CONFIG="$PG_CONFIG" "$1" 2>&1 |
		tee "$log" || rc=$?
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
run_core core-test "core tests"
run_core core-test-sanitize "core ASan"

# --- 2b. a bounded libFuzzer run of every harness (about a minute) --------
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

# --- 3. pg_regress against a throwaway cluster ----------------------------
if [ "$SETUP_OK" -eq 1 ]; then
	step "regression tests (make installcheck)"
	if pg_start "" ""; then
		rc=0
		PGHOST=$PGC_HOST PGPORT=$PGC_PORT PGUSER=postgres PGDATABASE=postgres \
			make -C "$ROOT" --no-print-directory PG_CONFIG="$PG_CONFIG" installcheck 2>&1 |
			tee "$WORK/regress.log" || rc=$?
		rp=0 rf=0
		all=$(grep -E '^[[:space:]]*All [0-9]+ tests passed' "$WORK/regress.log" | tail -n 1 || true)
		some=$(grep -E '^[[:space:]]*[0-9]+ of [0-9]+ tests (failed|passed)' "$WORK/regress.log" | tail -n 1 || true)
		if [ -n "$all" ]; then
			rp=$(sed -E 's/^[[:space:]]*All ([0-9]+) tests passed.*/\1/' <<<"$all")
		elif [ -n "$some" ]; then
			# " 2 of 13 tests failed." (also "..., 1 of these failures ignored.")
			line=$some
			read -r a _ b _ <<<"$line"
			if grep -qE 'tests failed' <<<"$line"; then
				rf=$a rp=$((b - a))
			else
				rp=$a rf=$((b - a))
			fi
		else
			# No summary (pg_regress did not get that far): count the lines.
			rp=$(grep -cE '\.\.\. ok' "$WORK/regress.log" || true)
			rf=$(grep -cE '\.\.\. FAILED|\.\.\. failed' "$WORK/regress.log" || true)
		fi
		if [ "$rc" -ne 0 ] && [ "$rf" -eq 0 ]; then
			rf=1
		fi
		if [ "$rc" -ne 0 ] && [ -s "$ROOT/regression.diffs" ]; then
			echo
			echo "--- regression.diffs (first 300 lines) ---"
			head -n 300 "$ROOT/regression.diffs"
			echo "--- end of regression.diffs ($(wc -l <"$ROOT/regression.diffs") lines in $ROOT/regression.diffs) ---"
		fi
		pg_stop "$PGC_DIR" || true
		PASSED=$((PASSED + rp))
		FAILED=$((FAILED + rf))
		note "regression:  $rp passed, $rf failed"
	else
		FAILED=$((FAILED + 1))
		note "regression:  FAILED (the test cluster did not start)"
	fi
fi

# --- 4. TAP tests (test/t/*.pl) -------------------------------------------
# Hook for the TAP tests: every test/t/*.pl runs under prove, the way PGXS's
# prove_installcheck runs them (PostgreSQL::Test::Cluster from the PGXS tree,
# PG_REGRESS, the server bindir first on PATH).  Those tests run initdb and
# the server themselves, which refuse root: so they run as the postgres OS
# user, from a copy of test/ in a scratch directory that user owns (TESTDIR,
# where tmp_check/ and the logs go).  Counts are subtests, as prove reports.
shopt -s nullglob
tap_files=("$ROOT"/test/t/*.pl)
shopt -u nullglob
if [ "${#tap_files[@]}" -gt 0 ] && [ "$SETUP_OK" -eq 1 ]; then
	step "TAP tests (prove test/t/*.pl)"
	# --pgxs is .../lib/pgxs/src/makefiles/pgxs.mk; PGXS_DIR is .../lib/pgxs
	PGXS_DIR=$(cd "$(dirname "$("$PG_CONFIG" --pgxs)")/../.." && pwd)
	BINDIR=$("$PG_CONFIG" --bindir)
	pgc_mktemp
	TAPDIR=$PGC_TMP
	cp -a "$ROOT/test" "$TAPDIR/test"
	# The recipes of README.md are run as written (test/t/ReadmeRecipe.pm).
	cp "$ROOT/README.md" "$TAPDIR/README.md"
	rm -rf "$TAPDIR/test/tmp_check"
	mkdir -p "$TAPDIR/test/tmp_check"
	[ "$(id -u)" -eq 0 ] && chown -R postgres: "$TAPDIR"
	read -r -a prove_flags <<<"${PROVE_FLAGS:-}"
	tap_env=(
		env -u PGHOST -u PGPORT -u PGUSER -u PGDATABASE -u PGDATA
		HOME="$TAPDIR"
		TESTDIR="$TAPDIR/test"
		COUNTER_CRDT_README="$TAPDIR/README.md"
		PATH="$BINDIR:$PATH"
		PGPORT="65432"
		PG_REGRESS="$PGXS_DIR/src/test/regress/pg_regress"
		PG_CONFIG="$PG_CONFIG"
		PERL5LIB="$PGXS_DIR/src/test/perl${PERL5LIB:+:$PERL5LIB}"
		prove -I "$PGXS_DIR/src/test/perl/" -I . ${prove_flags[@]+"${prove_flags[@]}"}
	)
	for f in "${tap_files[@]}"; do
		tap_env+=("t/$(basename "$f")")
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
	done < <(sed -nE 's/^(t\/[^ ]+\.pl) +\(Wstat: [0-9]+.* Tests: [0-9]+ Failed: ([0-9]+)\).*/\1 \2/p' "$WORK/tap.log")
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
	note "TAP:         $tp passed, $tf failed"
fi

# --- summary -------------------------------------------------------------
step "summary"
for r in "${REPORT[@]}"; do
	echo "$r"
done
echo "$PASSED passed, $FAILED failed"
if [ "$FAILED" -ne 0 ] || [ "$PASSED" -eq 0 ]; then
	exit 1
fi
exit 0
