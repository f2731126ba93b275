--
-- counter_crdt_value(c) and the cast c::bigint: contract section 1, "Value".
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS counter_crdt;
RESET client_min_messages;

-- {} is live with value 0; a tombstone has no value (NULL); NULL gives NULL.
SELECT counter_crdt_value('{}') AS empty_value, '{}'::counter_crdt::bigint AS empty_cast;
SELECT counter_crdt_value('tombstone') IS NULL AS tomb_value_null,
       'tombstone'::counter_crdt::bigint IS NULL AS tomb_cast_null;
SELECT counter_crdt_value(NULL) IS NULL AS null_value_null, NULL::counter_crdt::bigint IS NULL AS null_cast_null;

-- The value is the sum of the shard values.
SELECT counter_crdt_value('{aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:3:42}') AS one_shard;
SELECT counter_crdt_value('{aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:3:42, bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb:1:-5}') AS two_shards,
       '{aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:3:42, bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb:1:-5}'::counter_crdt::bigint AS two_shards_cast;
-- The clock is not part of the value.
SELECT counter_crdt_value('{aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:9223372036854775807:7}') AS big_clock;
-- Extremes that fit.
SELECT counter_crdt_value('{aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:1:9223372036854775807}') AS max_one,
       counter_crdt_value('{aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:1:-9223372036854775808}') AS min_one;
SELECT counter_crdt_value('{aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:1:9223372036854775807, bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb:1:-9223372036854775808}') AS max_plus_min;
SELECT counter_crdt_value('{aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:1:9223372036854775000, bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb:1:807}') AS exactly_max;
SELECT counter_crdt_value('{aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:1:-9223372036854775000, bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb:1:-808}') AS exactly_min;

-- The sum is exact: a partial sum may leave the bigint range on the way as
-- long as the total fits.  The value cannot depend on the order of the
-- writer ids, so the same shard values under other ids give the same sum.
SELECT counter_crdt_value('{00000000-0000-0000-0000-000000000001:1:9223372036854775807, 00000000-0000-0000-0000-000000000002:1:1, 00000000-0000-0000-0000-000000000003:1:-2}') AS max_1_minus2;
SELECT counter_crdt_value('{00000000-0000-0000-0000-000000000001:1:-2, 00000000-0000-0000-0000-000000000002:1:9223372036854775807, 00000000-0000-0000-0000-000000000003:1:1}') AS minus2_max_1;
SELECT counter_crdt_value('{00000000-0000-0000-0000-000000000001:1:-9223372036854775808, 00000000-0000-0000-0000-000000000002:1:-1, 00000000-0000-0000-0000-000000000003:1:2}')::bigint AS min_minus1_2;
SELECT '{00000000-0000-0000-0000-000000000001:1:9223372036854775807, 00000000-0000-0000-0000-000000000002:1:9223372036854775807, 00000000-0000-0000-0000-000000000003:1:-9223372036854775808}'::counter_crdt::bigint AS max_max_min;
SELECT '{00000000-0000-0000-0000-000000000001:1:9223372036854775807, 00000000-0000-0000-0000-000000000002:1:9223372036854775807, 00000000-0000-0000-0000-000000000003:1:-9223372036854775808, 00000000-0000-0000-0000-000000000004:1:-9223372036854775808}'::counter_crdt::bigint AS max_max_min_min;
SELECT '{00000000-0000-0000-0000-000000000001:1:-9223372036854775808, 00000000-0000-0000-0000-000000000002:1:-9223372036854775808, 00000000-0000-0000-0000-000000000003:1:9223372036854775807, 00000000-0000-0000-0000-000000000004:1:9223372036854775807}'::counter_crdt::bigint AS min_min_max_max;

-- A sum outside bigint is an error (22003), never a wrapped number.
SELECT counter_crdt_value('{aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:1:9223372036854775807, bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb:1:9223372036854775807}');
\set VERBOSITY sqlstate
SELECT '{aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:1:9223372036854775807, bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb:1:9223372036854775807}'::counter_crdt::bigint;
SELECT counter_crdt_value('{aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:1:9223372036854775807, bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb:1:1}');
SELECT counter_crdt_value('{aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:1:-9223372036854775808, bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb:1:-1}');
SELECT counter_crdt_value('{aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:1:-9223372036854775808, bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb:1:-9223372036854775808}');
-- The last partial sum is the one that leaves the range.
SELECT counter_crdt_value('{00000000-0000-0000-0000-000000000001:1:-5, 00000000-0000-0000-0000-000000000002:1:9223372036854775807, 00000000-0000-0000-0000-000000000003:1:6}');
SELECT counter_crdt_value('{00000000-0000-0000-0000-000000000001:1:-1, 00000000-0000-0000-0000-000000000002:1:9223372036854775807, 00000000-0000-0000-0000-000000000003:1:9223372036854775807, 00000000-0000-0000-0000-000000000004:1:4}');
\set VERBOSITY default

