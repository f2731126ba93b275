--
-- binary_compact: the compact binary form, format version 3
-- (src/core/cc_wire.h), that send writes when counter_crdt.binary_format is
-- 'compact', and that recv reads whatever the setting.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS counter_crdt;
RESET client_min_messages;
LOAD 'counter_crdt';

-- The setting: portable by default, any role may change it, two values.
SHOW counter_crdt.binary_format;
SELECT name, setting, enumvals, context, vartype FROM pg_settings WHERE name = 'counter_crdt.binary_format';
SET counter_crdt.binary_format = 'tiny';

-- Shards used below (id, clock, value): A = 0b6e7f3a-...:1:5, B = 7f0cab51-...:2:-2.
\set IA '0b6e7f3a2d444c8e9a513f0d2c7b1e90'
\set IB '7f0cab51fb723e98bdb40404a982865d'
\set AB '{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:1:5, 7f0cab51-fb72-3e98-bdb4-0404a982865d:2:-2}'

-- send, pinned, in both settings: versions 1 and 2 (portable), version 3
-- for live values without fold records (compact): layout 0x05 is one byte
-- of clock and one of value; -2 is fe (a sign slip would send 02 or 82).
CREATE TEMP TABLE forms (n int, what text, c counter_crdt);
INSERT INTO forms VALUES
  (1, 'A and B', :'AB'),
  (2, 'empty', '{}'),
  (3, 'tombstone', 'tombstone'),
  (4, 'clock 256, value -129: two bytes each', '{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:256:-129}'),
  (5, 'clock 65536, value 32768: four bytes each', '{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:65536:32768}'),
  (6, 'clock 2^32, value -2^31 - 1: eight bytes each', '{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:4294967296:-2147483649}'),
  (7, 'clock 255, value -128: still one byte each', '{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:255:-128}'),
  (8, 'extremes', '{00000000-0000-0000-0000-000000000000:1:9223372036854775807, ffffffff-ffff-ffff-ffff-ffffffffffff:9223372036854775807:-9223372036854775808}'),
  (9, 'a total outside bigint', '{00000000-0000-0000-0000-000000000000:1:9223372036854775807, ffffffff-ffff-ffff-ffff-ffffffffffff:1:1}'),
  (10, 'with a fold record', '{7fffffff-ffff-ffff-ffff-ffffffffffff:4:110} folded {80000000-0000-0000-0000-000000000000>7fffffff-ffff-ffff-ffff-ffffffffffff:4:5:100:100}');
SET counter_crdt.binary_format = 'portable';
SELECT n, what, get_byte(counter_crdt_send(c), 0) AS version, length(counter_crdt_send(c)) AS bytes
FROM forms ORDER BY n;
CREATE TEMP TABLE portable AS SELECT n, counter_crdt_send(c) AS b FROM forms;
SET counter_crdt.binary_format = 'compact';
SELECT n, what, get_byte(counter_crdt_send(c), 0) AS version, length(counter_crdt_send(c)) AS bytes,
       CASE WHEN get_byte(counter_crdt_send(c), 0) = 3 THEN counter_crdt_send(c) END AS compact
FROM forms ORDER BY n;
SELECT counter_crdt_send(:'AB') = decode('03' || '05' || :'IA' || '01' || '05' || :'IB' || '02' || 'fe', 'hex') AS a_b_by_hand;
-- Tombstones and values with fold records are sent as before, byte for byte.
SELECT f.n, counter_crdt_send(f.c) = p.b AS same_as_portable
FROM forms f JOIN portable p USING (n) WHERE get_byte(counter_crdt_send(f.c), 0) <> 3 ORDER BY f.n;
-- Helpers (as in binary_io): a one-column binary COPY stream, a server file.
CREATE FUNCTION pg_temp.pgcopy(fields bytea[]) RETURNS bytea LANGUAGE sql IMMUTABLE AS $$
  SELECT '\x5047434f50590aff0d0a00'::bytea || '\x00000000'::bytea || '\x00000000'::bytea
      || coalesce((SELECT string_agg(CASE WHEN f IS NULL THEN '\x0001ffffffff'::bytea
                                          ELSE '\x0001'::bytea || int4send(length(f)) || f END,
                                     ''::bytea ORDER BY i)
                   FROM unnest(fields) WITH ORDINALITY AS u(f, i)), ''::bytea)
      || '\xffff'::bytea
