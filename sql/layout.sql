--
-- The stored layouts.  Version 1 was written by 1.0 to 1.2: a 4-byte header
-- and 32-byte shards.  Version 2 was written by 1.3 to 1.11: a 12-byte header
-- that keeps the exact total, then 24-byte shards when every clock fits
-- uint32 and every value int32 ("narrow"), else 32-byte ones, and fold
-- records since 1.5.  Version 3 is written since 1.12 for every live value
-- without fold records whose total fits bigint: a 2-byte header, the total
-- only past 16 shards, and shards whose clocks and values take the fewest
-- bytes that hold them all; tombstones, totals outside bigint and values
-- with fold records are still written as version 2.  Values of versions 1
-- and 2 are read where they lie (pg_upgrade and ALTER EXTENSION UPDATE
-- rewrite nothing), forever, and are written again in today's layout when
-- they next change.
--
-- To see and to make stored bytes, this test alone creates binary-coercible
-- casts between bytea and counter_crdt: a value cast to bytea shows the bytes
-- a table holds after PostgreSQL's length header, and bytes cast to
-- counter_crdt are stored as they are, the way 1.2 or 1.11 left them on
-- disk.  Numbers in every layout are in the machine's byte order: the
-- literals below are little-endian (x86-64, arm64).
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS counter_crdt;
RESET client_min_messages;
CREATE CAST (bytea AS counter_crdt) WITHOUT FUNCTION;
CREATE CAST (counter_crdt AS bytea) WITHOUT FUNCTION;
-- n as 8 little-endian bytes
CREATE FUNCTION pg_temp.le8(n bigint) RETURNS bytea LANGUAGE sql IMMUTABLE AS
$$ SELECT string_agg(set_byte('\x00'::bytea, 0, ((n >> (8 * i)) & 255)::int), ''::bytea ORDER BY i)
     FROM generate_series(0, 7) i $$;

-- Version 3: version 3, the layout byte, then the shards: id (16 bytes),
-- clock, value, no padding.  The layout's bits 0-1 give the clock's width,
-- bits 2-3 the value's: code 1 is 1 byte, 2 is 2, 3 is 4, 0 is 8; clocks are
-- unsigned, values signed, and each takes the narrowest width that holds
-- every shard's.  A tombstone is still version 2.
SELECT v, get_byte(c::bytea, 1) AS layout, c::bytea AS stored, octet_length(c::bytea) AS bytes, c::bigint AS value
  FROM (VALUES ('{}'), ('tombstone'),
               ('{00000000-0000-0000-0000-00000000000a:3:-30}'),
               ('{00000000-0000-0000-0000-00000000000a:4294967295:2147483647, 00000000-0000-0000-0000-00000000000b:1:-2147483648}'),
               ('{00000000-0000-0000-0000-00000000000a:4294967296:1}'),
               ('{00000000-0000-0000-0000-00000000000a:1:2147483648}'),
               ('{00000000-0000-0000-0000-00000000000a:1:-2147483649}')) AS t (v),
       LATERAL (SELECT v::counter_crdt AS c) s;

-- Every edge of the widths, clocks (value 1) and values (clock 1): the
-- layout byte changes on the second of each pair.
SELECT w, n, to_hex(get_byte(c::bytea, 1)) AS layout, c::bytea AS stored, octet_length(c::bytea) AS bytes,
       c::bigint AS value
  FROM (VALUES (1, 'clock', 255), (2, 'clock', 256), (3, 'clock', 65535), (4, 'clock', 65536),
               (5, 'clock', 4294967295), (6, 'clock', 4294967296),
               (7, 'value', 127), (8, 'value', 128), (9, 'value', -128), (10, 'value', -129),
               (11, 'value', 32767), (12, 'value', 32768), (13, 'value', -32768), (14, 'value', -32769),
               (15, 'value', 2147483647), (16, 'value', 2147483648),
               (17, 'value', -2147483648), (18, 'value', -2147483649)) AS t (o, w, n),
       LATERAL (SELECT format('{00000000-0000-0000-0000-00000000000a:%s:%s}',
                              CASE w WHEN 'clock' THEN n ELSE 1 END,
                              CASE w WHEN 'value' THEN n ELSE 1 END)::counter_crdt AS c) s
 ORDER BY o;
