--
-- Metrics per table as its users name it (issue 40, release 1.9):
-- counter_crdt_stat_tables, counter_crdt_stat_shards and
-- counter_crdt_stat_subscriptions, exact figures on small known tables; a
-- partitioned table's partitions summed under it; who sees which rows
-- (src/operations/metrics.c, doc/metrics.md).
--
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS "Cc Tables" CASCADE;
DROP SCHEMA IF EXISTS cc_tables_evil CASCADE;
DROP ROLE IF EXISTS regress_cct_mon;
DROP ROLE IF EXISTS regress_cct_part;
DROP ROLE IF EXISTS regress_cct_root;
DROP ROLE IF EXISTS regress_cct_col;
CREATE EXTENSION IF NOT EXISTS counter_crdt;
RESET client_min_messages;
CREATE SCHEMA "Cc Tables";
\set a '00000000-0000-0000-0000-00000000000a'
\set b '00000000-0000-0000-0000-00000000000b'
\set c '00000000-0000-0000-0000-00000000000c'
\set d '00000000-0000-0000-0000-00000000000d'

-- A partitioned table, sub-partitioned, in a schema whose name needs
-- quotes.  Partition y1 holds writers a and b, y2m1 writers b and c (3
-- distinct, 4 if summed by partition); shards per counter over all five
-- counters 1, 1, 2, 3, 3: the median (rank ceil(0.5 * 5) = 3) is 2, the
-- 99th percentile and the most 3.  A tombstone in y2m2.  Partition y3 was
-- made apart, with a dropped column first, and attached: its counter
-- column has another number than the parent's.
CREATE TABLE "Cc Tables"."Hits" (y int, k int, c counter_crdt, PRIMARY KEY (y, k)) PARTITION BY RANGE (y);
CREATE TABLE "Cc Tables".y1 PARTITION OF "Cc Tables"."Hits" FOR VALUES FROM (1) TO (2);
CREATE TABLE "Cc Tables".y2 PARTITION OF "Cc Tables"."Hits" FOR VALUES FROM (2) TO (3) PARTITION BY RANGE (k);
CREATE TABLE "Cc Tables".y2m1 PARTITION OF "Cc Tables".y2 FOR VALUES FROM (0) TO (10);
CREATE TABLE "Cc Tables".y2m2 PARTITION OF "Cc Tables".y2 FOR VALUES FROM (10) TO (20);
CREATE TABLE "Cc Tables".y3 (gone int, y int NOT NULL, k int NOT NULL, c counter_crdt);
ALTER TABLE "Cc Tables".y3 DROP COLUMN gone;
ALTER TABLE "Cc Tables"."Hits" ATTACH PARTITION "Cc Tables".y3 FOR VALUES FROM (3) TO (4);
SELECT attrelid::regclass, attnum FROM pg_attribute
 WHERE attname = 'c' AND attrelid IN ('"Cc Tables"."Hits"'::regclass, '"Cc Tables".y3'::regclass) ORDER BY 1;
INSERT INTO "Cc Tables"."Hits" VALUES
  (1, 1, format('{%s:1:1}', :'a')::counter_crdt),
  (1, 2, format('{%s:1:1}', :'b')::counter_crdt),
  (2, 1, format('{%s:1:1, %s:1:1}', :'b', :'c')::counter_crdt),
  (2, 2, format('{%s:1:1, %s:2:2, %s:1:1}', :'b', :'c', :'a')::counter_crdt),
  (2, 11, 'tombstone'),
  (3, 1, format('{%s:1:1, %s:1:1, %s:1:1}', :'a', :'b', :'c')::counter_crdt);