$$;
CREATE FUNCTION pg_temp.write_file(data bytea, path text) RETURNS int LANGUAGE plpgsql AS $$
DECLARE o oid;
BEGIN
  o := lo_from_bytea(0, data);
  PERFORM lo_export(o, path);
  PERFORM lo_unlink(o);
  RETURN length(data);
END $$;
SELECT current_setting('data_directory') || '/counter_crdt_regress_binary_compact.bin' AS binfile,
       current_setting('data_directory') || '/counter_crdt_regress_binary_compact_case.bin' AS casefile \gset

-- COPY (FORMAT binary) out with the setting on, in with it off: the same
-- values; the file is the compact sends.
CREATE TABLE cb_src (k int PRIMARY KEY, c counter_crdt);
INSERT INTO cb_src SELECT n, c FROM forms;
INSERT INTO cb_src VALUES (11, NULL);
INSERT INTO cb_src SELECT 12, ('{' || string_agg(format('%s:%s:%s', md5(i::text)::uuid, i, i * 7 - 1000), ', ') || '}')::counter_crdt
FROM generate_series(1, 250) AS i;
INSERT INTO cb_src SELECT 13, ('{' || string_agg(format('%s:%s:%s', md5('x' || i)::uuid, i * 1000, -i), ', ') || '}')::counter_crdt
FROM generate_series(1, 4000) AS i;
SET counter_crdt.binary_format = 'compact';
COPY (SELECT c FROM cb_src ORDER BY k) TO :'binfile' (FORMAT binary);
SELECT pg_read_binary_file(:'binfile')
     = pg_temp.pgcopy(ARRAY(SELECT counter_crdt_send(c) FROM cb_src ORDER BY k)) AS file_is_compact_sends,
       length(pg_read_binary_file(:'binfile')) AS compact_file_bytes;
COPY cb_src TO :'binfile' (FORMAT binary);
RESET counter_crdt.binary_format;
CREATE TABLE cb_dst (k int PRIMARY KEY, c counter_crdt);
COPY cb_dst FROM :'binfile' (FORMAT binary);
SELECT count(*) AS rows_in,
       count(*) FILTER (WHERE s.c IS NOT DISTINCT FROM d.c AND counter_crdt_digest(s.c) IS NOT DISTINCT FROM counter_crdt_digest(d.c)
                        AND s.c::text IS NOT DISTINCT FROM d.c::text) AS same
FROM cb_src s FULL JOIN cb_dst d USING (k);
-- ... and the portable file of the same table is larger
COPY cb_src TO :'binfile' (FORMAT binary);
SELECT length(pg_read_binary_file(:'binfile')) AS portable_file_bytes;

-- Hand-built version 3 fields through recv (binary COPY), any layout.
CREATE TABLE cb_in (c counter_crdt);
CREATE FUNCTION pg_temp.copy_in(field bytea) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  d text;
  v text;
  path text := current_setting('data_directory') || '/counter_crdt_regress_binary_compact_case.bin';
BEGIN
  TRUNCATE cb_in;
  PERFORM pg_temp.write_file(pg_temp.pgcopy(ARRAY[field]), path);
  EXECUTE format('COPY cb_in FROM %L (FORMAT binary)', path);
  SELECT c::text INTO v FROM cb_in;
  RETURN v;
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS d = PG_EXCEPTION_DETAIL;
  RETURN SQLSTATE || ': ' || d;