-- The widest shard sets each field's width, clocks and values apart.
SELECT v, to_hex(get_byte(c::bytea, 1)) AS layout, octet_length(c::bytea) AS bytes, c::bigint AS value
  FROM (VALUES ('{00000000-0000-0000-0000-00000000000a:300:1, 00000000-0000-0000-0000-00000000000b:1:100000}'),
               ('{00000000-0000-0000-0000-00000000000a:70000:-1, 00000000-0000-0000-0000-00000000000b:2:-40000}'),
               ('{00000000-0000-0000-0000-00000000000a:4294967296:-1, 00000000-0000-0000-0000-00000000000b:2:200}')) AS t (v),
       LATERAL (SELECT v::counter_crdt AS c) s;

-- 18 bytes per writer of small numbers: 57 for three in a table (85 in
-- version 2, 101 in version 1).
CREATE TEMP TABLE three AS
  SELECT counter_crdt_increment(counter_crdt_increment(counter_crdt_increment(
           NULL, 1, '00000000-0000-0000-0000-00000000000a'), 2, '00000000-0000-0000-0000-00000000000b'),
           3, '00000000-0000-0000-0000-00000000000c') AS c;
SELECT pg_column_size(c) AS three_writers, c::bytea AS stored FROM three;

-- Up to 16 shards the value is their sum, read by adding them; from 17 on
-- the total is kept after the layout byte (flag 0x10), so that reading a
-- compressed or out-of-line value needs a slice of its first bytes only.
SELECT n, to_hex(get_byte(c::bytea, 1)) AS layout, octet_length(c::bytea) AS bytes,
       CASE WHEN get_byte(c::bytea, 1) & 16 <> 0 THEN substr(c::bytea, 3, 8) END AS kept_total,
       c::bigint AS value
  FROM generate_series(15, 18) n,
       LATERAL (SELECT format('{%s}', string_agg(format('00000000-0000-0000-0000-%s:1:%s', lpad(to_hex(i), 12, '0'), i * 100), ', '))::counter_crdt AS c
                  FROM generate_series(1, n) i) s
 ORDER BY n;

-- A total outside bigint is flagged (2) in a version 2 value, kept as 0,
-- and reading it is an error, as it always was; a merge that brings it back
-- in range reads again, and is written as version 3.
SELECT c::bytea AS stored
  FROM (SELECT '{00000000-0000-0000-0000-00000000000a:1:9223372036854775807, 00000000-0000-0000-0000-00000000000b:1:1}'::counter_crdt AS c) s;
SELECT '{00000000-0000-0000-0000-00000000000a:1:9223372036854775807, 00000000-0000-0000-0000-00000000000b:1:1}'::counter_crdt::bigint;
SELECT c::bigint AS back_in_range, substr(c::bytea, 1, 2) AS header
  FROM (SELECT counter_crdt_merge('{00000000-0000-0000-0000-00000000000a:1:9223372036854775807, 00000000-0000-0000-0000-00000000000b:1:1}',
                                  '{00000000-0000-0000-0000-00000000000b:2:0}') AS c) s;
SET counter_crdt.node_id = '00000000-0000-0000-0000-00000000000c';
SELECT c, substr(c::bytea, 1, 2) AS header
  FROM (SELECT '{00000000-0000-0000-0000-00000000000a:1:-9223372036854775808, 00000000-0000-0000-0000-00000000000b:1:-1}'::counter_crdt + 0 AS c) s;
RESET counter_crdt.node_id;

-- Values as 1.2 stored them (version 1: a 4-byte header, then 32-byte
-- shards of id, clock int64, value int64).
CREATE TABLE old_rows (k int PRIMARY KEY, c counter_crdt);
INSERT INTO old_rows VALUES
  (1, ('\x01000000'
       '0000000000000000000000000000000a03000000000000001e00000000000000'
       'ffffffffffffffffffffffffffffffff0100000000000000fcffffffffffffff')::bytea::counter_crdt),
  (2, '\x01010000'::bytea::counter_crdt),
  (3, '\x01000000'::bytea::counter_crdt),
  (4, ('\x01000000'
       '0000000000000000000000000000000a0100000000000000ffffffffffffff7f'
       '0000000000000000000000000000000b01000000000000000100000000000000')::bytea::counter_crdt),
  (5, NULL);
