--
-- ordering: the btree operator class (since 1.2).  Live counters by their
-- exact value, tombstones after them all, counters of equal value by their
-- shards in id order, each as (id, clock, value), a prefix first.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS counter_crdt;
RESET client_min_messages;

-- Values with ties in value, two tombstones, {}, sums outside bigint both
-- ways, equal states written differently, and NULL.
CREATE TABLE ord_v (k int PRIMARY KEY, c counter_crdt);
INSERT INTO ord_v VALUES
  (1, '{00000000-0000-0000-0000-00000000000a:1:5}'),
  (2, '{00000000-0000-0000-0000-00000000000b:1:5}'),
  (3, '{00000000-0000-0000-0000-00000000000a:2:5}'),
  (4, '{00000000-0000-0000-0000-00000000000a:1:2, 00000000-0000-0000-0000-00000000000b:1:3}'),
  (5, '{}'),
  (6, '{00000000-0000-0000-0000-00000000000a:1:0}'),
  (7, 'tombstone'),
  (8, '{00000000-0000-0000-0000-00000000000a:1:9223372036854775807, 00000000-0000-0000-0000-00000000000b:1:1}'),
  (9, '{00000000-0000-0000-0000-00000000000a:1:-9223372036854775808, 00000000-0000-0000-0000-00000000000b:1:-1}'),
  (10, '{00000000-0000-0000-0000-00000000000a:1:-9223372036854775808}'),
  (11, '{00000000-0000-0000-0000-00000000000a:1:9223372036854775807}'),
  (12, '{00000000-0000-0000-0000-00000000000a:1:9223372036854775807, 00000000-0000-0000-0000-00000000000b:1:9223372036854775807, ffffffff-ffff-ffff-ffff-ffffffffffff:1:-3}'),
  (13, 'TOMBSTONE'),
  (14, NULL),
  (15, '{00000000-0000-0000-0000-00000000000B:1:5}'),
  (16, '{7fffffff-ffff-ffff-ffff-ffffffffffff:1:5}'),
  (17, '{80000000-0000-0000-0000-000000000000:1:5}'),
  (18, '{00000000-0000-0000-0000-00000000000a:1:-1}'),
  (19, '{00000000-0000-0000-0000-00000000000a:1:-1, 00000000-0000-0000-0000-00000000000b:1:1}');

-- The exact value (numeric, so also outside bigint) beside the order.
CREATE FUNCTION pg_temp.exact(c counter_crdt) RETURNS numeric
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN c = 'tombstone' THEN NULL
              ELSE (SELECT coalesce(sum(value), 0) FROM counter_crdt_shards(c)) END
$$;
SELECT k, c, pg_temp.exact(c) AS exact_value FROM ord_v ORDER BY c, k;
SELECT k, c FROM ord_v ORDER BY c DESC NULLS LAST, k;
SELECT k FROM ord_v ORDER BY c USING >, k;

-- The order, on every pair, against a model built from counter_crdt_shards():
-- (tombstone, exact value, array of (id, clock, value) rows in id order).
CREATE FUNCTION pg_temp.model(c counter_crdt) RETURNS TABLE (tomb bool, v numeric, s record[])
LANGUAGE sql IMMUTABLE AS $$
  SELECT c = 'tombstone', coalesce(pg_temp.exact(c), 0),
         ARRAY(SELECT ROW(id, clock, value) FROM counter_crdt_shards(c) ORDER BY id)
$$;
SELECT count(*) AS pairs,
       count(*) FILTER (WHERE counter_crdt_cmp(a.c, b.c)
                              = CASE WHEN ma < mb THEN -1 WHEN ma > mb THEN 1 ELSE 0 END) AS cmp_as_model,
       count(*) FILTER (WHERE (a.c < b.c) = (ma < mb) AND (a.c <= b.c) = (ma <= mb)
                          AND (a.c > b.c) = (ma > mb) AND (a.c >= b.c) = (ma >= mb)) AS operators_as_model,
       count(*) FILTER (WHERE (a.c = b.c) = (counter_crdt_cmp(a.c, b.c) = 0)
                          AND (a.c <> b.c) = (counter_crdt_cmp(a.c, b.c) <> 0)) AS zero_exactly_when_equal,
       count(*) FILTER (WHERE counter_crdt_cmp(a.c, b.c) = -counter_crdt_cmp(b.c, a.c)) AS antisymmetric,
       count(*) FILTER (WHERE a.c = b.c) AS equal_pairs
  FROM ord_v a CROSS JOIN ord_v b
  CROSS JOIN LATERAL (SELECT ROW(m.*) AS ma FROM pg_temp.model(a.c) m) x
  CROSS JOIN LATERAL (SELECT ROW(m.*) AS mb FROM pg_temp.model(b.c) m) y
 WHERE a.c IS NOT NULL AND b.c IS NOT NULL;

