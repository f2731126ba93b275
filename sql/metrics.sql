--
-- Metrics (issue 31): counter_crdt_stat, one row per counter column, with
-- exact figures on small known tables; who sees which rows; no user code
-- run while the tables are read (src/metrics.c, doc/metrics.md).
--
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS cc_metrics CASCADE;
DROP SCHEMA IF EXISTS cc_metrics2 CASCADE;
DROP SCHEMA IF EXISTS cc_evil CASCADE;
DROP ROLE IF EXISTS regress_cc_mon;
DROP ROLE IF EXISTS regress_cc_nobody;
DROP ROLE IF EXISTS regress_cc_reader;
DROP ROLE IF EXISTS regress_cc_colreader;
CREATE EXTENSION IF NOT EXISTS counter_crdt;
RESET client_min_messages;
CREATE SCHEMA cc_metrics;
\set a '00000000-0000-0000-0000-00000000000a'
\set b '00000000-0000-0000-0000-00000000000b'
\set c '00000000-0000-0000-0000-00000000000c'
\set d '00000000-0000-0000-0000-00000000000d'
\set e '00000000-0000-0000-0000-00000000000e'
\set t '00000000-0000-0000-0000-0000000000ff'

-- Column c: 151 counters, 149 of one shard, one of two, one of four
-- (ceil(0.99 * 151) = 150: the 150th smallest is 2; the 149th is 1, the
-- 151st 4); the last of one shard is b's, at the place where the others
-- have a's.  Column d: three tombstones, one counter without shards, one
-- with a clock beyond 32 bits, NULL elsewhere.
CREATE TABLE cc_metrics.p (k int PRIMARY KEY, c counter_crdt, d counter_crdt);
INSERT INTO cc_metrics.p (k, c) SELECT i, format('{%s:1:1}', :'a')::counter_crdt FROM generate_series(1, 148) i;
INSERT INTO cc_metrics.p (k, c) VALUES
  (149, format('{%s:1:1, %s:2:2}', :'a', :'b')::counter_crdt),
  (150, format('{%s:1:1, %s:1:1, %s:1:1, %s:1:1}', :'a', :'b', :'c', :'d')::counter_crdt),
  (151, format('{%s:1:1}', :'b')::counter_crdt);
UPDATE cc_metrics.p SET d = 'tombstone' WHERE k <= 3;
UPDATE cc_metrics.p SET d = '{}' WHERE k = 4;
UPDATE cc_metrics.p SET d = format('{%s:5000000000:7}', :'e')::counter_crdt WHERE k = 5;

-- Fold records: k 1 a finished fold of a into t; k 2 the same and a late
-- shard of a (pending); k 4 folds of a and b into t, both with late shards
-- (two pending); k 3 none.
CREATE TABLE cc_metrics.f (k int PRIMARY KEY, c counter_crdt);
INSERT INTO cc_metrics.f VALUES
  (1, counter_crdt_fold(format('{%s:3:10, %s:2:5}', :'a', :'t')::counter_crdt, :'a', :'t')),
  (2, counter_crdt_merge(counter_crdt_fold(format('{%s:3:10, %s:2:5}', :'a', :'t')::counter_crdt, :'a', :'t'),
                         format('{%s:4:12}', :'a')::counter_crdt)),
  (3, format('{%s:1:1}', :'t')::counter_crdt),
  (4, counter_crdt_merge(counter_crdt_fold(counter_crdt_fold(format('{%s:3:10, %s:3:10, %s:2:5}', :'a', :'b', :'t')::counter_crdt, :'a', :'t'), :'b', :'t'),
                         format('{%s:4:12, %s:5:11}', :'a', :'b')::counter_crdt));
-- What counter_crdt_fold_pending() says of them, per retired writer.
SELECT k, cardinality(array_agg(DISTINCT x.retired)) AS retired,
       count(DISTINCT x.retired) FILTER (WHERE counter_crdt_fold_pending(c, x.retired)) AS pending
  FROM cc_metrics.f, counter_crdt_folds(c) x GROUP BY k ORDER BY k;

-- A TOASTed value of 1,500 shards, then one of 1,100 (both beyond the
-- exact buckets of 1,024: the percentile sorts them).
CREATE TABLE cc_metrics.big (k int PRIMARY KEY, c counter_crdt);
INSERT INTO cc_metrics.big
  SELECT n, ('{' || string_agg(format('%s:1:1', md5(i::text)::uuid), ', ') || '}')::counter_crdt
    FROM (VALUES (1, 1500), (2, 1100)) v(n, m), generate_series(1, m) i GROUP BY n ORDER BY n;