SELECT k, c, substr(c::bytea, 1, 1) AS layout FROM old_rows ORDER BY k;

-- They read as the same states written today: value, shards, digest, =, the
-- hash and btree classes (a hashed GROUP BY puts both layouts of a state in
-- one group), the binary form.
SELECT k, c::bigint AS value FROM old_rows WHERE k <> 4 ORDER BY k;
SELECT c::bigint FROM old_rows WHERE k = 4;
SELECT k, (SELECT array_agg(s) FROM counter_crdt_shards(c) s) AS shards FROM old_rows WHERE k = 1;
SELECT k,
       c = c::text::counter_crdt AS equal,
       counter_crdt_cmp(c, c::text::counter_crdt) AS cmp,
       counter_crdt_digest(c) = counter_crdt_digest(c::text::counter_crdt) AS same_digest,
       counter_crdt_hash(c) = counter_crdt_hash(c::text::counter_crdt) AS same_hash,
       counter_crdt_send(c) = counter_crdt_send(c::text::counter_crdt) AS same_binary,
       substr((c::text::counter_crdt)::bytea, 1, 1) AS layout_today
  FROM old_rows WHERE c IS NOT NULL ORDER BY k;
SET enable_sort = off;
SELECT count(*) AS groups, sum(n) AS rows
  FROM (SELECT c, count(*) AS n
          FROM (SELECT c FROM old_rows UNION ALL SELECT c::text::counter_crdt FROM old_rows) u
         GROUP BY c) g;
RESET enable_sort;

-- They merge with values written today, and what changes is written in
-- version 3 (version 2 for a tombstone or a total outside bigint); a merge
-- or increment that changes nothing returns them as they lie.
SELECT counter_crdt_merge(c, '{00000000-0000-0000-0000-00000000000a:4:40, 00000000-0000-0000-0000-00000000000c:1:5}') AS merged,
       substr(counter_crdt_merge(c, '{00000000-0000-0000-0000-00000000000c:1:5}')::bytea, 1, 1) AS merged_layout,
       counter_crdt_merge(c, '{00000000-0000-0000-0000-00000000000a:1:1}')::bytea = c::bytea AS unchanged_as_it_lies
  FROM old_rows WHERE k = 1;
SELECT counter_crdt_merge_agg(c) AS merged,
       counter_crdt_merge_agg(c)::bigint AS value
  FROM (SELECT c FROM old_rows WHERE k = 1
        UNION ALL SELECT '{00000000-0000-0000-0000-00000000000a:5:50}'
        UNION ALL SELECT '{00000000-0000-0000-0000-00000000000d:2:7}') s;
SELECT counter_crdt_merge(c, 'tombstone') AS with_tombstone FROM old_rows WHERE k = 1;
SELECT counter_crdt_merge(c, '{00000000-0000-0000-0000-00000000000a:9:9}') AS tombstone_wins,
       substr(counter_crdt_merge(c, '{00000000-0000-0000-0000-00000000000a:9:9}')::bytea, 1, 1) AS layout
  FROM old_rows WHERE k = 2;
SELECT counter_crdt_increment(c, 1, '00000000-0000-0000-0000-00000000000a', 3)::bytea = c::bytea AS replay_as_it_lies
  FROM old_rows WHERE k = 1;
SELECT counter_crdt_difference(c, '{00000000-0000-0000-0000-00000000000a:3:30}') AS difference FROM old_rows WHERE k = 1;

SET counter_crdt.node_id = '00000000-0000-0000-0000-00000000000a';
UPDATE old_rows SET c = c + 1 WHERE k IN (1, 3);
RESET counter_crdt.node_id;
SELECT k, c, CASE WHEN k <> 4 THEN c::bigint END AS value, substr(c::bytea, 1, 1) AS layout,
       pg_column_size(c) AS bytes
  FROM old_rows ORDER BY k;

