--
-- type_io: the text form of counter_crdt (contract section 4)
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS counter_crdt;
RESET client_min_messages;

-- The example of contract section 4 prints back exactly.
SELECT '{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:3:42, 7f0cab51-fb72-3e98-bdb4-0404a982865d:1:-5}'::counter_crdt;
SELECT '{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:3:42, 7f0cab51-fb72-3e98-bdb4-0404a982865d:1:-5}'::counter_crdt::text
     = '{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:3:42, 7f0cab51-fb72-3e98-bdb4-0404a982865d:1:-5}' AS example_exact;

-- The empty live counter and the tombstone.
SELECT '{}'::counter_crdt AS empty, 'tombstone'::counter_crdt AS tomb;
SELECT 'tombstone'::counter_crdt::text AS tomb_text,
       length('tombstone'::counter_crdt::text) AS tomb_len,
       '{}'::counter_crdt::text AS empty_text,
       length('{}'::counter_crdt::text) AS empty_len;
SELECT string_agg(c::text, '|') AS joined
FROM (VALUES ('tombstone'::counter_crdt), ('{}'), ('TOMBSTONE'), ('tombstone')) AS v(c);
SELECT '  {   }  '::counter_crdt AS empty_spaced;
SELECT E'\t{\n}\r\n'::counter_crdt AS empty_other_ws;
SELECT 'TOMBSTONE'::counter_crdt AS upper_kw, 'TombStone'::counter_crdt AS mixed_kw,
       E' \t tombstone \n'::counter_crdt AS spaced_kw;

-- One shard; letter case of the id does not matter, output is lower case.
SELECT '{7F0CAB51-FB72-3E98-BDB4-0404A982865D:1:-5}'::counter_crdt AS upper_id;
SELECT '{7f0CAB51-fb72-3E98-bDb4-0404a982865D:1:-5}'::counter_crdt AS mixed_id;

-- Any input order; output ascending, ", " between shards, no other spaces.
SELECT '{7f0cab51-fb72-3e98-bdb4-0404a982865d:1:-5, 0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:3:42}'::counter_crdt AS reversed;
SELECT '{ffffffff-ffff-ffff-ffff-ffffffffffff:1:1,00000000-0000-0000-0000-000000000000:2:2,80000000-0000-0000-0000-000000000000:3:3,7fffffff-ffff-ffff-ffff-ffffffffffff:4:4}'::counter_crdt AS no_spaces_four;

-- White space around every token.
SELECT E' \t{ \n 7f0cab51-fb72-3e98-bdb4-0404a982865d \t: 1 \r:\f-5 ,\n0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90\f:\t3\t:\t42 } \n'::counter_crdt AS spaced;

-- Leading + sign and leading zeros; -0 is 0.
SELECT '{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:+3:+42}'::counter_crdt AS plus_signs;
SELECT '{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:0003:-00042}'::counter_crdt AS leading_zeros;
SELECT '{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:00000000000000000000000000001:-0}'::counter_crdt AS many_zeros;
SELECT '{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:+0009223372036854775807:+0009223372036854775807}'::counter_crdt AS zeros_before_max;

-- Extreme numbers: bigint max clock, bigint min and max values.
SELECT '{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:9223372036854775807:9223372036854775807}'::counter_crdt AS max_clock_max_value;
SELECT '{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:1:-9223372036854775808}'::counter_crdt AS min_value;
SELECT '{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:9223372036854775807:-9223372036854775808, 7f0cab51-fb72-3e98-bdb4-0404a982865d:9223372036854775807:9223372036854775807}'::counter_crdt AS both_extremes;
SELECT counter_crdt_value('{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:9223372036854775807:-9223372036854775808, 7f0cab51-fb72-3e98-bdb4-0404a982865d:9223372036854775807:9223372036854775807}') AS sum_of_extremes;

-- The canonical text of a value is its input again, whatever the input looked like.
SELECT v::text AS canonical, v::text::counter_crdt = v AS round_trip,
       v::text::counter_crdt::text = v::text AS text_fixpoint
FROM (VALUES
  ('{}'::counter_crdt),
  ('tombstone'),
  (' TOMBSTONE '),
  ('{ 7F0CAB51-FB72-3E98-BDB4-0404A982865D : +1 : -0 }'),
  ('{00000000-0000-0000-0000-000000000000:1:0}'),
  ('{ffffffff-ffff-ffff-ffff-ffffffffffff:9223372036854775807:-9223372036854775808}'),
  ('{80000000-0000-0000-0000-000000000000:2:-1,7fffffff-ffff-ffff-ffff-ffffffffffff:3:1}')
) AS t(v);

-- Many shards, built in random-looking id order: the output is sorted by id
-- exactly as PostgreSQL sorts uuid (unsigned bytes), and round trips.
CREATE TEMP TABLE many AS
SELECT n, ('{' || string_agg(format(' %s :%s: %s ', upper(md5(n::text || ':' || i::text)::uuid::text), i, i * 1000003 - 500000), ',') || '}')::counter_crdt AS c
FROM generate_series(1, 4) AS n, generate_series(1, n * 50) AS i
GROUP BY n;
SELECT n,
       length(c::text) AS text_length,
       c::text = (SELECT '{' || string_agg(format('%s:%s:%s', md5(n::text || ':' || i::text)::uuid, i, i * 1000003 - 500000), ', '
                                           ORDER BY md5(n::text || ':' || i::text)::uuid) || '}'
                  FROM generate_series(1, n * 50) AS i) AS canonical_order,
       c::text::counter_crdt = c AS round_trip,
       (SELECT count(*) FROM counter_crdt_shards(c)) AS shards,
       counter_crdt_value(c) AS value
