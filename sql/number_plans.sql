--
-- How the planner reads a counter compared with a number.  Where the column
-- has an index on (c::bigint), as c::bigint op n (the comparisons' support
-- function), so the index serves WHERE c > n, BETWEEN, = n and IN, and its
-- statistics estimate them; elsewhere the operator stays and estimates from
-- the column's own statistics.  And what an untyped parameter or literal
-- does.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS counter_crdt;
RESET client_min_messages;

-- A skewed table: value 1,000,000 / k for k = 1 .. 20,000 (most small, a
-- few large), every 50th a tombstone, some NULLs.
CREATE TABLE np (k int PRIMARY KEY, c counter_crdt);
INSERT INTO np
  SELECT g, CASE WHEN g % 50 = 0 THEN 'tombstone'::counter_crdt
                 WHEN g % 77 = 0 THEN NULL
                 ELSE ('{00000000-0000-0000-0000-00000000000a:1:' || 1000000 / g || '}')::counter_crdt END
    FROM generate_series(1, 20000) g;
ANALYZE np;

-- The index named, if the plan of q scans it; and the planner's row count
-- for q against the rows q returns.
CREATE FUNCTION pg_temp.index_of(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  plan text;
BEGIN
  EXECUTE 'EXPLAIN (FORMAT JSON, COSTS OFF) ' || q INTO plan;
  RETURN substring(plan FROM '"Index Name": "([a-z0-9_]+)"');
END
$$;
CREATE FUNCTION pg_temp.estimate(q text, OUT estimated bigint, OUT actual bigint, OUT within_2x boolean)
LANGUAGE plpgsql AS $$
DECLARE
  plan json;
BEGIN
  EXECUTE 'EXPLAIN (FORMAT JSON) ' || q INTO plan;
  estimated := (plan -> 0 -> 'Plan' ->> 'Plan Rows')::bigint;
  EXECUTE 'SELECT count(*) FROM (' || q || ') x' INTO actual;
  within_2x := estimated <= 2 * greatest(actual, 1) AND actual <= 2 * greatest(estimated, 1);
END
$$;

-- No index on the value: the operator stays, estimated from the column's
-- statistics (common values and histogram, read through the operator):
-- within 2x of the rows at each threshold of the skewed values.
EXPLAIN (COSTS OFF) SELECT k FROM np WHERE c > 10000;
SELECT q, e.*
  FROM unnest(ARRAY[
    'SELECT k FROM np WHERE c > 10',
    'SELECT k FROM np WHERE c > 1000',
    'SELECT k FROM np WHERE c < 100',
    'SELECT k FROM np WHERE 500 <= c',
    'SELECT k FROM np WHERE c BETWEEN 100 AND 200',
    'SELECT k FROM np WHERE c = 50']) q, pg_temp.estimate(q) e;
-- An index on the state (c), or on another column's value, is no index on
-- this value: the operator stays.
CREATE INDEX np_state ON np (c);
ALTER TABLE np ADD COLUMN d counter_crdt;
CREATE INDEX np_d_value ON np ((d::bigint));
EXPLAIN (COSTS OFF) SELECT k FROM np WHERE c > 10000;
DROP INDEX np_state, np_d_value;
ALTER TABLE np DROP COLUMN d;

CREATE INDEX np_value ON np ((c::bigint));
ANALYZE np;

-- Each comparison, either side, smallint to bigint, BETWEEN: the index.
SELECT q, pg_temp.index_of(q) AS index
  FROM unnest(ARRAY[
    'SELECT k FROM np WHERE c > 10000',
    'SELECT k FROM np WHERE c >= 10000::smallint',
    'SELECT k FROM np WHERE 10000::bigint < c',
    'SELECT k FROM np WHERE c < -5',
    'SELECT k FROM np WHERE c <= -5',
    'SELECT k FROM np WHERE c = 3125',
    'SELECT k FROM np WHERE 3125 = c',
    'SELECT k FROM np WHERE c BETWEEN 20000 AND 30000',
    'SELECT k FROM np WHERE c IN (3125, 20000)',
    'SELECT k FROM np WHERE c > 10000 AND k > 3',
    'SELECT k FROM np ORDER BY c::bigint DESC LIMIT 10']) q;
EXPLAIN (COSTS OFF) SELECT k FROM np WHERE c > 10000;
EXPLAIN (COSTS OFF) SELECT k FROM np WHERE c BETWEEN 20000 AND 30000;
-- The same rows as the value read as bigint, with and without the index.
SELECT (SELECT array_agg(k ORDER BY k) FROM np WHERE c > 10000)
       = (SELECT array_agg(k ORDER BY k) FROM np WHERE c::bigint > 10000) AS gt_same,
       (SELECT count(*) FROM np WHERE c > 10000) AS gt_rows,
       (SELECT count(*) FROM np WHERE c BETWEEN 20000 AND 30000) AS between_rows,
       (SELECT count(*) FROM np WHERE c = 3125) AS eq_rows;
SET enable_indexscan = off;
SET enable_bitmapscan = off;
SELECT (SELECT count(*) FROM np WHERE c > 10000) AS gt_rows,
       (SELECT count(*) FROM np WHERE c BETWEEN 20000 AND 30000) AS between_rows,
       (SELECT count(*) FROM np WHERE c = 3125) AS eq_rows;
RESET enable_indexscan;
RESET enable_bitmapscan;
-- Against numeric the value is read as numeric: not the bigint index.
SELECT pg_temp.index_of('SELECT k FROM np WHERE c > 10000.5') AS numeric_index;
SELECT count(*) AS numeric_rows FROM np WHERE c > 10000.5;
EXPLAIN (COSTS OFF) SELECT k FROM np WHERE c > 10000.5::float8;
SELECT count(*) AS float8_rows FROM np WHERE c > 10000.5::float8;
-- ORDER BY c orders states (by value, then shards): a btree index on c
-- itself serves it; the top values by either order are the same rows here.
CREATE INDEX np_state ON np (c);
SELECT pg_temp.index_of('SELECT k FROM np ORDER BY c DESC LIMIT 10') AS order_by_c_index;
SELECT array(SELECT k FROM np WHERE c IS NOT NULL AND c <> 'tombstone' ORDER BY c DESC LIMIT 10)
       = array(SELECT k FROM np ORDER BY c::bigint DESC NULLS LAST LIMIT 10) AS same_top_10;
DROP INDEX np_state;

-- With the index, estimates from the statistics of the indexed expression:
-- within 2x of the rows, at each threshold of the skewed values.
SELECT q, e.*
  FROM unnest(ARRAY[
    'SELECT k FROM np WHERE c > 10',
    'SELECT k FROM np WHERE c > 1000',
    'SELECT k FROM np WHERE c < 100',
    'SELECT k FROM np WHERE 500 <= c',
    'SELECT k FROM np WHERE c BETWEEN 100 AND 200',
    'SELECT k FROM np WHERE c = 50']) q, pg_temp.estimate(q) e;
-- The same index on a partitioned table: planned on the parent, served in
-- each partition.
CREATE TABLE npp (k int, c counter_crdt, PRIMARY KEY (k)) PARTITION BY RANGE (k);
CREATE TABLE npp_1 PARTITION OF npp FOR VALUES FROM (1) TO (10001);
CREATE TABLE npp_2 PARTITION OF npp FOR VALUES FROM (10001) TO (20001);
INSERT INTO npp SELECT k, c FROM np;
CREATE INDEX npp_value ON npp ((c::bigint));
ANALYZE npp;
SELECT pg_temp.index_of('SELECT k FROM npp WHERE c > 10000') AS partition_index;
SELECT count(*) AS npp_rows FROM npp WHERE c > 10000;
DROP TABLE npp;

-- ON CONFLICT's arbiter predicate is not rewritten: it still matches a
-- unique partial index on WHERE c > 5 once an index on c::bigint exists.
CREATE TABLE npc (k int, c counter_crdt);
CREATE UNIQUE INDEX npc_big_k ON npc (k) WHERE c > 5;
INSERT INTO npc VALUES (1, '{00000000-0000-0000-0000-00000000000a:1:10}');
INSERT INTO npc VALUES (1, '{00000000-0000-0000-0000-00000000000a:2:20}')
  ON CONFLICT (k) WHERE c > 5 DO UPDATE SET c = counter_crdt_merge(npc.c, EXCLUDED.c);
CREATE INDEX npc_value ON npc ((c::bigint));
INSERT INTO npc VALUES (1, '{00000000-0000-0000-0000-00000000000a:3:30}')
  ON CONFLICT (k) WHERE c > 5 DO UPDATE SET c = counter_crdt_merge(npc.c, EXCLUDED.c)
  WHERE npc.c > 15;
INSERT INTO npc VALUES (1, '{00000000-0000-0000-0000-00000000000a:4:40}')
  ON CONFLICT (k) WHERE c > 5 DO NOTHING;
SELECT k, c, c::bigint FROM npc;
-- its DO UPDATE ... WHERE compares the value too, as written
INSERT INTO npc VALUES (1, '{00000000-0000-0000-0000-00000000000a:5:50}')
  ON CONFLICT (k) WHERE c > 5 DO UPDATE SET c = counter_crdt_merge(npc.c, EXCLUDED.c)
  WHERE npc.c > 1000;
SELECT k, c::bigint FROM npc;
-- a SELECT of the same table is still served by the value index (where
-- the partial index cannot serve it: 19 may choose that one for c > 5)
SET enable_seqscan = off;
SELECT pg_temp.index_of('SELECT k FROM npc WHERE c > 20') AS value_index;
RESET enable_seqscan;
DROP TABLE npc;

-- Estimates never fail on a value that the query does not read.  The
-- statistics below hold a value outside bigint (most common, and in the
-- histogram), which the rows no longer hold when the queries run.
CREATE TABLE nps (k int PRIMARY KEY, c counter_crdt, n int);
INSERT INTO nps
  SELECT g, CASE WHEN g <= 400 THEN '{00000000-0000-0000-0000-00000000000a:1:9223372036854775807, 00000000-0000-0000-0000-00000000000b:1:1}'::counter_crdt
                 WHEN g <= 600 THEN '{00000000-0000-0000-0000-00000000000a:1:-9223372036854775808, 00000000-0000-0000-0000-00000000000b:1:-1}'::counter_crdt
                 WHEN g % 10 = 0 THEN 'tombstone'
                 ELSE ('{00000000-0000-0000-0000-00000000000a:1:' || g || '}')::counter_crdt END,
         g % 7
    FROM generate_series(1, 2000) g;
ANALYZE nps;
SELECT count(*) > 0 AS stats_hold_a_wide_value FROM pg_stats
 WHERE tablename = 'nps' AND attname = 'c'
   AND (most_common_vals::text LIKE '%9223372036854775807%' OR histogram_bounds::text LIKE '%9223372036854775807%');
-- The estimates read the exact values, outside bigint too: of the 2,000
-- rows, 400 hold 2^63, 200 hold -2^63 - 1, 140 are tombstones and 1,260
-- hold 601 .. 1,999.
CREATE FUNCTION pg_temp.planned_rows(q text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  plan json;
BEGIN
  EXECUTE 'EXPLAIN (FORMAT JSON) ' || q INTO plan;
  RETURN (plan -> 0 -> 'Plan' ->> 'Plan Rows')::bigint;
END
$$;
SELECT q, r BETWEEN lo AND hi AS near, CASE WHEN r NOT BETWEEN lo AND hi THEN r END AS off_by
  FROM (VALUES ('SELECT k FROM nps WHERE c > 0', 1500, 1800),
               ('SELECT k FROM nps WHERE c < 0', 170, 230),
               ('SELECT k FROM nps WHERE c > 9000000000000000000', 340, 460),
               ('SELECT k FROM nps WHERE c < -9e18', 170, 230),
               ('SELECT k FROM nps WHERE c < -1e19', 0, 20),
               ('SELECT k FROM nps WHERE c > 9e18::float8', 340, 460),
               ('SELECT k FROM nps WHERE c > 9.3e18::float8', 0, 20),
               ('SELECT k FROM nps WHERE c = 5', 0, 5),
               ('SELECT k FROM nps WHERE c BETWEEN 1000 AND 1500', 225, 675)) v(q, lo, hi),
       pg_temp.planned_rows(q) r;
-- While the rows hold it, a query that reads it fails as c::bigint does
-- (22003), when it runs; planning it does not.
\set VERBOSITY sqlstate
SELECT count(*) FROM nps WHERE c > 0;
\set VERBOSITY default
EXPLAIN (COSTS OFF) SELECT count(*) FROM nps WHERE c > 0;
-- Fixed rows, the statistics not yet renewed: every shape plans and runs.
UPDATE nps SET c = '{00000000-0000-0000-0000-00000000000a:1:5}' WHERE k <= 600;
SELECT count(*) AS gt_0 FROM nps WHERE c > 0;
SELECT count(*) AS ge_1000 FROM nps WHERE c >= 1000::smallint;
SELECT count(*) AS lt_1000 FROM nps WHERE c < 1000::bigint;
SELECT count(*) AS le_1000 FROM nps WHERE 1000 >= c;
SELECT count(*) AS eq_5 FROM nps WHERE c = 5;
SELECT count(*) AS ne_5 FROM nps WHERE c <> 5;
SELECT count(*) AS between_rows FROM nps WHERE c BETWEEN 700 AND 900;
SELECT count(*) AS numeric_rows FROM nps WHERE c > 1000.5;
SELECT count(*) AS numeric_huge FROM nps WHERE c < 1e30;
SELECT count(*) AS float8_rows FROM nps WHERE c > 1000.5::float8;
SELECT count(*) AS in_rows FROM nps WHERE c IN (5, 701, 702);
SELECT count(*) AS join_rows FROM nps a JOIN nps b ON a.c = b.n;
SELECT count(*) AS join_ne_rows FROM nps a JOIN nps b ON a.c <> b.n WHERE b.k <= 10;
DROP TABLE nps;

-- The rewrite names pg_catalog's operators and the casts by type: look-
-- alikes first on the path are not called.
CREATE SCHEMA evil;
CREATE FUNCTION evil.gt(bigint, integer) RETURNS boolean LANGUAGE plpgsql AS
  $$BEGIN RAISE EXCEPTION 'evil.gt ran'; END$$;
CREATE OPERATOR evil.> (LEFTARG = bigint, RIGHTARG = integer, FUNCTION = evil.gt);
CREATE FUNCTION evil.counter_crdt_value(counter_crdt) RETURNS bigint LANGUAGE plpgsql AS
  $$BEGIN RAISE EXCEPTION 'evil.counter_crdt_value ran'; END$$;
SET search_path = evil, pg_catalog, public;
SELECT count(*) AS gt_rows FROM np WHERE c > 10000;
SELECT count(*) AS gt_any_rows FROM np WHERE c > ANY (ARRAY[10000]);
RESET search_path;
DROP SCHEMA evil CASCADE;

-- Untyped: an unknown literal or parameter takes the counter's type, so
-- '100' is read as a counter's text and refused (22P02); the hint says
-- what to write.  Typed, the comparison is of values.
\set VERBOSITY sqlstate
SELECT count(*) FROM np WHERE c > '100';
\set VERBOSITY default
SELECT count(*) FROM np WHERE c > '100';
SELECT count(*) FROM np WHERE c > ' -2.5 ';
PREPARE untyped AS SELECT count(*) FROM np WHERE c > $1;
EXECUTE untyped('100');
PREPARE typed AS SELECT count(*) FROM np WHERE c > $1::bigint;
EXECUTE typed('100');
PREPARE read_value AS SELECT count(*) FROM np WHERE c::bigint > $1;
EXECUTE read_value('100');
-- text that is no number gets no hint
SELECT count(*) FROM np WHERE c > 'abc';
SELECT count(*) FROM np WHERE c > '1e5x';
DEALLOCATE ALL;

DROP TABLE np;