-- A plain table, an empty one, a partitioned table without partitions,
-- and a parent with an inheritance child (each a table of its own).
CREATE TABLE "Cc Tables".plain (k int PRIMARY KEY, c counter_crdt, d counter_crdt);
INSERT INTO "Cc Tables".plain VALUES (1, format('{%s:1:5}', :'d')::counter_crdt, NULL), (2, NULL, 'tombstone');
CREATE TABLE "Cc Tables".empty (k int, c counter_crdt);
CREATE TABLE "Cc Tables".bare (k int, c counter_crdt) PARTITION BY RANGE (k);
CREATE TABLE "Cc Tables".parent (k int, c counter_crdt);
CREATE TABLE "Cc Tables".child () INHERITS ("Cc Tables".parent);
INSERT INTO "Cc Tables".child VALUES (1, format('{%s:1:1}', :'a')::counter_crdt);

SELECT * FROM counter_crdt_stat_tables WHERE schemaname = 'Cc Tables';
SELECT * FROM counter_crdt_stat_shards WHERE schemaname = 'Cc Tables';

-- A plain table's figures are counter_crdt_stat's.
SELECT count(*) AS tables_compared,
       count(*) FILTER (WHERE (s.counters, s.tombstones, s.writers, s.shards, s.shards_max, s.shards_p99,
                               s.values_with_folds, s.pending_folds, s.own_id_conflicts, s.clocks_near_limit)
                              IS DISTINCT FROM
                              (t.counters, t.tombstones, t.writers, t.shards, t.shards_max, t.shards_p99,
                               t.values_with_folds, t.pending_folds, t.own_id_conflicts, t.clocks_near_limit)) AS differing
  FROM counter_crdt_stat s
  JOIN pg_class r ON r.oid = s.table_name
  JOIN pg_namespace n ON n.oid = r.relnamespace
  JOIN counter_crdt_stat_tables t
    ON t.schemaname = n.nspname AND t.relname = r.relname AND t.column_name = s.column_name
 WHERE NOT r.relispartition AND n.nspname = 'Cc Tables';

-- Recorded conflicts of two partitions, summed under the partitioned
-- table; a partition made by hand later lacks the truncate guard.
CREATE TABLE "Cc Tables".r (y int, k int, c counter_crdt, PRIMARY KEY (y, k)) PARTITION BY RANGE (y);
CREATE TABLE "Cc Tables".r1 PARTITION OF "Cc Tables".r FOR VALUES FROM (1) TO (2);
CREATE TABLE "Cc Tables".r2 PARTITION OF "Cc Tables".r FOR VALUES FROM (2) TO (3);
SELECT counter_crdt_enable_replica_merge('"Cc Tables".r');
SET counter_crdt.node_id = '00000000-0000-0000-0000-0000000000aa';
INSERT INTO "Cc Tables".r VALUES (1, 1, '{}'::counter_crdt + 5), (2, 1, '{}'::counter_crdt + 5);
SET client_min_messages = error;
SET session_replication_role = replica;
UPDATE "Cc Tables".r SET c = '{00000000-0000-0000-0000-0000000000aa:2:6}' WHERE y = 1;
UPDATE "Cc Tables".r SET c = '{00000000-0000-0000-0000-0000000000aa:3:7}' WHERE y = 2;
UPDATE "Cc Tables".r SET c = '{00000000-0000-0000-0000-0000000000bb:4611686018427387904:1}' WHERE y = 2;
RESET session_replication_role;
RESET client_min_messages;
RESET counter_crdt.node_id;
SELECT relname, partitions, counters, writers, own_id_conflicts, clocks_near_limit
  FROM counter_crdt_stat_tables WHERE schemaname = 'Cc Tables' AND relname = 'r';