FROM many ORDER BY n;

-- A 2000-shard value survives the text form both ways.
SELECT length(c::text) AS text_length, c::text::counter_crdt = c AS round_trip,
       (SELECT count(*) FROM counter_crdt_shards(c)) AS shards
FROM (SELECT ('{' || string_agg(format('%s:%s:%s', md5(i::text)::uuid, i, -i), ', ') || '}')::counter_crdt AS c
      FROM generate_series(1, 2000) AS i) AS s;

-- A table column stores and returns values, NULL included.
CREATE TABLE io_t (k int PRIMARY KEY, c counter_crdt);
INSERT INTO io_t VALUES
  (1, '{}'),
  (2, 'tombstone'),
  (3, NULL),
  (4, ' { 7F0CAB51-FB72-3E98-BDB4-0404A982865D : 1 : -5 , 0B6E7F3A-2D44-4C8E-9A51-3F0D2C7B1E90 : 3 : 42 } '),
  (5, '{ffffffff-ffff-ffff-ffff-ffffffffffff:9223372036854775807:-9223372036854775808}');
INSERT INTO io_t SELECT 6, ('{' || string_agg(format('%s:%s:%s', md5(i::text)::uuid, i, i), ', ') || '}')::counter_crdt
FROM generate_series(1, 300) AS i;
SELECT k, c, c IS NULL AS is_null FROM io_t WHERE k <> 6 ORDER BY k;
SELECT k, length(c::text), c::text::counter_crdt = c AS round_trip, counter_crdt_value(c) FROM io_t WHERE k = 6;
UPDATE io_t SET c = '{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:7:7}' WHERE k = 3;
SELECT k, c FROM io_t WHERE k = 3;
-- A value written back from its own text is unchanged.
UPDATE io_t SET c = c::text::counter_crdt;
SELECT k, c FROM io_t WHERE k <> 6 ORDER BY k;

-- NULL handling: the I/O functions are strict.
SELECT NULL::counter_crdt AS null_value, NULL::counter_crdt IS NULL AS is_null;
SELECT (NULL::text)::counter_crdt IS NULL AS null_text_in, (NULL::counter_crdt)::text IS NULL AS null_text_out;
SELECT counter_crdt_in(NULL) IS NULL AS in_null, counter_crdt_out(NULL) IS NULL AS out_null;
SELECT counter_crdt_out('{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:3:42}') AS out_direct;
SELECT counter_crdt_in('tombstone') AS in_direct;

-- Text form inside a row and an array.
SELECT ROW('{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:3:42}'::counter_crdt, 'tombstone'::counter_crdt) AS in_row;
SELECT ARRAY['{}'::counter_crdt, 'tombstone', NULL, '{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:3:42}'] AS arr;
SELECT (ARRAY['{}'::counter_crdt, 'tombstone', NULL, '{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:3:42}'])::text::counter_crdt[]
     = ARRAY['{}'::counter_crdt, 'tombstone', NULL, '{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:3:42}'] AS arr_round_trip;

DROP TABLE io_t;

-- The last text input is kept with its value when it is at most 1024
-- bytes long.  Inputs just under, at and over that length, and of 3 and 4
-- kB, each read twice, then an input of the same length whose last shard
-- has another value (its last digit, right before the padding), read
-- twice, then the first again: every read gives its own value.
CREATE TEMP TABLE memo_in AS
WITH lens(len) AS (VALUES (1023), (1024), (1025), (3000), (4096)),
     shards AS (
       SELECT len, i, md5('memo' || i)::uuid AS id,
              row_number() OVER (PARTITION BY len ORDER BY md5('memo' || i)::uuid DESC) = 1 AS last
         FROM lens, generate_series(1, (len - 2) / 45) i),
     canon AS (
       SELECT len,
              string_agg(id || ':' || i || ':' || (10 * i), ', ' ORDER BY id) AS a,
              string_agg(id || ':' || i || ':' || (10 * i + CASE WHEN last THEN 1 ELSE 0 END), ', ' ORDER BY id) AS b
         FROM shards GROUP BY len)
SELECT len, '{' || a || '}' AS canon_a, '{' || b || '}' AS canon_b,
       '{' || a || repeat(' ', len - 2 - length(a)) || '}' AS in_a,
       '{' || b || repeat(' ', len - 2 - length(b)) || '}' AS in_b
  FROM canon;
SELECT len, length(in_a) = len AND length(in_b) = len AS lengths_right,
       in_a::counter_crdt::text = canon_a AS a1, in_a::counter_crdt::text = canon_a AS a2,
       in_b::counter_crdt::text = canon_b AS b1, in_b::counter_crdt::text = canon_b AS b2,
       in_a::counter_crdt::text = canon_a AS a3
  FROM memo_in ORDER BY len;
DROP TABLE memo_in;
