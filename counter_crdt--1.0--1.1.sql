/* counter_crdt--1.0--1.1.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION counter_crdt UPDATE TO '1.1'" to load this file. \quit

--
-- Merge on apply for logical replication
--

-- Volatile: it writes.  Not parallel safe: triggers never run in workers.
CREATE FUNCTION @extschema@.counter_crdt_replica_merge()
RETURNS trigger
AS 'MODULE_PATHNAME', 'counter_crdt_replica_merge'
LANGUAGE C;

COMMENT ON FUNCTION @extschema@.counter_crdt_replica_merge() IS
'trigger merging replicated rows into local counters; enable it as a REPLICA trigger';

-- Sets the trigger up on a table: created, then enabled for replication
-- apply only.  The table is named by regclass, so no identifier is ever
-- pasted in from text.
CREATE FUNCTION @extschema@.counter_crdt_enable_replica_merge(tbl regclass)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
	EXECUTE format('CREATE TRIGGER counter_crdt_replica_merge'
				   ' BEFORE INSERT OR UPDATE ON %s'
				   ' FOR EACH ROW EXECUTE FUNCTION @extschema@.counter_crdt_replica_merge()',
				   tbl);
	EXECUTE format('ALTER TABLE %s ENABLE REPLICA TRIGGER counter_crdt_replica_merge', tbl);
END
$$;

COMMENT ON FUNCTION @extschema@.counter_crdt_enable_replica_merge(regclass) IS
'creates trigger counter_crdt_replica_merge on a table and enables it for replication apply only';
