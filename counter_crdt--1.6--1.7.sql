/* counter_crdt--1.6--1.7.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION counter_crdt UPDATE TO '1.7'" to load this file. \quit

--
-- Version 1.7: metrics for a monitoring system (issue 31).  Values of 1.0
-- to 1.6 are read and merged as they are; no stored value is rewritten.
--

--
-- Metrics (src/metrics.c, doc/metrics.md).  One row per counter column of
-- a table with storage in this database: figures a monitoring system
-- graphs.  The function reads each table by a heap scan in C and runs no
-- code of anyone's (no operator, policy or trigger); it shows a table to
-- members of pg_monitor, and to a role that may SELECT the table (or the
-- column) when no row security applies to that role; other roles get no
-- row for it.  So every role may call it, and read the views.
--
CREATE FUNCTION @extschema@.counter_crdt_metrics()
RETURNS TABLE (table_name regclass, column_name name,
	counters bigint, tombstones bigint, writers bigint, shards bigint,
	shards_max bigint, shards_p99 bigint, values_with_folds bigint,
	pending_folds bigint, own_id_conflicts bigint, clocks_near_limit bigint)
AS 'MODULE_PATHNAME', 'counter_crdt_metrics'
LANGUAGE C STABLE PARALLEL RESTRICTED ROWS 10;

COMMENT ON FUNCTION @extschema@.counter_crdt_metrics() IS
'per counter column of a table with storage that the caller may see (pg_monitor members: all): counters, tombstones, distinct writers, shards (total, max and 99th percentile per counter), values with fold records, pending folds, recorded own-id conflicts and clocks near their limit; one scan of each table, no user code run';

CREATE VIEW @extschema@.counter_crdt_stat AS
SELECT * FROM @extschema@.counter_crdt_metrics();
GRANT SELECT ON @extschema@.counter_crdt_stat TO PUBLIC;

COMMENT ON VIEW @extschema@.counter_crdt_stat IS
'counter_crdt_metrics() as a view, for monitoring (doc/metrics.md): one row per counter column the caller may see';

-- The problems of counter_crdt_health() counted by kind, every kind it
-- knows with a row (0 when none), so that a gauge of each exists.
CREATE VIEW @extschema@.counter_crdt_stat_health AS
WITH h AS (SELECT "check" FROM @extschema@.counter_crdt_health())
SELECT k.kind,
       (SELECT pg_catalog.count(*) FROM h WHERE h."check" OPERATOR(pg_catalog.=) k.kind) AS problems
  FROM (SELECT pg_catalog.unnest(ARRAY[
          'no_primary_key', 'column_not_mergeable', 'no_counter',
          'merge_trigger_missing', 'merge_trigger_not_replica', 'delete_trigger_missing',
          'key_update_not_refused', 'key_change_by_trigger_not_refused', 'truncate_not_refused',
          'truncate_published', 'subscription_origin_none',
          'writer_id_conflict', 'writer_clock_near_limit', 'forgotten_writer_dropped',
          'pglogical_subscription_not_replicating']::pg_catalog.text[])
        UNION SELECT "check" FROM h) AS k(kind);
GRANT SELECT ON @extschema@.counter_crdt_stat_health TO PUBLIC;

COMMENT ON VIEW @extschema@.counter_crdt_stat_health IS
'counter_crdt_health() counted by kind of problem, one row per kind (0 when healthy), for monitoring (doc/metrics.md)';
