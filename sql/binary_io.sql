--
-- binary_io: send/recv and binary COPY (contract section 5)
--
-- Layout: the byte table of src/core/cc_wire.h.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS counter_crdt;
RESET client_min_messages;

-- send, pinned.
SELECT counter_crdt_send('{}') AS empty, counter_crdt_send('tombstone') AS tomb;
SELECT counter_crdt_send('{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:3:42, 7f0cab51-fb72-3e98-bdb4-0404a982865d:1:-5}') AS example;
SELECT counter_crdt_send('{7f0cab51-fb72-3e98-bdb4-0404a982865d:1:-5, 0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:3:42}')
     = decode('01' || '00' || '00000002'
              || '0b6e7f3a2d444c8e9a513f0d2c7b1e90' || '0000000000000003' || '000000000000002a'
              || '7f0cab51fb723e98bdb40404a982865d' || '0000000000000001' || 'fffffffffffffffb', 'hex') AS example_layout;
SELECT counter_crdt_send('{ffffffff-ffff-ffff-ffff-ffffffffffff:9223372036854775807:-9223372036854775808, 00000000-0000-0000-0000-000000000000:1:9223372036854775807}') AS extremes;
SELECT n, length(counter_crdt_send(c)) AS bytes, length(counter_crdt_send(c)) = 6 + 32 * 100 * n AS size_ok,
       substr(counter_crdt_send(c), 1, 6) AS header
FROM (SELECT n, ('{' || string_agg(format('%s:%s:%s', md5(i::text)::uuid, i, -i), ', ') || '}')::counter_crdt AS c
      FROM generate_series(1, 3) AS k(n), generate_series(1, n * 100) AS i GROUP BY n) AS s
ORDER BY n;
SELECT counter_crdt_send(NULL) IS NULL AS send_null;

-- Helpers.  pgcopy() builds a one-column binary COPY stream: the signature
-- PGCOPY\n\377\r\n\0, flags int32 0, header extension length int32 0, then per
-- tuple an int16 field count 1, an int32 field length (-1 for NULL) and the
-- field bytes, and the trailer int16 -1.
CREATE FUNCTION pg_temp.pgcopy(fields bytea[]) RETURNS bytea LANGUAGE sql IMMUTABLE AS $$
  SELECT '\x5047434f50590aff0d0a00'::bytea || '\x00000000'::bytea || '\x00000000'::bytea
      || coalesce((SELECT string_agg(CASE WHEN f IS NULL THEN '\x0001ffffffff'::bytea
                                          ELSE '\x0001'::bytea || int4send(length(f)) || f END,
                                     ''::bytea ORDER BY i)
                   FROM unnest(fields) WITH ORDINALITY AS u(f, i)), ''::bytea)
      || '\xffff'::bytea
$$;
-- write_file() writes bytes to a server file and returns how many.
CREATE FUNCTION pg_temp.write_file(data bytea, path text) RETURNS int LANGUAGE plpgsql AS $$
DECLARE o oid;
BEGIN
  o := lo_from_bytea(0, data);
  PERFORM lo_export(o, path);
  PERFORM lo_unlink(o);
  RETURN length(data);
END $$;
-- Files live in the data directory of the server, which owns them.
SELECT current_setting('data_directory') || '/counter_crdt_regress_binary_io.bin' AS binfile,
       current_setting('data_directory') || '/counter_crdt_regress_binary_io_case.bin' AS casefile \gset

-- The helper is right: a tiny stream, byte by byte, and the same bytes as
-- PostgreSQL's own binary COPY writes.
SELECT pg_temp.pgcopy(ARRAY[counter_crdt_send('{}'), NULL]) AS tiny_stream;
CREATE TABLE bin_src (k int PRIMARY KEY, c counter_crdt);
INSERT INTO bin_src VALUES
  (1, '{}'),
  (2, 'tombstone'),
  (3, NULL),
  (4, '{7f0cab51-fb72-3e98-bdb4-0404a982865d:1:-5, 0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:3:42}'),
  (5, '{ffffffff-ffff-ffff-ffff-ffffffffffff:9223372036854775807:-9223372036854775808, 00000000-0000-0000-0000-000000000000:1:9223372036854775807}'),
  (6, '{80000000-0000-0000-0000-000000000000:2:-1, 7fffffff-ffff-ffff-ffff-ffffffffffff:3:1}');
