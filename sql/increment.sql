--
-- Leader increments: c + d, c - d, counter_crdt_increment(c, d, writer).
-- contract section 1, "Leader increment", rules 1-5.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS counter_crdt;
RESET client_min_messages;

-- Pin the writer id so that nothing depends on the cluster's default.
SET counter_crdt.node_id = '11111111-1111-1111-1111-111111111111';

-- c + d and c - d use the node id.
SELECT '{}'::counter_crdt + 5 AS plus, '{}'::counter_crdt - 5 AS minus;
SELECT ('{}'::counter_crdt + 5) - 2 AS plus_then_minus;
SELECT (('{}'::counter_crdt + 5) - 2)::bigint AS value;

-- Upper-case setting: the writer id is the same uuid (output is lower case).
SET counter_crdt.node_id = 'ABCDEF00-1111-1111-1111-111111111111';
SELECT '{}'::counter_crdt + 1 AS upper_case_setting;
SET counter_crdt.node_id = '11111111-1111-1111-1111-111111111111';

-- Explicit writer.
SELECT counter_crdt_increment('{}', 7, '22222222-2222-2222-2222-222222222222');
SELECT counter_crdt_increment('{}', -7, '22222222-2222-2222-2222-222222222222');

-- Rule 1: a NULL counter counts from {}.
SELECT NULL::counter_crdt + 4 AS null_plus;
SELECT NULL::counter_crdt - 4 AS null_minus;
SELECT counter_crdt_increment(NULL, 4, '22222222-2222-2222-2222-222222222222') AS null_increment;
SELECT (NULL::counter_crdt + 4) = ('{}'::counter_crdt + 4) AS null_is_empty;

-- Rule 4: + 0 creates the writer's shard (writer, 1, 0); - 0 as well.
SELECT '{}'::counter_crdt + 0 AS plus_zero;
SELECT NULL::counter_crdt - 0 AS minus_zero;
SELECT ('{}'::counter_crdt + 0)::bigint AS plus_zero_value;
SELECT * FROM counter_crdt_shards(NULL::counter_crdt + 0);
SELECT counter_crdt_increment('{}', 0, '22222222-2222-2222-2222-222222222222') AS increment_zero;

-- Rule 3: the clock goes up by one per increment, whatever the delta
-- (including 0 and negative deltas); other shards are untouched.
SELECT '{22222222-2222-2222-2222-222222222222:9:100, 33333333-3333-3333-3333-333333333333:4:-20}'::counter_crdt + 3 AS new_shard_first;
SELECT '{00000000-0000-0000-0000-000000000001:9:100, 22222222-2222-2222-2222-222222222222:4:-20}'::counter_crdt + 3 AS new_shard_between;
SELECT '{11111111-1111-1111-1111-111111111111:41:5, 22222222-2222-2222-2222-222222222222:9:100}'::counter_crdt + 3 AS existing_shard;
SELECT '{11111111-1111-1111-1111-111111111111:41:5, 22222222-2222-2222-2222-222222222222:9:100}'::counter_crdt - 3 AS existing_shard_minus;
SELECT '{11111111-1111-1111-1111-111111111111:41:5, 22222222-2222-2222-2222-222222222222:9:100}'::counter_crdt + 0 AS existing_shard_zero;
SELECT counter_crdt_increment('{11111111-1111-1111-1111-111111111111:41:5, 22222222-2222-2222-2222-222222222222:9:100, 33333333-3333-3333-3333-333333333333:2:1}',
                              -50, '22222222-2222-2222-2222-222222222222') AS middle_shard;
SELECT counter_crdt_increment('{11111111-1111-1111-1111-111111111111:41:5, 33333333-3333-3333-3333-333333333333:2:1}',
                              8, '00000000-0000-0000-0000-000000000000') AS new_first_shard;
SELECT counter_crdt_increment('{11111111-1111-1111-1111-111111111111:41:5, 33333333-3333-3333-3333-333333333333:2:1}',
                              8, 'ffffffff-ffff-ffff-ffff-ffffffffffff') AS new_last_shard;

-- Ten increments in a row: clock 10, value the sum of the deltas.
WITH RECURSIVE r(i, c) AS (
  SELECT 0, NULL::counter_crdt
  UNION ALL
  SELECT i + 1, c + i FROM r WHERE i < 10
)
SELECT i, c, c::bigint AS value FROM r ORDER BY i;

-- Two writers on one value: each has its own shard and clock.
WITH a AS (SELECT counter_crdt_increment(NULL, 10, '22222222-2222-2222-2222-222222222222') AS c),
     b AS (SELECT counter_crdt_increment(c, 5, '33333333-3333-3333-3333-333333333333') AS c FROM a),
     c AS (SELECT counter_crdt_increment(c, -2, '22222222-2222-2222-2222-222222222222') AS c FROM b),
     d AS (SELECT c + 100 AS c FROM c)
SELECT d.c, d.c::bigint AS value FROM d;

-- Decrement below zero is fine.
SELECT ('{}'::counter_crdt - 10) - 5 AS below_zero, (('{}'::counter_crdt - 10) - 5)::bigint AS value;

-- Rule 2: a tombstone stays a tombstone.
SELECT 'tombstone'::counter_crdt + 1 AS t_plus, 'tombstone'::counter_crdt - 1 AS t_minus,
       'tombstone'::counter_crdt + 0 AS t_zero;
SELECT counter_crdt_increment('tombstone', 1, '22222222-2222-2222-2222-222222222222') AS t_increment;
SELECT ('tombstone'::counter_crdt + 1)::bigint AS t_value;

