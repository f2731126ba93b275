--
-- The tables counter_crdt_health() checks as published (1.10): read from
-- the catalogs alone (pg_publication_tables opens every published table
-- since PostgreSQL 16, and so waits for, or with lock_timeout fails on, a
-- table someone's DDL holds), they must be the ones pg_publication_tables
-- lists: a table list, a partitioned table's leaves, or with
-- publish_via_partition_root the table itself, the tables of a schema, no
-- unlogged table.  truncate_published names each with its publications.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS counter_crdt;
DROP SCHEMA IF EXISTS pubt CASCADE;
DROP SCHEMA IF EXISTS pubt2 CASCADE;
RESET client_min_messages;
CREATE SCHEMA pubt;
CREATE SCHEMA pubt2;
CREATE TABLE pubt.a (k int PRIMARY KEY, c counter_crdt);
CREATE TABLE pubt.quiet (k int PRIMARY KEY, c counter_crdt);
CREATE TABLE pubt.p (k int PRIMARY KEY, c counter_crdt) PARTITION BY RANGE (k);
CREATE TABLE pubt.p1 PARTITION OF pubt.p FOR VALUES FROM (0) TO (10);
CREATE TABLE pubt.p2 PARTITION OF pubt.p FOR VALUES FROM (10) TO (20);
CREATE TABLE pubt.p3 PARTITION OF pubt.p FOR VALUES FROM (20) TO (30) PARTITION BY RANGE (k);
CREATE TABLE pubt.p3a PARTITION OF pubt.p3 FOR VALUES FROM (20) TO (25);
CREATE TABLE pubt2.b (k int PRIMARY KEY, c counter_crdt);
CREATE TABLE pubt2.q (k int PRIMARY KEY, c counter_crdt) PARTITION BY RANGE (k);
CREATE TABLE pubt2.q1 PARTITION OF pubt2.q FOR VALUES FROM (0) TO (10);
CREATE UNLOGGED TABLE pubt2.u (k int PRIMARY KEY, c counter_crdt);
CREATE TABLE pubt2.plain (k int PRIMARY KEY, v bigint);
SET client_min_messages = error;	-- wal_level may be replica here
CREATE PUBLICATION pubt_list FOR TABLE pubt.a, pubt.p;
CREATE PUBLICATION pubt_root FOR TABLE pubt.p3 WITH (publish_via_partition_root = true);
CREATE PUBLICATION pubt_schema FOR TABLES IN SCHEMA pubt2;
CREATE PUBLICATION pubt_quiet FOR TABLE pubt.quiet WITH (publish = 'insert, update, delete');
RESET client_min_messages;

-- What pg_publication_tables lists, with the publications that publish
-- TRUNCATE: the same as health's truncate_published rows, both ways.
CREATE TEMP VIEW listed AS
  SELECT format('%I.%I', pt.schemaname, pt.tablename)::regclass::text AS object,
         string_agg(DISTINCT p.pubname::text, ', ') FILTER (WHERE p.pubtruncate) AS pubs
    FROM pg_publication_tables pt JOIN pg_publication p USING (pubname)
   WHERE pt.schemaname IN ('pubt', 'pubt2') AND p.pubname LIKE 'pubt%'
   GROUP BY 1;
SELECT object, pubs FROM listed ORDER BY 1;
SELECT object, problem FROM counter_crdt_health()
 WHERE "check" = 'truncate_published' AND object LIKE 'pubt%' ORDER BY 1;
SELECT count(*) AS missing_from_health FROM listed l
 WHERE l.pubs IS NOT NULL AND l.object <> 'pubt2.plain' AND NOT EXISTS (
         SELECT FROM counter_crdt_health() h
          WHERE h."check" = 'truncate_published' AND h.object = l.object
            AND h.problem LIKE '% ' || l.pubs || ', which %');
SELECT count(*) AS not_listed FROM counter_crdt_health() h
 WHERE h.object LIKE 'pubt%' AND h."check" <> 'counters_in_nested_column'
   AND h.object NOT IN (SELECT object FROM listed);
-- every table pg_publication_tables lists is checked (the plain one has no counter)
SELECT l.object, count(h.object) > 0 AS checked FROM listed l
  LEFT JOIN counter_crdt_health() h ON h.object = l.object AND h."check" = 'merge_trigger_missing'
 GROUP BY 1 ORDER BY 1;

SET client_min_messages = warning;
DROP PUBLICATION pubt_list, pubt_root, pubt_schema, pubt_quiet;
DROP SCHEMA pubt CASCADE;
DROP SCHEMA pubt2 CASCADE;
RESET client_min_messages;
