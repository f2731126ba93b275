--
-- shards_digest: counter_crdt_shards() and counter_crdt_digest() (contract sections 1, 3)
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS counter_crdt;
RESET client_min_messages;

--
-- counter_crdt_shards
--

-- Rows in ascending id order (unsigned bytes), whatever the input order.
SELECT * FROM counter_crdt_shards('{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:3:42, 7f0cab51-fb72-3e98-bdb4-0404a982865d:1:-5}');
SELECT * FROM counter_crdt_shards('{ffffffff-ffff-ffff-ffff-ffffffffffff:1:1,
  80000000-0000-0000-0000-000000000000:2:-2,
  7fffffff-ffff-ffff-ffff-ffffffffffff:3:3,
  00000000-0000-0000-0000-000000000001:4:-4,
  80000000-0000-0000-0000-000000000001:5:5,
  7fffffff-ffff-ffff-ffff-fffffffffffe:6:-6,
  00000000-0000-0000-0000-000000000000:7:7,
  FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFE:8:-8,
  00ffffff-ffff-ffff-ffff-ffffffffffff:9:9,
  ff000000-0000-0000-0000-000000000000:10:-10}');
-- The column names and types.
SELECT id, pg_typeof(id) AS id_type, clock, pg_typeof(clock) AS clock_type, value, pg_typeof(value) AS value_type
FROM counter_crdt_shards('{7F0CAB51-FB72-3E98-BDB4-0404A982865D:9223372036854775807:-9223372036854775808}');
-- Extremes come back exactly.
SELECT s.id, s.clock, s.value
FROM counter_crdt_shards('{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:9223372036854775807:9223372036854775807, 7f0cab51-fb72-3e98-bdb4-0404a982865d:1:-9223372036854775808}') AS s;

-- No rows for a tombstone, {} or NULL.
SELECT count(*) AS tombstone_rows FROM counter_crdt_shards('tombstone');
SELECT count(*) AS empty_rows FROM counter_crdt_shards('{}');
SELECT count(*) AS null_rows FROM counter_crdt_shards(NULL);

-- Many shards: every row once, in the order PostgreSQL sorts uuid, with the
-- clocks and values of the input.
CREATE TEMP TABLE sd_input AS
SELECT md5('sd' || i)::uuid AS id, i::bigint AS clock, (i * 37 - 5000)::bigint AS value
FROM generate_series(1, 1500) AS i;
CREATE TEMP TABLE sd_big AS
SELECT ('{' || string_agg(format('%s:%s:%s', id, clock, value), ', ' ORDER BY clock) || '}')::counter_crdt AS c
FROM sd_input;
SELECT count(*) AS shards,
       bool_and(s.o = r.ord) AS ascending,
       bool_and(s.clock = r.clock AND s.value = r.value) AS same_shards,
       sum(s.value) = (SELECT counter_crdt_value(c) FROM sd_big) AS sum_is_value
FROM (SELECT x.* FROM sd_big, counter_crdt_shards(sd_big.c) WITH ORDINALITY AS x(id, clock, value, o)) AS s
JOIN (SELECT id, clock, value, row_number() OVER (ORDER BY id) AS ord FROM sd_input) AS r USING (id);
SELECT count(*) AS not_ascending
FROM (SELECT id, lag(id) OVER (ORDER BY o) AS prev
      FROM sd_big, counter_crdt_shards(sd_big.c) WITH ORDINALITY AS x(id, clock, value, o)) AS t
WHERE prev IS NOT NULL AND NOT prev < id;

-- Used laterally over a table.
CREATE TABLE sd_t (k int, c counter_crdt);
INSERT INTO sd_t VALUES
  (1, '{7f0cab51-fb72-3e98-bdb4-0404a982865d:1:-5, 0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:3:42}'),
  (2, 'tombstone'),
  (3, NULL),
  (4, '{}'),
  (5, '{80000000-0000-0000-0000-000000000000:1:1, 7fffffff-ffff-ffff-ffff-ffffffffffff:2:2}');