INSERT INTO bin_src SELECT 7, ('{' || string_agg(format('%s:%s:%s', md5(i::text)::uuid, i, i * 7 - 1000), ', ') || '}')::counter_crdt
FROM generate_series(1, 250) AS i;
-- 4000 shards: 128 kB, stored out of line.
INSERT INTO bin_src SELECT 8, ('{' || string_agg(format('%s:%s:%s', md5('x' || i)::uuid, i * 1000, -i), ', ') || '}')::counter_crdt
FROM generate_series(1, 4000) AS i;
INSERT INTO bin_src VALUES (9, 'tombstone'), (10, NULL), (11, '{}');
COPY (SELECT c FROM bin_src ORDER BY k) TO :'binfile' (FORMAT binary);
SELECT pg_read_binary_file(:'binfile')
     = pg_temp.pgcopy(ARRAY(SELECT counter_crdt_send(c) FROM bin_src ORDER BY k)) AS same_as_copy;

-- Binary COPY round trip of a whole table.
COPY bin_src TO :'binfile' (FORMAT binary);
CREATE TABLE bin_dst (k int PRIMARY KEY, c counter_crdt);
COPY bin_dst FROM :'binfile' (FORMAT binary);
SELECT (SELECT count(*) FROM bin_src) AS src_rows, (SELECT count(*) FROM bin_dst) AS dst_rows;
SELECT s.k, s.c = d.c AS equal, s.c IS NULL AS src_null, d.c IS NULL AS dst_null,
       counter_crdt_send(s.c) = counter_crdt_send(d.c) AS same_bytes,
       (SELECT count(*) FROM counter_crdt_shards(d.c)) AS shards
FROM bin_src s FULL JOIN bin_dst d ON s.k = d.k ORDER BY s.k;
SELECT k, c FROM bin_dst WHERE k NOT IN (7, 8) ORDER BY k;
SELECT count(*) AS mismatches
FROM bin_src s FULL JOIN bin_dst d ON s.k = d.k
WHERE s.k IS NULL OR d.k IS NULL OR (s.c IS NULL) <> (d.c IS NULL) OR s.c <> d.c;

-- Hand-built fields: the same helper feeds recv good and bad input.
CREATE TABLE bin_bad (c counter_crdt);
CREATE FUNCTION pg_temp.copy_in(field bytea) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  d text;
  path text := current_setting('data_directory') || '/counter_crdt_regress_binary_io_case.bin';
BEGIN
  PERFORM pg_temp.write_file(pg_temp.pgcopy(ARRAY[field]), path);
  EXECUTE format('COPY bin_bad FROM %L (FORMAT binary)', path);
  RETURN 'accepted';
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS d = PG_EXCEPTION_DETAIL;
  RETURN SQLSTATE || ': ' || d;
END $$;

-- Shards used below (id, clock, value), as hex:
--   A = 0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90 : 1 : 5
--   B = 7f0cab51-fb72-3e98-bdb4-0404a982865d : 2 : -2
\set A '0b6e7f3a2d444c8e9a513f0d2c7b1e9000000000000000010000000000000005'
\set B '7f0cab51fb723e98bdb40404a982865d0000000000000002fffffffffffffffe'
SELECT length(decode(:'A', 'hex')) AS a_bytes, length(decode(:'B', 'hex')) AS b_bytes;
SELECT s.* FROM counter_crdt_shards('{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:1:5, 7f0cab51-fb72-3e98-bdb4-0404a982865d:2:-2}') AS s;
SELECT counter_crdt_send('{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:1:5, 7f0cab51-fb72-3e98-bdb4-0404a982865d:2:-2}')
     = decode('0100' || '00000002' || :'A' || :'B', 'hex') AS a_b_as_sent;

-- Valid fields are accepted.
CREATE TEMP TABLE good_fields (n int, what text, hex text);
INSERT INTO good_fields VALUES
  (1, 'empty', '01' || '00' || '00000000'),
  (2, 'tombstone', '01' || '01' || '00000000'),
  (3, 'A and B', '01' || '00' || '00000002' || :'A' || :'B'),
  (4, 'ids 7fff... < 8000... as unsigned bytes', '01' || '00' || '00000002'
      || '7fffffffffffffffffffffffffffffff' || '7fffffffffffffff' || '8000000000000000'
      || '80000000000000000000000000000000' || '0000000000000001' || '0000000000000000'),
  (5, 'ids 0000... and ffff...', '01' || '00' || '00000002'
      || '00000000000000000000000000000000' || '0000000000000001' || 'ffffffffffffffff'
      || 'ffffffffffffffffffffffffffffffff' || '0000000000000001' || '0000000000000001');