SELECT pg_relation_size(reltoastrelid) > 0 AS toasted FROM pg_class WHERE oid = 'cc_metrics.big'::regclass;

-- An empty table; a partitioned one (a row per partition, none for the parent).
CREATE TABLE cc_metrics.e (k int, c counter_crdt);
CREATE TABLE cc_metrics.pt (k int, c counter_crdt) PARTITION BY RANGE (k);
CREATE TABLE cc_metrics.pt1 PARTITION OF cc_metrics.pt FOR VALUES FROM (1) TO (10);
CREATE TABLE cc_metrics.pt2 PARTITION OF cc_metrics.pt FOR VALUES FROM (10) TO (20);
INSERT INTO cc_metrics.pt VALUES (1, format('{%s:1:1}', :'a')::counter_crdt), (2, 'tombstone'),
  (11, format('{%s:1:1, %s:1:1}', :'a', :'b')::counter_crdt), (12, format('{%s:1:1, %s:1:1}', :'a', :'c')::counter_crdt);

-- Recorded conflicts: an own-id conflict and a clock near its limit,
-- played as replication apply (sql/health.sql).
CREATE TABLE cc_metrics.r (k int PRIMARY KEY, c counter_crdt);
SELECT counter_crdt_enable_replica_merge('cc_metrics.r');
SET counter_crdt.node_id = '00000000-0000-0000-0000-0000000000aa';
INSERT INTO cc_metrics.r VALUES (1, '{}'::counter_crdt + 5);
CREATE TEMP TABLE health_before AS SELECT * FROM counter_crdt_stat_health;
SET client_min_messages = error;
SET session_replication_role = replica;
UPDATE cc_metrics.r SET c = '{00000000-0000-0000-0000-0000000000aa:2:6}' WHERE k = 1;
UPDATE cc_metrics.r SET c = '{00000000-0000-0000-0000-0000000000bb:4611686018427387904:1}' WHERE k = 1;
RESET session_replication_role;
RESET client_min_messages;
RESET counter_crdt.node_id;

SELECT * FROM counter_crdt_stat WHERE table_name::text LIKE 'cc_metrics.%';

-- The health problems by kind: every kind has a row; the two recorded
-- conflicts are one problem each.
SELECT count(*) AS kinds, count(DISTINCT kind) AS distinct_kinds FROM counter_crdt_stat_health;
SELECT kind, b.problems AS before, h.problems AS after
  FROM counter_crdt_stat_health h JOIN health_before b USING (kind)
 WHERE h.problems <> b.problems ORDER BY kind;

-- Who sees which rows.  A member of pg_monitor: every table.  A role that
-- may SELECT a table: that table, unless row security applies to it (the
-- figures would tell of rows a policy hides).  A role granted one column:
-- that column.  Any other role: none.
CREATE ROLE regress_cc_mon IN ROLE pg_monitor;
CREATE ROLE regress_cc_nobody;
CREATE ROLE regress_cc_reader;
CREATE ROLE regress_cc_colreader;
GRANT SELECT ON cc_metrics.f TO regress_cc_reader;
GRANT SELECT (d) ON cc_metrics.p TO regress_cc_colreader;

-- A table whose policy raises an error whenever it runs, row security
-- forced on its owner too, readable by regress_cc_reader.
CREATE FUNCTION cc_metrics.boom() RETURNS boolean LANGUAGE plpgsql AS
$$BEGIN RAISE EXCEPTION 'a policy ran'; END$$;
CREATE TABLE cc_metrics.sec (k int, c counter_crdt);
INSERT INTO cc_metrics.sec VALUES (1, format('{%s:1:1}', :'a')::counter_crdt), (2, format('{%s:1:1}', :'b')::counter_crdt);
ALTER TABLE cc_metrics.sec ENABLE ROW LEVEL SECURITY;
ALTER TABLE cc_metrics.sec FORCE ROW LEVEL SECURITY;
CREATE POLICY sec_boom ON cc_metrics.sec USING (cc_metrics.boom());
GRANT SELECT ON cc_metrics.sec TO regress_cc_reader;
GRANT USAGE ON SCHEMA cc_metrics TO regress_cc_reader, regress_cc_colreader;
SET ROLE regress_cc_reader;
SELECT count(*) FROM cc_metrics.sec;  -- a query runs the policy
RESET ROLE;

