# counter_crdt: PGXS build.
#
#   make                 build the extension
#   make install         install it into the PostgreSQL that pg_config names
#   make installcheck    pg_regress against a running server (PGHOST, PGPORT)
#   make prove_installcheck
#                        the TAP tests (test/t/*.pl) against the installed
#                        extension, as a user that may run initdb (not root);
#                        PROVE_TESTS='t/002_concurrency.pl t/016_origin.pl'
#                        picks some (relative to test/), PROVE_FLAGS adds flags
#   make core-test       build and run the unit tests of the pure C core

EXTENSION = counter_crdt
MODULE_big = counter_crdt
EXTVERSION = 1.12

# The core (src/core/): plain C, no PostgreSQL header (src/core/README.md).
CORE_SRCS = src/core/cc_base.c src/core/cc_stored.c src/core/cc_wire.c \
	src/core/cc_digest.c src/core/cc_algebra.c src/core/cc_fold.c \
	src/core/cc_fold_many.c src/core/cc_fold_forget.c src/core/cc_fold_compare.c \
	src/core/cc_ids.c \
	src/core/cc_text.c src/core/cc_json.c
CORE_HDRS = $(wildcard src/core/*.h)
# The glue (src/*/): a folder per concern, each using only the folders
# below it (doc/development.md, "The glue in floors"); module.c on top.
GLUE_SRCS = src/base/datum.c src/base/report.c src/base/extension.c src/base/hashing.c \
	src/writers/writer_ids.c src/writers/retired.c src/writers/fold.c src/writers/sweep.c \
	src/type/type_io.c src/type/value.c src/type/compare.c src/type/compare_numbers.c \
	src/type/json.c src/type/digest.c src/type/increment.c \
	src/aggregates/aggregate.c src/aggregates/agg_slots.c src/aggregates/value_aggregates.c \
	src/replica/table_check.c src/replica/replica_merge.c src/replica/local_triggers.c \
	src/replica/conflict_log.c src/replica/dropped_writers.c \
	src/operations/setup.c src/operations/health.c src/operations/metrics.c \
	src/module.c
OBJS = $(CORE_SRCS:.c=.o) $(GLUE_SRCS:.c=.o)
# The core's uuid text is libuuid's (util-linux, package uuid-dev).
SHLIB_LINK += -luuid
# Glue files name every header of the extension from src/: "core/cc_fold.h",
# "base/datum.h", "replica/table_check.h".
PG_CPPFLAGS = -I$(srcdir)/src

DATA = $(wildcard counter_crdt--*.sql)

REGRESS = type_io text_errors binary_io binary_compact increment merge value aggregate write_guard \
	parallel equality shards_digest writer_ids node_id seeds replica_merge \
	upgrade owned_objects privileges health ordering replica_hazards digest_agg \
	difference exactly_once json layout writers replica_glue latin1 fold \
	fold_forms sweep_rights retired_guards markings numbers number_plans \
	metrics metrics_tables counter_domains health_published replica_merge_cache
EXTRA_CLEAN = test/core_test test/core_test_sanitize bench/microbench bench/fold_shapes test/tmp_check

# Warnings are errors where the test command builds (COUNTER_CRDT_WERROR=1,
# which scripts/test.sh exports): PostgreSQL's own warning set and -Wextra
# (less unused parameters, which every fmgr function has) on the glue, -Wall
# -Wextra on the core, its tests and the fuzz harnesses.  Other builds (make,
# make install, the Debian package) keep warnings as warnings.
ifeq ($(COUNTER_CRDT_WERROR),1)
COPT += -Werror -Wextra -Wno-unused-parameter
CORE_WERROR = -Werror
endif

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# Digests hash with libcrypto directly where PostgreSQL was built with
# OpenSSL (src/base/hashing.c), as contrib's pgcrypto links it.
# CC_HASH_PG_COMMON=1 builds PostgreSQL's own hashing instead.
SHLIB_LINK += $(filter -lcrypto, $(LIBS))
ifdef CC_HASH_PG_COMMON
override CPPFLAGS += -DCC_HASH_PG_COMMON
endif