SELECT t.k, s.id, s.clock, s.value FROM sd_t t, counter_crdt_shards(t.c) AS s ORDER BY t.k;
SELECT t.k, count(s.id) AS shards FROM sd_t t LEFT JOIN LATERAL counter_crdt_shards(t.c) AS s ON true
GROUP BY t.k ORDER BY t.k;

--
-- counter_crdt_digest
--

-- Pinned digests.
SELECT counter_crdt_digest('{}') AS empty;
SELECT counter_crdt_digest('tombstone') AS tomb;
SELECT counter_crdt_digest('{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:3:42, 7f0cab51-fb72-3e98-bdb4-0404a982865d:1:-5}') AS example;

-- The pinned digests, computed independently: SHA-256 of the ASCII tag
-- "counter_crdt digest v1", a flag byte (1 tombstone, 0 live), the shard
-- count as 8 bytes big-endian, then per shard id (16), clock (8 BE), value (8 BE).
-- The tag in hex is 636f756e7465725f6372647420646967657374207631.
SELECT 'counter_crdt digest v1'::bytea = '\x636f756e7465725f6372647420646967657374207631'::bytea AS tag_bytes;
SELECT counter_crdt_digest('{}')
     = sha256('\x636f756e7465725f6372647420646967657374207631'::bytea
              || '\x00'::bytea || '\x0000000000000000'::bytea) AS empty_by_hand;
SELECT counter_crdt_digest('tombstone')
     = sha256('\x636f756e7465725f6372647420646967657374207631'::bytea
              || '\x01'::bytea || '\x0000000000000000'::bytea) AS tomb_by_hand;
SELECT counter_crdt_digest(' { 7F0CAB51-FB72-3E98-BDB4-0404A982865D : 1 : -5 , 0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90 : 3 : 42 } ')
     = sha256(decode('636f756e7465725f6372647420646967657374207631'
                     || '00' || '0000000000000002'
                     || '0b6e7f3a2d444c8e9a513f0d2c7b1e90' || '0000000000000003' || '000000000000002a'
                     || '7f0cab51fb723e98bdb40404a982865d' || '0000000000000001' || 'fffffffffffffffb', 'hex')) AS example_by_hand;
SELECT sha256(decode('636f756e7465725f6372647420646967657374207631'
                     || '00' || '0000000000000002'
                     || '0b6e7f3a2d444c8e9a513f0d2c7b1e90' || '0000000000000003' || '000000000000002a'
                     || '7f0cab51fb723e98bdb40404a982865d' || '0000000000000001' || 'fffffffffffffffb', 'hex')) AS example_sha256;

-- The same encoding, written in SQL over counter_crdt_shards(), agrees on
-- every value below, including extremes and 1500 shards.
CREATE FUNCTION pg_temp.digest_ref(c counter_crdt) RETURNS bytea LANGUAGE sql STRICT AS $$
  SELECT sha256('counter_crdt digest v1'::bytea
                || CASE WHEN c = 'tombstone' THEN '\x01'::bytea ELSE '\x00'::bytea END
                || int8send((SELECT count(*) FROM counter_crdt_shards(c)))
                || coalesce((SELECT string_agg(uuid_send(s.id) || int8send(s.clock) || int8send(s.value), ''::bytea ORDER BY s.id)
                             FROM counter_crdt_shards(c) AS s), ''::bytea))
$$;
SELECT c::text AS state, counter_crdt_digest(c) = pg_temp.digest_ref(c) AS matches_reference
FROM (VALUES
  ('{}'::counter_crdt),
  ('tombstone'),
  ('{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:3:42}'),
  ('{ffffffff-ffff-ffff-ffff-ffffffffffff:9223372036854775807:-9223372036854775808, 00000000-0000-0000-0000-000000000000:1:9223372036854775807}'),
  ('{80000000-0000-0000-0000-000000000000:1:1, 7fffffff-ffff-ffff-ffff-ffffffffffff:2:2}')
) AS v(c);
SELECT counter_crdt_digest(c) = pg_temp.digest_ref(c) AS big_matches_reference FROM sd_big;