-- Values as 1.3 to 1.11 stored them (version 2: version 2, flags, two zero
-- bytes, the total int64; then shards of 24 bytes, id, clock uint32, value
-- int32, with flag 4 "narrow", else of 32 bytes, id, clock int64, value
-- int64).  Flag 1 is a tombstone (no shards, total 0), flag 2 a total
-- outside bigint (kept as 0), flag 8 fold records: their count uint32, 4
-- zero bytes, then records of 64 bytes, retired id, target id, tclock,
-- aclock, avalue, absorbed (int64 each), before the shards.  Beside each,
-- the same state written today from its text.
CREATE TABLE v2_rows (k int PRIMARY KEY, what text, t text, c counter_crdt, today counter_crdt);
INSERT INTO v2_rows (k, what, t, c) VALUES
  (1, 'narrow', '{00000000-0000-0000-0000-00000000000a:3:30, 00000000-0000-0000-0000-00000000000b:1:-4}',
   ('\x020400001a00000000000000'
    '0000000000000000000000000000000a030000001e000000'
    '0000000000000000000000000000000b01000000fcffffff')::bytea::counter_crdt),
  (2, 'wide clock', '{00000000-0000-0000-0000-00000000000a:4294967296:7}',
   ('\x020000000700000000000000'
    '0000000000000000000000000000000a00000000010000000700000000000000')::bytea::counter_crdt),
  (3, 'wide value', '{00000000-0000-0000-0000-00000000000c:2:-3000000000, 00000000-0000-0000-0000-00000000000d:1:1}',
   ('\x0200000001a22f4dffffffff'
    '0000000000000000000000000000000c020000000000000000a22f4dffffffff'
    '0000000000000000000000000000000d01000000000000000100000000000000')::bytea::counter_crdt),
  (4, 'out of range', '{00000000-0000-0000-0000-00000000000e:1:9223372036854775807, 00000000-0000-0000-0000-00000000000f:1:1}',
   ('\x020200000000000000000000'
    '0000000000000000000000000000000e0100000000000000ffffffffffffff7f'
    '0000000000000000000000000000000f01000000000000000100000000000000')::bytea::counter_crdt),
  (5, 'tombstone', 'tombstone', '\x020100000000000000000000'::bytea::counter_crdt),
  (6, 'folded', '{7fffffff-ffff-ffff-ffff-ffffffffffff:4:110} folded {80000000-0000-0000-0000-000000000000>7fffffff-ffff-ffff-ffff-ffffffffffff:4:5:100:100}',
   ('\x020800006e000000000000000100000000000000'
    '800000000000000000000000000000007fffffffffffffffffffffffffffffff'
    '0400000000000000050000000000000064000000000000006400000000000000'
    '7fffffffffffffffffffffffffffffff04000000000000006e00000000000000')::bytea::counter_crdt),
  (7, 'empty', '{}', '\x020000000000000000000000'::bytea::counter_crdt);
UPDATE v2_rows SET today = t::counter_crdt;
-- Their headers and sizes, and today's: a tombstone, a total outside bigint
-- and fold records are written as version 2 still.
SELECT k, what, substr(c::bytea, 1, 2) AS header, pg_column_size(c) AS bytes,
       substr(today::bytea, 1, 2) AS header_today, pg_column_size(today) AS bytes_today
  FROM v2_rows ORDER BY k;
SELECT k, c AS text, CASE WHEN k <> 4 THEN c::bigint END AS value FROM v2_rows ORDER BY k;
SELECT c::bigint FROM v2_rows WHERE k = 4;

-- They are the same states as today's: text, value, =, order, digest, the
-- hashes, the binary form; a hashed GROUP BY puts both layouts of a state in
-- one group.
SELECT k,
       c::text = t AS same_text,
       CASE WHEN k <> 4 THEN c::bigint = today::bigint END AS same_value,
       c = today AS equal, c <> today AS unequal,
       counter_crdt_cmp(c, today) AS cmp,
       c <= today AND c >= today AND NOT c < today AND NOT c > today AS ordered_alike,
       counter_crdt_cmp(c, '{00000000-0000-0000-0000-00000000000a:3:31}') =
         counter_crdt_cmp(today, '{00000000-0000-0000-0000-00000000000a:3:31}') AS same_place,
       counter_crdt_digest(c) = counter_crdt_digest(today) AS same_digest,
       counter_crdt_hash(c) = counter_crdt_hash(today) AS same_hash,
       counter_crdt_hash_extended(c, 7) = counter_crdt_hash_extended(today, 7) AS same_hash_extended,
       counter_crdt_send(c) = counter_crdt_send(today) AS same_binary
  FROM v2_rows ORDER BY k;