SELECT n, what, length(decode(hex, 'hex')) AS bytes, pg_temp.copy_in(decode(hex, 'hex')) AS result
FROM good_fields ORDER BY n;
SELECT g.n, b.c, counter_crdt_send(b.c) = decode(g.hex, 'hex') AS send_is_input
FROM bin_bad b JOIN good_fields g ON counter_crdt_send(b.c) = decode(g.hex, 'hex') ORDER BY g.n;
SELECT count(*) AS loaded FROM bin_bad;
TRUNCATE bin_bad;

-- The last field read is kept with its value (a replicated UPDATE converts
-- every column twice): only the very same bytes give that value again.  One
-- byte more is refused; another last byte is read for itself.
SELECT pg_temp.copy_in(decode('0100' || '00000001' || :'A', 'hex')) AS a,
       pg_temp.copy_in(decode('0100' || '00000001' || :'A', 'hex')) AS a_again,
       pg_temp.copy_in(decode('0100' || '00000001' || :'A' || '00', 'hex')) AS a_and_a_byte,
       pg_temp.copy_in(decode('0100' || '00000001' || left(:'A', 62) || '06', 'hex')) AS a_with_6,
       pg_temp.copy_in(decode('0100' || '00000001' || left(:'A', 62) || '06', 'hex')) AS a_with_6_again;
SELECT c FROM bin_bad;
TRUNCATE bin_bad;

-- Malformed fields are rejected with 22P03, and none gets in.
CREATE TEMP TABLE bad_fields (n int, what text, hex text);
INSERT INTO bad_fields VALUES
  ( 1, 'version 0', '0000' || '00000000'),
  ( 2, 'version 2', '0200' || '00000000'),
  ( 3, 'version 255', 'ff00' || '00000000'),
  ( 4, 'version 0 with a shard', '0000' || '00000001' || :'A'),
  ( 5, 'version 2 with a shard', '0200' || '00000001' || :'A'),
  ( 6, 'flag bit 0x02', '0102' || '00000000'),
  ( 7, 'flag bit 0x80', '0180' || '00000000'),
  ( 8, 'flags 0x03', '0103' || '00000000'),
  ( 9, 'flags 0xff', '01ff' || '00000000'),
  (10, 'flag 0x02 with a shard', '0102' || '00000001' || :'A'),
  (11, 'tombstone with one shard', '0101' || '00000001' || :'A'),
  (12, 'tombstone with two shards', '0101' || '00000002' || :'A' || :'B'),
  (13, 'tombstone, count 1, no shard bytes', '0101' || '00000001'),
  (14, 'tombstone, count 0, one shard of bytes', '0101' || '00000000' || :'A'),
  (15, 'count 1, no shard bytes', '0100' || '00000001'),
  (16, 'count 2, one shard', '0100' || '00000002' || :'A'),
  (17, 'count 3, two shards', '0100' || '00000003' || :'A' || :'B'),
  (18, 'count 0, one shard', '0100' || '00000000' || :'A'),
  (19, 'count 1, two shards', '0100' || '00000001' || :'A' || :'B'),
  (20, 'no bytes at all', ''),
  (21, 'header 1 byte', '01'),
  (22, 'header 2 bytes', '0100'),
  (23, 'header 3 bytes', '010000'),
  (24, 'header 4 bytes', '01000000'),
  (25, 'header 5 bytes', '0100000000'),
  (26, 'count 1, shard short by 1 byte', '0100' || '00000001' || left(:'A', 62)),
  (27, 'count 1, shard plus 1 byte', '0100' || '00000001' || :'A' || '00'),
  (28, 'count 0 plus 1 byte', '0100' || '00000000' || '00'),
  (29, 'count 0 plus 31 bytes', '0100' || '00000000' || repeat('00', 31)),
  (30, 'count 1 plus 33 bytes', '0100' || '00000001' || repeat('00', 33)),
  (31, 'count 2, 48 bytes', '0100' || '00000002' || :'A' || repeat('11', 16)),
  (32, 'count 0xffffffff, no shard bytes', '0100' || 'ffffffff'),
  (33, 'count 0xffffffff, one shard', '0100' || 'ffffffff' || :'A'),
  (34, 'count 0x80000000, one shard', '0100' || '80000000' || :'A'),
  (35, 'count 2^27 (x32 wraps to 0), no bytes', '0100' || '08000000'),
  (36, 'count 2^27+1 (x32 wraps to 32), one shard', '0100' || '08000001' || :'A'),
  (37, 'count 2^27+2 (x32 wraps to 64), two shards', '0100' || '08000002' || :'A' || :'B'),
  (38, 'ids out of order', '0100' || '00000002' || :'B' || :'A'),
  (39, 'ids 8000... before 7fff...', '0100' || '00000002'
      || '80000000000000000000000000000000' || '0000000000000001' || '0000000000000000'
      || '7fffffffffffffffffffffffffffffff' || '0000000000000001' || '0000000000000000'),
  (40, 'ids ffff... before 0000...', '0100' || '00000002'
      || 'ffffffffffffffffffffffffffffffff' || '0000000000000001' || '0000000000000000'
      || '00000000000000000000000000000000' || '0000000000000001' || '0000000000000000'),
  (41, 'third id out of order', '0100' || '00000003' || :'A' || :'B'
      || '00000000000000000000000000000001' || '0000000000000001' || '0000000000000000'),
  (42, 'duplicate shard', '0100' || '00000002' || :'A' || :'A'),
  (43, 'duplicate id, other clock', '0100' || '00000002' || :'A'
      || '0b6e7f3a2d444c8e9a513f0d2c7b1e90' || '0000000000000002' || '0000000000000005'),
  (44, 'clock 0', '0100' || '00000001'
      || '0b6e7f3a2d444c8e9a513f0d2c7b1e90' || '0000000000000000' || '0000000000000005'),
  (45, 'clock -1', '0100' || '00000001'
      || '0b6e7f3a2d444c8e9a513f0d2c7b1e90' || 'ffffffffffffffff' || '0000000000000005'),
  (46, 'clock bigint min', '0100' || '00000001'
      || '0b6e7f3a2d444c8e9a513f0d2c7b1e90' || '8000000000000000' || '0000000000000005'),
  (47, 'clock 0 in second shard', '0100' || '00000002' || :'A'
      || '7f0cab51fb723e98bdb40404a982865d' || '0000000000000000' || '0000000000000001'),
  (48, 'tombstone flag, count 0, trailing byte', '0101' || '00000000' || '00');