-- Equal states give equal digests, however the text was written.
SELECT counter_crdt_digest('{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:3:42, 7f0cab51-fb72-3e98-bdb4-0404a982865d:1:-5}')
     = counter_crdt_digest(' {7F0CAB51-FB72-3E98-BDB4-0404A982865D:+1:-05,0B6E7F3A-2D44-4C8E-9A51-3F0D2C7B1E90 : 003 : 42} ') AS same_state_same_digest,
       counter_crdt_digest('tombstone') = counter_crdt_digest('  TombStone ') AS tomb_same,
       counter_crdt_digest('{}') = counter_crdt_digest('{   }') AS empty_same;
SELECT count(DISTINCT counter_crdt_digest(c)) AS digests
FROM (VALUES
  ('{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:3:42, 7f0cab51-fb72-3e98-bdb4-0404a982865d:1:-5}'::counter_crdt),
  ('{7f0cab51-fb72-3e98-bdb4-0404a982865d:1:-5, 0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:3:42}'),
  ('{7F0CAB51-FB72-3E98-BDB4-0404A982865D:1:-5,0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:3:42}'),
  (' { 0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90 : +3 : +42 , 7f0cab51-fb72-3e98-bdb4-0404a982865d : 1 : -5 } ')
) AS v(c);
-- ... also after a text round trip and a merge with itself.
SELECT counter_crdt_digest(c) = counter_crdt_digest(c::text::counter_crdt) AS after_text,
       counter_crdt_digest(c) = counter_crdt_digest(counter_crdt_merge(c, c)) AS after_self_merge
FROM sd_big;

-- Different states give different digests.
SELECT what, counter_crdt_digest(a) <> counter_crdt_digest(b) AS differ
FROM (VALUES
  ('tombstone vs {}', 'tombstone'::counter_crdt, '{}'::counter_crdt),
  ('{} vs one shard of value 0', '{}', '{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:1:0}'),
  ('one clock', '{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:3:42, 7f0cab51-fb72-3e98-bdb4-0404a982865d:1:-5}',
                '{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:3:42, 7f0cab51-fb72-3e98-bdb4-0404a982865d:2:-5}'),
  ('one value', '{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:3:42, 7f0cab51-fb72-3e98-bdb4-0404a982865d:1:-5}',
                '{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:3:42, 7f0cab51-fb72-3e98-bdb4-0404a982865d:1:-4}'),
  ('one id', '{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:3:42, 7f0cab51-fb72-3e98-bdb4-0404a982865d:1:-5}',
             '{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:3:42, 7f0cab51-fb72-3e98-bdb4-0404a982865e:1:-5}'),
  ('same value, other shards', '{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:1:37}',
                               '{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:3:42, 7f0cab51-fb72-3e98-bdb4-0404a982865d:1:-5}'),
  ('clock and value swapped', '{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:3:42}', '{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:42:3}'),
  ('one shard more', '{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:3:42}',
                     '{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:3:42, 7f0cab51-fb72-3e98-bdb4-0404a982865d:1:0}'),
  ('value 0 vs -0 is the same state', '{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:3:0}', '{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:3:-0}')
) AS v(what, a, b);
-- c + 0 adds a shard (writer, 1, 0): a new state with the same value.
SELECT counter_crdt_digest(c) <> counter_crdt_digest(counter_crdt_increment(c, 0, '00000000-0000-0000-0000-000000000001')) AS increment_by_0_changes_digest
FROM sd_big;
-- 1000 different states, 1000 different digests.
SELECT count(DISTINCT counter_crdt_digest(('{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:' || (1 + i % 40) || ':' || (i / 40 - 12) || '}')::counter_crdt)) AS digests
FROM generate_series(0, 999) AS i;

-- Always 32 bytes; NULL for NULL.
SELECT length(counter_crdt_digest('{}')) AS len_empty, length(counter_crdt_digest('tombstone')) AS len_tomb,
       (SELECT length(counter_crdt_digest(c)) FROM sd_big) AS len_big;
SELECT counter_crdt_digest(NULL) IS NULL AS digest_null;
SELECT k, length(counter_crdt_digest(c)) AS len, counter_crdt_digest(c) IS NULL AS is_null FROM sd_t ORDER BY k;

DROP TABLE sd_t;
