--
-- equality: state equality, its hash operator class, DISTINCT, GROUP BY,
-- hash joins and hash indexes (contract section 3)
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS counter_crdt;
RESET client_min_messages;

-- Equal states, however the text was written.
SELECT '{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:3:42, 7f0cab51-fb72-3e98-bdb4-0404a982865d:1:-5}'::counter_crdt
     = ' { 7F0CAB51-FB72-3E98-BDB4-0404A982865D : +1 : -005 ,0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:003:42 } '::counter_crdt AS eq_order_case_space,
       '{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:3:42, 7f0cab51-fb72-3e98-bdb4-0404a982865d:1:-5}'::counter_crdt
    <> ' { 7F0CAB51-FB72-3E98-BDB4-0404A982865D : +1 : -005 ,0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:003:42 } '::counter_crdt AS ne_order_case_space;
SELECT '{}'::counter_crdt = ' { } '::counter_crdt AS empty_eq,
       'tombstone'::counter_crdt = 'TOMBSTONE'::counter_crdt AS tomb_eq,
       'tombstone'::counter_crdt <> 'TOMBSTONE'::counter_crdt AS tomb_ne;

-- Different states: tombstone vs {}, differing in one clock, one value, one
-- id, one shard more, and the same value (sum) from different shards.
SELECT a, b, a = b AS eq, a <> b AS ne, b = a AS eq_commuted
FROM (VALUES
  ('tombstone'::counter_crdt, '{}'::counter_crdt),
  ('{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:3:42}', '{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:4:42}'),
  ('{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:3:42}', '{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:3:43}'),
  ('{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:3:42}', '{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e91:3:42}'),
  ('{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:3:42}', '{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:3:42, 7f0cab51-fb72-3e98-bdb4-0404a982865d:1:0}'),
  ('{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:1:5}', '{7f0cab51-fb72-3e98-bdb4-0404a982865d:1:5}'),
  ('{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:1:0}', '{}'),
  ('{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:1:-1}', '{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:1:1}'),
  ('{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:1:1, 7f0cab51-fb72-3e98-bdb4-0404a982865d:2:1}',
   '{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:2:1, 7f0cab51-fb72-3e98-bdb4-0404a982865d:1:1}'),
  ('{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:1:9223372036854775807}', '{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:1:-9223372036854775808}'),
  ('{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:1:7}', '{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:1:7}'),
  ('tombstone', 'tombstone'),
  ('{}', '{}')
) AS t(a, b);

-- Same value (counter_crdt_value), different state: not equal.
SELECT counter_crdt_value(a) = counter_crdt_value(b) AS same_value, a = b AS same_state
FROM (VALUES ('{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:1:3, 7f0cab51-fb72-3e98-bdb4-0404a982865d:1:4}'::counter_crdt,
              '{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:2:7}'::counter_crdt)) AS t(a, b);

-- NULLs: the operators are strict.
SELECT NULL::counter_crdt = '{}'::counter_crdt AS null_eq, '{}'::counter_crdt <> NULL::counter_crdt AS null_ne,
       NULL::counter_crdt = NULL::counter_crdt AS null_null,
       NULL::counter_crdt IS NOT DISTINCT FROM NULL::counter_crdt AS not_distinct_nulls,
       'tombstone'::counter_crdt IS DISTINCT FROM '{}'::counter_crdt AS distinct_tomb_empty,
       '{}'::counter_crdt IS DISTINCT FROM ' {} '::counter_crdt AS distinct_empty_empty;

-- The operators are the ones of the hash operator class.
SELECT o.oprname, o.oprcanhash, o.oprcanmerge, c.opcname, c.opcdefault, am.amname
FROM pg_operator o
JOIN pg_amop ao ON ao.amopopr = o.oid
JOIN pg_opfamily f ON f.oid = ao.amopfamily
JOIN pg_opclass c ON c.opcfamily = f.oid
JOIN pg_am am ON am.oid = c.opcmethod
WHERE o.oprleft = 'counter_crdt'::regtype
ORDER BY o.oprname, am.amname;
SELECT oprname, oprcom::regoperator AS commutator, oprnegate::regoperator AS negator
FROM pg_operator WHERE oprleft = 'counter_crdt'::regtype AND oprright = 'counter_crdt'::regtype
ORDER BY oprname;