SELECT n, what, length(decode(hex, 'hex')) AS bytes, pg_temp.copy_in(decode(hex, 'hex')) AS result
FROM bad_fields ORDER BY n;
SELECT count(*) AS cases,
       count(*) FILTER (WHERE pg_temp.copy_in(decode(hex, 'hex')) LIKE '22P03: %') AS rejected_22p03
FROM bad_fields;
SELECT count(*) AS rows_after_bad_fields FROM bin_bad;

-- Two of them in full, with message, DETAIL and CONTEXT.
SELECT pg_temp.write_file(pg_temp.pgcopy(ARRAY[decode('0200' || '00000000', 'hex')]), :'casefile') AS stream_bytes;
COPY bin_bad FROM :'casefile' (FORMAT binary);
SELECT pg_temp.write_file(pg_temp.pgcopy(ARRAY[decode('0100' || 'ffffffff', 'hex')]), :'casefile') AS stream_bytes;
COPY bin_bad FROM :'casefile' (FORMAT binary);

-- A COPY that fails on its third tuple leaves the table as it was.
INSERT INTO bin_bad VALUES ('{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:1:1}');
SELECT count(*) AS before FROM bin_bad;
SELECT pg_temp.write_file(pg_temp.pgcopy(ARRAY[
  decode('0100' || '00000000', 'hex'),
  counter_crdt_send('{7f0cab51-fb72-3e98-bdb4-0404a982865d:1:-5}'),
  decode('0100' || '00000001' || '0b6e7f3a2d444c8e9a513f0d2c7b1e90' || '0000000000000000' || '0000000000000005', 'hex'),
  decode('0101' || '00000000', 'hex')]), :'casefile') AS stream_bytes;
COPY bin_bad FROM :'casefile' (FORMAT binary);
SELECT count(*) AS after, string_agg(c::text, ' ') AS contents FROM bin_bad;
-- The same stream without the bad tuple loads in full.
SELECT pg_temp.write_file(pg_temp.pgcopy(ARRAY[
  decode('0100' || '00000000', 'hex'),
  counter_crdt_send('{7f0cab51-fb72-3e98-bdb4-0404a982865d:1:-5}'),
  NULL,
  decode('0101' || '00000000', 'hex')]), :'casefile') AS stream_bytes;
COPY bin_bad FROM :'casefile' (FORMAT binary);
SELECT c, c IS NULL AS is_null FROM bin_bad ORDER BY counter_crdt_send(c) NULLS LAST;

DROP TABLE bin_src, bin_dst, bin_bad;