END $$;
CREATE TEMP TABLE good3 (n int, what text, hex text);
INSERT INTO good3 VALUES
  (1, 'empty, layout 05', '0305'),
  (2, 'empty, layout 00', '0300'),
  (3, 'A and B, layout 05', '0305' || :'IA' || '01' || '05' || :'IB' || '02' || 'fe'),
  (4, 'A and B, layout 0f (four bytes each)', '030f' || :'IA' || '00000001' || '00000005' || :'IB' || '00000002' || 'fffffffe'),
  (5, 'A and B, layout 00 (eight bytes each)', '0300' || :'IA' || '0000000000000001' || '0000000000000005'
      || :'IB' || '0000000000000002' || 'fffffffffffffffe'),
  (6, 'value ff in one byte: -1', '0305' || :'IA' || '01' || 'ff'),
  (7, 'value 80 in one byte: -128', '0305' || :'IA' || '01' || '80'),
  (8, 'value 7f in one byte: 127', '0305' || :'IA' || '01' || '7f'),
  (9, 'value ff7f in two bytes: -129', '0309' || :'IA' || '01' || 'ff7f'),
  (10, 'value 80000000 in four bytes: -2^31', '030d' || :'IA' || '01' || '80000000'),
  (11, 'clock ff in one byte: 255 (unsigned)', '0305' || :'IA' || 'ff' || '01'),
  (12, 'clock ffffffff in four bytes: 2^32 - 1 (unsigned)', '0307' || :'IA' || 'ffffffff' || '01'),
  (13, 'clock 2^63 - 1 in eight bytes', '0304' || :'IA' || '7fffffffffffffff' || '01');
SELECT n, what, length(decode(hex, 'hex')) AS bytes, pg_temp.copy_in(decode(hex, 'hex')) AS result
FROM good3 ORDER BY n;

-- Malformed version 3 fields: 22P03, and none gets in.
CREATE TEMP TABLE bad3 (n int, what text, hex text);
INSERT INTO bad3 VALUES
  (1, 'version byte alone', '03'),
  (2, 'layout bit 0x10', '0315' || :'IA' || '01' || '05'),
  (3, 'layout bit 0x80, no records', '0380'),
  (4, 'layout ff', '03ff'),
  (5, 'one byte of a record', '0305' || '00'),
  (6, 'a record short by one byte', '0305' || :'IA' || '01'),
  (7, 'a record and one byte', '0305' || :'IA' || '01' || '05' || '00'),
  (8, 'the bytes of layout 05 read as 06', '0306' || :'IA' || '01' || '05' || :'IB' || '02' || 'fe'),
  (9, 'ids descending', '0305' || :'IB' || '02' || 'fe' || :'IA' || '01' || '05'),
  (10, 'an id twice', '0305' || :'IA' || '01' || '05' || :'IA' || '02' || '05'),
  (11, 'clock 0, one byte', '0305' || :'IA' || '00' || '05'),
  (12, 'clock 0, four bytes', '0307' || :'IA' || '00000000' || '05'),
  (13, 'clock 0 in the second record', '0305' || :'IA' || '01' || '05' || :'IB' || '00' || 'fe'),
  (14, 'clock 2^63 in eight bytes: negative', '0304' || :'IA' || '8000000000000000' || '05'),
  (15, 'clock 2^64 - 1 in eight bytes: -1', '0304' || :'IA' || 'ffffffffffffffff' || '05');
SELECT n, what, length(decode(hex, 'hex')) AS bytes, pg_temp.copy_in(decode(hex, 'hex')) AS result
FROM bad3 ORDER BY n;
SELECT count(*) AS cases,
       count(*) FILTER (WHERE pg_temp.copy_in(decode(hex, 'hex')) LIKE '22P03: %') AS rejected_22p03
FROM bad3;
-- One in full, with message, DETAIL and CONTEXT.
SELECT pg_temp.write_file(pg_temp.pgcopy(ARRAY[decode('0315' || :'IA' || '0105', 'hex')]), :'casefile') AS stream_bytes;
COPY cb_in FROM :'casefile' (FORMAT binary);

RESET ALL;

-- A role without any privilege sets it for itself, and its send follows it.
CREATE ROLE regress_cb_plain;
SET ROLE regress_cb_plain;
SET counter_crdt.binary_format = 'compact';
SELECT get_byte(counter_crdt_send('{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:1:5}'::counter_crdt), 0) AS version_compact;
SET counter_crdt.binary_format = 'portable';
SELECT get_byte(counter_crdt_send('{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:1:5}'::counter_crdt), 0) AS version_portable;
RESET ROLE;
RESET ALL;
DROP ROLE regress_cb_plain;

DROP TABLE cb_src, cb_dst, cb_in;