-- Operators and functions on the search_path ahead of everything that
-- raise an error whenever they run.
CREATE SCHEMA cc_evil;
GRANT USAGE ON SCHEMA cc_evil TO PUBLIC;
CREATE FUNCTION cc_evil.uuid_eq(uuid, uuid) RETURNS boolean LANGUAGE plpgsql AS
$$BEGIN RAISE EXCEPTION 'an operator on the search_path ran'; END$$;
CREATE OPERATOR cc_evil.= (LEFTARG = uuid, RIGHTARG = uuid, FUNCTION = cc_evil.uuid_eq);
CREATE FUNCTION cc_evil.count_eq(counter_crdt, counter_crdt) RETURNS boolean LANGUAGE plpgsql AS
$$BEGIN RAISE EXCEPTION 'an operator on the search_path ran'; END$$;
CREATE OPERATOR cc_evil.= (LEFTARG = counter_crdt, RIGHTARG = counter_crdt, FUNCTION = cc_evil.count_eq);
CREATE FUNCTION cc_evil.counter_crdt_shards(counter_crdt) RETURNS SETOF record LANGUAGE plpgsql AS
$$BEGIN RAISE EXCEPTION 'a function on the search_path ran'; END$$;

SET search_path = cc_evil, public, pg_catalog;
SET ROLE regress_cc_mon;
SELECT table_name, column_name, counters, tombstones, writers, shards
  FROM public.counter_crdt_stat WHERE table_name::text LIKE 'cc_metrics.%';
SET ROLE regress_cc_reader;
SELECT table_name, column_name, counters FROM public.counter_crdt_stat WHERE table_name::text LIKE 'cc_metrics.%';
SET ROLE regress_cc_colreader;
SELECT table_name, column_name, counters FROM public.counter_crdt_stat WHERE table_name::text LIKE 'cc_metrics.%';
SET ROLE regress_cc_nobody;
SELECT count(*) AS rows_seen FROM public.counter_crdt_stat WHERE table_name::text LIKE 'cc_metrics.%';
SELECT count(*) AS rows_seen FROM public.counter_crdt_metrics() WHERE table_name::text LIKE 'cc_metrics.%';
RESET ROLE;
RESET search_path;

-- A table dropped or rewritten shows the new figures; a table without
-- counter columns has no row.
DELETE FROM cc_metrics.p WHERE k > 100;
ALTER TABLE cc_metrics.f DROP COLUMN c;
SELECT table_name, column_name, counters, tombstones, writers, shards, shards_max, shards_p99
  FROM counter_crdt_stat WHERE table_name::text LIKE 'cc_metrics.%' AND table_name::text IN ('cc_metrics.p', 'cc_metrics.f');

-- Figures the tables above leave alone, each one a slip they would miss.
CREATE SCHEMA cc_metrics2;
\set u '00000000-0000-0000-0000-0000000000fe'

-- The rank of the percentile.  Column c: 99 counters, 98 of one shard and
-- the last of two (ceil(0.99 * 99) = 99: the 99th is 2, the 98th 1).
-- Column d: 200 counters, 197 of one shard, then values of 1,500, 1,100
-- and 1,200 shards in that order (ceil(0.99 * 200) = 198: the 198th is
-- the smallest of the three sorted, 1,100; the 199th is 1,200).
CREATE TABLE cc_metrics2.q (k int PRIMARY KEY, c counter_crdt, d counter_crdt);
INSERT INTO cc_metrics2.q (k, c, d)
  SELECT i, CASE WHEN i < 99 THEN format('{%s:1:1}', :'a')::counter_crdt
                 WHEN i = 99 THEN format('{%s:1:1, %s:1:1}', :'a', :'b')::counter_crdt END,
         format('{%s:1:1}', :'a')::counter_crdt
    FROM generate_series(1, 197) i;
INSERT INTO cc_metrics2.q (k, d)
  SELECT 197 + n, ('{' || string_agg(format('%s:1:1', md5(i::text)::uuid), ', ') || '}')::counter_crdt
    FROM (VALUES (1, 1500), (2, 1100), (3, 1200)) v(n, m), generate_series(1, m) i GROUP BY n ORDER BY n;

