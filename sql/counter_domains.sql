--
-- Counters of a domain, and counters nested in other values (issue 45,
-- release 1.10).  A column of a domain over counter_crdt (at any depth) is
-- a counter column: the metrics count it, the sweeps fold and forget in it,
-- and the merge trigger merges it.  A column that holds counters inside an
-- array, a composite or a range is none: health names it, and a forget of
-- writers is not proven while it exists (src/writers/sweep.c).
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS counter_crdt;
DROP SCHEMA IF EXISTS cc_dom CASCADE;
DROP ROLE IF EXISTS regress_dom_reader;
RESET client_min_messages;
CREATE SCHEMA cc_dom;
SET search_path = cc_dom, public;
\set A '00000000-0000-0000-0000-0000000000a1'
\set B '00000000-0000-0000-0000-0000000000b1'
\set C '00000000-0000-0000-0000-0000000000c1'

CREATE DOMAIN views AS counter_crdt;
CREATE DOMAIN page_views AS views;			-- a domain over a domain
CREATE TABLE pages (id int GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                    v views, pv page_views, plain counter_crdt);
INSERT INTO pages (v, pv, plain) VALUES
  (format('{%s:2:20, %s:1:5}', :'A', :'B')::views,
   format('{%s:1:7}', :'A')::page_views,
   format('{%s:1:1}', :'C')::counter_crdt),
  (format('{%s:3:30}', :'B')::views, NULL, '{}');

-- The metrics count all three columns: 3 writers of v over 2 counters.
SELECT table_name, column_name, counters, writers, shards
  FROM counter_crdt_stat WHERE table_name = 'cc_dom.pages'::regclass ORDER BY column_name;
SELECT relname, column_name, counters, writers
  FROM counter_crdt_stat_tables WHERE schemaname = 'cc_dom' ORDER BY column_name;
SELECT table_name, column_name, writer, counters
  FROM counter_crdt_writer_report('cc_dom.pages') ORDER BY column_name, writer;

-- A fold of A reaches the domain columns (values kept), and a forget of A
-- then drops its records there too.
SELECT sum(v::bigint) AS v_before, sum(pv::bigint) AS pv_before FROM pages \gset
SELECT * FROM counter_crdt_fold_writers(ARRAY[:'A']::uuid[], 'cc_dom.pages') ORDER BY column_name;
SELECT sum(v::bigint) = :v_before AS v_kept, sum(pv::bigint) = :pv_before AS pv_kept FROM pages;
SELECT (SELECT count(*) FROM pages, counter_crdt_shards(v) s WHERE s.id = :'A') AS v_shards_of_a,
       (SELECT count(*) FROM pages, counter_crdt_shards(pv) s WHERE s.id = :'A') AS pv_shards_of_a;

-- The merge trigger takes the table (its counters are all counter columns)
-- and merges a replicated row of each domain column.
SELECT counter_crdt_enable_replica_merge('cc_dom.pages');
SET session_replication_role = replica;
UPDATE pages SET v = format('{%s:9:90}', :'C')::views,
                 pv = format('{%s:4:40}', :'B')::page_views WHERE id = 2;
RESET session_replication_role;
SELECT id, v::bigint AS v, pv::bigint AS pv FROM pages ORDER BY id;

-- Health finds a published table whose only counter is of a domain: its
-- missing triggers first, none once they are made (no column_not_mergeable).
CREATE TABLE dom_only (id int PRIMARY KEY, v page_views);
SET client_min_messages = error;
CREATE PUBLICATION regress_dom_pub FOR TABLE dom_only WITH (publish = 'insert, update, delete');
RESET client_min_messages;
SELECT "check", object FROM counter_crdt_health() WHERE object LIKE '%dom_only%' ORDER BY 1;
SELECT counter_crdt_enable_replica_merge('cc_dom.dom_only');
SELECT "check", object FROM counter_crdt_health() WHERE object LIKE '%dom_only%' ORDER BY 1;
DROP PUBLICATION regress_dom_pub;

-- Counters nested in other values: an array, a composite, a composite of a
-- composite, a domain over an array, an array of a domain, a range: each
-- named by health, in a table and in a materialized view; a column of an
-- unrelated composite is not.
CREATE TYPE tally AS (label text, c counter_crdt);
CREATE TYPE tallies AS (inner_t tally, n int);
CREATE TYPE plain_pair AS (a int, b text);
CREATE DOMAIN view_list AS counter_crdt[];
CREATE TYPE counter_span AS RANGE (subtype = counter_crdt);
CREATE TABLE nests (id int PRIMARY KEY, arr counter_crdt[], t tally, deep tallies,
                    dl view_list, varr views[], pp plain_pair, span counter_span);
INSERT INTO nests VALUES (1, ARRAY[format('{%s:1:1}', :'B')::counter_crdt], NULL, NULL, NULL, NULL, NULL, NULL);
CREATE MATERIALIZED VIEW nests_mv AS SELECT id, t FROM nests;
SELECT "check", object FROM counter_crdt_health()
 WHERE "check" = 'counters_in_nested_column' ORDER BY object;

-- A forget while they exist lists the writer as retired, not forgotten.
SELECT * FROM counter_crdt_forget_writers(ARRAY[:'A']::uuid[])
 WHERE table_name = 'cc_dom.pages'::regclass ORDER BY column_name;
SELECT writer, forgotten_at IS NOT NULL AS forgotten
  FROM counter_crdt_retired_writers WHERE writer = :'A';
-- Gone: the forget is proven.
DROP MATERIALIZED VIEW nests_mv;
DROP TABLE nests;
SELECT count(*) AS nested_left FROM counter_crdt_health() WHERE "check" = 'counters_in_nested_column';
SELECT * FROM counter_crdt_forget_writers(ARRAY[:'A']::uuid[])
 WHERE table_name = 'cc_dom.pages'::regclass ORDER BY column_name;
SELECT writer, forgotten_at IS NOT NULL AS forgotten
  FROM counter_crdt_retired_writers WHERE writer = :'A';

-- Visibility: SELECT on a table without USAGE on its schema shows nothing
-- (SELECT of it fails with 42501 too); with USAGE, its rows.
CREATE ROLE regress_dom_reader;
GRANT SELECT ON pages TO regress_dom_reader;
SET ROLE regress_dom_reader;
SELECT count(*) AS without_usage FROM public.counter_crdt_stat WHERE table_name::text LIKE '%pages';
SELECT count(*) AS without_usage FROM public.counter_crdt_stat_tables WHERE relname = 'pages';
RESET ROLE;
GRANT USAGE ON SCHEMA cc_dom TO regress_dom_reader;
SET ROLE regress_dom_reader;
SELECT count(*) AS with_usage FROM public.counter_crdt_stat WHERE table_name::text LIKE '%pages';
SELECT count(*) AS with_usage FROM public.counter_crdt_stat_tables WHERE relname = 'pages';
RESET ROLE;

DELETE FROM counter_crdt_retired_writers WHERE writer = :'A';
RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA cc_dom CASCADE;
RESET client_min_messages;
DROP OWNED BY regress_dom_reader;
DROP ROLE regress_dom_reader;
