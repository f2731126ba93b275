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

-- Volatile: it writes.  Enabled as an ordinary trigger: local deletes only.
CREATE FUNCTION @extschema@.counter_crdt_delete_as_tombstone()
RETURNS trigger
AS 'MODULE_PATHNAME', 'counter_crdt_delete_as_tombstone'
LANGUAGE C;

COMMENT ON FUNCTION @extschema@.counter_crdt_delete_as_tombstone() IS
'trigger turning a local DELETE of a row into tombstones in its counters, so that the delete wins on every replica';

-- Sets a table up: the merge trigger, enabled for replication apply only,
-- and the delete trigger, for local deletes only.  The table is named by
-- regclass, so no identifier is ever pasted in from text.
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
	EXECUTE format('CREATE TRIGGER counter_crdt_delete_as_tombstone'
				   ' BEFORE DELETE ON %s'
				   ' FOR EACH ROW EXECUTE FUNCTION @extschema@.counter_crdt_delete_as_tombstone()',
				   tbl);
END
$$;

COMMENT ON FUNCTION @extschema@.counter_crdt_enable_replica_merge(regclass) IS
'sets a table up for multi-server replication: merge on apply, local deletes as tombstones';