-- Single comparisons: the value decides before the shards do; tombstones
-- are last and equal to each other; the comparison of NULL is NULL.
SELECT '{00000000-0000-0000-0000-00000000000f:9:4}'::counter_crdt
     < '{00000000-0000-0000-0000-000000000001:1:5}'::counter_crdt AS value_first,
       '{00000000-0000-0000-0000-000000000001:1:5}'::counter_crdt
     < '{00000000-0000-0000-0000-00000000000f:1:5}'::counter_crdt AS then_id,
       '{00000000-0000-0000-0000-000000000001:1:5}'::counter_crdt
     < '{00000000-0000-0000-0000-000000000001:2:5}'::counter_crdt AS then_clock,
       '{}'::counter_crdt < '{00000000-0000-0000-0000-000000000001:1:0}'::counter_crdt AS prefix_first,
       '{00000000-0000-0000-0000-000000000001:1:9223372036854775807, 00000000-0000-0000-0000-000000000002:1:9223372036854775807, 00000000-0000-0000-0000-000000000003:1:9223372036854775807}'::counter_crdt
     < 'tombstone'::counter_crdt AS tombstone_last,
       counter_crdt_cmp('tombstone', 'TOMBSTONE') AS tomb_cmp_tomb,
       counter_crdt_cmp('tombstone', '{}') AS tomb_cmp_empty,
       counter_crdt_cmp('{}', ' { } ') AS empty_cmp_empty,
       counter_crdt_cmp(NULL, '{}') IS NULL AS null_cmp,
       (NULL::counter_crdt < '{}') IS NULL AS null_lt;

-- count(DISTINCT c) sorts; it agrees with a hashed DISTINCT.
SELECT count(DISTINCT c) AS sorted_distinct,
       (SELECT count(*) FROM (SELECT DISTINCT c FROM ord_v WHERE c IS NOT NULL) d) AS hashed_distinct
  FROM ord_v;

-- SELECT DISTINCT and GROUP BY by sorting.
SET enable_hashagg = off;
EXPLAIN (COSTS OFF) SELECT DISTINCT c FROM ord_v;
SELECT DISTINCT c FROM ord_v;
EXPLAIN (COSTS OFF) SELECT c, count(*) FROM ord_v GROUP BY c;
SELECT c, count(*), array_agg(k ORDER BY k) AS keys FROM ord_v GROUP BY c ORDER BY c;
RESET enable_hashagg;

-- A merge join on =, and the same rows from a hash join.
CREATE TABLE ord_w (j int, c counter_crdt);
INSERT INTO ord_w VALUES
  (101, '{00000000-0000-0000-0000-00000000000b:1:5}'),
  (102, 'tombstone'),
  (103, '{ }'),
  (104, NULL),
  (105, '{00000000-0000-0000-0000-00000000000A:1:9223372036854775807}'),
  (106, '{00000000-0000-0000-0000-00000000000a:1:6}');
ANALYZE ord_v, ord_w;
SET enable_hashjoin = off;
SET enable_nestloop = off;
EXPLAIN (COSTS OFF) SELECT v.k, w.j FROM ord_v v JOIN ord_w w ON v.c = w.c;
CREATE TEMP TABLE merge_rows AS SELECT v.k, w.j FROM ord_v v JOIN ord_w w ON v.c = w.c;
SELECT * FROM merge_rows ORDER BY k, j;
RESET enable_nestloop;
SET enable_mergejoin = off;
RESET enable_hashjoin;
EXPLAIN (COSTS OFF) SELECT v.k, w.j FROM ord_v v JOIN ord_w w ON v.c = w.c;
SELECT count(*) AS hash_rows,
       count(*) FILTER (WHERE (k, j) IN (SELECT k, j FROM merge_rows)) AS same_as_merge
  FROM ord_v v JOIN ord_w w ON v.c = w.c;
RESET enable_mergejoin;

-- A btree index: lookups, ranges and an ordered scan.
CREATE INDEX ord_v_c ON ord_v (c);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT k FROM ord_v WHERE c = '{00000000-0000-0000-0000-00000000000B:1:5}';
SELECT k FROM ord_v WHERE c = '{00000000-0000-0000-0000-00000000000B:1:5}' ORDER BY k;
SELECT k FROM ord_v WHERE c = 'TombStone' ORDER BY k;
EXPLAIN (COSTS OFF) SELECT k FROM ord_v WHERE c < '{00000000-0000-0000-0000-00000000000a:1:0}' ORDER BY c;
SELECT k FROM ord_v WHERE c < '{00000000-0000-0000-0000-00000000000a:1:0}' ORDER BY c;
SELECT k FROM ord_v WHERE c >= '{00000000-0000-0000-0000-00000000000a:1:9223372036854775807}' ORDER BY c, k;
SELECT k FROM ord_v WHERE c > '{}' AND c <= '{00000000-0000-0000-0000-00000000000b:1:5}' ORDER BY c, k;
EXPLAIN (COSTS OFF) SELECT k FROM ord_v ORDER BY c DESC LIMIT 3;
SELECT k FROM ord_v ORDER BY c DESC LIMIT 3;
RESET enable_bitmapscan;
RESET enable_seqscan;

