/* counter_crdt--1.1--1.2.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION counter_crdt UPDATE TO '1.2'" to load this file. \quit

--
-- Version 1.2: operations (SPEC 7), beyond ScyllaDB (SPEC 8), and the set-up
-- checks and ordering of issue 13.  Each part below keeps to its section.
--


--
-- 1.2 section: ordering (btree operator class)
--



--
-- 1.2 section: writer ids, own-id conflicts, health, set-up checks
--

COMMENT ON FUNCTION @extschema@.counter_crdt_node_id() IS
'writer id of this server: counter_crdt.node_id, or a default derived from the system identifier, the current timeline and the database';

-- Own-id conflicts (SPEC 7.2), written by counter_crdt_replica_merge() with a
-- direct heap insert, so that the subscription's owner needs no privilege on
-- it; written by nobody else.  Everyone may read when, in which table and
-- column, and under which writer id (what counter_crdt_health() reports);
-- the key and the shards are data of the table, for its owner (and whom the
-- owner grants them).  Not marked for pg_dump: a row tells that this
-- server's writer id, which a restore into a new cluster does not keep, was
-- used by another server.
CREATE TABLE @extschema@.counter_crdt_writer_conflicts (
	recorded_at timestamptz NOT NULL,
	table_name regclass NOT NULL,
	key text NOT NULL,
	column_name name NOT NULL,
	writer_id uuid NOT NULL,
	local_clock bigint,
	local_value bigint,
	incoming_clock bigint NOT NULL,
	incoming_value bigint NOT NULL
);
REVOKE ALL ON @extschema@.counter_crdt_writer_conflicts FROM PUBLIC;
GRANT SELECT (recorded_at, table_name, column_name, writer_id)
  ON @extschema@.counter_crdt_writer_conflicts TO PUBLIC;

COMMENT ON TABLE @extschema@.counter_crdt_writer_conflicts IS
'replicated rows that held a newer shard of this server''s own writer id than the local row (another server writes under the same id, or this server went back in time)';

-- Stable: it reads the catalogs and the conflicts.  Parallel restricted, so
-- that it stays in the leader: it runs queries of its own through SPI.
CREATE FUNCTION @extschema@.counter_crdt_health()
RETURNS TABLE ("check" text, object text, problem text, hint text)
AS 'MODULE_PATHNAME', 'counter_crdt_health'
LANGUAGE C STABLE PARALLEL RESTRICTED ROWS 10;

COMMENT ON FUNCTION @extschema@.counter_crdt_health() IS
'one row per problem of the replication set-up of counter_crdt tables, and per table with recorded own-id conflicts; no rows when healthy';

-- Now in C: checks the table as the merge trigger does, creates what is
-- missing, and enables the merge trigger as REPLICA again where ENABLE
-- TRIGGER ALL made it an ordinary one.  Signature and markings as in 1.1.
CREATE OR REPLACE FUNCTION @extschema@.counter_crdt_enable_replica_merge(tbl regclass)
RETURNS void
AS 'MODULE_PATHNAME', 'counter_crdt_enable_replica_merge'
LANGUAGE C
SET search_path = pg_catalog, pg_temp;

COMMENT ON FUNCTION @extschema@.counter_crdt_enable_replica_merge(regclass) IS
'sets a table up for multi-server replication (merge on apply, local deletes as tombstones) after checking that it can be merged; idempotent, and the repair of a merge trigger that ENABLE TRIGGER ALL turned into an ordinary one';



--
-- 1.2 section: table digests and differences
--



--
-- 1.2 section: exactly-once increments and JSON
--