-- Who sees which rows.  A role that may SELECT one partition only: not
-- the partitioned table.  A role that may SELECT the partitioned table:
-- all of it, but nothing once row security applies to it there.  A role
-- granted one column of it: that column.  pg_monitor: everything.  The
-- labels do not depend on the search_path, and no operator on it runs.
CREATE ROLE regress_cct_mon IN ROLE pg_monitor;
CREATE ROLE regress_cct_part;
CREATE ROLE regress_cct_root;
CREATE ROLE regress_cct_col;
GRANT USAGE ON SCHEMA "Cc Tables" TO regress_cct_part, regress_cct_root, regress_cct_col;
GRANT SELECT ON "Cc Tables".y1 TO regress_cct_part;
GRANT SELECT ON "Cc Tables"."Hits" TO regress_cct_root;
GRANT SELECT (k) ON "Cc Tables".plain TO regress_cct_col;
GRANT SELECT (d) ON "Cc Tables".plain TO regress_cct_col;
CREATE SCHEMA cc_tables_evil;
GRANT USAGE ON SCHEMA cc_tables_evil TO PUBLIC;
CREATE FUNCTION cc_tables_evil.name_eq(name, name) RETURNS boolean LANGUAGE plpgsql AS
$$BEGIN RAISE EXCEPTION 'an operator on the search_path ran'; END$$;
CREATE OPERATOR cc_tables_evil.= (LEFTARG = name, RIGHTARG = name, FUNCTION = cc_tables_evil.name_eq);
SET search_path = cc_tables_evil, pg_catalog;
SET ROLE regress_cct_part;
SELECT count(*) AS rows_seen FROM public.counter_crdt_stat_tables WHERE schemaname::text = 'Cc Tables';
SET ROLE regress_cct_root;
SELECT schemaname, relname, column_name, partitions, counters, writers
  FROM public.counter_crdt_stat_tables WHERE schemaname::text = 'Cc Tables';
SET ROLE regress_cct_col;
SELECT relname, column_name, counters FROM public.counter_crdt_stat_tables WHERE schemaname::text = 'Cc Tables';
SET ROLE regress_cct_mon;
SELECT relname, column_name, partitions FROM public.counter_crdt_stat_tables WHERE schemaname::text = 'Cc Tables';
SELECT count(*) AS shard_rows FROM public.counter_crdt_stat_shards WHERE schemaname::text = 'Cc Tables';
RESET ROLE;
RESET search_path;
ALTER TABLE "Cc Tables"."Hits" ENABLE ROW LEVEL SECURITY;
SET ROLE regress_cct_root;
SELECT count(*) AS rows_seen FROM counter_crdt_stat_tables WHERE schemaname = 'Cc Tables';
RESET ROLE;
ALTER TABLE "Cc Tables"."Hits" DISABLE ROW LEVEL SECURITY;

-- Partitions made and dropped: the partitioned table's row stays, with
-- the figures of the partitions it has now.
DROP TABLE "Cc Tables".y1;
ALTER TABLE "Cc Tables"."Hits" DETACH PARTITION "Cc Tables".y3;
SELECT relname, partitions, counters, tombstones, writers, shards
  FROM counter_crdt_stat_tables WHERE schemaname = 'Cc Tables' AND relname IN ('Hits', 'y3') ORDER BY 1;

-- Subscriptions: a disabled one, never connected; every role reads the
-- view, which shows no connection string.
SET client_min_messages = error;
CREATE SUBSCRIPTION regress_cct_sub CONNECTION 'host=/nonexistent dbname=none' PUBLICATION none
  WITH (connect = false);
RESET client_min_messages;
SELECT * FROM counter_crdt_stat_subscriptions WHERE subname = 'regress_cct_sub';
SET ROLE regress_cct_part;
SELECT subname, enabled, workers FROM counter_crdt_stat_subscriptions WHERE subname = 'regress_cct_sub';
RESET ROLE;
SELECT attname FROM pg_attribute WHERE attrelid = 'counter_crdt_stat_subscriptions'::regclass AND attnum > 0 ORDER BY attnum;
ALTER SUBSCRIPTION regress_cct_sub SET (slot_name = NONE);
DROP SUBSCRIPTION regress_cct_sub;

SET client_min_messages = warning;
DROP SCHEMA "Cc Tables" CASCADE;
DROP SCHEMA cc_tables_evil CASCADE;
RESET client_min_messages;
DROP ROLE regress_cct_mon;
DROP ROLE regress_cct_part;
DROP ROLE regress_cct_root;
DROP ROLE regress_cct_col;