-- Such a state is still a valid state: merge, text, shards and digest work.
CREATE TABLE val_big (k int, c counter_crdt);
INSERT INTO val_big VALUES
  (1, '{aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:1:9223372036854775807}'),
  (2, '{bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb:1:9223372036854775807}');
SELECT counter_crdt_merge(x.c, y.c) AS merged
FROM val_big x, val_big y WHERE x.k = 1 AND y.k = 2;
SELECT (SELECT counter_crdt_merge(x.c, y.c) FROM val_big x, val_big y WHERE x.k = 1 AND y.k = 2)::text::counter_crdt
     = '{aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:1:9223372036854775807, bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb:1:9223372036854775807}'::counter_crdt
  AS text_round_trip;
SELECT s.* FROM val_big x, val_big y, counter_crdt_shards(counter_crdt_merge(x.c, y.c)) s
WHERE x.k = 1 AND y.k = 2;
SELECT length(counter_crdt_digest(counter_crdt_merge(x.c, y.c))) AS digest_len
FROM val_big x, val_big y WHERE x.k = 1 AND y.k = 2;
-- Decrementing brings it back into range.
SELECT counter_crdt_increment(counter_crdt_merge(x.c, y.c), -9223372036854775807, 'aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa')::bigint AS back_in_range
FROM val_big x, val_big y WHERE x.k = 1 AND y.k = 2;
-- Reading the value of the stored merged state fails, the table stays readable.
INSERT INTO val_big SELECT 3, counter_crdt_merge(x.c, y.c) FROM val_big x, val_big y WHERE x.k = 1 AND y.k = 2;
\set VERBOSITY sqlstate
SELECT k, c::bigint FROM val_big ORDER BY k;
\set VERBOSITY default
SELECT k, c FROM val_big ORDER BY k;
DROP TABLE val_big;

-- value = cast = the sum of counter_crdt_shards, over a table of values.
CREATE TABLE val_t (k int PRIMARY KEY, c counter_crdt);
INSERT INTO val_t VALUES
  (1, '{}'),
  (2, 'tombstone'),
  (3, '{aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:1:1}'),
  (4, '{aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:5:-100, bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb:2:40, cccccccc-cccc-cccc-cccc-cccccccccccc:9:61}'),
  (5, '{aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:1:4611686018427387904, bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb:1:4611686018427387903}'),
  (6, NULL);
INSERT INTO val_t
  SELECT 100 + g, counter_crdt_increment(counter_crdt_increment(NULL, g * 1000, md5(g::text)::uuid), -g, md5((g + 1)::text)::uuid)
  FROM generate_series(1, 20) g;
SELECT k, counter_crdt_value(c) AS value, c::bigint AS cast,
       (SELECT sum(value) FROM counter_crdt_shards(c)) AS shard_sum
FROM val_t WHERE k < 100 ORDER BY k;
SELECT count(*) AS rows_checked,
       count(*) FILTER (WHERE counter_crdt_value(c) IS DISTINCT FROM c::bigint) AS value_ne_cast,
       count(*) FILTER (WHERE c::bigint IS DISTINCT FROM (SELECT sum(value) FROM counter_crdt_shards(c))::bigint
                          AND c IS DISTINCT FROM 'tombstone'::counter_crdt AND c IS NOT NULL
                          AND c <> '{}'::counter_crdt) AS value_ne_sum,
       sum(c::bigint) AS total
FROM val_t;

-- The cast is explicit only: no implicit or assignment conversion.
SELECT c.castcontext, c.castmethod, c.castfunc::regprocedure
FROM pg_cast c
WHERE c.castsource = 'counter_crdt'::regtype ORDER BY c.castfunc::regprocedure::text;
CREATE TABLE val_target (b bigint);
INSERT INTO val_target SELECT c FROM val_t WHERE k = 3;
INSERT INTO val_target VALUES ('{aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:1:1}'::counter_crdt);
UPDATE val_target SET b = (SELECT c FROM val_t WHERE k = 3);
-- (19 gives the reason as a DETAIL: expected/value_1.out)
SELECT 1::bigint + '{}'::counter_crdt;
SELECT abs('{aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:1:-3}'::counter_crdt);
-- Explicitly it works.
INSERT INTO val_target SELECT c::bigint FROM val_t WHERE k = 4;
SELECT b, 1::bigint + b AS plus_one FROM val_target;

DROP TABLE val_t, val_target;
