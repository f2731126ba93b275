/* counter_crdt--1.9--1.10.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION counter_crdt UPDATE TO '1.10'" to load this file. \quit

--
-- Version 1.10: the review of 1.8 and 1.9 (issue 45).  Values of 1.0 to
-- 1.9 are read and merged as they are; no stored value is rewritten.  The
-- fixes are in the module (src/operations/metrics.c, health.c,
-- src/writers/sweep.c): no scrape crashes on a partition being detached,
-- the metrics need USAGE on a table's schema, skip a table locked beyond
-- lock_timeout and keep memory by the largest partitioned table; counter
-- columns of a domain over counter_crdt are counted, swept and merged.
--

--
-- counter_crdt_stat_health: the two kinds of 1.10 get their row (0 where
-- healthy) on every server: a table that could not be locked within
-- lock_timeout (its checks and figures skipped this time), and a column
-- that holds counters inside other values (arrays, composites, ranges),
-- which no sweep visits and which keeps a forget from being proven.
--
CREATE OR REPLACE VIEW @extschema@.counter_crdt_stat_health AS
WITH h AS (SELECT "check" FROM @extschema@.counter_crdt_health())
SELECT k.kind,
       (SELECT pg_catalog.count(*) FROM h WHERE h."check" OPERATOR(pg_catalog.=) k.kind) AS problems
  FROM (SELECT pg_catalog.unnest(ARRAY[
          'no_primary_key', 'column_not_mergeable', 'no_counter',
          'merge_trigger_missing', 'merge_trigger_not_replica', 'delete_trigger_missing',
          'key_update_not_refused', 'key_change_by_trigger_not_refused', 'truncate_not_refused',
          'truncate_published', 'subscription_origin_none',
          'writer_id_conflict', 'writer_clock_near_limit', 'forgotten_writer_dropped',
          'pglogical_subscription_not_replicating',
          'unlogged_table_skipped_on_standby',
          'table_locked_skipped', 'counters_in_nested_column']::pg_catalog.text[])
        UNION SELECT "check" FROM h) AS k(kind);