-- Pending folds, once per counter and retired writer.  k 1: a folded into
-- t, then a late shard of a whose value is the one folded (nothing left to
-- fold, but the shard is back: pending).  k 2: a folded into t on one
-- server and into u on another (two records for a), then a late shard of
-- a: one pending pair, not two.  k 3: the same two folds, no late shard:
-- a's 10 taken twice, to give back (pending though a is gone).
CREATE TABLE cc_metrics2.g (k int PRIMARY KEY, c counter_crdt);
INSERT INTO cc_metrics2.g VALUES
  (1, counter_crdt_merge(counter_crdt_fold(format('{%s:3:10, %s:2:5}', :'a', :'t')::counter_crdt, :'a', :'t'),
                         format('{%s:4:10}', :'a')::counter_crdt)),
  (2, counter_crdt_merge(counter_crdt_merge(
        counter_crdt_fold(format('{%s:3:10, %s:2:5}', :'a', :'t')::counter_crdt, :'a', :'t'),
        counter_crdt_fold(format('{%s:3:10, %s:2:5}', :'a', :'u')::counter_crdt, :'a', :'u')),
      format('{%s:4:12}', :'a')::counter_crdt)),
  (3, counter_crdt_merge(
        counter_crdt_fold(format('{%s:3:10, %s:2:5}', :'a', :'t')::counter_crdt, :'a', :'t'),
        counter_crdt_fold(format('{%s:3:10, %s:2:5}', :'a', :'u')::counter_crdt, :'a', :'u')));
SELECT k, count(*) AS records, count(DISTINCT x.retired) AS retired,
       bool_and(counter_crdt_fold_pending(c, x.retired)) AS pending
  FROM cc_metrics2.g, counter_crdt_folds(c) x GROUP BY k ORDER BY k;

-- The nil uuid as a writer, first in a column: counted like any other.
CREATE TABLE cc_metrics2.z (k int, c counter_crdt);
INSERT INTO cc_metrics2.z VALUES (1, '{00000000-0000-0000-0000-000000000000:1:1}');

-- Recorded conflicts counted apart: column c two own-id conflicts and one
-- clock near its limit, column d of the same row none.
CREATE TABLE cc_metrics2.r (k int PRIMARY KEY, c counter_crdt, d counter_crdt);
SELECT counter_crdt_enable_replica_merge('cc_metrics2.r');
SET counter_crdt.node_id = '00000000-0000-0000-0000-0000000000aa';
INSERT INTO cc_metrics2.r VALUES (1, '{}'::counter_crdt + 5, '{}'::counter_crdt + 1);
SET client_min_messages = error;
SET session_replication_role = replica;
UPDATE cc_metrics2.r SET c = '{00000000-0000-0000-0000-0000000000aa:2:6}' WHERE k = 1;
UPDATE cc_metrics2.r SET c = '{00000000-0000-0000-0000-0000000000aa:3:7}' WHERE k = 1;
UPDATE cc_metrics2.r SET c = '{00000000-0000-0000-0000-0000000000bb:4611686018427387904:1}' WHERE k = 1;
RESET session_replication_role;
RESET client_min_messages;
RESET counter_crdt.node_id;

SELECT * FROM counter_crdt_stat WHERE table_name::text LIKE 'cc_metrics2.%';

-- Conflicts belong to the column by number: renamed, it keeps them (in the
-- summary under its new name); dropped, a new column of its old name
-- starts with none, and the summary keeps the recorded name.
ALTER TABLE cc_metrics2.r RENAME COLUMN c TO views;
SELECT column_name, own_id_conflicts, clocks_near_limit
  FROM counter_crdt_stat WHERE table_name = 'cc_metrics2.r'::regclass ORDER BY 1;
SELECT column_name, column_number, count(*) FROM counter_crdt_writer_conflict_summary
 WHERE table_name = 'cc_metrics2.r'::regclass GROUP BY 1, 2;
ALTER TABLE cc_metrics2.r RENAME COLUMN d TO c;
ALTER TABLE cc_metrics2.r DROP COLUMN views;
ALTER TABLE cc_metrics2.r ADD COLUMN views counter_crdt;
SELECT column_name, own_id_conflicts, clocks_near_limit
  FROM counter_crdt_stat WHERE table_name = 'cc_metrics2.r'::regclass ORDER BY 1;
SELECT column_name, column_number, count(*) FROM counter_crdt_writer_conflict_summary
 WHERE table_name = 'cc_metrics2.r'::regclass GROUP BY 1, 2;

-- Every role may read the health counts too.
SET ROLE regress_cc_nobody;
SELECT count(*) AS kinds FROM counter_crdt_stat_health;
RESET ROLE;

SET client_min_messages = warning;
DROP SCHEMA cc_metrics CASCADE;
DROP SCHEMA cc_metrics2 CASCADE;
DROP SCHEMA cc_evil CASCADE;
RESET client_min_messages;
DROP ROLE regress_cc_mon;
DROP ROLE regress_cc_nobody;
DROP ROLE regress_cc_reader;
DROP ROLE regress_cc_colreader;
