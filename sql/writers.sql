--
-- writers: counter_crdt_writers(), the number of writers (shards) a counter
-- carries (1.3, issue 14).
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS counter_crdt;
RESET client_min_messages;

-- {} carries no writer, a tombstone keeps none, NULL is NULL (STRICT).
SELECT counter_crdt_writers('{}') AS empty,
       counter_crdt_writers('tombstone') AS tombstone,
       counter_crdt_writers(NULL) IS NULL AS null_is_null;

-- One writer per shard, whatever the clocks and values (a value of 0 or a
-- negative one is still a writer).
SELECT counter_crdt_writers('{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:3:42}') AS one,
       counter_crdt_writers('{0b6e7f3a-2d44-4c8e-9a51-3f0d2c7b1e90:3:0,
                              7f0cab51-fb72-3e98-bdb4-0404a982865d:1:-5}') AS two,
       counter_crdt_writers('{00000000-0000-0000-0000-000000000000:1:1,
                              80000000-0000-0000-0000-000000000000:2:-2,
                              ffffffff-ffff-ffff-ffff-ffffffffffff:9223372036854775807:9223372036854775807}') AS three;

-- An increment by a writer already there adds none; a new writer adds one.
SET counter_crdt.node_id = '00000000-0000-0000-0000-0000000000aa';
SELECT counter_crdt_writers(c) AS before,
       counter_crdt_writers(c + 5) AS own_increment,
       counter_crdt_writers(counter_crdt_increment(c, 1, '00000000-0000-0000-0000-0000000000bb')) AS new_writer,
       counter_crdt_writers(counter_crdt_increment(c, 1, '00000000-0000-0000-0000-0000000000aa', 10)) AS own_exactly_once
FROM (SELECT '{00000000-0000-0000-0000-0000000000aa:1:1, 00000000-0000-0000-0000-0000000000cc:4:2}'::counter_crdt AS c) s;
RESET counter_crdt.node_id;

-- A merge carries the union of the writers; a tombstone absorbs them all.
SELECT counter_crdt_writers(counter_crdt_merge(
         '{00000000-0000-0000-0000-000000000001:1:1, 00000000-0000-0000-0000-000000000002:1:1}',
         '{00000000-0000-0000-0000-000000000002:5:9, 00000000-0000-0000-0000-000000000003:1:1}')) AS union_of_three,
       counter_crdt_writers(counter_crdt_merge(
         '{00000000-0000-0000-0000-000000000001:1:1}', 'tombstone')) AS merged_tombstone;

-- Many writers, stored the three ways PostgreSQL keeps a large value: inline
-- (30 writers), compressed inline (k = 2: ids, clocks and values that pglz
-- compresses) and out of line, not compressed (random ids, clocks and values,
-- which pglz cannot shrink: k = 3 and 4).  The count is the shards' count.
CREATE TEMP TABLE w (k int PRIMARY KEY, c counter_crdt);
-- (the storage named, whatever the type's default)
ALTER TABLE w ALTER c SET STORAGE EXTENDED;
INSERT INTO w
SELECT k, (SELECT counter_crdt_merge_agg(x.c)
             FROM generate_series(1, n) i,
                  LATERAL (SELECT CASE WHEN k = 2
                                       THEN counter_crdt_increment(NULL, 1,
                                              format('00000000-0000-0000-0000-%s', lpad(to_hex(i), 12, '0'))::uuid, 7)
                                       ELSE counter_crdt_increment(NULL,
                                              ('x' || substr(md5(k || 'v' || i), 1, 8))::bit(32)::int,
                                              md5(k || ':' || i)::uuid,
                                              1 + ('x' || substr(md5(k || 'c' || i), 1, 8))::bit(32)::int::bigint + 2147483648)
                                  END AS c) x)
FROM (VALUES (1, 30), (2, 300), (3, 300), (4, 1000)) v(k, n);
SELECT k, counter_crdt_writers(c) AS writers,
       (SELECT count(*) FROM counter_crdt_shards(c)) AS shards,
       pg_column_compression(c) IS NOT NULL AS compressed
FROM w ORDER BY k;
-- Two of them (k = 3 and 4) out of line.
SELECT (xpath('/row/n/text()',
              query_to_xml(format('SELECT count(DISTINCT chunk_id) AS n FROM %s', reltoastrelid::regclass),
                           false, true, '')))[1]::text AS values_out_of_line
FROM pg_class WHERE oid = 'w'::regclass;

-- The markings.
SELECT provolatile, proisstrict, proparallel, prorettype::regtype
FROM pg_proc WHERE oid = 'counter_crdt_writers(counter_crdt)'::regprocedure;