SELECT counter_crdt_digest_agg(k::text, c) = counter_crdt_digest_agg(k::text, today) AS same_table_digest,
       array_agg(k ORDER BY c, k) = array_agg(k ORDER BY today, k) AS same_sort
  FROM v2_rows;
SET enable_sort = off;
SELECT count(*) AS groups, sum(n) AS rows
  FROM (SELECT c, count(*) AS n
          FROM (SELECT c FROM v2_rows UNION ALL SELECT today FROM v2_rows) u
         GROUP BY c) g;
RESET enable_sort;

-- The merge aggregate over version 1, 2 and 3 values at once.
SELECT counter_crdt_merge_agg(c) AS merged, counter_crdt_merge_agg(c)::bigint AS value,
       substr(counter_crdt_merge_agg(c)::bytea, 1, 2) AS header
  FROM (SELECT c FROM v2_rows WHERE k IN (1, 2, 3)
        UNION ALL SELECT c FROM old_rows WHERE k = 1
        UNION ALL SELECT '{00000000-0000-0000-0000-00000000000a:5:50, 00000000-0000-0000-0000-000000000010:1:1}') s;
SELECT counter_crdt_merge_agg(CASE WHEN k % 2 = 0 THEN c ELSE today END) = counter_crdt_merge_agg(today) AS mixed_same,
       counter_crdt_merge_agg(c) = counter_crdt_merge_agg(today) AS old_same,
       counter_crdt_merge_agg(c ORDER BY k DESC) = counter_crdt_merge_agg(today) AS other_order_same
  FROM v2_rows WHERE k <> 5;

-- A merge that adds a writer, or an increment, writes what today's value
-- would become, byte for byte: version 3, but for a tombstone (which
-- stays), fold records, and a total still outside bigint (the merge of k 4;
-- its increment of -1 brings it back in range).
SELECT k, substr(m::bytea, 1, 2) AS merged_header, m::bytea = counter_crdt_merge(today, x)::bytea AS merged_same_bytes,
       counter_crdt_merge(c, x) = counter_crdt_merge(today, x) AS merged_equal
  FROM v2_rows, LATERAL (SELECT '{00000000-0000-0000-0000-000000000011:1:5}'::counter_crdt AS x) a,
       LATERAL (SELECT counter_crdt_merge(c, x) AS m) b
 ORDER BY k;
SET counter_crdt.node_id = '00000000-0000-0000-0000-000000000012';
UPDATE v2_rows SET c = c - 1, today = today - 1;
RESET counter_crdt.node_id;
SELECT k, c, CASE WHEN k <> 5 THEN c::bigint END AS value, substr(c::bytea, 1, 2) AS header,
       pg_column_size(c) AS bytes, c::bytea = today::bytea AS same_bytes
  FROM v2_rows ORDER BY k;

-- The kept total is read through TOAST: from a compressed value by
-- decompressing its first bytes, from an out-of-line one by fetching its
-- first chunk (a slice); values of version 1, and version 3 values of 16
-- shards or fewer, there are read whole.  (These ids repeat their zeros, so
-- they compress; random ids would not.)  300 shards of clocks and values of
-- 2 bytes: 20 bytes each in version 3, 6010 bytes in all.
CREATE TABLE toasted (k int PRIMARY KEY, c counter_crdt);
ALTER TABLE toasted ALTER COLUMN c SET STORAGE EXTERNAL;
CREATE TABLE compressed (k int PRIMARY KEY, c counter_crdt);
ALTER TABLE compressed ALTER COLUMN c SET STORAGE EXTENDED;
-- pglz, as before 19, which compresses with lz4 by default
ALTER TABLE compressed ALTER COLUMN c SET COMPRESSION pglz;
CREATE TEMP VIEW many AS
  SELECT format('{%s}', string_agg(format('00000000-0000-0000-0000-%s:%s:%s', lpad(to_hex(i), 12, '0'), i, i * 10 - 7), ', ')) AS t,
         sum(i * 10 - 7) AS total,
         string_agg(decode(lpad(to_hex(i), 32, '0'), 'hex') || pg_temp.le8(i) || pg_temp.le8(i * 10 - 7),
                    ''::bytea ORDER BY i) AS records
    FROM generate_series(1, 300) i;