-- A unique btree index refuses an equal state written differently.
CREATE UNIQUE INDEX ord_w_c ON ord_w (c);
INSERT INTO ord_w VALUES (107, '{00000000-0000-0000-0000-00000000000B:01:+5}');
INSERT INTO ord_w VALUES (108, '{00000000-0000-0000-0000-00000000000b:1:6}');

-- Many values, some stored out of line, sorted in a small work_mem (an
-- external sort), by an index, and by the model: one order.  (Compressed
-- with pglz, as before 19, which compresses with lz4 by default.)
CREATE TABLE ord_many (k int, c counter_crdt COMPRESSION pglz);
INSERT INTO ord_many
SELECT i, CASE WHEN i % 97 = 0 THEN 'tombstone'::counter_crdt
               ELSE ('{' || (SELECT string_agg(format('%s:%s:%s', md5((i % 7 + s)::text)::uuid, 1 + i % 3, (i * s) % 11 - 5), ', ')
                             FROM generate_series(1, 1 + i % 4) AS s) || '}')::counter_crdt END
  FROM generate_series(1, 3000) AS i;
INSERT INTO ord_many
SELECT 10000 + i, ('{' || string_agg(format('%s:%s:%s', md5(s::text)::uuid, 1, CASE WHEN s = i THEN 1 ELSE 0 END), ', ') || '}')::counter_crdt
  FROM generate_series(1, 3) AS i, generate_series(1, 400) AS s GROUP BY i;
SET work_mem = '64kB';
CREATE TEMP TABLE by_sort AS SELECT row_number() OVER (ORDER BY c, k) AS r, k FROM ord_many;
RESET work_mem;
CREATE TEMP TABLE by_model AS
  SELECT row_number() OVER (ORDER BY m.tomb, m.v, m.s, k) AS r, k
    FROM ord_many CROSS JOIN LATERAL pg_temp.model(c) m;
SELECT count(*) FILTER (WHERE pg_column_size(c) > 2000) AS out_of_line FROM ord_many;
SELECT count(*) AS rows,
       count(*) FILTER (WHERE s.k = m.k) AS sort_as_model,
       count(DISTINCT o.c) AS distinct_states
  FROM by_sort s JOIN by_model m USING (r) JOIN ord_many o ON o.k = s.k;
-- An index entry holds at most 2704 bytes: the large values stay out of it.
\set VERBOSITY terse
CREATE INDEX ord_many_big ON ord_many (c) WHERE k > 10000;
\set VERBOSITY default
CREATE INDEX ord_many_c ON ord_many (c, k) WHERE k < 10000;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT k FROM ord_many WHERE k < 10000 ORDER BY c, k;
CREATE TEMP TABLE by_index AS
  SELECT row_number() OVER () AS r, k FROM (SELECT k FROM ord_many WHERE k < 10000 ORDER BY c, k) s;
RESET enable_bitmapscan;
RESET enable_seqscan;
SELECT count(*) AS rows, count(*) FILTER (WHERE s.k = i.k) AS index_as_sort
  FROM (SELECT row_number() OVER (ORDER BY r) AS r, k FROM by_sort WHERE k < 10000) s
  JOIN by_index i USING (r);

-- The objects: both classes default, = merge- and hash-joinable, every
-- operator with its commutator and negator, and the classes valid.
SELECT am.amname, c.opcname, c.opcdefault, pg_catalog.amvalidate(c.oid) AS valid
  FROM pg_opclass c JOIN pg_am am ON am.oid = c.opcmethod
 WHERE c.opcintype = 'counter_crdt'::regtype ORDER BY am.amname;
SELECT ao.amopstrategy, ao.amopopr::regoperator
  FROM pg_amop ao JOIN pg_opfamily f ON f.oid = ao.amopfamily JOIN pg_am am ON am.oid = f.opfmethod
 WHERE am.amname = 'btree' AND ao.amoplefttype = 'counter_crdt'::regtype ORDER BY ao.amopstrategy;
SELECT ap.amprocnum, ap.amproc::regprocedure
  FROM pg_amproc ap JOIN pg_opfamily f ON f.oid = ap.amprocfamily JOIN pg_am am ON am.oid = f.opfmethod
 WHERE am.amname = 'btree' AND ap.amproclefttype = 'counter_crdt'::regtype ORDER BY ap.amprocnum;
SELECT oprname, oprcanmerge, oprcanhash, oprcom::regoperator AS commutator,
       oprnegate::regoperator AS negator, oprrest, oprjoin
  FROM pg_operator WHERE oprleft = 'counter_crdt'::regtype AND oprright = 'counter_crdt'::regtype
 ORDER BY oprname;

DROP TABLE ord_v, ord_w, ord_many;