# The headers hold inline code: every object is rebuilt when they change.
GLUE_HDRS = $(filter-out $(CORE_HDRS),$(wildcard src/*/*.h))
$(OBJS): $(CORE_HDRS)
$(GLUE_SRCS:.c=.o): $(GLUE_HDRS)

# The TAP tests, run as PGXS's prove_installcheck runs t/*.pl (Makefile.global),
# but in test/: PostgreSQL::Test::Cluster from the PGXS tree, the server's
# bindir first on PATH, the servers' data and logs in test/tmp_check/.  The
# tests read the recipes of README.md and doc/ beside test/ (or
# COUNTER_CRDT_README, if set).  Not TAP_TESTS = 1: installcheck stays
# pg_regress alone.  test/mixed/*.pl need COUNTER_CRDT_OLD_INSTALL (an older
# PostgreSQL with counter_crdt installed); scripts/test.sh runs them.
.PHONY: prove_installcheck
prove_installcheck:
ifneq ($(enable_tap_tests),yes)
	@echo "prove_installcheck: this PostgreSQL was built without --enable-tap-tests" >&2; exit 1
endif
	@if [ "$$(id -u)" -eq 0 ]; then \
		echo "prove_installcheck: initdb refuses root; run it as another user," \
			"e.g. runuser -u postgres -- make prove_installcheck" >&2; exit 1; fi
	rm -rf '$(CURDIR)'/test/tmp_check
	$(MKDIR_P) '$(CURDIR)'/test/tmp_check
	cd test && \
		TESTDIR='$(CURDIR)/test' \
		TESTDATADIR='$(CURDIR)/test/tmp_check' \
		TESTLOGDIR='$(CURDIR)/test/tmp_check/log' \
		PATH="$(bindir):$$PATH" \
		PGPORT='6$(DEF_PGPORT)' \
		PG_REGRESS='$(top_builddir)/src/test/regress/pg_regress' \
		$(PROVE) $(PG_PROVE_FLAGS) $(PROVE_FLAGS) $(if $(PROVE_TESTS),$(PROVE_TESTS),t/*.pl)

# The pg_regress tests' names (scripts/test.sh counts them).
.PHONY: print-regress
print-regress:
	@echo $(REGRESS)

# The core unit tests need no server: plain C, built with the same compiler.
CORE_TEST_CFLAGS ?= -O2 -g -Wall -Wextra -std=c99
CORE_TEST_SRCS = $(wildcard test/core_*.c)
# Outside the server the core hashes with OpenSSL's libcrypto (libssl-dev),
# which the tests also take as the reference; uuid text is libuuid's.
CORE_TEST_LIBS = -lcrypto -luuid
CORE_TEST_HDRS = test/cc_test.h test/cc_test_capture.h test/cc_test_states.h test/cc_test_folds.h test/cc_test_shapes.h test/cc_ossl.h $(CORE_HDRS)
test/core_test: $(CORE_TEST_SRCS) $(CORE_SRCS) $(CORE_TEST_HDRS)
	$(CC) $(CORE_TEST_CFLAGS) $(CORE_WERROR) -Isrc/core -Itest -o $@ $(CORE_TEST_SRCS) $(CORE_SRCS) $(CORE_TEST_LIBS)

.PHONY: core-test
core-test: test/core_test
	./test/core_test

# The same tests under AddressSanitizer and UndefinedBehaviorSanitizer.
SANITIZE_CC ?= clang
SANITIZE_FLAGS ?= -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
test/core_test_sanitize: $(CORE_TEST_SRCS) $(CORE_SRCS) $(CORE_TEST_HDRS)
	$(SANITIZE_CC) $(SANITIZE_FLAGS) -std=c99 -Wall -Wextra $(CORE_WERROR) -Isrc/core -Itest -o $@ $(CORE_TEST_SRCS) $(CORE_SRCS) $(CORE_TEST_LIBS)

.PHONY: core-test-sanitize
core-test-sanitize: test/core_test_sanitize
	./test/core_test_sanitize 200000

# Instruction counts of the hot operations (merge, increment, sum, parse,
# format) under callgrind, to compare versions exactly.
bench/microbench: bench/microbench.c $(CORE_SRCS) $(CORE_HDRS) test/cc_ossl.h
	$(CC) $(CORE_TEST_CFLAGS) $(CORE_WERROR) -Isrc/core -Itest -o $@ bench/microbench.c $(CORE_SRCS) $(CORE_TEST_LIBS)

# Time to read, check, fold and forget values of the adversarial shapes
# (bench/fold_shapes.sh compares with the core of before issue 28).
bench/fold_shapes: bench/fold_shapes.c $(CORE_SRCS) $(CORE_HDRS) test/cc_test_shapes.h
	$(CC) $(CORE_TEST_CFLAGS) $(CORE_WERROR) -Isrc/core -Itest -o $@ bench/fold_shapes.c $(CORE_SRCS) $(CORE_TEST_LIBS)

.PHONY: microbench
microbench: bench/microbench
	bash bench/instructions.sh bench/microbench

# A PGXN distribution of the committed tree (HEAD), named from META.json's
# version: counter_crdt-$(DISTVERSION).zip.  test/meta_check.pl keeps that
# version equal to EXTVERSION.
DISTVERSION = $(shell perl -MJSON::PP -e 'local $$/; open F, "META.json" or die; print decode_json(<F>)->{version}')

.PHONY: dist
dist:
	git archive --format=zip --prefix=$(EXTENSION)-$(DISTVERSION)/ \
		-o $(EXTENSION)-$(DISTVERSION).zip HEAD

# libFuzzer harnesses of the core's decoders of outside bytes and of its
# algebra (test/fuzz/): clang with libFuzzer, AddressSanitizer and
# UndefinedBehaviorSanitizer, any report fatal.
#
#   make fuzz-short                   about 20 s per harness from a copy of the
#                                     committed seeds; fails on any crash
#   make fuzz-long [FUZZ_SECONDS=600] longer, the corpus kept in test/fuzz/work
FUZZ_CC ?= clang
FUZZ_FLAGS ?= -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-g -O1 -fno-omit-frame-pointer
FUZZ_SHORT_SECONDS ?= 20
FUZZ_SECONDS ?= 600
FUZZ_TARGETS = test/fuzz/fuzz_text test/fuzz/fuzz_binary test/fuzz/fuzz_algebra test/fuzz/fuzz_json \
	test/fuzz/fuzz_stored
EXTRA_CLEAN += $(FUZZ_TARGETS)

$(FUZZ_TARGETS): test/fuzz/%: test/fuzz/%.c test/fuzz/fuzz_common.h $(CORE_TEST_HDRS) $(CORE_SRCS)
	$(FUZZ_CC) $(FUZZ_FLAGS) -std=c99 -Wall -Wextra $(CORE_WERROR) -Isrc/core -Itest -o $@ $< $(CORE_SRCS) $(CORE_TEST_LIBS)

.PHONY: fuzz fuzz-short fuzz-long
fuzz: $(FUZZ_TARGETS)

fuzz-short: $(FUZZ_TARGETS)
	bash test/fuzz/run.sh $(FUZZ_SHORT_SECONDS) temp $(FUZZ_TARGETS)

fuzz-long: $(FUZZ_TARGETS)
	bash test/fuzz/run.sh $(FUZZ_SECONDS) test/fuzz/work $(FUZZ_TARGETS)