INSERT INTO toasted SELECT 1, t::counter_crdt FROM many;
INSERT INTO toasted SELECT 2, ('\x01000000'::bytea || records)::counter_crdt FROM many;
INSERT INTO toasted VALUES (3, 'tombstone');
INSERT INTO toasted SELECT 4, ('\x02000000'::bytea || pg_temp.le8(total::bigint) || records)::counter_crdt FROM many;
INSERT INTO compressed SELECT 1, t::counter_crdt FROM many;
INSERT INTO compressed SELECT 2, (t || '')::counter_crdt + 5 FROM many;
INSERT INTO compressed SELECT 3, ('\x02000000'::bytea || pg_temp.le8(total::bigint) || records)::counter_crdt FROM many;
SELECT 'toasted' AS tbl, k, c::bigint AS value, (SELECT total FROM many) AS expected,
       substr(c::bytea, 1, 2) AS header, octet_length(c::bytea) AS bytes, pg_column_compression(c) AS compression,
       pg_column_size(c) < octet_length(c::bytea) AS stored_smaller
  FROM toasted
UNION ALL
SELECT 'compressed', k, c::bigint, (SELECT total FROM many) + (k = 2)::int * 5,
       substr(c::bytea, 1, 2), octet_length(c::bytea), pg_column_compression(c), pg_column_size(c) < octet_length(c::bytea)
  FROM compressed
ORDER BY 1, 2;
SELECT substr(c::bytea, 3, 8) = pg_temp.le8((SELECT total FROM many)::bigint) AS total_kept
  FROM toasted WHERE k = 1;
SELECT count(*) AS out_of_line FROM pg_class r JOIN pg_class t ON t.oid = r.reltoastrelid
 WHERE r.relname = 'toasted' AND (SELECT count(*) FROM toasted) > 0
   AND pg_relation_size(t.oid) > 0;
SELECT (SELECT c FROM toasted WHERE k = 1) = (SELECT c FROM toasted WHERE k = 2) AS v3_equals_v1,
       (SELECT c FROM toasted WHERE k = 1) = (SELECT c FROM toasted WHERE k = 4) AS v3_equals_v2,
       (SELECT c FROM toasted WHERE k = 1) = (SELECT c FROM compressed WHERE k = 1) AS toasted_equals_compressed;

-- Bytes that are no value of any layout are reported as corruption.
SELECT '\x00000000'::bytea::counter_crdt::bigint;
SELECT '\x04000000'::bytea::counter_crdt::text;
SELECT '\x01000100'::bytea::counter_crdt::text;
SELECT '\x01020000'::bytea::counter_crdt::text;
SELECT '\x010000000000'::bytea::counter_crdt::text;
SELECT '\x0200000000000000000000'::bytea::counter_crdt::bigint;
SELECT '\x020800000000000000000000'::bytea::counter_crdt::bigint;
SELECT '\x021000000000000000000000'::bytea::counter_crdt::bigint;
SELECT '\x020100000100000000000000'::bytea::counter_crdt::bigint;
SELECT '\x020200000100000000000000'::bytea::counter_crdt::bigint;
SELECT '\x02040000000000000000000000'::bytea::counter_crdt::text;
SELECT '\x020400000000000000000000'::bytea::counter_crdt::text;
-- version 3: a short header, unknown layout bits, the total flag with a
-- short total, shards that do not fill the value
SELECT '\x03'::bytea::counter_crdt::text;
SELECT '\x0320'::bytea::counter_crdt::text;
SELECT '\x0340'::bytea::counter_crdt::bigint;
SELECT '\x0315000000'::bytea::counter_crdt::text;
SELECT '\x0315000000'::bytea::counter_crdt::bigint;
SELECT '\x030500'::bytea::counter_crdt::text;
SELECT '\x03000000'::bytea::counter_crdt::text;

-- New columns keep large values inline (STORAGE MAIN) since 1.3.
CREATE TABLE fresh (k int, c counter_crdt);
SELECT typstorage FROM pg_type WHERE oid = 'counter_crdt'::regtype;
SELECT attstorage FROM pg_attribute WHERE attrelid = 'fresh'::regclass AND attname = 'c';

DROP TABLE fresh, old_rows, v2_rows, toasted, compressed;
DROP CAST (bytea AS counter_crdt);
DROP CAST (counter_crdt AS bytea);
