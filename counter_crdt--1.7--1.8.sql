/* counter_crdt--1.7--1.8.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION counter_crdt UPDATE TO '1.8'" to load this file. \quit

--
-- Version 1.8: the review of 1.6 and 1.7 (issue 37).  Values of 1.0 to 1.7
-- are read and merged as they are; no stored value is rewritten.  The
-- library's fixes (objects found only among the extension's own, estimates
-- that never fail, ON CONFLICT left as written, metrics on a standby) need
-- no statement.
--

--
-- Own-id conflicts by column number.  A conflict names the column it was
-- recorded in by its number as well: a renamed column keeps its conflicts,
-- and a new column that takes a dropped column's name does not inherit
-- them.  Rows recorded before 1.8 get the number of the live column of
-- their recorded name, where there is one.
--
ALTER TABLE @extschema@.counter_crdt_writer_conflicts ADD COLUMN column_number smallint;
UPDATE @extschema@.counter_crdt_writer_conflicts w
   SET column_number = a.attnum
  FROM pg_catalog.pg_attribute a
 WHERE a.attrelid OPERATOR(pg_catalog.=) w.table_name
   AND a.attname OPERATOR(pg_catalog.=) w.column_name
   AND a.attnum OPERATOR(pg_catalog.>) 0 AND NOT a.attisdropped;
GRANT SELECT (column_number) ON @extschema@.counter_crdt_writer_conflicts TO PUBLIC;

COMMENT ON COLUMN @extschema@.counter_crdt_writer_conflicts.column_number IS
'the number of the column (pg_attribute.attnum) the conflict was recorded in; column_name is its name at that time';

-- The summary names the column as it is called now (the recorded name
-- where the column is gone), and gives its number.
CREATE OR REPLACE VIEW @extschema@.counter_crdt_writer_conflict_summary AS
SELECT w.recorded_at, w.table_name,
       COALESCE(a.attname, w.column_name) AS column_name, w.writer_id,
       w.incoming_clock OPERATOR(pg_catalog.>=) 4611686018427387904 AS clock_near_limit,
       w.column_number
  FROM @extschema@.counter_crdt_writer_conflicts w
  LEFT JOIN pg_catalog.pg_attribute a
    ON a.attrelid OPERATOR(pg_catalog.=) w.table_name
   AND a.attnum OPERATOR(pg_catalog.=) w.column_number AND NOT a.attisdropped;

COMMENT ON VIEW @extschema@.counter_crdt_writer_conflict_summary IS
'what everyone may read of counter_crdt_writer_conflicts: when, where (the column by its name now and its number), which writer id, and whether the replicated clock was near the end of its range';

--
-- counter_crdt_stat_health: the kind of 1.8, a row (0 where healthy) on
-- every server, so that its gauge exists before it is needed: on a hot
-- standby, an unlogged table with a counter column, whose rows are not
-- there, which counter_crdt_stat skips.
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
          'unlogged_table_skipped_on_standby']::pg_catalog.text[])
        UNION SELECT "check" FROM h) AS k(kind);