-- A NULL writer is an error; a NULL delta is an error (it would otherwise
-- turn the counter into NULL and wipe it).
SELECT counter_crdt_increment('{}', 1, NULL);
SELECT counter_crdt_increment(NULL, 1, NULL);
SELECT counter_crdt_increment('{}', NULL, '22222222-2222-2222-2222-222222222222');
\set VERBOSITY sqlstate
SELECT '{}'::counter_crdt + NULL::bigint;
SELECT '{}'::counter_crdt - NULL::bigint;
SELECT NULL::counter_crdt + NULL::bigint;
SELECT 'tombstone'::counter_crdt + NULL::bigint;
SELECT counter_crdt_increment('{}', 1, NULL);
SELECT counter_crdt_increment('tombstone', 1, NULL);
SELECT counter_crdt_increment(NULL, NULL, NULL);
\set VERBOSITY default

-- Rule 5: overflow of the value, both directions (22003).
SELECT '{11111111-1111-1111-1111-111111111111:3:9223372036854775807}'::counter_crdt + 1;
\set VERBOSITY sqlstate
SELECT '{11111111-1111-1111-1111-111111111111:3:-9223372036854775808}'::counter_crdt - 1;
SELECT '{11111111-1111-1111-1111-111111111111:3:-9223372036854775808}'::counter_crdt + (-1);
SELECT '{11111111-1111-1111-1111-111111111111:3:1}'::counter_crdt + 9223372036854775807;
SELECT '{11111111-1111-1111-1111-111111111111:3:-2}'::counter_crdt + (-9223372036854775807);
SELECT counter_crdt_increment('{22222222-2222-2222-2222-222222222222:3:9223372036854775000}', 808, '22222222-2222-2222-2222-222222222222');
-- Subtracting the most negative bigint: 0 - (-2^63) and 5 - (-2^63) overflow ...
SELECT '{}'::counter_crdt - (-9223372036854775808);
SELECT NULL::counter_crdt - (-9223372036854775808);
SELECT '{11111111-1111-1111-1111-111111111111:3:5}'::counter_crdt - (-9223372036854775808);
\set VERBOSITY default
-- ... but -1 - (-2^63) = 2^63 - 1 fits, and adding -2^63 to 0 fits.
SELECT '{11111111-1111-1111-1111-111111111111:3:-1}'::counter_crdt - (-9223372036854775808) AS fits;
SELECT '{}'::counter_crdt + (-9223372036854775808) AS fits;
SELECT '{11111111-1111-1111-1111-111111111111:3:9223372036854775807}'::counter_crdt - 9223372036854775807 AS fits;
SELECT '{11111111-1111-1111-1111-111111111111:3:-9223372036854775808}'::counter_crdt + 9223372036854775807 AS fits;
SELECT '{11111111-1111-1111-1111-111111111111:3:-9223372036854775807}'::counter_crdt - 1 AS fits;

-- Overflow of the clock (22003), even with delta 0.
SELECT '{11111111-1111-1111-1111-111111111111:9223372036854775807:0}'::counter_crdt + 0;
\set VERBOSITY sqlstate
SELECT '{11111111-1111-1111-1111-111111111111:9223372036854775807:0}'::counter_crdt - 1;
SELECT counter_crdt_increment('{22222222-2222-2222-2222-222222222222:9223372036854775807:5}', 1, '22222222-2222-2222-2222-222222222222');
\set VERBOSITY default
-- One below the limit still works; another writer's maximal clock is no problem.
SELECT '{11111111-1111-1111-1111-111111111111:9223372036854775806:0}'::counter_crdt + 1 AS fits;
SELECT '{22222222-2222-2222-2222-222222222222:9223372036854775807:0}'::counter_crdt + 1 AS other_writer;

-- In a table: UPDATE t SET c = c + 5 on rows.
CREATE TABLE inc_t (k int PRIMARY KEY, c counter_crdt);
INSERT INTO inc_t VALUES
  (1, NULL),
  (2, '{}'),
  (3, '{22222222-2222-2222-2222-222222222222:4:10}'),
  (4, 'tombstone'),
  (5, '{11111111-1111-1111-1111-111111111111:2:-3}');
UPDATE inc_t SET c = c + 5;
SELECT k, c, c::bigint AS value FROM inc_t ORDER BY k;
UPDATE inc_t SET c = c - 7 WHERE k IN (1, 3);
SELECT k, c, c::bigint AS value FROM inc_t ORDER BY k;
UPDATE inc_t SET c = counter_crdt_increment(c, 1, '33333333-3333-3333-3333-333333333333') WHERE k <= 2;
SELECT k, c, c::bigint AS value FROM inc_t ORDER BY k;

-- An overflowing increment aborts the UPDATE: no row changes, not even the
-- rows that would not overflow.
INSERT INTO inc_t VALUES
  (6, '{11111111-1111-1111-1111-111111111111:7:9223372036854775800}'),
  (7, '{11111111-1111-1111-1111-111111111111:9223372036854775807:1}'),
  (8, '{11111111-1111-1111-1111-111111111111:7:-9223372036854775800}');
CREATE TABLE inc_before AS SELECT * FROM inc_t;
UPDATE inc_t SET c = c + 10;
UPDATE inc_t SET c = c - 10 WHERE k <> 7;
UPDATE inc_t SET c = c + 1 WHERE k IN (1, 7);
UPDATE inc_t SET c = c - (-9223372036854775808) WHERE k = 2;
UPDATE inc_t SET c = counter_crdt_increment(c, NULL, '11111111-1111-1111-1111-111111111111');
SELECT count(*) AS changed_rows
FROM inc_t t FULL JOIN inc_before b USING (k)
WHERE t.c IS DISTINCT FROM b.c OR t.k IS NULL OR b.k IS NULL;
SELECT k, c FROM inc_t WHERE k >= 6 ORDER BY k;

DROP TABLE inc_t, inc_before;
RESET counter_crdt.node_id;