-- Values written differently, in a table.
CREATE TABLE eq_t (k int, c counter_crdt);
INSERT INTO eq_t VALUES
  (1, '{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:3:42, 7f0cab51-fb72-3e98-bdb4-0404a982865d:1:-5}'),
  (2, '{7F0CAB51-FB72-3E98-BDB4-0404A982865D:1:-5,0B6E7F3A-2D44-4C8E-9A51-3F0D2C7B1E90:3:42}'),
  (3, ' { 0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90 : +3 : +42 , 7f0cab51-fb72-3e98-bdb4-0404a982865d : 01 : -05 } '),
  (4, '{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:4:42, 7f0cab51-fb72-3e98-bdb4-0404a982865d:1:-5}'),
  (5, 'tombstone'),
  (6, 'TombStone'),
  (7, '{}'),
  (8, '{ }'),
  (9, NULL),
  (10, NULL),
  (11, '{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:1:0}'),
  (12, '{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:1:0}');

-- DISTINCT and GROUP BY by hashing (by sorting: sql/ordering.sql).
EXPLAIN (COSTS OFF) SELECT DISTINCT c FROM eq_t;
SELECT c FROM (SELECT DISTINCT c FROM eq_t) AS d ORDER BY c::text COLLATE "C" NULLS LAST;
SELECT count(*) AS distinct_rows, count(c) AS distinct_non_null FROM (SELECT DISTINCT c FROM eq_t) AS d;
EXPLAIN (COSTS OFF) SELECT c, count(*) FROM eq_t GROUP BY c;
SELECT c, n, (SELECT array_agg(x ORDER BY x) FROM unnest(keys) AS x) AS keys
FROM (SELECT c, count(*) AS n, array_agg(k) AS keys FROM eq_t GROUP BY c) AS g
ORDER BY (SELECT min(x) FROM unnest(keys) AS x);

-- A hash join on counters.
CREATE TABLE eq_u (j int, c counter_crdt);
INSERT INTO eq_u VALUES
  (101, '{7f0cab51-fb72-3e98-bdb4-0404a982865d:1:-5, 0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:3:42}'),
  (102, 'TOMBSTONE'),
  (103, '{}'),
  (104, NULL),
  (105, '{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:1:1}');
ANALYZE eq_t, eq_u;
SET enable_mergejoin = off;
SET enable_nestloop = off;
EXPLAIN (COSTS OFF) SELECT t.k, u.j FROM eq_t t JOIN eq_u u ON t.c = u.c;
SELECT t.k, u.j FROM eq_t t JOIN eq_u u ON t.c = u.c ORDER BY t.k, u.j;
-- Without hashing, a nested loop gives the same rows.
RESET enable_nestloop;
SET enable_hashjoin = off;
SELECT t.k, u.j FROM eq_t t JOIN eq_u u ON t.c = u.c ORDER BY t.k, u.j;
RESET enable_hashjoin;
RESET enable_mergejoin;

-- IN and NOT IN with a hashed subplan.
SELECT k FROM eq_t WHERE c IN (SELECT c FROM eq_u) ORDER BY k;
SELECT k FROM eq_t WHERE c NOT IN (SELECT c FROM eq_u WHERE c IS NOT NULL) ORDER BY k;

-- The hash functions agree on equal values written differently ...
SELECT a::text AS state,
       counter_crdt_hash(a) = counter_crdt_hash(b) AS hash_eq,
       counter_crdt_hash_extended(a, 0) = counter_crdt_hash_extended(b, 0) AS ext0_eq,
       counter_crdt_hash_extended(a, 1) = counter_crdt_hash_extended(b, 1) AS ext1_eq,
       counter_crdt_hash_extended(a, -1) = counter_crdt_hash_extended(b, -1) AS extm1_eq,
       counter_crdt_hash_extended(a, 42) = counter_crdt_hash_extended(b, 42) AS ext42_eq,
       (counter_crdt_hash_extended(a, 0) & 4294967295) = (counter_crdt_hash(a)::bigint & 4294967295) AS seed0_low32_is_hash,
       counter_crdt_hash_extended(a, 0) <> counter_crdt_hash_extended(a, 1) AS seed_matters
FROM (VALUES
  ('{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:3:42, 7f0cab51-fb72-3e98-bdb4-0404a982865d:1:-5}'::counter_crdt,
   ' { 7F0CAB51-FB72-3E98-BDB4-0404A982865D : 1 : -5 , 0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90 : 03 : +42 } '::counter_crdt),
  ('{}', ' { } '),
  ('tombstone', 'TOMBSTONE'),
  ('{ffffffff-ffff-ffff-ffff-ffffffffffff:9223372036854775807:-9223372036854775808}',
   '{FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF:+9223372036854775807:-9223372036854775808}')
) AS t(a, b);

