/* counter_crdt--1.5--1.6.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION counter_crdt UPDATE TO '1.6'" to load this file. \quit

--
-- Version 1.6: retiring writers hardened (issue 28).  Values of 1.0 to 1.5
-- are read and merged as they are; no stored value is rewritten.
--

--
-- Late copies of forgotten writers (issue 28, item 6): the merge trigger
-- records the applied rows from which it drops the shards of writers whose
-- folds were forgotten on this server, and counter_crdt_health() reports
-- them (forgotten_writer_dropped), naming the subscription that brought
-- them.  Such a shard comes from a copy that missed the fold (a server
-- started from a backup taken before it): this server's totals stay exact,
-- the sender's count the writer twice.
--
-- A table of its own rather than more columns of
-- counter_crdt_writer_conflicts: other facts (a peer's writer ids, not this
-- server's), another remedy, and kept by pg_dump, which the conflicts are
-- not (they describe this server's writer id, which a restore into a new
-- cluster does not keep; these describe the peers' rows, which stay wrong
-- until their servers are repaired).  Written like the conflicts: by the
-- merge trigger in replication apply only, a direct heap insert (no index,
-- no privilege of the subscription's owner needed); never applied from
-- another server (its REPLICA trigger drops the rows a publication of all
-- tables brings); everyone may read what health reports (not the keys,
-- which are data of the tables); the extension's owner reads it whole and
-- clears it.
CREATE TABLE @extschema@.counter_crdt_dropped_writers (
	recorded_at timestamptz NOT NULL,
	table_name regclass NOT NULL,
	column_name name NOT NULL,
	key text NOT NULL,
	writers uuid[] NOT NULL,
	origin text,
	subscription name
);
ALTER TABLE @extschema@.counter_crdt_dropped_writers REPLICA IDENTITY FULL;
SELECT pg_catalog.pg_extension_config_dump('@extschema@.counter_crdt_dropped_writers', '');
REVOKE ALL ON @extschema@.counter_crdt_dropped_writers FROM PUBLIC;
GRANT SELECT (recorded_at, table_name, column_name, writers, origin, subscription)
  ON @extschema@.counter_crdt_dropped_writers TO PUBLIC;

DO $$
BEGIN
	EXECUTE pg_catalog.format('GRANT SELECT, DELETE ON TABLE %s TO %s',
		'@extschema@.counter_crdt_dropped_writers'::pg_catalog.regclass,
		(SELECT e.extowner::pg_catalog.regrole FROM pg_catalog.pg_extension e
		  WHERE e.extname OPERATOR(pg_catalog.=) 'counter_crdt'));
END
$$;

CREATE TRIGGER counter_crdt_local_rows_only
  BEFORE INSERT OR UPDATE OR DELETE ON @extschema@.counter_crdt_dropped_writers
  FOR EACH ROW EXECUTE FUNCTION @extschema@.counter_crdt_local_rows_only();
ALTER TABLE @extschema@.counter_crdt_dropped_writers
  ENABLE REPLICA TRIGGER counter_crdt_local_rows_only;

COMMENT ON TABLE @extschema@.counter_crdt_dropped_writers IS
'replicated rows from which this server dropped shards of writers whose folds were forgotten here (copies from before the fold): the subscription or replication origin that applied them, the writers, the table, column and key; written only by replication apply, never applied from another server, cleared by the extension''s owner';

COMMENT ON FUNCTION @extschema@.counter_crdt_local_rows_only() IS
'trigger of counter_crdt_writer_conflicts, counter_crdt_retired_writers and counter_crdt_dropped_writers: rows that replication applies (another server''s records) are dropped';

COMMENT ON FUNCTION @extschema@.counter_crdt_health() IS
'one row per problem of the replication set-up of counter_crdt tables, per table with recorded own-id conflicts, and per table and subscription whose rows brought writers forgotten on this server; no rows when healthy';
