--
-- The stored layouts.  Version 1 was written by 1.0 to 1.2; version 2 is
-- written since 1.3 and keeps the exact total in its first 12 bytes.  Values
-- of version 1 are read where they lie (pg_upgrade and ALTER EXTENSION
-- UPDATE rewrite nothing) and become version 2 when they next change.
--
-- To see and to make stored bytes, this test alone creates binary-coercible
-- casts between bytea and counter_crdt: a value cast to bytea shows the bytes
-- a table holds after PostgreSQL's length header, and bytes cast to
-- counter_crdt are stored as they are, the way 1.2 left them on disk.
-- Numbers in both layouts are in the machine's byte order: the literals below
-- are little-endian (x86-64, arm64).
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS counter_crdt;
RESET client_min_messages;
CREATE CAST (bytea AS counter_crdt) WITHOUT FUNCTION;
CREATE CAST (counter_crdt AS bytea) WITHOUT FUNCTION;

-- Version 2: version, flags, two zero bytes, the total; then the shards, 24
-- bytes each (id, clock uint32, value int32) when all of them fit ("narrow",
-- flag 4), else 32 bytes (id, clock int64, value int64).
SELECT v, c::bytea AS stored, octet_length(c::bytea) AS bytes, c::bigint AS value
  FROM (VALUES ('{}'), ('tombstone'),
               ('{00000000-0000-0000-0000-00000000000a:3:-30}'),
               ('{00000000-0000-0000-0000-00000000000a:4294967295:2147483647, 00000000-0000-0000-0000-00000000000b:1:-2147483648}'),
               ('{00000000-0000-0000-0000-00000000000a:4294967296:1}'),
               ('{00000000-0000-0000-0000-00000000000a:1:2147483648}'),
               ('{00000000-0000-0000-0000-00000000000a:1:-2147483649}')) AS t (v),
       LATERAL (SELECT v::counter_crdt AS c) s;

-- The narrow layout: 24 bytes per writer, 85 for three in a table (101 in
-- version 1).
CREATE TEMP TABLE three AS
  SELECT counter_crdt_increment(counter_crdt_increment(counter_crdt_increment(
           NULL, 1, '00000000-0000-0000-0000-00000000000a'), 2, '00000000-0000-0000-0000-00000000000b'),
           3, '00000000-0000-0000-0000-00000000000c') AS c;
SELECT pg_column_size(c) AS three_writers FROM three;

-- A total outside bigint is flagged (2), kept as 0, and reading it is an
-- error, as it always was; a merge that brings it back in range reads again.
SELECT c::bytea AS stored
  FROM (SELECT '{00000000-0000-0000-0000-00000000000a:1:9223372036854775807, 00000000-0000-0000-0000-00000000000b:1:1}'::counter_crdt AS c) s;
SELECT '{00000000-0000-0000-0000-00000000000a:1:9223372036854775807, 00000000-0000-0000-0000-00000000000b:1:1}'::counter_crdt::bigint;
SELECT counter_crdt_merge('{00000000-0000-0000-0000-00000000000a:1:9223372036854775807, 00000000-0000-0000-0000-00000000000b:1:1}',
                          '{00000000-0000-0000-0000-00000000000b:2:0}')::bigint AS back_in_range;
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
-- version 2; a merge or increment that changes nothing returns them as
-- they lie.
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

-- The kept total is read through TOAST: from a compressed value by
-- decompressing its first bytes, from an out-of-line one by fetching its
-- first chunk; values of version 1 there are read whole.  (These ids repeat
-- their zeros, so they compress; random ids would not.)
CREATE TABLE toasted (k int PRIMARY KEY, c counter_crdt);
ALTER TABLE toasted ALTER COLUMN c SET STORAGE EXTERNAL;
CREATE TABLE compressed (k int PRIMARY KEY, c counter_crdt);
ALTER TABLE compressed ALTER COLUMN c SET STORAGE EXTENDED;
-- pglz, as before 19, which compresses with lz4 by default
ALTER TABLE compressed ALTER COLUMN c SET COMPRESSION pglz;
CREATE TEMP VIEW many AS
  SELECT format('{%s}', string_agg(format('00000000-0000-0000-0000-%s:%s:%s', lpad(to_hex(i), 12, '0'), i, i * 10 - 7), ', ')) AS t,
         sum(i * 10 - 7) AS total,
         ('\x01000000'::bytea ||
          string_agg(decode(lpad(to_hex(i), 32, '0') || lpad(to_hex(i), 2, '0') || '00000000000000'
                            || lpad(to_hex((i * 10 - 7) % 256), 2, '0') || lpad(to_hex((i * 10 - 7) / 256), 2, '0')
                            || '000000000000', 'hex'), ''::bytea ORDER BY i)) AS v1
    FROM generate_series(1, 250) i;
INSERT INTO toasted SELECT 1, t::counter_crdt FROM many;
INSERT INTO toasted SELECT 2, v1::counter_crdt FROM many;
INSERT INTO toasted VALUES (3, 'tombstone');
INSERT INTO compressed SELECT 1, t::counter_crdt FROM many;
INSERT INTO compressed SELECT 2, (t || '')::counter_crdt + 5 FROM many;
SELECT 'toasted' AS tbl, k, c::bigint AS value, (SELECT total FROM many) AS expected,
       substr(c::bytea, 1, 1) AS layout, pg_column_compression(c) AS compression,
       pg_column_size(c) < 250 * 24 AS smaller_than_raw
  FROM toasted
UNION ALL
SELECT 'compressed', k, c::bigint, (SELECT total FROM many) + (k - 1) * 5,
       substr(c::bytea, 1, 1), pg_column_compression(c), pg_column_size(c) < 250 * 24
  FROM compressed
ORDER BY 1, 2;
SELECT count(*) AS out_of_line FROM pg_class r JOIN pg_class t ON t.oid = r.reltoastrelid
 WHERE r.relname = 'toasted' AND (SELECT count(*) FROM toasted) > 0
   AND pg_relation_size(t.oid) > 0;
SELECT (SELECT c FROM toasted WHERE k = 1) = (SELECT c FROM toasted WHERE k = 2) AS v1_equals_v2,
       (SELECT c FROM toasted WHERE k = 1) = (SELECT c FROM compressed WHERE k = 1) AS toasted_equals_compressed;

-- Bytes that are no value of either layout are reported as corruption.
SELECT '\x00000000'::bytea::counter_crdt::bigint;
SELECT '\x03000000'::bytea::counter_crdt::text;
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

-- New columns keep large values inline (STORAGE MAIN) since 1.3.
CREATE TABLE fresh (k int, c counter_crdt);
SELECT typstorage FROM pg_type WHERE oid = 'counter_crdt'::regtype;
SELECT attstorage FROM pg_attribute WHERE attrelid = 'fresh'::regclass AND attname = 'c';

DROP TABLE fresh, old_rows, toasted, compressed;
DROP CAST (bytea AS counter_crdt);
DROP CAST (counter_crdt AS bytea);