-- ... and differ on different states (tombstone vs {}, one clock, one value).
SELECT counter_crdt_hash('tombstone') <> counter_crdt_hash('{}') AS tomb_vs_empty,
       counter_crdt_hash_extended('tombstone', 7) <> counter_crdt_hash_extended('{}', 7) AS tomb_vs_empty_ext,
       counter_crdt_hash('{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:3:42}') <> counter_crdt_hash('{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:4:42}') AS clock,
       counter_crdt_hash('{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:3:42}') <> counter_crdt_hash('{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:3:43}') AS value;
-- 500 different states give 500 different hashes, and so for each seed.
SELECT count(DISTINCT counter_crdt_hash(c)) AS hashes,
       count(DISTINCT counter_crdt_hash_extended(c, 0)) AS ext0,
       count(DISTINCT counter_crdt_hash_extended(c, 12345)) AS ext12345
FROM (SELECT ('{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:' || (1 + i % 25) || ':' || (i / 25) || '}')::counter_crdt AS c
      FROM generate_series(0, 499) AS i) AS s;
SELECT counter_crdt_hash(NULL) IS NULL AS hash_null, counter_crdt_hash_extended(NULL, 0) IS NULL AS ext_null,
       counter_crdt_hash_extended('{}', NULL) IS NULL AS seed_null;

-- Large values (stored out of line) compare and hash like small ones.
CREATE TABLE eq_big (k int, c counter_crdt);
INSERT INTO eq_big SELECT 1, ('{' || string_agg(format('%s:%s:%s', md5(i::text)::uuid, i, i), ', ') || '}')::counter_crdt
FROM generate_series(1, 3000) AS i;
INSERT INTO eq_big SELECT 2, ('{' || string_agg(format('%s:%s:%s', upper(md5(i::text)::uuid::text), i, i), ',') || '}')::counter_crdt
FROM generate_series(3000, 1, -1) AS i;
INSERT INTO eq_big SELECT 3, ('{' || string_agg(format('%s:%s:%s', md5(i::text)::uuid, i, CASE WHEN i = 2999 THEN 0 ELSE i END), ', ') || '}')::counter_crdt
FROM generate_series(1, 3000) AS i;
SELECT a.k, b.k, a.c = b.c AS eq, counter_crdt_hash(a.c) = counter_crdt_hash(b.c) AS hash_eq
FROM eq_big a, eq_big b WHERE a.k < b.k ORDER BY a.k, b.k;
SELECT count(*) AS distinct_big FROM (SELECT DISTINCT c FROM eq_big) AS d;

-- A hash index on a counter column.
CREATE INDEX eq_t_c_hash ON eq_t USING hash (c);
INSERT INTO eq_t SELECT 100 + i, ('{7f0cab51-fb72-3e98-bdb4-0404a982865d:' || i || ':' || i || '}')::counter_crdt
FROM generate_series(1, 1000) AS i;
ANALYZE eq_t;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT k FROM eq_t WHERE c = '{0B6E7F3A-2D44-4C8E-9A51-3F0D2C7B1E90:3:42, 7F0CAB51-FB72-3E98-BDB4-0404A982865D:1:-5}';
SELECT k FROM eq_t WHERE c = '{0B6E7F3A-2D44-4C8E-9A51-3F0D2C7B1E90:3:42, 7F0CAB51-FB72-3E98-BDB4-0404A982865D:1:-5}' ORDER BY k;
SELECT k FROM eq_t WHERE c = 'tombstone' ORDER BY k;
SELECT k FROM eq_t WHERE c = '{}' ORDER BY k;
SELECT k FROM eq_t WHERE c = '{7f0cab51-fb72-3e98-bdb4-0404a982865d:777:777}' ORDER BY k;
SELECT k FROM eq_t WHERE c = '{7f0cab51-fb72-3e98-bdb4-0404a982865d:777:778}' ORDER BY k;
RESET enable_bitmapscan;
RESET enable_seqscan;
-- The index holds every row: after a bulk update, lookups still find them.
UPDATE eq_t SET c = counter_crdt_increment(c, 1, '7f0cab51-fb72-3e98-bdb4-0404a982865d') WHERE k > 100;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT k FROM eq_t WHERE c = '{7f0cab51-fb72-3e98-bdb4-0404a982865d:778:778}' ORDER BY k;
SELECT k FROM eq_t WHERE c = '{7f0cab51-fb72-3e98-bdb4-0404a982865d:777:777}' ORDER BY k;
RESET enable_bitmapscan;
RESET enable_seqscan;

DROP TABLE eq_t, eq_u, eq_big;
