/* counter_crdt--1.3--1.4.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION counter_crdt UPDATE TO '1.4'" to load this file. \quit

--
-- Version 1.4: replication set-up that ordinary tables and unprivileged
-- roles cannot break (issue 21).  Tables set up with an earlier version get
-- the new guards when counter_crdt_enable_replica_merge() runs on them again;
-- counter_crdt_health() lists the tables that lack them.
--

-- The guards of a table whose rows are merged across servers, for local
-- statements only (ORIGIN triggers): BEFORE UPDATE OF the primary key, FOR
-- EACH ROW, refuses a change of the key; BEFORE TRUNCATE refuses TRUNCATE.
-- counter_crdt_enable_replica_merge() creates both.
CREATE FUNCTION @extschema@.counter_crdt_local_guard()
RETURNS trigger
AS 'MODULE_PATHNAME', 'counter_crdt_local_guard'
LANGUAGE C;

COMMENT ON FUNCTION @extschema@.counter_crdt_local_guard() IS
'trigger of replicated counter tables: refuses local changes of the primary key and TRUNCATE, which the other servers could not merge';

COMMENT ON FUNCTION @extschema@.counter_crdt_enable_replica_merge(regclass) IS
'sets a table up for multi-server replication (merge on apply, local deletes as tombstones, key changes and TRUNCATE refused) after checking that it can be merged; idempotent, and the repair of triggers that ENABLE TRIGGER ALL or ALTER TABLE changed';

-- The own-id conflicts describe this server's writer id: they must not be
-- applied on other servers.  The table stays durable (section 7.2 of the
-- contract); a FOR ALL TABLES publication (or a pglogical replication set of
-- all tables) holds it, so its DELETE needs a replica identity, and the rows
-- it sends are dropped where they are applied by a REPLICA trigger.  The
-- extension's owner (a database owner who created the trusted extension,
-- whose objects the bootstrap superuser owns) reads it whole and clears it.
ALTER TABLE @extschema@.counter_crdt_writer_conflicts REPLICA IDENTITY FULL;

CREATE FUNCTION @extschema@.counter_crdt_local_rows_only()
RETURNS trigger
AS 'MODULE_PATHNAME', 'counter_crdt_local_rows_only'
LANGUAGE C;

COMMENT ON FUNCTION @extschema@.counter_crdt_local_rows_only() IS
'trigger of counter_crdt_writer_conflicts: rows that replication applies (another server''s records) are dropped';

CREATE TRIGGER counter_crdt_local_rows_only
  BEFORE INSERT OR UPDATE OR DELETE ON @extschema@.counter_crdt_writer_conflicts
  FOR EACH ROW EXECUTE FUNCTION @extschema@.counter_crdt_local_rows_only();
ALTER TABLE @extschema@.counter_crdt_writer_conflicts
  ENABLE REPLICA TRIGGER counter_crdt_local_rows_only;

DO $$
BEGIN
	EXECUTE pg_catalog.format('GRANT SELECT, DELETE ON TABLE %s TO %s',
		'@extschema@.counter_crdt_writer_conflicts'::pg_catalog.regclass,
		(SELECT e.extowner::pg_catalog.regrole FROM pg_catalog.pg_extension e
		  WHERE e.extname = 'counter_crdt'));
END
$$;

COMMENT ON TABLE @extschema@.counter_crdt_writer_conflicts IS
'replicated rows that held a newer shard of this server''s own writer id than the local row (another server writes under the same id, or this server went back in time); written only by replication apply, never applied from another server, cleared by the extension''s owner';

-- What every role may read of the conflicts, as counter_crdt_health()
-- reports them: when, in which table and column, under which writer id, and
-- whether the replicated shard's clock was 2^62 or more (written by hand:
-- no writer gets there by increments).  The keys and the shards stay with
-- the table's readers.
CREATE VIEW @extschema@.counter_crdt_writer_conflict_summary AS
SELECT recorded_at, table_name, column_name, writer_id,
       incoming_clock >= 4611686018427387904 AS clock_near_limit
  FROM @extschema@.counter_crdt_writer_conflicts;
REVOKE ALL ON @extschema@.counter_crdt_writer_conflict_summary FROM PUBLIC;
GRANT SELECT ON @extschema@.counter_crdt_writer_conflict_summary TO PUBLIC;

COMMENT ON VIEW @extschema@.counter_crdt_writer_conflict_summary IS
'what everyone may read of counter_crdt_writer_conflicts: when, where, which writer id, and whether the replicated clock was near the end of its range';
