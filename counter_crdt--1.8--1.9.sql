/* counter_crdt--1.8--1.9.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION counter_crdt UPDATE TO '1.9'" to load this file. \quit

--
-- Version 1.9: metrics that graph well, and the state of the subscriptions
-- (issue 40).  Values of 1.0 to 1.8 are read and merged as they are; no
-- stored value is rewritten.  counter_crdt_stat and counter_crdt_stat_health
-- stay as they were (scrape configurations of 1.7 and 1.8 keep working).
--

--
-- The figures of counter_crdt_metrics() per counter column of each table as
-- its users name it (src/operations/metrics.c, doc/metrics.md): the
-- partitions of a partitioned table summed under it (writers distinct over
-- all of them, quantiles over all their counters), so that partitions made
-- and dropped every hour make no new series; the schema and the table's
-- name apart, whatever the caller's search_path.  The same rights as
-- counter_crdt_metrics(), a partitioned table judged as a table.
--
CREATE FUNCTION @extschema@.counter_crdt_table_metrics()
RETURNS TABLE (schemaname name, relname name, column_name name, partitions bigint,
	counters bigint, tombstones bigint, writers bigint, shards bigint,
	shards_p50 bigint, shards_p99 bigint, shards_max bigint,
	values_with_folds bigint, pending_folds bigint,
	own_id_conflicts bigint, clocks_near_limit bigint)
AS 'MODULE_PATHNAME', 'counter_crdt_table_metrics'
LANGUAGE C STABLE PARALLEL RESTRICTED ROWS 10;

COMMENT ON FUNCTION @extschema@.counter_crdt_table_metrics() IS
'counter_crdt_metrics() per counter column of each table as its users name it, a partitioned table''s partitions summed: partitions read, counters, tombstones, distinct writers, shards (total, median, 99th percentile and most per counter), values with fold records, pending folds, own-id conflicts, clocks near their limit';

CREATE VIEW @extschema@.counter_crdt_stat_tables AS
SELECT * FROM @extschema@.counter_crdt_table_metrics();
GRANT SELECT ON @extschema@.counter_crdt_stat_tables TO PUBLIC;

COMMENT ON VIEW @extschema@.counter_crdt_stat_tables IS
'counter_crdt_table_metrics() as a view, for monitoring (doc/metrics.md): one row per counter column of each table as its users name it';

-- Shards per counter as quantiles, a row each: 0.5, 0.99 and 1 (the most).
CREATE VIEW @extschema@.counter_crdt_stat_shards AS
SELECT m.schemaname, m.relname, m.column_name, q.quantile, q.shards
  FROM @extschema@.counter_crdt_table_metrics() AS m
 CROSS JOIN LATERAL (VALUES ('0.5'::pg_catalog.text, m.shards_p50),
                            ('0.99'::pg_catalog.text, m.shards_p99),
                            ('1'::pg_catalog.text, m.shards_max)) AS q(quantile, shards);
GRANT SELECT ON @extschema@.counter_crdt_stat_shards TO PUBLIC;

COMMENT ON VIEW @extschema@.counter_crdt_stat_shards IS
'shards per counter of each counter column of counter_crdt_stat_tables, by nearest rank: the quantiles 0.5, 0.99 and 1 (the most), a row each, for monitoring (doc/metrics.md)';

--
-- The subscriptions of this database (native logical replication): whether
-- each is enabled, whether its apply worker runs, and the errors that
-- PostgreSQL counted for it.  What any role may read of pg_subscription
-- and the statistics views, read as the caller (security_invoker); no
-- connection string.
--
CREATE VIEW @extschema@.counter_crdt_stat_subscriptions
WITH (security_invoker = true) AS
SELECT s.subname,
       s.subenabled AS enabled,
       -- the leader apply worker (parallel apply workers of 16 and later,
       -- also without a table, run only beside it)
       CASE WHEN EXISTS (SELECT FROM pg_catalog.pg_stat_subscription AS w
                          WHERE w.subid OPERATOR(pg_catalog.=) s.oid
                            AND w.relid IS NULL AND w.pid IS NOT NULL)
            THEN 1::pg_catalog.int8 ELSE 0::pg_catalog.int8 END AS workers,
       COALESCE(st.apply_error_count, 0) AS apply_errors,
       -- sync_error_count until 18; 19 counts tables and sequences apart
       COALESCE((SELECT pg_catalog.sum(e.value::pg_catalog.int8)::pg_catalog.int8
                   FROM pg_catalog.jsonb_each_text(pg_catalog.to_jsonb(st)) AS e
                  WHERE e.key OPERATOR(pg_catalog.~) '^sync_(table_|seq_)?error_count$'),
                0) AS sync_errors
  FROM pg_catalog.pg_subscription AS s
  LEFT JOIN pg_catalog.pg_stat_subscription_stats AS st
    ON st.subid OPERATOR(pg_catalog.=) s.oid
 WHERE s.subdbid OPERATOR(pg_catalog.=)
       (SELECT d.oid FROM pg_catalog.pg_database AS d
         WHERE d.datname OPERATOR(pg_catalog.=) pg_catalog.current_database());
GRANT SELECT ON @extschema@.counter_crdt_stat_subscriptions TO PUBLIC;

COMMENT ON VIEW @extschema@.counter_crdt_stat_subscriptions IS
'the subscriptions of this database, for monitoring (doc/metrics.md): enabled, apply workers running (0 or 1), apply and table synchronization errors counted by pg_stat_subscription_stats';
